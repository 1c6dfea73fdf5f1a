//! Where a table's blocks may lie: each kind's blocks in state order,
//! tiling the block area between the header and the index, as the writer
//! lays them out (checked when a table is opened).

use super::BlockEntry;

/// Checks that the blocks tile the block area as the writer lays them
/// out: each kind's blocks in state order, every byte between the header
/// and the index in exactly one block. A block's checksum covers its bytes
/// only, not its place; this binds the place as far as the existing fields
/// allow, without changing any valid file: an index entry pointed at
/// another block's bytes (a duplicate, an overlap) or a block swapped or
/// copied over one of another length is refused. (A copy over a block of
/// the very same length and kind still passes; only a new format could
/// catch that.) Returns the failing entry's index number and the reason.
pub(crate) fn check_tiling(
    values: &[BlockEntry],
    distances: &[BlockEntry],
    start: u64,
    end: u64,
) -> std::result::Result<(), (usize, String)> {
    for (base, entries) in [(0, values), (values.len(), distances)] {
        for (k, pair) in entries.windows(2).enumerate() {
            if pair[1].offset <= pair[0].offset {
                return Err((
                    base + k + 1,
                    format!(
                        "block at offset {} comes before the block it follows (offset {}): the index is damaged",
                        pair[1].offset, pair[0].offset
                    ),
                ));
            }
        }
    }
    // Every entry in offset order, numbered as the index numbers them
    // (values, then distances; on a tie the smaller number first).
    let mut order: Vec<(u64, u64, usize)> = values
        .iter()
        .chain(distances)
        .enumerate()
        .map(|(k, e)| (e.offset, u64::from(e.len), k))
        .collect();
    order.sort_unstable_by_key(|&(offset, _, k)| (offset, k));
    let mut at = start;
    for &(offset, len, k) in &order {
        if offset != at {
            return Err((
                k,
                format!(
                    "block at offset {offset}, where the block area's next block starts at {at}: the index is damaged"
                ),
            ));
        }
        at = offset + len;
    }
    if at != end {
        return Err((
            order.last().map_or(0, |o| o.2),
            format!(
                "the blocks end at offset {at}, the index starts at {end}: the index is damaged"
            ),
        ));
    }
    Ok(())
}
