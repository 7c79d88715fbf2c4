//! `autoscaling/v2beta1` ⇄ internal.
//!
//! Mirrors `pkg/apis/autoscaling/v2beta1/conversion.go` as of v1.35: metrics and statuses
//! convert like the v1 annotation types (except that an Object `targetValue` is always kept),
//! behavior travels in the `autoscaling.alpha.kubernetes.io/behavior` annotation, and all
//! round-trip annotations are dropped in both directions.

use crate::api::v2 as int;
use crate::api::v2beta1 as ext;

use crate::features::KubernetesVersion;

use super::Conversion;
use super::annotations as ann;
use super::v1::{
    metric_spec_from_internal, metric_spec_to_internal, metric_status_from_internal, metric_status_to_internal,
};

/// v2beta1 → internal, as [`KubernetesVersion::LATEST`] converts ([`to_internal_in`]).
pub fn to_internal(input: &ext::HorizontalPodAutoscaler) -> Conversion<int::HorizontalPodAutoscaler> {
    to_internal_in(input, KubernetesVersion::LATEST)
}

/// v2beta1 → internal, as `release`'s kube-apiserver converts (its `ParseQuantity` reads the
/// behavior annotation's tolerances).
pub fn to_internal_in(
    input: &ext::HorizontalPodAutoscaler,
    release: KubernetesVersion,
) -> Conversion<int::HorizontalPodAutoscaler> {
    let mut problems = Vec::new();
    let mut metadata = input.metadata.clone();
    ann::drop_round_trip(&mut metadata.annotations);
    let behavior =
        input.metadata.annotations.get(ann::BEHAVIOR).and_then(|raw| ann::decode_behavior(raw, release, &mut problems));
    Conversion {
        object: int::HorizontalPodAutoscaler {
            api_version: int::API_VERSION.into(),
            kind: crate::api::KIND.into(),
            metadata,
            spec: int::HorizontalPodAutoscalerSpec {
                scale_target_ref: input.spec.scale_target_ref.clone(),
                min_replicas: input.spec.min_replicas,
                max_replicas: input.spec.max_replicas,
                metrics: input.spec.metrics.iter().map(|m| metric_spec_to_internal(m, true)).collect(),
                behavior,
            },
            status: int::HorizontalPodAutoscalerStatus {
                observed_generation: input.status.observed_generation,
                last_scale_time: input.status.last_scale_time,
                current_replicas: input.status.current_replicas,
                desired_replicas: input.status.desired_replicas,
                current_metrics: input
                    .status
                    .current_metrics
                    .as_ref()
                    .map(|ms| ms.iter().map(metric_status_to_internal).collect()),
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
        annotation_problems: problems,
        lossy: Vec::new(),
    }
}

/// internal → v2beta1.
pub fn from_internal(input: &int::HorizontalPodAutoscaler) -> Conversion<ext::HorizontalPodAutoscaler> {
    let mut metadata = input.metadata.clone();
    ann::drop_round_trip(&mut metadata.annotations);
    if let Some(b) = &input.spec.behavior {
        metadata.annotations.insert(ann::BEHAVIOR.into(), ann::encode_behavior(b));
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
                metrics: input.spec.metrics.iter().map(metric_spec_from_internal).collect(),
            },
            status: ext::HorizontalPodAutoscalerStatus {
                observed_generation: input.status.observed_generation,
                last_scale_time: input.status.last_scale_time,
                current_replicas: input.status.current_replicas,
                desired_replicas: input.status.desired_replicas,
                current_metrics: input
                    .status
                    .current_metrics
                    .as_ref()
                    .map(|ms| ms.iter().map(metric_status_from_internal).collect()),
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
