//! How a command fails: [`Failure`] (an error with its exit status),
//! [`EXIT_INPUT`], whether a write failed after the work began, and
//! `say!`. A leaf that every command imports, so that the commands never
//! import `cli/mod.rs`, which imports them.

use crate::cli::common::UsageError;

/// `eprintln!` that ignores a closed or failing standard error instead of
/// panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Exit status for usage and input errors.
pub(crate) const EXIT_INPUT: i32 = 2;

/// An error with the exit status it should produce.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: i32,
    pub(crate) error: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(error: E) -> Failure {
        let error = error.into();
        // A solve that cannot fit is refused before any work, like bad
        // input.
        let input = error.chain().any(|e| {
            matches!(e.downcast_ref::<retrograde::Error>(),
                Some(e) if e.is_input_error() || matches!(e, retrograde::Error::TooLarge { .. }))
        }) || error.downcast_ref::<UsageError>().is_some();
        // A write that failed after the work began is not bad input.
        let input = input && !write_failed();
        Failure {
            status: if input { EXIT_INPUT } else { 1 },
            error,
        }
    }
}

/// Set once a write failed after the work began (a checkpoint snapshot on
/// a full disk): the run's error is then exit status 1, "could not
/// finish", even where the library reports the write as an I/O error,
/// which is otherwise bad input (exit status 2).
static WRITE_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that a write failed after the work began (see [`write_failed`]).
pub(crate) fn note_write_failure() {
    WRITE_FAILED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether a write failed after the work began.
fn write_failed() -> bool {
    WRITE_FAILED.load(std::sync::atomic::Ordering::SeqCst)
}
