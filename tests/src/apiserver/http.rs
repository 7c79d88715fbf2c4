//! The HTTPS side of the test API server: TLS with an in-memory certificate, bearer-token
//! authentication, routing, `Status` errors, and streamed watches.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use hpa_core::api::LabelSelector;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use super::labels;
use super::store::{self, Resource, Store};
use super::{Fault, Logged, Shared, TOKEN, lock};

type Body = BoxBody<Bytes, Infallible>;

/// Binds `127.0.0.1:0`, makes a CA and a serving certificate for `127.0.0.1` and
/// `localhost`, and serves until `stop` turns true. Returns the address and the CA (PEM).
pub(crate) async fn serve(shared: Arc<Shared>, stop: watch::Receiver<bool>) -> (SocketAddr, String) {
    let (ca_pem, config) = tls_config();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener =
        TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("binding the test API server: {e}"));
    let addr = listener.local_addr().unwrap_or_else(|e| panic!("local address: {e}"));
    let mut accept_stop = stop.clone();
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                _ = accept_stop.changed() => break,
                a = listener.accept() => a,
            };
            let Ok((tcp, _)) = accepted else { continue };
            let acceptor = acceptor.clone();
            let shared = shared.clone();
            let mut conn_stop = stop.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                let service = hyper::service::service_fn(move |req| {
                    let shared = shared.clone();
                    async move { Ok::<_, Infallible>(handle(shared, req).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tls), service);
                tokio::select! {
                    _ = conn => {}
                    _ = conn_stop.changed() => {}
                }
            });
        }
        // Dropping the listener closes the port: new connections are refused.
    });
    (addr, ca_pem)
}

fn tls_config() -> (String, rustls::ServerConfig) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "hpa-test-apiserver-ca");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_else(|e| panic!("CA: {e}"));
    let params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap_or_else(|e| panic!("{e}"));
    let key = KeyPair::generate().unwrap_or_else(|e| panic!("{e}"));
    let cert = params.signed_by(&key, &ca).unwrap_or_else(|e| panic!("serving certificate: {e}"));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|e| panic!("{e}"))
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()))
        .unwrap_or_else(|e| panic!("TLS config: {e}"));
    (ca.pem(), config)
}

fn json_response(code: StatusCode, body: &Value, content_type: &str) -> Response<Body> {
    let bytes = Bytes::from(serde_json::to_vec(body).unwrap_or_default());
    Response::builder()
        .status(code)
        .header("content-type", content_type)
        .body(Full::new(bytes).boxed())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

fn ok(body: &Value) -> Response<Body> {
    json_response(StatusCode::OK, body, "application/json")
}

/// A `Status` failure as kube-apiserver writes it.
/// The `reason` of a `Status` a [`Fault`] answers with `code` (`metav1.StatusReason`).
fn fault_reason(code: u16) -> &'static str {
    match code {
        403 => "Forbidden",
        404 => "NotFound",
        500 => "InternalError",
        _ => "ServiceUnavailable",
    }
}

fn status(code: u16, reason: &str, message: &str, details: Value) -> Response<Body> {
    let mut body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code,
    });
    if !details.is_null()
        && let Some(m) = body.as_object_mut()
    {
        m.insert("details".into(), details);
    }
    json_response(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), &body, "application/json")
}

fn not_found() -> Response<Body> {
    status(404, "NotFound", "the server could not find the requested resource", json!({}))
}

async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or_default().to_string();
    shared.thawed().await;
    lock(&shared.log).push(Logged { path: path.clone(), query: query.clone() });

    let authorized = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == format!("Bearer {TOKEN}"));
    if !authorized {
        return status(401, "Unauthorized", "Unauthorized", Value::Null);
    }
    let fault = {
        let mut faults = lock(&shared.faults);
        let found = faults.iter_mut().find(|(p, _)| path.starts_with(p.as_str())).map(|(_, f)| f);
        // A throttle counts its answers down.
        if let Some(Fault::Throttle { times, .. }) = found {
            let throttled = *times > 0;
            *times = times.saturating_sub(1);
            found.filter(|_| throttled).map(|f| f.clone())
        } else {
            found.map(|f| f.clone())
        }
    };
    match fault {
        Some(Fault::Throttle { retry_after, .. }) => {
            return Response::builder()
                .status(StatusCode::TOO_MANY_REQUESTS)
                .header("content-type", "text/plain; charset=utf-8")
                .header("x-content-type-options", "nosniff")
                .header("retry-after", retry_after.to_string())
                .body(Full::new(Bytes::from_static(b"Too many requests, please try again later.\n")).boxed())
                .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()));
        }
        Some(Fault::Status(code, message)) => return status(code, fault_reason(code), &message, Value::Null),
        Some(Fault::Text(code, text)) => {
            return Response::builder()
                .status(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
                .header("content-type", "text/plain; charset=utf-8")
                .header("x-content-type-options", "nosniff")
                .body(Full::new(Bytes::from(format!("{text}\n"))).boxed())
                .unwrap_or_else(|e| panic!("a plain text answer: {e}"));
        }
        Some(Fault::Delay(d)) => tokio::time::sleep(d).await,
        Some(Fault::ListStatus(code, message)) if !query.split('&').any(|p| p == "watch=true" || p == "watch=1") => {
            return status(code, fault_reason(code), &message, Value::Null);
        }
        Some(Fault::Body(text)) if !query.split('&').any(|p| p == "watch=true" || p == "watch=1") => {
            return Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(text)).boxed())
                .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()));
        }
        Some(Fault::Body(_) | Fault::ListStatus(..)) | None => {}
    }
    if req.method() != hyper::Method::GET {
        return status(405, "MethodNotAllowed", "the test API server only reads", Value::Null);
    }
    // A body served for this path and query first, then one for the path (any query).
    let with_query = format!("{path}?{query}");
    let served = {
        let raw = lock(&shared.raw);
        raw.iter()
            .find(|(p, _)| *p == with_query)
            .or_else(|| raw.iter().find(|(p, _)| *p == path))
            .map(|(_, b)| b.clone())
    };
    if let Some(body) = served {
        return ok(&body);
    }
    let params = Params(url_params(&query));
    let aggregated = req
        .headers()
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("as=APIGroupDiscoveryList"))
        && !shared.classic_discovery.load(std::sync::atomic::Ordering::SeqCst);

    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["version"] => version(lock(&shared.git_version).as_deref()),
        ["api"] if aggregated => aggregated_discovery(&shared.store(), true),
        ["api"] => ok(&json!({
            "kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": format!("127.0.0.1:{}", *lock(&shared.port))}],
        })),
        ["apis"] if aggregated => aggregated_discovery(&shared.store(), false),
        ["apis"] => ok(&group_list(&shared.store())),
        ["api", "v1"] => resource_list(&shared.store(), "", "v1"),
        ["apis", group] => match group_of(&shared.store(), group) {
            Some(g) => ok(&g),
            None => not_found(),
        },
        ["apis", group, version] => resource_list(&shared.store(), group, version),
        ["api", "v1", rest @ ..] => objects(&shared, "", "v1", rest, &params).await,
        ["apis", group, version, rest @ ..] => objects(&shared, group, version, rest, &params).await,
        _ => not_found(),
    }
}

/// The decoded query parameters.
struct Params(Vec<(String, String)>);

impl Params {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

fn url_params(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

// === discovery ===

fn served_groups(store: &Store) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for r in store.resources.iter().filter(|r| !r.group.is_empty() && !r.versions.is_empty()) {
        match groups.iter_mut().find(|(g, _)| *g == r.group) {
            Some((_, versions)) => {
                for v in &r.versions {
                    if !versions.contains(v) {
                        versions.push(v.clone());
                    }
                }
            }
            None => groups.push((r.group.clone(), r.versions.clone())),
        }
    }
    groups
}

fn group_json(group: &str, versions: &[String]) -> Value {
    let gv = |v: &String| json!({"groupVersion": format!("{group}/{v}"), "version": v});
    json!({
        "name": group,
        "versions": versions.iter().map(gv).collect::<Vec<_>>(),
        "preferredVersion": versions.first().map(gv).unwrap_or(Value::Null),
    })
}

fn group_list(store: &Store) -> Value {
    json!({
        "kind": "APIGroupList", "apiVersion": "v1",
        "groups": served_groups(store).iter().map(|(g, v)| group_json(g, v)).collect::<Vec<_>>(),
    })
}

fn group_of(store: &Store, group: &str) -> Option<Value> {
    let (g, v) = served_groups(store).into_iter().find(|(g, _)| g == group)?;
    let mut body = group_json(&g, &v);
    if let Some(m) = body.as_object_mut() {
        m.insert("kind".into(), json!("APIGroup"));
        m.insert("apiVersion".into(), json!("v1"));
    }
    Some(body)
}

fn verbs(r: &Resource) -> Vec<&'static str> {
    if r.read_only { vec!["get", "list"] } else { vec!["create", "delete", "get", "list", "patch", "update", "watch"] }
}

fn resource_list(store: &Store, group: &str, version: &str) -> Response<Body> {
    let mut resources = Vec::new();
    for r in store.resources.iter().filter(|r| r.group == group && r.versions.iter().any(|v| v == version)) {
        resources.push(json!({
            "name": r.plural, "singularName": r.kind.to_lowercase(), "namespaced": r.namespaced,
            "kind": r.kind, "verbs": verbs(r),
        }));
        if r.scale.is_some() {
            resources.push(json!({
                "name": format!("{}/scale", r.plural), "singularName": "", "namespaced": r.namespaced,
                "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"],
            }));
        }
        if !r.read_only {
            resources.push(json!({
                "name": format!("{}/status", r.plural), "singularName": "", "namespaced": r.namespaced,
                "kind": r.kind, "verbs": ["get", "patch", "update"],
            }));
        }
    }
    if resources.is_empty() {
        return not_found();
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    ok(&json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}))
}

/// `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`, for `/api` (the core group) or `/apis`.
fn aggregated_discovery(store: &Store, core: bool) -> Response<Body> {
    let groups: Vec<(String, Vec<String>)> =
        if core { vec![(String::new(), vec!["v1".to_string()])] } else { served_groups(store) };
    let items: Vec<Value> = groups
        .iter()
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| {
                    let resources: Vec<Value> = store
                        .resources
                        .iter()
                        .filter(|r| r.group == *group && r.versions.contains(v))
                        .map(|r| {
                            let mut subresources = Vec::new();
                            if r.scale.is_some() {
                                subresources.push(json!({"subresource": "scale",
                                    "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                                    "verbs": ["get", "patch", "update"]}));
                            }
                            if !r.read_only {
                                subresources.push(json!({"subresource": "status",
                                    "responseKind": {"group": group, "version": v, "kind": r.kind},
                                    "verbs": ["get", "patch", "update"]}));
                            }
                            json!({
                                "resource": r.plural,
                                "responseKind": {"group": group, "version": v, "kind": r.kind},
                                "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
                                "singularResource": r.kind.to_lowercase(),
                                "verbs": verbs(r),
                                "subresources": subresources,
                            })
                        })
                        .collect();
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
        })
        .collect();
    json_response(
        StatusCode::OK,
        &json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}),
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    )
}

// === objects ===

async fn objects(shared: &Arc<Shared>, group: &str, version: &str, rest: &[&str], params: &Params) -> Response<Body> {
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some((*ns).to_string()), rest),
        _ => (None, rest),
    };
    let Some((plural, rest)) = rest.split_first() else { return not_found() };
    let (r, resource) = {
        let store = shared.store();
        match store
            .resources
            .iter()
            .position(|r| r.group == group && r.plural == *plural && r.versions.iter().any(|v| v == version))
        {
            Some(r) => (r, store.resources[r].clone()),
            None => return not_found(),
        }
    };
    // A namespaced path to a cluster-scoped resource is no route of kube-apiserver's (a CRD's:
    // `crdHandler` hands it to the not-found handler).
    if namespace.is_some() && !resource.namespaced {
        return not_found();
    }
    if let Some(refused) =
        refusal(shared, &resource, namespace.as_deref(), if rest.is_empty() { "list" } else { "get" })
    {
        return refused;
    }
    // A list or watch whose label selector does not parse (`labels.Parse`, when the list
    // options are decoded, before the field selector), or selecting on a field the kind does
    // not support: 400, before anything is read (`ListResource` transforms the field selector
    // first).
    let labels = match labels::parse(params.get("labelSelector").unwrap_or_default()) {
        Ok(labels) => labels,
        Err(message) if rest.is_empty() => return status(400, "BadRequest", &message, Value::Null),
        Err(_) => LabelSelector::default(),
    };
    if rest.is_empty()
        && let Some(message) = store::field_selector_error(&resource, params.get("fieldSelector").unwrap_or_default())
    {
        return status(400, "BadRequest", &message, Value::Null);
    }
    match rest {
        [] if matches!(params.get("watch"), Some("1" | "true")) => {
            watch(shared, r, &resource, version, namespace, params, labels)
        }
        [] => list(shared, r, &resource, version, namespace.as_deref(), params, &labels),
        [name] => get(shared, r, &resource, version, namespace.as_deref().unwrap_or_default(), name, false),
        [name, "scale"] if resource.scale.is_some() => {
            get(shared, r, &resource, version, namespace.as_deref().unwrap_or_default(), name, true)
        }
        _ => not_found(),
    }
}

/// `/version`'s `version.Info` for `git_version` (`minor` as kube-apiserver fills it: the
/// minor number, `+` after it for a build with a suffix); `None`: the 403 of a non-resource
/// URL RBAC does not grant.
fn version(git_version: Option<&str>) -> Response<Body> {
    let Some(git_version) = git_version else {
        let message = "forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot get path \"/version\"";
        return status(403, "Forbidden", message, Value::Null);
    };
    let mut parts = git_version.trim_start_matches('v').splitn(3, '.');
    let major = parts.next().unwrap_or_default();
    let minor = parts.next().unwrap_or_default();
    let suffix = if git_version.contains('-') { "+" } else { "" };
    ok(&json!({
        "major": major, "minor": format!("{minor}{suffix}"), "gitVersion": git_version,
        "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2026-04-01T00:00:00Z", "goVersion": "go1.26.1", "compiler": "gc", "platform": "linux/amd64",
    }))
}

/// A 403 in kube-apiserver's words, when a test refused this resource or namespace.
fn refusal(shared: &Shared, resource: &Resource, namespace: Option<&str>, verb: &str) -> Option<Response<Body>> {
    let qualified = resource.qualified();
    let refused = lock(&shared.refusals).iter().any(|(res, ns)| {
        res.as_deref().is_none_or(|r| r == qualified)
            && ns.as_deref().is_none_or(|n| Some(n) == namespace || namespace.is_none())
    });
    if !refused {
        return None;
    }
    let scope = match namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_string(),
    };
    let message = format!(
        "{qualified} is forbidden: User \"system:serviceaccount:hpa-system:hpa-reader\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
        resource.plural, resource.group
    );
    Some(status(403, "Forbidden", &message, json!({"group": resource.group, "kind": resource.plural})))
}

/// An object as a given version shows it (the test server stores one version and relabels).
fn as_version(object: &Value, resource: &Resource, version: &str) -> Value {
    if resource.kind == "HorizontalPodAutoscaler" && version == "v1" {
        return store::convert_hpa(object, hpa_core::api::ApiVersion::V1).unwrap_or_else(|_| object.clone());
    }
    let mut o = object.clone();
    if let Some(m) = o.as_object_mut() {
        m.insert("apiVersion".into(), json!(resource.api_version(version)));
    }
    o
}

fn get(
    shared: &Shared,
    r: usize,
    resource: &Resource,
    version: &str,
    namespace: &str,
    name: &str,
    scale: bool,
) -> Response<Body> {
    let store = shared.store();
    let ns = if resource.namespaced { namespace.to_string() } else { String::new() };
    let Some(object) = store.objects[r].get(&(ns, name.to_string())) else {
        let what = if scale { format!("{}.{}", resource.plural, resource.group) } else { resource.qualified() };
        let what = what.trim_end_matches('.').to_string();
        return status(
            404,
            "NotFound",
            &format!("{what} \"{name}\" not found"),
            json!({"name": name, "group": resource.group, "kind": resource.plural}),
        );
    };
    if scale {
        return match store.scale_of(r, object) {
            Some(s) => ok(&s),
            None => not_found(),
        };
    }
    ok(&as_version(object, resource, version))
}

/// A continue token: the list's resourceVersion and the last key returned.
fn encode_continue(rv: u64, namespace: &str, name: &str) -> String {
    use base64::Engine as _;
    let raw = json!({"v": "meta.k8s.io/v1", "rv": rv, "start": format!("{namespace}/{name}\u{0}")}).to_string();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
}

fn decode_continue(token: &str) -> Option<(u64, String, String)> {
    use base64::Engine as _;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).ok()?;
    let v: Value = serde_json::from_slice(&raw).ok()?;
    let rv = v.get("rv")?.as_u64()?;
    let start = v.get("start")?.as_str()?.trim_end_matches('\u{0}');
    let (ns, name) = start.split_once('/')?;
    Some((rv, ns.to_string(), name.to_string()))
}

fn list(
    shared: &Shared,
    r: usize,
    resource: &Resource,
    version: &str,
    namespace: Option<&str>,
    params: &Params,
    labels: &LabelSelector,
) -> Response<Body> {
    let store = shared.store();
    let limit: usize = params.get("limit").and_then(|l| l.parse().ok()).unwrap_or(0);
    let after = match params.get("continue") {
        Some(token) => match decode_continue(token) {
            Some((rv, ns, name)) if rv >= store.compacted => Some((ns, name)),
            Some(_) => {
                return status(
                    410,
                    "Expired",
                    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
                    Value::Null,
                );
            }
            None => return status(400, "BadRequest", "continue key is not valid: illegal base64 data", Value::Null),
        },
        None => None,
    };
    let fields = params.get("fieldSelector").unwrap_or_default();
    let matching = store.objects[r]
        .iter()
        .filter(|((ns, _), _)| namespace.is_none_or(|n| n == ns))
        .filter(|(key, _)| after.as_ref().is_none_or(|a| *key > a))
        .filter(|(_, o)| labels::matches(o, labels) && store::fields_match(o, fields));
    let mut items = Vec::new();
    let mut last = None;
    let mut remaining = 0usize;
    for (key, o) in matching {
        if limit > 0 && items.len() == limit {
            remaining += 1;
            continue;
        }
        let mut item = as_version(o, resource, version);
        // kube-apiserver leaves apiVersion and kind out of built-in list items; unstructured
        // (CRD) items keep them.
        if !resource.custom
            && let Some(m) = item.as_object_mut()
        {
            m.remove("apiVersion");
            m.remove("kind");
        }
        items.push(item);
        last = Some(key.clone());
    }
    let mut metadata = json!({"resourceVersion": store.rv.to_string()});
    if remaining > 0
        && let (Some((ns, name)), Some(m)) = (last, metadata.as_object_mut())
    {
        m.insert("continue".into(), json!(encode_continue(store.rv, &ns, &name)));
        m.insert("remainingItemCount".into(), json!(remaining));
    }
    ok(&json!({
        "kind": format!("{}List", resource.kind),
        "apiVersion": resource.api_version(version),
        "metadata": metadata,
        "items": items,
    }))
}

// === watch ===

fn event_line(type_: &str, object: &Value) -> Bytes {
    let mut line = serde_json::to_vec(&json!({"type": type_, "object": object})).unwrap_or_default();
    line.push(b'\n');
    Bytes::from(line)
}

fn watch(
    shared: &Arc<Shared>,
    r: usize,
    resource: &Resource,
    version: &str,
    namespace: Option<String>,
    params: &Params,
    labels: LabelSelector,
) -> Response<Body> {
    let from: Option<u64> =
        params.get("resourceVersion").filter(|v| !v.is_empty() && *v != "0").and_then(|v| v.parse().ok());
    let bookmarks = matches!(params.get("allowWatchBookmarks"), Some("true" | "1"));
    let timeout = params.get("timeoutSeconds").and_then(|t| t.parse::<u64>().ok()).map(Duration::from_secs);
    let fields = params.get("fieldSelector").unwrap_or_default().to_string();
    let (tx, rx) = mpsc::channel::<Bytes>(1024);
    let mut changes = shared.changes.subscribe();
    let interval = *lock(&shared.bookmark_interval);
    let resource = resource.clone();
    let version = version.to_string();
    let selected = move |o: &Value| {
        namespace.as_deref().is_none_or(|n| o.pointer("/metadata/namespace").and_then(Value::as_str) == Some(n))
            && labels::matches(o, &labels)
            && store::fields_match(o, &fields)
    };

    // What happened before the watch started: from `from` on, or (without one) every object.
    let (backlog, mut sent_rv, gone) = {
        let store = shared.store();
        match from {
            Some(rv) if rv < store.compacted => (Vec::new(), rv, Some((rv, store.compacted))),
            Some(rv) => {
                let b: Vec<(&'static str, Value)> = store
                    .history
                    .iter()
                    .filter(|c| c.resource == r && c.rv > rv && selected(&c.object))
                    .map(|c| (c.type_, as_version(&c.object, &resource, &version)))
                    .collect();
                (b, store.rv, None)
            }
            None => {
                let b: Vec<(&'static str, Value)> = store.objects[r]
                    .values()
                    .filter(|o| selected(o))
                    .map(|o| ("ADDED", as_version(o, &resource, &version)))
                    .collect();
                (b, store.rv, None)
            }
        }
    };
    let (frozen, gate) = (shared.clone(), shared.clone());
    let qualified = resource.qualified();
    let send = move |tx: mpsc::Sender<Bytes>, line: Bytes| {
        let (frozen, qualified) = (frozen.clone(), qualified.clone());
        async move {
            frozen.thawed().await;
            frozen.released(&qualified).await;
            tx.send(line).await.is_ok()
        }
    };
    tokio::spawn(async move {
        if let Some((rv, compacted)) = gone {
            let status = json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": format!("too old resource version: {rv} ({compacted})"), "reason": "Expired", "code": 410,
            });
            send(tx.clone(), event_line("ERROR", &status)).await;
            return;
        }
        for (type_, object) in backlog {
            if !send(tx.clone(), event_line(type_, &object)).await {
                return;
            }
        }
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        let mut ticker = tokio::time::interval(interval);
        ticker.tick().await;
        loop {
            let until_deadline = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                // A frozen server ends no watch either.
                () = until_deadline => {
                    gate.thawed().await;
                    return;
                }
                _ = tx.closed() => return,
                _ = ticker.tick(), if bookmarks => {
                    let bookmark = json!({
                        "kind": resource.kind, "apiVersion": resource.api_version(&version),
                        "metadata": {"resourceVersion": sent_rv.to_string()},
                    });
                    if !send(tx.clone(), event_line("BOOKMARK", &bookmark)).await {
                        return;
                    }
                }
                change = changes.recv() => match change {
                    Ok(c) => {
                        if c.resource != r || c.rv <= sent_rv {
                            continue;
                        }
                        sent_rv = c.rv;
                        if selected(&c.object)
                            && !send(tx.clone(), event_line(c.type_, &as_version(&c.object, &resource, &version))).await
                        {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) })
        .map(|b| Ok::<_, Infallible>(Frame::data(b)));
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .header("transfer-encoding", "chunked")
        .body(BodyExt::boxed(StreamBody::new(stream)))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Go's `url.ParseQuery` (which kube-apiserver reads a query with): `+` is a space,
    /// `%2B` a plus, and the keys are decoded too.
    #[test]
    fn query_decoding() {
        let params = url_params("labelSelector=app+in+%28a%2C+b%29&fieldSelector=a%2Bb&a+b=&limit=500");
        let expected = [("labelSelector", "app in (a, b)"), ("fieldSelector", "a+b"), ("a b", ""), ("limit", "500")];
        assert_eq!(params, expected.map(|(k, v)| (k.to_string(), v.to_string())));
    }
}
