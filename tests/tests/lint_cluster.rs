//! `hpa-lint cluster` against the test API server, over TLS with a real kubeconfig: the same
//! rules as files on live objects, locations as objects and field paths, notes for what was
//! not read, the replicas decision for HPA410, scopes, and the report formats.

use hpa_tests::apiserver::fixtures;
use hpa_tests::apiserver::{Fault, LiveCluster as Live};
use hpa_tests::cli::{CapturedRun, hpa_lint};
use serde_json::{Value, json};

fn live() -> Live {
    Live::start()
}

/// `hpa-lint cluster` on a [`Live`] cluster.
trait Cluster {
    /// `hpa-lint cluster --no-config ARGS` (outside the server's runtime: the command runs its
    /// own).
    fn lint(&self, extra: &[&str]) -> CapturedRun;
}

impl Cluster for Live {
    fn lint(&self, extra: &[&str]) -> CapturedRun {
        self.hpa_lint("cluster", &[&["--no-config"], extra].concat())
    }
}

/// HPA201's namespace: utilization HPAs on workloads without requests.
fn payments() -> Vec<Value> {
    fixtures::in_namespace(fixtures::cluster_fixture("requests-missing"), "payments")
}

/// The diagnostics of a JSON run with this rule, as `namespace/name kind path`.
fn located(report: &Value, rule: &str) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .map(|d| {
            let o = &d["object"];
            format!(
                "{}/{} {} {}",
                o["namespace"].as_str().unwrap(),
                o["name"].as_str().unwrap(),
                o["kind"].as_str().unwrap(),
                d["path"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_utilization_hpa_on_a_workload_without_requests_is_hpa201_on_the_object() {
    let l = live();
    l.server.apply(&payments());
    let run = l.lint(&["-n", "payments", "-o", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let hpa201 = located(&report, "HPA201");
    assert!(
        hpa201.contains(
            &"payments/web HorizontalPodAutoscaler spec.metrics[0].resource.target.averageUtilization".to_string()
        ),
        "{hpa201:?}"
    );
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA201").unwrap();
    assert_eq!(d["object"]["apiVersion"], "autoscaling/v2");
    assert!(d.get("file").is_none() && d.get("line").is_none(), "{d}");
    assert_eq!(report["cluster"]["server"], l.server.url());
    assert_eq!(report["cluster"]["namespaces"], json!(["payments"]));
    assert!(report["summary"]["hpas"].as_u64().unwrap() >= 2);

    // The same in the human form: the object and the field lead the message.
    let run = l.lint(&["-n", "payments", "--color", "never"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("payments/web (HorizontalPodAutoscaler) spec.metrics[0].resource.target.averageUtilization: "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("HPA201 missing-resource-request"), "{}", run.stdout);
    assert!(run.stdout.ends_with(" objects)\n"), "{}", run.stdout);

    // The configuration applies as for files: an ignored rule is not reported, --fail-on
    // decides the status.
    let run = l.lint(&["-n", "payments", "-o", "json", "--ignore", "HPA201"]);
    assert!(located(&run.json(), "HPA201").is_empty());
    let run = l.lint(&["-n", "payments", "--fail-on", "never"]);
    assert_eq!(run.code, 0);

    // The same findings as linting the manifests themselves (by rule and object).
    let path = hpa_tests::data_dir().join("cluster/requests-missing.yaml").display().to_string();
    let files = hpa_lint(&["--no-config", "-o", "json", "-n", "payments", &path], "").json();
    let live = l.lint(&["-n", "payments", "-o", "json"]).json();
    let found = |report: &Value| {
        let mut out: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{} {} {}", d["rule"], d["object"]["kind"], d["object"]["name"]))
            .collect();
        out.sort();
        out
    };
    assert_eq!(found(&live), found(&files));
    assert_eq!(found(&live).len(), 4);
}

#[test]
fn hpa410_asks_who_set_the_replicas() {
    let l = live();
    let objects = fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop");
    // `kubectl apply --server-side` of manifests that set replicas: kubectl owns the field.
    l.server.apply(&objects);
    let run = l.lint(&["-o", "json"]);
    let report = run.json();
    let hpa410 = located(&report, "HPA410");
    assert_eq!(hpa410, ["shop/db StatefulSet spec.replicas", "shop/web Deployment spec.replicas"], "{report:#}");
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA410").unwrap();
    assert!(
        d["help"]
            .as_str()
            .unwrap()
            .starts_with("in the cluster, spec.replicas is owned by field manager \"kubectl\" (Apply)"),
        "{d}"
    );

    // The HPA controller scales both through /scale: kube-controller-manager owns the field
    // now, which every live workload has; nothing to report.
    l.server.scale_as_hpa("apps", "deployments", "shop", "web", 7);
    l.server.scale_as_hpa("apps", "statefulsets", "shop", "db", 4);
    let run = l.lint(&["-o", "json"]);
    assert!(located(&run.json(), "HPA410").is_empty(), "{}", run.stdout);

    // Client-side `kubectl apply` of a manifest with replicas: its last-applied configuration
    // sets them, whoever wrote the value last.
    let mut web = fixtures::find(&objects, "Deployment", "web").clone();
    let applied = web.to_string();
    web["metadata"]["annotations"] = json!({"kubectl.kubernetes.io/last-applied-configuration": applied});
    l.server.apply_as(&[web], "kubectl-client-side-apply", "Update");
    l.server.scale_as_hpa("apps", "deployments", "shop", "web", 7);
    let run = l.lint(&["-o", "json"]);
    assert_eq!(located(&run.json(), "HPA410"), ["shop/web Deployment spec.replicas"], "{}", run.stdout);
}

/// A live workload was admitted: HPA410 never says kube-apiserver refuses it, whatever the model
/// of its validation says (here a selector operator it refuses, stored as a cluster validating
/// otherwise would hold it), and the rules about its pods still run (HPA201), as they do on
/// every live target.
#[test]
fn a_live_workload_is_never_said_to_be_refused() {
    let l = live();
    let objects = fixtures::in_namespace(fixtures::cluster_fixture("requests-missing"), "shop");
    let mut objects: Vec<Value> =
        objects.into_iter().filter(|o| o["kind"] != "Deployment" || o["metadata"]["name"] == "web").collect();
    for o in objects.iter_mut().filter(|o| o["kind"] == "Deployment") {
        o["spec"]["selector"] = json!({"matchExpressions": [{"key": "app", "operator": "Foo", "values": ["web"]}]});
    }
    l.server.apply(&objects);
    let report = l.lint(&["-n", "shop", "-o", "json"]).json();
    assert!(located(&report, "HPA410").is_empty(), "{report:#}");
    assert!(!located(&report, "HPA201").is_empty(), "{report:#}");
}

/// A workload created by an `Update`-operation manager (Helm, `kubectl create`, client-side
/// `kubectl apply`) without `spec.replicas` owns the defaulted 1 (kube-apiserver's create handler
/// records ownership of the defaulted object): not a user's replicas. Helm's lifecycle, step by
/// step, as the test API server records it.
#[test]
fn hpa410_leaves_out_what_an_update_creator_owns_by_default() {
    let l = live();
    let objects = fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop");
    let hpas: Vec<Value> = objects.iter().filter(|o| o["kind"] == "HorizontalPodAutoscaler").cloned().collect();
    l.server.apply(&hpas);
    let mut chart = fixtures::find(&objects, "Deployment", "web").clone();
    chart["spec"].as_object_mut().unwrap().remove("replicas");
    let hpa410 = || located(&l.lint(&["-o", "json"]).json(), "HPA410");
    let owners = |stored: &Value| -> Vec<String> {
        stored["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["fieldsV1"]["f:spec"].get("f:replicas").is_some())
            .map(|e| e["manager"].as_str().unwrap().to_string())
            .collect()
    };

    // `helm install` of a chart without replicas: helm owns the defaulted 1; nothing to report.
    let stored = l.server.apply_as(std::slice::from_ref(&chart), "helm", "Update").remove(0);
    assert_eq!((stored["spec"]["replicas"].clone(), owners(&stored)), (json!(1), vec!["helm".to_string()]));
    assert!(hpa410().is_empty());
    // The HPA scales it to 3: kube-controller-manager takes the field.
    l.server.scale_as_hpa("apps", "deployments", "shop", "web", 3);
    assert!(hpa410().is_empty());
    // `helm upgrade` of the chart still without replicas: its three-way merge leaves them alone.
    let mut upgraded = chart.clone();
    upgraded["spec"]["template"]["spec"]["containers"][0]["image"] = json!("ghcr.io/example/web:1.5.0");
    let stored = l.server.apply_as(std::slice::from_ref(&upgraded), "helm", "Update").remove(0);
    assert_eq!(stored["spec"]["replicas"], 3);
    assert_eq!(owners(&stored), ["kube-controller-manager"]);
    assert!(hpa410().is_empty());
    // `helm upgrade` of a chart that sets replicas: 2 resets them, and helm owns them again.
    upgraded["spec"]["replicas"] = json!(2);
    let stored = l.server.apply_as(std::slice::from_ref(&upgraded), "helm", "Update").remove(0);
    assert_eq!((stored["spec"]["replicas"].clone(), owners(&stored)), (json!(2), vec!["helm".to_string()]));
    assert_eq!(hpa410(), ["shop/web Deployment spec.replicas"]);
    // The chart drops replicas again: the three-way merge deletes the field, the API server
    // defaults it to 1, helm owns that 1: the default, not reported.
    upgraded["spec"].as_object_mut().unwrap().remove("replicas");
    let stored = l.server.apply_as(std::slice::from_ref(&upgraded), "helm", "Update").remove(0);
    assert_eq!((stored["spec"]["replicas"].clone(), owners(&stored)), (json!(1), vec!["helm".to_string()]));
    assert!(hpa410().is_empty());

    // `kubectl create` of the StatefulSet without replicas, and client-side `kubectl apply` of
    // it without replicas: the default, both times. With replicas: 2 in the applied manifest:
    // reported (its last-applied configuration sets them).
    let mut db = fixtures::find(&objects, "StatefulSet", "db").clone();
    db["spec"].as_object_mut().unwrap().remove("replicas");
    l.server.apply_as(std::slice::from_ref(&db), "kubectl-create", "Update");
    assert!(hpa410().is_empty());
    let stored = l.server.apply_as(std::slice::from_ref(&db), "kubectl-client-side-apply", "Update").remove(0);
    assert!(stored["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].is_string());
    assert!(hpa410().is_empty());
    db["spec"]["replicas"] = json!(2);
    l.server.apply_as(std::slice::from_ref(&db), "kubectl-client-side-apply", "Update");
    assert_eq!(hpa410(), ["shop/db StatefulSet spec.replicas"]);
}

#[test]
fn ignore_annotations_on_live_objects_suppress_as_in_files() {
    let l = live();
    let mut objects = fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop");
    for o in objects.iter_mut().filter(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "web") {
        o["metadata"]["annotations"]["hpa-lint.dev/ignore"] = json!("workload-sets-replicas -- GitOps owns replicas");
    }
    l.server.apply(&objects);
    let report = l.lint(&["-o", "json"]).json();
    assert_eq!(located(&report, "HPA410"), ["shop/db StatefulSet spec.replicas"], "{report:#}");
    assert_eq!(report["summary"]["suppressed"], 1, "{report:#}");

    // The same objects as files: the same findings and the same count suppressed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.yaml");
    let text: Vec<String> = objects.iter().map(|o| serde_json::to_string(o).unwrap()).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let files = hpa_lint(&["--no-config", "-o", "json", &path.display().to_string()], "").json();
    let rules = |r: &Value| {
        let mut ids: Vec<String> = r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{} {}", d["rule"], d["object"]["name"]))
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(rules(&report), rules(&files), "{files:#}");
    assert_eq!(files["summary"]["suppressed"], 1, "{files:#}");

    // A bare rule ID works too.
    l.server.apply(&[json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "shop", "annotations": {"hpa-lint.dev/ignore": "HPA410"}},
        "spec": fixtures::find(&objects, "StatefulSet", "db")["spec"].clone(),
    })]);
    let report = l.lint(&["-o", "json"]).json();
    assert!(located(&report, "HPA410").is_empty(), "{report:#}");
    assert_eq!(report["summary"]["suppressed"], 2, "{report:#}");
}

#[test]
fn a_refused_kind_is_a_note_and_the_rest_is_linted() {
    let l = live();
    l.server.apply(&payments());
    l.server.refuse(Some("poddisruptionbudgets.policy"), None);

    let run = l.lint(&["-n", "payments", "--color", "never"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("HPA201"), "{}", run.stdout);
    let notes: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("hpa-lint: note: ")).collect();
    assert!(
        notes.iter().any(|n| n.contains("RBAC refused to list poddisruptionbudgets.policy in namespace payments")),
        "{}",
        run.stderr
    );
    // Optional CRDs that are not installed are skipped with a note.
    assert!(notes.iter().any(|n| n.contains("verticalpodautoscalers is not served")), "{}", run.stderr);

    let report = l.lint(&["-n", "payments", "-o", "json"]).json();
    assert!(!located(&report, "HPA201").is_empty());
    let notes = report["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["kind"] == "forbidden"), "{notes:?}");
    assert!(notes.iter().any(|n| n["kind"] == "absent"), "{notes:?}");

    let sarif = l.lint(&["-n", "payments", "-o", "sarif"]).json();
    let notifications = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert!(
        notifications
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["message"]["text"].as_str().unwrap().contains("RBAC refused"))
    );

    // The HPAs themselves refused in every namespace read: nothing to lint, exit 2.
    l.server.refuse(Some("horizontalpodautoscalers.autoscaling"), None);
    let run = l.lint(&["-n", "payments"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("RBAC refused to list horizontalpodautoscalers.autoscaling"), "{}", run.stderr);
}

#[test]
fn namespaces_are_read_as_asked() {
    let l = live();
    l.server.apply(&payments());
    l.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
    let namespaces = |run: &CapturedRun| {
        let mut ns: Vec<String> = run.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["object"]["namespace"].as_str().unwrap().to_string())
            .collect();
        ns.dedup();
        ns
    };
    // The kubeconfig context's namespace (shop) by default.
    assert_eq!(namespaces(&l.lint(&["-o", "json"])), ["shop"]);
    assert_eq!(namespaces(&l.lint(&["-n", "payments", "-o", "json"])), ["payments"]);
    assert_eq!(namespaces(&l.lint(&["-n", "payments", "-n", "shop", "-o", "json"])), ["payments", "shop"]);
    let all = l.lint(&["-A", "-o", "json"]);
    assert_eq!(namespaces(&all), ["payments", "shop"]);
    assert_eq!(all.json()["cluster"]["namespaces"], Value::Null);
    // -A lists each kind once across the cluster.
    let hpa_lists: Vec<_> =
        l.server.requests().into_iter().filter(|r| r.path == "/apis/autoscaling/v2/horizontalpodautoscalers").collect();
    assert_eq!(hpa_lists.len(), 1);
    let run = l.lint(&["-A", "-n", "shop"]);
    assert_eq!(run.code, 2, "-A and -n conflict: {}", run.stderr);
}

fn assert_valid_sarif(sarif: &Value) {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("sarif/sarif-schema-2.1.0.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options().with_draft(jsonschema::Draft::Draft4).build(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(sarif).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "SARIF schema violations:\n{}", errors.join("\n"));
}

#[test]
fn sarif_has_logical_locations_and_github_no_file() {
    let l = live();
    l.server.apply(&payments());
    l.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
    let run = l.lint(&["-A", "-o", "sarif"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif = run.json();
    assert_valid_sarif(&sarif);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let location = &r["locations"][0];
        assert!(location.get("physicalLocation").is_none(), "{r}");
        assert_eq!(location["logicalLocations"][0]["kind"], "object");
    }
    let hpa201 = results
        .iter()
        .find(|r| r["ruleId"] == "HPA201" && r["locations"][0]["logicalLocations"][0]["name"] == "web")
        .unwrap();
    assert_eq!(
        hpa201["locations"][0]["logicalLocations"],
        json!([
            {"name": "web", "fullyQualifiedName": "HorizontalPodAutoscaler/payments/web", "kind": "object"},
            {"name": "spec.metrics[0].resource.target.averageUtilization", "fullyQualifiedName": "HorizontalPodAutoscaler/payments/web/spec.metrics[0].resource.target.averageUtilization", "kind": "property"},
        ])
    );

    let run = l.lint(&["-A", "-o", "github"]);
    assert!(
        run.stdout
            .lines()
            .any(|l| l
                .starts_with("::warning title=HPA410 workload-sets-replicas::shop/web (Deployment) spec.replicas: ")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("file="), "{}", run.stdout);
}

#[test]
fn a_server_that_cannot_be_reached_is_a_clear_error() {
    let l = live();
    let url = l.server.url();
    l.server.kill();
    let run = l.lint(&["--timeout", "2"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot reach the API server at") || run.stderr.contains("did not answer"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("help:"), "{}", run.stderr);
    assert!(run.stdout.is_empty());

    let run = hpa_lint(&["cluster", "--kubeconfig", "/nonexistent/kubeconfig"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot use kubeconfig /nonexistent/kubeconfig: no such file"), "{}", run.stderr);
}

/// A list the API server throttles past the timeout is named as throttled (429), not as slow.
#[test]
fn a_throttling_server_is_named() {
    let l = live();
    l.server.fault("/apis/autoscaling/v2", Fault::Throttle { retry_after: 5, times: usize::MAX });
    let run = l.lint(&["--timeout", "2"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "hpa-lint: error: the API server at {} throttled the requests (429 Too Many Requests) while listing ",
            l.server.url()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(": 1 attempt within the 2s timeout, the last answered with Retry-After: 5\n"),
        "{}",
        run.stderr
    );
}

/// A live HPA is checked as kube-apiserver checks a stored object again: re-applied unchanged,
/// an UPDATE onto itself. `minReplicas: 0` stored while `HPAScaleToZero` was on stays valid
/// once the gate is off (1.36: alpha, off), where the same object as a file (a CREATE) is
/// HPA000; an HPA invalid under any rule is HPA000 either way.
#[test]
fn live_hpas_are_checked_as_an_update_onto_themselves() {
    let l = live();
    let objects = [fixtures::external_hpa("zero", 0, 5), fixtures::external_hpa("inverted", 4, 2)];
    l.server.apply(&objects);
    let run = l.lint(&["--kubernetes-version", "1.36", "-o", "json"]);
    let report = run.json();
    assert_eq!(located(&report, "HPA000"), ["shop/inverted HorizontalPodAutoscaler spec.maxReplicas"], "{report:#}");
    // With the gate on (1.37: beta, on), the same.
    let report = l.lint(&["--kubernetes-version", "1.37", "-o", "json"]).json();
    assert_eq!(located(&report, "HPA000"), ["shop/inverted HorizontalPodAutoscaler spec.maxReplicas"], "{report:#}");

    // The same objects as files are created: minReplicas 0 is refused while the gate is off.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.yaml");
    let text: Vec<String> = objects.iter().map(|o| serde_json::to_string(o).unwrap()).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let files =
        hpa_lint(&["--no-config", "--kubernetes-version", "1.36", "-o", "json", &path.display().to_string()], "")
            .json();
    let hpa000: Vec<String> = files["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "HPA000")
        .map(|d| format!("{} {}", d["object"]["name"].as_str().unwrap(), d["path"].as_str().unwrap()))
        .collect();
    assert_eq!(hpa000, ["zero spec.minReplicas", "inverted spec.maxReplicas"], "{files:#}");
}

/// A live HPA with per-HPA tolerances, stored while `HPAConfigurableTolerance` was on, on the
/// releases whose gate is alpha and off by default (1.33, 1.34; versions.md). Checked as an
/// UPDATE onto itself, the tolerances are kept (`dropDisabledFields` returns early when the old
/// object uses one: `toleranceInUse`, strategy.go), so nothing is HPA000; what that release's
/// controller does with them is HPA306 on each (`tolerancesForHpa` in horizontal.go: the flag's
/// tolerance both ways), and `hpa-lint diagnose` of the same live HPA says so. From 1.35 (beta,
/// on) the controller uses them: neither says anything.
#[test]
fn a_live_tolerance_with_its_gate_off_is_kept_and_ignored_by_that_controller() {
    let l = live();
    l.server.apply(&[fixtures::web_with_tolerances()]);
    let diagnose_notes = |release: &str| -> Vec<String> {
        let run = l.hpa_lint(
            "diagnose",
            &["-n", "shop", "--now", "2026-03-02T10:00:00Z", "--kubernetes-version", release, "web", "-o", "json"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    for release in ["1.33", "1.34"] {
        let report = l.lint(&["--kubernetes-version", release, "-o", "json"]).json();
        assert!(located(&report, "HPA000").is_empty(), "{release}: {report:#}");
        assert_eq!(
            located(&report, "HPA306"),
            [
                "shop/web HorizontalPodAutoscaler spec.behavior.scaleDown.tolerance",
                "shop/web HorizontalPodAutoscaler spec.behavior.scaleUp.tolerance"
            ],
            "{release}: {report:#}"
        );
        // Stored: kube-apiserver keeps it, and says nothing of dropping it.
        let messages: Vec<&str> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "HPA306")
            .map(|d| d["message"].as_str().unwrap())
            .collect();
        assert_eq!(
            messages,
            ["HPAConfigurableTolerance is off: kube-apiserver keeps this tolerance, as the stored object already has one, but the controller ignores it and uses its global tolerance (--horizontal-pod-autoscaler-tolerance=0.1) both ways";
                2],
            "{release}: {report:#}"
        );
        let notes = diagnose_notes(release);
        for (direction, value) in [("scaleUp", "50m"), ("scaleDown", "200m")] {
            let note = format!(
                "spec.behavior.{direction}.tolerance {value} is ignored: HPAConfigurableTolerance is off in this Kubernetes {release} controller, which uses --horizontal-pod-autoscaler-tolerance=0.1 both ways"
            );
            assert!(notes.contains(&note), "{release}: {notes:#?}");
        }
    }
    let report = l.lint(&["--kubernetes-version", "1.35", "-o", "json"]).json();
    assert!(located(&report, "HPA000").is_empty() && located(&report, "HPA306").is_empty(), "{report:#}");
    assert!(!diagnose_notes("1.35").iter().any(|n| n.contains("tolerance")));
}

/// A live HPA with fields the selected release's types do not have (a cluster newer than
/// `--kubernetes-version`: the test API server is 1.37, whose status conditions have
/// `observedGeneration`, read as 1.36): one note per HPA naming them, in the words of `hpa-lint
/// diagnose` (`hpa_cluster::inventory::ignored_notes`), in every format; the rules still run on
/// what was decoded. An HPA without any is not named; read as 1.37, nothing is ignored and no
/// such note is written.
#[test]
fn fields_the_selected_release_does_not_know_are_one_note_per_hpa() {
    let l = live();
    let mut web = fixtures::web_with_tolerances();
    web["status"] = json!({"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-03-02T09:00:00Z",
         "reason": "ReadyForNewScale", "observedGeneration": 1},
        {"type": "ScalingActive", "status": "True", "lastTransitionTime": "2026-03-02T09:00:00Z",
         "reason": "ValidMetricFound", "observedGeneration": 1}]});
    let mut api = fixtures::web_with_tolerances();
    api["metadata"]["name"] = json!("api");
    l.server.put(web);
    l.server.put(api);
    let note = "HorizontalPodAutoscaler shop/web: fields \"status.conditions[0].observedGeneration\", \"status.conditions[1].observedGeneration\" are not in the types of Kubernetes 1.36: ignored, as that release's controller ignores them";

    // Human: on standard error, with the other notes.
    let run = l.lint(&["--kubernetes-version", "1.36", "--color", "never"]);
    let ignored: Vec<&str> = run.stderr.lines().filter(|l| l.contains(" not in the types of ")).collect();
    assert_eq!(ignored, [format!("hpa-lint: note: {note}")], "{}", run.stderr);
    // JSON: `notes`, kind `ignored`; the rules ran on both HPAs all the same.
    let ignored_notes = |release: &str| {
        let report = l.lint(&["--kubernetes-version", release, "-o", "json"]).json();
        assert_eq!(report["summary"]["hpas"], 2, "{report:#}");
        assert!(!located(&report, "HPA306").is_empty() || release != "1.34", "{report:#}");
        report["notes"].as_array().unwrap().iter().filter(|n| n["kind"] == "ignored").cloned().collect::<Vec<_>>()
    };
    assert_eq!(ignored_notes("1.36"), [json!({"kind": "ignored", "message": note})]);
    assert_eq!(
        ignored_notes("1.34"),
        [json!({"kind": "ignored", "message": note.replace("Kubernetes 1.36", "Kubernetes 1.34")})]
    );
    assert!(ignored_notes("1.37").is_empty());
    // SARIF: the invocation's notifications, as the other notes.
    let sarif = l.lint(&["--kubernetes-version", "1.36", "-o", "sarif"]).json();
    assert_valid_sarif(&sarif);
    let texts: Vec<&str> = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert!(texts.contains(&note), "{texts:#?}");
    // As 1.37 reads it: the same output as a cluster without the field.
    let run = l.lint(&["--color", "never"]);
    assert!(!run.stderr.contains(" not in the types of "), "{}", run.stderr);
}

/// The four formats of `hpa-lint cluster`, byte for byte (the server's address aside): findings
/// with help and related places in two namespaces, and notes for what was not read.
#[test]
fn the_four_formats_byte_for_byte() {
    let l = live();
    l.server.apply(&payments());
    l.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("replicas-set"), "shop"));
    l.server.refuse(Some("poddisruptionbudgets.policy"), None);
    let url = l.server.url();
    for format in ["human", "json", "sarif", "github"] {
        let run = l.lint(&["-A", "-o", format, "--color", "never"]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        let text = format!("--- stdout\n{}--- stderr\n{}", run.stdout, run.stderr).replace(&url, "https://SERVER");
        insta::assert_snapshot!(format!("cluster_{format}"), text);
    }
}

/// HPA409 on live objects: the HPA KEDA made for a ScaledObject (its controller reference) is
/// not flagged; a second HPA on the same Deployment is.
#[test]
fn the_hpa_keda_made_for_a_scaled_object_is_no_keda_conflict() {
    let l = live();
    l.server.install("scaledobjects");
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "worker", "namespace": "queue"},
        "spec": {"selector": {"matchLabels": {"app": "worker"}}, "template": {
            "metadata": {"labels": {"app": "worker"}},
            "spec": {"containers": [{"name": "app", "image": "w:1", "resources": {"requests": {"cpu": "100m"}}}]}}},
    });
    let scaled_object = json!({
        "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "worker", "namespace": "queue"},
        "spec": {"scaleTargetRef": {"name": "worker"}, "triggers": [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "70"}}]},
    });
    let hpa = |name: &str, owners: Value| {
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "queue", "ownerReferences": owners},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "worker"},
                     "minReplicas": 2, "maxReplicas": 10},
        })
    };
    let owner = json!([{"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "name": "worker",
                        "uid": "6b1c8f0e-0000-4000-8000-000000000002", "controller": true, "blockOwnerDeletion": true}]);
    l.server.apply(&[deployment, scaled_object, hpa("keda-hpa-worker", owner), hpa("worker", json!([]))]);
    let run = l.lint(&["-n", "queue", "-o", "json", "--select", "HPA409"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        located(&run.json(), "HPA409"),
        ["queue/worker HorizontalPodAutoscaler spec.scaleTargetRef"],
        "{}",
        run.stdout
    );
}

/// The messages of a JSON report's `version` notes.
fn version_notes(report: &Value) -> Vec<&str> {
    let notes = report["notes"].as_array().unwrap();
    notes.iter().filter(|n| n["kind"] == "version").map(|n| n["message"].as_str().unwrap()).collect()
}

/// The release of the API server (`/version`'s gitVersion, with a provider's suffix) is the
/// one `cluster` and `diagnose` reproduce when none is named: on a 1.34 server, the live
/// per-HPA tolerances are HPA306 and diagnose's "off in this Kubernetes 1.34 controller", as
/// with `--kubernetes-version 1.34`, and no note is written.
#[test]
fn without_a_release_named_the_cluster_s_own_applies() {
    let l = live();
    l.server.apply(&[fixtures::web_with_tolerances()]);
    l.server.set_git_version(Some("v1.34.4-eks-a737599"));
    let report = l.lint(&["-o", "json"]).json();
    assert_eq!(located(&report, "HPA306").len(), 2, "{report:#}");
    assert!(version_notes(&report).is_empty(), "{report:#}");
    let run = l.hpa_lint("diagnose", &["-n", "shop", "--now", "2026-03-02T10:00:00Z", "web", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes: Vec<String> =
        run.json()["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    assert!(
        notes.contains(&"spec.behavior.scaleUp.tolerance 50m is ignored: HPAConfigurableTolerance is off in this Kubernetes 1.34 controller, which uses --horizontal-pod-autoscaler-tolerance=0.1 both ways".to_string()),
        "{notes:#?}"
    );
    assert!(!notes.iter().any(|n| n.contains("API server")), "{notes:#?}");
}

/// A release named that is not the server's wins, with a `version` note (human: on standard
/// error with the other notes; JSON: `notes`; diagnose: its notes).
#[test]
fn a_named_release_other_than_the_cluster_s_wins_with_a_note() {
    let l = live();
    l.server.apply(&[fixtures::web_with_tolerances()]);
    l.server.set_git_version(Some("v1.34.4-eks-a737599"));
    let note = "--kubernetes-version selects Kubernetes 1.35, but the API server runs v1.34.4-eks-a737599: 1.35's validation and controller apply";
    let report = l.lint(&["--kubernetes-version", "1.35", "-o", "json"]).json();
    assert!(located(&report, "HPA306").is_empty(), "{report:#}");
    assert_eq!(version_notes(&report), [note]);
    let run = l.lint(&["--kubernetes-version", "1.35", "--color", "never"]);
    assert!(run.stderr.lines().any(|line| line == format!("hpa-lint: note: {note}")), "{}", run.stderr);
    let run = l.hpa_lint(
        "diagnose",
        &["-n", "shop", "--now", "2026-03-02T10:00:00Z", "--kubernetes-version", "1.35", "web", "-o", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["notes"][0], note);
    // The same release as the server's: no note.
    let report = l.lint(&["--kubernetes-version", "1.34", "-o", "json"]).json();
    assert!(version_notes(&report).is_empty(), "{report:#}");
}

/// A server older than the oldest profile is read as the nearest (1.33), and one whose
/// `/version` is refused as the default release, each with a note.
#[test]
fn an_old_or_unknown_cluster_release_is_a_note() {
    let l = live();
    l.server.apply(&[fixtures::web_with_tolerances()]);
    l.server.set_git_version(Some("v1.31.2-gke.1"));
    let report = l.lint(&["-o", "json"]).json();
    assert_eq!(located(&report, "HPA306").len(), 2, "{report:#}");
    assert_eq!(
        version_notes(&report),
        [
            "the API server runs v1.31.2-gke.1, which has no profile here: Kubernetes 1.33's, the nearest, apply (pass --kubernetes-version to choose another)"
        ]
    );
    l.server.set_git_version(None);
    let report = l.lint(&["-o", "json"]).json();
    assert!(located(&report, "HPA306").is_empty(), "{report:#}");
    assert_eq!(
        version_notes(&report),
        [
            "the API server's release is unknown (RBAC refused to get /version: forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot get path \"/version\"; ask for read access (get, list) to it): Kubernetes 1.37's validation and controller apply (pass --kubernetes-version to choose another)"
        ]
    );
}

/// HPA201 reads the cluster's RuntimeClasses: their overhead is part of a pod's requests for the
/// controller from 1.34 to 1.37 (silent), not in 1.38 (reported); without RBAC on them, a note.
#[test]
fn a_runtime_class_overhead_in_the_cluster_supplies_the_cpu_request_until_1_38() {
    let l = live();
    l.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("runtime-class"), "kata"));
    let report = l.lint(&["-n", "kata", "-o", "json"]).json();
    assert_eq!(located(&report, "HPA201"), Vec::<String>::new(), "{report:#}");
    assert_eq!(report["summary"]["objects"], 3, "{report:#}");
    let reported_on_1_38 = || {
        l.server.set_git_version(Some("v1.38.0"));
        let report = l.lint(&["-n", "kata", "-o", "json"]).json();
        assert_eq!(
            located(&report, "HPA201"),
            ["kata/web HorizontalPodAutoscaler spec.metrics[0].resource.target.averageUtilization"],
            "{report:#}"
        );
    };
    reported_on_1_38();
    // RuntimeClasses refused on 1.37: the overhead that would give the cpu request is unknown,
    // so HPA201 concludes nothing; the refusal is a note. On 1.38 the overhead does not count:
    // the request is missing whatever the RuntimeClass.
    l.server.set_git_version(Some("v1.37.0"));
    l.server.refuse(Some("runtimeclasses.node.k8s.io"), None);
    let report = l.lint(&["-n", "kata", "-o", "json"]).json();
    let notes: Vec<&str> = report["notes"].as_array().unwrap().iter().filter_map(|n| n["message"].as_str()).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("not read: RBAC refused to list runtimeclasses.node.k8s.io (")),
        "{notes:?}"
    );
    assert_eq!(located(&report, "HPA201"), Vec::<String>::new(), "{report:#}");
    reported_on_1_38();
}

/// HPA201 on a workload without requests: reported where the LimitRanges of its namespace were
/// read (none gives a default), not where RBAC refused them (a `defaultRequest` may give the
/// request): the refusal is a note.
#[test]
fn a_request_a_refused_limit_range_may_give_is_not_concluded_missing() {
    let l = live();
    l.server.apply(&payments());
    let report = l.lint(&["-n", "payments", "-o", "json", "--select", "HPA201"]).json();
    let found = located(&report, "HPA201");
    assert_eq!(found.len(), 4, "{report:#}");
    l.server.refuse(Some("limitranges"), Some("payments"));
    let report = l.lint(&["-n", "payments", "-o", "json", "--select", "HPA201"]).json();
    assert_eq!(located(&report, "HPA201"), Vec::<String>::new(), "{report:#}");
    let notes: Vec<&str> = report["notes"].as_array().unwrap().iter().filter_map(|n| n["message"].as_str()).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("not read: RBAC refused to list limitranges in namespace payments (")),
        "{notes:?}"
    );
}

/// A live cluster serving `install` (`workerpools` or `workerpools-v2`) with
/// `tests/data/cluster/custom-resources.yaml` in `batch`, its WorkerPools applied by Argo CD
/// (`size: 3`).
fn live_custom_resources(install: &str) -> Live {
    let l = live();
    l.server.install(install);
    l.server.install("gadgets");
    let objects = fixtures::in_namespace(fixtures::cluster_fixture("custom-resources"), "batch");
    let (pinned, rest): (Vec<Value>, Vec<Value>) = objects.into_iter().partition(|o| o["kind"] == "WorkerPool");
    l.server.apply(&rest);
    l.server.apply_as(&pinned, "argocd-controller", "Apply");
    l
}

/// HPA410 on a live custom resource asks who set the field its CRD's `specReplicasPath` names
/// (`.spec.size`): reported where a manager other than the HPA controller owns it, not where
/// the controller wrote it through `/scale`. HPA412 on a CRD without a scale subresource.
#[test]
fn custom_resources_are_judged_by_their_crd_read_from_the_cluster() {
    let l = live_custom_resources("workerpools");
    // Applied without it; the HPA controller wrote `size` through `/scale`.
    l.server.put(json!({"apiVersion": "example.com/v1", "kind": "WorkerPool",
        "metadata": {"name": "scaled", "namespace": "batch", "managedFields": [
            {"manager": "argocd-controller", "operation": "Apply", "apiVersion": "example.com/v1",
             "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
             "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}},
             "subresource": "scale"}]},
        "spec": {"size": 7, "replicas": 2}}));
    let report = l.lint(&["-n", "batch", "-o", "json"]).json();
    assert_eq!(located(&report, "HPA410"), ["batch/pinned WorkerPool spec.size"], "{report:#}");
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA410").unwrap();
    assert_eq!(
        d["message"],
        "WorkerPool batch/pinned sets spec.size: 3 while HorizontalPodAutoscaler batch/pinned scales it: every apply resets the count"
    );
    assert_eq!(
        d["help"],
        "in the cluster, spec.size is owned by field manager \"argocd-controller\" (Apply), not by the HPA controller; remove spec.size from the workload; the HPA owns it"
    );
    assert_eq!(located(&report, "HPA412"), ["batch/g HorizontalPodAutoscaler spec.scaleTargetRef.kind"], "{report:#}");
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA412").unwrap();
    assert_eq!(
        d["message"],
        "CustomResourceDefinition gadgets.example.com gives Gadget no scale subresource: the controller cannot read the target's scale and never scales it (AbleToScale False, FailedGetScale)"
    );
    // The custom resources were read one by one, at the version discovery maps them to.
    let paths: Vec<String> = l.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.iter().any(|p| p == "/apis/example.com/v1/namespaces/batch/workerpools/pinned"), "{paths:?}");
}

/// HPA `batch/NAME` scaling `KIND` `NAME` of `api_version` on an External metric (the target
/// need not exist).
fn batch_hpa(name: &str, api_version: &str, kind: &str) -> Value {
    let mut hpa = fixtures::external_hpa(name, 1, 5);
    hpa["metadata"]["namespace"] = json!("batch");
    hpa["spec"]["scaleTargetRef"] = json!({"apiVersion": api_version, "kind": kind, "name": name});
    hpa
}

/// A custom resource target is read at the version the HPA controller's RESTMapper maps its
/// group and kind to (discovery's preferred version, `v2`), not at the version the HPA names
/// (`example.com/v1`): one resolver for `cluster` and `diagnose` (`discovery::Resolver`).
#[test]
fn custom_resource_targets_are_read_at_the_preferred_version() {
    let l = live_custom_resources("workerpools-v2");
    let report = l.lint(&["-n", "batch", "-o", "json"]).json();
    assert_eq!(located(&report, "HPA410"), ["batch/pinned WorkerPool spec.size"], "{report:#}");
    // Read concurrently: in any order.
    let mut read: Vec<String> =
        l.server.requests().into_iter().filter(|r| r.path.contains("/workerpools/")).map(|r| r.path).collect();
    read.sort();
    // `scaled` does not exist: 404 at v2, and no read at v1: the controller's scale client reads
    // workerpools.example.com at the preferred version whichever mapping it tries.
    assert_eq!(
        read,
        [
            "/apis/example.com/v2/namespaces/batch/workerpools/pinned",
            "/apis/example.com/v2/namespaces/batch/workerpools/scaled"
        ]
    );
}

/// A custom resource target is read as the HPA controller reads a scale target
/// (`scaleForResourceMappings`): it tries each mapping of the kind, but its scale client reads
/// the group and resource at the preferred version whichever mapping it tries, so another
/// version of the same CRD is never read. The preferred `v2` failing (a conversion webhook
/// down), the target is not judged, `v1` is not read, and the note is `v2`'s failure.
#[test]
fn custom_resource_targets_are_read_once_per_resource() {
    let l = live_custom_resources("workerpools-v2");
    let v2 = "/apis/example.com/v2/namespaces/batch/workerpools/pinned";
    l.server.fault(v2, Fault::Status(500, "conversion webhook for example.com/v1, Kind=WorkerPool failed".into()));
    let report = l.lint(&["-n", "batch", "-o", "json"]).json();
    assert_eq!(located(&report, "HPA410"), Vec::<String>::new(), "{report:#}");
    let read: Vec<String> =
        l.server.requests().into_iter().filter(|r| r.path.ends_with("/workerpools/pinned")).map(|r| r.path).collect();
    assert_eq!(read, [v2]);
    let notes: Vec<&str> = report["notes"].as_array().unwrap().iter().filter_map(|n| n["message"].as_str()).collect();
    let failed: Vec<&&str> = notes.iter().filter(|n| n.starts_with("not read: ")).collect();
    assert_eq!(failed.len(), 1, "{notes:?}");
    assert!(failed[0].contains("conversion webhook for example.com/v1, Kind=WorkerPool failed"), "{notes:?}");
}

/// A live HPA on a kind of the same name in another API group (no CRD serves it) targets another
/// object, as the controller's RESTMapper maps it by group and kind: it conflicts with no HPA of
/// the `example.com` WorkerPool (HPA407), and is not the HPA scaling it (HPA410).
#[test]
fn a_live_hpa_on_the_same_kind_of_another_group_targets_another_object() {
    let l = live_custom_resources("workerpools");
    let mut twin = batch_hpa("twin", "other.example.com/v1", "WorkerPool");
    twin["spec"]["scaleTargetRef"]["name"] = json!("pinned");
    l.server.apply(&[twin]);
    let report = l.lint(&["-n", "batch", "-o", "json"]).json();
    assert!(located(&report, "HPA407").is_empty(), "{report:#}");
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA410").unwrap();
    assert_eq!(
        d["message"],
        "WorkerPool batch/pinned sets spec.size: 3 while HorizontalPodAutoscaler batch/pinned scales it: every apply resets the count"
    );
    // The same kind and group, another version: the same object, and a conflict.
    let mut same = batch_hpa("same", "example.com/v2", "WorkerPool");
    same["spec"]["scaleTargetRef"]["name"] = json!("pinned");
    l.server.apply(&[same]);
    let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA407"]).json();
    assert_eq!(
        located(&report, "HPA407"),
        [
            "batch/pinned HorizontalPodAutoscaler spec.scaleTargetRef",
            "batch/same HorizontalPodAutoscaler spec.scaleTargetRef"
        ],
        "{report:#}"
    );
}

/// A target of a cluster-scoped CRD (`scope: Cluster`): the controller reads its scale in the
/// HPA's namespace, where the API server serves no such resource (404), and never scales it:
/// HPA412 says so from the CRD, as in files; the target is not read (no `GET`), so HPA403
/// concludes nothing.
#[test]
fn a_cluster_scoped_custom_resource_target_is_hpa412() {
    let l = live();
    l.server.install("fleets");
    let crd = fixtures::cluster_scoped_fleet_crd();
    let fleet = json!({"apiVersion": "example.com/v1", "kind": "Fleet", "metadata": {"name": "fleet"},
        "spec": {"replicas": 2}});
    l.server.apply(&[crd, fleet, batch_hpa("fleet", "example.com/v1", "Fleet")]);
    let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403,HPA412"]).json();
    assert_eq!(located(&report, "HPA403"), Vec::<String>::new(), "{report:#}");
    assert_eq!(
        located(&report, "HPA412"),
        ["batch/fleet HorizontalPodAutoscaler spec.scaleTargetRef.kind"],
        "{report:#}"
    );
    let d = report["diagnostics"].as_array().unwrap().iter().find(|d| d["rule"] == "HPA412").unwrap();
    assert_eq!(
        d["message"],
        "CustomResourceDefinition fleets.example.com makes Fleet cluster-scoped: the controller reads its scale in the HPA's namespace, which serves none (404), and never scales it (AbleToScale False, FailedGetScale)"
    );
    let paths: Vec<String> = l.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(!paths.iter().any(|p| p.contains("/fleets/")), "{paths:?}");
}

/// HPA403 on a live HPA whose custom-resource target does not exist (its `GET` answered 404),
/// as on files: the CRD is known, the object is not there.
#[test]
fn a_missing_custom_resource_target_is_hpa403_as_in_files() {
    let l = live();
    l.server.install("workerpools");
    l.server.install("gadgets");
    let objects = fixtures::in_namespace(fixtures::cluster_fixture("custom-resources"), "batch");
    l.server.apply(&objects);
    l.server.apply(&[batch_hpa("ghost", "example.com/v1", "WorkerPool")]);
    let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403"]).json();
    assert_eq!(
        located(&report, "HPA403"),
        [
            "batch/g HorizontalPodAutoscaler spec.scaleTargetRef.name",
            "batch/ghost HorizontalPodAutoscaler spec.scaleTargetRef.name",
            "batch/scaled HorizontalPodAutoscaler spec.scaleTargetRef.name"
        ],
        "{report:#}"
    );
    let paths: Vec<String> = l.server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.iter().any(|p| p == "/apis/example.com/v1/namespaces/batch/workerpools/ghost"), "{paths:?}");
}

/// A stored HPA whose Deployment is written `extensions/v1beta1` maps to nothing for the
/// controller (HPA405): live as in files, it conflicts with no HPA of the `apps/v1` Deployment,
/// while two HPAs of the right group do.
#[test]
fn a_live_hpa_whose_target_group_does_not_serve_it_conflicts_with_none() {
    let l = live();
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "w:1", "resources": {"requests": {"cpu": "100m"}}}]}}},
    });
    let hpa = |name: &str, api_version: &str| {
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": "Deployment", "name": "web"},
                     "minReplicas": 2, "maxReplicas": 10},
        })
    };
    l.server.apply(&[deployment, hpa("web", "apps/v1"), hpa("old", "extensions/v1beta1")]);
    let run = l.lint(&["-n", "shop", "-o", "json", "--select", "HPA405,HPA407"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    assert!(located(&report, "HPA407").is_empty(), "{}", run.stdout);
    assert_eq!(located(&report, "HPA405"), ["shop/old HorizontalPodAutoscaler spec.scaleTargetRef.apiVersion"]);
    l.server.apply(&[hpa("old", "apps/v1beta2")]);
    let run = l.lint(&["-n", "shop", "-o", "json", "--select", "HPA405,HPA407"]);
    assert_eq!(
        located(&run.json(), "HPA407"),
        [
            "shop/old HorizontalPodAutoscaler spec.scaleTargetRef",
            "shop/web HorizontalPodAutoscaler spec.scaleTargetRef"
        ],
        "{}",
        run.stdout
    );
}

/// The `custom-resources` fixture in `batch` (its CRDs installed and served) and `batch/web`, an
/// HPA on a Deployment `web` that does not exist.
fn batch_cluster() -> Live {
    let l = live();
    l.server.install("workerpools");
    l.server.install("gadgets");
    l.server.apply(&fixtures::in_namespace(fixtures::cluster_fixture("custom-resources"), "batch"));
    l.server.apply(&[batch_hpa("web", "apps/v1", "Deployment")]);
    l
}

/// HPA403 concludes from an absence only where the target's kind was read whole: not when RBAC
/// refused the list of its kind in its namespace, the list of CRDs (so no custom-resource target
/// was read), or the `GET` of a custom-resource target, nor when that `GET` failed. Each of those
/// is a note saying what was not read; the targets read whole are still looked for.
#[test]
fn hpa403_concludes_only_from_what_was_read_whole() {
    let l = batch_cluster();
    let hpa403 = |l: &Live| {
        let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403"]).json();
        let notes: Vec<String> = report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["message"].as_str().unwrap().to_string())
            .filter(|n| n.starts_with("not read: "))
            .collect();
        (located(&report, "HPA403"), notes)
    };
    let at = |names: &[&str]| -> Vec<String> {
        names.iter().map(|n| format!("batch/{n} HorizontalPodAutoscaler spec.scaleTargetRef.name")).collect()
    };
    assert_eq!(hpa403(&l), (at(&["g", "scaled", "web"]), vec![]));
    // Where the target was looked for: in the cluster.
    let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403"]).json();
    let messages: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["message"].as_str()).collect();
    assert_eq!(
        messages,
        [
            "no Gadget batch/g in the cluster",
            "no WorkerPool batch/scaled in the cluster",
            "no Deployment batch/web in the cluster"
        ]
    );

    // The GET of one custom-resource target refused, then failing: that target is not judged.
    l.server.refuse(Some("workerpools.example.com"), Some("batch"));
    assert_eq!(
        hpa403(&l),
        (
            at(&["g", "web"]),
            vec![
                "not read: RBAC refused to get workerpools.example.com batch/pinned (workerpools.example.com is forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot get resource \"workerpools\" in API group \"example.com\" in the namespace \"batch\")".to_string(),
                "not read: RBAC refused to get workerpools.example.com batch/scaled (workerpools.example.com is forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot get resource \"workerpools\" in API group \"example.com\" in the namespace \"batch\")".to_string(),
            ]
        )
    );
    let l = batch_cluster();
    l.server
        .fault("/apis/example.com/v1/namespaces/batch/workerpools/scaled", Fault::Status(500, "etcd is down".into()));
    let (found, notes) = hpa403(&l);
    assert_eq!(found, at(&["g", "web"]));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("not read: "), "{notes:?}");

    // The CRDs refused: no custom-resource target is read, none is judged.
    let l = batch_cluster();
    l.server.refuse(Some("customresourcedefinitions.apiextensions.k8s.io"), None);
    let (found, notes) = hpa403(&l);
    assert_eq!(found, at(&["web"]));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("not read: RBAC refused to list customresourcedefinitions.apiextensions.k8s.io ("),
        "{notes:?}"
    );

    // The Deployments of the namespace refused: the Deployment target is not judged.
    let l = batch_cluster();
    l.server.refuse(Some("deployments.apps"), Some("batch"));
    let (found, notes) = hpa403(&l);
    assert_eq!(found, at(&["g", "scaled"]));
    assert_eq!(
        notes,
        [
            "not read: RBAC refused to list deployments.apps in namespace batch (deployments.apps is forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"batch\")"
        ]
    );
}

/// An HPA on an Argo Rollout while Argo Rollouts is not installed: discovery says the kind is
/// not served, so no Rollout exists anywhere and HPA403 is certain (the controller cannot get
/// the target's scale either), as for a Deployment that is not there; the note says Rollouts
/// were skipped. Installed, the Rollouts are listed and the one that exists is found.
#[test]
fn a_target_whose_kind_is_not_served_is_hpa403() {
    let l = live();
    l.server.apply(&[batch_hpa("canary", "argoproj.io/v1alpha1", "Rollout")]);
    let run = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(located(&report, "HPA403"), ["batch/canary HorizontalPodAutoscaler spec.scaleTargetRef.name"]);
    let messages: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["message"].as_str()).collect();
    assert_eq!(messages, ["no Rollout batch/canary in the cluster"]);
    let notes: Vec<&str> = report["notes"].as_array().unwrap().iter().filter_map(|n| n["message"].as_str()).collect();
    assert!(
        notes.contains(&"argoproj.io/v1alpha1 rollouts is not served (Argo Rollouts not installed): skipped"),
        "{notes:?}"
    );
    l.server.install("rollouts");
    l.server.apply(&[json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
        "metadata": {"name": "canary", "namespace": "batch"},
        "spec": {"selector": {"matchLabels": {"app": "canary"}}, "template": {"metadata": {"labels": {"app": "canary"}},
            "spec": {"containers": [{"name": "app", "image": "c:1"}]}}}})]);
    let report = l.lint(&["-n", "batch", "-o", "json", "--select", "HPA403"]).json();
    assert_eq!(located(&report, "HPA403"), Vec::<String>::new(), "{report:#}");
}

/// A VPA read from the cluster was stored: whatever the VPA admission controller would refuse
/// on create (an `updatePolicy` without `updateMode`, `InPlace` behind its gate), it exists, and
/// the updater reads a missing mode as its default: HPA408 warns of the conflict, as in files
/// it says the VPA would not be created. Of several VPAs on one target, the VPA follows the one
/// created first (`creationTimestamp`), whatever their names.
#[test]
fn a_stored_vpa_is_read_as_the_vpa_reads_it_not_as_its_admission_would() {
    let l = live();
    l.server.install("verticalpodautoscalers");
    let deployment = |name: &str| {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "w:1", "resources": {"requests": {"cpu": "100m"}}}]}}},
        })
    };
    let hpa = |name: &str| {
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}, "maxReplicas": 5,
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]},
        })
    };
    let vpa = |name: &str, target: &str, created: &str, policy: Value| {
        json!({
            "apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
            "metadata": {"name": name, "namespace": "shop", "creationTimestamp": created},
            "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target}, "updatePolicy": policy},
        })
    };
    l.server.apply(&[
        deployment("web"),
        deployment("api"),
        hpa("web"),
        hpa("api"),
        vpa("no-mode", "web", "2026-03-02T09:14:05Z", json!({"minReplicas": 2})),
        vpa("later", "web", "2026-03-02T09:14:06Z", json!({"updateMode": "Recreate"})),
        vpa("in-place", "api", "2026-03-02T09:14:05Z", json!({"updateMode": "InPlace"})),
    ]);
    let run = l.lint(&["-n", "shop", "-o", "json", "--select", "HPA408"]);
    let report = run.json();
    let messages: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        [
            "VerticalPodAutoscaler shop/in-place (InPlace) also sets the cpu requests of container \"app\" of Deployment shop/api: the two autoscalers feed each other",
            "VerticalPodAutoscaler shop/no-mode (Recreate) also sets the cpu requests of container \"app\" of Deployment shop/web: the two autoscalers feed each other; of the 2 VPAs on it, the VPA admission controller and updater follow only this one, created first, and ignore later",
        ],
        "{}",
        run.stdout
    );
}

/// The cross-object rules say the same of one set in files and live (by rule, object, path and
/// message): two HPAs whose workloads share pods (HPA407), a container that does not exist
/// (HPA202), a missing request (HPA201), a count the workload's manifest pins (HPA410; live,
/// owned by its applier's field manager), and no HPA104: the budget counts the canary's pods too.
#[test]
fn cross_object_findings_are_the_same_in_files_and_live() {
    let l = live();
    let deployment = |name: &str, replicas: Option<i64>, labels: Value, resources: Value| {
        let mut d = json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"selector": {"matchLabels": labels.clone()}, "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "app", "image": "w:1", "resources": resources}]}}},
        });
        if let Some(n) = replicas {
            d["spec"]["replicas"] = json!(n);
        }
        d
    };
    let hpa = |name: &str, min: i64, metric: Value| {
        json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name, "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                     "minReplicas": min, "maxReplicas": 5, "metrics": [metric]},
        })
    };
    let objects = vec![
        deployment("web", Some(2), json!({"app": "web"}), json!({})),
        deployment("web-canary", None, json!({"app": "web", "track": "canary"}), json!({"requests": {"cpu": "100m"}})),
        hpa(
            "web",
            2,
            json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}),
        ),
        hpa(
            "web-canary",
            1,
            json!({"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "nope", "target": {"type": "Utilization", "averageUtilization": 60}}}),
        ),
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
               "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}),
    ];
    l.server.apply(&objects);
    let live = l.lint(&["-n", "shop", "-o", "json"]).json();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.yaml");
    let text: Vec<String> = objects.iter().map(|o| serde_json::to_string(o).unwrap()).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let files = hpa_lint(&["--no-config", "-o", "json", &path.display().to_string()], "").json();
    let said = |r: &Value| {
        let mut out: Vec<String> = r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!("{} {} {} {}: {}", d["rule"], d["object"]["kind"], d["object"]["name"], d["path"], d["message"])
            })
            .collect();
        out.sort();
        out
    };
    assert_eq!(said(&live), said(&files), "{live:#}");
    let rules: Vec<String> = said(&files).iter().map(|s| s[..8].to_string()).collect();
    assert_eq!(rules, ["\"HPA201\"", "\"HPA202\"", "\"HPA407\"", "\"HPA407\"", "\"HPA410\""], "{files:#}");
}
