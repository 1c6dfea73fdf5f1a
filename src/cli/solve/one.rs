//! The one-cop game of `solve` (one cop at speed 1 on a map): the map and
//! a `--scen` file read and checked before any work (as batch does: its
//! sizes and every entry's cells), the game built from
//! the map, and what only it reports: the `--scen` pairs, the whole-map
//! summary, a state as `(row, col)` cells.

use anyhow::Result;
use retrograde::{
    load_map, load_scen, Board, Cops, CopsGame, Grid, Inconsistency, Map, Outcome, Position,
    Scenario, ScenarioEntry, Solution,
};

use super::{Play, Targets};
use crate::cli::failure::Failure;
use crate::cli::output::{Found, ScenPair, SolveReport, SummaryJson};
use crate::cli::solving::{self, check_outputs, not_a_map, SolveArgs};

/// The one-cop game: its map, its scenario, and the game once built.
pub(super) struct One {
    map: Map,
    scenario: Option<Checked>,
    game: Option<CopsGame>,
}

/// A scenario checked against the map: every entry's `(thief, cop)` cells.
type Checked = (Scenario, Vec<(u32, u32)>);

/// Reads the map (and the scenario, checked against it: its sizes and
/// every entry's cells, as batch does) and checks the outputs.
pub(super) fn setup(args: &SolveArgs) -> Result<(One, Targets), Failure> {
    let scenario = args.scen.as_deref().map(load_scen).transpose()?;
    let map = load_map(&args.map).map_err(|e| not_a_map(&args.map, e))?;
    let scenario = match scenario {
        Some(scenario) => {
            let board = args.game.board(&map)?;
            scenario.check_size(&board.grid)?;
            let cells = scenario
                .entries
                .iter()
                .map(|entry| scenario.cells(entry, &board.grid));
            let cells = cells.collect::<retrograde::Result<_>>()?;
            Some((scenario, cells))
        }
        None => None,
    };
    // The dump's path is checked before the solve, not after it.
    let targets = check_outputs(args)?;
    let one = One {
        map,
        scenario,
        game: None,
    };
    Ok((one, targets))
}

impl One {
    /// Every scenario pair's result, from the solved table.
    fn pairs(&self, (scenario, cells): &Checked, solution: &Solution) -> Vec<ScenPair> {
        let game = self.game();
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
}

impl One {
    /// The board of [`Play::game`] (one cop at speed 1 on a map).
    fn board(&self) -> &Board {
        self.game()
            .board()
            .expect("one cop at speed 1 on a map has its board")
    }
}

impl Play for One {
    fn build(&mut self, args: &SolveArgs, solving: bool) -> Result<()> {
        let game = solving::one_cop_game(&self.map, &args.game)?;
        if solving {
            solving::warn_no_exits(&args.map, &game, &args.game);
        }
        self.game = Some(game);
        Ok(())
    }

    fn game(&self) -> &CopsGame {
        self.game
            .as_ref()
            .expect("the game is built before it is used")
    }

    fn report(
        &self,
        args: &SolveArgs,
        solution: &Solution,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let game = self.game();
        let format = self.map.format.as_str();
        let mut report = SolveReport::new(&args.map, format, game, found, seconds);
        if let Some(scenario) = &self.scenario {
            report.scenario = Some(self.pairs(scenario, solution));
        }
        if args.summary || (!args.json && !args.no_summary) {
            let summary = game.start_pairs(solution).expect("one cop on a map");
            report.summary = Some(SummaryJson::new(&summary, game.rules().thief_first));
        }
        report
    }

    fn dump_columns(&self) -> (Vec<String>, Option<&Grid>) {
        (vec!["cop".to_string()], Some(&self.board().grid))
    }

    fn inconsistent(&self, bad: &Inconsistency) -> String {
        let p = self.game().position(bad.state);
        let (cop, thief, turn) = (p.cops[0], p.thief, p.turn);
        let grid = &self.board().grid;
        let show = |(value, dte): (Outcome, Option<u32>)| match dte {
            Some(d) => format!("{value} in {d}"),
            None => value.to_string(),
        };
        format!(
            "state {} (cop {:?}, thief {:?}, {:?} to move) is stored as {} but its moves give {}",
            bad.state,
            grid.coords(cop),
            grid.coords(thief),
            turn,
            show(bad.found),
            show(bad.expected)
        )
    }
}
