//! HPA407 `conflicting-hpas`: two HPAs scaling the same workload.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// Two or more HPAs in the checked manifests whose `scaleTargetRef` names the same workload.
    ///
    /// ## Why it matters
    ///
    /// Each HPA writes the workload's replica count on its own schedule, so the count flips
    /// between their answers; the controller also sets `AmbiguousSelector` when their pods
    /// overlap and stops scaling.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// kind: HorizontalPodAutoscaler
    /// metadata: {name: web-cpu}
    /// spec: {scaleTargetRef: {kind: Deployment, name: web, apiVersion: apps/v1}, ...}
    /// ---
    /// kind: HorizontalPodAutoscaler
    /// metadata: {name: web-rps}
    /// spec: {scaleTargetRef: {kind: Deployment, name: web, apiVersion: apps/v1}, ...}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use one HPA with several metrics: the controller takes the highest proposal.
    pub struct ConflictingHpas {
        id: "HPA407",
        name: "conflicting-hpas",
        severity: Error,
        summary: "another HPA targets the same workload",
        needs_objects: true,
    }
}

impl Rule for ConflictingHpas {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let (Some(objects), Some(me)) = (cx.objects, cx.id) else { return };
        let t = &cx.effective.spec.scale_target_ref;
        if t.kind.is_empty() || t.name.is_empty() {
            return;
        }
        let others: Vec<_> =
            objects.hpas_targeting(cx.namespace(), &t.kind, &t.name).into_iter().filter(|(id, _)| *id != me).collect();
        if others.is_empty() {
            return;
        }
        let names: Vec<String> = others.iter().map(|(id, _)| id.name.clone()).collect();
        let mut f = Finding::new(
            &Self::META,
            "spec.scaleTargetRef",
            format!(
                "{} {}/{} is also scaled by {}: the HPAs fight over its replica count",
                t.kind,
                cx.namespace(),
                t.name,
                names.join(", ")
            ),
        )
        .help("merge them into one HPA with several metrics");
        for (id, _) in others {
            f = f.related(Location::Object { id: id.clone(), path: "spec.scaleTargetRef".into() }, "also targets it");
        }
        out.push(f);
    }
}
