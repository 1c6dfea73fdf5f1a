//! `solve --processes N --process I --plan`: this process's bands planned
//! as the partitioned solve would plan them, printed, nothing connected.

use retrograde::distributed;
use retrograde::load_map;

use super::super::output::PlanReport;
use super::super::several::SeveralCops;
use super::super::solving::SolveArgs;
use super::Place;
use crate::cli::failure::Failure;

/// `--plan` with `--processes`: this process's bands planned as the solve
/// would plan them (`--memory`, `--scratch`), printed, nothing connected
/// or allocated; exit status 0 when they fit, 2 when the solve would be
/// refused. The states are this process's share.
pub(super) fn plan(args: &SolveArgs, place: &Place) -> Result<i32, Failure> {
    let limits = args.engine.storage.limits(0)?;
    let total = place.config.total_workers();
    let share = |game: &dyn Fn(&[u64]) -> retrograde::Result<distributed::BandPlan>,
                 bounds: Vec<u64>| {
        let mine = place.process * place.workers..(place.process + 1) * place.workers;
        (bounds[mine.end] - bounds[mine.start], game(&bounds))
    };
    let (states, planned) = if args.kcops.active() {
        let several = SeveralCops::build(args, &limits, false)?;
        let game = &several.game;
        share(
            &|b| {
                distributed::plan_bands(
                    game,
                    b,
                    place.process,
                    place.workers,
                    args.dte_table,
                    &limits,
                )
            },
            distributed::bands(game, total).expect("a cops game"),
        )
    } else {
        let map = load_map(&args.map)?;
        let game = super::super::solving::one_cop_game(&map, &args.game)?;
        let (processes, workers) = (place.processes, place.workers);
        if distributed::grid_engine_runs(&game, processes, workers, args.dte_table, &limits) {
            // The bit engine: this process's band in memory, whatever the
            // available memory says (the solve refuses a band above it).
            let bounds = distributed::grid_bands(&game, processes);
            let bytes = distributed::grid_band_bytes(&game, processes, workers, args.dte_table)
                [place.process];
            let room = limits.memory.unwrap_or_else(retrograde::available_memory);
            let mut report = PlanReport::new(
                args.map.display().to_string(),
                bounds[place.process + 1] - bounds[place.process],
                "distributed",
            );
            report.settle(if bytes > room {
                Err(retrograde::Error::TooLarge {
                    what: "this process's band of bitsets".into(),
                    needed: bytes,
                    available: room,
                    hint: "more processes, or scratch files (--scratch DIR: the counter engine's bands page)".into(),
                })
            } else {
                Ok((bytes, bytes, None, None))
            })?;
            return Ok(report.print(args.json)?);
        }
        share(
            &|b| {
                distributed::plan_bands(
                    &game,
                    b,
                    place.process,
                    place.workers,
                    args.dte_table,
                    &limits,
                )
            },
            distributed::bands(&game, total).expect("a cops game"),
        )
    };
    let mut report = PlanReport::new(args.map.display().to_string(), states, "distributed");
    report.settle(planned.map(|p| {
        let scratch = match &p.backing {
            retrograde::Backing::Memory => None,
            retrograde::Backing::Scratch(dir) => Some(dir.display().to_string()),
        };
        (p.bytes, p.resident, scratch, None)
    }))?;
    Ok(report.print(args.json)?)
}
