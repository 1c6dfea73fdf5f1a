//! Whole-table scans: every values block decoded once, in parallel, in
//! block order (runs of the state order say which states a block holds)
//! (what `render --overview` needs of a table of ~1e8 states, where a
//! probe per state would decode each block thousands of times over the
//! caches).

use rayon::prelude::*;

use super::order::StateOrder;
use super::reader::{Kind, Raw};
use super::table::Tablebase;
use crate::error::Result;
use crate::games::cops::Turn;
use crate::games::multiset::Ranker;

impl Tablebase {
    /// For every cop multiset, by rank (the order of
    /// `copnumber::rank_multiset`; a one-cop table's by cell):
    /// the number of thief cells outside the multiset from which the cops
    /// win with `turn` to move (a WIN for the cops to move, a LOSS for the
    /// thief to move). Thief cells under a cop are left out: those states
    /// are captures.
    ///
    /// Every values block is decoded once, blocks in parallel on the
    /// rayon pool; the blocks bypass the probe caches (a scan would only
    /// flush them).
    ///
    /// # Errors
    /// [`Error::Table`](crate::Error::Table) naming the first damaged block.
    pub fn cop_wins_by_multiset(&self, turn: Turn) -> Result<Vec<u32>> {
        let (raws, orders, ranker, n) = self.scan_parts();
        let k = self.cops() as usize;
        let multisets = crate::games::multiset::multiset_count(n as usize, k);
        let mut total = vec![0u32; multisets as usize];
        for (raw, order) in raws.iter().zip(orders) {
            let wins = wins_in_file(raw, order, ranker, n, k, multisets, turn)?;
            for (x, y) in total.iter_mut().zip(wins) {
                *x += y;
            }
        }
        Ok(total)
    }
}

/// [`Tablebase::cop_wins_by_multiset`] over the states of one file.
pub(super) fn wins_in_file(
    raw: &Raw,
    order: &StateOrder,
    ranker: &Ranker,
    n: u64,
    k: usize,
    multisets: u64,
    turn: Turn,
) -> Result<Vec<u32>> {
    let per = raw.body.value_block_states;
    let states = raw.trailer.states;
    let first = raw.first;
    let turn_bit = turn as u64;
    // The raw code of a cops' win for the player to move: 1 is a WIN
    // for the mover, 2 a LOSS.
    let win = if turn == Turn::Cop { 1 } else { 2 };
    // Counts per multiset, one dense array per rayon job (a few per
    // thread: blocks go in long runs), added at the end. Within a tile
    // a block's runs are consecutive ranks, so the cops step to the
    // next multiset instead of being unranked per run.
    let blocks = raw.blocks(Kind::Values);
    let jobs = (rayon::current_num_threads() as u64 * 4).max(1);
    let zeros = || vec![0u32; multisets as usize];
    let wins = (0..blocks as usize)
        .into_par_iter()
        .with_min_len(blocks.div_ceil(jobs) as usize)
        .try_fold(zeros, |mut wins, b| -> Result<Vec<u32>> {
            let b = b as u64;
            let data = raw.decode_values(b)?;
            let start = first + b * per;
            let end = start + (states - b * per).min(per);
            let mut cops = [0u32; 4];
            let mut unranked: Option<u64> = None;
            for run in order.runs(start..end) {
                let rank = (run.state >> 1) / n;
                if unranked != Some(rank) {
                    ranker.seek(&mut unranked, rank, &mut cops[..k]);
                }
                let mut count = 0u32;
                for j in 0..run.len {
                    let i = (run.file + j - start) as usize;
                    let v = (data[i / 4] >> (2 * (i % 4))) & 3;
                    let st = run.state + j;
                    if v == 3 {
                        return Err(raw.error(
                            format!("block {b} (values)"),
                            format!("state {st} has the invalid value code 3: the file is damaged"),
                        ));
                    }
                    let t = ((st >> 1) % n) as u32;
                    if st & 1 == turn_bit && v == win && !cops[..k].contains(&t) {
                        count += 1;
                    }
                }
                if let Some(w) = wins.get_mut(rank as usize) {
                    *w += count;
                }
            }
            Ok(wins)
        })
        .try_reduce(zeros, |mut a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            Ok(a)
        })?;
    Ok(wins)
}
