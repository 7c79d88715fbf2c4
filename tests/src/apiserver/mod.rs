//! A test Kubernetes API server: the parts of the REST protocol `kube` uses, over HTTPS on
//! `127.0.0.1:0` with a certificate made in memory and a bearer token, so that the real client
//! stack (TLS, kubeconfig, discovery, paging, watches, errors) is tested without a cluster.
//!
//! It serves `/version`, discovery (`/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`,
//! and aggregated discovery when asked for `as=APIGroupDiscoveryList`), GET of objects and of
//! `scale` subresources, lists with `limit`/`continue`, `labelSelector` (a query
//! `labels.Parse` cannot read is a 400 in its words: [`labels`]) and `fieldSelector` (on
//! the fields kube-apiserver selects on for each kind; another, or a query
//! `fields.ParseSelector` cannot read, is a 400 in its words), and
//! watches (`watch=1`, `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`) with
//! ADDED/MODIFIED/DELETED/BOOKMARK events and a `410 Gone` ERROR event once the history has
//! been compacted. Errors are `Status` objects: 401 without the token, 403 where a test
//! refuses a resource or namespace, 404 for what is not served, and failures or delays on
//! demand. Tests drive it: [`TestApiServer::apply`], [`TestApiServer::delete`],
//! [`TestApiServer::scale_as_hpa`], [`TestApiServer::compact`], [`TestApiServer::refuse`],
//! [`TestApiServer::kill`], [`TestApiServer::freeze`], [`TestApiServer::hold_watches`].

pub mod fixtures;
mod http;
pub mod labels;
pub mod managed;
pub mod store;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use store::{Change, Store};

/// The token the server accepts.
pub const TOKEN: &str = "hpa-test-token-9f2c4e1a";

/// A failure injected on requests whose path starts with a prefix.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status code and message.
    Status(u16, String),
    /// Wait this long before answering.
    Delay(Duration),
    /// Answer a request that is not a watch with this status code and message; watches are
    /// served (a relist that keeps failing while the watches work).
    ListStatus(u16, String),
    /// Answer the next `times` requests with 429 and `Retry-After: retry_after`, as
    /// kube-apiserver's max-in-flight and API Priority and Fairness filters throttle
    /// (`tooManyRequests` in `apiserver/pkg/server/filters/maxinflight.go`: a plain-text body),
    /// then serve as usual.
    Throttle {
        /// The `Retry-After` header, in seconds.
        retry_after: u64,
        /// How many answers are 429 (`usize::MAX`: all).
        times: usize,
    },
    /// Answer with this status code and this plain text (`text/plain`), not a `Status`: what
    /// kube-aggregator answers for an APIService that is down (`service unavailable`, 503), or a
    /// proxy in front of the API server.
    Text(u16, String),
    /// Answer a request that is not a watch with 200 and this JSON text as it is: what a
    /// `Value` cannot hold (a lone surrogate escape kube-apiserver keeps in `fieldsV1`).
    Body(String),
}

/// What the server was asked, for assertions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// The path.
    pub path: String,
    /// The query string.
    pub query: String,
}

pub(crate) struct Shared {
    pub(crate) store: Mutex<Store>,
    pub(crate) changes: broadcast::Sender<Change>,
    pub(crate) refusals: Mutex<Vec<(Option<String>, Option<String>)>>,
    pub(crate) faults: Mutex<Vec<(String, Fault)>>,
    pub(crate) raw: Mutex<Vec<(String, Value)>>,
    pub(crate) log: Mutex<Vec<Logged>>,
    pub(crate) bookmark_interval: Mutex<Duration>,
    pub(crate) port: Mutex<u16>,
    /// While true, nothing is answered or sent: [`TestApiServer::freeze`].
    pub(crate) frozen: watch::Sender<bool>,
    /// The resources (`deployments.apps`) whose watches send nothing for now:
    /// [`TestApiServer::hold_watches`].
    pub(crate) held: watch::Sender<Vec<String>>,
    /// While true, `/api` and `/apis` answer the classic way whatever the client accepts:
    /// [`TestApiServer::classic_discovery_only`].
    pub(crate) classic_discovery: AtomicBool,
    /// The `gitVersion` `/version` answers; `None`: `/version` is refused (403).
    pub(crate) git_version: Mutex<Option<String>>,
}

impl Shared {
    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Returns once the server is not frozen.
    pub(crate) async fn thawed(&self) {
        let mut frozen = self.frozen.subscribe();
        let _ = frozen.wait_for(|f| !*f).await;
    }

    /// Returns once the watches of `resource` (`deployments.apps`) are not held.
    pub(crate) async fn released(&self, resource: &str) {
        let mut held = self.held.subscribe();
        let _ = held.wait_for(|h| !h.iter().any(|r| r == resource)).await;
    }
}

/// A running test API server. Dropping it stops it.
pub struct TestApiServer {
    addr: SocketAddr,
    ca_pem: String,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

impl TestApiServer {
    /// Starts a server on `127.0.0.1:0` serving the built-in resources.
    pub async fn start() -> TestApiServer {
        let (changes, _) = broadcast::channel(65_536);
        let shared = Arc::new(Shared {
            store: Mutex::new(Store::new()),
            changes,
            refusals: Mutex::new(Vec::new()),
            faults: Mutex::new(Vec::new()),
            raw: Mutex::new(Vec::new()),
            log: Mutex::new(Vec::new()),
            bookmark_interval: Mutex::new(Duration::from_secs(1)),
            port: Mutex::new(0),
            frozen: watch::channel(false).0,
            held: watch::channel(Vec::new()).0,
            classic_discovery: AtomicBool::new(false),
            git_version: Mutex::new(Some("v1.37.0".to_string())),
        });
        let (stop, stopped) = watch::channel(false);
        let (addr, ca_pem) = http::serve(shared.clone(), stopped).await;
        *lock(&shared.port) = addr.port();
        TestApiServer { addr, ca_pem, shared, stop }
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The server's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The CA certificate (PEM) that signed the serving certificate.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Writes a kubeconfig for this server into `dir` and returns its path. Contexts:
    /// `hpa-test` (the token, namespace `shop`), `hpa-test-expired` (a token the server
    /// rejects) and `hpa-test-untrusted` (no CA: the certificate cannot be verified).
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        use base64::Engine as _;
        let ca = base64::engine::general_purpose::STANDARD.encode(&self.ca_pem);
        let text = format!(
            "apiVersion: v1
kind: Config
clusters:
- name: hpa-test
  cluster:
    server: {url}
    certificate-authority-data: {ca}
- name: hpa-test-untrusted
  cluster:
    server: {url}
users:
- name: reader
  user:
    token: {TOKEN}
- name: expired
  user:
    token: expired-7d1b0c
contexts:
- name: hpa-test
  context:
    cluster: hpa-test
    user: reader
    namespace: shop
- name: hpa-test-expired
  context:
    cluster: hpa-test
    user: expired
- name: hpa-test-untrusted
  context:
    cluster: hpa-test-untrusted
    user: reader
current-context: hpa-test
preferences: {{}}
",
            url = self.url()
        );
        let path = dir.join("kubeconfig");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        path
    }

    /// Serves an optional CRD or aggregated API (`rollouts`, `verticalpodautoscalers`,
    /// `scaledobjects`, `podmetrics` (`metrics.k8s.io/v1beta1`; `podmetrics-v1`: v1 preferred and v1beta1, `podmetrics-v1alpha1`: v1alpha1 only), `secrets`, `validatingwebhookconfigurations` (built-in
    /// kinds a Helm chart's `lookup` reads), `widgets`: a CRD with a scale subresource, `workerpools`:
    /// one whose count is `spec.size`, `workerpools-v2`: the same served at v2 (preferred) and
    /// v1, `fleets`: a cluster-scoped CRD with a scale subresource, `externalmetrics` and `custommetrics`: those APIs'
    /// groups, answered by [`Self::serve_raw`]).
    pub fn install(&self, name: &str) {
        let resource = store::optional(name).unwrap_or_else(|| panic!("unknown optional resource {name}"));
        self.shared.store().install(resource);
    }

    /// Stops serving what [`Self::install`] served (`rollouts`), as kube-apiserver does once its
    /// CRD is deleted: discovery no longer lists it, its requests answer 404, its objects are gone
    /// (without watch events: open watches of it only end at their timeout). The CRD object, if
    /// the test stored one, is the test's to delete.
    pub fn uninstall(&self, name: &str) {
        let resource = store::optional(name).unwrap_or_else(|| panic!("unknown optional resource {name}"));
        self.shared.store().uninstall(&resource.group, &resource.plural);
    }

    /// Writes objects (`kind: List` expanded) as `manager` does with `operation` and
    /// kube-apiserver stores them ([`store::Store::write_as`]): `Apply` is server-side apply
    /// (the manager owns what it applied; fields others own stay), `Update` a create or, on an
    /// existing object, the three-way merge patch of client-side `kubectl apply`
    /// (`kubectl-client-side-apply`, which writes its last-applied configuration) or `helm
    /// upgrade` (any other manager); the managed fields record who owns what after it
    /// ([`managed`]), as a client writing that object gets.
    pub fn apply_as(&self, objects: &[Value], manager: &str, operation: &str) -> Vec<Value> {
        let mut out = Vec::new();
        for object in objects.iter().flat_map(expand) {
            let mut store = self.shared.store();
            let stored = store.write_as(object, manager, operation).unwrap_or_else(|e| panic!("test API server: {e}"));
            if let Some(change) = store.history.last() {
                let _ = self.shared.changes.send(change.clone());
            }
            out.push(stored);
        }
        out
    }

    /// [`apply_as`](Self::apply_as) by `kubectl` server-side apply.
    pub fn apply(&self, objects: &[Value]) -> Vec<Value> {
        self.apply_as(objects, "kubectl", "Apply")
    }

    /// Stores an object exactly as given (plus what the server sets), for objects whose
    /// metadata the test writes itself (status, managed fields).
    pub fn put(&self, object: Value) -> Value {
        let mut store = self.shared.store();
        let stored = store.put(object).unwrap_or_else(|e| panic!("test API server: {e}"));
        if let Some(change) = store.history.last() {
            let _ = self.shared.changes.send(change.clone());
        }
        stored
    }

    /// Deletes an object of `group`/`plural`; whether it existed.
    pub fn delete(&self, group: &str, plural: &str, namespace: &str, name: &str) -> bool {
        let mut store = self.shared.store();
        let Some(r) = store.resource(group, plural) else { return false };
        let deleted = store.delete(r, namespace, name).is_some();
        if deleted && let Some(change) = store.history.last() {
            let _ = self.shared.changes.send(change.clone());
        }
        deleted
    }

    /// What the HPA controller does when it rescales a target: writes `spec.replicas` through
    /// the scale subresource as `kube-controller-manager`, taking `f:spec.f:replicas` from
    /// every other manager (structured-merge-diff's forced update). Returns the stored object.
    pub fn scale_as_hpa(&self, group: &str, plural: &str, namespace: &str, name: &str, replicas: i64) -> Value {
        let mut object = {
            let store = self.shared.store();
            let r = store.resource(group, plural).unwrap_or_else(|| panic!("{plural}.{group} is not served"));
            store.objects[r]
                .get(&(namespace.to_string(), name.to_string()))
                .cloned()
                .unwrap_or_else(|| panic!("{plural} {namespace}/{name} does not exist"))
        };
        store::set(&mut object, &["spec", "replicas"], json!(replicas));
        let mut entries: Vec<Value> =
            object.pointer("/metadata/managedFields").and_then(Value::as_array).cloned().unwrap_or_default();
        for e in &mut entries {
            if let Some(spec) = e.pointer_mut("/fieldsV1/f:spec").and_then(Value::as_object_mut) {
                spec.remove("f:replicas");
            }
        }
        entries.retain(|e| {
            !(e.get("manager") == Some(&json!("kube-controller-manager"))
                && e.get("subresource") == Some(&json!("scale")))
        });
        entries.push(json!({
            "manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
            "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}},
            "subresource": "scale",
        }));
        store::set(&mut object, &["metadata", "managedFields"], Value::Array(entries));
        self.put(object)
    }

    /// Compacts the history: watches and continue tokens from before now get 410 Gone.
    pub fn compact(&self) {
        self.shared.store().compact();
    }

    /// Refuses (403) `resource` (`deployments.apps`, `None`: every resource) in `namespace`
    /// (`None`: everywhere, including cluster-wide lists).
    pub fn refuse(&self, resource: Option<&str>, namespace: Option<&str>) {
        lock(&self.shared.refusals).push((resource.map(String::from), namespace.map(String::from)));
    }

    /// The `gitVersion` `/version` answers (`v1.37.0` unless set); `None` refuses `/version`
    /// (403), as an API server whose RBAC does not grant `get` on that path does.
    pub fn set_git_version(&self, git_version: Option<&str>) {
        *lock(&self.shared.git_version) = git_version.map(String::from);
    }

    /// Injects a fault on every request whose path starts with `prefix`.
    pub fn fault(&self, prefix: &str, fault: Fault) {
        lock(&self.shared.faults).push((prefix.to_string(), fault));
    }

    /// Ends every fault [`TestApiServer::fault`] injected: the server answers as usual again.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }

    /// Serves `body` at `path` (any query, or, when `path` has one, `?query` exactly as sent),
    /// for the custom and external metrics APIs.
    pub fn serve_raw(&self, path: &str, body: Value) {
        lock(&self.shared.raw).push((path.to_string(), body));
    }

    /// How often watches that allow bookmarks get one.
    pub fn set_bookmark_interval(&self, every: Duration) {
        *lock(&self.shared.bookmark_interval) = every;
    }

    /// The current resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.shared.store().rv
    }

    /// The requests served so far.
    pub fn requests(&self) -> Vec<Logged> {
        lock(&self.shared.log).clone()
    }

    /// Stops the server: the listener closes and open connections (watches) are cut.
    pub fn kill(&self) {
        let _ = self.stop.send(true);
    }

    /// Freezes the server as `kill -STOP` does: connections are accepted and kept open, but no
    /// request is answered and no watch sends anything (no event, no bookmark, no end at its
    /// timeout) until [`TestApiServer::thaw`].
    pub fn freeze(&self) {
        self.shared.frozen.send_replace(true);
    }

    /// Holds back what the watches of `resource` (`deployments.apps`) send: events and bookmarks
    /// wait, in order, until [`TestApiServer::release_watches`], while lists and `GET`s answer
    /// at once. A watch cache that lags the API server: an object written now is in a list's
    /// answer before its watch event reaches a client.
    pub fn hold_watches(&self, resource: &str) {
        self.shared.held.send_modify(|h| h.push(resource.to_string()));
    }

    /// Ends [`TestApiServer::hold_watches`] of `resource`: what waited is sent.
    pub fn release_watches(&self, resource: &str) {
        self.shared.held.send_modify(|h| h.retain(|r| r != resource));
    }

    /// Answers discovery as a server (or a proxy) without aggregated discovery does:
    /// `/apis` is an `APIGroupList` even when the client asks for an `APIGroupDiscoveryList`
    /// (`Accept` falls back to its plain `application/json`).
    pub fn classic_discovery_only(&self) {
        self.shared.classic_discovery.store(true, Ordering::SeqCst);
    }

    /// Ends [`TestApiServer::freeze`]: what waited is answered and sent.
    pub fn thaw(&self) {
        self.shared.frozen.send_replace(false);
    }
}

impl Drop for TestApiServer {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

fn expand(object: &Value) -> Vec<&Value> {
    match object.get("items").and_then(Value::as_array) {
        Some(items) if object.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) => {
            items.iter().collect()
        }
        _ => vec![object],
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A [`TestApiServer`] on a runtime of its own, with a kubeconfig file that points at it: what
/// the `hpa-lint cluster` and `hpa-lint diagnose` tests run the binary's code against.
pub struct LiveCluster {
    /// The runtime the server runs on.
    pub runtime: tokio::runtime::Runtime,
    /// The server.
    pub server: TestApiServer,
    /// The kubeconfig file (in a temporary directory kept as long as this value).
    pub kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
}

impl LiveCluster {
    /// Starts a server on a two-thread runtime and writes its kubeconfig.
    pub fn start() -> LiveCluster {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
        let server = runtime.block_on(TestApiServer::start());
        let dir = tempfile::tempdir().expect("a temporary directory");
        let kubeconfig = server.write_kubeconfig(dir.path());
        LiveCluster { runtime, server, kubeconfig, _dir: dir }
    }

    /// `hpa-lint SUBCOMMAND --kubeconfig FILE ARGS...`, outside the server's runtime (the
    /// command runs its own).
    pub fn hpa_lint(&self, subcommand: &str, args: &[&str]) -> crate::cli::CapturedRun {
        let kubeconfig = self.kubeconfig.display().to_string();
        let mut all = vec![subcommand, "--kubeconfig", kubeconfig.as_str()];
        all.extend_from_slice(args);
        let _guard = self.runtime.enter();
        std::thread::scope(|s| s.spawn(|| crate::cli::hpa_lint(&all, "")).join().expect("hpa-lint does not panic"))
    }
}
