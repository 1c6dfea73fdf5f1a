//! One graph of a census: a graph6 line decoded straight into closed
//! neighbourhoods (no edge list) and its cop number, placement and capture
//! time.

use crate::copnumber::number::{cop_number_of_graph, cop_number_of_masks, CopNumber};
use crate::format::graph6::{decode, parse_graph6, Graph6Error};

/// The cop number of one graph6 line with its placement and capture time,
/// as the census counts it: graphs of up to 62 vertices are decoded
/// straight into closed neighbourhoods for the small engine (no edge list
/// is built), larger ones go through [`cop_number_of_graph`].
///
/// # Errors
/// [`Graph6Error`] for a line that is not graph6, or a graph with no
/// vertices (it has no cop number).
///
/// # Panics
/// If `max_cops` is above 4.
pub fn census_graph(line: &[u8], max_cops: u32) -> Result<CopNumber, Graph6Error> {
    let no_vertices = || {
        Graph6Error {
        column: 1,
        message: "expected a graph of at least one vertex, found none (a graph with no vertices has no cop number)"
            .into(),
    }
    };
    let mut closed = [0u64; 64];
    if let Some(n) = closed_of_graph6(line, &mut closed) {
        return Ok(cop_number_of_masks(&closed[..n], max_cops));
    }
    // Anything else the fast decoder declined: the graph6 decoder, which
    // names what is wrong, or a graph of over 62 vertices.
    if line.first().is_some_and(|&b| (63..126).contains(&b)) {
        for (v, c) in closed.iter_mut().enumerate() {
            *c = 1 << v;
        }
        let n = decode(line, |u, v| {
            closed[u as usize] |= 1 << v;
            closed[v as usize] |= 1 << u;
        })?;
        if n == 0 {
            return Err(no_vertices());
        }
        return Ok(cop_number_of_masks(&closed[..n], max_cops));
    }
    let (n, edges) = parse_graph6(line)?;
    if n == 0 {
        return Err(no_vertices());
    }
    Ok(cop_number_of_graph(n, &edges, max_cops, true))
}

/// The vertices `(u, v)` of bit `k` of graph6's upper triangle (column by
/// column: `(0,1), (0,2), (1,2), (0,3)` ...), for graphs of up to 62
/// vertices.
fn triangle() -> &'static [(u8, u8)] {
    static PAIRS: std::sync::OnceLock<Vec<(u8, u8)>> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        (1..62u8)
            .flat_map(|v| (0..v).map(move |u| (u, v)))
            .collect()
    })
}

/// The closed neighbourhoods of a well-formed graph6 line of 1 to 62
/// vertices, written into `closed`, visiting only the set bits; `None` for
/// anything else (a bad byte, length or padding, no vertex, a longer
/// order), which the full decoder then names.
fn closed_of_graph6(line: &[u8], closed: &mut [u64; 64]) -> Option<usize> {
    let (&first, rest) = line.split_first()?;
    if !(64..126).contains(&first) {
        return None;
    }
    let n = usize::from(first - 63);
    let bits = n * (n - 1) / 2;
    if rest.len() != bits.div_ceil(6) {
        return None;
    }
    for (v, c) in closed.iter_mut().enumerate().take(n) {
        *c = 1 << v;
    }
    let pairs = triangle();
    for (i, &b) in rest.iter().enumerate() {
        if !(63..=126).contains(&b) {
            return None;
        }
        let mut x = u32::from(b - 63);
        while x != 0 {
            // Most significant bit first: bit 5 is position 6i.
            let bit = 31 - x.leading_zeros();
            x &= !(1 << bit);
            let k = 6 * i + 5 - bit as usize;
            let &(u, v) = pairs.get(k).filter(|_| k < bits)?;
            closed[usize::from(u)] |= 1 << v;
            closed[usize::from(v)] |= 1 << u;
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The fast decoder reads what the graph6 decoder reads, and
        /// declines every line that one refuses.
        #[test]
        fn the_fast_decoder_agrees_with_graph6(
            n in 0usize..64,
            seed in proptest::prelude::any::<u64>(),
            flip in proptest::option::of((0usize..400, 0u8..=255)),
        ) {
            let mut next = crate::xorshift::stream(seed | 1);
            let mut edges = Vec::new();
            for v in 1..n as u32 {
                for u in 0..v {
                    if next().is_multiple_of(3) {
                        edges.push((u, v));
                    }
                }
            }
            let mut line = crate::format::graph6::to_graph6(n, &edges).into_bytes();
            if let Some((at, b)) = flip {
                if !line.is_empty() {
                    let at = at % (line.len() + 1);
                    if at == line.len() {
                        line.push(b);
                    } else {
                        line[at] = b;
                    }
                }
            }
            let mut fast = [0u64; 64];
            let got = closed_of_graph6(&line, &mut fast);
            match parse_graph6(&line) {
                Ok((m, e)) if (1..=62).contains(&m) => {
                    proptest::prop_assert_eq!(got, Some(m));
                    let mut masks = [0u64; 64];
                    let want = crate::copnumber::small::closed_masks(m, &e, &mut masks);
                    proptest::prop_assert_eq!(&fast[..m], want);
                }
                _ => proptest::prop_assert_eq!(got, None),
            }
        }
    }
}
