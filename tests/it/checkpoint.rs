//! `solve --checkpoint DIR` / `--resume DIR` through the binary: a solve
//! killed (SIGKILL) or stopped (SIGTERM) and resumed gives what an
//! uninterrupted one gives; resumes with other flags or damaged files are
//! refused with exit status 2.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::checkpoint::{Interrupted, Stop};
use crate::support::{bin, temp_dir};

/// A `side` x `side` serpentine corridor (odd `side`): about `side`^2 / 2
/// free cells and a level count in the thousands, so a solve runs long
/// enough to be interrupted and checkpoints land mid-solve.
fn serpentine(dir: &Path, side: usize) -> PathBuf {
    let mut rows: Vec<Vec<char>> = (0..side)
        .map(|r| {
            if r % 2 == 0 {
                vec!['.'; side]
            } else {
                let mut row = vec!['*'; side];
                row[if (r / 2) % 2 == 0 { side - 1 } else { 0 }] = '.';
                row
            }
        })
        .collect();
    rows[0][0] = 'C';
    rows[side / 2 - 1][side / 2] = 'E';
    rows[side - 1][side - 1] = 'T';
    let mut text = format!("{side} {side}\n");
    for row in rows {
        text.extend(row);
        text.push('\n');
    }
    let path = dir.join("serpentine.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn solve(map: &Path, extra: &[&str], dump: &Path) -> Output {
    bin()
        .args(["solve", "-q", "--engine", "bitboard"])
        .arg(map)
        .arg("--dump")
        .arg(dump)
        .args(extra)
        .output()
        .unwrap()
}

/// A serpentine solve with distances, stopped by `stop` after its first
/// checkpoint, resumes to what an uninterrupted solve gives.
fn assert_interrupted_resumes(dir: &Path, stop: Stop) {
    let map = serpentine(dir, 41);
    let mut checkpointing = bin();
    checkpointing
        .args(["solve", "-q", "--engine", "bitboard", "--dte-table"])
        .arg(&map);
    Interrupted {
        dir,
        checkpointing,
        every: "0.0005",
        solve: |extra: &[&str], dump: &Path| solve(&map, extra, dump),
        resume_flags: &[],
    }
    .assert_resumes(stop);
}

#[test]
fn killed_solve_resumes_to_the_same_result() {
    let dir = temp_dir("checkpoint-kill");
    assert_interrupted_resumes(&dir, Stop::Kill);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_saves_a_checkpoint_and_exits() {
    let dir = temp_dir("checkpoint-term");
    assert_interrupted_resumes(&dir, Stop::Term);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resume_refuses_other_flags_damaged_files_and_other_engines() {
    let dir = temp_dir("checkpoint-refuse");
    let map = "data/maps/movingai/maze-32-32-2.map";
    let flags = ["--exits", "border", "--cop", "1,1", "--thief", "16,15"];
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    let made = bin()
        .args(["solve", "-q", map])
        .args(flags)
        .args(["--checkpoint", ck, "--checkpoint-every", "0.0000001"])
        .output()
        .unwrap();
    assert!(made.status.success());
    let resume = |extra: &[&str], map: &str| {
        let out = bin()
            .args(["solve", "-q", map])
            .args(extra)
            .args(["--resume", ck])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The unchanged flags resume.
    assert_eq!(resume(&flags, map).0, Some(0));
    let mut other_rules = flags.to_vec();
    other_rules.push("--no-pass");
    let (code, err) = resume(&other_rules, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another rules"), "{err}");
    let (code, err) = resume(
        &["--exits", "border", "--cop", "1,1", "--thief", "16,16"],
        map,
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another placement"), "{err}");
    let (code, err) = resume(
        &["--cop", "1,1", "--thief", "16,15"],
        "data/maps/movingai/empty-8-8.map",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another map"), "{err}");
    let mut with_dte = flags.to_vec();
    with_dte.push("--dte-table");
    let (code, err) = resume(&with_dte, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another distance table"), "{err}");
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
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
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
    std::fs::write(&file, b"not a checkpoint").unwrap();
    let (code, err) = resume(&flags, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a retrograde checkpoint"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
