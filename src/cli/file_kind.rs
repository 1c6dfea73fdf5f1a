//! What a file holds, told by its first bytes ([`Kind`]): a table, a
//! scenario, a graph in graph6 or an edge list; for the hint a command
//! gives when it was handed a file of another kind than it reads. Not a
//! command itself.

/// What a file holds, told by its first bytes, for the hint a command
/// gives when it got a file of another kind than it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A table written by `solve --save` (`RTGTBL` magic).
    Table,
    /// A MovingAI scenario (`version ...`).
    Scenario,
    /// One graph or a stream in graph6.
    Graph6,
    /// An edge list: every line two vertex ids (or a comment).
    EdgeList,
}

impl Kind {
    /// The kind of the file at `path`, when its first bytes tell one of
    /// those above (a map, or anything else, is `None`).
    pub(crate) fn sniff(path: &std::path::Path) -> Option<Kind> {
        use std::io::Read;
        let mut head = vec![0u8; 4096];
        let mut file = std::fs::File::open(path).ok()?;
        let read = file.read(&mut head).ok()?;
        head.truncate(read);
        Kind::of(&head)
    }

    /// The kind of a file starting with `head`.
    pub(crate) fn of(head: &[u8]) -> Option<Kind> {
        if head.starts_with(b"RTGTBL") {
            return Some(Kind::Table);
        }
        if head.starts_with(b"version ") {
            return Some(Kind::Scenario);
        }
        if retrograde::looks_like_graph6(head) {
            return Some(Kind::Graph6);
        }
        // Up to the last whole line of the head, comments and blank lines
        // left out: all `u v`, at least two of them (a seed map's header
        // is two integers too, but its rows are not).
        let text = String::from_utf8_lossy(head);
        let whole = text.rfind('\n').map_or("", |i| &text[..i]);
        let lines: Vec<&str> = whole
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| !l.is_empty())
            .collect();
        let pair = |l: &&str| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() == 2 && words.iter().all(|w| w.parse::<u32>().is_ok())
        };
        (lines.len() >= 2 && lines.iter().all(pair)).then_some(Kind::EdgeList)
    }

    /// What to run instead of a command that reads maps, for a file of
    /// this kind at `path`.
    pub(crate) fn hint_for_map(self, path: &std::path::Path) -> String {
        let p = path.display();
        match self {
            Kind::Table => format!(
                "{p} is a table (solve --save wrote it), not a map: retrograde info {p} describes it, retrograde query {p} --cop ROW,COL --thief ROW,COL reads positions"
            ),
            Kind::Scenario => format!(
                "{p} looks like a MovingAI scenario, not a map: give the map and --scen {p}"
            ),
            Kind::Graph6 | Kind::EdgeList => format!(
                "{p} looks like a graph ({}), not a map: retrograde solve --graph {p} --cops K --cop V ... --thief V solves it, retrograde copnumber {p} gives its cop number",
                if self == Kind::Graph6 { "graph6" } else { "an edge list" }
            ),
        }
    }
}
