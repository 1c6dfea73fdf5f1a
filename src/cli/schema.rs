//! The JSON vocabulary shared by every command's `--json` output and JSON
//! exports: each object starts with `"schema": 1`; the input file is
//! `map`; values for the player to move are `win`, `loss`, `draw`; verdicts
//! from the cop's side `cop-wins`, `thief-escapes`, `draw`; cells are
//! `[row, column]`; [`print`] writes a report as JSON or text. A change
//! that renames or removes a key, or changes a value's meaning, raises
//! [`SCHEMA`].

use serde::Serialize;

/// Version of the JSON vocabulary.
pub(crate) const SCHEMA: u32 = 1;

/// An object with `"schema"` first, then `body`'s own keys.
#[derive(Serialize)]
pub(crate) struct Versioned<'a, T: Serialize> {
    schema: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// Wraps `body` (which must serialize as an object) with the schema key.
pub(crate) fn versioned<T: Serialize>(body: &T) -> Versioned<'_, T> {
    Versioned {
        schema: SCHEMA,
        body,
    }
}

/// Prints `report` to standard output: with `json` one versioned object
/// ([`versioned`]) and a newline, else what `text` writes.
pub(crate) fn print<T: Serialize>(
    json: bool,
    report: &T,
    text: impl FnOnce(&mut std::io::StdoutLock<'static>, &T) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    print_to(&mut std::io::stdout().lock(), json, report, text)
}

/// [`print`], or to standard error when `stdout_taken`: standard output
/// then carries a command's data (`--dump -`, `--save -`), which must
/// stand alone ([`OutputTarget::stdout_taken`](super::output::OutputTarget::stdout_taken)).
pub(crate) fn print_beside<T: Serialize>(
    stdout_taken: bool,
    json: bool,
    report: &T,
    text: impl FnOnce(&mut dyn std::io::Write, &T) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if stdout_taken {
        print_to(&mut std::io::stderr().lock(), json, report, |out, r| {
            text(out, r)
        })
    } else {
        print(json, report, |out, r| text(out, r))
    }
}

/// [`print`] to `out` (standard error, when standard output carries a
/// command's data).
pub(crate) fn print_to<W: std::io::Write, T: Serialize>(
    out: &mut W,
    json: bool,
    report: &T,
    text: impl FnOnce(&mut W, &T) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, &versioned(report))?;
        writeln!(out)?;
    } else {
        text(out, report)?;
    }
    Ok(())
}
