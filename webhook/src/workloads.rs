//! `/validate-workloads`: the other side of the relation. A write of an object an HPA depends
//! on (its scale target, a VerticalPodAutoscaler, a PodDisruptionBudget) is admitted with a
//! warning, naming the HPA, for each finding of that HPA's cross-object rules the write brings:
//! the rules run twice against the context cache, once with the object as it was (the old
//! object, else the cache) and once with the object as sent in its place, and what only the
//! second run finds is what this write breaks. No check is written here: a dropped request a
//! utilization metric needs is HPA201, `spec.replicas` set on an HPA-managed workload is HPA410
//! (with hpa-cluster's decision of who set it, from the managed fields kube-apiserver has
//! already updated), a `ContainerResource` container removed is HPA202, a VPA conflict HPA408
//! and a PodDisruptionBudget blocking every eviction at `minReplicas` HPA104.
//!
//! Suppression as in files: a warning is left out (and not counted in /metrics) when the HPA it
//! names lists the rule in its `hpa-lint.dev/ignore` annotation (parsed once, as the cache
//! admits the HPA: `CachedHpa::ignore`), or when the finding is about the written object
//! itself (HPA410 on a workload's `spec.replicas`) and the written object's own annotation
//! lists the rule.
//!
//! Warnings only: this endpoint never denies (its webhook runs with `failurePolicy: Ignore`).
//! Without a fresh view of the cluster it admits without checking.

use std::collections::HashSet;

use hpa_cluster::inventory::{Trimmed, object_id, trim};
use hpa_cluster::kinds::{self, Kind};
use hpa_cluster::watch::{CachedHpa, Index, Overlay};
use hpa_core::rules::objects::{Pdb, Vpa, Workload};
use hpa_core::rules::{Finding, Ignore, Location, ObjectId, Objects, Severity};
use serde_json::Value;

use crate::admission::{Admission, ContextReport, short};
use crate::context::View;
use crate::metrics::{Operation, Outcome};
use crate::review::{Request, Response};

/// The most HPAs one write is checked against (a PodDisruptionBudget may cover many).
pub const MAX_HPAS: usize = 20;

/// The kinds this endpoint checks, by API group and resource.
pub const KINDS: [Kind; 7] = [
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
    admission: &Admission,
    request: &Request<'_>,
    op: Operation,
    view: &View<'_>,
    report: &mut ContextReport,
) -> (Response, Outcome) {
    let uid = request.uid.as_ref();
    let kind = KINDS
        .iter()
        .find(|k| k.group == request.resource.group && k.plural == request.resource.resource)
        .filter(|_| request.sub_resource.as_deref().unwrap_or("").is_empty());
    let (Some(kind), Operation::Create | Operation::Update) = (kind, op) else {
        return (Response::allow(uid), Outcome::Skipped);
    };
    if !admission.lint_warnings() {
        return (Response::allow(uid), Outcome::Skipped);
    }
    let index = match view {
        View::Fresh(index) => &**index,
        View::Stale(_) => {
            report.stale = true;
            return (Response::allow(uid), Outcome::Skipped);
        }
        View::Off => return (Response::allow(uid), Outcome::Skipped),
    };
    let parse = |raw: Option<&serde_json::value::RawValue>| -> Option<(Changed, Ignore)> {
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
        let changed = match trim(kind, value) {
            Trimmed::Workload(w, _) => Changed::Workload(w),
            Trimmed::Pdb(p) => Changed::Pdb(p),
            Trimmed::Vpa(v) => Changed::Vpa(v),
            _ => return None,
        };
        Some((changed, ignore))
    };
    let Some((new, ignore)) = parse(request.object) else {
        return (Response::invalid(uid, "request.object is missing or not an object"), Outcome::Invalid);
    };
    let old = if op == Operation::Update { parse(request.old_object).map(|(o, _)| o) } else { None };
    let warnings = warnings(admission, index, (&new, &ignore), old.as_ref(), report);
    (Response::allow(uid).with_warnings(warnings), Outcome::Allowed)
}

/// The warnings for one write: per HPA concerned, the cross-object findings it brings, but those
/// suppressed ([`suppressed`]). `new` is the written object with its own annotation.
fn warnings(
    admission: &Admission,
    index: &Index,
    (new, ignore): (&Changed, &Ignore),
    old: Option<&Changed>,
    report: &mut ContextReport,
) -> Vec<String> {
    let after = overlay(index, new);
    let before = match old {
        Some(old) => overlay(index, old),
        None => Overlay::new(index),
    };
    let mut out = Vec::new();
    let opts = admission.check_options();
    for hpa in concerned(index, &after, new) {
        // The cached HPA was admitted once through hpa-core's front door when its event arrived
        // (hpa-cluster's `CachedHpa`); its report is continued with the cache before and after
        // the write.
        let admitted = &hpa.admitted;
        let found = |objects: &dyn Objects| -> Vec<Finding> {
            admitted
                .check_world(Some(&hpa.id), objects, opts)
                .into_iter()
                .filter(|f| f.severity >= Severity::Warning)
                .collect()
        };
        let known: HashSet<(&'static str, String)> =
            found(&before).into_iter().map(|f| (f.rule.id, f.message)).collect();
        for f in found(&after) {
            if known.contains(&(f.rule.id, f.message.clone())) || suppressed(&f, &hpa.ignore, (new.id(), ignore)) {
                continue;
            }
            report.findings.push(f.rule.id);
            out.push(short(&format!("HPA {}: {} {}: {}", hpa.id.name, f.rule.id, f.rule.name, f.message)));
        }
    }
    out
}

/// Whether a finding of an HPA's cross-object rules is left out at a write, as the linter leaves
/// it out in files: the HPA's annotation (`hpa`) lists its rule, or the finding is about the
/// written object (`written`: its identity and annotation) and that object's annotation lists
/// the rule.
fn suppressed(finding: &Finding, hpa: &Ignore, written: (&ObjectId, &Ignore)) -> bool {
    let (id, ignore) = written;
    hpa.covers(finding.rule)
        || matches!(&finding.location, Location::Object { id: about, .. } if about == id) && ignore.covers(finding.rule)
}

/// The cache with the written object in place of the cached one.
fn overlay<'a>(index: &'a Index, changed: &'a Changed) -> Overlay<'a> {
    match changed {
        Changed::Workload(w) => Overlay::new(index).with_workload(w),
        Changed::Pdb(p) => Overlay::new(index).with_pdb(p.clone()),
        Changed::Vpa(v) => Overlay::new(index).with_vpa(v.clone()),
    }
}

/// The HPAs a write concerns: those scaling the workload, or an Argo Rollout whose
/// `spec.workloadRef` names it; those scaling the VPA's target; those whose pods the
/// PodDisruptionBudget selects. At most [`MAX_HPAS`], by name.
fn concerned<'a>(index: &'a Index, after: &Overlay<'_>, changed: &Changed) -> Vec<&'a CachedHpa> {
    let by_target = |namespace: &str, kind: &str, name: &str| -> Vec<&'a CachedHpa> {
        index
            .objects()
            .hpas_targeting(namespace, kind, name)
            .iter()
            .filter_map(|id| index.hpa(namespace, &id.name).map(|h| &**h))
            .take(MAX_HPAS)
            .collect()
    };
    match changed {
        Changed::Workload(w) => {
            // Its own HPAs, then those of the Argo Rollouts whose `spec.workloadRef` names it (their
            // pods are made from its template: the rules read it through `pod_template_of`).
            let ns = &w.id.namespace;
            let mut hpas = by_target(ns, &w.id.kind, &w.id.name);
            for rollout in index.rollouts_using(ns, &w.id.kind, &w.id.name) {
                hpas.extend(by_target(ns, &rollout.id.kind, &rollout.id.name));
            }
            hpas.truncate(MAX_HPAS);
            hpas
        }
        Changed::Vpa(v) => by_target(&v.id.namespace, &v.target_kind, &v.target_name),
        Changed::Pdb(p) => {
            let mut hpas: Vec<&CachedHpa> = index
                .hpas(&p.id.namespace)
                .map(|h| &**h)
                .filter(|h| {
                    let (kind, name) = h.target();
                    after
                        .workload(kind, &p.id.namespace, name)
                        .and_then(|t| after.pod_template_of(t))
                        .is_some_and(|t| p.selector.matches(&t.pod_labels))
                })
                .collect();
            hpas.sort_by(|a, b| a.id.name.cmp(&b.id.name));
            hpas.truncate(MAX_HPAS);
            hpas
        }
    }
}

#[cfg(test)]
mod tests {
    use hpa_core::rules::find;

    use super::*;

    fn id(kind: &str, name: &str) -> ObjectId {
        ObjectId { api_version: "apps/v1".into(), kind: kind.into(), namespace: "shop".into(), name: name.into() }
    }

    fn finding(rule: &str) -> Finding {
        let Some(rule) = find(rule) else { panic!("{rule} is registered") };
        Finding::new(rule.meta(), "spec.metrics[0]", "message")
    }

    #[test]
    fn the_hpas_annotation_suppresses_its_rules_on_any_write() {
        let web = id("Deployment", "web");
        let none = Ignore::default();
        let f = finding("HPA201");
        assert!(!suppressed(&f, &none, (&web, &none)));
        assert!(suppressed(&f, &Ignore::parse("HPA201 -- measured on memory"), (&web, &none)));
        assert!(suppressed(&f, &Ignore::parse("missing-resource-request"), (&web, &none)));
        assert!(suppressed(&f, &Ignore::parse("all"), (&web, &none)));
        assert!(!suppressed(&f, &Ignore::parse("HPA410"), (&web, &none)));
    }

    #[test]
    fn the_written_objects_annotation_suppresses_findings_about_it() {
        let web = id("Deployment", "web");
        let none = Ignore::default();
        let replicas = Ignore::parse("HPA410 -- replicas owned by the rollout tool");
        // HPA410 is about the workload's spec.replicas: its own annotation waives it.
        let on_web = finding("HPA410").on_object(web.clone(), "spec.replicas");
        assert!(suppressed(&on_web, &none, (&web, &replicas)));
        // About another object: not this write's annotation to waive.
        let on_api = finding("HPA410").on_object(id("Deployment", "api"), "spec.replicas");
        assert!(!suppressed(&on_api, &none, (&web, &replicas)));
        // A finding on the HPA (HPA201 points at spec.metrics) is the HPA's, as in files.
        assert!(!suppressed(&finding("HPA201"), &none, (&web, &Ignore::parse("HPA201"))));
    }
}
