//! `copnumber` on one graph given as an edge list (`u v` a line, `#`
//! comments), each line parsed as it is read.

use std::io::{BufRead, Write};
use std::path::Path;

use retrograde::Graph6Reader;

use super::super::common::{no_vertices, UsageError};
use super::super::output::stop_requested;
use super::super::Failure;
use super::certificate::CertificateFile;
use super::report::{write_graph, write_summary, Summary};
use super::search::full_solve;
use super::CopNumberArgs;

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
    let mut edges = Vec::new();
    let mut n = 0usize;
    // A UTF-8 byte-order mark before the first line is skipped, as in maps
    // and the other readers of edge lists (columns count from after it).
    let first = match first_line {
        1 => first.strip_prefix("\u{feff}".as_bytes()).unwrap_or(first),
        _ => first,
    };
    add_edge(path, first_line, first, &mut edges, &mut n)?;
    while let Some((line, bytes)) = reader.next_line()? {
        add_edge(path, line, bytes, &mut edges, &mut n)?;
    }
    if n == 0 {
        return Err(no_vertices(path, first_line).into());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let arena = args.graph_arena(n, &edges);
    // An edge list is named by its file (its graph6 line may be long).
    let name = path.display().to_string();
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

/// Adds the edge of line `line` of an edge list (`u v`; blank lines and
/// `#` comments add none), growing the vertex count `n` to cover it.
fn add_edge(
    path: &Path,
    line: usize,
    bytes: &[u8],
    edges: &mut Vec<(u32, u32)>,
    n: &mut usize,
) -> Result<(), Failure> {
    let text = String::from_utf8_lossy(bytes);
    let body = text.split('#').next().unwrap_or("");
    if body.trim().is_empty() {
        return Ok(());
    }
    let bad = |column: usize, message: String| {
        Failure::from(retrograde::Error::Parse {
            path: path.display().to_string(),
            line,
            column,
            message,
        })
    };
    let mut fields = Vec::new();
    let mut at = 0;
    for word in body.split_ascii_whitespace() {
        let col = body[at..].find(word).map_or(at, |i| at + i);
        at = col + word.len();
        fields.push((col + 1, word));
    }
    if fields.len() != 2 {
        let col = fields.get(2).map_or(body.trim_end().len() + 1, |f| f.0);
        return Err(bad(
            col,
            format!(
                "expected an edge `u v` (two vertices), found {} fields",
                fields.len()
            ),
        ));
    }
    let mut uv = [0u32; 2];
    for (i, (col, word)) in fields.iter().enumerate() {
        uv[i] = match word.parse::<u32>() {
            Ok(v) if v < 1 << 16 => v,
            _ => {
                return Err(bad(
                    *col,
                    format!("expected a vertex number 0..65535, found `{word}`"),
                ))
            }
        };
        *n = (*n).max(uv[i] as usize + 1);
    }
    edges.push((uv[0], uv[1]));
    Ok(())
}
