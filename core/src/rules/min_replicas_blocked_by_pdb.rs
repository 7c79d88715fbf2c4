//! HPA104 `min-replicas-blocked-by-pdb`: at the minimum, no pod can ever be evicted.

use super::objects::IntOrPercent;
use super::objects::{Pdb, Workload};
use super::{Context, Finding, FindingField, Objects, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A PodDisruptionBudget selecting the pods of the HPA's scale target that, with the HPA at
    /// `minReplicas`, allows no disruption: `minAvailable` at least the pods it counts, or
    /// `maxUnavailable` of 0 (kube-linter `pdb-min-available`, Polaris
    /// `pdbMinAvailableGreaterThanHPAMinReplicas`). Percentages are rounded up, as the disruption
    /// controller does: `minAvailable: 80%` of 3 pods is 3, `maxUnavailable: 10%` of 2 pods is 1.
    /// The workload must be read with the HPA, to know its pod labels: in files, among the
    /// checked manifests; with `hpa-lint cluster`, in the namespaces read; in `hpa-webhook`, in
    /// its context cache (Argo Rollouts included, no other custom resource). A custom resource
    /// with a `/scale` subresource (any kind but Kubernetes' own workloads, Argo Rollouts and
    /// OpenShift DeploymentConfigs) makes its pods as its operator decides: its labels are not
    /// guessed from a `spec.template` it may have, and it is not judged. A budget without a
    /// selector (absent or null) selects no pod, as the disruption controller reads it
    /// (`LabelSelectorAsSelector(nil)` is `labels.Nothing()`); `selector: {}` selects every pod of
    /// its namespace (in `policy/v1beta1`, removed in 1.25, it selected none).
    ///
    /// A budget kube-apiserver refuses (a `minAvailable` or `maxUnavailable` it cannot decode,
    /// neither a string nor a 32-bit integer, such as `2.5` or `true`, a selector key, operator
    /// or value that is no string, such as `version: 1.0`, an `unhealthyPodEvictionPolicy` that
    /// is no string; both set, a
    /// `minAvailable` or `maxUnavailable` string that is no percentage, such as `"2"`, one above
    /// `100%`, a negative count; a selector with an operator other than `In`, `NotIn`, `Exists`
    /// and `DoesNotExist`, or a key or value no label can have; an `unhealthyPodEvictionPolicy`
    /// other than `IfHealthyBudget` and `AlwaysAllow`) is never stored, so it budgets nothing:
    /// it is reported instead, as an error on the budget in kube-apiserver's words (its decoding
    /// error, `json: cannot unmarshal number 2.5 into Go struct field ...`, else every error of
    /// `ValidatePodDisruptionBudgetSpec` in its order), on each HPA whose pods it was meant to
    /// select (its selector without what kube-apiserver refuses in it). The words are those of
    /// the release `--kubernetes-version` selects: a label key's name part or a label value is
    /// `no more than 63 characters` before 1.35, `no more than 63 bytes` from 1.35.
    ///
    /// The budget counts every pod it selects, as the disruption controller's
    /// `getExpectedPodCount` (`pkg/controller/disruption/disruption.go`) does: an integer
    /// `minAvailable` against all the selected pods, a percentage or `maxUnavailable` against
    /// the summed scale of their controllers. So a budget over several workloads counts them
    /// all: each other workload it selects at the fewest pods it keeps by itself, its HPA's
    /// `minReplicas` when an HPA scales it (a quiet night scales every HPA down together), else
    /// its `replicas` (1 when unset; none for a kind without a replica count, such as a
    /// DaemonSet or a Job, nor for the ReplicaSets a Deployment or a Rollout makes, whose pods
    /// are that workload's). Those are the fewest pods the budget can count: it is flagged when
    /// it blocks then.
    ///
    /// A target kube-apiserver refuses (HPA410) is never created and has no pods to evict: its
    /// budgets are not weighed (HPA410 is the one finding); a budget refused itself is still said.
    /// Nor are the budgets of a target the controller never scales (HPA402: a DaemonSet, a Job,
    /// ...; HPA405): its HPA never brings its pods down to `minReplicas`.
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
    /// `minReplicas` above the budget's `minAvailable` (3 in the example). A budget of
    /// `maxUnavailable: 0` or `minAvailable: 100%` allows no eviction at any replica count: only
    /// changing the budget helps, and the finding's help says so.
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
        let release = cx.settings.gates().version();
        // An HPA the controller never scales anything with (a built-in kind in a group that
        // does not serve it: HPA405) never brings its pods down to `minReplicas`.
        let written = cx.original.api_version();
        if super::counted_target(written.as_str(), &cx.effective.spec.scale_target_ref, release).is_none() {
            return;
        }
        // The pods' labels: an Argo Rollout with `spec.workloadRef` makes them from that template.
        let Some(target) = cx.target_workload() else { return };
        let Some(workload) = objects.pod_template_of(target) else { return };
        if workload.pod_labels.is_empty() {
            return;
        }
        let min = i64::from(cx.effective.spec.min_replicas.unwrap_or(1));
        if min < 1 {
            return;
        }
        let target_refused = cx.target_refusal().is_some();
        for pdb in objects.pdbs(cx.namespace()) {
            // A budget kube-apiserver refuses (it cannot decode it, or validation fails) is never
            // stored: it is reported on the HPAs whose pods it was meant for, and counts nothing.
            if let Some(undecodable) = &pdb.undecodable {
                if pdb.meant_for(&workload.pod_labels) {
                    out.push(refused(cx, pdb, &undecodable.field, &undecodable.message));
                }
                continue;
            }
            let refusal = pdb.refusal(release);
            if !refusal.is_empty() {
                if pdb.meant_for(&workload.pod_labels) {
                    out.push(invalid(cx, pdb, refusal));
                }
                continue;
            }
            // A target kube-apiserver refuses has no pods to evict (HPA410 says why); a budget
            // refused itself is still said.
            if !pdb.selects(&workload.pod_labels) || target_refused {
                continue;
            }
            let others = others_selected(objects, pdb, target, workload);
            let total = min + others.iter().map(|(_, n)| n).sum::<i64>();
            let (blocked, field, detail) = match (&pdb.min_available, &pdb.max_unavailable) {
                (Some(m), _) => {
                    let required = m.scaled(total, true);
                    (
                        required >= total,
                        "spec.minAvailable",
                        format!("minAvailable {} needs {required} of {total} pods", show(m)),
                    )
                }
                (None, Some(m)) => {
                    // Rounded up too, as the disruption controller does (`getExpectedPodCount`).
                    let allowed = m.scaled(total, true);
                    (
                        allowed <= 0,
                        "spec.maxUnavailable",
                        format!("maxUnavailable {} allows {allowed} of {total} pods", show(m)),
                    )
                }
                (None, None) => continue,
            };
            if blocked {
                let mut detail = detail;
                if !others.is_empty() {
                    let listed: Vec<String> =
                        others.iter().map(|(w, n)| format!("{n} of {} {}", w.id.kind, w.id.name)).collect();
                    detail = format!("{detail}: {min} of this HPA's target, {}", listed.join(", "));
                }
                out.push(
                    Finding::new(
                        &Self::META,
                        if cx.written.spec.min_replicas.is_some() { "spec.minReplicas" } else { "spec" },
                        format!(
                            "at minReplicas ({min}) the PodDisruptionBudget {} allows no eviction ({detail})",
                            pdb.id.name
                        ),
                    )
                    .help(help(pdb))
                    .related(FindingField::Object { id: pdb.id.clone(), path: field.into() }, "this budget"),
                );
            }
        }
    }
}

/// The finding on a budget meant for the HPA's pods that kube-apiserver's validation refuses
/// with `errors` ([`Pdb::refusal`]), in its words (`errors.NewInvalid`, values printed as the
/// release prints them), at the first error's field ([`refused`]).
fn invalid(cx: &Context<'_>, pdb: &Pdb, mut errors: Vec<crate::field::FieldError>) -> Finding {
    let rendering = crate::field::ValueRendering::of(cx.settings.gates().version());
    for e in &mut errors {
        e.rendering = rendering;
    }
    let group = crate::api::GroupVersion::parse_or_empty(&pdb.id.api_version).group();
    let words = crate::field::invalid_message(&pdb.id.kind, group, &pdb.id.name, &errors);
    let field = errors.first().map_or("spec", |e| e.field.as_str());
    refused(cx, pdb, field, &words)
}

/// The finding on a budget meant for the HPA's pods that kube-apiserver refuses with `words`
/// (its message: a decoding error, [`Pdb::undecodable`], or the validation errors of
/// [`invalid`]), at `field`: it is never stored, so it budgets nothing, and applying it fails.
fn refused(cx: &Context<'_>, pdb: &Pdb, field: &str, words: &str) -> Finding {
    let field = field.to_string();
    let mut f = Finding::new(
        &MinReplicasBlockedByPdb::META,
        field.clone(),
        format!("kube-apiserver rejects {} ({words}), so it budgets none of the pods of {}", pdb.id, cx.scale_target()),
    )
    .help(if field.starts_with("spec.selector") && words.contains("cannot unmarshal") {
        "write every key, operator and value of the selector as a string (quote a number or a boolean: version: \"1.0\")"
    } else if field == "spec" {
        "set only one of minAvailable and maxUnavailable (maxUnavailable: 1 allows one eviction at any replica count)"
    } else if field.starts_with("spec.selector") {
        super::REFUSED_SELECTOR_HELP
    } else if field == "spec.unhealthyPodEvictionPolicy" {
        "write unhealthyPodEvictionPolicy as IfHealthyBudget or AlwaysAllow, or leave it out"
    } else {
        "write minAvailable or maxUnavailable as a count of 0 or more, or a percentage from 0% to 100% (\"50%\")"
    })
    .on_object(pdb.id.clone(), field);
    f.severity = super::Severity::Error;
    let at = if cx.written.spec.min_replicas.is_some() { "spec.minReplicas" } else { "spec" };
    f.related(FindingField::Hpa(at.into()), "this HPA's pods")
}

/// What to do about `pdb`: when it allows no eviction at any pod count (`maxUnavailable: 0`,
/// `minAvailable: 100%`), only changing it helps; otherwise more replicas do too.
fn help(pdb: &super::objects::Pdb) -> String {
    const MANY: i64 = i32::MAX as i64;
    let never = match (&pdb.min_available, &pdb.max_unavailable) {
        (Some(m), _) => m.scaled(MANY, true) >= MANY,
        (None, Some(m)) => m.scaled(MANY, true) <= 0,
        (None, None) => false,
    };
    if never {
        format!(
            "{} allows no eviction at any replica count, so no minReplicas helps: change the budget (maxUnavailable: 1, or a minAvailable below 100%)",
            pdb.id.name
        )
    } else {
        format!("raise spec.minReplicas above what {} requires, or use maxUnavailable: 1", pdb.id.name)
    }
}

/// The kinds whose pods a replica count sets, 1 when unset (their `SetDefaults_*`).
const REPLICATED: &[&str] =
    &["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "Rollout", "DeploymentConfig"];

/// The labels the Deployment controller (`DefaultDeploymentUniqueLabelKey`) and Argo Rollouts
/// put on the pod template of each ReplicaSet they make: those pods are counted with their owner.
const OWNED_TEMPLATE_LABELS: &[&str] = &["pod-template-hash", "rollouts-pod-template-hash"];

/// The other workloads of the namespace whose pods `pdb` selects, with the fewest pods each
/// keeps by itself: its HPAs' smallest `minReplicas`, else its `replicas` (1 when unset), none
/// for a kind without a replica count; in a stable order (by kind, then name).
fn others_selected<'a>(
    objects: &'a dyn Objects,
    pdb: &Pdb,
    target: &Workload,
    template: &Workload,
) -> Vec<(&'a Workload, i64)> {
    let same = |a: &Workload, b: &Workload| a.id.kind == b.id.kind && a.id.name == b.id.name;
    let mut others: Vec<(&Workload, i64)> = objects
        .workloads_of(&target.id.namespace)
        .into_iter()
        .filter(|w| !same(w, target) && !same(w, template))
        .filter_map(|w| {
            let labels = &objects.pod_template_of(w)?.pod_labels;
            if labels.is_empty() || OWNED_TEMPLATE_LABELS.iter().any(|k| labels.contains_key(*k)) {
                return None;
            }
            if !pdb.selects(labels) {
                return None;
            }
            let pods = match objects.hpa_min_replicas(&w.id.namespace, w.id.group(), &w.id.kind, &w.id.name) {
                Some(m) => i64::from(m.max(0)),
                None if REPLICATED.contains(&w.id.kind.as_str()) => w.replicas.unwrap_or(1).max(0),
                None => 0,
            };
            Some((w, pods))
        })
        .collect();
    others.sort_by(|(a, _), (b, _)| (&a.id.kind, &a.id.name).cmp(&(&b.id.kind, &b.id.name)));
    others
}

fn show(v: &IntOrPercent) -> String {
    match v {
        IntOrPercent::Int(i) => i.to_string(),
        IntOrPercent::Percent(p) => format!("{p}%"),
    }
}
