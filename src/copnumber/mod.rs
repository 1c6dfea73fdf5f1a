//! The cop number: the least k such that k cops, placed first, catch the
//! thief wherever it starts (`docs/rules.md`, "Several cops").
//!
//! The question only: the games are `games/kcops.rs` on an
//! [`Arena`](crate::Arena), the engine that answers is the several-cops
//! kernel of `solve/multicop/`. `number.rs` asks it for k = 1, 2, ...;
//! `small.rs` is the fast path for plain graphs up to 64 vertices (`u64`
//! rows, corners removed for `--counts`, dismantlability for one cop);
//! `naive.rs` (tests) a fixpoint from the spec that both are checked
//! against; `certificate/` the evidence for an answer that a reader
//! checks without the solver (the placement's strategy with ranks, the
//! thief's safe states against one cop fewer), built from the kernel's
//! solutions (`certificate/text.rs` its text records); `census/` the
//! census of many graphs in shards (`mod.rs` tallies and the merge,
//! `graph.rs` one graph6 line's answer, `text.rs` and `read.rs` the shard
//! and census files written and read back with their SHA-256 checksums,
//! `check.rs` the census's own check of every verdict by corner
//! elimination).

mod census;
mod certificate;
mod number;
mod small;

#[cfg(test)]
mod naive;

pub use census::{
    census_graph, key_difference, merge, Census, CensusError, CensusKey, CheckError, CopClass,
    Dismantler, Listed, Longest, ShardEntry, ShardFile, Tally, CENSUS_FORMAT, LISTED_MOST,
};
pub use certificate::{
    certificate, certificate_memory, write_header, write_trailer, Certificate, CertificateError,
    CopMove, GraphText, Lower, ThiefAnswer, Upper, CERTIFICATE_HEADER,
};
pub use number::{
    cop_number, cop_number_of_graph, cop_number_of_masks, cop_number_with, CopNumber, CopSearch,
    OutOfMemory,
};
pub use small::is_dismantlable;

pub use crate::games::multiset::{multiset_count, rank_multiset, unrank_multiset};
pub use crate::solve::multicop::memory_bound;
