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

/// spec/versions.md §2, "client-side `metadata.creationTimestamp: null`" (1.33 emitted it, 1.34
/// omits it, #130989): the row concerns a Go client serializing an object that was never
/// stored (`kubectl create --dry-run=client -o yaml`, `kubectl convert`), whose zero
/// `metav1.Time` encoded as `null` until `omitzero`. `default` and `convert` print the object
/// kube-apiserver's defaulting and conversion make, in this tool's printer (other documents keep
/// their text; no field kube-apiserver sets when it stores the object, such as
/// `creationTimestamp`, `uid` or `resourceVersion`, is invented), not a client's printout; and
/// kube-apiserver's answer for that object, once stored, has a real `creationTimestamp`. So no
/// release prints `null` here: a `creationTimestamp: null` read is the zero time, omitted on
/// 1.33 as on 1.34, and a real one is kept.
#[test]
fn creation_timestamp_null_is_omitted_on_every_release() {
    let hpa = |ts: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  creationTimestamp: {ts}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n"
        )
    };
    for release in ["1.33", "1.34", "1.37"] {
        for command in [
            &["default", "--kubernetes-version", release, "-o", "json", "-"][..],
            &["convert", "--kubernetes-version", release, "--to", "autoscaling/v1", "-o", "json", "-"][..],
        ] {
            let run = hpa_lint(command, &hpa("null"));
            assert_eq!(run.code, 0, "{command:?}: {}", run.stderr);
            let metadata = &run.json()["metadata"];
            assert_eq!(metadata, &serde_json::json!({"name": "web"}), "{command:?}: {}", run.stdout);
            let run = hpa_lint(command, &hpa("\"2026-03-02T10:00:00Z\""));
            assert_eq!(run.json()["metadata"]["creationTimestamp"], "2026-03-02T10:00:00Z", "{command:?}");
        }
    }
}

/// apimachinery #140459 (1.38): `String()` writes a DecimalSI value past the `E` suffix in its
/// decimal exponent form; before, `CanonicalizeBytes` dropped the exponent, so the object
/// kube-apiserver 1.37 defaults, converts and stores holds `1` where `1000E` was sent.
#[test]
fn a_decimal_si_value_past_e_is_written_as_the_release_writes_it() {
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods:\n      metric: {name: qps}\n      target: {type: AverageValue, averageValue: 1000E}\n";
    for (release, written) in [("1.33", "1"), ("1.37", "1"), ("1.38", "1e21")] {
        for command in [
            &["default", "--kubernetes-version", release, "-o", "json", "-"][..],
            &["convert", "--kubernetes-version", release, "--to", "autoscaling/v2", "-o", "json", "-"][..],
        ] {
            let run = hpa_lint(command, hpa);
            assert_eq!(run.code, 0, "{command:?}: {}", run.stderr);
            assert_eq!(run.json()["spec"]["metrics"][0]["pods"]["target"]["averageValue"], written, "{command:?}");
        }
    }
}

/// #137856 (1.36): an `AverageValue` Object target is written to the v1 metrics annotation with
/// the `"targetValue":"0"` the v1 type cannot omit. Before 1.36, reading it back makes that zero
/// `target.value` (refused: `must be positive`, kubernetes#87733), so the conversion to v1 is
/// lossy there and says so; from 1.36 the zero is dropped and nothing is lost. `validate` of the
/// v1 form refuses it before 1.36 only.
#[test]
fn an_average_value_object_target_comes_back_from_v1_with_a_zero_value_before_1_36() {
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Object\n    object:\n      describedObject: {apiVersion: v1, kind: Service, name: q}\n      metric: {name: backlog}\n      target: {type: AverageValue, averageValue: \"10\"}\n";
    let lost = "lossy conversion: spec.metrics[0].object.target.value: autoscaling/v1 cannot hold it as written; it comes back as \"0\"";
    for (release, lossy) in [("1.33", true), ("1.35", true), ("1.36", false), ("1.37", false)] {
        let run = hpa_lint(&["convert", "--kubernetes-version", release, "--to", "autoscaling/v1", "-"], hpa);
        assert_eq!(run.code, 0, "{release}: {}", run.stderr);
        assert_eq!(run.stderr.contains(lost), lossy, "{release}: {}", run.stderr);
        assert!(run.stdout.contains(r#""targetValue":"0","averageValue":"10""#), "{release}: {}", run.stdout);
        let v1 = run.stdout;
        let valid = hpa_lint(&["validate", "--kubernetes-version", release, "-"], &v1);
        assert_eq!(valid.code, u8::from(lossy), "{release}: {}", valid.stdout);
        if release == "1.35" {
            assert!(
                valid.stdout.contains("spec.metrics[0].object.target.value: Invalid value: \"0\": must be positive"),
                "{}",
                valid.stdout
            );
        }
    }
}

/// `default` prints an HPA as kube-apiserver returns it in the version it was written in:
/// defaulted, converted to the internal form (where `autoscaling/v1` gets its 80 % CPU target,
/// `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`), stored as
/// `autoscaling/v2` and read back (the storage codec applies v2's defaulting, which completes a
/// `behavior` the v1 annotation holds), and converted back, with the annotations as the server
/// writes them (the internal `behavior` type has no json tags). A v2 object loses the
/// round-trip annotations on the way (`Convert_v2_HorizontalPodAutoscaler_To_autoscaling_...`).
/// Alike on every release that serves both versions.
#[test]
fn default_prints_an_hpa_as_kube_apiserver_returns_it() {
    let input = r#"apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: plain}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: annotated
  annotations:
    autoscaling.alpha.kubernetes.io/metrics: '[{"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "1k"}}]'
    autoscaling.alpha.kubernetes.io/behavior: '{"scaleDown": {"stabilizationWindowSeconds": 60}}'
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: v2
  annotations: {autoscaling.alpha.kubernetes.io/conditions: '[]', team: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
"#;
    let want = r#"apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: plain
spec:
  scaleTargetRef:
    kind: Deployment
    name: web
    apiVersion: apps/v1
  minReplicas: 1
  maxReplicas: 5
  targetCPUUtilizationPercentage: 80
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: annotated
  annotations:
    autoscaling.alpha.kubernetes.io/behavior: '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}'
    autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k"}}]'
spec:
  scaleTargetRef:
    kind: Deployment
    name: web
    apiVersion: apps/v1
  minReplicas: 1
  maxReplicas: 5
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: v2
  annotations:
    team: web
spec:
  scaleTargetRef:
    kind: Deployment
    name: web
    apiVersion: apps/v1
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 80
"#;
    for release in ["1.33", "1.34", "1.35", "1.36", "1.37", "1.38"] {
        let run = hpa_lint(&["default", "--kubernetes-version", release, "-o", "yaml", "-"], input);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{release}");
        assert_eq!(run.stdout, want, "{release}");
    }
}

/// A version no release of 1.33–1.38 serves has no server answer: `default` gives it its own
/// version's defaulting only, annotations untouched (kube-apiserver would not parse them).
#[test]
fn default_leaves_an_unserved_version_to_its_own_defaulting() {
    let input = "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  annotations: {autoscaling.alpha.kubernetes.io/scale-up-tolerance: abc}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n";
    let run = hpa_lint(&["default", "--kubernetes-version", "1.33", "-o", "json", "-"], input);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.json(),
        serde_json::json!({
            "apiVersion": "autoscaling/v2beta2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "annotations": {"autoscaling.alpha.kubernetes.io/scale-up-tolerance": "abc"}},
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
            }
        })
    );
}

/// `default` prints what a create returns: with `HPAConfigurableTolerance` off (1.33 and 1.34 by
/// default, or switched off with `--feature-gates`) the strategy's `PrepareForCreate` drops each
/// `tolerance`, silently in kube-apiserver, with a warning here; from 1.35 (gate on) it stays.
/// In `autoscaling/v1` the behavior annotation comes back without it (`"Tolerance":null`).
#[test]
fn default_drops_a_tolerance_the_release_drops_on_create() {
    let v2 = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n  behavior:\n    scaleDown:\n      tolerance: \"0.05\"\n      policies: [{type: Pods, value: 1, periodSeconds: 15}]\n";
    let default = |args: &[&str], input: &str| {
        hpa_lint(&[&["default", "--no-config", "-o", "json"], args, &["-"]].concat(), input)
    };
    let warning = |release: &str| {
        format!(
            "hpa-lint: warning: <stdin>:1:1: spec.behavior.scaleDown.tolerance dropped: HPAConfigurableTolerance is off in Kubernetes {release}, and kube-apiserver drops the field on create\n"
        )
    };
    for (args, tolerance, stderr) in [
        (&["--kubernetes-version", "1.33"][..], Value::Null, warning("1.33")),
        (&["--kubernetes-version", "1.34"][..], Value::Null, warning("1.34")),
        (&["--kubernetes-version", "1.35"][..], Value::from("50m"), String::new()),
        (
            &["--kubernetes-version", "1.36", "--feature-gates", "HPAConfigurableTolerance=false"][..],
            Value::Null,
            warning("1.36"),
        ),
        (
            &["--kubernetes-version", "1.34", "--feature-gates", "HPAConfigurableTolerance=true"][..],
            Value::from("50m"),
            String::new(),
        ),
    ] {
        let run = default(args, v2);
        assert_eq!((run.code, run.stderr.as_str()), (0, stderr.as_str()), "{args:?}");
        let rules = &run.json()["spec"]["behavior"]["scaleDown"];
        assert_eq!(rules["tolerance"], tolerance, "{args:?}: {rules}");
        assert_eq!(rules["policies"][0]["value"], 1, "{args:?}: the rest is kept");
    }
    let v1 = "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  annotations:\n    autoscaling.alpha.kubernetes.io/behavior: '{\"ScaleDown\":{\"Tolerance\":\"0.05\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":15}]}}'\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n";
    let behavior = |release: &str| {
        let run = default(&["--kubernetes-version", release], v1);
        assert_eq!(run.code, 0, "{release}: {}", run.stderr);
        let annotation = run.json()["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"].clone();
        serde_json::from_str::<Value>(annotation.as_str().unwrap()).unwrap()["ScaleDown"]["Tolerance"].clone()
    };
    assert_eq!(behavior("1.34"), Value::Null);
    assert_eq!(behavior("1.35"), Value::from("50m"));
}
