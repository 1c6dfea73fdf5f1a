//! `copnumber` plans each number of cops before it tries it (issue 33,
//! item 1): a 199-vertex, 431-edge graph of cop number 2 is answered with
//! the default flags (it was refused for what 4 cops would need); under
//! `--memory` the first number of cops that would not fit ends the search
//! with "K cops would need X; the cop number is more than K-1" (exit
//! status 1), at the byte the plan says; `--plan` prints that plan.

use std::sync::Mutex;

use retrograde::copnumber::{cop_number_with, CopSearch, OutOfMemory};
use retrograde::{estimate, Arena, CopsGame, Engine, Rules, SolveOptions, Speeds};
use retrograde::{human_bytes, to_graph6};
use serde_json::Value as Json;

use crate::support::{run, run_status, stderr, stdout, temp_dir};

/// A 10 x 10 grid (cop number 2) and 99 corners hung on it: each new
/// vertex is joined to a grid vertex `u` and to one or two of `u`'s grid
/// neighbours, so its closed neighbourhood lies in `u`'s. Removing corners
/// keeps the cop number, so the graph's is the grid's, 2; 199 vertices and
/// 180 + 99 * 2 + 53 = 431 edges, over the small path's 64 vertices.
fn grid_with_corners() -> (usize, Vec<(u32, u32)>) {
    let side = 10u32;
    let mut edges = Vec::new();
    let mut near: Vec<Vec<u32>> = vec![Vec::new(); 100];
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            for w in [
                (c + 1 < side).then(|| v + 1),
                (r + 1 < side).then(|| v + side),
            ]
            .into_iter()
            .flatten()
            {
                edges.push((v, w));
                near[v as usize].push(w);
                near[w as usize].push(v);
            }
        }
    }
    for i in 0..99u32 {
        let v = 100 + i;
        let u = (i * 37) % 100;
        edges.push((u, v));
        edges.push((near[u as usize][0], v));
        if i < 53 {
            edges.push((near[u as usize][1], v));
        }
    }
    (199, edges)
}

fn edge_list(edges: &[(u32, u32)]) -> String {
    edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect()
}

#[test]
fn copnumber_answers_a_large_graph_of_cop_number_2_with_default_flags() {
    let (n, edges) = grid_with_corners();
    assert_eq!(edges.len(), 431);
    let dir = temp_dir("copnumber-memory-default");
    let file = dir.join("g199.txt");
    std::fs::write(&file, edge_list(&edges)).unwrap();
    let path = file.to_str().unwrap();
    let out = run_status(&["copnumber", path, "--json"], 0);
    let j: Json = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(j["vertices"].as_u64(), Some(n as u64));
    assert_eq!(j["edges"].as_u64(), Some(431));
    assert_eq!(j["cop_number"].as_u64(), Some(2), "{j}");
    assert_eq!(j["placement"].as_array().unwrap().len(), 2);
    assert_eq!(j["graph6"].as_str(), Some(to_graph6(n, &edges).as_str()));
    assert!(j.get("out_of_memory").is_none(), "{j}");
    // The same graph as a graph6 line, text output.
    let line = format!("{}\n", to_graph6(n, &edges));
    let out = run(&["copnumber", "-"], Some(line.as_bytes()));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\tcop number 2\t"),
        "{}",
        stdout(&out)
    );
    // Piped, no progress bar: standard error stays empty.
    assert_eq!(stderr(&out), "");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn copnumber_stops_at_the_first_number_of_cops_over_memory() {
    let (n, edges) = grid_with_corners();
    let arena = retrograde::Arena::from_edges(n as u32, &edges).unwrap();
    let need = |k: usize| need(&arena, k);
    assert!(need(1) < need(2) && need(2) < need(3));
    let dir = temp_dir("copnumber-memory-cap");
    let file = dir.join("g199.txt");
    std::fs::write(&file, edge_list(&edges)).unwrap();
    let path = file.to_str().unwrap();
    // One byte short of two cops: one cop loses, two are not tried.
    let cap = (need(2) - 1).to_string();
    let out = run(&["copnumber", path, "--memory", &cap], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("\tcop number more than 1\n"),
        "{}",
        stdout(&out)
    );
    let err = stderr(&out);
    assert!(
        err.contains(&format!("2 cops would need {}", human_bytes(need(2))))
            && err.contains("the cop number is more than 1"),
        "{err}"
    );
    let out = run(&["copnumber", path, "--memory", &cap, "--json"], None);
    assert_eq!(out.status.code(), Some(1));
    let j: Json = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(j["cop_number"].is_null());
    assert_eq!(j["out_of_memory"]["cops"].as_u64(), Some(2));
    assert_eq!(j["out_of_memory"]["needed"].as_u64(), Some(need(2)));
    // Exactly what two cops need: answered.
    let cap = need(2).to_string();
    let out = run_status(&["copnumber", path, "--memory", &cap], 0);
    assert!(
        stdout(&out).contains("\tcop number 2\t"),
        "{}",
        stdout(&out)
    );
    // Not even one cop fits.
    let out = run(&["copnumber", path, "--memory", "1K"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("1 cop would need") && stderr(&out).contains("nothing was tried"),
        "{}",
        stderr(&out)
    );
    // In a stream: the graphs before it are answered, then the run stops.
    let stream = format!("Bw\n{}\nBw\n", to_graph6(n, &edges));
    let cap = (need(2) - 1).to_string();
    let out = run(
        &["copnumber", "-", "--memory", &cap],
        Some(stream.as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.ends_with("\tcop number more than 1\n"), "{text}");
    assert!(
        stderr(&out).contains("-:2: 2 cops would need"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn copnumber_plan_prints_each_number_of_cops_and_where_it_stops() {
    let (n, edges) = grid_with_corners();
    let arena = retrograde::Arena::from_edges(n as u32, &edges).unwrap();
    let need = |k: usize| need(&arena, k);
    let dir = temp_dir("copnumber-memory-plan");
    let file = dir.join("g199.txt");
    std::fs::write(&file, edge_list(&edges)).unwrap();
    let path = file.to_str().unwrap();
    let cap = need(3).to_string();
    let out = run_status(&["copnumber", path, "--plan", "--memory", &cap], 0);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].contains("199 vertices, up to 4 cops"), "{text}");
    assert_eq!(lines[1], format!("1 cop: {}, fits", human_bytes(need(1))));
    assert_eq!(lines[3], format!("3 cops: {}, fits", human_bytes(need(3))));
    assert_eq!(
        lines[4],
        format!(
            "4 cops: {}, does not fit: unless fewer cops win, \"the cop number is more than 3\"",
            human_bytes(need(4))
        )
    );
    // The plan refuses what makes no sense with it.
    let out = run(&["copnumber", path, "--plan", "--json"], None);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cop_number_with_keeps_the_cap_reports_levels_and_stops() {
    let (n, edges) = grid_with_corners();
    let arena = retrograde::Arena::from_edges(n as u32, &edges).unwrap();
    let need = |k: usize| need(&arena, k);
    let capped = CopSearch {
        memory: Some(need(2) - 1),
        ..CopSearch::default()
    };
    let r = cop_number_with(&arena, 4, &capped).unwrap();
    assert_eq!(r.cop_number, None);
    assert_eq!(
        r.out_of_memory,
        Some(OutOfMemory {
            cops: 2,
            needed: need(2),
            cap: need(2) - 1
        })
    );
    // Levels reported per number of cops, in order; 2 cops win.
    let seen = Mutex::new(Vec::new());
    let observer = |k: u32, level: u32| {
        seen.lock().unwrap().push((k, level));
        true
    };
    let watched = CopSearch {
        observer: Some(&observer),
        ..CopSearch::default()
    };
    let r = cop_number_with(&arena, 4, &watched).unwrap();
    assert_eq!(r.cop_number, Some(2));
    assert_eq!(r.out_of_memory, None);
    let seen = seen.into_inner().unwrap();
    assert!(
        seen.contains(&(1, 1)) && seen.iter().any(|&(k, _)| k == 2),
        "{seen:?}"
    );
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    // An observer that says stop ends the search.
    let stop = |_: u32, _: u32| false;
    let stopping = CopSearch {
        observer: Some(&stop),
        ..CopSearch::default()
    };
    assert!(matches!(
        cop_number_with(&arena, 4, &stopping),
        Err(retrograde::Error::Stopped { .. })
    ));
}

/// Bytes the solve of `k` cops on `arena` needs (the library's estimate,
/// no distance table): what the cop-number search plans for `k` cops.
fn need(arena: &Arena, k: usize) -> u64 {
    let game = CopsGame::from_graph(arena.clone(), Rules::default(), k as u32, Speeds::default());
    estimate(&game.unwrap(), &SolveOptions::new(Engine::Bitboard)).total()
}
