//! The distance codec against its plain twin, round trips and damage.

use super::*;
use crate::xorshift::stream as xorshift;

/// Distance blocks of every shape the coding must survive: random
/// jumps, the extremes and wrapping residuals; all draws (all zero);
/// equal rows (zero runs past the first row, long enough for 2- and
/// 3-byte run counts); residuals of every size in runs.
fn blocks() -> Vec<(Vec<u16>, usize)> {
    let mut next = xorshift(12345);
    let mut out = Vec::new();
    for (m, row) in [
        (0, 4),
        (50, 0),
        (1, 4),
        (2, 2),
        (3, 2),
        (1000, 6),
        (1000, 998),
        (1000, 2000),
        (999, 10),
        // Rows of 16 (a several-cops tile of 8 cells: its own loop),
        // whole, with a short last row, and one row alone.
        (1024, 16),
        (1001, 16),
        (16, 16),
        (17, 16),
    ] {
        let d: Vec<u16> = (0..m)
            .map(|k| match next() % 6 {
                0 => 0,
                1 => u16::MAX,
                2 => (next() % 65536) as u16,
                _ => (k % 300) as u16,
            })
            .collect();
        out.push((d, row));
    }
    out.push((vec![0; 40_000], 100));
    out.push((vec![7; 40_000], 100));
    let row: Vec<u16> = (0..300).map(|k| (k % 17) as u16 * 2 + 1).collect();
    out.push((row.iter().copied().cycle().take(60_000).collect(), 300));
    // Rows that differ from the row above in a few runs of residuals of
    // every size (1 byte, escaped, the largest).
    let mut d: Vec<u16> = row.iter().copied().cycle().take(30_000).collect();
    for k in 300..d.len() {
        d[k] = d[k - 300];
        if (k / 37) % 11 == 0 {
            d[k] = d[k].wrapping_add([2, 65534, 300, 32768, 127, 128][k % 6]);
        }
    }
    out.push((d, 300));
    out
}

#[test]
fn distance_coding_round_trips() {
    for (d, row) in blocks() {
        let m = d.len();
        let bytes = encode_dte(&d, row);
        assert!(bytes.len() <= dte_bytes_bound(m));
        assert_eq!(decode_dte(&bytes, m, row).unwrap(), d, "m {m} row {row}");
        let v2 = encode_dte_v2(&d, row);
        assert_eq!(v2.len(), 2 * m);
        assert_eq!(decode_dte_v2(&v2, row), d, "v2: m {m} row {row}");
    }
    // All draws: the first row's zero codes and one pair of run counts.
    assert_eq!(encode_dte(&[0; 40_000], 100).len(), 25 + 3 + 1);
    // Equal rows: after the first row only zeros, so the residual
    // bytes are those of the first row alone (codes and 8 escapes).
    let d: Vec<u16> = (0..4000).map(|k| (k % 8) as u16 * 3 + 1).collect();
    let bytes = encode_dte(&d, 8);
    assert_eq!(bytes.len(), 2 + 8 + 3, "{bytes:?}");
    // Steps of 2 plies in the first row have codes of their own.
    // Four equal rows of 8: codes (3 3 2 2, 2 2 2 2, the first state
    // of each turn escaped: zigzag 20), then 24 zeros, no non-zero.
    let d: Vec<u16> = (0..32).map(|k| 10 + 2 * (k % 8 / 2) as u16).collect();
    assert_eq!(encode_dte(&d, 8), [0b1010_1111, 0b1010_1010, 20, 20, 24, 0]);
}

/// The version 3 layout written plainly (module documentation): every
/// residual first, then the first row's codes and escapes, then the
/// runs found a residual at a time. The encoder must match it byte for
/// byte.
fn reference_encoder(d: &[u16], row: usize) -> Vec<u8> {
    fn push(v: u16, low: &mut Vec<u8>, wide: &mut Vec<u8>) {
        low.push(v.min(u16::from(ESCAPE)) as u8);
        if v >= u16::from(ESCAPE) {
            wide.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut z = Vec::new();
    residuals(d, row, &mut z);
    let m = z.len();
    let head = m.min(row.max(2));
    let mut out = vec![0u8; head.div_ceil(4)];
    let (mut escaped, mut runs, mut low, mut wide) = (vec![], vec![], vec![], vec![]);
    for (i, &v) in z[..head].iter().enumerate() {
        let code = match v {
            0 => 0,
            3 => 1,
            4 => 2,
            _ => HEAD_ESCAPE,
        };
        out[i / 4] |= code << (2 * (i % 4));
        if code == HEAD_ESCAPE {
            push(v, &mut escaped, &mut wide);
        }
    }
    let mut k = head;
    while k < m {
        let start = (k..m).find(|&i| z[i] != 0).unwrap_or(m);
        let end = (start..m).find(|&i| z[i] == 0).unwrap_or(m);
        for &v in &z[start..end] {
            push(v, &mut low, &mut wide);
        }
        push_varint(start - k, &mut runs);
        push_varint(end - start, &mut runs);
        k = end;
    }
    for part in [escaped, runs, low, wide] {
        out.extend(part);
    }
    out
}

/// The encoder against [`reference_encoder`] on random blocks: every
/// length around the 32- and 64-state steps, rows shorter and longer
/// than a step, runs of every length (starting and ending anywhere
/// in a step), residuals of every size.
#[test]
fn encoder_matches_the_reference() {
    let mut next = xorshift(99);
    let mut encoder = DteEncoder::default();
    // Both instruction sets, whichever `encode` picks on this CPU.
    let mut check = |d: &[u16], row: usize| {
        let want = reference_encoder(d, row);
        encoder.encode(d, row);
        assert_eq!(encoder.out, want, "m {} row {row}", d.len());
        encoder.encode_with::<false>(d, row);
        assert_eq!(encoder.out, want, "SSE2: m {} row {row}", d.len());
    };
    for (d, row) in blocks() {
        check(&d, row);
    }
    for case in 0..3000 {
        let m = match case % 3 {
            0 => (next() % 200) as usize,
            1 => (next() % 2000) as usize,
            _ => 64 * (next() % 40) as usize + (next() % 3) as usize,
        };
        let row = (next() % 140) as usize;
        // A row, then rows that copy the one above but for runs of
        // changes of random lengths and sizes.
        let change_rate = 1 + next() % 40;
        let mut d: Vec<u16> = Vec::with_capacity(m);
        let mut changing = 0u64;
        for k in 0..m {
            let above = if k >= row.max(2) {
                Some(d[k - row.max(2)])
            } else {
                None
            };
            let x = match above {
                None => match next() % 5 {
                    0 => (next() % 65536) as u16,
                    _ => (k % 50) as u16 * 2,
                },
                Some(a) => {
                    if changing == 0 && next().is_multiple_of(change_rate) {
                        changing = 1 + next() % 100;
                    }
                    if changing > 0 {
                        changing -= 1;
                        a.wrapping_add(
                            [2, 65534, 1, 300, 32768, 254, 255, 0][(next() % 8) as usize],
                        )
                    } else {
                        a
                    }
                }
            };
            d.push(x);
        }
        check(&d, row);
        assert_eq!(
            decode_dte(&encode_dte(&d, row), m, row).unwrap(),
            d,
            "m {m} row {row}"
        );
    }
}

/// Damaged run counts, residual bytes or wide values are errors (never
/// a panic or a silent wrong block).
#[test]
fn damaged_distance_blocks_are_errors() {
    let (d, row) = blocks().pop().unwrap();
    let m = d.len();
    let bytes = encode_dte(&d, row);
    let expect_err = |b: &[u8], m: usize, what: &str| {
        let e = decode_dte(b, m, row).expect_err(what);
        assert!(!e.is_empty());
    };
    expect_err(&bytes[..bytes.len() - 1], m, "one byte short");
    let mut longer = bytes.clone();
    longer.push(1);
    expect_err(&longer, m, "one byte more");
    expect_err(&bytes, m - 1, "runs past the block");
    expect_err(&bytes, m + 1, "runs short of the block");
    // Small blocks of rows of 2 states: the first 2 as codes (one
    // byte), their escapes, then runs.
    let small = |b: &[u8], m: usize| decode_dte(b, m, 2);
    assert!(small(&[], 5).is_err(), "no runs");
    assert!(small(&[0, 0, 0], 5)
        .unwrap_err()
        .contains("a run of 0 zero and 0 non-zero"));
    let endless = [0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
    assert!(small(&endless, 5)
        .unwrap_err()
        .contains("longer than 5 bytes"));
    assert_eq!(small(&[0b1010, 0, 1, 2], 3).unwrap(), [2, 2, 3]);
    assert!(small(&[0b1010, 0, 1, 0], 3).is_err(), "a zero in a run");
    // A wide value (after an escape) that fits a byte.
    assert_eq!(small(&[3, ESCAPE, 0, 1], 1).unwrap(), [128]);
    assert!(small(&[3, ESCAPE, 5, 0], 1).is_err(), "a narrow wide value");
    // Any damage is an error or some block: never a panic.
    let mut next = xorshift(99);
    for _ in 0..2000 {
        let mut copy = bytes.clone();
        let i = next() as usize % copy.len();
        copy[i] ^= 1 << (next() % 8);
        if let Ok(decoded) = decode_dte(&copy, m, row) {
            assert_eq!(decoded.len(), m);
        }
    }
}
