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
