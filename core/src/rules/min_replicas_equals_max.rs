//! HPA101 `min-replicas-equals-max`: an HPA that cannot scale.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.minReplicas` equal to `spec.maxReplicas` (Polaris `hpaMaxAvailability`,
    /// Gatekeeper's replica spread).
    ///
    /// ## Why it matters
    ///
    /// The HPA can never change the replica count: it only adds a controller loop, metrics
    /// queries and events. Usually one of the bounds is a placeholder that was never updated.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// spec:
    ///   minReplicas: 5
    ///   maxReplicas: 5
    /// ```
    ///
    /// ## How to fix
    ///
    /// Raise `maxReplicas` (or lower `minReplicas`) to give the HPA room, or delete the HPA and
    /// set `spec.replicas` on the workload.
    pub struct MinReplicasEqualsMax {
        id: "HPA101",
        name: "min-replicas-equals-max",
        severity: Warning,
        summary: "minReplicas equals maxReplicas, so the HPA can never scale",
        needs_objects: false,
    }
}

impl Rule for MinReplicasEqualsMax {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let spec = &cx.effective.spec;
        if spec.min_replicas == Some(spec.max_replicas) && spec.max_replicas > 0 {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.maxReplicas",
                    format!(
                        "spec.minReplicas equals spec.maxReplicas ({}): the HPA can never scale",
                        spec.max_replicas
                    ),
                )
                .help("raise maxReplicas to give the HPA room, or remove the HPA and set the workload's replicas"),
            );
        }
    }
}
