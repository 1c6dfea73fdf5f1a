//! The several-cops game read from `solve`'s flags (`--cops K`,
//! `--cop-speed`, `--thief-speed`, `--graph`, `--lazy`): the arena of a map
//! or of a graph (an edge list or one graph6 graph, told apart by
//! content), the starts of K cops (flags or the map's letters), the
//! refusals of `--lazy`, the fields its checkpoints add to the
//! fingerprint, and what only it reports: the pieces, a graph's vertices.
//! Not a command: the local solve (`solve/play.rs`), the partitioned one
//! (`distributed/`) and `batch --cops K` build the game here, so none
//! imports another.

use std::path::Path;

use anyhow::Result;
use retrograde::{
    check_cops_size, load_graph_file, load_map_with_cops, Arena, Coord, CopsGame, EdgeList, Grid,
    Solution, Speeds, StorageLimits,
};

use super::common::{
    no_vertices, refuse_one_sided_start, swap_xy, GameArgs, KCopsArgs, UsageError, VERTEX,
};
use super::output::{Found, PiecesJson, PlacementsJson, SolveReport, StartJson};
use super::solving::{not_a_map, SolveArgs};

/// The several-cops game, its starts and what it was read from.
pub(crate) struct SeveralCops {
    /// The game (arena, K, rules, speeds and start).
    pub(crate) game: CopsGame,
    /// The cops' starts as given (any order; empty without).
    pub(crate) cops: Vec<u32>,
    /// The thief's start, if given.
    pub(crate) thief: Option<u32>,
    source: Source,
}

/// What was solved: the file's format, and a graph's edges (none on a
/// map).
struct Source {
    format: &'static str,
    edges: Option<usize>,
}

/// The refusals of `--lazy`: one cop (lazy is then the plain game), and
/// the outputs whose formats have no field for the rule (a table's game
/// section, a checkpoint's fingerprint).
pub(crate) fn refuse_lazy(args: &SolveArgs, k: u32) -> Result<(), UsageError> {
    if !args.kcops.lazy {
        return Ok(());
    }
    if k < 2 {
        return Err(UsageError(
            "--lazy needs --cops 2 or more: with one cop, lazy cops are the plain game".into(),
        ));
    }
    let refused = [
        ("--save", args.save.is_some()),
        ("--checkpoint", args.checkpoint.is_some()),
        ("--resume", args.resume.is_some()),
    ];
    match refused.iter().find(|(_, given)| *given) {
        Some((what, _)) => Err(UsageError(format!(
            "{what} is not available with --lazy: the table and checkpoint formats have no field for the lazy rule"
        ))),
        None => Ok(()),
    }
}

/// `batch`'s refusal of `--lazy`: with one cop (lazy is then the plain
/// game), unless the batch is of cop numbers (the lazy cop number).
pub(crate) fn refuse_lazy_batch(lazy: bool, k: u32, copnumber: bool) -> Result<(), UsageError> {
    if lazy && k < 2 && !copnumber {
        return Err(UsageError(
            "--lazy needs --cops 2 or more (or --copnumber): with one cop, lazy cops are the plain game".into(),
        ));
    }
    Ok(())
}

/// What a several-cops checkpoint adds to the fingerprint: the cops, the
/// speeds, the kind of input and the first mover.
pub(crate) fn fingerprint(args: &SolveArgs) -> [(String, String); 4] {
    let (kcops, speeds) = (&args.kcops, &args.kcops.speeds);
    let input = if kcops.graph { "graph" } else { "map" };
    let first = if args.game.thief_first {
        "thief"
    } else {
        "cops"
    };
    [
        ("cops", kcops.k().to_string()),
        (
            "speeds",
            format!("cop {}, thief {}", speeds.cop_speed, speeds.thief_speed),
        ),
        ("input", input.to_string()),
        ("first mover", first.to_string()),
    ]
    .map(|(name, value)| (name.to_string(), value))
}

impl SeveralCops {
    /// The arena of [`SeveralCops::game`] (every game built here is on
    /// the several-cops generator: a graph, several cops, a speed or the
    /// lazy rule, or `--cops 1`).
    pub(crate) fn arena(&self) -> &Arena {
        self.game
            .arena()
            .expect("the several-cops game is played on an arena")
    }

    /// A cell as JSON: `[row, column]` on a map, the vertex id on a graph.
    pub(crate) fn show(&self, cell: u32) -> serde_json::Value {
        match self.arena().grid() {
            Some(grid) => {
                let (r, c) = grid.coords(cell);
                serde_json::json!([r, c])
            }
            None => serde_json::json!(cell),
        }
    }

    /// The cops' starts as JSON, in ascending order.
    fn sorted_cops(&self) -> Vec<serde_json::Value> {
        let mut sorted = self.cops.clone();
        sorted.sort_unstable();
        sorted.iter().map(|&c| self.show(c)).collect()
    }

    /// The cops, speeds and starts for the report.
    fn pieces_json(&self, kcops: &KCopsArgs) -> PiecesJson {
        PiecesJson {
            cops: kcops.k(),
            cop_speed: kcops.speeds.cop_speed,
            thief_speed: kcops.speeds.thief_speed,
            start_cops: self.game.start().map(|_| self.sorted_cops()),
            start_thief: self.game.start().and(self.thief).map(|t| self.show(t)),
            lazy: kcops.lazy,
        }
    }

    /// The start for the report (none without one): the cops in
    /// ascending order, as `start_cops` lists them.
    fn start_json(&self) -> Option<StartJson> {
        let thief = self.game.start().and(self.thief)?;
        let turn = self.game.rules().first_mover();
        Some(StartJson {
            cops: self.sorted_cops(),
            thief: self.show(thief),
            turn: turn.as_str(),
        })
    }

    /// The game read from `solve`'s flags (`batch --cops K` gives each
    /// map's): the arena of the map or graph file (`limits.memory` caps an edge list's reading; with
    /// `bitboard`, a local solve by the bitboard engine, a graph whose
    /// arrays cannot fit under `limits` at all is refused before its arena
    /// is built) with the speeds and the lazy rule, `--cops K` cops and the
    /// start when both sides have one (flags or the map's letters).
    ///
    /// # Errors
    /// The file's and the placement's refusals, a graph too large, and a
    /// count of `--cop` other than K.
    pub(crate) fn build(
        map: &Path,
        game_args: &GameArgs,
        kcops: &KCopsArgs,
        limits: &StorageLimits,
        bitboard: bool,
    ) -> Result<SeveralCops> {
        let k = kcops.k();
        let speeds = Speeds {
            cop: kcops.speeds.cop_speed,
            thief: kcops.speeds.thief_speed,
            lazy: kcops.lazy,
        };
        let (game, source, cops, thief) = if kcops.graph {
            let size = bitboard.then_some((k, limits));
            let (arena, source, cops, thief) = graph_arena(map, game_args, limits.memory, size)?;
            let game = CopsGame::from_graph(arena, game_args.rules(), k, speeds)?;
            (game, source, cops, thief)
        } else {
            map_game(map, game_args, k, speeds)?
        };
        if !cops.is_empty() && cops.len() != k as usize {
            return Err(UsageError(format!(
                "--cops {k} needs --cop {k} times, found {}",
                cops.len()
            ))
            .into());
        }
        refuse_one_sided_start(game_args, cops.is_empty(), thief.is_none())?;
        let game = match (cops.is_empty(), thief) {
            (false, Some(t)) => game.with_start(&cops, t)?,
            _ => game,
        };
        Ok(SeveralCops {
            game,
            cops,
            thief,
            source,
        })
    }

    /// The report of a solve of this game that found `found` in
    /// `seconds`: the local report's keys plus the pieces and, on a
    /// graph, its edges.
    pub(crate) fn report(
        &self,
        map: &Path,
        kcops: &KCopsArgs,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let arena = self.arena();
        let Source { format, edges } = self.source;
        let board = (u64::from(arena.cells()), arena.exit_count());
        SolveReport {
            width: arena.grid().map(Grid::width),
            height: arena.grid().map(Grid::height),
            edges,
            pieces: Some(self.pieces_json(kcops)),
            start: self.start_json(),
            ..SolveReport::of(map, format, &self.game, board, found, seconds)
        }
    }

    /// The whole-map summary of `solution` (a solution of this game):
    /// every start placement by verdict, a longest one, the cops' best
    /// placement.
    pub(crate) fn placements(&self, solution: &Solution) -> PlacementsJson {
        let tally = self
            .game
            .start_placements(solution)
            .expect("an arena's game");
        PlacementsJson::new(&tally, self.game.rules().thief_first, |c| self.show(c))
    }

    /// The format of the file read (`seed`, `movingai`, `edges`, `graph6`).
    pub(crate) fn format(&self) -> &'static str {
        self.source.format
    }
}

/// An arena, what it was read from, and the starts of the cops and the
/// thief.
type Built = (Arena, Source, Vec<u32>, Option<u32>);

/// The game of `k` cops on a map: starts from the flags, or the map's
/// cop letters when there are `k` of them; exits as in the one-cop game.
fn map_game(
    path: &Path,
    game: &GameArgs,
    k: u32,
    speeds: Speeds,
) -> Result<(CopsGame, Source, Vec<u32>, Option<u32>)> {
    let map = load_map_with_cops(path, k as usize).map_err(|e| not_a_map(path, e).error)?;
    let built = CopsGame::several_from_map(&map, &game.placement(), game.rules(), k, speeds)?;
    let grid = built.grid().expect("a map's game has its grid");
    let order = |c: Coord| swap_xy(game.xy, c);
    let mut cops = game
        .cop
        .iter()
        .map(|&c| grid.free_cell("--cop", order(c)))
        .collect::<retrograde::Result<Vec<_>>>()?;
    let letters: Vec<Coord> = map.cop.into_iter().chain(map.more_cops.clone()).collect();
    if cops.is_empty() && letters.len() == k as usize {
        for c in letters {
            cops.push(grid.free_cell("the map's cop start", c)?);
        }
    }
    let thief = match (game.thief, map.thief) {
        (Some(t), _) => Some(grid.free_cell("--thief", order(t))?),
        (None, Some(t)) => Some(grid.free_cell("the map's thief start", t)?),
        (None, None) => None,
    };
    let source = Source {
        format: map.format.as_str(),
        edges: None,
    };
    Ok((built, source, cops, thief))
}

/// The arena of a graph file: graph6 or an edge list, told by content
/// (the edge list read under the memory cap).
fn graph_arena(
    path: &Path,
    game: &GameArgs,
    memory: Option<u64>,
    size: Option<(u32, &StorageLimits)>,
) -> Result<Built> {
    let (list, format) = load_graph_file(path, memory)?;
    if list.n == 0 {
        return Err(no_vertices(path, 1).into());
    }
    if let Some((k, limits)) = size {
        check_cops_size(list.n, k, limits)?;
    }
    arena_of_graph(list, format.as_str(), game)
}

/// The arena of a graph read from a file, with the starts and exits of
/// `game` as vertex ids; the flags only a map has a use for are refused.
fn arena_of_graph(list: EdgeList, format: &'static str, game: &GameArgs) -> Result<Built> {
    if !game.exits.is_empty() {
        return Err(
            UsageError("--exits rules are for maps; give --exit V on a graph".into()).into(),
        );
    }
    game.refuse_map_only_flags()?;
    let vertex = |what: &str, c: Coord| -> Result<u32> {
        match c {
            (VERTEX, v) if v < list.n as usize => Ok(v as u32),
            (VERTEX, v) => Err(retrograde::Error::Placement {
                what: format!("{what} {v}"),
                message: format!("the graph's vertices are 0..{}", list.n),
            }
            .into()),
            (r, c) => Err(UsageError(format!(
                "{what} {r},{c}: a graph takes a vertex id V, not ROW,COL"
            ))
            .into()),
        }
    };
    let cops = game
        .cop
        .iter()
        .map(|&c| vertex("--cop", c))
        .collect::<Result<Vec<_>>>()?;
    let thief = game.thief.map(|t| vertex("--thief", t)).transpose()?;
    let exits = game
        .exit
        .iter()
        .map(|&e| vertex("--exit", e))
        .collect::<Result<Vec<_>>>()?;
    let rules = game.rules();
    let arena = Arena::from_edges(list.n, &list.edges)?
        .with_exits(&exits)?
        .with_passes(rules.cop_passes, rules.thief_passes);
    let source = Source {
        format,
        edges: Some(list.edges.len()),
    };
    Ok((arena, source, cops, thief))
}
