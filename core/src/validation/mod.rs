//! HPA validation exactly as kube-apiserver performs it.
//!
//! [`validate_create`] and [`validate_update`] mirror `ValidateHorizontalPodAutoscaler` and
//! `ValidateHorizontalPodAutoscalerUpdate` in `pkg/apis/autoscaling/validation/validation.go`.
//! The surrounding request logic (strategy options, the generic metadata checks of
//! `rest.BeforeCreate`/`BeforeUpdate`, declarative validation in 1.37) lives in
//! [`crate::admission`].

pub mod meta;
pub mod names;
pub mod spec;

use crate::api::v2::HorizontalPodAutoscaler;
use crate::field::{ErrorList, Path};

pub use spec::{RefOptions, SpecOptions};

/// `ValidateHorizontalPodAutoscaler`: metadata (DNS-subdomain name, namespace, labels,
/// annotations, owner references, finalizers, managed fields) then spec.
pub fn validate_create(hpa: &HorizontalPodAutoscaler, opts: &SpecOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = meta::validate_object_meta(&hpa.metadata, meta::NameRule::DnsSubdomain, &meta_path, opts.release);
    errs.extend(meta::validate_kube_finalizers(&hpa.metadata.finalizers, &meta_path.child("finalizers")));
    errs.extend(spec::validate_spec(&hpa.spec, &Path::new("spec"), opts));
    errs
}

/// `ValidateHorizontalPodAutoscalerUpdate`: metadata update rules then spec (the name format is
/// not checked again).
pub fn validate_update(new: &HorizontalPodAutoscaler, old: &HorizontalPodAutoscaler, opts: &SpecOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata, &meta_path, opts.release);
    errs.extend(meta::validate_kube_finalizers(&new.metadata.finalizers, &meta_path.child("finalizers")));
    errs.extend(spec::validate_spec(&new.spec, &Path::new("spec"), opts));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::{self, AdmissionOptions, Operation};
    use crate::api;
    use crate::features::{FeatureGates, Gate, KubernetesVersion};

    fn base() -> Value {
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
            }
        })
    }

    fn with(path: &str, value: Value) -> Value {
        let mut obj = base();
        let mut cur = &mut obj;
        let parts: Vec<&str> = path.split('.').collect();
        for (i, p) in parts.iter().enumerate() {
            let key: Value = p.parse::<usize>().map_or_else(|_| Value::from(*p), Value::from);
            if i + 1 == parts.len() {
                match (&mut *cur, key) {
                    (Value::Object(m), Value::String(k)) => {
                        m.insert(k, value.clone());
                    }
                    (Value::Array(a), Value::Number(n)) => a[n.as_u64().unwrap() as usize] = value.clone(),
                    _ => panic!("bad path {path}"),
                }
                break;
            }
            cur = match key {
                Value::String(k) => cur.as_object_mut().unwrap().entry(k).or_insert_with(|| json!({})),
                Value::Number(n) => &mut cur.as_array_mut().unwrap()[n.as_u64().unwrap() as usize],
                _ => unreachable!(),
            };
        }
        obj
    }

    fn errors_with(obj: &Value, gates: FeatureGates) -> Vec<String> {
        let hpa = api::decode(obj).unwrap();
        let opts = AdmissionOptions { gates, apply_defaults: false, default_namespace: None };
        let out = admission::admit(&hpa, None, Operation::Create, &opts).unwrap();
        out.errors.iter().map(ToString::to_string).collect()
    }

    fn errors(obj: &Value) -> Vec<String> {
        errors_with(obj, FeatureGates::new(KubernetesVersion::V1_36))
    }

    #[test]
    fn valid_base_object() {
        assert_eq!(errors(&base()), Vec::<String>::new());
    }

    #[test]
    fn replica_bounds_and_boundaries() {
        let cases: &[(&str, Value, &[&str])] = &[
            (
                "spec.minReplicas",
                json!(0),
                &[
                    "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                    "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
                ],
            ),
            ("spec.minReplicas", json!(1), &[]),
            (
                "spec.maxReplicas",
                json!(0),
                &[
                    "spec.maxReplicas: Required value: must be set and greater than 0",
                    "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
                ],
            ),
            (
                "spec.maxReplicas",
                json!(-1),
                &[
                    "spec.maxReplicas: Invalid value: -1: must be greater than or equal to 1",
                    "spec.maxReplicas: Invalid value: -1: must be greater than or equal to `minReplicas`",
                ],
            ),
            ("spec.maxReplicas", json!(1), &[]),
        ];
        for (path, value, want) in cases {
            assert_eq!(errors(&with(path, value.clone())), *want, "{path} = {value}");
        }
    }

    #[test]
    fn scale_to_zero_depends_on_the_gate_and_metric_type() {
        let zero = with("spec.minReplicas", json!(0));
        let v36 = FeatureGates::new(KubernetesVersion::V1_36);
        let on = v36.clone().with(Gate::HPAScaleToZero, true).unwrap();
        assert_eq!(
            errors_with(&zero, on.clone()),
            [
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"
            ]
        );
        let mut ext = zero.clone();
        ext["spec"]["metrics"] = json!([{"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "10"}}}]);
        assert!(errors_with(&ext, on).is_empty());
        assert_eq!(errors_with(&ext, v36).len(), 1);
        // 1.37 turns the gate on by default; the declarative error comes last.
        assert!(errors_with(&ext, FeatureGates::new(KubernetesVersion::V1_37)).is_empty());
    }

    #[test]
    fn behavior_boundaries() {
        let rules = |window: i64, period: i64| {
            with(
                "spec.behavior",
                json!({"scaleDown": {"stabilizationWindowSeconds": window,
                "policies": [{"type": "Percent", "value": 10, "periodSeconds": period}]}}),
            )
        };
        assert!(errors(&rules(3600, 1800)).is_empty());
        assert!(errors(&rules(0, 1)).is_empty());
        assert_eq!(
            errors(&rules(3601, 1801)),
            [
                "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
                "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
            ]
        );
        assert_eq!(
            errors(&rules(-1, 0)),
            [
                "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
                "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
            ]
        );
        let tol = with(
            "spec.behavior",
            json!({"scaleUp": {"tolerance": "-0.05", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}]}}),
        );
        assert_eq!(
            errors(&tol),
            ["spec.behavior.scaleUp.tolerance: Invalid value: \"-50m\": must be greater than or equal to 0"]
        );
        // With the gate off, tolerance is dropped silently on create.
        let off = FeatureGates::new(KubernetesVersion::V1_36).with(Gate::HPAConfigurableTolerance, false).unwrap();
        assert!(errors_with(&tol, off).is_empty());
    }

    #[test]
    fn names_of_253_and_254_characters() {
        let ok = "a".repeat(253);
        assert!(errors(&with("metadata.name", json!(ok))).is_empty());
        let long = "a".repeat(254);
        assert_eq!(
            errors(&with("metadata.name", json!(long))),
            [format!("metadata.name: Invalid value: \"{long}\": must be no more than 253 characters")]
        );
        assert_eq!(
            errors(&with("metadata.name", json!(""))),
            ["metadata.name: Required value: name or generateName is required"]
        );
    }

    #[test]
    fn generate_name_is_checked_as_a_prefix() {
        let mut obj = base();
        obj["metadata"] = json!({"generateName": "web-", "namespace": "default"});
        assert!(errors(&obj).is_empty());
        obj["metadata"]["generateName"] = json!("Web-");
        let errs = errors(&obj);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].starts_with("metadata.generateName: Invalid value: \"Web-\": a lowercase RFC 1123 subdomain"));
        assert!(errs[1].starts_with("metadata.name: Invalid value: \"Web-xxxxx\""));
    }

    #[test]
    fn labels_annotations_and_namespace() {
        let errs = errors(&with("metadata.labels", json!({"app": "web", "bad key": "x", "v": "-x"})));
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].starts_with(
            "metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters"
        ));
        assert!(errs[1].starts_with("metadata.labels: Invalid value: \"-x\": a valid label must be an empty string"));
        let errs = errors(&with("metadata.annotations", json!({"Example.COM/Key": "ok", "a/b/c": "x"})));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].starts_with("metadata.annotations: Invalid value: \"a/b/c\": a valid label key must consist"));
        let big = "x".repeat(262_144);
        let errs = errors(&with("metadata.annotations", json!({"k": big})));
        assert_eq!(errs, ["metadata.annotations: Too long: may not be more than 262144 bytes"]);
        let errs = errors(&with("metadata.namespace", json!("Prod")));
        assert!(errs[0].starts_with("metadata.namespace: Invalid value: \"Prod\": a lowercase RFC 1123 label"));
        let errs = errors(&with("metadata.namespace", json!("")));
        assert_eq!(errs, ["metadata.namespace: Required value"]);
    }

    #[test]
    fn finalizers_and_owner_references() {
        let errs = errors(&with("metadata.finalizers", json!(["example.com/cleanup", "custom"])));
        assert_eq!(
            errs,
            [
                "metadata.finalizers[1]: Invalid value: \"custom\": name is neither a standard finalizer name nor is it fully qualified"
            ]
        );
        let errs = errors(&with(
            "metadata.ownerReferences",
            json!([{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]),
        ));
        assert_eq!(
            errs,
            [
                "metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\"}: /v1, Kind=Event is disallowed from being an owner"
            ]
        );
    }

    /// `validateKubeFinalizerName` (pkg/apis/core/validation) only asks a name without a `/` to
    /// be a standard finalizer, at the finalizer's index; a malformed name is apimachinery's
    /// `ValidateFinalizers`' to report, once and without an index. So `bad name` gets both
    /// errors and `a/b/c` one.
    #[test]
    fn finalizer_names_are_checked_once_each_way() {
        let errs = errors(&with("metadata.finalizers", json!(["bad name", "a/b/c", "custom", "kubernetes"])));
        let neither = "name is neither a standard finalizer name nor is it fully qualified";
        assert_eq!(errs.len(), 4, "{errs:?}");
        assert!(
            errs[0].starts_with("metadata.finalizers: Invalid value: \"bad name\": name part must consist"),
            "{errs:?}"
        );
        assert!(
            errs[1].starts_with("metadata.finalizers: Invalid value: \"a/b/c\": a valid label key must consist"),
            "{errs:?}"
        );
        assert_eq!(errs[2], format!("metadata.finalizers[0]: Invalid value: \"bad name\": {neither}"));
        assert_eq!(errs[3], format!("metadata.finalizers[2]: Invalid value: \"custom\": {neither}"));
    }

    #[test]
    fn metric_sources() {
        let m = |metric: Value| with("spec.metrics", json!([metric]));
        assert_eq!(
            errors(&m(
                json!({"type": "Pods", "pods": {"metric": {"name": "a%b"}, "target": {"type": "AverageValue", "averageValue": "1"}}})
            )),
            ["spec.metrics[0].pods.metric.name: Invalid value: \"a%b\": may not contain '%'"]
        );
        assert_eq!(
            errors(&m(
                json!({"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "s", "apiVersion": "a/b/c"}, "metric": {"name": "q"}, "target": {"type": "Value", "value": "1"}}})
            )),
            [
                "spec.metrics[0].object.describedObject.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c"
            ]
        );
        assert_eq!(
            errors(&m(
                json!({"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "a.b", "target": {"type": "Utilization", "averageUtilization": 1}}})
            )),
            ["spec.metrics[0].containerResource.container: Invalid value: \"a.b\": must not contain dots"]
        );
        assert_eq!(
            errors(&m(
                json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 0}}})
            )),
            ["spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"]
        );
        let two = errors(&m(
            json!({"type": "Pods", "pods": {"metric": {"name": "a"}, "target": {"type": "AverageValue", "averageValue": "1"}},
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 1}},
            "external": {"metric": {"name": "e"}, "target": {"type": "Value", "value": "1"}}}),
        ));
        // The first present source (external) is the one validated; the extras are forbidden.
        assert_eq!(
            two,
            [
                "spec.metrics[0].external: Forbidden: must populate the given metric source only",
                "spec.metrics[0].resource: Forbidden: must populate the given metric source only"
            ]
        );
    }

    #[test]
    fn update_rules() {
        let mut old = base();
        old["metadata"]["resourceVersion"] = json!("7");
        let mut new = old.clone();
        new["spec"]["minReplicas"] = json!(0);
        let gates = FeatureGates::new(KubernetesVersion::V1_36);
        let opts = AdmissionOptions { gates: gates.clone(), apply_defaults: false, default_namespace: None };
        let run = |new: &Value, old: &Value| -> Vec<String> {
            let out = admission::admit(
                &api::decode(new).unwrap(),
                Some(&api::decode(old).unwrap()),
                Operation::Update,
                &opts,
            )
            .unwrap();
            out.errors.iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            run(&new, &old),
            [
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
            ]
        );
        // An object created with 0 while the gate was on keeps 0.
        let mut old_zero = new.clone();
        old_zero["spec"]["metrics"] = json!([{"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "1"}}}]);
        let mut new_zero = old_zero.clone();
        new_zero["spec"]["maxReplicas"] = json!(7);
        assert!(run(&new_zero, &old_zero).is_empty());
        // Missing resourceVersion appears twice (generic and HPA update checks).
        let mut no_rv = old.clone();
        no_rv["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        assert_eq!(
            run(&no_rv, &old),
            [
                "metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
                "metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
            ]
        );
        // An unchanged invalid scale target apiVersion ratchets.
        let mut old_core = old.clone();
        old_core["spec"]["scaleTargetRef"]["apiVersion"] = json!("v1");
        assert!(run(&old_core, &old_core).is_empty());
    }

    #[test]
    fn declarative_rules_in_1_37_come_last() {
        let mut obj = with("spec.maxReplicas", json!(0));
        obj["spec"]["scaleTargetRef"]["kind"] = json!("");
        let errs = errors_with(&obj, FeatureGates::new(KubernetesVersion::V1_37));
        assert_eq!(
            errs,
            [
                "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
                "spec.scaleTargetRef.kind: Required value",
                "spec.maxReplicas: Required value",
            ]
        );
        let off = FeatureGates::new(KubernetesVersion::V1_37).with(Gate::DeclarativeValidationBeta, false).unwrap();
        assert_eq!(errors_with(&obj, off)[0], "spec.maxReplicas: Required value: must be set and greater than 0");
    }

    /// `configmaps` is a standard resource (`helper.IsStandardResourceName`) but not a
    /// container's: a ContainerResource metric on it fails only the container check, printed as
    /// each release prints a `core.ResourceName` (a bare `fmt.Stringer` in 1.33, JSON after).
    #[test]
    fn a_container_resource_on_configmaps_fails_only_the_container_check() {
        let obj = with(
            "spec.metrics",
            json!([{"type": "ContainerResource", "containerResource": {"name": "configmaps", "container": "app",
                "target": {"type": "Utilization", "averageUtilization": 80}}}]),
        );
        let at = "spec.metrics[0].containerResource.name: Invalid value:";
        assert_eq!(
            errors_with(&obj, FeatureGates::new(KubernetesVersion::V1_33)),
            [format!("{at} configmaps: must be a standard resource for containers")]
        );
        assert_eq!(
            errors_with(&obj, FeatureGates::new(KubernetesVersion::V1_34)),
            [format!("{at} \"configmaps\": must be a standard resource for containers")]
        );
    }

    /// A metric type is a named Go string type: 1.33 prints it with `%#v` (`strconv.Quote`,
    /// DEL as `\x7f`), 1.34 and later with `encoding/json`, which escapes `<` but writes DEL
    /// as it is.
    #[test]
    fn a_named_value_with_del_and_html_characters_per_release() {
        let obj = with("spec.metrics", json!([{"type": "Foo\u{7f}<"}]));
        let supported = "supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"";
        let first = |v| errors_with(&obj, FeatureGates::new(v)).remove(0);
        assert_eq!(
            first(KubernetesVersion::V1_33),
            format!("spec.metrics[0].type: Unsupported value: \"Foo\\x7f<\": {supported}")
        );
        assert_eq!(
            first(KubernetesVersion::V1_34),
            format!("spec.metrics[0].type: Unsupported value: \"Foo\u{7f}\\u003c\": {supported}")
        );
    }
}
