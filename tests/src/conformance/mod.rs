//! The conformance runner: each vector is run through the project's public API and its result
//! is compared with the vector's expectation. `got` always has the keys of `expect` (or
//! `expectError`), computed by the project.

pub mod api;
pub mod controller;
mod keys;

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

/// The outcome of one vector.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorResult {
    /// The vector's `id`.
    pub id: String,
    /// Whether everything asserted matched.
    pub pass: bool,
    /// What the project computed, in the shape of `expect`.
    pub got: Value,
}

/// The kinds of vector files in `shared/conformance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorKind {
    /// `api/validation.json`
    Validation,
    /// `api/defaulting.json`
    Defaulting,
    /// `api/conversion.json`
    Conversion,
    /// `controller/replica_calc.json` and `controller/normalize.json` (by `function`)
    Function,
    /// `controller/timelines.json`
    Timeline,
}

/// Recognises a vector's kind from its fields (falling back to the file name).
pub fn kind_of(vector: &Value, file: &str) -> Option<VectorKind> {
    let has = |k: &str| vector.get(k).is_some();
    if has("operation") && has("object") {
        Some(VectorKind::Validation)
    } else if has("toVersion") {
        Some(VectorKind::Conversion)
    } else if has("function") {
        Some(VectorKind::Function)
    } else if has("syncs") {
        Some(VectorKind::Timeline)
    } else if has("input") && has("expect") {
        Some(VectorKind::Defaulting)
    } else if file.contains("validation") {
        Some(VectorKind::Validation)
    } else if file.contains("default") {
        Some(VectorKind::Defaulting)
    } else if file.contains("conversion") {
        Some(VectorKind::Conversion)
    } else if file.contains("timeline") {
        Some(VectorKind::Timeline)
    } else {
        None
    }
}

/// One vector as its file holds it: the parsed value, and the text of each top-level key as
/// written, from which the API objects are decoded (re-serializing a parsed value would rewrite
/// number literals, `-0` as `-0.0` and `1e2` as `100.0`, and merge keys given twice).
#[derive(Debug)]
pub struct Vector<'a> {
    /// The vector, parsed.
    pub value: Value,
    raw: BTreeMap<String, &'a RawValue>,
}

impl<'a> Vector<'a> {
    /// Reads one vector (a JSON object) from its text. A key whose value `serde_json` cannot
    /// hold (a number past `f64`, such as `1e1000`, which kube-apiserver receives and refuses
    /// with a type error) is `null` in [`Vector::value`]; its text is still in [`Vector::raw`].
    pub fn parse(whole: &'a RawValue) -> Result<Vector<'a>, String> {
        let raw: BTreeMap<String, &'a RawValue> =
            serde_json::from_str(whole.get()).map_err(|e| format!("a vector is not a JSON object: {e}"))?;
        let value = match serde_json::from_str(whole.get()) {
            Ok(v) => v,
            Err(_) => Value::Object(
                raw.iter().map(|(k, v)| (k.clone(), serde_json::from_str(v.get()).unwrap_or(Value::Null))).collect(),
            ),
        };
        Ok(Vector { value, raw })
    }

    /// The value of a top-level key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value.get(key)
    }

    /// The text of a top-level key's value, exactly as the file writes it.
    pub fn raw(&self, key: &str) -> Option<&'a str> {
        self.raw.get(key).map(|r| r.get())
    }

    /// The vector's `id`.
    pub fn id(&self) -> &str {
        self.value.get("id").and_then(Value::as_str).unwrap_or("<no id>")
    }
}

/// Runs one vector; one with a key the runner does not read fails (the `keys` module).
pub fn run_vector(vector: &Vector<'_>, file: &str) -> VectorResult {
    let id = vector.id().to_string();
    let kind = kind_of(&vector.value, file);
    if let Some(Err(e)) = kind.map(|k| keys::check(k, &vector.value)) {
        return VectorResult { id, pass: false, got: serde_json::json!({ "error": e }) };
    }
    let (pass, got) = match kind {
        Some(VectorKind::Validation) => api::run_validation(vector),
        Some(VectorKind::Defaulting) => api::run_defaulting(vector),
        Some(VectorKind::Conversion) => api::run_conversion(vector),
        Some(VectorKind::Function) => controller::run_function(&vector.value),
        Some(VectorKind::Timeline) => controller::run_timeline(&vector.value),
        None => (false, serde_json::json!({"error": "unrecognised vector"})),
    };
    VectorResult { id, pass, got }
}

/// Runs every vector of `tests/data/conformance/FILE` and panics, listing them, if any fails
/// (or if the file holds none): the body of every conformance test.
pub fn assert_file_passes(file: &str) {
    let path = crate::data_dir().join("conformance").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let results = run_file(&text, file).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(!results.is_empty(), "{file} holds no vectors");
    let failed: Vec<String> = results.iter().filter(|r| !r.pass).map(|r| format!("{}: got {}", r.id, r.got)).collect();
    assert!(failed.is_empty(), "{} of {} vectors failed:\n{}", failed.len(), results.len(), failed.join("\n"));
}

/// Runs every vector of a file (a JSON array).
pub fn run_file(text: &str, file: &str) -> Result<Vec<VectorResult>, String> {
    let vectors: Vec<&RawValue> =
        serde_json::from_str(text).map_err(|e| format!("expected a JSON array of vectors: {e}"))?;
    vectors.into_iter().map(|raw| Ok(run_vector(&Vector::parse(raw)?, file))).collect()
}

/// Drops every object key whose value is `null`, recursively (the vectors' comparison rule).
pub fn drop_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), drop_nulls(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(drop_nulls).collect()),
        other => other.clone(),
    }
}

/// Keeps only the keys of `got` that `expect` asserts (for objects), recursively one level.
pub fn project(got: &Value, expect: &Value) -> Value {
    match (got, expect) {
        (Value::Object(g), Value::Object(e)) => {
            Value::Object(e.keys().map(|k| (k.clone(), g.get(k).cloned().unwrap_or(Value::Null))).collect())
        }
        _ => got.clone(),
    }
}
