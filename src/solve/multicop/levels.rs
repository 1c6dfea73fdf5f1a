//! What the k-cop engine's level loop needs beyond its kernels: where its
//! arrays go and which checkpoints it keeps ([`KcopRun`]), the snapshot
//! it hands the sink between levels, and the state it resumes from.

use super::solution::KSolution;
use super::store::{KcopStorage, Words};
use crate::error::{Error, Result};
use crate::snapshot::{Due, Sink};
use crate::solve::common::{Flow, Observer, Progress};
use crate::solve::kcop_checkpoint::{MulticopCheckpoint, MulticopSnapshot};

/// How a k-cop solve runs beyond its game options: its storage, the sink
/// of its checkpoints, and a checkpoint to resume from.
#[derive(Clone, Default)]
pub struct KcopRun<'a> {
    /// Memory cap and scratch folder.
    pub storage: KcopStorage,
    /// Receives snapshots between levels (`None`: no checkpoints).
    pub sink: Option<&'a dyn Sink>,
    /// Resume from this checkpoint instead of level 0.
    pub resume: Option<&'a MulticopCheckpoint>,
    /// Told the level and the states decided after level 0 (or the level
    /// resumed from) and after each level; [`Flow::Stop`] ends the solve
    /// there with [`Error::Stopped`], after a snapshot to `sink` when there
    /// is one.
    pub observer: Option<&'a (dyn Fn(&Progress) -> Flow + Sync)>,
}

/// Reports levels to a [`KcopRun::observer`] with the states decided so
/// far, which the steps count as they decide them.
pub(super) struct Reporting<'a> {
    observer: Option<Observer<'a>>,
    states: u64,
    decided: u64,
    /// States decided at each level reported (level 0 or the level
    /// resumed from first).
    pub(super) per_level: Vec<u64>,
}

impl<'a> Reporting<'a> {
    pub(super) fn new(with: &KcopRun<'a>, states: u64) -> Reporting<'a> {
        Reporting::observing(with.observer, states)
    }

    /// Reports to `observer`, of a solve of `states` states.
    pub(super) fn observing(observer: Option<Observer<'a>>, states: u64) -> Reporting<'a> {
        Reporting {
            observer,
            states,
            decided: 0,
            per_level: Vec::new(),
        }
    }

    /// After a partitioned resume: the states decided so far, `decided`,
    /// and at each level, `per_level`, as the snapshot holds them.
    #[cfg(feature = "distributed")]
    pub(super) fn resumed(&mut self, decided: u64, per_level: Vec<u64>) {
        self.decided = decided;
        self.per_level = per_level;
    }

    /// The states decided so far.
    #[cfg(feature = "distributed")]
    pub(super) fn decided(&self) -> u64 {
        self.decided
    }

    /// After a resume at `level`: the states the restored attractors hold;
    /// the observer's answer.
    pub(super) fn restored(&mut self, level: u32, sets: [&[u64]; 4]) -> Flow {
        use rayon::prelude::*;
        let ones = |v: &[u64]| -> u64 {
            v.par_chunks(1 << 14)
                .map(|c| c.iter().map(|w| u64::from(w.count_ones())).sum::<u64>())
                .sum()
        };
        let decided = sets.iter().map(|s| ones(s)).sum();
        self.level(level, decided)
    }

    /// After `level`, which decided `new` states: the observer's answer
    /// ([`Flow::Continue`] without one).
    pub(super) fn level(&mut self, level: u32, new: u64) -> Flow {
        self.decided += new;
        self.per_level.push(new);
        self.observer.map_or(Flow::Continue, |observe| {
            observe(&Progress {
                level,
                sweeping: false,
                decided_in_level: new,
                decided: self.decided,
                states: self.states,
            })
        })
    }
}

/// Loads the state after a checkpoint's level into the engine's sets,
/// distance table and solution; returns the level. `shape` is the
/// solve's cells, cops and words a row, which the checkpoint must match.
pub(super) fn restore(
    from: &MulticopCheckpoint,
    shape: [u64; 3],
    sets: [&mut Words<u64>; 4],
    dte: &mut Option<Words<u16>>,
    sol: &mut KSolution,
) -> Result<u32> {
    if from.shape != shape {
        let [n, k, _] = from.shape;
        return Err(from.misfit(format!(
            "made for {k} cops on {n} cells, this solve has {} on {}",
            shape[1], shape[0]
        )));
    }
    for (i, set) in sets.into_iter().enumerate() {
        from.read_set(i, set)?;
    }
    from.read_dte(dte.as_deref_mut())?;
    sol.start_dte = from.start_dte;
    sol.placement = from.placement.clone();
    Ok(from.level)
}

/// Between levels, after `level`: on the observer's [`Flow::Stop`] hands
/// the sink (if any) a snapshot and ends with [`Error::Stopped`]; else,
/// when `poll`, asks the sink whether a snapshot is due and hands it one,
/// [`Error::Stopped`] when it asked to stop.
#[allow(clippy::too_many_arguments)]
pub(super) fn between(
    sink: Option<&dyn Sink>,
    flow: Flow,
    poll: bool,
    level: u32,
    shape: [u64; 3],
    sets: [&[u64]; 4],
    dte: Option<&[u16]>,
    sol: &KSolution,
) -> Result<()> {
    let due = match (flow, sink) {
        (Flow::Stop, _) => Due::SaveAndStop,
        (Flow::Continue, Some(sink)) if poll => sink.poll(level),
        (Flow::Continue, _) => Due::No,
    };
    if due == Due::No {
        return Ok(());
    }
    let Some(sink) = sink else {
        return Err(Error::Stopped { level });
    };
    sink.save(&MulticopSnapshot {
        level,
        start_dte: sol.start_dte,
        placement: sol.placement.as_ref().map(|(c, l)| (c.as_slice(), *l)),
        shape,
        sets,
        dte,
    })?;
    if due == Due::SaveAndStop {
        return Err(Error::Stopped { level });
    }
    Ok(())
}
