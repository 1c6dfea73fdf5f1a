//! Scratch-file regions: pages written back, windows, private copies.

use super::*;
use std::os::unix::fs::FileExt;
use std::sync::atomic::Ordering::Relaxed;

fn scratch_region(pages: u64) -> Region {
    let backing = Backing::Scratch(std::env::temp_dir());
    Region::zeroed_paged::<AtomicU8>(pages * page_size(), &backing, "test", Paging::Explicit)
        .expect("region")
}

/// Modified pages reach the file on release and come back from it.
#[test]
fn release_writes_modified_pages_back() {
    let page = page_size() as usize;
    let region = scratch_region(4);
    let bytes = region.atomics::<AtomicU8>();
    bytes[7].store(1, Relaxed);
    bytes[2 * page + 5].store(2, Relaxed);
    bytes[3 * page - 1].store(3, Relaxed);
    assert_eq!(bytes[page + 9].load(Relaxed), 0);
    region.release(0..4 * page as u64, 1);
    assert!(region.take_write_error().is_none());
    let file = region.pages.file.as_ref().expect("scratch file");
    let mut on_disk = vec![0u8; 4 * page];
    file.read_exact_at(&mut on_disk, 0).expect("read back");
    assert_eq!(
        (on_disk[7], on_disk[2 * page + 5], on_disk[3 * page - 1]),
        (1, 2, 3)
    );
    assert_eq!(on_disk.iter().map(|&b| u32::from(b)).sum::<u32>(), 6);
    // Dropped pages fault back in with the written contents, and can
    // be modified and released again.
    assert_eq!(bytes[2 * page + 5].load(Relaxed), 2);
    bytes[2 * page + 5].store(9, Relaxed);
    region.release(0..4 * page as u64, 1);
    assert_eq!(bytes[2 * page + 5].load(Relaxed), 9);
    assert_eq!(bytes[7].load(Relaxed), 1);
}

/// A region with a file window (a partitioned band out of core) keeps
/// the window's words through a release (they come back from the
/// file, which holds the window alone) and never releases the
/// anonymous rest, whose words a release would zero.
#[cfg(feature = "distributed")]
#[test]
fn a_file_window_keeps_its_words_and_the_rest_through_releases() {
    let page_words = page_size() / 8;
    let mut region = Region::sparse_with_file::<AtomicU64>(
        8 * page_words,
        3 * page_words + 5..5 * page_words,
        &std::env::temp_dir(),
        "test",
        Paging::Kernel,
    )
    .expect("region");
    let file = std::sync::Arc::clone(region.pages.file.as_ref().expect("scratch file"));
    assert_eq!(file.metadata().expect("metadata").len(), 2 * page_size());
    let (words, pager) = region.words_with_pager();
    let at = [1, 3 * page_words + 7, 4 * page_words + 1, 7 * page_words];
    for (k, &i) in at.iter().enumerate() {
        words[i as usize] = 10 + k as u64;
    }
    pager.release(0..8 * page_words);
    let read: Vec<u64> = at.iter().map(|&i| words[i as usize]).collect();
    assert_eq!(read, [10, 11, 12, 13]);
    region.release(0..8 * page_words, 8);
    let words = region.atomics::<AtomicU64>();
    let read: Vec<u64> = at
        .iter()
        .map(|&i| words[i as usize].load(Relaxed))
        .collect();
    assert_eq!(read, [10, 11, 12, 13]);
}

/// A word pager over a private scratch region writes the words changed
/// through the mutable slice back before it drops their pages, from
/// another thread too (the bitboard passes' I/O thread): they read
/// back from the mapping and are in the file.
#[test]
fn word_pager_writes_private_words_back() {
    let page_words = (page_size() / 8) as usize;
    let backing = Backing::Scratch(std::env::temp_dir());
    let mut region = Region::zeroed_paged::<AtomicU64>(
        4 * page_words as u64,
        &backing,
        "test",
        Paging::Explicit,
    )
    .expect("region");
    let file = std::sync::Arc::clone(region.pages.file.as_ref().expect("scratch file"));
    let (words, pager) = region.words_with_pager();
    pager.prefault(0..2 * page_words as u64);
    words[3] = 7;
    words[2 * page_words + 1] = 9;
    std::thread::scope(|s| {
        s.spawn(|| pager.release(0..4 * page_words as u64));
    });
    let mut on_disk = vec![0u8; 4 * page_words * 8];
    file.read_exact_at(&mut on_disk, 0).expect("read back");
    let word = |i: usize| u64::from_ne_bytes(on_disk[8 * i..8 * i + 8].try_into().unwrap());
    assert_eq!((word(3), word(2 * page_words + 1)), (7, 9));
    assert_eq!((words[3], words[2 * page_words + 1], words[4]), (7, 9, 0));
    assert!(region.take_write_error().is_none());
}

/// A page whose write-back fails stays in memory with its contents,
/// and the error is kept for the solve to report.
#[test]
fn failed_write_back_keeps_the_page() {
    let page = page_size() as usize;
    let mut region = scratch_region(2);
    // A read-only handle on another file: every pwrite fails.
    let path = std::env::temp_dir().join(format!("retrograde-ro-{}", std::process::id()));
    std::fs::write(&path, vec![0u8; 2 * page]).expect("file");
    region.pages.file = Some(std::sync::Arc::new(
        std::fs::File::open(&path).expect("read-only"),
    ));
    std::fs::remove_file(&path).expect("unlink");
    let bytes = region.atomics::<AtomicU8>();
    bytes[5].store(7, Relaxed);
    region.release(0..2 * page as u64, 1);
    assert!(region.take_write_error().is_some());
    assert!(region.take_write_error().is_none(), "taken once");
    assert_eq!(bytes[5].load(Relaxed), 7);
}

/// Prefaulted pages hold the file's contents and are written back like
/// any other private copy.
#[test]
fn prefault_keeps_contents() {
    let page = page_size() as usize;
    let region = scratch_region(3);
    let bytes = region.atomics::<AtomicU8>();
    bytes[page + 1].store(5, Relaxed);
    region.release(0..3 * page as u64, 1);
    region.prefault(0..3 * page as u64, 1);
    assert_eq!(bytes[page + 1].load(Relaxed), 5);
    bytes[1].store(4, Relaxed);
    region.release(0..3 * page as u64, 1);
    assert_eq!(
        (bytes[1].load(Relaxed), bytes[page + 1].load(Relaxed)),
        (4, 5)
    );
}

/// A scratch file's blocks are allocated when it is created: a disk
/// that fills up later cannot fault a page of a sparse file with
/// SIGBUS mid-solve (issue 47).
#[test]
fn scratch_files_hold_their_blocks() {
    use std::os::unix::fs::MetadataExt;
    let region = scratch_region(64);
    let file = region.pages.file.as_ref().expect("scratch file");
    let allocated = file.metadata().expect("metadata").blocks() * 512;
    assert!(
        allocated >= 64 * page_size(),
        "{allocated} bytes allocated of {}",
        64 * page_size()
    );
}

/// A scratch file that cannot be made is an error naming the folder
/// and why, not the internal array it was for, and a resource error
/// (exit status 1), not bad input.
#[test]
fn scratch_errors_name_the_folder() {
    let gone = std::env::temp_dir().join(format!("retrograde-gone-{}", std::process::id()));
    let e = Region::zeroed::<AtomicU8>(100, &Backing::Scratch(gone.clone()), "cw")
        .expect_err("no such folder");
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("scratch folder {} ", gone.display())),
        "{text}"
    );
    assert!(!text.contains("cw"), "{text}");
    assert!(!e.is_input_error());
    let dir = std::path::Path::new("/mnt/ro");
    let os = std::io::Error::from_raw_os_error;
    assert_eq!(
        Error::scratch(dir, 4096, os(libc::EROFS)).to_string(),
        "scratch folder /mnt/ro is not writable: cannot create a scratch file in it"
    );
    assert_eq!(
        Error::scratch(dir, 4096, os(libc::ENOSPC)).to_string(),
        "scratch folder /mnt/ro is full: no room for a scratch file of 4096 bytes (4.0 KiB)"
    );
}

/// On Linux with a readable pagemap, the self-check accepts it and a
/// written page reads as a private copy.
#[test]
fn pagemap_tells_private_copies() {
    if std::fs::File::open("/proc/self/pagemap").is_err() {
        return;
    }
    let Some(pagemap) = pagemap() else {
        return;
    };
    let region = scratch_region(2);
    region.atomics::<AtomicU8>()[0].store(1, Relaxed);
    let first = region.map.as_ptr() as u64 / page_size();
    let mut buffer = [0u8; 16];
    let entries: Vec<u64> = read_pagemap(pagemap, first, &mut buffer)
        .expect("pagemap")
        .collect();
    assert!(is_private_copy(entries[0]));
    assert!(!is_private_copy(entries[1]));
}
