//! HPA301 `scale-down-disabled`: an HPA that can never scale down.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.behavior.scaleDown.selectPolicy: Disabled` (in `autoscaling/v1`, inside the
    /// `autoscaling.alpha.kubernetes.io/behavior` annotation).
    ///
    /// ## Why it matters
    ///
    /// The HPA only ever grows: after a peak the workload stays at its highest replica count until
    /// someone scales it down by hand, and costs money silently. That is rarely intended outside
    /// batch-style workloads that drain a queue.
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
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleDown:
    ///       selectPolicy: Disabled
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
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleDown:
    ///       stabilizationWindowSeconds: 600
    ///       policies:
    ///       - {type: Pods, value: 1, periodSeconds: 300}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Slow scale-down instead of disabling it: a long `stabilizationWindowSeconds` and a small
    /// policy (`{type: Pods, value: 1, periodSeconds: 300}` removes at most one pod every five
    /// minutes).
    pub struct ScaleDownDisabled {
        id: "HPA301",
        name: "scale-down-disabled",
        severity: Warning,
        summary: "scale-down is disabled, so the HPA never scales down",
        needs_objects: false,
    }
}

impl Rule for ScaleDownDisabled {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let disabled = cx
            .effective
            .spec
            .behavior
            .as_ref()
            .and_then(|b| b.scale_down.as_ref())
            .and_then(|r| r.select_policy.as_deref())
            == Some("Disabled");
        if disabled {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.behavior.scaleDown.selectPolicy",
                    "scale-down is disabled: after a peak the workload stays at its highest replica count",
                )
                .help(cx.help_in_v2(
                    "slow scale-down instead of disabling it: a long stabilizationWindowSeconds and a small policy",
                )),
            );
        }
    }
}
