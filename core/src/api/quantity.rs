//! `resource.Quantity`: parsing, canonical form and comparison, identical to apimachinery.
//!
//! Mirrors `k8s.io/apimachinery/pkg/api/resource/quantity.go` (`ParseQuantity`,
//! `parseQuantityString`, `CanonicalizeBytes`, `AsApproximateFloat64`) and `suffix.go`.
//! A value is kept as Go keeps it (`int64Amount{value, scale}` on the fast path, an
//! `inf.Dec` rounded up to nano otherwise), so that float conversions are bit-identical.
//! Go's `inf.Dec` is unbounded, and so is this: a mantissa of more than 38 significant digits
//! (beyond `i128`) is kept as its decimal digits, as exact as Go keeps it.
//!
//! Parsing follows the release ([`Quantity::parse_in`]): 1.38 refuses a decimal exponent outside
//! ±MaxInt32 (`suffixHandler.interpret`, #141203: `unable to parse quantity's suffix`), where
//! 1.33–1.37 narrow it with `int32()`, wrapping (`1e4294967297` is `1e1`).
//!
//! So does the text of a DecimalSI value past the `E` suffix: 1.38 writes its decimal exponent
//! form (`1000E` is `1e21`, #140459), 1.33–1.37 drop the exponent (`1000E` is `1`).
//!
//! `MilliValue` past int64 differs too: 1.38 saturates it (#141305, [`Quantity::milli_value`]),
//! 1.33–1.37 wrap or return 0, depending on how Go holds the value
//! ([`Quantity::wrapping_milli_value`]); the controller picks the one of its release.

use std::cmp::Ordering;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::features::KubernetesVersion;

/// The format a quantity is written back in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// e.g. `12e6`
    DecimalExponent,
    /// e.g. `12Mi`
    BinarySI,
    /// e.g. `12M`
    DecimalSI,
}

/// Why a string is not a quantity; messages are apimachinery's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuantityError {
    /// `ErrFormatWrong`
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    FormatWrong,
    /// `ErrNumeric`
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// `ErrSuffix`
    #[error("unable to parse quantity's suffix")]
    Suffix,
}

/// A Kubernetes quantity such as `500m`, `2Gi` or `1e3`.
#[derive(Clone)]
pub struct Quantity {
    /// value = mantissa × 10^exp; with `wide`, only the sign (±1).
    mantissa: i128,
    exp: i32,
    /// A mantissa beyond `i128` (the slow parse path of a number of more than 38 significant
    /// digits): its decimal digits, most significant first, without leading or trailing zeros;
    /// the value is ±digits × 10^exp.
    wide: Option<Box<str>>,
    format: Format,
    /// The input string when Go would cache it as already canonical (then it is what Go prints).
    cached: Option<Box<str>>,
    /// Whether Go holds the value as an `inf.Dec` (the slow parse path) rather than an
    /// `int64Amount`; only [`Quantity::go_syntax`] tells the two apart.
    dec: bool,
    /// Whether `String()` writes a DecimalSI value whose canonical exponent is past the `E`
    /// suffix (10^18) in its decimal exponent form (`1000E` is `1e21`), as 1.38's
    /// `CanonicalizeBytes` does (#140459); 1.33–1.37 drop the exponent and write the digits
    /// alone (`1000E` is `1`, a value 10^21 times smaller). Set by [`Quantity::parse_in`] for
    /// its release ([`writes_exponent_past_e`]); a quantity the controller builds
    /// (`NewMilliQuantity`) never reaches 10^21.
    exponent_past_e: bool,
    /// Whether this is Go's zero `Quantity{}`, which no parse or constructor made (a
    /// non-pointer quantity field left out of the JSON, or given `null`): its `Format` is the
    /// empty string, which only [`Quantity::go_syntax`] shows (`Format:""`, where
    /// `resource.NewQuantity(0, DecimalSI)` and `ParseQuantity("0")` say `Format:"DecimalSI"`).
    zero_value: bool,
}

const NANO: i32 = -9;
const MAX_INT64_FACTORS: i32 = 18;

impl Quantity {
    /// Parses a quantity like `ParseQuantity` of the newest generally available release
    /// ([`KubernetesVersion::LATEST`]); [`Quantity::parse_in`] for another.
    pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
        Quantity::parse_in(s, KubernetesVersion::LATEST)
    }

    /// Parses a quantity like `ParseQuantity` of `release`'s apimachinery (the releases differ
    /// on a decimal exponent past int32: [`rejects_exponent_past_int32`]).
    pub fn parse_in(s: &str, release: KubernetesVersion) -> Result<Quantity, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let exponent_past_e = writes_exponent_past_e(release);
        if s == "0" {
            return Ok(Quantity {
                mantissa: 0,
                exp: 0,
                wide: None,
                format: Format::DecimalSI,
                cached: Some("0".into()),
                dec: false,
                exponent_past_e,
                zero_value: false,
            });
        }
        let parts = scan(s)?;
        let (base, exponent, format) = interpret_suffix(parts.suffix, release).ok_or(QuantityError::Suffix)?;

        // The fast path of ParseQuantity: int64Amount{value, scale}.
        let (mut scale, precision, multiplier): (i32, i32, i64) = match format {
            Format::DecimalExponent | Format::DecimalSI => {
                (exponent, MAX_INT64_FACTORS - (parts.num.len() + parts.denom.len()) as i32, 1)
            }
            Format::BinarySI => {
                if exponent >= 0 && parts.denom.is_empty() && exponent < 63 {
                    let p = 15 - parts.num.len() as i32 - ((exponent as f32) * 3.0 / 10.0) as i32 - 1;
                    (0, p, 1i64 << exponent)
                } else {
                    (0, -1, 1)
                }
            }
        };
        if precision >= 0 {
            scale -= parts.denom.len() as i32;
            if scale >= NANO {
                // The digits of the number without its point (`strconv.ParseInt` of them, read
                // in place: this runs for every quantity of every HPA).
                let shifted = || parts.num.bytes().chain(parts.denom.bytes());
                let value = shifted().try_fold(0i64, |value, digit| {
                    let digit = char::from(digit).to_digit(10)?;
                    value.checked_mul(10)?.checked_add(i64::from(digit))
                });
                let value = value.filter(|_| shifted().next().is_some()).ok_or(QuantityError::Numeric)?;
                if let Some(result) = value.checked_mul(multiplier) {
                    let result = if parts.positive { result } else { -result };
                    let ends_in_000 = shifted().rev().take(3).filter(|d| *d == b'0').count() == 3;
                    let canonical_input = match format {
                        Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                        _ => scale % 3 == 0 && !ends_in_000 && shifted().next() != Some(b'0'),
                    };
                    return Ok(Quantity {
                        mantissa: i128::from(result),
                        exp: scale,
                        wide: None,
                        format,
                        cached: canonical_input.then(|| s.into()),
                        dec: false,
                        exponent_past_e,
                        zero_value: false,
                    });
                }
            }
        }

        // The slow path: an inf.Dec, rounded up to nano, BinarySI capped at MaxInt64.
        let digits = format!("{}{}", parts.num, parts.denom);
        let digits = digits.trim_start_matches('0');
        let mut exp = -(parts.denom.len() as i32);
        // Keep significant digits only; trailing zeros move into the exponent.
        let trimmed = digits.trim_end_matches('0');
        exp += (digits.len() - trimmed.len()) as i32;
        if base == 10 {
            exp = exp.saturating_add(exponent);
        }
        let mut mag = Big::from_digits(trimmed)?;
        if base == 2 {
            // At least 10^19 before the shift: past MaxInt64, so capped below whatever the
            // shift makes of it; the shift (2^exponent of a number of any length) is skipped.
            if !mag.is_zero() && trimmed.len() as i64 - 1 + i64::from(exp) >= 19 {
                mag = Big::from_digits("1")?;
                exp = 19;
            } else {
                mag = mag.shl(exponent)?;
            }
        }
        let mut format = format;
        if !mag.is_zero() {
            mag = mag.round_up_to(exp, NANO);
        }
        let (mut mantissa, mut exp) = match mag.into_parts(exp) {
            Parts128::Small(m, e) => (m, e),
            // Past i128 (never BinarySI: that is capped at MaxInt64 below, and a mantissa of 39
            // digits or more is far above it, so this is DecimalSI or DecimalExponent).
            Parts128::Wide(digits, e) if format != Format::BinarySI => {
                let sign = if parts.positive { 1 } else { -1 };
                return Ok(Quantity {
                    mantissa: sign,
                    exp: e,
                    wide: Some(digits),
                    format,
                    cached: None,
                    dec: true,
                    exponent_past_e,
                    zero_value: false,
                });
            }
            Parts128::Wide(..) => (i128::from(i64::MAX), 0),
        };
        // inf.Dec.Round leaves the value at scale 9 (nano); mirror that representation.
        if mantissa != 0
            && exp > NANO
            && let Some(m) = pow10_i128((exp - NANO) as u32).and_then(|p| mantissa.checked_mul(p))
        {
            mantissa = m;
            exp = NANO;
        }
        if format == Format::BinarySI {
            let probe = |mantissa, exp| Quantity {
                mantissa,
                exp,
                wide: None,
                format,
                cached: None,
                dec: true,
                exponent_past_e: false,
                zero_value: false,
            };
            if probe(mantissa, exp).cmp_value(&Quantity::from_i64(i64::MAX)) == Ordering::Greater {
                mantissa = i128::from(i64::MAX);
                exp = 0;
            }
            if mantissa != 0 && probe(mantissa, exp).cmp_value(&Quantity::from_i64(1)) == Ordering::Less {
                format = Format::DecimalSI;
            }
        }
        if !parts.positive {
            mantissa = -mantissa;
        }
        Ok(Quantity { mantissa, exp, wide: None, format, cached: None, dec: true, exponent_past_e, zero_value: false })
    }

    /// A quantity from an integer, formatted as DecimalSI (`resource.NewQuantity`).
    pub fn from_i64(value: i64) -> Self {
        Quantity {
            mantissa: i128::from(value),
            exp: 0,
            wide: None,
            format: Format::DecimalSI,
            cached: None,
            dec: false,
            exponent_past_e: false,
            zero_value: false,
        }
    }

    /// A quantity from milli-units (`resource.NewMilliQuantity(v, DecimalSI)`).
    pub fn from_milli(value: i64) -> Self {
        Quantity::from_milli_with_format(value, Format::DecimalSI)
    }

    /// A quantity from milli-units in a given format (`resource.NewMilliQuantity(v, format)`).
    pub fn from_milli_with_format(value: i64, format: Format) -> Self {
        Quantity {
            mantissa: i128::from(value),
            exp: -3,
            wide: None,
            format,
            cached: None,
            dec: false,
            exponent_past_e: false,
            zero_value: false,
        }
    }

    /// The format (DecimalSI, BinarySI or DecimalExponent).
    pub fn format(&self) -> Format {
        self.format
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i32 {
        self.mantissa.signum() as i32
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// `AsApproximateFloat64`: mantissa × `math.Pow10(scale)`, bit-identical to Go.
    pub fn as_approximate_f64(&self) -> f64 {
        if let Some(digits) = &self.wide {
            // Go holds the value at scale 9 (`Round(Nano)`): the nearest float64 to the unscaled
            // integer (big.Float's Float64), times 10^-9. The string form reaches the same float
            // without building the integer.
            let unscaled: f64 = format!("{digits}e{}", i64::from(self.exp) - i64::from(NANO)).parse().unwrap_or(0.0);
            return self.mantissa as f64 * unscaled * crate::go::pow10(NANO);
        }
        let base = self.mantissa as f64;
        if self.exp == 0 {
            return base;
        }
        base * crate::go::pow10(self.exp)
    }

    /// The `bool` of `AsScale(scale)`: whether the value is a whole number of 10^`scale` units,
    /// so that scaling to it keeps it exact (the VPA admission controller's
    /// `validateCPUResolution` asks it at `Milli`, -3, and `validateMemoryResolution` at 0).
    pub fn is_whole_at_scale(&self, scale: i32) -> bool {
        if self.exp >= scale {
            return true;
        }
        // A wide mantissa's digits have no trailing zero: scaled down, it has a fraction.
        if self.wide.is_some() {
            return false;
        }
        let shift = i64::from(scale) - i64::from(self.exp);
        match u32::try_from(shift).ok().and_then(pow10_u128) {
            Some(p) => self.mantissa.unsigned_abs().is_multiple_of(p),
            // Past 10^38 only 0 divides evenly.
            None => self.mantissa == 0,
        }
    }

    /// `MilliValue()` of 1.38: the value in milli-units, rounded up away from zero, saturating
    /// at `MinInt64`/`MaxInt64` (#141305); [`Quantity::wrapping_milli_value`] for 1.33–1.37.
    pub fn milli_value(&self) -> i64 {
        self.scaled_value(-3)
    }

    /// `MilliValue()` of apimachinery 1.33–1.37 (`ScaledValue(Milli)` before #141305), which
    /// does not saturate: what a value past int64 gives depends on how Go holds it.
    /// - An `int64Amount{value, scale}` (the fast parse path, `NewQuantity`, `NewMilliQuantity`):
    ///   `AsScaledInt64(Milli)` with its `ok` dropped. Scaling down, `negativeScaleInt64`
    ///   rounds away from zero. Scaling up by 10^1, 10^2, 10^3, 10^6 or 10^9
    ///   (`int64MultiplyScale*`), an overflowing product wraps (`MinInt64` gives 0); by any
    ///   other power (the loop of `positiveScaleInt64`) it gives 0 (`1E`, 10^18: 0); a shift the
    ///   `int32` scale arithmetic wraps negative runs no loop: the value itself (`1e2147483647`
    ///   gives 1).
    /// - An `inf.Dec` (the slow parse path: 19 digits or more, a BinarySI fraction or cap):
    ///   `scaledValue`, the value in milli-units rounded away from zero, then `big.Int.Int64()`:
    ///   its low 64 bits (`9223372036854775807` gives -1000).
    ///
    /// Negative values round away from zero as `scaledValue` does since #138510 (the
    /// `resource` package's own overflow baseline, #141170, pins these values); before it, a
    /// negative inf.Dec rounded toward +∞, which no HPA value reaches (targets must be
    /// positive, requests are not negative).
    pub fn wrapping_milli_value(&self) -> i64 {
        const MILLI: i32 = -3;
        let negative = self.mantissa < 0;
        let low = if let Some(digits) = &self.wide {
            // ±digits × 10^(exp + 3), rounded away from zero; no digit is a trailing zero, so
            // dropping any leaves a fraction.
            let k = i64::from(self.exp) - i64::from(MILLI);
            if k >= 0 {
                low_bits(digits).wrapping_mul(wrapping_pow10(k))
            } else {
                let keep = digits.len() as i64 + k;
                let int = if keep > 0 { low_bits(&digits[..keep as usize]) } else { 0 };
                int.wrapping_add(1)
            }
        } else if self.dec {
            // |mantissa| × 10^(exp + 3); exp is at least -9 (nano), so a division is by at most
            // 10^6.
            let k = self.exp - MILLI;
            let mag = self.mantissa.unsigned_abs();
            if k >= 0 {
                (mag as u64 as i64).wrapping_mul(wrapping_pow10(i64::from(k)))
            } else {
                pow10_u128(k.unsigned_abs()).map_or(i64::from(mag != 0), |p| mag.div_ceil(p) as u64 as i64)
            }
        } else {
            // int64Amount: the mantissa fits i64, exp is its int32 scale.
            let value = self.mantissa as i64;
            return if self.exp < MILLI {
                negative_scale_int64(value, MILLI - self.exp)
            } else {
                positive_scale_int64(value, self.exp.wrapping_sub(MILLI))
            };
        };
        if negative { low.wrapping_neg() } else { low }
    }

    /// `Value()`: the value in units, rounded up away from zero, saturating.
    pub fn value(&self) -> i64 {
        self.scaled_value(0)
    }

    /// `ScaledValue(scale)` of 1.38: ceil(|q| / 10^scale) with q's sign, saturating at
    /// `MinInt64` or `MaxInt64` (#141305); 1.33–1.37's `MilliValue` is
    /// [`Quantity::wrapping_milli_value`].
    pub fn scaled_value(&self, scale: i32) -> i64 {
        if let Some(digits) = &self.wide {
            // |q| / 10^scale = digits × 10^shift, at least 10^(len - 1 + shift).
            let shift = i64::from(self.exp) - i64::from(scale);
            let len = digits.len() as i64;
            let clamped: u128 = if len - 1 + shift >= 19 {
                u128::MAX
            } else if len + shift <= 0 {
                1
            } else {
                // 1 to 19 integer digits (shift < 0 here, as len > 38), rounded up.
                let split = (len + shift) as usize;
                let (int, frac) = digits.split_at(split);
                let int: u128 = int.parse().unwrap_or(u128::MAX);
                let up = u128::from(frac.bytes().any(|d| d != b'0'));
                int.saturating_add(up)
            };
            return saturate(self.mantissa < 0, clamped);
        }
        let shift = self.exp - scale;
        let mag = self.mantissa.unsigned_abs();
        let result: u128 = if shift >= 0 {
            pow10_u128(shift as u32).and_then(|p| mag.checked_mul(p)).unwrap_or(u128::MAX)
        } else {
            match pow10_u128((-shift) as u32) {
                Some(p) => mag.div_ceil(p),
                None => u128::from(mag != 0),
            }
        };
        saturate(self.mantissa < 0, result)
    }

    /// Compares two quantities by value.
    pub fn cmp_value(&self, other: &Quantity) -> Ordering {
        let (a, b) = (self.mantissa, other.mantissa);
        if a.signum() != b.signum() {
            return a.signum().cmp(&b.signum());
        }
        if a == 0 {
            return Ordering::Equal;
        }
        if self.wide.is_some() || other.wide.is_some() {
            let ord = cmp_digits(&self.digits(), &other.digits());
            return if a < 0 { ord.reverse() } else { ord };
        }
        // Same sign, both non-zero: compare magnitudes by aligning exponents.
        let ord = cmp_magnitude(a.unsigned_abs(), self.exp, b.unsigned_abs(), other.exp);
        if a < 0 { ord.reverse() } else { ord }
    }

    /// The canonical string (`String()`), or the cached input when Go would reuse it.
    pub fn canonical(&self) -> String {
        if let Some(s) = &self.cached {
            return s.to_string();
        }
        if self.mantissa == 0 {
            return "0".to_string();
        }
        let mut format = self.format;
        let mut binary_integer: Option<i128> = None;
        if format == Format::BinarySI {
            let small = self.cmp_value(&Quantity::from_i64(-1024)) == Ordering::Greater
                && self.cmp_value(&Quantity::from_i64(1024)) == Ordering::Less;
            if small {
                format = Format::DecimalSI;
            } else {
                match self.exact_integer() {
                    Some(v) => binary_integer = Some(v),
                    None => format = Format::DecimalSI,
                }
            }
        }
        match (format, binary_integer) {
            (Format::BinarySI, Some(mut v)) => {
                let mut n = 0;
                while v != 0 && v % 1024 == 0 {
                    v /= 1024;
                    n += 1;
                }
                const BIN: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
                format!("{v}{}", BIN.get(n).copied().unwrap_or(""))
            }
            _ => {
                let negative = self.mantissa < 0;
                let (mut digits, mut exp) = self.digits();
                while exp % 3 != 0 {
                    digits.push('0');
                    exp -= 1;
                }
                let exponent_form = || if exp == 0 { String::new() } else { format!("e{exp}") };
                let suffix = match format {
                    Format::DecimalExponent => exponent_form(),
                    _ => match exp {
                        -9 => "n".to_string(),
                        -6 => "u".to_string(),
                        -3 => "m".to_string(),
                        3 => "k".to_string(),
                        6 => "M".to_string(),
                        9 => "G".to_string(),
                        12 => "T".to_string(),
                        15 => "P".to_string(),
                        18 => "E".to_string(),
                        // No DecimalSI suffix names the exponent (past 10^18): 1.38 falls back to
                        // the decimal exponent form (#140459); before, Go finds no suffix and
                        // writes none (`CanonicalizeBytes` drops `constructBytes`' ok), losing it.
                        _ if self.exponent_past_e => exponent_form(),
                        _ => String::new(),
                    },
                };
                format!("{}{digits}{suffix}", if negative { "-" } else { "" })
            }
        }
    }

    /// The quantity after Go's `String()` ran on it: its canonical form cached in `s`, which
    /// [`Quantity::go_syntax`] then prints (a validation message that names the quantity with
    /// `q.String()` before passing `q` as the error's value, as `ValidateLimitRange` does).
    pub fn stringified(&self) -> Quantity {
        Quantity { cached: Some(self.canonical().into()), ..self.clone() }
    }

    /// The quantity as Go's `fmt.Sprintf("%#v", q)` prints it, with the struct layout of
    /// apimachinery up to 1.37 (`Quantity{i int64Amount; d infDecAmount; s string; Format}`):
    /// how kube-apiserver 1.33 renders a quantity in `Invalid value: ...` (`field.Error.ErrorBody`
    /// falls back to `%#v` for a value that is not a `fmt.Stringer`, and `Quantity.String` has a
    /// pointer receiver). `s` is the input when `ParseQuantity` kept it (already canonical),
    /// else empty. A value Go holds as an `inf.Dec` (`ParseQuantity`'s slow path, e.g. `1.5Gi`)
    /// prints the heap address of its `*inf.Dec` there, which changes from one request to the
    /// next: [`crate::go::POINTER_PLACEHOLDER`] stands in for it (`(*inf.Dec)(0xc000000000)`),
    /// and a message comparing with kube-apiserver's must mask the address.
    pub fn go_syntax(&self) -> String {
        let (value, scale, dec) = if self.dec {
            (0, 0, format!("(*inf.Dec)({})", crate::go::POINTER_PLACEHOLDER))
        } else {
            (self.mantissa as i64, self.exp, "(*inf.Dec)(nil)".to_string())
        };
        let format = match self.format {
            _ if self.zero_value => "",
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        };
        format!(
            "resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:{dec}}}, s:{}, Format:{}}}",
            crate::go::quote(self.cached.as_deref().unwrap_or("")),
            crate::go::quote(format),
        )
    }

    /// The value if it is an integer that fits in i128.
    fn exact_integer(&self) -> Option<i128> {
        if self.wide.is_some() {
            return None;
        }
        if self.exp >= 0 {
            pow10_i128(self.exp as u32).and_then(|p| self.mantissa.checked_mul(p))
        } else {
            let p = pow10_i128((-self.exp) as u32)?;
            (self.mantissa % p == 0).then(|| self.mantissa / p)
        }
    }

    /// The magnitude as significant decimal digits (no leading or trailing zeros) and the
    /// power of ten they are multiplied by; a non-zero value only.
    fn digits(&self) -> (String, i64) {
        if let Some(digits) = &self.wide {
            return (digits.to_string(), i64::from(self.exp));
        }
        let mut m = self.mantissa.unsigned_abs();
        let mut exp = i64::from(self.exp);
        while m != 0 && m.is_multiple_of(10) {
            m /= 10;
            exp += 1;
        }
        (m.to_string(), exp)
    }
}

/// Compares two non-zero magnitudes given as [`Quantity::digits`].
fn cmp_digits((a, ea): &(String, i64), (b, eb): &(String, i64)) -> Ordering {
    // The position of the leading digit first, then the digits themselves (the shorter is
    // followed by zeros).
    let (la, lb) = (a.len() as i64 + ea, b.len() as i64 + eb);
    la.cmp(&lb).then_with(|| {
        let n = a.len().max(b.len());
        let pad = |s: &str| s.bytes().chain(std::iter::repeat(b'0')).take(n).collect::<Vec<u8>>();
        pad(a).cmp(&pad(b))
    })
}

impl Default for Quantity {
    /// Go's zero `Quantity{}`, written as `"0"` (its `Format` is empty: [`Quantity::go_syntax`]).
    fn default() -> Self {
        Quantity { zero_value: true, ..Quantity::from_i64(0) }
    }
}

impl PartialEq for Quantity {
    /// Semantic equality, as `apiequality.Semantic.DeepEqual` compares quantities.
    fn eq(&self, other: &Self) -> bool {
        self.cmp_value(other) == Ordering::Equal
    }
}

impl fmt::Debug for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Quantity({})", self.canonical())
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl std::str::FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.canonical())
    }
}

// === scanning ===

struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`: splits sign, numerator (leading zeros stripped), denominator, suffix.
fn scan(s: &str) -> Result<Parts<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    // strip leading zeros
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts { positive, num: "0", denom: "", suffix: "" });
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &s[num_start..pos];
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let d_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d_start..pos];
        if pos >= end {
            return Ok(Parts { positive, num, denom, suffix: "" });
        }
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::FormatWrong);
    }
    Ok(Parts { positive, num, denom, suffix: &s[suffix_start..] })
}

/// Whether `release`'s `suffixHandler.interpret` refuses a decimal exponent outside
/// [-MaxInt32, MaxInt32] (1.38, #141203), rather than narrowing it with `int32()`, wrapping
/// (1.33–1.37).
pub fn rejects_exponent_past_int32(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_38
}

/// Whether `release`'s `CanonicalizeBytes` writes a DecimalSI value past the `E` suffix in its
/// decimal exponent form (1.38, #140459: `1000E` is `1e21`), rather than dropping the exponent
/// (1.33–1.37: `1000E` is `1`).
pub fn writes_exponent_past_e(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_38
}

/// `suffixHandler.interpret` of `release`: (base, exponent, format).
fn interpret_suffix(suffix: &str, release: KubernetesVersion) -> Option<(u32, i32, Format)> {
    let dec = match suffix {
        "" => Some(0),
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, Format::DecimalSI));
    }
    let bin = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, Format::BinarySI));
    }
    if suffix.len() > 1 && (suffix.starts_with('e') || suffix.starts_with('E')) {
        let parsed: i64 = go_parse_int(&suffix[1..])?;
        if rejects_exponent_past_int32(release) && !(-i64::from(i32::MAX)..=i64::from(i32::MAX)).contains(&parsed) {
            return None;
        }
        // Before 1.38 Go converts with int32(parsed), wrapping.
        return Some((10, parsed as i32, Format::DecimalExponent));
    }
    None
}

/// `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, no spaces.
fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

// === arithmetic helpers ===

/// A magnitude with a sign, saturated at `MinInt64` or `MaxInt64` (the sign-correct rail of
/// 1.38's `AsScaledInt64`).
fn saturate(negative: bool, magnitude: u128) -> i64 {
    if negative {
        if magnitude >= 1u128 << 63 { i64::MIN } else { -(magnitude as i64) }
    } else {
        magnitude.min(i64::MAX as u128) as i64
    }
}

/// The low 64 bits of a decimal number (its digits), as `big.Int.Int64()` gives them.
fn low_bits(digits: &str) -> i64 {
    digits.bytes().fold(0i64, |acc, d| acc.wrapping_mul(10).wrapping_add(i64::from(d - b'0')))
}

/// 10^k modulo 2^64 (0 from k = 64 on: 2^k divides it), for k ≥ 0.
fn wrapping_pow10(k: i64) -> i64 {
    if k >= 64 {
        return 0;
    }
    (0..k).fold(1i64, |acc, _| acc.wrapping_mul(10))
}

/// `int64MultiplyScale(a, b)` (b > 1): the product, wrapped when it overflows, and whether it
/// fits; `MinInt64` gives (0, false).
fn int64_multiply_scale(a: i64, b: i64) -> (i64, bool) {
    if a == 0 || a == 1 {
        return (a * b, true);
    }
    if a == i64::MIN {
        return (0, false);
    }
    let c = a.wrapping_mul(b);
    (c, c / b == a)
}

/// `positiveScaleInt64` before 1.38 (its `ok` dropped, as `ScaledValue` drops it): base ×
/// 10^scale. A negative scale (the `int32` difference wrapped) runs the loop zero times.
fn positive_scale_int64(base: i64, scale: i32) -> i64 {
    match scale {
        0 => base,
        1 | 2 | 3 | 6 | 9 => int64_multiply_scale(base, 10i64.pow(scale as u32)).0,
        _ => {
            let mut value = base;
            for _ in 0..scale.max(0) {
                let (c, ok) = int64_multiply_scale(value, 10);
                if !ok {
                    return 0;
                }
                value = c;
            }
            value
        }
    }
}

/// `negativeScaleInt64`: base / 10^scale (scale > 0), rounded away from zero.
fn negative_scale_int64(base: i64, scale: i32) -> i64 {
    let mut value = base;
    let mut fraction = false;
    for _ in 0..scale {
        fraction |= value % 10 != 0;
        value /= 10;
        if value == 0 {
            return if !fraction {
                0
            } else if base > 0 {
                1
            } else {
                -1
            };
        }
    }
    if fraction { value + base.signum() } else { value }
}

fn pow10_i128(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

fn pow10_u128(n: u32) -> Option<u128> {
    10u128.checked_pow(n)
}

fn cmp_magnitude(a: u128, ea: i32, b: u128, eb: i32) -> Ordering {
    // Compare a×10^ea with b×10^eb without overflow: scale the one with the larger exponent.
    if ea == eb {
        return a.cmp(&b);
    }
    if ea > eb {
        match pow10_u128((ea - eb) as u32).and_then(|p| a.checked_mul(p)) {
            Some(x) => x.cmp(&b),
            None => Ordering::Greater,
        }
    } else {
        match pow10_u128((eb - ea) as u32).and_then(|p| b.checked_mul(p)) {
            Some(y) => a.cmp(&y),
            None => Ordering::Less,
        }
    }
}

/// What [`Big::into_parts`] gives.
enum Parts128 {
    /// A mantissa that fits `i128`, and its exponent.
    Small(i128, i32),
    /// Significant digits beyond `i128` (no leading or trailing zeros), and their exponent.
    Wide(Box<str>, i32),
}

/// A non-negative integer of arbitrary digit count, just big enough for the slow parse path.
struct Big(Vec<u8>); // decimal digits, most significant first, no leading zeros (empty = 0)

impl Big {
    fn from_digits(digits: &str) -> Result<Big, QuantityError> {
        if !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(QuantityError::Numeric);
        }
        Ok(Big(digits.trim_start_matches('0').bytes().map(|c| c - b'0').collect()))
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// × 2^n
    fn shl(mut self, n: i32) -> Result<Big, QuantityError> {
        for _ in 0..n.max(0) {
            let mut carry = 0u8;
            for d in self.0.iter_mut().rev() {
                let v = *d * 2 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                self.0.insert(0, carry);
            }
        }
        Ok(self)
    }

    /// Rounds self×10^exp up (away from zero) to a multiple of 10^target.
    fn round_up_to(mut self, exp: i32, target: i32) -> Big {
        if exp >= target {
            return self;
        }
        let drop = (target - exp) as usize;
        let inexact;
        if drop >= self.0.len() {
            inexact = !self.is_zero();
            self.0.clear();
        } else {
            let keep = self.0.len() - drop;
            inexact = self.0[keep..].iter().any(|&d| d != 0);
            self.0.truncate(keep);
        }
        if inexact {
            // add one unit at the new last position
            let mut i = self.0.len();
            loop {
                if i == 0 {
                    self.0.insert(0, 1);
                    break;
                }
                i -= 1;
                if self.0[i] == 9 {
                    self.0[i] = 0;
                } else {
                    self.0[i] += 1;
                    break;
                }
            }
        }
        self
    }

    /// (mantissa, exponent) after the rounding above, with the exponent at least `NANO`: an
    /// `i128` when the significant digits fit one, else the digits.
    fn into_parts(self, exp: i32) -> Parts128 {
        let exp = exp.max(NANO);
        let mut digits = self.0;
        let mut exp = exp;
        // Strip trailing zeros if the number is too long for i128.
        while digits.len() > 38 && digits.last() == Some(&0) {
            digits.pop();
            exp = exp.saturating_add(1);
        }
        if digits.len() > 38 {
            return Parts128::Wide(digits.iter().map(|d| char::from(b'0' + d)).collect(), exp);
        }
        // At most 38 digits: below i128::MAX (about 1.7 × 10^38).
        let m = digits.into_iter().fold(0i128, |m, d| m * 10 + i128::from(d));
        Parts128::Small(m, exp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        Quantity::parse(s).unwrap().canonical()
    }

    #[test]
    fn go_syntax_is_the_struct_fmt_prints() {
        let dump = |s: &str| Quantity::parse(s).unwrap().go_syntax();
        // Canonical input: ParseQuantity keeps the string in `s`.
        assert_eq!(
            dump("-300m"),
            r#"resource.Quantity{i:resource.int64Amount{value:-300, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-300m", Format:"DecimalSI"}"#
        );
        // Not canonical (scale -1): `s` stays empty.
        assert_eq!(
            dump("-0.05"),
            r#"resource.Quantity{i:resource.int64Amount{value:-5, scale:-2}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}"#
        );
        assert_eq!(
            dump("0"),
            r#"resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"0", Format:"DecimalSI"}"#
        );
        assert_eq!(
            dump("-1Ki"),
            r#"resource.Quantity{i:resource.int64Amount{value:-1024, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1Ki", Format:"BinarySI"}"#
        );
        assert_eq!(
            dump("-2e3"),
            r#"resource.Quantity{i:resource.int64Amount{value:-2, scale:3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-2e3", Format:"DecimalExponent"}"#
        );
        // The slow path (a fraction of a binary unit): an inf.Dec.
        assert_eq!(
            dump("-1.5Gi"),
            r#"resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}, s:"", Format:"BinarySI"}"#
        );
        // Go prints a live heap address there; the placeholder stands in for it.
        assert!(dump("1.5Gi").contains(&format!("(*inf.Dec)({})", crate::go::POINTER_PLACEHOLDER)));
        // Go's zero `Quantity{}` (a v1 Object metric's `targetValue` left out) has an empty
        // Format, unlike `NewQuantity(0, DecimalSI)`; both are written "0".
        assert_eq!(
            Quantity::default().go_syntax(),
            r#"resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:""}"#
        );
        assert!(Quantity::from_i64(0).go_syntax().ends_with(r#"s:"", Format:"DecimalSI"}"#));
        assert_eq!(Quantity::default().canonical(), "0");
        assert!(Quantity::default().stringified().go_syntax().ends_with(r#"s:"0", Format:""}"#));
    }

    #[test]
    fn canonical_forms_match_apimachinery() {
        assert_eq!(canon("-0.001"), "-1m");
        assert_eq!(canon("0.1"), "100m");
        assert_eq!(canon("1000"), "1k");
        assert_eq!(canon("1500"), "1500");
        assert_eq!(canon("300m"), "300m");
        assert_eq!(canon("0"), "0");
        assert_eq!(canon("00"), "0");
        assert_eq!(canon("1Ki"), "1Ki");
        assert_eq!(canon("1024Ki"), "1Mi");
        assert_eq!(canon("1.5Gi"), "1536Mi");
        assert_eq!(canon("0.5Ki"), "512");
        assert_eq!(canon("1e3"), "1e3");
        assert_eq!(canon("1E3"), "1E3");
        assert_eq!(canon("1.5e3"), "1500");
        assert_eq!(canon("12e6"), "12e6");
        assert_eq!(canon("100e-3"), "100e-3");
        assert_eq!(canon("0.0000000001"), "1n");
        assert_eq!(canon("1.0000000001"), "1000000001n");
        assert_eq!(canon("123456789012345678901234"), "123456789012345678901234");
        assert_eq!(canon("1.5"), "1500m");
        assert_eq!(canon("1M"), "1M");
        assert_eq!(canon("1000M"), "1G");
        assert_eq!(canon("-1"), "-1");
        assert_eq!(canon("10m"), "10m");
        assert_eq!(canon(".5"), "500m");
        assert_eq!(canon("-"), "0");
        assert_eq!(canon("."), "0");
        // No DecimalSI suffix names 10^39, and Go's constructBytes then writes none: 5×10^41
        // is written "500" (found by fuzz/fuzz_targets/annotations.rs); an exponent form keeps it.
        assert_eq!(canon("0500000000000000000000000000000000000000000"), "500");
        assert_eq!(canon("5e41"), "500e39");
    }

    #[test]
    fn go_reuses_canonical_looking_input() {
        // ParseQuantity caches the input string when it already looks canonical.
        assert_eq!(canon("+1k"), "+1k");
        assert_eq!(canon("01k"), "01k");
        assert_eq!(canon("1.500"), "1.500");
    }

    #[test]
    fn parse_errors_match_apimachinery() {
        assert_eq!(Quantity::parse(""), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse("abc"), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse("1.2.3"), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse("1ki"), Err(QuantityError::Suffix));
        assert_eq!(Quantity::parse("1e"), Err(QuantityError::Suffix));
        assert_eq!(Quantity::parse("1m5"), Err(QuantityError::Suffix));
        assert_eq!(Quantity::parse("1 "), Err(QuantityError::FormatWrong));
        assert_eq!(Quantity::parse("ten"), Err(QuantityError::FormatWrong));
    }

    /// #140459: a DecimalSI value past the `E` suffix is written in its decimal exponent form
    /// from 1.38 (`1000E` is `1e21`); 1.33–1.37 write the digits alone (`1000E` is `1`).
    #[test]
    fn a_decimal_si_value_past_e_keeps_its_exponent_from_1_38() {
        use KubernetesVersion::{V1_33, V1_37, V1_38};
        let canonical = |s: &str, r| Quantity::parse_in(s, r).map(|q| q.canonical());
        for (input, before, from_1_38) in [
            ("1000E", "1", "1e21"),
            ("-5000E", "-5", "-5e21"),
            ("1000000E", "1", "1e24"),
            ("1000000000000000000000", "1", "1e21"),
            ("0500000000000000000000000000000000000000000", "500", "500e39"),
            // Within the suffixes, or kept as written: every release alike.
            ("1500E", "1500E", "1500E"),
            ("100E", "100E", "100E"),
            ("1234E", "1234E", "1234E"),
            // DecimalExponent already wrote its exponent.
            ("1e21", "1e21", "1e21"),
        ] {
            assert_eq!(canonical(input, V1_33).as_deref(), Ok(before), "{input} in 1.33");
            assert_eq!(canonical(input, V1_37).as_deref(), Ok(before), "{input} in 1.37");
            assert_eq!(canonical(input, V1_38).as_deref(), Ok(from_1_38), "{input} in 1.38");
        }
        // The value is the same: only its text differs.
        assert_eq!(Quantity::parse_in("1000E", V1_37), Quantity::parse_in("1000E", V1_38));
    }

    /// #141203: 1.38 refuses a decimal exponent outside ±MaxInt32 (`ErrSuffix`); before, Go
    /// narrows it with `int32()`, so `1e4294967297` (2^32 + 1) is `1e1`.
    #[test]
    fn an_exponent_past_int32_wraps_before_1_38_and_is_refused_from_1_38() {
        use KubernetesVersion::{V1_37, V1_38};
        let parse = |s: &str, r| Quantity::parse_in(s, r).map(|q| q.canonical());
        assert_eq!(parse("1e4294967297", V1_37), Ok("10".to_string()));
        assert_eq!(parse("1e4294967297", V1_38), Err(QuantityError::Suffix));
        assert_eq!(parse("5E-4294967293", V1_38), Err(QuantityError::Suffix));
        // -4294967293 narrows to 3: 5000, written back as the input (canonical as Go sees it).
        assert_eq!(parse("5E-4294967293", V1_37), Ok("5E-4294967293".to_string()));
        assert_eq!(Quantity::parse_in("5E-4294967293", V1_37).map(|q| q.value()), Ok(5000));
        // The bounds: ±MaxInt32 parse in both; MinInt32 only before 1.38.
        assert_eq!(parse("1e2147483647", V1_38), parse("1e2147483647", V1_37));
        assert!(parse("1e2147483647", V1_38).is_ok());
        assert!(parse("1e-2147483647", V1_38).is_ok());
        assert_eq!(parse("1e2147483648", V1_38), Err(QuantityError::Suffix));
        assert_eq!(parse("1e-2147483648", V1_38), Err(QuantityError::Suffix));
        assert!(parse("1e-2147483648", V1_37).is_ok());
        // Past int64 the exponent is refused in every release (`strconv.ParseInt`).
        assert_eq!(parse("1e9223372036854775808", V1_37), Err(QuantityError::Suffix));
        // The newest generally available release is the default.
        assert_eq!(Quantity::parse("1e4294967297").map(|q| q.canonical()), Ok("10".to_string()));
    }

    /// `MilliValue` past int64, 1.33–1.37 against 1.38 (#141305): the values apimachinery's own
    /// overflow tests pin before the fix (the #141170 baseline) and after it.
    #[test]
    fn milli_value_past_int64_wraps_before_1_38_and_saturates_from_1_38() {
        const MAX: i64 = i64::MAX;
        const MIN: i64 = i64::MIN;
        let q = |s: &str| Quantity::parse(s).unwrap();
        let cases: [(Quantity, i64, i64); 23] = [
            // (quantity, 1.33–1.37, 1.38)
            (q("9223372036854775807"), -1000, MAX),
            (Quantity::from_i64(MAX), -1000, MAX),
            (Quantity::from_i64(MIN), 0, MIN),
            (q("1E"), 0, MAX),
            (q("8Ei"), -1000, MAX),
            (q("-8Ei"), 1000, MIN),
            (q("20Ei"), -1000, MAX),
            (q("-20Ei"), 1000, MIN),
            (q("9223372036854775808"), 0, MAX),
            (q("18446744073709551616"), 0, MAX),
            (q("100E"), 0, MAX),
            (q("1000E"), 0, MAX),
            (q("5000E"), 0, MAX),
            (q("1e100"), 0, MAX),
            (q("-9223372036854775808"), 0, MIN),
            (q("-9223372036854775807"), 1000, MIN),
            (q("-1e30"), 0, MIN),
            (q("-100E"), 0, MIN),
            (q("-1000E"), 0, MIN),
            (q("-9.5Gi"), -10200547328000, -10200547328000),
            (q("-9.5000000001Gi"), -10200547328108, -10200547328108),
            (Quantity::from_milli(MAX), MAX, MAX),
            (Quantity::from_milli(MIN), MIN, MIN),
        ];
        for (quantity, before, from_1_38) in &cases {
            assert_eq!(quantity.wrapping_milli_value(), *before, "{quantity} before 1.38");
            assert_eq!(quantity.milli_value(), *from_1_38, "{quantity} from 1.38");
        }
        // int64Amount scaled by 10^3: the product wraps; 1e16 m is 10^19 mod 2^64.
        assert_eq!(q("10000000000000000").wrapping_milli_value(), -8446744073709551616);
        // A scale the int32 arithmetic wraps negative: no loop, the value itself.
        assert_eq!(q("1e2147483647").wrapping_milli_value(), 1);
        // More than 38 digits (past i128): the low 64 bits of the exact milli value.
        let d43 = "1234567890123456789012345678901234567890123";
        assert_eq!(q(d43).wrapping_milli_value(), 6454463733230778616);
        assert_eq!(q(&format!("-{d43}")).wrapping_milli_value(), -6454463733230778616);
        // In range, the two agree.
        for s in ["500m", "1.5", "2Gi", "1.5Gi", "0.0001Ki", "1n", "-300m", "0"] {
            assert_eq!(q(s).wrapping_milli_value(), q(s).milli_value(), "{s}");
        }
        // Value() saturates at the sign-correct rail from 1.38.
        assert_eq!(q("-8Ei").value(), -MAX);
        assert_eq!(q("-9223372036854775808").value(), MIN);
        assert_eq!(q("-1e30").value(), MIN);
    }

    #[test]
    fn values_and_signs() {
        let q = Quantity::parse("1500m").unwrap();
        assert_eq!(q.milli_value(), 1500);
        assert_eq!(q.value(), 2);
        assert_eq!(Quantity::parse("-300m").unwrap().sign(), -1);
        assert_eq!(Quantity::parse("0").unwrap().sign(), 0);
        assert_eq!(Quantity::parse("2Gi").unwrap().value(), 2 * 1024 * 1024 * 1024);
        assert_eq!(Quantity::parse("100m").unwrap().as_approximate_f64(), 100.0 * 0.001);
        assert_eq!(Quantity::parse("0.5").unwrap().as_approximate_f64(), 0.5);
        assert!(Quantity::parse("0.1").unwrap() == Quantity::parse("100m").unwrap());
    }

    /// Go's `inf.Dec` has no size limit: numbers of any length parse (the slow path), digits
    /// past nano round up, BinarySI caps at MaxInt64 (`maxAllowed`), DecimalSI and
    /// DecimalExponent stay exact.
    #[test]
    fn any_number_of_digits_parses_as_go_parses_it() {
        let d43 = "1234567890123456789012345678901234567890123";
        assert_eq!(canon(d43), d43);
        assert_eq!(canon(&format!("-{d43}")), format!("-{d43}"));
        assert_eq!(canon(&format!("{d43}e3")), format!("{d43}e3"));
        assert_eq!(canon(&format!("{d43}000k")), format!("{d43}M"));
        // Past nano: rounded up, away from zero.
        assert_eq!(canon(&format!("{d43}.0000000001")), format!("{d43}000000001n"));
        assert_eq!(canon(&format!("-{d43}.0000000001")), format!("-{d43}000000001n"));
        // BinarySI of any length: capped.
        let brief = "123456789012345678901234567890123456789012345678901234567890Ei";
        assert_eq!(canon(brief), "9223372036854775807");
        assert_eq!(canon(&format!("{}Ki", "9".repeat(5000))), "9223372036854775807");
        assert_eq!(canon(&format!("0.{}1Ki", "0".repeat(60))), "1n");
        // Values, comparisons and floats.
        let q = Quantity::parse(d43).unwrap();
        assert_eq!((q.sign(), q.is_zero()), (1, false));
        assert_eq!((q.milli_value(), q.value()), (i64::MAX, i64::MAX));
        assert_eq!(Quantity::parse(&format!("-{d43}")).unwrap().milli_value(), i64::MIN);
        assert_eq!(q.scaled_value(30), 1_234_567_890_124, "rounded up");
        assert_eq!(q.scaled_value(60), 1);
        let expected: f64 = format!("{d43}e9").parse::<f64>().unwrap() * crate::go::pow10(-9);
        assert_eq!(q.as_approximate_f64(), expected);
        assert!((q.as_approximate_f64() / 1.234_567_890_123_456_8e42 - 1.0).abs() < 1e-15);
        let bigger = Quantity::parse(&format!("{d43}.0000000001")).unwrap();
        assert_eq!(q.cmp_value(&bigger), Ordering::Less);
        assert_eq!(bigger.cmp_value(&q), Ordering::Greater);
        assert_eq!(q.cmp_value(&Quantity::parse(&format!("{d43}000m")).unwrap()), Ordering::Equal);
        assert_eq!(q.cmp_value(&Quantity::parse("1e42").unwrap()), Ordering::Greater);
        assert_eq!(q.cmp_value(&Quantity::parse("2e42").unwrap()), Ordering::Less);
        assert_eq!(q.cmp_value(&Quantity::from_i64(i64::MAX)), Ordering::Greater);
        let negative = Quantity::parse(&format!("-{d43}")).unwrap();
        assert_eq!(negative.cmp_value(&Quantity::from_i64(-1)), Ordering::Less);
        assert_eq!(negative.cmp_value(&q), Ordering::Less);
        assert!(q == Quantity::parse(&format!("{d43}.0")).unwrap());
    }

    #[test]
    fn binary_cap_and_small_binary() {
        assert_eq!(canon("100000000000000000000Ei"), "9223372036854775807");
        assert_eq!(canon("0.0001Ki"), "102400u");
    }

    /// `AsScale`'s exactness, as the VPA admission controller asks it of cpu (milli) and memory
    /// (units): trailing zeros of the mantissa, binary suffixes and exponents count.
    #[test]
    fn whole_at_scale_as_as_scale_says() {
        let whole = |s: &str, scale: i32| Quantity::parse(s).unwrap().is_whole_at_scale(scale);
        for (q, milli) in
            [("100m", true), ("0.0001", false), ("1.5", true), ("0.1m", false), ("2", true), ("1e-3", true)]
        {
            assert_eq!(whole(q, -3), milli, "{q} at milli");
        }
        for (q, units) in
            [("0.5", false), ("1.0", true), ("1500m", false), ("2000m", true), ("0.5Ki", true), ("0.3Ki", false)]
        {
            assert_eq!(whole(q, 0), units, "{q} at units");
        }
        assert!(whole("123456789012345678901234567890123456789012", 0));
        assert!(!whole("1234567890123456789012345678901234567890.5", 0));
    }
}
