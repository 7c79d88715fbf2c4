//! The Helm chart (`charts/hpa-webhook`), rendered by Helm's own engine (Helm v4 through
//! `helm-python-sdk`, no helm binary; `helm_render.py`): the default values and every
//! `ci/*-values.yaml` pass `helm lint --strict` and the values schema, render, are valid against
//! the Kubernetes 1.37 schemas (`kubernetes-validate --strict`), are linted clean by `hpa-lint`,
//! and agree with the binary (its CLI parses the Deployment's environment, its policy parser the
//! ConfigMap, its TLS stack serves the certificate Helm generates). The default render matches
//! the kustomize self-signed overlay object by object.
//!
//! The tools are optional locally; with `HPA_REQUIRE_TOOLS=1` (CI) a missing tool fails
//! (`hpa_test_tools`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde_json::{Value, json};

use hpa_test_tools::tool;
use hpa_webhook::admission::Reviewer;
use hpa_webhook::certs::Authority;
use hpa_webhook::paths;
use hpa_webhook::policy::Policy;

use crate::manifests::{
    deployment_settings, find, pod_matches_the_binary, render_self_signed_overlay, render_self_signed_overlay_with,
};
use crate::support::{Certs, Client, Deadline, Server, workspace, write_atomically, yaml_documents};

const RELEASE: &str = "hpa-webhook";
const NAMESPACE: &str = "hpa-webhook";

fn chart() -> PathBuf {
    workspace().join("charts/hpa-webhook")
}

/// One render of the chart.
struct Render {
    /// What `helm template` would print.
    text: String,
    objects: Vec<Value>,
    notes: String,
}

/// Whether Helm's engine can be run here (python3 with helm-python-sdk).
fn helm_engine() -> bool {
    let script = workspace().join("webhook/tests/it/helm_render.py");
    // Without arguments the script exits with 2 (usage) when the module loads, 3 when it is missing.
    let usable = Command::new("python3").arg(&script).output().is_ok_and(|o| o.status.code() == Some(2));
    if !usable {
        hpa_test_tools::missing("python3 with helm-python-sdk (pip install helm-python-sdk)");
    }
    usable
}

/// Runs the render helper; `Err` is its stderr when Helm refuses the values or the templates.
fn try_render(values: &[&Path]) -> Result<Render, String> {
    try_render_on("v1.37.0", values)
}

/// [`try_render`] for a cluster of release `kube_version` (`helm template --kube-version`).
fn try_render_on(kube_version: &str, values: &[&Path]) -> Result<Render, String> {
    try_render_as(RELEASE, kube_version, values)
}

/// [`try_render_on`] as Helm release `release`.
fn try_render_as(release: &str, kube_version: &str, values: &[&Path]) -> Result<Render, String> {
    render_against(("--kube-version", kube_version.as_ref()), release, values)
}

/// The chart rendered as `helm upgrade` renders it against the cluster of `kubeconfig`: `lookup`
/// reads its objects.
fn render_upgrade(kubeconfig: &Path, values: &[&Path]) -> Render {
    render_against(("--kubeconfig", kubeconfig.as_os_str()), RELEASE, values).unwrap_or_else(|e| panic!("{e}"))
}

/// `helm_render.py` with `cluster` (`--kube-version` or `--kubeconfig` and its value).
fn render_against(cluster: (&str, &std::ffi::OsStr), release: &str, values: &[&Path]) -> Result<Render, String> {
    let out = Command::new("python3")
        .arg(workspace().join("webhook/tests/it/helm_render.py"))
        .arg(cluster.0)
        .arg(cluster.1)
        .arg(chart())
        .args([release, NAMESPACE])
        .args(values)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["lint"], json!([]), "helm lint --strict {values:?}");
    // Sorted by template, as `helm template` prints them.
    let manifests: BTreeMap<String, String> = serde_json::from_value(result["manifests"].clone()).unwrap();
    let text = manifests
        .iter()
        .filter(|(_, text)| !text.trim().is_empty())
        .map(|(template, text)| format!("---\n# Source: {template}\n{}\n", text.trim()))
        .collect::<String>();
    let objects: Vec<Value> = yaml_documents(&text).into_iter().filter(|o| o.is_object()).collect();
    let render = Render { text, objects, notes: result["notes"].as_str().unwrap_or_default().to_string() };
    the_binary_takes(values, &render);
    Ok(render)
}

/// What a render hands the binary, the binary takes, on every render of these tests: values
/// that render but would stop the server (its validating webhook fails closed, so every HPA
/// write would be refused) must fail `helm install` instead. The Deployment's environment goes
/// through the binary's CLI (each flag's own parser: durations, the log filter as EnvFilter
/// takes it, the release and its feature gates), and the policy ConfigMap through the real
/// `hpa-webhook policy check` (the server's own reader) with the release and gates the
/// Deployment passes.
fn the_binary_takes(values: &[&Path], render: &Render) {
    let deployment = of_kind(&render.objects, "Deployment")[0];
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    let (settings, env) = deployment_settings(container);
    let gates = settings.gates().unwrap_or_else(|e| panic!("{values:?}: the server refuses its gates: {e}"));

    let fullname = deployment["metadata"]["name"].as_str().unwrap();
    let config_map = find(&render.objects, "ConfigMap", &format!("{fullname}-policy"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.yaml");
    std::fs::write(&file, config_map["data"]["policy.yaml"].as_str().unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["policy", "check"])
        .arg(&file)
        .args(["--kubernetes-version", &env["HPA_WEBHOOK_KUBERNETES_VERSION"]])
        .args(["--feature-gates", env.get("HPA_WEBHOOK_FEATURE_GATES").map_or("", String::as_str)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{values:?}: the server refuses the policy it is given: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The lint configuration through the server's own reader, as `serve --lint-config` reads
    // it at start (`server::state_with`).
    let lint_config = settings.lint_config.as_ref().unwrap();
    let file = dir.path().join(lint_config.file_name().unwrap());
    std::fs::write(&file, config_map["data"]["lint-config.yaml"].as_str().unwrap()).unwrap();
    if let Err(e) = Reviewer::new(gates).with_lint_warnings(settings.lint_warnings).with_lint_config(&file) {
        panic!("{values:?}: the server refuses the lint configuration it is given: {e}");
    }
}

fn render(values: &[&Path]) -> Render {
    try_render(values).unwrap_or_else(|e| panic!("rendering with {values:?}: {e}"))
}

fn kind_names(objects: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .map(|o| format!("{}/{}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap()))
        .collect();
    names.sort();
    names
}

fn of_kind<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

fn webhooks(objects: &[Value]) -> Vec<(&Value, &Value)> {
    objects
        .iter()
        .filter(|o| o["kind"].as_str().unwrap().ends_with("WebhookConfiguration"))
        .flat_map(|o| o["webhooks"].as_array().unwrap().iter().map(move |w| (o, w)))
        .collect()
}

fn kubernetes_validate(name: &str, text: &str) {
    kubernetes_validate_with(name, text, "1.37.0");
}

/// [`kubernetes_validate`] with the schemas of release `schemas` (`1.33.0` to `1.37.0`).
fn kubernetes_validate_with(name: &str, text: &str, schemas: &str) {
    if !tool("kubernetes-validate", &["--version"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{name}.yaml"));
    std::fs::write(&file, text).unwrap();
    let out = Command::new("kubernetes-validate").args(["--strict", "-k", schemas]).arg(&file).output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !report.contains("ERROR"), "{name}: {report}");
    // Only the kinds of cert-manager and the Prometheus Operator have no built-in schema.
    for line in report.lines().filter(|l| l.starts_with("WARN")) {
        assert!(line.contains("cert-manager.io/v1") || line.contains("monitoring.coreos.com/v1"), "{name}: {line}");
    }
}

/// `hpa-lint -o json -` on the render: no finding, exit status 0.
fn hpa_lint_clean(name: &str, text: &str) {
    use clap::Parser as _;
    let args = hpa_lint::cli::Args::try_parse_from(["hpa-lint", "-o", "json", "--fail-on", "info", "-"]).unwrap();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = text.as_bytes();
    let mut io = hpa_lint::Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!((code, &report["diagnostics"]), (0, &json!([])), "{name}: {}", String::from_utf8_lossy(&stderr));
    assert!(report["summary"]["objects"].as_u64().unwrap() >= 6, "{name}: hpa-lint read the render");
}

/// What every render must hold, whatever the values: the pieces agree with each other and with
/// the binary.
fn check_consistency(name: &str, render: &Render) {
    let objects = &render.objects;
    let deployment = of_kind(objects, "Deployment")[0];
    let fullname = deployment["metadata"]["name"].as_str().unwrap();
    for o in objects {
        let cluster_scoped =
            ["ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
                .contains(&o["kind"].as_str().unwrap());
        assert_eq!(o["metadata"].get("namespace").is_none(), cluster_scoped, "{name}: {o}");
        if !cluster_scoped {
            assert_eq!(o["metadata"]["namespace"], NAMESPACE, "{name}: everything in the release namespace");
        }
    }

    // The binary's CLI reads the Deployment's environment; the mounts are where it looks.
    let spec = &deployment["spec"]["template"]["spec"];
    let container = &spec["containers"][0];
    let (settings, _env) = pod_matches_the_binary(name, spec);
    let sc = &container["securityContext"];
    assert_eq!((&sc["allowPrivilegeEscalation"], &sc["readOnlyRootFilesystem"]), (&json!(false), &json!(true)));
    assert_eq!(spec["securityContext"]["runAsNonRoot"], true);

    // The policy ConfigMap is a policy the server accepts (and its lint configuration one the
    // server reads: `the_binary_takes`, on every render).
    let config_map = find(objects, "ConfigMap", &format!("{fullname}-policy"));
    Policy::parse(config_map["data"]["policy.yaml"].as_str().unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let volumes = spec["volumes"].as_array().unwrap();
    assert_eq!(volumes[1]["configMap"]["name"], config_map["metadata"]["name"]);

    // The Service, the PDB and the spread constraints select the pods.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let service = find(objects, "Service", fullname);
    let mut selectors = vec![&service["spec"]["selector"], &deployment["spec"]["selector"]["matchLabels"]];
    selectors.extend(of_kind(objects, "PodDisruptionBudget").iter().map(|p| &p["spec"]["selector"]["matchLabels"]));
    if let Some(constraints) = spec["topologySpreadConstraints"].as_array() {
        selectors.extend(constraints.iter().map(|c| &c["labelSelector"]["matchLabels"]));
    }
    for selector in selectors {
        assert!(!selector.as_object().unwrap().is_empty());
        for (k, v) in selector.as_object().unwrap() {
            assert_eq!(&pod_labels[k], v, "{name}: selector {k}");
        }
    }

    // Each webhook calls the Service on a path the binary serves, within its deadline, never in
    // the release namespace or kube-system.
    let tls_secret = volumes[0]["secret"]["secretName"].as_str().unwrap();
    let ca_of_secret = of_kind(objects, "Secret")
        .iter()
        .find(|s| s["metadata"]["name"] == tls_secret)
        .map(|s| s["data"]["ca.crt"].clone());
    let certificate = of_kind(objects, "Certificate").into_iter().find(|c| c["metadata"]["name"] == fullname);
    for (configuration, webhook) in webhooks(objects) {
        let service_ref = &webhook["clientConfig"]["service"];
        assert_eq!((&service_ref["name"], &service_ref["namespace"]), (&json!(fullname), &json!(NAMESPACE)));
        assert_eq!(service_ref["port"], service["spec"]["ports"][0]["port"]);
        assert!(
            [paths::MUTATE, paths::VALIDATE, paths::VALIDATE_WORKLOADS]
                .contains(&service_ref["path"].as_str().unwrap()),
            "{name}: {service_ref}"
        );
        assert!(settings.request_timeout.as_secs() < webhook["timeoutSeconds"].as_u64().unwrap());
        assert_eq!((&webhook["sideEffects"], &webhook["admissionReviewVersions"]), (&json!("None"), &json!(["v1"])));
        let excluded = &webhook["namespaceSelector"]["matchExpressions"][0];
        assert_eq!((&excluded["key"], &excluded["operator"]), (&json!("kubernetes.io/metadata.name"), &json!("NotIn")));
        for ns in [NAMESPACE, "kube-system"] {
            assert!(excluded["values"].as_array().unwrap().contains(&json!(ns)), "{name}: {ns} excluded");
        }
        // The caBundle trusts the serving certificate: the Secret's CA, or cert-manager's injection.
        match (&ca_of_secret, certificate) {
            (_, Some(certificate)) => {
                assert_eq!(certificate["spec"]["secretName"], tls_secret);
                assert_eq!(
                    configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
                    format!("{NAMESPACE}/{fullname}")
                );
                assert!(webhook["clientConfig"].get("caBundle").is_none());
            }
            (Some(ca), None) => {
                assert_eq!(&webhook["clientConfig"]["caBundle"], ca, "{name}: caBundle is the Secret's CA")
            }
            (None, None) => assert!(webhook["clientConfig"]["caBundle"].as_str().is_some_and(|b| !b.is_empty())),
        }
    }
    if let Some(certificate) = certificate {
        let names = hpa_webhook::certs::service_names(fullname, NAMESPACE, "cluster.local");
        assert!(
            certificate["spec"]["dnsNames"].as_array().unwrap().contains(&json!(format!("{fullname}.{NAMESPACE}.svc")))
        );
        assert!(certificate["spec"]["dnsNames"].as_array().unwrap().len() <= names.len());
    }

    // The ServiceMonitor's CA (the chart's default tlsConfig) exists and is the one the webhook
    // configurations trust: a ConfigMap the chart renders (secret mode), the Secret's ca.crt it
    // generates (selfSigned), or the Secret cert-manager fills for the Certificate.
    for monitor in of_kind(objects, "ServiceMonitor") {
        let ca = &monitor["spec"]["endpoints"][0]["tlsConfig"]["ca"];
        let trusted = webhooks(objects)
            .first()
            .and_then(|(_, w)| w["clientConfig"]["caBundle"].as_str())
            .map(|b| String::from_utf8(base64::engine::general_purpose::STANDARD.decode(b).unwrap()).unwrap());
        if let Some(config_map) = ca.get("configMap") {
            let held = find(objects, "ConfigMap", config_map["name"].as_str().unwrap());
            let pem = held["data"][config_map["key"].as_str().unwrap()].as_str().unwrap();
            assert_eq!(Some(pem.trim()), trusted.as_deref().map(str::trim), "{name}: the ServiceMonitor's CA");
        } else if let Some(secret) = ca.get("secret") {
            let secret_name = &secret["name"];
            let generated = of_kind(objects, "Secret").into_iter().find(|s| &s["metadata"]["name"] == secret_name);
            match generated {
                Some(generated) => {
                    let pem = generated["data"][secret["key"].as_str().unwrap()].as_str().unwrap();
                    let pem =
                        String::from_utf8(base64::engine::general_purpose::STANDARD.decode(pem).unwrap()).unwrap();
                    assert_eq!(Some(pem), trusted, "{name}: the ServiceMonitor's CA");
                }
                None => {
                    assert_eq!(certificate.map(|c| &c["spec"]["secretName"]), Some(secret_name), "{name}: {ca}");
                    assert_eq!(secret["key"], "ca.crt", "{name}: cert-manager writes the CA as ca.crt");
                }
            }
        } else {
            panic!("{name}: the ServiceMonitor trusts no CA: {ca}");
        }
    }

    // The context cache: RBAC bound to the pods' ServiceAccount, whose token is mounted only then.
    let binding = of_kind(objects, "ClusterRoleBinding");
    assert_eq!(spec["automountServiceAccountToken"], json!(!binding.is_empty()), "{name}");
    for b in binding {
        assert_eq!(
            b["subjects"],
            json!([{"kind": "ServiceAccount", "name": spec["serviceAccountName"], "namespace": NAMESPACE}])
        );
        let role = find(objects, "ClusterRole", b["roleRef"]["name"].as_str().unwrap());
        for rule in role["rules"].as_array().unwrap() {
            // Read-only: list and watch, or get of the custom resources HPAs scale.
            let verbs = if rule["verbs"] == json!(["get"]) { json!(["get"]) } else { json!(["list", "watch"]) };
            assert_eq!(rule["verbs"], verbs, "{name}: read-only");
        }
    }
}

/// Every values file of the chart's CI: `ci/*-values.yaml`, sorted.
fn ci_values_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(chart().join("ci"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().ends_with("-values.yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn chart_versions_follow_the_workspace() {
    let chart_yaml = &yaml_documents(&std::fs::read_to_string(chart().join("Chart.yaml")).unwrap())[0];
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(chart_yaml["version"], version, "Chart.yaml version follows Cargo.toml's workspace version");
    assert_eq!(chart_yaml["appVersion"], version, "Chart.yaml appVersion follows Cargo.toml's workspace version");
    // The schema is strict at the root, and values.yaml holds only what it declares.
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap()).unwrap();
    assert_eq!(schema["additionalProperties"], false);
    let values = &yaml_documents(&std::fs::read_to_string(chart().join("values.yaml")).unwrap())[0];
    let declared: BTreeSet<&String> = schema["properties"].as_object().unwrap().keys().collect();
    for key in values.as_object().unwrap().keys() {
        assert!(declared.contains(key), "values.yaml key {key} is not in values.schema.json");
    }
}

#[test]
fn every_values_file_renders_validates_and_lints_clean() {
    if !helm_engine() {
        return;
    }
    let expected: BTreeMap<&str, Vec<&str>> = BTreeMap::from([
        (
            "default",
            vec![
                "ClusterRole/hpa-webhook",
                "ClusterRoleBinding/hpa-webhook",
                "ConfigMap/hpa-webhook-policy",
                "Deployment/hpa-webhook",
                "MutatingWebhookConfiguration/hpa-webhook",
                "PodDisruptionBudget/hpa-webhook",
                "Secret/hpa-webhook-tls",
                "Service/hpa-webhook",
                "ServiceAccount/hpa-webhook",
                "ValidatingWebhookConfiguration/hpa-webhook",
            ],
        ),
        (
            "cert-manager-values.yaml",
            vec![
                "Certificate/hpa-webhook",
                "Certificate/hpa-webhook-ca",
                "ClusterRole/hpa-webhook",
                "ClusterRoleBinding/hpa-webhook",
                "ConfigMap/hpa-webhook-policy",
                "Deployment/hpa-webhook",
                "Issuer/hpa-webhook-ca",
                "Issuer/hpa-webhook-selfsigned",
                "MutatingWebhookConfiguration/hpa-webhook",
                "PodDisruptionBudget/hpa-webhook",
                "Service/hpa-webhook",
                "ServiceAccount/hpa-webhook",
                "ValidatingWebhookConfiguration/hpa-webhook",
            ],
        ),
        (
            "everything-values.yaml",
            vec![
                "Certificate/hpa-admission",
                "ClusterRole/hpa-admission",
                "ClusterRoleBinding/hpa-admission",
                "ConfigMap/hpa-admission-policy",
                "Deployment/hpa-admission",
                "MutatingWebhookConfiguration/hpa-admission",
                "NetworkPolicy/hpa-admission",
                "PodDisruptionBudget/hpa-admission",
                "Service/hpa-admission",
                "ServiceAccount/hpa-admission",
                "ServiceMonitor/hpa-admission",
                "ValidatingWebhookConfiguration/hpa-admission",
                "ValidatingWebhookConfiguration/hpa-admission-workloads",
            ],
        ),
        (
            "existing-secret-values.yaml",
            vec![
                "ConfigMap/hpa-webhook-policy",
                "Deployment/hpa-webhook",
                "MutatingWebhookConfiguration/hpa-webhook",
                "Service/hpa-webhook",
                "ServiceAccount/hpa-webhook",
                "ValidatingWebhookConfiguration/hpa-webhook",
            ],
        ),
    ]);
    let files = ci_values_files();
    let mut cases: Vec<(String, Vec<&Path>)> = vec![("default".into(), vec![])];
    cases.extend(files.iter().map(|f| (f.file_name().unwrap().to_str().unwrap().to_string(), vec![f.as_path()])));
    for (name, values) in &cases {
        let rendered = render(values);
        let objects = kind_names(&rendered.objects);
        eprintln!("{name}: {}", objects.join(", "));
        assert_eq!(
            expected.get(name.as_str()).unwrap_or_else(|| panic!("{name}: add its objects to the expected list")),
            &objects,
            "{name}"
        );
        check_consistency(name, &rendered);
        kubernetes_validate(name, &rendered.text);
        hpa_lint_clean(name, &rendered.text);
        assert!(rendered.notes.contains("rollout status deployment/"), "{name}: NOTES.txt renders");
    }

    // The fully loaded file: the workload webhook has its rules, and the values reached the objects.
    let everything = render(&[&chart().join("ci/everything-values.yaml")]);
    let workloads = find(&everything.objects, "ValidatingWebhookConfiguration", "hpa-admission-workloads");
    let webhook = &workloads["webhooks"][0];
    assert_eq!(webhook["failurePolicy"], "Ignore");
    assert_eq!(webhook["clientConfig"]["service"]["path"], "/validate-workloads");
    let resources: BTreeSet<String> = webhook["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            let group = r["apiGroups"][0].as_str().unwrap().to_string();
            let version = r["apiVersions"][0].as_str().unwrap().to_string();
            assert_eq!(r["operations"], json!(["CREATE", "UPDATE"]));
            r["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |res| format!("{group}/{version}/{}", res.as_str().unwrap()))
        })
        .collect();
    assert_eq!(
        resources,
        BTreeSet::from(
            [
                "apps/v1/deployments",
                "apps/v1/statefulsets",
                "apps/v1/replicasets",
                "/v1/replicationcontrollers",
                "argoproj.io/v1alpha1/rollouts",
                "autoscaling.k8s.io/v1/verticalpodautoscalers",
                "policy/v1/poddisruptionbudgets",
            ]
            .map(String::from)
        )
    );
    let hpa_webhook = &find(&everything.objects, "ValidatingWebhookConfiguration", "hpa-admission")["webhooks"][0];
    assert_eq!(hpa_webhook["objectSelector"], json!({"matchLabels": {"team": "platform"}}));
    assert_eq!(hpa_webhook["matchConditions"][0]["name"], "not-a-dry-run-controller");
    assert_eq!(hpa_webhook["failurePolicy"], "Ignore");
    assert_eq!(
        hpa_webhook["namespaceSelector"]["matchExpressions"][1],
        json!({"key": "hpa-toolkit.io/admission", "operator": "NotIn", "values": ["off"]})
    );
    let deployment = find(&everything.objects, "Deployment", "hpa-admission");
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    let (settings, env) = deployment_settings(container);
    assert_eq!(settings.request_timeout.as_secs(), 9, "one second below timeoutSeconds 10");
    assert_eq!(env["HPA_WEBHOOK_KUBERNETES_VERSION"], "1.36");
    assert!(settings.gates().is_ok());
    assert!(
        container["image"]
            .as_str()
            .unwrap()
            .ends_with("@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
    );
    let role = find(&everything.objects, "ClusterRole", "hpa-admission");
    let mut rules = context_cache_rules();
    // The custom resources HPAs scale: `get`, for /validate's read of an HPA's target.
    rules
        .as_array_mut()
        .unwrap()
        .push(json!({"apiGroups": ["example.com"], "resources": ["workerpools"], "verbs": ["get"]}));
    assert_eq!(role["rules"], rules);
}

/// The ServiceMonitor trusts the serving certificate's CA in every certificate mode; in secret
/// mode (a kubernetes.io/tls Secret usually has no ca.crt) from a ConfigMap the chart renders from
/// certificates.secret.caBundle (`check_consistency` follows each reference).
#[test]
fn the_service_monitor_trusts_the_ca_in_every_mode() {
    if !helm_engine() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let secret_mode = std::fs::read_to_string(chart().join("ci/existing-secret-values.yaml")).unwrap();
    for (name, values, ca) in [
        ("selfSigned", String::new(), json!({"secret": {"name": "hpa-webhook-tls", "key": "ca.crt"}})),
        (
            "certManager",
            "certificates: {mode: certManager}\n".to_string(),
            json!({"secret": {"name": "hpa-webhook-tls", "key": "ca.crt"}}),
        ),
        ("secret", secret_mode, json!({"configMap": {"name": "hpa-webhook-ca", "key": "ca.crt"}})),
    ] {
        let file = dir.path().join("values.yaml");
        std::fs::write(&file, format!("{values}\nserviceMonitor: {{enabled: true}}\n")).unwrap();
        let rendered = render(&[&file]);
        check_consistency(name, &rendered);
        kubernetes_validate(name, &rendered.text);
        let monitor = find(&rendered.objects, "ServiceMonitor", "hpa-webhook");
        assert_eq!(monitor["spec"]["endpoints"][0]["tlsConfig"]["ca"], ca, "{name}");
        assert_eq!(of_kind(&rendered.objects, "ConfigMap").len(), if name == "secret" { 2 } else { 1 }, "{name}");
    }
}

/// The read-only ClusterRole issue 16's context cache needs.
fn context_cache_rules() -> Value {
    let rule = |group: &str, resources: &[&str]| json!({"apiGroups": [group], "resources": resources, "verbs": ["list", "watch"]});
    json!([
        rule("apps", &["deployments", "statefulsets", "replicasets"]),
        rule("", &["replicationcontrollers", "limitranges"]),
        rule("argoproj.io", &["rollouts"]),
        rule("policy", &["poddisruptionbudgets"]),
        rule("autoscaling.k8s.io", &["verticalpodautoscalers"]),
        rule("keda.sh", &["scaledobjects"]),
        rule("autoscaling", &["horizontalpodautoscalers"]),
        rule("node.k8s.io", &["runtimeclasses"]),
        rule("apiextensions.k8s.io", &["customresourcedefinitions"]),
    ])
}

#[test]
fn the_schema_refuses_what_the_chart_does_not_know() {
    if !helm_engine() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A name part of 64 characters, a prefix of 254, a label value of 64.
    let name_64 = format!("x{}", "1234567890".repeat(7))[..64].to_string();
    let prefix_254 = vec!["a".repeat(63); 4].join(".")[..254].to_string();
    let long_key = format!("admission: {{namespaceSelector: {{matchLabels: {{a/{name_64}: x}}}}}}\n");
    let long_prefix = format!("admission: {{namespaceSelector: {{matchLabels: {{{prefix_254}/x: x}}}}}}\n");
    let long_value = format!("workloadWebhook: {{namespaceSelector: {{matchLabels: {{x: {}}}}}}}\n", "v".repeat(64));
    let rows: &[(&str, &str)] = &[
        ("replicas: 3\n", "additional properties 'replicas' not allowed"),
        ("admission: {timeoutSeconds: 31}\n", "/admission/timeoutSeconds"),
        ("certificates: {mode: secret}\n", "/certificates/secret/name"),
        ("certificates: {mode: vault}\n", "/certificates/mode"),
        ("workloadWebhook: {enabled: true}\ncontextCache: {enabled: false}\n", "/contextCache/enabled"),
        ("policy: {rules: [{name: a, constraint: {}}]}\n", "additional properties 'constraint' not allowed"),
        ("policy: {defaults: {denyRules: [HPA000]}}\n", "/policy/defaults/denyRules/0"),
        ("policy: {rules: [{name: a, namespaces: [x], denyRules: [no-such-rule]}]}\n", "/policy/rules/0/denyRules/0"),
        (
            "policy: {rules: [{name: a, namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}]}\n",
            "missing property 'values'",
        ),
        // Values that render but would stop the server, whose validating webhook fails closed.
        ("server: {kubernetesVersion: \"1.99\"}\n", "/server/kubernetesVersion"),
        ("server: {kubernetesVersion: \"1.31\"}\n", "/server/kubernetesVersion"),
        // Gates as kube-apiserver's featureGate.Set words them, naming the pair (the schema's
        // pattern of 1,000 characters named neither the pair nor the gates before).
        ("server: {featureGates: \"HPAScaleToZero\"}\n", "server.featureGates: missing bool value for HPAScaleToZero"),
        (
            "server: {featureGates: \"PodLevelResources=1, HPAScaleToZero=yes\"}\n",
            "server.featureGates: invalid value of HPAScaleToZero=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax (write true or false)",
        ),
        (
            "server: {featureGates: \"NoSuchGate=true\"}\n",
            "server.featureGates: unrecognized feature gate: NoSuchGate (Kubernetes 1.37; the gates that change what happens to an HPA: DeclarativeValidation, DeclarativeValidationBeta, DeclarativeValidationTakeover, HPAConfigurableTolerance, HPAGeneration, HPAScaleToZero, PodLevelResources, StaleControllerConsistencyHPA)",
        ),
        ("server: {reloadInterval: \"0\"}\n", "/server/reloadInterval"),
        ("server: {reloadInterval: \"0s\"}\n", "/server/reloadInterval"),
        ("server: {reloadInterval: \"-1s\"}\n", "/server/reloadInterval"),
        ("policy: {rules: [{name: a}]}\n", "/policy/rules/0"),
        // What the server's policy reader refuses (Policy::parse, validateScalingRules).
        (
            "policy: {rules: [{name: ab, namespaces: [p]}, {name: ab, namespaces: [q]}]}\n",
            "policy.rules[1].name: duplicate rule name \"ab\"",
        ),
        ("policy: {defaults: {behavior: {scaleUp: {policies: []}}}}\n", "/policy/defaults/behavior/scaleUp/policies"),
        (
            "policy: {rules: [{name: a, namespaces: [p], behavior: {scaleDown: {tolerance: \"-0.1\"}}}]}\n",
            "/policy/rules/0/behavior/scaleDown/tolerance",
        ),
        (
            "policy: {defaults: {behavior: {scaleUp: {tolerance: -0.1}}}}\n",
            "/policy/defaults/behavior/scaleUp/tolerance",
        ),
        (
            "policy: {defaults: {behavior: {scaleUp: {tolerance: abc}}}}\n",
            "/policy/defaults/behavior/scaleUp/tolerance",
        ),
        (
            "policy: {defaults: {behavior: {scaleUp: {tolerance: 1Ki5}}}}\n",
            "/policy/defaults/behavior/scaleUp/tolerance",
        ),
        (
            "policy: {defaults: {behavior: {scaleUp: {policies: [{type: Pods, value: 2147483648, periodSeconds: 15}]}}}}\n",
            "/policy/defaults/behavior/scaleUp/policies/0/value",
        ),
        // A log filter tracing's EnvFilter refuses (the server exits with status 2).
        ("server: {logLevel: \"hpa_webhook=debugg\"}\n", "/server/logLevel"),
        ("server: {logLevel: \"=info\"}\n", "/server/logLevel"),
        ("server: {logLevel: \"info,hpa_webhook=6\"}\n", "/server/logLevel"),
        // What kube-apiserver, cert-manager, the kubelet or Prometheus would refuse or break.
        ("resources: {requests: {cpu: lots}}\n", "/resources/requests/cpu"),
        ("resources: {limits: {memory: \"-1Gi\"}}\n", "/resources/limits/memory"),
        ("resources: {request: {cpu: 1}}\n", "additional properties 'request' not allowed"),
        ("certificates: {certManager: {duration: \"90 days\"}}\n", "/certificates/certManager/duration"),
        (
            "certificates: {mode: certManager, certManager: {duration: 1h, renewBefore: 2h}}\n",
            "certificates.certManager.renewBefore: 2h: certificate duration 1h must be greater than renewBefore 2h",
        ),
        (
            "certificates: {mode: certManager, certManager: {duration: 30m, renewBefore: 10m}}\n",
            "certificate duration must be greater than 1h0m0s",
        ),
        (
            "certificates: {selfSigned: {caValidityDays: 10}}\n",
            "certificates.selfSigned.caValidityDays: 10 must be at least certValidityDays (365)",
        ),
        (
            "terminationGracePeriodSeconds: 10\n",
            "terminationGracePeriodSeconds: 10 must be greater than server.shutdownDelay + server.shutdownTimeout (5s + 20s)",
        ),
        ("terminationGracePeriodSeconds: 25\n", "terminationGracePeriodSeconds: 25 must be greater than"),
        (
            "terminationGracePeriodSeconds: 30\nserver: {shutdownDelay: 10s, shutdownTimeout: 20000ms}\n",
            "terminationGracePeriodSeconds: 30 must be greater than",
        ),
        ("serviceMonitor: {interval: \"30 s\"}\n", "/serviceMonitor/interval"),
        (
            "serviceMonitor: {enabled: true, interval: 5s}\n",
            "serviceMonitor.scrapeTimeout: 10s must not be greater than interval 5s",
        ),
        // matchConditions as kube-apiserver's validateMatchConditions refuses them.
        (
            "admission: {matchConditions: [{name: Example.com/x, expression: \"true\"}]}\n",
            "/admission/matchConditions/0/name",
        ),
        (
            "workloadWebhook: {matchConditions: [{name: \"a b\", expression: \"true\"}]}\n",
            "/workloadWebhook/matchConditions/0/name",
        ),
        ("admission: {matchConditions: [{name: a, expression: \"  \"}]}\n", "/admission/matchConditions/0/expression"),
        (
            "admission: {matchConditions: [{name: a, expression: \"true\"}, {name: a, expression: \"false\"}]}\n",
            "admission.matchConditions[1].name: Duplicate value: \"a\"",
        ),
        ("podDisruptionBudget: {minAvailable: \"1\"}\n", "/podDisruptionBudget/minAvailable"),
        // The NetworkPolicy's peers as kube-apiserver's ValidateNetworkPolicyPeer and
        // ValidateIPBlock take them (netutils.ParseCIDRSloppy), which kubernetes-validate does not
        // check: the chart would render a NetworkPolicy `helm install` fails on. A CIDR is refused
        // at its values path in kube-apiserver's words (parseCIDR), not with a pattern of 1,500
        // characters.
        (
            "networkPolicy: {egress: {apiServerCIDRs: [not-a-cidr]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"not-a-cidr\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [10.0.0.0]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"10.0.0.0\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [10.0.0.0/33]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"10.0.0.0/33\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [256.0.0.0/8]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"256.0.0.0/8\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [\"::/129\"]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"::/129\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [\"1::2::3/64\"]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"1::2::3/64\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [\"fe80::1%eth0/64\"]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"fe80::1%eth0/64\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [\"12345::/16\"]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \"12345::/16\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {egress: {apiServerCIDRs: [\" 10.0.0.0/8\"]}}\n",
            "networkPolicy.egress.apiServerCIDRs[0]: Invalid value: \" 10.0.0.0/8\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        ("networkPolicy: {ingressFrom: [{}]}\n", "at '/networkPolicy/ingressFrom/0'"),
        (
            "networkPolicy: {ingressFrom: [{ipBlock: {cidr: 10.0.0.0/8}, podSelector: {}}]}\n",
            "at '/networkPolicy/ingressFrom/0'",
        ),
        (
            "networkPolicy: {ingressFrom: [{ipBlock: {except: [10.1.0.0/16]}}]}\n",
            "at '/networkPolicy/ingressFrom/0/ipBlock'",
        ),
        (
            "networkPolicy: {ingressFrom: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16, 10.1.0.0/33]}}]}\n",
            "networkPolicy.ingressFrom[0].ipBlock.except[1]: Invalid value: \"10.1.0.0/33\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        (
            "networkPolicy: {ingressFrom: [{podSelector: {}}, {ipBlock: {cidr: 10.0.0.0}}]}\n",
            "networkPolicy.ingressFrom[1].ipBlock.cidr: Invalid value: \"10.0.0.0\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        ),
        ("networkPolicy: {ingressFrom: [{podSelektor: {}}]}\n", "additional properties 'podSelektor' not allowed"),
        (
            "networkPolicy: {ingressFrom: [{namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}]}\n",
            "/networkPolicy/ingressFrom/0/namespaceSelector/matchExpressions/0",
        ),
        (
            "networkPolicy: {ingressFrom: [{podSelector: {matchLabels: {app: \"a b\"}}}]}\n",
            "at '/networkPolicy/ingressFrom/0/podSelector/matchLabels/app'",
        ),
        // Gates as the release applied takes them (FeatureGates::apply's words).
        (
            "server: {kubernetesVersion: \"1.36\", featureGates: \"HPAGeneration=true\"}\n",
            "server.featureGates: unrecognized feature gate: HPAGeneration (Kubernetes 1.36; the gates that change what happens to an HPA: DeclarativeValidation, DeclarativeValidationBeta, DeclarativeValidationTakeover, HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources)",
        ),
        (
            "server: {featureGates: \"HPAScaleToZero=true, HPAConfigurableTolerance=false\"}\n",
            "server.featureGates: cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true (Kubernetes 1.37)",
        ),
        ("policy: {rules: [{name: a, namespaces: [x], namespaceSelector: {}}]}\n", "/policy/rules/0"),
        // Every selector of the webhook configurations as kube-apiserver's ValidateLabelSelector
        // takes it (validateValidatingWebhook refuses the configuration otherwise).
        (
            "admission: {namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}\n",
            "/admission/namespaceSelector/matchExpressions/0",
        ),
        (
            "admission: {objectSelector: {matchExpressions: [{key: a, operator: NotIn, values: []}]}}\n",
            "/admission/objectSelector/matchExpressions/0/values",
        ),
        (
            "workloadWebhook: {namespaceSelector: {matchExpressions: [{key: a, operator: Exists, values: [x]}]}}\n",
            "/workloadWebhook/namespaceSelector/matchExpressions/0/values",
        ),
        (
            "workloadWebhook: {objectSelector: {matchExpressions: [{key: a, operator: In}]}}\n",
            "/workloadWebhook/objectSelector/matchExpressions/0",
        ),
        // Keys as IsQualifiedName, values as IsValidLabelValue (ValidateLabels on matchLabels,
        // and on matchExpressions' keys and values: LabelSelectorValidationOptions{}).
        (
            "admission: {objectSelector: {matchLabels: {team: \"platform team\"}}}\n",
            "at '/admission/objectSelector/matchLabels/team': 'platform team' does not match pattern",
        ),
        // A key is refused where it is (Helm's engine says `at ''` for a propertyNames failure,
        // which names no selector among the seven).
        (
            "admission: {namespaceSelector: {matchLabels: {\"bad key!\": x}}}\n",
            "- at '/admission/namespaceSelector/matchLabels': additional properties 'bad key!' not allowed",
        ),
        ("admission: {namespaceSelector: {matchLabels: {a/b/c: x}}}\n", "matchLabels': additional properties 'a/b/c'"),
        ("admission: {namespaceSelector: {matchLabels: {/x: x}}}\n", "matchLabels': additional properties '/x'"),
        ("admission: {namespaceSelector: {matchLabels: {x/: x}}}\n", "matchLabels': additional properties 'x/'"),
        (
            "admission: {namespaceSelector: {matchLabels: {Example.com/x: x}}}\n",
            "matchLabels': additional properties 'Example.com/x'",
        ),
        (
            "policy: {rules: [{name: a, namespaceSelector: {matchLabels: {\"team name\": x}}}]}\n",
            "- at '/policy/rules/0/namespaceSelector/matchLabels': additional properties 'team name' not allowed",
        ),
        (long_key.as_str(), "- at '/admission/namespaceSelector/matchLabels': additional properties 'a/x1234567890"),
        (long_prefix.as_str(), "invalid propertyName 'aaaaaaaa"),
        (long_value.as_str(), "at '/workloadWebhook/namespaceSelector/matchLabels/x'"),
        (
            "workloadWebhook: {objectSelector: {matchExpressions: [{key: \"bad key\", operator: Exists}]}}\n",
            "at '/workloadWebhook/objectSelector/matchExpressions/0/key'",
        ),
        (
            "admission: {objectSelector: {matchExpressions: [{key: a, operator: In, values: [\"-x\"]}]}}\n",
            "at '/admission/objectSelector/matchExpressions/0/values/0'",
        ),
        (
            "policy: {rules: [{name: a, namespaceSelector: {matchLabels: {team: \"a b\"}}}]}\n",
            "at '/policy/rules/0/namespaceSelector/matchLabels/team'",
        ),
        // The excluded namespaces are the values of a NotIn expression.
        ("admission: {excludedNamespaces: [\"Kube System\"]}\n", "at '/admission/excludedNamespaces/0'"),
        // The pods' selector labels are the chart's: the Deployment would not select its pods.
        (
            "podLabels: {app.kubernetes.io/name: other}\n",
            "podLabels: app.kubernetes.io/name: Forbidden: the Deployment, Service and PodDisruptionBudget select the pods by it; nameOverride sets it",
        ),
        (
            "podLabels: {app.kubernetes.io/instance: other}\n",
            "podLabels: app.kubernetes.io/instance: Forbidden: the Deployment, Service and PodDisruptionBudget select the pods by it; the release name sets it",
        ),
        ("admission: {mutating: {failurePolicy: Retry}}\n", "/admission/mutating/failurePolicy"),
        // Names kube-apiserver refuses: every object is named after them, the Service (a DNS-1035
        // label) too.
        ("nameOverride: Web_Hook\n", "at '/nameOverride': 'Web_Hook' does not match pattern"),
        ("fullnameOverride: 1webhook\n", "at '/fullnameOverride': '1webhook' does not match pattern"),
        ("fullnameOverride: hpa.webhook\n", "at '/fullnameOverride': 'hpa.webhook' does not match pattern"),
        // Labels and annotations of the objects as kube-apiserver's ValidateLabels and
        // ValidateAnnotations take them (kubernetes-validate checks neither: `helm install`
        // would fail on the Deployment, ServiceAccount or ServiceMonitor).
        (
            "certificates: {mode: certManager, certManager: {issuerRef: {kind: ClusterIssuer}}}\n",
            "missing property 'name'",
        ),
        (
            "certificates: {certManager: {issuerRef: {name: ca, kind: ExternalIssuer}}}\n",
            "/certificates/certManager/issuerRef/kind",
        ),
        ("podLabels: {\"bad key!\": x}\n", "- at '/podLabels': additional properties 'bad key!' not allowed"),
        ("podLabels: {team: \"platform team\"}\n", "at '/podLabels/team'"),
        ("nodeSelector: {kubernetes.io/os: \"linux os\"}\n", "at '/nodeSelector/kubernetes.io~1os'"),
        (
            "serviceMonitor: {enabled: true, labels: {example.com/a/b: x}}\n",
            "- at '/serviceMonitor/labels': additional properties 'example.com/a/b' not allowed",
        ),
        ("podAnnotations: {\"bad key\": x}\n", "- at '/podAnnotations': additional properties 'bad key' not allowed"),
        (
            "serviceAccount: {annotations: {/role: x}}\n",
            "- at '/serviceAccount/annotations': additional properties '/role' not allowed",
        ),
    ];
    // Four renders at a time (each is a Helm process that mostly waits).
    std::thread::scope(|scope| {
        let dir = dir.path();
        let workers: Vec<_> = rows
            .chunks(rows.len().div_ceil(4))
            .enumerate()
            .map(|(worker, part)| {
                scope.spawn(move || {
                    let file = dir.join(format!("values-{worker}.yaml"));
                    for (values, expected) in part {
                        std::fs::write(&file, values).unwrap();
                        let error = try_render(&[&file]).err().unwrap_or_else(|| panic!("{values} was accepted"));
                        assert!(error.contains(expected), "{values}: {error}");
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    // A release name Helm takes (a DNS-1123 subdomain) that makes no Service name.
    for release in ["1abc", "a.b"] {
        let error = try_render_as(release, "v1.37.0", &[]).err().unwrap_or_else(|| panic!("{release} was accepted"));
        let service = format!("{release}-hpa-webhook");
        assert!(
            error.contains(&format!(
                "Service \"{service}\" is invalid: metadata.name: Invalid value: \"{service}\": a DNS-1035 label must \
                 consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with \
                 an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is \
                 '[a-z]([-a-z0-9]*[a-z0-9])?'): the objects are named after the release \"{release}\"; set fullnameOverride"
            )),
            "{error}"
        );
    }
    std::fs::write(dir.path().join("values.yaml"), "fullnameOverride: hpa-webhook\n").unwrap();
    assert!(try_render_as("1abc", "v1.37.0", &[&dir.path().join("values.yaml")]).is_ok());
    // Their good sides render, and the binary takes what the Deployment passes it (every render
    // goes through `the_binary_takes`: its CLI and `hpa-webhook policy check`).
    std::fs::write(
        dir.path().join("values.yaml"),
        "server: {kubernetesVersion: \"1.34\", featureGates: \" HPAScaleToZero=True, PodLevelResources=0,\", reloadInterval: 500ms, logLevel: \"hpa_webhook=debug,INFO,hyper=,\"}\n",
    )
    .unwrap();
    let rendered = render(&[&dir.path().join("values.yaml")]);
    let container = &find(&rendered.objects, "Deployment", "hpa-webhook")["spec"]["template"]["spec"]["containers"][0];
    let (settings, _) = deployment_settings(container);
    assert_eq!(settings.reload_interval, std::time::Duration::from_millis(500));
    assert_eq!(settings.log_level.to_string(), "hpa_webhook=debug,INFO,hyper=,");
    assert!(settings.gates().is_ok());
    std::fs::write(
        dir.path().join("values.yaml"),
        "policy:\n  defaults: {behavior: {scaleUp: {tolerance: 0.1, policies: [{type: Pods, value: 2147483647, periodSeconds: 15}]}, scaleDown: {tolerance: \"50m\"}}}\n  rules:\n    - {name: ab, namespaces: [p], behavior: {scaleDown: {tolerance: \"+.5\"}}}\n    - {name: abc, namespaces: [q], behavior: {scaleDown: {tolerance: 1e-1}}}\n",
    )
    .unwrap();
    let rendered = render(&[&dir.path().join("values.yaml")]);
    let config_map = find(&rendered.objects, "ConfigMap", "hpa-webhook-policy");
    let policy = Policy::parse(config_map["data"]["policy.yaml"].as_str().unwrap()).unwrap();
    assert_eq!(policy.layers().count(), 3);
    // Selectors at the bounds of IsQualifiedName and IsValidLabelValue reach the webhook
    // configurations as written.
    let name_63 = &name_64[..63];
    let prefix_253 = &prefix_254[..253];
    let value_63 = "v".repeat(63);
    std::fs::write(
        dir.path().join("values.yaml"),
        format!(
            "admission:\n  excludedNamespaces: [a-1, {value_63}]\n  namespaceSelector:\n    matchLabels: {{{prefix_253}/{name_63}: {value_63}, a_b.C-1: \"\", example.com/x: A-b_c.1}}\n    matchExpressions: [{{key: {prefix_253}/x, operator: NotIn, values: [\"\", {value_63}]}}]\n  objectSelector: {{matchLabels: {{X: \"0\"}}}}\n"
        ),
    )
    .unwrap();
    let rendered = render(&[&dir.path().join("values.yaml")]);
    kubernetes_validate("selectors", &rendered.text);
    for (_, webhook) in webhooks(&rendered.objects) {
        let selector = &webhook["namespaceSelector"];
        assert_eq!(selector["matchLabels"][format!("{prefix_253}/{name_63}")], json!(value_63));
        assert_eq!(selector["matchLabels"]["a_b.C-1"], "");
        assert_eq!(selector["matchExpressions"][0]["values"], json!(["a-1", value_63, NAMESPACE]));
        assert_eq!(selector["matchExpressions"][1]["values"], json!(["", value_63]));
        assert_eq!(webhook["objectSelector"]["matchLabels"], json!({"X": "0"}));
    }
    // CIDRs kube-apiserver takes for an ipBlock (leading zeros, bits past the prefix, IPv6 with
    // an embedded IPv4 address, upper case) and peers it takes reach the NetworkPolicy as written.
    let cidrs = ["010.0.0.1/08", "2001:DB8::/32", "::ffff:10.0.0.0/104", "::/0", "1:2:3:4:5:6:1.2.3.4/128"];
    std::fs::write(
        dir.path().join("values.yaml"),
        format!(
            "contextCache: {{enabled: true}}\nnetworkPolicy:\n  enabled: true\n  ingressFrom: [{{ipBlock: {{cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}}}, {{namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: kube-system}}}}, podSelector: {{}}}}]\n  egress: {{enabled: true, apiServerCIDRs: {}}}\n",
            serde_json::to_string(&cidrs).unwrap()
        ),
    )
    .unwrap();
    let rendered = render(&[&dir.path().join("values.yaml")]);
    kubernetes_validate("network policy", &rendered.text);
    let policy = find(&rendered.objects, "NetworkPolicy", "hpa-webhook");
    let to: Vec<&str> = policy["spec"]["egress"][0]["to"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ipBlock"]["cidr"].as_str().unwrap())
        .collect();
    assert_eq!(to, cidrs);
    assert_eq!(policy["spec"]["ingress"][0]["from"][0]["ipBlock"]["except"], json!(["10.1.0.0/16"]));
    // Durations, quantities and periods at their bounds.
    std::fs::write(
        dir.path().join("values.yaml"),
        "certificates: {mode: certManager, certManager: {duration: 1h30m, renewBefore: 1h}}\nterminationGracePeriodSeconds: 26\nresources: {requests: {cpu: 1, memory: 1.5Gi}, limits: {cpu: \"+.5\", memory: 2e9}}\nserviceMonitor: {enabled: true, interval: 1m30s, scrapeTimeout: 1m30s}\n",
    )
    .unwrap();
    let rendered = render(&[&dir.path().join("values.yaml")]);
    kubernetes_validate("bounds", &rendered.text);
    // Labels and annotations kube-apiserver takes: an empty label value, a name part in upper
    // case, an annotation's prefix in any case (ValidateAnnotations lower-cases the key first).
    std::fs::write(
        dir.path().join("values.yaml"),
        "podLabels: {Team_1: \"\", example.com/tier: A-b_c.1}\nnodeSelector: {kubernetes.io/os: linux}\npodAnnotations: {Example.COM/Owner: \"any text: at all\"}\nserviceAccount: {annotations: {eks.amazonaws.com/role-arn: \"arn:aws:iam::1:role/x\"}}\nserviceMonitor: {enabled: true, labels: {release: kube-prometheus-stack}}\n",
    )
    .unwrap();
    let labelled = render(&[&dir.path().join("values.yaml")]);
    // An issuerRef by name alone is cert-manager's Issuer of that name in the release namespace.
    std::fs::write(
        dir.path().join("issuer.yaml"),
        "certificates: {mode: certManager, certManager: {issuerRef: {name: ca}}}\n",
    )
    .unwrap();
    let issued = render(&[&dir.path().join("issuer.yaml")]);
    assert_eq!(find(&issued.objects, "Certificate", "hpa-webhook")["spec"]["issuerRef"], json!({"name": "ca"}));
    assert_eq!(of_kind(&issued.objects, "Issuer").len(), 0, "no CA of the chart's own");
    kubernetes_validate("labels", &labelled.text);
    let pod = &find(&labelled.objects, "Deployment", "hpa-webhook")["spec"]["template"]["metadata"];
    assert_eq!(
        (&pod["labels"]["Team_1"], &pod["annotations"]["Example.COM/Owner"]),
        (&json!(""), &json!("any text: at all"))
    );
    let certificate = find(&rendered.objects, "Certificate", "hpa-webhook");
    assert_eq!(
        (&certificate["spec"]["duration"], &certificate["spec"]["renewBefore"]),
        (&json!("1h30m"), &json!("1h"))
    );
}

/// Values that render something that hurts the cluster or fails in Helm: a PodDisruptionBudget
/// that keeps every replica (no node drains) is left out and NOTES says why; a null
/// excludedNamespaces (Helm drops the key) leaves only the release namespace excluded;
/// matchCondition names are qualified names, so a prefixed one passes.
#[test]
fn values_that_would_hurt_the_cluster_render_safely() {
    if !helm_engine() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let with = |values: &str| {
        let file = dir.path().join("values.yaml");
        std::fs::write(&file, values).unwrap();
        try_render(&[&file]).unwrap_or_else(|e| panic!("{values}: {e}"))
    };
    for (values, pdb) in [
        ("replicaCount: 1\n", false),
        ("replicaCount: 2\npodDisruptionBudget: {minAvailable: 2}\n", false),
        ("replicaCount: 3\npodDisruptionBudget: {minAvailable: \"67%\"}\n", false),
        ("replicaCount: 3\npodDisruptionBudget: {minAvailable: \"66%\"}\n", true),
        ("replicaCount: 3\npodDisruptionBudget: {minAvailable: 2}\n", true),
    ] {
        let rendered = with(values);
        check_consistency(values, &rendered);
        assert_eq!(!of_kind(&rendered.objects, "PodDisruptionBudget").is_empty(), pdb, "{values}");
        assert_eq!(rendered.notes.contains("would keep every replica and\nblock every node drain"), !pdb, "{values}");
    }

    // podLabels replace a common label (written once) and add their own; the selectors still
    // select the pods (check_consistency).
    let rendered = with("podLabels: {app.kubernetes.io/component: webhook, team: platform}\n");
    check_consistency("podLabels", &rendered);
    let labels = &find(&rendered.objects, "Deployment", "hpa-webhook")["spec"]["template"]["metadata"]["labels"];
    assert_eq!((&labels["app.kubernetes.io/component"], &labels["team"]), (&json!("webhook"), &json!("platform")));
    assert_eq!(rendered.text.matches("app.kubernetes.io/component: webhook").count(), 1, "{}", rendered.text);

    let rendered = with("admission: {excludedNamespaces: null}\n");
    for (_, webhook) in webhooks(&rendered.objects) {
        assert_eq!(webhook["namespaceSelector"]["matchExpressions"][0]["values"], json!([NAMESPACE]));
    }
    assert!(rendered.notes.contains(&format!("in every namespace but {NAMESPACE} now")), "{}", rendered.notes);

    let rendered = with(
        "admission: {matchConditions: [{name: example.com/not-dry-run, expression: \"true\"}, {name: Plain_1.x, expression: \"true\"}]}\n",
    );
    let webhook = &find(&rendered.objects, "ValidatingWebhookConfiguration", "hpa-webhook")["webhooks"][0];
    assert_eq!(webhook["matchConditions"][0]["name"], "example.com/not-dry-run");
    assert_eq!(webhook["matchConditions"][1]["name"], "Plain_1.x");
    kubernetes_validate("matchConditions", &rendered.text);
}

/// Every selector among the values is the one `labelSelector` definition (metav1's
/// ValidateLabelSelector rules written once): no inline copy without them.
#[test]
fn every_selector_is_the_label_selector_definition() {
    fn walk(at: &str, schema: &Value, selectors: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                if at != "/definitions/labelSelector"
                    && map.get("properties").is_some_and(|p| p.get("matchExpressions").is_some())
                {
                    panic!("{at}: an inline label selector; use {{\"$ref\": \"#/definitions/labelSelector\"}}");
                }
                if map.get("$ref").is_some_and(|r| r == "#/definitions/labelSelector") {
                    selectors.push(at.to_string());
                }
                for (key, value) in map {
                    walk(&format!("{at}/{key}"), value, selectors);
                }
            }
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| walk(&format!("{at}/{i}"), v, selectors)),
            _ => {}
        }
    }
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap()).unwrap();
    // Keys are checked as matchLabels' properties, so that Helm's engine names the selector a
    // bad key is in: the pattern is the qualifiedName definition's, and the prefix bound (which
    // a pattern property cannot hold too) stays with propertyNames.
    let match_labels = &schema["definitions"]["labelSelector"]["properties"]["matchLabels"];
    let qualified = &schema["definitions"]["qualifiedName"];
    let keys: Vec<&String> = match_labels["patternProperties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, [qualified["pattern"].as_str().unwrap()]);
    assert_eq!(match_labels["additionalProperties"], json!(false));
    assert_eq!(match_labels["propertyNames"]["not"], qualified["not"]);
    let mut selectors = Vec::new();
    walk("", &schema, &mut selectors);
    selectors.sort();
    assert_eq!(
        selectors,
        [
            "/definitions/networkPolicyPeer/properties/namespaceSelector",
            "/definitions/networkPolicyPeer/properties/podSelector",
            "/properties/admission/properties/namespaceSelector",
            "/properties/admission/properties/objectSelector",
            "/properties/policy/properties/rules/items/properties/namespaceSelector",
            "/properties/workloadWebhook/properties/namespaceSelector",
            "/properties/workloadWebhook/properties/objectSelector",
        ]
    );
}

/// The schema's closed lists are the binary's: every release it models, every gate it knows.
#[test]
fn the_schema_lists_the_releases_and_gates_of_the_binary() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap()).unwrap();
    let server = &schema["properties"]["server"]["properties"];
    let mut releases = vec![String::new()];
    releases.extend(hpa_core::features::KubernetesVersion::ALL.iter().map(ToString::to_string));
    assert_eq!(server["kubernetesVersion"]["enum"], json!(releases));
    // The gates are checked by the templates (`featureGateTable`, below), in the server's words;
    // a schema pattern would refuse first, naming neither the pair nor the gates.
    let gates = &server["featureGates"];
    assert_eq!(gates.get("pattern"), None);
    let description = gates["description"].as_str().unwrap();
    for gate in hpa_core::features::Gate::ALL {
        assert!(description.contains(gate.name()), "{}: {description}", gate.name());
    }
}

/// The feature gate table of `_helpers.tpl` (what each release knows and locks) is hpa-core's,
/// `Gate::spec` per release: the chart refuses what `FeatureGates::apply` would refuse.
#[test]
fn the_chart_knows_the_gates_of_every_release() {
    use hpa_core::features::{Gate, KubernetesVersion};
    let helpers = std::fs::read_to_string(chart().join("templates/_helpers.tpl")).unwrap();
    let start = helpers.find("{{- define \"hpa-webhook.featureGateTable\" -}}").unwrap();
    let body = &helpers[start..];
    let body = &body[body.find("-}}").unwrap() + 3..body.find("{{- end }}").unwrap()];
    let table: Value = serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    let expected: serde_json::Map<String, Value> = Gate::ALL
        .iter()
        .map(|gate| {
            let per_release: serde_json::Map<String, Value> = KubernetesVersion::ALL
                .iter()
                .map(|v| {
                    let state = match gate.spec(*v) {
                        None => "absent".to_string(),
                        Some(spec) if spec.locked => format!("locked:{}", spec.default),
                        Some(_) => "open".to_string(),
                    };
                    (v.minor().to_string(), json!(state))
                })
                .collect();
            (gate.name().to_string(), Value::Object(per_release))
        })
        .collect();
    let expected = Value::Object(expected);
    assert_eq!(table, expected, "_helpers.tpl featureGateTable: {}", serde_json::to_string(&expected).unwrap());
}

/// `HPA_WEBHOOK_RELOAD_INTERVAL=0 hpa-webhook serve` panicked in tokio's interval; every period
/// and deadline of `serve` is refused at zero, with the flag named and exit status 2.
#[test]
fn the_binary_refuses_zero_periods() {
    for (variable, value) in [
        ("HPA_WEBHOOK_RELOAD_INTERVAL", "0"),
        ("HPA_WEBHOOK_RELOAD_INTERVAL", "0s"),
        ("HPA_WEBHOOK_CONTEXT_RECHECK_INTERVAL", "0m"),
        ("HPA_WEBHOOK_REQUEST_TIMEOUT", "0ms"),
        ("HPA_WEBHOOK_RELOAD_INTERVAL", "-1s"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_hpa-webhook")).arg("serve").env(variable, value).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let flag = variable.trim_start_matches("HPA_WEBHOOK_").to_lowercase().replace('_', "-");
        assert_eq!(out.status.code(), Some(2), "{variable}={value}: {stderr}");
        assert!(stderr.contains(&format!("--{flag}")) && !stderr.contains("panicked"), "{variable}={value}: {stderr}");
        let reason = if value.starts_with('-') { "must not be negative" } else { "must be greater than zero" };
        assert!(stderr.contains(reason), "{variable}={value}: {stderr}");
    }
}

/// An empty server.kubernetesVersion is the cluster's release: the oldest and newest the binary
/// models, a newer cluster clamped to the newest (said in NOTES), an older one refused; a value
/// set wins over the cluster's.
#[test]
fn the_release_defaults_to_the_clusters() {
    let chart_yaml = &yaml_documents(&std::fs::read_to_string(chart().join("Chart.yaml")).unwrap())[0];
    use hpa_core::features::KubernetesVersion;
    let (oldest, newest) = (KubernetesVersion::ALL[0], KubernetesVersion::ALL[KubernetesVersion::ALL.len() - 1]);
    assert_eq!(chart_yaml["kubeVersion"], format!(">={oldest}.0-0"), "Chart.yaml kubeVersion");
    if !helm_engine() {
        return;
    }
    let release_of = |render: &Render| {
        let deployment = of_kind(&render.objects, "Deployment")[0];
        let (settings, _) = deployment_settings(&deployment["spec"]["template"]["spec"]["containers"][0]);
        settings.kubernetes_version
    };
    let newer = "applies the rules of Kubernetes";
    for (cluster, expected) in [
        (format!("v{oldest}.2"), oldest),
        (format!("v{newest}.0"), newest),
        (format!("v1.{}.1", newest.minor() + 2), newest),
    ] {
        let rendered = try_render_on(&cluster, &[]).unwrap_or_else(|e| panic!("{cluster}: {e}"));
        assert_eq!(release_of(&rendered), expected, "{cluster}");
        let clamped = format!("{expected}") != cluster[1..].rsplit_once('.').unwrap().0;
        assert_eq!(rendered.notes.contains(newer), clamped, "{cluster}: {}", rendered.notes);
        assert_eq!(
            rendered.notes.contains("modelled as a preview"),
            expected == KubernetesVersion::PREVIEW,
            "{cluster}"
        );
    }
    let older = format!("v1.{}.0", oldest.minor() - 1);
    let error = try_render_on(&older, &[]).err().unwrap_or_else(|| panic!("{older} was accepted"));
    assert!(
        error.contains(&format!("the cluster runs Kubernetes {older}: hpa-webhook supports {oldest} to {newest}")),
        "{error}"
    );
    // A value set is the release, whatever the cluster runs.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    std::fs::write(&file, "server: {kubernetesVersion: \"1.34\"}\n").unwrap();
    let rendered = try_render_on(&format!("v1.{}.0", newest.minor() + 1), &[&file]).unwrap();
    assert_eq!(release_of(&rendered), KubernetesVersion::V1_34);
    assert!(!rendered.notes.contains(newer));
}

/// Every release the binary models, as the cluster's (`--kube-version`) and as
/// `server.kubernetesVersion`: the default values and the fully loaded file render, pass
/// `kubernetes-validate --strict` with that release's schemas (1.37's for the 1.38 preview) and
/// lint clean, and the Deployment passes the release on.
#[test]
fn every_release_renders_validates_and_lints_clean() {
    if !helm_engine() {
        return;
    }
    use hpa_core::features::KubernetesVersion;
    let everything = chart().join("ci/everything-values.yaml");
    let dir = tempfile::tempdir().unwrap();
    for release in KubernetesVersion::ALL {
        let schemas = match release {
            KubernetesVersion::PREVIEW => "1.37.0".to_string(),
            release => format!("{release}.0"),
        };
        let cluster = format!("v{release}.0");
        let set = dir.path().join(format!("{release}.yaml"));
        std::fs::write(&set, format!("server: {{kubernetesVersion: \"{release}\"}}\n")).unwrap();
        for (name, values) in
            [("default", vec![]), ("everything", vec![everything.as_path()]), ("set", vec![set.as_path()])]
        {
            let rendered = try_render_on(&cluster, &values).unwrap_or_else(|e| panic!("{name} on {cluster}: {e}"));
            let what = format!("{name}-{release}");
            kubernetes_validate_with(&what, &rendered.text, &schemas);
            hpa_lint_clean(&what, &rendered.text);
            let deployment = of_kind(&rendered.objects, "Deployment")[0];
            let (settings, _) = deployment_settings(&deployment["spec"]["template"]["spec"]["containers"][0]);
            // everything-values.yaml sets 1.36, which wins over the cluster's.
            let expected = if name == "everything" { KubernetesVersion::V1_36 } else { release };
            assert_eq!(settings.kubernetes_version, expected, "{what}");
        }
    }
}

/// The `rule` pattern of values.schema.json (`denyRules` and `lintConfig.rules`): every rule
/// hpa-core has but HPA000, by ID in any case (as `hpa_core::rules::find` matches it) or by name.
fn rule_pattern() -> String {
    let rules = || hpa_core::rules::ALL.iter().map(|r| r.meta()).filter(|m| m.id != hpa_core::rules::INVALID.id);
    let mut ids: Vec<&str> = rules().map(|m| m.id.trim_start_matches("HPA")).collect();
    let mut names: Vec<&str> = rules().map(|m| m.name).collect();
    ids.sort_unstable();
    names.sort_unstable();
    format!("^([Hh][Pp][Aa]({})|{})$", ids.join("|"), names.join("|"))
}

#[test]
fn the_schema_accepts_every_policy_the_server_accepts() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap()).unwrap();
    assert_eq!(schema["definitions"]["rule"]["pattern"], rule_pattern(), "values.schema.json lists hpa-core's rules");
    assert_eq!(schema["definitions"]["denyRules"]["items"], json!({"$ref": "#/definitions/rule"}));
    if !helm_engine() {
        return;
    }
    // The example policy of the tests, with denyRules in defaults and in a rule: every rule by
    // name and by its ID in lower case, and IDs in upper case.
    let example = std::fs::read_to_string(workspace().join("webhook/tests/data/policy-example.yaml")).unwrap();
    let mut policy = yaml_documents(&example).remove(0);
    let all: Vec<String> = hpa_core::rules::ALL
        .iter()
        .map(|r| r.meta())
        .filter(|m| m.id != hpa_core::rules::INVALID.id)
        .flat_map(|m| [m.id.to_lowercase(), m.name.to_string()])
        .collect();
    policy["defaults"]["denyRules"] = json!(all);
    policy["rules"][1]["denyRules"] = json!(["HPA201", "workload-sets-replicas"]);
    policy["rules"][2]["denyRules"] = json!([]);
    let expected = Policy::parse(&serde_json::to_string(&policy).unwrap()).unwrap();
    assert!(expected.denies_rules());
    let values = policy.as_object().unwrap().iter().filter(|(k, _)| *k != "apiVersion" && *k != "kind");
    let values = json!({"policy": values.map(|(k, v)| (k.clone(), v.clone())).collect::<serde_json::Map<_, _>>()});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    std::fs::write(&file, serde_json::to_string(&values).unwrap()).unwrap();
    let rendered =
        try_render(&[&file]).unwrap_or_else(|e| panic!("the schema refuses a policy the server accepts: {e}"));
    let config_map = find(&rendered.objects, "ConfigMap", "hpa-webhook-policy");
    assert_eq!(Policy::parse(config_map["data"]["policy.yaml"].as_str().unwrap()).unwrap(), expected);
}

#[test]
fn the_default_render_matches_the_kustomize_self_signed_overlay() {
    if !helm_engine() || !tool("kubectl", &["version", "--client"]) {
        return;
    }
    let chart = render(&[]).objects;
    let (kustomize, _) = render_self_signed_overlay();
    let kustomize: Vec<Value> = yaml_documents(&kustomize).into_iter().filter(|o| o.is_object()).collect();

    // Same kinds and names. The Namespace stays with `helm install --create-namespace` (a chart
    // does not own its release namespace).
    let ours: BTreeSet<String> = kind_names(&chart).into_iter().collect();
    let theirs: BTreeSet<String> =
        kind_names(&kustomize).into_iter().filter(|k| !k.starts_with("Namespace/")).collect();
    let only_in_chart: BTreeSet<&String> = ours.difference(&theirs).collect();
    assert!(theirs.is_subset(&ours), "missing from the chart: {:?}", theirs.difference(&ours).collect::<Vec<_>>());
    assert!(only_in_chart.is_empty(), "only in the chart: {only_in_chart:?}");

    // Same webhooks: names, rules, selectors, policies, paths, timeouts.
    let webhook_of = |objects: &[Value]| -> BTreeMap<String, Value> {
        webhooks(objects)
            .into_iter()
            .map(|(configuration, w)| {
                let mut w = w.clone();
                w["clientConfig"].as_object_mut().unwrap().remove("caBundle");
                (format!("{}/{}", configuration["kind"].as_str().unwrap(), w["name"].as_str().unwrap()), w)
            })
            .collect()
    };
    assert_eq!(webhook_of(&chart), webhook_of(&kustomize));
    // The workload webhook: the chart's with workloadWebhook.enabled is the kustomize component's.
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.yaml");
    std::fs::write(&values, "workloadWebhook: {enabled: true}\n").unwrap();
    let with_chart = render(&[&values]).objects;
    let with_kustomize: Vec<Value> =
        yaml_documents(&render_self_signed_overlay_with(true).0).into_iter().filter(|o| o.is_object()).collect();
    assert_eq!(webhook_of(&with_chart), webhook_of(&with_kustomize));

    // Same RBAC, same ServiceAccount token setting.
    for kind in ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"] {
        for theirs in of_kind(&kustomize, kind) {
            let ours = find(&chart, kind, theirs["metadata"]["name"].as_str().unwrap());
            for field in ["rules", "roleRef", "subjects"] {
                assert_eq!(ours.get(field), theirs.get(field), "{kind} {field}");
            }
        }
    }
    let pod = |objects: &[Value]| find(objects, "Deployment", "hpa-webhook")["spec"]["template"]["spec"].clone();
    let (ours, theirs) = (pod(&chart), pod(&kustomize));
    assert_eq!(ours["automountServiceAccountToken"], theirs["automountServiceAccountToken"]);
    assert_eq!(find(&kustomize, "ClusterRole", "hpa-webhook")["rules"], context_cache_rules());

    // The same Deployment, but for labels: replicas, strategy, container, volumes, spread keys.
    let deployment = |objects: &[Value]| find(objects, "Deployment", "hpa-webhook").clone();
    let (d_ours, d_theirs) = (deployment(&chart), deployment(&kustomize));
    for field in ["replicas", "strategy", "revisionHistoryLimit"] {
        assert_eq!(d_ours["spec"][field], d_theirs["spec"][field], "Deployment spec.{field}");
    }
    for field in ["securityContext", "terminationGracePeriodSeconds", "serviceAccountName"] {
        assert_eq!(ours[field], theirs[field], "pod {field}");
    }
    let container = |spec: &Value| {
        let mut c = spec["containers"][0].clone();
        // Environment as a map: the chart also sets variables the base leaves at their defaults.
        let env: BTreeMap<String, Value> = c["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["name"].as_str().unwrap().to_string(), e["value"].clone()))
            .collect();
        c["env"] = serde_json::to_value(env).unwrap();
        c
    };
    let (c_ours, c_theirs) = (container(&ours), container(&theirs));
    for field in [
        "name",
        "image",
        "args",
        "ports",
        "readinessProbe",
        "livenessProbe",
        "resources",
        "securityContext",
        "volumeMounts",
    ] {
        assert_eq!(c_ours[field], c_theirs[field], "container {field}");
    }
    for (variable, value) in c_theirs["env"].as_object().unwrap() {
        assert_eq!(&c_ours["env"][variable], value, "container env {variable}");
    }
    let defaults = crate::support::serve_args(&[]);
    for (variable, value) in c_ours["env"].as_object().unwrap() {
        if c_theirs["env"].get(variable).is_none() {
            // Only variables set to the binary's own defaults are added.
            let (settings, _) = deployment_settings(&json!({"env": [{"name": variable, "value": value}]}));
            assert_eq!(
                format!("{settings:?}"),
                format!("{defaults:?}"),
                "{variable}={value} is not the binary's default"
            );
        }
    }
    assert_eq!(ours["volumes"], theirs["volumes"]);
    let keys = |spec: &Value| {
        spec["topologySpreadConstraints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["topologyKey"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&ours), keys(&theirs));

    // The same Service ports, PDB budget and Secret keys.
    let service = |objects: &[Value]| find(objects, "Service", "hpa-webhook")["spec"]["ports"].clone();
    assert_eq!(service(&chart), service(&kustomize));
    // The whole budget but its selector (the chart's also selects by release): a pod that runs
    // but is not ready may always be evicted (`unhealthyPodEvictionPolicy: AlwaysAllow`), or a
    // webhook whose pods are all unready (a certificate that does not load) would block every
    // node drain, as the disruption controller's default (IfHealthyBudget) lets such a pod go
    // only while the budget holds.
    let pdb = |objects: &[Value]| {
        let mut spec = find(objects, "PodDisruptionBudget", "hpa-webhook")["spec"].clone();
        spec.as_object_mut().unwrap().remove("selector");
        spec
    };
    assert_eq!(pdb(&chart), json!({"minAvailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow"}));
    assert_eq!(pdb(&chart), pdb(&kustomize));
    let secret = |objects: &[Value]| {
        let s = find(objects, "Secret", "hpa-webhook-tls");
        (s["type"].clone(), s["data"].as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>())
    };
    assert_eq!(secret(&chart), secret(&kustomize));
    // The same policy ConfigMap: its keys, and what the server reads from them (the policy as
    // `Policy::parse` reads it, the lint configuration as `hpa_config::parse` does).
    let config = |objects: &[Value]| find(objects, "ConfigMap", "hpa-webhook-policy")["data"].clone();
    let (ours, theirs) = (config(&chart), config(&kustomize));
    let keys = |data: &Value| data.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(keys(&ours), keys(&theirs));
    let policy = |data: &Value| Policy::parse(data["policy.yaml"].as_str().unwrap()).unwrap();
    assert_eq!(policy(&ours), policy(&theirs));
    let lint = |data: &Value| {
        let config = hpa_config::parse("lint-config.yaml", data["lint-config.yaml"].as_str().unwrap()).unwrap();
        (config.levels, format!("{:?}", config.file))
    };
    assert_eq!(lint(&ours), lint(&theirs));
}

#[tokio::test]
async fn the_certificate_helm_generates_is_served_and_trusted_by_the_ca_bundle() {
    if !helm_engine() {
        return;
    }
    let rendered = render(&[]);
    let secret = find(&rendered.objects, "Secret", "hpa-webhook-tls");
    let decode =
        |key: &str| base64::engine::general_purpose::STANDARD.decode(secret["data"][key].as_str().unwrap()).unwrap();
    let (cert, key, ca) = (decode("tls.crt"), decode("tls.key"), decode("ca.crt"));

    // Valid for 365 days (values: certificates.selfSigned.certValidityDays), as NOTES.txt says.
    let der = {
        use rustls::pki_types::pem::PemObject as _;
        rustls::pki_types::CertificateDer::from_pem_slice(&cert).unwrap().to_vec()
    };
    let not_after = hpa_webhook::tls::not_after(&der).unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((not_after - now - 365 * 86_400).abs() < 3 * 86_400, "not after {not_after}, now {now}");
    assert!(
        rendered.notes.contains("365 days")
            && rendered.notes.contains("kubectl -n hpa-webhook delete secret hpa-webhook-tls")
    );

    // The real server loads the pair; a client trusting only the caBundle of the webhook
    // configurations verifies it for the Service's name, as kube-apiserver does.
    let certs = Certs::new();
    let server = Server::start(&certs, &[]).await;
    std::fs::write(certs.key_path(), &key).unwrap();
    std::fs::write(certs.cert_path(), &cert).unwrap();
    let bundle = find(&rendered.objects, "ValidatingWebhookConfiguration", "hpa-webhook")["webhooks"][0]["clientConfig"]["caBundle"]
        .as_str()
        .unwrap()
        .to_string();
    let bundle = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(bundle).unwrap()).unwrap();
    assert_eq!(bundle.as_bytes(), ca.as_slice());
    let client = Client::trusting(&bundle);
    let deadline = Deadline::within(std::time::Duration::from_secs(10));
    let served = loop {
        match client.tls_for(server.addr, "hpa-webhook.hpa-webhook.svc").await {
            Ok(stream) => break stream.get_ref().1.peer_certificates().unwrap()[0].to_vec(),
            Err(e) => deadline.tick(format!("the Helm certificate was never served: {e}")).await,
        }
    };
    assert_eq!(served, der);
    server.stop().await;
}

/// selfSigned mode through `helm upgrade`, rendered against a cluster (`lookup` reads the test API
/// server): an upgrade keeps the Secret and the caBundle; once the Secret is deleted (the
/// rotation NOTES.txt gives), the upgrade makes a new CA and certificate, and the webhook
/// configurations trust the old CA and the new one, so a client trusting the caBundle (as
/// kube-apiserver does) accepts what the pods serve before and after they load the new files;
/// the next upgrade, which keeps the new Secret, trusts the new CA alone.
// Multi-threaded: the renders block their thread while Helm's engine calls the test API server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_signed_upgrades_keep_the_certificate_and_rotate_without_a_gap() {
    if !helm_engine() {
        return;
    }
    let cluster = hpa_tests::apiserver::TestApiServer::start().await;
    cluster.install("secrets");
    cluster.install("validatingwebhookconfigurations");
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = cluster.write_kubeconfig(dir.path());
    // The test API server's release is not the chart's concern here: name one.
    let values = dir.path().join("values.yaml");
    std::fs::write(&values, "server: {kubernetesVersion: \"1.37\"}\n").unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let secret = |r: &Render| find(&r.objects, "Secret", "hpa-webhook-tls").clone();
    let pem = |r: &Render, key: &str| {
        String::from_utf8(b64.decode(secret(r)["data"][key].as_str().unwrap()).unwrap()).unwrap()
    };
    // The caBundle of every webhook, which must be one.
    let bundle = |r: &Render| {
        let bundles: BTreeSet<String> = webhooks(&r.objects)
            .iter()
            .map(|(_, w)| w["clientConfig"]["caBundle"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(bundles.len(), 1, "{bundles:?}");
        String::from_utf8(b64.decode(bundles.first().unwrap()).unwrap()).unwrap()
    };
    // What Helm wrote: the Secret and the ValidatingWebhookConfiguration the chart looks up.
    let store = |r: &Render| {
        let configuration = find(&r.objects, "ValidatingWebhookConfiguration", "hpa-webhook").clone();
        cluster.apply_as(&[secret(r), configuration], "helm", "Update");
    };

    let installed = render(&[&values]);
    assert_eq!(bundle(&installed), pem(&installed, "ca.crt"));
    store(&installed);
    // An upgrade keeps the certificate, its key and the CA the webhook configurations trust.
    let upgraded = render_upgrade(&kubeconfig, &[&values]);
    assert_eq!(secret(&upgraded)["data"], secret(&installed)["data"]);
    assert_eq!(bundle(&upgraded), pem(&installed, "ca.crt"));

    // The rotation: a new pair, and both CAs trusted.
    assert!(cluster.delete("", "secrets", NAMESPACE, "hpa-webhook-tls"));
    let rotated = render_upgrade(&kubeconfig, &[&values]);
    let (old_ca, new_ca) = (pem(&installed, "ca.crt"), pem(&rotated, "ca.crt"));
    assert_ne!(old_ca, new_ca);
    assert_ne!(pem(&rotated, "tls.key"), pem(&installed, "tls.key"));
    assert_eq!(bundle(&rotated), format!("{}\n{}\n", old_ca.trim(), new_ca.trim()));
    assert!(
        rotated.notes.contains("the webhook configurations trust the old CA and\nthe new one"),
        "{}",
        rotated.notes
    );

    // The pods serve the old certificate, then load the new files: every handshake of a client
    // trusting the rotated caBundle succeeds, for the Service's name.
    let certs = Certs::new();
    let server = Server::start(&certs, &[]).await;
    std::fs::write(certs.key_path(), pem(&installed, "tls.key")).unwrap();
    std::fs::write(certs.cert_path(), pem(&installed, "tls.crt")).unwrap();
    let client = Client::trusting(&bundle(&rotated));
    let der = |r: &Render| {
        use rustls::pki_types::pem::PemObject as _;
        rustls::pki_types::CertificateDer::from_pem_slice(pem(r, "tls.crt").as_bytes()).unwrap().to_vec()
    };
    let served = |stream: &tokio_rustls::client::TlsStream<tokio::net::TcpStream>| {
        stream.get_ref().1.peer_certificates().unwrap()[0].to_vec()
    };
    let name = "hpa-webhook.hpa-webhook.svc";
    let deadline = Deadline::within(std::time::Duration::from_secs(10));
    loop {
        match client.tls_for(server.addr, name).await {
            Ok(stream) => break assert_eq!(served(&stream), der(&installed)),
            Err(e) => deadline.tick(format!("the old certificate was never served: {e}")).await,
        }
    }
    write_atomically(&certs.key_path(), pem(&rotated, "tls.key").as_bytes());
    write_atomically(&certs.cert_path(), pem(&rotated, "tls.crt").as_bytes());
    let deadline = Deadline::within(std::time::Duration::from_secs(10));
    loop {
        let stream = client.tls_for(server.addr, name).await.unwrap_or_else(|e| panic!("during the reload: {e}"));
        if served(&stream) == der(&rotated) {
            break;
        }
        deadline.tick("the new certificate was never served").await;
    }
    server.stop().await;

    // The next upgrade keeps the new Secret and trusts its CA alone.
    store(&rotated);
    let next = render_upgrade(&kubeconfig, &[&values]);
    assert_eq!(secret(&next)["data"], secret(&rotated)["data"]);
    assert_eq!(bundle(&next), new_ca);
}

/// Secret mode: moving to a certificate from another CA as NOTES.txt and the README say (a
/// caBundle with both CAs, then the Secret swapped, then the new CA alone) keeps every handshake
/// of a client trusting the rendered caBundle, as kube-apiserver does, succeeding; the new CA
/// alone first fails it (and the validating webhook fails closed).
#[tokio::test]
async fn the_secret_mode_rotation_keeps_the_webhook_trusted() {
    if !helm_engine() {
        return;
    }
    let old = Certs::new();
    old.write();
    let server = Server::start(&old, &[]).await;
    let new_ca = Authority::new(1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    // The caBundle the webhook configurations carry with these CAs in the values, and NOTES.
    let render_with = |cas: &[String]| {
        let bundle = base64::engine::general_purpose::STANDARD.encode(cas.concat());
        std::fs::write(
            &file,
            format!("certificates: {{mode: secret, secret: {{name: my-tls, caBundle: {bundle}}}}}\n"),
        )
        .unwrap();
        let rendered = render(&[&file]);
        check_consistency("secret rotation", &rendered);
        let webhook = &find(&rendered.objects, "ValidatingWebhookConfiguration", "hpa-webhook")["webhooks"][0];
        let pem =
            base64::engine::general_purpose::STANDARD.decode(webhook["clientConfig"]["caBundle"].as_str().unwrap());
        (String::from_utf8(pem.unwrap()).unwrap(), rendered.notes)
    };

    // The order NOTES.txt gave before: the new CA alone while the pods serve the old certificate.
    let (new_only, notes) = render_with(&[new_ca.ca_pem()]);
    assert!(
        Client::trusting(&new_only).tls(server.addr).await.is_err(),
        "the old certificate is trusted by the new CA"
    );
    let steps = [
        "1. helm upgrade with certificates.secret.caBundle holding both CAs",
        "2. replace Secret my-tls with the new certificate and key",
        "3. helm upgrade with the new CA alone.",
    ];
    let at: Vec<usize> =
        steps.iter().map(|step| notes.find(step).unwrap_or_else(|| panic!("NOTES.txt: {step:?}\n{notes}"))).collect();
    assert!(at.is_sorted(), "{notes}");

    // 1. Both CAs: the old certificate is trusted.
    let (both, _) = render_with(&[old.ca.ca_pem(), new_ca.ca_pem()]);
    let client = Client::trusting(&both);
    client.tls(server.addr).await.unwrap();
    // 2. The Secret swapped: every handshake until the pods serve the new certificate succeeds.
    let issued = new_ca.issue(&["127.0.0.1".into(), "localhost".into()], 1).unwrap();
    write_atomically(&old.key_path(), issued.key_pem.as_bytes());
    write_atomically(&old.cert_path(), issued.cert_pem.as_bytes());
    let new_der = {
        use rustls::pki_types::pem::PemObject as _;
        rustls::pki_types::CertificateDer::from_pem_slice(issued.cert_pem.as_bytes()).unwrap().to_vec()
    };
    let deadline = Deadline::within(std::time::Duration::from_secs(10));
    loop {
        let stream =
            client.tls(server.addr).await.unwrap_or_else(|e| panic!("a handshake failed during the swap: {e}"));
        if stream.get_ref().1.peer_certificates().unwrap()[0].as_ref() == new_der.as_slice() {
            break;
        }
        deadline.tick("the new certificate was never served").await;
    }
    // 3. The new CA alone trusts what is served now.
    Client::trusting(&new_only).tls(server.addr).await.unwrap();
    server.stop().await;
}

/// The longest release name Helm takes (53 characters) in cert-manager mode: the fullname is
/// cut at 63 characters, so the CA's `<fullname>-ca` would be 66, and cert-manager's
/// ValidateCertificateSpec refuses a commonName over 64 (`internal/apis/certmanager/validation`).
#[test]
fn a_long_release_name_renders_certificates_cert_manager_takes() {
    if !helm_engine() {
        return;
    }
    let release = "payments-platform-admission-controller-prod-euwest1-x";
    assert_eq!(release.len(), 53);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    std::fs::write(&file, "certificates: {mode: certManager}\n").unwrap();
    let rendered = try_render_as(release, "v1.37.0", &[&file]).unwrap_or_else(|e| panic!("{release}: {e}"));
    check_consistency(release, &rendered);
    kubernetes_validate(release, &rendered.text);
    let fullname = "payments-platform-admission-controller-prod-euwest1-x-hpa-webho";
    assert_eq!(of_kind(&rendered.objects, "Deployment")[0]["metadata"]["name"], fullname);
    let ca = find(&rendered.objects, "Certificate", &format!("{fullname}-ca"));
    assert_eq!(ca["spec"]["commonName"], "payments-platform-admission-controller-prod-euwest1-x-hpa-web-ca");
    for certificate in of_kind(&rendered.objects, "Certificate") {
        let common_name = certificate["spec"]["commonName"].as_str().unwrap_or_default();
        assert!(common_name.len() <= 64, "{common_name:?} is {} characters", common_name.len());
    }
}

/// `lintConfig` is the lint configuration the server runs the rules with, in `.hpa-lint.yaml`'s
/// format (YAML 1.1's `off` included); the schema refuses what the webhook does not use.
#[test]
fn the_lint_config_value_is_the_servers_lint_configuration() {
    if !helm_engine() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    std::fs::write(
        &file,
        "lintConfig:\n  rules:\n    min-replicas-equals-max: off\n    HPA102: warning\n  settings:\n    maxReplicasLimit: 50\n",
    )
    .unwrap();
    let rendered = render(&[&file]);
    let config_map = find(&rendered.objects, "ConfigMap", "hpa-webhook-policy");
    let config =
        hpa_config::parse("lint-config.yaml", config_map["data"]["lint-config.yaml"].as_str().unwrap()).unwrap();
    assert_eq!(config.levels["HPA101"], hpa_core::check::RuleLevel::Off);
    assert_eq!(config.levels["HPA102"], hpa_core::check::RuleLevel::At(hpa_core::rules::Severity::Warning));
    assert_eq!(config.file.settings.max_replicas_limit, Some(50));
    // The server reads it: the Deployment points at the file in the mounted ConfigMap.
    let deployment = of_kind(&rendered.objects, "Deployment")[0];
    let (settings, _) = pod_matches_the_binary("lintConfig", &deployment["spec"]["template"]["spec"]);
    assert!(settings.lint_config.is_some());
    // The release and the gates are the server's flags: the schema refuses them here, and a
    // severity that is none.
    for values in ["lintConfig: {kubernetesVersion: '1.34'}\n", "lintConfig: {rules: {HPA101: loud}}\n"] {
        std::fs::write(&file, values).unwrap();
        assert!(try_render(&[&file]).is_err(), "{values}");
    }
}

/// `lintConfig.rules` names hpa-core's rules as the server's reader (`hpa_config::parse`) finds
/// them, and HPA000 never off: a typo or `HPA000: off` fails `helm install` instead of a server
/// that refuses its configuration at start behind a webhook that fails closed. Every name, ID
/// and level the schema takes, the server takes (`the_binary_takes`, on every render).
#[test]
fn the_schema_takes_the_lint_configs_the_server_takes() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap()).unwrap();
    let rules = &schema["properties"]["lintConfig"]["properties"]["rules"];
    let invalid = hpa_core::rules::INVALID;
    let invalid_pattern = format!("^([Hh][Pp][Aa]{}|{})$", invalid.id.trim_start_matches("HPA"), invalid.name);
    // The keys are checked by the templates (`ruleTable`, hpa-core's registry), which name the
    // key and list the rules; a schema propertyNames error said `at ''` and a pattern.
    assert_eq!(rules.get("propertyNames"), None);
    let helpers = std::fs::read_to_string(chart().join("templates/_helpers.tpl")).unwrap();
    let start = helpers.find("{{- define \"hpa-webhook.ruleTable\" -}}").unwrap();
    let body = &helpers[start..];
    let body = &body[body.find("-}}").unwrap() + 3..body.find("{{- end }}").unwrap()];
    let table: Value = serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    let registry: serde_json::Map<String, Value> =
        hpa_core::rules::ALL.iter().map(|r| (r.meta().id.to_string(), json!(r.meta().name))).collect();
    assert_eq!(table, Value::Object(registry), "_helpers.tpl ruleTable is hpa-core's rules::ALL");
    assert_eq!(rules["patternProperties"][&invalid_pattern]["enum"], json!([true, "on", "error", "warning", "info"]));
    if !helm_engine() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    let with = |values: &str| {
        std::fs::write(&file, values).unwrap();
        try_render(&[&file])
    };
    // Every rule by name and by its ID in upper and in lower case, each level written as Helm
    // users write it (YAML 1.1's on and off are booleans), HPA000 on or at a severity.
    let levels = ["off", "on", "error", "warning", "info", "true", "false", "\"off\"", "\"on\""];
    let mut keys: Vec<String> = vec![];
    for meta in hpa_core::rules::ALL.iter().map(|r| r.meta()) {
        if meta.id != invalid.id {
            keys.extend([meta.id.to_string(), meta.id.to_lowercase(), meta.name.to_string()]);
        }
    }
    for shift in 0..3 {
        let mut values = String::from("lintConfig:\n  rules:\n");
        for (i, key) in keys.iter().enumerate().filter(|(i, _)| i % 3 == shift) {
            values.push_str(&format!("    {key}: {}\n", levels[(i / 3) % levels.len()]));
        }
        let rendered =
            with(&values).unwrap_or_else(|e| panic!("the schema refuses what the server takes: {values}{e}"));
        let config_map = find(&rendered.objects, "ConfigMap", "hpa-webhook-policy");
        let text = config_map["data"]["lint-config.yaml"].as_str().unwrap();
        let config = hpa_config::parse("lint-config.yaml", text).unwrap();
        assert_eq!(config.levels.len(), keys.len() / 3, "{text}");
    }
    for values in ["HPA000: on", "hpa000: error", "invalid: warning", "Hpa000: \"info\""] {
        let rendered =
            with(&format!("lintConfig: {{rules: {{{values}}}}}\n")).unwrap_or_else(|e| panic!("{values}: {e}"));
        let config_map = find(&rendered.objects, "ConfigMap", "hpa-webhook-policy");
        let config = hpa_config::parse("c.yaml", config_map["data"]["lint-config.yaml"].as_str().unwrap()).unwrap();
        assert_ne!(config.levels[invalid.id], hpa_core::check::RuleLevel::Off, "{values}");
    }
    // What the server refuses at start: an unknown rule (named, with the rules listed), HPA000
    // off.
    let listed: Vec<String> =
        hpa_core::rules::ALL.iter().map(|r| format!("{} {}", r.meta().id, r.meta().name)).collect();
    let unknown = |key: &str| {
        format!(
            "lintConfig.rules.{key}: unknown rule; name a rule by its ID (in any case) or its name, as `hpa-lint rules` lists them: {}",
            listed.join(", ")
        )
    };
    for (values, expected) in [
        ("min-replica-equals-max: off", unknown("min-replica-equals-max")),
        ("HPA999: on", unknown("HPA999")),
        ("HPA-101: on", unknown("HPA-101")),
        ("Min-Replicas-Equals-Max: off", unknown("Min-Replicas-Equals-Max")),
        (
            "HPA000: off",
            "at '/lintConfig/rules/HPA000': value must be one of true, 'on', 'error', 'warning', 'info'".to_string(),
        ),
        ("hpa000: \"off\"", "at '/lintConfig/rules/hpa000': value must be one of".to_string()),
        ("invalid: false", "at '/lintConfig/rules/invalid': value must be one of".to_string()),
    ] {
        let values = format!("lintConfig: {{rules: {{{values}}}}}\n");
        let error = with(&values).err().unwrap_or_else(|| panic!("{values} was accepted"));
        assert!(error.contains(&expected), "{values}: {error}");
    }
}
