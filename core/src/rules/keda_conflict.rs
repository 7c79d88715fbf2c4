//! HPA409 `keda-conflict`: an HPA and a KEDA ScaledObject on the same workload.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A KEDA `ScaledObject` whose `scaleTargetRef` names the same workload as this HPA.
    ///
    /// ## Why it matters
    ///
    /// KEDA creates and manages its own HPA (`keda-hpa-<name>`) for every ScaledObject. With a
    /// second HPA on the same workload, two HPAs fight over the replica count.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// kind: ScaledObject
    /// spec: {scaleTargetRef: {name: worker}, triggers: [...]}
    /// # and an HPA on Deployment worker
    /// ```
    ///
    /// ## How to fix
    ///
    /// Move the HPA's metrics into the ScaledObject (KEDA has `cpu` and `memory` triggers) and
    /// delete the HPA.
    pub struct KedaConflict {
        id: "HPA409",
        name: "keda-conflict",
        severity: Error,
        summary: "a KEDA ScaledObject also scales the target",
        needs_objects: true,
    }
}

impl Rule for KedaConflict {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        for so in objects.scaled_objects(cx.namespace()) {
            if so.target_kind == t.kind && so.target_name == t.name {
                out.push(
                    Finding::new(
                        &Self::META,
                        "spec.scaleTargetRef",
                        format!(
                            "KEDA ScaledObject {} also scales {} {}: KEDA creates its own HPA for it, and the two fight",
                            so.id.name, t.kind, t.name
                        ),
                    )
                    .help("move this HPA's metrics into the ScaledObject as triggers and delete the HPA")
                    .related(Location::Object { id: so.id.clone(), path: "spec.scaleTargetRef".into() }, "this ScaledObject"),
                );
            }
        }
    }
}
