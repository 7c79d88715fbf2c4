//! HPA204 `unsupported-resource-metric`: a resource the resource metrics API does not serve.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `Resource` or `ContainerResource` metric on anything but `cpu` or `memory`
    /// (`nvidia.com/gpu`, `ephemeral-storage`, ...). kube-apiserver accepts any resource name.
    ///
    /// ## Why it matters
    ///
    /// The HPA controller reads `Resource` metrics from the resource metrics API
    /// (`metrics.k8s.io`, served by metrics-server), which reports only cpu and memory. Every pod
    /// lacks a sample, the metric fails with `did not receive metrics for targeted pods`, and the
    /// HPA does not scale on it.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// - type: Resource
    ///   resource: {name: nvidia.com/gpu, target: {type: Utilization, averageUtilization: 80}}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Export the value through a custom or external metrics adapter (for GPUs, DCGM exporter
    /// and prometheus-adapter) and use a `Pods` or `External` metric.
    pub struct UnsupportedResourceMetric {
        id: "HPA204",
        name: "unsupported-resource-metric",
        severity: Warning,
        summary: "a Resource metric on a resource the resource metrics API does not serve",
        needs_objects: false,
    }
}

impl Rule for UnsupportedResourceMetric {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        for (i, m) in cx.written.spec.metrics.iter().enumerate() {
            let (source, name) = if let Some(r) = &m.resource {
                ("resource", &r.name)
            } else if let Some(r) = &m.container_resource {
                ("containerResource", &r.name)
            } else {
                continue;
            };
            if !name.is_empty() && name != "cpu" && name != "memory" {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.metrics[{i}].{source}.name"),
                        format!(
                            "the resource metrics API reports only cpu and memory, not {name:?}: this metric never produces a value"
                        ),
                    )
                    .help("serve it through a custom or external metrics adapter and use a Pods or External metric"),
                );
            }
        }
    }
}
