//! A live object of any kind as hpa-cluster's watches receive it: its JSON, read as client-go's
//! dynamic client reads it.
//!
//! kube's `DynamicObject` is read by `serde_json` field by field, which refuses a whole list
//! page or watch event when a string holds a lone surrogate escape (`\ud800`). Go accepts one,
//! and kube-apiserver keeps it where it stores JSON unparsed (`metadata.managedFields[].fieldsV1`,
//! `FieldsV1.Raw`), so one such object would keep a kind from ever syncing. [`LiveObject`] takes
//! each object's text whole and reads it with [`hpa_core::go::parse_tree`] (U+FFFD, as
//! `encoding/json` decodes it into an `interface{}`).

use std::borrow::Cow;

use k8s_openapi::serde::de::Error as _;
use k8s_openapi::serde::{Deserialize, Deserializer};
use kube::api::ApiResource;
use kube::core::{DynamicResourceScope, ObjectMeta, Resource};
use serde_json::Value;
use serde_json::value::RawValue;

/// A live object: what the watcher and the cache read of its metadata (name, namespace,
/// resource version, uid) and its whole JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveObject {
    /// `metadata.name`, `namespace`, `resourceVersion` and `uid` (the rest is in `json`).
    pub metadata: ObjectMeta,
    /// The object as JSON (a lone surrogate escape read as U+FFFD).
    pub json: Value,
}

impl<'de> Deserialize<'de> for LiveObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LiveObject, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let json = hpa_core::go::parse_tree(raw.get()).map_err(D::Error::custom)?;
        // What the watcher and the cache read of it (not its managed fields, which would be
        // copied): identity and version.
        let text = |key: &str| json.get("metadata").and_then(|m| m.get(key)).and_then(Value::as_str).map(String::from);
        let metadata = ObjectMeta {
            name: text("name"),
            namespace: text("namespace"),
            resource_version: text("resourceVersion"),
            uid: text("uid"),
            ..ObjectMeta::default()
        };
        Ok(LiveObject { metadata, json })
    }
}

/// As `DynamicObject`: the kind is the [`ApiResource`] the `Api` is made with.
impl Resource for LiveObject {
    type DynamicType = ApiResource;
    type Scope = DynamicResourceScope;

    fn group(dt: &ApiResource) -> Cow<'_, str> {
        dt.group.as_str().into()
    }

    fn version(dt: &ApiResource) -> Cow<'_, str> {
        dt.version.as_str().into()
    }

    fn kind(dt: &ApiResource) -> Cow<'_, str> {
        dt.kind.as_str().into()
    }

    fn api_version(dt: &ApiResource) -> Cow<'_, str> {
        dt.api_version.as_str().into()
    }

    fn plural(dt: &ApiResource) -> Cow<'_, str> {
        dt.plural.as_str().into()
    }

    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
mod tests {
    use kube::api::DynamicObject;
    use kube::core::{ObjectList, WatchEvent};

    use super::*;

    const OBJECT: &str = r#"{"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7", "managedFields": [
            {"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:spec": {"f:replicas": {}}, "f:a\ud800": {}}}]},
        "spec": {"replicas": 3}}"#;

    #[test]
    fn lists_and_watch_events_with_a_lone_surrogate_are_read_as_go_reads_them() {
        let list = format!(
            r#"{{"kind": "DeploymentList", "apiVersion": "apps/v1", "metadata": {{"resourceVersion": "9"}}, "items": [{OBJECT}]}}"#
        );
        // What kube's own dynamic type does with it: the whole page is refused.
        assert!(serde_json::from_str::<ObjectList<DynamicObject>>(&list).is_err());
        let page: ObjectList<LiveObject> = serde_json::from_str(&list).unwrap();
        let object = &page.items[0];
        assert_eq!(object.metadata.name.as_deref(), Some("web"));
        assert_eq!(object.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(object.json["spec"]["replicas"], 3);
        assert_eq!(object.json["metadata"]["managedFields"][0]["fieldsV1"]["f:a\u{fffd}"], serde_json::json!({}));

        let event = format!(r#"{{"type": "MODIFIED", "object": {OBJECT}}}"#);
        assert!(serde_json::from_str::<WatchEvent<DynamicObject>>(&event).is_err());
        let WatchEvent::Modified(object) = serde_json::from_str::<WatchEvent<LiveObject>>(&event).unwrap() else {
            panic!("a MODIFIED event")
        };
        assert_eq!(object.json["spec"]["replicas"], 3);
        // From a tree too (tests build objects so).
        let again: LiveObject = serde_json::from_value(object.json.clone()).unwrap();
        assert_eq!(again, object);
        // Not JSON at all: serde_json's error.
        assert!(serde_json::from_str::<LiveObject>(r#"{"a": "\ud800"#).is_err());
    }
}
