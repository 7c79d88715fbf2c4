//! HPA201 `missing-resource-request`: a utilization target the controller cannot compute.

use super::{Context, Finding, Location, Rule, RuleMeta};
use crate::features::Gate;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `Resource` metric with a `Utilization` target while some container of the scale
    /// target's pod template (regular containers and restartable init containers, "sidecars")
    /// has no request for that resource; or a `ContainerResource` utilization metric whose
    /// container has none. Pod-level requests count when `PodLevelResources` is on.
    ///
    /// ## Why it matters
    ///
    /// Utilization is usage divided by requests. The HPA controller refuses to compute it when
    /// a request is missing (`missing request for cpu in container app of Pod ...`), sets
    /// `ScalingActive=False` and never scales on that metric.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// metrics:
    /// - type: Resource
    ///   resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
    /// # while the Deployment's container has resources: {limits: {cpu: 1}} only
    /// ```
    ///
    /// ## How to fix
    ///
    /// Give every container a request for the resource (sidecars included), or use an
    /// `AverageValue` target, which needs no request.
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
        let pod_level = cx.settings.gates.enabled(Gate::PodLevelResources);
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            // The controller reads averageValue first: only then utilization needs requests.
            if let Some(r) = &m.resource
                && m.type_ == "Resource"
                && r.target.average_value.is_none()
                && r.target.average_utilization.is_some()
            {
                if pod_level && workload.pod_requests.contains_key(&r.name) {
                    continue;
                }
                for c in workload.containers.iter().filter(|c| !c.requests.contains_key(&r.name)) {
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
                && !c.requests.contains_key(&r.name)
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
