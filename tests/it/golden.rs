//! Golden data: every row of `data/expected.csv` (values computed by the
//! oracle) checked against every engine through the one `check` helper.
//!
//! To rewrite the file after changing `CASES` or adding a map:
//! `cargo test --release --test it regenerate_golden -- --ignored`.

use std::path::{Path, PathBuf};

use retrograde::{
    load_map, solve, Coord, CopsGame, Engine, ExitRule, Placement, SolveOptions, Speeds,
};

use crate::agree::{engine_configs, rules, scratch_configs, Config};
use crate::oracle::{Arena, Oracle, Variant};

/// The `data/` folder of the crate.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The golden inputs: map (relative to `data/`), cop, thief, exits, and the
/// rule variants to record for them. Starts and exits use the CSV syntax.
const CASES: &[(&str, &str, &str, &str, &[&str])] = &[
    (
        "maps/seed/capture.txt",
        "map",
        "map",
        "map",
        &["default", "thief-first", "cop-orthogonal"],
    ),
    (
        "maps/seed/no-exit.txt",
        "map",
        "map",
        "map",
        &["default", "cop-orthogonal", "no-pass", "thief-diagonal"],
    ),
    (
        "maps/seed/thief-next-to-exit.txt",
        "map",
        "map",
        "map",
        &["default", "thief-first"],
    ),
    (
        "maps/seed/thief-next-to-exit.txt",
        "2;4",
        "2;3",
        "map",
        &["default"],
    ),
    (
        "maps/seed/trapped.txt",
        "map",
        "map",
        "map",
        &["default", "thief-first", "cop-orthogonal"],
    ),
    (
        "maps/seed/ring.txt",
        "map",
        "map",
        "map",
        &[
            "default",
            "cop-orthogonal",
            "no-corner-cutting",
            "thief-diagonal",
        ],
    ),
    (
        "maps/seed/islands.txt",
        "map",
        "map",
        "map",
        &["default", "no-pass"],
    ),
    ("maps/seed/islands.txt", "map", "map", "2;3", &["default"]),
    (
        "maps/seed/line.txt",
        "map",
        "map",
        "map",
        &[
            "default",
            "cop-orthogonal",
            "no-cop-pass",
            "no-pass",
            "thief-first",
        ],
    ),
    (
        "maps/seed/corridor.txt",
        "map",
        "map",
        "map",
        &["default", "thief-first", "no-thief-pass"],
    ),
    ("maps/seed/corridor.txt", "map", "2;3", "map", &["default"]),
    (
        "maps/seed/corridor.txt",
        "map",
        "map",
        "border",
        &["default"],
    ),
    (
        "maps/seed/escape.txt",
        "map",
        "map",
        "map",
        &["default", "thief-first", "cop-orthogonal+thief-diagonal"],
    ),
    (
        "maps/seed/exits-only.txt",
        "map",
        "map",
        "map",
        &["default", "no-pass"],
    ),
    (
        "maps/seed/single.txt",
        "map",
        "0;0",
        "map",
        &["default", "no-pass", "thief-first"],
    ),
    ("maps/seed/single.txt", "map", "0;0", "0;0", &["default"]),
    (
        "maps/seed/isolated.txt",
        "map",
        "map",
        "map",
        &["default", "no-pass", "no-cop-pass", "no-pass+thief-first"],
    ),
    (
        "maps/seed/diagonal-gap.txt",
        "map",
        "map",
        "map",
        &[
            "default",
            "no-corner-cutting",
            "cop-orthogonal",
            "thief-first+thief-diagonal",
        ],
    ),
    (
        "maps/seed/diagonal-gap.txt",
        "map",
        "map",
        "1;1",
        &["default", "thief-first"],
    ),
    (
        "maps/movingai/empty-8-8.map",
        "3;3",
        "4;4",
        "border",
        &["default"],
    ),
    (
        "maps/movingai/empty-8-8.map",
        "1;1",
        "4;4",
        "border",
        &["default", "thief-first", "no-corner-cutting+cop-orthogonal"],
    ),
    (
        "maps/movingai/empty-8-8.map",
        "3;4",
        "7;7",
        "border",
        &["default"],
    ),
    (
        "maps/movingai/empty-8-8.map",
        "0;0",
        "7;7",
        "0;7 7;0",
        &["default", "thief-diagonal"],
    ),
    (
        "maps/movingai/maze-32-32-2.map",
        "1;1",
        "10;10",
        "border",
        &["default", "no-corner-cutting"],
    ),
    (
        "maps/movingai/maze-32-32-2.map",
        "16;16",
        "13;13",
        "border",
        &["default"],
    ),
];

/// Where a start comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The map's own `C` / `T`.
    Map,
    /// An explicit `ROW;COL`.
    At(Coord),
}

/// Which exits are in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exits {
    /// The map's own `E` cells.
    Map,
    /// Every free border cell.
    Border,
    /// Exactly these cells (`ROW;COL ROW;COL ...`).
    List(Vec<Coord>),
}

/// One row of `data/expected.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub map: String,
    pub cop: Start,
    pub thief: Start,
    pub exits: Exits,
    pub variant: Variant,
    pub result: String,
    pub dte: Option<u32>,
    /// `[win, loss, draw]` over all states of the map.
    pub counts: [u64; 3],
}

fn parse_coord(text: &str) -> Coord {
    let (r, c) = text
        .split_once(';')
        .unwrap_or_else(|| panic!("expected ROW;COL, found `{text}`"));
    (r.parse().unwrap(), c.parse().unwrap())
}

fn parse_start(text: &str) -> Start {
    if text == "map" {
        Start::Map
    } else {
        Start::At(parse_coord(text))
    }
}

fn parse_exits(text: &str) -> Exits {
    match text {
        "map" => Exits::Map,
        "border" => Exits::Border,
        list => Exits::List(list.split_whitespace().map(parse_coord).collect()),
    }
}

fn start_text(start: &Start) -> String {
    match start {
        Start::Map => "map".to_string(),
        Start::At((r, c)) => format!("{r};{c}"),
    }
}

fn exits_text(exits: &Exits) -> String {
    match exits {
        Exits::Map => "map".to_string(),
        Exits::Border => "border".to_string(),
        Exits::List(cells) => cells
            .iter()
            .map(|(r, c)| format!("{r};{c}"))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

impl Row {
    /// Parses one CSV line (no field contains a comma).
    pub fn parse(line: &str) -> Row {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 10, "expected 10 fields in `{line}`");
        let number = |k: usize| -> u64 {
            fields[k]
                .parse()
                .unwrap_or_else(|_| panic!("field {k} of `{line}`"))
        };
        Row {
            map: fields[0].to_string(),
            cop: parse_start(fields[1]),
            thief: parse_start(fields[2]),
            exits: parse_exits(fields[3]),
            variant: Variant::parse(fields[4]),
            result: fields[5].to_string(),
            dte: (!fields[6].is_empty()).then(|| number(6) as u32),
            counts: [number(7), number(8), number(9)],
        }
    }

    fn to_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{}",
            self.map,
            start_text(&self.cop),
            start_text(&self.thief),
            exits_text(&self.exits),
            self.variant,
            self.result,
            self.dte.map_or(String::new(), |d| d.to_string()),
            self.counts[0],
            self.counts[1],
            self.counts[2]
        )
    }

    /// A short name for messages.
    pub fn label(&self) -> String {
        format!(
            "{} cop {} thief {} exits {} [{}]",
            self.map,
            start_text(&self.cop),
            start_text(&self.thief),
            exits_text(&self.exits),
            self.variant
        )
    }

    /// The crate's placement overrides for this row.
    pub fn placement(&self) -> Placement {
        let at = |s: &Start| match s {
            Start::Map => None,
            Start::At(c) => Some(*c),
        };
        Placement {
            cop: at(&self.cop),
            thief: at(&self.thief),
            exits: match &self.exits {
                Exits::List(cells) => cells.clone(),
                _ => Vec::new(),
            },
            exit_rules: match self.exits {
                Exits::Border => vec![ExitRule::Border],
                _ => Vec::new(),
            },
        }
    }

    /// The command-line flags giving the same starts, exits and rules.
    pub fn cli_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if let Start::At((r, c)) = self.cop {
            flags.extend(["--cop".to_string(), format!("{r},{c}")]);
        }
        if let Start::At((r, c)) = self.thief {
            flags.extend(["--thief".to_string(), format!("{r},{c}")]);
        }
        match &self.exits {
            Exits::Map => {}
            Exits::Border => flags.extend(["--exits".to_string(), "border".to_string()]),
            Exits::List(cells) => {
                for (r, c) in cells {
                    flags.extend(["--exit".to_string(), format!("{r},{c}")]);
                }
            }
        }
        flags.extend(self.variant.cli_flags());
        flags
    }

    /// The oracle's arena for this row, read by the oracle's own readers.
    pub fn arena(&self) -> Arena {
        let text = std::fs::read_to_string(data_dir().join(&self.map)).expect("read map");
        let mut arena = if self.map.ends_with(".map") {
            Arena::from_movingai_text(&text)
        } else {
            Arena::from_seed_text(&text)
        };
        if let Start::At(c) = self.cop {
            arena.cop = Some(c);
        }
        if let Start::At(c) = self.thief {
            arena.thief = Some(c);
        }
        match &self.exits {
            Exits::Map => {}
            Exits::Border => arena = arena.with_border_exits(),
            Exits::List(cells) => {
                arena.exit.fill(false);
                for (r, c) in cells {
                    arena.exit[r * arena.width + c] = true;
                }
            }
        }
        arena
    }

    /// This row's inputs with expected values from the oracle.
    fn from_oracle(map: &str, cop: &str, thief: &str, exits: &str, variant: Variant) -> Row {
        let mut row = Row {
            map: map.to_string(),
            cop: parse_start(cop),
            thief: parse_start(thief),
            exits: parse_exits(exits),
            variant,
            result: String::new(),
            dte: None,
            counts: [0; 3],
        };
        let arena = row.arena();
        let oracle = Oracle::solve(&arena, variant);
        let answer = oracle.answer(
            arena.cop.expect("cop start"),
            arena.thief.expect("thief start"),
        );
        row.result = answer.result.to_string();
        row.dte = answer.dte;
        row.counts = oracle.counts();
        row
    }
}

/// Every row of `data/expected.csv`, skipping `#` comments.
pub fn expected_rows() -> Vec<Row> {
    let text = std::fs::read_to_string(data_dir().join("expected.csv")).expect("data/expected.csv");
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    assert_eq!(
        lines.next(),
        Some("map,cop,thief,exits,rules,result,dte,win,loss,draw"),
        "header of data/expected.csv"
    );
    lines.map(Row::parse).collect()
}

/// Checks one golden row against every engine: the start's verdict and
/// distance to end, and the whole-map counts.
fn check(row: &Row) {
    let label = row.label();
    let map = load_map(&data_dir().join(&row.map)).unwrap_or_else(|e| panic!("{label}: {e}"));
    let rules = rules(row.variant);
    let game = CopsGame::from_map(&map, &row.placement(), rules, 1, Speeds::default())
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let start = crate::support::start_state(&game).unwrap_or_else(|| panic!("{label}: no start"));
    let dir = crate::support::temp_dir(&format!("golden-{}", row.map.replace('/', "-")));
    let mut configs = engine_configs();
    configs.extend(scratch_configs(&dir));
    configs.push(Config {
        name: "tracked".to_string(),
        options: SolveOptions::new(Engine::Parallel).with_tracked_state(Some(start)),
        distances: true,
    });
    for config in configs {
        let name = &config.name;
        let solution =
            solve(&game, &config.options).unwrap_or_else(|e| panic!("{label} {name}: {e}"));
        let value = solution.outcome(start);
        let dte = solution.dte(start).map(|d| d.plies());
        assert_eq!(game.verdict(value).as_str(), row.result, "{label} {name}");
        if config.distances {
            assert_eq!(dte, row.dte, "{label} {name}: dte");
        } else {
            assert_eq!(dte, None, "{label} {name}: a value-only engine gave a dte");
        }
        let c = solution.counts();
        assert_eq!(
            [c.win, c.loss, c.draw],
            row.counts,
            "{label} {name}: counts"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn golden_rows_match_every_engine() {
    let rows = expected_rows();
    assert!(rows.len() >= CASES.len(), "expected.csv is missing rows");
    for row in &rows {
        check(row);
    }
}

#[test]
fn golden_rows_are_the_oracle_on_small_maps() {
    // Guards against a stale or hand-edited expected.csv: recompute the
    // rows of small maps (the large ones only in `regenerate_golden`).
    let mut checked = 0;
    for row in expected_rows() {
        let arena = row.arena();
        if arena.free_cells().len() > 100 {
            continue;
        }
        let fresh = Row::from_oracle(
            &row.map,
            &start_text(&row.cop),
            &start_text(&row.thief),
            &exits_text(&row.exits),
            row.variant,
        );
        assert_eq!(fresh, row, "{}", row.label());
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} rows checked");
}

#[test]
fn golden_rows_cover_every_map_and_outcome() {
    let rows = expected_rows();
    let mut maps = Vec::new();
    for folder in ["maps/seed", "maps/movingai"] {
        for entry in std::fs::read_dir(data_dir().join(folder)).expect("data folder") {
            let name = entry.unwrap().file_name().into_string().unwrap();
            maps.push(format!("{folder}/{name}"));
        }
    }
    assert!(maps.len() >= 12, "data maps: {maps:?}");
    for map in &maps {
        assert!(
            rows.iter().any(|r| &r.map == map),
            "{map} has no golden row"
        );
    }
    for result in ["cop-wins", "thief-escapes", "draw"] {
        assert!(rows.iter().any(|r| r.result == result), "no {result} row");
    }
    assert!(rows.iter().any(|r| r.dte == Some(0)), "no terminal start");
    assert!(
        rows.iter().any(|r| r.dte.is_some_and(|d| d >= 10)),
        "no long game"
    );
}

#[test]
#[ignore = "rewrites data/expected.csv from the oracle"]
fn regenerate_golden() {
    let mut text = String::from(
        "# Expected values from the brute-force oracle (tests/it/oracle.rs); see data/SOURCES.md.\n\
         # Regenerate: cargo test --release --test it regenerate_golden -- --ignored\n\
         # cop, thief: ROW;COL (0-based) or `map` (the map's own start).\n\
         # exits: `map` (the map's E cells), `border` (every free border cell) or a list `ROW;COL ROW;COL`.\n\
         # rules: `default` or rule flags without dashes joined by `+` (e.g. thief-first+no-pass).\n\
         # result: the start told from the cop's side; dte: plies (empty for a draw);\n\
         # win, loss, draw: states by value for the player to move over the whole map.\n\
         map,cop,thief,exits,rules,result,dte,win,loss,draw\n",
    );
    for &(map, cop, thief, exits, variants) in CASES {
        for name in variants {
            let row = Row::from_oracle(map, cop, thief, exits, Variant::parse(name));
            text.push_str(&row.to_line());
            text.push('\n');
        }
    }
    std::fs::write(data_dir().join("expected.csv"), text).expect("write data/expected.csv");
}
