//! The linter's outputs on the bundled examples, as snapshots: human (no colour), JSON and
//! SARIF; the SARIF is also validated against the SARIF 2.1.0 JSON schema.
//!
//! Cargo runs integration tests from the package directory (`tests/`), so the examples are
//! `../examples/manifests`, the path the outputs show.

use hpa_tests::cli::hpa_lint;

const EXAMPLES: &str = "../examples/manifests";

#[test]
fn human() {
    let run = hpa_lint(&["--no-config", "--color", "never", EXAMPLES], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn json() {
    let run = hpa_lint(&["--no-config", "-o", "json", EXAMPLES], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_json_snapshot!(run.json());
}

#[test]
fn github() {
    let run = hpa_lint(&["--no-config", "-o", "github", EXAMPLES], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn good_examples_are_clean() {
    let run = hpa_lint(&["--no-config", "--fail-on", "info", &format!("{EXAMPLES}/good")], "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

fn sarif_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("sarif/sarif-schema-2.1.0.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::options().with_draft(jsonschema::Draft::Draft4).build(&schema).unwrap()
}

fn assert_valid_sarif(sarif: &serde_json::Value) {
    let validator = sarif_schema();
    let errors: Vec<String> = validator.iter_errors(sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "SARIF schema violations:\n{}", errors.join("\n"));
}

#[test]
fn sarif_is_valid_and_stable() {
    let run = hpa_lint(&["--no-config", "-o", "sarif", EXAMPLES], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif = run.json();
    assert_valid_sarif(&sarif);
    // What GitHub code scanning needs: every result has a rule in the driver, a level and a
    // region with a start line and column.
    let run0 = &sarif["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run0["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1 && region["startColumn"].as_u64().unwrap() >= 1);
        assert!(rules[index]["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
    }
    // The rules' documentation changes with the docs; the results are what is snapshotted.
    insta::assert_json_snapshot!(run0["results"]);
}

#[test]
fn sarif_of_edge_cases_is_valid() {
    // Standard input, an unreadable YAML file, a finding with related locations, a note.
    let run = hpa_lint(
        &["--no-config", "-o", "sarif", "-"],
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a}\nspec: {maxReplicas: [}\n",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_valid_sarif(&run.json());
    let run = hpa_lint(&["--no-config", "-o", "sarif", "--fail-on", "never", "data/realworld/hpa"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sarif = run.json();
    assert_valid_sarif(&sarif);
    assert_eq!(sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap().len(), 1);
}

/// An HPA written with `generateName` and no name is shown as `Display` shows such objects,
/// `web-*` in its namespace as resolved, in every output: SARIF named it
/// `HorizontalPodAutoscaler/default/` and the human label "without a name".
#[test]
fn generate_name_objects_are_shown_by_their_prefix() {
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  generateName: web-\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target: {type: Utilization, averageUtilization: 60}\n";
    let sarif: serde_json::Value =
        serde_json::from_str(&hpa_lint(&["--no-config", "-o", "sarif", "-"], hpa).stdout).unwrap();
    let logical = &sarif["runs"][0]["results"][0]["locations"][0]["logicalLocations"];
    assert_eq!(logical[0]["name"], "web-*");
    assert_eq!(logical[0]["fullyQualifiedName"], "HorizontalPodAutoscaler/default/web-*");
    assert_eq!(logical[1]["fullyQualifiedName"], "HorizontalPodAutoscaler/default/web-*/spec.maxReplicas");

    let json: serde_json::Value =
        serde_json::from_str(&hpa_lint(&["--no-config", "-o", "json", "-"], hpa).stdout).unwrap();
    assert_eq!(
        json["diagnostics"][0]["object"],
        serde_json::json!({"kind": "HorizontalPodAutoscaler", "namespace": "default", "name": "", "generateName": "web-", "document": 0, "item": null})
    );

    // The namespace as resolved: the one the other objects of the set name.
    let with_shop = format!("{hpa}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: shop}}\n");
    let human = hpa_lint(&["--no-config", "-"], &with_shop).stdout;
    assert!(human.contains("the HPA can never scale (HorizontalPodAutoscaler\n  │ shop/web-*)\n"), "{human}");
    let named = hpa_lint(&["--no-config", "-o", "sarif", "-"], &hpa.replace("generateName: web-", "name: web")).stdout;
    assert!(named.contains("\"fullyQualifiedName\": \"HorizontalPodAutoscaler/default/web\""), "{named}");
}
