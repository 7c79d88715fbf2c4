//! Every vendored conformance vector passes through the public API.

use hpa_tests::conformance::run_file;

fn check(file: &str) {
    let path = hpa_tests::data_dir().join("conformance").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let results = run_file(&text, file).unwrap();
    assert!(!results.is_empty());
    let failed: Vec<String> = results.iter().filter(|r| !r.pass).map(|r| format!("{}: got {}", r.id, r.got)).collect();
    assert!(failed.is_empty(), "{} of {} vectors failed:\n{}", failed.len(), results.len(), failed.join("\n"));
}

#[test]
fn api_validation() {
    check("api/validation.json");
}

#[test]
fn api_defaulting() {
    check("api/defaulting.json");
}

#[test]
fn api_conversion() {
    check("api/conversion.json");
}

#[test]
fn api_per_release() {
    check("api/versions.json");
}
