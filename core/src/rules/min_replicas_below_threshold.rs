//! HPA102 `min-replicas-below-threshold`: too few replicas for availability.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.minReplicas` (1 when omitted) below `settings.minReplicas` in `.hpa-lint.yaml` (2 by
    /// default), as Polaris `hpaMinAvailability` and kube-linter `hpa-minimum-replicas` do.
    /// `minReplicas: 0` (scale to zero) is a deliberate choice and is not reported. The rule is
    /// opt-in: many workloads are fine with one pod.
    ///
    /// ## Why it matters
    ///
    /// When load is low the HPA scales down to `minReplicas`. With a single pod left, one node drain,
    /// eviction or crash takes the service down until a replacement is scheduled and ready.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: checkout
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: checkout}
    ///   minReplicas: 1
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: checkout
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: checkout}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set `minReplicas` to at least 2 for services that must stay available (and spread the pods
    /// over nodes). Enable the rule with `--select HPA102` or `rules: {HPA102: warning}` in
    /// `.hpa-lint.yaml`, where `settings.minReplicas` sets the threshold.
    pub struct MinReplicasBelowThreshold {
        id: "HPA102",
        name: "min-replicas-below-threshold",
        severity: Info,
        summary: "minReplicas is below the configured minimum for availability",
        needs_objects: false,
        enabled_by_default: false,
    }
}

impl Rule for MinReplicasBelowThreshold {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let min = cx.effective.spec.min_replicas.unwrap_or(1);
        // minReplicas 0 is scale-to-zero, a deliberate choice.
        if min > 0 && min < cx.settings.min_replicas {
            let path = if cx.written.spec.min_replicas.is_some() { "spec.minReplicas" } else { "spec" };
            out.push(
                Finding::new(
                    &Self::META,
                    path,
                    format!(
                        "minReplicas is {min}, below {}: at the minimum a single disruption leaves too few pods",
                        cx.settings.min_replicas
                    ),
                )
                .help(format!("set spec.minReplicas to at least {}", cx.settings.min_replicas)),
            );
        }
    }
}
