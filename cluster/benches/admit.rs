//! The context cache's and `hpa-lint cluster`'s cost per live HPA: a list page of 1,000 HPAs as
//! kube-apiserver sends it (items without `apiVersion`/`kind`, each with the managed fields a
//! server-side apply and the HPA controller leave, and a status), read into
//! [`LiveObject`]s and each HPA admitted through hpa-core's front door as the cache admits it.
//!
//! Run: `cargo bench -p hpa-cluster --bench admit`.

use hpa_cluster::kinds;
use hpa_cluster::object::LiveObject;
use hpa_cluster::watch::{CacheOptions, Index};
use kube::core::ObjectList;

fn main() {
    divan::main();
}

const HPAS: usize = 1_000;

/// One HPA as a list item of `GET /apis/autoscaling/v2/horizontalpodautoscalers`.
fn item(i: usize) -> serde_json::Value {
    serde_json::json!({
        "metadata": {
            "name": format!("web-{i}"), "namespace": format!("team-{}", i % 50),
            "uid": format!("6b1d2c3e-0000-4000-8000-{i:012}"), "resourceVersion": format!("{}", 1000 + i),
            "generation": 1, "creationTimestamp": "2026-01-02T03:04:05Z",
            "labels": {"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"},
            "annotations": {"hpa-lint.dev/ignore": "HPA102 -- reviewed"},
            "managedFields": [
                {"manager": "argocd-controller", "operation": "Apply", "apiVersion": "autoscaling/v2",
                 "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:metadata": {"f:annotations": {"f:hpa-lint.dev/ignore": {}}, "f:labels": {"f:app.kubernetes.io/name": {}, "f:app.kubernetes.io/part-of": {}}},
                              "f:spec": {"f:maxReplicas": {}, "f:metrics": {}, "f:minReplicas": {}, "f:scaleTargetRef": {}, "f:behavior": {"f:scaleDown": {"f:stabilizationWindowSeconds": {}, "f:policies": {}}}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v2",
                 "time": "2026-01-02T03:05:05Z", "fieldsType": "FieldsV1", "subresource": "status",
                 "fieldsV1": {"f:status": {"f:conditions": {".": {}, "k:{\"type\":\"AbleToScale\"}": {".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}}, "f:currentMetrics": {}, "f:currentReplicas": {}, "f:desiredReplicas": {}}}}
            ]
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 3, "maxReplicas": 30,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
                {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"}, "target": {"type": "AverageValue", "averageValue": "50"}}}
            ],
            "behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}, {"type": "Pods", "value": 4, "periodSeconds": 15}]},
                "scaleDown": {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                              "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}]}
            }
        },
        "status": {
            "currentReplicas": 3, "desiredReplicas": 3, "lastScaleTime": "2026-01-02T03:05:05Z",
            "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "120m", "averageUtilization": 40}}},
                {"type": "Pods", "pods": {"metric": {"name": "http_requests_per_second"}, "current": {"averageValue": "12"}}}
            ],
            "conditions": [
                {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-01-02T03:05:05Z", "reason": "ReadyForNewScale", "message": "recommended size matches current size"},
                {"type": "ScalingActive", "status": "True", "lastTransitionTime": "2026-01-02T03:05:05Z", "reason": "ValidMetricFound", "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"},
                {"type": "ScalingLimited", "status": "False", "lastTransitionTime": "2026-01-02T03:05:05Z", "reason": "DesiredWithinRange", "message": "the desired count is within the acceptable range"}
            ]
        }
    })
}

fn list() -> String {
    serde_json::json!({
        "kind": "HorizontalPodAutoscalerList", "apiVersion": "autoscaling/v2",
        "metadata": {"resourceVersion": "99999"},
        "items": (0..HPAS).map(item).collect::<Vec<_>>(),
    })
    .to_string()
}

/// The page read into live objects, then each HPA admitted into an index as the cache keeps it.
#[divan::bench(sample_count = 30)]
fn list_to_index(bencher: divan::Bencher) {
    let list = list();
    let admission = CacheOptions::default().admission;
    bencher.bench_local(|| {
        let page: ObjectList<LiveObject> = serde_json::from_str(divan::black_box(&list)).ok()?;
        let index = Index::of_live(page.items.into_iter().map(|o| (kinds::HPA, o)), &admission);
        (index.count(&kinds::HPA) == HPAS).then_some(index)
    });
}
