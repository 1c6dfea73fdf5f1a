//! Load test of `retrograde serve` on loopback, bounded in count and time:
//! random position queries from concurrent keep-alive clients (throughput
//! and latency percentiles), then malformed requests that must all get a
//! 4xx, then a health check. `scripts/serve-load.sh` starts a server and
//! runs this against it.
//!
//! ```sh
//! cargo run --release --example serve_load -- http://127.0.0.1:8080/ TABLE \
//!     [--queries 10000] [--clients 8] [--malformed 1000] [--seed 1]
//! ```
//!
//! Exit status 1 when a query fails, a malformed request gets anything but
//! a 4xx, or the server is not healthy afterwards.

#[path = "../tests/it/http.rs"]
#[allow(dead_code)]
mod http;

use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use http::Client;
use serde_json::Value;

struct Options {
    addr: SocketAddr,
    table: String,
    queries: usize,
    clients: usize,
    malformed: usize,
    seed: u64,
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn options() -> Result<Options, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: serve_load URL TABLE [--queries N] [--clients K] [--malformed M] [--seed S]";
    let (url, table) = match (args.first(), args.get(1)) {
        (Some(u), Some(t)) => (u.clone(), t.clone()),
        _ => return Err(usage.into()),
    };
    let host = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let addr = host
        .to_socket_addrs()
        .map_err(|e| format!("{url}: {e}"))?
        .next()
        .ok_or_else(|| format!("{url}: no address"))?;
    let mut o = Options {
        addr,
        table,
        queries: 10_000,
        clients: 8,
        malformed: 1_000,
        seed: 1,
    };
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: expected a number, found `{value}`"))?;
        match flag.as_str() {
            "--queries" => o.queries = n as usize,
            "--clients" => o.clients = (n as usize).max(1),
            "--malformed" => o.malformed = n as usize,
            "--seed" => o.seed = n,
            _ => return Err(format!("unknown flag {flag}\n{usage}")),
        }
    }
    Ok(o)
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn run() -> Result<bool, String> {
    let o = options()?;
    let mut client = Client::new(o.addr);
    let map = client
        .get(&format!("/api/map?table={}", o.table))
        .map_err(|e| format!("cannot reach the server: {e}"))?;
    if map.status != 200 {
        return Err(format!("/api/map: {} {}", map.status, map.text()));
    }
    let map: Value = serde_json::from_slice(&map.body).map_err(|e| e.to_string())?;
    let grid: Vec<&str> = map["grid"]
        .as_array()
        .ok_or("no grid")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let (rows, cols) = (grid.len(), grid.first().map_or(0, |l| l.len()));
    let mut free = Vec::new();
    let mut walls = Vec::new();
    for (r, line) in grid.iter().enumerate() {
        for (c, ch) in line.bytes().enumerate() {
            if ch == b'#' {
                walls.push((r, c));
            } else {
                free.push((r, c));
            }
        }
    }
    if free.is_empty() {
        return Err("the map has no free cell".into());
    }
    let mut rng = Rng(o.seed);
    let queries: Vec<String> = (0..o.queries)
        .map(|_| {
            let cop = free[rng.below(free.len())];
            let thief = free[rng.below(free.len())];
            let turn = if rng.below(2) == 0 { "cop" } else { "thief" };
            format!(
                "/api/query?table={}&cop={},{}&thief={},{}&turn={turn}",
                o.table, cop.0, cop.1, thief.0, thief.1
            )
        })
        .collect();

    // Phase 1: random queries.
    let started = Instant::now();
    let results = in_parallel(&queries, o.clients, o.addr);
    let wall = started.elapsed();
    let mut latencies: Vec<Duration> = results.iter().map(|r| r.1).collect();
    latencies.sort_unstable();
    let failed = results.iter().filter(|r| r.0 != 200).count();
    let pct = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p).ceil() as usize).saturating_sub(1))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    let rate = queries.len() as f64 / wall.as_secs_f64();
    println!(
        "queries: {} from {} clients in {:.3} s: {:.0} queries/s; latency ms p50 {:.3}, p90 {:.3}, \
         p99 {:.3}, max {:.3}; failed {failed}",
        queries.len(),
        o.clients,
        wall.as_secs_f64(),
        rate,
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0),
    );

    // Phase 2: malformed requests.
    let bad: Vec<String> = (0..o.malformed)
        .map(|i| malformed(i, &mut rng, &o.table, rows, cols, &free, &walls))
        .collect();
    let started = Instant::now();
    let answers = in_parallel(&bad, o.clients, o.addr);
    let bad_wall = started.elapsed();
    let not_4xx: Vec<(&String, u16)> = bad
        .iter()
        .zip(&answers)
        .filter(|(_, a)| !(400..500).contains(&a.0))
        .map(|(q, a)| (q, a.0))
        .collect();
    println!(
        "malformed: {} in {:.3} s, {} got a 4xx, {} did not",
        bad.len(),
        bad_wall.as_secs_f64(),
        bad.len() - not_4xx.len(),
        not_4xx.len()
    );
    for (q, status) in not_4xx.iter().take(10) {
        println!("  {status}: {}", q.escape_debug());
    }

    // Phase 3: still healthy, and still right.
    let mut client = Client::new(o.addr);
    let healthy = client.get("/api/tables").is_ok_and(|r| r.status == 200)
        && client.get(&queries[0]).is_ok_and(|r| r.status == 200);
    println!("healthy afterwards: {healthy}");
    println!(
        "{{\"queries\":{},\"clients\":{},\"seconds\":{:.4},\"queries_per_s\":{:.0},\"p50_ms\":{:.3},\
         \"p99_ms\":{:.3},\"max_ms\":{:.3},\"failed\":{failed},\"malformed\":{},\"malformed_not_4xx\":{},\
         \"healthy\":{healthy}}}",
        queries.len(),
        o.clients,
        wall.as_secs_f64(),
        rate,
        pct(0.5),
        pct(0.99),
        pct(1.0),
        bad.len(),
        not_4xx.len()
    );
    Ok(failed == 0 && not_4xx.is_empty() && healthy)
}

/// Sends `requests` (raw request paths, or whole raw requests when they
/// start with a method other than GET) from `clients` threads, each on its
/// own keep-alive connection; returns (status, latency) per request, status
/// 0 for a transport error.
fn in_parallel(requests: &[String], clients: usize, addr: SocketAddr) -> Vec<(u16, Duration)> {
    let chunk = requests.len().div_ceil(clients).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = requests
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut client = Client::new(addr);
                    part.iter()
                        .map(|q| {
                            let t = Instant::now();
                            let answer = if q.starts_with('/') {
                                client.get(q)
                            } else {
                                client.send(q.as_bytes())
                            };
                            (answer.map_or(0, |r| r.status), t.elapsed())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("client thread"))
            .collect()
    })
}

/// The `i`-th malformed request: each kind in turn, with random cells.
fn malformed(
    i: usize,
    rng: &mut Rng,
    table: &str,
    rows: usize,
    cols: usize,
    free: &[(usize, usize)],
    walls: &[(usize, usize)],
) -> String {
    let cell = |rng: &mut Rng| {
        let c = free[rng.below(free.len())];
        format!("{},{}", c.0, c.1)
    };
    let (a, b) = (cell(rng), cell(rng));
    let q = |rest: &str| format!("/api/query?table={table}&{rest}");
    match i % 16 {
        0 => q(&format!("cop={a}&turn=cop")),
        1 => q(&format!("cop={a}&thief={b}&turn=nobody")),
        2 => q(&format!(
            "cop={}&thief={b}&turn=cop",
            rows + rng.below(1000)
        )),
        3 => q(&format!(
            "cop={a}&thief=0,{}&turn=thief",
            cols + rng.below(1000)
        )),
        4 if !walls.is_empty() => {
            let w = walls[rng.below(walls.len())];
            q(&format!("cop={},{}&thief={b}&turn=cop", w.0, w.1))
        }
        4 => q(&format!("cop=-1,0&thief={b}&turn=cop")),
        5 => q(&format!("cop={a}&thief={b}&turn=cop&cop={a}")),
        6 => q(&format!("cop={a}&thief={b}&turn=cop&file=/etc/passwd")),
        7 => format!("/api/query?table=../../etc/passwd&cop={a}&thief={b}&turn=cop"),
        8 => q(&format!("cop={a}%zz&thief={b}&turn=cop")),
        9 => q(&format!("cop=99999999999999999999,1&thief={b}&turn=cop")),
        10 => format!("/api/row?table={table}&cop={a}&thief={b}&turn=cop"),
        11 => format!("/api/play?table={table}&cop={a}&thief={b}&turn=cop&max=0"),
        12 => format!("/api/query?{}", "x".repeat(3000 + rng.below(1000))),
        13 => format!(
            "POST /api/query?table={table}&cop={a}&thief={b}&turn=cop HTTP/1.1\r\n\
             Host: x\r\nContent-Length: 5\r\n\r\nhello"
        ),
        14 => format!(
            "/{}",
            ["..%2f..%2fCargo.toml", "api/nothing", "etc/passwd"][rng.below(3)]
        ),
        _ => q(&format!("cop={a}&thief={b}&turn=cop%00")),
    }
}
