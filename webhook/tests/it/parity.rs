//! One behavior, both front ends: the same HPAs fed to `hpa-lint` and to the webhook's review
//! function ([`Reviewer::review`] on `/validate`) give the same rule IDs, for every release
//! (1.33 to 1.38) and for both operations:
//!
//! - CREATE: `hpa-lint --kubernetes-version X -` (in-process, each HPA alone on standard input,
//!   default rules) against a CREATE review of the object as kube-apiserver X sends it (decoded
//!   with X's types, strictly as kubectl asks, and defaulted).
//! - UPDATE: the same objects stored by the test API server (converted to autoscaling/v2, with a
//!   `resourceVersion`), linted live by `hpa-lint cluster --kubernetes-version X`, which checks
//!   each stored HPA as kube-apiserver checks it again (an UPDATE onto itself, `old` given:
//!   hpa-cluster's `LiveHpa::reapplied`), against an UPDATE review whose `object` and
//!   `oldObject` are that stored object.
//!
//! - The HPAs: every rule's documentation examples (bad and good), every lint fixture
//!   (`tests/data/lint/*/{bad,good}.yaml`) and the real-world manifests.
//! - The webhook's IDs: those of its warnings (`HPA101 min-replicas-equals-max: ...`), and
//!   `HPA000` when it denies the object with kube-apiserver's `Invalid` status.
//! - The linter's IDs: its diagnostics on the HPA at warning severity or above (the webhook
//!   turns informational findings into no warning), of the rules that need only the HPA (the
//!   reviewer is called without a context cache here).
//! - Objects kube-apiserver cannot decode, and versions the release no longer serves, never
//!   reach a webhook: they are counted, not compared.
//!
//! The cross-object rules are compared on worlds of their own: `hpa-lint` on the objects as
//! files against the real server with its context cache watching the same objects in the test
//! API server (CREATE and UPDATE of the HPA): same rule IDs, same messages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::Parser as _;
use hpa_core::api::{self, Strictness, VersionedHpa};
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::rules::{self, Severity};
use hpa_tests::apiserver::LiveCluster;
use hpa_webhook::admission::Reviewer;
use hpa_webhook::metrics::Endpoint;
use hpa_webhook::policy::Policy;
use serde_json::{Value, json};

use crate::support::{response, review, workspace};

/// Whether the linter's diagnostic `d` (JSON output) is one the webhook can report: warning
/// severity or above, of a rule that needs only the HPA.
fn comparable(d: &Value) -> Option<String> {
    if !matches!(d["severity"].as_str(), Some("error" | "warning")) {
        return None;
    }
    let id = d["rule"].as_str()?;
    rules::find(id).is_some_and(|r| !r.meta().needs_objects).then(|| id.to_string())
}

/// The IDs `hpa-lint --kubernetes-version release` reports for one object (JSON text on
/// standard input).
fn lint_ids(object: &Value, release: KubernetesVersion) -> BTreeSet<String> {
    let release = release.to_string();
    let args = hpa_lint::cli::Args::try_parse_from([
        "hpa-lint",
        "--no-config",
        "--kubernetes-version",
        &release,
        "-o",
        "json",
        "--fail-on",
        "never",
        "-",
    ])
    .unwrap();
    let text = object.to_string();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = text.as_bytes();
    let mut io = hpa_lint::Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    assert_eq!(code, 0, "{text}: {}", String::from_utf8_lossy(&stderr));
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    report["diagnostics"].as_array().unwrap().iter().filter_map(comparable).collect()
}

/// The IDs `hpa-lint cluster --kubernetes-version release` reports for each HPA of `cluster`,
/// by namespace (each HPA has a namespace of its own).
fn cluster_lint_ids(cluster: &LiveCluster, release: KubernetesVersion) -> BTreeMap<String, BTreeSet<String>> {
    let release = release.to_string();
    let run = cluster.hpa_lint(
        "cluster",
        &["--no-config", "-A", "--kubernetes-version", &release, "-o", "json", "--fail-on", "never"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for d in run.json()["diagnostics"].as_array().unwrap() {
        if d["object"]["kind"] != "HorizontalPodAutoscaler" {
            continue;
        }
        if let Some(id) = comparable(d) {
            ids.entry(d["object"]["namespace"].as_str().unwrap().to_string()).or_default().insert(id);
        }
    }
    ids
}

/// The IDs the webhook's review function reports on `/validate` for one review.
fn webhook_ids(reviewer: &Reviewer, review: &Value) -> BTreeSet<String> {
    let answer = reviewer.review(Endpoint::Validate, review.to_string().as_bytes(), &Policy::default());
    let answer: Value = serde_json::from_slice(&answer.body).unwrap();
    let r = &answer["response"];
    let mut ids: BTreeSet<String> = r["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w.as_str()?.split(' ').next()).map(String::from).collect())
        .unwrap_or_default();
    ids.retain(|id| rules::find(id).is_some());
    if r["allowed"] == false {
        assert_eq!(r["status"]["reason"], "Invalid", "{review}: {r}");
        ids.insert(rules::INVALID.id.to_string());
    }
    ids
}

/// The ```yaml blocks of a rule's documentation.
fn doc_examples(docs: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in docs.lines() {
        match &mut current {
            None if line.trim_end() == "```yaml" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

fn yaml_files(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// Every HPA of the rules' documentation examples, the lint fixtures and the real-world
/// manifests, as written (JSON), with where it comes from.
fn all_hpas() -> Vec<(String, Value)> {
    let mut inputs: Vec<(String, String)> = Vec::new();
    for rule in rules::ALL {
        for (i, example) in doc_examples(&rule.meta().docs()).into_iter().enumerate() {
            inputs.push((format!("{} example {i}", rule.meta().id), example));
        }
    }
    let data = workspace().join("tests/data");
    yaml_files(&data.join("lint"), &mut inputs);
    yaml_files(&data.join("realworld"), &mut inputs);
    let mut hpas = Vec::new();
    for (name, text) in &inputs {
        let file = hpa_lint::input::from_bytes(name.clone(), text.clone().into_bytes());
        for obj in hpa_lint::input::objects(0, &file).iter().filter(|o| o.is_hpa()) {
            hpas.push((name.clone(), obj.node.to_json()));
        }
    }
    hpas
}

/// The rules no HPA here can show under the defaults, whatever the release: HPA103 needs a
/// `maxReplicasLimit`, HPA401 a version the release no longer serves (never sent to a
/// webhook), HPA406 is about objects that are not HPAs, and HPA001 about a key a file writes
/// twice (kubectl sends it once: no object a webhook is sent has one). HPA306 needs a release
/// without `HPAConfigurableTolerance` on (1.33, where it is alpha).
const UNREACHABLE: [&str; 4] = ["HPA001", "HPA103", "HPA401", "HPA406"];

/// The single-object rules at warning severity or above, enabled by default, but `UNREACHABLE`.
fn expected_rules() -> BTreeSet<String> {
    rules::ALL
        .iter()
        .map(|r| r.meta())
        .filter(|m| !m.needs_objects && m.enabled_by_default && m.severity >= Severity::Warning)
        .filter(|m| !UNREACHABLE.contains(&m.id))
        .map(|m| m.id.to_string())
        .collect()
}

#[test]
fn the_linter_and_the_webhook_report_the_same_rules_on_create_in_every_release() {
    let hpas = all_hpas();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut failures = Vec::new();
    for release in KubernetesVersion::ALL {
        let reviewer = Reviewer::new(FeatureGates::new(release));
        let (mut compared, mut unreachable) = (0, 0);
        for (name, written) in &hpas {
            // What kube-apiserver would send the webhook: the object decoded (strictly, as kubectl
            // asks, with the release's types) and defaulted; an object it refuses to decode, or of
            // a version it no longer serves, never reaches a webhook.
            let Ok(decoded) = api::decode_json(&written.to_string(), Strictness::Strict, release) else {
                unreachable += 1;
                continue;
            };
            let mut sent = decoded.value;
            if sent.api_version().removed_in().is_some_and(|minor| release.minor() >= minor) {
                unreachable += 1;
                continue;
            }
            hpa_core::defaults::default_versioned(&mut sent);
            let sent: Value = VersionedHpa::to_json(&sent);
            let (lint, webhook) =
                (lint_ids(written, release), webhook_ids(&reviewer, &review("parity", "CREATE", &sent, None)));
            if lint != webhook {
                failures.push(format!("{release} CREATE {name}: hpa-lint {lint:?}, webhook {webhook:?}\n  {written}"));
            }
            seen.extend(lint);
            compared += 1;
        }
        assert!(compared > 100 && unreachable > 0, "{release}: {compared} compared, {unreachable} unreachable");
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    // The comparison covers refused objects and every single-object rule at warning severity
    // or above, not only clean ones.
    let expected = expected_rules();
    let missing: Vec<&String> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "no compared HPA has a finding of {missing:?}");
}

#[test]
fn the_linter_and_the_webhook_report_the_same_rules_on_update_in_every_release() {
    let hpas = all_hpas();
    // Every HPA kube-apiserver would store, as it stores it: decoded (with the newest types),
    // defaulted, and converted to autoscaling/v2 (the test API server converts), each in a
    // namespace of its own.
    let cluster = LiveCluster::start();
    let mut stored: Vec<(String, String, Value)> = Vec::new();
    for (i, (name, written)) in hpas.iter().enumerate() {
        let Ok(decoded) = api::decode_json(&written.to_string(), Strictness::Strict, KubernetesVersion::PREVIEW) else {
            continue;
        };
        let mut object = decoded.value;
        hpa_core::defaults::default_versioned(&mut object);
        let mut object = VersionedHpa::to_json(&object);
        let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) else { continue };
        let namespace = format!("p{i}");
        meta.insert("namespace".into(), json!(namespace));
        if meta.get("name").and_then(Value::as_str).is_none_or(str::is_empty) {
            meta.insert("name".into(), json!("unnamed"));
        }
        if hpa_tests::apiserver::store::convert_hpa(&object, api::ApiVersion::V2).is_err() {
            continue;
        }
        stored.push((name.clone(), namespace, cluster.server.put(object)));
    }
    assert!(stored.len() > 100, "{} stored", stored.len());
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut failures = Vec::new();
    for release in KubernetesVersion::ALL {
        let reviewer = Reviewer::new(FeatureGates::new(release));
        let mut linted = cluster_lint_ids(&cluster, release);
        for (name, namespace, object) in &stored {
            let lint = linted.remove(namespace).unwrap_or_default();
            let webhook = webhook_ids(&reviewer, &review("parity", "UPDATE", object, Some(object)));
            if lint != webhook {
                failures.push(format!("{release} UPDATE {name}: hpa-lint {lint:?}, webhook {webhook:?}\n  {object}"));
            }
            seen.extend(lint);
        }
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    // HPA411 is about autoscaling/v1's round-trip annotations, which a stored object (in
    // autoscaling/v2) no longer has.
    let mut expected = expected_rules();
    expected.remove("HPA411");
    let missing: Vec<&String> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "no stored HPA has a finding of {missing:?}");
}

/// Fresh worlds for the cross-object rules, one per namespace: the objects an HPA's rules read,
/// then the HPA (last). Each is linted as files and reviewed by the webhook with the world in its
/// context cache.
const CROSS_OBJECT_WORLDS: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: NS}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: postgres, image: postgres:17, resources: {requests: {cpu: 500m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: db, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 75}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: NS}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - {name: server, image: nginx, resources: {requests: {cpu: 100m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: ContainerResource
    containerResource: {name: cpu, container: envoy, target: {type: Utilization, averageUtilization: 60}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: queue, namespace: NS}
spec:
  selector: {matchLabels: {app: queue}}
  template:
    metadata: {labels: {app: queue, tier: backend}}
    spec:
      containers:
      - {name: consumer, image: busybox, resources: {requests: {cpu: 100m}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: queue, namespace: NS}
spec:
  maxUnavailable: 0
  selector: {matchLabels: {tier: backend}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: queue, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: queue}
  minReplicas: 3
  maxReplicas: 9
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: front, namespace: NS}
spec:
  selector: {matchLabels: {app: front}}
  template:
    metadata: {labels: {app: front}}
    spec:
      containers:
      - {name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: front-memory, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: front}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 80}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: front, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: front}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: shelf, namespace: NS}
spec:
  selector: {matchLabels: {app: shelf}}
  template:
    metadata: {labels: {app: shelf}}
    spec:
      containers:
      - {name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: shelf-memory, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: deployment, name: shelf}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 80}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: shelf, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shelf}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache, namespace: NS}
spec:
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers:
      - {name: redis, image: redis, resources: {requests: {cpu: 200m, memory: 256Mi}}}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: cache, namespace: NS}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: cache}
  updatePolicy: {updateMode: Recreate}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: cache, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: cache}
  minReplicas: 2
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 70}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: NS}
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
      - {name: job, image: busybox, resources: {requests: {cpu: 100m}}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: worker-queue, namespace: NS}
spec:
  scaleTargetRef: {name: worker}
  triggers:
  - type: cpu
    metricType: Utilization
    metadata: {value: "50"}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: worker, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
===
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ledger, namespace: NS}
spec:
  serviceName: ledger
  replicas: 4
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec:
      containers:
      - {name: app, image: busybox, resources: {requests: {cpu: 100m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ledger, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: ledger}
  minReplicas: 2
  maxReplicas: 8
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
===
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: NS}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: 100m}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: search, namespace: NS}
spec:
  selector: {matchLabels: {app: search}}
  template:
    metadata: {labels: {app: search}}
    spec:
      containers:
      - {name: es, image: elasticsearch}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: search, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: search}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 60}}
===
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: mailer, namespace: NS}
spec:
  selector: {matchLabels: {app: mailer}}
  template:
    metadata: {labels: {app: mailer}}
    spec:
      initContainers:
      - {name: proxy, image: envoy, restartPolicy: Always}
      - {name: migrate, image: busybox}
      containers:
      - {name: smtp, image: postfix, resources: {requests: {cpu: 100m}}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: mailer-legacy, namespace: NS}
spec:
  selector: {app: mailer}
  template:
    metadata: {labels: {app: mailer}}
    spec:
      containers:
      - {name: smtp, image: postfix, resources: {requests: {cpu: 100m}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: mailer-legacy, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: v1, kind: ReplicationController, name: mailer-legacy}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: mailer, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: ReplicaSet, name: mailer}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: ContainerResource
    containerResource: {name: cpu, container: proxy, target: {type: Utilization, averageUtilization: 60}}
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
===
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: NS}
spec:
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers:
      - {name: run, image: busybox, resources: {requests: {cpu: 100m}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: batch, namespace: NS}
spec:
  minAvailable: 60%
  selector: {matchLabels: {app: batch}}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: batch, namespace: NS}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  updatePolicy: {updateMode: Initial}
  resourcePolicy:
    containerPolicies:
    - {containerName: "*", controlledResources: [memory]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: batch, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
===
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: queues.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: queues, singular: queue, kind: Queue}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: consumers, namespace: NS}
spec:
  scaleTargetRef: {apiVersion: example.com/v1, kind: Queue, name: orders}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
"#;

/// The linter's diagnostics about HPA `name` of `objects` (files, one stream; the HPA last) of
/// the cross-object rules, at warning severity or above, as admission warnings word them.
fn lint_cross_object(objects: &[Value], name: &str) -> BTreeSet<String> {
    let args =
        hpa_lint::cli::Args::try_parse_from(["hpa-lint", "--no-config", "-o", "json", "--fail-on", "never", "-"])
            .unwrap();
    let text: Vec<String> = objects.iter().map(Value::to_string).collect();
    let text = text.join("\n---\n");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = text.as_bytes();
    let mut io = hpa_lint::Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    assert_eq!(hpa_lint::run(args, &mut io).code(), 0, "{}", String::from_utf8_lossy(&stderr));
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    let mut out = BTreeSet::new();
    let namespace = objects.last().unwrap()["metadata"]["namespace"].as_str().unwrap();
    let named = format!("HorizontalPodAutoscaler {namespace}/{name} ");
    for d in report["diagnostics"].as_array().unwrap() {
        // On the HPA, or on an object of its world about it (HPA410 is on the workload's
        // spec.replicas, and says which HPA scales it).
        let on_hpa = d["object"]["kind"] == "HorizontalPodAutoscaler" && d["object"]["name"] == name;
        let about_hpa = d["object"]["kind"] != "HorizontalPodAutoscaler"
            && d["message"].as_str().is_some_and(|m| m.contains(&named));
        if !on_hpa && !about_hpa {
            continue;
        }
        let Some(rule) = d["rule"].as_str().and_then(rules::find).map(|r| r.meta()) else { continue };
        if rule.needs_objects && matches!(d["severity"].as_str(), Some("error" | "warning")) {
            let message = d["message"].as_str().unwrap();
            out.insert(hpa_webhook::admission::short(&format!("{} {}: {message}", rule.id, rule.name)));
        }
    }
    out
}

/// The webhook's warnings of the cross-object rules.
fn cross_object_warnings(answer: &Value) -> BTreeSet<String> {
    crate::context::warnings(answer)
        .into_iter()
        .filter(|w| w.split(' ').next().and_then(rules::find).is_some_and(|r| r.meta().needs_objects))
        .collect()
}

/// Each cross-object rule, on a world of its own: the HPA's CREATE (the world in the context
/// cache, the HPA not yet) and UPDATE (the HPA stored too) give the linter's words on the same
/// objects as files: same rule IDs, same messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_linter_and_the_webhook_with_context_say_the_same_on_cross_object_rules() {
    let (s, _) = crate::context::setup().await;
    s.api.install("verticalpodautoscalers");
    s.api.install("scaledobjects");
    let worlds: Vec<Vec<Value>> = CROSS_OBJECT_WORLDS.split("===").map(crate::support::yaml_documents).collect();
    let mut cases = Vec::new();
    for (i, world) in worlds.iter().enumerate() {
        for operation in ["CREATE", "UPDATE"] {
            let namespace = format!("x{i}-{}", operation.to_lowercase());
            let objects: Vec<Value> = world
                .iter()
                .map(|o| {
                    let mut o = o.clone();
                    if o["kind"] != "CustomResourceDefinition" {
                        o["metadata"]["namespace"] = json!(namespace);
                    }
                    o
                })
                .collect();
            let (hpa, others) = objects.split_last().unwrap();
            s.api.apply(others);
            let old = (operation == "UPDATE").then(|| s.api.apply(std::slice::from_ref(hpa)).remove(0));
            cases.push((operation, objects.clone(), hpa.clone(), old));
        }
    }
    let (server, mut conn) = s.webhook(&[]).await;
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    for (operation, objects, hpa, old) in &cases {
        let name = hpa["metadata"]["name"].as_str().unwrap();
        let lint = lint_cross_object(objects, name);
        let object = old.as_ref().unwrap_or(hpa);
        let answer = conn.review("/validate", &review("x", operation, object, old.as_ref())).await.unwrap();
        assert_eq!(response(&answer)["allowed"], true, "{answer}");
        let webhook = cross_object_warnings(&answer);
        if lint != webhook {
            failures.push(format!("{operation} {name}:\n  hpa-lint {lint:#?}\n  webhook  {webhook:#?}"));
        }
        seen.extend(lint.iter().filter_map(|w| w.split(' ').next().map(String::from)));
    }
    server.stop().await;
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
    // Every cross-object rule enabled by default at warning severity or above shows in some
    // world (HPA403, informational, gives no warning).
    let expected: BTreeSet<String> = rules::ALL
        .iter()
        .map(|r| r.meta())
        .filter(|m| m.needs_objects && m.enabled_by_default && m.severity >= Severity::Warning)
        .map(|m| m.id.to_string())
        .collect();
    let missing: Vec<&String> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "no world shows {missing:?}: {seen:?}");
}
