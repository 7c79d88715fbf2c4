//! Byte-exact copies of the Go formatting that Kubernetes' messages are made of.
//!
//! kube-apiserver renders error values with `fmt`'s `%q` (for Go `string` values) or with
//! `encoding/json` (for everything else), and writes the v1 round-trip annotations with
//! `encoding/json`. Both differ from Rust's `{:?}` and from `serde_json` in small ways
//! (`\u003c` for `<`, `\x7f`, which code points count as printable), and those small ways
//! are visible to users, so they are reproduced here.

use std::fmt::Write as _;

/// What stands for a non-nil pointer in Go's `%#v` dumps (`(*inf.Dec)(0xc000000000)`,
/// `(*bool)(0xc000000000)`): Go prints the pointee's heap address, which differs from one
/// request, process and run to the next, so no tool can reproduce it. This fixed address, the
/// start of Go's heap arena on linux/amd64, stands in for it: a message that holds one equals
/// kube-apiserver's except for the address (1.33 only, where `field.Error` renders values that
/// are neither strings nor numbers with `%#v`; from 1.34 they are JSON and hold no address).
/// A comparison with a real kube-apiserver 1.33 has to mask `0xc[0-9a-f]+` on both sides.
pub const POINTER_PLACEHOLDER: &str = "0xc000000000";

/// Quotes `s` like Go's `strconv.Quote` (and therefore `fmt`'s `%q`).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    push_quoted_fragment(&mut out, s);
    out.push('"');
    out
}

/// Quotes a Go string that need not be valid UTF-8 like `strconv.Quote`: each byte that does
/// not begin a valid UTF-8 sequence is written `\xNN` (`utf8.DecodeRuneInString` gives
/// `RuneError` of width 1 for it, which `appendQuotedWith` escapes byte by byte).
pub fn quote_bytes(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for chunk in s.utf8_chunks() {
        push_quoted_fragment(&mut out, chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

/// A Go string that need not be valid UTF-8 as Go reads it rune by rune: each byte that does
/// not begin a valid sequence becomes one U+FFFD (`for range`, `utf8.DecodeRuneInString`, and
/// what `encoding/json` writes for it, `\ufffd` per byte).
pub fn lossy(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for chunk in s.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(chunk.invalid().iter().map(|_| char::REPLACEMENT_CHARACTER));
    }
    out
}

/// Appends the body (without quotes) of `strconv.Quote(s)`.
fn push_quoted_fragment(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_print(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
}

/// Lowercases `s` like Go's `strings.ToLower`: each rune through `unicode.ToLower`, Unicode's
/// simple lowercase mapping. Rust's `str::to_lowercase` uses the full mapping, which writes
/// `İ` (U+0130) as two runes (`i` and a combining dot) where Go writes `i`, and lowercases a
/// word-final `Σ` to `ς` where Go writes `σ`.
pub fn to_lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    // `char::to_lowercase` is the full mapping of one rune without context: one rune, the
    // simple mapping, for every rune but U+0130, whose first rune is its simple mapping.
    s.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect()
}

/// Encodes `s` as a JSON string the way Go's `encoding/json` does (HTML-safe escaping on):
/// `<`, `>`, `&`, U+2028, U+2029 and the control characters below U+0020 are escaped; DEL
/// (U+007F) is not (`htmlSafeSet` holds it, `encoding/json/tables.go`).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    push_json_fragment(&mut out, s);
    out.push('"');
    out
}

/// Appends the escaped body (without quotes) of a Go JSON string.
pub fn push_json_fragment(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
///
/// Without the full Unicode category tables this treats unassigned code points as printable;
/// controls, format characters, non-ASCII spaces, separators, surrogates, private use and
/// non-characters are recognised.
pub fn is_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x7f {
        return u >= 0x20;
    }
    !matches!(u,
        0x7f..=0xa0
        | 0xad
        | 0x600..=0x605
        | 0x61c
        | 0x6dd
        | 0x70f
        | 0x890..=0x891
        | 0x8e2
        | 0x1680
        | 0x180e
        | 0x2000..=0x200f
        | 0x2028..=0x202f
        | 0x205f..=0x2064
        | 0x2066..=0x206f
        | 0x3000
        | 0xd800..=0xf8ff
        | 0xfdd0..=0xfdef
        | 0xfeff
        | 0xfff9..=0xfffb
        | 0xfffe..=0xffff
        | 0x110bd
        | 0x110cd
        | 0x13430..=0x1343f
        | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a
        | 0xe0001
        | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff
    ) && (u & 0xfffe) != 0xfffe
}

/// A `serde_json` formatter whose string escaping matches Go's `encoding/json`, for output that
/// must be byte-identical to what kube-apiserver writes (the v1 round-trip annotations).
#[derive(Debug, Default, Clone, Copy)]
pub struct GoJsonFormatter;

impl serde_json::ser::Formatter for GoJsonFormatter {
    /// Floats as Go writes them ([`json_float`]): `-4.760247247687104e17` is
    /// `-476024724768710400` in Go's JSON, an integer literal an `int64` field accepts.
    fn write_f64<W>(&mut self, writer: &mut W, value: f64) -> std::io::Result<()>
    where
        W: ?Sized + std::io::Write,
    {
        writer.write_all(json_float(value).as_bytes())
    }

    fn write_string_fragment<W>(&mut self, writer: &mut W, fragment: &str) -> std::io::Result<()>
    where
        W: ?Sized + std::io::Write,
    {
        if fragment.chars().any(|c| matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}')) {
            let mut escaped = String::with_capacity(fragment.len() + 8);
            push_json_fragment(&mut escaped, fragment);
            writer.write_all(escaped.as_bytes())
        } else {
            writer.write_all(fragment.as_bytes())
        }
    }
}

/// Go's `json.Compact` with HTML escaping (`appendCompact(dst, src, true)`), which
/// `encoding/json` applies to what a `MarshalJSON` returns: whitespace outside strings is
/// dropped, `<`, `>`, `&`, U+2028 and U+2029 inside strings become `\u` escapes, and
/// everything else (key order, escapes, number spellings) is kept. `src` is well-formed JSON.
pub fn compact(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in src.chars() {
        if in_string {
            match c {
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                    escaped = false;
                    continue;
                }
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// JSON text as a tree, read as `encoding/json`'s `Unmarshal` into an `interface{}` reads it
/// (what `runtime.DefaultUnstructuredConverter` and client-go's dynamic client do): a `\u`
/// escape of a lone UTF-16 surrogate becomes U+FFFD, as Go's `unquote` makes it, where
/// `serde_json` refuses the whole text. Kubernetes lets such an escape through in the raw JSON
/// it keeps unparsed (`metadata.managedFields[].fieldsV1`, `FieldsV1.Raw`), so a live object or
/// an admission request may hold one. Any other error is `serde_json`'s.
pub fn parse_tree(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    from_str(text)
}

/// `text` read into `T` as `encoding/json`'s `Unmarshal` reads it: as [`parse_tree`] (a lone
/// surrogate escape is U+FFFD), for any type (a typed list page, an object).
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(e) if e.is_syntax() && text.contains("\\u") => match replace_lone_surrogates(text) {
            Some(replaced) => serde_json::from_str(&replaced).map_err(|_| e),
            None => Err(e),
        },
        other => other,
    }
}

/// `text` with each `\u` escape of a lone UTF-16 surrogate (a high one not followed by a `\u`
/// escape of a low one, or a low one alone) replaced by `\ufffd`, as `encoding/json`'s
/// `unquote` decodes it; `None` when there is none. Outside strings JSON has no backslash, so
/// every backslash starts an escape.
pub fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let hex4 = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        let digits = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let escape = |at: usize| -> Option<u32> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u')).then(|| hex4(at + 2)).flatten()
    };
    let mut out: Option<String> = None;
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape(i) else {
            // Another escape (`\"`, `\\`, ...): its second byte is never the start of one.
            i += 2;
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => !escape(i + 6).is_some_and(|next| (0xDC00..=0xDFFF).contains(&next)),
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..i]);
            o.push_str("\\ufffd");
            copied = i + 6;
            i += 6;
        } else if (0xD800..=0xDBFF).contains(&unit) {
            // A valid pair: both escapes kept.
            i += 12;
        } else {
            i += 6;
        }
    }
    let mut o = out?;
    o.push_str(&text[copied..]);
    Some(o)
}

/// Serializes `value` to JSON exactly as Go's `json.Marshal` would for the same field order.
pub fn to_go_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut buf = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, GoJsonFormatter);
    value.serialize(&mut ser)?;
    // serde_json only ever writes valid UTF-8.
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// A float64 as Go's `encoding/json` writes it (`floatEncoder`): the shortest digits that
/// read back as the same float, in `%f` form from 1e-6 up to 1e21 and in `%e` form (with a
/// sign and at least two exponent digits, `e-07` shortened to `e-7`) outside. NaN and the
/// infinities, which `json.Marshal` refuses, are written as Go's `%g` writes them.
pub fn json_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let (digits, exp) = shortest_digits(format!("{:e}", f.abs()));
    let sign = if f < 0.0 { "-" } else { "" };
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        let exp_digits = exp.unsigned_abs();
        // Go writes at least two exponent digits and the encoder then drops the padding of
        // negative ones (`e-07` → `e-7`).
        let exp_text = if exp < 0 || exp_digits >= 10 { exp_digits.to_string() } else { format!("0{exp_digits}") };
        return format!("{sign}{first}{fraction}e{exp_sign}{exp_text}");
    }
    format!("{sign}{}", fixed(&digits, exp))
}

/// The digits and decimal exponent of Rust's `{:e}` rendering (`d.ddde<exp>`: the shortest
/// digits that read back as the same float, of the type rendered).
fn shortest_digits(e: String) -> (String, i32) {
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    (mantissa.chars().filter(char::is_ascii_digit).collect(), exp)
}

/// Shortest digits with their decimal exponent in `%f` form: `0.00ddd`, `ddd00`, `dd.d`.
fn fixed(digits: &str, exp: i32) -> String {
    let point = exp + 1;
    if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    }
}

/// `json.Marshal` of a JSON value decoded into a Go `interface{}` (an unstructured object's
/// field): as [`to_go_json`] writes it, with every map's keys sorted, as Go's encoder sorts a
/// `map[string]interface{}`'s.
pub fn unstructured_json(v: &serde_json::Value) -> String {
    fn sorted(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Array(items) => serde_json::Value::Array(items.iter().map(sorted).collect()),
            serde_json::Value::Object(map) => {
                let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            other => other.clone(),
        }
    }
    to_go_json(&sorted(v)).unwrap_or_default()
}

/// Go's `%#v` of a JSON value decoded into an `interface{}` (an unstructured object's field, as
/// apiextensions-apiserver validates a custom resource): `interface {}(nil)` for null, a
/// boolean or an integer as `%v`, a float as `%v` writes a `float64` ([`format_float_g`]), a
/// string quoted ([`quote`]), a list as `[]interface {}{"a", 1}`, a map as
/// `map[string]interface {}{"a":1, "b":"c"}` (its keys sorted, as `fmt` prints a map's).
pub fn unstructured_go_syntax(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => format_float_g(n.as_f64().unwrap_or_default(), 64),
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(unstructured_go_syntax).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let entries: Vec<String> =
                entries.into_iter().map(|(k, v)| format!("{}:{}", quote(k), unstructured_go_syntax(v))).collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, bits)` (`bits` 32: `f` rounded to a float32 first):
/// the shortest digits that read back as the same float, in `%e` form (`1.5e+10`, at least
/// two exponent digits) when the exponent is below -4 or at least 6 (`%g`'s precision for the
/// shortest digits), else in `%f` form; `+Inf`, `-Inf`, `NaN`.
pub fn format_float_g(f: f64, bits: u8) -> String {
    let (digits, exp) = if bits == 32 {
        #[allow(clippy::cast_possible_truncation)] // Go's float32(f): rounded to nearest.
        let narrow = f as f32;
        if !narrow.is_finite() {
            return json_float(f64::from(narrow));
        }
        shortest_digits(format!("{:e}", narrow.abs()))
    } else {
        if !f.is_finite() {
            return json_float(f);
        }
        shortest_digits(format!("{:e}", f.abs()))
    };
    let sign = if f.is_sign_negative() { "-" } else { "" };
    // Go's shortest decimal of zero has no digits: `%f` of it is `0`.
    if digits.bytes().all(|d| d == b'0') {
        return format!("{sign}0");
    }
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{fraction}e{exp_sign}{:02}", exp.unsigned_abs());
    }
    format!("{sign}{}", fixed(&digits, exp))
}

/// Go's `math.Pow10`, reproduced table for table so that float results are bit-identical.
pub fn pow10(n: i32) -> f64 {
    const TAB: [f64; 32] = [
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
    const NEG32: [f64; 11] = [1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];
    if (0..=308).contains(&n) {
        let n = n as usize;
        return POS32[n / 32] * TAB[n % 32];
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as usize;
        return NEG32[m / 32] / TAB[m % 32];
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

/// Why Go's `time.ParseDuration` refuses a duration, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurationError {
    /// Not the grammar `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or beyond ±2⁶³-1 nanoseconds.
    #[error("time: invalid duration {}", time_quote(.0.as_bytes()))]
    Invalid(String),
    /// A number without a unit after it (`5m3`).
    #[error("time: missing unit in duration {}", time_quote(.0.as_bytes()))]
    MissingUnit(String),
    /// A unit other than `ns`, `us` (`µs`, `μs`), `ms`, `s`, `m` and `h`.
    #[error("time: unknown unit {} in duration {}", time_quote(.unit.as_bytes()), time_quote(.text.as_bytes()))]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The duration as written.
        text: String,
    },
}

/// Go's `time.ParseDuration` (`time/format.go`): a signed sequence of decimal numbers, each
/// with an optional fraction and a unit (`300ms`, `-1.5h`, `2h45m`, `1m30s`), or `0`; the
/// result in nanoseconds. Kubernetes' duration flags (`--horizontal-pod-autoscaler-sync-period`)
/// and `metav1.Duration` values are read with it.
pub fn parse_duration(text: &str) -> Result<i64, DurationError> {
    const LIMIT: u64 = 1 << 63;
    let invalid = || DurationError::Invalid(text.to_string());
    let mut s = text.as_bytes();
    let mut negative = false;
    if let [sign @ (b'-' | b'+'), rest @ ..] = s {
        negative = *sign == b'-';
        s = rest;
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // The integer part (leadingInt): an overflow is an invalid duration.
        let mut whole: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if whole > LIMIT / 10 {
                return Err(invalid());
            }
            whole = whole * 10 + u64::from(s[i] - b'0');
            if whole > LIMIT {
                return Err(invalid());
            }
            i += 1;
        }
        let before_point = i > 0;
        s = &s[i..];
        // The fraction (leadingFraction): digits past what a u64 holds are dropped.
        let (mut fraction, mut scale, mut after_point) = (0u64, 1f64, false);
        if let [b'.', rest @ ..] = s {
            s = rest;
            let mut overflow = false;
            let mut j = 0;
            while j < s.len() && s[j].is_ascii_digit() {
                if !overflow {
                    if fraction > (LIMIT - 1) / 10 {
                        overflow = true;
                    } else {
                        let next = fraction * 10 + u64::from(s[j] - b'0');
                        if next > LIMIT {
                            overflow = true;
                        } else {
                            fraction = next;
                            scale *= 10.0;
                        }
                    }
                }
                j += 1;
            }
            after_point = j > 0;
            s = &s[j..];
        }
        if !before_point && !after_point {
            return Err(invalid());
        }
        let unit_len = s.iter().position(|c| *c == b'.' || c.is_ascii_digit()).unwrap_or(s.len());
        if unit_len == 0 {
            return Err(DurationError::MissingUnit(text.to_string()));
        }
        let unit = &s[..unit_len];
        s = &s[unit_len..];
        let nanos: u64 = match unit {
            b"ns" => 1,
            // `µs` (U+00B5) and `μs` (U+03BC) in UTF-8.
            b"us" | [0xc2, 0xb5, b's'] | [0xce, 0xbc, b's'] => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => {
                return Err(DurationError::UnknownUnit {
                    unit: String::from_utf8_lossy(unit).into_owned(),
                    text: text.to_string(),
                });
            }
        };
        if whole > LIMIT / nanos {
            return Err(invalid());
        }
        let mut value = whole * nanos;
        if fraction > 0 {
            // As Go: float64 keeps fractions of an hour nanosecond-exact.
            value += (fraction as f64 * (nanos as f64 / scale)) as u64;
            if value > LIMIT {
                return Err(invalid());
            }
        }
        total += value;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        // total ≤ 2⁶³: its negation is an i64.
        return Ok((total as i128).wrapping_neg() as i64);
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// Go's `time.quote` (`src/time/format.go`; not `strconv.Quote`), which `time.ParseDuration`
/// and `time.Parse` put in their errors: `"` and `\` escaped, each byte of a non-ASCII or
/// control character as `\xNN`. It takes bytes because Go's strings may hold invalid UTF-8.
pub(crate) fn time_quote(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s {
        if !(b' '..0x80).contains(&b) {
            let _ = write!(out, "\\x{b:02x}");
        } else {
            if b == b'"' || b == b'\\' {
                out.push('\\');
            }
            out.push(char::from(b));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {

    /// `strings.ToLower` maps rune by rune with the simple mapping (`unicode.ToLower`).
    #[test]
    fn to_lower_is_go_strings_to_lower() {
        assert_eq!(to_lower("App.Example.COM/Key"), "app.example.com/key");
        assert_eq!(to_lower("\u{130}"), "i");
        assert_eq!(to_lower("ΟΔΟΣ"), "οδοσ");
        assert_eq!(to_lower("\u{212a}ey"), "key");
        assert_eq!(to_lower("ÉTÉ"), "été");
    }

    #[test]
    fn time_quote_escapes_bytes_as_go_time_quote_does() {
        // `time.ParseDuration("1µs\"\\\t\x7f")`'s quote: non-ASCII and control bytes as
        // `\xNN`, DEL kept, a byte of invalid UTF-8 escaped alone.
        assert_eq!(super::time_quote("1µs\"\\\t\x7f".as_bytes()), "\"1\\xc2\\xb5s\\\"\\\\\\x09\x7f\"");
        assert_eq!(super::time_quote(b"a\xffb"), r#""a\xffb""#);
    }

    #[test]
    fn lone_surrogates_read_as_go_reads_them() {
        use serde_json::json;
        // Lone high, lone low, high before a non-surrogate escape: U+FFFD each; a pair and an
        // escaped backslash before `u` are kept.
        let text = r#"{"a\ud800b": ["\udc00", "\ud800\u0041", "\ud83d\ude00", "\\ud800"]}"#;
        assert!(serde_json::from_str::<serde_json::Value>(text).is_err());
        assert_eq!(
            replace_lone_surrogates(text).as_deref(),
            Some(r#"{"a\ufffdb": ["\ufffd", "\ufffd\u0041", "\ud83d\ude00", "\\ud800"]}"#)
        );
        assert_eq!(parse_tree(text).unwrap(), json!({"a\u{fffd}b": ["\u{fffd}", "\u{fffd}A", "\u{1f600}", "\\ud800"]}));
        // Nothing to replace: the text is untouched, and serde_json's errors stay its own.
        assert_eq!(replace_lone_surrogates(r#"["\ud83d\ude00", "\"\\u"]"#), None);
        assert_eq!(parse_tree("[1, 2]").unwrap(), json!([1, 2]));
        let e = parse_tree(r#"{"a": "\ud800""#).unwrap_err();
        assert_eq!(
            e.to_string(),
            serde_json::from_str::<serde_json::Value>(r#"{"a": "\ud800""#).unwrap_err().to_string()
        );
        // A truncated escape is serde_json's error too.
        assert!(parse_tree(r#"["\ud8"]"#).is_err());
    }

    #[test]
    fn to_go_json_writes_floats_as_go_does() {
        let json = |v: serde_json::Value| super::to_go_json(&v).unwrap();
        // A YAML float kubectl sends to an int64 field as an integer literal (found by fuzzing:
        // `observedGeneration: -0476024724768710452` is a float in go-yaml v2).
        assert_eq!(json(serde_json::json!(-4.760247247687104e17)), "-476024724768710400");
        assert_eq!(json(serde_json::json!(0.5)), "0.5");
        assert_eq!(json(serde_json::json!(1e21)), "1e+21");
        assert_eq!(json(serde_json::json!(1e-7)), "1e-7");
        assert_eq!(json(serde_json::json!({"a": [1.5, 2]})), r#"{"a":[1.5,2]}"#);
    }

    use super::*;

    #[test]
    fn quote_matches_go() {
        assert_eq!(quote("myrc"), "\"myrc\"");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("tab\there\n"), "\"tab\\there\\n\"");
        assert_eq!(quote("\u{1}\u{7f}"), "\"\\x01\\x7f\"");
        assert_eq!(quote("héllo ☃"), "\"héllo ☃\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
        assert_eq!(quote("\u{a0}"), "\"\\u00a0\"");
    }

    /// `strconv.Quote` of a Go string that is not valid UTF-8 (a byte slice cut inside a
    /// character): each byte that does not begin a valid sequence is `\xNN`, one by one; `for
    /// range` (and `encoding/json`, as `\ufffd`) reads each as one U+FFFD.
    #[test]
    fn quote_bytes_matches_go() {
        assert_eq!(quote_bytes(b"web-\xc3xxxxx"), r#""web-\xc3xxxxx""#);
        assert_eq!(quote_bytes(b"a\xe2\x82"), r#""a\xe2\x82""#);
        assert_eq!(quote_bytes(b"\xed\xa0\x80\"\n"), r#""\xed\xa0\x80\"\n""#);
        for valid in ["myrc", "h\u{e9}llo \u{2603}", "\u{200b}\u{1}"] {
            assert_eq!(quote_bytes(valid.as_bytes()), quote(valid), "{valid}");
        }
        assert_eq!(lossy(b"a\xe2\x82b\xc3"), "a\u{fffd}\u{fffd}b\u{fffd}");
        assert_eq!(lossy("\u{e9}t\u{e9}".as_bytes()), "\u{e9}t\u{e9}");
    }

    #[test]
    fn json_matches_go() {
        assert_eq!(json_string("a<b>&c"), "\"a\\u003cb\\u003e\\u0026c\"");
        assert_eq!(json_string("\u{1}\u{8}"), "\"\\u0001\\b\"");
        assert_eq!(to_go_json(&["x&y"]).unwrap(), "[\"x\\u0026y\"]");
        // DEL is written as it is, by both (Go 1.23: `json.Marshal("a\x7fb<")` is
        // `"a\x7fb\u003c"`); U+2028 and U+2029 are escaped.
        assert_eq!(json_string("a\u{7f}b<"), "\"a\u{7f}b\\u003c\"");
        assert_eq!(to_go_json(&["a\u{7f}\u{2028}"]).unwrap(), "[\"a\u{7f}\\u2028\"]");
    }

    #[test]
    fn compact_drops_whitespace_and_escapes_html_in_strings() {
        assert_eq!(
            compact(" { \"f:a b\" : [ 1e3 , \"<\\\" &\\u0041\" ] ,\n\t\"x\":{} } "),
            r#"{"f:a b":[1e3,"\u003c\" \u0026\u0041"],"x":{}}"#
        );
        assert_eq!(compact("\"\u{2028}\\\\\" "), r#""\u2028\\""#);
    }

    #[test]
    fn floats_as_encoding_json_writes_them() {
        for (f, go) in [
            (5.0, "5"),
            (5.5, "5.5"),
            (-0.25, "-0.25"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (-9.223372036854776e18, "-9223372036854776000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-10, "1.25e-10"),
            (123456.789, "123456.789"),
            (0.1, "0.1"),
        ] {
            assert_eq!(json_float(f), go, "{f}");
        }
    }

    #[test]
    fn format_float_g_like_go() {
        // strconv.FormatFloat(f, 'g', -1, 32): what kubectl (sigs.k8s.io/yaml) makes of a float
        // map key, each one read back from `kubectl label --local -o json`.
        for (f, go) in [
            (685_230.15, "685230.1"),
            (1000.0, "1000"),
            (1.0, "1"),
            (0.1, "0.1"),
            (123_456_789.0, "1.2345679e+08"),
            (1.5e10, "1.5e+10"),
            (1e30, "1e+30"),
            (1.844_674_407_370_955_2e19, "1.8446744e+19"),
            (-9.223_372_036_854_776e18, "-9.223372e+18"),
            (f64::MAX, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
            (5e-324, "0"),
            (-0.0, "-0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
        ] {
            assert_eq!(format_float_g(f, 32), go, "{f}");
        }
        // And of a float64 (bits 64): the digits of the float itself.
        assert_eq!(format_float_g(685_230.15, 64), "685230.15");
        assert_eq!(format_float_g(123_456_789.0, 64), "1.23456789e+08");
        assert_eq!(format_float_g(1e100, 64), "1e+100");
    }

    #[test]
    fn pow10_like_go() {
        assert_eq!(pow10(0), 1.0);
        assert_eq!(pow10(-2), 0.01);
        assert_eq!(pow10(-9), 1e-9);
        assert_eq!(pow10(3), 1000.0);
    }
    /// Go's own table (`time/time_test.go`, `parseDurationTests` and
    /// `parseDurationErrorTests`).
    #[test]
    fn durations_parse_as_go_parses_them() {
        use super::{DurationError, parse_duration};
        const S: i64 = 1_000_000_000;
        let ok: &[(&str, i64)] = &[
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600_000_000),
            ("5.s", 5 * S),
            (".5s", S / 2),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4_000_000),
            ("1.0040s", S + 4_000_000),
            ("100.00100s", 100 * S + 1_000_000),
            ("10ns", 10),
            ("11us", 11_000),
            ("12µs", 12_000),
            ("12μs", 12_000),
            ("13ms", 13_000_000),
            ("14s", 14 * S),
            ("15m", 15 * 60 * S),
            ("16h", 16 * 3600 * S),
            ("3h30m", (3 * 3600 + 30 * 60) * S),
            ("10.5s4m", 4 * 60 * S + 10 * S + S / 2),
            ("-2m3.4s", -(2 * 60 * S + 3 * S + 400_000_000)),
            ("1h2m3s4ms5us6ns", 3600 * S + 2 * 60 * S + 3 * S + 4_000_000 + 5_000 + 6),
            ("39h9m14.425s", 39 * 3600 * S + 9 * 60 * S + 14 * S + 425_000_000),
            ("52763797000ns", 52_763_797_000),
            ("0.3333333333333333333h", 20 * 60 * S),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("0.100000000000000000000h", 6 * 60 * S),
            ("0.830103483285477580700h", 49 * 60 * S + 48 * S + 372_539_827),
        ];
        for (text, want) in ok {
            assert_eq!(parse_duration(text), Ok(*want), "{text}");
        }
        let bad: &[(&str, &str)] = &[
            ("", r#"time: invalid duration """#),
            ("3", r#"time: missing unit in duration "3""#),
            ("-", r#"time: invalid duration "-""#),
            ("s", r#"time: invalid duration "s""#),
            (".", r#"time: invalid duration ".""#),
            ("-.", r#"time: invalid duration "-.""#),
            (".s", r#"time: invalid duration ".s""#),
            ("+.s", r#"time: invalid duration "+.s""#),
            ("1d", r#"time: unknown unit "d" in duration "1d""#),
            ("\u{85}\u{85}", r#"time: invalid duration "\xc2\x85\xc2\x85""#),
            ("\u{FFFD}", r#"time: invalid duration "\xef\xbf\xbd""#),
            ("9223372036854775810ns", r#"time: invalid duration "9223372036854775810ns""#),
            ("9223372036854775808ns", r#"time: invalid duration "9223372036854775808ns""#),
            ("-9223372036854775809ns", r#"time: invalid duration "-9223372036854775809ns""#),
            ("9223372036854776us", r#"time: invalid duration "9223372036854776us""#),
            ("3000000h", r#"time: invalid duration "3000000h""#),
            ("9223372036854775.808us", r#"time: invalid duration "9223372036854775.808us""#),
            ("9223372036854ms775us808ns", r#"time: invalid duration "9223372036854ms775us808ns""#),
        ];
        for (text, want) in bad {
            assert_eq!(parse_duration(text).map_err(|e| e.to_string()), Err((*want).to_string()), "{text:?}");
        }
        assert_eq!(parse_duration("1m30x"), Err(DurationError::UnknownUnit { unit: "x".into(), text: "1m30x".into() }));
    }
}
