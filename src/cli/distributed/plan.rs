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
    let (processes, workers) = (place.processes, place.workers);
    let game = if args.kcops.active() {
        SeveralCops::build(&args.map, &args.game, &args.kcops, &limits, false)?.game
    } else {
        let map = load_map(&args.map)?;
        super::super::solving::one_cop_game(&map, &args.game)?
    };
    let bounds = distributed::bit_bands(&game, processes);
    let mut report = PlanReport::new(
        args.map.display().to_string(),
        bounds[place.process + 1] - bounds[place.process],
        "distributed",
    );
    let planned = distributed::bit_band_plan(
        &game,
        processes,
        place.process,
        workers,
        args.dte_table,
        &limits,
    );
    report.settle(planned.map(|p| {
        let scratch = match &p.backing {
            retrograde::Backing::Memory => None,
            retrograde::Backing::Scratch(dir) => Some(dir.display().to_string()),
        };
        (p.bytes, p.resident, scratch, p.passes)
    }))?;
    Ok(report.print(args.json)?)
}
