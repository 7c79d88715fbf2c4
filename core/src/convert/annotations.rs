//! The `autoscaling.alpha.kubernetes.io/*` round-trip annotations and their JSON.
//!
//! Mirrors `pkg/apis/autoscaling/annotations.go` and `helpers.go`
//! (`DropRoundTripHorizontalPodAutoscalerAnnotations`). The annotations are read with Go's
//! `encoding/json`, which matches keys case-insensitively and ignores unknown fields; a value
//! that does not decode is silently ignored by kube-apiserver. Both behaviors are kept, and
//! every problem is recorded as an [`AnnotationProblem`] so that the linter can report it.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::Quantity;
use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior};

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

/// Decodes an annotation value like Go's `json.Unmarshal`: keys folded case-insensitively to
/// the field names in `vocabulary`, unknown fields ignored (and reported), `null` → default.
pub fn decode_lenient<T: DeserializeOwned + Default>(
    annotation: &'static str,
    raw: &str,
    vocabulary: &[&str],
    problems: &mut Vec<AnnotationProblem>,
) -> Option<T> {
    let value: Value = match serde_json::from_str(raw) {
        Ok(v) => v,
        Err(e) => {
            problems.push(AnnotationProblem {
                annotation,
                message: format!("annotation {annotation} is not valid JSON ({e}); kube-apiserver ignores it"),
                ignored: true,
            });
            return None;
        }
    };
    if value.is_null() {
        return Some(T::default());
    }
    let folded = fold_keys(value, vocabulary);
    let mut unknown = Vec::new();
    let result: Result<T, _> =
        serde_ignored::deserialize(crate::api::strict::Strict(&folded), |p| unknown.push(p.to_string()));
    match result {
        Ok(v) => {
            for path in unknown {
                problems.push(AnnotationProblem {
                    annotation,
                    message: format!(
                        "annotation {annotation} has an unknown field {path:?}, which kube-apiserver ignores"
                    ),
                    ignored: false,
                });
            }
            Some(v)
        }
        Err(e) => {
            let where_ = match serde_path_to_error::deserialize::<_, T>(crate::api::strict::Strict(&folded)) {
                Err(pe) if !pe.path().to_string().is_empty() && pe.path().to_string() != "." => {
                    format!(" at {}", pe.path())
                }
                _ => String::new(),
            };
            problems.push(AnnotationProblem {
                annotation,
                message: format!(
                    "annotation {annotation} does not have the expected shape{where_} ({e}); kube-apiserver ignores it"
                ),
                ignored: true,
            });
            None
        }
    }
}

/// Renames object keys to the canonical field name they match case-insensitively (Go's
/// `encoding/json` rule), except inside `matchLabels`, whose keys are data. When two keys fold
/// to the same field the later one wins, as in Go.
fn fold_keys(value: Value, vocabulary: &[&str]) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(|v| fold_keys(v, vocabulary)).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let canonical = if vocabulary.contains(&k.as_str()) {
                    k
                } else {
                    vocabulary.iter().find(|f| f.eq_ignore_ascii_case(&k)).map(|f| (*f).to_string()).unwrap_or(k)
                };
                let v = if canonical == "matchLabels" { v } else { fold_keys(v, vocabulary) };
                out.insert(canonical, v);
            }
            Value::Object(out)
        }
        other => other,
    }
}

/// Field names of the v1 annotation metric and condition types (and metav1 selectors).
pub const V1_VOCABULARY: &[&str] = &[
    "type",
    "object",
    "pods",
    "resource",
    "containerResource",
    "external",
    "target",
    "metricName",
    "targetValue",
    "selector",
    "averageValue",
    "targetAverageValue",
    "name",
    "targetAverageUtilization",
    "container",
    "metricSelector",
    "currentValue",
    "currentAverageValue",
    "currentAverageUtilization",
    "kind",
    "apiVersion",
    "matchLabels",
    "matchExpressions",
    "key",
    "operator",
    "values",
    "status",
    "lastTransitionTime",
    "reason",
    "message",
    "observedGeneration",
];

/// Field names of the internal behavior type.
pub const BEHAVIOR_VOCABULARY: &[&str] = &[
    "ScaleUp",
    "ScaleDown",
    "StabilizationWindowSeconds",
    "SelectPolicy",
    "Policies",
    "Tolerance",
    "Type",
    "Value",
    "PeriodSeconds",
];

// === the behavior annotation: JSON of the internal Go struct (no json tags, no omitempty) ===

/// `autoscaling.HorizontalPodAutoscalerBehavior` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InternalBehavior {
    /// `ScaleUp`
    #[serde(default)]
    pub scale_up: Option<InternalRules>,
    /// `ScaleDown`
    #[serde(default)]
    pub scale_down: Option<InternalRules>,
}

/// `autoscaling.HPAScalingRules` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InternalRules {
    /// `StabilizationWindowSeconds`
    #[serde(default)]
    pub stabilization_window_seconds: Option<i32>,
    /// `SelectPolicy`
    #[serde(default)]
    pub select_policy: Option<String>,
    /// `Policies`
    #[serde(default)]
    pub policies: Option<Vec<InternalPolicy>>,
    /// `Tolerance`
    #[serde(default)]
    pub tolerance: Option<Quantity>,
}

/// `autoscaling.HPAScalingPolicy` as `encoding/json` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InternalPolicy {
    /// `Type`
    #[serde(default, deserialize_with = "crate::api::de::nullable")]
    pub r#type: String,
    /// `Value`
    #[serde(default, deserialize_with = "crate::api::de::nullable")]
    pub value: i32,
    /// `PeriodSeconds`
    #[serde(default, deserialize_with = "crate::api::de::nullable")]
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

/// Reads a behavior annotation; `None` when kube-apiserver would ignore it (does not parse,
/// or both directions are `null`).
pub fn decode_behavior(raw: &str, problems: &mut Vec<AnnotationProblem>) -> Option<HorizontalPodAutoscalerBehavior> {
    let b: InternalBehavior = decode_lenient(BEHAVIOR, raw, BEHAVIOR_VOCABULARY, problems)?;
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
        assert!(decode_behavior("{not json", &mut problems).is_none());
        assert!(decode_behavior("[]", &mut problems).is_none());
        assert!(decode_behavior("{}", &mut problems).is_none());
        assert!(decode_behavior(r#"{"ScaleUp":{"Policies":"x"}}"#, &mut problems).is_none());
        assert_eq!(problems.len(), 4);
        assert!(problems.iter().all(|p| p.ignored && p.message.contains(BEHAVIOR)));
    }
}
