//! Typed game values: [`Outcome`] of a state for the player to move, [`Dte`]
//! (distance to end in plies) and the start-position [`Verdict`].
//!
//! These are the API types; the packed encodings used by the engines live in
//! `storage` and never leak out of it.

use std::fmt;

/// The value of a terminal state for the player to move: a game that is
/// over has been won or lost, never drawn (a draw is only ever the absence
/// of a forced end), so [`Initial::Decided`](crate::Initial::Decided)
/// cannot carry one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    /// The player to move has won.
    Win,
    /// The player to move has lost.
    Loss,
}

impl From<Terminal> for Outcome {
    fn from(t: Terminal) -> Outcome {
        match t {
            Terminal::Win => Outcome::Win,
            Terminal::Loss => Outcome::Loss,
        }
    }
}

/// The value of a state for the player to move.
///
/// # Example
/// ```
/// use retrograde::Outcome;
/// assert_eq!(Outcome::Win.flip(), Outcome::Loss);
/// assert_eq!(Outcome::Draw.to_string(), "draw");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Outcome {
    /// Neither side can force an end (endless play).
    Draw = 0,
    /// The player to move can force a win.
    Win = 1,
    /// The player to move loses against best play.
    Loss = 2,
}

impl Outcome {
    /// The same state seen from the other player's side.
    #[must_use]
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }

    /// Lower-case name as used in dumps and JSON: `win`, `loss` or `draw`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Distance to end in plies (half-moves) under optimal play: the winner
/// hurries, the loser delays. Terminal states have distance 0.
///
/// # Example
/// ```
/// use retrograde::Dte;
/// assert_eq!(Dte(3).plies(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dte(pub u32);

impl Dte {
    /// Number of plies.
    #[must_use]
    pub fn plies(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Dte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The answer for a policeman-and-thief map: the start's value told from the
/// cop's side.
///
/// # Example
/// ```
/// use retrograde::{Outcome, Verdict};
/// // The cop moves first and the start is a WIN for the mover.
/// assert_eq!(Verdict::from_mover(Outcome::Win, true), Verdict::CopWins);
/// assert_eq!(Verdict::CopWins.as_str(), "cop-wins");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The cop catches the thief against any defence.
    CopWins,
    /// The thief reaches an exit against any pursuit.
    ThiefEscapes,
    /// The thief evades forever but cannot escape.
    Draw,
}

impl Verdict {
    /// Turns the value of a state for its mover into the cop's verdict;
    /// `cop_to_move` tells who the mover is.
    #[must_use]
    pub fn from_mover(outcome: Outcome, cop_to_move: bool) -> Verdict {
        let cop = if cop_to_move { outcome } else { outcome.flip() };
        match cop {
            Outcome::Win => Verdict::CopWins,
            Outcome::Loss => Verdict::ThiefEscapes,
            Outcome::Draw => Verdict::Draw,
        }
    }

    /// The name used on the command line and in JSON: `cop-wins`,
    /// `thief-escapes` or `draw`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::CopWins => "cop-wins",
            Verdict::ThiefEscapes => "thief-escapes",
            Verdict::Draw => "draw",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Counts of states by value for the player to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// WIN states.
    pub win: u64,
    /// LOSS states.
    pub loss: u64,
    /// DRAW states.
    pub draw: u64,
}

impl std::ops::Add for Counts {
    type Output = Counts;

    fn add(self, other: Counts) -> Counts {
        Counts {
            win: self.win + other.win,
            loss: self.loss + other.loss,
            draw: self.draw + other.draw,
        }
    }
}
