//! Connecting the processes of a cluster: one TCP connection per pair,
//! opened by the higher index, with a handshake that checks every peer
//! solves the same game with the same cluster shape, and a deadline.
//!
//! timely-dataflow's own connection code retries forever and prints its
//! progress on standard output; a partitioned solve must fail with a clear
//! error in bounded time instead, and keep process 0's standard output for
//! the report. The connected sockets are handed to timely as they are.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// First word of every handshake: "RETROGRD" in ASCII.
const MAGIC: u64 = u64::from_le_bytes(*b"RETROGRD");

/// What a process says about itself when it connects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Hello {
    pub(super) process: u64,
    pub(super) processes: u64,
    pub(super) workers: u64,
    /// A hash of the game and the partition: peers must agree.
    pub(super) session: u64,
    /// The newest level this process can resume from, or [`FRESH`].
    pub(super) resume: u64,
}

/// [`Hello::resume`] of a process that starts a solve afresh.
pub(super) const FRESH: u64 = u64::MAX;

impl Hello {
    fn encode(self) -> [u8; 48] {
        let mut out = [0u8; 48];
        for (i, word) in [
            MAGIC,
            self.process,
            self.processes,
            self.workers,
            self.session,
            self.resume,
        ]
        .into_iter()
        .enumerate()
        {
            out[i * 8..(i + 1) * 8].copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    fn decode(bytes: &[u8; 48]) -> Option<Hello> {
        let word =
            |i: usize| u64::from_le_bytes(bytes[i * 8..(i + 1) * 8].try_into().expect("8 bytes"));
        (word(0) == MAGIC).then(|| Hello {
            process: word(1),
            processes: word(2),
            workers: word(3),
            session: word(4),
            resume: word(5),
        })
    }
}

/// Opens a connection to every other process (`None` at `me`) within
/// `timeout`, checking each peer's handshake against `hello`; returns the
/// sockets and every process's [`Hello::resume`].
pub(super) fn connect(
    addresses: &[String],
    hello: Hello,
    timeout: Duration,
) -> Result<(Vec<Option<TcpStream>>, Vec<u64>)> {
    let me = hello.process as usize;
    let deadline = Instant::now() + timeout;
    let peer_error = |process: usize, message: String| Error::Peer {
        process,
        address: addresses[process].clone(),
        message,
    };
    let listener = TcpListener::bind(resolve(&addresses[me]).map_err(|m| peer_error(me, m))?)
        .map_err(|e| peer_error(me, format!("cannot listen on this process's address: {e}")))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    let mut levels = vec![hello.resume; addresses.len()];
    // Lower indices first: process j accepts only after its own connections
    // to lower indices are made, so the chain always moves on.
    for (peer, address) in addresses.iter().enumerate().take(me) {
        let target = resolve(address).map_err(|m| peer_error(peer, m))?;
        let stream = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(peer_error(
                    peer,
                    format!(
                        "cannot connect within {} s (is it running, and is the address right?)",
                        timeout.as_secs()
                    ),
                ));
            }
            match TcpStream::connect_timeout(&target, left.min(Duration::from_secs(5))) {
                Ok(stream) => break stream,
                Err(_) => std::thread::sleep(Duration::from_millis(100).min(left)),
            }
        };
        let theirs = exchange(&stream, hello, deadline).map_err(|m| peer_error(peer, m))?;
        check(theirs, hello, peer).map_err(|m| peer_error(peer, m))?;
        sockets[peer] = Some(stream);
        levels[peer] = theirs.resume;
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| peer_error(me, e.to_string()))?;
    while sockets[me + 1..].iter().any(Option::is_none) {
        match listener.accept() {
            Ok((stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(|e| peer_error(me, e.to_string()))?;
                // A stray connection (a port scanner, a process of another
                // cluster) must not end the solve: skip what does not greet.
                let Ok(theirs) = exchange(&stream, hello, deadline) else {
                    continue;
                };
                let peer = theirs.process as usize;
                if peer <= me || peer >= addresses.len() || sockets[peer].is_some() {
                    continue;
                }
                check(theirs, hello, peer).map_err(|m| peer_error(peer, m))?;
                sockets[peer] = Some(stream);
                levels[peer] = theirs.resume;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing = (me + 1..addresses.len())
                        .find(|&p| sockets[p].is_none())
                        .expect("a missing peer");
                    return Err(peer_error(
                        missing,
                        format!("did not connect within {} s", timeout.as_secs()),
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(peer_error(me, format!("accepting connections: {e}"))),
        }
    }
    for stream in sockets.iter().flatten() {
        stream
            .set_read_timeout(None)
            .and_then(|()| stream.set_write_timeout(None))
            .and_then(|()| stream.set_nodelay(true))
            .map_err(|e| peer_error(me, e.to_string()))?;
    }
    Ok((sockets, levels))
}

/// The first address `host:port` resolves to.
fn resolve(address: &str) -> std::result::Result<SocketAddr, String> {
    address
        .to_socket_addrs()
        .map_err(|e| format!("bad address (expected host:port): {e}"))?
        .next()
        .ok_or_else(|| "the address resolves to nothing".to_string())
}

/// Sends our hello and reads the peer's, both before `deadline`.
fn exchange(
    mut stream: &TcpStream,
    hello: Hello,
    deadline: Instant,
) -> std::result::Result<Hello, String> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    stream
        .set_read_timeout(Some(left))
        .and_then(|()| stream.set_write_timeout(Some(left)))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(&hello.encode())
        .map_err(|e| format!("handshake: {e}"))?;
    let mut bytes = [0u8; 48];
    stream
        .read_exact(&mut bytes)
        .map_err(|e| format!("handshake: {e}"))?;
    Hello::decode(&bytes).ok_or_else(|| "handshake: not a retrograde process".to_string())
}

/// Whether a peer's hello matches ours.
fn check(theirs: Hello, ours: Hello, expected: usize) -> std::result::Result<(), String> {
    if theirs.process != expected as u64 {
        return Err(format!(
            "answered as process {} (two processes were given the same index?)",
            theirs.process
        ));
    }
    if theirs.processes != ours.processes || theirs.workers != ours.workers {
        return Err(format!(
            "runs {} processes x {} workers, this one {} x {}",
            theirs.processes, theirs.workers, ours.processes, ours.workers
        ));
    }
    if theirs.session != ours.session {
        return Err("solves a different game (the map, starts, exits or rules differ)".to_string());
    }
    if (theirs.resume == FRESH) != (ours.resume == FRESH) {
        return Err(if ours.resume == FRESH {
            "resumes from a checkpoint and this one starts afresh (give every process --resume, or none)"
        } else {
            "starts afresh and this one resumes from a checkpoint (give every process --resume, or none)"
        }
        .to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips_and_rejects_strangers() {
        let hello = Hello {
            process: 3,
            processes: 4,
            workers: 2,
            session: 0xdead_beef,
            resume: FRESH,
        };
        assert_eq!(Hello::decode(&hello.encode()), Some(hello));
        assert_eq!(Hello::decode(&[0; 48]), None);
        let other = Hello {
            session: 1,
            ..hello
        };
        assert!(check(other, hello, 3)
            .unwrap_err()
            .contains("different game"));
        assert!(check(hello, hello, 2).is_err());
        assert!(check(hello, hello, 3).is_ok());
        let resuming = Hello {
            resume: 12,
            ..hello
        };
        assert!(check(resuming, hello, 3).unwrap_err().contains("resumes"));
        assert_eq!(Hello::decode(&resuming.encode()), Some(resuming));
    }
}
