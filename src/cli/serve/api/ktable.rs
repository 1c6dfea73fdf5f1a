//! A served several-cops table (format 4, [`KTablebase`]): the cells a
//! request may name (`ROW,COL` on a map, a vertex id on a graph), and the
//! answers of `/api/query` (as `query --json` prints them, through
//! `ktable::kposition_json`), `/api/row` (the thief's heatmap with every
//! cop held still, as `render --cop ...` draws it) and `/api/play`.

use std::path::PathBuf;

use axum::body::Bytes;
use retrograde::{KPosition, KTablebase, Turn};
use serde_json::{json, Value};

use super::params::{parse_coord, parse_count, parse_turn, Params};
use super::{bad, game_end, ApiError, TurnKey};
use crate::cli::ktable::{cell_json, kposition_json};

/// A several-cops position as a cache key: the cops ascending (they are
/// interchangeable, so every order is one key and one answer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(in crate::cli::serve) struct KKey {
    cops: Vec<u32>,
    thief: u32,
    turn: TurnKey,
}

/// One served several-cops table.
pub(in crate::cli::serve) struct KTable {
    /// The name requests use.
    pub(in crate::cli::serve) name: String,
    /// The file as given on the command line.
    pub(in crate::cli::serve) path: PathBuf,
    tablebase: KTablebase,
    /// `/api/map`'s answer, built once.
    pub(super) map_json: Bytes,
}

impl KTable {
    pub(super) fn new(name: String, path: PathBuf, tablebase: KTablebase) -> KTable {
        let tb = &tablebase;
        let h = tb.header();
        let map = match tb.grid() {
            Some(grid) => {
                let grid: Vec<String> = (0..grid.height())
                    .map(|r| {
                        (0..grid.width())
                            .map(|c| match grid.cell_at(r, c) {
                                None => '#',
                                Some(cell) if tb.is_exit(cell) => 'E',
                                Some(_) => '.',
                            })
                            .collect()
                    })
                    .collect();
                json!({
                    "schema": 1, "name": name, "kind": "map", "cops": h.cops,
                    "rows": h.rows, "cols": h.cols, "grid": grid,
                })
            }
            None => {
                // Each edge once, as `[u, v]` with `u < v`.
                let arena = tb.game().arena();
                let edges: Vec<[u32; 2]> = (0..arena.cells())
                    .flat_map(|u| {
                        arena
                            .cop_steps(u)
                            .iter()
                            .filter(move |&&v| u < v)
                            .map(move |&v| [u, v])
                    })
                    .collect();
                let exits: Vec<u32> = (0..arena.cells()).filter(|&v| tb.is_exit(v)).collect();
                json!({
                    "schema": 1, "name": name, "kind": "graph", "cops": h.cops,
                    "vertices": h.cells, "edges": edges, "exits": exits,
                })
            }
        };
        KTable {
            name,
            path,
            map_json: Bytes::from(map.to_string()),
            tablebase,
        }
    }

    /// `12 x 20` on a map, `a graph of 10 vertices` on a graph.
    pub(in crate::cli::serve) fn shape(&self) -> String {
        let h = self.tablebase.header();
        if h.graph {
            format!("a graph of {} vertices, {} cops", h.cells, h.cops)
        } else {
            format!("{} x {}, {} cops", h.rows, h.cols, h.cops)
        }
    }

    /// The table's entry in `/api/tables`.
    pub(super) fn summary(&self) -> Value {
        let tb = &self.tablebase;
        let h = tb.header();
        let start = h.start.as_ref().map(|p| self.position_value(p));
        let mut v = json!({
            "name": self.name,
            "kind": if h.graph { "graph" } else { "map" },
            "cops": h.cops,
            "cop_speed": h.cop_speed,
            "thief_speed": h.thief_speed,
            "cells": h.cells,
            "exits": h.exits,
            "has_dte": h.has_dte,
            "first_mover": tb.first_mover().as_str(),
            "start": start,
        });
        if !h.graph {
            v["rows"] = json!(h.rows);
            v["cols"] = json!(h.cols);
        }
        v
    }

    /// `{"cops":[...],"thief":...,"turn":...}`, cells as `query --json`
    /// shows them.
    fn position_value(&self, p: &KPosition) -> Value {
        let tb = &self.tablebase;
        json!({
            "cops": p.cops.iter().map(|&c| cell_json(tb, c)).collect::<Vec<_>>(),
            "thief": cell_json(tb, p.thief),
            "turn": p.turn.as_str(),
        })
    }

    /// A cell parameter: `ROW,COL` of a free cell on a map, a vertex id on
    /// a graph.
    fn cell(&self, what: &str, text: &str) -> Result<u32, ApiError> {
        let tb = &self.tablebase;
        let Some(grid) = tb.grid() else {
            let n = tb.header().cells;
            let v = parse_count(text).ok_or_else(|| {
                bad(format!(
                    "`{what}` must be a vertex id (a 0-based integer) on a graph, found `{text}`"
                ))
            })?;
            return u32::try_from(v)
                .ok()
                .filter(|&v| u64::from(v) < n)
                .ok_or_else(|| {
                    bad(format!(
                        "{what} {v} is not a vertex: the graph's vertices are 0..{n}"
                    ))
                });
        };
        let (r, c) = parse_coord(text).ok_or_else(|| {
            bad(format!(
                "`{what}` must be ROW,COL (two 0-based integers), found `{text}`"
            ))
        })?;
        if r >= grid.height() || c >= grid.width() {
            return Err(bad(format!(
                "{what} {r},{c} is off the map ({} rows x {} columns)",
                grid.height(),
                grid.width()
            )));
        }
        grid.cell_at(r, c)
            .ok_or_else(|| bad(format!("{what} {r},{c} is a wall")))
    }

    /// The `cop` parameters, one per cop, ascending.
    pub(super) fn cops(&self, params: &Params<'_>) -> Result<Vec<u32>, ApiError> {
        let k = self.tablebase.cops() as usize;
        let texts = params.all("cop");
        let form = if self.tablebase.grid().is_some() {
            "ROW,COL"
        } else {
            "a vertex id"
        };
        if texts.is_empty() {
            return Err(bad(format!(
                "missing parameter `cop` ({form}, {k} times: one per cop)"
            )));
        }
        if texts.len() != k {
            return Err(bad(format!(
                "table `{}` is of {k} cops: give `cop` {k} times (one per cop), found {}",
                self.name,
                texts.len()
            )));
        }
        let mut cops = texts
            .iter()
            .map(|t| self.cell("cop", t))
            .collect::<Result<Vec<_>, _>>()?;
        cops.sort_unstable();
        Ok(cops)
    }

    /// A position from `cop` (k times), `thief` and `turn`.
    pub(super) fn key(&self, params: &Params<'_>) -> Result<KKey, ApiError> {
        let cops = self.cops(params)?;
        let form = if self.tablebase.grid().is_some() {
            "ROW,COL"
        } else {
            "a vertex id"
        };
        let thief = self.cell("thief", params.required("thief", form)?)?;
        let turn = parse_turn(params.required("turn", "cop or thief")?)?;
        let key = KKey { cops, thief, turn };
        // The library's own validation, so the two never disagree.
        self.position(&key)?;
        Ok(key)
    }

    fn position(&self, key: &KKey) -> Result<KPosition, ApiError> {
        self.tablebase
            .position(&key.cops, key.thief, key.turn.into())
            .map_err(|e| bad(e.to_string()))
    }

    /// A table that failed to answer (a corrupt block): the server's fault.
    fn failed(&self, error: &dyn std::fmt::Display) -> ApiError {
        ApiError::Internal(format!("table `{}`: {error:#}", self.name))
    }

    /// `/api/query`: `query --json`'s object for the position.
    pub(super) fn query(&self, key: &KKey) -> Result<Bytes, ApiError> {
        let json =
            kposition_json(&self.tablebase, &self.position(key)?).map_err(|e| self.failed(&e))?;
        Ok(Bytes::from(
            serde_json::to_string(&json).expect("a position serializes"),
        ))
    }

    /// `/api/row` with every cop held still: the thief on each cell. On a
    /// map `values` has one character per grid cell (`#` wall, else `w`,
    /// `l`, `d` for the player to move); on a graph one per vertex. `dte`
    /// has one number per cell (free cells row-major, or vertices), -1 for
    /// a draw, null without distances.
    pub(super) fn row(&self, cops: &[u32], turn: TurnKey) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let game = tb.game();
        let n = game.arena().cells();
        let mut dte = Vec::with_capacity(n as usize);
        let mut cell_values = Vec::with_capacity(n as usize);
        for thief in 0..n {
            let probe = tb
                .probe_state(game.state(cops, thief, turn.into()))
                .map_err(|e| self.failed(&e))?;
            cell_values.push(probe.value.as_str().as_bytes()[0]);
            dte.push(probe.dte.map_or(-1, |d| i64::from(d.0)));
        }
        let values = match tb.grid() {
            Some(grid) => {
                let mut values = vec![b'#'; grid.height() * grid.width()];
                for (cell, &v) in cell_values.iter().enumerate() {
                    let (r, c) = grid.coords(cell as u32);
                    values[r * grid.width() + c] = v;
                }
                values
            }
            None => cell_values,
        };
        let mut body = json!({
            "schema": 1,
            "table": self.name,
            "fixed": "cops",
            "cops": cops.iter().map(|&c| cell_json(tb, c)).collect::<Vec<_>>(),
            "turn": Turn::from(turn).as_str(),
            "values": String::from_utf8_lossy(&values),
            "dte": tb.header().has_dte.then_some(dte),
        });
        if let Some(grid) = tb.grid() {
            body["rows"] = json!(grid.height());
            body["cols"] = json!(grid.width());
        } else {
            body["vertices"] = json!(n);
        }
        Ok(Bytes::from(body.to_string()))
    }

    /// `/api/play`: the optimal game, ended as the one-cop table's is
    /// (`capture`, `escape`, `repetition`, `no-distances`, `stuck`,
    /// `limit`).
    pub(super) fn play(&self, key: &KKey, max: usize) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let start = self.position(key)?;
        let game = tb.optimal_game(&start, max).map_err(|e| self.failed(&e))?;
        let mut positions = Vec::with_capacity(game.len());
        for p in &game {
            let probe = tb.probe(p).map_err(|e| self.failed(&e))?;
            let mut v = self.position_value(p);
            v["value"] = json!(probe.value.as_str());
            v["dte"] = json!(probe.dte.map(|d| d.0));
            positions.push(v);
        }
        let (last, before) = game.split_last().unwrap_or((&start, &[]));
        let end = game_end(
            last.cops.contains(&last.thief),
            tb.is_exit(last.thief),
            before.contains(last),
            &positions,
            || {
                let moves = tb.rated_moves(last).map_err(|e| self.failed(&e))?;
                Ok(moves.is_empty())
            },
        )?;
        let body = json!({
            "schema": 1,
            "table": self.name,
            "cops": tb.cops(),
            "positions": positions,
            "plies": game.len().saturating_sub(1),
            "end": end,
        });
        Ok(Bytes::from(body.to_string()))
    }
}
