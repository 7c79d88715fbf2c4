//! Every controller conformance vector passes through the dry-run evaluator.

use hpa_tests::conformance::assert_file_passes as check;

#[test]
fn controller_replica_calc() {
    check("controller/replica_calc.json");
}

#[test]
fn controller_upstream_replica_calc() {
    check("controller/upstream_replica_calc.json");
}

#[test]
fn controller_normalize() {
    check("controller/normalize.json");
}

#[test]
fn controller_timelines() {
    check("controller/timelines.json");
}

#[test]
fn controller_upstream_horizontal() {
    check("controller/upstream_horizontal.json");
}

#[test]
fn controller_fresh_replica_calc() {
    check("controller/fresh_replica_calc.json");
}

#[test]
fn controller_fresh_timelines() {
    check("controller/fresh_timelines.json");
}
