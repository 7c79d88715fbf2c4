//! What kube-apiserver's webhook dispatchers send and how they read the answer, end to end over
//! TLS (`k8s.io/apiserver/pkg/admission/plugin/webhook`): `request/admissionreview.go`
//! (`CreateAdmissionObjects`, `CreateV1AdmissionReview`, `VerifyAdmissionResponse`),
//! `mutating/dispatcher.go` and `validating/dispatcher.go` (the patch applied to the object
//! sent; a denial shown through `errors.ToStatusErr`; warnings passed to `warning.AddWarning`),
//! and the warning recorder of `endpoints/filters/warning.go`.

use serde_json::{Value, json};

use hpa_core::api::{self, ApiVersion};
use hpa_core::features::KubernetesVersion;

use crate::support::{Certs, Conn, Server, apply_patch, hpa_v1, hpa_v2_defaulted, patch_ops, response, review};

/// The real server with `policy` (a WebhookPolicy's body), and a connection to it.
async fn serve(policy: Option<&str>) -> (Server, Conn, Certs, tempfile::TempDir) {
    let certs = Certs::new();
    certs.write();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.yaml");
    let mut flags = Vec::new();
    if let Some(body) = policy {
        std::fs::write(&path, format!("apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n{body}")).unwrap();
        flags = vec!["--policy".to_string(), path.display().to_string()];
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = Server::start(&certs, &flags).await;
    let conn = certs.client().connect(server.addr).await.unwrap();
    (server, conn, certs, dir)
}

/// `object` (an `autoscaling/v1` HPA) as kube-apiserver converts it for a webhook that asks for
/// `autoscaling/v2` (`matchPolicy: Equivalent`): through the internal form.
fn as_v2(object: &Value) -> Value {
    let decoded = api::decode_json(&object.to_string(), api::Strictness::Lenient, KubernetesVersion::LATEST).unwrap();
    hpa_core::convert::convert(&decoded.value, ApiVersion::V2).unwrap().object.to_json()
}

/// The review kube-apiserver sends under `matchPolicy: Equivalent` for a request made in
/// `autoscaling/v1` to a webhook that matched `autoscaling/v2` only: `kind`, `resource` and the
/// objects are v2, `requestKind` and `requestResource` the request's v1 (`CreateV1AdmissionReview`).
fn equivalent(uid: &str, operation: &str, v1: &Value, old_v1: Option<&Value>) -> Value {
    let old = old_v1.map(as_v2);
    let mut r = review(uid, operation, &as_v2(v1), old.as_ref());
    r["request"]["requestKind"]["version"] = json!("v1");
    r["request"]["requestResource"]["version"] = json!("v1");
    r
}

/// The response without its uid (answers to two reviews compared).
fn without_uid(answer: &Value) -> Value {
    let mut r = response(answer).clone();
    r.as_object_mut().unwrap().remove("uid");
    r
}

/// `matchPolicy: Equivalent`: an `autoscaling/v1` request converted to v2 is judged on the object
/// sent, and gets the answer the same HPA sent as v1 gets: warnings and denials name the internal
/// form's fields, as kube-apiserver's own validation errors do for a v1 request (it validates
/// the internal form). A patch is against the object sent (v2): the mutating dispatcher applies
/// it to the converted object (`mutating/dispatcher.go`, `callAttrMutatingHook`), then converts
/// back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_equivalent_request_is_judged_on_the_converted_object_as_its_own_version_is() {
    let (server, mut conn, _certs, _dir) =
        serve(Some("defaults:\n  denyRules: [HPA101]\n  behavior: {scaleDown: {stabilizationWindowSeconds: 600}}\n"))
            .await;
    let mut v1 = hpa_v1("web", "shop");
    v1["spec"]["minReplicas"] = json!(1);
    let mut cases = Vec::new();
    // Allowed, a denial of kube-apiserver's validation, a denial of the policy's `denyRules`.
    cases.push(v1.clone());
    let mut invalid = v1.clone();
    invalid["spec"]["targetCPUUtilizationPercentage"] = json!(0);
    cases.push(invalid);
    let mut pinned = v1.clone();
    pinned["spec"]["minReplicas"] = json!(10);
    cases.push(pinned);
    for (i, object) in cases.iter().enumerate() {
        let own = conn.review("/validate", &review(&format!("o{i}"), "CREATE", object, None)).await.unwrap();
        let converted = conn.review("/validate", &equivalent(&format!("c{i}"), "CREATE", object, None)).await.unwrap();
        assert_eq!(response(&converted)["uid"], format!("c{i}"));
        assert_eq!(without_uid(&converted), without_uid(&own), "case {i}: {object}");
        let (mut new, mut old) = (object.clone(), v1.clone());
        new["metadata"]["resourceVersion"] = json!("7");
        old["metadata"]["resourceVersion"] = json!("7");
        let updated =
            conn.review("/validate", &equivalent(&format!("u{i}"), "UPDATE", &new, Some(&old))).await.unwrap();
        assert_eq!(response(&updated)["allowed"], response(&own)["allowed"], "case {i}: {updated}");
    }
    let own = conn.review("/validate", &review("x", "CREATE", &cases[1], None)).await.unwrap();
    assert_eq!(
        response(&own)["status"]["message"],
        "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: spec.metrics[0].resource.target.averageUtilization: \
         Invalid value: 0: must be greater than 0"
    );
    let pinned = conn.review("/validate", &review("y", "CREATE", &cases[2], None)).await.unwrap();
    assert!(
        response(&pinned)["status"]["message"].as_str().unwrap().contains("spec.maxReplicas: Forbidden: HPA101"),
        "{pinned}"
    );

    // /mutate: the patch applies to the v2 object sent (behavior in spec, not v1's annotation).
    let sent = as_v2(&v1);
    let answer = conn.review("/mutate", &equivalent("m1", "CREATE", &v1, None)).await.unwrap();
    let patched = apply_patch(&sent, &answer);
    assert_eq!(patched["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"], 600, "{answer}");
    assert!(patched["metadata"].get("annotations").is_none(), "{patched}");
    assert!(patch_ops(&answer).as_array().unwrap().iter().all(|op| op["path"].as_str().unwrap().starts_with("/spec/")));
    server.stop().await;
}

/// What the manifests do not send, and the handler admits untouched if sent all the same: a write
/// of a subresource (`status`, which the HPA controller writes; `scale`), which the rules'
/// `resources: ["horizontalpodautoscalers"]` do not match (a subresource matches only
/// `horizontalpodautoscalers/status` or `*/*`: `Matcher.resource` in
/// `admission/plugin/webhook/predicates/rules/rules.go`); DELETE (`object` null, `oldObject`
/// the stored HPA) and CONNECT. None is judged as a change of the spec, and none is patched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subresources_deletes_and_connects_are_admitted_untouched() {
    let (server, mut conn, _certs, _dir) = serve(Some("defaults:\n  denyRules: [HPA101]\n")).await;
    // A stored HPA the policy would deny, and a status the controller writes.
    let mut stored = hpa_v2_defaulted("web", "shop");
    stored["spec"]["minReplicas"] = json!(10);
    let mut status = stored.clone();
    status["status"] = json!({"currentReplicas": 10, "desiredReplicas": 10});
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
        "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 3}});
    let mut reviews = Vec::new();
    let mut r = review("s1", "UPDATE", &status, Some(&stored));
    r["request"]["subResource"] = json!("status");
    r["request"]["requestSubResource"] = json!("status");
    reviews.push(r);
    let mut r = review("s2", "UPDATE", &scale, Some(&scale));
    r["request"]["subResource"] = json!("scale");
    r["request"]["kind"] = json!({"group": "autoscaling", "version": "v1", "kind": "Scale"});
    reviews.push(r);
    let mut r = review("s3", "DELETE", &Value::Null, Some(&stored));
    r["request"]["options"] =
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "propagationPolicy": "Background"});
    reviews.push(r);
    reviews.push(review("s4", "CONNECT", &Value::Null, None));
    for r in &reviews {
        for path in ["/validate", "/mutate"] {
            let answer = conn.review(path, r).await.unwrap();
            assert_eq!(response(&answer), &json!({"uid": r["request"]["uid"], "allowed": true}), "{path}: {r}");
        }
    }
    // The rules the manifests register name the main resource only.
    let manifests = crate::support::workspace().join("manifests/base/webhooks.yaml");
    for doc in crate::support::yaml_documents(&std::fs::read_to_string(manifests).unwrap()) {
        for webhook in doc["webhooks"].as_array().unwrap() {
            for rule in webhook["rules"].as_array().unwrap() {
                assert_eq!(rule["resources"], json!(["horizontalpodautoscalers"]), "{rule}");
                assert_eq!(rule["operations"], json!(["CREATE", "UPDATE"]), "{rule}");
            }
        }
    }
    server.stop().await;
}

/// `dryRun: true` (`kubectl --dry-run=server`) and the request's `options` change nothing: the
/// webhook has no side effects (`sideEffects: None`, which kube-apiserver requires to call it
/// for a dry run), so it answers a dry run exactly as the real write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_and_the_options_get_the_same_answer() {
    let (server, mut conn, _certs, _dir) =
        serve(Some("defaults:\n  denyRules: [HPA101]\n  behavior: {scaleDown: {stabilizationWindowSeconds: 600}}\n"))
            .await;
    let mut pinned = hpa_v2_defaulted("web", "shop");
    pinned["spec"]["minReplicas"] = json!(10);
    for object in [hpa_v2_defaulted("web", "shop"), pinned] {
        for path in ["/validate", "/mutate"] {
            let plain = review("d", "CREATE", &object, None);
            let expected = conn.review(path, &plain).await.unwrap();
            let mut dry = plain.clone();
            dry["request"]["dryRun"] = json!(true);
            dry["request"]["options"] = json!({"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                "dryRun": ["All"], "fieldManager": "kubectl", "fieldValidation": "Ignore"});
            assert_eq!(conn.review(path, &dry).await.unwrap(), expected, "{path}");
            let mut bare = plain.clone();
            bare["request"].as_object_mut().unwrap().remove("options");
            bare["request"].as_object_mut().unwrap().remove("dryRun");
            assert_eq!(conn.review(path, &bare).await.unwrap(), expected, "{path}");
        }
    }
    server.stop().await;
}

/// The answer as kube-apiserver reads it (`VerifyAdmissionResponse`): the uid echoed; a review of
/// the request's version (`admission.k8s.io/v1`, or `v1beta1` for a configuration whose
/// `admissionReviewVersions` lists it first: `CreateAdmissionObjects` sends that one, and a v1
/// answer to it was an HTTP 400 here, a failed call); `patch` and `patchType: JSONPatch`
/// together or not at all, and neither from /validate; a denial's `status` with a code of 400 or
/// more, `Failure` and a message, which `errors.ToStatusErr` shows the user as `admission webhook
/// "NAME" denied the request: MESSAGE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_is_what_kube_apiserver_verifies() {
    let (server, mut conn, _certs, _dir) =
        serve(Some("defaults:\n  denyRules: [HPA101]\n  behavior: {scaleDown: {stabilizationWindowSeconds: 600}}\n"))
            .await;
    let mut pinned = hpa_v2_defaulted("web", "shop");
    pinned["spec"]["minReplicas"] = json!(10);
    for version in ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] {
        for (path, object) in [
            ("/validate", hpa_v2_defaulted("web", "shop")),
            ("/validate", pinned.clone()),
            ("/mutate", hpa_v2_defaulted("web", "shop")),
            ("/mutate", pinned.clone()),
        ] {
            let mut r = review("8d3f", "CREATE", &object, None);
            r["apiVersion"] = json!(version);
            let answer = conn.review(path, &r).await.unwrap();
            assert_eq!((&answer["apiVersion"], &answer["kind"]), (&json!(version), &json!("AdmissionReview")));
            let response = response(&answer);
            assert_eq!(response["uid"], "8d3f");
            assert_eq!(response.get("patch").is_some(), response.get("patchType").is_some(), "{answer}");
            if path == "/validate" {
                assert!(response.get("patch").is_none(), "{answer}");
            } else {
                assert_eq!(response["patchType"], "JSONPatch", "{answer}");
            }
            if response["allowed"] == false {
                let status = &response["status"];
                assert!(status["code"].as_u64().unwrap() >= 400, "{answer}");
                assert_eq!(status["status"], "Failure");
                let shown = format!(
                    "admission webhook {:?} denied the request: {}",
                    "validate.hpa-webhook.hpa-toolkit.io",
                    status["message"].as_str().unwrap()
                );
                assert!(shown.ends_with("(organization policy: defaults denies HPA101)"), "{shown}");
            }
        }
        // A malformed request of either version is answered in it too.
        let malformed =
            json!({"apiVersion": version, "kind": "AdmissionReview", "request": {"uid": "m", "operation": 7}});
        let answer = conn.review("/validate", &malformed).await.unwrap();
        assert_eq!((&answer["apiVersion"], &response(&answer)["allowed"]), (&json!(version), &json!(false)));
    }
    server.stop().await;
}

/// kube-apiserver's warning recorder (`recorder.AddWarning`, `endpoints/filters/warning.go`):
/// what a client receives of `warnings` sent in order: each once; whole while their total stays
/// within 4096 runes; past it, every warning cut to 256 runes, and those that come once the cut
/// ones reach 4096 dropped; a warning with a control character dropped (`NewWarningHeader`).
fn recorded(warnings: &[String]) -> Vec<String> {
    let cut = |t: &str| t.chars().take(256).collect::<String>();
    let (mut written, mut truncating) = (0, false);
    let (mut ordered, mut headers): (Vec<&String>, Vec<String>) = (Vec::new(), Vec::new());
    for text in warnings {
        if (written >= 4096 && truncating) || ordered.contains(&text) {
            continue;
        }
        ordered.push(text);
        let text = if truncating { cut(text) } else { text.clone() };
        if text.chars().any(char::is_control) {
            continue;
        }
        let runes = text.chars().count();
        if written + runes <= 4096 || truncating {
            written += runes;
            headers.push(text);
            continue;
        }
        truncating = true;
        headers = ordered.iter().map(|t| cut(t)).filter(|t| !t.chars().any(char::is_control)).collect();
        written = headers.iter().map(|t| t.chars().count()).sum();
    }
    headers
}

/// An HPA with many findings: its warnings reach the user as sent (none cut, none dropped
/// by kube-apiserver's recorder), each a whole single line, the most severe first (the
/// error-level HPA206 before the warning-level HPA204 and HPA205 that precede it in the report),
/// the last one saying how many were left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_findings_reach_the_user_whole_and_the_most_severe_first() {
    let (server, mut conn, _certs, _dir) = serve(None).await;
    let mut many = hpa_v2_defaulted("web", "shop");
    let mut metrics: Vec<Value> = (0..20)
        .map(|i| {
            json!({"type": "Resource", "resource": {"name": format!("example.com/accelerator-{i}"),
                "target": {"type": "AverageValue", "averageValue": "1"}}})
        })
        .collect();
    metrics.extend((0..12).map(|_| {
        json!({"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}})
    }));
    // A selector the controller cannot convert (HPA206, an error), written last.
    metrics.push(json!({"type": "External", "external": {"metric": {"name": "queue",
        "selector": {"matchExpressions": [{"key": "queue", "operator": "In", "values": ["a\u{0}b"]}]}},
        "target": {"type": "Value", "value": "1"}}}));
    many["spec"]["metrics"] = json!(metrics);
    let answer = conn.review("/validate", &review("w", "CREATE", &many, None)).await.unwrap();
    let response = response(&answer);
    assert_eq!(response["allowed"], true, "{answer}");
    let warnings: Vec<String> =
        response["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect();
    assert_eq!(recorded(&warnings), warnings, "kube-apiserver passes every warning on whole");
    assert!(warnings.iter().map(|w| w.chars().count()).sum::<usize>() <= 4096);
    for w in &warnings {
        assert!(w.chars().count() <= 256 && !w.chars().any(char::is_control), "{w}");
    }
    assert!(warnings[0].starts_with("HPA206 "), "{warnings:#?}");
    assert!(warnings[1].starts_with("HPA204 "), "{warnings:#?}");
    let last = warnings.last().unwrap();
    assert!(last.starts_with("… and ") && last.contains("more warnings from hpa-webhook"), "{last}");
    server.stop().await;
}
