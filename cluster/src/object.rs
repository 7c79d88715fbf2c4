//! A live object of any kind as hpa-cluster's watches and lists receive it: its JSON text, read
//! as client-go's dynamic client reads it, and turned into a tree only where something reads one.
//!
//! kube's `DynamicObject` is read by `serde_json` field by field, which refuses a whole list
//! page or watch event when a string holds a lone surrogate escape (`\ud800`). Go accepts one,
//! and kube-apiserver keeps it where it stores JSON unparsed (`metadata.managedFields[].fieldsV1`,
//! `FieldsV1.Raw`), so one such object would keep a kind from ever syncing. [`LiveObject`] takes
//! each object's text whole, with each such escape replaced by `\ufffd`
//! ([`hpa_core::go::replace_lone_surrogates`]: U+FFFD, as `encoding/json` decodes it into an
//! `interface{}`), and reads only its identity at once. An HPA is decoded from that text by
//! hpa-core's one decoder ([`crate::inventory::LiveHpa`]); any other kind is read as a tree
//! ([`LiveObject::tree`]) for hpa-core's builders.

use std::borrow::Cow;

use kube::api::ApiResource;
use kube::core::{DynamicResourceScope, ObjectMeta, Resource};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A live object: what the watcher and the cache read of its metadata (name, namespace,
/// resource version, uid) and its whole JSON text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveObject {
    /// `metadata.name`, `namespace`, `resourceVersion` and `uid` (the rest is in the text).
    pub metadata: ObjectMeta,
    /// The object's JSON text as the API server sent it, each lone surrogate escape replaced by
    /// `\ufffd`: valid for `serde_json` and for hpa-core's decoder alike.
    text: Box<str>,
    /// Whether the object names its `apiVersion` and its `kind` (a watch event's object does;
    /// the items of a built-in list do not).
    typed: (bool, bool),
}

/// What is read of an object at once: whether it has `apiVersion` and `kind`, and its identity.
#[derive(Deserialize)]
struct Head {
    #[serde(default, rename = "apiVersion")]
    api_version: Option<Present>,
    #[serde(default)]
    kind: Option<Present>,
    #[serde(default)]
    metadata: Option<HeadMeta>,
}

/// A field whose value is skipped.
struct Present;

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Present, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| Present)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadMeta {
    name: Option<String>,
    namespace: Option<String>,
    resource_version: Option<String>,
    uid: Option<String>,
}

impl LiveObject {
    /// An object from its JSON text as an API server sent it (a lone surrogate escape read as
    /// Go reads it). Errors: the text is not a JSON object with an object or no `metadata`.
    pub fn from_text(text: &str) -> Result<LiveObject, serde_json::Error> {
        LiveObject::from_owned(as_go_reads(text.into()))
    }

    /// An object from a tree (tools and tests that build objects so).
    pub fn from_tree(tree: &Value) -> Result<LiveObject, serde_json::Error> {
        LiveObject::from_owned(tree.to_string().into())
    }

    fn from_owned(text: Box<str>) -> Result<LiveObject, serde_json::Error> {
        // What the watcher and the cache read of it (not its managed fields, which would be
        // copied): identity and version.
        let head: Head = serde_json::from_str(&text)?;
        let meta = head.metadata.unwrap_or(HeadMeta { name: None, namespace: None, resource_version: None, uid: None });
        let metadata = ObjectMeta {
            name: meta.name,
            namespace: meta.namespace,
            resource_version: meta.resource_version,
            uid: meta.uid,
            ..ObjectMeta::default()
        };
        Ok(LiveObject { metadata, text, typed: (head.api_version.is_some(), head.kind.is_some()) })
    }

    /// The object's JSON text (each lone surrogate escape replaced by `\ufffd`).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the object names its `apiVersion`, and its `kind`.
    pub fn typed(&self) -> (bool, bool) {
        self.typed
    }

    /// The object as a tree (what hpa-core's builders of the other kinds read). Errors: what
    /// `serde_json` refuses in a tree but Go reads (a number out of `f64`'s range, nesting past
    /// 128 levels).
    pub fn tree(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(&self.text)
    }

    /// The text, taken out.
    pub fn into_text(self) -> Box<str> {
        self.text
    }
}

impl<'de> Deserialize<'de> for LiveObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LiveObject, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        LiveObject::from_owned(as_go_reads(raw.into())).map_err(D::Error::custom)
    }
}

/// An object's JSON text as Go reads it: each lone surrogate escape replaced by `\ufffd`
/// ([`hpa_core::go::replace_lone_surrogates`]), the text itself when it has none.
fn as_go_reads(text: Box<str>) -> Box<str> {
    match hpa_core::go::replace_lone_surrogates(&text) {
        Some(replaced) => replaced.into(),
        None => text,
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
        assert_eq!(object.typed(), (true, true));
        let tree = object.tree().unwrap();
        assert_eq!(tree["spec"]["replicas"], 3);
        assert_eq!(tree["metadata"]["managedFields"][0]["fieldsV1"]["f:a\u{fffd}"], serde_json::json!({}));

        let event = format!(r#"{{"type": "MODIFIED", "object": {OBJECT}}}"#);
        assert!(serde_json::from_str::<WatchEvent<DynamicObject>>(&event).is_err());
        let WatchEvent::Modified(object) = serde_json::from_str::<WatchEvent<LiveObject>>(&event).unwrap() else {
            panic!("a MODIFIED event")
        };
        assert_eq!(object.tree().unwrap()["spec"]["replicas"], 3);
        // From a tree too (tests build objects so): the same object.
        let again = LiveObject::from_tree(&object.tree().unwrap()).unwrap();
        assert_eq!((&again.metadata, again.tree().unwrap()), (&object.metadata, object.tree().unwrap()));
        let typed = LiveObject::from_text(r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}"#).unwrap();
        assert_eq!((typed.typed(), typed.metadata.name.as_deref()), ((true, true), Some("p")));
        // Not JSON at all: serde_json's error.
        assert!(serde_json::from_str::<LiveObject>(r#"{"a": "\ud800"#).is_err());
    }
}
