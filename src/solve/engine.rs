//! The engine type and its policy: names (parse, display, the list with
//! one-line descriptions), what each engine keeps (distances, checkpoints)
//! and what it therefore refuses. Callers (the command line included) map
//! their flags to these and never re-decide them.

use crate::error::Error;

/// Which algorithm solves the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// One thread, level-synchronous propagation over bitmap frontiers,
    /// plain (non-atomic) updates.
    Sequential,
    /// The same propagation split among rayon workers by state-index ranges:
    /// stripes at least one predecessor radius long run three phases apart
    /// with plain updates (atomic updates only for games without a radius);
    /// identical values and distances at any thread count.
    Parallel,
    /// The classic baseline: materialise the game into an
    /// [`ExplicitGraph`](crate::ExplicitGraph) (forward and reverse CSR,
    /// built in parallel), then run the sequential propagation over the
    /// stored edges. Same values and distances; refuses with
    /// [`Error::TooLarge`] when the graph would not fit (see
    /// [`SolveOptions::with_memory_limit`](super::SolveOptions::with_memory_limit)).
    Explicit,
    /// Value-only sweeps for arrays larger than memory: bands of the state
    /// array are drained to completion in alternating forward and backward
    /// sweeps, in parallel stripes. Same values as the level engines; no
    /// distances (asked for a distance table, [`solve`](super::solve)
    /// refuses with [`Error::Unsupported`]).
    Sweep,
    /// The grid game only: bit-parallel levels over per-cop-cell bitsets
    /// of thief cells (`solve/bitboard.rs`), in parallel over bands of
    /// cop rows. Same values and distances as the level engines, about
    /// 0.3 bytes per state. Any other game is solved by
    /// [`Engine::Parallel`].
    Bitboard,
}

impl Engine {
    /// Every engine, in the order lists and help texts show them.
    pub const ALL: [Engine; 5] = [
        Engine::Bitboard,
        Engine::Parallel,
        Engine::Sequential,
        Engine::Explicit,
        Engine::Sweep,
    ];

    /// The engine's name (the command line's `--engine` value).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Sequential => "sequential",
            Engine::Parallel => "parallel",
            Engine::Explicit => "explicit",
            Engine::Sweep => "sweep",
            Engine::Bitboard => "bitboard",
        }
    }

    /// One line on what the engine does, for help texts.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Engine::Sequential => "one thread, plain updates",
            Engine::Parallel => "worker threads over disjoint stripes of states",
            Engine::Explicit => {
                "store the whole graph (forward and reverse CSR), then propagate sequentially: the classic baseline"
            }
            Engine::Sweep => "value-only sweeps for solves larger than memory (no distances)",
            Engine::Bitboard => {
                "bit-parallel levels over bitsets of thief cells: grid maps, and several cops (solve --cops, --graph); other games: parallel"
            }
        }
    }

    /// Whether the engine computes distances to end (a distance table, the
    /// start's distance); [`Engine::Sweep`] computes values only.
    #[must_use]
    pub fn keeps_distances(self) -> bool {
        self != Engine::Sweep
    }

    /// Whether the engine offers snapshots between levels and resumes from
    /// them (on the grid game): [`Engine::Bitboard`] only.
    #[must_use]
    pub fn keeps_checkpoints(self) -> bool {
        self == Engine::Bitboard
    }

    /// The refusal of a request for something the engine does not keep:
    /// `what` names it (`"a distance table"`).
    pub(crate) fn refuse(self, what: &str) -> Error {
        let hint = if what.contains("distance") {
            "use a level engine (bitboard, parallel, sequential or explicit)"
        } else {
            "use the bitboard engine on a grid map"
        };
        Error::Unsupported {
            engine: self.as_str().to_string(),
            what: what.to_string(),
            hint: hint.to_string(),
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An engine name that names no engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownEngine(pub String);

impl std::fmt::Display for UnknownEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = Engine::ALL.iter().map(|e| e.as_str()).collect();
        write!(
            f,
            "unknown engine `{}`; expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownEngine {}

impl std::str::FromStr for Engine {
    type Err = UnknownEngine;

    fn from_str(name: &str) -> Result<Engine, UnknownEngine> {
        Engine::ALL
            .into_iter()
            .find(|e| e.as_str() == name)
            .ok_or_else(|| UnknownEngine(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::Engine;

    #[test]
    fn every_name_parses_back_to_its_engine() {
        for e in Engine::ALL {
            assert_eq!(e.as_str().parse::<Engine>(), Ok(e));
            assert_eq!(e.to_string(), e.as_str());
            assert!(!e.description().is_empty());
        }
        let err = "fast".parse::<Engine>().unwrap_err().to_string();
        assert!(
            err.contains("`fast`") && err.contains("bitboard, parallel"),
            "{err}"
        );
    }

    #[test]
    fn only_the_sweep_engine_drops_distances() {
        let without: Vec<Engine> = Engine::ALL
            .into_iter()
            .filter(|e| !e.keeps_distances())
            .collect();
        assert_eq!(without, [Engine::Sweep]);
    }
}
