//! HPA103 `max-replicas-above-limit`: a ceiling above the organization's limit.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.maxReplicas` above a limit set in the configuration (`settings.maxReplicasLimit`),
    /// like Gatekeeper's `horizontalpodautoscaler` ranges. Without a configured limit the rule
    /// reports nothing.
    ///
    /// ## Why it matters
    ///
    /// A runaway metric (a stuck queue, a load test) scales the workload to `maxReplicas`;
    /// a ceiling far above what the cluster or the budget can carry turns that into an outage
    /// elsewhere.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// spec:
    ///   maxReplicas: 500   # with maxReplicasLimit: 100
    /// ```
    ///
    /// ## How to fix
    ///
    /// Lower `maxReplicas` to what the workload can really use, or raise the limit for this
    /// object with an `hpa-lint.dev/ignore` annotation and a reason.
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
