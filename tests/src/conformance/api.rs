//! Validation, defaulting and conversion vectors (`conformance/api`), run as the vectors'
//! README prescribes.

use serde_json::{Value, json};

use hpa_core::admission::{self, Operation, Options};
use hpa_core::api::{self, ApiVersion};
use hpa_core::convert;
use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};

use super::{Vector, drop_nulls, project};

/// The release a vector runs against: `kubernetes_version` (`"1.33"` .. `"1.38"`), else the
/// older `profile` key (`master-1.37`, or absent for 1.36).
pub fn release_of(vector: &Vector<'_>) -> Result<KubernetesVersion, String> {
    if let Some(v) = vector.get("kubernetes_version") {
        let v = v.as_str().ok_or("kubernetes_version is not a string")?;
        return KubernetesVersion::parse(v).map_err(|e| e.to_string());
    }
    match vector.get("profile").and_then(Value::as_str) {
        Some("master-1.37") => Ok(KubernetesVersion::V1_37),
        None => Ok(KubernetesVersion::V1_36),
        Some(other) => Err(format!("unknown profile {other}")),
    }
}

/// The gates a validation vector runs with: its release (see [`release_of`]), `featureGates`
/// overrides.
pub fn gates_for(vector: &Vector<'_>) -> Result<FeatureGates, String> {
    let mut gates = FeatureGates::new(release_of(vector)?);
    if let Some(Value::Object(fg)) = vector.get("featureGates") {
        for (name, value) in fg {
            let gate = Gate::from_name(name).ok_or_else(|| format!("unknown gate {name}"))?;
            let on = value.as_bool().ok_or_else(|| format!("gate {name} is not a bool"))?;
            gates.set(gate, on).map_err(|e| e.to_string())?;
        }
    }
    Ok(gates)
}

/// Decodes the object at `key` of the vector from its text as written (see [`Vector`]).
fn decode(vector: &Vector<'_>, key: &str) -> Result<api::VersionedHpa, String> {
    api::decode_text(vector.raw(key).unwrap_or("null")).map_err(|errs| api::decode_failure_message(None, &errs))
}

/// Decodes the object at `key` of the vector from its text as written (see [`Vector`]), as
/// `release`'s kube-apiserver does: with `fieldValidation: Strict` (the default, kubectl's) a
/// field the release does not know is an error, with `Ignore` it is dropped. The error is
/// kube-apiserver's 400 message.
fn decode_in(
    vector: &Vector<'_>,
    key: &str,
    release: KubernetesVersion,
    strict: bool,
) -> Result<api::VersionedHpa, String> {
    let text = vector.raw(key).unwrap_or("null");
    let version = vector.get(key).and_then(|o| o.get("apiVersion")).and_then(Value::as_str).and_then(ApiVersion::parse);
    let strictness = if strict { api::Strictness::Strict } else { api::Strictness::Lenient };
    api::decode_json(text, strictness, release)
        .map(|decoded| decoded.value)
        .map_err(|errs| api::decode_failure_message(version, &errs))
}

/// A validation vector: decode, convert, prepare, validate (no defaulting).
pub fn run_validation(vector: &Vector<'_>) -> (bool, Value) {
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let result = (|| -> Result<Value, String> {
        let gates = gates_for(vector)?;
        let release = gates.version();
        let strict = match vector.get("fieldValidation").and_then(Value::as_str) {
            None | Some("Strict") => true,
            Some("Ignore") => false,
            Some(other) => return Err(format!("unknown fieldValidation {other}")),
        };
        let operation = match vector.get("operation").and_then(Value::as_str) {
            Some("UPDATE") => Operation::Update,
            _ => Operation::Create,
        };
        let object = match decode_in(vector, "object", release, strict) {
            Ok(o) => o,
            Err(e) => return Ok(json!({"allowed": false, "decodeError": e})),
        };
        let old = match vector.raw("oldObject") {
            Some(_) => Some(decode_in(vector, "oldObject", release, false)?),
            None => None,
        };
        let opts = Options { gates, apply_defaults: false, default_namespace: None };
        let outcome = admission::admit(&object, old.as_ref(), operation, &opts).map_err(|e| e.to_string())?;
        Ok(outcome_json(&outcome))
    })();
    let got = match result {
        Ok(v) => v,
        Err(e) => json!({"allowed": false, "error": e}),
    };
    compare_validation(&got, &expect)
}

/// The outcome in the vectors' shape.
pub fn outcome_json(outcome: &admission::Outcome) -> Value {
    let generation = outcome.object.metadata.generation;
    if outcome.allowed() {
        return json!({"allowed": true, "generation": generation});
    }
    let errors: Vec<Value> = outcome
        .errors
        .iter()
        .map(|e| json!({"type": e.kind.reason(), "field": e.field, "detail": e.detail, "message": e.to_string()}))
        .collect();
    json!({
        "allowed": false,
        "errors": errors,
        "statusMessage": outcome.status_message(),
        "firstErrorContains": outcome.errors.first().map(ToString::to_string),
        "generation": generation,
    })
}

fn compare_validation(got: &Value, expect: &Value) -> (bool, Value) {
    let mut pass = got.get("allowed") == expect.get("allowed");
    for key in ["errors", "statusMessage", "decodeError", "generation"] {
        if let Some(e) = expect.get(key) {
            pass &= got.get(key) == Some(e);
        }
    }
    if let Some(needle) = expect.get("firstErrorContains").and_then(Value::as_str) {
        let first = got.get("firstErrorContains").and_then(Value::as_str).unwrap_or("");
        pass &= first.contains(needle);
    }
    let mut shown = project(got, expect);
    if let (Some(Value::Object(m)), Some(n)) = (Some(&mut shown), expect.get("firstErrorContains")) {
        // got carries the first error itself; report the asserted substring when it matches.
        if pass {
            m.insert("firstErrorContains".into(), n.clone());
        }
    }
    (pass, shown)
}

/// A defaulting vector: the defaulting of `input.apiVersion`, nothing else.
pub fn run_defaulting(vector: &Vector<'_>) -> (bool, Value) {
    let input = vector.get("input").cloned().unwrap_or(Value::Null);
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let got = match decode(vector, "input") {
        Ok(mut obj) => {
            hpa_core::defaults::default_versioned(&mut obj);
            let mut out = obj.to_json();
            if input.get("status").is_none()
                && let Value::Object(m) = &mut out
            {
                m.remove("status");
            }
            out
        }
        Err(e) => json!({"error": e}),
    };
    (drop_nulls(&got) == drop_nulls(&expect), got)
}

/// A conversion vector: input → internal → toVersion, compared with the README's rules.
pub fn run_conversion(vector: &Vector<'_>) -> (bool, Value) {
    let input = vector.get("input").cloned().unwrap_or(Value::Null);
    let to = vector.get("toVersion").and_then(Value::as_str).and_then(ApiVersion::parse);
    let as_json: Vec<String> = vector
        .get("compareAnnotationsAsJSON")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default();
    let Some(to) = to else { return (false, json!({"error": "unknown toVersion"})) };
    let release = match release_of(vector) {
        Ok(r) => r,
        Err(e) => return (false, json!({"error": e})),
    };
    let converted =
        decode(vector, "input").and_then(|obj| convert::convert_in(&obj, to, release).map_err(|e| e.to_string()));
    if let Some(prefix) = vector.get("expectError").and_then(Value::as_str) {
        return match converted {
            Err(e) => (e.starts_with(prefix), Value::String(e)),
            Ok(c) => (false, c.object.to_json()),
        };
    }
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let got = match converted {
        Ok(c) => c.object.to_json(),
        Err(e) => return (false, json!({"error": e})),
    };
    let mut pass = objects_equal(&got, &expect, &as_json);
    if pass && vector.get("roundTrip").and_then(Value::as_bool) == Some(true) {
        let back_to = input.get("apiVersion").and_then(Value::as_str).and_then(ApiVersion::parse);
        let back = back_to.and_then(|v| api::decode(&got).ok().and_then(|o| convert::convert_in(&o, v, release).ok()));
        pass = match back {
            Some(b) => {
                let mut original = input.clone();
                let mut returned = b.object.to_json();
                // An absent status equals the zero status the round trip produces.
                if original.get("status").is_none()
                    && let (Value::Object(o), Value::Object(r)) = (&mut original, &mut returned)
                {
                    o.remove("status");
                    r.remove("status");
                }
                objects_equal(&returned, &original, &as_json)
            }
            None => false,
        };
    }
    (pass, got)
}

/// Equality after dropping nulls, with some annotations compared as parsed JSON.
pub fn objects_equal(a: &Value, b: &Value, annotations_as_json: &[String]) -> bool {
    let (mut a, mut b) = (drop_nulls(a), drop_nulls(b));
    for key in annotations_as_json {
        for v in [&mut a, &mut b] {
            if let Some(Value::String(s)) = v.pointer(&format!("/metadata/annotations/{}", key.replace('/', "~1"))) {
                let parsed =
                    serde_json::from_str::<Value>(s).map(|p| drop_nulls(&p)).unwrap_or(Value::String(s.clone()));
                if let Some(slot) = v.pointer_mut(&format!("/metadata/annotations/{}", key.replace('/', "~1"))) {
                    *slot = parsed;
                }
            }
        }
    }
    a == b
}
