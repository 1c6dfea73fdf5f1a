//! The shape of the source tree (issues 22 and 30), checked so that it
//! stays: no file in `src/` over 800 lines; no import cycle between the
//! modules of any folder (the library's top level, `cli`, each folder
//! below them, `python/src`); library files import from the module that
//! defines a name, not through the crate root's re-exports; and no `cli`
//! command module imports another one (test code, after a file's first
//! `#[cfg(test)]`, may use anything).

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

/// Whether `path` is a module of tests only (`#[cfg(test)] mod tests;` in
/// its parent).
fn test_only(path: &Path) -> bool {
    let stem = path.file_stem().unwrap().to_string_lossy();
    let dir = path.parent().unwrap();
    let parents = [
        dir.join("mod.rs"),
        dir.join("lib.rs"),
        dir.join("main.rs"),
        dir.with_extension("rs"),
    ];
    let declared = format!("mod {stem};");
    parents.iter().any(|parent| {
        let text = std::fs::read_to_string(parent).unwrap_or_default();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        lines
            .windows(2)
            .any(|w| w[0] == "#[cfg(test)]" && w[1].ends_with(&declared))
    })
}

/// The code of a file before its tests, without `//` comments (nothing
/// for a module of tests only).
fn code(path: &Path) -> String {
    if test_only(path) {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment of each item that follows `prefix` in `code`,
/// and whether a path (`::`) goes on after it: `crate::cli::` gives
/// `solve` for `crate::cli::solve::run`, and `common` and `output` for
/// `crate::cli::{common::X, output::Y}`.
fn items(code: &str, prefix: &str) -> BTreeSet<(String, bool)> {
    fn ident(s: &str) -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    }
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        // `super::super::x` holds `super::x` too: only a whole path counts;
        // and `pub(in crate::a)` is a visibility, not an import.
        let visibility = code[..code.len() - rest.len()].ends_with(&format!("in {prefix}"));
        if visibility || before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut items = Vec::new();
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level items of a `{...}` group.
            let (mut depth, mut from) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.push(&group[from..i]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[from..i]);
                        from = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            items.push(rest);
        }
        for item in items {
            let item = item.trim_start();
            let name = ident(item);
            let path = item[name.len()..].trim_start().starts_with("::");
            if !name.is_empty() {
                names.insert((name, path));
            }
        }
    }
    names
}

/// The module names that follow `prefix` in `code`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    items(code, prefix)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// The import graph between the modules directly under `dir`: each
/// module's files (a `NAME.rs`, a `NAME/` folder, or both) and the
/// siblings they name through `prefix` (the folder's path from its crate
/// root) or through as many `super::` as lead from the file up to `dir`.
fn graph(dir: &Path, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(dir).unwrap();
        // The file's module path below `dir` (`a/mod.rs` is `a`).
        let path: Vec<String> = relative
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .filter(|c| c != "mod")
            .collect();
        let Some(module) = path.first().cloned() else {
            continue; // the folder's own mod.rs
        };
        if ["lib", "main"].contains(&module.as_str()) && path.len() == 1 {
            continue;
        }
        let code = code(file);
        let mut uses = names_after(&code, prefix);
        uses.extend(names_after(&code, &"super::".repeat(path.len())));
        graph.entry(module).or_default().extend(uses);
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for (module, uses) in &mut graph {
        uses.retain(|u| modules.contains(u) && u != module);
    }
    graph
}

/// Every folder under `dir`, `dir` too.
fn folders(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            folders(&path, out);
        }
    }
}

/// The import cycles between the files of one folder, for every folder of
/// a crate whose root folder is `root` (`crate::` is `root`).
fn folder_cycles(root: &Path) -> Vec<Vec<String>> {
    let mut dirs = Vec::new();
    folders(root, &mut dirs);
    dirs.iter()
        .filter_map(|dir| {
            let below = dir.strip_prefix(root).unwrap();
            let mut prefix = "crate::".to_string();
            for c in below.components() {
                prefix += &format!("{}::", c.as_os_str().to_string_lossy());
            }
            let found = cycle(&graph(dir, &prefix))?;
            Some(
                found
                    .into_iter()
                    .map(|m| below.join(m).display().to_string())
                    .collect(),
            )
        })
        .collect()
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
fn no_import_cycle_inside_any_folder() {
    let bitboard = graph(&src().join("solve/bitboard"), "crate::solve::bitboard::");
    assert!(bitboard["kernel"].contains("masks"), "{bitboard:?}");
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/src");
    let python_graph = graph(&python, "crate::");
    assert!(python_graph["solve"].contains("args"), "{python_graph:?}");
    let mut cycles = folder_cycles(&src());
    cycles.extend(folder_cycles(&python));
    assert!(cycles.is_empty(), "break these circles: {cycles:?}");
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

/// The names `src/lib.rs` re-exports (`pub use a::b::{C, d};` gives `C`
/// and `d`) and the modules it declares.
fn crate_root() -> (BTreeSet<String>, BTreeSet<String>) {
    let lib = code(&src().join("lib.rs"));
    let mut exported = BTreeSet::new();
    for statement in lib.split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let list = &statement[at + "pub use ".len()..];
        let list = list.rsplit_once('{').map_or(list, |(_, l)| l);
        for item in list.split([',', '}']) {
            let last = item.rsplit("::").next().unwrap_or("");
            let name = last.rsplit(" as ").next().unwrap_or("").trim();
            if !name.is_empty() {
                exported.insert(name.to_string());
            }
        }
    }
    let modules = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("pub ").unwrap_or(l.trim());
            Some(l.strip_prefix("mod ")?.trim_end_matches(';').to_string())
        })
        .collect();
    (exported, modules)
}

/// The `crate::` items of a library file's code that go through the
/// crate root's re-exports (`crate::Dte`, `crate::{Outcome, Turn}`,
/// `crate::Error::Table`) instead of the module that defines them.
fn through_root(
    code: &str,
    exported: &BTreeSet<String>,
    modules: &BTreeSet<String>,
) -> Vec<String> {
    items(code, "crate::")
        .into_iter()
        .filter(|(name, path)| !modules.contains(name) || (!path && exported.contains(name)))
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn library_files_import_from_the_module_not_the_crate_root() {
    let (exported, modules) = crate_root();
    assert!(exported.contains("Dte") && exported.contains("solve") && modules.contains("solve"));
    assert_eq!(
        through_root(
            "use crate::{Dte, solve::x};\nlet e = crate::Error::Table;",
            &exported,
            &modules
        ),
        ["Dte", "Error"]
    );
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let found: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(src().join("cli")))
        .filter(|f| !f.ends_with("lib.rs") && !f.ends_with("main.rs"))
        .flat_map(|f| {
            let names = through_root(&code(f), &exported, &modules);
            names
                .into_iter()
                .map(move |n| format!("{}: crate::{n}", f.display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import these from their modules: {found:#?}"
    );
}

/// The modules of `src/cli/` that are a subcommand (`mod.rs`'s `Command`
/// and `solve`'s several-cops and distributed paths): none imports another
/// one; what two of them share lives in a room that is not a command
/// (`common`, `output`, `solving`, `tables`, ...). `completions` (the
/// `completions` and `man` subcommands) reads only `mod.rs`'s `Args`, so it
/// counts as a shared room.
const COMMANDS: [&str; 12] = [
    "solve",
    "batch",
    "bench",
    "graph",
    "toolkit",
    "info",
    "query",
    "play",
    "render",
    "serve",
    "copnumber",
    "distributed",
];

#[test]
fn no_command_imports_another_command() {
    let cli = src().join("cli");
    for command in COMMANDS {
        assert!(
            cli.join(format!("{command}.rs")).exists() || cli.join(command).is_dir(),
            "{command}"
        );
    }
    let graph = graph(&cli, "crate::cli::");
    let found: Vec<String> = graph
        .iter()
        .filter(|(module, _)| COMMANDS.contains(&module.as_str()))
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|u| COMMANDS.contains(&u.as_str()))
                .map(move |u| format!("{module} -> {u}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "move what these share out of the commands: {found:?}"
    );
}
