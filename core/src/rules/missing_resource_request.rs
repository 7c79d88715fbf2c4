//! HPA201 `missing-resource-request`: a utilization target the controller cannot compute.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `Resource` metric with a `Utilization` target while some container of the scale target's
    /// pod template (regular containers and restartable init containers, "sidecars"; not plain init
    /// containers) has no request for that resource; or a `ContainerResource` utilization metric
    /// whose container has none. This includes the CPU metric that kube-apiserver adds when
    /// `metrics` is omitted (and every `autoscaling/v1` HPA's). With pod-level requests
    /// (`spec.template.spec.resources.requests`, feature gate `PodLevelResources`, on by default
    /// from Kubernetes 1.34), the controller uses the pod's total instead (the pod-level request,
    /// or else the containers' requests added up), and only a pod without any request for the
    /// resource is reported. The 1.33 controller ignores pod-level requests even with the alpha
    /// gate on, so for `kubernetesVersion: "1.33"` every container needs its own request. The
    /// workload must be in the checked manifests.
    ///
    /// ## Why it matters
    ///
    /// Utilization is usage divided by requests. The HPA controller refuses to compute it when a
    /// request is missing (`missing request for cpu in container app of Pod ...`): it sets
    /// `ScalingActive=False` with reason `FailedGetResourceMetric`, and a failing metric blocks
    /// every scale-down, even those that other metrics of the HPA ask for. With no other metric,
    /// the HPA never scales at all.
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
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
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
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           limits: {cpu: "1", memory: 512Mi}
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
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
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
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 500m, memory: 512Mi}
    ///           limits: {cpu: "1", memory: 512Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Give every container a request for the resource, sidecars included; or use an `AverageValue`
    /// target (`averageValue: 350m`), which needs no request; or scale on one container with a
    /// `ContainerResource` metric.
    pub struct MissingResourceRequest {
        id: "HPA201",
        name: "missing-resource-request",
        severity: Error,
        summary: "a utilization metric while a container has no request for the resource",
        needs_objects: true,
    }
}

impl Rule for MissingResourceRequest {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        let Some(workload) = objects.workload(&t.kind, cx.namespace(), &t.name) else { return };
        if workload.containers.is_empty() {
            return;
        }
        // With pod-level requests (and no container named), the controller takes the pod's
        // aggregated requests instead (`calculatePodLevelRequests` in `replica_calculator.go`,
        // through component-helpers' `PodRequests`): the pod-level value, or else the sum of
        // the containers' requests; it fails only when neither has the resource.
        let pod_level = cx.settings.gates.pod_level_requests() && !workload.pod_requests.is_empty();
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            // The controller reads averageValue first: only then utilization needs requests.
            if let Some(r) = &m.resource
                && m.type_ == "Resource"
                && r.target.average_value.is_none()
                && r.target.average_utilization.is_some()
            {
                if pod_level
                    && (workload.pod_requests.contains_key(r.name.as_str())
                        || workload.containers.iter().any(|c| c.requests.contains_key(r.name.as_str())))
                {
                    continue;
                }
                for c in workload.containers.iter().filter(|c| !c.requests.contains_key(r.name.as_str())) {
                    let list = if c.sidecar { "initContainers" } else { "containers" };
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("spec.metrics[{i}].resource.target.averageUtilization"),
                            format!(
                                "{} utilization needs a {} request in every container, and {} {:?} of {} has none: the controller will not scale on this metric",
                                r.name,
                                r.name,
                                if c.sidecar { "sidecar" } else { "container" },
                                c.name,
                                workload.id
                            ),
                        )
                        .help(format!("add resources.requests.{} to container {:?}, or use an AverageValue target", r.name, c.name))
                        .related(
                            Location::Object {
                                id: workload.id.clone(),
                                path: format!("{}.{list}[{}]", workload.pod_spec_path, c.index),
                            },
                            format!("no {} request here", r.name),
                        ),
                    );
                }
            }
            if let Some(r) = &m.container_resource
                && m.type_ == "ContainerResource"
                && r.target.average_value.is_none()
                && r.target.average_utilization.is_some()
                && let Some(c) = workload.containers.iter().find(|c| c.name == r.container)
                && !c.requests.contains_key(r.name.as_str())
            {
                let list = if c.sidecar { "initContainers" } else { "containers" };
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.metrics[{i}].containerResource.target.averageUtilization"),
                        format!(
                            "{} utilization of container {:?} needs a {} request, and it has none: the controller will not scale on this metric",
                            r.name, r.container, r.name
                        ),
                    )
                    .help(format!("add resources.requests.{} to container {:?}", r.name, r.container))
                    .related(
                        Location::Object {
                            id: workload.id.clone(),
                            path: format!("{}.{list}[{}]", workload.pod_spec_path, c.index),
                        },
                        format!("no {} request here", r.name),
                    ),
                );
            }
        }
    }
}
