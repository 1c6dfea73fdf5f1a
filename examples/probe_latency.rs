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

use retrograde::{Tablebase, Turn};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn drop_cache(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path)?;
    // SAFETY: a plain system call on a descriptor this function owns; it
    // only advises the kernel and touches no memory of ours.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(std::io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

/// CPU seconds of this thread: unlike the wall clock, it does not count the
/// time the thread waits while other processes run (a busy machine).
fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

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
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    let cpu_at = |q: f64| cpu[((cpu.len() as f64 * q) as usize).min(cpu.len() - 1)];
    println!(
        "{}: {} states, open {:.2} ms; {probes} random probes: wall median {:.1} us, p99 {:.1} us, max {:.1} us; thread CPU median {:.1} us, p99 {:.1} us ({wins} wins)",
        path.display(),
        tb.header().states,
        open_time.as_secs_f64() * 1e3,
        at(0.5),
        at(0.99),
        times[times.len() - 1],
        cpu_at(0.5),
        cpu_at(0.99)
    );
    Ok(())
}
