//! `bench`'s outputs: exports on standard output carry nothing else (the
//! table then goes to standard error), and what the exports say of the
//! engines that were refused.

use serde_json::Value as Json;

use crate::support::{run, stderr, stdout, temp_dir};

/// One sequential run of the sample map, the fastest bench there is.
const ONE_RUN: [&str; 9] = [
    "bench",
    "data/maps/sample.txt",
    "--engines",
    "sequential",
    "--runs",
    "1",
    "--warmup",
    "0",
    "-q",
];

/// `bench --export-csv -` (and `--export-json -`, `--export-markdown -`):
/// the export is standard output's only content and the text table goes
/// to standard error; two exports on standard output would run into each
/// other: refused before any run.
#[test]
fn bench_export_to_stdout_keeps_the_table_off_it() {
    for (flag, to) in [
        ("--export-csv", "-"),
        ("--export-csv", "/dev/stdout"),
        ("--export-json", "-"),
        ("--export-markdown", "-"),
    ] {
        let mut args = ONE_RUN.to_vec();
        args.extend([flag, to]);
        let out = run(&args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        match flag {
            "--export-csv" => {
                let mut reader = csv::Reader::from_reader(text.as_bytes());
                let header = reader.headers().expect("a CSV header").clone();
                assert_eq!(&header[0], "map", "{text}");
                let rows: Vec<csv::StringRecord> = reader
                    .records()
                    .collect::<Result<_, _>>()
                    .unwrap_or_else(|e| panic!("{flag} {to}: not CSV: {e}: {text}"));
                assert_eq!(rows.len(), 1, "{text}");
                assert_eq!(rows[0].len(), header.len(), "{text}");
                assert_eq!(&rows[0][1], "sequential", "{text}");
            }
            "--export-json" => {
                let export: Json = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{flag} {to}: not JSON: {e}: {text}"));
                assert_eq!(export["results"][0]["engine"], "sequential", "{text}");
            }
            _ => {
                assert!(text.starts_with("| map | engine |"), "{text}");
                assert_eq!(text.lines().count(), 3, "{text}");
            }
        }
        let table = stderr(&out);
        assert!(
            table.starts_with("map "),
            "{flag} {to}: the table on stderr: {table}"
        );
        assert!(table.contains(" sequential "), "{table}");
    }
    // Two exports on standard output: refused, nothing run.
    let mut args = ONE_RUN.to_vec();
    args.extend(["--export-json", "-", "--export-csv", "-"]);
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--export-csv -: standard output already carries --export-json -"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty(), "refused before the runs");
    // An export to a file leaves the table on standard output.
    let dir = temp_dir("bench-export-file");
    let file = dir.join("b.csv");
    let mut args = ONE_RUN.to_vec();
    args.extend(["--export-csv", file.to_str().unwrap()]);
    let out = run(&args, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("map "), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine refused under `--memory` never ran: its export record says
/// `status` `refused` with null times (they read 0.0, as runs that took
/// no time), its CSV fields are empty and its Markdown row has no figures;
/// an engine beside it that ran has `status` `ok` and its times.
#[test]
fn bench_exports_give_refused_engines_no_times() {
    let dir = temp_dir("bench-refused-exports");
    let (json, csv_path, md) = (dir.join("b.json"), dir.join("b.csv"), dir.join("b.md"));
    let args = [
        "bench",
        "data/maps/sample.txt",
        "--engines",
        "explicit,sequential",
        "--memory",
        "16K",
        "--runs",
        "1",
        "--warmup",
        "0",
        "-q",
        "--export-json",
        json.to_str().unwrap(),
        "--export-csv",
        csv_path.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
    ];
    let out = run(&args, None);
    assert!(
        stdout(&out).contains("refused: explicit graph needs"),
        "{}",
        stdout(&out)
    );
    let export: Json = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let records = export["results"].as_array().unwrap();
    let (refused, ran) = (&records[0], &records[1]);
    assert_eq!(refused["engine"], "explicit", "{refused}");
    assert_eq!(refused["status"], "refused", "{refused}");
    assert!(refused["error"].is_string(), "{refused}");
    assert_eq!(refused["runs"], 0, "{refused}");
    for key in [
        "mean_seconds",
        "stddev_seconds",
        "median_seconds",
        "min_seconds",
        "max_seconds",
        "build_seconds",
        "solve_seconds",
        "states_per_second",
    ] {
        assert!(refused[key].is_null(), "{key}: {refused}");
        if key != "stddev_seconds" {
            assert!(ran[key].is_f64(), "{key}: {ran}");
        }
    }
    assert_eq!(ran["status"], "ok", "{ran}");
    assert_eq!(ran["runs"], 1, "{ran}");
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][column("status")], "refused");
    assert_eq!(&rows[1][column("status")], "ok");
    for name in [
        "mean_seconds",
        "median_seconds",
        "min_seconds",
        "states_per_second",
    ] {
        assert_eq!(&rows[0][column(name)], "", "{name}: {:?}", rows[0]);
        assert!(rows[1][column(name)].parse::<f64>().is_ok(), "{name}");
    }
    let markdown = std::fs::read_to_string(&md).unwrap();
    let explicit = markdown
        .lines()
        .find(|l| l.contains("| explicit |"))
        .unwrap();
    assert!(explicit.contains("| | | | | | | refused: "), "{markdown}");
    let _ = std::fs::remove_dir_all(&dir);
}
