//! `hpa-lint explain` snapshots: the effective behavior with provenance, and timing computed
//! with the evaluator.

use hpa_tests::cli::hpa_lint;

#[test]
fn explain_snapshots() {
    insta::glob!("../data/explain", "*.yaml", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let human = hpa_lint(&["explain", "-"], &text);
        assert_eq!(human.code, 0, "{}", human.stderr);
        insta::assert_snapshot!("human", human.stdout);
        let json = hpa_lint(&["explain", "-o", "json", "-"], &text);
        insta::assert_json_snapshot!("json", json.json());
    });
}

#[test]
fn no_behavior_explains_the_observed_run() {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("explain/no-behavior.yaml")).unwrap();
    let run = hpa_lint(&["explain", "-o", "json", "-"], &text);
    let v = run.json();
    assert_eq!(v[0]["fastestScaleUp"]["path"], serde_json::json!([2, 4, 8, 10]));
    assert_eq!(v[0]["behavior"]["path"], "legacy");
}

#[test]
fn explain_reads_the_controller_of_the_configuration_under_its_flags() {
    let path = hpa_tests::data_dir().join("explain/no-behavior.yaml").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hpa-lint.yaml");
    std::fs::write(&config, "controller:\n  syncPeriodSeconds: 30\n  downscaleStabilizationSeconds: 60\n").unwrap();
    let config = config.display().to_string();
    let explain = |extra: &[&str]| {
        let run = hpa_lint(&[&["explain", "-o", "json"], extra, &[path.as_str()]].concat(), "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let down = |v: &serde_json::Value| v[0]["fastestScaleDown"]["seconds"].clone();
    let none = explain(&["--no-config"]);
    assert_eq!(down(&none), 300, "{none}");
    let configured = explain(&["--config", &config]);
    assert_eq!(down(&configured), 60, "{configured}");
    let flag = explain(&["--config", &config, "--downscale-stabilization", "90"]);
    assert_eq!(down(&flag), 90, "{flag}");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "controller: {tolerance: -1}\n").unwrap();
    let bad = bad.display().to_string();
    let run = hpa_lint(&["explain", "--config", &bad, &path], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("controller.tolerance"), "{}", run.stderr);
}

#[test]
fn explain_says_where_each_controller_value_comes_from() {
    // The labels used to say "controller default" whatever set the value.
    let path = hpa_tests::data_dir().join("explain/no-behavior.yaml").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hpa-lint.yaml");
    std::fs::write(&config, "controller:\n  downscaleStabilizationSeconds: 60\n").unwrap();
    let config = config.display().to_string();
    let explain = |extra: &[&str]| {
        let run = hpa_lint(&[&["explain"], extra, &[path.as_str()]].concat(), "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    };
    let window = "(--horizontal-pod-autoscaler-downscale-stabilization)";
    let tolerance = "(--horizontal-pod-autoscaler-tolerance)";

    let human = explain(&["--no-config"]).stdout;
    assert!(human.contains(&format!("controller default {window}")), "{human}");
    let human = explain(&["--config", &config, "--tolerance", "0.2"]).stdout;
    assert!(human.contains(&format!("last 60s, no rate limit  configuration file {config} {window}\n")), "{human}");
    assert!(human.contains(&format!("  command line --tolerance {tolerance}")), "{human}");
    assert!(!human.contains("controller default"), "{human}");

    let json = explain(&["-o", "json", "--config", &config, "--tolerance", "0.2"]).json();
    let behavior = &json[0]["behavior"];
    assert_eq!(behavior["stabilizationWindowSeconds"]["source"], "configuration-file", "{behavior}");
    assert_eq!(behavior["stabilizationWindowSeconds"]["file"], config.as_str());
    assert_eq!(behavior["tolerance"]["source"], "command-line");
    assert_eq!(behavior["tolerance"]["from"], "--horizontal-pod-autoscaler-tolerance");
    assert_eq!(behavior["scaleUpLimitFactor"]["source"], "controller-default", "constants stay the controller's");
    let json = explain(&["-o", "json", "--no-config"]).json();
    assert_eq!(json[0]["behavior"]["stabilizationWindowSeconds"]["source"], "controller-default");
    assert!(json[0]["behavior"]["stabilizationWindowSeconds"].get("file").is_none());
}

/// A per-direction tolerance on a release whose `HPAConfigurableTolerance` is off (1.33, 1.34 by
/// default; any release before 1.37 with the gate switched off) is dropped by kube-apiserver and
/// ignored by the controller: explain says so under the table that shows the controller's
/// tolerance, in HPA306's words. Where the gate is on, no note.
#[test]
fn explain_says_a_tolerance_is_dropped_where_the_gate_is_off() {
    let text = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 20
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
  behavior:
    scaleUp: {tolerance: \"0.02\"}
    scaleDown: {tolerance: \"0.05\"}
";
    let explain = |extra: &[&str]| {
        let run = hpa_lint(&[&["explain", "--no-config"], extra, &["-"]].concat(), text);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    };
    let note = |dir: &str, q: &str, pct: &str, v: &str| {
        format!(
            "spec.behavior.{dir}.tolerance {q} ({pct}) is not used: HPAConfigurableTolerance is off in Kubernetes {v}: kube-apiserver drops this tolerance silently and the controller's global tolerance (0.1) applies (HPA306)"
        )
    };
    let human = explain(&["--kubernetes-version", "1.33"]).stdout;
    assert!(human.contains(&format!("  note: {}\n", note("scaleUp", "20m", "2%", "1.33"))), "{human}");
    assert!(human.contains(&format!("  note: {}\n", note("scaleDown", "50m", "5%", "1.33"))), "{human}");
    let json =
        explain(&["--kubernetes-version", "1.36", "--feature-gates", "HPAConfigurableTolerance=false", "-o", "json"])
            .json();
    // 1.36 has the gate on by default: the note names what switched it off.
    let by_flag = note("scaleUp", "20m", "2%", "1.36")
        .replace("is off in Kubernetes 1.36", "is off by --feature-gates (Kubernetes 1.36 has it on by default)");
    assert_eq!(json[0]["notes"][0], by_flag.as_str());
    let json =
        explain(&["--kubernetes-version", "1.35", "--feature-gates", "HPAConfigurableTolerance=false", "-o", "json"])
            .json();
    assert_eq!(
        json[0]["notes"][1],
        "spec.behavior.scaleDown.tolerance 50m (5%) is not used: HPAConfigurableTolerance is off by --feature-gates (Kubernetes 1.35 has it on by default): kube-apiserver drops this tolerance silently and the controller's global tolerance (0.1) applies (HPA306)"
    );
    // Switched off by the configuration's featureGates.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hpa-lint.yaml");
    std::fs::write(&config, "kubernetesVersion: \"1.35\"\nfeatureGates: {HPAConfigurableTolerance: false}\n").unwrap();
    let run = hpa_lint(&["explain", "--config", &config.display().to_string(), "-o", "json", "-"], text);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json()[0]["notes"][0],
        note("scaleUp", "20m", "2%", "1.35")
            .replace(
                "is off in Kubernetes 1.35",
                "is off by the configuration's featureGates (Kubernetes 1.35 has it on by default)"
            )
            .as_str()
    );
    for on in ["1.35", "1.37"] {
        let human = explain(&["--kubernetes-version", on]).stdout;
        assert!(!human.contains("note:"), "{on}: {human}");
        assert!(human.contains("tolerance             2%"), "{on}: {human}");
    }
}

/// An HPA written with `generateName` is named by its prefix, as the linter names it, not by
/// the placeholder name admission gives it (`web-xxxxx`).
#[test]
fn explain_names_a_generate_name_hpa_by_its_prefix() {
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  generateName: web-\n  namespace: shop\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n";
    let run = hpa_lint(&["explain", "--no-config", "-"], hpa);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().next(), Some("<stdin>:1:1: HorizontalPodAutoscaler shop/web-* (autoscaling/v2)"));
    let json: serde_json::Value =
        serde_json::from_str(&hpa_lint(&["explain", "--no-config", "-o", "json", "-"], hpa).stdout).unwrap();
    assert_eq!(
        (&json[0]["namespace"], &json[0]["name"], &json[0]["generateName"]),
        (&"shop".into(), &"".into(), &"web-".into())
    );
    let named =
        hpa_lint(&["explain", "--no-config", "-o", "json", "-"], &hpa.replace("generateName: web-", "name: web"));
    let named: serde_json::Value = serde_json::from_str(&named.stdout).unwrap();
    assert_eq!(named[0]["name"], "web");
    assert!(named[0].get("generateName").is_none());
}

/// An input without an HPA (a Deployment's file) is said to have nothing to explain, on
/// standard error, rather than answered with an empty output; the run is clean (JSON: `[]`).
/// With an HPA, or one kube-apiserver rejects, nothing is added.
#[test]
fn explain_says_when_there_is_no_hpa_to_explain() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n";
    let run = hpa_lint(&["explain", "--no-config", "-"], deployment);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    assert_eq!(run.stderr, "hpa-lint: note: nothing to explain: no HorizontalPodAutoscaler in <stdin>\n");
    let json = hpa_lint(&["explain", "--no-config", "-o", "json", "-"], deployment);
    assert_eq!(json.json(), serde_json::json!([]));
    let rejected = hpa_lint(
        &["explain", "--no-config", "-"],
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {maxReplicas: x}\n",
    );
    assert_eq!(rejected.code, 1);
    assert!(!rejected.stderr.contains("nothing to explain"), "{}", rejected.stderr);
}
