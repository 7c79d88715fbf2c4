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

/// Whether a scale target of `kind`, written in `api_version`, has no `scale` subresource: one
/// of [`UNSCALABLE`] (in any group), or any other kind one of Kubernetes' own groups without a
/// dot serves ([`super::DOTLESS_GROUP_KINDS`]: a ControllerRevision, an Endpoints, a
/// LimitRange, ...) but the scalable ones ([`super::SCALABLE_KINDS`], and OpenShift's legacy
/// `v1` DeploymentConfig, which has one). kube-apiserver registers a `scale` subresource for
/// Deployments, ReplicaSets, StatefulSets and ReplicationControllers only
/// (`pkg/registry/*/rest/storage_*.go`), so the controller's `scaleForResourceMappings` fails
/// on every other (`FailedGetScale`).
pub fn has_no_scale(api_version: &str, kind: &str) -> bool {
    let Ok(group) = crate::api::GroupVersion::parse(api_version).map(crate::api::GroupVersion::api_group) else {
        return UNSCALABLE.contains(&kind);
    };
    let kind = super::mapped_kind(group, kind);
    if UNSCALABLE.contains(&kind) {
        return true;
    }
    kind != "DeploymentConfig"
        && super::scalable_group(kind).is_none()
        && super::dotless_group_kinds(group).is_some_and(|kinds| kinds.contains(&kind))
}

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.kind` naming a built-in kind that cannot be scaled: a DaemonSet (one pod
    /// per node), a Job or CronJob, a Pod, a Service, a ConfigMap, ... in any API group, and any
    /// other kind of Kubernetes' own groups without a dot in their name (the core group, `apps`,
    /// `batch`, `policy`, ...) but Deployments, ReplicaSets, StatefulSets and
    /// ReplicationControllers, the only ones kube-apiserver gives a `scale` subresource (an
    /// `apps/v1` ControllerRevision, an Endpoints). kube-apiserver accepts any kind.
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
        let t = &cx.effective.spec.scale_target_ref;
        let kind = &t.kind;
        if has_no_scale(&t.api_version, kind) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the four kinds kube-apiserver gives a `scale` subresource (and OpenShift's legacy
    /// DeploymentConfig) are scalable in Kubernetes' own dotless groups; a custom group may
    /// serve any kind with one.
    #[test]
    fn has_no_scale_in_the_dotless_groups_but_four_kinds() {
        assert!(has_no_scale("apps/v1", "ControllerRevision"));
        assert!(has_no_scale("core/v1", "Endpoints"));
        assert!(has_no_scale("example.com/v1", "DaemonSet"));
        assert!(!has_no_scale("v1", "ReplicationController"));
        assert!(!has_no_scale("apps/v1", "StatefulSet"));
        assert!(!has_no_scale("v1", "DeploymentConfig"));
        assert!(!has_no_scale("example.com/v1", "ControllerRevision"));
        // A kind the group does not serve is HPA405's, a kind in another case HPA404's.
        assert!(!has_no_scale("apps/v1", "Rollout"));
        assert!(!has_no_scale("apps/v1", "controllerRevision"));
        // The RESTMapper maps the all-lowercase spelling to the kind.
        assert!(has_no_scale("apps/v1", "controllerrevision"));
        assert!(has_no_scale("apps/v1", "daemonset"));
        assert!(!has_no_scale("a/b/c", "ControllerRevision"));
    }
}
