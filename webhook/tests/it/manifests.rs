//! `manifests/`, `certs/` and the Dockerfile agree with the binary: ports, paths, names,
//! environment variables, timeouts; every overlay renders with `kubectl kustomize` and is valid
//! against the Kubernetes schemas (`kubernetes-validate`).
//!
//! The tools are optional locally; with `HPA_REQUIRE_TOOLS=1` (CI) a missing tool fails
//! (`hpa_test_tools`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use clap::CommandFactory;
use serde_json::{Value, json};

use hpa_test_tools::tool;
use hpa_webhook::cli::{self, Args};
use hpa_webhook::paths;
use hpa_webhook::policy::Policy;

use crate::support::{serve_args, workspace, yaml_documents};

const NAMESPACE: &str = "hpa-webhook";
const SERVICE: &str = "hpa-webhook";

fn manifests() -> PathBuf {
    workspace().join("manifests")
}

/// Every object of the YAML files in `dir` (kustomizations excluded).
fn objects_in(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !p.ends_with("kustomization.yaml"))
        .flat_map(|p| yaml_documents(&std::fs::read_to_string(p).unwrap()))
        .filter(|o| o.get("kind").is_some())
        .collect()
}

pub(crate) fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The Deployment's environment turned back into flags, parsed by the binary's own CLI.
pub(crate) fn deployment_settings(container: &Value) -> (cli::ServeArgs, BTreeMap<String, String>) {
    let command = Args::command();
    let serve = command.find_subcommand("serve").unwrap();
    let by_env: BTreeMap<String, String> = serve
        .get_arguments()
        .filter_map(|a| Some((a.get_env()?.to_str()?.to_string(), a.get_long()?.to_string())))
        .collect();
    let env: BTreeMap<String, String> = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap().to_string()))
        .collect();
    let mut flags = Vec::new();
    for (name, value) in &env {
        let long = by_env.get(name).unwrap_or_else(|| panic!("{name} is not declared by the CLI"));
        flags.push(format!("--{long}"));
        flags.push(value.clone());
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (serve_args(&flags), env)
}

/// The webhook's pod `spec` (`name`: the kustomize base, a chart render) agrees with the
/// binary: its CLI reads the container's environment ([`deployment_settings`], returned), the
/// port and probes are the binary's, the certificate and the policy are mounted where the
/// settings look, and shutdown finishes before the kubelet's SIGKILL.
pub(crate) fn pod_matches_the_binary(name: &str, spec: &Value) -> (cli::ServeArgs, BTreeMap<String, String>) {
    let container = &spec["containers"][0];
    let (settings, env) = deployment_settings(container);
    assert_eq!(container["ports"], json!([{"name": "https", "containerPort": cli::DEFAULT_PORT, "protocol": "TCP"}]));
    for (probe, path) in [("readinessProbe", paths::READYZ), ("livenessProbe", paths::HEALTHZ)] {
        assert_eq!(
            container[probe]["httpGet"],
            json!({"path": path, "port": "https", "scheme": "HTTPS"}),
            "{name}: {probe}"
        );
    }
    let mounts: BTreeMap<&str, &str> = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["mountPath"].as_str().unwrap()))
        .collect();
    assert_eq!(Path::new(mounts["tls"]).join("tls.crt"), settings.tls_cert, "{name}");
    assert_eq!(Path::new(mounts["tls"]).join("tls.key"), settings.tls_key, "{name}");
    assert_eq!(Some(Path::new(mounts["policy"]).join("policy.yaml")), settings.policy, "{name}");
    assert_eq!(Some(Path::new(mounts["policy"]).join("lint-config.yaml")), settings.lint_config, "{name}");
    let grace = spec["terminationGracePeriodSeconds"].as_u64().unwrap();
    assert!((settings.shutdown_delay + settings.shutdown_timeout).as_secs() < grace, "{name}: exits before SIGKILL");
    (settings, env)
}

#[test]
fn manifests_match_the_binary() {
    let base = objects_in(&manifests().join("base"));
    let defaults = serve_args(&[]);

    // The Deployment.
    let deployment = find(&base, "Deployment", "hpa-webhook");
    let spec = &deployment["spec"]["template"]["spec"];
    assert_eq!(deployment["spec"]["replicas"], 2);
    // Its environment, port, probes, mounts and grace period (shutdown finishes before the
    // kubelet's SIGKILL).
    let (settings, env) = pod_matches_the_binary("base", spec);
    let container = &spec["containers"][0];
    assert_eq!(settings.addr, defaults.addr, "HPA_WEBHOOK_ADDR is the default address");
    assert_eq!(env["HPA_WEBHOOK_LOG_FORMAT"], "json");
    assert_eq!(
        (settings.tls_cert.as_path(), settings.tls_key.as_path()),
        (Path::new(cli::DEFAULT_TLS_CERT), Path::new(cli::DEFAULT_TLS_KEY))
    );
    let volumes = &spec["volumes"];
    assert_eq!(volumes[0]["secret"]["secretName"], "hpa-webhook-tls");
    assert_eq!(volumes[1]["configMap"]["name"], "hpa-webhook-policy");
    let kustomization =
        &yaml_documents(&std::fs::read_to_string(manifests().join("base/kustomization.yaml")).unwrap())[0];
    assert_eq!(kustomization["namespace"], NAMESPACE);
    // The lint configuration beside the policy (added on purpose with `--lint-config`).
    assert_eq!(
        kustomization["configMapGenerator"][0],
        json!({"name": "hpa-webhook-policy", "files": ["policy.yaml", "lint-config.yaml"]})
    );
    Policy::parse(&std::fs::read_to_string(manifests().join("base/policy.yaml")).unwrap()).unwrap();
    let lint_config = std::fs::read_to_string(manifests().join("base/lint-config.yaml")).unwrap();
    hpa_config::parse("lint-config.yaml", &lint_config).unwrap();

    // A restricted security context.
    assert_eq!(spec["securityContext"]["runAsNonRoot"], true);
    assert_eq!(spec["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
    // The context cache: on, with the token mounted for its read-only watches (this expectation
    // changed on purpose with issue 16: the base had no RBAC and mounted no token before).
    assert_eq!(spec["automountServiceAccountToken"], true);
    assert!(settings.context_cache, "HPA_WEBHOOK_CONTEXT_CACHE is on");
    assert_eq!(find(&base, "ServiceAccount", SERVICE)["automountServiceAccountToken"], false, "the pod decides");
    let binding = find(&base, "ClusterRoleBinding", "hpa-webhook");
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": spec["serviceAccountName"], "namespace": NAMESPACE}])
    );
    let role = find(&base, "ClusterRole", binding["roleRef"]["name"].as_str().unwrap());
    // Exactly the kinds the cache watches, list and watch only.
    let mut granted: Vec<(String, String)> = Vec::new();
    for rule in role["rules"].as_array().unwrap() {
        assert_eq!(rule["verbs"], json!(["list", "watch"]));
        for group in rule["apiGroups"].as_array().unwrap() {
            for resource in rule["resources"].as_array().unwrap() {
                granted.push((group.as_str().unwrap().to_string(), resource.as_str().unwrap().to_string()));
            }
        }
    }
    let mut watched: Vec<(String, String)> =
        hpa_cluster::watch::WATCHED.iter().map(|k| (k.group.to_string(), k.plural.to_string())).collect();
    granted.sort();
    watched.sort();
    assert_eq!(granted, watched);
    let sc = &container["securityContext"];
    assert_eq!((&sc["allowPrivilegeEscalation"], &sc["readOnlyRootFilesystem"]), (&json!(false), &json!(true)));
    assert_eq!(sc["capabilities"]["drop"], json!(["ALL"]));
    assert!(spec["topologySpreadConstraints"].as_array().unwrap().len() >= 2);
    assert!(
        container["resources"]["requests"].get("cpu").is_some()
            && container["resources"]["limits"].get("memory").is_some()
    );

    // The Service and the PDB select the pods.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let service = find(&base, "Service", SERVICE);
    assert_eq!(
        service["spec"]["ports"],
        json!([{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}])
    );
    for selector in [
        &service["spec"]["selector"],
        &find(&base, "PodDisruptionBudget", "hpa-webhook")["spec"]["selector"]["matchLabels"],
    ] {
        for (k, v) in selector.as_object().unwrap() {
            assert_eq!(&pod_labels[k], v);
        }
    }

    // The webhook configurations call the Service on the binary's paths, in time.
    for (kind, path, failure) in [
        ("MutatingWebhookConfiguration", paths::MUTATE, "Ignore"),
        ("ValidatingWebhookConfiguration", paths::VALIDATE, "Fail"),
    ] {
        let webhook = &find(&base, kind, "hpa-webhook")["webhooks"][0];
        assert_eq!(
            webhook["clientConfig"]["service"],
            json!({"name": SERVICE, "namespace": NAMESPACE, "path": path, "port": 443})
        );
        assert_eq!(webhook["sideEffects"], "None");
        assert_eq!(webhook["admissionReviewVersions"], json!(["v1"]));
        assert_eq!(webhook["failurePolicy"], failure);
        let timeout = webhook["timeoutSeconds"].as_u64().unwrap();
        assert!(settings.request_timeout.as_secs() < timeout, "the request deadline is below timeoutSeconds");
        assert!(defaults.request_timeout.as_secs() < timeout);
        assert_eq!(
            webhook["namespaceSelector"],
            json!({"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", NAMESPACE]}]})
        );
        assert_eq!(
            webhook["rules"],
            json!([{"apiGroups": ["autoscaling"], "apiVersions": ["v1", "v2"], "operations": ["CREATE", "UPDATE"],
                "resources": ["horizontalpodautoscalers"], "scope": "Namespaced"}])
        );
    }
}

#[test]
fn certificate_sources_name_the_service_and_the_secret() {
    let names = hpa_webhook::certs::service_names(SERVICE, NAMESPACE, "cluster.local");
    let cert_manager = objects_in(&manifests().join("overlays/cert-manager"));
    let certificate = find(&cert_manager, "Certificate", "hpa-webhook");
    assert_eq!(certificate["spec"]["secretName"], "hpa-webhook-tls");
    for dns in certificate["spec"]["dnsNames"].as_array().unwrap() {
        assert!(names.contains(&dns.as_str().unwrap().to_string()), "{dns}");
    }
    assert!(certificate["spec"]["dnsNames"].as_array().unwrap().contains(&json!(format!("{SERVICE}.{NAMESPACE}.svc"))));
    assert_eq!(certificate["spec"]["issuerRef"]["name"], "hpa-webhook-ca");
    let ca = find(&cert_manager, "Certificate", "hpa-webhook-ca");
    assert_eq!(find(&cert_manager, "Issuer", "hpa-webhook-ca")["spec"]["ca"]["secretName"], ca["spec"]["secretName"]);
    for o in cert_manager.iter().filter(|o| o["kind"].as_str().unwrap().ends_with("WebhookConfiguration")) {
        assert_eq!(o["metadata"]["annotations"]["cert-manager.io/inject-ca-from"], format!("{NAMESPACE}/hpa-webhook"));
    }
    let certs = &yaml_documents(&std::fs::read_to_string(workspace().join("certs/kustomization.yaml")).unwrap())[0];
    assert_eq!(certs["namespace"], NAMESPACE);
    assert_eq!(certs["secretGenerator"][0]["name"], "hpa-webhook-tls");
    assert_eq!(certs["secretGenerator"][0]["type"], "kubernetes.io/tls");
}

/// The README's first-install window quotes kube-apiserver's refusal of an HPA write while no
/// pod is Ready (`no endpoints available for service`) and how to wait: its webhook name,
/// failure policies, URL (Service, namespace, port, path, `timeoutSeconds`) and the Deployment
/// it waits for are the manifests'.
#[test]
fn the_readme_quotes_the_first_install_window_as_the_manifests_make_it() {
    // Words as written, whatever the line breaks.
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let base = objects_in(&manifests().join("base"));
    let validating = &find(&base, "ValidatingWebhookConfiguration", "hpa-webhook")["webhooks"][0];
    let mutating = &find(&base, "MutatingWebhookConfiguration", "hpa-webhook")["webhooks"][0];
    assert_eq!(
        (validating["failurePolicy"].as_str(), mutating["failurePolicy"].as_str()),
        (Some("Fail"), Some("Ignore"))
    );
    let service = &validating["clientConfig"]["service"];
    let refusal = format!(
        "Internal error occurred: failed calling webhook \"{}\": failed to call webhook: Post \"https://{}.{}.svc:{}{}?timeout={}s\": no endpoints available for service \"{}\"",
        validating["name"].as_str().unwrap(),
        service["name"].as_str().unwrap(),
        service["namespace"].as_str().unwrap(),
        service["port"],
        service["path"].as_str().unwrap(),
        validating["timeoutSeconds"],
        service["name"].as_str().unwrap(),
    );
    assert!(readme.contains(&refusal), "README, \"The first install's window\":\n{refusal}");
    find(&base, "Deployment", "hpa-webhook");
    assert!(readme.contains(&format!("kubectl -n {NAMESPACE} rollout status deployment/hpa-webhook --timeout=5m")));
}

#[test]
fn dockerfile_runs_the_binary_as_non_root_on_the_default_port() {
    let dockerfile = std::fs::read_to_string(workspace().join("Dockerfile")).unwrap();
    assert!(dockerfile.lines().any(|l| l == format!("EXPOSE {}", cli::DEFAULT_PORT)));
    assert!(dockerfile.lines().any(|l| l == "USER 65532:65532"));
    assert!(dockerfile.contains("cargo build --release --locked -p hpa-webhook"));
    assert!(dockerfile.lines().any(|l| l.starts_with("FROM gcr.io/distroless/")));
}

// === rendering with the real tools ===

pub(crate) fn render(dir: &Path) -> String {
    let out = Command::new("kubectl").arg("kustomize").arg(dir).output().unwrap();
    assert!(out.status.success(), "kubectl kustomize {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn validate_schemas(name: &str, rendered: &str, validator: bool) {
    if !validator {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{name}.yaml"));
    std::fs::write(&file, rendered).unwrap();
    let out = Command::new("kubernetes-validate").arg("--strict").arg(&file).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !text.contains("ERROR"), "{name}: {text}");
    // Only cert-manager's kinds have no built-in schema.
    for line in text.lines().filter(|l| l.starts_with("WARN")) {
        assert!(line.contains("cert-manager.io/v1"), "{name}: {line}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn every_overlay_renders_and_is_valid_against_the_kubernetes_schemas() {
    if !tool("kubectl", &["version", "--client"]) {
        return;
    }
    let validator = tool("kubernetes-validate", &["--version"]);
    for dir in ["base", "overlays/cert-manager"] {
        let rendered = render(&manifests().join(dir));
        let objects = yaml_documents(&rendered);
        assert!(
            objects.iter().all(|o| o["kind"] == "Namespace"
                || o["kind"].as_str().unwrap().ends_with("WebhookConfiguration")
                || o["kind"].as_str().unwrap().starts_with("ClusterRole")
                || o["metadata"]["namespace"] == NAMESPACE),
            "{dir}: everything in {NAMESPACE}"
        );
        validate_schemas(&dir.replace('/', "-"), &rendered, validator);
    }

    // With the workload webhook's component: it calls /validate-workloads with failurePolicy
    // Ignore, for the kinds the binary checks, its caBundle injected as the others'.
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&manifests(), &tmp.path().join("manifests"));
    enable_workload_webhook(&tmp.path().join("manifests/overlays/cert-manager"));
    let rendered = render(&tmp.path().join("manifests/overlays/cert-manager"));
    validate_schemas("cert-manager-workloads", &rendered, validator);
    let objects = yaml_documents(&rendered);
    let configuration = find(&objects, "ValidatingWebhookConfiguration", "hpa-webhook-workloads");
    assert_eq!(configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"], "hpa-webhook/hpa-webhook");
    let webhook = &configuration["webhooks"][0];
    assert_eq!(webhook["failurePolicy"], "Ignore");
    assert_eq!(
        webhook["clientConfig"]["service"],
        json!({"name": SERVICE, "namespace": NAMESPACE, "path": paths::VALIDATE_WORKLOADS, "port": 443})
    );
    let mut resources: Vec<(String, String)> = Vec::new();
    for rule in webhook["rules"].as_array().unwrap() {
        assert_eq!(rule["operations"], json!(["CREATE", "UPDATE"]));
        for resource in rule["resources"].as_array().unwrap() {
            resources
                .push((rule["apiGroups"][0].as_str().unwrap().to_string(), resource.as_str().unwrap().to_string()));
        }
    }
    let mut checked: Vec<(String, String)> =
        hpa_webhook::workloads::KINDS.iter().map(|k| (k.group.to_string(), k.plural.to_string())).collect();
    resources.sort();
    checked.sort();
    assert_eq!(resources, checked);
    let (rendered, ca_bundle) = render_self_signed_overlay_with(true);
    validate_schemas("self-signed-workloads", &rendered, validator);
    let objects = yaml_documents(&rendered);
    let bundle = &find(&objects, "ValidatingWebhookConfiguration", "hpa-webhook-workloads")["webhooks"][0]["clientConfig"]
        ["caBundle"];
    assert_eq!(bundle.as_str().unwrap().replace('\n', ""), ca_bundle);

    let (rendered, ca_bundle) = render_self_signed_overlay();
    validate_schemas("self-signed", &rendered, validator);
    let objects = yaml_documents(&rendered);
    let secret = find(&objects, "Secret", "hpa-webhook-tls");
    assert_eq!(secret["type"], "kubernetes.io/tls");
    let decode =
        |v: &Value| base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap().replace('\n', "")).unwrap();
    assert!(String::from_utf8(decode(&secret["data"]["tls.key"])).unwrap().contains("PRIVATE KEY"));
    for kind in ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"] {
        let bundle = &find(&objects, kind, "hpa-webhook")["webhooks"][0]["clientConfig"]["caBundle"];
        assert_eq!(
            bundle.as_str().unwrap().replace('\n', ""),
            ca_bundle,
            "{kind}: the printed caBundle is the one injected"
        );
    }
}

/// The self-signed overlay, as the README installs it: certificates from `hpa-webhook certs`
/// in certs/out (done in a copy: the repository holds no key). Returns the rendered text and the
/// caBundle `hpa-webhook certs` printed.
pub(crate) fn render_self_signed_overlay() -> (String, String) {
    render_self_signed_overlay_with(false)
}

/// An overlay with the workload webhook's component enabled, as its comment says to do.
fn enable_workload_webhook(overlay: &Path) {
    let file = overlay.join("kustomization.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let commented = "# components:\n#   - ../../components/workload-webhook\n";
    assert!(text.contains(commented), "{}: the component is offered in a comment", file.display());
    std::fs::write(&file, text.replace(commented, "components:\n  - ../../components/workload-webhook\n")).unwrap();
}

/// [`render_self_signed_overlay`], with the workload webhook's component or without.
pub(crate) fn render_self_signed_overlay_with(workload_webhook: bool) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&manifests(), &tmp.path().join("manifests"));
    if workload_webhook {
        enable_workload_webhook(&tmp.path().join("manifests/overlays/self-signed"));
    }
    std::fs::create_dir_all(tmp.path().join("certs")).unwrap();
    std::fs::copy(workspace().join("certs/kustomization.yaml"), tmp.path().join("certs/kustomization.yaml")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["certs", "--service", SERVICE, "--namespace", NAMESPACE, "--out"])
        .arg(tmp.path().join("certs/out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ca_bundle = String::from_utf8(out.stdout).unwrap().trim().to_string();
    (render(&tmp.path().join("manifests/overlays/self-signed")), ca_bundle)
}
