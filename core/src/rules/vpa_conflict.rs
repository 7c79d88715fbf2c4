//! HPA408 `vpa-conflict`: an HPA and a VPA both acting on cpu or memory of one workload.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A VerticalPodAutoscaler in `Auto`, `Recreate` or `InPlaceOrRecreate` mode targeting the
    /// same workload as this HPA, when the HPA scales on a cpu or memory `Resource` (or
    /// `ContainerResource`) metric that the VPA controls.
    ///
    /// ## Why it matters
    ///
    /// The HPA targets a utilization, a ratio of usage to requests; the VPA changes the
    /// requests. Each reacts to the other: the VPA raises requests, utilization drops, the HPA
    /// removes pods, usage per pod rises, the VPA raises requests again. The VPA documentation
    /// warns against this combination.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// kind: VerticalPodAutoscaler
    /// spec: {targetRef: {kind: Deployment, name: web}, updatePolicy: {updateMode: Auto}}
    /// # and an HPA on Deployment web with a cpu utilization metric
    /// ```
    ///
    /// ## How to fix
    ///
    /// Scale horizontally on custom or external metrics, or restrict the VPA with
    /// `controlledResources` to a resource the HPA does not use, or run the VPA with
    /// `updateMode: "Off"` (recommendations only).
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
