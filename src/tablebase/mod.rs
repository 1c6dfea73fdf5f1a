//! Tablebases: a solve saved to a self-contained `.rtb` file (the map and
//! rules or the graph, the number of cops, every state's value and
//! optionally its distance to end, in independently compressed and
//! checksummed blocks), and the one [`Tablebase`] reader that answers any
//! position from it without solving again, for any number of cops (a
//! one-cop table is a table of k = 1).
//!
//! A partitioned solve saves one *shard* per process (`NAME.I-of-N.rtb`,
//! see [`shard_path`]), each holding the states of its band of cop rows;
//! [`Tablebase::open`] opens the whole set from any shard or from
//! `NAME.rtb`, checks that it is complete and of one solve, and routes each
//! probe to the shard that holds the state. A table from one process is a
//! set of one file.
//!
//! `format/` owns the byte layout (`format/dte.rs` the distance codec,
//! `format/kcops.rs` the game section of several cops), `writer/` streams a
//! [`Solution`](crate::Solution) into it (`writer/cops.rs` a game with the
//! game section, its states in thief tiles), `reader.rs` checks a file
//! (read with `pread`, never mapped) and decodes blocks, `table.rs` is the reader's API (positions,
//! probes, rated moves; positions are [`Position`](crate::Position)s),
//! `header.rs` its [`Header`], `order.rs`
//! maps states to the file (thief tiles), `moves.rs` rates moves and plays
//! optimal games, `scan.rs` decodes a whole table once, `check.rs`
//! verifies a whole table, `shards.rs` names, finds and checks the shard
//! set of a partitioned solve; this file holds what they share.

mod check;
mod format;
mod header;
mod moves;
mod order;
mod reader;
mod scan;
mod shards;
mod table;
mod writer;

use std::path::PathBuf;

use crate::outcome::{Dte, Outcome};
use crate::solve::Counts;

pub use check::CheckReport;
#[cfg(feature = "distributed")]
pub(crate) use format::ShardInfo;
pub use header::Header;
pub use shards::shard_path;
pub use table::{RatedMove, Tablebase};
#[cfg(feature = "distributed")]
#[cfg(feature = "distributed")]
pub(crate) use writer::{write_source, Source};
pub use writer::{write_tablebase, WriteSummary};

/// The stored answer for a position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, loss or draw for the player to move.
    pub value: Outcome,
    /// Distance to end in plies: `None` for a draw, or when the table keeps
    /// no distances.
    pub dte: Option<Dte>,
}

/// One file of a table: a shard of a partitioned solve, or the whole table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// The file.
    pub path: PathBuf,
    /// Shard index, 0-based (0 for a whole table).
    pub index: u32,
    /// Shards in the set (1 for a whole table).
    pub count: u32,
    /// The grid rows of the cop cells it holds, `first .. end` (a one-cop
    /// table; empty for several cops, whose bands are of multisets).
    pub rows: std::ops::Range<usize>,
    /// The cop multisets it holds by rank, `first .. end` (in a one-cop
    /// table the cop cells).
    pub multisets: std::ops::Range<u64>,
    /// The state indices it holds, `first .. end`.
    pub states: std::ops::Range<u64>,
    /// WIN / LOSS / DRAW counts of its states.
    pub counts: Counts,
    /// Bytes of the file.
    pub bytes: u64,
}
