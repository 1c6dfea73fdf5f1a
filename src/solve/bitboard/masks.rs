//! The moves in bit form: per-row masks of where states live, where each
//! thief move exists and where each cop cell can go; and level 0 of a cop
//! cell's record from them.

use super::layout::Layout;
use super::{CL, CW, TL, TW};
use crate::games::cops::CopsAndThief;

/// The move structure in bit form (the game's [`Rules`](crate::Rules)
/// applied to the board, over a [`Layout`]).
pub(super) struct MoveMasks {
    /// Free, non-exit positions: where non-terminal states live.
    pub(super) open: Vec<u64>,
    /// Exit positions.
    pub(super) exits: Vec<u64>,
    /// Positions whose thief has no move at all.
    pub(super) stuck: Vec<u64>,
    /// Each thief move: its shift in bits and where it exists.
    pub(super) thief: Vec<(isize, Vec<u64>)>,
    /// The cells each cop cell can move to (the cell itself for a pass).
    pub(super) cop: Vec<Vec<u32>>,
}

impl MoveMasks {
    pub(super) fn new(game: &CopsAndThief, layout: &Layout) -> MoveMasks {
        let grid = &game.board().grid;
        let row = || vec![0u64; layout.words];
        let set = |row: &mut [u64], bit: u32| row[bit as usize / 64] |= 1 << (bit % 64);
        let (mut open, mut exits, mut stuck) = (row(), row(), row());
        let mut thief: Vec<((i64, i64), Vec<u64>)> = Vec::new();
        for cell in 0..layout.cells as u32 {
            let bit = layout.pos[cell as usize];
            if game.board().exits[cell as usize] {
                set(&mut exits, bit);
            } else {
                set(&mut open, bit);
            }
            let moves = game.thief_targets(cell);
            if moves.is_empty() {
                set(&mut stuck, bit);
            }
            let (r, c) = grid.coords(cell);
            for &to in moves {
                let (tr, tc) = grid.coords(to);
                let step = (tr as i64 - r as i64, tc as i64 - c as i64);
                let k = match thief.iter().position(|(s, _)| *s == step) {
                    Some(k) => k,
                    None => {
                        thief.push((step, row()));
                        thief.len() - 1
                    }
                };
                set(&mut thief[k].1, bit);
            }
        }
        let width = layout.width as i64;
        MoveMasks {
            open,
            exits,
            stuck,
            thief: thief
                .into_iter()
                .map(|((dr, dc), mask)| ((dr * width + dc) as isize, mask))
                .collect(),
            cop: (0..layout.cells as u32)
                .map(|p| game.cop_targets(p).to_vec())
                .collect(),
        }
    }
}

/// Level 0 of cop cell `p`'s record: captures, escapes and players
/// without a move; returns the bits set.
pub(super) fn init_record(layout: &Layout, masks: &MoveMasks, p: usize, record: &mut [u64]) -> u64 {
    let l = layout.words;
    let bit = layout.pos[p] as usize;
    let (word, mask) = (bit / 64, 1u64 << (bit % 64));
    let cop_stuck = masks.cop[p].is_empty();
    let mut ones = 0;
    for w in layout.span.range() {
        let not_here = if w == word { !mask } else { !0 };
        let here = if w == word { mask } else { 0 };
        let cl = (masks.exits[w] | if cop_stuck { masks.open[w] } else { 0 }) & not_here;
        let tl = here | (masks.stuck[w] & masks.open[w] & not_here);
        let tw = masks.exits[w] & not_here;
        record[CW * l + w] = here;
        record[CL * l + w] = cl;
        record[TL * l + w] = tl;
        record[TW * l + w] = tw;
        ones += u64::from(here.count_ones() + cl.count_ones() + tl.count_ones() + tw.count_ones());
    }
    ones
}
