//! Serializable reports (here), the text printers (`text.rs`), and
//! [`OutputTarget`] (`destination.rs`): the one way every command writes a file
//! (`--dump`, `--out`, exports and any new output). Library types never
//! derive `Serialize`; the conversion happens here.

use std::path::Path;

use serde::Serialize;

mod destination;
mod text;
pub(crate) use destination::{
    defer_stop_signals, defer_stop_signals_saying, is_closed_stdout, note_input, say_when_stopped,
    stop_requested, write_atomically, Output, OutputTarget,
};
pub(crate) use text::{passes_note, print_plan, print_text, save_with, show_value, PlanReport};

/// Counts of states by value for the player to move.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct CountsJson {
    /// WIN states.
    pub(crate) win: u64,
    /// LOSS states.
    pub(crate) loss: u64,
    /// DRAW states.
    pub(crate) draw: u64,
}

impl CountsJson {
    /// The `states:` line of `solve` and `info`: every state and how they
    /// split, for the player to move.
    pub(crate) fn states_line(&self, states: u64) -> String {
        format!(
            "states: {states} (win {}, loss {}, draw {}; values for the player to move)",
            self.win, self.loss, self.draw
        )
    }
}

impl From<retrograde::Counts> for CountsJson {
    fn from(c: retrograde::Counts) -> Self {
        CountsJson {
            win: c.win,
            loss: c.loss,
            draw: c.draw,
        }
    }
}

/// The result of one solve: one cop on a map, or several cops (speeds)
/// on a map or a graph; the keys a game has no use for are left out.
#[derive(Serialize, Debug, Clone, Default)]
pub(crate) struct SolveReport {
    /// The map or graph file as given.
    pub(crate) map: String,
    /// `seed` or `movingai`; `edges` or `graph6` for a graph.
    pub(crate) format: &'static str,
    /// Map width in columns (absent on a graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) width: Option<usize>,
    /// Map height in rows (absent on a graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) height: Option<usize>,
    /// A graph's edges (absent on a map).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) edges: Option<usize>,
    /// The cops, their speeds and starts (absent for the one-cop game).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) pieces: Option<PiecesJson>,
    /// The start that was solved (absent without one), echoed so that
    /// swapped rows and columns, or `--xy` cells, show in the report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) start: Option<StartJson>,
    /// `cop-wins`, `thief-escapes`, `draw`, or null without starts.
    pub(crate) result: Option<&'static str>,
    /// The start's distance to end in plies (null for a draw or no start).
    pub(crate) dte: Option<u32>,
    /// Why a one-cop start at distance 0 is over, in words, for the text's
    /// `result:` line: a capture, an escape, or the mover without a move
    /// (the rules' three terminal cases; none of the others is true when
    /// the mover is stuck, so the text cannot tell them apart by itself).
    #[serde(skip)]
    pub(crate) over: Option<&'static str>,
    /// Free cells (a graph's vertices).
    pub(crate) cells: u64,
    /// Exit cells.
    pub(crate) exits: u64,
    /// The exit cells as [row, column], row-major (one cop only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_cells: Option<Vec<[usize; 2]>>,
    /// FNV-1a checksum of the exit cells (16 hex digits), as in batch rows
    /// (one cop only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_checksum: Option<String>,
    /// States of the game.
    pub(crate) states: u64,
    /// Counts over every state.
    pub(crate) counts: CountsJson,
    /// Propagation levels (the largest distance to end of a decided state).
    pub(crate) levels: u32,
    /// Sweeps of the sweep engine (0 for the level engines).
    pub(crate) sweeps: u32,
    /// Engine name.
    pub(crate) engine: &'static str,
    /// Worker threads.
    pub(crate) threads: usize,
    /// Wall-clock seconds for building and solving (not loading).
    pub(crate) seconds: f64,
    /// Peak resident memory of the process in bytes, if known.
    pub(crate) peak_memory_bytes: Option<u64>,
    /// The check of `solve --verify` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) verified: Option<VerifyReport>,
    /// Whole-map results over every start pair (text default; `--summary`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) summary: Option<SummaryJson>,
    /// Several cops: results over every start placement (text default;
    /// `--summary`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) placements: Option<PlacementsJson>,
    /// One result per `--scen` entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scenario: Option<Vec<ScenPair>>,
    /// The table written by `--save` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) saved: Option<SaveReport>,
}

/// The pieces of a several-cops solve (or one cop at another speed, or
/// on a graph), for its report.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct PiecesJson {
    /// Number of cops.
    pub(crate) cops: u32,
    /// Steps a cop may take per turn.
    pub(crate) cop_speed: u32,
    /// Steps the thief may take per turn.
    pub(crate) thief_speed: u32,
    /// The cops' start cells ([row, column] on maps, vertex ids on graphs;
    /// null without a start).
    pub(crate) start_cops: Option<Vec<serde_json::Value>>,
    /// The thief's start cell (null without a start).
    pub(crate) start_thief: Option<serde_json::Value>,
    /// Lazy cops (`--lazy`: one cop moves a turn); the key is left out
    /// without the flag.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) lazy: bool,
}

/// The start of a solve: every game's pieces under one key.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct StartJson {
    /// The cops' cells ([row, column] on maps, vertex ids on graphs;
    /// several in ascending order, as the state holds them).
    pub(crate) cops: Vec<serde_json::Value>,
    /// The thief's cell.
    pub(crate) thief: serde_json::Value,
    /// Who moves first: `cop` or `thief`.
    pub(crate) turn: &'static str,
}

/// What a solve found, whichever engine ran it: the parts of a
/// [`SolveReport`] that are not about the map.
pub(crate) struct Found {
    /// The start's value for its player to move (`None` without starts).
    pub(crate) start: Option<retrograde::Outcome>,
    /// The start's distance to end (`None` for a draw or without starts).
    pub(crate) dte: Option<retrograde::Dte>,
    /// Counts over every state.
    pub(crate) counts: retrograde::Counts,
    /// Propagation levels.
    pub(crate) levels: u32,
    /// Sweeps of the sweep engine (0 otherwise).
    pub(crate) sweeps: u32,
    /// Engine name.
    pub(crate) engine: &'static str,
    /// Worker threads.
    pub(crate) threads: usize,
}

impl SolveReport {
    /// The report of a solve of the one-cop `game`, loaded from `path` in
    /// `format`, that found `found` in `seconds`; the optional parts
    /// (summary, verification, scenario, saved table) start out absent.
    /// Shared by the local and the partitioned solve, so both say the
    /// same.
    pub(crate) fn new(
        path: &Path,
        format: &'static str,
        game: &retrograde::CopsGame,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let board = game.board().expect("one cop on a map has its board");
        let exits = board.exit_coords().into_iter().map(|(r, c)| [r, c]);
        let over = match (found.dte, board.cop, board.thief) {
            (Some(retrograde::Dte(0)), Some(cop), Some(thief)) => Some(if cop == thief {
                "the cop starts on the thief"
            } else if board.exits[thief as usize] {
                "the thief starts on an exit"
            } else if game.rules().thief_first {
                "the thief cannot move"
            } else {
                "the cop cannot move"
            }),
            _ => None,
        };
        let start = match (board.cop, board.thief) {
            (Some(cop), Some(thief)) => {
                let cell = |c: u32| {
                    let (r, c) = board.grid.coords(c);
                    serde_json::json!([r, c])
                };
                Some(StartJson {
                    cops: vec![cell(cop)],
                    thief: cell(thief),
                    turn: game.rules().first_mover().as_str(),
                })
            }
            _ => None,
        };
        SolveReport {
            over,
            start,
            width: Some(board.grid.width()),
            height: Some(board.grid.height()),
            exit_cells: Some(exits.collect()),
            exit_checksum: Some(format!("{:016x}", board.exit_checksum())),
            ..SolveReport::of(
                path,
                format,
                game,
                (u64::from(game.cells()), board.exits.count_ones()),
                found,
                seconds,
            )
        }
    }

    /// The report of a solve of any `game` on `(cells, exits)`: what it
    /// found and the board's counts; the parts only some games have (the
    /// board's size, the pieces, the exit cells) start out absent, as do
    /// the optional parts.
    pub(crate) fn of(
        path: &Path,
        format: &'static str,
        game: &retrograde::CopsGame,
        (cells, exits): (u64, usize),
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let thief_first = game.rules().thief_first;
        SolveReport {
            map: path.display().to_string(),
            format,
            result: found
                .start
                .map(|v| retrograde::Verdict::from_mover(v, !thief_first).as_str()),
            dte: found.dte.map(|d| d.plies()),
            cells,
            exits: exits as u64,
            states: retrograde::Game::state_count(game),
            counts: found.counts.into(),
            levels: found.levels,
            sweeps: found.sweeps,
            engine: found.engine,
            threads: found.threads,
            seconds,
            peak_memory_bytes: super::common::peak_memory(),
            ..SolveReport::default()
        }
    }
}

/// Whole-map results: the same keys as a batch row's.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct SummaryJson {
    /// Start pairs: cop != thief, the first mover to move.
    pub(crate) pairs: u64,
    /// Whether the thief is the first mover (`--thief-first`).
    #[serde(skip)]
    pub(crate) thief_first: bool,
    /// Shares of the pairs by verdict.
    pub(crate) share: ShareJson,
    /// One pair at the longest distance to end (null without distances).
    pub(crate) longest: Option<LongestJson>,
}

/// Shares of the start pairs by verdict, as fractions.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub(crate) struct ShareJson {
    /// Pairs the cop wins.
    pub(crate) cop_wins: f64,
    /// Pairs the thief escapes from.
    pub(crate) thief_escapes: f64,
    /// Pairs drawn.
    pub(crate) draw: f64,
}

/// A start pair at the longest distance to end.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongestJson {
    /// Distance to end in plies.
    pub(crate) dte: u32,
    /// The cop's cell as [row, column].
    pub(crate) cop: [usize; 2],
    /// The thief's cell as [row, column].
    pub(crate) thief: [usize; 2],
}

impl ShareJson {
    /// The shares of `[cop_wins, thief_escapes, draw]` out of `total` (0
    /// of none).
    fn of(total: u64, counts: [u64; 3]) -> ShareJson {
        let [cop_wins, thief_escapes, draw] = counts.map(|c| {
            if total == 0 {
                0.0
            } else {
                c as f64 / total as f64
            }
        });
        ShareJson {
            cop_wins,
            thief_escapes,
            draw,
        }
    }
}

impl SummaryJson {
    /// From the library's summary; `thief_first` only labels text output.
    pub(crate) fn new(s: &retrograde::StartPairs, thief_first: bool) -> SummaryJson {
        SummaryJson {
            pairs: s.pairs,
            thief_first,
            share: ShareJson::of(s.pairs, [s.cop_wins, s.thief_escapes, s.draws]),
            longest: s.longest.map(|l| LongestJson {
                dte: l.dte.plies(),
                cop: [l.cop.0, l.cop.1],
                thief: [l.thief.0, l.thief.1],
            }),
        }
    }
}

/// Several cops' whole-map results: the start placements (a multiset of
/// cop cells and the thief on a cell no cop holds, the first mover to
/// move), and the cops' best placement. Cells are `[row, column]` on a
/// map, vertex ids on a graph.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct PlacementsJson {
    /// Start placements.
    pub(crate) placements: u64,
    /// Whether the thief is the first mover (`--thief-first`).
    #[serde(skip)]
    pub(crate) thief_first: bool,
    /// Shares of the placements by verdict.
    pub(crate) share: ShareJson,
    /// One placement at the longest distance to end (null when none is
    /// decided or the solve kept no distance to read it from).
    pub(crate) longest: Option<LongestPlacementJson>,
    /// The cops' placement that wins against every thief cell fastest,
    /// as `copnumber` gives it (null when none wins or it is unknown).
    pub(crate) best_placement: Option<BestPlacementJson>,
    /// Whether `best_placement` was computed (false: the engine kept
    /// neither the placement nor distances; `--dte-table` keeps them).
    pub(crate) best_placement_known: bool,
}

/// A start placement at the longest distance to end.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct LongestPlacementJson {
    /// Distance to end in plies.
    pub(crate) dte: u32,
    /// The cops' cells, ascending.
    pub(crate) cops: Vec<serde_json::Value>,
    /// The thief's cell.
    pub(crate) thief: serde_json::Value,
}

/// The cops' best placement and its capture time.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct BestPlacementJson {
    /// The cops' cells, ascending.
    pub(crate) cops: Vec<serde_json::Value>,
    /// The longest game from it in plies, the cops to move.
    pub(crate) capture_plies: u32,
    /// The same in rounds (a cops' move and a thief's move).
    pub(crate) capture_rounds: u32,
}

impl PlacementsJson {
    /// From the library's tally; `show` writes a cell as JSON.
    pub(crate) fn new(
        p: &retrograde::StartPlacements,
        thief_first: bool,
        show: impl Fn(u32) -> serde_json::Value,
    ) -> PlacementsJson {
        PlacementsJson {
            placements: p.placements,
            thief_first,
            share: ShareJson::of(p.placements, [p.cop_wins, p.thief_escapes, p.draws]),
            longest: p.longest.as_ref().map(|l| LongestPlacementJson {
                dte: l.dte.plies(),
                cops: l.cops.iter().map(|&c| show(c)).collect(),
                thief: show(l.thief),
            }),
            best_placement: p.best.as_ref().map(|b| BestPlacementJson {
                cops: b.cops.iter().map(|&c| show(c)).collect(),
                capture_plies: b.capture_plies,
                capture_rounds: b.capture_plies.div_ceil(2),
            }),
            best_placement_known: p.best_known,
        }
    }
}

/// One start pair of a `--scen` file and its result.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct ScenPair {
    /// The entry's line in the scenario file.
    pub(crate) line: usize,
    /// The entry's bucket.
    pub(crate) bucket: u64,
    /// The cop's cell (the entry's goal) as [row, column].
    pub(crate) cop: [usize; 2],
    /// The thief's cell (the entry's start) as [row, column].
    pub(crate) thief: [usize; 2],
    /// `cop-wins`, `thief-escapes` or `draw`.
    pub(crate) result: &'static str,
    /// Distance to end in plies (null for a draw, or with the sweep engine).
    pub(crate) dte: Option<u32>,
}

/// The table written by `solve --save` / `batch --save-dir`.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct SaveReport {
    /// The table file.
    pub(crate) path: String,
    /// Its size in bytes.
    pub(crate) bytes: u64,
    /// Whether it stores distances.
    pub(crate) distances: bool,
    /// Compressed values, bits per state.
    pub(crate) value_bits_per_state: f64,
    /// Compressed distances, bits per state (0 without).
    pub(crate) dte_bits_per_state: f64,
    /// Wall-clock seconds of writing.
    pub(crate) seconds: f64,
}

/// What `solve --verify` checked.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct VerifyReport {
    /// States checked.
    pub(crate) states: u64,
    /// Whether distances were checked too.
    pub(crate) distances: bool,
    /// States whose stored value or distance disagrees with their moves.
    pub(crate) inconsistent: u64,
    /// Wall-clock seconds of the check.
    pub(crate) seconds: f64,
}
