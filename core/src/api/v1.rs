//! `autoscaling/v1`, plus the "alpha" metric types that v1 keeps in annotations.
//!
//! Field order and `omitempty` follow `k8s.io/api/autoscaling/v1/types.go`. The metric types
//! (`MetricSpec`, `MetricStatus`, ...) are the shapes of the
//! `autoscaling.alpha.kubernetes.io/metrics` and `.../current-metrics` annotations; they are
//! also the metric shapes of `autoscaling/v2beta1`.

use serde::Serialize;

use super::decode::Decode;
use super::meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
use super::quantity::Quantity;
use super::time::Time;

/// The `apiVersion` of this module.
pub const API_VERSION: &str = "autoscaling/v1";

/// `HorizontalPodAutoscaler`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    /// `apiVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `kind`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// `metadata`
    pub metadata: ObjectMeta,
    /// `spec`
    pub spec: HorizontalPodAutoscalerSpec,
    /// `status`
    pub status: HorizontalPodAutoscalerStatus,
}

/// `HorizontalPodAutoscalerSpec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerSpec {
    /// `scaleTargetRef`
    pub scale_target_ref: CrossVersionObjectReference,
    /// `minReplicas`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// `maxReplicas`
    pub max_replicas: i32,
    /// `targetCPUUtilizationPercentage`
    #[serde(rename = "targetCPUUtilizationPercentage", skip_serializing_if = "Option::is_none")]
    pub target_cpu_utilization_percentage: Option<i32>,
}

/// `HorizontalPodAutoscalerStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerStatus {
    /// `observedGeneration`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `lastScaleTime`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_scale_time: Option<Time>,
    /// `currentReplicas`
    pub current_replicas: i32,
    /// `desiredReplicas`
    pub desired_replicas: i32,
    /// `currentCPUUtilizationPercentage`
    #[serde(rename = "currentCPUUtilizationPercentage", skip_serializing_if = "Option::is_none")]
    pub current_cpu_utilization_percentage: Option<i32>,
}

/// Annotation `MetricSpec` (also the v2beta1 `MetricSpec`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    #[go(type = "MetricSourceType")]
    /// `type`
    #[serde(rename = "type")]
    pub type_: String,
    /// `object`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricSource>,
    /// `pods`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricSource>,
    /// `resource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricSource>,
    /// `containerResource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricSource>,
    /// `external`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricSource>,
}

/// Annotation `ObjectMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// `target`
    pub target: CrossVersionObjectReference,
    /// `metricName`
    pub metric_name: String,
    /// `targetValue` (not a pointer: always written, `"0"` when unset)
    pub target_value: Quantity,
    /// `selector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// `averageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// Annotation `PodsMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// `metricName`
    pub metric_name: String,
    /// `targetAverageValue`
    pub target_average_value: Quantity,
    /// `selector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// Annotation `ResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `targetAverageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// `targetAverageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// Annotation `ContainerResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `targetAverageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// `targetAverageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
    /// `container`
    pub container: String,
}

/// Annotation `ExternalMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// `metricName`
    pub metric_name: String,
    /// `metricSelector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// `targetValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_value: Option<Quantity>,
    /// `targetAverageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// Annotation `MetricStatus` (also the v2beta1 `MetricStatus`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    #[go(type = "MetricSourceType")]
    /// `type`
    #[serde(rename = "type")]
    pub type_: String,
    /// `object`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricStatus>,
    /// `pods`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricStatus>,
    /// `resource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricStatus>,
    /// `containerResource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    /// `external`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricStatus>,
}

/// Annotation `ObjectMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// `target`
    pub target: CrossVersionObjectReference,
    /// `metricName`
    pub metric_name: String,
    /// `currentValue`
    pub current_value: Quantity,
    /// `selector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// `averageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// Annotation `PodsMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// `metricName`
    pub metric_name: String,
    /// `currentAverageValue`
    pub current_average_value: Quantity,
    /// `selector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// Annotation `ResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `currentAverageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// `currentAverageValue`
    pub current_average_value: Quantity,
}

/// Annotation `ContainerResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `currentAverageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// `currentAverageValue`
    pub current_average_value: Quantity,
    /// `container`
    pub container: String,
}

/// Annotation `ExternalMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// `metricName`
    pub metric_name: String,
    /// `metricSelector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// `currentValue`
    pub current_value: Quantity,
    /// `currentAverageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_average_value: Option<Quantity>,
}

/// Annotation `HorizontalPodAutoscalerCondition`; the zero time is written as `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerCondition {
    #[go(type = "HorizontalPodAutoscalerConditionType")]
    /// `type`
    #[serde(rename = "type")]
    pub type_: String,
    #[go(type = "v1.ConditionStatus")]
    /// `status`
    pub status: String,
    /// `lastTransitionTime`
    pub last_transition_time: Time,
    /// `reason`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `observedGeneration`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
