//! Probe latency of a saved table: `cargo run --release --example
//! probe_latency -- TABLE.rtb [PROBES] [--cold]`.
//!
//! Opens the table, then probes PROBES (default 100000) random positions
//! (both pieces on random free cells, random turn; a fixed seed) one at a
//! time and prints the median, 99th percentile and largest latency. With
//! `--cold` the file's pages are dropped from the page cache first
//! (`posix_fadvise(DONTNEED)`, no root needed), so early probes read the
//! disk.

use std::time::Instant;

use retrograde::Turn;
// The one-cop reader this example measures.
use retrograde::GridTablebase as Tablebase;

mod common;

use common::{drop_cache, splitmix, spread, thread_cpu};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::PathBuf::from(
        args.first()
            .ok_or("usage: probe_latency TABLE.rtb [PROBES] [--cold]")?,
    );
    let probes: usize = args
        .iter()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map_or(Ok(100_000), |a| a.parse())?;
    if args.iter().any(|a| a == "--cold") {
        drop_cache(&path)?;
    }
    let opened = Instant::now();
    let tb = Tablebase::open(&path)?;
    let open_time = opened.elapsed();
    let cells: Vec<(usize, usize)> = (0..tb.rows())
        .flat_map(|r| (0..tb.cols()).map(move |c| (r, c)))
        .filter(|&c| tb.is_free(c))
        .collect();
    let mut seed = 12345;
    let mut times = Vec::with_capacity(probes);
    let mut cpu = Vec::with_capacity(probes);
    let mut wins = 0u64;
    for _ in 0..probes {
        let cop = cells[(splitmix(&mut seed) % cells.len() as u64) as usize];
        let thief = cells[(splitmix(&mut seed) % cells.len() as u64) as usize];
        let turn = if splitmix(&mut seed) & 1 == 0 {
            Turn::Cop
        } else {
            Turn::Thief
        };
        let pos = tb.position(cop, thief, turn)?;
        let c = thread_cpu();
        let t = Instant::now();
        let p = tb.probe(&pos)?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
        cpu.push((thread_cpu() - c) * 1e6);
        wins += u64::from(p.value == retrograde::Outcome::Win);
    }
    println!(
        "{}: {} states, open {:.2} ms; {probes} random probes: wall {}; thread CPU {} ({wins} wins)",
        path.display(),
        tb.header().states,
        open_time.as_secs_f64() * 1e3,
        spread(&mut times),
        spread(&mut cpu)
    );
    Ok(())
}
