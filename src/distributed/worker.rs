//! One worker of a partitioned solve: its band's propagation, one timely
//! round per level (see the module docs of `distributed`).

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::InputHandle;
use timely::worker::Worker;

use super::checkpoint::{BandSink, BandSnapshot, Progress as Saved};
use super::{Observer, ProcessStat, Summary};
use crate::game::{Game, Initial};
use crate::outcome::{Dte, Outcome};
use crate::snapshot::Due;
use crate::solve::{Counts, Progress};
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Atomic, Region};

/// A message: destination worker, kind, words. Plain tuples of integers
/// are all timely needs to ship it (serde is implemented for them).
type Packet = (u32, u32, Vec<u64>);

/// A level's batch: the sender's frontier size, then crossing states.
const ROUND: u32 = 0;
/// The end: the sender's counts and statistics, to worker 0.
const SUMMARY: u32 = 1;

/// Set on a crossing state that is a LOSS (its predecessors become WIN);
/// clear for a WIN (its predecessors lose a move).
const LOSS_FLAG: u64 = 1 << 63;

/// Set on the frontier-size word that worker 0 sends every other worker
/// when all bands snapshot after this level (frontier sizes stay far
/// below 2^63, so the bytes exchanged are those of a solve without
/// checkpoints).
const SNAPSHOT_FLAG: u64 = 1 << 63;

/// Bytes of a packet of `words` words as bincode encodes it: u32, u32,
/// the vector's u64 length, then the words.
fn packet_bytes(words: usize) -> u64 {
    16 + 8 * words as u64
}

/// Packets received, as (round, words, kind), until the worker takes them.
type Inbox = Rc<RefCell<Vec<(u64, Vec<u64>, u32)>>>;

/// One worker's arrays, allocated before the cluster connects.
pub(super) struct Arrays {
    pub(super) cells: Region,
    pub(super) frontiers: [Frontier; 2],
    pub(super) dte: Option<Region>,
    /// Where the loop continues when resuming (the arrays then hold the
    /// snapshot's band).
    pub(super) resumed: Option<Saved>,
}

/// A state cell of a band: one byte (at most 63 moves a state) or, for
/// games with more moves (several cops), four.
pub(super) trait Cell: Atomic + 'static
where
    [Self]: Cells,
{
    /// The cells as bytes, for a band snapshot (which keeps one byte a
    /// state); `None` for wide cells, whose solves take no checkpoints.
    fn bytes(cells: &[Self]) -> Option<&[AtomicU8]>;
}

impl Cell for AtomicU8 {
    fn bytes(cells: &[Self]) -> Option<&[AtomicU8]> {
        Some(cells)
    }
}

impl Cell for AtomicU32 {
    fn bytes(_: &[Self]) -> Option<&[AtomicU8]> {
        None
    }
}

/// What every worker of a process shares.
pub(super) struct Plan<G> {
    pub(super) game: Arc<G>,
    /// Four-byte cells (the game has more than 63 moves a state).
    pub(super) wide: bool,
    pub(super) bounds: Vec<u64>,
    pub(super) workers_per_process: usize,
    pub(super) track: Option<u64>,
    pub(super) observer: Option<Observer>,
    pub(super) process_stat: Option<ProcessStat>,
    /// Where bands save snapshots, when checkpointing.
    pub(super) sink: Option<Arc<dyn BandSink>>,
    /// Bytes of a band's arrays to work on before dropping the pages
    /// behind them (bands in scratch files); `None` in memory.
    pub(super) window: Option<u64>,
    /// Each worker takes its own, by index within the process.
    pub(super) arrays: Mutex<Vec<Option<Arrays>>>,
}

/// What a worker hands back.
pub(super) struct Done {
    pub(super) range: Range<u64>,
    pub(super) cells: Region,
    pub(super) dte: Option<Region>,
    pub(super) summary: Option<Summary>,
    /// Levels of the whole solve (every worker ends at the same one).
    pub(super) levels: u32,
}

/// A band's state and the updates that land in it.
struct Owned<'a, G, C> {
    game: &'a G,
    range: Range<u64>,
    cells: &'a [C],
    dte: Option<&'a [AtomicU16]>,
}

impl<G: Game, C: Cell> Owned<'_, G, C>
where
    [C]: Cells,
{
    /// Applies the update of a LOSS (`loss`) or WIN successor to owned
    /// state `u`; true when it decided `u` (it then joins `next`).
    #[inline]
    fn update(&self, u: u64, loss: bool, next: &Frontier, dte: u16) -> bool {
        let i = (u - self.range.start) as usize;
        let now = if loss {
            self.cells.try_win::<false>(i)
        } else {
            self.cells.try_refute::<false>(i)
        };
        if now {
            next.insert::<false>(i as u64);
            if let Some(table) = self.dte {
                table[i].store(dte, Relaxed);
            }
        }
        now
    }

    /// Applies the updates of a crossing state `s` decided in another band
    /// to the predecessors this band owns; returns how many it decided.
    fn apply_remote(&self, s: u64, loss: bool, next: &Frontier, dte: u16) -> u64 {
        let mut decided = 0;
        self.game.for_each_predecessor(s, |u| {
            if self.range.contains(&u) && self.update(u, loss, next, dte) {
                decided += 1;
            }
        });
        decided
    }
}

/// Runs worker `w`'s share of the solve, with the plan's width of cells.
pub(super) fn run<G: Game>(w: &mut Worker, plan: &Plan<G>) -> Done {
    if plan.wide {
        run_cells::<G, AtomicU32>(w, plan)
    } else {
        run_cells::<G, AtomicU8>(w, plan)
    }
}

/// Runs worker `w`'s share of the solve with cells of type `C`.
fn run_cells<G: Game, C: Cell>(w: &mut Worker, plan: &Plan<G>) -> Done
where
    [C]: Cells,
{
    let me = w.index();
    let peers = w.peers();
    let local = me % plan.workers_per_process;
    let process_of = |worker: usize| worker / plan.workers_per_process;
    let arrays = plan.arrays.lock().expect("arrays lock")[local]
        .take()
        .expect("one worker per band");
    let range = plan.bounds[me]..plan.bounds[me + 1];
    let game = &*plan.game;
    let owned = Owned {
        game,
        range: range.clone(),
        cells: arrays.cells.atomics::<C>(),
        dte: arrays.dte.as_ref().map(|r| r.atomics::<AtomicU16>()),
    };
    // Which worker owns state `u` (outside this band).
    let owner = |u: u64| plan.bounds.partition_point(|&b| b <= u) - 1;

    // The dataflow: packets go to their destination worker and are kept,
    // with their round, until the worker takes them.
    let inbox: Inbox = Rc::default();
    let mut input: InputHandle<u64, CapacityContainerBuilder<Vec<Packet>>> = InputHandle::new();
    let probe = {
        let inbox = Rc::clone(&inbox);
        w.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|p: &Packet| u64::from(p.0)),
                    "deliver",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|time, data| {
                                let round = *time.least().expect("a round");
                                let mut inbox = inbox.borrow_mut();
                                for (_, kind, words) in data.drain(..) {
                                    inbox.push((round, words, kind));
                                }
                            });
                        }
                    },
                )
                .probe()
                .0
        })
    };

    let [mut cur, mut next] = arrays.frontiers;
    // Out of core: drop the pages behind the drain every `window` states
    // (a predecessor radius behind the state drained, the only ones a
    // later state of the level can update locally), and the whole band's
    // after each level, so resident memory stays near the window.
    let len = range.end - range.start;
    let radius = game.predecessor_radius().unwrap_or(len);
    let window = plan.window.map(|bytes| {
        let per_band = super::band_bytes(len, owned.dte.is_some(), plan.wide).max(1);
        (u128::from(bytes) * u128::from(len) / u128::from(per_band)).max(4096) as u64
    });
    let release = |cur: &Frontier, next: &Frontier, states: Range<u64>| {
        arrays
            .cells
            .release(states.clone(), std::mem::size_of::<C>() as u64);
        if let Some(table) = &arrays.dte {
            table.release(states.clone(), 2);
        }
        cur.release(states.clone());
        next.release(states);
    };
    let resumed = arrays.resumed;
    let fresh = resumed.is_none();
    let resumed = resumed.unwrap_or_default();
    let mut in_level = resumed.in_level;
    if fresh {
        // Level 0: the decided states of the band.
        game.for_each_initial(range.clone(), |s, initial| {
            let i = s - range.start;
            owned.cells.init(i as usize, initial);
            if let Initial::Decided(_) = initial {
                cur.insert::<false>(i);
                in_level += 1;
            }
        });
    }
    let mut level = resumed.level;
    let mut decided_total = resumed.decided_total;
    let mut tracked: Option<Dte> = resumed.tracked.map(Dte);
    let mut bytes_per_level = resumed.bytes_per_level;
    let mut decided_per_level = resumed.decided_per_level;
    let mut network_bytes = resumed.network_bytes;
    // Rounds before the resumed level are over: stamp packets with it.
    input.advance_to(u64::from(level));
    // The level of the last snapshot saved here, until its round shows
    // that every band has saved it too.
    let mut unconfirmed: Option<u32> = None;
    let mut outbox: Vec<Vec<u64>> = vec![Vec::new(); peers];
    let track = plan.track.filter(|t| range.contains(t));
    loop {
        if let Some(t) = track {
            if tracked.is_none() && owned.cells.outcome((t - range.start) as usize) != Outcome::Draw
            {
                tracked = Some(Dte(level));
            }
        }
        let dte = (level + 1).min(u32::from(u16::MAX)) as u16;
        let mut decided_next = 0u64;
        let mut released = 0u64;
        cur.drain(0..cur.summary_len(), |i| {
            if let Some(window) = window {
                if i >= released + window + radius {
                    release(&cur, &next, released..i - radius);
                    released = i - radius;
                }
            }
            let s = range.start + i;
            let loss = owned.cells.outcome(i as usize) == Outcome::Loss;
            let word = if loss { s | LOSS_FLAG } else { s };
            game.for_each_predecessor(s, |u| {
                if range.contains(&u) {
                    if owned.update(u, loss, &next, dte) {
                        decided_next += 1;
                    }
                } else {
                    // Once per crossing state and destination band.
                    let box_ = &mut outbox[owner(u)];
                    if box_.last() != Some(&word) {
                        box_.push(word);
                    }
                }
            });
        });
        // Worker 0 decides for every band whether to snapshot after this
        // level, and says so on the word every packet carries anyway.
        let mut snapshot = me == 0
            && plan
                .sink
                .as_ref()
                .is_some_and(|sink| sink.poll(level) != Due::No);
        let mut bytes = 0;
        for (dest, box_) in outbox.iter_mut().enumerate() {
            if dest == me {
                continue;
            }
            let mut words = Vec::with_capacity(box_.len() + 1);
            words.push(in_level | if snapshot { SNAPSHOT_FLAG } else { 0 });
            words.append(box_);
            let size = packet_bytes(words.len());
            bytes += size;
            if process_of(dest) != process_of(me) {
                network_bytes += size;
            }
            input.send((dest as u32, ROUND, words));
        }
        bytes_per_level.push(bytes);
        let round = u64::from(level);
        input.advance_to(round + 1);
        while probe.less_than(input.time()) {
            w.step_or_park(None);
        }
        let mut global = in_level;
        let received: Vec<(u64, Vec<u64>, u32)> = {
            let mut inbox = inbox.borrow_mut();
            let (now, later) = inbox.drain(..).partition(|(r, _, _)| *r == round);
            *inbox = later;
            now
        };
        // Every band has sent this round, so each saved the snapshot
        // before it.
        if let (Some(saved), Some(sink)) = (unconfirmed, &plan.sink) {
            if saved == level {
                sink.confirmed(local, saved);
                unconfirmed = None;
            }
        }
        for (_, words, kind) in received {
            debug_assert_eq!(kind, ROUND);
            global += words[0] & !SNAPSHOT_FLAG;
            snapshot |= words[0] & SNAPSHOT_FLAG != 0;
            for &word in &words[1..] {
                decided_next +=
                    owned.apply_remote(word & !LOSS_FLAG, word & LOSS_FLAG != 0, &next, dte);
            }
        }
        if window.is_some() {
            release(&cur, &next, 0..len);
        }
        decided_total += global;
        decided_per_level.push(global);
        if local == 0 {
            if let Some(observe) = &plan.observer {
                observe(&Progress {
                    level,
                    sweeping: false,
                    decided_in_level: global,
                    decided: decided_total,
                    states: game.state_count(),
                });
            }
        }
        if global == 0 {
            break;
        }
        in_level = decided_next;
        std::mem::swap(&mut cur, &mut next);
        level += 1;
        if let (true, Some(sink)) = (snapshot, &plan.sink) {
            let band = BandSnapshot {
                band: local,
                progress: Saved {
                    level,
                    in_level,
                    decided_total,
                    tracked: tracked.map(|d| d.0),
                    network_bytes,
                    bytes_per_level: bytes_per_level.clone(),
                    decided_per_level: decided_per_level.clone(),
                },
                range: range.clone(),
                // `solve` refuses checkpoints of wide cells.
                cells: C::bytes(owned.cells).expect("band snapshots of one-byte cells"),
                frontier: cur.words(),
                dte: owned.dte,
            };
            if let Err(e) = sink.save(&band) {
                // The peers wait for this band's next round: the panic
                // ends the process, and they see its connections close.
                panic!("saving the checkpoint of level {level}: {e}");
            }
            unconfirmed = Some(level);
        }
    }

    // Gather counts and statistics on worker 0.
    let mut counts = Counts::default();
    for i in 0..range.end - range.start {
        match owned.cells.outcome(i as usize) {
            Outcome::Win => counts.win += 1,
            Outcome::Loss => counts.loss += 1,
            Outcome::Draw => counts.draw += 1,
        }
    }
    let stat = match (&plan.process_stat, local) {
        (Some(stat), 0) => stat(),
        _ => 0,
    };
    let mut words = vec![
        counts.win,
        counts.loss,
        counts.draw,
        tracked.map_or(0, |d| u64::from(d.0) + 1),
        match track.map(|t| owned.cells.outcome((t - range.start) as usize)) {
            None => 0,
            Some(Outcome::Win) => 1,
            Some(Outcome::Loss) => 2,
            Some(Outcome::Draw) => 3,
        },
        network_bytes,
        process_of(me) as u64,
        stat,
    ];
    words.extend_from_slice(&bytes_per_level);
    input.send((0, SUMMARY, words));
    let round = u64::from(level) + 1;
    input.advance_to(round + 1);
    while probe.less_than(input.time()) {
        w.step_or_park(None);
    }
    drop(input);
    let summary = (me == 0).then(|| {
        let mut summary = Summary {
            counts: Counts::default(),
            levels: level.saturating_sub(1),
            tracked_dte: None,
            tracked_outcome: None,
            bytes_per_level: vec![0; bytes_per_level.len()],
            decided_per_level,
            network_bytes: 0,
            process_stats: vec![0; peers / plan.workers_per_process],
        };
        for (_, words, kind) in inbox.borrow().iter().filter(|(r, _, _)| *r == round) {
            debug_assert_eq!(*kind, SUMMARY);
            summary.counts.win += words[0];
            summary.counts.loss += words[1];
            summary.counts.draw += words[2];
            if words[3] > 0 {
                summary.tracked_dte = Some(Dte((words[3] - 1) as u32));
            }
            summary.tracked_outcome = match words[4] {
                1 => Some(Outcome::Win),
                2 => Some(Outcome::Loss),
                3 => Some(Outcome::Draw),
                _ => summary.tracked_outcome,
            };
            summary.network_bytes += words[5];
            let stat = &mut summary.process_stats[words[6] as usize];
            *stat = (*stat).max(words[7]);
            for (total, b) in summary.bytes_per_level.iter_mut().zip(&words[8..]) {
                *total += b;
            }
        }
        summary
    });
    Done {
        range,
        cells: arrays.cells,
        dte: arrays.dte,
        summary,
        levels: level.saturating_sub(1),
    }
}
