//! Query latency of a table of any number of cops: `cargo run --release
//! --example probe_latency -- TABLE.rtb [POSITIONS] [--cold] [--fresh]`.
//!
//! Opens the table (written by `solve --save`, any `--cops`), then answers
//! POSITIONS (default 20000) random positions (every cop and the thief on
//! a random cell, a random turn; a fixed seed) one at a time, alternately
//! a probe alone and a whole query as `query` computes it (the probe and
//! every move rated). Prints the median, 99th percentile and largest
//! latency of each, in wall time and in the thread's CPU time (which leaves out the
//! time a busy machine runs other processes). With `--cold` the file's
//! pages are dropped from the page cache first (`posix_fadvise`). With
//! `--fresh` the table is opened again (untimed) before every position, so
//! no decoded block is reused: every probe and query decodes the blocks it
//! reads, the worst case. Then a tenth as many heatmaps: random cops
//! fixed, every thief cell probed.

use std::time::Instant;

use retrograde::{Tablebase, Turn};

mod common;

use common::{drop_cache, splitmix, spread, thread_cpu};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::PathBuf::from(
        args.first()
            .ok_or("usage: probe_latency TABLE.rtb [POSITIONS] [--cold] [--fresh]")?,
    );
    let count: usize = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map_or(Ok(20_000), |a| a.parse())?;
    if args.iter().any(|a| a == "--cold") {
        drop_cache(&path)?;
    }
    let fresh = args.iter().any(|a| a == "--fresh");
    let opened = Instant::now();
    let mut tb = Tablebase::open(&path)?;
    let open_time = opened.elapsed();
    let n = tb.header().cells;
    let k = tb.cops() as usize;
    let mut seed = 12345;
    // Positions alternate: a probe alone, then a whole query.
    let (mut probes, mut probes_cpu) = (Vec::new(), Vec::new());
    let (mut queries, mut queries_cpu) = (Vec::new(), Vec::new());
    let mut moves = 0usize;
    for _ in 0..count {
        let cops: Vec<u32> = (0..k).map(|_| (splitmix(&mut seed) % n) as u32).collect();
        let thief = (splitmix(&mut seed) % n) as u32;
        let turn = if splitmix(&mut seed) & 1 == 0 {
            Turn::Cop
        } else {
            Turn::Thief
        };
        if fresh {
            tb = Tablebase::open(&path)?;
        }
        let pos = tb.position(&cops, thief, turn)?;
        let (c, t) = (thread_cpu(), Instant::now());
        if probes.len() <= queries.len() {
            tb.probe(&pos)?;
            probes.push(t.elapsed().as_secs_f64() * 1e6);
            probes_cpu.push((thread_cpu() - c) * 1e6);
        } else {
            // What `query` computes: the probe and every move rated.
            tb.probe(&pos)?;
            moves += tb.rated_moves(&pos)?.len();
            queries.push(t.elapsed().as_secs_f64() * 1e6);
            queries_cpu.push((thread_cpu() - c) * 1e6);
        }
    }
    println!(
        "{}: {k} cops, {n} cells, {} states, open {:.2} ms; {count} random positions ({:.1} moves each){}",
        path.display(),
        tb.header().states,
        open_time.as_secs_f64() * 1e3,
        moves as f64 / queries.len().max(1) as f64,
        if fresh {
            ", the table opened again for each"
        } else {
            ""
        }
    );
    println!(
        "{} probes: wall {}; thread CPU {}",
        probes.len(),
        spread(&mut probes),
        spread(&mut probes_cpu)
    );
    println!(
        "{} queries (probe + rated moves): wall {}; thread CPU {}",
        queries.len(),
        spread(&mut queries),
        spread(&mut queries_cpu)
    );
    // Heatmaps: every thief cell with the cops fixed (what `serve` shows
    // beside a position, and `render --cop ... --cop ...`), a tenth as
    // many as the positions, on the cache the queries left.
    let (mut maps, mut maps_cpu) = (Vec::new(), Vec::new());
    for _ in 0..(count / 10).max(1) {
        let cops: Vec<u32> = (0..k).map(|_| (splitmix(&mut seed) % n) as u32).collect();
        let turn = if splitmix(&mut seed) & 1 == 0 {
            Turn::Cop
        } else {
            Turn::Thief
        };
        let (c, t) = (thread_cpu(), Instant::now());
        for thief in 0..n as u32 {
            tb.probe(&tb.position(&cops, thief, turn)?)?;
        }
        maps.push(t.elapsed().as_secs_f64() * 1e6);
        maps_cpu.push((thread_cpu() - c) * 1e6);
    }
    println!(
        "{} heatmaps ({n} probes each): wall {}; thread CPU {}",
        maps.len(),
        spread(&mut maps),
        spread(&mut maps_cpu)
    );
    Ok(())
}
