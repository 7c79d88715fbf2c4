//! HPA104 `min-replicas-blocked-by-pdb`: at the minimum, no pod can ever be evicted.

use super::objects::IntOrPercent;
use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A PodDisruptionBudget selecting the target's pods that, with the HPA at `minReplicas`,
    /// allows no disruption: `minAvailable` at least `minReplicas`, or `maxUnavailable` of 0
    /// (kube-linter `pdb-min-available`, Polaris `pdbMinAvailableGreaterThanHPAMinReplicas`).
    ///
    /// ## Why it matters
    ///
    /// When load is low the HPA scales down to `minReplicas`; from then on every voluntary
    /// eviction is refused, so node drains, cluster upgrades and autoscaler scale-downs hang.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// kind: HorizontalPodAutoscaler
    /// spec: {minReplicas: 2, maxReplicas: 10}
    /// ---
    /// kind: PodDisruptionBudget
    /// spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Raise `minReplicas` above the PDB's `minAvailable` (3 here), or express the budget as
    /// `maxUnavailable: 1`.
    pub struct MinReplicasBlockedByPdb {
        id: "HPA104",
        name: "min-replicas-blocked-by-pdb",
        severity: Warning,
        summary: "at minReplicas, a PodDisruptionBudget allows no eviction",
        needs_objects: true,
    }
}

impl Rule for MinReplicasBlockedByPdb {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        let Some(workload) = objects.workload(&t.kind, cx.namespace(), &t.name) else { return };
        if workload.pod_labels.is_empty() {
            return;
        }
        let min = i64::from(cx.effective.spec.min_replicas.unwrap_or(1));
        if min < 1 {
            return;
        }
        for pdb in objects.pdbs(cx.namespace()) {
            if !pdb.selector.matches(&workload.pod_labels) {
                continue;
            }
            let (blocked, field, detail) = match (&pdb.min_available, &pdb.max_unavailable) {
                (Some(m), _) => {
                    let required = m.scaled(min, true);
                    (
                        required >= min,
                        "spec.minAvailable",
                        format!("minAvailable {} needs {required} of {min} pods", show(m)),
                    )
                }
                (None, Some(m)) => {
                    let allowed = m.scaled(min, false);
                    (
                        allowed <= 0,
                        "spec.maxUnavailable",
                        format!("maxUnavailable {} allows {allowed} of {min} pods", show(m)),
                    )
                }
                (None, None) => continue,
            };
            if blocked {
                out.push(
                    Finding::new(
                        &Self::META,
                        if cx.written.spec.min_replicas.is_some() { "spec.minReplicas" } else { "spec" },
                        format!(
                            "at minReplicas ({min}) the PodDisruptionBudget {} allows no eviction ({detail})",
                            pdb.id.name
                        ),
                    )
                    .help(format!(
                        "raise spec.minReplicas above what {} requires, or use maxUnavailable: 1",
                        pdb.id.name
                    ))
                    .related(Location::Object { id: pdb.id.clone(), path: field.into() }, "this budget"),
                );
            }
        }
    }
}

fn show(v: &IntOrPercent) -> String {
    match v {
        IntOrPercent::Int(i) => i.to_string(),
        IntOrPercent::Percent(p) => format!("{p}%"),
    }
}
