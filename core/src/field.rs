//! Field paths and field errors, rendered exactly as apimachinery's `field` package renders them.
//!
//! Mirrors `k8s.io/apimachinery/pkg/util/validation/field` (`path.go`, `errors.go`) and the
//! aggregate/`NewInvalid` rendering of `pkg/api/errors`.

use std::fmt;

use crate::api::{Quantity, Time};
use crate::features::KubernetesVersion;
use crate::go;

/// A field path under construction: a borrowed chain, so that validating a valid object
/// allocates nothing. Rendered only when an error is recorded.
#[derive(Debug, Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Segment<'a> {
    Field(&'a str),
    Index(usize),
    Key(&'a str),
}

impl<'a> Path<'a> {
    /// A root path such as `spec` or `metadata`.
    pub const fn new(name: &'a str) -> Self {
        Path { parent: None, segment: Segment::Field(name) }
    }

    /// `self.name`
    pub fn child(&'a self, name: &'a str) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Field(name) }
    }

    /// `self[index]`
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Index(index) }
    }

    /// `self[key]` (map keys, rendered without quotes as Go does)
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Key(key) }
    }

    /// The rendered path, e.g. `spec.metrics[0].resource.target`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.render_into(out);
        }
        match self.segment {
            Segment::Field(name) => {
                if self.parent.is_some() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Segment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
            Segment::Key(k) => {
                out.push('[');
                out.push_str(k);
                out.push(']');
            }
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// The type of a field error; its `reason()` is the Status cause reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorType {
    /// `FieldValueNotFound`
    NotFound,
    /// `FieldValueRequired`
    Required,
    /// `FieldValueDuplicate`
    Duplicate,
    /// `FieldValueInvalid`
    Invalid,
    /// `FieldValueNotSupported`
    NotSupported,
    /// `FieldValueForbidden`
    Forbidden,
    /// `FieldValueTooLong`
    TooLong,
    /// `FieldValueTooMany`
    TooMany,
    /// `InternalError`
    Internal,
    /// `FieldValueTypeInvalid`
    TypeInvalid,
}

impl ErrorType {
    /// The machine-readable reason, as it appears in a Status cause.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The human header, e.g. `Invalid value`.
    pub fn header(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }
}

/// How kube-apiserver prints the offending value in `Invalid value: X`
/// (`field.Error.ErrorBody` in `k8s.io/apimachinery/pkg/util/validation/field/errors.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueRendering {
    /// Kubernetes 1.34 and later (#132314): Go `string`s with `%q`, integers and bools plainly,
    /// anything else as its JSON (named string types quoted, a quantity as `"-300m"`).
    #[default]
    Json,
    /// Kubernetes 1.33: pointers dereferenced (`nil` becomes the string `"null"`), Go `string`s
    /// with `%q`, integers and bools plainly, a `fmt.Stringer` by its `String()` (unquoted),
    /// anything else with `%#v` (a named string type quoted, a quantity as a Go struct dump).
    GoReflect,
}

impl ValueRendering {
    /// The rendering of a release.
    pub fn of(version: KubernetesVersion) -> Self {
        if version <= KubernetesVersion::V1_33 { ValueRendering::GoReflect } else { ValueRendering::Json }
    }
}

/// The offending value of a field error, remembering its Go type, which decides how each
/// release prints it (see [`ValueRendering`]).
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// No value (Required, Forbidden, TooLong, or an omitted value).
    Omitted,
    /// A Go integer (`int32`, `int64`, or a dereferenced pointer to one): printed plainly.
    Int(i64),
    /// A Go `bool`.
    Bool(bool),
    /// A Go `string`: printed with `%q`.
    Str(String),
    /// A Go `string` that is not valid UTF-8 (a generated name whose 58-byte prefix was cut
    /// inside a character): printed with `%q` in every release, an invalid byte as `\xNN`
    /// (`case string:` of `ErrorBody`, before and after #132314).
    Bytes(Vec<u8>),
    /// A value of a named Go string type without a `String()` method (`MetricSourceType`,
    /// `types.UID`, ...): JSON-quoted from 1.34, `%#v` (Go-quoted) before.
    Named(String),
    /// A value of a named Go string type with a `String()` method (`core.ResourceName`):
    /// JSON-quoted from 1.34, bare before.
    Stringer(String),
    /// A `resource.Quantity` (or a pointer to one): `"-300m"` from 1.34, a struct dump before.
    Quantity(Quantity),
    /// A `metav1.Time`: its JSON (`"2024-01-02T03:04:05Z"`, `null` for the zero time) from 1.34,
    /// `time.Time.String()` (`2024-01-02 03:04:05 +0000 UTC`) before.
    Time(Time),
    /// A nil pointer: `null` from 1.34, the Go string `"null"` before.
    Null,
    /// Any other composite value (a struct, a list), in both renderings.
    Composite {
        /// Its JSON encoding (1.34 and later).
        json: String,
        /// Go's `%#v` of it (1.33).
        go_syntax: String,
    },
}

impl BadValue {
    /// A value of a named Go string type (`MetricSourceType`, `ScalingPolicySelect`, ...).
    pub fn named(s: &str) -> Self {
        BadValue::Named(s.to_string())
    }

    /// The value as kube-apiserver 1.34 and later prints it in a message.
    pub fn render(&self) -> String {
        self.render_as(ValueRendering::Json)
    }

    /// The value as a given release prints it in a message.
    pub fn render_as(&self, rendering: ValueRendering) -> String {
        let reflect = rendering == ValueRendering::GoReflect;
        match self {
            BadValue::Omitted => String::new(),
            BadValue::Int(i) => i.to_string(),
            BadValue::Bool(b) => b.to_string(),
            BadValue::Str(s) => go::quote(s),
            BadValue::Bytes(b) => go::quote_bytes(b),
            BadValue::Named(s) if reflect => go::quote(s),
            BadValue::Stringer(s) if reflect => s.clone(),
            BadValue::Named(s) | BadValue::Stringer(s) => go::json_string(s),
            BadValue::Quantity(q) if reflect => q.go_syntax(),
            BadValue::Quantity(q) => go::json_string(&q.canonical()),
            BadValue::Time(t) if reflect => t.go_string(),
            BadValue::Time(t) if t.is_zero() => "null".to_string(),
            BadValue::Time(t) => go::json_string(&t.to_rfc3339()),
            BadValue::Null if reflect => go::quote("null"),
            BadValue::Null => "null".to_string(),
            BadValue::Composite { go_syntax, .. } if reflect => go_syntax.clone(),
            BadValue::Composite { json, .. } => json.clone(),
        }
    }

    /// The value as plain JSON, for machine-readable output.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            BadValue::Omitted | BadValue::Null => serde_json::Value::Null,
            BadValue::Int(i) => serde_json::Value::from(*i),
            BadValue::Bool(b) => serde_json::Value::Bool(*b),
            BadValue::Str(s) | BadValue::Named(s) | BadValue::Stringer(s) => serde_json::Value::String(s.clone()),
            BadValue::Bytes(b) => serde_json::Value::String(go::lossy(b)),
            BadValue::Quantity(q) => serde_json::Value::String(q.canonical()),
            BadValue::Time(t) if t.is_zero() => serde_json::Value::Null,
            BadValue::Time(t) => serde_json::Value::String(t.to_rfc3339()),
            BadValue::Composite { json, .. } => serde_json::from_str(json).unwrap_or(serde_json::Value::Null),
        }
    }
}

/// One validation error, as in `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The error type.
    pub kind: ErrorType,
    /// The rendered field path.
    pub field: String,
    /// The offending value.
    pub value: BadValue,
    /// The detail message (may be empty).
    pub detail: String,
    /// The validation origin (e.g. `minimum`), used to match declarative errors.
    pub origin: Option<&'static str>,
    /// Whether a declarative rule covers this hand-written error.
    pub covered_by_declarative: bool,
    /// How the value is printed: the release's rendering, set by the admission pipeline.
    pub rendering: ValueRendering,
}

// The constructors are `#[cold]`: validation runs them only for what it refuses, and every
// object of a run goes through their callers; out of line, their code (and the arguments built
// for them) stays off the path that valid objects take (bench/lint/instructions.sh).
impl FieldError {
    #[cold]
    fn new(kind: ErrorType, path: &Path<'_>, value: BadValue, detail: impl Into<String>) -> Self {
        FieldError {
            kind,
            field: path.render(),
            value,
            detail: detail.into(),
            origin: None,
            covered_by_declarative: false,
            rendering: ValueRendering::Json,
        }
    }

    /// `field.Required`
    #[cold]
    pub fn required(path: &Path<'_>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, path, BadValue::Omitted, detail)
    }

    /// `field.Invalid`
    #[cold]
    pub fn invalid(path: &Path<'_>, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, path, value, detail)
    }

    /// `field.Duplicate`
    #[cold]
    pub fn duplicate(path: &Path<'_>, value: BadValue) -> Self {
        Self::new(ErrorType::Duplicate, path, value, "")
    }

    /// `field.Forbidden`
    #[cold]
    pub fn forbidden(path: &Path<'_>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, path, BadValue::Omitted, detail)
    }

    /// `field.NotSupported`: the detail lists the quoted valid values.
    #[cold]
    pub fn not_supported(path: &Path<'_>, value: BadValue, valid: &[&str]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go::quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, path, value, detail)
    }

    /// `field.TooLong` with a byte limit.
    #[cold]
    pub fn too_long(path: &Path<'_>, max_bytes: usize) -> Self {
        Self::new(ErrorType::TooLong, path, BadValue::Omitted, format!("may not be more than {max_bytes} bytes"))
    }

    /// `field.TooMany` with a known count and limit (`Too many: 2: must have at most 1 items`).
    #[cold]
    pub fn too_many(path: &Path<'_>, actual: usize, max: usize) -> Self {
        let actual = i64::try_from(actual).unwrap_or(i64::MAX);
        Self::new(ErrorType::TooMany, path, BadValue::Int(actual), format!("must have at most {max} items"))
    }

    /// Sets the origin (`WithOrigin`).
    pub fn with_origin(mut self, origin: &'static str) -> Self {
        self.origin = Some(origin);
        self
    }

    /// Marks the error as covered by a declarative rule (`MarkCoveredByDeclarative`).
    pub fn covered_by_declarative(mut self) -> Self {
        self.covered_by_declarative = true;
        self
    }

    /// The message without the field prefix (`ErrorBody`), e.g. `Invalid value: 0: must be ...`.
    pub fn body(&self) -> String {
        let mut s = String::from(self.kind.header());
        let shows_value =
            !matches!(self.kind, ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal)
                && self.value != BadValue::Omitted;
        if shows_value {
            s.push_str(": ");
            s.push_str(&self.value.render_as(self.rendering));
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

impl std::error::Error for FieldError {}

/// An ordered list of field errors (`field.ErrorList`); duplicates are kept.
pub type ErrorList = Vec<FieldError>;

/// The aggregate message of an error list (`ToAggregate().Error()`): exact duplicates are removed,
/// one error is shown bare, several are bracketed and comma-separated.
pub fn aggregate_message(errors: &[FieldError]) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut msgs: Vec<String> = Vec::new();
    for e in errors {
        let m = e.to_string();
        if seen.insert(m.clone()) {
            msgs.push(m);
        }
    }
    match msgs.len() {
        0 => String::new(),
        1 => msgs.swap_remove(0),
        _ => format!("[{}]", msgs.join(", ")),
    }
}

/// The message of the 422 `Invalid` status kube-apiserver returns
/// (`errors.NewInvalid(kind, name, errs)`).
pub fn invalid_message(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> String {
    invalid_message_bytes(kind, group, name.as_bytes(), errors)
}

/// [`invalid_message`] for a name that need not be valid UTF-8 (`%q` writes an invalid byte
/// as `\xNN`).
pub fn invalid_message_bytes(kind: &str, group: &str, name: &[u8], errors: &[FieldError]) -> String {
    let qualified = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
    format!("{qualified} {} is invalid: {}", go::quote_bytes(name), aggregate_message(errors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_go() {
        let spec = Path::new("spec");
        let metrics = spec.child("metrics");
        let m0 = metrics.index(0);
        let target = m0.child("resource");
        assert_eq!(target.render(), "spec.metrics[0].resource");
        let meta = Path::new("metadata");
        let ann = meta.child("annotations");
        assert_eq!(ann.key("a/b").render(), "metadata.annotations[a/b]");
    }

    #[test]
    fn bodies_render_like_go() {
        let p = Path::new("spec");
        let max = p.child("maxReplicas");
        let e = FieldError::invalid(&max, BadValue::Int(0), "must be greater than 0");
        assert_eq!(e.to_string(), "spec.maxReplicas: Invalid value: 0: must be greater than 0");
        let kind = p.child("kind");
        assert_eq!(FieldError::required(&kind, "").to_string(), "spec.kind: Required value");
        let sel = p.child("selectPolicy");
        let e = FieldError::not_supported(&sel, BadValue::named("x"), &["Disabled", "Max", "Min"]);
        assert_eq!(
            e.to_string(),
            "spec.selectPolicy: Unsupported value: \"x\": supported values: \"Disabled\", \"Max\", \"Min\""
        );
        let ann = p.child("annotations");
        assert_eq!(
            FieldError::too_long(&ann, 262144).to_string(),
            "spec.annotations: Too long: may not be more than 262144 bytes"
        );
    }

    #[test]
    fn values_render_per_release() {
        let both = |v: &BadValue| (v.render_as(ValueRendering::GoReflect), v.render_as(ValueRendering::Json));
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(both(&BadValue::Int(-1)), s("-1", "-1"));
        assert_eq!(both(&BadValue::Str("a<b".into())), s("\"a<b\"", "\"a<b\""));
        assert_eq!(both(&BadValue::named("Foo<")), s("\"Foo<\"", "\"Foo\\u003c\""));
        assert_eq!(both(&BadValue::Stringer("InvalidResource".into())), s("InvalidResource", "\"InvalidResource\""));
        assert_eq!(
            both(&BadValue::Quantity(Quantity::parse("-300m").unwrap())),
            s(
                "resource.Quantity{i:resource.int64Amount{value:-300, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-300m\", Format:\"DecimalSI\"}",
                "\"-300m\""
            )
        );
        assert_eq!(both(&BadValue::Null), s("\"null\"", "null"));
        let t = Time::parse_rfc3339("2024-01-02T03:04:05Z").unwrap();
        assert_eq!(both(&BadValue::Time(t)), s("2024-01-02 03:04:05 +0000 UTC", "\"2024-01-02T03:04:05Z\""));
        assert_eq!(both(&BadValue::Time(Time::ZERO)), s("0001-01-01 00:00:00 +0000 UTC", "null"));
        assert_eq!(ValueRendering::of(KubernetesVersion::V1_33), ValueRendering::GoReflect);
        assert_eq!(ValueRendering::of(KubernetesVersion::V1_34), ValueRendering::Json);
        let p = Path::new("spec");
        let value = p.child("value");
        let e = FieldError::invalid(&value, BadValue::Quantity(Quantity::parse("-50m").unwrap()), "must be positive");
        assert_eq!(e.to_string(), "spec.value: Invalid value: \"-50m\": must be positive");
        let e = FieldError { rendering: ValueRendering::GoReflect, ..e };
        assert_eq!(
            e.to_string(),
            "spec.value: Invalid value: resource.Quantity{i:resource.int64Amount{value:-50, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-50m\", Format:\"DecimalSI\"}: must be positive"
        );
    }

    #[test]
    fn aggregate_dedups() {
        let p = Path::new("spec");
        let t = p.child("type");
        let e = FieldError::not_supported(&t, BadValue::named("X"), &["A"]);
        let msg = invalid_message("HorizontalPodAutoscaler", "autoscaling", "web", &[e.clone(), e]);
        assert_eq!(
            msg,
            "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.type: Unsupported value: \"X\": supported values: \"A\""
        );
    }
}
