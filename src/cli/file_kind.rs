//! The hint a command gives when it was handed a file of another kind
//! than it reads (a table, a scenario, a graph), told by the library's
//! [`retrograde::sniff`]. Not a command itself.

use std::path::Path;

use retrograde::FileKind;

/// What to run instead of a command that reads maps, for the file at
/// `path` of kind `kind`; `None` for a map (its own parse error says what
/// is wrong).
pub(crate) fn hint_for_map(kind: FileKind, path: &Path) -> Option<String> {
    let p = path.display();
    Some(match kind {
        FileKind::Table => format!(
            "{p} is a table (solve --save wrote it), not a map: retrograde info {p} describes it, retrograde query {p} --cop ROW,COL --thief ROW,COL reads positions"
        ),
        FileKind::Scenario => format!(
            "{p} looks like a MovingAI scenario, not a map: give the map and --scen {p}"
        ),
        FileKind::Graph6 | FileKind::EdgeList => format!(
            "{p} looks like a graph ({}), not a map: retrograde solve --graph {p} --cops K --cop V ... --thief V solves it, retrograde copnumber {p} gives its cop number",
            if kind == FileKind::Graph6 { "graph6" } else { "an edge list" }
        ),
        FileKind::Map(_) => return None,
    })
}
