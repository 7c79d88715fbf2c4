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
use cel::context::VariableResolver;
use cel::objects::{Key, Map, TryIntoValue};
use cel::{Context, Env, ExecutionError, StructType};
use serde_json::{Value, json};

use hpa_core::api::v2;
use hpa_core::features::KubernetesVersion;
use hpa_test_tools::tool;
use hpa_webhook::admission::{Reviewer, mutate_v2, short};
use hpa_webhook::export::{self, ExportOptions, export};
use hpa_webhook::metrics::Endpoint;
use hpa_webhook::policy::{Enforcement, Policy};

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

/// One exported admission policy with its CEL compiled once: the corpus evaluates each
/// expression tens of thousands of times.
struct Compiled {
    /// The variables that read only the namespace (`namespaceObject` and such variables
    /// before them): what they evaluate to depends on nothing else, so they are evaluated once
    /// per namespace. Each is bound as `variables.<name>`: the `cel` crate, as cel-go, resolves
    /// the most specific qualified name first, so `variables.rule0` reads that binding (where
    /// kube-apiserver binds one lazily evaluated `variables` object).
    namespace_variables: Vec<(String, cel::Program)>,
    /// The variables after the first one that reads the request, evaluated per request.
    request_variables: Vec<(String, cel::Program)>,
    /// `expression` and `messageExpression` of each validation.
    validations: Vec<(cel::Program, cel::Program)>,
    /// The JSON patch expression of a MutatingAdmissionPolicy.
    mutation: Option<cel::Program>,
}

/// The namespace-only variables of a [`Compiled`] policy, evaluated for one namespace, with
/// `namespaceObject`: what every request in that namespace resolves them to, borrowed (not
/// converted again) by each request's scope.
struct NamespaceScope {
    values: BTreeMap<String, Box<dyn Val>>,
}

impl VariableResolver for NamespaceScope {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        self.values.get(variable).map(|v| CowVal::Borrowed(v.as_ref()))
    }
}

impl Compiled {
    fn new(env: &Env, policy: &Value) -> Compiled {
        let compile = |expression: &Value| {
            let expression = expression.as_str().unwrap();
            env.compile(expression).unwrap_or_else(|e| panic!("{expression}: {e:?}"))
        };
        let spec = &policy["spec"];
        let (mut namespace_variables, mut request_variables) = (Vec::new(), Vec::new());
        for variable in spec["variables"].as_array().unwrap() {
            let name = format!("variables.{}", variable["name"].as_str().unwrap());
            let program = compile(&variable["expression"]);
            // (`optional` is the namespace of `optional.of` and `optional.none`.)
            let reads_namespace_only = request_variables.is_empty()
                && program
                    .references()
                    .variables()
                    .iter()
                    .all(|v| ["namespaceObject", "variables", "optional"].contains(v));
            if reads_namespace_only { &mut namespace_variables } else { &mut request_variables }.push((name, program));
        }
        let validations = spec["validations"]
            .as_array()
            .map(|list| list.iter().map(|v| (compile(&v["expression"]), compile(&v["messageExpression"]))).collect())
            .unwrap_or_default();
        let mutation = spec["mutations"].get(0).map(|m| compile(&m["jsonPatch"]["expression"]));
        Compiled { namespace_variables, request_variables, validations, mutation }
    }

    /// The namespace-only variables, evaluated in order for `namespace_object`.
    fn namespace(&self, env: &Arc<Env>, namespace_object: &Value) -> NamespaceScope {
        let mut ctx = Context::with_env(env.clone());
        ctx.add_variable("namespaceObject", namespace_object).unwrap();
        let mut values = BTreeMap::new();
        for (name, program) in &self.namespace_variables {
            let value = program.execute(&ctx).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            ctx.add_variable_from_value(name.as_str(), value.clone());
            values.insert(name.clone(), Box::<dyn Val>::try_from(value).unwrap());
        }
        let namespace_object = namespace_object.try_into_value().unwrap();
        values.insert("namespaceObject".to_string(), Box::<dyn Val>::try_from(namespace_object).unwrap());
        NamespaceScope { values }
    }

    /// A scope over `request` with the namespace, its variables and the request's, evaluated
    /// in order (each sees the ones before it, as kube-apiserver's composition does).
    fn scope<'p, 'v>(&self, request: &'p Context<'p, 'v>, namespace: &'v NamespaceScope) -> Context<'p, 'v> {
        let mut scope = request.new_inner_scope();
        scope.set_variable_resolver(namespace);
        for (name, program) in &self.request_variables {
            let value = program.execute(&scope).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            scope.add_variable_from_value(name.as_str(), value);
        }
        scope
    }

    /// The ValidatingAdmissionPolicy's verdict: the messages of the failed validations.
    fn messages(&self, scope: &Context<'_, '_>) -> Vec<String> {
        let mut messages = Vec::new();
        for (expression, message) in &self.validations {
            match expression.execute(scope).unwrap() {
                cel::Value::Bool(true) => {}
                cel::Value::Bool(false) => match message.execute(scope).unwrap() {
                    cel::Value::String(message) => messages.push(message.to_string()),
                    other => panic!("message {other:?}"),
                },
                other => panic!("validation {other:?}"),
            }
        }
        messages
    }

    /// The MutatingAdmissionPolicy's JSON patches.
    fn patches(&self, scope: &Context<'_, '_>) -> json_patch::Patch {
        let patches = self.mutation.as_ref().unwrap().execute(scope).unwrap().json().unwrap();
        serde_json::from_value(patches.clone()).unwrap_or_else(|e| panic!("{patches}: {e}"))
    }
}

/// A JSON value as CEL holds it.
fn cel_value(json: &Value) -> Box<dyn Val> {
    Box::<dyn Val>::try_from(json.try_into_value().unwrap()).unwrap()
}

/// The part of an admission request every policy sees alike: `object`, `oldObject`, `request`,
/// borrowed from values converted once per object.
struct RequestScope<'a> {
    object: &'a dyn Val,
    old_object: &'a dyn Val,
    request: Box<dyn Val>,
}

impl<'a> RequestScope<'a> {
    fn new(operation: &str, namespace: &str, object: &'a dyn Val, old_object: &'a dyn Val) -> RequestScope<'a> {
        let request = cel_value(&json!({"operation": operation, "namespace": namespace}));
        RequestScope { object, old_object, request }
    }

    fn context(&'a self, env: &Arc<Env>) -> Context<'a, 'a> {
        let mut ctx = Context::with_env(env.clone());
        ctx.set_variable_resolver(self);
        ctx
    }
}

impl VariableResolver for RequestScope<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        match variable {
            "object" => Some(CowVal::Borrowed(self.object)),
            "oldObject" => Some(CowVal::Borrowed(self.old_object)),
            "request" => Some(CowVal::Borrowed(self.request.as_ref())),
            _ => None,
        }
    }
}

const POLICIES: [&str; 7] = [
    // The policy tests' example: every setting, rules by label and by name, later rules winning.
    concat!("\n", include_str!("../data/policy-example.yaml")),
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
    enforcement: Warn
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
    // Defaults only, advisory.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  enforcement: Warn
  behavior:
    scaleUp: {selectPolicy: Max}
  constraints: {requireBehavior: true}
"#,
    // Constraints only: advisory by default, a rule that denies, a rule that inherits Warn.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  enforcement: Warn
  constraints: {maxReplicas: 100}
namespaceLabels:
  shop: {tier: production}
rules:
  - name: production
    namespaceSelector: {matchLabels: {tier: production}}
    enforcement: Deny
    constraints: {maxReplicas: 10, requireBehavior: true}
  - name: previews
    namespaces: [preview]
    constraints: {maxReplicas: 2}
"#,
    // Rules that overlap with every kind of selector, names CEL must escape, int32's bounds,
    // enforcement changing hands per constraint, a later rule lifting an earlier requirement,
    // every behavior field defaulted (selectPolicy Disabled among them).
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints: {maxReplicas: 2147483647, requireBehavior: false}
  behavior:
    scaleUp: {policies: [{type: Pods, value: 2147483647, periodSeconds: 1800}], selectPolicy: Disabled}
namespaceLabels:
  shop: {tier: production, example.com/owner: a.b_c-d}
  batch: {tier: batch, team: data}
  other: {team: web, tier: "1"}
rules:
  - name: "quote \" back \\ unicode é 😀 tab\t end"
    namespaceSelector:
      matchLabels: {tier: production}
      matchExpressions:
        - {key: example.com/owner, operator: Exists}
        - {key: team, operator: DoesNotExist}
    enforcement: Warn
    constraints: {maxReplicas: 3, requireBehavior: true}
    behavior:
      scaleDown: {stabilizationWindowSeconds: 3600, selectPolicy: Min, policies: [{type: Percent, value: 100, periodSeconds: 15}, {type: Pods, value: 1, periodSeconds: 60}]}
  - name: names
    namespaces: [shop, kube-public, batch]
    constraints: {maxReplicas: 4}
    behavior:
      scaleUp: {stabilizationWindowSeconds: 0}
  - name: not-prod
    namespaceSelector:
      matchExpressions:
        - {key: tier, operator: NotIn, values: [production]}
        - {key: kubernetes.io/metadata.name, operator: In, values: [batch, other, preview]}
    enforcement: Warn
    constraints: {requireBehavior: true, maxReplicas: 1}
  - name: lift
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
    enforcement: Deny
    constraints: {requireBehavior: false}
    behavior:
      scaleDown: {selectPolicy: Disabled}
      scaleUp: {tolerance: 10m, selectPolicy: Max}
"#,
    // The empty policy: nothing exported, every object left as written.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
"#,
    // Behavior defaults only, one direction per layer, the last layer overriding a field of
    // the first; enforcement set where there is nothing to enforce.
    r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  enforcement: Warn
  behavior:
    scaleDown: {stabilizationWindowSeconds: 1, selectPolicy: Disabled}
rules:
  - name: every
    namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: Exists}]}
    behavior:
      scaleDown: {stabilizationWindowSeconds: 3600}
  - name: none
    namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: DoesNotExist}]}
    behavior:
      scaleUp: {stabilizationWindowSeconds: 7}
  - name: preview
    namespaces: [preview]
    behavior:
      scaleUp: {policies: [{type: Percent, value: 1, periodSeconds: 1}]}
"#,
];

/// The indexes of [`POLICIES`] that set no behavior default (no MutatingAdmissionPolicy).
const NO_DEFAULTS: [usize; 2] = [3, 5];

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

/// A /validate verdict: the messages of the causes when denied, and the warnings.
#[derive(Debug, Default, PartialEq)]
struct Verdict {
    denials: Vec<String>,
    warnings: Vec<String>,
}

/// The webhook's /validate verdict; `None` when it denies without causes (not a valid object).
fn webhook_verdict(admission: &Reviewer, policy: &Policy, review: &[u8]) -> Option<Verdict> {
    let answer = admission.review(Endpoint::Validate, review, policy);
    let answer: Value = serde_json::from_slice(&answer.body).unwrap();
    let response = &answer["response"];
    let warnings = response["warnings"]
        .as_array()
        .map_or_else(Vec::new, |w| w.iter().map(|w| w.as_str().unwrap().to_string()).collect());
    if response["allowed"] == true {
        return Some(Verdict { denials: Vec::new(), warnings });
    }
    let causes = response["status"]["details"]["causes"].as_array()?;
    let denials = causes
        .iter()
        .map(|c| format!("{}: {}", c["field"].as_str().unwrap(), c["message"].as_str().unwrap()))
        .collect();
    Some(Verdict { denials, warnings })
}

/// One policy of [`POLICIES`] exported and compiled, with its namespace-only variables
/// evaluated for each of [`NAMESPACES`].
struct Case {
    index: usize,
    policy: Policy,
    /// The ValidatingAdmissionPolicies with their binding's action, `Deny` or `Warn` (the same
    /// with the tolerance gate on or off).
    vaps: Vec<(Compiled, Vec<NamespaceScope>, Enforcement)>,
    /// The MutatingAdmissionPolicy with the tolerance gate off, then on.
    maps: [Option<(Compiled, Vec<NamespaceScope>)>; 2],
}

/// A namespace as the policy's CEL sees it: the labels the policy declares for it in
/// `namespaceLabels` (what the webhook reads), and its name label.
fn namespace_object(policy: &str, namespace: &str) -> Value {
    let document = yaml_documents(policy).remove(0);
    let mut labels = document["namespaceLabels"][namespace].as_object().cloned().unwrap_or_default();
    labels.insert("kubernetes.io/metadata.name".into(), json!(namespace));
    json!({"metadata": {"name": namespace, "labels": labels}})
}

/// What the differential test compared.
#[derive(Debug, Default)]
struct Counts {
    mutations: usize,
    validations: usize,
    skipped_invalid: usize,
    /// CREATE requests the policy denies, and those it admits with warnings.
    denied: usize,
    warned: usize,
    /// UPDATEs of objects being deleted the policy would deny otherwise.
    deleting: usize,
}

#[test]
fn the_exported_policies_decide_and_default_as_the_webhook() {
    let env = cel_env();
    let corpus = corpus();
    let cases: Vec<Case> = POLICIES
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let policy = Policy::parse(text).unwrap();
            let export_for = |tolerance: bool, release: KubernetesVersion| {
                let options = ExportOptions { tolerance, ..options(release) };
                export(&policy, &options).objects
            };
            let exported = [false, true].map(|tolerance| export_for(tolerance, KubernetesVersion::LATEST));
            // Every release gets these objects: the same ValidatingAdmissionPolicies, and the
            // same MutatingAdmissionPolicy from 1.36 on (none before), so the verdicts and
            // defaults compared below are those of each release's export.
            for release in KubernetesVersion::ALL {
                for (tolerance, latest) in [false, true].into_iter().zip(&exported) {
                    let objects = export_for(tolerance, release);
                    let expected: Vec<&Value> = latest
                        .iter()
                        .filter(|o| {
                            export::mutating_admission_policy_missing(release).is_none()
                                || !o["kind"].as_str().unwrap().starts_with("MutatingAdmission")
                        })
                        .collect();
                    assert_eq!(objects.iter().collect::<Vec<_>>(), expected, "policy {index}, {release}, {tolerance}");
                }
            }
            let find = |objects: &[Value], kind: &str| objects.iter().find(|o| o["kind"] == kind).cloned();
            let compiled = |object: Option<Value>| {
                let compiled = Compiled::new(&env, &object?);
                let namespaces =
                    NAMESPACES.iter().map(|n| compiled.namespace(&env, &namespace_object(text, n))).collect();
                Some((compiled, namespaces))
            };
            // Tolerance defaults are behavior: the constraints are exported alike either way, so
            // their verdicts are compared once, by the webhook of the newest release.
            let validating = |objects: &[Value]| -> Vec<Value> {
                objects
                    .iter()
                    .filter(|o| o["kind"].as_str().unwrap().starts_with("ValidatingAdmission"))
                    .cloned()
                    .collect()
            };
            assert_eq!(validating(&exported[1]), validating(&exported[0]));
            let vaps = exported[1]
                .iter()
                .filter(|o| o["kind"] == "ValidatingAdmissionPolicy")
                .map(|vap| {
                    let binding = exported[1]
                        .iter()
                        .find(|o| {
                            o["kind"] == "ValidatingAdmissionPolicyBinding"
                                && o["spec"]["policyName"] == vap["metadata"]["name"]
                        })
                        .unwrap();
                    let enforcement = match binding["spec"]["validationActions"].as_array().unwrap().as_slice() {
                        [action] if action == "Deny" => Enforcement::Deny,
                        [action] if action == "Warn" => Enforcement::Warn,
                        other => panic!("{other:?}"),
                    };
                    let (compiled, namespaces) = compiled(Some(vap.clone())).unwrap();
                    (compiled, namespaces, enforcement)
                })
                .collect();
            let maps = exported.map(|objects| compiled(find(&objects, "MutatingAdmissionPolicy")));
            Case { index, policy, vaps, maps }
        })
        .collect();
    // The webhook of the newest release (tolerance defaults on or off are told to mutate_v2).
    let admission =
        Reviewer::new(hpa_core::features::FeatureGates::new(KubernetesVersion::LATEST)).with_lint_warnings(false);

    // The corpus in one part per core (each HPA is checked on its own).
    let parts = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let counts = std::thread::scope(|scope| {
        let workers: Vec<_> = corpus
            .chunks(corpus.len().div_ceil(parts))
            .map(|part| {
                let (env, cases, admission) = (&env, &cases, &admission);
                scope.spawn(move || {
                    let mut counts = Counts::default();
                    for (origin, hpa) in part {
                        check_hpa(env, cases, admission, origin, hpa, &mut counts);
                    }
                    counts
                })
            })
            .collect();
        let mut total = Counts::default();
        for worker in workers {
            let counts = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            total.mutations += counts.mutations;
            total.validations += counts.validations;
            total.skipped_invalid += counts.skipped_invalid;
            total.denied += counts.denied;
            total.warned += counts.warned;
            total.deleting += counts.deleting;
        }
        total
    });
    let Counts { mutations, validations, skipped_invalid, denied, warned, deleting } = counts;
    eprintln!(
        "policy export: {} HPAs in the corpus, {mutations} mutations and {validations} validations compared ({denied} creations denied, {warned} admitted with warnings, {deleting} deletions admitted that would be denied; {skipped_invalid} invalid objects skipped: kube-apiserver refuses them before admission policies run)",
        corpus.len()
    );
    assert!(corpus.len() >= 150, "{} HPAs", corpus.len());
    assert!(denied > 100 && warned > 100 && deleting > 100, "{denied} denied, {warned} warned, {deleting} deleting");
}

/// One HPA of the corpus in every namespace, under every case.
fn check_hpa(
    env: &Arc<Env>,
    cases: &[Case],
    admission: &Reviewer,
    origin: &str,
    hpa: &v2::HorizontalPodAutoscaler,
    counts: &mut Counts,
) {
    let empty = Policy::default();
    for (n, namespace) in NAMESPACES.into_iter().enumerate() {
        let mut hpa = hpa.clone();
        hpa.metadata.namespace = namespace.into();
        let mut defaulted = hpa.clone();
        hpa_core::defaults::default_v2(&mut defaulted);

        // Defaults: the policy's patches then kube-apiserver's defaulting against the webhook's
        // mutate_v2, on the object as written and as defaulted (when defaulting changed it).
        let (written, defaulted_json) = (hpa.to_v2_json(), defaulted.to_v2_json());
        let mut inputs = vec![(&defaulted, cel_value(&defaulted_json), defaulted_json)];
        if written != inputs[0].2 {
            inputs.push((&hpa, cel_value(&written), written));
        }

        // Constraints, on the defaulted object (what validation sees): CREATE, an UPDATE that
        // keeps everything, and one from a compliant object. Each review is serialised once.
        let mut object = inputs[0].2.clone();
        object["metadata"]["resourceVersion"] = json!("1");
        let mut compliant = object.clone();
        compliant["spec"]["maxReplicas"] = json!(1);
        compliant["spec"]["minReplicas"] = json!(1);
        compliant["spec"]["behavior"] = json!({});
        let mut compliant_hpa: v2::HorizontalPodAutoscaler = hpa_core::api::decode_as(&compliant).unwrap();
        hpa_core::defaults::default_v2(&mut compliant_hpa);
        let mut compliant = compliant_hpa.to_v2_json();
        compliant["metadata"]["resourceVersion"] = json!("1");
        // And an UPDATE of the object being deleted (a finalizer removed), from the compliant one:
        // the webhook never denies it. deletionTimestamp is on both objects (kube-apiserver's
        // ValidateObjectMetaUpdate refuses one that changes it: "field is immutable").
        let deleting = |o: &Value| {
            let mut o = o.clone();
            o["metadata"]["deletionTimestamp"] = json!("2026-03-02T10:00:00Z");
            o["metadata"]["finalizers"] = json!(["example.com/cleanup"]);
            o
        };
        let (deleted, deleted_compliant) = (deleting(&object), deleting(&compliant));
        let requests = [
            ("CREATE", &object, None),
            ("UPDATE", &object, Some(&object)),
            ("UPDATE", &object, Some(&compliant)),
            ("UPDATE", &deleted, Some(&deleted_compliant)),
        ]
        .map(|(operation, new, old)| {
            (operation, new, old, serde_json::to_vec(&review("u", operation, new, old)).unwrap())
        });

        // Each object becomes a CEL value once, for every case.
        let null = cel_value(&Value::Null);
        let mutation_scopes = inputs
            .iter()
            .map(|(_, cel, _)| RequestScope::new("CREATE", namespace, cel.as_ref(), null.as_ref()))
            .collect::<Vec<_>>();
        let mutation_contexts: Vec<Context<'_, '_>> = mutation_scopes.iter().map(|scope| scope.context(env)).collect();
        let request_cels: Vec<(Box<dyn Val>, Box<dyn Val>)> = requests
            .iter()
            .map(|(_, new, old, _)| (cel_value(new), old.map_or_else(|| cel_value(&Value::Null), |o| cel_value(o))))
            .collect();
        let validation_scopes = request_cels
            .iter()
            .zip(&requests)
            .map(|((new, old), (operation, ..))| RequestScope::new(operation, namespace, new.as_ref(), old.as_ref()))
            .collect::<Vec<_>>();
        let validation_contexts: Vec<Context<'_, '_>> =
            validation_scopes.iter().map(|scope| scope.context(env)).collect();

        // kube-apiserver refuses an invalid object before admission policies run.
        let valid = webhook_verdict(admission, &empty, &requests[0].3).is_some_and(|v| v.denials.is_empty());

        for case in cases {
            let p = case.index;
            let effective = case.policy.effective(namespace);
            for (map, tolerance) in case.maps.iter().zip([false, true]) {
                for ((input, _, input_json), ctx) in inputs.iter().zip(&mutation_contexts) {
                    let expected = mutate_v2(input, &effective, tolerance);
                    let mut got = (*input).clone();
                    if let Some((map, namespaces)) = map {
                        let patch = map.patches(&map.scope(ctx, &namespaces[n]));
                        if !patch.0.is_empty() {
                            // Defaults write `behavior` only: the patch is applied to it alone.
                            assert!(
                                patch.0.iter().all(|op| op.path().as_str().starts_with("/spec/behavior")),
                                "{patch:?}"
                            );
                            let mut object = json!({"spec": {}});
                            if let Some(behavior) = input_json["spec"].get("behavior") {
                                object["spec"]["behavior"] = behavior.clone();
                            }
                            json_patch::patch(&mut object, &patch).unwrap_or_else(|e| panic!("{patch:?}: {e}"));
                            got.spec.behavior = hpa_core::api::decode_as(&object["spec"]["behavior"]).unwrap();
                            // Reinvoked (`reinvocationPolicy: IfNeeded`) on what it made, on an
                            // UPDATE as on a CREATE: nothing more to add.
                            let mut patched = input_json.clone();
                            patched["spec"]["behavior"] = object["spec"]["behavior"].clone();
                            let patched = cel_value(&patched);
                            let again = RequestScope::new("UPDATE", namespace, patched.as_ref(), patched.as_ref());
                            let again = map.patches(&map.scope(&again.context(env), &namespaces[n]));
                            assert!(again.0.is_empty(), "policy {p}, {namespace}, {origin}: reinvoked: {again:?}");
                        }
                    }
                    hpa_core::defaults::default_v2(&mut got);
                    // The same object, and the same JSON where the policy writes (`behavior`, its
                    // quantities as written): the rest comes from the input on both sides.
                    let same = got == expected
                        && serde_json::to_value(&got.spec.behavior).unwrap()
                            == serde_json::to_value(&expected.spec.behavior).unwrap();
                    if !same {
                        assert_eq!(
                            got.to_v2_json(),
                            expected.to_v2_json(),
                            "policy {p}, tolerance {tolerance}, {namespace}, {origin}: {input_json}"
                        );
                        panic!("policy {p}, tolerance {tolerance}, {namespace}, {origin}: {got:?} != {expected:?}");
                    }
                    counts.mutations += 1;
                }
            }

            if !valid {
                counts.skipped_invalid += 1;
                continue;
            }
            // Denials from the policies bound with [Deny], warnings from those bound with [Warn]
            // (kube-apiserver prefixes these with the policy's and binding's names).
            let mut broken = 0;
            let mut denied_from_compliant = 0;
            for (i, ((operation, _, _, body), ctx)) in requests.iter().zip(&validation_contexts).enumerate() {
                let mut expected = webhook_verdict(admission, &case.policy, body).unwrap();
                let mut got = Verdict::default();
                for (vap, namespaces, enforcement) in &case.vaps {
                    let messages = vap.messages(&vap.scope(ctx, &namespaces[n]));
                    match enforcement {
                        Enforcement::Deny => got.denials.extend(messages),
                        _ => got.warnings.extend(messages.iter().map(|m| short(m))),
                    }
                }
                let what = format!("policy {p}, {namespace}, {operation}, {origin}: {object}");
                if i == 1 {
                    // The UPDATE that keeps everything: every constraint ratchets, and the
                    // webhook says so for each one the object breaks.
                    assert_eq!(got, Verdict::default(), "{what}");
                    assert_eq!((expected.denials.len(), expected.warnings.len()), (0, broken), "{what}: {expected:?}");
                } else if i == 3 {
                    // Deleting: what the webhook would have denied is admitted with a warning it
                    // alone gives (in-tree policies say nothing); the Warn constraints warn alike.
                    let exempt = expected.warnings.len();
                    expected.warnings.retain(|w| !w.ends_with("(allowed: the object is being deleted)"));
                    assert_eq!(got, expected, "{what}");
                    assert_eq!(exempt - expected.warnings.len(), denied_from_compliant, "{what}");
                    counts.deleting += usize::from(denied_from_compliant > 0);
                } else {
                    assert_eq!(got, expected, "{what}");
                }
                if i == 2 {
                    denied_from_compliant = expected.denials.len();
                }
                if i == 0 {
                    broken = expected.denials.len() + expected.warnings.len();
                    counts.denied += usize::from(!expected.denials.is_empty());
                    counts.warned += usize::from(!expected.warnings.is_empty());
                }
                counts.validations += 1;
            }
        }
    }
}

/// Every object exported for each release passes `kubernetes-validate --strict` with that
/// release's schemas (the PyPI package has 1.33 to 1.37; 1.38, in development, is checked with
/// 1.37's), and the objects of a release before 1.36 hold no MutatingAdmissionPolicy, whose v1
/// schema those releases lack.
#[test]
fn every_exported_object_is_valid_against_the_kubernetes_schemas() {
    let validator = tool("kubernetes-validate", &["--version"]);
    let dir = tempfile::tempdir().unwrap();
    for release in KubernetesVersion::ALL {
        let schemas = match release {
            KubernetesVersion::V1_38 => "1.37.0".to_string(),
            release => format!("{release}.0"),
        };
        // One file per release: every policy's objects, with each set of options.
        let mut docs = Vec::new();
        for (p, text) in POLICIES.iter().enumerate() {
            for (o, (tolerance, actions, excluded)) in
                [(true, None, vec!["kube-system"]), (false, Some(vec!["Warn", "Audit"]), vec![])]
                    .into_iter()
                    .enumerate()
            {
                let options = ExportOptions {
                    name: format!("policy-{p}-{o}"),
                    validation_actions: actions.map(|actions| actions.iter().map(|a| a.to_string()).collect()),
                    excluded_namespaces: excluded.iter().map(|a| a.to_string()).collect(),
                    tolerance,
                    release,
                };
                let exported = export(&Policy::parse(text).unwrap(), &options);
                assert!(exported.objects.iter().all(|o| o["apiVersion"] == "admissionregistration.k8s.io/v1"));
                let mutating = exported.objects.iter().any(|o| o["kind"] == "MutatingAdmissionPolicy");
                assert_eq!(
                    mutating,
                    release >= KubernetesVersion::V1_36 && !NO_DEFAULTS.contains(&p),
                    "policy {p}, {release}"
                );
                docs.extend(exported.objects.iter().map(|o| o.to_string()));
            }
        }
        if !validator {
            continue;
        }
        let file = dir.path().join(format!("export-{release}.yaml"));
        std::fs::write(&file, docs.join("\n---\n")).unwrap();
        let out = std::process::Command::new("kubernetes-validate")
            .args(["--strict", "-k", &schemas])
            .arg(&file)
            .output()
            .unwrap();
        let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && !report.contains("ERROR") && !report.contains("WARN"), "{release}: {report}");
        assert_eq!(report.matches("passed for resource").count(), docs.len(), "{release}: {report}");
    }
}

/// A binding's validationActions apply to all its policy's validations: the constraints the
/// policy enforces with `Deny` and with `Warn` are two policies, a constraint enforced both
/// ways (by different layers) in each, guarded; `--validation-actions` makes them one.
#[test]
fn enforcement_splits_the_constraints_into_a_deny_and_a_warn_policy() {
    let policy = Policy::parse(POLICIES[3]).unwrap();
    let summary = |validation_actions: Option<Vec<String>>| -> Vec<(String, String, Value)> {
        let options = ExportOptions { validation_actions, ..options(KubernetesVersion::LATEST) };
        export(&policy, &options)
            .objects
            .iter()
            .map(|o| {
                let detail = match o["kind"].as_str().unwrap() {
                    "ValidatingAdmissionPolicy" => {
                        let guarded = |v: &Value| {
                            v["expression"].as_str().unwrap().starts_with("variables.maxReplicasEnforcement")
                        };
                        json!(o["spec"]["validations"].as_array().unwrap().iter().map(guarded).collect::<Vec<_>>())
                    }
                    _ => o["spec"]["validationActions"].clone(),
                };
                (o["kind"].as_str().unwrap().to_string(), o["metadata"]["name"].as_str().unwrap().to_string(), detail)
            })
            .collect()
    };
    let row = |kind: &str, name: &str, detail: Value| (kind.to_string(), name.to_string(), detail);
    // maxReplicas: defaults and "previews" warn, "production" denies; requireBehavior: only
    // "production", which denies.
    assert_eq!(
        summary(None),
        [
            row("ValidatingAdmissionPolicy", "p-constraints", json!([true, false])),
            row("ValidatingAdmissionPolicyBinding", "p-constraints", json!(["Deny"])),
            row("ValidatingAdmissionPolicy", "p-constraints-warn", json!([true])),
            row("ValidatingAdmissionPolicyBinding", "p-constraints-warn", json!(["Warn"])),
        ]
    );
    assert_eq!(
        summary(Some(vec!["Warn".into(), "Audit".into()])),
        [
            row("ValidatingAdmissionPolicy", "p-constraints", json!([false, false])),
            row("ValidatingAdmissionPolicyBinding", "p-constraints", json!(["Warn", "Audit"])),
        ]
    );
    // A policy that enforces everything alike has one policy and no guard.
    let all_warn = Policy::parse(POLICIES[2]).unwrap();
    let options = options(KubernetesVersion::LATEST);
    let exported = export(&all_warn, &options);
    let names: Vec<&str> = exported.objects.iter().map(|o| o["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["p-constraints-warn", "p-constraints-warn", "p-defaults", "p-defaults"]);
}

/// The export options most tests use: named `p`, the policy's own validation actions, no
/// namespace excluded, tolerance defaults exported where `release` takes them.
fn options(release: KubernetesVersion) -> ExportOptions {
    ExportOptions { name: "p".into(), validation_actions: None, excluded_namespaces: vec![], tolerance: true, release }
}

/// The note on namespaceLabels: one `kubectl label` per namespace, words quoted for a shell; none
/// without namespaceLabels.
#[test]
fn namespace_labels_are_a_note_with_the_commands_that_apply_them() {
    let options = options(KubernetesVersion::LATEST);
    let policy = Policy::parse(
        "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\nnamespaceLabels:\n  \"it's\": {team: \"a b\", example.com/tier: gold}\n  other: {}\ndefaults: {constraints: {maxReplicas: 3}}\n",
    )
    .unwrap();
    let note = export(&policy, &options).notes.into_iter().find(|n| n.contains("namespaceLabels")).unwrap();
    assert_eq!(
        note.lines().skip(1).collect::<Vec<_>>(),
        ["  kubectl label namespace 'it'\\''s' example.com/tier=gold 'team=a b' --overwrite"]
    );
    let policy = Policy::parse(POLICIES[2]).unwrap();
    assert!(export(&policy, &options).notes.iter().all(|n| !n.contains("namespaceLabels")));
}

/// `hpa-webhook policy check FILE`: the server's reader, exit 0 for a policy `serve` takes (its
/// warnings on stderr), 1 with every problem otherwise, 2 for a usage error or a file it cannot
/// read (nothing was checked).
#[test]
fn the_check_command_reads_the_policy_as_the_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let check = |policy: &str, flags: &[&str]| {
        let file = dir.path().join("policy.yaml");
        std::fs::write(&file, policy).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
            .args(["policy", "check"])
            .arg(&file)
            .args(flags)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = check(POLICIES[0], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.ends_with("policy.yaml: a valid policy (3 rules)\n"), "{stdout}");
    assert_eq!(stderr, "");
    // A tolerance default the gates ignore: valid, with the server's warning.
    let (code, _, stderr) = check(POLICIES[0], &["--kubernetes-version", "1.34"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the policy sets tolerance defaults, which are ignored while HPAConfigurableTolerance is off"
        ),
        "{stderr}"
    );
    // What stops the server: every problem, exit 1.
    let bad = "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\ndefaults: {behavior: {scaleUp: {policies: [], tolerance: \"-0.1\"}}}\nrules:\n  - {name: ab, namespaces: [p]}\n  - {name: ab, namespaces: [q]}\n";
    let (code, _, stderr) = check(bad, &[]);
    assert_eq!(code, Some(1), "{stderr}");
    for problem in [
        "rules[1].name: duplicate rule name \"ab\"",
        "defaults.behavior.scaleUp.policies: Required value: must specify at least one Policy",
        "defaults.behavior.scaleUp.tolerance: Invalid value: \"-100m\": must be greater than or equal to 0",
    ] {
        assert!(stderr.contains(problem), "{problem}: {stderr}");
    }
    let (code, _, stderr) = check(
        "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\ndefaults: {behavior: {scaleUp: {tolerance: abc}}}\n",
        &[],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let (code, _, stderr) = check(POLICIES[0], &["--kubernetes-version", "1.20"]);
    assert_eq!(code, Some(2), "{stderr}");
    let missing = dir.path().join("absent.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "check"])
        .arg(&missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with(&format!("error: reading policy {}: ", missing.display())), "{stderr}");
}

/// A reader that stops reading (`hpa-webhook policy export ... | head`) ends the output: the
/// export exits 0 without an error about the closed pipe.
#[test]
fn a_closed_pipe_ends_the_export_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.yaml");
    std::fs::write(&file, POLICIES[0]).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--policy"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The only reading end, closed before the export writes: its write fails with EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("error"), "{stderr}");
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
    // One label selects this export's objects, for `kubectl apply --prune -l` (README).
    for item in list["items"].as_array().unwrap() {
        assert_eq!(
            item["metadata"]["labels"],
            json!({
                "app.kubernetes.io/part-of": "hpa-toolkit",
                "app.kubernetes.io/managed-by": "hpa-webhook-policy-export",
                "hpa-toolkit.io/policy-export": "hpa-toolkit-policy"
            })
        );
    }
    assert_eq!(
        list["items"][1]["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"],
        json!(["kube-system"])
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tolerance defaults are not exported"));
    // namespaceLabels decide rules in the webhook; the exported policies read the real labels.
    assert!(stderr.contains("note: namespaceLabels are the webhook's"), "{stderr}");
    for command in [
        "kubectl label namespace batch tier=batch --overwrite",
        "kubectl label namespace shop tier=production --overwrite",
    ] {
        assert!(stderr.lines().any(|l| l.trim() == command), "{command}: {stderr}");
    }
    // --validation-actions overrides the policy's enforcement.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--validation-actions", "Warn,Audit", "--policy"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["items"][1]["spec"]["validationActions"], json!(["Warn", "Audit"]));
    // Nothing to export: an empty List (which `kubectl apply --prune` refuses) and how to delete
    // an earlier export instead.
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--name", "team-a", "--policy"])
        .arg(&empty)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap()["items"], json!([]));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: the policy sets no constraint and no behavior default: nothing to export; to delete the objects of an earlier export: kubectl delete validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingadmissionpolicies,mutatingadmissionpolicybindings -l hpa-toolkit.io/policy-export=team-a\n"
    );
    // Before 1.36 no MutatingAdmissionPolicy is served, and kubectl refuses a type it does not know.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "export", "--kubernetes-version", "1.35", "--name", "team-a", "--policy"])
        .arg(&empty)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: the policy sets no constraint and no behavior default: nothing to export; to delete the objects of an earlier export: kubectl delete validatingadmissionpolicies,validatingadmissionpolicybindings -l hpa-toolkit.io/policy-export=team-a\n"
    );
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

/// Before 1.36, where MutatingAdmissionPolicy is not GA, `--kubernetes-version` exports the
/// constraints alone and says on stderr that the behavior defaults need the webhook (with the
/// release's MutatingAdmissionPolicy API and gate); a policy of defaults only gives an empty List.
#[test]
fn the_export_command_leaves_the_defaults_to_the_webhook_before_1_36() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.yaml");
    let export_for = |policy: &str, release: &str| {
        std::fs::write(&file, policy).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
            .args(["policy", "export", "--policy"])
            .arg(&file)
            .args(["--kubernetes-version", release])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{release}: {}", String::from_utf8_lossy(&out.stderr));
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        let kinds: Vec<String> =
            list["items"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap().to_string()).collect();
        let notes: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("note: ") && !l.starts_with("note: namespaceLabels"))
            .map(String::from)
            .collect();
        (kinds, notes)
    };
    let beta = "note: behavior defaults are not exported for Kubernetes {release}: MutatingAdmissionPolicy is beta \
                there (admissionregistration.k8s.io/v1beta1, feature gate MutatingAdmissionPolicy off by default) and \
                GA (admissionregistration.k8s.io/v1) from 1.36; they need hpa-webhook's /mutate (the constraints are \
                exported: ValidatingAdmissionPolicy is GA from 1.30)";
    let alpha = "note: behavior defaults are not exported for Kubernetes 1.33: MutatingAdmissionPolicy is alpha there \
                 (admissionregistration.k8s.io/v1alpha1, feature gate MutatingAdmissionPolicy off by default) and GA \
                 (admissionregistration.k8s.io/v1) from 1.36; they need hpa-webhook's /mutate (the constraints are \
                 exported: ValidatingAdmissionPolicy is GA from 1.30)";
    let constraints = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"];
    let everything = [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ];
    // The policy tests' example sets tolerance defaults too: HPAConfigurableTolerance is off in
    // 1.33 and 1.34, but the note on the defaults says it all.
    for (release, kinds, notes) in [
        ("1.33", &constraints[..], vec![alpha.to_string()]),
        ("1.34", &constraints[..], vec![beta.replace("{release}", "1.34")]),
        ("v1.35.2", &constraints[..], vec![beta.replace("{release}", "1.35")]),
        ("1.36", &everything[..], vec![]),
        ("1.38", &everything[..], vec![]),
    ] {
        assert_eq!(export_for(POLICIES[0], release), (kinds.iter().map(|k| k.to_string()).collect(), notes));
    }
    // Defaults only: nothing to print before 1.36, and only the note on the defaults says why.
    let defaults_only = "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\ndefaults:\n  behavior:\n    scaleUp: {selectPolicy: Max}\n";
    assert_eq!(export_for(defaults_only, "1.35"), (vec![], vec![beta.replace("{release}", "1.35")]));
    assert_eq!(
        export_for(defaults_only, "1.36"),
        (vec!["MutatingAdmissionPolicy".to_string(), "MutatingAdmissionPolicyBinding".to_string()], vec![])
    );
}

/// The CEL functions and operators the exported expressions call, with the release from which
/// kube-apiserver's base CEL environment (`apiserver/pkg/cel/environment/base.go`) offers them:
/// CEL's standard definitions from its epoch (set to 1.0 there), `cel.OptionalTypes()` from 1.28
/// (`optional.of`, `optional.none`, `hasValue`, `value`; the `cel` crate names the first two by
/// their last part). kube-apiserver compiles a new policy's expressions in the environment of its
/// compatibility version, the release before its own (`DefaultCompatibilityVersion`).
const CEL_FUNCTIONS: [(&str, u32); 15] = [
    ("!_", 0),
    ("@in", 0),
    ("_!=_", 0),
    ("_&&_", 0),
    ("_+_", 0),
    ("_<=_", 0),
    ("_==_", 0),
    ("_?_:_", 0),
    ("_[_]", 0),
    ("_||_", 0),
    ("string", 0),
    ("hasValue", 28),
    ("none", 28),
    ("of", 28),
    ("value", 28),
];

/// An autoscaling/v1 request reaches the exported MutatingAdmissionPolicy converted to v2
/// (`matchPolicy: Equivalent`; kube-apiserver converts the patched object back), where the
/// webhook's /mutate writes the behavior annotation of the v1 object: both give the same object
/// once converted, so the differential test's v2 comparison holds for v1 requests too. Every
/// policy, namespace and gate, with no behavior, an empty one, one direction, `selectPolicy:
/// Disabled`, and a complete one in the annotation.
#[test]
fn a_v1_request_is_defaulted_as_its_v2_conversion() {
    let behaviors = [
        None,
        Some(json!({})),
        Some(json!({"scaleUp": {"stabilizationWindowSeconds": 5}})),
        Some(json!({"scaleDown": {"selectPolicy": "Disabled"}})),
        Some(
            json!({"scaleUp": {"stabilizationWindowSeconds": 5, "selectPolicy": "Min", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}]},
            "scaleDown": {"stabilizationWindowSeconds": 5, "selectPolicy": "Max", "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}}),
        ),
    ];
    let mut compared = 0;
    for text in POLICIES {
        let policy = Policy::parse(text).unwrap();
        for namespace in NAMESPACES {
            let effective = policy.effective(namespace);
            for behavior in &behaviors {
                let mut object = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
                    "metadata": {"name": "web", "namespace": namespace},
                    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 4, "targetCPUUtilizationPercentage": 60}});
                if let Some(behavior) = behavior {
                    object["metadata"]["annotations"] =
                        json!({"autoscaling.alpha.kubernetes.io/behavior": behavior.to_string()});
                }
                let hpa_core::api::VersionedHpa::V1(v1) = hpa_core::api::decode(&object).unwrap() else { panic!() };
                for tolerance in [false, true] {
                    let mutated =
                        hpa_webhook::admission::mutate_v1(&v1, &effective, tolerance, KubernetesVersion::LATEST);
                    let mut got =
                        hpa_core::convert::to_internal(&hpa_core::api::VersionedHpa::V1(mutated)).unwrap().object;
                    hpa_core::defaults::default_v2(&mut got);
                    let converted =
                        hpa_core::convert::to_internal(&hpa_core::api::VersionedHpa::V1(v1.clone())).unwrap();
                    let expected = mutate_v2(&converted.object, &effective, tolerance);
                    assert_eq!(
                        got.spec.behavior, expected.spec.behavior,
                        "{namespace}, {behavior:?}, {tolerance}: {text}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, POLICIES.len() * NAMESPACES.len() * behaviors.len() * 2);
}

/// A policy of many rules that all set the same fields exports expressions kube-apiserver
/// compiles: nested no deeper than a policy of one rule (cel-go's parser refuses more than 250
/// levels, `parser.MaxRecursionDepth`; the `cel` crate's parser counts them alike, rule `expr`),
/// within its 100,000 code points (`parser.ExpressionSizeCodePointLimit`), and deciding as the
/// webhook does in the namespaces of the first, a middle and the last rule.
#[test]
fn many_rules_stay_within_the_cel_parsers_limits() {
    let rules = 400;
    let mut text = String::from("apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\nrules:\n");
    for i in 0..rules {
        let enforcement = if i % 2 == 0 { "Warn" } else { "Deny" };
        text.push_str(&format!(
            "  - name: r{i}\n    namespaces: [ns-{i}]\n    enforcement: {enforcement}\n    constraints: {{maxReplicas: {}, requireBehavior: {}}}\n    behavior:\n      scaleDown: {{stabilizationWindowSeconds: {i}, selectPolicy: Min}}\n",
            i + 1,
            i % 3 == 0
        ));
    }
    let policy = Policy::parse(&text).unwrap();
    let env = cel_env();
    let objects = export(&policy, &options(KubernetesVersion::LATEST)).objects;
    let mut expressions = 0;
    for object in &objects {
        let spec = &object["spec"];
        let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
        let mut all: Vec<Value> = list(&spec["variables"]).iter().map(|v| v["expression"].clone()).collect();
        for v in list(&spec["validations"]) {
            all.extend([v["expression"].clone(), v["messageExpression"].clone()]);
        }
        all.extend(list(&spec["mutations"]).iter().map(|m| m["jsonPatch"]["expression"].clone()));
        for expression in all {
            let expression = expression.as_str().unwrap();
            assert!(expression.chars().count() <= 100_000, "{} code points", expression.chars().count());
            cel::parser::Parser::new()
                .max_recursion_depth(16)
                .parse(expression)
                .unwrap_or_else(|e| panic!("{e}: {}", &expression[..expression.len().min(300)]));
            expressions += 1;
        }
    }
    assert!(expressions > rules, "{expressions}");
    // The verdicts and defaults of three namespaces, as the differential test compares them.
    let (vap, map) = (
        objects.iter().find(|o| o["kind"] == "ValidatingAdmissionPolicy" && o["metadata"]["name"] == "p-constraints"),
        objects.iter().find(|o| o["kind"] == "MutatingAdmissionPolicy"),
    );
    let (vap, map) = (Compiled::new(&env, vap.unwrap()), Compiled::new(&env, map.unwrap()));
    for i in [0, rules / 2 + 1, rules - 1] {
        let namespace = format!("ns-{i}");
        let namespace_object =
            json!({"metadata": {"name": namespace, "labels": {"kubernetes.io/metadata.name": namespace}}});
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 1000}});
        let object = cel_value(&hpa);
        let null = cel_value(&Value::Null);
        let request = RequestScope::new("CREATE", &namespace, object.as_ref(), null.as_ref());
        let ctx = request.context(&env);
        let denials = vap.messages(&vap.scope(&ctx, &vap.namespace(&env, &namespace_object)));
        let effective = policy.effective(&namespace);
        let v2: v2::HorizontalPodAutoscaler = hpa_core::api::decode_as(&hpa).unwrap();
        let expected: Vec<String> = effective
            .violations(&v2, &namespace)
            .into_iter()
            .filter(|v| v.enforcement == Enforcement::Deny)
            .map(|v| v.error.to_string())
            .collect();
        assert_eq!(denials, expected, "{namespace}");
        let patch = map.patches(&map.scope(&ctx, &map.namespace(&env, &namespace_object)));
        let mut patched = hpa.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        let mut got: v2::HorizontalPodAutoscaler = hpa_core::api::decode_as(&patched).unwrap();
        hpa_core::defaults::default_v2(&mut got);
        assert_eq!(got, mutate_v2(&v2, &effective, true), "{namespace}");
    }
}

/// Every expression exported for each release calls only what that release's CEL environment
/// offers ([`CEL_FUNCTIONS`]), and the table lists nothing the export does not call.
#[test]
fn the_exported_cel_is_within_each_releases_cel_environment() {
    let env = cel_env();
    let mut used = std::collections::BTreeSet::new();
    for release in KubernetesVersion::ALL {
        let compatibility = release.minor() - 1;
        for text in POLICIES {
            let options = options(release);
            for object in export(&Policy::parse(text).unwrap(), &options).objects {
                let spec = &object["spec"];
                let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
                let mut expressions: Vec<Value> =
                    list(&spec["variables"]).iter().map(|v| v["expression"].clone()).collect();
                for v in list(&spec["validations"]) {
                    expressions.extend([v["expression"].clone(), v["messageExpression"].clone()]);
                }
                expressions.extend(list(&spec["mutations"]).iter().map(|m| m["jsonPatch"]["expression"].clone()));
                for expression in &expressions {
                    let expression = expression.as_str().unwrap();
                    let program = env.compile(expression).unwrap();
                    for function in program.references().functions() {
                        let since = CEL_FUNCTIONS.iter().find(|(name, _)| *name == function).map(|(_, since)| *since);
                        assert!(
                            since.is_some_and(|since| since <= compatibility),
                            "{release}: {function} ({since:?}) in {expression}"
                        );
                        used.insert(function.to_string());
                    }
                }
            }
        }
    }
    let table: std::collections::BTreeSet<String> = CEL_FUNCTIONS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(used, table);
}

/// `--validation-actions` and `--name` end up in objects kube-apiserver validates; what it would
/// refuse (`validateValidationActions`: Deny with Warn, a repeated action; an object name that
/// is no DNS subdomain) is refused here, in its words, before anything is printed.
#[test]
fn the_export_command_refuses_what_kube_apiserver_would() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.yaml");
    std::fs::write(&file, POLICIES[0]).unwrap();
    let export_with = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
            .args(["policy", "export", "--policy"])
            .arg(&file)
            .args(args)
            .output()
            .unwrap()
    };
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', \
                     and must start and end with an alphanumeric character (e.g. 'example.com', regex used for \
                     validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let binding =
        "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"hpa-toolkit-policy-constraints\" is invalid";
    let label = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and \
                 must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex \
                 used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let long = "a".repeat(242);
    for (args, expected) in [
        (
            vec!["--validation-actions", "Deny,Warn"],
            format!(
                "{binding}: spec.validationActions: Invalid value: [\"Deny\",\"Warn\"]: must not contain both Deny and \
                 Warn (repeating the same validation failure information in the API response and headers serves no \
                 purpose)"
            ),
        ),
        (
            vec!["--validation-actions", "Audit,Warn,Audit"],
            format!("{binding}: spec.validationActions[2]: Duplicate value: \"Audit\""),
        ),
        (
            vec!["--name", "My Policy"],
            format!(
                "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"My Policy-constraints\" is invalid: \
                 [metadata.name: Invalid value: \"My Policy-constraints\": {subdomain}, metadata.labels: Invalid \
                 value: \"My Policy\": {label}]"
            ),
        ),
        (
            vec!["--name", &long],
            format!("[metadata.name: Invalid value: \"{long}-constraints\": must be no more than 253 characters, "),
        ),
        // `--name` is the value of the label `kubectl apply --prune -l` selects the export by.
        (
            vec!["--name", &long[..64]],
            format!(
                "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"{}-constraints\" is invalid: \
                 metadata.labels: Invalid value: \"{}\": must be no more than 63 bytes",
                &long[..64],
                &long[..64]
            ),
        ),
        // The excluded namespaces are the values of the bindings' namespace selector.
        (
            vec!["--exclude-namespace", "kube-system,Bad NS"],
            format!(
                "{binding}: spec.matchResources.namespaceSelector.matchExpressions[0].values[1]: Invalid value: \
                 \"Bad NS\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or \
                 '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or \
                 '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ),
        ),
        (
            vec!["--exclude-namespace", &long[..64]],
            format!(
                "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io \"hpa-toolkit-policy-defaults\" is invalid: \
                 spec.matchResources.namespaceSelector.matchExpressions[0].values[0]: Invalid value: \"{}\": must be no \
                 more than 63 bytes",
                &long[..64]
            ),
        ),
    ] {
        let out = export_with(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing is printed");
        assert!(stderr.contains("kube-apiserver would refuse the exported objects"), "{args:?}: {stderr}");
        assert!(stderr.contains(&expected), "{args:?}:\n{stderr}\nexpected: {expected}");
    }
    // Every object the name makes is checked: the MutatingAdmissionPolicy and both bindings too.
    let stderr = String::from_utf8_lossy(&export_with(&["--name", "My Policy"]).stderr).into_owned();
    assert_eq!(stderr.matches("is invalid: [metadata.name").count(), 4, "{stderr}");
    // What kube-apiserver accepts passes.
    for args in [
        vec!["--validation-actions", "Deny,Audit"],
        vec!["--validation-actions", "Warn,Audit"],
        vec!["--validation-actions", "Audit"],
        vec!["--name", "team-a.hpa-policy"],
        vec!["--name", &long[..63]],
        vec!["--exclude-namespace", &long[..63]],
        vec!["--exclude-namespace", "kube-system,Not_A.Namespace"],
    ] {
        let out = export_with(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The workload webhook's default `matchConditions` (the kustomize component's, which the chart
/// test finds equal to the chart's with `workloadWebhook.enabled`) leave out exactly the
/// ReplicaSets a Deployment owns, evaluated as kube-apiserver evaluates them (a CEL program over
/// `request` and `object`; `object` is null on DELETE).
#[test]
fn the_workload_webhook_skips_the_replicasets_of_deployments() {
    let text = std::fs::read_to_string(workspace().join("manifests/components/workload-webhook/webhook.yaml")).unwrap();
    let configuration = yaml_documents(&text).into_iter().find(|o| o.is_object()).unwrap();
    let conditions = configuration["webhooks"][0]["matchConditions"].as_array().unwrap();
    assert_eq!(conditions.len(), 1);
    assert_eq!(conditions[0]["name"], "not-a-deployments-replicaset");
    let env = Env::stdlib();
    let program = env.compile(conditions[0]["expression"].as_str().unwrap()).unwrap();
    let sent = |kind: &str, operation: &str, object: Value| -> bool {
        let mut ctx = Context::with_env(Arc::new(Env::stdlib()));
        ctx.add_variable(
            "request",
            json!({"kind": {"group": "apps", "version": "v1", "kind": kind}, "operation": operation}),
        )
        .unwrap();
        ctx.add_variable("object", object).unwrap();
        match program.execute(&ctx).unwrap() {
            cel::Value::Bool(b) => b,
            other => panic!("{other:?}"),
        }
    };
    let owned_by = |owner: &str| {
        json!({"metadata": {"name": "web-5d4f", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": owner, "name": "web", "uid": "u", "controller": true}]}})
    };
    assert!(!sent("ReplicaSet", "CREATE", owned_by("Deployment")));
    assert!(!sent("ReplicaSet", "UPDATE", owned_by("Deployment")));
    assert!(sent("ReplicaSet", "UPDATE", owned_by("Rollout")));
    assert!(sent("ReplicaSet", "CREATE", json!({"metadata": {"name": "web"}})));
    assert!(sent("ReplicaSet", "CREATE", json!({"metadata": {"name": "web", "ownerReferences": []}})));
    assert!(sent("Deployment", "UPDATE", owned_by("Deployment")));
    assert!(sent("StatefulSet", "UPDATE", json!({"metadata": {"name": "db"}})));
    assert!(sent("ReplicaSet", "DELETE", Value::Null));
}
