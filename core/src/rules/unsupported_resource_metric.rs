//! HPA204 `unsupported-resource-metric`: a resource the resource metrics API does not serve.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `Resource` or `ContainerResource` metric on anything but `cpu` or `memory`
    /// (`nvidia.com/gpu`, `ephemeral-storage`, ...). kube-apiserver accepts any resource name for a
    /// `Resource` metric.
    ///
    /// ## Why it matters
    ///
    /// The HPA controller reads `Resource` and `ContainerResource` metrics from the resource metrics
    /// API (`metrics.k8s.io`, served by metrics-server), which reports only cpu and memory. Every pod
    /// lacks a sample, the metric fails (`did not receive metrics for targeted pods`), the HPA never
    /// scales on it, and the failure blocks every scale-down.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: inference
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: inference}
    ///   minReplicas: 1
    ///   maxReplicas: 8
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: nvidia.com/gpu
    ///       target: {type: Utilization, averageUtilization: 80}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: inference
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: inference}
    ///   minReplicas: 1
    ///   maxReplicas: 8
    ///   metrics:
    ///   - type: Pods
    ///     pods:
    ///       metric:
    ///         name: DCGM_FI_DEV_GPU_UTIL
    ///       target: {type: AverageValue, averageValue: "80"}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Export the value through a custom or external metrics adapter (for GPUs, the DCGM exporter
    /// and prometheus-adapter) and scale on it with a `Pods` or `External` metric.
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
            if !name.is_empty() && !served(name) {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.metrics[{i}].{source}.name"),
                        format!(
                            "the resource metrics API reports only cpu and memory, not {name:?}: this metric never produces a value"
                        ),
                    )
                    .help(cx.help_in_v2("serve it through a custom or external metrics adapter and use a Pods or External metric")),
                );
            }
        }
    }
}

/// Whether the resource metrics API (`metrics.k8s.io`, metrics-server) reports `resource`:
/// cpu and memory only (`PodMetrics` containers' `usage`, read by `GetResourceMetric` in
/// `pkg/controller/podautoscaler/metrics/client.go`). The other rules on `Resource` metrics
/// judge only these and leave the rest to HPA204.
pub(crate) fn served(resource: &str) -> bool {
    matches!(resource, "cpu" | "memory")
}
