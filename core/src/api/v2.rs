//! `autoscaling/v2`, which is also the internal (hub) shape every other version converts to.
//!
//! Field order and `omitempty` follow `k8s.io/api/autoscaling/v2/types.go`. Enumerations are
//! plain strings so that invalid input can be represented and reported.

use compact_str::CompactString;
use serde::Serialize;

use super::de::is_zero_i32;
use super::decode::Decode;
use super::meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
use super::quantity::Quantity;
use super::time::Time;

/// The `apiVersion` of this module.
pub const API_VERSION: &str = "autoscaling/v2";

/// `MetricSourceType` values, sorted as kube-apiserver lists them.
pub const METRIC_SOURCE_TYPES: [&str; 5] = ["ContainerResource", "External", "Object", "Pods", "Resource"];

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
    /// `metrics`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSpec>,
    /// `behavior`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behavior: Option<HorizontalPodAutoscalerBehavior>,
}

/// `MetricSpec`: one metric; exactly one source should be set, matching `type`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    #[go(type = "MetricSourceType")]
    /// `type`
    #[serde(rename = "type")]
    pub type_: CompactString,
    /// `object`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<Box<ObjectMetricSource>>,
    /// `pods`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pods: Option<Box<PodsMetricSource>>,
    /// `resource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<Box<ResourceMetricSource>>,
    /// `containerResource`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<Box<ContainerResourceMetricSource>>,
    /// `external`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<Box<ExternalMetricSource>>,
}

/// `ObjectMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// `describedObject`
    pub described_object: CrossVersionObjectReference,
    /// `target`
    pub target: MetricTarget,
    /// `metric`
    pub metric: MetricIdentifier,
}

/// `PodsMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// `metric`
    pub metric: MetricIdentifier,
    /// `target`
    pub target: MetricTarget,
}

/// `ResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: CompactString,
    /// `target`
    pub target: MetricTarget,
}

/// `ContainerResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: CompactString,
    /// `target`
    pub target: MetricTarget,
    /// `container`
    pub container: CompactString,
}

/// `ExternalMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// `metric`
    pub metric: MetricIdentifier,
    /// `target`
    pub target: MetricTarget,
}

/// `MetricIdentifier`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    /// `name`
    pub name: CompactString,
    /// `selector`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `MetricTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricTarget {
    #[go(type = "MetricTargetType")]
    /// `type`: Utilization, Value or AverageValue
    #[serde(rename = "type")]
    pub type_: CompactString,
    /// `value`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

/// `HorizontalPodAutoscalerBehavior`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerBehavior {
    /// `scaleUp`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_up: Option<HPAScalingRules>,
    /// `scaleDown`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_down: Option<HPAScalingRules>,
}

/// `HPAScalingRules`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HPAScalingRules {
    /// `stabilizationWindowSeconds`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    #[go(type = "ScalingPolicySelect")]
    /// `selectPolicy`: Max, Min or Disabled
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<CompactString>,
    /// `policies`; `None` is Go's nil, `Some(vec![])` an explicit empty list
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policies: Option<Vec<HPAScalingPolicy>>,
    /// `tolerance`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Quantity>,
}

/// `HPAScalingPolicy`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HPAScalingPolicy {
    #[go(type = "HPAScalingPolicyType")]
    /// `type`: Pods or Percent
    #[serde(rename = "type")]
    pub type_: CompactString,
    /// `value`
    pub value: i32,
    /// `periodSeconds`
    pub period_seconds: i32,
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
    #[serde(skip_serializing_if = "is_zero_i32")]
    pub current_replicas: i32,
    /// `desiredReplicas`
    pub desired_replicas: i32,
    /// `currentMetrics`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_metrics: Option<Vec<MetricStatus>>,
    /// `conditions`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<HorizontalPodAutoscalerCondition>,
}

/// `HorizontalPodAutoscalerCondition`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerCondition {
    #[go(type = "HorizontalPodAutoscalerConditionType")]
    /// `type`
    #[serde(rename = "type")]
    pub type_: String,
    #[go(type = "v1.ConditionStatus")]
    /// `status`: True, False or Unknown
    pub status: String,
    /// `lastTransitionTime` (Go writes the zero time as `null`; it is omitted here)
    #[serde(skip_serializing_if = "Time::is_zero")]
    pub last_transition_time: Time,
    /// `reason`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `observedGeneration` (added in 1.37, kubernetes#138653)
    #[serde(skip_serializing_if = "Option::is_none")]
    #[go(since = "1.37")]
    pub observed_generation: Option<i64>,
}

/// `MetricStatus`.
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

/// `ObjectMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// `metric`
    pub metric: MetricIdentifier,
    /// `current`
    pub current: MetricValueStatus,
    /// `describedObject`
    pub described_object: CrossVersionObjectReference,
}

/// `PodsMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// `metric`
    pub metric: MetricIdentifier,
    /// `current`
    pub current: MetricValueStatus,
}

/// `ResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `current`
    pub current: MetricValueStatus,
}

/// `ContainerResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    #[go(type = "v1.ResourceName")]
    /// `name`
    pub name: String,
    /// `current`
    pub current: MetricValueStatus,
    /// `container`
    pub container: String,
}

/// `ExternalMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// `metric`
    pub metric: MetricIdentifier,
    /// `current`
    pub current: MetricValueStatus,
}

/// `MetricValueStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueStatus {
    /// `value`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}
