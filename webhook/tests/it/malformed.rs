//! Bad input: every case is answered with 400 or `allowed: false` and a clear message (with
//! the uid when known), never a 500, and nothing carries over to the next request.

use std::time::Duration;

use axum::body::Body;
use hyper::StatusCode;
use serde_json::{Value, json};

use crate::support::{Harness, hpa_v2_defaulted, response, review};

const ENDPOINTS: [&str; 2] = ["/validate", "/mutate"];

async fn expect_400(h: &Harness, body: Vec<u8>, needle: &str) {
    for path in ENDPOINTS {
        let (status, text) = h.send("POST", path, body.clone()).await;
        let text = String::from_utf8_lossy(&text);
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {text}");
        assert!(text.contains(needle), "{path}: {text:?} lacks {needle:?}");
    }
}

async fn expect_denied(h: &Harness, review: &Value, needle: &str) {
    expect_denied_on(h, &ENDPOINTS, review, needle).await;
}

async fn expect_denied_on(h: &Harness, endpoints: &[&str], review: &Value, needle: &str) {
    for &path in endpoints {
        let answer = h.post(path, review).await;
        let r = response(&answer);
        assert_eq!(r["allowed"], false, "{path}: {r}");
        assert_eq!((&r["status"]["code"], &r["status"]["reason"]), (&json!(400), &json!("BadRequest")), "{path}");
        let message = r["status"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{path}: {message:?} lacks {needle:?}");
    }
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[tokio::test]
async fn bodies_that_are_not_admission_reviews_get_400() {
    let h = Harness::default_config();
    expect_400(&h, b"{\"apiVersion\": ".to_vec(), "not valid JSON").await;
    expect_400(&h, b"\xff\xfe garbage".to_vec(), "not valid JSON").await;
    expect_400(&h, Vec::new(), "not valid JSON").await;
    expect_400(&h, b"[1, 2]".to_vec(), "not an AdmissionReview").await;
    expect_400(&h, b"\"review\"".to_vec(), "not an AdmissionReview").await;
    expect_400(&h, bytes(&json!({"apiVersion": 1})), "not an AdmissionReview").await;
    expect_400(&h, bytes(&json!({"hello": "world"})), "expected apiVersion \"admission.k8s.io/v1\"").await;
    let mut wrong = review("u", "CREATE", &hpa_v2_defaulted("web", "shop"), None);
    wrong["apiVersion"] = json!("admission.k8s.io/v1alpha1");
    expect_400(&h, bytes(&wrong), "got \"admission.k8s.io/v1alpha1\" and \"AdmissionReview\"").await;
    wrong["apiVersion"] = json!("admission.k8s.io/v1");
    wrong["kind"] = json!("ConversionReview");
    expect_400(&h, bytes(&wrong), "\"ConversionReview\"").await;
    expect_400(&h, bytes(&json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})), "no request").await;
    // Deep nesting stops at serde_json's recursion limit instead of the stack's.
    expect_400(&h, "[".repeat(100_000).into_bytes(), "not an AdmissionReview").await;

    let mut no_uid = review("u", "CREATE", &hpa_v2_defaulted("web", "shop"), None);
    no_uid["request"].as_object_mut().unwrap().remove("uid");
    expect_400(&h, bytes(&no_uid), "without a uid").await;
}

#[tokio::test]
async fn malformed_requests_with_a_uid_are_denied_with_the_reason() {
    let h = Harness::default_config();
    let good = hpa_v2_defaulted("web", "shop");

    let mut r = review("m1", "CREATE", &good, None);
    r["request"]["operation"] = json!(["CREATE"]);
    expect_denied(&h, &r, "malformed AdmissionRequest: invalid type: sequence").await;

    let r = review("m1b", "PATCH", &good, None);
    expect_denied(&h, &r, "request.operation \"PATCH\" is not one of CREATE, UPDATE, DELETE, CONNECT").await;

    let mut r = review("m2", "CREATE", &good, None);
    r["request"].as_object_mut().unwrap().remove("object");
    expect_denied(&h, &r, "request.object is missing").await;
    r["request"]["object"] = Value::Null;
    expect_denied(&h, &r, "request.object is missing").await;

    let r = review("m3", "UPDATE", &good, None);
    expect_denied(&h, &r, "request.oldObject is missing").await;

    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
    let mut r = review("m4", "CREATE", &deployment, None);
    r["request"]["kind"] = json!({"group": "autoscaling", "version": "v2", "kind": "HorizontalPodAutoscaler"});
    expect_denied(&h, &r, "expected kind HorizontalPodAutoscaler, found \"Deployment\"").await;

    let mut r = review("m5", "CREATE", &good, None);
    r["request"]["kind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    expect_denied(&h, &r, "request.kind is \"Deployment\" in group \"apps\"").await;

    let mut bad = good.clone();
    bad["spec"]["maxReplicas"] = json!("ten");
    expect_denied(
        &h,
        &review("m6", "CREATE", &bad, None),
        "request.object: HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
    )
    .await;
    bad["spec"]["maxReplicas"] = json!(10);
    bad["spec"]["metrics"] = json!({"type": "Resource"});
    expect_denied(
        &h,
        &review("m7", "CREATE", &bad, None),
        "json: cannot unmarshal object into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type []v2.MetricSpec",
    )
    .await;

    let mut old = good.clone();
    old["spec"]["minReplicas"] = json!(-1.5);
    // Only /validate reads the old object.
    let r = review("m8", "UPDATE", &good, Some(&old));
    expect_denied_on(&h, &["/validate"], &r, "request.oldObject: HorizontalPodAutoscaler in version").await;

    let mut r = review("m9", "CREATE", &good, None);
    r["request"]["kind"]["version"] = json!("v1");
    expect_denied(&h, &r, "request.object is autoscaling/v2, but request.kind is autoscaling/v1").await;

    for object in [json!("a string"), json!([1]), json!(42), json!({})] {
        let mut r = review("m10", "CREATE", &good, None);
        r["request"]["object"] = object;
        expect_denied(&h, &r, "request.object").await;
    }
    // An object nested deeper than Go's `encoding/json` allows (10,000 levels): refused with
    // its words, not a stack overflow.
    let mut r = review("m12", "CREATE", &good, None);
    r["request"]["object"]["x"] = json!("PLACEHOLDER");
    let deep = serde_json::to_string(&r)
        .unwrap()
        .replace("\"PLACEHOLDER\"", &format!("{}{}", "[".repeat(10_001), "]".repeat(10_001)));
    for path in ENDPOINTS {
        let (status, body) = h.send("POST", path, deep.clone().into_bytes()).await;
        assert_eq!(status, StatusCode::OK);
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(answer["response"]["allowed"], false);
        assert!(answer["response"]["status"]["message"].as_str().unwrap().ends_with("exceeded max depth"), "{answer}");
    }

    let mut unknown_version = good.clone();
    unknown_version["apiVersion"] = json!("autoscaling/v3");
    let mut r = review("m11", "CREATE", &unknown_version, None);
    r["request"]["kind"]["version"] = json!("v2");
    expect_denied(&h, &r, "no matches for kind \"HorizontalPodAutoscaler\" in version \"autoscaling/v3\"").await;
}

#[tokio::test]
async fn bodies_over_the_limit_get_413() {
    let h = Harness::new(&["--max-body-bytes", "2048"], None);
    let big = review("big", "CREATE", &json!({"pad": "x".repeat(4096)}), None);
    for path in ENDPOINTS {
        let (status, text) = h.send("POST", path, bytes(&big)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{}", String::from_utf8_lossy(&text));
        assert_eq!(text, "request body larger than 2048 bytes");
        // Without a Content-Length (a streamed body), the limit holds too.
        let chunks =
            || -> Vec<Result<Vec<u8>, std::io::Error>> { bytes(&big).chunks(512).map(|c| Ok(c.to_vec())).collect() };
        let (status, _) = h.send("POST", path, Body::from_stream(futures_stream(chunks()))).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        // The rest of a refused body is read and thrown away, but not for long: a client that
        // stops sending still gets its 413, well before the request deadline (4s).
        let started = std::time::Instant::now();
        let stalled = Body::from_stream(futures_stream(chunks()).chain_pending());
        let (status, _) = h.send("POST", path, stalled).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    }
    let small = review("small", "CREATE", &hpa_v2_defaulted("web", "shop"), None);
    assert_eq!(response(&h.post("/validate", &small).await)["allowed"], true);
}

#[tokio::test]
async fn a_request_that_misses_its_deadline_gets_503() {
    let h = Harness::new(&["--request-timeout", "100ms"], None);
    let stalled = Body::from_stream(futures_stream(vec![Ok(b"{\"apiVersion\":".to_vec())]).chain_pending());
    let started = std::time::Instant::now();
    let (status, text) = h.send("POST", "/validate", stalled).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(text, "request deadline of 100ms exceeded");
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// Random corruptions of a valid review: never a 500, never a panic, and the next good request
/// is answered as if nothing happened.
#[tokio::test]
async fn corrupted_reviews_never_cause_a_server_error() {
    let h = Harness::default_config();
    let good =
        bytes(&review("good", "UPDATE", &hpa_v2_defaulted("web", "shop"), Some(&hpa_v2_defaulted("web", "shop"))));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"{}[]\":,0-1e.nultrfaseXy\\ ";
    for i in 0..1500 {
        let mut body = good.clone();
        for _ in 0..=(next() % 4) {
            let at = (next() as usize) % body.len();
            match next() % 3 {
                0 => body[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    body.remove(at);
                }
                _ => body.truncate(at),
            }
        }
        let path = ENDPOINTS[i % 2];
        let (status, text) = h.send("POST", path, body).await;
        assert!(
            status == StatusCode::OK || status == StatusCode::BAD_REQUEST,
            "{status}: {}",
            String::from_utf8_lossy(&text)
        );
        if status == StatusCode::OK {
            let answer: Value = serde_json::from_slice(&text).unwrap();
            assert!(answer["response"]["allowed"].is_boolean());
        }
    }
    let answer = h.post("/validate", &serde_json::from_slice(&good).unwrap()).await;
    assert_eq!(response(&answer), &json!({"uid": "good", "allowed": true}));
}

// --- a tiny stream helper (no futures crate needed) ---

struct VecStream {
    items: std::collections::VecDeque<Result<Vec<u8>, std::io::Error>>,
    pending_at_end: bool,
}

fn futures_stream(items: Vec<Result<Vec<u8>, std::io::Error>>) -> VecStream {
    VecStream { items: items.into(), pending_at_end: false }
}

impl VecStream {
    fn chain_pending(mut self) -> Self {
        self.pending_at_end = true;
        self
    }
}

impl futures_core::Stream for VecStream {
    type Item = Result<Vec<u8>, std::io::Error>;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        match self.items.pop_front() {
            Some(item) => std::task::Poll::Ready(Some(item)),
            None if self.pending_at_end => std::task::Poll::Pending,
            None => std::task::Poll::Ready(None),
        }
    }
}
