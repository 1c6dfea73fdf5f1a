//! `batch --cops K` and `batch --copnumber`: every map's several-cops
//! game, one row each. `--cops K` (speeds, `--lazy`, `--graph` as `solve
//! --cops K` takes them) solves each map's game and writes its summary
//! over every start placement, as `solve --cops K --summary` reports it;
//! `--copnumber` writes each map's cop number, placement and capture time,
//! as `copnumber MAP` gives them, under `--max-cops` and `--memory`. The
//! maps run one at a time on every thread (the several-cops engines are
//! parallel within a solve); rows go through the batch's collector, so
//! `--resume` and Ctrl-C work as for one cop.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use retrograde::copnumber::{cop_number_with, CopSearch};
use retrograde::{solve, Engine, Game};

use super::results::{Previous, Row, OK, TOO_LARGE};
use super::schedule::Collector;
use super::{dash, print_by_map, BatchArgs, Totals};
use crate::cli::common::{peak_memory, worker_pool, EngineConfig, UsageError};
use crate::cli::output::{stop_requested, BestPlacementJson};
use crate::cli::progress::MapsProgress;
use crate::cli::several::{refuse_lazy_batch, SeveralCops};
use crate::cli::solving;

/// Whether the batch is of the several-cops game (`--cops K` with K > 1,
/// speeds, `--lazy`, `--graph`) or of cop numbers.
pub(super) fn active(args: &BatchArgs) -> bool {
    args.copnumber || args.kcops.active()
}

/// The flags of a several-cops batch that change its rows, as
/// command-line words (recorded in each row; `--resume` compares them).
pub(super) fn flags(args: &BatchArgs) -> Vec<String> {
    let kcops = &args.kcops;
    let mut words = Vec::new();
    if args.copnumber {
        words.push("--copnumber".to_string());
        words.push(format!("--max-cops {}", args.max_cops));
    } else if kcops.k() > 1 {
        words.push(format!("--cops {}", kcops.k()));
    }
    let speeds = &kcops.speeds;
    if speeds.cop_speed != 1 {
        words.push(format!("--cop-speed {}", speeds.cop_speed));
    }
    if speeds.thief_speed != 1 {
        words.push(format!("--thief-speed {}", speeds.thief_speed));
    }
    if kcops.lazy {
        words.push("--lazy".to_string());
    }
    if kcops.graph {
        words.push("--graph".to_string());
    }
    words
}

/// The refusals of a several-cops batch, before any map is read.
///
/// # Errors
/// A [`UsageError`] naming the flag.
pub(super) fn check(args: &BatchArgs) -> Result<(), UsageError> {
    let not_with = |flag: &str, why: &str| -> Result<(), UsageError> {
        let what = if args.copnumber {
            "--copnumber"
        } else {
            "several cops, speeds or --graph"
        };
        Err(UsageError(format!(
            "{flag} is not available with {what}: {why}"
        )))
    };
    if !args.scen.is_empty() {
        return not_with("--scen", "scenario pairs are one cop's");
    }
    if args.save_dir.is_some() {
        return not_with(
            "--save-dir",
            "save a map's table with solve --cops K --save",
        );
    }
    if args.copnumber {
        let game = &args.game;
        if !game.cop.is_empty() || game.thief.is_some() {
            return not_with(
                "--cop / --thief",
                "the cop number tries every placement of the cops and every thief cell",
            );
        }
        if game.thief_first {
            return not_with(
                "--thief-first",
                "the cop number places the cops, then the thief, and the cops move first",
            );
        }
        if args.plan {
            return not_with(
                "--plan",
                "copnumber MAP --plan plans one map's numbers of cops",
            );
        }
        if args.dte_table {
            return not_with("--dte-table", "the cop number's search keeps no distances");
        }
    }
    refuse_lazy_batch(args.kcops.lazy, args.kcops.k(), args.copnumber)
}

/// One map's several-cops game, as `solve --cops K` builds it.
fn build(args: &BatchArgs, config: &EngineConfig, path: &Path) -> Result<SeveralCops> {
    SeveralCops::build(
        path,
        &args.game,
        &args.kcops,
        &config.storage,
        config.engine == Engine::Bitboard,
    )
}

/// `batch --cops K --plan`: one map's several-cops solve planned as
/// `solve --cops K --plan` plans it.
pub(super) fn plan_map(
    args: &BatchArgs,
    config: &EngineConfig,
    path: &Path,
) -> Result<crate::cli::output::PlanReport> {
    let several = build(args, config, path)?;
    let options = solving::options(config, args.dte_table, several.game.start_state());
    solving::plan_report(path, &several.game, &options, config)
}

/// Solves the maps one at a time on every thread; rows go to `collector`.
///
/// # Errors
/// A worker pool that cannot start.
pub(super) fn run_maps(
    args: &BatchArgs,
    config: &EngineConfig,
    flags: &str,
    todo: &[&PathBuf],
    collector: &Collector<'_>,
    progress: &MapsProgress,
) -> Result<()> {
    let pool = worker_pool(config.threads.max(1))?;
    for path in todo {
        if collector.stopped() {
            break;
        }
        progress.started(&path.display().to_string());
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let started = Instant::now();
        let row = pool.install(|| {
            if args.copnumber {
                cop_number_row(args, config, path)
            } else {
                summary_row(args, config, path)
            }
        });
        let row = match row {
            Ok(row) => Row {
                seconds: Some(started.elapsed().as_secs_f64()),
                peak_memory_bytes: peak_memory(),
                ..row
            },
            Err(e) => Row::failed(path, flags, &e),
        };
        collector.add(vec![Row {
            flags: flags.to_string(),
            ..row
        }]);
    }
    progress.finish();
    Ok(())
}

/// The row of one map's several-cops solve: what `solve --cops K
/// --summary --json` reports of it.
fn summary_row(args: &BatchArgs, config: &EngineConfig, path: &Path) -> Result<Row> {
    let started = Instant::now();
    let several = build(args, config, path)?;
    let game = &several.game;
    let row = Row {
        states: Some(game.state_count()),
        cops: Some(game.cops()),
        ..arena_row(&several, path)
    };
    if args.max_states.is_some_and(|max| game.state_count() > max) {
        return Ok(Row {
            status: TOO_LARGE.to_string(),
            ..row
        });
    }
    let options = solving::options(config, args.dte_table, several.game.start_state());
    let quiet = crate::cli::progress::Reporter::Quiet;
    let plan = solving::plan(game, &options, config, &quiet)?;
    let options = options.with_plan(&plan);
    let solution = solve(game, &options)?;
    let found = solving::found(&solution, several.game.start_state(), config);
    let report = several.report(path, &args.kcops, found, started.elapsed().as_secs_f64());
    let summary = several.placements(&solution);
    Ok(Row {
        result: report.result,
        dte: report.dte,
        counts: Some(report.counts),
        placements: Some(summary.placements),
        share: (summary.placements > 0).then_some(summary.share),
        longest_placement: summary.longest,
        best_placement: summary.best_placement,
        engine: Some(report.engine),
        threads: Some(report.threads),
        array_bytes: Some(solution.bytes()),
        ..row
    })
}

/// The row of one map's cop number: what `copnumber MAP` gives (the cop
/// number, the placement, its capture time); a number of cops that would
/// not fit `--memory` ends the search and fails the row (a later
/// `--resume` with more memory tries it again).
fn cop_number_row(args: &BatchArgs, config: &EngineConfig, path: &Path) -> Result<Row> {
    let several = SeveralCops::build(path, &args.game, &args.kcops, &config.storage, false)?;
    let arena = several.arena();
    if arena.cells() == 0 {
        anyhow::bail!("a map with no free cell has no cop number");
    }
    let cap = config
        .storage
        .memory
        .unwrap_or_else(retrograde::available_memory);
    let observer = |_: u32, _: u32| stop_requested().is_none();
    let search = CopSearch {
        memory: Some(cap),
        untimed: false,
        observer: Some(&observer),
    };
    let r = cop_number_with(arena, args.max_cops, &search)?;
    if let Some(o) = r.out_of_memory {
        anyhow::bail!(
            "{} cops would need {} bytes, more than the --memory cap of {} bytes: the cop number is more than {}",
            o.cops,
            o.needed,
            o.cap,
            o.cops - 1
        );
    }
    Ok(Row {
        cops: r.cop_number,
        cop_number: r.cop_number,
        best_placement: r.cop_number.map(|_| BestPlacementJson {
            cops: r.placement.iter().map(|&c| several.show(c)).collect(),
            capture_plies: r.capture_time_plies,
            capture_rounds: r.capture_time_rounds,
        }),
        engine: Some("copnumber"),
        threads: Some(config.threads),
        ..arena_row(&several, path)
    })
}

/// The row of a map's several-cops game before its results: the file's
/// format, the grid's size, the cells and exits.
fn arena_row(several: &SeveralCops, path: &Path) -> Row {
    let arena = several.arena();
    let grid = arena.grid();
    Row {
        format: Some(several.format()),
        width: grid.map(retrograde::Grid::width),
        height: grid.map(retrograde::Grid::height),
        cells: Some(u64::from(arena.cells())),
        exits: Some(arena.exit_count() as u64),
        status: OK.to_string(),
        ..Row::new(path, "")
    }
}

/// Prints one line per map of a `--copnumber` batch (sorted by path) and
/// the totals.
pub(super) fn print_cop_numbers(
    out: &mut impl Write,
    rows: &[Row],
    resumed: &[&Previous],
    totals: &Totals,
    max_cops: u32,
) -> std::io::Result<()> {
    let number = |ok: bool, c: Option<u64>| match (ok, c) {
        (false, _) => dash(),
        (true, Some(c)) => c.to_string(),
        (true, None) => format!("> {max_cops}"),
    };
    let lines = rows
        .iter()
        .map(|r| {
            let best = r.best_placement.as_ref();
            vec![
                r.path.clone(),
                r.cells.map_or_else(dash, |c| c.to_string()),
                number(r.status == OK, r.cop_number.map(u64::from)),
                best.map_or_else(dash, |b| {
                    let cells: Vec<String> = b
                        .cops
                        .iter()
                        .map(|c| crate::cli::output::show_value(c, false))
                        .collect();
                    cells.join(" ")
                }),
                best.map_or_else(dash, |b| b.capture_rounds.to_string()),
                r.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                r.status.clone(),
            ]
        })
        .chain(resumed.iter().map(|p| {
            vec![
                p.path.clone(),
                dash(),
                number(true, p.cop_number),
                dash(),
                dash(),
                p.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                "ok (resumed)".to_string(),
            ]
        }));
    print_by_map(
        out,
        &[
            "map",
            "cells",
            "cop number",
            "placement",
            "capture (rounds)",
            "seconds",
            "status",
        ],
        &[false, true, true, false, true, true],
        lines,
        rows,
        resumed,
        totals,
    )
}
