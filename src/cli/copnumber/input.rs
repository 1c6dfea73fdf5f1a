//! What `copnumber` reads: a stream that a stop request ends even while it
//! is idle, and the graphs of a graph6 line (a graph with no vertices
//! refused: it has no cop number).

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use retrograde::{parse_graph6, Graph6Error};

use crate::cli::output::stop_requested;

/// How often an idle read looks for a stop request.
const STOP_POLL: Duration = Duration::from_millis(100);

/// A reader fed by a thread of its own, so that a stop requested (the
/// first SIGINT / SIGTERM of a `--out` run, deferred until the batch is
/// complete) ends a read that waits for input: the end of the stream, and
/// the run stops as it does between batches. Read in place, a stalled
/// producer or a terminal kept the signal unanswered until more input or
/// the end came (issue 33, item 16). The thread is left blocked in its
/// read; the process ends with the run.
pub(super) struct Stoppable {
    chunks: Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    at: usize,
    done: bool,
}

impl Stoppable {
    /// Reads `inner` from now on, at most two chunks ahead.
    pub(super) fn new<R: Read + Send + 'static>(mut inner: R) -> Stoppable {
        let (send, chunks) = sync_channel(2);
        std::thread::spawn(move || loop {
            let mut buf = vec![0u8; 1 << 16];
            let chunk = match inner.read(&mut buf) {
                Ok(n) => {
                    buf.truncate(n);
                    Ok(buf)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            // An empty chunk (the end) or an error is the last one sent.
            let last = !matches!(&chunk, Ok(c) if !c.is_empty());
            if send.send(chunk).is_err() || last {
                break;
            }
        });
        Stoppable {
            chunks,
            current: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl Read for Stoppable {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.done || stop_requested().is_some() {
                return Ok(0);
            }
            match self.chunks.recv_timeout(STOP_POLL) {
                Ok(Ok(chunk)) => {
                    self.done = chunk.is_empty();
                    self.current = chunk;
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.done = true,
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The graph of a graph6 line, refusing one with no vertices (graph6 `?`):
/// no number of cops "fails" on it, and answering "more than the maximum"
/// was wrong (issue 33, item 16).
pub(super) fn parse_graph(bytes: &[u8]) -> Result<(usize, Vec<(u32, u32)>), Graph6Error> {
    let (n, edges) = parse_graph6(bytes)?;
    if n == 0 {
        return Err(no_vertices());
    }
    Ok((n, edges))
}

/// The refusal of a graph with no vertices.
pub(super) fn no_vertices() -> Graph6Error {
    Graph6Error {
        column: 1,
        message: "expected a graph of at least one vertex, found none (no vertices: a graph with no vertices has no cop number)"
            .into(),
    }
}
