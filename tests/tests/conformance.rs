//! Every vendored conformance vector passes through the public API.

use hpa_tests::conformance::assert_file_passes as check;

#[test]
fn api_validation() {
    check("api/validation.json");
}

#[test]
fn api_defaulting() {
    check("api/defaulting.json");
}

#[test]
fn api_conversion() {
    check("api/conversion.json");
}

#[test]
fn api_per_release() {
    check("api/versions.json");
}

#[test]
fn api_upstream_validation() {
    check("api/upstream_validation.json");
}

#[test]
fn api_number_literals_and_duplicate_keys() {
    check("api/literals.json");
}

#[test]
fn api_field_validation() {
    check("api/field_validation.json");
}

#[test]
fn api_upstream_defaulting() {
    check("api/upstream_defaulting.json");
}

#[test]
fn api_upstream_conversion() {
    check("api/upstream_conversion.json");
}

#[test]
fn api_upstream_decoding() {
    check("api/upstream_decoding.json");
}

#[test]
fn api_fresh_inputs() {
    check("api/fresh.json");
}

/// The runner's `got.error` for each vector of `vectors` (`null` for a vector that passed).
fn errors_of(vectors: &serde_json::Value) -> Vec<serde_json::Value> {
    let results = hpa_tests::conformance::run_file(&vectors.to_string(), "keys.json").unwrap();
    results.iter().map(|r| if r.pass { serde_json::Value::Null } else { r.got["error"].clone() }).collect()
}

#[test]
fn a_key_the_runner_does_not_read_fails_the_vector() {
    use serde_json::json;
    let pod = json!({"name": "p", "phase": "Running", "deleted": false, "start_time": "zero",
        "ready_condition": {"status": "True", "last_transition_time": "zero"},
        "containers": [{"name": "c1", "requests_milli": {"cpu": 100}}], "pod_requests_milli": {"cpu": 800}});
    let config = json!({"tolerance": {"scale_down": 0.1, "scale_up": 0.1}, "cpu_initialization_period_s": 120,
        "delay_of_initial_readiness_status_s": 10, "feature_gates": {}, "kubernetes_version": "1.37"});
    let requests = |id: &str, config: &serde_json::Value, inputs: serde_json::Value| {
        json!({"id": id, "source": "derived", "derived": true, "notes": "n", "note": "n",
            "function": "calculateRequests", "config": config, "inputs": inputs,
            "expect": {"requests_milli": {"p": 800}}})
    };
    let mut typo = config.clone();
    typo["kubernetes-version"] = typo["kubernetes_version"].take();
    typo.as_object_mut().unwrap().remove("kubernetes_version");
    let mut overhead = pod.clone();
    overhead["overhead"] = json!({"cpu": 250});
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
    let vectors = json!([
        requests("documented-keys", &config, json!({"resource": "cpu", "container": "", "pods": [pod]})),
        requests("typo-kubernetes-version", &typo, json!({"resource": "cpu", "container": "", "pods": [pod]})),
        requests("unknown-pod-key", &config, json!({"resource": "cpu", "container": "", "pods": [overhead]})),
        requests("unknown-input-key", &config, json!({"resource": "cpu", "container": "", "pods": [pod], "containr": "c9"})),
        {"id": "api-typo", "source": "derived", "derived": true, "operation": "CREATE",
         "kubernetes-version": "1.33", "object": hpa, "expect": {"allowed": true}},
        {"id": "api-expect-typo", "source": "derived", "derived": true, "operation": "CREATE",
         "object": hpa, "expect": {"allowed": true, "warning": []}},
    ]);
    let known_config = "tolerance, cpu_initialization_period_s, delay_of_initial_readiness_status_s, feature_gates, \
        kubernetes_version";
    assert_eq!(
        errors_of(&vectors),
        [
            json!(null),
            json!(format!(
                "vector \"typo-kubernetes-version\": unknown key \"kubernetes-version\" in config (the keys the \
                 runner knows there: {known_config})"
            )),
            json!(
                "vector \"unknown-pod-key\": unknown key \"overhead\" in inputs.pods[0] (the keys the runner knows \
                 there: name, phase, deleted, start_time, ready_condition, containers, init_containers, \
                 pod_requests_milli, overhead_milli)"
            ),
            json!(
                "vector \"unknown-input-key\": unknown key \"containr\" in inputs (the keys the runner knows there: \
                 resource, container, pods)"
            ),
            json!(
                "vector \"api-typo\": unknown key \"kubernetes-version\" in the vector (the keys the runner knows \
                 there: id, source, derived, note, notes, operation, profile, kubernetes_version, featureGates, \
                 fieldValidation, object, oldObject, expect)"
            ),
            json!(
                "vector \"api-expect-typo\": unknown key \"warning\" in expect (the keys the runner knows there: \
                 allowed, errors, statusMessage, firstErrorContains, decodeError, generation, warnings)"
            ),
        ]
    );
}

#[test]
fn a_timeline_key_the_runner_does_not_read_fails_the_vector() {
    use serde_json::json;
    let timeline = |sync_extra: serde_json::Value| {
        let mut sync = json!({"t": 0, "scale": {"spec_replicas": 2, "status_replicas": 2, "selector": "app=x"},
            "prenormalized_desired": 2, "expect": {"desired_replicas": 2, "rescaled": false}});
        for (k, v) in sync_extra.as_object().unwrap() {
            sync[k] = v.clone();
        }
        json!({"id": "tl", "source": "derived", "derived": true, "notes": "n",
            "config": {"tolerance": 0.1, "downscale_stabilization_s": 300, "cpu_initialization_period_s": 300,
                "delay_of_initial_readiness_status_s": 30, "scale_up_limit_factor": 2.0, "scale_up_limit_minimum": 4.0,
                "feature_gates": {}, "kubernetes_version": "1.37"},
            "hpa": {"scale_target_kind": "Deployment", "min_replicas": 1, "max_replicas": 10, "metrics": [], "behavior": null},
            "initial_status": {"current_replicas": 2, "desired_replicas": 2, "conditions": []},
            "initial_controller_state": {"recommendations": null, "scale_up_events": [], "scale_down_events": []},
            "syncs": [sync]})
    };
    let vectors = json!([
        timeline(json!({})),
        timeline(json!({"scale_update_conflicts": true})),
        timeline(json!({"fetch_errors": ["custom"]})),
    ]);
    let errors = errors_of(&vectors);
    assert_eq!(errors[0], json!(null));
    assert_eq!(
        errors[1].as_str().unwrap().split(" (").next(),
        Some("vector \"tl\": unknown key \"scale_update_conflicts\" in syncs[0]")
    );
    assert_eq!(
        errors[2],
        json!(
            "vector \"tl\": unknown value \"custom\" in syncs[0].fetch_errors (the values the runner knows: resource, \
             pods, object, external)"
        )
    );
}
