//! `metav1.Time`: RFC 3339 timestamps with second precision, zero time written as `null`.
//!
//! Mirrors `k8s.io/apimachinery/pkg/apis/meta/v1/time.go`: `UnmarshalJSON` accepts `null`
//! (the zero time) or an RFC 3339 string (fractional seconds accepted and dropped);
//! `MarshalJSON` writes the zero time as `null` and any other time in UTC as
//! `2006-01-02T15:04:05Z`.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::go::time_quote;

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
        Time::parse_go(s).ok()
    }

    /// Go's `time.Parse(time.RFC3339, s)`, with its error message when `s` does not parse
    /// (`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday"
    /// as "2006"`). Mirrors the general `time.parse` for that layout (its fast path accepts
    /// a subset of it): one-digit hours, fractional seconds after `.` or `,`, and zone
    /// offsets up to 24:60 are accepted; the fraction is dropped.
    pub fn parse_go(s: &str) -> Result<Time, TimeParseError> {
        parse_rfc3339_layout(s.as_bytes()).map_err(|e| TimeParseError(e.render(s.as_bytes())))
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

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// The days of month `m` (1 to 12) of the proleptic Gregorian year `y` (Go's `time`
/// calendar). The one implementation: hpa-yaml's `!!timestamp` check uses it too.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm; Go's
/// `time.Date` computes the same). The one implementation: hpa-webhook's certificate dates use
/// it too.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
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

// === time.parse for the RFC 3339 layout ===

/// Go's `*time.ParseError` for the RFC 3339 layout, rendered as its `Error()` (`parsing time
/// "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`): the
/// words kube-apiserver puts in a decode error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TimeParseError(String);

/// The layout Go names in its errors.
const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// A `time.ParseError`: the layout and value elements that did not match, or a message.
struct ParseError<'a> {
    layout_elem: &'static str,
    value_elem: &'a [u8],
    message: Option<String>,
}

impl ParseError<'_> {
    /// `(*ParseError).Error`.
    fn render(&self, value: &[u8]) -> String {
        match &self.message {
            Some(m) => format!("parsing time {}{m}", time_quote(value)),
            None => format!(
                "parsing time {} as {}: cannot parse {} as {}",
                time_quote(value),
                time_quote(LAYOUT.as_bytes()),
                time_quote(self.value_elem),
                time_quote(self.layout_elem.as_bytes())
            ),
        }
    }
}

/// `getnum`: one or two digits (exactly two when `fixed`).
fn getnum(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let digit = |i: usize| s.get(i).filter(|b| b.is_ascii_digit()).map(|b| i64::from(b - b'0'));
    let first = digit(0)?;
    match digit(1) {
        Some(second) => Some((first * 10 + second, &s[2..])),
        None if fixed => None,
        None => Some((first, &s[1..])),
    }
}

/// `time.parse(RFC3339, value, UTC, Local)`, element by element.
fn parse_rfc3339_layout(value: &[u8]) -> Result<Time, ParseError<'_>> {
    #[derive(Clone, Copy)]
    enum Elem {
        Year,
        Month,
        Day,
        Hour,
        Minute,
        Second,
        Zone,
    }
    const STEPS: [(&str, Elem, &str); 7] = [
        ("", Elem::Year, "2006"),
        ("-", Elem::Month, "01"),
        ("-", Elem::Day, "02"),
        ("T", Elem::Hour, "15"),
        (":", Elem::Minute, "04"),
        (":", Elem::Second, "05"),
        ("", Elem::Zone, "Z07:00"),
    ];
    let cannot = |layout_elem: &'static str, value_elem| ParseError { layout_elem, value_elem, message: None };
    let out_of_range =
        |what: &str| ParseError { layout_elem: "", value_elem: &[], message: Some(format!(": {what} out of range")) };
    let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut offset) = (0, 0, 0, 0, 0, 0, 0);
    let mut rest = value;
    for (prefix, elem, layout_elem) in STEPS {
        match rest.strip_prefix(prefix.as_bytes()) {
            Some(r) => rest = r,
            None => return Err(cannot(prefix, rest)),
        }
        let hold = rest;
        let parsed = match elem {
            Elem::Year => {
                if rest.len() < 4 || !rest[0].is_ascii_digit() || !rest[..4].iter().all(u8::is_ascii_digit) {
                    None
                } else {
                    year = rest[..4].iter().fold(0, |a, b| a * 10 + i64::from(b - b'0'));
                    rest = &rest[4..];
                    Some(())
                }
            }
            Elem::Month => getnum(rest, true).map(|(v, r)| {
                month = v;
                rest = r;
            }),
            Elem::Day => getnum(rest, true).map(|(v, r)| {
                day = v;
                rest = r;
            }),
            Elem::Hour => getnum(rest, false).map(|(v, r)| {
                hour = v;
                rest = r;
            }),
            Elem::Minute => getnum(rest, true).map(|(v, r)| {
                minute = v;
                rest = r;
            }),
            Elem::Second => getnum(rest, true).map(|(v, r)| {
                second = v;
                rest = r;
                // A fraction the layout does not have is read and dropped.
                if rest.len() >= 2 && matches!(rest[0], b'.' | b',') && rest[1].is_ascii_digit() {
                    let n = 1 + rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    rest = &rest[n..];
                }
            }),
            Elem::Zone => {
                if rest.first() == Some(&b'Z') {
                    rest = &rest[1..];
                    Some(())
                } else if rest.len() < 6 || rest[3] != b':' {
                    None
                } else {
                    let sign = rest[0];
                    let (hours, minutes) = (getnum(&rest[1..3], true), getnum(&rest[4..6], true));
                    match (hours, minutes) {
                        (Some((h, _)), Some((m, _))) if sign == b'+' || sign == b'-' => {
                            if h > 24 {
                                return Err(out_of_range("time zone offset hour"));
                            }
                            if m > 60 {
                                return Err(out_of_range("time zone offset minute"));
                            }
                            offset = (h * 60 + m) * 60 * if sign == b'-' { -1 } else { 1 };
                            rest = &rest[6..];
                            Some(())
                        }
                        _ => None,
                    }
                }
            }
        };
        if parsed.is_none() {
            return Err(cannot(layout_elem, hold));
        }
        let range = match elem {
            Elem::Month if !(1..=12).contains(&month) => Some("month"),
            Elem::Hour if !(0..24).contains(&hour) => Some("hour"),
            Elem::Minute if !(0..60).contains(&minute) => Some("minute"),
            Elem::Second if !(0..60).contains(&second) => Some("second"),
            _ => None,
        };
        if let Some(what) = range {
            return Err(out_of_range(what));
        }
    }
    if !rest.is_empty() {
        return Err(ParseError {
            layout_elem: "",
            value_elem: &[],
            message: Some(format!(": extra text: {}", time_quote(rest))),
        });
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(out_of_range("day"));
    }
    let days = days_from_civil(year, month, day);
    Ok(Time(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
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

    #[test]
    fn errors_are_go_time_parse_errors() {
        let layout = "\"2006-01-02T15:04:05Z07:00\"";
        for (value, message) in [
            ("yesterday", format!("parsing time \"yesterday\" as {layout}: cannot parse \"yesterday\" as \"2006\"")),
            ("", format!("parsing time \"\" as {layout}: cannot parse \"\" as \"2006\"")),
            ("2024/01/01", format!("parsing time \"2024/01/01\" as {layout}: cannot parse \"/01/01\" as \"-\"")),
            ("2024-13-01T00:00:00Z", "parsing time \"2024-13-01T00:00:00Z\": month out of range".into()),
            ("2024-02-30T00:00:00Z", "parsing time \"2024-02-30T00:00:00Z\": day out of range".into()),
            ("2024-01-01T25:00:00Z", "parsing time \"2024-01-01T25:00:00Z\": hour out of range".into()),
            (
                "2024-01-01T00:00:00",
                format!("parsing time \"2024-01-01T00:00:00\" as {layout}: cannot parse \"\" as \"Z07:00\""),
            ),
            ("2024-01-01T00:00:00Zjunk", "parsing time \"2024-01-01T00:00:00Zjunk\": extra text: \"junk\"".into()),
            (
                "2024-01-01T00:00:00+25:00",
                "parsing time \"2024-01-01T00:00:00+25:00\": time zone offset hour out of range".into(),
            ),
            (
                "2024-01-01 00:00:00Z",
                format!("parsing time \"2024-01-01 00:00:00Z\" as {layout}: cannot parse \" 00:00:00Z\" as \"T\""),
            ),
            ("é", format!("parsing time \"\\xc3\\xa9\" as {layout}: cannot parse \"\\xc3\\xa9\" as \"2006\"")),
        ] {
            assert_eq!(Time::parse_go(value).unwrap_err().to_string(), message, "{value}");
        }
        // What the general parser accepts beyond the fast path's shape.
        assert_eq!(Time::parse_go("2024-01-01T1:02:03Z").unwrap().to_rfc3339(), "2024-01-01T01:02:03Z");
        assert_eq!(Time::parse_go("2024-01-01T00:00:00,5Z").unwrap().to_rfc3339(), "2024-01-01T00:00:00Z");
    }
}
