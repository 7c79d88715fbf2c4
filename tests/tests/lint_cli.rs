//! `hpa-lint validate` and `default` on good, bad and hostile input.

use std::fs;

use hpa_tests::cli::hpa_lint;
use serde_json::Value;

use hpa_tests::VALID_HPA as VALID;

fn write(dir: &tempfile::TempDir, name: &str, content: impl AsRef<[u8]>) -> String {
    let path = dir.path().join(name);
    fs::write(&path, content).unwrap();
    path.display().to_string()
}

fn entries(run: &hpa_tests::cli::CapturedRun) -> Vec<Value> {
    run.json().as_array().unwrap().clone()
}

#[test]
fn valid_object_exits_zero() {
    let run = hpa_lint(&["validate", "-o", "json", "-"], VALID);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let e = &entries(&run)[0];
    assert_eq!(e["allowed"], true);
    assert_eq!(e["namespace"], "default");
    assert_eq!(e["document"], 0);
    assert_eq!(e["file"], "<stdin>");
}

#[test]
fn invalid_object_reports_errors_with_positions() {
    let text = VALID.replace("maxReplicas: 5", "minReplicas: 3\n  maxReplicas: 2");
    let run = hpa_lint(&["validate", "-o", "json", "-"], &text);
    assert_eq!(run.code, 1);
    let e = &entries(&run)[0];
    assert_eq!(e["allowed"], false);
    assert_eq!(
        e["message"],
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
    );
    let err = &e["errors"][0];
    assert_eq!(err["type"], "FieldValueInvalid");
    assert_eq!(err["field"], "spec.maxReplicas");
    assert_eq!(err["value"], 2);
    assert_eq!((err["line"].as_u64(), err["column"].as_u64()), (Some(8), Some(16)));
}

#[test]
fn wrong_types_and_unknown_fields_are_decode_errors() {
    let text = VALID.replace("maxReplicas: 5", "maxReplicas: \"ten\"\n  miniReplicas: 1");
    let run = hpa_lint(&["validate", "-o", "json", "-"], &text);
    assert_eq!(run.code, 1);
    let e = &entries(&run)[0];
    assert_eq!(e["errors"][0]["type"], "InvalidValue");
    assert_eq!(e["errors"][0]["field"], "spec.maxReplicas");
    assert_eq!(e["errors"][0]["line"], 7);
    // Like kube-apiserver, a type error stops decoding; unknown fields are reported alone.
    let run = hpa_lint(
        &["validate", "-o", "json", "-"],
        &VALID.replace("maxReplicas: 5", "maxReplicas: 5\n  miniReplicas: 1"),
    );
    let u = &entries(&run)[0]["errors"][0];
    assert_eq!(u["type"], "UnknownField");
    assert_eq!(u["field"], "spec.miniReplicas");
    assert_eq!((u["line"].as_u64(), u["column"].as_u64()), (Some(8), Some(3)));
    let msg = entries(&hpa_lint(&["validate", "-o", "json", "-"], &text))[0]["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: "),
        "{msg}"
    );
}

/// `default`, `convert` and `explain` place a decoding error where `validate` and `hpa-lint`
/// do: at the field kube-apiserver names (the first in the order kubectl sends the keys), and
/// an unknown field at its key.
#[test]
fn every_command_places_a_decoding_error_at_its_field() {
    let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n";
    let prefix = "HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: ";
    let cases = [
        (
            format!("{head}  minReplicas: \"2\"\n  maxReplicas: \"10\"\n"),
            (7, 16),
            "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        ),
        (
            format!("{head}  maxReplicas: 3\n  zeta: 1\n  alpha: 1\n"),
            (8, 3),
            "strict decoding error: unknown field \"spec.alpha\", unknown field \"spec.zeta\"",
        ),
    ];
    for (text, (line, column), detail) in cases {
        let run = hpa_lint(&["validate", "--no-config", "-o", "json", "-"], &text);
        let first = &entries(&run)[0]["errors"][0];
        assert_eq!((first["line"].as_u64(), first["column"].as_u64()), (Some(line), Some(column)), "{text}");
        let run = hpa_lint(&["--no-config", "-o", "json", "-"], &text);
        let placed: Vec<(u64, u64)> = run.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()))
            .collect();
        assert!(placed.contains(&(line, column)), "{placed:?}");
        let message = format!("<stdin>:{line}:{column}: {prefix}{detail}");
        for command in
            [&["default", "--no-config", "-"][..], &["convert", "--no-config", "--to", "autoscaling/v1", "-"]]
        {
            let run = hpa_lint(command, &text);
            assert_eq!(run.code, 1, "{command:?}");
            assert_eq!(run.stderr.trim_end(), format!("hpa-lint: error: {message}"), "{command:?}");
        }
        let run = hpa_lint(&["explain", "--no-config", "-"], &text);
        assert_eq!(run.code, 1);
        let explained = format!(
            "hpa-lint: error: <stdin>:{line}:{column}: cannot explain an object kube-apiserver rejects: {prefix}{detail}"
        );
        assert_eq!(run.stderr.trim_end(), explained);
    }
}

#[test]
fn an_array_where_an_object_is_expected() {
    let text = VALID.replace("  maxReplicas: 5\n", "  maxReplicas: 5\n  behavior: [1, 2]\n");
    let run = hpa_lint(&["validate", "-o", "json", "-"], &text);
    let e = &entries(&run)[0];
    assert_eq!(e["errors"][0]["field"], "spec.behavior");
    assert_eq!(
        e["errors"][0]["message"],
        "json: cannot unmarshal array into Go struct field HorizontalPodAutoscalerSpec.spec.behavior of type v2.HorizontalPodAutoscalerBehavior",
        "{e}"
    );
}

#[test]
fn bad_files_do_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(&dir, "a-good.yaml", VALID);
    let broken = write(
        &dir,
        "b-broken.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec: {maxReplicas: [\n",
    );
    let binary = write(&dir, "c-binary.yaml", [0u8, 159, 146, 150]);
    let empty = write(&dir, "d-empty.yaml", "");
    let tabs = write(&dir, "e-tabs.yaml", "kind: HorizontalPodAutoscaler\nspec:\n\tmaxReplicas: 1\n");
    let missing = dir.path().join("missing.yaml").display().to_string();
    let run = hpa_lint(&["validate", "-o", "json", &good, &broken, &binary, &empty, &tabs, &missing], "");
    assert_eq!(run.code, 2, "an unreadable path is an I/O error");
    assert!(run.stderr.contains("missing.yaml"), "{}", run.stderr);
    let e = entries(&run);
    assert_eq!(e[0]["allowed"], true);
    assert_eq!(e[1]["errors"][0]["type"], "SyntaxError");
    assert_eq!(e[1]["line"], 4);
    assert!(e[2]["message"].as_str().unwrap().contains("binary content"));
    assert_eq!(e[3]["errors"][0]["type"], "SyntaxError");
    assert_eq!(e[3]["line"], 3);
    assert_eq!(e.len(), 4, "the empty file holds no object");
}

#[test]
fn lists_and_multiple_documents() {
    let text =
        format!("apiVersion: v1\nkind: List\nitems:\n- {}\n---\n{VALID}", VALID.trim_end().replace('\n', "\n  "));
    let run = hpa_lint(&["validate", "-o", "json", "-"], &text);
    let e = entries(&run);
    assert_eq!(e.len(), 2);
    assert_eq!((e[0]["document"].as_u64(), e[0]["item"].as_u64()), (Some(0), Some(0)));
    assert_eq!(e[1]["document"], 1);
}

#[test]
fn update_semantics_with_old() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(&dir, "old.yaml", VALID.replace("name: web\n", "name: web\n  resourceVersion: \"3\"\n").replace("maxReplicas: 5", "minReplicas: 0\n  maxReplicas: 5\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: Value, value: 1}}"));
    let new = write(&dir, "new.yaml", fs::read_to_string(&old).unwrap().replace("maxReplicas: 5", "maxReplicas: 6"));
    let gates = ["--kubernetes-version", "1.36"];
    let create = hpa_lint(&[&["validate", "-o", "json"], &gates[..], &[new.as_str()]].concat(), "");
    assert_eq!(create.code, 1, "minReplicas 0 needs HPAScaleToZero on create");
    let update = hpa_lint(&[&["validate", "-o", "json", "--old", &old], &gates[..], &[new.as_str()]].concat(), "");
    assert_eq!(update.code, 0, "{}", update.stdout);
    assert_eq!(entries(&update)[0]["operation"], "UPDATE");
}

#[test]
fn feature_gates_and_versions() {
    let text = VALID.replace("maxReplicas: 5", "minReplicas: 0\n  maxReplicas: 5\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: Value, value: 1}}");
    assert_eq!(hpa_lint(&["validate", "--kubernetes-version", "1.36", "-"], &text).code, 1);
    assert_eq!(hpa_lint(&["validate", "--kubernetes-version", "1.37", "-"], &text).code, 0);
    assert_eq!(
        hpa_lint(&["validate", "--kubernetes-version", "1.36", "--feature-gates", "HPAScaleToZero=true", "-"], &text)
            .code,
        0
    );
    let bad = hpa_lint(&["validate", "--feature-gates", "HPAConfigurableTolerance=false", "-"], &text);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("locked"), "{}", bad.stderr);
    assert_eq!(hpa_lint(&["validate", "--kubernetes-version", "1.20", "-"], &text).code, 2);
}

/// `--feature-gates` takes what kube-apiserver takes: gates that concern no HPA (a warning on
/// standard error), `AllAlpha`/`AllBeta`, a GA gate set to its locked value (kube-apiserver's
/// warning); it refuses what cannot be a gate.
#[test]
fn feature_gates_as_kube_apiserver_takes_them() {
    let text = VALID.replace("maxReplicas: 5", "minReplicas: 0\n  maxReplicas: 5\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: Value, value: 1}}");
    let run =
        |gates: &str| hpa_lint(&["validate", "--kubernetes-version", "1.36", "--feature-gates", gates, "-"], &text);
    let other = run("InPlacePodVerticalScaling=true");
    assert_eq!(other.code, 1, "accepted, and HPAScaleToZero stays off: {}", other.stderr);
    assert!(
        other.stderr.contains(
            "hpa-lint: warning: --feature-gates: feature gate InPlacePodVerticalScaling=true: not an HPA gate, ignored"
        ),
        "{}",
        other.stderr
    );
    assert_eq!(run("AllAlpha=true").code, 0, "AllAlpha switches the alpha HPAScaleToZero on");
    assert_eq!(run("AllAlpha=true,HPAScaleToZero=false").code, 1, "an explicit value wins");
    let ga = run("DeclarativeValidation=true,AllAlpha=true");
    assert_eq!(ga.code, 0);
    assert!(
        ga.stderr
            .contains("Setting GA feature gate DeclarativeValidation=true. It will be removed in a future release."),
        "{}",
        ga.stderr
    );
    let bad = run("hpaScaleToZero=true");
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unrecognized feature gate: hpaScaleToZero"), "{}", bad.stderr);
    // The configuration's gates warn with their position.
    let dir = tempfile::tempdir().unwrap();
    let cfg =
        write(&dir, "c.yaml", "kubernetesVersion: \"1.36\"\nfeatureGates: {AllAlpha: true, SidecarContainers: true}\n");
    let configured = hpa_lint(&["validate", "--config", &cfg, "-"], &text);
    assert_eq!(configured.code, 0, "{}", configured.stderr);
    assert!(
        configured.stderr.contains("c.yaml:2:15: featureGates: feature gate SidecarContainers=true: not an HPA gate"),
        "{}",
        configured.stderr
    );
}

#[test]
fn default_prints_objects_in_their_own_version() {
    let run = hpa_lint(&["default", "-o", "json", "-"], VALID);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["spec"]["minReplicas"], 1);
    assert_eq!(v["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
    assert!(v.get("status").is_none());
    let yaml = hpa_lint(&["default", "-"], VALID);
    assert!(yaml.stdout.contains("minReplicas: 1\n"), "{}", yaml.stdout);
}

#[test]
fn validate_reads_the_release_and_gates_of_the_configuration() {
    // minReplicas 0 needs HPAScaleToZero: off in 1.36, on in 1.37.
    let text = VALID.replace("maxReplicas: 5", "minReplicas: 0\n  maxReplicas: 5\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: Value, value: 1}}");
    let dir = tempfile::tempdir().unwrap();
    let old_release = write(&dir, "old.yaml", "kubernetesVersion: \"1.36\"\n");
    let gate_on = write(&dir, "gate.yaml", "kubernetesVersion: \"1.36\"\nfeatureGates: {HPAScaleToZero: true}\n");
    let validate = |extra: &[&str]| hpa_lint(&[&["validate"], extra, &["-"]].concat(), &text);
    assert_eq!(validate(&["--config", &old_release]).code, 1, "kubernetesVersion applies");
    assert_eq!(validate(&["--config", &gate_on]).code, 0, "featureGates apply");
    assert_eq!(validate(&["--config", &old_release, "--kubernetes-version", "1.37"]).code, 0, "the flag wins");
    assert_eq!(validate(&["--config", &gate_on, "--feature-gates", "HPAScaleToZero=false"]).code, 1, "the flag wins");
    assert_eq!(validate(&["--no-config"]).code, 0);
    let conflict = validate(&["--no-config", "--config", &old_release]);
    assert_eq!(conflict.code, 2, "--config and --no-config conflict as in lint");
    let bad = write(&dir, "bad.yaml", "kubernetesVersion: \"1.20\"\n");
    let run = validate(&["--config", &bad]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad.yaml"), "the error names the file: {}", run.stderr);
}

/// An HPA in a version the release does not serve (autoscaling/v2beta2 since 1.26, v2beta1
/// since 1.25) is refused as kubectl refuses it (its RESTMapper: `resource mapping not found`,
/// never sent), with what HPA401 says to do; not "ok", and a decoding error in it is not worded
/// as kube-apiserver's, which never sees it. Exit 1, as for every refusal.
#[test]
fn validate_refuses_an_unserved_version_in_kubectls_words() {
    let v2beta2 = "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: x\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n  minReplicas: 2\n  maxReplicas: five\n";
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "hpa.yaml", v2beta2);
    let run = hpa_lint(&["validate", "--kubernetes-version", "1.37", &file], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "{file}:1:13: error: resource mapping not found for name: \"x\" namespace: \"\" from \"{file}\": no matches for kind \"HorizontalPodAutoscaler\" in version \"autoscaling/v2beta2\"
ensure CRDs are installed first
  autoscaling/v2beta2 is not served since Kubernetes 1.26: use autoscaling/v2
0 HorizontalPodAutoscalers: 0 valid, 0 invalid; 1 HorizontalPodAutoscaler in a version the release does not serve, never sent; 0 other objects skipped
"
        )
    );
    let v2beta1 = "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: prod}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n  maxReplicas: 5\n";
    let run = hpa_lint(&["validate", "-o", "json", "--kubernetes-version", "1.33", "-"], v2beta1);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let message = "resource mapping not found for name: \"web\" namespace: \"prod\" from \"STDIN\": no matches for kind \"HorizontalPodAutoscaler\" in version \"autoscaling/v2beta1\"\nensure CRDs are installed first";
    assert_eq!(
        run.json(),
        serde_json::json!([{
            "file": "<stdin>", "document": 0, "line": 1, "column": 1,
            "apiVersion": "autoscaling/v2beta1", "kind": "HorizontalPodAutoscaler",
            "namespace": "prod", "name": "web", "operation": "CREATE", "allowed": false,
            "message": message,
            "errors": [{
                "type": "NoKindMatch", "field": "apiVersion", "value": "autoscaling/v2beta1",
                "detail": "autoscaling/v2beta1 is not served since Kubernetes 1.25: use autoscaling/v2",
                "message": message, "line": 1, "column": 13
            }],
            "warnings": []
        }])
    );
    // `lint` says the same of the version (HPA401), as an error.
    let run = hpa_lint(&["--no-config", "-o", "json", "-"], v2beta1);
    assert_eq!(
        run.json()["diagnostics"][0]["message"],
        "autoscaling/v2beta1 is not served since Kubernetes 1.25: use autoscaling/v2"
    );
}

/// An option before a subcommand (`hpa-lint -o json validate x`) makes the subcommand a path
/// to lint: a usage error that says so (unless a file of that name exists: then it is linted).
#[test]
fn a_subcommand_after_an_option_is_a_usage_error_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "hpa.yaml", VALID);
    let run = hpa_lint(&["--color", "never", "validate", &file], "");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "nothing is linted: {}", run.stdout);
    assert!(
        run.stderr.contains("\"validate\" is no file or directory here but a subcommand")
            && run.stderr.contains("`hpa-lint validate [OPTIONS] ...`"),
        "{}",
        run.stderr
    );
}

/// A document with `items` and no `kind`: kubectl refuses it (`Object 'Kind' is missing`), and
/// every command says so, in kubectl's words (the linter as HPA000); under `kind: List` the
/// same items are one list kubectl sends.
#[test]
fn a_list_without_a_kind_is_refused_by_every_command() {
    let item: String = VALID.lines().map(|l| format!("  {l}\n")).collect::<String>().replacen("  ", "- ", 1);
    let kindless = format!("items:\n{item}");
    let listed = format!("apiVersion: v1\nkind: List\n{kindless}");

    let run = hpa_lint(&["validate", "-o", "json", "-"], &kindless);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let all = entries(&run);
    let refused: Vec<&Value> = all.iter().filter(|e| e["allowed"] == false).collect();
    assert_eq!(refused.len(), 1, "{all:?}");
    assert_eq!(refused[0]["errors"][0]["type"], "TypeMeta");
    assert!(
        refused[0]["message"].as_str().unwrap().starts_with("Object 'Kind' is missing in '{\"items\":["),
        "{all:?}"
    );
    assert!(all.iter().any(|e| e["kind"] == "HorizontalPodAutoscaler" && e["allowed"] == true), "{all:?}");
    for command in ["default", "convert", "explain"] {
        let mut args = vec![command, "-"];
        if command == "convert" {
            args.extend(["--to", "autoscaling/v1"]);
        }
        let run = hpa_lint(&args, &kindless);
        assert_eq!(run.code, 1, "{command}: {}", run.stderr);
        assert!(run.stderr.contains("<stdin>:1:1: Object 'Kind' is missing in '"), "{command}: {}", run.stderr);
    }
    let run = hpa_lint(&["--no-config", "-o", "json", "-"], &kindless);
    assert!(run.json()["diagnostics"].as_array().unwrap().iter().any(|d| d["rule"] == "HPA000" && d["path"] == "kind"));

    let run = hpa_lint(&["validate", "-o", "json", "-"], &listed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(entries(&run).iter().all(|e| e["allowed"] == true));
    for command in ["default", "explain"] {
        let run = hpa_lint(&[command, "-"], &listed);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        assert!(!run.stderr.contains("Object 'Kind'"), "{command}: {}", run.stderr);
    }
}

/// `validate` points at each error where `hpa-lint` points at it: a whole list by its key
/// (`metrics:`), as the linter's HPA000 does, not at its first item.
#[test]
fn validate_and_lint_point_at_the_same_place() {
    let text = VALID.replace(
        "maxReplicas: 5",
        "minReplicas: 0\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 0}}",
    );
    let validated = hpa_lint(&["validate", "--no-config", "-o", "json", "-"], &text).json();
    let validate: Vec<(String, u64, u64)> = validated[0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap().to_string(), e["line"].as_u64().unwrap(), e["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        validate,
        [
            ("spec.metrics[0].resource.target.averageUtilization".to_string(), 11, 75),
            ("spec.metrics".to_string(), 9, 3)
        ]
    );
    let linted = hpa_lint(&["--no-config", "--select", "HPA000", "-o", "json", "-"], &text).json();
    let mut lint: Vec<(String, u64, u64)> = linted["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["path"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()))
        .collect();
    lint.sort_by_key(|(path, ..)| std::cmp::Reverse(path.len()));
    assert_eq!(lint, validate);
}

/// An HPA without `apiVersion` (or with `null`) is version `""` to kubectl's RESTMapper,
/// which refuses it before anything is sent (kubectl 1.32: `resource mapping not found for
/// name: "web" namespace: "" from "hpa.yaml": no matches for kind "HorizontalPodAutoscaler" in
/// version ""`): not an answer of kube-apiserver, which never sees it.
#[test]
fn an_hpa_without_api_version_is_refused_in_kubectls_words() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, column) in [
        ("missing.yaml", VALID.replace("apiVersion: autoscaling/v2\n", ""), 1),
        ("null.yaml", VALID.replace("apiVersion: autoscaling/v2", "apiVersion: null"), 13),
    ] {
        let file = write(&dir, name, text);
        let run = hpa_lint(&["validate", "--no-config", &file], "");
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(
            run.stdout,
            format!(
                "{file}:1:{column}: error: resource mapping not found for name: \"web\" namespace: \"\" from \"{file}\": no matches for kind \"HorizontalPodAutoscaler\" in version \"\"
ensure CRDs are installed first
0 HorizontalPodAutoscalers: 0 valid, 0 invalid; 1 HorizontalPodAutoscaler in a version the release does not serve, never sent; 0 other objects skipped
"
            )
        );
        let linted = hpa_lint(&["--no-config", "-o", "json", &file], "").json();
        let d = &linted["diagnostics"][0];
        assert_eq!(
            (d["rule"].as_str(), d["message"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
            (
                Some("HPA000"),
                Some("no matches for kind \"HorizontalPodAutoscaler\" in version \"\""),
                Some(1),
                Some(column)
            )
        );
    }
}

/// A list with an item that is no mapping is refused whole by kubectl (`unable to decode`):
/// `validate` reports no verdict for its HPAs, which are never sent. Each item kubectl refuses
/// is named in `-o json` by its document and index, with what it writes of its identity.
#[test]
fn refused_list_items_are_named_and_their_list_is_not_sent() {
    let list = "apiVersion: v1\nkind: List\nitems:\n\
                - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: a}, spec: {maxReplicas: 1}}\n\
                - 42\n";
    let run = hpa_lint(&["validate", "--no-config", "-"], list);
    assert_eq!(
        run.stdout,
        "<stdin>:5:3: error: json: cannot unmarshal number into Go value of type map[string]interface {}\n\
         0 HorizontalPodAutoscalers: 0 valid, 0 invalid; 1 document kubectl cannot decode; 0 other objects skipped\n"
    );
    let linted = hpa_lint(&["--no-config", "-o", "json", "-"], list).json();
    let objects: Vec<&Value> = linted["diagnostics"].as_array().unwrap().iter().map(|d| &d["object"]).collect();
    assert_eq!(objects, [&serde_json::json!({"kind": "", "namespace": null, "name": "", "document": 0, "item": 1})]);
    let untyped = "apiVersion: v1\nkind: List\nitems:\n- {metadata: {name: a, namespace: shop}}\n- {kind: HorizontalPodAutoscaler, metadata: {generateName: b-}}\n";
    let linted = hpa_lint(&["--no-config", "-o", "json", "-"], untyped).json();
    let found: Vec<(&Value, &Value)> =
        linted["diagnostics"].as_array().unwrap().iter().map(|d| (&d["line"], &d["object"])).collect();
    assert_eq!(
        found,
        [
            (
                &Value::from(4),
                &serde_json::json!({"kind": "", "namespace": "shop", "name": "a", "document": 0, "item": 0})
            ),
            (
                &Value::from(5),
                &serde_json::json!({"kind": "HorizontalPodAutoscaler", "namespace": null, "name": "", "generateName": "b-", "document": 0, "item": 1})
            ),
        ]
    );
    // SARIF names an item by what it writes; one that writes nothing has no logical location.
    let sarif = hpa_lint(&["--no-config", "-o", "sarif", "-"], untyped).json();
    let logical = &sarif["runs"][0]["results"][0]["locations"][0]["logicalLocations"];
    assert_eq!(logical[0]["fullyQualifiedName"], "/shop/a");
    let sarif = hpa_lint(&["--no-config", "-o", "sarif", "-"], list).json();
    assert_eq!(sarif["runs"][0]["results"][0]["locations"][0]["logicalLocations"], serde_json::json!([]));
}

/// `--timings` (`HPA_LINT_TIMINGS`) writes each phase's time through the run's standard error,
/// and nothing else changes; without it, standard error stays empty (the library prints
/// nothing of its own).
#[test]
fn timings_go_to_the_runs_standard_error() {
    let plain = hpa_lint(&["-o", "json", "-"], VALID);
    let timed = hpa_lint(&["--timings", "-o", "json", "-"], VALID);
    assert_eq!(timed.code, plain.code);
    assert_eq!(timed.stdout, plain.stdout);
    assert_eq!(plain.stderr, "");
    let phases: Vec<&str> = timed.stderr.lines().map(|l| l.split_once(" ms  ").map_or(l, |(_, phase)| phase)).collect();
    assert_eq!(phases, ["lint", "lint, report"]);
}

/// The checkout's root, where the examples of `--help` run.
fn workspace_root() -> std::path::PathBuf {
    hpa_tests::data_dir().join("../..")
}

/// Every example of every `hpa-lint` command's `--help` runs, from the checkout's root, with
/// the exit status its comment names (`exit N`, else 0); an example with a pipe or a
/// redirection, or whose comment says `live` or `writes a file`, is not run.
#[test]
fn help_examples_run_with_the_status_they_name() {
    fn walk(command: &clap::Command, found: &mut Vec<(String, String)>) {
        if let Some(text) = command.get_after_long_help() {
            // Within the help's width (100 columns), so clap never wraps a command in two.
            let text = text.to_string();
            let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 100).collect();
            assert!(long.is_empty(), "{}: lines clap would wrap: {long:?}", command.get_name());
            let text = text.replace("\\\n", " ");
            let mut comment = String::new();
            for line in text.lines().map(str::trim) {
                if let Some(c) = line.strip_prefix('#') {
                    comment = c.to_string();
                } else if line.starts_with("hpa-lint") {
                    found.push((line.to_string(), std::mem::take(&mut comment)));
                }
            }
        }
        command.get_subcommands().for_each(|sub| walk(sub, found));
    }
    let mut examples = Vec::new();
    walk(&<hpa_lint::cli::Args as clap::CommandFactory>::command(), &mut examples);
    let root = workspace_root();
    let mut ran = 0;
    for (line, comment) in &examples {
        if line.contains(['|', '>']) || comment.contains("live") || comment.contains("writes a file") {
            continue;
        }
        let expected: u8 = comment.split_once("exit ").map_or(0, |(_, n)| n.trim().parse().unwrap());
        // Paths are the checkout's, made absolute: the test runs in `tests/`.
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(|a| {
                if root.join(a).exists() && a.contains('/') {
                    root.join(a).display().to_string()
                } else {
                    a.to_string()
                }
            })
            .collect();
        // `--no-config` (no `.hpa-lint.yaml` found upward changes the outcome) after the
        // subcommand, when the command takes it.
        let cli = <hpa_lint::cli::Args as clap::CommandFactory>::command();
        let sub = args.first().and_then(|a| cli.find_subcommand(a));
        let takes_config = sub.unwrap_or(&cli).get_arguments().any(|a| a.get_long() == Some("no-config"));
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        if takes_config {
            args.insert(usize::from(sub.is_some()), "--no-config");
        }
        let run = hpa_lint(&args, "");
        assert_eq!(run.code, expected, "`{line}` (# {comment}) exited {}:\n{}", run.code, run.stderr);
        ran += 1;
    }
    assert!(ran >= 15, "only {ran} examples ran: {examples:?}");
}

/// A path that does not exist is an error that says what to check (status 2), and the
/// other inputs are still linted.
#[test]
fn a_missing_path_says_what_to_check() {
    let good = workspace_root().join("examples/manifests/good").display().to_string();
    let run = hpa_lint(&["--no-config", "no-such-dir/", &good], "");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "hpa-lint: error: no-such-dir/: no such file or directory\n  help: check the path (relative paths start at \
             the working directory)"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("in 2 HorizontalPodAutoscalers"), "{}", run.stdout);
    for sub in ["validate", "default", "convert", "explain"] {
        let run = hpa_lint(&[sub, "--no-config", "no-such.yaml"], "");
        assert_eq!(run.code, 2, "{sub}");
        assert!(run.stderr.contains("no-such.yaml: no such file or directory\n  help: "), "{sub}: {}", run.stderr);
    }
}

/// A directory without YAML or JSON files and an input without any HPA are not an error
/// (status 0: pre-commit and the Action pass on them) but a note says nothing was checked (for
/// an input without HPAs, in the human output).
#[test]
fn nothing_to_check_is_said() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir, "notes.txt", "not a manifest");
    let empty = dir.path().display().to_string();
    let run = hpa_lint(&["--no-config", &empty], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "hpa-lint: note: {empty}: no *.yaml, *.yml or *.json file here (after .gitignore and --exclude): nothing to \
             read; give the directory that holds your manifests\n"
        )
    );
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n";
    let run = hpa_lint(&["--no-config", "-"], deployment);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "hpa-lint: note: no HorizontalPodAutoscaler in the input: nothing to check; give the files or directories \
         that hold your HPAs\n"
    );
    let values = write(&dir, "values.yaml", "replicaCount: 2\nimage: {tag: latest}\n");
    let run = hpa_lint(&["--no-config", &values], "");
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("no HorizontalPodAutoscaler in the input: nothing to check"), "{}", run.stderr);
    // With an HPA, nothing is said; JSON and SARIF say `hpas: 0` in their own terms.
    assert_eq!(hpa_lint(&["--no-config", "-"], VALID).stderr, "");
    assert_eq!(hpa_lint(&["--no-config", "-o", "json", "-"], deployment).stderr, "");
}

/// `-o sarif` on a terminal prints the report and a note saying where it belongs; redirected,
/// nothing is said.
#[test]
fn sarif_to_a_terminal_says_to_redirect_it() {
    let args = <hpa_lint::cli::Args as clap::Parser>::parse_from(["hpa-lint", "--no-config", "-o", "sarif", "-"]);
    let mut input = VALID.as_bytes();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = hpa_lint::Output { stdin: &mut input, stdout: &mut out, stderr: &mut err, terminal: true };
    assert_eq!(hpa_lint::run(args, &mut io).code(), 0);
    assert!(String::from_utf8_lossy(&out).contains("\"version\": \"2.1.0\""));
    assert_eq!(
        String::from_utf8_lossy(&err),
        "hpa-lint: note: SARIF is written for tools (code scanning): redirect it to a file (`hpa-lint -o sarif PATH > \
         hpa-lint.sarif`), or leave out `-o sarif` for the report for people\n"
    );
    assert_eq!(hpa_lint(&["--no-config", "-o", "sarif", "-"], VALID).stderr, "");
}

/// The common first mistakes each get one sentence saying what to do, with status 2: a release
/// the toolkit does not reproduce, an unknown rule on the command line or in the
/// configuration, a misspelt configuration key.
#[test]
fn first_mistakes_say_what_to_do() {
    for version in ["1.32", "1.39"] {
        let run = hpa_lint(&["--kubernetes-version", version, "-"], VALID);
        assert_eq!(run.code, 2);
        assert!(
            run.stderr.contains(&format!(
                "unsupported Kubernetes version \"{version}\": supported versions are 1.33 to 1.37, and 1.38 as a preview"
            )),
            "{}",
            run.stderr
        );
    }
    for flag in ["--ignore", "--disable"] {
        let run = hpa_lint(&["--no-config", flag, "HPA999", "-"], VALID);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, "hpa-lint: error: unknown rule \"HPA999\" (see `hpa-lint rules`)\n"),
            "{flag}"
        );
    }
    // `--disable` is `--ignore`.
    let bad = "../examples/manifests/bad";
    let ignored = hpa_lint(&["--no-config", "-o", "json", "--ignore", "HPA410,HPA201", bad], "");
    let disabled = hpa_lint(&["--no-config", "-o", "json", "--disable", "HPA410", "--disable", "HPA201", bad], "");
    assert_eq!(ignored.stdout, disabled.stdout);
    assert!(!ignored.stdout.contains("\"HPA201\""), "{}", ignored.stdout);
    let dir = tempfile::tempdir().unwrap();
    let config = write(&dir, "c.yaml", "rules:\n  HPA999: off\n");
    let run = hpa_lint(&["--config", &config, "-"], VALID);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, format!("hpa-lint: error: {config}:2:3: unknown rule \"HPA999\" (see `hpa-lint rules`)\n"));
    let config = write(&dir, "d.yaml", "rule:\n  HPA101: off\n");
    let run = hpa_lint(&["--config", &config, "-"], VALID);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with(&format!("hpa-lint: error: {config}:1:1: unknown field `rule`; expected one of: ")));
}

/// A `kind: List` without its own `apiVersion` is still a manifest: kubectl reads its items
/// (`kubectl label --local -f` names the HPA in it), so the HPA in it is counted and checked.
#[test]
fn a_list_without_an_api_version_is_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let items: String = VALID.lines().map(|l| format!("  {l}\n")).collect();
    let list = write(&dir, "list.yaml", format!("kind: List\nitems:\n- {}", &items[2..]));
    let run = hpa_lint(&["--no-config", &list], "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.ends_with("in 1 HorizontalPodAutoscaler (1 object)\n"), "{}", run.stdout);
}

/// A Helm chart's `Chart.yaml` and `values.yaml` (linted as files, the chart directory named or
/// its files given one by one) hold no object: the summary counts none of their documents
/// (each was one object), beside a manifest's objects, and `validate` skips none of them.
#[test]
fn a_chart_yaml_is_no_object_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let chart = write(&dir, "Chart.yaml", "apiVersion: v2\nname: demo\nversion: 0.1.0\n");
    let values = write(&dir, "values.yaml", "replicaCount: 1\nkind: DaemonSet\n---\n- a list\n");
    let summary = |args: &[&str]| {
        let run = hpa_lint(&[&["--no-config"], args].concat(), "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.lines().last().unwrap_or_default().to_string()
    };
    let nothing = "0 errors, 0 warnings, 0 infos in 0 HorizontalPodAutoscalers (0 objects)";
    assert_eq!(summary(&[&chart]), nothing);
    assert_eq!(summary(&[&chart, &values]), nothing);
    assert_eq!(summary(&[&dir.path().display().to_string()]), nothing);
    let manifest =
        write(&dir, "hpa.yaml", format!("{VALID}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\n"));
    assert_eq!(
        summary(&[&chart, &values, &manifest]),
        "0 errors, 0 warnings, 0 infos in 1 HorizontalPodAutoscaler (2 objects)"
    );
    let validated = hpa_lint(&["validate", "--no-config", &chart, &values, &manifest], "");
    assert_eq!(validated.code, 0, "{}", validated.stderr);
    assert!(
        validated.stdout.ends_with("1 HorizontalPodAutoscaler: 1 valid, 0 invalid; 1 other object skipped\n"),
        "{}",
        validated.stdout
    );
}
