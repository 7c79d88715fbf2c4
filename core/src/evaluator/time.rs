//! Instants on the controller's clock.
//!
//! The controller compares `time.Time` values with Go's strict `Before` / `After` and builds
//! cutoffs with `time.Time.Add`. A [`Timestamp`] is an integer count of milliseconds since the
//! Unix epoch, so those comparisons are exact, sub-second instants are representable and Go's
//! zero time (0001-01-01T00:00:00Z, what Kubernetes leaves in unset time fields) is simply
//! [`Timestamp::ZERO`]: earlier than any real instant, equal to another zero time, and still
//! earlier than any real instant after a few minutes are added to it.

use std::fmt;
use std::time::Duration;

use crate::api::Time;

/// An instant, in milliseconds since 1970-01-01T00:00:00Z.
///
/// Callers choose the epoch of their own simulations freely (a timeline starting at
/// `Timestamp::from_secs(0)` is fine); only Go's zero time has a fixed value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// Go's zero `time.Time`, 0001-01-01T00:00:00Z (the same instant as [`Time::ZERO`]).
    pub const ZERO: Timestamp = Timestamp(Time::ZERO.0 * 1000);

    /// An instant `ms` milliseconds after the Unix epoch.
    pub const fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms)
    }

    /// An instant `secs` seconds after the Unix epoch.
    pub const fn from_secs(secs: i64) -> Timestamp {
        Timestamp(secs.saturating_mul(1000))
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// Whether this is Go's zero time.
    pub fn is_zero(self) -> bool {
        self == Timestamp::ZERO
    }

    /// `t.Add(d)`.
    pub fn plus(self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(duration_millis(d)))
    }

    /// `t.Add(d)` for Go's signed `time.Duration` of `nanos` nanoseconds, rounded up to the
    /// millisecond: for any instant `u` of whole milliseconds (every [`Timestamp`]),
    /// `u.before(t.plus_nanos_ceil(d))` is Go's `u.Before(t.Add(d))` exactly.
    pub fn plus_nanos_ceil(self, nanos: i64) -> Timestamp {
        let ms = nanos.div_euclid(1_000_000) + i64::from(nanos.rem_euclid(1_000_000) != 0);
        Timestamp(self.0.saturating_add(ms))
    }

    /// `t.Add(-d)`.
    pub fn minus(self, d: Duration) -> Timestamp {
        Timestamp(self.0.saturating_sub(duration_millis(d)))
    }

    /// `t.Add(time.Duration(secs) * time.Second)`; `secs` may be negative.
    pub fn plus_secs(self, secs: i64) -> Timestamp {
        Timestamp(self.0.saturating_add(secs.saturating_mul(1000)))
    }

    /// `t.Before(other)`: strictly earlier.
    pub fn before(self, other: Timestamp) -> bool {
        self.0 < other.0
    }

    /// `t.After(other)`: strictly later.
    pub fn after(self, other: Timestamp) -> bool {
        self.0 > other.0
    }

    /// The `metav1.Time` of this instant (whole seconds, as the API stores it).
    pub fn to_api_time(self) -> Time {
        Time(self.0.div_euclid(1000))
    }

    /// The instant of a `metav1.Time`.
    pub fn from_api_time(t: Time) -> Timestamp {
        Timestamp::from_secs(t.0)
    }
}

impl From<Time> for Timestamp {
    fn from(t: Time) -> Timestamp {
        Timestamp::from_api_time(t)
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 with milliseconds when they are not zero; `zero` for Go's zero time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("zero");
        }
        let base = self.to_api_time().to_rfc3339();
        let ms = self.0.rem_euclid(1000);
        if ms == 0 {
            f.write_str(&base)
        } else {
            // `base` ends in `Z`; put the fraction before it.
            let stem = base.trim_end_matches('Z');
            write!(f, "{stem}.{ms:03}Z")
        }
    }
}

/// A duration in whole milliseconds, saturating at `i64::MAX`.
pub(crate) fn duration_millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// `90s`, `5m`, `1h30m`, `1.5s`: the shortest reading of a duration in ms (`-15s` before).
pub fn format_ms(ms: i64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    if ms < 0 {
        return format!("-{}", format_ms(ms.checked_neg().unwrap_or(i64::MAX)));
    }
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if milli > 0 {
        let frac = format!("{milli:03}");
        out.push_str(&format!("{s}.{}s", frac.trim_end_matches('0')));
    } else if s > 0 {
        out.push_str(&format!("{s}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_time_orders_like_go() {
        let cases = [
            (Timestamp::ZERO, Timestamp::ZERO, false, false),
            (Timestamp::ZERO.plus(Duration::from_secs(300)), Timestamp::from_secs(-3600), true, false),
            (Timestamp::from_secs(0), Timestamp::ZERO, false, true),
            (Timestamp::from_millis(1), Timestamp::from_millis(2), true, false),
        ];
        for (a, b, before, after) in cases {
            assert_eq!(a.before(b), before, "{a} before {b}");
            assert_eq!(a.after(b), after, "{a} after {b}");
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(Timestamp::from_api_time(Time::ZERO), Timestamp::ZERO);
        assert_eq!(Timestamp::from_millis(-1).to_api_time(), Time(-1));
        assert_eq!(Timestamp::from_secs(15).plus_secs(-15), Timestamp::from_secs(0));
        assert_eq!(Timestamp::from_millis(1500).to_string(), "1970-01-01T00:00:01.500Z");
        assert_eq!(Timestamp::ZERO.to_string(), "zero");
    }

    /// `u.Before(t.Add(d))` for signed, sub-millisecond `d`.
    #[test]
    fn plus_nanos_ceil_keeps_before_exact() {
        let t = Timestamp::from_secs(10);
        let cases = [
            (1_500_000, 10_001, true),
            (1_500_000, 10_002, false),
            (-1_500_000, 9_998, true),
            (-1_500_000, 9_999, false),
            (-30_000_000_000, 9_999, false),
            (0, 9_999, true),
            (0, 10_000, false),
        ];
        for (nanos, u, before) in cases {
            assert_eq!(
                Timestamp::from_millis(u).before(t.plus_nanos_ceil(nanos)),
                before,
                "{u} before {t} + {nanos}ns"
            );
        }
        assert_eq!(Timestamp::from_millis(i64::MAX).plus_nanos_ceil(1), Timestamp::from_millis(i64::MAX));
    }
}
