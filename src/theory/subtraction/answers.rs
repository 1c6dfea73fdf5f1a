//! What can be said of the heaps asked about: from the period, or
//! without it for heaps below the smallest move
//! ([`SubtractionGame::answers`](super::SubtractionGame::answers)).

use super::{Analysis, SubtractionError};

/// The answers of [`SubtractionGame::answers`](super::SubtractionGame::answers) for the heaps it was asked
/// about.
#[derive(Clone, Debug)]
pub enum Answers {
    /// From the proven period: every heap size.
    Periodic(Analysis),
    /// The period is unknown, and every heap asked about lies below the
    /// smallest move: each loses, Grundy 0.
    BelowSmallestMove {
        /// The smallest move.
        smallest: u64,
        /// Why the period is unknown.
        why: SubtractionError,
    },
}

impl Answers {
    /// The period's analysis, if it was found.
    #[must_use]
    pub fn analysis(&self) -> Option<&Analysis> {
        match self {
            Answers::Periodic(analysis) => Some(analysis),
            Answers::BelowSmallestMove { .. } => None,
        }
    }

    /// Grundy value of a heap asked about.
    #[must_use]
    pub fn grundy(&self, heap: u64) -> u32 {
        self.below(heap);
        self.analysis().map_or(0, |a| a.grundy(heap))
    }

    /// Whether the player to move from a heap asked about wins.
    #[must_use]
    pub fn wins(&self, heap: u64) -> bool {
        self.below(heap);
        self.analysis().is_some_and(|a| a.wins(heap))
    }

    /// The smallest winning move from a heap asked about, or `None` when
    /// every move loses (or there is none).
    #[must_use]
    pub fn winning_move(&self, heap: u64) -> Option<u64> {
        self.below(heap);
        self.analysis().and_then(|a| a.winning_move(heap))
    }

    /// Without the period only heaps below the smallest move have answers.
    fn below(&self, heap: u64) {
        if let Answers::BelowSmallestMove { smallest, .. } = self {
            debug_assert!(heap < *smallest, "heap {heap} was not asked about");
        }
    }
}
