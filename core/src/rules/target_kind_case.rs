//! HPA404 `target-kind-case`: a scale target kind spelled in the wrong case.

use super::{Context, Finding, Rule, RuleMeta, SCALABLE_KINDS};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.kind` that is a built-in scalable kind written in another case
    /// (`statefulset`, `deployment`, `Replicaset`). kube-apiserver accepts any path segment.
    ///
    /// ## Why it matters
    ///
    /// Kinds are case-sensitive: the controller finds no REST mapping for `statefulset`, reports
    /// `FailedGetScale` at every sync, and never scales.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: db
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: statefulset, name: db}
    ///   minReplicas: 3
    ///   maxReplicas: 6
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
    ///   name: db
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
    ///   minReplicas: 3
    ///   maxReplicas: 6
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the kind exactly: `StatefulSet`.
    pub struct TargetKindCase {
        id: "HPA404",
        name: "target-kind-case",
        severity: Error,
        summary: "the scale target's kind has the wrong case",
        needs_objects: false,
    }
}

impl Rule for TargetKindCase {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let kind = &cx.effective.spec.scale_target_ref.kind;
        if let Some((right, _)) =
            SCALABLE_KINDS.iter().find(|(k, _)| k.eq_ignore_ascii_case(kind) && *k != kind.as_str())
        {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.scaleTargetRef.kind",
                    format!(
                        "kinds are case-sensitive: {kind:?} matches no resource, the controller cannot find the target"
                    ),
                )
                .help(format!("write `kind: {right}`")),
            );
        }
    }
}
