//! The contest input of the empty-cell game: the board's size and rows,
//! then the number of moves and each move's row and column, read as a
//! stream of tokens with the line and column of each for error messages.

use std::io::BufRead;
use std::path::Path;

use super::{EmptyCellGame, Square};
use crate::error::Error;

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
