//! `batch --plan`: what each map's solve would cost, as `solve --plan`
//! says it (with `--scen`, as `solve --scen --plan`: with the distance
//! table; with `--cops K`, as `solve --cops K --plan`), without solving or
//! writing `--out`.

use std::io::Write;
use std::path::Path;

use super::discover::discover;
use super::BatchArgs;
use crate::cli::common::EngineConfig;
use crate::cli::failure::Failure;

/// `batch --plan`: every map found, planned as `solve --plan` plans it,
/// one line (or JSON object) each; nothing is solved or written. As for
/// `solve --plan`, exit status 2 when a map does not fit, and also when one
/// cannot be read or planned; every map is still planned (a bad file does
/// not stop the batch), each bad one named on stderr too.
pub(super) fn plan_only(args: &BatchArgs, config: &EngineConfig) -> Result<i32, Failure> {
    let found = discover(&args.paths);
    let several = super::several::active(args);
    if !several {
        retrograde::SolveOptions::new(config.engine)
            .with_dte_table(args.dte_table)
            .check_engine()?;
    }
    // As the batch solves them (and `solve --scen --plan` plans them): a
    // scenario's pairs read their distances from the distance table.
    let dte_table = args.dte_table || (!args.scen.is_empty() && config.engine.keeps_distances());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_fit = true;
    for (path, error) in &found.broken {
        all_fit = false;
        plan_error(&mut out, args.json, path, "cannot be read", error.clone())?;
    }
    for path in &found.maps {
        let planned = if several {
            super::several::plan_map(args, config, path)
        } else {
            retrograde::load_map(path)
                .map_err(anyhow::Error::from)
                .and_then(|map| {
                    crate::cli::solving::plan_map(path, &map, &args.game, config, dte_table)
                })
        };
        match planned {
            Ok(plan) => {
                if !plan.fits {
                    all_fit = false;
                }
                if args.json {
                    serde_json::to_writer(&mut out, &crate::cli::schema::versioned(&plan))?;
                    writeln!(out)?;
                } else {
                    crate::cli::output::print_plan(&mut out, &plan)?;
                }
            }
            Err(e) => {
                all_fit = false;
                plan_error(
                    &mut out,
                    args.json,
                    path,
                    "cannot be planned",
                    format!("{e:#}"),
                )?;
            }
        }
    }
    Ok(if all_fit {
        0
    } else {
        crate::cli::failure::EXIT_INPUT
    })
}

/// A map `batch --plan` cannot plan (`what`: it cannot be read, or
/// planned): a JSON object of its own under `json` (a text line would
/// break the JSON Lines), else a text line, and the error on stderr as a
/// solving batch reports it.
fn plan_error(
    out: &mut impl Write,
    json: bool,
    path: &Path,
    what: &str,
    error: String,
) -> std::io::Result<()> {
    say!("error: {error}");
    if json {
        let row = PlanError {
            map: path.display().to_string(),
            fits: false,
            error,
        };
        serde_json::to_writer(&mut *out, &crate::cli::schema::versioned(&row))?;
        writeln!(out)
    } else {
        writeln!(out, "plan: {}: {what}: {error}", path.display())
    }
}

/// `batch --plan --json`'s object for a map that cannot be read or
/// planned, in place of its plan.
#[derive(serde::Serialize)]
struct PlanError {
    /// The map file as found.
    map: String,
    /// Always false: what cannot be read cannot be solved.
    fits: bool,
    /// Why, with file:line:column where the map is malformed.
    error: String,
}
