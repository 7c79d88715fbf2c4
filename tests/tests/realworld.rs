//! The 146 real-world manifests of `data/realworld` (public repositories, unmodified): every
//! tool handles each one without a crash, stays quiet on the valid ones, and finds the real
//! mistakes.

use std::collections::BTreeSet;

use hpa_tests::cli::hpa_lint;

fn corpus() -> String {
    hpa_tests::data_dir().join("realworld").join("hpa").display().to_string()
}

/// The objects kube-apiserver rejects, reviewed one by one against `SOURCES.md` (each is a
/// mistake noted there, a fixture or fragment, a placeholder name, a removed version, or a
/// scale target without an API group).
fn expected_invalid() -> BTreeSet<String> {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("realworld/expected-invalid.txt")).unwrap();
    text.lines().map(str::to_string).collect()
}

#[test]
fn validate_rejects_exactly_the_known_bad_objects() {
    let run = hpa_lint(&["validate", "-o", "json", &corpus()], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let entries = run.json();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 182, "every HorizontalPodAutoscaler object is checked");
    let invalid: BTreeSet<String> = entries
        .iter()
        .filter(|e| e["allowed"] == false)
        .map(|e| {
            let file = e["file"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
            format!("{file} {} {}", e["document"], e["name"].as_str().unwrap())
        })
        .collect();
    assert_eq!(invalid, expected_invalid());
    for e in entries {
        for err in e["errors"].as_array().unwrap() {
            assert!(err["line"].as_u64().unwrap() >= 1, "every error is positioned: {err}");
        }
    }
}

#[test]
fn default_handles_every_file() {
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path().display().to_string();
        let run = hpa_lint(&["default", "-o", "json", &path], "");
        assert!(run.code <= 1, "{path}: {}", run.stderr);
    }
}
