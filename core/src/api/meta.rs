//! `metav1` types shared by every API version: `ObjectMeta`, `LabelSelector`, references.
//!
//! Field order and `omitempty` follow `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::de::is_zero_i64;
use super::decode::Decode;
use super::time::Time;

/// `metav1.ObjectMeta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `name`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `generateName`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    /// `namespace`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `selfLink`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub self_link: String,
    #[go(type = "types.UID")]
    /// `uid`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// `resourceVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    /// `generation`
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    /// `creationTimestamp` (zero time omitted)
    #[serde(skip_serializing_if = "Time::is_zero")]
    pub creation_timestamp: Time,
    /// `deletionTimestamp`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    /// `deletionGracePeriodSeconds`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `labels`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `annotations`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// `ownerReferences`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    /// `finalizers`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// `managedFields`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

/// `metav1.OwnerReference`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `name`
    pub name: String,
    #[go(type = "types.UID")]
    /// `uid`
    pub uid: String,
    /// `controller`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// `metav1.ManagedFieldsEntry`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// `manager`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub manager: String,
    #[go(type = "ManagedFieldsOperationType")]
    /// `operation`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operation: String,
    /// `apiVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `time`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// `fieldsType`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fields_type: String,
    /// `fieldsV1`: raw managed-fields JSON.
    #[serde(rename = "fieldsV1", skip_serializing_if = "Option::is_none")]
    pub fields_v1: Option<serde_json::Value>,
    /// `subresource`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// `matchLabels`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    /// `key`
    pub key: String,
    #[go(type = "LabelSelectorOperator")]
    /// `operator`
    pub operator: String,
    /// `values`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `CrossVersionObjectReference` (identical in every autoscaling version).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    /// `kind`
    pub kind: String,
    /// `name`
    pub name: String,
    /// `apiVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
}
