//! Validation, defaulting and conversion vectors (`conformance/api`), run as the vectors'
//! README prescribes.

use serde_json::{Value, json};

use hpa_core::admission::{self, AdmissionOptions, Operation};
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

/// A request's `fieldValidation` (`metav1.FieldValidation*`): what kube-apiserver does with an
/// unknown or duplicate field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldValidation {
    /// The request fails (the default of kubectl).
    Strict,
    /// The field is dropped and a warning says so (kube-apiserver's default).
    Warn,
    /// The field is dropped silently.
    Ignore,
}

impl FieldValidation {
    /// The vector's `fieldValidation` (`Strict` when absent).
    fn of(vector: &Vector<'_>) -> Result<FieldValidation, String> {
        match vector.get("fieldValidation") {
            None => Ok(FieldValidation::Strict),
            Some(v) => match v.as_str() {
                Some("Strict") => Ok(FieldValidation::Strict),
                Some("Warn") => Ok(FieldValidation::Warn),
                Some("Ignore") => Ok(FieldValidation::Ignore),
                _ => Err(format!("unknown fieldValidation {v}: expected \"Strict\", \"Warn\" or \"Ignore\"")),
            },
        }
    }

    fn strictness(self) -> api::Strictness {
        match self {
            FieldValidation::Strict => api::Strictness::Strict,
            FieldValidation::Warn | FieldValidation::Ignore => api::Strictness::Lenient,
        }
    }
}

/// Decodes the object at `key` of the vector from its text as written (see [`Vector`]), as
/// `release`'s kube-apiserver does under `fields`: with `Strict` a field the release does not
/// know (or a key given twice) is an error, with `Warn` and `Ignore` it is dropped and returned
/// in `ignored`. The error is kube-apiserver's 400 message.
fn decode_in(
    vector: &Vector<'_>,
    key: &str,
    release: KubernetesVersion,
    fields: FieldValidation,
) -> Result<api::Decoded<api::VersionedHpa>, String> {
    let text = vector.raw(key).unwrap_or("null");
    api::decode_json(text, fields.strictness(), release)
        .map_err(|errs| api::decode_failure_message(api_version_of(text), &errs))
}

/// The `apiVersion` an object's text gives, read from the text itself: the parsed vector has
/// no value for an object holding a number `serde_json` cannot hold (`1e1000`).
fn api_version_of(text: &str) -> Option<ApiVersion> {
    let keys: std::collections::BTreeMap<String, &serde_json::value::RawValue> = serde_json::from_str(text).ok()?;
    let version: String = serde_json::from_str(keys.get("apiVersion")?.get()).ok()?;
    ApiVersion::parse(&version)
}

/// The warnings kube-apiserver answers for what decoding dropped under `fieldValidation: Warn`
/// (`addStrictDecodingWarnings` in `apiserver/pkg/endpoints/handlers/rest.go`): one per strict
/// decoding error, in its words (`unknown field "spec.foo"`, `duplicate field "spec.x"`), each
/// text once (the request's warning recorder drops repeats). None under `Ignore`.
fn field_warnings(fields: FieldValidation, ignored: &[api::DecodeError]) -> Vec<String> {
    let mut warnings: Vec<String> = Vec::new();
    if fields == FieldValidation::Warn {
        for e in ignored.iter().filter(|e| e.kind.is_strict()) {
            if !warnings.contains(&e.message) {
                warnings.push(e.message.clone());
            }
        }
    }
    warnings
}

/// A validation vector: decode, convert, prepare, validate (no defaulting).
pub fn run_validation(vector: &Vector<'_>) -> (bool, Value) {
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let result = (|| -> Result<Value, String> {
        let gates = gates_for(vector)?;
        let release = gates.version();
        let fields = FieldValidation::of(vector)?;
        let operation = match vector.get("operation").and_then(Value::as_str) {
            Some("CREATE") => Operation::Create,
            Some("UPDATE") => Operation::Update,
            _ => return Err(format!("operation is {:?}, not \"CREATE\" or \"UPDATE\"", vector.get("operation"))),
        };
        let decoded = match decode_in(vector, "object", release, fields) {
            Ok(o) => o,
            Err(e) => return Ok(json!({"allowed": false, "decodeError": e, "warnings": []})),
        };
        // The stored object: what it holds that this release does not know is not the request's.
        let old = match vector.raw("oldObject") {
            Some(_) => Some(decode_in(vector, "oldObject", release, FieldValidation::Ignore)?.value),
            None => None,
        };
        let opts = AdmissionOptions { gates, apply_defaults: false, default_namespace: None };
        let outcome = admission::admit(&decoded.value, old.as_ref(), operation, &opts).map_err(|e| e.to_string())?;
        let mut got = outcome_json(&outcome);
        if let Value::Object(m) = &mut got {
            // Decoding's warnings first, then the handler's (duplicate owner references).
            let mut warnings = field_warnings(fields, &decoded.ignored);
            warnings.extend(outcome.warnings.iter().cloned());
            m.insert("warnings".into(), json!(warnings));
        }
        Ok(got)
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
    for key in ["errors", "statusMessage", "decodeError", "generation", "warnings"] {
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

/// A defaulting vector: the defaulting of `input.apiVersion`, nothing else. With
/// `kubernetes_version` the input is decoded strictly with that release's Go types.
pub fn run_defaulting(vector: &Vector<'_>) -> (bool, Value) {
    let input = vector.get("input").cloned().unwrap_or(Value::Null);
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let decoded = match vector.get("kubernetes_version") {
        None => decode(vector, "input"),
        Some(_) => release_of(vector)
            .and_then(|release| decode_in(vector, "input", release, FieldValidation::Strict))
            .map(|d| d.value),
    };
    let got = match decoded {
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
    // The input is read as the vector's release reads a stored object: with its Go types and
    // its quantity rules, a field those types lack dropped (storage decodes leniently).
    let converted = decode_in(vector, "input", release, FieldValidation::Ignore)
        .and_then(|obj| convert::convert_in(&obj.value, to, release).map_err(|e| e.to_string()));
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
