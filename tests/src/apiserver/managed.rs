//! Server-side field management as kube-apiserver records it in `metadata.managedFields`, for
//! the writes tests make ([`super::TestApiServer::apply_as`]): what each kind of client sends,
//! what the stored object becomes, and who owns which field afterwards.
//!
//! - An `Update` (POST, PUT, PATCH) records ownership after decoding and defaulting: the create
//!   handler (`createHandler`, `k8s.io/apiserver/pkg/endpoints/handlers/create.go`) calls
//!   `FieldManager.UpdateNoErrors(<empty object>, <defaulted object>, manager)`, and
//!   structured-merge-diff's `Updater.Update` gives the manager every field added or modified
//!   (defaulted ones included: `spec.replicas: 1` of a Deployment created without it) and takes
//!   them, and removed ones, from every other manager.
//! - An `Apply` (server-side apply, `Updater.Apply`) owns exactly the applied configuration's
//!   fields; the object is the live one with the configuration merged in and what this manager
//!   applied before but no longer does (and nobody else owns) removed; a field it sets to another
//!   value than the live one is taken from its other owners (`--force-conflicts`).
//! - Client-side `kubectl apply` (`kubectl-client-side-apply`, an `Update`) and `helm upgrade`
//!   send a three-way merge patch: the manifest's fields are set, those of the previous manifest
//!   it no longer has are deleted (kubectl keeps that manifest in the
//!   `kubectl.kubernetes.io/last-applied-configuration` annotation, which it writes; Helm in its
//!   release), and every other field keeps its live value.
//!
//! Simplifications: lists other than those keyed by `name` are atomic, and keyed lists are
//! replaced whole when a manifest sets them (strategic merge would merge them by key).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

/// The annotation client-side `kubectl apply` keeps its manifest in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manager name of client-side `kubectl apply`.
pub const CLIENT_SIDE_APPLY: &str = "kubectl-client-side-apply";

/// A field path as `fieldsV1` spells it (`f:spec`, `f:replicas`; `k:{"name":"app"}` for an item
/// of a list keyed by name; `.` for a map's or item's own presence).
pub type FieldPath = Vec<String>;

/// Fields whose values are maps in the schema (structs get no "." entry).
const MAPS: [&str; 7] = ["labels", "annotations", "matchLabels", "requests", "limits", "nodeSelector", "resources"];

/// Every field an object (as a manager sends or the server stores it) sets, with its value
/// (`true` for a `.` presence entry): what `fieldsV1` records, and what a write compares.
pub fn leaves(object: &Value) -> BTreeMap<FieldPath, Value> {
    fn walk(v: &Value, at: &mut FieldPath, out: &mut BTreeMap<FieldPath, Value>) {
        let Value::Object(m) = v else { return };
        for (k, child) in m {
            at.push(format!("f:{k}"));
            match child {
                Value::Object(c) if !c.is_empty() || MAPS.contains(&k.as_str()) => {
                    if MAPS.contains(&k.as_str()) {
                        at.push(".".into());
                        out.insert(at.clone(), Value::Bool(true));
                        at.pop();
                    }
                    walk(child, at, out);
                }
                Value::Array(items)
                    if !items.is_empty() && items.iter().all(|i| i.get("name").is_some_and(Value::is_string)) =>
                {
                    for item in items {
                        at.push(item_key(item));
                        at.push(".".into());
                        out.insert(at.clone(), Value::Bool(true));
                        at.pop();
                        walk(item, at, out);
                        at.pop();
                    }
                }
                _ => {
                    out.insert(at.clone(), child.clone());
                }
            }
            at.pop();
        }
    }
    let mut trimmed = object.clone();
    if let Value::Object(m) = &mut trimmed {
        m.remove("apiVersion");
        m.remove("kind");
        m.remove("status");
        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
            meta.retain(|k, _| k == "labels" || k == "annotations");
            if meta.is_empty() {
                m.remove("metadata");
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&trimmed, &mut Vec::new(), &mut out);
    out
}

/// `k:{"name":...}` of a list item keyed by name.
fn item_key(item: &Value) -> String {
    let name = item.get("name").cloned().unwrap_or(Value::Null);
    format!("k:{{\"name\":{}}}", serde_json::to_string(&name).unwrap_or_default())
}

/// A set of field paths as `fieldsV1` JSON.
pub fn to_fields_v1<'a>(paths: impl IntoIterator<Item = &'a FieldPath>) -> Value {
    let mut root = Map::new();
    for path in paths {
        let mut node = &mut root;
        for segment in path {
            let entry = node.entry(segment.clone()).or_insert_with(|| json!({}));
            let Value::Object(next) = entry else { break };
            node = next;
        }
    }
    Value::Object(root)
}

/// The field paths a `fieldsV1` set holds (its leaves).
pub fn from_fields_v1(fields: &Value) -> BTreeSet<FieldPath> {
    fn walk(v: &Value, at: &mut FieldPath, out: &mut BTreeSet<FieldPath>) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, child) in m {
                    at.push(k.clone());
                    walk(child, at, out);
                    at.pop();
                }
            }
            _ if !at.is_empty() => {
                out.insert(at.clone());
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(fields, &mut Vec::new(), &mut out);
    out
}

/// One `metav1.ManagedFieldsEntry` with its `fieldsV1` read into paths (structured-merge-diff's
/// `fieldpath.VersionedSet` with its manager).
#[derive(Debug, Clone, PartialEq)]
struct ManagedSet {
    manager: String,
    operation: String,
    subresource: Option<String>,
    api_version: Value,
    time: Value,
    fields: BTreeSet<FieldPath>,
}

impl ManagedSet {
    fn is(&self, manager: &str, operation: &str) -> bool {
        self.manager == manager && self.operation == operation && self.subresource.is_none()
    }

    fn to_json(&self) -> Value {
        let mut e = json!({
            "manager": self.manager, "operation": self.operation, "apiVersion": self.api_version,
            "time": self.time, "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(&self.fields),
        });
        if let Some(s) = &self.subresource {
            e["subresource"] = json!(s);
        }
        e
    }
}

fn entries_of(object: Option<&Value>) -> Vec<ManagedSet> {
    let Some(list) = object.and_then(|o| o.pointer("/metadata/managedFields")).and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|e| {
            let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            ManagedSet {
                manager: text("manager"),
                operation: text("operation"),
                subresource: e.get("subresource").and_then(Value::as_str).filter(|s| !s.is_empty()).map(String::from),
                api_version: e.get("apiVersion").cloned().unwrap_or(Value::Null),
                time: e.get("time").cloned().unwrap_or(Value::Null),
                fields: from_fields_v1(e.get("fieldsV1").unwrap_or(&Value::Null)),
            }
        })
        .collect()
}

/// Removes the field at `path` (`f:` and `k:` segments; a `.` ends it) from `object`.
fn remove_path(object: &mut Value, path: &[String]) {
    let Some((first, rest)) = path.split_first() else { return };
    let Some(key) = first.strip_prefix("f:") else { return };
    let Value::Object(m) = object else { return };
    if rest.is_empty() || rest == ["."] {
        m.shift_remove(key);
        return;
    }
    let Some(child) = m.get_mut(key) else { return };
    if let (Some(item), Value::Array(items)) = (rest.first(), &mut *child)
        && item.starts_with("k:")
    {
        if rest.len() == 1 || rest[1..] == ["."] {
            items.retain(|i| &item_key(i) != item);
        } else if let Some(i) = items.iter_mut().find(|i| &item_key(i) == item) {
            remove_path(i, &rest[1..]);
        }
        return;
    }
    remove_path(child, rest);
}

/// `patch` merged into `base`: maps key by key, anything else replaced.
fn merge(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge(existing, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (base, patch) => *base = patch.clone(),
    }
}

/// How a client writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write<'a> {
    /// Server-side apply of a configuration.
    Apply,
    /// A create, or a three-way merge patch from `previous` (the manifest the client sent last,
    /// if it knows one) to the manifest sent.
    Update {
        /// The previous manifest.
        previous: Option<&'a Value>,
    },
}

/// The object `live` becomes when `manager` writes `sent` (`Update`: before defaulting, which
/// the caller applies before [`record`]).
pub fn written(live: Option<&Value>, sent: &Value, manager: &str, write: Write<'_>) -> Value {
    let Some(live) = live else { return sent.clone() };
    let mut out = live.clone();
    let removed: Vec<FieldPath> = match write {
        Write::Update { previous } => {
            let now = leaves(sent);
            previous.map(leaves).unwrap_or_default().into_keys().filter(|p| !now.contains_key(p)).collect()
        }
        Write::Apply => {
            let now = leaves(sent);
            let entries = entries_of(Some(live));
            let others: BTreeSet<&FieldPath> =
                entries.iter().filter(|e| !e.is(manager, "Apply")).flat_map(|e| &e.fields).collect();
            entries
                .iter()
                .filter(|e| e.is(manager, "Apply"))
                .flat_map(|e| &e.fields)
                .filter(|p| !now.contains_key(*p) && !others.contains(p))
                .cloned()
                .collect()
        }
    };
    for path in &removed {
        remove_path(&mut out, path);
    }
    merge(&mut out, sent);
    out
}

/// `new`'s `metadata.managedFields` after `manager` wrote it over `live` (`new` as stored:
/// defaulted), with `applied`, for an `Apply`, the configuration it applied.
pub fn record(live: Option<&Value>, new: &mut Value, manager: &str, write: Write<'_>, applied: &Value) {
    let before = live.map(leaves).unwrap_or_default();
    let after = leaves(new);
    let added_or_modified: BTreeSet<FieldPath> =
        after.iter().filter(|(p, v)| before.get(*p) != Some(*v)).map(|(p, _)| p.clone()).collect();
    let removed: BTreeSet<FieldPath> = before.keys().filter(|p| !after.contains_key(*p)).cloned().collect();
    let operation = match write {
        Write::Apply => "Apply",
        Write::Update { .. } => "Update",
    };
    let mut entries = entries_of(live);
    // What this write takes from the others: an Update every field it changes; an Apply the fields
    // it sets to another value (forced conflicts); both, the fields that are gone.
    let taken: BTreeSet<FieldPath> = match write {
        Write::Update { .. } => added_or_modified.clone(),
        Write::Apply => leaves(applied).into_iter().filter(|(p, v)| before.get(p) != Some(v)).map(|(p, _)| p).collect(),
    };
    for e in entries.iter_mut().filter(|e| !e.is(manager, operation)) {
        e.fields.retain(|p| !taken.contains(p) && !removed.contains(p));
    }
    let api_version = new.get("apiVersion").cloned().unwrap_or(Value::Null);
    let mine = match entries.iter().position(|e| e.is(manager, operation)) {
        Some(i) => &mut entries[i],
        None => {
            entries.push(ManagedSet {
                manager: manager.to_string(),
                operation: operation.to_string(),
                subresource: None,
                api_version: api_version.clone(),
                time: json!("2026-03-02T09:14:05Z"),
                fields: BTreeSet::new(),
            });
            let last = entries.len() - 1;
            &mut entries[last]
        }
    };
    mine.api_version = api_version;
    // Later than any controller's write so far, as a new write is.
    mine.time = json!("2026-03-02T09:30:00Z");
    match write {
        Write::Update { .. } => {
            mine.fields.extend(added_or_modified);
            mine.fields.retain(|p| !removed.contains(p));
        }
        Write::Apply => mine.fields = leaves(applied).into_keys().collect(),
    }
    entries.retain(|e| !e.fields.is_empty());
    let list: Vec<Value> = entries.iter().map(ManagedSet::to_json).collect();
    super::store::set(new, &["metadata", "managedFields"], Value::Array(list));
}

/// The manifest client-side `kubectl apply` sends: `object` with its last-applied
/// configuration (itself, without that annotation) in the annotation, unless it has one.
pub fn with_last_applied(object: &Value) -> Value {
    if object.pointer("/metadata/annotations").and_then(|a| a.get(LAST_APPLIED)).is_some() {
        return object.clone();
    }
    let mut manifest = object.clone();
    if manifest.pointer("/metadata/annotations").is_none() {
        super::store::set(&mut manifest, &["metadata", "annotations"], json!({}));
    }
    let mut out = object.clone();
    super::store::set(&mut out, &["metadata", "annotations", LAST_APPLIED], json!(format!("{manifest}\n")));
    out
}

/// The manifest a live object's last-applied configuration holds.
pub fn last_applied(object: &Value) -> Option<Value> {
    let text = object.pointer("/metadata/annotations")?.get(LAST_APPLIED)?.as_str()?;
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owners(object: &Value, field: &[&str]) -> Vec<String> {
        let path: FieldPath = field.iter().map(|s| (*s).to_string()).collect();
        entries_of(Some(object))
            .into_iter()
            .filter(|e| e.fields.contains(&path))
            .map(|e| format!("{} {}", e.manager, e.operation))
            .collect()
    }

    #[test]
    fn paths_round_trip_through_fields_v1() {
        let object = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "app", "image": "x"}]}}}});
        let paths: BTreeSet<FieldPath> = leaves(&object).into_keys().collect();
        assert_eq!(from_fields_v1(&to_fields_v1(&paths)), paths);
    }

    #[test]
    fn an_update_create_owns_what_was_defaulted() {
        let mut new = json!({"apiVersion": "apps/v1", "spec": {"replicas": 1, "selector": {}}});
        record(None, &mut new, "helm", Write::Update { previous: None }, &Value::Null);
        assert_eq!(owners(&new, &["f:spec", "f:replicas"]), ["helm Update"]);
        // Server-side apply owns what it applied only.
        let applied = json!({"apiVersion": "apps/v1", "spec": {"selector": {}}});
        let mut new = json!({"apiVersion": "apps/v1", "spec": {"replicas": 1, "selector": {}}});
        record(None, &mut new, "flux", Write::Apply, &applied);
        assert!(owners(&new, &["f:spec", "f:replicas"]).is_empty());
    }

    #[test]
    fn a_three_way_patch_keeps_what_neither_manifest_sets() {
        let live = json!({"spec": {"replicas": 7, "paused": false, "x": 1}});
        let previous = json!({"spec": {"x": 1, "paused": false}});
        let sent = json!({"spec": {"x": 2}});
        let out = written(Some(&live), &sent, "helm", Write::Update { previous: Some(&previous) });
        assert_eq!(out, json!({"spec": {"replicas": 7, "x": 2}}));
    }
}
