//! What the integration tests share: the one command builder for the
//! binary ([`bin`], and [`run`] and its variants on top of it), the one
//! temporary directory ([`temp_dir`]), the one random-map generator
//! ([`Rng`], [`Shape`], [`random_grid`], [`grid_of`] and the exits and
//! starts added to a grid), the one table maker ([`make_table`]) and the
//! oracle's converters into the crate's types ([`outcome`], [`turn`],
//! [`walls_and_exits_map`]), the one `kill(1)` of a child ([`kill`]),
//! the one `query --stdin --json` ([`query_json`]); in `support/`, the
//! kill / resume harness of the checkpoint tests ([`checkpoint`]), the
//! small random several-cops games of the agreement tests
//! ([`kcops_games`]) and the decoded pictures of `render` ([`picture`]).
//! Test modules import from here; a helper written twice belongs here.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use retrograde::{parse_map, Cops, CopsGame, Map, Outcome, Position, Tablebase, Turn};

use crate::oracle::{Arena, Side, Value};

pub mod checkpoint;
pub mod kcops_games;
pub mod picture;

/// The binary, run in the crate root (so `data/...` paths resolve), with
/// no arguments yet: every run of the binary in the tests starts here.
pub fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_retrograde"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Runs the binary in the crate root with `args`, feeding `stdin`. The
/// input is written by a thread of its own: thousands of answers fill the
/// output pipe before a long input is all written, and one writer that
/// waited for the other would wait forever.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    output_of(bin().args(args), stdin, false)
}

/// Runs `command` to its end, feeding `stdin` from a thread of its own (as
/// [`run`] does); with `may_stop_reading` the program may end before it
/// has read all of it (a refusal of an endless input), and the closed pipe
/// is its answer, not a failure.
pub fn output_of(command: &mut Command, stdin: Option<&[u8]>, may_stop_reading: bool) -> Output {
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the retrograde binary");
    let Some(bytes) = stdin else {
        return child.wait_with_output().expect("wait");
    };
    let mut pipe = child.stdin.take().expect("piped");
    std::thread::scope(|scope| {
        let feeder = scope.spawn(move || pipe.write_all(bytes));
        let output = child.wait_with_output().expect("wait");
        let written = feeder.join().expect("the feeder");
        if !may_stop_reading {
            written.expect("write stdin");
        }
        output
    })
}

/// `query TABLE --stdin --json` on `lines` (one position a line): its
/// answers, one JSON object a line, checked to be one per position and
/// the run to succeed.
pub fn query_json(table: &Path, lines: &[String]) -> Vec<serde_json::Value> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = run(
        &["query", table.to_str().unwrap(), "--stdin", "--json"],
        Some(input.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(0), "query: {}", stderr(&out));
    let answers: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(answers.len(), lines.len(), "one answer per position");
    answers
}

/// A run's standard output (UTF-8).
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

/// A run's standard error, lossily.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs the binary with `args` and no stdin, asserting exit status
/// `status` (stderr shown when it differs).
pub fn run_status(args: &[&str], status: i32) -> Output {
    let output = run(args, None);
    assert_eq!(
        output.status.code(),
        Some(status),
        "{args:?}: {}",
        stderr(&output)
    );
    output
}

/// Runs the binary with `args` and expects exit status 2 with `needle` in
/// stderr (a refused input); returns stderr.
pub fn run_refused(args: &[&str], needle: &str) -> String {
    let err = stderr(&run_status(args, 2));
    assert!(err.contains(needle), "{args:?}: {err}");
    err
}

/// Solves a map into `dir/NAME.rtb` (with distances when `dte`), asserting
/// success; the table's path.
pub fn make_table(dir: &Path, name: &str, solve_args: &[&str], dte: bool) -> PathBuf {
    let path = dir.join(format!("{name}.rtb"));
    let mut args = vec!["solve", "--quiet", "--save", path.to_str().expect("utf-8")];
    args.extend_from_slice(solve_args);
    if dte {
        args.push("--dte-table");
    }
    run_status(&args, 0);
    path
}

/// The one-cop position of a map table with the cop and the thief at
/// `(row, col)` cells.
pub fn one_cop_at(
    tb: &Tablebase,
    cop: (usize, usize),
    thief: (usize, usize),
    turn: Turn,
) -> retrograde::Result<Position> {
    tb.position(
        &[tb.map_cell("cop", cop)?],
        tb.map_cell("thief", thief)?,
        turn,
    )
}

/// The state index of `game`'s start, if it has one.
pub fn start_state(game: &CopsGame) -> Option<u64> {
    game.start().map(|p| game.index(&p))
}

/// The state index of one cop on `cop`, the thief on `thief` and `turn`
/// to move.
pub fn one_cop_state(game: &CopsGame, cop: u32, thief: u32, turn: Turn) -> u64 {
    game.index(&Position {
        cops: Cops::one(cop),
        thief,
        turn,
    })
}

/// The cop's cell, the thief's and the side to move of one-cop state `s`.
pub fn one_cop_decode(game: &CopsGame, s: u64) -> (u32, u32, Turn) {
    let p = game.position(s);
    (p.cops[0], p.thief, p.turn)
}

/// The state index of `cops` (any order), the thief on `thief` and `turn`
/// to move.
pub fn cops_state(game: &CopsGame, cops: &[u32], thief: u32, turn: Turn) -> u64 {
    game.index(&Position {
        cops: Cops::new(cops).expect("1 to MAX_COPS cops"),
        thief,
        turn,
    })
}

/// The crate's outcome of an oracle value.
pub fn outcome(value: Value) -> Outcome {
    match value {
        Value::Win => Outcome::Win,
        Value::Loss => Outcome::Loss,
        Value::Draw => Outcome::Draw,
    }
}

/// The crate's turn of an oracle side.
pub fn turn(side: Side) -> Turn {
    match side {
        Side::Cop => Turn::Cop,
        Side::Thief => Turn::Thief,
    }
}

/// SplitMix64: a small deterministic generator for the random maps.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Xorshift64 (shifts 13, 7, 17) from a nonzero seed, as a closure: the
/// random graphs and maps that name their data by a seed of this stream.
pub fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Families of random maps.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// No walls.
    Open,
    /// Independent random walls.
    Walls,
    /// A random spanning-tree maze on the even cells, a few extra openings.
    Maze,
    /// Wall rows with one gap each: a winding corridor.
    Corridors,
    /// A single row or column.
    Line,
    /// A single cell, free or (rarely) a wall.
    Single,
}

pub const SHAPES: [Shape; 6] = [
    Shape::Open,
    Shape::Walls,
    Shape::Maze,
    Shape::Corridors,
    Shape::Line,
    Shape::Single,
];

/// A random grid of `shape` with walls only (no exits, no starts); sides
/// of two-dimensional shapes are at most `side`.
pub fn random_grid(rng: &mut Rng, shape: Shape, side: usize) -> Arena {
    let (height, width) = match shape {
        Shape::Line => {
            let n = rng.range(1, 9);
            if rng.percent(50) {
                (1, n)
            } else {
                (n, 1)
            }
        }
        Shape::Single => (1, 1),
        _ => (rng.range(1, side), rng.range(1, side)),
    };
    grid_of(rng, shape, height, width)
}

/// A random `height` x `width` grid of `shape` with walls only.
pub fn grid_of(rng: &mut Rng, shape: Shape, height: usize, width: usize) -> Arena {
    let mut free = vec![true; height * width];
    match shape {
        Shape::Open | Shape::Line => {}
        Shape::Single => free[0] = !rng.percent(5),
        Shape::Walls => {
            let density = rng.range(5, 50);
            for f in &mut free {
                *f = !rng.percent(density);
            }
        }
        Shape::Maze => {
            free.fill(false);
            let mut stack = vec![(0usize, 0usize)];
            free[0] = true;
            while let Some(&(r, c)) = stack.last() {
                let mut options = Vec::new();
                for (dr, dc) in [(-2i64, 0i64), (2, 0), (0, -2), (0, 2)] {
                    let (nr, nc) = (r as i64 + dr, c as i64 + dc);
                    if nr >= 0 && nc >= 0 && (nr as usize) < height && (nc as usize) < width {
                        let (nr, nc) = (nr as usize, nc as usize);
                        if !free[nr * width + nc] {
                            options.push((nr, nc));
                        }
                    }
                }
                if options.is_empty() {
                    stack.pop();
                    continue;
                }
                let (nr, nc) = options[rng.below(options.len())];
                free[nr * width + nc] = true;
                free[(r + nr) / 2 * width + (c + nc) / 2] = true;
                stack.push((nr, nc));
            }
            for f in &mut free {
                if !*f && rng.percent(15) {
                    *f = true;
                }
            }
        }
        Shape::Corridors => {
            let vertical = rng.percent(50);
            let (outer, inner) = if vertical {
                (width, height)
            } else {
                (height, width)
            };
            for k in (1..outer).step_by(2) {
                let gap = if rng.percent(50) { 0 } else { inner - 1 };
                for j in 0..inner {
                    if j != gap {
                        let (r, c) = if vertical { (j, k) } else { (k, j) };
                        free[r * width + c] = false;
                    }
                }
            }
        }
    }
    Arena {
        height,
        width,
        exit: vec![false; height * width],
        free,
        cop: None,
        thief: None,
    }
}

/// Adds exits by a random rule: none, one, a few, the border, or every free
/// cell.
pub fn add_random_exits(rng: &mut Rng, mut arena: Arena) -> Arena {
    let cells = arena.free_cells();
    match rng.below(6) {
        0 => {}
        1 => arena = arena.with_border_exits(),
        2 => {
            for (r, c) in cells {
                arena.exit[r * arena.width + c] = true;
            }
        }
        3 if !cells.is_empty() => {
            let (r, c) = cells[rng.below(cells.len())];
            arena.exit[r * arena.width + c] = true;
        }
        _ => {
            for (r, c) in cells {
                if rng.percent(15) {
                    arena.exit[r * arena.width + c] = true;
                }
            }
        }
    }
    arena
}

/// Picks random starts (possibly equal, possibly on exits), or none.
pub fn add_random_starts(rng: &mut Rng, mut arena: Arena) -> Arena {
    let cells = arena.free_cells();
    if !cells.is_empty() && rng.percent(90) {
        arena.cop = Some(cells[rng.below(cells.len())]);
        arena.thief = Some(cells[rng.below(cells.len())]);
    }
    arena
}

/// The crate's map of an oracle grid's walls and exits (its starts
/// dropped), read through the seed parser.
pub fn walls_and_exits_map(arena: &Arena) -> Map {
    let walls_and_exits = Arena {
        cop: None,
        thief: None,
        ..arena.clone()
    };
    parse_map(walls_and_exits.to_seed_text().as_bytes(), "random.txt")
        .unwrap_or_else(|e| panic!("{e}\n{}", walls_and_exits.to_seed_text()))
}

/// Sends `signal` (a number or a name: `15`, `TERM`) to `child` through
/// kill(1) with the child's own id, and asserts that kill succeeded.
pub fn kill(child: &Child, signal: &str) {
    let killed = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
}

/// A temporary directory unique to this process and `name`, emptied first.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("retrograde-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
