//! `copnumber` on one graph given as an edge list (`u v` a line, `#`
//! comments), each line parsed as it is read by the library's
//! `EdgeLines`.

use std::io::{BufRead, Write};
use std::path::Path;

use retrograde::Graph6Reader;

use super::super::common::UsageError;
use super::super::output::stop_requested;
use super::certificate::CertificateFile;
use super::report::{write_graph, write_summary, Summary};
use super::search::full_solve;
use super::CopNumberArgs;
use crate::cli::failure::Failure;

/// One graph given as an edge list: `u v` a line, `#` comments. Each
/// line is parsed as it is read (the lines kept first took 16 bytes per
/// byte of input; issue 33, item 14).
pub(super) fn run<R: BufRead>(
    args: &CopNumberArgs,
    path: &Path,
    first_line: usize,
    first: &[u8],
    reader: &mut Graph6Reader<R>,
    cert: Option<CertificateFile>,
) -> Result<i32, Failure> {
    if args.out.is_some() {
        return Err(UsageError(format!(
            "--out: {} is an edge list (one graph); --out and --resume are for graph6 streams",
            path.display()
        ))
        .into());
    }
    // The library's one edge-list parser, a line at a time: the first
    // line, read to tell an edge list from graph6, then the rest. Vertex
    // ids are graph6's (at most 65,536 vertices). The edges are held
    // within what the process has, not `--memory`: that cap is the
    // solve's, refused with what each number of cops would need.
    let name = path.display().to_string();
    let limit = retrograde::available_memory();
    let mut lines = retrograde::EdgeLines::new(&name, 1 << 16, limit);
    lines.push(first_line, first)?;
    while let Some((line, bytes)) = reader.next_line()? {
        lines.push(line, bytes)?;
    }
    let graph = lines.finish()?;
    let (n, edges) = (graph.n as usize, graph.edges);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let arena = args.graph_arena(n, &edges);
    // An edge list is named by its file (its graph6 line may be long).
    if let Some(k) = args.full_solve {
        args.check_fits(&name, &arena, k)?;
        full_solve(&mut out, &arena, k)?;
        return Ok(0);
    }
    if args.plan {
        args.write_plan(&mut out, &name, &arena, "vertices")?;
        return Ok(0);
    }
    let Some(r) = args.search(&arena, true, None)? else {
        return Ok(128 + stop_requested().unwrap_or(0));
    };
    let mut summary = Summary::default();
    summary.add_solved(0, 1, name.as_bytes(), &r);
    if !args.counts {
        let graph6 = retrograde::to_graph6(n, &edges);
        let text = (name.as_bytes(), graph6.as_str());
        write_graph(&mut out, args, 0, 1, n, edges.len(), text, &r)?;
    }
    if let Some(o) = &r.out_of_memory {
        out.flush()?;
        return Err(args.out_of_memory(&name, o));
    }
    if let Some(mut cert) = cert {
        cert.note_edges(n, &edges, &r);
        cert.write_batch(args)?;
        cert.finish()?;
    }
    if args.counts {
        write_summary(&mut out, args, &summary, false)?;
    }
    Ok(0)
}
