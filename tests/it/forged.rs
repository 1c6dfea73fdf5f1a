//! The table reader against forged tables: index offsets and lengths,
//! trailer counts and header fields set to hostile values with every
//! checksum recomputed, so only the reader's own checks stand between the
//! forgery and a panic, a huge allocation or a wrong answer.

use std::path::{Path, PathBuf};

use retrograde::{Probe, Tablebase};

use crate::support::bin;
use crate::support::temp_dir;

pub(crate) const TRAILER: usize = 76;
const ENTRY: usize = 16;

/// A table of `map` saved by the binary (with distances when `dte`).
pub(crate) fn saved_table(dir: &Path, map: &str, name: &str, dte: bool) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["solve", map, "-q", "--save", path.to_str().unwrap()];
    if dte {
        args.push("--dte-table");
    }
    let o = bin().args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    path
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Recomputes the header checksum and the index-and-trailer checksum.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let body_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let crc_at = 16 + body_len;
    if crc_at + 4 <= bytes.len() {
        let crc = crc32fast::hash(&bytes[..crc_at]);
        bytes[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let trailer_at = bytes.len() - TRAILER;
    let index_offset = u64_at(bytes, trailer_at);
    let mut hasher = crc32fast::Hasher::new();
    if index_offset <= trailer_at as u64 {
        hasher.update(&bytes[index_offset as usize..trailer_at]);
    }
    hasher.update(&bytes[trailer_at..trailer_at + TRAILER - 12]);
    let crc = hasher.finalize();
    bytes[trailer_at + TRAILER - 12..trailer_at + TRAILER - 8].copy_from_slice(&crc.to_le_bytes());
}

/// Hostile values for a field of `width` bytes that held `orig`.
fn hostile(orig: u64, width: usize, file_len: u64) -> Vec<u64> {
    let max = if width == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    };
    let mut v = vec![
        0,
        1,
        max,
        max - 1,
        max - 15,
        max / 2,
        max / 2 + 1,
        orig.wrapping_add(1) & max,
        orig.wrapping_sub(1) & max,
        orig.wrapping_mul(2) & max,
        orig / 2,
        file_len & max,
        file_len.wrapping_add(1) & max,
        max.wrapping_sub(orig).wrapping_add(1) & max,
        4_000_000_000 & max,
    ];
    v.retain(|&x| x != orig);
    v.sort_unstable();
    v.dedup();
    v
}

/// Every probe of a forged table that opened is an error or the clean
/// table's answer; when a probe fails or its counts differ from the clean
/// one's, `check` finds the damage.
fn assert_no_wrong_answer(forged: &Path, clean: &Tablebase, truth: &[Probe], what: &str) {
    let tb = match Tablebase::open(forged) {
        Err(e) => {
            assert!(e.is_input_error(), "{what}: {e}");
            return;
        }
        Ok(tb) => tb,
    };
    let mut errors = 0;
    for (s, want) in truth.iter().enumerate() {
        match tb.probe_state(s as u64) {
            Ok(p) => assert_eq!(&p, want, "{what}: state {s} gives a wrong answer"),
            Err(_) => errors += 1,
        }
    }
    // Layout fields (block sizes) may differ harmlessly when every probe
    // is right; what the table claims about the game may not.
    let (h, c) = (tb.header(), clean.header());
    if (h.states, h.counts, h.rows, h.cols) != (c.states, c.counts, c.rows, c.cols) || errors > 0 {
        assert!(tb.check().is_err(), "{what}: opened, differs, passes check");
    }
}

fn forge_all(path: &Path, dir: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let clean = Tablebase::open(path).unwrap();
    let truth: Vec<Probe> = (0..clean.header().states)
        .map(|s| clean.probe_state(s).unwrap())
        .collect();
    let len = bytes.len();
    let trailer_at = len - TRAILER;
    let index_offset = u64_at(&bytes, trailer_at) as usize;
    let mut fields: Vec<(usize, usize, String)> = Vec::new();
    // Header fields: rows, cols, block sizes, the engine name's length.
    for (at, width, name) in [
        (16, 4, "rows"),
        (20, 4, "cols"),
        (42, 8, "values block states"),
        (50, 8, "distance block states"),
        (58, 1, "engine name length"),
    ] {
        fields.push((at, width, format!("header {name}")));
    }
    // Trailer: index offset, block counts, states, counts.
    for (k, name) in [
        "index offset",
        "value blocks",
        "distance blocks",
        "states",
        "wins",
        "losses",
        "draws",
    ]
    .iter()
    .enumerate()
    {
        fields.push((trailer_at + 8 * k, 8, format!("trailer {name}")));
    }
    // Every index entry's offset and length.
    for (k, at) in (index_offset..trailer_at).step_by(ENTRY).enumerate() {
        fields.push((at, 8, format!("entry {k} offset")));
        fields.push((at + 8, 4, format!("entry {k} length")));
    }
    let forged = dir.join("forged.rtb");
    let mut tried = 0;
    for (at, width, name) in fields {
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(&bytes[at..at + width]);
        let orig = u64::from_le_bytes(word);
        for value in hostile(orig, width, len as u64) {
            let mut copy = bytes.clone();
            copy[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            reseal(&mut copy);
            std::fs::write(&forged, &copy).unwrap();
            assert_no_wrong_answer(&forged, &clean, &truth, &format!("{name} = {value}"));
            tried += 1;
        }
    }
    // Entry offsets moved onto another block's bytes, with the checksum of
    // the bytes they now point at: the decoder must still refuse.
    let entries = (trailer_at - index_offset) / ENTRY;
    for k in 0..entries {
        let at = index_offset + k * ENTRY;
        let (offset, length) = (
            u64_at(&bytes, at),
            u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()),
        );
        for shift in [1i64, -1, 7, -7] {
            let moved = offset as i64 + shift;
            if moved < 0 || moved as usize + length as usize > index_offset {
                continue;
            }
            let mut copy = bytes.clone();
            copy[at..at + 8].copy_from_slice(&(moved as u64).to_le_bytes());
            let start = moved as usize;
            // The checksum of those bytes in this entry's place.
            let value_blocks = u64_at(&bytes, trailer_at + 8) as usize;
            let (kind, number) = if k < value_blocks {
                (0u8, k)
            } else {
                (1, k - value_blocks)
            };
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&[kind]);
            hasher.update(&(number as u64).to_le_bytes());
            hasher.update(&bytes[start..start + length as usize]);
            let crc = hasher.finalize();
            copy[at + 12..at + 16].copy_from_slice(&crc.to_le_bytes());
            reseal(&mut copy);
            std::fs::write(&forged, &copy).unwrap();
            assert_no_wrong_answer(&forged, &clean, &truth, &format!("entry {k} moved {shift}"));
            tried += 1;
        }
    }
    tried
}

/// Forged tables with valid checksums: never a panic, never a wrong
/// answer; the binary exits 2 on the worst of them (an offset near 2^64).
#[test]
fn forged_tables_with_valid_checksums_are_refused() {
    let dir = temp_dir("forged");
    let small = saved_table(&dir, "data/maps/sample.txt", "small.rtb", true);
    let values = saved_table(&dir, "data/maps/sample.txt", "values.rtb", false);
    let mut tried = 0;
    for path in [&small, &values] {
        tried += forge_all(path, &dir);
    }
    assert!(tried > 100, "{tried}");
    // Through the binary: an entry offset near 2^64 (offset + length wraps).
    let mut bytes = std::fs::read(&small).unwrap();
    let trailer_at = bytes.len() - TRAILER;
    let index_offset = u64_at(&bytes, trailer_at) as usize;
    bytes[index_offset..index_offset + 8].copy_from_slice(&(u64::MAX - 3).to_le_bytes());
    reseal(&mut bytes);
    let wrapped = dir.join("wrapped.rtb");
    std::fs::write(&wrapped, &bytes).unwrap();
    let o = bin()
        .args(["info", wrapped.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("wrapped.rtb") && err.contains("index entry 0"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table whose header names other rules (the thief's diagonal bit set)
/// with its checksum recomputed: every block reads back fine, so only
/// checking each value against its moves tells that the values were solved
/// for another game. `info --check` refuses it (exit status 2, naming the
/// file and a state), for one cop with and without distances and for two
/// cops; the clean tables pass.
#[test]
fn forged_rules_with_a_valid_checksum_fail_the_check() {
    let dir = temp_dir("forged-rules");
    let two = dir.join("two.rtb");
    let o = bin()
        .args([
            "solve",
            "data/maps/sample.txt",
            "--cops",
            "2",
            "-q",
            "--save",
        ])
        .arg(&two)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tables = [
        saved_table(&dir, "data/maps/sample.txt", "dte.rtb", true),
        saved_table(&dir, "data/maps/sample.txt", "values.rtb", false),
        two,
    ];
    for clean in &tables {
        Tablebase::open(clean)
            .unwrap()
            .check()
            .expect("a clean table passes");
        let mut bytes = std::fs::read(clean).unwrap();
        // Header body byte 8: the rule bits; 2 is the thief's diagonal.
        bytes[16 + 8] |= 2;
        reseal(&mut bytes);
        let forged = dir.join("forged.rtb");
        std::fs::write(&forged, &bytes).unwrap();
        let tb = Tablebase::open(&forged).expect("the header reads back");
        let e = tb.check().expect_err("forged rules pass the check");
        assert!(e.is_input_error(), "{e}");
        let o = bin()
            .args(["info", forged.to_str().unwrap(), "--check"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", clean.display());
        assert!(err.contains("forged.rtb: state "), "{err}");
        assert!(err.contains("solved for another game"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
