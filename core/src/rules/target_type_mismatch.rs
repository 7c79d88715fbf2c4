//! HPA203 `target-type-mismatch`: a target whose `type` does not match the value it sets.

use super::{Context, Finding, Rule, RuleMeta, Severity};
use crate::api::v2::MetricTarget;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A metric target whose `type` does not name the value it sets (`type: Utilization` with
    /// `averageValue`, `type: Value` with `averageValue`, ...), or a `type` its source does not take:
    /// `Pods` takes only `AverageValue`; `Resource` and `ContainerResource` take `Utilization` or
    /// `AverageValue`; `Object` and `External` take `Value` or `AverageValue`. kube-apiserver checks
    /// neither. Also a value set besides the one the type names (an Object metric's
    /// `type: Value` with `averageValue` too), which kube-apiserver accepts and the controller
    /// ignores (a warning on the unused value).
    ///
    /// ## Why it matters
    ///
    /// For `Resource`, `ContainerResource`, `Pods` and `External` metrics the controller ignores
    /// `type` and uses whichever value is set, so the HPA does not do what its readers think it
    /// does. For `Object` metrics it is worse: the controller requires the type to name the value and
    /// fails the metric (`invalid object metric source: neither a value target nor an average value
    /// target was set`), which also blocks every scale-down; those findings are errors.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: memory
    ///       target:
    ///         type: Utilization
    ///         averageValue: 500Mi
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: memory
    ///       target:
    ///         type: AverageValue
    ///         averageValue: 500Mi
    /// ```
    ///
    /// ## How to fix
    ///
    /// Make `type` name the value you set: `AverageValue` with `averageValue`, `Value` with `value`,
    /// `Utilization` with `averageUtilization`; and use a type the metric source takes.
    pub struct TargetTypeMismatch {
        id: "HPA203",
        name: "target-type-mismatch",
        severity: Warning,
        summary: "a metric target's type does not match the value it sets",
        needs_objects: false,
    }
}

fn set_fields(t: &MetricTarget) -> Vec<&'static str> {
    let mut v = Vec::new();
    if t.value.is_some() {
        v.push("value");
    }
    if t.average_value.is_some() {
        v.push("averageValue");
    }
    if t.average_utilization.is_some() {
        v.push("averageUtilization");
    }
    v
}

fn expected_field(type_: &str) -> Option<&'static str> {
    match type_ {
        "Utilization" => Some("averageUtilization"),
        "Value" => Some("value"),
        "AverageValue" => Some("averageValue"),
        _ => None,
    }
}

fn type_for(field: &str) -> &'static str {
    match field {
        "averageUtilization" => "Utilization",
        "value" => "Value",
        _ => "AverageValue",
    }
}

impl Rule for TargetTypeMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        for (i, m) in cx.written.spec.metrics.iter().enumerate() {
            let (source, target, allowed): (&str, &MetricTarget, &[&str]) = if let Some(s) = &m.object {
                ("object", &s.target, &["Value", "AverageValue"])
            } else if let Some(s) = &m.external {
                ("external", &s.target, &["Value", "AverageValue"])
            } else if let Some(s) = &m.pods {
                ("pods", &s.target, &["AverageValue"])
            } else if let Some(s) = &m.resource {
                ("resource", &s.target, &["Utilization", "AverageValue"])
            } else if let Some(s) = &m.container_resource {
                ("containerResource", &s.target, &["Utilization", "AverageValue"])
            } else {
                continue;
            };
            let Some(expected) = expected_field(&target.type_) else { continue };
            let set = set_fields(target);
            let path = || format!("spec.metrics[{i}].{source}.target.type");
            let fatal = source == "object";
            if !set.contains(&expected) && set.len() == 1 {
                let used = set[0];
                let mut f = Finding::new(
                    &Self::META,
                    path(),
                    if fatal {
                        format!(
                            "target type is {} but {used} is set: the controller fails this Object metric",
                            target.type_
                        )
                    } else {
                        format!(
                            "target type is {} but {used} is set: the controller ignores the type and uses {used}",
                            target.type_
                        )
                    },
                )
                .help(format!("write `type: {}`", type_for(used)));
                if fatal {
                    f.severity = Severity::Error;
                }
                out.push(f);
            } else if set.contains(&expected) && set.len() > 1 && allowed.contains(&target.type_.as_str()) {
                // kube-apiserver refuses two values on an External, a Resource or a
                // ContainerResource target only in some pairs (HPA000 says so); the others pass.
                for unused in set.iter().filter(|f| **f != expected) {
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("spec.metrics[{i}].{source}.target.{unused}"),
                            format!(
                                "target type is {} and {unused} is set too: the controller uses {expected} and ignores {unused}",
                                target.type_
                            ),
                        )
                        .help(if allowed.contains(&type_for(unused)) {
                            format!(
                                "remove `{unused}`, or, to scale on it, write `type: {}` and remove `{expected}`",
                                type_for(unused)
                            )
                        } else {
                            format!("remove `{unused}` ({} metrics take {} targets)", m.type_, allowed.join(" or "))
                        }),
                    );
                }
            } else if !allowed.contains(&target.type_.as_str()) {
                let mut f = Finding::new(
                    &Self::META,
                    path(),
                    format!("{} metrics take {} targets, not {}", m.type_, allowed.join(" or "), target.type_),
                )
                .help(format!("use `type: {}`", allowed[0]));
                // The controller fails an Object metric whose type names neither of its values.
                if fatal {
                    f.severity = Severity::Error;
                    f.message.push_str(": the controller fails this Object metric");
                }
                out.push(f);
            }
        }
    }
}
