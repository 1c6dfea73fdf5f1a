//! The board of the several-cops game (`KCops` (`games/kcops.rs`)): cells,
//! the cops' and the thief's one-step relations, exits, pass flags and
//! speeds, built from a grid map or from an undirected graph.
//!
//! Reach sets (`docs/rules.md`, "Several cops"): a cop on `c` may end its
//! turn on any end cell of a walk of 1 to `S_c` cop steps, or on `c` when
//! cops may pass; the thief likewise with thief steps, except that a walk
//! may not pass *through* a cell holding a cop (only end on one). Walks,
//! not paths: with speed 2 a piece can step out and back, so it may end on
//! its own cell even without passing.
//!
//! Both relations are symmetric (grid steps need the same free cells both
//! ways, graph edges are undirected), and so are the reach sets, blocking
//! included (a walk reversed has the same intermediate cells): the game
//! generates predecessors with the same sets as successors.

use std::cell::RefCell;

use crate::board::Board;
use crate::error::{Error, Result};
use crate::games::cops::{CopsAndThief, Rules};
use crate::grid::Grid;

/// A symmetric relation on cells `0..n` as adjacency lists in one array.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lists {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Lists {
    fn from_fn(n: u32, mut list: impl FnMut(u32, &mut Vec<u32>)) -> Lists {
        let mut offsets = Vec::with_capacity(n as usize + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for cell in 0..n {
            list(cell, &mut targets);
            offsets.push(targets.len() as u32);
        }
        Lists { offsets, targets }
    }

    #[inline]
    fn of(&self, cell: u32) -> &[u32] {
        &self.targets
            [self.offsets[cell as usize] as usize..self.offsets[cell as usize + 1] as usize]
    }

    fn max_len(&self) -> usize {
        self.offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }
}

/// Where the several-cops game is played: `n` cells, each side's one-step
/// relation (no pass in it), exits, pass flags and speeds, and for grid
/// maps the grid that gives cells their coordinates.
///
/// # Example
/// On a 4-cycle a cop of speed 2 reaches the opposite vertex too:
/// ```
/// use retrograde::Arena;
/// let cycle = Arena::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]).unwrap();
/// assert_eq!(cycle.cop_reach(0), &[0, 1, 3]);
/// assert_eq!(cycle.with_speeds(2, 1).cop_reach(0), &[0, 1, 2, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct Arena {
    n: u32,
    cop_steps: Lists,
    thief_steps: Lists,
    exit: Vec<bool>,
    cop_passes: bool,
    thief_passes: bool,
    cop_speed: u32,
    thief_speed: u32,
    /// Lazy cops: on a cops' turn at most one cop moves.
    lazy: bool,
    grid: Option<Grid>,
    /// `R_c` of every cell (sorted), for the current speed and pass flag.
    cop_reach: Lists,
    /// The thief's reach of every cell when no cop blocks (sorted): exact
    /// for speed 1, a superset otherwise.
    thief_free_reach: Lists,
}

/// Epoch-stamped marks and layers for the thief's blocked walks, one per
/// thread, so that a reach set allocates nothing once warm.
#[derive(Default)]
struct Scratch {
    layer_mark: Vec<u32>,
    out_mark: Vec<u32>,
    epoch: u32,
    layer: Vec<u32>,
    next: Vec<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Most speed either side may have: far beyond any useful game (a speed
/// past the diameter changes nothing), small enough that reach sets stay
/// cheap to build.
pub const MAX_SPEED: u32 = 64;

impl Arena {
    /// The arena of a grid map under `rules`: the cells and move tables of
    /// [`CopsAndThief`] (cop in 8 or 4 directions with or without corner
    /// cutting, thief in 4 or 8, the pass flags), the board's exits, speed 1.
    #[must_use]
    pub fn from_board(board: &Board, rules: Rules) -> Arena {
        let game = CopsAndThief::new(board.clone(), rules);
        let n = game.cells() as u32;
        // The tables include the pass; the relation here does not.
        let steps = |cop: bool| {
            Lists::from_fn(n, |cell, out| {
                let targets = if cop {
                    game.cop_targets(cell)
                } else {
                    game.thief_targets(cell)
                };
                let from = out.len();
                out.extend(targets.iter().copied().filter(|&to| to != cell));
                out[from..].sort_unstable();
            })
        };
        let cop_steps = steps(true);
        let thief_steps = steps(false);
        Arena::build(
            n,
            cop_steps,
            thief_steps,
            board.exits.iter().map(|b| *b).collect(),
            (rules.cop_passes, rules.thief_passes),
            (1, 1),
            Some(board.grid.clone()),
        )
    }

    /// The arena of an undirected graph on vertices `0..n`: both sides move
    /// along the edges, both may pass, no exits, speed 1. Duplicate edges
    /// count once; a self-loop is dropped (staying is the pass flag's
    /// business).
    ///
    /// # Errors
    /// [`Error::Placement`] for an edge naming a vertex `>= n`.
    pub fn from_edges(n: u32, edges: &[(u32, u32)]) -> Result<Arena> {
        let mut adjacency = vec![Vec::new(); n as usize];
        for &(u, v) in edges {
            if u >= n || v >= n {
                return Err(Error::Placement {
                    what: format!("edge {u} {v}"),
                    message: format!("vertices are 0..{n}"),
                });
            }
            if u != v {
                adjacency[u as usize].push(v);
                adjacency[v as usize].push(u);
            }
        }
        let steps = Lists::from_fn(n, |cell, out| {
            let list = &mut adjacency[cell as usize];
            list.sort_unstable();
            list.dedup();
            out.extend_from_slice(list);
        });
        Ok(Arena::build(
            n,
            steps.clone(),
            steps,
            vec![false; n as usize],
            (true, true),
            (1, 1),
            None,
        ))
    }

    fn build(
        n: u32,
        cop_steps: Lists,
        thief_steps: Lists,
        exit: Vec<bool>,
        (cop_passes, thief_passes): (bool, bool),
        (cop_speed, thief_speed): (u32, u32),
        grid: Option<Grid>,
    ) -> Arena {
        let cop_reach = walk_ends(n, &cop_steps, cop_speed, cop_passes);
        let thief_free_reach = walk_ends(n, &thief_steps, thief_speed, thief_passes);
        Arena {
            n,
            cop_steps,
            thief_steps,
            exit,
            cop_passes,
            thief_passes,
            cop_speed,
            thief_speed,
            lazy: false,
            grid,
            cop_reach,
            thief_free_reach,
        }
    }

    /// The same arena with these speeds (steps per turn, each at least 1;
    /// clamped to [`MAX_SPEED`]).
    #[must_use]
    pub fn with_speeds(self, cop_speed: u32, thief_speed: u32) -> Arena {
        let passes = (self.cop_passes, self.thief_passes);
        let speeds = (
            cop_speed.clamp(1, MAX_SPEED),
            thief_speed.clamp(1, MAX_SPEED),
        );
        self.rebuilt(passes, speeds)
    }

    /// The same arena with these pass flags.
    #[must_use]
    pub fn with_passes(self, cop_passes: bool, thief_passes: bool) -> Arena {
        let speeds = (self.cop_speed, self.thief_speed);
        self.rebuilt((cop_passes, thief_passes), speeds)
    }

    /// The same arena with these passes and speeds (its reach sets walked
    /// again), lazy as it was.
    fn rebuilt(self, passes: (bool, bool), speeds: (u32, u32)) -> Arena {
        let lazy = self.lazy;
        let (n, exit, grid) = (self.n, self.exit, self.grid);
        Arena::build(
            n,
            self.cop_steps,
            self.thief_steps,
            exit,
            passes,
            speeds,
            grid,
        )
        .with_lazy(lazy)
    }

    /// The same arena with lazy cops or not: on a cops' turn at most one
    /// cop moves, within its reach set, the others staying
    /// (`docs/rules.md`, "Lazy cops"). The cops stay all together exactly
    /// when a single cop could end its turn on its own cell (they may
    /// pass, or a speed above 1 lets a cop step out and back). With one cop
    /// the lazy game is the plain one.
    ///
    /// # Example
    /// Two lazy cops still catch the thief on a 5-cycle:
    /// ```
    /// use retrograde::{solve, Arena, CopsGame, Engine, Rules, SolveOptions, Speeds, Verdict};
    /// let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)];
    /// let cycle = Arena::from_edges(5, &edges).unwrap();
    /// let lazy = Speeds { lazy: true, ..Speeds::default() };
    /// let game = CopsGame::from_graph(cycle, Rules::default(), 2, lazy).unwrap();
    /// let game = game.with_start(&[0, 0], 2).unwrap();
    /// let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    /// let start = game.index(&game.start().unwrap());
    /// assert_eq!(game.verdict(solution.outcome(start)), Verdict::CopWins);
    /// ```
    #[must_use]
    pub fn with_lazy(mut self, lazy: bool) -> Arena {
        self.lazy = lazy;
        self
    }

    /// Whether the cops are lazy ([`Arena::with_lazy`]).
    #[must_use]
    pub fn lazy(&self) -> bool {
        self.lazy
    }

    /// The same arena with exactly these exit cells.
    ///
    /// # Errors
    /// [`Error::Placement`] for a cell `>= n`.
    pub fn with_exits(mut self, exits: &[u32]) -> Result<Arena> {
        self.exit = vec![false; self.n as usize];
        for &e in exits {
            if e >= self.n {
                return Err(Error::Placement {
                    what: format!("exit {e}"),
                    message: format!("cells are 0..{}", self.n),
                });
            }
            self.exit[e as usize] = true;
        }
        Ok(self)
    }

    /// The cycle on `n` vertices, for tests.
    #[cfg(test)]
    pub(crate) fn cycle(n: u32) -> Arena {
        let edges: Vec<_> = (0..n).map(|v| (v, (v + 1) % n)).collect();
        Arena::from_edges(n, &edges).expect("a cycle is a graph")
    }

    /// The same arena with the cops moving along these undirected edges
    /// instead (the thief's relation kept): two relations on one graph, as
    /// grid maps have, for the engines' random tests.
    #[cfg(test)]
    pub(crate) fn with_cop_edges(self, edges: &[(u32, u32)]) -> Result<Arena> {
        let cop_steps = Arena::from_edges(self.n, edges)?.cop_steps;
        let (passes, speeds, lazy) = (self.passes(), self.speeds(), self.lazy);
        Ok(Arena::build(
            self.n,
            cop_steps,
            self.thief_steps,
            self.exit,
            passes,
            speeds,
            self.grid,
        )
        .with_lazy(lazy))
    }

    /// Whether this is the plain graph game of graph theory: speed 1, both
    /// sides may pass, no exits, one relation for both sides, cops not
    /// lazy. There,
    /// dismantlability decides one cop and the small engine of
    /// [`cop_number_of_graph`](crate::copnumber::cop_number_of_graph) runs.
    #[must_use]
    pub fn is_plain_graph(&self) -> bool {
        self.speeds() == (1, 1)
            && self.passes() == (true, true)
            && self.exit_count() == 0
            && self.cop_steps == self.thief_steps
            && !self.lazy
    }

    /// Whether `other` plays the same game: cells, both step relations,
    /// exits, pass flags, speeds and laziness (a saved table checks the arena it will
    /// rebuild against the one solved).
    pub(crate) fn same_moves(&self, other: &Arena) -> bool {
        self.n == other.n
            && self.cop_steps == other.cop_steps
            && self.thief_steps == other.thief_steps
            && self.exit == other.exit
            && self.passes() == other.passes()
            && self.speeds() == other.speeds()
            && self.lazy == other.lazy
    }

    /// Number of cells.
    #[must_use]
    pub fn cells(&self) -> u32 {
        self.n
    }

    /// The grid giving cells their coordinates (maps), `None` for graphs.
    #[must_use]
    pub fn grid(&self) -> Option<&Grid> {
        self.grid.as_ref()
    }

    /// Whether `cell` is an exit.
    #[must_use]
    pub fn is_exit(&self, cell: u32) -> bool {
        self.exit[cell as usize]
    }

    /// Number of exits.
    #[must_use]
    pub fn exit_count(&self) -> usize {
        self.exit.iter().filter(|&&e| e).count()
    }

    /// `(cop_passes, thief_passes)`.
    #[must_use]
    pub fn passes(&self) -> (bool, bool) {
        (self.cop_passes, self.thief_passes)
    }

    /// `(cop_speed, thief_speed)`.
    #[must_use]
    pub fn speeds(&self) -> (u32, u32) {
        (self.cop_speed, self.thief_speed)
    }

    /// The cells one cop step away from `cell` (no pass), sorted.
    #[must_use]
    pub fn cop_steps(&self, cell: u32) -> &[u32] {
        self.cop_steps.of(cell)
    }

    /// The cells one thief step away from `cell` (no pass), sorted.
    #[must_use]
    pub fn thief_steps(&self, cell: u32) -> &[u32] {
        self.thief_steps.of(cell)
    }

    /// `R_c(cell)`: where a cop on `cell` may end its turn, sorted.
    #[must_use]
    pub fn cop_reach(&self, cell: u32) -> &[u32] {
        self.cop_reach.of(cell)
    }

    /// The largest `R_c`.
    #[must_use]
    pub fn max_cop_reach(&self) -> usize {
        self.cop_reach.max_len()
    }

    /// The largest thief reach set over all cop placements (the one with no
    /// cop in the way).
    #[must_use]
    pub fn max_thief_reach(&self) -> usize {
        self.thief_free_reach.max_len()
    }

    /// Calls `f` once with every cell of `R_t(thief, cops)`: where the thief
    /// on `thief` may end its turn with cops on `cops` (walks of 1 to
    /// `S_t` steps whose intermediate cells hold no cop, and `thief` itself
    /// when the thief may pass). Order unspecified.
    pub fn thief_reach(&self, thief: u32, cops: &[u32], mut f: impl FnMut(u32)) {
        let free = self.thief_free_reach.of(thief);
        if self.thief_speed == 1 {
            free.iter().for_each(|&t| f(t));
            return;
        }
        // Collected first, then reported: `f` may itself ask for reach sets.
        let cells = SCRATCH.with(|scratch| {
            let mut s = scratch.borrow_mut();
            let mut out = Vec::with_capacity(free.len());
            self.blocked_walk_ends(thief, cops, &mut s, &mut out);
            out
        });
        cells.into_iter().for_each(f);
    }

    fn blocked_walk_ends(&self, thief: u32, cops: &[u32], s: &mut Scratch, out: &mut Vec<u32>) {
        let n = self.n as usize;
        if s.layer_mark.len() < n {
            s.layer_mark = vec![0; n];
            s.out_mark = vec![0; n];
            s.epoch = 0;
        }
        // One epoch per layer and one for the output; reset before wrapping.
        if s.epoch > u32::MAX - 2 * (MAX_SPEED + 2) {
            s.layer_mark.fill(0);
            s.out_mark.fill(0);
            s.epoch = 0;
        }
        s.epoch += 1;
        let out_epoch = s.epoch;
        if self.thief_passes {
            s.out_mark[thief as usize] = out_epoch;
            out.push(thief);
        }
        s.layer.clear();
        s.layer.push(thief);
        for step in 0..self.thief_speed {
            s.epoch += 1;
            let epoch = s.epoch;
            s.next.clear();
            for i in 0..s.layer.len() {
                let from = s.layer[i];
                // The start is no intermediate cell; every later layer is.
                if step > 0 && cops.contains(&from) {
                    continue;
                }
                for &to in self.thief_steps.of(from) {
                    if s.layer_mark[to as usize] != epoch {
                        s.layer_mark[to as usize] = epoch;
                        s.next.push(to);
                    }
                    if s.out_mark[to as usize] != out_epoch {
                        s.out_mark[to as usize] = out_epoch;
                        out.push(to);
                    }
                }
            }
            std::mem::swap(&mut s.layer, &mut s.next);
            if s.layer.is_empty() {
                break;
            }
        }
    }
}

/// For every cell, the end cells of walks of 1 to `speed` steps, plus the
/// cell itself when `passes`; sorted.
fn walk_ends(n: u32, steps: &Lists, speed: u32, passes: bool) -> Lists {
    let mut layer_mark = vec![u32::MAX; n as usize];
    let mut out_mark = vec![u32::MAX; n as usize];
    let mut layer = Vec::new();
    let mut next = Vec::new();
    let mut stamp = 0u32;
    Lists::from_fn(n, |cell, out| {
        let from = out.len();
        if passes {
            out_mark[cell as usize] = cell;
            out.push(cell);
        }
        layer.clear();
        layer.push(cell);
        for _ in 0..speed {
            stamp = stamp.wrapping_add(1);
            next.clear();
            for &u in &layer {
                for &to in steps.of(u) {
                    if layer_mark[to as usize] != stamp {
                        layer_mark[to as usize] = stamp;
                        next.push(to);
                    }
                    if out_mark[to as usize] != cell {
                        out_mark[to as usize] = cell;
                        out.push(to);
                    }
                }
            }
            std::mem::swap(&mut layer, &mut next);
        }
        out[from..].sort_unstable();
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(n: u32) -> Arena {
        let edges: Vec<_> = (1..n).map(|v| (v - 1, v)).collect();
        Arena::from_edges(n, &edges).unwrap()
    }

    #[test]
    fn walks_may_come_back_and_passing_adds_the_cell() {
        let a = path(4).with_passes(false, false).with_speeds(2, 2);
        // From 0: one step to 1, two steps to 0 or 2.
        assert_eq!(a.cop_reach(0), &[0, 1, 2]);
        assert_eq!(a.cop_reach(1), &[0, 1, 2, 3]);
        let a = path(4).with_passes(false, false);
        assert_eq!(a.cop_reach(0), &[1]);
        assert_eq!(path(4).cop_reach(0), &[0, 1]);
    }

    #[test]
    fn a_cop_blocks_the_thief_but_may_be_landed_on() {
        let a = path(5).with_speeds(1, 3);
        let reach = |t: u32, cops: &[u32]| {
            let mut v = Vec::new();
            a.thief_reach(t, cops, |c| v.push(c));
            v.sort_unstable();
            v
        };
        assert_eq!(reach(0, &[4]), vec![0, 1, 2, 3]);
        // A cop on 2: the thief may end on it (caught) but not pass it.
        assert_eq!(reach(0, &[2]), vec![0, 1, 2]);
        assert_eq!(reach(0, &[1]), vec![0, 1]);
        assert_eq!(reach(2, &[1, 3]), vec![1, 2, 3]);
    }

    #[test]
    fn edges_out_of_range_are_refused() {
        assert!(Arena::from_edges(3, &[(0, 3)]).is_err());
        let a = Arena::from_edges(3, &[(0, 1), (1, 0), (1, 1)]).unwrap();
        assert_eq!(a.cop_steps(1), &[0]);
        assert!(a.with_exits(&[5]).is_err());
    }
}
