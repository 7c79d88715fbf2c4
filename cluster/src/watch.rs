//! The context cache: watches of exactly what the cross-object rules read (scale targets,
//! PodDisruptionBudgets, VPAs, KEDA ScaledObjects, LimitRanges, HPAs), each object stored
//! trimmed to hpa-core's plain values as it arrives ([`crate::inventory::trim`], the one place
//! live objects are trimmed), in an [`Index`] that implements hpa-core's [`Objects`]: the one
//! implementation the rules read in the webhook.
//!
//! Each kind is followed by kube-runtime's `watcher` (list with `limit`/`continue`, then watch
//! from the list's resourceVersion with bookmarks; a `410 Gone` relists, errors back off as
//! kube-runtime's `DefaultBackoff`), whose events are applied to the index the way kube-runtime's
//! reflector applies them to its store (`Init` starts a buffer, `InitDone` swaps it in, so a
//! relist never shows half a kind). The store is an index rather than a reflector `Store<K>`
//! because the rules ask by namespace and by target (`Objects`), never by key, and keep
//! hpa-core's trimmed values rather than whole objects.
//!
//! Optional CRDs (Argo Rollouts, VPA, KEDA) are watched only when discovery says they are
//! served, re-checked every [`CacheOptions::recheck_interval`]. A kind RBAC refuses (403) is
//! logged once, skipped (retried at the next re-check) and reported in [`WatchStatus`].

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hpa_core::api::{self, VersionedHpa};
use hpa_core::rules::objects::{
    LimitRange, ObjectId, Objects, Pdb, ScaledObject, Vpa, Workload, limit_range_from_json,
};
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use tokio::task::{AbortHandle, JoinSet};

use crate::connect::Cluster;
use crate::discovery::{self, Served};
use crate::inventory::{LiveHpa, Trimmed, trim};
use crate::kinds::{self, Kind, PAGE_SIZE};

/// The kinds the cache watches: HPAs and every kind the cross-object rules read.
pub const WATCHED: [Kind; 10] = [
    kinds::HPA,
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

/// How the cache runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheOptions {
    /// How often discovery is asked again whether the optional CRDs are served, and refused
    /// kinds are tried again.
    pub recheck_interval: Duration,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions { recheck_interval: Duration::from_secs(300) }
    }
}

/// Where one watch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Listing (the first time, or again after a relist).
    Syncing,
    /// Listed; following changes.
    Synced,
    /// RBAC refuses to list or watch it: skipped until the next re-check.
    Forbidden,
    /// An optional CRD that is not installed.
    Absent,
}

impl Phase {
    /// `syncing`, `synced`, `forbidden` or `absent` (metrics label values).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Syncing => "syncing",
            Phase::Synced => "synced",
            Phase::Forbidden => "forbidden",
            Phase::Absent => "absent",
        }
    }
}

/// One watch, as `/metrics` and readiness see it.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchStatus {
    /// The kind watched.
    pub kind: Kind,
    /// Where it stands.
    pub phase: Phase,
    /// Whether it has listed at least once (its objects are in the index).
    pub synced: bool,
    /// Objects of the kind in the index.
    pub objects: usize,
    /// Time since the watch last delivered an event (list items included).
    pub since_last_event: Option<Duration>,
    /// How long the watch has been failing (unreachable server, errors), when it is.
    pub broken_for: Option<Duration>,
    /// The last error, while broken or refused.
    pub error: Option<String>,
}

/// Whether the cache may be trusted for an admission decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// Every watch needed has synced and none has been broken longer than the bound.
    Fresh,
    /// The view is stale or incomplete; the sentence says why.
    Stale(String),
}

/// A running context cache. Dropping it stops its watches.
#[derive(Debug)]
pub struct ContextCache {
    shared: Arc<CacheShared>,
    supervisor: AbortHandle,
}

#[derive(Debug)]
struct CacheShared {
    index: RwLock<Index>,
    watches: Mutex<BTreeMap<Kind, WatchState>>,
    /// Discovery of the optional kinds has answered once (until then, readiness waits).
    discovered: Mutex<bool>,
}

#[derive(Debug, Clone)]
struct WatchState {
    phase: Phase,
    synced: bool,
    last_event: Option<Instant>,
    broken_since: Option<Instant>,
    error: Option<String>,
}

impl ContextCache {
    /// Starts watching (inside a tokio runtime). Returns at once; see [`ContextCache::synced`]
    /// and [`ContextCache::wait_synced`].
    pub fn start(cluster: Cluster, options: CacheOptions) -> ContextCache {
        let shared = Arc::new(CacheShared {
            index: RwLock::new(Index::default()),
            watches: Mutex::new(BTreeMap::new()),
            discovered: Mutex::new(false),
        });
        let supervisor = tokio::spawn(supervise(shared.clone(), cluster, options)).abort_handle();
        ContextCache { shared, supervisor }
    }

    /// The index, for reading (writers wait while it is held: keep it short).
    pub fn read(&self) -> RwLockReadGuard<'_, Index> {
        self.shared.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every watch started so far, in [`WATCHED`] order.
    pub fn status(&self) -> Vec<WatchStatus> {
        let now = Instant::now();
        let watches = self.shared.watches();
        let index = self.read();
        WATCHED
            .iter()
            .filter_map(|kind| {
                let w = watches.get(kind)?;
                Some(WatchStatus {
                    kind: *kind,
                    phase: w.phase,
                    synced: w.synced,
                    objects: index.count(kind),
                    since_last_event: w.last_event.map(|t| now.saturating_duration_since(t)),
                    broken_for: w.broken_since.map(|t| now.saturating_duration_since(t)),
                    error: w.error.clone(),
                })
            })
            .collect()
    }

    /// Whether discovery has answered and every watch not skipped has listed once.
    pub fn synced(&self) -> bool {
        *lock(&self.shared.discovered)
            && self.shared.watches().values().all(|w| w.synced || matches!(w.phase, Phase::Forbidden | Phase::Absent))
    }

    /// Waits until [`ContextCache::synced`] or `timeout`; whether it synced.
    pub async fn wait_synced(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if self.synced() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Whether the view may be trusted: every watch has listed, and none has been broken for
    /// longer than `stale_after`. LimitRanges RBAC refuses make it incomplete too: without them
    /// a container's defaulted request looks missing (a false HPA201); other refused kinds only
    /// hide findings.
    pub fn freshness(&self, stale_after: Duration) -> Freshness {
        if !*lock(&self.shared.discovered) {
            return Freshness::Stale("the cluster cache has not synced yet".into());
        }
        let now = Instant::now();
        let watches = self.shared.watches();
        for (kind, w) in watches.iter() {
            if w.phase == Phase::Forbidden && *kind == kinds::LIMIT_RANGE {
                return Freshness::Stale(format!("RBAC refuses to watch {}", kind.resource()));
            }
            if matches!(w.phase, Phase::Forbidden | Phase::Absent) {
                continue;
            }
            if !w.synced {
                return Freshness::Stale(format!("the cluster cache has not synced {} yet", kind.resource()));
            }
            if let Some(since) = w.broken_since {
                let broken = now.saturating_duration_since(since);
                if broken > stale_after {
                    return Freshness::Stale(format!(
                        "the watch of {} has been broken for {}s",
                        kind.resource(),
                        broken.as_secs()
                    ));
                }
            }
        }
        Freshness::Fresh
    }
}

impl Drop for ContextCache {
    fn drop(&mut self) {
        self.supervisor.abort();
    }
}

impl CacheShared {
    fn watches(&self) -> MutexGuard<'_, BTreeMap<Kind, WatchState>> {
        lock(&self.watches)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Index> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn update(&self, kind: Kind, f: impl FnOnce(&mut WatchState)) {
        let mut watches = self.watches();
        let state = watches.entry(kind).or_insert(WatchState {
            phase: Phase::Syncing,
            synced: false,
            last_event: None,
            broken_since: None,
            error: None,
        });
        f(state);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

// === watches ===

/// Starts the watches of the built-in kinds, then, every re-check, those of the optional kinds
/// discovery finds and those RBAC refused before. Dropping (aborting) it aborts every watch.
async fn supervise(shared: Arc<CacheShared>, cluster: Cluster, options: CacheOptions) {
    let mut tasks: JoinSet<()> = JoinSet::new();
    let mut running: HashMap<Kind, AbortHandle> = HashMap::new();
    let optional: Vec<Kind> = WATCHED.iter().copied().filter(|k| k.optional).collect();
    let mut ticker = tokio::time::interval(options.recheck_interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        while tasks.try_join_next().is_some() {}
        let served = match discovery::served(&cluster, &optional).await {
            Ok(served) => Some(served),
            Err(error) => {
                tracing::warn!(%error, "discovery of the optional kinds failed; trying again at the next re-check");
                None
            }
        };
        for kind in WATCHED {
            let wanted = if !kind.optional {
                true
            } else {
                match served.as_ref().and_then(|s| s.kinds.get(&kind)) {
                    Some(Served::Yes | Served::Unknown) => true,
                    Some(Served::No) => false,
                    // Discovery failed: keep what runs, start nothing new.
                    None => running.contains_key(&kind),
                }
            };
            let alive = running.get(&kind).is_some_and(|h| !h.is_finished());
            if wanted && !alive {
                // A refused kind tried again keeps its phase until the answer changes, so that
                // the refusal is logged once.
                shared.update(kind, |w| {
                    if w.phase != Phase::Forbidden {
                        w.phase = Phase::Syncing;
                    }
                    w.synced = false;
                });
                let handle = tasks.spawn(watch_kind(shared.clone(), cluster.client().clone(), kind));
                running.insert(kind, handle);
            } else if !wanted {
                if let Some(handle) = running.remove(&kind) {
                    handle.abort();
                    tracing::info!(kind = %kind.resource(), "no longer served: not watched");
                }
                shared.write().clear(&kind);
                shared.update(kind, |w| {
                    w.phase = Phase::Absent;
                    w.broken_since = None;
                    w.error = None;
                });
            }
        }
        if served.is_some() || !*lock(&shared.discovered) {
            // Without an answer the optional kinds count as absent until one comes: readiness
            // does not wait for a discovery that cannot answer.
            *lock(&shared.discovered) = true;
        }
    }
}

/// Follows one kind: kube-runtime's watcher, its events applied to the index.
async fn watch_kind(shared: Arc<CacheShared>, client: Client, kind: Kind) {
    let resource = ApiResource {
        group: kind.group.to_string(),
        version: kind.version.to_string(),
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        plural: kind.plural.to_string(),
    };
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let config = watcher::Config::default().page_size(PAGE_SIZE);
    let mut stream = std::pin::pin!(watcher::watcher(api, config).default_backoff());
    let mut buffer: Vec<Entry> = Vec::new();
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                let code = api_code(&error);
                let message = error.to_string();
                if code == Some(403) || (code == Some(404) && kind.optional) {
                    let phase = if code == Some(403) { Phase::Forbidden } else { Phase::Absent };
                    let was = shared.watches().get(&kind).map(|w| w.phase);
                    if was != Some(phase) {
                        tracing::warn!(kind = %kind.resource(), error = %message, "{}: skipped", phase.as_str());
                    }
                    shared.write().clear(&kind);
                    shared.update(kind, |w| {
                        w.phase = phase;
                        w.broken_since = None;
                        w.error = Some(message);
                    });
                    return;
                }
                shared.update(kind, |w| {
                    if w.broken_since.is_none() {
                        tracing::warn!(kind = %kind.resource(), error = %message, "watch broken; retrying");
                        w.broken_since = Some(Instant::now());
                    }
                    w.error = Some(message);
                });
                continue;
            }
        };
        shared.update(kind, |w| {
            if w.broken_since.take().is_some() {
                tracing::info!(kind = %kind.resource(), "watch recovered");
            }
            w.error = None;
            w.last_event = Some(Instant::now());
        });
        match event {
            Event::Init => buffer.clear(),
            Event::InitApply(object) => buffer.extend(entry(&kind, object)),
            Event::InitDone => {
                shared.write().replace(&kind, std::mem::take(&mut buffer));
                shared.update(kind, |w| {
                    if !w.synced {
                        tracing::info!(kind = %kind.resource(), "synced");
                    }
                    w.synced = true;
                    w.phase = Phase::Synced;
                });
            }
            Event::Apply(object) => {
                if let Some(e) = entry(&kind, object) {
                    shared.write().upsert(e);
                }
            }
            Event::Delete(object) => {
                let namespace = object.metadata.namespace.as_deref().unwrap_or("default");
                let name = object.metadata.name.as_deref().unwrap_or_default();
                shared.write().remove(&kind, namespace, name);
            }
        }
    }
}

/// The HTTP status of an API error behind a watcher error.
fn api_code(error: &watcher::Error) -> Option<u16> {
    match error {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => Some(s.code),
        watcher::Error::WatchError(s) => Some(s.code),
        _ => None,
    }
}

/// An object of a watched kind as the index keeps it.
fn entry(kind: &Kind, object: DynamicObject) -> Option<Entry> {
    let json = match serde_json::to_value(&object) {
        Ok(json) => json,
        Err(error) => {
            tracing::debug!(kind = %kind.resource(), %error, "object not stored");
            return None;
        }
    };
    Some(match trim(kind, json) {
        Trimmed::Hpa(live) => Entry::Hpa(Arc::new(CachedHpa::decode(live)?)),
        Trimmed::Workload(w, _) => Entry::Workload(w),
        Trimmed::Pdb(p) => Entry::Pdb(p),
        Trimmed::Vpa(v) => Entry::Vpa(v),
        Trimmed::ScaledObject(s) => Entry::ScaledObject(s),
        Trimmed::LimitRange(l) => Entry::LimitRange(limit_range_from_json(l.id, &l.object)),
    })
}

// === the index ===

/// An HPA of the cache, decoded by hpa-core's strict decoder (as the API server stores it:
/// `autoscaling/v2`, defaulted).
#[derive(Debug, Clone, PartialEq)]
pub struct CachedHpa {
    /// Which HPA.
    pub id: ObjectId,
    /// The object.
    pub hpa: VersionedHpa,
}

impl CachedHpa {
    /// Decodes a live HPA; `None` (logged) for one hpa-core cannot read.
    pub fn decode(live: LiveHpa) -> Option<CachedHpa> {
        match api::decode(&live.object) {
            Ok(hpa) => Some(CachedHpa { id: live.id, hpa }),
            Err(errors) => {
                let first = errors.first().map(ToString::to_string).unwrap_or_default();
                tracing::debug!(hpa = %live.id, error = %first, "HPA not decoded: left out of the cache");
                None
            }
        }
    }

    /// `spec.scaleTargetRef` kind and name.
    pub fn target(&self) -> (&str, &str) {
        match &self.hpa {
            VersionedHpa::V2(h) => (&h.spec.scale_target_ref.kind, &h.spec.scale_target_ref.name),
            VersionedHpa::V1(h) => (&h.spec.scale_target_ref.kind, &h.spec.scale_target_ref.name),
            VersionedHpa::V2beta2(h) => (&h.spec.scale_target_ref.kind, &h.spec.scale_target_ref.name),
            VersionedHpa::V2beta1(h) => (&h.spec.scale_target_ref.kind, &h.spec.scale_target_ref.name),
        }
    }
}

/// One object of a watched kind, trimmed.
#[derive(Debug, Clone)]
enum Entry {
    Hpa(Arc<CachedHpa>),
    Workload(Workload),
    Pdb(Pdb),
    Vpa(Vpa),
    ScaledObject(ScaledObject),
    LimitRange(LimitRange),
}

/// What the cache holds, by namespace: the [`Objects`] the rules read.
#[derive(Debug, Default)]
pub struct Index {
    namespaces: HashMap<String, Namespace>,
}

#[derive(Debug, Default)]
struct Namespace {
    /// By name: objects of several kinds may share one.
    workloads: HashMap<String, Vec<Workload>>,
    pdbs: Vec<Pdb>,
    vpas: Vec<Vpa>,
    scaled_objects: Vec<ScaledObject>,
    limit_ranges: Vec<LimitRange>,
    hpas: HashMap<String, Arc<CachedHpa>>,
    /// Target name, then (target kind, the HPAs targeting it, sorted by name).
    hpas_by_target: HashMap<String, Vec<(String, Vec<ObjectId>)>>,
}

impl Index {
    /// The HPA `namespace/name`.
    pub fn hpa(&self, namespace: &str, name: &str) -> Option<&Arc<CachedHpa>> {
        self.namespaces.get(namespace)?.hpas.get(name)
    }

    /// Every HPA of a namespace, in no particular order.
    pub fn hpas(&self, namespace: &str) -> impl Iterator<Item = &Arc<CachedHpa>> {
        self.namespaces.get(namespace).into_iter().flat_map(|n| n.hpas.values())
    }

    /// Objects of `kind` held.
    pub fn count(&self, kind: &Kind) -> usize {
        self.namespaces
            .values()
            .map(|n| match *kind {
                kinds::HPA => n.hpas.len(),
                kinds::PDB => n.pdbs.len(),
                kinds::VPA => n.vpas.len(),
                kinds::SCALED_OBJECT => n.scaled_objects.len(),
                kinds::LIMIT_RANGE => n.limit_ranges.len(),
                _ => n.workloads.values().flatten().filter(|w| w.id.kind == kind.kind).count(),
            })
            .sum()
    }

    fn namespace(&mut self, namespace: &str) -> &mut Namespace {
        self.namespaces.entry(namespace.to_string()).or_default()
    }

    fn upsert(&mut self, entry: Entry) {
        fn put<T>(list: &mut Vec<T>, item: T, same: impl Fn(&T) -> bool) {
            match list.iter_mut().find(|x| same(x)) {
                Some(slot) => *slot = item,
                None => list.push(item),
            }
        }
        match entry {
            Entry::Hpa(hpa) => {
                let ns = hpa.id.namespace.clone();
                self.remove_hpa(&ns, &hpa.id.name);
                let (kind, target) = hpa.target();
                let (kind, target) = (kind.to_string(), target.to_string());
                let n = self.namespace(&ns);
                let by_kind = n.hpas_by_target.entry(target).or_default();
                let ids = match by_kind.iter_mut().position(|(k, _)| *k == kind) {
                    Some(i) => &mut by_kind[i].1,
                    None => {
                        by_kind.push((kind, Vec::new()));
                        let last = by_kind.len() - 1;
                        &mut by_kind[last].1
                    }
                };
                let at = ids.partition_point(|id| id.name < hpa.id.name);
                ids.insert(at, hpa.id.clone());
                n.hpas.insert(hpa.id.name.clone(), hpa);
            }
            Entry::Workload(w) => {
                let kind = w.id.kind.clone();
                let list = self.namespace(&w.id.namespace.clone()).workloads.entry(w.id.name.clone()).or_default();
                put(list, w, |x| x.id.kind == kind);
            }
            Entry::Pdb(p) => {
                let name = p.id.name.clone();
                put(&mut self.namespace(&p.id.namespace.clone()).pdbs, p, |x| x.id.name == name);
            }
            Entry::Vpa(v) => {
                let name = v.id.name.clone();
                put(&mut self.namespace(&v.id.namespace.clone()).vpas, v, |x| x.id.name == name);
            }
            Entry::ScaledObject(s) => {
                let name = s.id.name.clone();
                put(&mut self.namespace(&s.id.namespace.clone()).scaled_objects, s, |x| x.id.name == name);
            }
            Entry::LimitRange(l) => {
                let name = l.id.name.clone();
                put(&mut self.namespace(&l.id.namespace.clone()).limit_ranges, l, |x| x.id.name == name);
            }
        }
    }

    fn remove_hpa(&mut self, namespace: &str, name: &str) {
        let Some(n) = self.namespaces.get_mut(namespace) else { return };
        let Some(old) = n.hpas.remove(name) else { return };
        let (kind, target) = old.target();
        if let Some(by_kind) = n.hpas_by_target.get_mut(target) {
            for (k, ids) in by_kind.iter_mut() {
                if k == kind {
                    ids.retain(|id| id.name != name);
                }
            }
            by_kind.retain(|(_, ids)| !ids.is_empty());
            if by_kind.is_empty() {
                n.hpas_by_target.remove(target);
            }
        }
    }

    fn remove(&mut self, kind: &Kind, namespace: &str, name: &str) {
        if *kind == kinds::HPA {
            return self.remove_hpa(namespace, name);
        }
        let Some(n) = self.namespaces.get_mut(namespace) else { return };
        match *kind {
            kinds::PDB => n.pdbs.retain(|x| x.id.name != name),
            kinds::VPA => n.vpas.retain(|x| x.id.name != name),
            kinds::SCALED_OBJECT => n.scaled_objects.retain(|x| x.id.name != name),
            kinds::LIMIT_RANGE => n.limit_ranges.retain(|x| x.id.name != name),
            _ => {
                if let Some(list) = n.workloads.get_mut(name) {
                    list.retain(|w| w.id.kind != kind.kind);
                    if list.is_empty() {
                        n.workloads.remove(name);
                    }
                }
            }
        }
    }

    /// Drops every object of `kind`.
    fn clear(&mut self, kind: &Kind) {
        for n in self.namespaces.values_mut() {
            match *kind {
                kinds::HPA => {
                    n.hpas.clear();
                    n.hpas_by_target.clear();
                }
                kinds::PDB => n.pdbs.clear(),
                kinds::VPA => n.vpas.clear(),
                kinds::SCALED_OBJECT => n.scaled_objects.clear(),
                kinds::LIMIT_RANGE => n.limit_ranges.clear(),
                _ => {
                    n.workloads.retain(|_, list| {
                        list.retain(|w| w.id.kind != kind.kind);
                        !list.is_empty()
                    });
                }
            }
        }
    }

    /// Replaces every object of `kind` with `entries` (a relist).
    fn replace(&mut self, kind: &Kind, entries: Vec<Entry>) {
        self.clear(kind);
        for e in entries {
            self.upsert(e);
        }
    }
}

const NO_IDS: &[ObjectId] = &[];

impl Objects for Index {
    fn workload(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.namespaces.get(namespace)?.workloads.get(name)?.iter().find(|w| w.id.kind == kind)
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        self.namespaces.get(namespace).map_or(&[], |n| &n.limit_ranges)
    }

    fn workload_any_case(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.namespaces.get(namespace)?.workloads.get(name)?.iter().find(|w| w.id.kind.eq_ignore_ascii_case(kind))
    }

    fn pdbs(&self, namespace: &str) -> &[Pdb] {
        self.namespaces.get(namespace).map_or(&[], |n| &n.pdbs)
    }

    fn vpas(&self, namespace: &str) -> &[Vpa] {
        self.namespaces.get(namespace).map_or(&[], |n| &n.vpas)
    }

    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject] {
        self.namespaces.get(namespace).map_or(&[], |n| &n.scaled_objects)
    }

    fn hpas_targeting(&self, namespace: &str, kind: &str, name: &str) -> &[ObjectId] {
        self.namespaces
            .get(namespace)
            .and_then(|n| n.hpas_by_target.get(name))
            .and_then(|by_kind| by_kind.iter().find(|(k, _)| k == kind))
            .map_or(NO_IDS, |(_, ids)| ids.as_slice())
    }
}

// === the index with one object substituted ===

/// The index as it would be once an object under admission is stored: that object replaces
/// the cached one of the same identity (or joins the index). What a rule reads through it is
/// what it would read after the write.
pub struct Overlay<'a> {
    base: &'a Index,
    workload: Option<&'a Workload>,
    pdbs: Option<(String, Vec<Pdb>)>,
    vpas: Option<(String, Vec<Vpa>)>,
    /// The HPA substituted: its namespace, and each target whose list of HPAs changes with it.
    hpas: Option<(String, Vec<TargetHpas>)>,
}

/// A target's kind and name, and the HPAs targeting it.
type TargetHpas = (String, String, Vec<ObjectId>);

impl<'a> Overlay<'a> {
    /// The index unchanged.
    pub fn new(base: &'a Index) -> Overlay<'a> {
        Overlay { base, workload: None, pdbs: None, vpas: None, hpas: None }
    }

    /// With a workload (of any scalable kind) substituted.
    pub fn with_workload(mut self, workload: &'a Workload) -> Self {
        self.workload = Some(workload);
        self
    }

    /// With a PodDisruptionBudget substituted.
    pub fn with_pdb(mut self, pdb: Pdb) -> Self {
        let ns = pdb.id.namespace.clone();
        let mut list: Vec<Pdb> = self.base.pdbs(&ns).iter().filter(|p| p.id.name != pdb.id.name).cloned().collect();
        list.push(pdb);
        self.pdbs = Some((ns, list));
        self
    }

    /// With a VerticalPodAutoscaler substituted.
    pub fn with_vpa(mut self, vpa: Vpa) -> Self {
        let ns = vpa.id.namespace.clone();
        let mut list: Vec<Vpa> = self.base.vpas(&ns).iter().filter(|v| v.id.name != vpa.id.name).cloned().collect();
        list.push(vpa);
        self.vpas = Some((ns, list));
        self
    }

    /// With the HPA `id` substituted, targeting `kind`/`name` in its namespace.
    pub fn with_hpa(mut self, id: &ObjectId, kind: &str, name: &str) -> Self {
        let ns = &id.namespace;
        let mut changed = Vec::new();
        if let Some(old) = self.base.hpa(ns, &id.name) {
            let (k, n) = old.target();
            if (k, n) != (kind, name) {
                let ids: Vec<ObjectId> =
                    self.base.hpas_targeting(ns, k, n).iter().filter(|i| i.name != id.name).cloned().collect();
                changed.push((k.to_string(), n.to_string(), ids));
            }
        }
        let mut ids: Vec<ObjectId> =
            self.base.hpas_targeting(ns, kind, name).iter().filter(|i| i.name != id.name).cloned().collect();
        let at = ids.partition_point(|i| i.name < id.name);
        ids.insert(at, id.clone());
        changed.push((kind.to_string(), name.to_string(), ids));
        self.hpas = Some((ns.clone(), changed));
        self
    }
}

impl Objects for Overlay<'_> {
    fn workload(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        match self.workload {
            Some(w) if w.id.kind == kind && w.id.namespace == namespace && w.id.name == name => Some(w),
            _ => self.base.workload(kind, namespace, name),
        }
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        self.base.limit_ranges(namespace)
    }

    fn workload_any_case(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        match self.workload {
            Some(w) if w.id.kind.eq_ignore_ascii_case(kind) && w.id.namespace == namespace && w.id.name == name => {
                Some(w)
            }
            _ => self.base.workload_any_case(kind, namespace, name),
        }
    }

    fn pdbs(&self, namespace: &str) -> &[Pdb] {
        match &self.pdbs {
            Some((ns, list)) if ns == namespace => list,
            _ => self.base.pdbs(namespace),
        }
    }

    fn vpas(&self, namespace: &str) -> &[Vpa] {
        match &self.vpas {
            Some((ns, list)) if ns == namespace => list,
            _ => self.base.vpas(namespace),
        }
    }

    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject] {
        self.base.scaled_objects(namespace)
    }

    fn hpas_targeting(&self, namespace: &str, kind: &str, name: &str) -> &[ObjectId] {
        if let Some((ns, changed)) = &self.hpas
            && ns == namespace
            && let Some((_, _, ids)) = changed.iter().find(|(k, n, _)| k == kind && n == name)
        {
            return ids;
        }
        self.base.hpas_targeting(namespace, kind, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn put(index: &mut Index, kind: Kind, object: serde_json::Value) {
        let object: DynamicObject = serde_json::from_value(object).unwrap();
        index.upsert(entry(&kind, object).unwrap());
    }

    fn hpa(name: &str, target: &str) -> serde_json::Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
                "minReplicas": 1, "maxReplicas": 5}})
    }

    #[test]
    fn the_index_answers_by_namespace_and_target() {
        let mut index = Index::default();
        put(&mut index, kinds::HPA, hpa("b", "web"));
        put(&mut index, kinds::HPA, hpa("a", "web"));
        put(
            &mut index,
            kinds::DEPLOYMENT,
            json!({"metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app"}]}}}}),
        );
        let names = |ids: &[ObjectId]| ids.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(index.hpas_targeting("shop", "Deployment", "web")), ["a", "b"]);
        assert!(index.workload("Deployment", "shop", "web").is_some());
        assert!(index.workload_any_case("deployment", "shop", "web").is_some());
        assert_eq!(index.count(&kinds::DEPLOYMENT), 1);
        assert_eq!(index.count(&kinds::HPA), 2);

        // An HPA moving to another target leaves the first list.
        put(&mut index, kinds::HPA, hpa("b", "api"));
        assert_eq!(names(index.hpas_targeting("shop", "Deployment", "web")), ["a"]);
        assert_eq!(names(index.hpas_targeting("shop", "Deployment", "api")), ["b"]);

        // The overlay shows the write as it would be stored.
        let id = ObjectId {
            api_version: "autoscaling/v2".into(),
            kind: "HorizontalPodAutoscaler".into(),
            namespace: "shop".into(),
            name: "b".into(),
        };
        let overlay = Overlay::new(&index).with_hpa(&id, "Deployment", "web");
        assert_eq!(names(overlay.hpas_targeting("shop", "Deployment", "web")), ["a", "b"]);
        assert!(overlay.hpas_targeting("shop", "Deployment", "api").is_empty());

        index.remove(&kinds::DEPLOYMENT, "shop", "web");
        assert!(index.workload("Deployment", "shop", "web").is_none());
        index.replace(&kinds::HPA, Vec::new());
        assert_eq!(index.count(&kinds::HPA), 0);
        assert!(index.hpas_targeting("shop", "Deployment", "api").is_empty());
    }
}
