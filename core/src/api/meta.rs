//! `metav1` types shared by every API version: `ObjectMeta`, `LabelSelector`, references.
//!
//! Field order and `omitempty` follow `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::de::{is_zero_i64, nullable, string_list, string_map};
use super::time::Time;

/// `metav1.ObjectMeta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `name`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `generateName`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    /// `namespace`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `selfLink`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub self_link: String,
    /// `uid`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// `resourceVersion`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    /// `generation`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    /// `creationTimestamp` (zero time omitted)
    #[serde(default, skip_serializing_if = "Time::is_zero")]
    pub creation_timestamp: Time,
    /// `deletionTimestamp`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    /// `deletionGracePeriodSeconds`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `labels`
    #[serde(default, deserialize_with = "string_map", skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `annotations`
    #[serde(default, deserialize_with = "string_map", skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// `ownerReferences`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    /// `finalizers`
    #[serde(default, deserialize_with = "string_list", skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// `managedFields`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

/// `metav1.OwnerReference`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// `apiVersion`
    #[serde(default, deserialize_with = "nullable")]
    pub api_version: String,
    /// `kind`
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `uid`
    #[serde(default, deserialize_with = "nullable")]
    pub uid: String,
    /// `controller`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// `metav1.ManagedFieldsEntry`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// `manager`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub manager: String,
    /// `operation`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub operation: String,
    /// `apiVersion`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `time`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// `fieldsType`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub fields_type: String,
    /// `fieldsV1`: raw managed-fields JSON.
    #[serde(default, rename = "fieldsV1", skip_serializing_if = "Option::is_none")]
    pub fields_v1: Option<serde_json::Value>,
    /// `subresource`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// `matchLabels`
    #[serde(default, deserialize_with = "string_map", skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    /// `key`
    #[serde(default, deserialize_with = "nullable")]
    pub key: String,
    /// `operator`
    #[serde(default, deserialize_with = "nullable")]
    pub operator: String,
    /// `values`
    #[serde(default, deserialize_with = "string_list", skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `CrossVersionObjectReference` (identical in every autoscaling version).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    /// `kind`
    #[serde(default, deserialize_with = "nullable")]
    pub kind: String,
    /// `name`
    #[serde(default, deserialize_with = "nullable")]
    pub name: String,
    /// `apiVersion`
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub api_version: String,
}
