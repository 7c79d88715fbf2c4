//! The linter's manifest sets as real charts render them: objects that name no namespace
//! (`-n/--namespace`, or the one the others name), objects defined twice in one stream, kinds
//! without namespaces, and the related locations of a finding about several containers.

use hpa_tests::cli::hpa_lint;
use serde_json::{Value, json};

/// An HPA that names no namespace, as `helm template` renders many (document 0, lines 1-13),
/// and its Deployment, which names the release namespace: neither container requests cpu
/// (`app` has no resources, `proxy` a memory limit only), `limited` has a cpu limit.
const RENDER: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: ghcr.io/example/web:1.4.2
        resources: {}
      - name: limited
        image: ghcr.io/example/limited:1.0.0
        resources:
          limits: {cpu: 500m}
      - name: proxy
        image: ghcr.io/example/proxy:3.1.0
        resources:
          limits: {memory: 128Mi}
";

fn lint(args: &[&str], stdin: &str) -> Value {
    let mut all = vec!["--no-config", "-o", "json", "--fail-on", "never"];
    all.extend(args);
    all.push("-");
    let run = hpa_lint(&all, stdin);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// The diagnostics of a JSON report.
fn diagnostics(report: &Value) -> std::slice::Iter<'_, Value> {
    report["diagnostics"].as_array().unwrap().iter()
}

/// (line, column, rule) of every diagnostic.
fn positions(report: &Value) -> Vec<(u64, u64, String)> {
    diagnostics(report)
        .map(|d| (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap(), d["rule"].as_str().unwrap().to_string()))
        .collect()
}

fn notes(report: &Value) -> Vec<String> {
    report["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

/// One metric, two containers without the request: one finding, naming both, with a related
/// location on each container (and none on the one whose cpu limit is its request).
#[test]
fn one_finding_names_every_container_without_the_request() {
    let report = lint(&[], RENDER);
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())]);
    let d = &report["diagnostics"][0];
    assert_eq!(
        d["message"],
        "cpu utilization needs a cpu request in every container, and containers \"app\" and \"proxy\" of Deployment shop/web have none: the controller will not scale on this metric"
    );
    let related = related_of(&report);
    assert_eq!(related, [(28, 9, "no cpu request here"), (35, 9, "no cpu request here")]);
}

/// A container is pointed at by its first line, whatever key comes first: the linter positions
/// findings on its first pass's tree, which keeps only some fields of a Deployment, and must
/// keep the first entry of each container for this (it parses no file twice).
#[test]
fn a_container_is_pointed_at_by_its_first_line_whatever_its_first_key() {
    let image_first = RENDER.replacen(
        "      - name: app\n        image: ghcr.io/example/web:1.4.2\n",
        "      - image: ghcr.io/example/web:1.4.2\n        name: app\n",
        1,
    );
    let run = hpa_lint(&["--no-config", "-o", "sarif", "--fail-on", "never", "-"], &image_first);
    let result = &run.json()["runs"][0]["results"][0];
    let regions: Vec<&Value> =
        result["relatedLocations"].as_array().unwrap().iter().map(|r| &r["physicalLocation"]["region"]).collect();
    assert_eq!(
        regions,
        [
            &serde_json::json!({"startLine": 28, "startColumn": 9, "endLine": 28, "endColumn": 41}),
            &serde_json::json!({"startLine": 35, "startColumn": 9, "endLine": 35, "endColumn": 20}),
        ]
    );
}

/// Without `-n`, the HPA joins the namespace its Deployment names (the only one named), and a
/// note says so, since the link depended on it.
#[test]
fn objects_without_a_namespace_join_the_one_the_others_name() {
    let report = lint(&[], RENDER);
    assert_eq!(report["diagnostics"][0]["object"]["namespace"], "shop");
    assert_eq!(
        notes(&report),
        [
            "<stdin>: objects that name no namespace were taken to be in namespace \"shop\", the one the others name (where `kubectl apply -n shop` or `helm template -n shop` puts them); pass -n/--namespace if they belong elsewhere"
        ]
    );
}

/// `-n` places them: in the Deployment's namespace the finding is there without a note; in
/// another one the HPA and the Deployment do not meet.
#[test]
fn the_namespace_flag_places_objects_that_name_none() {
    let report = lint(&["-n", "shop"], RENDER);
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())]);
    assert!(notes(&report).is_empty(), "{:?}", notes(&report));
    // (The Deployment names `shop` and stays there, as Helm applies it: no HPA000.)
    let report = lint(&["--namespace", "other", "--select", "HPA201,HPA403"], RENDER);
    assert_eq!(positions(&report), [(6, 65, "HPA403".to_string())]);
    assert_eq!(report["diagnostics"][0]["message"], "no Deployment other/web among the checked manifests");
    assert!(notes(&report).is_empty());
    let run = hpa_lint(&["--no-config", "-n", "Not_A_Namespace", "-"], RENDER);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--namespace \"Not_A_Namespace\""), "{}", run.stderr);
}

/// When the others name several namespaces, objects that name none are in `default`, as kubectl
/// puts them; the HPA's target exists only in another namespace, so the note says what was
/// assumed.
#[test]
fn several_namespaces_named_leave_the_others_in_default_and_a_note_says_so() {
    let text =
        format!("{RENDER}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: billing\n");
    let report = lint(&[], &text);
    assert_eq!(positions(&report), []);
    assert_eq!(
        notes(&report),
        [
            "<stdin>: objects that name no namespace were taken to be in namespace \"default\", as kubectl does, while the others name billing, shop; pass -n/--namespace to place them"
        ]
    );
}

/// A namespace written on a kind that has none (a ClusterRole) takes no part; and when no link
/// depends on the namespace assumed, nothing is said.
#[test]
fn kinds_without_namespaces_take_no_part() {
    let text = format!(
        "{RENDER}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: web\n  namespace: elsewhere\n"
    );
    let report = lint(&[], &text);
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())]);
    assert_eq!(notes(&report).len(), 1);
    assert!(notes(&report)[0].contains("namespace \"shop\""), "{:?}", notes(&report));
    let written = RENDER.replacen("  name: web\nspec:", "  name: web\n  namespace: shop\nspec:", 1);
    let text = format!("{written}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n");
    let report = lint(&[], &text);
    assert_eq!(positions(&report), [(14, 55, "HPA201".to_string())]);
    assert!(notes(&report).is_empty(), "{:?}", notes(&report));
    // A scale target of a kind without namespaces is named without one.
    let text = written.replacen(
        "{apiVersion: apps/v1, kind: Deployment, name: web}",
        "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: web}",
        1,
    );
    let report = lint(&["--select", "HPA403"], &text);
    assert_eq!(report["diagnostics"][0]["message"], "no ClusterRole web among the checked manifests");
    // ... and found in the set without one, its namespace written or not.
    let text = format!(
        "{}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: prod\n  namespace: shop\n",
        written.replacen(
            "{apiVersion: apps/v1, kind: Deployment, name: web}",
            "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: prod}",
            1
        )
    );
    let report = lint(&["--select", "HPA403"], &text);
    assert!(positions(&report).is_empty(), "{report}");
    let report = lint(&["--select", "HPA403"], &text.replacen("name: prod\n", "name: staging\n", 1));
    assert_eq!(report["diagnostics"][0]["message"], "no ClusterRole prod among the checked manifests");
    // A core-group kind written `core/v1` (kube-apiserver asks a group of every kind but a
    // ReplicationController from 1.34) names no group the controller knows: not looked up.
    let core = written.replacen(
        "{apiVersion: apps/v1, kind: Deployment, name: web}",
        "{apiVersion: core/v1, kind: Namespace, name: staging}",
        1,
    );
    let report = lint(&["--select", "HPA403"], &core);
    assert!(positions(&report).is_empty(), "{report}");
}

/// `cat a.yaml a.yaml | hpa-lint -`: one object, one note; the copy's findings are not
/// repeated and the HPA does not conflict with itself (HPA407).
#[test]
fn a_stream_concatenated_twice_is_one_set_of_objects() {
    let once = lint(&[], RENDER);
    let twice = lint(&[], &format!("{RENDER}---\n{RENDER}"));
    assert_eq!(positions(&twice), positions(&once));
    assert_eq!(twice["summary"]["hpas"], 1);
    assert_eq!(twice["summary"]["objects"], 2);
    assert_eq!(
        notes(&twice)[0],
        "<stdin>: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in documents 1 and 3; Deployment shop/web in documents 2 and 4): each is one object, checked once"
    );
}

/// `cat a.yaml a.yaml a.yaml | hpa-lint -`: the note counts objects, not definitions, and
/// names each once with all its documents; across files, each file with its documents.
#[test]
fn an_object_defined_three_times_is_counted_and_listed_once() {
    let thrice = lint(&[], &format!("{RENDER}---\n{RENDER}---\n{RENDER}"));
    assert_eq!(thrice["summary"]["objects"], 2);
    assert_eq!(
        notes(&thrice)[0],
        "<stdin>: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in documents 1, 3 and 5; Deployment shop/web in documents 2, 4 and 6): each is one object, checked once"
    );
    let changed = RENDER.replacen("maxReplicas: 10", "maxReplicas: 12", 1);
    let report = lint(&[], &format!("{RENDER}---\n{RENDER}---\n{changed}"));
    assert_eq!(
        notes(&report)[0],
        "<stdin>: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in documents 1, 3 and 5, with other content; Deployment shop/web in documents 2, 4 and 6): each is one object, matched with the others by its last definition (what kubectl apply leaves); a definition the same as the one before it is not checked again, the others are"
    );
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    std::fs::write(&a, RENDER).unwrap();
    std::fs::write(&b, format!("{RENDER}---\n{RENDER}")).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", "--scope", "all", &a, &b], "");
    assert_eq!(
        notes(&run.json())[0],
        format!(
            "the inputs: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in {a} (document 1) and {b} (documents 1 and 3); Deployment shop/web in {a} (document 2) and {b} (documents 2 and 4)): each is one object, checked once"
        )
    );
}

/// A later definition with other content is checked too (its own findings), but it is still
/// one object: no HPA conflicts with itself.
#[test]
fn an_object_redefined_differently_is_checked_and_still_one_object() {
    let changed = RENDER.replacen("minReplicas: 2\n  maxReplicas: 10", "minReplicas: 4\n  maxReplicas: 4", 1);
    let report = lint(&["-n", "shop"], &format!("{RENDER}---\n{changed}"));
    let found = positions(&report);
    assert!(!found.iter().any(|(_, _, rule)| rule == "HPA407"), "{found:?}");
    // The second HPA starts on line 40: minReplicas equals maxReplicas (HPA101), and its metric
    // still misses requests of the first Deployment definition (HPA201).
    assert_eq!(
        found,
        [(13, 55, "HPA201".to_string()), (47, 16, "HPA101".to_string()), (52, 55, "HPA201".to_string()),]
    );
    assert_eq!(
        notes(&report),
        [
            "<stdin>: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in documents 1 and 3, with other content; Deployment shop/web in documents 2 and 4): each is one object, matched with the others by its last definition (what kubectl apply leaves); a definition the same as the one before it is not checked again, the others are"
        ]
    );
}

/// The human report shows one finding as one report: the containers are labels of its snippet,
/// not reports of their own.
#[test]
fn related_places_in_the_same_file_are_labels_of_one_report() {
    let run = hpa_lint(&["--no-config", "--color", "never", "--fail-on", "never", "-"], RENDER);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("HPA201 missing-resource-request").count(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("Advice:"), "{}", run.stdout);
    assert_eq!(run.stdout.matches("╰── no cpu request here").count(), 2, "{}", run.stdout);
    assert!(run.stdout.contains("╭─[<stdin>:13:55]"), "{}", run.stdout);
}

/// Related places in another file than the finding's (a kustomize layout: the HPA in
/// `hpa.yaml`, its Deployment in `deployment.yaml`) are labels of one "see also" report per
/// file, not one report each; JSON keeps one related entry per place.
#[test]
fn related_places_in_another_file_are_labels_of_one_report_per_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hpa.yaml"),
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: app\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n    - type: Resource\n      resource:\n        name: cpu\n        target: {type: Utilization, averageUtilization: 80}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("deployment.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n        - name: app\n          image: x\n        - name: side\n          image: x\n",
    )
    .unwrap();
    let root = dir.path().display().to_string();
    let run = hpa_lint(&["--no-config", "--color", "never", &root], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let expected = format!(
        "HPA201 missing-resource-request (https://github.com/hpa-toolkit/hpa-toolkit/blob/main/docs/rules.md#hpa201-missing-resource-request)

  × cpu utilization needs a cpu request in every container, and containers \"app\" and \"side\" of
  │ Deployment default/app have none: the controller will not scale on this metric
  │ (HorizontalPodAutoscaler default/app)
    ╭─[{root}/hpa.yaml:13:57]
 12 │         name: cpu
 13 │         target: {{type: Utilization, averageUtilization: 80}}
    ·                                                         ─┬
    ·                                                          ╰── spec.metrics[0].resource.target.averageUtilization
    ╰────
  help: add resources.requests.cpu to containers \"app\" and \"side\" (a cpu limit alone also sets
        it), or use an AverageValue target

Advice: see also

  ☞ no cpu request here
    ╭─[{root}/deployment.yaml:13:11]
 12 │       containers:
 13 │         - name: app
    ·           ────┬────
    ·               ╰── no cpu request here
 14 │           image: x
 15 │         - name: side
    ·           ─────┬────
    ·                ╰── no cpu request here
 16 │           image: x
    ╰────

1 error, 0 warnings, 0 infos in 1 HorizontalPodAutoscaler (2 objects)
"
    );
    assert_eq!(run.stdout, expected);
    let run = hpa_lint(&["--no-config", "-o", "json", &root], "");
    let related: Vec<(u64, u64)> = run.json()["diagnostics"][0]["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(related, [(13, 11), (15, 11)]);
}

/// An autoscaling/v1 HPA: the path is the field written (its CPU target, or where the absent
/// one would be), in JSON and SARIF, and the help suggests autoscaling/v2 for what v1 cannot
/// express.
#[test]
fn autoscaling_v1_findings_name_the_v1_field() {
    let v1 = RENDER.replacen(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 10\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n      target: {type: Utilization, averageUtilization: 70}\n",
        "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 10\n  targetCPUUtilizationPercentage: 70\n",
        1,
    );
    let report = lint(&[], &v1);
    assert_eq!(positions(&report), [(9, 35, "HPA201".to_string())]);
    let d = &report["diagnostics"][0];
    assert_eq!(d["path"], "spec.targetCPUUtilizationPercentage");
    let help = d["help"].as_str().unwrap();
    assert!(help.contains("write the HPA in autoscaling/v2"), "{help}");
    assert!(!help.contains("or use an AverageValue target"), "{help}");
    // Without a CPU target, kube-apiserver's default metric stands for the absent field.
    let without = v1.replacen("  targetCPUUtilizationPercentage: 70\n", "", 1);
    let report = lint(&[], &without);
    assert_eq!(positions(&report), [(5, 1, "HPA201".to_string())]);
    assert_eq!(report["diagnostics"][0]["path"], "spec.targetCPUUtilizationPercentage");
    let run = hpa_lint(&["--no-config", "-o", "sarif", "--fail-on", "never", "-"], &v1);
    let result = &run.json()["runs"][0]["results"][0];
    assert_eq!(result["locations"][0]["logicalLocations"][1]["name"], "spec.targetCPUUtilizationPercentage");
    assert_eq!(
        result["locations"][0]["logicalLocations"][1]["fullyQualifiedName"],
        "HorizontalPodAutoscaler/shop/web/spec.targetCPUUtilizationPercentage"
    );
    let run = hpa_lint(&["--no-config", "--color", "never", "--fail-on", "never", "-"], &v1);
    assert!(run.stdout.contains("╰── spec.targetCPUUtilizationPercentage"), "{}", run.stdout);
    let run = hpa_lint(&["--no-config", "--color", "never", "--fail-on", "never", "-"], &without);
    assert!(run.stdout.contains("╰── spec.targetCPUUtilizationPercentage is missing here"), "{}", run.stdout);
}

/// Two HPAs on one target: the help merges them into one HPA with several metrics, which an
/// autoscaling/v1 HPA cannot hold (it has one CPU target): for it, the help rewrites it in
/// autoscaling/v2 first.
#[test]
fn conflicting_hpas_help_fits_the_version() {
    let hpa = |version: &str, name: &str| {
        format!(
            "apiVersion: autoscaling/{version}\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 6\n---\n"
        )
    };
    let report = lint(&["--select", "HPA407"], &format!("{}{}", hpa("v1", "a"), hpa("v2", "b")));
    let helps: Vec<&str> = diagnostics(&report).map(|d| d["help"].as_str().unwrap()).collect();
    assert_eq!(helps.len(), 2, "{report}");
    assert!(
        helps[0].starts_with("autoscaling/v1 has only targetCPUUtilizationPercentage: write the HPA in autoscaling/v2"),
        "{}",
        helps[0]
    );
    assert!(helps[0].ends_with("then merge them into one HPA with several metrics"), "{}", helps[0]);
    assert_eq!(helps[1], "merge them into one HPA with several metrics");
}

/// Across files of one set (`--scope all`), an object that names no namespace and one that
/// names the namespace it lands in are one object, the same as kube-apiserver would store it:
/// no HPA conflicts with itself, and the copy's findings are not repeated.
#[test]
fn one_object_across_files_of_a_set() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.yaml");
    let b = dir.path().join("b.yaml");
    std::fs::write(&a, RENDER).unwrap();
    let named = RENDER.replacen("  name: web\nspec:", "  name: web\n  namespace: shop\nspec:", 1);
    std::fs::write(&b, &named).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", "--scope", "all", &a, &b], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())], "{report}");
    assert_eq!(report["diagnostics"][0]["file"], a.as_str());
    assert_eq!(report["summary"]["hpas"], 1);
    assert_eq!(report["summary"]["objects"], 2);
    assert_eq!(
        notes(&report)[0],
        format!(
            "the inputs: 2 objects are defined more than once (HorizontalPodAutoscaler shop/web in {a} (document 1) and {b} (document 1); Deployment shop/web in {a} (document 2) and {b} (document 2)): each is one object, checked once"
        )
    );
    // Another content in the second file: both are checked, each with its own findings.
    let changed = named.replacen("minReplicas: 2\n  maxReplicas: 10", "minReplicas: 4\n  maxReplicas: 4", 1);
    std::fs::write(&b, &changed).unwrap();
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", "--scope", "all", &a, &b], "");
    let report = run.json();
    assert_eq!(
        positions(&report),
        [(13, 55, "HPA201".to_string()), (9, 16, "HPA101".to_string()), (14, 55, "HPA201".to_string())],
        "{report}"
    );
    assert!(
        notes(&report)[0].contains(&format!(
            "HorizontalPodAutoscaler shop/web in {a} (document 1) and {b} (document 1), with other content;"
        )),
        "{report}"
    );
}

/// An object defined twice with other content is stored as its last definition (`kubectl
/// apply` applies the documents in order; Helm too): the cross-object rules see that one, in
/// either order, and point at it.
#[test]
fn the_last_definition_is_the_one_matched() {
    let requested =
        RENDER.replacen("        resources: {}\n", "        resources: {requests: {cpu: 100m}}\n", 1).replacen(
            "          limits: {memory: 128Mi}\n",
            "          limits: {memory: 128Mi}\n          requests: {cpu: 10m}\n",
            1,
        );
    let deployment = |text: &str| format!("---\n{}", text.split_once("---\n").unwrap().1);
    // Without then with the requests: the Deployment applied has them.
    let report = lint(&[], &format!("{RENDER}{}", deployment(&requested)));
    assert!(positions(&report).is_empty(), "{report}");
    assert_eq!(
        notes(&report)[..1],
        [
            "<stdin>: Deployment shop/web is defined more than once (in documents 2 and 3, with other content): each is one object, matched with the others by its last definition (what kubectl apply leaves); every definition is checked"
        ]
    );
    // With then without: it has none, and the related places are in the last definition
    // (document 3, lines 41-65: containers `app` on line 54 and `proxy` on line 61).
    let report = lint(&[], &format!("{requested}{}", deployment(RENDER)));
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())], "{report}");
    let related: Vec<u64> =
        report["diagnostics"][0]["related"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(related, [54, 61], "{report}");
    // A, B, A: the last is A again (compared with the one before it, not the first).
    let report = lint(&[], &format!("{RENDER}{}{}", deployment(&requested), deployment(RENDER)));
    assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())], "{report}");
}

/// One path named twice (`hpa-lint a.yaml ./a.yaml`, or a file and its directory) is read
/// once: no finding twice, no note about a directory.
#[test]
fn a_file_named_twice_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.yaml");
    std::fs::write(&a, RENDER).unwrap();
    let once = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", &a.display().to_string()], "").json();
    let again = dir.path().join(".").join("a.yaml").display().to_string();
    let root = dir.path().display().to_string();
    for args in [
        [a.display().to_string(), a.display().to_string()],
        [a.display().to_string(), again],
        [root, a.display().to_string()],
    ] {
        let mut all = vec!["--no-config", "-o", "json", "--fail-on", "never"];
        all.extend(args.iter().map(String::as_str));
        let run = hpa_lint(&all, "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report = run.json();
        assert_eq!(positions(&report), positions(&once), "{args:?}: {report}");
        assert_eq!(report["summary"], once["summary"], "{args:?}");
        assert_eq!(notes(&report), notes(&once), "{args:?}");
    }
}

/// Two files beside each other that define one object are alternatives: the note names them,
/// and no directory when the files were named one by one.
#[test]
fn two_files_defining_one_object_are_checked_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    std::fs::write(&a, RENDER).unwrap();
    std::fs::write(&b, RENDER.replacen("averageUtilization: 70", "averageUtilization: 80", 1)).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", &a, &b], "");
    let report = run.json();
    assert_eq!(
        notes(&report)[..1],
        [format!(
            "HorizontalPodAutoscaler shop/web is defined in both {a} and {b}, so they and the files beside them are not one set of objects applied together: each file is checked with its own objects only (use --scope all to match across them)"
        )]
    );
    assert_eq!(report["summary"]["hpas"], 2);
}

/// With `-n shop`, or without it, an HPA that names no namespace and its copy that names the
/// one it lands in are one object, in one stream: one finding, one note.
#[test]
fn a_copy_naming_the_resolved_namespace_is_the_same_object() {
    let named = RENDER.replacen("  name: web\nspec:", "  name: web\n  namespace: shop\nspec:", 1);
    let hpa = |text: &str| text.split_once("---\n").unwrap().0.to_string();
    for args in [&[][..], &["-n", "shop"][..]] {
        let report = lint(args, &format!("{RENDER}---\n{}", hpa(&named)));
        assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())], "{args:?}: {report}");
        assert_eq!(report["summary"]["hpas"], 1);
        assert_eq!(
            notes(&report)[0],
            "<stdin>: HorizontalPodAutoscaler shop/web is defined more than once (in documents 1 and 3): each is one object, checked once"
        );
    }
}

/// A clean result owes itself to the namespace assumed as much as a finding does: the HPA and
/// its Deployment name no namespace, and an object of `prod` that a cross-object rule reads
/// for them (a LimitRange that gives the cpu request, HPA201; a PodDisruptionBudget that
/// selects the pods, HPA104; a VPA on the target, HPA408; the workload a Rollout's
/// `workloadRef` names) decides it: the note says what was assumed. An object of `prod` no
/// rule reads for them (a PDB of other pods, a VPA of another target) says nothing.
#[test]
fn a_clean_result_that_depended_on_the_assumed_namespace_gets_the_note() {
    const SET: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: prod}
spec:
  limits: [{type: Container, defaultRequest: {cpu: 10m}}]
";
    let noted = |text: &str| {
        let report = lint(&[], text);
        assert_eq!(positions(&report), [], "{text}");
        notes(&report).iter().any(|n| n.contains("taken to be in namespace \"prod\""))
    };
    assert!(noted(SET), "the LimitRange decided HPA201");
    let with = |more: &str| format!("{SET}---\n{more}");
    let requested = SET.replacen("image: nginx}", "image: nginx, resources: {requests: {cpu: 100m}}}", 1);
    let without_lr = requested.split("---\napiVersion: v1\nkind: LimitRange").next().unwrap_or_default().to_string();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: prod}\n";
    let pdb = |app: &str| {
        format!(
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: p, namespace: prod}}\nspec:\n  maxUnavailable: 1\n  selector: {{matchLabels: {{app: {app}}}}}\n"
        )
    };
    let vpa = |target: &str| {
        format!(
            "apiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: v, namespace: prod}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: {target}}}\n  updatePolicy: {{updateMode: \"Off\"}}\n"
        )
    };
    assert!(!noted(&format!("{without_lr}---\n{cm}")), "a ConfigMap no rule reads");
    assert!(noted(&format!("{without_lr}---\n{cm}---\n{}", pdb("web"))), "a PDB selecting the pods");
    assert!(!noted(&format!("{without_lr}---\n{cm}---\n{}", pdb("other"))), "a PDB of other pods");
    assert!(noted(&format!("{without_lr}---\n{cm}---\n{}", vpa("web"))), "a VPA on the target");
    assert!(!noted(&format!("{without_lr}---\n{cm}---\n{}", vpa("other"))), "a VPA on another target");
    assert!(noted(&with(cm)));
}

/// A LimitRange kube-apiserver refuses (`ValidateLimitRange` on its defaulted items: here a
/// `defaultRequest` above the `max`, and so above the `default` taken from it) is never stored,
/// so LimitRanger gives no container its default: HPA201 concludes the request missing, and says
/// which LimitRange would have given it and why kube-apiserver rejects it, in its words (a
/// quantity printed as the release prints it), pointing at the refused field.
#[test]
fn a_limit_range_kube_apiserver_refuses_gives_no_request() {
    let set = |limits: &str| {
        format!(
            "{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: v1\nkind: LimitRange\nmetadata: {{name: lr, namespace: shop}}\nspec:\n  limits:\n  - type: Container\n{limits}",
            WEB_DEPLOYMENT.replace("  REPLICAS\n", "")
        )
    };
    let refused = set("    defaultRequest: {cpu: 100m}\n    max: {cpu: 50m}\n");
    let message = |value: &str| {
        format!(
            "cpu utilization needs a cpu request in every container, and container \"app\" of Deployment shop/web has none: the controller will not scale on this metric; LimitRange shop/lr, whose default would give the request, is rejected by kube-apiserver (LimitRange \"lr\" is invalid: [spec.limits[0].defaultRequest[cpu]: Invalid value: {value}: default request value 100m is greater than max value 50m, spec.limits[0].defaultRequest[cpu]: Invalid value: {value}: default request value 100m is greater than default limit value 50m]), so LimitRanger gives nothing"
        )
    };
    let report = lint(&["--select", "HPA201", "--kubernetes-version", "1.37"], &refused);
    assert_eq!(
        said(&report, "HPA201"),
        [(
            "spec.metrics[0].resource.target.averageUtilization".to_string(),
            message("\"100m\""),
            "add resources.requests.cpu to container \"app\" (a cpu limit alone also sets it), or use an AverageValue target; or correct LimitRange shop/lr so that kube-apiserver accepts it".to_string()
        )]
    );
    let related = related_of(&report);
    assert_eq!(related, [(32, 27, "rejected by kube-apiserver"), (12, 9, "no cpu request here")], "{report}");
    let report = lint(&["--select", "HPA201", "--kubernetes-version", "1.33"], &refused);
    assert_eq!(
        said(&report, "HPA201")[0].1,
        message(
            "resource.Quantity{i:resource.int64Amount{value:100, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"100m\", Format:\"DecimalSI\"}"
        )
    );
    // Written in a form `ParseQuantity` does not keep (`0.1`, not canonical): `s` still holds
    // `100m`, because the detail's `defaultRequestQuantity.String()` caches it before Go copies
    // the quantity into the error's `interface{}` (gc hoists the call arguments first; Go 1.21
    // and later, and 1.33 is built with Go 1.24; Go 1.19 copied it first and printed `s:""`).
    let uncanonical = set("    defaultRequest: {cpu: \"0.1\"}\n    max: {cpu: 50m}\n");
    let report = lint(&["--select", "HPA201", "--kubernetes-version", "1.33"], &uncanonical);
    assert_eq!(
        said(&report, "HPA201")[0].1,
        message(
            "resource.Quantity{i:resource.int64Amount{value:1, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"100m\", Format:\"DecimalSI\"}"
        )
    );
    // A quantity that does not parse, of another resource: kube-apiserver cannot decode the
    // LimitRange, so its cpu default is given to no container either.
    let undecodable = lint(&["--select", "HPA201"], &set("    defaultRequest: {cpu: 100m, memory: abc}\n"));
    assert_eq!(
        said(&undecodable, "HPA201")[0].1,
        "cpu utilization needs a cpu request in every container, and container \"app\" of Deployment shop/web has none: the controller will not scale on this metric; LimitRange shop/lr, whose default would give the request, is rejected by kube-apiserver (LimitRange in version \"v1\" cannot be handled as a LimitRange: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), so LimitRanger gives nothing"
    );
    assert_eq!(undecodable["diagnostics"][0]["related"][0]["line"], 32, "{undecodable}");
    assert_eq!(undecodable["diagnostics"][0]["related"][0]["column"], 41, "{undecodable}");
    // Accepted, its default gives the request: nothing.
    let accepted = lint(&["--select", "HPA201"], &set("    defaultRequest: {cpu: 100m}\n    max: {cpu: 500m}\n"));
    assert_eq!(said(&accepted, "HPA201"), []);
}

/// Two definitions of one object in a file are compared as kube-apiserver would store them:
/// whole (a ClusterRole's `rules`, which the first pass does not keep, count), and with the
/// namespace each lands in (one that writes `prod` and one that takes it from the set are the
/// same object).
#[test]
fn repeats_are_compared_whole_and_with_their_namespace() {
    let note = |text: &str| {
        let report = lint(&[], text);
        notes(&report).into_iter().find(|n| n.contains("defined more than once")).unwrap_or_default()
    };
    let hpa = |ns: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web{ns}}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 5\n"
        )
    };
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: prod}\n";
    let text = format!("{}---\n{}---\n{cm}", hpa(", namespace: prod"), hpa(""));
    let n = note(&text);
    assert!(n.contains("HorizontalPodAutoscaler prod/web is defined more than once (in documents 1 and 2)"), "{n}");
    let text = format!("{}---\n{}---\n{cm}", hpa(", namespace: prod"), hpa(", labels: {a: b}"));
    assert!(note(&text).contains("(in documents 1 and 2, with other content)"), "{}", note(&text));
    let role = |verb: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: x}}\nrules: [{{apiGroups: [\"\"], resources: [pods], verbs: [{verb}]}}]\n"
        )
    };
    let text = format!("{}---\n{}---\n{}", role("get"), role("list"), hpa(""));
    let n = note(&text);
    assert!(n.contains("ClusterRole x is defined more than once (in documents 1 and 2, with other content)"), "{n}");
    let text = format!("{}---\n{}---\n{}", role("get"), role("get"), hpa(""));
    assert!(note(&text).contains("(in documents 1 and 2): each is one object, checked once"), "{}", note(&text));
}

/// HPA407 names an HPA without a name in words, counts each HPA written with generateName as
/// one of its own (`kubectl create` makes one per object), and leaves out an HPA kube-apiserver
/// rejects (HPA000): it is never stored.
#[test]
fn nameless_hpas_in_conflicts() {
    let hpa = |metadata: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{{metadata}}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 10\n"
        )
    };
    let messages = |text: &str| -> Vec<(u64, String)> {
        let report = lint(&["--select", "HPA407,HPA000"], text);
        diagnostics(&report)
            .map(|d| {
                (
                    d["line"].as_u64().unwrap(),
                    format!("{} {}", d["rule"].as_str().unwrap(), d["message"].as_str().unwrap()),
                )
            })
            .collect()
    };
    const AMBIGUOUS: &str = ": the controller refuses to scale pods of several HPAs (AmbiguousSelector)";
    let text = format!("{}---\n{}", hpa("generateName: web-"), hpa("name: web"));
    assert_eq!(
        messages(&text),
        [
            (5, format!("HPA407 Deployment default/web is also scaled by web{AMBIGUOUS}")),
            (13, format!("HPA407 Deployment default/web is also scaled by an HPA with generateName web-{AMBIGUOUS}")),
        ]
    );
    let report = lint(&[], &text);
    assert_eq!(report["diagnostics"][0]["object"]["name"], "", "the name as written");
    let text = format!("{}---\n{}", hpa("generateName: web-"), hpa("generateName: web-"));
    let found = messages(&text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|(_, m)| m.contains("also scaled by an HPA with generateName web-:")), "{found:?}");
    let text = format!("{}---\n{}", hpa("name: \"\""), hpa("name: web"));
    assert_eq!(
        messages(&text),
        [(3, "HPA000 metadata.name: Required value: name or generateName is required".to_string())]
    );
}

/// A request written but not decodable is not "none": kube-apiserver rejects the Deployment,
/// in its decoding's words; `null` decodes as 0.
#[test]
fn undecodable_requests_say_what_kube_apiserver_does() {
    let with =
        |resources: &str| RENDER.replacen("        resources: {}\n", &format!("        resources: {resources}\n"), 1);
    let message = |text: &str| {
        let report = lint(&[], text);
        assert_eq!(positions(&report), [(13, 55, "HPA201".to_string())], "{report}");
        let d = &report["diagnostics"][0];
        let related: Vec<u64> = d["related"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
        (d["message"].as_str().unwrap().to_string(), related)
    };
    let (m, related) = message(&with("{requests: {cpu: abc}}"));
    assert_eq!(
        m,
        "the resources of container \"app\" of Deployment shop/web do not decode: kube-apiserver rejects the Deployment (Deployment in version \"v1\" cannot be handled as a Deployment: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), so there are no pods to scale and no request to measure utilization against"
    );
    assert_eq!(related, [30], "at the container's resources");
    let (m, _) = message(&with("[]"));
    assert!(
        m.contains("(Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal array into Go struct field Container.spec.template.spec.containers.resources of type v1.ResourceRequirements)"),
        "{m}"
    );
    let (m, _) = message(&with("{requests: []}"));
    assert!(m.contains("json: cannot unmarshal array into Go struct field ResourceRequirements.spec.template.spec.containers.resources.requests of type v1.ResourceList"), "{m}");
    // `null` is a request of 0 for `app`; `proxy` still has none.
    let (m, _) = message(&with("{requests: {cpu: null}}"));
    assert!(m.contains("container \"proxy\" of Deployment shop/web has none"), "{m}");
}

/// `-n other` with an object that names `shop`: no error (Helm, which `helm template | hpa-lint
/// -n NS -` stands for, fills only empty namespaces, and kube-apiserver admits it); the object
/// stays in `shop`, the HPA that names none lands in `other` and does not find it there.
#[test]
fn the_namespace_flag_leaves_objects_naming_another_one_in_it() {
    let found = |args: &[&str], text: &str| -> Vec<(String, String)> {
        let report = lint(args, text);
        diagnostics(&report)
            .map(|d| (d["rule"].as_str().unwrap().to_string(), d["object"]["namespace"].as_str().unwrap().to_string()))
            .collect()
    };
    let hpa403 = [("HPA403".to_string(), "other".to_string())];
    assert_eq!(found(&["-n", "other", "--select", "HPA000,HPA201,HPA403"], RENDER), hpa403);
    // The HPA named into `shop` finds its Deployment there, with -n other as with -n shop.
    let named = RENDER.replacen("  name: web\nspec:", "  name: web\n  namespace: shop\nspec:", 1);
    for n in ["other", "shop"] {
        let rules = found(&["-n", n, "--select", "HPA000,HPA201,HPA403"], &named);
        assert_eq!(rules, [("HPA201".to_string(), "shop".to_string())], "-n {n}");
    }
}

/// kubectl's decoding of `metadata` names a Go field without keys: the JSON path names the
/// field written (`metadata.annotations.a`, a dotted key in brackets).
#[test]
fn metadata_decode_errors_have_the_field_path() {
    let path = |metadata: &str| {
        let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {metadata}\n");
        let report = lint(&[], &text);
        assert_eq!(report["diagnostics"].as_array().unwrap().len(), 1, "{report}");
        let d = &report["diagnostics"][0];
        (d["path"].as_str().unwrap().to_string(), d["column"].as_u64().unwrap())
    };
    assert_eq!(path("{name: c, annotations: {a: 1}}"), ("metadata.annotations.a".to_string(), 38));
    assert_eq!(
        path("{name: c, labels: {app.kubernetes.io/name: true}}"),
        ("metadata.labels[app.kubernetes.io/name]".to_string(), 54)
    );
    assert_eq!(path("{name: c, creationTimestamp: 5}"), ("metadata.creationTimestamp".to_string(), 40));
    assert_eq!(path("{name: c, finalizers: [a, 1]}"), ("metadata.finalizers[1]".to_string(), 37));
}

/// The diagnostics of `rule` as (path, message, help).
fn said(report: &Value, rule: &str) -> Vec<(String, String, String)> {
    diagnostics(report)
        .filter(|d| d["rule"] == rule)
        .map(|d| {
            let text = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (text("path"), text("message"), text("help"))
        })
        .collect()
}

/// (line, column, rule, message) of every diagnostic.
fn placed_messages(report: &Value) -> Vec<(u64, u64, String, String)> {
    diagnostics(report)
        .map(|d| {
            let text = |k: &str| d[k].as_str().unwrap().to_string();
            (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap(), text("rule"), text("message"))
        })
        .collect()
}

/// (line, column) of the first related location of the first diagnostic.
fn first_related_at(report: &Value) -> (u64, u64) {
    let related = &report["diagnostics"][0]["related"][0];
    (related["line"].as_u64().unwrap(), related["column"].as_u64().unwrap())
}

const WEB_DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: ghcr.io/example/web:1.4.2
        resources: {}
";

/// HPA410 on `replicas: 0` says that the controller disables the HPA (`ScalingDisabled`);
/// other counts are only reset.
#[test]
fn replicas_zero_says_the_controller_disables_the_hpa() {
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", "replicas: 0") + hpa));
    assert_eq!(
        said(&report, "HPA410"),
        [(
            "spec.replicas".to_string(),
            "Deployment shop/web sets spec.replicas: 0 while HorizontalPodAutoscaler shop/web scales it: every apply scales it to 0, and the controller then disables the HPA (ScalingDisabled: \"scaling is disabled since the replica count of the target is zero\") until something scales the workload up".to_string(),
            "remove spec.replicas from the workload; the HPA owns it".to_string()
        )]
    );
    // A quoted count: kube-apiserver refuses the Deployment, in its words (an error).
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", "replicas: \"3\"") + hpa));
    assert_eq!(
        said(&report, "HPA410")[0].1,
        "kube-apiserver rejects Deployment shop/web (Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32), so there is nothing to scale"
    );
    assert_eq!(report["diagnostics"][0]["severity"], "error");
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", "replicas: 3") + hpa));
    assert_eq!(
        said(&report, "HPA410")[0].1,
        "Deployment shop/web sets spec.replicas: 3 while HorizontalPodAutoscaler shop/web scales it: every apply resets the count"
    );
}

/// HPA410 on a custom resource whose CustomResourceDefinition is in the set reads the count
/// where the CRD's scale subresource puts it: with `specReplicasPath: .spec.size`, the
/// resource's `spec.replicas` is no count the HPA sets, and a kind without the subresource is
/// not scaled at all; with `.spec.replicas` (or no CRD in the set) the field is reported.
#[test]
fn a_custom_resource_sets_replicas_where_its_crd_says() {
    let crd = |scale: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: workers.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Worker, plural: workers}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n{scale}---\n"
        )
    };
    let objects = "apiVersion: example.com/v1\nkind: Worker\nmetadata: {name: w, namespace: shop}\nspec:\n  size: 3\n  replicas: 2\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: example.com/v1, kind: Worker, name: w}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let scale = |path: &str| {
        format!(
            "    subresources:\n      scale: {{specReplicasPath: {path}, statusReplicasPath: .status.size, labelSelectorPath: .status.selector}}\n"
        )
    };
    let reported = "Worker shop/w sets spec.replicas: 2 while HorizontalPodAutoscaler shop/w scales it: every apply resets the count";
    for (crd, expected) in
        [(crd(&scale(".spec.replicas")), Some((21, 13))), (crd(""), None), (String::new(), Some((6, 13)))]
    {
        let report = lint(&["--select", "HPA410"], &(crd.clone() + objects));
        let found: Vec<(u64, u64, String)> =
            positions(&report).into_iter().filter(|(_, _, rule)| rule == "HPA410").collect();
        match expected {
            None => assert!(found.is_empty(), "{crd}: {report}"),
            Some((line, column)) => {
                assert_eq!(found, [(line, column, "HPA410".to_string())], "{crd}");
                assert_eq!(said(&report, "HPA410")[0].1, reported);
            }
        }
    }
}

/// HPA412 on a custom resource whose CustomResourceDefinition is in the set: no scale
/// subresource (`FailedGetScale`), or one without `labelSelectorPath` (`InvalidSelector`), on
/// the HPA's `scaleTargetRef.kind` with the CRD's version as related location; nothing when
/// the served versions differ (the controller's version is the cluster's discovery's choice),
/// when a version that lacks it is not served, or without the CRD.
#[test]
fn a_custom_resource_the_controller_cannot_scale() {
    let crd = |versions: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: workers.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Worker, plural: workers}}\n  scope: Namespaced\n  versions:\n{versions}---\n"
        )
    };
    let version = |name: &str, served: bool, scale: &str| {
        format!("  - name: {name}\n    served: {served}\n    storage: {served}\n{scale}")
    };
    let no_selector =
        "    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}\n";
    let selector = "    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}}\n";
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: example.com/v1, kind: Worker, name: w}\n  maxReplicas: 5\n  metrics:\n  - type: External\n    external: {metric: {name: q}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let run = |input: String| {
        let report = lint(&[], &input);
        let found: Vec<Value> =
            report["diagnostics"].as_array().unwrap().iter().filter(|d| d["rule"] == "HPA412").cloned().collect();
        assert!(notes(&report).is_empty(), "{report}");
        found
    };
    let found = run(crd(&version("v1", true, "")) + hpa);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (&found[0]["line"], &found[0]["column"], &found[0]["path"]),
        (&json!(17), &json!(54), &json!("spec.scaleTargetRef.kind"))
    );
    assert_eq!(
        found[0]["message"],
        "CustomResourceDefinition workers.example.com gives Worker no scale subresource: the controller cannot read the target's scale and never scales it (AbleToScale False, FailedGetScale)"
    );
    assert_eq!(
        found[0]["related"],
        json!([{"file": "<stdin>", "line": 9, "column": 5, "message": "no scale subresource"}])
    );
    let found = run(crd(&(version("v1beta1", false, "") + &version("v1", true, no_selector))) + hpa);
    assert_eq!(
        found[0]["message"],
        "CustomResourceDefinition workers.example.com gives Worker a scale subresource without labelSelectorPath, so the scale has no selector: the controller never scales it (ScalingActive False, InvalidSelector: \"the HPA target's scale is missing a selector\")"
    );
    assert_eq!(
        found[0]["related"],
        json!([{"file": "<stdin>", "line": 15, "column": 20, "message": "no labelSelectorPath"}])
    );
    for quiet in [
        crd(&version("v1", true, selector)),
        crd(&(version("v1beta1", false, "") + &version("v1", true, selector))),
        crd(&(version("v1beta1", true, "") + &version("v1", true, selector))),
        String::new(),
    ] {
        assert_eq!(run(quiet.clone() + hpa), Vec::<Value>::new(), "{quiet}");
    }
}

/// HPA201 on the cpu metric kube-apiserver adds when none is written says so, points at
/// `spec.metrics` (at `spec` when it is not written; `spec.targetCPUUtilizationPercentage` in
/// autoscaling/v1) and suggests no
/// target nobody wrote.
#[test]
fn the_default_cpu_metric_is_named_as_such() {
    let workload = WEB_DEPLOYMENT.replace("REPLICAS", "minReadySeconds: 0");
    let v2 = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n";
    let report = lint(&["--select", "HPA201"], &(workload.clone() + v2));
    let message = "the default cpu metric (80% utilization, which kube-apiserver adds when spec.metrics is empty) needs a cpu request in every container, and container \"app\" of Deployment shop/web has none: the controller will not scale on this metric";
    let help = "add resources.requests.cpu to container \"app\" (a cpu limit alone also sets it), or write metrics of your own in spec.metrics (an AverageValue target needs no request)";
    assert_eq!(said(&report, "HPA201"), [("spec.metrics".to_string(), message.to_string(), help.to_string())]);
    // Where it points: `spec` (after the Deployment's 15 lines, `---` and 3 lines), or the
    // empty `metrics` written.
    assert_eq!(positions(&report), [(20, 1, "HPA201".to_string())]);
    let report = lint(&["--select", "HPA201"], &(workload.clone() + v2 + "  metrics: []\n"));
    assert_eq!(positions(&report), [(23, 3, "HPA201".to_string())]);
    let v1 = v2.replace("autoscaling/v2", "autoscaling/v1");
    let report = lint(&["--select", "HPA201"], &(workload + &v1));
    let found = said(&report, "HPA201");
    // The field not written, shown missing at `spec`.
    assert_eq!(found[0].0, "spec.targetCPUUtilizationPercentage");
    assert_eq!(positions(&report), [(20, 1, "HPA201".to_string())]);
    assert!(found[0].1.starts_with("the default cpu metric (80% utilization, which kube-apiserver adds to an HPA without spec.targetCPUUtilizationPercentage) needs"), "{}", found[0].1);
    assert!(
        found[0].2.ends_with(
            "or write the HPA in autoscaling/v2 with metrics of your own (an AverageValue target needs no request)"
        ),
        "{}",
        found[0].2
    );
}

/// HPA104's help for a budget that blocks at every count (`maxUnavailable: 0`,
/// `minAvailable: 100%`) says only changing it helps; for a count, raising minReplicas helps.
#[test]
fn a_budget_that_blocks_at_every_count_is_not_fixed_by_more_replicas() {
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let help = |budget: &str| {
        let pdb = format!(
            "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: web, namespace: shop}}\nspec:\n  {budget}\n  selector:\n    matchLabels: {{app: web}}\n"
        );
        let report =
            lint(&["--select", "HPA104"], &(WEB_DEPLOYMENT.replace("REPLICAS", "minReadySeconds: 0") + hpa + &pdb));
        said(&report, "HPA104").into_iter().map(|(_, _, help)| help).collect::<Vec<_>>()
    };
    let never = "web allows no eviction at any replica count, so no minReplicas helps: change the budget (maxUnavailable: 1, or a minAvailable below 100%)";
    assert_eq!(help("maxUnavailable: 0"), [never]);
    assert_eq!(help("maxUnavailable: 0%"), [never]);
    assert_eq!(help("minAvailable: 100%"), [never]);
    assert_eq!(help("minAvailable: 3"), ["raise spec.minReplicas above what web requires, or use maxUnavailable: 1"]);
    assert_eq!(help("minAvailable: 90%"), ["raise spec.minReplicas above what web requires, or use maxUnavailable: 1"]);
}

/// HPA201 reads the requests of every pod the target's selector selects: the `helm create`
/// scaffold's test Pod (the selector's labels, no request) is named, at its container.
#[test]
fn a_selected_test_pod_without_requests_is_named() {
    let test_pod = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-test-connection\n  namespace: shop\n  labels: {app: web, helm.sh/chart: web-0.1.0}\nspec:\n  containers:\n  - name: wget\n    image: busybox\n  restartPolicy: Never\n";
    let deployment = WEB_DEPLOYMENT
        .replace("REPLICAS", "minReadySeconds: 0")
        .replace("resources: {}", "resources: {requests: {cpu: 100m}}");
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}\n";
    let report = lint(&["--select", "HPA201"], &(deployment.clone() + hpa + test_pod));
    assert_eq!(
        said(&report, "HPA201"),
        [(
            "spec.metrics[0].resource.target.averageUtilization".to_string(),
            "cpu utilization is measured against the requests of every pod the selector of Deployment shop/web (app=web) selects, and it selects the pods of Pod shop/web-test-connection, whose container \"wget\" has no cpu request: the controller will not scale on this metric while one runs or is kept".to_string(),
            "give container \"wget\" of Pod shop/web-test-connection a cpu request, or give its pods labels the selector of Deployment shop/web does not match".to_string()
        )]
    );
    assert_eq!(first_related_at(&report), (35, 5), "{report}");
    // Without the selector's labels it is not selected.
    let other = test_pod.replace("app: web,", "app: web-test,");
    assert_eq!(said(&lint(&["--select", "HPA201"], &(deployment + hpa + &other)), "HPA201"), []);
}

/// HPA410 on a custom resource whose CRD's scale subresource says `specReplicasPath:
/// .spec.size` reports `spec.size`, the field the controller writes through `/scale`, at its
/// position; nothing when the resource does not write it.
#[test]
fn a_custom_resource_sets_the_field_its_crd_names() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: workers.example.com}\nspec:\n  group: example.com\n  names: {kind: Worker, plural: workers}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n    subresources:\n      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size, labelSelectorPath: .status.selector}\n---\n";
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: example.com/v1, kind: Worker, name: w}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let worker = |spec: &str| {
        format!("apiVersion: example.com/v1\nkind: Worker\nmetadata: {{name: w, namespace: shop}}\nspec:\n{spec}")
    };
    let run = |spec: &str| {
        let report = lint(&["--select", "HPA410"], &format!("{crd}{}{hpa}", worker(spec)));
        let found: Vec<(u64, u64, String)> =
            positions(&report).into_iter().filter(|(_, _, rule)| rule == "HPA410").collect();
        (found, report)
    };
    let (found, report) = run("  replicas: 2\n  size: 3\n");
    assert_eq!(found, [(21, 9, "HPA410".to_string())]);
    assert_eq!(
        said(&report, "HPA410")[0].1,
        "Worker shop/w sets spec.size: 3 while HorizontalPodAutoscaler shop/w scales it: every apply resets the count"
    );
    // The CRD after the resource: the same.
    let after = lint(
        &["--select", "HPA410"],
        &format!("{}---\n{crd}{}", worker("  size: 3\n"), hpa.trim_start_matches("---\n")),
    );
    let at: Vec<(u64, u64, String)> = positions(&after).into_iter().filter(|(_, _, rule)| rule == "HPA410").collect();
    assert_eq!(at, [(5, 9, "HPA410".to_string())]);
    assert!(run("  replicas: 2\n").0.is_empty());
}

/// A `specReplicasPath` of any depth (`.spec.a.b.c.replicas`, as a CRD may name it) is found,
/// at its position, and only outside the pod template.
#[test]
fn a_custom_resource_count_deep_under_spec_is_found() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: workers.example.com}\nspec:\n  group: example.com\n  names: {kind: Worker, plural: workers}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n    subresources:\n      scale: {specReplicasPath: .spec.a.b.c.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}\n---\n";
    let worker = "apiVersion: example.com/v1\nkind: Worker\nmetadata: {name: w, namespace: shop}\nspec:\n  replicas: 2\n  a:\n    b:\n      c:\n        replicas: 4\n  template:\n    spec:\n      containers: [{name: app, image: x}]\n";
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: w, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: example.com/v1, kind: Worker, name: w}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let report = lint(&["--select", "HPA410"], &format!("{crd}{worker}{hpa}"));
    let found: Vec<(u64, u64, String)> =
        positions(&report).into_iter().filter(|(_, _, rule)| rule == "HPA410").collect();
    assert_eq!(found, [(24, 19, "HPA410".to_string())]);
    assert_eq!(
        said(&report, "HPA410")[0].1,
        "Worker shop/w sets spec.a.b.c.replicas: 4 while HorizontalPodAutoscaler shop/w scales it: every apply resets the count"
    );
    // A path into the pod template is no count: nothing.
    let into_template = crd.replace(".spec.a.b.c.replicas", ".spec.template.spec.replicas");
    let quiet = lint(
        &["--select", "HPA410"],
        &format!("{into_template}{}{hpa}", worker.replace("containers:", "replicas: 3\n      containers:")),
    );
    assert!(said(&quiet, "HPA410").is_empty(), "{quiet}");
}

/// Two HPAs name Deployment `web`, one in a group that does not serve it: the controller maps
/// the target by group and kind, so that HPA finds nothing (`FailedGetScale`, HPA405), never
/// reads a selector, and conflicts with no other. The version is no part of the target
/// (`apps/v1beta2` names the same Deployment), and a kind in another case names none (HPA404)
/// but for all lowercase, which the RESTMapper maps to the kind.
#[test]
fn an_hpa_whose_target_cannot_be_mapped_conflicts_with_none() {
    let hpa = |name: &str, api_version: &str, kind: &str| {
        format!(
            "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: {api_version}, kind: {kind}, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: rps}}, target: {{type: AverageValue, averageValue: \"10\"}}}}\n"
        )
    };
    let deployment = WEB_DEPLOYMENT.replace("  REPLICAS\n", "");
    let run = |second: &str| {
        let report = lint(&[], &format!("{deployment}{}{second}", hpa("a", "apps/v1", "Deployment")));
        placed_messages(&report)
    };
    assert_eq!(
        run(&hpa("b", "extensions/v1beta1", "Deployment")),
        [(
            30,
            32,
            "HPA405".to_string(),
            "Deployment is not served in group \"extensions\" (extensions/v1beta1): the controller cannot find the target"
                .to_string()
        )]
    );
    assert_eq!(
        run(&hpa("b", "apps/v1", "DEPLOYMENT")),
        [(
            30,
            47,
            "HPA404".to_string(),
            "kinds are case-sensitive: \"DEPLOYMENT\" matches no resource, the controller cannot find the target"
                .to_string()
        )]
    );
    // All lowercase, the RESTMapper maps it to the Deployment: the two HPAs conflict.
    let rules: Vec<String> = run(&hpa("b", "apps/v1", "deployment")).into_iter().map(|(_, _, id, _)| id).collect();
    assert_eq!(rules, ["HPA407", "HPA407", "HPA404"]);
    // The right group in a version it no longer serves: the same Deployment, two HPAs.
    let both = run(&hpa("b", "apps/v1beta2", "Deployment"));
    assert_eq!(
        both,
        [
            (
                20,
                3,
                "HPA407".to_string(),
                "Deployment shop/web is also scaled by b: the controller refuses to scale pods of several HPAs (AmbiguousSelector)"
                    .to_string()
            ),
            (
                30,
                3,
                "HPA407".to_string(),
                "Deployment shop/web is also scaled by a: the controller refuses to scale pods of several HPAs (AmbiguousSelector)"
                    .to_string()
            ),
        ]
    );
}

/// HPA410 on a count kube-apiserver does not take: a number that is no `int32` (a fraction, one
/// past 2147483647), in Go's decoder's words with the number as kubectl sends it, and a
/// negative one, in validation's words; each an error, on the count.
#[test]
fn replicas_kube_apiserver_refuses_are_errors_in_its_words() {
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let run = |replicas: &str| {
        let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", replicas) + hpa));
        assert_eq!(positions(&report), [(5, 13, "HPA410".to_string())], "{report}");
        assert_eq!(report["diagnostics"][0]["severity"], "error");
        said(&report, "HPA410").remove(0)
    };
    let undecodable = |number: &str| {
        format!(
            "kube-apiserver rejects Deployment shop/web (Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number {number} into Go struct field DeploymentSpec.spec.replicas of type int32), so there is nothing to scale"
        )
    };
    let help = "remove spec.replicas from the workload (the HPA owns it), or write it as an integer up to 2147483647";
    assert_eq!(run("replicas: 1.5"), ("spec.replicas".to_string(), undecodable("1.5"), help.to_string()));
    // YAML reads `1.50` and `1e30` as floats; kubectl sends them as Go writes floats.
    assert_eq!(run("replicas: 1.50").1, undecodable("1.5"));
    assert_eq!(run("replicas: 1e30").1, undecodable("1e+30"));
    assert_eq!(run("replicas: 2147483648").1, undecodable("2147483648"));
    assert_eq!(
        run("replicas: -1"),
        (
            "spec.replicas".to_string(),
            "kube-apiserver rejects Deployment shop/web (Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0), so there is nothing to scale".to_string(),
            "remove spec.replicas from the workload (the HPA owns it), or write a count of 0 or more".to_string()
        )
    );
    // The largest int32, and a float YAML reads as a whole number (kubectl sends `2`): counts.
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", "replicas: 2.0") + hpa));
    assert_eq!(report["diagnostics"][0]["severity"], "warning");
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("REPLICAS", "replicas: 2147483647") + hpa));
    assert_eq!(report["diagnostics"][0]["severity"], "warning");
}

/// HPA410 on a built-in target kube-apiserver refuses for its selector, whether or not it sets
/// `spec.replicas`: one that does not select the workload's own pod template (the labels printed
/// as each release prints a `map[string]string`), one kube-apiserver refuses itself; every
/// error in `ValidateDeploymentSpec`'s order (the count, the selector, the labels), at the first.
#[test]
fn a_target_refused_for_its_selector_is_an_error_in_kube_apiserver_words() {
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    // The HPA410 error on the workload (`target` the HPA's `apiVersion` and `kind`).
    let run_kind = |target: &str, workload: &str, release: &str, at: (u64, u64)| {
        let hpa = hpa.replace("apiVersion: apps/v1, kind: Deployment", target);
        let report = lint(&["--select", "HPA410", "--kubernetes-version", release], &(workload.to_string() + &hpa));
        assert_eq!(positions(&report), [(at.0, at.1, "HPA410".to_string())], "{report}");
        assert_eq!(report["diagnostics"][0]["severity"], "error");
        said(&report, "HPA410").remove(0)
    };
    let run = |deployment: &str, release: &str, at: (u64, u64)| {
        run_kind("apiVersion: apps/v1, kind: Deployment", deployment, release, at)
    };
    let rc_target = "apiVersion: v1, kind: ReplicationController";
    let words = |errors: &str| {
        format!(
            "kube-apiserver rejects Deployment shop/web (Deployment.apps \"web\" is invalid: {errors}), so there is nothing to scale"
        )
    };
    let mismatch =
        WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("matchLabels: {app: web}", "matchLabels: {app: api}");
    assert_eq!(
        run(&mismatch, "1.37", (9, 7)),
        (
            "spec.template.metadata.labels".to_string(),
            words("spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"),
            "give the pod template the labels spec.selector selects (kube-apiserver refuses a workload whose selector does not select its own pods)".to_string()
        )
    );
    assert_eq!(
        run(&mismatch, "1.33", (9, 7)).1,
        words(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"
        )
    );
    // No labels written: a nil map.
    let unlabelled = mismatch.replace("    metadata:\n      labels: {app: web}\n", "");
    assert_eq!(
        run(&unlabelled, "1.37", (7, 3)).1,
        words("spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`")
    );
    assert_eq!(
        run(&unlabelled, "1.33", (7, 3)).1,
        words(
            "spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`"
        )
    );
    // With a negative count: both, the count first.
    let both = WEB_DEPLOYMENT
        .replace("REPLICAS", "replicas: -1")
        .replace("matchLabels: {app: web}", "matchLabels: {app: api}");
    assert_eq!(
        run(&both, "1.37", (5, 13)).1,
        words(
            "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`]"
        )
    );
    // A selector kube-apiserver refuses: `ValidateLabelSelector`'s errors, then
    // `LabelSelectorAsSelector`'s with the selector as each release prints it; the pod template,
    // never validated then, is neither compared with it nor are its labels checked.
    let refused = WEB_DEPLOYMENT
        .replace("  REPLICAS\n", "")
        .replace("matchLabels: {app: web}", "matchExpressions: [{key: app, operator: in, values: [web]}]")
        .replace("labels: {app: web}", "labels: {\"bad key!\": x}");
    let operator = "spec.selector.matchExpressions[0].operator: Invalid value: \"in\": not a valid selector operator";
    assert_eq!(
        run(&refused, "1.37", (6, 45)),
        (
            "spec.selector.matchExpressions[0].operator".to_string(),
            words(&format!(
                "[{operator}, spec.selector: Invalid value: {{\"matchExpressions\":[{{\"key\":\"app\",\"operator\":\"in\",\"values\":[\"web\"]}}]}}: invalid label selector]"
            )),
            "write the selector as kube-apiserver takes it: operators In, NotIn, Exists or DoesNotExist, keys and values that are valid labels".to_string()
        )
    );
    assert_eq!(
        run(&refused, "1.33", (6, 45)).1,
        words(&format!(
            "[{operator}, spec.selector: Invalid value: v1.LabelSelector{{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{{v1.LabelSelectorRequirement{{Key:\"app\", Operator:\"in\", Values:[]string{{\"web\"}}}}}}}}: invalid label selector]"
        ))
    );
    // `In` without values, beside matchLabels written empty; a StatefulSet's conversion error
    // has no detail.
    let no_values = refused.replace("kind: Deployment", "kind: StatefulSet").replace(
        "matchExpressions: [{key: app, operator: in, values: [web]}]",
        "matchLabels: {}\n    matchExpressions: [{key: app, operator: In}]",
    );
    assert_eq!(
        run_kind("apiVersion: apps/v1, kind: StatefulSet", &no_values, "1.33", (7, 24)).1,
        "kube-apiserver rejects StatefulSet shop/web (StatefulSet.apps \"web\" is invalid: [spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"app\", Operator:\"In\", Values:[]string(nil)}}}]), so there is nothing to scale"
    );
    assert_eq!(
        run_kind("apiVersion: apps/v1, kind: StatefulSet", &no_values, "1.37", (7, 24)).1,
        "kube-apiserver rejects StatefulSet shop/web (StatefulSet.apps \"web\" is invalid: [spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn', spec.selector: Invalid value: {\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\"}]}]), so there is nothing to scale"
    );
    // A selector or template labels kube-apiserver cannot decode (YAML reads `1.0` as a
    // number): the decoder's first error, in the order kubectl sends the keys, before any
    // validation.
    let decoded = |error: &str| {
        format!(
            "kube-apiserver rejects Deployment shop/web (Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal {error}), so there is nothing to scale"
        )
    };
    let number = WEB_DEPLOYMENT
        .replace("  REPLICAS\n", "")
        .replace("matchLabels: {app: web}", "matchLabels: {app: web, version: 1.0}")
        .replace("labels: {app: web}", "labels: {app: web, version: true}");
    assert_eq!(
        run(&number, "1.37", (6, 5)),
        (
            "spec.selector.matchLabels".to_string(),
            decoded("number into Go struct field LabelSelector.spec.selector.matchLabels of type string"),
            "write every key and value of the selector and of the template's labels and annotations as a string (quote a number or a boolean: version: \"1.0\")".to_string()
        )
    );
    let fixed = number.replace("version: 1.0", "version: \"1.0\"");
    assert_eq!(
        run(&fixed, "1.37", (9, 7)).1,
        decoded("bool into Go struct field ObjectMeta.spec.template.metadata.labels of type string")
    );
    // The template's annotations before its labels (kubectl sends `annotations` first).
    let annotated = fixed.replace(
        "      labels: {app: web, version: true}\n",
        "      annotations: {replicas: 3}\n      labels: {app: web, version: true}\n",
    );
    assert_eq!(
        run(&annotated, "1.37", (9, 7)).1,
        decoded("number into Go struct field ObjectMeta.spec.template.metadata.annotations of type string")
    );
    // A count that does not decode comes first; a list where the selector's map goes.
    let list =
        WEB_DEPLOYMENT.replace("REPLICAS", "replicas: \"3\"").replace("matchLabels: {app: web}", "matchLabels: [app]");
    assert_eq!(
        run(&list, "1.37", (5, 13)).1,
        decoded("string into Go struct field DeploymentSpec.spec.replicas of type int32")
    );
    let list = list.replace("  replicas: \"3\"\n", "");
    assert_eq!(
        run(&list, "1.37", (6, 5)).1,
        decoded("array into Go struct field LabelSelector.spec.selector.matchLabels of type map[string]string")
    );
    let scalar = list.replace("  selector:\n    matchLabels: [app]", "  selector: app");
    assert_eq!(
        run(&scalar, "1.37", (5, 13)).1,
        decoded("string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector")
    );
    // A ReplicationController's selector is a map of strings.
    let rc = "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {app: web, tier: 1}\n  template:\n    metadata:\n      labels: {app: web, tier: \"1\"}\n    spec:\n      containers: [{name: app, image: nginx}]\n";
    assert_eq!(
        run_kind(rc_target, rc, "1.37", (5, 3)).1,
        "kube-apiserver rejects ReplicationController shop/web (ReplicationController in version \"v1\" cannot be handled as a ReplicationController: json: cannot unmarshal number into Go struct field ReplicationControllerSpec.spec.selector of type string), so there is nothing to scale"
    );
    // No selector: required (nothing defaults an apps kind's), and the selector of nothing
    // (`labels.Nothing()`) does not match the template's labels.
    let absent = WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("  selector:\n    matchLabels: {app: web}\n", "");
    assert_eq!(
        run(&absent, "1.37", (4, 1)),
        (
            "spec.selector".to_string(),
            words("[spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`]"),
            "give the workload a selector of its pods, spec.selector.matchLabels with its pod template's labels (kube-apiserver defaults none)".to_string()
        )
    );
    // An empty one: the selector as each release prints it, no comparison.
    let empty = WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("matchLabels: {app: web}", "matchLabels: {}");
    assert_eq!(
        run(&empty, "1.37", (5, 3)).1,
        words("spec.selector: Invalid value: {}: empty selector is invalid for deployment")
    );
    assert_eq!(
        run(&empty, "1.33", (5, 3)).1,
        words(
            "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"
        )
    );
    let statefulset = empty
        .replace("kind: Deployment", "kind: StatefulSet")
        .replace("    matchLabels: {}\n", "")
        .replace("  selector:\n", "  selector: {}\n");
    assert_eq!(
        run_kind("apiVersion: apps/v1, kind: StatefulSet", &statefulset, "1.33", (5, 3)).1,
        "kube-apiserver rejects StatefulSet shop/web (StatefulSet.apps \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset), so there is nothing to scale"
    );
    // A ReplicationController's selector defaults from its template's labels: required only
    // with neither.
    let rc_hpa = hpa.replace("apiVersion: apps/v1, kind: Deployment", rc_target);
    let defaulted = rc.replace("  selector: {app: web, tier: 1}\n", "");
    let report = lint(&["--select", "HPA410"], &(defaulted.clone() + &rc_hpa));
    assert_eq!(positions(&report), []);
    let neither = defaulted.replace("    metadata:\n      labels: {app: web, tier: \"1\"}\n", "");
    assert_eq!(
        run_kind(rc_target, &neither, "1.37", (4, 1)).1,
        "kube-apiserver rejects ReplicationController shop/web (ReplicationController \"web\" is invalid: spec.selector: Required value), so there is nothing to scale"
    );
    // `ValidateReplicationControllerSpec` checks the selector before the count.
    let negative = neither.replacen("spec:\n", "spec:\n  replicas: -1\n", 1);
    assert_eq!(
        run_kind(rc_target, &negative, "1.37", (4, 1)).1,
        "kube-apiserver rejects ReplicationController shop/web (ReplicationController \"web\" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]), so there is nothing to scale"
    );
    // Template labels that are no labels: `ValidateLabels` on `spec.template.labels` (the
    // internal template embeds its metadata), after the comparison; the wording of 1.35.
    let bad_labels =
        WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("labels: {app: web}", "labels: {app: web, tier: \"-x\"}");
    assert_eq!(
        run(&bad_labels, "1.37", (9, 7)).1,
        words(
            "spec.template.labels: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        )
    );
    // A selector that selects the template: nothing.
    let report = lint(&["--select", "HPA410"], &(WEB_DEPLOYMENT.replace("  REPLICAS\n", "") + hpa));
    assert_eq!(positions(&report), []);
}

/// A VPA in `Initial` mode sets requests as pods are created: it moves a `Utilization` target
/// (info), and not an `AverageValue` one, which reads usage alone. `Auto` is reported on both.
#[test]
fn a_vpa_setting_requests_at_creation_only_concerns_a_utilization_target() {
    let set = |target: &str, mode: &str| {
        format!(
            "{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {target}}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  updatePolicy: {{updateMode: {mode}}}\n",
            WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("resources: {}", "resources: {requests: {cpu: 100m}}")
        )
    };
    let utilization = "{type: Utilization, averageUtilization: 70}";
    let average = "{type: AverageValue, averageValue: 100m}";
    let found = |target: &str, mode: &str| {
        let report = lint(&["--select", "HPA408"], &set(target, mode));
        diagnostics(&report)
            .map(|d| (d["line"].as_u64().unwrap(), d["severity"].as_str().unwrap().to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(found(utilization, "Initial"), [(24, "info".to_string())]);
    assert_eq!(found(average, "Initial"), []);
    assert_eq!(found(average, "Auto"), [(24, "warning".to_string())]);
    assert_eq!(found(utilization, "Auto"), [(24, "warning".to_string())]);
}

/// An object given twice among the items of a `List` is one object too, and the note names the
/// items (1-based, as the documents), not the one document twice.
#[test]
fn an_object_repeated_in_a_list_is_named_by_its_items() {
    let hpa = "- apiVersion: autoscaling/v2\n  kind: HorizontalPodAutoscaler\n  metadata: {name: web, namespace: shop}\n  spec:\n    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n    maxReplicas: 3\n";
    let list = format!("apiVersion: v1\nkind: List\nitems:\n{hpa}{hpa}");
    let report = lint(&[], &list);
    assert_eq!(report["summary"]["objects"], 1);
    assert_eq!(
        notes(&report),
        [
            "<stdin>: HorizontalPodAutoscaler shop/web is defined more than once (in document 1 (items 1 and 2)): each is one object, checked once"
        ]
    );
    // With the same HPA as a document of its own after the List.
    let report = lint(&[], &format!("{list}---\n{}", hpa.replace("\n  ", "\n").trim_start_matches("- ")));
    assert_eq!(
        notes(&report),
        [
            "<stdin>: HorizontalPodAutoscaler shop/web is defined more than once (in document 1 (items 1 and 2) and document 2): each is one object, checked once"
        ]
    );
}

/// An HPA in a version the release does not serve (`autoscaling/v2beta2`, HPA401) is never
/// stored: the HPA of the same Deployment in `autoscaling/v2` is alone, and neither is told of
/// a conflict.
#[test]
fn an_hpa_in_an_unserved_version_conflicts_with_none() {
    let hpa = |name: &str, api_version: &str| {
        format!(
            "---\napiVersion: {api_version}\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: rps}}, target: {{type: AverageValue, averageValue: \"10\"}}}}\n"
        )
    };
    let set = format!(
        "{}{}{}",
        WEB_DEPLOYMENT.replace("  REPLICAS\n", ""),
        hpa("web", "autoscaling/v2"),
        hpa("web-old", "autoscaling/v2beta2")
    );
    let report = lint(&[], &set);
    assert_eq!(
        placed_messages(&report),
        [(
            26,
            13,
            "HPA401".to_string(),
            "autoscaling/v2beta2 is not served since Kubernetes 1.26: use autoscaling/v2".to_string()
        )]
    );
}

/// HPA104's one finding (path, message, help) on the budget `spec: {budget}` over Deployment
/// `shop/web`, whose HPA keeps 3 pods, on `release`: an error at `at` (line, column) of the set.
fn refused_budget(budget: &str, release: &str, at: (u64, u64)) -> (String, String, String) {
    refused_spec(&format!("  {budget}\n  selector:\n    matchLabels: {{app: web}}"), release, at)
}

/// HPA104's report on the budget `spec:\n{spec}` (its first line is line 32 of the set) beside
/// Deployment `shop/web`, whose HPA keeps 3 pods, on `release`.
fn budget_report(spec: &str, release: &str) -> Value {
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: \"10\"}}\n";
    let pdb = format!(
        "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: web, namespace: shop}}\nspec:\n{spec}\n"
    );
    let set = WEB_DEPLOYMENT.replace("REPLICAS", "minReadySeconds: 0") + hpa + &pdb;
    lint(&["--select", "HPA104", "--kubernetes-version", release], &set)
}

/// [`refused_budget`] with the whole `spec` written ([`budget_report`]).
fn refused_spec(spec: &str, release: &str, at: (u64, u64)) -> (String, String, String) {
    let report = budget_report(spec, release);
    assert_eq!(report["diagnostics"].as_array().unwrap().len(), 1, "{report}");
    let d = &report["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64(), d["severity"].as_str()),
        (Some(at.0), Some(at.1), Some("error"))
    );
    assert_eq!(d["object"]["kind"], "PodDisruptionBudget");
    said(&report, "HPA104").remove(0)
}

/// kube-apiserver's words for PodDisruptionBudget `shop/web` refused with `error`, as HPA104 says them.
fn budget_refused_words(error: &str) -> String {
    format!(
        "kube-apiserver rejects PodDisruptionBudget shop/web (PodDisruptionBudget.policy \"web\" is invalid: {error}), so it budgets none of the pods of Deployment shop/web"
    )
}

/// A budget over the HPA's pods that kube-apiserver refuses is never stored: HPA104 says so, an
/// error on the budget's field in kube-apiserver's words (the `IntOrString` printed as the
/// release prints it), instead of counting with a budget that does not exist.
#[test]
fn a_budget_kube_apiserver_refuses_is_reported_in_its_words() {
    let run = |budget: &str, release: &str| refused_budget(budget, release, (32, 17));
    let words = budget_refused_words;
    assert_eq!(
        run("minAvailable: 150%", "1.37"),
        (
            "spec.minAvailable".to_string(),
            words("spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%"),
            "write minAvailable or maxUnavailable as a count of 0 or more, or a percentage from 0% to 100% (\"50%\")"
                .to_string()
        )
    );
    assert_eq!(
        run("minAvailable: 150%", "1.33").1,
        words(
            "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%"
        )
    );
    // A count written as a string is no percentage.
    assert_eq!(
        run("minAvailable: \"2\"", "1.37").1,
        words(
            "spec.minAvailable: Invalid value: \"2\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
        )
    );
    assert_eq!(
        run("minAvailable: -1", "1.37").1,
        words("spec.minAvailable: Invalid value: -1: must be greater than or equal to 0")
    );
}

/// A `minAvailable` or `maxUnavailable` that is neither a string nor an `int32` (a fraction, a
/// count out of range, a boolean, a list, a map) is refused by kube-apiserver's decoding, before
/// any validation (`intstr.IntOrString.UnmarshalJSON` into the `int32`, the error's context set by
/// `sigs.k8s.io/json`): HPA104 says so in those words, on every release, instead of reading the
/// budget as unset. `maxUnavailable` is decoded first (kubectl sends the keys sorted); a `null`
/// is no value, and a count written `2.0` is the integer 2 kubectl sends.
#[test]
fn a_budget_kube_apiserver_cannot_decode_is_reported_in_its_words() {
    let run = |budget: &str, release: &str| refused_budget(budget, release, (32, 17));
    let words = |value: &str, field: &str| {
        format!(
            "kube-apiserver rejects PodDisruptionBudget shop/web (PodDisruptionBudget in version \"v1\" cannot be handled as a PodDisruptionBudget: json: cannot unmarshal {value} into Go struct field PodDisruptionBudgetSpec.spec.{field} of type int32), so it budgets none of the pods of Deployment shop/web"
        )
    };
    for release in ["1.33", "1.37"] {
        assert_eq!(
            run("minAvailable: 2.5", release),
            (
                "spec.minAvailable".to_string(),
                words("number 2.5", "minAvailable"),
                "write minAvailable or maxUnavailable as a count of 0 or more, or a percentage from 0% to 100% (\"50%\")"
                    .to_string()
            )
        );
    }
    assert_eq!(run("minAvailable: 2147483648", "1.37").1, words("number 2147483648", "minAvailable"));
    assert_eq!(run("minAvailable: 1e40", "1.37").1, words("number 1e+40", "minAvailable"));
    assert_eq!(run("minAvailable: true", "1.37").1, words("bool", "minAvailable"));
    // A list or a map is pointed at by its key.
    let key = |budget: &str| refused_budget(budget, "1.37", (32, 3)).1;
    assert_eq!(key("minAvailable: [1]"), words("array", "minAvailable"));
    assert_eq!(key("minAvailable: {}"), words("object", "minAvailable"));
    // Both undecodable: decoding stops at maxUnavailable, the first key kubectl sends.
    assert_eq!(
        refused_budget("minAvailable: 2.5\n  maxUnavailable: 0.5", "1.37", (33, 19)).1,
        words("number 0.5", "maxUnavailable")
    );
    // Then the type errors decoding goes on past, the first reported: a label value that is
    // no string (YAML reads `1.0` as a number), an eviction policy that is no string.
    let spec =
        "  maxUnavailable: 0\n  unhealthyPodEvictionPolicy: 5\n  selector:\n    matchLabels: {app: web, version: 1.0}";
    let decoded = |value: &str, go: &str| {
        format!(
            "kube-apiserver rejects PodDisruptionBudget shop/web (PodDisruptionBudget in version \"v1\" cannot be handled as a PodDisruptionBudget: json: cannot unmarshal {value} into Go struct field {go}), so it budgets none of the pods of Deployment shop/web"
        )
    };
    assert_eq!(
        refused_spec(spec, "1.37", (35, 5)),
        (
            "spec.selector.matchLabels".to_string(),
            decoded("number", "LabelSelector.spec.selector.matchLabels of type string"),
            "write every key, operator and value of the selector as a string (quote a number or a boolean: version: \"1.0\")".to_string()
        )
    );
    let spec = spec.replace(", version: 1.0", "");
    assert_eq!(
        refused_spec(&spec, "1.37", (33, 31)).1,
        decoded(
            "number",
            "PodDisruptionBudgetSpec.spec.unhealthyPodEvictionPolicy of type v1.UnhealthyPodEvictionPolicyType"
        )
    );
    let requirement = "  maxUnavailable: 0\n  selector:\n    matchLabels: {app: web}\n    matchExpressions: [{key: tier, operator: In, values: [1]}]";
    assert_eq!(
        refused_spec(requirement, "1.37", (35, 5)).1,
        decoded("number", "LabelSelectorRequirement.spec.selector.matchExpressions.values of type string")
    );
    // A whole float is the integer kubectl sends, and a null no value.
    assert_eq!(
        budget_report("  minAvailable: 3.0\n  selector:\n    matchLabels: {app: web}", "1.37")["summary"]["warnings"],
        1
    );
    let null =
        budget_report("  minAvailable: null\n  maxUnavailable: 0\n  selector:\n    matchLabels: {app: web}", "1.37");
    assert_eq!(null["summary"]["warnings"], 1, "{null}");
}

/// A budget with both `minAvailable` and `maxUnavailable` is refused (`ValidatePodDisruptionBudgetSpec`,
/// an error on `spec` printed with the whole internal spec): HPA104 says so in kube-apiserver's
/// words instead of computing with `minAvailable`, with the release's rendering (JSON from 1.34,
/// `%#v` with heap addresses in 1.33), the other errors of the list after it.
#[test]
fn a_budget_with_both_min_available_and_max_unavailable_is_refused() {
    let run = |budget: &str, release: &str| refused_budget(budget, release, (31, 1));
    let words = budget_refused_words;
    assert_eq!(
        run("minAvailable: 2\n  maxUnavailable: 1", "1.37"),
        (
            "spec".to_string(),
            words(
                "spec: Invalid value: {\"MinAvailable\":2,\"Selector\":{\"matchLabels\":{\"app\":\"web\"}},\"MaxUnavailable\":1,\"UnhealthyPodEvictionPolicy\":null}: minAvailable and maxUnavailable cannot be both set"
            ),
            "set only one of minAvailable and maxUnavailable (maxUnavailable: 1 allows one eviction at any replica count)"
                .to_string()
        )
    );
    assert_eq!(
        run("minAvailable: 2\n  maxUnavailable: 1", "1.33").1,
        words(
            "spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(0xc000000000), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set"
        )
    );
    // Every error of the list, in ValidatePodDisruptionBudgetSpec's order.
    assert_eq!(
        run("minAvailable: 150%\n  maxUnavailable: 0\n  unhealthyPodEvictionPolicy: AlwaysAllow", "1.37").1,
        words(
            "[spec: Invalid value: {\"MinAvailable\":\"150%\",\"Selector\":{\"matchLabels\":{\"app\":\"web\"}},\"MaxUnavailable\":0,\"UnhealthyPodEvictionPolicy\":\"AlwaysAllow\"}: minAvailable and maxUnavailable cannot be both set, spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%]"
        )
    );
}

/// An `unhealthyPodEvictionPolicy` outside its enum refuses the budget
/// (`ValidatePodDisruptionBudgetSpec`'s `field.NotSupported`, the supported values sorted): it
/// never exists, so its `maxUnavailable: 0` blocks nothing, and HPA104 says so in
/// kube-apiserver's words instead, in 1.33 as from 1.34.
#[test]
fn a_budget_with_an_unsupported_eviction_policy_is_refused() {
    let spec = "  maxUnavailable: 0\n  unhealthyPodEvictionPolicy: Sometimes\n  selector:\n    matchLabels: {app: web}";
    let words = budget_refused_words(
        "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\"",
    );
    for release in ["1.33", "1.37"] {
        assert_eq!(
            refused_spec(spec, release, (33, 31)),
            (
                "spec.unhealthyPodEvictionPolicy".to_string(),
                words.clone(),
                "write unhealthyPodEvictionPolicy as IfHealthyBudget or AlwaysAllow, or leave it out".to_string()
            )
        );
    }
    assert_eq!(budget_report(&spec.replace("Sometimes", "AlwaysAllow"), "1.37")["summary"]["warnings"], 1);
}

/// A selector kube-apiserver refuses (`ValidateLabelSelector`: an operator other than the four,
/// a value no label can have, a key that is no label key) refuses the budget: HPA104 reports
/// every error, in order, on the HPA whose pods it was meant for (`operator: in` read as `In`,
/// the requirements still refused left out), and on no other.
#[test]
fn a_budget_with_a_refused_selector_is_reported_where_it_was_meant() {
    let spec = "  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n    matchExpressions: [{key: tier, operator: in, values: [\"a b\"]}]";
    assert_eq!(
        refused_spec(spec, "1.37", (35, 46)),
        (
            "spec.selector.matchExpressions[0].operator".to_string(),
            budget_refused_words(
                "[spec.selector.matchExpressions[0].operator: Invalid value: \"in\": not a valid selector operator, spec.selector.matchExpressions[0].values[0]: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"
            ),
            "write the selector as kube-apiserver takes it: operators In, NotIn, Exists or DoesNotExist, keys and values that are valid labels"
                .to_string()
        )
    );
    let spec = "  minAvailable: 3\n  selector:\n    matchLabels: {app: web, \"bad key!\": x}";
    assert_eq!(
        refused_spec(spec, "1.37", (34, 5)).1,
        budget_refused_words(
            "spec.selector.matchLabels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        )
    );
    // Meant for other pods: not this HPA's concern.
    let other = "  maxUnavailable: 0\n  selector:\n    matchExpressions: [{key: app, operator: in, values: [api]}]";
    assert_eq!(budget_report(other, "1.37")["diagnostics"], json!([]));
}

/// A selector operator is a `metav1.LabelSelectorOperator`, a named string type: from 1.34
/// kube-apiserver prints it as JSON (`<` as `\u003c`), where a requirement's value, a plain
/// string, keeps Go's quoting; 1.33 quotes both as Go does.
#[test]
fn a_refused_selector_operator_is_printed_as_the_release_prints_it() {
    let spec = "  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n    matchExpressions: [{key: app, operator: \"i<n\", values: [\"a&b\"]}]";
    let error = |operator: &str| {
        budget_refused_words(&format!(
            "[spec.selector.matchExpressions[0].operator: Invalid value: {operator}: not a valid selector operator, spec.selector.matchExpressions[0].values[0]: Invalid value: \"a&b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"
        ))
    };
    assert_eq!(refused_spec(spec, "1.37", (35, 45)).1, error("\"i\\u003cn\""));
    assert_eq!(refused_spec(spec, "1.34", (35, 45)).1, error("\"i\\u003cn\""));
    assert_eq!(refused_spec(spec, "1.33", (35, 45)).1, error("\"i<n\""));
}

/// HPA410 on what else `ValidateDeployment` and its kin refuse of what the linter reads: the
/// workload's name (`ValidateObjectMeta`, first: a DNS subdomain, a StatefulSet's a DNS label),
/// then in the pod template its labels, its annotation keys and its containers (none:
/// `ValidatePodSpec`'s Required value; a StatefulSet's pod spec is not validated), and a
/// ReplicationController without a template (`spec.template: Required value`, a pointer there).
#[test]
fn a_target_refused_for_its_name_or_template_is_an_error_in_kube_apiserver_words() {
    let hpa = |target: &str| {
        format!(
            "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{{target}}}\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: rps}}, target: {{type: AverageValue, averageValue: \"10\"}}}}\n"
        )
    };
    let run = |workload: &str, target: &str, release: &str, at: (u64, u64)| {
        let report =
            lint(&["--select", "HPA410", "--kubernetes-version", release], &(workload.to_string() + &hpa(target)));
        assert_eq!(positions(&report), [(at.0, at.1, "HPA410".to_string())], "{report}");
        assert_eq!(report["diagnostics"][0]["severity"], "error");
        said(&report, "HPA410").remove(0)
    };
    let label_key = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let deployment = WEB_DEPLOYMENT
        .replace("  REPLICAS\n", "")
        .replace("name: web, namespace", "name: Web, namespace")
        .replace(
            "      labels: {app: web}\n",
            "      labels: {app: web}\n      annotations: {\"bad key!\": x, example.com/fine: ok}\n",
        )
        .replace(
            "      containers:\n      - name: app\n        image: ghcr.io/example/web:1.4.2\n        resources: {}\n",
            "      containers: []\n",
        );
    assert_eq!(
        run(&deployment, "apiVersion: apps/v1, kind: Deployment, name: Web", "1.37", (3, 18)),
        (
            "metadata.name".to_string(),
            format!("kube-apiserver rejects Deployment shop/Web (Deployment.apps \"Web\" is invalid: [metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.template.annotations: Invalid value: \"bad key!\": {label_key}, spec.template.spec.containers: Required value]), so there is nothing to scale"),
            "name the workload as kube-apiserver takes it: a DNS subdomain (up to 253 lowercase alphanumeric characters, '-' or '.', starting and ending alphanumeric)".to_string()
        )
    );
    // Named as kube-apiserver takes it: the annotations first, where they are written.
    let named = deployment.replace("name: Web, namespace", "name: web, namespace");
    let (field, message, help) = run(&named, "apiVersion: apps/v1, kind: Deployment, name: web", "1.37", (10, 7));
    assert_eq!(field, "spec.template.metadata.annotations");
    assert_eq!(
        message,
        format!(
            "kube-apiserver rejects Deployment shop/web (Deployment.apps \"web\" is invalid: [spec.template.annotations: Invalid value: \"bad key!\": {label_key}, spec.template.spec.containers: Required value]), so there is nothing to scale"
        )
    );
    assert!(help.starts_with("write the pod template's annotation keys as kube-apiserver takes them"), "{help}");
    let annotated = named.replace("      containers: []\n", "      containers: [{name: app, image: nginx}]\n");
    // A key is checked lowercased as Go's strings.ToLower does, rune by rune: `İ` (U+0130) is
    // `i` there, a valid key (Rust's full mapping adds a combining dot).
    let dotted = annotated.replace("\"bad key!\": x", "İstio.io/rev: x");
    let report = lint(&["--select", "HPA410"], &(dotted + &hpa("apiVersion: apps/v1, kind: Deployment, name: web")));
    assert!(positions(&report).is_empty(), "{report}");
    let containerless = named.replace("      annotations: {\"bad key!\": x, example.com/fine: ok}\n", "");
    assert_eq!(
        run(&containerless, "apiVersion: apps/v1, kind: Deployment, name: web", "1.37", (11, 7)),
        (
            "spec.template.spec.containers".to_string(),
            "kube-apiserver rejects Deployment shop/web (Deployment.apps \"web\" is invalid: spec.template.spec.containers: Required value), so there is nothing to scale".to_string(),
            "give the pod template at least one container (spec.template.spec.containers)".to_string()
        )
    );
    // A StatefulSet's name is a DNS label; its pod spec is not validated (no containers: taken).
    let statefulset = containerless
        .replace("kind: Deployment", "kind: StatefulSet")
        .replace("name: web, namespace", "name: web.db, namespace");
    assert_eq!(
        run(&statefulset, "apiVersion: apps/v1, kind: StatefulSet, name: web.db", "1.33", (3, 18)).1,
        "kube-apiserver rejects StatefulSet shop/web.db (StatefulSet.apps \"web.db\" is invalid: metadata.name: Invalid value: \"web.db\": must not contain dots), so there is nothing to scale"
    );
    let report = lint(
        &["--select", "HPA410"],
        &(statefulset.replace("web.db", "web") + &hpa("apiVersion: apps/v1, kind: StatefulSet, name: web")),
    );
    assert_eq!(positions(&report), []);
    let report = lint(
        &["--select", "HPA410"],
        &(annotated.replace("\"bad key!\"", "bad-key") + &hpa("apiVersion: apps/v1, kind: Deployment, name: web")),
    );
    assert_eq!(positions(&report), []);
    // A ReplicationController without a template: its selector has nothing to default from.
    let rc = "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: web, namespace: shop}\nspec:\n  minReadySeconds: 5\n";
    assert_eq!(
        run(rc, "apiVersion: v1, kind: ReplicationController, name: web", "1.37", (4, 1)),
        (
            "spec.selector".to_string(),
            "kube-apiserver rejects ReplicationController shop/web (ReplicationController \"web\" is invalid: [spec.selector: Required value, spec.template: Required value]), so there is nothing to scale".to_string(),
            "give the workload a selector of its pods, spec.selector.matchLabels with its pod template's labels (kube-apiserver defaults none)".to_string()
        )
    );
    let rc = rc.replace("  minReadySeconds: 5\n", "  selector: {app: web}\n");
    assert_eq!(
        run(&rc, "apiVersion: v1, kind: ReplicationController, name: web", "1.37", (4, 1)),
        (
            "spec.template".to_string(),
            "kube-apiserver rejects ReplicationController shop/web (ReplicationController \"web\" is invalid: spec.template: Required value), so there is nothing to scale".to_string(),
            "give the ReplicationController a pod template (spec.template), with the labels its selector selects and its containers".to_string()
        )
    );
}

/// A target kube-apiserver refuses is never created and has no pods: HPA410 is the one finding.
/// HPA201 (no cpu request), HPA202 (no such container), HPA104 (a budget blocking every eviction)
/// and HPA408 (a VPA sizing it) all fire on the same set once the selector is taken, and none
/// of them before; a VPA refused itself is still said.
#[test]
fn a_refused_target_is_one_hpa410_and_nothing_of_its_pods() {
    let set = |selector: &str, vpa_mode: &str| {
        format!(
            "{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n  - type: ContainerResource\n    containerResource: {{name: memory, container: nope, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: web, namespace: shop}}\nspec:\n  minAvailable: 2\n  selector: {{matchLabels: {{app: web}}}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  updatePolicy: {{updateMode: {vpa_mode}}}\n",
            WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("matchLabels: {app: web}", selector)
        )
    };
    let rules = |report: &Value| -> Vec<String> { positions(report).into_iter().map(|(_, _, rule)| rule).collect() };
    let taken = lint(&[], &set("matchLabels: {app: web}", "Recreate"));
    assert_eq!(rules(&taken), ["HPA104", "HPA408", "HPA201", "HPA408", "HPA202"], "{taken}");
    let refused = lint(&[], &set("matchExpressions: [{key: app, operator: Foo, values: [web]}]", "Recreate"));
    assert_eq!(positions(&refused), [(6, 45, "HPA410".to_string())], "{refused}");
    // The VPA's own refusal is another problem, said on the HPA as before.
    let vpa_refused = lint(&[], &set("matchExpressions: [{key: app, operator: Foo, values: [web]}]", "auto"));
    assert_eq!(rules(&vpa_refused), ["HPA410", "HPA408"], "{vpa_refused}");
}

/// (line, column, label) of each related location of the first diagnostic.
fn related_of(report: &Value) -> Vec<(u64, u64, &str)> {
    report["diagnostics"][0]["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap(), r["message"].as_str().unwrap()))
        .collect()
}

/// An Argo Rollout whose `spec.workloadRef` names a Deployment kube-apiserver refuses makes no
/// pods (Argo Rollouts finds no such Deployment: the Rollout's InvalidSpec condition): HPA410
/// on the Deployment is the one finding, pointing at the HPA and at the reference. HPA201,
/// HPA202, HPA104 and HPA408 fire on the same set once the Deployment is taken.
#[test]
fn a_rollout_whose_template_workload_is_refused_is_one_hpa410() {
    let set = |selector: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web}}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n  - type: ContainerResource\n    containerResource: {{name: memory, container: nope, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {{name: web, namespace: shop}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  workloadRef: {{apiVersion: apps/v1, kind: Deployment, name: web-template}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: web, namespace: shop}}\nspec:\n  minAvailable: 2\n  selector: {{matchLabels: {{app: web}}}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web}}\n---\n{}",
            WEB_DEPLOYMENT
                .replace("name: web,", "name: web-template,")
                .replace("REPLICAS", "replicas: 0")
                .replace("matchLabels: {app: web}", selector)
        )
    };
    let rules = |report: &Value| -> Vec<String> { positions(report).into_iter().map(|(_, _, rule)| rule).collect() };
    let taken = lint(&[], &set("matchLabels: {app: web}"));
    assert_eq!(rules(&taken), ["HPA104", "HPA408", "HPA201", "HPA408", "HPA202"], "{taken}");
    let refused = lint(&[], &set("matchLabels: {app: web-template}"));
    assert_eq!(positions(&refused), [(43, 7, "HPA410".to_string())], "{refused}");
    assert_eq!(
        said(&refused, "HPA410"),
        [(
            "spec.template.metadata.labels".to_string(),
            "kube-apiserver rejects Deployment shop/web-template (Deployment.apps \"web-template\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`), so Rollout shop/web, whose spec.workloadRef names it, makes no pods (Argo Rollouts: The Rollout \"web\" is invalid: deployments.apps \"web-template\" not found): there is nothing to scale".to_string(),
            "give the pod template the labels spec.selector selects (kube-apiserver refuses a workload whose selector does not select its own pods)".to_string(),
        )]
    );
    let related = related_of(&refused);
    assert_eq!(related, [(5, 3, "this HPA scales the Rollout"), (19, 3, "takes its pod template from it")]);
}

/// Several Argo Rollouts whose `spec.workloadRef` names one Deployment kube-apiserver refuses:
/// one problem (the Deployment is never created), so one HPA410 on it, naming every Rollout and
/// pointing at each HPA and each reference (it was one identical error per Rollout, on the same
/// line). HPA407 says nothing of them: no Rollout makes pods. Once the Deployment is taken, the
/// Rollouts' pods are selected by both selectors: HPA407 on each HPA, as the controller sets
/// AmbiguousSelector on each.
#[test]
fn rollouts_sharing_a_refused_template_workload_are_one_hpa410() {
    let set = |selector: &str| {
        let hpa = |name: &str| {
            format!(
                "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: {name}}}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n---\n"
            )
        };
        let rollout = |name: &str| {
            format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  workloadRef: {{apiVersion: apps/v1, kind: Deployment, name: web-template}}\n---\n"
            )
        };
        format!(
            "{}{}{}{}apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-template, namespace: shop}}\nspec:\n  replicas: 0\n  selector: {{{selector}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      - name: app\n        image: ghcr.io/example/web:1.4.2\n        resources: {{requests: {{cpu: 100m}}}}\n",
            hpa("green"),
            hpa("blue"),
            rollout("green"),
            rollout("blue"),
        )
    };
    let refused = lint(&[], &set("matchLabels: {app: web-template}"));
    assert_eq!(positions(&refused), [(44, 16, "HPA410".to_string())], "{refused}");
    assert_eq!(
        said(&refused, "HPA410"),
        [(
            "spec.template.metadata.labels".to_string(),
            "kube-apiserver rejects Deployment shop/web-template (Deployment.apps \"web-template\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`), so Rollout shop/blue and Rollout shop/green, whose spec.workloadRef names it, make no pods (Argo Rollouts: The Rollout \"blue\" is invalid: deployments.apps \"web-template\" not found, and likewise of each): there is nothing to scale".to_string(),
            "give the pod template the labels spec.selector selects (kube-apiserver refuses a workload whose selector does not select its own pods)".to_string(),
        )]
    );
    assert_eq!(
        related_of(&refused),
        [
            (16, 3, "this HPA scales the Rollout"),
            (5, 3, "this HPA scales the Rollout"),
            (35, 3, "takes its pod template from it"),
            (28, 3, "takes its pod template from it"),
        ]
    );
    let taken = lint(&["--select", "HPA407,HPA410"], &set("matchLabels: {app: web}"));
    assert_eq!(positions(&taken), [(5, 3, "HPA407".to_string()), (16, 3, "HPA407".to_string())], "{taken}");
}

/// An Argo Rollout whose `spec.workloadRef` Argo Rollouts refuses (a kind it does not resolve, or
/// a template written besides) makes no pods (InvalidSpec): HPA410 says so on the Rollout.
#[test]
fn a_rollout_whose_reference_argo_refuses_makes_no_pods() {
    let set = |rollout_spec: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {{name: web, namespace: shop}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n{rollout_spec}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web}}\n  maxReplicas: 5\n---\n{}",
            WEB_DEPLOYMENT.replace("  REPLICAS\n", "  replicas: 0\n")
        )
    };
    let taken =
        lint(&["--select", "HPA410"], &set("  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"));
    assert_eq!(positions(&taken), [], "{taken}");
    let kind =
        lint(&["--select", "HPA410"], &set("  workloadRef: {apiVersion: apps/v1, kind: StatefulSet, name: web}\n"));
    assert_eq!(positions(&kind), [(6, 44, "HPA410".to_string())], "{kind}");
    assert_eq!(
        said(&kind, "HPA410"),
        [(
            "spec.workloadRef.kind".to_string(),
            "Argo Rollouts refuses Rollout shop/web (InvalidSpec: The Rollout \"web\" is invalid: workload of type apps/StatefulSet is not supported), so it makes no pods: there is nothing to scale".to_string(),
            "name a Deployment, a ReplicaSet or a PodTemplate in spec.workloadRef (Argo Rollouts resolves no other kind), or write the pod template in the Rollout's spec.template".to_string(),
        )]
    );
    let template = lint(
        &["--select", "HPA410"],
        &set(
            "  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  template:\n    metadata: {labels: {app: web}}\n",
        ),
    );
    assert_eq!(positions(&template), [(7, 3, "HPA410".to_string())], "{template}");
    assert_eq!(
        said(&template, "HPA410")[0].1,
        "Argo Rollouts refuses Rollout shop/web (InvalidSpec: The Rollout \"web\" is invalid: template must be empty for workload reference rollout), so it makes no pods: there is nothing to scale"
    );
}

/// Several HPAs on one target kube-apiserver refuses: the target is never created, so the
/// controller fails to get its scale (FailedGetScale) before it compares HPAs. One HPA410, from
/// the first HPA, pointing at every one; no HPA407.
#[test]
fn hpas_of_a_refused_target_are_one_hpa410_and_no_conflict() {
    let hpa = |name: &str| {
        format!(
            "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 5\n"
        )
    };
    let deployment = |labels: &str| WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("labels: {app: web}", labels);
    let set = |labels: &str| format!("{}{}{}", deployment(labels), hpa("web"), hpa("web-2"));
    let rules = |report: &Value| -> Vec<String> { positions(report).into_iter().map(|(_, _, rule)| rule).collect() };
    let taken = lint(&["--select", "HPA407,HPA410"], &set("labels: {app: web}"));
    assert_eq!(rules(&taken), ["HPA407", "HPA407"], "{taken}");
    let refused = lint(&["--select", "HPA407,HPA410"], &set("labels: {app: other}"));
    assert_eq!(positions(&refused), [(9, 7, "HPA410".to_string())], "{refused}");
    let related = related_of(&refused);
    assert_eq!(related, [(20, 3, "this HPA scales it"), (28, 3, "this HPA scales it")]);
}

/// A workload kube-apiserver refuses is never created: its pods are no pods of the target's
/// selector (HPA201) and its HPA shares none (HPA407). The canary's selector selects a track its
/// template lacks; once the template carries it, its pods are the stable selector's too.
#[test]
fn a_refused_workload_shares_no_pods() {
    let set = |canary_labels: &str| {
        format!(
            "{}---\n{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web-canary, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web-canary}}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: rps}}, target: {{type: AverageValue, averageValue: \"10\"}}}}\n",
            WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("resources: {}", "resources: {requests: {cpu: 100m}}"),
            WEB_DEPLOYMENT
                .replace("  REPLICAS\n", "")
                .replace("name: web,", "name: web-canary,")
                .replace("matchLabels: {app: web}", "matchLabels: {app: web, track: canary}")
                .replace("labels: {app: web}", canary_labels)
        )
    };
    let rules = |report: &Value| -> Vec<String> { positions(report).into_iter().map(|(_, _, rule)| rule).collect() };
    let taken = lint(&["--select", "HPA201,HPA407,HPA410"], &set("labels: {app: web, track: canary}"));
    assert_eq!(rules(&taken), ["HPA407", "HPA201", "HPA407"], "{taken}");
    let refused = lint(&["--select", "HPA201,HPA407,HPA410"], &set("labels: {app: web}"));
    assert_eq!(rules(&refused), ["HPA410"], "{refused}");
}

/// Deployment `shop/web` (cpu requested), an HPA on its cpu utilization and a VPA on it whose
/// spec goes on with `spec` (after its `targetRef`).
fn vpa_set(spec: &str) -> String {
    format!(
        "{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n{spec}",
        WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("resources: {}", "resources: {requests: {cpu: 100m}}")
    )
}

/// Several VPAs on one target: the VPA's admission controller and updater each follow one per
/// pod (`GetControllingVPAForPod`: the first created, then by name; VPAs applied together are
/// created in the same second). The finding names the one each follows; a VPA neither follows
/// sets no request and gets none; an `Off` VPA or one never created is not counted.
#[test]
fn of_several_vpas_the_one_the_vpa_follows_is_named() {
    let vpa = |name: &str, mode: &str| {
        format!(
            "---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  updatePolicy: {{updateMode: {mode}}}\n"
        )
    };
    let messages = |report: &Value| -> Vec<String> { said(report, "HPA408").into_iter().map(|(_, m, _)| m).collect() };
    let same_second = "(VPAs applied together are created in the same second)";
    // Written after the others, `sizer` is still the first by name.
    let set = vpa_set("  updatePolicy: {updateMode: Recreate}\n") + &vpa("web-b", "Recreate") + &vpa("sizer", "Auto");
    assert_eq!(
        messages(&lint(&["--select", "HPA408"], &set)),
        [format!(
            "VerticalPodAutoscaler shop/sizer (Auto) also sets the cpu requests of container \"app\" of Deployment shop/web: the two autoscalers feed each other; of the 3 VPAs on it, the VPA admission controller and updater follow only this one, first by name {same_second}, and ignore web and web-b"
        )]
    );
    // An `Initial` VPA first by name sets the requests of new pods; the updater follows the first
    // of those that update running pods. `web-off` and the refused `web-0` count for nothing
    // (the latter is said as never created).
    let set = vpa_set("  updatePolicy: {updateMode: Recreate}\n")
        + &vpa("boot", "Initial")
        + &vpa("web-0", "Sometimes")
        + &vpa("web-off", "\"Off\"");
    assert_eq!(
        messages(&lint(&["--select", "HPA408"], &set)),
        [
            "VerticalPodAutoscaler shop/web-0: updateMode \"Sometimes\" is no mode the VPA's schema allows (VerticalPodAutoscaler.autoscaling.k8s.io \"web-0\" is invalid: spec.updatePolicy.updateMode: Unsupported value: \"Sometimes\": supported values: \"Off\", \"Initial\", \"Recreate\", \"InPlaceOrRecreate\", \"InPlace\", \"Auto\"): the VPA is not created".to_string(),
            format!(
                "VerticalPodAutoscaler shop/web (Recreate) also sets the cpu requests of container \"app\" of Deployment shop/web: the two autoscalers feed each other; of the 2 VPAs on it, the VPA updater follows this one for running pods, first by name of those that update them {same_second}, and the VPA admission controller sizes new pods from boot"
            ),
            format!(
                "VerticalPodAutoscaler shop/boot (Initial) sets the cpu requests of container \"app\" in every new pod of Deployment shop/web: the utilization this HPA targets is measured against requests that follow usage; of the 2 VPAs on it, the VPA admission controller follows this one for new pods, first by name {same_second}, and the VPA updater evicts or resizes running pods for web"
            ),
        ]
    );
}

/// A container policy's `mode: Off` written unquoted is YAML 1.1's `false`: the VPA CRD's
/// schema refuses the VPA, as it does an unquoted `updateMode: Off`, so it sizes nothing; the
/// finding says so instead of a conflict with a VPA that does not exist.
#[test]
fn an_unquoted_off_in_a_container_policy_refuses_the_vpa() {
    let set = format!(
        "{}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  targetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  resourcePolicy:\n    containerPolicies:\n    - {{containerName: app, mode: Off}}\n",
        WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace("resources: {}", "resources: {requests: {cpu: 100m}}")
    );
    let report = lint(&["--select", "HPA408"], &set);
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: containerPolicies[0].mode is the boolean false (YAML reads an unquoted Off as false), which the VPA's schema refuses (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: [spec.resourcePolicy.containerPolicies[0].mode: Invalid value: \"boolean\": spec.resourcePolicy.containerPolicies[0].mode in body must be of type string: \"boolean\", spec.resourcePolicy.containerPolicies[0].mode: Unsupported value: false: supported values: \"Auto\", \"Off\"]): the VPA is not created".to_string(),
            "quote the mode: mode: \"Off\"".to_string()
        )]
    );
    assert_eq!(first_related_at(&report), (33, 34), "{report}");
    // Quoted, the policy is off and the VPA sizes no container the HPA reads: nothing.
    let quoted = lint(&["--select", "HPA408"], &set.replace("mode: Off", "mode: \"Off\""));
    assert!(said(&quoted, "HPA408").is_empty(), "{quoted}");
}

/// A mode outside the VPA CRD's enum (`updateMode: auto`, a container policy's `mode: off`) is
/// refused by its schema as an unquoted `Off` is: the finding says so, in
/// apiextensions-apiserver's words (`field.NotSupported` with the enum, in its order), instead
/// of staying silent about a VPA that does not exist.
#[test]
fn a_mode_outside_the_vpa_enum_refuses_the_vpa() {
    let set = vpa_set;
    let report = lint(&["--select", "HPA408"], &set("  updatePolicy: {updateMode: auto}\n"));
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: updateMode \"auto\" is no mode the VPA's schema allows (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: spec.updatePolicy.updateMode: Unsupported value: \"auto\": supported values: \"Off\", \"Initial\", \"Recreate\", \"InPlaceOrRecreate\", \"InPlace\", \"Auto\"): the VPA is not created".to_string(),
            "write the mode as the schema spells it: updateMode: \"Auto\"".to_string()
        )]
    );
    assert_eq!(first_related_at(&report), (31, 30), "{report}");
    let report = lint(&["--select", "HPA408"], &set("  updatePolicy: {updateMode: Always}\n"));
    assert_eq!(
        said(&report, "HPA408")[0].2,
        "write one of the modes: \"Off\", \"Initial\", \"Recreate\" or \"InPlaceOrRecreate\""
    );
    let report = lint(
        &["--select", "HPA408"],
        &set("  resourcePolicy:\n    containerPolicies:\n    - {containerName: app, mode: \"off\"}\n"),
    );
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: containerPolicies[0].mode \"off\" is no mode the VPA's schema allows (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: spec.resourcePolicy.containerPolicies[0].mode: Unsupported value: \"off\": supported values: \"Auto\", \"Off\"): the VPA is not created".to_string(),
            "write the mode as the schema spells it: mode: \"Off\"".to_string()
        )]
    );
}

/// A list or a map where the VPA CRD's schema wants a string is printed as each release prints
/// the unstructured value in `Unsupported value: X`: its JSON from 1.34 (a map's keys sorted),
/// Go's `%#v` in 1.33 (`[]interface {}{false}`); a fraction as `%v` prints a float64 in both.
#[test]
fn a_vpa_list_or_map_value_is_printed_as_the_release_prints_it() {
    let words = |release: &str, mode: &str| {
        let report = lint(
            &["--select", "HPA408", "--kubernetes-version", release],
            &vpa_set(&format!("  updatePolicy: {{updateMode: {mode}}}\n")),
        );
        said(&report, "HPA408").remove(0).1
    };
    let message = |ty: &str, value: &str| {
        format!(
            "VerticalPodAutoscaler shop/web: updateMode is no string, which the VPA's schema refuses (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: [spec.updatePolicy.updateMode: Invalid value: \"{ty}\": spec.updatePolicy.updateMode in body must be of type string: \"{ty}\", spec.updatePolicy.updateMode: Unsupported value: {value}: supported values: \"Off\", \"Initial\", \"Recreate\", \"InPlaceOrRecreate\", \"InPlace\", \"Auto\"]): the VPA is not created"
        )
    };
    assert_eq!(words("1.37", "[Off, x]"), message("array", "[false,\"x\"]"));
    assert_eq!(words("1.33", "[Off, x]"), message("array", "[]interface {}{false, \"x\"}"));
    assert_eq!(words("1.37", "{b: 1, a: [x]}"), message("object", "{\"a\":[\"x\"],\"b\":1}"));
    assert_eq!(
        words("1.33", "{b: 1, a: [x]}"),
        message("object", "map[string]interface {}{\"a\":[]interface {}{\"x\"}, \"b\":1}")
    );
    for release in ["1.33", "1.37"] {
        assert_eq!(words(release, "1234567.5"), message("number", "1.2345675e+06"));
    }
}

/// Every value the VPA CRD's schema refuses is in the finding, as kube-apiserver lists them
/// (`VerticalPodAutoscaler.autoscaling.k8s.io "web" is invalid: [...]`): a container policy's
/// `controlledValues` outside its enum too, the VPA 1.7 `InPlace` mode accepted (the VPA
/// admission controller refuses it behind its feature gate:
/// `a_vpa_the_vpa_admission_controller_refuses_is_not_created`).
#[test]
fn every_value_the_vpa_schema_refuses_is_in_kube_apiserver_words() {
    let set = vpa_set;
    let report = lint(
        &["--select", "HPA408"],
        &set(
            "  updatePolicy: {updateMode: Always}\n  resourcePolicy:\n    containerPolicies:\n    - {containerName: app, controlledValues: requestsOnly, mode: 1}\n",
        ),
    );
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: updateMode \"Always\" is no mode the VPA's schema allows (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: [spec.updatePolicy.updateMode: Unsupported value: \"Always\": supported values: \"Off\", \"Initial\", \"Recreate\", \"InPlaceOrRecreate\", \"InPlace\", \"Auto\", spec.resourcePolicy.containerPolicies[0].controlledValues: Unsupported value: \"requestsOnly\": supported values: \"RequestsAndLimits\", \"RequestsOnly\", spec.resourcePolicy.containerPolicies[0].mode: Invalid value: \"integer\": spec.resourcePolicy.containerPolicies[0].mode in body must be of type string: \"integer\", spec.resourcePolicy.containerPolicies[0].mode: Unsupported value: 1: supported values: \"Auto\", \"Off\"]): the VPA is not created".to_string(),
            "write one of the modes: \"Off\", \"Initial\", \"Recreate\" or \"InPlaceOrRecreate\"".to_string()
        )]
    );
    let report = lint(
        &["--select", "HPA408"],
        &set("  resourcePolicy:\n    containerPolicies:\n    - {containerName: app, controlledValues: requestsOnly}\n"),
    );
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: containerPolicies[0].controlledValues \"requestsOnly\" is no value the VPA's schema allows (VerticalPodAutoscaler.autoscaling.k8s.io \"web\" is invalid: spec.resourcePolicy.containerPolicies[0].controlledValues: Unsupported value: \"requestsOnly\": supported values: \"RequestsAndLimits\", \"RequestsOnly\"): the VPA is not created".to_string(),
            "write the value as the schema spells it: controlledValues: \"RequestsOnly\"".to_string()
        )]
    );
    assert_eq!(first_related_at(&report), (33, 46), "{report}");
    let report = lint(&["--select", "HPA408"], &set("  updatePolicy: {updateMode: InPlace}\n"));
    assert!(!said(&report, "HPA408")[0].1.contains("schema"), "{report}");
}

/// A VPA the VPA admission controller refuses when it is created (`validateVPA` of VPA 1.7,
/// its feature gates at their defaults) is never created: HPA408 says so, in kube-apiserver's
/// words for the webhook's denial with every error in `validateVPA`'s order, at the first
/// error (a missing field's parent), instead of a conflict with a VPA that does not exist.
#[test]
fn a_vpa_the_vpa_admission_controller_refuses_is_not_created() {
    let refused = |spec: &str| {
        let report = lint(&["--select", "HPA408"], &vpa_set(spec));
        let (path, message, help) = said(&report, "HPA408").remove(0);
        assert_eq!(path, "spec.scaleTargetRef");
        (message, help, first_related_at(&report))
    };
    let words = |errors: &str| {
        format!(
            "VerticalPodAutoscaler shop/web: the VPA admission controller refuses it (admission webhook \"vpa.k8s.io\" denied the request: {errors}): the VPA is not created"
        )
    };
    // An updatePolicy without its updateMode: the VPA's default applies only without the policy.
    assert_eq!(
        refused("  updatePolicy: {minReplicas: 2}\n"),
        (
            words("spec.updatePolicy.updateMode: Required value: updateMode is required if UpdatePolicy is used"),
            "write updatePolicy.updateMode (\"Recreate\", \"InPlaceOrRecreate\", \"Initial\" or \"Off\"), or leave updatePolicy out for the default, \"Recreate\"".to_string(),
            (31, 3)
        )
    );
    // InPlace, behind the alpha InPlace gate; minReplicas must be positive.
    assert_eq!(
        refused("  updatePolicy: {updateMode: InPlace, minReplicas: 0}\n"),
        (
            words("[spec.updatePolicy.updateMode: Forbidden: in order to use UpdateMode InPlace, you must enable feature gate InPlace in the admission-controller args, spec.updatePolicy.minReplicas: Invalid value: 0: minReplicas has to be positive]"),
            "enable the InPlace feature gate of the VPA admission controller and updater (--feature-gates=InPlace=true), or write updateMode: \"InPlaceOrRecreate\"".to_string(),
            (31, 30)
        )
    );
    // A policy without a container name, a maximum below its minimum, a fraction of a byte,
    // controlledValues on a policy that is off, the PerVPAConfig fields behind their gate.
    assert_eq!(
        refused(
            "  resourcePolicy:\n    containerPolicies:\n    - {mode: \"Off\", controlledValues: RequestsAndLimits, minAllowed: {memory: \"0.5\", cpu: \"2\"}, maxAllowed: {cpu: 500m}, oomBumpUpRatio: 2}\n"
        ),
        (
            words(
                "[spec.resourcePolicy.containerPolicies[0].containerName: Required value, spec.resourcePolicy.containerPolicies[0].maxAllowed[cpu]: Invalid value: \"500m\": max resource for cpu is lower than min of \"2\", spec.resourcePolicy.containerPolicies[0].minAllowed[memory]: Invalid value: \"500m\": must be a whole number of bytes, spec.resourcePolicy.containerPolicies[0].controlledValues: Forbidden: controlledValues shouldn't be specified if container scaling mode is off, spec.resourcePolicy.containerPolicies[0].oomBumpUpRatio: Forbidden: not supported when feature flag PerVPAConfig is disabled]"
            ),
            "name the container the policy is for, or \"*\" for every container".to_string(),
            (33, 7)
        )
    );
    // A cpu quantity finer than a millicore, startupBoost behind its gate, two recommenders.
    assert_eq!(
        refused(
            "  resourcePolicy:\n    containerPolicies:\n    - {containerName: app, maxAllowed: {cpu: 0.0005}}\n  startupBoost: {cpu: {type: Factor, factor: 2}}\n  recommenders: [{name: a}, {name: b}]\n"
        ),
        (
            words(
                "[spec.resourcePolicy.containerPolicies[0].maxAllowed[cpu]: Invalid value: \"500u\": must be a whole number of milli CPUs, spec.startupBoost: Forbidden: in order to use startupBoost, you must enable feature gate CPUStartupBoost in the admission-controller args, spec.recommenders: Too many: 2: must have at most 1 items]"
            ),
            "write the quantity as a whole number of milli CPUs".to_string(),
            (33, 46)
        )
    );
    // What it admits: no updatePolicy (the default, Recreate), the deprecated Auto, InPlaceOrRecreate.
    for spec in [
        "",
        "  updatePolicy: {updateMode: Auto}\n",
        "  updatePolicy: {updateMode: InPlaceOrRecreate, minReplicas: 1}\n",
    ] {
        let report = lint(&["--select", "HPA408"], &vpa_set(spec));
        assert!(said(&report, "HPA408")[0].1.contains(") also sets the cpu requests"), "{spec}: {report}");
    }
}

/// HPA408 names the VPA and the workload with their namespace and lists the containers as the
/// other rules do (`containers "app" and "side"`); HPA201 calls a restartable init container a
/// sidecar in a `ContainerResource` finding, as in its `Resource` ones.
#[test]
fn vpa_and_sidecar_findings_name_objects_and_lists_as_the_other_rules() {
    let deployment = WEB_DEPLOYMENT.replace("  REPLICAS\n", "").replace(
        "        resources: {}\n",
        "        resources: {requests: {cpu: 100m}}\n      - name: side\n        image: ghcr.io/example/side:1.0\n        resources: {requests: {cpu: 50m}}\n      initContainers:\n      - name: proxy\n        image: ghcr.io/example/proxy:1.0\n        restartPolicy: Always\n",
    );
    let hpa = |metric: &str| {
        format!(
            "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n  metrics:\n  - {metric}\n"
        )
    };
    let vpa = "---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n";
    let resource = hpa("{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}");
    let report = lint(&["--select", "HPA408"], &(deployment.clone() + &resource + vpa));
    assert_eq!(
        said(&report, "HPA408")[0].1,
        "VerticalPodAutoscaler shop/web (Recreate) also sets the cpu requests of containers \"app\" and \"side\" of Deployment shop/web: the two autoscalers feed each other"
    );
    let sidecar = hpa(
        "{type: ContainerResource, containerResource: {name: cpu, container: proxy, target: {type: Utilization, averageUtilization: 70}}}",
    );
    let report = lint(&["--select", "HPA201"], &(deployment + &sidecar));
    assert_eq!(
        said(&report, "HPA201"),
        [(
            "spec.metrics[0].containerResource.target.averageUtilization".to_string(),
            "cpu utilization of sidecar \"proxy\" needs a cpu request, and it has none: the controller will not scale on this metric".to_string(),
            "add resources.requests.cpu to sidecar \"proxy\" (a cpu limit alone also sets it)".to_string()
        )]
    );
}

/// The VPA 1.7 CRD serves `autoscaling.k8s.io/v1` only (`v1beta2` is `served: false`): a VPA
/// written in another version is never created (`kubectl apply`: no matches for kind), and
/// HPA408 says so instead of a conflict, in another group too (`autoscaling/v1`, which HPA406
/// also names).
#[test]
fn a_vpa_in_a_version_its_crd_does_not_serve_is_not_created() {
    let set = vpa_set("  updatePolicy: {updateMode: Recreate}\n");
    let report = lint(&["--select", "HPA408"], &set.replace("autoscaling.k8s.io/v1\n", "autoscaling.k8s.io/v1beta2\n"));
    assert_eq!(
        said(&report, "HPA408"),
        [(
            "spec.scaleTargetRef".to_string(),
            "VerticalPodAutoscaler shop/web: autoscaling.k8s.io/v1beta2 is not served by the VPA's CustomResourceDefinition, which serves autoscaling.k8s.io/v1 only (kubectl: no matches for kind \"VerticalPodAutoscaler\" in version \"autoscaling.k8s.io/v1beta2\"): the VPA is not created".to_string(),
            "write apiVersion: autoscaling.k8s.io/v1".to_string()
        )]
    );
    assert_eq!(first_related_at(&report), (26, 13), "{report}");
    let report = lint(&["--select", "HPA408"], &set.replace("autoscaling.k8s.io/v1\n", "autoscaling/v1\n"));
    assert!(
        said(&report, "HPA408")[0].1.starts_with(
            "VerticalPodAutoscaler shop/web: autoscaling/v1 is not served by the VPA's CustomResourceDefinition"
        ),
        "{report}"
    );
    let report = lint(&["--select", "HPA408"], &set);
    assert!(said(&report, "HPA408")[0].1.contains("(Recreate) also sets"), "{report}");
}

/// A custom resource with a `/scale` subresource makes its pods as its operator decides, and
/// the controller finds them by the selector its CRD's `labelSelectorPath` reads: a
/// `spec.template` and `spec.selector` it happens to have say nothing certain of them. So no
/// rule about the target's pods guesses from them: no missing request (HPA201), no unknown
/// container (HPA202), no budget counted on its template's labels (HPA104), no pods shared
/// with a Deployment's HPA (HPA407), and HPA408 names no container; the same pod template in a
/// Deployment is judged.
#[test]
fn the_pods_of_a_custom_resource_are_not_guessed_from_its_template() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: workers.example.com}\nspec:\n  group: example.com\n  names: {kind: Worker, plural: workers}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n    subresources:\n      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size, labelSelectorPath: .status.selector}\n";
    let workload = |api_version: &str, kind: &str| {
        format!(
            "---\napiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: w, namespace: shop}}\nspec:\n  selector: {{matchLabels: {{app: w}}}}\n  template:\n    metadata: {{labels: {{app: w, tier: web}}}}\n    spec:\n      containers:\n      - {{name: app, image: ghcr.io/example/w:1}}\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: w, namespace: shop}}\nspec:\n  scaleTargetRef: {{apiVersion: {api_version}, kind: {kind}, name: w}}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 50}}}}\n  - type: ContainerResource\n    containerResource: {{name: memory, container: proxy, target: {{type: AverageValue, averageValue: 100Mi}}}}\n"
        )
    };
    // A budget on the template's labels, a VPA, and a Deployment of another HPA whose selector
    // selects the template's labels.
    let around = "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: w, namespace: shop}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: w}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {name: w, namespace: shop}\nspec:\n  targetRef: {apiVersion: TARGET_API, kind: TARGET_KIND, name: w}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {tier: web}}\n  template:\n    metadata: {labels: {tier: web}}\n    spec:\n      containers:\n      - {name: app, image: ghcr.io/example/web:1, resources: {requests: {cpu: 100m}}}\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n";
    let set = |api_version: &str, kind: &str| {
        format!(
            "{crd}{}{}",
            workload(api_version, kind),
            around.replace("TARGET_API", api_version).replace("TARGET_KIND", kind)
        )
    };
    let rules = |report: &Value| {
        let mut found: Vec<String> =
            report["diagnostics"].as_array().unwrap().iter().map(|d| d["rule"].as_str().unwrap().to_string()).collect();
        found.sort();
        found
    };
    let custom = lint(&[], &set("example.com/v1", "Worker"));
    assert_eq!(rules(&custom), ["HPA408", "HPA408"], "{custom}");
    let messages: Vec<String> = said(&custom, "HPA408").into_iter().map(|(_, m, _)| m).collect();
    assert_eq!(
        messages,
        [
            "VerticalPodAutoscaler shop/w (Recreate) also sets the cpu requests of Worker shop/w: the two autoscalers feed each other",
            "VerticalPodAutoscaler shop/w (Recreate) also sets the memory requests of container \"proxy\" of Worker shop/w: the two autoscalers feed each other",
        ]
    );
    // The same objects as a Deployment: every rule about its pods speaks.
    let deployment = lint(&[], &set("apps/v1", "Deployment"));
    assert_eq!(
        rules(&deployment),
        ["HPA104", "HPA201", "HPA201", "HPA202", "HPA407", "HPA407", "HPA408", "HPA408"],
        "{deployment}"
    );
    assert!(said(&deployment, "HPA408")[0].1.contains("container \"app\" of Deployment shop/w"), "{deployment}");
}

/// An HPA whose target the controller never scales, a kind without a `scale` subresource
/// (a DaemonSet, a Job: HPA402) or a built-in kind in a group that does not serve it (a
/// Deployment of `extensions/v1beta1`: HPA405), fails at `FailedGetScale` before it reads a
/// selector or a metric: that is the one finding. Its pods' requests (HPA201) and containers
/// (HPA202), a budget on them (HPA104), a VPA sizing them (HPA408) and another HPA on the same
/// target (HPA407: neither registers a selector) say nothing.
#[test]
fn an_hpa_the_controller_never_scales_with_has_no_finding_about_pods() {
    let set = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      containers: [{name: a, image: ghcr.io/example/agent:1}]\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: ds}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: DaemonSet, name: agent}\n  maxReplicas: 5\n  metrics:\n  - type: ContainerResource\n    containerResource: {name: cpu, container: nope, target: {type: Utilization, averageUtilization: 50}}\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: ds2}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: DaemonSet, name: agent}\n  maxReplicas: 5\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: agent}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: agent}}\n---\napiVersion: autoscaling.k8s.io/v1\nkind: VerticalPodAutoscaler\nmetadata: {name: agent}\nspec:\n  targetRef: {apiVersion: apps/v1, kind: DaemonSet, name: agent}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: a, image: ghcr.io/example/web:1}]\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: extensions/v1beta1, kind: Deployment, name: web}\n  maxReplicas: 5\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: job}\nspec:\n  template:\n    metadata: {labels: {app: job}}\n    spec:\n      restartPolicy: Never\n      containers: [{name: a, image: ghcr.io/example/job:1}]\n---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: job}\nspec:\n  scaleTargetRef: {apiVersion: batch/v1, kind: Job, name: job}\n  maxReplicas: 5\n";
    let report = lint(&[], set);
    let found: Vec<(String, String)> = diagnostics(&report)
        .map(|d| (d["object"]["name"].as_str().unwrap().to_string(), d["rule"].as_str().unwrap().to_string()))
        .collect();
    let expected = [("ds", "HPA402"), ("ds2", "HPA402"), ("web", "HPA405"), ("job", "HPA402")];
    assert_eq!(found, expected.map(|(n, r)| (n.to_string(), r.to_string())), "{report}");
    // The same HPAs on a Deployment of apps/v1: every rule about its pods speaks.
    let scaled = set
        .replace("apps/v1, kind: DaemonSet", "apps/v1, kind: Deployment")
        .replace("kind: DaemonSet", "kind: Deployment");
    let scaled = scaled.replace("extensions/v1beta1", "apps/v1");
    let report = lint(&[], &scaled);
    let mut rules: Vec<String> =
        report["diagnostics"].as_array().unwrap().iter().map(|d| d["rule"].as_str().unwrap().to_string()).collect();
    rules.sort();
    rules.dedup();
    assert_eq!(rules, ["HPA104", "HPA201", "HPA202", "HPA402", "HPA407", "HPA408"], "{report}");
}

/// HPA409 reads KEDA's pause annotations as KEDA's `NeedToBePausedByAnnotation` does: a pause
/// (`paused` but a Go false, `paused-replicas` at a count KEDA reaches) is a note; a
/// `paused-replicas` that is no replica count pauses nothing, whatever `paused` says: an error
/// that says why.
#[test]
fn keda_pause_annotations_are_read_as_keda_reads_them() {
    let report = lint(&["--select", "HPA409"], include_str!("../data/lint/HPA409/bad.yaml"));
    let of = |name: &str| {
        let found: Vec<(String, String)> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["message"].as_str().unwrap().contains(&format!("KEDA ScaledObject {name} also")))
            .map(|d| (d["severity"].as_str().unwrap().to_string(), d["message"].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        found.into_iter().next().unwrap()
    };
    for name in ["paused", "paused-yes", "parked"] {
        let (severity, message) = of(name);
        assert_eq!(severity, "info", "{name}: {message}");
        assert!(message.contains("but it is paused (autoscaling.keda.sh/paused"), "{name}: {message}");
    }
    for name in ["worker", "resumed"] {
        assert_eq!(of(name).0, "error", "{name}");
    }
    let (severity, message) = of("unparked");
    assert_eq!(severity, "error");
    assert!(
        message.contains(
            "it is not paused: autoscaling.keda.sh/paused-replicas: \"three\" is not a replica count (KEDA reads it with strconv.ParseInt), so KEDA does not pause it, and cannot build or update its HPA (keda-hpa-unparked)"
        ),
        "{message}"
    );
}

/// A kind the set's CustomResourceDefinition makes cluster-scoped has no namespace, whatever it
/// writes or the set's is: an HPA does not meet it in its own namespace (where the controller
/// looks for it in vain: HPA412, the one finding, and no HPA410 on a count the controller never
/// reaches), it is never printed in a namespace, and a namespace it writes does not place the
/// objects that name none.
#[test]
fn custom_kinds_a_crd_makes_cluster_scoped_take_no_namespace() {
    let crd = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: pools.example.com}\nspec:\n  group: example.com\n  names: {kind: Pool, plural: pools}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n    subresources:\n      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}\n";
    let pool = "---\napiVersion: example.com/v1\nkind: Pool\nmetadata: {name: p}\nspec: {replicas: 3}\n";
    let hpa = "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: p, namespace: shop}\nspec:\n  scaleTargetRef: {apiVersion: example.com/v1, kind: Pool, name: p}\n  minReplicas: 1\n  maxReplicas: 3\n  metrics:\n  - type: Pods\n    pods: {metric: {name: x}, target: {type: AverageValue, averageValue: \"1\"}}\n";
    let rules =
        |report: &Value| diagnostics(report).map(|d| d["rule"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let report = lint(&["--select", "all", "--ignore", "HPA102,HPA305"], &format!("{crd}{pool}{hpa}"));
    assert_eq!(rules(&report), ["HPA412"], "{report}");
    assert!(notes(&report).is_empty(), "{report}");
    // Written in a namespace, it is still in none.
    let named = pool.replace("{name: p}", "{name: p, namespace: shop}");
    let report = lint(&["--select", "all", "--ignore", "HPA102,HPA305"], &format!("{crd}{named}{hpa}"));
    assert_eq!(rules(&report), ["HPA412"], "{report}");
    // A namespace-scoped CRD: the Pool joins the HPA's namespace and is its target.
    let report = lint(&["--select", "HPA410"], &format!("{}{pool}{hpa}", crd.replace("Cluster", "Namespaced")));
    assert_eq!(
        said(&report, "HPA410")[0].1,
        "Pool shop/p sets spec.replicas: 3 while HorizontalPodAutoscaler shop/p scales it: every apply resets the count"
    );
    // The namespace it writes places no object that names none: they stay in `default`.
    let elsewhere = pool.replace("{name: p}", "{name: p, namespace: elsewhere}");
    let unnamed = hpa.replace("{name: p, namespace: shop}", "{name: p}");
    let report = lint(&["--select", "HPA412"], &format!("{crd}{elsewhere}{unnamed}"));
    // Nor does a link depend on the namespace assumed for the HPA: the Pool is in none.
    assert!(notes(&report).is_empty(), "{report}");
    assert_eq!(diagnostics(&report).map(|d| d["object"]["namespace"].clone()).collect::<Vec<_>>(), ["default"]);
}
