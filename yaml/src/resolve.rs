//! What a scalar becomes, as kubectl's YAML reader decides it: go-yaml v2 (`sigs.k8s.io/yaml`'s
//! fork, `goyaml.v2`) decoding into an `interface{}`, `decoder.scalar` and `resolve`.
//!
//! - A plain scalar without a tag is resolved by its text ([`resolve_plain`]: YAML 1.1 booleans,
//!   octal, `1_000`, `.inf`); a quoted or block one is a string.
//! - A tag go-yaml resolves (`!!bool`, `!!int`, `!!float`, `!!null`, `!!timestamp`) asks the
//!   text to resolve, whatever its style (`!!int "3"` is 3), to that type (an integer does as
//!   a float); otherwise decoding fails: `cannot decode !!str `abc` as a !!int`.
//! - `!!binary` is base64, decoded; `!!str`, and any tag go-yaml does not resolve (`!foo`,
//!   the non-specific `!`, `!!merge`), leave the text a string.

use std::borrow::Cow;

use base64::Engine as _;
use saphyr_parser::{ScalarStyle, Tag};

use crate::Scalar;

/// A text its tag refuses, in go-yaml's words (`Display`, without the `yaml: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TagError {
    /// `!!binary` of a text that is not base64.
    #[error("!!binary value contains invalid base64 data")]
    Binary,
    /// `!!int abc`: the text resolves to another type (`found`, `bool`, `str`, ...) than the
    /// one the tag wants.
    #[error("cannot decode !!{found} `{value}` as a !!{wanted}")]
    Mismatch {
        /// What the text resolves to.
        found: &'static str,
        /// The text.
        value: String,
        /// The tag's type.
        wanted: &'static str,
    },
}

/// `decoder.scalar` for an `interface{}` destination: the scalar (the text of a `!!binary`
/// one decoded into `binary`, which the string then borrows), or the error of a text its tag
/// refuses.
#[inline(always)]
pub(crate) fn resolve<'v>(
    value: &'v str,
    style: ScalarStyle,
    tag: Option<&Tag>,
    binary: &'v mut String,
) -> Result<Scalar<'v>, TagError> {
    match tag {
        None if style == ScalarStyle::Plain => Ok(resolve_plain(value)),
        None => Ok(Scalar::Str(value)),
        Some(tag) => resolve_tagged(value, tag, binary),
    }
}

/// [`resolve`] for a tagged scalar (rare: out of the way of the others).
#[cold]
#[inline(never)]
fn resolve_tagged<'v>(value: &'v str, tag: &Tag, binary: &'v mut String) -> Result<Scalar<'v>, TagError> {
    match core_type(tag).as_deref().unwrap_or_default() {
        "binary" => match decode_binary(value) {
            Some(text) => {
                *binary = text;
                Ok(Scalar::Str(binary.as_str()))
            }
            None => Err(TagError::Binary),
        },
        "bool" => resolve_as(value, "bool"),
        "int" => resolve_as(value, "int"),
        "float" => resolve_as(value, "float"),
        "null" => resolve_as(value, "null"),
        "timestamp" => resolve_as(value, "timestamp"),
        _ => Ok(Scalar::Str(value)),
    }
}

/// The type `x` of a tag `!!x` or of its long form (`!<tag:yaml.org,2002:x>`); `None` for any
/// other tag (none go-yaml resolves).
fn core_type(tag: &Tag) -> Option<Cow<'_, str>> {
    if tag.handle == "!!" {
        return Some(Cow::Borrowed(tag.suffix.as_str()));
    }
    let long = format!("{}{}", tag.handle, tag.suffix);
    long.strip_prefix("tag:yaml.org,2002:").map(|core| Cow::Owned(core.to_string()))
}

/// Whether a scalar `<<` is a merge key to go-yaml v2's decoder (`isMerge`: the scalar is
/// implicit, that is plain and untagged, or tagged with the non-specific `!` whatever its style
/// (`yaml_parser_parse_node`'s `plain_implicit`), or it is tagged `!!merge`); a quoted `'<<'`
/// or a `!!str <<` is a key like any other.
pub(crate) fn is_merge_key(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    value == "<<"
        && match tag {
            None => style == ScalarStyle::Plain,
            Some(tag) => {
                let non_specific = format!("{}{}", tag.handle, tag.suffix) == "!";
                non_specific || core_type(tag).as_deref() == Some("merge")
            }
        }
}

/// `resolve` for a text tagged `!!wanted` (a tag go-yaml resolves): what the text resolves to
/// must be that type, or an integer for `!!float` (an `int64`, not a `uint64`, which the
/// conversion misses). A `!!timestamp` that reads as one stays its text (go-yaml gives an
/// `interface{}` the string).
fn resolve_as<'v>(value: &'v str, wanted: &'static str) -> Result<Scalar<'v>, TagError> {
    let resolved = resolve_plain(value);
    let found = match resolved {
        Scalar::Null => "null",
        Scalar::Bool(_) => "bool",
        Scalar::Int(_) | Scalar::UInt(_) => "int",
        Scalar::Float(_) => "float",
        // Only a `!!timestamp` scalar (or an untagged one, which stays a string) is looked at
        // as a timestamp.
        Scalar::Str(_) if wanted == "timestamp" && is_timestamp(value) => "timestamp",
        Scalar::Str(_) => "str",
    };
    match (wanted, resolved) {
        ("timestamp", _) if found == "timestamp" => Ok(Scalar::Str(value)),
        (_, resolved) if found == wanted => Ok(resolved),
        // go-yaml converts an `int64` to the float wanted.
        ("float", Scalar::Int(i)) => Ok(Scalar::Float(i as f64)),
        _ => Err(TagError::Mismatch { found, value: value.to_string(), wanted }),
    }
}

/// The bytes of a `!!binary` text as a string, or `None` when it is not base64:
/// `base64.StdEncoding.DecodeString` (padding required, line breaks skipped, trailing bits not
/// checked), its bytes then written by `json.Marshal` (each byte of no UTF-8 character becomes
/// U+FFFD).
fn decode_binary(value: &str) -> Option<String> {
    const GO_STD: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireCanonical),
    );
    let text: Cow<'_, str> =
        if value.contains(['\r', '\n']) { Cow::Owned(value.replace(['\r', '\n'], "")) } else { Cow::Borrowed(value) };
    let bytes = GO_STD.decode(text.as_bytes()).ok()?;
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n(char::REPLACEMENT_CHARACTER, chunk.invalid().len()));
    }
    Some(out)
}

/// go-yaml v2 `resolve()` for plain scalars.
#[inline]
pub fn resolve_plain(s: &str) -> Scalar<'_> {
    // Nearly every scalar is text that starts with no character a null, a boolean, a number or
    // an infinity starts with: it is a string without comparing it with each of them.
    if !matches!(
        s.as_bytes().first(),
        None | Some(b'~' | b'n' | b'N' | b'y' | b'Y' | b't' | b'T' | b'o' | b'O' | b'f' | b'F' | b'.' | b'+' | b'-')
            | Some(b'0'..=b'9')
    ) {
        return Scalar::Str(s);
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => return Scalar::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Scalar::Bool(false);
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Scalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        _ => {}
    }
    match s.as_bytes()[0] {
        // `strconv.ParseFloat` of the text as it is (no `_` dropped: it takes none here).
        b'.' => {
            if is_yaml_float(s)
                && let Ok(f) = s.parse::<f64>()
                && f.is_finite()
            {
                return Scalar::Float(f);
            }
            Scalar::Str(s)
        }
        b'0'..=b'9' | b'+' | b'-' => resolve_number(s),
        _ => Scalar::Str(s),
    }
}

/// A plain scalar that starts with a digit or a sign: an integer (`strconv.ParseInt(s, 0, 64)`,
/// then `ParseUint`), a float (`yamlStyleFloat`, in range), a `0b` binary, or else a string;
/// go-yaml drops underscores first.
fn resolve_number(s: &str) -> Scalar<'_> {
    let plain: Cow<'_, str> = if s.contains('_') { Cow::Owned(s.replace('_', "")) } else { Cow::Borrowed(s) };
    if let Some(i) = go_parse_int(&plain) {
        return Scalar::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Scalar::UInt(u);
    }
    // `strconv.ParseFloat` fails on a value out of range (`1e999`): go-yaml keeps it a string.
    if is_yaml_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
        && f.is_finite()
    {
        return Scalar::Float(f);
    }
    if let Some(bin) = plain.strip_prefix("0b") {
        if let Ok(i) = i64::from_str_radix(bin, 2) {
            return Scalar::Int(i);
        }
    } else if let Some(bin) = plain.strip_prefix("-0b")
        && let Ok(i) = i64::from_str_radix(&format!("-{bin}"), 2)
    {
        return Scalar::Int(i);
    }
    Scalar::Str(s)
}

/// `strconv.ParseInt(s, 0, 64)`: sign, then `0x`/`0o`/`0b` prefixes or a leading `0` for octal.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let mag = parse_radix_prefixed(body)?;
    if neg {
        if mag <= i64::MAX as u64 + 1 { Some((mag as i64).wrapping_neg()) } else { None }
    } else {
        i64::try_from(mag).ok()
    }
}

fn go_parse_uint(s: &str) -> Option<u64> {
    let body = s.strip_prefix('+').unwrap_or(s);
    parse_radix_prefixed(body)
}

fn parse_radix_prefixed(body: &str) -> Option<u64> {
    if body.is_empty() {
        return None;
    }
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// go-yaml v2's `parseTimestamp`: four digits and `-`, then `time.Parse` with one of
/// `2006-1-2T15:4:5.999999999Z07:00` (`T` or `t`), `2006-1-2 15:4:5.999999999` and `2006-1-2`.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut r = Reader { b, at: 5 };
    let year: u32 = s[..4].parse().unwrap_or(0);
    let Some(month) = r.number(1, 12) else { return false };
    if !r.byte(b'-') {
        return false;
    }
    let days = hpa_core::api::time::days_in_month(i64::from(year), i64::from(month));
    if r.number(1, u32::try_from(days).unwrap_or(31)).is_none() {
        return false;
    }
    if r.done() {
        return true;
    }
    let zoned = match r.peek() {
        Some(b'T' | b't') => {
            r.at += 1;
            true
        }
        // A space of the layout takes one space or more (`time.Parse`'s `skip`).
        Some(b' ') => {
            while r.peek() == Some(b' ') {
                r.at += 1;
            }
            false
        }
        _ => return false,
    };
    let time = r.number(0, 23).is_some()
        && r.byte(b':')
        && r.number(0, 59).is_some()
        && r.byte(b':')
        && r.number(0, 59).is_some();
    if !time {
        return false;
    }
    // Optional fractional seconds: `.` or `,` then digits.
    if matches!(r.peek(), Some(b'.' | b',')) && r.b.get(r.at + 1).is_some_and(u8::is_ascii_digit) {
        r.at += 1;
        while r.peek().is_some_and(|c| c.is_ascii_digit()) {
            r.at += 1;
        }
    }
    if !zoned {
        return r.done();
    }
    // `Z07:00`: `Z`, or a sign and `hh:mm`.
    match r.peek() {
        Some(b'Z') => {
            r.at += 1;
        }
        Some(b'+' | b'-') => {
            r.at += 1;
            // Go's range test lets 24 hours and 60 minutes through.
            let zone = r.fixed(2, 24).is_some() && r.byte(b':') && r.fixed(2, 60).is_some();
            if !zone {
                return false;
            }
        }
        _ => return false,
    }
    r.done()
}

/// A cursor over a timestamp's bytes.
struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn done(&self) -> bool {
        self.at == self.b.len()
    }

    fn byte(&mut self, c: u8) -> bool {
        let ok = self.peek() == Some(c);
        self.at += usize::from(ok);
        ok
    }

    /// One or two digits (`time.Parse`'s `getnum(value, false)`), within `min..=max`.
    fn number(&mut self, min: u32, max: u32) -> Option<u32> {
        let first = self.peek().filter(u8::is_ascii_digit)?;
        self.at += 1;
        let mut n = u32::from(first - b'0');
        if let Some(second) = self.peek().filter(u8::is_ascii_digit) {
            self.at += 1;
            n = n * 10 + u32::from(second - b'0');
        }
        (min..=max).contains(&n).then_some(n)
    }

    /// Exactly `len` digits, at most `max`.
    fn fixed(&mut self, len: usize, max: u32) -> Option<u32> {
        let digits = self.b.get(self.at..self.at + len)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.at += len;
        let n = digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
        (n <= max).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a text tagged `!!tag` resolves to, as JSON (or go-yaml's words).
    fn tagged(value: &str, style: ScalarStyle, tag: &str) -> Result<String, String> {
        let tag = Tag { handle: "!!".into(), suffix: tag.into() };
        resolve(value, style, Some(&tag), &mut String::new())
            .map(|s| crate::scalar_to_json(s).to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn tags_resolve_as_go_yaml_v2_resolves_them() {
        use ScalarStyle::{DoubleQuoted, Plain};
        let ok = |json: &str| Ok(json.to_string());
        assert_eq!(tagged("3", DoubleQuoted, "int"), ok("3"));
        // A float, which JSON writes as Go does: `2`.
        assert_eq!(tagged("2", Plain, "float"), ok("2"));
        let float = Tag { handle: "!!".into(), suffix: "float".into() };
        assert_eq!(resolve("2", Plain, Some(&float), &mut String::new()), Ok(Scalar::Float(2.0)));
        assert_eq!(tagged("3", Plain, "str"), ok(r#""3""#));
        assert_eq!(tagged("", Plain, "null"), ok("null"));
        assert_eq!(tagged("0b101", Plain, "int"), ok("5"));
        for stamp in [
            "2001-12-14",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14  21:59:43.10",
            "2001-12-14T21:59:43Z",
            "2001-12-14T21:59:43+24:60",
            // Leap days (core's calendar).
            "2000-02-29",
            "2004-02-29",
        ] {
            assert_eq!(tagged(stamp, Plain, "timestamp"), ok(&format!("{stamp:?}")));
        }
        assert_eq!(tagged("x", Plain, "merge"), ok(r#""x""#));
        assert_eq!(tagged("aGVsbG8=", Plain, "binary"), ok(r#""hello""#));
        assert_eq!(tagged("aGVs\nbG8=", Plain, "binary"), ok(r#""hello""#));
        assert_eq!(tagged("/w==", Plain, "binary"), ok("\"\u{FFFD}\""));
        let err = |s: &str| Err(s.to_string());
        assert_eq!(tagged("abc", Plain, "int"), err("cannot decode !!str `abc` as a !!int"));
        assert_eq!(tagged("x", Plain, "null"), err("cannot decode !!str `x` as a !!null"));
        assert_eq!(tagged("1.5", Plain, "int"), err("cannot decode !!float `1.5` as a !!int"));
        assert_eq!(tagged("3", Plain, "bool"), err("cannot decode !!int `3` as a !!bool"));
        assert_eq!(tagged("abc", Plain, "timestamp"), err("cannot decode !!str `abc` as a !!timestamp"));
        assert_eq!(tagged("2001-12-14", Plain, "int"), err("cannot decode !!str `2001-12-14` as a !!int"));
        for stamp in [
            "2001-02-29",
            "1900-02-29",
            "2001-04-31",
            "2001-12-14T24:00:00Z",
            "2001-12-14T21:59:43+25:00",
            "2001-12-14T21:59:43",
        ] {
            assert_eq!(
                tagged(stamp, Plain, "timestamp"),
                err(&format!("cannot decode !!str `{stamp}` as a !!timestamp"))
            );
        }
        assert_eq!(tagged("1e999", Plain, "float"), err("cannot decode !!str `1e999` as a !!float"));
        // go-yaml turns an int64 into the float wanted, not a uint64.
        assert_eq!(
            tagged("18446744073709551615", Plain, "float"),
            err("cannot decode !!int `18446744073709551615` as a !!float")
        );
        assert_eq!(tagged("==", Plain, "binary"), err("!!binary value contains invalid base64 data"));
        // A tag go-yaml does not resolve leaves the text a string.
        let custom = Tag { handle: "!".into(), suffix: "foo".into() };
        assert_eq!(resolve("3", Plain, Some(&custom), &mut String::new()), Ok(Scalar::Str("3")));
    }

    #[test]
    fn plain_numbers_resolve_as_strconv_parses_them() {
        // `strconv.ParseFloat(".1_0")` fails: go-yaml keeps the text.
        assert_eq!(resolve_plain(".1_0"), Scalar::Str(".1_0"));
        assert_eq!(resolve_plain(".5"), Scalar::Float(0.5));
        assert_eq!(resolve_plain("1_0.5"), Scalar::Float(10.5));
        assert_eq!(
            resolve_plain("-0b1000000000000000000000000000000000000000000000000000000000000000"),
            Scalar::Int(i64::MIN)
        );
    }
}
