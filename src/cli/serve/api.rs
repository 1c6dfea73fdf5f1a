//! The JSON API of `serve`, apart from HTTP: the served tables, query
//! strings parsed and validated into [`Request`]s, and their answers as JSON
//! bytes. Everything a client sends is checked here before a table is
//! touched; a bad parameter is an [`ApiError`] (400 with a JSON message),
//! never a panic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use retrograde::{Coord, Outcome, Position, Tablebase, Turn};
use serde_json::{json, Value};

use super::cache::Cache;
use crate::cli::common::UsageError;
use crate::cli::query::position_json;

/// Longest optimal game `/api/play` returns (plies); `max=` may ask fewer.
pub(super) const MAX_PLIES: usize = 10_000;
/// Default length limit of `/api/play`.
const DEFAULT_PLIES: usize = 2_000;

/// The API's endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Endpoint {
    /// `GET /api/tables`: the served tables.
    Tables,
    /// `GET /api/map?table=NAME`: one table's grid.
    Map,
    /// `GET /api/query?table&cop&thief&turn`: one position, as `query --json`.
    Query,
    /// `GET /api/row?table&(cop|thief)&turn`: every cell of the other piece.
    Row,
    /// `GET /api/play?table&cop&thief&turn[&max]`: the optimal game.
    Play,
}

impl Endpoint {
    /// The parameters it takes, required ones first.
    fn parameters(self) -> &'static [&'static str] {
        match self {
            Endpoint::Tables => &[],
            Endpoint::Map => &["table"],
            Endpoint::Query => &["table", "cop", "thief", "turn"],
            Endpoint::Row => &["table", "cop", "thief", "turn"],
            Endpoint::Play => &["table", "cop", "thief", "turn", "max"],
        }
    }
}

/// An error answer: its status and a message, sent as `{"error": message}`.
#[derive(Debug)]
pub(super) enum ApiError {
    /// 400: a missing, unknown or malformed parameter.
    BadRequest(String),
    /// 404: no such page or table.
    NotFound(String),
    /// Another status (413, 414, 405, 503).
    Status(StatusCode, String),
    /// 500: the table failed to answer (a corrupt block).
    Internal(String),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            ApiError::Status(s, m) => (s, m),
            ApiError::Internal(m) => (StatusCode::INTERNAL_SERVER_ERROR, m),
        };
        (status, axum::Json(json!({ "schema": 1, "error": message }))).into_response()
    }
}

fn bad(message: String) -> ApiError {
    ApiError::BadRequest(message)
}

/// Which piece a heatmap holds still.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Fixed {
    /// The cop stands still; the answer covers every thief cell.
    Cop(Coord),
    /// The thief stands still; the answer covers every cop cell.
    Thief(Coord),
}

/// A validated request: every coordinate is a free cell of its table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Request {
    /// The table list.
    Tables,
    /// One table's grid.
    Map { table: usize },
    /// One position.
    Query { table: usize, key: PositionKey },
    /// A heatmap row.
    Row {
        table: usize,
        fixed: Fixed,
        turn: TurnKey,
    },
    /// The optimal game from a position.
    Play {
        table: usize,
        key: PositionKey,
        max: usize,
    },
}

/// A position as a cache key (the library's `Position` need not hash).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct PositionKey {
    cop: Coord,
    thief: Coord,
    turn: TurnKey,
}

/// `Turn` as a cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum TurnKey {
    Cop,
    Thief,
}

impl From<TurnKey> for Turn {
    fn from(t: TurnKey) -> Turn {
        match t {
            TurnKey::Cop => Turn::Cop,
            TurnKey::Thief => Turn::Thief,
        }
    }
}

/// One served table.
pub(super) struct Table {
    /// The name requests use: the file name without its extension.
    pub(super) name: String,
    /// The file as given on the command line (shown at start-up only).
    pub(super) path: PathBuf,
    /// Grid rows.
    pub(super) rows: usize,
    /// Grid columns.
    pub(super) cols: usize,
    tablebase: Tablebase,
    /// Free cells in row-major order.
    free: Vec<Coord>,
    /// `/api/map`'s answer, built once.
    map_json: Bytes,
}

/// The tables named on the command line, and the answer cache.
pub(super) struct Served {
    tables: Vec<Table>,
    by_name: HashMap<String, usize>,
    tables_json: Bytes,
    cache: Cache<Request>,
}

impl Served {
    /// Opens every table (checking its header) and names it by its file
    /// stem; two tables with the same name are a usage error.
    pub(super) fn open(paths: &[PathBuf], cache_bytes: usize) -> Result<Served> {
        let mut tables = Vec::with_capacity(paths.len());
        let mut by_name = HashMap::new();
        for path in paths {
            let tablebase = Tablebase::open(path)
                .with_context(|| format!("cannot serve {}", path.display()))?;
            let name = table_name(path, tablebase.header().partitioned)?;
            if let Some(&other) = by_name.get(&name) {
                let other: &Table = &tables[other];
                let why = if tablebase.header().partitioned {
                    "(shards of one table? name one of them: the others are opened with it)"
                } else {
                    "rename one"
                };
                return Err(UsageError(format!(
                    "{} and {} would both be served as `{name}`: {why}",
                    other.path.display(),
                    path.display()
                ))
                .into());
            }
            by_name.insert(name.clone(), tables.len());
            tables.push(Table::new(name, path.clone(), tablebase));
        }
        let list: Vec<Value> = tables.iter().map(Table::summary).collect();
        let tables_json = Bytes::from(json!({ "schema": 1, "tables": list }).to_string());
        Ok(Served {
            tables,
            by_name,
            tables_json,
            cache: Cache::new(cache_bytes),
        })
    }

    /// The served tables, in command-line order.
    pub(super) fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// Parses and validates a query string for `endpoint`.
    pub(super) fn parse(&self, endpoint: Endpoint, query: &str) -> Result<Request, ApiError> {
        let params = Params::parse(query, endpoint.parameters())?;
        if endpoint == Endpoint::Tables {
            return Ok(Request::Tables);
        }
        let name = params.required("table", "a table name")?;
        let table = *self.by_name.get(name).ok_or_else(|| {
            let mut names: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
            names.sort_unstable();
            ApiError::NotFound(format!(
                "no table named `{name}`; served: {}",
                names.join(", ")
            ))
        })?;
        let t = &self.tables[table];
        Ok(match endpoint {
            Endpoint::Tables => unreachable!("answered above"),
            Endpoint::Map => Request::Map { table },
            Endpoint::Query => Request::Query {
                table,
                key: t.position_key(&params)?,
            },
            Endpoint::Row => {
                let turn = parse_turn(params.required("turn", "cop or thief")?)?;
                let fixed =
                    match (params.get("cop"), params.get("thief")) {
                        (Some(cop), None) => Fixed::Cop(t.free_cell("cop", cop)?),
                        (None, Some(thief)) => Fixed::Thief(t.free_cell("thief", thief)?),
                        _ => return Err(bad(
                            "give exactly one of `cop` and `thief` (ROW,COL): the piece held still"
                                .into(),
                        )),
                    };
                Request::Row { table, fixed, turn }
            }
            Endpoint::Play => {
                let max = match params.get("max") {
                    None => DEFAULT_PLIES,
                    Some(text) => parse_count(text)
                        .filter(|n| (1..=MAX_PLIES).contains(n))
                        .ok_or_else(|| {
                            bad(format!(
                                "`max` must be a number of plies from 1 to {MAX_PLIES}, found `{text}`"
                            ))
                        })?,
                };
                Request::Play {
                    table,
                    key: t.position_key(&params)?,
                    max,
                }
            }
        })
    }

    /// A cached answer to `request`, if one is kept.
    pub(super) fn cached(&self, request: &Request) -> Option<Bytes> {
        match request {
            Request::Tables => Some(self.tables_json.clone()),
            Request::Map { table } => Some(self.tables[*table].map_json.clone()),
            _ => self.cache.get(request),
        }
    }

    /// Computes the answer to `request` (and keeps it in the cache).
    pub(super) fn compute(&self, request: &Request) -> Result<Bytes, ApiError> {
        let answer = match *request {
            Request::Tables | Request::Map { .. } => {
                return Ok(self.cached(request).unwrap_or_default())
            }
            Request::Query { table, key } => {
                let t = &self.tables[table];
                let json =
                    position_json(&t.tablebase, &t.position(key)?).map_err(|e| t.failed(&e))?;
                Bytes::from(serde_json::to_string(&json).expect("a position serializes"))
            }
            Request::Row { table, fixed, turn } => self.tables[table].row(fixed, turn)?,
            Request::Play { table, key, max } => self.tables[table].play(key, max)?,
        };
        self.cache.insert(request.clone(), answer.clone());
        Ok(answer)
    }
}

/// The name a table is served under: its file stem.
/// A table's name: its file stem; for a shard `NAME.I-of-N.rtb`, `NAME`
/// (the set's name, whichever shard was given).
fn table_name(path: &Path, partitioned: bool) -> Result<String> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            UsageError(format!(
                "{}: a table needs a file name in UTF-8 (it is served under it)",
                path.display()
            ))
        })?;
    let set = stem
        .rsplit_once('.')
        .filter(|(_, tag)| partitioned && tag.contains("-of-"))
        .map_or(stem, |(base, _)| base);
    Ok(set.to_string())
}

impl Table {
    fn new(name: String, path: PathBuf, tablebase: Tablebase) -> Table {
        let (rows, cols) = (tablebase.rows(), tablebase.cols());
        let mut grid = Vec::with_capacity(rows);
        let mut free = Vec::new();
        for r in 0..rows {
            let mut line = String::with_capacity(cols);
            for c in 0..cols {
                line.push(if !tablebase.is_free((r, c)) {
                    '#'
                } else if tablebase.is_exit((r, c)) {
                    'E'
                } else {
                    '.'
                });
                if tablebase.is_free((r, c)) {
                    free.push((r, c));
                }
            }
            grid.push(line);
        }
        let map_json = Bytes::from(
            json!({ "schema": 1, "name": name, "rows": rows, "cols": cols, "grid": grid })
                .to_string(),
        );
        Table {
            name,
            path,
            rows,
            cols,
            tablebase,
            free,
            map_json,
        }
    }

    /// The table's entry in `/api/tables`.
    fn summary(&self) -> Value {
        let tb = &self.tablebase;
        let start = tb.start().map(|p| position_value(&p));
        json!({
            "name": self.name,
            "rows": self.rows,
            "cols": self.cols,
            "cells": self.free.len(),
            "exits": self.free.iter().filter(|&&c| tb.is_exit(c)).count(),
            "has_dte": tb.header().has_dte,
            "first_mover": tb.first_mover().as_str(),
            "start": start,
        })
    }

    /// A `ROW,COL` parameter that must name a free cell of this table.
    fn free_cell(&self, what: &str, text: &str) -> Result<Coord, ApiError> {
        let (r, c) = parse_coord(text).ok_or_else(|| {
            bad(format!(
                "`{what}` must be ROW,COL (two 0-based integers), found `{text}`"
            ))
        })?;
        if r >= self.rows || c >= self.cols {
            return Err(bad(format!(
                "{what} {r},{c} is off the map ({} rows x {} columns)",
                self.rows, self.cols
            )));
        }
        if !self.tablebase.is_free((r, c)) {
            return Err(bad(format!("{what} {r},{c} is a wall")));
        }
        Ok((r, c))
    }

    fn position_key(&self, params: &Params<'_>) -> Result<PositionKey, ApiError> {
        let cop = self.free_cell("cop", params.required("cop", "ROW,COL")?)?;
        let thief = self.free_cell("thief", params.required("thief", "ROW,COL")?)?;
        let turn = parse_turn(params.required("turn", "cop or thief")?)?;
        let key = PositionKey { cop, thief, turn };
        // The library's own validation, so the two never disagree.
        self.position(key)?;
        Ok(key)
    }

    fn position(&self, key: PositionKey) -> Result<Position, ApiError> {
        self.tablebase
            .position(key.cop, key.thief, key.turn.into())
            .map_err(|e| bad(e.to_string()))
    }

    /// A table that failed to answer (a corrupt block): the server's fault.
    fn failed(&self, error: &dyn std::fmt::Display) -> ApiError {
        ApiError::Internal(format!("table `{}`: {error:#}", self.name))
    }

    /// `/api/row`: `values` has one character per grid cell, row-major:
    /// `#` wall, else `w`, `l` or `d` (the value for the player to move with
    /// the other piece on that cell); `dte` one number per free cell in
    /// row-major order, -1 for a draw (null when the table has no
    /// distances).
    fn row(&self, fixed: Fixed, turn: TurnKey) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let cells = self.rows * self.cols;
        let mut values = vec![b'#'; cells];
        let mut dte = vec![-1i64; cells];
        let mut put = |(r, c): Coord, value: Outcome, d: Option<retrograde::Dte>| {
            values[r * self.cols + c] = value.as_str().as_bytes()[0];
            dte[r * self.cols + c] = d.map_or(-1, |d| i64::from(d.0));
        };
        match fixed {
            Fixed::Cop(cop) => {
                for (thief, probe) in tb.row(cop, turn.into()).map_err(|e| self.failed(&e))? {
                    put(thief, probe.value, probe.dte);
                }
            }
            Fixed::Thief(thief) => {
                for (cop, probe) in tb.column(thief, turn.into()).map_err(|e| self.failed(&e))? {
                    put(cop, probe.value, probe.dte);
                }
            }
        }
        let dte: Option<Vec<i64>> = tb.header().has_dte.then(|| {
            self.free
                .iter()
                .map(|&(r, c)| dte[r * self.cols + c])
                .collect()
        });
        let (piece, at) = match fixed {
            Fixed::Cop(c) => ("cop", c),
            Fixed::Thief(c) => ("thief", c),
        };
        let body = json!({
            "schema": 1,
            "table": self.name,
            "fixed": piece,
            piece: [at.0, at.1],
            "turn": Turn::from(turn).as_str(),
            "rows": self.rows,
            "cols": self.cols,
            "values": String::from_utf8_lossy(&values),
            "dte": dte,
        });
        Ok(Bytes::from(body.to_string()))
    }

    /// `/api/play`: the optimal game as positions with their values, and
    /// how it ends: `capture`, `escape`, `stuck` (the player to move has no
    /// move), `repetition` (a draw: the last position occurred before),
    /// `no-distances` (a decided position repeated: a table without
    /// distances cannot play it out) or
    /// `limit` (`max` plies reached).
    fn play(&self, key: PositionKey, max: usize) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let start = self.position(key)?;
        let game = tb.optimal_game(&start, max).map_err(|e| self.failed(&e))?;
        let mut positions = Vec::with_capacity(game.len());
        for p in &game {
            let probe = tb.probe(p).map_err(|e| self.failed(&e))?;
            let mut v = position_value(p);
            v["value"] = json!(probe.value.as_str());
            v["dte"] = json!(probe.dte.map(|d| d.0));
            positions.push(v);
        }
        // The game holds at least its start.
        let (last, before) = game.split_last().unwrap_or((&start, &[]));
        let end = if last.cop == last.thief {
            "capture"
        } else if tb.is_exit(last.thief) {
            "escape"
        } else if before
            .iter()
            .any(|p| p.cop == last.cop && p.thief == last.thief && p.turn == last.turn)
        {
            // Only a draw repeats under play by distances; on a table
            // without them a decided game can cycle, and calling that a
            // draw would contradict the table.
            match positions.last().map(|v| v["value"] == "draw") {
                Some(false) => "no-distances",
                _ => "repetition",
            }
        } else if tb
            .rated_moves(last)
            .map_err(|e| self.failed(&e))?
            .is_empty()
        {
            "stuck"
        } else {
            "limit"
        };
        let body = json!({
            "schema": 1,
            "table": self.name,
            "positions": positions,
            "plies": game.len().saturating_sub(1),
            "end": end,
        });
        Ok(Bytes::from(body.to_string()))
    }
}

/// `{"cop":[r,c],"thief":[r,c],"turn":...}`.
fn position_value(p: &Position) -> Value {
    json!({
        "cop": [p.cop.0, p.cop.1],
        "thief": [p.thief.0, p.thief.1],
        "turn": p.turn.as_str(),
    })
}

fn parse_turn(text: &str) -> Result<TurnKey, ApiError> {
    match text {
        "cop" => Ok(TurnKey::Cop),
        "thief" => Ok(TurnKey::Thief),
        _ => Err(bad(format!("`turn` must be cop or thief, found `{text}`"))),
    }
}

/// A decimal count of at most 9 digits (no sign, no spaces).
fn parse_count(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Strict `ROW,COL`.
fn parse_coord(text: &str) -> Option<Coord> {
    let (r, c) = text.split_once(',')?;
    Some((parse_count(r)?, parse_count(c)?))
}

/// A query string's parameters, percent-decoded, each at most once, each
/// one the endpoint takes.
struct Params<'a> {
    values: Vec<(&'a str, String)>,
}

impl<'a> Params<'a> {
    fn parse(query: &str, allowed: &'a [&'a str]) -> Result<Params<'a>, ApiError> {
        let mut values: Vec<(&'a str, String)> = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = percent_decode(name)?;
            let Some(&known) = allowed.iter().find(|&&a| a == name) else {
                return Err(bad(if allowed.is_empty() {
                    format!("unknown parameter `{name}`: this endpoint takes none")
                } else {
                    format!(
                        "unknown parameter `{name}`: this endpoint takes {}",
                        allowed.join(", ")
                    )
                }));
            };
            if values.iter().any(|(n, _)| *n == known) {
                return Err(bad(format!("parameter `{known}` given twice")));
            }
            values.push((known, percent_decode(value)?));
        }
        Ok(Params { values })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn required(&self, name: &str, expected: &str) -> Result<&str, ApiError> {
        self.get(name)
            .ok_or_else(|| bad(format!("missing parameter `{name}` ({expected})")))
    }
}

/// Decodes `%XX` escapes and `+` (a space), as browsers encode forms.
fn percent_decode(text: &str) -> Result<String, ApiError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| bad(format!("bad %-escape in `{text}`")))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| bad(format!("`{text}` is not UTF-8 once decoded")))
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use proptest::prelude::*;
    use retrograde::{
        parse_map, solve, write_tablebase, Board, CopsAndThief, Engine, Placement, Rules,
        SolveOptions,
    };

    use super::*;

    /// A tiny table (4 x 6, walls, two exits) served once for all cases.
    fn served() -> &'static Served {
        static SERVED: OnceLock<Served> = OnceLock::new();
        SERVED.get_or_init(|| {
            let map = parse_map(b"4 6\nC..#.E\n.#....\n...#..\nE...T.\n", "inline").unwrap();
            let game = CopsAndThief::new(
                Board::new(&map, &Placement::default()).unwrap(),
                Rules::default(),
            );
            let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
            let solution = solve(&game, &options).unwrap();
            let dir =
                std::env::temp_dir().join(format!("retrograde-serve-unit-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("tiny.rtb");
            write_tablebase(
                &game,
                &solution,
                "sequential",
                &mut std::fs::File::create(&path).unwrap(),
            )
            .unwrap();
            let served = Served::open(&[path], 1 << 20).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            served
        })
    }

    const ENDPOINTS: [Endpoint; 5] = [
        Endpoint::Tables,
        Endpoint::Map,
        Endpoint::Query,
        Endpoint::Row,
        Endpoint::Play,
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any query string, well-formed or not, is answered or refused
        /// with a 400 or 404: never a panic, never a server error.
        #[test]
        fn any_query_string_is_answered_or_refused(
            endpoint in 0..5usize,
            pieces in prop::collection::vec(
                (
                    prop_oneof![
                        Just("table"), Just("cop"), Just("thief"), Just("turn"), Just("max"),
                        Just("x"), Just(""), Just("%74able"),
                    ],
                    prop_oneof![
                        Just("tiny".to_string()),
                        Just("cop".to_string()),
                        Just("thief".to_string()),
                        "[0-9]{1,2},[0-9]{1,2}",
                        "[0-9]{1,20}",
                        "%[0-9a-fA-F]{0,2}",
                        "[ -~]{0,6}",
                        "\\PC{0,4}",
                    ],
                ),
                0..6,
            ),
            noise in "[&=]{0,2}",
        ) {
            let query: Vec<String> = pieces.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let query = format!("{}{noise}", query.join("&"));
            let served = served();
            match served.parse(ENDPOINTS[endpoint], &query) {
                Ok(request) => {
                    let answer = served.compute(&request);
                    prop_assert!(answer.is_ok(), "{query}: {answer:?}");
                    let json: Value = serde_json::from_slice(&answer.unwrap()).unwrap();
                    prop_assert!(json.is_object());
                }
                Err(ApiError::BadRequest(m) | ApiError::NotFound(m)) => {
                    prop_assert!(!m.is_empty());
                }
                Err(other) => prop_assert!(false, "{query}: {other:?}"),
            }
        }
    }

    #[test]
    fn valid_requests_are_answered() {
        let served = served();
        for (endpoint, query) in [
            (Endpoint::Tables, ""),
            (Endpoint::Map, "table=tiny"),
            (Endpoint::Query, "table=tiny&cop=0,0&thief=3,4&turn=cop"),
            (Endpoint::Row, "table=tiny&cop=0,0&turn=thief"),
            (Endpoint::Row, "table=tiny&thief=3,4&turn=cop"),
            (
                Endpoint::Play,
                "table=tiny&cop=0,0&thief=3,4&turn=cop&max=3",
            ),
        ] {
            let request = served.parse(endpoint, query).unwrap();
            let answer = served
                .cached(&request)
                .map_or_else(|| served.compute(&request), Ok);
            let json: Value = serde_json::from_slice(&answer.unwrap()).unwrap();
            assert!(json.is_object(), "{query}");
        }
        let play = served
            .parse(
                Endpoint::Play,
                "table=tiny&cop=0,0&thief=3,4&turn=cop&max=1",
            )
            .unwrap();
        let json: Value = serde_json::from_slice(&served.compute(&play).unwrap()).unwrap();
        assert_eq!(json["plies"], 1);
        assert_eq!(json["end"], "limit");
        // A second ask comes from the cache, unchanged.
        assert_eq!(served.cached(&play), Some(served.compute(&play).unwrap()));
    }

    #[test]
    fn coordinates_are_strict() {
        assert_eq!(parse_coord("3,14"), Some((3, 14)));
        assert_eq!(parse_coord("0,0"), Some((0, 0)));
        for bad in [
            "",
            ",",
            "3",
            "3,",
            ",4",
            " 3,4",
            "3 ,4",
            "-1,2",
            "+1,2",
            "1,2,3",
            "1;2",
            "9999999999,1",
            "1.5,2",
            "٣,4",
        ] {
            assert_eq!(parse_coord(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn parameters_are_known_single_and_decoded() {
        let allowed = &["table", "cop"];
        let p = Params::parse("table=a%20b&cop=1%2C2&", allowed).unwrap();
        assert_eq!(p.get("table"), Some("a b"));
        assert_eq!(p.get("cop"), Some("1,2"));
        assert!(Params::parse("table=a&table=b", allowed).is_err());
        assert!(Params::parse("tabl=a", allowed).is_err());
        assert!(Params::parse("table=%zz", allowed).is_err());
        assert!(Params::parse("table=%ff", allowed).is_err());
        assert!(Params::parse("table=%4", allowed).is_err());
        assert_eq!(
            Params::parse("table=a+b", allowed).unwrap().get("table"),
            Some("a b")
        );
        assert!(Params::parse("x", &[]).is_err());
        assert!(Params::parse("", &[]).is_ok());
    }

    #[test]
    fn counts_are_bounded() {
        assert_eq!(parse_count("123456789"), Some(123_456_789));
        assert_eq!(parse_count("1234567890"), None);
        assert_eq!(parse_count(""), None);
    }
}
