//! Issue 23's friction points, through the binary: `render` draws in the
//! page's colours, with no distance legend for a values-only table, rim
//! exits visible on big maps, the overview's title inside the picture and
//! a refused non-PNG name; `play --moves` (the default on big maps) and
//! passes told as passes; a start that is already over says why; man
//! pages carry EXAMPLES and EXIT STATUS.

use std::path::{Path, PathBuf};

use retrograde::Tablebase;

use crate::support::picture::render;
use crate::support::temp_dir;
use crate::support::{make_table, run_refused, run_status, stdout};

/// A colour of web/style.css's `:root` (`--cop: #2f6fdc`).
fn page_colour(name: &str) -> [u8; 3] {
    let css = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/style.css"))
        .unwrap();
    let at = css.find(&format!("--{name}: #")).expect(name) + name.len() + 5;
    let hex = &css[at..at + 6];
    let byte = |k: usize| u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap();
    [byte(0), byte(1), byte(2)]
}

// The picture's layout (src/render): a margin, a 16-pixel title line,
// the map, a margin, legend rows of 20 pixels with 14-pixel swatches.
const MARGIN: usize = 10;
const WHITE: [u8; 3] = [255, 255, 255];

/// A `rows x cols` map of walls with one free room (rows `r0..=r1`,
/// columns `c0..=c1`), as seed text.
fn room_map(dir: &Path, name: &str, size: (usize, usize), room: [usize; 4]) -> PathBuf {
    let [r0, r1, c0, c1] = room;
    let mut text = format!("{} {}\n", size.0, size.1);
    for r in 0..size.0 {
        for c in 0..size.1 {
            let free = (r0..=r1).contains(&r) && (c0..=c1).contains(&c);
            text.push(if free { '.' } else { '#' });
        }
        text.push('\n');
    }
    let path = dir.join(format!("{name}.txt"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn render_uses_the_page_colours_and_a_legend_only_for_distances() {
    let dir = temp_dir("friction-render");
    let with = make_table(&dir, "with", &["data/maps/sample.txt"], true);
    let without = make_table(&dir, "without", &["data/maps/sample.txt"], false);
    let a = render(&with, &dir.join("a.png"), &["--cop", "1,1"]);
    let b = render(&without, &dir.join("b.png"), &["--cop", "1,1"]);
    // Sample: 9 x 16 cells of 24 pixels.
    let legend = MARGIN + 16 + 9 * 24 + MARGIN;
    for (k, name) in ["cop", "thief", "draw"].iter().enumerate() {
        let swatch = (MARGIN + 7, legend + 20 * k + 7);
        assert_eq!(
            a.at(swatch.0, swatch.1),
            page_colour(name),
            "{name}'s swatch"
        );
        assert_eq!(
            b.at(swatch.0, swatch.1),
            page_colour(name),
            "{name}'s swatch"
        );
    }
    assert_eq!(a.height, legend + 20 * 6 + MARGIN, "distance legend row");
    assert_eq!(
        b.height,
        legend + 20 * 5 + MARGIN,
        "a values-only table has no distance legend row"
    );
    // The overview runs from the thief's colour (0%) to the cop's (100%).
    let o = render(&with, &dir.join("o.png"), &["--overview"]);
    let bar = MARGIN + 16 + 9 * 24 + MARGIN + 8;
    let close = |a: [u8; 3], b: [u8; 3]| (0..3).all(|i| a[i].abs_diff(b[i]) <= 2);
    assert!(close(o.at(MARGIN + 1, bar), page_colour("thief")));
    assert!(close(o.at(MARGIN + 254, bar), page_colour("cop")));
    // The title (wider than this map) ends inside the picture with its
    // margin kept.
    let title = MARGIN..MARGIN + 10;
    let inked = |x: usize| title.clone().any(|y| o.at(x, y) != WHITE);
    assert!(
        (o.width - MARGIN..o.width).all(|x| !inked(x)),
        "title runs into the right margin"
    );
    assert!(
        (o.width - 2 * MARGIN..o.width - MARGIN).any(inked),
        "the picture is as wide as its title"
    );
}

#[test]
fn render_draws_every_exit_on_small_cells() {
    let dir = temp_dir("friction-rim");
    // 200 columns: 3 pixels per cell, too small for an outline.
    let map = room_map(&dir, "room", (200, 200), [97, 103, 40, 160]);
    let table = make_table(
        &dir,
        "room",
        &[map.to_str().unwrap(), "--exits", "rim"],
        true,
    );
    let tb = Tablebase::open(&table).unwrap();
    let exit = page_colour("exit");
    for what in [&["--cop", "100,100"][..], &["--overview"][..]] {
        let p = render(&table, &dir.join("room.png"), what);
        let (mut exits, mut others) = (0, 0);
        for r in 0..200 {
            for c in 0..200 {
                if tb.cell_at((r, c)).is_none() || (r, c) == (100, 100) {
                    continue;
                }
                // Every pixel of the cell, not one corner.
                let all_green = (0..3).all(|dy| {
                    (0..3).all(|dx| p.at(MARGIN + 3 * c + dx, MARGIN + 16 + 3 * r + dy) == exit)
                });
                if tb.is_exit(tb.cell_at((r, c)).unwrap()) {
                    assert!(all_green, "{what:?}: exit {r},{c} not drawn");
                    exits += 1;
                } else {
                    assert!(!all_green, "{what:?}: {r},{c} is no exit");
                    others += 1;
                }
            }
        }
        assert!(
            exits > 100 && others > 100,
            "{exits} exits, {others} others"
        );
    }
}

#[test]
fn render_refuses_names_of_other_formats() {
    let dir = temp_dir("friction-ext");
    let table = make_table(&dir, "t", &["data/maps/sample.txt"], true);
    for name in ["x.jpg", "x.gif", "x.JPEG", "x.png.webp"] {
        let out = dir.join(name);
        let err = run_refused(
            &[
                "render",
                table.to_str().unwrap(),
                "--overview",
                "--out",
                out.to_str().unwrap(),
            ],
            "PNG",
        );
        assert!(err.contains(name), "{err}");
        assert!(!out.exists(), "{name} written");
    }
    // Any case of .png is PNG.
    render(&table, &dir.join("x.PNG"), &["--overview"]);
}

/// `1 x 3`, `C.T`, no exit: the cop steps next to the thief, who can only
/// pass (or step onto the cop): the optimal game has a pass.
fn corridor(dir: &Path) -> PathBuf {
    let map = dir.join("corridor.txt");
    std::fs::write(&map, "1 3\nC.T\n").unwrap();
    make_table(dir, "corridor", &[map.to_str().unwrap()], true)
}

#[test]
fn play_moves_prints_one_line_per_ply_and_passes_as_passes() {
    let dir = temp_dir("friction-play");
    let table = corridor(&dir);
    let t = table.to_str().unwrap();
    let text = stdout(&run_status(&["play", t, "--moves"], 0));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "plies 0 to 3 and the ending: {text}");
    assert!(
        lines[0].starts_with("ply 0: start; cop to move (cop 0,0, thief 0,2)"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("ply 1: the cop moves 0,0 -> 0,1; thief to move"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("ply 2: the thief passes; cop to move"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("ply 3: the cop moves 0,1 -> 0,2"),
        "{text}"
    );
    assert!(lines[4].contains("catches"), "{text}");
    // Small maps keep the board by default.
    let boards = stdout(&run_status(&["play", t], 0));
    assert!(boards.lines().any(|l| l == "C.T"), "{boards}");
    // The table's own pass in interactive play.
    let output = crate::support::run(
        &["play", t, "--interactive", "--side", "cop"],
        Some(b"0,1\n0,2\n"),
    );
    let text = stdout(&output);
    assert!(text.contains("the thief passes"), "{text}");
    assert!(!text.contains("moves to 0,2"), "{text}");
}

#[test]
fn play_on_a_big_map_prints_moves_unless_asked() {
    let dir = temp_dir("friction-big-play");
    let map = room_map(&dir, "hall", (60, 120), [10, 40, 10, 100]);
    let table = make_table(
        &dir,
        "hall",
        &[map.to_str().unwrap(), "--exit", "40,100"],
        true,
    );
    let t = table.to_str().unwrap();
    let args = ["play", t, "--cop", "10,10", "--thief", "25,50"];
    let text = stdout(&run_status(&args, 0));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("note: the map is 60 x 120"), "{text}");
    let plies = lines.iter().filter(|l| l.starts_with("ply ")).count();
    assert!(plies > 2, "{text}");
    assert_eq!(lines.len(), plies + 2, "note, plies, ending: {text}");
    let boards = stdout(&run_status(&[&args[..], &["--board"]].concat(), 0));
    assert_eq!(boards.lines().count(), plies * 61 + 1, "{boards}");
}

#[test]
fn a_start_already_over_says_why() {
    let dir = temp_dir("friction-over");
    let map = dir.join("m.txt");
    std::fs::write(&map, "1 3\nC.T\n").unwrap();
    let m = map.to_str().unwrap();
    let text = stdout(&run_status(&["solve", m, "--exit", "0,2"], 0));
    assert!(
        text.starts_with("result: thief-escapes in 0 plies (the thief starts on an exit)\n"),
        "{text}"
    );
}

#[test]
fn man_pages_have_examples_and_exit_status() {
    let main = stdout(&run_status(&["man"], 0));
    assert!(main.contains(".SH EXAMPLES"), "{main}");
    assert!(main.contains(".SH \"EXIT STATUS\""), "{main}");
    assert!(
        main.contains("retrograde solve data/maps/sample.txt"),
        "{main}"
    );
    let dir = temp_dir("friction-man");
    run_status(&["man", "--out-dir", dir.to_str().unwrap()], 0);
    let mut pages = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(page.contains(".SH \"EXIT STATUS\""), "{name}");
        assert!(page.contains(".SH EXAMPLES"), "{name}");
        // Each example of a subcommand's page runs that subcommand.
        if let Some(sub) = name
            .strip_prefix("retrograde-")
            .and_then(|n| n.strip_suffix(".1"))
        {
            assert!(
                page.contains(&format!("retrograde {}", sub.replace('-', "\\-"))),
                "{name}"
            );
        }
        pages += 1;
    }
    assert!(pages > 10, "{pages} pages");
}
