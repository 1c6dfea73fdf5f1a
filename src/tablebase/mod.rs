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
//! `header.rs` its [`Header`] and [`ShardHeader`]s, `order.rs`
//! maps states to the file (thief tiles), `moves.rs` a state's [`Probe`], rates moves and plays
//! optimal games, `scan.rs` decodes a whole table once, `check.rs`
//! verifies a whole table, `shards.rs` names, finds and checks the shard
//! set of a partitioned solve.

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

pub use check::CheckReport;
#[cfg(feature = "distributed")]
pub(crate) use format::ShardInfo;
pub use header::{Header, ShardHeader};
pub use moves::Probe;
pub use shards::shard_path;
pub use table::{RatedMove, Tablebase};
#[cfg(feature = "distributed")]
#[cfg(feature = "distributed")]
pub(crate) use writer::{write_source, Source};
pub use writer::{write_tablebase, WriteSummary};
