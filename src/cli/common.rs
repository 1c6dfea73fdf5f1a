//! Flags shared by the map commands (`solve`, `batch`, `bench`): starts,
//! exits, rule variants, engine and storage; parsed once into a validated
//! configuration.

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use retrograde::{Coord, Engine, ExitRule, Placement, Rules, StorageLimits};

/// A usage error found after clap (a flag value that clap cannot check).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub(crate) String);

/// `--engine NAME`: the library's engine names, each with its one-line
/// description in `--help` and completions.
pub(crate) fn engine_parser() -> impl clap::builder::TypedValueParser<Value = Engine> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        Engine::ALL.map(|e| PossibleValue::new(e.as_str()).help(e.description())),
    )
    .try_map(|name| name.parse::<Engine>())
}

/// Start, exit and rule flags.
#[derive(ClapArgs, Debug, Clone)]
pub(crate) struct GameArgs {
    /// The cop's start as ROW,COL (0-based; X,Y with --xy); overrides the
    /// map's. `solve --cops K`: once per cop; with --graph a vertex V.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, action = clap::ArgAction::Append)]
    pub(crate) cop: Vec<Coord>,
    /// The thief's start as ROW,COL (0-based; X,Y with --xy); overrides the
    /// map's. With --graph a vertex V.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place)]
    pub(crate) thief: Option<Coord>,
    /// An exit cell ROW,COL (X,Y with --xy; repeatable); replaces the map's
    /// exits. With --graph a vertex V.
    #[arg(long = "exit", value_name = "ROW,COL", value_parser = parse_place)]
    pub(crate) exit: Vec<Coord>,
    /// Read --cop, --thief and --exit as X,Y (column, row: MovingAI's
    /// order) and print coordinates in text output as x,y.
    #[arg(long)]
    pub(crate) xy: bool,
    /// Exit rule: `border` (every free border cell), `rim` (every free cell
    /// next to the outside: beyond the edge or a wall connected to it) or
    /// `random:K:SEED` (K random free cells); repeatable, replaces the
    /// map's exits.
    #[arg(long = "exits", value_name = "RULE", value_parser = parse_exit_rule)]
    pub(crate) exits: Vec<ExitRule>,
    /// The thief moves in 8 directions (default 4).
    #[arg(long)]
    pub(crate) thief_diagonal: bool,
    /// The cop moves in 4 directions (default 8).
    #[arg(long)]
    pub(crate) cop_orthogonal: bool,
    /// The cop may not pass.
    #[arg(long)]
    pub(crate) no_cop_pass: bool,
    /// The thief may not pass.
    #[arg(long)]
    pub(crate) no_thief_pass: bool,
    /// Neither side may pass.
    #[arg(long)]
    pub(crate) no_pass: bool,
    /// A diagonal step needs both orthogonal neighbours free (octile rule).
    #[arg(long)]
    pub(crate) no_corner_cutting: bool,
    /// The thief moves first.
    #[arg(long)]
    pub(crate) thief_first: bool,
}

/// A cell as typed (`ROW,COL`, or `X,Y` with `--xy`) in `(row, col)`
/// order, or a `(row, col)` in the order it is shown: the same swap both
/// ways.
pub(crate) fn swap_xy(xy: bool, (a, b): Coord) -> Coord {
    if xy {
        (b, a)
    } else {
        (a, b)
    }
}

impl GameArgs {
    /// The placement overrides.
    pub(crate) fn placement(&self) -> Placement {
        // Flags hold what was typed; with --xy that is (column, row).
        let order = |c: Coord| swap_xy(self.xy, c);
        Placement {
            cop: self.cop.last().copied().map(order),
            thief: self.thief.map(order),
            exits: self.exit.iter().copied().map(order).collect(),
            exit_rules: self.exits.clone(),
        }
    }

    /// The board of `map` under these flags' starts and exits; under
    /// `--xy` a refused cell is named as it was typed ([`as_typed`]).
    pub(crate) fn board(&self, map: &retrograde::Map) -> retrograde::Result<retrograde::Board> {
        retrograde::Board::new(map, &self.placement()).map_err(|e| as_typed(e, self.xy))
    }

    /// The flags that change answers (starts, exits, rules), as canonical
    /// command-line words: what a batch row records so that `--resume`
    /// reuses only rows solved the same way.
    pub(crate) fn answer_flags(&self) -> Vec<String> {
        let mut flags = self.placement_flags(false);
        flags.extend(rule_flags(self.rules()).into_iter().map(String::from));
        flags
    }

    /// The start and exit flags as canonical command-line words (`--cop
    /// ROW,COL` whether or not `--xy` was given, `--thief`, each `--exit`,
    /// each `--exits RULE`); `every_cop`: each `--cop` given (the cops of
    /// a several-cops game), else the last, the one a one-cop game takes.
    pub(crate) fn placement_flags(&self, every_cop: bool) -> Vec<String> {
        let coord = |c: Coord| {
            let (r, c) = swap_xy(self.xy, c);
            format!("{r},{c}")
        };
        let cops = if every_cop {
            &self.cop[..]
        } else {
            &self.cop[self.cop.len().saturating_sub(1)..]
        };
        let mut flags: Vec<String> = cops
            .iter()
            .map(|&c| format!("--cop {}", coord(c)))
            .collect();
        flags.extend(self.thief.map(|c| format!("--thief {}", coord(c))));
        flags.extend(self.exit.iter().map(|&c| format!("--exit {}", coord(c))));
        flags.extend(self.exits.iter().map(|rule| match rule {
            ExitRule::Border => "--exits border".to_string(),
            ExitRule::Rim => "--exits rim".to_string(),
            ExitRule::Random { count, seed } => format!("--exits random:{count}:{seed}"),
        }));
        flags
    }

    /// Refuses the flags that only a grid map has a use for (diagonal
    /// moves, corners, `--xy`): on a graph they were accepted and ignored
    /// (issue 33, item 16).
    ///
    /// # Errors
    /// A [`UsageError`] naming them.
    pub(crate) fn refuse_map_only_flags(&self) -> Result<(), UsageError> {
        let given: Vec<&str> = [
            (self.thief_diagonal, "--thief-diagonal"),
            (self.cop_orthogonal, "--cop-orthogonal"),
            (self.no_corner_cutting, "--no-corner-cutting"),
            (self.xy, "--xy"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if given.is_empty() {
            return Ok(());
        }
        Err(UsageError(format!(
            "{}: for grid maps (diagonal steps, corners, x,y cells); on a graph the pieces move \
             along edges: leave {} out",
            given.join(", "),
            if given.len() == 1 { "it" } else { "them" }
        )))
    }

    /// The rule variant.
    pub(crate) fn rules(&self) -> Rules {
        Rules {
            cop_diagonal: !self.cop_orthogonal,
            thief_diagonal: self.thief_diagonal,
            cop_passes: !(self.no_cop_pass || self.no_pass),
            thief_passes: !(self.no_thief_pass || self.no_pass),
            corner_cutting: !self.no_corner_cutting,
            thief_first: self.thief_first,
        }
    }
}

/// Refuses `dir`, the value of `flag` (a directory the command writes
/// into), unless it is an existing directory: a missing one is named as
/// every output into a missing directory is ("the directory X does not
/// exist"; it said "not a directory"), anything else at its name is "not a
/// directory".
///
/// # Errors
/// A [`UsageError`] naming the flag, the path and what is wrong with it.
pub(crate) fn existing_dir(flag: &str, dir: &Path) -> Result<(), UsageError> {
    let refuse = |why: String| Err(UsageError(format!("{flag} {}: {why}", dir.display())));
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => refuse("not a directory".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            refuse(format!("the directory {} does not exist", dir.display()))
        }
        Err(e) => refuse(e.to_string()),
    }
}

/// The solve flags that select `rules` (empty for the standard game);
/// `info` shows them, `copnumber` names them.
pub(crate) fn rule_flags(r: Rules) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if r.thief_diagonal {
        flags.push("--thief-diagonal");
    }
    if !r.cop_diagonal {
        flags.push("--cop-orthogonal");
    }
    if !r.cop_passes {
        flags.push("--no-cop-pass");
    }
    if !r.thief_passes {
        flags.push("--no-thief-pass");
    }
    if !r.corner_cutting {
        flags.push("--no-corner-cutting");
    }
    if r.thief_first {
        flags.push("--thief-first");
    }
    flags
}

/// Memory and scratch flags, shared by every command that solves: their
/// one route to the library's [`plan_storage`](retrograde::plan_storage)
/// is [`StorageFlags::limits`].
#[derive(ClapArgs, Debug, Clone, Default)]
pub(crate) struct StorageFlags {
    /// Put the state arrays in files under DIR (solves larger than RAM);
    /// with --memory, only when they do not fit in that cap.
    #[arg(long, value_name = "DIR")]
    pub(crate) scratch: Option<PathBuf>,
    /// Cap on the memory a solve may use, in bytes or with a K/M/G/T suffix
    /// (powers of 1024), e.g. 256M or 16G [default: available memory]. A
    /// solve that needs more runs from --scratch files (resident memory
    /// kept under the cap) or is refused before it starts.
    #[arg(long, alias = "memory-limit", value_name = "SIZE", value_parser = parse_size)]
    pub(crate) memory: Option<u64>,
}

impl StorageFlags {
    /// The storage limits of these flags for the library's storage plan:
    /// `--memory`, `--scratch`, and out of core in the temporary folder
    /// when neither is enough; `held` bytes the command already holds
    /// (a loaded graph) count against the cap.
    pub(crate) fn limits(&self, held: u64) -> Result<StorageLimits, UsageError> {
        if let Some(dir) = &self.scratch {
            existing_dir("--scratch", dir)?;
        }
        Ok(StorageLimits {
            memory: self.memory,
            scratch: self.scratch.clone(),
            spill_to_temp: true,
            held,
        })
    }
}

/// Engine, thread and storage flags.
#[derive(ClapArgs, Debug, Clone)]
pub(crate) struct EngineFlags {
    /// Solver engine [default: bitboard for grid maps; for graphs parallel
    /// with more than one core, else sequential].
    #[arg(long, value_name = "ENGINE", value_parser = engine_parser())]
    pub(crate) engine: Option<Engine>,
    /// Worker threads, 1 to 1024: the bitboard engine's bands of grid
    /// rows, the parallel engine's stripes, the explicit engine's graph
    /// build, --verify's check [default: all cores].
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    #[command(flatten)]
    pub(crate) storage: StorageFlags,
}

/// Resolved engine configuration.
#[derive(Clone, Debug)]
pub(crate) struct EngineConfig {
    pub(crate) engine: Engine,
    pub(crate) threads: usize,
    /// `--memory` and `--scratch` as the library's limits (from
    /// [`StorageFlags::limits`]); the storage plan decides per solve.
    pub(crate) storage: StorageLimits,
}

impl EngineFlags {
    /// Validates the flags of a command on grid maps: without `--engine`,
    /// the bitboard engine (faster than the counter engines on every grid
    /// map measured, from a few thousand states up; see README).
    pub(crate) fn resolve_grid(&self) -> Result<EngineConfig, UsageError> {
        let mut config = self.resolve()?;
        if self.engine.is_none() {
            config.engine = Engine::Bitboard;
        }
        Ok(config)
    }

    /// Validates the flags.
    pub(crate) fn resolve(&self) -> Result<EngineConfig, UsageError> {
        let threads = threads_flag(self.threads)?;
        let engine = match self.engine {
            Some(engine) => engine,
            None if threads > 1 => Engine::Parallel,
            None => Engine::Sequential,
        };
        if engine == Engine::Sequential && self.threads.is_some_and(|t| t > 1) {
            return Err(UsageError(
                "--threads > 1 needs --engine parallel or explicit (the sequential engine uses one thread)"
                    .into(),
            ));
        }
        Ok(EngineConfig {
            engine,
            threads: if engine == Engine::Sequential {
                1
            } else {
                threads
            },
            storage: self.storage.limits(0)?,
        })
    }
}

/// Most worker threads `--threads` accepts: far more than any machine
/// this runs on has cores, far fewer than would exhaust threads or memory
/// for stacks.
pub(crate) const MAX_THREADS: usize = 1024;

/// Validates `--threads` (every subcommand that has it): at least 1, at
/// most [`MAX_THREADS`]; absent, one per core.
pub(crate) fn threads_flag(threads: Option<usize>) -> Result<usize, UsageError> {
    match threads {
        Some(0) => Err(UsageError("--threads must be at least 1".into())),
        Some(t) if t > MAX_THREADS => Err(UsageError(format!(
            "--threads {t} is more than the {MAX_THREADS} allowed (this machine has {} cores)",
            std::thread::available_parallelism().map_or(1, usize::from)
        ))),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
    }
}

/// The refusal of a graph without a vertex (an empty file, only
/// comments, graph6 `?`), one wording for `copnumber`, `solve --graph` and
/// `graph`: no question about it has an answer worth giving (no cop
/// number, no state), and a table of it could not be read back.
pub(crate) fn no_vertices(path: &std::path::Path, line: usize) -> retrograde::Error {
    retrograde::Error::Parse {
        path: path.display().to_string(),
        line,
        column: 1,
        message: "expected a graph of at least one vertex, found none (no vertices: an empty input, only comments, or graph6 `?`)".into(),
    }
}

/// A refusal of a cell (`--thief 90,100: is a wall`), which the library
/// words in `row,col`, as the user typed it: under `--xy` the cell is
/// `x,y` and the bounds are x's and y's. Other errors pass unchanged.
pub(crate) fn as_typed(e: retrograde::Error, xy: bool) -> retrograde::Error {
    let retrograde::Error::Placement { what, message } = e else {
        return e;
    };
    if !xy {
        return retrograde::Error::Placement { what, message };
    }
    // `LABEL ROW,COL`: the cell is the last word.
    let what = match what.rsplit_once(' ') {
        Some((label, cell)) => match cell.split_once(',') {
            Some((r, c)) if r.parse::<usize>().is_ok() && c.parse::<usize>().is_ok() => {
                format!("{label} {c},{r}")
            }
            _ => what,
        },
        None => what,
    };
    let message = match message
        .strip_prefix("outside the map: rows are ")
        .and_then(|rest| rest.split_once(", columns "))
    {
        Some((rows, columns)) => {
            format!("outside the map: x is {columns}, y is {rows} (--xy)")
        }
        None => message,
    };
    retrograde::Error::Placement { what, message }
}

/// Parses a byte size: digits with an optional K, M, G or T suffix (powers
/// of 1024, an optional trailing `B` or `iB`).
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let number = upper.trim_end_matches("IB").trim_end_matches('B');
    let (digits, shift) = match number.chars().last() {
        Some('K') => (&number[..number.len() - 1], 10),
        Some('M') => (&number[..number.len() - 1], 20),
        Some('G') => (&number[..number.len() - 1], 30),
        Some('T') => (&number[..number.len() - 1], 40),
        _ => (number, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("expected a size such as 512M or 2G, found `{text}`"))
}

/// The row of a place typed as a bare vertex id `V` (`solve --graph`): no
/// map has it, so a vertex given to a map command is told apart.
pub(crate) const VERTEX: usize = usize::MAX;

/// Parses `ROW,COL`, or a bare vertex id `V` as `(VERTEX, V)`.
pub(crate) fn parse_place(text: &str) -> Result<Coord, String> {
    match text.trim().parse::<usize>() {
        Ok(v) if !text.contains(',') => Ok((VERTEX, v)),
        _ => parse_coord(text),
    }
}

/// Parses `ROW,COL`.
pub(crate) fn parse_coord(text: &str) -> Result<Coord, String> {
    let (r, c) = text.split_once(',').ok_or_else(|| {
        format!("expected ROW,COL (two 0-based integers; X,Y with --xy), found `{text}`")
    })?;
    let number = |s: &str| {
        s.trim().parse::<usize>().map_err(|_| {
            format!("expected ROW,COL (two 0-based integers; X,Y with --xy), found `{text}`")
        })
    };
    Ok((number(r)?, number(c)?))
}

/// Parses `border` or `random:K:SEED`.
pub(crate) fn parse_exit_rule(text: &str) -> Result<ExitRule, String> {
    match text {
        "border" => return Ok(ExitRule::Border),
        "rim" => return Ok(ExitRule::Rim),
        _ => {}
    }
    let parts: Vec<&str> = text.split(':').collect();
    match parts.as_slice() {
        ["random", k, seed] => Ok(ExitRule::Random {
            count: k
                .parse()
                .map_err(|_| format!("random:K:SEED: K must be a count, found `{k}`"))?,
            seed: seed
                .parse()
                .map_err(|_| format!("random:K:SEED: SEED must be an integer, found `{seed}`"))?,
        }),
        _ => Err(format!(
            "expected `border`, `rim` or `random:K:SEED`, found `{text}`"
        )),
    }
}

/// Peak resident memory of this process in bytes (VmHWM), if the OS tells.
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Byte counts for people (`1.8 TiB`): the library's, one wording for
/// the library's refusals and the commands' notes.
pub(crate) use retrograde::human_bytes;

/// A rayon pool of `threads` workers (0: one per core).
pub(crate) fn worker_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    use anyhow::Context;
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")
}

/// Flags of the several-cops game (part of `solve`).
#[derive(ClapArgs, Debug, Clone)]
pub(crate) struct KCopsArgs {
    /// Number of cops, 1 to 4 (give --cop once per cop) [default: 1].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=4))]
    pub(crate) cops: Option<u32>,
    /// The pieces' speeds.
    #[command(flatten)]
    pub(crate) speeds: SpeedArgs,
    /// Read MAP as an undirected graph (`u v` a line, 0-based); --cop,
    /// --thief and --exit then take vertex ids.
    #[arg(long)]
    pub(crate) graph: bool,
    /// Lazy cops: on the cops' turn at most one cop moves, the others
    /// stay (needs --cops 2 or more; not with --save, --checkpoint or
    /// --resume).
    #[arg(long)]
    pub(crate) lazy: bool,
}

/// `--cop-speed` / `--thief-speed`: how many steps a piece may take per
/// turn. Shared by `solve --cops K` and `copnumber`, so both take the same
/// values and refuse the same ones in the same words.
#[derive(ClapArgs, Debug, Clone, Copy)]
pub(crate) struct SpeedArgs {
    /// Steps a cop may take per turn (walks; each step a legal move).
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) cop_speed: u32,
    /// Steps the thief may take per turn, never through a cop.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) thief_speed: u32,
}

impl SpeedArgs {
    /// Whether a piece is faster than one step a turn.
    pub(crate) fn fast(&self) -> bool {
        self.cop_speed > 1 || self.thief_speed > 1
    }
}

impl KCopsArgs {
    pub(crate) fn k(&self) -> u32 {
        self.cops.unwrap_or(1)
    }

    /// Whether this solve leaves the one-cop grid game.
    pub(crate) fn active(&self) -> bool {
        self.graph || self.k() > 1 || self.speeds.fast() || self.lazy
    }
}

/// Refuses a start flag for one side alone in the several-cops game, as
/// the one-cop game does: the lone start was dropped and the whole game
/// solved with no result (issue 33, item 16). A map's own start letters
/// are left as they are (a map that marks one piece has no start).
///
/// # Errors
/// A [`UsageError`] naming the missing flag.
pub(crate) fn refuse_one_sided_start(
    game: &GameArgs,
    no_cops: bool,
    no_thief: bool,
) -> Result<(), UsageError> {
    let (given, missing) = match (no_cops, no_thief) {
        (false, true) if !game.cop.is_empty() => ("--cop", "--thief"),
        (true, false) if game.thief.is_some() => ("--thief", "--cop (once per cop)"),
        _ => return Ok(()),
    };
    Err(UsageError(format!(
        "{given} has no other start to go with it: give {missing} too (or neither start)"
    )))
}
