//! `autoscaling/v2beta2` ⇄ internal.
//!
//! Mirrors `pkg/apis/autoscaling/v2beta2/conversion.go` as of v1.33–v1.35: the shape is v2
//! without `tolerance`, which travels in the `autoscaling.alpha.kubernetes.io/scale-up-tolerance`
//! and `.../scale-down-tolerance` annotations.

use crate::api::Quantity;
use crate::api::v2 as int;
use crate::api::v2beta2 as ext;
use crate::features::KubernetesVersion;

use super::annotations as ann;
use super::{Conversion, ConvertError};

/// v2beta2 → internal, as [`KubernetesVersion::LATEST`] converts ([`to_internal_in`]).
pub fn to_internal(
    input: &ext::HorizontalPodAutoscaler,
) -> Result<Conversion<int::HorizontalPodAutoscaler>, ConvertError> {
    to_internal_in(input, KubernetesVersion::LATEST)
}

/// v2beta2 → internal, as `release`'s kube-apiserver converts; a tolerance annotation that
/// its `ParseQuantity` refuses fails the conversion.
pub fn to_internal_in(
    input: &ext::HorizontalPodAutoscaler,
    release: KubernetesVersion,
) -> Result<Conversion<int::HorizontalPodAutoscaler>, ConvertError> {
    let mut metadata = input.metadata.clone();
    let mut behavior = input.spec.behavior.as_ref().map(|b| int::HorizontalPodAutoscalerBehavior {
        scale_up: b.scale_up.as_ref().map(rules_to_internal),
        scale_down: b.scale_down.as_ref().map(rules_to_internal),
    });
    for (key, up) in [(ann::SCALE_UP_TOLERANCE, true), (ann::SCALE_DOWN_TOLERANCE, false)] {
        if let Some(raw) = input.metadata.annotations.get(key) {
            let q = Quantity::parse_in(raw, release).map_err(|e| ConvertError::Annotation {
                annotation: key,
                message: format!("failed to parse annotation {}: {e}", crate::go::quote(key)),
            })?;
            let b = behavior.get_or_insert_with(Default::default);
            let rules = if up { &mut b.scale_up } else { &mut b.scale_down };
            rules.get_or_insert_with(Default::default).tolerance = Some(q);
        }
    }
    ann::drop_round_trip(&mut metadata.annotations);
    Ok(Conversion {
        object: int::HorizontalPodAutoscaler {
            api_version: int::API_VERSION.into(),
            kind: crate::api::KIND.into(),
            metadata,
            spec: int::HorizontalPodAutoscalerSpec {
                scale_target_ref: input.spec.scale_target_ref.clone(),
                min_replicas: input.spec.min_replicas,
                max_replicas: input.spec.max_replicas,
                metrics: input.spec.metrics.clone(),
                behavior,
            },
            status: int::HorizontalPodAutoscalerStatus {
                observed_generation: input.status.observed_generation,
                last_scale_time: input.status.last_scale_time,
                current_replicas: input.status.current_replicas,
                desired_replicas: input.status.desired_replicas,
                current_metrics: input.status.current_metrics.clone(),
                conditions: input
                    .status
                    .conditions
                    .iter()
                    .flatten()
                    .map(|c| int::HorizontalPodAutoscalerCondition {
                        type_: c.type_.clone(),
                        status: c.status.clone(),
                        last_transition_time: c.last_transition_time,
                        reason: c.reason.clone(),
                        message: c.message.clone(),
                        observed_generation: None,
                    })
                    .collect(),
            },
        },
        annotation_problems: Vec::new(),
        lossy: Vec::new(),
    })
}

fn rules_to_internal(r: &ext::HPAScalingRules) -> int::HPAScalingRules {
    int::HPAScalingRules {
        stabilization_window_seconds: r.stabilization_window_seconds,
        select_policy: r.select_policy.as_deref().map(Into::into),
        policies: r.policies.clone(),
        tolerance: None,
    }
}

fn rules_from_internal(r: &int::HPAScalingRules) -> ext::HPAScalingRules {
    ext::HPAScalingRules {
        stabilization_window_seconds: r.stabilization_window_seconds,
        select_policy: r.select_policy.as_deref().map(Into::into),
        policies: r.policies.clone(),
    }
}

/// internal → v2beta2.
pub fn from_internal(input: &int::HorizontalPodAutoscaler) -> Conversion<ext::HorizontalPodAutoscaler> {
    let mut metadata = input.metadata.clone();
    ann::drop_round_trip(&mut metadata.annotations);
    if let Some(b) = &input.spec.behavior {
        for (key, rules) in [(ann::SCALE_DOWN_TOLERANCE, &b.scale_down), (ann::SCALE_UP_TOLERANCE, &b.scale_up)] {
            if let Some(t) = rules.as_ref().and_then(|r| r.tolerance.as_ref()) {
                metadata.annotations.insert(key.into(), t.canonical());
            }
        }
    }
    Conversion {
        object: ext::HorizontalPodAutoscaler {
            api_version: ext::API_VERSION.into(),
            kind: crate::api::KIND.into(),
            metadata,
            spec: ext::HorizontalPodAutoscalerSpec {
                scale_target_ref: input.spec.scale_target_ref.clone(),
                min_replicas: input.spec.min_replicas,
                max_replicas: input.spec.max_replicas,
                metrics: input.spec.metrics.clone(),
                behavior: input.spec.behavior.as_ref().map(|b| ext::HorizontalPodAutoscalerBehavior {
                    scale_up: b.scale_up.as_ref().map(rules_from_internal),
                    scale_down: b.scale_down.as_ref().map(rules_from_internal),
                }),
            },
            status: ext::HorizontalPodAutoscalerStatus {
                observed_generation: input.status.observed_generation,
                last_scale_time: input.status.last_scale_time,
                current_replicas: input.status.current_replicas,
                desired_replicas: input.status.desired_replicas,
                current_metrics: input.status.current_metrics.clone(),
                conditions: (!input.status.conditions.is_empty()).then(|| {
                    input
                        .status
                        .conditions
                        .iter()
                        .map(|c| ext::HorizontalPodAutoscalerCondition {
                            type_: c.type_.clone(),
                            status: c.status.clone(),
                            last_transition_time: c.last_transition_time,
                            reason: c.reason.clone(),
                            message: c.message.clone(),
                        })
                        .collect()
                }),
            },
        },
        annotation_problems: Vec::new(),
        lossy: Vec::new(),
    }
}
