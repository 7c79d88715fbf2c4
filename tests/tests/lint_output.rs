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
