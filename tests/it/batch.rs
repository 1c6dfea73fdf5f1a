//! `retrograde batch` run as a process over temporary directories built from
//! committed data/ maps and maps written by the tests: rows for good and bad
//! files, exit status, `--resume` (also after a SIGKILL), CSV output, and
//! agreement of every row with `retrograde solve` on the same map.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

/// A temporary directory unique to this process and `name`, emptied first.
fn temp_dir(name: &str) -> PathBuf {
    crate::support::temp_dir(&format!("batch-{name}"))
}

/// The committed map folder `data/maps/<sub>`.
fn data_maps(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/maps")
        .join(sub)
}

/// The binary, run in `dir`.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = crate::support::bin();
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary in `dir` to completion.
fn run(dir: &Path, args: &[&str]) -> Output {
    command(dir, args)
        .output()
        .expect("run the retrograde binary")
}

/// The rows of a JSON Lines results file.
fn rows(path: &Path) -> Vec<Json> {
    std::fs::read_to_string(path)
        .expect("results file")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON row"))
        .collect()
}

/// Rows by path, without the fields that vary from run to run (time and
/// memory), for comparing runs.
fn stable_rows(path: &Path) -> BTreeMap<String, Json> {
    let mut by_path = BTreeMap::new();
    for mut row in rows(path) {
        let object = row.as_object_mut().expect("row object");
        object.remove("seconds");
        object.remove("peak_memory_bytes");
        let key = object["map"].as_str().expect("map").to_string();
        assert!(
            by_path.insert(key.clone(), row).is_none(),
            "{key} has two rows"
        );
    }
    by_path
}

/// Copies every file of `from` into `to`.
fn copy_all(from: &Path, to: &Path) -> usize {
    std::fs::create_dir_all(to).unwrap();
    let mut copied = 0;
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            copied += 1;
        }
    }
    copied
}

/// A seed map of `rows` x `cols` with about one wall in eight (from
/// `seed`), every free border cell an exit, the cop near the top left and
/// the thief near the centre.
fn open_map(rows: usize, cols: usize, seed: u64) -> String {
    let mut next = crate::support::xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut grid: Vec<Vec<char>> = (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| {
                    let state = next();
                    let border = r == 0 || c == 0 || r + 1 == rows || c + 1 == cols;
                    match (state.is_multiple_of(8), border) {
                        (true, _) => '*',
                        (false, true) => 'E',
                        (false, false) => '.',
                    }
                })
                .collect()
        })
        .collect();
    grid[1][1] = 'C';
    grid[rows / 2][cols / 2] = 'T';
    let mut text = format!("{rows} {cols}\n");
    for row in grid {
        text.extend(row);
        text.push('\n');
    }
    text
}

/// A directory of seed maps, MovingAI maps and bad files; returns the
/// number of map files (good and bad) batch should report.
fn mixed_directory(dir: &Path) -> usize {
    let mut maps = copy_all(&data_maps("seed"), &dir.join("seed"));
    maps += copy_all(&data_maps("movingai"), &dir.join("nested/movingai"));
    std::fs::write(dir.join("empty.map"), b"").unwrap();
    std::fs::write(dir.join("binary.map"), b"\x7fELF\x00\x01\xff\xfe").unwrap();
    std::fs::write(dir.join("ragged.txt"), b"3 4\nC..E\n..\n...T\n").unwrap();
    maps += 3;
    // Not maps: ignored without a row.
    std::fs::write(dir.join("notes.txt"), b"maps for the batch test\n").unwrap();
    std::fs::write(dir.join("results.csv"), b"a,b\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("../..", dir.join("nested/movingai/loop")).unwrap();
    maps
}

#[test]
fn mixed_directory_gives_a_row_per_map_and_resume_solves_nothing_again() {
    let dir = temp_dir("mixed");
    let maps = mixed_directory(&dir.join("maps"));
    let out = run(&dir, &["batch", "maps", "--out", "results.jsonl"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad map makes the exit status 1"
    );
    let results = dir.join("results.jsonl");
    let first = rows(&results);
    assert_eq!(first.len(), maps, "one row per map, none for notes.txt");
    let status = |path: &str| {
        first
            .iter()
            .find(|r| r["map"] == path)
            .unwrap_or_else(|| panic!("no row for {path}"))["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(status("maps/empty.map").starts_with("maps/empty.map:1:1: empty file"));
    assert!(status("maps/binary.map").starts_with("maps/binary.map:1:"));
    assert!(status("maps/binary.map").contains("binary"));
    assert!(status("maps/ragged.txt").starts_with("maps/ragged.txt:3:3: "));
    let ok = first.iter().filter(|r| r["status"] == "ok").count();
    assert_eq!(ok, maps - 3);
    let no_start = &first
        .iter()
        .find(|r| r["map"] == "maps/nested/movingai/maze-32-32-2.map")
        .unwrap();
    assert!(no_start["result"].is_null());
    assert!(no_start["share"]["cop_wins"].is_number());
    assert!(no_start["longest"]["dte"].as_u64().unwrap() > 0);
    // The summary on stdout is sorted by path and names every map.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = stdout
        .lines()
        .skip(1)
        .take(maps)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted);
    assert!(
        stdout.contains(&format!("{} solved, 3 failed", maps - 3)),
        "{stdout}"
    );

    let again = run(
        &dir,
        &["batch", "maps", "--out", "results.jsonl", "--resume"],
    );
    assert_eq!(again.status.code(), Some(1), "the bad maps fail again");
    let stdout = String::from_utf8(again.stdout).unwrap();
    assert!(
        stdout.contains(&format!(
            "0 solved, 3 failed, 0 skipped (too large), {} already done",
            maps - 3
        )),
        "{stdout}"
    );
    let second = rows(&results);
    assert_eq!(second.len(), maps, "no map gets a second row");
    // The ok rows are kept byte for byte, timings included: not re-solved.
    for row in first.iter().filter(|r| r["status"] == "ok") {
        assert!(second.contains(row), "row changed on resume: {row}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_row_equals_solve_on_that_map() {
    let dir = temp_dir("agree");
    mixed_directory(&dir.join("maps"));
    std::fs::write(dir.join("maps/open.txt"), open_map(9, 11, 5)).unwrap();
    for flags in [
        &[][..],
        &[
            "--thief-diagonal",
            "--no-corner-cutting",
            "--exits",
            "random:3:7",
        ][..],
    ] {
        let mut args = vec!["batch", "maps", "--out", "results.jsonl", "--quiet"];
        args.extend(flags);
        assert_eq!(run(&dir, &args).status.code(), Some(1));
        for row in rows(&dir.join("results.jsonl")) {
            let path = row["map"].as_str().unwrap();
            let mut args = vec!["solve", "--json", path];
            args.extend(flags);
            let solve = run(&dir, &args);
            if row["status"] != "ok" {
                assert_eq!(solve.status.code(), Some(2), "{path} fails in solve too");
                continue;
            }
            assert!(solve.status.success(), "{path}: {solve:?}");
            let report: Json = serde_json::from_slice(&solve.stdout).unwrap();
            // One vocabulary: a row's keys mean what solve's mean.
            for field in [
                "schema",
                "map",
                "format",
                "width",
                "height",
                "cells",
                "exits",
                "exit_checksum",
                "states",
                "result",
                "dte",
                "counts",
            ] {
                assert_eq!(row[field], report[field], "{path} {flags:?}: {field}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn start_pair_share_and_longest_match_the_state_dump() {
    let dir = temp_dir("dump");
    std::fs::copy(
        data_maps("movingai").join("empty-8-8.map"),
        dir.join("empty.map"),
    )
    .unwrap();
    let flags = ["--exits", "random:4:11"];
    let mut args = vec!["batch", "empty.map", "--out", "r.jsonl", "-q"];
    args.extend(flags);
    assert_eq!(run(&dir, &args).status.code(), Some(0));
    let row = rows(&dir.join("r.jsonl")).remove(0);
    let mut args = vec!["solve", "empty.map", "--dump", "dump.csv"];
    args.extend(flags);
    assert!(run(&dir, &args).status.success());
    // Independent tally from the dump: cop to move, cop != thief; the
    // cop's verdict is the mover's value.
    let dump = std::fs::read_to_string(dir.join("dump.csv")).unwrap();
    let mut tally = BTreeMap::new();
    let mut deepest = 0;
    let mut dte_of = BTreeMap::new();
    for line in dump.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[4] != "cop" {
            continue;
        }
        let dte: Option<u64> = f[6].parse().ok();
        deepest = deepest.max(dte.unwrap_or(0));
        dte_of.insert((f[0], f[1], f[2], f[3]), dte);
        if (f[0], f[1]) != (f[2], f[3]) {
            *tally.entry(f[5]).or_insert(0u64) += 1;
        }
    }
    let pairs: u64 = tally.values().sum();
    assert_eq!(row["pairs"], pairs);
    for (key, value) in [
        ("cop_wins", "win"),
        ("thief_escapes", "loss"),
        ("draw", "draw"),
    ] {
        let share = row["share"][key].as_f64().unwrap();
        let count = tally.get(value).copied().unwrap_or(0);
        assert!((share * pairs as f64 - count as f64).abs() < 1e-6, "{key}");
    }
    let longest = &row["longest"];
    assert_eq!(longest["dte"], deepest);
    let at = |k: &str, i: usize| longest[k][i].to_string();
    let (cr, cc, tr, tc) = (at("cop", 0), at("cop", 1), at("thief", 0), at("thief", 1));
    assert_eq!(
        dte_of[&(cr.as_str(), cc.as_str(), tr.as_str(), tc.as_str())],
        Some(deepest),
        "the reported pair reaches the longest distance"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_batch_resumes_to_the_rows_of_an_uninterrupted_one() {
    let dir = temp_dir("kill");
    let maps = dir.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    // Enough work (~0.1-0.3 s a map on one core) that the kill lands mid-run.
    let count = 20;
    for k in 0..count {
        let side = 30 + k % 4 * 5;
        std::fs::write(
            maps.join(format!("open-{k:02}.txt")),
            open_map(side, side + 3, k as u64),
        )
        .unwrap();
    }
    let whole = run(&dir, &["batch", "maps", "--out", "whole.jsonl", "-q"]);
    assert_eq!(whole.status.code(), Some(0), "{whole:?}");
    let expected = stable_rows(&dir.join("whole.jsonl"));
    assert_eq!(expected.len(), count);

    let out = dir.join("killed.jsonl");
    let mut child = command(&dir, &["batch", "maps", "--out", "killed.jsonl", "-q"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let written = loop {
        let lines = std::fs::read_to_string(&out).map_or(0, |t| t.matches('\n').count());
        if lines >= 1 {
            break lines;
        }
        assert!(Instant::now() < deadline, "no row written within a minute");
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = rows(&out).len();
    assert!(
        written >= 1 && kept < count,
        "the kill should land mid-run ({kept} of {count} rows)"
    );
    // What a kill in the middle of a write leaves: a line without its end.
    let mut torn = std::fs::read(&out).unwrap();
    torn.extend_from_slice(b"{\"path\":\"maps/open-0");
    std::fs::write(&out, torn).unwrap();

    let resumed = run(
        &dir,
        &["batch", "maps", "--out", "killed.jsonl", "--resume", "-q"],
    );
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    let stdout = String::from_utf8(resumed.stdout).unwrap();
    assert!(
        stdout.contains(&format!("{} solved", count - kept)),
        "only the missing maps are solved: {stdout}"
    );
    assert_eq!(stable_rows(&out), expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn csv_output_skips_and_usage_errors() {
    let dir = temp_dir("csv");
    copy_all(&data_maps("seed"), &dir.join("maps"));
    std::fs::write(dir.join("maps/big.txt"), open_map(12, 12, 3)).unwrap();
    let seeds = copy_all(&data_maps("seed"), &dir.join("unused"));

    let bad = run(&dir, &["batch", "maps", "--out", "results.txt"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains(".jsonl"));
    assert!(!dir.join("results.txt").exists());
    let empty = dir.join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(
        run(&dir, &["batch", "nothing", "--out", "r.csv"])
            .status
            .code(),
        Some(2)
    );

    let out = run(
        &dir,
        &[
            "batch",
            "maps",
            "--out",
            "results.csv",
            "--max-states",
            "20000",
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "a skipped map is not a failure");
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0]
        .starts_with("map,scen,scen_line,bucket,cop_row,cop_col,thief_row,thief_col,format,width,height,cells,exits,exit_checksum,states,result,dte,"));
    assert!(lines[0].ends_with(",status"));
    assert_eq!(lines.len(), 1 + seeds + 1);
    let big = lines
        .iter()
        .find(|l| l.starts_with("maps/big.txt,"))
        .unwrap();
    assert!(big.ends_with(",skipped: too large"), "{big}");
    assert!(big.contains(",seed,12,12,"), "{big}");

    // Resuming re-checks the skipped map; with a larger limit it is solved.
    let again = run(
        &dir,
        &["batch", "maps", "--out", "results.csv", "--resume", "-q"],
    );
    assert_eq!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stdout).contains("1 solved"));
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(text.lines().count(), 1 + seeds + 1);
    let big = text
        .lines()
        .find(|l| l.starts_with("maps/big.txt,"))
        .unwrap();
    assert!(big.ends_with(",ok"), "{big}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 11, "batch never hangs": a FIFO, a socket-free special file and
/// the same map under two spellings in a walked directory. The FIFO has no
/// writer, so opening it for reading would block forever: it must become
/// an error row without being opened.
#[test]
fn special_files_never_hang_and_one_file_is_solved_once() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("special");
    let maps = dir.join("maps");
    copy_all(&data_maps("seed"), &maps);
    let fifo = maps.join("pipe.map");
    let name = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: `name` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    // Two names that are not UTF-8 and differ only in the invalid byte.
    let map = std::fs::read(data_maps("seed").join("line.txt")).unwrap();
    for byte in [0xffu8, 0xfe] {
        let raw = [b"odd-".as_slice(), &[byte], b".txt"].concat();
        std::fs::write(maps.join(std::ffi::OsStr::from_bytes(&raw)), &map).unwrap();
    }
    let seeds = std::fs::read_dir(data_maps("seed")).unwrap().count();
    let mut child = command(
        &dir,
        &["batch", "maps", "./maps/line.txt", "--out", "r.jsonl", "-q"],
    )
    .spawn()
    .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("batch hangs on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(1), "the FIFO row is a failure");
    let rows = rows(&dir.join("r.jsonl"));
    // Each map once, whatever the spelling; both odd names kept apart.
    assert_eq!(rows.len(), seeds + 2 + 1, "{rows:#?}");
    let pipe: Vec<&Json> = rows
        .iter()
        .filter(|r| r["map"].as_str().unwrap().ends_with("pipe.map"))
        .collect();
    assert_eq!(pipe.len(), 1);
    assert!(
        pipe[0]["status"].as_str().unwrap().contains("a FIFO"),
        "{}",
        pipe[0]
    );
    let hex: Vec<&str> = rows.iter().filter_map(|r| r["map_hex"].as_str()).collect();
    assert_eq!(hex.len(), 2, "{rows:#?}");
    assert_ne!(hex[0], hex[1]);
    // Resume keys rows by raw path: nothing is solved again.
    let again = run(
        &dir,
        &[
            "batch",
            "maps",
            "./maps/line.txt",
            "--out",
            "r.jsonl",
            "--resume",
            "-q",
        ],
    );
    assert_eq!(again.status.code(), Some(1));
    let summary = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(summary.contains(" 0 solved"), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 11, "resume is safe": foreign files are refused (JSON Lines and
/// CSV), rows solved with other flags are refused naming the difference,
/// and CSV fields with quotes, commas and line breaks survive a resume.
#[test]
fn resume_refuses_foreign_files_and_other_flags() {
    let dir = temp_dir("resume-safe");
    let maps = dir.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    let map = std::fs::read(data_maps("seed").join("line.txt")).unwrap();
    std::fs::write(maps.join("plain.txt"), &map).unwrap();
    std::fs::write(maps.join("two\nlines, \"quoted\".txt"), &map).unwrap();
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();

    // Foreign files are refused and left alone.
    for (name, text) in [
        (
            "foreign.jsonl",
            "{\"path\":\"maps/plain.txt\",\"status\":\"ok\"}\n",
        ),
        ("foreign.csv", "path,status\nmaps/plain.txt,ok\n"),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let out = run(&dir, &["batch", "maps", "--out", name, "--resume", "-q"]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a batch results file"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), text);
    }

    for out_file in ["r.csv", "r.jsonl"] {
        let first = run(
            &dir,
            &["batch", "maps", "--out", out_file, "--no-pass", "-q"],
        );
        assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
        let written = std::fs::read(dir.join(out_file)).unwrap();
        // Other flags: refused, naming what differs, file untouched.
        let other = run(
            &dir,
            &[
                "batch",
                "maps",
                "--out",
                out_file,
                "--resume",
                "--thief-first",
                "-q",
            ],
        );
        assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
        let err = stderr(&other);
        assert!(
            err.contains("`--no-cop-pass --no-thief-pass`") && err.contains("`--thief-first`"),
            "{err}"
        );
        assert_eq!(std::fs::read(dir.join(out_file)).unwrap(), written);
        // The same flags: every row is reused, byte for byte.
        let again = run(
            &dir,
            &[
                "batch",
                "maps",
                "--out",
                out_file,
                "--resume",
                "--no-pass",
                "-q",
            ],
        );
        assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
        let summary = String::from_utf8_lossy(&again.stdout).into_owned();
        assert!(
            summary.contains("0 solved") && summary.contains("2 already done"),
            "{summary}"
        );
        assert_eq!(std::fs::read(dir.join(out_file)).unwrap(), written);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--resume` drops a torn last line only after a complete row of its own
/// (the CSV header included): a file of one line without a line end (a
/// user's JSON, binary bytes) is refused and left as it was, not emptied.
#[test]
fn resume_refuses_a_file_of_one_unended_line() {
    let dir = temp_dir("resume-unended");
    let maps = dir.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    let map = std::fs::read(data_maps("seed").join("line.txt")).unwrap();
    std::fs::write(maps.join("plain.txt"), &map).unwrap();
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    // 100 bytes of binary, none of them a line end.
    let binary: Vec<u8> = (0..100u32)
        .map(|k| (k.wrapping_mul(2_654_435_761) >> 7) as u8 | 0x80)
        .collect();
    let cases: [(&str, &[u8]); 4] = [
        ("user.jsonl", br#"{"important": "data", "keep": true}"#),
        ("binary.jsonl", &binary),
        ("binary.csv", &binary),
        ("half-header.csv", b"map,format,wid"),
    ];
    for (name, content) in cases {
        std::fs::write(dir.join(name), content).unwrap();
        let out = run(&dir, &["batch", "maps", "--out", name, "--resume", "-q"]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a batch results file") && stderr(&out).contains("line 1"),
            "{name}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(dir.join(name)).unwrap(), content, "{name}");
    }
    // After something of its own, a torn last line is still dropped: the
    // CSV header alone, or an empty file, resumes.
    let header = run(&dir, &["batch", "maps", "--out", "h.csv", "-q"]);
    assert_eq!(header.status.code(), Some(0), "{}", stderr(&header));
    let text = std::fs::read_to_string(dir.join("h.csv")).unwrap();
    let first = &text[..=text.find('\n').unwrap()];
    for (name, content) in [
        ("h.csv", format!("{first}maps/pl")),
        ("e.jsonl", String::new()),
    ] {
        std::fs::write(dir.join(name), content).unwrap();
        let out = run(&dir, &["batch", "maps", "--out", name, "--resume", "-q"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 solved"),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: Ctrl-C in a batch lets the maps in flight finish, prints the
/// partial summary and how to go on (`--resume`), exits 130; the resumed
/// batch ends with the rows of an uninterrupted one.
#[test]
fn ctrl_c_prints_the_partial_summary_and_the_resume_hint() {
    let dir = temp_dir("sigint");
    let maps = dir.join("maps");
    std::fs::create_dir_all(&maps).unwrap();
    let count = 20;
    for k in 0..count {
        let side = 30 + k % 4 * 5;
        std::fs::write(
            maps.join(format!("open-{k:02}.txt")),
            open_map(side, side + 3, k as u64),
        )
        .unwrap();
    }
    let out = dir.join("rows.jsonl");
    let child = command(&dir, &["batch", "maps", "--out", "rows.jsonl", "-q"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&out).map_or(0, |t| t.matches('\n').count()) < 1 {
        assert!(Instant::now() < deadline, "no row written within a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child's pid, which has not been waited for.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let stopped = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&stopped.stdout);
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{stdout}\n{stderr}");
    let kept = rows(&out).len();
    assert!(
        kept < count,
        "the stop should land mid-run ({kept} of {count})"
    );
    assert!(stdout.contains(&format!("{kept} solved")), "{stdout}");
    assert!(
        stderr.contains("stopping after the maps in flight"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "interrupted: {} of {count} maps not solved",
            count - kept
        )) && stderr.contains("--resume"),
        "{stderr}"
    );
    let resumed = run(
        &dir,
        &["batch", "maps", "--out", "rows.jsonl", "--resume", "-q"],
    );
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(rows(&out).len(), count);
    std::fs::remove_dir_all(&dir).unwrap();
}
