//! `solve --cops K`, `--cop-speed`, `--thief-speed` and `solve --graph`:
//! the several-cops game ([`KCops`]) on a map or an undirected graph,
//! solved through the library's `solve()` (`--engine bitboard`, the
//! default, runs its several-cops kernel; a named counter engine runs
//! as named), planned by `plan_storage` and printed by `output.rs`. One
//! cop at speed 1 on a map never comes here: `solve`'s own path answers
//! it, byte for byte as before.

mod checkpoints;
mod output;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use retrograde::{
    load_edge_list_within, load_map_with_cops, looks_like_graph6, parse_graph6, plan_storage,
    solve, verify_observed, Arena, Board, Coord, Engine, Game, KCops, Placement, Solution,
    SolveOptions,
};

use self::output::{dump, print_text, Report};
use super::common::{no_vertices, worker_pool, EngineConfig, GameArgs, UsageError, VERTEX};
use super::output::{PlanReport, VerifyReport};
use super::progress::Reporter;
use super::solving::SolveArgs;
use super::Failure;

/// `solve`'s hook: `Some(status)` when the several-cops game ran, `None`
/// to go on with the one-cop grid game.
pub(crate) fn dispatch(
    args: &SolveArgs,
    partitioned: bool,
    scen: bool,
) -> Result<Option<i32>, Failure> {
    let game = &args.game;
    let vertex_given = |c: &Coord| c.0 == VERTEX || c.1 == VERTEX;
    let flags = game.cop.iter().chain(&game.thief).chain(&game.exit);
    if !args.kcops.graph {
        if let Some(&(_, v)) = flags.clone().find(|c| vertex_given(c)) {
            return Err(UsageError(format!(
                "a bare vertex id `{v}` where a map needs ROW,COL (vertex ids need --graph)"
            ))
            .into());
        }
    }
    if !args.kcops.active() {
        if game.cop.len() > 1 {
            return Err(UsageError(format!(
                "--cop given {} times: give --cops {} for several cops",
                game.cop.len(),
                game.cop.len()
            ))
            .into());
        }
        return Ok(None);
    }
    let refuse = |what: &str| -> Failure {
        UsageError(format!(
            "{what} is not available with several cops, speeds or --graph yet"
        ))
        .into()
    };
    if partitioned {
        return Err(refuse("--processes"));
    }
    if scen {
        return Err(refuse("--scen"));
    }
    run(args).map(Some)
}

/// What was solved: a map (with its grid) or a graph.
enum Source {
    Map {
        format: &'static str,
        height: usize,
        width: usize,
    },
    Graph {
        /// `edges` (an edge list) or `graph6`.
        format: &'static str,
        edges: usize,
    },
}

fn run(args: &SolveArgs) -> Result<i32, Failure> {
    // Without --engine, the bit-parallel k-cop engine; a named engine runs.
    let config = args.engine.resolve_grid()?;
    let bits = config.engine == Engine::Bitboard;
    if config.engine == Engine::Sweep && (args.dte_table || args.dump.is_some()) {
        return Err(UsageError(
            "--engine sweep computes values only: --dte-table and --dump need a level engine (bitboard, sequential or parallel)".into(),
        )
        .into());
    }
    if !bits {
        checkpoints::refuse(args, config.engine.as_str())?;
    }
    let (dump_target, save_target) = super::solving::check_outputs(args)?;
    let dte_table = args.dte_table || args.dump.is_some();
    let k = args.kcops.k();
    let (arena, source, cops, thief) = if args.kcops.graph {
        graph_arena(&args.map, &args.game, config.limits().memory)?
    } else {
        map_arena(&args.map, &args.game, k)?
    };
    if !cops.is_empty() && cops.len() != k as usize {
        return Err(UsageError(format!(
            "--cops {k} needs --cop {k} times, found {}",
            cops.len()
        ))
        .into());
    }
    super::common::refuse_one_sided_start(&args.game, cops.is_empty(), thief.is_none())?;
    let arena = arena.with_speeds(args.kcops.speeds.cop_speed, args.kcops.speeds.thief_speed);
    let exits = arena.exit_count() as u64;
    let cells = u64::from(arena.cells());
    let game = KCops::new(arena, k)?.with_thief_first(args.game.thief_first);
    let start = match (cops.is_empty(), thief) {
        (false, Some(t)) => Some(game.start(&cops, t)),
        _ => None,
    };
    if args.plan {
        return plan(args, &game, dte_table, &config);
    }
    let reporter = Reporter::new(args.quiet, "solving");
    let started = Instant::now();
    let solution = match solve_game(args, &game, start, dte_table, &config, &reporter)? {
        Solved::Solution(solution) => *solution,
        Solved::Stopped(status) => return Ok(status),
    };
    reporter.finish();
    let seconds = started.elapsed().as_secs_f64();
    let show = |cell: u32| -> serde_json::Value {
        match game.arena().grid() {
            Some(grid) => {
                let (r, c) = grid.coords(cell);
                serde_json::json!([r, c])
            }
            None => serde_json::json!(cell),
        }
    };
    let (format, width, height, edges) = match source {
        Source::Map {
            format,
            height,
            width,
        } => (format, Some(width), Some(height), None),
        Source::Graph { format, edges } => (format, None, None, Some(edges)),
    };
    let mut sorted = cops.clone();
    sorted.sort_unstable();
    let mut report = Report {
        map: args.map.display().to_string(),
        format,
        width,
        height,
        edges,
        cops: k,
        cop_speed: args.kcops.speeds.cop_speed,
        thief_speed: args.kcops.speeds.thief_speed,
        start_cops: start.map(|_| sorted.iter().map(|&c| show(c)).collect()),
        start_thief: start.and(thief).map(show),
        result: start.map(|s| game.verdict(solution.outcome(s)).as_str()),
        dte: start.and_then(|s| solution.dte(s)).map(|d| d.plies()),
        cells,
        exits,
        states: game.state_count(),
        counts: solution.counts().into(),
        levels: solution.levels(),
        sweeps: solution.sweeps(),
        engine: config.engine.as_str(),
        threads: config.threads,
        seconds,
        peak_memory_bytes: super::common::peak_memory(),
        verified: None,
        saved: None,
    };
    let check = if args.verify {
        reporter.note("verifying every state against its moves");
        let started = Instant::now();
        let pool = worker_pool(config.threads)?;
        let observe = |done: u64, total: u64| reporter.checked(done, total);
        let check = pool.install(|| verify_observed(&game, &solution, &observe));
        reporter.finish();
        report.verified = Some(VerifyReport {
            states: check.states,
            distances: check.distances,
            inconsistent: check.inconsistent,
            seconds: started.elapsed().as_secs_f64(),
        });
        Some(check)
    } else {
        None
    };
    if let Some(target) = dump_target {
        target.write_with(|out| dump(&game, &solution, out))?;
    }
    if let Some(target) = save_target {
        reporter.note(&format!("saving the table to {}", target.path().display()));
        let start = start.and(thief).map(|t| (cops.as_slice(), t));
        let (rules, engine) = (args.game.rules(), config.engine.as_str());
        report.saved = Some(super::ktable::save(
            target, &game, rules, start, &solution, engine,
        )?);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&report))?;
        writeln!(out)?;
    } else {
        print_text(&mut out, &report)?;
    }
    match check.and_then(|c| c.first) {
        Some(bad) => {
            let (cops, thief, turn) = game.decode(bad.state);
            say!(
                "error: verification failed: state {} (cops {:?}, thief {}, {turn:?} to move) is stored as {:?} but its moves give {:?}",
                bad.state,
                cops.iter().map(|&c| show(c).to_string()).collect::<Vec<_>>(),
                show(thief),
                bad.found,
                bad.expected
            );
            Ok(1)
        }
        None => Ok(0),
    }
}

/// Solves with a counter engine, planned by `plan_storage` (memory or
/// scratch files under the cap) before anything is allocated.
/// `solve --cops K --plan`: what the solve would hold and where (memory
/// or scratch files), from the same plan the solve follows; nothing is
/// allocated. Exit status 0 when it fits, 2 when it would be refused.
fn plan(
    args: &SolveArgs,
    game: &KCops,
    dte_table: bool,
    config: &EngineConfig,
) -> Result<i32, Failure> {
    let mut report = PlanReport::new(
        args.map.display().to_string(),
        game.state_count(),
        config.engine.as_str(),
    );
    let options = SolveOptions::new(config.engine)
        .with_threads(config.threads)
        .with_dte_table(dte_table);
    let planned = plan_storage(game, &options, &config.limits()).map(|p| PlanReport::figures(&p));
    report.settle(planned)?;
    Ok(report.print(args.json)?)
}

/// How a solve ended: solved, or stopped after a checkpoint (the exit
/// status to return).
enum Solved {
    Solution(Box<Solution>),
    Stopped(i32),
}

/// Solves `game` with the configured engine through the library's
/// `solve()`: planned by `plan_storage` (memory or scratch files under
/// `--memory`, refused with the bytes needed) before anything is
/// allocated, with `--checkpoint` / `--resume` for the bitboard engine.
fn solve_game(
    args: &SolveArgs,
    game: &KCops,
    start: Option<u64>,
    dte_table: bool,
    config: &EngineConfig,
    reporter: &Reporter,
) -> Result<Solved, Failure> {
    let observe = |p: &retrograde::Progress| reporter.observe(p);
    let options = SolveOptions::new(config.engine)
        .with_threads(config.threads)
        .with_dte_table(dte_table)
        .with_tracked_state(start);
    let plan = plan_storage(game, &options, &config.limits())?;
    reporter.note(&super::solving::plan_note(game.state_count(), &plan));
    let (sink, resume) = checkpoints::open(args, dte_table)?;
    if let Some(r) = &resume {
        reporter.note(&format!("resuming after level {}", r.level()));
    }
    let options = options
        .with_plan(&plan)
        .with_observer(&observe)
        .with_checkpoint(sink.as_ref().map(|s| s as &dyn retrograde::Sink))
        .with_resume(resume.as_ref());
    match solve(game, &options) {
        Ok(solution) => Ok(Solved::Solution(Box::new(solution))),
        Err(retrograde::Error::Stopped { level }) => {
            let dir = sink.as_ref().map(|s| s.dir().display().to_string());
            let dir = dir.unwrap_or_default();
            reporter.finish();
            say!("stopped: checkpoint after level {level} saved in {dir}; continue with --resume {dir}");
            Ok(Solved::Stopped(
                128 + super::output::stop_requested().unwrap_or(0),
            ))
        }
        // The bitboard engine's refusals (a checkpoint of another solve)
        // read as they are; a counter engine's failure says where it came.
        Err(e) if config.engine == Engine::Bitboard => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context("solve failed").into()),
    }
}

type Built = (Arena, Source, Vec<u32>, Option<u32>);

fn map_arena(path: &Path, game: &GameArgs, k: u32) -> Result<Built> {
    let map = load_map_with_cops(path, k as usize)
        .map_err(|e| super::solving::not_a_map(path, e).error)?;
    // Starts are resolved here (several cops); exits as in the one-cop game.
    let placement = Placement {
        cop: None,
        thief: None,
        ..game.placement()
    };
    let walls = retrograde::Map {
        cop: None,
        more_cops: Vec::new(),
        thief: None,
        ..map.clone()
    };
    let board = Board::new(&walls, &placement)?;
    let grid = &board.grid;
    let order = |(a, b): Coord| if game.xy { (b, a) } else { (a, b) };
    let mut cops = game
        .cop
        .iter()
        .map(|&c| grid.free_cell("--cop", order(c)))
        .collect::<retrograde::Result<Vec<_>>>()?;
    // The map's cop letters are the start when there are K of them.
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
    let source = Source::Map {
        format: map.format.as_str(),
        height: grid.height(),
        width: grid.width(),
    };
    Ok((Arena::from_board(&board, game.rules()), source, cops, thief))
}

fn graph_arena(path: &Path, game: &GameArgs, memory: Option<u64>) -> Result<Built> {
    if path != Path::new("-") {
        let mut head = [0u8; 256];
        let read = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .map_err(|source| retrograde::Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if looks_like_graph6(&head[..read]) {
            return graph_from_graph6(path, game);
        }
    }
    let list = load_edge_list_within(path, memory)?;
    if list.n == 0 {
        return Err(no_vertices(path, 1).into());
    }
    arena_of_graph(list, "edges", game)
}

/// A graph6 file of one graph (docs/rules.md, "Graph files"): the
/// optional `>>graph6<<` header, one line; several graphs are refused
/// (`copnumber` reads streams).
fn graph_from_graph6(path: &Path, game: &GameArgs) -> Result<Built> {
    let text = std::fs::read(path).map_err(|source| retrograde::Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut lines = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .enumerate()
        .filter(|(_, l)| !l.is_empty());
    let (_, first) = lines.next().unwrap_or_default();
    let header = first.starts_with(b">>graph6<<");
    let first = first.strip_prefix(b">>graph6<<").unwrap_or(first);
    if let Some((i, _)) = lines.next() {
        return Err(UsageError(format!(
            "{}:{}: a second graph; solve --graph takes one graph (copnumber reads many)",
            path.display(),
            i + 1
        ))
        .into());
    }
    let (n, edges) = parse_graph6(first).map_err(|e| retrograde::Error::Parse {
        path: path.display().to_string(),
        line: 1,
        column: e.column + if header { 10 } else { 0 },
        message: e.message,
    })?;
    if n == 0 {
        return Err(no_vertices(path, 1).into());
    }
    let n = u32::try_from(n)
        .map_err(|_| UsageError(format!("{}: too many vertices", path.display())))?;
    arena_of_graph(retrograde::EdgeList { n, edges }, "graph6", game)
}

/// The arena of a graph read from a file, with the starts and exits of
/// `game` as vertex ids.
fn arena_of_graph(
    list: retrograde::EdgeList,
    format: &'static str,
    game: &GameArgs,
) -> Result<Built> {
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
    let source = Source::Graph {
        format,
        edges: list.edges.len(),
    };
    Ok((arena, source, cops, thief))
}
