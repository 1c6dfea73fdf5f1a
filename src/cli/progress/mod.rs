//! Progress reporting: an indicatif bar on a terminal, a plain line every
//! few seconds when stderr is not a terminal, nothing with `--quiet`.
//! [`Reporter`] follows one solve (or verification); [`MapsProgress`]
//! follows the maps of a batch, with a [`Reporter`] per large map.
//! `estimate.rs` fits the time left from the recent levels.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use retrograde::Progress;

mod estimate;

pub(crate) use estimate::human_seconds;
use estimate::Marks;

/// How often plain progress lines are printed when not on a terminal.
const PLAIN_INTERVAL: Duration = Duration::from_secs(10);

/// What the last solve's progress said: since when it runs, its last
/// stage, and its states decided of all (none before [`solving_started`]);
/// read by what a stop says it lost.
static SEEN: Mutex<Option<Seen>> = Mutex::new(None);

/// The progress a solve last reported (see [`seen`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen {
    /// When the solve started.
    pub(crate) started: Instant,
    /// The last level or sweep reported, with its counts (none yet).
    pub(crate) last: Option<Progress>,
}

/// Marks the start of a solve for [`seen`].
pub(crate) fn solving_started() {
    *SEEN.lock().unwrap_or_else(|p| p.into_inner()) = Some(Seen {
        started: Instant::now(),
        last: None,
    });
}

/// The progress of the solve running since [`solving_started`].
pub(crate) fn seen() -> Option<Seen> {
    *SEEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reports solve progress per level.
pub(crate) enum Reporter {
    /// Nothing is shown.
    Quiet,
    /// A progress bar over decided states.
    Bar { bar: ProgressBar, marks: Marks },
    /// Occasional plain lines on stderr.
    Plain {
        start: Instant,
        last: Mutex<Instant>,
        marks: Marks,
    },
}

impl Reporter {
    /// Picks the reporter for stderr; `label` prefixes the bar.
    pub(crate) fn new(quiet: bool, label: &str) -> Reporter {
        if quiet {
            Reporter::Quiet
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} {bar:30} {pos}/{len} states {msg} ({rate}, {elapsed})",
                )
                .expect("valid template")
                // indicatif's own {per_sec} prints four decimals of a
                // count in the billions.
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.3e}/s", state.per_sec());
                    },
                ),
            );
            bar.set_prefix(label.to_string());
            Reporter::Bar {
                bar,
                marks: Marks::new(),
            }
        } else {
            let now = Instant::now();
            Reporter::Plain {
                start: now,
                last: Mutex::new(now),
                marks: Marks::new(),
            }
        }
    }

    /// Called by the engine after each level (or band of a sweep).
    pub(crate) fn observe(&self, p: &Progress) {
        if let Some(seen) = SEEN.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            seen.last = Some(*p);
        }
        match self {
            Reporter::Quiet => {}
            Reporter::Bar { bar, marks } => {
                let left = marks.add(p);
                bar.set_length(p.states);
                bar.set_position(p.decided);
                bar.set_message(format!("decided, {}{}{left}", stage(p), disk_io()));
            }
            Reporter::Plain { marks, .. } => {
                let left = marks.add(p);
                self.plain_line(|| {
                    format!(
                        "{}: {} of {} states decided{}{left}",
                        stage(p),
                        p.decided,
                        p.states,
                        disk_io(),
                    )
                });
            }
        }
    }

    /// Called by `--verify` after each band: `done` of `total` states
    /// checked.
    pub(crate) fn checked(&self, done: u64, total: u64) {
        match self {
            Reporter::Quiet => {}
            Reporter::Bar { bar, .. } => {
                // The solve finished the bar; start it over for the check.
                if bar.is_finished() {
                    bar.set_prefix("verifying");
                    bar.set_message("checked");
                    bar.set_length(total);
                    bar.reset();
                }
                bar.set_position(done);
            }
            Reporter::Plain { .. } => {
                self.plain_line(|| format!("verify: {done} of {total} states checked"));
            }
        }
    }

    /// Plain mode: prints `line` and the elapsed time, at most once per
    /// [`PLAIN_INTERVAL`].
    fn plain_line(&self, line: impl FnOnce() -> String) {
        if let Reporter::Plain { start, last, .. } = self {
            let mut last = last.lock().expect("progress lock");
            if last.elapsed() >= PLAIN_INTERVAL {
                *last = Instant::now();
                say!("{} ({:.0} s)", line(), start.elapsed().as_secs_f64());
            }
        }
    }

    /// A one-line note on stderr (the estimate before a solve), unless quiet.
    pub(crate) fn note(&self, text: &str) {
        match self {
            Reporter::Quiet => {}
            Reporter::Bar { bar, .. } => bar.println(text),
            Reporter::Plain { .. } => say!("{text}"),
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Reporter::Bar { bar, .. } = self {
            bar.finish_and_clear();
        }
    }
}

/// ", read 1.2 GiB, written 0.8 GiB from and to the disk" when this
/// process has moved bytes to or from a block device (an out-of-core
/// solve); empty otherwise, or where `/proc/self/io` cannot be read.
fn disk_io() -> String {
    // The bar is told every level, which can be thousands a second: read
    // the counters at most every half second.
    static LAST: Mutex<Option<(Instant, String)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((at, text)) = last.as_ref() {
        if at.elapsed() < Duration::from_millis(500) {
            return text.clone();
        }
    }
    let text = read_disk_io();
    *last = Some((Instant::now(), text.clone()));
    text
}

/// [`disk_io`] read now.
fn read_disk_io() -> String {
    let Ok(text) = std::fs::read_to_string("/proc/self/io") else {
        return String::new();
    };
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let (read, written) = (field("read_bytes:"), field("write_bytes:"));
    if read == 0 && written == 0 {
        return String::new();
    }
    format!(
        ", read {}, written {}",
        crate::cli::common::human_bytes(read),
        crate::cli::common::human_bytes(written)
    )
}

/// "level 12" or "sweep 3".
fn stage(p: &Progress) -> String {
    if p.sweeping {
        format!("sweep {}", p.level)
    } else {
        format!("level {}", p.level)
    }
}

/// Progress over maps: a bar on a terminal, a line per map when stderr is
/// piped, nothing with `--quiet`. Errors go to stderr in every mode.
pub(crate) enum MapsProgress {
    /// Only errors are printed.
    Quiet,
    /// A bar over maps, plus a bar over states for each large map.
    Bar {
        multi: MultiProgress,
        maps: ProgressBar,
    },
    /// One line per finished map.
    Plain { total: usize, done: AtomicUsize },
}

impl MapsProgress {
    /// Picks the mode for stderr.
    pub(crate) fn new(quiet: bool, total: usize) -> MapsProgress {
        if quiet {
            MapsProgress::Quiet
        } else if std::io::stderr().is_terminal() {
            let multi = MultiProgress::new();
            let maps = multi.add(ProgressBar::new(total as u64));
            maps.set_style(
                ProgressStyle::with_template("maps {bar:30} {pos}/{len} ({elapsed}) {wide_msg}")
                    .expect("valid template"),
            );
            MapsProgress::Bar { multi, maps }
        } else {
            MapsProgress::Plain {
                total,
                done: AtomicUsize::new(0),
            }
        }
    }

    /// Shows which map is being solved.
    pub(crate) fn started(&self, name: &str) {
        if let MapsProgress::Bar { maps, .. } = self {
            maps.set_message(name.to_string());
        }
    }

    /// A reporter over states for a large map, drawn under the maps bar.
    pub(crate) fn states(&self) -> Reporter {
        match self {
            MapsProgress::Quiet => Reporter::Quiet,
            MapsProgress::Bar { multi, .. } => {
                let reporter = Reporter::new(false, "states");
                if let Reporter::Bar { bar, .. } = &reporter {
                    multi.add(bar.clone());
                }
                reporter
            }
            MapsProgress::Plain { .. } => Reporter::new(false, "states"),
        }
    }

    /// Records a finished map: `what` became of it (the verdict, or the
    /// error when `failed`), in `seconds`.
    pub(crate) fn finished(&self, name: &str, what: &str, failed: bool, seconds: Option<f64>) {
        match self {
            MapsProgress::Quiet if failed => say!("error: {what}"),
            MapsProgress::Quiet => {}
            MapsProgress::Bar { maps, .. } => {
                if failed {
                    maps.println(format!("error: {what}"));
                }
                maps.inc(1);
            }
            MapsProgress::Plain { total, done } => {
                let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                let seconds = seconds.map_or_else(String::new, |s| format!(" ({s:.2} s)"));
                say!("[{done}/{total}] {name}: {what}{seconds}");
            }
        }
    }

    /// Removes the bar before the summary is printed.
    pub(crate) fn finish(&self) {
        if let MapsProgress::Bar { maps, .. } = self {
            maps.finish_and_clear();
        }
    }
}
