//! Minimal RFC 6902 JSON Patches that turn the object as sent into the mutated object.
//!
//! The mutation is computed on typed values (decode → default → policy), so the two JSON
//! renderings `before` (the decoded object) and `after` (the mutated one) come from the same
//! serializer and differ only where the meaning changed. The patch is then laid onto the object
//! *as sent*, which may spell the same meaning differently (`null` for an absent field, a
//! quantity as `0.5` rather than `500m`, fields in another order): untouched parts are never
//! rewritten, so the patch applies cleanly and says only what changed.

use json_patch::jsonptr::PointerBuf;
use json_patch::{AddOperation, Patch, PatchOperation, RemoveOperation, ReplaceOperation};
use serde_json::{Map, Value};

/// The operations that turn `original` into an object meaning `after`, where `before` is
/// what `original` means (its decoded-and-reserialized form). Empty when nothing changed.
///
/// Objects are compared key by key; any other change (a scalar, an array, a change of type)
/// replaces the value at its path. A path missing from `original` is added with only the
/// keys that changed, so zero values of the typed form are not spelled out.
pub fn between(original: &Value, before: &Value, after: &Value) -> Patch {
    let mut ops = Vec::new();
    let mut path = PointerBuf::root();
    walk(Some(original), Some(before), after, &mut path, &mut ops);
    Patch(ops)
}

/// Serializes a patch (the bytes that are base64-encoded into the AdmissionResponse).
pub fn to_json(patch: &Patch) -> Vec<u8> {
    // A patch of pointers and JSON values always serializes.
    serde_json::to_vec(patch).unwrap_or_default()
}

fn walk(
    original: Option<&Value>,
    before: Option<&Value>,
    after: &Value,
    path: &mut PointerBuf,
    ops: &mut Vec<PatchOperation>,
) {
    if before == Some(after) {
        return;
    }
    match (original, before, after) {
        // Both sides are objects and the original has an object here: descend, so that only
        // the changed members are touched.
        (Some(Value::Object(orig)), Some(Value::Object(b)), Value::Object(a)) => {
            for (key, a_val) in a {
                let b_val = b.get(key);
                if b_val == Some(a_val) {
                    continue;
                }
                path.push_back(key.as_str());
                walk(orig.get(key), b_val, a_val, path, ops);
                path.pop_back();
            }
            for key in b.keys().filter(|k| !a.contains_key(*k) && orig.contains_key(*k)) {
                path.push_back(key.as_str());
                ops.push(PatchOperation::Remove(RemoveOperation { path: path.clone() }));
                path.pop_back();
            }
        }
        _ => {
            let value = match (before, after) {
                (Some(Value::Object(b)), Value::Object(a)) => Value::Object(changed_members(b, a)),
                (None, Value::Object(a)) => Value::Object(changed_members(&Map::new(), a)),
                _ => after.clone(),
            };
            let path = path.clone();
            // `replace` where the original has a member (even `null`), `add` where it has none.
            ops.push(match original {
                Some(_) => PatchOperation::Replace(ReplaceOperation { path, value }),
                None => PatchOperation::Add(AddOperation { path, value }),
            });
        }
    }
}

/// The members of `after` that differ from `before`, recursively for nested objects: what an
/// absent (or `null`) original object must receive to mean `after`.
fn changed_members(before: &Map<String, Value>, after: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, a_val) in after {
        match (before.get(key), a_val) {
            (Some(b_val), _) if b_val == a_val => {}
            (Some(Value::Object(b)), Value::Object(a)) => {
                out.insert(key.clone(), Value::Object(changed_members(b, a)));
            }
            _ => {
                out.insert(key.clone(), a_val.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Applies the patch to `original` with the json-patch crate and returns the result.
    fn apply(original: &Value, patch: &Patch) -> Value {
        let mut doc = original.clone();
        json_patch::patch(&mut doc, patch).unwrap();
        doc
    }

    fn ops(patch: &Patch) -> Value {
        serde_json::to_value(patch).unwrap()
    }

    #[test]
    fn nothing_changed_gives_no_operations() {
        let v = json!({"spec": {"maxReplicas": 3}});
        assert!(between(&v, &v, &v).0.is_empty());
        // The original may spell the same meaning differently: still nothing to do.
        let original = json!({"spec": {"maxReplicas": 3, "behavior": null, "metrics": []}});
        assert!(between(&original, &v, &v).0.is_empty());
    }

    #[test]
    fn adds_members_and_keeps_the_rest_as_sent() {
        let original = json!({"spec": {"maxReplicas": 3, "behavior": null, "x": "0.5"}});
        let before = json!({"spec": {"maxReplicas": 3, "x": "500m"}});
        let after = json!({"spec": {"maxReplicas": 3, "x": "500m", "minReplicas": 1}});
        let p = between(&original, &before, &after);
        assert_eq!(ops(&p), json!([{"op": "add", "path": "/spec/minReplicas", "value": 1}]));
        assert_eq!(
            apply(&original, &p),
            json!({"spec": {"maxReplicas": 3, "behavior": null, "x": "0.5", "minReplicas": 1}})
        );
    }

    #[test]
    fn null_members_are_replaced() {
        let original = json!({"spec": {"minReplicas": null, "maxReplicas": 3}});
        let before = json!({"spec": {"maxReplicas": 3}});
        let after = json!({"spec": {"maxReplicas": 3, "minReplicas": 1}});
        let p = between(&original, &before, &after);
        assert_eq!(ops(&p), json!([{"op": "replace", "path": "/spec/minReplicas", "value": 1}]));
        assert_eq!(apply(&original, &p)["spec"]["minReplicas"], 1);
    }

    #[test]
    fn missing_objects_receive_only_the_changed_members() {
        // The typed form spells out zero values (`scaleTargetRef`); the patch does not.
        let original = json!({"kind": "HorizontalPodAutoscaler"});
        let before = json!({"kind": "HorizontalPodAutoscaler", "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0}});
        let after = json!({"kind": "HorizontalPodAutoscaler",
            "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0, "minReplicas": 1}});
        let p = between(&original, &before, &after);
        assert_eq!(ops(&p), json!([{"op": "add", "path": "/spec", "value": {"minReplicas": 1}}]));
        // An explicit null object is replaced the same way.
        let original = json!({"kind": "HorizontalPodAutoscaler", "spec": null});
        let p = between(&original, &before, &after);
        assert_eq!(ops(&p), json!([{"op": "replace", "path": "/spec", "value": {"minReplicas": 1}}]));
        assert_eq!(apply(&original, &p)["spec"], json!({"minReplicas": 1}));
    }

    #[test]
    fn keys_with_slashes_and_tildes_are_escaped() {
        let original = json!({"metadata": {"annotations": {"a": "1"}}});
        let after = json!({"metadata": {"annotations": {"a": "1", "autoscaling.alpha.kubernetes.io/behavior": "{}", "x~y": "2"}}});
        let p = between(&original, &original, &after);
        assert_eq!(
            ops(&p),
            json!([
                {"op": "add", "path": "/metadata/annotations/autoscaling.alpha.kubernetes.io~1behavior", "value": "{}"},
                {"op": "add", "path": "/metadata/annotations/x~0y", "value": "2"}
            ])
        );
        assert_eq!(apply(&original, &p), after);
    }

    #[test]
    fn arrays_and_type_changes_are_replaced_whole() {
        let original = json!({"p": [1, 2], "t": "s"});
        let after = json!({"p": [3], "t": {"a": 1}});
        let p = between(&original, &original, &after);
        assert_eq!(
            ops(&p),
            json!([{"op": "replace", "path": "/p", "value": [3]}, {"op": "replace", "path": "/t", "value": {"a": 1}}])
        );
        assert_eq!(apply(&original, &p), after);
    }

    #[test]
    fn removed_members_are_removed_only_if_present() {
        let original = json!({"a": 1, "c": 3});
        let before = json!({"a": 1, "b": 2, "c": 3});
        let after = json!({"a": 1});
        let p = between(&original, &before, &after);
        assert_eq!(ops(&p), json!([{"op": "remove", "path": "/c"}]));
        assert_eq!(apply(&original, &p), json!({"a": 1}));
    }
}
