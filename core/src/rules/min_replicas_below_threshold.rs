//! HPA102 `min-replicas-below-threshold`: too few replicas for availability.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.minReplicas` below a configurable threshold (`settings.minReplicas`, default 2),
    /// as Polaris `hpaMinAvailability` and kube-linter `hpa-minimum-replicas` do.
    ///
    /// ## Why it matters
    ///
    /// At the minimum, a single pod is a single point of failure: a node drain, an eviction or a
    /// crash takes the service down until a new pod is ready.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// spec:
    ///   minReplicas: 1
    /// ```
    ///
    /// ## How to fix
    ///
    /// Set `minReplicas` to at least 2 for services that must stay available, or raise the
    /// threshold's severity only where it matters (it is informational by default).
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
