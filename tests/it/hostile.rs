//! Issue 33, items 10-16: hostile input and faults, each a reproduction of
//! `shared/friction/` turned into a check of the binary (or the library):
//! forged sparse tables, block layouts, slowloris clients, resumed results
//! files, memory caps, outputs that are also inputs, and smaller refusals.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::forged::{reseal, saved_table, u64_at, TRAILER};
use crate::support::{output_of, run, stderr, temp_dir};

/// Runs the binary with `args` under an address-space limit of `bytes`
/// (as `ulimit -v` or a batch scheduler sets), feeding `stdin` when given.
fn run_capped(bytes: u64, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut script = format!("ulimit -v {}; exec \"$0\"", bytes / 1024);
    for k in 0..args.len() {
        script.push_str(&format!(" \"${}\"", k + 1));
    }
    // The binary may refuse before reading all of `stdin`.
    output_of(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_retrograde"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR")),
        stdin,
        true,
    )
}

/// Item 10: a trailer claiming 2^40 blocks, its index a 100 GB hole of a
/// sparse file, is refused from the header's counts before the index is
/// read (it was read into one buffer first: an abort, exit 134).
#[test]
fn a_sparse_table_claiming_a_huge_index_is_refused_before_reading_it() {
    let dir = temp_dir("hostile-sparse");
    let table = saved_table(&dir, "data/maps/sample.txt", "t.rtb", false);
    let bytes = std::fs::read(&table).unwrap();
    let body = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as u64;
    let header_end = 16 + body + 4;
    let trailer_at = bytes.len() - TRAILER;
    let mut trailer = bytes[trailer_at..].to_vec();
    trailer[..8].copy_from_slice(&header_end.to_le_bytes());
    trailer[8..16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let sparse = dir.join("sparse.rtb");
    {
        let mut f = std::fs::File::create(&sparse).unwrap();
        f.write_all(&bytes[..header_end as usize]).unwrap();
        f.set_len((100 << 30) - TRAILER as u64).unwrap();
        use std::io::Seek;
        f.seek(std::io::SeekFrom::End(0)).unwrap();
        f.write_all(&trailer).unwrap();
    }
    for command in ["info", "query"] {
        let mut args = vec![command, sparse.to_str().unwrap()];
        if command == "query" {
            args.extend(["--cop", "1,1", "--thief", "2,2"]);
        }
        let out = run_capped(2 << 30, &args, None);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("does not match the header"),
            "{command}: {}",
            stderr(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 11: an index entry pointed at another block's bytes (with that
/// block's length and checksum, every checksum recomputed) decodes to the
/// other block's values: wrong answers. The blocks must tile the block
/// area in state order, which no valid table breaks.
#[test]
fn an_index_entry_pointing_at_another_block_is_refused() {
    let dir = temp_dir("hostile-layout");
    // Two cops on the sample: 9 values and 9 distance blocks.
    let table = dir.join("k.rtb");
    let t = table.to_str().unwrap();
    let args = [
        "solve",
        "data/maps/sample.txt",
        "--cops",
        "2",
        "--cop",
        "1,1",
    ];
    let out = run(
        &[
            &args[..],
            &["--cop", "1,2", "--dte-table", "-q", "--save", t],
        ]
        .concat(),
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&table).unwrap();
    let trailer_at = bytes.len() - TRAILER;
    let index = u64_at(&bytes, trailer_at) as usize;
    let entries = (trailer_at - index) / 16;
    assert!(
        entries >= 4,
        "{entries} blocks: too few to copy one over another"
    );
    let half = entries / 2;
    let forged = dir.join("forged.rtb");
    for (from, to) in [
        (0, 1),
        (1, 0),
        (2, 1),
        (half, half + 1),
        (entries - 1, half + 1),
    ] {
        let mut copy = bytes.clone();
        let (a, b) = (index + 16 * from, index + 16 * to);
        let source = copy[a..a + 16].to_vec();
        copy[b..b + 16].copy_from_slice(&source);
        reseal(&mut copy);
        std::fs::write(&forged, &copy).unwrap();
        let f = forged.to_str().unwrap();
        for command in [
            vec!["info", f],
            vec!["query", f, "--cop", "1,1", "--cop", "1,2", "--thief", "5,9"],
        ] {
            let out = run(&command, None);
            assert_eq!(
                out.status.code(),
                Some(2),
                "entry {to} pointed at block {from}: {command:?}: {}{}",
                crate::support::stdout(&out),
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("index is damaged"),
                "{}",
                stderr(&out)
            );
        }
    }
    // Every committed fixture, of every version, still opens and checks.
    for name in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tablebase"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rtb"))
    {
        let out = run(&["info", name.to_str().unwrap(), "--check"], None);
        assert!(out.status.success(), "{}: {}", name.display(), stderr(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 11: two blocks of the same kind swapped, their index entries'
/// lengths and checksums with them and the block area laid out again (every
/// other checksum recomputed): the blocks still tile the file in order and
/// each one's bytes match the checksum beside them, so only a checksum
/// that binds the block's place can tell. Before it, `query` answered the
/// swapped states from the other block.
#[test]
fn swapped_blocks_fail_their_placed_checksums() {
    let dir = temp_dir("hostile-swap");
    let table = dir.join("k.rtb");
    let t = table.to_str().unwrap();
    let args = ["solve", "data/maps/sample.txt", "--cops", "2"];
    let rest = [
        "--cop",
        "1,1",
        "--cop",
        "1,2",
        "--dte-table",
        "-q",
        "--save",
        t,
    ];
    let out = run(&[&args[..], &rest[..]].concat(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&table).unwrap();
    let trailer_at = bytes.len() - TRAILER;
    let index = u64_at(&bytes, trailer_at) as usize;
    let value_blocks = u64_at(&bytes, trailer_at + 8) as usize;
    let entries: Vec<(usize, usize, [u8; 4])> = (index..trailer_at)
        .step_by(16)
        .map(|at| {
            let offset = u64_at(&bytes, at) as usize;
            let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
            (offset, len, bytes[at + 12..at + 16].try_into().unwrap())
        })
        .collect();
    let forged = dir.join("swapped.rtb");
    // Values blocks 1 and 2, then distance blocks 1 and 2 (all full).
    for first in [1, value_blocks + 1] {
        assert!(first + 1 < entries.len());
        let mut moved = entries.clone();
        moved.swap(first, first + 1);
        // The block area again, in the file's order, each entry's bytes
        // (the swapped ones' included) at its new offset.
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by_key(|&k| entries[k].0);
        let mut copy = bytes[..entries[order[0]].0].to_vec();
        let mut offsets = vec![0; entries.len()];
        for &k in &order {
            offsets[k] = copy.len();
            let (offset, len, _) = moved[k];
            copy.extend_from_slice(&bytes[offset..offset + len]);
        }
        assert_eq!(copy.len(), index, "the block area keeps its length");
        for (k, &(_, len, crc)) in moved.iter().enumerate() {
            copy.extend_from_slice(&(offsets[k] as u64).to_le_bytes());
            copy.extend_from_slice(&(len as u32).to_le_bytes());
            copy.extend_from_slice(&crc);
        }
        copy.extend_from_slice(&bytes[trailer_at..]);
        reseal(&mut copy);
        std::fs::write(&forged, &copy).unwrap();
        let f = forged.to_str().unwrap();
        let out = run(&["info", f, "--check"], None);
        assert_eq!(
            out.status.code(),
            Some(2),
            "block {first}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("block 1 (") && stderr(&out).contains("checksum mismatch"),
            "block {first}: {}",
            stderr(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 12: 520 connections each trickling header bytes hold every slot
/// of `serve` (512); a new client is served by shedding the connection
/// that has waited longest, well before any of them times out (10 s).
#[test]
fn a_full_server_sheds_its_slowest_connection_for_a_new_client() {
    let dir = temp_dir("hostile-slowloris");
    let table = saved_table(&dir, "data/maps/sample.txt", "s.rtb", false);
    let server = crate::serve::Server::start(&[&table], &[]);
    let slow: Vec<std::net::TcpStream> = (0..520)
        .filter_map(|_| {
            let mut s = std::net::TcpStream::connect(server.addr).ok()?;
            s.write_all(b"G").ok()?;
            Some(s)
        })
        .collect();
    assert!(slow.len() >= 512, "{} connections", slow.len());
    let (tx, rx) = std::sync::mpsc::channel();
    let addr = server.addr;
    std::thread::spawn(move || {
        let mut client = crate::http::Client::new(addr);
        let _ = tx.send(client.get("/api/tables").map(|r| r.status));
    });
    // Below the header deadline: only shedding answers in time.
    let answer = rx.recv_timeout(Duration::from_secs(8));
    assert!(matches!(answer, Ok(Ok(200))), "{answer:?}");
    drop(slow);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 47: 520 connections that each pipeline 400 requests for a large
/// answer (the 160 KB `/api/map` of a 400 x 400 map) and never read hold
/// every slot with a write blocked on their client; a new client is
/// served by shedding one of them at once, where they held their slots
/// until their idle timers (15 s) ran out.
#[test]
fn a_full_server_sheds_a_connection_blocked_writing_for_a_new_client() {
    let dir = temp_dir("hostile-slowread");
    let map = dir.join("wide.txt");
    let mut text = format!("400 400\nC{}T{}\n", ".".repeat(198), "*".repeat(200));
    for _ in 1..400 {
        text.push_str(&"*".repeat(400));
        text.push('\n');
    }
    std::fs::write(&map, text).unwrap();
    let table = dir.join("wide.rtb");
    let out = run(
        &[
            "solve",
            map.to_str().unwrap(),
            "-q",
            "--save",
            table.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let server = crate::serve::Server::start(&[&table], &[]);
    let requests = b"GET /api/map?table=wide HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400);
    let readers: Vec<std::net::TcpStream> = (0..520)
        .filter_map(|_| {
            let mut s = std::net::TcpStream::connect(server.addr).ok()?;
            s.set_write_timeout(Some(Duration::from_secs(5))).ok()?;
            s.write_all(&requests).ok()?;
            Some(s)
        })
        .collect();
    assert!(readers.len() >= 512, "{} connections", readers.len());
    // Let the answers fill the sockets' buffers and block the writes.
    std::thread::sleep(Duration::from_secs(1));
    let (tx, rx) = std::sync::mpsc::channel();
    let addr = server.addr;
    std::thread::spawn(move || {
        let mut client = crate::http::Client::new(addr);
        let _ = tx.send(client.get("/api/tables").map(|r| r.status));
    });
    // Well below the idle timer: only shedding answers in time.
    let answer = rx.recv_timeout(Duration::from_secs(6));
    assert!(matches!(answer, Ok(Ok(200))), "{answer:?}");
    drop(readers);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 13: `copnumber --resume` reads a bounded prefix of a record line
/// (a results file whose first line is 6 GB, a sparse file, was read
/// whole: an abort under a memory limit), and refuses records no run
/// writes instead of summing them.
#[test]
fn copnumber_resume_refuses_long_lines_and_impossible_records() {
    let dir = temp_dir("hostile-resume");
    let graphs = "data/graphs/connected-6.g6";
    let long = dir.join("long.jsonl");
    {
        let f = std::fs::File::create(&long).unwrap();
        f.set_len(6 << 30).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&long)
            .unwrap();
        f.write_all(b"\n").unwrap();
    }
    let l = long.to_str().unwrap();
    let out = run_capped(
        2 << 30,
        &["copnumber", graphs, "--out", l, "--resume"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 1: a line of over"),
        "{}",
        stderr(&out)
    );
    // A run's own file, then one field of its first record edited.
    let good = dir.join("good.jsonl");
    let g = good.to_str().unwrap();
    let out = run(&["copnumber", graphs, "--out", g], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&good).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.contains("\"cop_number\":1,"), "{first}");
    let edited = dir.join("edited.jsonl");
    let e = edited.to_str().unwrap();
    for (from, to) in [
        ("\"cop_number\":1,", "\"cop_number\":9,"),
        ("\"cop_number\":1,", "\"cop_number\":0,"),
        ("\"capture_time\":", "\"capture_time\":4000000000,\"x\":"),
        ("\"placement\":[", "\"placement\":[77,"),
        ("\"vertices\":6,", "\"vertices\":7,"),
    ] {
        let mut record = first.replacen(from, to, 1);
        if from == "\"capture_time\":" {
            // Keep the JSON valid: rounds 4e9 and plies to match.
            let v: serde_json::Value = serde_json::from_str(first).unwrap();
            let mut v = v.as_object().unwrap().clone();
            v.insert("capture_time".into(), 4_000_000_000u64.into());
            v.insert("capture_time_plies".into(), 7_999_999_999u64.into());
            record = serde_json::to_string(&v).unwrap();
        }
        assert_ne!(record, first, "{from}");
        std::fs::write(&edited, text.replacen(first, &record, 1)).unwrap();
        let out = run(&["copnumber", graphs, "--out", e, "--resume"], None);
        assert_eq!(out.status.code(), Some(2), "{to}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is not a copnumber results file"),
            "{to}: {}",
            stderr(&out)
        );
    }
    // The unedited file resumes.
    let out = run(&["copnumber", graphs, "--out", g, "--resume"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 16: `--json` gives no capture time when the cops cannot win (as
/// the `--out` records do); a graph with no vertices is refused with its
/// place (it has no cop number; "more than the maximum" was answered).
#[test]
fn copnumber_json_and_graphs_with_no_vertices() {
    let dir = temp_dir("hostile-null");
    let g = dir.join("g.g6");
    std::fs::write(&g, "Cw\n").unwrap();
    let out = run(
        &[
            "copnumber",
            g.to_str().unwrap(),
            "--max-cops",
            "1",
            "--json",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let line: serde_json::Value =
        serde_json::from_str(crate::support::stdout(&out).lines().next().unwrap()).unwrap();
    assert!(line["cop_number"].is_null(), "{line}");
    assert!(line["capture_time"].is_null(), "{line}");
    assert!(line["capture_time_plies"].is_null(), "{line}");
    let s = dir.join("s.g6");
    std::fs::write(&s, "Bg\n?\n").unwrap();
    let edges = dir.join("e.txt");
    std::fs::write(&edges, "# a comment\n# and another\n").unwrap();
    for (path, place) in [(&s, "s.g6:2:1:"), (&edges, "e.txt:1:1:")] {
        let out = run(&["copnumber", path.to_str().unwrap()], None);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(place), "{}", stderr(&out));
        assert!(stderr(&out).contains("no vertices"), "{}", stderr(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 16: `copnumber - --out F < F` is refused as `copnumber F --out F`
/// is (the input was replaced by its results); a write failing after the
/// work (file too large, as on a full disk) exits 1, not 2.
#[test]
fn copnumber_out_on_its_stdin_is_refused_and_a_late_write_failure_exits_1() {
    let dir = temp_dir("hostile-stdin-out");
    let g = dir.join("g.g6");
    std::fs::copy("data/graphs/connected-6.g6", &g).unwrap();
    let before = std::fs::read(&g).unwrap();
    let stdin = std::fs::File::open(&g).unwrap();
    let out = crate::support::bin()
        .args(["copnumber", "-", "--out", g.to_str().unwrap()])
        .stdin(stdin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the graph stream it reads"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&g).unwrap(), before);
    // The same for a map read from standard input and dumped over itself.
    let map = dir.join("m.txt");
    std::fs::copy("data/maps/sample.txt", &map).unwrap();
    let out = crate::support::bin()
        .args(["solve", "-", "--dump", map.to_str().unwrap(), "-q"])
        .stdin(std::fs::File::open(&map).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is the map it reads"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&map).unwrap(),
        std::fs::read("data/maps/sample.txt").unwrap()
    );
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec \"$0\" copnumber {} --out {}",
        g.display(),
        dir.join("c.jsonl").display()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_retrograde"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("c.jsonl"), "{}", stderr(&out));
    assert!(!dir.join("c.jsonl").exists());
    // A checkpoint snapshot (due at once) failing the same way: also 1.
    let mut map = String::from("30 30\n");
    for _ in 0..30 {
        map.push_str(&".".repeat(30));
        map.push('\n');
    }
    let room = dir.join("room.txt");
    std::fs::write(&room, map).unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec \"$0\" solve {} --cops 2 --checkpoint {} \
         --checkpoint-every 0.00001 -q",
        room.display(),
        dir.join("ck").display()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_retrograde"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("checkpoint.rcp"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 16: `copnumber - --out F` acts on SIGTERM while its input is open
/// but idle (it waited for more input or the end before).
#[test]
fn copnumber_out_stops_on_sigterm_while_stdin_is_idle() {
    let dir = temp_dir("hostile-sigterm");
    let results = dir.join("r.jsonl");
    let mut child = crate::support::bin()
        .args(["copnumber", "-", "--out", results.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"Bg\nBw\n").unwrap();
    stdin.flush().unwrap();
    // Started: the results file is checked before reading goes on.
    std::thread::sleep(Duration::from_millis(500));
    crate::support::kill(&child, "TERM");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running 20 s after SIGTERM with stdin open");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    // Stopped as a deferred stop (128 + 15, saying how to go on), or by
    // the signal itself when it came before the deferral began.
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.code() == Some(128 + 15) || out.status.signal() == Some(15),
        "{:?}: {}",
        out.status,
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 14: an edge list is parsed line by line, not kept whole first (16
/// bytes per input byte): 40 MB of `0 1` lines fit a 400 MB address space.
#[test]
fn copnumber_parses_a_long_edge_list_in_little_memory() {
    let dir = temp_dir("hostile-edges");
    let path = dir.join("e.txt");
    std::fs::write(&path, "0 1\n".repeat(10_000_000)).unwrap();
    let out = run_capped(400 << 20, &["copnumber", path.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(crate::support::stdout(&out).contains("cop number 1"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the binary with `args`, killing it and failing when it has not
/// ended within `limit` (the faults below were hangs of minutes).
fn run_within(args: &[&str], limit: Duration) -> Output {
    let mut child = crate::support::bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `retrograde COMMAND --memory 10M -q` (words split at blanks) under a
/// 2 GiB address-space limit, fed `0 1` lines until it stops reading.
fn endless_edges(command: &str) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2097152; exec \"$0\" {command} --memory 10M -q"
        ))
        .arg(env!("CARGO_BIN_EXE_retrograde"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = "0 1\n".repeat(1 << 14);
        // Until the binary stops reading (a broken pipe).
        while pipe.write_all(chunk.as_bytes()).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Item 14: memory caps are kept before the work that would exceed them:
/// `graph -` refuses an endless edge list once what it read needs more
/// than `--memory`; a solve under an address-space limit (`ulimit -v`) is
/// refused with the bytes needed, not aborted by a failed allocation;
/// the explicit engine refuses state arrays past the cap before counting
/// every state's moves; a size near 2^64 does not wrap to a small one.
#[test]
fn memory_caps_are_kept_before_the_work() {
    let dir = temp_dir("hostile-memory");
    // An endless stream of one edge (`yes '0 1'`): refused once the
    // edges read need more than the cap (it was parsed until memory ran
    // out: an abort under the address-space limit), by `graph` and by
    // `solve --graph` alike.
    for command in ["graph -", "solve --graph - --cops 1"] {
        let out = endless_edges(command);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(stderr(&out).contains("read up to line"), "{}", stderr(&out));
    }
    // Two cops on a path of 2000 vertices: about 3 GB of bitsets.
    let path = dir.join("path.txt");
    let edges: String = (0..1999).map(|i| format!("{i} {}\n", i + 1)).collect();
    std::fs::write(&path, edges).unwrap();
    let p = path.to_str().unwrap();
    let out = run_capped(1 << 30, &["solve", "--graph", p, "--cops", "2", "-q"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("needs"), "{}", stderr(&out));
    // 2 cops on a 60 x 60 room: 2.4e10 states, arrays far past 1G.
    let mut map = String::from("60 60\n");
    for _ in 0..60 {
        map.push_str(&".".repeat(60));
        map.push('\n');
    }
    let room = dir.join("room.txt");
    std::fs::write(&room, map).unwrap();
    let r = room.to_str().unwrap();
    let args = [
        "solve", r, "--cops", "2", "--engine", "explicit", "--memory", "1G", "-q",
    ];
    let out = run_within(&args, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("state arrays"), "{}", stderr(&out));
    // 4 cops on a path of 11,500 vertices: 1.68e19 states.
    let long: String = (0..11_499).map(|i| format!("{i} {}\n", i + 1)).collect();
    std::fs::write(&path, long).unwrap();
    let d = dir.to_str().unwrap();
    let args = ["solve", "--graph", p, "--cops", "4", "--engine", "parallel"];
    let out = run(
        &[&args[..], &["--dte-table", "--scratch", d, "-q"]].concat(),
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    // Refusals print the exact count first (`... bytes (16.0 EiB)`).
    let need: f64 = err
        .split("needs ")
        .nth(1)
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(err.contains("EiB"), "{err}");
    assert!(need >= 16_770_056_321_284_875_000.0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 16: a FIFO where `--resume DIR` expects its checkpoint is refused
/// (it blocked the one-cop and the several-cops resume forever).
#[test]
fn a_fifo_checkpoint_is_refused_not_waited_on() {
    let dir = temp_dir("hostile-fifo-checkpoint");
    let ck = dir.join("ck");
    std::fs::create_dir(&ck).unwrap();
    let made = Command::new("mkfifo")
        .arg(ck.join("checkpoint.rcp"))
        .status()
        .unwrap();
    assert!(made.success());
    let c = ck.to_str().unwrap();
    for several in [false, true] {
        let mut args = vec!["solve", "data/maps/sample.txt", "--resume", c, "-q"];
        if several {
            args.extend(["--cops", "2", "--cop", "1,1", "--cop", "1,2"]);
        }
        let out = run_within(&args, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{}",
            stderr(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 16: what the several-cops game ignored is refused: map-only rule
/// flags on a graph, a start for one side alone, and a graph with no
/// vertices (its saved table was refused by the table reader); a seed
/// map's K cop letters are the start of `--cops K`, as the guide says.
#[test]
fn several_cops_refuse_what_they_would_ignore_and_read_k_cop_letters() {
    let dir = temp_dir("hostile-kcops");
    let petersen = [
        "solve",
        "--graph",
        "data/graphs/petersen.txt",
        "--cops",
        "2",
    ];
    let starts = ["--cop", "0", "--cop", "1", "--thief", "5", "-q"];
    for flag in [
        "--thief-diagonal",
        "--cop-orthogonal",
        "--no-corner-cutting",
        "--xy",
    ] {
        let out = run(&[&petersen[..], &starts, &[flag]].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{}", stderr(&out));
        assert!(stderr(&out).contains("for grid maps"), "{}", stderr(&out));
    }
    // Rules that a graph has (passes, who moves first) still run.
    let out = run(
        &[&petersen[..], &starts, &["--no-pass", "--thief-first"]].concat(),
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let p3 = dir.join("p3.txt");
    std::fs::write(&p3, "0 1\n1 2\n").unwrap();
    let p = p3.to_str().unwrap();
    for (lone, missing) in [
        (vec!["--cop", "0", "--cop", "1"], "give --thief"),
        (vec!["--thief", "2"], "give --cop"),
    ] {
        let args = ["solve", "--graph", p, "--cops", "2", "-q"];
        let out = run(&[&args[..], &lone].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{lone:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(missing), "{}", stderr(&out));
    }
    let out = run(
        &[
            "solve",
            "data/maps/sample.txt",
            "--cops",
            "2",
            "--thief",
            "5,9",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // No vertices: graph6 `?`, an empty edge list, comments only.
    let table = dir.join("t.rtb");
    for (name, text, place) in [
        ("g.g6", "?\n", "g.g6:1:1:"),
        ("empty.txt", "", "empty.txt:1:1:"),
        ("comments.txt", "# one\n# two\n", "comments.txt:1:1:"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let args = ["solve", "--graph", path.to_str().unwrap(), "--cops", "1"];
        let out = run(
            &[&args[..], &["--save", table.to_str().unwrap(), "-q"]].concat(),
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(place), "{name}: {}", stderr(&out));
        assert!(!table.exists(), "{name}: a table was left");
    }
    // Two cop letters (C and P): the start of --cops 2; a third is refused
    // at its place, and the one-cop game still takes one letter only.
    let two = dir.join("two.txt");
    std::fs::write(&two, "5 5\nC...E\n.....\n..T..\n.....\nE...P\n").unwrap();
    let t = two.to_str().unwrap();
    let out = run(&["solve", t, "--cops", "2", "-q"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = crate::support::stdout(&out);
    assert!(text.starts_with("result: "), "{text}");
    assert!(!text.contains("result: none"), "{text}");
    let flags = run(
        &[
            "solve", t, "--cops", "2", "--cop", "0,0", "--cop", "4,4", "--thief", "2,2", "-q",
        ],
        None,
    );
    assert_eq!(
        crate::support::stdout(&flags).lines().next(),
        text.lines().next(),
        "the letters' start and the same start as flags"
    );
    let out = run(&["solve", t, "-q"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("two.txt:6:5: a second cop start"),
        "{}",
        stderr(&out)
    );
    let three = dir.join("three.txt");
    std::fs::write(&three, "3 3\nC.P\n.T.\nP..\n").unwrap();
    let out = run(
        &["solve", three.to_str().unwrap(), "--cops", "2", "-q"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("three.txt:4:1: cop start 3"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `graph F --dump F` (and `graph - --dump F < F`) is refused before the
/// solve, as `solve`'s dump over its map is: the edge list is left as it
/// was, with no temporary file beside it.
#[test]
fn graph_dump_over_its_own_input_is_refused() {
    let dir = temp_dir("hostile-graph-dump-input");
    let g = dir.join("g.txt");
    let edges = "0 1\n1 2\n";
    std::fs::write(&g, edges).unwrap();
    let path = g.to_str().unwrap();
    let out = run(&["graph", path, "--dump", path, "-q"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is the graph it reads"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty(), "refused before any work");
    // Through another name of the same file, and read from standard input.
    let other = format!("{}/./g.txt", dir.display());
    let out = run(&["graph", path, "--dump", &other, "-q"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = crate::support::bin()
        .args(["graph", "-", "--dump", path, "-q"])
        .stdin(std::fs::File::open(&g).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is the graph it reads"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&g).unwrap(), edges);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench MAP --export-csv MAP` (and `--export-json`, `--export-markdown`)
/// is refused before the runs: the map is left as it was.
#[test]
fn bench_export_over_a_map_it_reads_is_refused() {
    let dir = temp_dir("hostile-bench-export-input");
    let map = dir.join("m.txt");
    std::fs::copy("data/maps/sample.txt", &map).unwrap();
    let before = std::fs::read(&map).unwrap();
    let path = map.to_str().unwrap();
    for flag in ["--export-csv", "--export-json", "--export-markdown"] {
        // The map second of two, so every map is noted, not the first alone.
        let out = run(
            &["bench", "data/maps/sample.txt", path, flag, path, "-q"],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{flag} {path}: is the map it reads")),
            "{flag}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "{flag}: refused before the runs");
        assert_eq!(std::fs::read(&map).unwrap(), before, "{flag}");
    }
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
