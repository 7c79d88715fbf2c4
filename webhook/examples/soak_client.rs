//! Load generator and checker for `bench/soak/run.sh`: a steady, mixed load on a running
//! `hpa-webhook`, every answer checked against what the README documents, while the script
//! rotates the serving certificate and changes the policy file.
//!
//! The script is the clock. It appends timeline events to a file (`--events`), one per line,
//! `<unix time> <event> [<argument>]`, each written *before* it acts:
//!
//! - `warm`: warm-up over (the script reads the server's RSS);
//! - `cert-begin N`, `cert-done N`: the files of certificate generation N (the N-th
//!   `--generation`, from 0) are about to be put in place, and are in place;
//! - `policy-invalid`: the policy file is about to be replaced by an invalid one (the policy in
//!   force must stay);
//! - `policy-begin`, `policy-done`: the policy file is about to be replaced by the new policy,
//!   and has been;
//! - `end`: stop the load, check, report.
//!
//! Expectations follow the timeline: a policy-sensitive request must get the old policy's
//! answer when sent before `policy-begin`, either answer around the switch, and the new one
//! when sent later than `policy-done` + `--reload-interval` + `--grace` (or once any new answer
//! has been received: the switch is atomic, so answers never flip back). Likewise every new TLS
//! handshake must present generation N-1 before `cert-begin N`, generation N after `cert-done
//! N` + reload interval + grace, and never an older certificate than one already seen.
//!
//! The client trusts every CA given with `--ca`: `hpa-webhook certs` makes a new CA each time,
//! so a client that keeps connecting across a rotation (kube-apiserver, through the webhook
//! configurations' `caBundle`) must trust the old and the new CA from before the switch until
//! after it.
//!
//! Every worker holds one connection (odd workers HTTP/2, even ones HTTP/1.1), paces its
//! requests so that all together send `--rate` requests per second, and opens a new connection
//! every few hundred requests (so that handshakes see the rotations). Oversized requests go on
//! a connection of their own, with and without a `Content-Length`. Two more tasks probe
//! `/readyz` (4 per second, each on a new connection) and scrape `/metrics` (every second).
//!
//! With `--context-hpas` and `--context-workloads` (the server watches the benchmark cluster of
//! `tests/benches/cluster_read.rs serve`, `fixtures::BenchCluster`, while its workloads churn),
//! the mix also holds valid requests about that cluster's objects whose warnings come from the
//! context cache ([`CONTEXT_CASES`]): HPAs in its namespaces (HPA201 on a Deployment without
//! requests, HPA407 for a second HPA on a Deployment, none for an HPA on its Deployment with every
//! request) and Deployment UPDATEs to `/validate-workloads` under one of its HPAs (HPA410 for
//! `spec.replicas` set by a server-side apply, HPA201 for dropped requests, none for a new image),
//! as kube-apiserver sends them (managed fields included). A stale view fails them.
//!
//! The report goes to stdout (markdown); the exit status is 1 when any check failed.
//!
//! A client of our own rather than wrk or hey: every answer is checked (uid, decision, status,
//! message, the patch applied to the object sent), what is right changes along the timeline,
//! and each handshake is matched to the certificate generation it got.
//!
//! ```text
//! cargo run --release -p hpa-webhook --example soak_client -- --addr 127.0.0.1:18543 \
//!   --ca gen0/ca.crt --ca gen1/ca.crt --generation gen0/tls.crt --generation gen1/tls.crt \
//!   --events events.log --max-body-bytes 262144
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use clap::Parser;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use hpa_tests::apiserver::fixtures::BenchCluster;
use hpa_tests::apiserver::store::Store;
use hpa_webhook::cli::parse_duration;
use hpa_webhook::review::{hpa_review as review, workload_review};

/// Steady mixed load on hpa-webhook with checks that follow a timeline of rotations.
#[derive(Debug, Parser)]
struct Args {
    /// The server (HTTPS).
    #[arg(long)]
    addr: SocketAddr,
    /// Name the certificates are issued for (SNI and verification).
    #[arg(long, default_value = "localhost")]
    server_name: String,
    /// A CA certificate (PEM) to trust; repeat for every CA of the rotations.
    #[arg(long = "ca", required = true)]
    cas: Vec<PathBuf>,
    /// The serving certificate (PEM) of each generation, in rotation order.
    #[arg(long = "generation", required = true)]
    generations: Vec<PathBuf>,
    /// The timeline file the script appends events to.
    #[arg(long)]
    events: PathBuf,
    /// Concurrent connections (one worker each).
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Requests per second, all workers together.
    #[arg(long, default_value_t = 800.0)]
    rate: f64,
    /// The server's --max-body-bytes (oversized requests are a little larger).
    #[arg(long)]
    max_body_bytes: usize,
    /// The server's --reload-interval.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    reload_interval: Duration,
    /// Slack on top of the reload interval before a change must be in force.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    grace: Duration,
    /// Stop (and fail) if no `end` event came by then.
    #[arg(long, default_value = "15m", value_parser = parse_duration)]
    max_duration: Duration,
    /// Client-side limit on one request.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    request_timeout: Duration,
    /// HPAs of the benchmark cluster the server's context cache watches (`cluster_read serve`,
    /// `fixtures::BenchCluster`); with `--context-workloads`, adds requests about its objects
    /// that hit cross-object rules to the mix. 0: no context cache.
    #[arg(long, default_value_t = 0)]
    context_hpas: usize,
    /// Workloads of that cluster.
    #[arg(long, default_value_t = 0)]
    context_workloads: usize,
}

// === categories and expectations ===

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    Valid,
    Denied,
    Policy,
    MalformedReview,
    MalformedBody,
    Oversized,
}

impl Category {
    const ALL: [Category; 6] = [
        Category::Valid,
        Category::Denied,
        Category::Policy,
        Category::MalformedReview,
        Category::MalformedBody,
        Category::Oversized,
    ];

    fn name(self) -> &'static str {
        match self {
            Category::Valid => "valid, admitted",
            Category::Denied => "valid, invalid HPA",
            Category::Policy => "valid, policy-sensitive",
            Category::MalformedReview => "malformed request in a review",
            Category::MalformedBody => "malformed body",
            Category::Oversized => "oversized body",
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Category::Valid => "200, allowed (a /mutate patch applies and defaults the object)",
            Category::Denied => "200, allowed: false, 422 Invalid with the field",
            Category::Policy => "old policy's answer, then the new one's after the reload",
            Category::MalformedReview => "200, allowed: false, 400 BadRequest with the reason, uid echoed",
            Category::MalformedBody => "HTTP 400 with the reason",
            Category::Oversized => "HTTP 413",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What the answer must be.
#[derive(Debug, Clone)]
enum Expect {
    /// HTTP 200, `allowed: true`; the patch, if any, applies to `object`; then `wants`.
    Allow { object: Option<Value>, wants: Vec<Want> },
    /// HTTP 200, `allowed: false` with this status code and reason, the message containing `needle`.
    Deny { code: u16, reason: &'static str, needle: &'static str },
    /// This HTTP status, the text containing `needle`.
    Http { status: u16, needle: String },
    /// The old policy's answer or the new one's.
    Policy { old: Box<Expect>, new: Box<Expect> },
}

/// A property of an admitted answer.
#[derive(Debug, Clone)]
enum Want {
    /// The patched object has this value at this JSON pointer.
    Field(&'static str, Value),
    /// The patched object has a string containing this at this pointer.
    FieldContains(&'static str, &'static str),
    /// The patched object has nothing at this pointer.
    NoField(&'static str),
    /// No patch at all.
    NoPatch,
    /// A warning contains this.
    Warning(String),
    /// No warning contains this.
    NoWarning(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Old,
    New,
}

/// Checks an answer; `Err` says what is wrong.
fn judge(expect: &Expect, uid: &str, status: u16, body: &[u8]) -> Result<(), String> {
    match expect {
        Expect::Http { status: want, needle } => {
            let text = String::from_utf8_lossy(body);
            if status != *want {
                return Err(format!("HTTP {status}, expected {want}: {}", snippet(&text)));
            }
            if !text.contains(needle.as_str()) {
                return Err(format!("HTTP {status} without {needle:?}: {}", snippet(&text)));
            }
            Ok(())
        }
        Expect::Allow { object, wants } => {
            let response = review_response(uid, status, body)?;
            if response["allowed"] != true {
                return Err(format!("denied: {}", response["status"]["message"]));
            }
            let mut doc = object.clone().unwrap_or(Value::Null);
            let patch = response["patch"].as_str();
            if let Some(encoded) = patch {
                if object.is_none() {
                    return Err("a patch where none may be".into());
                }
                if response["patchType"] != "JSONPatch" {
                    return Err(format!("patchType {}", response["patchType"]));
                }
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .map_err(|e| format!("patch is not base64: {e}"))?;
                let ops: json_patch::Patch =
                    serde_json::from_slice(&bytes).map_err(|e| format!("patch is not a JSON Patch: {e}"))?;
                json_patch::patch(&mut doc, &ops).map_err(|e| format!("patch does not apply: {e}"))?;
            }
            let warnings: Vec<&str> = response["warnings"]
                .as_array()
                .map(|w| w.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for want in wants {
                match want {
                    Want::Field(pointer, value) if doc.pointer(pointer) != Some(value) => {
                        return Err(format!(
                            "{pointer} is {:?} after the patch, expected {value}",
                            doc.pointer(pointer)
                        ));
                    }
                    Want::FieldContains(pointer, needle)
                        if !doc.pointer(pointer).and_then(Value::as_str).is_some_and(|s| s.contains(needle)) =>
                    {
                        return Err(format!(
                            "{pointer} is {:?} after the patch, expected it to contain {needle:?}",
                            doc.pointer(pointer)
                        ));
                    }
                    Want::NoField(pointer) if doc.pointer(pointer).is_some() => {
                        return Err(format!("{pointer} is set after the patch"));
                    }
                    Want::NoPatch if patch.is_some() => return Err("unexpected patch".into()),
                    Want::Warning(needle) if !warnings.iter().any(|w| w.contains(needle)) => {
                        return Err(format!("no warning contains {needle:?}: {warnings:?}"));
                    }
                    Want::NoWarning(needle) if warnings.iter().any(|w| w.contains(needle)) => {
                        return Err(format!("a warning contains {needle:?}: {warnings:?}"));
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Expect::Deny { code, reason, needle } => {
            let response = review_response(uid, status, body)?;
            if response["allowed"] != false {
                return Err("allowed, expected a denial".into());
            }
            let status = &response["status"];
            if status["code"] != *code || status["reason"] != *reason {
                return Err(format!("status {} {}, expected {code} {reason}", status["code"], status["reason"]));
            }
            let message = status["message"].as_str().unwrap_or_default();
            if !message.contains(needle) {
                return Err(format!("message {message:?} lacks {needle:?}"));
            }
            Ok(())
        }
        Expect::Policy { old, new } => match (judge(new, uid, status, body), judge(old, uid, status, body)) {
            (Ok(()), _) | (_, Ok(())) => Ok(()),
            (Err(new), Err(old)) => Err(format!("neither policy's answer: new: {new}; old: {old}")),
        },
    }
}

/// Which policy a policy-sensitive answer reflects.
fn phase(expect: &Expect, uid: &str, status: u16, body: &[u8]) -> Result<Phase, String> {
    let Expect::Policy { old, new } = expect else { return Err("not policy-sensitive".into()) };
    match (judge(new, uid, status, body), judge(old, uid, status, body)) {
        (Ok(()), _) => Ok(Phase::New),
        (_, Ok(())) => Ok(Phase::Old),
        (Err(new), Err(old)) => Err(format!("neither policy's answer: new: {new}; old: {old}")),
    }
}

/// The `response` of a 200 AdmissionReview answer for `uid`.
fn review_response(uid: &str, status: u16, body: &[u8]) -> Result<Value, String> {
    if status != 200 {
        return Err(format!("HTTP {status}: {}", snippet(&String::from_utf8_lossy(body))));
    }
    let mut answer: Value = serde_json::from_slice(body).map_err(|e| format!("answer is not JSON: {e}"))?;
    if answer["apiVersion"] != "admission.k8s.io/v1" || answer["kind"] != "AdmissionReview" {
        return Err(format!("not an admission.k8s.io/v1 AdmissionReview: {}", answer["apiVersion"]));
    }
    let response = answer["response"].take();
    if response["uid"] != uid {
        return Err(format!("uid {} instead of {uid:?}", response["uid"]));
    }
    Ok(response)
}

fn snippet(text: &str) -> String {
    let mut s: String = text.chars().take(160).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}

// === the requests ===

/// One request ready to send.
struct Prepared {
    case: &'static str,
    category: Category,
    path: &'static str,
    body: Bytes,
    /// Sent without a Content-Length (chunked on HTTP/1.1).
    streamed: bool,
    expect: Expect,
}

/// Either admission endpoint, chosen at random for each request.
const EITHER: &str = "";

/// Every kind of request: name, weight in the mix, category and endpoint.
const CASES: &[(&str, u32, Category, &str)] = &[
    ("validate v2 CREATE", 8, Category::Valid, "/validate"),
    ("validate v2 UPDATE", 8, Category::Valid, "/validate"),
    ("validate v1 CREATE", 5, Category::Valid, "/validate"),
    ("validate v1 UPDATE", 5, Category::Valid, "/validate"),
    ("validate dryRun", 2, Category::Valid, "/validate"),
    ("mutate v2 CREATE", 8, Category::Valid, "/mutate"),
    ("mutate v2 UPDATE", 6, Category::Valid, "/mutate"),
    ("mutate v1 CREATE", 5, Category::Valid, "/mutate"),
    ("mutate v1 UPDATE", 4, Category::Valid, "/mutate"),
    ("mutate defaulted v2", 3, Category::Valid, "/mutate"),
    ("other kind", 2, Category::Valid, EITHER),
    ("DELETE", 2, Category::Valid, EITHER),
    ("deny maxReplicas 0", 4, Category::Denied, "/validate"),
    ("deny minReplicas > maxReplicas", 3, Category::Denied, "/validate"),
    ("deny v1 UPDATE invalid", 3, Category::Denied, "/validate"),
    ("policy maxReplicas 50", 3, Category::Policy, "/validate"),
    ("policy UPDATE keeps maxReplicas 50", 3, Category::Policy, "/validate"),
    ("policy mutate v2 behavior", 3, Category::Policy, "/mutate"),
    ("policy mutate v1 behavior", 2, Category::Policy, "/mutate"),
    ("review without object", 1, Category::MalformedReview, EITHER),
    ("review null object", 1, Category::MalformedReview, EITHER),
    ("UPDATE without oldObject", 1, Category::MalformedReview, EITHER),
    ("operation PATCH", 1, Category::MalformedReview, EITHER),
    ("kind Deployment", 1, Category::MalformedReview, EITHER),
    ("maxReplicas \"ten\"", 1, Category::MalformedReview, EITHER),
    ("version mismatch", 1, Category::MalformedReview, EITHER),
    ("body truncated JSON", 1, Category::MalformedBody, EITHER),
    ("body binary garbage", 1, Category::MalformedBody, EITHER),
    ("body empty", 1, Category::MalformedBody, EITHER),
    ("body JSON array", 1, Category::MalformedBody, EITHER),
    ("body other JSON", 1, Category::MalformedBody, EITHER),
    ("apiVersion v1alpha1", 1, Category::MalformedBody, EITHER),
    ("kind ConversionReview", 1, Category::MalformedBody, EITHER),
    ("review without request", 1, Category::MalformedBody, EITHER),
    ("request without uid", 1, Category::MalformedBody, EITHER),
    ("oversized, Content-Length", 1, Category::Oversized, EITHER),
    ("oversized, streamed", 1, Category::Oversized, EITHER),
];

/// With a context cache: requests about the objects it holds, whose answers carry the warnings of
/// the cross-object rules run against it (each case is checked in [`build_context`]).
const CONTEXT_CASES: &[(&str, u32, Category, &str)] = &[
    ("context HPA on its cached Deployment", 3, Category::Valid, "/validate"),
    ("context HPA201 on a Deployment without requests", 3, Category::Valid, "/validate"),
    ("context HPA407 second HPA on a Deployment", 3, Category::Valid, "/validate"),
    ("workloads UPDATE new image", 3, Category::Valid, "/validate-workloads"),
    ("workloads UPDATE sets replicas", 3, Category::Valid, "/validate-workloads"),
    ("workloads UPDATE drops requests", 3, Category::Valid, "/validate-workloads"),
];

/// The cases in the mix: [`CONTEXT_CASES`] too when the server has a context cache.
fn cases(context: bool) -> impl Iterator<Item = &'static (&'static str, u32, Category, &'static str)> {
    CASES.iter().chain(if context { CONTEXT_CASES } else { &[] })
}

/// A case at random, by weight.
fn pick(rng: &mut Rng, context: bool) -> &'static str {
    let total: u32 = cases(context).map(|c| c.1).sum();
    let mut at = rng.below(u64::from(total)) as u32;
    for &(name, weight, _, _) in cases(context) {
        if at < weight {
            return name;
        }
        at -= weight;
    }
    CASES[0].0
}

/// The new policy's denial of `maxReplicas: 50` (the old policy allows up to 100).
const POLICY_DENIAL: &str = "must be less than or equal to 20 (organization policy: defaults)";
/// The ratchet warning, as far as it survives the server's 120-character limit on warnings.
const RATCHET_WARNING: &str = "(organization policy: defaults) (allowed:";
/// Where `autoscaling/v1` keeps `behavior`.
const V1_BEHAVIOR: &str = "/metadata/annotations/autoscaling.alpha.kubernetes.io~1behavior";

/// A request of this case, with what its answer must be.
fn build(
    case: &'static str,
    rng: &mut Rng,
    uid: &str,
    max_body: usize,
    oversized: &Bytes,
    cluster: Option<&ContextCluster>,
) -> Prepared {
    let (_, _, category, path) = cases(true).copied().find(|c| c.0 == case).unwrap_or(CASES[0]);
    let path = match path {
        EITHER if rng.below(2) == 0 => "/validate",
        EITHER => "/mutate",
        path => path,
    };
    if let Some(cluster) = cluster
        && let Some((review, expect)) = build_context(case, rng, uid, cluster)
    {
        let body = serde_json::to_vec(&review).map(Bytes::from).unwrap_or_default();
        return Prepared { case, category, path, body, streamed: false, expect };
    }
    let name = format!("web-{}", rng.below(1000));
    let max = 2 + rng.below(19) as i64; // 2..=20: within both policies
    let allow = |object: Option<Value>, wants: Vec<Want>| Expect::Allow { object, wants };
    let invalid_hpa = |needle: &'static str| Expect::Deny { code: 422, reason: "Invalid", needle };
    let bad_request = |needle: &'static str| Expect::Deny { code: 400, reason: "BadRequest", needle };
    let http400 = |needle: &str| Expect::Http { status: 400, needle: needle.to_string() };
    let v2_defaults = || {
        vec![
            Want::Field("/spec/minReplicas", json!(1)),
            Want::Field("/spec/metrics/0/resource/target/averageUtilization", json!(80)),
            Want::NoField("/spec/behavior"),
        ]
    };
    let stored = hpa_v2_stored(&name, "shop", max);
    let (review, expect): (Value, Expect) = match case {
        "validate v2 CREATE" => (review(uid, "CREATE", &stored, None), allow(None, vec![])),
        "validate v2 UPDATE" => {
            let old = hpa_v2_stored(&name, "shop", 10);
            (review(uid, "UPDATE", &stored, Some(&old)), allow(None, vec![]))
        }
        "validate v1 CREATE" => (review(uid, "CREATE", &hpa_v1(&name, "shop", max, true), None), allow(None, vec![])),
        "validate v1 UPDATE" => {
            let old = hpa_v1(&name, "shop", 10, true);
            (review(uid, "UPDATE", &hpa_v1(&name, "shop", max, true), Some(&old)), allow(None, vec![]))
        }
        "validate dryRun" => {
            let mut r = review(uid, "CREATE", &stored, None);
            r["request"]["dryRun"] = json!(true);
            (r, allow(None, vec![]))
        }
        "mutate v2 CREATE" | "mutate v2 UPDATE" => {
            let object = hpa_v2_written(&name, "shop", max);
            let old = hpa_v2_stored(&name, "shop", 10);
            let old = (case == "mutate v2 UPDATE").then_some(&old);
            let operation = if old.is_some() { "UPDATE" } else { "CREATE" };
            (review(uid, operation, &object, old), allow(Some(object), v2_defaults()))
        }
        "mutate v1 CREATE" | "mutate v1 UPDATE" => {
            let object = hpa_v1(&name, "shop", max, false);
            let old = hpa_v1(&name, "shop", 10, true);
            let old = (case == "mutate v1 UPDATE").then_some(&old);
            let operation = if old.is_some() { "UPDATE" } else { "CREATE" };
            let wants = vec![Want::Field("/spec/minReplicas", json!(1)), Want::NoField(V1_BEHAVIOR)];
            (review(uid, operation, &object, old), allow(Some(object), wants))
        }
        "mutate defaulted v2" => (review(uid, "CREATE", &stored, None), allow(Some(stored), vec![Want::NoPatch])),
        "other kind" => {
            let configmap = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
            let mut r = review(uid, "CREATE", &configmap, None);
            r["request"]["kind"] = json!({"group": "", "version": "v1", "kind": "ConfigMap"});
            r["request"]["resource"] = json!({"group": "", "version": "v1", "resource": "configmaps"});
            (r, allow(Some(configmap), vec![Want::NoPatch]))
        }
        "DELETE" => (review(uid, "DELETE", &Value::Null, Some(&stored)), allow(Some(Value::Null), vec![Want::NoPatch])),
        "deny maxReplicas 0" => {
            let object = hpa_v2_stored(&name, "shop", 0);
            (review(uid, "CREATE", &object, None), invalid_hpa("spec.maxReplicas: Invalid value: 0"))
        }
        "deny minReplicas > maxReplicas" => {
            let mut object = hpa_v2_stored(&name, "shop", 3);
            object["spec"]["minReplicas"] = json!(5);
            (review(uid, "CREATE", &object, None), invalid_hpa("spec.maxReplicas: Invalid value: 3"))
        }
        "deny v1 UPDATE invalid" => {
            let mut object = hpa_v1(&name, "shop", max, true);
            object["spec"]["targetCPUUtilizationPercentage"] = json!(0);
            let old = hpa_v1(&name, "shop", max, true);
            // kube-apiserver validates the internal (v2) form, so the path is the v2 one.
            let needle = "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0";
            (review(uid, "UPDATE", &object, Some(&old)), invalid_hpa(needle))
        }
        "policy maxReplicas 50" => {
            let object = hpa_v2_stored(&name, "shop", 50);
            let expect =
                Expect::Policy { old: Box::new(allow(None, vec![])), new: Box::new(invalid_hpa(POLICY_DENIAL)) };
            (review(uid, "CREATE", &object, None), expect)
        }
        "policy UPDATE keeps maxReplicas 50" => {
            let old = hpa_v2_stored(&name, "shop", 50);
            let mut object = old.clone();
            object["metadata"]["labels"]["release"] = json!(format!("r{}", rng.below(100)));
            let expect = Expect::Policy {
                old: Box::new(allow(None, vec![Want::NoWarning(RATCHET_WARNING)])),
                new: Box::new(allow(None, vec![Want::Warning(RATCHET_WARNING.into())])),
            };
            (review(uid, "UPDATE", &object, Some(&old)), expect)
        }
        "policy mutate v2 behavior" => {
            let object = hpa_v2_written(&name, "prod", max);
            let new = vec![
                Want::Field("/spec/minReplicas", json!(1)),
                Want::Field("/spec/behavior/scaleDown/stabilizationWindowSeconds", json!(600)),
                Want::Field("/spec/behavior/scaleUp/stabilizationWindowSeconds", json!(0)),
            ];
            let expect = Expect::Policy {
                old: Box::new(allow(Some(object.clone()), v2_defaults())),
                new: Box::new(allow(Some(object.clone()), new)),
            };
            (review(uid, "CREATE", &object, None), expect)
        }
        "policy mutate v1 behavior" => {
            let object = hpa_v1(&name, "prod", max, false);
            let new = vec![Want::Field("/spec/minReplicas", json!(1)), Want::FieldContains(V1_BEHAVIOR, "600")];
            let expect = Expect::Policy {
                old: Box::new(allow(Some(object.clone()), vec![Want::NoField(V1_BEHAVIOR)])),
                new: Box::new(allow(Some(object.clone()), new)),
            };
            (review(uid, "CREATE", &object, None), expect)
        }
        "review without object" => {
            let mut r = review(uid, "CREATE", &stored, None);
            if let Some(request) = r["request"].as_object_mut() {
                request.remove("object");
            }
            (r, bad_request("request.object is missing"))
        }
        "review null object" => (review(uid, "CREATE", &Value::Null, None), bad_request("request.object is missing")),
        "UPDATE without oldObject" => {
            (review(uid, "UPDATE", &stored, None), bad_request("request.oldObject is missing for UPDATE"))
        }
        "operation PATCH" => {
            (review(uid, "PATCH", &stored, None), bad_request("request.operation \"PATCH\" is not one of"))
        }
        "kind Deployment" => {
            let mut r = review(uid, "CREATE", &stored, None);
            r["request"]["kind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
            (r, bad_request("request.kind is \"Deployment\" in group \"apps\""))
        }
        "maxReplicas \"ten\"" => {
            let mut object = stored;
            object["spec"]["maxReplicas"] = json!("ten");
            (review(uid, "CREATE", &object, None), bad_request("cannot be handled as a HorizontalPodAutoscaler"))
        }
        "version mismatch" => {
            let mut r = review(uid, "CREATE", &stored, None);
            r["request"]["kind"]["version"] = json!("v1");
            (r, bad_request("but request.kind is autoscaling/v1"))
        }
        "body truncated JSON" | "body binary garbage" | "body empty" | "body JSON array" | "body other JSON" => {
            let (body, needle): (&'static [u8], &str) = match case {
                "body truncated JSON" => (b"{\"apiVersion\": \"admission.k8s.io/v1\", \"kind\": ", "not valid JSON"),
                "body binary garbage" => (b"\xff\xfe\x00garbage", "not valid JSON"),
                "body empty" => (b"", "not valid JSON"),
                "body JSON array" => (b"[1, 2]", "not an AdmissionReview"),
                _ => (b"{\"hello\": \"world\"}", "expected apiVersion \"admission.k8s.io/v1\""),
            };
            let body = Bytes::from_static(body);
            return Prepared { case, category, path, body, streamed: false, expect: http400(needle) };
        }
        "apiVersion v1alpha1" => {
            let mut r = review(uid, "CREATE", &stored, None);
            r["apiVersion"] = json!("admission.k8s.io/v1alpha1");
            (r, http400("got \"admission.k8s.io/v1alpha1\""))
        }
        "kind ConversionReview" => {
            let mut r = review(uid, "CREATE", &stored, None);
            r["kind"] = json!("ConversionReview");
            (r, http400("\"ConversionReview\""))
        }
        "review without request" => {
            (json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}), http400("no request"))
        }
        "request without uid" => {
            let mut r = review(uid, "CREATE", &stored, None);
            if let Some(request) = r["request"].as_object_mut() {
                request.remove("uid");
            }
            (r, http400("without a uid"))
        }
        _ => {
            // "oversized, Content-Length" and "oversized, streamed"
            let needle = format!("request body larger than {max_body} bytes");
            let (body, streamed) = (oversized.clone(), case == "oversized, streamed");
            return Prepared { case, category, path, body, streamed, expect: Expect::Http { status: 413, needle } };
        }
    };
    let body = serde_json::to_vec(&review).map(Bytes::from).unwrap_or_default();
    Prepared { case, category, path, body, streamed: false, expect }
}

/// The benchmark cluster the server's context cache watches, as `cluster_read serve` made it.
struct ContextCluster {
    bench: BenchCluster,
    hpas: usize,
    workloads: usize,
}

/// What the stale view's warning says (`hpa_webhook::context`): then no cross-object check ran.
const ALONE: &str = "checked this HPA alone";

/// A request of a [`CONTEXT_CASES`] case about the cluster's objects, with its answer: the
/// cross-object warnings the cache's objects bring, and none that they rule out. `None` for
/// other cases.
fn build_context(case: &str, rng: &mut Rng, uid: &str, cluster: &ContextCluster) -> Option<(Value, Expect)> {
    if !CONTEXT_CASES.iter().any(|c| c.0 == case) {
        return None;
    }
    // An HPA of the cluster on a Deployment: HPA `i` for an even `i` (`BenchCluster::hpa`).
    let deployments = cluster.hpas.div_ceil(2).min(cluster.workloads.div_ceil(6)).max(1);
    let i = 2 * rng.below(deployments as u64) as usize;
    let hpa = cluster.bench.hpa(i);
    let name = format!("web-{}", 3 * i);
    let allow = |wants: Vec<Want>| Expect::Allow { object: None, wants };
    let deployments = ("apps", "v1", "deployments");
    Some(match case {
        // Its own HPA, sent again: the Deployment in the cache has every request the metrics need.
        "context HPA on its cached Deployment" => (
            review(uid, "CREATE", &hpa, None),
            allow(vec![Want::NoWarning("HPA201"), Want::NoWarning("HPA407"), Want::NoWarning(ALONE)]),
        ),
        "context HPA201 on a Deployment without requests" => {
            let n = rng.below(BenchCluster::NAMESPACES as u64) as usize;
            let bare = cluster.bench.without_requests(n);
            let mut object = hpa;
            object["metadata"] = bare["metadata"].clone();
            object["spec"]["scaleTargetRef"]["name"] = bare["metadata"]["name"].clone();
            let wants = vec![Want::Warning("HPA201 missing-resource-request:".into()), Want::NoWarning(ALONE)];
            (review(uid, "CREATE", &object, None), allow(wants))
        }
        "context HPA407 second HPA on a Deployment" => {
            let mut object = hpa;
            object["metadata"]["name"] = json!(format!("second-{}", 3 * i));
            let wants = vec![Want::Warning("HPA407 conflicting-hpas:".into()), Want::NoWarning(ALONE)];
            (review(uid, "CREATE", &object, None), allow(wants))
        }
        "workloads UPDATE new image" | "workloads UPDATE sets replicas" | "workloads UPDATE drops requests" => {
            // Both objects as kube-apiserver sends them: written by a server-side apply of Argo
            // CD's, with the managed fields it records.
            let mut store = Store::new();
            let manifest = cluster.bench.workload(3 * i);
            let mut write = |object: &Value| {
                store.write_as(object, "argocd-controller", "Apply").map_err(|e| Expect::Http {
                    status: 0,
                    needle: format!("the test store refused the workload: {e}"),
                })
            };
            let old = match write(&manifest) {
                Ok(old) => old,
                Err(expect) => return Some((Value::Null, expect)),
            };
            let mut changed = manifest;
            changed["spec"]["template"]["spec"]["containers"][0]["image"] =
                json!(format!("ghcr.io/example/web:2.{uid}"));
            let want = match case {
                "workloads UPDATE sets replicas" => {
                    changed["spec"]["replicas"] = json!(3);
                    Want::Warning(format!("HPA {name}: HPA410 workload-sets-replicas:"))
                }
                "workloads UPDATE drops requests" => {
                    let spec = &mut changed["spec"]["template"]["spec"];
                    spec["containers"][0]["resources"] = json!({});
                    spec["initContainers"][1]["resources"] = json!({});
                    Want::Warning(format!("HPA {name}: HPA201 missing-resource-request:"))
                }
                _ => Want::NoWarning("HPA "),
            };
            let new = match write(&changed) {
                Ok(new) => new,
                Err(expect) => return Some((Value::Null, expect)),
            };
            (workload_review(uid, "UPDATE", deployments, &new, Some(&old)), allow(vec![want]))
        }
        _ => return None,
    })
}

/// A v2 HPA as a user writes it (before defaulting).
fn hpa_v2_written(name: &str, namespace: &str, max: i64) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}, "maxReplicas": max}
    })
}

/// A v2 HPA as kube-apiserver stores and sends it: defaulted, with server-set metadata.
fn hpa_v2_stored(name: &str, namespace: &str, max: i64) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": name, "namespace": namespace, "uid": "7b3c1c6e-8d64-4c55-9d3e-3f1b0f0b9c11",
            "resourceVersion": "123456", "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app.kubernetes.io/name": name}
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": max,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        },
        "status": {"currentReplicas": 0, "desiredReplicas": 0}
    })
}

/// A v1 HPA as stored (defaulted, with server-set metadata) or as written.
fn hpa_v1(name: &str, namespace: &str, max: i64, defaulted: bool) -> Value {
    let mut hpa = json!({
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "maxReplicas": max,
            "targetCPUUtilizationPercentage": 70
        }
    });
    if defaulted {
        hpa["spec"]["minReplicas"] = json!(1);
        hpa["metadata"]["resourceVersion"] = json!("123456");
        hpa["metadata"]["uid"] = json!("0a7e2f3c-5b1d-4e8a-9c6f-2d4b8e1f3a5c");
    }
    hpa
}

/// A review larger than the limit: a valid v2 CREATE with a large annotation.
fn oversized_body(max_body: usize) -> Bytes {
    let mut object = hpa_v2_stored("big", "shop", 10);
    object["metadata"]["annotations"] = json!({"pad": "x".repeat(max_body + 4096)});
    serde_json::to_vec(&review("big", "CREATE", &object, None)).map(Bytes::from).unwrap_or_default()
}

// === HTTP over TLS ===

/// A request body: sized (`Content-Length`) or streamed in 16 KiB chunks without one.
struct SoakBody {
    chunks: VecDeque<Bytes>,
    len: Option<u64>,
}

impl SoakBody {
    fn new(body: Bytes, streamed: bool) -> SoakBody {
        let len = (!streamed).then_some(body.len() as u64);
        let mut chunks = VecDeque::new();
        let mut rest = body;
        while !rest.is_empty() {
            let n = if streamed { rest.len().min(16 * 1024) } else { rest.len() };
            chunks.push_back(rest.split_to(n));
        }
        SoakBody { chunks, len }
    }
}

impl Body for SoakBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.get_mut().chunks.pop_front().map(|c| Ok(Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        self.len.map_or_else(SizeHint::default, SizeHint::with_exact)
    }
}

enum Sender {
    H1(hyper::client::conn::http1::SendRequest<SoakBody>),
    H2(hyper::client::conn::http2::SendRequest<SoakBody>),
}

struct Conn {
    sender: Sender,
}

impl Sender {
    fn protocol(&self) -> &'static str {
        match self {
            Sender::H1(_) => "HTTP/1.1",
            Sender::H2(_) => "HTTP/2",
        }
    }
}

impl Conn {
    async fn send(&mut self, method: &str, path: &str, body: Bytes, streamed: bool) -> Result<(u16, Bytes), String> {
        let request = hyper::Request::builder()
            .method(method)
            .uri(format!("https://localhost{path}"))
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(SoakBody::new(body, streamed))
            .map_err(|e| e.to_string())?;
        let response = match &mut self.sender {
            Sender::H1(s) => match s.ready().await {
                Ok(()) => s.send_request(request).await,
                Err(e) => Err(e),
            },
            Sender::H2(s) => match s.ready().await {
                Ok(()) => s.send_request(request).await,
                Err(e) => Err(e),
            },
        }
        .map_err(|e| format!("{}: sending: {e}", self.sender.protocol()))?;
        let status = response.status().as_u16();
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .map_err(|e| format!("{}: reading the answer: {e}", self.sender.protocol()))?
            .to_bytes();
        Ok((status, body))
    }
}

/// One TLS handshake: when it started and ended (Unix seconds) and the generation served.
#[derive(Debug, Clone, Copy)]
struct Handshake {
    started: f64,
    completed: f64,
    generation: Option<usize>,
}

struct Ctx {
    args: Args,
    server_name: ServerName<'static>,
    h1: Arc<rustls::ClientConfig>,
    h2: Arc<rustls::ClientConfig>,
    generations: Vec<Vec<u8>>,
    handshakes: Mutex<Vec<Handshake>>,
    oversized: Bytes,
    /// The cluster the server's context cache watches, if any.
    cluster: Option<ContextCluster>,
    stop: AtomicBool,
    sent: AtomicU64,
    failed: AtomicU64,
}

impl Ctx {
    async fn connect(&self, h2: bool) -> Result<Conn, String> {
        let started = now();
        let tcp = TcpStream::connect(self.args.addr).await.map_err(|e| format!("connecting: {e}"))?;
        let _ = tcp.set_nodelay(true);
        let config = if h2 { self.h2.clone() } else { self.h1.clone() };
        let stream = TlsConnector::from(config)
            .connect(self.server_name.clone(), tcp)
            .await
            .map_err(|e| format!("TLS handshake: {e}"))?;
        let (_, session) = stream.get_ref();
        let leaf = session.peer_certificates().and_then(|c| c.first()).map(|c| c.to_vec()).unwrap_or_default();
        let generation = self.generations.iter().position(|g| *g == leaf);
        let negotiated_h2 = session.alpn_protocol() == Some(b"h2");
        self.handshakes.lock().unwrap_or_else(PoisonError::into_inner).push(Handshake {
            started,
            completed: now(),
            generation,
        });
        let io = TokioIo::new(stream);
        let sender = if negotiated_h2 {
            let (sender, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .map_err(|e| format!("HTTP/2 handshake: {e}"))?;
            tokio::spawn(conn);
            Sender::H2(sender)
        } else {
            let (sender, conn) =
                hyper::client::conn::http1::handshake(io).await.map_err(|e| format!("HTTP/1.1 handshake: {e}"))?;
            tokio::spawn(conn);
            Sender::H1(sender)
        };
        Ok(Conn { sender })
    }

    /// One GET on a new HTTP/1.1 connection.
    async fn get(&self, path: &str) -> Result<(u16, Bytes), String> {
        let fut = async {
            let mut conn = self.connect(false).await?;
            conn.send("GET", path, Bytes::new(), false).await
        };
        tokio::time::timeout(self.args.request_timeout, fut).await.map_err(|_| "timed out".to_string())?
    }
}

fn client_config(roots: &rustls::RootCertStore, alpn: &[&[u8]]) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut config = rustls::ClientConfig::builder_with_provider(hpa_webhook::tls::provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots.clone())
        .with_no_client_auth();
    // A full handshake on every connection, so that each sees the certificate in force
    // (kube-apiserver's Go client does not resume sessions either).
    config.resumption = rustls::client::Resumption::disabled();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or_default()
}

// === workers ===

/// A policy-sensitive answer: when its request was sent, when the answer came, which policy.
#[derive(Debug, Clone, Copy)]
struct PolicyAnswer {
    sent: f64,
    received: f64,
    phase: Phase,
}

#[derive(Debug, Default)]
struct Stats {
    sent: [u64; 6],
    answered: [u64; 6],
    ok: [u64; 6],
    /// Wrong answers (a response came, but not the documented one).
    wrong: [u64; 6],
    /// No answer: connection, TLS or HTTP errors, client timeouts.
    transport: [u64; 6],
    /// Latency of every answered request, in microseconds.
    latencies: [Vec<u32>; 6],
    policy: Vec<PolicyAnswer>,
    /// Some failures, for the report: (category, case, what).
    examples: Vec<(Category, &'static str, String)>,
    /// Per case: (sent, failed).
    cases: BTreeMap<&'static str, (u64, u64)>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        for i in 0..6 {
            self.sent[i] += other.sent[i];
            self.answered[i] += other.answered[i];
            self.ok[i] += other.ok[i];
            self.wrong[i] += other.wrong[i];
            self.transport[i] += other.transport[i];
            self.latencies[i].extend_from_slice(&other.latencies[i]);
        }
        self.policy.extend(other.policy);
        for e in other.examples {
            if self.examples.len() < 20 {
                self.examples.push(e);
            }
        }
        for (case, (s, f)) in other.cases {
            let entry = self.cases.entry(case).or_default();
            entry.0 += s;
            entry.1 += f;
        }
    }

    fn fail(&mut self, prepared: &Prepared, what: String) {
        if self.examples.len() < 20 {
            self.examples.push((prepared.category, prepared.case, what));
        }
        self.cases.entry(prepared.case).or_default().1 += 1;
    }
}

async fn worker(id: usize, ctx: Arc<Ctx>) -> Stats {
    let mut rng = Rng::new(0x5eed_0000 + id as u64);
    let mut stats = Stats::default();
    let h2 = id % 2 == 1;
    let period = Duration::from_secs_f64(ctx.args.connections as f64 / ctx.args.rate.max(0.001));
    // Spread the workers over one period, then keep a steady pace.
    tokio::time::sleep(period.mul_f64(rng.below(1000) as f64 / 1000.0)).await;
    let mut ticker = tokio::time::interval(period);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut conn: Option<Conn> = None;
    let mut left = 0u64;
    let mut n = 0u64;
    loop {
        ticker.tick().await;
        if ctx.stop.load(Ordering::Relaxed) {
            break;
        }
        n += 1;
        let uid = format!("soak-{id}-{n}");
        let case = pick(&mut rng, ctx.cluster.is_some());
        let prepared = build(case, &mut rng, &uid, ctx.args.max_body_bytes, &ctx.oversized, ctx.cluster.as_ref());
        let c = prepared.category.index();
        stats.sent[c] += 1;
        stats.cases.entry(prepared.case).or_default().0 += 1;
        ctx.sent.fetch_add(1, Ordering::Relaxed);
        let sent_at = now();
        let started = Instant::now();
        let result = if prepared.category == Category::Oversized {
            // On a connection of its own: the server answers without reading the body, and an
            // HTTP/1.1 connection is then closed.
            let fut = async {
                let mut conn = ctx.connect(h2).await?;
                conn.send("POST", prepared.path, prepared.body.clone(), prepared.streamed).await
            };
            tokio::time::timeout(ctx.args.request_timeout, fut).await.unwrap_or_else(|_| Err("timed out".into()))
        } else {
            if conn.is_none() || left == 0 {
                conn = None;
                match tokio::time::timeout(ctx.args.request_timeout, ctx.connect(h2)).await {
                    Ok(Ok(c)) => conn = Some(c),
                    Ok(Err(e)) => {
                        record_transport(&mut stats, &ctx, &prepared, e);
                        continue;
                    }
                    Err(_) => {
                        record_transport(&mut stats, &ctx, &prepared, "connect timed out".into());
                        continue;
                    }
                }
                left = 100 + rng.below(400);
            }
            left -= 1;
            let Some(active) = conn.as_mut() else { continue };
            let fut = active.send("POST", prepared.path, prepared.body.clone(), prepared.streamed);
            match tokio::time::timeout(ctx.args.request_timeout, fut).await {
                Ok(result) => result,
                Err(_) => Err("timed out".into()),
            }
        };
        let (status, body) = match result {
            Ok(answer) => answer,
            Err(e) => {
                conn = None;
                record_transport(&mut stats, &ctx, &prepared, e);
                continue;
            }
        };
        let latency = started.elapsed();
        let received_at = now();
        stats.answered[c] += 1;
        stats.latencies[c].push(u32::try_from(latency.as_micros()).unwrap_or(u32::MAX));
        let verdict = if prepared.category == Category::Policy {
            phase(&prepared.expect, &uid, status, &body).map(|phase| {
                stats.policy.push(PolicyAnswer { sent: sent_at, received: received_at, phase });
            })
        } else {
            judge(&prepared.expect, &uid, status, &body)
        };
        match verdict {
            Ok(()) => stats.ok[c] += 1,
            Err(e) => {
                stats.wrong[c] += 1;
                ctx.failed.fetch_add(1, Ordering::Relaxed);
                stats.fail(&prepared, e);
            }
        }
    }
    stats
}

fn record_transport(stats: &mut Stats, ctx: &Ctx, prepared: &Prepared, what: String) {
    stats.transport[prepared.category.index()] += 1;
    ctx.failed.fetch_add(1, Ordering::Relaxed);
    stats.fail(prepared, format!("no answer: {what}"));
}

// === probes ===

#[derive(Debug, Default)]
struct Readiness {
    probes: u64,
    ok: u64,
    failures: Vec<String>,
}

async fn probe_readyz(ctx: Arc<Ctx>) -> Readiness {
    let mut readiness = Readiness::default();
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    while !ctx.stop.load(Ordering::Relaxed) {
        ticker.tick().await;
        readiness.probes += 1;
        match ctx.get("/readyz").await {
            Ok((200, _)) => readiness.ok += 1,
            Ok((status, body)) => readiness.failures.push(format!("HTTP {status}: {}", String::from_utf8_lossy(&body))),
            Err(e) => readiness.failures.push(e),
        }
    }
    readiness
}

/// One scrape of `/metrics`.
#[derive(Debug, Clone, Default)]
struct Scrape {
    at: f64,
    expiry: Option<i64>,
    /// `what/result` → count.
    reloads: BTreeMap<String, u64>,
    /// `outcome` → count (all endpoints and operations).
    outcomes: BTreeMap<String, u64>,
}

fn parse_metrics(text: &str, at: f64) -> Scrape {
    let mut scrape = Scrape { at, ..Scrape::default() };
    let label = |line: &str, name: &str| -> Option<String> {
        let start = line.find(&format!("{name}=\""))? + name.len() + 2;
        let end = line[start..].find('"')? + start;
        Some(line[start..end].to_string())
    };
    for line in text.lines() {
        let Some((series, value)) = line.rsplit_once(' ') else { continue };
        if let Some(v) = line.strip_prefix("hpa_webhook_certificate_expiry_timestamp_seconds ") {
            scrape.expiry = v.trim().parse::<f64>().ok().map(|v| v as i64);
        } else if series.starts_with("hpa_webhook_reloads_total{") {
            if let (Some(what), Some(result), Ok(v)) =
                (label(series, "what"), label(series, "result"), value.parse::<u64>())
            {
                *scrape.reloads.entry(format!("{what}/{result}")).or_default() += v;
            }
        } else if series.starts_with("hpa_webhook_requests_total{")
            && let (Some(outcome), Ok(v)) = (label(series, "outcome"), value.parse::<u64>())
        {
            *scrape.outcomes.entry(outcome).or_default() += v;
        }
    }
    scrape
}

async fn scrape_metrics(ctx: Arc<Ctx>) -> (Vec<Scrape>, Vec<String>) {
    let (mut scrapes, mut failures) = (Vec::new(), Vec::new());
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    while !ctx.stop.load(Ordering::Relaxed) {
        ticker.tick().await;
        match ctx.get("/metrics").await {
            Ok((200, body)) => scrapes.push(parse_metrics(&String::from_utf8_lossy(&body), now())),
            Ok((status, _)) => failures.push(format!("/metrics: HTTP {status}")),
            Err(e) => failures.push(format!("/metrics: {e}")),
        }
    }
    (scrapes, failures)
}

// === the timeline ===

#[derive(Debug, Clone)]
struct Event {
    at: f64,
    name: String,
    arg: Option<usize>,
}

/// Follows the events file; returns when `end` arrives (true) or the time is up (false).
async fn follow(path: &std::path::Path, deadline: Instant, events: &Mutex<Vec<Event>>) -> bool {
    let mut offset = 0usize;
    let mut pending = String::new();
    while Instant::now() < deadline {
        if let Ok(bytes) = tokio::fs::read(path).await
            && bytes.len() > offset
        {
            pending.push_str(&String::from_utf8_lossy(&bytes[offset..]));
            offset = bytes.len();
            while let Some(newline) = pending.find('\n') {
                let line: String = pending.drain(..=newline).collect();
                let mut words = line.split_whitespace();
                let (Some(at), Some(name)) = (words.next().and_then(|w| w.parse::<f64>().ok()), words.next()) else {
                    eprintln!("soak: ignoring event line {line:?}");
                    continue;
                };
                let arg = words.next().and_then(|w| w.parse().ok());
                eprintln!("soak: event {name}{}", arg.map(|a| format!(" {a}")).unwrap_or_default());
                events.lock().unwrap_or_else(PoisonError::into_inner).push(Event { at, name: name.to_string(), arg });
                if name == "end" {
                    return true;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn event_at(events: &[Event], name: &str, arg: Option<usize>) -> Option<f64> {
    events.iter().find(|e| e.name == name && e.arg == arg).map(|e| e.at)
}

// === main ===

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("soak: starting the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("soak: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: Args) -> Result<bool, String> {
    let mut roots = rustls::RootCertStore::empty();
    for path in &args.cas {
        let pem = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let der = CertificateDer::from_pem_slice(&pem).map_err(|e| format!("{}: {e}", path.display()))?;
        roots.add(der).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut generations = Vec::new();
    for path in &args.generations {
        let pem = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let der = CertificateDer::from_pem_slice(&pem).map_err(|e| format!("{}: {e}", path.display()))?;
        generations.push(der.to_vec());
    }
    let server_name = ServerName::try_from(args.server_name.clone()).map_err(|e| format!("--server-name: {e}"))?;
    let ctx = Arc::new(Ctx {
        h1: client_config(&roots, &[b"http/1.1"])?,
        h2: client_config(&roots, &[b"h2", b"http/1.1"])?,
        server_name,
        generations,
        handshakes: Mutex::new(Vec::new()),
        oversized: oversized_body(args.max_body_bytes),
        cluster: (args.context_hpas > 0 && args.context_workloads > 0).then(|| ContextCluster {
            bench: BenchCluster::new(),
            hpas: args.context_hpas,
            workloads: args.context_workloads,
        }),
        stop: AtomicBool::new(false),
        sent: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        args,
    });

    let started = Instant::now();
    let workers: Vec<_> = (0..ctx.args.connections).map(|id| tokio::spawn(worker(id, ctx.clone()))).collect();
    let readyz = tokio::spawn(probe_readyz(ctx.clone()));
    let metrics = tokio::spawn(scrape_metrics(ctx.clone()));
    let progress = {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_secs(10));
            ticker.tick().await;
            loop {
                ticker.tick().await;
                eprintln!(
                    "soak: {:>4.0} s, {} requests sent, {} failed",
                    started.elapsed().as_secs_f64(),
                    ctx.sent.load(Ordering::Relaxed),
                    ctx.failed.load(Ordering::Relaxed)
                );
            }
        })
    };

    let events = Mutex::new(Vec::new());
    let ended = follow(&ctx.args.events, started + ctx.args.max_duration, &events).await;
    let load_seconds = started.elapsed().as_secs_f64();
    ctx.stop.store(true, Ordering::Relaxed);
    progress.abort();
    let mut stats = Stats::default();
    for w in workers {
        match tokio::time::timeout(ctx.args.request_timeout * 2, w).await {
            Ok(Ok(s)) => stats.merge(s),
            _ => return Err("a worker did not stop".into()),
        }
    }
    let readiness = readyz.await.map_err(|e| e.to_string())?;
    let (mut scrapes, mut scrape_failures) = metrics.await.map_err(|e| e.to_string())?;
    // The final counts, once every request has been answered.
    match ctx.get("/metrics").await {
        Ok((200, body)) => scrapes.push(parse_metrics(&String::from_utf8_lossy(&body), now())),
        Ok((status, _)) => scrape_failures.push(format!("final /metrics: HTTP {status}")),
        Err(e) => scrape_failures.push(format!("final /metrics: {e}")),
    }
    let events = events.into_inner().unwrap_or_else(PoisonError::into_inner);
    let handshakes = std::mem::take(&mut *ctx.handshakes.lock().unwrap_or_else(PoisonError::into_inner));
    let report = Report { ctx: &ctx, stats, readiness, scrapes, scrape_failures, events, handshakes, load_seconds };
    let (text, ok) = report.render(ended);
    println!("{text}");
    Ok(ok)
}

// === the report ===

struct Report<'a> {
    ctx: &'a Ctx,
    stats: Stats,
    readiness: Readiness,
    scrapes: Vec<Scrape>,
    scrape_failures: Vec<String>,
    events: Vec<Event>,
    handshakes: Vec<Handshake>,
    load_seconds: f64,
}

impl Report<'_> {
    /// The markdown report and whether every check passed.
    fn render(&self, ended: bool) -> (String, bool) {
        let mut out = String::new();
        let mut problems: Vec<String> = Vec::new();
        if !ended {
            problems.push("no `end` event before --max-duration".into());
        }
        let s = &self.stats;
        let total_sent: u64 = s.sent.iter().sum();
        let total_answered: u64 = s.answered.iter().sum();
        let total_failed: u64 = s.wrong.iter().sum::<u64>() + s.transport.iter().sum::<u64>();
        let _ = writeln!(
            out,
            "### Requests ({:.0} s, {} connections, {:.0} requests/s offered, {:.0} achieved)\n",
            self.load_seconds,
            self.ctx.args.connections,
            self.ctx.args.rate,
            total_sent as f64 / self.load_seconds.max(1.0)
        );
        let _ = writeln!(
            out,
            "| category | expected | sent | answered | as expected | wrong answer | no answer | p50 (ms) | p99 (ms) | max (ms) |"
        );
        let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        let mut all: Vec<u32> = Vec::new();
        for category in Category::ALL {
            let i = category.index();
            let mut lat = s.latencies[i].clone();
            all.extend_from_slice(&lat);
            lat.sort_unstable();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                category.name(),
                category.expected(),
                s.sent[i],
                s.answered[i],
                s.ok[i],
                s.wrong[i],
                s.transport[i],
                ms(percentile(&lat, 50.0)),
                ms(percentile(&lat, 99.0)),
                ms(lat.last().copied()),
            );
            if s.wrong[i] + s.transport[i] > 0 {
                problems.push(format!("{}: {} failed", category.name(), s.wrong[i] + s.transport[i]));
            }
            if s.sent[i] == 0 {
                problems.push(format!("{}: none sent", category.name()));
            }
        }
        all.sort_unstable();
        let _ = writeln!(
            out,
            "| **all** | | {total_sent} | {total_answered} | {} | {} | {} | {} | {} | {} |\n",
            s.ok.iter().sum::<u64>(),
            s.wrong.iter().sum::<u64>(),
            s.transport.iter().sum::<u64>(),
            ms(percentile(&all, 50.0)),
            ms(percentile(&all, 99.0)),
            ms(all.last().copied()),
        );
        let _ = writeln!(out, "Failed: {total_failed}. Cases: {}.\n", self.cases_line());
        if !s.examples.is_empty() {
            let _ = writeln!(out, "Failures (first {}):\n", s.examples.len());
            for (category, case, what) in &s.examples {
                let _ = writeln!(out, "- {} / {case}: {what}", category.name());
            }
            let _ = writeln!(out);
        }

        self.render_policy(&mut out, &mut problems);
        self.render_rotations(&mut out, &mut problems);
        self.render_server_counts(&mut out, &mut problems);

        let r = &self.readiness;
        let _ = writeln!(
            out,
            "### /readyz\n\n{} probes (4 per second, each on a new connection), {} answered 200{}\n",
            r.probes,
            r.ok,
            if r.failures.is_empty() {
                ": 200 throughout".to_string()
            } else {
                format!("; failures: {:?}", r.failures)
            }
        );
        if r.ok != r.probes || r.probes == 0 {
            problems.push(format!("/readyz: {} of {} probes not 200", r.probes - r.ok, r.probes));
        }
        if !self.scrape_failures.is_empty() {
            problems.push(format!("/metrics scrapes failed: {:?}", self.scrape_failures));
        }

        let _ = writeln!(out, "### Client checks\n");
        if problems.is_empty() {
            let _ = writeln!(out, "PASS: every check held.");
        } else {
            for p in &problems {
                let _ = writeln!(out, "- FAIL: {p}");
            }
        }
        (out, problems.is_empty())
    }

    fn cases_line(&self) -> String {
        self.stats
            .cases
            .iter()
            .map(
                |(case, (sent, failed))| {
                    if *failed > 0 { format!("{case} {sent} ({failed} failed)") } else { format!("{case} {sent}") }
                },
            )
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn deadline(&self, done: f64) -> f64 {
        done + self.ctx.args.reload_interval.as_secs_f64() + self.ctx.args.grace.as_secs_f64()
    }

    fn render_policy(&self, out: &mut String, problems: &mut Vec<String>) {
        let _ = writeln!(out, "### Policy change\n");
        let (Some(begin), Some(done)) =
            (event_at(&self.events, "policy-begin", None), event_at(&self.events, "policy-done", None))
        else {
            let _ = writeln!(out, "No policy change in the timeline.\n");
            return;
        };
        let deadline = self.deadline(done);
        let answers = &self.stats.policy;
        let first_new =
            answers.iter().filter(|a| a.phase == Phase::New).map(|a| a.received).fold(f64::INFINITY, f64::min);
        let mut early = 0;
        let mut late = 0;
        let mut flapped = 0;
        let mut last_old_sent = f64::NEG_INFINITY;
        for a in answers {
            match a.phase {
                Phase::New if a.received < begin => early += 1,
                Phase::Old if a.sent > deadline => late += 1,
                Phase::Old if a.sent > first_new => flapped += 1,
                _ => {}
            }
            if a.phase == Phase::Old {
                last_old_sent = last_old_sent.max(a.sent);
            }
        }
        let olds = answers.iter().filter(|a| a.phase == Phase::Old).count();
        let news = answers.len() - olds;
        let invalid = event_at(&self.events, "policy-invalid", None)
            .map(|t| {
                format!(" An invalid edit {:.1} s before it was refused: answers stayed the old policy's.", begin - t)
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} answers of the old policy, {} of the new.{} The new policy's first answer came {:.2} s after the file changed \
             (deadline {:.1} s); the last request answered under the old policy was sent {:.2} s after it. \
             New answers before the change: {early}; old answers past the deadline: {late}; old answers after a new one: {flapped}.\n",
            olds,
            news,
            invalid,
            first_new - done,
            deadline - done,
            last_old_sent - done,
        );
        if early + late + flapped > 0 {
            problems.push(format!("policy: {early} early, {late} late, {flapped} flapping answers"));
        }
        if news == 0 {
            problems.push("policy: the new policy was never seen".into());
        }
    }

    fn render_rotations(&self, out: &mut String, problems: &mut Vec<String>) {
        let _ = writeln!(out, "### Certificate rotations\n");
        let generations = self.ctx.generations.len();
        let rotations: Vec<(usize, f64, f64)> = (1..generations)
            .filter_map(|g| {
                Some((g, event_at(&self.events, "cert-begin", Some(g))?, event_at(&self.events, "cert-done", Some(g))?))
            })
            .collect();
        // Bounds per handshake: at least the generation whose deadline passed before it
        // started, at most the one whose rotation began before it completed.
        let mut by_completion: Vec<(f64, usize)> =
            self.handshakes.iter().filter_map(|h| Some((h.completed, h.generation?))).collect();
        by_completion.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut prefix_max = Vec::with_capacity(by_completion.len());
        let mut m = 0;
        for (_, g) in &by_completion {
            m = m.max(*g);
            prefix_max.push(m);
        }
        let mut unknown = 0;
        let mut stale = 0;
        let mut premature = 0;
        let mut backwards = 0;
        let mut per_generation = vec![0u64; generations];
        for h in &self.handshakes {
            let Some(g) = h.generation else {
                unknown += 1;
                continue;
            };
            per_generation[g] += 1;
            let lower = rotations.iter().filter(|r| self.deadline(r.2) < h.started).map(|r| r.0).max().unwrap_or(0);
            let upper = rotations.iter().filter(|r| r.1 < h.completed).map(|r| r.0).max().unwrap_or(0);
            if g < lower {
                stale += 1;
            }
            if g > upper {
                premature += 1;
            }
            let seen = by_completion.partition_point(|(t, _)| *t < h.started);
            if seen > 0 && prefix_max[seen - 1] > g {
                backwards += 1;
            }
        }
        let _ = writeln!(
            out,
            "{} TLS handshakes (every connection a full handshake); per generation: {:?}. Stale certificate after a \
             rotation's deadline: {stale}; new certificate before its rotation: {premature}; older than one already \
             served: {backwards}; unknown certificate: {unknown}.\n",
            self.handshakes.len(),
            per_generation
        );
        if stale + premature + backwards + unknown > 0 {
            problems.push(format!(
                "rotation: {stale} stale, {premature} premature, {backwards} backwards, {unknown} unknown certificates"
            ));
        }
        let expected: Vec<Option<i64>> = self.ctx.generations.iter().map(|g| hpa_webhook::tls::not_after(g)).collect();
        let _ = writeln!(
            out,
            "| rotation | first new handshake after the files changed (s) | expiry gauge before | after | changed | = notAfter of the new certificate |"
        );
        let _ = writeln!(out, "| --- | ---: | ---: | ---: | --- | --- |");
        if let Some(first) = self.scrapes.first() {
            let _ = writeln!(
                out,
                "| start | | | {} | | {} |",
                fmt_opt(first.expiry),
                yes(first.expiry.is_some() && first.expiry == expected[0])
            );
            if first.expiry.is_none() || first.expiry != expected[0] {
                problems.push("expiry gauge at start is not the first certificate's notAfter".into());
            }
        }
        for &(g, begin, done) in &rotations {
            let deadline = self.deadline(done);
            let first_new = self
                .handshakes
                .iter()
                .filter(|h| h.generation == Some(g))
                .map(|h| h.completed)
                .fold(f64::INFINITY, f64::min);
            let before = self.scrapes.iter().rfind(|s| s.at < begin).and_then(|s| s.expiry);
            let after = self.scrapes.iter().find(|s| s.at > deadline).and_then(|s| s.expiry);
            let changed = before.is_some() && after.is_some() && before != after;
            let matches = after.is_some() && after == expected[g];
            let _ = writeln!(
                out,
                "| {} → {g} | {:.2} | {} | {} | {} | {} |",
                g - 1,
                first_new - done,
                fmt_opt(before),
                fmt_opt(after),
                yes(changed),
                yes(matches)
            );
            if !changed || !matches {
                problems.push(format!("rotation {g}: expiry gauge {before:?} → {after:?}, expected {:?}", expected[g]));
            }
        }
        let _ = writeln!(out);
    }

    fn render_server_counts(&self, out: &mut String, problems: &mut Vec<String>) {
        let Some(last) = self.scrapes.last() else { return };
        let s = &self.stats;
        let _ = writeln!(out, "### Server counts (final /metrics)\n");
        let _ = writeln!(out, "requests_total by outcome: {:?}; reloads_total: {:?}.\n", last.outcomes, last.reloads);
        let answered: u64 = s.answered.iter().sum();
        let server_total: u64 = last.outcomes.values().sum();
        let invalid_client =
            s.answered[Category::MalformedBody.index()] + s.answered[Category::MalformedReview.index()];
        let checks = [
            ("requests answered", answered, server_total),
            ("malformed (outcome invalid)", invalid_client, last.outcomes.get("invalid").copied().unwrap_or(0)),
            (
                "oversized (outcome too_large)",
                s.answered[Category::Oversized.index()],
                last.outcomes.get("too_large").copied().unwrap_or(0),
            ),
        ];
        for (what, client, server) in checks {
            let _ = writeln!(
                out,
                "- {what}: client {client}, server {server}{}",
                if client == server { "" } else { " (MISMATCH)" }
            );
            if client != server {
                problems.push(format!("server metrics: {what}: client {client}, server {server}"));
            }
        }
        let rotations =
            (1..self.ctx.generations.len()).filter(|g| event_at(&self.events, "cert-done", Some(*g)).is_some()).count();
        let cert_ok = last.reloads.get("certificate/success").copied().unwrap_or(0);
        let cert_refused = last.reloads.get("certificate/failure").copied().unwrap_or(0);
        let policy_ok = last.reloads.get("policy/success").copied().unwrap_or(0);
        let policy_refused = last.reloads.get("policy/failure").copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "- certificate loads: {cert_ok} (start + {rotations} rotations expected), refused: {cert_refused} (a half-written pair is refused at each poll until complete)"
        );
        let policies = usize::from(event_at(&self.events, "policy-done", None).is_some());
        let invalid = usize::from(event_at(&self.events, "policy-invalid", None).is_some());
        let _ = writeln!(
            out,
            "- policy reloads: {policy_ok} (expected {policies}), refused: {policy_refused} (expected {invalid})\n"
        );
        if cert_ok != 1 + rotations as u64 {
            problems.push(format!("certificate loads: {cert_ok}, expected {}", 1 + rotations));
        }
        if policy_ok != policies as u64 || policy_refused != invalid as u64 {
            problems.push(format!("policy reloads {policy_ok}/{policy_refused}, expected {policies}/{invalid}"));
        }
    }
}

fn percentile(sorted: &[u32], p: f64) -> Option<u32> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

fn ms(micros: Option<u32>) -> String {
    micros.map_or_else(|| "-".into(), |us| format!("{:.2}", f64::from(us) / 1000.0))
}

fn fmt_opt(v: Option<i64>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// xorshift64: a small deterministic generator (no dependency needed).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x % n.max(1)
    }
}
