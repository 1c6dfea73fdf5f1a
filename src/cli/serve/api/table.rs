//! A served one-cop table: its grid, the cells a request may name, and the
//! answers of `/api/row` and `/api/play` built from its `GridTablebase`.

use std::path::PathBuf;

use axum::body::Bytes;
use retrograde::{Coord, GridPosition, GridTablebase, Outcome, Turn};
use serde_json::{json, Value};

use super::params::{parse_coord, parse_turn, Params};
use super::{bad, game_end, ApiError, Fixed, PositionKey, TurnKey};

/// One served table.
pub(in crate::cli::serve) struct Table {
    /// The name requests use: the file name without its extension.
    pub(in crate::cli::serve) name: String,
    /// The file as given on the command line (shown at start-up only).
    pub(in crate::cli::serve) path: PathBuf,
    /// Grid rows.
    pub(in crate::cli::serve) rows: usize,
    /// Grid columns.
    pub(in crate::cli::serve) cols: usize,
    pub(super) tablebase: GridTablebase,
    /// Free cells in row-major order.
    free: Vec<Coord>,
    /// `/api/map`'s answer, built once.
    pub(super) map_json: Bytes,
}

impl Table {
    pub(super) fn new(name: String, path: PathBuf, tablebase: GridTablebase) -> Table {
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
    pub(super) fn summary(&self) -> Value {
        let tb = &self.tablebase;
        let start = tb.start().map(|p| position_value(&p));
        json!({
            "name": self.name,
            "cops": 1,
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
    pub(super) fn free_cell(&self, what: &str, text: &str) -> Result<Coord, ApiError> {
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

    pub(super) fn position_key(&self, params: &Params<'_>) -> Result<PositionKey, ApiError> {
        let cop = self.free_cell("cop", params.required("cop", "ROW,COL")?)?;
        let thief = self.free_cell("thief", params.required("thief", "ROW,COL")?)?;
        let turn = parse_turn(params.required("turn", "cop or thief")?)?;
        let key = PositionKey { cop, thief, turn };
        // The library's own validation, so the two never disagree.
        self.position(key)?;
        Ok(key)
    }

    pub(super) fn position(&self, key: PositionKey) -> Result<GridPosition, ApiError> {
        self.tablebase
            .position(key.cop, key.thief, key.turn.into())
            .map_err(|e| bad(e.to_string()))
    }

    /// A table that failed to answer (a corrupt block): the server's fault.
    pub(super) fn failed(&self, error: &dyn std::fmt::Display) -> ApiError {
        ApiError::Internal(format!("table `{}`: {error:#}", self.name))
    }

    /// `/api/row`: `values` has one character per grid cell, row-major:
    /// `#` wall, else `w`, `l` or `d` (the value for the player to move with
    /// the other piece on that cell); `dte` one number per free cell in
    /// row-major order, -1 for a draw (null when the table has no
    /// distances).
    pub(super) fn row(&self, fixed: Fixed, turn: TurnKey) -> Result<Bytes, ApiError> {
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
    pub(super) fn play(&self, key: PositionKey, max: usize) -> Result<Bytes, ApiError> {
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
        let end = game_end(
            last.cop == last.thief,
            tb.is_exit(last.thief),
            before
                .iter()
                .any(|p| p.cop == last.cop && p.thief == last.thief && p.turn == last.turn),
            &positions,
            || {
                let moves = tb.rated_moves(last).map_err(|e| self.failed(&e))?;
                Ok(moves.is_empty())
            },
        )?;
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
pub(super) fn position_value(p: &GridPosition) -> Value {
    json!({
        "cop": [p.cop.0, p.cop.1],
        "thief": [p.thief.0, p.thief.1],
        "turn": p.turn.as_str(),
    })
}
