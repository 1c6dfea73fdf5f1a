//! One shard of a census: its generator run (`sh -c`, the template's
//! placeholders replaced) or its file read, every graph solved on this
//! thread (the full answer: cop number, placement, capture time) and
//! counted. A stop (Ctrl-C, or another shard's failure) ends it between
//! graphs, its generator killed and its tally dropped: only whole shards
//! are written.

use std::io::{BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::anyhow;
use retrograde::copnumber::{census_graph, CensusKey, Dismantler, ShardFile, Tally};
use retrograde::{graph6_order, Graph6Error, Graph6Reader};

use super::super::super::output::stop_requested;
use super::super::input::Stoppable;
use crate::cli::failure::Failure;

/// What every shard of a run shares.
pub(super) struct Shards {
    /// The census.
    pub(super) key: CensusKey,
    /// The files read, one a shard (empty: the generator).
    pub(super) files: Vec<std::path::PathBuf>,
    /// Set when a shard failed: the others stop.
    pub(super) stop: AtomicBool,
    /// Graphs solved so far, for the progress bar.
    pub(super) graphs: AtomicU64,
    /// With `--check`: what the check confirmed in the shards written.
    pub(super) check: Option<Checked>,
}

/// What `--check` confirmed: shards, graphs, and the dismantlable ones
/// among them (those of cop number 1), counted when a shard is whole.
#[derive(Default)]
pub(super) struct Checked {
    /// Shards checked whole.
    pub(super) shards: AtomicU32,
    /// Their graphs.
    pub(super) graphs: AtomicU64,
    /// Those dismantlable.
    pub(super) dismantlable: AtomicU64,
}

/// Graphs solved between looks at the stop flags.
const POLL: u64 = 4096;

impl Shards {
    /// Whether the run is stopping (a signal, or a failed shard).
    pub(super) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || stop_requested().is_some()
    }

    /// The generator's command for shard `index`.
    fn command(&self, index: u32) -> String {
        let n = self
            .key
            .vertices
            .map_or_else(String::new, |n| n.to_string());
        self.key
            .source
            .replace("{n}", &n)
            .replace("{res}", &index.to_string())
            .replace("{mod}", &self.key.shards.to_string())
    }
}

/// The generator's process, killed and reaped unless it ended by itself.
struct Generator(Option<Child>);

impl Drop for Generator {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            // Our own child, by its handle: it may have ended already.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs shard `index`: its tally, or `None` when the run is stopping.
///
/// # Errors
/// A malformed graph6 line (exit status 2, naming the shard and the line),
/// a generator that cannot start or fails (exit status 1).
pub(super) fn run_shard(shards: &Shards, index: u32) -> Result<Option<ShardFile>, Failure> {
    let (input, name, mut generator, stream): (String, String, Generator, Box<dyn Read>) =
        if shards.files.is_empty() {
            let command = shards.command(index);
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| Failure {
                    status: 1,
                    error: anyhow!("shard {index}: cannot run `sh -c {command}`: {e}"),
                })?;
            // Read through a thread of its own, so that a stop ends the
            // read even while the generator is silent.
            let stdout = Stoppable::new(child.stdout.take().expect("piped"));
            let name = format!("shard {index} (`{command}`)");
            (command, name, Generator(Some(child)), Box::new(stdout))
        } else {
            let path = &shards.files[index as usize];
            let file = std::fs::File::open(path).map_err(|e| Failure {
                status: crate::cli::failure::EXIT_INPUT,
                error: anyhow!("cannot open {}: {e}", path.display()),
            })?;
            let shown = path.display().to_string();
            (shown.clone(), shown, Generator(None), Box::new(file))
        };
    let mut reader = Graph6Reader::new(BufReader::with_capacity(1 << 16, stream), Path::new(&name));
    let mut tally = Tally::default();
    let mut since = 0u64;
    let mut dismantler = shards.check.as_ref().map(|_| Dismantler::new());
    let mut dismantlable = 0u64;
    loop {
        let (number, line) = match reader.next_line() {
            Ok(Some(read)) => read,
            Ok(None) => break,
            // A generator killed by the same Ctrl-C may end mid-line.
            Err(_) if shards.stopping() || stopped_with_us(&mut generator) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        // A graph of another order would be counted under the wrong one.
        if let Some(n) = shards.key.vertices {
            // A line whose order is not graph6 is refused by the decoder.
            let other = graph6_order(line)
                .ok()
                .filter(|&order| order != u64::from(n));
            if let Some(order) = other {
                return Err(reader
                    .line_error(Graph6Error {
                        column: 1,
                        message: format!(
                            "a graph of {order} vertices in a census of {n} (--vertices {n}): expected only graphs of {n} vertices"
                        ),
                    })
                    .into());
            }
        }
        match census_graph(line, shards.key.max_cops) {
            Ok(r) => {
                if let Some(d) = dismantler.as_mut() {
                    match d.check(line, r.cop_number) {
                        Ok(yes) => dismantlable += u64::from(yes),
                        Err(e) => {
                            return Err(Failure {
                                status: 1,
                                error: anyhow!("{name}, line {number}: the check failed: {e}"),
                            })
                        }
                    }
                }
                tally.add(line, &r);
            }
            Err(_) if shards.stopping() || stopped_with_us(&mut generator) => return Ok(None),
            Err(e) => return Err(reader.line_error(e).into()),
        }
        since += 1;
        if since == POLL {
            shards.graphs.fetch_add(since, Ordering::Relaxed);
            since = 0;
            if shards.stopping() {
                return Ok(None);
            }
        }
    }
    shards.graphs.fetch_add(since, Ordering::Relaxed);
    // A stop ends the read as if the stream ended, and the reader thread
    // no longer drains the pipe: waiting for the generator now could wait
    // forever (it blocks on a full pipe). Dropping `generator` kills it.
    if shards.stopping() {
        return Ok(None);
    }
    if let Some(mut child) = generator.0.take() {
        let status = child.wait().map_err(|e| Failure {
            status: 1,
            error: anyhow!("{name}: {e}"),
        })?;
        // A generator stopped by the same Ctrl-C ends early: its shard is
        // not whole. (The signal may reach it before this process's
        // handler has noted the stop.)
        if shards.stopping() || (stop_signal(status) && stop_follows()) {
            return Ok(None);
        }
        if !status.success() {
            return Err(Failure {
                status: 1,
                error: anyhow!(
                    "{name}: the generator failed ({status}) after {} graphs; the shard is not written",
                    tally.graphs
                ),
            });
        }
    } else if shards.stopping() {
        return Ok(None);
    }
    if let Some(c) = &shards.check {
        c.shards.fetch_add(1, Ordering::SeqCst);
        c.graphs.fetch_add(tally.graphs, Ordering::SeqCst);
        c.dismantlable.fetch_add(dismantlable, Ordering::SeqCst);
    }
    Ok(Some(ShardFile {
        key: shards.key.clone(),
        index,
        input,
        tally,
    }))
}

/// Whether a process ended by SIGHUP, SIGINT or SIGTERM: the signals a
/// terminal's Ctrl-C or a `kill` of the process group send to the
/// generator as to this process.
fn stop_signal(status: std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    matches!(status.signal(), Some(1 | 2 | 15))
}

/// Whether this process's stop is requested within half a second (its
/// signal handler runs on a thread of its own).
fn stop_follows() -> bool {
    for _ in 0..50 {
        if stop_requested().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    stop_requested().is_some()
}

/// After a line that could not be read: whether the generator ended by a
/// stop signal (a line cut short by Ctrl-C) and this run is stopping too,
/// so the shard is dropped rather than refused. A generator still running
/// after half a second wrote a bad line.
fn stopped_with_us(generator: &mut Generator) -> bool {
    let Some(child) = generator.0.as_mut() else {
        return stop_requested().is_some();
    };
    for _ in 0..50 {
        if let Ok(Some(status)) = child.try_wait() {
            return stop_signal(status) && stop_follows();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}
