//! The stop signals (SIGINT, SIGTERM, SIGHUP): one watcher thread that
//! removes the live temporary files (the list kept here, so the watcher
//! needs nothing of `temp.rs`) and ends the process, or, once
//! [`defer_stop_signals`] was called, turns the first signal into a stop
//! request for a solve that saves a checkpoint first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

/// Temporary files of this process not yet committed, removed by the
/// signal watcher.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Puts `temp` on the list the watcher removes; called before the file
/// exists, so no signal can slip in between.
pub(super) fn remove_on_signal(temp: PathBuf) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(temp);
}

/// Takes `temp` off the list (renamed into place, removed, or never made).
pub(super) fn forget(temp: &Path) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != temp);
}

/// Whether `temp` is still on the list: not yet committed nor removed.
pub(super) fn is_live(temp: &Path) -> bool {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|p| p == temp)
}

/// Whether the first SIGINT / SIGTERM / SIGHUP only requests a stop
/// ([`stop_requested`]) instead of ending the process.
static DEFER: AtomicBool = AtomicBool::new(false);
/// The signal that requested a stop, 0 while none did.
static STOP: AtomicI32 = AtomicI32::new(0);

/// From now on the first SIGINT, SIGTERM or SIGHUP only sets
/// [`stop_requested`], for a solve that saves a checkpoint and then exits;
/// a second one ends the process as usual.
pub(crate) fn defer_stop_signals() {
    DEFER.store(true, Ordering::SeqCst);
    watch_signals();
}

/// Like [`defer_stop_signals`], and the first signal prints `note` on
/// standard error at once (a batch says that it stops after the maps in
/// flight, and how to stop at once).
pub(crate) fn defer_stop_signals_saying(note: &'static str) {
    let _ = STOP_NOTE.set(note);
    defer_stop_signals();
}

/// From now on a stop signal that ends the process (one not deferred)
/// first prints what `note` returns on standard error: a solve without
/// checkpoints says what the stop loses and how to keep it next time.
pub(crate) fn say_when_stopped(note: fn() -> String) {
    let _ = STOPPED_NOTE.set(note);
    watch_signals();
}

/// What a stop signal that ends the process prints (see
/// [`say_when_stopped`]).
static STOPPED_NOTE: OnceLock<fn() -> String> = OnceLock::new();

/// What the first deferred signal prints (see [`defer_stop_signals_saying`]).
static STOP_NOTE: OnceLock<&'static str> = OnceLock::new();

/// The signal that requested a stop since [`defer_stop_signals`].
pub(crate) fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Starts (once) a thread that, on SIGINT, SIGTERM or SIGHUP, removes the
/// live temporary files and then ends the process as the signal would have.
pub(super) fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            for signal in signals.forever() {
                // A checkpointing solve stops itself at the next level
                // (after saving); a second signal ends it at once.
                if DEFER.load(Ordering::SeqCst)
                    && STOP
                        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                {
                    if let Some(note) = STOP_NOTE.get() {
                        say!("{note}");
                    }
                    continue;
                }
                if let Some(note) = STOPPED_NOTE.get() {
                    say!("{}", note());
                }
                for temp in LIVE.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                    let _ = std::fs::remove_file(temp);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}
