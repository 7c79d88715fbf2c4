//! `hpa-lint diagnose`: the published 1.23 run from a snapshot, the same namespace served live
//! over TLS by the test API server (the same diagnosis), and the errors of a live read.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hpa_tests::apiserver::{Fault, LiveCluster as Live, TestApiServer, fixtures};
use hpa_tests::cli::{CapturedRun, hpa_lint};
use serde_json::{Value, json};

fn data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/published-1.23").join(file).display().to_string()
}

/// The snapshot's replayed sync instant (the PodMetrics' timestamp).
const NOW: &str = "2026-03-02T10:00:04Z";

fn snapshot(output: &str) -> CapturedRun {
    let (objects, metrics) = (data("objects.yaml"), data("pod-metrics.json"));
    hpa_lint(&["diagnose", "--snapshot", &objects, &metrics, "php-apache", "-o", output], "")
}

#[test]
fn the_published_1_23_run_from_a_snapshot() {
    let run = snapshot("json");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    // The first sync: 2 ready pods at 515m of a 20m request, target 20 %: ratio 128.75,
    // proposal 258, limited to 4 by the legacy scale-up limit max(2 × 2, 4).
    assert_eq!(d["currentReplicas"], 2);
    assert_eq!(d["metrics"][0]["current"], "2575%");
    assert_eq!(d["metrics"][0]["usageRatio"], 128.75);
    assert_eq!(d["metrics"][0]["proposal"], 258);
    assert_eq!(d["metrics"][0]["readyPods"], 2);
    assert_eq!(d["normalization"]["path"], "legacy");
    assert_eq!(d["normalization"]["limitReason"], "ScaleUpLimit");
    assert_eq!(d["desiredReplicas"], 4);
    // Then 8, then 10 (TooManyReplicas), one sync apart.
    let rescales: Vec<(Value, Value, Value)> = d["forecast"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["rescaled"] == true)
        .map(|s| (s["afterSeconds"].clone(), s["desired"].clone(), s["limitReason"].clone()))
        .collect();
    assert_eq!(
        rescales,
        vec![(json!(15), json!(8), json!("ScaleUpLimit")), (json!(30), json!(10), json!("TooManyReplicas"))]
    );
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 30, "replicas": 10}));
    // The HPA has no status: its first sync, from an empty memory, said as such.
    assert!(d["memory"]["assumptions"][0].as_str().unwrap().contains("no status yet"));
    assert_eq!(d["conditionsDiffer"], false);
    // The schema, pinned.
    insta::assert_json_snapshot!("published-1.23.json", d);

    let human = snapshot("human");
    assert_eq!(human.code, 0, "{}", human.stderr);
    insta::assert_snapshot!("published-1.23.human", human.stdout);
}

/// A snapshot's lists are read as kubectl reads them, the same way as `hpa-lint` reads files: a
/// list without `kind` (a hand-edited `kubectl get -o yaml`) still holds its objects, and the
/// items of a `kind: List` of `kubectl get --raw` lists without their own kind take it from the
/// list they are in (`PodMetricsList` → `PodMetrics`).
#[test]
fn snapshot_lists_are_read_as_kubectl_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let kindless = dir.path().join("kindless.yaml");
    let objects = std::fs::read_to_string(data("objects.yaml")).unwrap();
    assert!(objects.contains("\nkind: List\n"));
    std::fs::write(&kindless, objects.replace("\nkind: List\n", "\n")).unwrap();
    let kindless = kindless.display().to_string();
    let metrics = data("pod-metrics.json");
    let run = hpa_lint(&["diagnose", "--snapshot", &kindless, &metrics, "php-apache", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["metrics"][0]["proposal"].clone(), d["desiredReplicas"].clone()), (json!(258), json!(4)));
    assert_eq!(d, snapshot("json").json());
}

/// The snapshot's objects as the API server would store them, with the metrics API serving the
/// PodMetrics.
fn serve_the_snapshot(server: &TestApiServer) {
    server.install("podmetrics");
    for object in fixtures::load(Path::new(&data("objects.yaml"))) {
        server.put(object);
    }
    let metrics: Value = serde_json::from_str(&std::fs::read_to_string(data("pod-metrics.json")).unwrap()).unwrap();
    for mut item in metrics["items"].as_array().unwrap().clone() {
        item["kind"] = json!("PodMetrics");
        item["apiVersion"] = json!("metrics.k8s.io/v1beta1");
        server.put(item);
    }
}

fn live() -> Live {
    Live::start()
}

/// A live cluster with both metric adapters installed and the objects of
/// `data/diagnose/metric-selectors` in `default`; the fixture directory beside it.
fn live_with_metric_adapters() -> (Live, PathBuf) {
    let l = live();
    l.server.install("externalmetrics");
    l.server.install("custommetrics");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    for mut object in fixtures::load(&dir.join("objects.yaml")) {
        object["metadata"]["namespace"] = json!("default");
        l.server.put(object);
    }
    (l, dir)
}

/// `hpa-lint diagnose` on a [`Live`] cluster.
trait Diagnose {
    /// `hpa-lint diagnose` against the server (outside its runtime: the command runs its own).
    fn diagnose(&self, extra: &[&str]) -> CapturedRun;
}

impl Diagnose for Live {
    fn diagnose(&self, extra: &[&str]) -> CapturedRun {
        self.hpa_lint("diagnose", &[&["-n", "default", "--now", NOW], extra].concat())
    }
}

#[test]
fn live_over_tls_gives_the_snapshot_diagnosis() {
    let l = live();
    serve_the_snapshot(&l.server);
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut live = run.json();
    let mut files = snapshot("json").json();
    // Only where the objects came from differs (and the snapshot's note on its instant).
    assert_eq!(live["source"], "live");
    for d in [&mut live, &mut files] {
        d["source"] = Value::Null;
        d["notes"] = Value::Null;
    }
    assert_eq!(live, files);
}

#[test]
fn live_errors_are_one_sentence_and_exit_2() {
    let l = live();
    serve_the_snapshot(&l.server);

    // Expired credentials.
    let run = l.diagnose(&["--context", "hpa-test-expired", "php-apache"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "hpa-lint: error: the API server at {} rejected the credentials (401 Unauthorized): they are missing, invalid or expired; log in again or refresh the kubeconfig's token\n",
            l.server.url()
        )
    );

    // No kubeconfig where one is named.
    let run = hpa_lint(&["diagnose", "--kubeconfig", "/nonexistent/kubeconfig", "php-apache"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "hpa-lint: error: cannot use kubeconfig /nonexistent/kubeconfig: no such file\n  help: fix the file, or choose another with --kubeconfig or --context\n"
        )
    );

    // A context the kubeconfig does not have: the ones it has are named.
    let run = l.diagnose(&["--context", "nope", "php-apache"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "hpa-lint: error: cannot use kubeconfig {}: no context exists with the name \"nope\" (its contexts: hpa-test, ",
            l.kubeconfig.display()
        )),
        "{}",
        run.stderr
    );

    // An HPA that does not exist.
    let run = l.diagnose(&["nope"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "hpa-lint: error: HorizontalPodAutoscaler default/nope not found\n")
    );

    // RBAC refuses the HPAs of the namespace.
    l.server.refuse(Some("horizontalpodautoscalers.autoscaling"), Some("default"));
    let run = l.diagnose(&["php-apache"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("hpa-lint: error: RBAC refused to get "), "{}", run.stderr);
    assert!(run.stderr.ends_with("; ask for read access (get, list) to it\n"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1);
}

/// metrics-server installed but down: kube-aggregator answers its APIService's requests with a
/// plain-text `service unavailable` (503), which the controller records in client-go's words
/// (`NewGenericServerResponse`), and so does the replay.
#[test]
fn a_metrics_api_that_is_down_fails_in_the_controllers_words() {
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.fault("/apis/metrics.k8s.io/v1beta1/namespaces", Fault::Text(503, "service unavailable".into()));
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["outcome"], "FailedComputeMetrics");
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(active["replayed"]["reason"], "FailedGetResourceMetric");
    assert_eq!(
        active["replayed"]["message"],
        "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"
    );
}

#[test]
fn live_without_metrics_server_still_diagnoses_and_says_so() {
    let l = live();
    for object in fixtures::load(Path::new(&data("objects.yaml"))) {
        l.server.put(object);
    }
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert!(d["notes"].as_array().unwrap().iter().any(|n| n
        == "the resource metrics API (metrics.k8s.io) is not installed, so the HPA controller gets no CPU or memory usage: install metrics-server"));
    assert_eq!(d["outcome"], "FailedComputeMetrics");
    assert_eq!(d["findings"][0]["question"], "not-scaling");
    assert_eq!(d["findings"][0]["cause"], "no-metrics");
}

/// The resource metrics API is read at `metrics.k8s.io/v1` where it is served (before
/// v1beta1), and never at `v1alpha1`: a server with only that version has no resource metrics
/// API the diagnosis reads, said as for one without metrics-server.
#[test]
fn pod_metrics_are_read_at_v1_else_v1beta1_never_v1alpha1() {
    let serve = |install: &str, api_version: &str| {
        let l = live();
        l.server.install(install);
        for object in fixtures::load(Path::new(&data("objects.yaml"))) {
            l.server.put(object);
        }
        let metrics: Value = serde_json::from_str(&std::fs::read_to_string(data("pod-metrics.json")).unwrap()).unwrap();
        for mut item in metrics["items"].as_array().unwrap().clone() {
            item["kind"] = json!("PodMetrics");
            item["apiVersion"] = json!(api_version);
            l.server.put(item);
        }
        l
    };
    let metrics_paths = |l: &Live| -> Vec<String> {
        l.server
            .requests()
            .into_iter()
            .filter(|r| r.path.starts_with("/apis/metrics.k8s.io/") && r.path.ends_with("/pods"))
            .map(|r| r.path)
            .collect()
    };
    let l = serve("podmetrics-v1", "metrics.k8s.io/v1");
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["metrics"][0]["proposal"].clone(), d["desiredReplicas"].clone()), (json!(258), json!(4)), "{d:#}");
    assert_eq!(metrics_paths(&l), ["/apis/metrics.k8s.io/v1/namespaces/default/pods"]);

    let l = serve("podmetrics-v1alpha1", "metrics.k8s.io/v1alpha1");
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    assert!(d["notes"].as_array().unwrap().iter().any(|n| n
        == "the resource metrics API (metrics.k8s.io) is not installed, so the HPA controller gets no CPU or memory usage: install metrics-server"), "{d:#}");
    assert!(metrics_paths(&l).is_empty(), "{:?}", metrics_paths(&l));
}

#[test]
fn live_servers_that_hang_or_are_gone_fail_in_time() {
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.fault("/apis/autoscaling/v2", Fault::Delay(Duration::from_secs(30)));
    let started = Instant::now();
    let run = l.diagnose(&["php-apache", "--timeout", "1"]);
    assert_eq!(run.code, 2);
    assert!(started.elapsed() < Duration::from_secs(6), "{:?}", started.elapsed());
    assert!(run.stderr.contains("did not answer within 1s"), "{}", run.stderr);

    l.server.kill();
    std::thread::sleep(Duration::from_millis(100));
    let run = l.diagnose(&["php-apache"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!("hpa-lint: error: cannot reach the API server at {}: ", l.server.url())),
        "{}",
        run.stderr
    );
    // One sentence, then what to do: the form every command uses (`hpa-lint cluster`'s too).
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(lines[1].starts_with("  help: check that the cluster is up"), "{}", run.stderr);
}

/// A throttling API server (429 with `Retry-After`, as API Priority and Fairness answers) is
/// asked again after the wait it names, as client-go does, while the timeout allows; past
/// that, the error says it throttled, at once, not that it was slow.
#[test]
fn live_servers_that_throttle_are_retried_then_named() {
    let l = live();
    serve_the_snapshot(&l.server);
    let hpa = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache";
    let asked = |server: &TestApiServer| server.requests().iter().filter(|r| r.path == hpa).count();

    // Twice 429 with Retry-After: 1, then served: three requests, about two seconds.
    l.server.fault(hpa, Fault::Throttle { retry_after: 1, times: 2 });
    let started = Instant::now();
    let run = l.diagnose(&["php-apache", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(asked(&l.server), 3);
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}", started.elapsed());

    // A wait the timeout cannot hold: named at once, after one attempt.
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.fault(hpa, Fault::Throttle { retry_after: 20, times: usize::MAX });
    let started = Instant::now();
    let run = l.diagnose(&["php-apache", "--timeout", "10"]);
    assert_eq!(run.code, 2);
    // At once: well before the 10 s a wait would have taken (a loaded machine has seconds).
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(
        run.stderr,
        format!(
            "hpa-lint: error: the API server at {} throttled the requests (429 Too Many Requests) while reading HorizontalPodAutoscaler default/php-apache: 1 attempt within the 10s timeout, the last answered with Retry-After: 20\n  help: the API server is overloaded or limits these credentials (API Priority and Fairness): retry later, or raise --timeout to wait out its Retry-After\n",
            l.server.url()
        )
    );
    assert_eq!(asked(&l.server), 1);

    // Retry-After: 0 every time: client-go's 10 retries, then the error.
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.fault(hpa, Fault::Throttle { retry_after: 0, times: usize::MAX });
    let run = l.diagnose(&["php-apache"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(": 11 attempts within the 10s timeout, the last answered with Retry-After: 0\n"),
        "{}",
        run.stderr
    );
    assert_eq!(asked(&l.server), 11);
}

#[test]
fn snapshot_errors_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "items: [\n").unwrap();
    let bad = bad.display().to_string();
    let run = hpa_lint(&["diagnose", "--snapshot", &bad, "web"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with(&format!("hpa-lint: error: {bad}:2:1: invalid YAML")), "{}", run.stderr);
    let objects = data("objects.yaml");
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, "-n", "default", "web"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "hpa-lint: error: HorizontalPodAutoscaler default/web not found; the objects hold default/php-apache\n")
    );
    // In another namespace than -n's: which one.
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, "-n", "shop", "php-apache"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "hpa-lint: error: HorizontalPodAutoscaler shop/php-apache not found; the objects hold default/php-apache (pass -n default)\n"
        )
    );
    // A target of a kind the snapshot holds none of was not gathered: not the controller's
    // FailedGetScale, but what to add.
    let rollout = dir.path().join("rollout.yaml");
    std::fs::write(
        &rollout,
        "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop, creationTimestamp: \"2026-03-02T09:00:00Z\"}
spec:
  scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web}
  maxReplicas: 5
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
",
    )
    .unwrap();
    let rollout = rollout.display().to_string();
    let run = hpa_lint(&["diagnose", "--snapshot", &rollout, "-n", "shop", "web"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "hpa-lint: error: the HPA's scale target Rollout shop/web is not among the objects, nor any Rollout: add it to the snapshot (kubectl get rollouts.argoproj.io -n shop web -o yaml)\n"
        )
    );
}

/// A running HPA served live ([`fixtures::running_web`]): HPA201's `web` at 3 replicas, one pod
/// just started and not Ready, the controller's last rescale event and status.
#[test]
fn live_running_hpa_sets_pods_aside_and_reconstructs_its_memory() {
    let l = live();
    fixtures::running_web(&l.server);
    let run = l.hpa_lint("diagnose", &["-n", "shop", "--now", fixtures::RUNNING_WEB_NOW, "web"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("set aside: web-6d4cf56db6-tq8wd (unready within the CPU initialization period)"), "{out}");
    assert!(
        out.contains("its events record in that window (1) and the status's desiredReplicas (3) one sync period ago"),
        "{out}"
    );
    assert!(out.contains("replicas: 3"), "{out}");
}

/// The published snapshot's HPA as a newer API server stores it: a field of the 1.38
/// development branch (`spec.syncPeriodSeconds`, KEP-6003, in no release's types) and a
/// scale-up tolerance so wide (200) that the usage ratio, 128.75, is within it.
fn newer_snapshot(dir: &Path) -> String {
    let text = std::fs::read_to_string(data("objects.yaml")).unwrap();
    let spec = "  spec:\n    maxReplicas: 10\n";
    assert_eq!(text.matches(spec).count(), 1, "the HPA's spec");
    // Behavior as kube-apiserver stores it: defaulted (`SetDefaults_HorizontalPodAutoscalerBehavior`).
    let newer = "  spec:
    behavior:
      scaleDown:
        policies:
        - {periodSeconds: 15, type: Percent, value: 100}
        selectPolicy: Max
      scaleUp:
        policies:
        - {periodSeconds: 15, type: Percent, value: 100}
        - {periodSeconds: 15, type: Pods, value: 4}
        selectPolicy: Max
        stabilizationWindowSeconds: 0
        tolerance: \"200\"
    syncPeriodSeconds: 30
    maxReplicas: 10
";
    let path = dir.join("objects.yaml");
    std::fs::write(&path, text.replacen(spec, newer, 1)).unwrap();
    path.display().to_string()
}

/// A stored HPA is read as the other live paths read it: leniently (a strict decode refused
/// the field no release has: "cannot be read"), with the Go types of `--kubernetes-version`,
/// and the report says what that release ignores. 1.34's controller ignores the per-HPA
/// tolerance (`HPAConfigurableTolerance` alpha, off: `tolerancesForHpa`) and scales up; 1.35's
/// (beta, on) uses it and keeps 2 replicas.
#[test]
fn a_newer_stored_hpa_is_read_with_the_release_and_what_it_ignores_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let objects = newer_snapshot(dir.path());
    let metrics = data("pod-metrics.json");
    let diagnose = |release: &str| {
        let run = hpa_lint(
            &[
                "diagnose",
                "--kubernetes-version",
                release,
                "--snapshot",
                &objects,
                &metrics,
                "php-apache",
                "-o",
                "json",
            ],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let notes = |d: &Value| -> Vec<String> {
        d["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    let unknown = |release: &str| {
        format!(
            "HorizontalPodAutoscaler default/php-apache: field \"spec.syncPeriodSeconds\" is not in the types of Kubernetes {release}: ignored, as that release's controller ignores it"
        )
    };

    let d = diagnose("1.34");
    assert_eq!(d["kubernetesVersion"], "1.34");
    let n = notes(&d);
    assert!(n.contains(&unknown("1.34")), "{n:#?}");
    assert!(
        n.contains(&"spec.behavior.scaleUp.tolerance 200 is ignored: HPAConfigurableTolerance is off in this Kubernetes 1.34 controller, which uses --horizontal-pod-autoscaler-tolerance=0.1 both ways".to_string()),
        "{n:#?}"
    );
    assert_eq!(d["currentReplicas"], 2);
    assert_eq!(d["metrics"][0]["usageRatio"], 128.75);
    // The flag's tolerance: 258 wanted, 6 allowed by the scale-up policy of 4 pods per 15 s.
    assert_eq!(d["desiredReplicas"], 6, "{d:#}");

    let d = diagnose("1.35");
    let n = notes(&d);
    assert!(n.contains(&unknown("1.35")), "{n:#?}");
    assert!(!n.iter().any(|n| n.contains("tolerance")), "{n:#?}");
    assert_eq!(d["desiredReplicas"], 2, "{d:#}");
    assert!(d["findings"].as_array().unwrap().iter().any(|f| f["cause"] == "tolerance"), "{d:#}");
}

/// Custom and External metric answers are those the controller asks for
/// (`GetRawMetric`/`GetExternalMetric` with `labelSelector`): a snapshot's lists read without
/// the selectors (`external.metrics.k8s.io/.../queue_depth`, `custom.metrics.k8s.io/.../pods/*/http_requests`)
/// hold every series and every pod of the namespace; the diagnosis keeps the series the
/// metric's selector matches and the pods the HPA's selector matches, and says what it left
/// out.
#[test]
fn metric_answers_are_filtered_by_the_metric_and_pod_selectors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    let file = |f: &str| dir.join(f).display().to_string();
    let (objects, external, custom) =
        (file("objects.yaml"), file("external-queue_depth.json"), file("custom-http_requests.json"));
    let diagnose = |name: &str| {
        let run = hpa_lint(&["diagnose", "--snapshot", &objects, &external, &custom, name, "-o", "json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let notes = |d: &Value| -> Vec<String> {
        d["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    // queue=orders: 90 of the three series (orders 90, payments 900, billing 2000), 30 per pod
    // for 3 pods: 3 replicas (all three summed: 2990, 100 replicas, limited to 6).
    let d = diagnose("queue");
    assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(3), json!(3)), "{d:#}");
    assert_eq!(d["metrics"][0]["current"], "30");
    assert!(notes(&d).contains(&"External metric queue_depth: 2 series left out, whose metricLabels the metric's selector (queue=orders) does not match: the controller asks only for those it matches (labelSelector)".to_string()), "{:#?}", notes(&d));
    // queue in (orders,payments): 90 + 900 = 990, 330 per pod: 3 replicas.
    let d = diagnose("queues");
    assert_eq!(d["desiredReplicas"], 3, "{d:#}");
    assert_eq!(d["metrics"][0]["current"], "330");
    // The Pods metric of web's three pods at 10 (the three pods of `other`, at 100, left out).
    let d = diagnose("web");
    assert_eq!(d["desiredReplicas"], 3, "{d:#}");
    assert_eq!(d["metrics"][0]["current"], "10");
    assert!(notes(&d).iter().any(|n| n.starts_with("Pods metric http_requests: 3 sample(s) left out, of pods the HPA's selector does not match (other-0, other-1, other-2)")), "{:#?}", notes(&d));

    // A sample recorded for a metric selector (`verb=GET`) answers another query than web's,
    // whose metric has none: left out, and the note says the HPA's selector is none.
    let mut list: Value = serde_json::from_str(&std::fs::read_to_string(&custom).unwrap()).unwrap();
    let mut get = list["items"][0].clone();
    get["metric"]["selector"] = json!({"matchLabels": {"verb": "GET"}});
    get["value"] = json!("1000");
    list["items"].as_array_mut().unwrap().push(get);
    let tmp = tempfile::tempdir().unwrap();
    let with_get = tmp.path().join("custom-http_requests.json");
    std::fs::write(&with_get, list.to_string()).unwrap();
    let run = hpa_lint(
        &["diagnose", "--snapshot", &objects, &external, &with_get.display().to_string(), "web", "-o", "json"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["metrics"][0]["current"], "10", "{d:#}");
    assert!(
        notes(&d).contains(&"Pods metric http_requests: 1 sample(s) left out, recorded for another metric selector than the HPA's (none)".to_string()),
        "{:#?}",
        notes(&d)
    );
}

/// A snapshot without a metric's answer is not an empty answer: it is replayed as one (the
/// metric fails), and a note names the `kubectl get --raw` command that gathers it. An empty
/// list among the files is the answer: no note.
#[test]
fn a_metric_answer_missing_from_a_snapshot_is_noted_with_its_command() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    let file = |f: &str| dir.join(f).display().to_string();
    let notes = |files: &[&str], name: &str| -> Vec<String> {
        let paths: Vec<String> = files.iter().map(|f| file(f)).collect();
        let mut args = vec!["diagnose", "--snapshot"];
        args.extend(paths.iter().map(String::as_str));
        args.extend([name, "-o", "json"]);
        let run = hpa_lint(&args, "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert!(d["metrics"][0]["error"].is_string(), "{d:#}");
        d["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    let external = "External metric queue_depth: no answer among the inputs, replayed as an empty one (the metric fails); gather it with kubectl get --raw \"/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth?labelSelector=queue%3Dorders\" and pass the file";
    assert!(notes(&["objects.yaml"], "queue").contains(&external.to_string()));
    let pods = "Pods metric http_requests: no answer among the inputs, replayed as an empty one (the metric fails); gather it with kubectl get --raw \"/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/http_requests?labelSelector=app%3Dweb\" and pass the file";
    assert!(notes(&["objects.yaml"], "web").contains(&pods.to_string()));
    let answered = notes(&["objects.yaml", "external-empty.json"], "queue");
    assert!(!answered.iter().any(|n| n.contains("no answer among the inputs")), "{answered:#?}");
}

/// A kubeconfig whose user's credentials cannot be had: the error names the exec plugin (or
/// the token file) and says to log in again, in one sentence without Rust's debug text.
#[test]
fn failing_credentials_name_the_plugin_or_token_file() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = |name: &str, user: &str| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: \"https://127.0.0.1:1\"}}\ncontexts:\n- name: ctx\n  context: {{cluster: c, user: u}}\ncurrent-context: ctx\nusers:\n- name: u\n  user:\n{user}"
            ),
        )
        .unwrap();
        path.display().to_string()
    };
    let expired = kubeconfig(
        "expired",
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: sh\n      args: [\"-c\", \"echo 'error: token expired, run aws sso login' >&2; exit 1\"]\n      interactiveMode: Never\n",
    );
    for command in ["diagnose", "cluster"] {
        let mut args = vec![command, "--kubeconfig", expired.as_str()];
        if command == "diagnose" {
            args.push("web");
        }
        let run = hpa_lint(&args, "");
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("cannot get credentials for the API server at https://127.0.0.1:1: the kubeconfig user's exec credential plugin `sh` exited with status 1 (error: token expired, run aws sso login): log in again with it"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.starts_with("hpa-lint: error: "), "{}", run.stderr);
        for debug in ["Output {", "ExitStatus(", "cannot reach", "VPN"] {
            assert!(!run.stderr.contains(debug), "{debug}: {}", run.stderr);
        }
    }
    let missing = kubeconfig(
        "missing",
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: hpa-lint-no-such-plugin\n      interactiveMode: Never\n",
    );
    let run = hpa_lint(&["diagnose", "--kubeconfig", &missing, "web"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("the kubeconfig user's exec credential plugin `hpa-lint-no-such-plugin` is not installed (not found on PATH)"), "{}", run.stderr);
    let token = kubeconfig("token", "    tokenFile: /nonexistent/token\n");
    let run = hpa_lint(&["diagnose", "--kubeconfig", &token, "web"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot read the kubeconfig user's token file /nonexistent/token ("), "{}", run.stderr);
    assert!(run.stderr.contains("log in again"), "{}", run.stderr);
    // A plugin that works is not an error of its own: the unreachable server is.
    let works = kubeconfig(
        "works",
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: sh\n      args: [\"-c\", \"echo '{\\\"apiVersion\\\": \\\"client.authentication.k8s.io/v1beta1\\\", \\\"kind\\\": \\\"ExecCredential\\\", \\\"status\\\": {\\\"token\\\": \\\"t\\\"}}'\"]\n      interactiveMode: Never\n",
    );
    let run = hpa_lint(&["diagnose", "--kubeconfig", &works, "web"], "");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("hpa-lint: error: cannot reach the API server at https://127.0.0.1:1: "),
        "{}",
        run.stderr
    );
}

/// The scale target is read as the controller reads it: its group and kind mapped to a
/// resource by discovery and `GET .../scale` (`scaleForResourceMappings`), so any resource with
/// a scale subresource works (a CRD no product list names); a kind discovery does not list is
/// the controller's `FailedGetScale`, with client-go's `no matches for kind` text.
#[test]
fn live_reads_the_scale_of_any_resource_through_discovery() {
    let l = widgets();
    l.server.put(widget_hpa("widget", "Widget", None));
    l.server.put(widget_hpa("gadget", "Gadget", None));
    // 2 pods at 100 % of their request, target 50 %: 4.
    let run = l.diagnose(&["widget", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["target"]["kind"], "Widget");
    assert_eq!(d["target"]["selector"], "app=w");
    assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(2), json!(4)), "{d:#}");
    assert!(l.server.requests().iter().any(|r| r.path == "/apis/example.com/v1/namespaces/default/widgets/w/scale"));

    let run = l.diagnose(&["gadget", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["outcome"], "FailedGetScale", "{d:#}");
    // `reconcileAutoscaler`'s error for a failed RESTMappings, not the scale query's.
    assert_eq!(
        d["error"],
        r#"unable to determine resource for scale target reference: no matches for kind "Gadget" in group "example.com""#,
        "{d:#}"
    );
}

/// A snapshot's target written in a group that does not serve its kind (a Deployment of
/// `extensions/v1beta1`; of `apps`, which Go reads as version `apps` of the core group) maps
/// to no resource, as it does live: `reconcileAutoscaler` stops at `RESTMappings` with
/// FailedGetScale `no matches for kind ...`, whatever Deployment the files hold (here `web` of
/// `apps/v1`, which was read as a missing `deployment "web"`); an HPA of such a target reads
/// no selector, so it makes no other HPA ambiguous.
#[test]
fn a_snapshot_target_of_a_group_that_does_not_serve_its_kind_is_unmapped_as_live() {
    let (d, human) = replayed("unmapped-target");
    let error = r#"unable to determine resource for scale target reference: no matches for kind "Deployment" in group "extensions""#;
    assert_eq!((d["outcome"].clone(), d["error"].clone()), (json!("FailedGetScale"), json!(error)), "{d:#}");
    assert_eq!(
        d["conditions"][0]["replayed"]["message"],
        r#"the HPA controller was unable to get the target's current scale: no matches for kind "Deployment" in group "extensions""#
    );
    assert!(human.contains(error), "{human}");
    let (d, _) = replayed("unmapped-core");
    assert_eq!(
        d["error"],
        r#"unable to determine resource for scale target reference: no matches for kind "Deployment" in group """#
    );
    let (d, _) = replayed("unmapped-other");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");

    // The same objects served live: the same sync.
    let l = live();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/replayed-sync/unmapped-target");
    for object in fixtures::load(&dir.join("objects.json")) {
        l.server.put(object);
    }
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let live = run.json();
    let (files, _) = replayed("unmapped-target");
    for key in ["outcome", "error", "conditions"] {
        assert_eq!(live[key], files[key], "{key}");
    }
    // Live, HPA web2's target (a Deployment `web` of `extensions/v1beta1`) is not the Scale of
    // the `apps/v1` Deployment `web` that HPA web reads: no AmbiguousSelector either.
    let l = live_with_pod_metrics("unmapped-other");
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
}

/// A replayed-sync scenario's objects served live, with its PodMetrics (labelled as their pods,
/// as metrics-server lists them by the pods' selector).
fn live_with_pod_metrics(scenario: &str) -> Live {
    let l = live();
    l.server.install("podmetrics");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/replayed-sync").join(scenario);
    let objects = fixtures::load(&dir.join("objects.json"));
    let metrics: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("pod-metrics.json")).unwrap()).unwrap();
    for mut item in metrics["items"].as_array().unwrap().clone() {
        let pod = objects.iter().find(|o| o["kind"] == "Pod" && o["metadata"]["name"] == item["metadata"]["name"]);
        item["metadata"]["labels"] = pod.map_or(json!({}), |p| p["metadata"]["labels"].clone());
        item["kind"] = json!("PodMetrics");
        item["apiVersion"] = json!("metrics.k8s.io/v1beta1");
        l.server.put(item);
    }
    for object in objects {
        l.server.put(object);
    }
    l
}

/// A metrics API refusing the user (403) is not the controller's answer (it reads with its own
/// RBAC): the diagnosis says so and stops, and does not replay a `FailedGetResourceMetric`.
#[test]
fn a_metrics_api_refusing_the_user_is_not_replayed_as_the_controllers() {
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.refuse(Some("pods.metrics.k8s.io"), Some("default"));
    let run = l.diagnose(&["php-apache"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.starts_with(
            "hpa-lint: error: your credentials cannot read metrics.k8s.io (pods.metrics.k8s.io is forbidden: "
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("the HPA controller reads it with its own RBAC, so what it saw cannot be replayed"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("FailedGetResourceMetric") && run.stdout.is_empty(), "{}{}", run.stdout, run.stderr);
    // Refused elsewhere only: the diagnosis runs.
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.refuse(Some("pods.metrics.k8s.io"), Some("kube-system"));
    assert_eq!(l.diagnose(&["php-apache"]).code, 0);
}

/// The scale subresource refusing the user (403) is not the controller's `FailedGetScale`
/// (it reads scales with its own RBAC): the diagnosis says so and stops.
#[test]
fn a_scale_refusing_the_user_is_not_replayed_as_the_controllers() {
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.refuse(Some("deployments.apps"), Some("default"));
    let run = l.diagnose(&["php-apache"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .starts_with("hpa-lint: error: your credentials cannot read the scale of Deployment default/php-apache ("),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("ask for get on deployments.apps/scale in namespace default"), "{}", run.stderr);
    assert!(!run.stderr.contains("FailedGetScale") && run.stdout.is_empty(), "{}{}", run.stdout, run.stderr);
}

/// A snapshot with no sample, event or condition time is replayed at the newest
/// `creationTimestamp` or `managedFields` time it holds, said in a note; `--now` wins; with no
/// time at all it is an error that says to pass `--now`.
#[test]
fn a_snapshot_without_instants_falls_back_to_its_newest_write() {
    let dir = tempfile::tempdir().unwrap();
    let objects = |hpa_meta: &str, deploy_meta: &str| {
        let path = dir.path().join("objects.yaml");
        std::fs::write(
            &path,
            format!(
                "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: w, namespace: shop{hpa_meta}}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: w}}
  maxReplicas: 5
  metrics: [{{type: Resource, resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 50}}}}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: w, namespace: shop{deploy_meta}}}
spec: {{replicas: 0, selector: {{matchLabels: {{app: w}}}}}}
"
            ),
        )
        .unwrap();
        path.display().to_string()
    };
    let file = objects(
        ", creationTimestamp: \"2026-03-02T09:00:00Z\"",
        ", creationTimestamp: \"2026-03-01T09:00:00Z\", managedFields: [{manager: kubectl, operation: Apply, time: \"2026-03-02T09:30:00Z\"}]",
    );
    let run = hpa_lint(&["diagnose", "--snapshot", &file, "w", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["now"], "2026-03-02T09:30:00Z");
    assert_eq!(
        d["notes"][0],
        "the snapshot records no metric sample, event or condition time: the sync is replayed at 2026-03-02T09:30:00Z, the newest creationTimestamp or managedFields time it holds (the snapshot is no older); pass --now to choose another"
    );
    let run = hpa_lint(&["diagnose", "--snapshot", &file, "w", "-o", "json", "--now", "2026-03-03T00:00:00Z"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["now"], "2026-03-03T00:00:00Z");
    assert!(run.json()["notes"].as_array().unwrap().is_empty());

    let file = objects("", "");
    let run = hpa_lint(&["diagnose", "--snapshot", &file, "w"], "");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the snapshot records no instant") && run.stderr.contains("pass --now"),
        "{}",
        run.stderr
    );
}

/// Live, each Custom and External metric is asked for with its selectors, as the controller
/// asks (`labelSelector`: the HPA's pods for a Pods metric, the metric's selector for an
/// External one); the adapters answer what was asked (the series of `queue=orders`, the
/// pods of `app=web`).
#[test]
fn live_metric_queries_carry_the_selectors() {
    let (l, dir) = live_with_metric_adapters();
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap() };
    let mut external = read("external-queue_depth.json");
    external["items"].as_array_mut().unwrap().retain(|item| item["metricLabels"]["queue"] == "orders");
    l.server.serve_raw("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth", external);
    let mut custom = read("custom-http_requests.json");
    custom["items"]
        .as_array_mut()
        .unwrap()
        .retain(|item| item["describedObject"]["name"].as_str().unwrap().starts_with("web-"));
    for item in custom["items"].as_array_mut().unwrap() {
        item["describedObject"]["namespace"] = json!("default");
    }
    l.server.serve_raw("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests", custom);
    for (hpa, current) in [("queue", "30"), ("web", "10")] {
        let run = l.diagnose(&[hpa, "-o", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert_eq!(d["desiredReplicas"], 3, "{d:#}");
        assert_eq!(d["metrics"][0]["current"], current, "{d:#}");
    }
    let queries: Vec<(String, String)> = l
        .server
        .requests()
        .into_iter()
        .filter(|r| {
            r.path.contains("metrics.k8s.io/v1beta") && !r.path.ends_with("v1beta1") && !r.path.ends_with("v1beta2")
        })
        .map(|r| (r.path, r.query))
        .collect();
    assert!(
        queries.iter().any(|(p, q)| p.ends_with("/queue_depth") && q == "labelSelector=queue%3Dorders"),
        "{queries:#?}"
    );
    assert!(
        queries.iter().any(|(p, q)| p.ends_with("/http_requests") && q == "labelSelector=app%3Dweb"),
        "{queries:#?}"
    );
}

/// Live, an adapter that ignores `labelSelector` is replayed as the controller sees it: the
/// clients keep every item answered (`GetExternalMetric`, `GetRawMetric` in
/// `pkg/controller/podautoscaler/metrics/client.go`). `queues` sums all three series of
/// `queue_depth` (2990 / 330: 10 replicas, not the 3 of `orders` and `payments`); `web`
/// averages the seven samples, `queue-0`'s (a pod read live, of another HPA) included:
/// 430000m / 7 = 61428m, ceil(6.1428 * 3 ready pods) = 19 (17 without it). No note says
/// anything was left out; the samples of pods not read (`other-*`) are said to count.
#[test]
fn a_live_answer_that_ignores_the_selector_is_replayed_whole() {
    let (l, dir) = live_with_metric_adapters();
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap() };
    l.server.serve_raw(
        "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth",
        read("external-queue_depth.json"),
    );
    let mut custom = read("custom-http_requests.json");
    let mut queue = custom["items"][3].clone();
    queue["describedObject"]["name"] = json!("queue-0");
    custom["items"].as_array_mut().unwrap().push(queue);
    for item in custom["items"].as_array_mut().unwrap() {
        item["describedObject"]["namespace"] = json!("default");
    }
    l.server.serve_raw("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests", custom);
    let mut got = Vec::new();
    for hpa in ["queues", "web"] {
        let run = l.diagnose(&[hpa, "-o", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        got.push((
            hpa,
            d["desiredReplicas"].clone(),
            d["metrics"][0]["current"].clone(),
            d["metrics"][0]["proposal"].clone(),
            d["notes"].clone(),
        ));
    }
    let pods_note = "Pods metric http_requests: 3 sample(s) of pods not among the pods read (other-0, other-1, other-2) counted: the controller keeps the samples the metrics API answers for pods missing from its pod list (a deleted pod's, one created since)";
    // Both proposals are limited by the default scale-up policy (100% of 3 pods per 15 s): 6.
    assert_eq!(
        got,
        vec![
            ("queues", json!(6), json!("996667m"), json!(10), json!([])),
            ("web", json!(6), json!("61428m"), json!(19), json!([pods_note])),
        ]
    );
}

/// An adapter that fails one metric's request (a `Status` 404 for a Pods metric, a plain-text
/// 503 for an External one) while its API answers: the replay records that metric's error as
/// the controller does (`GetRawMetric`, `GetExternalMetric`: `unable to fetch metrics from ...
/// metrics API: <client-go's error>`), not an empty answer.
#[test]
fn a_metric_the_adapter_fails_is_replayed_with_the_adapters_error() {
    let (l, _) = live_with_metric_adapters();
    let not_found = "the server could not find the metric http_requests for pods";
    l.server.fault(
        "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests",
        Fault::Status(404, not_found.into()),
    );
    l.server.fault(
        "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth",
        Fault::Text(503, "service unavailable".into()),
    );
    let active = |hpa: &str| {
        let run = l.diagnose(&[hpa, "-o", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
        let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap().clone();
        (
            active["replayed"]["status"].clone(),
            active["replayed"]["reason"].clone(),
            active["replayed"]["message"].clone(),
        )
    };
    assert_eq!(
        active("web"),
        (
            json!("False"),
            json!("FailedGetPodsMetric"),
            json!(format!(
                "the HPA was unable to compute the replica count: unable to get metric http_requests: unable to fetch metrics from custom metrics API: {not_found}"
            ))
        )
    );
    assert_eq!(
        active("queue"),
        (
            json!("False"),
            json!("FailedGetExternalMetric"),
            json!(
                "the HPA was unable to compute the replica count: unable to get external metric default/queue_depth/&LabelSelector{MatchLabels:map[string]string{queue: orders,},MatchExpressions:[]LabelSelectorRequirement{},}: unable to fetch metrics from external metrics API: the server is currently unable to handle the request (get queue_depth.external.metrics.k8s.io)"
            )
        )
    );
}

/// A custom metrics adapter that serves only `custom.metrics.k8s.io/v1beta1` is read at that
/// version, as the controller's client chooses it by discovery
/// (`custom_metrics.NewAvailableAPIsGetter`), its items' `metricName` and `window` read; one
/// that serves no version the client speaks fails the metric with the client's error.
#[test]
fn live_custom_metrics_are_read_at_the_version_discovery_offers() {
    let l = live();
    l.server.install("custommetrics-v1beta1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    for mut object in fixtures::load(&dir.join("objects.yaml")) {
        object["metadata"]["namespace"] = json!("default");
        l.server.put(object);
    }
    let v1beta2: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("custom-http_requests.json")).unwrap()).unwrap();
    // The answer for web's pods as v1beta1 writes it.
    let items: Vec<Value> = v1beta2["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["describedObject"]["name"].as_str().unwrap().starts_with("web-"))
        .map(|item| {
            let mut described = item["describedObject"].clone();
            described["namespace"] = json!("default");
            json!({
                "describedObject": described,
                "metricName": item["metric"]["name"],
                "timestamp": item["timestamp"],
                "window": item["windowSeconds"],
                "value": item["value"],
                "selector": null,
            })
        })
        .collect();
    let v1beta1 = json!({"kind": "MetricValueList", "apiVersion": "custom.metrics.k8s.io/v1beta1", "metadata": {}, "items": items});
    l.server.serve_raw("/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests", v1beta1);
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["desiredReplicas"].clone(), d["metrics"][0]["current"].clone()), (json!(3), json!("10")), "{d:#}");
    let asked: Vec<String> =
        l.server.requests().into_iter().filter(|r| r.path.contains("/http_requests")).map(|r| r.path).collect();
    assert_eq!(asked, ["/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/http_requests"]);
}

/// A PodMetrics sample of a pod the pod list lacks (`p4`, `tests/data/diagnose/orphan-podmetrics`)
/// counts as the controller counts it (`GetResourceReplicas`: `ceil(newUsageRatio *
/// len(metrics))`), from files and live alike, and is noted; live, whatever its labels (the
/// controller does not filter the metrics server's answer by the selector again).
#[test]
fn a_sample_of_a_pod_missing_from_the_pod_list_counts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/orphan-podmetrics");
    let note = "PodMetrics: 1 sample(s) of pods not among the pods read (p4) counted: the controller keeps the samples the metrics API answers for pods missing from its pod list (a deleted pod's, one created since)";
    let check = |d: &Value| {
        assert_eq!(d["desiredReplicas"], 6, "{d:#}");
        assert_eq!(d["metrics"][0]["current"], "200%", "{d:#}");
        assert!(texts(&d["notes"]).contains(&note.to_string()), "{d:#}");
        // ceil(2.66 × 4): p4 counts (ceil(2.66 × 3) = 8 without it).
        assert_eq!(
            (d["metrics"][0]["correctedRatio"].clone(), d["metrics"][0]["proposal"].clone()),
            (json!(2.66), json!(11)),
            "{d:#}"
        );
    };
    let (objects, metrics) =
        (dir.join("objects.json").display().to_string(), dir.join("pod-metrics.json").display().to_string());
    let run =
        hpa_lint(&["diagnose", "--snapshot", &objects, &metrics, "-n", "shop", "web", "--now", NOW, "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    check(&run.json());

    let l = live();
    l.server.install("podmetrics");
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap() };
    let metrics = read("pod-metrics.json");
    for (mut item, kind) in read("objects.json")["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o.clone(), None))
        .chain(metrics["items"].as_array().unwrap().iter().map(|m| (m.clone(), Some("PodMetrics"))))
    {
        item["metadata"]["namespace"] = json!("default");
        if let Some(kind) = kind {
            item["kind"] = json!(kind);
            item["apiVersion"] = json!("metrics.k8s.io/v1beta1");
        }
        l.server.put(item);
    }
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    check(&run.json());

    // A metrics server that ignores `labelSelector` answers `p4` labelled `app=other`: the
    // controller keeps it all the same (`GetResourceMetric` does not filter its answer again).
    let mut whole = metrics.clone();
    for item in whole["items"].as_array_mut().unwrap() {
        item["metadata"]["namespace"] = json!("default");
        if item["metadata"]["name"] == "p4" {
            item["metadata"]["labels"] = json!({"app": "other"});
        }
    }
    l.server.serve_raw("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", whole);
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    check(&run.json());
}

/// `hpa-lint diagnose` of HPA `web` in one of the replayed-sync snapshots
/// (`tests/data/diagnose/replayed-sync/<scenario>`, written by its `make.py`), in JSON and for
/// people.
fn replayed(scenario: &str) -> (Value, String) {
    replayed_with(scenario, &[])
}

/// [`replayed`] with more arguments (`--kubernetes-version 1.34`).
fn replayed_with(scenario: &str, args: &[&str]) -> (Value, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/replayed-sync").join(scenario);
    let (objects, metrics) =
        (dir.join("objects.json").display().to_string(), dir.join("pod-metrics.json").display().to_string());
    let run = |output: &str| {
        let mut all = vec!["diagnose", "--snapshot", &objects, &metrics, "web", "-o", output];
        all.extend_from_slice(args);
        let run = hpa_lint(&all, "");
        assert_eq!(run.code, 0, "{scenario}: {}", run.stderr);
        run
    };
    (run("json").json(), run("human").stdout)
}

fn causes(d: &Value) -> Vec<(String, String)> {
    d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["question"].as_str().unwrap().to_string(), f["cause"].as_str().unwrap().to_string()))
        .collect()
}

fn texts(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect()
}

/// Every write of the scale is denied (AbleToScale False `FailedUpdateScale`, 40
/// `FailedRescale` events): the replayed write is assumed to fail the same way, the answer
/// quotes the controller's message, there is no forecast of writes that succeed, and the
/// memory holds the recommendation the failed syncs stored (the write comes after
/// normalization). The good side: an old denial, the last sync wrote nothing, this one
/// rescales 2 → 4 and the forecast follows.
#[test]
fn a_failing_scale_write_is_the_answer_and_no_forecast_assumes_it_succeeds() {
    let (d, human) = replayed("failed-write");
    assert_eq!(d["outcome"], "FailedUpdateScale", "{d:#}");
    assert_eq!((d["currentReplicas"].clone(), d["rescaled"].clone()), (json!(2), json!(false)));
    assert_eq!(d["normalization"]["limited"], 4);
    assert_eq!(d["forecast"], Value::Null);
    assert_eq!(d["conditionsDiffer"], false, "{d:#}");
    assert_eq!(causes(&d), vec![("not-scaling".to_string(), "scale-update-failed".to_string())]);
    assert_eq!(
        d["findings"][0]["message"],
        "the HPA controller was unable to update the target scale: admission webhook \"policy.example.com\" denied the request: replicas above quota: the controller wants 4 replicas but every write of the scale fails, so the count stays at 2 until the write is allowed (FailedRescale: 40 events since 10m ago, the last 15s ago)"
    );
    assert_eq!(d["memory"]["failedRescales"][0]["count"], 40);
    assert_eq!(
        d["memory"]["failedRescales"][0]["error"],
        "admission webhook \"policy.example.com\" denied the request: replicas above quota"
    );
    // The failed write's size (15 s ago; its first, 10 min ago, is outside the window) and the
    // recommendation rebuilt from the status (90 % of 50 % on 2: 4).
    let recs: Vec<(i64, &str)> = d["memory"]["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["replicas"].as_i64().unwrap(), r["at"].as_str().unwrap()))
        .collect();
    assert_eq!(recs, vec![(4, "2026-03-02T09:59:45Z"), (4, "2026-03-02T09:59:45Z")]);
    let assumptions = texts(&d["memory"]["assumptions"]);
    assert!(
        assumptions[0].contains("the last sync stored its recommendation, then failed to write the scale"),
        "{assumptions:#?}"
    );
    assert!(!assumptions[0].contains("did not reach normalization"), "{assumptions:#?}");
    assert!(
        assumptions.iter().any(|a| a.ends_with("this sync's write (to 4) is assumed to fail the same way: admission webhook \"policy.example.com\" denied the request: replicas above quota")),
        "{assumptions:#?}"
    );
    assert!(human.contains("Why is it not scaling?\n  - the HPA controller was unable to update"), "{human}");
    assert!(!human.contains("Next syncs") && !human.contains('≠'), "{human}");

    let (d, _) = replayed("write-recovered");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 0, "replicas": 4}));
    assert!(!causes(&d).iter().any(|(_, c)| c == "scale-update-failed"), "{d:#}");
    // The denial 30 min ago is outside the memory window.
    assert_eq!(d["memory"]["failedRescales"][0]["at"], "2026-03-02T09:30:00Z");
    assert_eq!(d["memory"]["recommendations"].as_array().unwrap().len(), 1, "{d:#}");
}

/// The legacy path one sync after the published run's first (2 pods at 2575 % of 20 %: 258,
/// limited to 4 by the scale-up limit, ScalingLimited True): the status's desiredReplicas is
/// the limited count, so the recommendation the controller stored (258) is rebuilt from
/// status.currentMetrics and currentReplicas, said so; the load has dropped since, yet the
/// window's maximum holds: 4 → 8 → 10, held 5 minutes. The good side: ScalingLimited False, the
/// status's count is the recommendation and nothing is rebuilt.
#[test]
fn a_limited_legacy_sync_remembers_the_recommendation_rebuilt_from_the_status() {
    let (d, human) = replayed("limited-legacy");
    assert_eq!(d["normalization"]["path"], "legacy");
    assert_eq!(d["normalization"]["prenormalized"], 4);
    assert_eq!(d["normalization"]["stabilized"], 258);
    assert_eq!(d["normalization"]["heldBy"], json!({"replicas": 258, "at": "2026-03-02T09:59:45Z"}));
    assert_eq!(
        (d["normalization"]["limited"].clone(), d["normalization"]["limitReason"].clone()),
        (json!(8), json!("ScaleUpLimit"))
    );
    assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(4), json!(8)));
    let rescales: Vec<(Value, Value)> = d["forecast"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["rescaled"] == true)
        .map(|s| (s["afterSeconds"].clone(), s["desired"].clone()))
        .collect();
    // 10 from +15 s until the 258 recorded 15 s before this sync leaves the 5-minute window.
    assert_eq!(rescales[0], (json!(15), json!(10)));
    assert_eq!(rescales[1], (json!(300), json!(4)));
    let assumptions = texts(&d["memory"]["assumptions"]);
    assert!(
        assumptions[0].contains("258 rebuilt from the status (the status's desiredReplicas (4) is not the recommendation: ScalingLimited is True (ScaleUpLimit)")
            && assumptions[0].contains("Resource 2575% of 20% on 2 → 258, assuming all 2 pods were Ready with metrics then"),
        "{assumptions:#?}"
    );
    assert_eq!(d["conditionsDiffer"], false, "{d:#}");
    assert!(human.contains("  +15s: 8 → 10 (TooManyReplicas)\n  +5m: 10 → 4"), "{human}");

    let (d, _) = replayed("within-legacy");
    let recs: Vec<i64> =
        d["memory"]["recommendations"].as_array().unwrap().iter().map(|r| r["replicas"].as_i64().unwrap()).collect();
    assert_eq!(recs, vec![4, 4]);
    assert!(!texts(&d["memory"]["assumptions"])[0].contains("rebuilt"));
    assert_eq!((d["desiredReplicas"].clone(), d["outcome"].clone()), (json!(4), json!("Unchanged")));
}

/// Two HPAs select the same pods: every sync stops at AmbiguousSelector whatever the load, so
/// there is no forecast (it would replay syncs that scale). The good side: a first sync whose
/// metric fails because the pods are not Ready yet has a forecast (they turn Ready), and the
/// JSON and the report start it from the same count (the current one, not the status's).
#[test]
fn a_sync_that_stops_whatever_the_load_has_no_forecast() {
    let (d, human) = replayed("ambiguous");
    assert_eq!(d["outcome"], "FailedComputeMetrics");
    assert_eq!(d["forecast"], Value::Null);
    assert_eq!(causes(&d), vec![("not-scaling".to_string(), "ambiguous-selector".to_string())]);
    assert!(
        d["findings"][0]["message"].as_str().unwrap().ends_with("the count stays at 2 until only one HPA selects them"),
        "{d:#}"
    );
    assert!(!human.contains("Next syncs") && !human.contains("Why is it slow?"), "{human}");

    let (d, human) = replayed("unready-first-sync");
    assert_eq!(d["outcome"], "FailedComputeMetrics");
    assert_eq!(d["desiredReplicas"], 0);
    let first = &d["forecast"]["steps"][0];
    assert_eq!(first["replicas"], 2);
    let rescale = d["forecast"]["steps"].as_array().unwrap().iter().find(|s| s["rescaled"] == true).unwrap();
    assert_eq!((rescale["afterSeconds"].clone(), rescale["desired"].clone()), (json!(30), json!(4)));
    assert!(human.contains("  +30s: 2 → 4 (DesiredWithinRange)\n"), "{human}");
}

/// Rescales the event recorder aggregated: identical messages counted (`count` 2: the first
/// time is a rescale to the same size too) and messages the correlator combined
/// (`(combined from similar events): `, `count` 3: only the last size is known), both said.
/// The good side: the plain event reads as before.
#[test]
fn aggregated_rescale_events_are_read_with_their_first_time() {
    let (d, _) = replayed("aggregated-events");
    let m = &d["memory"];
    let rescales: Vec<(Value, Value, Value, Value)> = m["rescales"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["size"].clone(), r["count"].clone(), r["firstAt"].clone(), r["combined"].clone()))
        .collect();
    assert_eq!(
        rescales,
        vec![
            (json!(2), json!(1), Value::Null, json!(false)),
            (json!(4), json!(2), json!("2026-03-02T09:56:00Z"), json!(false)),
            (json!(8), json!(3), json!("2026-03-02T09:56:30Z"), json!(true)),
        ]
    );
    let recs: Vec<(i64, &str)> = m["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["replicas"].as_i64().unwrap(), r["at"].as_str().unwrap()))
        .collect();
    assert_eq!(
        recs,
        vec![
            (2, "2026-03-02T09:55:10Z"),
            (4, "2026-03-02T09:56:00Z"),
            (4, "2026-03-02T09:57:00Z"),
            (8, "2026-03-02T09:58:00Z"),
            (8, "2026-03-02T09:59:45Z")
        ]
    );
    let assumptions = texts(&m["assumptions"]);
    assert!(assumptions.contains(&"the SuccessfulRescale event of 3m ago counts 2 identical ones since 4m ago: the first and the last (3m ago) are taken, both to 4; what the count was between them is not recorded".to_string()), "{assumptions:#?}");
    assert!(assumptions.contains(&"the SuccessfulRescale event of 2m ago counts 3 events since 3m30s ago that the event recorder combined (\"(combined from similar events)\": their messages differ): only the last one's size (8) is recorded; the others are left out".to_string()), "{assumptions:#?}");
    assert_eq!(assumptions.iter().filter(|a| a.starts_with("the SuccessfulRescale event of")).count(), 2);
}

/// The forecast runs the pods as they are, each with its own requests and phase, and new pods
/// from the target's template: mixed requests (50m/200m/200m at 100m each, template 100m)
/// rescale 3 → 4 now and stay at 4 (300m of 550m, 55 %, within tolerance), where copies of
/// the first pod (50m) went on to 10. A pod without a request fails every sync, a Failed one
/// too (the controller lists it): no forecast, the answer says so.
#[test]
fn the_forecast_keeps_each_pods_requests_and_phase() {
    let (d, human) = replayed("mixed-requests");
    assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(3), json!(4)));
    assert_eq!(d["metrics"][0]["current"], "66%");
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 0, "replicas": 4}));
    let steps = d["forecast"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{steps:#?}");
    assert_eq!(
        (steps[0]["replicas"].clone(), steps[0]["rescaled"].clone(), steps[0]["reason"].clone()),
        (json!(4), json!(false), json!("within tolerance"))
    );
    assert!(human.contains("  steady at 4 from +0s\n"), "{human}");
    assert!(!human.contains("copies of pod"), "{human}");

    for (scenario, current, tail) in [
        ("missing-request", 3, "; set resources.requests on every container of the pods"),
        (
            "failed-no-request",
            2,
            "; Pod p2 is Failed, yet the controller reads the requests of every pod the selector lists: delete it, and set resources.requests on every container of the pods",
        ),
    ] {
        let (d, human) = replayed(scenario);
        assert_eq!(d["outcome"], "FailedComputeMetrics", "{scenario}");
        assert_eq!(d["forecast"], Value::Null, "{scenario}");
        assert!(!human.contains("Next syncs"), "{human}");
        assert_eq!(causes(&d)[0], ("not-scaling".to_string(), "missing-requests".to_string()), "{scenario}");
        assert_eq!(
            d["findings"][0]["message"],
            format!(
                "metric 1 fails: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container c of Pod p2{tail}; every sync fails there whatever the load, so the count stays at {current} until the pods have their requests"
            ),
            "{scenario}"
        );
    }
}

/// A rescale whose earlier size no HPA event records still counts in the scaling policies'
/// periods: its direction from its reason, at least one replica, or its earlier size from the
/// Deployment's `ScalingReplicaSet` event.
#[test]
fn a_rescale_of_unknown_earlier_size_counts_in_the_policy_periods() {
    let limited = |d: &Value| {
        (
            d["currentReplicas"].clone(),
            d["rescaled"].clone(),
            d["normalization"]["limited"].clone(),
            d["normalization"]["limitReason"].clone(),
        )
    };
    let assumption = "the rescale to 2 28s ago has no earlier size on record: its reason (cpu resource utilization (percentage of request) above target) says it scaled up, so it is counted as a change of 1 replica (from 1), the least it can be; the scaling policies' limit replayed is then the highest the controller can have";
    for scenario in ["policy-up", "policy-up-evv1"] {
        let (d, _) = replayed(scenario);
        assert_eq!(limited(&d), (json!(2), json!(false), json!(2), json!("ScaleUpLimit")), "{scenario}");
        assert!(texts(&d["memory"]["assumptions"]).iter().any(|a| a == assumption), "{scenario}: {d:#}");
    }
    let (d, _) = replayed("policy-up-rsevent");
    assert_eq!(limited(&d), (json!(3), json!(false), json!(3), json!("ScaleUpLimit")));
    assert!(texts(&d["memory"]["assumptions"]).iter().any(|a| a
        == "the rescale to 3 28s ago has no earlier size among the HPA's events: 1 is read from the target's ScalingReplicaSet event (\"Scaled up replica set web-5d4 from 1 to 3\")"));
    let (d, _) = replayed("policy-up-noevent");
    assert_eq!(limited(&d), (json!(3), json!(true), json!(4), json!("ScaleUpLimit")));
}

/// The JSON's `normalization.policy` names the policy of the direction the count moves
/// (`convertDesiredReplicasWithBehaviorRate`: the stabilized count against the current one),
/// whether it binds (a scale-up limited below the stabilized count, a scale-down above it) or
/// not.
#[test]
fn the_policy_is_named_in_the_direction_of_the_move() {
    let policy = |scenario: &str| {
        let (d, _) = replayed(scenario);
        (d["normalization"]["limitReason"].clone(), d["normalization"]["policy"].clone())
    };
    let up = |start: i64| json!({"direction": "scaleUp", "index": 0, "periodStartReplicas": start});
    assert_eq!(policy("policy-up"), (json!("ScaleUpLimit"), up(1)));
    assert_eq!(policy("policy-up-noevent"), (json!("ScaleUpLimit"), up(2)));
    assert_eq!(
        policy("policy-down"),
        (json!("ScaleDownLimit"), json!({"direction": "scaleDown", "index": 0, "periodStartReplicas": 4}))
    );
}

/// An in-place resize that does not hold the count is a note, not an answer to "why is it not
/// scaling" of an HPA that scales.
#[test]
fn in_place_resizes_of_a_scaling_hpa_are_notes() {
    let (d, human) = replayed("inplace");
    assert_eq!((d["rescaled"].clone(), d["desiredReplicas"].clone()), (json!(true), json!(4)));
    assert!(!causes(&d).iter().any(|(q, _)| q == "not-scaling"), "{d:#}");
    assert!(!human.contains("Why is it not scaling?"), "{human}");
    let note = |p: &str| {
        format!(
            "pod {p} container c: cpu request 100m in the spec, 200m applied by an in-place resize; the controller computes utilization from the spec's request"
        )
    };
    let notes = texts(&d["notes"]);
    assert_eq!(notes[..2], [note("p0"), note("p1")], "{notes:#?}");
}

/// The replayed sync is the one after the sync that wrote the live status: its AbleToScale
/// `SucceededRescale` next to this sync's stabilization reason, and a live status without
/// ScaledToZero next to a rescaling replay, are explained, not flagged. The bad side: a live
/// failed metric the replay does not see stays unexplained.
#[test]
fn the_next_syncs_expected_conditions_are_explained() {
    let (d, human) = replayed("after-rescale");
    assert_eq!(d["conditionsDiffer"], false, "{d:#}");
    let able = &d["conditions"][0];
    assert_eq!((able["type"].clone(), able["agrees"].clone()), (json!("AbleToScale"), json!(false)));
    assert_eq!(
        able["explained"],
        "the live status was written by the last sync, which rescaled (30s ago); this sync does not rescale, so it writes its stabilization reason"
    );
    assert!(human.contains("  AbleToScale     True ReadyForNewScale        | True SucceededRescale   ≈\n"), "{human}");
    assert!(!human.contains('≠'), "{human}");

    let (d, _) = replayed("write-recovered");
    assert_eq!(d["conditionsDiffer"], false, "{d:#}");
    let zero = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScaledToZero").unwrap();
    assert_eq!(zero["live"], Value::Null);
    assert!(
        zero["explained"].as_str().unwrap().starts_with("the controller writes ScaledToZero only when it rescales")
    );

    let (d, human) = replayed("moved-metric");
    assert_eq!(d["conditionsDiffer"], true, "{d:#}");
    let active = &d["conditions"][1];
    assert_eq!((active["agrees"].clone(), active["explained"].clone()), (json!(false), Value::Null));
    assert!(human.contains("≠ the live status differs from the replayed sync"), "{human}");
}

/// A sync that rescales to or from zero writes ScaledToZero anew: the live condition of the
/// other value (the last rescale's) is that transition, explained, not flagged.
#[test]
fn scaled_to_zero_flipping_on_a_rescale_is_explained() {
    for (scenario, from, to, explained) in [
        (
            "scale-to-zero",
            2,
            0,
            "this sync rescales to 0, so it sets ScaledToZero True; the live condition is the last rescale's, which was not to 0",
        ),
        (
            "scale-from-zero",
            0,
            3,
            "this sync rescales from 0 to 3, so it sets ScaledToZero False; the live condition is the last rescale's, to 0",
        ),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose").join(scenario);
        let (objects, metric) =
            (dir.join("objects.json").display().to_string(), dir.join("object-backlog.json").display().to_string());
        let run = hpa_lint(
            &["diagnose", "--snapshot", &objects, &metric, "-n", "shop", "web", "--now", NOW, "-o", "json"],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(from), json!(to)), "{d:#}");
        let zero = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScaledToZero").unwrap();
        assert_eq!((zero["agrees"].clone(), zero["explained"].clone()), (json!(false), json!(explained)), "{d:#}");
        assert_eq!(d["conditionsDiffer"], false, "{d:#}");
    }
}

/// A target the HPA itself scaled to zero (live ScaledToZero True), replayed with
/// `HPAScaleToZero` off (1.36's default): the sync disables scaling, as a 1.36 controller with
/// the gate off does, and the answer says the live condition came from a controller with it on;
/// with the gate on the same sync scales from zero and the answer has nothing to add.
#[test]
fn a_target_scaled_to_zero_replayed_with_the_gate_off_names_the_gate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/scale-from-zero");
    let (objects, metric) =
        (dir.join("objects.json").display().to_string(), dir.join("object-backlog.json").display().to_string());
    let run = |extra: &[&str]| {
        let mut args = vec!["diagnose", "--kubernetes-version", "1.36", "--snapshot", &objects, &metric];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-n", "shop", "web", "--now", NOW, "-o", "json"]);
        let run = hpa_lint(&args, "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let off = run(&[]);
    assert_eq!((off["desiredReplicas"].clone(), off["rescaled"].clone()), (json!(0), json!(false)), "{off:#}");
    assert_eq!(
        off["findings"][0],
        json!({"question": "not-scaling", "cause": "scaling-disabled", "message": "the target's spec.replicas is 0: autoscaling is disabled (ScalingActive=False, ScalingDisabled) until it is set above 0; but the live ScaledToZero condition is True: the HPA scaled the target to zero itself, which kube-controller-manager does only with feature gate HPAScaleToZero on, and with it on this sync would evaluate the metrics from zero. This replay runs with it off, the default of Kubernetes 1.36: pass --feature-gates HPAScaleToZero=true if the cluster's controller enables it"}),
        "{off:#}"
    );
    let on = run(&["--feature-gates", "HPAScaleToZero=true"]);
    assert_eq!((on["desiredReplicas"].clone(), on["rescaled"].clone()), (json!(3), json!(true)), "{on:#}");
    assert!(on["findings"].as_array().unwrap().iter().all(|f| f["cause"] != "scaling-disabled"), "{on:#}");
}

/// An HPA deleted and created again keeps its predecessor's events until they expire: with
/// both uids known they are left out (the controller forgets a deleted HPA's memory), said in
/// a note. The good side: without the HPA's uid every event of its name is read.
#[test]
fn events_of_an_earlier_hpa_of_the_same_name_are_left_out() {
    let (d, _) = replayed("recreated");
    let sizes: Vec<i64> =
        d["memory"]["rescales"].as_array().unwrap().iter().map(|r| r["size"].as_i64().unwrap()).collect();
    assert_eq!(sizes, vec![2]);
    assert!(texts(&d["notes"]).contains(&"1 event(s) of an earlier HorizontalPodAutoscaler default/web (another uid than 2b1c-new) left out: the HPA was deleted and created again, and the controller forgets a deleted HPA's memory".to_string()), "{d:#}");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Unchanged"), json!(2)));

    let (d, _) = replayed("recreated-no-uid");
    let sizes: Vec<i64> =
        d["memory"]["rescales"].as_array().unwrap().iter().map(|r| r["size"].as_i64().unwrap()).collect();
    assert_eq!(sizes, vec![10, 2]);
    assert!(!texts(&d["notes"]).iter().any(|n| n.contains("earlier HorizontalPodAutoscaler")), "{d:#}");
}

/// Usage errors are told before any network call: an unknown rule (`cluster`), feature gates
/// or controller values no release takes (`cluster`, `diagnose`), a namespace or HPA name no
/// request can carry (`diagnose`: `web/scale` would read a subresource); the server here would not
/// answer (TEST-NET-1), so a run that connected first would fail on it, or only after its
/// timeout.
#[test]
fn usage_errors_come_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://192.0.2.1:6443', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n",
    )
    .unwrap();
    let kubeconfig = kubeconfig.display().to_string();
    let config = dir.path().join("hpa-lint.yaml");
    std::fs::write(&config, "kubernetesVersion: \"1.20\"\n").unwrap();
    let config = config.display().to_string();
    let unsupported =
        "unsupported Kubernetes version \"1.20\": supported versions are 1.33 to 1.37, and 1.38 as a preview";
    let from_file = format!("hpa-lint: error: {config}:1:20: {unsupported}\n");
    let flag = format!(
        "error: invalid value '1.20' for '--kubernetes-version <VERSION>': {unsupported}\n\nFor more information, try '--help'.\n"
    );
    let cases: [(&[&str], &str); 11] = [
        (&["cluster", "--config", &config], &from_file),
        (&["diagnose", "--config", &config, "web"], &from_file),
        (&["diagnose", "--kubernetes-version", "1.20", "web"], &flag),
        (
            &["diagnose", "-n", "Bad_NS", "web"],
            "hpa-lint: error: --namespace \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n",
        ),
        (&["diagnose", "web/scale"], "hpa-lint: error: invalid resource name \"web/scale\": [may not contain '/']\n"),
        (&["cluster", "--select", "HPA999"], "hpa-lint: error: unknown rule \"HPA999\" (see `hpa-lint rules`)\n"),
        (
            &["cluster", "--ignore", "no-such-rule"],
            "hpa-lint: error: unknown rule \"no-such-rule\" (see `hpa-lint rules`)\n",
        ),
        (
            &["cluster", "--feature-gates", "HPAConfigurableTolerance"],
            "hpa-lint: error: missing bool value for HPAConfigurableTolerance\n",
        ),
        (
            &["diagnose", "--feature-gates", "HPAConfigurableTolerance=yes", "web"],
            "hpa-lint: error: invalid value of HPAConfigurableTolerance=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax\n",
        ),
        (
            &["diagnose", "--tolerance=-1", "web"],
            "hpa-lint: error: --tolerance -1: must be a finite number, 0 or more\n",
        ),
        (
            &["cluster", "--feature-gates", "kubelet:HPAConfigurableTolerance=true"],
            "hpa-lint: error: component not registered: kubelet\n",
        ),
    ];
    for (args, stderr) in cases {
        let started = Instant::now();
        let run = hpa_lint(&[args, &["--kubeconfig", &kubeconfig, "--timeout", "30"]].concat(), "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(started.elapsed() < Duration::from_secs(5), "{args:?}: {:?}", started.elapsed());
        assert_eq!(run.stderr, stderr, "{args:?}");
    }
}

/// What a diagnosis of an HPA scaling Widget `w` says of its pod template: unknown.
const CUSTOM_RESOURCE_NOTE: &str = "the scale target Widget default/w is a custom resource: its operator makes its pods from a template only it knows (a spec.template of the resource may not be theirs), so the requests of new pods are taken from the live pods";

/// A custom resource's `spec.template` is not taken for its pods' (its operator makes them as
/// it decides): the forecast's new pods are copies of the live pods, whose requests the
/// controller reads, and the notes say why.
#[test]
fn a_custom_resource_template_is_not_taken_for_its_pods() {
    let l = widgets();
    l.server.put(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "x",
            "resources": {"requests": {"cpu": "2"}}}]}}},
        "status": {"replicas": 2, "selector": "app=w"}}));
    l.server.put(widget_hpa("widget", "Widget", None));
    let run = l.diagnose(&["widget", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["notes"], json!([CUSTOM_RESOURCE_NOTE]), "{d:#}");
    let assumptions = d["forecast"]["assumptions"].to_string();
    assert!(assumptions.contains("new pods are taken as copies of pod w-0"), "{d:#}");
}

/// An Argo Rollout with `spec.workloadRef` makes its pods from the template of the workload it
/// names: read live, and the forecast's new pods are made from it (with the overhead of the
/// RuntimeClass it names), not copied from a pod.
#[test]
fn a_rollout_workload_ref_gives_the_template_of_the_workload_it_names() {
    let l = widgets();
    l.server.install("rollouts");
    l.server.put(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "w"}},
            "workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w-template"}},
        "status": {"HPAReplicas": 2, "selector": "app=w"}}));
    l.server.put(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "w-template", "namespace": "default"},
        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "w"}},
            "template": {"metadata": {"labels": {"app": "w"}}, "spec": {"runtimeClassName": "kata",
                "containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}}}));
    let mut hpa = widget_hpa("canary", "Rollout", None);
    hpa["spec"]["scaleTargetRef"]["apiVersion"] = json!("argoproj.io/v1alpha1");
    l.server.put(hpa);
    let run = l.diagnose(&["canary", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert!(!d["forecast"]["assumptions"].to_string().contains("copies of pod"), "{d:#}");
    assert!(
        l.server.requests().iter().any(|r| r.path == "/apis/apps/v1/namespaces/default/deployments/w-template"),
        "{:?}",
        l.server.requests()
    );
    assert!(l.server.requests().iter().any(|r| r.path == "/apis/node.k8s.io/v1/runtimeclasses/kata"));
}

/// A Widget (`example.com/v1`, served with a scale subresource) `w` of two pods at 100 % of
/// their 100m cpu request, with the resource, custom and external metrics APIs installed.
fn widgets() -> Live {
    let l = live();
    for api in ["widgets", "podmetrics", "externalmetrics", "custommetrics"] {
        l.server.install(api);
    }
    l.server.put(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=w"}}));
    for i in 0..2 {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("w-{i}"), "namespace": "default", "labels": {"app": "w"}},
            "spec": {"containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Running", "startTime": "2026-03-02T09:00:00Z",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-03-02T09:00:30Z"}]}});
        l.server.put(fixtures::pod_metrics(&pod, "2026-03-02T10:00:00Z", &[("app", "100m", "10Mi")]));
        l.server.put(pod);
    }
    l
}

/// An HPA `name` on `kind` `w` (`example.com/v1`), 1..10, with a cpu utilization metric at
/// 50 % (the Widget's pods want 4), then `extra`.
fn widget_hpa(name: &str, kind: &str, extra: Option<Value>) -> Value {
    let cpu = json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}});
    let metrics: Vec<Value> = std::iter::once(cpu).chain(extra).collect();
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-03-02T09:00:00Z"},
        "spec": {"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": kind, "name": "w"},
            "minReplicas": 1, "maxReplicas": 10, "metrics": metrics}})
}

/// [`widgets`] with an HPA `name` on the Widget: the cpu metric and `extra`.
fn widget_with(name: &str, extra: Value) -> Live {
    let l = widgets();
    l.server.put(widget_hpa(name, "Widget", Some(extra)));
    l
}

/// An external metrics API that does not answer fails its metric alone, as the controller's
/// sync records it (its request ends at kube-apiserver's timeout): the cpu metric is computed
/// and the sync scales on it (`computeReplicasForMetrics`: an invalid metric stops a scale-up
/// only when every metric is invalid).
#[test]
fn a_metrics_api_that_times_out_fails_that_metric_only() {
    let l = widget_with(
        "mixed",
        json!({"type": "External", "external": {"metric": {"name": "queue_depth"}, "target": {"type": "AverageValue", "averageValue": "30"}}}),
    );
    l.server.fault(
        "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth",
        Fault::Delay(Duration::from_secs(30)),
    );
    let started = Instant::now();
    let run = l.diagnose(&["mixed", "--timeout", "1", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let d = run.json();
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
    assert_eq!(d["metrics"][0]["proposal"], 4, "{d:#}");
    assert_eq!(d["metrics"][1]["proposal"], Value::Null, "{d:#}");
    let failed = "unable to get external metric default/queue_depth/nil: unable to fetch metrics from external metrics API: Timeout: request did not complete within the allotted timeout";
    assert_eq!(
        d["metrics"][1]["error"],
        format!("failed to get queue_depth external metric value: failed to get queue_depth external metric: {failed}"),
        "{d:#}"
    );
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(active["replayed"]["reason"], "ValidMetricFound", "{d:#}");
    // It scales on the cpu metric: the failed one is a note, not why it is not scaling.
    assert_eq!(d["findings"], json!([]), "{d:#}");
    // The next syncs get the same failure, not an empty answer.
    assert_eq!(
        d["forecast"]["steps"][0]["reason"],
        format!(
            "within tolerance; some metrics failed: invalid metrics (1 invalid out of 2), first error is: failed to get queue_depth external metric value: failed to get queue_depth external metric: {failed}"
        ),
        "{d:#}"
    );
    assert_eq!(
        d["events"],
        json!([{"reason": "FailedGetExternalMetric", "message": failed},
            {"reason": "SuccessfulRescale", "message": "New size: 4; reason: cpu resource utilization (percentage of request) above target"}]),
    );
    assert_eq!(
        d["notes"],
        json!([
            format!(
                "metric 2 cannot be read: failed to get queue_depth external metric value: failed to get queue_depth external metric: {failed}"
            ),
            "metric 2 fails; the controller goes on with the others, which want 4, at least the current 2: a failed metric blocks a scale-down only",
            format!(
                "the API server at {} did not answer within 1s while reading /apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth: replayed as the answer the HPA controller gets when kube-apiserver's request timeout (--request-timeout, 1m0s by default) ends the same request, 504 \"Timeout: request did not complete within the allotted timeout\"",
                l.server.url()
            ),
            CUSTOM_RESOURCE_NOTE
        ])
    );
}

/// An Object metric whose described object's kind discovery maps to no resource fails in
/// the custom metrics client before any request (`qualResourceForKind`), with its words.
#[test]
fn an_object_metric_of_an_unmapped_kind_fails_as_the_controllers() {
    let l = widget_with(
        "gizmo",
        json!({"type": "Object", "object": {"describedObject": {"apiVersion": "example.com/v1", "kind": "Gizmo", "name": "g"},
            "metric": {"name": "depth"}, "target": {"type": "Value", "value": "10"}}}),
    );
    let run = l.diagnose(&["gizmo", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
    let failed = r#"unable to get metric depth on Gizmo default/g: unable to fetch metrics from custom metrics API: unable to map kind Gizmo.example.com to resource: no matches for kind "Gizmo" in group "example.com""#;
    assert_eq!(d["metrics"][1]["error"], format!("failed to get object metric value: {failed}"), "{d:#}");
    assert_eq!(
        d["events"],
        json!([{"reason": "FailedGetObjectMetric", "message": failed},
            {"reason": "SuccessfulRescale", "message": "New size: 4; reason: cpu resource utilization (percentage of request) above target"}]),
    );
    assert_eq!(
        d["notes"],
        json!([
            format!("metric 2 cannot be read: failed to get object metric value: {failed}"),
            "metric 2 fails; the controller goes on with the others, which want 4, at least the current 2: a failed metric blocks a scale-down only",
            CUSTOM_RESOURCE_NOTE
        ]),
        "{d:#}"
    );
    assert!(
        !l.server.requests().iter().any(|r| r.path.starts_with("/apis/custom.metrics.k8s.io/")),
        "{:?}",
        l.server.requests()
    );
    let run = l.diagnose(&["gizmo"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "\nMetrics\n  1. Resource cpu: 100% (target 50%): usage ratio 2.000 → 4 replicas (2 ready pods)\n  2. Object depth of Gizmo/g: failed: failed to get object metric value: {failed}\n\n"
        )),
        "{}",
        run.stdout
    );
}

/// One PodMetrics item whose `window` the resource metrics client cannot decode fails the
/// whole list, as `PodMetricses(ns).List` fails for the controller: the cpu metric fails,
/// no pod is set aside for missing metrics.
#[test]
fn an_undecodable_pod_metrics_window_fails_the_whole_list() {
    let objects = data("objects.yaml");
    let metrics =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/bad-window/pod-metrics.json").display().to_string();
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, &metrics, "php-apache", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(
        active["replayed"],
        json!({"status": "False", "reason": "FailedGetResourceMetric", "message": "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: time: missing unit in duration \"15.012\""}),
    );
    assert_eq!(d["metrics"][0]["setAside"], json!([]), "{d:#}");
    // A failed metric has the controller's empty name (docs/diagnose.md).
    assert_eq!((&d["metrics"][0]["type"], &d["metrics"][0]["name"]), (&json!("Resource"), &json!("")), "{d:#}");
    let note = r#"PodMetrics default/php-apache-5b56f9df94-m4r8t: window "15.012": time: missing unit in duration "15.012"; the resource metrics client cannot decode the list, so the controller gets none of its samples"#;
    assert_eq!(d["notes"][1], note, "{d:#}");
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, &metrics, "php-apache"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(r#"  1. Resource cpu: failed: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: time: missing unit in duration "15.012""#),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&format!("  - {note}\n")), "{}", run.stdout);
}

/// A snapshot keeps a metric request that failed as a `Status` naming its request
/// (`metadata.selfLink`, the README's gathering commands): the metric fails with its message,
/// as a live diagnosis replays the adapter's error, and no note asks to gather it.
#[test]
fn a_failed_metric_answer_in_a_snapshot_fails_that_metric_as_live() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    let file = |f: &str| dir.join(f).display().to_string();
    let diagnose = |failed: &str, name: &str, output: &str| {
        let run = hpa_lint(
            &["diagnose", "--snapshot", &file("objects.yaml"), &file(failed), name, "-o", output, "--now", NOW],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    };
    let d = diagnose("custom-http_requests-failed.json", "web", "json").json();
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(
        active["replayed"],
        json!({"status": "False", "reason": "FailedGetPodsMetric", "message": "the HPA was unable to compute the replica count: unable to get metric http_requests: unable to fetch metrics from custom metrics API: the server could not find the metric http_requests for pods"})
    );
    assert_eq!(d["notes"], json!([]), "{d:#}");
    let d = diagnose("external-queue_depth-failed.json", "queue", "json").json();
    let failed = "unable to get external metric shop/queue_depth/&LabelSelector{MatchLabels:map[string]string{queue: orders,},MatchExpressions:[]LabelSelectorRequirement{},}: unable to fetch metrics from external metrics API: the server is currently unable to handle the request";
    assert_eq!(
        d["events"],
        json!([{"reason": "FailedGetExternalMetric", "message": failed},
            {"reason": "FailedComputeMetricsReplicas", "message": format!("invalid metrics (1 invalid out of 1), first error is: failed to get queue_depth external metric value: failed to get queue_depth external metric: {failed}")}]),
    );
    // Another request's failure is not this metric's answer.
    let d = diagnose("external-queue_depth-failed.json", "web", "json").json();
    assert!(
        d["notes"][0].as_str().unwrap().starts_with("Pods metric http_requests: no answer among the inputs"),
        "{d:#}"
    );
    // The resource metrics API's failure, and an Object metric's gathered at another version.
    let failure = |dir: &str, objects: &str, answer: &str, name: &str| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose").join(dir);
        let file = |f: &str| dir.join(f).display().to_string();
        let run = hpa_lint(&["diagnose", "--snapshot", &file(objects), &file(answer), name, "-o", "json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap().clone();
        (active["replayed"]["reason"].clone(), active["replayed"]["message"].clone())
    };
    assert_eq!(
        failure("published-1.23", "objects.yaml", "pod-metrics-failed.json", "php-apache"),
        (
            json!("FailedGetResourceMetric"),
            json!(
                "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request"
            )
        )
    );
    assert_eq!(
        failure("scale-from-zero", "objects.json", "object-backlog-failed.json", "web"),
        (
            json!("FailedGetObjectMetric"),
            json!(
                "the HPA was unable to compute the replica count: unable to get metric backlog on Service shop/q: unable to fetch metrics from custom metrics API: the server could not find the metric backlog for services q"
            )
        )
    );
    let run = diagnose("custom-http_requests-failed.json", "web", "human");
    assert!(
        run.stdout.contains("\n  1. Pods http_requests: failed: failed to get pods metric value: unable to get metric http_requests: unable to fetch metrics from custom metrics API: the server could not find the metric http_requests for pods\n"),
        "{}",
        run.stdout
    );
}

/// Metric answers the metrics clients refuse fail the metric, in their words: a value
/// `resource.Quantity` cannot parse fails the whole list (not one pod's sample); an Object
/// answer of two values, or live of none, is refused by `GetForObject`.
#[test]
fn metric_answers_the_clients_refuse_fail_the_metric() {
    let file = |d: &str, f: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose").join(d).join(f).display().to_string()
    };
    let failed = |d: &Value| {
        let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
        (active["replayed"]["reason"].clone(), active["replayed"]["message"].clone())
    };
    // The JSON diagnosis of HPA `web` from `dir`'s `objects` and `answer`.
    let web = |dir: &str, objects: &str, answer: &str| {
        let run =
            hpa_lint(&["diagnose", "--snapshot", &file(dir, objects), &file(dir, answer), "web", "-o", "json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()
    };
    let d = web("metric-selectors", "objects.yaml", "custom-http_requests-undecodable.json");
    assert_eq!(
        failed(&d),
        (
            json!("FailedGetPodsMetric"),
            json!(
                "the HPA was unable to compute the replica count: unable to get metric http_requests: unable to fetch metrics from custom metrics API: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            )
        ),
        "{d:#}"
    );
    assert!(
        d["notes"].as_array().unwrap().contains(&json!("Pods metric http_requests: value \"10 rps\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'; the metrics client cannot decode the answer, so the controller gets none of it")),
        "{d:#}"
    );

    let d = web("scale-from-zero", "objects.json", "object-backlog-twice.json");
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    assert_eq!(
        failed(&d),
        (
            json!("FailedGetObjectMetric"),
            json!(
                "the HPA was unable to compute the replica count: unable to get metric backlog on Service shop/q: unable to fetch metrics from custom metrics API: the custom metrics API server returned 2 results when we asked for exactly one"
            )
        ),
        "{d:#}"
    );

    let l = depth_of_widget(json!([]));
    let run = l.diagnose(&["depth", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(
        d["metrics"][1]["error"],
        "failed to get object metric value: unable to get metric depth on Widget default/w: unable to fetch metrics from custom metrics API: the custom metrics API server returned 0 results when we asked for exactly one",
        "{d:#}"
    );
    assert!(
        l.server
            .requests()
            .iter()
            .any(|r| r.path == "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/widgets.example.com/w/depth")
    );
}

/// HPA `depth` of Widget `w` with an Object metric `depth` of `w` (target value 10), whose
/// adapter answers `items`.
fn depth_of_widget(items: Value) -> Live {
    let l = widget_with(
        "depth",
        json!({"type": "Object", "object": {"describedObject": {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w"},
            "metric": {"name": "depth"}, "target": {"type": "Value", "value": "10"}}}),
    );
    l.server.serve_raw(
        "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/widgets.example.com/w/depth",
        json!({"kind": "MetricValueList", "apiVersion": "custom.metrics.k8s.io/v1beta2", "metadata": {}, "items": items}),
    );
    l
}

/// Live, an Object metric's one value is the metric's whatever object the adapter's item
/// describes (`GetObjectMetric` takes `Items[0]`'s value; `GetForObject` checks only the
/// count): an item describing Widget `other` answers the request for `w`.
#[test]
fn a_live_object_metric_answer_is_the_metrics_whatever_it_describes() {
    let l = depth_of_widget(json!([
        {"describedObject": {"kind": "Widget", "namespace": "default", "name": "other", "apiVersion": "example.com/v1"},
         "metric": {"name": "depth", "selector": null}, "timestamp": "2026-03-02T10:00:00Z", "value": "30"}]));
    let run = l.diagnose(&["depth", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(
        (d["metrics"][1]["current"].clone(), d["metrics"][1]["proposal"].clone(), d["metrics"][1]["error"].clone()),
        // 30 / 10 = 3 times the 2 ready pods.
        (json!("30"), json!(6), Value::Null),
        "{d:#}"
    );
}

/// The events only rebuild the controller's memory: a list of them that does not answer in time
/// is a note, and the sync is replayed (from the memory the status alone gives).
#[test]
fn events_that_time_out_are_a_note() {
    let l = live();
    serve_the_snapshot(&l.server);
    l.server.fault("/api/v1/namespaces/default/events", Fault::Delay(Duration::from_secs(30)));
    let run = l.diagnose(&["php-apache", "--timeout", "1", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["desiredReplicas"], 4, "{d:#}");
    let slow = format!(
        "were not read: the API server at {} did not answer within 1s while listing events in namespace default",
        l.server.url()
    );
    assert_eq!(
        d["notes"],
        json!([format!("the HPA's events {slow}"), format!("the scale target's events {slow}")]),
        "{d:#}"
    );
}

/// A negative PodMetrics `window` decodes (`metav1.Duration` is signed) and moves `groupPods`'
/// cutoff inside the cpu initialization period: samples taken before the pods turned Ready,
/// with a window of -30 s, count (tests/data/diagnose/negative-window/README.md).
#[test]
fn a_negative_pod_metrics_window_moves_the_readiness_cutoff() {
    let metrics = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/diagnose/negative-window/pod-metrics.json")
        .display()
        .to_string();
    let run = hpa_lint(
        &[
            "diagnose",
            "--snapshot",
            &data("objects.yaml"),
            &metrics,
            "php-apache",
            "-o",
            "json",
            "--now",
            "2026-03-02T09:42:00Z",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(d["outcome"], "Rescaled", "{d:#}");
    assert_eq!(
        d["metrics"][0],
        json!({"index": 0, "type": "Resource", "name": "cpu resource utilization (percentage of request)", "target": "20%",
            "current": "2575%", "usageRatio": 128.75, "correctedRatio": null, "proposal": 258, "readyPods": 2,
            "setAside": [], "error": null}),
    );
}

/// A Pods, Object or External metric answer whose window (`windowSeconds`, or `window` in the
/// external metrics API) is no JSON integer fails the whole list, as `encoding/json` fails the
/// clients' decoding into `*int64`: the metric fails in Go's words, with a note on the item.
#[test]
fn a_metric_window_of_the_wrong_type_fails_the_metric() {
    let diagnose = |dir: &str, objects: &str, answer: &str, name: &str| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose").join(dir);
        let file = |f: &str| dir.join(f).display().to_string();
        let run = hpa_lint(&["diagnose", "--snapshot", &file(objects), &file(answer), name, "-o", "json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
        let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap().clone();
        (active["replayed"]["reason"].clone(), active["replayed"]["message"].clone(), d["notes"][1].clone())
    };
    let replay = "the HPA was unable to compute the replica count";
    let error = "json: cannot unmarshal string into Go struct field MetricValue.items.windowSeconds of type int64";
    assert_eq!(
        diagnose("metric-selectors", "objects.yaml", "custom-http_requests-bad-window.json", "web"),
        (
            json!("FailedGetPodsMetric"),
            json!(format!(
                "{replay}: unable to get metric http_requests: unable to fetch metrics from custom metrics API: {error}"
            )),
            json!(format!(
                "Pods metric http_requests: windowSeconds \"60\": {error}; the metrics client cannot decode the answer, so the controller gets none of it"
            )),
        )
    );
    let error =
        "json: cannot unmarshal number 60.5 into Go struct field ExternalMetricValue.items.window of type int64";
    assert_eq!(
        diagnose("metric-selectors", "objects.yaml", "external-queue_depth-bad-window.json", "queue"),
        (
            json!("FailedGetExternalMetric"),
            json!(format!(
                "{replay}: unable to get external metric shop/queue_depth/&LabelSelector{{MatchLabels:map[string]string{{queue: orders,}},MatchExpressions:[]LabelSelectorRequirement{{}},}}: unable to fetch metrics from external metrics API: {error}"
            )),
            json!(format!(
                "External metric queue_depth: window 60.5: {error}; the metrics client cannot decode the answer, so the controller gets none of it"
            )),
        )
    );
    let error = "json: cannot unmarshal bool into Go struct field MetricValue.items.windowSeconds of type int64";
    assert_eq!(
        diagnose("scale-from-zero", "objects.json", "object-backlog-bad-window.json", "web"),
        (
            json!("FailedGetObjectMetric"),
            json!(format!(
                "{replay}: unable to get metric backlog on Service shop/q: unable to fetch metrics from custom metrics API: {error}"
            )),
            json!(format!(
                "Object metric backlog: windowSeconds true: {error}; the metrics client cannot decode the answer, so the controller gets none of it"
            )),
        )
    );
}

/// Each class of answer the metrics clients cannot decode, from snapshot files
/// (tests/data/diagnose/undecodable-answers/README.md): the metric fails with the error Go's
/// `encoding/json` returns for the whole list (an `UnmarshalJSON` error wins over an earlier
/// type error, in another item too; document order within an item; a type error anywhere;
/// a number named as written), and a note says where.
#[test]
fn undecodable_metric_answers_fail_with_the_clients_error() {
    let diagnose = |objects: &str, answer: &str, name: &str| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose");
        let objects = dir.join(objects).display().to_string();
        let answer = dir.join("undecodable-answers").join(answer).display().to_string();
        let run = hpa_lint(&["diagnose", "--snapshot", &objects, &answer, name, "-o", "json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let d = run.json();
        assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
        let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap().clone();
        let notes: Vec<Value> = d["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n.as_str().unwrap().contains("cannot decode"))
            .cloned()
            .collect();
        (active["replayed"]["reason"].clone(), active["replayed"]["message"].clone(), notes)
    };
    let quantity = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    let replay = "the HPA was unable to compute the replica count";
    // The replayed reason, its message after `replay` and the note, as `diagnose` returns them.
    let failed = |reason: &str, message: String, note: String| {
        (json!(reason), json!(format!("{replay}: {message}")), vec![json!(note)])
    };
    let pods = |error: &str, note: &str| {
        failed(
            "FailedGetPodsMetric",
            format!("unable to get metric http_requests: unable to fetch metrics from custom metrics API: {error}"),
            format!(
                "Pods metric http_requests: {note}: {error}; the metrics client cannot decode the answer, so the controller gets none of it"
            ),
        )
    };
    let web = |answer: &str| diagnose("metric-selectors/objects.yaml", answer, "web");
    assert_eq!(web("custom-http_requests-type-then-quantity.json"), pods(quantity, r#"value "10 rps""#));
    assert_eq!(web("custom-http_requests-value-before-timestamp.json"), pods(quantity, r#"value "10 rps""#));
    assert_eq!(
        web("custom-http_requests-described-uid.json"),
        pods(
            "json: cannot unmarshal number into Go struct field ObjectReference.items.describedObject.uid of type types.UID",
            "describedObject.uid 5"
        )
    );
    assert_eq!(
        web("custom-http_requests-window-exponent.json"),
        pods(
            "json: cannot unmarshal number 6e1 into Go struct field MetricValue.items.windowSeconds of type int64",
            "windowSeconds 6e1"
        )
    );
    let time = r#"parsing time "2026-03-02 10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00" as "T""#;
    assert_eq!(
        diagnose("metric-selectors/objects.yaml", "external-queue_depth-bad-timestamp.json", "queue"),
        failed(
            "FailedGetExternalMetric",
            format!(
                "unable to get external metric shop/queue_depth/&LabelSelector{{MatchLabels:map[string]string{{queue: orders,}},MatchExpressions:[]LabelSelectorRequirement{{}},}}: unable to fetch metrics from external metrics API: {time}"
            ),
            format!(
                "External metric queue_depth: timestamp \"2026-03-02 10:00:00\": {time}; the metrics client cannot decode the answer, so the controller gets none of it"
            ),
        )
    );
    let containers = "json: cannot unmarshal object into Go struct field PodMetrics.items.containers of type []v1beta1.ContainerMetrics";
    assert_eq!(
        diagnose("published-1.23/objects.yaml", "pod-metrics-containers.json", "php-apache"),
        failed(
            "FailedGetResourceMetric",
            format!(
                "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: {containers}"
            ),
            format!(
                r#"PodMetrics default/php-apache-5b56f9df94-m4r8t: containers {{"name":"php-apache","usage":{{"cpu":"515m"}}}}: {containers}; the resource metrics client cannot decode the list, so the controller gets none of its samples"#
            ),
        )
    );
}

/// Live, the metrics clients decode the text the adapters sent: a number is named as written
/// (`number 6e1`, which a JSON tree would print `60.0`), and an `UnmarshalJSON` error in a later
/// item wins over a type error in an earlier one.
#[test]
fn live_metric_answers_are_decoded_as_sent() {
    let (l, dir) = live_with_metric_adapters();
    let external = std::fs::read_to_string(dir.join("external-queue_depth.json")).unwrap().replacen(
        r#""value": "90""#,
        r#""value": "90", "window": 6e1"#,
        1,
    );
    assert!(external.contains("6e1"));
    l.server.fault("/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth", Fault::Body(external));
    let run = l.diagnose(&["queue", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let error = "json: cannot unmarshal number 6e1 into Go struct field ExternalMetricValue.items.window of type int64";
    assert_eq!(
        d["metrics"][0]["error"],
        format!(
            "failed to get queue_depth external metric value: failed to get queue_depth external metric: unable to get external metric default/queue_depth/&LabelSelector{{MatchLabels:map[string]string{{queue: orders,}},MatchExpressions:[]LabelSelectorRequirement{{}},}}: unable to fetch metrics from external metrics API: {error}"
        ),
        "{d:#}"
    );
    assert!(
        d["notes"].as_array().unwrap().contains(&json!(format!(
            "External metric queue_depth: window 6e1: {error}; the metrics client cannot decode the answer, so the controller gets none of it"
        ))),
        "{d:#}"
    );

    let mut custom: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("custom-http_requests.json")).unwrap()).unwrap();
    let items = custom["items"].as_array_mut().unwrap();
    items.retain(|item| item["describedObject"]["name"].as_str().unwrap().starts_with("web-"));
    for item in items.iter_mut() {
        item["describedObject"]["namespace"] = json!("default");
    }
    items[0]["windowSeconds"] = json!("60");
    items[1]["value"] = json!("10 rps");
    l.server.serve_raw("/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/http_requests", custom);
    let run = l.diagnose(&["web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!(
        d["metrics"][0]["error"],
        "failed to get pods metric value: unable to get metric http_requests: unable to fetch metrics from custom metrics API: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "{d:#}"
    );
}

/// A snapshot's Object metric request names a custom resource as discovery would, from the
/// snapshot's CustomResourceDefinition (`Mouse`: `mice`, not `mouses`): the failed answer
/// gathered at that path is the metric's (tests/data/diagnose/irregular-plural/README.md).
#[test]
fn a_snapshot_finds_a_custom_resource_by_its_crds_plural() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/irregular-plural");
    let file = |f: &str| dir.join(f).display().to_string();
    let run = hpa_lint(
        &["diagnose", "--snapshot", &file("objects.json"), &file("object-backlog-failed.json"), "web", "-o", "json"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(
        active["replayed"],
        json!({"status": "False", "reason": "FailedGetObjectMetric", "message": "the HPA was unable to compute the replica count: unable to get metric backlog on Mouse shop/m: unable to fetch metrics from custom metrics API: the server could not find the metric backlog for mice.example.com m"}),
        "{d:#}"
    );
    assert_eq!(
        d["notes"],
        json!([
            "the sync is replayed at 2026-03-02T09:30:00Z, the latest instant the snapshot records; pass --now to choose another"
        ]),
    );
}

/// A ContainerResource metric whose container the pods' metrics do not list: the resource
/// metrics client only logs it (`getContainerMetrics`: "Missing container metric", no error,
/// upstream's "scale up: failed pods ignored with missing container metric"), so every pod
/// counts as without metrics and the calculator finds no sample left (`did not receive metrics
/// for targeted pods`), with no ratio to call exactly 1. The good side: the container that is
/// listed answers (90 % of 50 % on 2: 4).
#[test]
fn a_container_metric_of_a_container_the_metrics_lack_has_no_samples() {
    let (d, human) = replayed("container-missing");
    let error = "failed to get sidecar container metric value: failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)";
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    assert_eq!(d["metrics"][0]["error"], error, "{d:#}");
    assert_eq!(
        d["metrics"][0]["setAside"],
        json!([{"pod": "p0", "reason": "MissingMetrics"}, {"pod": "p1", "reason": "MissingMetrics"}]),
        "{d:#}"
    );
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(active["replayed"]["reason"], "FailedGetContainerResourceMetric");
    // The condition carries the error before `computeStatusForContainerResourceMetric` wraps it.
    let inner = error.strip_prefix("failed to get sidecar container metric value: ").unwrap();
    assert_eq!(active["replayed"]["message"], format!("the HPA was unable to compute the replica count: {inner}"));
    // The failure is the answer; the pods it set aside are in the metric's `setAside` above.
    let causes: Vec<&Value> = d["findings"].as_array().unwrap().iter().map(|f| &f["cause"]).collect();
    assert!(!causes.contains(&&json!("unready-pods")), "{d:#}");
    assert!(human.contains(&format!("  1. ContainerResource container/sidecar/cpu: failed: {error}\n")), "{human}");

    let (d, _) = replayed("container-present");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
}

/// A rollout adding container `sidecar`, halfway: the old pod p1 lacks it in its spec and its
/// PodMetrics. Before 1.35 its request is 0 and it has no sample (missing: 0 on a scale-up),
/// 90 % of 50 % on p0: 2 → 4, and the forecast keeps p1 without the container (said; not "not
/// Ready yet", which it is not). From 1.35 `calculateRequests` fails on p1 (#133415) at every
/// sync whatever the load: no forecast, and the answer names the pod and the way out
/// (tests/data/diagnose/replayed-sync/README.md).
#[test]
fn a_pod_without_the_metrics_container_fails_every_sync_from_1_35() {
    let kept = "pod p1 is Ready but its PodMetrics lists no container sidecar (the pod lacks it, or it did not report): the forecast keeps it so, and each sync counts the pod, for that container's metric, as the controller counts a pod without metrics (using nothing when the others want more replicas, the target when they want fewer)";
    let (d, human) = replayed_with("container-rollout", &["--kubernetes-version", "1.34"]);
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
    let assumptions = texts(&d["forecast"]["assumptions"]);
    assert!(assumptions.iter().any(|a| a == kept), "{d:#}");
    assert!(!assumptions.iter().any(|a| a.contains("not Ready yet")), "{d:#}");
    assert!(human.contains(&format!("\n  - {kept}\n")), "{human}");

    let (d, human) = replayed_with("container-rollout", &["--kubernetes-version", "1.35"]);
    assert_eq!(d["outcome"], "FailedComputeMetrics", "{d:#}");
    assert_eq!(d["forecast"], Value::Null, "{d:#}");
    let answer = "metric 1 fails: failed to get sidecar container metric value: failed to get cpu utilization: container sidecar not found in Pod p1; the controller reads container sidecar's request in every pod the selector lists, and Pod p1 has no such container: a rollout that adds it ends this once the pods without it are gone (delete them if they linger), else name a container the pods have; every sync fails there whatever the load, so the count stays at 2 until no pod the selector lists lacks it";
    assert_eq!(
        d["findings"][0],
        json!({"question": "not-scaling", "cause": "container-not-found", "message": answer}),
        "{d:#}"
    );
    assert!(human.contains(&format!("Why is it not scaling?\n  - {answer}\n")), "{human}");
    assert!(!human.contains("Next syncs"), "{human}");

    // The pod has the container, its PodMetrics not (not started or not reported): the same
    // assumption, in every release; 45 % with p1 at 0 reverses the direction, 2 kept.
    for release in ["1.34", "1.37"] {
        let (d, _) = replayed_with("container-unreported", &["--kubernetes-version", release]);
        assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Unchanged"), json!(2)), "{d:#}");
        let assumptions = texts(&d["forecast"]["assumptions"]);
        assert!(assumptions.iter().any(|a| a == kept), "{release}: {d:#}");
        assert!(!assumptions.iter().any(|a| a.contains("not Ready yet")), "{release}: {d:#}");
    }
}

/// A hand-written PodMetrics list with two items of p1 (90m, then 10m): the metrics client keeps
/// one value per pod, the last (`getPodMetrics` fills a map by name): 100m of 200m, 50 %, 2 kept;
/// the forecast's load is that 100m too (summing every item, 190m, it scaled to 4 at the next
/// sync), and a note says what was kept.
#[test]
fn repeated_samples_of_a_pod_keep_the_last_as_the_metrics_client_does() {
    let (d, human) = replayed("repeated-samples");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Unchanged"), json!(2)), "{d:#}");
    assert_eq!(d["metrics"][0]["current"], "50%", "{d:#}");
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 0, "replicas": 2}), "{d:#}");
    let note = "the PodMetrics list has 2 items of pod p1 (metrics-server lists a pod once): the controller's metrics client keeps one value per pod, that of the last item with the usage asked for (getPodMetrics fills a map by pod name), and so does this replay";
    assert!(texts(&d["notes"]).iter().any(|n| n == note), "{d:#}");
    assert!(human.contains(&format!("\n  - {note}\n")), "{human}");
}

/// Several metrics, one failing: `computeReplicasForMetrics` discards what the others want when
/// it is below the current count (a failed metric blocks a scale-down: ScalingActive False with
/// the first failure's reason, no rescale), and keeps it otherwise (a scale-up goes on,
/// ScalingActive True `ValidMetricFound`). The diagnosis says which rule decided.
#[test]
fn a_failed_metric_blocks_a_scale_down_only_and_the_diagnosis_says_so() {
    let (d, human) = replayed("partial-down");
    assert_eq!((d["outcome"].clone(), d["rescaled"].clone()), (json!("FailedComputeMetrics"), json!(false)), "{d:#}");
    assert_eq!(d["metrics"][0]["proposal"], 1, "{d:#}");
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(
        (active["replayed"]["status"].clone(), active["replayed"]["reason"].clone()),
        (json!("False"), json!("FailedGetPodsMetric"))
    );
    let rule = "the metrics that answer want 1, fewer than the current 4, but metric 2 fails: the controller does not scale down while a metric fails (it scales on the others only when they want at least the current count), so the count stays at 4";
    assert_eq!(
        d["findings"][1],
        json!({"question": "not-scaling", "cause": "metric-failed", "message": rule}),
        "{d:#}"
    );
    assert!(human.contains(&format!("\n  - {rule}\n")), "{human}");

    let (d, human) = replayed("partial-up");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(8)), "{d:#}");
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(active["replayed"]["reason"], "ValidMetricFound");
    let note = "metric 2 fails; the controller goes on with the others, which want 8, at least the current 4: a failed metric blocks a scale-down only";
    assert!(texts(&d["notes"]).iter().any(|n| n == note), "{d:#}");
    assert!(human.contains(&format!("\n  - {note}\n")), "{human}");
    assert!(!causes(&d).iter().any(|(_, c)| c == "metric-failed"), "{d:#}");
    // The controller scales on the others (ScalingActive True): the failed metric does not
    // answer why it is not scaling; it is a note, before the rule's.
    assert_eq!(causes(&d), [] as [(String, String); 0], "{d:#}");
    assert!(!human.contains("Why is it not scaling?"), "{human}");
    let failed = "metric 2 cannot be read: failed to get pods metric value: unable to get metric qps: unable to fetch metrics from custom metrics API: the server could not find the metric qps for pods";
    assert!(human.contains(&format!("\n  - {failed}\n  - {note}\n")), "{human}");
}

/// Pods without metrics on a scale-down count at 100 % of their request (`GetResourceReplicas`):
/// 0.2, then 1.1, within tolerance, so the count stays at 4. The forecast keeps them without
/// metrics, so every sync counts them so: steady at 4 (had they reported their share, the
/// count would fall to 1 once the stabilization window let it); said, by name.
#[test]
fn the_forecast_keeps_pods_without_metrics_as_the_controller_counts_them() {
    let (d, human) = replayed("missing-down");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Unchanged"), json!(4)), "{d:#}");
    assert_eq!((d["metrics"][0]["usageRatio"].clone(), d["metrics"][0]["proposal"].clone()), (json!(0.2), json!(4)));
    let said = "pods p2, p3 had no metrics in the replayed sync and keep none (the load is shared by the Ready pods that report): each sync counts them as the controller counts a pod without metrics, as using nothing when the pods that report want more replicas, as using the target when they want fewer (a resource utilization metric: 100 % of the request, or the target utilization above 100 %)";
    assert!(texts(&d["forecast"]["assumptions"]).iter().any(|a| a == said), "{d:#}");
    assert!(human.contains(&format!("\n  - {said}\n")), "{human}");
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 0, "replicas": 4}), "{d:#}");
    assert!(human.contains("\n  steady at 4 from +0s\n"), "{human}");
    assert!(human.contains("\n  - if the load stays as it is, the count stays at 4\n"), "{human}");
}

/// `data/diagnose/same-name`: `hpa-lint diagnose --snapshot` of HPA `name` with the answers
/// `files` of that directory, in human form.
fn same_name(name: &str, files: &[&str]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/same-name");
    let paths: Vec<String> = ["objects.yaml"].iter().chain(files).map(|f| dir.join(f).display().to_string()).collect();
    let mut args = vec!["diagnose", "--snapshot"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["-n", "shop", name]);
    let run = hpa_lint(&args, "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// Two metrics of one name are two requests, each with its own answer, in the sync and in the
/// forecast (`computeReplicasForMetrics` evaluates each spec): External `queue_depth` of
/// `queue=orders` (90: 30 per pod, 3 replicas) and of `queue=payments` (900: 300 per pod, 9
/// replicas), not the first's answer twice; Object `requests` of Service `front` (100 for 50: 6)
/// and of Ingress `main` (400 for 100: 12, then 4 × 6 ready pods = 24, capped at 20 and held
/// from 4 × 20 = 80), not the first object's value for both.
#[test]
fn metrics_of_one_name_are_each_their_own_request() {
    let queue = same_name("queue", &["external-queue_depth.json"]);
    assert_eq!(
        queue,
        "\
HorizontalPodAutoscaler shop/queue → Deployment/queue (1..20 replicas), snapshot sync replayed at 2026-03-02T10:00:00Z (Kubernetes 1.37)
  replicas: 3 → 6 (external metric queue_depth(&LabelSelector{MatchLabels:map[string]string{queue: payments,},MatchExpressions:[]LabelSelectorRequirement{},}) above target)

Metrics
  1. External queue_depth{queue=orders}: 30 (target 30/pod): usage ratio 1.000 → 3 replicas
  2. External queue_depth{queue=payments}: 300 (target 100/pod): usage ratio 3.000 → 9 replicas

Normalization (legacy rules: no spec.behavior)
  recommended: 9
  stabilized:  9 (ReadyForNewScale)
  limited:     6 (ScaleUpLimit)

Conditions (replayed | live)
  AbleToScale     True SucceededRescale        | -
  ScalingActive   True ValidMetricFound        | -
  ScalingLimited  True ScaleUpLimit            | -
  ScaledToZero    False NotScaledToZero        | -

Next syncs if the load stays as it is (every 15s)
  +15s: 6 → 9 (DesiredWithinRange)
  steady at 9 from +15s
  replicas after each sync (15s per 3 columns):
    9 ┤██████
      │██████
      │██████
    4 ┤██████
      │██████
      │██████
    0 └──────
       0s 30s

Why is it slow?
  - 9 is limited to 6 by the controller's scale-up limit max(2×3, 4) = 6 (ScaleUpLimit)
  - if the load stays as it is, the count settles at 9 15s after this sync, after 1 more rescale

Assumptions and notes
  - the HPA has no status yet: the replayed sync is the controller's first, from an empty memory
  - new pods start at once and turn Ready after 20s, as the slowest Ready pod did within the CPU initialization period (5m) of its start
  - the load stays as the replayed sync read it: the pods' total usage, shared by the Ready pods (unready pods get none), and each Object or External metric's value
  - the sync is replayed at 2026-03-02T10:00:00Z, the latest instant the snapshot records; pass --now to choose another
  - External metric queue_depth: 2 series left out, whose metricLabels the metric's selector (queue=orders) does not match: the controller asks only for those it matches (labelSelector)
  - External metric queue_depth: 2 series left out, whose metricLabels the metric's selector (queue=payments) does not match: the controller asks only for those it matches (labelSelector)
"
    );
    let web = same_name("web", &["custom-services-front-requests.json", "custom-ingresses-main-requests.json"]);
    let forecast: Vec<&str> = web.lines().skip_while(|l| !l.starts_with("Metrics")).take(3).collect();
    assert_eq!(
        forecast,
        [
            "Metrics",
            "  1. Object requests of Service/front: 100 (target 50): usage ratio 2.000 → 6 replicas",
            "  2. Object requests of Ingress/main: 400 (target 100): usage ratio 4.000 → 12 replicas"
        ],
        "{web}"
    );
    let next: Vec<&str> = web.lines().skip_while(|l| !l.starts_with("Next syncs")).take(4).collect();
    assert_eq!(
        next,
        [
            "Next syncs if the load stays as it is (every 15s)",
            "  +15s: 6 → 12 (DesiredWithinRange)",
            "  +30s: 12 → 20 (TooManyReplicas)",
            "  steady at 20 from +30s: maxReplicas keeps it from 80 (TooManyReplicas)"
        ],
        "{web}"
    );
}

/// A snapshot's failed answer whose request names a metric selector (`selfLink` with
/// `labelSelector=queue%3Dpayments`) fails the metric of that selector only: `queue=orders`
/// still answers 90 (3 replicas), and with the current count wanted, the controller goes on
/// (ScalingActive True, `ValidMetricFound`; `computeReplicasForMetrics`' partial failure).
#[test]
fn a_failed_answer_of_one_selector_fails_that_metric_only() {
    let queue = same_name("queue", &["external-queue_depth.json", "external-queue_depth-payments-failed.json"]);
    let head: Vec<&str> = queue.lines().take(6).collect();
    assert_eq!(
        head,
        [
            "HorizontalPodAutoscaler shop/queue → Deployment/queue (1..20 replicas), snapshot sync replayed at 2026-03-02T10:00:00Z (Kubernetes 1.37)",
            "  replicas: 3, unchanged (Unchanged)",
            "",
            "Metrics",
            "  1. External queue_depth{queue=orders}: 30 (target 30/pod): usage ratio 1.000 → 3 replicas",
            "  2. External queue_depth{queue=payments}: failed: failed to get queue_depth external metric value: failed to get queue_depth external metric: unable to get external metric shop/queue_depth/&LabelSelector{MatchLabels:map[string]string{queue: payments,},MatchExpressions:[]LabelSelectorRequirement{},}: unable to fetch metrics from external metrics API: the server is currently unable to handle the request",
        ],
        "{queue}"
    );
    assert!(queue.contains("\n  ScalingActive   True ValidMetricFound        | -\n"), "{queue}");
}

/// A cluster-scoped scale target (a CRD of `scope: Cluster`): the controller's scale client asks
/// in the HPA's namespace (`Scales(hpa.Namespace)`), where kube-apiserver routes nothing (404,
/// `404 page not found`), so every sync fails there with client-go's text for it
/// (`NewGenericServerResponse`: `the server could not find the requested resource (get fleets
/// w)`; the scale client has no group). Live, the diagnosis reads no scale at the cluster-wide
/// path; from a snapshot, the CRD among the objects says the scope.
#[test]
fn a_cluster_scoped_target_fails_as_the_controllers_scale_read() {
    let l = live();
    l.server.install("fleets");
    l.server.put(json!({"apiVersion": "example.com/v1", "kind": "Fleet", "metadata": {"name": "w"},
        "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=w"}}));
    let mut hpa = widget_hpa("fleet", "Fleet", None);
    hpa["status"] = json!({"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
        {"type": "AbleToScale", "status": "False", "reason": "FailedGetScale", "lastTransitionTime": "2026-03-02T09:00:15Z",
         "message": "the HPA controller was unable to get the target's current scale: the server could not find the requested resource (get fleets w)"}]});
    l.server.put(hpa);
    let run = l.diagnose(&["fleet", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let error = "the server could not find the requested resource (get fleets w)";
    assert_eq!(d["outcome"], "FailedGetScale", "{d:#}");
    assert_eq!(d["error"], format!("failed to query scale subresource for Fleet/default/w: {error}"), "{d:#}");
    assert_eq!(d["events"], json!([{"reason": "FailedGetScale", "message": error}]), "{d:#}");
    let able = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "AbleToScale").unwrap();
    assert_eq!(
        able["replayed"],
        json!({"status": "False", "reason": "FailedGetScale", "message": format!("the HPA controller was unable to get the target's current scale: {error}")}),
        "{d:#}"
    );
    assert_eq!(able["live"], able["replayed"], "{d:#}");
    let paths: Vec<String> = l.server.requests().into_iter().map(|r| r.path).collect();
    assert!(!paths.iter().any(|p| p.contains("/fleets/")), "{paths:?}");

    let dir = tempfile::tempdir().unwrap();
    let objects = dir.path().join("objects.json");
    let crd = fixtures::cluster_scoped_fleet_crd();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [widget_hpa("fleet", "Fleet", None), crd,
        {"apiVersion": "example.com/v1", "kind": "Fleet", "metadata": {"name": "w", "creationTimestamp": "2026-03-02T09:00:00Z"},
         "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=w"}}]});
    std::fs::write(&objects, list.to_string()).unwrap();
    let run = hpa_lint(&["diagnose", "--snapshot", objects.to_str().unwrap(), "fleet"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().take(2).collect::<Vec<_>>(),
        [
            "HorizontalPodAutoscaler default/fleet → Fleet/w (1..10 replicas), snapshot sync replayed at 2026-03-02T09:00:00Z (Kubernetes 1.37)",
            "  FailedGetScale: failed to query scale subresource for Fleet/default/w: the server could not find the requested resource (get fleets w)",
        ],
        "{}",
        run.stdout
    );
}

/// Live, two External metrics of one name are two requests, each with its own selector, and
/// each replayed with its own answer: `queue=orders` 90 (30 per pod on 2: 3 replicas) and
/// `queue=payments` 900 (450 per pod for 100: 9, limited to 4 by the scale-up limit).
#[test]
fn live_metrics_of_one_name_are_each_their_own_request() {
    let l = widgets();
    let external = |selector: &str, target: &str| {
        json!({"type": "External", "external": {"metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": selector}}},
            "target": {"type": "AverageValue", "averageValue": target}}})
    };
    let mut hpa = widget_hpa("queues", "Widget", None);
    hpa["spec"]["metrics"] = json!([external("orders", "45"), external("payments", "100")]);
    l.server.put(hpa);
    let path = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_depth";
    for (selector, value) in [("orders", "90"), ("payments", "900")] {
        l.server.serve_raw(
            &format!("{path}?labelSelector=queue%3D{selector}"),
            json!({"kind": "ExternalMetricValueList", "apiVersion": "external.metrics.k8s.io/v1beta1", "metadata": {},
                "items": [{"metricName": "queue_depth", "metricLabels": {"queue": selector},
                    "timestamp": "2026-03-02T10:00:00Z", "value": value}]}),
        );
    }
    let run = l.diagnose(&["queues", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let proposals: Vec<(Value, Value)> =
        d["metrics"].as_array().unwrap().iter().map(|m| (m["current"].clone(), m["proposal"].clone())).collect();
    assert_eq!(proposals, [(json!("45"), json!(2)), (json!("450"), json!(9))], "{d:#}");
    assert_eq!((d["outcome"].clone(), d["desiredReplicas"].clone()), (json!("Rescaled"), json!(4)), "{d:#}");
    let queries: Vec<String> = l.server.requests().into_iter().filter(|r| r.path == path).map(|r| r.query).collect();
    assert_eq!(queries, ["labelSelector=queue%3Dorders", "labelSelector=queue%3Dpayments"]);
}

/// Pods in every phase (`replayed-sync/every-phase`), one snapshot replayed as 1.33, 1.37 and
/// 1.38: before 1.38 the Succeeded `s0` counts as a pod without metrics (at 100 % of its
/// request on a scale-down: 230m of 500m, 0.92, 8 kept), from 1.38 it is ignored like a Failed
/// pod (`IsPodTerminal`, #141302: 130m of 400m, 0.64 → 3, held at 8 by the stabilization
/// window). The forecast keeps `s0` without metrics (it never runs again) and has `un`, not
/// Ready yet, report once started: 3 after the window before 1.38, 1 from 1.38. The Pending
/// `pe` runs from the next sync on, said right after the new pods' delay.
#[test]
fn pods_in_every_phase_are_grouped_as_each_release_groups_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/replayed-sync/every-phase");
    let (objects, metrics) =
        (dir.join("objects.json").display().to_string(), dir.join("pod-metrics.json").display().to_string());
    let run = |release: &str| {
        let run = hpa_lint(
            &["diagnose", "--snapshot", &objects, &metrics, "web", "--kubernetes-version", release, "-o", "json"],
            "",
        );
        assert_eq!(run.code, 0, "{release}: {}", run.stderr);
        run.json()
    };
    let set_aside = |d: &Value| -> Vec<(String, String)> {
        d["metrics"][0]["setAside"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["pod"].as_str().unwrap().to_string(), p["reason"].as_str().unwrap().to_string()))
            .collect()
    };
    let silent = "pod s0 had no metrics in the replayed sync and keeps none (the load is shared by the Ready pods that report): each sync counts it as the controller counts a pod without metrics, as using nothing when the pods that report want more replicas, as using the target when they want fewer (a resource utilization metric: 100 % of the request, or the target utilization above 100 %)";
    let starting = "pod un, not Ready yet, had no metrics in the replayed sync: the forecast has it report its share of the load from the next sync on; while it reports none, each sync decides as the replayed one did";
    // The Pending pod runs from the next sync on: said, with what the controller makes of it.
    let pending = "pod pe is Pending: the forecast has it Running from the next sync on and Ready that long after its start (at the next sync at the earliest; no scheduling or image-pull delay is assumed); the controller counts a Pending pod as not ready (groupPods), as it counts a starting pod for a cpu metric; for another metric the forecast's Running pods count as ready once they report, where Pending ones would not";
    for release in ["1.33", "1.37", "1.38"] {
        let d = run(release);
        let assumptions = texts(&d["forecast"]["assumptions"]);
        let new_pods = assumptions.iter().position(|a| a.starts_with("new pods start at once and turn Ready after"));
        let said = assumptions.iter().position(|a| a == pending);
        assert_eq!(said, new_pods.map(|i| i + 1), "{release}: {assumptions:#?}");
    }
    for release in ["1.33", "1.37"] {
        let d = run(release);
        let m = &d["metrics"][0];
        assert_eq!(
            (m["usageRatio"].clone(), m["correctedRatio"].clone(), m["proposal"].clone(), m["readyPods"].clone()),
            (json!(0.2), json!(0.92), json!(8), json!(3)),
            "{release}: {d:#}"
        );
        assert_eq!(set_aside(&d)[0], ("s0".to_string(), "MissingMetrics".to_string()), "{release}: {d:#}");
        let assumptions = texts(&d["forecast"]["assumptions"]);
        assert!(
            assumptions.iter().any(|a| a == silent) && assumptions.iter().any(|a| a == starting),
            "{release}: {assumptions:#?}"
        );
        assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 315, "replicas": 3}), "{release}: {d:#}");
    }
    let d = run("1.38");
    let m = &d["metrics"][0];
    assert_eq!(
        (m["usageRatio"].clone(), m["correctedRatio"].clone(), m["proposal"].clone()),
        (json!(0.2), json!(0.64), json!(3)),
        "{d:#}"
    );
    assert_eq!(set_aside(&d)[0], ("s0".to_string(), "Succeeded".to_string()), "{d:#}");
    assert_eq!((d["normalization"]["stabilized"].clone(), d["desiredReplicas"].clone()), (json!(8), json!(8)), "{d:#}");
    let assumptions = texts(&d["forecast"]["assumptions"]);
    assert!(!assumptions.iter().any(|a| a == silent) && assumptions.iter().any(|a| a == starting), "{assumptions:#?}");
    assert_eq!(d["forecast"]["steady"], json!({"afterSeconds": 315, "replicas": 1}), "{d:#}");
}

/// `GetObjectMetric` asks a Namespace's metrics of the HPA's own namespace (root scoped),
/// whatever name the spec gives it: a snapshot's answer, which describes the namespace, is the
/// metric's value.
#[test]
fn a_namespace_object_metric_is_the_hpas_namespaces_from_a_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    let objects = std::fs::read_to_string(dir.join("objects.yaml")).unwrap();
    let hpa = "
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata:
    creationTimestamp: '2026-03-02T09:00:00Z'
    name: backlog
    namespace: shop
    uid: u-backlog
  spec:
    maxReplicas: 20
    metrics:
    - object:
        describedObject:
          apiVersion: v1
          kind: Namespace
          name: not-read
        metric:
          name: backlog
        target:
          type: Value
          value: '10'
      type: Object
    minReplicas: 1
    scaleTargetRef:
      apiVersion: apps/v1
      kind: Deployment
      name: other
";
    let (head, rest) = objects.split_once("\n- ").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let with_hpa = tmp.path().join("objects.yaml");
    std::fs::write(&with_hpa, format!("{head}{hpa}- {rest}")).unwrap();
    let answer = tmp.path().join("custom-backlog.json");
    std::fs::write(
        &answer,
        json!({"kind": "MetricValueList", "apiVersion": "custom.metrics.k8s.io/v1beta2", "metadata": {}, "items": [
            {"describedObject": {"kind": "Namespace", "name": "shop", "apiVersion": "/v1"},
             "metric": {"name": "backlog", "selector": null}, "timestamp": "2026-03-02T10:00:00Z", "value": "30"}]})
        .to_string(),
    )
    .unwrap();
    let (objects, answer) = (with_hpa.display().to_string(), answer.display().to_string());
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, &answer, "backlog", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    // 30 against 10 for other's 3 pods (no other HPA scales it): 9 replicas proposed.
    assert_eq!(
        (d["metrics"][0]["current"].clone(), d["metrics"][0]["proposal"].clone(), d["error"].clone()),
        (json!("30"), json!(9), Value::Null),
        "{d:#}"
    );
}

/// A scale whose `status.selector` does not parse (`tests/data/diagnose/unparsable-selector`):
/// the sync stops at `labels.Parse`, whose error the controller puts in its `InvalidSelector`
/// condition in apimachinery's words (hpa-core's one parser), and the diagnosis says so.
#[test]
fn an_unparsable_scale_selector_is_the_controllers_invalid_selector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/unparsable-selector");
    let objects = dir.join("objects.yaml").display().to_string();
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, "-n", "jobs", "workers", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let active = d["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "ScalingActive").unwrap();
    assert_eq!(
        active["replayed"],
        json!({"status": "False", "reason": "InvalidSelector", "message": "couldn't convert selector into a corresponding internal selector object: found 'tier', expected: ',' or 'end of string'"}),
        "{d:#}"
    );
    let human = hpa_lint(&["diagnose", "--snapshot", &objects, "-n", "jobs", "workers"], "").stdout;
    assert!(
        human.contains("the target's selector is unusable: couldn't convert selector into a corresponding internal selector object: found 'tier', expected: ',' or 'end of string';"),
        "{human}"
    );
}

/// Live, the pods' metrics are asked with the scale's selector as the controller's clients
/// send it, `labels.Parse(status.selector).String()` in Go's query escaping (a space as `+`):
/// a custom resource that writes ` tier notin (b,a,a), app==w` is asked
/// `app==w,tier notin (a,b)`, and its pods are found.
#[test]
fn live_pod_metrics_are_asked_with_the_parsed_selectors_string() {
    let l = widgets();
    l.server.put(json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": " tier notin (b,a,a), app==w"}}));
    l.server.put(widget_hpa("widget", "Widget", None));
    let run = l.diagnose(&["widget", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    assert_eq!((d["currentReplicas"].clone(), d["desiredReplicas"].clone()), (json!(2), json!(4)), "{d:#}");
    let queries: Vec<String> = l
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("/pods") && r.path.contains("metrics.k8s.io"))
        .map(|r| r.query)
        .collect();
    assert!(queries.iter().any(|q| q == "labelSelector=app%3D%3Dw%2Ctier+notin+%28a%2Cb%29"), "{queries:#?}");
}

/// The command that gathers a Pods metric asks with the pods' selector as the metrics client
/// sends it, `labels.Parse(status.selector).String()`: a Deployment whose selector repeats a
/// value (`LabelSelectorAsSelector` keeps it: `app in (web,web)`) is asked for with the set the
/// parser reads (`app in (web)`).
#[test]
fn a_pods_metric_is_gathered_with_the_selector_the_client_sends() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/metric-selectors");
    let objects = std::fs::read_to_string(dir.join("objects.yaml")).unwrap();
    let web = "      matchLabels: &id003\n        app: web\n";
    assert!(objects.contains(web));
    let objects = objects
        .replace(web, &format!("{web}      matchExpressions: [{{key: app, operator: In, values: [web, web]}}]\n"));
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("objects.yaml");
    std::fs::write(&path, objects).unwrap();
    let run = hpa_lint(&["diagnose", "--snapshot", &path.display().to_string(), "web", "-o", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let d = run.json();
    let notes: Vec<&str> = d["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let gather = notes.iter().find(|n| n.starts_with("Pods metric http_requests: no answer")).expect("a note");
    assert!(gather.contains("/pods/*/http_requests?labelSelector=app%3Dweb%2Capp+in+%28web%29\""), "{gather}");
}
