//! The server's connections: at most [`MAX_CONNECTIONS`] open at once,
//! each closed when idle ([`IDLE_TIME`]) or when a request's headers take
//! longer than [`HEADER_TIME`]; and a full server sheds the connection that
//! has waited longest for a request, not the new client. Without the last
//! two, 512 clients trickling a header byte every few seconds (slowloris)
//! held every slot for as long as they trickled, and every new client
//! waited in the backlog (issue 33, item 12). A connection whose answer
//! cannot be written because its client does not read counts as waiting
//! too, from the moment its write blocked: 600 clients that pipelined
//! requests for large answers and read them slowly held every slot until
//! their idle timers ran out, locking new clients out for 15 to 18 s
//! (issue 47).
//!
//! [`MAX_CONNECTIONS`]: super::MAX_CONNECTIONS

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{HEADER_TIME, IDLE_TIME};

/// How long a new connection waits for a shed one's slot before shedding
/// another (a shed connection gives its slot back once its task runs; one
/// busy with a request notices only at its next read or write, and 88
/// connections in the backlog at 100 ms each kept a new client out 9 s).
const SHED_WAIT: Duration = Duration::from_millis(20);
/// Connections shed and not yet closed that a full server aims for (see
/// `Registry::shed_idlest`).
const SHED_BATCH: usize = 16;
/// `Conn::waiting_since` while a request is being read or answered.
const NOT_WAITING: u64 = u64::MAX;

/// A listener that holds at most a fixed number of connections open: the
/// permit travels with the connection and is returned when it closes.
pub(super) struct Limited {
    inner: TcpListener,
    slots: Arc<Semaphore>,
    registry: Arc<Registry>,
}

/// The open connections, for choosing one to shed.
struct Registry {
    epoch: Instant,
    next: AtomicU64,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

/// What the listener knows of one open connection.
struct Conn {
    /// Milliseconds after the registry's epoch since which the connection
    /// has waited for a request (opened, or answered its last one);
    /// [`NOT_WAITING`] from the end of a request's headers until its
    /// answer is written.
    waiting_since: AtomicU64,
    /// Milliseconds after the registry's epoch since which a write of an
    /// answer has been blocked on the client (it does not read);
    /// [`NOT_WAITING`] while writes go through.
    blocked_since: AtomicU64,
    /// Set by the listener to close the connection for a new one.
    shed: AtomicBool,
    /// Whether its last read or write was pending on the client: such a
    /// connection notices a shed at once when woken, so it is shed first.
    io_pending: AtomicBool,
    /// The connection task's waker from its last pending read or write,
    /// so a shed connection is closed at once, not at its next byte.
    waker: Mutex<Option<Waker>>,
}

/// Locks `m`; a panic while holding one of these locks leaves the data
/// consistent (single stores), so a poisoned lock is still usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Registry {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(NOT_WAITING - 1)
    }

    /// Marks the connections that have waited longest for a request, or
    /// for their clients to read an answer, to be closed, and wakes them:
    /// enough to have [`SHED_BATCH`] shed and not yet closed, at least one.
    /// A full server's backlog holds the new clients, each accepted in
    /// turn: shedding one connection per new client, and waiting for each
    /// to close, kept the last of 88 waiting for seconds. False when every
    /// connection is busy with a request (or already shed).
    fn shed_idlest(&self) -> bool {
        let conns = lock(&self.conns);
        let closing = conns
            .values()
            .filter(|c| c.shed.load(Ordering::Relaxed))
            .count();
        let mut victims: Vec<_> = conns
            .values()
            .filter(|c| !c.shed.load(Ordering::Relaxed))
            .map(|c| {
                let since = c.waiting_since.load(Ordering::Relaxed);
                let since = since.min(c.blocked_since.load(Ordering::Relaxed));
                (!c.io_pending.load(Ordering::Relaxed), since, c)
            })
            .filter(|&(_, since, _)| since != NOT_WAITING)
            .collect();
        victims.sort_unstable_by_key(|&(busy, since, _)| (busy, since));
        let count = SHED_BATCH.saturating_sub(closing).max(1);
        for (_, _, conn) in victims.iter().take(count) {
            conn.shed.store(true, Ordering::Relaxed);
            if let Some(waker) = lock(&conn.waker).take() {
                waker.wake();
            }
        }
        !victims.is_empty()
    }
}

impl Limited {
    /// Listens on `inner`, holding at most `max` connections open.
    pub(super) fn new(inner: TcpListener, max: usize) -> Limited {
        Limited {
            inner,
            slots: Arc::new(Semaphore::new(max)),
            registry: Arc::new(Registry {
                epoch: Instant::now(),
                next: AtomicU64::new(0),
                conns: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// A slot for a new connection: a free one, else one given back by a
    /// connection shed for it, else (every connection busy answering) the
    /// first to come free.
    async fn slot(&self) -> OwnedSemaphorePermit {
        loop {
            if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
                return permit;
            }
            self.registry.shed_idlest();
            // The semaphore is never closed: an error cannot happen, and a
            // timeout means trying again (another may be shed by then).
            if let Ok(Ok(permit)) =
                tokio::time::timeout(SHED_WAIT, Arc::clone(&self.slots).acquire_owned()).await
            {
                return permit;
            }
        }
    }
}

impl axum::serve::Listener for Limited {
    type Io = LimitedIo;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let (io, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        let permit = self.slot().await;
        // Small answers go out at once instead of waiting for an ACK.
        let _ = io.set_nodelay(true);
        let registry = Arc::clone(&self.registry);
        let conn = Arc::new(Conn {
            waiting_since: AtomicU64::new(registry.now()),
            blocked_since: AtomicU64::new(NOT_WAITING),
            shed: AtomicBool::new(false),
            io_pending: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        let id = registry.next.fetch_add(1, Ordering::Relaxed);
        lock(&registry.conns).insert(id, Arc::clone(&conn));
        (
            LimitedIo {
                io,
                _permit: permit,
                registry,
                id,
                conn,
                idle: Box::pin(tokio::time::sleep(IDLE_TIME)),
                headers: Box::pin(tokio::time::sleep(HEADER_TIME)),
                tail: 0,
            },
            addr,
        )
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection holding its slot.
pub(super) struct LimitedIo {
    io: TcpStream,
    _permit: OwnedSemaphorePermit,
    registry: Arc<Registry>,
    id: u64,
    conn: Arc<Conn>,
    /// Fires [`IDLE_TIME`] after the last byte moved either way.
    idle: Pin<Box<tokio::time::Sleep>>,
    /// Fires [`HEADER_TIME`] after the connection began to wait for a
    /// request; counts only while it waits.
    headers: Pin<Box<tokio::time::Sleep>>,
    /// The last four bytes read, to find the blank line that ends a
    /// request's headers across reads.
    tail: u32,
}

impl Drop for LimitedIo {
    fn drop(&mut self) {
        lock(&self.registry.conns).remove(&self.id);
    }
}

fn closed(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, why.to_string())
}

impl LimitedIo {
    fn touch(&mut self) {
        self.idle
            .as_mut()
            .reset(tokio::time::Instant::now() + IDLE_TIME);
    }

    fn waiting(&self) -> bool {
        self.conn.waiting_since.load(Ordering::Relaxed) != NOT_WAITING
    }

    /// Bytes of a request read: a blank line (CR LF CR LF, or LF LF as
    /// the parser also takes) ends its headers, and the connection no
    /// longer waits. The API takes no bodies (refused before any work),
    /// so the next byte begins the next request.
    fn scan(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.tail = (self.tail << 8) | u32::from(b);
            if self.tail == 0x0d0a_0d0a || self.tail & 0xffff == 0x0a0a {
                self.conn
                    .waiting_since
                    .store(NOT_WAITING, Ordering::Relaxed);
            }
        }
    }

    /// Bytes of an answer written: the connection waits for its next
    /// request from now on.
    fn answered(&mut self) {
        if !self.waiting() {
            self.conn
                .waiting_since
                .store(self.registry.now(), Ordering::Relaxed);
            self.headers
                .as_mut()
                .reset(tokio::time::Instant::now() + HEADER_TIME);
        }
    }

    /// A pending read or write past the idle time, or a pending read past
    /// the headers' time while waiting for a request, ends the connection.
    fn pending_or_late<T>(
        &mut self,
        cx: &mut TaskContext<'_>,
        reading: bool,
    ) -> Poll<std::io::Result<T>> {
        if self.idle.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(closed("connection idle")));
        }
        if reading && self.waiting() && self.headers.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(closed("request headers too slow")));
        }
        Poll::Pending
    }

    /// A write's outcome, noted: bytes written are activity and the
    /// answer under way; a write still pending blocks on the client (a
    /// candidate for shedding from now on, and closed at once when shed)
    /// and may be late.
    fn after_write(
        &mut self,
        cx: &mut TaskContext<'_>,
        polled: Poll<std::io::Result<usize>>,
    ) -> Poll<std::io::Result<usize>> {
        match polled {
            Poll::Pending => {
                self.conn.io_pending.store(true, Ordering::Relaxed);
                if self.conn.blocked_since.load(Ordering::Relaxed) == NOT_WAITING {
                    let now = self.registry.now();
                    self.conn.blocked_since.store(now, Ordering::Relaxed);
                }
                *lock(&self.conn.waker) = Some(cx.waker().clone());
                // Shed between the caller's check and the waker's store.
                if self.is_shed() {
                    return Poll::Ready(Err(closed("shed for a new connection")));
                }
                self.pending_or_late(cx, false)
            }
            ready => {
                self.conn.io_pending.store(false, Ordering::Relaxed);
                if matches!(ready, Poll::Ready(Ok(n)) if n > 0) {
                    self.conn
                        .blocked_since
                        .store(NOT_WAITING, Ordering::Relaxed);
                    self.touch();
                    self.answered();
                }
                ready
            }
        }
    }

    fn is_shed(&self) -> bool {
        self.conn.shed.load(Ordering::Relaxed)
    }
}

impl AsyncRead for LimitedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.is_shed() {
            return Poll::Ready(Err(closed("shed for a new connection")));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.io).poll_read(cx, buf) {
            Poll::Pending => {
                self.conn.io_pending.store(true, Ordering::Relaxed);
                *lock(&self.conn.waker) = Some(cx.waker().clone());
                // Shed between the check above and the waker's store: the
                // listener found no waker to wake.
                if self.is_shed() {
                    return Poll::Ready(Err(closed("shed for a new connection")));
                }
                self.pending_or_late(cx, true)
            }
            ready => {
                self.conn.io_pending.store(false, Ordering::Relaxed);
                if buf.filled().len() > before {
                    self.touch();
                    self.scan(&buf.filled()[before..]);
                }
                ready
            }
        }
    }
}

impl AsyncWrite for LimitedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.is_shed() {
            return Poll::Ready(Err(closed("shed for a new connection")));
        }
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.after_write(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        if self.is_shed() {
            return Poll::Ready(Err(closed("shed for a new connection")));
        }
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.after_write(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
