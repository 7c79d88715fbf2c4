//! hpa-cluster and kube's client and watcher against the test API server, over TLS with a
//! real kubeconfig: discovery, paging, refusals, errors, watches, the replicas decision and the
//! inputs of a diagnosis.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpa_cluster::diagnose::{self, MetricsErrors};
use hpa_cluster::kinds;
use hpa_cluster::{CacheOptions, ClientOptions, Cluster, ContextCache, Error, NoteKind, Scope, read_inventory};
use hpa_core::api::Strictness;
use hpa_core::evaluator::{ConditionStatus, PodPhase, Timestamp};
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::rules::Objects as _;
use hpa_core::rules::replicas_owner::SetBy;
use hpa_tests::apiserver::fixtures::{self, PodState};
use hpa_tests::apiserver::{Fault, TestApiServer};
use serde_json::{Value, json};

/// A test API server and a kubeconfig for it (the other modules' setups start from it).
pub(crate) struct Setup {
    pub(crate) server: TestApiServer,
    _dir: tempfile::TempDir,
    pub(crate) kubeconfig: PathBuf,
}

pub(crate) async fn setup() -> Setup {
    let server = TestApiServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    Setup { server, _dir: dir, kubeconfig }
}

impl Setup {
    async fn connect_with(&self, context: Option<&str>, timeout: Duration) -> Result<Cluster, Error> {
        Cluster::connect(&ClientOptions {
            kubeconfig: Some(self.kubeconfig.clone()),
            context: context.map(String::from),
            in_cluster: false,
            timeout,
            environment: hpa_cluster::Environment::default(),
        })
        .await
    }

    async fn connect(&self) -> Cluster {
        self.connect_with(None, Duration::from_secs(5)).await.unwrap()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// The HPAs and workloads of several lint fixtures, in namespace `shop`.
fn shop() -> Vec<Value> {
    let mut objects = fixtures::in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
    objects.extend(fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
    objects
}

#[test]
fn pages_follow_continue_tokens() {
    runtime().block_on(async {
        let s = setup().await;
        let mut objects = fixtures::in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
        objects.extend(fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "payments"));
        let hpas: Vec<Value> = objects
            .into_iter()
            .filter(|o| o["kind"] == "HorizontalPodAutoscaler" && o["apiVersion"] == "autoscaling/v2")
            .collect();
        s.server.apply(&hpas);
        let cluster = s.connect().await;
        let mut names = Vec::new();
        let summary = cluster
            .list_each(&kinds::HPA, None, &[], 2, |listed| {
                let kinds::Listed::Item(item) = listed else { panic!("no restart expected") };
                // Built-in list items come without apiVersion and kind, as from kube-apiserver.
                assert!(item.get("kind").is_none());
                let meta = &item["metadata"];
                names.push(format!("{}/{}", meta["namespace"].as_str().unwrap(), meta["name"].as_str().unwrap()));
            })
            .await
            .unwrap();
        assert_eq!(summary.pages, 3);
        assert_eq!(summary.items, 5);
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, names, "every HPA once, in key order");
        let lists: Vec<_> =
            s.server.requests().into_iter().filter(|r| r.path.ends_with("/horizontalpodautoscalers")).collect();
        assert_eq!(lists.len(), 3);
        assert!(lists[0].query.contains("limit=2") && !lists[0].query.contains("continue"));
        assert!(lists[1].query.contains("continue=") && lists[2].query.contains("continue="));
    });
}

/// The first item of a list, one per page: no further page is asked for once it came, though
/// the server offers one (`continue`).
#[test]
fn the_first_object_of_a_list_is_one_page() {
    runtime().block_on(async {
        let s = setup().await;
        let hpas: Vec<Value> = (0..3)
            .map(|i| {
                let mut h = fixtures::external_hpa(&format!("h{i}"), 1, 5);
                h["metadata"]["namespace"] = json!("shop");
                h
            })
            .collect();
        s.server.apply(&hpas);
        let cluster = s.connect().await;
        let first = cluster.first_object(&kinds::HPA, Some("shop"), &[]).await.unwrap().unwrap();
        assert_eq!(first.metadata.name.as_deref(), Some("h0"));
        let lists: Vec<_> =
            s.server.requests().into_iter().filter(|r| r.path.ends_with("/horizontalpodautoscalers")).collect();
        assert_eq!(lists.len(), 1, "{lists:?}");
        assert_eq!(lists[0].query, "limit=1");
        let none = cluster.first_object(&kinds::HPA, Some("shop"), &[("fieldSelector", "metadata.name=h9")]).await;
        assert!(none.unwrap().is_none());
    });
}

/// A label selector kube-apiserver cannot parse (`labels.Parse`) is a 400 in its words before
/// anything is read; one it parses selects as it does (`in` among values is a value).
#[test]
fn an_unparsable_label_selector_is_a_bad_request() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let cluster = s.connect().await;
        let refused = cluster.first_object(&kinds::DEPLOYMENT, Some("shop"), &[("labelSelector", "app:web")]).await;
        let message = format!("{}", refused.expect_err("the selector is refused"));
        assert!(
            message
                .contains(r#"unable to parse requirement: <nil>: Invalid value: "app:web": name part must consist of"#),
            "{message}"
        );
        let found =
            cluster.first_object(&kinds::DEPLOYMENT, Some("shop"), &[("labelSelector", "!absent, x notin (in)")]).await;
        assert!(found.expect("the selector parses").is_some());
    });
}

/// A watched kind's target read by name at admission: found (trimmed as the watch keeps it),
/// absent, or, where the API server refuses the selector (400) or does not answer, neither.
#[test]
fn a_watched_target_is_listed_by_name() {
    use hpa_cluster::inventory::{TargetRead, read_watched_target};
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let cluster = s.connect().await;
        let TargetRead::Found(web, _, None) = read_watched_target(&cluster, &kinds::DEPLOYMENT, "shop", "web").await
        else {
            panic!("web is found")
        };
        assert_eq!((web.id.api_version.as_str(), web.id.kind.as_str()), ("apps/v1", "Deployment"));
        assert_eq!((web.id.namespace.as_str(), web.id.name.as_str()), ("shop", "web"));
        let lists: Vec<_> = s.server.requests().into_iter().filter(|r| r.path.ends_with("/deployments")).collect();
        assert_eq!(lists.len(), 1, "{lists:?}");
        assert_eq!(lists[0].path, "/apis/apps/v1/namespaces/shop/deployments");
        assert_eq!(lists[0].query, "fieldSelector=metadata.name%3Dweb&limit=1");
        let absent = read_watched_target(&cluster, &kinds::DEPLOYMENT, "shop", "ghost").await;
        assert!(matches!(&absent, TargetRead::Absent(id) if id.name == "ghost"), "{absent:?}");
        // An API server that refuses the selector says nothing of the target.
        s.server.fault(
            "/apis/apps/v1/namespaces/shop/deployments",
            Fault::Status(400, r#""metadata.name" is not a known field selector"#.into()),
        );
        let refused = read_watched_target(&cluster, &kinds::DEPLOYMENT, "shop", "ghost").await;
        assert!(matches!(refused, TargetRead::Failed(..)), "{refused:?}");
    });
}

#[test]
fn an_expired_continue_token_restarts_the_list() {
    runtime().block_on(async {
        let s = setup().await;
        let hpas: Vec<Value> = shop().into_iter().filter(|o| o["kind"] == "HorizontalPodAutoscaler").collect();
        s.server.apply(&hpas);
        let cluster = s.connect().await;
        let mut first_page = true;
        let mut handed = Vec::new();
        let first = hpas[0].clone();
        let server = &s.server;
        let summary = cluster
            .list_each(&kinds::HPA, None, &[], 2, |listed| {
                handed.push(match &listed {
                    kinds::Listed::Item(item) => item["metadata"]["name"].as_str().unwrap().to_string(),
                    kinds::Listed::Restart => "(restart)".to_string(),
                });
                if std::mem::take(&mut first_page) {
                    // An HPA changes and etcd compacts between two pages: the token is now
                    // too old (410).
                    server.put(first.clone());
                    server.compact();
                }
            })
            .await
            .unwrap();
        assert!(summary.restarted);
        // Six manifests, five HPAs (HPA410's web replaces HPA201's): the first page's two, then,
        // told to drop them, the whole list in one unpaged request, as client-go's pager does.
        assert_eq!(handed.len(), 2 + 1 + 5, "{handed:?}");
        assert_eq!(handed[2], "(restart)");
        assert_eq!((summary.items, summary.pages), (5, 1));
        let lists: Vec<_> =
            s.server.requests().into_iter().filter(|r| r.path.ends_with("/horizontalpodautoscalers")).collect();
        assert_eq!(lists.len(), 3);
        assert!(lists[1].query.contains("continue="));
        assert!(!lists[2].query.contains("limit") && !lists[2].query.contains("continue"), "{:?}", lists[2].query);

        // What a caller keeps has each HPA once: `hpa-lint cluster` reads five.
        let mut first_page = true;
        let mut kept = Vec::new();
        cluster
            .list_each(&kinds::HPA, None, &[], 2, |listed| {
                listed.collect_into(&mut kept);
                if std::mem::take(&mut first_page) {
                    server.put(first.clone());
                    server.compact();
                }
            })
            .await
            .unwrap();
        assert_eq!(kept.len(), 5);
    });
}

#[test]
fn inventory_reads_everything_and_notes_what_it_cannot() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.install("rollouts");
        s.server.install("scaledobjects");
        // VPA is not installed. PDBs are refused.
        s.server.apply(&shop());
        // kube-linter's PDB fixture; its autoscaling/v2beta1 HPA is not served since 1.26.
        let kube_linter = fixtures::realworld("stackrox__kube-linter__tests__checks__pdb-with-hpa-min-available.yaml");
        s.server
            .apply(&kube_linter.into_iter().filter(|o| o["apiVersion"] != "autoscaling/v2beta1").collect::<Vec<_>>());
        s.server.refuse(Some("poddisruptionbudgets.policy"), None);
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::All).await.unwrap();

        assert_eq!(inventory.hpas.len(), 5, "HPA201's four (one replaced by HPA410's web) and HPA410's db");
        for hpa in &inventory.hpas {
            // The list items' text, with the apiVersion and kind the list leaves out put first.
            let tree: Value = serde_json::from_str(&hpa.text).unwrap();
            assert_eq!(
                (&tree["apiVersion"], &tree["kind"]),
                (&json!("autoscaling/v2"), &json!("HorizontalPodAutoscaler"))
            );
            assert!(tree["metadata"].get("managedFields").is_some(), "as the server sent it");
            let decoded = hpa.decode(Strictness::Strict, KubernetesVersion::LATEST).unwrap().value;
            assert!(decoded.metadata().managed_fields.is_empty(), "left out once decoded");
            assert_eq!(decoded.metadata().name, hpa.id.name);
        }
        let web = inventory
            .workloads
            .iter()
            .find(|w| w.id.name == "web" && w.id.namespace == "shop" && w.id.kind == "Deployment");
        let web = web.unwrap();
        assert_eq!(web.pod_labels.get("app").map(String::as_str), Some("web"));
        assert!(inventory.pdbs.is_empty());
        let notes: Vec<String> = inventory.notes.iter().map(ToString::to_string).collect();
        assert!(
            inventory.notes.iter().any(|n| n.kind == NoteKind::Absent && n.message.contains("verticalpodautoscalers")),
            "{notes:?}"
        );
        assert!(
            inventory.notes.iter().any(|n| n.kind == NoteKind::Forbidden
                && n.message.contains("poddisruptionbudgets.policy in all namespaces")
                && n.message.contains("cannot list resource \"poddisruptionbudgets\"")),
            "{notes:?}"
        );
        assert!(!notes.iter().any(|n| n.contains("rollouts") || n.contains("scaledobjects")), "{notes:?}");
        // Optional kinds that are served were read (and found empty), through discovery.
        assert!(s.server.requests().iter().any(|r| r.path == "/apis/argoproj.io/v1alpha1/rollouts"));
        assert!(!s.server.requests().iter().any(|r| r.path.contains("verticalpodautoscalers")));
    });
}

/// A server without aggregated discovery (or a proxy that drops its `Accept`) answers `/apis`
/// with a plain `APIGroupList`: the classic walk finds the installed CRDs all the same.
#[test]
fn discovery_without_aggregation_walks_the_groups() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.classic_discovery_only();
        s.server.install("rollouts");
        s.server.apply(&shop());
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::All).await.unwrap();
        let notes: Vec<String> = inventory.notes.iter().map(ToString::to_string).collect();
        assert!(!notes.iter().any(|n| n.contains("rollouts")), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("verticalpodautoscalers")), "{notes:?}");
        let requests = s.server.requests();
        assert!(requests.iter().any(|r| r.path == "/apis/argoproj.io/v1alpha1"), "the classic walk");
        assert!(requests.iter().any(|r| r.path == "/apis/argoproj.io/v1alpha1/rollouts"));
        assert!(!inventory.hpas.is_empty());
    });
}

#[test]
fn replicas_are_claimed_only_for_who_set_them() {
    runtime().block_on(async {
        let s = setup().await;
        let objects = shop();
        // HPA410's Deployment web sets replicas: 3, applied server-side by Argo CD; HPA201's
        // `api` Deployment leaves it out (defaulted to 1, owned by nobody).
        s.server.apply_as(&objects, "argocd-controller", "Apply");
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::Namespaces(vec!["shop".into()])).await.unwrap();
        let decision = |name: &str| {
            let i = inventory.workloads.iter().position(|w| w.id.name == name && w.id.kind == "Deployment").unwrap();
            (inventory.workloads[i].replicas, inventory.replicas[i].set_by.clone())
        };
        assert_eq!(
            decision("web"),
            (
                Some(3),
                SetBy::Manager { manager: "argocd-controller".into(), operation: "Apply".into(), subresource: None }
            )
        );
        assert_eq!(decision("api"), (None, SetBy::Controllers));

        // The HPA scales web to 7 through /scale: kube-controller-manager now owns the field.
        s.server.scale_as_hpa("apps", "deployments", "shop", "web", 7);
        let inventory = read_inventory(&cluster, &Scope::Namespaces(vec!["shop".into()])).await.unwrap();
        let i = inventory.workloads.iter().position(|w| w.id.name == "web" && w.id.kind == "Deployment").unwrap();
        assert_eq!(inventory.workloads[i].replicas, None);
        assert_eq!(inventory.replicas[i].set_by, SetBy::Controllers);
    });
}

/// A lone surrogate escape in `fieldsV1` (kube-apiserver keeps `FieldsV1.Raw` and lists it as
/// it is): the page is read as client-go reads it (U+FFFD), not refused whole, and who set
/// `spec.replicas` is still read from the managed fields.
#[test]
fn a_lone_surrogate_in_fields_v1_is_read_as_go_reads_it() {
    runtime().block_on(async {
        let s = setup().await;
        let stored = s.server.apply_as(&shop(), "argocd-controller", "Apply");
        let with_lone_surrogate = |kind: &str, name: &str| {
            // The last of that name: HPA410's web replaced HPA201's.
            let last = stored.iter().rev().find(|o| o["kind"] == kind && o["metadata"]["name"] == name);
            let mut object = last.unwrap().clone();
            object["metadata"]["managedFields"][0]["fieldsV1"]["f:LONE"] = json!({});
            object
        };
        let list = |kind: &str, api_version: &str, item: Value| {
            let list = json!({"kind": format!("{kind}List"), "apiVersion": api_version,
                "metadata": {"resourceVersion": "1"}, "items": [item]});
            let text = list.to_string().replace("f:LONE", "f:\\ud800");
            assert!(serde_json::from_str::<Value>(&text).is_err(), "serde_json refuses it");
            Fault::Body(text)
        };
        let hpa = with_lone_surrogate("HorizontalPodAutoscaler", "web");
        s.server.fault(
            "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers",
            list("HorizontalPodAutoscaler", "autoscaling/v2", hpa),
        );
        let web = with_lone_surrogate("Deployment", "web");
        s.server.fault("/apis/apps/v1/namespaces/shop/deployments", list("Deployment", "apps/v1", web.clone()));
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::Namespaces(vec!["shop".into()])).await.unwrap();
        let notes: Vec<String> = inventory.notes.iter().map(ToString::to_string).collect();
        assert!(!inventory.notes.iter().any(|n| n.kind == NoteKind::Failed), "{notes:?}");
        assert_eq!(inventory.hpas.len(), 1);
        assert!(inventory.hpas[0].text.contains("f:\\ufffd"), "{}", inventory.hpas[0].text);
        inventory.hpas[0].decode(Strictness::Strict, KubernetesVersion::LATEST).unwrap();
        let i = inventory.workloads.iter().position(|w| w.id.name == "web" && w.id.kind == "Deployment").unwrap();
        assert_eq!(
            (inventory.workloads[i].replicas, inventory.replicas[i].set_by.clone()),
            (
                Some(3),
                SetBy::Manager { manager: "argocd-controller".into(), operation: "Apply".into(), subresource: None }
            )
        );

        // The webhook's context cache: the first list of Deployments (all namespaces) holds it
        // too, and the kind syncs with it (kube's DynamicObject refused the page: never synced).
        let rv = s.server.resource_version().to_string();
        let page = json!({"kind": "DeploymentList", "apiVersion": "apps/v1",
            "metadata": {"resourceVersion": rv}, "items": [web]});
        s.server.fault("/apis/apps/v1/deployments", Fault::Body(page.to_string().replace("f:LONE", "f:\\ud800")));
        let cache = ContextCache::start(s.connect().await, CacheOptions::default());
        let deadline = Instant::now() + Duration::from_secs(10);
        while !cache.synced() {
            assert!(Instant::now() < deadline, "the context cache never synced: {:?}", cache.status());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let replicas = cache.read().objects().workload("apps", "Deployment", "shop", "web").map(|w| w.replicas);
        assert_eq!(replicas, Some(Some(3)));
        drop(cache);
    });
}

/// The context cache admits each HPA as kube-apiserver checks a stored object again: an UPDATE
/// onto itself. `minReplicas: 0` stored while `HPAScaleToZero` was on is still valid in a 1.36
/// cluster (gate alpha, off), so its cross-object checks run; an HPA invalid under any rule is
/// still refused.
#[test]
fn the_cache_admits_live_hpas_as_an_update_onto_themselves() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&[fixtures::external_hpa("zero", 0, 5), fixtures::external_hpa("inverted", 4, 2)]);
        let gates = FeatureGates::new(KubernetesVersion::parse("1.36").unwrap());
        let options = CacheOptions { admission: CacheOptions::admission_for(gates), ..CacheOptions::default() };
        let cache = ContextCache::start(s.connect().await, options);
        assert!(cache.wait_synced(Duration::from_secs(10)).await, "{:?}", cache.status());
        let index = cache.read();
        let zero = index.hpa("shop", "zero").unwrap();
        assert!(zero.admitted.allowed(), "{:?}", zero.admitted.outcome.errors);
        assert_eq!(zero.admitted.operation, hpa_core::admission::Operation::Update);
        assert_eq!(zero.admitted.effective().spec.min_replicas, Some(0));
        let inverted = index.hpa("shop", "inverted").unwrap();
        assert!(!inverted.admitted.allowed());
        let paths: Vec<String> = inverted.admitted.outcome.errors.iter().map(|e| e.field.to_string()).collect();
        assert_eq!(paths, ["spec.maxReplicas"]);
        drop(index);
        drop(cache);
    });
}

#[test]
fn a_refused_namespace_is_a_note_and_the_others_are_read() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        s.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("requests-missing"), "payments"));
        s.server.refuse(None, Some("payments"));
        let cluster = s.connect().await;
        let scope = Scope::Namespaces(vec!["shop".into(), "payments".into()]);
        let inventory = read_inventory(&cluster, &scope).await.unwrap();
        assert!(!inventory.hpas.is_empty());
        assert!(inventory.hpas.iter().all(|h| h.id.namespace == "shop"));
        assert!(inventory.notes.iter().any(|n| n.kind == NoteKind::Forbidden
            && n.message.contains("horizontalpodautoscalers.autoscaling in namespace payments")));

        // Nothing readable at all: an error, not an empty inventory.
        let only_payments = Scope::Namespaces(vec!["payments".into()]);
        let e = read_inventory(&cluster, &only_payments).await.unwrap_err();
        assert!(matches!(e, Error::Forbidden { .. }), "{e}");
        assert!(e.to_string().starts_with(
            "RBAC refused to list horizontalpodautoscalers.autoscaling in namespace payments: horizontalpodautoscalers.autoscaling is forbidden"
        ), "{e}");
    });
}

#[test]
fn errors_are_one_clear_sentence() {
    runtime().block_on(async {
        let s = setup().await;
        // Expired credentials: 401.
        let cluster = s.connect_with(Some("hpa-test-expired"), Duration::from_secs(5)).await.unwrap();
        let e = read_inventory(&cluster, &Scope::All).await.unwrap_err();
        assert!(matches!(e, Error::Unauthorized { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "the API server at {} rejected the credentials (401 Unauthorized): they are missing, invalid or expired; log in again or refresh the kubeconfig's token",
                s.server.url()
            )
        );

        // A certificate the kubeconfig does not trust.
        let cluster = s.connect_with(Some("hpa-test-untrusted"), Duration::from_secs(5)).await.unwrap();
        let e = read_inventory(&cluster, &Scope::All).await.unwrap_err();
        assert!(matches!(e, Error::UntrustedCertificate { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "the API server at {} presented a certificate that is not trusted: it is not signed by the kubeconfig's certificate-authority; refresh the kubeconfig (its certificate-authority may be out of date), or check that this is the cluster you meant",
                s.server.url()
            )
        );

        // An unknown context and a missing file.
        let e = s.connect_with(Some("nope"), Duration::from_secs(5)).await.unwrap_err();
        assert!(matches!(e, Error::Kubeconfig { .. }), "{e}");
        assert!(e.to_string().contains("nope"), "{e}");
        let e = Cluster::connect(&ClientOptions { kubeconfig: Some("/nonexistent/kubeconfig".into()), ..ClientOptions::default() })
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "cannot use kubeconfig /nonexistent/kubeconfig: no such file");

        // A server error on one kind is a note; on HPAs, the error.
        s.server.apply(&shop());
        s.server.fault("/apis/apps/v1/statefulsets", Fault::Status(500, "etcdserver: request timed out".into()));
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::All).await.unwrap();
        assert!(inventory.notes.iter().any(|n| n.kind == NoteKind::Failed && n.message.contains("etcdserver: request timed out")));
    });
}

/// A CONNECT proxy on loopback (threads, blocking IO): each tunnel's `CONNECT` target is
/// recorded, then bytes are copied both ways. Returns its address and the targets seen.
fn connect_proxy() -> (std::net::SocketAddr, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { continue };
            let log = log.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let Some(target) = head.strip_prefix("CONNECT ").and_then(|r| r.split(' ').next()) else { return };
                log.lock().unwrap().push(target.to_string());
                let Ok(upstream) = std::net::TcpStream::connect(target) else { return };
                client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").unwrap();
                let (mut client_in, mut upstream_out) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                std::thread::spawn(move || std::io::copy(&mut client_in, &mut upstream_out));
                let (mut upstream_in, mut client_out) = (upstream, client);
                let _ = std::io::copy(&mut upstream_in, &mut client_out);
            });
        }
    });
    (addr, seen)
}

/// A kubeconfig's `proxy-url` is used as client-go uses it (for every request, loopback
/// included): the calls go through the proxy's tunnel. A proxy that cannot be reached is said
/// to be the proxy's failure, naming it.
#[test]
fn the_kubeconfig_proxy_url_is_used_and_its_failure_named() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let (proxy, seen) = connect_proxy();
        let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
        let with_proxy = |url: &str| {
            let path = s.kubeconfig.with_file_name(format!("kubeconfig-{}", url.len()));
            let text = text.replacen("    certificate-authority-data:", &format!("    proxy-url: {url}\n    certificate-authority-data:"), 1);
            std::fs::write(&path, text).unwrap();
            path
        };
        let connect = |kubeconfig: PathBuf| async move {
            Cluster::connect(&ClientOptions { kubeconfig: Some(kubeconfig), timeout: Duration::from_secs(5), ..ClientOptions::default() }).await
        };
        let cluster = connect(with_proxy(&format!("http://{proxy}"))).await.unwrap();
        let inventory = read_inventory(&cluster, &Scope::All).await.unwrap();
        assert!(!inventory.hpas.is_empty());
        let server = s.server.addr().to_string();
        assert!(!seen.lock().unwrap().is_empty() && seen.lock().unwrap().iter().all(|t| *t == server), "{:?}", seen.lock().unwrap());

        // Nothing listens there.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let cluster = connect(with_proxy(&format!("http://user:secret@{closed}"))).await.unwrap();
        let e = read_inventory(&cluster, &Scope::All).await.unwrap_err();
        assert!(matches!(e, Error::Proxy { .. }), "{e}");
        let text = e.to_string();
        assert!(text.starts_with(&format!("cannot reach the API server at {} through the proxy http://{closed}/: tunnel error: failed to create underlying connection: tcp connect error: ", s.server.url())), "{text}");
        assert!(text.ends_with("; check the kubeconfig's proxy-url, or HTTPS_PROXY and NO_PROXY") && !text.contains("secret"), "{text}");
    });
}

/// A `tokenFile` is read as client-go reads it (`strings.TrimSpace`): a token written with
/// `echo` (a trailing newline) is the token; an empty file is refused, naming it.
#[test]
fn a_token_file_is_trimmed_as_client_go_trims_it() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
        let token_file = s.kubeconfig.with_file_name("token");
        let kubeconfig = s.kubeconfig.with_file_name("kubeconfig-token-file");
        let user = format!("    token: {}\n", hpa_tests::apiserver::TOKEN);
        assert!(text.contains(&user));
        std::fs::write(&kubeconfig, text.replacen(&user, &format!("    tokenFile: {}\n", token_file.display()), 1)).unwrap();
        let options =
            ClientOptions { kubeconfig: Some(kubeconfig.clone()), timeout: Duration::from_secs(5), ..ClientOptions::default() };
        let connect = || Cluster::connect(&options);
        std::fs::write(&token_file, format!(" {}\r\n\n", hpa_tests::apiserver::TOKEN)).unwrap();
        let inventory = read_inventory(&connect().await.unwrap(), &Scope::All).await.unwrap();
        assert!(!inventory.hpas.is_empty());

        // With an inline token too, client-go sends the file's (`BearerTokenFile` over
        // `BearerToken`, `NewBearerAuthWithRefreshRoundTripper`): a stale inline token does not
        // matter while the file is readable.
        let both = s.kubeconfig.with_file_name("kubeconfig-token-and-file");
        std::fs::write(
            &both,
            text.replacen(&user, &format!("    token: stale-0000\n    tokenFile: {}\n", token_file.display()), 1),
        )
        .unwrap();
        let options_both =
            ClientOptions { kubeconfig: Some(both.clone()), timeout: Duration::from_secs(5), ..ClientOptions::default() };
        let inventory = read_inventory(&Cluster::connect(&options_both).await.unwrap(), &Scope::All).await.unwrap();
        assert!(!inventory.hpas.is_empty());

        std::fs::write(&token_file, "\n").unwrap();
        let e = connect().await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "cannot get credentials for the API server at {}: the kubeconfig user's token file {path} is empty (read empty token from file \"{path}\"): log in again, or fix users[].user.tokenFile",
                s.server.url(),
                path = token_file.display()
            )
        );
    });
}

/// A client certificate file the kubeconfig names but that is missing is the kubeconfig's
/// problem, named with its field, not an unreachable server.
#[test]
fn a_missing_client_certificate_is_a_kubeconfig_error() {
    runtime().block_on(async {
        let s = setup().await;
        let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
        let user = format!("    token: {}\n", hpa_tests::apiserver::TOKEN);
        let missing = s.kubeconfig.with_file_name("missing.crt");
        let kubeconfig = s.kubeconfig.with_file_name("kubeconfig-client-cert");
        std::fs::write(
            &kubeconfig,
            text.replacen(&user, &format!("    client-certificate: {0}\n    client-key: {0}\n", missing.display()), 1),
        )
        .unwrap();
        let e = Cluster::connect(&ClientOptions { kubeconfig: Some(kubeconfig.clone()), ..ClientOptions::default() })
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Kubeconfig { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "cannot use kubeconfig {}: cannot read the user's client certificate {} (No such file or directory (os error 2)): fix users[].user.client-certificate, or log in again to write it",
                kubeconfig.display(),
                missing.display()
            )
        );
    });
}

/// A cluster's TLS settings that client-go refuses before any request (`TLSConfigFor`,
/// `rootCertPool`) are refused here too, in its words, rather than taken as kube takes them: a
/// certificate authority with `insecure-skip-tls-verify` (kube skipped verification), one
/// without a PEM certificate (kube trusted nothing and blamed the server's certificate); a
/// certificate authority file that is missing is named plainly.
#[test]
fn tls_settings_client_go_refuses_are_kubeconfig_errors() {
    runtime().block_on(async {
        let s = setup().await;
        let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
        let ca_line = text.lines().find(|l| l.contains("certificate-authority-data:")).unwrap().to_string();
        let variant = |name: &str, replacement: String| {
            let path = s.kubeconfig.with_file_name(name);
            std::fs::write(&path, text.replacen(&ca_line, &replacement, 1)).unwrap();
            path
        };
        let error = |path: std::path::PathBuf| async move {
            let options = ClientOptions { kubeconfig: Some(path.clone()), ..ClientOptions::default() };
            let e = Cluster::connect(&options).await.unwrap_err();
            assert!(matches!(e, Error::Kubeconfig { .. }), "{e}");
            e.to_string().strip_prefix(&format!("cannot use kubeconfig {}: ", path.display())).unwrap().to_string()
        };
        let insecure = variant("insecure", format!("{ca_line}\n    insecure-skip-tls-verify: true"));
        assert_eq!(
            error(insecure).await,
            "specifying a root certificates file with the insecure flag is not allowed: remove clusters[].cluster.insecure-skip-tls-verify, or its certificate-authority and certificate-authority-data"
        );
        // "garbage", base64.
        let not_pem = variant("not-pem", "    certificate-authority-data: Z2FyYmFnZQ==".to_string());
        assert_eq!(
            error(not_pem).await,
            "cannot load the cluster's certificate authority (unable to load root certificates: unable to parse bytes as PEM block): fix clusters[].cluster.certificate-authority or certificate-authority-data"
        );
        let missing = s.kubeconfig.with_file_name("missing-ca.crt");
        let missing_file = variant("missing-ca", format!("    certificate-authority: {}", missing.display()));
        assert_eq!(
            error(missing_file).await,
            format!(
                "cannot read the cluster's certificate authority {} (No such file or directory (os error 2)): fix clusters[].cluster.certificate-authority, or log in again to write it",
                missing.display()
            )
        );
        // Without a certificate authority, insecure-skip-tls-verify reaches the server.
        let insecure_only = variant("insecure-only", "    insecure-skip-tls-verify: true".to_string());
        let options = ClientOptions { kubeconfig: Some(insecure_only), ..ClientOptions::default() };
        s.server.apply(&shop());
        let inventory = read_inventory(&Cluster::connect(&options).await.unwrap(), &Scope::All).await.unwrap();
        assert!(!inventory.hpas.is_empty());
    });
}

/// A kubeconfig without `current-context` names the contexts to choose from with `--context`.
#[test]
fn a_kubeconfig_without_current_context_names_its_contexts() {
    runtime().block_on(async {
        let s = setup().await;
        let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
        let path = s.kubeconfig.with_file_name("no-current-context");
        std::fs::write(&path, text.replace("current-context: hpa-test\n", "")).unwrap();
        let options = ClientOptions { kubeconfig: Some(path.clone()), ..ClientOptions::default() };
        let e = Cluster::connect(&options).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "cannot use kubeconfig {}: it sets no current-context: pass --context (its contexts: hpa-test, hpa-test-expired, hpa-test-untrusted)",
                path.display()
            )
        );
        let options = ClientOptions { context: Some("hpa-test".into()), ..options };
        assert_eq!(Cluster::connect(&options).await.unwrap().default_namespace(), "shop");
    });
}

/// `KUBECONFIG` comes from the options (the binary's arguments declare it), as a list merged as
/// kubectl merges it: a missing file skipped, the first file's current context.
#[test]
fn kubeconfig_lists_come_from_the_options() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let missing = s.kubeconfig.with_file_name("missing");
        let list = std::env::join_paths([&missing, &s.kubeconfig]).unwrap();
        let environment = hpa_cluster::Environment { kubeconfig: Some(list), ..hpa_cluster::Environment::default() };
        let options = ClientOptions { environment, ..ClientOptions::default() };
        let cluster = Cluster::connect(&options).await.unwrap();
        assert_eq!((cluster.server(), cluster.default_namespace()), (s.server.url().as_str(), "shop"));
        assert!(!read_inventory(&cluster, &Scope::All).await.unwrap().hpas.is_empty());
    });
}

#[test]
fn a_server_that_hangs_or_is_gone_fails_within_the_timeout() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.fault("/apis/autoscaling/v2", Fault::Delay(Duration::from_secs(30)));
        let cluster = s.connect_with(None, Duration::from_millis(800)).await.unwrap();
        let started = Instant::now();
        let e = read_inventory(&cluster, &Scope::All).await.unwrap_err();
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        assert!(
            e.to_string().contains("did not answer within 0.8s while listing horizontalpodautoscalers.autoscaling"),
            "{e}"
        );

        s.server.kill();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let cluster = s.connect_with(None, Duration::from_secs(2)).await.unwrap();
        let started = Instant::now();
        let e = read_inventory(&cluster, &Scope::All).await.unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(matches!(e, Error::Unreachable { .. }), "{e}");
        assert!(e.to_string().starts_with(&format!("cannot reach the API server at {}: ", s.server.url())), "{e}");
    });
}

#[test]
fn discovery_serves_kube_both_ways() {
    runtime().block_on(async {
        let s = setup().await;
        s.server.install("verticalpodautoscalers");
        let cluster = s.connect().await;
        let client = cluster.client().clone();
        let version = client.apiserver_version().await.unwrap();
        assert_eq!(version.git_version, "v1.37.0");
        let aggregated = kube::discovery::Discovery::new(client.clone()).run_aggregated().await.unwrap();
        let classic = kube::discovery::Discovery::new(client).run().await.unwrap();
        for d in [&aggregated, &classic] {
            let apps = d.get("apps").unwrap();
            let (ar, caps) = apps.recommended_kind("Deployment").unwrap();
            assert_eq!(ar.plural, "deployments");
            assert!(caps.supports_operation("watch"));
            assert!(d.get("autoscaling.k8s.io").is_some());
            assert!(d.get("argoproj.io").is_none());
            assert_eq!(d.get("autoscaling").unwrap().preferred_version_or_latest(), "v2");
        }
    });
}

#[test]
fn kube_watcher_sees_changes_bookmarks_and_relists_after_410() {
    use futures_util::StreamExt;
    use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
    use kube::runtime::watcher::{self, Event};

    runtime().block_on(async {
        let s = setup().await;
        s.server.set_bookmark_interval(Duration::from_millis(300));
        let objects = shop();
        let web = fixtures::find(&objects, "Deployment", "web").clone();
        s.server.apply(std::slice::from_ref(&web));
        let cluster = s.connect().await;
        let ar = ApiResource::from_gvk(&GroupVersionKind::gvk("apps", "v1", "Deployment"));
        let api: Api<DynamicObject> = Api::namespaced_with(cluster.client().clone(), "shop", &ar);
        let config = watcher::Config::default().timeout(1);
        let mut stream = watcher::watcher(api, config).boxed();
        let mut next = async || tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap();

        // The initial list.
        assert!(matches!(next().await.unwrap(), Event::Init));
        match next().await.unwrap() {
            Event::InitApply(o) => assert_eq!(o.metadata.name.as_deref(), Some("web")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(next().await.unwrap(), Event::InitDone));

        // Added, modified, deleted.
        let api_dep = fixtures::find(&objects, "Deployment", "api").clone();
        s.server.apply(std::slice::from_ref(&api_dep));
        match next().await.unwrap() {
            Event::Apply(o) => assert_eq!(o.metadata.name.as_deref(), Some("api")),
            other => panic!("{other:?}"),
        }
        s.server.scale_as_hpa("apps", "deployments", "shop", "api", 4);
        match next().await.unwrap() {
            Event::Apply(o) => assert_eq!(o.data["spec"]["replicas"], 4),
            other => panic!("{other:?}"),
        }
        assert!(s.server.delete("apps", "deployments", "shop", "api"));
        match next().await.unwrap() {
            Event::Delete(o) => assert_eq!(o.metadata.name.as_deref(), Some("api")),
            other => panic!("{other:?}"),
        }

        // Changes elsewhere move the resourceVersion on; the history is compacted; the next
        // watch (after timeoutSeconds=1) from the watcher's old version gets 410 and relists.
        let pod = fixtures::pod_of(&web, "x7k2p", &PodState::running("2026-03-02T09:15:00Z", "2026-03-02T09:15:20Z"));
        s.server.put(pod);
        s.server.compact();
        let mut saw_relist = false;
        for _ in 0..10 {
            if let Ok(Event::Init) = next().await {
                saw_relist = true;
                break;
            }
        }
        assert!(saw_relist, "the watcher relisted after 410 Gone");
        let gone = s.server.requests().iter().any(|r| r.query.contains("watch=true") || r.query.contains("watch=1"));
        assert!(gone);
        let bookmarks_asked = s.server.requests().iter().any(|r| r.query.contains("allowWatchBookmarks=true"));
        assert!(bookmarks_asked);
    });
}

#[test]
fn watches_end_with_410_gone_after_compaction() {
    use futures_util::StreamExt;
    use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, WatchEvent, WatchParams};

    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&shop());
        let old = s.server.resource_version();
        s.server.scale_as_hpa("apps", "deployments", "shop", "web", 5);
        let cluster = s.connect().await;
        let ar = ApiResource::from_gvk(&GroupVersionKind::gvk("apps", "v1", "Deployment"));
        let api: Api<DynamicObject> = Api::namespaced_with(cluster.client().clone(), "shop", &ar);

        // From an old version: the change since, then a bookmark.
        s.server.set_bookmark_interval(Duration::from_millis(200));
        let params = WatchParams::default().timeout(2);
        let mut events = api.watch(&params, &old.to_string()).await.unwrap().boxed();
        match events.next().await.unwrap().unwrap() {
            WatchEvent::Modified(o) => assert_eq!(o.data["spec"]["replicas"], 5),
            other => panic!("{other:?}"),
        }
        match events.next().await.unwrap().unwrap() {
            WatchEvent::Bookmark(b) => assert_eq!(b.metadata.resource_version, s.server.resource_version().to_string()),
            other => panic!("{other:?}"),
        }

        s.server.compact();
        let mut events = api.watch(&params, &old.to_string()).await.unwrap().boxed();
        match events.next().await.unwrap().unwrap() {
            WatchEvent::Error(status) => {
                assert_eq!(status.code, 410);
                assert_eq!(status.reason, "Expired");
            }
            other => panic!("{other:?}"),
        }
    });
}

#[test]
fn diagnose_reads_the_inputs_of_one_sync() {
    runtime().block_on(async {
        let s = setup().await;
        fixtures::running_web(&s.server);
        let now = Timestamp::from_api_time(hpa_core::api::Time::parse_rfc3339(fixtures::RUNNING_WEB_NOW).unwrap());
        let cluster = s.connect().await;
        let objects = diagnose::read_objects(&cluster, "shop", "web", KubernetesVersion::LATEST).await.unwrap();
        assert_eq!(objects.metrics_errors, MetricsErrors::default());
        let inputs = diagnose::inputs_from_objects(&objects, "shop", "web", now).unwrap();
        let scale = inputs.sync.scale.as_ref().unwrap();
        assert_eq!((scale.spec_replicas, scale.selector.as_str()), (3, "app=web"));
        assert_eq!(inputs.sync.pods.len(), 3);
        let unready = inputs.sync.pods.iter().find(|p| p.name.ends_with("tq8wd")).unwrap();
        assert_eq!(unready.ready_condition.unwrap().status, ConditionStatus::False);
        assert_eq!(unready.phase, PodPhase::Running);
        let ready = inputs.sync.pods.iter().find(|p| p.name.ends_with("4xq9z")).unwrap();
        assert_eq!(ready.containers[0].requests_milli["cpu"], 500);
        assert_eq!(ready.init_containers.len(), 2);
        assert_eq!(ready.init_containers[1].restart_policy.as_deref(), Some("Always"));
        let metrics = inputs.sync.resource_metrics.as_ref().unwrap();
        assert_eq!(metrics.len(), 3);
        assert_eq!(metrics.iter().find(|m| m.pod.ends_with("4xq9z")).unwrap().containers[0].usage_milli["cpu"], 612);
        assert_eq!(inputs.events.len(), 1);
        assert_eq!(inputs.events[0].reason, "SuccessfulRescale");
        assert!(inputs.sync.other_hpas_selecting_pods.is_empty());

        // The same objects as a snapshot (no scale subresource: it is derived from the
        // Deployment as its registry builds it) give the same inputs.
        // The HPAs are decoded from the files, once each: the same HPA as the live read decoded.
        let snapshot: Vec<Value> = objects.items.iter().filter(|o| o["kind"] != "Scale").cloned().collect();
        let files = diagnose::DiagnosisObjects::snapshot(snapshot.clone(), KubernetesVersion::LATEST);
        let from_files = diagnose::inputs_from_objects(&files, "shop", "web", now).unwrap();
        assert_eq!(from_files.sync, inputs.sync);
        assert_eq!(from_files.hpa, inputs.hpa);
        assert_eq!(diagnose::latest_instant(&snapshot).map(|t| t.as_millis() / 1000), Some(now.as_millis() / 1000 - 5));
    });
}

#[test]
fn diagnose_without_metrics_server_says_so() {
    runtime().block_on(async {
        let s = setup().await;
        let objects = fixtures::in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
        s.server.apply(&objects);
        // A second HPA on the same Deployment: AmbiguousSelector.
        let mut twin = fixtures::find(&objects, "HorizontalPodAutoscaler", "web").clone();
        twin["metadata"]["name"] = json!("web-twin");
        s.server.put(twin);
        let web = fixtures::find(&objects, "Deployment", "web");
        s.server.put(fixtures::pod_of(
            web,
            "4xq9z",
            &PodState::running("2026-03-02T09:14:10Z", "2026-03-02T09:14:31Z"),
        ));
        let cluster = s.connect().await;
        let objects = diagnose::read_objects(&cluster, "shop", "web", KubernetesVersion::LATEST).await.unwrap();
        assert!(objects.metrics_errors.resource.is_some());
        assert!(objects.notes.iter().any(|n| n == &Error::MetricsApiMissing.to_string()));
        let now = Timestamp::from_secs(1_772_443_265);
        let inputs = diagnose::inputs_from_objects(&objects, "shop", "web", now).unwrap();
        assert!(inputs.sync.resource_metrics.is_err());
        assert_eq!(inputs.sync.other_hpas_selecting_pods, vec!["shop/web-twin".to_string()]);

        let e = diagnose::read_objects(&cluster, "shop", "nope", KubernetesVersion::LATEST).await.unwrap_err();
        assert_eq!(e.to_string(), "HorizontalPodAutoscaler shop/nope not found");
    });
}

/// What `hpa-lint cluster` and the webhook's cache make of a stored HPA with tolerances on the
/// releases whose `HPAConfigurableTolerance` is off by default (1.33, 1.34): re-applied onto
/// itself (`LiveHpa::reapplied`) the tolerances stay in the effective object, as
/// `dropDisabledFields` keeps them when the old object uses one (`toleranceInUse`,
/// pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go); the same object never stored
/// (no `resourceVersion`: a CREATE) loses them. Either way that release's controller uses the
/// flag's tolerance both ways (`tolerancesForHpa`); 1.35's (gate on) uses the HPA's.
#[test]
fn a_stored_tolerance_is_kept_with_its_gate_off_and_the_controller_ignores_it() {
    use hpa_core::check;
    use hpa_core::evaluator::HPAControllerConfiguration;
    runtime().block_on(async {
        let s = setup().await;
        s.server.apply(&[fixtures::web_with_tolerances()]);
        let cluster = s.connect().await;
        let inventory = read_inventory(&cluster, &Scope::All).await.unwrap();
        let [live] = inventory.hpas.as_slice() else { panic!("{:?}", inventory.hpas) };
        let mut never_stored = live.tree().unwrap();
        never_stored["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        let never_stored = hpa_cluster::LiveHpa::from_tree(&kinds::HPA, &never_stored).unwrap();
        // (up, down) tolerances of the effective object, and those the controller uses.
        let read = |hpa: &hpa_cluster::LiveHpa, release: &str| {
            let gates = FeatureGates::new(KubernetesVersion::parse(release).unwrap());
            let opts = CacheOptions::admission_for(gates.clone());
            let decoded = hpa.decode(Strictness::Lenient, gates.version()).map(|d| d.value);
            let report = check::check(hpa.reapplied(decoded, None), &opts);
            assert!(report.allowed(), "{release}: {:?}", report.message());
            let effective = report.admitted().unwrap().effective().clone();
            let behavior = effective.spec.behavior.clone().unwrap_or_default();
            let written =
                |r: Option<hpa_core::api::v2::HPAScalingRules>| r.and_then(|r| r.tolerance).map(|q| q.to_string());
            let used = HPAControllerConfiguration::new(gates)
                .tolerances_for_hpa(effective.spec.behavior.as_ref())
                .tolerances();
            ((written(behavior.scale_up), written(behavior.scale_down)), (used.scale_up, used.scale_down))
        };
        let kept = (Some("50m".to_string()), Some("200m".to_string()));
        for release in ["1.33", "1.34"] {
            assert_eq!(read(live, release), (kept.clone(), (0.1, 0.1)), "{release}");
            assert_eq!(read(&never_stored, release), ((None, None), (0.1, 0.1)), "{release}");
        }
        assert_eq!(read(live, "1.35"), (kept, (0.05, 0.2)));
    });
}

/// `read_inventory` lists; the custom resources HPAs scale are read after it, by
/// `read_custom_targets`, from the targets its caller's one decode of each HPA names (hpa-cluster
/// decodes no HPA to find them): exactly those, each at the versions discovery maps its kind to.
#[test]
fn custom_targets_are_read_from_the_callers_decode() {
    use hpa_core::api::CrossVersionObjectReference;
    runtime().block_on(async {
        let s = setup().await;
        s.server.install("workerpools");
        s.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("custom-resources"), "batch"));
        let cluster = s.connect().await;
        let mut inventory = read_inventory(&cluster, &Scope::All).await.unwrap();
        let pools = |server: &TestApiServer| -> Vec<String> {
            server.requests().into_iter().filter(|r| r.path.contains("/workerpools/")).map(|r| r.path).collect()
        };
        assert_eq!(pools(&s.server), Vec::<String>::new());
        assert_eq!(inventory.hpas.len(), 3);
        let pinned = CrossVersionObjectReference {
            api_version: "example.com/v1".into(),
            kind: "WorkerPool".into(),
            name: "pinned".into(),
        };
        hpa_cluster::read_custom_targets(&cluster, &mut inventory, &[("batch".to_string(), pinned)]).await.unwrap();
        assert_eq!(pools(&s.server), ["/apis/example.com/v1/namespaces/batch/workerpools/pinned"]);
        let found: Vec<String> =
            inventory.workloads.iter().map(|w| format!("{} {}", w.id.api_version, w.id.name)).collect();
        assert_eq!(found, ["example.com/v1 pinned"]);
    });
}
