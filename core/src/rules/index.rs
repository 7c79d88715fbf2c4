//! The one index of an HPA's world: the objects the cross-object rules read ([`Objects`]), in
//! tables by API group, kind and name (workloads), by target (HPAs) or by namespace (the
//! others). An object is identified as the RESTMapper and kube-apiserver's storage identify it:
//! by API group (not version: [`object_group`]), kind, namespace and name. The
//! linter builds one per manifest set (and one from a live cluster's inventory); the webhook's
//! context cache keeps one up to date from its watches.
//!
//! Lookups take `&str`s and allocate nothing: the linter asks for every HPA of its input. They
//! stay O(1) where many namespaces share names (a multi-tenant cluster): the objects filed under
//! one name are found by namespace through a map of positions once there are more than a few
//! (`SameName`), in the order they came.

use std::collections::hash_map;
use std::sync::OnceLock;

use super::object_group;
use super::objects::{
    Coverage, CustomResourceDefinition, LimitRange, ObjectId, Objects, Pdb, RuntimeClass, ScaledObject, Vpa, Workload,
    WorldSource, pods_overlap,
};

/// The index's hash maps: std's, hashing with foldhash (seeded per process) instead of SipHash.
/// The index files every workload by its name and each of its labels and the linter asks it
/// for every HPA, where SipHash took 1 % of a run; nothing here needs SipHash's resistance to
/// chosen keys (what is filed is the caller's own manifests or cluster).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The order in which [`Objects::hpas_targeting`] lists the HPAs of a target. Messages name
/// the first others ("is also scaled by X and 1 more"), so the order is part of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HpaOrder {
    /// The order the HPAs were inserted in (the linter: input order).
    #[default]
    Insertion,
    /// By name (the context cache: a cluster has no input order).
    Name,
}

impl HpaOrder {
    /// Puts `id` in `ids`, a list of a target's HPAs already in this order: at the end, or
    /// before the first HPA named after it.
    pub fn place(self, ids: &mut Vec<ObjectId>, id: ObjectId) {
        match self {
            HpaOrder::Insertion => ids.push(id),
            HpaOrder::Name => {
                let at = ids.partition_point(|i| i.name < id.name);
                ids.insert(at, id);
            }
        }
    }
}

/// An object of a kind the index keeps besides HPAs.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexedObject {
    /// A workload (any kind with a pod template, or at least a name).
    Workload(Workload),
    /// A PodDisruptionBudget.
    Pdb(Pdb),
    /// A VerticalPodAutoscaler.
    Vpa(Vpa),
    /// A KEDA ScaledObject.
    ScaledObject(ScaledObject),
    /// A LimitRange.
    LimitRange(LimitRange),
    /// A CustomResourceDefinition.
    CustomResourceDefinition(CustomResourceDefinition),
    /// A RuntimeClass.
    RuntimeClass(RuntimeClass),
}

impl IndexedObject {
    /// The object it is about.
    pub fn id(&self) -> &ObjectId {
        match self {
            IndexedObject::Workload(w) => &w.id,
            IndexedObject::Pdb(p) => &p.id,
            IndexedObject::Vpa(v) => &v.id,
            IndexedObject::ScaledObject(o) => &o.id,
            IndexedObject::LimitRange(l) => &l.id,
            IndexedObject::CustomResourceDefinition(c) => &c.id,
            IndexedObject::RuntimeClass(r) => &r.id,
        }
    }

    /// [`IndexedObject::id`], to change (the linter places objects in their namespace after reading
    /// them).
    pub fn id_mut(&mut self) -> &mut ObjectId {
        match self {
            IndexedObject::Workload(w) => &mut w.id,
            IndexedObject::Pdb(p) => &mut p.id,
            IndexedObject::Vpa(v) => &mut v.id,
            IndexedObject::ScaledObject(o) => &mut o.id,
            IndexedObject::LimitRange(l) => &mut l.id,
            IndexedObject::CustomResourceDefinition(c) => &mut c.id,
            IndexedObject::RuntimeClass(r) => &mut r.id,
        }
    }
}

/// One table of the index: what [`ObjectIndex::count`], [`ObjectIndex::remove`] and
/// [`ObjectIndex::swap_table`] act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table<'a> {
    /// HPAs (by namespace and name, and by target).
    Hpas,
    /// Workloads of one API group ([`object_group`]) and kind (`apps`, `Deployment`).
    Workloads(&'a str, &'a str),
    /// PodDisruptionBudgets.
    Pdbs,
    /// VerticalPodAutoscalers.
    Vpas,
    /// KEDA ScaledObjects.
    ScaledObjects,
    /// LimitRanges.
    LimitRanges,
    /// CustomResourceDefinitions (no namespace).
    CustomResourceDefinitions,
    /// RuntimeClasses (no namespace).
    RuntimeClasses,
}

/// Objects by namespace (a few per namespace: a lookup reads them all).
type ByNamespace<T> = HashMap<String, Vec<T>>;

/// Workloads of one API group and kind by name: those of that name, one per namespace ([`SameName`]). By name
/// first, as scale targets are named, so that a lookup hashes one string (two in a name many
/// namespaces share).
type KindTable = HashMap<String, SameName<Workload>>;

/// Past this many objects under one name, a [`SameName`] keeps their positions by namespace.
const SCAN: usize = 8;

/// What a [`SameName`] files by namespace.
trait InNamespace {
    fn namespace(&self) -> &str;
}

impl InNamespace for Workload {
    fn namespace(&self) -> &str {
        &self.id.namespace
    }
}

impl InNamespace for TargetGroup {
    fn namespace(&self) -> &str {
        &self.namespace
    }
}

/// The objects filed under one name (workloads of one group and kind; the HPAs' target groups), in the
/// order they came (the linter's output follows it: `workloads_named`). Most names have one, or
/// a few: a lookup by namespace compares them. A name many namespaces share (a multi-tenant
/// cluster, each namespace with its `web`) keeps, past [`SCAN`] objects, their positions by
/// namespace too, so that a lookup, an insert and the search of a remove stay O(1) however many
/// namespaces share it (`cargo bench -p hpa-core --bench validate -- admission_in_context`:
/// 1,000 namespaces with the same five names cost what unique names cost). A remove shifts the
/// later objects (order kept) and their positions: O(objects of the name), no hashing.
#[derive(Debug, Clone)]
struct SameName<T> {
    items: Vec<T>,
    /// Positions in `items` by namespace, once there are more than [`SCAN`]. Boxed: 8 bytes in
    /// every name's entry instead of a map's 40, for a cluster keeps tens of thousands, almost
    /// none with a map.
    positions: Option<Box<HashMap<String, Vec<u32>>>>,
}

impl<T: InNamespace> SameName<T> {
    /// One object (a list with room for one: most names have one, and a cluster keeps
    /// thousands).
    fn one(item: T) -> Self {
        SameName { items: vec![item], positions: None }
    }

    /// The position of the first object of `namespace` that `matches`.
    fn position(&self, namespace: &str, matches: impl Fn(&T) -> bool) -> Option<usize> {
        match &self.positions {
            Some(positions) => positions
                .get(namespace)?
                .iter()
                .map(|&at| at as usize)
                .find(|&at| self.items.get(at).is_some_and(&matches)),
            None => self.items.iter().position(|x| x.namespace() == namespace && matches(x)),
        }
    }

    fn get(&self, namespace: &str, matches: impl Fn(&T) -> bool) -> Option<&T> {
        self.items.get(self.position(namespace, matches)?)
    }

    /// Adds an object at the end.
    fn push(&mut self, item: T) {
        if let Some(positions) = &mut self.positions {
            let at = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
            positions.entry(item.namespace().to_string()).or_default().push(at);
        }
        self.items.push(item);
        if self.positions.is_none() && self.items.len() > SCAN {
            let mut positions: HashMap<String, Vec<u32>> =
                HashMap::with_capacity_and_hasher(self.items.len(), Default::default());
            for (at, x) in self.items.iter().enumerate() {
                let at = u32::try_from(at).unwrap_or(u32::MAX);
                positions.entry(x.namespace().to_string()).or_default().push(at);
            }
            self.positions = Some(Box::new(positions));
        }
    }

    /// Removes the object at `at`, keeping the order of the others.
    fn remove(&mut self, at: usize) {
        if at >= self.items.len() {
            return;
        }
        let item = self.items.remove(at);
        let Some(positions) = &mut self.positions else { return };
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        if let Some(list) = positions.get_mut(item.namespace()) {
            list.retain(|&p| p != at);
            if list.is_empty() {
                positions.remove(item.namespace());
            }
        }
        for p in positions.values_mut().flatten() {
            if *p > at {
                *p -= 1;
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// An HPA of the index: its target, and what the index's owner keeps with it (the context
/// cache: the HPA as admitted; the linter: nothing).
#[derive(Debug, Clone, PartialEq)]
struct IndexedHpa<H> {
    /// Its `apiVersion` (with its namespace and name, its identity).
    api_version: String,
    /// The API group of its target ([`object_group`]).
    target_group: String,
    target_kind: String,
    target_name: String,
    /// `spec.minReplicas` as stored (defaulted to 1).
    min_replicas: i32,
    value: H,
}

/// The HPAs of one namespace that target one API group and kind (of the name the group is
/// filed under).
#[derive(Debug, Clone)]
struct TargetGroup {
    namespace: String,
    group: String,
    kind: String,
    /// In the index's [`HpaOrder`].
    hpas: Vec<ObjectId>,
}

/// The objects of an HPA's world, as the cross-object rules read them ([`Objects`]).
///
/// Each object is held once, by identity: a workload by API group, kind, namespace and name
/// ([`ObjectId::same_object`]: its version aside, as the RESTMapper maps a scale target by group
/// and kind, so `apps/v1beta2` and `apps/v1` name one Deployment and a `Foo` of
/// `a.example.com` is not the `Foo` of `b.example.com`), and so is any other object; an insert
/// replaces the object of the same identity. HPAs are held by
/// identity with their target and a value `H` of the owner's, and listed by target (its group,
/// kind, namespace and name) in the index's [`HpaOrder`].
#[derive(Debug, Clone)]
pub struct ObjectIndex<H = ()> {
    hpa_order: HpaOrder,
    /// Workloads by API group and kind (a few: a lookup compares them), in the order they came.
    workloads: Vec<(String, String, KindTable)>,
    pdbs: ByNamespace<Pdb>,
    vpas: ByNamespace<Vpa>,
    scaled_objects: ByNamespace<ScaledObject>,
    limit_ranges: ByNamespace<LimitRange>,
    /// CustomResourceDefinitions, under the empty namespace (a few: a lookup reads them all).
    crds: ByNamespace<CustomResourceDefinition>,
    /// RuntimeClasses, under the empty namespace (a few: a lookup reads them all).
    runtime_classes: ByNamespace<RuntimeClass>,
    /// HPAs by namespace and name: one, or one per `apiVersion` written in a manifest set.
    hpas: HashMap<String, HashMap<String, Vec<IndexedHpa<H>>>>,
    /// HPAs by target name, grouped by (namespace, target group and kind) ([`SameName`]), so that a
    /// lookup costs no scan of the HPAs, nor of the namespaces that share a target name.
    hpas_by_target: HashMap<String, SameName<TargetGroup>>,
    /// The workloads by label, for [`Objects::workloads_sharing_pods`]: made at the first
    /// question, dropped when a workload changes.
    by_label: OnceLock<LabelIndex>,
    /// What a live read covered, for an index read from a cluster ([`ObjectIndex::read_from`]);
    /// `None` for a manifest set, which holds what is checked.
    coverage: Option<Coverage>,
}

/// Where a [`LabelIndex`] files a workload: its kind's place in [`ObjectIndex`]'s tables, and
/// its name.
type WorkloadAt = (usize, String);

/// Workloads by namespace, label key and label value.
type ByLabel = HashMap<String, HashMap<String, HashMap<String, Vec<WorkloadAt>>>>;

/// The workloads of an [`ObjectIndex`] by the labels of their pods and of their selectors, so
/// that the workloads whose pods overlap one's ([`pods_overlap`]) are found without a scan of
/// the namespace: the linter asks for each HPA, and a namespace may hold thousands.
#[derive(Debug, Clone, Default)]
struct LabelIndex {
    /// By each label of their pod template ([`Objects::pod_template_of`]).
    pods: ByLabel,
    /// By one `matchLabels` pair of their selector (the first): a selector that selects a pod
    /// has all its pairs among the pod's labels, so the pod's labels find it.
    selectors: ByLabel,
    /// Those whose selector has no `matchLabels` (expressions only), by namespace.
    unkeyed: HashMap<String, Vec<WorkloadAt>>,
}

impl LabelIndex {
    fn build<H: Sync>(index: &ObjectIndex<H>) -> LabelIndex {
        let mut built = LabelIndex::default();
        let file = |table: &mut ByLabel, ns: &str, k: &str, v: &str, at: WorkloadAt| {
            let by_key = table.entry(ns.to_string()).or_default();
            by_key.entry(k.to_string()).or_default().entry(v.to_string()).or_default().push(at);
        };
        for (kind_at, (_, _, table)) in index.workloads.iter().enumerate() {
            for w in table.values().flat_map(|s| &s.items) {
                let ns = &w.id.namespace;
                let at = || (kind_at, w.id.name.clone());
                if let Some(t) = index.pod_template_of(w) {
                    for (k, v) in &t.pod_labels {
                        file(&mut built.pods, ns, k, v, at());
                    }
                }
                let Some(selector) = &w.selector else { continue };
                match selector.match_labels.iter().next() {
                    Some((k, v)) => file(&mut built.selectors, ns, k, v, at()),
                    None => built.unkeyed.entry(ns.clone()).or_default().push(at()),
                }
            }
        }
        built
    }
}

/// The workloads filed under `k=v` in a namespace.
fn filed<'a>(table: &'a ByLabel, namespace: &str, k: &str, v: &str) -> &'a [WorkloadAt] {
    table.get(namespace).and_then(|t| t.get(k)).and_then(|t| t.get(v)).map_or(&[], Vec::as_slice)
}

impl<H> Default for ObjectIndex<H> {
    /// An empty index listing HPAs in insertion order.
    fn default() -> Self {
        ObjectIndex::new(HpaOrder::Insertion)
    }
}

/// Puts `item` in the list of its namespace, at the end, or in place of the one of the same
/// identity when `replace` (else that one is kept); whether it was put.
fn put_in<T>(table: &mut ByNamespace<T>, item: T, replace: bool, id: impl Fn(&T) -> &ObjectId) -> bool {
    let Some(list) = table.get_mut(&id(&item).namespace) else {
        table.insert(id(&item).namespace.clone(), vec![item]);
        return true;
    };
    match list.iter_mut().find(|x| id(x).same_object(id(&item))) {
        Some(slot) if replace => *slot = item,
        Some(_) => return false,
        None => list.push(item),
    }
    true
}

/// The list of a namespace (empty when there is none).
fn of_namespace<'a, T>(table: &'a ByNamespace<T>, namespace: &str) -> &'a [T] {
    table.get(namespace).map_or(&[], Vec::as_slice)
}

/// Takes the HPA `namespace/name` of `api_version` out of the list of its target.
fn unlist(
    by_target: &mut HashMap<String, SameName<TargetGroup>>,
    namespace: &str,
    name: &str,
    hpa: &IndexedHpa<impl Sized>,
) {
    let Some(groups) = by_target.get_mut(&hpa.target_name) else { return };
    let Some(at) = groups.position(namespace, |g| g.kind == hpa.target_kind && g.group == hpa.target_group) else {
        return;
    };
    let Some(g) = groups.items.get_mut(at) else { return };
    g.hpas.retain(|id| id.name != name || id.api_version != hpa.api_version);
    if g.hpas.is_empty() {
        groups.remove(at);
    }
    if groups.is_empty() {
        by_target.remove(&hpa.target_name);
    }
}

impl<H> ObjectIndex<H> {
    /// An empty index listing HPAs in `hpa_order`.
    pub fn new(hpa_order: HpaOrder) -> Self {
        ObjectIndex {
            hpa_order,
            workloads: Vec::new(),
            pdbs: HashMap::default(),
            vpas: HashMap::default(),
            scaled_objects: HashMap::default(),
            limit_ranges: HashMap::default(),
            crds: HashMap::default(),
            runtime_classes: HashMap::default(),
            hpas: HashMap::default(),
            hpas_by_target: HashMap::default(),
            by_label: OnceLock::new(),
            coverage: None,
        }
    }

    /// Says the index holds a cluster's objects as a one-shot read covered them (`hpa-lint
    /// cluster`): it would hold only what `coverage` says ([`Objects::would_hold`]), and its
    /// source is the cluster ([`Objects::source`]).
    pub fn read_from(&mut self, coverage: Coverage) {
        self.coverage = Some(coverage);
    }

    /// The order the index lists a target's HPAs in.
    pub fn hpa_order(&self) -> HpaOrder {
        self.hpa_order
    }

    fn kind_table(&self, group: &str, kind: &str) -> Option<&KindTable> {
        self.workloads.iter().find(|(g, k, _)| k == kind && g == group).map(|(_, _, t)| t)
    }

    fn kind_table_mut(&mut self, group: &str, kind: &str) -> &mut KindTable {
        let at = match self.workloads.iter().position(|(g, k, _)| k == kind && g == group) {
            Some(at) => at,
            None => {
                self.workloads.push((group.to_string(), kind.to_string(), HashMap::default()));
                self.workloads.len() - 1
            }
        };
        &mut self.workloads[at].2
    }

    /// Adds an object, in place of the one of the same identity (the context cache: the
    /// latest wins).
    pub fn insert(&mut self, entry: IndexedObject) {
        self.put(entry, true);
    }

    /// Adds an object unless one of the same identity is held (the linter, which leaves out of
    /// the index the definitions a later one supersedes); whether it was added.
    pub fn insert_first(&mut self, entry: IndexedObject) -> bool {
        self.put(entry, false)
    }

    /// Adds an object; one of the same identity is replaced when `replace`, else kept.
    fn put(&mut self, entry: IndexedObject, replace: bool) -> bool {
        match entry {
            IndexedObject::Workload(w) => {
                self.by_label = OnceLock::new();
                let group = object_group(&w.id.kind, &w.id.api_version);
                let same_name = match self.kind_table_mut(group, &w.id.kind).entry(w.id.name.clone()) {
                    hash_map::Entry::Occupied(e) => e.into_mut(),
                    hash_map::Entry::Vacant(e) => {
                        e.insert(SameName::one(w));
                        return true;
                    }
                };
                match same_name.position(&w.id.namespace, |_| true) {
                    Some(at) if replace => {
                        if let Some(slot) = same_name.items.get_mut(at) {
                            *slot = w;
                        }
                    }
                    Some(_) => return false,
                    None => same_name.push(w),
                }
                true
            }
            IndexedObject::Pdb(p) => put_in(&mut self.pdbs, p, replace, |x| &x.id),
            IndexedObject::Vpa(v) => put_in(&mut self.vpas, v, replace, |x| &x.id),
            IndexedObject::ScaledObject(o) => put_in(&mut self.scaled_objects, o, replace, |x| &x.id),
            IndexedObject::LimitRange(l) => put_in(&mut self.limit_ranges, l, replace, |x| &x.id),
            IndexedObject::CustomResourceDefinition(c) => put_in(&mut self.crds, c, replace, |x| &x.id),
            IndexedObject::RuntimeClass(r) => put_in(&mut self.runtime_classes, r, replace, |x| &x.id),
        }
    }

    /// Adds the HPA `id` (after admission, in internal form) that targets the object
    /// `target_kind/target_name` of API group `target_group` ([`object_group`] of its
    /// `scaleTargetRef`) in its namespace with `min_replicas` (as stored: defaulted), with the
    /// owner's `value`, in place of the HPA of the same identity.
    pub fn insert_hpa(
        &mut self,
        id: ObjectId,
        (target_group, target_kind, target_name): (&str, &str, &str),
        min_replicas: i32,
        value: H,
    ) {
        let by_name = match self.hpas.get_mut(&id.namespace) {
            Some(by_name) => by_name,
            None => self.hpas.entry(id.namespace.clone()).or_default(),
        };
        let hpa = IndexedHpa {
            api_version: id.api_version.clone(),
            target_group: target_group.to_string(),
            target_kind: target_kind.to_string(),
            target_name: target_name.to_string(),
            min_replicas,
            value,
        };
        // Lists are made with room for one: most hold one HPA, and a cluster keeps thousands.
        match by_name.entry(id.name.clone()) {
            hash_map::Entry::Vacant(e) => {
                e.insert(vec![hpa]);
            }
            hash_map::Entry::Occupied(e) => {
                let same_name = e.into_mut();
                if let Some(at) = same_name.iter().position(|h| h.api_version == id.api_version) {
                    let old = same_name.remove(at);
                    unlist(&mut self.hpas_by_target, &id.namespace, &id.name, &old);
                }
                same_name.push(hpa);
            }
        }
        let group = |id: ObjectId| TargetGroup {
            namespace: id.namespace.clone(),
            group: target_group.to_string(),
            kind: target_kind.to_string(),
            hpas: vec![id],
        };
        let groups = match self.hpas_by_target.entry(target_name.to_string()) {
            hash_map::Entry::Vacant(e) => {
                e.insert(SameName::one(group(id)));
                return;
            }
            hash_map::Entry::Occupied(e) => e.into_mut(),
        };
        let Some(ids) = groups
            .position(&id.namespace, |g| g.kind == target_kind && g.group == target_group)
            .and_then(|at| groups.items.get_mut(at))
        else {
            groups.push(group(id));
            return;
        };
        self.hpa_order.place(&mut ids.hpas, id);
    }

    /// Removes the HPAs named `namespace/name` (of any `apiVersion`).
    pub fn remove_hpa(&mut self, namespace: &str, name: &str) {
        let Some(by_name) = self.hpas.get_mut(namespace) else { return };
        let Some(same_name) = by_name.remove(name) else { return };
        for old in &same_name {
            unlist(&mut self.hpas_by_target, namespace, name, old);
        }
        if by_name.is_empty() {
            self.hpas.remove(namespace);
        }
    }

    /// Removes the objects of `table` named `name` in `namespace`.
    pub fn remove(&mut self, table: Table<'_>, namespace: &str, name: &str) {
        fn drop_from<T>(t: &mut ByNamespace<T>, namespace: &str, name: &str, id: impl Fn(&T) -> &ObjectId) {
            if let Some(list) = t.get_mut(namespace) {
                list.retain(|x| id(x).name != name);
                if list.is_empty() {
                    t.remove(namespace);
                }
            }
        }
        match table {
            Table::Hpas => self.remove_hpa(namespace, name),
            Table::Workloads(group, kind) => {
                self.by_label = OnceLock::new();
                if let Some((_, _, t)) = self.workloads.iter_mut().find(|(g, k, _)| k == kind && g == group)
                    && let Some(same_name) = t.get_mut(name)
                {
                    while let Some(at) = same_name.position(namespace, |_| true) {
                        same_name.remove(at);
                    }
                    if same_name.is_empty() {
                        t.remove(name);
                    }
                }
            }
            Table::Pdbs => drop_from(&mut self.pdbs, namespace, name, |x| &x.id),
            Table::Vpas => drop_from(&mut self.vpas, namespace, name, |x| &x.id),
            Table::ScaledObjects => drop_from(&mut self.scaled_objects, namespace, name, |x| &x.id),
            Table::LimitRanges => drop_from(&mut self.limit_ranges, namespace, name, |x| &x.id),
            Table::CustomResourceDefinitions => drop_from(&mut self.crds, namespace, name, |x| &x.id),
            Table::RuntimeClasses => drop_from(&mut self.runtime_classes, namespace, name, |x| &x.id),
        }
    }

    /// Exchanges the objects of `table` with those `other` holds: the context cache builds a
    /// relisted kind in an index of its own, outside its lock, and swaps it in under the lock
    /// (the old objects go out in `other`, to be dropped after the lock is released). Swapping
    /// with an empty index empties the table.
    pub fn swap_table(&mut self, table: Table<'_>, other: &mut ObjectIndex<H>) {
        use std::mem::swap;
        match table {
            Table::Hpas => {
                swap(&mut self.hpas, &mut other.hpas);
                swap(&mut self.hpas_by_target, &mut other.hpas_by_target);
            }
            Table::Pdbs => swap(&mut self.pdbs, &mut other.pdbs),
            Table::Vpas => swap(&mut self.vpas, &mut other.vpas),
            Table::ScaledObjects => swap(&mut self.scaled_objects, &mut other.scaled_objects),
            Table::LimitRanges => swap(&mut self.limit_ranges, &mut other.limit_ranges),
            Table::CustomResourceDefinitions => swap(&mut self.crds, &mut other.crds),
            Table::RuntimeClasses => swap(&mut self.runtime_classes, &mut other.runtime_classes),
            Table::Workloads(group, kind) => {
                // A kind with no objects on either side gets no table.
                if self.kind_table(group, kind).is_none() && other.kind_table(group, kind).is_none() {
                    return;
                }
                swap(self.kind_table_mut(group, kind), other.kind_table_mut(group, kind));
                self.by_label = OnceLock::new();
                other.by_label = OnceLock::new();
            }
        }
    }

    /// The namespace and name of every object held in `table`, in no particular order (the
    /// context cache, at the end of a relist, removes those the list no longer had).
    pub fn names(&self, table: Table<'_>) -> Vec<(&str, &str)> {
        fn of<T>(t: &ByNamespace<T>, id: impl Fn(&T) -> &ObjectId) -> Vec<(&str, &str)> {
            t.values().flatten().map(|x| (id(x).namespace.as_str(), id(x).name.as_str())).collect()
        }
        match table {
            Table::Hpas => self
                .hpas
                .iter()
                .flat_map(|(ns, by_name)| by_name.keys().map(move |name| (ns.as_str(), name.as_str())))
                .collect(),
            Table::Workloads(group, kind) => self
                .kind_table(group, kind)
                .into_iter()
                .flat_map(HashMap::values)
                .flat_map(|s| &s.items)
                .map(|w| (w.id.namespace.as_str(), w.id.name.as_str()))
                .collect(),
            Table::Pdbs => of(&self.pdbs, |x| &x.id),
            Table::Vpas => of(&self.vpas, |x| &x.id),
            Table::ScaledObjects => of(&self.scaled_objects, |x| &x.id),
            Table::LimitRanges => of(&self.limit_ranges, |x| &x.id),
            Table::CustomResourceDefinitions => of(&self.crds, |x| &x.id),
            Table::RuntimeClasses => of(&self.runtime_classes, |x| &x.id),
        }
    }

    /// Objects held in `table`.
    pub fn count(&self, table: Table<'_>) -> usize {
        fn lists<T>(t: &HashMap<String, Vec<T>>) -> usize {
            t.values().map(Vec::len).sum()
        }
        match table {
            Table::Hpas => self.hpas.values().map(lists).sum(),
            Table::Workloads(group, kind) => {
                self.kind_table(group, kind).map_or(0, |t| t.values().map(|s| s.items.len()).sum())
            }
            Table::Pdbs => lists(&self.pdbs),
            Table::Vpas => lists(&self.vpas),
            Table::ScaledObjects => lists(&self.scaled_objects),
            Table::LimitRanges => lists(&self.limit_ranges),
            Table::CustomResourceDefinitions => lists(&self.crds),
            Table::RuntimeClasses => lists(&self.runtime_classes),
        }
    }

    fn indexed_hpa(&self, namespace: &str, name: &str) -> Option<&IndexedHpa<H>> {
        self.hpas.get(namespace)?.get(name)?.first()
    }

    /// The HPA `namespace/name` (the first inserted, should a manifest set have it in two
    /// `apiVersion`s): the owner's value.
    pub fn hpa(&self, namespace: &str, name: &str) -> Option<&H> {
        Some(&self.indexed_hpa(namespace, name)?.value)
    }

    /// The target (API group, kind, name) of the HPA `namespace/name` ([`ObjectIndex::hpa`]).
    pub fn hpa_target(&self, namespace: &str, name: &str) -> Option<(&str, &str, &str)> {
        let h = self.indexed_hpa(namespace, name)?;
        Some((&h.target_group, &h.target_kind, &h.target_name))
    }

    /// Every HPA of a namespace (the owner's values), in no particular order.
    pub fn hpas(&self, namespace: &str) -> impl Iterator<Item = &H> {
        self.hpas.get(namespace).into_iter().flat_map(|by_name| by_name.values().flatten().map(|h| &h.value))
    }

    /// Every HPA of every namespace (the owners' values), in no particular order.
    pub fn every_hpa(&self) -> impl Iterator<Item = &H> {
        self.hpas.values().flat_map(|by_name| by_name.values().flatten().map(|h| &h.value))
    }

    /// The workloads of API group `group` and `kind` in a namespace, in no particular order (a
    /// scan of the kind).
    pub fn workloads_in<'a>(&'a self, group: &str, kind: &str, namespace: &str) -> impl Iterator<Item = &'a Workload> {
        self.kind_table(group, kind)
            .into_iter()
            .flat_map(HashMap::values)
            .flat_map(|s| &s.items)
            .filter(move |w| w.id.namespace == namespace)
    }

    /// The workloads of API group `group` and `kind` named `name`, in any namespace, in the
    /// order they came.
    pub fn workloads_named<'a>(&'a self, group: &str, kind: &str, name: &str) -> impl Iterator<Item = &'a Workload> {
        self.kind_table(group, kind).and_then(|t| t.get(name)).into_iter().flat_map(|s| &s.items)
    }
}

impl<H: Sync> Objects for ObjectIndex<H> {
    fn workload(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.kind_table(group, kind)?.get(name)?.get(namespace, |_| true)
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        of_namespace(&self.limit_ranges, namespace)
    }

    fn custom_resource_definition(&self, group: &str, kind: &str) -> Option<&CustomResourceDefinition> {
        of_namespace(&self.crds, "").iter().rev().find(|c| c.group == group && c.kind == kind)
    }

    fn kind_any_case(&self, group: &str, kind: &str) -> Option<&str> {
        let crd =
            of_namespace(&self.crds, "").iter().rev().find(|c| c.group == group && c.kind.eq_ignore_ascii_case(kind));
        crd.map(|c| c.kind.as_str()).or_else(|| {
            self.workloads
                .iter()
                .find(|(g, k, t)| g == group && k.eq_ignore_ascii_case(kind) && !t.is_empty())
                .map(|(_, k, _)| k.as_str())
        })
    }

    fn runtime_class(&self, name: &str) -> Option<&RuntimeClass> {
        of_namespace(&self.runtime_classes, "").iter().find(|r| r.id.name == name)
    }

    fn would_hold(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        self.coverage.as_ref().is_none_or(|c| c.holds(group, kind, namespace, name))
    }

    fn source(&self) -> WorldSource {
        if self.coverage.is_some() { WorldSource::Cluster } else { WorldSource::Manifests }
    }

    fn workload_any_case(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.workloads
            .iter()
            .filter(|(g, k, _)| k.eq_ignore_ascii_case(kind) && g == group)
            .find_map(|(_, _, t)| t.get(name)?.get(namespace, |_| true))
    }

    fn pdbs(&self, namespace: &str) -> &[Pdb] {
        of_namespace(&self.pdbs, namespace)
    }

    fn vpas(&self, namespace: &str) -> &[Vpa] {
        of_namespace(&self.vpas, namespace)
    }

    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject] {
        of_namespace(&self.scaled_objects, namespace)
    }

    fn workloads_of(&self, namespace: &str) -> Vec<&Workload> {
        self.workloads
            .iter()
            .flat_map(|(_, _, t)| t.values())
            .flat_map(|s| &s.items)
            .filter(|w| w.id.namespace == namespace)
            .collect()
    }

    fn hpa_min_replicas(&self, namespace: &str, group: &str, kind: &str, name: &str) -> Option<i32> {
        let by_name = self.hpas.get(namespace)?;
        self.hpas_targeting(namespace, group, kind, name)
            .iter()
            .filter_map(|id| by_name.get(&id.name)?.iter().find(|h| h.api_version == id.api_version))
            .map(|h| h.min_replicas)
            .min()
    }

    /// From the labels (`LabelIndex`): the workloads `w`'s selector may select (those with
    /// the pod label of its rarest `matchLabels` pair; all of the namespace's when it has none),
    /// and those whose selector may select `w`'s pods (filed under one of their labels), each
    /// checked with [`pods_overlap`].
    fn workloads_sharing_pods<'a>(&'a self, w: &'a Workload) -> Vec<&'a Workload> {
        let index = self.by_label.get_or_init(|| LabelIndex::build(self));
        let ns = w.id.namespace.as_str();
        let mut candidates: Vec<&WorkloadAt> = Vec::new();
        if let Some(selector) = &w.selector {
            let rarest =
                selector.match_labels.iter().map(|(k, v)| filed(&index.pods, ns, k, v)).min_by_key(|f| f.len());
            match rarest {
                Some(found) => candidates.extend(found),
                None => candidates
                    .extend(index.pods.get(ns).into_iter().flat_map(|t| t.values()).flat_map(|t| t.values()).flatten()),
            }
        }
        if let Some(t) = self.pod_template_of(w) {
            for (k, v) in &t.pod_labels {
                candidates.extend(filed(&index.selectors, ns, k, v));
            }
            candidates.extend(index.unkeyed.get(ns).into_iter().flatten());
        }
        let mut found: Vec<&Workload> = candidates
            .into_iter()
            .filter_map(|(kind_at, name)| self.workloads.get(*kind_at)?.2.get(name)?.get(ns, |_| true))
            .filter(|b| !b.id.same_object(&w.id) && pods_overlap(self, w, b))
            .collect();
        fn key(w: &Workload) -> (&str, &str, &str) {
            (&w.id.kind, &w.id.name, w.id.group())
        }
        found.sort_by(|a, b| key(a).cmp(&key(b)));
        found.dedup_by(|a, b| key(a) == key(b));
        found
    }

    fn hpas_targeting(&self, namespace: &str, group: &str, kind: &str, name: &str) -> &[ObjectId] {
        self.hpas_by_target
            .get(name)
            .and_then(|groups| groups.get(namespace, |g| g.kind == kind && g.group == group))
            .map_or(&[], |g| g.hpas.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(api_version: &str, kind: &str, namespace: &str, name: &str) -> ObjectId {
        ObjectId { api_version: api_version.into(), kind: kind.into(), namespace: namespace.into(), name: name.into() }
    }

    fn workload(api_version: &str, kind: &str, namespace: &str, name: &str, replicas: i64) -> IndexedObject {
        IndexedObject::Workload(Workload {
            id: id(api_version, kind, namespace, name),
            replicas: Some(replicas),
            ..Workload::default()
        })
    }

    fn pdb(api_version: &str, namespace: &str, name: &str) -> IndexedObject {
        IndexedObject::Pdb(Pdb {
            id: id(api_version, "PodDisruptionBudget", namespace, name),
            selector: Some(Default::default()),
            min_available: None,
            max_unavailable: None,
            undecodable: None,
            invalid: Vec::new(),
            unhealthy_pod_eviction_policy: None,
            meant_selector: None,
        })
    }

    fn hpa(namespace: &str, name: &str) -> ObjectId {
        id("autoscaling/v2", "HorizontalPodAutoscaler", namespace, name)
    }

    fn names(ids: &[ObjectId]) -> Vec<&str> {
        ids.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn hpas_are_listed_in_the_index_order() {
        let mut input: ObjectIndex = ObjectIndex::default();
        let mut by_name: ObjectIndex = ObjectIndex::new(HpaOrder::Name);
        for name in ["c", "a", "b"] {
            input.insert_hpa(hpa("shop", name), ("apps", "Deployment", "web"), 1, ());
            by_name.insert_hpa(hpa("shop", name), ("apps", "Deployment", "web"), 1, ());
        }
        assert_eq!(names(input.hpas_targeting("shop", "apps", "Deployment", "web")), ["c", "a", "b"]);
        assert_eq!(names(by_name.hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "b", "c"]);
        // By namespace and target kind.
        assert!(input.hpas_targeting("other", "apps", "Deployment", "web").is_empty());
        assert!(input.hpas_targeting("shop", "apps", "StatefulSet", "web").is_empty());
        // Inserted again (same identity): replaced, at its new place in insertion order.
        input.insert_hpa(hpa("shop", "c"), ("apps", "Deployment", "web"), 1, ());
        assert_eq!(names(input.hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "b", "c"]);
        // Moved to another target: out of the first list.
        input.insert_hpa(hpa("shop", "a"), ("apps", "Deployment", "api"), 1, ());
        assert_eq!(names(input.hpas_targeting("shop", "apps", "Deployment", "web")), ["b", "c"]);
        assert_eq!(names(input.hpas_targeting("shop", "apps", "Deployment", "api")), ["a"]);
        assert_eq!(input.hpa_target("shop", "a"), Some(("apps", "Deployment", "api")));
        assert_eq!(input.count(Table::Hpas), 3);
        input.remove(Table::Hpas, "shop", "a");
        assert!(input.hpas_targeting("shop", "apps", "Deployment", "api").is_empty());
        assert!(input.hpa("shop", "a").is_none());
        assert_eq!(input.count(Table::Hpas), 2);
    }

    #[test]
    fn names_many_namespaces_share_are_found_by_namespace_in_the_order_they_came() {
        let mut index: ObjectIndex = ObjectIndex::default();
        let namespaces: Vec<String> = (0..3 * SCAN).map(|n| format!("team-{}", (n * 7) % (3 * SCAN))).collect();
        for (n, ns) in namespaces.iter().enumerate() {
            let replicas = i64::try_from(n).unwrap();
            index.insert(workload("apps/v1", "Deployment", ns, "web", replicas));
            index.insert_hpa(hpa(ns, "web"), ("apps", "Deployment", "web"), 1, ());
            index.insert_hpa(hpa(ns, "web-sts"), ("apps", "StatefulSet", "web"), 1, ());
        }
        let order = |index: &ObjectIndex| -> Vec<String> {
            index.workloads_named("apps", "Deployment", "web").map(|w| w.id.namespace.clone()).collect()
        };
        assert_eq!(order(&index), namespaces);
        for (n, ns) in namespaces.iter().enumerate() {
            let w = index.workload("apps", "Deployment", ns, "web").unwrap();
            assert_eq!((w.id.namespace.as_str(), w.replicas), (ns.as_str(), Some(i64::try_from(n).unwrap())));
            assert!(index.workload_any_case("apps", "deployment", ns, "web").is_some());
            assert_eq!(names(index.hpas_targeting(ns, "apps", "Deployment", "web")), ["web"]);
            assert_eq!(names(index.hpas_targeting(ns, "apps", "StatefulSet", "web")), ["web-sts"]);
        }
        assert!(index.workload("apps", "Deployment", "elsewhere", "web").is_none());
        // Replaced in place; kept by insert_first.
        index.insert(workload("apps/v1", "Deployment", &namespaces[3], "web", 99));
        assert!(!index.insert_first(workload("apps/v1", "Deployment", &namespaces[4], "web", 98)));
        assert_eq!(index.workload("apps", "Deployment", &namespaces[3], "web").unwrap().replicas, Some(99));
        assert_eq!(index.workload("apps", "Deployment", &namespaces[4], "web").unwrap().replicas, Some(4));
        assert_eq!(order(&index), namespaces);
        // Removed: the others keep their order and are still found; one added goes last.
        for at in [0, 10, 5] {
            index.remove(Table::Workloads("apps", "Deployment"), &namespaces[at], "web");
            index.remove_hpa(&namespaces[at], "web");
        }
        let mut kept: Vec<String> =
            namespaces.iter().enumerate().filter(|(n, _)| ![0, 10, 5].contains(n)).map(|(_, ns)| ns.clone()).collect();
        assert_eq!(order(&index), kept);
        for ns in &kept {
            assert_eq!(&index.workload("apps", "Deployment", ns, "web").unwrap().id.namespace, ns);
            assert_eq!(names(index.hpas_targeting(ns, "apps", "Deployment", "web")), ["web"]);
        }
        assert!(index.workload("apps", "Deployment", &namespaces[10], "web").is_none());
        assert!(index.hpas_targeting(&namespaces[10], "apps", "Deployment", "web").is_empty());
        assert_eq!(names(index.hpas_targeting(&namespaces[10], "apps", "StatefulSet", "web")), ["web-sts"]);
        index.insert(workload("apps/v1", "Deployment", &namespaces[10], "web", 7));
        kept.push(namespaces[10].clone());
        assert_eq!(order(&index), kept);
        assert_eq!(index.workload("apps", "Deployment", &namespaces[10], "web").unwrap().replicas, Some(7));
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), kept.len());
    }

    #[test]
    fn an_hpa_in_two_api_versions_is_two_hpas() {
        let mut index: ObjectIndex<u8> = ObjectIndex::default();
        index.insert_hpa(hpa("shop", "web"), ("apps", "Deployment", "web"), 1, 2);
        index.insert_hpa(
            id("autoscaling/v1", "HorizontalPodAutoscaler", "shop", "web"),
            ("apps", "Deployment", "web"),
            1,
            1,
        );
        let listed: Vec<&str> =
            index.hpas_targeting("shop", "apps", "Deployment", "web").iter().map(|i| i.api_version.as_str()).collect();
        assert_eq!(listed, ["autoscaling/v2", "autoscaling/v1"]);
        assert_eq!(index.hpa("shop", "web"), Some(&2));
        assert_eq!(index.count(Table::Hpas), 2);
        let mut values: Vec<u8> = index.hpas("shop").copied().collect();
        values.sort();
        assert_eq!(values, [1, 2]);
        // Removing by name removes both.
        index.remove_hpa("shop", "web");
        assert!(index.hpas_targeting("shop", "apps", "Deployment", "web").is_empty());
        assert_eq!(index.count(Table::Hpas), 0);
    }

    #[test]
    fn workloads_are_found_by_kind_namespace_and_name() {
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(workload("apps/v1", "Deployment", "shop", "web", 1));
        index.insert(workload("apps/v1", "StatefulSet", "shop", "web", 2));
        index.insert(workload("apps/v1", "Deployment", "other", "web", 3));
        let replicas = |w: Option<&Workload>| w.and_then(|w| w.replicas);
        assert_eq!(replicas(index.workload("apps", "Deployment", "shop", "web")), Some(1));
        assert_eq!(replicas(index.workload("apps", "StatefulSet", "shop", "web")), Some(2));
        assert_eq!(replicas(index.workload("apps", "Deployment", "other", "web")), Some(3));
        assert!(index.workload("apps", "deployment", "shop", "web").is_none());
        assert_eq!(replicas(index.workload_any_case("apps", "STATEFULSET", "shop", "web")), Some(2));
        assert!(index.workload_any_case("apps", "deployment", "nowhere", "web").is_none());
        let mut everywhere: Vec<i64> =
            index.workloads_named("apps", "Deployment", "web").filter_map(|w| w.replicas).collect();
        everywhere.sort();
        assert_eq!(everywhere, [1, 3]);
        assert_eq!(index.workloads_in("apps", "Deployment", "shop").count(), 1);
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), 2);
        // The same kind, namespace and name (another apiVersion): replaced.
        index.insert(workload("apps/v1beta1", "Deployment", "shop", "web", 4));
        assert_eq!(replicas(index.workload("apps", "Deployment", "shop", "web")), Some(4));
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), 2);
        index.remove(Table::Workloads("apps", "Deployment"), "shop", "web");
        assert!(index.workload("apps", "Deployment", "shop", "web").is_none());
        assert!(index.workload("apps", "StatefulSet", "shop", "web").is_some());
    }

    /// A kind written all in lowercase names the kind the world knows in its group, as the
    /// RESTMapper's alias maps it: a CustomResourceDefinition's kind (the last one, as
    /// `custom_resource_definition` reads them), else a workload's; never a kind of another
    /// group, and never from another case than all lowercase.
    #[test]
    fn a_lowercase_kind_maps_to_the_kind_the_world_knows() {
        let crd = |group: &str, kind: &str| {
            IndexedObject::CustomResourceDefinition(CustomResourceDefinition {
                id: id("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", &format!("{kind}s.{group}")),
                group: group.into(),
                kind: kind.into(),
                plural: format!("{}s", kind.to_lowercase()),
                cluster_scoped: false,
                versions: Vec::new(),
            })
        };
        let mut index: ObjectIndex = ObjectIndex::default();
        assert_eq!(index.mapped_kind("example.com", "widget"), "widget");
        assert_eq!(index.mapped_kind("apps", "statefulset"), "StatefulSet");
        index.insert(workload("example.com/v1", "Widget", "shop", "w", 1));
        assert_eq!(index.mapped_kind("example.com", "widget"), "Widget");
        assert_eq!(index.mapped_kind("example.com", "WIDGET"), "WIDGET");
        assert_eq!(index.mapped_kind("other.example.com", "widget"), "widget");
        index.insert(crd("jobs.example.com", "Worker"));
        assert_eq!(index.mapped_kind("jobs.example.com", "worker"), "Worker");
        assert_eq!(index.kind_any_case("jobs.example.com", "WORKER"), Some("Worker"));
        assert_eq!(index.mapped_kind("jobs.example.com", "Worker"), "Worker");
        // Kubernetes' own groups map only the kinds they serve (no CRD can add one).
        index.insert(workload("apps/v1", "Rollout", "shop", "r", 1));
        assert_eq!(index.mapped_kind("apps", "rollout"), "rollout");
    }

    /// A workload's identity is its API group (not its version), kind, namespace and name, as
    /// the RESTMapper maps a scale target: the same kind and name in two groups is two objects,
    /// two versions of one group one object; an HPA's target is filed by group too.
    #[test]
    fn objects_are_identified_by_api_group() {
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(workload("a.example.com/v1", "Foo", "shop", "x", 1));
        index.insert(workload("b.example.com/v1", "Foo", "shop", "x", 2));
        index.insert(workload("apps/v1beta2", "Deployment", "shop", "web", 3));
        index.insert(workload("apps/v1", "Deployment", "shop", "web", 4));
        index.insert(workload("extensions/v1beta1", "ReplicaSet", "shop", "rs", 5));
        let replicas = |w: Option<&Workload>| w.and_then(|w| w.replicas);
        assert_eq!(replicas(index.workload("a.example.com", "Foo", "shop", "x")), Some(1));
        assert_eq!(replicas(index.workload("b.example.com", "Foo", "shop", "x")), Some(2));
        assert!(index.workload("c.example.com", "Foo", "shop", "x").is_none());
        assert_eq!(replicas(index.workload("apps", "Deployment", "shop", "web")), Some(4));
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), 1);
        assert_eq!(replicas(index.workload("apps", "ReplicaSet", "shop", "rs")), Some(5));
        assert_eq!(replicas(index.workload_any_case("b.example.com", "foo", "shop", "x")), Some(2));
        index.insert_hpa(hpa("shop", "a"), ("a.example.com", "Foo", "x"), 2, ());
        index.insert_hpa(hpa("shop", "b"), ("b.example.com", "Foo", "x"), 3, ());
        assert_eq!(names(index.hpas_targeting("shop", "a.example.com", "Foo", "x")), ["a"]);
        assert_eq!(names(index.hpas_targeting("shop", "b.example.com", "Foo", "x")), ["b"]);
        assert_eq!(index.hpa_min_replicas("shop", "b.example.com", "Foo", "x"), Some(3));
        assert_eq!(index.hpa_target("shop", "b"), Some(("b.example.com", "Foo", "x")));
        // Moved to the other group: out of the first list.
        index.insert_hpa(hpa("shop", "a"), ("b.example.com", "Foo", "x"), 2, ());
        assert!(index.hpas_targeting("shop", "a.example.com", "Foo", "x").is_empty());
        assert_eq!(names(index.hpas_targeting("shop", "b.example.com", "Foo", "x")), ["b", "a"]);
        index.remove(Table::Workloads("a.example.com", "Foo"), "shop", "x");
        assert!(index.workload("a.example.com", "Foo", "shop", "x").is_none());
        assert!(index.workload("b.example.com", "Foo", "shop", "x").is_some());
    }

    /// `insert_first` keeps the first definition: of the objects of one group, kind, namespace
    /// and name written in two versions, the first is the one the rules see.
    #[test]
    fn insert_first_keeps_the_first_definition() {
        let mut index: ObjectIndex = ObjectIndex::default();
        assert!(index.insert_first(workload("apps/v1beta2", "Deployment", "shop", "web", 1)));
        assert!(!index.insert_first(workload("apps/v1", "Deployment", "shop", "web", 2)));
        assert!(index.insert_first(workload("apps/v1", "StatefulSet", "shop", "web", 3)));
        let found =
            index.workload("apps", "Deployment", "shop", "web").map(|w| (w.id.api_version.as_str(), w.replicas));
        assert_eq!(found, Some(("apps/v1beta2", Some(1))));
        assert!(index.workload("apps", "StatefulSet", "shop", "web").is_some());
        assert!(index.insert_first(pdb("policy/v1beta1", "shop", "web")));
        assert!(!index.insert_first(pdb("policy/v1", "shop", "web")));
        let pdbs: Vec<&str> = index.pdbs("shop").iter().map(|p| p.id.api_version.as_str()).collect();
        assert_eq!(pdbs, ["policy/v1beta1"]);
    }

    #[test]
    fn other_objects_are_listed_by_namespace_once_per_identity() {
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(pdb("policy/v1", "shop", "b"));
        index.insert(pdb("policy/v1", "shop", "a"));
        index.insert(pdb("policy/v1beta1", "shop", "a"));
        index.insert(pdb("policy/v1", "shop", "b"));
        let listed: Vec<String> =
            index.pdbs("shop").iter().map(|p| format!("{} {}", p.id.api_version, p.id.name)).collect();
        assert_eq!(listed, ["policy/v1 b", "policy/v1beta1 a"]);
        assert!(index.pdbs("other").is_empty());
        index.remove(Table::Pdbs, "shop", "a");
        assert_eq!(index.count(Table::Pdbs), 1);
    }

    /// The labels index finds what a scan of the namespace with `pods_overlap` finds, and is
    /// made again when a workload changes.
    #[test]
    fn workloads_sharing_pods_are_found_by_label() {
        use crate::rules::objects::{pods_overlap, workload_from_json};
        let deployment = |ns: &str, name: &str, selector: serde_json::Value, labels: serde_json::Value| {
            let v = serde_json::json!({"spec": {"selector": selector, "template": {"metadata": {"labels": labels}}}});
            IndexedObject::Workload(workload_from_json(id("apps/v1", "Deployment", ns, name), &v))
        };
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(deployment(
            "shop",
            "web",
            serde_json::json!({"matchLabels": {"app": "web"}}),
            serde_json::json!({"app": "web", "track": "stable"}),
        ));
        index.insert(deployment(
            "shop",
            "canary",
            serde_json::json!({"matchLabels": {"app": "web", "track": "canary"}}),
            serde_json::json!({"app": "web", "track": "canary"}),
        ));
        index.insert(deployment(
            "shop",
            "any-web",
            serde_json::json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}),
            serde_json::json!({"app": "other"}),
        ));
        index.insert(deployment(
            "shop",
            "api",
            serde_json::json!({"matchLabels": {"app": "api"}}),
            serde_json::json!({"app": "api"}),
        ));
        index.insert(deployment(
            "other",
            "web2",
            serde_json::json!({"matchLabels": {"app": "web"}}),
            serde_json::json!({"app": "web"}),
        ));
        let sharing = |index: &ObjectIndex, name: &str| -> Vec<String> {
            let w = index.workload("apps", "Deployment", "shop", name).unwrap();
            let found: Vec<String> = index.workloads_sharing_pods(w).iter().map(|b| b.id.name.clone()).collect();
            let mut scanned: Vec<String> = index
                .workloads_of("shop")
                .into_iter()
                .filter(|b| b.id.name != name && pods_overlap(index, w, b))
                .map(|b| b.id.name.clone())
                .collect();
            scanned.sort();
            assert_eq!(found, scanned, "{name}");
            found
        };
        assert_eq!(sharing(&index, "web"), ["any-web", "canary"]);
        assert_eq!(sharing(&index, "canary"), ["any-web", "web"]);
        assert_eq!(sharing(&index, "any-web"), ["canary", "web"]);
        assert!(sharing(&index, "api").is_empty());
        index.insert(deployment(
            "shop",
            "api",
            serde_json::json!({"matchLabels": {"app": "api"}}),
            serde_json::json!({"app": "web"}),
        ));
        assert_eq!(sharing(&index, "api"), ["any-web", "web"], "made again after a change");
        index.remove(Table::Workloads("apps", "Deployment"), "shop", "web");
        assert_eq!(sharing(&index, "canary"), ["any-web"]);
    }

    #[test]
    fn a_table_is_swapped_whole() {
        let mut index: ObjectIndex = ObjectIndex::new(HpaOrder::Name);
        index.insert(workload("apps/v1", "Deployment", "shop", "web", 1));
        index.insert(workload("apps/v1", "StatefulSet", "shop", "db", 1));
        index.insert(pdb("policy/v1", "shop", "web"));
        index.insert_hpa(hpa("shop", "web"), ("apps", "Deployment", "web"), 1, ());
        let mut fresh: ObjectIndex = ObjectIndex::new(HpaOrder::Name);
        fresh.insert(workload("apps/v1", "Deployment", "shop", "api", 1));
        fresh.insert(workload("apps/v1", "Deployment", "shop", "web", 2));
        index.swap_table(Table::Workloads("apps", "Deployment"), &mut fresh);
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), 2);
        assert_eq!(index.workload("apps", "Deployment", "shop", "web").and_then(|w| w.replicas), Some(2));
        // The old table went out; the other tables stayed.
        assert_eq!(fresh.count(Table::Workloads("apps", "Deployment")), 1);
        assert_eq!(index.count(Table::Workloads("apps", "StatefulSet")), 1);
        assert_eq!(index.count(Table::Pdbs), 1);
        // Swapping with an empty index empties a table.
        for table in
            [Table::Hpas, Table::Pdbs, Table::Workloads("apps", "StatefulSet"), Table::Workloads("batch", "Job")]
        {
            index.swap_table(table, &mut ObjectIndex::new(HpaOrder::Name));
            assert_eq!(index.count(table), 0);
        }
        assert!(index.hpas_targeting("shop", "apps", "Deployment", "web").is_empty());
        assert_eq!(index.count(Table::Workloads("apps", "Deployment")), 2);
    }
}
