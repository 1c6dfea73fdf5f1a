//! `batch --plan`: the exit status of `solve --plan` (2 when a map does
//! not fit, and when one cannot be read or planned) over every map, and
//! JSON Lines that stay JSON with a bad map among them.

use serde_json::Value as Json;

use crate::support::{run, stderr, stdout, temp_dir};

#[test]
fn batch_plan_exits_2_when_a_map_does_not_fit_or_cannot_be_read() {
    let dir = temp_dir("batch-plan-status");
    let ok = dir.join("ok.txt");
    let bad = dir.join("bad.txt");
    std::fs::write(&ok, "2 3\nC.T\n..E\n").unwrap();
    std::fs::write(&bad, "2 3\nC.T\n.\n").unwrap();
    let (ok, bad) = (ok.to_str().unwrap(), bad.to_str().unwrap());
    // Every map fits: 0.
    let out = run(&["batch", ok, "--plan"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // One does not fit: 2, as `solve --plan` says.
    let out = run(&["batch", ok, "--plan", "--memory", "1K"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stdout(&out).contains("does not fit"), "{}", stdout(&out));
    // One cannot be read: 2, every map still planned, the error on stderr
    // and, under --json, a JSON object of its own.
    let out = run(&["batch", ok, bad, "--plan", "--json"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let rows: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let broken = rows
        .iter()
        .find(|r| r["map"] == bad)
        .expect("the bad map's object");
    assert_eq!(broken["schema"], 1, "{broken}");
    assert_eq!(broken["fits"], false, "{broken}");
    let error = broken["error"].as_str().expect("its error");
    assert!(error.contains(&format!("{bad}:3:2: ")), "{broken}");
    let good = rows
        .iter()
        .find(|r| r["map"] == ok)
        .expect("the good map's plan");
    assert_eq!(good["fits"], true, "{good}");
    assert!(
        stderr(&out).contains(&format!("error: {bad}:3:2: ")),
        "{}",
        stderr(&out)
    );
    // In text, the line as before, the error on stderr too.
    let out = run(&["batch", ok, bad, "--plan"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("plan: {bad}: cannot be planned: {bad}:3:2")),
        "{text}"
    );
    assert!(text.contains(&format!("plan: {ok}: 72 states")), "{text}");
    assert!(
        stderr(&out).contains(&format!("error: {bad}:3:2: ")),
        "{}",
        stderr(&out)
    );
    // A FIFO met in a walk cannot be read: 2, and an object under --json.
    let walked = dir.join("walked");
    std::fs::create_dir(&walked).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(walked.join("f.map"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = run(
        &["batch", walked.to_str().unwrap(), "--plan", "--json"],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let row: Json = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
    assert_eq!(row["fits"], false, "{row}");
    assert!(row["error"].as_str().unwrap().contains("FIFO"), "{row}");
    let _ = std::fs::remove_dir_all(&dir);
}
