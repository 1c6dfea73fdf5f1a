//! One graph's cop number under the memory cap: its arena under the
//! flags' speeds, the search over 1, 2, ... cops with a spinner and a stop
//! on request, the plan (`--plan`) and the refusals of a number of cops
//! that would not fit, and `--full-solve`'s solve of every state.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use anyhow::Result;
use indicatif::ProgressBar;
use retrograde::copnumber::{
    cop_number_of_graph, cop_number_with, memory_bound, multiset_count, CopNumber, CopSearch,
    OutOfMemory,
};
use retrograde::{estimate, solve, Arena, CopsGame, Engine, Rules, SolveOptions, Speeds};

use super::super::common::human_bytes;
use super::super::output::stop_requested;
use super::{speed_note, CopNumberArgs};
use crate::cli::failure::Failure;

impl CopNumberArgs {
    /// The arena of a graph under these flags' speeds and `--lazy`.
    pub(super) fn graph_arena(&self, n: usize, edges: &[(u32, u32)]) -> Arena {
        Arena::from_edges(n as u32, edges)
            .expect("the graph readers keep edges within 0..n")
            .with_speeds(self.speeds.cop_speed, self.speeds.thief_speed)
            .with_lazy(self.lazy)
    }

    /// Whether a graph of `n` vertices is solved among the batch's
    /// parallel solves: small enough that one solve per thread, each at
    /// `--max-cops`, fits the cap together. Larger graphs are solved one
    /// at a time ([`CopNumberArgs::search`]), each number of cops planned.
    pub(super) fn in_parallel(&self, n: usize) -> bool {
        let threads = rayon::current_num_threads() as u64;
        n <= 64 && memory_bound(n, self.max_cops as usize).saturating_mul(threads) <= self.cap
    }

    /// The cop number of one graph in the batch's parallel solves
    /// ([`CopNumberArgs::in_parallel`]). At speed 1 the plain graph game's
    /// fast path; with a fast piece or lazy cops the general engine, whose placement and
    /// capture time are dropped under `--counts` so that the answer reads
    /// as the fast path's would.
    pub(super) fn solve_graph(&self, n: usize, edges: &[(u32, u32)], timed: bool) -> CopNumber {
        if !self.speeds.fast() && !self.lazy {
            return cop_number_of_graph(n, edges, self.max_cops, timed);
        }
        let search = CopSearch::default();
        let r = cop_number_with(&self.graph_arena(n, edges), self.max_cops, &search)
            .expect("a search without an observer is not stopped");
        untimed_if(r, timed)
    }

    /// The cop number of `arena` under the cap, one number of cops after
    /// the other, with a spinner per number of cops: `bar` when the
    /// stream has one, else one of its own on a terminal. `None` when a
    /// stop was asked (`--out`'s Ctrl-C).
    pub(super) fn search(
        &self,
        arena: &Arena,
        timed: bool,
        bar: Option<&ProgressBar>,
    ) -> Result<Option<CopNumber>, Failure> {
        let own = if bar.is_none() { self.spinner() } else { None };
        let bar = bar.or(own.as_ref());
        let observer = |k: u32, level: u32| {
            if let Some(b) = bar {
                b.set_message(format!("{}: level {level}", cops(k)));
            }
            stop_requested().is_none()
        };
        let search = CopSearch {
            memory: Some(self.cap),
            untimed: !timed,
            observer: Some(&observer),
        };
        let r = cop_number_with(arena, self.max_cops, &search);
        if let Some(b) = own {
            b.finish_and_clear();
        }
        match r {
            Ok(r) => Ok(Some(untimed_if(r, timed))),
            Err(retrograde::Error::Stopped { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// A spinner on standard error when it is a terminal and not `--quiet`.
    pub(super) fn spinner(&self) -> Option<ProgressBar> {
        (!self.quiet && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .expect("template"),
            );
            b.set_message("1 cop: level 0");
            b.enable_steady_tick(Duration::from_millis(200));
            b
        })
    }

    /// The cap in words: `--memory 64.0 MiB`, or `the 15.2 GiB available`.
    pub(super) fn cap_words(&self) -> String {
        if self.memory.is_some() {
            format!("--memory {}", human_bytes(self.cap))
        } else {
            format!("the {} available", human_bytes(self.cap))
        }
    }

    /// The search that stopped short of `--max-cops` for memory, as the
    /// error the run ends with (exit status 1: the work ran and could not
    /// finish), after the graph's line said "more than K-1".
    pub(super) fn out_of_memory(&self, name: &str, o: &OutOfMemory) -> Failure {
        let known = if o.cops > 1 {
            format!("the cop number is more than {}", o.cops - 1)
        } else {
            "nothing was tried".to_string()
        };
        let hint = if self.memory.is_some() {
            "raise --memory"
        } else {
            "this machine has no room for them"
        };
        Failure {
            status: 1,
            error: anyhow::anyhow!(
                "{name}: {} would need {}, more than {}; {known} ({hint})",
                cops(o.cops),
                human_bytes(o.needed),
                self.cap_words()
            ),
        }
    }

    /// `--plan`: what each number of cops would need on `arena` and
    /// whether it fits the cap.
    pub(super) fn write_plan(
        &self,
        out: &mut impl Write,
        name: &str,
        arena: &Arena,
        noun: &str,
    ) -> Result<()> {
        writeln!(
            out,
            "{name}: {} {noun}, up to {}, {}",
            arena.cells(),
            cops(self.max_cops),
            self.cap_words()
        )?;
        for k in 1..=self.max_cops {
            let need = need(arena, k)?;
            if need <= self.cap {
                writeln!(out, "{}: {}, fits", cops(k), human_bytes(need))?;
            } else {
                let known = if k > 1 {
                    format!("\"the cop number is more than {}\"", k - 1)
                } else {
                    "nothing is tried".to_string()
                };
                writeln!(
                    out,
                    "{}: {}, does not fit: unless fewer cops win, {known}",
                    cops(k),
                    human_bytes(need)
                )?;
                break;
            }
        }
        Ok(())
    }
}

/// `1 cop`, `3 cops`.
pub(super) fn cops(k: u32) -> String {
    format!("{k} cop{}", if k == 1 { "" } else { "s" })
}

/// `r` without its placement and capture time unless `timed`, as the fast
/// path's `--counts` answer reads.
pub(super) fn untimed_if(r: CopNumber, timed: bool) -> CopNumber {
    if timed {
        return r;
    }
    CopNumber {
        placement: Vec::new(),
        capture_time_plies: 0,
        capture_time_rounds: 0,
        timed: false,
        ..r
    }
}

impl CopNumberArgs {
    /// Refuses a `--full-solve` of `k` cops (every state, no early stop)
    /// that would not fit the cap, before any work (exit status 2).
    pub(super) fn check_fits(&self, name: &str, arena: &Arena, k: u32) -> Result<(), Failure> {
        let need = need(arena, k)?;
        if need > self.cap {
            return Err(Failure {
                status: crate::cli::failure::EXIT_INPUT,
                error: anyhow::anyhow!(
                    "{name}: {} on {} vertices or cells would need {}, more than {}",
                    cops(k),
                    arena.cells(),
                    human_bytes(need),
                    self.cap_words()
                ),
            });
        }
        Ok(())
    }
}

/// Solves the k-cop game on one graph over every state and reports it.
pub(super) fn full_solve(out: &mut impl Write, arena: &Arena, k: u32) -> Result<()> {
    let n = arena.cells() as usize;
    let states = multiset_count(n, k as usize) as f64 * n as f64 * 2.0;
    let started = std::time::Instant::now();
    let game = game_of(arena, k)?;
    let sol = solve(&game, &SolveOptions::new(Engine::Bitboard))?;
    let seconds = started.elapsed().as_secs_f64();
    let [cops_move, thief_moves] = sol.counts_by_parity();
    let c = [
        cops_move.win,
        cops_move.loss,
        cops_move.draw,
        thief_moves.win,
        thief_moves.loss,
        thief_moves.draw,
    ];
    let max_degree = (0..arena.cells())
        .map(|c| arena.cop_steps(c).len())
        .max()
        .unwrap_or(0);
    let speeds = speed_note(arena.speeds().0, arena.speeds().1)
        .map_or_else(String::new, |s| format!(", {s}"));
    writeln!(
        out,
        "{k} cops on {n} vertices (max degree {max_degree}){speeds}: {states:.3e} states, {} levels, {seconds:.2} s ({:.3e} states/s)",
        sol.levels(),
        states / seconds.max(1e-9)
    )?;
    writeln!(
        out,
        "cops to move: {} win, {} lose, {} draw; thief to move: {} win, {} lose, {} draw",
        c[0], c[1], c[2], c[3], c[4], c[5]
    )?;
    Ok(())
}

/// The game of `k` cops on `arena`, at the arena's own speeds.
fn game_of(arena: &Arena, k: u32) -> retrograde::Result<CopsGame> {
    let (cop, thief) = arena.speeds();
    let speeds = Speeds {
        cop,
        thief,
        lazy: arena.lazy(),
    };
    CopsGame::from_graph(arena.clone(), Rules::default(), k, speeds)
}

/// Bytes the solve of `k` cops on `arena` needs in memory (the library's
/// estimate, no distance table), as the cop-number search plans it.
fn need(arena: &Arena, k: u32) -> retrograde::Result<u64> {
    let options = SolveOptions::new(Engine::Bitboard);
    Ok(estimate(&game_of(arena, k)?, &options).total())
}
