//! `/validate`: kube-apiserver's validation (every conformance vector, byte for byte), policy
//! constraints, and warnings.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use hpa_core::check;
use hpa_core::convert::annotations::BEHAVIOR;

use crate::support::{Harness, hpa_v1, hpa_v2_defaulted, response, review, workspace};

/// Every validation vector translated from Kubernetes' tests: the same decision, the same 422
/// message, the same causes in the same order (duplicates included).
#[tokio::test]
async fn denials_match_kube_apiserver_for_every_conformance_vector() {
    assert_eq!(denials_match_kube_apiserver("validation.json").await, 134);
}

/// The same for the upstream test cases `validation.json` lacked, each at the release it names.
#[tokio::test]
async fn denials_match_kube_apiserver_for_every_upstream_test_case() {
    assert_eq!(denials_match_kube_apiserver("upstream_validation.json").await, 452);
}

/// The same for the per-release vectors: each row of `spec/versions.md` that kube-apiserver
/// decides at validation gives that release's verdict and messages at admission too, with the
/// webhook run for the vector's `--kubernetes-version` (default: the newest GA release) and gates.
/// Conversion vectors, decoding errors and `fieldValidation` (answered before any webhook is
/// called) are not admission cases.
#[tokio::test]
async fn denials_match_kube_apiserver_for_every_release_vector() {
    assert_eq!(denials_match_kube_apiserver("versions.json").await, VERSIONS_ADMISSION_VECTORS);
}

/// The vectors of `versions.json` that are admission cases.
const VERSIONS_ADMISSION_VECTORS: usize = 115;

/// Posts every vector of `tests/data/conformance/api/FILE` to `/validate` of a webhook run for the
/// vector's release (`kubernetes_version`, else `profile`) and gates, asserts the answer is
/// kube-apiserver's, and returns how many vectors were admission cases (an `operation`, no
/// `decodeError` and no `fieldValidation`: kube-apiserver answers those before admission).
async fn denials_match_kube_apiserver(file: &str) -> usize {
    let text = std::fs::read_to_string(workspace().join("tests/data/conformance/api").join(file)).unwrap();
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut harnesses: BTreeMap<Vec<String>, Harness> = BTreeMap::new();
    let mut admitted = 0;
    for vector in &vectors {
        if vector.get("operation").is_none()
            || vector.get("fieldValidation").is_some()
            || vector["expect"].get("decodeError").is_some()
        {
            continue;
        }
        admitted += 1;
        let id = vector["id"].as_str().unwrap();
        let version = match vector["kubernetes_version"].as_str() {
            Some(v) => v,
            None if vector["profile"] == "master-1.37" => "1.37",
            None => "1.36",
        };
        let gates: Vec<String> = vector["featureGates"]
            .as_object()
            .map(|g| g.iter().map(|(k, v)| format!("{k}={v}")).collect())
            .unwrap_or_default();
        let flags = vec![
            "--kubernetes-version".to_string(),
            version.to_string(),
            "--feature-gates".to_string(),
            gates.join(","),
        ];
        let h = harnesses.entry(flags.clone()).or_insert_with(|| {
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            Harness::new(&flags, None)
        });
        let operation = vector["operation"].as_str().unwrap();
        let old = vector.get("oldObject");
        let answer = h.post("/validate", &review(id, operation, &vector["object"], old)).await;
        let r = response(&answer);
        let expect = &vector["expect"];
        assert_eq!(r["allowed"], expect["allowed"], "{id}: {r}");
        if expect["allowed"] == true {
            assert!(r.get("status").is_none(), "{id}");
            continue;
        }
        let status = &r["status"];
        assert_eq!(
            (&status["code"], &status["reason"], &status["status"]),
            (&json!(422), &json!("Invalid"), &json!("Failure")),
            "{id}"
        );
        assert_eq!(status["message"], expect["statusMessage"], "{id}");
        assert_eq!(status["details"]["group"], "autoscaling", "{id}");
        assert_eq!(status["details"]["kind"], "HorizontalPodAutoscaler", "{id}");
        // A generated name (`generateName`) is kube-apiserver's: the status message above holds it.
        if vector["object"]["metadata"].get("generateName").is_none() {
            assert_eq!(
                &status["details"]["name"],
                vector["object"]["metadata"].get("name").unwrap_or(&json!("")),
                "{id}"
            );
        }
        let causes: Vec<Value> = expect["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let field = e["field"].as_str().unwrap();
                let body = e["message"].as_str().unwrap().strip_prefix(&format!("{field}: ")).unwrap();
                json!({"reason": e["type"], "message": body, "field": field})
            })
            .collect();
        assert_eq!(status["details"]["causes"], json!(causes), "{id}");
    }
    admitted
}

const POLICY: &str = r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints: {maxReplicas: 100}
rules:
  - name: production
    namespaces: [shop]
    constraints: {requireBehavior: true}
"#;

#[tokio::test]
async fn policy_constraints_deny_with_a_clear_message() {
    let h = Harness::new(&[], Some(POLICY));
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["maxReplicas"] = json!(200);
    let answer = h.post("/validate", &review("p1", "CREATE", &object, None)).await;
    let status = &response(&answer)["status"];
    assert_eq!(response(&answer)["allowed"], false);
    assert_eq!(
        status["message"],
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: [spec.maxReplicas: Invalid value: 200: must be less than or equal to 100 (organization policy: defaults), spec.behavior: Required value: organization policy requires behavior in namespace \"shop\" (rule \"production\")]"
    );
    assert_eq!(
        status["details"]["causes"],
        json!([
            {"reason": "FieldValueInvalid", "message": "Invalid value: 200: must be less than or equal to 100 (organization policy: defaults)", "field": "spec.maxReplicas"},
            {"reason": "FieldValueRequired", "message": "Required value: organization policy requires behavior in namespace \"shop\" (rule \"production\")", "field": "spec.behavior"},
        ])
    );
    // In another namespace only the cluster-wide limit applies.
    object["metadata"]["namespace"] = json!("other");
    let answer = h.post("/validate", &review("p2", "CREATE", &object, None)).await;
    assert_eq!(response(&answer)["status"]["details"]["causes"].as_array().unwrap().len(), 1);
    object["spec"]["maxReplicas"] = json!(100);
    let answer = h.post("/validate", &review("p3", "CREATE", &object, None)).await;
    assert_eq!(response(&answer), &json!({"uid": "p3", "allowed": true}));
}

/// A constraint whose layer says `enforcement: Warn` admits the object with the message it
/// would deny with, as a warning; one enforced with `Deny` beside it still denies.
#[tokio::test]
async fn warn_constraints_admit_with_a_warning() {
    let policy = r#"
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  enforcement: Warn
  constraints: {maxReplicas: 100}
rules:
  - name: production
    namespaces: [shop]
    enforcement: Deny
    constraints: {requireBehavior: true}
"#;
    let h = Harness::new(&[], Some(policy));
    let mut object = hpa_v2_defaulted("web", "other");
    object["spec"]["maxReplicas"] = json!(200);
    let answer = h.post("/validate", &review("w1", "CREATE", &object, None)).await;
    assert_eq!(
        response(&answer),
        &json!({"uid": "w1", "allowed": true, "warnings": [
            "spec.maxReplicas: Invalid value: 200: must be less than or equal to 100 (organization policy: defaults)"
        ]})
    );
    object["metadata"]["namespace"] = json!("shop");
    let answer = h.post("/validate", &review("w2", "CREATE", &object, None)).await;
    let r = response(&answer);
    assert_eq!(r["allowed"], false);
    assert_eq!(
        r["status"]["details"]["causes"],
        json!([{"reason": "FieldValueRequired", "message": "Required value: organization policy requires behavior in namespace \"shop\" (rule \"production\")", "field": "spec.behavior"}])
    );
    assert_eq!(
        r["warnings"],
        json!([
            "spec.maxReplicas: Invalid value: 200: must be less than or equal to 100 (organization policy: defaults)"
        ])
    );
}

#[tokio::test]
async fn validation_errors_come_first_then_policy_errors() {
    let h = Harness::new(&[], Some(POLICY));
    let mut object = hpa_v2_defaulted("web", "other");
    object["spec"]["maxReplicas"] = json!(200);
    object["spec"]["minReplicas"] = json!(300);
    let answer = h.post("/validate", &review("p4", "CREATE", &object, None)).await;
    let fields: Vec<&str> = response(&answer)["status"]["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["spec.maxReplicas", "spec.maxReplicas"]);
    assert!(
        response(&answer)["status"]["message"].as_str().unwrap().contains("greater than or equal to `minReplicas`")
    );
}

/// An update may keep a value the old object already had (with a warning), not change it to
/// another value that breaks the policy.
#[tokio::test]
async fn constraints_ratchet_on_update() {
    let h = Harness::new(&[], Some(POLICY));
    let mut old = hpa_v2_defaulted("web", "other");
    old["spec"]["maxReplicas"] = json!(200);
    let mut new = old.clone();
    new["metadata"]["labels"]["team"] = json!("a");
    let answer = h.post("/validate", &review("p5", "UPDATE", &new, Some(&old))).await;
    assert_eq!(response(&answer)["allowed"], true);
    let warning = response(&answer)["warnings"][0].as_str().unwrap();
    assert!(warning.starts_with("spec.maxReplicas: Invalid value: 200"), "{warning}");
    assert!(warning.chars().count() <= hpa_webhook::admission::MAX_WARNING_CHARS);

    // Raising it further, or past the limit from below, is held to the policy.
    for previous in [150, 50] {
        old["spec"]["maxReplicas"] = json!(previous);
        let answer = h.post("/validate", &review("p6", "UPDATE", &new, Some(&old))).await;
        assert_eq!(response(&answer)["allowed"], false, "from {previous}");
    }
}

#[tokio::test]
async fn update_uses_the_old_object() {
    // With scale-to-zero off, minReplicas 0 is refused on create but kept on update when the
    // old object already had it (kube-apiserver's strategy options).
    let h = Harness::new(&["--kubernetes-version", "1.36"], None);
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["minReplicas"] = json!(0);
    object["spec"]["metrics"] = json!([{"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "10"}}}]);
    let created = h.post("/validate", &review("o1", "CREATE", &object, None)).await;
    assert_eq!(response(&created)["allowed"], false);
    let updated = h.post("/validate", &review("o2", "UPDATE", &object, Some(&object))).await;
    assert_eq!(response(&updated)["allowed"], true);
}

#[tokio::test]
async fn warnings_for_unknown_fields_and_ignored_annotations() {
    let h = Harness::default_config();
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["syncPeriodSeconds"] = json!(30);
    let answer = h.post("/validate", &review("w1", "CREATE", &object, None)).await;
    assert_eq!(response(&answer)["allowed"], true);
    assert_eq!(
        response(&answer)["warnings"],
        json!(["field spec.syncPeriodSeconds is unknown to hpa-webhook (Kubernetes 1.37) and was not checked"])
    );

    let mut v1 = hpa_v1("web", "shop");
    v1["metadata"]["annotations"] = json!({BEHAVIOR: "{not json"});
    let answer = h.post("/validate", &review("w2", "CREATE", &v1, None)).await;
    let warnings = response(&answer)["warnings"].as_array().unwrap();
    let expected =
        "HPA411 ignored-alpha-annotation: annotation autoscaling.alpha.kubernetes.io/behavior is not valid JSON";
    assert!(warnings.iter().any(|w| w.as_str().unwrap().starts_with(expected)), "{warnings:?}");
    for w in warnings {
        assert!(w.as_str().unwrap().chars().count() <= hpa_webhook::admission::MAX_WARNING_CHARS, "{w}");
    }
}

/// Whatever the front door reports arrives as short warnings (kubectl prints them).
#[tokio::test]
async fn lint_findings_become_short_warnings() {
    let h = Harness::default_config();
    let mut object = hpa_v2_defaulted("web", "shop");
    object["spec"]["minReplicas"] = json!(10);
    let answer = h.post("/validate", &review("w3", "CREATE", &object, None)).await;
    assert_eq!(response(&answer)["allowed"], true);
    let decoded = hpa_core::api::decode(&object).unwrap();
    // The front door's report on the object as the webhook receives it (already defaulted).
    let mut opts = check::Options::for_gates(hpa_core::features::FeatureGates::default());
    opts.request.apply_defaults = false;
    let report = check::check(check::Input::create(check::Written::Decoded(Box::new(decoded))), &opts);
    assert!(report.allowed());
    // Most severe first, in the report's order within a severity.
    let mut said: Vec<&hpa_core::rules::Finding> = report
        .findings
        .iter()
        .filter(|f| f.rule.enabled_by_default && f.severity >= hpa_core::rules::Severity::Warning)
        .collect();
    said.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let expected: Vec<String> = said.into_iter().map(hpa_webhook::admission::finding_warning).collect();
    assert!(!expected.is_empty(), "minReplicas = maxReplicas is worth a warning");
    let got: Vec<String> = response(&answer)
        .get("warnings")
        .and_then(Value::as_array)
        .map(|w| w.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    assert_eq!(got, expected);
    for w in &got {
        assert!(w.starts_with("HPA") && w.chars().count() <= 120, "{w}");
    }
    // Lint warnings can be turned off.
    let quiet = Harness::new(&["--lint-warnings", "false"], None);
    let answer = quiet.post("/validate", &review("w4", "CREATE", &object, None)).await;
    assert_eq!(response(&answer), &json!({"uid": "w4", "allowed": true}));
}

/// `serve --lint-config FILE`: a harness whose lint configuration (`.hpa-lint.yaml`'s format)
/// is `config`, and `policy` (YAML) if any.
fn with_lint_config(dir: &tempfile::TempDir, config: &str, policy: Option<&str>) -> Harness {
    let path = dir.path().join(".hpa-lint.yaml");
    std::fs::write(&path, config).unwrap();
    Harness::new(&["--lint-config", &path.display().to_string()], policy)
}

/// The rule IDs of an answer's warnings.
fn warned_rules(answer: &Value) -> Vec<String> {
    response(answer)["warnings"]
        .as_array()
        .map(|w| w.iter().map(|w| w.as_str().unwrap().split(' ').next().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// An organization disables a rule, or changes a setting, at admission exactly as in CI: the
/// same file, read by the same reader, gives the webhook the same rules as `hpa-lint --config`.
#[tokio::test]
async fn the_lint_configuration_turns_rules_off_and_sets_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    // minReplicas = maxReplicas = 10: HPA101 by default.
    let mut equal = hpa_v2_defaulted("web", "shop");
    equal["spec"]["minReplicas"] = json!(10);
    let create = |object: &Value| review("lc", "CREATE", object, None);
    let default = Harness::default_config().post("/validate", &create(&equal)).await;
    assert!(warned_rules(&default).contains(&"HPA101".to_string()), "{default}");

    // Turned off by ID or by name (YAML 1.1's `off` is a boolean, as for hpa-lint): no warning.
    for config in ["rules:\n  HPA101: off\n", "rules: {min-replicas-equals-max: 'off'}\n"] {
        let answer = with_lint_config(&dir, config, None).post("/validate", &create(&equal)).await;
        assert_eq!(response(&answer)["allowed"], true);
        assert!(!warned_rules(&answer).contains(&"HPA101".to_string()), "{config}: {answer}");
    }
    // A rule turned off is not there for the policy's denyRules either, as it is not in CI.
    let deny = "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\ndefaults: {denyRules: [HPA101]}\n";
    let answer = Harness::new(&[], Some(deny)).post("/validate", &create(&equal)).await;
    assert_eq!(response(&answer)["allowed"], false, "{answer}");
    let answer = with_lint_config(&dir, "rules: {HPA101: off}\n", Some(deny)).post("/validate", &create(&equal)).await;
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    // Down to info: kubectl is not told (informational findings are no warnings).
    let answer = with_lint_config(&dir, "rules: {HPA101: info}\n", None).post("/validate", &create(&equal)).await;
    assert!(!warned_rules(&answer).contains(&"HPA101".to_string()), "{answer}");
    // An opt-in rule turned on: HPA102 (info by default) at warning severity.
    let answer = with_lint_config(&dir, "rules: {HPA102: warning}\n", None)
        .post("/validate", &create(&hpa_v2_defaulted("web", "shop")))
        .await;
    assert!(warned_rules(&answer).contains(&"HPA102".to_string()), "{answer}");

    // A setting changes the warning: maxReplicas 10 is over a limit of 5, not over one of 20.
    let object = hpa_v2_defaulted("web", "shop");
    let answer =
        with_lint_config(&dir, "settings: {maxReplicasLimit: 5}\n", None).post("/validate", &create(&object)).await;
    let warnings = response(&answer)["warnings"].to_string();
    assert!(warned_rules(&answer).contains(&"HPA103".to_string()) && warnings.contains('5'), "{answer}");
    let answer =
        with_lint_config(&dir, "settings: {maxReplicasLimit: 20}\n", None).post("/validate", &create(&object)).await;
    assert!(!warned_rules(&answer).contains(&"HPA103".to_string()), "{answer}");
    // minReplicaSpread 3: minReplicas 8 and maxReplicas 10 are too close (HPA101), as in CI.
    let mut close = hpa_v2_defaulted("web", "shop");
    close["spec"]["minReplicas"] = json!(8);
    let answer = Harness::default_config().post("/validate", &create(&close)).await;
    assert!(!warned_rules(&answer).contains(&"HPA101".to_string()), "{answer}");
    let answer =
        with_lint_config(&dir, "settings: {minReplicaSpread: 3}\n", None).post("/validate", &create(&close)).await;
    assert!(warned_rules(&answer).contains(&"HPA101".to_string()), "{answer}");
    // The same file gives hpa-lint the same rule IDs for the same object.
    let path = dir.path().join(".hpa-lint.yaml");
    std::fs::write(&path, "settings: {minReplicaSpread: 3}\n").unwrap();
    let lint =
        hpa_tests::cli::hpa_lint(&["--config", &path.display().to_string(), "-o", "json", "-"], &close.to_string());
    let lint_rules: Vec<String> = lint.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning" || d["severity"] == "error")
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lint_rules, warned_rules(&answer));
}

/// A lint configuration that does not read stops the server at start, saying where; one that
/// does is reloaded as the policy is, and a bad new version leaves the one in force.
#[tokio::test]
async fn the_lint_configuration_is_checked_at_start_and_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lint.yaml");
    std::fs::write(&path, "rules:\n  HPA999: off\n").unwrap();
    let flags = ["--lint-config", path.to_str().unwrap()];
    let error = hpa_webhook::server::state(&crate::support::serve_args(&flags)).unwrap_err().to_string();
    assert_eq!(error, format!("--lint-config: {}:2:3: unknown rule \"HPA999\" (see `hpa-lint rules`)", path.display()));

    std::fs::write(&path, "rules: {HPA101: off}\n").unwrap();
    let reviewer = hpa_webhook::admission::Reviewer::new(hpa_core::features::FeatureGates::default())
        .with_lint_config(&path)
        .unwrap();
    assert_eq!(reviewer.lint_config(), Some(path.as_path()));
    let mut equal = hpa_v2_defaulted("web", "shop");
    equal["spec"]["minReplicas"] = json!(10);
    let body = review("lr", "CREATE", &equal, None).to_string();
    let rules_of = |reviewer: &hpa_webhook::admission::Reviewer| {
        let answer = reviewer.review(
            hpa_webhook::metrics::Endpoint::Validate,
            body.as_bytes(),
            &hpa_webhook::policy::Policy::default(),
        );
        warned_rules(&serde_json::from_slice(&answer.body).unwrap())
    };
    assert!(!rules_of(&reviewer).contains(&"HPA101".to_string()));
    assert!(!reviewer.reload_lint_config().await.unwrap(), "unchanged file");
    std::fs::write(&path, "rules: {HPA101: error}\n").unwrap();
    assert!(reviewer.reload_lint_config().await.unwrap());
    assert!(rules_of(&reviewer).contains(&"HPA101".to_string()));
    // A bad version is refused (once) and the one in force stays.
    std::fs::write(&path, "rules: {HPA101: loud}\n").unwrap();
    let error = reviewer.reload_lint_config().await.unwrap_err();
    assert!(
        matches!(&error, hpa_config::ConfigError::UnknownLevel { rule, level, .. } if rule == "HPA101" && level == "loud")
    );
    assert!(error.to_string().ends_with(":1:9: rule HPA101: expected off, on, error, warning or info, found \"loud\""));
    assert!(!reviewer.reload_lint_config().await.unwrap(), "a bad file is reported once");
    assert!(rules_of(&reviewer).contains(&"HPA101".to_string()));
}
