//! Issue 47's census faults: a DIR of another census of files, two runs
//! into one DIR, forged shard files (checksums recomputed) and special
//! files where shards are read, a stop while the generator floods its pipe;
//! and `copnumber MAP --lazy --json`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{bin, kill, run, run_refused, run_status, stderr, stdout, temp_dir};

/// The committed graph6 file of the 112 connected graphs on 6 vertices.
const SIX: &str = "data/graphs/connected-6.g6";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn copnumber_census_of_files_refuses_a_dir_of_other_files() {
    let dir = temp_dir("census-files-other");
    let six = std::fs::read_to_string(SIX).unwrap();
    let lines: Vec<&str> = six.lines().collect();
    let part = |name: &str, range: std::ops::Range<usize>| {
        let p = dir.join(name);
        std::fs::write(&p, lines[range].join("\n") + "\n").unwrap();
        p
    };
    let (a, b) = (part("a.g6", 0..10), part("b.g6", 10..30));
    let (c, d) = (part("c.g6", 30..80), part("d.g6", 80..112));
    let out = dir.join("D");
    let first = run_status(
        &["copnumber", "census", "-q", s(&a), s(&b), "--out", s(&out)],
        0,
    );
    assert!(
        stdout(&first).contains("graphs: 30\n"),
        "{}",
        stdout(&first)
    );
    let census = std::fs::read(out.join("census.txt")).unwrap();
    // Another census of as many files: refused, both files named, the
    // census there left as it was.
    let err = run_refused(
        &["copnumber", "census", "-q", s(&c), s(&d), "--out", s(&out)],
        "holds shards of another census",
    );
    assert!(err.contains(s(&a)) && err.contains(s(&c)), "{err}");
    assert_eq!(std::fs::read(out.join("census.txt")).unwrap(), census);
    // The same files again, by another name of theirs: the census there.
    let again = bin()
        .current_dir(&dir)
        .args(["copnumber", "census", "-q", "a.g6", "b.g6", "--out", "D"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("graphs: 30\n"),
        "{}",
        stdout(&again)
    );
    // The other census in a DIR of its own counts its own graphs.
    let other = run_status(
        &[
            "copnumber",
            "census",
            "-q",
            s(&c),
            s(&d),
            "--out",
            s(&dir.join("E")),
        ],
        0,
    );
    assert!(
        stdout(&other).contains("graphs: 82\n"),
        "{}",
        stdout(&other)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_census_refuses_a_second_run_into_its_dir() {
    let dir = temp_dir("census-lock");
    let hold = dir.join("hold");
    std::fs::write(&hold, "").unwrap();
    // The first run's shards wait while `hold` exists: it holds DIR.
    let gen = format!(
        "while [ -e {} ]; do sleep 0.05; done; awk 'NR % {{mod}} == {{res}}' {SIX}",
        s(&hold)
    );
    let out = dir.join("D");
    let args = |extra: &[&'static str]| -> Vec<String> {
        let mut a = vec!["copnumber", "census", "-q", "-n", "6", "--shards", "3"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--generator", gen.as_str(), "--out", s(&out)]);
        a.into_iter().map(String::from).collect()
    };
    let first = bin()
        .args(args(&[]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !out.join(".census.lock").exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "no lock came");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The file is made just before it is locked.
    std::thread::sleep(Duration::from_millis(300));
    // Another census (another --max-cops) into the same DIR, at once.
    let second = args(&["--max-cops", "2"]);
    let second: Vec<&str> = second.iter().map(String::as_str).collect();
    let t = Instant::now();
    let err = run_refused(&second, "another `copnumber census` is running");
    assert!(err.contains(s(&out)), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10), "refused at once");
    std::fs::remove_file(&hold).unwrap();
    let ended = first.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(0), "{}", stderr(&ended));
    assert!(stdout(&ended).contains("graphs: 112\n"));
    // The lock ends with its run: the same census again reads it back.
    let same = args(&[]);
    let again = run(&same.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&ended));
    std::fs::remove_dir_all(&dir).unwrap();
}
