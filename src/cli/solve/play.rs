//! The game of `solve` and what its report adds to it. One cop at speed 1
//! on a map: the map and a `--scen` file read and checked before any work
//! (as batch does: its sizes and every entry's cells), the game built
//! after its checkpoints are opened, the `--scen` pairs and the whole-map
//! summary. `--cops K`, speeds, `--graph`: the game as `cli/several.rs`
//! reads it (shared with `solve --processes`), its refusals first.

use anyhow::Result;
use retrograde::{
    load_map, load_scen, Cops, CopsGame, Engine, Grid, Inconsistency, Map, Outcome, Position,
    Scenario, ScenarioEntry, Solution,
};

use super::Targets;
use crate::cli::common::EngineConfig;
use crate::cli::failure::Failure;
use crate::cli::output::{Found, ScenPair, SolveReport, SummaryJson};
use crate::cli::several::{refuse_lazy, SeveralCops};
use crate::cli::solving::{self, check_outputs, not_a_map, SolveArgs};

/// The game of a solve, as its flags read it.
pub(super) enum Play {
    /// One cop at speed 1 on a map: its map (boxed: the variants keep
    /// near one size), its checked scenario, and the game once built.
    One {
        map: Box<Map>,
        scenario: Option<Checked>,
        game: Option<CopsGame>,
    },
    /// Several cops, speeds or a graph: the game with its starts.
    Several(SeveralCops),
}

/// A scenario checked against the map: every entry's `(thief, cop)` cells.
type Checked = (Scenario, Vec<(u32, u32)>);

/// Reads the game's files and checks the outputs: the one-cop game's map
/// and scenario (checked against the map), or the several-cops game's
/// refusals, then the game with its start.
pub(super) fn setup(args: &SolveArgs, config: &EngineConfig) -> Result<(Play, Targets), Failure> {
    if args.kcops.active() {
        refuse_lazy(args, args.kcops.k())?;
        let targets = check_outputs(args)?;
        let bitboard = config.engine == Engine::Bitboard;
        let several = SeveralCops::build(
            &args.map,
            &args.game,
            &args.kcops,
            &config.storage,
            bitboard,
        )?;
        return Ok((Play::Several(several), targets));
    }
    let scenario = args.scen.as_deref().map(load_scen).transpose()?;
    let map = load_map(&args.map).map_err(|e| not_a_map(&args.map, e))?;
    let scenario = match scenario {
        Some(scenario) => {
            let grid = args.game.board(&map)?.grid;
            scenario.check_size(&grid)?;
            let cells = scenario.entries.iter().map(|e| scenario.cells(e, &grid));
            let cells = cells.collect::<retrograde::Result<_>>()?;
            Some((scenario, cells))
        }
        None => None,
    };
    // The dump's path is checked before the solve, not after it.
    let targets = check_outputs(args)?;
    let game = None;
    Ok((
        Play::One {
            map: Box::new(map),
            scenario,
            game,
        },
        targets,
    ))
}

impl Play {
    /// Builds the one-cop game (the several-cops game was built with the
    /// setup); `solving` says it is to be solved, not planned (a map
    /// without exits is then warned of).
    pub(super) fn build(&mut self, args: &SolveArgs, solving: bool) -> Result<()> {
        if let Play::One { map, game, .. } = self {
            let built = solving::one_cop_game(map, &args.game)?;
            if solving {
                solving::warn_no_exits(&args.map, &built, &args.game);
            }
            *game = Some(built);
        }
        Ok(())
    }

    /// The game (after [`Play::build`]), as `--save` writes it too.
    pub(super) fn game(&self) -> &CopsGame {
        match self {
            Play::One { game, .. } => game.as_ref().expect("the game is built before it is used"),
            Play::Several(several) => &several.game,
        }
    }

    /// The report of the solve: what it found, the pieces, and the
    /// `--scen` pairs and whole-map summary that the flags ask for.
    pub(super) fn report(
        &self,
        args: &SolveArgs,
        solution: &Solution,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let summary = args.summary || (!args.json && !args.no_summary);
        let (map, scenario) = match self {
            Play::Several(several) => {
                let mut report = several.report(&args.map, &args.kcops, found, seconds);
                report.placements = summary.then(|| several.placements(solution));
                return report;
            }
            Play::One { map, scenario, .. } => (map, scenario),
        };
        let game = self.game();
        let mut report = SolveReport::new(&args.map, map.format.as_str(), game, found, seconds);
        report.scenario = scenario.as_ref().map(|s| pairs(game, s, solution));
        if summary {
            let pairs = game.start_pairs(solution).expect("one cop on a map");
            report.summary = Some(SummaryJson::new(&pairs, game.rules().thief_first));
        }
        report
    }

    /// The `--dump` CSV's names of the cops' columns and the grid its
    /// cells are shown on (none on a graph).
    pub(super) fn dump_columns(&self) -> (Vec<String>, Option<&Grid>) {
        let game = self.game();
        let cops = match self {
            Play::One { .. } => vec!["cop".to_string()],
            Play::Several(_) => (1..=game.cops()).map(|i| format!("cop{i}")).collect(),
        };
        (cops, game.grid())
    }

    /// The refusal of `--verify` for a state that disagrees with its moves.
    pub(super) fn inconsistent(&self, bad: &Inconsistency) -> String {
        let Position { cops, thief, turn } = self.game().position(bad.state);
        if let Play::Several(several) = self {
            return format!(
                "state {} (cops {:?}, thief {}, {turn:?} to move) is stored as {:?} but its moves give {:?}",
                bad.state,
                cops.iter().map(|&c| several.show(c).to_string()).collect::<Vec<_>>(),
                several.show(thief),
                bad.found,
                bad.expected
            );
        }
        let grid = self.game().grid().expect("one cop on a map");
        let show = |(value, dte): (Outcome, Option<u32>)| match dte {
            Some(d) => format!("{value} in {d}"),
            None => value.to_string(),
        };
        format!(
            "state {} (cop {:?}, thief {:?}, {turn:?} to move) is stored as {} but its moves give {}",
            bad.state,
            grid.coords(cops[0]),
            grid.coords(thief),
            show(bad.found),
            show(bad.expected)
        )
    }
}

/// Every scenario pair's result, from the solved table of the one-cop
/// `game`.
fn pairs(game: &CopsGame, (scenario, cells): &Checked, solution: &Solution) -> Vec<ScenPair> {
    let turn = game.rules().first_mover();
    let pair = |(entry, &(thief, cop)): (&ScenarioEntry, &(u32, u32))| {
        let cops = Cops::one(cop);
        let state = game.index(&Position { cops, thief, turn });
        ScenPair {
            line: entry.line,
            bucket: entry.bucket,
            cop: [entry.goal.0, entry.goal.1],
            thief: [entry.start.0, entry.start.1],
            result: game.verdict(solution.outcome(state)).as_str(),
            dte: solution.dte(state).map(|d| d.plies()),
        }
    };
    scenario.entries.iter().zip(cells).map(pair).collect()
}
