//! HPA408 `vpa-conflict`: an HPA and a VPA both acting on cpu or memory of one workload.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A VerticalPodAutoscaler that updates pods (`updateMode` `Auto`, the default, `Recreate` or
    /// `InPlaceOrRecreate`) and targets the same workload as this HPA, when the HPA scales on a
    /// `Resource` (or `ContainerResource`) metric of cpu or memory that the VPA controls (all
    /// containers' cpu and memory unless `resourcePolicy` restricts them).
    ///
    /// ## Why it matters
    ///
    /// The HPA targets a utilization, a ratio of usage to requests; the VPA changes the requests.
    /// Each reacts to the other: the VPA raises requests, utilization drops, the HPA removes pods,
    /// usage per pod rises, the VPA raises requests again. The VPA documentation warns against using
    /// both on the same resource.
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
    /// apiVersion: autoscaling.k8s.io/v1
    /// kind: VerticalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   updatePolicy:
    ///     updateMode: Auto
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
    /// apiVersion: autoscaling.k8s.io/v1
    /// kind: VerticalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   updatePolicy:
    ///     updateMode: Auto
    ///   resourcePolicy:
    ///     containerPolicies:
    ///     - containerName: "*"
    ///       controlledResources: [memory]
    /// ```
    ///
    /// ## How to fix
    ///
    /// Let each autoscaler own a different resource: restrict the VPA with `controlledResources`
    /// to a resource the HPA does not scale on (as above), or scale horizontally on custom or
    /// external metrics, or run the VPA with `updateMode: "Off"` (recommendations only).
    pub struct VpaConflict {
        id: "HPA408",
        name: "vpa-conflict",
        severity: Warning,
        summary: "a VerticalPodAutoscaler also acts on the cpu or memory this HPA scales on",
        needs_objects: true,
    }
}

impl Rule for VpaConflict {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        for vpa in objects.vpas(cx.namespace()) {
            if vpa.target_kind != t.kind || vpa.target_name != t.name {
                continue;
            }
            if !matches!(vpa.update_mode.as_str(), "Auto" | "Recreate" | "InPlaceOrRecreate") {
                continue;
            }
            for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
                let (source, name) = match (&m.resource, &m.container_resource) {
                    (Some(r), _) => ("resource", &r.name),
                    (None, Some(r)) => ("containerResource", &r.name),
                    _ => continue,
                };
                if vpa.controlled_resources.iter().any(|c| c == name) {
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("spec.metrics[{i}].{source}"),
                            format!(
                                "VerticalPodAutoscaler {} ({}) also sets the {name} requests of {} {}: the two autoscalers feed each other",
                                vpa.id.name, vpa.update_mode, t.kind, t.name
                            ),
                        )
                        .help("scale on a custom or external metric, limit the VPA's controlledResources, or use updateMode \"Off\"")
                        .related(Location::Object { id: vpa.id.clone(), path: "spec.updatePolicy".into() }, "this VPA"),
                    );
                }
            }
        }
    }
}
