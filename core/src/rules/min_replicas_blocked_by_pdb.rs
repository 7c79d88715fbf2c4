//! HPA104 `min-replicas-blocked-by-pdb`: at the minimum, no pod can ever be evicted.

use super::objects::IntOrPercent;
use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A PodDisruptionBudget selecting the pods of the HPA's scale target that, with the HPA at
    /// `minReplicas`, allows no disruption: `minAvailable` at least `minReplicas`, or
    /// `maxUnavailable` of 0 (kube-linter `pdb-min-available`, Polaris
    /// `pdbMinAvailableGreaterThanHPAMinReplicas`). Percentages are rounded up, as the disruption
    /// controller does: `minAvailable: 80%` of 3 pods is 3, `maxUnavailable: 10%` of 2 pods is 1.
    /// The workload must be in the checked manifests, to know its pod labels.
    ///
    /// ## Why it matters
    ///
    /// When load is low the HPA scales down to `minReplicas`; from then on the budget refuses every
    /// voluntary eviction, so node drains, cluster upgrades and cluster-autoscaler scale-downs hang
    /// until someone intervenes.
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
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   minAvailable: 2
    ///   selector:
    ///     matchLabels: {app: web}
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
    ///           requests: {cpu: 250m, memory: 256Mi}
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
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
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
    ///           requests: {cpu: 250m, memory: 256Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Express the budget as `maxUnavailable: 1`, which always allows one eviction, or raise
    /// `minReplicas` above the budget's `minAvailable` (3 in the example).
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
        // The pods' labels: an Argo Rollout with `spec.workloadRef` makes them from that template.
        let Some(workload) = cx.target_pod_template() else { return };
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
                    // Rounded up too, as the disruption controller does (`getExpectedPodCount`).
                    let allowed = m.scaled(min, true);
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
