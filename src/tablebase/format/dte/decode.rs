//! The distance codec's decoders: a block of version 3 on (`decode_dte`) and a
//! version 2 block (`decode_dte_v2`, still read), with what only they use
//! (undoing the zigzag and the prediction, the first row's code table), and
//! the version 2 encoder the tests round-trip through. Separate from the
//! encoder (`dte.rs`, with its SIMD bodies) because reading a block shares
//! nothing with writing one but the layout and the escape byte.

#[cfg(test)]
use super::residuals;
use super::ESCAPE;

/// Inverse of [`zigzag`](super::zigzag).
#[inline]
fn unzigzag(z: u16) -> u16 {
    (z >> 1) ^ 0u16.wrapping_sub(z & 1)
}

/// Undoes the prediction in place: residuals (already unzigzagged) to
/// distances.
fn undo_prediction(d: &mut [u16], row: usize) {
    let row = row.max(2);
    let m = d.len();
    // The first row: each state adds to the one two before it.
    let first = m.min(row);
    for k in 2..first {
        d[k] = d[k].wrapping_add(d[k - 2]);
    }
    // Later rows add the row above. A several-cops table's rows are short
    // (a thief tile's states: 16 at 8 cells a tile), where a loop per row
    // costs more than its additions: a fixed-width running row instead.
    if row == 16 && m > row {
        undo_rows::<16>(d);
        return;
    }
    // Else a whole row at a time (no overlap, so the loop vectorises).
    let mut k = first;
    while k < m {
        let end = (k + row).min(m);
        let (done, rest) = d.split_at_mut(k);
        for (x, p) in rest[..end - k].iter_mut().zip(&done[k - row..]) {
            *x = x.wrapping_add(*p);
        }
        k = end;
    }
}

/// [`undo_prediction`] past the first row for rows of `R` states: a
/// running row (registers) adds itself to each row and becomes it.
fn undo_rows<const R: usize>(d: &mut [u16]) {
    let (first, rest) = d.split_at_mut(R);
    let mut acc: [u16; R] = (&*first).try_into().expect("R states");
    let mut rows = rest.chunks_exact_mut(R);
    for row in &mut rows {
        for (x, a) in row.iter_mut().zip(acc.iter_mut()) {
            *a = a.wrapping_add(*x);
            *x = *a;
        }
    }
    for (x, a) in rows.into_remainder().iter_mut().zip(&acc) {
        *x = x.wrapping_add(*a);
    }
}

/// Per byte of 4 first-row codes, their 4 residuals (u16 lanes of a
/// word, the first code in the low lane; 0 for an escape, filled in
/// later).
const HEAD_RESIDUALS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 4 {
            // Codes 1 and 2: the residuals -2 and +2 (zigzag 3 and 4).
            let r: u64 = match (b >> (2 * j)) & 3 {
                1 => 0xfffe,
                2 => 2,
                _ => 0,
            };
            t[b] |= r << (16 * j);
            j += 1;
        }
        b += 1;
    }
    t
};

/// Inverse of [`encode_dte`](super::encode_dte): the `m` distances of a
/// block (version 3 on) from its stored bytes, or what is wrong with them.
pub(crate) fn decode_dte(bytes: &[u8], m: usize, row: usize) -> Result<Vec<u16>, String> {
    // The first row: 2-bit codes, then the escaped residuals' bytes.
    let head = m.min(row.max(2));
    let codes = head.div_ceil(4);
    let Some(packed) = bytes.get(..codes) else {
        return Err(format!(
            "{} bytes, the first row's codes need {codes}",
            bytes.len()
        ));
    };
    // The escapes of 32 states (a word of codes: both bits set), codes
    // past the first row (padding) left out.
    let words = codes.div_ceil(8);
    let escapes_in = |w: usize| -> u64 {
        let chunk = &packed[8 * w..codes.min(8 * w + 8)];
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let p = u64::from_le_bytes(word);
        let states = (head - 32 * w).min(32);
        let valid = u64::MAX >> (64 - 2 * states);
        p & (p >> 1) & 0x5555_5555_5555_5555 & valid
    };
    let head_escapes: usize = (0..words)
        .map(|w| escapes_in(w).count_ones() as usize)
        .sum();
    let mut pos = codes + head_escapes;
    let Some(escaped) = bytes.get(codes..pos) else {
        return Err(format!(
            "{} bytes, the first row's codes and escapes need {pos}",
            bytes.len()
        ));
    };
    let mut varint = |what: &str| -> Result<usize, String> {
        let mut x = 0usize;
        for shift in (0..35).step_by(7) {
            let Some(&b) = bytes.get(pos) else {
                return Err(format!("the runs end inside a {what} count at byte {pos}"));
            };
            pos += 1;
            x |= usize::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(x);
            }
        }
        Err(format!(
            "a {what} count longer than 5 bytes ends at byte {pos}"
        ))
    };
    // Then the non-zero runs, as (first state, length).
    let mut runs = Vec::new();
    let mut k = head;
    let mut nonzero = 0;
    while k < m {
        let zeros = varint("zero")?;
        let ones = varint("non-zero")?;
        if zeros + ones == 0 || zeros + ones > m - k {
            return Err(format!(
                "a run of {zeros} zero and {ones} non-zero residuals at state {k} of {m}"
            ));
        }
        k += zeros;
        runs.push((k, ones));
        k += ones;
        nonzero += ones;
    }
    let low_end = pos + nonzero;
    let Some(low) = bytes.get(pos..low_end) else {
        return Err(format!(
            "{nonzero} residual bytes from byte {pos}, the block has {}",
            bytes.len()
        ));
    };
    // Two counts, not one over a chain: each vectorises.
    let wides = escaped.iter().filter(|&&b| b == ESCAPE).count()
        + low.iter().filter(|&&b| b == ESCAPE).count();
    if bytes.len() != low_end + 2 * wides {
        return Err(format!(
            "{} bytes, the residuals need {}",
            bytes.len(),
            low_end + 2 * wides
        ));
    }
    let mut wide = bytes[low_end..]
        .chunks_exact(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]));
    let mut widen = |b: u8, at: usize| -> Result<u16, String> {
        if b != ESCAPE {
            return Ok(u16::from(b));
        }
        let w = wide.next().expect("one wide value per escape, counted");
        if w < u16::from(ESCAPE) {
            return Err(format!("the wide residual {w} of state {at} fits a byte"));
        }
        Ok(w)
    };
    let mut d = vec![0u16; m];
    // The first row: 4 residuals per code byte from a table, then the
    // escaped ones in their places.
    for (x, &b) in d[..head].chunks_mut(4).zip(packed) {
        let four = HEAD_RESIDUALS[usize::from(b)];
        for (j, x) in x.iter_mut().enumerate() {
            *x = (four >> (16 * j)) as u16;
        }
    }
    let mut escaped = escaped.iter();
    for w in 0..words {
        let mut hits = escapes_in(w);
        while hits != 0 {
            let i = 32 * w + hits.trailing_zeros() as usize / 2;
            d[i] = unzigzag(widen(*escaped.next().expect("counted"), i)?);
            hits &= hits - 1;
        }
    }
    // The runs: a residual per low byte, in a loop without a branch per
    // residual; the rare wide ones after.
    if low.contains(&0) {
        return Err("a zero residual in a run of non-zero ones".into());
    }
    let mut at = 0;
    for &(start, len) in &runs {
        for (x, &b) in d[start..start + len].iter_mut().zip(&low[at..at + len]) {
            *x = unzigzag(u16::from(b));
        }
        at += len;
    }
    // Escapes found 8 low bytes at a time (a byte 255 is a zero byte of
    // the complement); runs walked alongside to place them.
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let (mut run, mut run_at) = (0, 0);
    for (w, chunk) in low.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let v = !u64::from_le_bytes(word);
        // The top bit of each byte of `v` that is not zero (exact: no
        // carry crosses a byte).
        let nonzero = (((v & LOW7) + LOW7) | v) & !LOW7;
        let mut hits = !nonzero & !LOW7;
        while hits != 0 {
            let j = 8 * w + hits.trailing_zeros() as usize / 8;
            while j >= run_at + runs[run].1 {
                run_at += runs[run].1;
                run += 1;
            }
            let state = runs[run].0 + (j - run_at);
            d[state] = unzigzag(widen(ESCAPE, state)?);
            hits &= hits - 1;
        }
    }
    undo_prediction(&mut d, row);
    Ok(d)
}

/// The version 2 layout of a distance block: all zigzag residuals, low
/// bytes then high bytes.
#[cfg(test)]
pub(crate) fn encode_dte_v2(d: &[u16], row: usize) -> Vec<u8> {
    let mut z = Vec::new();
    residuals(d, row, &mut z);
    let mut out: Vec<u8> = z.iter().map(|&v| v as u8).collect();
    out.extend(z.iter().map(|&v| (v >> 8) as u8));
    out
}

/// Distances of a version 2 distance block (`bytes` has 2 bytes per
/// state).
pub(crate) fn decode_dte_v2(bytes: &[u8], row: usize) -> Vec<u16> {
    let m = bytes.len() / 2;
    let (lo, hi) = bytes.split_at(m);
    let mut d: Vec<u16> = lo
        .iter()
        .zip(hi)
        .map(|(&l, &h)| unzigzag(u16::from(l) | u16::from(h) << 8))
        .collect();
    undo_prediction(&mut d, row);
    d
}
