//! `solve --checkpoint DIR` / `--resume DIR` through the binary, for one
//! cop (the grid kernel) and for two (the several-cops kernel, `solve
//! --cops 2`): a solve killed (SIGKILL) or stopped (SIGTERM) and resumed
//! gives what an uninterrupted one gives (the two-cop resume with its
//! arrays in scratch files); resumes with another map, rules, placement,
//! cops, speeds, distance setting or engine, of the other kernel's file,
//! or of damaged files are refused with exit status 2. Also the two-cop
//! solve out of core: `--memory` below the need with `--scratch DIR` gives
//! the in-memory dump byte for byte, and without a folder is refused with
//! the bytes needed.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::checkpoint::{report, Interrupted, Stop};
use crate::support::{bin, temp_dir};

/// The game a test solves, with what makes its solve long enough to be
/// interrupted mid-way: each kernel needs its own corridor length and
/// snapshot period.
#[derive(Clone, Copy)]
struct Game {
    /// The flags that pick the kernel: the bitboard engine on one cop, or
    /// `--cops 2` (whose default engine is the bitboard's several-cops
    /// kernel).
    flags: &'static [&'static str],
    /// One cop on the map (a placed cop and thief) or several (none).
    one_cop: bool,
    /// The side of the serpentine corridor.
    side: usize,
    /// `--checkpoint-every` seconds: small enough that a snapshot lands
    /// mid-solve.
    every: &'static str,
    /// The memory cap under which the resume puts its arrays in scratch
    /// files (the several-cops kernel streams a checkpoint into them), if
    /// it does.
    resume_cap: Option<&'static str>,
    /// Whether the checkpointing solve runs out of core too (under
    /// `resume_cap`).
    checkpoint_out_of_core: bool,
}

/// One cop: a 41 x 41 corridor has a level count in the thousands.
const ONE_COP: Game = Game {
    flags: &["--engine", "bitboard"],
    one_cop: true,
    side: 41,
    every: "0.0005",
    resume_cap: None,
    checkpoint_out_of_core: false,
};

/// One cop out of core: the bitboard engine's passes of several levels
/// over its scratch files, stopped between two passes and resumed out of
/// core (the 41 x 41 corridor's distance table, 2.9 MiB, is over the cap).
const ONE_COP_OUT_OF_CORE: Game = Game {
    resume_cap: Some("3M"),
    checkpoint_out_of_core: true,
    ..ONE_COP
};

/// Two cops: a 15 x 15 corridor takes a few hundred levels, a second or
/// so.
const TWO_COPS: Game = Game {
    flags: &["--cops", "2"],
    one_cop: false,
    side: 15,
    every: "0.0003",
    resume_cap: Some("1M"),
    checkpoint_out_of_core: false,
};

/// A `side` x `side` serpentine corridor (odd `side`) with an exit (so the
/// thief can win: every bitset of the several-cops kernel) and about
/// `side`^2 / 2 free cells; with `one_cop`, a cop in one corner and the
/// thief in the other.
fn serpentine(dir: &Path, side: usize, one_cop: bool) -> PathBuf {
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
    if one_cop {
        rows[0][0] = 'C';
        rows[side - 1][side - 1] = 'T';
    }
    rows[side / 2 - 1][side / 2] = 'E';
    let mut text = format!("{side} {side}\n");
    for row in rows {
        text.extend(row);
        text.push('\n');
    }
    let path = dir.join("serpentine.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// A solve of `game` on `map` with `extra` flags, dumping into `dump`.
fn solve(game: Game, map: &Path, extra: &[&str], dump: &Path) -> Output {
    bin()
        .args(["solve", "-q"])
        .arg(map)
        .args(game.flags)
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

/// A serpentine solve of `game` with distances (out of core when the game
/// says so), stopped by `stop` after its first checkpoint, resumes (in
/// scratch files when the game has a cap) to what an uninterrupted solve
/// gives.
fn assert_interrupted_resumes(dir: &Path, game: Game, stop: Stop) {
    let map = serpentine(dir, game.side, game.one_cop);
    let mut checkpointing = bin();
    checkpointing
        .args(["solve", "-q", "--dte-table"])
        .arg(&map)
        .args(game.flags);
    let scratch = game
        .resume_cap
        .map(|cap| ["--memory", cap, "--scratch", dir.to_str().unwrap()]);
    if game.checkpoint_out_of_core {
        checkpointing.args(scratch.expect("a cap"));
    }
    Interrupted {
        dir,
        checkpointing,
        every: game.every,
        solve: |extra: &[&str], dump: &Path| solve(game, &map, extra, dump),
        resume_flags: scratch.as_ref().map_or(&[][..], |s| &s[..]),
    }
    .assert_resumes(stop);
}

#[test]
fn killed_solve_resumes_to_the_same_result() {
    for (game, name) in [
        (ONE_COP, "one"),
        (ONE_COP_OUT_OF_CORE, "one-ooc"),
        (TWO_COPS, "two"),
    ] {
        let dir = temp_dir(&format!("checkpoint-kill-{name}"));
        assert_interrupted_resumes(&dir, game, Stop::Kill);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn sigterm_saves_a_checkpoint_and_exits() {
    for (game, name) in [
        (ONE_COP, "one"),
        (ONE_COP_OUT_OF_CORE, "one-ooc"),
        (TWO_COPS, "two"),
    ] {
        let dir = temp_dir(&format!("checkpoint-term-{name}"));
        assert_interrupted_resumes(&dir, game, Stop::Term);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A checkpoint of `map` solved with `flags`, in `dir/ck`, and the resume
/// of it: `resume(extra, map)` gives the exit code and standard error of
/// `solve -q MAP EXTRA --resume DIR/ck`.
struct Resumable {
    dir: PathBuf,
    ck: String,
}

impl Resumable {
    fn new(dir: &Path, map: &str, flags: &[&str]) -> Resumable {
        std::fs::create_dir_all(dir).unwrap();
        let ck = dir.join("ck").to_str().unwrap().to_string();
        // The solve finishes but its table cannot be written (exit status
        // 1), so its checkpoint stays, as a stopped solve's does: a solve
        // that finished and delivered removes its own.
        let made = bin()
            .args(["solve", "-q", map])
            .args(flags)
            .args(["--checkpoint", &ck, "--checkpoint-every", "0.0000001"])
            .args(["--save", "/dev/full"])
            .output()
            .unwrap();
        assert_eq!(made.status.code(), Some(1), "{}", code_and_err(&made).1);
        assert!(dir.join("ck").join("checkpoint.rcp").is_file());
        Resumable {
            dir: dir.to_path_buf(),
            ck,
        }
    }

    fn resume(&self, extra: &[&str], map: &str) -> (Option<i32>, String) {
        let out = bin()
            .args(["solve", "-q", map])
            .args(extra)
            .args(["--resume", &self.ck])
            .output()
            .unwrap();
        code_and_err(&out)
    }

    /// The unchanged `flags` resume and finish, and the finished solve
    /// removes its checkpoint (DIR stays), saying so.
    fn assert_resumes_and_removes(&self, flags: &[&str], map: &str) {
        let out = bin()
            .args(["solve", map])
            .args(flags)
            .args(["--resume", &self.ck])
            .output()
            .unwrap();
        let (code, err) = code_and_err(&out);
        assert_eq!(code, Some(0), "{err}");
        let file = self.dir.join("ck").join("checkpoint.rcp");
        assert!(!file.exists(), "{} stayed: {err}", file.display());
        assert!(self.dir.join("ck").is_dir());
        assert!(
            err.contains(&format!("removed the checkpoint {}", file.display())),
            "{err}"
        );
    }

    /// Each `(flags, field)` of `others` is refused, naming `field`.
    fn assert_refused(&self, map: &str, others: &[(&[&str], &str)]) {
        for (other, field) in others {
            let (code, err) = self.resume(other, map);
            assert_eq!(code, Some(2), "{other:?}: {err}");
            assert!(err.contains(field), "{other:?}: {err}");
        }
    }

    /// A counter engine asked to checkpoint with `flags`: what it says.
    fn counter_engine(&self, map: &str, flags: &[&str]) -> (Option<i32>, String) {
        let out = bin()
            .args(["solve", "-q", map, "--engine", "parallel", "--checkpoint"])
            .arg(&self.ck)
            .args(flags)
            .output()
            .unwrap();
        code_and_err(&out)
    }

    /// The checkpoint truncated, then with one byte flipped, is refused
    /// with its offset, then its checksum; the file is left damaged.
    fn assert_damage_refused(&self, map: &str, flags: &[&str]) {
        let file = self.dir.join("ck").join("checkpoint.rcp");
        let good = std::fs::read(&file).unwrap();
        std::fs::write(&file, &good[..good.len() / 2]).unwrap();
        let (code, err) = self.resume(flags, map);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("checkpoint.rcp: offset"), "{err}");
        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 1;
        std::fs::write(&file, &flipped).unwrap();
        let (code, err) = self.resume(flags, map);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("checksum"), "{err}");
    }
}

#[test]
fn resume_refuses_other_flags_damaged_files_and_other_engines() {
    let dir = temp_dir("checkpoint-refuse");
    let map = "data/maps/movingai/maze-32-32-2.map";
    let flags = ["--exits", "border", "--cop", "1,1", "--thief", "16,15"];
    let ck = Resumable::new(&dir, map, &flags);
    ck.assert_refused(
        map,
        &[
            (&[&flags[..], &["--no-pass"]].concat(), "another rules"),
            (
                &["--exits", "border", "--cop", "1,1", "--thief", "16,16"],
                "another placement",
            ),
            (
                &[&flags[..], &["--dte-table"]].concat(),
                "another distance table",
            ),
        ],
    );
    ck.assert_refused(
        "data/maps/movingai/empty-8-8.map",
        &[(&["--cop", "1,1", "--thief", "16,15"], "another map")],
    );
    assert_eq!(ck.counter_engine(map, &[]).0, Some(2));
    ck.assert_resumes_and_removes(&flags, map);
    let ck = Resumable::new(&dir, map, &flags);
    ck.assert_damage_refused(map, &flags);
    let file = dir.join("ck").join("checkpoint.rcp");
    std::fs::write(&file, b"not a checkpoint").unwrap();
    let (code, err) = ck.resume(&flags, map);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a retrograde checkpoint"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kcop_resume_refuses_foreign_checkpoints() {
    let dir = temp_dir("kcops-checkpoint-refuse");
    let map = "data/maps/movingai/empty-8-8.map";
    let flags = ["--cops", "2", "--thief-speed", "2"];
    let ck = Resumable::new(&dir, map, &flags);
    ck.assert_refused(
        map,
        &[
            (&["--cops", "3", "--thief-speed", "2"], "another cops"),
            (&["--cops", "2"], "another speeds"),
            (
                &["--cops", "2", "--thief-speed", "2", "--no-pass"],
                "another rules",
            ),
            (
                &["--cops", "2", "--thief-speed", "2", "--dte-table"],
                "another distance table",
            ),
        ],
    );
    ck.assert_refused(
        "data/maps/movingai/maze-32-32-2.map",
        &[(&flags, "another map")],
    );
    // A one-cop solve does not read it, nor a k-cop solve a one-cop one.
    ck.assert_refused(map, &[(&[], "not a retrograde checkpoint")]);
    let one = Resumable::new(&dir.join("one-cop"), map, &[]);
    one.assert_refused(map, &[(&flags, "one-cop checkpoint")]);
    // Counter engines keep no checkpoints.
    let (code, err) = ck.counter_engine(map, &flags);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("need --engine bitboard"), "{err}");
    ck.assert_resumes_and_removes(&flags, map);
    let ck = Resumable::new(&dir, map, &flags);
    ck.assert_damage_refused(map, &flags);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kcop_scratch_files_give_the_same_dump() {
    let dir = temp_dir("kcops-scratch-cli");
    let map = Path::new("data/maps/movingai/empty-8-8.map");
    let solve = |extra: &[&str], dump: &str| solve(TWO_COPS, map, extra, &dir.join(dump));
    let whole = solve(&[], "memory.csv");
    let scratch = dir.to_str().unwrap();
    let files = solve(&["--memory", "200K", "--scratch", scratch], "scratch.csv");
    assert_eq!(report(&files), report(&whole));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    assert!(read("memory.csv") == read("scratch.csv"), "dumps differ");
    // A folder alone puts every array it can in files.
    let alone = solve(&["--scratch", scratch], "alone.csv");
    assert_eq!(report(&alone), report(&whole));
    assert!(read("memory.csv") == read("alone.csv"), "dumps differ");
    // No scratch file is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".scratch"))
        .collect();
    assert!(left.is_empty());
    // Without a folder: in files in the temporary folder, as a one-cop
    // solve spills, with the same dump.
    let spilled = solve(&["--memory", "200K"], "spilled.csv");
    assert_eq!(report(&spilled), report(&whole));
    assert!(read("memory.csv") == read("spilled.csv"), "dumps differ");
    // Under the arrays that cannot go to files: refused before solving,
    // with the bytes needed.
    let refused = solve(&["--memory", "1K"], "refused.csv");
    let (code, err) = code_and_err(&refused);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("needs") && err.contains("raise --memory"),
        "{err}"
    );
    assert!(!dir.join("refused.csv").exists());
    // A cap below what cannot go to files: refused too.
    let refused = solve(&["--memory", "2K", "--scratch", scratch], "refused.csv");
    let (code, err) = code_and_err(&refused);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot go to scratch files"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit finding 1: `--checkpoint-every` past the documented bound (365
/// days) is a usage error before the checkpoint directory is made, for one
/// cop and for two (1e300 and 1e18 minutes panicked converting to a
/// `Duration`, exit 101, and left the empty directory behind).
#[test]
fn a_checkpoint_period_past_a_year_is_refused_before_the_directory_is_made() {
    let dir = temp_dir("checkpoint-every-huge");
    let map = dir.join("ce.txt");
    std::fs::write(&map, "2 3\nC.T\n..E\n").unwrap();
    let map = map.to_str().unwrap();
    let ck = dir.join("ck");
    let ck_arg = ck.to_str().unwrap();
    let cases: [(&[&str], &str, &str); 3] = [
        (
            &[],
            "1e300",
            "--checkpoint-every 1e300: at most 525600 minutes",
        ),
        (
            &["--cops", "2", "--cop", "0,0", "--cop", "0,1"],
            "1e18",
            "--checkpoint-every 1e18: at most 525600 minutes",
        ),
        (&[], "525600.5", "--checkpoint-every 525600.5: at most"),
    ];
    for (flags, every, needle) in cases {
        let out = bin()
            .args(["solve", "-q", map, "--checkpoint", ck_arg])
            .args(["--checkpoint-every", every])
            .args(flags)
            .output()
            .unwrap();
        let (code, err) = code_and_err(&out);
        assert_eq!(code, Some(2), "{every}: {err}");
        assert!(err.contains(needle), "{every}: {err}");
        assert!(!ck.exists(), "{every}: {} was made", ck.display());
    }
    // The bound itself is taken.
    let out = bin()
        .args(["solve", "-q", map, "--checkpoint", ck_arg])
        .args(["--checkpoint-every", "525600"])
        .output()
        .unwrap();
    assert_eq!(code_and_err(&out).0, Some(0), "{}", code_and_err(&out).1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit finding 8: a refused resume names what differs as the flags are
/// typed (it printed Rust's `Debug` dumps: `cop [], thief None, exit [],
/// exits [Border]`, `Rules { cop_diagonal: true, ... }`); the placement
/// is the cells meant, ROW,COL whatever `--xy` (a checkpoint of `--xy
/// --cop 1,0` resumed as `--cop 1,0`, another cell).
#[test]
fn a_refused_resume_names_the_flags_that_differ() {
    let dir = temp_dir("checkpoint-refused-flags");
    let map = dir.join("ck.txt");
    std::fs::write(&map, "4 6\nC.....\n......\n......\n....TE\n").unwrap();
    let map = map.to_str().unwrap();
    let plain = Resumable::new(&dir.join("plain"), map, &[]);
    for (flags, expected) in [
        (
            &["--exits", "border"][..],
            "another placement: the map's starts and exits there, --exits border now",
        ),
        (
            &["--thief-diagonal"][..],
            "another rules: the standard rules there, --thief-diagonal now",
        ),
    ] {
        let (code, err) = plain.resume(flags, map);
        assert_eq!(code, Some(2), "{flags:?}: {err}");
        assert!(err.contains(expected), "{flags:?}: {err}");
    }
    let flags = [
        "--xy",
        "--cop",
        "1,0",
        "--exits",
        "random:2:7",
        "--no-corner-cutting",
    ];
    let placed = Resumable::new(&dir.join("placed"), map, &flags);
    let (code, err) = placed.resume(&flags, map);
    assert_eq!(code, Some(0), "{err}");
    // That solve finished and removed its checkpoint: another one.
    let placed = Resumable::new(&dir.join("placed"), map, &flags);
    // The same cell without --xy resumes; the same numbers are another cell.
    let same = [
        "--cop",
        "0,1",
        "--exits",
        "random:2:7",
        "--no-corner-cutting",
    ];
    let (code, err) = placed.resume(&same, map);
    assert_eq!(code, Some(0), "{err}");
    let placed = Resumable::new(&dir.join("placed"), map, &flags);
    let (code, err) = placed.resume(&["--cop", "1,0", "--exits", "random:2:7"], map);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "another placement: --cop 0,1 --exits random:2:7 there, --cop 1,0 --exits random:2:7 now"
        ),
        "{err}"
    );
    let (code, err) = placed.resume(&same[..4], map);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("another rules: --no-corner-cutting there, the standard rules now"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 47, friction 4: Ctrl-C without `--checkpoint` ended the solve
/// silently (exit status 130); it says what was lost and how to make the
/// next solve resumable.
#[test]
fn ctrl_c_without_a_checkpoint_says_what_was_lost() {
    use std::process::Stdio;
    use std::time::Duration;
    let dir = temp_dir("checkpoint-none-sigint");
    // Thousands of levels: seconds of solving.
    let map = serpentine(&dir, 81, true);
    let child = bin()
        .args(["solve", "-q", "--dte-table"])
        .arg(&map)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    crate::support::kill(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let (code, err) = code_and_err(&out);
    // Ended by the signal itself, as without the note (a shell says 130).
    use std::os::unix::process::ExitStatusExt;
    let ended = (code, out.status.signal());
    assert!(
        matches!(ended, (Some(130), _) | (None, Some(2))),
        "{ended:?}: {err}"
    );
    assert!(
        err.contains("stopped: ") && err.contains(" of solving (level "),
        "{err}"
    );
    assert!(
        err.contains("lost; without --checkpoint nothing is saved"),
        "{err}"
    );
    assert!(
        err.contains("--checkpoint DIR") && err.contains("--resume DIR"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
