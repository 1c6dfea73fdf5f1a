//! Storage planning: the one place that decides whether a solve fits, where
//! its arrays live (memory or scratch files) and how much of them stays
//! resident, before anything is allocated.
//!
//! Every caller asks [`plan_storage`]: the command line (`solve`, `batch`,
//! `graph`, `bench`) and the explicit engine itself, so the formulas (the
//! per-state arrays of [`estimate`], the explicit graph and its build
//! scratch, the out-of-core window) exist once.

use std::path::PathBuf;
use std::sync::atomic::AtomicU8;

use super::engine::Engine;
use super::kernel::Kernel;
use super::options::SolveOptions;
use super::{bitboard, multicop};
use crate::csr::{bucket_scratch_bytes, count_edges, graph_bytes};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::storage::cells::Cells;
use crate::storage::frontier::STATES_PER_SUMMARY_WORD;
use crate::storage::{available_memory, free_disk, Backing};

/// Fraction of the memory cap (in quarters) that out of core goes to the
/// window of states worked on at a time; the rest covers the predecessor
/// radius of pages kept on each side of it.
pub(super) const WINDOW_QUARTERS: u64 = 3;

/// Bytes a solve will use, by array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Packed label + counter array.
    pub cells: u64,
    /// The working arrays besides the per-state ones: the counter
    /// engines' two frontier bitmaps with their summaries, or the bitboard
    /// engine's staging rows, halo rows and per-cell bookkeeping (which
    /// grow with the threads: one band of rows each).
    pub frontiers: u64,
    /// The distance table, if requested.
    pub dte: u64,
    /// The stored graph of the explicit engine (0 for the others).
    pub graph: u64,
}

impl Estimate {
    /// Sum of all arrays.
    #[must_use]
    pub fn total(&self) -> u64 {
        // Saturating: near 2^64 states the sum wrapped to a small need.
        self.cells
            .saturating_add(self.frontiers)
            .saturating_add(self.dte)
            .saturating_add(self.graph)
    }
}

/// Sizes the arrays `solve` would allocate for `game` with `options`.
/// For [`Engine::Explicit`] this includes the stored graph, whose edge
/// count takes one parallel pass over the game's move counts.
#[must_use]
pub fn estimate(game: &impl Game, options: &SolveOptions<'_>) -> Estimate {
    estimate_for(game, Kernel::choose(game, options.engine), options)
}

/// [`estimate`] of the kernel chosen for `game`.
fn estimate_for(game: &impl Game, kernel: Kernel<'_>, options: &SolveOptions<'_>) -> Estimate {
    let n = game.state_count();
    let dte = if options.dte_table {
        n.saturating_mul(2)
    } else {
        0
    };
    let engine = match kernel {
        Kernel::Several(kcops) => {
            let bytes = multicop::kcop_memory_for(kcops.arena(), kcops.cops() as usize, false);
            let with_table = if options.dte_table {
                multicop::kcop_memory_for(kcops.arena(), kcops.cops() as usize, true)
            } else {
                bytes
            };
            return Estimate {
                cells: bytes,
                frontiers: 0,
                dte: with_table - bytes,
                graph: 0,
            };
        }
        Kernel::Grid(grid) => {
            let layout = bitboard::Layout::new(grid);
            return Estimate {
                cells: layout.bytes(),
                frontiers: bitboard::working_bytes(&layout, options.pool_threads()),
                dte,
                graph: 0,
            };
        }
        Kernel::Explicit => Engine::Explicit,
        Kernel::Counter(engine) => engine,
    };
    let cell = if game.max_moves() <= <[AtomicU8] as Cells>::MAX_MOVES {
        1
    } else {
        4
    };
    let words = n.div_ceil(64);
    Estimate {
        cells: n.saturating_mul(cell),
        frontiers: if engine == Engine::Sweep { 8 } else { 16 } * (words + words.div_ceil(64)),
        dte: if engine.keeps_distances() { dte } else { 0 },
        // Needs the edge count: one pass over the move counts.
        graph: if engine == Engine::Explicit {
            crate::csr::explicit_estimate(game)
        } else {
            0
        },
    }
}

impl SolveOptions<'_> {
    /// Applies a [`StoragePlan`] from [`plan_storage`]: its backing and
    /// memory cap, and (explicit engine) the fit it already checked.
    #[must_use]
    pub fn with_plan(mut self, plan: &StoragePlan) -> Self {
        self.backing = plan.backing.clone();
        self.memory_limit = Some(plan.memory_limit);
        self.planned_edges = plan.edges;
        self
    }
}

/// What a caller allows a solve: a memory cap, scratch files, and memory it
/// already holds.
#[derive(Clone, Debug, Default)]
pub struct StorageLimits {
    /// Cap on the bytes the solve may keep resident; `None` means what the
    /// system has available ([`available_memory`]).
    pub memory: Option<u64>,
    /// A folder for scratch files. Without a `memory` cap the arrays always
    /// go there; with one, only when they do not fit under it.
    pub scratch: Option<PathBuf>,
    /// With no `scratch` folder, arrays that do not fit under the cap go to
    /// the temporary folder instead of being refused.
    pub spill_to_temp: bool,
    /// Bytes the caller already holds that count against the cap (a loaded
    /// graph, for example).
    pub held: u64,
}

impl StorageLimits {
    /// The bytes a solve may keep resident: the cap (or what the system
    /// has available) less what the caller holds.
    fn room(&self) -> u64 {
        self.memory
            .unwrap_or_else(available_memory)
            .saturating_sub(self.held)
    }
}

/// Where a solve's arrays live and what it will use, decided by
/// [`plan_storage`]; apply it with [`SolveOptions::with_plan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoragePlan {
    /// Memory or scratch files.
    pub backing: Backing,
    /// The cap the solve keeps to, in bytes (after what the caller holds).
    pub memory_limit: u64,
    /// Bytes of every array the solve allocates, by array (the explicit
    /// engine's graph included when it is built in memory).
    pub estimate: Estimate,
    /// Bytes of those arrays resident at most: all of them in memory; out
    /// of core, the window of states worked on plus a predecessor radius of
    /// pages on each side of it (without the process's own code and heap).
    pub resident: u64,
    /// The explicit engine's edge count, counted once here.
    pub(super) edges: Option<u64>,
    /// The bitboard engine out of core: levels per pass over its files and
    /// the bytes a pass reads and writes at most (`None` otherwise).
    pub passes: Option<Passes>,
}

/// How an out-of-core bitboard solve goes over its scratch files: several
/// levels per pass (temporal blocking), each pass reading the files once
/// and writing back what changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Passes {
    /// Levels done per pass over the files.
    pub levels_per_pass: u32,
    /// Bytes of the files (bitsets and distances): a pass reads each at
    /// most once and writes each at most once, so a solve of `levels`
    /// levels moves at most `levels.div_ceil(levels_per_pass)` times this
    /// each way.
    pub bytes_per_pass: u64,
}

/// Plans the storage of solving `game` with `options` under `limits`:
/// memory when the arrays fit, else scratch files (when allowed and the
/// disk has room), else a refusal that says how many bytes are needed.
///
/// Out of core the resident set is about three quarters of the cap (the
/// window) plus a predecessor radius of pages on each side, so a cap below
/// eight radii of arrays cannot be kept to and is refused with that
/// minimum; a game without a radius keeps its whole arrays resident and
/// needs a cap that holds them. The bitboard engine on a grid map out of
/// core does several levels per pass over its files, as many as the cap
/// holds ([`Passes`]), by the engine's own plan: its resident figure is
/// two grid rows and a row of staging per level, one more grid row, the
/// engine's bookkeeping and a kernel allowance; a cap below one level of
/// those is refused with that minimum. The explicit engine in memory needs its graph plus the
/// larger of its build scratch and the solve arrays.
///
/// # Errors
/// [`Error::TooLarge`] (memory, disk, or a cap below the minimum) and
/// [`Error::Io`] when the scratch folder's free space cannot be read.
///
/// # Example
/// ```
/// use retrograde::{parse_map, plan_storage, Backing, CopsGame, Engine, Placement, Rules, SolveOptions, StorageLimits, Speeds};
/// let map = parse_map(b"3 4\nC..E\n.**.\n...T\n", "example.txt").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let options = SolveOptions::new(Engine::Sequential);
/// let limits = StorageLimits { memory: Some(1 << 20), ..StorageLimits::default() };
/// let plan = plan_storage(&game, &options, &limits).unwrap();
/// assert_eq!(plan.backing, Backing::Memory);
/// assert_eq!(plan.resident, plan.estimate.total());
/// let tiny = StorageLimits { memory: Some(16), ..StorageLimits::default() };
/// assert!(plan_storage(&game, &options, &tiny).is_err());
/// ```
pub fn plan_storage(
    game: &impl Game,
    options: &SolveOptions<'_>,
    limits: &StorageLimits,
) -> Result<StoragePlan> {
    let kernel = Kernel::choose(game, options.engine);
    options.check(kernel)?;
    if let Kernel::Several(kcops) = kernel {
        return plan_multicop(kcops, options, limits);
    }
    let explicit = matches!(kernel, Kernel::Explicit);
    // The per-state arrays are the same for every engine but the sweep's;
    // the explicit engine's graph is sized below, only when it is needed.
    let arrays_kernel = if explicit {
        Kernel::Counter(Engine::Sequential)
    } else {
        kernel
    };
    let mut sized = estimate_for(game, arrays_kernel, options);
    let arrays = sized.total();
    // The bitboard engine's working arrays stay in memory whatever backs
    // its bitsets (out of core its own plan sizes them): not in files.
    let bitboard = matches!(kernel, Kernel::Grid(_));
    let files = arrays - if bitboard { sized.frontiers } else { 0 };
    let room = limits.room();
    let backing = match &limits.scratch {
        // A scratch folder alone is a request for files; with a cap, files
        // only when the arrays do not fit under it.
        Some(dir) if limits.memory.is_none() || arrays > room => {
            let what = format!("the scratch files under {}", dir.display());
            crate::storage::disk_room(dir, files, what)?;
            Backing::Scratch(dir.clone())
        }
        // Too big for memory and no folder given: out of core in the
        // temporary folder rather than give up, when its disk has room.
        // The explicit engine keeps its graph resident whatever backs it:
        // files would not keep it under the cap, so it is sized below.
        None if arrays > room && limits.spill_to_temp && !explicit => {
            let dir = std::env::temp_dir();
            let free = free_disk(&dir).unwrap_or(0);
            if files > free {
                return Err(Error::TooLarge {
                    what: "this solve (state arrays and frontiers)".into(),
                    needed: arrays,
                    available: room,
                    hint: format!(
                        "the temporary folder {} has only {free} bytes free: give --scratch DIR on a disk with room",
                        dir.display()
                    ),
                });
            }
            Backing::Scratch(dir)
        }
        None if arrays > room && !explicit => {
            return Err(Error::TooLarge {
                what: "this solve (state arrays and frontiers)".into(),
                needed: arrays,
                available: room,
                hint: "give it scratch files (Backing::Scratch) or more memory".into(),
            })
        }
        _ => Backing::Memory,
    };
    let mut edges = None;
    let mut passes = None;
    let resident = match &backing {
        // In files or in memory, the explicit engine touches its whole
        // graph and arrays every level: all of it must fit under the cap.
        _ if explicit => {
            let states = game.state_count();
            // The state arrays alone past the cap: refused before the pass
            // over every state's moves that counts the edges (minutes on
            // 1e10 states; issue 33, item 14).
            if arrays > room {
                return Err(Error::TooLarge {
                    what: format!(
                        "the explicit graph's state arrays alone ({states} states, its edges not counted)"
                    ),
                    needed: arrays,
                    available: room,
                    hint: "solve on the fly instead (engine sequential or parallel), which \
                           stores no edges"
                        .to_string(),
                });
            }
            let counted = count_edges(game);
            let graph = graph_bytes(states, counted);
            // The build's scratch is freed before the solve arrays exist.
            let transient = arrays.max(bucket_scratch_bytes(counted));
            let needed = graph.saturating_add(transient);
            if needed > room {
                return Err(Error::TooLarge {
                    what: format!(
                        "the explicit graph ({states} states, {counted} edges: {graph} bytes) \
                         plus the build scratch or solve arrays ({transient} bytes)"
                    ),
                    needed,
                    available: room,
                    hint: "solve on the fly instead (engine sequential or parallel), which \
                           stores no edges"
                        .to_string(),
                });
            }
            edges = Some(counted);
            sized.graph = graph;
            needed
        }
        Backing::Memory => arrays,
        Backing::Scratch(_) => {
            let (resident, minimum, what) = match kernel {
                Kernel::Grid(grid) => {
                    let (resident, minimum, bitboard_passes) =
                        bitboard_out_of_core(grid, options, room);
                    passes = bitboard_passes;
                    (
                        resident,
                        minimum,
                        "an out-of-core bitboard solve (one level's grid rows and staging \
                         rows with the engine's bookkeeping, kept resident)",
                    )
                }
                _ => {
                    let (resident, minimum) = out_of_core(game, arrays, room);
                    (
                        resident,
                        minimum,
                        "an out-of-core solve (a window of states plus a predecessor \
                         radius of pages on each side, kept resident)",
                    )
                }
            };
            if room < minimum {
                return Err(Error::TooLarge {
                    what: what.to_string(),
                    needed: minimum,
                    available: room,
                    hint: crate::error::cap_hint_holding(minimum, limits.held),
                });
            }
            resident
        }
    };
    if bitboard && matches!(backing, Backing::Scratch(_)) {
        // The estimate then names what goes to files; the working arrays
        // are in `resident`.
        sized.frontiers = 0;
    }
    Ok(StoragePlan {
        backing,
        memory_limit: room,
        estimate: sized,
        resident,
        edges,
        passes,
    })
}

/// Refuses, before its arena is built, a game of `cops` cops on `cells`
/// cells (a map's free cells or a graph's vertices) whose arrays cannot be
/// placed under `limits` even at their fewest (three bitsets of its
/// states, where the thief can win nowhere): more than the memory cap and
/// the free disk of the folder its scratch files would go to together.
/// [`plan_storage`] refuses such a game too, but only once it is built,
/// and an edge list naming one large vertex id builds a large arena for
/// nothing. A game that passes may still be refused by `plan_storage`.
///
/// ```
/// use retrograde::{check_cops_size, StorageLimits};
/// let small = StorageLimits { memory: Some(1 << 30), ..StorageLimits::default() };
/// assert!(check_cops_size(100, 2, &small).is_ok());
/// assert!(check_cops_size(16_777_216, 1, &small).is_err());
/// ```
pub fn check_cops_size(cells: u32, cops: u32, limits: &StorageLimits) -> Result<()> {
    let least = super::multicop::kcop_memory_least(cells as usize, cops as usize);
    let room = limits.room();
    let dir = match &limits.scratch {
        Some(dir) => Some(dir.clone()),
        None => limits.spill_to_temp.then(std::env::temp_dir),
    };
    let disk = dir.as_deref().map_or(0, |d| free_disk(d).unwrap_or(0));
    if least <= room.saturating_add(disk) {
        return Ok(());
    }
    let s = if cops == 1 { "" } else { "s" };
    Err(Error::TooLarge {
        what: format!("{cops} cop{s} on {cells} cells (bitboard engine), at the fewest arrays"),
        needed: least,
        available: room.saturating_add(disk),
        hint: match dir {
            Some(d) => format!(
                "the memory cap and the free disk under {} together are less: a smaller game, more memory or a larger disk",
                d.display()
            ),
            None => "raise --memory, or give --scratch DIR on a disk with room".into(),
        },
    })
}

/// [`plan_storage`] for the several-cops kernel: its arrays (the
/// attractor bitsets, the thief's rows of the next level, the distance
/// table) in memory when they fit the cap, else the largest of them in
/// scratch files until the rest fits (under `limits.scratch`, or, as the
/// one-cop solve does, the temporary folder when `limits.spill_to_temp`),
/// else a refusal with the bytes needed. A scratch folder alone asks for
/// files: every array that can go there does.
fn plan_multicop(
    game: &crate::games::kcops::KCops,
    options: &SolveOptions<'_>,
    limits: &StorageLimits,
) -> Result<StoragePlan> {
    use super::multicop::{kcop_plan, KcopStorage};
    let (arena, k, dte_table) = (game.arena(), game.cops() as usize, options.dte_table);
    let room = limits.room();
    let mut storage = KcopStorage {
        memory: Some(room),
        scratch: limits.scratch.clone(),
    };
    // Too big for memory and no folder given: scratch files in the
    // temporary folder rather than give up.
    if storage.scratch.is_none()
        && limits.spill_to_temp
        && !kcop_plan(arena, k, dte_table, &storage).fits
    {
        storage.scratch = Some(std::env::temp_dir());
    }
    if limits.scratch.is_some() && limits.memory.is_none() {
        let least = KcopStorage {
            memory: Some(0),
            ..storage.clone()
        };
        storage.memory = Some(kcop_plan(arena, k, dte_table, &least).in_memory().min(room));
    }
    let plan = kcop_plan(arena, k, dte_table, &storage);
    let what = format!(
        "{k} cop{} on {} cells (bitboard engine)",
        if k == 1 { "" } else { "s" },
        arena.cells()
    );
    if !plan.fits {
        let (needed, hint) = if storage.scratch.is_some() {
            (
                plan.in_memory(),
                "raise --memory: the arrays that cannot go to scratch files exceed it",
            )
        } else {
            (
                plan.needed,
                "raise --memory, or give --scratch DIR to keep the largest arrays in files",
            )
        };
        return Err(Error::TooLarge {
            what: format!("{what}, in memory"),
            needed,
            available: room,
            hint: hint.into(),
        });
    }
    let backing = match storage.scratch.filter(|_| plan.scratch > 0) {
        Some(dir) => {
            let free = free_disk(&dir)?;
            if plan.scratch > free {
                return Err(Error::TooLarge {
                    what: format!("{what}, scratch files in {}", dir.display()),
                    needed: plan.scratch,
                    available: free,
                    hint: "free disk space, or give --scratch another folder".into(),
                });
            }
            // Mapped scratch files take address space as memory does: under
            // an address-space limit (`ulimit -v`) they do not make room.
            let space = crate::storage::address_space_left();
            if plan.needed > space {
                return Err(Error::TooLarge {
                    what: format!("{what}, in memory and mapped scratch files"),
                    needed: plan.needed,
                    available: space,
                    hint: "raise the address-space limit (ulimit -v): mapped scratch files count against it".into(),
                });
            }
            Backing::Scratch(dir)
        }
        None => Backing::Memory,
    };
    Ok(StoragePlan {
        backing,
        memory_limit: storage.memory.unwrap_or(room),
        estimate: estimate_for(game, Kernel::Several(game), options),
        resident: plan.in_memory(),
        edges: None,
        passes: None,
    })
}

/// The bitboard engine out of core under a cap of `room` bytes: its
/// resident bytes, the smallest cap it can keep to and its passes, from
/// the engine's own plan (`solve/bitboard/blocking.rs`).
fn bitboard_out_of_core(
    game: &crate::games::cops::CopsAndThief,
    options: &SolveOptions<'_>,
    room: u64,
) -> (u64, u64, Option<Passes>) {
    let layout = super::bitboard::Layout::new(game);
    match super::bitboard::blocking(&layout, options.dte_table, options.pool_threads(), room) {
        // The records fit: the engine runs as in memory, on the mapped
        // files.
        Ok(plan) if plan.whole => {
            let arrays = estimate_for(game, Kernel::Grid(game), options).total();
            (arrays.max(plan.resident), plan.minimum, None)
        }
        Ok(plan) => (
            plan.resident,
            plan.minimum,
            Some(Passes {
                levels_per_pass: plan.levels as u32,
                bytes_per_pass: plan.pass_bytes,
            }),
        ),
        Err(minimum) => (minimum, minimum, None),
    }
}

/// Out of core under a cap of `room` bytes: the resident bytes of arrays
/// totalling `arrays`, and the smallest cap that keeps them under itself.
fn out_of_core(game: &impl Game, arrays: u64, room: u64) -> (u64, u64) {
    out_of_core_states(game.state_count(), game.predecessor_radius(), arrays, room)
}

/// [`out_of_core`] for `n` states of arrays totalling `arrays` bytes whose
/// predecessors lie within `radius` states (a partitioned solve's band).
pub(crate) fn out_of_core_states(
    n: u64,
    radius: Option<u64>,
    arrays: u64,
    room: u64,
) -> (u64, u64) {
    let n = n.max(1);
    let Some(radius) = radius.filter(|&r| r < n) else {
        // No locality: nothing can be released while a level runs.
        return (arrays, arrays);
    };
    let bytes_of = |states: u64| -> u64 {
        (u128::from(states) * u128::from(arrays)).div_ceil(u128::from(n)) as u64
    };
    // Stripes are whole summary words, at least one radius long.
    let stripe = bytes_of(radius.div_ceil(STATES_PER_SUMMARY_WORD) * STATES_PER_SUMMARY_WORD);
    let radius = bytes_of(radius);
    let window = room / 4 * WINDOW_QUARTERS;
    let resident = arrays.min(window.max(stripe) + 2 * radius);
    // window + 2 radii <= cap needs a cap of 8 radii (a window of one
    // stripe at least).
    let minimum = (stripe.max(radius) + 2 * radius)
        .max(8 * radius)
        .min(arrays);
    (resident, minimum)
}
