//! The cop-number census of a set of graphs cut into shards: what one
//! shard found ([`Tally`]: counts by cop number, capture-time histograms,
//! the graphs of the largest cop number and of the longest capture times),
//! its file ([`ShardFile`]), and the merge of every shard of a census into
//! one result ([`Census`]) with a checksum over it.
//!
//! Both files are one canonical text serialization, line by line, ending
//! with `sha256 HEX`, the SHA-256 of every byte before that line: a file
//! is read back only if its checksum holds and it is exactly what this
//! code writes for what it says (so a damaged or edited file is refused,
//! never merged), and two runs that found the same thing write the same
//! bytes. A census is named by its [`CensusKey`] (source, vertices,
//! shards, most cops, format): shards of another census are refused on
//! merge, and so are duplicate or missing shards.
//!
//! Tallies add up in shard order: merging the shards of any runs gives
//! the tally of one run over the whole stream, shard 0 first. `text.rs`
//! writes the files, `read.rs` reads them back and checks every field;
//! `graph.rs` answers one graph6 line;
//! `check.rs` checks each answer by corner elimination, apart from the
//! solver.

mod check;
mod graph;
mod read;
mod text;

use std::collections::BTreeMap;
use std::fmt;

use super::number::CopNumber;
pub use check::{CheckError, Dismantler};
pub use graph::census_graph;

/// Version of the census files' serialization; files of another version
/// are refused on merge.
pub const CENSUS_FORMAT: u32 = 1;

/// Most graphs listed per extreme (the graphs of the largest cop number,
/// those of each longest capture time): the first ones in shard and
/// stream order; the count says how many there are in all.
pub const LISTED_MOST: usize = 1000;

/// What names a census: shards agree on all of it, or are not merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusKey {
    /// The graphs' source: the generator's command template (with `{n}`,
    /// `{res}`, `{mod}`), or `files` for given graph6 files, one a shard.
    pub source: String,
    /// The order the template was given (`{n}`); `None` for files.
    pub vertices: Option<u32>,
    /// Shards in the census (the template's `{mod}`).
    pub shards: u32,
    /// Most cops tried; a graph needing more counts as "more".
    pub max_cops: u32,
}

/// A graph named in a census: its graph6 text, a winning placement (empty
/// for a graph needing more than the most cops) and its capture time in
/// plies (rounds: `(plies + 1) / 2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The graph, as read (graph6).
    pub graph6: String,
    /// The placement that wins fastest (smallest in colex order on ties).
    pub placement: Vec<u32>,
    /// Capture time from there, in plies.
    pub plies: u32,
}

/// The longest capture time of a cop number, with how many graphs take
/// it and the first [`LISTED_MOST`] of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Longest {
    /// The capture time in rounds.
    pub rounds: u32,
    /// Graphs with that capture time.
    pub graphs: u64,
    /// The first of them.
    pub listed: Vec<Listed>,
}

/// The graphs of one cop number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopClass {
    /// How many.
    pub graphs: u64,
    /// Graphs by capture time in rounds (index: rounds); empty for the
    /// graphs needing more than the most cops, which have none.
    pub capture_times: Vec<u64>,
    /// The longest capture time and its graphs (`None` for "more").
    pub longest: Option<Longest>,
}

/// What a census found over some graphs: counts by cop number (`None`:
/// more than the most cops), each cop number's capture times and longest
/// ones, and the graphs of the largest cop number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Graphs counted.
    pub graphs: u64,
    /// By cop number; `None` (needing more than the most cops) is the
    /// largest.
    pub classes: BTreeMap<Option<u32>, CopClass>,
    /// The first [`LISTED_MOST`] graphs of the largest cop number.
    pub largest: Vec<Listed>,
}

/// A cop number in the order "more" last.
fn order(c: Option<u32>) -> u32 {
    c.unwrap_or(u32::MAX)
}

/// `b` appended to `a`, keeping the first [`LISTED_MOST`].
fn extend(a: &mut Vec<Listed>, b: &[Listed]) {
    let room = LISTED_MOST.saturating_sub(a.len());
    a.extend(b.iter().take(room).cloned());
}

impl Tally {
    /// The largest cop number met (`Some(None)`: more than the most cops),
    /// `None` when no graph was counted.
    #[must_use]
    pub fn largest_cop_number(&self) -> Option<Option<u32>> {
        self.classes.keys().copied().max_by_key(|&c| order(c))
    }

    /// Counts one graph (`graph6` its text) and its answer, which must be
    /// timed (placement and capture time computed) when the cops win.
    ///
    /// # Panics
    /// If `r` is untimed with a cop number.
    pub fn add(&mut self, graph6: &[u8], r: &CopNumber) {
        assert!(
            r.timed || r.cop_number.is_none(),
            "a census needs capture times"
        );
        let listed = || Listed {
            graph6: String::from_utf8_lossy(graph6).into_owned(),
            placement: r.placement.clone(),
            plies: r.capture_time_plies,
        };
        let c = r.cop_number;
        match self.largest_cop_number() {
            Some(l) if order(l) > order(c) => {}
            Some(l) if l == c => {
                if self.largest.len() < LISTED_MOST {
                    self.largest.push(listed());
                }
            }
            _ => self.largest = vec![listed()],
        }
        self.graphs += 1;
        let class = self.classes.entry(c).or_default();
        class.graphs += 1;
        if c.is_none() {
            return;
        }
        let rounds = r.capture_time_rounds;
        let at = rounds as usize;
        if class.capture_times.len() <= at {
            class.capture_times.resize(at + 1, 0);
        }
        class.capture_times[at] += 1;
        match &mut class.longest {
            Some(l) if l.rounds > rounds => {}
            Some(l) if l.rounds == rounds => {
                l.graphs += 1;
                if l.listed.len() < LISTED_MOST {
                    l.listed.push(listed());
                }
            }
            longest => {
                *longest = Some(Longest {
                    rounds,
                    graphs: 1,
                    listed: vec![listed()],
                });
            }
        }
    }

    /// Adds what `later` counted, as if its graphs came after these.
    pub fn absorb(&mut self, later: &Tally) {
        match (self.largest_cop_number(), later.largest_cop_number()) {
            (_, None) => {}
            (Some(a), Some(b)) if order(a) > order(b) => {}
            (Some(a), Some(b)) if a == b => extend(&mut self.largest, &later.largest),
            _ => self.largest.clone_from(&later.largest),
        }
        self.graphs += later.graphs;
        for (&c, b) in &later.classes {
            let a = self.classes.entry(c).or_default();
            a.graphs += b.graphs;
            if a.capture_times.len() < b.capture_times.len() {
                a.capture_times.resize(b.capture_times.len(), 0);
            }
            for (x, y) in a.capture_times.iter_mut().zip(&b.capture_times) {
                *x += y;
            }
            match (&mut a.longest, &b.longest) {
                (_, None) => {}
                (Some(x), Some(y)) if x.rounds > y.rounds => {}
                (Some(x), Some(y)) if x.rounds == y.rounds => {
                    x.graphs += y.graphs;
                    extend(&mut x.listed, &y.listed);
                }
                (x, y) => x.clone_from(y),
            }
        }
    }
}

/// A census file that cannot be used: the file, the line when one is to
/// blame, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusError {
    /// The file as named by the caller.
    pub path: String,
    /// 1-based line, when one line is to blame.
    pub line: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for CensusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for CensusError {}

/// One shard's result: the census it belongs to, its index (the
/// template's `{res}`), what it read (the command run, or the file), and
/// its tally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFile {
    /// The census.
    pub key: CensusKey,
    /// Index, `0..key.shards`.
    pub index: u32,
    /// The command that generated the shard's graphs, or its file.
    pub input: String,
    /// What it found.
    pub tally: Tally,
}

/// One shard as the merged census lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardEntry {
    /// Index.
    pub index: u32,
    /// Graphs in it.
    pub graphs: u64,
    /// The SHA-256 of its file (its last line's).
    pub sha256: String,
}

/// Every shard of a census merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
    /// The census.
    pub key: CensusKey,
    /// Every shard, by index.
    pub shards: Vec<ShardEntry>,
    /// The whole tally.
    pub tally: Tally,
}

/// Merges the shards of one census, each with the name its errors give
/// (its file), into the whole: every shard of the census exactly once,
/// all of the same census.
///
/// # Errors
/// [`CensusError`] naming the file: a shard of another census (the field
/// that differs, both values), a shard given twice (both files), shards
/// missing (their indices), or no shard at all.
pub fn merge(shards: &[(String, ShardFile)]) -> Result<Census, CensusError> {
    let Some((first_name, first)) = shards.first() else {
        return Err(CensusError {
            path: "merge".into(),
            line: None,
            message: "no shard files given".into(),
        });
    };
    let key = &first.key;
    let mut by_index: BTreeMap<u32, (&String, &ShardFile)> = BTreeMap::new();
    for (name, s) in shards {
        if let Some(why) = key_difference(key, &s.key) {
            return Err(CensusError {
                path: name.clone(),
                line: None,
                message: format!(
                    "a shard of another census than {first_name}: {why}; merge only the shards of one census"
                ),
            });
        }
        if let Some((other, _)) = by_index.insert(s.index, (name, s)) {
            return Err(CensusError {
                path: name.clone(),
                line: None,
                message: format!(
                    "shard {} of {} is given twice (also {other}); give each shard once",
                    s.index, key.shards
                ),
            });
        }
    }
    let missing: Vec<u32> = (0..key.shards)
        .filter(|i| !by_index.contains_key(i))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(20).map(u32::to_string).collect();
        let more = if missing.len() > 20 { ", ..." } else { "" };
        return Err(CensusError {
            path: first_name.clone(),
            line: None,
            message: format!(
                "{} of the {} shards of this census are missing: {}{more}; run them (census --shard I) before merging",
                missing.len(),
                key.shards,
                shown.join(", ")
            ),
        });
    }
    let mut tally = Tally::default();
    let mut entries = Vec::with_capacity(by_index.len());
    for (&index, (_, s)) in &by_index {
        tally.absorb(&s.tally);
        entries.push(ShardEntry {
            index,
            graphs: s.tally.graphs,
            sha256: s.sha256(),
        });
    }
    Ok(Census {
        key: key.clone(),
        shards: entries,
        tally,
    })
}

/// How `b` differs from `a`, in words; `None` when it is the same census.
#[must_use]
pub fn key_difference(a: &CensusKey, b: &CensusKey) -> Option<String> {
    let show = |v: Option<u32>| v.map_or_else(|| "any".to_string(), |n| n.to_string());
    if a.source != b.source {
        return Some(format!(
            "source `{}` where `{}` was expected",
            b.source, a.source
        ));
    }
    if a.vertices != b.vertices {
        return Some(format!(
            "vertices {} where {} was expected",
            show(b.vertices),
            show(a.vertices)
        ));
    }
    if a.shards != b.shards {
        return Some(format!(
            "{} shards where {} was expected",
            b.shards, a.shards
        ));
    }
    if a.max_cops != b.max_cops {
        return Some(format!(
            "max-cops {} where {} was expected",
            b.max_cops, a.max_cops
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copnumber::number::cop_number_of_graph;
    use crate::format::graph6::parse_graph6;

    fn tally_of(lines: &[&str]) -> Tally {
        let mut t = Tally::default();
        for l in lines {
            t.add(l.as_bytes(), &census_graph(l.as_bytes(), 4).unwrap());
        }
        t
    }

    const SIX: &str = include_str!("../../../data/graphs/connected-6.g6");

    #[test]
    fn tallies_absorbed_in_order_equal_one_tally() {
        let all: Vec<&str> = SIX.lines().collect();
        let whole = tally_of(&all);
        for cut in [0, 1, 17, 60, all.len()] {
            let mut a = tally_of(&all[..cut]);
            a.absorb(&tally_of(&all[cut..]));
            assert_eq!(a, whole, "cut at {cut}");
        }
        assert_eq!(whole.graphs, 112);
        assert_eq!(whole.classes[&Some(1)].graphs, 68);
        assert_eq!(whole.classes[&Some(2)].graphs, 44);
        assert_eq!(whole.largest.len(), 44);
    }

    #[test]
    fn census_graph_agrees_with_the_edge_list_path() {
        for l in SIX.lines() {
            let (n, edges) = parse_graph6(l.as_bytes()).unwrap();
            assert_eq!(
                census_graph(l.as_bytes(), 4).unwrap(),
                cop_number_of_graph(n, &edges, 4, true),
                "{l}"
            );
        }
        assert!(census_graph(b"?", 4).is_err());
        assert_eq!(census_graph(b"E?B", 4).unwrap_err().column, 4);
    }

    fn shard(index: u32, lines: &[&str]) -> ShardFile {
        ShardFile {
            key: CensusKey {
                source: "awk {res}/{mod}".into(),
                vertices: Some(6),
                shards: 3,
                max_cops: 4,
            },
            index,
            input: format!("awk {index}/3"),
            tally: tally_of(lines),
        }
    }

    #[test]
    fn files_read_back_and_refuse_damage() {
        let all: Vec<&str> = SIX.lines().collect();
        let s = shard(1, &all);
        let text = s.to_text();
        assert_eq!(ShardFile::parse("s", &text).unwrap(), s);
        // Every line changed by one character is refused.
        for (i, line) in text.lines().enumerate() {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            lines[i] = format!("{line}x");
            let bad = lines.join("\n") + "\n";
            let e = ShardFile::parse("s", &bad).unwrap_err();
            assert_eq!(e.path, "s");
        }
        // A truncated file too.
        assert!(ShardFile::parse("s", &text[..text.len() / 2]).is_err());
        let parts = [&all[..40], &all[40..41], &all[41..]];
        let files: Vec<(String, ShardFile)> = parts
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("f{i}"), shard(i as u32, p)))
            .collect();
        let census = merge(&files).unwrap();
        assert_eq!(census.tally, tally_of(&all));
        assert_eq!(Census::parse("c", &census.to_text()).unwrap(), census);
        assert_eq!(census.sha256().len(), 64);
        // Duplicates, missing and foreign shards are refused.
        let mut dup = files.clone();
        dup[2] = ("f2".into(), files[1].1.clone());
        assert!(merge(&dup).unwrap_err().message.contains("twice"));
        assert!(merge(&files[..2])
            .unwrap_err()
            .message
            .contains("missing: 2"));
        let mut foreign = files.clone();
        foreign[1].1.key.max_cops = 3;
        let e = merge(&foreign).unwrap_err();
        assert_eq!(e.path, "f1");
        assert!(e.message.contains("max-cops 3"), "{e}");
    }
}
