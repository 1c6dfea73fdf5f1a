//! A watcher that keeps a solve's resident memory under its cap while
//! shared scratch-file mappings are read and written in any order: it
//! polls the process's resident set and, past a threshold, drops the
//! mapped pages of the regions it watches (they stay in the page cache and
//! the file, and fault back in when touched again).
//!
//! The several-cops engine needs it: its steps write their rows block by
//! block in parallel tasks, through slices that live for the whole step,
//! so no task can release pages behind itself without a window of its
//! own; a page dropped under a running task is harmless for a shared
//! mapping, which is all this watches.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::Region;

/// How often the resident set is read: sequential faults add at most a
/// few tens of MB between two reads.
const POLL: Duration = Duration::from_millis(10);

/// The base address and length of a shared scratch-file mapping.
#[derive(Clone, Copy, Debug)]
struct Span {
    addr: usize,
    len: usize,
}

/// What the watcher and the solve's threads share.
struct Inner {
    spans: Vec<Span>,
    threshold: u64,
    /// Times the pages were dropped (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    releases: AtomicU64,
    /// One look at a time.
    busy: AtomicBool,
    /// Bytes the solve's threads reported touched ([`Checker::touched`]).
    touched: AtomicU64,
}

/// Bytes the solve's threads touch between two looks of their own.
const LOOK_EVERY: u64 = 32 << 20;

impl Inner {
    /// Drops the pages if the resident set is past the threshold.
    fn look(&self) {
        if self.busy.swap(true, Ordering::Acquire) {
            return;
        }
        if resident_bytes().is_some_and(|r| r > self.threshold) {
            for span in &self.spans {
                drop_pages(*span);
            }
            self.releases.fetch_add(1, Ordering::Relaxed);
        }
        self.busy.store(false, Ordering::Release);
    }
}

/// A running watcher; stops when dropped.
pub(crate) struct Pager {
    inner: Arc<Inner>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// A handle through which the solve's threads make the pager look
/// themselves after every 32 MiB they touch: its thread alone, waiting for
/// a core on a busy machine, let 300 to 450 MB fault in between looks.
#[derive(Clone)]
pub(crate) struct Checker(Arc<Inner>);

impl Checker {
    /// Notes `bytes` touched; looks at the resident set every 32 MiB.
    pub(crate) fn touched(&self, bytes: u64) {
        let before = self.0.touched.fetch_add(bytes, Ordering::Relaxed);
        if (before + bytes) / LOOK_EVERY != before / LOOK_EVERY {
            self.0.look();
        }
    }
}

impl Pager {
    /// Watches `regions` (the shared scratch-file ones; others are
    /// skipped) and drops their pages whenever the resident set exceeds
    /// `threshold` bytes. `None` when there is nothing to watch or the
    /// resident set cannot be read (not Linux).
    pub(crate) fn start(regions: &[&Region], threshold: u64) -> Option<Pager> {
        let spans: Vec<Span> = regions.iter().filter_map(|r| r.shared_span()).collect();
        if spans.is_empty() || resident_bytes().is_none() {
            return None;
        }
        let inner = Arc::new(Inner {
            spans,
            threshold,
            releases: AtomicU64::new(0),
            busy: AtomicBool::new(false),
            touched: AtomicU64::new(0),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (stop, inner) = (Arc::clone(&stop), Arc::clone(&inner));
            std::thread::Builder::new()
                .name("retrograde-pager".into())
                .spawn(move || {
                    // Ahead of the solve's threads when the cores are
                    // busy, where the system lets a process raise its own
                    // threads (otherwise it keeps the default).
                    // SAFETY: plain system calls on this thread, no memory.
                    unsafe {
                        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                        let _ = libc::setpriority(libc::PRIO_PROCESS, tid, -10);
                    }
                    while !stop.load(Ordering::Relaxed) {
                        inner.look();
                        std::thread::sleep(POLL);
                    }
                })
                .ok()?
        };
        Some(Pager {
            inner,
            stop,
            thread: Some(thread),
        })
    }

    /// A handle for the solve's threads ([`Checker::touched`]); it must not
    /// be used after the pager's regions are unmapped.
    pub(crate) fn checker(&self) -> Checker {
        Checker(Arc::clone(&self.inner))
    }

    /// How many times the pages were dropped so far.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn releases(&self) -> u64 {
        self.inner.releases.load(Ordering::Relaxed)
    }
}

impl Drop for Pager {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// This process's resident set in bytes (`/proc/self/statm`).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * super::page_size())
}

/// Drops the resident pages of a shared file mapping.
fn drop_pages(span: Span) {
    // SAFETY: `span` is a whole shared mapping of a scratch file
    // (`Region::shared_span`), alive while the pager runs (the engine
    // drops the pager before its regions). MADV_DONTNEED on a shared file
    // mapping only unmaps the pages: their contents, dirty ones included,
    // stay in the page cache and the file, the virtual range stays mapped,
    // and the next access, a concurrent one included, faults the same
    // bytes back in. So the call changes no value any thread can observe,
    // and the slices the engine holds into the range stay valid.
    unsafe {
        libc::madvise(
            span.addr as *mut libc::c_void,
            span.len,
            libc::MADV_DONTNEED,
        );
    }
}

impl Region {
    /// The address and length of the part of this region that is a
    /// shared mapping of a scratch file (whose pages can be dropped at any
    /// time without losing data): all of it, or the file's window inside
    /// an anonymous mapping (`Region::sparse_with_file`, a partitioned
    /// band), whose anonymous rest would lose its contents; `None` for
    /// memory and private mappings.
    fn shared_span(&self) -> Option<Span> {
        let window = &self.pages.window;
        (self.pages.file.is_some()
            && self.pages.paging == super::Paging::Kernel
            && window.end > window.start)
            .then(|| Span {
                addr: self.map.as_ptr() as usize + window.start as usize,
                len: (window.end - window.start) as usize,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Backing;
    use std::sync::atomic::AtomicU64 as Word;

    /// Past its threshold the pager drops a shared scratch mapping's pages
    /// while it is being written, and every value written reads back.
    #[test]
    fn dropped_pages_keep_their_contents() {
        let words = 8 << 20; // 64 MiB
        let backing = Backing::Scratch(std::env::temp_dir());
        let region = Region::zeroed::<Word>(words, &backing, "pager test").expect("region");
        let pager = Pager::start(&[&region], 0).expect("a pager on Linux");
        let slots = region.atomics::<Word>();
        for round in 1..=3u64 {
            for (i, w) in slots.iter().enumerate() {
                w.store(i as u64 * round, Ordering::Relaxed);
            }
            std::thread::sleep(POLL * 3);
            for (i, w) in slots.iter().enumerate().step_by(4099) {
                assert_eq!(w.load(Ordering::Relaxed), i as u64 * round, "word {i}");
            }
        }
        assert!(pager.releases() > 0, "the pager never dropped the pages");
        drop(pager);
        assert!(slots
            .iter()
            .enumerate()
            .all(|(i, w)| w.load(Ordering::Relaxed) == i as u64 * 3));
    }

    /// A partitioned band's file window inside an anonymous mapping: the
    /// pager drops the window's pages alone, and the anonymous words
    /// around it (the other bands' rows a process holds) keep theirs.
    #[cfg(feature = "distributed")]
    #[test]
    fn a_file_window_is_dropped_and_the_anonymous_rest_kept() {
        let words = 4u64 << 20; // 32 MiB
        let window = words / 4..words / 2;
        let dir = std::env::temp_dir();
        let region = Region::sparse_with_file::<Word>(
            words,
            window.clone(),
            &dir,
            "pager test",
            crate::storage::Paging::Kernel,
        )
        .expect("region");
        let pager = Pager::start(&[&region], 0).expect("a pager on Linux");
        let slots = region.atomics::<Word>();
        for round in 1..=3u64 {
            for (i, w) in slots.iter().enumerate() {
                w.store(i as u64 * round, Ordering::Relaxed);
            }
            std::thread::sleep(POLL * 3);
        }
        assert!(pager.releases() > 0, "the pager never dropped the pages");
        drop(pager);
        let bad = slots
            .iter()
            .enumerate()
            .find(|&(i, w)| w.load(Ordering::Relaxed) != i as u64 * 3);
        assert!(bad.is_none(), "word {bad:?} lost (window {window:?})");
    }

    /// Memory and private mappings are never watched: dropping their pages
    /// would lose their contents.
    #[test]
    fn memory_is_not_watched() {
        let region = Region::zeroed::<Word>(1024, &Backing::Memory, "pager test").expect("region");
        assert!(Pager::start(&[&region], 0).is_none());
    }
}
