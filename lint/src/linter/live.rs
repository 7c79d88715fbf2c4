//! Linting what a cluster runs (`hpa-lint cluster`): the inventory hpa-cluster read becomes
//! hpa-core's [`ObjectIndex`] (the `rules::Objects` world of the cross-object rules), and each live
//! HPA goes through kube-apiserver's pipeline and the rules in [`check_hpa`]. Locations are
//! objects and field paths: a live object has no file, line or column.

use std::borrow::Cow;
use std::collections::HashMap;

use hpa_cluster::Inventory;
use hpa_cluster::inventory::{LiveHpa, NoteKind, ignored_notes};
use hpa_core::api::{CrossVersionObjectReference, DecodeError, Decoded, Strictness, VersionedHpa};
use hpa_core::check;
use hpa_core::features::KubernetesVersion;
use hpa_core::rules::index::IndexedObject;
use hpa_core::rules::objects::{self, ObjectId};
use hpa_core::rules::replicas_owner::SetBy;
use hpa_core::rules::{self, Finding, Ignore, ObjectIndex, Objects, counted_target};
use rayon::prelude::*;
use serde_json::Value;

use super::{Diagnostic, LintOptions, LintResults, Location, Note, Place, Related};

/// An object of the cluster a live diagnostic points at (its identity only; not hpa-cluster's
/// `LiveObject`, the object as a list or watch received it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClusterObject {
    /// `namespace`, `None` for kinds without namespaces.
    pub namespace: Option<String>,
    /// `metadata.name`
    pub name: String,
    /// `kind`
    pub kind: String,
    /// `apiVersion`
    pub api_version: String,
}

impl ClusterObject {
    fn of(id: &ObjectId) -> ClusterObject {
        let cluster_scoped = rules::is_cluster_scoped(&id.api_version, &id.kind);
        ClusterObject {
            namespace: (!cluster_scoped).then(|| id.namespace.clone()),
            name: id.name.clone(),
            kind: id.kind.clone(),
            api_version: id.api_version.clone(),
        }
    }

    /// `shop/web (HorizontalPodAutoscaler)`, `web (ClusterRole)`: as `kubectl get -A` names an
    /// object, with its kind.
    pub fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{} ({})", self.name, self.kind),
            None => format!("{} ({})", self.name, self.kind),
        }
    }
}

/// An HPA of an inventory decoded by the one decoder ([`LiveHpa::decode`], leniently: the API
/// server stored it, and may be newer than the selected release), or why it does not decode.
pub type DecodedHpa = Result<Decoded<VersionedHpa>, Vec<DecodeError>>;

/// Decodes each HPA read once, with the Go types of `release`, in parallel: what
/// [`scale_targets`] and [`lint_inventory`] read.
pub fn decode_hpas(hpas: &[LiveHpa], release: KubernetesVersion) -> Vec<DecodedHpa> {
    hpas.par_iter().map(|h| h.decode(Strictness::Lenient, release)).collect()
}

/// The namespace and `spec.scaleTargetRef` of each HPA that decodes, from its one decode
/// ([`decode_hpas`]): the targets whose custom resources hpa-cluster reads
/// ([`hpa_cluster::read_custom_targets`]).
pub fn scale_targets(hpas: &[LiveHpa], decoded: &[DecodedHpa]) -> Vec<(String, CrossVersionObjectReference)> {
    hpas.iter()
        .zip(decoded)
        .filter_map(|(h, d)| Some((h.id.namespace.clone(), d.as_ref().ok()?.value.scale_target_ref().clone())))
        .collect()
}

/// Lints an inventory: every HPA (`decoded`: each one's decode, in order, [`decode_hpas`]), with
/// every object read as the world of the cross-object rules.
pub fn lint_inventory(inventory: Inventory, decoded: Vec<DecodedHpa>, opts: &LintOptions) -> LintResults {
    let Inventory {
        hpas,
        workloads,
        replicas,
        pdbs,
        vpas,
        scaled_objects,
        limit_ranges,
        runtime_classes,
        crds,
        ignores,
        notes,
        coverage,
    } = inventory;
    let mut outcome = LintResults {
        objects: hpas.len()
            + workloads.len()
            + pdbs.len()
            + vpas.len()
            + scaled_objects.len()
            + limit_ranges.len()
            + runtime_classes.len()
            + crds.len(),
        hpas: hpas.len(),
        notes: notes.into_iter().map(|n| Note { kind: Some(note_kind(&n.kind)), message: n.message }).collect(),
        ..LintResults::default()
    };
    let mut index = ObjectIndex::default();
    // Only what was read whole tells an absence (HPA403), and findings say it is the cluster's.
    index.read_from(coverage);
    runtime_classes.into_iter().for_each(|r| index.insert(IndexedObject::RuntimeClass(r)));
    crds.into_iter().for_each(|c| index.insert(IndexedObject::CustomResourceDefinition(c)));
    // Who set the replica count, for the workloads where a user or a tool did (HPA410's help),
    // and its field: `spec.replicas`, or the `specReplicasPath` of a custom resource's CRD.
    let set_by: HashMap<ObjectId, (String, SetBy)> = workloads
        .iter()
        .zip(&replicas)
        .filter(|(_, d)| d.replicas.is_some())
        .map(|(w, d)| (w.id.clone(), (replicas_field(&index, w), d.set_by.clone())))
        .collect();
    for w in workloads {
        index.insert(IndexedObject::Workload(w));
    }
    pdbs.into_iter().for_each(|p| index.insert(IndexedObject::Pdb(p)));
    vpas.into_iter().for_each(|v| index.insert(IndexedObject::Vpa(v)));
    scaled_objects.into_iter().for_each(|o| index.insert(IndexedObject::ScaledObject(o)));
    for l in limit_ranges {
        index.insert(IndexedObject::LimitRange(objects::limit_range_from_json(l.id, &l.object)));
    }
    // Each HPA as its one decode read it.
    let release = opts.check.settings.gates().version();
    let read: Vec<Read<'_>> =
        hpas.par_iter().zip(decoded.into_par_iter()).map(|(h, decoded)| Read::of(h, decoded, release)).collect();
    // What each HPA's decode ignored (a cluster newer than the release): one note per HPA,
    // sorted by namespace and name, after what was not read.
    let mut ignored: Vec<&Read<'_>> = read.iter().filter(|r| !r.ignored.is_empty()).collect();
    ignored.sort_by_key(|r| (&r.hpa.id.namespace, &r.hpa.id.name));
    for r in ignored {
        outcome.notes.extend(
            ignored_notes(&r.hpa.key(), &r.ignored, release)
                .into_iter()
                .map(|message| Note { kind: Some("ignored"), message }),
        );
    }
    // Each HPA under the kind its target's reference maps to (`Objects::mapped_kind`: a custom
    // kind written all in lowercase is the kind the cluster's CRD defines), as the rules look
    // its target up.
    for r in &read {
        if let Some((group, kind, name, min)) = &r.target {
            let kind = index.mapped_kind(group, kind).to_string();
            index.insert_hpa(r.hpa.id.clone(), (group, &kind, name), *min, ());
        }
    }
    // Each object's opt-outs, for findings about it (other HPAs' from their own annotations).
    let mut ignores: HashMap<ObjectId, Ignore> =
        ignores.into_iter().map(|(id, value)| (id, Ignore::parse(&value))).collect();
    for r in &read {
        if !r.ignore.rules.is_empty() {
            ignores.insert(r.hpa.id.clone(), r.ignore.clone());
        }
    }
    let live = live_options(opts);
    let checked: Vec<(Vec<Diagnostic>, usize)> = read
        .into_par_iter()
        .map(|r| {
            let findings = check_hpa(r.hpa, r.decoded, &index, &live);
            diagnostics(r.hpa, &r.ignore, findings, &set_by, &ignores)
        })
        .collect();
    for (diags, suppressed) in checked {
        outcome.diagnostics.extend(diags);
        outcome.suppressed += suppressed;
    }
    fn object(d: &Diagnostic) -> Option<&ClusterObject> {
        match &d.location {
            Location::Object(o) => Some(o),
            Location::File { .. } => None,
        }
    }
    outcome
        .diagnostics
        .sort_by(|a, b| (object(a), &a.path, a.rule.id, &a.message).cmp(&(object(b), &b.path, b.rule.id, &b.message)));
    outcome
}

/// A live HPA decoded once: what the index, the opt-outs and the check read of it.
struct Read<'a> {
    hpa: &'a LiveHpa,
    decoded: Result<VersionedHpa, Vec<DecodeError>>,
    /// What the lenient decode ignored (fields the release's types do not have).
    ignored: Vec<DecodeError>,
    /// `spec.scaleTargetRef` kind and name, and `spec.minReplicas` as stored.
    target: Option<(String, String, String, i32)>,
    /// Its `hpa-lint.dev/ignore` annotation.
    ignore: Ignore,
}

impl<'a> Read<'a> {
    fn of(hpa: &'a LiveHpa, decoded: DecodedHpa, release: KubernetesVersion) -> Read<'a> {
        let (decoded, ignored) = match decoded {
            Ok(d) => (Ok(d.value), d.ignored),
            Err(errors) => (Err(errors), Vec::new()),
        };
        let (target, ignore) = match &decoded {
            Ok(h) => {
                // Only an HPA that counts as scaling its target scales it (HPA407).
                let target = counted_target(h.api_version().as_str(), h.scale_target_ref(), release).map(
                    |(group, kind, name)| (group.to_string(), kind.to_string(), name.to_string(), h.min_replicas()),
                );
                (target, Ignore::from_annotations(&h.metadata().annotations))
            }
            // What does not decode is still somebody's target, and may opt out: read as a tree.
            Err(_) => {
                let tree = hpa.tree().unwrap_or_default();
                // `spec.scaleTargetRef` is where every autoscaling version has it.
                let target = |key: &str| {
                    let value = tree.pointer(&format!("/spec/scaleTargetRef/{key}")).and_then(Value::as_str);
                    value.unwrap_or_default().to_string()
                };
                let t = CrossVersionObjectReference {
                    api_version: target("apiVersion"),
                    kind: target("kind"),
                    name: target("name"),
                };
                // Its minReplicas when it is a number (1, the default, else).
                let min = tree.pointer("/spec/minReplicas").and_then(Value::as_i64).and_then(|m| i32::try_from(m).ok());
                let target = counted_target(&hpa.id.api_version, &t, release).map(|(group, kind, name)| {
                    (group.to_string(), kind.to_string(), name.to_string(), min.unwrap_or(1))
                });
                (target, Ignore::from_json(&tree))
            }
        };
        Read { hpa, decoded, ignored, target, ignore }
    }
}

fn note_kind(kind: &NoteKind) -> &'static str {
    match kind {
        NoteKind::Absent => "absent",
        NoteKind::Forbidden => "forbidden",
        NoteKind::Failed => "failed",
        NoteKind::Discovery => "discovery",
        NoteKind::Restarted => "restarted",
        _ => "other",
    }
}

/// One live HPA through hpa-core's front door ([`check::check`]), `decoded` from its text by
/// the one decoder ([`LiveHpa::decode`], leniently: the API server stored it, and may be newer
/// than the selected release): validated as kube-apiserver validates a stored object again, an
/// UPDATE onto itself ([`LiveHpa::reapplied`]: a field whose gate is now off is kept when the
/// object already has it; HPA000 only for what no update of it could keep), then every rule at
/// its configured level, the cross-object rules with `objects` as the rest of the cluster. For
/// an object kube-apiserver would now reject, only its errors (and its version) are reported,
/// as for files and at admission. `opts` are [`live_options`].
pub fn check_hpa(
    hpa: &LiveHpa,
    decoded: Result<VersionedHpa, Vec<DecodeError>>,
    objects: &dyn Objects,
    opts: &check::Options,
) -> Vec<Finding> {
    check::check(hpa.reapplied(decoded, Some(objects)), opts).findings
}

/// The front door's options for live objects: the linter's, decoding leniently.
pub fn live_options(opts: &LintOptions) -> check::Options {
    let mut live = opts.check.clone();
    live.request.strictness = Strictness::Lenient;
    live
}

/// Findings as diagnostics: severity after configuration, suppressions (the HPA's annotation,
/// and that of the object a finding is about, as for files), objects and paths. Returns them
/// and the number suppressed.
fn diagnostics(
    hpa: &LiveHpa,
    ignore: &Ignore,
    findings: Vec<Finding>,
    set_by: &HashMap<ObjectId, (String, SetBy)>,
    ignores: &HashMap<ObjectId, Ignore>,
) -> (Vec<Diagnostic>, usize) {
    let place = |location: &rules::FindingField| match location {
        rules::FindingField::Hpa(path) => (ClusterObject::of(&hpa.id), path.clone()),
        rules::FindingField::Object { id, path } => (ClusterObject::of(id), path.clone()),
    };
    let mut suppressed = 0;
    let mut out = Vec::new();
    for f in findings {
        // The front door gave it its configured severity.
        let severity = f.severity;
        if rules::suppressed(&f, ignore, |id| ignores.get(id)) {
            suppressed += 1;
            continue;
        }
        let (object, path) = place(&f.location);
        let mut help = f.help.clone();
        if let rules::FindingField::Object { id, path } = &f.location
            && let Some((field, who)) = set_by.get(id)
            && path == field
        {
            let owner = owner_sentence(who, field);
            help = Some(Cow::Owned(match help {
                Some(h) => format!("{owner}; {h}"),
                None => owner,
            }));
        }
        let related = f
            .related
            .iter()
            .map(|(loc, message)| Related { place: Place::Object(Box::new(place(loc))), message: message.clone() })
            .collect();
        out.push(Diagnostic {
            rule: f.rule,
            severity,
            location: Location::Object(Box::new(object)),
            path,
            message: f.message,
            help,
            related,
            fix: f.fix.map(|x| Box::new(x.replacement)),
            shown: None,
        });
    }
    (out, suppressed)
}

/// The field of `w` that holds the count the HPA sets: `spec.replicas`, or, for a custom
/// resource whose CRD the world holds, its scale subresource's `specReplicasPath` (as HPA410
/// reads it).
fn replicas_field(world: &dyn Objects, w: &objects::Workload) -> String {
    let group = hpa_core::api::GroupVersion::parse_or_empty(&w.id.api_version);
    world
        .custom_resource_definition(group.group(), &w.id.kind)
        .and_then(|crd| crd.served_scale().flatten())
        .map_or_else(|| "spec.replicas".to_string(), |s| s.spec_replicas_path.trim_start_matches('.').to_string())
}

/// Who set a live workload's count at `field` (`spec.replicas`), in a sentence.
fn owner_sentence(who: &SetBy, field: &str) -> String {
    match who {
        SetBy::Manager { manager, operation, subresource } => {
            let through = subresource.as_deref().map(|s| format!(" through /{s}")).unwrap_or_default();
            format!(
                "in the cluster, {field} is owned by field manager {manager:?} ({operation}{through}), not by the HPA controller"
            )
        }
        SetBy::LastApplied => {
            format!(
                "in the cluster, the last `kubectl apply` (kubectl.kubernetes.io/last-applied-configuration) sets {field}"
            )
        }
        SetBy::Controllers | SetBy::Unknown => format!("in the cluster, {field} was set by a user or a tool"),
    }
}
