//! The one index of an HPA's world: the objects the cross-object rules read ([`Objects`]), in
//! tables by kind, namespace and name. The linter builds one per manifest set (and one from a
//! live cluster's inventory); the webhook's context cache keeps one up to date from its watches.
//!
//! Lookups take `&str`s and allocate nothing: the linter asks for every HPA of its input.

use std::collections::HashMap;

use super::objects::{LimitRange, ObjectId, Objects, Pdb, ScaledObject, Vpa, Workload};

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

/// An object of a kind the index keeps besides HPAs.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
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
}

impl Entry {
    /// The object it is about.
    pub fn id(&self) -> &ObjectId {
        match self {
            Entry::Workload(w) => &w.id,
            Entry::Pdb(p) => &p.id,
            Entry::Vpa(v) => &v.id,
            Entry::ScaledObject(o) => &o.id,
            Entry::LimitRange(l) => &l.id,
        }
    }

    /// The object it is about, to change (the linter places objects in their namespace after
    /// reading them).
    pub fn id_mut(&mut self) -> &mut ObjectId {
        match self {
            Entry::Workload(w) => &mut w.id,
            Entry::Pdb(p) => &mut p.id,
            Entry::Vpa(v) => &mut v.id,
            Entry::ScaledObject(o) => &mut o.id,
            Entry::LimitRange(l) => &mut l.id,
        }
    }
}

/// One table of the index: what [`ObjectIndex::count`], [`ObjectIndex::remove`] and
/// [`ObjectIndex::swap_table`] act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table<'a> {
    /// HPAs (by namespace and name, and by target).
    Hpas,
    /// Workloads of one kind (`Deployment`, ...).
    Workloads(&'a str),
    /// PodDisruptionBudgets.
    Pdbs,
    /// VerticalPodAutoscalers.
    Vpas,
    /// KEDA ScaledObjects.
    ScaledObjects,
    /// LimitRanges.
    LimitRanges,
}

/// Objects by namespace (a few per namespace: a lookup reads them all).
type ByNamespace<T> = HashMap<String, Vec<T>>;

/// Workloads of one kind, by namespace and name.
type KindTable = HashMap<String, HashMap<String, Workload>>;

/// An HPA of the index: its target, and what the index's owner keeps with it (the context
/// cache: the HPA as admitted; the linter: nothing).
#[derive(Debug, Clone, PartialEq)]
struct IndexedHpa<H> {
    /// Its `apiVersion` (with its namespace and name, its identity).
    api_version: String,
    target_kind: String,
    target_name: String,
    value: H,
}

/// The HPAs of a namespace.
#[derive(Debug, Clone)]
struct HpaNamespace<H> {
    /// By name: one HPA, or one per `apiVersion` written in a manifest set.
    by_name: HashMap<String, Vec<IndexedHpa<H>>>,
    /// Target name, then (target kind, the HPAs targeting it in the index's [`HpaOrder`]): a
    /// few kinds per name, so that a lookup costs no scan of the HPAs.
    by_target: HashMap<String, Vec<(String, Vec<ObjectId>)>>,
}

impl<H> Default for HpaNamespace<H> {
    fn default() -> Self {
        HpaNamespace { by_name: HashMap::new(), by_target: HashMap::new() }
    }
}

impl<H> HpaNamespace<H> {
    /// Removes the HPAs named `name` whose `apiVersion` `which` accepts from the lists by name
    /// and by target.
    fn remove(&mut self, name: &str, which: impl Fn(&str) -> bool) {
        let Some(same_name) = self.by_name.get_mut(name) else { return };
        let mut targets: Vec<(String, String, String)> = Vec::new();
        same_name.retain_mut(|h| {
            if which(&h.api_version) {
                let api_version = std::mem::take(&mut h.api_version);
                let kind = std::mem::take(&mut h.target_kind);
                let target = std::mem::take(&mut h.target_name);
                targets.push((api_version, kind, target));
                false
            } else {
                true
            }
        });
        if same_name.is_empty() {
            self.by_name.remove(name);
        }
        for (api_version, kind, target) in targets {
            let Some(by_kind) = self.by_target.get_mut(&target) else { continue };
            for (k, ids) in by_kind.iter_mut() {
                if *k == kind {
                    ids.retain(|id| id.name != name || id.api_version != api_version);
                }
            }
            by_kind.retain(|(_, ids)| !ids.is_empty());
            if by_kind.is_empty() {
                self.by_target.remove(&target);
            }
        }
    }
}

/// The objects of an HPA's world, as the cross-object rules read them ([`Objects`]).
///
/// Each object is held once, by identity: a workload by kind, namespace and name (its
/// `apiVersion` aside: a scale target is named by kind and name), any other object by its whole
/// [`ObjectId`]; an insert replaces the object of the same identity. HPAs are held by
/// identity with their target and a value `H` of the owner's, and listed by target in the
/// index's [`HpaOrder`].
#[derive(Debug, Clone)]
pub struct ObjectIndex<H = ()> {
    hpa_order: HpaOrder,
    /// Workloads by kind, then namespace and name.
    workloads: HashMap<String, KindTable>,
    pdbs: ByNamespace<Pdb>,
    vpas: ByNamespace<Vpa>,
    scaled_objects: ByNamespace<ScaledObject>,
    limit_ranges: ByNamespace<LimitRange>,
    hpas: HashMap<String, HpaNamespace<H>>,
}

impl<H> Default for ObjectIndex<H> {
    /// An empty index listing HPAs in insertion order.
    fn default() -> Self {
        ObjectIndex::new(HpaOrder::Insertion)
    }
}

/// Puts `item` in place of the one of the same identity, or at the end.
fn put<T>(list: &mut Vec<T>, item: T, id: impl Fn(&T) -> &ObjectId) {
    match list.iter_mut().find(|x| id(x) == id(&item)) {
        Some(slot) => *slot = item,
        None => list.push(item),
    }
}

/// Inserts `item` in the list of its namespace.
fn put_in<T>(table: &mut ByNamespace<T>, item: T, id: impl Fn(&T) -> &ObjectId) {
    match table.get_mut(&id(&item).namespace) {
        Some(list) => put(list, item, id),
        None => {
            table.insert(id(&item).namespace.clone(), vec![item]);
        }
    }
}

/// The list of a namespace (empty when there is none).
fn of_namespace<'a, T>(table: &'a ByNamespace<T>, namespace: &str) -> &'a [T] {
    table.get(namespace).map_or(&[], Vec::as_slice)
}

impl<H> ObjectIndex<H> {
    /// An empty index listing HPAs in `hpa_order`.
    pub fn new(hpa_order: HpaOrder) -> Self {
        ObjectIndex {
            hpa_order,
            workloads: HashMap::new(),
            pdbs: HashMap::new(),
            vpas: HashMap::new(),
            scaled_objects: HashMap::new(),
            limit_ranges: HashMap::new(),
            hpas: HashMap::new(),
        }
    }

    /// The order HPAs are listed in.
    pub fn hpa_order(&self) -> HpaOrder {
        self.hpa_order
    }

    /// Adds an object, in place of the one of the same identity.
    pub fn insert(&mut self, entry: Entry) {
        match entry {
            Entry::Workload(w) => {
                let table = match self.workloads.get_mut(&w.id.kind) {
                    Some(table) => table,
                    None => self.workloads.entry(w.id.kind.clone()).or_default(),
                };
                let by_name = match table.get_mut(&w.id.namespace) {
                    Some(by_name) => by_name,
                    None => table.entry(w.id.namespace.clone()).or_default(),
                };
                by_name.insert(w.id.name.clone(), w);
            }
            Entry::Pdb(p) => put_in(&mut self.pdbs, p, |x| &x.id),
            Entry::Vpa(v) => put_in(&mut self.vpas, v, |x| &x.id),
            Entry::ScaledObject(o) => put_in(&mut self.scaled_objects, o, |x| &x.id),
            Entry::LimitRange(l) => put_in(&mut self.limit_ranges, l, |x| &x.id),
        }
    }

    /// Adds the HPA `id` (after admission, in internal form) that targets
    /// `target_kind/target_name` in its namespace, with the owner's `value`, in place of the
    /// HPA of the same identity.
    pub fn insert_hpa(&mut self, id: ObjectId, target_kind: &str, target_name: &str, value: H) {
        let order = self.hpa_order;
        let n = match self.hpas.get_mut(&id.namespace) {
            Some(n) => n,
            None => self.hpas.entry(id.namespace.clone()).or_default(),
        };
        n.remove(&id.name, |api_version| api_version == id.api_version);
        let by_kind = match n.by_target.get_mut(target_name) {
            Some(by_kind) => by_kind,
            None => n.by_target.entry(target_name.to_string()).or_default(),
        };
        let ids = match by_kind.iter().position(|(k, _)| k == target_kind) {
            Some(at) => &mut by_kind[at].1,
            None => {
                by_kind.push((target_kind.to_string(), Vec::new()));
                let last = by_kind.len() - 1;
                &mut by_kind[last].1
            }
        };
        let hpa = IndexedHpa {
            api_version: id.api_version.clone(),
            target_kind: target_kind.to_string(),
            target_name: target_name.to_string(),
            value,
        };
        let same_name = match n.by_name.get_mut(&id.name) {
            Some(same_name) => same_name,
            None => n.by_name.entry(id.name.clone()).or_default(),
        };
        same_name.push(hpa);
        match order {
            HpaOrder::Insertion => ids.push(id),
            HpaOrder::Name => {
                let at = ids.partition_point(|i| i.name < id.name);
                ids.insert(at, id);
            }
        }
    }

    /// Removes the HPAs named `namespace/name` (of any `apiVersion`).
    pub fn remove_hpa(&mut self, namespace: &str, name: &str) {
        let Some(n) = self.hpas.get_mut(namespace) else { return };
        n.remove(name, |_| true);
        if n.by_name.is_empty() {
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
            Table::Workloads(kind) => {
                if let Some(t) = self.workloads.get_mut(kind)
                    && let Some(by_name) = t.get_mut(namespace)
                {
                    by_name.remove(name);
                    if by_name.is_empty() {
                        t.remove(namespace);
                    }
                }
            }
            Table::Pdbs => drop_from(&mut self.pdbs, namespace, name, |x| &x.id),
            Table::Vpas => drop_from(&mut self.vpas, namespace, name, |x| &x.id),
            Table::ScaledObjects => drop_from(&mut self.scaled_objects, namespace, name, |x| &x.id),
            Table::LimitRanges => drop_from(&mut self.limit_ranges, namespace, name, |x| &x.id),
        }
    }

    /// Exchanges the objects of `table` with those `other` holds: the context cache builds a
    /// relisted kind in an index of its own, outside its lock, and swaps it in under the lock
    /// (the old objects go out in `other`, to be dropped after the lock is released). Swapping
    /// with an empty index empties the table.
    pub fn swap_table(&mut self, table: Table<'_>, other: &mut ObjectIndex<H>) {
        use std::mem::swap;
        match table {
            Table::Hpas => swap(&mut self.hpas, &mut other.hpas),
            Table::Pdbs => swap(&mut self.pdbs, &mut other.pdbs),
            Table::Vpas => swap(&mut self.vpas, &mut other.vpas),
            Table::ScaledObjects => swap(&mut self.scaled_objects, &mut other.scaled_objects),
            Table::LimitRanges => swap(&mut self.limit_ranges, &mut other.limit_ranges),
            Table::Workloads(kind) => {
                let theirs = other.workloads.remove(kind);
                let ours = match theirs {
                    Some(t) => self.workloads.insert(kind.to_string(), t),
                    None => self.workloads.remove(kind),
                };
                if let Some(t) = ours {
                    other.workloads.insert(kind.to_string(), t);
                }
            }
        }
    }

    /// Objects held in `table`.
    pub fn count(&self, table: Table<'_>) -> usize {
        fn lists<T>(t: &ByNamespace<T>) -> usize {
            t.values().map(Vec::len).sum()
        }
        match table {
            Table::Hpas => self.hpas.values().flat_map(|n| n.by_name.values()).map(Vec::len).sum(),
            Table::Workloads(kind) => self.workloads.get(kind).map_or(0, |t| t.values().map(HashMap::len).sum()),
            Table::Pdbs => lists(&self.pdbs),
            Table::Vpas => lists(&self.vpas),
            Table::ScaledObjects => lists(&self.scaled_objects),
            Table::LimitRanges => lists(&self.limit_ranges),
        }
    }

    /// The HPA `namespace/name` (the first inserted, should a manifest set have it in two
    /// `apiVersion`s): the owner's value.
    pub fn hpa(&self, namespace: &str, name: &str) -> Option<&H> {
        Some(&self.hpas.get(namespace)?.by_name.get(name)?.first()?.value)
    }

    /// The target (kind, name) of the HPA `namespace/name` ([`ObjectIndex::hpa`]).
    pub fn hpa_target(&self, namespace: &str, name: &str) -> Option<(&str, &str)> {
        let h = self.hpas.get(namespace)?.by_name.get(name)?.first()?;
        Some((&h.target_kind, &h.target_name))
    }

    /// Every HPA of a namespace (the owner's values), in no particular order.
    pub fn hpas(&self, namespace: &str) -> impl Iterator<Item = &H> {
        self.hpas.get(namespace).into_iter().flat_map(|n| n.by_name.values().flatten().map(|h| &h.value))
    }

    /// The workloads of `kind` in a namespace, in no particular order.
    pub fn workloads_in<'a>(&'a self, kind: &str, namespace: &str) -> impl Iterator<Item = &'a Workload> {
        self.workloads.get(kind).and_then(|t| t.get(namespace)).into_iter().flat_map(HashMap::values)
    }

    /// The workloads of `kind` named `name`, in any namespace, in no particular order.
    pub fn workloads_named<'a>(&'a self, kind: &str, name: &'a str) -> impl Iterator<Item = &'a Workload> {
        self.workloads.get(kind).into_iter().flat_map(HashMap::values).filter_map(move |by_name| by_name.get(name))
    }
}

impl<H: Sync> Objects for ObjectIndex<H> {
    fn workload(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.workloads.get(kind)?.get(namespace)?.get(name)
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        of_namespace(&self.limit_ranges, namespace)
    }

    fn workload_any_case(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.workloads
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(kind))
            .find_map(|(_, t)| t.get(namespace)?.get(name))
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

    fn hpas_targeting(&self, namespace: &str, kind: &str, name: &str) -> &[ObjectId] {
        self.hpas
            .get(namespace)
            .and_then(|n| n.by_target.get(name))
            .and_then(|by_kind| by_kind.iter().find(|(k, _)| k == kind))
            .map_or(&[], |(_, ids)| ids.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(api_version: &str, kind: &str, namespace: &str, name: &str) -> ObjectId {
        ObjectId { api_version: api_version.into(), kind: kind.into(), namespace: namespace.into(), name: name.into() }
    }

    fn workload(api_version: &str, kind: &str, namespace: &str, name: &str, replicas: i64) -> Entry {
        Entry::Workload(Workload {
            id: id(api_version, kind, namespace, name),
            replicas: Some(replicas),
            ..Workload::default()
        })
    }

    fn pdb(api_version: &str, namespace: &str, name: &str) -> Entry {
        Entry::Pdb(Pdb {
            id: id(api_version, "PodDisruptionBudget", namespace, name),
            selector: Default::default(),
            min_available: None,
            max_unavailable: None,
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
            input.insert_hpa(hpa("shop", name), "Deployment", "web", ());
            by_name.insert_hpa(hpa("shop", name), "Deployment", "web", ());
        }
        assert_eq!(names(input.hpas_targeting("shop", "Deployment", "web")), ["c", "a", "b"]);
        assert_eq!(names(by_name.hpas_targeting("shop", "Deployment", "web")), ["a", "b", "c"]);
        // By namespace and target kind.
        assert!(input.hpas_targeting("other", "Deployment", "web").is_empty());
        assert!(input.hpas_targeting("shop", "StatefulSet", "web").is_empty());
        // Inserted again (same identity): replaced, at its new place in insertion order.
        input.insert_hpa(hpa("shop", "c"), "Deployment", "web", ());
        assert_eq!(names(input.hpas_targeting("shop", "Deployment", "web")), ["a", "b", "c"]);
        // Moved to another target: out of the first list.
        input.insert_hpa(hpa("shop", "a"), "Deployment", "api", ());
        assert_eq!(names(input.hpas_targeting("shop", "Deployment", "web")), ["b", "c"]);
        assert_eq!(names(input.hpas_targeting("shop", "Deployment", "api")), ["a"]);
        assert_eq!(input.hpa_target("shop", "a"), Some(("Deployment", "api")));
        assert_eq!(input.count(Table::Hpas), 3);
        input.remove(Table::Hpas, "shop", "a");
        assert!(input.hpas_targeting("shop", "Deployment", "api").is_empty());
        assert!(input.hpa("shop", "a").is_none());
        assert_eq!(input.count(Table::Hpas), 2);
    }

    #[test]
    fn an_hpa_in_two_api_versions_is_two_hpas() {
        let mut index: ObjectIndex<u8> = ObjectIndex::default();
        index.insert_hpa(hpa("shop", "web"), "Deployment", "web", 2);
        index.insert_hpa(id("autoscaling/v1", "HorizontalPodAutoscaler", "shop", "web"), "Deployment", "web", 1);
        let listed: Vec<&str> =
            index.hpas_targeting("shop", "Deployment", "web").iter().map(|i| i.api_version.as_str()).collect();
        assert_eq!(listed, ["autoscaling/v2", "autoscaling/v1"]);
        assert_eq!(index.hpa("shop", "web"), Some(&2));
        assert_eq!(index.count(Table::Hpas), 2);
        let mut values: Vec<u8> = index.hpas("shop").copied().collect();
        values.sort();
        assert_eq!(values, [1, 2]);
        // Removing by name removes both.
        index.remove_hpa("shop", "web");
        assert!(index.hpas_targeting("shop", "Deployment", "web").is_empty());
        assert_eq!(index.count(Table::Hpas), 0);
    }

    #[test]
    fn workloads_are_found_by_kind_namespace_and_name() {
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(workload("apps/v1", "Deployment", "shop", "web", 1));
        index.insert(workload("apps/v1", "StatefulSet", "shop", "web", 2));
        index.insert(workload("apps/v1", "Deployment", "other", "web", 3));
        let replicas = |w: Option<&Workload>| w.and_then(|w| w.replicas);
        assert_eq!(replicas(index.workload("Deployment", "shop", "web")), Some(1));
        assert_eq!(replicas(index.workload("StatefulSet", "shop", "web")), Some(2));
        assert_eq!(replicas(index.workload("Deployment", "other", "web")), Some(3));
        assert!(index.workload("deployment", "shop", "web").is_none());
        assert_eq!(replicas(index.workload_any_case("STATEFULSET", "shop", "web")), Some(2));
        assert!(index.workload_any_case("deployment", "nowhere", "web").is_none());
        let mut everywhere: Vec<i64> = index.workloads_named("Deployment", "web").filter_map(|w| w.replicas).collect();
        everywhere.sort();
        assert_eq!(everywhere, [1, 3]);
        assert_eq!(index.workloads_in("Deployment", "shop").count(), 1);
        assert_eq!(index.count(Table::Workloads("Deployment")), 2);
        // The same kind, namespace and name (another apiVersion): replaced.
        index.insert(workload("apps/v1beta1", "Deployment", "shop", "web", 4));
        assert_eq!(replicas(index.workload("Deployment", "shop", "web")), Some(4));
        assert_eq!(index.count(Table::Workloads("Deployment")), 2);
        index.remove(Table::Workloads("Deployment"), "shop", "web");
        assert!(index.workload("Deployment", "shop", "web").is_none());
        assert!(index.workload("StatefulSet", "shop", "web").is_some());
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
        assert_eq!(listed, ["policy/v1 b", "policy/v1 a", "policy/v1beta1 a"]);
        assert!(index.pdbs("other").is_empty());
        index.remove(Table::Pdbs, "shop", "a");
        assert_eq!(index.count(Table::Pdbs), 1);
    }

    #[test]
    fn a_table_is_swapped_whole() {
        let mut index: ObjectIndex = ObjectIndex::new(HpaOrder::Name);
        index.insert(workload("apps/v1", "Deployment", "shop", "web", 1));
        index.insert(workload("apps/v1", "StatefulSet", "shop", "db", 1));
        index.insert(pdb("policy/v1", "shop", "web"));
        index.insert_hpa(hpa("shop", "web"), "Deployment", "web", ());
        let mut fresh: ObjectIndex = ObjectIndex::new(HpaOrder::Name);
        fresh.insert(workload("apps/v1", "Deployment", "shop", "api", 1));
        fresh.insert(workload("apps/v1", "Deployment", "shop", "web", 2));
        index.swap_table(Table::Workloads("Deployment"), &mut fresh);
        assert_eq!(index.count(Table::Workloads("Deployment")), 2);
        assert_eq!(index.workload("Deployment", "shop", "web").and_then(|w| w.replicas), Some(2));
        // The old table went out; the other tables stayed.
        assert_eq!(fresh.count(Table::Workloads("Deployment")), 1);
        assert_eq!(index.count(Table::Workloads("StatefulSet")), 1);
        assert_eq!(index.count(Table::Pdbs), 1);
        // Swapping with an empty index empties a table.
        for table in [Table::Hpas, Table::Pdbs, Table::Workloads("StatefulSet"), Table::Workloads("Job")] {
            index.swap_table(table, &mut ObjectIndex::new(HpaOrder::Name));
            assert_eq!(index.count(table), 0);
        }
        assert!(index.hpas_targeting("shop", "Deployment", "web").is_empty());
        assert_eq!(index.count(Table::Workloads("Deployment")), 2);
    }
}
