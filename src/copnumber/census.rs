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
//! the tally of one run over the whole stream, shard 0 first.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use super::number::{cop_number_of_graph, cop_number_of_masks, CopNumber};
use super::sha256::sha256_hex;
use crate::format::graph6::{decode, parse_graph6, Graph6Error};

/// Version of the census files' serialization; files of another version
/// are refused on merge.
pub const CENSUS_FORMAT: u32 = 1;

/// Most graphs listed per extreme (the graphs of the largest cop number,
/// those of each longest capture time): the first ones in shard and
/// stream order; the count says how many there are in all.
pub const LISTED_MOST: usize = 1000;

/// The first line of every census file.
const MAGIC: &str = "retrograde copnumber census";

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

/// The header lines of a census file.
fn write_key(out: &mut String, key: &CensusKey) {
    let vertices = key
        .vertices
        .map_or_else(|| "any".to_string(), |n| n.to_string());
    let _ = write!(
        out,
        "{MAGIC}\nformat {CENSUS_FORMAT}\nsource {}\nvertices {vertices}\nshards {}\nmax-cops {}\n",
        key.source, key.shards, key.max_cops
    );
}

/// `1`, `more`.
fn cops_word(c: Option<u32>) -> String {
    c.map_or_else(|| "more".to_string(), |c| c.to_string())
}

/// `0,3` or `-` for none.
fn placement_word(p: &[u32]) -> String {
    if p.is_empty() {
        return "-".to_string();
    }
    p.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

fn write_listed(out: &mut String, prefix: &str, l: &Listed) {
    let _ = writeln!(
        out,
        "{prefix} {} placement {} plies {}",
        l.graph6,
        placement_word(&l.placement),
        l.plies
    );
}

/// The tally's lines.
fn write_tally(out: &mut String, t: &Tally) {
    let _ = writeln!(out, "graphs {}", t.graphs);
    for (&c, class) in &t.classes {
        let w = cops_word(c);
        let _ = writeln!(out, "cops {w} graphs {}", class.graphs);
        for (rounds, &g) in class.capture_times.iter().enumerate() {
            if g > 0 {
                let _ = writeln!(out, "cops {w} rounds {rounds} graphs {g}");
            }
        }
        if let Some(l) = &class.longest {
            let _ = writeln!(out, "cops {w} longest {} graphs {}", l.rounds, l.graphs);
            for g in &l.listed {
                write_listed(out, &format!("cops {w} longest-graph"), g);
            }
        }
    }
    if let Some(c) = t.largest_cop_number() {
        let g = t.classes[&c].graphs;
        let _ = writeln!(out, "largest {} graphs {g}", cops_word(c));
        for l in &t.largest {
            write_listed(out, "largest-graph", l);
        }
    }
}

/// `body` with its checksum line.
fn sealed(mut body: String) -> String {
    let sum = sha256_hex(body.as_bytes());
    let _ = writeln!(body, "sha256 {sum}");
    body
}

impl ShardFile {
    /// The file's text (canonical, ending with its checksum line).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        write_key(&mut out, &self.key);
        let _ = writeln!(out, "shard {} input {}", self.index, self.input);
        write_tally(&mut out, &self.tally);
        sealed(out)
    }

    /// Reads a shard file back; `path` names it in errors.
    ///
    /// # Errors
    /// [`CensusError`] when the text is not a census shard file of this
    /// format, its checksum does not hold (a damaged file), or it is not
    /// exactly what [`ShardFile::to_text`] writes for what it says.
    pub fn parse(path: &str, text: &str) -> Result<ShardFile, CensusError> {
        let (parsed, sum) = parse(path, text)?;
        let Head::Shard { index, input } = parsed.head else {
            return Err(CensusError {
                path: path.into(),
                line: Some(7),
                message: "a merged census, not a shard file (expected `shard I input ...`)".into(),
            });
        };
        let shard = ShardFile {
            key: parsed.key,
            index,
            input,
            tally: parsed.tally,
        };
        canonical(path, text, &shard.to_text())?;
        debug_assert_eq!(shard.sha256(), sum);
        Ok(shard)
    }

    /// The SHA-256 of the file's text before its checksum line (the
    /// checksum it ends with).
    #[must_use]
    pub fn sha256(&self) -> String {
        let text = self.to_text();
        let body = &text[..text.trim_end().rfind('\n').map_or(0, |i| i + 1)];
        sha256_hex(body.as_bytes())
    }

    /// The file name of shard `index` of a census of `shards`:
    /// `shard-0007-of-0064.txt` (four digits at least, so that names sort
    /// by index).
    #[must_use]
    pub fn name(index: u32, shards: u32) -> String {
        let w = shards.to_string().len().max(4);
        format!("shard-{index:0w$}-of-{shards:0w$}.txt")
    }
}

impl Census {
    /// The file's text (canonical, ending with its checksum line).
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        write_key(&mut out, &self.key);
        for s in &self.shards {
            let _ = writeln!(
                out,
                "shard {} graphs {} sha256 {}",
                s.index, s.graphs, s.sha256
            );
        }
        write_tally(&mut out, &self.tally);
        sealed(out)
    }

    /// The checksum of the whole census: the SHA-256 its file ends with.
    #[must_use]
    pub fn sha256(&self) -> String {
        let text = self.to_text();
        let last = text.trim_end().rsplit('\n').next().unwrap_or_default();
        last.trim_start_matches("sha256 ").to_string()
    }

    /// Reads a merged census file back; `path` names it in errors.
    ///
    /// # Errors
    /// As [`ShardFile::parse`], and for a shard file.
    pub fn parse(path: &str, text: &str) -> Result<Census, CensusError> {
        let (parsed, _) = parse(path, text)?;
        let Head::Whole(shards) = parsed.head else {
            return Err(CensusError {
                path: path.into(),
                line: Some(7),
                message: "a shard file, not a merged census".into(),
            });
        };
        let census = Census {
            key: parsed.key,
            shards,
            tally: parsed.tally,
        };
        canonical(path, text, &census.to_text())?;
        Ok(census)
    }
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

/// What a file's header says beyond the key.
enum Head {
    Shard { index: u32, input: String },
    Whole(Vec<ShardEntry>),
}

struct Parsed {
    key: CensusKey,
    head: Head,
    tally: Tally,
}

/// Refuses a text that is not what its own reading writes back: the first
/// line that differs.
fn canonical(path: &str, text: &str, written: &str) -> Result<(), CensusError> {
    if text == written {
        return Ok(());
    }
    let line = text
        .lines()
        .zip(written.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(written.lines().count()))
        + 1;
    let expected = written
        .lines()
        .nth(line - 1)
        .unwrap_or("the end of the file");
    Err(CensusError {
        path: path.into(),
        line: Some(line),
        message: format!(
            "not in the census file's canonical form (expected `{expected}`): a file this version did not write"
        ),
    })
}

/// Lines of a census file, each read once, with their numbers.
struct Lines<'a> {
    path: &'a str,
    lines: Vec<&'a str>,
    at: usize,
}

impl<'a> Lines<'a> {
    fn error(&self, line: usize, message: String) -> CensusError {
        CensusError {
            path: self.path.into(),
            line: Some(line),
            message,
        }
    }

    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    /// The rest of the next line after `prefix ` (refused if absent).
    fn field(&mut self, prefix: &str) -> Result<&'a str, CensusError> {
        let line = self.at + 1;
        let Some(text) = self.peek() else {
            return Err(self.error(
                line,
                format!("the file ends where `{prefix} ...` was expected"),
            ));
        };
        let rest = text
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| self.error(line, format!("expected `{prefix} ...`, found `{text}`")))?;
        self.at += 1;
        Ok(rest)
    }

    /// The words of `rest` as `name value` pairs in order (`keys`), the
    /// values parsed as numbers.
    fn numbers<const N: usize>(
        &self,
        rest: &str,
        keys: [&str; N],
    ) -> Result<[u64; N], CensusError> {
        let line = self.at;
        let words: Vec<&str> = rest.split(' ').collect();
        let shape = || {
            let want: Vec<String> = keys.iter().map(|k| format!("{k} N")).collect();
            self.error(
                line,
                format!("expected `{}`, found `{rest}`", want.join(" ")),
            )
        };
        if words.len() != 2 * N {
            return Err(shape());
        }
        let mut out = [0u64; N];
        for (i, k) in keys.iter().enumerate() {
            if words[2 * i] != *k {
                return Err(shape());
            }
            out[i] = words[2 * i + 1].parse().map_err(|_| shape())?;
        }
        Ok(out)
    }
}

fn parse_cops(word: &str) -> Option<Option<u32>> {
    if word == "more" {
        return Some(None);
    }
    word.parse().ok().map(Some)
}

fn parse_listed(lines: &Lines<'_>, rest: &str) -> Result<Listed, CensusError> {
    let line = lines.at;
    let words: Vec<&str> = rest.split(' ').collect();
    let bad = || {
        lines.error(
            line,
            format!("expected `GRAPH6 placement V,V plies N`, found `{rest}`"),
        )
    };
    if words.len() != 5 || words[1] != "placement" || words[3] != "plies" {
        return Err(bad());
    }
    let placement = if words[2] == "-" {
        Vec::new()
    } else {
        words[2]
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|_| bad())?
    };
    Ok(Listed {
        graph6: words[0].to_string(),
        placement,
        plies: words[4].parse().map_err(|_| bad())?,
    })
}

/// Reads a census file whose checksum holds; the checksum is returned.
fn parse(path: &str, text: &str) -> Result<(Parsed, String), CensusError> {
    let whole = |message: String| CensusError {
        path: path.into(),
        line: None,
        message,
    };
    if !text.starts_with(MAGIC) {
        return Err(whole(format!(
            "not a census file (it does not start with `{MAGIC}`)"
        )));
    }
    let body_end = text.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let last = text[body_end..].trim_end_matches('\n');
    let Some(sum) = last.strip_prefix("sha256 ") else {
        return Err(whole(
            "damaged: its last line is not its `sha256` checksum (a truncated file?)".into(),
        ));
    };
    let actual = sha256_hex(&text.as_bytes()[..body_end]);
    if sum != actual {
        return Err(whole(format!(
            "damaged: its checksum says {sum}, its contents hash to {actual}"
        )));
    }
    let mut lines = Lines {
        path,
        lines: text[..body_end].lines().collect(),
        at: 1,
    };
    let number = |lines: &Lines<'_>, s: &str, what: &str| -> Result<u32, CensusError> {
        s.parse()
            .map_err(|_| lines.error(lines.at, format!("expected {what}, found `{s}`")))
    };
    let format = lines.field("format")?;
    if format != CENSUS_FORMAT.to_string() {
        return Err(lines.error(
            2,
            format!("census format {format}, this version reads format {CENSUS_FORMAT}: compute it again with this version"),
        ));
    }
    let source = lines.field("source")?.to_string();
    let vertices = match lines.field("vertices")? {
        "any" => None,
        v => Some(number(&lines, v, "a number of vertices or `any`")?),
    };
    let shards = lines.field("shards")?;
    let shards = number(&lines, shards, "a number of shards")?;
    let max_cops = lines.field("max-cops")?;
    let max_cops = number(&lines, max_cops, "a number of cops")?;
    let key = CensusKey {
        source,
        vertices,
        shards,
        max_cops,
    };
    let first = lines.field("shard")?;
    let head = if let Some((index, input)) = first.split_once(" input ") {
        Head::Shard {
            index: number(&lines, index, "a shard index")?,
            input: input.to_string(),
        }
    } else {
        let mut entries = Vec::new();
        let mut rest = first;
        loop {
            let words: Vec<&str> = rest.split(' ').collect();
            if words.len() != 5 || words[1] != "graphs" || words[3] != "sha256" {
                return Err(lines.error(
                    lines.at,
                    format!("expected `shard I input ...` or `shard I graphs N sha256 HEX`, found `shard {rest}`"),
                ));
            }
            entries.push(ShardEntry {
                index: number(&lines, words[0], "a shard index")?,
                graphs: words[2].parse().map_err(|_| {
                    lines.error(
                        lines.at,
                        format!("expected a number of graphs, found `{}`", words[2]),
                    )
                })?,
                sha256: words[4].to_string(),
            });
            if !lines.peek().is_some_and(|l| l.starts_with("shard ")) {
                break;
            }
            rest = lines.field("shard")?;
        }
        Head::Whole(entries)
    };
    let [graphs] = {
        let rest = lines.field("graphs")?;
        lines.numbers(&format!("graphs {rest}"), ["graphs"])?
    };
    let mut tally = Tally {
        graphs,
        ..Tally::default()
    };
    while lines.peek().is_some_and(|l| l.starts_with("cops ")) {
        let rest = lines.field("cops")?;
        let (word, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let c = parse_cops(word).ok_or_else(|| {
            lines.error(
                lines.at,
                format!("expected a cop number or `more`, found `{word}`"),
            )
        })?;
        let class = tally.classes.entry(c).or_default();
        if let Some(g6) = rest.strip_prefix("longest-graph ") {
            let l = parse_listed(&lines, g6)?;
            let Some(longest) = class.longest.as_mut() else {
                return Err(
                    lines.error(lines.at, "a longest graph before its `longest` line".into())
                );
            };
            longest.listed.push(l);
        } else if rest.starts_with("longest ") {
            let [rounds, graphs] = lines.numbers(rest, ["longest", "graphs"])?;
            class.longest = Some(Longest {
                rounds: u32::try_from(rounds).unwrap_or(u32::MAX),
                graphs,
                listed: Vec::new(),
            });
        } else if rest.starts_with("rounds ") {
            let [rounds, graphs] = lines.numbers(rest, ["rounds", "graphs"])?;
            let at = usize::try_from(rounds).unwrap_or(usize::MAX);
            if at > 1 << 20 {
                return Err(lines.error(lines.at, format!("a capture time of {rounds} rounds")));
            }
            if class.capture_times.len() <= at {
                class.capture_times.resize(at + 1, 0);
            }
            class.capture_times[at] = graphs;
        } else {
            let [graphs] = lines.numbers(rest, ["graphs"])?;
            class.graphs = graphs;
        }
    }
    if lines.peek().is_some() {
        let rest = lines.field("largest")?;
        let (_, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        lines.numbers(rest, ["graphs"])?;
        while lines.peek().is_some() {
            let rest = lines.field("largest-graph")?;
            tally.largest.push(parse_listed(&lines, rest)?);
        }
    }
    Ok((Parsed { key, head, tally }, sum.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally_of(lines: &[&str]) -> Tally {
        let mut t = Tally::default();
        for l in lines {
            t.add(l.as_bytes(), &census_graph(l.as_bytes(), 4).unwrap());
        }
        t
    }

    const SIX: &str = include_str!("../../data/graphs/connected-6.g6");

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
            let mut x = seed | 1;
            let mut edges = Vec::new();
            for v in 1..n as u32 {
                for u in 0..v {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % 3 == 0 {
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
