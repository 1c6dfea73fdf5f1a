//! A brute-force reference solver written from `docs/rules.md` alone, used
//! only as a test oracle. It shares no code with the crate: its own grid
//! reader, its own move generation from (row, column) coordinates (the
//! several-cops oracle's board, `oracle/kcops.rs`, one relation for both),
//! its own state layout, and the naive round-by-round fixpoint instead of retrograde
//! propagation. After the fixpoint it checks the rules.md definitions of the
//! values and of the distance to end on every state, so it checks itself.
//! The several-cops game's oracle (`oracle/kcops.rs`) runs the same
//! fixpoint ([`fixpoint`]) over its own states.

use std::fmt;

/// The oracle of the several-cops game.
mod kcops;
pub use kcops::{KBoard, KOracle};

/// Value of a state for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win,
    Loss,
    Draw,
}

impl Value {
    /// The name used in dumps: `win`, `loss`, `draw`.
    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Draw => "draw",
        }
    }
}

/// Who moves next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Cop,
    Thief,
}

/// The rule variants of rules.md; `Variant::default()` is the standard game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub cop_diagonal: bool,
    pub thief_diagonal: bool,
    pub cop_passes: bool,
    pub thief_passes: bool,
    pub corner_cutting: bool,
    pub thief_first: bool,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant {
            cop_diagonal: true,
            thief_diagonal: false,
            cop_passes: true,
            thief_passes: true,
            corner_cutting: true,
            thief_first: false,
        }
    }
}

/// The variant flags, named as the command-line flags that turn them on.
const FLAGS: [&str; 6] = [
    "thief-diagonal",
    "cop-orthogonal",
    "no-cop-pass",
    "no-thief-pass",
    "no-corner-cutting",
    "thief-first",
];

impl Variant {
    /// All 64 combinations of the six flags.
    pub fn all() -> impl Iterator<Item = Variant> {
        (0u32..64).map(Variant::from_bits)
    }

    /// Bit k set turns on `FLAGS[k]`.
    pub fn from_bits(bits: u32) -> Variant {
        let on = |k: u32| bits & (1 << k) != 0;
        Variant {
            thief_diagonal: on(0),
            cop_diagonal: !on(1),
            cop_passes: !on(2),
            thief_passes: !on(3),
            corner_cutting: !on(4),
            thief_first: on(5),
        }
    }

    fn bits(self) -> [bool; 6] {
        [
            self.thief_diagonal,
            !self.cop_diagonal,
            !self.cop_passes,
            !self.thief_passes,
            !self.corner_cutting,
            self.thief_first,
        ]
    }

    /// The command-line flags (`--thief-diagonal` ...) selecting this variant.
    pub fn cli_flags(self) -> Vec<String> {
        FLAGS
            .iter()
            .zip(self.bits())
            .filter(|(_, on)| *on)
            .map(|(f, _)| format!("--{f}"))
            .collect()
    }

    /// Parses the short form written by `Display`: `default`, or flag names
    /// without dashes joined by `+` (`no-pass` stands for both no-pass flags).
    pub fn parse(text: &str) -> Variant {
        let mut bits = 0;
        if text != "default" {
            for name in text.split('+') {
                if name == "no-pass" {
                    bits |= 0b1100;
                    continue;
                }
                let k = FLAGS
                    .iter()
                    .position(|f| *f == name)
                    .unwrap_or_else(|| panic!("unknown rule flag `{name}` in `{text}`"));
                bits |= 1 << k;
            }
        }
        Variant::from_bits(bits)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on: Vec<&str> = FLAGS
            .iter()
            .zip(self.bits())
            .filter(|(_, on)| *on)
            .map(|(f, _)| *f)
            .collect();
        if on.is_empty() {
            f.write_str("default")
        } else {
            f.write_str(&on.join("+"))
        }
    }
}

/// A grid with walls, exits and optional starts, in the oracle's own terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arena {
    pub height: usize,
    pub width: usize,
    /// Row-major: the cell is free (exits and starts are free).
    pub free: Vec<bool>,
    /// Row-major: the cell is an exit.
    pub exit: Vec<bool>,
    pub cop: Option<(usize, usize)>,
    pub thief: Option<(usize, usize)>,
}

impl Arena {
    /// Reads rows of the seed alphabet: `*`/`#` wall, `E` exit, `C`/`P` cop,
    /// `T` thief, anything else free.
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Arena {
        let height = rows.len();
        let width = rows.first().map_or(0, |r| r.as_ref().chars().count());
        let mut arena = Arena {
            height,
            width,
            free: Vec::new(),
            exit: Vec::new(),
            cop: None,
            thief: None,
        };
        for (r, row) in rows.iter().enumerate() {
            let row: Vec<char> = row.as_ref().chars().collect();
            assert_eq!(row.len(), width, "ragged row {r}");
            for (c, ch) in row.into_iter().enumerate() {
                arena.free.push(!matches!(ch, '*' | '#'));
                arena.exit.push(ch == 'E');
                match ch {
                    'C' | 'P' => arena.cop = Some((r, c)),
                    'T' => arena.thief = Some((r, c)),
                    _ => {}
                }
            }
        }
        arena
    }

    /// Reads a whole seed-format text: a header line (ignored beyond its
    /// row count), then the rows.
    pub fn from_seed_text(text: &str) -> Arena {
        let mut lines = text.lines();
        let header = lines.next().expect("header");
        let height: usize = header.split_whitespace().next().unwrap().parse().unwrap();
        let rows: Vec<&str> = lines.take(height).collect();
        Arena::from_rows(&rows)
    }

    /// Reads a MovingAI `.map` text: rows after the `map` line; `.` `G` `S`
    /// are passable. No starts and no exits.
    pub fn from_movingai_text(text: &str) -> Arena {
        let rows: Vec<String> = text
            .lines()
            .skip_while(|l| l.trim() != "map")
            .skip(1)
            .map(|row| {
                row.chars()
                    .map(|ch| {
                        if matches!(ch, '.' | 'G' | 'S') {
                            '.'
                        } else {
                            '*'
                        }
                    })
                    .collect()
            })
            .collect();
        Arena::from_rows(&rows)
    }

    /// Back to seed rows (`*` wall, `E` exit, `C`, `T`, `.`).
    pub fn to_rows(&self) -> Vec<String> {
        (0..self.height)
            .map(|r| {
                (0..self.width)
                    .map(|c| {
                        let i = r * self.width + c;
                        if !self.free[i] {
                            '*'
                        } else if self.cop == Some((r, c)) {
                            'C'
                        } else if self.thief == Some((r, c)) {
                            'T'
                        } else if self.exit[i] {
                            'E'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The whole seed-format file. Start cells that are exits lose their
    /// `E` in this form, so callers keep starts off exits.
    pub fn to_seed_text(&self) -> String {
        let mut text = format!("{} {}\n", self.height, self.width);
        for row in self.to_rows() {
            text.push_str(&row);
            text.push('\n');
        }
        text
    }

    pub fn is_free(&self, r: i64, c: i64) -> bool {
        r >= 0
            && c >= 0
            && (r as usize) < self.height
            && (c as usize) < self.width
            && self.free[r as usize * self.width + c as usize]
    }

    /// Free cells in row-major order.
    pub fn free_cells(&self) -> Vec<(usize, usize)> {
        (0..self.height * self.width)
            .filter(|&i| self.free[i])
            .map(|i| (i / self.width, i % self.width))
            .collect()
    }

    /// Makes every free border cell an exit (and nothing else).
    pub fn with_border_exits(mut self) -> Arena {
        for r in 0..self.height {
            for c in 0..self.width {
                let i = r * self.width + c;
                let border = r == 0 || c == 0 || r + 1 == self.height || c + 1 == self.width;
                self.exit[i] = self.free[i] && border;
            }
        }
        self
    }
}

/// The naive round-by-round fixpoint of docs/rules.md over an explicit
/// state graph, the one both oracles (one cop here, several in
/// `oracle/kcops.rs`) run: `terminal[s]` is the value of a terminal state
/// (`None` for the others), `next[s]` every successor of a non-terminal
/// one. Returns each state's value and distance to end, after checking the
/// definitions of both on every state (`name(s)` names a state in a
/// failure).
pub fn fixpoint(
    terminal: &[Option<Value>],
    next: &[Vec<usize>],
    name: impl Fn(usize) -> String,
) -> (Vec<Value>, Vec<Option<u32>>) {
    let total = terminal.len();
    let mut value = vec![Value::Draw; total];
    let mut dte = vec![None; total];
    let mut open = Vec::new();
    for s in 0..total {
        if let Some(v) = terminal[s] {
            value[s] = v;
            dte[s] = Some(0);
        } else if next[s].is_empty() {
            // The crate's convention: a player with no move at all loses.
            value[s] = Value::Loss;
            dte[s] = Some(0);
        } else {
            open.push(s);
        }
    }

    let mut rounds = 0;
    loop {
        let mut newly = Vec::new();
        for &s in &open {
            let mut nearest_loss: Option<u32> = None;
            let mut all_win = true;
            let mut farthest = 0;
            for &v in &next[s] {
                let Some(d) = dte[v] else {
                    all_win = false;
                    continue;
                };
                match value[v] {
                    Value::Loss => nearest_loss = Some(nearest_loss.map_or(d, |m| m.min(d))),
                    Value::Win => farthest = farthest.max(d),
                    Value::Draw => unreachable!("decided states are never draws"),
                }
            }
            if let Some(d) = nearest_loss {
                newly.push((s, Value::Win, d + 1));
            } else if all_win {
                newly.push((s, Value::Loss, farthest + 1));
            }
        }
        if newly.is_empty() {
            break;
        }
        rounds += 1;
        for &(s, v, d) in &newly {
            // Each round extends the decided states by exactly one ply.
            assert_eq!(d, rounds, "state decided in round {rounds} has dte {d}");
            value[s] = v;
            dte[s] = Some(d);
        }
        open.retain(|&s| dte[s].is_none());
    }

    // Self-check against the rules.md definitions, for every state.
    for s in 0..total {
        if let Some(v) = terminal[s] {
            assert_eq!((value[s], dte[s]), (v, Some(0)), "terminal {}", name(s));
            continue;
        }
        let next = &next[s];
        if next.is_empty() {
            assert_eq!(
                (value[s], dte[s]),
                (Value::Loss, Some(0)),
                "no move {}",
                name(s)
            );
            continue;
        }
        let loss: Vec<u32> = next
            .iter()
            .filter(|&&v| value[v] == Value::Loss)
            .map(|&v| dte[v].unwrap())
            .collect();
        match value[s] {
            Value::Win => assert_eq!(dte[s], loss.iter().min().map(|d| d + 1), "{}", name(s)),
            Value::Loss => {
                assert!(next.iter().all(|&v| value[v] == Value::Win), "{}", name(s));
                let farthest = next.iter().map(|&v| dte[v].unwrap()).max();
                assert_eq!(dte[s], farthest.map(|d| d + 1), "{}", name(s));
            }
            Value::Draw => {
                assert!(
                    loss.is_empty(),
                    "a draw with a losing successor {}",
                    name(s)
                );
                assert!(
                    next.iter().any(|&v| value[v] == Value::Draw),
                    "a draw whose successors are all decided {}",
                    name(s)
                );
                assert_eq!(dte[s], None);
            }
        }
    }
    (value, dte)
}

/// Every state's value and distance to end, by the naive fixpoint.
pub struct Oracle {
    width: usize,
    variant: Variant,
    cells: Vec<(usize, usize)>,
    /// Oracle id of each row-major position, for free positions.
    id: Vec<Option<usize>>,
    value: Vec<Value>,
    dte: Vec<Option<u32>>,
}

/// One solved state: `(cop, thief, side to move, value, dte)`.
pub type StateRow = ((usize, usize), (usize, usize), Side, Value, Option<u32>);

/// The answer for a start, told from the cop's side as in rules.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `cop-wins`, `thief-escapes` or `draw`.
    pub result: &'static str,
    pub dte: Option<u32>,
}

impl Oracle {
    /// Solves every (P, T, turn) state of `arena` under `variant`.
    pub fn solve(arena: &Arena, variant: Variant) -> Oracle {
        let cells = arena.free_cells();
        let n = cells.len();
        let mut id = vec![None; arena.height * arena.width];
        for (k, &(r, c)) in cells.iter().enumerate() {
            id[r * arena.width + c] = Some(k);
        }
        // The one-step relation is the several-cops oracle's board (the
        // same free cells in the same order); a side that may pass also
        // stays put.
        let board = KBoard::from_grid(arena, variant);
        let moves = |adjacent: &[Vec<usize>], passes: bool| -> Vec<Vec<usize>> {
            adjacent
                .iter()
                .enumerate()
                .map(|(p, to)| {
                    passes
                        .then_some(p)
                        .into_iter()
                        .chain(to.iter().copied())
                        .collect()
                })
                .collect()
        };
        let cop_moves = moves(&board.cop_adj, variant.cop_passes);
        let thief_moves = moves(&board.thief_adj, variant.thief_passes);
        let exit = &board.exit;

        // The oracle's own layout: turn-major, then thief, then cop (the
        // crate uses cop-major with the turn last).
        let index = |p: usize, t: usize, side: Side| (side as usize * n + t) * n + p;
        let total = 2 * n * n;
        let mut states = Vec::with_capacity(total);
        for side in [Side::Cop, Side::Thief] {
            for t in 0..n {
                for p in 0..n {
                    states.push((p, t, side));
                    debug_assert_eq!(index(p, t, side), states.len() - 1);
                }
            }
        }
        let successors = |p: usize, t: usize, side: Side| -> Vec<usize> {
            match side {
                Side::Cop => cop_moves[p]
                    .iter()
                    .map(|&q| index(q, t, Side::Thief))
                    .collect(),
                Side::Thief => thief_moves[t]
                    .iter()
                    .map(|&u| index(p, u, Side::Cop))
                    .collect(),
            }
        };
        // Rule order: capture first, then escape.
        let terminal = |p: usize, t: usize, side: Side| -> Option<Value> {
            if p == t {
                Some(if side == Side::Cop {
                    Value::Win
                } else {
                    Value::Loss
                })
            } else if exit[t] {
                Some(if side == Side::Cop {
                    Value::Loss
                } else {
                    Value::Win
                })
            } else {
                None
            }
        };

        let terminals: Vec<Option<Value>> = states
            .iter()
            .map(|&(p, t, side)| terminal(p, t, side))
            .collect();
        let next: Vec<Vec<usize>> = states
            .iter()
            .map(|&(p, t, side)| successors(p, t, side))
            .collect();
        let (value, dte) = fixpoint(&terminals, &next, |s| {
            let (p, t, side) = states[s];
            format!("{:?}", (cells[p], cells[t], side))
        });

        Oracle {
            width: arena.width,
            variant,
            cells,
            id,
            value,
            dte,
        }
    }

    fn index(&self, cop: (usize, usize), thief: (usize, usize), side: Side) -> usize {
        let n = self.cells.len();
        let p = self.id[cop.0 * self.width + cop.1].expect("cop on a free cell");
        let t = self.id[thief.0 * self.width + thief.1].expect("thief on a free cell");
        (side as usize * n + t) * n + p
    }

    /// Value and distance to end of a state given by coordinates.
    pub fn lookup(
        &self,
        cop: (usize, usize),
        thief: (usize, usize),
        side: Side,
    ) -> (Value, Option<u32>) {
        let s = self.index(cop, thief, side);
        (self.value[s], self.dte[s])
    }

    /// Free cells, row-major.
    pub fn cells(&self) -> &[(usize, usize)] {
        &self.cells
    }

    /// Every state as `(cop, thief, side, value, dte)`.
    pub fn states(&self) -> impl Iterator<Item = StateRow> + '_ {
        let n = self.cells.len();
        (0..2 * n * n).map(move |s| {
            let side = if s < n * n { Side::Cop } else { Side::Thief };
            let t = (s % (n * n)) / n;
            let p = s % n;
            (
                self.cells[p],
                self.cells[t],
                side,
                self.value[s],
                self.dte[s],
            )
        })
    }

    /// `[win, loss, draw]` over all states.
    pub fn counts(&self) -> [u64; 3] {
        let mut counts = [0; 3];
        for &v in &self.value {
            counts[match v {
                Value::Win => 0,
                Value::Loss => 1,
                Value::Draw => 2,
            }] += 1;
        }
        counts
    }

    /// Largest distance to end of any decided state (0 without states).
    pub fn max_dte(&self) -> u32 {
        self.dte.iter().flatten().copied().max().unwrap_or(0)
    }

    /// The answer for the start `(cop, thief)`, with the variant's first
    /// mover, told from the cop's side.
    pub fn answer(&self, cop: (usize, usize), thief: (usize, usize)) -> Answer {
        let side = if self.variant.thief_first {
            Side::Thief
        } else {
            Side::Cop
        };
        let (value, dte) = self.lookup(cop, thief, side);
        let cop_wins = match (value, side) {
            (Value::Draw, _) => None,
            (Value::Win, Side::Cop) | (Value::Loss, Side::Thief) => Some(true),
            _ => Some(false),
        };
        Answer {
            result: match cop_wins {
                Some(true) => "cop-wins",
                Some(false) => "thief-escapes",
                None => "draw",
            },
            dte,
        }
    }
}

#[test]
fn oracle_example_of_rules_md() {
    // rules.md: on `C.T` with no exit the cop catches the thief.
    let arena = Arena::from_rows(&["C.T"]);
    let oracle = Oracle::solve(&arena, Variant::default());
    let answer = oracle.answer((0, 0), (0, 2));
    assert_eq!(answer.result, "cop-wins");
    // The cop steps next to the thief (1), the thief delays by passing
    // (2), the cop captures (3).
    assert_eq!(answer.dte, Some(3));
}

#[test]
fn oracle_terminal_order_capture_beats_escape() {
    let arena = Arena::from_rows(&["E"]);
    let oracle = Oracle::solve(&arena, Variant::default());
    assert_eq!(
        oracle.lookup((0, 0), (0, 0), Side::Cop),
        (Value::Win, Some(0))
    );
    assert_eq!(
        oracle.lookup((0, 0), (0, 0), Side::Thief),
        (Value::Loss, Some(0))
    );
}

#[test]
fn oracle_no_move_loses_and_thief_on_exit_wins() {
    // Two isolated cells, no passing: whoever moves has no move.
    let arena = Arena::from_rows(&[".*E"]);
    let variant = Variant::parse("no-cop-pass+no-thief-pass");
    let oracle = Oracle::solve(&arena, variant);
    assert_eq!(
        oracle.lookup((0, 2), (0, 0), Side::Cop),
        (Value::Loss, Some(0))
    );
    assert_eq!(
        oracle.lookup((0, 2), (0, 0), Side::Thief),
        (Value::Loss, Some(0))
    );
    assert_eq!(
        oracle.lookup((0, 0), (0, 2), Side::Cop),
        (Value::Loss, Some(0))
    );
    assert_eq!(
        oracle.lookup((0, 0), (0, 2), Side::Thief),
        (Value::Win, Some(0))
    );
    assert_eq!(oracle.counts(), [3, 5, 0]);
}

#[test]
fn oracle_draw_when_the_thief_circles_a_block() {
    // A 3x3 ring around one wall: with a 4-direction cop that may not pass,
    // the thief keeps the wall between them forever.
    let arena = Arena::from_rows(&["C..", ".*.", "..T"]);
    let oracle = Oracle::solve(&arena, Variant::parse("cop-orthogonal"));
    assert_eq!(oracle.answer((0, 0), (2, 2)).result, "draw");
    // A king catches it.
    let oracle = Oracle::solve(&arena, Variant::default());
    assert_eq!(oracle.answer((0, 0), (2, 2)).result, "cop-wins");
}

#[test]
fn variant_names_round_trip() {
    for variant in Variant::all() {
        assert_eq!(Variant::parse(&variant.to_string()), variant);
    }
    assert_eq!(Variant::parse("default"), Variant::default());
    assert_eq!(Variant::default().cli_flags(), Vec::<String>::new());
}
