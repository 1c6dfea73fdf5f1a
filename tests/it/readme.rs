//! Every example in README.md, run as written and checked against what the
//! README shows.
//!
//! Conventions the README follows so that its examples can be checked:
//! - ```` ```console ```` blocks: a line `$ COMMAND` runs COMMAND; the lines
//!   up to the next `$ ` line are its expected standard output (or, when
//!   they start with `error:`, its standard error, and the exit status must
//!   be 2). Lines compare with runs of spaces collapsed, and `…` matches
//!   any text within a line; a line `…` alone matches any number of lines.
//!   Output that is one JSON object compares as JSON, except the keys that
//!   measure the run (`seconds`, `peak_memory_bytes`, `threads`, `engine`,
//!   `array_bytes`).
//! - ```` ```sh ```` blocks: every line that starts with `retrograde ` runs
//!   and must succeed; other lines (cargo, python) are not run here, nor is
//!   `retrograde serve`, which runs until stopped (`serve.rs` tests it).
//! - ```` ```text ```` blocks are shown, not run: a measurement over data
//!   outside the repository, a synopsis, commands that need a cargo
//!   feature or a cluster.
//! - `retrograde` is the binary under test; `cat FILE` prints a file; a
//!   trailing `> FILE` sends standard output to FILE.
//!
//! Commands run one after another in one temporary folder holding a link
//! to the repository's `data/`, so files written by one example (batch
//! results) are there for the next.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;

use crate::agree::temp_dir;

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
                if command.starts_with("retrograde ") && !command.starts_with("retrograde serve ") {
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
        "retrograde" => Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .args(&words[1..])
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .expect("run the binary"),
        "cat" => Command::new("cat")
            .args(&words[1..])
            .current_dir(dir)
            .output()
            .expect("run cat"),
        other => panic!("README example `{command}`: cannot run `{other}`"),
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
const VOLATILE: [&str; 5] = [
    "seconds",
    "peak_memory_bytes",
    "threads",
    "engine",
    "array_bytes",
];

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
            Err(format!("JSON differs:\nREADME: {want}\nactual: {got}"))
        };
    }
    let want: Vec<String> = expected.iter().map(|l| squash(l)).collect();
    let got: Vec<String> = shown.lines().map(squash).collect();
    if lines_match(&want, &got) {
        Ok(())
    } else {
        Err(format!(
            "output differs:\n--- README\n{}\n--- actual\n{}",
            expected.join("\n"),
            shown
        ))
    }
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_readme_example_runs_as_shown() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let all = examples(&readme);
    assert!(all.len() >= 10, "README examples found: {all:?}");
    let dir = temp_dir("readme");
    std::os::unix::fs::symlink(repository().join("data"), dir.join("data")).unwrap();
    let mut failures = Vec::new();
    for example in &all {
        let output = execute(&dir, &example.command);
        if let Err(why) = check(example, &output) {
            failures.push(format!(
                "README.md:{}: `{}`: {why}",
                example.line, example.command
            ));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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
}
