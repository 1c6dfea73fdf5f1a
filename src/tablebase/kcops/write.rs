//! Writing a several-cops table: its header (the grid or the graph, the
//! rules and the game section), checked against the game it claims, then
//! the one-cop writer's blocks, from a counter engine's [`Solution`] or
//! the bit engine's [`KSolution`].

use std::io::{self, Write};

use bitvec::vec::BitVec;

use super::super::format::{HeaderBody, KSection};
use super::super::writer::{write_blocks, Source, WriteSummary};
use crate::copnumber::KSolution;
use crate::error::Result;
use crate::game::Game;
use crate::{Arena, Board, Grid, KCops, Rules, Solution};

/// States per values block and per distance block of a several-cops
/// table: an eighth of a one-cop table's. A query rates every joint move of
/// the cops, whose multisets lie far apart in the state order (a rank
/// moves by about `c * n` when a cop moves a row), so it reads blocks of
/// several cop rows. On a two-cop 16 x 16 map (1.1e7 states), a query that
/// decodes every block it reads took 3.4-3.8 ms of CPU at the 99th
/// percentile with blocks of 2^18 states, 0.98 ms with 2^15, for a file
/// 1.46 times larger (docs/measurements.md).
const BLOCK_STATES: u64 = 1 << 15;

/// The header of `game`'s table: a map's grid or a 1 x n grid of vertices,
/// the exits, `rules` and the game section.
fn kcops_header(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    engine: &str,
) -> HeaderBody {
    let arena = game.arena();
    let n = arena.cells();
    let (rows, cols, free) = match arena.grid() {
        Some(grid) => (grid.height(), grid.width(), grid.free().clone()),
        None => (1, n as usize, BitVec::repeat(true, n as usize)),
    };
    let edges = if arena.grid().is_some() {
        Vec::new()
    } else {
        (0..n)
            .flat_map(|u| {
                arena
                    .cop_steps(u)
                    .iter()
                    .filter(move |&&v| v > u)
                    .map(move |&v| (u, v))
            })
            .collect()
    };
    let (cop_speed, thief_speed) = arena.speeds();
    HeaderBody {
        rows,
        cols,
        rules: Rules {
            thief_first: game.thief_first(),
            ..rules
        },
        has_dte: false,
        cop: None,
        thief: None,
        value_block_states: BLOCK_STATES,
        dte_block_states: BLOCK_STATES,
        engine: engine.to_string(),
        free,
        exits: (0..n).map(|c| arena.is_exit(c)).collect(),
        shard: None,
        kcops: Some(KSection {
            graph: arena.grid().is_none(),
            cops: game.cops(),
            cop_speed,
            thief_speed,
            start: start.map(|(cops, thief)| {
                let mut cops = cops.to_vec();
                cops.sort_unstable();
                (cops, thief)
            }),
            edges,
        }),
    }
}

/// The game a header describes, rebuilt from its map and rules or its
/// graph, exits and section.
pub(super) fn game_of(body: &HeaderBody, k: &KSection) -> Result<KCops> {
    let n = body.exits.len() as u32;
    let rules = body.rules;
    let arena = if k.graph {
        let exits: Vec<u32> = body.exits.iter_ones().map(|e| e as u32).collect();
        Arena::from_edges(n, &k.edges)?
            .with_exits(&exits)?
            .with_passes(rules.cop_passes, rules.thief_passes)
    } else {
        let board = Board {
            cop: None,
            thief: None,
            exits: body.exits.clone(),
            grid: Grid::new(body.rows, body.cols, body.free.clone()),
        };
        Arena::from_board(&board, rules)
    };
    let arena = arena.with_speeds(k.cop_speed, k.thief_speed);
    Ok(KCops::new(arena, k.cops)?.with_thief_first(rules.thief_first))
}

/// Writes `solution` of the several-cops `game` as a self-contained table
/// (format version 4) to `out`: the map (with `rules`, which built the
/// game's moves) or the graph, the number of cops, speeds, exits, the
/// start `(cops, thief)` if given, then the blocks as
/// [`write_tablebase`](crate::write_tablebase) writes them. `out` is
/// written once, in order; make the file appear atomically by writing a
/// temporary file and renaming it (the CLI does).
///
/// # Errors
/// Any error of `out`; [`io::ErrorKind::InvalidInput`] when `solution` is
/// not of `game` (state count), when `rules` do not give `game`'s moves,
/// or when the start is not `k` cells and a thief of the game.
///
/// # Example
/// ```
/// use retrograde::{solve, write_kcops_tablebase, Arena, Engine, KCops, KTablebase, Outcome, Rules, SolveOptions};
/// let cycle = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]).unwrap();
/// let game = KCops::new(cycle, 2).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("k-doc-{}.rtb", std::process::id()));
/// let mut file = std::fs::File::create(&path).unwrap();
/// write_kcops_tablebase(&game, Rules::default(), Some((&[0, 0], 2)), &solution, "sequential", &mut file).unwrap();
/// let table = KTablebase::open(&path).unwrap();
/// let start = table.header().start.clone().unwrap();
/// assert_eq!(table.probe(&start).unwrap().value, Outcome::Win);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write_kcops_tablebase(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &Solution,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    write_kcops(game, rules, start, solution, engine, out)
}

/// [`write_kcops_tablebase`] from the bit-parallel k-cop engine's
/// solution ([`KSolution`], `solve --cops K`'s default engine): the same
/// file, byte for byte, as from a counter engine's solution of the game.
///
/// # Errors
/// As [`write_kcops_tablebase`].
pub fn write_kcops_tablebase_bits(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &KSolution,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    write_kcops(game, rules, start, solution, engine, out)
}

/// The bit engine's solution as the writer reads it: its states are
/// indexed as [`KCops`]' are, `(rank(cops) * n + thief) * 2 + turn`.
impl Source for KSolution {
    fn states(&self) -> u64 {
        KSolution::states(self)
    }

    fn has_dte(&self) -> bool {
        self.has_dte_table()
    }

    fn levels(&self) -> u32 {
        self.levels
    }

    fn fill_values(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        out.fill(0);
        for (i, s) in range.enumerate() {
            out[i / 4] |= (self.state_value(s).0 as u8) << (2 * (i % 4));
        }
    }

    fn fill_dte(&self, range: std::ops::Range<u64>, _values: &[u8], out: &mut [u16]) {
        for (d, s) in out.iter_mut().zip(range) {
            // Draws have no distance: 0, as the one-cop writer stores them.
            *d = self.state_value(s).1.map_or(0, |d| {
                u16::try_from(d.plies()).expect("distances fit the table's 16 bits")
            });
        }
    }
}

fn write_kcops(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &impl Source,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let n = game.state_count();
    if solution.states() != n {
        return Err(invalid(format!(
            "the solution has {} states, the game {n}: not a solution of this game",
            solution.states()
        )));
    }
    let cells = game.arena().cells();
    if let Some((cops, thief)) = start {
        if cops.len() != game.cops() as usize || cops.iter().chain([&thief]).any(|&c| c >= cells) {
            return Err(invalid(format!(
                "the start {cops:?}, {thief} is not {} cells and a thief among {cells} cells",
                game.cops()
            )));
        }
    }
    let header = kcops_header(game, rules, start, engine);
    // The reader rebuilds the game from the header: it must be this one.
    let k = header.kcops.as_ref().expect("a game section");
    let rebuilt = game_of(&header, k).map_err(|e| invalid(e.to_string()))?;
    if !rebuilt.arena().same_moves(game.arena()) {
        return Err(invalid(
            "the rules do not give this game's moves: pass the rules its arena was built with"
                .to_string(),
        ));
    }
    write_blocks(&header, 2 * cells as usize, solution, out, 32)
}
