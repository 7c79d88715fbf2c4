//! HPA202 `unknown-container`: a ContainerResource metric on a container that does not exist.

use super::{Context, Finding, FindingField, Rule, RuleMeta};
use crate::evaluator::ControllerRelease;
use crate::features::FeatureGates;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `ContainerResource` metric naming a container that the scale target's pod template does
    /// not have (neither a regular container nor a restartable init container, "sidecar"). The
    /// workload must be read with the HPA: in files, among the checked manifests; with `hpa-lint
    /// cluster`, in the namespaces read; in `hpa-webhook`, in its context cache (Argo Rollouts
    /// included, no other custom resource). A custom resource with a `/scale` subresource (any
    /// kind but Kubernetes' own workloads, Argo Rollouts and OpenShift DeploymentConfigs) makes
    /// its pods as its operator decides: its containers are not guessed from a `spec.template`
    /// it may have. A plain init container (no `restartPolicy:
    /// Always`) is named as one: it exists, but it has finished before the pod runs, so it is
    /// never measured either.
    ///
    /// A target kube-apiserver refuses (HPA410) is never created and has no pods: this rule says
    /// nothing of it, HPA410 is the one finding.
    /// An HPA whose target the controller never scales, a kind without a `scale` subresource
    /// (HPA402: a DaemonSet, a Job, ...) or a built-in kind in a group that does not serve it
    /// (HPA405), fails at `FailedGetScale` before it reads a metric: this rule says nothing of
    /// it either.
    ///
    /// ## Why it matters
    ///
    /// The metrics client finds no sample for that container in any pod, so every pod counts as
    /// missing and the metric never produces a proposal: the controller fails with
    /// `did not receive metrics for targeted pods (pods might be unready)` and sets
    /// `ScalingActive=False`; the failing metric also blocks every scale-down. While a rollout
    /// replaces pods without the container by pods with it (or back), it depends on the release:
    /// from Kubernetes 1.35 the pods without it make a `Utilization` metric fail
    /// (`container aplication not found in Pod ...`, kubernetes#133415); before 1.35 they count
    /// with a request of 0.
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
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: ContainerResource
    ///     containerResource:
    ///       name: cpu
    ///       container: aplication
    ///       target: {type: Utilization, averageUtilization: 60}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: application
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 500m, memory: 512Mi}
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
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: ContainerResource
    ///     containerResource:
    ///       name: cpu
    ///       container: application
    ///       target: {type: Utilization, averageUtilization: 60}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: application
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 500m, memory: 512Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use the container's exact name from the pod template (`containers[*].name`, or the
    /// `initContainers[*].name` of a sidecar).
    pub struct UnknownContainer {
        id: "HPA202",
        name: "unknown-container",
        severity: Error,
        summary: "a ContainerResource metric names a container the pod template does not have",
        needs_objects: true,
    }
}

impl Rule for UnknownContainer {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        // An Argo Rollout with `spec.workloadRef` runs the referenced workload's containers.
        let Some(workload) = cx.target_pod_template() else { return };
        // A target kube-apiserver refuses has no pods: HPA410 says why.
        if workload.containers.is_empty() || cx.target_refusal().is_some() {
            return;
        }
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            if let Some(r) = &m.container_resource
                && m.type_ == "ContainerResource"
                && !workload.containers.iter().any(|c| c.name == r.container)
            {
                if let Some(init) = workload.init_containers.iter().find(|c| c.name == r.container) {
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("spec.metrics[{i}].containerResource.container"),
                            format!(
                                "container {:?} of {} is an init container (no restartPolicy: Always): it runs to completion before the pod's containers start, so the controller never measures it; only regular containers and sidecars are",
                                r.container, workload.id
                            ),
                        )
                        .help("name a regular container, or a sidecar (an init container with restartPolicy: Always)")
                        .related(
                            FindingField::Object {
                                id: workload.id.clone(),
                                path: format!("{}.initContainers[{}]", workload.pod_spec_path, init.index),
                            },
                            "an init container",
                        ),
                    );
                    continue;
                }
                let names: Vec<String> = workload.containers.iter().map(|c| format!("{:?}", c.name)).collect();
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.metrics[{i}].containerResource.container"),
                        format!(
                            "container {:?} does not exist in {} (it has {})",
                            r.container,
                            workload.id,
                            names.join(", ")
                        ),
                    )
                    .help("use one of the pod template's container names")
                    .related(
                        FindingField::Object {
                            id: workload.id.clone(),
                            path: format!("{}.containers", workload.pod_spec_path),
                        },
                        "the pod template's containers",
                    ),
                );
            }
        }
    }

    /// How a rollout's pods without the container count ([`ControllerRelease::missing_container_error`]).
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        Some(if ControllerRelease::of(gates.version()).missing_container_error {
            "while a rollout adds or removes the container, the pods without it make a `Utilization` metric fail (`container <name> not found in Pod <pod>`)".into()
        } else {
            "while a rollout adds or removes the container, the pods without it count with a request of 0".into()
        })
    }
}
