//! Live objects made from the test data: the manifests of `tests/data/lint` and
//! `tests/data/realworld`, read whole with hpa-lint's YAML reader, and what a cluster adds to
//! them (pods made from a workload's template as the ReplicaSet controller makes them, their
//! status, PodMetrics as metrics-server reports them, the HPA controller's events).

use std::path::Path;

use serde_json::{Value, json};

use super::store::set;

/// Every object of a YAML file (multi-document, `kind: List` expanded), as JSON.
pub fn load(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let file = hpa_lint::input::SourceFile::from_text(path.display().to_string(), text);
    hpa_lint::input::objects(0, &file)
        .iter()
        .map(hpa_lint::input::ObjectRef::to_json)
        .flat_map(|o| match o.get("items").and_then(Value::as_array) {
            Some(items) if o.get("kind").and_then(Value::as_str) == Some("List") => items.clone(),
            _ => vec![o],
        })
        .collect()
}

/// The objects of `tests/data/lint/<rule>/<file>.yaml`.
pub fn lint_fixture(rule: &str, file: &str) -> Vec<Value> {
    load(&crate::data_dir().join("lint").join(rule).join(format!("{file}.yaml")))
}

/// The objects of `tests/data/cluster/<name>.yaml`: namespaces as a cluster holds them, kept
/// apart from the lint fixtures (which change with the rules) so that these tests count on them.
pub fn cluster_fixture(name: &str) -> Vec<Value> {
    load(&crate::data_dir().join("cluster").join(format!("{name}.yaml")))
}

/// The objects of `tests/data/realworld/hpa/<file>`.
pub fn realworld(file: &str) -> Vec<Value> {
    load(&crate::data_dir().join("realworld").join("hpa").join(file))
}

/// The objects moved into `namespace` (those of cluster-scoped kinds, RuntimeClasses and CRDs,
/// stay without one).
pub fn in_namespace(objects: Vec<Value>, namespace: &str) -> Vec<Value> {
    objects
        .into_iter()
        .map(|mut o| {
            let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            if !hpa_core::rules::is_cluster_scoped(&text("apiVersion"), &text("kind")) {
                set(&mut o, &["metadata", "namespace"], json!(namespace));
            }
            o
        })
        .collect()
}

/// The first object of a kind and name.
pub fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| {
            o.get("kind").and_then(Value::as_str) == Some(kind)
                && o.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
        })
        .unwrap_or_else(|| panic!("no {kind} {name} in the fixture"))
}

/// How a pod made by [`pod_of`] is doing.
#[derive(Debug, Clone)]
pub struct PodState {
    /// `status.phase`.
    pub phase: &'static str,
    /// The Ready condition's status.
    pub ready: bool,
    /// `status.startTime`.
    pub started: &'static str,
    /// The Ready condition's `lastTransitionTime`.
    pub ready_since: &'static str,
    /// `metadata.deletionTimestamp`.
    pub deleting: Option<&'static str>,
}

impl PodState {
    /// Running and Ready since shortly after it started.
    pub fn running(started: &'static str, ready_since: &'static str) -> PodState {
        PodState { phase: "Running", ready: true, started, ready_since, deleting: None }
    }
}

/// A pod of a Deployment as its ReplicaSet creates it: the template's labels plus
/// `pod-template-hash`, its spec with the scheduler's and admission's additions, an owner
/// reference, and a kubelet-written status.
pub fn pod_of(workload: &Value, name_suffix: &str, state: &PodState) -> Value {
    let workload_name = workload.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("web");
    let namespace = workload.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
    let hash = "6d4cf56db6";
    let template = workload.pointer("/spec/template").cloned().unwrap_or(json!({}));
    let mut labels = template.pointer("/metadata/labels").cloned().unwrap_or(json!({}));
    set(&mut labels, &["pod-template-hash"], json!(hash));
    let mut spec = template.get("spec").cloned().unwrap_or(json!({}));
    for key in ["containers", "initContainers"] {
        if let Some(cs) = spec.get_mut(key).and_then(Value::as_array_mut) {
            for c in cs {
                set(c, &["imagePullPolicy"], json!("IfNotPresent"));
                set(c, &["terminationMessagePath"], json!("/dev/termination-log"));
                set(c, &["terminationMessagePolicy"], json!("File"));
            }
        }
    }
    set(&mut spec, &["nodeName"], json!("pool-a-7x2k9"));
    set(&mut spec, &["restartPolicy"], json!("Always"));
    set(&mut spec, &["schedulerName"], json!("default-scheduler"));
    set(&mut spec, &["serviceAccountName"], json!("default"));
    set(&mut spec, &["terminationGracePeriodSeconds"], json!(30));
    let container_statuses: Vec<Value> = spec
        .get("containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            json!({
                "name": c.get("name"), "image": c.get("image"), "imageID": "",
                "containerID": format!("containerd://{:064x}", name_suffix.len()),
                "ready": state.ready, "restartCount": 0, "started": state.phase == "Running",
                "state": {"running": {"startedAt": state.started}},
                "resources": c.get("resources").cloned().unwrap_or(json!({})),
            })
        })
        .collect();
    let condition = |type_: &str, status: bool, at: &str| json!({"type": type_, "status": if status { "True" } else { "False" }, "lastProbeTime": null, "lastTransitionTime": at});
    let mut pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": format!("{workload_name}-{hash}-{name_suffix}"),
            "generateName": format!("{workload_name}-{hash}-"),
            "namespace": namespace,
            "labels": labels,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{workload_name}-{hash}"),
                "uid": "0b9f1c7e-5a43-4c1e-9d1b-2f6f3b8e4a10", "controller": true, "blockOwnerDeletion": true}],
        },
        "spec": spec,
        "status": {
            "phase": state.phase,
            "conditions": [
                condition("PodReadyToStartContainers", true, state.started),
                condition("Initialized", true, state.started),
                condition("Ready", state.ready, state.ready_since),
                condition("ContainersReady", state.ready, state.ready_since),
                condition("PodScheduled", true, state.started),
            ],
            "hostIP": "10.0.4.17",
            "podIP": "10.244.3.41",
            "qosClass": "Burstable",
            "startTime": state.started,
            "containerStatuses": container_statuses,
        },
    });
    if let Some(at) = state.deleting {
        set(&mut pod, &["metadata", "deletionTimestamp"], json!(at));
        set(&mut pod, &["metadata", "deletionGracePeriodSeconds"], json!(30));
    }
    pod
}

/// The `metrics.k8s.io/v1beta1` PodMetrics metrics-server reports for a pod, one usage per
/// container (`(cpu, memory)` quantities), labelled like the pod.
pub fn pod_metrics(pod: &Value, timestamp: &str, usage: &[(&str, &str, &str)]) -> Value {
    json!({
        "kind": "PodMetrics",
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": {
            "name": pod.pointer("/metadata/name"),
            "namespace": pod.pointer("/metadata/namespace"),
            "labels": pod.pointer("/metadata/labels"),
            "creationTimestamp": timestamp,
        },
        "timestamp": timestamp,
        "window": "15.012s",
        "containers": usage.iter().map(|(c, cpu, mem)| json!({"name": c, "usage": {"cpu": cpu, "memory": mem}})).collect::<Vec<_>>(),
    })
}

/// An event the HPA controller records on an HPA.
pub fn hpa_event(hpa: &Value, type_: &str, reason: &str, message: &str, first: &str, last: &str, count: i64) -> Value {
    let name = hpa.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let namespace = hpa.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": format!("{name}.18a2c0f1{:08x}", message.len() + usize::try_from(count).unwrap_or(0)), "namespace": namespace},
        "involvedObject": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": name,
            "namespace": namespace, "uid": hpa.pointer("/metadata/uid"), "resourceVersion": hpa.pointer("/metadata/resourceVersion")},
        "reason": reason,
        "message": message,
        "source": {"component": "horizontal-pod-autoscaler"},
        "firstTimestamp": first,
        "lastTimestamp": last,
        "count": count,
        "type": type_,
        "eventTime": null,
        "reportingComponent": "horizontal-pod-autoscaler",
        "reportingInstance": "",
    })
}

/// HPA `shop/web` with per-HPA tolerances (scale-up 0.05, scale-down 0.2) as kube-apiserver
/// stores it (behavior defaulted: `SetDefaults_HorizontalPodAutoscalerBehavior`), stored while
/// `HPAConfigurableTolerance` was on; an External metric, so that no workload is needed.
pub fn web_with_tolerances() -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "External", "external": {"metric": {"name": "queue_depth"},
                "target": {"type": "AverageValue", "averageValue": "30"}}}],
            "behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "tolerance": "0.05", "policies": [
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                    {"type": "Pods", "value": 4, "periodSeconds": 15}]},
                "scaleDown": {"selectPolicy": "Max", "tolerance": "0.2", "policies": [
                    {"type": "Percent", "value": 100, "periodSeconds": 15}]}}}})
}

/// HPA `shop/NAME` scaling Deployment `NAME` between `min` and `max` on an External metric (no
/// workload needed): with `min` 0 it is valid only where `HPAScaleToZero` is on, and with
/// `min > max` under no rule at all.
pub fn external_hpa(name: &str, min: i64, max: i64) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": min, "maxReplicas": max,
            "metrics": [{"type": "External", "external": {"metric": {"name": "queue_depth"},
                "target": {"type": "AverageValue", "averageValue": "30"}}}]}})
}

/// The CustomResourceDefinition of `fleets.example.com` (kind `Fleet`), cluster-scoped
/// (`scope: Cluster`), served at `v1` with a `/scale` subresource (`.spec.replicas`,
/// `.status.replicas`, `.status.selector`): a target the HPA controller looks for in the HPA's
/// namespace and never finds (HPA412).
pub fn cluster_scoped_fleet_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "fleets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Fleet", "plural": "fleets"}, "scope": "Cluster",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                    "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}}}]}})
}

/// The instant [`running_web`]'s namespace is read at: 5 s after its newest PodMetrics, 30 s
/// after the rescale.
pub const RUNNING_WEB_NOW: &str = "2026-03-02T09:21:05Z";

/// A realistic namespace `shop` on `server`, as `hpa-lint diagnose` finds it: HPA201's `web`
/// (cpu 70 %, memory of container `app` 80 %) and its Deployment scaled to 3 by the HPA; two
/// pods ready for minutes, one just started and not Ready; PodMetrics from metrics-server; the
/// controller's last rescale event and the status it wrote. Returns the HPA as stored.
pub fn running_web(server: &super::TestApiServer) -> Value {
    server.install("podmetrics");
    let objects = in_namespace(cluster_fixture("requests-set"), "shop");
    server.apply(&objects);
    server.scale_as_hpa("apps", "deployments", "shop", "web", 3);
    let mut web = find(&objects, "Deployment", "web").clone();
    web["metadata"]["namespace"] = json!("shop");
    let unready = PodState {
        phase: "Running",
        ready: false,
        started: "2026-03-02T09:20:40Z",
        ready_since: "2026-03-02T09:20:40Z",
        deleting: None,
    };
    let pods = [
        pod_of(&web, "4xq9z", &PodState::running("2026-03-02T09:14:10Z", "2026-03-02T09:14:31Z")),
        pod_of(&web, "b7m2c", &PodState::running("2026-03-02T09:14:10Z", "2026-03-02T09:14:29Z")),
        pod_of(&web, "tq8wd", &unready),
    ];
    let mut hpa = find(&objects, "HorizontalPodAutoscaler", "web").clone();
    hpa["status"] = json!({
        "currentReplicas": 3, "desiredReplicas": 3, "lastScaleTime": "2026-03-02T09:20:35Z",
        "conditions": [
            {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size", "lastTransitionTime": "2026-03-02T09:20:35Z"},
            {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)", "lastTransitionTime": "2026-03-02T09:14:35Z"},
            {"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange", "message": "the desired count is within the acceptable range", "lastTransitionTime": "2026-03-02T09:14:35Z"}
        ]
    });
    let hpa = server.put(hpa);
    for (pod, cpu) in pods.iter().zip(["612m", "580m", "1m"]) {
        server.put(pod.clone());
        server.put(pod_metrics(pod, "2026-03-02T09:21:00Z", &[("app", cpu, "301Mi"), ("proxy", "12m", "20Mi")]));
    }
    server.put(hpa_event(
        &hpa,
        "Normal",
        "SuccessfulRescale",
        "New size: 3; reason: cpu resource utilization (percentage of request) above target",
        "2026-03-02T09:20:35Z",
        "2026-03-02T09:20:35Z",
        1,
    ));
    hpa
}

/// The cluster of the benchmarks (`tests/benches/cluster_read.rs serve`, which
/// `bench/cluster/run.sh`, `bench/webhook/run.sh` and `bench/soak/run.sh` start), made from the
/// `requests-set` fixture's `web`: workload `i` is `team-{i % 50}/web-{i}`, a Deployment,
/// ReplicaSet or StatefulSet (3:2:1); HPA `i` is `team-{3i % 50}/web-{3i}` on Deployment `web-{3i}`,
/// which is workload `3i` for even `i` (for odd `i` that workload is a ReplicaSet, and the HPA's
/// target is missing). Clients of the benchmarks (the soak client)
/// rebuild from here the objects the server holds, to write reviews about them.
pub struct BenchCluster {
    deployment: Value,
    hpa: Value,
}

impl BenchCluster {
    /// Namespaces `team-0` to `team-49`.
    pub const NAMESPACES: usize = 50;

    /// The templates, read from the fixture.
    pub fn new() -> BenchCluster {
        let fixture = cluster_fixture("requests-set");
        let deployment = find(&fixture, "Deployment", "web").clone();
        let hpa = find(&fixture, "HorizontalPodAutoscaler", "web").clone();
        BenchCluster { deployment, hpa }
    }

    /// Workload `i`, as applied.
    pub fn workload(&self, i: usize) -> Value {
        let mut w = self.deployment.clone();
        let kind = match i % 6 {
            0..=2 => "Deployment",
            3 | 4 => "ReplicaSet",
            _ => "StatefulSet",
        };
        w["kind"] = json!(kind);
        w["apiVersion"] = json!("apps/v1");
        w["metadata"]["name"] = json!(format!("web-{i}"));
        w["metadata"]["namespace"] = json!(format!("team-{}", i % Self::NAMESPACES));
        w["metadata"]["labels"] =
            json!({"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": format!("web-{i}")});
        w["spec"]["selector"]["matchLabels"] = json!({"app": format!("web-{i}")});
        w["spec"]["template"]["metadata"]["labels"] = json!({"app": format!("web-{i}")});
        if kind == "StatefulSet" {
            w["spec"]["serviceName"] = json!(format!("web-{i}"));
        }
        w
    }

    /// HPA `i`, as applied: the fixture's `web` (cpu utilization, and memory utilization of
    /// container `app`) on Deployment `web-{3i}`.
    pub fn hpa(&self, i: usize) -> Value {
        let target = i * 3;
        let mut h = self.hpa.clone();
        h["metadata"]["name"] = json!(format!("web-{target}"));
        h["metadata"]["namespace"] = json!(format!("team-{}", target % Self::NAMESPACES));
        h["spec"]["scaleTargetRef"]["name"] = json!(format!("web-{target}"));
        h
    }

    /// Deployment `team-{n}/bare-{n}`: workload 0's pod template without any request (HPA201
    /// for a utilization HPA on it). Only the soak test's cluster holds these.
    pub fn without_requests(&self, n: usize) -> Value {
        let mut w = self.workload(0);
        w["metadata"]["name"] = json!(format!("bare-{n}"));
        w["metadata"]["namespace"] = json!(format!("team-{}", n % Self::NAMESPACES));
        w["metadata"]["labels"]["app.kubernetes.io/instance"] = json!(format!("bare-{n}"));
        w["spec"]["selector"]["matchLabels"] = json!({"app": format!("bare-{n}")});
        w["spec"]["template"]["metadata"]["labels"] = json!({"app": format!("bare-{n}")});
        let spec = &mut w["spec"]["template"]["spec"];
        for list in ["containers", "initContainers"] {
            for container in spec[list].as_array_mut().into_iter().flatten() {
                if let Some(c) = container.as_object_mut() {
                    c.remove("resources");
                }
            }
        }
        w
    }
}

impl Default for BenchCluster {
    fn default() -> BenchCluster {
        BenchCluster::new()
    }
}
