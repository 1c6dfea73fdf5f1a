//! Reading the census files back: every line parsed and every field
//! checked against the others before it is used (shard index, cop numbers,
//! listed graphs and placements, counts that add up, capture times bounded
//! before the histogram is sized), the checksum verified and the text
//! required to be what writing it back gives (`text.rs` writes it); and
//! the words both sides share (the magic line, the checksum's hex, a cop
//! number's word).

use std::collections::BTreeMap;

use super::{
    CensusError, CensusKey, Listed, Longest, ShardEntry, Tally, CENSUS_FORMAT, LISTED_MOST,
};

/// The SHA-256 digest of `bytes` in lower-case hexadecimal, as
/// `sha256sum` prints it.
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The first line of every census file.
pub(super) const MAGIC: &str = "retrograde copnumber census";

/// `1`, `more`.
pub(super) fn cops_word(c: Option<u32>) -> String {
    c.map_or_else(|| "more".to_string(), |c| c.to_string())
}

/// What a file's header says beyond the key.
pub(super) enum Head {
    Shard { index: u32, input: String },
    Whole(Vec<ShardEntry>),
}

pub(super) struct Parsed {
    pub(super) key: CensusKey,
    pub(super) head: Head,
    pub(super) tally: Tally,
}

/// Refuses a text that is not what its own reading writes back: the first
/// line that differs.
pub(super) fn canonical(path: &str, text: &str, written: &str) -> Result<(), CensusError> {
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

/// The most shards a census file may name (as `census --shards` allows).
const MAX_SHARDS: u32 = 1_000_000;

/// The longest capture time read, in rounds: far above any census's
/// (a game of n vertices and c cops has at most n^(c+1) positions a side).
const MAX_ROUNDS: u32 = 1 << 20;

/// Checks a listed graph against its census and cop number `c`: graph6
/// of the census's order, a placement of `c` cops on its vertices (none
/// for "more").
fn check_listed(
    lines: &Lines<'_>,
    key: &CensusKey,
    c: Option<u32>,
    l: &Listed,
) -> Result<(), CensusError> {
    let order = crate::format::graph6::decode(l.graph6.as_bytes(), |_, _| {}).map_err(|e| {
        lines.error(
            lines.at,
            format!("a listed graph that is not graph6: {}", e.message),
        )
    })?;
    if order == 0 || key.vertices.is_some_and(|n| n as usize != order) {
        return Err(lines.error(
            lines.at,
            format!(
                "a listed graph of {order} vertices in a census of {} vertices",
                key.vertices
                    .map_or_else(|| "at least 1".into(), |n| n.to_string())
            ),
        ));
    }
    let cops = c.unwrap_or(0) as usize;
    if l.placement.len() != cops || l.placement.iter().any(|&v| v as usize >= order) {
        return Err(lines.error(
            lines.at,
            format!(
                "a placement of {} cops on vertices 0 to {} expected for cop number {}",
                cops,
                order - 1,
                cops_word(c)
            ),
        ));
    }
    Ok(())
}

/// Checks that a tally read adds up (the graphs of each cop number are
/// those of its capture times, the longest capture time is the largest
/// one with its count, every list holds the first graphs up to
/// [`LISTED_MOST`], the total is the sum) and lays out the capture times,
/// bounded by the order of the listed graphs.
fn check_tally(
    lines: &Lines<'_>,
    graphs_line: usize,
    class_lines: &BTreeMap<Option<u32>, usize>,
    times: &BTreeMap<Option<u32>, BTreeMap<u32, u64>>,
    tally: &mut Tally,
) -> Result<(), CensusError> {
    let mut total: u64 = 0;
    for (&c, class) in &mut tally.classes {
        let line = class_lines.get(&c).copied().unwrap_or(graphs_line);
        let bad = |why: String| lines.error(line, format!("cop number {}: {why}", cops_word(c)));
        if !class_lines.contains_key(&c) || class.graphs == 0 {
            return Err(bad("no `graphs` line, or none counted".into()));
        }
        total = total
            .checked_add(class.graphs)
            .ok_or_else(|| bad("too many graphs".into()))?;
        let listed = |l: usize, count: u64| l as u64 == count.min(LISTED_MOST as u64);
        let Some(times) = times.get(&c) else {
            if c.is_some() {
                return Err(bad("no capture times".into()));
            }
            continue;
        };
        let mut sum: u64 = 0;
        for &g in times.values() {
            if g == 0 {
                return Err(bad("a capture time of no graphs".into()));
            }
            sum = sum
                .checked_add(g)
                .ok_or_else(|| bad("too many graphs".into()))?;
        }
        if sum != class.graphs {
            return Err(bad(format!(
                "{} graphs, but its capture times count {sum}",
                class.graphs
            )));
        }
        let Some(longest) = &class.longest else {
            return Err(bad("no longest capture time".into()));
        };
        let (&rounds, &count) = times
            .last_key_value()
            .expect("not empty: they sum to graphs");
        if longest.rounds != rounds || longest.graphs != count {
            return Err(bad(format!(
                "the longest capture time is {rounds} rounds ({count} graphs), not {} ({})",
                longest.rounds, longest.graphs
            )));
        }
        if !listed(longest.listed.len(), count) {
            return Err(bad(format!(
                "{} graphs of the longest capture time listed, of {count}",
                longest.listed.len()
            )));
        }
        // n^(c+1) positions a side bound the capture time of a graph of n
        // vertices: the histogram is never longer than that allows.
        let n = longest
            .listed
            .iter()
            .map(|l| crate::format::graph6::graph6_order(l.graph6.as_bytes()).unwrap_or(0))
            .max()
            .unwrap_or(0);
        let bound = n
            .checked_pow(c.unwrap_or(0) + 1)
            .map_or(u64::MAX, |b| b.saturating_add(1));
        if u64::from(rounds) > bound {
            return Err(bad(format!(
                "a capture time of {rounds} rounds on graphs of {n} vertices"
            )));
        }
        class.capture_times = vec![0; rounds as usize + 1];
        for (&r, &g) in times {
            class.capture_times[r as usize] = g;
        }
    }
    if total != tally.graphs {
        return Err(lines.error(
            graphs_line,
            format!("{} graphs, but the cop numbers count {total}", tally.graphs),
        ));
    }
    if let Some(c) = tally.largest_cop_number() {
        let count = tally.classes[&c].graphs;
        if tally.largest.len() as u64 != count.min(LISTED_MOST as u64) {
            return Err(lines.error(
                graphs_line,
                format!(
                    "{} graphs of the largest cop number listed, of {count}",
                    tally.largest.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Reads a census file whose checksum holds; the checksum is returned.
pub(super) fn parse(path: &str, text: &str) -> Result<(Parsed, String), CensusError> {
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
    if !(1..=MAX_SHARDS).contains(&shards) {
        return Err(lines.error(
            lines.at,
            format!("{shards} shards: expected 1 to {MAX_SHARDS}"),
        ));
    }
    let max_cops = lines.field("max-cops")?;
    let max_cops = number(&lines, max_cops, "a number of cops")?;
    if !(1..=4).contains(&max_cops) {
        return Err(lines.error(lines.at, format!("max-cops {max_cops}: expected 1 to 4")));
    }
    let key = CensusKey {
        source,
        vertices,
        shards,
        max_cops,
    };
    let first = lines.field("shard")?;
    let head = if let Some((index, input)) = first.split_once(" input ") {
        let index = number(&lines, index, "a shard index")?;
        if index >= shards {
            return Err(lines.error(
                lines.at,
                format!(
                    "shard {index} of a census of {shards} shards: expected 0 to {}",
                    shards - 1
                ),
            ));
        }
        Head::Shard {
            index,
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
            let index = number(&lines, words[0], "a shard index")?;
            // Merged shards are listed each once, by index.
            if index as usize != entries.len() || index >= shards {
                return Err(lines.error(
                    lines.at,
                    format!(
                        "shard {index} where shard {} of {shards} was expected",
                        entries.len()
                    ),
                ));
            }
            entries.push(ShardEntry {
                index,
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
        if entries.len() != shards as usize {
            return Err(lines.error(
                lines.at,
                format!("{} shards listed of the census's {shards}", entries.len()),
            ));
        }
        Head::Whole(entries)
    };
    let [graphs] = {
        let rest = lines.field("graphs")?;
        lines.numbers(&format!("graphs {rest}"), ["graphs"])?
    };
    let graphs_line = lines.at;
    let mut tally = Tally {
        graphs,
        ..Tally::default()
    };
    // Every number is checked before it sizes anything: capture times are
    // gathered sparse and laid out only once they add up (a forged
    // `rounds 1048576` line would otherwise allocate for it).
    let mut times: BTreeMap<Option<u32>, BTreeMap<u32, u64>> = BTreeMap::new();
    let mut class_lines: BTreeMap<Option<u32>, usize> = BTreeMap::new();
    while lines.peek().is_some_and(|l| l.starts_with("cops ")) {
        let rest = lines.field("cops")?;
        let (word, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        let c = parse_cops(word)
            .filter(|c| c.is_none_or(|c| (1..=key.max_cops).contains(&c)))
            .ok_or_else(|| {
                lines.error(
                    lines.at,
                    format!(
                        "expected a cop number 1 to {} (the census's max-cops) or `more`, found `{word}`",
                        key.max_cops
                    ),
                )
            })?;
        let no_times = || {
            lines.error(
                lines.at,
                "graphs needing more than the most cops have no capture time".into(),
            )
        };
        let class = tally.classes.entry(c).or_default();
        if let Some(g6) = rest.strip_prefix("longest-graph ") {
            let l = parse_listed(&lines, g6)?;
            let Some(longest) = class.longest.as_mut() else {
                return Err(
                    lines.error(lines.at, "a longest graph before its `longest` line".into())
                );
            };
            check_listed(&lines, &key, c, &l)?;
            if l.plies.div_ceil(2) != longest.rounds {
                return Err(lines.error(
                    lines.at,
                    format!(
                        "a capture time of {} plies among the graphs of the longest, {} rounds",
                        l.plies, longest.rounds
                    ),
                ));
            }
            if longest.listed.len() >= LISTED_MOST {
                return Err(lines.error(lines.at, format!("more than {LISTED_MOST} graphs listed")));
            }
            longest.listed.push(l);
        } else if let Some(word) = ["longest", "rounds"]
            .into_iter()
            .find(|w| rest.strip_prefix(w).is_some_and(|r| r.starts_with(' ')))
        {
            let [rounds, graphs] = lines.numbers(rest, [word, "graphs"])?;
            if c.is_none() {
                return Err(no_times());
            }
            let rounds = u32::try_from(rounds)
                .ok()
                .filter(|&r| r <= MAX_ROUNDS)
                .ok_or_else(|| {
                    lines.error(lines.at, format!("a capture time of {rounds} rounds"))
                })?;
            if word == "rounds" {
                times.entry(c).or_default().insert(rounds, graphs);
            } else {
                class.longest = Some(Longest {
                    rounds,
                    graphs,
                    listed: Vec::new(),
                });
            }
        } else {
            let [graphs] = lines.numbers(rest, ["graphs"])?;
            class.graphs = graphs;
            class_lines.insert(c, lines.at);
        }
    }
    if lines.peek().is_some() {
        let rest = lines.field("largest")?;
        let (word, rest) = rest.split_once(' ').unwrap_or((rest, ""));
        lines.numbers(rest, ["graphs"])?;
        let largest = tally.largest_cop_number();
        if parse_cops(word) != Some(largest.flatten()) || largest.is_none() {
            return Err(lines.error(
                lines.at,
                format!("`largest {word}` where the largest cop number counted is another"),
            ));
        }
        let c = largest.flatten();
        while lines.peek().is_some() {
            let rest = lines.field("largest-graph")?;
            let l = parse_listed(&lines, rest)?;
            check_listed(&lines, &key, c, &l)?;
            let timed = times
                .get(&c)
                .is_some_and(|t| t.contains_key(&l.plies.div_ceil(2)));
            if (c.is_some() && !timed) || (c.is_none() && l.plies != 0) {
                return Err(lines.error(
                    lines.at,
                    format!(
                        "a capture time of {} plies that the histogram of cop number {} does not hold",
                        l.plies,
                        cops_word(c)
                    ),
                ));
            }
            if tally.largest.len() >= LISTED_MOST {
                return Err(lines.error(lines.at, format!("more than {LISTED_MOST} graphs listed")));
            }
            tally.largest.push(l);
        }
    }
    check_tally(&lines, graphs_line, &class_lines, &times, &mut tally)?;
    if let Head::Whole(entries) = &head {
        let sum = entries
            .iter()
            .try_fold(0u64, |a, e| a.checked_add(e.graphs));
        if sum != Some(tally.graphs) {
            return Err(lines.error(
                graphs_line,
                format!(
                    "{} graphs, but its shards count {}",
                    tally.graphs,
                    sum.map_or_else(|| "more".into(), |s| s.to_string())
                ),
            ));
        }
    }
    Ok((Parsed { key, head, tally }, sum.to_string()))
}
