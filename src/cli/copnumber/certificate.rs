//! `copnumber --certificate CERT`: per graph, the evidence for its cop
//! number (the library's `copnumber::certificate`), written to CERT
//! through a temporary file renamed into place when the run completes
//! (nothing is left on an error or a stop). Graphs only (graph6 streams
//! and edge lists), in the plain game: maps and fast pieces are refused.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use rayon::prelude::*;
use retrograde::copnumber::{
    certificate, certificate_memory, write_header, write_trailer, CopNumber, GraphText,
};

use super::super::common::{human_bytes, UsageError};
use super::super::output::{note_input, Output, OutputTarget};
use super::super::Failure;
use super::input::parse_graph;
use super::CopNumberArgs;

/// A graph waiting for its record: its number (from 1), its text and the
/// search's answer.
struct Pending {
    number: u64,
    graph: Graph,
    found: CopNumber,
}

/// A graph as its record names it.
enum Graph {
    /// graph6 text, as read from the stream.
    Graph6(Vec<u8>),
    /// An edge list's vertices and edges.
    Edges(usize, Vec<(u32, u32)>),
}

/// The certificate file being written: records are added batch by batch
/// and the file is renamed into place by [`CertificateFile::finish`].
pub(super) struct CertificateFile {
    out: Output,
    /// The path as given, for messages.
    path: PathBuf,
    records: u64,
    pending: Vec<Pending>,
}

impl CopNumberArgs {
    /// Checks `--certificate`'s path and flags before any work and opens
    /// its temporary file; `None` without the flag.
    pub(super) fn open_certificate(&self) -> Result<Option<CertificateFile>, Failure> {
        let Some(path) = &self.certificate else {
            return Ok(None);
        };
        if self.speeds.fast() {
            return Err(UsageError(
                "--certificate: certificates are for the plain game (cops and thief move one step or stay); --cop-speed and --thief-speed are refused with it".into(),
            )
            .into());
        }
        note_input("the graph stream", &self.file)?;
        let mut out = OutputTarget::check("--certificate", path)?.create()?;
        write_header(&mut out)?;
        Ok(Some(CertificateFile {
            out,
            path: path.clone(),
            records: 0,
            pending: Vec::new(),
        }))
    }
}

/// Refuses `--certificate` on a grid map: certificates are for graphs.
pub(super) fn refuse_map(args: &CopNumberArgs, path: &Path) -> Result<(), Failure> {
    if args.certificate.is_some() {
        return Err(UsageError(format!(
            "--certificate: {} is a grid map; certificates are for graphs (graph6 streams and edge lists), whose plain game the checker implements",
            path.display()
        ))
        .into());
    }
    Ok(())
}

impl CertificateFile {
    /// Keeps graph `index` (from 0) of a graph6 stream for the next
    /// [`CertificateFile::write_batch`].
    pub(super) fn note(&mut self, index: u64, graph6: &[u8], found: &CopNumber) {
        self.pending.push(Pending {
            number: index + 1,
            graph: Graph::Graph6(graph6.to_vec()),
            found: found.clone(),
        });
    }

    /// Keeps the one graph of an edge list.
    pub(super) fn note_edges(&mut self, n: usize, edges: &[(u32, u32)], found: &CopNumber) {
        self.pending.push(Pending {
            number: 1,
            graph: Graph::Edges(n, edges.to_vec()),
            found: found.clone(),
        });
    }

    /// Builds the records of the graphs kept (in parallel those small
    /// enough for the batch's parallel solves, the others one at a time)
    /// and writes them in order. A graph whose certificate's solves would
    /// not fit the memory cap ends the run (exit status 1).
    pub(super) fn write_batch(&mut self, args: &CopNumberArgs) -> Result<(), Failure> {
        let pending = std::mem::take(&mut self.pending);
        let build = |p: &Pending| -> Result<Vec<u8>, Failure> {
            let (n, edges) = match &p.graph {
                Graph::Graph6(bytes) => {
                    parse_graph(bytes).map_err(|e| anyhow!("graph {}: {}", p.number, e.message))?
                }
                Graph::Edges(n, edges) => (*n, edges.clone()),
            };
            let arena = args.graph_arena(n, &edges);
            let need = certificate_memory(&arena, &p.found, args.max_cops);
            if need > args.cap {
                return Err(Failure {
                    status: 1,
                    error: anyhow!(
                        "--certificate: graph {}: the certificate's solves would need {}, more than {}",
                        p.number,
                        human_bytes(need),
                        args.cap_words()
                    ),
                });
            }
            let c = certificate(&arena, &p.found, args.max_cops)
                .map_err(|e| anyhow!("--certificate: graph {}: {e}", p.number))?;
            let mut text = Vec::new();
            let graph = match &p.graph {
                Graph::Graph6(bytes) => {
                    GraphText::Graph6(std::str::from_utf8(bytes).expect("graph6 is ASCII"))
                }
                Graph::Edges(n, edges) => GraphText::Edges {
                    vertices: *n as u32,
                    edges,
                },
            };
            c.write(&mut text, p.number, graph)?;
            Ok(text)
        };
        let small = |p: &Pending| match &p.graph {
            Graph::Graph6(bytes) => args.in_parallel(graph6_order(bytes)),
            Graph::Edges(n, _) => args.in_parallel(*n),
        };
        let parallel: Vec<Option<Result<Vec<u8>, Failure>>> = pending
            .par_iter()
            .map(|p| small(p).then(|| build(p)))
            .collect();
        for (p, record) in pending.iter().zip(parallel) {
            let record = record.unwrap_or_else(|| build(p))?;
            self.out
                .write_all(&record)
                .map_err(|e| anyhow!(e).context(format!("cannot write {}", self.path.display())))?;
            self.records += 1;
        }
        Ok(())
    }

    /// Writes the last line and renames the file into place.
    pub(super) fn finish(mut self) -> Result<(), Failure> {
        write_trailer(&mut self.out, self.records)?;
        self.out.commit()?;
        Ok(())
    }
}

/// The vertex count a graph6 text starts with (`usize::MAX`, solved one
/// at a time, for the longest form).
fn graph6_order(bytes: &[u8]) -> usize {
    let six = |b: &u8| usize::from(b.saturating_sub(63));
    match bytes {
        [a, ..] if *a < b'~' => six(a),
        [b'~', a, b, c, ..] if *a < b'~' => six(a) << 12 | six(b) << 6 | six(c),
        _ => usize::MAX,
    }
}
