//! The page of `retrograde serve` on several-cops tables in a real
//! headless Chromium (`cdp.rs`): clicks place cop 1 .. cop K and the
//! thief on a two-cop map, the value, rated moves, heatmap and optimal
//! game are checked against `query`; a graph's table (the Petersen graph)
//! is drawn as a circle of vertices. Without Chromium the test says it was
//! skipped and why. The one-cop page, and the panel helpers both use,
//! are `browser.rs`.

use std::path::Path;
use std::time::Duration;

use serde_json::Value as Json;

use super::{
    assert_matches, click, click_cell, corner_pixel, open_page, search, settle_on_text, shown,
    Shown,
};
use crate::cdp::{chromium_or_skip, Chromium};
use crate::serve::{make_table, Server};
use crate::support::temp_dir;

/// `query` of the several-cops position `line` (`C1 .. Ck T turn`).
fn kquery(table: &Path, line: &str) -> Json {
    crate::support::query_json(table, &[line.to_string()])
        .pop()
        .unwrap()
}

// Ignored by default so that a run without Chromium reports it as not
// run ("ignored") instead of passed; `--ignored` runs it.
#[test]
#[ignore = "drives headless Chromium: cargo test --release --test it -- --ignored browser (CI runs it; without Chromium it says it skipped)"]
fn serve_page_shows_several_cops_in_headless_chromium() {
    let Some(binary) = chromium_or_skip("serve_page_shows_several_cops_in_headless_chromium")
    else {
        return;
    };
    let dir = temp_dir("serve-page-kcops");
    let map = dir.join("two.txt");
    std::fs::write(&map, "5 6\n......\n.##...\n......\n...#..\n.....E\n").unwrap();
    let two = dir.join("two.rtb");
    let m = map.to_str().unwrap();
    crate::support::run_status(
        &[
            "solve",
            "-q",
            m,
            "--cops",
            "2",
            "--cop",
            "0,0",
            "--cop",
            "4,0",
            "--thief",
            "2,3",
            "--dte-table",
            "--save",
            two.to_str().unwrap(),
        ],
        0,
    );
    let petersen = dir.join("petersen.rtb");
    crate::support::run_status(
        &[
            "solve",
            "-q",
            "data/graphs/petersen.txt",
            "--graph",
            "--cops",
            "2",
            "--dte-table",
            "--save",
            petersen.to_str().unwrap(),
        ],
        0,
    );
    let one = make_table(&dir, "one", &["data/maps/sample.txt"], true);
    let server = Server::start(&[&two, &petersen, &one], &[]);
    let mut browser = open_page(&binary, &dir, &server);

    // The start of the two-cop table, as `query` sees it; the address
    // names both cops.
    let s = settle_on_text(&mut browser, "cops 0,0 4,0 · thief 2,3 · cop to move");
    assert_matches(&s, &kquery(&two, "0,0 4,0 2,3 cop"));
    assert_eq!(
        search(&mut browser),
        "?table=two&cop=0,0&cop=4,0&thief=2,3&turn=cop"
    );
    let info = shown_text(&mut browser, "table-info");
    assert!(info.contains("2 cops"), "{info}");

    // Clicks place cop 1, cop 2, then the thief.
    click_cell(&mut browser, (2, 0));
    click_cell(&mut browser, (0, 5));
    click_cell(&mut browser, (4, 2));
    let s = settle_on_text(&mut browser, "cops 0,5 2,0 · thief 4,2 · cop to move");
    assert_matches(&s, &kquery(&two, "2,0 0,5 4,2 cop"));
    click(&mut browser, "#turn");
    let s = settle_on_text(&mut browser, "cops 0,5 2,0 · thief 4,2 · thief to move");
    assert_matches(&s, &kquery(&two, "2,0 0,5 4,2 thief"));

    // The heatmap: each thief cell coloured by who wins with both cops
    // held still.
    let mut seen = [0usize; 2];
    for (r, c) in [
        (0, 1),
        (0, 3),
        (2, 2),
        (2, 5),
        (3, 1),
        (4, 4),
        (1, 4),
        (3, 5),
    ] {
        let want = kquery(&two, &format!("2,0 0,5 {r},{c} thief"));
        let thief_wins = want["value"] == "win";
        let [red, _, blue] = corner_pixel(&mut browser, (r, c));
        let (red, blue) = (i32::from(red), i32::from(blue));
        if want["value"] == "draw" {
            assert!((red - blue).abs() < 30, "{r},{c}: draw but {red},{blue}");
            continue;
        } else if thief_wins {
            assert!(red > blue + 20, "{r},{c}: thief wins but {red},{blue}");
        } else {
            assert!(blue > red + 20, "{r},{c}: cops win but {red},{blue}");
        }
        seen[usize::from(thief_wins)] += 1;
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both colours checked: {seen:?}");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(tmp.join("serve-kcops.png"), browser.screenshot().unwrap()).unwrap();

    // A move from the list is played; the optimal game steps forward.
    browser.click_element("#moves li").unwrap();
    browser
        .wait_for(
            "!retrograde.busy() && document.getElementById('where').textContent.endsWith('cop to move') \
             && document.getElementById('value').textContent !== ''",
            Duration::from_secs(10),
        )
        .unwrap();
    // Twenty rated moves push the game's buttons below the panel's fold.
    browser
        .eval("document.getElementById('forward').scrollIntoView({ block: 'nearest' })")
        .unwrap();
    click(&mut browser, "#forward");
    browser
        .wait_for(
            "!retrograde.busy() && retrograde.state.game \
             && document.getElementById('game-info').textContent.startsWith('ply ') \
             && document.getElementById('value').textContent !== ''",
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| {
            let game = browser.eval("JSON.stringify(retrograde.state.game)");
            panic!("{e}; panel: {:?}; game {game:?}", shown(&mut browser))
        });
    let (pieces, s) = k_position_line(&mut browser);
    assert_matches(&s, &kquery(&two, &pieces));

    // A graph: vertex ids from a link, clicks on vertices.
    browser
        .navigate(
            &format!(
                "{}?table=petersen&cop=0&cop=5&thief=3&turn=thief",
                server.url()
            ),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('value').textContent !== ''",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let s = settle_on_text(&mut browser, "cops 0 5 · thief 3 · thief to move");
    assert_matches(&s, &kquery(&petersen, "0 5 3 thief"));
    let at = browser.eval("retrograde.vertexCenter(7)").unwrap();
    browser
        .click(at["x"].as_f64().unwrap(), at["y"].as_f64().unwrap())
        .unwrap();
    let s = settle_on_text(&mut browser, "cops 5 7 · thief 3 · thief to move");
    assert_matches(&s, &kquery(&petersen, "7 5 3 thief"));
    std::fs::write(tmp.join("serve-kgraph.png"), browser.screenshot().unwrap()).unwrap();

    // Back to a one-cop table: its own controls and answers.
    browser
        .navigate(
            &format!("{}?table=one", server.url()),
            "window.retrograde !== undefined && !retrograde.busy() \
             && document.getElementById('value').textContent !== ''",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let hidden = browser
        .eval("[document.getElementById('place-one').hidden, document.getElementById('place-k').hidden]")
        .unwrap();
    assert_eq!(hidden, serde_json::json!([false, true]));
    assert_eq!(shown(&mut browser).error, "");
}

/// An element's text.
fn shown_text(browser: &mut Chromium, id: &str) -> String {
    let v = browser
        .eval(&format!("document.getElementById({id:?}).textContent"))
        .unwrap();
    v.as_str().unwrap().to_string()
}

/// The position on the page as a `query --stdin` line, and the panel.
fn k_position_line(browser: &mut Chromium) -> (String, Shown) {
    let v = browser
        .eval(
            "(() => { const f = (c) => Array.isArray(c) ? c.join(',') : String(c); \
               return [...retrograde.state.cops.map(f), f(retrograde.state.thief), \
                 retrograde.state.turn].join(' '); })()",
        )
        .unwrap();
    (v.as_str().unwrap().to_string(), shown(browser))
}
