//! `/validate-workloads`: the other side of the relation. A write of an object an HPA depends
//! on (its scale target, a workload whose pods are selected with its target's, a
//! VerticalPodAutoscaler, a PodDisruptionBudget) is admitted with a
//! warning, naming the HPA, for each finding of that HPA's cross-object rules the write brings:
//! the rules run twice against the context cache, once with the object as it was (the old
//! object, else the cache) and once with the object as sent in its place, both read the same
//! way (`hpa_cluster::Reads`: the kinds RBAC refuses, the cache as where an absence was read
//! from), and what only the second run finds is what this write breaks; so is a finding of both runs located on a field of
//! the written object the write changes (its value, or the field managers owning it). No check
//! is written here: a dropped request a utilization metric needs is HPA201, `spec.replicas` set
//! on an HPA-managed workload is HPA410 (with hpa-core's decision of who set it, from the
//! managed fields kube-apiserver has already updated), a `ContainerResource` container removed
//! is HPA202, a VPA conflict HPA408 and a PodDisruptionBudget blocking every eviction at
//! `minReplicas` HPA104.
//!
//! Suppression as in files ([`hpa_core::rules::suppressed`]): a warning is left out (and not
//! counted in /metrics) when the HPA it names lists the rule in its `hpa-lint.dev/ignore`
//! annotation (parsed once, as the cache admits the HPA: `CachedHpa::ignore`), or when the
//! object the finding is located on lists it: the written object's own annotation as sent
//! (HPA410 on a workload's `spec.replicas`), any other object's as the cache keeps it.
//!
//! Warnings only: this endpoint never denies (its webhook runs with `failurePolicy: Ignore`).
//! Without a fresh view of the cluster it admits without checking, and says so as `/validate`
//! does (`hpa-webhook checked this write against no HPA (cross-object checks skipped): <why>`);
//! with a fresh view in which RBAC refuses kinds the checks read (the HPAs themselves among
//! them), it names them (`hpa-webhook checked this write against its HPAs in part: RBAC refuses
//! to watch <resources> (not read)`). Both are counted in /metrics as `/validate`'s are.

use std::collections::HashSet;

use hpa_cluster::inventory::{Trimmed, object_id, trim};
use hpa_cluster::kinds::{self, ResourceKind};
use hpa_cluster::watch::{CachedHpa, Index, Overlay, Reads};
use hpa_core::api::decode::{PathStep, parse_path};
use hpa_core::api::meta::field_owners;
use hpa_core::rules::objects::{Pdb, Vpa, Workload};
use hpa_core::rules::{self, Finding, FindingField, Ignore, ObjectId, Objects, Severity};
use serde_json::Value;

use crate::admission::{ContextReport, Reviewer, short};
use crate::context::{self, Subject, View};
use crate::metrics::{OperationLabel, OutcomeLabel};
use crate::review::{AdmissionRequest, AdmissionResponse};

/// The most HPAs one write is checked against (a PodDisruptionBudget may cover many).
pub const MAX_HPAS: usize = 20;

/// The kinds this endpoint checks, by API group and resource.
pub const KINDS: [ResourceKind; 7] = [
    kinds::DEPLOYMENT,
    kinds::STATEFUL_SET,
    kinds::REPLICA_SET,
    kinds::REPLICATION_CONTROLLER,
    kinds::ROLLOUT,
    kinds::VPA,
    kinds::PDB,
];

/// One trimmed object of a write.
enum Changed {
    Workload(Workload),
    Pdb(Pdb),
    Vpa(Vpa),
}

impl Changed {
    fn id(&self) -> &ObjectId {
        match self {
            Changed::Workload(w) => &w.id,
            Changed::Pdb(p) => &p.id,
            Changed::Vpa(v) => &v.id,
        }
    }
}

pub(crate) fn decide(
    admission: &Reviewer,
    request: &AdmissionRequest<'_>,
    op: OperationLabel,
    view: &View<'_>,
    report: &mut ContextReport,
) -> (AdmissionResponse, OutcomeLabel) {
    let uid = request.uid.as_ref();
    let kind = KINDS
        .iter()
        .find(|k| k.group == request.resource.group && k.plural == request.resource.resource)
        .filter(|_| request.sub_resource.as_deref().unwrap_or("").is_empty());
    let (Some(kind), OperationLabel::Create | OperationLabel::Update) = (kind, op) else {
        return (AdmissionResponse::allow(uid), OutcomeLabel::Skipped);
    };
    if !admission.lint_warnings() {
        return (AdmissionResponse::allow(uid), OutcomeLabel::Skipped);
    }
    let (index, refused) = match view {
        View::Fresh(index, refused, _) => (&**index, refused.as_slice()),
        View::Stale(_) => {
            report.stale = true;
            // Ours, admitted with the warning (as `/validate` counts a stale review).
            let warnings = view.stale_warning(Subject::Write).map(|w| short(&w)).into_iter().collect();
            return (AdmissionResponse::allow(uid).with_warnings(warnings), OutcomeLabel::Allowed);
        }
        View::Off => return (AdmissionResponse::allow(uid), OutcomeLabel::Skipped),
    };
    let parse = |raw: Option<&serde_json::value::RawValue>, keep: bool| -> Option<(Changed, Ignore, Option<Value>)> {
        // Read as Go reads it: a lone surrogate escape kube-apiserver passes through in
        // `fieldsV1` is U+FFFD, not a reason to refuse the write.
        let mut value: Value = hpa_core::go::parse_tree(raw.filter(|r| r.get() != "null")?.get()).ok()?;
        // An object being created may not name its namespace yet: the request does.
        if object_id(kind, &value).namespace == "default"
            && !request.namespace().is_empty()
            && let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut)
        {
            metadata.insert("namespace".into(), Value::String(request.namespace().to_string()));
        }
        let ignore = Ignore::from_json(&value);
        let kept = keep.then(|| value.clone());
        let changed = match trim(kind, value) {
            Trimmed::Workload(w, _) => Changed::Workload(w),
            Trimmed::Pdb(p) => Changed::Pdb(p),
            Trimmed::Vpa(v) => Changed::Vpa(v),
            _ => return None,
        };
        Some((changed, ignore, kept))
    };
    // An UPDATE keeps both objects as trees, to tell which fields it changes.
    let update = op == OperationLabel::Update;
    let Some((new, ignore, new_tree)) = parse(request.object, update) else {
        return (AdmissionResponse::invalid(uid, "request.object is missing or not an object"), OutcomeLabel::Invalid);
    };
    let old = if update { parse(request.old_object, true) } else { None };
    let (old, trees) = match (old, new_tree) {
        (Some((old, _, Some(old_tree))), Some(new_tree)) => (Some(old), Some((old_tree, new_tree))),
        (old, _) => (old.map(|(o, _, _)| o), None),
    };
    let written = Written { changed: &new, ignore: &ignore, trees: trees.as_ref() };
    let (found, unchecked) = warnings(admission, (index, refused), &written, old.as_ref(), report);
    // What was not checked comes first, in warnings the total never leaves out: the kinds RBAC
    // refuses that the checks read, the HPAs past the limit.
    let notes: Vec<String> = context::partial_warning(Subject::Write, &report.partial)
        .into_iter()
        .chain((!unchecked.is_empty()).then(|| not_checked(&unchecked)))
        .map(|w| short(&w))
        .collect();
    let first = notes.len();
    let (found, hpas): (Vec<String>, Vec<&str>) = found.into_iter().unzip();
    let warnings: Vec<String> = notes.into_iter().chain(found).collect();
    let response = AdmissionResponse::allow(uid)
        .with_warnings_summarized(warnings, |kept, _| left_out(&hpas[kept.saturating_sub(first)..]));
    (response, OutcomeLabel::Allowed)
}

/// The object a write sends.
struct Written<'a> {
    /// It, trimmed.
    changed: &'a Changed,
    /// Its own `hpa-lint.dev/ignore` annotation.
    ignore: &'a Ignore,
    /// For an UPDATE, the stored object and the one sent, as trees.
    trees: Option<&'a (Value, Value)>,
}

impl Written<'_> {
    /// Whether this write changes the field a finding is located on in the written object: its
    /// value, or who owns it (`metadata.managedFields`, which kube-apiserver has updated before
    /// admission). Such a finding is this write's even when the stored object had it too: a
    /// client-side `kubectl apply` that resets `spec.replicas` from the HPA's 7 to the 3 of its
    /// last-applied configuration undoes the HPA now, though the configuration said 3 before.
    fn changes(&self, finding: &Finding) -> bool {
        let (FindingField::Object { id, path }, Some((old, new))) = (&finding.location, self.trees) else {
            return false;
        };
        if id != self.changed.id() {
            return false;
        }
        let steps = parse_path(path);
        if steps.is_empty() {
            return false;
        }
        value_at(old, &steps) != value_at(new, &steps) || owners(old, &steps) != owners(new, &steps)
    }
}

/// The value at a field path.
fn value_at<'v>(object: &'v Value, steps: &[PathStep]) -> Option<&'v Value> {
    steps.iter().try_fold(object, |v, s| match s {
        PathStep::Field(name) | PathStep::Key(name) => v.get(name),
        PathStep::Index(i) => v.get(*i),
    })
}

/// The field managers owning a field path ([`field_owners`]; none for a path through a list
/// item, whose key this reading does not know), sorted.
fn owners<'v>(object: &'v Value, steps: &[PathStep]) -> Vec<&'v str> {
    let names: Option<Vec<&str>> = steps
        .iter()
        .map(|s| match s {
            PathStep::Field(name) | PathStep::Key(name) => Some(name.as_str()),
            PathStep::Index(_) => None,
        })
        .collect();
    let Some(names) = names else { return Vec::new() };
    let mut out: Vec<&str> = field_owners(object, &names).filter_map(|o| o.manager).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The closing warning of a write whose warnings would pass kube-apiserver's total
/// ([`AdmissionResponse::with_warnings_summarized`]): how many were left out, and the HPAs they
/// name (`hpas`: one per warning left out), each once, in order.
fn left_out(hpas: &[&str]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in hpas {
        if !names.contains(name) {
            names.push(name);
        }
    }
    let warnings = if hpas.len() == 1 { "warning" } else { "warnings" };
    let noun = if names.len() == 1 { "HPA" } else { "HPAs" };
    format!("… and {} more {warnings}, for {noun} {}", hpas.len(), names.join(", "))
}

/// The warning that names the HPAs a write concerns past [`MAX_HPAS`], which were not checked
/// (`unchecked`, in order; cut to [`MAX_WARNING_CHARS`](crate::admission::MAX_WARNING_CHARS)).
fn not_checked(unchecked: &[&str]) -> String {
    let noun = if unchecked.len() == 1 { "HPA" } else { "HPAs" };
    short(&format!(
        "hpa-webhook checked this write against {MAX_HPAS} of the {} HPAs it concerns (at most {MAX_HPAS} per write); not checked: {noun} {}",
        MAX_HPAS + unchecked.len(),
        unchecked.join(", ")
    ))
}

/// The warnings for one write, each with the name of the HPA it names: per HPA concerned, the
/// cross-object findings it brings (those the stored object did not have, and those on a field of
/// the written object the write changes, [`Written::changes`]), but those suppressed
/// ([`suppressed`]); each text once. Then the names of the HPAs it concerns past [`MAX_HPAS`],
/// which were not checked. The kinds RBAC refuses (`refused`, from the view) that finding the
/// HPAs and their checks with the written object read go to `report.partial`: the HPAs always
/// (they are how a write finds its HPAs), the others as [`Reads`] notes them (a read of the
/// written object itself is answered with it).
fn warnings<'a>(
    admission: &Reviewer,
    (index, refused): (&'a Index, &[ResourceKind]),
    written: &Written<'_>,
    old: Option<&Changed>,
    report: &mut ContextReport,
) -> (Vec<(String, &'a str)>, Vec<&'a str>) {
    let (new, ignore) = (written.changed, written.ignore);
    // The cluster after the write and before it (the stored object, else the cache as it is),
    // read the same way: through `Reads`, with the kinds RBAC refuses and the context cache as
    // where an absence was read from, so that a finding both have is worded alike in both.
    let (overlaid, stored) = (overlay(index, Some(new)), overlay(index, old));
    let after = Reads::new(&overlaid, refused).with_written(new.id());
    let before = Reads::new(&stored, refused).with_written(new.id());
    let mut out = Vec::new();
    let opts = admission.check_options();
    let (checked, unchecked) = concerned(index, (&after, &overlaid), new);
    for hpa in checked {
        // The cached HPA was admitted once through hpa-core's front door when its event arrived
        // (hpa-cluster's `CachedHpa`); its report is continued with the cache before and after
        // the write.
        let admitted = &hpa.admitted;
        let found = |objects: &dyn Objects| -> Vec<Finding> {
            admitted
                .check_world(Some(&hpa.id), objects, &opts)
                .into_iter()
                .filter(|f| f.severity >= Severity::Warning)
                .collect()
        };
        let known: HashSet<(&'static str, String)> =
            found(&before).into_iter().map(|f| (f.rule.id, f.message)).collect();
        for f in found(&after) {
            if (known.contains(&(f.rule.id, f.message.clone())) && !written.changes(&f))
                || suppressed(&f, &hpa.ignore, (new.id(), ignore), |id| index.ignore(id))
            {
                continue;
            }
            let text = short(&format!("HPA {}: {} {}: {}", hpa.id.name, f.rule.id, f.rule.name, f.message));
            if !out.iter().any(|(t, _)| *t == text) {
                report.findings.push(f.rule.id);
                out.push((text, hpa.id.name.as_str()));
            }
        }
    }
    report.partial = after.unseen();
    if refused.contains(&kinds::HPA) && !report.partial.contains(&kinds::HPA) {
        // First, as in the cache's order of kinds.
        report.partial.insert(0, kinds::HPA);
    }
    (out, unchecked.iter().map(|h| h.id.name.as_str()).collect())
}

/// Whether a finding of an HPA's cross-object rules is left out at a write, as the linter leaves
/// it out in files ([`rules::suppressed`]): the HPA's annotation (`hpa`) lists its rule, or the
/// object the finding is located on does: the written object (`written`: its identity and
/// annotation as sent, in place of the cached one), else the object as `cached` keeps it.
fn suppressed<'a>(
    finding: &Finding,
    hpa: &Ignore,
    written: (&ObjectId, &'a Ignore),
    cached: impl FnOnce(&ObjectId) -> Option<&'a Ignore>,
) -> bool {
    let (written, ignore) = written;
    rules::suppressed(finding, hpa, |id| if id == written { Some(ignore) } else { cached(id) })
}

/// The cache with `changed` (the written object, or the stored one of an UPDATE) in place of the
/// cached one; without it (the state before a CREATE), the cache as it is.
fn overlay<'a>(index: &'a Index, changed: Option<&'a Changed>) -> Overlay<'a> {
    match changed {
        Some(Changed::Workload(w)) => Overlay::new(index).with_workload(w),
        Some(Changed::Pdb(p)) => Overlay::new(index).with_pdb(p.clone()),
        Some(Changed::Vpa(v)) => Overlay::new(index).with_vpa(v.clone()),
        None => Overlay::new(index),
    }
}

/// The HPAs a write concerns: those scaling the workload (by name), then those of each Argo
/// Rollout whose `spec.workloadRef` names it, then those of the workloads whose pods and its pods
/// are selected together ([`Objects::workloads_sharing_pods`] of `unnoted`, the cluster after the
/// write read without noting refused kinds; `after` is the same through [`Reads`]);
/// those scaling the VPA's target; those whose pods the PodDisruptionBudget selects, by name. The first [`MAX_HPAS`] are checked, the others
/// (second) are not.
fn concerned<'a>(
    index: &'a Index,
    (after, unnoted): (&dyn Objects, &dyn Objects),
    changed: &Changed,
) -> (Vec<&'a CachedHpa>, Vec<&'a CachedHpa>) {
    let by_target = |namespace: &str, group: &str, kind: &str, name: &str| -> Vec<&'a CachedHpa> {
        // The cache lists HPAs under their target's kind as the RESTMapper maps it
        // (`CachedHpa::target`, `Objects::mapped_kind`): a VPA's `targetRef` may write it in
        // lowercase, a custom kind's too.
        let kind = index.objects().mapped_kind(group, kind);
        index
            .objects()
            .hpas_targeting(namespace, group, kind, name)
            .iter()
            .filter_map(|id| index.hpa(namespace, &id.name).map(|h| &**h))
            .collect()
    };
    let mut hpas = match changed {
        Changed::Workload(w) => {
            // Its own HPAs, then those of the Argo Rollouts whose `spec.workloadRef` names it (their
            // pods are made from its template: the rules read it through `pod_template_of`).
            let ns = &w.id.namespace;
            let mut hpas = by_target(ns, w.id.group(), &w.id.kind, &w.id.name);
            for rollout in index.rollouts_using(ns, (w.id.group(), &w.id.kind, &w.id.name)) {
                hpas.extend(by_target(ns, rollout.id.group(), &rollout.id.kind, &rollout.id.name));
            }
            // Then those of the workloads whose pods and its pods are selected together, as
            // written: the controller reads the requests of every pod under its target's selector
            // (`GetResourceReplicas`), so a canary's write that drops a request breaks the
            // utilization metric of the HPA of the stable Deployment whose selector takes its
            // pods (HPA201), and pods newly shared make HPAs ambiguous (HPA407).
            // (Asked of the cluster after the write as it is, not through `Reads`: a kind RBAC
            // refuses holds no workload here, and a write that concerns no HPA is not said to be
            // checked in part for it; the checks of an HPA found note what they read.)
            for other in unnoted.workloads_sharing_pods(w) {
                for hpa in by_target(ns, other.id.group(), &other.id.kind, &other.id.name) {
                    if !hpas.iter().any(|h| h.id == hpa.id) {
                        hpas.push(hpa);
                    }
                }
            }
            hpas
        }
        Changed::Vpa(v) => by_target(&v.id.namespace, &v.target_group, &v.target_kind, &v.target_name),
        Changed::Pdb(p) => {
            let mut hpas: Vec<&CachedHpa> = index
                .hpas(&p.id.namespace)
                .map(|h| &**h)
                .filter(|h| {
                    // The HPAs that count as scaling their target (`CachedHpa::target`), as
                    // the index lists them for the other kinds of write (and HPA407 counts).
                    let Some((group, kind, name)) = h.target() else { return false };
                    after
                        .workload(group, after.mapped_kind(group, kind), &p.id.namespace, name)
                        .and_then(|t| after.pod_template_of(t))
                        .is_some_and(|t| p.selects(&t.pod_labels))
                })
                .collect();
            hpas.sort_by(|a, b| a.id.name.cmp(&b.id.name));
            hpas
        }
    };
    let unchecked = hpas.split_off(hpas.len().min(MAX_HPAS));
    (hpas, unchecked)
}

#[cfg(test)]
mod tests {
    use hpa_core::rules::find;

    use super::*;

    fn id(kind: &str, name: &str) -> ObjectId {
        ObjectId { api_version: "apps/v1".into(), kind: kind.into(), namespace: "shop".into(), name: name.into() }
    }

    /// A finding's path is read by hpa-core's one reader of paths (`parse_path`): a map key
    /// (`metadata.labels[app.kubernetes.io/name]`) is one key, not fields split at its dots.
    #[test]
    fn field_paths_read_as_findings_write_them() {
        let object = serde_json::json!({"metadata": {"labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"containers": [{"name": "a"}]}});
        let at = |path: &str| value_at(&object, &parse_path(path));
        assert_eq!(at("metadata.labels[app.kubernetes.io/name]"), Some(&serde_json::json!("web")));
        assert_eq!(at("spec.containers[0].name"), Some(&serde_json::json!("a")));
        assert_eq!(at("spec.containers[1]"), None);
    }

    fn no_cache<'a>(_: &ObjectId) -> Option<&'a Ignore> {
        None
    }

    fn finding(rule: &str) -> Finding {
        let Some(rule) = find(rule) else { panic!("{rule} is registered") };
        Finding::new(rule.meta(), "spec.metrics[0]", "message")
    }

    #[test]
    fn the_closing_warning_names_each_hpa_left_out_once() {
        assert_eq!(left_out(&["web", "web", "api", "web"]), "… and 4 more warnings, for HPAs web, api");
        assert_eq!(left_out(&["web"]), "… and 1 more warning, for HPA web");
    }

    #[test]
    fn a_write_changes_a_field_by_value_or_by_owner() {
        let entry = |manager: &str, sub: Option<&str>| {
            let mut e = serde_json::json!({"manager": manager, "operation": "Update", "fieldsV1": {"f:spec": {"f:replicas": {}}}});
            if let Some(s) = sub {
                e["subresource"] = serde_json::json!(s);
            }
            e
        };
        let object = |replicas: i64, entries: Vec<Value>| serde_json::json!({"metadata": {"managedFields": entries}, "spec": {"replicas": replicas}});
        let web = Changed::Workload(Workload { id: id("Deployment", "web"), ..Workload::default() });
        let none = Ignore::default();
        let on_replicas = finding("HPA410").on_object(id("Deployment", "web"), "spec.replicas");
        let changes = |old: Value, new: Value| {
            let trees = (old, new);
            Written { changed: &web, ignore: &none, trees: Some(&trees) }.changes(&on_replicas)
        };
        let hpa = || vec![entry("kube-controller-manager", Some("scale"))];
        let csa = || vec![entry("kubectl-client-side-apply", None)];
        // Client-side apply resets the HPA's 7 to 3, taking the field.
        assert!(changes(object(7, hpa()), object(3, csa())));
        // The same value, the field taken from the controller.
        assert!(changes(object(3, hpa()), object(3, csa())));
        // Neither: a write of something else.
        assert!(!changes(object(3, csa()), object(3, csa())));
        // A finding about another object, or a CREATE: not this rule's business.
        let other = finding("HPA410").on_object(id("Deployment", "api"), "spec.replicas");
        let trees = (object(7, hpa()), object(3, csa()));
        assert!(!Written { changed: &web, ignore: &none, trees: Some(&trees) }.changes(&other));
        assert!(!Written { changed: &web, ignore: &none, trees: None }.changes(&on_replicas));
    }

    /// A VPA CREATE against an HPA scaling on cpu twice (a `Resource` and a `ContainerResource`
    /// metric): HPA408 finds the same thing twice, warned and counted once.
    #[test]
    fn one_warning_per_text() {
        use serde_json::json;
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "1"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 8, "metrics": [
                    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                    {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                        "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"template": {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]}}}});
        let body = vpa_create("Auto");
        let (warnings, findings) = review_with_cache([(kinds::HPA, hpa), (kinds::DEPLOYMENT, deployment)], &body);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("HPA web: HPA408 vpa-conflict: "), "{warnings:?}");
        assert_eq!(findings, ["HPA408"]);
    }

    /// A Deployment no HPA scales, whose pods the selector of an HPA's Deployment selects (a
    /// canary labelled as the stable one): the controller reads the requests of every pod under
    /// that selector, so a write of the canary that drops its cpu request breaks the stable HPA's
    /// cpu utilization (HPA201, naming it), as `hpa-lint` says on the same objects as files; a
    /// write that keeps the request says nothing.
    #[test]
    fn a_write_of_a_workload_whose_pods_an_hpas_target_selects_is_checked_against_that_hpa() {
        use serde_json::json;
        let (mut objects, _) = deployment_under_an_hpa();
        let canary = |requests: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web-canary", "namespace": "shop"},
                "spec": {"selector": {"matchLabels": {"app": "web", "track": "canary"}},
                    "template": {"metadata": {"labels": {"app": "web", "track": "canary"}},
                        "spec": {"containers": [{"name": "app", "resources": {"requests": requests}}]}}}})
        };
        objects.push((kinds::DEPLOYMENT, canary(json!({"cpu": "100m"}))));
        let update = |new: Value| {
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "c",
                "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                "namespace": "shop", "operation": "UPDATE", "object": new, "oldObject": canary(json!({"cpu": "100m"}))}})
        };
        let (warnings, findings) = review_with_cache(objects.clone(), &update(canary(json!({"memory": "1Gi"}))));
        assert_eq!(findings, ["HPA201"], "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "HPA web: HPA201 missing-resource-request: cpu utilization is measured against the requests of every \
                 pod the selector of Deployment shop/web (app=web) selects, and it selects the pods of Deployment \
                 shop/web-canary"
            ),
            "{warnings:?}"
        );
        let (warnings, findings) = review_with_cache(objects.clone(), &update(canary(json!({"cpu": "200m"}))));
        assert_eq!((warnings, findings), (Vec::<String>::new(), Vec::<&str>::new()));
        // Relabelled out of the stable selector, the canary concerns no HPA: with Argo Rollouts
        // refused to the cache, nothing is said either (no HPA's check read them).
        let mut apart = canary(json!({"memory": "1Gi"}));
        apart["spec"]["template"]["metadata"]["labels"] = json!({"app": "web-canary"});
        apart["spec"]["selector"] = json!({"matchLabels": {"app": "web-canary"}});
        let (warnings, report) = review_refused(objects, vec![kinds::ROLLOUT], &update(apart));
        assert_eq!((warnings, report.partial), (Vec::<String>::new(), Vec::new()));
    }

    /// An HPA whose target kind is written in lowercase (`deployment`, which the controller's
    /// RESTMapper maps to the Deployment) is concerned by a write of the Deployment and by one of
    /// a VPA of it written alike: the cache lists it under the mapped kind.
    #[test]
    fn a_write_finds_the_hpas_that_write_their_target_kind_in_lowercase() {
        let (mut objects, body) = deployment_under_an_hpa();
        objects[0].1["spec"]["scaleTargetRef"]["kind"] = serde_json::json!("deployment");
        let (warnings, findings) = review_with_cache(objects.clone(), &body);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("HPA web: HPA201 missing-resource-request: "), "{warnings:?}");
        assert_eq!(findings, ["HPA201"]);
        let mut vpa = vpa_create("Auto");
        vpa["request"]["object"]["spec"]["targetRef"]["kind"] = serde_json::json!("deployment");
        let (warnings, findings) = review_with_cache(objects, &vpa);
        assert_eq!(findings, ["HPA408"], "{warnings:?}");
        assert!(warnings[0].starts_with("HPA web: HPA408 vpa-conflict: "), "{warnings:?}");
    }

    /// A PodDisruptionBudget write concerns the HPAs that count as scaling a workload whose pods
    /// it selects, by the one rule HPA407 and the index count them by (`rules::counted_target`):
    /// not an HPA whose Deployment is written in `extensions/v1beta1` (HPA405), which the
    /// controller never maps, so never scales to its `minReplicas`.
    #[test]
    fn a_pdb_write_concerns_only_the_hpas_that_count() {
        use serde_json::json;
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app"}]}}}});
        let hpa = |name: &str, api_version: &str| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "shop", "resourceVersion": "1"},
                "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": "Deployment", "name": "web"},
                    "minReplicas": 2, "maxReplicas": 8}})
        };
        let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}});
        let body = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "p",
            "kind": {"group": "policy", "version": "v1", "kind": "PodDisruptionBudget"},
            "resource": {"group": "policy", "version": "v1", "resource": "poddisruptionbudgets"},
            "namespace": "shop", "operation": "CREATE", "object": pdb}});
        let cache = [
            (kinds::DEPLOYMENT, deployment),
            (kinds::HPA, hpa("web", "apps/v1")),
            (kinds::HPA, hpa("old", "extensions/v1beta1")),
        ];
        let (warnings, findings) = review_with_cache(cache, &body);
        assert_eq!(
            warnings,
            [
                "HPA web: HPA104 min-replicas-blocked-by-pdb: at minReplicas (2) the PodDisruptionBudget web allows no eviction (minAvailable 2 needs 2 of 2 pods)"
            ]
        );
        assert_eq!(findings, ["HPA104"]);
    }

    /// The stored state of a write and the written one are read the same way (the kinds RBAC
    /// refuses, where an absence was read from): a finding both have, worded from the context
    /// cache either way, is not this write's. Here HPA403 (raised by the lint configuration) on
    /// an HPA whose Deployment does not exist, at the CREATE of a VPA of that Deployment.
    #[test]
    fn a_finding_the_cluster_had_before_the_write_is_not_the_writes() {
        use serde_json::json;
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "1"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 8}});
        let body = vpa_create("Off");
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("lint.yaml");
        std::fs::write(&config, "rules:\n  HPA403: warning\n").unwrap();
        let gates = hpa_core::features::FeatureGates::default();
        let reviewer = Reviewer::new(gates.clone()).with_lint_config(&config).unwrap();
        let index = Index::of_objects([(kinds::HPA, hpa)], &hpa_cluster::watch::CacheOptions::admission_for(gates));
        let lock = std::sync::RwLock::new(index);
        let view = View::Fresh(lock.read().unwrap(), Vec::new(), None);
        let (warnings, report, _) = review_by(&reviewer, &view, &body);
        assert_eq!(warnings, Vec::<String>::new());
        assert_eq!(report.findings, Vec::<&str>::new());
    }

    /// The review of the CREATE of VPA `shop/web` of Deployment `web`, in `update_mode`.
    fn vpa_create(update_mode: &str) -> Value {
        use serde_json::json;
        let vpa = json!({"apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "updatePolicy": {"updateMode": update_mode}}});
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "v",
            "kind": {"group": "autoscaling.k8s.io", "version": "v1", "kind": "VerticalPodAutoscaler"},
            "resource": {"group": "autoscaling.k8s.io", "version": "v1", "resource": "verticalpodautoscalers"},
            "namespace": "shop", "operation": "CREATE", "object": vpa}})
    }

    /// `/validate-workloads`' answer to `body` with a fresh cache of `objects`: its warnings, and
    /// the cross-object findings it reports.
    fn review_with_cache(
        objects: impl IntoIterator<Item = (ResourceKind, Value)>,
        body: &Value,
    ) -> (Vec<String>, Vec<&'static str>) {
        let (warnings, report) = review_refused(objects, Vec::new(), body);
        (warnings, report.findings)
    }

    /// `/validate-workloads`' answer to `body` with a fresh cache of `objects` in which RBAC
    /// refuses `refused`: its warnings, and what the context did.
    fn review_refused(
        objects: impl IntoIterator<Item = (ResourceKind, Value)>,
        refused: Vec<ResourceKind>,
        body: &Value,
    ) -> (Vec<String>, ContextReport) {
        let gates = hpa_core::features::FeatureGates::default();
        let index = Index::of_objects(objects, &hpa_cluster::watch::CacheOptions::admission_for(gates.clone()));
        let lock = std::sync::RwLock::new(index);
        let (warnings, report, _) = review_in_view(&View::Fresh(lock.read().unwrap(), refused, None), body);
        (warnings, report)
    }

    /// `/validate-workloads`' answer to `body` with `view`: its warnings, what the context did,
    /// and the outcome.
    fn review_in_view(view: &View<'_>, body: &Value) -> (Vec<String>, ContextReport, OutcomeLabel) {
        review_by(&Reviewer::new(hpa_core::features::FeatureGates::default()), view, body)
    }

    /// The same, by `reviewer`.
    fn review_by(reviewer: &Reviewer, view: &View<'_>, body: &Value) -> (Vec<String>, ContextReport, OutcomeLabel) {
        let answer = reviewer.review_in(
            crate::metrics::Endpoint::ValidateWorkloads,
            body.to_string().as_bytes(),
            &crate::policy::Policy::default(),
            view,
        );
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        let warnings = review["response"]["warnings"]
            .as_array()
            .map_or(Vec::new(), |w| w.iter().map(|w| w.as_str().unwrap().to_string()).collect());
        (warnings, answer.context, answer.outcome)
    }

    /// A Deployment `web` in `shop` whose container `app` requests `requests`, an HPA `web`
    /// scaling it on cpu utilization, and the review of the Deployment's CREATE without requests.
    fn deployment_under_an_hpa() -> (Vec<(ResourceKind, Value)>, Value) {
        use serde_json::json;
        let deployment = |requests: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "app", "resources": {"requests": requests}}]}}}})
        };
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "1"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 8, "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        let body = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "d",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "namespace": "shop", "operation": "CREATE", "object": deployment(json!({"memory": "1Gi"}))}});
        (vec![(kinds::HPA, hpa), (kinds::DEPLOYMENT, deployment(json!({"cpu": "100m"})))], body)
    }

    const HPA201_WEB: &str = "HPA web: HPA201 missing-resource-request: cpu utilization needs a cpu request in every \
        container, and container \"app\" of Deployment shop/web has none: the controller will not scale on this metric";

    /// kube-apiserver validates a workload before any validating webhook sees it: one it refuses
    /// (here a selector operator) never reaches `/validate-workloads`, so what reaches it was
    /// admitted and is never said to be refused (no HPA410 in kube-apiserver's words); the
    /// rules about its pods run on it as on any other (HPA201).
    #[test]
    fn a_written_workload_is_never_said_to_be_refused() {
        let (objects, mut body) = deployment_under_an_hpa();
        body["request"]["object"]["spec"]["selector"] =
            serde_json::json!({"matchExpressions": [{"key": "app", "operator": "Foo", "values": ["web"]}]});
        let (warnings, findings) = review_with_cache(objects, &body);
        assert_eq!(warnings, [HPA201_WEB]);
        assert_eq!(findings, ["HPA201"]);
    }

    /// A stale view: nothing checked, and the answer says so as `/validate`'s does.
    #[test]
    fn a_stale_view_is_named_in_the_answer() {
        let (_, body) = deployment_under_an_hpa();
        let view = View::Stale("the watch of deployments.apps has been broken for 31s".into());
        let (warnings, report, outcome) = review_in_view(&view, &body);
        // Ours, admitted with the warning: not a request of another kind ("skipped").
        assert_eq!(outcome, OutcomeLabel::Allowed);
        assert_eq!(
            warnings,
            ["hpa-webhook checked this write against no HPA (cross-object checks skipped): \
              the watch of deployments.apps has been broken for 31s"]
        );
        assert_eq!(report, ContextReport { stale: true, ..ContextReport::default() });
        // Without a context cache: nothing to say.
        let (warnings, _, outcome) = review_in_view(&View::Off, &body);
        assert_eq!((warnings, outcome), (Vec::<String>::new(), OutcomeLabel::Skipped));
    }

    /// RBAC refuses kinds: those the checks read are named first (the HPAs always: they are how
    /// a write finds its HPAs), and reported for /metrics; the written kind's own object is no
    /// read of the cache, the kinds read by no check are not named.
    #[test]
    fn the_refused_kinds_the_checks_read_are_named_in_the_answer() {
        let (objects, body) = deployment_under_an_hpa();
        let partial = |kinds: &str| {
            format!("hpa-webhook checked this write against its HPAs in part: RBAC refuses to watch {kinds} (not read)")
        };
        let (warnings, report) = review_refused(objects.clone(), vec![kinds::VPA, kinds::SCALED_OBJECT], &body);
        assert_eq!(
            warnings,
            [partial("verticalpodautoscalers.autoscaling.k8s.io, scaledobjects.keda.sh"), HPA201_WEB.to_string()]
        );
        assert_eq!(report.partial, [kinds::VPA, kinds::SCALED_OBJECT]);
        assert_eq!(report.findings, ["HPA201"]);
        // The HPAs refused: the cache has none, and the answer says why nothing was found.
        let no_hpas: Vec<(ResourceKind, Value)> = objects.iter().filter(|(k, _)| *k != kinds::HPA).cloned().collect();
        let (warnings, report) = review_refused(no_hpas, vec![kinds::HPA], &body);
        assert_eq!(warnings, [partial("horizontalpodautoscalers.autoscaling")]);
        assert_eq!(report.partial, [kinds::HPA]);
        // Nothing refused: nothing said.
        let (warnings, report) = review_refused(objects, Vec::new(), &body);
        assert_eq!(warnings, [HPA201_WEB]);
        assert_eq!(report.partial, []);
    }

    /// The warnings of a Deployment CREATE without cpu requests, in a cache holding `hpas` HPAs
    /// named `{prefix}00`, `{prefix}01`, ... that scale it on cpu utilization, and the same
    /// Deployment with its requests.
    fn warnings_of_a_write_under(hpas: usize, prefix: &str) -> Vec<String> {
        use serde_json::json;
        let deployment = |requests: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"template": {"spec": {"containers": [{"name": "app", "resources": {"requests": requests}}]}}}})
        };
        let hpa = |i: usize| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": format!("{prefix}{i:02}"), "namespace": "shop", "resourceVersion": "1"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "minReplicas": 2, "maxReplicas": 8, "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": 60}}}]}})
        };
        // Inserted in reverse: the cache orders a target's HPAs by name.
        let objects = (0..hpas).rev().map(|i| (kinds::HPA, hpa(i)));
        let body = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "d",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "namespace": "shop", "operation": "CREATE", "object": deployment(json!({"memory": "1Gi"}))}});
        review_with_cache(objects.chain([(kinds::DEPLOYMENT, deployment(json!({"cpu": "100m"})))]), &body).0
    }

    /// A write that concerns more HPAs than it is checked against names those it was not checked
    /// against, in a first warning the total never leaves out (it said nothing of them).
    #[test]
    fn the_hpas_past_the_limit_are_named_as_not_checked() {
        let hpa201 = |name: &str| {
            format!(
                "HPA {name}: HPA201 missing-resource-request: cpu utilization needs a cpu request in every container, \
                 and container \"app\" of Deployment shop/web has none: the controller will not scale on this metric"
            )
        };
        // Twenty: each checked, nothing more said.
        let warnings = warnings_of_a_write_under(MAX_HPAS, "web-");
        let expected: Vec<String> = (0..MAX_HPAS).map(|i| hpa201(&format!("web-{i:02}"))).collect();
        assert_eq!(warnings, expected);
        // Twenty-three: the first twenty by name checked, the other three named.
        let warnings = warnings_of_a_write_under(23, "web-");
        assert_eq!(
            warnings[0],
            "hpa-webhook checked this write against 20 of the 23 HPAs it concerns (at most 20 per write); \
             not checked: HPAs web-20, web-21, web-22"
        );
        assert_eq!(warnings[1..], expected[..]);
        // Twenty-one with long names: the warnings pass kube-apiserver's total; the note stays
        // first, and the closing names the HPAs whose warnings were left out.
        let long = "checkout-frontend-canary-eu-west-";
        let warnings = warnings_of_a_write_under(21, long);
        assert_eq!(
            warnings[0],
            format!(
                "hpa-webhook checked this write against 20 of the 21 HPAs it concerns (at most 20 per write); \
                 not checked: HPA {long}20"
            )
        );
        let total: usize = warnings.iter().map(|w| w.chars().count()).sum();
        assert!(total <= crate::review::MAX_TOTAL_WARNING_CHARS, "{total}");
        let kept = warnings.len() - 2;
        for (i, w) in warnings[1..=kept].iter().enumerate() {
            assert_eq!(*w, hpa201(&format!("{long}{i:02}")));
        }
        let left: Vec<String> = (kept..MAX_HPAS).map(|i| format!("{long}{i:02}")).collect();
        assert_eq!(
            warnings[kept + 1],
            short(&format!("… and {} more warnings, for HPAs {}", left.len(), left.join(", ")))
        );
    }

    #[test]
    fn the_hpas_annotation_suppresses_its_rules_on_any_write() {
        let web = id("Deployment", "web");
        let none = Ignore::default();
        let f = finding("HPA201");
        assert!(!suppressed(&f, &none, (&web, &none), no_cache));
        assert!(suppressed(&f, &Ignore::parse("HPA201 -- measured on memory"), (&web, &none), no_cache));
        assert!(suppressed(&f, &Ignore::parse("missing-resource-request"), (&web, &none), no_cache));
        assert!(suppressed(&f, &Ignore::parse("all"), (&web, &none), no_cache));
        assert!(!suppressed(&f, &Ignore::parse("HPA410"), (&web, &none), no_cache));
    }

    #[test]
    fn the_written_objects_annotation_suppresses_findings_about_it() {
        let web = id("Deployment", "web");
        let none = Ignore::default();
        let replicas = Ignore::parse("HPA410 -- replicas owned by the rollout tool");
        // HPA410 is about the workload's spec.replicas: its own annotation waives it.
        let on_web = finding("HPA410").on_object(web.clone(), "spec.replicas");
        assert!(suppressed(&on_web, &none, (&web, &replicas), no_cache));
        // About another object: not this write's annotation to waive.
        let on_api = finding("HPA410").on_object(id("Deployment", "api"), "spec.replicas");
        assert!(!suppressed(&on_api, &none, (&web, &replicas), no_cache));
        // Another object's annotation, as the cache keeps it; the written object's as sent, in
        // place of the cached one.
        let cached = |id: &ObjectId| (id.name == "api").then_some(&replicas);
        assert!(suppressed(&on_api, &none, (&web, &none), cached));
        assert!(!suppressed(&on_web, &none, (&web, &none), |_| Some(&replicas)));
        // A finding on the HPA (HPA201 points at spec.metrics) is the HPA's, as in files.
        assert!(!suppressed(&finding("HPA201"), &none, (&web, &Ignore::parse("HPA201")), no_cache));
    }
}
