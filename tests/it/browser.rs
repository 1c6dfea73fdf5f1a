//! The page of `retrograde serve` in a real headless Chromium (driven over
//! the DevTools protocol, `cdp.rs`): it loads, shows the start's value,
//! steps through and autoplays the optimal game, places pieces by clicking
//! cells, toggles the player to move and draws the heatmap, every shown
//! value checked against `query`; the cell under the pointer is named,
//! the address follows the position and opens it again (deep links), and
//! the pieces stay visible, labelled discs on a map of a million cells. Saves a screenshot (target/serve.png;
//! with RETROGRADE_UPDATE_SCREENSHOT=1 also docs/serve.png, shown by README).
//! Ignored by `cargo test` (`-- --ignored browser` runs it, as CI does),
//! so that no run counts it as passed without Chromium; run so without
//! Chromium it says it was skipped and why. The same page on
//! several-cops tables, through the same panel helpers, is
//! `browser/kcops.rs`.

use std::path::Path;
use std::time::Duration;

use serde_json::Value as Json;

use crate::cdp::{chromium_or_skip, Chromium};
use crate::http::Client;
use crate::serve::{cli_query, make_table, Grid, Position, Server};
use crate::support::{temp_dir, Rng};

/// The page on several-cops tables.
mod kcops;

/// What the panel shows.
#[derive(Debug)]
pub(crate) struct Shown {
    pub(crate) value: String,
    pub(crate) dte: String,
    pub(crate) moves: usize,
    pub(crate) error: String,
    pub(crate) game: String,
}

const SHOWN: &str = "(() => ({
    value: document.getElementById('value').textContent,
    dte: document.getElementById('dte').textContent,
    moves: document.querySelectorAll('#moves li').length,
    error: document.getElementById('error').textContent,
    game: document.getElementById('game-info').textContent,
}))()";

pub(crate) fn shown(browser: &mut Chromium) -> Shown {
    let v = browser.eval(SHOWN).expect("read the panel");
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    Shown {
        value: s("value"),
        dte: s("dte"),
        moves: v["moves"].as_u64().unwrap_or(0) as usize,
        error: s("error"),
        game: s("game"),
    }
}

/// Chromium at `binary` (its profile in `dir`) on `server`'s page, once
/// the page has loaded and shows its first value.
pub(crate) fn open_page(binary: &Path, dir: &Path, server: &Server) -> Chromium {
    let mut browser = Chromium::launch(binary, &dir.join("profile"), 1280, 720)
        .unwrap_or_else(|e| panic!("Chromium at {}: {e}", binary.display()));
    browser
        .navigate(
            &server.url(),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('value').textContent !== ''",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    browser
}

/// Waits until no answer is pending and the panel names `p`.
fn settle_on(browser: &mut Chromium, p: &Position) -> Shown {
    let place = format!(
        "cop {},{} · thief {},{} · {} to move",
        p.cop.0, p.cop.1, p.thief.0, p.thief.1, p.turn
    );
    settle_on_text(browser, &place)
}

/// Waits until no answer is pending and the panel shows a value for the
/// position `where_` names (`cop 0,0 · thief 1,2 · cop to move`, or with
/// several cops `cops 0,0 2,0 · thief 1,2 · cop to move`).
pub(crate) fn settle_on_text(browser: &mut Chromium, where_: &str) -> Shown {
    browser
        .wait_for(
            &format!(
                "!retrograde.busy() && document.getElementById('where').textContent === {where_:?} \
                 && document.getElementById('value').textContent !== ''"
            ),
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("{e}; panel: {:?}", shown(browser)));
    shown(browser)
}

/// The panel agrees with `query`'s answer.
#[track_caller]
pub(crate) fn assert_matches(shown: &Shown, want: &Json) {
    assert_eq!(shown.value, want["value"].as_str().unwrap(), "{shown:?}");
    let dte = want["dte"]
        .as_u64()
        .map_or(String::new(), |d| d.to_string());
    assert_eq!(shown.dte, dte, "{shown:?}");
    assert_eq!(
        shown.moves,
        want["moves"].as_array().unwrap().len(),
        "{shown:?}"
    );
    assert_eq!(shown.error, "", "{shown:?}");
}

pub(crate) fn click_cell(browser: &mut Chromium, (r, c): (usize, usize)) {
    let at = browser
        .eval(&format!("retrograde.cellCenter({r}, {c})"))
        .unwrap();
    browser
        .click(at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap())
        .unwrap();
}

pub(crate) fn click(browser: &mut Chromium, selector: &str) {
    browser.click_element(selector).unwrap();
}

/// The address's query string.
pub(crate) fn search(browser: &mut Chromium) -> String {
    let v = browser.eval("location.search").unwrap();
    v.as_str().unwrap().to_string()
}

/// The link to position `p` of `table`.
fn link(table: &str, p: &Position) -> String {
    format!(
        "?table={table}&cop={},{}&thief={},{}&turn={}",
        p.cop.0, p.cop.1, p.thief.0, p.thief.1, p.turn
    )
}

/// Moves the pointer over a cell and returns what the panel says of it.
fn hover_cell(browser: &mut Chromium, (r, c): (usize, usize)) -> String {
    let at = browser
        .eval(&format!("retrograde.cellCenter({r}, {c})"))
        .unwrap();
    browser
        .hover(at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap())
        .unwrap();
    let text = browser
        .wait_for(
            &format!(
                "(() => {{ const t = document.getElementById('hover').textContent;                    return t.startsWith('cell {r},{c}') && t; }})()"
            ),
            Duration::from_secs(5),
        )
        .unwrap();
    text.as_str().unwrap().to_string()
}

/// The canvas pixel `dx` CSS pixels right of a cell's centre.
fn beside_centre(browser: &mut Chromium, (r, c): (usize, usize), dx: f64) -> [u8; 3] {
    let rgba = browser
        .eval(&format!(
            "(() => {{ const k = retrograde.state.cell, d = window.devicePixelRatio || 1;                const px = document.getElementById('board').getContext('2d')                  .getImageData(Math.floor(((({c}) + 0.5) * k + {dx}) * d),                    Math.floor(((({r}) + 0.5) * k) * d), 1, 1).data;                return [px[0], px[1], px[2]]; }})()"
        ))
        .unwrap();
    let px = |i: usize| rgba[i].as_u64().unwrap() as u8;
    [px(0), px(1), px(2)]
}

/// The canvas pixel 3 CSS pixels inside a cell's top-left corner: away
/// from the pieces and move markers drawn at its centre.
pub(crate) fn corner_pixel(browser: &mut Chromium, (r, c): (usize, usize)) -> [u8; 3] {
    let rgba = browser
        .eval(&format!(
            "(() => {{ const k = retrograde.state.cell * (window.devicePixelRatio || 1); \
               const d = document.getElementById('board').getContext('2d') \
                 .getImageData(Math.floor({c} * k) + 3, Math.floor({r} * k) + 3, 1, 1).data; \
               return [d[0], d[1], d[2]]; }})()"
        ))
        .unwrap();
    let px = |i: usize| rgba[i].as_u64().unwrap() as u8;
    [px(0), px(1), px(2)]
}

// Ignored by default so that a run without Chromium reports it as not
// run ("ignored") instead of passed; `--ignored` runs it.
#[test]
#[ignore = "drives headless Chromium: cargo test --release --test it -- --ignored browser (CI runs it; without Chromium it says it skipped)"]
fn serve_page_in_headless_chromium() {
    let Some(binary) = chromium_or_skip("serve_page_in_headless_chromium") else {
        return;
    };
    let dir = temp_dir("serve-page");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], true);
    let maze = make_table(
        &dir,
        "maze",
        &[
            "data/maps/movingai/maze-32-32-2.map",
            "--exits",
            "random:4:2",
        ],
        true,
    );
    // A 1024 x 1024 map, walls but for one corridor: the page draws it
    // at under a pixel per cell.
    let big_map = dir.join("big.txt");
    let mut text = String::from("1024 1024\n");
    for r in 0..1024 {
        let mut line = vec![b'#'; 1024];
        if r == 512 {
            line[480..=540].fill(b'.');
            line[480] = b'C';
            line[530] = b'T';
            line[540] = b'E';
        }
        text.push_str(std::str::from_utf8(&line).unwrap());
        text.push('\n');
    }
    std::fs::write(&big_map, text).unwrap();
    let big = make_table(&dir, "big", &[big_map.to_str().unwrap()], true);
    let server = Server::start(&[&table, &maze, &big], &[]);
    let mut client = Client::new(server.addr);
    let grid = Grid::fetch(&server, &mut client, "sample");
    let tables = server.json(&mut client, "/api/tables");
    let start = Position::from_json(&tables["tables"][0]["start"]);

    let mut browser = open_page(&binary, &dir, &server);

    // The start, as `query` sees it.
    let shown_start = settle_on(&mut browser, &start);
    assert_matches(&shown_start, &cli_query(&table, &[start])[0]);
    assert_eq!(
        search(&mut browser),
        link("sample", &start),
        "the address follows"
    );

    // The pointer over a cell names it (and says wall or exit).
    let exit = grid
        .lines
        .iter()
        .enumerate()
        .find_map(|(r, l)| l.iter().position(|&c| c == b'E').map(|c| (r, c)))
        .unwrap();
    assert_eq!(hover_cell(&mut browser, (0, 0)), "cell 0,0 (wall)");
    assert_eq!(
        hover_cell(&mut browser, exit),
        format!("cell {},{} (exit)", exit.0, exit.1)
    );
    let free = grid.free[grid.free.len() / 2];
    if grid.lines[free.0][free.1] != b'E' {
        assert_eq!(
            hover_cell(&mut browser, free),
            format!("cell {},{}", free.0, free.1)
        );
    }

    // The optimal game: forward, to the end, back, to the start, autoplay;
    // each shown position is the served game's and `query`'s value.
    let game = server.json(
        &mut client,
        &format!(
            "/api/play?table=sample&cop={},{}&thief={},{}&turn={}",
            start.cop.0, start.cop.1, start.thief.0, start.thief.1, start.turn
        ),
    );
    assert_eq!(game["schema"], 1, "/api/play carries the schema");
    let positions: Vec<Position> = game["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(Position::from_json)
        .collect();
    let plies = positions.len() - 1;
    assert!(plies >= 4, "the sample game is long enough to step through");
    let answers = cli_query(&table, &positions);
    let expect_step = |browser: &mut Chromium, button: &str, ply: usize| {
        click(browser, button);
        let s = settle_on(browser, &positions[ply]);
        assert_matches(&s, &answers[ply]);
        assert!(
            s.game.starts_with(&format!("ply {ply} of {plies}")),
            "{button}: {s:?}"
        );
    };
    expect_step(&mut browser, "#forward", 1);
    assert_eq!(search(&mut browser), link("sample", &positions[1]));
    expect_step(&mut browser, "#forward", 2);
    expect_step(&mut browser, "#back", 1);
    expect_step(&mut browser, "#last", plies);
    expect_step(&mut browser, "#back", plies - 1);
    expect_step(&mut browser, "#first", 0);
    let page_game = browser.eval("retrograde.state.game").unwrap();
    assert_eq!(page_game, game, "the page plays the served game");
    click(&mut browser, "#auto");
    browser
        .wait_for(
            &format!(
                "document.getElementById('game-info').textContent.startsWith('ply {plies} of') \
                 && document.getElementById('auto').textContent === 'autoplay' \
                 && !retrograde.busy()"
            ),
            Duration::from_secs(30),
        )
        .unwrap();
    assert_matches(&settle_on(&mut browser, &positions[plies]), &answers[plies]);

    // A picture for README: mid-game, heatmap on, trails drawn.
    click(&mut browser, "#first");
    settle_on(&mut browser, &positions[0]);
    for position in &positions[1..=plies / 2] {
        click(&mut browser, "#forward");
        settle_on(&mut browser, position);
    }
    let png = browser.screenshot().unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve.png");
    std::fs::write(&target, &png).unwrap();
    if std::env::var_os("RETROGRADE_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/serve.png");
        std::fs::write(&docs, &png).unwrap();
    }

    // Clicks place pieces: the thief on random cells, then the cop, then
    // the other player to move; each shown value is `query`'s.
    let mut rng = Rng::new(1414);
    let mut here = positions[plies / 2];
    click(&mut browser, "input[name=place][value=thief]");
    for _ in 0..4 {
        here.thief = grid.free[rng.below(grid.free.len())];
        click_cell(&mut browser, here.thief);
        let s = settle_on(&mut browser, &here);
        assert_matches(&s, &cli_query(&table, &[here])[0]);
        assert!(
            s.game.starts_with("no game"),
            "placing ends the game: {s:?}"
        );
    }
    click(&mut browser, "input[name=place][value=cop]");
    for _ in 0..3 {
        here.cop = grid.free[rng.below(grid.free.len())];
        click_cell(&mut browser, here.cop);
        assert_matches(
            &settle_on(&mut browser, &here),
            &cli_query(&table, &[here])[0],
        );
    }
    click(&mut browser, "#turn");
    here.turn = if here.turn == "cop" { "thief" } else { "cop" };
    assert_matches(
        &settle_on(&mut browser, &here),
        &cli_query(&table, &[here])[0],
    );

    // The heatmap (cop held still) colours each thief cell by who wins:
    // blue for the cop, orange for the thief, grey for a draw.
    let row: Vec<Position> = grid
        .free
        .iter()
        .map(|&thief| Position { thief, ..here })
        // Pieces sit on their cells and exits have a green frame.
        .filter(|p| p.thief != here.thief && p.thief != here.cop)
        .filter(|p| grid.lines[p.thief.0][p.thief.1] != b'E')
        .collect();
    let values = cli_query(&table, &row);
    let mut seen = [0usize; 3];
    for (p, want) in row.iter().zip(&values).step_by(3) {
        let value = want["value"].as_str().unwrap();
        let winner = match value {
            "win" => here.turn,
            "loss" if here.turn == "cop" => "thief",
            "loss" => "cop",
            _ => "draw",
        };
        let [r, g, b] = corner_pixel(&mut browser, p.thief);
        let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
        match winner {
            "cop" => assert!(b > r + 20, "{p:?}: cop wins but pixel {r},{g},{b}"),
            "thief" => assert!(r > b + 20, "{p:?}: thief wins but pixel {r},{g},{b}"),
            _ => assert!((r - b).abs() < 30, "{p:?}: draw but pixel {r},{g},{b}"),
        }
        seen[["cop", "thief", "draw"]
            .iter()
            .position(|w| *w == winner)
            .unwrap()] += 1;
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both colours checked: {seen:?}");

    // The thief held still: the heatmap colours every cop cell.
    click(&mut browser, "input[name=heat][value=thief]");
    settle_on(&mut browser, &here);
    let column: Vec<Position> = grid
        .free
        .iter()
        .map(|&cop| Position { cop, ..here })
        .filter(|p| p.cop != here.thief && p.cop != here.cop)
        .filter(|p| grid.lines[p.cop.0][p.cop.1] != b'E')
        .collect();
    let values = cli_query(&table, &column);
    for (p, want) in column.iter().zip(&values).step_by(2) {
        let [r, _, b] = corner_pixel(&mut browser, p.cop);
        let (r, b) = (i32::from(r), i32::from(b));
        let cop_wins = (want["value"] == "win") == (here.turn == "cop");
        match want["value"].as_str().unwrap() {
            "draw" => assert!((r - b).abs() < 30, "{p:?}: draw but {r},{b}"),
            _ if cop_wins => assert!(b > r + 20, "{p:?}: cop wins but {r},{b}"),
            _ => assert!(r > b + 20, "{p:?}: thief wins but {r},{b}"),
        }
    }

    // A wall is refused with a message.
    let wall = grid
        .lines
        .iter()
        .enumerate()
        .find_map(|(r, l)| l.iter().position(|&c| c == b'#').map(|c| (r, c)))
        .unwrap();
    click_cell(&mut browser, wall);
    browser
        .wait_for(
            "document.getElementById('error').textContent.includes('wall')",
            Duration::from_secs(5),
        )
        .unwrap();

    // The picker switches tables; with no start on the map the pieces are
    // placed by clicks.
    browser
        .eval(
            "(() => { const s = document.getElementById('table'); s.value = 'maze'; \
               s.dispatchEvent(new Event('change')); })()",
        )
        .unwrap();
    browser
        .wait_for(
            "!document.getElementById('table-row').hidden && !retrograde.busy() \
             && document.getElementById('table-info').textContent.startsWith('32 x 32')",
            Duration::from_secs(10),
        )
        .unwrap();
    let maze_grid = Grid::fetch(&server, &mut client, "maze");
    let mut at = Position {
        cop: maze_grid.free[rng.below(maze_grid.free.len())],
        thief: maze_grid.free[rng.below(maze_grid.free.len())],
        turn: "cop",
    };
    click(&mut browser, "input[name=place][value=cop]");
    click_cell(&mut browser, at.cop);
    click(&mut browser, "input[name=place][value=thief]");
    click_cell(&mut browser, at.thief);
    assert_matches(&settle_on(&mut browser, &at), &cli_query(&maze, &[at])[0]);
    click(&mut browser, "#forward");
    let game = browser
        .wait_for(
            "!retrograde.busy() && retrograde.state.game",
            Duration::from_secs(10),
        )
        .unwrap();
    if game["positions"].as_array().unwrap().len() > 1 {
        at = Position::from_json(&game["positions"][1]);
        assert_matches(&settle_on(&mut browser, &at), &cli_query(&maze, &[at])[0]);
    }

    // The largest map: drawn, and a click lands on a corridor cell whose
    // shown value is `query`'s.
    browser
        .eval(
            "(() => { const s = document.getElementById('table'); s.value = 'big'; \
               s.dispatchEvent(new Event('change')); })()",
        )
        .unwrap();
    browser
        .wait_for(
            "!retrograde.busy() && document.getElementById('table-info').textContent \
               .startsWith('1024 x 1024') && document.getElementById('value').textContent !== ''",
            Duration::from_secs(20),
        )
        .unwrap();
    let size = browser
        .eval("[document.getElementById('board').clientWidth, retrograde.state.cell]")
        .unwrap();
    assert!(
        size[1].as_f64().unwrap() < 1.0,
        "under a pixel per cell: {size}"
    );
    click(&mut browser, "input[name=place][value=thief]");
    click_cell(&mut browser, (512, 510));
    let placed = browser
        .wait_for(
            "!retrograde.busy() && retrograde.state.info && \
             retrograde.state.info.thief[1] !== 530 && retrograde.state.info",
            Duration::from_secs(10),
        )
        .unwrap();
    let here = Position::from_json(&placed);
    assert_eq!(here.thief.0, 512);
    assert!(
        (508..=512).contains(&here.thief.1),
        "clicked near 512,510: {here:?}"
    );
    assert_matches(
        &settle_on(&mut browser, &here),
        &cli_query(&big, &[here])[0],
    );
    // Under a pixel per cell, each piece is still a disc of its colour
    // (6 CSS pixels from its centre), labelled.
    let cop_rgb = [47u8, 111, 220];
    let thief_rgb = [224u8, 123, 34];
    let near = |a: [u8; 3], b: [u8; 3]| (0..3).all(|i| a[i].abs_diff(b[i]) <= 12);
    let px = beside_centre(&mut browser, here.cop, 6.0);
    assert!(near(px, cop_rgb), "cop disc at {:?}: {px:?}", here.cop);
    let px = beside_centre(&mut browser, here.thief, 6.0);
    assert!(
        near(px, thief_rgb),
        "thief disc at {:?}: {px:?}",
        here.thief
    );

    // Deep links: the address opens that table and position, and follows
    // the game from there.
    let deep = Position {
        cop: maze_grid.free[rng.below(maze_grid.free.len())],
        thief: maze_grid.free[rng.below(maze_grid.free.len())],
        turn: "thief",
    };
    browser
        .navigate(
            &format!("{}{}", server.url(), link("maze", &deep)),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('value').textContent !== ''",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let s = settle_on(&mut browser, &deep);
    assert_matches(&s, &cli_query(&maze, &[deep])[0]);
    assert_eq!(search(&mut browser), link("maze", &deep));
    click(&mut browser, "#forward");
    let game = browser
        .wait_for(
            "!retrograde.busy() && retrograde.state.game",
            Duration::from_secs(10),
        )
        .unwrap();
    if game["positions"].as_array().unwrap().len() > 1 {
        let next = Position::from_json(&game["positions"][1]);
        assert_matches(
            &settle_on(&mut browser, &next),
            &cli_query(&maze, &[next])[0],
        );
        assert_eq!(search(&mut browser), link("maze", &next));
    }
    // A bad link is named, and the table's start (or nothing) is shown.
    let wall = maze_grid
        .lines
        .iter()
        .enumerate()
        .find_map(|(r, l)| l.iter().position(|&c| c == b'#').map(|c| (r, c)))
        .unwrap();
    browser
        .navigate(
            &format!(
                "{}?table=maze&cop={},{}&turn=both",
                server.url(),
                wall.0,
                wall.1
            ),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('error').textContent.includes('turn=both')",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let error = shown(&mut browser).error;
    assert!(
        error.contains("is a wall") && error.contains("turn=both"),
        "{error}"
    );
    browser
        .navigate(
            &format!("{}?table=nope", server.url()),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('error').textContent.includes('nope')",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let error = shown(&mut browser).error;
    assert!(error.starts_with("link: no table named nope"), "{error}");
}
