//! Controller vectors (`conformance/controller`): replica calculation, normalization and
//! multi-sync timelines, run through `hpa_core::evaluator`.

use serde_json::{Value, json};

/// A `replica_calc.json` or `normalize.json` vector.
pub fn run_function(vector: &Value) -> (bool, Value) {
    let _ = vector;
    (false, json!({"error": "the evaluator is not implemented yet"}))
}

/// A `timelines.json` vector.
pub fn run_timeline(vector: &Value) -> (bool, Value) {
    let _ = vector;
    (false, json!({"error": "the evaluator is not implemented yet"}))
}
