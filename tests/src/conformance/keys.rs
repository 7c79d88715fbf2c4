//! The keys a vector may have, per place in each kind of vector (the schemas of
//! `tests/data/conformance/{api,controller}/README.md`): a key the runner does not read fails
//! the vector, naming it, the vector and the keys known there, instead of being ignored (a
//! `kubernetes-version` typo would run another release and pass). The metadata keys the READMEs
//! document (`id`, `source`, `derived`, `note`, `notes`) are accepted everywhere at the top.
//!
//! The objects the runner decodes with `hpa_core`'s strict decoder (API objects, the timelines'
//! `hpa.metrics` and `hpa.behavior`, normalization rules) are checked by that decoder instead.

use serde_json::{Map, Value};

use super::VectorKind;

/// The metadata keys of every vector: not read, always accepted.
const META: &[&str] = &["id", "source", "derived", "note", "notes"];

const VALIDATION: &[&str] =
    &["operation", "profile", "kubernetes_version", "featureGates", "fieldValidation", "object", "oldObject", "expect"];
const VALIDATION_EXPECT: &[&str] =
    &["allowed", "errors", "statusMessage", "firstErrorContains", "decodeError", "generation", "warnings"];
const DEFAULTING: &[&str] = &["input", "expect", "kubernetes_version"];
const CONVERSION: &[&str] = &[
    "input",
    "toVersion",
    "expect",
    "expectError",
    "roundTrip",
    "compareAnnotationsAsJSON",
    "kubernetes_version",
    "profile",
];

const FUNCTION: &[&str] = &["function", "config", "inputs", "expect"];
/// `config` of a function vector: a `normalize.json` function reads only the release
/// (`kubernetes_version`, `feature_gates`), but the keys documented for `replica_calc.json` are
/// accepted there too (they cannot change its result).
const FUNCTION_CONFIG: &[&str] = &[
    "tolerance",
    "cpu_initialization_period_s",
    "delay_of_initial_readiness_status_s",
    "feature_gates",
    "kubernetes_version",
];
const TOLERANCES: &[&str] = &["scale_down", "scale_up"];

const POD: &[&str] = &[
    "name",
    "phase",
    "deleted",
    "start_time",
    "ready_condition",
    "containers",
    "init_containers",
    "pod_requests_milli",
    "overhead_milli",
];
const READY_CONDITION: &[&str] = &["status", "last_transition_time"];
const CONTAINER: &[&str] = &["name", "requests_milli", "restart_policy"];
const POD_METRICS: &[&str] = &["pod", "timestamp", "window_s", "containers"];
const CONTAINER_USAGE: &[&str] = &["name", "usage_milli"];
const POD_SAMPLE: &[&str] = &["pod", "value_milli", "timestamp", "window_s"];
const GROUP_PODS_METRIC: &[&str] = &["value", "timestamp", "window_s"];
const AGED_RECOMMENDATION: &[&str] = &["value", "age_s"];
const AGED_SCALE_EVENT: &[&str] = &["change", "age_s", "outdated"];

const TIMELINE: &[&str] = &["config", "hpa", "initial_status", "initial_controller_state", "syncs"];
const TIMELINE_CONFIG: &[&str] = &[
    "tolerance",
    "downscale_stabilization_s",
    "cpu_initialization_period_s",
    "delay_of_initial_readiness_status_s",
    "scale_up_limit_factor",
    "scale_up_limit_minimum",
    "feature_gates",
    "kubernetes_version",
];
const HPA: &[&str] = &["scale_target_kind", "min_replicas", "max_replicas", "metrics", "behavior", "generation"];
const INITIAL_STATUS: &[&str] = &["current_replicas", "desired_replicas", "conditions"];
const CONDITION: &[&str] = &["type", "status", "reason"];
const CONTROLLER_STATE: &[&str] = &["recommendations", "scale_up_events", "scale_down_events"];
const RECOMMENDATION: &[&str] = &["value", "t"];
const SCALE_EVENT: &[&str] = &["change", "t", "outdated"];
const SYNC: &[&str] = &[
    "t",
    "scale",
    "pods",
    "resource_metrics",
    "pods_metrics",
    "object_metrics",
    "external_metrics",
    "prenormalized_desired",
    "fetch_errors",
    "scale_get_error",
    "scale_update_error",
    "scale_update_conflict",
    "selector_unparsable",
    "other_hpa_selects_same_pods",
    "expect",
];
const SCALE: &[&str] = &["spec_replicas", "status_replicas", "selector"];
const OBJECT_METRIC: &[&str] = &["apiVersion", "kind", "name", "metric", "value_milli"];
const SYNC_EXPECT: &[&str] = &[
    "desired_replicas",
    "rescaled",
    "conditions",
    "current_cpu_utilization",
    "current_cpu_average_value_milli",
    "current_memory_average_value",
    "observed_generation",
];
/// The values of a sync's `fetch_errors`.
const FETCH_ERRORS: &[&str] = &["resource", "pods", "object", "external"];

/// What a function vector's `inputs` and `expect` may hold.
struct FunctionKeys {
    inputs: &'static [&'static str],
    expect: &'static [&'static str],
}

/// The keys of each function of `replica_calc.json` and `normalize.json` (the READMEs' tables).
fn function_keys(function: &str) -> Option<FunctionKeys> {
    const PLAIN: &[&str] = &["replicas", "usage_milli", "error_contains"];
    let keys = |inputs, expect| Some(FunctionKeys { inputs, expect });
    match function {
        "GetResourceReplicas" => keys(
            &["current_replicas", "resource", "container", "target_utilization", "pods", "resource_metrics"],
            &["replicas", "utilization", "raw_value_milli", "error_contains"],
        ),
        "GetRawResourceReplicas" => {
            keys(&["current_replicas", "resource", "container", "target_milli", "pods", "resource_metrics"], PLAIN)
        }
        "GetMetricReplicas" => keys(&["current_replicas", "target_milli", "pods", "pod_metrics"], PLAIN),
        "GetObjectMetricReplicas" => keys(&["current_replicas", "target_milli", "object_value_milli", "pods"], PLAIN),
        "GetObjectPerPodMetricReplicas" => {
            keys(&["status_replicas", "target_average_milli", "object_value_milli"], PLAIN)
        }
        "GetExternalMetricReplicas" => {
            keys(&["current_replicas", "target_milli", "external_values_milli", "pods"], PLAIN)
        }
        "GetExternalPerPodMetricReplicas" => {
            keys(&["status_replicas", "target_average_milli", "external_values_milli"], PLAIN)
        }
        "groupPods" => keys(&["resource", "pods", "metrics"], &["ready_count", "unready", "missing", "ignored"]),
        "calculateRequests" => keys(&["resource", "container", "pods"], &["requests_milli", "error_contains"]),
        "stabilizeRecommendation" => keys(
            &["downscale_stabilization_window_s", "prenormalized_desired", "recommendations"],
            &["stabilized", "recommendations_len_after", "recommendation_values_after"],
        ),
        "convertDesiredReplicasWithRules" => keys(
            &[
                "current_replicas",
                "desired_replicas",
                "min_replicas",
                "max_replicas",
                "scale_up_limit_factor",
                "scale_up_limit_minimum",
            ],
            &["replicas", "reason"],
        ),
        "stabilizeRecommendationWithBehaviors" => keys(
            &[
                "current_replicas",
                "prenormalized_desired",
                "scale_up_stabilization_window_s",
                "scale_down_stabilization_window_s",
                "recommendations",
            ],
            &["stabilized", "recommendation_values_after", "reason"],
        ),
        "convertDesiredReplicasWithBehaviorRate" => keys(
            &[
                "current_replicas",
                "desired_replicas",
                "min_replicas",
                "max_replicas",
                "scale_up_rules",
                "scale_down_rules",
                "scale_up_events",
                "scale_down_events",
            ],
            &["replicas", "reason"],
        ),
        "storeScaleEvent" => keys(
            &["direction", "rules", "prev_replicas", "new_replicas", "events_before", "change_in_period_check_s"],
            &["change_in_period_before", "events_after"],
        ),
        "calculateScaleUpLimitWithScalingRules" | "calculateScaleDownLimitWithBehaviors" => {
            keys(&["current_replicas", "rules", "scale_up_events", "scale_down_events"], &["limit"])
        }
        _ => None,
    }
}

type R = Result<(), String>;

/// Checks the keys of one vector of `kind` (see the module documentation).
pub fn check(kind: VectorKind, vector: &Value) -> R {
    let id = vector.get("id").and_then(Value::as_str).unwrap_or("<no id>");
    let c = Checker { id };
    match kind {
        VectorKind::Validation => {
            c.top(vector, VALIDATION)?;
            c.object(vector.get("expect"), "expect", VALIDATION_EXPECT)?;
        }
        VectorKind::Defaulting => c.top(vector, DEFAULTING)?,
        VectorKind::Conversion => c.top(vector, CONVERSION)?,
        VectorKind::Function => c.function(vector)?,
        VectorKind::Timeline => c.timeline(vector)?,
    }
    Ok(())
}

/// Checks one vector's objects, naming the vector in its error.
struct Checker<'a> {
    id: &'a str,
}

impl Checker<'_> {
    /// The vector's own keys: `META` and `known`.
    fn top(&self, vector: &Value, known: &[&str]) -> R {
        let all: Vec<&str> = META.iter().chain(known).copied().collect();
        self.object(Some(vector), "the vector", &all).map(|_| ())
    }

    /// The value at `path`, when it is an object, has only `known` keys.
    fn object<'v>(
        &self,
        value: Option<&'v Value>,
        path: &str,
        known: &[&str],
    ) -> Result<Option<&'v Map<String, Value>>, String> {
        let Some(Value::Object(map)) = value else { return Ok(None) };
        match map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(format!(
                "vector {:?}: unknown key {key:?} in {path} (the keys the runner knows there: {})",
                self.id,
                known.join(", ")
            )),
            None => Ok(Some(map)),
        }
    }

    /// Each element of the array at `key` of `parent` (at `path`).
    fn each(&self, parent: &Map<String, Value>, path: &str, key: &str, f: impl Fn(&Value, &str) -> R) -> R {
        if let Some(Value::Array(items)) = parent.get(key) {
            for (i, item) in items.iter().enumerate() {
                f(item, &format!("{path}.{key}[{i}]"))?;
            }
        }
        Ok(())
    }

    /// Each element of the array at `key` of `parent` has only `known` keys.
    fn each_object(&self, parent: &Map<String, Value>, path: &str, key: &str, known: &[&str]) -> R {
        self.each(parent, path, key, |item, at| self.object(Some(item), at, known).map(|_| ()))
    }

    fn pod(&self, pod: &Value, path: &str) -> R {
        let Some(p) = self.object(Some(pod), path, POD)? else { return Ok(()) };
        self.object(p.get("ready_condition"), &format!("{path}.ready_condition"), READY_CONDITION)?;
        self.each_object(p, path, "containers", CONTAINER)?;
        self.each_object(p, path, "init_containers", CONTAINER)
    }

    fn pod_metrics(&self, item: &Value, path: &str) -> R {
        let Some(m) = self.object(Some(item), path, POD_METRICS)? else { return Ok(()) };
        self.each_object(m, path, "containers", CONTAINER_USAGE)
    }

    /// The pod and metric lists that replica-calculation inputs and syncs share.
    fn pods_and_metrics(&self, parent: &Map<String, Value>, path: &str) -> R {
        self.each(parent, path, "pods", |p, at| self.pod(p, at))?;
        self.each(parent, path, "resource_metrics", |m, at| self.pod_metrics(m, at))
    }

    fn function(&self, vector: &Value) -> R {
        self.top(vector, FUNCTION)?;
        let function = vector.get("function").and_then(Value::as_str).unwrap_or("");
        let Some(keys) = function_keys(function) else {
            return Err(format!("vector {:?}: unknown function {function:?}", self.id));
        };
        if let Some(config) = self.object(vector.get("config"), "config", FUNCTION_CONFIG)? {
            self.object(config.get("tolerance"), "config.tolerance", TOLERANCES)?;
        }
        self.object(vector.get("expect"), "expect", keys.expect)?;
        let Some(inputs) = self.object(vector.get("inputs"), "inputs", keys.inputs)? else { return Ok(()) };
        self.pods_and_metrics(inputs, "inputs")?;
        self.each_object(inputs, "inputs", "pod_metrics", POD_SAMPLE)?;
        if let Some(Value::Object(by_pod)) = inputs.get("metrics") {
            for (pod, metric) in by_pod {
                self.object(Some(metric), &format!("inputs.metrics.{pod}"), GROUP_PODS_METRIC)?;
            }
        }
        self.each_object(inputs, "inputs", "recommendations", AGED_RECOMMENDATION)?;
        for events in ["scale_up_events", "scale_down_events", "events_before"] {
            self.each_object(inputs, "inputs", events, AGED_SCALE_EVENT)?;
        }
        Ok(())
    }

    fn timeline(&self, vector: &Value) -> R {
        self.top(vector, TIMELINE)?;
        self.object(vector.get("config"), "config", TIMELINE_CONFIG)?;
        self.object(vector.get("hpa"), "hpa", HPA)?;
        if let Some(status) = self.object(vector.get("initial_status"), "initial_status", INITIAL_STATUS)? {
            self.each_object(status, "initial_status", "conditions", CONDITION)?;
        }
        let state = vector.get("initial_controller_state");
        if let Some(state) = self.object(state, "initial_controller_state", CONTROLLER_STATE)? {
            self.each_object(state, "initial_controller_state", "recommendations", RECOMMENDATION)?;
            for events in ["scale_up_events", "scale_down_events"] {
                self.each_object(state, "initial_controller_state", events, SCALE_EVENT)?;
            }
        }
        let Some(Value::Array(syncs)) = vector.get("syncs") else { return Ok(()) };
        for (i, sync) in syncs.iter().enumerate() {
            self.sync(sync, &format!("syncs[{i}]"))?;
        }
        Ok(())
    }

    fn sync(&self, sync: &Value, path: &str) -> R {
        let Some(s) = self.object(Some(sync), path, SYNC)? else { return Ok(()) };
        self.object(s.get("scale"), &format!("{path}.scale"), SCALE)?;
        self.pods_and_metrics(s, path)?;
        if let Some(Value::Object(by_metric)) = s.get("pods_metrics") {
            for (metric, samples) in by_metric {
                let Value::Array(samples) = samples else { continue };
                for (i, sample) in samples.iter().enumerate() {
                    self.object(Some(sample), &format!("{path}.pods_metrics.{metric}[{i}]"), POD_SAMPLE)?;
                }
            }
        }
        self.each_object(s, path, "object_metrics", OBJECT_METRIC)?;
        if let Some(Value::Array(errors)) = s.get("fetch_errors")
            && let Some(e) = errors.iter().find(|e| !e.as_str().is_some_and(|e| FETCH_ERRORS.contains(&e)))
        {
            return Err(format!(
                "vector {:?}: unknown value {e} in {path}.fetch_errors (the values the runner knows: {})",
                self.id,
                FETCH_ERRORS.join(", ")
            ));
        }
        if let Some(expect) = self.object(s.get("expect"), &format!("{path}.expect"), SYNC_EXPECT)? {
            self.each_object(expect, &format!("{path}.expect"), "conditions", CONDITION)?;
        }
        Ok(())
    }
}
