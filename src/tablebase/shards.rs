//! The shard set of a partitioned solve's table: shard file names
//! (`NAME.I-of-N.rtb`), finding a set saved under a name, opening and
//! checking a whole set (one solve's shards that tile the states), and
//! what the header says of each file.

use std::path::{Path, PathBuf};

use super::format::{self, ShardInfo};
use super::header::ShardHeader;
use super::reader::{table_error, Raw};
use crate::error::{Error, Result};

/// The file of shard `index` of `count` of a table saved as `path`:
/// `DIR/NAME.INDEX-of-COUNT.rtb`, where `NAME` is the file name of `path`
/// without `.rtb` (`out/t.rtb`, shard 1 of 3: `out/t.1-of-3.rtb`).
#[must_use]
pub fn shard_path(path: &Path, index: u32, count: u32) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = name.strip_suffix(".rtb").unwrap_or(&name);
    path.with_file_name(format!("{base}.{index}-of-{count}.rtb"))
}

/// `(NAME, index, count)` of a shard's file name `NAME.I-of-N.rtb`.
fn parse_shard_name(name: &str) -> Option<(&str, u32, u32)> {
    let (base, tag) = name.strip_suffix(".rtb")?.rsplit_once('.')?;
    let (index, count) = tag.split_once("-of-")?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if base.is_empty() || !digits(index) || !digits(count) {
        return None;
    }
    Some((base, index.parse().ok()?, count.parse().ok()?))
}

/// For a table path that does not exist, `NAME.rtb`: a shard of a set saved
/// under that name, found by listing its folder (no wildcards involved);
/// `None` when there is none.
fn find_shard(path: &Path) -> Result<Option<PathBuf>> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(None);
    };
    let base = name.strip_suffix(".rtb").unwrap_or(name);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut found: Vec<(u32, u32, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let file = entry.file_name();
        if let Some((b, index, count)) = file.to_str().and_then(parse_shard_name) {
            if b == base {
                found.push((count, index, path.with_file_name(&file)));
            }
        }
    }
    found.sort();
    match (found.first(), found.last()) {
        (Some(a), Some(b)) if a.0 != b.0 => Err(table_error(
            path,
            "shards",
            format!(
                "shards of more than one partitioned solve are saved under this name ({} and {}): open one shard's file to choose",
                a.2.display(),
                b.2.display()
            ),
        )),
        (Some(a), _) => Ok(Some(a.2.clone())),
        _ => Ok(None),
    }
}

/// Opens `path`, or when no such file exists a shard saved under that
/// name ([`find_shard`]).
pub(super) fn open_first(path: &Path) -> Result<Raw> {
    match Raw::open(path) {
        Err(Error::Io { path: p, source }) if source.kind() == std::io::ErrorKind::NotFound => {
            match find_shard(path)? {
                Some(found) => Raw::open(&found),
                None => Err(Error::Io { path: p, source }),
            }
        }
        other => other,
    }
}

/// Opens every shard of the set `first` belongs to and checks that they
/// are one solve's and tile the states; returns them in state order.
pub(super) fn open_set(first: Raw, info: ShardInfo) -> Result<Vec<Raw>> {
    let name = first
        .path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_shard_name)
        .map(|(base, i, n)| (base.to_string(), i, n));
    let base = match name {
        Some((base, i, n)) if (i, n) == (info.index, info.count) => first.path.with_file_name(base),
        Some((_, i, n)) => {
            return Err(first.error(
                "header",
                format!(
                    "holds shard {} of {}, but its name says shard {i} of {n} (a copy or a rename of another shard?)",
                    info.index, info.count
                ),
            ))
        }
        None => {
            return Err(first.error(
                "header",
                format!(
                    "holds shard {} of {} of a partitioned solve, but its name does not end in .{}-of-{}.rtb: the other shards are found by their names",
                    info.index, info.count, info.index, info.count
                ),
            ))
        }
    };
    // Not `with_capacity(count)`: the count comes from the file, and each
    // shard is opened (or found missing) before the next is needed.
    let mut shards = Vec::new();
    let mut first = Some(first);
    for k in 0..info.count {
        if k == info.index {
            shards.push(first.take().expect("the opened shard"));
            continue;
        }
        let path = shard_path(&base, k, info.count);
        let raw = match Raw::open(&path) {
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(table_error(
                    &path,
                    "shard",
                    format!(
                        "missing: shard {k} of {} of this table is not there (each process of the solve writes its own shard; copy them all into one folder)",
                        info.count
                    ),
                ))
            }
            other => other?,
        };
        shards.push(raw);
    }
    let reference = &shards[info.index as usize];
    let same = |r: &Raw| {
        let strip = |r: &Raw| format::HeaderBody {
            shard: None,
            ..r.body.clone()
        };
        strip(r) == strip(reference)
    };
    for (k, raw) in shards.iter().enumerate() {
        match raw.body.shard {
            None => {
                return Err(raw.error(
                    "header",
                    format!("not a shard: expected shard {k} of {}", info.count),
                ))
            }
            Some(sh) if sh.count != info.count => {
                return Err(raw.error(
                    "header",
                    format!(
                        "a shard of another solve: shard {} of {}, expected shard {k} of {} like {}",
                        sh.index,
                        sh.count,
                        info.count,
                        reference.path.display()
                    ),
                ))
            }
            Some(sh) if sh.index as usize != k => {
                return Err(raw.error(
                    "header",
                    format!(
                        "holds shard {} of {}, expected shard {k} (a copy or a rename of another shard?)",
                        sh.index, sh.count
                    ),
                ))
            }
            Some(_) => {}
        }
        if !same(raw) || raw.trailer.levels != reference.trailer.levels {
            return Err(raw.error(
                "header",
                format!(
                    "a shard of another solve: its map, starts, exits, rules, game, distances, engine or levels differ from {}'s",
                    reference.path.display()
                ),
            ));
        }
    }
    let total = reference.body.state_count();
    let mut end = 0;
    for raw in &shards {
        let sh = raw.body.shard.expect("checked");
        if sh.first_state != end {
            return Err(raw.error(
                "header",
                format!(
                    "a shard of another solve: it holds states {}..{}, the shards before it end at state {end}",
                    sh.first_state, sh.end_state
                ),
            ));
        }
        end = sh.end_state;
    }
    if end != total {
        let last = shards.last().expect("at least one shard");
        return Err(last.error(
            "header",
            format!(
                "a shard of another solve: the shards end at state {end}, the game has {total} states"
            ),
        ));
    }
    Ok(shards)
}

/// What [`Header::shards`] says of each file of a table of `n` cells:
/// its band of states, of multisets (`2n` states each) and, by `rows_of`,
/// of cop rows.
pub(super) fn shard_headers(
    shards: &[Raw],
    n: u64,
    rows_of: impl Fn(&std::ops::Range<u64>) -> std::ops::Range<usize>,
) -> Vec<ShardHeader> {
    let block = (2 * n).max(1);
    shards
        .iter()
        .map(|r| {
            let states = r.first..r.first + r.trailer.states;
            ShardHeader {
                path: r.path.clone(),
                index: r.body.shard.map_or(0, |s| s.index),
                count: r.body.shard.map_or(1, |s| s.count),
                rows: rows_of(&states),
                multisets: states.start / block..states.end / block,
                states,
                counts: r.trailer.counts,
                bytes: r.file_bytes(),
            }
        })
        .collect()
}
