//! `retrograde info FILE.rtb`: what a table of any number of cops holds
//! (map or graph, rules, counts, sizes, bits per state); `--check`
//! verifies every block. A table with the game section (format 4 to 6)
//! adds the game (cops, speeds), a graph's edges and the state order.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args as ClapArgs;
use retrograde::{Coord, Header, Tablebase};
use serde::Serialize;

use super::common::{human_bytes, rule_flags};
use super::output::CountsJson;
use super::tables::{cell_json, open_table, show, show_all};
use crate::cli::failure::Failure;

/// Flags of `info`.
#[derive(ClapArgs, Debug)]
pub(crate) struct InfoArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    pub(crate) table: PathBuf,
    /// Verify every block (checksums, decoding, counts) and every state's
    /// value against its moves under the rules the header names; exit
    /// status 2 on the first damaged block or contradicted state.
    #[arg(long)]
    pub(crate) check: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The JSON of `info`: the file, the game (its keys by the table's
/// format), what every table says of its solve, and the shards.
#[derive(Serialize, Debug)]
struct InfoReport {
    /// The table file.
    table: String,
    /// Format version.
    version: u32,
    /// The game and its board.
    #[serde(flatten)]
    game: GameJson,
    /// The solve and the file.
    #[serde(flatten)]
    facts: TableFacts,
    /// Whether every block was verified (`--check`).
    checked: bool,
    /// The files of a partitioned solve's table, one per process (empty
    /// for a one-cop table in one file; absent for a table with the game
    /// section in one file).
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<Vec<ShardJson>>,
}

/// The game of a table in `info`'s JSON: its keys (and their order) as
/// each format's `info` has always written them.
#[derive(Serialize, Debug)]
#[serde(untagged)]
enum GameJson {
    /// A one-cop table without the game section (format 2, 3 or 6): one
    /// cop on a map.
    OneCop {
        /// Map rows.
        rows: usize,
        /// Map columns.
        cols: usize,
        /// Free cells.
        cells: u64,
        /// Exit cells.
        exits: u64,
        /// The cop's start `[row, col]` as drawn, if any.
        cop_start: Option<[usize; 2]>,
        /// The thief's start, if any.
        thief_start: Option<[usize; 2]>,
    },
    /// A table with the game section: any k, map or graph.
    Cops {
        /// Number of cops.
        cops: u32,
        /// Steps a cop takes per turn.
        cop_speed: u32,
        /// Steps the thief takes per turn.
        thief_speed: u32,
        /// `map` or `graph`.
        kind: &'static str,
        /// Map rows (none on a graph).
        #[serde(skip_serializing_if = "Option::is_none")]
        rows: Option<usize>,
        /// Map columns (none on a graph).
        #[serde(skip_serializing_if = "Option::is_none")]
        cols: Option<usize>,
        /// A graph's edges (none on a map).
        #[serde(skip_serializing_if = "Option::is_none")]
        edges: Option<u64>,
        /// Free cells of a map, vertices of a graph.
        cells: u64,
        /// Exit cells.
        exits: u64,
        /// The start cops (ascending), if the solve had a start.
        start_cops: Option<Vec<serde_json::Value>>,
        /// The start thief, if the solve had a start.
        start_thief: Option<serde_json::Value>,
        /// Thief cells per tile of the file's state order.
        thief_tile: u32,
    },
}

/// One shard of a table, in `info`.
#[derive(Serialize, Debug)]
struct ShardJson {
    /// The file.
    path: String,
    /// Shard index, 0-based.
    index: u32,
    /// Grid rows of its cop cells, `[first, end)` (one cop).
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<[usize; 2]>,
    /// Ranks of its cop multisets, `[first, end)` (a table with the game
    /// section).
    #[serde(skip_serializing_if = "Option::is_none")]
    multisets: Option<[u64; 2]>,
    /// State indices it holds, `[first, end)`.
    states: [u64; 2],
    /// Counts of its states.
    counts: CountsJson,
    /// File size in bytes.
    bytes: u64,
}

/// The game of `tb` for the report.
fn game_json(tb: &Tablebase) -> GameJson {
    let h = tb.header();
    let coord_json = |c: Option<Coord>| c.map(|(r, c)| [r, c]);
    if !h.game_section {
        return GameJson::OneCop {
            rows: h.rows,
            cols: h.cols,
            cells: h.cells,
            exits: h.exits,
            cop_start: coord_json(h.cop_start),
            thief_start: coord_json(h.thief_start),
        };
    }
    GameJson::Cops {
        cops: h.cops,
        cop_speed: h.cop_speed,
        thief_speed: h.thief_speed,
        kind: if h.graph { "graph" } else { "map" },
        rows: (!h.graph).then_some(h.rows),
        cols: (!h.graph).then_some(h.cols),
        edges: h.graph.then_some(h.edges),
        cells: h.cells,
        exits: h.exits,
        start_cops: h
            .start
            .as_ref()
            .map(|s| s.cops.iter().map(|&c| cell_json(tb, c)).collect()),
        start_thief: h.start.as_ref().map(|s| cell_json(tb, s.thief)),
        thief_tile: h.thief_tile,
    }
}

/// What the header says of the solve and the file.
fn table_facts(h: &Header) -> TableFacts {
    let states = h.states.max(1) as f64;
    let mut rules = rule_flags(h.rules);
    if h.graph {
        // Moves on a graph follow its edges: only passing and the first
        // mover are rules there.
        rules.retain(|f| matches!(*f, "--no-cop-pass" | "--no-thief-pass" | "--thief-first"));
    }
    TableFacts {
        rules,
        states: h.states,
        counts: h.counts.into(),
        levels: h.levels,
        engine: h.engine.clone(),
        distances: h.has_dte,
        bytes: h.file_bytes,
        value_bits_per_state: h.value_bytes as f64 * 8.0 / states,
        dte_bits_per_state: h.dte_bytes as f64 * 8.0 / states,
        blocks: [h.value_blocks, h.dte_blocks],
    }
}

/// The shards of a table: its files when partitioned, none for a table
/// in one file; a one-cop shard's band by cop rows, a several-cops one's
/// by multisets.
fn shards_json(h: &Header) -> Vec<ShardJson> {
    if !h.partitioned {
        return Vec::new();
    }
    h.shards
        .iter()
        .map(|s| ShardJson {
            path: s.path.display().to_string(),
            index: s.index,
            rows: (!h.game_section).then_some([s.rows.start, s.rows.end]),
            multisets: h
                .game_section
                .then_some([s.multisets.start, s.multisets.end]),
            states: [s.states.start, s.states.end],
            counts: s.counts.into(),
            bytes: s.bytes,
        })
        .collect()
}

/// The report of `tb`, opened as `table`.
fn report(table: String, tb: &Tablebase, checked: bool) -> InfoReport {
    let h = tb.header();
    InfoReport {
        table,
        version: h.version,
        game: game_json(tb),
        facts: table_facts(h),
        checked,
        // Absent for a several-cops table in one file, as before such
        // tables could be partitioned.
        shards: (!h.game_section || h.partitioned).then(|| shards_json(h)),
    }
}

/// The text of the report's game, before the facts.
fn write_game(out: &mut impl Write, tb: &Tablebase, game: &GameJson) -> std::io::Result<()> {
    match game {
        GameJson::OneCop {
            rows,
            cols,
            cells,
            exits,
            cop_start,
            thief_start,
        } => {
            let coord =
                |c: &Option<[usize; 2]>| c.map_or("none".to_string(), |[r, c]| format!("{r},{c}"));
            writeln!(
                out,
                "map: {rows} x {cols}, {cells} free cells, {exits} exits; starts: cop {}, thief {}",
                coord(cop_start),
                coord(thief_start)
            )
        }
        GameJson::Cops {
            cops,
            cop_speed,
            thief_speed,
            ..
        } => {
            writeln!(
                out,
                "game: {cops} cop{}, cop speed {cop_speed}, thief speed {thief_speed}",
                if *cops == 1 { "" } else { "s" },
            )?;
            let h = tb.header();
            let start = match &h.start {
                Some(s) => format!(
                    "cops {}, thief {}",
                    show_all(tb, &s.cops, false),
                    show(tb, s.thief, false)
                ),
                None => "none".to_string(),
            };
            if h.graph {
                writeln!(
                    out,
                    "graph: {} vertices, {} edges, {} exits; start: {start}",
                    h.cells, h.edges, h.exits
                )
            } else {
                writeln!(
                    out,
                    "map: {} x {}, {} free cells, {} exits; start: {start}",
                    h.rows, h.cols, h.cells, h.exits
                )
            }
        }
    }
}

/// The text after the facts: a partitioned table's shards, or the state
/// order of a table with the game section.
fn write_layout(out: &mut impl Write, r: &InfoReport) -> std::io::Result<()> {
    let shards = r.shards.as_deref().unwrap_or_default();
    if let GameJson::Cops { thief_tile, .. } = r.game {
        writeln!(
            out,
            "order: thief tiles of {thief_tile} cell{} (by cop multiset within a tile{})",
            if thief_tile == 1 { "" } else { "s" },
            if shards.is_empty() {
                ""
            } else {
                ", in each shard"
            }
        )?;
    }
    if shards.is_empty() {
        return Ok(());
    }
    // One cop's bands are of cop rows, several cops' of multisets.
    let what = if matches!(r.game, GameJson::Cops { .. }) {
        "multisets"
    } else {
        "rows"
    };
    writeln!(
        out,
        "shards: {} files of a partitioned solve, by cop {what}:",
        shards.len()
    )?;
    for s in shards {
        let [first, end] = s
            .multisets
            .or(s.rows.map(|[a, b]| [a as u64, b as u64]))
            .unwrap_or_default();
        writeln!(
            out,
            "  {} {}: {what} {first}..{end}, states {}..{}, {}",
            s.index,
            s.path,
            s.states[0],
            s.states[1],
            human_bytes(s.bytes)
        )?;
    }
    Ok(())
}

/// Runs `info`; returns the exit status.
pub(crate) fn run(args: InfoArgs) -> Result<i32, Failure> {
    let tb = open_table(&args.table)?;
    let started = Instant::now();
    if args.check {
        tb.check()?;
    }
    let r = report(args.table.display().to_string(), &tb, args.check);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&r))?;
        writeln!(out)?;
        return Ok(0);
    }
    writeln!(out, "table: {} (format version {})", r.table, r.version)?;
    write_game(&mut out, &tb, &r.game)?;
    r.facts.write_lines(&mut out)?;
    write_layout(&mut out, &r)?;
    if args.check {
        writeln!(
            out,
            "check: every block verified in {:.3} s",
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(0)
}

/// `s` with control characters escaped (`\u{1b}`): a table's strings come
/// from the file, and a forged one must not drive the terminal.
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// What `info` says of every table, one cop or several: its rules, states
/// and counts, the solve, the file's size and blocks.
#[derive(Serialize, Debug)]
struct TableFacts {
    /// The rule variant as the solve flags that select it.
    rules: Vec<&'static str>,
    /// States (2 * cells^2).
    states: u64,
    /// Counts for the player to move.
    counts: CountsJson,
    /// Propagation levels of the solve.
    levels: u32,
    /// Engine that solved it.
    engine: String,
    /// Whether distances are stored.
    distances: bool,
    /// File size in bytes.
    bytes: u64,
    /// Compressed values, bits per state.
    value_bits_per_state: f64,
    /// Compressed distances, bits per state (0 without).
    dte_bits_per_state: f64,
    /// Values and distance blocks.
    blocks: [u64; 2],
}

impl TableFacts {
    /// The `rules:`, `states:`, `solved by:` and `size:` lines.
    fn write_lines(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "rules: {}",
            if self.rules.is_empty() {
                "standard".to_string()
            } else {
                self.rules.join(" ")
            }
        )?;
        writeln!(out, "{}", self.counts.states_line(self.states))?;
        writeln!(
            out,
            "solved by: {} engine, {} levels; distances: {}",
            printable(&self.engine),
            self.levels,
            if self.distances { "yes" } else { "no" }
        )?;
        writeln!(
            out,
            "size: {} ({} bytes); values {:.4} bits/state in {} blocks{}",
            human_bytes(self.bytes),
            self.bytes,
            self.value_bits_per_state,
            self.blocks[0],
            if self.distances {
                format!(
                    ", distances {:.4} bits/state in {} blocks",
                    self.dte_bits_per_state, self.blocks[1]
                )
            } else {
                String::new()
            }
        )?;
        Ok(())
    }
}
