//! The explicit game graph: [`ExplicitGraph`], a game with every edge
//! stored (forward and reverse [`Csr`] plus one bit per vertex for the
//! value of a vertex without moves), its build from any [`Game`] or from a
//! parsed forward CSR, and its own [`Game`] implementation. Separate from
//! the CSR itself (`mod.rs`) and its radix sort (`bucket`), which it only
//! uses; `csr` re-exports the type, so its path stays `csr::ExplicitGraph`.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::{Csr, Target, CHUNK};
use crate::error::Result;
use crate::game::{Game, Initial};
use crate::outcome::Terminal;
use crate::storage::{Backing, Region};

/// A game with all its edges stored: forward and reverse [`Csr`] plus the
/// value of every vertex without moves. It implements [`Game`] by reading
/// the stored edges, so any engine solves it.
///
/// A vertex has moves exactly when its forward degree is positive; a vertex
/// without moves is decided at distance 0, as WIN or LOSS for the player to
/// move according to its stored bit.
///
/// # Example
/// Materialise a game and solve the copy: the values are the game's.
/// ```
/// use retrograde::{parse_map, solve, Backing, CopsGame, Engine, ExplicitGraph, Placement, Rules, SolveOptions, Speeds};
/// let map = parse_map(b"2 3\nC.T\n..E\n", "inline").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let graph = ExplicitGraph::from_game(&game, &Backing::Memory).unwrap();
/// assert_eq!(graph.state_count(), 2 * 6 * 6);
/// let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
/// let (a, b) = (solve(&game, &options).unwrap(), solve(&graph, &options).unwrap());
/// assert!((0..72).all(|s| a.outcome(s) == b.outcome(s) && a.dte(s) == b.dte(s)));
/// ```
#[derive(Debug)]
pub struct ExplicitGraph {
    forward: Csr,
    reverse: Csr,
    /// One bit per vertex: a vertex without moves is a WIN (else a LOSS).
    terminal_wins: Region,
    max_moves: u32,
    build_time: Duration,
}

impl ExplicitGraph {
    /// Materialises `game`: asks every state for its moves once and stores
    /// them, then transposes them. Runs on the current rayon pool (call it
    /// inside `ThreadPool::install` to choose the thread count).
    ///
    /// Check [`explicit_estimate`](super::explicit_estimate) against the
    /// memory you have first: this allocates that much.
    ///
    /// # Errors
    /// [`Error::Alloc`](crate::Error::Alloc) when an array cannot be mapped.
    ///
    /// # Panics
    /// If the game breaks the [`Game`] contract: a state decided as a draw
    /// (which has no stored representation), a move count that differs from
    /// the successors it yields, or a successor out of range.
    pub fn from_game(game: &impl Game, backing: &Backing) -> Result<ExplicitGraph> {
        let started = Instant::now();
        let n = game.state_count();
        let terminal_wins =
            Region::zeroed::<AtomicU64>(n.div_ceil(64), backing, "terminal values")?;
        let offsets = Csr::offsets_for(n, backing, "forward")?;
        let (edges, max_moves) = {
            let offsets = offsets.atomics::<AtomicU64>();
            let wins = terminal_wins.atomics::<AtomicU64>();
            let chunks = n.div_ceil(CHUNK);
            // Count: the move count of s goes to offsets[s + 1].
            let counted: Vec<(u64, u32)> = (0..chunks)
                .into_par_iter()
                .map(|k| {
                    let (mut sum, mut max) = (0u64, 0u32);
                    game.for_each_initial(k * CHUNK..((k + 1) * CHUNK).min(n), |s, initial| {
                        match initial {
                            Initial::Moves(m) => {
                                debug_assert!(m >= 1, "state {s}: Initial::Moves(0)");
                                offsets[s as usize + 1].store(u64::from(m), Relaxed);
                                sum += u64::from(m);
                                max = max.max(m);
                            }
                            Initial::Decided(Terminal::Win) => {
                                let word = &wins[(s / 64) as usize];
                                word.store(word.load(Relaxed) | 1 << (s % 64), Relaxed);
                            }
                            Initial::Decided(Terminal::Loss) => {}
                        }
                    });
                    (sum, max)
                })
                .collect();
            // Inclusive prefix sum per chunk from the chunk's base.
            let mut base = 0;
            let bases: Vec<u64> = counted
                .iter()
                .map(|&(sum, _)| {
                    base += sum;
                    base - sum
                })
                .collect();
            bases.into_par_iter().enumerate().for_each(|(k, base)| {
                let mut run = base;
                for s in k as u64 * CHUNK..((k as u64 + 1) * CHUNK).min(n) {
                    let c = &offsets[s as usize + 1];
                    run += c.load(Relaxed);
                    c.store(run, Relaxed);
                }
            });
            (base, counted.iter().map(|c| c.1).max().unwrap_or(0))
        };
        let forward = Csr::with_targets(offsets, n, edges, backing, "forward")?;
        fn fill<T: Target>(game: &impl Game, offsets: &[AtomicU64], targets: &[T]) {
            let n = offsets.len() as u64 - 1;
            (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|k| {
                let range = k * CHUNK..((k + 1) * CHUNK).min(n);
                let mut at = offsets[range.start as usize].load(Relaxed);
                for s in range {
                    let end = offsets[s as usize + 1].load(Relaxed);
                    if end == at {
                        continue;
                    }
                    game.for_each_successor(s, |t| {
                        assert!(
                            at < end && t < n,
                            "state {s}: more successors than its move count, or one out of range"
                        );
                        targets[at as usize].put(t);
                        at += 1;
                    });
                    assert_eq!(at, end, "state {s}: fewer successors than its move count");
                }
            });
        }
        if forward.wide {
            fill(
                game,
                forward.offsets(),
                forward.targets.atomics::<AtomicU64>(),
            );
        } else {
            fill(
                game,
                forward.offsets(),
                forward.targets.atomics::<AtomicU32>(),
            );
        }
        let reverse = forward.transpose(backing, "reverse")?;
        Ok(ExplicitGraph {
            forward,
            reverse,
            terminal_wins,
            max_moves,
            build_time: started.elapsed(),
        })
    }

    /// Completes a graph from its forward CSR and terminal-value bits
    /// (`ceil(n / 64)` words): computes the largest degree and the reverse.
    pub(crate) fn from_forward(
        forward: Csr,
        terminal_wins: Region,
        backing: &Backing,
        started: Instant,
    ) -> Result<ExplicitGraph> {
        let reverse = forward.transpose(backing, "reverse")?;
        Ok(ExplicitGraph {
            max_moves: forward.max_degree(),
            forward,
            reverse,
            terminal_wins,
            build_time: started.elapsed(),
        })
    }

    /// Number of states (vertices).
    #[must_use]
    pub fn state_count(&self) -> u64 {
        self.forward.vertices
    }

    /// Number of edges (moves, with multiplicity).
    #[must_use]
    pub fn edge_count(&self) -> u64 {
        self.forward.edges
    }

    /// The successor lists.
    #[must_use]
    pub fn forward(&self) -> &Csr {
        &self.forward
    }

    /// The predecessor lists: the transpose of [`forward`](Self::forward),
    /// each list sorted.
    #[must_use]
    pub fn reverse(&self) -> &Csr {
        &self.reverse
    }

    /// Bytes of all stored arrays; equals
    /// [`explicit_estimate`](super::explicit_estimate) of the game it was
    /// built from.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.forward.bytes() + self.reverse.bytes() + self.terminal_wins.bytes() as u64
    }

    /// Wall-clock time the build took (for a parsed edge list: from the
    /// parsed edges to the finished graph).
    #[must_use]
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    #[inline]
    fn terminal_value(&self, s: u64) -> Terminal {
        let word = self.terminal_wins.atomics::<AtomicU64>()[(s / 64) as usize].load(Relaxed);
        if word >> (s % 64) & 1 == 1 {
            Terminal::Win
        } else {
            Terminal::Loss
        }
    }
}

impl Game for ExplicitGraph {
    fn state_count(&self) -> u64 {
        self.forward.vertices
    }

    fn max_moves(&self) -> u32 {
        self.max_moves
    }

    #[inline]
    fn initial(&self, s: u64) -> Initial {
        match self.forward.degree(s) {
            0 => Initial::Decided(self.terminal_value(s)),
            d => Initial::Moves(d.min(u64::from(u32::MAX)) as u32),
        }
    }

    #[inline]
    fn for_each_successor(&self, s: u64, f: impl FnMut(u64)) {
        self.forward.for_each_neighbor(s, f);
    }

    #[inline]
    fn for_each_predecessor(&self, s: u64, f: impl FnMut(u64)) {
        self.reverse.for_each_neighbor(s, f);
    }
}
