//! Every example in README.md and docs/guide.md, run as written and checked
//! against what the document shows; and `scripts/batch-summary.py`, which
//! both documents tell users to run on a batch's results.
//!
//! Conventions the documents follow so that their examples can be checked:
//! - ```` ```console ```` blocks: a line `$ COMMAND` runs COMMAND; the lines
//!   up to the next `$ ` line are its expected standard output (or, when
//!   they start with `error:`, its standard error, and the exit status must
//!   be 2). Lines compare with runs of spaces collapsed, and `…` matches
//!   any text within a line; a line `…` alone matches any number of lines.
//!   Output that is one JSON object compares as JSON, except the keys that
//!   measure the run (`seconds`, `peak_memory_bytes`, `threads`,
//!   `array_bytes`); the engine is part of the answer and compares.
//! - ```` ```sh ```` blocks: every line that starts with `retrograde ` or
//!   `python3 scripts/` runs and must succeed; other lines (cargo) are not
//!   run here, nor is `retrograde serve`, which runs until stopped
//!   (`serve.rs` tests it).
//! - ```` ```text ```` blocks are shown, not run: a measurement over data
//!   outside the repository, a synopsis, commands that need a cargo
//!   feature or a cluster.
//! - `retrograde` is the binary under test; `cat FILE` prints a file; a
//!   trailing `> FILE` sends standard output to FILE.
//!
//! Each document's commands run one after another in a temporary folder of
//! its own holding links to the repository's `data/` and `scripts/`, so
//! files written by one example (batch results, tables) are there for the
//! next.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;

use crate::support::temp_dir;

/// One example: the command and, for console blocks, its expected output.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    expected: Option<Vec<String>>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    let mut current: Option<Example> = None;
    for (index, line) in readme.lines().enumerate() {
        let number = index + 1;
        if let Some(info) = line.strip_prefix("```") {
            match fence.take() {
                None => fence = Some(info.trim().to_string()),
                Some(_) => out.extend(current.take()),
            }
            continue;
        }
        match fence.as_deref() {
            Some("console") => {
                if let Some(command) = line.strip_prefix("$ ") {
                    out.extend(current.take());
                    current = Some(Example {
                        line: number,
                        command: command.to_string(),
                        expected: Some(Vec::new()),
                    });
                } else if let Some(Example {
                    expected: Some(lines),
                    ..
                }) = current.as_mut()
                {
                    lines.push(line.to_string());
                }
            }
            Some("sh") => {
                let command = line.split(" #").next().unwrap_or("").trim();
                let runs =
                    command.starts_with("retrograde ") || command.starts_with("python3 scripts/");
                if runs && !command.starts_with("retrograde serve ") {
                    out.push(Example {
                        line: number,
                        command: command.to_string(),
                        expected: None,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Splits a command line into words: spaces separate, quotes group.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

fn execute(dir: &Path, command: &str) -> Output {
    let mut words = words(command);
    let mut redirect = None;
    if words.len() >= 2 && words[words.len() - 2] == ">" {
        redirect = words.pop();
        words.pop();
    }
    let output = match words[0].as_str() {
        "retrograde" => crate::support::bin()
            .args(&words[1..])
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .expect("run the binary"),
        "python3" => Command::new("python3")
            .args(&words[1..])
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .expect("run python3 (CI installs it)"),
        "cat" => Command::new("cat")
            .args(&words[1..])
            .current_dir(dir)
            .output()
            .expect("run cat"),
        other => panic!("example `{command}`: cannot run `{other}`"),
    };
    if let Some(file) = redirect {
        std::fs::write(dir.join(file), &output.stdout).expect("write the redirected output");
    }
    output
}

/// Collapses runs of whitespace and trims.
fn squash(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `…` in `pattern` matches any text.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('…').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let Some(mut rest) = text.strip_prefix(parts[0]) else {
        return false;
    };
    for (k, part) in parts.iter().enumerate().skip(1) {
        if k + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Matches lines, with a lone `…` line matching any number of lines.
fn lines_match(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "…" => {
            (0..=actual.len()).any(|k| lines_match(rest, &actual[k..]))
        }
        Some((first, rest)) => {
            actual.first().is_some_and(|a| glob(first, a)) && lines_match(rest, &actual[1..])
        }
    }
}

/// Keys whose values measure the run rather than the answer.
const VOLATILE: [&str; 4] = ["seconds", "peak_memory_bytes", "threads", "array_bytes"];

fn strip_volatile(value: &mut Json) {
    match value {
        Json::Object(map) => {
            for key in VOLATILE {
                map.remove(key);
            }
            map.values_mut().for_each(strip_volatile);
        }
        Json::Array(items) => items.iter_mut().for_each(strip_volatile),
        _ => {}
    }
}

fn check(example: &Example, output: &Output) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let Some(expected) = &example.expected else {
        return match output.status.code() {
            Some(0) => Ok(()),
            code => Err(format!("exit status {code:?}: {stderr}")),
        };
    };
    let mut expected = expected.as_slice();
    while let Some((last, rest)) = expected.split_last() {
        if !last.trim().is_empty() {
            break;
        }
        expected = rest;
    }
    let wants_error = expected.first().is_some_and(|l| l.starts_with("error:"));
    let (shown, status) = if wants_error {
        (stderr.to_string(), Some(2))
    } else {
        (stdout.to_string(), Some(0))
    };
    if output.status.code() != status {
        return Err(format!(
            "exit status {:?}, expected {status:?}: {stderr}",
            output.status.code()
        ));
    }
    let joined = expected.join("\n");
    if let Ok(mut want) = serde_json::from_str::<Json>(&joined) {
        let mut got: Json = serde_json::from_str(shown.trim())
            .map_err(|e| format!("expected one JSON object, got {shown}: {e}"))?;
        strip_volatile(&mut want);
        strip_volatile(&mut got);
        return if want == got {
            Ok(())
        } else {
            Err(format!("JSON differs:\ndocument: {want}\nactual:   {got}"))
        };
    }
    let want: Vec<String> = expected.iter().map(|l| squash(l)).collect();
    let got: Vec<String> = shown.lines().map(squash).collect();
    if lines_match(&want, &got) {
        Ok(())
    } else {
        Err(format!(
            "output differs:\n--- document\n{}\n--- actual\n{}",
            expected.join("\n"),
            shown
        ))
    }
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs every example of one document (a path under the repository) in a
/// fresh folder and returns the failures, each naming its line.
fn run_document(name: &str, at_least: usize) -> Vec<String> {
    let text = std::fs::read_to_string(repository().join(name)).unwrap();
    let all = examples(&text);
    assert!(all.len() >= at_least, "{name}: examples found: {all:?}");
    let dir = temp_dir(&format!("doc-{}", name.replace('/', "-")));
    for linked in ["data", "scripts"] {
        std::os::unix::fs::symlink(repository().join(linked), dir.join(linked)).unwrap();
    }
    let mut failures = Vec::new();
    for example in &all {
        let output = execute(&dir, &example.command);
        if let Err(why) = check(example, &output) {
            failures.push(format!(
                "{name}:{}: `{}`: {why}",
                example.line, example.command
            ));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    failures
}

#[test]
fn every_readme_example_runs_as_shown() {
    let failures = run_document("README.md", 10);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_guide_example_runs_as_shown() {
    let failures = run_document("docs/guide.md", 30);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `scripts/batch-summary.py` on a batch's results in both formats: one
/// table row per map (keyed by the `map` column), sorted, then the totals;
/// and one row per pair for a `--scen` batch.
#[test]
fn batch_summary_script_reads_what_batch_writes() {
    let dir = temp_dir("batch-summary");
    let batch = |args: &[&str]| {
        let output = crate::support::bin()
            .arg("batch")
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "batch {args:?}: {output:?}");
    };
    let maps = repository().join("data/maps/seed");
    let maps = maps.to_str().unwrap();
    let count = std::fs::read_dir(repository().join("data/maps/seed"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "txt")
        })
        .count();
    assert!(count >= 3);
    let movingai = repository().join("data/movingai");
    let scen = movingai.join("random-32-32-10-random-1.scen");
    for results in ["r.csv", "r.jsonl"] {
        batch(&[maps, "--out", results, "-q"]);
        batch(&[maps, "--out", results, "-q", "--resume"]);
    }
    batch(&[
        movingai.to_str().unwrap(),
        "--exits",
        "rim",
        "--scen",
        scen.to_str().unwrap(),
        "--out",
        "pairs.csv",
        "-q",
    ]);
    let summary = |results: &str| {
        let output = Command::new("python3")
            .arg(repository().join("scripts/batch-summary.py"))
            .args([results, "--no-plot"])
            .current_dir(&dir)
            .output()
            .expect("run python3 (CI installs it)");
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{results}: {stderr}");
        assert!(!stderr.contains("Traceback"), "{results}: {stderr}");
        stdout
    };
    let csv = summary("r.csv");
    let rows: Vec<&str> = csv
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("| "))
        .collect();
    assert_eq!(rows.len(), count, "one row per map:\n{csv}");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r.split(" | ").next().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(names.iter().all(|n| n.contains("data/maps/seed/")), "{csv}");
    assert!(
        rows.iter().all(|r| r.trim_end().ends_with("| ok |")),
        "{csv}"
    );
    assert!(
        csv.contains(&format!("**{count} maps**")),
        "totals line:\n{csv}"
    );
    // The two batches ran apart, so only the columns before the times agree.
    let answers = |table: &str| -> Vec<String> {
        table
            .lines()
            .filter(|l| l.starts_with("| "))
            .map(|l| l.split(" | ").take(8).collect::<Vec<_>>().join(" | "))
            .collect()
    };
    assert_eq!(
        answers(&summary("r.jsonl")),
        answers(&csv),
        "JSON Lines and CSV give one table"
    );
    let pairs = summary("pairs.csv");
    let rows = pairs
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("random-32-32-10.map"))
        .count();
    assert_eq!(rows, 461, "one row per scenario pair:\n{pairs}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_checker_itself_compares() {
    assert!(glob(
        "time: … s, peak memory: …",
        "time: 0.001 s, peak memory: 3.4 MiB"
    ));
    assert!(!glob("time: … s", "time: 0.001 ms!"));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &lines(&["a", "…", "d"]),
        &lines(&["a", "b", "c", "d"])
    ));
    assert!(!lines_match(&lines(&["a", "d"]), &lines(&["a", "b", "d"])));
    assert_eq!(
        words(r#"grundy --moves "-2,1 -2,-1" > out"#),
        ["grundy", "--moves", "-2,1 -2,-1", ">", "out"]
    );
    let found = examples(
        "```console\n$ retrograde nim 1\nx\n\n```\n```sh\nretrograde a b  # c\ncargo x\n```\n",
    );
    assert_eq!(found.len(), 2);
    assert_eq!(
        found[0].expected.as_deref(),
        Some(&["x".to_string(), String::new()][..])
    );
    assert_eq!(found[1].command, "retrograde a b");
    // JSON compares every key but the run's measurements: the engine counts.
    let run = |stdout: &str| Output {
        status: std::process::ExitStatus::default(),
        stdout: stdout.as_bytes().to_vec(),
        stderr: Vec::new(),
    };
    let shown =
        &examples("```console\n$ retrograde x\n{\"engine\":\"parallel\",\"seconds\":1}\n```\n")[0];
    assert!(check(shown, &run(r#"{"engine":"parallel","seconds":2}"#)).is_ok());
    assert!(check(shown, &run(r#"{"engine":"bitboard","seconds":1}"#)).is_err());
}
