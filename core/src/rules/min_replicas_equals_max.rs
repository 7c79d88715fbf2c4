//! HPA101 `min-replicas-equals-max`: an HPA that cannot scale.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.minReplicas` (1 when omitted) equal to `spec.maxReplicas` (Polaris
    /// `hpaMaxAvailability`), or closer to it than `settings.minReplicaSpread` in `.hpa-lint.yaml`
    /// (Gatekeeper's `minimumReplicaSpread`; default 1, which flags equal bounds only).
    ///
    /// ## Why it matters
    ///
    /// With equal bounds the HPA can never change the replica count: it only adds a controller loop,
    /// metrics queries and events, and it hides from readers that the workload does not autoscale.
    /// Usually one of the bounds is a placeholder that was never updated.
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
    ///   minReplicas: 5
    ///   maxReplicas: 5
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
    /// Raise `maxReplicas` (or lower `minReplicas`) to give the HPA room, or delete the HPA and set
    /// `spec.replicas` on the workload.
    pub struct MinReplicasEqualsMax {
        id: "HPA101",
        name: "min-replicas-equals-max",
        severity: Warning,
        summary: "minReplicas equals maxReplicas (or is closer to it than the configured spread)",
        needs_objects: false,
    }
}

impl Rule for MinReplicasEqualsMax {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let spec = &cx.effective.spec;
        let min = spec.min_replicas.unwrap_or(1);
        let spread = i64::from(spec.max_replicas) - i64::from(min);
        let wanted = i64::from(cx.settings.min_replica_spread.max(1));
        if spec.max_replicas <= 0 || spread < 0 || spread >= wanted {
            return;
        }
        if spread > 0 {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.maxReplicas",
                    format!(
                        "spec.maxReplicas ({}) is only {spread} above spec.minReplicas ({min}): less than the configured spread of {wanted}",
                        spec.max_replicas
                    ),
                )
                .help("widen the range between minReplicas and maxReplicas (settings.minReplicaSpread sets the bound)"),
            );
            return;
        }
        out.push(
            Finding::new(
                &Self::META,
                "spec.maxReplicas",
                format!("spec.minReplicas equals spec.maxReplicas ({}): the HPA can never scale", spec.max_replicas),
            )
            .help("raise maxReplicas to give the HPA room, or remove the HPA and set the workload's replicas"),
        );
    }
}
