//! The two-level radix sort that builds every CSR of the crate (the
//! reverse CSR of an [`ExplicitGraph`](super::ExplicitGraph) and a parsed
//! edge list alike) from edges that can be replayed in pieces.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Csr, Target};
use crate::error::Result;
use crate::storage::{Backing, Region};

/// Edges that can be replayed as `(key, value)` pairs, split into pieces
/// that are scanned independently (in parallel), each always in the same
/// order: the input of [`bucket`].
pub(crate) trait EdgeScan: Sync {
    /// Number of pieces.
    fn pieces(&self) -> usize;

    /// Calls `f(key, value)` for every edge of piece `p`, in order.
    fn scan_piece(&self, p: usize, f: impl FnMut(u64, u64));
}

/// The edges of a CSR turned around: `(target, source)`, one piece per
/// range of sources.
pub(super) struct Transposed<'a> {
    csr: &'a Csr,
    per_piece: u64,
}

impl<'a> Transposed<'a> {
    pub(super) fn new(csr: &'a Csr) -> Transposed<'a> {
        let pieces = (rayon::current_num_threads() as u64 * 4).min(csr.vertices.div_ceil(1 << 12));
        Transposed {
            csr,
            per_piece: csr.vertices.div_ceil(pieces.max(1)).max(1),
        }
    }
}

impl EdgeScan for Transposed<'_> {
    fn pieces(&self) -> usize {
        self.csr.vertices.div_ceil(self.per_piece) as usize
    }

    fn scan_piece(&self, p: usize, mut f: impl FnMut(u64, u64)) {
        fn walk<T: Target>(
            offsets: &[AtomicU64],
            targets: &[T],
            sources: Range<u64>,
            f: &mut impl FnMut(u64, u64),
        ) {
            let mut start = offsets[sources.start as usize].load(Relaxed) as usize;
            for u in sources {
                let end = offsets[u as usize + 1].load(Relaxed) as usize;
                for t in &targets[start..end] {
                    f(t.get(), u);
                }
                start = end;
            }
        }
        let csr = self.csr;
        let sources =
            p as u64 * self.per_piece..((p as u64 + 1) * self.per_piece).min(csr.vertices);
        if csr.wide {
            walk(
                csr.offsets(),
                csr.targets.atomics::<AtomicU64>(),
                sources,
                &mut f,
            );
        } else {
            walk(
                csr.offsets(),
                csr.targets.atomics::<AtomicU32>(),
                sources,
                &mut f,
            );
        }
    }
}

/// Keys per bucket of [`bucket`]'s first level, as a power of two: the
/// per-key counters of one bucket (128 KiB) stay in a core's cache, and the
/// low bits of a key fit the `u16` scratch array.
const BUCKET_SHIFT: u32 = 15;

/// Transient bytes [`bucket`] needs besides the CSR it returns: the low key
/// bits (2 bytes per edge) and per-worker scratch for one bucket.
pub(crate) fn bucket_scratch_bytes(edges: u64) -> u64 {
    2 * edges
}

/// Builds the CSR of the `(key, value)` edges of `input` grouped by key,
/// values in scan order (pieces in order) within each key.
///
/// A plain counting sort writes every edge to a random place in arrays far
/// larger than the caches, one cache miss per edge per pass. This is a
/// two-level radix sort instead: first every piece counts, then scatters,
/// its edges into buckets of 2^15 consecutive keys (a few hundred
/// sequential write streams), keeping each edge's value in its final bucket
/// segment of the target array and its key's low bits in a `u16` array;
/// then each bucket, in parallel, counts its keys and permutes its segment
/// stably with counters that fit in cache.
///
/// # Panics
/// If `input` yields a key `>= vertices`, or not exactly `edges` edges.
pub(crate) fn bucket<S: EdgeScan + ?Sized>(
    input: &S,
    vertices: u64,
    edges: u64,
    backing: &Backing,
    what: &str,
) -> Result<Csr> {
    let offsets = Csr::offsets_for(vertices, backing, what)?;
    let csr = Csr::with_targets(offsets, vertices, edges, backing, what)?;
    let buckets = (vertices >> BUCKET_SHIFT) as usize + 1;
    // Level 1, count: edges per (piece, bucket).
    let counts: Vec<Vec<u64>> = (0..input.pieces())
        .into_par_iter()
        .map(|p| {
            let mut counts = vec![0u64; buckets];
            input.scan_piece(p, |k, _| {
                assert!(k < vertices, "{what}: key {k} is not below {vertices}");
                counts[(k >> BUCKET_SHIFT) as usize] += 1;
            });
            counts
        })
        .collect();
    // Where each (piece, bucket) run starts: buckets in key order, pieces in
    // scan order within a bucket.
    let mut starts = vec![vec![0u64; buckets]; counts.len()];
    let mut bucket_starts = Vec::with_capacity(buckets + 1);
    let mut at = 0u64;
    for b in 0..buckets {
        bucket_starts.push(at);
        for (p, c) in counts.iter().enumerate() {
            starts[p][b] = at;
            at += c[b];
        }
    }
    bucket_starts.push(at);
    assert_eq!(at, edges, "{what}: expected {edges} edges, found {at}");
    let low = Region::zeroed::<AtomicU16>(edges, backing, &format!("{what} key scratch"))?;
    let low = low.atomics::<AtomicU16>();
    let offsets = csr.offsets();
    fn sort<T: Target, S: EdgeScan + ?Sized>(
        input: &S,
        starts: Vec<Vec<u64>>,
        bucket_starts: &[u64],
        low: &[AtomicU16],
        offsets: &[AtomicU64],
        targets: &[T],
    ) {
        let mask = (1u64 << BUCKET_SHIFT) - 1;
        // Level 1, scatter: each piece writes its own runs, so no two
        // workers touch the same element.
        starts
            .into_par_iter()
            .enumerate()
            .for_each(|(p, mut cursor)| {
                input.scan_piece(p, |k, v| {
                    let c = &mut cursor[(k >> BUCKET_SHIFT) as usize];
                    targets[*c as usize].put(v);
                    low[*c as usize].store((k & mask) as u16, Relaxed);
                    *c += 1;
                });
            });
        // Level 2: a stable counting sort inside each bucket's segment.
        let vertices = offsets.len() as u64 - 1;
        (0..bucket_starts.len() - 1).into_par_iter().for_each_init(
            || (vec![0u64; 1 << BUCKET_SHIFT], Vec::<u64>::new()),
            |(count, values), b| {
                let segment = bucket_starts[b] as usize..bucket_starts[b + 1] as usize;
                let first = (b as u64) << BUCKET_SHIFT;
                let keys = ((1u64 << BUCKET_SHIFT).min(vertices - first)) as usize;
                count[..keys].fill(0);
                for l in &low[segment.clone()] {
                    count[l.load(Relaxed) as usize] += 1;
                }
                let mut run = segment.start as u64;
                for (j, c) in count[..keys].iter_mut().enumerate() {
                    let degree = *c;
                    *c = run;
                    run += degree;
                    offsets[first as usize + j + 1].store(run, Relaxed);
                }
                values.clear();
                values.extend(targets[segment.clone()].iter().map(Target::get));
                for (i, &v) in segment.clone().zip(values.iter()) {
                    let c = &mut count[low[i].load(Relaxed) as usize];
                    targets[*c as usize].put(v);
                    *c += 1;
                }
            },
        );
    }
    if csr.wide {
        let targets = csr.targets.atomics::<AtomicU64>();
        sort(input, starts, &bucket_starts, low, offsets, targets);
    } else {
        let targets = csr.targets.atomics::<AtomicU32>();
        sort(input, starts, &bucket_starts, low, offsets, targets);
    }
    Ok(csr)
}
