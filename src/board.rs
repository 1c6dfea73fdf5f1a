//! [`Board`]: a grid with its exits and (optional) starts resolved to free
//! cell ids, from a [`Map`] and the user's [`Placement`] overrides.

use bitvec::vec::BitVec;

use crate::error::{Error, Result};
use crate::format::{Coord, Map};
use crate::grid::{Grid, STEPS};

/// A rule that adds exits without naming each cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitRule {
    /// Every free cell on the map's outer border.
    Border,
    /// Every free cell that touches, in its 8-neighbourhood, the outside of
    /// the playable area: everything beyond the map's edge plus every
    /// blocked cell connected to it through blocked cells (8-connected, so
    /// a rim of walls or trees drawn with diagonal steps still counts).
    /// Unlike [`ExitRule::Border`] it finds exits on maps framed by walls;
    /// an inner pillar that touches no such wall adds none.
    Rim,
    /// `count` distinct free cells drawn with a seeded generator (the same
    /// seed gives the same cells on the same map), never a start cell.
    Random {
        /// How many exits.
        count: usize,
        /// Generator seed.
        seed: u64,
    },
}

/// Starts and exits given by the user, overriding the map's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// The cop's start, replacing the map's.
    pub cop: Option<Coord>,
    /// The thief's start, replacing the map's.
    pub thief: Option<Coord>,
    /// Exit cells. When this or `exit_rules` is non-empty, the map's own
    /// exits are ignored.
    pub exits: Vec<Coord>,
    /// Exit rules, applied together with `exits` (their union).
    pub exit_rules: Vec<ExitRule>,
}

/// A grid with exits and starts as free cell ids.
#[derive(Clone, Debug)]
pub struct Board {
    /// The map's cells.
    pub grid: Grid,
    /// `exits[cell]` is true for exit cells (indexed by free cell id).
    pub exits: BitVec,
    /// The cop's start cell, if known.
    pub cop: Option<u32>,
    /// The thief's start cell, if known.
    pub thief: Option<u32>,
}

impl Board {
    /// Resolves a map plus user overrides into a board.
    ///
    /// # Errors
    /// [`Error::Placement`] when a coordinate is outside the map or on a
    /// wall, when a start is given for one piece only and the map has no
    /// start for the other (the message names the missing `--cop` or
    /// `--thief`), or a
    /// random exit count exceeds the free cells.
    ///
    /// # Example
    /// ```
    /// use retrograde::{parse_map, Board, ExitRule, Placement};
    /// let map = parse_map(b"3 3\nC..\n...\n..T\n", "inline").unwrap();
    /// let placement = Placement { exit_rules: vec![ExitRule::Border], ..Placement::default() };
    /// let board = Board::new(&map, &placement).unwrap();
    /// assert_eq!(board.exits.count_ones(), 8);
    /// ```
    pub fn new(map: &Map, placement: &Placement) -> Result<Board> {
        let grid = &map.grid;
        let cell = |what: &str, coord: Coord| grid.free_cell(what, coord);
        let cop = match (placement.cop, map.cop) {
            (Some(c), _) => Some(cell("--cop", c)?),
            (None, Some(c)) => Some(cell("the map's cop start", c)?),
            (None, None) => None,
        };
        let thief = match (placement.thief, map.thief) {
            (Some(c), _) => Some(cell("--thief", c)?),
            (None, Some(c)) => Some(cell("the map's thief start", c)?),
            (None, None) => None,
        };
        // A start flag for one piece alone cannot be answered: without this
        // the solve would quietly report no result. (A map file that marks
        // only one piece is left as it is: it has no start.)
        let flag = match (placement.cop, placement.thief) {
            (Some(c), None) if thief.is_none() => Some(("--cop", c, "--thief")),
            (None, Some(c)) if cop.is_none() => Some(("--thief", c, "--cop")),
            _ => None,
        };
        if let Some((given, c, missing)) = flag {
            return Err(Error::Placement {
                what: format!("{given} {},{}", c.0, c.1),
                message: format!(
                    "has no other start to go with it: give {missing} ROW,COL too (or neither start)"
                ),
            });
        }
        let mut exits = BitVec::repeat(false, grid.cells());
        if placement.exits.is_empty() && placement.exit_rules.is_empty() {
            for &coord in &map.exits {
                exits.set(cell("the map's exit", coord)? as usize, true);
            }
        }
        for &coord in &placement.exits {
            exits.set(cell("--exit", coord)? as usize, true);
        }
        for rule in &placement.exit_rules {
            match *rule {
                ExitRule::Border => {
                    for id in 0..grid.cells() as u32 {
                        let (r, c) = grid.coords(id);
                        if r == 0 || c == 0 || r + 1 == grid.height() || c + 1 == grid.width() {
                            exits.set(id as usize, true);
                        }
                    }
                }
                ExitRule::Rim => {
                    for id in rim_cells(grid) {
                        exits.set(id as usize, true);
                    }
                }
                ExitRule::Random { count, seed } => {
                    let mut pool: Vec<u32> = (0..grid.cells() as u32)
                        .filter(|&id| Some(id) != cop && Some(id) != thief)
                        .collect();
                    if count > pool.len() {
                        return Err(Error::Placement {
                            what: format!("--exits random:{count}:{seed}"),
                            message: format!(
                                "asks for {count} exits but only {} free cells are not starts",
                                pool.len()
                            ),
                        });
                    }
                    // Partial Fisher-Yates with SplitMix64: deterministic and
                    // independent of any external generator's versioning.
                    let mut state = seed;
                    for k in 0..count {
                        let j = k + (splitmix64(&mut state) % (pool.len() - k) as u64) as usize;
                        pool.swap(k, j);
                        exits.set(pool[k] as usize, true);
                    }
                }
            }
        }
        Ok(Board {
            grid: grid.clone(),
            exits,
            cop,
            thief,
        })
    }
}

impl Board {
    /// The exit cells as `(row, column)`, row-major.
    #[must_use]
    pub fn exit_coords(&self) -> Vec<crate::format::Coord> {
        self.exits
            .iter_ones()
            .map(|id| self.grid.coords(id as u32))
            .collect()
    }

    /// A checksum of the exit cells (FNV-1a over their row-major
    /// `(row, column)` pairs): two runs with the same exits give the same
    /// value, so a results row can be compared without listing every exit.
    #[must_use]
    pub fn exit_checksum(&self) -> u64 {
        self.exit_coords()
            .into_iter()
            .fold(crate::hash::FNV_START, |h, (r, c)| {
                let h = crate::hash::fnv1a(h, &(r as u64).to_le_bytes());
                crate::hash::fnv1a(h, &(c as u64).to_le_bytes())
            })
    }
}

/// Free cells next to the outside (see [`ExitRule::Rim`]), ascending ids.
fn rim_cells(grid: &Grid) -> Vec<u32> {
    let (h, w) = (grid.height(), grid.width());
    // outside[r * w + c]: a blocked cell connected through blocked cells
    // (8-connected) to the map's edge. Flood fill from the blocked edge
    // cells with an explicit stack (maps can be large).
    let mut outside: BitVec = BitVec::repeat(false, h * w);
    let mut stack = Vec::new();
    let edge = (0..w)
        .flat_map(|c| [(0, c), (h - 1, c)])
        .chain((0..h).flat_map(|r| [(r, 0), (r, w - 1)]));
    for (r, c) in edge {
        if !grid.is_free(r as i64, c as i64) && !outside[r * w + c] {
            outside.set(r * w + c, true);
            stack.push((r, c));
        }
    }
    while let Some((r, c)) = stack.pop() {
        for (dr, dc) in STEPS {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            if !grid.is_free(nr as i64, nc as i64) && !outside[nr * w + nc] {
                outside.set(nr * w + nc, true);
                stack.push((nr, nc));
            }
        }
    }
    (0..grid.cells() as u32)
        .filter(|&id| {
            let (r, c) = grid.coords(id);
            STEPS.iter().any(|&(dr, dc)| {
                let (nr, nc) = (r as i64 + dr, c as i64 + dc);
                nr < 0
                    || nc < 0
                    || nr >= h as i64
                    || nc >= w as i64
                    || outside[nr as usize * w + nc as usize]
            })
        })
        .collect()
}

/// SplitMix64 step (Steele, Lea and Flood), a small seeded generator.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
