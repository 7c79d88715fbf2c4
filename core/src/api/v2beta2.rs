//! `autoscaling/v2beta2` (not served since Kubernetes 1.26; its code left the scheme in 1.36).
//!
//! The shape of v2 without `tolerance` and without condition `observedGeneration`; metric
//! specs, statuses and policies are the v2 types. Field order and `omitempty` follow
//! `k8s.io/api/autoscaling/v2beta2/types.go` as of v1.35.

use serde::Serialize;

use super::decode::Decode;
use super::meta::{CrossVersionObjectReference, ObjectMeta};
use super::time::Time;
use super::v2::{HPAScalingPolicy, MetricSpec, MetricStatus};

/// The `apiVersion` of this module.
pub const API_VERSION: &str = "autoscaling/v2beta2";

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

/// `HPAScalingRules` (no `tolerance`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct HPAScalingRules {
    /// `stabilizationWindowSeconds`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    #[go(type = "ScalingPolicySelect")]
    /// `selectPolicy`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<String>,
    /// `policies`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policies: Option<Vec<HPAScalingPolicy>>,
}

/// `HorizontalPodAutoscalerStatus` (`currentReplicas` and `conditions` without `omitempty`).
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
    /// `currentMetrics`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_metrics: Option<Vec<MetricStatus>>,
    /// `conditions`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<HorizontalPodAutoscalerCondition>>,
}

/// `HorizontalPodAutoscalerCondition` (no `observedGeneration`).
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
    #[serde(skip_serializing_if = "Time::is_zero")]
    pub last_transition_time: Time,
    /// `reason`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}
