//! Certificates of the cop number: evidence for c(G) = k that a reader
//! checks with nothing but the game's rules (`docs/rules.md`, "Several
//! cops"); the format is in `docs/guide.md` ("Certificates") and
//! `scripts/check-certificate.py` is such a reader.
//!
//! Built from the several-cops kernel's solutions, not by a search of its
//! own: k cops solved with the distance table give the upper bound (from
//! each cops-to-move state the cops reach against any thief play from the
//! placement, a cops' move into a state one ply nearer the capture, and the
//! state's distance in rounds as its rank); k - 1 cops' values give the
//! lower bound (their draws are the thief's safe states: from the
//! placements, every cops' move and one thief answer each, closed). Only
//! the plain graph game (speed 1, both sides may pass, no exits), the game
//! of graph theory that the checker implements.
//!
//! `mod.rs` builds a certificate (both bounds); `text.rs` writes it as text.

mod text;

use std::collections::{HashSet, VecDeque};

use super::number::CopNumber;
use crate::games::arena::Arena;
use crate::games::multiset::{next_multiset, rank_multiset, MAX_COPS};
use crate::games::position::Cops;
use crate::outcome::Outcome;
use crate::solve::multicop::{kcop_memory_for, solve_kcops, KSolution, KcopOptions};
pub use text::{write_header, write_trailer};

/// The first line of a certificate file: the format and its version.
pub const CERTIFICATE_HEADER: &str = "retrograde-certificate 1";

/// Why no certificate could be built.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    /// The arena is not the plain graph game.
    #[error("certificates are for the plain graph game (speed 1, both sides may pass, no exits)")]
    NotPlain,
    /// The answer given has no placement or capture time, or its search
    /// stopped for memory.
    #[error("the answer is incomplete: {0}")]
    Incomplete(String),
    /// The solves do not bear out the answer given (a wrong answer).
    #[error("the solves disagree with the answer: {0}")]
    Disagrees(String),
}

/// One move of the cops' strategy: a cops-to-move state, where each cop
/// goes, and the state's rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopMove {
    /// The cops' vertices, ascending.
    pub cops: Cops,
    /// The thief's vertex (under no cop).
    pub thief: u32,
    /// Where each cop goes, in the order of `cops` (the first `cops.len()`
    /// entries): a neighbour of its vertex, or the vertex itself.
    pub to: [u32; MAX_COPS],
    /// The capture comes within this many rounds (this move included),
    /// whatever the thief does: the state's distance to end in rounds. It
    /// is at least 1, and every thief answer not caught leads to a state
    /// of the strategy with a smaller rank.
    pub rank: u32,
}

impl CopMove {
    /// Where each cop goes, in the order of [`CopMove::cops`].
    #[must_use]
    pub fn destinations(&self) -> &[u32] {
        &self.to[..self.cops.len()]
    }
}

/// The evidence that k cops suffice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upper {
    /// The cops' placement, ascending.
    pub placement: Cops,
    /// The capture time in rounds: the largest rank over thief starts.
    pub capture_rounds: u32,
    /// The strategy: one move for every cops-to-move state reached from
    /// the placement against any thief play (in the order first reached).
    pub moves: Vec<CopMove>,
}

/// A thief-to-move safe state and the thief's answer in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThiefAnswer {
    /// The cops' vertices, ascending.
    pub cops: Cops,
    /// The thief's vertex.
    pub thief: u32,
    /// Where the thief goes: a neighbour or its own vertex, under no cop,
    /// into a cops-to-move safe state.
    pub answer: u32,
}

/// The evidence that `cops` cops do not suffice: a set of thief-safe
/// states, closed (every cops' move from a cops-to-move state leads to a
/// thief-to-move state of the set, which has an answer back into the set),
/// meeting every placement of `cops` cops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lower {
    /// The number of cops shown not to suffice; 0 is trivial (no cop
    /// catches anyone), with both lists empty.
    pub cops: u32,
    /// The cops-to-move safe states, (cops, thief).
    pub cops_to_move: Vec<(Cops, u32)>,
    /// The thief-to-move safe states with the thief's answers.
    pub thief_to_move: Vec<ThiefAnswer>,
}

/// Evidence for one graph's cop number: `cop_number` cops suffice
/// (`upper`) and one fewer do not (`lower`); or, when more than the
/// maximum tried are needed (`cop_number` `None`), that `lower.cops` do
/// not suffice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The cop number, `None` when more than `lower.cops` are needed.
    pub cop_number: Option<u32>,
    /// The winning placement and strategy (with a cop number).
    pub upper: Option<Upper>,
    /// The thief's safe states against one cop fewer (or the maximum tried).
    pub lower: Lower,
}

/// How a certificate record names its graph.
#[derive(Clone, Copy, Debug)]
pub enum GraphText<'a> {
    /// Its graph6 text, as read.
    Graph6(&'a str),
    /// An edge list: vertices `0..vertices` and the edges.
    Edges {
        /// The number of vertices.
        vertices: u32,
        /// The edges, as given.
        edges: &'a [(u32, u32)],
    },
}

/// The bytes the solves behind a certificate of `found` on `arena` need,
/// at most (they run one after the other): the cop number's solve with
/// its distance table, and the values of one cop fewer (of `max_cops`
/// when none up to it wins).
#[must_use]
pub fn certificate_memory(arena: &Arena, found: &CopNumber, max_cops: u32) -> u64 {
    match found.cop_number {
        Some(k) => {
            let upper = kcop_memory_for(arena, k as usize, true);
            let lower = if k > 1 {
                kcop_memory_for(arena, k as usize - 1, false)
            } else {
                0
            };
            upper.max(lower)
        }
        None => kcop_memory_for(arena, max_cops as usize, false),
    }
}

/// Builds the certificate of `found` (the cop number search's answer on
/// `arena`, with its placement and capture time) from fresh solves: the
/// cop number's with distances, one cop fewer's values (or `max_cops`'
/// when none up to it wins). The certificate's placement and capture time
/// are `found`'s.
///
/// # Errors
/// [`CertificateError::NotPlain`] on another game than the plain graph
/// game, [`CertificateError::Incomplete`] when `found` has no placement
/// or capture time or its search stopped for memory, and
/// [`CertificateError::Disagrees`] when the solves do not bear it out.
pub fn certificate(
    arena: &Arena,
    found: &CopNumber,
    max_cops: u32,
) -> Result<Certificate, CertificateError> {
    if !arena.is_plain_graph() {
        return Err(CertificateError::NotPlain);
    }
    if let Some(o) = &found.out_of_memory {
        return Err(CertificateError::Incomplete(format!(
            "{} cops were not tried for memory",
            o.cops
        )));
    }
    let Some(k) = found.cop_number else {
        if !(1..=MAX_COPS as u32).contains(&max_cops) {
            return Err(CertificateError::Incomplete(format!(
                "the maximum tried, {max_cops} cops, is not 1 to {MAX_COPS}"
            )));
        }
        return Ok(Certificate {
            cop_number: None,
            upper: None,
            lower: lower(arena, max_cops as usize)?,
        });
    };
    if !found.timed || found.placement.len() != k as usize {
        return Err(CertificateError::Incomplete(
            "no placement or capture time (--counts answers the number alone)".into(),
        ));
    }
    let lower = if k > 1 {
        lower(arena, k as usize - 1)?
    } else {
        Lower {
            cops: 0,
            cops_to_move: Vec::new(),
            thief_to_move: Vec::new(),
        }
    };
    Ok(Certificate {
        cop_number: Some(k),
        upper: Some(upper(arena, found)?),
        lower,
    })
}

/// Index of (cops, thief) among one side's states: `rank * n + thief`.
fn key(cops: &[u32], thief: u32, n: usize) -> u64 {
    rank_multiset(cops) * n as u64 + u64::from(thief)
}

/// Value and distance (plies) of (cops, thief) with `cops_move` or not.
fn value(sol: &KSolution, cops: &[u32], thief: u32, cops_move: bool) -> (Outcome, Option<u32>) {
    let index = key(cops, thief, sol.cells()) * 2 + u64::from(!cops_move);
    let (outcome, dte) = sol.state_value(index);
    (outcome, dte.map(|d| d.0))
}

/// Calls `f` with every joint cops' move from `cops` (each cop to a cell
/// of its reach, in the order of `cops`) until it returns `true`.
fn joint_moves(arena: &Arena, cops: &[u32], mut f: impl FnMut(&[u32]) -> bool) {
    let reach: Vec<&[u32]> = cops.iter().map(|&c| arena.cop_reach(c)).collect();
    if reach.iter().any(|r| r.is_empty()) {
        return;
    }
    let mut at = [0usize; MAX_COPS];
    let mut to = [0u32; MAX_COPS];
    let k = cops.len();
    loop {
        for i in 0..k {
            to[i] = reach[i][at[i]];
        }
        if f(&to[..k]) {
            return;
        }
        let mut i = 0;
        while i < k {
            at[i] += 1;
            if at[i] < reach[i].len() {
                break;
            }
            at[i] = 0;
            i += 1;
        }
        if i == k {
            return;
        }
    }
}

fn sorted(cells: &[u32]) -> Cops {
    Cops::new(cells).expect("1 to MAX_COPS cops")
}

/// The upper bound: `found`'s placement and, from it, the cops' moves
/// that keep to the distance table (each into a thief-to-move state one
/// ply nearer the capture), over every state the thief can lead them to.
fn upper(arena: &Arena, found: &CopNumber) -> Result<Upper, CertificateError> {
    let k = found.placement.len();
    let n = arena.cells() as usize;
    let options = KcopOptions {
        cops: k,
        dte_table: true,
        ..KcopOptions::default()
    };
    let sol = solve_kcops(arena, &options);
    let placement = sorted(&found.placement);
    let mut longest = 0;
    let mut queue = VecDeque::new();
    let mut seen = HashSet::new();
    for t in (0..n as u32).filter(|t| !placement.contains(t)) {
        match value(&sol, &placement, t, true) {
            (Outcome::Win, Some(d)) => longest = longest.max(d),
            _ => {
                return Err(CertificateError::Disagrees(format!(
                    "placement {:?} does not win against a thief on {t}",
                    placement.as_slice()
                )))
            }
        }
        seen.insert(key(&placement, t, n));
        queue.push_back((placement, t));
    }
    if longest != found.capture_time_plies {
        return Err(CertificateError::Disagrees(format!(
            "placement {:?} captures within {longest} plies, not {}",
            placement.as_slice(),
            found.capture_time_plies
        )));
    }
    let mut moves = Vec::new();
    while let Some((cops, t)) = queue.pop_front() {
        let (outcome, d) = value(&sol, &cops, t, true);
        let d = match (outcome, d) {
            (Outcome::Win, Some(d)) if d % 2 == 1 => d,
            _ => {
                return Err(CertificateError::Disagrees(format!(
                    "state {:?} {t} reached by the strategy is not won",
                    cops.as_slice()
                )))
            }
        };
        let mut chosen = None;
        joint_moves(arena, &cops, |to| {
            let next = sorted(to);
            let hit = value(&sol, &next, t, false) == (Outcome::Loss, Some(d - 1));
            if hit {
                chosen = Some((next, to.to_vec()));
            }
            hit
        });
        let Some((next, to)) = chosen else {
            return Err(CertificateError::Disagrees(format!(
                "no cops' move from {:?} {t} keeps to the distances",
                cops.as_slice()
            )));
        };
        let mut mv = CopMove {
            cops,
            thief: t,
            to: [0; MAX_COPS],
            rank: d.div_ceil(2),
        };
        mv.to[..k].copy_from_slice(&to);
        moves.push(mv);
        if next.contains(&t) {
            continue;
        }
        arena.thief_reach(t, &next, |t2| {
            if !next.contains(&t2) && seen.insert(key(&next, t2, n)) {
                queue.push_back((next, t2));
            }
        });
    }
    Ok(Upper {
        placement,
        capture_rounds: found.capture_time_rounds,
        moves,
    })
}

/// The lower bound for `j` cops: from every placement the first thief
/// start that draws, then every cops' move and the thief's first answer
/// that draws, until closed.
fn lower(arena: &Arena, j: usize) -> Result<Lower, CertificateError> {
    let n = arena.cells() as usize;
    let sol = solve_kcops(
        arena,
        &KcopOptions {
            cops: j,
            ..KcopOptions::default()
        },
    );
    let draws =
        |cops: &[u32], t: u32, cops_move: bool| value(&sol, cops, t, cops_move).0 == Outcome::Draw;
    let mut out = Lower {
        cops: j as u32,
        cops_to_move: Vec::new(),
        thief_to_move: Vec::new(),
    };
    let mut seen_c = HashSet::new();
    let mut seen_t = HashSet::new();
    let mut place = [0u32; MAX_COPS];
    loop {
        let cops = sorted(&place[..j]);
        let Some(t) = (0..n as u32).find(|&t| draws(&cops, t, true)) else {
            return Err(CertificateError::Disagrees(format!(
                "{j} cops placed on {:?} win",
                cops.as_slice()
            )));
        };
        if seen_c.insert(key(&cops, t, n)) {
            out.cops_to_move.push((cops, t));
        }
        if !next_multiset(&mut place[..j], n) {
            break;
        }
    }
    let mut next = 0;
    while next < out.cops_to_move.len() {
        let (cops, t) = out.cops_to_move[next];
        next += 1;
        let mut targets: Vec<Cops> = Vec::new();
        joint_moves(arena, &cops, |to| {
            targets.push(sorted(to));
            false
        });
        targets.sort_unstable();
        targets.dedup();
        for to in targets {
            if !seen_t.insert(key(&to, t, n)) {
                continue;
            }
            if !draws(&to, t, false) {
                return Err(CertificateError::Disagrees(format!(
                    "a cops' move from the draw {:?} {t} wins",
                    cops.as_slice()
                )));
            }
            let mut answer = None;
            arena.thief_reach(t, &to, |a| {
                if !to.contains(&a) && draws(&to, a, true) {
                    answer = Some(answer.map_or(a, |b: u32| b.min(a)));
                }
            });
            let Some(a) = answer else {
                return Err(CertificateError::Disagrees(format!(
                    "the thief has no answer that draws in {:?} {t}",
                    to.as_slice()
                )));
            };
            out.thief_to_move.push(ThiefAnswer {
                cops: to,
                thief: t,
                answer: a,
            });
            if seen_c.insert(key(&to, a, n)) {
                out.cops_to_move.push((to, a));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copnumber::{cop_number, cop_number_of_graph};

    fn cycle(n: u32) -> Vec<(u32, u32)> {
        (0..n).map(|i| (i, (i + 1) % n)).collect()
    }

    fn text(c: &Certificate, graph: GraphText<'_>) -> String {
        let mut out = Vec::new();
        c.write(&mut out, 1, graph).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_five_cycle_needs_two_cops_and_the_record_says_so() {
        let edges = cycle(5);
        let found = cop_number_of_graph(5, &edges, 4, true);
        let arena = Arena::from_edges(5, &edges).unwrap();
        let c = certificate(&arena, &found, 4).unwrap();
        assert_eq!(c.cop_number, Some(2));
        let up = c.upper.as_ref().unwrap();
        assert_eq!(up.placement.as_slice(), &found.placement[..]);
        assert_eq!(up.capture_rounds, found.capture_time_rounds);
        // Every start not under a cop has its move, ranks at most the
        // capture time, moves within reach.
        for t in (0..5).filter(|t| !up.placement.contains(t)) {
            assert!(up
                .moves
                .iter()
                .any(|m| m.cops == up.placement && m.thief == t));
        }
        for m in &up.moves {
            assert!((1..=up.capture_rounds).contains(&m.rank));
            for (c, to) in m.cops.iter().zip(m.destinations()) {
                assert!(arena.cop_reach(*c).contains(to));
            }
        }
        // One cop: a safe start for every placement, never on the cop.
        assert_eq!(c.lower.cops, 1);
        for p in 0..5u32 {
            assert!(c.lower.cops_to_move.iter().any(|(cops, _)| cops[0] == p));
        }
        assert!(c.lower.cops_to_move.iter().all(|(cops, t)| cops[0] != *t));
        for s in &c.lower.thief_to_move {
            assert!(arena.thief_steps(s.thief).contains(&s.answer) || s.answer == s.thief);
            assert_ne!(s.cops[0], s.answer);
        }
        let record = text(&c, GraphText::Graph6("Dhc"));
        assert!(record.starts_with("graph 1 g6 Dhc\nclaim 2 capture 1\nupper 0,2\n"));
        assert!(record.contains("\nlower 1\nc 0 2\n"), "{record}");
        assert!(record.ends_with("end\n"));
    }

    #[test]
    fn one_cop_has_the_trivial_lower_bound_and_edges_are_named() {
        let edges = vec![(0, 1), (1, 2)];
        let found = cop_number_of_graph(3, &edges, 4, true);
        let arena = Arena::from_edges(3, &edges).unwrap();
        let c = certificate(&arena, &found, 4).unwrap();
        assert_eq!(c.lower.cops, 0);
        let record = text(
            &c,
            GraphText::Edges {
                vertices: 3,
                edges: &edges,
            },
        );
        assert_eq!(
            record,
            "graph 1 edges 3 0-1 1-2\nclaim 1 capture 1\nupper 1\nm 1 0 0 1\nm 1 2 2 1\nlower 0\nend\n"
        );
    }

    #[test]
    fn more_than_the_maximum_gives_the_lower_bound_alone() {
        // Petersen with at most 2 cops: no number, 2 cops shown short.
        let edges: Vec<(u32, u32)> = (0..5)
            .flat_map(|i| [(i, (i + 1) % 5), (i, i + 5), (i + 5, (i + 2) % 5 + 5)])
            .collect();
        let arena = Arena::from_edges(10, &edges).unwrap();
        let found = cop_number(&arena, 2);
        assert_eq!(found.cop_number, None);
        let c = certificate(&arena, &found, 2).unwrap();
        assert!(c.upper.is_none());
        assert_eq!(c.lower.cops, 2);
        assert!(text(&c, GraphText::Graph6("x")).contains("claim >2\nlower 2\n"));
    }

    #[test]
    fn wrong_answers_and_other_games_are_refused() {
        let edges = cycle(5);
        let arena = Arena::from_edges(5, &edges).unwrap();
        let mut found = cop_number(&arena, 4);
        found.capture_time_plies += 2;
        assert!(matches!(
            certificate(&arena, &found, 4),
            Err(CertificateError::Disagrees(_))
        ));
        let mut one = cop_number(&arena, 4);
        one.cop_number = Some(1);
        one.placement = vec![0];
        assert!(matches!(
            certificate(&arena, &one, 4),
            Err(CertificateError::Disagrees(_))
        ));
        let fast = arena.clone().with_speeds(2, 1);
        assert!(matches!(
            certificate(&fast, &cop_number(&fast, 4), 4),
            Err(CertificateError::NotPlain)
        ));
        let counted = cop_number_of_graph(5, &edges, 4, false);
        assert!(matches!(
            certificate(&arena, &counted, 4),
            Err(CertificateError::Incomplete(_))
        ));
    }
}
