//! `solve --cops K --checkpoint DIR` and `--resume DIR`: the directory
//! sink and the checkpoint to resume from, on the one-cop engine's timer
//! and signal rules (`cli/checkpoint.rs`), with the several-cops game's
//! fields in the fingerprint; refused with a counter engine.

use retrograde::Checkpoint;

use super::super::checkpoint::{self, DirSink};
use super::super::common::UsageError;
use super::super::solving::SolveArgs;
use super::super::Failure;

/// The checkpoint sink and the checkpoint to resume from that `--checkpoint`
/// and `--resume` ask for; the fingerprint is the one-cop solve's plus the
/// cops, speeds and kind of input.
pub(super) fn open(
    args: &SolveArgs,
    dte_table: bool,
) -> Result<(Option<DirSink>, Option<Checkpoint>), Failure> {
    let Some(dir) = args.checkpoint.as_ref().or(args.resume.as_ref()) else {
        return Ok((None, None));
    };
    let mut fingerprint = checkpoint::fingerprint(&args.map, &args.game, "bitboard", dte_table)?;
    let kcops = &args.kcops;
    fingerprint.extend([
        ("cops".to_string(), kcops.k().to_string()),
        (
            "speeds".to_string(),
            format!(
                "cop {}, thief {}",
                kcops.speeds.cop_speed, kcops.speeds.thief_speed
            ),
        ),
        (
            "input".to_string(),
            if kcops.graph { "graph" } else { "map" }.to_string(),
        ),
        (
            "first mover".to_string(),
            if args.game.thief_first {
                "thief"
            } else {
                "cops"
            }
            .to_string(),
        ),
    ]);
    let resume = match &args.resume {
        None => None,
        Some(from) => {
            let ck = Checkpoint::open(&checkpoint::resume_file_in(from)?)?;
            ck.check_kernel(true)?;
            checkpoint::check_fingerprint(from, ck.fingerprint(), &fingerprint)?;
            Some(ck)
        }
    };
    let sink = DirSink::new(dir, args.checkpoint_every, fingerprint)?;
    Ok((Some(sink), resume))
}

/// `--checkpoint` and `--resume` with a counter engine: refused, as the
/// one-cop path refuses them for engines that keep none.
pub(super) fn refuse(args: &SolveArgs, engine: &str) -> Result<(), UsageError> {
    if args.checkpoint.is_some() || args.resume.is_some() {
        return Err(UsageError(format!(
            "--checkpoint and --resume need --engine bitboard (the default), not {engine}"
        )));
    }
    Ok(())
}
