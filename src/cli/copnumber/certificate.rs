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
use retrograde::Arena;

use super::super::common::{human_bytes, UsageError};
use super::super::output::{note_input, Output, OutputTarget};
use super::input::parse_graph;
use super::CopNumberArgs;
use crate::cli::failure::Failure;

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
        if path.as_os_str() == "-" {
            return Err(UsageError(
                "--certificate -: the certificate needs a file of its own (standard output carries the answers)".into(),
            )
            .into());
        }
        if self.speeds.fast() {
            return Err(UsageError(
                "--certificate: certificates are for the plain game (cops and thief move one step or stay); --cop-speed and --thief-speed are refused with it".into(),
            )
            .into());
        }
        note_input("the graph stream", self.file())?;
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

    /// Builds the records of the graphs kept and writes them in order:
    /// in parallel those small enough that one certificate's solves per
    /// thread fit the memory cap together, the others one at a time
    /// under the whole cap. A graph whose certificate's solves would not
    /// fit the cap ends the run (exit status 1).
    pub(super) fn write_batch(&mut self, args: &CopNumberArgs) -> Result<(), Failure> {
        let pending = std::mem::take(&mut self.pending);
        let threads = rayon::current_num_threads() as u64;
        // `None`: left for the pass one at a time (`alone` false only).
        let build = |p: &Pending, alone: bool| -> Option<Result<Vec<u8>, Failure>> {
            let (n, edges) = match &p.graph {
                Graph::Graph6(bytes) => match parse_graph(bytes) {
                    Ok(graph) => graph,
                    Err(e) => {
                        return Some(Err(anyhow!("graph {}: {}", p.number, e.message).into()))
                    }
                },
                Graph::Edges(n, edges) => (*n, edges.clone()),
            };
            let arena = args.graph_arena(n, &edges);
            let need = certificate_memory(&arena, &p.found, args.max_cops);
            if !alone && (n > 64 || need.saturating_mul(threads) > args.cap) {
                return None;
            }
            Some(record(args, p, &arena, need))
        };
        let parallel: Vec<Option<Result<Vec<u8>, Failure>>> =
            pending.par_iter().map(|p| build(p, false)).collect();
        for (p, record) in pending.iter().zip(parallel) {
            let record = record
                .or_else(|| build(p, true))
                .expect("built when alone")?;
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

/// The record of graph `p` on `arena`, whose certificate's solves need
/// `need` bytes (refused over the cap).
fn record(args: &CopNumberArgs, p: &Pending, arena: &Arena, need: u64) -> Result<Vec<u8>, Failure> {
    if need > args.cap {
        return Err(Failure {
            status: 1,
            error: anyhow!(
                "--certificate: {}: graph {}: the certificate's solves would need {}, more than {}",
                args.file().display(),
                p.number,
                human_bytes(need),
                args.cap_words()
            ),
        });
    }
    let c = certificate(arena, &p.found, args.max_cops).map_err(|e| {
        anyhow!(
            "--certificate: {}: graph {}: {e}",
            args.file().display(),
            p.number
        )
    })?;
    let graph = match &p.graph {
        Graph::Graph6(bytes) => {
            GraphText::Graph6(std::str::from_utf8(bytes).expect("graph6 is ASCII"))
        }
        Graph::Edges(n, edges) => GraphText::Edges {
            vertices: *n as u32,
            edges,
        },
    };
    let mut text = Vec::new();
    c.write(&mut text, p.number, graph)?;
    Ok(text)
}
