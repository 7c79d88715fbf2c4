//! HPA410 `workload-sets-replicas`: a workload managed by an HPA that pins its replicas.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The HPA's scale target (a Deployment, StatefulSet, ...) in the checked manifests sets
    /// `spec.replicas` (kube-score, Polaris).
    ///
    /// ## Why it matters
    ///
    /// Every `kubectl apply` or GitOps sync writes that number back, undoing the HPA: a
    /// workload scaled to 12 under load drops to 3 at the next deploy, and the HPA needs
    /// several syncs to climb back.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// kind: Deployment
    /// spec:
    ///   replicas: 3        # fights the HPA
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove `spec.replicas` from the workload manifest (the HPA owns it). When creating the
    /// workload for the first time, its replica count defaults to 1 and the HPA raises it to
    /// `minReplicas` at its first sync.
    pub struct WorkloadSetsReplicas {
        id: "HPA410",
        name: "workload-sets-replicas",
        severity: Warning,
        summary: "the scale target sets spec.replicas, which every apply resets",
        needs_objects: true,
    }
}

impl Rule for WorkloadSetsReplicas {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        let Some(w) = objects.workload(&t.kind, cx.namespace(), &t.name) else { return };
        let Some(replicas) = w.replicas else { return };
        let mut f = Finding::new(
            &Self::META,
            "spec.replicas",
            format!(
                "{} sets spec.replicas: {replicas} while HorizontalPodAutoscaler {} scales it: every apply resets the count",
                w.id, cx.effective.metadata.name
            ),
        )
        .help("remove spec.replicas from the workload; the HPA owns it")
        .on_object(w.id.clone(), "spec.replicas");
        f = f.related(Location::Hpa("spec.scaleTargetRef".into()), "this HPA scales it");
        out.push(f);
    }
}
