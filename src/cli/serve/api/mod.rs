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
use retrograde::{AnyTablebase, Coord, Turn};
use serde_json::{json, Value};

use self::ktable::{KKey, KTable};
use self::params::{parse_count, parse_turn, Params};
use self::table::Table;
use super::cache::Cache;
use crate::cli::common::UsageError;
use crate::cli::tables::grid_position_json;

mod ktable;
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
    /// One position of a several-cops table.
    KQuery { table: usize, key: KKey },
    /// The thief's heatmap of a several-cops table, every cop held still
    /// (ascending).
    KRow {
        table: usize,
        cops: Vec<u32>,
        turn: TurnKey,
    },
    /// The optimal game from a position of a several-cops table.
    KPlay { table: usize, key: KKey, max: usize },
}

/// A position as a cache key (the library's `GridPosition` need not hash).
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

/// A served table of either game.
pub(super) enum Entry {
    /// A one-cop table.
    One(Box<Table>),
    /// A several-cops table.
    Several(Box<KTable>),
}

impl Entry {
    /// The name requests use.
    pub(super) fn name(&self) -> &str {
        match self {
            Entry::One(t) => &t.name,
            Entry::Several(t) => &t.name,
        }
    }

    /// The file as given on the command line.
    pub(super) fn path(&self) -> &Path {
        match self {
            Entry::One(t) => &t.path,
            Entry::Several(t) => &t.path,
        }
    }

    /// What the start-up listing says of it: `ROWS x COLS`, and the cops
    /// when there are several.
    pub(super) fn shape(&self) -> String {
        match self {
            Entry::One(t) => format!("{} x {}", t.rows, t.cols),
            Entry::Several(t) => t.shape(),
        }
    }

    fn summary(&self) -> Value {
        match self {
            Entry::One(t) => t.summary(),
            Entry::Several(t) => t.summary(),
        }
    }

    fn map_json(&self) -> &Bytes {
        match self {
            Entry::One(t) => &t.map_json,
            Entry::Several(t) => &t.map_json,
        }
    }
}

/// The tables named on the command line, and the answer cache.
pub(super) struct Served {
    tables: Vec<Entry>,
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
            let tablebase = AnyTablebase::open(path)
                .with_context(|| format!("cannot serve {}", path.display()))?;
            let partitioned = match &tablebase {
                AnyTablebase::One(tb) => tb.header().partitioned,
                AnyTablebase::Several(_) => false,
            };
            let name = table_name(path, partitioned)?;
            if let Some(&other) = by_name.get(&name) {
                let other: &Entry = &tables[other];
                let why = if partitioned {
                    "(shards of one table? name one of them: the others are opened with it)"
                } else {
                    "rename one"
                };
                return Err(UsageError(format!(
                    "{} and {} would both be served as `{name}`: {why}",
                    other.path().display(),
                    path.display()
                ))
                .into());
            }
            by_name.insert(name.clone(), tables.len());
            tables.push(match tablebase {
                AnyTablebase::One(tb) => Entry::One(Box::new(Table::new(name, path.clone(), *tb))),
                AnyTablebase::Several(tb) => {
                    Entry::Several(Box::new(KTable::new(name, path.clone(), *tb)))
                }
            });
        }
        let list: Vec<Value> = tables.iter().map(Entry::summary).collect();
        let tables_json = Bytes::from(json!({ "schema": 1, "tables": list }).to_string());
        Ok(Served {
            tables,
            by_name,
            tables_json,
            cache: Cache::new(cache_bytes),
        })
    }

    /// The served tables, in command-line order.
    pub(super) fn tables(&self) -> &[Entry] {
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
            let mut names: Vec<&str> = self.tables.iter().map(Entry::name).collect();
            names.sort_unstable();
            ApiError::NotFound(format!(
                "no table named `{name}`; served: {}",
                names.join(", ")
            ))
        })?;
        let t = match &self.tables[table] {
            Entry::One(t) => t,
            Entry::Several(t) => return several(t, table, endpoint, &params),
        };
        if params.all("cop").len() > 1 {
            return Err(bad(format!(
                "parameter `cop` given twice: table `{}` is of one cop",
                t.name
            )));
        }
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
            Endpoint::Play => Request::Play {
                table,
                key: t.position_key(&params)?,
                max: max_plies(&params)?,
            },
        })
    }

    /// A cached answer to `request`, if one is kept.
    pub(super) fn cached(&self, request: &Request) -> Option<Bytes> {
        match request {
            Request::Tables => Some(self.tables_json.clone()),
            Request::Map { table } => Some(self.tables[*table].map_json().clone()),
            _ => self.cache.get(request),
        }
    }

    /// Computes the answer to `request` (and keeps it in the cache).
    pub(super) fn compute(&self, request: &Request) -> Result<Bytes, ApiError> {
        let one = |table: usize| match &self.tables[table] {
            Entry::One(t) => Ok(t),
            Entry::Several(_) => Err(ApiError::Internal("a one-cop request".into())),
        };
        let several = |table: usize| match &self.tables[table] {
            Entry::Several(t) => Ok(t),
            Entry::One(_) => Err(ApiError::Internal("a several-cops request".into())),
        };
        let answer = match request {
            Request::Tables | Request::Map { .. } => {
                return Ok(self.cached(request).unwrap_or_default())
            }
            &Request::Query { table, key } => {
                let t = one(table)?;
                let json = grid_position_json(&t.tablebase, &t.position(key)?)
                    .map_err(|e| t.failed(&e))?;
                Bytes::from(serde_json::to_string(&json).expect("a position serializes"))
            }
            &Request::Row { table, fixed, turn } => one(table)?.row(fixed, turn)?,
            &Request::Play { table, key, max } => one(table)?.play(key, max)?,
            Request::KQuery { table, key } => several(*table)?.query(key)?,
            Request::KRow { table, cops, turn } => several(*table)?.row(cops, *turn)?,
            Request::KPlay { table, key, max } => several(*table)?.play(key, *max)?,
        };
        self.cache.insert(request.clone(), answer.clone());
        Ok(answer)
    }
}

/// A request to several-cops table `t` (number `table`): cells are
/// `ROW,COL` on a map and vertex ids on a graph, `cop` given once per cop;
/// the heatmap holds every cop still (the thief cannot be held still: its
/// heatmap would range over every placement of the cops).
fn several(
    t: &KTable,
    table: usize,
    endpoint: Endpoint,
    params: &Params<'_>,
) -> Result<Request, ApiError> {
    Ok(match endpoint {
        Endpoint::Tables => unreachable!("answered before a table is named"),
        Endpoint::Map => Request::Map { table },
        Endpoint::Query => Request::KQuery {
            table,
            key: t.key(params)?,
        },
        Endpoint::Row => {
            if params.get("thief").is_some() {
                return Err(bad(format!(
                    "table `{}` is of several cops: its heatmap holds every cop still \
                     (give `cop` once per cop and no `thief`)",
                    t.name
                )));
            }
            let turn = parse_turn(params.required("turn", "cop or thief")?)?;
            Request::KRow {
                table,
                cops: t.cops(params)?,
                turn,
            }
        }
        Endpoint::Play => Request::KPlay {
            table,
            key: t.key(params)?,
            max: max_plies(params)?,
        },
    })
}

/// How a played game ended, as `/api/play` names it: the thief
/// `captured` or `escaped`, the last position `repeated` (a draw's cycle;
/// `"no-distances"` when `positions`' last value is decided, since only a
/// table without distances lets a decided game cycle), the mover
/// `stuck` (asked last: it rates the position's moves), else the ply
/// limit. Shared by one-cop and several-cops tables.
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
