//! HPA205 `duplicate-metric`: the same metric listed twice.

use super::{Context, Finding, Rule, RuleMeta};
use crate::api::v2::MetricSpec;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// Two entries of `spec.metrics` that measure the same thing, whatever their targets: the same
    /// resource (of the same container), the same `Pods` or `External` metric with the same
    /// selector, or the same metric of the same object.
    ///
    /// ## Why it matters
    ///
    /// The controller computes a proposal per metric and takes the highest, so of two targets for
    /// one metric only the stricter one ever matters. It is usually an edit that added a new target
    /// without removing the old one, and readers then believe the other target is in effect.
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
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 60}
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 80}
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
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 60}
    ///   - type: Resource
    ///     resource:
    ///       name: memory
    ///       target: {type: Utilization, averageUtilization: 80}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Keep one entry per metric, with the target you mean.
    pub struct DuplicateMetric {
        id: "HPA205",
        name: "duplicate-metric",
        severity: Warning,
        summary: "the same metric appears twice in spec.metrics",
        needs_objects: false,
    }
}

fn identity(m: &MetricSpec) -> Option<String> {
    let sel = |s: &Option<crate::api::LabelSelector>| serde_json::to_string(s).unwrap_or_default();
    if let Some(r) = &m.resource {
        return Some(format!("Resource/{}", r.name));
    }
    if let Some(r) = &m.container_resource {
        return Some(format!("ContainerResource/{}/{}", r.container, r.name));
    }
    if let Some(p) = &m.pods {
        return Some(format!("Pods/{}/{}", p.metric.name, sel(&p.metric.selector)));
    }
    if let Some(o) = &m.object {
        let d = &o.described_object;
        return Some(format!(
            "Object/{}/{}/{}/{}/{}",
            d.api_version,
            d.kind,
            d.name,
            o.metric.name,
            sel(&o.metric.selector)
        ));
    }
    if let Some(e) = &m.external {
        return Some(format!("External/{}/{}", e.metric.name, sel(&e.metric.selector)));
    }
    None
}

impl Rule for DuplicateMetric {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let ids: Vec<Option<String>> = cx.written.spec.metrics.iter().map(identity).collect();
        for (i, id) in ids.iter().enumerate() {
            let Some(id) = id else { continue };
            if let Some(first) = ids[..i].iter().position(|n| n.as_ref() == Some(id)) {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.metrics[{i}]"),
                        format!("spec.metrics[{i}] measures the same metric as spec.metrics[{first}]: only the higher proposal of the two ever counts"),
                    )
                    .help("keep one entry per metric"),
                );
            }
        }
    }
}
