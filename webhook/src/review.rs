//! The AdmissionReview wire format (`admission.k8s.io/v1`, and `v1beta1` for a configuration
//! that lists only it): the request as kube-apiserver sends it, borrowed from the body, and the
//! response we send back, in the request's version.
//!
//! These mirror `k8s.io/api/admission/v1/types.go` (and kube-core's `admission` module) with
//! two differences that matter here: `object` and `oldObject` stay raw JSON, because the
//! patch must apply to the object exactly as it was sent and hpa-core decodes it strictly
//! itself; and the fields the webhook never reads (`userInfo`, `options`, ...) are skipped
//! without being parsed into values.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::admission::short;

/// `apiVersion` of the reviews this server answers (and of those the manifests ask for).
pub const API_VERSION: &str = "admission.k8s.io/v1";
/// `apiVersion` of the reviews kube-apiserver sends a webhook whose `admissionReviewVersions`
/// lists `v1beta1` before `v1` (`CreateAdmissionObjects`), answered in kind.
pub const API_VERSION_V1BETA1: &str = "admission.k8s.io/v1beta1";
/// `kind` of the reviews this server answers.
pub const KIND: &str = "AdmissionReview";
/// The only `patchType` of admission v1.
pub const PATCH_TYPE_JSON_PATCH: &str = "JSONPatch";
/// The most characters (runes) of warnings one response carries: kube-apiserver's
/// `truncateAtTotalRunes` (`recorder.AddWarning`, `k8s.io/apiserver/pkg/endpoints/filters/warning.go`).
/// Past it the recorder cuts every warning of the request to `truncateItemRunes`
/// ([`MAX_WARNING_CHARS`](crate::admission::MAX_WARNING_CHARS)) and, once the cut ones reach it again, drops the rest.
pub const MAX_TOTAL_WARNING_CHARS: usize = 4096;

/// The version of an AdmissionReview: kube-apiserver sends the first of the webhook's
/// `admissionReviewVersions` it knows (`CreateAdmissionObjects` in
/// `k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go`) and reads the
/// answer as that version: for `v1` it requires `apiVersion: admission.k8s.io/v1` and
/// `kind: AdmissionReview` back (`VerifyAdmissionResponse`). The two carry the same request and
/// response fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReviewVersion {
    /// `admission.k8s.io/v1`.
    #[default]
    V1,
    /// `admission.k8s.io/v1beta1`.
    V1beta1,
}

impl ReviewVersion {
    /// The version of an `apiVersion`, if it is one this server answers.
    pub fn of(api_version: &str) -> Option<ReviewVersion> {
        match api_version {
            API_VERSION => Some(ReviewVersion::V1),
            API_VERSION_V1BETA1 => Some(ReviewVersion::V1beta1),
            _ => None,
        }
    }

    /// Its `apiVersion`.
    pub fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => API_VERSION,
            ReviewVersion::V1beta1 => API_VERSION_V1BETA1,
        }
    }
}

/// `AdmissionRequest`, borrowed from the request body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionRequest<'a> {
    /// The version of the review that carried it (the answer's).
    #[serde(skip)]
    pub review_version: ReviewVersion,
    /// Identifies this admission call; echoed in the response.
    #[serde(borrow)]
    pub uid: Cow<'a, str>,
    /// The type of `object` (group, version, kind).
    #[serde(default, borrow)]
    pub kind: GroupVersionKind<'a>,
    /// The resource being requested (group, version, resource).
    #[serde(default, borrow)]
    pub resource: GroupVersionResource<'a>,
    /// The subresource (`status`, `scale`), empty for the main resource.
    #[serde(default, borrow)]
    pub sub_resource: Option<Cow<'a, str>>,
    /// The object's name (may be empty on CREATE with `generateName`).
    #[serde(default, borrow)]
    pub name: Option<Cow<'a, str>>,
    /// The namespace of the request.
    #[serde(default, borrow)]
    pub namespace: Option<Cow<'a, str>>,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    #[serde(borrow)]
    pub operation: Cow<'a, str>,
    /// The object from the incoming request, as raw JSON.
    #[serde(default, borrow)]
    pub object: Option<&'a RawValue>,
    /// The existing object (UPDATE and DELETE), as raw JSON.
    #[serde(default, borrow)]
    pub old_object: Option<&'a RawValue>,
    /// Whether nothing will be persisted (`kubectl --dry-run=server`).
    #[serde(default)]
    pub dry_run: Option<bool>,
}

impl AdmissionRequest<'_> {
    /// The namespace, empty for cluster-scoped requests.
    pub fn namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("")
    }

    /// The name, empty when kube-apiserver has not generated it yet.
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }

    /// Whether this is the main `horizontalpodautoscalers` resource of the `autoscaling` group.
    pub fn is_hpa_resource(&self) -> bool {
        self.resource.group == "autoscaling"
            && self.resource.resource == "horizontalpodautoscalers"
            && self.sub_resource.as_deref().unwrap_or("").is_empty()
    }
}

/// `metav1.GroupVersionKind`.
#[derive(Debug, Default, Deserialize)]
pub struct GroupVersionKind<'a> {
    /// API group (`autoscaling`).
    #[serde(default, borrow)]
    pub group: Cow<'a, str>,
    /// Version (`v2`).
    #[serde(default, borrow)]
    pub version: Cow<'a, str>,
    /// Kind (`HorizontalPodAutoscaler`).
    #[serde(default, borrow)]
    pub kind: Cow<'a, str>,
}

/// `metav1.GroupVersionResource`.
#[derive(Debug, Default, Deserialize)]
pub struct GroupVersionResource<'a> {
    /// API group (`autoscaling`).
    #[serde(default, borrow)]
    pub group: Cow<'a, str>,
    /// Version (`v2`).
    #[serde(default, borrow)]
    pub version: Cow<'a, str>,
    /// Resource (`horizontalpodautoscalers`).
    #[serde(default, borrow)]
    pub resource: Cow<'a, str>,
}

/// Why a body could not be read as an AdmissionReview request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// No AdmissionResponse can be formed (not JSON, not a v1 or v1beta1 AdmissionReview, no
    /// request or no uid): answered with HTTP 400.
    #[error("{0}")]
    BadRequest(String),
    /// An AdmissionReview with a uid whose request is malformed: answered with HTTP 200 and
    /// `allowed: false` (kube-rs `AdmissionResponse::invalid`).
    #[error("{message}")]
    Invalid {
        /// The review's version (the answer's).
        version: ReviewVersion,
        /// The request's uid.
        uid: String,
        /// What is wrong.
        message: String,
    },
}

/// The review with its request parsed in the same pass (the common case).
#[derive(Deserialize)]
struct Review<'a> {
    #[serde(default, rename = "apiVersion", borrow)]
    api_version: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    request: Option<AdmissionRequest<'a>>,
}

/// The review with its request left raw, to say what is wrong with it.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, rename = "apiVersion", borrow)]
    api_version: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    request: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct UidOnly<'a> {
    #[serde(default, borrow)]
    uid: Option<Cow<'a, str>>,
}

/// Reads an `admission.k8s.io/v1` (or `v1beta1`) AdmissionReview and returns its request, which
/// says its review's version ([`AdmissionRequest::review_version`]).
pub fn parse(body: &[u8]) -> Result<AdmissionRequest<'_>, Rejection> {
    // One pass over the body when all is well; a second one only to explain a failure.
    if let Ok(Review { api_version: Some(v), kind: Some(k), request: Some(mut request) }) = serde_json::from_slice(body)
        && let Some(version) = ReviewVersion::of(&v)
        && k == KIND
        && !request.uid.is_empty()
    {
        request.review_version = version;
        return Ok(request);
    }
    let envelope: Envelope<'_> = serde_json::from_slice(body).map_err(|e| {
        Rejection::BadRequest(if e.is_data() {
            format!("request body is not an AdmissionReview: {e}")
        } else {
            format!("request body is not valid JSON: {e}")
        })
    })?;
    let (api_version, kind) = (envelope.api_version.as_deref().unwrap_or(""), envelope.kind.as_deref().unwrap_or(""));
    let Some(version) = ReviewVersion::of(api_version).filter(|_| kind == KIND) else {
        return Err(Rejection::BadRequest(format!(
            "expected apiVersion {API_VERSION:?} and kind {KIND:?}, got {api_version:?} and {kind:?} \
             (set admissionReviewVersions: [v1] in the webhook configuration)"
        )));
    };
    let Some(raw) = envelope.request.filter(|r| r.get() != "null") else {
        return Err(Rejection::BadRequest("the AdmissionReview has no request".into()));
    };
    match serde_json::from_str::<AdmissionRequest<'_>>(raw.get()) {
        Ok(request) if request.uid.is_empty() => {
            Err(Rejection::BadRequest("the AdmissionReview request has no uid".into()))
        }
        Ok(request) => Ok(AdmissionRequest { review_version: version, ..request }),
        Err(e) => match serde_json::from_str::<UidOnly<'_>>(raw.get()).ok().and_then(|u| u.uid) {
            Some(uid) if !uid.is_empty() => Err(Rejection::Invalid {
                version,
                uid: uid.into_owned(),
                message: format!("malformed AdmissionRequest: {e}"),
            }),
            _ => Err(Rejection::BadRequest(format!("malformed AdmissionRequest without a uid: {e}"))),
        },
    }
}

// === a request, as kube-apiserver sends one ===

/// An `admission.k8s.io/v1` AdmissionReview of `operation` (`CREATE`, `UPDATE`, `DELETE`,
/// `CONNECT`) on the HPA `object` (`old` is `oldObject`), shaped as kube-apiserver sends it
/// (`CreateV1AdmissionReview` in `k8s.io/apiserver/pkg/admission/plugin/webhook/request/
/// admissionreview.go`): the HPA's group, version and resource in `kind`, `resource` and their
/// `request*` twins, its name and namespace (from `old` when `object` is null, as on
/// `DELETE`; `default` when it names none), a cluster admin's `userInfo`, and the options of a
/// `kubectl apply`. Not used by the server: what the tests, `examples/soak_client.rs` and
/// other clients of a running webhook send, with fields changed where a case needs it.
pub fn hpa_review(uid: &str, operation: &str, object: &Value, old: Option<&Value>) -> Value {
    let version = object["apiVersion"].as_str().unwrap_or("autoscaling/v2").trim_start_matches("autoscaling/");
    let source = if object.is_null() { old.unwrap_or(object) } else { object };
    let namespace = source["metadata"]["namespace"].as_str().unwrap_or("default");
    let (kind, resource) = ("HorizontalPodAutoscaler", "horizontalpodautoscalers");
    json!({
        "apiVersion": API_VERSION,
        "kind": KIND,
        "request": {
            "uid": uid,
            "kind": {"group": "autoscaling", "version": version, "kind": kind},
            "resource": {"group": "autoscaling", "version": version, "resource": resource},
            "requestKind": {"group": "autoscaling", "version": version, "kind": kind},
            "requestResource": {"group": "autoscaling", "version": version, "resource": resource},
            "name": source["metadata"]["name"],
            "namespace": namespace,
            "operation": operation,
            "userInfo": {
                "username": "kubernetes-admin",
                "uid": "aws-iam-authenticator:123",
                "groups": ["system:masters", "system:authenticated"]
            },
            "object": object,
            "oldObject": old.cloned().unwrap_or(Value::Null),
            "dryRun": false,
            "options": {
                "kind": if operation == "UPDATE" { "UpdateOptions" } else { "CreateOptions" },
                "apiVersion": "meta.k8s.io/v1",
                "fieldManager": "kubectl-client-side-apply",
                "fieldValidation": "Strict"
            }
        }
    })
}

/// The same AdmissionReview ([`hpa_review`]) for a write of another kind, as
/// `/validate-workloads` receives it: `resource` is its group, version and plural (`("apps",
/// "v1", "deployments")`), in `resource` and `requestResource`; `kind` and `requestKind` carry
/// the object's `kind`. Not used by the server either.
pub fn workload_review(
    uid: &str,
    operation: &str,
    resource: (&str, &str, &str),
    object: &Value,
    old: Option<&Value>,
) -> Value {
    let (group, version, plural) = resource;
    let mut review = hpa_review(uid, operation, object, old);
    let kind = if object.is_null() { old.unwrap_or(object) } else { object }["kind"].clone();
    let request = &mut review["request"];
    request["kind"] = json!({"group": group, "version": version, "kind": kind});
    request["resource"] = json!({"group": group, "version": version, "resource": plural});
    request["requestKind"] = request["kind"].clone();
    request["requestResource"] = request["resource"].clone();
    review
}

// === the response ===

/// An AdmissionReview carrying a response, ready to serialize.
#[derive(Debug, Serialize)]
pub struct ResponseReview<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    response: &'a AdmissionResponse,
}

impl<'a> ResponseReview<'a> {
    /// Wraps a response in an `admission.k8s.io/v1` review.
    pub fn new(response: &'a AdmissionResponse) -> Self {
        ResponseReview::in_version(response, ReviewVersion::V1)
    }

    /// Wraps a response in a review of `version`, the request's: kube-apiserver reads the answer
    /// as the version it sent (`VerifyAdmissionResponse`).
    pub fn in_version(response: &'a AdmissionResponse, version: ReviewVersion) -> Self {
        ResponseReview { api_version: version.api_version(), kind: KIND, response }
    }

    /// The JSON body.
    pub fn to_vec(&self) -> Vec<u8> {
        // Serializing plain strings, numbers and vectors cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// `AdmissionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionResponse {
    /// The request's uid.
    pub uid: String,
    /// Whether the request is admitted.
    pub allowed: bool,
    /// Why it was denied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Base64 of the JSON Patch to apply (mutation only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// `JSONPatch` when there is a patch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<&'static str>,
    /// Warnings kubectl shows to the user.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl AdmissionResponse {
    /// Admits the request unchanged.
    pub fn allow(uid: &str) -> Self {
        AdmissionResponse {
            uid: uid.to_string(),
            allowed: true,
            status: None,
            patch: None,
            patch_type: None,
            warnings: Vec::new(),
        }
    }

    /// Denies the request with a status.
    pub fn deny(uid: &str, status: Status) -> Self {
        AdmissionResponse { allowed: false, status: Some(status), ..AdmissionResponse::allow(uid) }
    }

    /// Denies a request that cannot be processed (400 BadRequest).
    pub fn invalid(uid: &str, message: impl Into<String>) -> Self {
        AdmissionResponse::deny(uid, Status::bad_request(message))
    }

    /// Adds a JSON Patch (already serialized JSON).
    pub fn with_patch(mut self, patch_json: &[u8]) -> Self {
        use base64::Engine as _;
        self.patch = Some(base64::engine::general_purpose::STANDARD.encode(patch_json));
        self.patch_type = Some(PATCH_TYPE_JSON_PATCH);
        self
    }

    /// Sets the warnings, each text once, in order: kube-apiserver's warning recorder
    /// (`recorder.AddWarning` in `k8s.io/apiserver/pkg/endpoints/filters/warning.go`) drops a
    /// text it already recorded, and so does this response (two metrics of one HPA can find
    /// the same thing about one object). At most [`MAX_TOTAL_WARNING_CHARS`] characters in all,
    /// as [`AdmissionResponse::with_warnings_summarized`] keeps them, the last one then saying
    /// how many were left out.
    pub fn with_warnings(self, warnings: Vec<String>) -> Self {
        self.with_warnings_summarized(warnings, |kept, all| {
            let more = all - kept;
            let noun = if more == 1 { "warning" } else { "warnings" };
            format!(
                "… and {more} more {noun} from hpa-webhook (kube-apiserver passes on {MAX_TOTAL_WARNING_CHARS} characters of warnings at most)"
            )
        })
    }

    /// Sets the warnings, each text once, in order ([`AdmissionResponse::with_warnings`]),
    /// keeping their total within [`MAX_TOTAL_WARNING_CHARS`] characters as kube-apiserver's
    /// warning recorder counts them: when they would pass it, the first ones that leave room for
    /// a closing warning, `closing(kept, all)` (the first `kept` of the `all` distinct warnings
    /// sent; cut to [`MAX_WARNING_CHARS`](crate::admission::MAX_WARNING_CHARS)), which says what was left out. Past the total, the
    /// recorder would drop every later warning silently, and cut those it already holds.
    pub fn with_warnings_summarized(
        mut self,
        mut warnings: Vec<String>,
        closing: impl Fn(usize, usize) -> String,
    ) -> Self {
        let mut seen = std::collections::HashSet::with_capacity(warnings.len());
        warnings.retain(|w| seen.insert(w.clone()));
        let runes: Vec<usize> = warnings.iter().map(|w| w.chars().count()).collect();
        if runes.iter().sum::<usize>() > MAX_TOTAL_WARNING_CHARS {
            let all = warnings.len();
            // The longest run of first warnings that fits: each fewer leaves more room, and the
            // closing alone (at most `MAX_WARNING_CHARS`) always fits.
            let mut kept = 0;
            let mut total = 0;
            while kept < all && total + runes[kept] <= MAX_TOTAL_WARNING_CHARS {
                total += runes[kept];
                kept += 1;
            }
            loop {
                let last = short(&closing(kept, all));
                if kept == 0 || total + last.chars().count() <= MAX_TOTAL_WARNING_CHARS {
                    warnings.truncate(kept);
                    warnings.push(last);
                    break;
                }
                kept -= 1;
                total -= runes[kept];
            }
        }
        self.warnings = warnings;
        self
    }
}

/// `metav1.Status` of a denial.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    metadata: EmptyObject,
    status: &'static str,
    /// Human-readable description.
    pub message: String,
    /// Machine-readable reason (`Invalid`, `BadRequest`).
    pub reason: &'static str,
    /// Field-level causes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<StatusDetails>,
    /// The HTTP status code kube-apiserver answers with.
    pub code: u16,
}

impl Status {
    /// A failure status.
    pub fn failure(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Status { metadata: EmptyObject {}, status: "Failure", message: message.into(), reason, details: None, code }
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Status::failure(400, "BadRequest", message)
    }

    /// Adds details.
    pub fn with_details(mut self, details: StatusDetails) -> Self {
        self.details = Some(details);
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct EmptyObject {}

/// `metav1.StatusDetails`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusDetails {
    /// The object's name.
    pub name: String,
    /// Its API group.
    pub group: &'static str,
    /// Its kind.
    pub kind: &'static str,
    /// One cause per error, in order, duplicates included.
    pub causes: Vec<StatusCause>,
}

/// `metav1.StatusCause`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusCause {
    /// `FieldValueInvalid`, ...
    pub reason: &'static str,
    /// The error without its field (`Invalid value: 0: must be ...`).
    pub message: String,
    /// The field path.
    pub field: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn body(v: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap()
    }

    #[test]
    fn parses_a_request_without_copying_the_object() {
        let b = body(json!({"apiVersion": API_VERSION, "kind": KIND, "request": {
            "uid": "u1", "kind": {"group": "autoscaling", "version": "v2", "kind": "HorizontalPodAutoscaler"},
            "resource": {"group": "autoscaling", "version": "v2", "resource": "horizontalpodautoscalers"},
            "namespace": "shop", "operation": "CREATE", "userInfo": {"username": "me", "groups": ["a"]},
            "object": {"apiVersion": "autoscaling/v2"}, "oldObject": null, "dryRun": true, "options": {}}}));
        let r = parse(&b).unwrap();
        assert_eq!((r.uid.as_ref(), r.operation.as_ref(), r.namespace(), r.name()), ("u1", "CREATE", "shop", ""));
        assert!(r.is_hpa_resource());
        assert_eq!(r.object.unwrap().get(), r#"{"apiVersion":"autoscaling/v2"}"#);
        assert!(r.old_object.is_none());
        assert_eq!(r.dry_run, Some(true));
    }

    #[test]
    fn identical_warnings_are_sent_once_in_order() {
        let r = AdmissionResponse::allow("u").with_warnings(vec![
            "b".into(),
            "a".into(),
            "b".into(),
            "c".into(),
            "a".into(),
        ]);
        assert_eq!(r.warnings, ["b", "a", "c"]);
    }

    /// kube-apiserver's warning recorder (`recorder.AddWarning`,
    /// `k8s.io/apiserver/pkg/endpoints/filters/warning.go`): the warnings a client receives.
    fn recorded(warnings: &[String]) -> Vec<String> {
        let (total, item) = (MAX_TOTAL_WARNING_CHARS, crate::admission::MAX_WARNING_CHARS);
        let cut = |t: &str| t.chars().take(item).collect::<String>();
        let (mut written, mut truncating) = (0, false);
        let (mut ordered, mut headers): (Vec<&String>, Vec<String>) = (Vec::new(), Vec::new());
        for text in warnings {
            if written >= total && truncating {
                continue;
            }
            ordered.push(text);
            let text = if truncating { cut(text) } else { text.clone() };
            let runes = text.chars().count();
            if written + runes <= total || truncating {
                written += runes;
                headers.push(text);
                continue;
            }
            truncating = true;
            headers = ordered.iter().map(|t| cut(t)).collect();
            written = headers.iter().map(|t| t.chars().count()).sum();
        }
        headers
    }

    /// 20 warnings of 256 characters (`é` counts one, as a rune): 15 pass whole and the 16th
    /// says what was left out, 4,096 characters in all, which the recorder passes on untouched;
    /// sent as they were, it would have passed on 17 and dropped the last 3 without a word.
    #[test]
    fn warnings_stay_within_what_kube_apiserver_passes_on() {
        let sent: Vec<String> = (0..20).map(|i| format!("{i:02} {}", "é".repeat(253))).collect();
        assert_eq!(recorded(&sent)[..], sent[..17]);
        let r = AdmissionResponse::allow("u").with_warnings(sent.clone());
        assert_eq!(r.warnings.len(), 16);
        assert_eq!(r.warnings[..15], sent[..15]);
        assert_eq!(
            r.warnings[15],
            "… and 5 more warnings from hpa-webhook (kube-apiserver passes on 4096 characters of warnings at most)"
        );
        assert!(r.warnings.iter().map(|w| w.chars().count()).sum::<usize>() <= MAX_TOTAL_WARNING_CHARS);
        assert_eq!(recorded(&r.warnings), r.warnings);
        // A closing that needs more room leaves out one more; exactly 4,096 is kept whole.
        let r = AdmissionResponse::allow("u")
            .with_warnings_summarized(sent.clone(), |kept, all| format!("{kept} of {all} {}", "x".repeat(300)));
        assert_eq!(r.warnings.len(), 16);
        assert!(r.warnings[15].starts_with("15 of 20 xxx") && r.warnings[15].chars().count() == 256);
        let exact: Vec<String> = sent[..16].to_vec();
        assert_eq!(AdmissionResponse::allow("u").with_warnings(exact.clone()).warnings, exact);
    }

    #[test]
    fn rejections() {
        let bad = |b: &[u8]| match parse(b) {
            Err(Rejection::BadRequest(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(bad(b"{not json").contains("not valid JSON"));
        assert!(bad(b"").contains("not valid JSON"));
        assert!(bad(b"[1]").contains("not an AdmissionReview"));
        assert!(bad(&body(json!({"kind": KIND, "request": {"uid": "u"}}))).contains("expected apiVersion"));
        let v1alpha1 = json!({"apiVersion": "admission.k8s.io/v1alpha1", "kind": KIND, "request": {"uid": "u"}});
        assert!(bad(&body(v1alpha1)).contains("\"admission.k8s.io/v1alpha1\""));
        let not_a_review = json!({"apiVersion": API_VERSION_V1BETA1, "kind": "Status", "request": {"uid": "u"}});
        assert!(bad(&body(not_a_review)).contains("\"Status\""));
        assert!(bad(&body(json!({"apiVersion": API_VERSION, "kind": KIND}))).contains("no request"));
        assert!(bad(&body(json!({"apiVersion": API_VERSION, "kind": KIND, "request": null}))).contains("no request"));
        let no_uid = json!({"apiVersion": API_VERSION, "kind": KIND, "request": {"operation": "CREATE"}});
        assert!(bad(&body(no_uid)).contains("without a uid"));
        let empty_uid = json!({"apiVersion": API_VERSION, "kind": KIND, "request": {"uid": "", "operation": "CREATE"}});
        assert!(bad(&body(empty_uid)).contains("no uid"));
        // A review with a uid but a malformed request is answered with allowed: false.
        let typed = json!({"apiVersion": API_VERSION, "kind": KIND, "request": {"uid": "u9", "operation": 7}});
        match parse(&body(typed)) {
            Err(Rejection::Invalid { version, uid, message }) => {
                assert_eq!((version, uid.as_str()), (ReviewVersion::V1, "u9"));
                assert!(message.starts_with("malformed AdmissionRequest: invalid type: integer `7`"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn response_wire_format() {
        let status = Status::failure(422, "Invalid", "m").with_details(StatusDetails {
            name: "web".into(),
            group: "autoscaling",
            kind: "HorizontalPodAutoscaler",
            causes: vec![StatusCause {
                reason: "FieldValueRequired",
                message: "Required value".into(),
                field: "f".into(),
            }],
        });
        let r = AdmissionResponse::deny("u", status).with_warnings(vec!["w".into()]);
        let v: serde_json::Value = serde_json::from_slice(&ResponseReview::new(&r).to_vec()).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {
                "uid": "u", "allowed": false, "warnings": ["w"],
                "status": {"metadata": {}, "status": "Failure", "message": "m", "reason": "Invalid", "code": 422,
                    "details": {"name": "web", "group": "autoscaling", "kind": "HorizontalPodAutoscaler",
                        "causes": [{"reason": "FieldValueRequired", "message": "Required value", "field": "f"}]}}}})
        );
        let r = AdmissionResponse::allow("u").with_patch(b"[]");
        let v: serde_json::Value = serde_json::from_slice(&ResponseReview::new(&r).to_vec()).unwrap();
        assert_eq!(v["response"], json!({"uid": "u", "allowed": true, "patch": "W10=", "patchType": "JSONPatch"}));
    }
}
