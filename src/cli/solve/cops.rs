//! The several-cops game of `solve` (`--cops K`, `--cop-speed`,
//! `--thief-speed`, `--graph`): its refusals before any work and what the
//! local solve asks of it ([`Play`]); the game itself, its arena, starts
//! and report are `cli/several.rs`'s, shared with `solve --processes`.

use anyhow::Result;
use retrograde::{CopsGame, Engine, Grid, Inconsistency, Solution};

use super::{Play, Targets};
use crate::cli::common::EngineConfig;
use crate::cli::failure::Failure;
use crate::cli::output::{Found, SolveReport};
use crate::cli::several::{refuse_lazy, SeveralCops};
use crate::cli::solving::{check_outputs, SolveArgs};

/// The refusals of the several-cops game, the outputs checked, then the
/// game built with its start.
pub(super) fn setup(
    args: &SolveArgs,
    config: &EngineConfig,
) -> Result<(SeveralCops, Targets), Failure> {
    refuse_lazy(args, args.kcops.k())?;
    let targets = check_outputs(args)?;
    let play = SeveralCops::build(args, &config.limits(), config.engine == Engine::Bitboard)?;
    Ok((play, targets))
}

impl Play for SeveralCops {
    fn build(&mut self, _args: &SolveArgs, _solving: bool) -> Result<()> {
        Ok(())
    }

    fn game(&self) -> &CopsGame {
        &self.game
    }

    fn report(
        &self,
        args: &SolveArgs,
        solution: &Solution,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let mut report = SeveralCops::report(self, args, found, seconds);
        report.placements = self.summary(args, solution);
        report
    }

    fn dump_columns(&self) -> (Vec<String>, Option<&Grid>) {
        let cops = (1..=self.game.cops()).map(|i| format!("cop{i}")).collect();
        (cops, self.arena().grid())
    }

    fn inconsistent(&self, bad: &Inconsistency) -> String {
        let retrograde::Position { cops, thief, turn } = self.game.position(bad.state);
        format!(
            "state {} (cops {:?}, thief {}, {turn:?} to move) is stored as {:?} but its moves give {:?}",
            bad.state,
            cops.iter().map(|&c| self.show(c).to_string()).collect::<Vec<_>>(),
            self.show(thief),
            bad.found,
            bad.expected
        )
    }
}
