//! `render` on several-cops tables, through the binary: the last cop's
//! heatmap against `query` answers cell by cell, the last cop's overview
//! against shares counted from `query`, the whole-table overview against
//! a share counted state by state through the library, and the counts of
//! `--cop` each picture needs.

use std::path::{Path, PathBuf};

use retrograde::render::cop_win_shares;
use retrograde::{Outcome, Tablebase, Turn};

use crate::support::picture::{render, Picture};
use crate::support::{query_json, run_refused, run_status, temp_dir};

// The picture's layout (src/render): a margin, a 16-pixel title line, then
// the map, cells of 640 / max(rows, cols) pixels clamped to 2..=24.
const MARGIN: usize = 10;
const COP: [u8; 3] = [47, 111, 220];
const THIEF: [u8; 3] = [224, 123, 34];
const DRAW: [u8; 3] = [138, 143, 152];

/// Map cells of the shared [`Picture`].
impl Picture {
    /// The colour at the centre of map cell `(r, c)` on a map of `rows x
    /// cols` cells.
    fn cell(&self, (rows, cols): (usize, usize), (r, c): (usize, usize)) -> [u8; 3] {
        let s = (640 / rows.max(cols)).clamp(2, 24);
        self.at(MARGIN + c * s + s / 2, MARGIN + 16 + r * s + s / 2)
    }
}

/// A seed map's free cells and size (`*` and `#` are walls).
fn free_cells(map: &Path) -> ((usize, usize), Vec<(usize, usize)>) {
    let text = std::fs::read_to_string(map).unwrap();
    let mut lines = text.lines();
    let dims: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let mut free = Vec::new();
    for (r, line) in lines.take(dims[0]).enumerate() {
        for (c, ch) in line.chars().enumerate() {
            if ch != '*' && ch != '#' {
                free.push((r, c));
            }
        }
    }
    ((dims[0], dims[1]), free)
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps/sample.txt")
}

/// A 3 x 4 room with one exit, for three cops.
fn small_map(dir: &Path) -> PathBuf {
    let path = dir.join("small.txt");
    std::fs::write(&path, "3 4\n....\n.#..\n...E\n").unwrap();
    path
}

fn solve(map: &Path, k: &str, table: &Path, extra: &[&str]) {
    let mut args = vec![
        "solve",
        "-q",
        map.to_str().unwrap(),
        "--cops",
        k,
        "--save",
        table.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_status(&args, 0);
}

/// `query --stdin --json` on `lines`: each answer's value for the player
/// to move.
fn query(table: &Path, lines: &[String]) -> Vec<String> {
    query_json(table, lines)
        .iter()
        .map(|j| j["value"].as_str().unwrap().to_string())
        .collect()
}

/// Whether a value for `turn`'s player is the cops' win.
fn cops_win(value: &str, turn: &str) -> bool {
    (turn == "cop" && value == "win") || (turn == "thief" && value == "loss")
}

/// The heatmap colour of a value for `turn`'s player (a table without
/// distances shades nothing).
fn heat(value: &str, turn: &str) -> [u8; 3] {
    match value {
        "draw" => DRAW,
        v if cops_win(v, turn) => COP,
        _ => THIEF,
    }
}

/// The overview's colour of a share.
fn gradient(t: f64) -> [u8; 3] {
    let lerp = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    [
        lerp(THIEF[0], COP[0]),
        lerp(THIEF[1], COP[1]),
        lerp(THIEF[2], COP[2]),
    ]
}

fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    (0..3).all(|i| a[i].abs_diff(b[i]) <= 1)
}

/// A table, its map, the fixed cops and the thief.
type Case<'a> = (&'a Path, PathBuf, &'a [(usize, usize)], (usize, usize));

fn at((r, c): (usize, usize)) -> String {
    format!("{r},{c}")
}

/// The last cop's heatmap: every free cell's colour is the value `query`
/// gives with the last cop there, for each side to move, on tables of two
/// cops (sample map) and three (two fixed on one cell).
#[test]
fn the_last_cops_heatmap_shows_what_query_answers() {
    let dir = temp_dir("krender-heat");
    let small = small_map(&dir);
    let two = dir.join("two.rtb");
    let three = dir.join("three.rtb");
    solve(&sample(), "2", &two, &[]);
    solve(&small, "3", &three, &[]);
    let cases: [Case; 3] = [
        (&two, sample(), &[(1, 1)], (5, 9)),
        (&two, sample(), &[(7, 3)], (3, 12)),
        (&three, small.clone(), &[(0, 0), (0, 0)], (2, 1)),
    ];
    let mut checked = 0;
    let mut seen = std::collections::HashSet::new();
    for (table, map, fixed, thief) in cases {
        let (size, free) = free_cells(&map);
        for turn in ["cop", "thief"] {
            let mut what: Vec<String> = Vec::new();
            for &c in fixed {
                what.extend(["--cop".to_string(), at(c)]);
            }
            what.extend(["--thief".into(), at(thief), "--turn".into(), turn.into()]);
            let what: Vec<&str> = what.iter().map(String::as_str).collect();
            let pic = render(table, &dir.join("heat.png"), &what);
            let lines: Vec<String> = free
                .iter()
                .map(|&x| {
                    let cops: Vec<String> = fixed.iter().chain([&x]).map(|&c| at(c)).collect();
                    format!("{} {} {turn}", cops.join(" "), at(thief))
                })
                .collect();
            let values = query(table, &lines);
            assert_eq!(values.len(), free.len());
            for (&x, value) in free.iter().zip(&values) {
                if x == thief || fixed.contains(&x) {
                    continue; // marked with a letter
                }
                assert_eq!(
                    pic.cell(size, x),
                    heat(value, turn),
                    "{}: last cop on {x:?}, {turn} to move: {value}",
                    table.display()
                );
                seen.insert(value.clone());
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "{checked} cells checked");
    assert!(seen.len() >= 2, "only {seen:?}: the test would not tell");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last cop's overview: every free cell's colour is the share of
/// thief cells (not under a cop) from which `query` says the cops win.
#[test]
fn the_last_cops_overview_shows_shares_counted_from_query() {
    let dir = temp_dir("krender-kov");
    let two = dir.join("two.rtb");
    solve(&sample(), "2", &two, &[]);
    let (size, free) = free_cells(&sample());
    let fixed = (3, 12);
    for turn in ["cop", "thief"] {
        let pic = render(
            &two,
            &dir.join("ov.png"),
            &["--cop", &at(fixed), "--overview", "--turn", turn],
        );
        let mut lines = Vec::new();
        let mut owner = Vec::new();
        for &x in &free {
            for &t in &free {
                if t != x && t != fixed {
                    lines.push(format!("{} {} {} {turn}", at(fixed), at(x), at(t)));
                    owner.push(x);
                }
            }
        }
        let values = query(&two, &lines);
        let mut distinct = std::collections::HashSet::new();
        for &x in &free {
            if x == fixed {
                continue;
            }
            let mine: Vec<&String> = owner
                .iter()
                .zip(&values)
                .filter(|(o, _)| **o == x)
                .map(|(_, v)| v)
                .collect();
            let wins = mine.iter().filter(|v| cops_win(v, turn)).count();
            let share = wins as f64 / mine.len() as f64;
            distinct.insert(wins);
            let got = pic.cell(size, x);
            assert!(
                close(got, gradient(share)),
                "last cop on {x:?}, {turn} to move: {got:?}, expected {:?} ({wins} of {})",
                gradient(share),
                mine.len()
            );
        }
        assert!(distinct.len() > 3, "{turn}: shares {distinct:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The whole-table overview: each cell's share counted state by state
/// through the library's probes equals `cop_win_shares` (one pass over
/// the blocks) and the picture's colour, for tables of two and three
/// cops and both sides to move.
#[test]
fn the_whole_overview_counts_every_state_with_a_cop_on_the_cell() {
    let dir = temp_dir("krender-all");
    let small = small_map(&dir);
    let two = dir.join("two.rtb");
    let three = dir.join("three.rtb");
    solve(&sample(), "2", &two, &[]);
    solve(&small, "3", &three, &["--thief-first"]);
    for (table, map) in [(&two, sample()), (&three, small)] {
        let (size, free) = free_cells(&map);
        let tb = Tablebase::open(table).unwrap();
        let k = tb.cops() as usize;
        let n = free.len() as u32;
        for turn in [Turn::Cop, Turn::Thief] {
            let (mut won, mut all) = (vec![0u64; free.len()], vec![0u64; free.len()]);
            let mut cops = vec![0u32; k];
            loop {
                let mut cells = cops.clone();
                cells.dedup();
                for t in (0..n).filter(|t| !cops.contains(t)) {
                    let p = tb.probe(&tb.position(&cops, t, turn).unwrap()).unwrap();
                    let win = match turn {
                        Turn::Cop => p.value == Outcome::Win,
                        Turn::Thief => p.value == Outcome::Loss,
                    };
                    for &c in &cells {
                        all[c as usize] += 1;
                        won[c as usize] += u64::from(win);
                    }
                }
                // The next multiset, ascending cells.
                let mut i = k;
                while i > 0 && cops[i - 1] == n - 1 {
                    i -= 1;
                }
                if i == 0 {
                    break;
                }
                let v = cops[i - 1] + 1;
                for c in &mut cops[i - 1..] {
                    *c = v;
                }
            }
            let shares = cop_win_shares(&tb, turn).unwrap();
            assert_eq!(shares.len(), free.len());
            let name = if turn == Turn::Cop { "cop" } else { "thief" };
            let pic = render(table, &dir.join("all.png"), &["--overview", "--turn", name]);
            for (i, &cell) in free.iter().enumerate() {
                let share = won[i] as f64 / all[i] as f64;
                assert_eq!(shares[i].0, cell);
                assert!(
                    (shares[i].1 - share).abs() < 1e-12,
                    "{}: cell {cell:?}, {name} to move: {} against {share}",
                    table.display(),
                    shares[i].1
                );
                assert!(close(pic.cell(size, cell), gradient(share)), "{cell:?}");
            }
            let spread = won
                .iter()
                .zip(&all)
                .map(|(w, a)| (1000 * w / a) as i64)
                .collect::<std::collections::HashSet<_>>();
            assert!(spread.len() > 2, "shares all alike: {spread:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each picture takes its count of `--cop`; others are refused with what
/// each needs and no picture; a graph's table and a one-cop table's
/// mixtures too.
#[test]
fn render_refuses_counts_of_cops_that_draw_nothing() {
    let dir = temp_dir("krender-refused");
    let two = dir.join("two.rtb");
    solve(&sample(), "2", &two, &[]);
    let t = two.to_str().unwrap();
    let png = dir.join("x.png");
    let p = png.to_str().unwrap();
    let needs = "the thief's heatmap (--cop 2 times), the last cop's heatmap (--cop once and --thief), the last cop's overview (--cop once and --overview) or every cell's overview (--overview alone)";
    for (what, found) in [
        (&["--cop", "1,1"][..], "found --cop once"),
        (
            &["--cop", "1,1", "--cop", "1,2", "--cop", "1,3"],
            "found --cop 3 times",
        ),
        (&["--thief", "5,9"], "found --cop 0 times with --thief"),
        (
            &["--cop", "1,1", "--cop", "1,2", "--thief", "5,9"],
            "found --cop 2 times with --thief",
        ),
        (
            &["--cop", "1,1", "--cop", "1,2", "--overview"],
            "found --cop 2 times with --overview",
        ),
        (
            &["--cop", "1,1", "--thief", "5,9", "--overview"],
            "with --thief and --overview",
        ),
    ] {
        let mut args = vec!["render", t, "--out", p];
        args.extend_from_slice(what);
        let err = run_refused(&args, needs);
        assert!(err.contains(found), "{what:?}: {err}");
        assert!(!png.exists(), "{what:?} wrote a picture");
    }
    // A wall or an off-map cell is named.
    run_refused(
        &["render", t, "--cop", "0,0", "--thief", "5,9", "--out", p],
        "wall",
    );
    run_refused(
        &["render", t, "--cop", "1,1", "--thief", "50,9", "--out", p],
        "outside the map",
    );
    assert!(!png.exists());
    // A graph's table draws nothing, whatever the flags.
    let g = dir.join("g.rtb");
    let graph = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/graphs/cycle-5.txt");
    run_status(
        &[
            "solve",
            "-q",
            graph.to_str().unwrap(),
            "--graph",
            "--cops",
            "2",
            "--save",
            g.to_str().unwrap(),
        ],
        0,
    );
    for what in [&["--overview"][..], &["--cop", "0,1", "--thief", "0,2"]] {
        let mut args = vec!["render", g.to_str().unwrap(), "--out", p];
        args.extend_from_slice(what);
        run_refused(
            &args,
            "the table is of a graph (5 vertices); render draws maps",
        );
    }
    // A one-cop table draws one picture at a time.
    let one = dir.join("one.rtb");
    run_status(
        &[
            "solve",
            "-q",
            sample().to_str().unwrap(),
            "--save",
            one.to_str().unwrap(),
        ],
        0,
    );
    let o = one.to_str().unwrap();
    for what in [
        &["--cop", "1,1", "--thief", "5,9"][..],
        &["--cop", "1,1", "--overview"],
        &["--thief", "5,9", "--overview"],
    ] {
        let mut args = vec!["render", o, "--out", p];
        args.extend_from_slice(what);
        run_refused(&args, "a one-cop table draws one picture");
    }
    run_refused(
        &["render", o, "--cop", "1,1", "--cop", "1,2", "--out", p],
        "give --cop once",
    );
    assert!(!png.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The library's pictures take any table: on a one-cop table the whole
/// table's cop shares (one scan of the values blocks) are the last cop's
/// shares with no cop fixed (a probe per state) and the heatmaps of a
/// one-cop table without the game section colour what those of the same
/// game solved with `--cops 1` colour; on a two-cop table a game's frames
/// draw both cops (a GIF of them is written) and a heatmap fixing one cop
/// is refused, not drawn wrong.
#[test]
fn pictures_take_a_table_of_any_number_of_cops() {
    use retrograde::render::{
        cop_win_shares, game_frames, heatmap, last_cop_win_shares, write_gif,
    };
    let dir = temp_dir("krender-any");
    let one = dir.join("one.rtb");
    let two = dir.join("two.rtb");
    let any = dir.join("any.rtb");
    run_status(
        &[
            "solve",
            "-q",
            sample().to_str().unwrap(),
            "--save",
            one.to_str().unwrap(),
            "--dte-table",
        ],
        0,
    );
    solve(&sample(), "1", &any, &["--dte-table"]);
    solve(&sample(), "2", &two, &["--dte-table"]);
    let tb = Tablebase::open(&one).unwrap();
    let any = Tablebase::open(&any).unwrap();
    for turn in [Turn::Cop, Turn::Thief] {
        assert_eq!(
            cop_win_shares(&tb, turn).unwrap(),
            last_cop_win_shares(&tb, &[], turn).unwrap()
        );
        // The pictures differ in their titles (and so widths) only: the
        // map's cells are alike.
        let pairs = [
            (
                heatmap(&tb, &[(1, 1)], None, turn).unwrap(),
                heatmap(&any, &[(1, 1)], None, turn).unwrap(),
            ),
            (
                heatmap(&tb, &[], Some((5, 9)), turn).unwrap(),
                heatmap(&any, &[], Some((5, 9)), turn).unwrap(),
            ),
        ];
        for (a, b) in &pairs {
            let same = (0..9).all(|r| (0..16).all(|c| cell(a, 16, (r, c)) == cell(b, 16, (r, c))));
            assert!(
                same,
                "{turn:?}: the one-cop heatmap differs from the any-k one"
            );
        }
    }
    let tb = Tablebase::open(&two).unwrap();
    let cops = [
        tb.map_cell("cop", (1, 1)).unwrap(),
        tb.map_cell("cop", (7, 14)).unwrap(),
    ];
    let start = tb
        .position(&cops, tb.map_cell("thief", (5, 9)).unwrap(), Turn::Cop)
        .unwrap();
    let game = tb.optimal_game(&start, 100).unwrap();
    let frames = game_frames(&tb, &game).unwrap();
    assert_eq!(frames.len(), game.len());
    // The cops' blue on both their cells of the first frame.
    // A frame's map starts at the margin, without a title line; the
    // piece's letter is white, so look beside the centre.
    let s = (640 / 16usize).clamp(2, 24).max(6);
    let piece = |(r, c): (usize, usize)| pixel(&frames[0], MARGIN + c * s + 4, MARGIN + r * s + 4);
    assert_eq!(piece((1, 1)), COP);
    assert_eq!(piece((7, 14)), COP);
    let mut gif = Vec::new();
    write_gif(&frames, &mut gif).unwrap();
    assert!(gif.starts_with(b"GIF89a"));
    assert!(heatmap(&tb, &[(1, 1)], None, Turn::Cop).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The colour of pixel `(x, y)` of a library image.
fn pixel(img: &retrograde::render::Image, x: usize, y: usize) -> [u8; 3] {
    let i = 3 * (y * img.width + x);
    [img.rgb[i], img.rgb[i + 1], img.rgb[i + 2]]
}

/// The colour at the centre of map cell `(r, c)` of a heatmap or overview
/// of a map `cols` wide and at most as high.
fn cell(img: &retrograde::render::Image, cols: usize, (r, c): (usize, usize)) -> [u8; 3] {
    let s = (640 / cols).clamp(2, 24);
    pixel(img, MARGIN + c * s + s / 2, MARGIN + 16 + r * s + s / 2)
}
