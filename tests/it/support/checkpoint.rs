//! The kill / resume harness of the `--checkpoint` tests (`checkpoint.rs`,
//! for one cop and for several): start a checkpointing
//! solve, wait for its first checkpoint, stop it with SIGKILL or SIGTERM,
//! check how it ended, resume it and compare with an uninterrupted solve.
//! What a solve is (engine, cops, map, flags) stays with the test file.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::kill;

/// How the checkpointing solve is stopped, and so what it must have done.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// `kill -KILL`: no handler runs; the process fails.
    Kill,
    /// `kill -TERM`: the solve saves a checkpoint and exits with 128 + 15,
    /// saying so on standard error and printing nothing on standard output.
    Term,
}

/// One interrupted solve and its resume, in `dir` (checkpoints in
/// `dir/ck`, dumps `dir/whole.csv` and `dir/resumed.csv`).
pub struct Interrupted<'a, S: Fn(&[&str], &Path) -> Output> {
    /// The folder of the test.
    pub dir: &'a Path,
    /// The checkpointing solve with all its flags but `--checkpoint DIR
    /// --checkpoint-every SECONDS`, which the harness adds.
    pub checkpointing: Command,
    /// The `--checkpoint-every` seconds: small enough that a checkpoint
    /// lands mid-solve.
    pub every: &'a str,
    /// A solve of the same game with `extra` flags, dumping into the file
    /// given: the uninterrupted run (no flags) and the resume.
    pub solve: S,
    /// Flags the resume adds after `--resume DIR`.
    pub resume_flags: &'a [&'a str],
}

impl<S: Fn(&[&str], &Path) -> Output> Interrupted<'_, S> {
    /// Stops the checkpointing solve with `stop` after its first
    /// checkpoint, checks how it ended, and asserts that the resumed run
    /// and the uninterrupted one agree on the report and the dump.
    pub fn assert_resumes(self, stop: Stop) {
        let Interrupted {
            dir,
            checkpointing,
            every,
            solve,
            resume_flags,
        } = self;
        let checkpoints = dir.join("ck");
        let stopped = interrupt(checkpointing, &checkpoints, every, stop);
        match stop {
            Stop::Kill => assert!(!stopped.status.success()),
            Stop::Term => {
                let err = String::from_utf8_lossy(&stopped.stderr);
                assert_eq!(stopped.status.code(), Some(128 + 15), "{err}");
                assert!(err.contains("checkpoint after level"), "{err}");
                assert!(stopped.stdout.is_empty());
            }
        }
        let whole = solve(&[], &dir.join("whole.csv"));
        let mut resume = vec!["--resume", checkpoints.to_str().unwrap()];
        resume.extend_from_slice(resume_flags);
        let resumed = solve(&resume, &dir.join("resumed.csv"));
        assert_eq!(report(&resumed), report(&whole));
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        assert!(read("whole.csv") == read("resumed.csv"), "dumps differ");
    }
}

/// Starts `solve` checkpointing into `checkpoints` every `every` seconds,
/// waits for its first checkpoint and sends the signal of `stop`; returns
/// what the process did.
fn interrupt(mut solve: Command, checkpoints: &Path, every: &str, stop: Stop) -> Output {
    let child = solve
        .arg("--checkpoint")
        .arg(checkpoints)
        .args(["--checkpoint-every", every])
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
    let signal = match stop {
        Stop::Kill => "KILL",
        Stop::Term => "TERM",
    };
    kill(&child, signal);
    child.wait_with_output().unwrap()
}

/// What must agree between runs: the report without its time line (the
/// solve must have succeeded).
pub fn report(output: &Output) -> String {
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
