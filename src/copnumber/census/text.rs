//! The census files' one text serialization: [`ShardFile`] and
//! [`Census`] written line by line and sealed with the SHA-256 of their
//! text, and read back only when the checksum holds and the text is what
//! its reading writes back (`read.rs` reads them).

use std::fmt::Write as _;

use super::read::{canonical, cops_word, parse, sha256_hex, Head, MAGIC};
use super::{Census, CensusError, CensusKey, Listed, ShardFile, Tally, CENSUS_FORMAT};

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
