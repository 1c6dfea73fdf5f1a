//! The shape of the source tree (issue 22), checked so that it stays: no
//! file in `src/` over 800 lines, and no import cycle between the
//! library's top-level modules nor between the binary's `cli` modules
//! (test code, after a file's first `#[cfg(test)]`, may use anything).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MOST_LINES: usize = 800;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MOST_LINES).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these at their seams: {long:?}");
}

/// The code of a file before its tests, without `//` comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module names that follow `prefix` in `code` (`crate::cli::` gives
/// `solve` for `crate::cli::solve::run`).
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            names.insert(name);
        }
    }
    names
}

/// The import graph between the modules directly under `dir`: each
/// module's files (a `NAME.rs` or a `NAME/` folder) and the siblings they
/// name through `prefix` (or `super::` from the top file, `super::super::`
/// one folder down).
fn graph(dir: &Path, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(dir).unwrap();
        let mut parts = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy());
        let first = parts.next().unwrap().into_owned();
        let depth = relative.components().count() - 1;
        let module = first.trim_end_matches(".rs").to_string();
        if ["mod", "lib", "main"].contains(&module.as_str()) {
            continue;
        }
        let code = code(file);
        let mut uses = names_after(&code, prefix);
        let up = if depth == 0 {
            "super::".to_string()
        } else {
            "super::".repeat(depth + 1)
        };
        if depth > 0 || file.parent() == Some(dir) {
            uses.extend(names_after(&code, &up));
        }
        graph.entry(module).or_default().extend(uses);
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for (module, uses) in &mut graph {
        uses.retain(|u| modules.contains(u) && u != module);
    }
    graph
}

/// A cycle of `graph`, if it has one (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_import_cycle_between_library_modules() {
    let graph = graph(&src(), "crate::");
    assert!(graph.contains_key("solve") && graph["solve"].contains("games"));
    assert_eq!(cycle(&graph), None, "{graph:?}");
}

#[test]
fn no_import_cycle_between_cli_modules() {
    let graph = graph(&src().join("cli"), "crate::cli::");
    assert!(graph.contains_key("batch") && graph["batch"].contains("output"));
    assert_eq!(cycle(&graph), None, "{graph:?}");
}

#[test]
fn the_cycle_finder_finds_one() {
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycle(&graph).map(|c| c.len()), Some(4));
    graph.get_mut("c").unwrap().clear();
    assert_eq!(cycle(&graph), None);
}
