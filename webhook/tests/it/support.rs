//! Test support: AdmissionReviews as kube-apiserver sends them, the router driven without a
//! socket, the real server on loopback with certificates made at test time, and an HTTPS
//! client that trusts only the test CA.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::body::Bytes;
use base64::Engine as _;
use clap::Parser as _;
use http_body_util::{BodyExt, Full};
use hyper::StatusCode;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tower::ServiceExt as _;

use hpa_webhook::certs::Authority;
use hpa_webhook::cli::{Args, Command, ServeArgs};

// === reviews ===

/// An AdmissionReview for an HPA, shaped as kube-apiserver sends it.
pub use hpa_webhook::review::hpa_review as review;

/// A v2 HPA as a user writes it (not defaulted).
pub fn hpa_v2(name: &str, namespace: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "maxReplicas": 10
        }
    })
}

/// The same HPA as kube-apiserver stores and sends it: defaulted, with server-set metadata.
pub fn hpa_v2_defaulted(name: &str, namespace: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": name, "namespace": namespace,
            "uid": "7b3c1c6e-8d64-4c55-9d3e-3f1b0f0b9c11", "resourceVersion": "123456", "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"app.kubernetes.io/name": name},
            "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "autoscaling/v2",
                "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:maxReplicas": {}, "f:scaleTargetRef": {}}}}]
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 1,
            "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        },
        "status": {"currentReplicas": 0, "desiredReplicas": 0}
    })
}

/// A v1 HPA as a user writes it.
pub fn hpa_v1(name: &str, namespace: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "maxReplicas": 10,
            "targetCPUUtilizationPercentage": 70
        }
    })
}

/// The `response` of a review answer.
pub fn response(answer: &Value) -> &Value {
    &answer["response"]
}

/// Applies the response's patch (if any) to `object` with the json-patch crate.
pub fn apply_patch(object: &Value, answer: &Value) -> Value {
    let mut doc = object.clone();
    if let Some(encoded) = response(answer)["patch"].as_str() {
        assert_eq!(response(answer)["patchType"], "JSONPatch");
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).unwrap();
        let patch: json_patch::Patch = serde_json::from_slice(&bytes).unwrap();
        json_patch::patch(&mut doc, &patch).unwrap_or_else(|e| panic!("patch {patch:?} does not apply: {e}"));
    }
    doc
}

/// The decoded patch of an answer (empty when none).
pub fn patch_ops(answer: &Value) -> Value {
    match response(answer)["patch"].as_str() {
        Some(encoded) => {
            serde_json::from_slice(&base64::engine::general_purpose::STANDARD.decode(encoded).unwrap()).unwrap()
        }
        None => json!([]),
    }
}

// === the router, without a socket ===

/// Server flags (as a user would type them) to options.
pub fn serve_args(flags: &[&str]) -> ServeArgs {
    let argv = std::iter::once("hpa-webhook").chain(flags.iter().copied());
    match Args::try_parse_from(argv).unwrap().into_command() {
        Command::Serve(args) => *args,
        Command::Certs(_) | Command::Policy(_) => panic!("expected serve"),
    }
}

/// The router with these flags, driven with `oneshot`.
pub struct Harness {
    router: axum::Router,
    /// Keeps the policy file alive.
    _dir: tempfile::TempDir,
}

impl Harness {
    /// With flags and an optional policy (YAML).
    pub fn new(flags: &[&str], policy: Option<&str>) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let mut flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        if let Some(policy) = policy {
            let path = dir.path().join("policy.yaml");
            std::fs::write(&path, policy).unwrap();
            flags.extend(["--policy".to_string(), path.display().to_string()]);
        }
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let state = hpa_webhook::server::state(&serve_args(&flags)).unwrap();
        Harness { router: hpa_webhook::app(state), _dir: dir }
    }

    /// The default configuration.
    pub fn default_config() -> Harness {
        Harness::new(&[], None)
    }

    /// Sends raw bytes; returns the status and body.
    pub async fn send(&self, method: &str, path: &str, body: impl Into<Body>) -> (StatusCode, Bytes) {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(body.into())
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        (status, response.into_body().collect().await.unwrap().to_bytes())
    }

    /// POSTs a review and returns the answer, which must be HTTP 200 JSON.
    pub async fn post(&self, path: &str, review: &Value) -> Value {
        let (status, body) = self.send("POST", path, serde_json::to_vec(review).unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(answer["kind"], "AdmissionReview");
        assert_eq!(response(&answer)["uid"], review["request"]["uid"], "the uid is echoed");
        answer
    }
}

// === the real server ===

/// A CA and the serving certificates it issues, written where the server reads them.
pub struct Certs {
    /// The test CA.
    pub ca: Authority,
    /// Holds the files.
    pub dir: tempfile::TempDir,
}

impl Certs {
    /// A new CA; `write` puts a fresh serving certificate for loopback in place.
    pub fn new() -> Certs {
        Certs { ca: Authority::new(1).unwrap(), dir: tempfile::tempdir().unwrap() }
    }

    /// Where the server reads its certificate.
    pub fn cert_path(&self) -> PathBuf {
        self.dir.path().join("tls.crt")
    }

    /// Where the server reads its key.
    pub fn key_path(&self) -> PathBuf {
        self.dir.path().join("tls.key")
    }

    /// Issues a certificate for 127.0.0.1 and localhost and writes it (key first, then the
    /// certificate, each file replaced atomically as the kubelet does); returns its DER.
    pub fn write(&self) -> Vec<u8> {
        let issued = self.ca.issue(&["127.0.0.1".into(), "localhost".into()], 1).unwrap();
        write_atomically(&self.key_path(), issued.key_pem.as_bytes());
        write_atomically(&self.cert_path(), issued.cert_pem.as_bytes());
        CertificateDer::from_pem_slice(issued.cert_pem.as_bytes()).unwrap().to_vec()
    }

    /// A client that trusts only this CA.
    pub fn client(&self) -> Client {
        Client::trusting(&self.ca.ca_pem())
    }
}

/// Writes a file by renaming a temporary one over it.
pub fn write_atomically(path: &Path, contents: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// The server running in this process on 127.0.0.1.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), hpa_webhook::server::ServeError>>,
}

impl Server {
    /// Starts `serve` with these certificates and extra flags.
    pub async fn start(certs: &Certs, flags: &[&str]) -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (cert, key) = (certs.cert_path().display().to_string(), certs.key_path().display().to_string());
        let mut all = vec!["--tls-cert", &cert, "--tls-key", &key, "--reload-interval", "50ms"];
        all.extend_from_slice(flags);
        let args = serve_args(&all);
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            hpa_webhook::server::serve(
                &args,
                listener,
                async move {
                    let _ = stop_rx.await;
                },
                std::future::pending(),
            )
            .await
        });
        let server = Server { addr, stop: Some(stop_tx), task };
        if certs.cert_path().exists() {
            // Serving starts asynchronously: wait for the first successful handshake.
            let client = certs.client();
            let deadline = Deadline::within(Duration::from_secs(5));
            while client.tls(addr).await.is_err() {
                deadline.tick("the server never became ready").await;
            }
        }
        server
    }

    /// Asks it to stop and waits until it has.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(10), &mut self.task).await.unwrap().unwrap().unwrap();
    }
}

/// An HTTPS client trusting one CA, with a TLS version choice.
#[derive(Clone)]
pub struct Client {
    config: Arc<rustls::ClientConfig>,
}

impl Client {
    /// Trusts only the CAs of `ca_pem`; TLS 1.2 and 1.3.
    pub fn trusting(ca_pem: &str) -> Client {
        Client::with_versions(ca_pem, &[&rustls::version::TLS13, &rustls::version::TLS12], &[b"http/1.1"])
    }

    /// Trusts only the CAs of `ca_pem` (every certificate in it, as kube-apiserver reads a
    /// webhook's caBundle), with these TLS versions and ALPN protocols.
    pub fn with_versions(
        ca_pem: &str,
        versions: &[&'static rustls::SupportedProtocolVersion],
        alpn: &[&[u8]],
    ) -> Client {
        let mut roots = rustls::RootCertStore::empty();
        for ca in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(ca.unwrap()).unwrap();
        }
        assert!(!roots.is_empty(), "no certificate in {ca_pem:?}");
        let mut config = rustls::ClientConfig::builder_with_provider(hpa_webhook::tls::provider())
            .with_protocol_versions(versions)
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        // Every connection makes a full handshake, so that it sees the certificate in force
        // (kube-apiserver's Go client does not resume sessions either).
        config.resumption = rustls::client::Resumption::disabled();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Client { config: Arc::new(config) }
    }

    /// A TLS connection to `addr` (verified for 127.0.0.1).
    pub async fn tls(&self, addr: SocketAddr) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        self.tls_for(addr, "127.0.0.1").await
    }

    /// A TLS connection to `addr`, verified for `server_name` (a Service's DNS name, as
    /// kube-apiserver checks it).
    pub async fn tls_for(
        &self,
        addr: SocketAddr,
        server_name: &str,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        let tcp = TcpStream::connect(addr).await?;
        let name = ServerName::try_from(server_name.to_string()).map_err(std::io::Error::other)?;
        TlsConnector::from(self.config.clone()).connect(name, tcp).await
    }

    /// An HTTP/1.1 (or HTTP/2, if negotiated) connection.
    pub async fn connect(&self, addr: SocketAddr) -> std::io::Result<Conn> {
        let stream = self.tls(addr).await?;
        let (_, session) = stream.get_ref();
        let peer_cert = session.peer_certificates().and_then(|c| c.first()).map(|c| c.to_vec()).unwrap_or_default();
        let h2 = session.alpn_protocol() == Some(b"h2");
        let io = TokioIo::new(stream);
        let sender = if h2 {
            let (sender, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), io).await.map_err(std::io::Error::other)?;
            tokio::spawn(conn);
            Sender::H2(sender)
        } else {
            let (sender, conn) = hyper::client::conn::http1::handshake(io).await.map_err(std::io::Error::other)?;
            tokio::spawn(conn);
            Sender::H1(sender)
        };
        Ok(Conn { sender, peer_cert, h2 })
    }

    /// One request on a new connection.
    pub async fn once(
        &self,
        addr: SocketAddr,
        method: &str,
        path: &str,
        body: Vec<u8>,
    ) -> std::io::Result<(StatusCode, Bytes)> {
        self.connect(addr).await?.send(method, path, body).await
    }
}

enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

/// One client connection.
pub struct Conn {
    sender: Sender,
    /// The server's certificate (DER).
    pub peer_cert: Vec<u8>,
    /// Whether HTTP/2 was negotiated.
    pub h2: bool,
}

impl Conn {
    /// Sends a request; returns the status and body.
    pub async fn send(&mut self, method: &str, path: &str, body: Vec<u8>) -> std::io::Result<(StatusCode, Bytes)> {
        let (status, _, body) = self.exchange(method, path, &[("content-type", "application/json")], body).await?;
        Ok((status, body))
    }

    /// Sends a request with `headers` (and `host`); returns the status, the headers and the body.
    pub async fn exchange(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> std::io::Result<(StatusCode, axum::http::HeaderMap, Bytes)> {
        let mut request = axum::http::Request::builder()
            .method(method)
            .uri(format!("https://127.0.0.1{path}"))
            .header("host", "127.0.0.1");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(body))).unwrap();
        // Wait until the connection can take the next request (the previous one may still be
        // finishing), then send.
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
        .map_err(std::io::Error::other)?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.map_err(std::io::Error::other)?.to_bytes();
        Ok((status, headers, body))
    }

    /// POSTs a review; the answer must be HTTP 200 JSON.
    pub async fn review(&mut self, path: &str, review: &Value) -> std::io::Result<Value> {
        let (status, body) = self.send("POST", path, serde_json::to_vec(review).unwrap()).await?;
        if status != StatusCode::OK {
            return Err(std::io::Error::other(format!("HTTP {status}: {}", String::from_utf8_lossy(&body))));
        }
        serde_json::from_slice(&body).map_err(std::io::Error::other)
    }

    /// POSTs `review` to `path` until `done` holds of the answer, and returns that answer: what
    /// the webhook says follows the API server's events, which reach its cache after a moment.
    /// Fails after 10 s, saying `what` did not happen, with the last answer.
    pub async fn review_until(
        &mut self,
        path: &str,
        review: &Value,
        what: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Deadline::within(Duration::from_secs(10));
        loop {
            let answer = self.review(path, review).await.unwrap();
            if done(&answer) {
                return answer;
            }
            deadline.tick(format!("{what}: {answer}")).await;
        }
    }
}

/// The bound on waiting for something that comes true after a while (a watch event reaching
/// the cache, a server draining): long enough that a loaded CI machine never reaches it by
/// noise, so a test fails only when the thing never happens.
pub struct Deadline {
    at: Instant,
    within: Duration,
}

impl Deadline {
    pub fn within(within: Duration) -> Self {
        Deadline { at: Instant::now() + within, within }
    }

    /// Fails the test, saying `what` did not happen, once the deadline has passed; otherwise
    /// waits a moment before the next try.
    pub async fn tick(&self, what: impl std::fmt::Display) {
        assert!(Instant::now() < self.at, "not within {:?}: {what}", self.within);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// === YAML test data ===

/// Every document of a YAML file as JSON, read as kubectl reads it (hpa-yaml).
pub fn yaml_documents(text: &str) -> Vec<Value> {
    hpa_yaml::parse(text).documents.iter().map(|d| d.root().to_json()).collect()
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}
