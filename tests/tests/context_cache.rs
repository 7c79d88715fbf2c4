//! The webhook's context cache (hpa-cluster's `watch`) against the test API server failing in
//! each way an API server fails: whether its view may be trusted, and what it reports.

use std::time::{Duration, Instant};

use hpa_cluster::watch::Freshness;
use hpa_cluster::{CacheOptions, ClientOptions, Cluster, ContextCache, kinds};
use hpa_tests::apiserver::Fault;
use hpa_tests::apiserver::fixtures;
use serde_json::json;

use super::cluster::Setup;

/// The test API server holding the `requests-set` fixture in `shop`, and its kubeconfig.
async fn setup() -> Setup {
    let s = super::cluster::setup().await;
    s.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("requests-set"), "shop"));
    s
}

impl Setup {
    async fn cache(&self, stale_after: Duration) -> ContextCache {
        let options = ClientOptions { kubeconfig: Some(self.kubeconfig.clone()), ..ClientOptions::default() };
        let cluster = Cluster::connect(&options).await.unwrap();
        ContextCache::start(cluster, CacheOptions { stale_after, ..CacheOptions::default() })
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Polls `freshness` until `done` says so, or fails after `within`.
async fn until(
    cache: &ContextCache,
    stale_after: Duration,
    within: Duration,
    done: impl Fn(&Freshness) -> bool,
) -> Freshness {
    let deadline = Instant::now() + within;
    loop {
        let freshness = cache.freshness(stale_after);
        if done(&freshness) {
            return freshness;
        }
        assert!(Instant::now() < deadline, "{freshness:?} after {within:?}: {:#?}", cache.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn stale(f: &Freshness) -> bool {
    matches!(f, Freshness::Stale(_))
}

/// An API server that hangs with its sockets open (`kill -STOP`) fails no request: the view goes
/// stale because the watches are no longer heard from (no event, no bookmark), within the bound;
/// a quiet but healthy one stays fresh (each watch ends after half the bound and is renewed), and
/// the view is fresh again once the server answers. The bound is 6 s (watches of 3 s, a bookmark
/// every second), and no check depends on how promptly this test's own tasks run: staleness
/// may come no sooner than a watch has been silent for the bound (the silence before the freeze
/// counts, measured at the freeze), and no later than twice the bound. With a 2 s bound, and
/// again with 4 s and a lower limit of half the bound after the freeze, the test failed on a
/// loaded 2-core CI machine, where a task can wait seconds for a thread.
#[test]
fn a_hung_api_server_makes_the_view_stale_within_the_bound() {
    runtime().block_on(async {
        let s = setup().await;
        let bound = Duration::from_secs(6);
        let cache = s.cache(bound).await;
        assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:#?}", cache.status());
        // Quiet (no change at all) for twice the bound: fresh all along.
        let quiet = Instant::now() + 2 * bound;
        while Instant::now() < quiet {
            assert_eq!(cache.freshness(bound), Freshness::Fresh, "{:#?}", cache.status());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let watches = s.server.requests().iter().filter(|r| r.query.contains("watch=true")).count();
        let timeouts =
            s.server.requests().iter().filter(|r| r.query.split('&').any(|p| p == "timeoutSeconds=3")).count();
        assert!(timeouts > 0 && timeouts == watches, "each watch asks for half the bound: {timeouts} of {watches}");
        assert!(
            s.server
                .requests()
                .iter()
                .all(|r| !r.query.contains("watch=true") || r.query.contains("allowWatchBookmarks=true"))
        );

        s.server.freeze();
        let frozen = Instant::now();
        // How long the longest-silent watch had been silent when the server stopped answering.
        let silent_before = cache.status().iter().filter_map(|w| w.since_heard).max().unwrap();
        let Freshness::Stale(reason) = until(&cache, bound, Duration::from_secs(30), stale).await else {
            unreachable!()
        };
        let after = frozen.elapsed();
        assert!(after + silent_before > bound, "stale {after:?} after the freeze, {silent_before:?} silent before it");
        assert!(after < 2 * bound, "stale after {after:?}");
        assert!(reason.starts_with("the watch of ") && reason.contains(" has been silent for "), "{reason}");
        // No request failed: nothing is broken, the watches are only silent.
        let status = cache.status();
        for w in &status {
            assert_eq!(w.broken_for, None, "{w:?}");
        }
        assert!(status.iter().any(|w| w.since_heard.is_some_and(|heard| heard > bound)), "{status:#?}");

        s.server.thaw();
        until(&cache, bound, Duration::from_secs(15), |f| *f == Freshness::Fresh).await;
        drop(cache);
    });
}

/// An API server that was never reached is broken from the first attempt on, and stays so:
/// kube-runtime's `Init` before each list attempt is no answer (it was taken for a recovery,
/// so `broken_for` never passed the backoff and the watch was "recovered" every second).
#[test]
fn a_server_never_reached_is_never_recovered() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.kill();
        let cache = s.cache(Duration::from_secs(2)).await;
        let start = Instant::now();
        let mut last: Option<Duration> = None;
        while start.elapsed() < Duration::from_secs(4) {
            let deployments = cache.status().into_iter().find(|w| w.kind == kinds::DEPLOYMENT);
            if let Some(broken) = deployments.as_ref().and_then(|w| w.broken_for) {
                assert!(last.is_none_or(|l| broken >= l), "broken_for went back: {last:?} -> {broken:?}");
                last = Some(broken);
            } else {
                assert!(last.is_none(), "recovered without a server: {deployments:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(last.is_some_and(|l| l > Duration::from_secs(3)), "{last:?}");
        assert!(!cache.synced());
        assert!(stale(&cache.freshness(Duration::from_secs(2))));
        drop(cache);
    });
}

/// A `410 Gone` on a watch (its resourceVersion compacted away) is no failure: the kind relists
/// (syncing meanwhile), and no watch is reported broken (client-go's reflector logs an expired
/// watch at V(4)).
#[test]
fn an_expired_watch_relists_without_being_broken() {
    use hpa_cluster::watch::Phase;
    runtime().block_on(async {
        let s = setup().await;
        let bound = Duration::from_secs(2);
        let cache = s.cache(bound).await;
        assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:#?}", cache.status());
        let lists = |s: &Setup| {
            s.server
                .requests()
                .iter()
                .filter(|r| r.path == "/apis/apps/v1/deployments" && !r.query.contains("watch=true"))
                .count()
        };
        assert_eq!(lists(&s), 1);
        // A write of another kind, then a compaction: the Deployments' watch, renewed within a
        // second from its own (older) resourceVersion, gets `410 Gone`.
        s.server.apply(&[json!({"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "defaults", "namespace": "shop"},
            "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]}})]);
        s.server.compact();
        let deadline = Instant::now() + Duration::from_secs(8);
        let mut relisting = false;
        loop {
            let status = cache.status();
            let deployments = status.iter().find(|w| w.kind == kinds::DEPLOYMENT).unwrap();
            relisting |= deployments.phase == Phase::Syncing;
            for w in status.iter().filter(|w| !w.kind.optional) {
                assert!(w.broken_for.is_none() && w.error.is_none(), "{w:?}");
            }
            if lists(&s) == 2 && deployments.phase == Phase::Synced {
                break;
            }
            assert!(Instant::now() < deadline, "no relist within 8 s: {status:#?}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(relisting, "the Deployments were syncing while they relisted");
        assert_eq!(cache.freshness(bound), Freshness::Fresh);
        drop(cache);
    });
}

/// A `410 Gone` relist whose lists keep failing: the index still holds the previous list, but
/// the kind is no longer followed, so the view goes stale after the bound (the relist's `Init`
/// took the broken watch for recovered, and the view stayed fresh for as long as it lasted);
/// the kinds whose relist succeeds stay current.
#[test]
fn a_relist_that_keeps_failing_goes_stale_after_the_bound() {
    runtime().block_on(async {
        let s = setup().await;
        // 4 s, as in the hung-server test: a loaded 2-core machine can keep a task waiting for
        // a second.
        let bound = Duration::from_secs(4);
        let cache = s.cache(bound).await;
        assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:#?}", cache.status());
        let before = cache.read().count(&kinds::DEPLOYMENT);
        assert!(before > 0);
        // The next watches (each renewed after half the bound) get 410 Gone; Deployments' lists
        // fail.
        s.server.fault("/apis/apps/v1/deployments", Fault::ListStatus(500, "etcd is down".into()));
        s.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
        s.server.compact();
        let compacted = Instant::now();
        let Freshness::Stale(reason) = until(&cache, bound, Duration::from_secs(20), stale).await else {
            unreachable!()
        };
        assert!(compacted.elapsed() > bound, "stale after {:?}: {reason}", compacted.elapsed());
        assert!(reason.starts_with("the watch of deployments.apps "), "{reason}");
        let deployments = cache.status().into_iter().find(|w| w.kind == kinds::DEPLOYMENT).unwrap();
        assert!(deployments.synced && deployments.broken_for.is_some(), "{deployments:?}");
        assert_eq!(deployments.phase, hpa_cluster::watch::Phase::Syncing);
        // The previous list is still held; the other kinds relisted.
        assert_eq!(cache.read().count(&kinds::DEPLOYMENT), before);
        // Each other kind gets its own 410 when its watch is renewed, and relists after the
        // watches' backoff (at most 2.5 s): it is current again (not broken, heard within the
        // bound) while the Deployments stay stale.
        let current = |w: &hpa_cluster::watch::WatchStatus| {
            w.broken_for.is_none() && w.since_heard.is_some_and(|heard| heard < bound)
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let status = cache.status();
            let others: Vec<_> = status.iter().filter(|w| w.kind != kinds::DEPLOYMENT && !w.kind.optional).collect();
            if others.iter().all(|w| current(w)) {
                break;
            }
            assert!(Instant::now() < deadline, "the other kinds did not relist within 10 s: {others:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(stale(&cache.freshness(bound)), "the Deployments' lists still fail: {:#?}", cache.status());
        drop(cache);
    });
}

/// What an outage of kube-apiserver did to the cache ([`outage`]).
struct Outage {
    /// From the outage's start until every watch was broken.
    broken: Duration,
    /// The error of the watch of Deployments then.
    error: Option<String>,
    /// From the server's return until every kind had relisted and the view was fresh.
    relisted: Duration,
    /// The lists of Deployments the server answered (not watches).
    lists: usize,
}

/// kube-apiserver down for 8 s (every request answered `code` with `message`), then back without
/// its watch cache (written meanwhile, and the history gone: every watch from before gets `410
/// Gone`).
async fn outage(code: u16, message: &str) -> Outage {
    let s = setup().await;
    let bound = Duration::from_secs(4);
    let cache = s.cache(bound).await;
    assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:#?}", cache.status());
    s.server.fault("/", Fault::Status(code, message.into()));
    // Each watch ends after half the bound and fails to start again.
    let down = Instant::now();
    until(&cache, bound, Duration::from_secs(10), |_| {
        cache.status().iter().filter(|w| !w.kind.optional).all(|w| w.broken_for.is_some())
    })
    .await;
    let broken = down.elapsed();
    let error = cache.status().into_iter().find(|w| w.kind == kinds::DEPLOYMENT).and_then(|w| w.error);
    tokio::time::sleep(Duration::from_secs(8).saturating_sub(down.elapsed())).await;
    s.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
    s.server.compact();
    s.server.clear_faults();
    let back = Instant::now();
    until(&cache, bound, Duration::from_secs(30), |f| {
        *f == Freshness::Fresh
            && cache
                .status()
                .iter()
                .filter(|w| !w.kind.optional)
                .all(|w| w.broken_for.is_none() && w.synced && w.phase == hpa_cluster::watch::Phase::Synced)
    })
    .await;
    let relisted = back.elapsed();
    let lists = s
        .server
        .requests()
        .iter()
        .filter(|r| r.path == "/apis/apps/v1/deployments" && !r.query.contains("watch=true"))
        .count();
    drop(cache);
    Outage { broken, error, relisted, lists }
}

/// kube-apiserver down for 8 s (every request answered 500), then back without its watch cache:
/// every kind has relisted and the view is fresh within 8 s of the server answering again (about
/// 5 s: at most 2.5 s to ask again, 2.5 s after the 410). Under kube-runtime's `DefaultBackoff`
/// (0.8 s doubling to 30 s, not reset by the outage's errors) the first watch after the outage
/// came seconds late and its 410 waited the grown delay again before the relist: 16 s here, 64 s
/// after a 20 s outage.
#[test]
fn after_an_outage_every_kind_relists_within_seconds() {
    runtime().block_on(async {
        let o = outage(500, "etcd is down").await;
        eprintln!("every kind relisted {:?} after the API server came back", o.relisted);
        assert!(o.relisted < Duration::from_secs(8), "relisted after {:?}", o.relisted);
        // Each kind listed again after the 410 (the first list and the relist).
        assert!(o.lists >= 2, "{} lists of deployments", o.lists);
    });
}

/// An outage answered 503 without `Retry-After` (a load balancer with no kube-apiserver behind it)
/// breaks every watch as soon as it is renewed, as a 500 does: client-go repeats only an answer
/// that names its wait, and so do the watches (`RetryAfterPolicy`); the view is fresh again within
/// seconds of the server's return. Under kube-client's default retry (429, 503 and 504 repeated
/// with a backoff doubling from 5 ms to 1000 s, 15 times) the request kept retrying out of sight:
/// no watch was ever broken, only silent, and each slept on after the server was back (the view
/// stale 31 s after a 60 s outage, 22 s after 60 s of 429 with `Retry-After: 1`).
#[test]
fn an_outage_answered_503_breaks_the_watches_and_they_recover_within_seconds() {
    runtime().block_on(async {
        let o = outage(503, "no endpoints available for service \"kubernetes\"").await;
        eprintln!("every watch broken {:?} into the outage; every kind relisted {:?} after it", o.broken, o.relisted);
        assert!(o.error.as_deref().is_some_and(|e| e.contains("no endpoints available")), "{:?}", o.error);
        assert!(o.relisted < Duration::from_secs(8), "relisted after {:?}", o.relisted);
    });
}
