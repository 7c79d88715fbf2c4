//! The webhook's context cache (hpa-cluster's `watch`) against the test API server failing in
//! each way an API server fails: whether its view may be trusted, and what it reports.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpa_cluster::watch::Freshness;
use hpa_cluster::{CacheOptions, ClientOptions, Cluster, ContextCache, kinds};
use hpa_tests::apiserver::TestApiServer;
use hpa_tests::apiserver::fixtures;

struct Setup {
    server: TestApiServer,
    _dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

async fn setup() -> Setup {
    let server = TestApiServer::start().await;
    server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("requests-set"), "shop"));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    Setup { server, _dir: dir, kubeconfig }
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
async fn until(cache: &ContextCache, stale_after: Duration, within: Duration, done: impl Fn(&Freshness) -> bool) -> Freshness {
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
/// the view is fresh again once the server answers.
#[test]
fn a_hung_api_server_makes_the_view_stale_within_the_bound() {
    runtime().block_on(async {
        let s = setup().await;
        let bound = Duration::from_secs(2);
        let cache = s.cache(bound).await;
        assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:#?}", cache.status());
        // Quiet (no change at all) for twice the bound: fresh all along.
        let quiet = Instant::now() + 2 * bound;
        while Instant::now() < quiet {
            assert_eq!(cache.freshness(bound), Freshness::Fresh, "{:#?}", cache.status());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let watches = s.server.requests().iter().filter(|r| r.query.contains("watch=true")).count();
        let timeouts = s.server.requests().iter().filter(|r| r.query.contains("timeoutSeconds=1")).count();
        assert!(timeouts > 0 && timeouts == watches, "each watch asks for half the bound: {timeouts} of {watches}");
        assert!(s.server.requests().iter().all(|r| !r.query.contains("watch=true") || r.query.contains("allowWatchBookmarks=true")));

        s.server.freeze();
        let frozen = Instant::now();
        let Freshness::Stale(reason) = until(&cache, bound, Duration::from_secs(10), stale).await else { unreachable!() };
        let after = frozen.elapsed();
        assert!(after > bound / 2 && after < bound + Duration::from_secs(2), "stale after {after:?}");
        assert!(reason.starts_with("the watch of ") && reason.contains(" has been silent for "), "{reason}");
        // No request failed: nothing is broken, the watches are only silent.
        for w in cache.status() {
            assert_eq!(w.broken_for, None, "{w:?}");
        }
        let deployments = cache.status().into_iter().find(|w| w.kind == kinds::DEPLOYMENT).unwrap();
        assert!(deployments.since_last_event.unwrap() > bound / 2, "{deployments:?}");

        s.server.thaw();
        until(&cache, bound, Duration::from_secs(10), |f| *f == Freshness::Fresh).await;
        drop(cache);
    });
}
