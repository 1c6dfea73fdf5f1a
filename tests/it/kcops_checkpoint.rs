//! `solve --cops K` (the bit-parallel k-cop engine) out of core and with
//! checkpoints, through the binary: `--memory` below the need with
//! `--scratch DIR` gives the in-memory dump byte for byte and without a
//! folder is refused with the bytes needed; a solve killed (SIGKILL) or
//! stopped (SIGTERM) after a checkpoint and resumed gives the same report
//! and dump; checkpoints of another map, cops, speeds, rules or engine
//! are refused with exit status 2.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::checkpoint::{report, Interrupted, Stop};
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

/// A two-cop serpentine solve with distances, stopped by `stop` after its
/// first checkpoint and resumed with its arrays in scratch files, gives
/// what an uninterrupted solve gives.
fn assert_interrupted_resumes(dir: &Path, stop: Stop) {
    let map = serpentine(dir, 15);
    let mut checkpointing = bin();
    checkpointing
        .args(["solve", "-q", "--dte-table"])
        .arg(&map)
        .args(COPS);
    Interrupted {
        dir,
        checkpointing,
        every: "0.0003",
        solve: |extra: &[&str], dump: &Path| solve(&map, extra, dump),
        resume_flags: &["--memory", "1M", "--scratch", dir.to_str().unwrap()],
    }
    .assert_resumes(stop);
}

#[test]
fn killed_kcop_solve_resumes_to_the_same_dump() {
    let dir = temp_dir("kcops-checkpoint-kill");
    assert_interrupted_resumes(&dir, Stop::Kill);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_saves_a_kcop_checkpoint_and_exits() {
    let dir = temp_dir("kcops-checkpoint-term");
    assert_interrupted_resumes(&dir, Stop::Term);
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
