//! `hpa-webhook policy export`, proved against the webhook's own policy code: the generated CEL
//! is evaluated with the `cel` crate (Kubernetes' `JSONPatch` and `Object.*` struct literals
//! built here as maps) on a corpus of HPAs — the real-world manifests, every rule's examples
//! from `hpa_core::rules::ALL`, the bundled examples and the policy tests' shapes — in several
//! namespaces, under several policies; the ValidatingAdmissionPolicy must reach the webhook's
//! verdict with its messages, and the MutatingAdmissionPolicy's patches the webhook's defaulted
//! object. Every generated object passes `kubernetes-validate --strict`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use cel::common::types::Type;
use cel::common::value::{CowVal, Val};
use cel::objects::{Key, Map};
use cel::{Context, Env, ExecutionError, StructType};
use serde_json::{Value, json};

use hpa_core::api::v2;
use hpa_webhook::admission::{Admission, mutate_v2};
use hpa_webhook::export::{ExportOptions, export};
use hpa_webhook::metrics::Endpoint;
use hpa_webhook::policy::Policy;

use crate::manifests::tool;
use crate::support::{review, workspace, yaml_documents};

/// `JSONPatch{...}` and `Object.spec...{...}` construct maps (what kube-apiserver turns them into).
struct MapStruct(Type);

impl StructType for MapStruct {
    fn get_type(&self) -> &Type {
        &self.0
    }

    fn new_value<'b, 'v>(&self, fields: BTreeMap<String, CowVal<'b, 'v>>) -> Result<Box<dyn Val + 'v>, ExecutionError> {
        let mut map = HashMap::new();
        for (k, v) in fields {
            map.insert(Key::from(k), cel::Value::try_from(v.as_ref())?);
        }
        let value: Box<dyn Val> = Box::<dyn Val>::try_from(cel::Value::Map(Map { map: Arc::new(map) }))?;
        Ok(value)
    }
}

fn cel_env() -> Arc<Env> {
    let mut env = Env::stdlib();
    for name in [
        "JSONPatch",
        "Object.spec.behavior",
        "Object.spec.behavior.scaleUp",
        "Object.spec.behavior.scaleDown",
        "Object.spec.behavior.scaleUp.policies",
        "Object.spec.behavior.scaleDown.policies",
    ] {
        env.add_type(MapStruct(Type::new_struct(name.to_string()))).unwrap();
    }
    Arc::new(env)
}

/// One admission request as the policies' CEL sees it.
struct Request<'a> {
    operation: &'a str,
    object: &'a Value,
    old: Option<&'a Value>,
    namespace: &'a str,
    labels: BTreeMap<String, String>,
}

/// Evaluates a policy's variables in order, then `expressions`; the results as JSON (optional
/// values as `{"optional": value|null}`).
fn evaluate(env: &Arc<Env>, spec: &Value, request: &Request<'_>, expressions: &[&str]) -> Vec<cel::Value> {
    let namespace_object = json!({"metadata": {"name": request.namespace, "labels": request.labels}});
    let base = |variables: &HashMap<Key, cel::Value>| {
        let mut ctx = Context::with_env(env.clone());
        ctx.add_variable("object", request.object).unwrap();
        ctx.add_variable("oldObject", request.old.unwrap_or(&Value::Null)).unwrap();
        ctx.add_variable("request", json!({"operation": request.operation, "namespace": request.namespace})).unwrap();
        ctx.add_variable("namespaceObject", &namespace_object).unwrap();
        ctx.add_variable_from_value("variables", cel::Value::Map(Map { map: Arc::new(variables.clone()) }));
        ctx
    };
    let mut variables = HashMap::new();
    for variable in spec["variables"].as_array().unwrap() {
        let expression = variable["expression"].as_str().unwrap();
        let program = compiled(env, expression);
        let value = program
            .execute(&base(&variables))
            .unwrap_or_else(|e| panic!("variable {}: {expression}: {e:?}", variable["name"]));
        variables.insert(Key::from(variable["name"].as_str().unwrap()), value);
    }
    expressions
        .iter()
        .map(|expression| {
            let program = compiled(env, expression);
            program.execute(&base(&variables)).unwrap_or_else(|e| panic!("{expression}: {e:?}"))
        })
        .collect()
}

/// Each expression compiled once (the corpus evaluates them tens of thousands of times).
fn compiled(env: &Env, expression: &str) -> Arc<cel::Program> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<String, Arc<cel::Program>>>> =
        std::sync::OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache
        .entry(expression.to_string())
        .or_insert_with(|| Arc::new(env.compile(expression).unwrap_or_else(|e| panic!("{expression}: {e:?}"))))
        .clone()
}

/// The ValidatingAdmissionPolicy's verdict: the messages of the failed validations.
fn vap_messages(env: &Arc<Env>, policy: &Value, request: &Request<'_>) -> Vec<String> {
    let spec = &policy["spec"];
    let mut messages = Vec::new();
    for validation in spec["validations"].as_array().unwrap() {
        let results = evaluate(
            env,
            spec,
            request,
            &[validation["expression"].as_str().unwrap(), validation["messageExpression"].as_str().unwrap()],
        );
        if results[0] == cel::Value::Bool(false) {
            let cel::Value::String(message) = &results[1] else { panic!("message {:?}", results[1]) };
            messages.push(message.to_string());
        } else {
            assert_eq!(results[0], cel::Value::Bool(true));
        }
    }
    messages
}

/// The MutatingAdmissionPolicy applied: its JSON patches on the object.
fn map_mutated(env: &Arc<Env>, policy: &Value, request: &Request<'_>) -> Value {
    let spec = &policy["spec"];
    let expression = spec["mutations"][0]["jsonPatch"]["expression"].as_str().unwrap();
    let patches = evaluate(env, spec, request, &[expression]).remove(0);
    let patches = patches.json().unwrap();
    let patch: json_patch::Patch = serde_json::from_value(patches.clone()).unwrap_or_else(|e| panic!("{patches}: {e}"));
    let mut object = request.object.clone();
    json_patch::patch(&mut object, &patch).unwrap_or_else(|e| panic!("{patches}: {e}"));
    object
}

const POLICIES: [&str; 3] = [
    // The policy tests' example: every setting, rules by label and by name, later rules winning.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 600
  constraints:
    maxReplicas: 200
namespaceLabels:
  shop: {tier: production}
  batch: {tier: batch}
rules:
  - name: production
    namespaceSelector:
      matchLabels: {tier: production}
    behavior:
      scaleUp:
        tolerance: "0.05"
        selectPolicy: Min
    constraints:
      requireBehavior: true
  - name: previews
    namespaces: [preview]
    behavior:
      scaleDown:
        stabilizationWindowSeconds: 60
        policies: [{type: Pods, value: 1, periodSeconds: 60}]
    constraints:
      maxReplicas: 5
  - name: not-batch
    namespaceSelector:
      matchExpressions:
        - {key: tier, operator: NotIn, values: [batch]}
        - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-public]}
    constraints:
      maxReplicas: 100
"#,
    // Expressions of every operator, a rule that lifts an earlier requirement, both directions.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
namespaceLabels:
  shop: {tier: production, team: web}
  batch: {tier: batch}
rules:
  - name: "tiered \"prod\""
    namespaceSelector:
      matchExpressions:
        - {key: tier, operator: In, values: [production, batch]}
        - {key: team, operator: Exists}
    behavior:
      scaleUp: {stabilizationWindowSeconds: 30, policies: [{type: Percent, value: 50, periodSeconds: 60}, {type: Pods, value: 4, periodSeconds: 15}]}
      scaleDown: {selectPolicy: Disabled}
    constraints: {requireBehavior: true, maxReplicas: 3}
  - name: untiered
    namespaceSelector:
      matchExpressions:
        - {key: tier, operator: DoesNotExist}
    constraints: {requireBehavior: false}
  - name: everyone
    namespaceSelector: {}
    behavior:
      scaleDown: {tolerance: "0.2"}
"#,
    // Defaults only.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  behavior:
    scaleUp: {selectPolicy: Max}
  constraints: {requireBehavior: true}
"#,
];

const NAMESPACES: [&str; 5] = ["shop", "preview", "batch", "kube-public", "other"];

/// Every HPA of the corpus, as autoscaling/v2 (v1 objects converted as kube-apiserver converts
/// them for a policy matching v2 with matchPolicy Equivalent), with where it came from.
fn corpus() -> Vec<(String, v2::HorizontalPodAutoscaler)> {
    let mut documents: Vec<(String, Value)> = Vec::new();
    let mut files = Vec::new();
    for dir in ["tests/data/realworld", "examples/manifests"] {
        collect_yaml(&workspace().join(dir), &mut files);
    }
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for doc in yaml_documents(&text) {
            documents.push((file.display().to_string(), doc));
        }
    }
    for rule in hpa_core::rules::ALL {
        let meta = rule.meta();
        for (i, block) in meta.explanation.split("```yaml").skip(1).enumerate() {
            let yaml = block.split("```").next().unwrap();
            for doc in yaml_documents(yaml) {
                documents.push((format!("{} example {i}", meta.id), doc));
            }
        }
    }
    // The policy tests' shapes: no behavior, a partial one, a complete one.
    let base = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 2, "maxReplicas": 4}});
    for behavior in [
        json!(null),
        json!({}),
        json!({"scaleUp": {"selectPolicy": "Max", "stabilizationWindowSeconds": 0}}),
        json!({"scaleDown": {"policies": [{"type": "Pods", "value": 2, "periodSeconds": 30}]}}),
        json!({"scaleUp": {"stabilizationWindowSeconds": 5, "selectPolicy": "Min", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}], "tolerance": "0.3"},
            "scaleDown": {"stabilizationWindowSeconds": 5, "selectPolicy": "Min", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}], "tolerance": "0.3"}}),
    ] {
        for max in [1, 4, 150, 500] {
            let mut hpa = base.clone();
            hpa["spec"]["maxReplicas"] = json!(max);
            if !behavior.is_null() {
                hpa["spec"]["behavior"] = behavior.clone();
            }
            documents.push(("policy shapes".into(), hpa));
        }
    }
    documents
        .into_iter()
        .filter(|(_, d)| d["kind"] == "HorizontalPodAutoscaler")
        .filter_map(|(origin, d)| {
            let hpa = hpa_core::api::decode(&d).ok()?;
            Some((origin, hpa_core::convert::to_internal(&hpa).ok()?.object))
        })
        .collect()
}

fn collect_yaml(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_yaml(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// An autoscaling/v2 object as JSON, with `apiVersion` and `kind`.
trait ToV2Json {
    fn to_v2_json(&self) -> Value;
}

impl ToV2Json for v2::HorizontalPodAutoscaler {
    fn to_v2_json(&self) -> Value {
        hpa_core::api::VersionedHpa::V2(self.clone()).to_json()
    }
}

fn gates(tolerance: bool) -> hpa_core::features::FeatureGates {
    // GA and locked on in 1.37; beta (on by default) in 1.36, where it can be turned off.
    let version = if tolerance {
        hpa_core::features::KubernetesVersion::LATEST
    } else {
        hpa_core::features::KubernetesVersion::V1_36
    };
    let mut gates = hpa_core::features::FeatureGates::new(version);
    gates.apply(&format!("HPAConfigurableTolerance={tolerance}")).unwrap();
    gates
}

/// The webhook's /validate verdict on a valid object: the messages of its policy causes.
fn webhook_messages(
    admission: &Admission,
    policy: &Policy,
    operation: &str,
    object: &Value,
    old: Option<&Value>,
) -> Option<Vec<String>> {
    let answer = admission.review(
        Endpoint::Validate,
        &serde_json::to_vec(&review("u", operation, object, old)).unwrap(),
        policy,
    );
    let answer: Value = serde_json::from_slice(&answer.body).unwrap();
    let response = &answer["response"];
    if response["allowed"] == true {
        return Some(Vec::new());
    }
    let causes = response["status"]["details"]["causes"].as_array()?;
    let messages: Vec<String> = causes
        .iter()
        .map(|c| format!("{}: {}", c["field"].as_str().unwrap(), c["message"].as_str().unwrap()))
        .collect();
    Some(messages)
}

#[test]
fn the_exported_policies_decide_and_default_as_the_webhook() {
    let env = cel_env();
    let corpus = corpus();
    let (mut validations, mut mutations, mut skipped_invalid) = (0usize, 0usize, 0usize);
    for (p, text) in POLICIES.iter().enumerate() {
        let policy = Policy::parse(text).unwrap();
        let labels_of: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::from([
            (
                "shop",
                BTreeMap::from([
                    ("tier".to_string(), "production".to_string()),
                    ("team".to_string(), "web".to_string()),
                ]),
            ),
            ("batch", BTreeMap::from([("tier".to_string(), "batch".to_string())])),
        ]);
        for tolerance in [true, false] {
            let options = ExportOptions {
                name: "p".into(),
                validation_actions: vec!["Deny".into()],
                excluded_namespaces: vec![],
                tolerance,
            };
            let exported = export(&policy, &options);
            let vap = exported.objects.iter().find(|o| o["kind"] == "ValidatingAdmissionPolicy");
            let map = exported.objects.iter().find(|o| o["kind"] == "MutatingAdmissionPolicy");
            let admission = Admission::new(gates(tolerance)).with_lint_warnings(false);
            let empty = Policy::default();
            for namespace in NAMESPACES {
                let mut labels = labels_of.get(namespace).cloned().unwrap_or_default();
                // The second policy's namespaceLabels declare `team` for shop; the first's don't:
                // give each policy the labels it declares, as the webhook reads them.
                if p != 1 {
                    labels.remove("team");
                }
                labels.insert("kubernetes.io/metadata.name".into(), namespace.into());
                let effective = policy.effective(namespace);
                for (origin, hpa) in &corpus {
                    let mut hpa = hpa.clone();
                    hpa.metadata.namespace = namespace.into();
                    let written = hpa.to_v2_json();

                    // Defaults: the webhook's mutate_v2 against the policy's patches then
                    // kube-apiserver's defaulting, on the object as written and as defaulted.
                    let mut defaulted = hpa.clone();
                    hpa_core::defaults::default_v2(&mut defaulted);
                    for input in [&hpa, &defaulted] {
                        let expected = mutate_v2(input, &effective, tolerance).to_v2_json();
                        let object = input.to_v2_json();
                        let got = match map {
                            Some(map) => {
                                let request = Request {
                                    operation: "CREATE",
                                    object: &object,
                                    old: None,
                                    namespace,
                                    labels: labels.clone(),
                                };
                                let patched: v2::HorizontalPodAutoscaler =
                                    serde_json::from_value(map_mutated(&env, map, &request)).unwrap();
                                let mut patched = patched;
                                hpa_core::defaults::default_v2(&mut patched);
                                patched.to_v2_json()
                            }
                            None => {
                                let mut same = input.clone();
                                hpa_core::defaults::default_v2(&mut same);
                                same.to_v2_json()
                            }
                        };
                        assert_eq!(
                            got, expected,
                            "policy {p}, tolerance {tolerance}, {namespace}, {origin}: {written}"
                        );
                        mutations += 1;
                    }

                    // Constraints, on the defaulted object (what validation sees): CREATE, an
                    // UPDATE that keeps everything, and one from a compliant object.
                    let mut object = defaulted.to_v2_json();
                    object["metadata"]["resourceVersion"] = json!("1");
                    if webhook_messages(&admission, &empty, "CREATE", &object, None) != Some(Vec::new()) {
                        skipped_invalid += 1;
                        continue;
                    }
                    let mut compliant = object.clone();
                    compliant["spec"]["maxReplicas"] = json!(1);
                    compliant["spec"]["minReplicas"] = json!(1);
                    compliant["spec"]["behavior"] = json!({});
                    let mut compliant_hpa: v2::HorizontalPodAutoscaler = serde_json::from_value(compliant).unwrap();
                    hpa_core::defaults::default_v2(&mut compliant_hpa);
                    let mut compliant = compliant_hpa.to_v2_json();
                    compliant["metadata"]["resourceVersion"] = json!("1");
                    for (operation, old) in [("CREATE", None), ("UPDATE", Some(&object)), ("UPDATE", Some(&compliant))]
                    {
                        let expected = webhook_messages(&admission, &policy, operation, &object, old).unwrap();
                        let got = match vap {
                            Some(vap) => {
                                let request =
                                    Request { operation, object: &object, old, namespace, labels: labels.clone() };
                                vap_messages(&env, vap, &request)
                            }
                            None => Vec::new(),
                        };
                        assert_eq!(got, expected, "policy {p}, {namespace}, {operation}, {origin}: {object}");
                        validations += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "policy export: {} HPAs in the corpus, {mutations} mutations and {validations} validations compared ({skipped_invalid} invalid objects skipped: kube-apiserver refuses them before admission policies run)",
        corpus.len()
    );
    assert!(corpus.len() >= 150, "{} HPAs", corpus.len());
}

#[test]
fn every_exported_object_is_valid_against_the_kubernetes_schemas() {
    let validator = tool("kubernetes-validate", &["--version"]);
    let dir = tempfile::tempdir().unwrap();
    for (p, text) in POLICIES.iter().enumerate() {
        for (tolerance, actions, excluded) in
            [(true, vec!["Deny"], vec!["kube-system"]), (false, vec!["Warn", "Audit"], vec![])]
        {
            let options = ExportOptions {
                name: format!("policy-{p}"),
                validation_actions: actions.iter().map(|a| a.to_string()).collect(),
                excluded_namespaces: excluded.iter().map(|a| a.to_string()).collect(),
                tolerance,
            };
            let exported = export(&Policy::parse(text).unwrap(), &options);
            assert!(exported.objects.iter().all(|o| o["apiVersion"] == "admissionregistration.k8s.io/v1"));
            if !validator {
                continue;
            }
            let file = dir.path().join(format!("export-{p}-{tolerance}.yaml"));
            let docs: Vec<String> = exported.objects.iter().map(|o| o.to_string()).collect();
            std::fs::write(&file, docs.join("\n---\n")).unwrap();
            let out = std::process::Command::new("kubernetes-validate")
                .args(["--strict", "-k", "1.37.0"])
                .arg(&file)
                .output()
                .unwrap();
            let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.success() && !report.contains("ERROR") && !report.contains("WARN"), "{report}");
            assert_eq!(report.matches("passed for resource").count(), exported.objects.len(), "{report}");
        }
    }
}

#[test]
fn the_export_command_prints_a_list_and_its_notes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.yaml");
    std::fs::write(&file, POLICIES[0]).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--policy"])
        .arg(&file)
        .args(["--kubernetes-version", "1.36", "--feature-gates", "HPAConfigurableTolerance=false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = list["items"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding"
        ]
    );
    assert_eq!(list["items"][1]["spec"]["validationActions"], json!(["Deny"]));
    assert_eq!(
        list["items"][1]["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"],
        json!(["kube-system"])
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("tolerance defaults are not exported"));
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "kind: Nope\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--policy"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid policy"));
}
