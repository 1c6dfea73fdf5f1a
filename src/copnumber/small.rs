//! The cop number's fast path for small plain graphs (n <= 64: one `u64`
//! per row, closed neighbourhoods as masks): a sequential engine that keeps
//! only the cops' attractor (with no exits and passing allowed the thief
//! never wins, he draws) and stops at the first level where a placement
//! wins against every thief cell; and dismantlability, which decides one
//! cop exactly.

use crate::games::multiset::{multiset_count, next_multiset, Ranker, MAX_COPS};

/// Whether a graph given by its closed neighbourhoods (`closed[v]` has bit
/// `v` and its neighbours; n <= 64) is dismantlable: vertices can be
/// removed one at a time, each a corner (its closed neighbourhood inside
/// another remaining vertex's), down to one. Exactly the graphs where one
/// cop wins (Nowakowski and Winkler; Quilliot).
///
/// # Panics
/// If `closed` has more than 64 vertices.
#[must_use]
pub fn is_dismantlable(closed: &[u64]) -> bool {
    let n = closed.len();
    assert!(n <= 64, "at most 64 vertices");
    if n == 0 {
        return false;
    }
    // Corners removed in passes, as many per pass as are found (the order
    // does not matter: a graph is dismantlable or not whichever corners go
    // first, as removing a corner keeps the cop number, see [`core`]).
    let mut alive: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    loop {
        let before = alive;
        let mut vs = alive;
        while vs != 0 {
            let v = vs.trailing_zeros() as usize;
            vs &= vs - 1;
            if alive.count_ones() == 1 {
                return true;
            }
            // The vertices adjacent to all of N[v] (v's among them) are
            // those whose closed neighbourhood holds N[v]: v is a corner
            // when one of them is another vertex.
            let mut ws = closed[v] & alive;
            let mut common = alive;
            while ws != 0 {
                let w = ws.trailing_zeros() as usize;
                ws &= ws - 1;
                common &= closed[w];
            }
            if common & !(1 << v) != 0 {
                alive &= !(1 << v);
            }
        }
        if alive.count_ones() == 1 {
            return true;
        }
        if alive == before {
            return false;
        }
    }
}

/// The vertices left (as a mask) once corners are removed one at a time
/// while some remain (at least one vertex is always left). Which corners go
/// first does not matter for the cop number: removing a corner keeps it
/// (see [`core`]).
///
/// # Panics
/// If `closed` has more than 64 vertices.
pub(crate) fn corners_removed(closed: &[u64]) -> u64 {
    let n = closed.len();
    assert!(n <= 64, "at most 64 vertices");
    let mut alive: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let mut left = n;
    while left > 1 {
        let mut removed = false;
        let mut vs = alive;
        while vs != 0 {
            let v = vs.trailing_zeros() as usize;
            vs &= vs - 1;
            let nv = closed[v] & alive;
            // A dominating vertex u != v must be a neighbour of v.
            let mut us = nv & !(1 << v);
            while us != 0 {
                let u = us.trailing_zeros() as usize;
                us &= us - 1;
                if nv & !closed[u] == 0 {
                    alive &= !(1 << v);
                    left -= 1;
                    removed = true;
                    break;
                }
            }
            if removed {
                break;
            }
        }
        if !removed {
            break;
        }
    }
    alive
}

/// The core of a graph: what is left once corners are removed (the
/// vertices of `alive`), renumbered in order.
///
/// It has the graph's cop number: a corner v (N[v] inside N[u]) maps onto
/// u by a retraction, so the graph without v needs no more cops
/// (Berarducci and Intrigila); and k cops winning there win on the whole
/// graph by chasing the thief's image (v read as u): once a cop stands on
/// the image, the thief on v can only step inside N[v], all next to u, and
/// is caught one move later. Capture times are not kept.
pub(crate) fn core(closed: &[u64], alive: u64) -> Vec<u64> {
    let compact = |mask: u64| {
        let mut out = 0u64;
        let mut vs = alive;
        let mut i = 0;
        while vs != 0 {
            let v = vs.trailing_zeros();
            vs &= vs - 1;
            out |= (mask >> v & 1) << i;
            i += 1;
        }
        out
    };
    let mut vs = alive;
    let mut out = Vec::with_capacity(alive.count_ones() as usize);
    while vs != 0 {
        let v = vs.trailing_zeros() as usize;
        vs &= vs - 1;
        out.push(compact(closed[v] & alive));
    }
    out
}

/// Whether k cops win on the plain graph `closed` (n <= 64) from some
/// placement: the smallest-rank placement winning fastest and its capture
/// time in plies, or `None`.
pub(crate) fn small_cops_win(closed: &[u64], k: usize) -> Option<(Vec<u32>, u32)> {
    let n = closed.len();
    debug_assert!(n <= 64 && (1..=MAX_COPS).contains(&k));
    if n == 0 {
        return None;
    }
    let full: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let ranker = Ranker::new(n);
    let ranks = multiset_count(n, k) as usize;
    let mut masks = vec![0u64; ranks];
    let mut cells = [0u32; MAX_COPS];
    for m in &mut masks {
        *m = cells[..k].iter().fold(0, |m, &c| m | 1 << c);
        next_multiset(&mut cells[..k], n);
    }
    let first_full = |cw: &[u64]| cw.iter().position(|&r| r == full);
    let unrank = |r: usize| crate::games::multiset::unrank_multiset(r as u64, k);
    let mut cw = masks.clone();
    let mut tl = masks.clone();
    if let Some(r) = first_full(&cw) {
        return Some((unrank(r), 0));
    }
    // Intermediate tables S_j, j = 1..k-1, and the next cw.
    let mut inter: Vec<Vec<u64>> = (1..k)
        .map(|j| vec![0u64; (multiset_count(n, j) * multiset_count(n, k - j)) as usize])
        .collect();
    let mut cw2 = vec![0u64; ranks];
    let mut level = 0;
    loop {
        // Cops: k single-cop steps, each an OR over a closed neighbourhood.
        for j in 0..k {
            let (sa, sb) = (j + 1, k - j - 1);
            let nb_src = multiset_count(n, k - j) as usize;
            let (before, after) = inter.split_at_mut(j);
            let from: &[u64] = if j == 0 { &tl } else { &before[j - 1] };
            let to: &mut [u64] = if j + 1 == k { &mut cw2 } else { &mut after[0] };
            let mut a = [0u32; MAX_COPS];
            let mut b = [0u32; MAX_COPS];
            for out in to.iter_mut() {
                let top = a[j];
                let base = (ranker.rank(&a[..sa]) - ranker.term(j, top)) as usize * nb_src;
                let mut acc = 0;
                let mut xs = closed[top as usize];
                while xs != 0 {
                    let x = xs.trailing_zeros();
                    xs &= xs - 1;
                    acc |= from[base + ranker.rank_with(&b[..sb], x) as usize];
                }
                *out = acc;
                if !next_multiset(&mut b[..sb], n) {
                    next_multiset(&mut a[..sa], n);
                }
            }
        }
        let mut changed = false;
        for r in 0..ranks {
            let c = masks[r] | cw2[r];
            // Thief: safe where some closed neighbour is outside cw.
            let mut outside = full & !cw[r];
            let mut safe = 0;
            while outside != 0 {
                let u = outside.trailing_zeros();
                outside &= outside - 1;
                safe |= closed[u as usize];
            }
            let t = masks[r] | (full & !safe);
            changed |= c != cw[r] || t != tl[r];
            cw[r] = c;
            tl[r] = t;
        }
        if !changed {
            return None;
        }
        level += 1;
        if let Some(r) = first_full(&cw) {
            return Some((unrank(r), level));
        }
    }
}

/// The thief's safe cells as a table lookup: `of(S)` is the union of the
/// closed neighbourhoods of the vertices of `S` (the cells from which the
/// thief can step outside the cops' won set). Up to 12 vertices, two
/// tables of the 64 unions of six vertices each, built once per graph,
/// replace a loop over the vertices of `S` at every row of every level;
/// larger graphs keep the loop.
struct Dilation<'a> {
    closed: &'a [u64],
    tables: Option<[[u64; 64]; 2]>,
}

impl Dilation<'_> {
    fn new(closed: &[u64]) -> Dilation<'_> {
        let n = closed.len();
        let tables = (n <= 12).then(|| {
            let mut tables = [[0u64; 64]; 2];
            for (c, table) in tables.iter_mut().enumerate() {
                let base = 6 * c;
                let width = n.saturating_sub(base).min(6);
                for s in 1..(1usize << width) {
                    table[s] = table[s & (s - 1)] | closed[base + s.trailing_zeros() as usize];
                }
            }
            tables
        });
        Dilation { closed, tables }
    }

    /// The union of `closed[u]` over the vertices `u` of `set`.
    #[inline]
    fn of(&self, set: u64) -> u64 {
        if let Some(t) = &self.tables {
            return t[0][(set & 63) as usize] | t[1][(set >> 6 & 63) as usize];
        }
        let mut set = set;
        let mut out = 0;
        while set != 0 {
            let u = set.trailing_zeros();
            set &= set - 1;
            out |= self.closed[u as usize];
        }
        out
    }
}

/// One cop on a small plain graph: [`small_cops_win`] with `k = 1`, on
/// the stack (a cop's rank is its vertex), for the millions of graphs of a
/// census.
pub(crate) fn small_one_cop_win(closed: &[u64]) -> Option<(Vec<u32>, u32)> {
    let n = closed.len();
    debug_assert!(n <= 64);
    if n == 0 {
        return None;
    }
    let full: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    if n == 1 {
        return Some((vec![0], 0));
    }
    // Level 1 wins on a dominating vertex (the cop's step reaches
    // everything): the first one ends the solve before any table.
    if let Some(a) = closed.iter().position(|&c| c == full) {
        return Some((vec![a as u32], 1));
    }
    let dilation = Dilation::new(closed);
    let mut cw = [0u64; 64];
    let mut tl = [0u64; 64];
    let mut moved = [0u64; 64];
    for v in 0..n {
        cw[v] = 1 << v;
        tl[v] = 1 << v;
    }
    let mut level = 0;
    loop {
        for (a, m) in moved.iter_mut().enumerate().take(n) {
            let mut acc = 0;
            let mut xs = closed[a];
            while xs != 0 {
                let x = xs.trailing_zeros() as usize;
                xs &= xs - 1;
                acc |= tl[x];
            }
            *m = acc;
        }
        let mut changed = false;
        let mut won = None;
        for a in 0..n {
            let c = 1 << a | moved[a];
            let safe = dilation.of(full & !cw[a]);
            let t = 1 << a | (full & !safe);
            changed |= c != cw[a] || t != tl[a];
            cw[a] = c;
            tl[a] = t;
            if c == full && won.is_none() {
                won = Some(a as u32);
            }
        }
        if !changed {
            return None;
        }
        level += 1;
        if let Some(a) = won {
            return Some((vec![a], level));
        }
    }
}

/// Two cops on a small plain graph, the same game as [`small_cops_win`]
/// with `k = 2` but over ordered pairs (`n * n` rows): direct indexing
/// instead of ranking, for the millions of small graphs of a graph6
/// stream. (Working from what changed at the level before instead was
/// tried: fewer instructions, no faster, as most rows change at every one
/// of the few levels.)
pub(crate) fn small_two_cops_win(closed: &[u64]) -> Option<(Vec<u32>, u32)> {
    let n = closed.len();
    debug_assert!(n <= 64);
    if n == 0 {
        return None;
    }
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        // Reused: an allocation per graph costs as much as a small solve.
        let len = 3 * n * n;
        if scratch.len() < len {
            scratch.resize(len, 0);
        }
        two_cops(closed, &mut scratch[..len])
    })
}

/// [`small_two_cops_win`] on `scratch` (`3 n^2` words, any values: every
/// one is written before it is read).
fn two_cops(closed: &[u64], scratch: &mut [u64]) -> Option<(Vec<u32>, u32)> {
    let n = closed.len();
    let full: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let mask = |a: usize, b: usize| (1u64 << a) | (1u64 << b);
    // Rank order of {a <= b} is b first, then a (colex).
    for b in 0..n {
        for a in 0..=b {
            if mask(a, b) == full {
                return Some((vec![a as u32, b as u32], 0));
            }
        }
    }
    // Level 1 wins where the two closed neighbourhoods cover the graph:
    // the first such pair in colex order ends the solve at once (most
    // graphs of cop number 2 on a few vertices), before any table.
    for b in 0..n {
        for a in 0..=b {
            if closed[a] | closed[b] == full {
                return Some((vec![a as u32, b as u32], 1));
            }
        }
    }
    let (cw, rest) = scratch.split_at_mut(n * n);
    let (tl, rest) = rest.split_at_mut(n * n);
    let (half, _) = rest.split_at_mut(n * n);
    let dilation = Dilation::new(closed);
    // cw[a * n + b] (a <= b): thief cells where the cops on a and b, to
    // move, have won; tl (both orders): the same with the thief to move;
    // half[y * n + b]: the cop on b to move, the other one moved to y.
    //
    // Level 1 in closed form: from cw = tl = {a, b} the cops' step wins
    // on N[a] | N[b] (the general step below gives the same), the thief
    // loses where every closed neighbour is a cop.
    let mut changed = false;
    for b in 0..n {
        for a in 0..=b {
            let m = mask(a, b);
            let c = closed[a] | closed[b];
            let t = m | (full & !dilation.of(full & !m));
            changed |= c != m || t != m;
            cw[a * n + b] = c;
            tl[a * n + b] = t;
            tl[b * n + a] = t;
        }
    }
    if !changed {
        return None;
    }
    let mut level = 1;
    loop {
        // The cop on b moves to x, the cop on y has moved already.
        for y in 0..n {
            let row = &tl[y * n..(y + 1) * n];
            for b in 0..n {
                let mut acc = 0;
                let mut xs = closed[b];
                while xs != 0 {
                    let x = xs.trailing_zeros() as usize;
                    xs &= xs - 1;
                    acc |= row[x];
                }
                half[y * n + b] = acc;
            }
        }
        let mut changed = false;
        let mut won = None;
        for b in 0..n {
            for a in 0..=b {
                let i = a * n + b;
                let mut acc = 0;
                let mut ys = closed[a];
                while ys != 0 {
                    let y = ys.trailing_zeros() as usize;
                    ys &= ys - 1;
                    acc |= half[y * n + b];
                }
                let c = mask(a, b) | acc;
                // Thief: safe where some closed neighbour is outside cw.
                let t = mask(a, b) | (full & !dilation.of(full & !cw[i]));
                changed |= c != cw[i] || t != tl[i];
                cw[i] = c;
                tl[i] = t;
                tl[b * n + a] = t;
                // The first full row in colex order: rows full before
                // would have ended the solve at an earlier level.
                if c == full && won.is_none() {
                    won = Some(vec![a as u32, b as u32]);
                }
            }
        }
        if !changed {
            return None;
        }
        level += 1;
        if let Some(p) = won {
            return Some((p, level));
        }
    }
}

/// Whether two vertices dominate the graph (then two cops win at once).
pub(crate) fn dominated_by_two(closed: &[u64]) -> bool {
    let n = closed.len();
    let full: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    (0..n).any(|b| (0..=b).any(|a| closed[a] | closed[b] == full))
}

/// Closed neighbourhoods of a graph with n <= 64, written into the first
/// `n` words of `out`.
pub(crate) fn closed_masks<'a>(n: usize, edges: &[(u32, u32)], out: &'a mut [u64]) -> &'a [u64] {
    let closed = &mut out[..n];
    for (v, c) in closed.iter_mut().enumerate() {
        *c = 1 << v;
    }
    for &(u, v) in edges {
        closed[u as usize] |= 1 << v;
        closed[v as usize] |= 1 << u;
    }
    closed
}
