//! `autoscaling/v1`, plus the "alpha" metric types that v1 keeps in annotations.
//!
//! Field order and `omitempty` follow `k8s.io/api/autoscaling/v1/types.go`. The metric types
//! (`MetricSpec`, `MetricStatus`, ...) are the shapes of the
//! `autoscaling.alpha.kubernetes.io/metrics` and `.../current-metrics` annotations; they are
//! also the metric shapes of `autoscaling/v2beta1`.

use serde::{Deserialize, Serialize};

use super::de::nullable;
use super::meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
use super::quantity::Quantity;
use super::time::Time;

/// The `apiVersion` of this module.
pub const API_VERSION: &str = "autoscaling/v1";

/// `HorizontalPodAutoscaler`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    /// `apiVersion`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `kind`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// `metadata`
    #[serde(default, deserialize_with = "nullable")]
    pub metadata: ObjectMeta,
    /// `spec`
    #[serde(default, deserialize_with = "nullable")]
    pub spec: HorizontalPodAutoscalerSpec,
    /// `status`
    #[serde(default, deserialize_with = "nullable")]
    pub status: HorizontalPodAutoscalerStatus,
}

/// `HorizontalPodAutoscalerSpec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerSpec {
    /// `scaleTargetRef`
    #[serde(default, deserialize_with = "nullable")]
    pub scale_target_ref: CrossVersionObjectReference,
    /// `minReplicas`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// `maxReplicas`
    #[serde(default, deserialize_with = "nullable")]
    pub max_replicas: i32,
    /// `targetCPUUtilizationPercentage`
    #[serde(default, rename = "targetCPUUtilizationPercentage", skip_serializing_if = "Option::is_none")]
    pub target_cpu_utilization_percentage: Option<i32>,
}

/// `HorizontalPodAutoscalerStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerStatus {
    /// `observedGeneration`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `lastScaleTime`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_scale_time: Option<Time>,
    /// `currentReplicas`
    #[serde(default, deserialize_with = "nullable")]
    pub current_replicas: i32,
    /// `desiredReplicas`
    #[serde(default, deserialize_with = "nullable")]
    pub desired_replicas: i32,
    /// `currentCPUUtilizationPercentage`
    #[serde(default, rename = "currentCPUUtilizationPercentage", skip_serializing_if = "Option::is_none")]
    pub current_cpu_utilization_percentage: Option<i32>,
}

/// Annotation `MetricSpec` (also the v2beta1 `MetricSpec`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    /// `type`
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    /// `object`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricSource>,
    /// `pods`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricSource>,
    /// `resource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricSource>,
    /// `containerResource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricSource>,
    /// `external`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricSource>,
}

/// Annotation `ObjectMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: CrossVersionObjectReference,
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `targetValue` (not a pointer: always written, `"0"` when unset)
    #[serde(default, deserialize_with = "nullable")]
    pub target_value: Quantity,
    /// `selector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// `averageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// Annotation `PodsMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `targetAverageValue`
    #[serde(default, deserialize_with = "nullable")]
    pub target_average_value: Quantity,
    /// `selector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// Annotation `ResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `targetAverageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// `targetAverageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// Annotation `ContainerResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `targetAverageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// `targetAverageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
    /// `container`
    #[serde(default, deserialize_with = "nullable")]
    pub container: String,
}

/// Annotation `ExternalMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `metricSelector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// `targetValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_value: Option<Quantity>,
    /// `targetAverageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// Annotation `MetricStatus` (also the v2beta1 `MetricStatus`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    /// `type`
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    /// `object`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricStatus>,
    /// `pods`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricStatus>,
    /// `resource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricStatus>,
    /// `containerResource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    /// `external`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricStatus>,
}

/// Annotation `ObjectMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: CrossVersionObjectReference,
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `currentValue`
    #[serde(default, deserialize_with = "nullable")]
    pub current_value: Quantity,
    /// `selector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// `averageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// Annotation `PodsMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `currentAverageValue`
    #[serde(default, deserialize_with = "nullable")]
    pub current_average_value: Quantity,
    /// `selector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// Annotation `ResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `currentAverageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// `currentAverageValue`
    #[serde(default, deserialize_with = "nullable")]
    pub current_average_value: Quantity,
}

/// Annotation `ContainerResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `currentAverageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// `currentAverageValue`
    #[serde(default, deserialize_with = "nullable")]
    pub current_average_value: Quantity,
    /// `container`
    #[serde(default, deserialize_with = "nullable")]
    pub container: String,
}

/// Annotation `ExternalMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// `metricName`
    #[serde(default, deserialize_with = "nullable")]
    pub metric_name: String,
    /// `metricSelector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// `currentValue`
    #[serde(default, deserialize_with = "nullable")]
    pub current_value: Quantity,
    /// `currentAverageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_value: Option<Quantity>,
}

/// Annotation `HorizontalPodAutoscalerCondition`; the zero time is written as `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerCondition {
    /// `type`
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    /// `status`
    #[serde(default, deserialize_with = "nullable")]
    pub status: String,
    /// `lastTransitionTime`
    #[serde(default)]
    pub last_transition_time: Time,
    /// `reason`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `observedGeneration`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
