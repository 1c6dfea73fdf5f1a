//! What the latency examples (`probe_latency`) share: a
//! seeded generator, dropping a file from the page cache, the thread's CPU
//! clock, and the median / p99 / largest of a sample.

/// SplitMix64: a fixed seed gives the same positions on every run.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Drops `path`'s pages from the page cache (`posix_fadvise(DONTNEED)`,
/// no root needed), so the first reads go to the disk.
pub fn drop_cache(path: &std::path::Path) -> std::io::Result<()> {
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
pub fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Median, 99th percentile and largest of `v` (sorted here), in us.
pub fn spread(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
    format!(
        "median {:.1} us, p99 {:.1} us, max {:.1} us",
        at(0.5),
        at(0.99),
        v[v.len() - 1]
    )
}
