//! `solve --cops K` (the bit-parallel k-cop engine) out of core and with
//! checkpoints, through the binary: `--memory` below the need with
//! `--scratch DIR` gives the in-memory dump byte for byte and without a
//! folder is refused with the bytes needed; a solve killed (SIGKILL) or
//! stopped (SIGTERM) after a checkpoint and resumed gives the same report
//! and dump; checkpoints of another map, cops, speeds, rules or engine
//! are refused with exit status 2.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{bin, temp_dir};

/// A `side` x `side` serpentine corridor with an exit (so the thief can
/// win: all eight bitsets) and about `side`^2 / 2 cells: two cops take
/// a few hundred levels, a second or so.
fn serpentine(dir: &Path, side: usize) -> PathBuf {
    let mut text = format!("{side} {side}\n");
    for r in 0..side {
        let row: String = (0..side)
            .map(|c| {
                if r % 2 == 0 {
                    if (r, c) == (side / 2 - 1, side / 2) {
                        'E'
                    } else {
                        '.'
                    }
                } else if c == if (r / 2) % 2 == 0 { side - 1 } else { 0 } {
                    '.'
                } else {
                    '*'
                }
            })
            .collect();
        text.push_str(&row);
        text.push('\n');
    }
    let path = dir.join("serpentine.txt");
    std::fs::write(&path, text).unwrap();
    path
}

const COPS: [&str; 2] = ["--cops", "2"];

/// The report without its time line.
fn report(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.starts_with("time:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn solve(map: &Path, extra: &[&str], dump: &Path) -> Output {
    bin()
        .args(["solve", "-q"])
        .arg(map)
        .args(COPS)
        .arg("--dump")
        .arg(dump)
        .args(extra)
        .output()
        .unwrap()
}

fn code_and_err(out: &Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scratch_files_give_the_same_dump() {
    let dir = temp_dir("kcops-scratch-cli");
    let map = Path::new("data/maps/movingai/empty-8-8.map");
    let whole = solve(map, &[], &dir.join("memory.csv"));
    let scratch = dir.to_str().unwrap();
    let files = solve(
        map,
        &["--memory", "200K", "--scratch", scratch],
        &dir.join("scratch.csv"),
    );
    assert_eq!(report(&files), report(&whole));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert!(read("memory.csv") == read("scratch.csv"), "dumps differ");
    // A folder alone puts every array it can in files.
    let alone = solve(map, &["--scratch", scratch], &dir.join("alone.csv"));
    assert_eq!(report(&alone), report(&whole));
    assert!(read("memory.csv") == read("alone.csv"), "dumps differ");
    // No scratch file is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".scratch"))
        .collect();
    assert!(left.is_empty());
    // Without a folder: refused before solving, with the bytes needed.
    let refused = solve(map, &["--memory", "200K"], &dir.join("refused.csv"));
    let (code, err) = code_and_err(&refused);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("needs") && err.contains("--scratch DIR"),
        "{err}"
    );
    assert!(!dir.join("refused.csv").exists());
    // A cap below what cannot go to files: refused too.
    let refused = solve(
        map,
        &["--memory", "2K", "--scratch", scratch],
        &dir.join("refused.csv"),
    );
    let (code, err) = code_and_err(&refused);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot go to scratch files"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts a checkpointing solve (out of core), waits for its first
/// checkpoint and sends `signal`.
fn interrupt(map: &Path, dir: &Path, signal: &str) -> Output {
    let checkpoints = dir.join("ck");
    let child: Child = bin()
        .args(["solve", "-q", "--dte-table"])
        .arg(map)
        .args(COPS)
        .arg("--checkpoint")
        .arg(&checkpoints)
        .args(["--checkpoint-every", "0.0003"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !checkpoints.join("checkpoint.rcp").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no checkpoint written"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let killed = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait_with_output().unwrap()
}

/// The uninterrupted run and a run resumed from `dir/ck` (with its
/// arrays in scratch files) agree on the report and the dump.
fn assert_resume_matches(map: &Path, dir: &Path) {
    let whole = solve(map, &[], &dir.join("whole.csv"));
    let ck = dir.join("ck");
    let scratch = dir.to_str().unwrap();
    let resumed = solve(
        map,
        &[
            "--resume",
            ck.to_str().unwrap(),
            "--memory",
            "1M",
            "--scratch",
            scratch,
        ],
        &dir.join("resumed.csv"),
    );
    assert_eq!(report(&resumed), report(&whole));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert!(read("whole.csv") == read("resumed.csv"), "dumps differ");
}

#[test]
fn killed_kcop_solve_resumes_to_the_same_dump() {
    let dir = temp_dir("kcops-checkpoint-kill");
    let map = serpentine(&dir, 15);
    let killed = interrupt(&map, &dir, "KILL");
    assert!(!killed.status.success());
    assert_resume_matches(&map, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_saves_a_kcop_checkpoint_and_exits() {
    let dir = temp_dir("kcops-checkpoint-term");
    let map = serpentine(&dir, 15);
    let stopped = interrupt(&map, &dir, "TERM");
    let (code, err) = code_and_err(&stopped);
    assert_eq!(code, Some(128 + 15), "{err}");
    assert!(err.contains("checkpoint after level"), "{err}");
    assert!(stopped.stdout.is_empty());
    assert_resume_matches(&map, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kcop_resume_refuses_foreign_checkpoints() {
    let dir = temp_dir("kcops-checkpoint-refuse");
    let map = "data/maps/movingai/empty-8-8.map";
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    let flags = ["--cops", "2", "--thief-speed", "2"];
    let made = bin()
        .args(["solve", "-q", map])
        .args(flags)
        .args(["--checkpoint", ck, "--checkpoint-every", "0.0000001"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", code_and_err(&made).1);
    let resume = |extra: &[&str], map: &str| {
        let out = bin()
            .args(["solve", "-q", map])
            .args(extra)
            .args(["--resume", ck])
            .output()
            .unwrap();
        code_and_err(&out)
    };
    assert_eq!(resume(&flags, map).0, Some(0));
    for (other, field) in [
        (&["--cops", "3", "--thief-speed", "2"][..], "another cops"),
        (&["--cops", "2"][..], "another speeds"),
        (
            &["--cops", "2", "--thief-speed", "2", "--no-pass"][..],
            "another rules",
        ),
        (
            &["--cops", "2", "--thief-speed", "2", "--dte-table"][..],
            "another distance table",
        ),
    ] {
        let (code, err) = resume(other, map);
        assert_eq!(code, Some(2), "{other:?}: {err}");
        assert!(err.contains(field), "{other:?}: {err}");
    }
    let (code, err) = resume(&flags, "data/maps/movingai/maze-32-32-2.map");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another map"), "{err}");
    // A one-cop solve does not read it, nor a k-cop solve a one-cop one.
    let (code, err) = resume(&[], map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a retrograde checkpoint"), "{err}");
    let one = dir.join("one");
    let one = one.to_str().unwrap();
    let made = bin()
        .args(["solve", "-q", map, "--checkpoint", one])
        .args(["--checkpoint-every", "0.0000001"])
        .output()
        .unwrap();
    assert!(made.status.success());
    let out = bin()
        .args(["solve", "-q", map])
        .args(flags)
        .args(["--resume", one])
        .output()
        .unwrap();
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("one-cop checkpoint"), "{err}");
    // Counter engines keep no checkpoints.
    let out = bin()
        .args([
            "solve",
            "-q",
            map,
            "--engine",
            "parallel",
            "--checkpoint",
            ck,
        ])
        .args(flags)
        .output()
        .unwrap();
    let (code, err) = code_and_err(&out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("need --engine bitboard"), "{err}");
    // Damaged: truncated, then one flipped byte.
    let file = dir.join("ck").join("checkpoint.rcp");
    let good = std::fs::read(&file).unwrap();
    std::fs::write(&file, &good[..good.len() / 2]).unwrap();
    let (code, err) = resume(&flags, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("checkpoint.rcp: offset"), "{err}");
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 1;
    std::fs::write(&file, &flipped).unwrap();
    let (code, err) = resume(&flags, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("checksum"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
