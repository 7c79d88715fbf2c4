//! The `autoscaling.alpha.kubernetes.io/*` round-trip annotations and their JSON.
//!
//! Mirrors `pkg/apis/autoscaling/annotations.go` and `helpers.go`
//! (`DropRoundTripHorizontalPodAutoscalerAnnotations`). The annotations are read with Go's
//! `encoding/json`, which matches keys case-insensitively and ignores unknown fields; a value
//! that does not decode is silently ignored by kube-apiserver. Both behaviors are kept, and
//! every problem is recorded as an [`AnnotationProblem`] so that the linter can report it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::api::Quantity;
use crate::api::decode::json::JsonSource;
use crate::api::decode::{self, Decode, DecodeOptions, Source, Strictness};
use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior};
use crate::features::KubernetesVersion;

/// Spec metrics that v1 cannot express.
pub const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// All `status.currentMetrics`.
pub const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `status.conditions`.
pub const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `spec.behavior`, as JSON of the internal Go type (Go field names).
pub const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";
/// v2beta2's scale-down tolerance.
pub const SCALE_DOWN_TOLERANCE: &str = "autoscaling.alpha.kubernetes.io/scale-down-tolerance";
/// v2beta2's scale-up tolerance.
pub const SCALE_UP_TOLERANCE: &str = "autoscaling.alpha.kubernetes.io/scale-up-tolerance";

/// Every round-trip annotation; all are removed on every conversion.
pub const ROUND_TRIP: [&str; 6] =
    [METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR, SCALE_DOWN_TOLERANCE, SCALE_UP_TOLERANCE];

/// `DropRoundTripHorizontalPodAutoscalerAnnotations`.
pub fn drop_round_trip(annotations: &mut BTreeMap<String, String>) {
    for key in ROUND_TRIP {
        annotations.remove(key);
    }
}

/// A round-trip annotation kube-apiserver read differently from what its author meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationProblem {
    /// The annotation key.
    pub annotation: &'static str,
    /// What is wrong, and what kube-apiserver does about it.
    pub message: String,
    /// Whether kube-apiserver ignores the whole annotation because of it.
    pub ignored: bool,
}

/// Decodes an annotation value as `release`'s kube-apiserver does, with Go's plain
/// `json.Unmarshal` (hpa-core's decoder with [`DecodeOptions::ENCODING_JSON`]: keys also match
/// case-insensitively, unknown fields are ignored; quantities parse as the release's
/// `ParseQuantity`), naming types as the `package` Go package does (`v1` for the annotation
/// metric types, `autoscaling` for the internal behavior). `None` when kube-apiserver ignores
/// the annotation; every problem is recorded.
pub fn decode_lenient<T: Decode + Default>(
    annotation: &'static str,
    package: &'static str,
    raw: &str,
    release: KubernetesVersion,
    problems: &mut Vec<AnnotationProblem>,
) -> Option<T> {
    let mut source = JsonSource::new(raw);
    let options = DecodeOptions::ENCODING_JSON.in_release(release);
    let result = decode::decode_from::<T, _>(&mut source, package, options, Strictness::Lenient);
    let syntax = match &result {
        Ok(_) => source.finish().err(),
        Err(_) => {
            let mut check = JsonSource::new(raw);
            check.skip().and_then(|()| check.finish()).err()
        }
    };
    if let Some(e) = syntax {
        problems.push(AnnotationProblem {
            annotation,
            message: format!("annotation {annotation} is not valid JSON ({}); kube-apiserver ignores it", e.message),
            ignored: true,
        });
        return None;
    }
    match result {
        Ok(decoded) => {
            for e in decoded.ignored {
                problems.push(AnnotationProblem {
                    annotation,
                    message: format!(
                        "annotation {annotation} has an unknown field {:?}, which kube-apiserver ignores",
                        e.path
                    ),
                    ignored: false,
                });
            }
            Some(decoded.value)
        }
        Err(errors) => {
            let error = errors.first();
            let at = error.map(|e| e.path.as_str()).filter(|p| !p.is_empty());
            problems.push(AnnotationProblem {
                annotation,
                message: format!(
                    "annotation {annotation} does not have the expected shape{} ({}); kube-apiserver ignores it",
                    at.map(|p| format!(" at {p}")).unwrap_or_default(),
                    error.map(|e| e.message.as_str()).unwrap_or_default()
                ),
                ignored: true,
            });
            None
        }
    }
}

// === the behavior annotation: JSON of the internal Go struct (no json tags, no omitempty) ===

/// `autoscaling.HorizontalPodAutoscalerBehavior` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "autoscaling", name = "HorizontalPodAutoscalerBehavior")]
#[serde(rename_all = "PascalCase")]
pub struct InternalBehavior {
    /// `ScaleUp`
    pub scale_up: Option<InternalRules>,
    /// `ScaleDown`
    pub scale_down: Option<InternalRules>,
}

/// `autoscaling.HPAScalingRules` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "autoscaling", name = "HPAScalingRules")]
#[serde(rename_all = "PascalCase")]
pub struct InternalRules {
    /// `StabilizationWindowSeconds`
    pub stabilization_window_seconds: Option<i32>,
    /// `SelectPolicy`
    pub select_policy: Option<String>,
    /// `Policies`
    pub policies: Option<Vec<InternalPolicy>>,
    /// `Tolerance`
    pub tolerance: Option<Quantity>,
}

/// `autoscaling.HPAScalingPolicy` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Decode)]
#[go(package = "autoscaling", name = "HPAScalingPolicy")]
#[serde(rename_all = "PascalCase")]
pub struct InternalPolicy {
    /// `Type`
    pub r#type: String,
    /// `Value`
    pub value: i32,
    /// `PeriodSeconds`
    pub period_seconds: i32,
}

impl From<&HorizontalPodAutoscalerBehavior> for InternalBehavior {
    fn from(b: &HorizontalPodAutoscalerBehavior) -> Self {
        InternalBehavior {
            scale_up: b.scale_up.as_ref().map(Into::into),
            scale_down: b.scale_down.as_ref().map(Into::into),
        }
    }
}

impl From<&HPAScalingRules> for InternalRules {
    fn from(r: &HPAScalingRules) -> Self {
        InternalRules {
            stabilization_window_seconds: r.stabilization_window_seconds,
            select_policy: r.select_policy.as_deref().map(Into::into),
            policies: r.policies.as_ref().map(|ps| {
                ps.iter()
                    .map(|p| InternalPolicy {
                        r#type: p.type_.as_str().into(),
                        value: p.value,
                        period_seconds: p.period_seconds,
                    })
                    .collect()
            }),
            tolerance: r.tolerance.clone(),
        }
    }
}

impl From<InternalBehavior> for HorizontalPodAutoscalerBehavior {
    fn from(b: InternalBehavior) -> Self {
        HorizontalPodAutoscalerBehavior {
            scale_up: b.scale_up.map(Into::into),
            scale_down: b.scale_down.map(Into::into),
        }
    }
}

impl From<InternalRules> for HPAScalingRules {
    fn from(r: InternalRules) -> Self {
        HPAScalingRules {
            stabilization_window_seconds: r.stabilization_window_seconds,
            select_policy: r.select_policy.map(Into::into),
            policies: r.policies.map(|ps| {
                ps.into_iter()
                    .map(|p| HPAScalingPolicy {
                        type_: p.r#type.into(),
                        value: p.value,
                        period_seconds: p.period_seconds,
                    })
                    .collect()
            }),
            tolerance: r.tolerance,
        }
    }
}

/// The behavior annotation value kube-apiserver writes for a behavior.
pub fn encode_behavior(b: &HorizontalPodAutoscalerBehavior) -> String {
    crate::go::to_go_json(&InternalBehavior::from(b)).unwrap_or_default()
}

/// Reads a behavior annotation as `release`'s kube-apiserver does; `None` when it would ignore
/// it (does not parse, or both directions are `null`).
pub fn decode_behavior(
    raw: &str,
    release: KubernetesVersion,
    problems: &mut Vec<AnnotationProblem>,
) -> Option<HorizontalPodAutoscalerBehavior> {
    let b: InternalBehavior = decode_lenient(BEHAVIOR, "autoscaling", raw, release, problems)?;
    if b.scale_up.is_none() && b.scale_down.is_none() {
        problems.push(AnnotationProblem {
            annotation: BEHAVIOR,
            message: format!("annotation {BEHAVIOR} sets neither ScaleUp nor ScaleDown; kube-apiserver ignores it"),
            ignored: true,
        });
        return None;
    }
    Some(b.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behavior_json_uses_go_field_names() {
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: Some(HPAScalingRules {
                stabilization_window_seconds: Some(0),
                select_policy: Some("Max".into()),
                policies: Some(vec![HPAScalingPolicy { type_: "Pods".into(), value: 4, period_seconds: 15 }]),
                tolerance: Some(Quantity::parse("0.05").unwrap()),
            }),
            scale_down: None,
        };
        assert_eq!(
            encode_behavior(&b),
            r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":"50m"},"ScaleDown":null}"#
        );
    }

    #[test]
    fn behavior_keys_match_case_insensitively() {
        let mut problems = Vec::new();
        let b = decode_behavior(
            r#"{"scaleUp":{"policies":[{"type":"Pods","value":1,"periodSeconds":60}]},"extra":1}"#,
            KubernetesVersion::LATEST,
            &mut problems,
        )
        .unwrap();
        let up = b.scale_up.unwrap();
        assert_eq!(up.policies.unwrap()[0].period_seconds, 60);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(!problems[0].ignored);
    }

    #[test]
    fn malformed_annotations_are_ignored_but_reported() {
        let mut problems = Vec::new();
        assert!(decode_behavior("{not json", KubernetesVersion::LATEST, &mut problems).is_none());
        assert!(decode_behavior("[]", KubernetesVersion::LATEST, &mut problems).is_none());
        assert!(decode_behavior("{}", KubernetesVersion::LATEST, &mut problems).is_none());
        assert!(decode_behavior(r#"{"ScaleUp":{"Policies":"x"}}"#, KubernetesVersion::LATEST, &mut problems).is_none());
        assert_eq!(problems.len(), 4);
        assert!(problems.iter().all(|p| p.ignored && p.message.contains(BEHAVIOR)));
    }
}
