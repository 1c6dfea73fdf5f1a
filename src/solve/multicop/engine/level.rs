//! One level of the engine's loop, the same for the local solve
//! (`engine.rs`: the whole state space, one band) and for a band of a
//! partitioned one (`partition.rs`): the arrays a level reads and writes
//! ([`Rows`]) and the step that takes them from level `d` to `d + 1`
//! ([`Engine::step`]). The steps skip the rows outside `Engine::band`, so
//! the local engine is the partitioned one with one band and no link.

use super::rows::commit;
use super::{cops, Engine, KcopOptions, Op};
use crate::games::cops::Turn;
use crate::games::multiset::rank_multiset;
use crate::solve::multicop::solution::KSolution;
use crate::solve::multicop::store::Words;

/// The arrays of the level loop: the four attractors (`cw`, `cl`, `tl`,
/// `tw`; `cl` and `tw` empty where the thief can win nowhere), the
/// thief's rows of the next level, the distances, and what the last
/// steps changed, which the next level reads instead of every row.
pub(super) struct Rows {
    pub(super) cw: Words<u64>,
    pub(super) cl: Words<u64>,
    pub(super) tl: Words<u64>,
    pub(super) tw: Words<u64>,
    /// The thief's rows of the next level, committed after the step.
    pub(super) tl2: Words<u64>,
    pub(super) tw2: Words<u64>,
    pub(super) dte: Option<Words<u16>>,
    /// Per cop row, which of its words changed at the last cop step.
    pub(super) cw_changed: Vec<u64>,
    pub(super) cl_changed: Vec<u64>,
    /// Per cop row, the bits its first two changed words gained (the
    /// thief's next step reads the moves into them alone); kept where a
    /// mask bit is one word.
    pub(super) cw_gains: Vec<[u64; 2]>,
    pub(super) cl_gains: Vec<[u64; 2]>,
    /// Per thief row, whether it changed at the last thief step.
    pub(super) tl_changed: Vec<u8>,
    pub(super) tw_changed: Vec<u8>,
    /// The same for the step running.
    pub(super) tl_next: Vec<u8>,
    pub(super) tw_next: Vec<u8>,
}

impl Rows {
    /// The attractors in `cw, cl, tl, tw` order.
    pub(super) fn sets(&self) -> [&[u64]; 4] {
        [&self.cw, &self.cl, &self.tl, &self.tw]
    }

    /// The attractors (`cw, cl, tl, tw`) and the distances, to write.
    pub(super) fn sets_mut(&mut self) -> ([&mut Words<u64>; 4], &mut Option<Words<u16>>) {
        let Rows {
            cw,
            cl,
            tl,
            tw,
            dte,
            ..
        } = self;
        ([cw, cl, tl, tw], dte)
    }

    /// Level 0: the terminal states of the band; the states decided and
    /// the least all-WIN rank.
    pub(super) fn terminal(&mut self, engine: &Engine<'_>) -> (u64, Option<u64>) {
        let ([cw, cl, tl, tw], dte) = self.sets_mut();
        let sets = [&mut cw[..], &mut cl[..], &mut tl[..], &mut tw[..]];
        engine.terminal(sets, dte.as_deref_mut())
    }

    /// Hands the attractors and distances to `sol`, solved after `level`
    /// levels; the next level's rows and the flags go.
    pub(super) fn finish(self, sol: &mut KSolution, level: u32) {
        sol.cw = self.cw;
        sol.cl = self.cl;
        sol.tl = self.tl;
        sol.tw = self.tw;
        sol.dte = self.dte;
        sol.levels = level;
    }
}

impl Engine<'_> {
    /// A solution of this engine's shape holding nothing yet.
    pub(super) fn empty_solution(&self) -> KSolution {
        KSolution {
            pager: None,
            n: self.n,
            k: self.k,
            words: self.words,
            cw: Words::Heap(Vec::new()),
            cl: Words::Heap(Vec::new()),
            tl: Words::Heap(Vec::new()),
            tw: Words::Heap(Vec::new()),
            levels: 0,
            dte: None,
            start_dte: None,
            placement: None,
            deepest_cops: None,
        }
    }

    /// The start of `options` as (rank, thief, turn: 1 the thief's).
    pub(super) fn start_of(options: &KcopOptions) -> Option<(usize, usize, usize)> {
        options.start.as_ref().map(|s| {
            (
                rank_multiset(&s.cops) as usize,
                s.thief as usize,
                usize::from(s.turn == Turn::Thief),
            )
        })
    }
}

/// What one level's three steps did.
pub(super) struct Level {
    pub(super) thief: cops::Stepped,
    pub(super) win: cops::Stepped,
    pub(super) loss: cops::Stepped,
}

impl Level {
    /// States decided at the level.
    pub(super) fn decided(&self) -> u64 {
        self.thief.decided + self.win.decided + self.loss.decided
    }

    /// Rows changed at the level: none ends the solve.
    pub(super) fn rows(&self) -> u64 {
        self.thief.rows + self.win.rows + self.loss.rows
    }

    /// The least cops-to-move state decided at the level (`rank * n +
    /// thief`).
    pub(super) fn first(&self) -> Option<u64> {
        [self.win.first, self.loss.first]
            .into_iter()
            .flatten()
            .min()
    }
}

impl Engine<'_> {
    /// The loop's arrays around the attractors `sets` (`cw, cl, tl, tw`),
    /// the next level's thief rows `next` and the distances: the change
    /// flags and masks, sized for every rank.
    pub(super) fn rows(
        &self,
        sets: [Words<u64>; 4],
        next: [Words<u64>; 2],
        dte: Option<Words<u16>>,
    ) -> Rows {
        let (ranks, two) = (self.ranks, self.thief_can_win);
        let flags = |on: bool| vec![0u8; if on { ranks } else { 0 }];
        let masks = |on: bool| vec![0u64; if on { ranks } else { 0 }];
        let exact = self.group == 1 && self.arena.speeds().1 == 1 && !self.plain;
        let gains = |on: bool| vec![[0u64; 2]; if on && exact { ranks } else { 0 }];
        let [cw, cl, tl, tw] = sets;
        let [tl2, tw2] = next;
        Rows {
            cw,
            cl,
            tl,
            tw,
            tl2,
            tw2,
            dte,
            cw_changed: masks(true),
            cl_changed: masks(two),
            cw_gains: gains(true),
            cl_gains: gains(two),
            tl_changed: flags(true),
            tw_changed: flags(two),
            tl_next: flags(true),
            tw_next: flags(two),
        }
    }

    /// Level `level` to `level + 1` on the band's rows: the thief's step
    /// into the next rows, the cops' EXISTS and FORALL in place, then
    /// `before_commit` (which sees the next thief rows beside the old
    /// ones: a partitioned solve's message), then the commit of the
    /// thief's rows. `all`: read every row (the first level after level 0
    /// or a resume), not only those whose sources changed.
    pub(super) fn step<T>(
        &self,
        rows: &mut Rows,
        all: bool,
        level: u32,
        before_commit: impl FnOnce(&Rows) -> T,
    ) -> (Level, T) {
        let d16 = u16::try_from(level + 1).unwrap_or(u16::MAX - 1);
        let Rows {
            cw,
            cl,
            tl,
            tw,
            tl2,
            tw2,
            dte,
            cw_changed,
            cl_changed,
            cw_gains,
            cl_gains,
            tl_changed,
            tw_changed,
            tl_next,
            tw_next,
        } = rows;
        let cops_changed = (!all).then_some([
            (&cw_changed[..], &cw_gains[..]),
            (&cl_changed[..], &cl_gains[..]),
        ]);
        let thief = self.thief_step(
            [&cw[..], &cl[..]],
            cops_changed,
            [&tl[..], &tw[..]],
            [&mut tl2[..], &mut tw2[..]],
            [&mut tl_next[..], &mut tw_next[..]],
            dte.as_deref_mut(),
            d16,
        );
        let win = self.cop_step(
            Op::Exists,
            &tl[..],
            (!all).then_some(&tl_changed[..]),
            &mut cw[..],
            cw_changed,
            cw_gains,
            dte.as_deref_mut(),
            d16,
        );
        let loss = if self.thief_can_win {
            self.cop_step(
                Op::ForAll,
                &tw[..],
                (!all).then_some(&tw_changed[..]),
                &mut cl[..],
                cl_changed,
                cl_gains,
                dte.as_deref_mut(),
                d16,
            )
        } else {
            cops::Stepped::default()
        };
        let made = before_commit(rows);
        let words = self.words;
        commit(
            &mut rows.tl,
            &rows.tl2,
            &rows.tl_next,
            words,
            self.paging.as_ref(),
        );
        commit(
            &mut rows.tw,
            &rows.tw2,
            &rows.tw_next,
            words,
            self.paging.as_ref(),
        );
        std::mem::swap(&mut rows.tl_changed, &mut rows.tl_next);
        std::mem::swap(&mut rows.tw_changed, &mut rows.tw_next);
        (Level { thief, win, loss }, made)
    }
}
