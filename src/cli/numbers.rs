//! Number notations shared by the flags: counts of states written as
//! `50000000`, `5e7`, `2.5e9`, `50M` or `2G`.

/// Parses a count (of states, heap sizes, ...): an integer, optionally in
/// scientific notation (`1e8`, `2.5e9`) or with a decimal suffix `K`, `M`,
/// `G`, `T` (10^3, 10^6, 10^9, 10^12: counts, unlike byte sizes, are
/// decimal); `_` separators are allowed. The value must be a whole number.
pub(crate) fn parse_count(text: &str) -> Result<u64, String> {
    let bad = || {
        format!("expected a count such as 50000000, 5e7 or 50M (a whole number), found `{text}`")
    };
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    let (number, exponent) = match cleaned.chars().last() {
        Some(c @ ('k' | 'K' | 'm' | 'M' | 'g' | 'G' | 't' | 'T')) => (
            &cleaned[..cleaned.len() - 1],
            match c.to_ascii_uppercase() {
                'K' => 3,
                'M' => 6,
                'G' => 9,
                _ => 12,
            },
        ),
        _ => (cleaned.as_str(), 0),
    };
    let (mantissa, exponent) = match number.split_once(['e', 'E']) {
        Some((m, e)) if exponent == 0 => (m, e.parse::<i32>().map_err(|_| bad())?),
        Some(_) => return Err(bad()),
        None => (number, exponent),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .chars()
            .chain(fraction.chars())
            .all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    // The digits as an integer times 10^(exponent - fraction digits),
    // exactly: a count that is not whole is refused, not rounded.
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    let digits = digits.trim_start_matches('0');
    let mut value: u128 = if digits.is_empty() {
        0
    } else if digits.len() > 30 {
        return Err(format!("{}: too large", bad()));
    } else {
        digits.parse().map_err(|_| bad())?
    };
    let mut shift = exponent - fraction.len() as i32;
    while shift > 0 {
        value = value
            .checked_mul(10)
            .filter(|&v| v <= u128::from(u64::MAX))
            .ok_or_else(|| format!("`{text}` is larger than {}", u64::MAX))?;
        shift -= 1;
    }
    while shift < 0 {
        if !value.is_multiple_of(10) {
            return Err(bad());
        }
        value /= 10;
        shift += 1;
    }
    u64::try_from(value).map_err(|_| format!("`{text}` is larger than {}", u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::parse_count;

    #[test]
    fn counts() {
        for (text, value) in [
            ("50000000", 50_000_000),
            ("5e7", 50_000_000),
            ("1e8", 100_000_000),
            ("1E8", 100_000_000),
            ("2.5e9", 2_500_000_000),
            ("50M", 50_000_000),
            ("2G", 2_000_000_000),
            ("1.5k", 1500),
            ("3T", 3_000_000_000_000),
            ("1_000", 1000),
            ("0", 0),
            ("0e5", 0),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(parse_count(text), Ok(value), "{text}");
        }
        for text in [
            "",
            "e5",
            "1.5",
            "1e-1",
            "abc",
            "1x",
            "2Gb",
            "-1",
            "1e20",
            "1e5M",
            ".",
            "1..2",
            "18446744073709551616",
        ] {
            assert!(parse_count(text).is_err(), "{text}");
        }
    }
}
