//! `retrograde solve FILE`: one flow for any number of cops, on a map or
//! (`--graph`) a graph. The game and what its report adds are `play.rs`'s
//! ([`Play`]); the rest is written once here: `--plan` from
//! `plan_storage`, the solve through the library's `solve()` with
//! `--checkpoint`/`--resume`, `--verify`, `--dump` ([`dump`]), `--save`
//! and the report (text or `--json`).

mod play;

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use retrograde::{
    solve, verify_observed, Checkpoint, Engine, Game, Inconsistency, Outcome, Solution,
};

use super::checkpoint::{self, DirSink};
use super::common::{worker_pool, EngineConfig, UsageError};
use super::output::{print_text, OutputTarget, SolveReport, VerifyReport};
use super::progress::Reporter;
use super::solving::{self, save_table, SolveArgs};
use crate::cli::failure::Failure;
use play::Play;

/// Runs `solve` (not `--processes`); returns the exit status.
pub(crate) fn run(args: SolveArgs) -> Result<i32, Failure> {
    let config = args.engine.resolve_grid()?;
    refuse_checkpoints(&args, config.engine)?;
    let (play, targets) = play::setup(&args, &config)?;
    let scen = args.scen.is_some() && config.engine.keeps_distances();
    solve_game(&args, &config, play, targets, scen)
}

/// `--dump` and `--save`, checked before any work.
type Targets = (Option<OutputTarget>, Option<OutputTarget>);

/// The flow of every solve: plan (`--plan` stops there), checkpoints,
/// solve, verify, dump, save, report. `scen_dte`: a scenario's pairs need
/// the distance table.
fn solve_game(
    args: &SolveArgs,
    config: &EngineConfig,
    mut play: Play,
    (dump_target, save_target): Targets,
    scen_dte: bool,
) -> Result<i32, Failure> {
    let dte_table = args.dte_table || args.dump.is_some() || scen_dte;
    // The engine's own rule (the sweep engine keeps no distances), before
    // any work.
    solving::options(config, dte_table, None).check_engine()?;
    if args.plan {
        play.build(args, false)?;
        let options = solving::options(config, dte_table, play.game().start_state());
        let plan = solving::plan_report(&args.map, play.game(), &options, config)?;
        return Ok(plan.print(args.json)?);
    }
    // The one-cop game opens its checkpoint before the game is built, the
    // several-cops game after the plan: each keeps the order of its
    // refusals and progress lines.
    let several = args.kcops.active();
    let mut checkpoints = None;
    if !several {
        checkpoints = Some(open_checkpoints(args, config, dte_table)?);
    }
    let reporter = Reporter::new(args.quiet, "solving");
    note_resume(&reporter, checkpoints.as_ref());
    let started = Instant::now();
    play.build(args, true)?;
    let start = play.game().start_state();
    let options = solving::options(config, dte_table, start);
    let plan = solving::plan(play.game(), &options, config, &reporter)?;
    if several {
        checkpoints = Some(open_checkpoints(args, config, dte_table)?);
        note_resume(&reporter, checkpoints.as_ref());
    }
    let (sink, resume) = checkpoints.unwrap_or_default();
    super::progress::solving_started();
    if sink.is_none() {
        // Ctrl-C ends the solve at once: say what it cost, and how to
        // make the next one resumable.
        super::output::say_when_stopped(lost_without_checkpoint);
    }
    let observe = |p: &retrograde::Progress| {
        reporter.observe(p);
        retrograde::Flow::Continue
    };
    let options = options
        .with_plan(&plan)
        .with_observer(&observe)
        .with_checkpoint(sink.as_ref().map(|s| s as &dyn retrograde::Sink))
        .with_resume(resume.as_ref());
    let solution = match solve(play.game(), &options) {
        Ok(solution) => solution,
        Err(retrograde::Error::Stopped { level }) if sink.is_some() => {
            let dir = sink.as_ref().map(|s| s.dir().display().to_string());
            let dir = dir.unwrap_or_default();
            reporter.finish();
            say!("stopped: checkpoint after level {level} saved in {dir}; continue with --resume {dir}");
            return Ok(128 + super::output::stop_requested().unwrap_or(0));
        }
        // The several-cops bitboard engine's refusals (a checkpoint of
        // another solve) read as they are; any other failure says where
        // it came.
        Err(e) if several && config.engine == Engine::Bitboard => return Err(e.into()),
        Err(e) => return Err(anyhow::Error::new(e).context("solve failed").into()),
    };
    reporter.finish();
    let found = solving::found(&solution, start, config);
    let seconds = started.elapsed().as_secs_f64();
    let mut report = play.report(args, &solution, found, seconds);
    let first_bad = verify(args, config, &play, &solution, &reporter, &mut report)?;
    // A table or a dump on standard output is all that goes there: the
    // report then goes to standard error, text or JSON (a CSV followed by
    // the report would not read as CSV).
    let data_on_stdout = dump_target
        .iter()
        .chain(&save_target)
        .any(OutputTarget::is_stdout);
    if let Some(target) = dump_target {
        target.write_with(|out| dump(&play, &solution, out))?;
    }
    if let Some(target) = save_target {
        reporter.note(&format!("saving the table to {}", target.path().display()));
        report.saved = Some(save_table(target, play.game(), &solution, config.engine)?);
    }
    let xy = args.game.xy;
    super::schema::print_beside(data_on_stdout, args.json, &report, |mut out, r| {
        print_text(&mut out, r, xy)
    })?;
    if let Some(bad) = first_bad {
        say!("error: verification failed: {}", play.inconsistent(&bad));
        return Ok(1);
    }
    if let Some(sink) = &sink {
        remove_finished_checkpoint(sink.dir(), &reporter);
    }
    Ok(0)
}

/// What a stop signal says of a solve without `--checkpoint`, which it
/// ends at once: the time and levels lost, and how to make a solve
/// resumable.
fn lost_without_checkpoint() -> String {
    use super::progress::human_seconds;
    let lost = match super::progress::seen() {
        Some(seen) => {
            let spent = human_seconds(seen.started.elapsed().as_secs_f64());
            match seen.last {
                Some(p) if p.states > 0 => format!(
                    "{spent} of solving ({} {}, {} of {} states decided)",
                    if p.sweeping { "sweep" } else { "level" },
                    p.level,
                    p.decided,
                    p.states
                ),
                _ => format!("{spent} of solving"),
            }
        }
        None => "the solve".to_string(),
    };
    format!(
        "stopped: {lost} lost; without --checkpoint nothing is saved. \
         Run with --checkpoint DIR to make the solve resumable: a Ctrl-C then saves it \
         after the current level and stops, and --resume DIR goes on from there"
    )
}

/// Removes the checkpoint of a solve that finished and delivered what was
/// asked (its file is as large as the solve's bitsets, and nothing is
/// left to resume), saying so; DIR itself stays. A failure to remove it
/// is only reported: the answer stands.
fn remove_finished_checkpoint(dir: &std::path::Path, reporter: &Reporter) {
    let file = checkpoint::file_in(dir);
    match std::fs::remove_file(&file) {
        Ok(()) => reporter.note(&format!(
            "removed the checkpoint {}: the solve finished",
            file.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => say!(
            "warning: the solve finished, but its checkpoint {} could not be removed: {e}",
            file.display()
        ),
    }
}

/// `--checkpoint` and `--resume` with an engine that keeps none (the
/// library's rule, [`Engine::keeps_checkpoints`]): refused before any work.
fn refuse_checkpoints(args: &SolveArgs, engine: Engine) -> Result<(), UsageError> {
    if (args.checkpoint.is_some() || args.resume.is_some()) && !engine.keeps_checkpoints() {
        return Err(UsageError(format!(
            "--checkpoint and --resume need --engine bitboard (the default), not {engine}"
        )));
    }
    Ok(())
}

/// The checkpoint sink and the checkpoint to resume from that
/// `--checkpoint` and `--resume` ask for (none without them); the
/// fingerprint is the map's, the placement's, the rules' and the engine's,
/// with the several-cops game's own fields.
fn open_checkpoints(
    args: &SolveArgs,
    config: &EngineConfig,
    dte_table: bool,
) -> Result<(Option<DirSink>, Option<Checkpoint>)> {
    let Some(dir) = args.checkpoint.as_ref().or(args.resume.as_ref()) else {
        return Ok((None, None));
    };
    let mut fingerprint =
        checkpoint::fingerprint(&args.map, &args.game, config.engine.as_str(), dte_table)?;
    let several = args.kcops.active();
    if several {
        fingerprint.extend(super::several::fingerprint(args));
    }
    let resume = args
        .resume
        .as_deref()
        .map(|from| checkpoint::load(from, &fingerprint, several))
        .transpose()?;
    let sink = DirSink::new(dir, args.checkpoint_every, fingerprint)?;
    Ok((Some(sink), resume))
}

/// Says which level a resumed solve goes on after.
fn note_resume(reporter: &Reporter, checkpoints: Option<&(Option<DirSink>, Option<Checkpoint>)>) {
    if let Some((_, Some(resume))) = checkpoints {
        reporter.note(&format!("resuming after level {}", resume.level()));
    }
}

/// `--verify`: checks every state against its moves into the report;
/// the first state that disagrees, if any.
fn verify(
    args: &SolveArgs,
    config: &EngineConfig,
    play: &Play,
    solution: &Solution,
    reporter: &Reporter,
    report: &mut SolveReport,
) -> Result<Option<Inconsistency>> {
    if !args.verify {
        return Ok(None);
    }
    reporter.note("verifying every state against its moves");
    let started = Instant::now();
    let pool = worker_pool(config.threads)?;
    let observe = |done: u64, total: u64| reporter.checked(done, total);
    let game = play.game();
    let check = pool.install(|| verify_observed(game, solution, &observe));
    reporter.finish();
    report.verified = Some(VerifyReport {
        states: check.states,
        distances: check.distances,
        inconsistent: check.inconsistent,
        seconds: started.elapsed().as_secs_f64(),
    });
    Ok(check.first)
}

/// `--dump`: every state as a CSV row in state-index order, the cops
/// first (several in ascending order), then the thief, who is to move,
/// the value and the distance to end: `cop_row,cop_col,...` on maps, one
/// column a piece on graphs.
fn dump(play: &Play, solution: &Solution, out: &mut impl Write) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let (cops, grid) = play.dump_columns();
    let mut header = Vec::new();
    for name in cops.iter().map(String::as_str).chain(["thief"]) {
        match grid {
            Some(_) => header.extend([format!("{name}_row"), format!("{name}_col")]),
            None => header.push(name.to_string()),
        }
    }
    writeln!(out, "{},turn,value,dte", header.join(","))?;
    let mut line = String::new();
    let game = play.game();
    for s in 0..game.state_count() {
        let p = game.position(s);
        line.clear();
        for cell in p.cops.iter().copied().chain([p.thief]) {
            let _ = match grid {
                Some(grid) => {
                    let (r, c) = grid.coords(cell);
                    write!(line, "{r},{c},")
                }
                None => write!(line, "{cell},"),
            };
        }
        let (turn, value) = (p.turn.as_str(), solution.outcome(s));
        match solution.dte(s) {
            Some(d) if value != Outcome::Draw => writeln!(out, "{line}{turn},{value},{d}")?,
            _ => writeln!(out, "{line}{turn},{value},")?,
        }
    }
    Ok(())
}
