//! Long work (a solve, a cop-number search) on a worker thread while the
//! calling thread, off the GIL between polls, answers Ctrl-C and reports
//! progress.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::{panic_to_py, to_py};

/// How often the waiting Python thread looks for a pending signal.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a worker thread. Meanwhile this thread waits off the
/// GIL and, every [`POLL`], holding it, checks for a signal and calls
/// `tick` (which may call Python); `tick` runs once more after the work,
/// so that its last progress is told however fast it was. The first error
/// of those sets `stop` (for the work to end early) and is raised once the
/// work has ended; a panic of the work is `RuntimeError`.
pub fn run<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> retrograde::Result<T> + Send,
    mut tick: impl FnMut() -> PyResult<()>,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        let worker = scope.spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(work));
            let _ = tx.send(());
            r
        });
        // A Receiver is not Sync; the lock makes it shareable with the
        // GIL-free closure below (only this thread ever takes it).
        let rx = Mutex::new(rx);
        let waiting = || {
            let rx = rx.lock().expect("one user");
            matches!(rx.recv_timeout(POLL), Err(RecvTimeoutError::Timeout))
        };
        let mut interrupt = None;
        while py.detach(waiting) {
            if interrupt.is_none() {
                interrupt = py.check_signals().and_then(|()| tick()).err();
                stop.store(interrupt.is_some(), Ordering::Relaxed);
            }
        }
        let result = worker.join().expect("the work's panics are caught");
        if let Some(e) = interrupt.or_else(|| tick().err()) {
            return Err(e);
        }
        result.map_err(panic_to_py)?.map_err(to_py)
    })
}
