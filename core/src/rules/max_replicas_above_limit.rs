//! HPA103 `max-replicas-above-limit`: a ceiling above the organization's limit.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.maxReplicas` above the limit set in `.hpa-lint.yaml` as `settings.maxReplicasLimit`,
    /// like the ranges of Gatekeeper's HPA constraint. Without a configured limit the rule reports
    /// nothing. The examples below assume `settings: {maxReplicasLimit: 100}`.
    ///
    /// ## Why it matters
    ///
    /// A runaway metric (a stuck queue, a load test, a bad deploy that burns CPU) scales the workload
    /// to `maxReplicas`. A ceiling far above what the cluster, its quotas or the budget can carry turns
    /// that into pending pods, a cluster autoscaler spree, or an outage of other workloads.
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
    ///   minReplicas: 3
    ///   maxReplicas: 500
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
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 3
    ///   maxReplicas: 60
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Lower `maxReplicas` to what the workload can really use. Where a higher ceiling is
    /// deliberate, silence the rule for that object with the annotation
    /// `hpa-lint.dev/ignore: "HPA103 -- reason"`.
    pub struct MaxReplicasAboveLimit {
        id: "HPA103",
        name: "max-replicas-above-limit",
        severity: Warning,
        summary: "maxReplicas is above the configured limit",
        needs_objects: false,
    }
}

impl Rule for MaxReplicasAboveLimit {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(limit) = cx.settings.max_replicas_limit else { return };
        let max = cx.effective.spec.max_replicas;
        if max > limit {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.maxReplicas",
                    format!("maxReplicas is {max}, above the limit of {limit}"),
                )
                .help(format!("lower spec.maxReplicas to {limit} or less")),
            );
        }
    }
}
