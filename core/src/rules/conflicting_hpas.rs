//! HPA407 `conflicting-hpas`: two HPAs targeting the same workload.

use super::objects::ObjectId;
use super::{Context, Finding, FindingField, Rule, RuleMeta};

/// At most this many of the other HPAs are named in the message and pointed at.
const MAX_LISTED: usize = 5;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// Two or more HPAs whose `scaleTargetRef` names the same workload (same API group, kind,
    /// name and namespace, as the controller's RESTMapper maps a target by group and kind: the
    /// version aside, so `apps/v1beta2` and `apps/v1` name one Deployment, while a `Queue` of
    /// `a.example.com` and one of `b.example.com` are two objects): in files, among the checked manifests; with `hpa-lint cluster`, in the
    /// namespaces read; in `hpa-webhook`, the HPA under admission and those of its context cache.
    ///
    /// Also HPAs of different workloads whose pods are selected together: the controller lists
    /// the pods under the selector of the HPA's target (its `/scale` `status.selector`: the
    /// workload's `spec.selector`) and counts every HPA whose target's selector selects one of
    /// them (`validateAndParseSelector`, `hpasControllingPodsUnderSelector`). In the manifests:
    /// one target's selector selects the labels of the other's pod template, or the other way
    /// round, in one namespace (not a custom resource's: its operator makes its pods, and its
    /// CRD's `labelSelectorPath` says where its selector is, so neither is guessed from a
    /// `spec.template` or `spec.selector` it may have). The common case is a canary: Deployment `web` selects
    /// `app: web`, Deployment `web-canary` selects `{app: web, track: canary}` and its pods carry
    /// both labels, so the pods of `web-canary` are under both selectors, and both HPAs stop.
    ///
    /// Each HPA written with `metadata.generateName` and no name is an HPA of its own:
    /// kube-apiserver names each one when it is created (`kubectl create` of two makes two), and
    /// the message speaks of it as `an HPA with generateName web-`. An object defined twice in
    /// the set is one HPA (the linter matches its last definition). An HPA kube-apiserver would
    /// reject (HPA000: no name, an invalid spec, ...) is not counted: it is never stored, so it
    /// conflicts with nothing, and its own errors say what to fix. Nor is an HPA in a version the
    /// release does not serve (`autoscaling/v2beta2`, HPA401), which kubectl cannot even send.
    /// Nor is an HPA whose built-in
    /// target kind is written in a group that does not serve it (a Deployment of
    /// `extensions/v1beta1`, HPA405): the controller maps the target by group and kind, finds no
    /// resource (`FailedGetScale`) and stops before it reads a selector, so it selects no pods.
    /// Nor is an HPA whose target kind has no `scale` subresource (a DaemonSet, a Job, ...,
    /// HPA402): the controller stops at `FailedGetScale` as early.
    /// Only the group counts, as for the controller: `apps/v1beta2` names the same Deployment as
    /// `apps/v1`, and a kind spelled in another case (`Deployment` as `DEPLOYMENT`, HPA404) names none, but for all
    /// lowercase (`deployment`), which the RESTMapper maps to the kind.
    ///
    /// A workload kube-apiserver refuses (HPA410) is never created: the controller fails to get
    /// its scale (`FailedGetScale`) before it compares HPAs, so the HPAs naming it conflict with
    /// none (HPA410 is the one finding, on the first of them), and its HPA selects no pods of
    /// another target. The same holds for an Argo Rollout whose `spec.workloadRef` names a
    /// workload kube-apiserver refuses, or that Argo Rollouts refuses: the Rollout makes no
    /// pods and publishes no selector. Only in files: a live workload was admitted.
    ///
    /// ## Why it matters
    ///
    /// The controller refuses to scale pods that more than one HPA selects: each of the HPAs sets
    /// `ScalingActive=False` with reason `AmbiguousSelector` (`pods by selector app=web are
    /// controlled by multiple HPAs`) and stops scaling, so the workload is not autoscaled at all.
    /// (Releases before the check let the HPAs overwrite each other's replica count instead.)
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web-cpu
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
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web-rps
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Pods
    ///     pods:
    ///       metric:
    ///         name: http_requests_per_second
    ///       target: {type: AverageValue, averageValue: "100"}
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
    ///   - type: Pods
    ///     pods:
    ///       metric:
    ///         name: http_requests_per_second
    ///       target: {type: AverageValue, averageValue: "100"}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use one HPA with several metrics: the controller computes a proposal per metric and takes the
    /// highest. For workloads whose pods overlap, give each selector a label the other's pods do
    /// not carry (the stable Deployment of a canary selects `track: stable` too).
    pub struct ConflictingHpas {
        id: "HPA407",
        name: "conflicting-hpas",
        severity: Error,
        summary: "another HPA targets the same workload, or a workload whose pods it selects",
        needs_objects: true,
    }
}

impl Rule for ConflictingHpas {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let (Some(objects), Some(me)) = (cx.objects, cx.id) else { return };
        // Only an HPA that counts as scaling its target conflicts (`counted_target`, the one
        // rule every front end indexes HPAs by): one whose target the controller cannot map
        // stops before it reads a selector (HPA405 says why), one in a version the release does
        // not serve is never stored (HPA401 says so).
        let release = cx.settings.gates().version();
        let t = &cx.effective.spec.scale_target_ref;
        let Some((group, _, name)) = super::counted_target(cx.original.api_version().as_str(), t, release) else {
            return;
        };
        // The kind as the set defines it: `widget` of a set whose CRD defines `Widget`.
        let kind = cx.scale_target_kind();
        // A target kube-apiserver refuses is never created (or, a Rollout's template workload,
        // makes the Rollout no pods): the controller fails to get its scale (FailedGetScale) or
        // its selector before it compares HPAs, and HPA410 is the one finding.
        if cx.target_refusal().is_some() {
            return;
        }
        // The index lists the HPA under check among them (`Objects::hpas_targeting`).
        let all = objects.hpas_targeting(cx.namespace(), group, kind, name);
        if let Some(f) = sharing_pods(cx, objects, all) {
            out.push(f);
        }
        let others = all.len().saturating_sub(1);
        if others == 0 {
            return;
        }
        // Named and pointed at, up to a few: a thousand HPAs on one workload (generated
        // manifests, a copy-paste loop) must not make a thousand-squared report.
        let listed: Vec<&ObjectId> = all.iter().filter(|id| *id != me).take(MAX_LISTED).collect();
        let names = listed_names(listed.iter().map(|id| id.describe_name("an HPA")), others);
        let mut f = Finding::new(
            &Self::META,
            "spec.scaleTargetRef",
            format!(
                "{} is also scaled by {names}: the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
                cx.scale_target(),
            ),
        )
        // Several metrics are autoscaling/v2's: a v1 HPA has one (`targetCPUUtilizationPercentage`).
        .help(cx.help_in_v2("merge them into one HPA with several metrics"));
        for id in listed {
            f = f.related(
                FindingField::Object { id: id.clone(), path: "spec.scaleTargetRef".into() },
                "also targets it",
            );
        }
        out.push(f);
    }
}

/// The finding for HPAs of other workloads whose pods this HPA's target shares
/// ([`Objects::workloads_sharing_pods`]): the controller lists the pods under the target's
/// selector, finds more than one HPA whose selector selects some of them
/// (`validateAndParseSelector`, `hpasControllingPodsUnderSelector`) and sets
/// `ScalingActive=False` with reason `AmbiguousSelector` on this HPA (and on the others, each
/// seeing this one the same way). `same_target`: the HPAs of the target itself, this one among
/// them, which the controller also counts.
fn sharing_pods(cx: &Context<'_>, objects: &dyn super::objects::Objects, same_target: &[ObjectId]) -> Option<Finding> {
    let target = cx.target_workload()?;
    let selector = target.selector.as_ref()?;
    let ns = target.id.namespace.as_str();
    let mut sharing: Vec<(&ObjectId, &super::objects::Workload)> = Vec::new();
    // A workload that makes no pods (kube-apiserver refuses it, or Argo Rollouts its
    // workloadRef) gives its HPA no selector: the controller counts that HPA for no pod.
    for w in objects.workloads_sharing_pods(target).into_iter().filter(|w| !cx.makes_no_pods(w)) {
        sharing.extend(objects.hpas_targeting(ns, w.id.group(), &w.id.kind, &w.id.name).iter().map(|id| (id, w)));
    }
    if sharing.is_empty() {
        return None;
    }
    let mut controlling: Vec<String> = same_target
        .iter()
        .chain(sharing.iter().map(|(id, _)| *id))
        .map(|id| format!("{}/{}", id.namespace, id.name))
        .collect();
    controlling.sort();
    controlling.dedup();
    let count = sharing.len();
    let listed: Vec<_> = sharing.into_iter().take(MAX_LISTED).collect();
    let names = listed_names(
        listed.iter().map(|(id, w)| format!("{} (of {} {})", id.describe_name("an HPA"), w.id.kind, w.id.name)),
        count,
    );
    let mut f = Finding::new(
        &ConflictingHpas::META,
        "spec.scaleTargetRef",
        format!(
            "pods by selector {} are controlled by multiple HPAs: [{}]: {} shares pods with the targets of {names}, and the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
            selector.format(),
            controlling.join(" "),
            cx.scale_target(),
        ),
    )
    .help("give each workload's selector a label the other workloads' pods do not carry (a canary's pods must not match the stable selector), or scale them with one HPA");
    for (id, _) in listed {
        f = f.related(
            FindingField::Object { id: id.clone(), path: "spec.scaleTargetRef".into() },
            "selects the same pods",
        );
    }
    Some(f)
}

/// The names of the HPAs listed, comma-separated, and `and N more` for those of `total` left
/// out.
fn listed_names(names: impl Iterator<Item = String>, total: usize) -> String {
    let names: Vec<String> = names.collect();
    let mut text = names.join(", ");
    if total > names.len() {
        text.push_str(&format!(" and {} more", total - names.len()));
    }
    text
}
