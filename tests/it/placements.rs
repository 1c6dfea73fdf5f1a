//! The several-cops summary of `solve --cops K` (start placements by
//! verdict, a longest one, the cops' best placement) against a count over
//! every placement by the brute-force oracle, on random small maps, by
//! each engine and way of keeping distances.

use serde_json::Value as Json;

use crate::oracle::{Arena, KBoard, KOracle, Side, Value, Variant};
use crate::support::{add_random_exits, random_grid, run, stdout, temp_dir, Rng, SHAPES};

/// What the oracle says of every placement of `k` cops on `board`, the
/// first mover to move.
struct Expected {
    placements: u64,
    cop_wins: u64,
    thief_escapes: u64,
    draws: u64,
    /// The largest distance to end of a decided placement, if any.
    longest: Option<u32>,
    /// The least capture time of a placement winning everywhere (the
    /// cops to move), if any.
    best: Option<u32>,
}

/// Every multiset of `k` cells of `0..n`, ascending.
fn multisets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for _ in 0..k {
        all = all
            .into_iter()
            .flat_map(|m: Vec<usize>| {
                let from = m.last().copied().unwrap_or(0);
                (from..n).map(move |c| {
                    let mut m = m.clone();
                    m.push(c);
                    m
                })
            })
            .collect();
    }
    all
}

/// The oracle's count over every placement.
fn expected(oracle: &KOracle, n: usize, k: usize, thief_first: bool) -> Expected {
    let side = if thief_first { Side::Thief } else { Side::Cop };
    let mut e = Expected {
        placements: 0,
        cop_wins: 0,
        thief_escapes: 0,
        draws: 0,
        longest: None,
        best: None,
    };
    for cops in multisets(n, k) {
        for t in (0..n).filter(|t| !cops.contains(t)) {
            e.placements += 1;
            let (value, dte) = oracle.lookup(&cops, t, side);
            let cops_won = (value == Value::Win) == (side == Side::Cop);
            match value {
                Value::Draw => e.draws += 1,
                _ if cops_won => e.cop_wins += 1,
                _ => e.thief_escapes += 1,
            }
            if let Some(d) = dte.filter(|_| value != Value::Draw) {
                e.longest = Some(e.longest.map_or(d, |l| l.max(d)));
            }
        }
        let worst = (0..n).try_fold(0, |worst, t| match oracle.lookup(&cops, t, Side::Cop) {
            (Value::Win, Some(d)) => Some(worst.max(d)),
            _ => None,
        });
        if let Some(w) = worst {
            e.best = Some(e.best.map_or(w, |b| b.min(w)));
        }
    }
    e
}

/// The oracle's cell id of a `[row, column]` in a report.
fn cell(cells: &[(usize, usize)], json: &Json) -> usize {
    let (r, c) = (json[0].as_u64().unwrap(), json[1].as_u64().unwrap());
    cells
        .iter()
        .position(|&p| p == (r as usize, c as usize))
        .unwrap_or_else(|| panic!("{json} is not a free cell"))
}

/// Checks a report's summary against the oracle's count; `best_known`:
/// whether the engine run finds the best placement.
fn check(report: &Json, oracle: &KOracle, cells: &[(usize, usize)], k: usize, what: &str) {
    let thief_first = what.contains("--thief-first");
    let e = expected(oracle, cells.len(), k, thief_first);
    let placements = report["placements"].as_u64().unwrap();
    assert_eq!(placements, e.placements, "{what}: placements");
    let count = |key: &str| (report["share"][key].as_f64().unwrap() * placements as f64).round();
    assert_eq!(count("cop_wins"), e.cop_wins as f64, "{what}: cop wins");
    assert_eq!(
        count("thief_escapes"),
        e.thief_escapes as f64,
        "{what}: escapes"
    );
    assert_eq!(count("draw"), e.draws as f64, "{what}: draws");
    let side = if thief_first { Side::Thief } else { Side::Cop };
    let longest = &report["longest"];
    if longest.is_null() {
        // Unknown only where the engine keeps no deepest state and no
        // table: the sweep engine; none decided is null too.
        assert!(
            e.longest.is_none() || what.contains("sweep"),
            "{what}: longest missing, expected {:?}",
            e.longest
        );
    } else {
        let cops: Vec<usize> = longest["cops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| cell(cells, c))
            .collect();
        let thief = cell(cells, &longest["thief"]);
        assert!(!cops.contains(&thief), "{what}: longest is a capture");
        let dte = longest["dte"].as_u64().unwrap() as u32;
        assert_eq!(Some(dte), e.longest, "{what}: longest dte");
        assert_eq!(
            oracle.lookup(&cops, thief, side).1,
            Some(dte),
            "{what}: the longest placement's own distance"
        );
    }
    let best = &report["best_placement"];
    if report["best_placement_known"] == Json::Bool(false) {
        assert!(best.is_null(), "{what}");
        assert!(
            what.contains("sweep") || what.contains("sequential"),
            "{what}"
        );
        return;
    }
    match (best.is_null(), e.best) {
        (true, None) => {}
        (false, Some(plies)) => {
            assert_eq!(best["capture_plies"], plies, "{what}: capture time");
            assert_eq!(best["capture_rounds"], plies.div_ceil(2), "{what}");
            let cops: Vec<usize> = best["cops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| cell(cells, c))
                .collect();
            let worst = (0..cells.len())
                .map(|t| oracle.lookup(&cops, t, Side::Cop))
                .map(|(v, d)| if v == Value::Win { d } else { None })
                .try_fold(0, |w, d| d.map(|d| w.max(d)));
            assert_eq!(worst, Some(plies), "{what}: the best placement's own time");
        }
        (got_none, expected) => panic!("{what}: best null {got_none}, expected {expected:?}"),
    }
}

/// The summary equals the oracle's count over every placement of two
/// cops (shares, a longest placement, the best placement) on random small
/// maps with random exits, by the bitboard kernel, the counter engines
/// with and without distances, the sweep engine, and the thief first.
#[test]
fn the_several_cops_summary_counts_every_placement() {
    let dir = temp_dir("placements");
    let mut rng = Rng::new(48);
    let mut maps = 0;
    while maps < 14 {
        let shape = SHAPES[rng.below(SHAPES.len())];
        let walls = random_grid(&mut rng, shape, 4);
        let grid = add_random_exits(&mut rng, walls);
        let cells = grid.free_cells();
        if cells.is_empty() || cells.len() > 12 {
            continue;
        }
        maps += 1;
        let path = dir.join(format!("m{maps}.txt"));
        std::fs::write(&path, grid.to_seed_text()).unwrap();
        let board = KBoard::from_grid(&grid, Variant::default());
        let oracle = KOracle::solve(&board, 2);
        let runs: [&[&str]; 4] = [
            &[],
            &["--engine", "sequential"],
            &["--engine", "parallel", "--dte-table"],
            &["--engine", "sweep"],
        ];
        for extra in runs {
            let mut args = vec!["solve", path.to_str().unwrap(), "-q", "--cops", "2"];
            args.extend_from_slice(&["--json", "--summary"]);
            args.extend_from_slice(extra);
            let out = run(&args, None);
            let what = format!("{}: {extra:?}", grid.to_seed_text());
            assert!(out.status.success(), "{what}: {}", stdout(&out));
            let report: Json = serde_json::from_str(&stdout(&out)).unwrap();
            check(&report, &oracle, &cells, 2, &what);
        }
        // The thief first: the oracle of the same game, the other side's
        // placements.
        let mut args = vec!["solve", path.to_str().unwrap(), "-q", "--cops", "2"];
        args.extend_from_slice(&["--json", "--summary", "--thief-first", "--dte-table"]);
        let out = run(&args, None);
        assert!(out.status.success(), "{}", stdout(&out));
        let report: Json = serde_json::from_str(&stdout(&out)).unwrap();
        check(
            &report,
            &oracle,
            &cells,
            2,
            &format!("{}: --thief-first", grid.to_seed_text()),
        );
    }
}

/// Three cops on a small map: the same count, text and JSON agreeing;
/// the text report prints the summary by default, `--no-summary` leaves
/// it out, `--json` leaves it out unless `--summary`.
#[test]
fn three_cops_summary_and_its_default() {
    let dir = temp_dir("placements-3");
    let grid = Arena::from_rows(&["...#", ".#..", "...E"]);
    let path = dir.join("three.txt");
    std::fs::write(&path, grid.to_seed_text()).unwrap();
    let cells = grid.free_cells();
    let oracle = KOracle::solve(&KBoard::from_grid(&grid, Variant::default()), 3);
    let map = path.to_str().unwrap();
    let out = run(
        &["solve", map, "-q", "--cops", "3", "--json", "--summary"],
        None,
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let report: Json = serde_json::from_str(&stdout(&out)).unwrap();
    check(&report, &oracle, &cells, 3, "three cops");
    let text = stdout(&run(&["solve", map, "-q", "--cops", "3"], None));
    let line = format!("start placements: {} (cops to move)", report["placements"]);
    assert!(text.contains(&line), "{text}");
    assert!(text.contains("best placement: "), "{text}");
    // The thief first on the bitboard engine: its longest placement needs
    // the distance table, and the text says so instead of leaving it out.
    let first = stdout(&run(
        &["solve", map, "-q", "--cops", "3", "--thief-first"],
        None,
    ));
    assert!(
        first.contains("longest: unknown (this solve keeps no distances"),
        "{first}"
    );
    let quiet = stdout(&run(
        &["solve", map, "-q", "--cops", "3", "--no-summary"],
        None,
    ));
    assert!(!quiet.contains("start placements"), "{quiet}");
    let json = stdout(&run(&["solve", map, "-q", "--cops", "3", "--json"], None));
    assert!(!json.contains("\"placements\""), "{json}");
}
