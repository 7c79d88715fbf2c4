//! HPA206 `invalid-metric-selector`: a metric selector the controller cannot convert.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The `metric.selector` of each `External`, `Pods` and `Object` metric, converted as the HPA
    /// controller converts it (`metav1.LabelSelectorAsSelector`): every key a valid label key,
    /// every value a valid label value (no spaces, at most 63 characters), `In` and `NotIn` with
    /// values, `Exists` and `DoesNotExist` without, and no other operator. kube-apiserver does not
    /// validate these selectors: it accepts the HPA.
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
}
