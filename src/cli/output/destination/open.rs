//! An open output ([`Output`]): the buffered stream, file or temporary
//! file being written, committed at the end; and how a failed write is
//! told apart from a reader that closed standard output.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;

use super::{Kind, OutputTarget};

/// The context of an error writing an output file (not standard output).
#[derive(Debug)]
pub(crate) struct WriteFailed(pub(super) PathBuf);

impl std::fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}", self.0.display())
    }
}

/// True for an error that only says standard output was closed by its
/// reader (`... | head`): the command then ends quietly.
pub(crate) fn is_closed_stdout(error: &anyhow::Error) -> bool {
    let broken = |e: &(dyn std::error::Error + 'static)| {
        matches!(e.downcast_ref::<io::Error>(), Some(e) if e.kind() == io::ErrorKind::BrokenPipe)
            || matches!(e.downcast_ref::<serde_json::Error>(),
                Some(e) if e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    };
    error.chain().any(broken) && error.downcast_ref::<WriteFailed>().is_none()
}

/// An open output (see [`OutputTarget::create`]), buffered; dropped
/// without [`commit`](Output::commit), it leaves nothing behind.
pub(crate) struct Output {
    pub(super) writer: BufWriter<Sink>,
    pub(super) target: OutputTarget,
}

pub(super) enum Sink {
    Stdout(io::Stdout),
    Stderr(io::Stderr),
    File(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::Stderr(s) => s.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Stderr(s) => s.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Output {
    /// Finishes the output: flushes it, and for a regular file syncs the
    /// temporary file and renames it over the target.
    ///
    /// # Errors
    /// When flushing, syncing or renaming fails (the temporary file is then
    /// removed and the target untouched).
    pub(crate) fn commit(mut self) -> Result<()> {
        self.writer.flush().map_err(|e| self.target.failed(e))?;
        if let Kind::Replace(temp) = &self.target.kind {
            temp.commit().map_err(|e| self.target.failed(e))?;
        }
        Ok(())
    }
}
