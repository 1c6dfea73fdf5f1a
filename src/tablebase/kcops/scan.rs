//! Whole-table scans of a several-cops table: every values block decoded
//! once, in parallel, in block order (runs of the state order say which
//! states a block holds) (what `render --overview` needs of a
//! table of ~1e8 states, where a probe per state would decode each block
//! thousands of times over the caches).

use rayon::prelude::*;

use super::KTablebase;
use crate::error::Result;
use crate::tablebase::reader::Kind;
use crate::Turn;

impl KTablebase {
    /// For every cop multiset, by rank (the order of
    /// [`KCops::rank`](crate::KCops::rank)): the number of thief cells
    /// outside the multiset from which the cops win with `turn` to move
    /// (a WIN for the cops to move, a LOSS for the thief to move). Thief
    /// cells under a cop are left out: those states are captures.
    ///
    /// Every values block is decoded once, blocks in parallel on the
    /// rayon pool; the blocks bypass the probe caches (a scan would only
    /// flush them).
    ///
    /// # Errors
    /// [`Error::Table`](crate::Error::Table) naming the first damaged block.
    pub fn cop_wins_by_multiset(&self, turn: Turn) -> Result<Vec<u32>> {
        let raw = &self.raw;
        let n = u64::from(self.game.arena().cells());
        let k = self.cops() as usize;
        let multisets = self.game.multisets();
        let per = raw.body.value_block_states;
        let states = raw.trailer.states;
        let first = raw.first;
        let turn_bit = turn as u64;
        // The raw code of a cops' win for the player to move: 1 is a WIN
        // for the mover, 2 a LOSS.
        let win = if turn == Turn::Cop { 1 } else { 2 };
        // Each block's counts as (rank, wins) per run of the state order:
        // a multiset's states of a tile may straddle blocks, and its tiles
        // lie in different blocks, so the partials are added.
        let partials = (0..raw.blocks(Kind::Values))
            .into_par_iter()
            .map(|b| -> Result<Vec<(u64, u32)>> {
                let data = raw.decode_values(b)?;
                let start = first + b * per;
                let end = start + (states - b * per).min(per);
                let mut counts: Vec<(u64, u32)> = Vec::new();
                let mut cops = [0u32; 4];
                let mut unranked = u64::MAX;
                for run in self.order.runs(start..end) {
                    let rank = (run.state >> 1) / n;
                    if rank != unranked {
                        self.game.unrank(rank, &mut cops[..k]);
                        unranked = rank;
                    }
                    let mut wins = 0u32;
                    for j in 0..run.len {
                        let i = (run.file + j - start) as usize;
                        let v = (data[i / 4] >> (2 * (i % 4))) & 3;
                        if v == 3 {
                            return Err(raw.error(
                                format!("block {b} (values)"),
                                format!(
                                    "state {} has the invalid value code 3: the file is damaged",
                                    run.state + j
                                ),
                            ));
                        }
                        let st = run.state + j;
                        let t = ((st >> 1) % n) as u32;
                        if st & 1 == turn_bit && v == win && !cops[..k].contains(&t) {
                            wins += 1;
                        }
                    }
                    counts.push((rank, wins));
                }
                Ok(counts)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut wins = vec![0u32; multisets as usize];
        for (rank, count) in partials.into_iter().flatten() {
            if let Some(w) = wins.get_mut(rank as usize) {
                *w += count;
            }
        }
        Ok(wins)
    }
}
