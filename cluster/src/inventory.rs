//! One-shot reads of everything `hpa-lint cluster` lints: the HPAs (their text, for hpa-core's
//! strict decoder) and what the cross-object rules read, each object trimmed to hpa-core's
//! plain values by hpa-core's own builders as its page arrives.

use std::collections::HashMap;
use std::fmt;

use futures_util::future::join_all;
use hpa_core::api::{
    self, CrossVersionObjectReference, DecodeError, DecodeErrorKind, Decoded, Strictness, VersionedHpa,
};
use hpa_core::check;
use hpa_core::features::KubernetesVersion;
use hpa_core::rules::IGNORE_ANNOTATION;
use hpa_core::rules::objects::Objects;
use hpa_core::rules::objects::{
    Coverage, CustomResourceDefinition, ObjectId, Pdb, RuntimeClass, ScaledObject, Vpa, Workload,
    custom_resource_definition_from, pdb_from_json, runtime_class_from, scaled_object_from_json, vpa_from_json,
    workload_from,
};
use hpa_core::rules::replicas_owner::{self, ReplicasDecision};
use serde_json::{Map, Value};

use crate::connect::Cluster;
use crate::discovery::{self, Mapping, Resolver, Served, crd_mappings};
use crate::error::Error;
use crate::kinds::{self, Listed, PAGE_SIZE, ResourceKind};
use crate::object::LiveObject;

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

/// An HPA as the API server returned it: its JSON text, which hpa-core's one decoder reads
/// ([`LiveHpa::decode`]) with no tree built on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveHpa {
    /// Which HPA.
    pub id: ObjectId,
    /// Its JSON text as the API server sent it, each lone surrogate escape replaced by `\ufffd`
    /// (as Go reads it), with the `apiVersion` and `kind` the API server leaves out of the items
    /// of built-in lists put first, as kubectl shows list items ([`as_listed`]).
    pub text: Box<str>,
}

impl LiveHpa {
    /// An HPA of `kind` (`autoscaling/v2`) as a list or a watch delivered it.
    pub fn new(kind: &ResourceKind, object: LiveObject) -> LiveHpa {
        let id = live_id(kind, &object);
        let (has_api_version, has_kind) = object.typed();
        let text = object.into_text();
        if has_api_version && has_kind {
            return LiveHpa { id, text };
        }
        let Some(rest) = text.trim_start().strip_prefix('{') else { return LiveHpa { id, text } };
        let mut out = String::with_capacity(text.len() + 64);
        out.push('{');
        let mut fields = Vec::with_capacity(2);
        if !has_api_version {
            fields.push(format!("\"apiVersion\":\"{}\"", kind.api_version()));
        }
        if !has_kind {
            fields.push(format!("\"kind\":\"{}\"", kind.kind));
        }
        out.push_str(&fields.join(","));
        if !rest.trim_start().starts_with('}') {
            out.push(',');
        }
        out.push_str(rest);
        LiveHpa { id, text: out.into() }
    }

    /// An HPA from a tree (tools and tests that build objects so).
    pub fn from_tree(kind: &ResourceKind, tree: &Value) -> Result<LiveHpa, serde_json::Error> {
        LiveObject::from_tree(tree).map(|o| LiveHpa::new(kind, o))
    }

    /// The HPA decoded by hpa-core's one decoder ([`api::decode_json`], as kube-apiserver decodes
    /// a body) with `strictness` and the Go types of `release`, its `metadata.managedFields`
    /// left out (as `kubectl get` shows it: no rule reads them, and the cache keeps each HPA),
    /// with what a lenient decode ignored ([`Decoded::ignored`]: fields `release`'s types do not
    /// have, a newer API server's; [`ignored_notes`] words them).
    pub fn decode(
        &self,
        strictness: Strictness,
        release: KubernetesVersion,
    ) -> Result<Decoded<VersionedHpa>, Vec<DecodeError>> {
        let Decoded { value: mut hpa, ignored } = api::decode_json(&self.text, strictness, release)?;
        hpa.metadata_mut().managed_fields = Vec::new();
        Ok(Decoded { value: hpa, ignored })
    }

    /// `namespace/name`, as the notes name an HPA.
    pub fn key(&self) -> String {
        format!("{}/{}", self.id.namespace, self.id.name)
    }

    /// The HPA as a tree, for what reads one when it does not decode (`None`: `serde_json`
    /// cannot hold it).
    pub fn tree(&self) -> Option<Value> {
        serde_json::from_str(&self.text).ok()
    }

    /// The front door's input for this stored HPA, `decoded` by [`LiveHpa::decode`]: re-applying
    /// it unchanged, an UPDATE onto itself (`old` is the object itself), which is the only way
    /// kube-apiserver validates a stored object again. `ValidateUpdate` in
    /// `pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go` then keeps what the old
    /// object already has: `minReplicas: 0` with `HPAScaleToZero` off
    /// (`validationOptionsForHorizontalPodAutoscaler`, and the declarative `HPAScaleToZero`
    /// option from 1.37), a `tolerance` with `HPAConfigurableTolerance` off
    /// (`dropDisabledFields`/`toleranceInUse`), an unchanged `scaleTargetRef` or Object metric
    /// whose `apiVersion` 1.34 started to check, and unchanged fields under declarative
    /// validation's ratcheting. Errors that hold under any rule are still reported. An HPA that
    /// does not decode is what it is on any operation (400 BadRequest). One without
    /// `metadata.resourceVersion` was never stored (a tool or a test built it; an UPDATE without
    /// one is refused, `ValidateObjectMetaUpdate`): it is checked as the CREATE it would be.
    pub fn reapplied<'a>(
        &'a self,
        decoded: Result<VersionedHpa, Vec<DecodeError>>,
        world: Option<&'a dyn Objects>,
    ) -> check::Input<'a> {
        let (object, old) = match decoded {
            Ok(hpa) if hpa.metadata().resource_version.is_empty() => (check::Written::Decoded(Box::new(hpa)), None),
            Ok(hpa) => (check::Written::Decoded(Box::new(hpa.clone())), Some(hpa)),
            Err(errors) => (check::Written::Undecodable { api_version: self.id.api_version.clone(), errors }, None),
        };
        check::Input { object, old, id: Some(&self.id), world, duplicate_keys: &[] }
    }
}

/// The notes on what the lenient decode of HPA `key` (`namespace/name`) ignored with the Go
/// types of `release`, as every live path words them (`hpa-lint cluster`, `hpa-lint diagnose`,
/// the webhook's context cache): one sentence for the fields `release` does not have (a newer
/// API server's; the informer of that release's controller decodes with `encoding/json`, which
/// drops an unknown field, so its controller ignores them), then one per other problem (a
/// duplicate field). Empty when nothing was ignored.
pub fn ignored_notes(key: &str, ignored: &[DecodeError], release: KubernetesVersion) -> Vec<String> {
    let unknown: Vec<String> =
        ignored.iter().filter(|e| e.kind == DecodeErrorKind::UnknownField).map(|e| format!("{:?}", e.path)).collect();
    let mut notes = Vec::with_capacity(ignored.len());
    match unknown.as_slice() {
        [] => {}
        [one] => notes.push(format!(
            "HorizontalPodAutoscaler {key}: field {one} is not in the types of Kubernetes {release}: ignored, as that release's controller ignores it"
        )),
        many => notes.push(format!(
            "HorizontalPodAutoscaler {key}: fields {} are not in the types of Kubernetes {release}: ignored, as that release's controller ignores them",
            many.join(", ")
        )),
    }
    notes.extend(
        ignored
            .iter()
            .filter(|e| e.kind != DecodeErrorKind::UnknownField)
            .map(|e| format!("HorizontalPodAutoscaler {key}: {e}: ignored")),
    );
    notes
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
    /// Rollouts, then the custom resources HPAs target whose CRD was read), with `replicas` set
    /// only where a user or tool set it ([`trim_workload`]).
    pub workloads: Vec<Workload>,
    /// Who set each workload's count (`spec.replicas`; for a custom resource, the field its
    /// CRD's `specReplicasPath` names), in the order of `workloads`.
    pub replicas: Vec<ReplicasDecision>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<Pdb>,
    /// VerticalPodAutoscalers.
    pub vpas: Vec<Vpa>,
    /// KEDA ScaledObjects.
    pub scaled_objects: Vec<ScaledObject>,
    /// LimitRanges.
    pub limit_ranges: Vec<LiveLimitRange>,
    /// RuntimeClasses (cluster-scoped): the overhead admission adds to a pod's requests.
    pub runtime_classes: Vec<RuntimeClass>,
    /// CustomResourceDefinitions (cluster-scoped), trimmed to the scale subresource of each
    /// version.
    pub crds: Vec<CustomResourceDefinition>,
    /// The `hpa-lint.dev/ignore` annotation ([`IGNORE_ANNOTATION`]) of every object above but
    /// the HPAs (whose JSON is whole) that has one: trimming drops every other annotation.
    pub ignores: HashMap<ObjectId, String>,
    /// What was not read, and why.
    pub notes: Vec<Note>,
    /// What was read whole: the lists that answered, where, and the custom-resource targets whose
    /// `GET` answered. Only there is an absence one (HPA403, [`Objects::would_hold`]).
    pub coverage: Coverage,
}

/// What one list produced.
enum Batch {
    Hpas(Vec<LiveHpa>),
    Workloads(Vec<(Workload, ReplicasDecision)>),
    Pdbs(Vec<Pdb>),
    Vpas(Vec<Vpa>),
    ScaledObjects(Vec<ScaledObject>),
    LimitRanges(Vec<LiveLimitRange>),
    RuntimeClasses(Vec<RuntimeClass>),
    Crds(Vec<CustomResourceDefinition>),
}

impl Batch {
    /// Drops what was collected: the list is read again whole ([`Listed::Restart`]).
    fn clear(&mut self) {
        match self {
            Batch::Hpas(v) => v.clear(),
            Batch::Workloads(v) => v.clear(),
            Batch::Pdbs(v) => v.clear(),
            Batch::Vpas(v) => v.clear(),
            Batch::ScaledObjects(v) => v.clear(),
            Batch::LimitRanges(v) => v.clear(),
            Batch::RuntimeClasses(v) => v.clear(),
            Batch::Crds(v) => v.clear(),
        }
    }
}

/// The kinds `hpa-lint cluster` reads besides HPAs (and the webhook's context cache watches): the
/// one table of them. RuntimeClasses and CRDs have no namespace: read across the cluster,
/// whatever the scope ([`ResourceKind::namespaced`]).
pub const CONTEXT_KINDS: [ResourceKind; 11] = [
    kinds::DEPLOYMENT,
    kinds::STATEFUL_SET,
    kinds::REPLICA_SET,
    kinds::REPLICATION_CONTROLLER,
    kinds::ROLLOUT,
    kinds::PDB,
    kinds::VPA,
    kinds::SCALED_OBJECT,
    kinds::LIMIT_RANGE,
    kinds::RUNTIME_CLASS,
    kinds::CRD,
];

/// HPAs, then [`CONTEXT_KINDS`]: every kind `hpa-lint cluster` reads (and the webhook's context
/// cache watches).
pub const READ_KINDS: [ResourceKind; 12] = {
    let mut all = [kinds::HPA; 12];
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
/// absent (read whole all the same: none of their objects can exist). A refusal (403) or a server error on one kind or namespace is a note and the rest is
/// still read. Errors: anything that makes the server unusable (unreachable, 401, timeouts), and
/// HPAs that could not be read at all (nothing to lint: [`Error::Forbidden`] or the failure).
pub async fn read_inventory(cluster: &Cluster, scope: &Scope) -> Result<Inventory, Error> {
    let mut inventory = Inventory::default();
    let optional: Vec<ResourceKind> = CONTEXT_KINDS.iter().copied().filter(|k| k.optional).collect();
    let served = discovery::served(cluster, &optional).await?;
    inventory.notes.extend(served.notes.iter().cloned());

    let namespaces = scope.namespaces();
    let mut jobs = Vec::new();
    for kind in READ_KINDS {
        if kind.optional && served.kinds.get(&kind) == Some(&Served::No) {
            // Not served: none of its objects exists anywhere, which is all a list would have
            // said (HPA403 on an Argo Rollout while Argo Rollouts is not installed).
            inventory.coverage.listed(kind.group, kind.kind, None);
            continue;
        }
        if !kind.namespaced() {
            jobs.push((kind, None));
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
                inventory.coverage.listed(kind.group, kind.kind, *ns);
                inventory.ignores.extend(ignores);
                if restarted {
                    inventory.notes.push(Note {
                        kind: NoteKind::Restarted,
                        message: format!(
                            "the list of {} was read again whole: its continue token expired (410 Gone)",
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
                    Batch::RuntimeClasses(r) => inventory.runtime_classes.extend(r),
                    Batch::Crds(c) => inventory.crds.extend(c),
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

/// A custom resource an HPA scales that no listed kind holds: where to `GET` it, at each REST
/// mapping of its kind in the order the HPA controller tries them (`get_target`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomTarget {
    namespace: String,
    kind: String,
    name: String,
    /// The kind's preferred mapping ([`Resolver::mappings`]), namespaced.
    preferred: Mapping,
    /// Its other namespaced mappings, in order.
    others: Vec<Mapping>,
}

impl CustomTarget {
    /// The custom resource `name` in `namespace` of the kind `crd` defines
    /// ([`custom_target_crd`]), read at the versions the HPA controller's RESTMapper maps that
    /// kind to ([`crd_mappings`], as [`Resolver::Crds`]: the CRD's served versions in
    /// Kubernetes-aware order, the first preferred, whatever version the HPA names; the group's
    /// order restricted to one CRD's versions is that CRD's own). `None` as for
    /// `CustomTarget::mapped`.
    pub fn of(crd: &CustomResourceDefinition, namespace: &str, name: &str) -> Option<CustomTarget> {
        let mappings = crd_mappings(std::slice::from_ref(crd), &crd.group, &crd.kind);
        CustomTarget::mapped(namespace, &crd.kind, name, mappings)
    }

    /// The custom resource `name` of `kind` in `namespace` at `mappings` (the preferred first).
    /// `None` without a name, a mapping, or a namespaced one: the controller reads a target's
    /// scale in the HPA's namespace, where a cluster-scoped resource is not served (404 at every
    /// mapping; HPA412 says so from its CRD), so such a target is not read.
    fn mapped(namespace: &str, kind: &str, name: &str, mappings: Vec<Mapping>) -> Option<CustomTarget> {
        let mut mappings = mappings.into_iter().filter(|m| m.namespaced);
        let preferred = mappings.next().filter(|_| !name.is_empty())?;
        Some(CustomTarget {
            namespace: namespace.to_string(),
            kind: kind.to_string(),
            name: name.to_string(),
            preferred,
            others: mappings.collect(),
        })
    }

    /// Its mappings as the controller's reads of them differ: the preferred one (what notes and
    /// warnings name, and the target's identity when none answered), then those of another
    /// resource. `scaleForResourceMappings` tries each mapping, but its scale client reads a
    /// group and resource at the version discovery prefers, so the mappings of one resource
    /// (a CRD's versions) are one request: another version's answer is not the controller's.
    fn mappings(&self) -> impl Iterator<Item = &Mapping> {
        std::iter::once(&self.preferred).chain(discovery::distinct_resources(&self.others, &self.preferred))
    }

    /// `workerpools.example.com batch/pinned`, as notes and warnings name it.
    pub fn describe(&self) -> String {
        format!("{} {}/{}", self.preferred.group_resource(), self.namespace, self.name)
    }

    /// Why it was not read when RBAC refused it (`message`: the API server's).
    fn refused(&self, message: &str) -> String {
        format!("RBAC refused to get {} ({message})", self.describe())
    }

    /// The call at `mapping`, for errors.
    fn doing(&self, mapping: &Mapping) -> String {
        format!("reading {} {}/{}", mapping.group_resource(), self.namespace, self.name)
    }

    /// Its identity at `mapping`, as the rules name it.
    fn id_at(&self, mapping: &Mapping) -> ObjectId {
        ObjectId {
            api_version: format!("{}/{}", mapping.group, mapping.version),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }

    /// Its identity at the preferred mapping, as the rules name it.
    pub fn id(&self) -> ObjectId {
        self.id_at(&self.preferred)
    }

    /// The object a `GET` at `mapping` returned (`item`), trimmed as a workload
    /// ([`trim_workload`]), with who set the count its CRD's `specReplicasPath` names
    /// ([`replicas_owner::decide_at`]).
    fn trimmed(&self, crd: &CustomResourceDefinition, mapping: &Mapping, item: &Value) -> (Workload, ReplicasDecision) {
        let (workload, mut decision) = trim_workload(self.id_at(mapping), item, None);
        if let Some(Some(scale)) = crd.served_scale() {
            let path: Vec<&str> = scale.spec_replicas_path.trim_start_matches('.').split('.').collect();
            decision = replicas_owner::decide_at(item, &path, None);
        }
        (workload, decision)
    }
}

/// Reads custom-resource target `target` as the HPA controller reads a scale target
/// (`scaleForResourceMappings` in `pkg/controller/podautoscaler/horizontal.go`): at each of its
/// mappings to a distinct resource in turn until one answers (`CustomTarget::mappings`), the
/// object and the mapping that answered; when none does, the first mapping's error. A failure that makes the server unusable (unreachable, timed out,
/// credentials) ends the tries at once: the next mapping would meet it again.
async fn get_target<'t>(cluster: &Cluster, target: &'t CustomTarget) -> Result<(Value, &'t Mapping), Error> {
    let mut first: Option<Error> = None;
    for mapping in target.mappings() {
        let doing = target.doing(mapping);
        let path = mapping.object_path(&target.namespace, &target.name);
        let answer = cluster.get_text(&path, &doing).await.and_then(|text| {
            hpa_core::go::parse_tree(&text).map_err(|e| Error::Protocol { doing: doing.clone(), reason: e.to_string() })
        });
        match answer {
            Ok(item) => return Ok((item, mapping)),
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    // A `CustomTarget` has a mapping; the controller's words for none.
    Err(first.unwrap_or_else(|| Error::Protocol {
        doing: format!("reading {}/{}", target.namespace, target.name),
        reason: "unrecognized resource".into(),
    }))
}

/// The CustomResourceDefinition (from `find`: group and kind to the CRD that defines them) of
/// the custom resource an HPA's `scaleTargetRef` (`api_version`, `kind`) names, when that kind
/// is none [`CONTEXT_KINDS`] lists (those are read by lists or watches).
pub fn custom_target_crd<'a>(
    api_version: &str,
    kind: &str,
    find: impl FnOnce(&str, &str) -> Option<&'a CustomResourceDefinition>,
) -> Option<&'a CustomResourceDefinition> {
    let group = hpa_core::api::GroupVersion::parse(api_version).ok()?;
    let group = group.group();
    if kinds::workload(group, kind).is_some() {
        return None;
    }
    find(group, kind)
}

/// What the webhook's `GET` of an HPA's custom-resource target at admission answered
/// ([`read_custom_target`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TargetRead {
    /// It exists: trimmed as a workload, with who set its count and its
    /// [`IGNORE_ANNOTATION`].
    Found(Box<Workload>, ReplicasDecision, Option<String>),
    /// It does not exist (404).
    Absent(ObjectId),
    /// It cannot exist: its kind is not served (an optional CRD, Argo Rollouts', that is not
    /// installed), as the webhook's context cache knows without asking
    /// ([`ContextCache::not_served`](crate::watch::ContextCache::not_served)). Nothing was read.
    NotServed(ObjectId),
    /// RBAC refused to read it: which, and the refused request as a warning words it after
    /// "RBAC refuses to" (`get its scale target workerpools.example.com batch/pinned`, `list
    /// deployments.apps in namespace shop`).
    Refused(ObjectId, String),
    /// The API server did not answer within the client's bound (`Error::Timeout`): which, and
    /// why, in a sentence naming it.
    TimedOut(ObjectId, String),
    /// It could not be read (the API server failed): which, and why, in a sentence naming it.
    Failed(ObjectId, String),
}

impl TargetRead {
    /// The object read (the preferred mapping's identity when none answered).
    pub fn id(&self) -> &ObjectId {
        match self {
            TargetRead::Found(w, ..) => &w.id,
            TargetRead::Absent(id)
            | TargetRead::NotServed(id)
            | TargetRead::Refused(id, _)
            | TargetRead::TimedOut(id, _)
            | TargetRead::Failed(id, _) => id,
        }
    }
}

/// The `GET` of custom-resource target `target` (of `crd`), as `hpa-lint cluster` reads each
/// ([`read_custom_targets`]: each resource it maps to in turn, `get_target`), for the webhook at admission,
/// each `GET` bounded by `cluster`'s timeout.
pub async fn read_custom_target(
    cluster: &Cluster,
    crd: &CustomResourceDefinition,
    target: &CustomTarget,
) -> TargetRead {
    match get_target(cluster, target).await {
        Ok((item, mapping)) => {
            let (workload, decision) = target.trimmed(crd, mapping, &item);
            TargetRead::Found(Box::new(workload), decision, ignore_annotation(&item).map(String::from))
        }
        Err(Error::NotFound { .. }) => TargetRead::Absent(target.id()),
        Err(Error::Forbidden { .. }) => {
            TargetRead::Refused(target.id(), format!("get its scale target {}", target.describe()))
        }
        Err(timeout @ Error::Timeout { .. }) => TargetRead::TimedOut(target.id(), timeout.to_string()),
        Err(other) => TargetRead::Failed(target.id(), other.to_string()),
    }
}

/// Whether workload `name` of `kind` (one of [`kinds::WORKLOADS`], which the webhook's context
/// cache watches) exists in `namespace` now, for the webhook at admission when its cache has not
/// seen it (its watch may lag a write made with the HPA under review): one LIST of `kind` in
/// `namespace` with `fieldSelector=metadata.name=<name>` and `limit=1` ([`Cluster::first_object`]:
/// no further page once the object came), not a `GET`, which the context cache's role does not
/// grant (`list` and `watch` only). Without a `resourceVersion` the API server answers from its
/// latest state (a quorum read, or its watch cache once consistent with it:
/// `ConsistentListFromCache`), never from a view older than the write. The object found is
/// trimmed as the watch would keep it ([`trim_live`]), with its [`IGNORE_ANNOTATION`]. The whole
/// read is bounded by `cluster`'s timeout, pages included. A 404 (the kind is not served: an
/// Argo Rollouts CRD just removed) is a failure, not an absence: the target's kind, not the
/// target, is missing.
pub async fn read_watched_target(cluster: &Cluster, kind: &ResourceKind, namespace: &str, name: &str) -> TargetRead {
    let id = ObjectId {
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        namespace: namespace.to_string(),
        name: name.to_string(),
    };
    let selector = format!("metadata.name={name}");
    let query = [("fieldSelector", selector.as_str())];
    let first = cluster.first_object(kind, Some(namespace), &query);
    let listed = match tokio::time::timeout(cluster.timeout(), first).await {
        Ok(listed) => listed,
        Err(_) => Err(Error::Timeout {
            server: cluster.server().to_string(),
            doing: format!("listing {}", kind.describe(Some(namespace))),
            after: cluster.timeout(),
        }),
    };
    match listed {
        // The selector selects by name; the name is checked all the same.
        Ok(Some(object)) if object.metadata.name.as_deref() == Some(name) => match trim_live(kind, object) {
            Ok((Trimmed::Workload(workload, decision), ignore)) => {
                TargetRead::Found(Box::new(workload), decision, ignore)
            }
            // A workload kind trims as a workload (`trim`).
            Ok(_) => TargetRead::Failed(id, format!("listing {}: not a workload", kind.describe(Some(namespace)))),
            Err(e) => TargetRead::Failed(id, format!("listing {}: {e}", kind.describe(Some(namespace)))),
        },
        // An answer that did not select by name (a proxy or server that ignores the selector)
        // says nothing of this one.
        Ok(Some(other)) => TargetRead::Failed(
            id,
            format!(
                "listing {} by name {name}: the API server answered {}, not selected by name",
                kind.describe(Some(namespace)),
                other.metadata.name.as_deref().unwrap_or_default()
            ),
        ),
        Ok(None) => TargetRead::Absent(id),
        Err(Error::Forbidden { .. }) => {
            let refused = format!("list {}", kind.describe(Some(namespace)));
            TargetRead::Refused(id, refused)
        }
        Err(timeout @ Error::Timeout { .. }) => TargetRead::TimedOut(id, timeout.to_string()),
        Err(other) => TargetRead::Failed(id, other.to_string()),
    }
}

/// Reads the scale targets of the HPAs read that are custom resources of a CRD read but of no
/// kind [`CONTEXT_KINDS`] lists (a `WorkerPool` whose CRD gives it a scale subresource), after
/// [`read_inventory`]: `targets` holds the namespace and `spec.scaleTargetRef` of each HPA of
/// the inventory, as the caller's one decode of it read them (hpa-cluster decodes no HPA here).
/// One `GET` each at the first of the versions the HPA controller's RESTMapper maps the
/// target's group and kind to that answers ([`Resolver`]: discovery's preferred version first,
/// whatever version the HPA names; the CRDs read when discovery fails; each resource in turn
/// as the controller tries them, `get_target`), trimmed as a workload ([`trim_workload`]) with,
/// beside it, who set the count its CRD's `specReplicasPath` names
/// ([`replicas_owner::decide_at`]): HPA410 on live custom resources. A target of a
/// cluster-scoped kind is not read: the controller looks for it in the HPA's namespace, where
/// it is not served (HPA412 says so from the CRD). A target that does not exist is left to the
/// rules (HPA403: each `GET` that answered, found or not, is in [`Inventory::coverage`]); a
/// refusal or a failure is a note; what makes the server unusable stops the read, as for the
/// lists.
pub async fn read_custom_targets(
    cluster: &Cluster,
    inventory: &mut Inventory,
    targets: &[(String, CrossVersionObjectReference)],
) -> Result<(), Error> {
    if inventory.crds.iter().all(|c| kinds::workload(&c.group, &c.kind).is_some()) {
        return Ok(());
    }
    // (namespace, group, kind, name) of each custom target, with its CRD.
    let mut wanted: Vec<(&str, &str, &str, &str, &CustomResourceDefinition)> = Vec::new();
    for (namespace, t) in targets {
        let Some(crd) = custom_target_crd(&t.api_version, &t.kind, |group, kind| {
            inventory.crds.iter().rev().find(|c| c.group == group && c.kind == kind)
        }) else {
            continue;
        };
        if t.name.is_empty() {
            continue;
        }
        let target = (namespace.as_str(), crd.group.as_str(), crd.kind.as_str(), t.name.as_str(), crd);
        if !wanted.iter().any(|w| (w.0, w.1, w.2, w.3) == (target.0, target.1, target.2, target.3)) {
            wanted.push(target);
        }
    }
    if wanted.is_empty() {
        return Ok(());
    }
    let mut groups: Vec<&str> = wanted.iter().map(|w| w.1).collect();
    groups.sort_unstable();
    groups.dedup();
    let resolver = match Resolver::discover(cluster, &groups).await {
        Ok(r) => r,
        Err(e) if e.is_connection() => return Err(e),
        Err(_) => Resolver::Crds(inventory.crds.clone()),
    };
    let targets: Vec<(CustomTarget, &CustomResourceDefinition)> = wanted
        .into_iter()
        .filter_map(|(namespace, group, kind, name, crd)| {
            let target = CustomTarget::mapped(namespace, kind, name, resolver.mappings(group, kind))?;
            Some((target, crd))
        })
        .collect();
    let reads = join_all(targets.iter().map(|(t, _)| get_target(cluster, t))).await;
    let mut found = Vec::new();
    for ((t, crd), answer) in targets.iter().zip(reads) {
        let (item, mapping) = match answer {
            Ok(answered) => answered,
            Err(e) if e.is_connection() => return Err(e),
            Err(Error::NotFound { .. }) => {
                inventory.coverage.fetched(&t.preferred.group, &t.kind, &t.namespace, &t.name);
                continue;
            }
            Err(Error::Forbidden { message, .. }) => {
                inventory
                    .notes
                    .push(Note { kind: NoteKind::Forbidden, message: format!("not read: {}", t.refused(&message)) });
                continue;
            }
            Err(other) => {
                inventory.notes.push(Note { kind: NoteKind::Failed, message: format!("not read: {other}") });
                continue;
            }
        };
        inventory.coverage.fetched(&mapping.group, &t.kind, &t.namespace, &t.name);
        if let Some(ignore) = ignore_annotation(&item) {
            inventory.ignores.insert(t.id_at(mapping), ignore.to_string());
        }
        found.push(t.trimmed(crd, mapping, &item));
    }
    for (workload, decision) in found {
        inventory.workloads.push(workload);
        inventory.replicas.push(decision);
    }
    Ok(())
}

/// The note for a failed list (a 404 of an optional kind, or of any kind when discovery could
/// not run, means it is not served).
fn note_for(kind: &ResourceKind, namespace: Option<&str>, e: &Error, undiscovered: bool) -> Note {
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
/// that have one, and whether the list restarted. HPAs are read as text (each decoded once, by
/// the linter), the other kinds as trees for hpa-core's builders.
async fn read_kind(
    cluster: &Cluster,
    kind: ResourceKind,
    namespace: Option<&str>,
) -> Result<(Batch, Vec<(ObjectId, String)>, bool), Error> {
    if kind == kinds::HPA {
        let mut hpas = Vec::new();
        let summary = cluster
            .list_objects(&kind, namespace, &[], PAGE_SIZE, |listed| match listed {
                Listed::Item(object) => hpas.push(LiveHpa::new(&kind, object)),
                Listed::Restart => hpas.clear(),
            })
            .await?;
        return Ok((Batch::Hpas(hpas), Vec::new(), summary.restarted));
    }
    let mut batch = match kind {
        kinds::PDB => Batch::Pdbs(Vec::new()),
        kinds::VPA => Batch::Vpas(Vec::new()),
        kinds::SCALED_OBJECT => Batch::ScaledObjects(Vec::new()),
        kinds::LIMIT_RANGE => Batch::LimitRanges(Vec::new()),
        kinds::RUNTIME_CLASS => Batch::RuntimeClasses(Vec::new()),
        kinds::CRD => Batch::Crds(Vec::new()),
        _ => Batch::Workloads(Vec::new()),
    };
    let mut ignores = Vec::new();
    let summary = cluster
        .list_each(&kind, namespace, &[], PAGE_SIZE, |listed| {
            let item = match listed {
                Listed::Item(item) => item,
                Listed::Restart => {
                    batch.clear();
                    ignores.clear();
                    return;
                }
            };
            if let Some(ignore) = ignore_annotation(&item) {
                ignores.push((object_id(&kind, &item), ignore.to_string()));
            }
            match (&mut batch, trim(&kind, item)) {
                (Batch::Workloads(out), Trimmed::Workload(w, d)) => out.push((w, d)),
                (Batch::Pdbs(out), Trimmed::Pdb(p)) => out.push(p),
                (Batch::Vpas(out), Trimmed::Vpa(v)) => out.push(v),
                (Batch::ScaledObjects(out), Trimmed::ScaledObject(s)) => out.push(s),
                (Batch::LimitRanges(out), Trimmed::LimitRange(l)) => out.push(l),
                (Batch::RuntimeClasses(out), Trimmed::RuntimeClass(r)) => out.push(r),
                (Batch::Crds(out), Trimmed::Crd(c)) => out.push(c),
                // `trim` answers in the kind it is given (HPAs are read above, as text).
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
    /// An HPA, whole (its text): hpa-core's strict decoder reads it.
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
    /// A RuntimeClass, trimmed to its `overhead.podFixed`.
    RuntimeClass(RuntimeClass),
    /// A CustomResourceDefinition, trimmed to its group, names and each version's `served` and
    /// `subresources.scale`.
    Crd(CustomResourceDefinition),
}

/// Trims an object of `kind` as the API server returned it (a list item or a watch event's
/// object) to what the rules read: the one place live objects become hpa-core's values, for
/// one-shot reads ([`read_inventory`]) and watches ([`crate::watch`]) alike. Any other kind is
/// read as a workload (an object with a pod template). An HPA keeps its text (no tree is
/// built); any other object is read as a tree, and its [`IGNORE_ANNOTATION`] returned beside
/// it when it has one (an HPA's is read from its decoded metadata). Errors: an object other
/// than an HPA that `serde_json` cannot hold as a tree.
pub fn trim_live(kind: &ResourceKind, object: LiveObject) -> Result<(Trimmed, Option<String>), serde_json::Error> {
    if *kind == kinds::HPA {
        return Ok((Trimmed::Hpa(LiveHpa::new(kind, object)), None));
    }
    let item = object.tree()?;
    let ignore = ignore_annotation(&item).map(String::from);
    Ok((trim(kind, item), ignore))
}

/// [`trim_live`] of an object other than an HPA read as a tree (a list item, an admission
/// request's object). An HPA is never read so: lists, watches ([`trim_live`]) and
/// [`read_inventory`] keep its text, and the webhook's `/validate-workloads` does not admit HPAs;
/// `kind` is read as a workload when it is none of the kinds named here.
pub fn trim(kind: &ResourceKind, item: Value) -> Trimmed {
    let id = object_id(kind, &item);
    match *kind {
        kinds::PDB => Trimmed::Pdb(pdb_from_json(id, &item)),
        kinds::VPA => Trimmed::Vpa(vpa_from_json(id, &item)),
        kinds::SCALED_OBJECT => Trimmed::ScaledObject(scaled_object_from_json(id, &item)),
        kinds::LIMIT_RANGE => Trimmed::LimitRange(LiveLimitRange { object: trim_limit_range(&item, kind), id }),
        // The kinds' own versions (`node.k8s.io/v1`, `apiextensions.k8s.io/v1`): the builders
        // always answer; an empty object otherwise, which nothing matches.
        kinds::RUNTIME_CLASS => Trimmed::RuntimeClass(
            runtime_class_from(id.clone(), &item).unwrap_or(RuntimeClass { id, pod_fixed: Default::default() }),
        ),
        kinds::CRD => {
            Trimmed::Crd(custom_resource_definition_from(id.clone(), &item).unwrap_or(CustomResourceDefinition {
                id,
                group: String::new(),
                kind: String::new(),
                plural: String::new(),
                cluster_scoped: false,
                versions: Vec::new(),
            }))
        }
        _ => {
            let (workload, decision) =
                trim_workload(id, &item, replicas_owner::defaulted_replicas(kind.group, kind.kind));
            Trimmed::Workload(workload, decision)
        }
    }
}

/// A live scale target as the rules read it: live objects are not manifests, so its
/// `spec.replicas` is kept only where a user or a tool set it ([`replicas_owner::decide`],
/// with `default`, the kind's defaulted count), and likewise each integer a custom resource
/// keeps under `spec` ([`Workload::spec_integers`]: its CRD's `specReplicasPath` may name any),
/// each decided at its own path ([`replicas_owner::decide_at`]). Returns the decision on
/// `spec.replicas`.
pub fn trim_workload(id: ObjectId, item: &Value, default: Option<i64>) -> (Workload, ReplicasDecision) {
    let decision = replicas_owner::decide(item, default);
    let mut workload = workload_from(id, item);
    workload.replicas = decision.replicas;
    if let Some(integers) = workload.spec_integers.as_mut() {
        integers.retain_mut(|(path, n)| {
            let path: Vec<&str> = path.split('.').collect();
            replicas_owner::decide_at(item, &path, None).replicas.map(|set| *n = set).is_some()
        });
        if integers.is_empty() {
            workload.spec_integers = None;
        }
    }
    (workload, decision)
}

/// An object's [`IGNORE_ANNOTATION`].
fn ignore_annotation(item: &Value) -> Option<&str> {
    item.pointer("/metadata/annotations").and_then(|a| a.get(IGNORE_ANNOTATION)).and_then(Value::as_str)
}

/// The identity of a live object of `kind`, as [`object_id`] reads it from a tree.
fn live_id(kind: &ResourceKind, object: &LiveObject) -> ObjectId {
    ObjectId {
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        namespace: live_namespace(kind, object.metadata.namespace.as_deref()).to_string(),
        name: object.metadata.name.clone().unwrap_or_default(),
    }
}

/// The namespace hpa-core's values give an object of `kind` whose `metadata.namespace` is
/// `namespace`: none (`""`) for a cluster-scoped kind, as hpa-core keeps them; `default` for a
/// namespaced one that names none.
pub fn live_namespace<'a>(kind: &ResourceKind, namespace: Option<&'a str>) -> &'a str {
    if kind.namespaced() { namespace.unwrap_or("default") } else { "" }
}

/// The identity of an object of `kind` ([`live_namespace`]).
pub fn object_id(kind: &ResourceKind, item: &Value) -> ObjectId {
    ObjectId {
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        namespace: live_namespace(kind, str_at(item, &["metadata", "namespace"])).to_string(),
        name: str_at(item, &["metadata", "name"]).unwrap_or_default().to_string(),
    }
}

/// A list item as kubectl shows it: `apiVersion` and `kind` first (the API server leaves them
/// out of the items of built-in lists), `metadata.managedFields` dropped.
pub fn as_listed(item: Value, kind: &ResourceKind) -> Value {
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

fn trim_limit_range(item: &Value, kind: &ResourceKind) -> Value {
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

#[cfg(test)]
mod tests {
    use hpa_core::api::Strictness;
    use hpa_core::features::KubernetesVersion;

    use super::*;

    fn live(text: &str) -> LiveHpa {
        LiveHpa::new(&kinds::HPA, LiveObject::from_text(text).unwrap())
    }

    #[test]
    fn a_live_hpa_is_decoded_from_its_text_as_kubectl_shows_list_items() {
        // A list item: no apiVersion or kind; a lone surrogate in an annotation and in fieldsV1.
        let item = r#" {"metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7",
            "annotations": {"note": "a\ud800b", "hpa-lint.dev/ignore": "HPA101"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:annotations": {"f:a\udc00": {}}}}}]},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 5}}"#;
        let hpa = live(item);
        assert_eq!((hpa.id.namespace.as_str(), hpa.id.name.as_str()), ("shop", "web"));
        assert!(hpa.text.starts_with(r#"{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","#));
        let decoded = hpa.decode(Strictness::Strict, KubernetesVersion::LATEST).unwrap().value;
        assert_eq!(decoded.api_version(), hpa_core::api::ApiVersion::V2);
        assert_eq!(decoded.metadata().annotations["note"], "a\u{fffd}b");
        assert!(decoded.metadata().managed_fields.is_empty());
        // The same as the tree the cache used to write back to text and decode.
        let tree = hpa_core::go::parse_tree(item).unwrap();
        let old_way = hpa_core::api::decode(&as_listed(tree, &kinds::HPA)).unwrap();
        assert_eq!(decoded, old_way);
        // A watch event's object keeps its own type; only a missing one is filled in.
        let typed =
            live(r#"{"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v1", "metadata": {"name": "a"}}"#);
        assert!(typed.text.starts_with(r#"{"kind""#));
        let half = live(r#"{"apiVersion": "autoscaling/v2", "metadata": {"name": "a"}}"#);
        assert!(half.text.starts_with(r#"{"kind":"HorizontalPodAutoscaler","apiVersion""#));
        assert!(half.decode(Strictness::Strict, KubernetesVersion::LATEST).is_ok());
        assert_eq!(&*live("{}").text, r#"{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"}"#);
        // What does not decode is still read as a tree.
        let broken = live(r#"{"metadata": {"name": "a"}, "spec": {"maxReplicas": "five"}}"#);
        assert!(broken.decode(Strictness::Lenient, KubernetesVersion::LATEST).is_err());
        assert_eq!(broken.tree().unwrap()["spec"]["maxReplicas"], "five");
    }

    #[test]
    fn what_a_lenient_decode_ignored_is_kept_and_worded_once_per_hpa() {
        let newer = live(
            r#"{"metadata": {"name": "web", "namespace": "shop"}, "spec": {"maxReplicas": 3, "syncPeriodSeconds": 30},
                "status": {"desiredReplicas": 1, "conditions": [{"type": "AbleToScale", "status": "True",
                    "lastTransitionTime": "2026-03-02T10:00:00Z", "observedGeneration": 2}]}}"#,
        );
        let release = KubernetesVersion::parse("1.36").unwrap();
        let decoded = newer.decode(Strictness::Lenient, release).unwrap();
        let paths: Vec<&str> = decoded.ignored.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["spec.syncPeriodSeconds", "status.conditions[0].observedGeneration"]);
        assert_eq!(
            ignored_notes(&newer.key(), &decoded.ignored, release),
            [
                "HorizontalPodAutoscaler shop/web: fields \"spec.syncPeriodSeconds\", \"status.conditions[0].observedGeneration\" are not in the types of Kubernetes 1.36: ignored, as that release's controller ignores them"
            ]
        );
        assert_eq!(
            ignored_notes("shop/web", &decoded.ignored[..1], release),
            [
                "HorizontalPodAutoscaler shop/web: field \"spec.syncPeriodSeconds\" is not in the types of Kubernetes 1.36: ignored, as that release's controller ignores it"
            ]
        );
        // Nothing ignored, nothing said; strict decoding refuses instead.
        let known = newer.decode(Strictness::Lenient, KubernetesVersion::LATEST).unwrap();
        assert_eq!(known.ignored.len(), 1, "1.37 has observedGeneration, not syncPeriodSeconds");
        assert!(ignored_notes("shop/web", &[], release).is_empty());
        assert!(newer.decode(Strictness::Strict, release).is_err());
        // Another problem than an unknown field: its own sentence.
        let duplicate = DecodeError::new(
            DecodeErrorKind::DuplicateField,
            "spec.maxReplicas",
            "duplicate field \"spec.maxReplicas\"",
        );
        assert_eq!(
            ignored_notes("shop/web", &[duplicate], release),
            ["HorizontalPodAutoscaler shop/web: duplicate field \"spec.maxReplicas\": ignored"]
        );
    }
}
