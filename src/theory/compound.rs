//! Compound games: several pieces (tokens), each on a state of the same
//! impartial [`Game`], combined by one of three rules (Conway, *On Numbers
//! and Games*, ch. 14; *Winning Ways*, ch. 9), always under the normal rule
//! (a player who cannot move loses).
//!
//! - **Disjunctive** (the sum): move exactly one piece. The player to move
//!   loses iff the xor of the pieces' Grundy values is 0.
//! - **Selective**: move any non-empty set of pieces. The player to move
//!   loses iff every piece sits on a Grundy-0 state.
//! - **Conjunctive**: move every piece; play ends as soon as some piece
//!   cannot move. Decided by *remoteness*: 0 for a terminal state, else
//!   `1 + min` over options of even remoteness if there is one, else `1 + max`
//!   over the (odd) options. That is exactly the engine's distance to end
//!   (the winner hurries, the loser delays), so the engine computes it. The
//!   compound's remoteness is the least of the pieces', and the player to move
//!   wins iff it is odd. [`ConjunctiveGame`] is the product game itself, for
//!   checking the rule (the tests do) or solving few pieces directly.

use crate::game::{Game, Initial};
use crate::outcome::Terminal;
use crate::solve::{solve, Engine, SolveOptions};

/// Moving piece number `piece` (0-based) to state `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompoundMove {
    /// Index of the piece in the list given.
    pub piece: usize,
    /// The state it moves to.
    pub to: u64,
}

/// Why remoteness cannot be computed.
#[derive(Debug, thiserror::Error)]
pub enum CompoundError {
    /// The engine could not allocate its arrays.
    #[error("solving for remoteness failed: {0}")]
    Engine(#[from] crate::error::Error),
    /// Play from this state can go on forever, so it has no finite
    /// remoteness.
    #[error("state {state} can be played forever (a draw): remoteness needs an acyclic game")]
    Draw {
        /// A drawn state.
        state: u64,
    },
    /// A distance to end reached the engine's 16-bit table limit.
    #[error("state {state} is 65535 or more moves from the end, beyond the distance table")]
    TooRemote {
        /// The state.
        state: u64,
    },
}

/// Disjunctive compound: the xor of the pieces' Grundy values and, when it
/// is not zero, a winning move (the first piece, in order, that can take the
/// xor to zero).
///
/// `grundy` holds the value of every state of `game`.
///
/// # Example
/// ```
/// use retrograde::theory::compound::{disjunctive, CompoundMove};
/// use retrograde::theory::grundy::grundy_of_acyclic;
/// use retrograde::theory::piece::PieceGame;
/// let game = PieceGame::new(1, 6, &[(0, -1), (0, -2)]).unwrap(); // values 0 1 2 0 1 2
/// let grundy = grundy_of_acyclic(&game).unwrap();
/// let (value, winning) = disjunctive(&game, &grundy, &[1, 5]);
/// assert_eq!(value, 1 ^ 2);
/// assert_eq!(winning, Some(CompoundMove { piece: 1, to: 4 })); // 1 ^ 1 = 0
/// ```
#[must_use]
pub fn disjunctive(
    game: &impl Game,
    grundy: &[u32],
    pieces: &[u64],
) -> (u32, Option<CompoundMove>) {
    let value = pieces.iter().fold(0, |x, &p| x ^ grundy[p as usize]);
    if value == 0 {
        return (0, None);
    }
    for (piece, &p) in pieces.iter().enumerate() {
        let target = grundy[p as usize] ^ value;
        if target < grundy[p as usize] {
            let mut to = None;
            game.for_each_successor(p, |t| {
                if to.is_none() && grundy[t as usize] == target {
                    to = Some(t);
                }
            });
            let to = to.expect("a state has an option of every smaller Grundy value");
            return (value, Some(CompoundMove { piece, to }));
        }
    }
    unreachable!("a non-zero xor has a piece whose value has its top bit")
}

/// Selective compound: `None` when the player to move loses (every piece on
/// a Grundy-0 state), else a winning move: every piece on a non-zero state
/// moves to a Grundy-0 state.
///
/// # Example
/// ```
/// use retrograde::theory::compound::{selective, CompoundMove};
/// use retrograde::theory::grundy::grundy_of_acyclic;
/// use retrograde::theory::piece::PieceGame;
/// let game = PieceGame::new(1, 6, &[(0, -1), (0, -2)]).unwrap(); // values 0 1 2 0 1 2
/// let grundy = grundy_of_acyclic(&game).unwrap();
/// assert_eq!(selective(&game, &grundy, &[0, 3]), None);
/// assert_eq!(
///     selective(&game, &grundy, &[1, 3, 5]),
///     Some(vec![CompoundMove { piece: 0, to: 0 }, CompoundMove { piece: 2, to: 3 }])
/// );
/// ```
#[must_use]
pub fn selective(game: &impl Game, grundy: &[u32], pieces: &[u64]) -> Option<Vec<CompoundMove>> {
    let moves: Vec<CompoundMove> = pieces
        .iter()
        .enumerate()
        .filter(|&(_, &p)| grundy[p as usize] != 0)
        .map(|(piece, &p)| {
            let mut to = None;
            game.for_each_successor(p, |t| {
                if to.is_none() && grundy[t as usize] == 0 {
                    to = Some(t);
                }
            });
            CompoundMove {
                piece,
                to: to.expect("a non-zero state has a Grundy-0 option"),
            }
        })
        .collect();
    (!moves.is_empty()).then_some(moves)
}

/// Remoteness of every state of `game`: its distance to end computed by the
/// retrograde engine (winner hurries, loser delays), odd exactly for wins.
///
/// # Errors
/// [`CompoundError::Draw`] for a state that can be played forever,
/// [`CompoundError::TooRemote`] for a distance beyond the 16-bit table, and
/// [`CompoundError::Engine`] when the engine cannot allocate.
///
/// # Example
/// ```
/// use retrograde::theory::compound::remoteness;
/// use retrograde::theory::piece::PieceGame;
/// use retrograde::Engine;
/// let game = PieceGame::new(1, 6, &[(0, -1), (0, -2)]).unwrap();
/// // From column 5: take 2 (to 3, a loss at remoteness 2), so 3.
/// assert_eq!(remoteness(&game, Engine::Sequential).unwrap(), vec![0, 1, 1, 2, 3, 3]);
/// ```
pub fn remoteness(game: &impl Game, engine: Engine) -> Result<Vec<u32>, CompoundError> {
    let solution = solve(game, &SolveOptions::new(engine).with_dte_table(true))?;
    (0..game.state_count())
        .map(|s| match solution.dte(s) {
            None => Err(CompoundError::Draw { state: s }),
            Some(d) if d.plies() >= u32::from(u16::MAX) => {
                Err(CompoundError::TooRemote { state: s })
            }
            Some(d) => Ok(d.plies()),
        })
        .collect()
}

/// The verdict on a conjunctive compound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conjunctive {
    /// The compound's remoteness: the least of the pieces'.
    pub remoteness: u32,
    /// The optimal move (one step for every piece; empty when some piece
    /// cannot move): each piece goes to an option of remoteness one less, so
    /// the compound's remoteness drops by exactly one. For the winner this
    /// wins as fast as possible; for the loser it holds out longest.
    pub best_move: Vec<CompoundMove>,
}

impl Conjunctive {
    /// Whether the player to move wins (the remoteness is odd).
    #[must_use]
    pub fn mover_wins(&self) -> bool {
        self.remoteness % 2 == 1
    }
}

/// Conjunctive compound of `pieces`, from the remoteness of every state.
///
/// # Panics
/// If `pieces` is empty.
///
/// # Example
/// ```
/// use retrograde::theory::compound::{conjunctive, remoteness, CompoundMove};
/// use retrograde::theory::piece::PieceGame;
/// use retrograde::Engine;
/// let game = PieceGame::new(1, 6, &[(0, -1), (0, -2)]).unwrap();
/// let r = remoteness(&game, Engine::Sequential).unwrap(); // 0 1 1 2 3 3
/// let verdict = conjunctive(&game, &r, &[5, 3]);
/// assert_eq!(verdict.remoteness, 2);
/// assert!(!verdict.mover_wins());
/// assert_eq!(verdict.best_move, vec![CompoundMove { piece: 0, to: 3 }, CompoundMove { piece: 1, to: 2 }]);
/// ```
#[must_use]
pub fn conjunctive(game: &impl Game, remoteness: &[u32], pieces: &[u64]) -> Conjunctive {
    let least = pieces
        .iter()
        .map(|&p| remoteness[p as usize])
        .min()
        .expect("a compound needs at least one piece");
    let best_move = if least == 0 {
        Vec::new()
    } else {
        pieces
            .iter()
            .enumerate()
            .map(|(piece, &p)| {
                let want = remoteness[p as usize] - 1;
                let mut to = None;
                game.for_each_successor(p, |t| {
                    if to.is_none() && remoteness[t as usize] == want {
                        to = Some(t);
                    }
                });
                CompoundMove {
                    piece,
                    to: to.expect("remoteness r > 0 has an option of remoteness r - 1"),
                }
            })
            .collect()
    };
    Conjunctive {
        remoteness: least,
        best_move,
    }
}

/// Most pieces a [`ConjunctiveGame`] supports.
pub const MAX_PRODUCT_PIECES: usize = 16;

/// The conjunctive compound of `pieces` tokens of `game` as a game of its
/// own: the state is the tuple of the pieces' states (mixed radix, piece 0
/// least significant); a move moves every piece; a tuple in which some piece
/// is terminal is a loss for the player to move. Exponential in the number of
/// pieces: meant for checking [`conjunctive`] and for few pieces.
///
/// The component game must follow the normal rule (terminal states lose).
///
/// # Example
/// ```
/// use retrograde::theory::compound::ConjunctiveGame;
/// use retrograde::theory::piece::PieceGame;
/// use retrograde::{solve, Engine, Outcome, SolveOptions};
/// let game = PieceGame::new(1, 6, &[(0, -1), (0, -2)]).unwrap();
/// let product = ConjunctiveGame::new(&game, 2).unwrap();
/// let start = product.encode(&[5, 3]);
/// let solution = solve(&product, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// assert_eq!(solution.outcome(start), Outcome::Loss);
/// assert_eq!(solution.dte(start).unwrap().plies(), 2); // min(3, 2)
/// ```
pub struct ConjunctiveGame<'g, G> {
    game: &'g G,
    pieces: usize,
    base: u64,
    states: u64,
    max_moves: u32,
}

impl<'g, G: Game> ConjunctiveGame<'g, G> {
    /// The product of `pieces` copies of `game`; `None` when there are no
    /// pieces, more than [`MAX_PRODUCT_PIECES`], or more than 2^63 states.
    #[must_use]
    pub fn new(game: &'g G, pieces: usize) -> Option<ConjunctiveGame<'g, G>> {
        if pieces == 0 || pieces > MAX_PRODUCT_PIECES {
            return None;
        }
        let base = game.state_count();
        let states = (1..pieces).try_fold(base, |n, _| n.checked_mul(base))?;
        if states > 1 << 63 {
            return None;
        }
        let max_moves = (1..pieces).fold(u64::from(game.max_moves()), |m, _| {
            m.saturating_mul(u64::from(game.max_moves()))
        });
        Some(ConjunctiveGame {
            game,
            pieces,
            base,
            states,
            max_moves: u32::try_from(max_moves).unwrap_or(u32::MAX),
        })
    }

    /// The product state of these piece states.
    ///
    /// # Panics
    /// If the number of states differs from the number of pieces.
    #[must_use]
    pub fn encode(&self, states: &[u64]) -> u64 {
        assert_eq!(states.len(), self.pieces);
        states.iter().rev().fold(0, |x, &s| x * self.base + s)
    }

    /// The piece states of product state `s`.
    #[must_use]
    pub fn decode(&self, s: u64) -> Vec<u64> {
        let mut digits = [0; MAX_PRODUCT_PIECES];
        self.digits(s, &mut digits);
        digits[..self.pieces].to_vec()
    }

    fn digits(&self, mut s: u64, out: &mut [u64; MAX_PRODUCT_PIECES]) {
        for d in out.iter_mut().take(self.pieces) {
            *d = s % self.base;
            s /= self.base;
        }
    }

    /// Calls `f` with every tuple whose piece `i..` states are neighbours
    /// (successors when `forward`) of `digits[i..]`, the lower pieces fixed
    /// in `acc`.
    fn product(
        &self,
        digits: &[u64],
        i: usize,
        acc: u64,
        place: u64,
        forward: bool,
        f: &mut dyn FnMut(u64),
    ) {
        if i == digits.len() {
            f(acc);
            return;
        }
        let mut next = |t: u64| {
            self.product(
                digits,
                i + 1,
                acc + t * place,
                place * self.base,
                forward,
                &mut *f,
            )
        };
        if forward {
            self.game.for_each_successor(digits[i], &mut next);
        } else {
            self.game.for_each_predecessor(digits[i], &mut next);
        }
    }
}

impl<G: Game> Game for ConjunctiveGame<'_, G> {
    fn state_count(&self) -> u64 {
        self.states
    }

    fn max_moves(&self) -> u32 {
        self.max_moves
    }

    fn initial(&self, s: u64) -> Initial {
        let mut digits = [0; MAX_PRODUCT_PIECES];
        self.digits(s, &mut digits);
        let mut moves: u64 = 1;
        for &d in &digits[..self.pieces] {
            match self.game.initial(d) {
                Initial::Decided(_) => return Initial::Decided(Terminal::Loss),
                Initial::Moves(k) => moves = moves.saturating_mul(u64::from(k)),
            }
        }
        Initial::Moves(u32::try_from(moves).unwrap_or(u32::MAX))
    }

    fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
        let mut digits = [0; MAX_PRODUCT_PIECES];
        self.digits(s, &mut digits);
        if digits[..self.pieces]
            .iter()
            .any(|&d| matches!(self.game.initial(d), Initial::Decided(_)))
        {
            return;
        }
        self.product(&digits[..self.pieces], 0, 0, 1, true, &mut f);
    }

    fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
        let mut digits = [0; MAX_PRODUCT_PIECES];
        self.digits(s, &mut digits);
        // Every tuple of predecessors is live: each piece has a move.
        self.product(&digits[..self.pieces], 0, 0, 1, false, &mut f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::grundy::grundy_of_acyclic;
    use crate::theory::piece::PieceGame;

    #[test]
    fn product_predecessors_invert_successors() {
        let game = PieceGame::new(3, 3, &[(-1, 0), (0, -1), (-1, 2)]).unwrap();
        let product = ConjunctiveGame::new(&game, 2).unwrap();
        for s in 0..product.state_count() {
            assert_eq!(product.decode(s).len(), 2);
            assert_eq!(product.encode(&product.decode(s)), s);
        }
        assert_eq!(crate::check_game_contract(&product), Ok(()));
    }

    #[test]
    fn selective_and_disjunctive_on_a_line() {
        // Take one or two: values 0 1 2 0 1 2 0.
        let game = PieceGame::new(1, 7, &[(0, -1), (0, -2)]).unwrap();
        let grundy = grundy_of_acyclic(&game).unwrap();
        assert_eq!(grundy, vec![0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(disjunctive(&game, &grundy, &[3, 6]), (0, None));
        assert!(selective(&game, &grundy, &[3, 6]).is_none());
    }
}
