//! The webhook's AdmissionReview handler, called in-process (`Reviewer::review`, what the
//! server's `POST /validate` and `POST /mutate` run on a request body).
//!
//! The first byte picks how the rest is used:
//! - `0`: the rest is the whole request body, as any client may send it;
//! - otherwise the rest is an object (JSON, or YAML read with the linter's reader, so that the
//!   manifest seeds serve here too) wrapped in a well-formed AdmissionReview for
//!   `autoscaling/horizontalpodautoscalers`: a CREATE, an UPDATE from itself, or an UPDATE from
//!   a valid HPA; under no policy, or under one that sets behavior defaults and constraints.
//!
//! Invariants:
//! - the handler answers 200 with an AdmissionReview of the request's version (`admission.k8s.io/v1`
//!   or `v1beta1`) that carries the request's uid, or 400 with a reason for a body that is not an AdmissionReview (never for a
//!   well-formed envelope); a denial carries a status with a code and a message;
//! - every patch `/mutate` returns is a base64 JSONPatch that applies to the object sent;
//! - mutation is idempotent: the patched object, sent again, needs no patch;
//! - mutation keeps valid objects valid: an object `/validate` allows on CREATE is still allowed
//!   once patched.
#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use hpa_core::features::FeatureGates;
use hpa_lint::source;
use hpa_webhook::admission::Reviewer;
use hpa_webhook::metrics::Endpoint;
use hpa_webhook::policy::Policy;
use hpa_webhook::review::hpa_review;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

static ADMISSION: LazyLock<Reviewer> = LazyLock::new(|| Reviewer::new(FeatureGates::default()));

static NO_POLICY: LazyLock<Policy> = LazyLock::new(Policy::default);

static POLICY: LazyLock<Policy> = LazyLock::new(|| {
    Policy::parse(
        "apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints: {maxReplicas: 50}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 600}
rules:
  - name: shop
    namespaces: [shop]
    behavior:
      scaleUp: {selectPolicy: Min, tolerance: '0.05'}
    constraints: {requireBehavior: true}
",
    )
    .expect("the fuzzer's policy parses")
});

/// A valid, defaulted autoscaling/v2 HPA, the old object of some UPDATEs.
fn valid_old() -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": 5,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode == 0 {
        for endpoint in [Endpoint::Validate, Endpoint::Mutate] {
            for policy in [&*NO_POLICY, &*POLICY] {
                let answer = ADMISSION.review(endpoint, rest, policy);
                if answer.status == 400 {
                    assert!(!answer.body.is_empty(), "a 400 says why");
                } else {
                    let sent = serde_json::from_slice::<Value>(rest).ok();
                    let uid = sent.as_ref().and_then(|v| v["request"]["uid"].as_str().map(str::to_string));
                    let version = sent.as_ref().and_then(|v| v["apiVersion"].as_str().map(str::to_string));
                    check_review(answer.status, &answer.body, uid.as_deref(), version.as_deref());
                }
            }
        }
        return;
    }
    let Some(object) = object(rest) else { return };
    let policy = if mode & 0b100 == 0 { &*NO_POLICY } else { &*POLICY };
    let namespace = if mode & 0b1000 == 0 { "default" } else { "shop" };
    let old = match mode % 3 {
        0 => None,
        1 => Some(object.clone()),
        _ => Some(valid_old()),
    };

    let validated = review(Endpoint::Validate, &object, old.as_ref(), namespace, policy);
    let mutated = review(Endpoint::Mutate, &object, old.as_ref(), namespace, policy);
    let Some(patched) = patched(&object, &mutated) else { return };

    let again = review(Endpoint::Mutate, &patched, old.as_ref(), namespace, policy);
    assert_eq!(again["response"]["allowed"], true, "the patched object is refused by /mutate: {again}");
    assert!(
        again["response"].get("patch").is_none(),
        "mutation is not idempotent: the patched object gets another patch\nobject: {patched}\nanswer: {again}"
    );
    if old.is_none() && validated["response"]["allowed"] == true {
        let after = review(Endpoint::Validate, &patched, None, namespace, policy);
        assert_eq!(
            after["response"]["allowed"], true,
            "an object /validate allows is refused once /mutate patched it\nbefore: {object}\nafter: {patched}\nanswer: {after}"
        );
    }
});

/// The object the input holds: its JSON, or its first YAML document.
fn object(bytes: &[u8]) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
        return Some(value);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let parsed = source::parse(text);
    parsed.documents.first().map(|d| d.root().to_json())
}

/// The uid of every review this target sends.
const UID: &str = "705ab4f5-6393-11e8-b7cc-42010a800002";

/// Sends `object` in a well-formed review (`hpa_review`, as kube-apiserver sends one); the
/// response review. What this target fuzzes stays the same whatever the object says: it is
/// sent as `autoscaling/v2`, in the namespace the input picks, under its name when that is a
/// string (an empty one otherwise, so that the envelope stays well-formed).
fn review(endpoint: Endpoint, object: &Value, old: Option<&Value>, namespace: &str, policy: &Policy) -> Value {
    let operation = if old.is_some() { "UPDATE" } else { "CREATE" };
    let mut body = hpa_review(UID, operation, object, old);
    let request = &mut body["request"];
    for field in ["kind", "resource", "requestKind", "requestResource"] {
        request[field]["version"] = json!("v2");
    }
    request["name"] = json!(object["metadata"]["name"].as_str().unwrap_or(""));
    request["namespace"] = json!(namespace);
    let body = serde_json::to_vec(&body).expect("JSON values serialize");
    let answer = ADMISSION.review(endpoint, &body, policy);
    assert_eq!(answer.status, 200, "a well-formed review gets 200: {}", String::from_utf8_lossy(&answer.body));
    check_review(answer.status, &answer.body, Some(UID), Some("admission.k8s.io/v1"))
}

/// The answer is an AdmissionReview of the request's version (`api_version`, when the request
/// body says it) for the request's uid; a denial says why.
fn check_review(status: u16, body: &[u8], uid: Option<&str>, api_version: Option<&str>) -> Value {
    assert_eq!(status, 200, "an answer is 200 or 400");
    let review: Value = serde_json::from_slice(body).expect("the answer is JSON");
    let answered = review["apiVersion"].as_str().unwrap_or_default();
    assert!(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"].contains(&answered), "{review}");
    if let Some(sent) = api_version {
        assert_eq!(answered, sent, "the answer is in the request's version");
    }
    assert_eq!(review["kind"], "AdmissionReview");
    let response = &review["response"];
    if let Some(uid) = uid {
        assert_eq!(response["uid"], uid, "the answer names the request's uid");
    }
    let allowed = response["allowed"].as_bool().expect("allowed is a boolean");
    if !allowed {
        let status = &response["status"];
        assert!(status["code"].as_u64().is_some_and(|c| (400..600).contains(&c)), "a denial has a code: {review}");
        assert!(status["message"].as_str().is_some_and(|m| !m.is_empty()), "a denial has a message: {review}");
    }
    for w in response["warnings"].as_array().into_iter().flatten() {
        let w = w.as_str().expect("warnings are strings");
        assert!(
            w.chars().count() <= hpa_webhook::admission::MAX_WARNING_CHARS && !w.contains(char::is_control),
            "warning {w:?}"
        );
    }
    review
}

/// The object with the answer's patch applied, or `None` without a patch.
fn patched(object: &Value, answer: &Value) -> Option<Value> {
    let response = &answer["response"];
    let patch = response.get("patch")?.as_str().expect("the patch is a string");
    assert_eq!(response["patchType"], "JSONPatch");
    assert_eq!(response["allowed"], true, "a patch comes with an allowed answer");
    let bytes = base64::engine::general_purpose::STANDARD.decode(patch).expect("the patch is base64");
    let patch: json_patch::Patch = serde_json::from_slice(&bytes).expect("the patch is a JSONPatch");
    let mut out = object.clone();
    json_patch::patch(&mut out, &patch)
        .unwrap_or_else(|e| panic!("the patch does not apply ({e})\nobject: {object}\npatch: {patch:?}"));
    Some(out)
}
