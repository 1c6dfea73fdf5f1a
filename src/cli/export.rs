//! Tabular exports shared by `batch` and `bench`: CSV written and read by
//! the `csv` crate (RFC 4180 quoting, quoted fields may hold commas, quotes
//! and line breaks), JSON by serde.

use std::io::Write;

/// One CSV record (header or row) with its line end.
pub(crate) fn csv_record<S: AsRef<[u8]>>(fields: impl IntoIterator<Item = S>) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer
        .write_record(fields)
        .expect("writing to memory cannot fail");
    let bytes = writer.into_inner().expect("writing to memory cannot fail");
    String::from_utf8(bytes).expect("fields are UTF-8")
}

/// Writes a header and rows of fields as CSV.
pub(crate) fn write_csv<R, S>(
    out: &mut impl Write,
    header: &[&str],
    rows: impl IntoIterator<Item = R>,
) -> std::io::Result<()>
where
    R: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    out.write_all(csv_record(header).as_bytes())?;
    for row in rows {
        out.write_all(csv_record(row).as_bytes())?;
    }
    Ok(())
}

/// An optional value as a CSV field: empty when absent.
pub(crate) fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_quote_what_needs_it_and_read_back() {
        let line = csv_record(["a,b", "say \"hi\"", "", "plain", "two\nlines"]);
        assert_eq!(line, "\"a,b\",\"say \"\"hi\"\"\",,plain,\"two\nlines\"\n");
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        let fields: Vec<&str> = record.iter().collect();
        assert_eq!(fields, ["a,b", "say \"hi\"", "", "plain", "two\nlines"]);
    }
}
