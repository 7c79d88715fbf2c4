//! `hpa-lint convert --to V -o json` on every conversion vector, compared as the vectors'
//! README prescribes; conversions that must fail exit non-zero with the error on stderr.

use hpa_tests::cli::hpa_lint;
use hpa_tests::conformance::api::objects_equal;
use serde_json::Value;

#[test]
fn conversion_vectors_through_the_cli() {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("conformance/api/conversion.json")).unwrap();
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    for v in &vectors {
        let id = v["id"].as_str().unwrap();
        let to = v["toVersion"].as_str().unwrap();
        let run = hpa_lint(&["convert", "--to", to, "-o", "json", "-"], &v["input"].to_string());
        if let Some(prefix) = v.get("expectError").and_then(Value::as_str) {
            assert_ne!(run.code, 0, "{id}: must fail");
            assert!(run.stderr.contains(prefix), "{id}: {}", run.stderr);
            continue;
        }
        assert_eq!(run.code, 0, "{id}: {}", run.stderr);
        let as_json: Vec<String> = v
            .get("compareAnnotationsAsJSON")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
            .unwrap_or_default();
        assert!(objects_equal(&run.json(), &v["expect"], &as_json), "{id}: got {}", run.stdout);
    }
}

#[test]
fn an_unparsable_tolerance_annotation_fails_the_conversion() {
    let input = "apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  annotations:
    autoscaling.alpha.kubernetes.io/scale-up-tolerance: abc
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
";
    let run = hpa_lint(&["convert", "--to", "autoscaling/v2", "-"], input);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("failed to parse annotation \"autoscaling.alpha.kubernetes.io/scale-up-tolerance\""),
        "{}",
        run.stderr
    );
}

#[test]
fn other_objects_keep_their_text_and_comments() {
    let input = "# a comment\napiVersion: v1\nkind: Service   # trailing\nmetadata: {name: web}\n---\napiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n";
    let run = hpa_lint(&["convert", "--to", "autoscaling/v2", "-"], input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("# a comment\napiVersion: v1\nkind: Service   # trailing\n"), "{}", run.stdout);
    assert!(run.stdout.contains("apiVersion: autoscaling/v2\n"), "{}", run.stdout);
}

#[test]
fn lossy_conversions_are_reported() {
    let input = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}
";
    let run = hpa_lint(&["convert", "--to", "autoscaling/v1", "-"], input);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("lossy conversion: spec.metrics[1]: a second cpu utilization metric is dropped"),
        "{}",
        run.stderr
    );
}
