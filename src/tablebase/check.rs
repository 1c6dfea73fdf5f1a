//! Whole-table verification: every block of every file decoded and its
//! values counted against the trailer, then every state's value (and
//! distance) checked against its moves in the game the header names.

use std::path::Path;

use rayon::prelude::*;

use super::moves::Probe;
use super::reader::{table_error, Kind, Raw};
use crate::error::Result;
use crate::game::{Game, Initial};
use crate::outcome::Outcome;

/// What [`Tablebase::check`](super::Tablebase::check) verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Values blocks checked (checksum, decoding, value codes).
    pub value_blocks: u64,
    /// Distance blocks checked (checksum, decoding).
    pub dte_blocks: u64,
    /// States whose value was read; the counts matched the trailer's, and
    /// each value (and distance) follows from its successors' under the
    /// rules the header names.
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

/// States checked per rayon job of [`check_moves`].
const CHUNK: u64 = 1 << 14;

/// Checks every state's stored value against its moves in `game` (the
/// game rebuilt from the header): a decided state holds its terminal
/// value; otherwise a win needs a successor lost for the other player, a
/// loss needs every successor won for it, and a draw neither. With
/// distances, a win is one ply more than its quickest such successor and
/// a loss one more than its slowest. The checksums only catch damage: a
/// header edited with its checksum recomputed (other rules, another
/// speed) reads back fine, and this is what tells that the values were
/// solved for another game.
/// `probe` reads a state of the table at `path` (`states` states, `dte`:
/// with distances).
pub(super) fn check_moves<G: Game + Sync>(
    (path, states, dte): (&Path, u64, bool),
    game: &G,
    probe: impl Fn(u64) -> Result<Probe> + Sync,
) -> Result<()> {
    (0..states.div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|chunk| -> Result<()> {
            let mut next = Vec::with_capacity(16);
            for s in chunk * CHUNK..((chunk + 1) * CHUNK).min(states) {
                let stored = probe(s)?;
                let (value, plies) = match game.initial(s) {
                    Initial::Decided(t) => (Outcome::from(t), 0),
                    Initial::Moves(_) => {
                        next.clear();
                        game.for_each_successor(s, |t| next.push(t));
                        let (mut quickest, mut slowest, mut all_won) = (None, 0, true);
                        for &t in &next {
                            let after = probe(t)?;
                            let plies = after.dte.map_or(0, |d| d.0) + 1;
                            match after.value {
                                Outcome::Loss => {
                                    quickest = Some(quickest.map_or(plies, |q: u32| q.min(plies)));
                                }
                                Outcome::Win => slowest = slowest.max(plies),
                                Outcome::Draw => all_won = false,
                            }
                        }
                        match quickest {
                            Some(q) => (Outcome::Win, q),
                            None if all_won => (Outcome::Loss, slowest),
                            None => (Outcome::Draw, 0),
                        }
                    }
                };
                let distance_wrong =
                    dte && value != Outcome::Draw && stored.dte.map(|d| d.0) != Some(plies);
                if stored.value != value || distance_wrong {
                    let said = |v: Outcome, d: Option<u32>| {
                        let name = format!("{v:?}").to_uppercase();
                        match (v, d) {
                            (Outcome::Draw, _) | (_, None) => name,
                            (_, Some(d)) => format!("{name} in {d} plies"),
                        }
                    };
                    return Err(table_error(
                        path,
                        format!("state {s}"),
                        format!(
                            "the table says {} where its moves give {} under the rules its header names: the values were solved for another game, or the file was altered",
                            said(stored.value, stored.dte.map(|d| d.0)),
                            said(value, dte.then_some(plies)),
                        ),
                    ));
                }
            }
            Ok(())
        })
}
