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
use retrograde::{Cops, Position, Tablebase, Turn};
use serde_json::{json, Value};

use self::params::{parse_count, Params};
pub(super) use self::table::Table;
use super::cache::Cache;
use crate::cli::common::UsageError;

mod params;
mod table;
#[cfg(test)]
mod tests;

/// Longest optimal game `/api/play` returns (plies); `max=` may ask fewer.
pub(super) const MAX_PLIES: usize = 10_000;
/// Default length limit of `/api/play`.
const DEFAULT_PLIES: usize = 2_000;

/// The API's endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Endpoint {
    /// `GET /api/tables`: the served tables.
    Tables,
    /// `GET /api/map?table=NAME`: one table's grid, or its graph.
    Map,
    /// `GET /api/query?table&cop&thief&turn`: one position, as `query
    /// --json` (`cop` once per cop, here and below).
    Query,
    /// `GET /api/row?table&(cop|thief)&turn`: a heatmap: every cell of the
    /// piece that is not held still.
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

/// The pieces a heatmap holds still.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Held {
    /// Every cop stands still; the answer covers every thief cell.
    Cops(Cops),
    /// The thief stands still (one-cop API only); the answer covers every
    /// cop cell.
    Thief(u32),
}

/// A validated request: every cell is one of its table's, every position
/// the library's (cops ascending, so every order of the cops is one key
/// and one answer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Request {
    /// The table list.
    Tables,
    /// One table's grid or graph.
    Map { table: usize },
    /// One position.
    Query { table: usize, position: Position },
    /// A heatmap.
    Row {
        table: usize,
        held: Held,
        turn: Turn,
    },
    /// The optimal game from a position.
    Play {
        table: usize,
        position: Position,
        max: usize,
    },
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
        let mut tables: Vec<Table> = Vec::with_capacity(paths.len());
        let mut by_name = HashMap::new();
        for path in paths {
            let tablebase = Tablebase::open(path)
                .with_context(|| format!("cannot serve {}", path.display()))?;
            // A partitioned table (shards of one cop or several) is named
            // as its set.
            let partitioned = tablebase.header().partitioned;
            let name = table_name(path, partitioned)?;
            if let Some(&other) = by_name.get(&name) {
                let other: &Table = &tables[other];
                let why = if partitioned {
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
        t.single_cop(&params)?;
        Ok(match endpoint {
            Endpoint::Tables => unreachable!("answered above"),
            Endpoint::Map => Request::Map { table },
            Endpoint::Query => Request::Query {
                table,
                position: t.position(&params)?,
            },
            Endpoint::Row => {
                let (held, turn) = t.held(&params)?;
                Request::Row { table, held, turn }
            }
            Endpoint::Play => Request::Play {
                table,
                position: t.position(&params)?,
                max: max_plies(&params)?,
            },
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
        let answer = match request {
            Request::Tables | Request::Map { .. } => {
                return Ok(self.cached(request).unwrap_or_default())
            }
            Request::Query { table, position } => self.tables[*table].query(position)?,
            &Request::Row { table, held, turn } => self.tables[table].row(held, turn)?,
            Request::Play {
                table,
                position,
                max,
            } => self.tables[*table].play(position, *max)?,
        };
        self.cache.insert(request.clone(), answer.clone());
        Ok(answer)
    }
}

/// How a played game ended, as `/api/play` names it: the thief
/// `captured` or `escaped`, the last position `repeated` (a draw's cycle;
/// `"no-distances"` when `positions`' last value is decided, since only a
/// table without distances lets a decided game cycle), the mover
/// `stuck` (asked last: it rates the position's moves), else the ply
/// limit.
fn game_end(
    captured: bool,
    escaped: bool,
    repeated: bool,
    positions: &[Value],
    stuck: impl FnOnce() -> Result<bool, ApiError>,
) -> Result<&'static str, ApiError> {
    Ok(if captured {
        "capture"
    } else if escaped {
        "escape"
    } else if repeated {
        match positions.last().map(|v| v["value"] == "draw") {
            Some(false) => "no-distances",
            _ => "repetition",
        }
    } else if stuck()? {
        "stuck"
    } else {
        "limit"
    })
}

/// `/api/play`'s `max`, or its default.
fn max_plies(params: &Params<'_>) -> Result<usize, ApiError> {
    match params.get("max") {
        None => Ok(DEFAULT_PLIES),
        Some(text) => parse_count(text)
            .filter(|n| (1..=MAX_PLIES).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "`max` must be a number of plies from 1 to {MAX_PLIES}, found `{text}`"
                ))
            }),
    }
}

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
