//! Decode + validate of a typical autoscaling/v2 HPA (behavior and three metrics), starting
//! from its JSON text (as the webhook receives it). Target: under 5 µs per object. And the same
//! admission with the cross-object rules against a cluster's index, where many namespaces share
//! workload names or none do (`admission_in_context`).
//!
//! Run: `cargo bench -p hpa-core --bench validate`.

use hpa_core::admission::{self, AdmissionOptions, Operation};
use hpa_core::api;
use hpa_core::check;
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::rules::index::{HpaOrder, IndexedObject};
use hpa_core::rules::objects::workload_from_json;
use hpa_core::rules::{ObjectId, ObjectIndex};

fn main() {
    divan::main();
}

fn typical() -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "checkout", "namespace": "shop", "labels": {"app.kubernetes.io/name": "checkout", "tier": "web"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "checkout"},
            "minReplicas": 3,
            "maxReplicas": 30,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
                {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "512Mi"}}},
                {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"}, "target": {"type": "AverageValue", "averageValue": "50"}}}
            ],
            "behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0, "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}, {"type": "Pods", "value": 4, "periodSeconds": 15}], "selectPolicy": "Max"},
                "scaleDown": {"stabilizationWindowSeconds": 300, "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}
            }
        }
    })
}

/// Strict decoding only, from the object's JSON text.
#[divan::bench]
fn decode(bencher: divan::Bencher) {
    let text = typical().to_string();
    bencher
        .bench_local(|| api::decode_json(divan::black_box(&text), api::Strictness::Strict, KubernetesVersion::LATEST));
}

/// Decoding, defaulting, conversion to the internal form and validation.
#[divan::bench]
fn decode_and_validate(bencher: divan::Bencher) {
    let text = typical().to_string();
    let opts = AdmissionOptions::default();
    bencher.bench_local(|| {
        let hpa =
            api::decode_json(divan::black_box(&text), api::Strictness::Strict, KubernetesVersion::LATEST).ok()?.value;
        admission::admit_owned(hpa, None, Operation::Create, &opts).ok()
    });
}

/// Validation of an already decoded object (no defaulting).
#[divan::bench]
fn validate_only(bencher: divan::Bencher) {
    let value = typical();
    let hpa = api::decode(&value).ok();
    let opts = AdmissionOptions { apply_defaults: false, ..AdmissionOptions::default() };
    bencher.bench_local(|| {
        let hpa = hpa.as_ref()?;
        admission::admit(divan::black_box(hpa), None, Operation::Create, &opts).ok()
    });
}

/// The two clusters of the context cache's lookups: `shared`, 1,000 namespaces each holding the
/// same five Deployments (`web`, `api`, ...: a multi-tenant cluster) and an HPA on each; `unique`,
/// as many Deployments and HPAs with names no two namespaces share.
const CLUSTERS: [&str; 2] = ["unique", "shared"];
const NAMESPACES: usize = 1_000;
const NAMES: [&str; 5] = ["web", "api", "worker", "cart", "auth"];

/// The index of a cluster of [`CLUSTERS`], as the context cache keeps it (HPAs by name), and the
/// namespace and name of the Deployment in the middle of it.
fn cluster(kind: &str) -> (ObjectIndex<()>, String, String) {
    let mut index = ObjectIndex::new(HpaOrder::Name);
    let name = |n: usize, base: &str| if kind == "shared" { base.to_string() } else { format!("{base}-{n}") };
    for n in 0..NAMESPACES {
        let namespace = format!("team-{n}");
        for base in NAMES {
            let id = |api_version: &str, kind: &str| ObjectId {
                api_version: api_version.into(),
                kind: kind.into(),
                namespace: namespace.clone(),
                name: name(n, base),
            };
            let deployment = serde_json::json!({"spec": {"template": {"spec": {"containers": [
                {"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}}});
            index.insert(IndexedObject::Workload(workload_from_json(id("apps/v1", "Deployment"), &deployment)));
            index.insert_hpa(
                id("autoscaling/v2", "HorizontalPodAutoscaler"),
                ("apps", "Deployment", &name(n, base)),
                1,
                (),
            );
        }
    }
    let middle = NAMESPACES / 2;
    (index, format!("team-{middle}"), name(middle, "web"))
}

/// One HPA admission in the context of a cluster of [`CLUSTERS`], as `hpa-webhook /validate`
/// runs it: the typical HPA (on a Deployment of the cluster, in its namespace) through the
/// front door, then its cross-object rules against the index. Compare `shared` with `unique`:
/// the cost of many namespaces sharing names.
#[divan::bench(args = CLUSTERS)]
fn admission_in_context(bencher: divan::Bencher, kind: &str) {
    let (mut index, namespace, target) = cluster(kind);
    let mut object = typical();
    object["metadata"]["namespace"] = namespace.clone().into();
    object["metadata"]["name"] = target.clone().into();
    object["spec"]["scaleTargetRef"]["name"] = target.clone().into();
    let id = ObjectId {
        api_version: "autoscaling/v2".into(),
        kind: "HorizontalPodAutoscaler".into(),
        namespace,
        name: target.clone(),
    };
    // The cached HPA of that name on that target: the admitted one takes its place.
    index.insert_hpa(id.clone(), ("apps", "Deployment", &target), 1, ());
    let text = object.to_string();
    let opts = check::Options::for_gates(FeatureGates::default());
    bencher.bench_local(|| {
        let hpa =
            api::decode_json(divan::black_box(&text), api::Strictness::Strict, KubernetesVersion::LATEST).ok()?.value;
        let report = check::check(check::Input::create(check::Written::Decoded(Box::new(hpa))), &opts);
        let check::Admission::Admitted(admitted) = report.admission else { return None };
        Some(admitted.check_world(Some(&id), &index, &opts))
    });
}
