//! The HorizontalPodAutoscaler API in every version a repository may still hold, and its
//! decoding ([`mod@decode`]: kube-apiserver's, from JSON text or any other [`decode::Source`]).
//!
//! `v2` is the hub: it is the internal shape that validation, defaulting and the evaluator
//! work on. `v1`, `v2beta2` and `v2beta1` convert to and from it (see [`crate::convert`]).

pub mod de;
pub mod decode;
pub mod group_version;
pub mod labels;
pub mod meta;
pub mod metrics;
pub mod quantity;
pub mod release;
pub mod time;
pub mod v1;
pub mod v2;
pub mod v2beta1;
pub mod v2beta2;

use std::fmt;

use serde_json::Value;

use crate::features::KubernetesVersion;
use crate::go;

pub use decode::{DecodeError, DecodeErrorKind, Decoded, Strictness};
pub use group_version::{GroupVersion, GroupVersionError};
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

/// An HPA `apiVersion` a release does not serve ([`served`]): kube-apiserver has no endpoint
/// for it, so kubectl's RESTMapper finds no mapping for the object and never sends it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no matches for kind {} in version {}", go::quote(KIND), go::quote(api_version))]
pub struct Unserved {
    /// The `apiVersion` as written.
    pub api_version: String,
}

impl Unserved {
    /// What to do, for a version Kubernetes once served (`HPA401 removed-api-version`'s
    /// message): `autoscaling/v2beta2 is not served since Kubernetes 1.26: use
    /// autoscaling/v2`; `None` for a version never served (`autoscaling/v3`, another group).
    pub fn advice(&self) -> Option<String> {
        let v = &self.api_version;
        match ApiVersion::parse(v).and_then(ApiVersion::removed_in) {
            Some(removed) => Some(format!("{v} is not served since Kubernetes 1.{removed}: use autoscaling/v2")),
            None if v.starts_with("autoscaling/v2alpha") => {
                Some(format!("{v} was removed in Kubernetes 1.9: use autoscaling/v2"))
            }
            None => None,
        }
    }
}

/// The version of an HPA written in `api_version` when `release` serves it (`autoscaling/v1`
/// and `v2`; `v2beta2` before 1.26, `v2beta1` before 1.25), or kube-apiserver's discovery
/// has no such version: what kubectl's RESTMapper answers (`meta.NoKindMatchError`).
pub fn served(api_version: &str, release: KubernetesVersion) -> Result<ApiVersion, Unserved> {
    match ApiVersion::parse(api_version) {
        Some(v) if v.removed_in().is_none_or(|removed| release.minor() < removed) => Ok(v),
        _ => Err(Unserved { api_version: api_version.to_string() }),
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

    /// `kind` and `apiVersion` as decoded.
    pub fn type_meta(&self) -> (&str, &str) {
        match self {
            VersionedHpa::V1(h) => (&h.kind, &h.api_version),
            VersionedHpa::V2(h) => (&h.kind, &h.api_version),
            VersionedHpa::V2beta2(h) => (&h.kind, &h.api_version),
            VersionedHpa::V2beta1(h) => (&h.kind, &h.api_version),
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

    /// The object's metadata, to change in place (what a reader drops, such as
    /// `metadata.managedFields`, whatever the version).
    pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
        match self {
            VersionedHpa::V1(h) => &mut h.metadata,
            VersionedHpa::V2(h) => &mut h.metadata,
            VersionedHpa::V2beta2(h) => &mut h.metadata,
            VersionedHpa::V2beta1(h) => &mut h.metadata,
        }
    }

    /// `spec.scaleTargetRef`, which every autoscaling version has in the same place and shape
    /// (`CrossVersionObjectReference`).
    pub fn scale_target_ref(&self) -> &CrossVersionObjectReference {
        match self {
            VersionedHpa::V1(h) => &h.spec.scale_target_ref,
            VersionedHpa::V2(h) => &h.spec.scale_target_ref,
            VersionedHpa::V2beta2(h) => &h.spec.scale_target_ref,
            VersionedHpa::V2beta1(h) => &h.spec.scale_target_ref,
        }
    }

    /// `spec.minReplicas`, which every autoscaling version has in the same place, as stored
    /// (1 when absent: `SetDefaults_HorizontalPodAutoscaler`).
    pub fn min_replicas(&self) -> i32 {
        let min = match self {
            VersionedHpa::V1(h) => h.spec.min_replicas,
            VersionedHpa::V2(h) => h.spec.min_replicas,
            VersionedHpa::V2beta2(h) => h.spec.min_replicas,
            VersionedHpa::V2beta1(h) => h.spec.min_replicas,
        };
        min.unwrap_or(1)
    }

    /// The object as JSON, in its own version, with `apiVersion` and `kind` set.
    ///
    /// `metadata.managedFields[].fieldsV1` is raw JSON text that may hold what a tree cannot (a
    /// lone surrogate escape, which Go accepts): such an object is written as text and read
    /// back as `encoding/json` reads it into an `interface{}` ([`go::parse_tree`]), as
    /// `runtime.DefaultUnstructuredConverter` turns a typed object into a tree.
    pub fn to_json(&self) -> Value {
        fn tree<T: serde::Serialize>(h: &T) -> Result<Value, serde_json::Error> {
            serde_json::to_value(h).or_else(|_| go::parse_tree(&serde_json::to_string(h)?))
        }
        let v = match self {
            VersionedHpa::V1(h) => tree(h),
            VersionedHpa::V2(h) => tree(h),
            VersionedHpa::V2beta2(h) => tree(h),
            VersionedHpa::V2beta1(h) => tree(h),
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

/// The message kube-apiserver gives for a body it cannot decode (`transformDecodeError` in
/// `apiserver/pkg/endpoints/handlers/rest.go`): `HorizontalPodAutoscaler in version "v2"
/// cannot be handled as a HorizontalPodAutoscaler: <the decoding error>`.
pub fn decode_failure_message(version: Option<ApiVersion>, errors: &[DecodeError]) -> String {
    decode::failure_message(KIND, version.map(ApiVersion::version), errors)
}

/// Decodes one object strictly from a JSON value (tests and tools that hold values; it is
/// written out and read back as the JSON text kube-apiserver would receive).
pub fn decode(value: &Value) -> Result<VersionedHpa, Vec<DecodeError>> {
    decode_text(&value.to_string())
}

/// Decodes one object strictly from JSON text with this crate's schema (the newest types), as
/// [`decode()`] does from a value but reading the text as written: a number literal such as `-0`
/// or `1e2` and a key given twice reach the decoder as kube-apiserver receives them.
pub fn decode_text(text: &str) -> Result<VersionedHpa, Vec<DecodeError>> {
    decode_json_with(text, Strictness::Strict, decode::DecodeOptions::KUBE_APISERVER).map(|d| d.value)
}

/// Decodes one HPA from JSON text as kube-apiserver decodes a request body: its `kind` and
/// `apiVersion` choose the type (`runtime.SimpleMetaFactory.Interpret`), then the body is
/// decoded into it ([`decode_source`]) with the Go types of `release` (a field added later is
/// an unknown field).
pub fn decode_json(
    text: &str,
    strictness: Strictness,
    release: KubernetesVersion,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    decode_json_with(text, strictness, decode::DecodeOptions::KUBE_APISERVER.in_release(release))
}

fn decode_json_with(
    text: &str,
    strictness: Strictness,
    options: decode::DecodeOptions,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    let (kind, api_version) = match json_type_meta(text) {
        Ok(meta) => meta,
        Err(e) => return Err(vec![e]),
    };
    let version = version_of(&kind, &api_version)?;
    decode_json_version(text, version, strictness, options)
}

/// [`decode_json`] for an object expected in `version` (an AdmissionReview says which): one
/// pass when it is, and [`decode_json`]'s result whatever it is.
pub fn decode_json_expecting(
    text: &str,
    version: ApiVersion,
    strictness: Strictness,
    release: KubernetesVersion,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    let options = decode::DecodeOptions::KUBE_APISERVER.in_release(release);
    match decode_json_version(text, version, strictness, options) {
        Ok(d) if d.value.type_meta() == (KIND, version.as_str()) => Ok(d),
        _ => decode_json_with(text, strictness, options),
    }
}

fn decode_json_version(
    text: &str,
    version: ApiVersion,
    strictness: Strictness,
    options: decode::DecodeOptions,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    let mut source = decode::json::JsonSource::new(text);
    let decoded = decode_version(version, &mut source, strictness, options);
    // `checkValid` runs before decoding: a syntax error anywhere wins over everything else.
    let valid = match &decoded {
        Ok(_) => source.finish(),
        Err(_) => {
            let mut check = decode::json::JsonSource::new(text);
            decode::Source::skip(&mut check).and_then(|()| check.finish())
        }
    };
    match valid {
        Ok(()) => decoded,
        Err(e) => Err(vec![DecodeError::new(DecodeErrorKind::Syntax, "", e.message)]),
    }
}

/// `kind` and `apiVersion` of a JSON object (empty when missing or not strings).
fn json_type_meta(text: &str) -> Result<(String, String), DecodeError> {
    use decode::{Kind, Source};
    let mut source = decode::json::JsonSource::new(text);
    let syntax = |e: decode::SourceError| DecodeError::new(DecodeErrorKind::Syntax, "", e.message);
    match source.peek().map_err(syntax)? {
        Kind::Object => {}
        other => {
            let message = format!("expected an object, found {}", json_kind_name(other));
            return Err(DecodeError::new(DecodeErrorKind::NotAnObject, "", message));
        }
    }
    let (mut kind, mut api_version) = (String::new(), String::new());
    source.begin_object().map_err(syntax)?;
    while let Some(key) = source.next_key().map_err(syntax)? {
        let slot = match key.as_ref() {
            "kind" => &mut kind,
            "apiVersion" => &mut api_version,
            _ => {
                source.skip().map_err(syntax)?;
                continue;
            }
        };
        *slot = match source.peek().map_err(syntax)? {
            Kind::String => source.string().map_err(syntax)?.into_owned(),
            _ => {
                source.skip().map_err(syntax)?;
                String::new()
            }
        };
    }
    Ok((kind, api_version))
}

fn json_kind_name(kind: decode::Kind) -> &'static str {
    match kind {
        decode::Kind::Bool => "boolean",
        other => other.go_name(),
    }
}

/// Decodes an HPA from any [`Source`](decode::Source) (the linter's YAML nodes) with the Go
/// types of `release`: `kind` and `apiVersion` are the object's (empty when missing or not
/// strings).
pub fn decode_source<'de, S: decode::Source<'de>>(
    kind: &str,
    api_version: &str,
    source: S,
    strictness: Strictness,
    release: KubernetesVersion,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    let options = decode::DecodeOptions::KUBE_APISERVER.in_release(release);
    decode_version(version_of(kind, api_version)?, source, strictness, options)
}

/// The version `kind` and `apiVersion` name, or kube-apiserver's error about them.
fn version_of(kind: &str, api_version: &str) -> Result<ApiVersion, Vec<DecodeError>> {
    if kind.is_empty() {
        return Err(vec![DecodeError::type_meta("kind", "Object 'Kind' is missing")]);
    }
    // No `apiVersion` (or `null`, or `""`): kubectl's RESTMapper finds no mapping for version
    // `""` and never sends the object (`no matches for kind "HorizontalPodAutoscaler" in version
    // ""`), as for a version no release serves.
    if api_version.is_empty() {
        return Err(vec![DecodeError::type_meta("apiVersion", Unserved { api_version: String::new() }.to_string())]);
    }
    if kind != KIND {
        return Err(vec![DecodeError::type_meta(
            "kind",
            format!("expected kind {KIND}, found {}", crate::go::quote(kind)),
        )]);
    }
    ApiVersion::parse(api_version).ok_or_else(|| {
        vec![DecodeError::type_meta("apiVersion", Unserved { api_version: api_version.to_string() }.to_string())]
    })
}

fn decode_version<'de, S: decode::Source<'de>>(
    version: ApiVersion,
    source: S,
    strictness: Strictness,
    options: decode::DecodeOptions,
) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
    fn with<'de, T, S>(
        version: ApiVersion,
        source: S,
        strictness: Strictness,
        options: decode::DecodeOptions,
        wrap: fn(T) -> VersionedHpa,
    ) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>>
    where
        T: decode::Decode + Default,
        S: decode::Source<'de>,
    {
        let d = decode::decode_from::<T, S>(source, version.version(), options, strictness)?;
        Ok(Decoded { value: wrap(d.value), ignored: d.ignored })
    }
    match version {
        ApiVersion::V1 => with(version, source, strictness, options, VersionedHpa::V1),
        ApiVersion::V2 => with(version, source, strictness, options, VersionedHpa::V2),
        ApiVersion::V2beta2 => with(version, source, strictness, options, VersionedHpa::V2beta2),
        ApiVersion::V2beta1 => with(version, source, strictness, options, VersionedHpa::V2beta1),
    }
}

/// Strict decoding of any of our types from a JSON value, named as `autoscaling/v2`'s in
/// errors.
pub fn decode_as<T: decode::Decode + Default>(value: &Value) -> Result<T, Vec<DecodeError>> {
    let text = value.to_string();
    let mut source = decode::json::JsonSource::new(&text);
    let decoded =
        decode::decode_from::<T, _>(&mut source, "v2", decode::DecodeOptions::KUBE_APISERVER, Strictness::Strict)?;
    Ok(decoded.value)
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
    fn accessors_reach_the_same_fields_in_each_version() {
        for v in ApiVersion::ALL {
            let obj = json!({"apiVersion": v.as_str(), "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "web"},
                "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "api"}, "maxReplicas": 3}});
            let mut hpa = decode(&obj).unwrap();
            let t = hpa.scale_target_ref();
            assert_eq!((t.kind.as_str(), t.name.as_str()), ("Deployment", "api"), "{v}");
            hpa.metadata_mut().name = "renamed".into();
            assert_eq!(hpa.metadata().name, "renamed", "{v}");
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
    fn served_versions_are_v1_and_v2_in_every_release() {
        for release in KubernetesVersion::ALL {
            assert_eq!(served("autoscaling/v2", release), Ok(ApiVersion::V2));
            assert_eq!(served("autoscaling/v1", release), Ok(ApiVersion::V1));
            let unserved = served("autoscaling/v2beta2", release).unwrap_err();
            assert_eq!(
                unserved.to_string(),
                r#"no matches for kind "HorizontalPodAutoscaler" in version "autoscaling/v2beta2""#
            );
            assert_eq!(
                unserved.advice().as_deref(),
                Some("autoscaling/v2beta2 is not served since Kubernetes 1.26: use autoscaling/v2")
            );
            assert_eq!(
                served("autoscaling/v2beta1", release).unwrap_err().advice().as_deref(),
                Some("autoscaling/v2beta1 is not served since Kubernetes 1.25: use autoscaling/v2")
            );
            assert_eq!(
                served("autoscaling/v2alpha1", release).unwrap_err().advice().as_deref(),
                Some("autoscaling/v2alpha1 was removed in Kubernetes 1.9: use autoscaling/v2")
            );
            assert_eq!(served("autoscaling/v3", release).unwrap_err().advice(), None);
        }
    }

    #[test]
    fn type_meta_problems() {
        assert_eq!(decode(&json!([])).unwrap_err()[0].kind, DecodeErrorKind::NotAnObject);
        let e = decode(&json!({"kind": "HorizontalPodAutoscaler"})).unwrap_err();
        assert_eq!(
            (e[0].path.as_str(), e[0].message.as_str()),
            ("apiVersion", "no matches for kind \"HorizontalPodAutoscaler\" in version \"\"")
        );
        let e = decode(&json!({"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2alpha1"})).unwrap_err();
        assert!(e[0].message.contains("no matches for kind"));
    }
}
