//! `/mutate`: kube-apiserver's defaulting and the organization policy, as minimal patches that
//! apply to the object as sent.

use serde_json::{Value, json};

use hpa_core::api::{self, ApiVersion, VersionedHpa};
use hpa_core::convert::annotations::BEHAVIOR;

use crate::support::{Harness, apply_patch, hpa_v1, hpa_v2, hpa_v2_defaulted, patch_ops, response, review, workspace};

const CPU_80: &str =
    r#"[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]"#;

const POLICY: &str = r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
namespaceLabels:
  shop: {tier: production}
rules:
  - name: production
    namespaceSelector: {matchLabels: {tier: production}}
    behavior:
      scaleDown: {stabilizationWindowSeconds: 600}
      scaleUp: {tolerance: "0.05"}
"#;

fn cpu_80() -> Value {
    serde_json::from_str(CPU_80).unwrap()
}

fn default_scale_up() -> Value {
    json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]})
}

fn default_scale_down() -> Value {
    json!({"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
}

#[tokio::test]
async fn v2_objects_are_defaulted_and_a_nil_behavior_stays_nil() {
    let h = Harness::default_config();
    let object = hpa_v2("web", "shop");
    let answer = h.post("/mutate", &review("u1", "CREATE", &object, None)).await;
    assert_eq!(response(&answer)["allowed"], true);
    assert!(response(&answer).get("status").is_none());
    assert_eq!(
        patch_ops(&answer),
        json!([
            {"op": "add", "path": "/spec/minReplicas", "value": 1},
            {"op": "add", "path": "/spec/metrics", "value": cpu_80()},
        ])
    );
    let mut expected = object.clone();
    expected["spec"]["minReplicas"] = json!(1);
    expected["spec"]["metrics"] = cpu_80();
    assert_eq!(apply_patch(&object, &answer), expected);
    assert!(apply_patch(&object, &answer)["spec"].get("behavior").is_none());
}

#[tokio::test]
async fn defaulted_objects_get_no_patch_on_create_update_and_dry_run() {
    let h = Harness::default_config();
    let object = hpa_v2_defaulted("web", "shop");
    for (op, old) in [("CREATE", None), ("UPDATE", Some(&object))] {
        let mut r = review("u2", op, &object, old);
        for dry_run in [false, true] {
            r["request"]["dryRun"] = json!(dry_run);
            let answer = h.post("/mutate", &r).await;
            assert_eq!(response(&answer), &json!({"uid": "u2", "allowed": true}), "{op} dryRun={dry_run}");
        }
    }
}

#[tokio::test]
async fn a_set_behavior_is_completed_field_by_field() {
    let h = Harness::default_config();
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["behavior"] = json!({"scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": null}});
    let answer = h.post("/mutate", &review("u3", "UPDATE", &object, Some(&object))).await;
    assert_eq!(
        patch_ops(&answer),
        json!([
            {"op": "add", "path": "/spec/behavior/scaleUp", "value": default_scale_up()},
            {"op": "replace", "path": "/spec/behavior/scaleDown/selectPolicy", "value": "Max"},
            {"op": "add", "path": "/spec/behavior/scaleDown/policies", "value": default_scale_down()["policies"]},
        ])
    );
    let patched = apply_patch(&object, &answer);
    let mut down = default_scale_down();
    down["stabilizationWindowSeconds"] = json!(60);
    assert_eq!(patched["spec"]["behavior"], json!({"scaleDown": down, "scaleUp": default_scale_up()}));
    // Idempotent: the patched object needs nothing more.
    let again = h.post("/mutate", &review("u3b", "UPDATE", &patched, Some(&patched))).await;
    assert!(response(&again).get("patch").is_none());
}

#[tokio::test]
async fn v1_objects_get_v1_defaulting_only() {
    let h = Harness::default_config();
    let object = hpa_v1("web", "shop");
    let answer = h.post("/mutate", &review("u4", "CREATE", &object, None)).await;
    assert_eq!(patch_ops(&answer), json!([{"op": "add", "path": "/spec/minReplicas", "value": 1}]));
    let patched = apply_patch(&object, &answer);
    assert!(patched["metadata"].get("annotations").is_none(), "no behavior annotation without a policy");
}

#[tokio::test]
async fn the_policy_fills_unset_behavior_fields_in_matching_namespaces_only() {
    let h = Harness::new(&[], Some(POLICY));
    // A namespace the policy does not select: defaulting only, behavior stays nil.
    let other = hpa_v2_defaulted("web", "other");
    assert_eq!(
        response(&h.post("/mutate", &review("u5", "CREATE", &other, None)).await),
        &json!({"uid": "u5", "allowed": true})
    );

    // The production namespace: behavior is created from the policy, then defaulted.
    let object = hpa_v2_defaulted("web", "shop");
    let answer = h.post("/mutate", &review("u6", "CREATE", &object, None)).await;
    let mut up = default_scale_up();
    up["tolerance"] = json!("50m");
    let mut down = default_scale_down();
    down["stabilizationWindowSeconds"] = json!(600);
    assert_eq!(
        patch_ops(&answer),
        json!([{"op": "add", "path": "/spec/behavior", "value": {"scaleUp": up, "scaleDown": down}}])
    );

    // What the user set wins; only the unset window is filled.
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["behavior"] =
        json!({"scaleUp": {"tolerance": "0.2"}, "scaleDown": {"stabilizationWindowSeconds": 30}});
    let answer = h.post("/mutate", &review("u7", "CREATE", &object, None)).await;
    let patched = apply_patch(&object, &answer);
    assert_eq!(patched["spec"]["behavior"]["scaleUp"]["tolerance"], "0.2", "left as sent");
    assert_eq!(patched["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 30);
}

#[tokio::test]
async fn tolerance_defaults_apply_only_while_the_gate_is_on() {
    let off = Harness::new(
        &["--kubernetes-version", "1.36", "--feature-gates", "HPAConfigurableTolerance=false"],
        Some(POLICY),
    );
    let object = hpa_v2_defaulted("web", "shop");
    let answer = off.post("/mutate", &review("u8", "CREATE", &object, None)).await;
    let behavior = &apply_patch(&object, &answer)["spec"]["behavior"];
    assert!(behavior["scaleUp"].get("tolerance").is_none());
    assert_eq!(behavior["scaleDown"]["stabilizationWindowSeconds"], 600);
}

/// A v1 object keeps `behavior` in an annotation: the policy's behavior is written there as
/// kube-apiserver writes it, and means the same as for the v2 object.
#[tokio::test]
async fn v1_behavior_goes_into_the_annotation_as_kube_apiserver_writes_it() {
    let h = Harness::new(&[], Some(POLICY));
    let v1_object = hpa_v1("web", "shop");
    let answer = h.post("/mutate", &review("u9", "CREATE", &v1_object, None)).await;
    let ops = patch_ops(&answer);
    assert_eq!(ops[0]["op"], "add");
    assert_eq!(ops[0]["path"], "/metadata/annotations");
    assert_eq!(ops[1], json!({"op": "add", "path": "/spec/minReplicas", "value": 1}));
    let patched = apply_patch(&v1_object, &answer);

    // The same object in v2, through the same webhook.
    let VersionedHpa::V2(v2_object) =
        hpa_core::convert::convert(&api::decode(&v1_object).unwrap(), ApiVersion::V2).unwrap().object
    else {
        panic!()
    };
    let v2_json = VersionedHpa::V2(v2_object).to_json();
    let v2_answer = h.post("/mutate", &review("u10", "CREATE", &v2_json, None)).await;
    let v2_patched = api::decode(&apply_patch(&v2_json, &v2_answer)).unwrap();

    // kube-apiserver reads the patched v1 object to the same internal object...
    let from_v1 = hpa_core::convert::to_internal(&api::decode(&patched).unwrap()).unwrap().object;
    let from_v2 = hpa_core::convert::to_internal(&v2_patched).unwrap().object;
    assert_eq!(from_v1.spec, from_v2.spec);
    // ...and the annotation is byte for byte what it writes for that object in v1.
    let VersionedHpa::V1(written) = hpa_core::convert::from_internal(&from_v2, ApiVersion::V1) else { panic!() };
    assert_eq!(patched["metadata"]["annotations"][BEHAVIOR], json!(written.metadata.annotations[BEHAVIOR]));
    assert_eq!(
        patched["metadata"]["annotations"][BEHAVIOR],
        r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":"50m"},"ScaleDown":{"StabilizationWindowSeconds":600,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}"#
    );
}

#[tokio::test]
async fn v1_annotations_are_read_as_kube_apiserver_reads_them_and_keys_are_escaped() {
    let h = Harness::new(&[], Some(POLICY));
    let mut object = hpa_v1("web", "shop");
    object["spec"]["minReplicas"] = json!(2);
    // Go's encoding/json matches keys case-insensitively: the user's selectPolicy counts.
    object["metadata"]["annotations"] = json!({BEHAVIOR: r#"{"scaleUp":{"selectPolicy":"Min"}}"#, "team": "a"});
    let answer = h.post("/mutate", &review("u11", "CREATE", &object, None)).await;
    let ops = patch_ops(&answer);
    assert_eq!(ops.as_array().unwrap().len(), 1, "{ops}");
    assert_eq!(ops[0]["op"], "replace");
    assert_eq!(ops[0]["path"], "/metadata/annotations/autoscaling.alpha.kubernetes.io~1behavior");
    let patched = apply_patch(&object, &answer);
    assert_eq!(patched["metadata"]["annotations"]["team"], "a");
    let behavior =
        hpa_core::convert::to_internal(&api::decode(&patched).unwrap()).unwrap().object.spec.behavior.unwrap();
    let (up, down) = (behavior.scale_up.unwrap(), behavior.scale_down.unwrap());
    assert_eq!(up.select_policy.as_deref(), Some("Min"));
    assert_eq!(down.stabilization_window_seconds, Some(600));

    // An annotation kube-apiserver ignores (not JSON) counts as no behavior: the policy's wins.
    object["metadata"]["annotations"] = json!({BEHAVIOR: "{not json"});
    let answer = h.post("/mutate", &review("u12", "CREATE", &object, None)).await;
    let patched = apply_patch(&object, &answer);
    let behavior =
        hpa_core::convert::to_internal(&api::decode(&patched).unwrap()).unwrap().object.spec.behavior.unwrap();
    assert_eq!(behavior.scale_up.unwrap().select_policy.as_deref(), Some("Max"));
}

#[tokio::test]
async fn other_resources_kinds_and_operations_are_admitted_untouched() {
    let h = Harness::new(&[], Some(POLICY));
    let deployment =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
    let mut r = review("u13", "CREATE", &deployment, None);
    r["request"]["kind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    r["request"]["resource"] = json!({"group": "apps", "version": "v1", "resource": "deployments"});
    for path in ["/mutate", "/validate"] {
        assert_eq!(response(&h.post(path, &r).await), &json!({"uid": "u13", "allowed": true}));
    }
    let object = hpa_v2("web", "shop");
    let mut status = review("u14", "UPDATE", &object, Some(&object));
    status["request"]["subResource"] = json!("status");
    let mut delete = review("u15", "DELETE", &Value::Null, Some(&object));
    delete["request"]["object"] = Value::Null;
    let connect = review("u16", "CONNECT", &object, None);
    for r in [status, delete, connect] {
        for path in ["/mutate", "/validate"] {
            let answer = h.post(path, &r).await;
            assert_eq!(response(&answer)["allowed"], true);
            assert!(response(&answer).get("patch").is_none());
        }
    }
}

#[tokio::test]
async fn removed_versions_are_left_alone_with_a_warning() {
    let h = Harness::default_config();
    let mut object = hpa_v2("web", "shop");
    object["apiVersion"] = json!("autoscaling/v2beta2");
    let answer = h.post("/mutate", &review("u17", "CREATE", &object, None)).await;
    assert_eq!(response(&answer)["allowed"], true);
    assert!(response(&answer).get("patch").is_none());
    assert!(response(&answer)["warnings"][0].as_str().unwrap().contains("autoscaling/v2beta2"));
}

/// Every HPA of the real-world corpus: the patch applies to the file's object as written and
/// the result is exactly kube-apiserver's defaulting of it, and what `hpa-lint default` prints.
#[tokio::test]
async fn every_patch_applies_and_yields_the_defaulted_object_for_the_real_world_corpus() {
    let h = Harness::default_config();
    let dir = workspace().join("tests/data/realworld/hpa");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let docs = if path.extension().is_some_and(|e| e == "json") {
            vec![serde_json::from_str(&text).unwrap()]
        } else {
            crate::support::yaml_documents(&text)
        };
        for (i, mut object) in docs.into_iter().enumerate() {
            if object["kind"] != "HorizontalPodAutoscaler" || !object.is_object() {
                continue;
            }
            if object["metadata"].get("namespace").is_none() && object["metadata"].is_object() {
                object["metadata"]["namespace"] = json!("default");
            }
            let uid = format!("{}#{i}", path.display());
            let answer = h.post("/mutate", &review(&uid, "CREATE", &object, None)).await;
            let validated = h.post("/validate", &review(&uid, "CREATE", &object, None)).await;
            let mut expected = match api::decode(&object) {
                Ok(expected) => expected,
                Err(errors) if errors.iter().all(|e| e.kind == api::DecodeErrorKind::UnknownField) => {
                    // Fields this build does not know are ignored (version skew), and kept.
                    assert_eq!(response(&answer)["allowed"], true, "{uid}");
                    apply_patch(&object, &answer);
                    continue;
                }
                Err(_) => {
                    // kube-apiserver would have refused it with 400: so does the webhook.
                    assert_eq!(response(&answer)["allowed"], false, "{uid}");
                    assert_eq!(response(&answer)["status"]["code"], 400, "{uid}");
                    continue;
                }
            };
            let served = matches!(expected, VersionedHpa::V1(_) | VersionedHpa::V2(_));
            if served {
                hpa_core::defaults::default_versioned(&mut expected);
            }
            let patched = apply_patch(&object, &answer);
            assert_eq!(api::decode(&patched).unwrap(), expected, "{uid}");
            if served {
                // `hpa-lint default` prints the same defaulting, as kube-apiserver returns it (stored
                // as autoscaling/v2 and read back: v1's 80 % CPU target, annotations rewritten).
                let served = hpa_core::convert::as_served_in(&expected, hpa_core::features::KubernetesVersion::LATEST)
                    .unwrap()
                    .object;
                let run = hpa_tests::cli::hpa_lint(&["default", "--no-config", "-o", "json", "-"], &object.to_string());
                assert_eq!(api::decode(&run.json()).unwrap(), served, "{uid}: hpa-lint default");
            }
            assert_eq!(response(&answer)["allowed"], true, "{uid}");
            if response(&validated)["allowed"] == false {
                assert_eq!(response(&validated)["status"]["code"], 422, "{uid}");
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} HPAs checked");
}

/// The objects of the validation conformance vectors, as users write them.
#[tokio::test]
async fn every_patch_applies_for_the_conformance_objects() {
    let h = Harness::new(&[], Some(POLICY));
    let text = std::fs::read_to_string(workspace().join("tests/data/conformance/api/validation.json")).unwrap();
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    for vector in &vectors {
        let mut object = vector["object"].clone();
        for namespace in ["default", "shop"] {
            object["metadata"]["namespace"] = json!(namespace);
            let answer = h.post("/mutate", &review("u", "CREATE", &object, None)).await;
            let patched = api::decode(&apply_patch(&object, &answer)).unwrap();
            let mut expected = api::decode(&object).unwrap();
            hpa_core::defaults::default_versioned(&mut expected);
            if namespace == "default" {
                assert_eq!(patched, expected, "{}", vector["id"]);
            }
            // Mutating again changes nothing.
            let again = h.post("/mutate", &review("u", "CREATE", &apply_patch(&object, &answer), None)).await;
            assert!(response(&again).get("patch").is_none(), "{} in {namespace}: {}", vector["id"], patch_ops(&again));
        }
    }
}
