//! Every vendored conformance vector passes through the public API.

use hpa_tests::conformance::assert_file_passes as check;

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

#[test]
fn api_number_literals_and_duplicate_keys() {
    check("api/literals.json");
}

#[test]
fn api_field_validation() {
    check("api/field_validation.json");
}
