//! HPA402 `unscalable-target-kind`: a scale target that has no scale subresource.

use super::{Context, Finding, Rule, RuleMeta};

/// Built-in kinds without a `scale` subresource that HPAs are seen pointed at.
pub const UNSCALABLE: &[&str] = &[
    "DaemonSet",
    "Job",
    "CronJob",
    "Pod",
    "Service",
    "ConfigMap",
    "Secret",
    "Ingress",
    "Namespace",
    "Node",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "ServiceAccount",
    "NetworkPolicy",
];

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.kind` naming a built-in kind that cannot be scaled: a DaemonSet (one pod
    /// per node), a Job or CronJob, a Pod, a Service, a ConfigMap, ... kube-apiserver accepts any
    /// kind.
    ///
    /// ## Why it matters
    ///
    /// The HPA controller scales through the target's `scale` subresource. These kinds have none,
    /// so the controller reports `FailedGetScale` at every sync and never acts.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: node-agent
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: DaemonSet, name: node-agent}
    ///   minReplicas: 2
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
    ///   name: api
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
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
    /// Point the HPA at the Deployment, StatefulSet or ReplicaSet (or a custom resource with a
    /// scale subresource) that runs the pods. A DaemonSet follows the nodes: scale the nodes
    /// instead (cluster autoscaler), or move the workload to a Deployment.
    pub struct UnscalableTargetKind {
        id: "HPA402",
        name: "unscalable-target-kind",
        severity: Error,
        summary: "the scale target's kind cannot be scaled",
        needs_objects: false,
    }
}

impl Rule for UnscalableTargetKind {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let kind = &cx.effective.spec.scale_target_ref.kind;
        if UNSCALABLE.contains(&kind.as_str()) {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.scaleTargetRef.kind",
                    format!("a {kind} has no scale subresource: the controller can never scale it"),
                )
                .help("target the Deployment, StatefulSet or ReplicaSet that runs the pods"),
            );
        }
    }
}
