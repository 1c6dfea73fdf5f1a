//! Issue 47's faults under resource limits: a file size limit (`ulimit -f`)
//! on `--save` and on scratch files, an address-space limit (`ulimit -v`)
//! on a two-cop solve. Each ran into a signal (SIGXFSZ, an aborted
//! allocation) instead of an error of the tool's own.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::{stderr, temp_dir};

/// A 20 x 20 map with walls and border exits: 328 cells, so two cops make
/// 35,395,136 states (17.5 MiB of bitsets) solved in seconds.
const MAP20: &str = "20 20
EEEE*EEEEEEEEEEEEEEE
EC..*...*..........E
E...*....*..*....*.E
E*.*......*.*......E
E........*.....**..E
E........*.........E
E....*.**.*....*...E
E...*.*..*.**.....*E
*.......*.......*..E
E*.....**.T.*..*...E
E*.*...**.*........E
E..................E
E....**.*.*.*......E
E...**.*...........E
E.......*.*.*.*....*
****.*..*.........*E
E......*...........E
E..*...*.*...*.*...E
E.........***....*.E
*EE*EEEEEEEEEE*EEEEE
";

/// Runs the binary with `args` after `ulimit LIMIT` in a shell.
fn run_limited(limit: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_retrograde"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run the binary under a limit")
}

/// Asserts a run ended by an exit of its own, not a signal.
fn exit_code(output: &Output, what: &str) -> i32 {
    match (output.status.code(), output.status.signal()) {
        (Some(code), _) => code,
        (None, signal) => panic!("{what}: killed by signal {signal:?}: {}", stderr(output)),
    }
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Past the file size limit, `--save` and out-of-core solves (one cop and
/// two) fail with exit status 1 and an error naming the file or the
/// scratch folder, and leave nothing behind, where SIGXFSZ killed them and
/// left `--save`'s temporary file.
#[test]
fn file_size_limit_is_an_error_naming_the_file() {
    let tmp = temp_dir("ulimit-f");
    let map = tmp.join("m20.txt");
    std::fs::write(&map, MAP20).unwrap();
    let (out, scratch) = (tmp.join("out"), tmp.join("scratch"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    let m = map.to_str().unwrap();
    let saved = out.join("x.rtb");
    let output = run_limited(
        "-f 1",
        &[
            "solve",
            m,
            "--dte-table",
            "--save",
            saved.to_str().unwrap(),
            "-q",
        ],
    );
    assert_eq!(exit_code(&output, "--save"), 1, "{}", stderr(&output));
    assert!(
        stderr(&output).contains(saved.to_str().unwrap()),
        "{}",
        stderr(&output)
    );
    assert!(entries(&out).is_empty(), "left behind: {:?}", entries(&out));
    let dir = scratch.to_str().unwrap();
    for cops in ["1", "2"] {
        let output = run_limited(
            "-f 1",
            &["solve", m, "--cops", cops, "--scratch", dir, "-q"],
        );
        let err = stderr(&output);
        assert_eq!(exit_code(&output, "--scratch"), 1, "{err}");
        assert!(err.contains(&format!("scratch folder {dir} ")), "{err}");
        assert!(err.contains("file size limit"), "{err}");
        assert!(
            entries(&scratch).is_empty(),
            "left behind: {:?}",
            entries(&scratch)
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A two-cop solve under an address-space limit finishes or is refused
/// (exit status 2) with its plan; it aborted in a failed allocation when
/// each thread's malloc arena took 64 MiB of the limit that no plan
/// counts.
#[test]
fn address_space_limit_finishes_or_refuses() {
    let tmp = temp_dir("ulimit-v");
    let map = tmp.join("m20.txt");
    std::fs::write(&map, MAP20).unwrap();
    let m = map.to_str().unwrap();
    for kib in [100_000, 150_000, 200_000] {
        let output = run_limited(
            &format!("-v {kib}"),
            &["solve", m, "--cops", "2", "--threads", "4", "--json", "-q"],
        );
        let code = exit_code(&output, &format!("ulimit -v {kib}"));
        assert!(
            code == 0 || code == 2,
            "ulimit -v {kib}: exit {code}: {}",
            stderr(&output)
        );
        if code == 0 {
            let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(json["states"], 35_395_136_u64);
        }
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
