//! Query strings: parameters percent-decoded and checked against what an
//! endpoint takes, and the strict forms of counts, cells and turns.

use retrograde::{Coord, Turn};

use super::{bad, ApiError};

pub(super) fn parse_turn(text: &str) -> Result<Turn, ApiError> {
    match text {
        "cop" => Ok(Turn::Cop),
        "thief" => Ok(Turn::Thief),
        _ => Err(bad(format!("`turn` must be cop or thief, found `{text}`"))),
    }
}

/// A decimal count of at most 9 digits (no sign, no spaces).
pub(super) fn parse_count(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Strict `ROW,COL`.
pub(super) fn parse_coord(text: &str) -> Option<Coord> {
    let (r, c) = text.split_once(',')?;
    Some((parse_count(r)?, parse_count(c)?))
}

/// Parameters a query string may repeat: `cop`, once per cop of a
/// several-cops table (a one-cop table refuses a second).
const REPEATABLE: &[&str] = &["cop"];

/// A query string's parameters, percent-decoded, each one the endpoint
/// takes, each at most once but for [`REPEATABLE`] ones.
pub(super) struct Params<'a> {
    values: Vec<(&'a str, String)>,
}

impl<'a> Params<'a> {
    pub(super) fn parse(query: &str, allowed: &'a [&'a str]) -> Result<Params<'a>, ApiError> {
        let mut values: Vec<(&'a str, String)> = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = percent_decode(name)?;
            let Some(&known) = allowed.iter().find(|&&a| a == name) else {
                return Err(bad(if allowed.is_empty() {
                    format!("unknown parameter `{name}`: this endpoint takes none")
                } else {
                    format!(
                        "unknown parameter `{name}`: this endpoint takes {}",
                        allowed.join(", ")
                    )
                }));
            };
            if !REPEATABLE.contains(&known) && values.iter().any(|(n, _)| *n == known) {
                return Err(bad(format!("parameter `{known}` given twice")));
            }
            values.push((known, percent_decode(value)?));
        }
        Ok(Params { values })
    }

    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in the order given.
    pub(super) fn all(&self, name: &str) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    pub(super) fn required(&self, name: &str, expected: &str) -> Result<&str, ApiError> {
        self.get(name)
            .ok_or_else(|| bad(format!("missing parameter `{name}` ({expected})")))
    }
}

/// Decodes `%XX` escapes and `+` (a space), as browsers encode forms.
fn percent_decode(text: &str) -> Result<String, ApiError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| bad(format!("bad %-escape in `{text}`")))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| bad(format!("`{text}` is not UTF-8 once decoded")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_strict() {
        assert_eq!(parse_coord("3,14"), Some((3, 14)));
        assert_eq!(parse_coord("0,0"), Some((0, 0)));
        for bad in [
            "",
            ",",
            "3",
            "3,",
            ",4",
            " 3,4",
            "3 ,4",
            "-1,2",
            "+1,2",
            "1,2,3",
            "1;2",
            "9999999999,1",
            "1.5,2",
            "٣,4",
        ] {
            assert_eq!(parse_coord(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn parameters_are_known_single_and_decoded() {
        let allowed = &["table", "cop"];
        let p = Params::parse("table=a%20b&cop=1%2C2&", allowed).unwrap();
        assert_eq!(p.get("table"), Some("a b"));
        assert_eq!(p.get("cop"), Some("1,2"));
        assert!(Params::parse("table=a&table=b", allowed).is_err());
        let cops = Params::parse("cop=1,2&table=a&cop=3%2C4", allowed).unwrap();
        assert_eq!(cops.all("cop"), ["1,2", "3,4"]);
        assert_eq!(cops.all("table"), ["a"]);
        assert!(Params::parse("tabl=a", allowed).is_err());
        assert!(Params::parse("table=%zz", allowed).is_err());
        assert!(Params::parse("table=%ff", allowed).is_err());
        assert!(Params::parse("table=%4", allowed).is_err());
        assert_eq!(
            Params::parse("table=a+b", allowed).unwrap().get("table"),
            Some("a b")
        );
        assert!(Params::parse("x", &[]).is_err());
        assert!(Params::parse("", &[]).is_ok());
    }

    #[test]
    fn counts_are_bounded() {
        assert_eq!(parse_count("123456789"), Some(123_456_789));
        assert_eq!(parse_count("1234567890"), None);
        assert_eq!(parse_count(""), None);
    }
}
