//! Issue 23's faults through the binary: tables that are FIFOs,
//! directories or forged shard sets; outputs on one file or on the input;
//! closed pipes; long and non-UTF-8 input lines; verdicts of tables
//! without distances; escape codes from a table; a table shrunk while open.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use retrograde::Tablebase;

use crate::forged::{reseal, saved_table, u64_at, TRAILER};
use crate::support::bin;
use crate::support::temp_dir;

const MAP: &str = "data/maps/sample.txt";

/// Runs `args`, killing it past 20 s (a blocked open fails the test).
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?}: still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = writer.join();
    child.wait_with_output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Points 10 and 12: a FIFO or a directory as a table (or at a sibling
/// shard's name) is refused at once with exit 2, naming what it is.
/// Point 2: a shard of 4,000,000,000 reports the missing shard 1.
#[test]
fn fifos_directories_and_huge_shard_counts_as_tables() {
    let dir = temp_dir("faults-open");
    let fifo = dir.join("f.rtb");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let o = run(&["info", s(&fifo)], b"");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("FIFO"), "{}", err(&o));
    let d = dir.join("d.rtb");
    std::fs::create_dir(&d).unwrap();
    let o = run(&["query", s(&d), "--cop", "1,1", "--thief", "5,9"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("a directory"), "{}", err(&o));
    // A shard header saying 0 of 4e9: the body gains the shard fields,
    // everything after it moves, all checksums recomputed.
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let bytes = std::fs::read(&table).unwrap();
    let body_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let states = Tablebase::open(&table).unwrap().header().states;
    let mut fields = Vec::new();
    fields.extend_from_slice(&0u32.to_le_bytes());
    fields.extend_from_slice(&4_000_000_000u32.to_le_bytes());
    fields.extend_from_slice(&0u64.to_le_bytes());
    fields.extend_from_slice(&states.to_le_bytes());
    fields.extend_from_slice(&0u32.to_le_bytes());
    fields.extend_from_slice(&9u32.to_le_bytes());
    let shift = fields.len() as u64;
    let mut forged = bytes[..16 + body_len].to_vec();
    forged[25] |= 2;
    forged.extend_from_slice(&fields);
    forged[12..16].copy_from_slice(&((body_len as u32 + shift as u32).to_le_bytes()));
    forged.extend_from_slice(&[0; 4]);
    forged.extend_from_slice(&bytes[16 + body_len + 4..]);
    let trailer_at = forged.len() - TRAILER;
    let index = u64_at(&forged, trailer_at) as usize + shift as usize;
    forged[trailer_at..trailer_at + 8].copy_from_slice(&(index as u64).to_le_bytes());
    for at in (index..trailer_at).step_by(16) {
        let o = u64_at(&forged, at) + shift;
        forged[at..at + 8].copy_from_slice(&o.to_le_bytes());
    }
    reseal(&mut forged);
    let shard = dir.join("t.0-of-4000000000.rtb");
    std::fs::write(&shard, &forged).unwrap();
    let o = run(&["info", s(&shard)], b"");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("t.1-of-4000000000.rtb"), "{}", err(&o));
    // A FIFO at the sibling shard's name: refused, not waited on.
    let sibling = dir.join("t.1-of-4000000000.rtb");
    assert!(Command::new("mkfifo")
        .arg(&sibling)
        .status()
        .unwrap()
        .success());
    let o = run(&["info", s(&shard)], b"");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("FIFO"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 14: two outputs on one file, or an output on an input, are
/// refused with exit 2 before any work, and the input is kept.
#[test]
fn outputs_on_one_file_or_on_the_input_are_refused() {
    let dir = temp_dir("faults-collide");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let before = std::fs::read(&table).unwrap();
    let x = dir.join("x");
    let map = dir.join("m.txt");
    std::fs::copy(MAP, &map).unwrap();
    let map_text = std::fs::read(&map).unwrap();
    // render refuses a non-PNG name first, so its table is named `.png` to
    // reach the check that the picture would replace the table.
    let png_table = saved_table(&dir, MAP, "v.png", false);
    let png_before = std::fs::read(&png_table).unwrap();
    for args in [
        vec!["solve", MAP, "-q", "--save", s(&x), "--dump", s(&x)],
        vec![
            "render",
            s(&png_table),
            "--overview",
            "--out",
            s(&png_table),
        ],
        vec!["play", s(&table), "--gif", s(&table)],
        vec!["solve", s(&map), "-q", "--dump", s(&map)],
        // The several-cops solve checks its outputs the same way.
        vec![
            "solve",
            s(&map),
            "-q",
            "--cops",
            "2",
            "--cop",
            "1,1",
            "--cop",
            "1,2",
            "--dump",
            s(&map),
        ],
        vec![
            "solve",
            MAP,
            "-q",
            "--cops",
            "2",
            "--cop",
            "1,1",
            "--cop",
            "1,2",
            "--save",
            s(&x),
            "--dump",
            s(&x),
        ],
    ] {
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("another file") || err(&o).contains("own file"),
            "{args:?}: {}",
            err(&o)
        );
    }
    assert!(!x.exists());
    assert_eq!(std::fs::read(&table).unwrap(), before);
    assert_eq!(std::fs::read(&png_table).unwrap(), png_before);
    assert_eq!(std::fs::read(&map).unwrap(), map_text);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 5: `render --out - | true` is quiet with exit 0.
#[test]
fn render_into_a_closed_pipe_is_quiet() {
    let dir = temp_dir("faults-pipe");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} render {} --overview --out - | true; echo ${{PIPESTATUS[0]}}",
            env!("CARGO_BIN_EXE_retrograde"),
            s(&table)
        ))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
    assert_eq!(err(&o), "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Points 3 and 4: a huge line ends the reading at its first byte past
/// the limit, located, without being held, echoed or read to its end; a
/// non-UTF-8 line is reported by number and skipped; the lines before and
/// around those are answered.
#[test]
fn stdin_lines_are_bounded_and_checked() {
    let dir = temp_dir("faults-stdin");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let mut input = b"1,1 5,9\n\xff\xfe 1,1\n1,1 5,9\n".to_vec();
    input.extend(std::iter::repeat_n(b'7', 20 << 20));
    input.extend_from_slice(b"\n1,1 5,9\n");
    let o = run(&["query", s(&table), "--stdin"], &input);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let e = err(&o);
    assert!(e.len() < 1000, "{} bytes of errors", e.len());
    assert!(e.contains("stdin:2:") && e.contains("UTF-8"), "{e}");
    assert!(e.contains("stdin:4:4097:") && e.contains("longer"), "{e}");
    let answers = String::from_utf8_lossy(&o.stdout);
    let answered = answers
        .lines()
        .filter(|l| l.starts_with("cop 1,1 thief 5,9"));
    assert_eq!(answered.count(), 2, "{answers}");
    // play --interactive: a huge line ends the game, not 20 MB held.
    let mut input = b"\xff\n".to_vec();
    input.extend(std::iter::repeat_n(b'7', 20 << 20));
    input.extend_from_slice(b"\nq\n");
    let o = run(&["play", s(&table), "--interactive"], &input);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("stdin:2:4097: line longer"), "{}", err(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.len() < 100_000 && out.contains("not a legal move: not UTF-8"),
        "{}",
        out.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `/dev/zero` on standard input, a line that never ends: `query --stdin`
/// and `play --interactive` stop at its first byte past the limit with a
/// located error (they waited for the line's end forever).
#[test]
fn an_endless_stdin_line_ends_in_a_located_error() {
    let dir = temp_dir("faults-zero");
    let table = saved_table(&dir, MAP, "v.rtb", true);
    for args in [
        &["query", s(&table), "--stdin"][..],
        &["play", s(&table), "--interactive"],
    ] {
        let child = bin()
            .args(args)
            .stdin(std::fs::File::open("/dev/zero").unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = wait_within(child, Duration::from_secs(60), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("stdin:1:4097: line longer than the 4096 bytes"),
            "{args:?}: {}",
            err(&o)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits for `child`, killing it (and failing) past `limit`; reads its
/// output as it comes, so a full pipe never blocks it.
fn wait_within(mut child: std::process::Child, limit: Duration, what: &[&str]) -> Output {
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut v);
        v
    });
    let errs = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut v);
        v
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what:?}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: errs.join().unwrap(),
    }
}

/// Point 9: on a table without distances, no decided position's game
/// ends as "a draw"; the verdict carries the table's value.
#[test]
fn play_without_distances_never_contradicts_the_table() {
    let dir = temp_dir("faults-nodte");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let tb = Tablebase::open(&table).unwrap();
    let mut decided = 0;
    for (cop, thief) in [((1, 1), (5, 9)), ((7, 1), (1, 14)), ((3, 3), (7, 7))] {
        let pos = crate::support::one_cop_at(&tb, cop, thief, retrograde::Turn::Cop).unwrap();
        let value = tb.probe(&pos).unwrap().value;
        let (c, t) = (
            format!("{},{}", cop.0, cop.1),
            format!("{},{}", thief.0, thief.1),
        );
        let o = run(&["play", s(&table), "--cop", &c, "--thief", &t], b"");
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        let last = out.lines().last().unwrap();
        if value != retrograde::Outcome::Draw {
            decided += 1;
            assert!(!last.contains("draw"), "{value:?} at {c} {t}: {last}");
        }
    }
    assert!(decided > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 15: an engine name holding an escape code is printed escaped.
#[test]
fn strings_from_a_table_reach_the_terminal_escaped() {
    let dir = temp_dir("faults-escape");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let mut bytes = std::fs::read(&table).unwrap();
    assert!(bytes[58] >= 2);
    bytes[59] = 0x1b;
    bytes[60] = b'[';
    reseal(&mut bytes);
    std::fs::write(&table, &bytes).unwrap();
    let o = run(&["info", s(&table)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!o.stdout.contains(&0x1b));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\\u{1b}["));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 7: a table overwritten in place and shrunk while open gives
/// errors, not SIGBUS (this test process would die of it).
#[test]
fn a_table_shrunk_while_open_gives_errors_not_a_signal() {
    let dir = temp_dir("faults-shrink");
    let table = saved_table(&dir, MAP, "d.rtb", true);
    let tb = Tablebase::open(&table).unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap();
    f.set_len(100).unwrap();
    let mut errors = 0;
    for s in 0..tb.header().states {
        errors += usize::from(tb.probe_state(s).is_err());
    }
    assert!(errors > 0);
    assert!(tb.check().is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 11: a FIFO at one map's table name in `--save-dir`, or at a man
/// page's name in `man --out-dir`: that output is refused, nothing blocks,
/// the batch saves the other tables.
#[test]
fn fifos_among_outputs_are_refused_not_waited_on() {
    let dir = temp_dir("faults-savedir");
    let tables = dir.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let maps = dir.join("maps");
    std::fs::create_dir(&maps).unwrap();
    std::fs::copy(MAP, maps.join("a.txt")).unwrap();
    std::fs::copy(MAP, maps.join("b.txt")).unwrap();
    let fifo = tables.join("a.rtb");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = dir.join("rows.jsonl");
    let o = run(
        &[
            "batch",
            s(&maps),
            "--quiet",
            "--save-dir",
            s(&tables),
            "--out",
            s(&out),
        ],
        b"",
    );
    assert_ne!(o.status.code(), Some(0), "{}", err(&o));
    assert!(Tablebase::open(&tables.join("b.rtb")).is_ok());
    let rows = std::fs::read_to_string(&out).unwrap();
    assert!(rows.contains("not a regular file"), "{rows}");
    let pages = dir.join("man");
    std::fs::create_dir(&pages).unwrap();
    let page = pages.join("retrograde-solve.1");
    assert!(Command::new("mkfifo")
        .arg(&page)
        .status()
        .unwrap()
        .success());
    let o = run(&["man", "--out-dir", s(&pages)], b"");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("retrograde-solve.1"), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Point 6: more idle connections than `serve` holds (512) do not keep a
/// new client waiting past the idle timeout (15 s).
#[test]
fn idle_connections_do_not_starve_new_clients() {
    let dir = temp_dir("faults-idle");
    let table = saved_table(&dir, MAP, "v.rtb", false);
    let server = crate::serve::Server::start(&[&table], &[]);
    let idle: Vec<std::net::TcpStream> = (0..520)
        .filter_map(|_| std::net::TcpStream::connect(server.addr).ok())
        .collect();
    assert!(idle.len() >= 512, "{} connections", idle.len());
    let started = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let addr = server.addr;
    std::thread::spawn(move || {
        let mut client = crate::http::Client::new(addr);
        let _ = tx.send(client.get("/api/tables").map(|r| r.status));
    });
    let answer = rx.recv_timeout(Duration::from_secs(40));
    assert!(
        matches!(answer, Ok(Ok(200))),
        "{answer:?} after {:?}",
        started.elapsed()
    );
    drop(idle);
    let _ = std::fs::remove_dir_all(&dir);
}
