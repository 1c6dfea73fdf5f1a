//! Issue 47's census faults: a DIR of another census of files, two runs
//! into one DIR, forged shard files (checksums recomputed) and special
//! files where shards are read, a stop while the generator floods its pipe;
//! and `copnumber MAP --lazy --json`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::support::{bin, kill, run, run_refused, run_status, stderr, stdout, temp_dir};

/// The committed graph6 file of the 112 connected graphs on 6 vertices.
const SIX: &str = "data/graphs/connected-6.g6";

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A census of the six-vertex graphs dealt out to three shards by `awk`
/// into `dir`; its three shard files.
fn three_shards(dir: &Path) -> Vec<PathBuf> {
    let gen = format!("awk 'NR % {{mod}} == {{res}}' {SIX}");
    run_status(
        &[
            "copnumber",
            "census",
            "--quiet",
            "-n",
            "6",
            "--shards",
            "3",
            "--generator",
            &gen,
            "--out",
            s(dir),
        ],
        0,
    );
    (0..3)
        .map(|i| dir.join(format!("shard-{i:04}-of-0003.txt")))
        .collect()
}

/// `text` with its body edited by `edit` and its checksum line recomputed,
/// as a forger would.
fn resealed(text: &str, edit: impl Fn(&str) -> String) -> String {
    let body_end = text.trim_end().rfind('\n').unwrap() + 1;
    let body = edit(&text[..body_end]);
    let sum: String = Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{body}sha256 {sum}\n")
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
    let (hold, started) = (dir.join("hold"), dir.join("started"));
    std::fs::write(&hold, "").unwrap();
    // The first run's shards wait while `hold` exists: it is at work in
    // DIR once `started` is there.
    let dealer = format!("awk 'NR % {{mod}} == {{res}}' {SIX}");
    let waiting = format!(
        "touch {}; while [ -e {} ]; do sleep 0.05; done; {dealer}",
        s(&started),
        s(&hold)
    );
    let out = dir.join("D");
    let args = |extra: &[&'static str], gen: &str| -> Vec<String> {
        let mut a = vec!["copnumber", "census", "-q", "-n", "6", "--shards", "3"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--generator", gen, "--out", s(&out)]);
        a.into_iter().map(String::from).collect()
    };
    let first = bin()
        .args(args(&[], &waiting))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !started.exists() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Another census (another --max-cops, a generator that does not wait)
    // into the same DIR, while the first works.
    let second = args(&["--max-cops", "2"], &dealer);
    let second = run(&second.iter().map(String::as_str).collect::<Vec<_>>(), None);
    // The first run ends whatever the second did.
    std::fs::remove_file(&hold).unwrap();
    let ended = first.wait_with_output().unwrap();
    assert!(started.exists(), "the first run never started its shards");
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    let err = stderr(&second);
    assert!(
        err.contains("another `copnumber census` is running") && err.contains(s(&out)),
        "{err}"
    );
    assert_eq!(ended.status.code(), Some(0), "{}", stderr(&ended));
    assert!(stdout(&ended).contains("graphs: 112\n"));
    // The lock ends with its run: the same census again reads it back.
    let same = args(&[], &waiting);
    let again = run(&same.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&ended));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An edit of a shard file's body.
type Edit = Box<dyn Fn(&str) -> String>;

#[test]
fn copnumber_merge_and_census_refuse_forged_shards() {
    let dir = temp_dir("census-forged");
    let shards = three_shards(&dir.join("E"));
    let text = std::fs::read_to_string(&shards[0]).unwrap();
    let gen = format!("awk 'NR % {{mod}} == {{res}}' {SIX}");
    // Each forgery: the edit, the file name it is given, what the refusal
    // says.
    let replace = |old: &'static str, new: &'static str| {
        move |body: &str| {
            assert!(body.contains(old), "{old}");
            body.replacen(old, new, 1)
        }
    };
    let insert_after = |after: &'static str, lines: String| {
        move |body: &str| {
            let at = body.find(after).unwrap() + after.len();
            format!("{}{lines}{}", &body[..at], &body[at..])
        }
    };
    let many_rounds: String = (10..160)
        .map(|c| format!("cops {c} rounds 1048576 graphs 1\n"))
        .collect();
    let forged: Vec<(&str, Edit, &str)> = vec![
        (
            "shard-0005-of-0003.txt",
            Box::new(replace("\nshard 0 input", "\nshard 5 input")),
            "shard 5 of a census of 3 shards",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace("cops 1 graphs 22\n", "cops 1 graphs 2200\n")),
            "2200 graphs, but its capture times count 22",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace(
                "cops 1 rounds 1 graphs 12\n",
                "cops 1 rounds 1 graphs 5\n",
            )),
            "22 graphs, but its capture times count 15",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace("graphs 37\n", "graphs 38\n")),
            "38 graphs, but the cop numbers count 37",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace(
                "cops 1 longest 3 graphs 1\n",
                "cops 1 longest 2 graphs 9\n",
            )),
            "plies among the graphs of the longest",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(insert_after("\ngraphs 37\n", many_rounds)),
            "expected a cop number 1 to 4",
        ),
        (
            "shard-0000-of-0003.txt",
            // Consistent counts, a capture time no 6-vertex graph has:
            // nothing is sized by it.
            Box::new(|body: &str| {
                body.replacen(
                    "cops 1 rounds 3 graphs 1\n",
                    "cops 1 rounds 1048576 graphs 1\n",
                    1,
                )
                .replacen(
                    "cops 1 longest 3 graphs 1\n",
                    "cops 1 longest 1048576 graphs 1\n",
                    1,
                )
                .replacen(
                    "placement 1 plies 5\n",
                    "placement 1 plies 2097151\n",
                    1,
                )
            }),
            "a capture time of 1048576 rounds on graphs of 6 vertices",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace("placement 1 plies 5", "placement 9 plies 5")),
            "a placement of 1 cops on vertices 0 to 5",
        ),
        (
            "shard-0000-of-0003.txt",
            Box::new(replace("max-cops 4\n", "max-cops 400\n")),
            "max-cops 400: expected 1 to 4",
        ),
    ];
    for (i, (name, edit, needle)) in forged.iter().enumerate() {
        let d = dir.join(format!("F{i}"));
        std::fs::create_dir_all(&d).unwrap();
        for p in &shards {
            std::fs::copy(p, d.join(p.file_name().unwrap())).unwrap();
        }
        std::fs::write(d.join(name), resealed(&text, edit)).unwrap();
        let err = run_refused(&["copnumber", "merge", s(&d)], needle);
        assert!(err.contains(name), "{err}");
        // The census on that DIR refuses it too (no panic).
        let out = run(
            &[
                "copnumber",
                "census",
                "-q",
                "-n",
                "6",
                "--shards",
                "3",
                "--generator",
                &gen,
                "--out",
                s(&d),
            ],
            None,
        );
        assert!(
            out.status.code() == Some(2) && !stderr(&out).contains("panicked"),
            "{name}: {:?} {}",
            out.status,
            stderr(&out)
        );
    }
    // Unedited, the same resealing merges: the refusals are the edits'.
    let d = dir.join("same");
    std::fs::create_dir_all(&d).unwrap();
    for p in &shards {
        std::fs::copy(p, d.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::write(
        d.join("shard-0000-of-0003.txt"),
        resealed(&text, str::to_string),
    )
    .unwrap();
    run_status(&["copnumber", "merge", s(&d)], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_merge_refuses_special_files_promptly() {
    let dir = temp_dir("census-special");
    let shards = three_shards(&dir.join("E"));
    let fifo = &shards[1];
    std::fs::remove_file(fifo).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Bounded, so that a build without the fix fails instead of waiting
    // for a writer forever or reading /dev/zero into all of memory.
    let bounded = || {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1000000; exec timeout 10 \"$0\" copnumber merge \"$1\"")
            .arg(env!("CARGO_BIN_EXE_retrograde"))
            .arg(dir.join("E"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        stderr(&out)
    };
    let err = bounded();
    assert!(err.contains(s(fifo)) && err.contains("FIFO"), "{err}");
    std::fs::remove_file(fifo).unwrap();
    std::os::unix::fs::symlink("/dev/zero", fifo).unwrap();
    let err = bounded();
    assert!(err.contains(s(fifo)) && err.contains("a device"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_census_stopped_while_its_generator_floods_ends() {
    let dir = temp_dir("census-stop-flood");
    // Whole lines slowly (the census waits in its read when the stop
    // comes), then a flood that fills the pipe.
    let gen = dir.join("gen.sh");
    std::fs::write(
        &gen,
        "#!/bin/sh\ni=0\nwhile [ $i -lt 300 ]; do echo DQw; sleep 0.01; i=$((i+1)); done\nexec yes DQw\n",
    )
    .unwrap();
    let child = bin()
        .args([
            "copnumber",
            "census",
            "-q",
            "-n",
            "5",
            "--shards",
            "1",
            "--generator",
            &format!("sh {}", s(&gen)),
            "--out",
            s(&dir.join("D")),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    kill(&child, "INT");
    let pid = child.id();
    let (send, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    let Ok(out) = ended.recv_timeout(Duration::from_secs(20)) else {
        // Not left behind to hang the test run.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
        panic!("the census still runs 20 s after SIGINT");
    };
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stopped: 0 of the 1 shards"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_map_lazy_json_says_lazy() {
    let args = |lazy: bool| {
        let mut a = vec![
            "copnumber",
            "data/maps/sample.txt",
            "--json",
            "--max-cops",
            "2",
        ];
        if lazy {
            a.push("--lazy");
        }
        let out = run_status(&a, 0);
        serde_json::from_str::<serde_json::Value>(stdout(&out).trim()).unwrap()
    };
    assert_eq!(args(true)["lazy"], serde_json::Value::Bool(true));
    // Left out without it, as for graphs.
    assert!(args(false).get("lazy").is_none());
}
