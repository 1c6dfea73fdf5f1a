//! Whole-table verification: every block of every file decoded and its
//! values counted against the trailer.

use super::reader::{Kind, Raw};
use crate::error::Result;

/// What [`Tablebase::check`](super::Tablebase::check) verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Values blocks checked (checksum, decoding, value codes).
    pub value_blocks: u64,
    /// Distance blocks checked (checksum, decoding).
    pub dte_blocks: u64,
    /// States whose value was read; the counts matched the trailer's.
    pub states: u64,
}

/// [`Tablebase::check`](super::Tablebase::check) of one file.
pub(super) fn check_raw(raw: &Raw) -> Result<()> {
    let mut counts = [0u64; 4];
    let states = raw.trailer.states;
    let per = raw.body.value_block_states;
    for b in 0..raw.blocks(Kind::Values) {
        let data = raw.decode_values(b)?;
        let first = b * per;
        let len = (states - first).min(per) as usize;
        for i in 0..len {
            counts[((data[i / 4] >> (2 * (i % 4))) & 3) as usize] += 1;
        }
        if counts[3] != 0 {
            return Err(raw.error(
                format!("block {b} (values)"),
                "invalid value code 3: the file is damaged",
            ));
        }
    }
    for b in 0..raw.blocks(Kind::Distances) {
        raw.decode_distances(b)?;
    }
    let c = raw.trailer.counts;
    if [counts[1], counts[2], counts[0]] != [c.win, c.loss, c.draw] {
        return Err(raw.error(
            "trailer",
            format!(
                "the blocks hold {} wins, {} losses, {} draws; the trailer says {}, {}, {}",
                counts[1], counts[2], counts[0], c.win, c.loss, c.draw
            ),
        ));
    }
    Ok(())
}
