//! `retrograde copnumber FILE|-`: the cop number of every graph of a graph6
//! stream (`nauty-geng -c 10 | retrograde copnumber -`) or of one edge list,
//! with a winning placement and the capture time; over a stream the counts
//! by cop number and the graphs with the largest cop number and capture
//! time. Graphs are read in batches and solved in parallel, printed in
//! input order. A grid map (`map.rs`) gets its cop number under the map's
//! rules, the placement as `row,col` cells.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use rayon::prelude::*;
use retrograde::copnumber::{
    cop_number_of_graph, kcop_memory, multiset_count, solve_kcops, CopNumber, KArena, KcopOptions,
};
use retrograde::{parse_graph6, Graph6Reader};
use serde::Serialize;

mod map;

use super::schema::versioned;
use super::Failure;

/// Flags of `copnumber`.
#[derive(ClapArgs, Debug)]
pub(crate) struct CopNumberArgs {
    /// graph6 file (one graph a line, as nauty writes it), an edge list
    /// (`u v` a line, 0-based, `#` comments) or a grid map (seed text or
    /// MovingAI .map, told apart by content); `-` reads standard input.
    file: PathBuf,
    /// Most cops tried (1 to 4); a graph needing more is reported as
    /// "more than K" (JSON: `cop_number: null`).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    max_cops: u32,
    /// JSON Lines: one object per graph, then the summary object.
    #[arg(long)]
    json: bool,
    /// Print only the summary (graphs read, counts by cop number); capture
    /// times of cop-win graphs are then not computed.
    #[arg(long)]
    counts: bool,
    /// Instead of the cop number, solve the game with exactly K cops over
    /// every state (no early stop) and print its state counts, levels and
    /// time: the engine's measurement (`scripts/kcop-measure.sh`).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=4))]
    full_solve: Option<u32>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// One graph of a batch: (vertices, edges, answer), or its line's error.
type Solved = std::result::Result<(usize, usize, CopNumber), (usize, retrograde::Graph6Error)>;

/// Graphs read and solved per batch.
const BATCH: usize = 1 << 15;

#[derive(Serialize)]
struct GraphJson<'a> {
    graph: u64,
    line: usize,
    vertices: usize,
    edges: usize,
    cop_number: Option<u32>,
    placement: &'a [u32],
    capture_time: u32,
    capture_time_plies: u32,
}

#[derive(Serialize)]
struct CountsJson {
    graphs: u64,
    cop_number: BTreeMap<String, u64>,
}

/// A graph kept for the summary.
#[derive(Clone)]
struct Noted {
    graph: u64,
    line: usize,
    text: String,
    c: Option<u32>,
    rounds: u32,
}

#[derive(Default)]
struct Summary {
    graphs: u64,
    counts: BTreeMap<Option<u32>, u64>,
    largest: Option<Noted>,
    longest: Option<Noted>,
}

impl Summary {
    fn add(&mut self, graph: u64, line: usize, text: &[u8], r: &CopNumber) {
        self.graphs += 1;
        *self.counts.entry(r.cop_number).or_default() += 1;
        let c_key = |c: Option<u32>| c.unwrap_or(u32::MAX);
        let note = || Noted {
            graph,
            line,
            text: String::from_utf8_lossy(text).into_owned(),
            c: r.cop_number,
            rounds: r.capture_time_rounds,
        };
        if self
            .largest
            .as_ref()
            .is_none_or(|l| c_key(r.cop_number) > c_key(l.c))
        {
            self.largest = Some(note());
        }
        if r.timed
            && r.cop_number.is_some()
            && self
                .longest
                .as_ref()
                .is_none_or(|l| r.capture_time_rounds > l.rounds)
        {
            self.longest = Some(note());
        }
    }

    fn counts_json(&self) -> CountsJson {
        CountsJson {
            graphs: self.graphs,
            cop_number: self
                .counts
                .iter()
                .map(|(c, n)| (c.map_or_else(|| "more".to_string(), |c| c.to_string()), *n))
                .collect(),
        }
    }
}

/// Runs `copnumber`.
pub(crate) fn run(args: CopNumberArgs) -> Result<i32, Failure> {
    let path = args.file.clone();
    let input: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(BufReader::with_capacity(1 << 20, std::io::stdin()))
    } else {
        let f = std::fs::File::open(&path)
            .with_context(|| format!("cannot open {}", path.display()))
            .map_err(|e| Failure {
                status: super::EXIT_INPUT,
                error: e,
            })?;
        Box::new(BufReader::with_capacity(1 << 20, f))
    };
    let mut input = input;
    let head = map::peek(&mut *input).map_err(|source| retrograde::Error::Io {
        path: path.clone(),
        source,
    })?;
    if map::looks_like_map(&head) {
        return map::run(&args, &path, input);
    }
    let mut reader = Graph6Reader::new(input, &path);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut summary = Summary::default();
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {pos} graphs {per_sec} {elapsed}")
                .expect("template"),
        );
        b
    });
    let timed = !args.counts;
    let mut first = true;
    loop {
        // A batch of lines; an edge list is recognised on its first line.
        let mut batch: Vec<(usize, Vec<u8>)> = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            match reader.next_line()? {
                None => break,
                Some((line, bytes)) => {
                    if first && bytes.iter().any(u8::is_ascii_whitespace) {
                        let mut text = bytes.to_vec();
                        text.push(b'\n');
                        return edge_list(&args, &path, line, text, reader_rest(&mut reader)?);
                    }
                    first = false;
                    if let Some(k) = args.full_solve {
                        let (n, edges) = parse_graph6(bytes).map_err(|e| reader.line_error(e))?;
                        check_fits(&path, line, n, k)?;
                        full_solve(&mut out, &KArena::from_graph(n, &edges), k)?;
                        continue;
                    }
                    if bytes.first().is_some_and(|&b| b > 63 + 62) {
                        // Over 62 vertices: the general engine.
                        if let Ok((n, _)) = parse_graph6(bytes) {
                            check_fits(&path, line, n, args.max_cops)?;
                        }
                    }
                    batch.push((line, bytes.to_vec()));
                }
            }
        }
        if batch.is_empty() {
            break;
        }
        let results: Vec<Solved> = batch
            .par_iter()
            .map(|(line, bytes)| match parse_graph6(bytes) {
                Ok((n, edges)) => Ok((
                    n,
                    edges.len(),
                    cop_number_of_graph(n, &edges, args.max_cops, timed),
                )),
                Err(e) => Err((*line, e)),
            })
            .collect();
        for ((line, bytes), r) in batch.iter().zip(results) {
            let (n, edges, r) = match r {
                Ok(x) => x,
                Err((_, e)) => {
                    out.flush().ok();
                    let column = e.column;
                    return Err(retrograde::Error::Parse {
                        path: path.display().to_string(),
                        line: *line,
                        column,
                        message: e.message,
                    }
                    .into());
                }
            };
            let index = summary.graphs;
            summary.add(index, *line, bytes, &r);
            if !args.counts {
                write_graph(&mut out, args.json, index, *line, n, edges, bytes, &r)?;
            }
        }
        if let Some(b) = &bar {
            b.set_position(summary.graphs);
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    write_summary(&mut out, &args, &summary)?;
    out.flush()?;
    Ok(0)
}

/// The rest of the input after the first line, as bytes.
fn reader_rest<R: BufRead>(reader: &mut Graph6Reader<R>) -> Result<Vec<(usize, Vec<u8>)>> {
    let mut rest = Vec::new();
    while let Some((line, bytes)) = reader.next_line()? {
        rest.push((line, bytes.to_vec()));
    }
    Ok(rest)
}

/// One graph given as an edge list: `u v` a line, `#` comments.
fn edge_list(
    args: &CopNumberArgs,
    path: &Path,
    first_line: usize,
    first: Vec<u8>,
    rest: Vec<(usize, Vec<u8>)>,
) -> Result<i32, Failure> {
    let mut edges = Vec::new();
    let mut n = 0usize;
    for (line, bytes) in std::iter::once((first_line, first)).chain(rest) {
        let text = String::from_utf8_lossy(&bytes);
        let body = text.split('#').next().unwrap_or("");
        if body.trim().is_empty() {
            continue;
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
            n = n.max(uv[i] as usize + 1);
        }
        edges.push((uv[0], uv[1]));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(k) = args.full_solve {
        check_fits(path, first_line, n, k)?;
        full_solve(&mut out, &KArena::from_graph(n, &edges), k)?;
        return Ok(0);
    }
    check_fits(path, first_line, n, args.max_cops)?;
    let r = cop_number_of_graph(n, &edges, args.max_cops, true);
    let mut summary = Summary::default();
    // An edge list is named by its file (its graph6 line may be long).
    let name = path.display().to_string();
    summary.add(0, 1, name.as_bytes(), &r);
    if !args.counts {
        write_graph(
            &mut out,
            args.json,
            0,
            1,
            n,
            edges.len(),
            name.as_bytes(),
            &r,
        )?;
    }
    if args.counts {
        write_summary(&mut out, args, &summary)?;
    }
    Ok(0)
}

/// Refuses a graph whose k-cop solve would not fit in memory (graphs of up
/// to 64 vertices take the small path and always fit).
fn check_fits(path: &Path, line: usize, n: usize, k: u32) -> Result<(), Failure> {
    let need = kcop_memory(n, k as usize);
    let have = retrograde::available_memory();
    if n > 64 && need > have {
        return Err(Failure {
            status: super::EXIT_INPUT,
            error: anyhow::anyhow!(
                "{}:{line}: {k} cops on {n} vertices need about {} MiB, more than the {} MiB available: lower --max-cops",
                path.display(),
                need >> 20,
                have >> 20
            ),
        });
    }
    Ok(())
}

/// Solves the k-cop game on one graph over every state and reports it.
fn full_solve(out: &mut impl Write, arena: &KArena, k: u32) -> Result<()> {
    let n = arena.n;
    let states = multiset_count(n, k as usize) as f64 * n as f64 * 2.0;
    let started = std::time::Instant::now();
    let sol = solve_kcops(
        arena,
        &KcopOptions {
            cops: k as usize,
            ..KcopOptions::default()
        },
    );
    let seconds = started.elapsed().as_secs_f64();
    let c = sol.counts();
    let max_degree = arena.cop_steps.iter().map(Vec::len).max().unwrap_or(0);
    writeln!(
        out,
        "{k} cops on {n} vertices (max degree {max_degree}): {states:.3e} states, {} levels, {seconds:.2} s ({:.3e} states/s)",
        sol.levels,
        states / seconds.max(1e-9)
    )?;
    writeln!(
        out,
        "cops to move: {} win, {} lose, {} draw; thief to move: {} win, {} lose, {} draw",
        c[0], c[1], c[2], c[3], c[4], c[5]
    )?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn write_graph(
    out: &mut impl Write,
    json: bool,
    index: u64,
    line: usize,
    n: usize,
    edges: usize,
    text: &[u8],
    r: &CopNumber,
) -> Result<()> {
    if json {
        let g = GraphJson {
            graph: index + 1,
            line,
            vertices: n,
            edges,
            cop_number: r.cop_number,
            placement: &r.placement,
            capture_time: r.capture_time_rounds,
            capture_time_plies: r.capture_time_plies,
        };
        serde_json::to_writer(&mut *out, &versioned(&g))?;
        writeln!(out)?;
    } else {
        let text = String::from_utf8_lossy(text);
        match r.cop_number {
            Some(c) => {
                let p: Vec<String> = r.placement.iter().map(u32::to_string).collect();
                writeln!(
                    out,
                    "{text}\tcop number {c}\tplacement {}\tcapture time {} rounds ({} plies)",
                    p.join(","),
                    r.capture_time_rounds,
                    r.capture_time_plies
                )?;
            }
            None => writeln!(out, "{text}\tcop number more than the maximum")?,
        }
    }
    Ok(())
}

fn write_summary(out: &mut impl Write, args: &CopNumberArgs, s: &Summary) -> Result<()> {
    if args.json {
        if args.counts {
            serde_json::to_writer(&mut *out, &s.counts_json())?;
            writeln!(out)?;
        } else {
            serde_json::to_writer(&mut *out, &versioned(&s.counts_json()))?;
            writeln!(out)?;
        }
        return Ok(());
    }
    if s.graphs <= 1 && !args.counts {
        return Ok(());
    }
    writeln!(out, "graphs: {}", s.graphs)?;
    for (c, n) in &s.counts {
        match c {
            Some(c) => writeln!(out, "cop number {c}: {n}")?,
            None => writeln!(out, "cop number more than {}: {n}", args.max_cops)?,
        }
    }
    if let Some(l) = &s.largest {
        let c =
            l.c.map_or_else(|| format!("more than {}", args.max_cops), |c| c.to_string());
        writeln!(
            out,
            "largest cop number: {c} (graph {}, line {}: {})",
            l.graph + 1,
            l.line,
            l.text
        )?;
    }
    if let Some(l) = s.longest.as_ref().filter(|_| !args.counts) {
        writeln!(
            out,
            "longest capture time: {} rounds (graph {}, line {}: {})",
            l.rounds,
            l.graph + 1,
            l.line,
            l.text
        )?;
    }
    Ok(())
}
