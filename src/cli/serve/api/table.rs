//! A served table of any number of cops, on a map or a graph, read through
//! [`Tablebase`]: the cells a request may name (`ROW,COL` on a map, a
//! vertex id on a graph), and the answers of `/api/map`, `/api/query` (as
//! `query --json` prints them), `/api/row` (a heatmap) and `/api/play`.
//!
//! Tables speak one of two dialects, as they always have: a table without
//! the game section (format 2, 3 or 6: one cop on a map) speaks the one-cop
//! API (`cop` given once, positions keyed `"cop"`, either piece held still
//! in a heatmap); a table with it (format 4 to 6: several cops, speeds or
//! a graph) speaks the cops API (`cop` once per cop, `"cops"` lists, the
//! cops held still), even with one cop. The dialect only shapes words and
//! JSON; every answer comes from the same calls.

use std::path::PathBuf;

use axum::body::Bytes;
use retrograde::{Cops, Position, Probe, Tablebase, Turn};
use serde_json::{json, Value};

use super::params::{parse_coord, parse_count, parse_turn, Params};
use super::{bad, game_end, ApiError, Held};
use crate::cli::tables::{cell_json, one_cop_shape, position_json};

/// One served table.
pub(in crate::cli::serve) struct Table {
    /// The name requests use: the file name without its extension.
    pub(in crate::cli::serve) name: String,
    /// The file as given on the command line (shown at start-up only).
    pub(in crate::cli::serve) path: PathBuf,
    tablebase: Tablebase,
    /// Whether the table speaks the one-cop API (no game section).
    one_cop: bool,
    /// `/api/map`'s answer, built once.
    pub(super) map_json: Bytes,
}

impl Table {
    pub(super) fn new(name: String, path: PathBuf, tablebase: Tablebase) -> Table {
        let one_cop = one_cop_shape(&tablebase);
        let map = map_json(&name, &tablebase, one_cop);
        Table {
            name,
            path,
            tablebase,
            one_cop,
            map_json: Bytes::from(map.to_string()),
        }
    }

    /// What the start-up listing says of it: `ROWS x COLS`, with the cops
    /// on a table of the cops API; the vertices on a graph.
    pub(in crate::cli::serve) fn shape(&self) -> String {
        let h = self.tablebase.header();
        if self.one_cop {
            format!("{} x {}", h.rows, h.cols)
        } else if h.graph {
            format!("a graph of {} vertices, {} cops", h.cells, h.cops)
        } else {
            format!("{} x {}, {} cops", h.rows, h.cols, h.cops)
        }
    }

    /// The table's entry in `/api/tables`: the cops API adds the kind and
    /// the speeds, and leaves out the rows and columns of a graph.
    pub(super) fn summary(&self) -> Value {
        let tb = &self.tablebase;
        let h = tb.header();
        let start = tb.start().map(|p| self.position_value(&p));
        let exits = (0..tb.cells()).filter(|&c| tb.is_exit(c)).count();
        let mut v = json!({
            "name": self.name,
            "cops": h.cops,
            "cells": tb.cells(),
            "exits": exits,
            "has_dte": h.has_dte,
            "first_mover": tb.first_mover().as_str(),
            "start": start,
        });
        if !self.one_cop {
            v["kind"] = json!(if h.graph { "graph" } else { "map" });
            v["cop_speed"] = json!(h.cop_speed);
            v["thief_speed"] = json!(h.thief_speed);
        }
        if let Some(grid) = tb.grid() {
            v["rows"] = json!(grid.height());
            v["cols"] = json!(grid.width());
        }
        v
    }

    /// A position's pieces as the API shows them: `{"cop":[r,c],...}` in
    /// the one-cop API, `{"cops":[...],...}` in the cops API.
    fn position_value(&self, p: &Position) -> Value {
        // `json!` maps keep their keys sorted: where a key is added does
        // not change the text.
        let mut v = json!({
            "thief": cell_json(&self.tablebase, p.thief),
            "turn": p.turn.as_str(),
        });
        if self.one_cop {
            v["cop"] = cell_json(&self.tablebase, p.cops[0]);
        } else {
            v["cops"] = json!(self.cells_json(&p.cops));
        }
        v
    }

    fn cells_json(&self, cells: &[u32]) -> Vec<Value> {
        cells
            .iter()
            .map(|&c| cell_json(&self.tablebase, c))
            .collect()
    }

    /// How a cell is written: `ROW,COL` on a map, a vertex id on a graph.
    fn form(&self) -> &'static str {
        if self.tablebase.grid().is_some() {
            "ROW,COL"
        } else {
            "a vertex id"
        }
    }

    /// A cell parameter: `ROW,COL` of a free cell on a map, a vertex id on
    /// a graph.
    fn cell(&self, what: &str, text: &str) -> Result<u32, ApiError> {
        let tb = &self.tablebase;
        let Some(grid) = tb.grid() else {
            let n = tb.cells();
            let v = parse_count(text).ok_or_else(|| {
                bad(format!(
                    "`{what}` must be a vertex id (a 0-based integer) on a graph, found `{text}`"
                ))
            })?;
            return u32::try_from(v).ok().filter(|&v| v < n).ok_or_else(|| {
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

    /// Refuses a second `cop` in the one-cop API before anything else is
    /// read, as that API always has.
    pub(super) fn single_cop(&self, params: &Params<'_>) -> Result<(), ApiError> {
        if self.one_cop && params.all("cop").len() > 1 {
            return Err(bad(format!(
                "parameter `cop` given twice: table `{}` is of one cop",
                self.name
            )));
        }
        Ok(())
    }

    /// The `cop` parameters: once in the one-cop API, once per cop in the
    /// cops API (in any order; they come back ascending).
    fn cops(&self, params: &Params<'_>) -> Result<Cops, ApiError> {
        if self.one_cop {
            let cop = self.cell("cop", params.required("cop", "ROW,COL")?)?;
            return Ok(Cops::one(cop));
        }
        let k = self.tablebase.cops() as usize;
        let texts = params.all("cop");
        if texts.is_empty() {
            return Err(bad(format!(
                "missing parameter `cop` ({}, {k} times: one per cop)",
                self.form()
            )));
        }
        if texts.len() != k {
            return Err(bad(format!(
                "table `{}` is of {k} cops: give `cop` {k} times (one per cop), found {}",
                self.name,
                texts.len()
            )));
        }
        let cells = texts
            .iter()
            .map(|t| self.cell("cop", t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Cops::new(&cells).expect("k cells, 1 to MAX_COPS"))
    }

    /// A position from `cop`, `thief` and `turn`, checked by the library
    /// too, so that the two never disagree.
    pub(super) fn position(&self, params: &Params<'_>) -> Result<Position, ApiError> {
        let cops = self.cops(params)?;
        let thief = self.cell("thief", params.required("thief", self.form())?)?;
        let turn = parse_turn(params.required("turn", "cop or thief")?)?;
        self.tablebase
            .position(&cops, thief, turn)
            .map_err(|e| bad(e.to_string()))
    }

    /// The pieces a heatmap holds still: in the one-cop API exactly one of
    /// `cop` and `thief`, in the cops API every cop (the thief cannot be
    /// held still there: its heatmap would range over every placement of
    /// the cops). The turn is read first in the one-cop API, after the
    /// refusal of `thief` in the cops API, as before.
    pub(super) fn held(&self, params: &Params<'_>) -> Result<(Held, Turn), ApiError> {
        if self.one_cop {
            let turn = parse_turn(params.required("turn", "cop or thief")?)?;
            let held = match (params.get("cop"), params.get("thief")) {
                (Some(cop), None) => Held::Cops(Cops::one(self.cell("cop", cop)?)),
                (None, Some(thief)) => Held::Thief(self.cell("thief", thief)?),
                _ => {
                    return Err(bad(
                        "give exactly one of `cop` and `thief` (ROW,COL): the piece held still"
                            .into(),
                    ))
                }
            };
            return Ok((held, turn));
        }
        if params.get("thief").is_some() {
            return Err(bad(format!(
                "table `{}` is of several cops: its heatmap holds every cop still \
                 (give `cop` once per cop and no `thief`)",
                self.name
            )));
        }
        let turn = parse_turn(params.required("turn", "cop or thief")?)?;
        Ok((Held::Cops(self.cops(params)?), turn))
    }

    /// A table that failed to answer (a corrupt block): the server's fault.
    fn failed(&self, error: &dyn std::fmt::Display) -> ApiError {
        ApiError::Internal(format!("table `{}`: {error:#}", self.name))
    }

    /// `/api/query`: `query --json`'s object for the position.
    pub(super) fn query(&self, pos: &Position) -> Result<Bytes, ApiError> {
        let json = position_json(&self.tablebase, pos).map_err(|e| self.failed(&e))?;
        Ok(Bytes::from(
            serde_json::to_string(&json).expect("a position serializes"),
        ))
    }

    /// `/api/row`: the other pieces held still, the moving piece on each
    /// cell. On a map `values` has one character per grid cell (`#` wall,
    /// else `w`, `l` or `d`: the value for the player to move); on a graph
    /// one per vertex. `dte` has one number per cell (free cells
    /// row-major, or vertices), -1 for a draw, null without distances.
    pub(super) fn row(&self, held: Held, turn: Turn) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let probes = match held {
            Held::Cops(cops) => tb.thief_cells(&cops, turn),
            Held::Thief(thief) => tb.cop_cells(thief, turn),
        }
        .map_err(|e| self.failed(&e))?;
        let dte: Vec<i64> = probes
            .iter()
            .map(|p| p.dte.map_or(-1, |d| i64::from(d.0)))
            .collect();
        let mut body = json!({
            "schema": 1,
            "table": self.name,
            "turn": turn.as_str(),
            "values": self.values(&probes),
            "dte": tb.header().has_dte.then_some(dte),
        });
        match held {
            Held::Cops(cops) if !self.one_cop => {
                body["fixed"] = json!("cops");
                body["cops"] = json!(self.cells_json(&cops));
            }
            Held::Cops(cops) => {
                body["fixed"] = json!("cop");
                body["cop"] = cell_json(tb, cops[0]);
            }
            Held::Thief(thief) => {
                body["fixed"] = json!("thief");
                body["thief"] = cell_json(tb, thief);
            }
        }
        match tb.grid() {
            Some(grid) => {
                body["rows"] = json!(grid.height());
                body["cols"] = json!(grid.width());
            }
            None => body["vertices"] = json!(tb.cells()),
        }
        Ok(Bytes::from(body.to_string()))
    }

    /// A heatmap's values, one character per probe (`w`, `l`, `d`); on a
    /// map laid out on the grid, walls `#`.
    fn values(&self, probes: &[Probe]) -> String {
        let code = |p: &Probe| p.value.as_str().as_bytes()[0];
        let Some(grid) = self.tablebase.grid() else {
            return probes.iter().map(|p| char::from(code(p))).collect();
        };
        let mut values = vec![b'#'; grid.height() * grid.width()];
        for (cell, p) in probes.iter().enumerate() {
            let (r, c) = grid.coords(cell as u32);
            values[r * grid.width() + c] = code(p);
        }
        String::from_utf8_lossy(&values).into_owned()
    }

    /// `/api/play`: the optimal game as positions with their values, and
    /// how it ends: `capture`, `escape`, `stuck` (the player to move has no
    /// move), `repetition` (a draw: the last position occurred before),
    /// `no-distances` (a decided position repeated: a table without
    /// distances cannot play it out) or `limit` (`max` plies reached). The
    /// cops API also says how many cops there are.
    pub(super) fn play(&self, start: &Position, max: usize) -> Result<Bytes, ApiError> {
        let tb = &self.tablebase;
        let game = tb.optimal_game(start, max).map_err(|e| self.failed(&e))?;
        let mut positions = Vec::with_capacity(game.len());
        for p in &game {
            let probe = tb.probe(p).map_err(|e| self.failed(&e))?;
            let mut v = self.position_value(p);
            v["value"] = json!(probe.value.as_str());
            v["dte"] = json!(probe.dte.map(|d| d.0));
            positions.push(v);
        }
        // The game holds at least its start.
        let (last, before) = game.split_last().unwrap_or((start, &[]));
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
        let mut body = json!({
            "schema": 1,
            "table": self.name,
            "positions": positions,
            "plies": game.len().saturating_sub(1),
            "end": end,
        });
        if !self.one_cop {
            body["cops"] = json!(tb.cops());
        }
        Ok(Bytes::from(body.to_string()))
    }
}

/// `/api/map`'s answer: a map's grid (`#` wall, `E` exit, `.` free), or a
/// graph's edges (each once, `[u, v]` with `u < v`) and exits. The cops
/// API adds the kind and the number of cops.
fn map_json(name: &str, tb: &Tablebase, one_cop: bool) -> Value {
    let h = tb.header();
    let Some(grid) = tb.grid() else {
        let arena = tb.game().arena().expect("a graph's table has the game");
        let edges: Vec<[u32; 2]> = (0..arena.cells())
            .flat_map(|u| {
                arena
                    .cop_steps(u)
                    .iter()
                    .filter(move |&&v| u < v)
                    .map(move |&v| [u, v])
            })
            .collect();
        let exits: Vec<u32> = (0..tb.cells()).filter(|&v| tb.is_exit(v)).collect();
        return json!({
            "schema": 1, "name": name, "kind": "graph", "cops": h.cops,
            "vertices": tb.cells(), "edges": edges, "exits": exits,
        });
    };
    let lines: Vec<String> = (0..grid.height())
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
    let mut map = json!({
        "schema": 1, "name": name, "rows": grid.height(), "cols": grid.width(), "grid": lines,
    });
    if !one_cop {
        map["kind"] = json!("map");
        map["cops"] = json!(h.cops);
    }
    map
}
