//! `retrograde serve` run as a process: its API answers equal `query --json`
//! on thousands of random positions of several maps (rows and optimal games
//! checked against them too), malformed requests all get a 4xx and leave
//! the server healthy, and bad command lines exit with status 2. The same
//! API on several-cops tables is `serve/kcops.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value as Json;

use crate::http::Client;
pub use crate::support::make_table;
use crate::support::run;
use crate::support::{temp_dir, Rng};

/// `serve` on several-cops tables, through the same `Server` and `Grid`.
mod kcops;

/// A `retrograde serve` process on a free loopback port, killed on drop.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Server {
    /// Serves `tables` with `extra` flags; waits for the address line.
    pub fn start(tables: &[&Path], extra: &[&str]) -> Server {
        let mut child = crate::support::bin()
            .arg("serve")
            .args(tables)
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start retrograde serve");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().expect("piped"))
            .read_line(&mut first)
            .expect("read the address line");
        let addr = first
            .trim()
            .strip_prefix("serving at http://")
            .and_then(|a| a.trim_end_matches('/').parse().ok());
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve printed `{first}` instead of its address");
        };
        Server { child, addr }
    }

    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// GET `path`, parsed as JSON, asserting status 200.
    pub fn json(&self, client: &mut Client, path: &str) -> Json {
        let r = client.get(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
        serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{path}: {e}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `query TABLE --stdin --json` for `positions` (cop, thief, turn): one
/// parsed answer per position.
pub fn cli_query(table: &Path, positions: &[Position]) -> Vec<Json> {
    let lines: Vec<String> = positions
        .iter()
        .map(|p| {
            format!(
                "{},{} {},{} {}",
                p.cop.0, p.cop.1, p.thief.0, p.thief.1, p.turn
            )
        })
        .collect();
    crate::support::query_json(table, &lines)
}

/// A position as the tests draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub cop: (usize, usize),
    pub thief: (usize, usize),
    pub turn: &'static str,
}

impl Position {
    pub fn path(&self, endpoint: &str, table: &str) -> String {
        format!(
            "/api/{endpoint}?table={table}&cop={},{}&thief={},{}&turn={}",
            self.cop.0, self.cop.1, self.thief.0, self.thief.1, self.turn
        )
    }

    pub fn from_json(v: &Json) -> Position {
        let cell = |k: &str| {
            (
                v[k][0].as_u64().expect("row") as usize,
                v[k][1].as_u64().expect("col") as usize,
            )
        };
        Position {
            cop: cell("cop"),
            thief: cell("thief"),
            turn: if v["turn"] == "cop" { "cop" } else { "thief" },
        }
    }
}

/// A served map: its grid from `/api/map`.
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    pub lines: Vec<Vec<u8>>,
    pub free: Vec<(usize, usize)>,
}

impl Grid {
    pub fn fetch(server: &Server, client: &mut Client, table: &str) -> Grid {
        let map = server.json(client, &format!("/api/map?table={table}"));
        Grid::from_json(&map)
    }

    /// The grid of a map's `/api/map` answer.
    pub fn from_json(map: &Json) -> Grid {
        assert_eq!(map["schema"], 1, "/api/map carries the schema");
        let lines: Vec<Vec<u8>> = map["grid"]
            .as_array()
            .expect("grid")
            .iter()
            .map(|l| l.as_str().expect("line").as_bytes().to_vec())
            .collect();
        let (rows, cols) = (lines.len(), lines[0].len());
        assert_eq!(map["rows"].as_u64(), Some(rows as u64));
        assert_eq!(map["cols"].as_u64(), Some(cols as u64));
        let mut free = Vec::new();
        for (r, line) in lines.iter().enumerate() {
            assert_eq!(line.len(), cols);
            for (c, &ch) in line.iter().enumerate() {
                assert!(b"#.E".contains(&ch), "grid character {ch}");
                if ch != b'#' {
                    free.push((r, c));
                }
            }
        }
        Grid {
            rows,
            cols,
            lines,
            free,
        }
    }

    pub fn random(&self, rng: &mut Rng) -> Position {
        Position {
            cop: self.free[rng.below(self.free.len())],
            thief: self.free[rng.below(self.free.len())],
            turn: if rng.below(2) == 0 { "cop" } else { "thief" },
        }
    }
}

/// The maps of the agreement test: (name, solve flags, with distances).
const MAPS: &[(&str, &[&str], bool)] = &[
    ("sample", &["data/maps/sample.txt"], true),
    (
        "maze",
        &[
            "data/maps/movingai/maze-32-32-2.map",
            "--exits",
            "random:6:7",
            "--thief-first",
        ],
        true,
    ),
    (
        "open",
        &[
            "data/maps/movingai/empty-8-8.map",
            "--exits",
            "border",
            "--thief-diagonal",
            "--no-corner-cutting",
        ],
        true,
    ),
    (
        "islands",
        &["data/maps/seed/islands.txt", "--no-pass"],
        false,
    ),
];

/// Random positions per map (4 maps: 4,000 in all).
const POSITIONS: usize = 1000;

#[test]
fn serve_api_answers_equal_query_on_random_positions() {
    let dir = temp_dir("serve-agree");
    let tables: Vec<PathBuf> = MAPS
        .iter()
        .map(|(name, args, dte)| make_table(&dir, name, args, *dte))
        .collect();
    let refs: Vec<&Path> = tables.iter().map(PathBuf::as_path).collect();
    let server = Server::start(&refs, &[]);
    let mut client = Client::new(server.addr);
    let list = server.json(&mut client, "/api/tables");
    assert_eq!(list["schema"], 1, "/api/tables carries the schema");
    let names: Vec<&str> = list["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, MAPS.iter().map(|m| m.0).collect::<Vec<_>>());
    let mut rng = Rng::new(14);
    for (i, ((name, _, with_dte), table)) in MAPS.iter().zip(&tables).enumerate() {
        let summary = &list["tables"][i];
        let grid = Grid::fetch(&server, &mut client, name);
        assert_eq!(summary["cells"].as_u64(), Some(grid.free.len() as u64));
        assert_eq!(summary["has_dte"].as_bool(), Some(*with_dte));
        let exits = grid.lines.iter().flatten().filter(|&&c| c == b'E').count();
        assert_eq!(summary["exits"].as_u64(), Some(exits as u64));

        // Single positions.
        let positions: Vec<Position> = (0..POSITIONS).map(|_| grid.random(&mut rng)).collect();
        let expected = cli_query(table, &positions);
        for (p, want) in positions.iter().zip(&expected) {
            let got = server.json(&mut client, &p.path("query", name));
            assert_eq!(&got, want, "{name}: {p:?}");
        }

        // Heatmap rows, cop held still, against `query` on every thief cell.
        let mut asked = Vec::new();
        let mut rows = Vec::new();
        for k in 0..6 {
            let p = grid.random(&mut rng);
            let fixed = if k % 2 == 0 { "cop" } else { "thief" };
            let at = if fixed == "cop" { p.cop } else { p.thief };
            let row = server.json(
                &mut client,
                &format!(
                    "/api/row?table={name}&{fixed}={},{}&turn={}",
                    at.0, at.1, p.turn
                ),
            );
            for &cell in &grid.free {
                asked.push(if fixed == "cop" {
                    Position { thief: cell, ..p }
                } else {
                    Position { cop: cell, ..p }
                });
            }
            assert_eq!(row["schema"], 1, "/api/row carries the schema");
            rows.push(row);
        }
        let answers = cli_query(table, &asked);
        let mut answers = answers.iter();
        for row in &rows {
            let values = row["values"].as_str().expect("values").as_bytes();
            assert_eq!(values.len(), grid.rows * grid.cols);
            let dte = row["dte"].as_array();
            assert_eq!(dte.is_some(), *with_dte, "{name}: dte array");
            for (i, &(r, c)) in grid.free.iter().enumerate() {
                let want = answers.next().expect("an answer per cell");
                let v = values[r * grid.cols + c];
                assert_eq!(
                    v,
                    want["value"].as_str().unwrap().as_bytes()[0],
                    "{name}: row {row} at {r},{c}"
                );
                if let Some(dte) = dte {
                    let d = dte[i].as_i64().unwrap();
                    assert_eq!(want["dte"].as_i64().unwrap_or(-1), d, "{name}: {r},{c}");
                }
            }
            for (i, line) in grid.lines.iter().enumerate() {
                for (j, &ch) in line.iter().enumerate() {
                    assert_eq!(ch == b'#', values[i * grid.cols + j] == b'#');
                }
            }
        }

        // Optimal games: each step is a best move of the position before,
        // each position's value and distance is `query`'s, and the game
        // ends as it says.
        let starts: Vec<Position> = (0..25).map(|_| grid.random(&mut rng)).collect();
        let games: Vec<Json> = starts
            .iter()
            .map(|p| server.json(&mut client, &p.path("play", name)))
            .collect();
        let in_games: Vec<Position> = games
            .iter()
            .flat_map(|g| g["positions"].as_array().unwrap().iter())
            .map(Position::from_json)
            .collect();
        let answers = cli_query(table, &in_games);
        let mut answers = answers.iter();
        for (start, game) in starts.iter().zip(&games) {
            let list = game["positions"].as_array().unwrap();
            assert_eq!(Position::from_json(&list[0]), *start);
            assert_eq!(game["plies"].as_u64(), Some(list.len() as u64 - 1));
            let mut before: Option<&Json> = None;
            for step in list {
                let want = answers.next().unwrap();
                assert_eq!(step["value"], want["value"], "{name}: {game}");
                assert_eq!(step["dte"], want["dte"], "{name}: {game}");
                if let Some(prev) = before {
                    let mover = prev["turn"].as_str().unwrap();
                    let to = &step[mover];
                    let best = &prev["moves"][0];
                    let made = prev["moves"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|m| &m["to"] == to)
                        .unwrap_or_else(|| panic!("{name}: {to} is no move of {prev}"));
                    assert_eq!(made["value"], best["value"], "{name}: not a best move");
                    assert_eq!(made["dte"], best["dte"], "{name}: not a best move");
                }
                before = Some(want);
            }
            let last = Position::from_json(list.last().unwrap());
            let end = game["end"].as_str().unwrap();
            let on_exit = grid.lines[last.thief.0][last.thief.1] == b'E';
            let repeated = list[..list.len() - 1]
                .iter()
                .any(|p| Position::from_json(p) == last);
            match end {
                "capture" => assert_eq!(last.cop, last.thief),
                "escape" => assert!(on_exit && last.cop != last.thief),
                "repetition" => assert!(repeated),
                "stuck" => assert_eq!(before.unwrap()["moves"].as_array().unwrap().len(), 0),
                other => panic!("{name}: a game of {} plies ends by {other}", list.len()),
            }
            if end != "repetition" {
                assert_eq!(before.unwrap()["moves"].as_array().unwrap().len(), 0);
            }
        }
    }
}

/// Requests no endpoint accepts, each with the status it must get.
fn malformed_requests(table: &str, grid: &Grid, rng: &mut Rng) -> Vec<(String, u16)> {
    let wall = grid
        .lines
        .iter()
        .enumerate()
        .find_map(|(r, l)| l.iter().position(|&c| c == b'#').map(|c| (r, c)))
        .expect("the test map has a wall");
    let cell = |rng: &mut Rng| {
        let c = grid.free[rng.below(grid.free.len())];
        format!("{},{}", c.0, c.1)
    };
    let mut out = Vec::new();
    for _ in 0..64 {
        let (a, b) = (cell(rng), cell(rng));
        let q = |rest: String| format!("/api/query?table={table}&{rest}");
        let off = format!("{},{}", grid.rows + rng.below(100), rng.below(grid.cols));
        let cases: Vec<(String, u16)> = vec![
            (q(format!("cop={a}&turn=cop")), 400),
            (q(format!("thief={b}&turn=cop")), 400),
            (q(format!("cop={a}&thief={b}")), 400),
            (q(format!("cop={a}&thief={b}&turn=Cop")), 400),
            (q(format!("cop={a}&thief={b}&turn=")), 400),
            (q(format!("cop={off}&thief={b}&turn=cop")), 400),
            (
                q(format!("cop={a}&thief={},{}&turn=cop", wall.0, wall.1)),
                400,
            ),
            (q(format!("cop={a}&thief={b}&turn=cop&turn=thief")), 400),
            (
                q(format!("cop={a}&thief={b}&turn=cop&path=/etc/passwd")),
                400,
            ),
            (q(format!("cop=%20{a}&thief={b}&turn=cop")), 400),
            (q(format!("cop={a},1&thief={b}&turn=cop")), 400),
            (q(format!("cop=-{a}&thief={b}&turn=cop")), 400),
            (q(format!("cop={a}&thief={b}%&turn=cop")), 400),
            (q(format!("cop={a}&thief={b}&turn=cop%ff")), 400),
            (
                q(format!("cop=18446744073709551617,0&thief={b}&turn=cop")),
                400,
            ),
            (q(format!("cop={a}&thief={b}&turn=cop%00")), 400),
            (
                format!("/api/query?table=../{table}.rtb&cop={a}&thief={b}&turn=cop"),
                404,
            ),
            (
                format!("/api/query?table=%2Fetc%2Fpasswd&cop={a}&thief={b}&turn=cop"),
                404,
            ),
            (format!("/api/query?cop={a}&thief={b}&turn=cop"), 400),
            (format!("/api/row?table={table}&turn=cop"), 400),
            (
                format!("/api/row?table={table}&cop={a}&thief={b}&turn=cop"),
                400,
            ),
            (format!("/api/row?table={table}&cop={off}&turn=thief"), 400),
            (
                format!("/api/play?table={table}&cop={a}&thief={b}&turn=cop&max=0"),
                400,
            ),
            (
                format!("/api/play?table={table}&cop={a}&thief={b}&turn=cop&max=10001"),
                400,
            ),
            ("/api/tables?x=1".to_string(), 400),
            (format!("/api/map?table={table}&cop={a}"), 400),
            ("/api/map".to_string(), 400),
            (format!("/api/query?{}", "a".repeat(2100)), 414),
            ("/api/nothing".into(), 404),
            ("/..%2F..%2FCargo.toml".into(), 404),
            ("/data/maps/sample.txt".into(), 404),
        ];
        out.extend(cases);
    }
    out
}

#[test]
fn serve_rejects_malformed_requests_with_4xx_and_stays_healthy() {
    let dir = temp_dir("serve-malformed");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], true);
    let server = Server::start(&[&table], &[]);
    let mut client = Client::new(server.addr);
    let grid = Grid::fetch(&server, &mut client, "sample");
    let mut rng = Rng::new(3);
    let requests = malformed_requests("sample", &grid, &mut rng);
    assert!(requests.len() >= 1000, "{} requests", requests.len());
    for (path, status) in &requests {
        let r = client.get(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(r.status, *status, "{path}: {}", r.text());
        if path.starts_with("/api/") {
            let body: Json = serde_json::from_slice(&r.body)
                .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {}", r.text()));
            assert!(
                body["error"].as_str().is_some_and(|m| !m.is_empty()),
                "{path}"
            );
        }
    }
    // Messages say what was wrong.
    let r = client
        .get("/api/query?table=sample&cop=1,1&thief=0,0&turn=cop")
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.text().contains("wall"), "{}", r.text());
    let r = client.get("/api/query?table=nope&cop=1,1").unwrap();
    assert_eq!(r.status, 404);
    assert!(r.text().contains("served: sample"), "{}", r.text());

    // Other methods, bodies and broken HTTP.
    let raw: &[(&[u8], &[u16])] = &[
        (
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
            &[405],
        ),
        (
            b"PUT /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            &[405],
        ),
        (b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", &[405]),
        (
            b"GET /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n",
            &[413],
        ),
        (
            b"GET /api/tables HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            &[413],
        ),
        (b"GARBAGE\r\n\r\n", &[400]),
        (b"GET /api/tables HTTP/7.0\r\n\r\n", &[400, 505]),
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
            &[400],
        ),
    ];
    for (request, statuses) in raw {
        let mut fresh = Client::new(server.addr);
        let status = fresh.send(request).map_or(0, |r| r.status);
        assert!(
            statuses.contains(&status),
            "{:?}: status {status}",
            String::from_utf8_lossy(request)
        );
    }
    // A header block far over any limit is refused or cut off.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let huge = format!(
        "GET /api/tables HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "y".repeat(1 << 20)
    );
    let _ = stream.write_all(huge.as_bytes());
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 4"),
        "huge headers: {reply}"
    );

    // Still healthy and still right.
    let mut client = Client::new(server.addr);
    let tables = server.json(&mut client, "/api/tables");
    assert_eq!(tables["tables"][0]["name"], "sample");
    let p = Position {
        cop: grid.free[0],
        thief: grid.free[grid.free.len() - 1],
        turn: "cop",
    };
    let want = cli_query(&table, &[p]);
    assert_eq!(
        server.json(&mut client, &p.path("query", "sample")),
        want[0]
    );
    // The page and its assets are there, with a policy that allows
    // nothing from elsewhere.
    let page = client.get("/").unwrap();
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<canvas"));
    assert!(page
        .header("content-security-policy")
        .is_some_and(|p| p.contains("default-src 'self'")));
    for asset in ["/app.js", "/draw.js", "/style.css"] {
        assert_eq!(client.get(asset).unwrap().status, 200, "{asset}");
    }
    for text in [
        page.text(),
        client.get("/app.js").unwrap().text(),
        client.get("/draw.js").unwrap().text(),
    ] {
        assert!(!text.contains("http://") && !text.contains("https://"));
    }
}

#[test]
fn serve_command_line_errors_exit_2() {
    let dir = temp_dir("serve-cli");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], false);
    let t = table.to_str().unwrap();
    let out = run(&["serve", t, "--bind", "0.0.0.0:0"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--public"));

    let missing = dir.join("missing.rtb");
    let out = run(&["serve", missing.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.rtb"));

    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let twin = other.join("sample.rtb");
    std::fs::copy(&table, &twin).unwrap();
    let out = run(&["serve", t, twin.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("both be served as `sample`"));

    let garbage = dir.join("garbage.rtb");
    std::fs::write(&garbage, b"not a table at all").unwrap();
    let out = run(&["serve", garbage.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("garbage.rtb"));

    // With --public another address is served, with a warning.
    let mut child = crate::support::bin()
        .args(["serve", t, "--bind", "0.0.0.0:0", "--public"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.starts_with("warning: listening on 0.0.0.0:"), "{line}");
}

#[test]
fn serve_open_starts_the_browser() {
    // A stand-in `xdg-open` first on PATH records the address it is given.
    let dir = temp_dir("serve-open");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], false);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let record = dir.join("opened.txt");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\necho \"$1\" > {}.tmp && mv {0}.tmp {0}\n",
            record.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = crate::support::bin()
        .args([
            "serve",
            table.to_str().unwrap(),
            "--bind",
            "127.0.0.1:0",
            "--open",
        ])
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let mut opened = String::new();
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(&record) {
            opened = text;
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let _ = child.kill();
    let _ = child.wait();
    let url = first.trim().strip_prefix("serving at ").unwrap();
    assert_eq!(opened.trim(), url);
}

/// Issue 23, point 8: under 8 clients asking distinct rows of a 194 x 194
/// map (about 100 KB of JSON each), the server's peak resident memory
/// stays within its documented bound: the answer cache (64 MiB) and the
/// block cache (256 MiB per table) plus 64 MiB of working set. Before the
/// allocator was held to one arena it grew past 500 MiB after 4,000 rows.
#[test]
#[cfg(target_os = "linux")]
fn serve_resident_memory_stays_within_its_caches_under_load() {
    let dir = temp_dir("serve-resident");
    let table = make_table(
        &dir,
        "lak",
        &["data/large/lak303d.map", "--exits", "border"],
        true,
    );
    let server = Server::start(&[table.as_path()], &[]);
    let grid = server.json(&mut Client::new(server.addr), "/api/map?table=lak");
    let mut cells = Vec::new();
    for (r, row) in grid["grid"].as_array().unwrap().iter().enumerate() {
        for (c, ch) in row.as_str().unwrap().chars().enumerate() {
            if ch != '#' {
                cells.push((r, c));
            }
        }
    }
    let mut rng = Rng::new(23);
    for i in (1..cells.len()).rev() {
        cells.swap(i, rng.below(i + 1));
    }
    let cells = std::sync::Arc::new(cells);
    let (clients, per_client) = (8, 500);
    let workers: Vec<_> = (0..clients)
        .map(|i| {
            let (cells, addr) = (std::sync::Arc::clone(&cells), server.addr);
            std::thread::spawn(move || {
                let mut client = Client::new(addr);
                for j in 0..per_client {
                    let (r, c) = cells[(i * per_client + j) % cells.len()];
                    let path = format!("/api/row?table=lak&cop={r},{c}&turn=cop");
                    let answer = client.get(&path).unwrap();
                    assert_eq!(answer.status, 200, "{path}");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    let bound_kib = (64 + 256 + 64) * 1024;
    assert!(
        peak_kib <= bound_kib,
        "serve peaked at {} MiB, over its bound of {} MiB",
        peak_kib / 1024,
        bound_kib / 1024
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A port another process already listens on: refused before serving,
/// exit status 2 like every refusal (it was 1), naming the address.
#[test]
fn serve_on_a_taken_port_exits_2() {
    let dir = temp_dir("serve-taken-port");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], false);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let mut child = crate::support::bin()
        .args(["serve", table.to_str().unwrap(), "--bind", &addr])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Should the bind succeed after all, the server would run forever.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("serve on the taken {addr}: still running");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(out.stdout.is_empty(), "nothing served");
    drop(taken);
    let _ = std::fs::remove_dir_all(&dir);
}
