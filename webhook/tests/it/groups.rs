//! Objects are identified by API group, kind, namespace and name in the context cache, as the
//! controller's RESTMapper maps a scale target (by group and kind, the version aside): a kind
//! of the same name in two groups is two objects, two versions of one group one object.

use serde_json::{Value, json};

use crate::support::{response, review};

/// An HPA `shop/<name>` scaling `kind/target` of `api_version` on an external metric.
fn hpa(name: &str, api_version: &str, kind: &str, target: &str) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": target},
            "minReplicas": 2, "maxReplicas": 8,
            "metrics": [{"type": "External", "external": {"metric": {"name": "queue"},
                "target": {"type": "AverageValue", "averageValue": "10"}}}]}})
}

/// The rule IDs of an answer's warnings.
fn rule_ids(answer: &Value) -> Vec<String> {
    crate::context::warnings(answer).iter().filter_map(|w| w.split(' ').next().map(String::from)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hpas_conflict_on_one_object_by_api_group_not_by_version() {
    let (s, _) = crate::context::setup().await;
    // A cached HPA on the `Foo x` of `b.example.com`, one on Deployment `web` written in an older
    // version of `apps`.
    s.api.apply(&[
        hpa("on-b", "b.example.com/v1", "Foo", "x"),
        hpa("on-web-v1beta2", "apps/v1beta2", "Deployment", "web"),
    ]);
    let (server, mut conn) = s.webhook(&[]).await;
    // The `Foo x` of `a.example.com` is another object: no conflict (HPA407).
    let on_a = hpa("on-a", "a.example.com/v1", "Foo", "x");
    let answer = conn.review("/validate", &review("a", "CREATE", &on_a, None)).await.unwrap();
    assert_eq!(response(&answer)["allowed"], true, "{answer}");
    assert!(!rule_ids(&answer).contains(&"HPA407".to_string()), "{answer}");
    // The same kind and group as the cached HPA's target: a conflict.
    let on_b = hpa("on-b-too", "b.example.com/v2", "Foo", "x");
    let answer = conn.review("/validate", &review("b", "CREATE", &on_b, None)).await.unwrap();
    assert!(rule_ids(&answer).contains(&"HPA407".to_string()), "{answer}");
    // `apps/v1` names the Deployment `apps/v1beta2` names: a conflict.
    let on_web = hpa("on-web", "apps/v1", "Deployment", "web");
    let answer = conn.review("/validate", &review("c", "CREATE", &on_web, None)).await.unwrap();
    let warnings = crate::context::warnings(&answer);
    assert!(warnings.iter().any(|w| w.starts_with("HPA407") && w.contains("on-web-v1beta2")), "{answer}");
    server.stop().await;
}
