//! `autoscaling/v2`, which is also the internal (hub) shape every other version converts to.
//!
//! Field order and `omitempty` follow `k8s.io/api/autoscaling/v2/types.go`. Enumerations are
//! plain strings so that invalid input can be represented and reported.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::de::{is_zero_i32, nullable};
use super::meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
use super::quantity::Quantity;
use super::time::Time;

/// The `apiVersion` of this module.
pub const API_VERSION: &str = "autoscaling/v2";

/// `MetricSourceType` values, sorted as kube-apiserver lists them.
pub const METRIC_SOURCE_TYPES: [&str; 5] = ["ContainerResource", "External", "Object", "Pods", "Resource"];

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
    /// `metrics`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSpec>,
    /// `behavior`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behavior: Option<HorizontalPodAutoscalerBehavior>,
}

/// `MetricSpec`: one metric; exactly one source should be set, matching `type`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    /// `type`
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: CompactString,
    /// `object`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Box<ObjectMetricSource>>,
    /// `pods`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<Box<PodsMetricSource>>,
    /// `resource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<Box<ResourceMetricSource>>,
    /// `containerResource`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<Box<ContainerResourceMetricSource>>,
    /// `external`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<Box<ExternalMetricSource>>,
}

/// `ObjectMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// `describedObject`
    #[serde(default, deserialize_with = "nullable")]
    pub described_object: CrossVersionObjectReference,
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: MetricTarget,
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
}

/// `PodsMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: MetricTarget,
}

/// `ResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: CompactString,
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: MetricTarget,
}

/// `ContainerResourceMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: CompactString,
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: MetricTarget,
    /// `container`
    #[serde(default, deserialize_with = "nullable")]
    pub container: CompactString,
}

/// `ExternalMetricSource`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
    /// `target`
    #[serde(default, deserialize_with = "nullable")]
    pub target: MetricTarget,
}

/// `MetricIdentifier`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: CompactString,
    /// `selector`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `MetricTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricTarget {
    /// `type`: Utilization, Value or AverageValue
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: CompactString,
    /// `value`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

/// `HorizontalPodAutoscalerBehavior`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerBehavior {
    /// `scaleUp`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up: Option<HPAScalingRules>,
    /// `scaleDown`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_down: Option<HPAScalingRules>,
}

/// `HPAScalingRules`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HPAScalingRules {
    /// `stabilizationWindowSeconds`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    /// `selectPolicy`: Max, Min or Disabled
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<CompactString>,
    /// `policies`; `None` is Go's nil, `Some(vec![])` an explicit empty list
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policies: Option<Vec<HPAScalingPolicy>>,
    /// `tolerance`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Quantity>,
}

/// `HPAScalingPolicy`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HPAScalingPolicy {
    /// `type`: Pods or Percent
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: CompactString,
    /// `value`
    #[serde(default, deserialize_with = "nullable")]
    pub value: i32,
    /// `periodSeconds`
    #[serde(default, deserialize_with = "nullable")]
    pub period_seconds: i32,
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
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i32")]
    pub current_replicas: i32,
    /// `desiredReplicas`
    #[serde(default, deserialize_with = "nullable")]
    pub desired_replicas: i32,
    /// `currentMetrics`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_metrics: Option<Vec<MetricStatus>>,
    /// `conditions`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<HorizontalPodAutoscalerCondition>,
}

/// `HorizontalPodAutoscalerCondition`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerCondition {
    /// `type`
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    pub type_: String,
    /// `status`: True, False or Unknown
    #[serde(default, deserialize_with = "nullable")]
    pub status: String,
    /// `lastTransitionTime` (Go writes the zero time as `null`; it is omitted here)
    #[serde(default, skip_serializing_if = "Time::is_zero")]
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

/// `MetricStatus`.
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

/// `ObjectMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
    /// `current`
    #[serde(default, deserialize_with = "nullable")]
    pub current: MetricValueStatus,
    /// `describedObject`
    #[serde(default, deserialize_with = "nullable")]
    pub described_object: CrossVersionObjectReference,
}

/// `PodsMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
    /// `current`
    #[serde(default, deserialize_with = "nullable")]
    pub current: MetricValueStatus,
}

/// `ResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `current`
    #[serde(default, deserialize_with = "nullable")]
    pub current: MetricValueStatus,
}

/// `ContainerResourceMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `current`
    #[serde(default, deserialize_with = "nullable")]
    pub current: MetricValueStatus,
    /// `container`
    #[serde(default, deserialize_with = "nullable")]
    pub container: String,
}

/// `ExternalMetricStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// `metric`
    #[serde(default, deserialize_with = "nullable")]
    pub metric: MetricIdentifier,
    /// `current`
    #[serde(default, deserialize_with = "nullable")]
    pub current: MetricValueStatus,
}

/// `MetricValueStatus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueStatus {
    /// `value`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// `averageValue`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// `averageUtilization`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}

impl HorizontalPodAutoscaler {
    /// `kind` and `apiVersion` as written for this version.
    pub fn with_type_meta(mut self) -> Self {
        self.api_version = API_VERSION.to_string();
        self.kind = "HorizontalPodAutoscaler".to_string();
        self
    }
}
