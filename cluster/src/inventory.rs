//! One-shot reads of everything `hpa-lint cluster` lints: the HPAs (whole, for hpa-core's
//! strict decoder) and what the cross-object rules read, each object trimmed to hpa-core's
//! plain values by hpa-core's own builders as its page arrives.

use std::collections::HashMap;
use std::fmt;

use futures_util::future::join_all;
use hpa_core::rules::IGNORE_ANNOTATION;
use hpa_core::rules::objects::{
    ObjectId, Pdb, ScaledObject, Vpa, Workload, pdb_from_json, scaled_object_from_json, vpa_from_json, workload_from,
};
use serde_json::{Map, Value};

use crate::connect::Cluster;
use crate::discovery::{self, Served};
use crate::error::Error;
use crate::kinds::{self, Kind, PAGE_SIZE};
use crate::replicas::{self, ReplicasDecision};

/// Which namespaces to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// All namespaces (`-A`): one list per kind across the cluster.
    All,
    /// These namespaces (`-n`), one list per kind and namespace.
    Namespaces(Vec<String>),
}

impl Scope {
    fn namespaces(&self) -> Vec<Option<&str>> {
        match self {
            Scope::All => vec![None],
            Scope::Namespaces(list) => list.iter().map(|n| Some(n.as_str())).collect(),
        }
    }
}

/// Why something was not read (or read with a caveat). Not an error: the rest was read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoteKind {
    /// An optional CRD or aggregated API is not installed.
    Absent,
    /// RBAC refused to list it.
    Forbidden,
    /// The API server failed on it (an error status other than 401/403/404).
    Failed,
    /// Discovery could not run; optional kinds were tried directly.
    Discovery,
    /// A list was restarted because its continue token expired.
    Restarted,
}

/// A note about what was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// What kind of note.
    pub kind: NoteKind,
    /// The sentence.
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An HPA as the API server returned it (with `apiVersion` and `kind` filled in, as kubectl
/// shows list items; `metadata.managedFields` left out, as `kubectl get` shows it).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveHpa {
    /// Which HPA.
    pub id: ObjectId,
    /// Its JSON.
    pub object: Value,
}

/// A LimitRange, trimmed to `metadata.name`, `metadata.namespace` and `spec.limits`.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveLimitRange {
    /// Which LimitRange.
    pub id: ObjectId,
    /// Its trimmed JSON.
    pub object: Value,
}

/// Everything read for linting.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inventory {
    /// HPAs.
    pub hpas: Vec<LiveHpa>,
    /// Scale targets (Deployments, StatefulSets, ReplicaSets, ReplicationControllers, Argo
    /// Rollouts), with `replicas` set only where a user or tool set it ([`replicas::decide`]).
    pub workloads: Vec<Workload>,
    /// Who set each workload's `spec.replicas`, in the order of `workloads`.
    pub replicas: Vec<ReplicasDecision>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<Pdb>,
    /// VerticalPodAutoscalers.
    pub vpas: Vec<Vpa>,
    /// KEDA ScaledObjects.
    pub scaled_objects: Vec<ScaledObject>,
    /// LimitRanges.
    pub limit_ranges: Vec<LiveLimitRange>,
    /// The `hpa-lint.dev/ignore` annotation ([`IGNORE_ANNOTATION`]) of every object above but
    /// the HPAs (whose JSON is whole) that has one: trimming drops every other annotation.
    pub ignores: HashMap<ObjectId, String>,
    /// What was not read, and why.
    pub notes: Vec<Note>,
}

/// What one list produced.
enum Batch {
    Hpas(Vec<LiveHpa>),
    Workloads(Vec<(Workload, ReplicasDecision)>),
    Pdbs(Vec<Pdb>),
    Vpas(Vec<Vpa>),
    ScaledObjects(Vec<ScaledObject>),
    LimitRanges(Vec<LiveLimitRange>),
}

/// The kinds `hpa-lint cluster` reads besides HPAs.
pub const CONTEXT_KINDS: [Kind; 9] = [
    kinds::DEPLOYMENT,
    kinds::STATEFUL_SET,
    kinds::REPLICA_SET,
    kinds::REPLICATION_CONTROLLER,
    kinds::ROLLOUT,
    kinds::PDB,
    kinds::VPA,
    kinds::SCALED_OBJECT,
    kinds::LIMIT_RANGE,
];

/// HPAs, then [`CONTEXT_KINDS`]: every kind `hpa-lint cluster` reads (and the webhook's context
/// cache watches).
pub const READ_KINDS: [Kind; 10] = {
    let mut all = [kinds::HPA; 10];
    let mut i = 0;
    while i < CONTEXT_KINDS.len() {
        all[i + 1] = CONTEXT_KINDS[i];
        i += 1;
    }
    all
};

/// Reads the HPAs of `scope` and everything the cross-object rules read, paginated
/// ([`PAGE_SIZE`] per request), the kinds concurrently.
///
/// Optional CRDs (Argo Rollouts, VPA, KEDA) are discovered first and skipped with a note when
/// absent. A refusal (403) or a server error on one kind or namespace is a note and the rest is
/// still read. Errors: anything that makes the server unusable (unreachable, 401, timeouts), and
/// HPAs that could not be read at all (nothing to lint: [`Error::Forbidden`] or the failure).
pub async fn read_inventory(cluster: &Cluster, scope: &Scope) -> Result<Inventory, Error> {
    let mut inventory = Inventory::default();
    let optional: Vec<Kind> = CONTEXT_KINDS.iter().copied().filter(|k| k.optional).collect();
    let served = discovery::served(cluster, &optional).await?;
    inventory.notes.extend(served.notes.iter().cloned());

    let namespaces = scope.namespaces();
    let mut jobs = Vec::new();
    for kind in READ_KINDS {
        if kind.optional && served.kinds.get(&kind) == Some(&Served::No) {
            continue;
        }
        for ns in &namespaces {
            jobs.push((kind, *ns));
        }
    }
    let results = join_all(jobs.iter().map(|(kind, ns)| read_kind(cluster, *kind, *ns))).await;

    let mut hpa_reads = 0usize;
    let mut hpa_failure: Option<Error> = None;
    for ((kind, ns), result) in jobs.iter().zip(results) {
        match result {
            Ok((batch, ignores, restarted)) => {
                inventory.ignores.extend(ignores);
                if restarted {
                    inventory.notes.push(Note {
                        kind: NoteKind::Restarted,
                        message: format!(
                            "the list of {} was restarted: its continue token expired",
                            kind.describe(*ns)
                        ),
                    });
                }
                match batch {
                    Batch::Hpas(h) => {
                        hpa_reads += 1;
                        inventory.hpas.extend(h);
                    }
                    Batch::Workloads(w) => {
                        for (workload, decision) in w {
                            inventory.workloads.push(workload);
                            inventory.replicas.push(decision);
                        }
                    }
                    Batch::Pdbs(p) => inventory.pdbs.extend(p),
                    Batch::Vpas(v) => inventory.vpas.extend(v),
                    Batch::ScaledObjects(s) => inventory.scaled_objects.extend(s),
                    Batch::LimitRanges(l) => inventory.limit_ranges.extend(l),
                }
            }
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => {
                let note = note_for(kind, *ns, &e, served.kinds.get(kind) == Some(&Served::Unknown));
                inventory.notes.push(note);
                if *kind == kinds::HPA {
                    hpa_failure.get_or_insert(e);
                }
            }
        }
    }
    if hpa_reads == 0
        && let Some(e) = hpa_failure
    {
        return Err(e);
    }
    Ok(inventory)
}

/// The note for a failed list (a 404 of an optional kind, or of any kind when discovery could
/// not run, means it is not served).
fn note_for(kind: &Kind, namespace: Option<&str>, e: &Error, undiscovered: bool) -> Note {
    let what = kind.describe(namespace);
    match e {
        Error::Forbidden { message, .. } => {
            Note { kind: NoteKind::Forbidden, message: format!("not read: RBAC refused to list {what} ({message})") }
        }
        Error::NotFound { .. } if kind.optional || undiscovered => Note {
            kind: NoteKind::Absent,
            message: format!("{} {} is not served: skipped", kind.api_version(), kind.plural),
        },
        other => Note { kind: NoteKind::Failed, message: format!("not read: {what}: {other}") },
    }
}

/// One kind in one namespace (or all): the trimmed objects, the [`IGNORE_ANNOTATION`] of those
/// that have one, and whether the list restarted.
async fn read_kind(
    cluster: &Cluster,
    kind: Kind,
    namespace: Option<&str>,
) -> Result<(Batch, Vec<(ObjectId, String)>, bool), Error> {
    let mut batch = match kind {
        kinds::HPA => Batch::Hpas(Vec::new()),
        kinds::PDB => Batch::Pdbs(Vec::new()),
        kinds::VPA => Batch::Vpas(Vec::new()),
        kinds::SCALED_OBJECT => Batch::ScaledObjects(Vec::new()),
        kinds::LIMIT_RANGE => Batch::LimitRanges(Vec::new()),
        _ => Batch::Workloads(Vec::new()),
    };
    let mut ignores = Vec::new();
    let summary = cluster
        .list_each(&kind, namespace, &[], PAGE_SIZE, |item| {
            if kind != kinds::HPA
                && let Some(ignore) =
                    item.pointer("/metadata/annotations").and_then(|a| a.get(IGNORE_ANNOTATION)).and_then(Value::as_str)
            {
                ignores.push((object_id(&kind, &item), ignore.to_string()));
            }
            match (&mut batch, trim(&kind, item)) {
                (Batch::Hpas(out), Trimmed::Hpa(h)) => out.push(h),
                (Batch::Workloads(out), Trimmed::Workload(w, d)) => out.push((w, d)),
                (Batch::Pdbs(out), Trimmed::Pdb(p)) => out.push(p),
                (Batch::Vpas(out), Trimmed::Vpa(v)) => out.push(v),
                (Batch::ScaledObjects(out), Trimmed::ScaledObject(s)) => out.push(s),
                (Batch::LimitRanges(out), Trimmed::LimitRange(l)) => out.push(l),
                // `trim` answers in the kind it is given.
                _ => {}
            }
        })
        .await?;
    Ok((batch, ignores, summary.restarted))
}

/// One object of a kind `hpa-lint cluster` reads and the webhook's context cache watches,
/// trimmed to what the rules read by hpa-core's builders.
#[derive(Debug, Clone, PartialEq)]
pub enum Trimmed {
    /// An HPA, whole (as [`as_listed`] shows it): hpa-core's strict decoder reads it.
    Hpa(LiveHpa),
    /// A scale target, with `replicas` set only where a user or tool set it, and who did.
    Workload(Workload, ReplicasDecision),
    /// A PodDisruptionBudget.
    Pdb(Pdb),
    /// A VerticalPodAutoscaler.
    Vpa(Vpa),
    /// A KEDA ScaledObject.
    ScaledObject(ScaledObject),
    /// A LimitRange.
    LimitRange(LiveLimitRange),
}

/// Trims an object of `kind` as the API server returned it (a list item or a watch event's
/// object) to what the rules read: the one place live objects become hpa-core's values, for
/// one-shot reads ([`read_inventory`]) and watches ([`crate::watch`]) alike. Any other kind is
/// read as a workload (an object with a pod template).
pub fn trim(kind: &Kind, item: Value) -> Trimmed {
    let id = object_id(kind, &item);
    match *kind {
        kinds::HPA => Trimmed::Hpa(LiveHpa { id, object: as_listed(item, kind) }),
        kinds::PDB => Trimmed::Pdb(pdb_from_json(id, &item)),
        kinds::VPA => Trimmed::Vpa(vpa_from_json(id, &item)),
        kinds::SCALED_OBJECT => Trimmed::ScaledObject(scaled_object_from_json(id, &item)),
        kinds::LIMIT_RANGE => Trimmed::LimitRange(LiveLimitRange { object: trim_limit_range(&item, kind), id }),
        _ => {
            let decision = replicas::decide(&item);
            let mut workload = workload_from(id, &item);
            workload.replicas = decision.replicas;
            Trimmed::Workload(workload, decision)
        }
    }
}

/// The identity of an object of `kind` (namespace `default` when it names none).
pub fn object_id(kind: &Kind, item: &Value) -> ObjectId {
    ObjectId {
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        namespace: str_at(item, &["metadata", "namespace"]).unwrap_or("default").to_string(),
        name: str_at(item, &["metadata", "name"]).unwrap_or_default().to_string(),
    }
}

/// A list item as kubectl shows it: `apiVersion` and `kind` first (the API server leaves them
/// out of the items of built-in lists), `metadata.managedFields` dropped.
pub fn as_listed(item: Value, kind: &Kind) -> Value {
    let Value::Object(fields) = item else { return item };
    let mut out = Map::with_capacity(fields.len() + 2);
    out.insert("apiVersion".into(), Value::String(kind.api_version()));
    out.insert("kind".into(), Value::String(kind.kind.to_string()));
    for (k, mut v) in fields {
        if k == "apiVersion" || k == "kind" {
            out.insert(k, v);
            continue;
        }
        if k == "metadata"
            && let Value::Object(m) = &mut v
        {
            m.shift_remove("managedFields");
        }
        out.insert(k, v);
    }
    Value::Object(out)
}

fn trim_limit_range(item: &Value, kind: &Kind) -> Value {
    let mut metadata = Map::new();
    for key in ["name", "namespace"] {
        if let Some(v) = item.get("metadata").and_then(|m| m.get(key)) {
            metadata.insert(key.into(), v.clone());
        }
    }
    let limits = item.get("spec").and_then(|s| s.get("limits")).cloned().unwrap_or(Value::Array(Vec::new()));
    serde_json::json!({
        "apiVersion": kind.api_version(),
        "kind": kind.kind,
        "metadata": metadata,
        "spec": {"limits": limits},
    })
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(*k)).and_then(Value::as_str)
}
