//! HPA206 `invalid-metric-selector`: a metric selector the controller cannot convert.

use super::{Context, Finding, Rule, RuleMeta};
use crate::features::FeatureGates;
use crate::field::ValueRendering;
use crate::validation::names::content_wording;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The `metric.selector` of each `External`, `Pods` and `Object` metric, converted as the HPA
    /// controller converts it (`metav1.LabelSelectorAsSelector`): every key a valid label key,
    /// every value a valid label value (no spaces, at most 63 bytes), `In` and `NotIn` with
    /// values, `Exists` and `DoesNotExist` without, and no other operator. kube-apiserver does not
    /// validate these selectors: it accepts the HPA.
    ///
    /// The verdict is the same on every release; the quoted error is worded as the selected
    /// release's controller words it (`kubernetesVersion`, `--kubernetes-version`): up to 1.34 a
    /// bad key is "a qualified name" and a name or value too long "must be no more than 63
    /// characters"; from 1.35, where apimachinery checks labels with its `content` package, "a
    /// valid label key" and "must be no more than 63 bytes". 1.33 prints the missing values of an
    /// `In` or `NotIn` as a Go value (`[]string(nil)`), later releases as JSON (`null`).
    ///
    /// ## Why it matters
    ///
    /// The controller converts the selector at every sync and fails the metric with the error
    /// (`FailedGetExternalMetric`, `FailedGetPodsMetric` or `FailedGetObjectMetric`: "the HPA was
    /// unable to compute the replica count: values[0][queue]: Invalid value: ..."): the metric
    /// never has a value, and a failing metric blocks every scale-down.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: worker
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: External
    ///     external:
    ///       metric:
    ///         name: sqs_messages_visible
    ///         selector:
    ///           matchLabels: {queue: "orders queue"}
    ///       target: {type: AverageValue, averageValue: "30"}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: worker
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: External
    ///     external:
    ///       metric:
    ///         name: sqs_messages_visible
    ///         selector:
    ///           matchLabels: {queue: orders}
    ///       target: {type: AverageValue, averageValue: "30"}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write label values the way labels are written (letters, digits, `-`, `_`, `.`; the metrics
    /// adapter must name the series the same way), give `In`/`NotIn` their values and drop the
    /// values of `Exists`/`DoesNotExist`.
    pub struct InvalidMetricSelector {
        id: "HPA206",
        name: "invalid-metric-selector",
        severity: Error,
        summary: "a metric selector the HPA controller cannot convert, failing the metric at every sync",
        needs_objects: false,
    }
}

impl Rule for InvalidMetricSelector {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let release = cx.settings.gates().version();
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            // The metric the controller reads for the type, and the reason it sets on failure
            // (`computeStatusFor{External,Pods,Object}Metric` in `horizontal.go`).
            let (source, metric, reason) = match m.type_.as_str() {
                "External" => ("external", m.external.as_deref().map(|e| &e.metric), "FailedGetExternalMetric"),
                "Pods" => ("pods", m.pods.as_deref().map(|p| &p.metric), "FailedGetPodsMetric"),
                "Object" => ("object", m.object.as_deref().map(|o| &o.metric), "FailedGetObjectMetric"),
                _ => continue,
            };
            let Some(metric) = metric else { continue };
            let Some(error) = metric.selector.as_ref().and_then(|s| s.as_selector_error(release)) else { continue };
            out.push(
                Finding::new(
                    &Self::META,
                    format!("spec.metrics[{i}].{source}.metric.selector"),
                    format!(
                        "the controller cannot convert the selector of metric {:?} and fails it at every sync ({reason}: \"the HPA was unable to compute the replica count: {error}\")",
                        metric.name
                    ),
                )
                .help("write the selector as a label selector: valid label keys and values, In/NotIn with values, Exists/DoesNotExist without"),
            );
        }
    }

    /// How the quoted error is worded on the release: the label messages of the package that
    /// checks keys and values ([`content_wording`], as HPA000 says them) and, on 1.33, a value
    /// printed as Go syntax ([`ValueRendering`]).
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        let v = gates.version();
        let mut facts = vec![if content_wording(v) {
            "the quoted error says \"a valid label key\" and \"must be no more than 63 bytes\""
        } else {
            "the quoted error says \"a qualified name\" and \"must be no more than 63 characters\""
        }];
        if ValueRendering::of(v) == ValueRendering::GoReflect {
            facts.push("it prints the missing values of an `In` or `NotIn` as `[]string(nil)`");
        }
        Some(facts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use crate::api::VersionedHpa;
    use crate::check::{self, Input, Options, Written};
    use crate::features::{FeatureGates, KubernetesVersion};
    use crate::rules::Rule;

    /// HPA206's messages for an HPA whose External metric `q` has `selector`, on `release`.
    fn messages(selector: serde_json::Value, release: KubernetesVersion) -> Vec<(String, String)> {
        let object = serde_json::json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "worker"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"},
                "maxReplicas": 10, "metrics": [{"type": "External", "external": {
                    "metric": {"name": "q", "selector": selector},
                    "target": {"type": "AverageValue", "averageValue": "30"}}}]}
        });
        let object: VersionedHpa = crate::api::decode(&object).unwrap();
        let opts = Options::for_gates(FeatureGates::new(release));
        let input =
            Input { object: Written::Decoded(Box::new(object)), old: None, id: None, world: None, duplicate_keys: &[] };
        let report = check::check(input, &opts);
        assert!(report.allowed(), "{:?}", report.message());
        crate::rules::hpa_findings(report.findings, "HPA206")
    }

    /// The finding around the controller's error `error`.
    fn finding(error: &str) -> Vec<(String, String)> {
        vec![(
            "spec.metrics[0].external.metric.selector".to_string(),
            format!(
                "the controller cannot convert the selector of metric \"q\" and fails it at every sync (FailedGetExternalMetric: \"the HPA was unable to compute the replica count: {error}\")"
            ),
        )]
    }

    const KEY_FORMAT: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

    #[test]
    fn the_label_messages_change_in_1_35() {
        let key = serde_json::json!({"matchLabels": {"example.com/team/x": "web"}});
        let long = "a".repeat(64);
        let value = serde_json::json!({"matchLabels": {"queue": long}});
        for release in [KubernetesVersion::V1_33, KubernetesVersion::V1_34] {
            assert_eq!(
                messages(key.clone(), release),
                finding(&format!("key: Invalid value: \"example.com/team/x\": a qualified name {KEY_FORMAT}"))
            );
            assert_eq!(
                messages(value.clone(), release),
                finding(&format!("values[0][queue]: Invalid value: \"{long}\": must be no more than 63 characters"))
            );
        }
        for release in [KubernetesVersion::V1_35, KubernetesVersion::V1_36, KubernetesVersion::V1_38] {
            assert_eq!(
                messages(key.clone(), release),
                finding(&format!("key: Invalid value: \"example.com/team/x\": a valid label key {KEY_FORMAT}"))
            );
            assert_eq!(
                messages(value.clone(), release),
                finding(&format!("values[0][queue]: Invalid value: \"{long}\": must be no more than 63 bytes"))
            );
        }
    }

    #[test]
    fn the_missing_values_are_go_syntax_on_1_33_only() {
        let selector = serde_json::json!({"matchExpressions": [{"key": "tier", "operator": "In"}]});
        let empty = |value: &str| {
            finding(&format!("values: Invalid value: {value}: for 'in', 'notin' operators, values set can't be empty"))
        };
        assert_eq!(messages(selector.clone(), KubernetesVersion::V1_33), empty("[]string(nil)"));
        assert_eq!(messages(selector, KubernetesVersion::V1_34), empty("null"));
    }

    /// `hpa-lint rules --kubernetes-version` says the same, on both sides of 1.35.
    #[test]
    fn on_release_says_how_the_error_is_worded() {
        let on = |release| super::InvalidMetricSelector.on_release(&FeatureGates::new(release)).unwrap_or_default();
        assert_eq!(
            on(KubernetesVersion::V1_33),
            "the quoted error says \"a qualified name\" and \"must be no more than 63 characters\"; it prints the missing values of an `In` or `NotIn` as `[]string(nil)`"
        );
        assert_eq!(
            on(KubernetesVersion::V1_34),
            "the quoted error says \"a qualified name\" and \"must be no more than 63 characters\""
        );
        assert_eq!(
            on(KubernetesVersion::V1_35),
            "the quoted error says \"a valid label key\" and \"must be no more than 63 bytes\""
        );
        assert_eq!(on(KubernetesVersion::V1_38), on(KubernetesVersion::V1_35));
    }
}
