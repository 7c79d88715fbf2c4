//! The context cache: watches of exactly what the cross-object rules read (scale targets,
//! PodDisruptionBudgets, VPAs, KEDA ScaledObjects, LimitRanges, HPAs), each object stored
//! trimmed to hpa-core's plain values as it arrives ([`crate::inventory::trim_live`], the one
//! place live objects are trimmed), in an [`Index`]: hpa-core's [`ObjectIndex`] (the one
//! implementation of [`Objects`], which the linter builds too) with what only the cache keeps
//! (each HPA as admitted, the HPAs left out).
//!
//! Each kind is followed by kube-runtime's `watcher` (list with `limit`/`continue`, then watch
//! from the list's resourceVersion with bookmarks; a `410 Gone` relists, errors back off for
//! at most 2.5 s, `WatchBackoff`; an answer that names its wait, a 429 or 5xx with
//! `Retry-After`, is first asked again after it, as client-go does: `RetryAfterPolicy` in
//! `connect`), whose events are applied to the index as they come: a
//! list (the first or a relist after `410 Gone`) page by page, each object trimmed as it
//! arrives and put in place of its previous state, and at `InitDone` the objects the list no
//! longer had removed (`Relist`). kube-runtime's reflector buffers a whole relist and swaps it
//! in at `InitDone`: two copies of the kind at once, which for every kind relisting together
//! (an API server restarted) was half the cache again on top of it. Here a reader sees each
//! object in its previous or its listed state, never neither. The store is an index rather than a reflector `Store<K>`
//! because the rules ask by namespace and by target (`Objects`), never by key, and keep
//! hpa-core's trimmed values rather than whole objects.
//!
//! Optional CRDs (Argo Rollouts, VPA, KEDA) are watched only when discovery says they are
//! served, re-checked every [`CacheOptions::recheck_interval`], and at once when the
//! CustomResourceDefinitions the cache watches show one installed or removed. A kind RBAC refuses (403) is
//! logged once (until the answer changes), skipped (asked again at the next re-check with one
//! small list, before its watcher starts) and reported in [`WatchStatus`]. An optional kind whose
//! LIST or watch answers 404 while discovery serves it (its CRD removed after discovery) is
//! logged once in `hpa-lint cluster`'s words, its objects dropped, [`Phase::NotFound`] (absent to
//! readiness, freshness and metrics) until the answer
//! changes (asked again the same way), and not served ([`ContextCache::not_served`]) once the
//! CRDs the cache watches hold none defining it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hpa_core::api::{Decoded, Strictness};
use hpa_core::check::{self, Admitted};
use hpa_core::features::FeatureGates;
use hpa_core::rules::Ignore;
use hpa_core::rules::index::{self, HpaOrder, ObjectIndex, Table};
use hpa_core::rules::objects::{
    CustomResourceDefinition, LimitRange, ObjectId, Objects, Pdb, RuntimeClass, ScaledObject, Vpa, Workload,
    WorldSource, limit_range_from_json,
};
use kube::Client;
use kube::api::{Api, ApiResource, ListParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use tokio::task::{AbortHandle, JoinSet};

use crate::connect::Cluster;
use crate::discovery::{self, Served};
use crate::inventory::{LiveHpa, Trimmed, ignored_notes, live_namespace, trim_live};
use crate::kinds::{self, PAGE_SIZE, ResourceKind};
use crate::object::LiveObject;

mod heartbeat;

/// The kinds the cache watches: what `hpa-lint cluster` reads (HPAs and every kind the
/// cross-object rules read).
pub const WATCHED: [ResourceKind; 12] = crate::inventory::READ_KINDS;

/// How the cache runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheOptions {
    /// How often discovery is asked again whether the optional CRDs are served, and refused
    /// kinds are tried again.
    pub recheck_interval: Duration,
    /// How an HPA is admitted through hpa-core's front door when its event arrives
    /// ([`CachedHpa::admit`]): the release and feature gates of the admission that reads the
    /// cache. Its rules are not run.
    pub admission: check::Options,
    /// The bound the readers pass to [`ContextCache::freshness`]: each watch asks the API server
    /// to end it after half of it ([`CacheOptions::watch_timeout`]), so that a healthy watch of
    /// a quiet kind is heard from well within it.
    pub stale_after: Duration,
}

impl CacheOptions {
    /// The front door's options for objects as the API server stores them: already defaulted,
    /// decoded leniently (the API server may be newer than this build: an unknown field is
    /// version skew), in a cluster with these gates; no rule runs.
    pub fn admission_for(gates: FeatureGates) -> check::Options {
        let mut opts = check::Options::verdict_only(gates);
        opts.request =
            check::Request { apply_defaults: false, default_namespace: None, strictness: Strictness::Lenient };
        opts
    }
}

impl CacheOptions {
    /// The `timeoutSeconds` each watch asks for: half of [`CacheOptions::stale_after`], at
    /// least 1 s, at most kube-runtime's default of 290 s. kube-apiserver sends a bookmark 2 s
    /// before a watch's deadline and about every minute (`cacheWatcher.nextBookmarkTime`,
    /// `k8s.io/apiserver/pkg/storage/cacher`), then ends it; the watcher starts the next one
    /// from the bookmark's resourceVersion (no relist). Each kind is so heard from (a bookmark,
    /// a new watch) at least every half bound, events or not: one watch request per kind per
    /// half bound (the default 30 s: 7 to 10 kinds, under one request a second).
    pub fn watch_timeout(&self) -> u32 {
        u32::try_from(self.stale_after.as_secs() / 2).unwrap_or(u32::MAX).clamp(1, 290)
    }
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            recheck_interval: Duration::from_secs(300),
            admission: CacheOptions::admission_for(FeatureGates::default()),
            stale_after: Duration::from_secs(30),
        }
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
    /// An optional CRD that is not installed: discovery does not serve it.
    Absent,
    /// An optional kind discovery serves whose own LIST or watch answered 404 (its CRD removed
    /// after discovery, or discovery lagging its removal): nothing to watch, as [`Phase::Absent`],
    /// until the answer changes; each re-check asks with one small list before its watcher
    /// starts.
    NotFound,
}

impl Phase {
    /// `syncing`, `synced`, `forbidden`, `absent` or `not-found`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Syncing => "syncing",
            Phase::Synced => "synced",
            Phase::Forbidden => "forbidden",
            Phase::Absent => "absent",
            Phase::NotFound => "not-found",
        }
    }

    /// Whether the kind is not served (by discovery, or by its own LIST): none of its objects
    /// exists.
    pub fn unserved(self) -> bool {
        matches!(self, Phase::Absent | Phase::NotFound)
    }
}

/// One watch, as `/metrics` and readiness see it.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchStatus {
    /// The kind watched.
    pub kind: ResourceKind,
    /// Where it stands.
    pub phase: Phase,
    /// Whether it has listed at least once (its objects are in the index).
    pub synced: bool,
    /// Objects of the kind in the index.
    pub objects: usize,
    /// Time since the last change the watch delivered (an `ADDED`, `MODIFIED` or `DELETED`
    /// event); `None` before the first. Bookmarks, renewed watches and lists do not count: a
    /// quiet kind's grows without bound while its watch is well ([`since_heard`](Self::since_heard)).
    pub since_last_event: Option<Duration>,
    /// Time since the watch was last heard from: an event, a bookmark, a new watch answered, or
    /// the end of a list (a relist's items do not count: until it is done, the index may still
    /// hold objects the list no longer has). What [`ContextCache::freshness`] bounds.
    pub since_heard: Option<Duration>,
    /// How long the watch has been failing (unreachable server, errors), when it is.
    pub broken_for: Option<Duration>,
    /// The last error, while broken or refused.
    pub error: Option<String>,
    /// HPAs left out of the cache because hpa-core cannot read them, by reason
    /// ([`LeftOut::reason`]); empty for other kinds.
    pub left_out: Vec<(&'static str, usize)>,
    /// HPAs in the cache with fields the selected release's types do not have (ignored, as
    /// that release's controller ignores them: [`CachedHpa::ignored`]); 0 for other kinds.
    pub ignored_fields: usize,
}

/// What one watch amounts to, for `/metrics` and alerts: exactly one at a time
/// ([`WatchStatus::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// An optional CRD that is not installed: nothing to watch, nothing missing.
    Absent,
    /// RBAC refuses to list or watch it: its objects are missing.
    Refused,
    /// Listing, for the first time or again (a relist in progress), and not failing.
    Syncing,
    /// Listed and heard from within the bound.
    Synced,
    /// Failing (unreachable server, errors), for however long.
    Broken,
    /// Listed, not failing, but silent for longer than the bound (a hung API server).
    Stale,
}

impl State {
    /// Every state, in the order of the `/metrics` series.
    pub const ALL: [State; 6] =
        [State::Absent, State::Refused, State::Syncing, State::Synced, State::Broken, State::Stale];

    /// `absent`, `refused`, `syncing`, `synced`, `broken` or `stale` (metrics label values).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Absent => "absent",
            State::Refused => "refused",
            State::Syncing => "syncing",
            State::Synced => "synced",
            State::Broken => "broken",
            State::Stale => "stale",
        }
    }
}

impl WatchStatus {
    /// Its [`State`], with `stale_after` the bound of [`ContextCache::freshness`]: absent and
    /// refused first (no watch runs), then broken (a failure now, even within the bound), then
    /// syncing (a list, first or again), then stale (silent past the bound), else synced.
    pub fn state(&self, stale_after: Duration) -> State {
        match self.phase {
            Phase::Absent | Phase::NotFound => State::Absent,
            Phase::Forbidden => State::Refused,
            _ if self.broken_for.is_some() => State::Broken,
            Phase::Syncing => State::Syncing,
            _ if !self.synced => State::Syncing,
            _ if self.since_heard.is_some_and(|d| d > stale_after) => State::Stale,
            Phase::Synced => State::Synced,
        }
    }
}

/// Whether the cache may be trusted for an admission decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// Every watch needed has synced and none has been broken longer than the bound.
    Fresh,
    /// The view is stale or incomplete; the sentence says why.
    Stale(String),
}

/// A running context cache. Dropping it stops its watches (and its thread).
#[derive(Debug)]
pub struct ContextCache {
    shared: Arc<CacheShared>,
    /// Dropped with the cache: the cache's thread then stops its watches and ends.
    _stop: tokio::sync::oneshot::Sender<()>,
}

#[derive(Debug)]
struct CacheShared {
    index: RwLock<Index>,
    watches: Mutex<BTreeMap<ResourceKind, WatchState>>,
    /// Discovery of the optional kinds has answered once (until then, readiness waits).
    discovered: Mutex<bool>,
    /// How cached HPAs are admitted.
    admission: check::Options,
    /// The reasons an HPA was left out for that have been logged at warn (once each).
    warned: Mutex<HashSet<&'static str>>,
    /// The notes on ignored fields that have been logged (once each: an HPA's relists and
    /// updates that change nothing of them log nothing more). Bounded: past [`NOTED_MAX`]
    /// notes it starts again (a note may then be logged once more), so that HPAs created and
    /// deleted for months cannot grow it.
    noted: Mutex<HashSet<String>>,
    /// Wakes the supervisor for a re-check before its interval is over: a
    /// CustomResourceDefinition event disagreed with what runs (an optional kind's CRD installed
    /// while its watch is absent, or removed while it runs: [`CacheShared::crds_changed`]).
    recheck: tokio::sync::Notify,
}

#[derive(Debug, Clone)]
struct WatchState {
    phase: Phase,
    synced: bool,
    /// A list has started again after the kind had synced (`Init` .. `InitDone`).
    relisting: bool,
    /// When the watch was last heard from ([`WatchStatus::since_heard`]).
    last_heard: Option<Instant>,
    /// When it last delivered a change ([`WatchStatus::since_last_event`]).
    last_change: Option<Instant>,
    broken_since: Option<Instant>,
    error: Option<String>,
}

impl WatchState {
    /// Whether the kind is asked with one small list before its watcher starts again, keeping its
    /// phase meanwhile: RBAC refused it, or its LIST answered 404 while discovery served it.
    fn asked_again_first(&self) -> bool {
        matches!(self.phase, Phase::Forbidden | Phase::NotFound)
    }

    /// Whether no watch of the kind runs: refused, or not served (by discovery or by its LIST).
    fn skipped(&self) -> bool {
        self.phase == Phase::Forbidden || self.phase.unserved()
    }
}

impl ContextCache {
    /// Starts watching. Returns at once; see [`ContextCache::synced`] and
    /// [`ContextCache::wait_synced`].
    ///
    /// The watches run on a thread of their own (`hpa-context-cache`, with a single-threaded
    /// tokio runtime), not on the caller's runtime: decoding, trimming and admitting events and
    /// building relists never take a worker thread from admission, and the cache's long-lived
    /// objects are allocated by that thread, apart from the short-lived ones of the request
    /// path (with both on the same threads, the allocator's per-request cost rose by about
    /// 4 µs, `bench/webhook/run.sh`). Should the thread not start, the error is logged and the
    /// cache never syncs (the server then checks HPAs alone, and says so).
    pub fn start(cluster: Cluster, options: CacheOptions) -> ContextCache {
        let shared = Arc::new(CacheShared::new(options.admission.clone()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let watching = shared.clone();
        let spawned = std::thread::Builder::new().name("hpa-context-cache".into()).spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(error) => {
                    tracing::error!(%error, "the context cache could not start its runtime: cross-object checks are off");
                    return;
                }
            };
            runtime.block_on(async move {
                // The watches' own client, which hears them (`heartbeat`); discovery uses the
                // cluster's. Built on this runtime (its connection pool's tasks run here).
                let client = match cluster.client_builder() {
                    Ok(builder) => builder.with_layer(&heartbeat::HeartbeatLayer::new(watching.clone())).build(),
                    Err(error) => {
                        tracing::error!(%error, "the context cache could not build its client: cross-object checks are off");
                        return;
                    }
                };
                tokio::select! {
                    () = supervise(watching, cluster, client, options) => {}
                    _ = stopped => {}
                }
            });
        });
        if let Err(error) = spawned {
            tracing::error!(%error, "the context cache could not start its thread: cross-object checks are off");
        }
        ContextCache { shared, _stop: stop }
    }

    /// The index, for reading (writers wait while it is held: keep it short).
    pub fn read(&self) -> RwLockReadGuard<'_, Index> {
        self.shared.read()
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
                    since_last_event: w.last_change.map(|t| now.saturating_duration_since(t)),
                    since_heard: w.last_heard.map(|t| now.saturating_duration_since(t)),
                    broken_for: w.broken_since.map(|t| now.saturating_duration_since(t)),
                    error: w.error.clone(),
                    left_out: if *kind == kinds::HPA { index.left_out() } else { Vec::new() },
                    ignored_fields: if *kind == kinds::HPA { index.ignored_fields() } else { 0 },
                })
            })
            .collect()
    }

    /// Whether discovery has answered and every watch not skipped has listed once.
    pub fn synced(&self) -> bool {
        *lock(&self.shared.discovered) && self.shared.watches().values().all(|w| w.synced || w.skipped())
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

    /// Whether the view may be trusted: every watch has listed, none has been broken for
    /// longer than `stale_after`, and each has been heard from within it (an event, a
    /// bookmark, a new watch: [`WatchStatus::since_heard`]). The last holds whatever way
    /// the API server fails: one that hangs with its sockets open (stopped, overloaded) makes no
    /// request fail, it only stops talking. Each watch asks for a `timeoutSeconds` of half the
    /// bound ([`CacheOptions::watch_timeout`]), so that a quiet kind is heard from in time.
    /// A kind RBAC refuses leaves it fresh ([`ContextCache::refused`]): a rule that would
    /// conclude from its absence asks whether the view holds it ([`Reads`]: HPA201 concludes
    /// nothing from a LimitRange or RuntimeClass it cannot see), and the answer says the check
    /// was partial.
    pub fn freshness(&self, stale_after: Duration) -> Freshness {
        if !*lock(&self.shared.discovered) {
            return Freshness::Stale("the cluster cache has not synced yet".into());
        }
        let now = Instant::now();
        let watches = self.shared.watches();
        for (kind, w) in watches.iter() {
            if w.skipped() {
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
            if let Some(heard) = w.last_heard {
                let silent = now.saturating_duration_since(heard);
                if silent > stale_after {
                    return Freshness::Stale(format!(
                        "the watch of {} has been silent for {}s",
                        kind.resource(),
                        silent.as_secs()
                    ));
                }
            }
        }
        Freshness::Fresh
    }

    /// Whether optional `kind` is not served, so that none of its objects can exist: discovery
    /// (or a watch's 404) found it absent, and the CustomResourceDefinitions the cache watches
    /// (listed, RBAC allowing) hold none defining it: a CRD installed that discovery has not
    /// seen served yet (its events wake the re-check) makes the answer no. `false` for a
    /// built-in kind, and whenever either is unknown.
    pub fn not_served(&self, kind: &ResourceKind) -> bool {
        if !kind.optional || !self.shared.watches().get(kind).is_some_and(|w| w.phase.unserved()) {
            return false;
        }
        let crds_listed =
            self.shared.watches().get(&kinds::CRD).is_some_and(|w| w.synced && w.phase != Phase::Forbidden);
        crds_listed && self.read().objects().custom_resource_definition(kind.group, kind.kind).is_none()
    }

    /// The kinds RBAC refuses to list or watch (each skipped until the next re-check), in
    /// [`WATCHED`] order. The view stays fresh without them ([`ContextCache::freshness`]); a rule
    /// that reads one sees none of its objects, and one that would conclude from their absence
    /// does not ([`Reads`]).
    /// An optional CRD that is not installed is not refused: it has no objects to miss.
    pub fn refused(&self) -> Vec<ResourceKind> {
        let watches = self.shared.watches();
        WATCHED.iter().filter(|k| watches.get(k).is_some_and(|w| w.phase == Phase::Forbidden)).copied().collect()
    }
}

impl CacheShared {
    fn new(admission: check::Options) -> CacheShared {
        CacheShared {
            index: RwLock::new(Index::default()),
            watches: Mutex::new(BTreeMap::new()),
            discovered: Mutex::new(false),
            admission,
            warned: Mutex::new(HashSet::new()),
            noted: Mutex::new(HashSet::new()),
            recheck: tokio::sync::Notify::new(),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Index> {
        self.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn watches(&self) -> MutexGuard<'_, BTreeMap<ResourceKind, WatchState>> {
        lock(&self.watches)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Index> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// A watch of `kind` was answered (`200`): the server was reached and serves it now (a
    /// watch renewed after an error, with no event since, recovers here).
    fn watch_answered(&self, kind: ResourceKind) {
        self.update(kind, |w| {
            if w.relisting {
                return;
            }
            if w.broken_since.take().is_some() {
                tracing::info!(kind = %kind.resource(), "watch recovered");
            }
            w.error = None;
            w.last_heard = Some(Instant::now());
        });
    }

    /// A watch of `kind` delivered something (an event, a bookmark).
    fn heard(&self, kind: ResourceKind) {
        self.update(kind, |w| {
            if !w.relisting {
                w.last_heard = Some(Instant::now());
            }
        });
    }

    /// After a change of the CustomResourceDefinitions: wakes the supervisor for a re-check
    /// when an optional kind's CRD is there while the kind is not watched (absent), or gone
    /// while it is. A CRD just created is not served until it is established (a later
    /// MODIFIED event, which asks again).
    fn crds_changed(&self) {
        // The watches' lock is not taken with the index's read lock held.
        let absent: Vec<(ResourceKind, bool)> = {
            let watches = self.watches();
            WATCHED.iter().filter(|k| k.optional).filter_map(|k| Some((*k, watches.get(k)?.phase.unserved()))).collect()
        };
        let index = self.read();
        let disagrees = absent.iter().any(|(kind, absent)| {
            index.objects().custom_resource_definition(kind.group, kind.kind).is_some() == *absent
        });
        drop(index);
        if disagrees {
            self.recheck.notify_one();
        }
    }

    fn update(&self, kind: ResourceKind, f: impl FnOnce(&mut WatchState)) {
        let mut watches = self.watches();
        let state = watches.entry(kind).or_insert(WatchState {
            phase: Phase::Syncing,
            synced: false,
            relisting: false,
            last_heard: None,
            last_change: None,
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
async fn supervise(shared: Arc<CacheShared>, cluster: Cluster, client: Client, options: CacheOptions) {
    let watch_timeout = options.watch_timeout();
    let mut tasks: JoinSet<()> = JoinSet::new();
    let mut running: HashMap<ResourceKind, AbortHandle> = HashMap::new();
    let optional: Vec<ResourceKind> = WATCHED.iter().copied().filter(|k| k.optional).collect();
    let mut ticker = tokio::time::interval(options.recheck_interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        // Every interval, and as soon as the CRDs the cache watches say an optional kind came
        // or went: Argo Rollouts installed after start is watched within a second of its CRD
        // being established, not at the next interval.
        tokio::select! {
            _ = ticker.tick() => {}
            () = shared.recheck.notified() => {}
        }
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
                // the refusal is logged once; so does one whose LIST answered 404 while discovery
                // still serves it (neither readiness nor the view's freshness waits for it).
                shared.update(kind, |w| {
                    if !w.asked_again_first() {
                        w.phase = Phase::Syncing;
                    }
                    w.synced = false;
                });
                let handle =
                    tasks.spawn(watch_kind(shared.clone(), client.clone(), kind, watch_timeout, cluster.timeout()));
                running.insert(kind, handle);
            } else if !wanted {
                // Said once, as `hpa-lint cluster` notes it: not again when its watch's 404 said it
                // already (the CRD removed, then discovery catching up).
                let said = shared.watches().get(&kind).is_some_and(|w| w.phase.unserved());
                if let Some(handle) = running.remove(&kind) {
                    handle.abort();
                    if !said {
                        tracing::info!(kind = %kind.resource(), "no longer served: not watched");
                    }
                } else if !said {
                    tracing::info!(kind = %kind.resource(), "{}", crate::discovery::not_served(&kind));
                }
                shared.clear(&kind);
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

/// Follows one kind: kube-runtime's watcher (bookmarks asked for, each watch ended by the
/// server after `watch_timeout` seconds), its events applied to the index.
///
/// A kind RBAC refused is asked again with one small list (`limit=1`, within `timeout`) before
/// its watcher starts: while the answer is still 403, nothing is logged and the watcher does not
/// start. kube-runtime logs each 403 it meets at warn (`watch list error with 403`) before
/// returning it, so a refusal re-checked through the watcher was logged at every re-check; now
/// it is logged once per kind until the answer changes (once by kube-runtime, once here). An
/// optional kind whose LIST answered 404 while discovery served it is asked the same way, while
/// the answer is still 404: it was logged at every re-check, and went syncing (the view stale, readiness
/// lost) for as long as each new watcher took to meet the 404 again.
async fn watch_kind(
    shared: Arc<CacheShared>,
    client: Client,
    kind: ResourceKind,
    watch_timeout: u32,
    timeout: Duration,
) {
    let resource = ApiResource {
        group: kind.group.to_string(),
        version: kind.version.to_string(),
        api_version: kind.api_version(),
        kind: kind.kind.to_string(),
        plural: kind.plural.to_string(),
    };
    // Objects read as client-go reads them (a lone surrogate in `fieldsV1` does not refuse a
    // whole page): `LiveObject`.
    let api: Api<LiveObject> = Api::all_with(client, &resource);
    // The answer that made the kind skipped last time (403, or 404 for an optional kind).
    let skipped = shared.watches().get(&kind).and_then(|w| match w.phase {
        Phase::Forbidden => Some(403),
        Phase::NotFound => Some(404),
        _ => None,
    });
    if let Some(code) = skipped {
        let probe = tokio::time::timeout(timeout, api.list(&ListParams::default().limit(1))).await;
        if let Ok(Err(kube::Error::Api(status))) = probe
            && status.code == code
        {
            tracing::debug!(kind = %kind.resource(), code, "still skipped");
            return;
        }
        // Allowed or served now, or another answer (a failure, no answer in time): the watcher
        // reports it.
    }
    let config = watcher::Config::default().page_size(PAGE_SIZE).timeout(watch_timeout);
    debug_assert!(config.bookmarks, "the watches ask for bookmarks (allowWatchBookmarks)");
    let mut stream = std::pin::pin!(watcher::watcher(api, config).backoff(WatchBackoff::default()));
    let mut relist = Relist::default();
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                let code = api_code(&error);
                let message = error.to_string();
                if code == Some(403) || (code == Some(404) && kind.optional) {
                    let phase = if code == Some(403) { Phase::Forbidden } else { Phase::NotFound };
                    let was = shared.watches().get(&kind).map(|w| w.phase);
                    // An optional kind not served (its CRD not installed) is said as `hpa-lint
                    // cluster` notes it, at info: nothing is wrong. A refusal is a warning.
                    if !was.is_some_and(Phase::unserved) && phase == Phase::NotFound {
                        tracing::info!(kind = %kind.resource(), error = %message, "{}", crate::discovery::not_served(&kind));
                    } else if was != Some(phase) {
                        tracing::warn!(kind = %kind.resource(), error = %message, "{}: skipped", phase.as_str());
                    }
                    shared.clear(&kind);
                    shared.update(kind, |w| {
                        w.phase = phase;
                        w.broken_since = None;
                        w.error = Some(message);
                    });
                    return;
                }
                // `410 Gone` (`Expired`): the watch's resourceVersion was compacted away (a
                // restarted kube-apiserver, a watch renewed late). Nothing failed: the watcher
                // relists (after its backoff), as client-go's reflector does, which logs an
                // expired watch at V(4) (`DefaultWatchErrorHandler`). The kind is relisting from
                // here, as from the relist's `Init`: not heard from until the list is done
                // (the view goes stale past the bound if it never is), not broken.
                if code == Some(410) {
                    tracing::debug!(kind = %kind.resource(), error = %message, "watch expired; relisting");
                    shared.update(kind, |w| {
                        w.relisting = w.synced;
                        if w.phase == Phase::Synced {
                            w.phase = Phase::Syncing;
                        }
                    });
                    continue;
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
        shared.update(kind, |w| match &event {
            // kube-runtime emits `Init` before it asks anything (and again after each failed
            // list): the server was not reached. A relist of a kind already synced is under way:
            // until its `InitDone`, the index holds the previous list and the watch is not heard
            // from ([`ContextCache::freshness`] then goes stale after the bound).
            Event::Init => {
                w.relisting = w.synced;
                if w.phase == Phase::Synced {
                    w.phase = Phase::Syncing;
                }
            }
            // What only an answer of the server brings: the watch works again.
            Event::InitApply(_) | Event::InitDone | Event::Apply(_) | Event::Delete(_) => {
                if w.broken_since.take().is_some() {
                    tracing::info!(kind = %kind.resource(), "watch recovered");
                }
                w.error = None;
                if !matches!(event, Event::InitApply(_)) {
                    w.relisting = false;
                    w.last_heard = Some(Instant::now());
                }
                if matches!(event, Event::Apply(_) | Event::Delete(_)) {
                    w.last_change = w.last_heard;
                }
            }
        });
        let changed = matches!(event, Event::Apply(_) | Event::Delete(_) | Event::InitDone);
        shared.apply(kind, event, &mut relist);
        if kind == kinds::CRD && changed {
            shared.crds_changed();
        }
    }
}

/// The first delay of [`WatchBackoff`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest delay of [`WatchBackoff`] before its jitter.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How long a watch waits after an error before it asks again: 0.5 s, doubled at each error in a
/// row up to 2 s, each delay plus a jitter of up to a quarter of it (so that the kinds and the
/// replicas of an API server that restarts do not all ask at once); back to 0.5 s at any event
/// (kube-runtime's `StreamBackoff` resets it on every `Ok`, `Init` included).
///
/// kube-runtime's `DefaultBackoff` (client-go's reflector: 0.8 s doubling to 30 s) kept what an
/// outage had grown: kube-apiserver back after 20 s, each watch's first answer is `410 Gone` (an
/// error event: nothing was `Ok` since the outage began), and the relist waited up to 30 s more,
/// the view stale all along. Bounded at 2.5 s, the relist starts within that of the 410.
#[derive(Debug)]
struct WatchBackoff {
    /// The next delay before its jitter.
    next: Duration,
    /// Hashes a counter into the jitter: a random key per backoff (`RandomState`).
    jitter: std::hash::RandomState,
    /// Errors so far, the jitter's input.
    errors: u64,
}

impl Default for WatchBackoff {
    fn default() -> Self {
        WatchBackoff { next: FIRST_BACKOFF, jitter: std::hash::RandomState::new(), errors: 0 }
    }
}

impl Iterator for WatchBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        use std::hash::BuildHasher as _;
        let delay = self.next;
        self.next = (delay * 2).min(MAX_BACKOFF);
        self.errors += 1;
        let share = u32::try_from(self.jitter.hash_one(self.errors) % 1024).unwrap_or(0);
        Some(delay + delay * share / 4096)
    }
}

impl kube::runtime::utils::Backoff for WatchBackoff {
    fn reset(&mut self) {
        self.next = FIRST_BACKOFF;
    }
}

/// A list under way (`Init` .. `InitDone`) of one kind: the objects listed so far, by namespace
/// and name, and those of the current page not yet put in the index.
#[derive(Debug, Default)]
pub(crate) struct Relist {
    /// What the list has had so far: at `InitDone`, any other object of the kind is gone.
    seen: HashMap<String, HashSet<String>>,
    /// Listed objects not yet in the index, put there a page ([`PAGE_SIZE`]) at a time (one
    /// write lock a page): an entry, or the name of an object not kept (what it replaces goes).
    page: Vec<Result<CachedObject, (String, String)>>,
}

impl CacheShared {
    /// Applies one watcher event of `kind` to the index. A list (`Init` .. `InitDone`) goes in a
    /// page at a time, each object in place of its previous state; at `InitDone` the objects
    /// of the kind the list did not have are removed ([`Relist`]). No second copy of the kind is
    /// ever held.
    fn apply(&self, kind: ResourceKind, event: Event<LiveObject>, relist: &mut Relist) {
        match event {
            Event::Init => {
                relist.seen.clear();
                relist.page.clear();
            }
            Event::InitApply(object) => {
                let namespace = live_namespace(&kind, object.metadata.namespace.as_deref()).to_string();
                let name = object.metadata.name.clone().unwrap_or_default();
                relist.seen.entry(namespace.clone()).or_default().insert(name.clone());
                relist.page.push(self.entry(&kind, object).ok_or((namespace, name)));
                if relist.page.len() >= PAGE_SIZE as usize {
                    self.put_page(&kind, &mut relist.page);
                }
            }
            Event::InitDone => {
                self.put_page(&kind, &mut relist.page);
                let seen = std::mem::take(&mut relist.seen);
                let gone: Vec<(String, String)> = {
                    let index = self.read();
                    let listed = |ns: &str, name: &str| seen.get(ns).is_some_and(|names| names.contains(name));
                    let mut gone: Vec<(String, String)> = index
                        .objects
                        .names(table(&kind))
                        .into_iter()
                        .filter(|(ns, name)| !listed(ns, name))
                        .map(|(ns, name)| (ns.to_string(), name.to_string()))
                        .collect();
                    if kind == kinds::HPA {
                        gone.extend(index.left_out.keys().filter(|(ns, name)| !listed(ns, name)).cloned());
                    }
                    gone
                };
                drop(seen);
                if !gone.is_empty() {
                    let mut index = self.write();
                    for (namespace, name) in &gone {
                        index.remove(&kind, namespace, name);
                    }
                }
                relist.page = Vec::new();
                self.update(kind, |w| {
                    if !w.synced {
                        tracing::info!(kind = %kind.resource(), "synced");
                    }
                    w.synced = true;
                    w.phase = Phase::Synced;
                });
            }
            Event::Apply(object) => {
                let (namespace, name) = (object.metadata.namespace.clone(), object.metadata.name.clone());
                match self.entry(&kind, object) {
                    Some(e) => self.write().upsert(e),
                    // Not kept: nor is what it replaces.
                    None => self.write().remove(
                        &kind,
                        live_namespace(&kind, namespace.as_deref()),
                        name.as_deref().unwrap_or_default(),
                    ),
                }
            }
            Event::Delete(object) => {
                let namespace = live_namespace(&kind, object.metadata.namespace.as_deref());
                let name = object.metadata.name.as_deref().unwrap_or_default();
                self.write().remove(&kind, namespace, name);
            }
        }
    }

    /// Puts a list's page in the index, under one write lock.
    fn put_page(&self, kind: &ResourceKind, page: &mut Vec<Result<CachedObject, (String, String)>>) {
        if page.is_empty() {
            return;
        }
        let mut index = self.write();
        for e in page.drain(..) {
            match e {
                Ok(e) => index.upsert(e),
                Err((namespace, name)) => index.remove(kind, &namespace, &name),
            }
        }
    }

    /// Drops every object of `kind` (outside the lock).
    fn clear(&self, kind: &ResourceKind) {
        let mut old = Index::default();
        self.write().swap_kind(kind, &mut old);
        drop(old);
    }

    /// An object of a watched kind as the index keeps it. An HPA hpa-core cannot read is kept
    /// as left out (counted in [`WatchStatus::left_out`]; logged at warn once per reason). One
    /// with fields the selected release does not have is kept (counted in
    /// [`WatchStatus::ignored_fields`]; each note logged at warn once). An
    /// object of another kind that `serde_json` cannot hold as a tree (a number past `f64`'s
    /// range) is not kept (`None`), and logged.
    fn entry(&self, kind: &ResourceKind, object: LiveObject) -> Option<CachedObject> {
        let name = object.metadata.name.clone();
        let (trimmed, ignore) = match trim_live(kind, object) {
            Ok(trimmed) => trimmed,
            Err(error) => {
                tracing::warn!(kind = %kind.resource(), name = name.as_deref().unwrap_or_default(), %error,
                    "object left out of the context cache: it cannot be read as a tree");
                return None;
            }
        };
        // The opt-outs of every other kind, kept only where there is one (an HPA keeps its own
        // in `CachedHpa::ignore`).
        let ignore = ignore.map(|i| Ignore::parse(&i)).filter(|i| !i.is_empty()).map(Box::new);
        let object = match trimmed {
            Trimmed::Hpa(live) => {
                return Some(match CachedHpa::admit(live, &self.admission) {
                    Ok(hpa) => {
                        if !hpa.ignored.is_empty() {
                            let mut noted = lock(&self.noted);
                            for note in &hpa.ignored {
                                if noted.len() >= NOTED_MAX {
                                    noted.clear();
                                }
                                if noted.insert(note.clone()) {
                                    tracing::warn!(hpa = %hpa.id, "{note} (counted in /metrics)");
                                }
                            }
                        }
                        CachedObject::Hpa(Arc::new(hpa))
                    }
                    Err(left_out) => {
                        if lock(&self.warned).insert(left_out.reason) {
                            tracing::warn!(hpa = %left_out.id, reason = left_out.reason, error = %left_out.error,
                            "HPA left out of the context cache: hpa-core cannot read it (its cross-object checks do not run; \
                             further HPAs left out for this reason are logged at debug and counted in /metrics)");
                        } else {
                            tracing::debug!(hpa = %left_out.id, reason = left_out.reason, error = %left_out.error,
                            "HPA left out of the context cache");
                        }
                        CachedObject::LeftOut(left_out)
                    }
                });
            }
            Trimmed::Workload(w, _) => index::IndexedObject::Workload(w),
            Trimmed::Pdb(p) => index::IndexedObject::Pdb(p),
            Trimmed::Vpa(v) => index::IndexedObject::Vpa(v),
            Trimmed::ScaledObject(s) => index::IndexedObject::ScaledObject(s),
            Trimmed::LimitRange(l) => index::IndexedObject::LimitRange(limit_range_from_json(l.id, &l.object)),
            Trimmed::RuntimeClass(r) => index::IndexedObject::RuntimeClass(r),
            Trimmed::Crd(c) => index::IndexedObject::CustomResourceDefinition(c),
        };
        Some(CachedObject::Object(object, ignore))
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

// === the index ===

/// An HPA of the cache, admitted once through hpa-core's front door when its event arrived
/// (decoded as the API server stores it, `autoscaling/v2` and defaulted, then kube-apiserver's
/// pipeline: the internal and effective forms the cross-object rules read), so that no write
/// has to admit it again.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedHpa {
    /// Which HPA.
    pub id: ObjectId,
    /// The object as admitted (as written, internal and effective forms, validation errors).
    pub admitted: Admitted,
    /// Its [`hpa_core::rules::IGNORE_ANNOTATION`], parsed once: the rules whose warnings about
    /// it the webhook leaves out.
    pub ignore: Ignore,
    /// What the lenient decode ignored, worded by [`ignored_notes`] (fields the selected
    /// release's types do not have: that release's controller ignores them); empty for nearly
    /// every HPA.
    pub ignored: Vec<String>,
    /// Whether it counts as scaling its target (`rules::counted_target`, decided as it is
    /// admitted, with its release): [`CachedHpa::target`].
    counted: bool,
}

/// Why an HPA was left out of the cache: hpa-core cannot read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Which HPA.
    pub id: ObjectId,
    /// The decode error kind (`InvalidValue`, ...; [`hpa_core::api::DecodeErrorKind::as_str`]) or
    /// `Unconvertible`: the `/metrics` label.
    pub reason: &'static str,
    /// The first error, for the log.
    pub error: String,
}

impl CachedHpa {
    /// Decodes a live HPA with hpa-core's decoder, from its text ([`LiveHpa::decode`]: no tree
    /// is built), with the strictness and release of `opts`, and admits it through the front
    /// door ([`check::check`]; its rules are not run: pass options whose rules are
    /// [`check::RuleConfig::only_errors`]) as a stored object is validated again: an UPDATE
    /// onto itself ([`LiveHpa::reapplied`]), so that what its old object already had (a field
    /// whose gate is now off) is kept as kube-apiserver keeps it. An HPA that does not decode
    /// or convert is left out (the reason). What the decode ignored is kept, worded
    /// ([`CachedHpa::ignored`]).
    pub fn admit(live: LiveHpa, opts: &check::Options) -> Result<CachedHpa, Box<LeftOut>> {
        let left_out = |reason: &'static str, error: String| Box::new(LeftOut { id: live.id.clone(), reason, error });
        let release = opts.settings.gates().version();
        let (decoded, ignored) = match live.decode(opts.request.strictness, release) {
            Ok(Decoded { value, ignored }) if ignored.is_empty() => (value, Vec::new()),
            Ok(Decoded { value, ignored }) => (value, ignored_notes(&live.key(), &ignored, release)),
            Err(errors) => {
                let first = errors.first();
                let reason = first.map_or("Unknown", |e| e.kind.as_str());
                return Err(left_out(reason, first.map(ToString::to_string).unwrap_or_default()));
            }
        };
        let ignore = Ignore::from_annotations(&decoded.metadata().annotations);
        let report = check::check(live.reapplied(Ok(decoded), None), opts);
        match report.admission {
            check::Admission::Admitted(admitted) => {
                let written = admitted.original.api_version();
                let t = &admitted.effective().spec.scale_target_ref;
                let counted = hpa_core::rules::counted_target(written.as_str(), t, release).is_some();
                Ok(CachedHpa { id: live.id.clone(), admitted, ignore, ignored, counted })
            }
            check::Admission::Unconvertible { error, .. } => Err(left_out("Unconvertible", error.to_string())),
            check::Admission::Undecodable { errors, .. } => {
                let first = errors.first();
                Err(left_out(
                    first.map_or("Unknown", |e| e.kind.as_str()),
                    first.map(ToString::to_string).unwrap_or_default(),
                ))
            }
        }
    }

    /// The API group, kind and name of the workload it counts as scaling
    /// (`rules::counted_target`, the one rule the linter and `hpa-lint cluster` index HPAs by):
    /// `spec.scaleTargetRef`'s, a built-in kind written all in lowercase as the kind it maps to
    /// (`rules::target_group_kind`; a custom one the index maps, [`Objects::mapped_kind`]), or
    /// `None` when the controller scales nothing with it (a target of a group that does not
    /// serve its kind, no kind or no name).
    pub fn target(&self) -> Option<(&str, &str, &str)> {
        let t = &self.admitted.effective().spec.scale_target_ref;
        self.counted.then(|| {
            let (group, kind) = hpa_core::rules::target_group_kind(t);
            (group, kind, t.name.as_str())
        })
    }
}

/// How many ignored-field notes the cache remembers having logged ([`CacheShared`]).
const NOTED_MAX: usize = 4096;

/// One object of a watched kind, trimmed.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "a list's page of short-lived entries; boxing would add an allocation per object stored"
)]
enum CachedObject {
    Hpa(Arc<CachedHpa>),
    LeftOut(Box<LeftOut>),
    /// Any other kind, with its `hpa-lint.dev/ignore` annotation when it has one.
    Object(index::IndexedObject, Option<Box<Ignore>>),
}

/// The cached objects: hpa-core's [`ObjectIndex`] (the [`Objects`] the rules read, HPAs listed
/// by name: a cluster has no input order) with each HPA as admitted, the HPAs hpa-core
/// cannot read, and the `hpa-lint.dev/ignore` annotation of the other objects that have one
/// ([`Index::ignore`]: a finding located on an object is left out by that object's annotation,
/// as in files and in `hpa-lint cluster`). Objects without the annotation cost nothing there.
///
/// A list goes in a page at a time, each object in place of its previous state, and removes at
/// its end what it no longer had (`Relist`): one copy of each kind, relisting or not.
#[derive(Debug)]
pub struct Index {
    objects: ObjectIndex<Arc<CachedHpa>>,
    /// HPAs hpa-core cannot read (part of the HPA table), by namespace and name.
    left_out: HashMap<(String, String), &'static str>,
    /// The parsed `hpa-lint.dev/ignore` of the objects of the other kinds that carry one, by
    /// kind (part of its table: swapped with it), then namespace and name.
    ignores: BTreeMap<&'static str, HashMap<(String, String), Ignore>>,
}

impl Default for Index {
    fn default() -> Self {
        Index { objects: ObjectIndex::new(HpaOrder::Name), left_out: HashMap::new(), ignores: BTreeMap::new() }
    }
}

/// The index's table of a watched kind.
fn table(kind: &ResourceKind) -> Table<'static> {
    match *kind {
        kinds::HPA => Table::Hpas,
        kinds::PDB => Table::Pdbs,
        kinds::VPA => Table::Vpas,
        kinds::SCALED_OBJECT => Table::ScaledObjects,
        kinds::LIMIT_RANGE => Table::LimitRanges,
        kinds::RUNTIME_CLASS => Table::RuntimeClasses,
        kinds::CRD => Table::CustomResourceDefinitions,
        _ => Table::Workloads(kind.group, kind.kind),
    }
}

impl Index {
    /// The objects the rules read.
    pub fn objects(&self) -> &ObjectIndex<Arc<CachedHpa>> {
        &self.objects
    }

    /// The HPA `namespace/name`.
    pub fn hpa(&self, namespace: &str, name: &str) -> Option<&Arc<CachedHpa>> {
        self.objects.hpa(namespace, name)
    }

    /// Every HPA of a namespace, in no particular order.
    pub fn hpas(&self, namespace: &str) -> impl Iterator<Item = &Arc<CachedHpa>> {
        self.objects.hpas(namespace)
    }

    /// The Argo Rollouts of a namespace whose `spec.workloadRef` names the workload
    /// `kind/name` of API group `group` (their pods are made from its template), by name.
    pub fn rollouts_using(&self, namespace: &str, (group, kind, name): (&str, &str, &str)) -> Vec<&Workload> {
        let mut found: Vec<&Workload> = self
            .objects
            .workloads_in(kinds::ROLLOUT.group, kinds::ROLLOUT.kind, namespace)
            .filter(|r| {
                r.workload_ref.as_ref().is_some_and(|w| {
                    w.kind == kind && w.name == name && hpa_core::rules::object_group(&w.kind, &w.api_version) == group
                })
            })
            .collect();
        found.sort_by(|a, b| a.id.name.cmp(&b.id.name));
        found
    }

    /// The rules the object `id` opts out of with its `hpa-lint.dev/ignore` annotation
    /// (`None` when it has none, or is not cached): a cached HPA's from [`CachedHpa::ignore`],
    /// any other kind's as kept when its event arrived.
    pub fn ignore(&self, id: &ObjectId) -> Option<&Ignore> {
        if id.kind == kinds::HPA.kind {
            return self.hpa(&id.namespace, &id.name).map(|h| &h.ignore).filter(|i| !i.is_empty());
        }
        let of_kind = self.ignores.get(id.kind.as_str())?;
        of_kind.get(&(id.namespace.clone(), id.name.clone()))
    }

    /// Keeps (or, with `None`, forgets) the annotation of the object `id` of a watched kind.
    fn set_ignore(&mut self, id: &ObjectId, ignore: Option<Box<Ignore>>) {
        let Some(kind) = WATCHED.iter().find(|k| k.kind == id.kind) else { return };
        match ignore {
            Some(ignore) => {
                self.ignores.entry(kind.kind).or_default().insert((id.namespace.clone(), id.name.clone()), *ignore);
            }
            None => self.forget_ignore(kind, &id.namespace, &id.name),
        }
    }

    /// Forgets the annotation of the object `namespace/name` of `kind`, if it had one.
    fn forget_ignore(&mut self, kind: &ResourceKind, namespace: &str, name: &str) {
        if let Some(of_kind) = self.ignores.get_mut(kind.kind)
            && !of_kind.is_empty()
        {
            of_kind.remove(&(namespace.to_string(), name.to_string()));
        }
    }

    /// An index of objects as the watches would store them (each trimmed, each HPA admitted
    /// with `admission`, each annotation kept): for tools and tests that hold the objects
    /// without watching them. Objects of kinds not watched are left out.
    pub fn of_objects(
        objects: impl IntoIterator<Item = (ResourceKind, serde_json::Value)>,
        admission: &check::Options,
    ) -> Index {
        let live = objects.into_iter().filter_map(|(kind, json)| Some((kind, LiveObject::from_tree(&json).ok()?)));
        Index::of_live(live, admission)
    }

    /// [`Index::of_objects`] for objects as a list or watch delivered them.
    pub fn of_live(objects: impl IntoIterator<Item = (ResourceKind, LiveObject)>, admission: &check::Options) -> Index {
        let shared = CacheShared::new(admission.clone());
        let mut index = Index::default();
        for (kind, object) in objects.into_iter().filter(|(kind, _)| WATCHED.contains(kind)) {
            if let Some(entry) = shared.entry(&kind, object) {
                index.upsert(entry);
            }
        }
        index
    }

    /// Objects of `kind` held.
    pub fn count(&self, kind: &ResourceKind) -> usize {
        self.objects.count(table(kind))
    }

    /// HPAs left out of the cache (hpa-core cannot read them), by reason, sorted.
    pub fn left_out(&self) -> Vec<(&'static str, usize)> {
        let mut by_reason: BTreeMap<&'static str, usize> = BTreeMap::new();
        for reason in self.left_out.values() {
            *by_reason.entry(reason).or_default() += 1;
        }
        by_reason.into_iter().collect()
    }

    /// Cached HPAs with fields the selected release does not have ([`CachedHpa::ignored`]),
    /// counted when asked (a metrics scrape).
    pub fn ignored_fields(&self) -> usize {
        self.objects.every_hpa().filter(|hpa| !hpa.ignored.is_empty()).count()
    }

    fn upsert(&mut self, entry: CachedObject) {
        match entry {
            CachedObject::Hpa(hpa) => {
                self.remove_hpa(&hpa.id.namespace, &hpa.id.name);
                // An HPA that counts as scaling no target (a Deployment of `extensions/v1beta1`,
                // `CachedHpa::target`) is kept but lists under no target, as `hpa-lint` files
                // and `hpa-lint cluster` index it, so the rules asking which HPAs scale a
                // workload (HPA407) do not count it.
                // Under the kind its target's reference maps to (`Objects::mapped_kind`: a custom
                // kind written all in lowercase is the kind of the CRD held, as the rules look
                // targets up; [`Index::refile_custom_lowercase_targets`] when the CRDs change).
                let (group, kind, target) =
                    hpa.target().map_or((String::new(), String::new(), String::new()), |(g, k, n)| {
                        (g.into(), self.objects.mapped_kind(g, k).to_string(), n.into())
                    });
                let min = hpa.admitted.effective().spec.min_replicas.unwrap_or(1);
                self.objects.insert_hpa(hpa.id.clone(), (&group, &kind, &target), min, hpa);
            }
            CachedObject::LeftOut(l) => {
                let LeftOut { id, reason, .. } = *l;
                self.remove_hpa(&id.namespace, &id.name);
                self.left_out.insert((id.namespace, id.name), reason);
            }
            // Only the kinds watched: the index keys nothing else.
            CachedObject::Object(index::IndexedObject::Workload(w), _)
                if !WATCHED.iter().any(|k| k.kind == w.id.kind) => {}
            CachedObject::Object(o, ignore) => {
                self.set_ignore(o.id(), ignore);
                let crd = matches!(o, index::IndexedObject::CustomResourceDefinition(_));
                self.objects.insert(o);
                if crd {
                    self.refile_custom_lowercase_targets();
                }
            }
        }
    }

    /// Files again each HPA whose target is a custom kind (of a group with a dot) written all in
    /// lowercase, when the kind it maps to ([`Objects::mapped_kind`]: the CRD's kind, else a
    /// held workload's) is no longer the one it is filed under: after a change of the CRDs, or
    /// a relist of the HPAs or of a custom workload kind (built in an index of its own, which
    /// holds no CRD). A scan of the HPAs only when a CRD changes or a kind relists.
    fn refile_custom_lowercase_targets(&mut self) {
        let stale: Vec<Arc<CachedHpa>> = self
            .objects
            .every_hpa()
            .filter(|h| {
                let Some((group, kind, _)) = h.target() else { return false };
                group.contains('.')
                    && !kind.bytes().any(|b| b.is_ascii_uppercase())
                    && self.objects.hpa_target(&h.id.namespace, &h.id.name).map(|(_, filed, _)| filed)
                        != Some(self.objects.mapped_kind(group, kind))
            })
            .cloned()
            .collect();
        for hpa in stale {
            self.upsert(CachedObject::Hpa(hpa));
        }
    }

    /// Removes the HPA `namespace/name` (cached or left out).
    fn remove_hpa(&mut self, namespace: &str, name: &str) {
        if !self.left_out.is_empty() {
            self.left_out.remove(&(namespace.to_string(), name.to_string()));
        }
        self.objects.remove_hpa(namespace, name);
    }

    fn remove(&mut self, kind: &ResourceKind, namespace: &str, name: &str) {
        match *kind {
            kinds::HPA => self.remove_hpa(namespace, name),
            _ => {
                self.forget_ignore(kind, namespace, name);
                self.objects.remove(table(kind), namespace, name);
                if *kind == kinds::CRD {
                    self.refile_custom_lowercase_targets();
                }
            }
        }
    }

    /// Exchanges the objects of `kind` with those `other` holds: a relist builds the new ones
    /// in an index of its own, outside the lock, and swaps them in under it (the old ones go
    /// out in `other`, to be dropped after the lock is released). Swapping with an empty index
    /// drops the kind.
    fn swap_kind(&mut self, kind: &ResourceKind, other: &mut Index) {
        if *kind == kinds::HPA {
            std::mem::swap(&mut self.left_out, &mut other.left_out);
        }
        let (mine, theirs) = (self.ignores.remove(kind.kind), other.ignores.remove(kind.kind));
        if let Some(theirs) = theirs {
            self.ignores.insert(kind.kind, theirs);
        }
        if let Some(mine) = mine {
            other.ignores.insert(kind.kind, mine);
        }
        self.objects.swap_table(table(kind), &mut other.objects);
        if *kind == kinds::HPA || *kind == kinds::CRD || kind.group.contains('.') {
            self.refile_custom_lowercase_targets();
        }
    }
}

// === the index with one object substituted ===

/// The index as it would be once an object under admission is stored: that object replaces
/// the cached one of the same identity (or joins the index). What a rule reads through it is
/// what it would read after the write.
pub struct Overlay<'a> {
    base: &'a ObjectIndex<Arc<CachedHpa>>,
    workload: Option<&'a Workload>,
    pdbs: Option<(String, Vec<Pdb>)>,
    vpas: Option<(String, Vec<Vpa>)>,
    /// The HPA substituted: its namespace, and each target whose list of HPAs changes with it.
    hpas: Option<(String, Vec<TargetHpas>)>,
}

/// A target's API group, kind and name, and the HPAs targeting it.
type TargetHpas = (String, String, String, Vec<ObjectId>);

impl<'a> Overlay<'a> {
    /// The index unchanged.
    pub fn new(index: &'a Index) -> Overlay<'a> {
        Overlay { base: &index.objects, workload: None, pdbs: None, vpas: None, hpas: None }
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

    /// With the HPA `id` substituted, targeting `kind`/`name` of API group `group`
    /// ([`hpa_core::rules::object_group`]) in its namespace.
    pub fn with_hpa(mut self, id: &ObjectId, (group, kind, name): (&str, &str, &str)) -> Self {
        let ns = &id.namespace;
        // The HPA is cached with this target already (an UPDATE that keeps it, the common
        // case): the index shows the write as it is.
        if self.base.hpa_target(ns, &id.name) == Some((group, kind, name))
            && self.base.hpas_targeting(ns, group, kind, name).contains(id)
        {
            return self;
        }
        let mut changed = Vec::new();
        if let Some((g, k, n)) = self.base.hpa_target(ns, &id.name)
            && (g, k, n) != (group, kind, name)
        {
            let ids: Vec<ObjectId> =
                self.base.hpas_targeting(ns, g, k, n).iter().filter(|i| i.name != id.name).cloned().collect();
            changed.push((g.to_string(), k.to_string(), n.to_string(), ids));
        }
        let mut ids: Vec<ObjectId> =
            self.base.hpas_targeting(ns, group, kind, name).iter().filter(|i| i.name != id.name).cloned().collect();
        self.base.hpa_order().place(&mut ids, id.clone());
        changed.push((group.to_string(), kind.to_string(), name.to_string(), ids));
        self.hpas = Some((ns.clone(), changed));
        self
    }
}

impl Objects for Overlay<'_> {
    fn workload(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        match self.workload {
            Some(w)
                if w.id.kind == kind && w.id.namespace == namespace && w.id.name == name && w.id.group() == group =>
            {
                Some(w)
            }
            _ => self.base.workload(group, kind, namespace, name),
        }
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        self.base.limit_ranges(namespace)
    }

    fn custom_resource_definition(&self, group: &str, kind: &str) -> Option<&CustomResourceDefinition> {
        self.base.custom_resource_definition(group, kind)
    }

    fn kind_any_case(&self, group: &str, kind: &str) -> Option<&str> {
        match self.workload {
            Some(w) if w.id.group() == group && w.id.kind.eq_ignore_ascii_case(kind) => Some(w.id.kind.as_str()),
            _ => self.base.kind_any_case(group, kind),
        }
    }

    fn runtime_class(&self, name: &str) -> Option<&RuntimeClass> {
        self.base.runtime_class(name)
    }

    fn would_hold(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        self.base.would_hold(group, kind, namespace, name)
    }

    fn source(&self) -> WorldSource {
        self.base.source()
    }

    fn workload_any_case(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        match self.workload {
            Some(w)
                if w.id.kind.eq_ignore_ascii_case(kind)
                    && w.id.namespace == namespace
                    && w.id.name == name
                    && w.id.group() == group =>
            {
                Some(w)
            }
            _ => self.base.workload_any_case(group, kind, namespace, name),
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

    fn workloads_of(&self, namespace: &str) -> Vec<&Workload> {
        let mut list = self.base.workloads_of(namespace);
        if let Some(w) = self.workload.filter(|w| w.id.namespace == namespace) {
            list.retain(|x| !x.id.same_object(&w.id));
            list.push(w);
        }
        list
    }

    /// The cached HPAs' (the HPA under admission is the caller's own).
    fn hpa_min_replicas(&self, namespace: &str, group: &str, kind: &str, name: &str) -> Option<i32> {
        self.base.hpa_min_replicas(namespace, group, kind, name)
    }

    fn hpas_targeting(&self, namespace: &str, group: &str, kind: &str, name: &str) -> &[ObjectId] {
        if let Some((ns, changed)) = &self.hpas
            && ns == namespace
            && let Some((_, _, _, ids)) = changed.iter().find(|(g, k, n, _)| k == kind && n == name && g == group)
        {
            return ids;
        }
        self.base.hpas_targeting(namespace, group, kind, name)
    }
}

// === what the rules of one review read ===

/// A world as the rules of one review read it, noting each read of a kind the cache does not
/// hold because RBAC refuses to watch it ([`ContextCache::refused`]): the rules that asked saw
/// none of its objects, so their check was partial ([`Reads::unseen`]). Kinds are matched the
/// way the index keeps them (`table`): a workload by its exact kind (any case for
/// [`Objects::workload_any_case`]), every workload kind for a namespace's workloads.
pub struct Reads<'a> {
    world: &'a dyn Objects,
    refused: &'a [ResourceKind],
    unseen: Mutex<BTreeSet<ResourceKind>>,
    written: Option<&'a ObjectId>,
    fetched: Option<&'a ObjectId>,
}

impl<'a> Reads<'a> {
    /// `world` read by the rules, with the kinds RBAC refuses.
    pub fn new(world: &'a dyn Objects, refused: &'a [ResourceKind]) -> Reads<'a> {
        Reads { world, refused, unseen: Mutex::new(BTreeSet::new()), written: None, fetched: None }
    }

    /// The same, knowing whether the object `fetched` exists whatever its kind (an HPA's
    /// custom-resource target read at admission, found or not found: the world holds it when
    /// it exists): [`Objects::would_hold`] answers yes for it.
    pub fn with_fetched(self, fetched: &'a ObjectId) -> Reads<'a> {
        Reads { fetched: Some(fetched), ..self }
    }

    /// The same, for a world that holds `written` (a workload under admission, the overlay's
    /// object in place of the cached one): a read of that workload is answered whether or not
    /// its kind is watched, so it is not noted.
    pub fn with_written(self, written: &'a ObjectId) -> Reads<'a> {
        Reads { written: Some(written), ..self }
    }

    /// Whether a read of one workload is of the written object (`same_kind`: how the read
    /// matches kinds).
    fn is_written(&self, same_kind: impl Fn(&str) -> bool, namespace: &str, name: &str) -> bool {
        self.written.is_some_and(|w| same_kind(&w.kind) && w.namespace == namespace && w.name == name)
    }

    /// The refused kinds the rules read so far, in [`WATCHED`] order.
    pub fn unseen(&self) -> Vec<ResourceKind> {
        let unseen = lock(&self.unseen);
        WATCHED.iter().filter(|k| unseen.contains(k)).copied().collect()
    }

    /// Notes the refused kinds a read touches.
    fn note(&self, read: impl Fn(&ResourceKind) -> bool) {
        if self.refused.iter().any(&read) {
            lock(&self.unseen).extend(self.refused.iter().filter(|k| read(k)));
        }
    }
}

/// Whether the index keeps `kind` among the workloads.
fn is_workload(kind: &ResourceKind) -> bool {
    matches!(table(kind), Table::Workloads(..))
}

impl Objects for Reads<'_> {
    fn workload(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        if !self.is_written(|k| k == kind, namespace, name) {
            self.note(|k| is_workload(k) && k.kind == kind && k.group == group);
        }
        self.world.workload(group, kind, namespace, name)
    }

    fn limit_ranges(&self, namespace: &str) -> &[LimitRange] {
        self.note(|k| *k == kinds::LIMIT_RANGE);
        self.world.limit_ranges(namespace)
    }

    /// A built-in group (no dot: a CRD's group must have one, `ValidateCustomResourceDefinition`)
    /// reads no CRD: HPA410 asks for every target, a Deployment's included.
    fn custom_resource_definition(&self, group: &str, kind: &str) -> Option<&CustomResourceDefinition> {
        if group.contains('.') {
            self.note(|k| *k == kinds::CRD);
        }
        self.world.custom_resource_definition(group, kind)
    }

    /// Read from the CRDs (and workloads) held, as [`Reads::custom_resource_definition`].
    fn kind_any_case(&self, group: &str, kind: &str) -> Option<&str> {
        if group.contains('.') {
            self.note(|k| *k == kinds::CRD);
        }
        self.world.kind_any_case(group, kind)
    }

    fn runtime_class(&self, name: &str) -> Option<&RuntimeClass> {
        self.note(|k| *k == kinds::RUNTIME_CLASS);
        self.world.runtime_class(name)
    }

    /// Only the kinds the cache watches, and RBAC does not refuse: the cache holds no custom
    /// resource but an Argo Rollout.
    fn would_hold(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        if self.fetched.is_some_and(|f| {
            hpa_core::api::GroupVersion::parse_or_empty(&f.api_version).group() == group
                && f.kind.eq_ignore_ascii_case(kind)
                && f.namespace == namespace
                && f.name == name
        }) {
            return true;
        }
        let same = |k: &ResourceKind| k.group == group && k.kind.eq_ignore_ascii_case(kind);
        WATCHED.iter().any(same)
            && !self.refused.iter().any(same)
            && self.world.would_hold(group, kind, namespace, name)
    }

    /// The context cache, whatever the world it wraps says; the cluster itself once the API
    /// server was asked at admission ([`Reads::with_fetched`]): the object fetched is the HPA's
    /// target, the only absence a rule words (HPA403), and the API server, not the cache, said
    /// it is not there.
    fn source(&self) -> WorldSource {
        if self.fetched.is_some() { WorldSource::Cluster } else { WorldSource::ContextCache }
    }

    fn workload_any_case(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        if !self.is_written(|k| k.eq_ignore_ascii_case(kind), namespace, name) {
            self.note(|k| is_workload(k) && k.kind.eq_ignore_ascii_case(kind) && k.group == group);
        }
        self.world.workload_any_case(group, kind, namespace, name)
    }

    fn pdbs(&self, namespace: &str) -> &[Pdb] {
        self.note(|k| *k == kinds::PDB);
        self.world.pdbs(namespace)
    }

    fn vpas(&self, namespace: &str) -> &[Vpa] {
        self.note(|k| *k == kinds::VPA);
        self.world.vpas(namespace)
    }

    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject] {
        self.note(|k| *k == kinds::SCALED_OBJECT);
        self.world.scaled_objects(namespace)
    }

    fn workloads_of(&self, namespace: &str) -> Vec<&Workload> {
        self.note(is_workload);
        self.world.workloads_of(namespace)
    }

    fn hpa_min_replicas(&self, namespace: &str, group: &str, kind: &str, name: &str) -> Option<i32> {
        self.note(|k| *k == kinds::HPA);
        self.world.hpa_min_replicas(namespace, group, kind, name)
    }

    fn hpas_targeting(&self, namespace: &str, group: &str, kind: &str, name: &str) -> &[ObjectId] {
        self.note(|k| *k == kinds::HPA);
        self.world.hpas_targeting(namespace, group, kind, name)
    }

    /// The world's own answer (an index answers it from its labels): every workload kind read.
    fn workloads_sharing_pods<'b>(&'b self, w: &'b Workload) -> Vec<&'b Workload> {
        self.note(is_workload);
        self.world.workloads_sharing_pods(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Only the refused kinds a read touches are noted: a workload by its exact kind (any case
    /// for `workload_any_case`), every workload kind for a namespace's workloads.
    #[test]
    fn reads_note_the_refused_kinds_the_rules_read() {
        let index = Index::default();
        let overlay = Overlay::new(&index);
        let refused = [kinds::DEPLOYMENT, kinds::ROLLOUT, kinds::PDB];
        let reads = Reads::new(&overlay, &refused);
        assert_eq!(reads.workload("apps", "StatefulSet", "shop", "db"), None);
        assert_eq!(reads.vpas("shop"), &[]);
        assert_eq!(reads.unseen(), []);
        assert_eq!(reads.workload_any_case("apps", "deployment", "shop", "web"), None);
        assert_eq!(reads.unseen(), [kinds::DEPLOYMENT]);
        assert!(reads.pdbs("shop").is_empty());
        assert!(reads.workloads_of("shop").is_empty());
        assert_eq!(reads.unseen(), [kinds::DEPLOYMENT, kinds::ROLLOUT, kinds::PDB]);
        // A read of the written workload is not noted; one of another of its kind is.
        let web = ObjectId {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: "shop".into(),
            name: "web".into(),
        };
        let reads = Reads::new(&overlay, &refused).with_written(&web);
        assert_eq!(reads.workload("apps", "Deployment", "shop", "web"), None);
        assert_eq!(reads.workload_any_case("apps", "deployment", "shop", "web"), None);
        assert_eq!(reads.workload("apps", "Deployment", "prod", "web"), None);
        assert_eq!(reads.unseen(), [kinds::DEPLOYMENT]);
        // CRDs refused: a lookup in a built-in group is no read of them, one in a CRD's group is.
        let refused = [kinds::CRD];
        let reads = Reads::new(&overlay, &refused);
        assert!(reads.custom_resource_definition("apps", "Deployment").is_none());
        assert_eq!(reads.unseen(), []);
        assert!(reads.custom_resource_definition("example.com", "WorkerPool").is_none());
        assert_eq!(reads.unseen(), [kinds::CRD]);
        // Only the kinds the cache watches, unrefused, are held whole (HPA403, HPA201).
        let reads = Reads::new(&overlay, &[kinds::ROLLOUT]);
        assert!(reads.would_hold("apps", "Deployment", "shop", "web"));
        assert!(reads.would_hold("apps", "deployment", "shop", "web"));
        assert!(reads.would_hold("", "ReplicationController", "shop", "web"));
        assert!(reads.would_hold("node.k8s.io", "RuntimeClass", "", "kata"));
        assert!(!reads.would_hold("argoproj.io", "Rollout", "shop", "web"));
        assert!(!reads.would_hold("example.com", "WorkerPool", "shop", "web"));
        assert!(!reads.would_hold("", "Deployment", "shop", "web"));
        assert!(!Reads::new(&overlay, &[kinds::RUNTIME_CLASS]).would_hold("node.k8s.io", "RuntimeClass", "", "kata"));
        assert_eq!(reads.source(), WorldSource::ContextCache);
        // A custom resource read at admission is held, that one only.
        let pool = ObjectId {
            api_version: "example.com/v1".into(),
            kind: "WorkerPool".into(),
            namespace: "shop".into(),
            name: "pool".into(),
        };
        let reads = Reads::new(&overlay, &[]).with_fetched(&pool);
        assert!(reads.would_hold("example.com", "WorkerPool", "shop", "pool"));
        assert!(!reads.would_hold("example.com", "WorkerPool", "shop", "other"));
        // The API server, not the cache, said whether it exists.
        assert_eq!(reads.source(), WorldSource::Cluster);
    }

    /// 0.5 s, 1 s, then 2 s at most (each up to a quarter more), and 0.5 s again after an event.
    #[test]
    fn the_watch_backoff_stays_short() {
        use kube::runtime::utils::Backoff as _;
        let mut backoff = WatchBackoff::default();
        let mut delays: Vec<Duration> = (0..8).filter_map(|_| backoff.next()).collect();
        backoff.reset();
        delays.extend(backoff.next());
        let bases = [500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 500].map(Duration::from_millis);
        assert_eq!(delays.len(), bases.len());
        for (delay, base) in delays.iter().zip(bases) {
            assert!(*delay >= base && *delay < base + base / 4, "{delays:?}");
        }
    }

    fn put(index: &mut Index, kind: ResourceKind, object: serde_json::Value) {
        let object: LiveObject = serde_json::from_value(object).unwrap();
        let shared = CacheShared::new(CacheOptions::default().admission);
        index.upsert(shared.entry(&kind, object).unwrap());
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
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "b"]);
        assert!(index.objects().workload("apps", "Deployment", "shop", "web").is_some());
        assert!(index.objects().workload_any_case("apps", "deployment", "shop", "web").is_some());
        assert_eq!(index.count(&kinds::DEPLOYMENT), 1);
        assert_eq!(index.count(&kinds::HPA), 2);

        // An HPA moving to another target leaves the first list.
        put(&mut index, kinds::HPA, hpa("b", "api"));
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a"]);
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "api")), ["b"]);

        // The overlay shows the write as it would be stored.
        let id = ObjectId {
            api_version: "autoscaling/v2".into(),
            kind: "HorizontalPodAutoscaler".into(),
            namespace: "shop".into(),
            name: "b".into(),
        };
        let overlay = Overlay::new(&index).with_hpa(&id, ("apps", "Deployment", "web"));
        assert_eq!(names(overlay.hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "b"]);
        assert!(overlay.hpas_targeting("shop", "apps", "Deployment", "api").is_empty());
        // Its target kept: nothing substituted, the index answers.
        let overlay = Overlay::new(&index).with_hpa(&id, ("apps", "Deployment", "api"));
        assert!(overlay.hpas.is_none());
        assert_eq!(names(overlay.hpas_targeting("shop", "apps", "Deployment", "api")), ["b"]);
        // A new HPA joins its target's list.
        let new = ObjectId { name: "c".into(), ..id.clone() };
        let overlay = Overlay::new(&index).with_hpa(&new, ("apps", "Deployment", "api"));
        assert_eq!(names(overlay.hpas_targeting("shop", "apps", "Deployment", "api")), ["b", "c"]);

        index.remove(&kinds::DEPLOYMENT, "shop", "web");
        assert!(index.objects().workload("apps", "Deployment", "shop", "web").is_none());
        index.swap_kind(&kinds::HPA, &mut Index::default());
        assert_eq!(index.count(&kinds::HPA), 0);
        assert!(index.objects().hpas_targeting("shop", "apps", "Deployment", "api").is_empty());
    }

    /// An HPA is filed under the kind its target's reference maps to, as the rules look targets
    /// up (HPA407 counts the HPA under check among them): a built-in kind written all in
    /// lowercase under the kind itself, a custom one under its CRD's kind, filed again when the
    /// CRD arrives after the HPA, goes, or the HPAs relist (their own index holds no CRD); and
    /// the overlay of an admission files the written HPA the same way.
    #[test]
    fn hpas_are_filed_under_the_kind_their_target_maps_to() {
        let target = |name: &str, api_version: &str, kind: &str| {
            let mut h = hpa(name, "w");
            h["spec"]["scaleTargetRef"] = json!({"apiVersion": api_version, "kind": kind, "name": "w"});
            h
        };
        let names = |ids: &[ObjectId]| ids.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        let mut index = Index::default();
        put(&mut index, kinds::HPA, target("lower", "apps/v1", "statefulset"));
        put(&mut index, kinds::HPA, target("upper", "apps/v1", "StatefulSet"));
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "StatefulSet", "w")), ["lower", "upper"]);
        assert_eq!(index.hpa("shop", "lower").unwrap().target(), Some(("apps", "StatefulSet", "w")));

        put(&mut index, kinds::HPA, target("a", "example.com/v1", "widget"));
        put(&mut index, kinds::HPA, target("b", "example.com/v1", "Widget"));
        assert_eq!(names(index.objects().hpas_targeting("shop", "example.com", "widget", "w")), ["a"]);
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}]}});
        put(&mut index, kinds::CRD, crd.clone());
        assert_eq!(names(index.objects().hpas_targeting("shop", "example.com", "Widget", "w")), ["a", "b"]);
        assert!(index.objects().hpas_targeting("shop", "example.com", "widget", "w").is_empty());
        // The overlay of a new HPA written `widget` lists it with the others.
        let id = ObjectId {
            api_version: "autoscaling/v2".into(),
            kind: "HorizontalPodAutoscaler".into(),
            namespace: "shop".into(),
            name: "c".into(),
        };
        let kind = index.objects().mapped_kind("example.com", "widget");
        let overlay = Overlay::new(&index).with_hpa(&id, ("example.com", kind, "w"));
        assert_eq!(names(overlay.hpas_targeting("shop", "example.com", "Widget", "w")), ["a", "b", "c"]);
        // A relist of the HPAs files them again; so does the CRD's deletion.
        let mut relisted = Index::default();
        put(&mut relisted, kinds::HPA, target("a", "example.com/v1", "widget"));
        index.swap_kind(&kinds::HPA, &mut relisted);
        assert_eq!(names(index.objects().hpas_targeting("shop", "example.com", "Widget", "w")), ["a"]);
        index.remove(&kinds::CRD, "", "widgets.example.com");
        assert_eq!(names(index.objects().hpas_targeting("shop", "example.com", "widget", "w")), ["a"]);
        assert!(index.objects().hpas_targeting("shop", "example.com", "Widget", "w").is_empty());
    }

    /// An HPA whose target group does not serve its kind is cached, but scales no workload: it
    /// is not among the HPAs of that name's Deployment (no false HPA407 at admission).
    #[test]
    fn an_hpa_whose_target_cannot_be_mapped_targets_nothing() {
        let mut index = Index::default();
        put(&mut index, kinds::HPA, hpa("a", "web"));
        let mut unmapped = hpa("old", "web");
        unmapped["spec"]["scaleTargetRef"]["apiVersion"] = json!("extensions/v1beta1");
        put(&mut index, kinds::HPA, unmapped);
        let names = |ids: &[ObjectId]| ids.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a"]);
        assert!(index.hpa("shop", "old").is_some());
        assert_eq!(index.count(&kinds::HPA), 2);
        // Moved to `apps/v1`: it joins the Deployment's HPAs; back, it leaves them.
        put(&mut index, kinds::HPA, hpa("old", "web"));
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "old"]);
        let mut unmapped = hpa("old", "web");
        unmapped["spec"]["scaleTargetRef"]["apiVersion"] = json!("extensions/v1beta1");
        put(&mut index, kinds::HPA, unmapped);
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a"]);
    }

    /// An HPA whose target kind is written in lowercase (`deployment`, which the controller's
    /// RESTMapper maps to the Deployment) is listed under the Deployment with the others, as the
    /// linter's sets list it: HPA407 counts it at admission, and a write of the Deployment finds it.
    #[test]
    fn an_hpa_whose_target_kind_is_lowercase_is_listed_under_the_mapped_kind() {
        let mut index = Index::default();
        put(&mut index, kinds::HPA, hpa("a", "web"));
        let mut lower = hpa("b", "web");
        lower["spec"]["scaleTargetRef"]["kind"] = json!("deployment");
        put(&mut index, kinds::HPA, lower);
        assert_eq!(index.hpa("shop", "b").unwrap().target(), Some(("apps", "Deployment", "web")));
        let names = |ids: &[ObjectId]| ids.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(index.objects().hpas_targeting("shop", "apps", "Deployment", "web")), ["a", "b"]);
        assert!(index.objects().hpas_targeting("shop", "apps", "deployment", "web").is_empty());
    }

    #[test]
    fn hpas_are_admitted_once_and_those_hpa_core_cannot_read_are_counted() {
        let mut index = Index::default();
        // An unknown field (a newer API server's) is version skew: the HPA is kept.
        let mut newer = hpa("web", "web");
        newer["spec"]["syncPeriodSeconds"] = json!(30);
        put(&mut index, kinds::HPA, newer);
        let cached = index.hpa("shop", "web").unwrap();
        assert!(cached.admitted.allowed());
        assert_eq!(cached.admitted.effective().spec.max_replicas, 5);
        assert_eq!(cached.target(), Some(("apps", "Deployment", "web")));
        // ... noted, and counted while it is cached.
        assert_eq!(
            cached.ignored,
            [
                "HorizontalPodAutoscaler shop/web: field \"spec.syncPeriodSeconds\" is not in the types of Kubernetes 1.37: ignored, as that release's controller ignores it"
            ]
        );
        assert_eq!(index.ignored_fields(), 1);
        put(&mut index, kinds::HPA, hpa("api", "api"));
        assert!(index.hpa("shop", "api").unwrap().ignored.is_empty());
        assert_eq!(index.ignored_fields(), 1);
        index.remove(&kinds::HPA, "shop", "api");
        // A value of the wrong type: left out, counted by reason, out of the target's list.
        let mut broken = hpa("web", "web");
        broken["spec"]["maxReplicas"] = json!("five");
        put(&mut index, kinds::HPA, broken.clone());
        assert!(index.hpa("shop", "web").is_none());
        assert_eq!(index.ignored_fields(), 0, "no longer cached");
        assert!(index.objects().hpas_targeting("shop", "apps", "Deployment", "web").is_empty());
        assert_eq!(index.left_out(), [("InvalidValue", 1)]);
        let mut other = broken.clone();
        other["metadata"]["name"] = json!("api");
        put(&mut index, kinds::HPA, other);
        assert_eq!(index.left_out(), [("InvalidValue", 2)]);
        // Fixed, or deleted: no longer counted.
        put(&mut index, kinds::HPA, hpa("web", "web"));
        assert_eq!(index.left_out(), [("InvalidValue", 1)]);
        index.remove(&kinds::HPA, "shop", "api");
        assert!(index.left_out().is_empty());
        assert_eq!(index.count(&kinds::HPA), 1);
    }

    #[test]
    fn a_cached_hpa_keeps_its_ignore_annotation() {
        let mut object = hpa("web", "web");
        object["metadata"]["annotations"] = json!({hpa_core::rules::IGNORE_ANNOTATION: "HPA101 -- a singleton"});
        let id = crate::inventory::object_id(&kinds::HPA, &object);
        let opts = CacheOptions::default().admission;
        let cached = CachedHpa::admit(LiveHpa::from_tree(&kinds::HPA, &object).unwrap(), &opts).unwrap();
        assert_eq!(cached.id, id);
        assert_eq!(cached.ignore, Ignore::parse("HPA101 -- a singleton"));
        let plain = CachedHpa::admit(LiveHpa::from_tree(&kinds::HPA, &hpa("web", "web")).unwrap(), &opts).unwrap();
        assert!(plain.ignore.is_empty());
    }

    #[test]
    fn an_object_that_cannot_be_a_tree_is_left_out_and_replaces_nothing() {
        let shared = CacheShared::new(CacheOptions::default().admission);
        let deployment = |replicas: &str| {
            LiveObject::from_text(&format!(
                r#"{{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {{"name": "web", "namespace": "shop"}},
                    "spec": {{"replicas": {replicas}, "template": {{"spec": {{"containers": [{{"name": "app"}}]}}}}}}}}"#
            ))
            .unwrap()
        };
        shared.apply(kinds::DEPLOYMENT, Event::Apply(deployment("2")), &mut Relist::default());
        assert!(shared.read().objects().workload("apps", "Deployment", "shop", "web").is_some());
        // A number past f64's range: valid JSON text, but no tree holds it.
        let odd = deployment("1e400");
        assert!(odd.tree().is_err());
        shared.apply(kinds::DEPLOYMENT, Event::Apply(odd), &mut Relist::default());
        assert!(shared.read().objects().workload("apps", "Deployment", "shop", "web").is_none());
    }

    #[test]
    fn the_other_objects_ignore_annotations_are_kept_current() {
        use hpa_core::rules::IGNORE_ANNOTATION;
        let shared = CacheShared::new(CacheOptions::default().admission);
        let deployment = |name: &str, ignore: Option<&str>| -> LiveObject {
            let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app"}]}}}});
            if let Some(value) = ignore {
                object["metadata"]["annotations"] = json!({IGNORE_ANNOTATION: value});
            }
            serde_json::from_value(object).unwrap()
        };
        let id = |kind: &str, name: &str| ObjectId {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            namespace: "shop".into(),
            name: name.into(),
        };
        let (web, api) = (id("Deployment", "web"), id("Deployment", "api"));
        let mut buffer = Relist::default();
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment("web", Some("HPA410 -- argo"))), &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment("api", None)), &mut buffer);
        // Listed, in the page not yet put in the index.
        assert!(shared.read().ignore(&web).is_none());
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut buffer);
        assert_eq!(shared.read().ignore(&web), Some(&Ignore::parse("HPA410 -- argo")));
        assert!(shared.read().ignore(&api).is_none());
        // Only the objects with an annotation are kept.
        assert_eq!(shared.read().ignores.get("Deployment").map(HashMap::len), Some(1));
        // Another kind of the same name is another object.
        assert!(shared.read().ignore(&id("StatefulSet", "web")).is_none());

        // Updates set, change and drop it.
        shared.apply(kinds::DEPLOYMENT, Event::Apply(deployment("api", Some("all"))), &mut buffer);
        assert_eq!(shared.read().ignore(&api), Some(&Ignore::parse("all")));
        shared.apply(kinds::DEPLOYMENT, Event::Apply(deployment("web", None)), &mut buffer);
        assert!(shared.read().ignore(&web).is_none());
        shared.apply(kinds::DEPLOYMENT, Event::Apply(deployment("web", Some("HPA201"))), &mut buffer);
        assert_eq!(shared.read().ignore(&web), Some(&Ignore::parse("HPA201")));
        // A delete forgets it.
        shared.apply(kinds::DEPLOYMENT, Event::Delete(deployment("api", Some("all"))), &mut buffer);
        assert!(shared.read().ignore(&api).is_none());

        // A PDB's, and a cached HPA's (from `CachedHpa::ignore`).
        let pdb: LiveObject = serde_json::from_value(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "shop", "annotations": {IGNORE_ANNOTATION: "HPA104"}},
            "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "web"}}}}))
        .unwrap();
        shared.apply(kinds::PDB, Event::Apply(pdb), &mut buffer);
        let pdb_id = ObjectId { api_version: "policy/v1".into(), ..id("PodDisruptionBudget", "web") };
        assert_eq!(shared.read().ignore(&pdb_id), Some(&Ignore::parse("HPA104")));
        let mut annotated = hpa("other", "web");
        annotated["metadata"]["annotations"] = json!({IGNORE_ANNOTATION: "HPA301"});
        shared.apply(kinds::HPA, Event::Apply(serde_json::from_value(annotated).unwrap()), &mut buffer);
        shared.apply(kinds::HPA, Event::Apply(serde_json::from_value(hpa("plain", "web")).unwrap()), &mut buffer);
        let hpa_id =
            |name: &str| ObjectId { api_version: "autoscaling/v2".into(), ..id("HorizontalPodAutoscaler", name) };
        assert_eq!(shared.read().ignore(&hpa_id("other")), Some(&Ignore::parse("HPA301")));
        assert!(shared.read().ignore(&hpa_id("plain")).is_none());

        // A relist replaces the kind's annotations with the list's, and leaves the other kinds'.
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment("api", Some("HPA410"))), &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment("web", None)), &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut buffer);
        assert!(shared.read().ignore(&web).is_none());
        assert_eq!(shared.read().ignore(&api), Some(&Ignore::parse("HPA410")));
        assert_eq!(shared.read().ignore(&pdb_id), Some(&Ignore::parse("HPA104")));
        shared.clear(&kinds::DEPLOYMENT);
        assert!(shared.read().ignore(&api).is_none());
        assert_eq!(shared.read().ignore(&pdb_id), Some(&Ignore::parse("HPA104")));
    }

    #[test]
    fn rollouts_are_found_by_the_workload_they_take_their_template_from() {
        let mut index = Index::default();
        let rollout = |name: &str, target: &str| {
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}}})
        };
        put(&mut index, kinds::ROLLOUT, rollout("b", "web"));
        put(&mut index, kinds::ROLLOUT, rollout("a", "web"));
        put(&mut index, kinds::ROLLOUT, rollout("c", "api"));
        let names: Vec<&str> =
            index.rollouts_using("shop", ("apps", "Deployment", "web")).iter().map(|r| r.id.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(index.rollouts_using("shop", ("apps", "StatefulSet", "web")).is_empty());
        assert!(index.rollouts_using("other", ("apps", "Deployment", "web")).is_empty());
    }

    #[test]
    fn a_relist_never_shows_an_empty_or_partial_kind() {
        use std::sync::atomic::{AtomicBool, Ordering};

        const N: usize = 300;
        let shared = Arc::new(CacheShared::new(CacheOptions::default().admission));
        let deployment = |i: usize| -> LiveObject {
            serde_json::from_value(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": format!("web-{i}"), "namespace": format!("team-{}", i % 7)},
                "spec": {"template": {"spec": {"containers": [{"name": "app"}]}}}}))
            .unwrap()
        };
        let relist = |shared: &CacheShared| {
            let mut buffer = Relist::default();
            shared.apply(kinds::DEPLOYMENT, Event::Init, &mut buffer);
            for i in 0..N {
                shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(i)), &mut buffer);
                if i == N / 2 {
                    // Half listed: readers see every object, listed or previous.
                    assert_eq!(shared.read().count(&kinds::DEPLOYMENT), N);
                }
            }
            shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut buffer);
        };
        // The first list (nothing to show before it).
        let mut buffer = Relist::default();
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut buffer);
        for i in 0..N {
            shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(i)), &mut buffer);
        }
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut buffer);

        // Readers admitting while relists swap the kind in: never empty, never partial.
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (shared, stop) = (shared.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut reads = 0usize;
                    while !stop.load(Ordering::Relaxed) {
                        let index = shared.read();
                        assert_eq!(index.count(&kinds::DEPLOYMENT), N);
                        assert!(index.objects().workload("apps", "Deployment", "team-3", "web-3").is_some());
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        for _ in 0..20 {
            relist(&shared);
        }
        stop.store(true, Ordering::Relaxed);
        for reader in readers {
            assert!(reader.join().unwrap() > 0);
        }
        // A relist of fewer objects replaces the kind; other kinds are untouched.
        shared
            .index
            .write()
            .unwrap()
            .upsert(shared.entry(&kinds::HPA, serde_json::from_value(hpa("web", "web-1")).unwrap()).unwrap());
        let mut buffer = Relist::default();
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(1)), &mut buffer);
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut buffer);
        assert_eq!(shared.read().count(&kinds::DEPLOYMENT), 1);
        assert_eq!(shared.read().count(&kinds::HPA), 1);
        shared.clear(&kinds::DEPLOYMENT);
        assert_eq!(shared.read().count(&kinds::DEPLOYMENT), 0);
        assert_eq!(shared.read().count(&kinds::HPA), 1);
    }

    /// A relist puts each page in place (no second copy of the kind), and at `InitDone` removes
    /// what the list no longer had: objects of the kind, an HPA left out, an object that cannot
    /// be a tree now; other kinds are untouched.
    #[test]
    fn a_relist_goes_in_page_by_page_and_removes_what_is_gone() {
        let n = PAGE_SIZE as usize + 10;
        let shared = CacheShared::new(CacheOptions::default().admission);
        let deployment = |i: usize, replicas: &str, container: &str| -> LiveObject {
            LiveObject::from_text(&format!(
                r#"{{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {{"name": "web-{i}", "namespace": "shop"}},
                    "spec": {{"replicas": {replicas}, "template": {{"spec": {{"containers": [{{"name": "{container}"}}]}}}}}}}}"#
            ))
            .unwrap()
        };
        let container = |name: &str, index: &Index| {
            index.objects().workload("apps", "Deployment", "shop", name).unwrap().containers[0].name.clone()
        };
        let mut relist = Relist::default();
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut relist);
        for i in 0..n {
            shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(i, "1", "v1")), &mut relist);
        }
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut relist);
        assert_eq!(shared.read().count(&kinds::DEPLOYMENT), n);
        let mut bad = hpa("bad", "web-0");
        bad["spec"]["maxReplicas"] = json!("ten");
        shared.apply(kinds::HPA, Event::Init, &mut relist);
        shared.apply(kinds::HPA, Event::InitApply(serde_json::from_value(hpa("web", "web-0")).unwrap()), &mut relist);
        shared.apply(kinds::HPA, Event::InitApply(serde_json::from_value(bad).unwrap()), &mut relist);
        shared.apply(kinds::HPA, Event::InitDone, &mut relist);
        assert_eq!(shared.read().left_out().len(), 1);

        // The relist: web-0 can no longer be a tree, web-1 .. web-9 are gone, the rest change (their container).
        shared.apply(kinds::DEPLOYMENT, Event::Init, &mut relist);
        shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(0, "1e400", "v2")), &mut relist);
        for i in 10..n {
            shared.apply(kinds::DEPLOYMENT, Event::InitApply(deployment(i, "1", "v2")), &mut relist);
            if i == PAGE_SIZE as usize + 8 {
                // A page (web-0, web-10 .. web-508) is in: listed objects in their new state, the others as they were.
                let index = shared.read();
                assert_eq!(index.count(&kinds::DEPLOYMENT), n - 1, "all but web-0");
                assert_eq!(container("web-10", &index), "v2");
                assert_eq!(container("web-1", &index), "v1");
                assert!(index.objects().workload("apps", "Deployment", "shop", "web-0").is_none(), "left out: removed");
            }
        }
        shared.apply(kinds::DEPLOYMENT, Event::InitDone, &mut relist);
        let index = shared.read();
        assert_eq!(index.count(&kinds::DEPLOYMENT), n - 10);
        assert!(index.objects().workload("apps", "Deployment", "shop", "web-1").is_none());
        assert_eq!(container("web-11", &index), "v2");
        assert_eq!(index.count(&kinds::HPA), 1, "another kind");
        drop(index);
        assert!(relist.seen.is_empty() && relist.page.capacity() == 0, "nothing held between lists");

        // An HPA relist without the HPA left out forgets it.
        shared.apply(kinds::HPA, Event::Init, &mut relist);
        shared.apply(kinds::HPA, Event::InitApply(serde_json::from_value(hpa("web", "web-0")).unwrap()), &mut relist);
        shared.apply(kinds::HPA, Event::InitDone, &mut relist);
        assert!(shared.read().left_out().is_empty());
        assert_eq!(shared.read().count(&kinds::HPA), 1);
    }
}
