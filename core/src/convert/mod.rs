//! Conversion between `autoscaling/v1`, `v2`, `v2beta2` and `v2beta1`, through the internal
//! (v2-shaped) form, exactly as kube-apiserver converts.
//!
//! v1 and v2beta1 keep what they cannot express in the `autoscaling.alpha.kubernetes.io/*`
//! annotations; v2beta2 keeps `tolerance` in two annotations. Every conversion removes the
//! round-trip annotations it consumes. What a target version cannot hold is reported in
//! [`Conversion::lossy`], never silently dropped.

pub mod annotations;
pub mod v1;
pub mod v2beta1;
pub mod v2beta2;

use serde_json::Value;

use crate::api::{ApiVersion, VersionedHpa, v2};
use crate::features::{FeatureGates, KubernetesVersion};

pub use annotations::AnnotationProblem;

/// The result of a conversion, with what went wrong along the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion<T> {
    /// The converted object.
    pub object: T,
    /// Round-trip annotations that kube-apiserver could not read (and therefore ignored), or
    /// read with unknown fields.
    pub annotation_problems: Vec<AnnotationProblem>,
    /// Information the target version cannot hold (`field: explanation`).
    pub lossy: Vec<String>,
}

/// A conversion kube-apiserver refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// A round-trip annotation that must parse did not.
    #[error("{message}")]
    Annotation {
        /// The annotation key.
        annotation: &'static str,
        /// The Go error text.
        message: String,
    },
}

/// Converts any version to the internal form, as [`KubernetesVersion::LATEST`] does.
pub fn to_internal(obj: &VersionedHpa) -> Result<Conversion<v2::HorizontalPodAutoscaler>, ConvertError> {
    into_internal(obj.clone())
}

/// Converts any version to the internal form, as `release`'s kube-apiserver does (its
/// `ParseQuantity` reads the quantities of the round-trip annotations).
pub fn to_internal_in(
    obj: &VersionedHpa,
    release: KubernetesVersion,
) -> Result<Conversion<v2::HorizontalPodAutoscaler>, ConvertError> {
    into_internal_in(obj.clone(), release)
}

/// The object itself when it already is what [`to_internal`] would return (autoscaling/v2,
/// its `apiVersion` and `kind` set, no round-trip annotation), so that callers that keep both
/// need no copy.
pub fn as_internal(obj: &VersionedHpa) -> Option<&v2::HorizontalPodAutoscaler> {
    match obj {
        VersionedHpa::V2(h)
            if h.api_version == v2::API_VERSION
                && h.kind == crate::api::KIND
                && !annotations::ROUND_TRIP.iter().any(|k| h.metadata.annotations.contains_key(*k)) =>
        {
            Some(h)
        }
        _ => None,
    }
}

/// Converts any version to the internal form, consuming it (no copy for autoscaling/v2), as
/// [`KubernetesVersion::LATEST`] does.
pub fn into_internal(obj: VersionedHpa) -> Result<Conversion<v2::HorizontalPodAutoscaler>, ConvertError> {
    into_internal_in(obj, KubernetesVersion::LATEST)
}

/// [`into_internal`] as `release`'s kube-apiserver converts.
pub fn into_internal_in(
    obj: VersionedHpa,
    release: KubernetesVersion,
) -> Result<Conversion<v2::HorizontalPodAutoscaler>, ConvertError> {
    Ok(match obj {
        VersionedHpa::V2(mut h) => {
            annotations::drop_round_trip(&mut h.metadata.annotations);
            h.api_version = v2::API_VERSION.into();
            h.kind = crate::api::KIND.into();
            Conversion { object: h, annotation_problems: Vec::new(), lossy: Vec::new() }
        }
        VersionedHpa::V1(h) => v1::to_internal_in(&h, release),
        VersionedHpa::V2beta2(h) => v2beta2::to_internal_in(&h, release)?,
        VersionedHpa::V2beta1(h) => v2beta1::to_internal_in(&h, release),
    })
}

/// Converts the internal form to a version (no loss detection; see [`convert`]).
pub fn from_internal(hpa: &v2::HorizontalPodAutoscaler, to: ApiVersion) -> VersionedHpa {
    match to {
        ApiVersion::V2 => {
            let mut h = hpa.clone();
            annotations::drop_round_trip(&mut h.metadata.annotations);
            h.api_version = v2::API_VERSION.into();
            h.kind = crate::api::KIND.into();
            VersionedHpa::V2(h)
        }
        ApiVersion::V1 => VersionedHpa::V1(v1::from_internal(hpa).object),
        ApiVersion::V2beta2 => VersionedHpa::V2beta2(v2beta2::from_internal(hpa).object),
        ApiVersion::V2beta1 => VersionedHpa::V2beta1(v2beta1::from_internal(hpa).object),
    }
}

/// Converts an object to another version through the internal form, as the newest release's
/// kube-apiserver does, and reports what the target version cannot hold.
pub fn convert(obj: &VersionedHpa, to: ApiVersion) -> Result<Conversion<VersionedHpa>, ConvertError> {
    convert_in(obj, to, KubernetesVersion::LATEST)
}

/// [`convert`] as `release`'s kube-apiserver converts: its internal type lacks what the
/// release does not have, so that is dropped on the way (before 1.37, a condition's
/// `observedGeneration`, also inside the v1 conditions annotation), and its `ParseQuantity`
/// reads the annotations' quantities.
pub fn convert_in(
    obj: &VersionedHpa,
    to: ApiVersion,
    release: KubernetesVersion,
) -> Result<Conversion<VersionedHpa>, ConvertError> {
    let mut internal = to_internal_in(obj, release)?;
    crate::api::release::drop_unknown_internal(&mut internal.object, release);
    Ok(out_of_internal(internal, to, release))
}

/// The object as `release`'s kube-apiserver returns it in the version it was written in, once
/// defaulted in that version ([`crate::defaults::default_versioned`], the caller's step):
/// converted to the internal form, stored in the storage version `autoscaling/v2` and read
/// back, which applies v2's defaulting (`SetDefaults_HorizontalPodAutoscaler`: the storage
/// codec of `NewStorageCodec` defaults what it decodes, the create response included), and
/// converted back. So an `autoscaling/v1` object gets the 80 % CPU target its conversion adds
/// (`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`) and a
/// `spec.behavior` annotation completed and written as the server writes it; an
/// `autoscaling/v2` object loses the round-trip annotations
/// (`Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`).
pub fn as_served_in(obj: &VersionedHpa, release: KubernetesVersion) -> Result<Conversion<VersionedHpa>, ConvertError> {
    served_after(obj, release, |_| {})
}

/// [`as_served_in`] for a create under `gates`: the strategy's `PrepareForCreate` drops from the
/// internal form what a gate that is off leaves out ([`crate::admission::drop_disabled_fields`]:
/// a `tolerance` while `HPAConfigurableTolerance` is off) before it is stored. The fields it
/// dropped, each with the gate that is off, come with the object.
pub fn as_created_in(
    obj: &VersionedHpa,
    gates: &FeatureGates,
) -> Result<(Conversion<VersionedHpa>, Vec<crate::admission::DroppedField>), ConvertError> {
    let mut dropped = Vec::new();
    let served =
        served_after(obj, gates.version(), |hpa| dropped = crate::admission::drop_disabled_fields(hpa, gates))?;
    Ok((served, dropped))
}

/// The steps of [`as_served_in`], with `prepare` run on the internal form before it is stored.
fn served_after(
    obj: &VersionedHpa,
    release: KubernetesVersion,
    prepare: impl FnOnce(&mut v2::HorizontalPodAutoscaler),
) -> Result<Conversion<VersionedHpa>, ConvertError> {
    let mut internal = to_internal_in(obj, release)?;
    crate::api::release::drop_unknown_internal(&mut internal.object, release);
    prepare(&mut internal.object);
    crate::defaults::default_v2(&mut internal.object);
    Ok(out_of_internal(internal, obj.api_version(), release))
}

/// The internal form converted to `to`, with what `to` cannot hold (`release`'s conversion).
fn out_of_internal(
    internal: Conversion<v2::HorizontalPodAutoscaler>,
    to: ApiVersion,
    release: KubernetesVersion,
) -> Conversion<VersionedHpa> {
    let out = from_internal(&internal.object, to);
    let lossy = match to {
        ApiVersion::V2 | ApiVersion::V2beta2 => Vec::new(),
        ApiVersion::V1 | ApiVersion::V2beta1 => losses(&internal.object, to, release),
    };
    Conversion { object: out, annotation_problems: internal.annotation_problems, lossy }
}

/// What an internal object loses in `autoscaling/v1` or `autoscaling/v2beta1`, field by field,
/// when `release`'s kube-apiserver reads it back (before 1.36, an `AverageValue` Object target
/// comes back from v1 with `value: "0"`, #137856).
pub fn losses(hpa: &v2::HorizontalPodAutoscaler, to: ApiVersion, release: KubernetesVersion) -> Vec<String> {
    let mut notes = Vec::new();
    if hpa.spec.behavior.as_ref().is_some_and(|b| b.scale_up.is_none() && b.scale_down.is_none()) {
        notes.push(
            "spec.behavior: an empty behavior ({}) is dropped when read back from autoscaling/v1, which turns the controller's legacy path back on"
                .to_string(),
        );
    }
    let metrics = &hpa.spec.metrics;
    if to == ApiVersion::V1 {
        let cpu: Vec<usize> = metrics
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.type_ == "Resource"
                    && m.resource.as_ref().is_some_and(|r| r.name == "cpu" && r.target.average_utilization.is_some())
            })
            .map(|(i, _)| i)
            .collect();
        for &i in cpu.iter().skip(1) {
            notes.push(format!(
                "spec.metrics[{i}]: a second cpu utilization metric is dropped (autoscaling/v1 keeps only the first, in targetCPUUtilizationPercentage)"
            ));
        }
        if let Some(&first) = cpu.first() {
            if first + 1 != metrics.len() {
                notes.push(format!(
                    "spec.metrics[{first}]: the cpu utilization metric moves to the end of spec.metrics when read back"
                ));
            }
            if let Some(r) = &metrics[first].resource
                && (r.target.type_ != "Utilization" || r.target.average_value.is_some() || r.target.value.is_some())
            {
                notes.push(format!(
                    "spec.metrics[{first}].resource.target: only averageUtilization is kept (as targetCPUUtilizationPercentage); the target comes back as type Utilization"
                ));
            }
        }
    }
    for (i, m) in metrics.iter().enumerate() {
        let is_v1_cpu = to == ApiVersion::V1
            && m.type_ == "Resource"
            && m.resource.as_ref().is_some_and(|r| r.name == "cpu" && r.target.average_utilization.is_some());
        if is_v1_cpu {
            continue;
        }
        let keep_zero = to == ApiVersion::V2beta1 || v1::keeps_zero_object_value(release);
        let back = v1::metric_spec_to_internal(&v1::metric_spec_from_internal(m), keep_zero);
        if &back != m {
            let before = serde_json::to_value(m).unwrap_or(Value::Null);
            let after = serde_json::to_value(&back).unwrap_or(Value::Null);
            let mut diffs = Vec::new();
            json_diff(&before, &after, format!("spec.metrics[{i}]"), &mut diffs);
            for d in diffs {
                let now = after.pointer(&pointer_of(&d, i)).cloned().unwrap_or(Value::Null);
                notes.push(format!("{d}: {to} cannot hold it as written; it comes back as {now}"));
            }
        }
    }
    notes
}

/// What an `autoscaling/v1` object holds of its internal form's metrics, in the order [`v1`]'s
/// conversion lays them out: the entries of the `autoscaling.alpha.kubernetes.io/metrics`
/// annotation first, then `spec.targetCPUUtilizationPercentage` (or, with neither,
/// kube-apiserver's default CPU metric, which nothing written stands for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V1Metrics {
    /// The metrics annotation's entries (0 when it is absent or does not parse).
    pub annotated: usize,
    /// Whether `spec.targetCPUUtilizationPercentage` is written.
    pub cpu_target: bool,
}

/// Where a field of the internal form (a field path such as
/// `spec.metrics[0].pods.target.averageValue`) is written in an object of `version`, when the
/// conversion from that version moves it (`None`: at the same path, or nowhere): a renamed field
/// of `autoscaling/v2beta1`'s metrics ([`v1::METRIC_FIELDS`]), a field `autoscaling/v1` or
/// `v2beta1` keeps in a round-trip annotation (`metadata.annotations[KEY]`), `v1`'s CPU target,
/// `autoscaling/v2beta2`'s tolerance annotations. `v1` says how an `autoscaling/v1` object
/// lays out its metrics (ignored for the other versions). This is the one table of where
/// each version writes the internal form's fields: diagnostics point at what the user wrote
/// with it.
pub fn written_path(version: ApiVersion, path: &str, v1: V1Metrics) -> Option<String> {
    let annotation = |key: &str| format!("metadata.annotations[{key}]");
    match version {
        ApiVersion::V2 => None,
        ApiVersion::V2beta2 => path.contains(".tolerance").then(|| {
            let key = if path.contains("scaleUp") {
                annotations::SCALE_UP_TOLERANCE
            } else {
                annotations::SCALE_DOWN_TOLERANCE
            };
            annotation(key)
        }),
        ApiVersion::V1 => {
            if path.starts_with("spec.behavior") {
                return Some(annotation(annotations::BEHAVIOR));
            }
            let rest = path.strip_prefix("spec.metrics")?;
            let index: Option<usize> =
                rest.strip_prefix('[').and_then(|r| r.split(']').next()).and_then(|i| i.parse().ok());
            // Without the CPU target, the last metric is kube-apiserver's default, which the
            // absent field stands for.
            match index {
                Some(i) if i < v1.annotated => Some(annotation(annotations::METRICS)),
                Some(_) => Some("spec.targetCPUUtilizationPercentage".into()),
                None if v1.cpu_target => Some("spec.targetCPUUtilizationPercentage".into()),
                None => Some("spec".into()),
            }
        }
        ApiVersion::V2beta1 => {
            if path.starts_with("spec.behavior") {
                return Some(annotation(annotations::BEHAVIOR));
            }
            v1::METRIC_FIELDS
                .iter()
                .find(|(internal, _)| path.contains(internal))
                .map(|(internal, written)| path.replacen(internal, written, 1))
        }
    }
}

/// The JSON pointer inside one metric for a diff path `spec.metrics[i].a.b`.
fn pointer_of(path: &str, i: usize) -> String {
    let prefix = format!("spec.metrics[{i}]");
    let rest = path.strip_prefix(&prefix).unwrap_or("");
    rest.split('.').filter(|s| !s.is_empty()).fold(String::new(), |mut acc, seg| {
        acc.push('/');
        acc.push_str(seg);
        acc
    })
}

/// Paths at which two JSON values differ (objects by key, arrays by index).
fn json_diff(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                json_diff(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), p, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                json_diff(u, v, format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}
