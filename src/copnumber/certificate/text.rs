//! A certificate as text: the header line, one record per graph
//! ([`Certificate::write`]) and the trailer (`docs/guide.md`,
//! "Certificates").

use std::io::{self, Write};

use super::{Certificate, GraphText, CERTIFICATE_HEADER};

/// `0,3,3`: cells joined by commas.
fn cells(out: &mut impl Write, cells: &[u32]) -> io::Result<()> {
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        write!(out, "{c}")?;
    }
    Ok(())
}

/// Writes the header line of a certificate file ([`CERTIFICATE_HEADER`]).
///
/// # Errors
/// What writing returns.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{CERTIFICATE_HEADER}")
}

/// Writes the last line of a certificate file: the number of records.
///
/// # Errors
/// What writing returns.
pub fn write_trailer(out: &mut impl Write, records: u64) -> io::Result<()> {
    writeln!(out, "records {records}")
}

impl Certificate {
    /// Writes this certificate as the record of graph number `number`
    /// (`graph`, `claim`, `upper` and its `m` lines, `lower` and its `c`
    /// and `t` lines, `end`; see `docs/guide.md`, "Certificates").
    ///
    /// # Errors
    /// What writing returns.
    pub fn write(&self, out: &mut impl Write, number: u64, graph: GraphText<'_>) -> io::Result<()> {
        match graph {
            GraphText::Graph6(text) => writeln!(out, "graph {number} g6 {text}")?,
            GraphText::Edges { vertices, edges } => {
                write!(out, "graph {number} edges {vertices}")?;
                for (u, v) in edges {
                    write!(out, " {u}-{v}")?;
                }
                writeln!(out)?;
            }
        }
        match (self.cop_number, &self.upper) {
            (Some(k), Some(up)) => {
                writeln!(out, "claim {k} capture {}", up.capture_rounds)?;
                out.write_all(b"upper ")?;
                cells(out, &up.placement)?;
                writeln!(out)?;
                for m in &up.moves {
                    out.write_all(b"m ")?;
                    cells(out, &m.cops)?;
                    write!(out, " {} ", m.thief)?;
                    cells(out, m.destinations())?;
                    writeln!(out, " {}", m.rank)?;
                }
            }
            _ => writeln!(out, "claim >{}", self.lower.cops)?,
        }
        writeln!(out, "lower {}", self.lower.cops)?;
        for (cops, t) in &self.lower.cops_to_move {
            out.write_all(b"c ")?;
            cells(out, cops)?;
            writeln!(out, " {t}")?;
        }
        for s in &self.lower.thief_to_move {
            out.write_all(b"t ")?;
            cells(out, &s.cops)?;
            writeln!(out, " {} {}", s.thief, s.answer)?;
        }
        writeln!(out, "end")
    }
}
