//! The context cache end to end: the real server over TLS with `--context-cache`, watching the
//! test API server (hpa-tests) through a real kubeconfig; reviews sent over HTTPS as
//! kube-apiserver sends them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpa_tests::apiserver::fixtures::{self, find, in_namespace};
use hpa_tests::apiserver::store::fields_v1;
use hpa_tests::apiserver::{Fault, TestApiServer};
use hpa_webhook::review::workload_review;
use serde_json::{Value, json};

use crate::support::{Certs, Conn, Deadline, Server, response, review};

pub(crate) struct Setup {
    pub(crate) api: TestApiServer,
    certs: Certs,
    kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
}

/// The test API server holding `requests-missing` in namespace `shop` (its HPAs left out: the
/// tests create them), and certificates for the webhook.
pub(crate) async fn setup() -> (Setup, Vec<Value>) {
    let api = TestApiServer::start().await;
    let objects = in_namespace(fixtures::cluster_fixture("requests-missing"), "shop");
    let others: Vec<Value> = objects.iter().filter(|o| o["kind"] != "HorizontalPodAutoscaler").cloned().collect();
    api.apply(&others);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.write_kubeconfig(dir.path());
    let certs = Certs::new();
    certs.write();
    (Setup { api, certs, kubeconfig, _dir: dir }, objects)
}

impl Setup {
    /// The webhook watching the test API server, once /readyz says it has synced.
    pub(crate) async fn webhook(&self, extra: &[&str]) -> (Server, Conn) {
        let kubeconfig = self.kubeconfig.display().to_string();
        let mut flags = vec!["--context-cache", "true", "--kubeconfig", &kubeconfig, "--context-sync-timeout", "30s"];
        flags.extend_from_slice(extra);
        let server = Server::start(&self.certs, &flags).await;
        let mut conn = self.certs.client().connect(server.addr).await.unwrap();
        let deadline = Deadline::within(Duration::from_secs(20));
        while conn.send("GET", "/readyz", Vec::new()).await.unwrap().0 != 200 {
            deadline.tick("the webhook never reported ready").await;
        }
        (server, conn)
    }
}

/// The HPA as kube-apiserver sends it to /validate (this one needs no defaulting).
fn hpa(objects: &[Value], name: &str) -> Value {
    find(objects, "HorizontalPodAutoscaler", name).clone()
}

/// HPA `shop/<name>` on Deployment `<name>`, scaling on 60 % cpu utilization, between 2 and 8.
fn cpu_hpa(name: &str) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 2, "maxReplicas": 8,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 60}}}]}})
}

/// `hpa_webhook_cross_object_findings_total` of a rule in /metrics (0 when absent).
async fn findings_total(conn: &mut Conn, rule: &str) -> u64 {
    let (status, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    assert_eq!(status, 200);
    let prefix = format!("hpa_webhook_cross_object_findings_total{{rule=\"{rule}\"}} ");
    let text = String::from_utf8(body.to_vec()).unwrap();
    text.lines().find_map(|l| l.strip_prefix(&prefix)).map_or(0, |v| v.trim().parse().unwrap())
}

pub(crate) fn warnings(answer: &Value) -> Vec<String> {
    response(answer)["warnings"]
        .as_array()
        .map(|w| w.iter().map(|w| w.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_object_checks_at_admission_on_both_sides() {
    let (s, objects) = setup().await;
    // RBAC refuses PodDisruptionBudgets: skipped and reported, the rest still checked.
    s.api.refuse(Some("poddisruptionbudgets.policy"), None);
    let (server, mut conn) = s.webhook(&[]).await;

    // HPA CREATE on a Deployment without cpu requests: HPA201, from the cache.
    let web = hpa(&objects, "web");
    let answer = conn.review("/validate", &review("c1", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true);
    let found = warnings(&answer);
    assert!(found.iter().any(|w| w.starts_with("HPA201 missing-resource-request:")), "{found:?}");
    // The HPA's own hpa-lint.dev/ignore annotation leaves the warning out, and it is not counted.
    let counted = findings_total(&mut conn, "HPA201").await;
    assert_eq!(counted, 1);
    let mut ignoring = web.clone();
    ignoring["metadata"]["annotations"] = json!({"hpa-lint.dev/ignore": "HPA201 -- scaled on memory in practice"});
    let answer = conn.review("/validate", &review("c1i", "CREATE", &ignoring, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true);
    assert!(!warnings(&answer).iter().any(|w| w.starts_with("HPA201")), "{answer}");
    assert_eq!(findings_total(&mut conn, "HPA201").await, counted);

    // A change in the API server becomes visible at admission: the Deployment gets its requests,
    // and HPA201 goes. The issue's target is 1 s; the test fails only past a deadline a loaded CI
    // machine cannot reach by noise, and prints the latency (`--nocapture`) for the record.
    let fixed = in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
    s.api.apply(&[find(&fixed, "Deployment", "web").clone()]);
    let applied = Instant::now();
    conn.review_until("/validate", &review("c2", "CREATE", &web, None), "the new Deployment was not seen", |a| {
        !warnings(a).iter().any(|w| w.starts_with("HPA201"))
    })
    .await;
    eprintln!("a change in the API server was visible at admission after {:?}", applied.elapsed());

    // The workload side: an HPA in the cluster scales `web`; an update that sets
    // spec.replicas (a GitOps apply owning the field) gets HPA410, naming the HPA.
    s.api.apply(std::slice::from_ref(&web));
    let old = s.api.apply(&[find(&fixed, "Deployment", "web").clone()]).remove(0);
    let mut manifest = find(&fixed, "Deployment", "web").clone();
    manifest["spec"]["replicas"] = json!(3);
    let mut new = old.clone();
    new["spec"]["replicas"] = json!(3);
    new["metadata"]["managedFields"] = json!([{
        "manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1",
        "time": "2026-03-02T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields_v1(&manifest),
    }]);
    let deployments = ("apps", "v1", "deployments");
    let w1 = workload_review("w1", "UPDATE", deployments, &new, Some(&old));
    conn.review_until("/validate-workloads", &w1, "no HPA410 warning", |answer| {
        assert_eq!(response(answer)["allowed"], true);
        warnings(answer).iter().any(|w| w.starts_with("HPA web: HPA410 workload-sets-replicas:"))
    })
    .await;
    // A lone surrogate escape in fieldsV1 (kube-apiserver keeps FieldsV1.Raw and sends it as it
    // is; serde_json refuses it in a tree): read as Go reads it, the write is checked, not refused.
    let mut lone = new.clone();
    lone["metadata"]["managedFields"][0]["fieldsV1"]["f:LONE"] = json!({});
    let body = serde_json::to_string(&workload_review("w1s", "UPDATE", deployments, &lone, Some(&old)))
        .unwrap()
        .replace("f:LONE", "f:\\ud800");
    assert!(serde_json::from_str::<Value>(&body).is_err());
    let (status, answer) = conn.send("POST", "/validate-workloads", body.into_bytes()).await.unwrap();
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    let found = warnings(&answer);
    assert!(found.iter().any(|w| w.starts_with("HPA web: HPA410 workload-sets-replicas:")), "{found:?}");
    // The Deployment's own annotation waives HPA410 (a finding about it), as in files.
    let mut waived = new.clone();
    waived["metadata"]["annotations"] = json!({"hpa-lint.dev/ignore": "workload-sets-replicas -- owned by Argo CD"});
    let answer = conn
        .review("/validate-workloads", &workload_review("w1i", "UPDATE", deployments, &waived, Some(&old)))
        .await
        .unwrap();
    assert_eq!(warnings(&answer), [PARTIAL_WRITE], "{answer}");
    // The same update without replicas: nothing to say.
    let answer = conn
        .review("/validate-workloads", &workload_review("w2", "UPDATE", deployments, &old, Some(&old)))
        .await
        .unwrap();
    assert_eq!(warnings(&answer), [PARTIAL_WRITE], "{answer}");
    // Dropping the cpu request the HPA's utilization metric needs: HPA201, naming the HPA.
    let mut dropped = old.clone();
    dropped["spec"]["template"]["spec"]["containers"][0]["resources"] = json!({});
    dropped["spec"]["template"]["spec"]["initContainers"][1]["resources"] = json!({});
    let answer = conn
        .review("/validate-workloads", &workload_review("w3", "UPDATE", deployments, &dropped, Some(&old)))
        .await
        .unwrap();
    let found = warnings(&answer);
    assert!(found.iter().any(|w| w.starts_with("HPA web: HPA201 missing-resource-request:")), "{found:?}");
    // Once the HPA in the cluster lists HPA201 in its annotation, the write names it no more.
    s.api.apply(std::slice::from_ref(&ignoring));
    let w3i = workload_review("w3i", "UPDATE", deployments, &dropped, Some(&old));
    conn.review_until("/validate-workloads", &w3i, "the annotated HPA was not seen", |answer| {
        !warnings(answer).iter().any(|w| w.starts_with("HPA web: HPA201"))
    })
    .await;

    // HPA410 at /validate is located on the Deployment (its spec.replicas): the Deployment's own
    // annotation, as the cache keeps it, leaves the warning out, as in files; the cache follows
    // the annotation as it is added and removed.
    let mut replicas = find(&fixed, "Deployment", "web").clone();
    replicas["spec"]["replicas"] = json!(3);
    let hpa410 = |answer: &Value| warnings(answer).iter().any(|w| w.starts_with("HPA410 workload-sets-replicas:"));
    // Stores the Deployment and waits until /validate of the HPA warns HPA410, or not.
    async fn until(s: &Setup, conn: &mut Conn, web: &Value, deployment: &Value, hpa410: bool) {
        s.api.apply(std::slice::from_ref(deployment));
        let what = format!("HPA410 at /validate is not {hpa410}");
        conn.review_until("/validate", &review("c3", "CREATE", web, None), &what, |answer| {
            assert_eq!(response(answer)["allowed"], true);
            warnings(answer).iter().any(|w| w.starts_with("HPA410 workload-sets-replicas:")) == hpa410
        })
        .await;
    }
    until(&s, &mut conn, &web, &replicas, true).await;
    let mut annotated = replicas.clone();
    annotated["metadata"]["annotations"] = json!({"hpa-lint.dev/ignore": "HPA410 -- replicas owned by Argo CD"});
    until(&s, &mut conn, &web, &annotated, false).await;
    // Left out, and not counted.
    let counted = findings_total(&mut conn, "HPA410").await;
    let answer = conn.review("/validate", &review("c4", "CREATE", &web, None)).await.unwrap();
    assert!(!hpa410(&answer), "{answer}");
    assert_eq!(findings_total(&mut conn, "HPA410").await, counted);
    // The annotation removed: the warning is back.
    until(&s, &mut conn, &web, &replicas, true).await;

    // /metrics: the cache, the refusal, the findings.
    let (status, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    assert_eq!(status, 200);
    let text = String::from_utf8(body.to_vec()).unwrap();
    for line in [
        "hpa_webhook_context_synced{resource=\"deployments.apps\"} 1",
        "hpa_webhook_context_refused{resource=\"poddisruptionbudgets.policy\"} 1",
        // Each watch in one state: an uninstalled CRD is absent, not a sync stuck at 0.
        "hpa_webhook_context_watch_state{resource=\"poddisruptionbudgets.policy\",state=\"refused\"} 1",
        "hpa_webhook_context_watch_state{resource=\"deployments.apps\",state=\"synced\"} 1",
        "hpa_webhook_context_watch_state{resource=\"deployments.apps\",state=\"syncing\"} 0",
        "hpa_webhook_context_watch_state{resource=\"verticalpodautoscalers.autoscaling.k8s.io\",state=\"absent\"} 1",
        "hpa_webhook_context_watch_state{resource=\"verticalpodautoscalers.autoscaling.k8s.io\",state=\"syncing\"} 0",
        "hpa_webhook_context_objects{resource=\"statefulsets.apps\"} 1",
        "hpa_webhook_cross_object_findings_total{rule=\"HPA201\"}",
        "hpa_webhook_cross_object_findings_total{rule=\"HPA410\"}",
        "hpa_webhook_context_since_last_event_seconds{resource=\"deployments.apps\"}",
    ] {
        assert!(text.lines().any(|l| l.starts_with(line)), "missing {line:?} in\n{text}");
    }
    server.stop().await;
}

/// `kubectl apply -f dir/` creating a Deployment and its HPA: the HPA's review can come before
/// the Deployment's watch event reaches the cache. Where HPA403 is said (`denyRules: [HPA403]`),
/// the webhook asks the API server with one LIST by name (`fieldSelector=metadata.name=...`,
/// `limit=1`, no `resourceVersion`): found, no HPA403 and the cross-object rules run on what was
/// read; absent, HPA403 denies, as the API server confirmed; no answer in time, the absence from
/// the cache alone warns and never denies, and the warning says why. Where HPA403 is not said,
/// no LIST.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hpa403_asks_the_api_server_for_a_target_the_cache_has_not_seen_yet() {
    let (s, _) = setup().await;
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let deployment = |name: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "ghcr.io/example/cart:1.0.0",
                    "resources": {"requests": {"memory": "128Mi"}}}]}}}})
    };
    let hpa = cpu_hpa;
    let lists = |s: &Setup| {
        s.api
            .requests()
            .into_iter()
            .filter(|r| r.path == "/apis/apps/v1/namespaces/shop/deployments")
            .collect::<Vec<_>>()
    };
    // The Deployment is on the server, its watch events held back: the cache does not have it.
    s.api.hold_watches("deployments.apps");
    s.api.apply(&[deployment("fresh")]);
    let answer = conn.review("/validate", &review("r1", "CREATE", &hpa("fresh"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    // Found by the LIST: no HPA403, and HPA201 on the Deployment read (no cpu request).
    assert_eq!(
        warnings(&answer),
        [
            "HPA201 missing-resource-request: cpu utilization needs a cpu request in every container, and container \"app\" of Deployment shop/fresh has none: the controller will not scale on this metric"
        ]
    );
    let asked = lists(&s);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].query, "fieldSelector=metadata.name%3Dfresh&limit=1");
    // A target that exists nowhere: the API server says so, and HPA403 denies.
    let answer = conn.review("/validate", &review("r2", "CREATE", &hpa("ghost"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], false, "{answer}");
    assert_eq!(
        response(&answer)["status"]["message"],
        "HorizontalPodAutoscaler.autoscaling \"ghost\" is invalid: spec.scaleTargetRef.name: Forbidden: HPA403 \
         target-not-found: no Deployment shop/ghost in the cluster (organization policy: defaults denies HPA403)"
    );
    // An UPDATE of an HPA that already pointed at nothing ratchets: the stored object had the
    // finding, read the same way.
    let mut stored = hpa("ghost");
    stored["metadata"]["resourceVersion"] = json!("41");
    let mut wider = stored.clone();
    wider["spec"]["maxReplicas"] = json!(9);
    let answer = conn.review("/validate", &review("r2u", "UPDATE", &wider, Some(&stored))).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer),
        [
            "HPA403 target-not-found: no Deployment shop/ghost in the cluster (allowed: the object already had this finding)"
        ]
    );
    // The API server does not answer the LIST in time (1 s): the absence from the cache alone
    // warns, and the warning says why the API server was not asked.
    s.api.fault("/apis/apps/v1/namespaces/shop/deployments", Fault::Delay(Duration::from_secs(4)));
    let started = Instant::now();
    let answer = conn.review("/validate", &review("r3", "CREATE", &hpa("ghost"), None)).await.unwrap();
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(1) && waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer),
        [
            format!(
                "hpa-webhook checked the cross-object rules of this HPA in part: its scale target was not read: the API \
                 server at {} did not answer within 1s while listing deployments.apps in namespace shop",
                s.api.url()
            ),
            "HPA403 target-not-found: no Deployment shop/ghost in the cluster (as hpa-webhook's context cache sees it) \
             (allowed: absent from the context cache only, whose watch may lag a target written with this HPA)"
                .to_string(),
        ]
    );
    s.api.clear_faults();
    // The events arrive: the target is in the cache, and no LIST is needed.
    s.api.release_watches("deployments.apps");
    let deadline = Deadline::within(Duration::from_secs(10));
    loop {
        let before = lists(&s).len();
        let answer = conn.review("/validate", &review("r4", "CREATE", &hpa("fresh"), None)).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        if lists(&s).len() == before {
            break;
        }
        deadline.tick(format!("the Deployment was not seen: {answer}")).await;
    }
    // Each LIST counted in /metrics by what it answered.
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    let mut reads: Vec<&str> = text.lines().filter(|l| l.starts_with("hpa_webhook_target_reads_total{")).collect();
    reads.sort_unstable();
    let found = reads.iter().find(|l| l.contains("result=\"found\"")).copied().unwrap_or_default().to_string();
    assert!(found.starts_with("hpa_webhook_target_reads_total{verb=\"list\",result=\"found\"} "), "{reads:?}");
    assert_eq!(
        reads.iter().filter(|l| !l.contains("result=\"found\"")).copied().collect::<Vec<_>>(),
        [
            "hpa_webhook_target_reads_total{verb=\"list\",result=\"not_found\"} 2",
            "hpa_webhook_target_reads_total{verb=\"list\",result=\"timeout\"} 1",
        ]
    );
    server.stop().await;

    // Under a deadline of 1 s (`--request-timeout`), the read waits half of it: the review is
    // answered, with its warning, not cut off with a 503 (which `failurePolicy: Fail` would turn
    // into a refusal of the HPA).
    let (server, mut conn) = s.webhook(&["--policy", &policy, "--request-timeout", "1s"]).await;
    s.api.hold_watches("deployments.apps");
    s.api.fault("/apis/apps/v1/namespaces/shop/deployments", Fault::Delay(Duration::from_secs(4)));
    let answer = conn.review("/validate", &review("r6", "CREATE", &hpa("ghost"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer)[0],
        format!(
            "hpa-webhook checked the cross-object rules of this HPA in part: its scale target was not read: the API \
             server at {} did not answer within 0.5s while listing deployments.apps in namespace shop",
            s.api.url()
        )
    );
    s.api.clear_faults();
    s.api.release_watches("deployments.apps");
    server.stop().await;

    // HPA403 raised to a warning by the lint configuration, without `denyRules`: asked all the
    // same, and the API server's answer is the warning.
    let config = s._dir.path().join("lint.yaml");
    std::fs::write(&config, "rules:\n  HPA403: warning\n").unwrap();
    let config = config.display().to_string();
    let (server, mut conn) = s.webhook(&["--lint-config", &config]).await;
    let before = lists(&s).len();
    let answer = conn.review("/validate", &review("r7", "CREATE", &hpa("ghost"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), ["HPA403 target-not-found: no Deployment shop/ghost in the cluster"]);
    assert_eq!(lists(&s).len(), before + 1);
    server.stop().await;

    // Without HPA403 (not selected, no `denyRules`), no LIST: nothing would be said.
    let (server, mut conn) = s.webhook(&[]).await;
    let before = lists(&s).len();
    let answer = conn.review("/validate", &review("r5", "CREATE", &hpa("ghost"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), Vec::<String>::new());
    assert_eq!(lists(&s).len(), before);
    server.stop().await;
}

/// An HPA on a Deployment of `extensions/v1beta1` (a group that does not serve it: the HPA
/// controller cannot map it, and scales nothing) is cached but targets nothing: an HPA on the
/// `apps/v1` Deployment of that name is not reported as conflicting with it (HPA407), while one
/// on the same `apps/v1` Deployment is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hpa_whose_target_cannot_be_mapped_conflicts_with_none() {
    let (s, objects) = setup().await;
    let web = hpa(&objects, "web");
    let mut legacy = web.clone();
    legacy["metadata"]["name"] = json!("legacy");
    legacy["spec"]["scaleTargetRef"]["apiVersion"] = json!("extensions/v1beta1");
    s.api.apply(&[legacy]);
    let (server, mut conn) = s.webhook(&[]).await;
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(
        text.lines().any(|l| l == "hpa_webhook_context_objects{resource=\"horizontalpodautoscalers.autoscaling\"} 1"),
        "{text}"
    );
    let hpa407 = |answer: &Value| warnings(answer).into_iter().filter(|w| w.starts_with("HPA407")).collect::<Vec<_>>();
    let answer = conn.review("/validate", &review("u1", "CREATE", &web, None)).await.unwrap();
    assert_eq!(hpa407(&answer), Vec::<String>::new(), "{answer}");
    // A second HPA on the `apps/v1` Deployment: that one conflicts.
    let mut twin = web.clone();
    twin["metadata"]["name"] = json!("twin");
    s.api.apply(&[twin]);
    let answer = conn
        .review_until("/validate", &review("u2", "CREATE", &web, None), "HPA407 was not reported", |answer| {
            !hpa407(answer).is_empty()
        })
        .await;
    let found = hpa407(&answer);
    assert!(found.iter().all(|w| w.contains("twin") && !w.contains("legacy")), "{found:?}");
    server.stop().await;
}

/// Who set `spec.replicas`, at admission: a workload Helm created without replicas owns the
/// defaulted 1 (not a user's: the HPA of the chart is not refused by `denyRules: [HPA410]`), and a
/// client-side `kubectl apply` that resets the HPA's count to its last-applied 3 is warned on,
/// though the stored object's last-applied configuration said 3 already.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_at_admission_follow_who_set_them() {
    let (s, _) = setup().await;
    let policy = s._dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\nrules:\n  - name: shop\n    namespaces: [shop]\n    denyRules: [HPA410]\n",
    )
    .unwrap();
    let policy = policy.display().to_string();
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let deployment = |name: &str, replicas: Option<i64>| {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "ghcr.io/example/cart:1.0.0",
                    "resources": {"requests": {"cpu": "100m"}}}]}}}});
        if let Some(n) = replicas {
            d["spec"]["replicas"] = json!(n);
        }
        d
    };
    let hpa_of = cpu_hpa;

    // `helm install` of a chart without replicas: the HPA of the chart is admitted.
    s.api.apply_as(&[deployment("cart", None)], "helm", "Update");
    // Until the cache has the Deployment, its HPA's target is not found.
    let answer = conn
        .review_until("/validate", &review("h1", "CREATE", &hpa_of("cart"), None), "the Deployment was not seen", |a| {
            !warnings(a).iter().any(|w| w.starts_with("HPA403"))
        })
        .await;
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert!(!warnings(&answer).iter().any(|w| w.contains("HPA410")), "{answer}");
    // With replicas: 3 in the chart, it is refused.
    s.api.apply_as(&[deployment("cart", Some(3))], "helm", "Update");
    let answer = conn
        .review_until("/validate", &review("h2", "CREATE", &hpa_of("cart"), None), "HPA410 was not denied", |a| {
            response(a)["allowed"] == false
        })
        .await;
    let message = response(&answer)["status"]["message"].as_str().unwrap();
    assert!(message.contains("Forbidden: HPA410 workload-sets-replicas: "), "{message}");

    // Client-side `kubectl apply` with replicas: 3, the HPA scales to 7, then the same apply:
    // the write resets the HPA's count, warned on.
    let manifest = deployment("web2", Some(3));
    s.api.apply_as(std::slice::from_ref(&manifest), "kubectl-client-side-apply", "Update");
    s.api.apply(&[hpa_of("web2")]);
    let old = s.api.scale_as_hpa("apps", "deployments", "shop", "web2", 7);
    let new = s.api.apply_as(std::slice::from_ref(&manifest), "kubectl-client-side-apply", "Update").remove(0);
    assert_eq!((old["spec"]["replicas"].clone(), new["spec"]["replicas"].clone()), (json!(7), json!(3)));
    let deployments = ("apps", "v1", "deployments");
    let hpa410 = |answer: &Value| {
        warnings(answer).into_iter().find(|w| w.starts_with("HPA web2: HPA410 workload-sets-replicas:"))
    };
    let r1 = workload_review("r1", "UPDATE", deployments, &new, Some(&old));
    let answer = conn
        .review_until("/validate-workloads", &r1, "no HPA410 warning", |answer| {
            assert_eq!(response(answer)["allowed"], true);
            hpa410(answer).is_some()
        })
        .await;
    // The whole explanation, not cut.
    let warning = hpa410(&answer).unwrap_or_default();
    assert!(warning.ends_with("every apply resets the count"), "{warning}");
    // The same apply again (the count is the manifest's already): nothing new to say.
    let answer = conn
        .review("/validate-workloads", &workload_review("r2", "UPDATE", deployments, &new, Some(&new)))
        .await
        .unwrap();
    assert!(!warnings(&answer).iter().any(|w| w.contains("HPA410")), "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_api_server_leaves_single_object_checks_and_a_warning() {
    let (s, objects) = setup().await;
    // The policy denies on HPA201 in shop: with a fresh view, and never on a stale one.
    let policy = s._dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\nrules:\n  - name: shop\n    namespaces: [shop]\n    denyRules: [missing-resource-request]\n",
    )
    .unwrap();
    let policy = policy.display().to_string();
    // A bound of 200 ms: the server must be heard from more often than that while it is up (a
    // bookmark every 50 ms), or the view is stale from the start.
    s.api.set_bookmark_interval(Duration::from_millis(50));
    let (server, mut conn) = s.webhook(&["--context-stale-after", "200ms", "--policy", &policy]).await;
    let web = hpa(&objects, "web");
    let answer = conn.review("/validate", &review("k1", "CREATE", &web, None)).await.unwrap();
    let denied = response(&answer);
    assert_eq!(denied["allowed"], false, "{answer}");
    assert_eq!(denied["status"]["code"], 422);
    let message = denied["status"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.metrics[0].resource.target.averageUtilization: Forbidden: HPA201 missing-resource-request: "),
        "{message}"
    );
    assert!(message.contains("(organization policy: rule \"shop\" denies HPA201)"), "{message}");

    s.api.kill();
    // Every request is answered (HTTP 200) while the watches break; once the view is stale, the
    // HPA is checked alone, admitted, and the answer says so.
    let deadline = Deadline::within(Duration::from_secs(20));
    let mut n = 0;
    loop {
        n += 1;
        let answer = conn.review("/validate", &review(&format!("k{n}"), "CREATE", &web, None)).await.unwrap();
        let found = warnings(&answer);
        // Every request is answered: denied while the view is fresh, allowed once it is stale.
        if response(&answer)["allowed"] == false {
            assert_eq!(response(&answer)["status"]["code"], 422, "{answer}");
            deadline.tick("the view never became stale").await;
            continue;
        }
        assert!(
            found.iter().any(|w| w.starts_with("hpa-webhook checked this HPA alone (cross-object checks skipped)")),
            "allowed without the stale warning: {found:?}"
        );
        assert!(!found.iter().any(|w| w.starts_with("HPA201")), "{found:?}");
        break;
    }
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("hpa_webhook_context_stale_views_total{endpoint=\"validate\"}")),
        "{text}"
    );
    server.stop().await;
}

/// The policy that denies HPA201 in `shop` (with a fresh view; never on a stale one).
fn deny_hpa201(s: &Setup) -> String {
    write_policy(
        s,
        "policy.yaml",
        "rules:\n  - name: shop\n    namespaces: [shop]\n    denyRules: [missing-resource-request]\n",
    )
}

/// A WebhookPolicy file `file` of `s`'s directory whose body (after `kind`) is `body`: its path.
fn write_policy(s: &Setup, file: &str, body: &str) -> String {
    let policy = s._dir.path().join(file);
    std::fs::write(&policy, format!("apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n{body}")).unwrap();
    policy.display().to_string()
}

/// The warning of an HPA whose cross-object rules read Deployments, which RBAC refuses.
const PARTIAL: &str =
    "hpa-webhook checked the cross-object rules of this HPA in part: RBAC refuses to watch deployments.apps (not read)";

/// RBAC refuses Deployments: the view is fresh all the same, and a `denyRules` on HPA201 cannot
/// deny for lack of the target. The answer says which kind the rules could not read (once, and
/// not the optional CRDs that are not installed, which have nothing to miss); an answer whose
/// cross-object rules do not run says nothing of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_kind_the_rules_read_is_named_in_the_answer() {
    let (s, objects) = setup().await;
    s.api.refuse(Some("deployments.apps"), None);
    let policy = deny_hpa201(&s);
    let web = hpa(&objects, "web");
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let answer = conn.review("/validate", &review("p1", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    let found = warnings(&answer);
    assert_eq!(found.iter().filter(|w| w.starts_with("hpa-webhook checked")).collect::<Vec<_>>(), [PARTIAL]);
    assert!(!found.iter().any(|w| w.starts_with("HPA201")), "{found:?}");
    server.stop().await;

    // Lint warnings off: the cross-object rule runs for `denyRules` alone, and says so.
    let (server, mut conn) = s.webhook(&["--policy", &policy, "--lint-warnings", "false"]).await;
    let answer = conn.review("/validate", &review("p2", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), [PARTIAL]);
    server.stop().await;

    // Neither lint warnings nor a cross-object `denyRules`: no cross-object rule runs.
    let (server, mut conn) = s.webhook(&["--lint-warnings", "false"]).await;
    let answer = conn.review("/validate", &review("p3", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), Vec::<String>::new());
    server.stop().await;
}

/// The warning of a write whose checks read PodDisruptionBudgets, which RBAC refuses.
const PARTIAL_WRITE: &str = "hpa-webhook checked this write against its HPAs in part: RBAC refuses to watch poddisruptionbudgets.policy (not read)";

/// The workload side says what `/validate` says of a view it cannot fully trust, and counts it:
/// RBAC refusing a kind its checks read (PodDisruptionBudgets, read for HPA104: the write is
/// checked in part), then a stale view (not checked). /validate's refusal is counted too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_side_names_a_partial_or_stale_view() {
    let (s, objects) = setup().await;
    s.api.refuse(Some("poddisruptionbudgets.policy"), None);
    let web = hpa(&objects, "web");
    s.api.apply(std::slice::from_ref(&web));
    let stored = s.api.apply(&[find(&objects, "Deployment", "web").clone()]).remove(0);
    // A bound of 1 s, heard from every 50 ms while the server is up: fresh until it is killed,
    // even on a loaded machine.
    s.api.set_bookmark_interval(Duration::from_millis(50));
    let (server, mut conn) = s.webhook(&["--context-stale-after", "1s"]).await;
    let deployments = ("apps", "v1", "deployments");
    let write = |uid: &str| workload_review(uid, "UPDATE", deployments, &stored, Some(&stored));
    let answer = conn.review("/validate-workloads", &write("s1")).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true);
    assert_eq!(warnings(&answer), [PARTIAL_WRITE], "{answer}");
    let answer = conn.review("/validate", &review("s2", "CREATE", &web, None)).await.unwrap();
    let hpa_partial = "hpa-webhook checked the cross-object rules of this HPA in part: RBAC refuses to watch poddisruptionbudgets.policy (not read)";
    assert!(warnings(&answer).iter().any(|w| w == hpa_partial), "{answer}");
    let text = scrape(&mut conn).await;
    for endpoint in ["validate_workloads", "validate"] {
        let name = format!(
            "hpa_webhook_context_partial_views_total{{endpoint=\"{endpoint}\",resource=\"poddisruptionbudgets.policy\"}}"
        );
        assert_eq!(metric(&text, &name), Some(1.0), "{name} in\n{text}");
    }

    s.api.kill();
    let deadline = Deadline::within(Duration::from_secs(20));
    let mut n = 0;
    loop {
        n += 1;
        let answer = conn.review("/validate-workloads", &write(&format!("s{n}"))).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true);
        let found = warnings(&answer);
        if found == [PARTIAL_WRITE] {
            deadline.tick("the view never became stale").await;
            continue;
        }
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("hpa-webhook checked this write against no HPA (cross-object checks skipped): "),
            "{found:?}"
        );
        break;
    }
    let text = scrape(&mut conn).await;
    let stale = metric(&text, "hpa_webhook_context_stale_views_total{endpoint=\"validate_workloads\"}");
    assert!(stale.is_some_and(|n| n >= 1.0), "{text}");
    server.stop().await;
}

/// A metric's value in /metrics.
fn metric(text: &str, name_and_labels: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name_and_labels)?.strip_prefix(' ')?.trim().parse().ok())
}

/// An API server that hangs with its sockets open (`kill -STOP`): no request of the watches
/// fails, they only fall silent. Within the bound the view is stale: every review is answered at
/// once, the HPA checked alone with the warning, the silence in /metrics; once the server answers
/// again, the cross-object checks are back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_api_server_leaves_single_object_checks_within_the_bound() {
    let (s, objects) = setup().await;
    let policy = deny_hpa201(&s);
    let (server, mut conn) = s.webhook(&["--context-stale-after", "2s", "--policy", &policy]).await;
    let web = hpa(&objects, "web");
    let denied = |answer: &Value| response(answer)["allowed"] == false;
    // Quiet for longer than the bound: still fresh (each watch is renewed after 1 s).
    tokio::time::sleep(Duration::from_secs(3)).await;
    let answer = conn.review("/validate", &review("f1", "CREATE", &web, None)).await.unwrap();
    assert!(denied(&answer), "{answer}");

    s.api.freeze();
    let frozen = Instant::now();
    let mut n = 0;
    let answer = loop {
        n += 1;
        let sent = Instant::now();
        let answer = conn.review("/validate", &review(&format!("f{n}"), "CREATE", &web, None)).await.unwrap();
        assert!(sent.elapsed() < Duration::from_secs(1), "a review waited on the hung API server");
        if !denied(&answer) {
            break answer;
        }
        assert!(frozen.elapsed() < Duration::from_secs(6), "still trusted {:?} after the freeze", frozen.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let found = warnings(&answer);
    // `the watch of <resource> has been silent for <n>s`, cut at 120 characters.
    assert!(
        found
            .iter()
            .any(|w| w.starts_with("hpa-webhook checked this HPA alone (cross-object checks skipped): the watch of ")),
        "{found:?}"
    );
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    // The first watch to fall silent past the bound depends on when each was last renewed: the
    // one in the stale state is silent, not broken.
    let stale: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("hpa_webhook_context_watch_state{") && l.ends_with(",state=\"stale\"} 1"))
        .filter_map(|l| l.split("resource=\"").nth(1)?.split('"').next())
        .collect();
    assert!(!stale.is_empty(), "{text}");
    for resource in stale {
        let silent =
            metric(&text, &format!("hpa_webhook_context_since_heard_seconds{{resource=\"{resource}\"}}")).unwrap();
        assert!(silent > 1.0, "{text}");
        assert_eq!(
            metric(&text, &format!("hpa_webhook_context_watch_broken_seconds{{resource=\"{resource}\"}}")),
            Some(0.0),
            "{text}"
        );
    }
    assert!(metric(&text, "hpa_webhook_context_stale_views_total{endpoint=\"validate\"}").unwrap() >= 1.0, "{text}");
    for outcome in ["timeout", "internal_error"] {
        assert!(!text.contains(&format!("outcome=\"{outcome}\"")), "{text}");
    }

    s.api.thaw();
    conn.review_until("/validate", &review("t", "CREATE", &web, None), "not trusted again after the thaw", denied)
        .await;
    server.stop().await;
}

/// The real `hpa-webhook` binary serving on `addr` with the context cache (re-checked every
/// 200 ms) and JSON logs at info, plus `extra` flags; and the thread that collects its log lines
/// (until it is killed).
fn spawn_webhook(s: &Setup, addr: &str, extra: &[&str]) -> (std::process::Child, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["--addr", addr, "--log-format", "json", "--log-level", "info"])
        .arg("--tls-cert")
        .arg(s.certs.cert_path())
        .arg("--tls-key")
        .arg(s.certs.key_path())
        .args(["--context-cache", "true", "--context-recheck-interval", "200ms", "--kubeconfig"])
        .arg(&s.kubeconfig)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || BufReader::new(stderr).lines().map_while(Result::ok).collect::<Vec<_>>());
    (child, reader)
}

/// A kind RBAC refuses is logged once, by kube-runtime and by the cache, however often it is
/// asked again (every re-check: it was logged at each, kube-runtime's `watch list error with
/// 403` at warn): the real binary's JSON log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_kind_is_logged_once_however_often_it_is_asked_again() {
    let (s, _) = setup().await;
    s.api.refuse(Some("poddisruptionbudgets.policy"), None);
    let (mut child, reader) = spawn_webhook(&s, "127.0.0.1:0", &[]);
    // Asked again at least 5 times (one small list each).
    let probe = "/apis/policy/v1/poddisruptionbudgets";
    let deadline = Deadline::within(Duration::from_secs(20));
    while s.api.requests().iter().filter(|r| r.path == probe && r.query.split('&').any(|p| p == "limit=1")).count() < 5
    {
        deadline.tick(format!("the refused kind was not asked again: {:?}", s.api.requests())).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = reader.join().unwrap();
    let logs: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("{l}"))).collect();
    let about_403: Vec<&Value> = logs
        .iter()
        .filter(|l| l.to_string().contains("poddisruptionbudgets") && l.to_string().contains("forbidden"))
        .collect();
    let kube_runtime =
        about_403.iter().filter(|l| l["target"].as_str().is_some_and(|t| t.starts_with("kube_runtime"))).count();
    let ours = about_403.iter().filter(|l| l["message"] == "forbidden: skipped").count();
    assert_eq!((kube_runtime, ours, about_403.len()), (1, 1, 2), "{about_403:#?}");
    // An optional kind whose CRD is not installed (its LIST answers 404) is said once, at info,
    // in the words of `hpa-lint cluster`'s note: nothing is wrong.
    let about_vpas: Vec<(&str, &str)> = logs
        .iter()
        .filter(|l| l.to_string().contains("verticalpodautoscalers"))
        .map(|l| (l["level"].as_str().unwrap_or_default(), l["message"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        about_vpas,
        [(
            "INFO",
            "autoscaling.k8s.io/v1 verticalpodautoscalers is not served (the Vertical Pod Autoscaler not installed): skipped"
        )],
        "{logs:#?}"
    );
}

/// The Rollout CRD as Argo Rollouts installs it (a scale subresource).
fn rollout_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "rollouts.argoproj.io"},
        "spec": {"group": "argoproj.io", "names": {"kind": "Rollout", "plural": "rollouts"}, "scope": "Namespaced",
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                    "statusReplicasPath": ".status.HPAReplicas", "labelSelectorPath": ".status.selector"}}}]}})
}

/// Argo Rollouts removed while the cache watches its Rollouts, discovery still serving them (it
/// lags the removal, or answered before it): the watch's next request answers 404. The cache says
/// so once, at info, in `hpa-lint cluster`'s words, however often it asks again (every re-check,
/// 200 ms here: each restarted the watch, logged the 404 again and left the view stale while
/// the new watcher met it); the Rollouts it held are gone. Until the cache has seen the CRD
/// deleted too, an HPA on a Rollout is admitted with a warning (the API server's 404 to the LIST
/// of its target is no answer about the target); then the kind is not served (an HPA on
/// a Rollout has no target for certain: nothing asked, and `denyRules` denies); the view stays
/// fresh, reviews answered with the cross-object rules all along. Discovery catching up adds no
/// word (it said `no longer served: not watched` too) and no request. Once Argo Rollouts is back,
/// the next re-check watches the Rollouts again. The real binary's JSON log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_optional_kind_removed_after_discovery_is_said_once_and_asked_again() {
    let (s, _) = setup().await;
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    s.api.install("rollouts");
    let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "canary", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "canary"}}, "template": {"metadata": {"labels": {"app": "canary"}},
            "spec": {"containers": [{"name": "app", "image": "c:1", "resources": {"requests": {"cpu": "100m"}}}]}}}});
    s.api.apply(&[rollout_crd(), rollout.clone()]);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let (mut child, reader) = spawn_webhook(&s, &addr, &["--policy", &policy, "--context-stale-after", "4s"]);
    let client = s.certs.client();
    let deadline = Deadline::within(Duration::from_secs(20));
    let mut conn = loop {
        if let Ok(mut conn) = client.connect(addr.parse().unwrap()).await
            && conn.send("GET", "/readyz", Vec::new()).await.is_ok_and(|(status, _)| status == 200)
        {
            break conn;
        }
        deadline.tick("the webhook never reported ready").await;
    };
    let state =
        |state: &str| format!("hpa_webhook_context_watch_state{{resource=\"rollouts.argoproj.io\",state=\"{state}\"}}");
    let cached = "hpa_webhook_context_objects{resource=\"rollouts.argoproj.io\"}";
    let until = async |conn: &mut Conn, what: &str, done: &dyn Fn(&str) -> bool| {
        let deadline = Deadline::within(Duration::from_secs(10));
        loop {
            let text = scrape(conn).await;
            if done(&text) {
                return;
            }
            deadline.tick(format!("{what}: {text}")).await;
        }
    };
    until(&mut conn, "the Rollout cached", &|t| {
        metric(t, &state("synced")) == Some(1.0) && metric(t, cached) == Some(1.0)
    })
    .await;
    let mut hpa = cpu_hpa("canary");
    hpa["spec"]["scaleTargetRef"] = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "canary"});
    let answer = conn.review("/validate", &review("r0", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(
        (response(&answer)["allowed"].clone(), warnings(&answer)),
        (json!(true), Vec::<String>::new()),
        "{answer}"
    );

    // Argo Rollouts removed: the Rollouts' requests answer 404 while discovery still lists
    // `argoproj.io/v1alpha1`, and its CRD goes. The cache learns the two from two watches, in
    // either order (every watch is renewed together, every 2 s here). Here the 404 comes first:
    // while the CRD is still cached, the kind is not certain to be unserved
    // (`ContextCache::not_served`), so a review asks the API server, whose 404 is a failure to
    // read the target: said in a warning, and admitted.
    let in_namespace = "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts";
    let rollouts = |s: &Setup, path: &str| s.api.requests().into_iter().filter(|r| r.path == path).count();
    s.api.fault(
        "/apis/argoproj.io/v1alpha1/",
        Fault::Status(404, "the server could not find the requested resource".into()),
    );
    until(&mut conn, "the Rollouts absent", &|t| {
        metric(t, &state("absent")) == Some(1.0) && metric(t, cached) == Some(0.0)
    })
    .await;
    let answer = conn.review("/validate", &review("rw", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer),
        [
            "hpa-webhook checked the cross-object rules of this HPA in part: its scale target was not read: \
             rollouts.argoproj.io in namespace shop not found",
            "HPA403 target-not-found: no Rollout shop/canary in the cluster (as hpa-webhook's context cache sees \
             it) (allowed: absent from the context cache only, whose watch may lag a target written with this HPA)"
        ],
        "{answer}"
    );
    assert_eq!(rollouts(&s, in_namespace), 1, "asked once");
    // Then the CRD goes: the test waits for the cache to see it (a test that took the Rollouts'
    // 404 for both failed when the CRD's event came second).
    let crds = "hpa_webhook_context_objects{resource=\"customresourcedefinitions.apiextensions.k8s.io\"}";
    let crds_before = metric(&scrape(&mut conn).await, crds).unwrap_or_default();
    assert!(crds_before >= 1.0, "the Rollout CRD cached");
    assert!(s.api.delete("apiextensions.k8s.io", "customresourcedefinitions", "", "rollouts.argoproj.io"));
    until(&mut conn, "the Rollouts' CRD gone", &|t| metric(t, crds) == Some(crds_before - 1.0)).await;
    // Re-checked at least 5 times (one small list each), each review meanwhile answered on a
    // fresh view: HPA403 certain, nothing asked of the API server.
    let checked = rollouts(&s, "/apis/argoproj.io/v1alpha1/rollouts");
    let denied = "HorizontalPodAutoscaler.autoscaling \"canary\" is invalid: spec.scaleTargetRef.name: Forbidden: \
        HPA403 target-not-found: no Rollout shop/canary in the cluster (organization policy: defaults denies HPA403)";
    let deadline = Deadline::within(Duration::from_secs(20));
    let mut reviews = 0;
    while rollouts(&s, "/apis/argoproj.io/v1alpha1/rollouts") < checked + 5 {
        let answer = conn.review("/validate", &review("r1", "CREATE", &hpa, None)).await.unwrap();
        assert_eq!(response(&answer)["status"]["message"], denied, "{answer}");
        assert_eq!(warnings(&answer), Vec::<String>::new(), "{answer}");
        reviews += 1;
        deadline.tick(format!("not asked again 5 times: {:?}", s.api.requests())).await;
    }
    assert!(reviews > 5, "{reviews} reviews");
    assert_eq!(rollouts(&s, in_namespace), 1, "nothing more asked: the kind is not served");
    let asked_again: Vec<String> = s
        .api
        .requests()
        .into_iter()
        .filter(|r| r.path == "/apis/argoproj.io/v1alpha1/rollouts")
        .skip(checked)
        .map(|r| r.query)
        .collect();
    assert!(
        asked_again.iter().all(|q| q.split('&').any(|p| p == "limit=1") && !q.contains("watch")),
        "one small list each re-check: {asked_again:?}"
    );

    // Discovery catches up with the removal: nothing more is said (the watch that met the 404
    // was also said to be `no longer served: not watched`), and nothing more is asked.
    s.api.uninstall("rollouts");
    let discoveries = |s: &Setup| s.api.requests().into_iter().filter(|r| r.path == "/apis").count();
    let (before, deadline) = (discoveries(&s), Deadline::within(Duration::from_secs(10)));
    while discoveries(&s) < before + 2 {
        deadline.tick(format!("no re-check: {:?}", s.api.requests())).await;
    }
    let checked = rollouts(&s, "/apis/argoproj.io/v1alpha1/rollouts");
    let before = discoveries(&s);
    while discoveries(&s) < before + 3 {
        deadline.tick(format!("no re-check: {:?}", s.api.requests())).await;
    }
    assert_eq!(rollouts(&s, "/apis/argoproj.io/v1alpha1/rollouts"), checked, "not served: not asked");
    let answer = conn.review("/validate", &review("r2", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(response(&answer)["status"]["message"], denied, "{answer}");
    assert_eq!(warnings(&answer), Vec::<String>::new(), "{answer}");

    // Argo Rollouts back: the next re-check watches the Rollouts again.
    s.api.clear_faults();
    s.api.install("rollouts");
    s.api.apply(&[rollout_crd(), rollout]);
    until(&mut conn, "the Rollout cached again", &|t| {
        metric(t, &state("synced")) == Some(1.0) && metric(t, cached) == Some(1.0)
    })
    .await;
    let answer = conn.review("/validate", &review("r2", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(
        (response(&answer)["allowed"].clone(), warnings(&answer)),
        (json!(true), Vec::<String>::new()),
        "{answer}"
    );

    child.kill().unwrap();
    child.wait().unwrap();
    let lines = reader.join().unwrap();
    let logs: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("{l}"))).collect();
    let about_rollouts: Vec<(&str, &str)> = logs
        .iter()
        .filter(|l| l.to_string().contains("rollouts") && l["message"] != "synced")
        .map(|l| (l["level"].as_str().unwrap_or_default(), l["message"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        about_rollouts,
        [("INFO", "argoproj.io/v1alpha1 rollouts is not served (Argo Rollouts not installed): skipped")],
        "{logs:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workload_write_finds_the_hpas_of_the_rollouts_that_take_its_template() {
    let (s, _) = setup().await;
    s.api.install("rollouts");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "checkout"}},
            "template": {"metadata": {"labels": {"app": "checkout"}},
                "spec": {"containers": [{"name": "app", "image": "ghcr.io/example/checkout:2.0.0",
                    "resources": {"requests": {"cpu": "250m"}}}]}}}});
    let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "checkout"}},
            "workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "checkout"},
            "strategy": {"canary": {"steps": [{"setWeight": 20}, {"pause": {}}]}}}});
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "checkout"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 70}}}]}});
    let old = s.api.apply(&[deployment, rollout, hpa]).remove(0);
    let (server, mut conn) = s.webhook(&[]).await;

    // The Deployment's template loses its cpu request: the HPA of the Rollout that takes its
    // pods from it (the Deployment itself has no HPA) gets HPA201, named.
    let mut dropped = old.clone();
    dropped["spec"]["template"]["spec"]["containers"][0]["resources"] = json!({});
    let deployments = ("apps", "v1", "deployments");
    let answer = conn
        .review("/validate-workloads", &workload_review("r1", "UPDATE", deployments, &dropped, Some(&old)))
        .await
        .unwrap();
    assert_eq!(response(&answer)["allowed"], true);
    let found = warnings(&answer);
    assert!(found.iter().any(|w| w.starts_with("HPA checkout: HPA201 missing-resource-request:")), "{found:?}");
    // The same Deployment unchanged: nothing to say.
    let answer = conn
        .review("/validate-workloads", &workload_review("r2", "UPDATE", deployments, &old, Some(&old)))
        .await
        .unwrap();
    assert_eq!(response(&answer), &json!({"uid": "r2", "allowed": true}));
    server.stop().await;
}

/// `hpa_webhook_context_ignored_fields` of HPAs in /metrics (`None` before the first scrape
/// that sees the HPA watch).
async fn ignored_fields(conn: &mut Conn) -> Option<u64> {
    let (status, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    assert_eq!(status, 200);
    let prefix = "hpa_webhook_context_ignored_fields{resource=\"horizontalpodautoscalers.autoscaling\"} ";
    let text = String::from_utf8(body.to_vec()).unwrap();
    text.lines().find_map(|l| l.strip_prefix(prefix)).map(|v| v.trim().parse().unwrap())
}

/// A cluster newer than `--kubernetes-version`: the test API server (1.37) stores status
/// conditions with `observedGeneration`, which 1.36's types lack. The HPA is cached all the same
/// (its cross-object checks run) and counted in /metrics until it no longer has such a field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cached_hpas_with_fields_the_release_lacks_are_counted() {
    let (s, objects) = setup().await;
    let mut web = hpa(&objects, "web");
    web["status"] = json!({"currentReplicas": 1, "desiredReplicas": 1, "conditions": [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-03-02T09:00:00Z",
         "reason": "ReadyForNewScale", "observedGeneration": 1}]});
    s.api.put(web.clone());
    s.api.put(hpa(&objects, "db"));
    let (server, mut conn) = s.webhook(&["--kubernetes-version", "1.36"]).await;
    assert_eq!(ignored_fields(&mut conn).await, Some(1));
    // Cached, not left out (its cross-object checks run).
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(
        text.lines().any(|l| l == "hpa_webhook_context_objects{resource=\"horizontalpodautoscalers.autoscaling\"} 2"),
        "{text}"
    );
    assert!(!text.contains("hpa_webhook_context_left_out{"), "{text}");
    // Its status rewritten without the field: no longer counted.
    web["status"]["conditions"][0].as_object_mut().unwrap().remove("observedGeneration");
    s.api.put(web);
    let deadline = Deadline::within(Duration::from_secs(10));
    while ignored_fields(&mut conn).await != Some(0) {
        deadline.tick("still counted").await;
    }
    server.stop().await;
}

/// HPA409 at admission: the HPA KEDA creates for a ScaledObject (controlled by it, as KEDA's
/// `newHPAForScaledObject` makes it) is that ScaledObject's own, admitted without a finding even
/// where the policy denies HPA409; another HPA on the same workload is denied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hpa_keda_makes_for_a_scaled_object_is_no_keda_conflict() {
    let (s, objects) = setup().await;
    s.api.install("scaledobjects");
    s.api.apply(&[json!({
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
        "metadata": {"name": "kd", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"name": "web"}, "triggers": [{"type": "cron", "metadata": {
            "timezone": "UTC", "start": "0 8 * * *", "end": "0 20 * * *", "desiredReplicas": "3"}}]},
    })]);
    let policy = s._dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\nrules:\n  - name: shop\n    namespaces: [shop]\n    denyRules: [keda-conflict]\n",
    )
    .unwrap();
    let policy = policy.display().to_string();
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let mut keda = hpa(&objects, "web");
    keda["metadata"]["name"] = json!("keda-hpa-kd");
    keda["metadata"]["labels"] =
        json!({"app.kubernetes.io/managed-by": "keda-operator", "app.kubernetes.io/part-of": "kd"});
    keda["metadata"]["ownerReferences"] = json!([{
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "name": "kd",
        "uid": "6b1c8f0e-0000-4000-8000-000000000001", "controller": true, "blockOwnerDeletion": true,
    }]);
    let answer = conn.review("/validate", &review("k1", "CREATE", &keda, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert!(!warnings(&answer).iter().any(|w| w.starts_with("HPA409")), "{answer}");
    // Owned by the ScaledObject but not as its controller: another HPA, denied.
    let mut owned = keda.clone();
    owned["metadata"]["ownerReferences"][0]["controller"] = json!(false);
    let answer = conn.review("/validate", &review("k2", "CREATE", &owned, None)).await.unwrap();
    let denied = response(&answer);
    assert_eq!(denied["allowed"], false, "{answer}");
    let message = denied["status"]["message"].as_str().unwrap();
    assert!(message.contains("HPA409 keda-conflict: KEDA ScaledObject kd also scales Deployment web"), "{message}");
    // A user's HPA on the same Deployment: denied.
    let answer = conn.review("/validate", &review("k3", "CREATE", &hpa(&objects, "web"), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], false, "{answer}");
    server.stop().await;
}

/// HPA104 on a PodDisruptionBudget write counts every pod the budget selects, as the
/// disruption controller's `getExpectedPodCount` does: over the four HPA-scaled workloads of
/// `shop` (9 pods at their minReplicas), `minAvailable: 2` blocks nothing; `minAvailable: 9`
/// blocks at every HPA's minimum; a budget on `web` alone blocks at web's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_over_several_workloads_counts_all_their_pods() {
    let (s, objects) = setup().await;
    let hpas: Vec<Value> = objects.iter().filter(|o| o["kind"] == "HorizontalPodAutoscaler").cloned().collect();
    assert_eq!(hpas.len(), 4);
    s.api.apply(&hpas);
    let (server, mut conn) = s.webhook(&[]).await;
    let pdbs = ("policy", "v1", "poddisruptionbudgets");
    let pdb = |name: &str, min_available: i64, selector: Value| {
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": name, "namespace": "shop"},
               "spec": {"minAvailable": min_available, "selector": selector}})
    };
    let hpa104 = |answer: &Value| -> Vec<String> {
        let mut found: Vec<String> = warnings(answer).into_iter().filter(|w| w.contains("HPA104")).collect();
        found.sort();
        found
    };
    let answer = conn
        .review(
            "/validate-workloads",
            &workload_review("p1", "CREATE", pdbs, &pdb("web", 2, json!({"matchLabels": {"app": "web"}})), None),
        )
        .await
        .unwrap();
    assert_eq!(response(&answer)["allowed"], true);
    assert_eq!(
        hpa104(&answer),
        [
            "HPA web: HPA104 min-replicas-blocked-by-pdb: at minReplicas (2) the PodDisruptionBudget web allows no eviction (minAvailable 2 needs 2 of 2 pods)"
        ],
        "{answer}"
    );
    let answer = conn
        .review("/validate-workloads", &workload_review("p2", "CREATE", pdbs, &pdb("all", 2, json!({})), None))
        .await
        .unwrap();
    assert_eq!(response(&answer), &json!({"uid": "p2", "allowed": true}), "{answer}");
    let answer = conn
        .review("/validate-workloads", &workload_review("p3", "CREATE", pdbs, &pdb("all", 9, json!({})), None))
        .await
        .unwrap();
    let found = hpa104(&answer);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found.contains(&"HPA web: HPA104 min-replicas-blocked-by-pdb: at minReplicas (2) the PodDisruptionBudget all allows no eviction (minAvailable 9 needs 9 of 9 pods: 2 of this HPA's target, 2 of Deployment batch, 2 of Deployment worker, 3 of StatefulSet db)".to_string()),
        "{found:?}"
    );
    // A budget without a selector, absent or null, selects no pod (policy/v1's
    // `LabelSelectorAsSelector(nil)` is `labels.Nothing()`), however strict: nothing to warn on.
    let mut absent = pdb("absent", 9, Value::Null);
    absent["spec"].as_object_mut().unwrap().remove("selector");
    let null = pdb("null-selector", 9, Value::Null);
    for (uid, budget) in [("p4", &absent), ("p5", &null)] {
        let answer =
            conn.review("/validate-workloads", &workload_review(uid, "CREATE", pdbs, budget, None)).await.unwrap();
        assert_eq!(response(&answer), &json!({"uid": uid, "allowed": true}), "{answer}");
    }
    // Cached, next to one selecting everything: /validate finds that one only.
    s.api.apply(&[absent, null, pdb("all", 9, json!({}))]);
    let web = hpa(&objects, "web");
    let answer = conn
        .review_until("/validate", &review("p6", "CREATE", &web, None), "the budgets were not seen", |answer| {
            !hpa104(answer).is_empty()
        })
        .await;
    let found = hpa104(&answer);
    assert_eq!(
        found,
        [
            "HPA104 min-replicas-blocked-by-pdb: at minReplicas (2) the PodDisruptionBudget all allows no eviction (minAvailable 9 needs 9 of 9 pods: 2 of this HPA's target, 2 of Deployment batch, 2 of Deployment worker, 3 of StatefulSet db)"
        ],
        "{found:?}"
    );
    server.stop().await;
}

/// /metrics as text.
async fn scrape(conn: &mut Conn) -> String {
    let (status, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    assert_eq!(status, 200);
    String::from_utf8(body.to_vec()).unwrap()
}

/// `hpa_webhook_context_since_last_event_seconds` is the time since the last change a watch
/// delivered (ADDED, MODIFIED, DELETED): bookmarks and renewed watches do not reset it, while
/// they keep `hpa_webhook_context_since_heard_seconds` (liveness) near 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_last_event_counts_changes_and_since_heard_counts_bookmarks() {
    let (s, _) = setup().await;
    s.api.set_bookmark_interval(Duration::from_millis(50));
    let (server, mut conn) = s.webhook(&[]).await;
    let event = |text: &str, resource: &str| {
        metric(text, &format!("hpa_webhook_context_since_last_event_seconds{{resource=\"{resource}\"}}"))
    };
    let heard = |text: &str, resource: &str| {
        metric(text, &format!("hpa_webhook_context_since_heard_seconds{{resource=\"{resource}\"}}"))
    };
    // Listed, never changed since: no event yet, heard from.
    let text = scrape(&mut conn).await;
    assert_eq!(event(&text, "statefulsets.apps"), None, "{text}");
    assert!(heard(&text, "statefulsets.apps").is_some(), "{text}");
    // A change to a Deployment: seen as an event.
    let fixed = in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
    s.api.apply(&[find(&fixed, "Deployment", "web").clone()]);
    let deadline = Deadline::within(Duration::from_secs(10));
    while event(&scrape(&mut conn).await, "deployments.apps").is_none() {
        deadline.tick("no event for deployments.apps").await;
    }
    // Then quiet, with bookmarks every 50 ms: the event ages, the watch is heard from.
    // (A loaded machine may leave the cache's thread without a turn for a while: the bookmark is
    // waited for, within a bound, rather than expected at the first scrape.)
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let deadline = Deadline::within(Duration::from_secs(10));
    loop {
        let text = scrape(&mut conn).await;
        let (since_event, since_heard) =
            (event(&text, "deployments.apps").unwrap(), heard(&text, "deployments.apps").unwrap());
        assert!(since_event > 1.4, "{text}");
        if since_heard < 1.0 {
            break;
        }
        deadline.tick(format!("no bookmark heard: {text}")).await;
    }
    server.stop().await;
}

/// The cache watches RuntimeClasses and CustomResourceDefinitions (cluster-scoped): HPA201 on
/// pods whose RuntimeClass's overhead supplies the cpu is silent on 1.37 and a warning on 1.38
/// (which leaves the overhead out); HPA412 on a custom resource whose CRD has no scale
/// subresource.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runtime_classes_and_crds_are_watched() {
    let (s, _) = setup().await;
    let kata = in_namespace(fixtures::cluster_fixture("runtime-class"), "kata");
    let custom = in_namespace(fixtures::cluster_fixture("custom-resources"), "batch");
    s.api.apply(&kata.iter().filter(|o| o["kind"] != "HorizontalPodAutoscaler").cloned().collect::<Vec<_>>());
    s.api.apply(&custom.iter().filter(|o| o["kind"] == "CustomResourceDefinition").cloned().collect::<Vec<_>>());
    let web = find(&kata, "HorizontalPodAutoscaler", "web").clone();
    let gadget = find(&custom, "HorizontalPodAutoscaler", "g").clone();
    let pinned = find(&custom, "HorizontalPodAutoscaler", "pinned").clone();
    // HPA403 runs where denyRules names it.
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    for (release, hpa201) in [("1.37", false), ("1.38", true)] {
        let (server, mut conn) = s.webhook(&["--kubernetes-version", release, "--policy", &policy]).await;
        let answer = conn.review("/validate", &review("k1", "CREATE", &web, None)).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        let found = warnings(&answer);
        assert_eq!(
            found.iter().any(|w| w.starts_with("HPA201 missing-resource-request:")),
            hpa201,
            "{release}: {found:?}"
        );
        let answer = conn.review("/validate", &review("k2", "CREATE", &gadget, None)).await.unwrap();
        assert_eq!(
            warnings(&answer).iter().filter(|w| w.starts_with("HPA412 ")).collect::<Vec<_>>(),
            [
                "HPA412 unscalable-custom-resource: CustomResourceDefinition gadgets.example.com gives Gadget no scale subresource: the controller cannot read the target's scale and never scales it (AbleToScale False, FailedGetScale)"
            ],
            "{release}: {answer}"
        );
        // The cache watches no custom resource, but `/validate` reads the target of each: a
        // WorkerPool or a Gadget whose `GET` answers 404 is known absent (HPA403 denies).
        for (id, hpa, target) in [("k4", &pinned, "WorkerPool batch/pinned"), ("k5", &gadget, "Gadget batch/g")] {
            let answer = conn.review("/validate", &review(id, "CREATE", hpa, None)).await.unwrap();
            assert_eq!(response(&answer)["allowed"], false, "{release}: {answer}");
            let message = response(&answer)["status"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!(
                    "HPA403 target-not-found: no {target} in the cluster (organization policy: defaults denies HPA403)"
                )),
                "{release}: {message}"
            );
        }
        server.stop().await;
    }
    // RuntimeClasses refused: the overhead is unknown, so HPA201 concludes nothing on 1.37 (no
    // false warning, nor a denial with `denyRules`); the other rules still run, and the answer
    // says the check was partial. On 1.38 the overhead does not count: the request is missing.
    s.api.refuse(Some("runtimeclasses.node.k8s.io"), None);
    let partial = "hpa-webhook checked the cross-object rules of this HPA in part: RBAC refuses to watch runtimeclasses.node.k8s.io (not read)";
    let (server, mut conn) = s.webhook(&["--kubernetes-version", "1.37", "--policy", &policy]).await;
    let answer = conn.review("/validate", &review("k3", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), [partial]);
    let answer = conn.review("/validate", &review("k3g", "CREATE", &gadget, None)).await.unwrap();
    assert!(warnings(&answer).iter().any(|w| w.starts_with("HPA412 ")), "{answer}");
    server.stop().await;
    let (server, mut conn) = s.webhook(&["--kubernetes-version", "1.38"]).await;
    let answer = conn.review("/validate", &review("k3n", "CREATE", &web, None)).await.unwrap();
    let found = warnings(&answer);
    assert!(found.iter().any(|w| w.starts_with("HPA201 missing-resource-request:")), "{found:?}");
    assert!(!found.iter().any(|w| w.starts_with("hpa-webhook checked")), "{found:?}");
    server.stop().await;
}

/// A target of a cluster-scoped CRD is not read at admission: the controller looks for its
/// scale in the HPA's namespace, where the API server serves no such resource, and HPA412 says
/// so from the CRD the cache holds; no `GET`, so HPA403 concludes nothing, even where
/// `denyRules` names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_scoped_custom_resource_target_is_not_read_at_admission() {
    let (s, _) = setup().await;
    s.api.install("fleets");
    let crd = fixtures::cluster_scoped_fleet_crd();
    s.api.apply(&[crd]);
    let mut fleet = fixtures::external_hpa("fleet", 1, 5);
    fleet["metadata"]["namespace"] = json!("batch");
    fleet["spec"]["scaleTargetRef"] = json!({"apiVersion": "example.com/v1", "kind": "Fleet", "name": "fleet"});
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    let (_server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let answer = conn.review("/validate", &review("f1", "CREATE", &fleet, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer),
        [
            "HPA412 unscalable-custom-resource: CustomResourceDefinition fleets.example.com makes Fleet cluster-scoped: the controller reads its scale in the HPA's namespace, which serves none (404), and never scales it (AbleToScale False, FailedGetScale)"
        ]
    );
    let paths: Vec<String> = s.api.requests().iter().map(|r| r.path.clone()).collect();
    assert!(!paths.iter().any(|p| p.contains("/fleets/")), "{paths:?}");
}

/// HPA410 on a custom-resource target at admission: the cache watches no custom resource, so
/// `/validate` reads the HPA's target with one `GET` (bounded: `TARGET_READ_TIMEOUT`), as
/// `hpa-lint cluster` does, and judges the field its CRD's `specReplicasPath` names by who set
/// it. A target that answers 404 is absent (HPA403, where `denyRules` names it); one RBAC refuses
/// is named in a warning, and nothing is concluded from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_resource_target_is_read_at_admission() {
    let (s, _) = setup().await;
    s.api.install("workerpools");
    let custom = in_namespace(fixtures::cluster_fixture("custom-resources"), "batch");
    let (pools, rest): (Vec<Value>, Vec<Value>) = custom.into_iter().partition(|o| o["kind"] == "WorkerPool");
    s.api.apply(&rest.iter().filter(|o| o["kind"] == "CustomResourceDefinition").cloned().collect::<Vec<_>>());
    // Argo CD applies `size: 3`.
    s.api.apply_as(&pools, "argocd-controller", "Apply");
    let pinned = find(&rest, "HorizontalPodAutoscaler", "pinned").clone();
    let scaled = find(&rest, "HorizontalPodAutoscaler", "scaled").clone();
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let answer = conn.review("/validate", &review("t1", "CREATE", &pinned, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(
        warnings(&answer),
        [
            "HPA410 workload-sets-replicas: WorkerPool batch/pinned sets spec.size: 3 while HorizontalPodAutoscaler batch/pinned scales it: every apply resets the count"
        ]
    );
    let paths: Vec<String> = s.api.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.iter().any(|p| p == "/apis/example.com/v1/namespaces/batch/workerpools/pinned"), "{paths:?}");
    // Its target does not exist: HPA403 denies.
    let answer = conn.review("/validate", &review("t2", "CREATE", &scaled, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], false, "{answer}");
    let message = response(&answer)["status"]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "HPA403 target-not-found: no WorkerPool batch/scaled in the cluster (organization policy: defaults denies HPA403)"
        ),
        "{message}"
    );
    // An API server slow to answer: the `GET` gives up after `TARGET_READ_TIMEOUT` (1 s), the
    // review answers without it, and says so.
    s.api.fault("/apis/example.com/v1/namespaces/batch/workerpools/pinned", Fault::Delay(Duration::from_secs(4)));
    let asked = Instant::now();
    let answer = conn.review("/validate", &review("t2s", "CREATE", &pinned, None)).await.unwrap();
    let waited = asked.elapsed();
    assert!(waited >= Duration::from_secs(1) && waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    let found = warnings(&answer);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "hpa-webhook checked the cross-object rules of this HPA in part: its scale target was not read: "
        ),
        "{found:?}"
    );
    s.api.clear_faults();
    // RBAC refuses the WorkerPools: neither HPA410 nor HPA403 concludes, the warning says why.
    s.api.refuse(Some("workerpools.example.com"), Some("batch"));
    let refused = |name: &str| {
        format!(
            "hpa-webhook checked the cross-object rules of this HPA in part: RBAC refuses to get its scale target workerpools.example.com batch/{name} (not read)"
        )
    };
    for (uid, hpa, name) in [("t3", &pinned, "pinned"), ("t4", &scaled, "scaled")] {
        let answer = conn.review("/validate", &review(uid, "CREATE", hpa, None)).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        assert_eq!(warnings(&answer), [refused(name)]);
    }
    // Each `GET` counted in /metrics by what it answered.
    let (status, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    assert_eq!(status, 200);
    let text = String::from_utf8(body.to_vec()).unwrap();
    let mut reads: Vec<&str> = text.lines().filter(|l| l.starts_with("hpa_webhook_target_reads_total{")).collect();
    reads.sort_unstable();
    assert_eq!(
        reads,
        [
            "hpa_webhook_target_reads_total{verb=\"get\",result=\"found\"} 1",
            "hpa_webhook_target_reads_total{verb=\"get\",result=\"not_found\"} 1",
            "hpa_webhook_target_reads_total{verb=\"get\",result=\"refused\"} 2",
            "hpa_webhook_target_reads_total{verb=\"get\",result=\"timeout\"} 1",
        ]
    );
    server.stop().await;
}

/// An HPA on an Argo Rollout while Argo Rollouts is not installed: the kind is not served, so
/// its target cannot exist. HPA403 is certain: nothing is asked (no LIST, none counted in
/// /metrics), no warning says the target was not read, and `denyRules` denies. Once the Rollout
/// CRD is installed, the absence is no longer certain: the API server is asked, and the CRD's
/// event starts the Rollouts' watch at once, not at the next re-check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_hpa_on_a_kind_that_is_not_served_has_no_target_for_certain() {
    let (s, _) = setup().await;
    let policy = write_policy(&s, "deny-missing.yaml", "defaults: {denyRules: [HPA403]}\n");
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;
    let mut hpa = cpu_hpa("canary");
    hpa["spec"]["scaleTargetRef"] = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "canary"});
    // The LISTs by name (the Rollouts' own watch, once it runs, reads across namespaces).
    let rollouts = |s: &Setup| {
        s.api.requests().into_iter().filter(|r| r.path == "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts").count()
    };
    let denied = "HorizontalPodAutoscaler.autoscaling \"canary\" is invalid: spec.scaleTargetRef.name: Forbidden: \
        HPA403 target-not-found: no Rollout shop/canary in the cluster (organization policy: defaults denies HPA403)";
    let before = rollouts(&s);
    let answer = conn.review("/validate", &review("n1", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], false, "{answer}");
    assert_eq!(response(&answer)["status"]["message"], denied, "{answer}");
    assert_eq!(warnings(&answer), Vec::<String>::new());
    assert_eq!(rollouts(&s), before);
    let (_, body) = conn.send("GET", "/metrics", Vec::new()).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(!text.lines().any(|l| l.starts_with("hpa_webhook_target_reads_total{")), "{text}");

    // Argo Rollouts installed: the CRD's watch event reaches the cache, and the LIST by name is
    // asked again (the Rollout does not exist: still denied, now on the API server's answer).
    s.api.install("rollouts");
    s.api.apply(&[json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "rollouts.argoproj.io"},
        "spec": {"group": "argoproj.io", "names": {"kind": "Rollout", "plural": "rollouts"}, "scope": "Namespaced",
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                    "statusReplicasPath": ".status.HPAReplicas", "labelSelectorPath": ".status.selector"}}}]}})]);
    let deadline = Deadline::within(Duration::from_secs(10));
    loop {
        // (Until the Rollouts' watch has listed, a review may find the view stale and admit; on a
        // loaded machine a LIST by name may also run out of its bound and admit with a warning.)
        let answer = conn.review("/validate", &review("n2", "CREATE", &hpa, None)).await.unwrap();
        if rollouts(&s) > before && response(&answer)["allowed"] == false {
            assert_eq!(response(&answer)["status"]["message"], denied, "{answer}");
            break;
        }
        deadline.tick(format!("the CRD was not seen: {answer}")).await;
    }
    let asked: Vec<String> = s
        .api
        .requests()
        .into_iter()
        .filter(|r| r.path == "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts")
        .map(|r| format!("{}?{}", r.path, r.query))
        .collect();
    let by_name = "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts?fieldSelector=metadata.name%3Dcanary&limit=1";
    assert!(!asked.is_empty() && asked.iter().all(|a| a == by_name), "{asked:?}");

    // The CRD's event wakes the re-check (its interval is 5 minutes): the Rollouts are watched
    // within seconds (10 s allowed on a loaded machine), and a Rollout created then is in the cache, no LIST asked.
    let synced = "hpa_webhook_context_watch_state{resource=\"rollouts.argoproj.io\",state=\"synced\"}";
    let deadline = Deadline::within(Duration::from_secs(10));
    while metric(&scrape(&mut conn).await, synced) != Some(1.0) {
        deadline.tick("the Rollouts were not watched").await;
    }
    s.api.apply(&[json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "canary", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "canary"}}, "template": {"metadata": {"labels": {"app": "canary"}},
            "spec": {"containers": [{"name": "app", "image": "c:1", "resources": {"requests": {"cpu": "100m"}}}]}}}})]);
    let cached = "hpa_webhook_context_objects{resource=\"rollouts.argoproj.io\"}";
    let deadline = Deadline::within(Duration::from_secs(5));
    while metric(&scrape(&mut conn).await, cached) != Some(1.0) {
        deadline.tick("the Rollout was not cached").await;
    }
    let listed = rollouts(&s);
    let answer = conn.review("/validate", &review("n3", "CREATE", &hpa, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert_eq!(warnings(&answer), Vec::<String>::new(), "{answer}");
    assert_eq!(rollouts(&s), listed, "no LIST by name: the Rollout is in the cache");
    server.stop().await;
}

/// The workload side on a fresh world: a StatefulSet `orders` scaled by HPA `orders-hpa` on
/// memory utilization and on the cpu of its container `app` (`ContainerResource`), a Rollout
/// `pay` scaled on cpu utilization, and a Deployment `lonely` no HPA scales. Each write that
/// breaks an HPA is warned on, naming it; the writes that break nothing are not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_side_warns_each_write_that_breaks_an_hpa_and_no_other() {
    let (s, _) = setup().await;
    s.api.install("rollouts");
    s.api.install("verticalpodautoscalers");
    let template = |labels: Value| {
        json!({"metadata": {"labels": labels}, "spec": {"containers": [
            {"name": "app", "image": "ghcr.io/example/orders:2.1",
                "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}},
            {"name": "log", "image": "fluent-bit", "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}}}]}})
    };
    let orders = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "orders", "namespace": "shop"},
        "spec": {"serviceName": "orders", "selector": {"matchLabels": {"app": "orders"}},
            "template": template(json!({"app": "orders"}))}});
    let pay = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "pay", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "pay"}}, "template": template(json!({"app": "pay"})),
            "strategy": {"canary": {"steps": [{"setWeight": 20}]}}}});
    let lonely = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "lonely", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "lonely"}}, "template": template(json!({"app": "lonely"}))}});
    let orders_hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "orders-hpa", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "orders"},
            "minReplicas": 3, "maxReplicas": 12, "metrics": [
                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 70}}},
                {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
    let pay_hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "pay-hpa", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "pay"},
            "minReplicas": 2, "maxReplicas": 6, "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
    let stored = s.api.apply(&[orders, pay, lonely, orders_hpa, pay_hpa]);
    let (orders, pay, lonely) = (stored[0].clone(), stored[1].clone(), stored[2].clone());
    let (server, mut conn) = s.webhook(&[]).await;
    let statefulsets = ("apps", "v1", "statefulsets");
    let rollouts = ("argoproj.io", "v1alpha1", "rollouts");
    async fn said(conn: &mut Conn, review: &Value) -> Vec<String> {
        let answer = conn.review("/validate-workloads", review).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        warnings(&answer)
    }
    // Some warnings, each of them `prefix` (a rule may say one thing per metric).
    let one = |found: Vec<String>, prefix: &str| {
        assert!(!found.is_empty() && found.iter().all(|w| w.starts_with(prefix)), "expected {prefix:?}: {found:?}");
    };

    // (a) A StatefulSet dropping the memory request of its sidecar: HPA201, naming the HPA.
    let mut dropped = orders.clone();
    dropped["spec"]["template"]["spec"]["containers"][1]["resources"] = json!({"requests": {"cpu": "10m"}});
    let update = workload_review("a1", "UPDATE", statefulsets, &dropped, Some(&orders));
    one(said(&mut conn, &update).await, "HPA orders-hpa: HPA201 missing-resource-request:");
    // The same on a Rollout, its cpu request.
    let mut dropped_pay = pay.clone();
    dropped_pay["spec"]["template"]["spec"]["containers"][0]["resources"] = json!({"requests": {"memory": "256Mi"}});
    let update_pay = workload_review("a2", "UPDATE", rollouts, &dropped_pay, Some(&pay));
    one(said(&mut conn, &update_pay).await, "HPA pay-hpa: HPA201 missing-resource-request:");
    // A server-side dry run says what the write would break (`kubectl apply --dry-run=server`,
    // `kubectl diff` show admission warnings): the same warning.
    let mut dry = update.clone();
    dry["request"]["dryRun"] = json!(true);
    one(said(&mut conn, &dry).await, "HPA orders-hpa: HPA201 missing-resource-request:");
    // The same write to the `status` subresource, or the object's DELETE: not checked.
    let mut status = update.clone();
    status["request"]["subResource"] = json!("status");
    assert_eq!(said(&mut conn, &status).await, Vec::<String>::new());
    let delete = workload_review("a3", "DELETE", statefulsets, &Value::Null, Some(&orders));
    assert_eq!(said(&mut conn, &delete).await, Vec::<String>::new());
    // The same drop on a Deployment no HPA scales, and a write that changes nothing an HPA
    // reads (a label, an image): nothing to say.
    let mut dropped_lonely = lonely.clone();
    dropped_lonely["spec"]["template"]["spec"]["containers"][1]["resources"] = json!({});
    let deployments = ("apps", "v1", "deployments");
    let review = workload_review("a4", "UPDATE", deployments, &dropped_lonely, Some(&lonely));
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());
    let mut relabeled = orders.clone();
    relabeled["metadata"]["labels"] = json!({"team": "checkout"});
    relabeled["spec"]["template"]["spec"]["containers"][0]["image"] = json!("ghcr.io/example/orders:2.2");
    let review = workload_review("a5", "UPDATE", statefulsets, &relabeled, Some(&orders));
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());

    // (b) spec.replicas: the HPA controller's write through the scale subresource is not
    // checked; the next write of the StatefulSet that leaves replicas to the HPA (kube-apiserver
    // keeps the HPA controller as its owner) says nothing; a GitOps apply that takes
    // spec.replicas over is HPA410, naming the HPA.
    let scaled = s.api.scale_as_hpa("apps", "statefulsets", "shop", "orders", 5);
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "orders", "namespace": "shop"}, "spec": {"replicas": 5}});
    let mut review = workload_review("b1", "UPDATE", statefulsets, &scale, Some(&scale));
    review["request"]["subResource"] = json!("scale");
    review["request"]["kind"] = json!({"group": "autoscaling", "version": "v1", "kind": "Scale"});
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());
    let mut touched = scaled.clone();
    touched["metadata"]["labels"] = json!({"team": "checkout"});
    let review = workload_review("b2", "UPDATE", statefulsets, &touched, Some(&scaled));
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());
    let mut manifest = find(&stored, "StatefulSet", "orders").clone();
    manifest["spec"]["replicas"] = json!(3);
    let mut gitops = scaled.clone();
    gitops["spec"]["replicas"] = json!(3);
    gitops["metadata"]["managedFields"] = json!([{
        "manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1",
        "time": "2026-03-02T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields_v1(&manifest),
    }]);
    let review = workload_review("b3", "UPDATE", statefulsets, &gitops, Some(&scaled));
    one(said(&mut conn, &review).await, "HPA orders-hpa: HPA410 workload-sets-replicas:");

    // (c) The container the ContainerResource metric names, renamed: HPA202.
    let mut renamed = orders.clone();
    renamed["spec"]["template"]["spec"]["containers"][0]["name"] = json!("server");
    let review = workload_review("c1", "UPDATE", statefulsets, &renamed, Some(&orders));
    one(said(&mut conn, &review).await, "HPA orders-hpa: HPA202 unknown-container:");

    // (d) A VPA in Auto mode on the StatefulSet (controlling memory and cpu, which the HPA scales
    // on): HPA408; in Off mode (recommendations only), nothing.
    let vpa = |mode: &str| {
        json!({"apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
            "metadata": {"name": "orders-vpa", "namespace": "shop"},
            "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "orders"},
                "updatePolicy": {"updateMode": mode}}})
    };
    let vpas = ("autoscaling.k8s.io", "v1", "verticalpodautoscalers");
    let review = workload_review("d1", "CREATE", vpas, &vpa("Auto"), None);
    one(said(&mut conn, &review).await, "HPA orders-hpa: HPA408 vpa-conflict:");
    let review = workload_review("d2", "CREATE", vpas, &vpa("Off"), None);
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());

    // (e) A PDB over the Rollout's pods allowing no eviction at minReplicas 2 (minAvailable 2):
    // HPA104; one allowing one (minAvailable 1): nothing.
    let pdb = |min: i64| {
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pay", "namespace": "shop"},
            "spec": {"minAvailable": min, "selector": {"matchLabels": {"app": "pay"}}}})
    };
    let pdbs = ("policy", "v1", "poddisruptionbudgets");
    let review = workload_review("e1", "CREATE", pdbs, &pdb(2), None);
    one(said(&mut conn, &review).await, "HPA pay-hpa: HPA104 min-replicas-blocked-by-pdb:");
    let review = workload_review("e2", "CREATE", pdbs, &pdb(1), None);
    assert_eq!(said(&mut conn, &review).await, Vec::<String>::new());
    server.stop().await;
}

/// `denyRules` per namespace, on a rule other than HPA201 and chosen by a namespace selector:
/// HPA407 (a second HPA on one Deployment) denies in the production namespace and warns in the
/// other; the API server gone, the view goes stale: every request is still answered, the
/// cross-object rule neither denies nor warns (the answer and /metrics say the view is stale),
/// while a single-object rule the same policy denies (HPA101) still denies, as it reads only the
/// HPA.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_rules_by_namespace_and_never_on_a_stale_view() {
    let (s, _) = setup().await;
    let policy = write_policy(
        &s,
        "policy.yaml",
        "namespaceLabels:\n  team-a: {tier: production}\nrules:\n  - name: production\n    namespaceSelector: {matchLabels: {tier: production}}\n    denyRules: [conflicting-hpas, HPA101]\n",
    );
    let hpa_in = |namespace: &str, name: &str, min: i64, max: i64| {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "front"},
                "minReplicas": min, "maxReplicas": max, "metrics": [{"type": "Resource",
                    "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 80}}}]}})
    };
    for namespace in ["team-a", "team-b"] {
        let front = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "front", "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": "front"}}, "template": {"metadata": {"labels": {"app": "front"}},
                "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"memory": "64Mi"}}}]}}}});
        s.api.apply(&[front, hpa_in(namespace, "front-old", 2, 6)]);
    }
    s.api.set_bookmark_interval(Duration::from_millis(50));
    let (server, mut conn) = s.webhook(&["--context-stale-after", "300ms", "--policy", &policy]).await;

    // Fresh: denied in team-a (HPA407, in the policy's words), warned in team-b.
    let second = hpa_in("team-a", "front", 2, 6);
    let answer = conn.review("/validate", &review("n1", "CREATE", &second, None)).await.unwrap();
    let r = response(&answer);
    assert_eq!(r["allowed"], false, "{answer}");
    let message = r["status"]["message"].as_str().unwrap();
    assert!(message.contains("Forbidden: HPA407 conflicting-hpas: "), "{message}");
    assert!(message.contains("(organization policy: rule \"production\" denies HPA407)"), "{message}");
    let answer =
        conn.review("/validate", &review("n2", "CREATE", &hpa_in("team-b", "front", 2, 6), None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert!(warnings(&answer).iter().any(|w| w.starts_with("HPA407 conflicting-hpas: ")), "{answer}");
    let pinned = hpa_in("team-a", "front", 4, 4);

    s.api.kill();
    let deadline = Deadline::within(Duration::from_secs(20));
    let mut n = 0;
    loop {
        n += 1;
        let answer = conn.review("/validate", &review(&format!("n3-{n}"), "CREATE", &second, None)).await.unwrap();
        if response(&answer)["allowed"] == false {
            deadline.tick("the view never became stale").await;
            continue;
        }
        let found = warnings(&answer);
        assert!(
            found.iter().any(|w| w.starts_with("hpa-webhook checked this HPA alone (cross-object checks skipped)")),
            "{found:?}"
        );
        assert!(!found.iter().any(|w| w.starts_with("HPA407")), "{found:?}");
        break;
    }
    // HPA101 reads the HPA alone: denied on a stale view as on a fresh one.
    let answer = conn.review("/validate", &review("n4", "CREATE", &pinned, None)).await.unwrap();
    let r = response(&answer);
    assert_eq!(r["allowed"], false, "{answer}");
    let message = r["status"]["message"].as_str().unwrap();
    assert!(message.contains("HPA101 min-replicas-equals-max: "), "{message}");
    assert!(!message.contains("HPA407"), "{message}");
    let text = scrape(&mut conn).await;
    let stale = metric(&text, "hpa_webhook_context_stale_views_total{endpoint=\"validate\"}");
    assert!(stale.is_some_and(|n| n >= 2.0), "{text}");
    server.stop().await;
}

/// The workload side on CREATEs and on UPDATEs of the objects around an HPA: a Deployment
/// created (under an HPA that waits for it) without the request its metric needs, or with
/// `spec.replicas` by client-side `kubectl apply`; a PDB whose UPDATE starts selecting the
/// HPA's pods; a VPA switched from `Off` to `Auto`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_side_on_creates_and_updates_of_what_surrounds_an_hpa() {
    let (s, _) = setup().await;
    s.api.install("verticalpodautoscalers");
    let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "media-hpa", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "media"},
            "minReplicas": 2, "maxReplicas": 10, "metrics": [{"type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 65}}}]}});
    let vpa = |mode: &str| {
        json!({"apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
            "metadata": {"name": "media", "namespace": "shop"},
            "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "media"},
                "updatePolicy": {"updateMode": mode}}})
    };
    let pdb = |app: &str| {
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "media", "namespace": "shop"},
            "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": app}}}})
    };
    let stored = s.api.apply(&[hpa, vpa("Off"), pdb("other")]);
    let (old_vpa, old_pdb) = (stored[1].clone(), stored[2].clone());
    let (server, mut conn) = s.webhook(&[]).await;
    async fn said(conn: &mut Conn, review: &Value) -> Vec<String> {
        let answer = conn.review("/validate-workloads", review).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        warnings(&answer)
    }
    let deployment = |requests: Value, replicas: Option<i64>| {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "media", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "media"}}, "template": {"metadata": {"labels": {"app": "media"}},
                "spec": {"containers": [{"name": "transcode", "image": "ffmpeg", "resources": {"requests": requests}}]}}}});
        if let Some(n) = replicas {
            d["spec"]["replicas"] = json!(n);
        }
        d
    };
    let deployments = ("apps", "v1", "deployments");
    let has = |found: &[String], prefix: &str| found.iter().any(|w| w.starts_with(prefix));

    // A Deployment created without its cpu request: HPA201 naming the HPA (not HPA403, which
    // the HPA had before the write and no longer has).
    let created = deployment(json!({"memory": "1Gi"}), None);
    let found = said(&mut conn, &workload_review("k1", "CREATE", deployments, &created, None)).await;
    assert!(has(&found, "HPA media-hpa: HPA201 missing-resource-request:"), "{found:?}");
    assert!(!found.iter().any(|w| w.contains("HPA403")), "{found:?}");
    // Created with its request and replicas: 3 by client-side `kubectl apply` (its managed
    // fields as kube-apiserver set them before admission): HPA410 naming the HPA, no HPA201.
    let mut with_replicas = deployment(json!({"cpu": "500m"}), Some(3));
    with_replicas["metadata"]["managedFields"] = json!([{
        "manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
        "time": "2026-03-02T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields_v1(&with_replicas),
    }]);
    let found = said(&mut conn, &workload_review("k2", "CREATE", deployments, &with_replicas, None)).await;
    assert!(has(&found, "HPA media-hpa: HPA410 workload-sets-replicas:"), "{found:?}");
    assert!(!has(&found, "HPA media-hpa: HPA201"), "{found:?}");
    // Created as the HPA needs it: nothing.
    let clean = deployment(json!({"cpu": "500m"}), None);
    let found = said(&mut conn, &workload_review("k3", "CREATE", deployments, &clean, None)).await;
    assert_eq!(found, Vec::<String>::new());

    // The Deployment stored: the PDB, updated to select its pods, blocks every eviction at
    // minReplicas (HPA104); the VPA switched from Off to Auto sets the cpu requests the HPA
    // scales on (HPA408).
    s.api.apply(&[clean]);
    let pdbs = ("policy", "v1", "poddisruptionbudgets");
    let mut review = workload_review("k4", "UPDATE", pdbs, &pdb("media"), Some(&old_pdb));
    let deadline = Deadline::within(Duration::from_secs(10));
    loop {
        let found = said(&mut conn, &review).await;
        if has(&found, "HPA media-hpa: HPA104 min-replicas-blocked-by-pdb:") {
            break;
        }
        deadline.tick(format!("no HPA104: {found:?}")).await;
        review["request"]["uid"] = json!("k4b");
    }
    let vpas = ("autoscaling.k8s.io", "v1", "verticalpodautoscalers");
    let found = said(&mut conn, &workload_review("k5", "UPDATE", vpas, &vpa("Auto"), Some(&old_vpa))).await;
    assert!(has(&found, "HPA media-hpa: HPA408 vpa-conflict:"), "{found:?}");
    // The VPA's own unchanged re-apply in Off mode: nothing.
    let found = said(&mut conn, &workload_review("k6", "UPDATE", vpas, &old_vpa, Some(&old_vpa))).await;
    assert_eq!(found, Vec::<String>::new());
    server.stop().await;
}

/// `denyRules` on an HPA UPDATE ratchet as kube-apiserver's own validation does: an update of an
/// HPA that already had the finding (a `maxReplicas` change) is admitted with the warning; an
/// update that brings it (a memory utilization metric on a Deployment without memory
/// requests) is denied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_rules_on_an_hpa_update_deny_only_what_the_update_brings() {
    let (s, _) = setup().await;
    let policy =
        write_policy(&s, "policy.yaml", "rules:\n  - name: shop\n    namespaces: [shop]\n    denyRules: [HPA201]\n");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "thumbs", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "thumbs"}}, "template": {"metadata": {"labels": {"app": "thumbs"}},
            "spec": {"containers": [{"name": "resize", "image": "imagemagick", "resources": {"requests": {"cpu": "1"}}}]}}}});
    let metric = |resource: &str| json!({"type": "Resource", "resource": {"name": resource, "target": {"type": "Utilization", "averageUtilization": 70}}});
    let mut hpa = cpu_hpa("thumbs");
    let mut legacy = cpu_hpa("thumbs-legacy");
    legacy["spec"]["scaleTargetRef"]["name"] = json!("thumbs");
    legacy["spec"]["metrics"] = json!([metric("memory")]);
    hpa["spec"]["metrics"] = json!([metric("cpu")]);
    // The legacy HPA was stored before the policy (or the Deployment's memory request dropped
    // since): it has HPA201 (and HPA407 with `thumbs`, which the policy does not deny).
    let stored = s.api.apply(&[deployment, hpa.clone(), legacy]);
    let (hpa, legacy) = (stored[1].clone(), stored[2].clone());
    let (server, mut conn) = s.webhook(&["--policy", &policy]).await;

    let mut bigger = legacy.clone();
    bigger["spec"]["maxReplicas"] = json!(20);
    let answer = conn.review("/validate", &review("u1", "UPDATE", &bigger, Some(&legacy))).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert!(warnings(&answer).iter().any(|w| w.starts_with("HPA201 missing-resource-request: ")), "{answer}");

    let mut on_memory = hpa.clone();
    on_memory["spec"]["metrics"] = json!([metric("cpu"), metric("memory")]);
    let answer = conn.review("/validate", &review("u2", "UPDATE", &on_memory, Some(&hpa))).await.unwrap();
    let r = response(&answer);
    assert_eq!(r["allowed"], false, "{answer}");
    let message = r["status"]["message"].as_str().unwrap();
    assert!(message.contains("spec.metrics[1].resource.target.averageUtilization: Forbidden: HPA201 "), "{message}");
    server.stop().await;
}

/// A `410 Gone` through the webhook: the history compacted, each watch renewed from its older
/// resourceVersion relists. Throughout, every review is answered from the view it had (the
/// previous list is kept while the kind relists): the same HPA201 warning, the same denial
/// where the policy denies it, and never the stale warning; a Deployment fixed in the API server
/// meanwhile is seen once relisted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_watch_relists_without_a_stale_answer() {
    let (s, objects) = setup().await;
    let policy = deny_hpa201(&s);
    let (server, mut conn) = s.webhook(&["--context-stale-after", "2s", "--policy", &policy]).await;
    let web = hpa(&objects, "web");
    let mut elsewhere = web.clone();
    elsewhere["metadata"]["namespace"] = json!("outlet");
    s.api.apply(&[
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "outlet"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}),
    ]);
    let lists = |s: &Setup| {
        s.api
            .requests()
            .iter()
            .filter(|r| r.path == "/apis/apps/v1/deployments" && !r.query.contains("watch=true"))
            .count()
    };
    // Until the cache has the new Deployment in `outlet`.
    conn.review_until(
        "/validate",
        &review("g0", "CREATE", &elsewhere, None),
        "the Deployment in outlet was not seen",
        |a| warnings(a).iter().any(|w| w.starts_with("HPA201")),
    )
    .await;
    let listed = lists(&s);
    // A write of another kind, then a compaction: the Deployments' watch, renewed from its own
    // (older) resourceVersion, gets `410 Gone`.
    s.api.apply(&[
        json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "elsewhere"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]}}),
    ]);
    s.api.compact();
    let deadline = Deadline::within(Duration::from_secs(15));
    let mut n = 0;
    while lists(&s) == listed || n < 10 {
        n += 1;
        // Denied in shop (the policy), warned in outlet: never stale, never failed.
        let answer = conn.review("/validate", &review(&format!("g{n}"), "CREATE", &web, None)).await.unwrap();
        let r = response(&answer);
        assert_eq!(r["allowed"], false, "{answer}");
        assert!(r["status"]["message"].as_str().unwrap().contains("Forbidden: HPA201 "), "{answer}");
        let answer = conn.review("/validate", &review(&format!("o{n}"), "CREATE", &elsewhere, None)).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        let found = warnings(&answer);
        assert!(found.iter().any(|w| w.starts_with("HPA201 missing-resource-request: ")), "{found:?}");
        assert!(!found.iter().any(|w| w.starts_with("hpa-webhook checked")), "{found:?}");
        deadline.tick("no relist of Deployments").await;
    }
    // Fixed after the relist: seen, as any change.
    let fixed = in_namespace(fixtures::cluster_fixture("requests-set"), "shop");
    s.api.apply(&[find(&fixed, "Deployment", "web").clone()]);
    let what = "the fixed Deployment was not seen after the relist";
    let answer = conn
        .review_until("/validate", &review("g-fixed", "CREATE", &web, None), what, |a| response(a)["allowed"] == true)
        .await;
    assert!(!warnings(&answer).iter().any(|w| w.starts_with("HPA201")), "{answer}");
    server.stop().await;
}

/// A cache that never syncs a kind (the Deployments' list answers 500 from the start): past
/// `--context-sync-timeout` the server reports ready and answers every review with the HPA
/// checked alone, saying why, counting it, and never denying on the rule the policy denies; the
/// workload side admits without checking, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kind_that_never_syncs_leaves_single_object_checks_after_the_sync_timeout() {
    let (s, objects) = setup().await;
    s.api.fault("/apis/apps/v1/deployments", Fault::ListStatus(500, "etcd is down".into()));
    let policy = deny_hpa201(&s);
    let kubeconfig = s.kubeconfig.display().to_string();
    let flags = [
        "--context-cache",
        "true",
        "--kubeconfig",
        &kubeconfig,
        "--context-sync-timeout",
        "300ms",
        "--policy",
        &policy,
    ];
    let server = Server::start(&s.certs, &flags).await;
    let mut conn = s.certs.client().connect(server.addr).await.unwrap();
    let deadline = Deadline::within(Duration::from_secs(10));
    while conn.send("GET", "/readyz", Vec::new()).await.unwrap().0 != 200 {
        deadline.tick("not ready past the sync timeout").await;
    }
    let web = hpa(&objects, "web");
    let answer = conn.review("/validate", &review("y1", "CREATE", &web, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    let found = warnings(&answer);
    assert!(
        found.iter().any(|w| w.starts_with("hpa-webhook checked this HPA alone (cross-object checks skipped): ")
            && w.contains("deployments.apps")),
        "{found:?}"
    );
    assert!(!found.iter().any(|w| w.starts_with("HPA201")), "{found:?}");
    let deployment = find(&objects, "Deployment", "web");
    let write = workload_review("y2", "UPDATE", ("apps", "v1", "deployments"), deployment, Some(deployment));
    let answer = conn.review("/validate-workloads", &write).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    let found = warnings(&answer);
    assert!(
        found.len() == 1
            && found[0].starts_with("hpa-webhook checked this write against no HPA (cross-object checks skipped): "),
        "{found:?}"
    );
    let text = scrape(&mut conn).await;
    for endpoint in ["validate", "validate_workloads"] {
        let name = format!("hpa_webhook_context_stale_views_total{{endpoint=\"{endpoint}\"}}");
        assert!(metric(&text, &name).is_some_and(|n| n >= 1.0), "{name} in\n{text}");
    }
    server.stop().await;
}

/// A write that breaks an HPA already broken: the HPA had HPA201 for one container; a write
/// that drops the request of another container is warned on (a finding the HPA did not have),
/// a write that changes nothing an HPA reads is not (the finding it had is not this write's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_breaks_an_already_broken_hpa_further_is_warned_on() {
    let (s, _) = setup().await;
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "feed", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "feed"}}, "template": {"metadata": {"labels": {"app": "feed"}},
            "spec": {"containers": [
                {"name": "api", "image": "feed:1", "resources": {"requests": {"cpu": "100m"}}},
                {"name": "cache", "image": "redis", "resources": {"requests": {"memory": "64Mi"}}},
                {"name": "agent", "image": "datadog", "resources": {"requests": {"cpu": "10m"}}}]}}}});
    let stored = s.api.apply(&[deployment, cpu_hpa("feed")]).remove(0);
    let (server, mut conn) = s.webhook(&[]).await;
    let deployments = ("apps", "v1", "deployments");
    let mut dropped = stored.clone();
    dropped["spec"]["template"]["spec"]["containers"][2]["resources"] = json!({});
    let answer = conn
        .review("/validate-workloads", &workload_review("f1", "UPDATE", deployments, &dropped, Some(&stored)))
        .await
        .unwrap();
    let found = warnings(&answer);
    assert!(
        found.len() == 1 && found[0].starts_with("HPA feed: HPA201 ") && found[0].contains("\"agent\""),
        "{found:?}"
    );
    let mut image = stored.clone();
    image["spec"]["template"]["spec"]["containers"][0]["image"] = json!("feed:2");
    let answer = conn
        .review("/validate-workloads", &workload_review("f2", "UPDATE", deployments, &image, Some(&stored)))
        .await
        .unwrap();
    assert_eq!(warnings(&answer), Vec::<String>::new());
    server.stop().await;
}
