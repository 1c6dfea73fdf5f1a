//! `retrograde solve MAP`: solve one policeman-and-thief map and report the
//! start's verdict, its distance to end and the counts over all states.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use retrograde::{
    load_map, load_scen, verify_observed, CopsAndThief, Game, Outcome, Solution, SolveOptions,
};

use super::checkpoint;
use super::common::{worker_pool, UsageError};
use super::output::{print_text, ScenPair, SummaryJson, VerifyReport};
use super::progress::Reporter;
use super::solving::{
    check_outputs, not_a_map, plan_map, save_table, solve_loaded, Resumable, SolveArgs,
};
use super::Failure;

/// Runs `solve`; returns the exit status.
pub(crate) fn run(args: SolveArgs) -> Result<i32, Failure> {
    let config = args.engine.resolve_grid()?;
    let scenario = args.scen.as_deref().map(load_scen).transpose()?;
    let map = load_map(&args.map).map_err(|e| not_a_map(&args.map, e))?;
    // The scenario is checked against the map before the solve, as batch
    // does: its sizes and every entry's cells.
    if let Some(scenario) = &scenario {
        let board = args.game.board(&map)?;
        scenario.check_size(&board.grid)?;
        for entry in &scenario.entries {
            scenario.cells(entry, &board.grid)?;
        }
    }
    // The dump's path is checked before the solve, not after it.
    let (dump_target, save_target) = check_outputs(&args)?;
    // Every scenario pair's distance comes from the table (an engine that
    // keeps no distances reports values only).
    let dte_table = args.dte_table
        || args.dump.is_some()
        || (scenario.is_some() && config.engine.keeps_distances());
    // The engine's own rule (the sweep engine keeps no distances), before
    // any work.
    SolveOptions::new(config.engine)
        .with_dte_table(dte_table)
        .check_engine()?;
    if args.plan {
        let plan = plan_map(&args.map, &map, &args.game, &config, dte_table)?;
        return Ok(plan.print(args.json)?);
    }
    let checkpoint_dir = args.checkpoint.as_ref().or(args.resume.as_ref());
    let (sink, resume) = match checkpoint_dir {
        None => (None, None),
        Some(dir) => {
            if !config.engine.keeps_checkpoints() {
                return Err(UsageError(format!(
                    "--checkpoint and --resume need --engine bitboard (the default for grid maps), not {}",
                    config.engine
                ))
                .into());
            }
            let fingerprint =
                checkpoint::fingerprint(&args.map, &args.game, config.engine.as_str(), dte_table)?;
            let resume = args
                .resume
                .as_deref()
                .map(|from| checkpoint::load(from, &fingerprint))
                .transpose()?;
            let sink = checkpoint::DirSink::new(dir, args.checkpoint_every, fingerprint)?;
            (Some(sink), resume)
        }
    };
    let reporter = Reporter::new(args.quiet, "solving");
    if let Some(r) = &resume {
        reporter.note(&format!("resuming after level {}", r.level()));
    }
    let resumable = Resumable {
        sink: sink.as_ref().map(|s| s as &dyn retrograde::Sink),
        resume: resume.as_ref(),
    };
    let solved = solve_loaded(
        &args.map, &map, &args.game, &config, dte_table, &reporter, &resumable,
    );
    let mut solved = match solved {
        Err(e) => {
            let stopped = e
                .chain()
                .find_map(|e| match e.downcast_ref::<retrograde::Error>() {
                    Some(retrograde::Error::Stopped { level }) => Some(*level),
                    _ => None,
                });
            match (stopped, &sink) {
                (Some(level), Some(sink)) => {
                    reporter.finish();
                    say!(
                        "stopped: checkpoint after level {level} saved in {}; continue with --resume {}",
                        sink.dir().display(),
                        sink.dir().display()
                    );
                    return Ok(128 + super::output::stop_requested().unwrap_or(0));
                }
                _ => return Err(e.into()),
            }
        }
        Ok(solved) => solved,
    };
    if let Some(scenario) = &scenario {
        let game = &solved.game;
        let grid = &game.board().grid;
        scenario.check_size(grid)?;
        let turn = game.rules().first_mover();
        let mut pairs = Vec::with_capacity(scenario.entries.len());
        for entry in &scenario.entries {
            let (thief, cop) = scenario.cells(entry, grid)?;
            let state = game.state(cop, thief, turn);
            pairs.push(ScenPair {
                line: entry.line,
                bucket: entry.bucket,
                cop: [entry.goal.0, entry.goal.1],
                thief: [entry.start.0, entry.start.1],
                result: game.verdict(solved.solution.outcome(state)).as_str(),
                dte: solved.solution.dte(state).map(|d| d.plies()),
            });
        }
        solved.report.scenario = Some(pairs);
    }
    if args.summary || (!args.json && !args.no_summary) {
        let summary = solved.game.start_pairs(&solved.solution);
        solved.report.summary = Some(SummaryJson::new(&summary, solved.game.rules().thief_first));
    }
    let check = if args.verify {
        reporter.note("verifying every state against its moves");
        let started = Instant::now();
        let pool = worker_pool(config.threads)?;
        let observe = |done: u64, total: u64| reporter.checked(done, total);
        let check = pool.install(|| verify_observed(&solved.game, &solved.solution, &observe));
        reporter.finish();
        solved.report.verified = Some(VerifyReport {
            states: check.states,
            distances: check.distances,
            inconsistent: check.inconsistent,
            seconds: started.elapsed().as_secs_f64(),
        });
        Some(check)
    } else {
        None
    };
    if let Some(target) = dump_target {
        target.write_with(|out| dump(&solved.game, &solved.solution, out))?;
    }
    if let Some(target) = save_target {
        reporter.note(&format!("saving the table to {}", target.path().display()));
        solved.report.saved = Some(save_table(
            target,
            &solved.game,
            &solved.solution,
            config.engine,
        )?);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&solved.report))?;
        writeln!(out)?;
    } else {
        print_text(&mut out, &solved.report, args.game.xy)?;
    }
    match check.and_then(|c| c.first) {
        Some(bad) => {
            let (cop, thief, turn) = solved.game.decode(bad.state);
            let grid = &solved.game.board().grid;
            let show = |(value, dte): (Outcome, Option<u32>)| match dte {
                Some(d) => format!("{value} in {d}"),
                None => value.to_string(),
            };
            say!(
                "error: verification failed: state {} (cop {:?}, thief {:?}, {:?} to move) is stored as {} but its moves give {}",
                bad.state,
                grid.coords(cop),
                grid.coords(thief),
                turn,
                show(bad.found),
                show(bad.expected)
            );
            Ok(1)
        }
        None => Ok(0),
    }
}

/// Writes every state as a CSV row, in state-index order.
fn dump(game: &CopsAndThief, solution: &Solution, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "cop_row,cop_col,thief_row,thief_col,turn,value,dte")?;
    let grid = &game.board().grid;
    for s in 0..game.state_count() {
        let (cop, thief, turn) = game.decode(s);
        let (cr, cc) = grid.coords(cop);
        let (tr, tc) = grid.coords(thief);
        let turn = turn.as_str();
        let value = solution.outcome(s);
        match solution.dte(s) {
            Some(d) if value != Outcome::Draw => {
                writeln!(out, "{cr},{cc},{tr},{tc},{turn},{value},{d}")?;
            }
            _ => writeln!(out, "{cr},{cc},{tr},{tc},{turn},{value},")?,
        }
    }
    Ok(())
}
