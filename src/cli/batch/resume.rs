//! Reading an earlier batch results file back for `--resume`: the rows
//! of a JSON Lines or CSV file parsed into `Previous` rows, keeping only
//! complete rows of this schema solved with the same answer-changing
//! flags. Separate from `results`, which defines the row schema and writes
//! the file, because reading foreign input back is its own concern; this
//! module depends on `results`, never the other way.

use std::collections::HashSet;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::results::{OutFormat, Previous, Row, RowKey, CSV_COLUMNS, OK};
use crate::cli::common::UsageError;
use crate::cli::export::csv_record;

/// A row's raw path: `path_hex` decoded when present, else `path`; `None`
/// when `path_hex` is not hexadecimal.
fn key_of(path: &str, path_hex: Option<&str>) -> Option<PathBuf> {
    let Some(hex) = path_hex else {
        return Some(PathBuf::from(path));
    };
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// A complete row of an earlier file: its fields of interest.
struct Parsed {
    previous: Previous,
    flags: String,
    status: String,
}

/// Reads an earlier results file for `--resume` and keeps its ok rows.
///
/// A last row without its line end was torn by a kill mid-write and is
/// dropped, but only after something this tool wrote: at least one
/// complete row (for CSV, the header), so that a file of one line without
/// a line end (a user's JSON, random bytes) is refused, not emptied.
/// Every other row must be a complete row of this schema (a file this tool
/// did not write is refused, JSON Lines as well as CSV) solved with
/// `flags`; otherwise the resume is refused with what differs.
pub(super) fn read_previous(path: &Path, format: OutFormat, flags: &str) -> Result<Vec<Previous>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    let foreign = |line: u64, why: &str| -> anyhow::Error {
        UsageError(format!(
            "--resume: {} is not a batch results file of this version (line {line}: {why}); \
             choose another --out or remove it",
            path.display()
        ))
        .into()
    };
    let rows = match format {
        OutFormat::JsonLines => read_json_lines(complete, &foreign)?,
        OutFormat::Csv => read_csv(complete, &foreign)?,
    };
    // Only a file that holds something of ours may end in a torn line: the
    // CSV header (checked by `read_csv`) or a complete JSON Lines row.
    let ours = match format {
        OutFormat::JsonLines => !rows.is_empty(),
        OutFormat::Csv => !complete.is_empty(),
    };
    if complete.len() < bytes.len() && !ours {
        let line = complete.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        return Err(foreign(
            line,
            "no complete row of a batch results file before this line, which has no line end",
        ));
    }
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for (line, row) in rows {
        if row.flags != flags {
            return Err(UsageError(format!(
                "--resume: {} line {line} was solved with other flags ({}); \
                 run with the same flags or choose another --out",
                path.display(),
                flag_difference(&row.flags, flags)
            ))
            .into());
        }
        if row.status == OK && seen.insert(row.previous.key.clone()) {
            kept.push(row.previous);
        }
    }
    Ok(kept)
}

/// Which flags differ between a row's and this run's, in words.
fn flag_difference(theirs: &str, ours: &str) -> String {
    let split = |flags: &str| -> Vec<String> {
        // Words come in `--flag value` pairs or alone.
        let mut out: Vec<String> = Vec::new();
        for word in flags.split(' ').filter(|w| !w.is_empty()) {
            match out.last_mut() {
                Some(last) if !word.starts_with("--") => {
                    last.push(' ');
                    last.push_str(word);
                }
                _ => out.push(word.to_string()),
            }
        }
        out
    };
    let (theirs, ours) = (split(theirs), split(ours));
    let only = |a: &[String], b: &[String]| -> String {
        let list: Vec<&str> = a
            .iter()
            .filter(|f| !b.contains(f))
            .map(String::as_str)
            .collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            format!("`{}`", list.join(" "))
        }
    };
    format!(
        "the file has {}, this run has {}",
        only(&theirs, &ours),
        only(&ours, &theirs)
    )
}

/// The rows of a JSON Lines file, each with its line number.
fn read_json_lines(
    bytes: &[u8],
    foreign: &dyn Fn(u64, &str) -> anyhow::Error,
) -> Result<Vec<(u64, Parsed)>> {
    let keys = match serde_json::to_value(crate::cli::schema::versioned(&Row::default())) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect::<HashSet<_>>(),
        _ => unreachable!("a row serializes to an object"),
    };
    let mut rows = Vec::new();
    for (k, raw) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let line = k as u64 + 1;
        let text = std::str::from_utf8(raw).map_err(|_| foreign(line, "not UTF-8"))?;
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|_| foreign(line, "not a JSON object"))?;
        let object = value
            .as_object()
            .ok_or_else(|| foreign(line, "not a JSON object"))?;
        let found: HashSet<String> = object.keys().cloned().collect();
        if found != keys {
            return Err(foreign(line, "its fields are not those of a row"));
        }
        let string = |name: &str| object.get(name).and_then(|v| v.as_str());
        let (Some(path), Some(status), Some(flags)) =
            (string("map"), string("status"), string("flags"))
        else {
            return Err(foreign(line, "map, status or flags is not a string"));
        };
        if object.get("schema") != Some(&serde_json::Value::from(crate::cli::schema::SCHEMA)) {
            return Err(foreign(line, "another schema"));
        }
        let map = key_of(path, string("map_hex")).ok_or_else(|| foreign(line, "bad map_hex"))?;
        let cell = |name: &str| -> Option<[usize; 2]> {
            let pair: Vec<usize> = object
                .get(name)?
                .as_array()?
                .iter()
                .map(|v| v.as_u64().map(|v| v as usize))
                .collect::<Option<_>>()?;
            pair.try_into().ok()
        };
        let scen_line = object.get("scen_line").and_then(serde_json::Value::as_u64);
        let pair = string("scen").zip(scen_line);
        if pair.is_some() != object.get("scen").is_some_and(|s| !s.is_null()) {
            return Err(foreign(line, "scen without a scen_line"));
        }
        let key = RowKey {
            map,
            pair: pair.map(|(scen, line)| (scen.to_string(), line as usize)),
        };
        rows.push((
            line,
            Parsed {
                previous: Previous {
                    key,
                    pair_cells: cell("cop").zip(cell("thief")),
                    path: path.to_string(),
                    result: string("result").map(str::to_string),
                    dte: object.get("dte").and_then(serde_json::Value::as_u64),
                    exits: object.get("exits").and_then(serde_json::Value::as_u64),
                    cop_wins: object
                        .get("share")
                        .and_then(|s| s.get("cop_wins"))
                        .and_then(serde_json::Value::as_f64),
                    cop_number: object.get("cop_number").and_then(serde_json::Value::as_u64),
                    seconds: object.get("seconds").and_then(serde_json::Value::as_f64),
                    text: text.to_string(),
                },
                flags: flags.to_string(),
                status: status.to_string(),
            },
        ));
    }
    Ok(rows)
}

/// The rows of a CSV file (read by the `csv` crate: quoted fields may hold
/// line breaks), each with the line it starts on.
fn read_csv(
    bytes: &[u8],
    foreign: &dyn Fn(u64, &str) -> anyhow::Error,
) -> Result<Vec<(u64, Parsed)>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    let header = reader.headers().map_err(|_| foreign(1, "not CSV"))?.clone();
    if !header.iter().eq(CSV_COLUMNS) {
        return Err(foreign(1, "its header differs"));
    }
    let column = |name: &str| {
        CSV_COLUMNS
            .iter()
            .position(|c| *c == name)
            .expect("known column")
    };
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, csv::Position::line);
            foreign(line, "not a complete row")
        })?;
        let line = record.position().map_or(0, csv::Position::line);
        let field = |name: &str| Some(&record[column(name)]).filter(|f| !f.is_empty());
        let map = key_of(&record[column("map")], field("map_hex"))
            .ok_or_else(|| foreign(line, "bad map_hex"))?;
        let number = |name: &str| field(name).and_then(|f| f.parse::<usize>().ok());
        let scen_line = number("scen_line");
        if field("scen").is_some() != scen_line.is_some() {
            return Err(foreign(line, "scen without a scen_line"));
        }
        let key = RowKey {
            map,
            pair: field("scen").map(str::to_string).zip(scen_line),
        };
        let cell = |r: &str, c: &str| Some([number(r)?, number(c)?]);
        let pair_cells = cell("cop_row", "cop_col").zip(cell("thief_row", "thief_col"));
        rows.push((
            line,
            Parsed {
                previous: Previous {
                    key,
                    pair_cells,
                    path: record[column("map")].to_string(),
                    result: field("result").map(str::to_string),
                    dte: field("dte").and_then(|d| d.parse().ok()),
                    exits: field("exits").and_then(|d| d.parse().ok()),
                    cop_wins: field("share_cop_wins").and_then(|d| d.parse().ok()),
                    cop_number: field("cop_number").and_then(|d| d.parse().ok()),
                    seconds: field("seconds").and_then(|s| s.parse().ok()),
                    text: csv_record(record.iter()),
                },
                flags: record[column("flags")].to_string(),
                status: record[column("status")].to_string(),
            },
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_paths_round_trip_through_rows() {
        let raw = PathBuf::from(std::ffi::OsString::from_vec(b"d/a\xff.txt".to_vec()));
        let row = Row::new(&raw, "");
        assert_eq!(row.path_hex.as_deref(), Some("642f61ff2e747874"));
        assert_eq!(key_of(&row.path, row.path_hex.as_deref()), Some(raw));
        assert_eq!(Row::new(Path::new("d/a.txt"), "").path_hex, None);
    }

    #[test]
    fn flag_differences_name_both_sides() {
        assert_eq!(
            flag_difference("--cop 1,1 --no-pass", "--cop 1,1 --thief-first"),
            "the file has `--no-pass`, this run has `--thief-first`"
        );
    }
}
