//! Decode + validate of a typical autoscaling/v2 HPA (behavior and three metrics), starting
//! from its JSON text (as the webhook receives it). Target: under 5 µs per object.
//!
//! Run: `cargo bench -p hpa-core --bench validate`.

use hpa_core::admission::{self, Operation, Options};
use hpa_core::api;
use hpa_core::features::KubernetesVersion;

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
    let opts = Options::default();
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
    let opts = Options { apply_defaults: false, ..Options::default() };
    bencher.bench_local(|| {
        let hpa = hpa.as_ref()?;
        admission::admit(divan::black_box(hpa), None, Operation::Create, &opts).ok()
    });
}
