//! `retrograde info FILE.rtb`: what a table holds (map, rules, counts,
//! sizes, bits per state); `--check` verifies every block.

/// Several-cops tables (this command's part).
mod kcops;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args as ClapArgs;
use retrograde::GridHeader;
use serde::Serialize;

use super::common::{human_bytes, rule_flags};
use super::output::CountsJson;
use super::tables::open_any_table;
use super::Failure;

/// Flags of `info`.
#[derive(ClapArgs, Debug)]
pub(crate) struct InfoArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    pub(crate) table: PathBuf,
    /// Verify every block (checksums, decoding, counts); exit status 2 on
    /// the first damaged block.
    #[arg(long)]
    pub(crate) check: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The JSON of `info`.
#[derive(Serialize, Debug)]
struct InfoReport {
    /// The table file.
    table: String,
    /// Format version.
    version: u32,
    /// Map rows.
    rows: usize,
    /// Map columns.
    cols: usize,
    /// Free cells.
    cells: u64,
    /// Exit cells.
    exits: u64,
    /// The cop's start `[row, col]`, if any.
    cop_start: Option<[usize; 2]>,
    /// The thief's start, if any.
    thief_start: Option<[usize; 2]>,
    /// The solve and the file, as in every table's `info`.
    #[serde(flatten)]
    facts: TableFacts,
    /// Whether every block was verified (`--check`).
    checked: bool,
    /// The files of a partitioned solve's table, one per process (empty
    /// for a table in one file).
    shards: Vec<ShardJson>,
}

/// One shard of a table, in `info`.
#[derive(Serialize, Debug)]
struct ShardJson {
    /// The file.
    path: String,
    /// Shard index, 0-based.
    index: u32,
    /// Grid rows of its cop cells, `[first, end)`.
    rows: [usize; 2],
    /// State indices it holds, `[first, end)`.
    states: [u64; 2],
    /// Counts of its states.
    counts: CountsJson,
    /// File size in bytes.
    bytes: u64,
}

fn report(table: String, h: &GridHeader, checked: bool) -> InfoReport {
    let states = h.states.max(1) as f64;
    InfoReport {
        table,
        version: h.version,
        rows: h.rows,
        cols: h.cols,
        cells: h.cells,
        exits: h.exits,
        cop_start: h.cop_start.map(|(r, c)| [r, c]),
        thief_start: h.thief_start.map(|(r, c)| [r, c]),
        facts: TableFacts {
            rules: rule_flags(h.rules),
            states: h.states,
            counts: h.counts.into(),
            levels: h.levels,
            engine: h.engine.clone(),
            distances: h.has_dte,
            bytes: h.file_bytes,
            value_bits_per_state: h.value_bytes as f64 * 8.0 / states,
            dte_bits_per_state: h.dte_bytes as f64 * 8.0 / states,
            blocks: [h.value_blocks, h.dte_blocks],
        },
        checked,
        shards: if h.partitioned {
            h.shards
                .iter()
                .map(|s| ShardJson {
                    path: s.path.display().to_string(),
                    index: s.index,
                    rows: [s.rows.start, s.rows.end],
                    states: [s.states.start, s.states.end],
                    counts: s.counts.into(),
                    bytes: s.bytes,
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// Runs `info`; returns the exit status.
pub(crate) fn run(args: InfoArgs) -> Result<i32, Failure> {
    let tb = match open_any_table(&args.table)? {
        retrograde::AnyTablebase::One(tb) => tb,
        retrograde::AnyTablebase::Several(tb) => return kcops::info(&args, &tb),
    };
    let started = Instant::now();
    if args.check {
        tb.check()?;
    }
    let r = report(args.table.display().to_string(), tb.header(), args.check);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&r))?;
        writeln!(out)?;
        return Ok(0);
    }
    let coord = |c: Option<[usize; 2]>| c.map_or("none".to_string(), |[r, c]| format!("{r},{c}"));
    writeln!(out, "table: {} (format version {})", r.table, r.version)?;
    writeln!(
        out,
        "map: {} x {}, {} free cells, {} exits; starts: cop {}, thief {}",
        r.rows,
        r.cols,
        r.cells,
        r.exits,
        coord(r.cop_start),
        coord(r.thief_start)
    )?;
    r.facts.write_lines(&mut out)?;
    if !r.shards.is_empty() {
        writeln!(
            out,
            "shards: {} files of a partitioned solve, by cop rows:",
            r.shards.len()
        )?;
        for s in &r.shards {
            writeln!(
                out,
                "  {} {}: rows {}..{}, states {}..{}, {}",
                s.index,
                s.path,
                s.rows[0],
                s.rows[1],
                s.states[0],
                s.states[1],
                human_bytes(s.bytes)
            )?;
        }
    }
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
pub(super) struct TableFacts {
    /// The rule variant as the solve flags that select it.
    pub(super) rules: Vec<&'static str>,
    /// States (2 * cells^2).
    pub(super) states: u64,
    /// Counts for the player to move.
    pub(super) counts: CountsJson,
    /// Propagation levels of the solve.
    pub(super) levels: u32,
    /// Engine that solved it.
    pub(super) engine: String,
    /// Whether distances are stored.
    pub(super) distances: bool,
    /// File size in bytes.
    pub(super) bytes: u64,
    /// Compressed values, bits per state.
    pub(super) value_bits_per_state: f64,
    /// Compressed distances, bits per state (0 without).
    pub(super) dte_bits_per_state: f64,
    /// Values and distance blocks.
    pub(super) blocks: [u64; 2],
}

impl TableFacts {
    /// The `rules:`, `states:`, `solved by:` and `size:` lines.
    pub(super) fn write_lines(&self, out: &mut impl Write) -> std::io::Result<()> {
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
