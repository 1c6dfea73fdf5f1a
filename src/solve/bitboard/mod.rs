//! The bit-parallel engine for the grid game ([`Engine::Bitboard`]).
//!
//! The three outcomes are two independent attractors: "the cop has won"
//! (captures, then cop-to-move states with SOME move into the set and
//! thief-to-move states with ALL moves into it) and "the thief has won"
//! (escapes, symmetrically). For each cop cell P the engine keeps four
//! bitsets over thief positions, laid out as the free cells' bounding box
//! row by row (one bit per grid position, so a thief move is a constant
//! shift), in one record per P:
//!
//! - `CW`: cop to move, the cop has won (WIN);
//! - `CL`: cop to move, the thief has won (LOSS);
//! - `TL`: thief to move, the cop has won (LOSS);
//! - `TW`: thief to move, the thief has won (WIN).
//!
//! A level is word-wide logic. A cop-to-move row of P becomes the OR (`CW`)
//! and the AND (`CL`) of the thief-to-move rows of the cells the cop can
//! move to; a thief-to-move row becomes the AND (`TL`) and the OR (`TW`) of
//! P's own cop-to-move rows shifted by each thief move, with a per-move
//! mask of the positions where that move exists (walls, the map's edge and
//! blocked diagonals). Terminal positions (exits, the capture) are masked
//! out. A bit set at level k + 1 is computed only from bits of level k or
//! less (see "Level order" below), so the level at which a state's bit sets
//! is its distance to end, exactly as in the counter engines.
//!
//! Only work that can change anything is done: a row is recomputed only
//! when a row it reads changed in the previous level, and only over the
//! word range that changed (widened by one grid row plus a column for the
//! thief's shifts). Levels still sweep the cop cells in order, so rows
//! that did not change cost one range test.
//!
//! Level order. The update is in place. Within a band of grid rows, the
//! cop rows of grid row r are computed into a staging buffer (they read the
//! thief rows of grid rows r - 1, r and r + 1, still at level k); only then
//! are the thief rows of grid row r - 1 updated (they read their own cop
//! rows, still at level k) and the staged cop rows of grid row r - 1
//! committed. Bands run in parallel; the thief rows just outside a band are
//! read from a halo copy taken between levels. A cell of row r - 1 is
//! updated as soon as the cop cells of row r that read it are staged, while
//! its rows are still in cache.
//!
//! Two levels per sweep. The level loop is bound by memory traffic (every
//! level reads each band's changed rows once), so when every band has at
//! least five grid rows, levels k and k + 1 share one pass: level k + 1
//! stages row r - 2 right after level k has updated row r - 1. It leaves
//! out the rows that read another band's rows at level k (the band's first
//! row, and its last two); after a barrier the halos hold level k, and each
//! band finishes them, reading its second row from a copy kept before
//! level k + 1 moved it on.
//!
//! Memory: four bits per (P, grid position) pair, about 0.31 bytes per
//! state on an open map with 20% walls, plus the optional distance table.
//!
//! Files: [`layout`] (where each state's bit lives, word ranges), [`bits`]
//! (the solved bitsets and their readers, BMI2 `pext` / `pdep` when the
//! CPU has it), [`masks`] (the moves in bit form, level 0), [`halo`] (a
//! band of grid rows with its staging buffers and the halo copies of the
//! rows just outside it), [`kernel`] (one band's levels, compiled for
//! AVX2 and AVX-512 too), [`run`] (the level loop, checkpoints), [`cuts`]
//! (the bands' rows and buffer bytes), [`run_paged`] (the loop's
//! out-of-core steps), [`blocking`] (out of core: several levels per pass
//! over the file), [`sizing`] (its levels per pass under a cap) and,
//! with the `distributed` feature, `partition` (a process's band of grid
//! rows in a partitioned solve) and `peers` (the halo swap after every
//! step, or every pass of several levels out of core).

use std::sync::atomic::{AtomicU16, AtomicU64};

use super::common::{thread_pool, DEFAULT_WINDOW_BYTES};
use super::options::SolveOptions;
use crate::error::{Error, Result};
use crate::games::cops::CopsAndThief;
use crate::outcome::Dte;
use crate::storage::{Paging, Region};

#[cfg(feature = "distributed")]
pub(crate) mod band_checkpoint;
mod bits;
mod blocking;
mod cuts;
mod halo;
mod kernel;
mod layout;
mod masks;
#[cfg(feature = "distributed")]
pub(crate) mod partition;
#[cfg(feature = "distributed")]
mod peers;
mod run;
mod run_paged;
mod sizing;
#[cfg(test)]
mod tests;

pub(super) use bits::Bits;
pub(super) use cuts::working_bytes;
pub(super) use layout::Layout;
use masks::MoveMasks;
use run::Run;
pub(super) use sizing::blocking;

/// Index of each bitset within a cop cell's record.
const CW: usize = 0;
const CL: usize = 1;
const TL: usize = 2;
const TW: usize = 3;
/// Bitsets per cop cell.
const KINDS: usize = 4;

/// Bands per worker in memory: one. With two levels per pass each band
/// also holds a second set of staging rows and a kept row, and one band
/// per worker measured as fast as two (150 x 150: x0.98 wall; Berlin_1_256:
/// x1.02, within noise) with 9 MiB (40 MiB on Berlin) less memory.
const BANDS_PER_WORKER_IN_MEMORY: usize = 1;

/// How the scratch files' pages get back to disk out of core: private
/// copies, each written once when a pass's last level leaves its row
/// (`blocking.rs`). With a shared mapping the kernel wrote pages of a
/// pass's pipeline back while later levels were still changing them, once
/// the pipeline was larger than its dirty limit (a fifth of memory): the
/// 512 x 512 map under `--memory 16G` wrote 2.0 TB where its passes needed
/// 0.36 TB (docs/measurements.md).
pub(super) const PIPELINE_PAGING: Paging = Paging::Explicit;

/// What a solve found besides the bitsets: how deep its levels went.
pub(super) struct Depths {
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<Dte>,
    pub(super) deepest: [Option<(Dte, u64)>; 2],
    /// States decided at each level done here, the last (quiet) one
    /// included (a resumed run starts at its checkpoint's level): what a
    /// partitioned solve reports.
    #[cfg_attr(not(feature = "distributed"), allow(dead_code))]
    pub(super) decided: Vec<u64>,
}

/// Solves `game` into bitsets: the engine's entry point.
pub(super) fn solve(
    game: &CopsAndThief,
    options: &SolveOptions<'_>,
    dte_region: Option<&Region>,
) -> Result<(Bits, Depths)> {
    let layout = Layout::new(game);
    let mut region = Region::zeroed_paged::<AtomicU64>(
        (layout.cells * layout.record()) as u64,
        &options.backing,
        "bitsets",
        PIPELINE_PAGING,
    )?;
    let dte = dte_region.map(Region::atomics::<AtomicU16>);
    let mut window = None;
    let depths = thread_pool(options.threads)?.install(|| {
        let threads = rayon::current_num_threads();
        let masks = MoveMasks::new(game, &layout);
        let mut run = Run::new(&layout, &masks, dte, options, threads);
        let (words, pager) = region.words_with_pager();
        // Out of core, several levels per pass over the file (unless the
        // records fit under the cap).
        if let crate::storage::Backing::Scratch(_) = options.backing {
            let room = options.memory_limit.unwrap_or(DEFAULT_WINDOW_BYTES);
            let plan = blocking(&layout, dte.is_some(), threads, room).map_err(|minimum| {
                Error::TooLarge {
                    what: "an out-of-core bitboard solve (a level's grid rows and staging rows, the rows its I/O thread holds and the engine's bookkeeping)".to_string(),
                    needed: minimum,
                    available: room,
                    hint: crate::error::cap_hint(minimum),
                }
            })?;
            if !plan.whole {
                window = Some(plan.window_cells);
                run.bands.clear();
                run.blocked = Some(blocking::Blocked::new(&layout, &plan, pager, dte_region));
            }
        }
        run.run(words)
    })?;
    Ok((
        Bits {
            layout,
            region,
            window,
        },
        depths,
    ))
}
