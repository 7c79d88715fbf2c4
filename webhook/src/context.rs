//! The cluster as the webhook sees it: hpa-cluster's context cache, whether its view may be
//! trusted for a decision, and the world hpa-core's front door (`hpa_core::check`) reads the cross-object rules from.
//!
//! The server decides the view once per request ([`ClusterContext::view`]: it reads the clock);
//! the admission logic only reads the view it is handed, so it stays a function of its inputs.

use std::sync::RwLockReadGuard;
use std::time::{Duration, Instant};

use hpa_cluster::Cluster;
use hpa_cluster::inventory::{CustomTarget, TargetRead, custom_target_crd, read_custom_target, read_watched_target};
use hpa_cluster::kinds::{self, ResourceKind};
use hpa_cluster::watch::{ContextCache, Freshness, Index, Reads};
use hpa_core::api::{CrossVersionObjectReference, v2};
use hpa_core::rules::ObjectId;
use hpa_core::rules::Objects;

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

/// How long `/validate` waits at most for the read of an HPA's target
/// ([`ClusterContext::read_target`]): well below kube-apiserver's wait for the webhook (the
/// manifests' `timeoutSeconds: 5`, the server's own deadline one second less), and at most half
/// the server's deadline ([`target_read_timeout`]).
pub const TARGET_READ_TIMEOUT: Duration = Duration::from_secs(1);

/// The bound of the read of an HPA's target under a request deadline of `request_timeout`
/// (`--request-timeout`): [`TARGET_READ_TIMEOUT`], or half the deadline when that is shorter, so
/// that a review whose read times out is still answered (with its warning) before the deadline
/// cuts it off with a 503, which kube-apiserver would meet with the webhook's failure policy
/// (`Fail`: the HPA refused because the API server was slow).
pub fn target_read_timeout(request_timeout: Duration) -> Duration {
    TARGET_READ_TIMEOUT.min(request_timeout / 2)
}

/// The context cache of a running server.
pub struct ClusterContext {
    cache: ContextCache,
    settings: ContextSettings,
    started: Instant,
    /// The client that reads an HPA's target at admission (a custom resource, which the cache
    /// does not watch; a watched kind's target it lacks), bounded by [`target_read_timeout`];
    /// `None`: not read.
    targets: Option<Cluster>,
}

impl std::fmt::Debug for ClusterContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterContext")
            .field("cache", &self.cache)
            .field("settings", &self.settings)
            .field("reads_targets", &self.targets.is_some())
            .finish_non_exhaustive()
    }
}

/// What a request may read of the cluster.
#[derive(Debug)]
pub enum View<'a> {
    /// The server runs without a context cache: single-object checks, as always.
    Off,
    /// The cache, fresh: cross-object checks run against it. With it, the kinds RBAC refuses to
    /// watch ([`ContextCache::refused`]): fresh all the same, but a rule reading one sees none of
    /// its objects ([`partial_warning`]); and what the `GET` of the HPA's custom-resource target
    /// answered, when it was read ([`ClusterContext::read_target`]).
    Fresh(RwLockReadGuard<'a, Index>, Vec<ResourceKind>, Option<TargetRead>),
    /// The cache cannot be trusted (the reason): single-object checks only, said in a warning.
    Stale(String),
}

impl ClusterContext {
    /// Wraps a started cache.
    pub fn new(cache: ContextCache, settings: ContextSettings) -> ClusterContext {
        ClusterContext { cache, settings, started: Instant::now(), targets: None }
    }

    /// The same, reading the target of each HPA under review through `cluster`
    /// ([`ClusterContext::read_target`]), each read bounded by `timeout`
    /// ([`target_read_timeout`] of the server's deadline).
    pub fn reading_targets(self, cluster: &Cluster, timeout: Duration) -> ClusterContext {
        ClusterContext { targets: Some(cluster.with_timeout(timeout)), ..self }
    }

    /// What the server reads of the target of the HPA under review, in `namespace`, whose
    /// `spec.scaleTargetRef` is `target` (as the review's one decode read it:
    /// [`Read::scale_target`](crate::admission::Read::scale_target)):
    ///
    /// - a custom resource (not an Argo Rollout: the cache watches those) whose CRD the cache
    ///   holds: one `GET` of it, as `hpa-lint cluster` reads each, for the rules that read the
    ///   target (HPA410 on the field its CRD's `specReplicasPath` names, HPA403);
    /// - a workload of a kind the cache watches (a Deployment, an Argo Rollout, ...) that the
    ///   cache does not hold, when `confirm_absence` answers yes (the review would say HPA403,
    ///   warning or denial: [`Reviewer::says`](crate::admission::Reviewer::says), asked only
    ///   then, since most targets are in the cache): one LIST of its kind by
    ///   name ([`read_watched_target`]), since the watch may lag a workload written with the HPA
    ///   (`kubectl apply -f dir/`). Found, the rules read it as the watch will keep it; absent,
    ///   the API server said so at admission. Of a kind that is not served (an Argo Rollout
    ///   while its CRD is not installed: [`ContextCache::not_served`]), nothing is asked: it
    ///   cannot exist ([`TargetRead::NotServed`]).
    ///
    /// `None` when there is nothing to read, the view is not fresh (the review then checks the
    /// HPA alone), or targets are not read.
    pub async fn read_target(
        &self,
        namespace: &str,
        target: &CrossVersionObjectReference,
        confirm_absence: impl FnOnce() -> bool,
    ) -> Option<TargetRead> {
        let cluster = self.targets.as_ref()?;
        if self.cache.freshness(self.settings.stale_after) != Freshness::Fresh {
            return None;
        }
        let group = hpa_core::api::GroupVersion::parse(&target.api_version).ok()?;
        let group = group.group();
        if let Some(kind) = kinds::workload(group, &target.kind) {
            if target.name.is_empty() {
                return None;
            }
            // The watches' lock is not taken with the index's read lock held.
            let refused = self.cache.refused();
            {
                let index = self.cache.read();
                let world = Reads::new(index.objects(), &refused);
                // Only an absence HPA403 would conclude from: a kind watched, and RBAC allows.
                if world.workload_any_case(kind.group, kind.kind, namespace, &target.name).is_some()
                    || !world.would_hold(group, kind.kind, namespace, &target.name)
                {
                    return None;
                }
            }
            if !confirm_absence() {
                return None;
            }
            // A kind that is not served (Argo Rollouts not installed) has no objects: the
            // absence is certain, and there is nothing to ask.
            if self.cache.not_served(kind) {
                return Some(TargetRead::NotServed(ObjectId {
                    api_version: kind.api_version(),
                    kind: kind.kind.to_string(),
                    namespace: namespace.to_string(),
                    name: target.name.clone(),
                }));
            }
            return Some(read_watched_target(cluster, kind, namespace, &target.name).await);
        }
        let (crd, custom) = {
            let index = self.cache.read();
            let crd = custom_target_crd(&target.api_version, &target.kind, |group, kind| {
                hpa_core::rules::Objects::custom_resource_definition(index.objects(), group, kind)
            })?;
            let custom = CustomTarget::of(crd, namespace, &target.name)?;
            (crd.clone(), custom)
        };
        Some(read_custom_target(cluster, &crd, &custom).await)
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

    /// The view for one request, with what the `GET` of its HPA's custom-resource target
    /// answered ([`ClusterContext::read_target`]).
    pub fn view(&self, target: Option<TargetRead>) -> View<'_> {
        match self.cache.freshness(self.settings.stale_after) {
            Freshness::Fresh => {
                // The watches' lock is not taken with the index's read lock held.
                let refused = self.cache.refused();
                View::Fresh(self.cache.read(), refused, target)
            }
            Freshness::Stale(reason) => View::Stale(reason),
        }
    }
}

impl View<'_> {
    /// The index, when fresh.
    pub fn index(&self) -> Option<&Index> {
        match self {
            View::Fresh(index, ..) => Some(index),
            View::Off | View::Stale(_) => None,
        }
    }

    /// The kinds RBAC refuses to watch, when fresh (none otherwise).
    pub fn refused(&self) -> &[ResourceKind] {
        match self {
            View::Fresh(_, refused, _) => refused,
            View::Off | View::Stale(_) => &[],
        }
    }

    /// What the `GET` of the HPA's custom-resource target answered, when fresh and read.
    pub fn target(&self) -> Option<&TargetRead> {
        match self {
            View::Fresh(_, _, target) => target.as_ref(),
            View::Off | View::Stale(_) => None,
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
pub fn partial_warning(subject: Subject, unseen: &[ResourceKind]) -> Option<String> {
    if unseen.is_empty() {
        return None;
    }
    let checked = match subject {
        Subject::Hpa => "the cross-object rules of this HPA",
        Subject::Write => "this write against its HPAs",
    };
    let kinds: Vec<String> = unseen.iter().map(ResourceKind::resource).collect();
    Some(format!("hpa-webhook checked {checked} in part: RBAC refuses to watch {} (not read)", kinds.join(", ")))
}

/// Whether `read` is of the scale target of `hpa` (the object the server read before decoding the
/// review is the one the rules look for): the same API group (the version aside), kind,
/// namespace and name.
pub fn is_target_of(read: &TargetRead, hpa: &v2::HorizontalPodAutoscaler) -> bool {
    let id = read.id();
    let t = &hpa.spec.scale_target_ref;
    let (group, kind) = hpa_core::rules::target_group_kind(t);
    id.kind == kind && id.name == t.name && id.namespace == hpa.metadata.namespace && id.group() == group
}

/// The warning of a review whose HPA's target could not be read at admission (RBAC refused it,
/// the API server failed, the `GET` or LIST timed out): the rules that read the target (HPA410,
/// HPA403) did not see it. `None` when it was read, found or not, and when its kind is not
/// served (it cannot exist).
pub fn target_warning(read: &TargetRead) -> Option<String> {
    let checked = "hpa-webhook checked the cross-object rules of this HPA in part";
    match read {
        TargetRead::Refused(_, request) => Some(format!("{checked}: RBAC refuses to {request} (not read)")),
        TargetRead::TimedOut(_, why) | TargetRead::Failed(_, why) => {
            Some(format!("{checked}: its scale target was not read: {why}"))
        }
        TargetRead::Found(..) | TargetRead::Absent(_) | TargetRead::NotServed(_) => None,
    }
}

/// The identity of an HPA under admission, as the cache and the rules name it.
pub fn hpa_id(hpa: &v2::HorizontalPodAutoscaler) -> ObjectId {
    ObjectId {
        api_version: v2::API_VERSION.to_string(),
        kind: hpa_core::api::KIND.to_string(),
        namespace: hpa.metadata.namespace.clone(),
        name: hpa.metadata.name.to_string(),
    }
}
