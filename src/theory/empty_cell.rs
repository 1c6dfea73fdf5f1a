//! The empty-cell game (NOI 2011 "rabbit and egg"): a board of the first
//! player's pieces (`O`), the second player's (`X`) and one empty cell (`.`).
//! In turn a player slides one of its own pieces that is 4-adjacent to the
//! empty cell into it; a player who cannot move loses.
//!
//! Solved by matching, not search. Colour the board like a chessboard and
//! call the empty cell's starting colour even. The first player always moves
//! while the empty cell is on an even cell, so it can only ever pull in an
//! `O` from an odd cell, and such an `O` has never moved (moved `O`s land on
//! even cells); symmetrically the second player only pulls in unmoved `X`s
//! from even cells. A cell the empty cell has left is never entered again
//! (it now holds a piece of the wrong kind for its colour). So the game is
//! undirected vertex geography on the bipartite graph whose vertices are the
//! start, the odd `O` cells and the even `X` cells, with edges between
//! 4-neighbours: the empty cell is a token that moves to an adjacent
//! unvisited vertex. In that game the player to move from `v` wins iff `v`
//! is in every maximum matching of the graph of the unvisited vertices and
//! `v` (the classic theorem: the winner follows the matching). A
//! [`DecrementalMatching`] answers that for each position of a game record,
//! removing the visited vertices one by one.

use std::io::BufRead;
use std::path::Path;

use crate::error::Error;
use crate::theory::matching::{BipartiteGraph, DecrementalMatching, Vertex};

/// What occupies a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// A piece of the first player (`O`).
    First,
    /// A piece of the second player (`X`).
    Second,
    /// The empty cell (`.`).
    Empty,
}

impl Square {
    /// The character of the contest format: `O`, `X` or `.`.
    #[must_use]
    pub fn as_char(self) -> char {
        match self {
            Square::First => 'O',
            Square::Second => 'X',
            Square::Empty => '.',
        }
    }
}

/// Why a board is not a valid empty-cell position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The squares do not fill `rows * cols` cells.
    #[error("{squares} squares given for a {rows} x {cols} board")]
    Size {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// Squares given.
        squares: usize,
    },
    /// There must be exactly one empty cell.
    #[error("the board has {count} empty cells; it needs exactly one")]
    EmptyCells {
        /// How many were found.
        count: usize,
    },
}

/// A move of a game record that the rules forbid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {} ({} player, round {}) at ({}, {}): {reason}", .index + 1, if .index % 2 == 0 { "first" } else { "second" }, .index / 2 + 1, .row + 1, .col + 1)]
pub struct IllegalMove {
    /// The move's index in the record, from 0 (even: first player).
    pub index: usize,
    /// The 0-based row it named.
    pub row: usize,
    /// The 0-based column it named.
    pub col: usize,
    /// Why it is illegal.
    pub reason: String,
}

/// An empty-cell position: the board and whose turn it is implied (the
/// first player moves first).
///
/// # Example
/// ```
/// use retrograde::theory::empty_cell::EmptyCellGame;
/// // The empty cell walks the path X O . O X O; the player to move wins iff
/// // its cell is in every maximum matching of the unvisited rest.
/// let game = EmptyCellGame::parse_board(&["XO.OXO"]).unwrap();
/// assert_eq!(game.verdicts(&[(0, 1), (0, 0)]).unwrap(), vec![true, true]);
/// assert_eq!(game.verdicts(&[(0, 3), (0, 4)]).unwrap(), vec![true, false]);
/// // After O slides left, the cell right of the hole holds that O: X may not move it.
/// assert_eq!(game.verdicts(&[(0, 1), (0, 2)]).unwrap_err().index, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmptyCellGame {
    rows: usize,
    cols: usize,
    squares: Vec<Square>,
    empty: usize,
}

impl EmptyCellGame {
    /// The position with these squares in row-major order.
    ///
    /// # Errors
    /// [`BoardError`] when the count is wrong or there is not exactly one
    /// empty cell.
    pub fn new(
        rows: usize,
        cols: usize,
        squares: Vec<Square>,
    ) -> Result<EmptyCellGame, BoardError> {
        if rows.checked_mul(cols) != Some(squares.len()) || squares.is_empty() {
            return Err(BoardError::Size {
                rows,
                cols,
                squares: squares.len(),
            });
        }
        let count = squares.iter().filter(|&&s| s == Square::Empty).count();
        if count != 1 {
            return Err(BoardError::EmptyCells { count });
        }
        let empty = squares
            .iter()
            .position(|&s| s == Square::Empty)
            .unwrap_or(0);
        Ok(EmptyCellGame {
            rows,
            cols,
            squares,
            empty,
        })
    }

    /// The position from rows of `O`, `X` and `.` (other characters count as
    /// `X`; meant for examples and tests).
    ///
    /// # Errors
    /// As [`EmptyCellGame::new`]; ragged rows give [`BoardError::Size`].
    pub fn parse_board(rows: &[&str]) -> Result<EmptyCellGame, BoardError> {
        let cols = rows.first().map_or(0, |r| r.chars().count());
        let squares = rows
            .iter()
            .flat_map(|r| r.chars())
            .map(|c| match c {
                'O' => Square::First,
                '.' => Square::Empty,
                _ => Square::Second,
            })
            .collect();
        EmptyCellGame::new(rows.len(), cols, squares)
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The square at `(row, col)` (0-based) in the starting position.
    #[must_use]
    pub fn square(&self, row: usize, col: usize) -> Square {
        self.squares[row * self.cols + col]
    }

    /// The empty cell's `(row, col)` in the starting position.
    #[must_use]
    pub fn empty(&self) -> (usize, usize) {
        (self.empty / self.cols, self.empty % self.cols)
    }

    /// For each position of a game record, before each move: whether the
    /// player to move there wins. `record` lists the cells (0-based) of the
    /// pieces moved, alternately by the first and the second player.
    ///
    /// # Errors
    /// [`IllegalMove`] for the first move the rules forbid.
    ///
    /// # Example
    /// See [`EmptyCellGame`].
    pub fn verdicts(&self, record: &[(usize, usize)]) -> Result<Vec<bool>, IllegalMove> {
        let (graph, vertex) = self.graph();
        let mut matching = DecrementalMatching::new(&graph);
        let mut board = self.squares.clone();
        let mut empty = self.empty;
        let mut verdicts = Vec::with_capacity(record.len());
        for (index, &(row, col)) in record.iter().enumerate() {
            let current = vertex[empty].expect("the empty cell only visits graph vertices");
            verdicts.push(matching.remove(current));
            let mine = if index % 2 == 0 {
                Square::First
            } else {
                Square::Second
            };
            let illegal = |reason: String| IllegalMove {
                index,
                row,
                col,
                reason,
            };
            if row >= self.rows || col >= self.cols {
                return Err(illegal(format!(
                    "off the {} x {} board",
                    self.rows, self.cols
                )));
            }
            let (er, ec) = (empty / self.cols, empty % self.cols);
            if row.abs_diff(er) + col.abs_diff(ec) != 1 {
                return Err(illegal(format!(
                    "not next to the empty cell ({}, {})",
                    er + 1,
                    ec + 1
                )));
            }
            let cell = row * self.cols + col;
            if board[cell] != mine {
                return Err(illegal(format!(
                    "the cell holds `{}`, not the mover's piece `{}`",
                    board[cell].as_char(),
                    mine.as_char()
                )));
            }
            board.swap(cell, empty);
            empty = cell;
        }
        Ok(verdicts)
    }

    /// The rounds (1-based, increasing) in which the first player moved from
    /// a winning position into one that wins for the second player.
    ///
    /// # Errors
    /// [`IllegalMove`] for the first move the rules forbid.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::empty_cell::EmptyCellGame;
    /// // O wins by sliding in the right-hand O (X must answer from the
    /// // right and O takes the last move); sliding in the left one loses.
    /// let game = EmptyCellGame::parse_board(&["XO.OXO"]).unwrap();
    /// assert_eq!(game.mistakes(&[(0, 1), (0, 0)]).unwrap(), vec![1]);
    /// assert_eq!(game.mistakes(&[(0, 3), (0, 4)]).unwrap(), Vec::<usize>::new());
    /// ```
    pub fn mistakes(&self, record: &[(usize, usize)]) -> Result<Vec<usize>, IllegalMove> {
        let verdicts = self.verdicts(record)?;
        Ok(verdicts
            .chunks(2)
            .enumerate()
            .filter(|(_, pair)| pair.len() == 2 && pair[0] && pair[1])
            .map(|(round, _)| round + 1)
            .collect())
    }

    /// The geography graph (left: the start's colour, the start and its
    /// colour's `X` cells; right: the other colour's `O` cells) and each
    /// cell's vertex.
    fn graph(&self) -> (BipartiteGraph, Vec<Option<Vertex>>) {
        let parity = |cell: usize| (cell / self.cols + cell % self.cols) % 2;
        let start = parity(self.empty);
        let (mut left, mut right) = (0u32, 0u32);
        let vertex: Vec<Option<Vertex>> = (0..self.squares.len())
            .map(|cell| {
                let even = parity(cell) == start;
                match (self.squares[cell], even) {
                    (Square::Empty | Square::Second, true) => {
                        left += 1;
                        Some(Vertex::Left(left - 1))
                    }
                    (Square::First, false) => {
                        right += 1;
                        Some(Vertex::Right(right - 1))
                    }
                    _ => None,
                }
            })
            .collect();
        let mut edges = Vec::new();
        for cell in 0..self.squares.len() {
            let Some(Vertex::Left(a)) = vertex[cell] else {
                continue;
            };
            let (r, c) = (cell / self.cols, cell % self.cols);
            let mut link = |other: usize| {
                if let Some(Vertex::Right(b)) = vertex[other] {
                    edges.push((a, b));
                }
            };
            if r > 0 {
                link(cell - self.cols);
            }
            if r + 1 < self.rows {
                link(cell + self.cols);
            }
            if c > 0 {
                link(cell - 1);
            }
            if c + 1 < self.cols {
                link(cell + 1);
            }
        }
        (
            BipartiteGraph::new(left as usize, right as usize, &edges),
            vertex,
        )
    }
}

/// A parsed contest input: the position and the game record, with the line
/// and column of every move for error messages.
#[derive(Clone, Debug)]
pub struct ContestInput {
    /// The starting position.
    pub game: EmptyCellGame,
    /// The moved pieces' cells, 0-based, alternately first and second player.
    pub record: Vec<(usize, usize)>,
    /// The 1-based (line, column) where each move of `record` starts.
    pub positions: Vec<(usize, usize)>,
    path: String,
}

impl ContestInput {
    /// The contest answer: rounds (1-based) in which the first player moved
    /// from a winning position into a losing one.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the line of the first illegal move.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::empty_cell::parse_contest;
    /// let input = parse_contest("1 6\nXO.OXO\n1\n1 2\n1 1\n", "game.txt").unwrap();
    /// assert_eq!(input.mistakes().unwrap(), vec![1]);
    /// // The second move names the O that just moved.
    /// let bad = parse_contest("1 6\nXO.OXO\n1\n1 2\n1 3\n", "game.txt").unwrap();
    /// assert!(bad.mistakes().unwrap_err().to_string().starts_with("game.txt:5:1:"));
    /// ```
    pub fn mistakes(&self) -> Result<Vec<usize>, Error> {
        self.game.mistakes(&self.record).map_err(|e| {
            let (line, column) = self.positions[e.index];
            Error::Parse {
                path: self.path.clone(),
                line,
                column,
                message: format!("illegal {e}"),
            }
        })
    }
}

/// Parses the contest format: `n m`, `n` rows of `m` characters `O`, `X`,
/// `.` (exactly one `.`), `k`, then `2k` moves `row col` (1-based), the
/// first player's and the second player's move of each round. Tokens are
/// separated by any whitespace; `path` only labels errors.
///
/// # Errors
/// [`Error::Parse`] with the 1-based line and column of the first problem.
///
/// # Example
/// See [`ContestInput::mistakes`].
pub fn parse_contest(text: &str, path: &str) -> Result<ContestInput, Error> {
    read_contest(text.as_bytes(), Path::new(path))
}

/// Reads and parses the contest format (see [`parse_contest`]) from
/// `reader`, a token at a time: a bad input (binary data, an endless
/// device) is rejected at its first bad token, after reading little.
///
/// # Errors
/// [`Error::Parse`] with the 1-based line and column of the first problem
/// (invalid UTF-8 included); [`Error::Io`] when reading fails.
pub fn read_contest(reader: impl BufRead, path: &Path) -> Result<ContestInput, Error> {
    let name = path.display().to_string();
    let mut tokens = Tokens::new(reader, path, &name);
    let rows = tokens.number("the number of rows n")?;
    let cols = tokens.number("the number of columns m")?;
    if rows == 0 || cols == 0 || rows.saturating_mul(cols) > 1 << 26 {
        return Err(tokens.error_at_last(format!(
            "the board must have between 1 and 2^26 cells, found {rows} x {cols}"
        )));
    }
    let mut squares = Vec::new();
    let mut empty_at = None;
    for row in 0..rows {
        // Read a little past the width, to give a near miss's length.
        let limit = cols + ROW_SLACK;
        let (token, line, column) = tokens.next(&format!("row {} of the board", row + 1), limit)?;
        let len = token.chars().count();
        if len != cols {
            return Err(tokens.error(
                line,
                column,
                if len >= limit {
                    format!(
                        "row {} has more than {cols} cells, expected {cols}",
                        row + 1
                    )
                } else {
                    format!("row {} has {len} cells, expected {cols}", row + 1)
                },
            ));
        }
        squares.reserve(cols);
        for (i, ch) in token.chars().enumerate() {
            squares.push(match ch {
                'O' => Square::First,
                'X' => Square::Second,
                '.' => {
                    if empty_at.is_some() {
                        return Err(tokens.error(
                            line,
                            column + i,
                            "a second empty cell `.`: the board needs exactly one".into(),
                        ));
                    }
                    empty_at = Some(());
                    Square::Empty
                }
                other => {
                    return Err(tokens.error(
                        line,
                        column + i,
                        format!(
                            "unexpected `{}`: cells are `O`, `X` or `.`",
                            other.escape_default()
                        ),
                    ))
                }
            });
        }
    }
    if empty_at.is_none() {
        return Err(tokens.error_at_last("the board has no empty cell `.`".into()));
    }
    let game = EmptyCellGame::new(rows, cols, squares).expect("size and empty cell checked");
    let rounds = tokens.number("the number of rounds k")?;
    let moves = rounds
        .checked_mul(2)
        .filter(|&m| m <= 1 << 26)
        .ok_or_else(|| tokens.error_at_last(format!("{rounds} rounds is too many")))?;
    // Grown as moves arrive: a huge k alone reserves nothing.
    let mut record = Vec::new();
    let mut positions = Vec::new();
    for index in 0..moves {
        let what = format!("the row of move {} (round {})", index + 1, index / 2 + 1);
        let (line, column) = tokens.peek_position()?;
        let row = tokens.number(&what)?;
        let col = tokens.number(&format!("the column of move {}", index + 1))?;
        if row == 0 || col == 0 {
            return Err(tokens.error(line, column, "rows and columns count from 1".into()));
        }
        record.push((row - 1, col - 1));
        positions.push((line, column));
    }
    if let Some((token, line, column)) = tokens.peek()? {
        return Err(tokens.error(
            line,
            column,
            format!(
                "unexpected `{}` after the {moves} moves of the record",
                shown(&token)
            ),
        ));
    }
    Ok(ContestInput {
        game,
        record,
        positions,
        path: name,
    })
}

/// How far past its width a board row is read, to report its length.
const ROW_SLACK: usize = 1 << 12;

/// Longest number token read (leading zeros included).
const NUMBER_CHARS: usize = 64;

/// A token for a message: control characters escaped, at most 40
/// characters.
fn shown(token: &str) -> String {
    let mut text: String = token
        .chars()
        .take(40)
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    if token.chars().nth(40).is_some() {
        text.push_str("...");
    }
    text
}

/// A token: its text and 1-based line and column.
type Token = (String, usize, usize);

/// Whitespace-separated tokens with their 1-based line and column, read
/// from the input one character at a time.
struct Tokens<'a, R> {
    reader: R,
    path: &'a Path,
    name: &'a str,
    /// Position of the next character.
    line: usize,
    column: usize,
    /// Whether the current line has any character (for the end position).
    line_used: bool,
    peeked: Option<Token>,
    /// Where the last token returned started.
    last: Option<(usize, usize)>,
}

impl<'a, R: BufRead> Tokens<'a, R> {
    fn new(reader: R, path: &'a Path, name: &'a str) -> Tokens<'a, R> {
        Tokens {
            reader,
            path,
            name,
            line: 1,
            column: 1,
            line_used: false,
            peeked: None,
            last: None,
        }
    }

    fn error(&self, line: usize, column: usize, message: String) -> Error {
        Error::Parse {
            path: self.name.to_string(),
            line,
            column,
            message,
        }
    }

    fn error_at_last(&self, message: String) -> Error {
        let (line, column) = self.last.unwrap_or((1, 1));
        self.error(line, column, message)
    }

    /// The position reported for the end of the input: the last line
    /// (one with characters), column 1.
    fn end(&self) -> (usize, usize) {
        let last = if self.line_used {
            self.line
        } else {
            self.line - 1
        };
        (last.max(1), 1)
    }

    /// The next byte, without consuming it.
    fn peek_byte(&mut self) -> Result<Option<u8>, Error> {
        loop {
            return match self.reader.fill_buf() {
                Ok(b) => Ok(b.first().copied()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => Err(Error::Io {
                    path: self.path.to_path_buf(),
                    source,
                }),
            };
        }
    }

    /// The next character, consumed (invalid UTF-8 is an error at its
    /// position).
    fn next_char(&mut self) -> Result<Option<char>, Error> {
        let Some(first) = self.peek_byte()? else {
            return Ok(None);
        };
        self.reader.consume(1);
        let len = match first {
            0x00..=0x7f => 1,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 0,
        };
        let mut bytes = [first, 0, 0, 0];
        let mut ok = len > 0;
        for slot in bytes.iter_mut().take(len).skip(1) {
            match self.peek_byte()? {
                Some(b) if b & 0xc0 == 0x80 => {
                    *slot = b;
                    self.reader.consume(1);
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        match std::str::from_utf8(&bytes[..len.max(1)]) {
            Ok(text) if ok => Ok(text.chars().next()),
            _ => Err(self.error(
                self.line,
                self.column,
                "invalid UTF-8: this looks like a binary file, expected the contest text"
                    .to_string(),
            )),
        }
    }

    /// Reads the next token of at most `max` characters: a longer one is
    /// cut there and the rest left unread (callers pass one more than they
    /// accept, so a cut token is one they reject).
    fn read_token(&mut self, max: usize) -> Result<Option<Token>, Error> {
        let start = loop {
            let (line, column) = (self.line, self.column);
            match self.next_char()? {
                None => return Ok(None),
                Some('\n') => {
                    self.line += 1;
                    self.column = 1;
                    self.line_used = false;
                }
                Some(c) => {
                    self.line_used = true;
                    self.column += 1;
                    if !c.is_whitespace() {
                        break (String::from(c), line, column);
                    }
                }
            }
        };
        let (mut text, line, column) = start;
        let mut count = 1;
        while count < max {
            // Whitespace ends the token and is left for the next one.
            match self.peek_byte()? {
                None => break,
                Some(b) if b.is_ascii_whitespace() => break,
                Some(_) => {}
            }
            let Some(c) = self.next_char()? else { break };
            if c.is_whitespace() {
                // A non-ASCII space: consumed, so count it here.
                self.column += 1;
                break;
            }
            self.column += 1;
            text.push(c);
            count += 1;
        }
        Ok(Some((text, line, column)))
    }

    fn peek(&mut self) -> Result<Option<Token>, Error> {
        if self.peeked.is_none() {
            self.peeked = self.read_token(NUMBER_CHARS + 1)?;
        }
        Ok(self.peeked.clone())
    }

    fn peek_position(&mut self) -> Result<(usize, usize), Error> {
        let end = self.end();
        Ok(self.peek()?.map_or(end, |(_, l, c)| (l, c)))
    }

    /// The next token, of at most `max` characters (cut there: see
    /// `read_token`).
    fn next(&mut self, what: &str, max: usize) -> Result<Token, Error> {
        let item = match self.peeked.take() {
            Some(item) => Some(item),
            None => self.read_token(max)?,
        };
        let Some(item) = item else {
            let (line, column) = self.end();
            return Err(self.error(
                line,
                column,
                format!("expected {what}, found the end of the file"),
            ));
        };
        self.last = Some((item.1, item.2));
        Ok(item)
    }

    fn number(&mut self, what: &str) -> Result<usize, Error> {
        let (token, line, column) = self.next(what, NUMBER_CHARS + 1)?;
        let parsed = if token.len() > NUMBER_CHARS {
            None
        } else {
            token.parse().ok()
        };
        parsed.ok_or_else(|| {
            self.error(
                line,
                column,
                format!(
                    "expected {what} (a non-negative integer), found `{}`",
                    shown(&token)
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_place() {
        let err = |text: &str| parse_contest(text, "f").unwrap_err().to_string();
        assert_eq!(
            err("2 2\n.O\nOXX\n0\n"),
            "f:3:1: row 2 has 3 cells, expected 2"
        );
        assert_eq!(
            err("2 2\n.O\nO.\n0\n"),
            "f:3:2: a second empty cell `.`: the board needs exactly one"
        );
        assert_eq!(
            err("1 2\n.Q\n0\n"),
            "f:2:2: unexpected `Q`: cells are `O`, `X` or `.`"
        );
        assert!(err("1 2\n.O\n1\n1 2\n").starts_with("f:4:1: expected the row of move 2"));
        assert!(err("1 2\n.O\n0\n5\n").starts_with("f:4:1: unexpected `5`"));
        assert!(err("1 2\nOO\n0\n").starts_with("f:2:1: the board has no empty cell"));
        assert!(err("x").starts_with("f:1:1: expected the number of rows"));
    }

    #[test]
    fn illegal_moves_are_reported() {
        let game = EmptyCellGame::parse_board(&[".OX", "XOO"]).unwrap();
        let e = game.verdicts(&[(1, 1)]).unwrap_err();
        assert!(e.reason.contains("not next to"), "{e}");
        let e = game.verdicts(&[(1, 0)]).unwrap_err();
        assert!(e.reason.contains("not the mover's piece"), "{e}");
        let e = game.verdicts(&[(0, 1), (5, 0)]).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(e
            .to_string()
            .starts_with("move 2 (second player, round 1) at (6, 1): off the"));
    }
}
