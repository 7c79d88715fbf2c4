//! The HorizontalPodAutoscaler API in every version a repository may still hold, and strict
//! decoding from JSON values.
//!
//! `v2` is the hub: it is the internal shape that validation, defaulting and the evaluator
//! work on. `v1`, `v2beta2` and `v2beta1` convert to and from it (see [`crate::convert`]).

pub mod de;
pub mod meta;
pub mod quantity;
pub mod release;
pub mod strict;
pub mod time;
pub mod v1;
pub mod v2;
pub mod v2beta1;
pub mod v2beta2;

use std::cell::Cell;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
pub use quantity::Quantity;
pub use time::Time;

/// The kind every type here describes.
pub const KIND: &str = "HorizontalPodAutoscaler";
/// The API group.
pub const GROUP: &str = "autoscaling";

/// An `autoscaling` API version of the HorizontalPodAutoscaler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApiVersion {
    /// `autoscaling/v1`
    V1,
    /// `autoscaling/v2`
    V2,
    /// `autoscaling/v2beta2` (removed in 1.26)
    V2beta2,
    /// `autoscaling/v2beta1` (removed in 1.25)
    V2beta1,
}

impl ApiVersion {
    /// All versions, newest first.
    pub const ALL: [ApiVersion; 4] = [ApiVersion::V2, ApiVersion::V1, ApiVersion::V2beta2, ApiVersion::V2beta1];

    /// Parses `autoscaling/v2` and friends.
    pub fn parse(s: &str) -> Option<ApiVersion> {
        match s {
            v1::API_VERSION => Some(ApiVersion::V1),
            v2::API_VERSION => Some(ApiVersion::V2),
            v2beta2::API_VERSION => Some(ApiVersion::V2beta2),
            v2beta1::API_VERSION => Some(ApiVersion::V2beta1),
            _ => None,
        }
    }

    /// The `apiVersion` string.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiVersion::V1 => v1::API_VERSION,
            ApiVersion::V2 => v2::API_VERSION,
            ApiVersion::V2beta2 => v2beta2::API_VERSION,
            ApiVersion::V2beta1 => v2beta1::API_VERSION,
        }
    }

    /// The version part (`v2`).
    pub fn version(self) -> &'static str {
        self.as_str().trim_start_matches("autoscaling/")
    }

    /// The Kubernetes minor release that stopped serving this version, if any.
    pub fn removed_in(self) -> Option<u32> {
        match self {
            ApiVersion::V2beta1 => Some(25),
            ApiVersion::V2beta2 => Some(26),
            ApiVersion::V1 | ApiVersion::V2 => None,
        }
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An HPA decoded in the version it was written in.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum VersionedHpa {
    /// `autoscaling/v1`
    V1(v1::HorizontalPodAutoscaler),
    /// `autoscaling/v2`
    V2(v2::HorizontalPodAutoscaler),
    /// `autoscaling/v2beta2`
    V2beta2(v2beta2::HorizontalPodAutoscaler),
    /// `autoscaling/v2beta1`
    V2beta1(v2beta1::HorizontalPodAutoscaler),
}

impl VersionedHpa {
    /// The version this object is in.
    pub fn api_version(&self) -> ApiVersion {
        match self {
            VersionedHpa::V1(_) => ApiVersion::V1,
            VersionedHpa::V2(_) => ApiVersion::V2,
            VersionedHpa::V2beta2(_) => ApiVersion::V2beta2,
            VersionedHpa::V2beta1(_) => ApiVersion::V2beta1,
        }
    }

    /// The object's metadata.
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            VersionedHpa::V1(h) => &h.metadata,
            VersionedHpa::V2(h) => &h.metadata,
            VersionedHpa::V2beta2(h) => &h.metadata,
            VersionedHpa::V2beta1(h) => &h.metadata,
        }
    }

    /// The object as JSON, in its own version, with `apiVersion` and `kind` set.
    pub fn to_json(&self) -> Value {
        let v = match self {
            VersionedHpa::V1(h) => serde_json::to_value(h),
            VersionedHpa::V2(h) => serde_json::to_value(h),
            VersionedHpa::V2beta2(h) => serde_json::to_value(h),
            VersionedHpa::V2beta1(h) => serde_json::to_value(h),
        };
        let v = v.unwrap_or(Value::Null);
        let Value::Object(map) = v else { return v };
        let mut out = serde_json::Map::with_capacity(map.len() + 2);
        out.insert("apiVersion".into(), Value::from(self.api_version().as_str()));
        out.insert("kind".into(), Value::from(KIND));
        for (k, val) in map {
            if k != "apiVersion" && k != "kind" {
                out.insert(k, val);
            }
        }

        Value::Object(out)
    }
}

/// What went wrong while decoding (the 400 BadRequest cases of kube-apiserver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A field the schema does not have (strict field validation).
    UnknownField,
    /// A value of the wrong JSON type, or one that does not parse (quantities, times).
    InvalidValue,
    /// `apiVersion` or `kind` missing, or not an HPA version we know.
    TypeMeta,
    /// The document is not a JSON object.
    NotAnObject,
}

impl DecodeErrorKind {
    /// A stable machine-readable name.
    pub fn as_str(self) -> &'static str {
        match self {
            DecodeErrorKind::UnknownField => "UnknownField",
            DecodeErrorKind::InvalidValue => "InvalidValue",
            DecodeErrorKind::TypeMeta => "TypeMeta",
            DecodeErrorKind::NotAnObject => "NotAnObject",
        }
    }
}

/// One decoding problem, with the field path it is at (empty for the whole object).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct DecodeError {
    /// What kind of problem.
    pub kind: DecodeErrorKind,
    /// The field path (`spec.metrics[0].foo`), empty for the object itself.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl DecodeError {
    fn render(&self) -> String {
        match self.kind {
            DecodeErrorKind::UnknownField => format!("unknown field {}", crate::go::quote(&self.path)),
            _ if self.path.is_empty() => self.message.clone(),
            _ => format!("{}: {}", self.path, self.message),
        }
    }
}

/// The message kube-apiserver gives for a body it cannot decode.
pub fn decode_failure_message(version: Option<ApiVersion>, errors: &[DecodeError]) -> String {
    let unknown: Vec<String> =
        errors.iter().filter(|e| e.kind == DecodeErrorKind::UnknownField).map(DecodeError::to_string).collect();
    let other: Vec<String> =
        errors.iter().filter(|e| e.kind != DecodeErrorKind::UnknownField).map(DecodeError::to_string).collect();
    let mut detail = other.join(", ");
    if !unknown.is_empty() {
        if !detail.is_empty() {
            detail.push_str(", ");
        }
        detail.push_str("strict decoding error: ");
        detail.push_str(&unknown.join(", "));
    }
    match version {
        Some(v) => {
            format!("{KIND} in version {} cannot be handled as a {KIND}: {detail}", crate::go::quote(v.version()))
        }
        None => detail,
    }
}

/// Decodes one object strictly: every unknown field and the first ill-typed value are errors.
pub fn decode(value: &Value) -> Result<VersionedHpa, Vec<DecodeError>> {
    let Value::Object(map) = value else {
        return Err(vec![DecodeError {
            kind: DecodeErrorKind::NotAnObject,
            path: String::new(),
            message: format!("expected an object, found {}", json_type(value)),
        }]);
    };
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    decode_with(kind, api_version, strict::Strict(value))
}

/// [`decode`] from any source that deserializes as the object's JSON would (the linter's
/// YAML nodes, with their positions, never become JSON): `kind` and `apiVersion` are the
/// object's (empty when missing or not strings).
pub fn decode_with<'de, D>(kind: &str, api_version: &str, de: D) -> Result<VersionedHpa, Vec<DecodeError>>
where
    D: serde::Deserializer<'de, Error = serde_json::Error> + Copy,
{
    decode_version(version_of(kind, api_version)?, de, None)
}

/// [`decode_with`] for a deserializer that sets `ignored` when it is asked to skip a value
/// (`deserialize_ignored_any`: a field no type reads). An object without unknown fields or
/// errors, nearly every one, is then decoded once, without tracking paths; any other is
/// decoded again as [`decode_with`] does, to locate each unknown field and error. The result
/// is always [`decode_with`]'s.
pub fn decode_with_noticing<'de, D>(
    kind: &str,
    api_version: &str,
    de: D,
    ignored: &Cell<bool>,
) -> Result<VersionedHpa, Vec<DecodeError>>
where
    D: serde::Deserializer<'de, Error = serde_json::Error> + Copy,
{
    decode_version(version_of(kind, api_version)?, de, Some(ignored))
}

/// The version `kind` and `apiVersion` name, or kube-apiserver's error about them.
fn version_of(kind: &str, api_version: &str) -> Result<ApiVersion, Vec<DecodeError>> {
    if kind.is_empty() {
        return Err(vec![type_meta_error("kind", "Object 'Kind' is missing")]);
    }
    if api_version.is_empty() {
        return Err(vec![type_meta_error("apiVersion", "Object 'apiVersion' is missing")]);
    }
    if kind != KIND {
        return Err(vec![type_meta_error("kind", &format!("expected kind {KIND}, found {}", crate::go::quote(kind)))]);
    }
    ApiVersion::parse(api_version).ok_or_else(|| {
        vec![type_meta_error(
            "apiVersion",
            &format!("no matches for kind {} in version {}", crate::go::quote(KIND), crate::go::quote(api_version)),
        )]
    })
}

fn decode_version<'de, D>(
    version: ApiVersion,
    de: D,
    ignored: Option<&Cell<bool>>,
) -> Result<VersionedHpa, Vec<DecodeError>>
where
    D: serde::Deserializer<'de, Error = serde_json::Error> + Copy,
{
    match version {
        ApiVersion::V1 => decode_as_noticing(de, ignored).map(VersionedHpa::V1),
        ApiVersion::V2 => decode_as_noticing(de, ignored).map(VersionedHpa::V2),
        ApiVersion::V2beta2 => decode_as_noticing(de, ignored).map(VersionedHpa::V2beta2),
        ApiVersion::V2beta1 => decode_as_noticing(de, ignored).map(VersionedHpa::V2beta1),
    }
}

/// One plain decode when the deserializer notices skipped values and none were (see
/// [`decode_with_noticing`]); else [`decode_as_with`].
fn decode_as_noticing<'de, T, D>(de: D, ignored: Option<&Cell<bool>>) -> Result<T, Vec<DecodeError>>
where
    T: DeserializeOwned,
    D: serde::Deserializer<'de, Error = serde_json::Error> + Copy,
{
    if let Some(ignored) = ignored {
        ignored.set(false);
        if let Ok(v) = T::deserialize(de)
            && !ignored.get()
        {
            return Ok(v);
        }
    }
    decode_as_with(de)
}

fn type_meta_error(path: &str, message: &str) -> DecodeError {
    DecodeError { kind: DecodeErrorKind::TypeMeta, path: path.to_string(), message: message.to_string() }
}

/// Strict decoding of any of our types: unknown fields are collected; on a type error the
/// value is decoded once more to find where it is.
pub fn decode_as<T: DeserializeOwned>(value: &Value) -> Result<T, Vec<DecodeError>> {
    decode_as_with(strict::Strict(value))
}

/// [`decode_as`] from any deserializer with JSON's (and Go's) rules.
pub fn decode_as_with<'de, T, D>(de: D) -> Result<T, Vec<DecodeError>>
where
    T: DeserializeOwned,
    D: serde::Deserializer<'de, Error = serde_json::Error> + Copy,
{
    let mut unknown = Vec::new();
    let result: Result<T, serde_json::Error> =
        serde_ignored::deserialize(de, |path| unknown.push(render_ignored_path(&path)));
    match result {
        Ok(v) if unknown.is_empty() => Ok(v),
        Ok(_) => Err(unknown
            .into_iter()
            .map(|path| DecodeError { kind: DecodeErrorKind::UnknownField, path, message: "unknown field".into() })
            .collect()),
        Err(first) => {
            let (path, message) = match serde_path_to_error::deserialize::<_, T>(de) {
                Err(e) => (render_error_path(e.path()), e.into_inner().to_string()),
                Ok(_) => (String::new(), first.to_string()),
            };
            let mut errors: Vec<DecodeError> = unknown
                .into_iter()
                .map(|path| DecodeError { kind: DecodeErrorKind::UnknownField, path, message: "unknown field".into() })
                .collect();
            errors.insert(0, DecodeError { kind: DecodeErrorKind::InvalidValue, path, message: humanize(&message) });
            Err(errors)
        }
    }
}

/// serde's wording, with Rust type names replaced by the Kubernetes ones.
fn humanize(message: &str) -> String {
    message
        .replace("expected i32", "expected int32")
        .replace("expected i64", "expected int64")
        .replace("expected a string", "expected string")
        .replace("expected a boolean", "expected boolean")
        .replace("invalid type: map", "invalid type: object")
        .replace("invalid type: sequence", "invalid type: array")
        .replace("expected a sequence", "expected array")
        .replace("expected a map", "expected object")
        .replace("struct ", "object ")
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn render_ignored_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path as P;
    match path {
        P::Root => String::new(),
        P::Seq { parent, index } => format!("{}[{index}]", render_ignored_path(parent)),
        P::Map { parent, key } => {
            let p = render_ignored_path(parent);
            if p.is_empty() { key.to_string() } else { format!("{p}.{key}") }
        }
        P::Some { parent } | P::NewtypeStruct { parent } | P::NewtypeVariant { parent } => render_ignored_path(parent),
    }
}

fn render_error_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment as S;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            S::Seq { index } => out.push_str(&format!("[{index}]")),
            S::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            S::Enum { variant } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(variant);
            }
            S::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_each_version() {
        for v in ApiVersion::ALL {
            let obj = json!({"apiVersion": v.as_str(), "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "web"}, "spec": {"maxReplicas": 3}});
            let hpa = decode(&obj).unwrap();
            assert_eq!(hpa.api_version(), v);
            assert_eq!(hpa.metadata().name, "web");
        }
    }

    #[test]
    fn unknown_fields_are_all_reported() {
        let obj = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "nmae": "x"},
            "spec": {"maxReplicas": 3, "miniReplicas": 1, "metrics": [{"type": "Resource", "bogus": 1}]}});
        let errs = decode(&obj).unwrap_err();
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["metadata.nmae", "spec.miniReplicas", "spec.metrics[0].bogus"]);
        assert_eq!(errs[1].to_string(), "unknown field \"spec.miniReplicas\"");
    }

    #[test]
    fn wrong_types_have_paths() {
        let obj = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "spec": {"maxReplicas": "ten"}});
        let errs = decode(&obj).unwrap_err();
        assert_eq!(errs[0].kind, DecodeErrorKind::InvalidValue);
        assert_eq!(errs[0].path, "spec.maxReplicas");
        assert!(errs[0].message.contains("int32"), "{}", errs[0].message);
        let obj = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "spec": {"metrics": [{"type": "Pods", "pods": {"target": {"averageValue": "1ki"}}}]}});
        let errs = decode(&obj).unwrap_err();
        assert_eq!(errs[0].path, "spec.metrics[0].pods.target.averageValue");
        assert_eq!(errs[0].message, "unable to parse quantity's suffix");
    }

    #[test]
    fn nulls_are_zero_values() {
        let obj = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": null, "labels": {"a": null}},
            "spec": {"maxReplicas": null, "scaleTargetRef": null, "metrics": null, "minReplicas": null}});
        let VersionedHpa::V2(hpa) = decode(&obj).unwrap() else { panic!() };
        assert_eq!(hpa.spec.max_replicas, 0);
        assert_eq!(hpa.spec.min_replicas, None);
        assert_eq!(hpa.metadata.labels["a"], "");
    }

    #[test]
    fn type_meta_problems() {
        assert_eq!(decode(&json!([])).unwrap_err()[0].kind, DecodeErrorKind::NotAnObject);
        assert_eq!(decode(&json!({"kind": "HorizontalPodAutoscaler"})).unwrap_err()[0].path, "apiVersion");
        let e = decode(&json!({"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2alpha1"})).unwrap_err();
        assert!(e[0].message.contains("no matches for kind"));
    }
}
