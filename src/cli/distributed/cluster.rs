//! The cluster around a partitioned solve's process: its peers' addresses
//! from a hostfile, and the panic hook and watchdog that end the process
//! instead of letting it hang.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ClusterArgs;
use crate::cli::failure::Failure;

/// Reads `processes` addresses (`host:port`) from a hostfile; blank lines
/// and `#` comments are skipped.
pub(super) fn read_hostfile(path: &Path, processes: usize) -> Result<Vec<String>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|source| retrograde::Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut addresses = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let entry = line.split('#').next().unwrap_or("").trim();
        if entry.is_empty() {
            continue;
        }
        let port_ok = entry
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok {
            return Err(retrograde::Error::Parse {
                path: path.display().to_string(),
                line: number + 1,
                column: line.find(entry).unwrap_or(0) + 1,
                message: format!("expected host:port, found `{entry}`"),
            }
            .into());
        }
        addresses.push(entry.to_string());
        if addresses.len() == processes {
            return Ok(addresses);
        }
    }
    Err(retrograde::Error::Parse {
        path: path.display().to_string(),
        line: text.lines().count() + 1,
        column: 1,
        message: format!(
            "expected {processes} addresses (one per process), found {}",
            addresses.len()
        ),
    }
    .into())
}

/// Panic hook and watchdog: a lost peer or a stalled cluster ends this
/// process with status 1 and a message, instead of a hang.
pub(super) fn install_fault_handlers(
    process: usize,
    heartbeat: &Arc<AtomicU64>,
    cluster: &ClusterArgs,
    started: Instant,
) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        // timely's network threads (named `timely:send-N`, `timely:recv-N`)
        // panic when a peer's connection breaks.
        let network = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("timely:"));
        if network || message.contains("timely communication error") {
            say!(
                "error: process {process} lost the connection to a peer ({message}): a process died or the network failed; giving up"
            );
            std::process::exit(1);
        }
        default(info);
        // A panicked worker leaves its peers waiting: end the process so
        // they see the connection close.
        std::process::exit(101);
    }));
    let heartbeat = Arc::clone(heartbeat);
    let limit = Duration::from_secs(cluster.progress_timeout);
    let connect = Duration::from_secs(cluster.connect_timeout);
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(500));
        let beat = heartbeat.load(Relaxed);
        let now = started.elapsed();
        // Before the first level: the connection phase has its own
        // deadline; allow it, then the progress limit.
        let since = if beat == 0 {
            now.saturating_sub(connect)
        } else {
            now.saturating_sub(Duration::from_millis(beat))
        };
        if since > limit {
            say!(
                "error: process {process}: no level finished in {} s (--progress-timeout): a peer is stalled or unreachable; giving up",
                limit.as_secs()
            );
            std::process::exit(1);
        }
    });
}
