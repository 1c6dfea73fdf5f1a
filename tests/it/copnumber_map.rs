//! `copnumber MAP` under `solve`'s rule and exit flags: the cop number and
//! placement it reports agree with `solve --cops K --dump` on the same
//! rules (the placement wins against every thief cell with K cops, no
//! placement of K - 1 does), the JSON names the rules, and flags that do
//! not apply are refused.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value as Json;

use crate::support::{run_refused, run_status, stdout, temp_dir};

/// A 4 x 5 map with three walls and no exits of its own.
const MAP: &str = "4 5\n.....\n.#.#.\n.....\n..#..\n";

/// `solve INPUT --cops K FLAGS --dump` (a map, or a graph when FLAGS hold
/// `--graph`): for every cop multiset, its cells as the dump writes them
/// (`row,col` or a vertex) and sorted, whether the cops to move win
/// against every one of the `cells` thief cells.
pub(crate) fn all_win_placements(
    dir: &Path,
    input: &str,
    k: usize,
    flags: &[&str],
    cells: usize,
) -> BTreeMap<Vec<String>, bool> {
    let dump = dir.join(format!("k{k}.csv"));
    let ks = k.to_string();
    let mut args = vec![
        "solve",
        "-q",
        input,
        "--cops",
        &ks,
        "--dump",
        dump.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    run_status(&args, 0);
    let text = std::fs::read_to_string(&dump).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // Cop columns, then the thief's, then turn and value: a cell is one
    // column on a graph, two on a map.
    let t = header.iter().position(|h| h.starts_with("thief")).unwrap();
    let w = t / k;
    assert_eq!(header[t + w..t + w + 2], ["turn", "value"], "{header:?}");
    let mut won: BTreeMap<Vec<String>, bool> = BTreeMap::new();
    let mut thieves: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        if f[t + w] != "cop" {
            continue;
        }
        let mut cops: Vec<String> = (0..k).map(|i| f[i * w..(i + 1) * w].join(",")).collect();
        cops.sort_unstable();
        thieves
            .entry(cops.clone())
            .or_default()
            .insert(f[t..t + w].join(","));
        *won.entry(cops).or_insert(true) &= f[t + w + 1] == "win";
    }
    assert!(thieves.values().all(|t| t.len() == cells), "a partial dump");
    won
}

/// Variants of the rules and exits: `copnumber` reports K and a placement;
/// with K cops that placement wins against every thief cell per `solve
/// --cops K --dump` on the same flags, and with K - 1 cops none does.
#[test]
fn copnumber_on_a_map_agrees_with_solve_under_each_rule_variant() {
    let dir = temp_dir("copnumber-map-rules");
    let map_path = dir.join("m.txt");
    std::fs::write(&map_path, MAP).unwrap();
    let map = map_path.to_str().unwrap();
    let mut numbers = BTreeSet::new();
    for flags in [
        &[][..],
        &["--cop-orthogonal"],
        &["--cop-orthogonal", "--thief-diagonal"],
        &["--no-pass", "--thief-diagonal"],
        &["--no-corner-cutting", "--thief-diagonal"],
        &["--exit", "0,0"],
        &["--exit", "3,4", "--cop-orthogonal"],
    ] {
        let mut args = vec!["copnumber", map, "--json", "--max-cops", "3"];
        args.extend_from_slice(flags);
        let o = run_status(&args, 0);
        let j: Json = serde_json::from_str(stdout(&o).trim()).unwrap();
        let k = j["cop_number"].as_u64().expect("a cop number up to 3") as usize;
        numbers.insert(k);
        let placement: Vec<String> = j["placement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{},{}", c[0], c[1]))
            .collect();
        assert_eq!(placement.len(), k, "{flags:?}");
        // The JSON names what was solved.
        let rules: Vec<&str> = j["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let exits: Vec<&str> = j["exit_flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for f in flags
            .iter()
            .filter(|f| f.starts_with("--") && **f != "--exit")
        {
            let expected: &[&str] = if *f == "--no-pass" {
                &["--no-cop-pass", "--no-thief-pass"]
            } else {
                &[f]
            };
            assert!(
                expected.iter().all(|e| rules.contains(e)),
                "{flags:?}: {rules:?}"
            );
        }
        assert_eq!(
            rules.len() + exits.len() * 2,
            flags.len() + usize::from(flags.contains(&"--no-pass")),
            "{flags:?}: {rules:?} {exits:?}"
        );
        if let Some(i) = flags.iter().position(|f| *f == "--exit") {
            assert_eq!(exits, [format!("--exit {}", flags[i + 1])], "{flags:?}");
            assert_eq!(j["exits"], 1);
        } else {
            assert!(exits.is_empty());
            assert_eq!(j["exits"], 0);
        }
        let with_k = all_win_placements(&dir, map, k, flags, 17);
        let mut sorted = placement.clone();
        sorted.sort_unstable();
        assert_eq!(with_k.get(&sorted), Some(&true), "{flags:?}: {placement:?}");
        if k > 1 {
            let fewer = all_win_placements(&dir, map, k - 1, flags, 17);
            assert!(!fewer.is_empty());
            assert!(
                fewer.values().all(|w| !w),
                "{flags:?}: {} cops win somewhere",
                k - 1
            );
        }
    }
    assert!(numbers.len() >= 2, "every variant gave {numbers:?}");
    // The text line names the flags; --xy writes the placement as x,y.
    let o = run_status(&["copnumber", map, "--exit", "0,0", "--xy"], 0);
    let line = stdout(&o);
    assert!(line.contains("\trules --exit 0,0\n"), "{line}");
    let o = run_status(&["copnumber", map, "--exit", "0,0"], 0);
    let plain = stdout(&o);
    let cells = |l: &str| -> Vec<String> {
        l.split('\t')
            .find_map(|f| f.strip_prefix("placement "))
            .unwrap()
            .split(' ')
            .map(str::to_string)
            .collect()
    };
    let swapped: Vec<String> = cells(&plain)
        .iter()
        .map(|c| {
            let (r, col) = c.split_once(',').unwrap();
            format!("{col},{r}")
        })
        .collect();
    assert_eq!(cells(&line), swapped);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Flags that cannot apply are refused with exit status 2 and say why.
#[test]
fn copnumber_refuses_flags_that_do_not_apply() {
    let dir = temp_dir("copnumber-map-refused");
    let map_path = dir.join("m.txt");
    std::fs::write(&map_path, MAP).unwrap();
    let map = map_path.to_str().unwrap();
    run_refused(
        &["copnumber", map, "--cop", "0,0"],
        "--cop / --thief: the cop number tries every placement",
    );
    run_refused(
        &["copnumber", map, "--thief", "0,0"],
        "--cop / --thief: the cop number tries every placement",
    );
    run_refused(
        &["copnumber", map, "--thief-first"],
        "--thief-first: the cop number places the cops, then the thief",
    );
    run_refused(&["copnumber", map, "--exit", "1,1"], "wall");
    run_refused(&["copnumber", map, "--exit", "9,1"], "outside");
    run_refused(
        &["copnumber", map, "--exits", "random:40:1"],
        "asks for 40 exits",
    );
    let petersen = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/graphs/petersen.txt");
    let g = petersen.to_str().unwrap();
    for (flags, named) in [
        (&["--exits", "rim"][..], "--exits"),
        (&["--cop-orthogonal"], "--cop-orthogonal"),
        (&["--no-pass"], "--no-cop-pass, --no-thief-pass"),
        (&["--xy"], "--xy"),
    ] {
        let mut args = vec!["copnumber", g];
        args.extend_from_slice(flags);
        let err = run_refused(&args, "are for grid maps");
        assert!(err.contains(named), "{flags:?}: {err}");
        assert!(err.contains("petersen.txt is a graph"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
