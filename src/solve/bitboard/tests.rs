//! The bit readers against their definitions: `pext` / `pdep` against
//! bit-by-bit loops, and the word-wise value fill against the
//! state-by-state one.

#[cfg(target_arch = "x86_64")]
use super::bits::fill_pairs_bmi2;
use super::bits::{fill_pairs, pext, spread4};
use super::*;
use crate::{parse_map, Board, Engine, Placement};

use crate::xorshift::stream;

/// `pext` bit by bit.
fn pext_naive(x: u64, mask: u64) -> u64 {
    let mut out = 0;
    let mut k = 0;
    for i in 0..64 {
        if mask >> i & 1 == 1 {
            out |= (x >> i & 1) << k;
            k += 1;
        }
    }
    out
}

#[test]
fn bit_tricks_equal_their_definitions() {
    let mut next = stream(0x9e37_79b9_7f4a_7c15);
    for round in 0..4000 {
        let x = next();
        // Dense, sparse, full and empty masks.
        let mask = match round % 4 {
            0 => next(),
            1 => next() & next() & next(),
            2 => u64::MAX,
            _ => next() | next(),
        };
        let want = pext_naive(x, mask);
        assert_eq!(pext::<false>(x, mask), want, "{x:#x} {mask:#x}");
        let spread = (0..16).fold(0, |acc, i| acc | (x >> i & 1) << (4 * i));
        assert_eq!(spread4::<false>(x & 0xffff), spread);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2") {
            assert_eq!(pext::<true>(x, mask), want);
            assert_eq!(spread4::<true>(x & 0xffff), spread);
        }
    }
}

#[test]
fn word_wise_fill_equals_the_state_by_state_one() {
    // Walls make runs of every length, and a wide map makes rows span
    // several words.
    let mut next = stream(7);
    let (rows, cols) = (9, 150);
    let mut text = format!("{rows} {cols}\n");
    for r in 0..rows {
        for c in 0..cols {
            let ch = match (r, c) {
                (0, 0) => 'C',
                (8, 149) => 'T',
                _ if next().is_multiple_of(5) => '*',
                _ if next().is_multiple_of(9) => 'E',
                _ => '.',
            };
            text.push(ch);
        }
        text.push('\n');
    }
    let map = parse_map(text.as_bytes(), "inline").unwrap();
    let board = Board::new(&map, &Placement::default()).unwrap();
    let game = CopsAndThief::new(board, crate::Rules::default());
    let options = SolveOptions::new(Engine::Bitboard);
    let (bits, _) = super::solve(&game, &options, None).unwrap();
    let n = 2 * (bits.layout.cells as u64).pow(2);
    let mut ranges = vec![0..n, 0..0, 2..3, n - 2..n - 1];
    for _ in 0..40 {
        let (a, b) = (next() % (n + 1), next() % (n + 1));
        ranges.push(a.min(b) & !1..a.max(b));
    }
    for range in ranges {
        let len = (range.end - range.start) as usize;
        let mut want = vec![0u8; len.div_ceil(4)];
        bits.fill_values_each(range.clone(), &mut want);
        for (i, s) in range.clone().enumerate() {
            assert_eq!((want[i / 4] >> (2 * (i % 4))) & 3, bits.outcome(s) as u8);
        }
        let mut got = vec![0xa5u8; len.div_ceil(4)];
        fill_pairs::<false>(&bits, range.clone(), &mut got);
        assert_eq!(got, want, "{range:?}");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2") {
            let mut got = vec![0x5au8; len.div_ceil(4)];
            // SAFETY: the CPU has BMI2.
            unsafe { fill_pairs_bmi2(&bits, range.clone(), &mut got) };
            assert_eq!(got, want, "{range:?}");
        }
    }
}

/// Bytes a run's buffers hold, counted from the buffers themselves.
fn held_by(run: &Run<'_>) -> u64 {
    fn bytes<T>(v: &[T]) -> u64 {
        std::mem::size_of_val(v) as u64
    }
    let halo = |h: &Option<halo::Halo>| {
        h.as_ref()
            .map_or(0, |h| bytes(&h.words) + bytes(&h.changed))
    };
    let bands: u64 = run
        .bands
        .iter()
        .map(|b| {
            let staged: u64 = b
                .staged
                .iter()
                .chain(&b.staged_next)
                .map(|v| bytes(v))
                .sum();
            let spans: u64 = b
                .staged_span
                .iter()
                .chain(&b.staged_next_span)
                .map(|v| bytes(v))
                .sum();
            staged + spans + halo(&b.above) + halo(&b.below) + halo(&b.keep) + bytes(&b.scratch)
        })
        .sum();
    bands + bytes(&run.cop_changed) + bytes(&run.thief_changed)
}

#[test]
fn the_plan_counts_the_working_buffers_of_every_band() {
    // Few wide rows (the staging rows then weigh as much as the bitsets),
    // a tall map (bands of two levels at a time), and a map of one row.
    for (rows, cols) in [(3, 700), (40, 30), (1, 300)] {
        let text = format!("{rows} {cols}\n") + &format!("{}\n", ".".repeat(cols)).repeat(rows);
        let map = parse_map(text.as_bytes(), "inline").unwrap();
        let board = Board::new(&map, &Placement::default()).unwrap();
        let game = CopsAndThief::new(board, crate::Rules::default());
        let layout = Layout::new(&game);
        let masks = MoveMasks::new(&game, &layout);
        let options = SolveOptions::new(Engine::Bitboard);
        for threads in [1, 2, 5] {
            let mut run = Run::new(&layout, &masks, None, &options, threads);
            if run.two_levels {
                let widest = layout.widest();
                for band in &mut run.bands {
                    band.enable_two_levels(&layout, widest);
                }
            }
            let held = held_by(&run);
            let planned = cuts::run_buffers(&layout, threads);
            assert!(
                held <= planned && planned <= held + held / 2 + 4096,
                "{rows} x {cols}, {threads} threads: buffers {held} bytes, planned {planned}"
            );
        }
    }
}

/// A game on an open map of `rows` x `cols` (one cop, the default rules).
#[cfg(feature = "distributed")]
fn open_game(rows: usize, cols: usize) -> CopsAndThief {
    let text = format!("{rows} {cols}\n") + &format!("{}\n", ".".repeat(cols)).repeat(rows);
    let map = parse_map(text.as_bytes(), "inline").unwrap();
    let board = Board::new(&map, &Placement::default()).unwrap();
    CopsAndThief::new(board, crate::Rules::default())
}

#[cfg(feature = "distributed")]
#[test]
fn a_band_keeps_the_halo_rows_of_its_depth_and_reads_them_from_their_owners() {
    let game = open_game(12, 5);
    let layout = Layout::new(&game);
    let rows = [0..2, 2..3, 3..9, 9..12];
    let cells = |r: std::ops::Range<usize>| {
        layout.row_cells[r.start] as usize..layout.row_cells[r.end] as usize
    };
    for depth in 1..=4 {
        // Band 2..3: `depth` rows above (clipped at the map's top) and
        // below, from two or three owners.
        assert_eq!(
            peers::kept_cells(&layout, &rows, 1, depth),
            cells(2usize.saturating_sub(depth)..3 + depth),
            "depth {depth}"
        );
        assert_eq!(
            peers::kept_cells(&layout, &rows, 3, depth),
            cells(9 - depth..12),
            "depth {depth}"
        );
    }
    // Depth i: the rows i further out, where the map has them.
    assert_eq!(peers::halo_rows_at(&rows, 1, 12, 0), vec![1, 3]);
    assert_eq!(peers::halo_rows_at(&rows, 1, 12, 1), vec![0, 4]);
    assert_eq!(peers::halo_rows_at(&rows, 1, 12, 2), vec![5]);
    assert_eq!(peers::halo_rows_at(&rows, 3, 12, 3), vec![5]);
    assert_eq!(peers::halo_rows_at(&rows, 0, 12, 5), vec![7]);
}

#[cfg(feature = "distributed")]
#[test]
fn the_levels_per_pass_grow_with_the_cap_and_are_the_clusters() {
    let game = open_game(60, 30);
    let bytes = partition::band_bytes(&game, 3, 1, true);
    let plans_at = |room| partition::band_plans(&game, 3, 1, true, room);
    let minimum = plans_at(1)
        .into_iter()
        .map(|p| p.expect_err("a 1-byte cap"))
        .max()
        .unwrap();
    let mut last = 0;
    let mut grew = false;
    for step in 0..40u64 {
        let room = minimum + step * (minimum / 8);
        let planned = plans_at(room);
        let levels = partition::cluster_levels(&planned);
        let plans: Vec<_> = planned.into_iter().map(Result::unwrap).collect();
        let Some(levels) = levels else {
            // No band pages any more: every one fits.
            assert!(bytes.iter().all(|&b| b <= room), "{room}");
            break;
        };
        assert!(levels >= last, "{room}: {levels} after {last}");
        grew |= levels > 1;
        last = levels;
        // Every process the same levels, at most the tallest band's rows
        // (20), the paged ones under the cap.
        assert!(levels <= 20, "{room}: {levels}");
        for plan in &plans {
            assert_eq!(plan.levels, levels, "{room}");
            if !plan.whole {
                assert!(plan.resident <= room, "{room}: {plan:?}");
            }
        }
        // One level per pass at the minimum.
        if step == 0 {
            assert_eq!(levels, 1);
        }
    }
    assert!(grew, "the levels never grew");
}
