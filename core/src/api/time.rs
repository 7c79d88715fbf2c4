//! `metav1.Time`: RFC 3339 timestamps with second precision, zero time written as `null`.
//!
//! Mirrors `k8s.io/apimachinery/pkg/apis/meta/v1/time.go`: `UnmarshalJSON` accepts `null`
//! (the zero time) or an RFC 3339 string (fractional seconds accepted and dropped);
//! `MarshalJSON` writes the zero time as `null` and any other time in UTC as
//! `2006-01-02T15:04:05Z`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Seconds since the Unix epoch; Go's zero time (0001-01-01T00:00:00Z) is [`Time::ZERO`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub i64);

impl Time {
    /// Go's zero `time.Time`, 0001-01-01T00:00:00Z.
    pub const ZERO: Time = Time(-62_135_596_800);

    /// Whether this is Go's zero time (serialized as `null`).
    pub fn is_zero(&self) -> bool {
        *self == Time::ZERO
    }

    /// Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, s)` does.
    pub fn parse_rfc3339(s: &str) -> Option<Time> {
        let b = s.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = b.get(r)?;
            if part.iter().all(u8::is_ascii_digit) { std::str::from_utf8(part).ok()?.parse().ok() } else { None }
        };
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        if hour > 23 || min > 59 || sec > 59 {
            return None;
        }
        let mut i = 19;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let offset = match b.get(i)? {
            b'Z' if i + 1 == b.len() => 0,
            c @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
                let h = num(i + 1..i + 3)?;
                let m = num(i + 4..i + 6)?;
                if h > 23 || m > 59 {
                    return None;
                }
                let o = h * 3600 + m * 60;
                if *c == b'-' { -o } else { o }
            }
            _ => return None,
        };
        let days = days_from_civil(year, month, day);
        Some(Time(days * 86_400 + hour * 3600 + min * 60 + sec - offset))
    }

    /// `time.Time.String()` of the time in UTC (`2006-01-02 15:04:05 +0000 UTC`), which a
    /// `metav1.Time` inherits: how kube-apiserver 1.33 prints one in an error (it holds
    /// decoded times in its local zone, UTC in a cluster).
    pub fn go_string(&self) -> String {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} +0000 UTC", secs / 3600, (secs % 3600) / 60, secs % 60)
    }

    /// `2006-01-02T15:04:05Z` in UTC.
    pub fn to_rfc3339(&self) -> String {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, (secs % 3600) / 60, secs % 60)
    }
}

impl Default for Time {
    fn default() -> Self {
        Time::ZERO
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.is_zero() { s.serialize_none() } else { s.serialize_str(&self.to_rfc3339()) }
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw: Option<String> = Option::deserialize(d)?;
        match raw {
            None => Ok(Time::ZERO),
            Some(s) if s.is_empty() => Ok(Time::ZERO),
            Some(s) => Time::parse_rfc3339(&s).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "parsing time {} as \"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time",
                    crate::go::quote(&s)
                ))
            }),
        }
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_normalizes() {
        let t = Time::parse_rfc3339("2024-02-29T12:34:56Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2024-02-29T12:34:56Z");
        let t = Time::parse_rfc3339("2024-01-01T01:00:00.123+02:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2023-12-31T23:00:00Z");
        assert_eq!(Time::parse_rfc3339("0001-01-01T00:00:00Z"), Some(Time::ZERO));
        assert_eq!(Time(0).to_rfc3339(), "1970-01-01T00:00:00Z");
        assert!(Time::parse_rfc3339("2024-02-30T00:00:00Z").is_none());
        assert!(Time::parse_rfc3339("yesterday").is_none());
    }
}
