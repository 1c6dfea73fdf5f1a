//! `retrograde serve` on several-cops tables (a map and a graph, with and
//! without distances, beside a one-cop table): `/api/query` equals `query
//! --json` state by state, whatever the order of the cops; `/api/row` is
//! the thief's column of those answers with every cop held still;
//! `/api/play` is a game of best moves; bad parameters get a 400 naming
//! them, and the server stays healthy. The server and the grid of a map
//! are `serve.rs`'s.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::{Grid, Server};
use crate::http::Client;
use crate::support::{make_table, query_json, temp_dir, Rng};

/// A 3 x 4 map with a wall and an exit: 11 free cells.
const MAP: &str = "3 4\n....\n.#..\n...E\n";

/// A cell as the tests name it: the API's text and `query`'s are the same.
type Cell = String;

/// The cells of a served table from `/api/map`: free cells `r,c` of a
/// map, vertex ids of a graph.
fn cells(server: &Server, client: &mut Client, table: &str) -> Vec<Cell> {
    let map = server.json(client, &format!("/api/map?table={table}"));
    assert_eq!(map["schema"], 1);
    if map["kind"] == "graph" {
        let n = map["vertices"].as_u64().unwrap();
        assert!(map["edges"].as_array().is_some_and(|e| !e.is_empty()));
        return (0..n).map(|v| v.to_string()).collect();
    }
    assert_eq!(map["kind"], "map");
    let grid = Grid::from_json(&map);
    grid.free.iter().map(|(r, c)| format!("{r},{c}")).collect()
}

fn api_path(endpoint: &str, table: &str, cops: &[Cell], rest: &str) -> String {
    let cops: String = cops.iter().map(|c| format!("&cop={c}")).collect();
    format!("/api/{endpoint}?table={table}{cops}{rest}")
}

/// A JSON cell as the tests' text.
fn cell_text(v: &Json) -> Cell {
    match v.as_array() {
        Some(rc) => format!("{},{}", rc[0], rc[1]),
        None => v.to_string(),
    }
}

/// The tables: (name, table, cops).
type Tables = Vec<(&'static str, PathBuf, usize)>;

/// The tables, solved in a fresh directory tagged `tag`, and a server of
/// them all.
fn serve_tables(tag: &str) -> (Tables, Server) {
    let dir = temp_dir(tag);
    let map = dir.join("small.txt");
    std::fs::write(&map, MAP).unwrap();
    let m = map.to_str().unwrap().to_string();
    let table = |name: &'static str, args: &[&str], k: usize, dte: bool| {
        (name, make_table(&dir, name, args, dte), k)
    };
    let tables = vec![
        table(
            "two",
            &[
                &m, "--cops", "2", "--cop", "0,0", "--cop", "2,0", "--thief", "1,2",
            ],
            2,
            true,
        ),
        table(
            "three",
            &[&m, "--cops", "3", "--thief-speed", "2"],
            3,
            false,
        ),
        table(
            "petersen",
            &["data/graphs/petersen.txt", "--graph", "--cops", "2"],
            2,
            true,
        ),
        table("one", &[&m], 1, true),
    ];
    let paths: Vec<&Path> = tables.iter().map(|(_, p, _)| p.as_path()).collect();
    let server = Server::start(&paths, &[]);
    (tables, server)
}

#[test]
fn serve_kcops_answers_equal_query() {
    let (tables, server) = serve_tables("serve-kcops");
    let mut client = Client::new(server.addr);
    let list = server.json(&mut client, "/api/tables");
    let entries = list["tables"].as_array().unwrap();
    let mut rng = Rng::new(2424);
    for ((name, path, k), entry) in tables.iter().zip(entries) {
        assert_eq!(entry["name"], *name);
        assert_eq!(entry["cops"].as_u64(), Some(*k as u64), "{entry}");
        if *k == 1 {
            continue;
        }
        assert_eq!(entry["cop_speed"], 1);
        let free = cells(&server, &mut client, name);
        // Random positions (cops may share a cell), each asked with the
        // cops in a random order.
        let mut lines = Vec::new();
        let mut asked = Vec::new();
        for _ in 0..150 {
            let mut cops: Vec<Cell> = (0..*k)
                .map(|_| free[rng.below(free.len())].clone())
                .collect();
            let thief = &free[rng.below(free.len())];
            let turn = if rng.below(2) == 0 { "cop" } else { "thief" };
            lines.push(format!("{} {thief} {turn}", cops.join(" ")));
            cops.rotate_left(rng.below(*k));
            asked.push(api_path(
                "query",
                name,
                &cops,
                &format!("&thief={thief}&turn={turn}"),
            ));
        }
        let want = query_json(path, &lines);
        for (p, want) in asked.iter().zip(&want) {
            assert_eq!(&server.json(&mut client, p), want, "{p}");
            // Asked again: the cached answer, unchanged.
            assert_eq!(&server.json(&mut client, p), want, "{p} (cached)");
        }

        // Heatmaps: the thief on every cell, every cop held still.
        let graph = entry["kind"] == "graph";
        for _ in 0..4 {
            let cops: Vec<Cell> = (0..*k)
                .map(|_| free[rng.below(free.len())].clone())
                .collect();
            let turn = if rng.below(2) == 0 { "cop" } else { "thief" };
            let row = server.json(
                &mut client,
                &api_path("row", name, &cops, &format!("&turn={turn}")),
            );
            assert_eq!(row["fixed"], "cops");
            assert_eq!(row["turn"], turn);
            let lines: Vec<String> = free
                .iter()
                .map(|t| format!("{} {t} {turn}", cops.join(" ")))
                .collect();
            let want = query_json(path, &lines);
            let values = row["values"].as_str().unwrap().as_bytes();
            let cols = row["cols"].as_u64().unwrap_or(0) as usize;
            for (i, (t, w)) in free.iter().zip(&want).enumerate() {
                let at = if graph {
                    i
                } else {
                    let (r, c) = t.split_once(',').unwrap();
                    r.parse::<usize>().unwrap() * cols + c.parse::<usize>().unwrap()
                };
                let v = w["value"].as_str().unwrap().as_bytes()[0];
                assert_eq!(values[at], v, "{name} cops {cops:?} thief {t}");
                let dte = w["dte"].as_i64().unwrap_or(-1);
                match row["dte"].as_array() {
                    Some(d) => assert_eq!(d[i].as_i64(), Some(dte), "{name} thief {t}"),
                    None => assert!(entry["has_dte"] == false),
                }
            }
            assert_eq!(values.iter().filter(|&&b| b != b'#').count(), free.len());
        }

        // The optimal game: each position's value is `query`'s, and each
        // step is one of the previous position's best moves.
        let start = if entry["start"].is_null() {
            let cops: Vec<Cell> = free[..*k].to_vec();
            format!(
                "{}&thief={}&turn=cop",
                cops.iter().map(|c| format!("&cop={c}")).collect::<String>(),
                free[free.len() - 1]
            )
        } else {
            let s = &entry["start"];
            let cops: String = s["cops"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("&cop={}", cell_text(c)))
                .collect();
            format!(
                "{cops}&thief={}&turn={}",
                cell_text(&s["thief"]),
                s["turn"].as_str().unwrap()
            )
        };
        let game = server.json(&mut client, &format!("/api/play?table={name}{start}"));
        let positions = game["positions"].as_array().unwrap();
        assert_eq!(game["plies"].as_u64(), Some(positions.len() as u64 - 1));
        let lines: Vec<String> = positions
            .iter()
            .map(|p| {
                let cops: Vec<Cell> = p["cops"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(cell_text)
                    .collect();
                format!(
                    "{} {} {}",
                    cops.join(" "),
                    cell_text(&p["thief"]),
                    p["turn"].as_str().unwrap()
                )
            })
            .collect();
        let want = query_json(path, &lines);
        for (i, (p, w)) in positions.iter().zip(&want).enumerate() {
            assert_eq!(p["value"], w["value"], "{name} ply {i}");
            assert_eq!(p["dte"], w["dte"], "{name} ply {i}");
            if i > 0 {
                let best = &want[i - 1]["moves"][0];
                let mover = want[i - 1]["turn"].as_str().unwrap();
                let to = if mover == "cop" {
                    &p["cops"]
                } else {
                    &p["thief"]
                };
                assert_eq!(to, &best["to"], "{name} ply {i}: the best move");
            }
        }
        let end = game["end"].as_str().unwrap();
        assert!(
            [
                "capture",
                "escape",
                "repetition",
                "stuck",
                "limit",
                "no-distances"
            ]
            .contains(&end),
            "{end}"
        );
    }
}

#[test]
fn serve_kcops_refuses_bad_parameters() {
    let (_, server) = serve_tables("serve-kcops-bad");
    let mut client = Client::new(server.addr);
    let cases: &[(&str, &str)] = &[
        (
            "/api/query?table=two&cop=0,0&thief=1,2&turn=cop",
            "give `cop` 2 times",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&cop=0,2&thief=1,2&turn=cop",
            "found 3",
        ),
        (
            "/api/query?table=two&thief=1,2&turn=cop",
            "missing parameter `cop`",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=1,1&thief=1,2&turn=cop",
            "cop 1,1 is a wall",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&thief=1,1&turn=cop",
            "thief 1,1 is a wall",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=3,0&thief=1,2&turn=cop",
            "off the map",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,4&thief=1,2&turn=cop",
            "off the map",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=x&thief=1,2&turn=cop",
            "ROW,COL",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&thief=1,2",
            "missing parameter `turn`",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&thief=1,2&turn=both",
            "`turn`",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&turn=cop",
            "missing parameter `thief`",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&thief=1,2&thief=1,3&turn=cop",
            "given twice",
        ),
        (
            "/api/query?table=petersen&cop=0&cop=10&thief=1&turn=cop",
            "not a vertex",
        ),
        (
            "/api/query?table=petersen&cop=0&cop=1,1&thief=1&turn=cop",
            "vertex id",
        ),
        (
            "/api/query?table=petersen&cop=0&thief=1&turn=cop",
            "give `cop` 2 times",
        ),
        (
            "/api/row?table=two&thief=1,2&turn=cop",
            "holds every cop still",
        ),
        (
            "/api/row?table=two&cop=0,0&cop=0,1&thief=1,2&turn=cop",
            "holds every cop still",
        ),
        ("/api/row?table=two&cop=0,0&turn=cop", "give `cop` 2 times"),
        (
            "/api/row?table=three&cop=0,0&cop=0,1&cop=0,2",
            "missing parameter `turn`",
        ),
        (
            "/api/play?table=two&cop=0,0&cop=0,1&thief=1,2&turn=cop&max=0",
            "`max`",
        ),
        (
            "/api/play?table=two&cop=0,0&thief=1,2&turn=cop",
            "give `cop` 2 times",
        ),
        (
            "/api/query?table=one&cop=0,0&cop=0,1&thief=1,2&turn=cop",
            "is of one cop",
        ),
        (
            "/api/row?table=one&cop=0,0&cop=0,1&turn=cop",
            "is of one cop",
        ),
        (
            "/api/query?table=two&cop=0,0&cop=0,1&thief=1,2&turn=cop&x=1",
            "unknown parameter",
        ),
    ];
    for (path, says) in cases {
        let r = client.get(path).unwrap();
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        let body: Json = serde_json::from_slice(&r.body).unwrap();
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(says), "{path}: `{error}` lacks `{says}`");
    }
    // Still healthy, and the one-cop table still answers as before.
    let ok = server.json(
        &mut client,
        "/api/query?table=two&cop=0,1&cop=0,0&thief=1,2&turn=thief",
    );
    assert_eq!(ok["cops"], serde_json::json!([[0, 0], [0, 1]]));
    let one = server.json(
        &mut client,
        "/api/query?table=one&cop=0,0&thief=1,2&turn=cop",
    );
    assert_eq!(one["cop"], serde_json::json!([0, 0]));
}
