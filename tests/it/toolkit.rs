//! The game-theory toolkit (`retrograde::theory` and the `subtraction`,
//! `nim`, `grundy` and `empty-cell` commands) against brute force on random
//! small instances. Every expected value here comes from a naive search
//! written in this file, never from the code under test.

use std::collections::HashMap;
use std::time::Instant;

use retrograde::theory::compound::{
    conjunctive, disjunctive, remoteness, selective, CompoundMove, ConjunctiveGame,
};
use retrograde::theory::empty_cell::{parse_contest, EmptyCellGame};
use retrograde::theory::grundy::{grundy_of_acyclic, GrundyError};
use retrograde::theory::nim::{nim_sum, winning_moves, NimMove};
use retrograde::theory::piece::PieceGame;
use retrograde::theory::subtraction::SubtractionGame;
use retrograde::{solve, Engine, Game, Outcome, SolveOptions};

// ------------------------------------------------------------------ helpers

/// The shared SplitMix64 generator with the u64 / i64 draws these tests
/// use.
struct Rng(crate::support::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(crate::support::Rng::new(seed))
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0.next() % n
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// Runs the built binary; returns (exit status, stdout, stderr).
fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let output = crate::support::run(args, stdin.map(str::as_bytes));
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (status, out, err) = run(args, None);
    assert_eq!(status, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

// -------------------------------------------------------------- subtraction

/// Win/loss of heaps 0..=n by the definition (no Grundy values).
fn subtraction_wins(moves: &[u64], n: usize) -> Vec<bool> {
    let mut wins = vec![false; n + 1];
    for h in 0..=n {
        wins[h] = moves
            .iter()
            .any(|&m| m as usize <= h && !wins[h - m as usize]);
    }
    wins
}

/// Grundy values of heaps 0..=n by the definition.
fn subtraction_grundy(moves: &[u64], n: usize) -> Vec<u32> {
    let mut g: Vec<u32> = Vec::with_capacity(n + 1);
    for h in 0..=n {
        let options: Vec<u32> = moves
            .iter()
            .filter(|&&m| m as usize <= h)
            .map(|&m| g[h - m as usize])
            .collect();
        g.push((0..).find(|v| !options.contains(v)).unwrap());
    }
    g
}

/// The least (preperiod, period) of a sequence known to be periodic well
/// before its middle: the smallest period of the second half, then the
/// earliest start from which that period holds. Checked on the whole prefix.
fn least_periodicity<T: PartialEq>(seq: &[T]) -> (u64, u64) {
    let half = seq.len() / 2;
    let period = (1..half / 2)
        .find(|&p| (half..seq.len() - p).all(|n| seq[n] == seq[n + p]))
        .expect("periodic in the second half");
    let mut pre = half;
    while pre > 0 && seq[pre - 1] == seq[pre - 1 + period] {
        pre -= 1;
    }
    assert!(
        pre + period < seq.len() / 4,
        "the prefix is too short to be sure"
    );
    (pre as u64, period as u64)
}

fn random_set(rng: &mut Rng) -> Vec<u64> {
    let size = 1 + rng.below(4);
    (0..size).map(|_| 1 + rng.below(12)).collect()
}

#[test]
fn subtraction_periods_match_direct_computation_to_100000() {
    const N: usize = 100_000;
    let mut rng = Rng::new(1);
    for _ in 0..60 {
        let moves = random_set(&mut rng);
        let analysis = SubtractionGame::new(&moves)
            .unwrap()
            .analyse(1 << 24)
            .unwrap();
        let wins = subtraction_wins(&moves, N);
        let grundy = subtraction_grundy(&moves, N);
        for h in 0..=N {
            assert_eq!(analysis.wins(h as u64), wins[h], "{moves:?} heap {h}");
            assert_eq!(analysis.grundy(h as u64), grundy[h], "{moves:?} heap {h}");
        }
        let o = analysis.outcome_periodicity();
        assert_eq!(
            (o.preperiod, o.period),
            least_periodicity(&wins),
            "{moves:?}"
        );
        let g = analysis.grundy_periodicity();
        assert_eq!(
            (g.preperiod, g.period),
            least_periodicity(&grundy),
            "{moves:?}"
        );
        // Huge heaps: the same residue of the independently found period.
        let (pre, per) = least_periodicity(&wins);
        for h in [u64::MAX, u64::MAX - 7, 1 << 40, 123_456_789_012_345] {
            let reduced = (pre + (h - pre) % per) as usize;
            assert_eq!(analysis.wins(h), wins[reduced], "{moves:?} heap {h}");
            match analysis.winning_move(h) {
                Some(m) => {
                    assert!(moves.contains(&m));
                    let left = h - m;
                    assert!(!wins[(pre + (left - pre) % per) as usize]);
                }
                None => assert!(!wins[reduced]),
            }
        }
    }
}

#[test]
fn subtraction_cli_lists_heaps_and_period() {
    let mut rng = Rng::new(2);
    for _ in 0..8 {
        let moves = random_set(&mut rng);
        let list: Vec<String> = moves.iter().map(u64::to_string).collect();
        let list = list.join(",");
        let n = 300;
        let wins = subtraction_wins(&moves, 40 * n);
        let grundy = subtraction_grundy(&moves, n);
        let report = json(&[
            "subtraction",
            "--moves",
            &list,
            "--upto",
            &n.to_string(),
            "--json",
        ]);
        let losing: Vec<u64> = (0..=n as u64).filter(|&h| !wins[h as usize]).collect();
        assert_eq!(report["losing"], serde_json::json!(losing), "{list}");
        assert_eq!(report["grundy"], serde_json::json!(grundy), "{list}");
        let (pre, per) = least_periodicity(&wins);
        assert_eq!(report["preperiod"], pre, "{list}");
        assert_eq!(report["period"], per, "{list}");
        // Text: one line per heap, `heap<TAB>win|loss<TAB>grundy`.
        let (status, out, _) = run(
            &["subtraction", "--moves", &list, "--upto", &n.to_string()],
            None,
        );
        assert_eq!(status, 0);
        for h in 0..=n {
            let expected = format!(
                "{h}\t{}\t{}",
                if wins[h] { "win" } else { "loss" },
                grundy[h]
            );
            assert!(
                out.lines().any(|l| l == expected),
                "{list}: no line `{expected}`"
            );
        }
        assert!(out.contains(&format!("win/loss pattern: preperiod {pre}, period {per}")));
        // One huge heap.
        let h = u64::MAX - rng.below(1000);
        let report = json(&[
            "subtraction",
            "--moves",
            &list,
            "--heap",
            &h.to_string(),
            "--json",
        ]);
        let reduced = (pre + (h - pre) % per) as usize;
        assert_eq!(report["heap"], h);
        assert_eq!(
            report["winner"],
            if wins[reduced] { "first" } else { "second" }
        );
        match report["move"].as_u64() {
            Some(m) => {
                let left = h - m;
                assert!(moves.contains(&m) && !wins[(pre + (left - pre) % per) as usize]);
            }
            None => {
                assert!(report["move"].is_null());
                assert!(!wins[reduced]);
            }
        }
    }
}

#[test]
fn subtraction_cli_rejects_bad_sets() {
    let (status, _, err) = run(&["subtraction", "--moves", "0,2", "--upto", "5"], None);
    assert_eq!(status, 2);
    assert!(err.contains("0 is not a valid move"), "{err}");
    let (status, _, err) = run(
        &[
            "subtraction",
            "--moves",
            "3,1000",
            "--upto",
            "5",
            "--search-limit",
            "100",
        ],
        None,
    );
    assert_eq!(status, 2);
    assert!(err.contains("no period found"), "{err}");
    let (status, _, _) = run(&["subtraction", "--moves", "1,2"], None);
    assert_eq!(status, 2);
}

/// Runs the binary under an address-space limit of `kib` KiB (`ulimit
/// -v`, as shared machines set); returns (exit status or -signal, stdout,
/// stderr).
fn run_capped(kib: u64, args: &[&str]) -> (i32, String, String) {
    use std::os::unix::process::ExitStatusExt;
    let mut script = format!("ulimit -v {kib}; exec \"$0\"");
    for k in 0..args.len() {
        script.push_str(&format!(" \"${}\"", k + 1));
    }
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_retrograde"))
        .args(args)
        .output()
        .unwrap();
    let status = output
        .status
        .code()
        .unwrap_or_else(|| -output.status.signal().unwrap_or(0));
    (
        status,
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// A period search that cannot fit in memory is refused before it
/// allocates (it aborted on a failed allocation, or grew to gigabytes),
/// naming what it needs and what there is.
#[test]
fn subtraction_search_past_the_memory_is_refused_up_front() {
    for (moves, limit) in [("100000000", "1e9"), ("1000000000", "1e10")] {
        let args = [
            "subtraction",
            "--moves",
            moves,
            "--heap",
            moves,
            "--search-limit",
            limit,
        ];
        let (status, out, err) = run_capped(1 << 20, &args);
        assert_eq!(status, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("the period search among the first")
                && err.contains("bytes")
                && err.contains("available")
                && err.contains("--search-limit"),
            "{err}"
        );
    }
}

/// Heaps below the smallest move have no move: they lose with Grundy value
/// 0 and are answered even when the period cannot be searched for.
#[test]
fn subtraction_heaps_below_the_smallest_move_need_no_period() {
    let (status, out, err) = run(
        &["subtraction", "--moves", "1000000000", "--upto", "10"],
        None,
    );
    assert_eq!(status, 0, "{err}");
    for h in 0..=10 {
        assert!(out.lines().any(|l| l == format!("{h}\tloss\t0")), "{out}");
    }
    assert!(
        out.contains("losing heaps up to 10: 0 1 2 3 4 5 6 7 8 9 10"),
        "{out}"
    );
    assert!(out.contains("period: unknown (no period found"), "{out}");
    let report = json(&[
        "subtraction",
        "--moves",
        "1000000000",
        "--heap",
        "5",
        "--json",
    ]);
    assert_eq!(report["winner"], "second");
    assert_eq!(report["heap_grundy"], 0);
    assert!(
        report["move"].is_null() && report["period"].is_null(),
        "{report}"
    );
    assert!(report["no_period"]
        .as_str()
        .unwrap()
        .contains("no period found"));
    // Under a memory cap too, where the search does not fit.
    let (status, out, err) = run_capped(
        1 << 20,
        &[
            "subtraction",
            "--moves",
            "100000000",
            "--heap",
            "5",
            "--search-limit",
            "1e9",
        ],
    );
    assert_eq!(status, 0, "{err}");
    assert!(
        out.contains("heap 5: the second player wins, grundy 0"),
        "{out}"
    );
    // A heap with a move still needs the period.
    let (status, _, err) = run(
        &[
            "subtraction",
            "--moves",
            "1000000000",
            "--heap",
            "1000000000",
        ],
        None,
    );
    assert_eq!(status, 2);
    assert!(err.contains("no period found"), "{err}");
    let (status, _, err) = run(
        &[
            "subtraction",
            "--moves",
            "1000000000",
            "--upto",
            "1000000000",
        ],
        None,
    );
    assert_eq!(status, 2);
    assert!(err.contains("no period found"), "{err}");
}

// ---------------------------------------------------------------------- nim

/// Exhaustive Nim search: does the player to move win?
fn nim_wins(heaps: &[u64], memo: &mut HashMap<Vec<u64>, bool>) -> bool {
    let mut key = heaps.to_vec();
    key.sort_unstable();
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let mut win = false;
    for i in 0..heaps.len() {
        for take in 1..=heaps[i] {
            let mut next = heaps.to_vec();
            next[i] -= take;
            if !nim_wins(&next, memo) {
                win = true;
            }
        }
    }
    memo.insert(key, win);
    win
}

#[test]
fn nim_matches_exhaustive_search() {
    let mut rng = Rng::new(3);
    let mut memo = HashMap::new();
    for _ in 0..300 {
        let count = 1 + rng.below(4) as usize;
        let heaps: Vec<u64> = (0..count).map(|_| rng.below(8)).collect();
        let win = nim_wins(&heaps, &mut memo);
        assert_eq!(nim_sum(&heaps) != 0, win, "{heaps:?}");
        let mut expected = Vec::new();
        for i in 0..heaps.len() {
            for take in 1..=heaps[i] {
                let mut next = heaps.clone();
                next[i] -= take;
                if !nim_wins(&next, &mut memo) {
                    expected.push(NimMove { heap: i, take });
                }
            }
        }
        assert_eq!(winning_moves(&heaps), expected, "{heaps:?}");
    }
}

#[test]
fn nim_cli() {
    let report = json(&["nim", "3", "4", "5", "--json"]);
    assert_eq!(
        report,
        serde_json::json!({"schema": 1, "heaps": [3, 4, 5], "nim_sum": 2, "winner": "first",
                           "moves": [{"heap": 0, "take": 2, "leaves": 1}]})
    );
    let report = json(&["nim", "1", "2", "3", "--json"]);
    assert_eq!(report["winner"], "second");
    assert_eq!(report["moves"], serde_json::json!([]));
    let big = u64::MAX.to_string();
    let report = json(&["nim", &big, "1", "--json"]);
    assert_eq!(report["nim_sum"], u64::MAX - 1);
    assert_eq!(
        report["moves"],
        serde_json::json!([{"heap": 0, "take": u64::MAX - 1, "leaves": 1}])
    );
    let (status, out, _) = run(&["nim", "3", "4", "5"], None);
    assert_eq!(status, 0);
    assert!(
        out.contains("nim-sum: 2") && out.contains("heap 0: take 2 (3 -> 1)"),
        "{out}"
    );
    assert_eq!(run(&["nim", "3", "x"], None).0, 2);
}

// ------------------------------------------------------------------- grundy

/// A piece's moves on a board, by the definition.
fn board_moves(
    rows: usize,
    cols: usize,
    offsets: &[(i64, i64)],
    (r, c): (usize, usize),
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for &(dr, dc) in offsets {
        let (nr, nc) = (r as i64 + dr, c as i64 + dc);
        if nr >= 0
            && nc >= 0
            && (nr as usize) < rows
            && (nc as usize) < cols
            && !out.contains(&(nr as usize, nc as usize))
        {
            out.push((nr as usize, nc as usize));
        }
    }
    out
}

/// Naive recursive mex with memo; `Err(())` when the recursion meets a cell
/// already on its own stack (a cycle).
fn naive_grundy(rows: usize, cols: usize, offsets: &[(i64, i64)]) -> Result<Vec<Vec<u32>>, ()> {
    fn go(
        at: (usize, usize),
        rows: usize,
        cols: usize,
        offsets: &[(i64, i64)],
        memo: &mut Vec<Vec<Option<u32>>>,
        on_stack: &mut Vec<Vec<bool>>,
    ) -> Result<u32, ()> {
        if let Some(v) = memo[at.0][at.1] {
            return Ok(v);
        }
        if on_stack[at.0][at.1] {
            return Err(());
        }
        on_stack[at.0][at.1] = true;
        let mut options = Vec::new();
        for next in board_moves(rows, cols, offsets, at) {
            options.push(go(next, rows, cols, offsets, memo, on_stack)?);
        }
        on_stack[at.0][at.1] = false;
        let v = (0..).find(|v| !options.contains(v)).unwrap();
        memo[at.0][at.1] = Some(v);
        Ok(v)
    }
    let mut memo = vec![vec![None; cols]; rows];
    let mut on_stack = vec![vec![false; cols]; rows];
    for r in 0..rows {
        for c in 0..cols {
            go((r, c), rows, cols, offsets, &mut memo, &mut on_stack)?;
        }
    }
    Ok(memo
        .into_iter()
        .map(|row| row.into_iter().map(Option::unwrap).collect())
        .collect())
}

fn random_offsets(rng: &mut Rng, reach: i64) -> Vec<(i64, i64)> {
    let count = 1 + rng.below(5);
    (0..count)
        .map(|_| (rng.range(-reach, reach), rng.range(-reach, reach)))
        .collect()
}

fn offsets_arg(offsets: &[(i64, i64)]) -> String {
    offsets
        .iter()
        .map(|(r, c)| format!("{r},{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether cell `s` reaches itself by moves.
fn on_cycle(game: &PieceGame, s: u64) -> bool {
    let mut seen = vec![false; game.state_count() as usize];
    let mut stack = vec![s];
    while let Some(u) = stack.pop() {
        let mut found = false;
        game.for_each_successor(u, |t| {
            found |= t == s;
            if !std::mem::replace(&mut seen[t as usize], true) {
                stack.push(t);
            }
        });
        if found {
            return true;
        }
    }
    false
}

#[test]
fn grundy_boards_match_naive_recursion() {
    let mut rng = Rng::new(4);
    let (mut acyclic, mut cyclic) = (0, 0);
    for _ in 0..600 {
        let rows = 1 + rng.below(7) as usize;
        let cols = 1 + rng.below(7) as usize;
        let offsets = random_offsets(&mut rng, 3);
        let game = PieceGame::new(rows, cols, &offsets).unwrap();
        match (naive_grundy(rows, cols, &offsets), grundy_of_acyclic(&game)) {
            (Ok(expected), Ok(values)) => {
                acyclic += 1;
                assert_eq!(game.grundy_values().unwrap(), values, "{offsets:?}");
                for r in 0..rows {
                    for c in 0..cols {
                        assert_eq!(
                            values[game.cell(r, c) as usize],
                            expected[r][c],
                            "{offsets:?}"
                        );
                    }
                }
            }
            (Err(()), Err(GrundyError::Cycle { state })) => {
                cyclic += 1;
                let Err(GrundyError::Cycle { state: other }) = game.grundy_values() else {
                    panic!("{offsets:?}: cycle not reported");
                };
                assert!(
                    on_cycle(&game, other),
                    "{offsets:?}: {other} is not on a cycle"
                );
                assert!(
                    on_cycle(&game, state),
                    "{offsets:?}: {state} is not on a cycle"
                );
            }
            (expected, got) => panic!("{rows}x{cols} {offsets:?}: naive {expected:?}, got {got:?}"),
        }
    }
    assert!(
        acyclic > 100 && cyclic > 100,
        "{acyclic} acyclic, {cyclic} cyclic"
    );
}

#[test]
fn grundy_cli_table_and_the_issue_example() {
    let (status, out, err) = run(
        &[
            "grundy",
            "--rows",
            "8",
            "--cols",
            "8",
            "--moves",
            "-2,1 -2,-1 1,-2 -1,-2",
        ],
        None,
    );
    assert_eq!(status, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0], "0 0 1 1 0 0 1 1");
    let expected = naive_grundy(8, 8, &[(-2, 1), (-2, -1), (1, -2), (-1, -2)]).unwrap();
    for (line, row) in lines.iter().zip(&expected) {
        let row: Vec<String> = row.iter().map(u32::to_string).collect();
        assert_eq!(*line, row.join(" "));
    }
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let (rows, cols) = (1 + rng.below(9) as usize, 1 + rng.below(9) as usize);
        let offsets = random_offsets(&mut rng, 2);
        let args = offsets_arg(&offsets);
        let (r, c) = (rows.to_string(), cols.to_string());
        let (status, out, err) = run(
            &["grundy", "--rows", &r, "--cols", &c, "--moves", &args],
            None,
        );
        match naive_grundy(rows, cols, &offsets) {
            Ok(expected) => {
                assert_eq!(status, 0, "{err}");
                let text: String = expected
                    .iter()
                    .map(|row| row.iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n")
                    .collect();
                assert_eq!(out, text, "{rows}x{cols} {args}");
            }
            Err(()) => {
                assert_eq!(status, 2, "{rows}x{cols} {args}");
                assert!(err.contains("cycle") && err.contains("Grundy"), "{err}");
            }
        }
    }
}

#[test]
fn grundy_cli_4096_board_is_a_grundy_function() {
    // The Grundy function of an acyclic game is the only table in which
    // every cell holds the mex of its options, so checking that local rule
    // on every cell verifies the whole printed table.
    let offsets = [(-2, 1), (-2, -1), (1, -2), (-1, -2)];
    let started = Instant::now();
    let (status, out, err) = run(
        &[
            "grundy",
            "--rows",
            "4096",
            "--cols",
            "4096",
            "--moves",
            &offsets_arg(&offsets),
        ],
        None,
    );
    let elapsed = started.elapsed();
    assert_eq!(status, 0, "{err}");
    let n = 4096;
    let table: Vec<Vec<u32>> = out
        .lines()
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(table.len(), n);
    assert!(table.iter().all(|row| row.len() == n));
    let mut options = Vec::new();
    for r in 0..n {
        for c in 0..n {
            options.clear();
            options.extend(
                board_moves(n, n, &offsets, (r, c))
                    .iter()
                    .map(|&(a, b)| table[a][b]),
            );
            let mex = (0..).find(|v| !options.contains(v)).unwrap();
            assert_eq!(table[r][c], mex, "cell {r},{c}");
        }
    }
    eprintln!("grundy 4096 x 4096 with the table printed: {elapsed:?}");
    assert!(elapsed.as_secs_f64() < 20.0, "took {elapsed:?}");
}

#[test]
fn grundy_cli_errors() {
    let base = ["grundy", "--rows", "3", "--cols", "3"];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        run(&args, None)
    };
    let (status, _, err) = with(&["--moves", "0,1 0,-1"]);
    assert_eq!(status, 2);
    assert!(err.contains("cycle through cell"), "{err}");
    assert_eq!(with(&["--moves", "1;2"]).0, 2);
    let (status, _, err) = with(&["--moves", "-1,0", "--pieces", "3,0"]);
    assert_eq!(status, 2);
    assert!(err.contains("off the 3 x 3 board"), "{err}");
    let (status, _, _) = run(
        &[
            "grundy", "--rows", "100000", "--cols", "100000", "--moves", "-1,0",
        ],
        None,
    );
    assert_eq!(status, 2);
}

// ---------------------------------------------------------------- compounds

/// A random board whose offsets are acyclic, with its naive Grundy table.
fn random_acyclic_board(rng: &mut Rng, max_side: u64) -> (PieceGame, Vec<Vec<u32>>) {
    loop {
        let rows = 1 + rng.below(max_side) as usize;
        let cols = 1 + rng.below(max_side) as usize;
        let offsets = random_offsets(rng, 2);
        if let Ok(table) = naive_grundy(rows, cols, &offsets) {
            return (PieceGame::new(rows, cols, &offsets).unwrap(), table);
        }
    }
}

fn succ(game: &PieceGame, s: u64) -> Vec<u64> {
    let mut out = Vec::new();
    game.for_each_successor(s, |t| out.push(t));
    out
}

/// Disjunctive compound by search: move exactly one piece.
fn disjunctive_wins(game: &PieceGame, pieces: &[u64], memo: &mut HashMap<Vec<u64>, bool>) -> bool {
    if let Some(&w) = memo.get(pieces) {
        return w;
    }
    let mut win = false;
    for i in 0..pieces.len() {
        for t in succ(game, pieces[i]) {
            let mut next = pieces.to_vec();
            next[i] = t;
            win |= !disjunctive_wins(game, &next, memo);
        }
    }
    memo.insert(pieces.to_vec(), win);
    win
}

/// Every result of moving a non-empty subset of the pieces one step each.
fn selective_options(game: &PieceGame, pieces: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for mask in 1u32..(1 << pieces.len()) {
        let mut partial = vec![pieces.to_vec()];
        for i in 0..pieces.len() {
            if mask & (1 << i) != 0 {
                let mut grown = Vec::new();
                for p in &partial {
                    for t in succ(game, pieces[i]) {
                        let mut q = p.clone();
                        q[i] = t;
                        grown.push(q);
                    }
                }
                partial = grown;
            }
        }
        out.extend(partial);
    }
    out
}

fn selective_wins(game: &PieceGame, pieces: &[u64], memo: &mut HashMap<Vec<u64>, bool>) -> bool {
    if let Some(&w) = memo.get(pieces) {
        return w;
    }
    let win = selective_options(game, pieces)
        .iter()
        .any(|next| !selective_wins(game, next, memo));
    memo.insert(pieces.to_vec(), win);
    win
}

/// Conjunctive compound by search on the real product game: every piece
/// moves, and a tuple with a stuck piece is terminal (the mover loses).
/// Returns the remoteness by its definition (Smith).
fn conjunctive_remoteness(
    game: &PieceGame,
    pieces: &[u64],
    memo: &mut HashMap<Vec<u64>, u32>,
) -> u32 {
    if let Some(&r) = memo.get(pieces) {
        return r;
    }
    let moves: Vec<Vec<u64>> = pieces.iter().map(|&p| succ(game, p)).collect();
    let r = if moves.iter().any(Vec::is_empty) {
        0
    } else {
        let mut options = vec![Vec::new()];
        for m in &moves {
            options = options
                .into_iter()
                .flat_map(|o: Vec<u64>| m.iter().map(move |&t| [o.clone(), vec![t]].concat()))
                .collect();
        }
        let values: Vec<u32> = options
            .iter()
            .map(|o| conjunctive_remoteness(game, o, memo))
            .collect();
        match values.iter().filter(|&&v| v % 2 == 0).min() {
            Some(&even) => 1 + even,
            None => 1 + values.iter().max().unwrap(),
        }
    };
    memo.insert(pieces.to_vec(), r);
    r
}

#[test]
fn compounds_match_search_on_the_product_game() {
    let mut rng = Rng::new(6);
    for round in 0..120 {
        let (game, table) = random_acyclic_board(&mut rng, 4);
        let grundy = grundy_of_acyclic(&game).unwrap();
        let n = game.state_count();
        let count = 1 + rng.below(3) as usize;
        let pieces: Vec<u64> = (0..count).map(|_| rng.below(n)).collect();
        let cells: Vec<(usize, usize)> = pieces.iter().map(|&p| game.coord(p)).collect();
        for (&p, &(r, c)) in pieces.iter().zip(&cells) {
            assert_eq!(grundy[p as usize], table[r][c]);
        }

        // Disjunctive.
        let mut memo = HashMap::new();
        let (value, winning) = disjunctive(&game, &grundy, &pieces);
        let win = disjunctive_wins(&game, &pieces, &mut memo);
        assert_eq!(value != 0, win, "round {round}");
        if let Some(CompoundMove { piece, to }) = winning {
            assert!(succ(&game, pieces[piece]).contains(&to));
            let mut next = pieces.clone();
            next[piece] = to;
            assert!(!disjunctive_wins(&game, &next, &mut memo));
        }

        // Selective.
        let mut memo = HashMap::new();
        let winning = selective(&game, &grundy, &pieces);
        assert_eq!(
            winning.is_some(),
            selective_wins(&game, &pieces, &mut memo),
            "round {round}"
        );
        if let Some(moves) = winning {
            let mut next = pieces.clone();
            for m in moves {
                assert!(succ(&game, pieces[m.piece]).contains(&m.to));
                next[m.piece] = m.to;
            }
            assert!(!selective_wins(&game, &next, &mut memo));
        }

        // Conjunctive: the least remoteness, from the engine, equals the
        // product game's remoteness by search and by the engine.
        let mut memo = HashMap::new();
        let expected = conjunctive_remoteness(&game, &pieces, &mut memo);
        let r = remoteness(&game, Engine::Sequential).unwrap();
        let verdict = conjunctive(&game, &r, &pieces);
        assert_eq!(verdict.remoteness, expected, "round {round}");
        assert_eq!(verdict.mover_wins(), expected % 2 == 1);
        if expected > 0 {
            let mut next = pieces.clone();
            for m in &verdict.best_move {
                assert!(succ(&game, pieces[m.piece]).contains(&m.to));
                next[m.piece] = m.to;
            }
            assert_eq!(
                conjunctive_remoteness(&game, &next, &mut memo),
                expected - 1
            );
        } else {
            assert!(verdict.best_move.is_empty());
        }
        let product = ConjunctiveGame::new(&game, pieces.len()).unwrap();
        let solution = solve(
            &product,
            &SolveOptions::new(Engine::Sequential).with_dte_table(true),
        )
        .unwrap();
        let start = product.encode(&pieces);
        assert_eq!(solution.dte(start).unwrap().plies(), expected);
        assert_eq!(
            solution.outcome(start),
            if expected % 2 == 1 {
                Outcome::Win
            } else {
                Outcome::Loss
            }
        );
    }
}

#[test]
fn compound_cli_reports_the_winner() {
    let mut rng = Rng::new(7);
    for _ in 0..12 {
        let (game, _) = random_acyclic_board(&mut rng, 5);
        let pieces: Vec<u64> = (0..1 + rng.below(3))
            .map(|_| rng.below(game.state_count()))
            .collect();
        let args_pieces: Vec<String> = pieces
            .iter()
            .map(|&p| {
                let (r, c) = game.coord(p);
                format!("{r},{c}")
            })
            .collect();
        let pieces_arg = args_pieces.join(" ");
        let moves = offsets_arg(game.offsets());
        let (rows, cols) = (game.rows().to_string(), game.cols().to_string());
        let base = [
            "grundy",
            "--rows",
            &rows,
            "--cols",
            &cols,
            "--moves",
            &moves,
            "--pieces",
            &pieces_arg,
            "--json",
        ];
        let mut memo = HashMap::new();
        let report = json(&[&base[..], &["--compound", "disjunctive"]].concat());
        let win = disjunctive_wins(&game, &pieces, &mut memo);
        assert_eq!(report["winner"], if win { "first" } else { "second" });
        let mut memo = HashMap::new();
        let report = json(&[&base[..], &["--compound", "selective"]].concat());
        let win = selective_wins(&game, &pieces, &mut memo);
        assert_eq!(report["winner"], if win { "first" } else { "second" });
        let mut memo = HashMap::new();
        let report = json(&[&base[..], &["--compound", "conjunctive"]].concat());
        let r = conjunctive_remoteness(&game, &pieces, &mut memo);
        assert_eq!(report["remoteness"], r);
        assert_eq!(
            report["winner"],
            if r % 2 == 1 { "first" } else { "second" }
        );
    }
}

// --------------------------------------------------------------- empty-cell

/// Exhaustive minimax on the real board: does the player to move win?
/// `board` holds b'O', b'X' and one b'.'; `first` says who moves.
fn empty_cell_wins(
    board: &[u8],
    cols: usize,
    first: bool,
    memo: &mut HashMap<(Vec<u8>, bool), bool>,
) -> bool {
    if let Some(&w) = memo.get(&(board.to_vec(), first)) {
        return w;
    }
    let win = empty_cell_moves(board, cols, first)
        .into_iter()
        .any(|cell| {
            let mut next = board.to_vec();
            let empty = next.iter().position(|&b| b == b'.').unwrap();
            next.swap(cell, empty);
            !empty_cell_wins(&next, cols, !first, memo)
        });
    memo.insert((board.to_vec(), first), win);
    win
}

/// The cells the player to move may slide into the empty cell.
fn empty_cell_moves(board: &[u8], cols: usize, first: bool) -> Vec<usize> {
    let rows = board.len() / cols;
    let e = board.iter().position(|&b| b == b'.').unwrap();
    let (r, c) = (e / cols, e % cols);
    let mine = if first { b'O' } else { b'X' };
    let mut out = Vec::new();
    let mut try_cell = |nr: usize, nc: usize| {
        if nr < rows && nc < cols && board[nr * cols + nc] == mine {
            out.push(nr * cols + nc);
        }
    };
    try_cell(r.wrapping_sub(1), c);
    try_cell(r + 1, c);
    try_cell(r, c.wrapping_sub(1));
    try_cell(r, c + 1);
    out
}

/// A random board and a random legal record of complete rounds.
fn random_empty_cell_game(rng: &mut Rng, rows: usize, cols: usize) -> (Vec<u8>, Vec<usize>) {
    let mut board: Vec<u8> = (0..rows * cols)
        .map(|_| if rng.below(2) == 0 { b'O' } else { b'X' })
        .collect();
    let e = rng.below((rows * cols) as u64) as usize;
    board[e] = b'.';
    let start = board.clone();
    let mut record = Vec::new();
    let mut first = true;
    loop {
        let moves = empty_cell_moves(&board, cols, first);
        if moves.is_empty() || rng.below(12) == 0 {
            break;
        }
        let cell = moves[rng.below(moves.len() as u64) as usize];
        let empty = board.iter().position(|&b| b == b'.').unwrap();
        board.swap(cell, empty);
        record.push(cell);
        first = !first;
    }
    record.truncate(record.len() / 2 * 2);
    (start, record)
}

fn contest_text(board: &[u8], cols: usize, record: &[usize]) -> String {
    let rows = board.len() / cols;
    let mut text = format!("{rows} {cols}\n");
    for row in board.chunks(cols) {
        text.push_str(std::str::from_utf8(row).unwrap());
        text.push('\n');
    }
    text.push_str(&format!("{}\n", record.len() / 2));
    for &cell in record {
        text.push_str(&format!("{} {}\n", cell / cols + 1, cell % cols + 1));
    }
    text
}

/// The contest answer by exhaustive search.
fn expected_mistakes(board: &[u8], cols: usize, record: &[usize]) -> Vec<usize> {
    let mut memo = HashMap::new();
    let mut board = board.to_vec();
    let mut rounds = Vec::new();
    for (i, pair) in record.chunks(2).enumerate() {
        let before = empty_cell_wins(&board, cols, true, &mut memo);
        for (j, &cell) in pair.iter().enumerate() {
            let empty = board.iter().position(|&b| b == b'.').unwrap();
            board.swap(cell, empty);
            if j == 0 && before && empty_cell_wins(&board, cols, false, &mut memo) {
                rounds.push(i + 1);
            }
        }
    }
    rounds
}

#[test]
fn empty_cell_matches_exhaustive_search() {
    let mut rng = Rng::new(8);
    let mut with_mistakes = 0;
    for _ in 0..400 {
        let rows = 1 + rng.below(4) as usize;
        let cols = 1 + rng.below(5) as usize;
        let (board, record) = random_empty_cell_game(&mut rng, rows, cols);
        let text = contest_text(&board, cols, &record);
        let input = parse_contest(&text, "random").unwrap();
        // Every position's verdict, not just the mistakes.
        let verdicts = input.game.verdicts(&input.record).unwrap();
        let mut memo = HashMap::new();
        let mut current = board.clone();
        for (i, &cell) in record.iter().enumerate() {
            assert_eq!(
                verdicts[i],
                empty_cell_wins(&current, cols, i % 2 == 0, &mut memo),
                "{text}move {i}"
            );
            let empty = current.iter().position(|&b| b == b'.').unwrap();
            current.swap(cell, empty);
        }
        let expected = expected_mistakes(&board, cols, &record);
        with_mistakes += usize::from(!expected.is_empty());
        assert_eq!(input.mistakes().unwrap(), expected, "{text}");
    }
    assert!(
        with_mistakes > 20,
        "only {with_mistakes} games with mistakes"
    );
}

#[test]
fn empty_cell_cli_prints_the_contest_output() {
    let mut rng = Rng::new(9);
    for _ in 0..15 {
        let (board, record) = random_empty_cell_game(&mut rng, 3, 4);
        let text = contest_text(&board, 4, &record);
        let expected = expected_mistakes(&board, 4, &record);
        let mut want = format!("{}\n", expected.len());
        for r in &expected {
            want.push_str(&format!("{r}\n"));
        }
        let (status, out, err) = run(&["empty-cell", "-"], Some(&text));
        assert_eq!(status, 0, "{err}");
        assert_eq!(out, want, "{text}");
    }
    // The committed example: a line X O . O X O where O's first move
    // throws the win away.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/toolkit/line.txt");
    let (status, out, _) = run(&["empty-cell", path], None);
    assert_eq!(status, 0);
    let text = std::fs::read_to_string(path).unwrap();
    let input = parse_contest(&text, path).unwrap();
    let board: Vec<u8> = text.lines().nth(1).unwrap().bytes().collect();
    let record: Vec<usize> = input.record.iter().map(|&(_, c)| c).collect();
    let expected = expected_mistakes(&board, board.len(), &record);
    assert_eq!(expected, vec![1]);
    assert_eq!(out, "1\n1\n");
    let report = json(&["empty-cell", path, "--json"]);
    assert_eq!(
        report,
        serde_json::json!({"schema": 1, "count": 1, "rounds": [1]})
    );
}

#[test]
fn empty_cell_illegal_moves_name_the_line() {
    let cases = [
        // Not next to the empty cell (line 5 is the first move).
        (
            "2 2\n.O\nOX\n1\n2 2\n1 1\n",
            "5:1",
            "not next to the empty cell",
        ),
        // The second player's move names an O.
        ("1 4\n.OXO\n1\n1 2\n1 1\n", "5:1", "not the mover's piece"),
        // Off the board.
        ("1 3\n.OX\n1\n1 2\n1 9\n", "5:1", "off the 1 x 3 board"),
        // A bad character in the board.
        ("1 3\n.OZ\n0\n", "2:3", "unexpected `Z`"),
        // Missing moves.
        (
            "1 3\n.OX\n2\n1 2\n1 3\n",
            "5:1",
            "expected the row of move 3",
        ),
    ];
    for (text, place, message) in cases {
        let (status, out, err) = run(&["empty-cell", "-"], Some(text));
        assert_eq!(status, 2, "{text}");
        assert!(out.is_empty());
        assert!(
            err.contains(&format!("-:{place}:")) && err.contains(message),
            "{text}: {err}"
        );
    }
    let (status, _, _) = run(&["empty-cell", "/nonexistent/file.txt"], None);
    assert_ne!(status, 0);
}

/// A 40 x 40 board on which the empty cell can snake through every cell:
/// the longest game the contest allows (799 full rounds).
fn serpentine_game() -> String {
    let n = 40;
    let mut board = vec![b'X'; n * n];
    for r in 0..n {
        for c in 0..n {
            board[r * n + c] = if (r + c) % 2 == 0 { b'X' } else { b'O' };
        }
    }
    board[0] = b'.';
    let mut path = Vec::new();
    for r in 0..n {
        for i in 0..n {
            let c = if r % 2 == 0 { i } else { n - 1 - i };
            path.push(r * n + c);
        }
    }
    let record: Vec<usize> = path[1..].to_vec();
    contest_text(&board, n, &record[..record.len() / 2 * 2])
}

#[test]
fn empty_cell_40_by_40_is_fast() {
    let text = serpentine_game();
    let started = Instant::now();
    let input = parse_contest(&text, "serpentine").unwrap();
    let mistakes = input.mistakes().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(input.record.len(), 1598);
    assert!(mistakes.iter().all(|&r| (1..=799).contains(&r)));
    assert!(elapsed.as_secs_f64() < 1.0, "took {elapsed:?}");
    let (status, out, _) = run(&["empty-cell", "-"], Some(&text));
    assert_eq!(status, 0);
    assert_eq!(out.lines().count(), 1 + mistakes.len());
}

#[test]
fn empty_cell_game_api() {
    let game = EmptyCellGame::parse_board(&["XO.OXO"]).unwrap();
    assert_eq!(game.empty(), (0, 2));
    assert_eq!(game.verdicts(&[(0, 1), (0, 0)]).unwrap(), vec![true, true]);
    assert_eq!(game.verdicts(&[(0, 3), (0, 4)]).unwrap(), vec![true, false]);
}
