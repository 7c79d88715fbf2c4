//! The cluster as the webhook sees it: hpa-cluster's context cache, whether its view may be
//! trusted for a decision, and the world hpa-core's front door (`hpa_core::check`) reads the cross-object rules from.
//!
//! The server decides the view once per request ([`ClusterContext::view`]: it reads the clock);
//! the admission logic only reads the view it is handed, so it stays a function of its inputs.

use std::sync::RwLockReadGuard;
use std::time::{Duration, Instant};

use hpa_cluster::kinds::Kind;
use hpa_cluster::watch::{ContextCache, Freshness, Index};
use hpa_core::api::v2;
use hpa_core::rules::ObjectId;

/// How the context cache is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextSettings {
    /// A watch broken, or silent (no event, no bookmark), longer than this makes the view stale:
    /// cross-object checks are skipped.
    pub stale_after: Duration,
    /// /readyz waits at most this long for the first sync; past it the server is ready and
    /// answers with single-object checks (and a warning) until the cache has synced.
    pub sync_timeout: Duration,
}

/// The context cache of a running server.
#[derive(Debug)]
pub struct ClusterContext {
    cache: ContextCache,
    settings: ContextSettings,
    started: Instant,
}

/// What a request may read of the cluster.
#[derive(Debug)]
pub enum View<'a> {
    /// The server runs without a context cache: single-object checks, as always.
    Off,
    /// The cache, fresh: cross-object checks run against it. With it, the kinds RBAC refuses to
    /// watch ([`ContextCache::refused`]): fresh all the same, but a rule reading one sees none of
    /// its objects ([`partial_warning`]).
    Fresh(RwLockReadGuard<'a, Index>, Vec<Kind>),
    /// The cache cannot be trusted (the reason): single-object checks only, said in a warning.
    Stale(String),
}

impl ClusterContext {
    /// Wraps a started cache.
    pub fn new(cache: ContextCache, settings: ContextSettings) -> ClusterContext {
        ClusterContext { cache, settings, started: Instant::now() }
    }

    /// The cache.
    pub fn cache(&self) -> &ContextCache {
        &self.cache
    }

    /// The bound past which a broken or silent watch makes the view stale.
    pub fn stale_after(&self) -> Duration {
        self.settings.stale_after
    }

    /// Whether the server may report ready: the cache has synced, or the bounded wait for it
    /// ([`ContextSettings::sync_timeout`]) is over.
    pub fn ready(&self) -> bool {
        self.cache.synced() || self.started.elapsed() >= self.settings.sync_timeout
    }

    /// The view for one request.
    pub fn view(&self) -> View<'_> {
        match self.cache.freshness(self.settings.stale_after) {
            Freshness::Fresh => {
                // The watches' lock is not taken with the index's read lock held.
                let refused = self.cache.refused();
                View::Fresh(self.cache.read(), refused)
            }
            Freshness::Stale(reason) => View::Stale(reason),
        }
    }
}

impl View<'_> {
    /// The index, when fresh.
    pub fn index(&self) -> Option<&Index> {
        match self {
            View::Fresh(index, _) => Some(index),
            View::Off | View::Stale(_) => None,
        }
    }

    /// The kinds RBAC refuses to watch, when fresh (none otherwise).
    pub fn refused(&self) -> &[Kind] {
        match self {
            View::Fresh(_, refused) => refused,
            View::Off | View::Stale(_) => &[],
        }
    }

    /// The warning a stale view adds to a review of `subject`.
    pub fn stale_warning(&self, subject: Subject) -> Option<String> {
        match self {
            View::Stale(reason) => {
                let checked = match subject {
                    Subject::Hpa => "this HPA alone",
                    Subject::Write => "this write against no HPA",
                };
                Some(format!("hpa-webhook checked {checked} (cross-object checks skipped): {reason}"))
            }
            View::Off | View::Fresh(..) => None,
        }
    }
}

/// What a review checks, as its context warnings name it ([`View::stale_warning`],
/// [`partial_warning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// `/validate`: an HPA, against the cluster.
    Hpa,
    /// `/validate-workloads`: a write of an object HPAs depend on, against those HPAs.
    Write,
}

/// The warning a fresh view adds to a review of `subject` when the cross-object rules it ran read
/// kinds RBAC refuses to watch (`unseen`, [`Reads::unseen`](hpa_cluster::Reads::unseen)): they
/// ran, but saw none of those objects, so a finding (and a `denyRules` denial) about them cannot
/// show. `None` when they read none.
pub fn partial_warning(subject: Subject, unseen: &[Kind]) -> Option<String> {
    if unseen.is_empty() {
        return None;
    }
    let checked = match subject {
        Subject::Hpa => "the cross-object rules of this HPA",
        Subject::Write => "this write against its HPAs",
    };
    let kinds: Vec<String> = unseen.iter().map(Kind::resource).collect();
    Some(format!("hpa-webhook checked {checked} in part: RBAC refuses to watch {} (not read)", kinds.join(", ")))
}

/// The identity of an HPA under admission, as the cache and the rules name it.
pub fn hpa_id(hpa: &v2::HorizontalPodAutoscaler) -> ObjectId {
    ObjectId {
        api_version: v2::API_VERSION.to_string(),
        kind: hpa_core::api::KIND.to_string(),
        namespace: hpa.metadata.namespace.clone(),
        name: hpa.metadata.name.clone(),
    }
}
