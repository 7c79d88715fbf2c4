//! The real server on loopback: HTTPS with certificates made at test time, HTTP/1.1 and
//! HTTP/2, TLS versions, health and metrics, certificate rotation under load, graceful stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hyper::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{
    Certs, Client, Deadline, Server, apply_patch, hpa_v1, hpa_v2, hpa_v2_defaulted, response, review,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_reviews_over_http1_and_http2() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &[]).await;
    let h1 = certs.client();
    let h2 = Client::with_versions(&certs.ca.ca_pem(), &[&rustls::version::TLS13], &[b"h2", b"http/1.1"]);
    for (client, expect_h2) in [(&h1, false), (&h2, true)] {
        let mut conn = client.connect(server.addr).await.unwrap();
        assert_eq!(conn.h2, expect_h2);
        // Several requests on one kept-alive connection: v2 and v1, CREATE and UPDATE.
        let v2 = hpa_v2("web", "shop");
        let answer = conn.review("/mutate", &review("a1", "CREATE", &v2, None)).await.unwrap();
        assert_eq!(apply_patch(&v2, &answer)["spec"]["minReplicas"], 1);
        let stored = hpa_v2_defaulted("web", "shop");
        let answer = conn.review("/validate", &review("a2", "UPDATE", &stored, Some(&stored))).await.unwrap();
        assert_eq!(response(&answer), &json!({"uid": "a2", "allowed": true}));
        let v1 = hpa_v1("web", "shop");
        let answer = conn.review("/mutate", &review("a3", "CREATE", &v1, None)).await.unwrap();
        assert_eq!(apply_patch(&v1, &answer)["spec"]["minReplicas"], 1);
        let mut invalid = stored.clone();
        invalid["spec"]["maxReplicas"] = json!(0);
        let answer = conn.review("/validate", &review("a4", "CREATE", &invalid, None)).await.unwrap();
        assert_eq!(response(&answer)["status"]["code"], 422);
        // dryRun: the same answer.
        let mut dry = review("a4", "CREATE", &invalid, None);
        dry["request"]["dryRun"] = json!(true);
        assert_eq!(conn.review("/validate", &dry).await.unwrap(), answer);
        // Another kind: admitted untouched.
        let mut other = review("a5", "CREATE", &json!({"apiVersion": "v1", "kind": "ConfigMap"}), None);
        other["request"]["kind"] = json!({"group": "", "version": "v1", "kind": "ConfigMap"});
        other["request"]["resource"] = json!({"group": "", "version": "v1", "resource": "configmaps"});
        for path in ["/mutate", "/validate"] {
            assert_eq!(response(&conn.review(path, &other).await.unwrap()), &json!({"uid": "a5", "allowed": true}));
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_1_2_and_1_3_only_and_only_the_right_ca() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &[]).await;
    for version in [&rustls::version::TLS12, &rustls::version::TLS13] {
        let client = Client::with_versions(&certs.ca.ca_pem(), &[version], &[b"http/1.1"]);
        let stream = client.tls(server.addr).await.unwrap();
        assert_eq!(stream.get_ref().1.protocol_version(), Some(version.version));
    }
    // A TLS 1.0 ClientHello (the most rustls cannot even offer) is refused with an alert.
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(&tls10_client_hello()).await.unwrap();
    let mut reply = [0u8; 7];
    tcp.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply[0], 0x15, "a TLS alert record");
    // A client trusting another CA refuses the server's certificate.
    let stranger = Certs::new().client();
    let err = stranger.tls(server.addr).await.expect_err("handshake must fail");
    assert!(err.to_string().contains("invalid peer certificate"), "{err}");
    server.stop().await;
}

/// A minimal TLS 1.0 ClientHello offering only TLS_RSA_WITH_AES_128_CBC_SHA.
fn tls10_client_hello() -> Vec<u8> {
    let mut hello = vec![0x03, 0x01];
    hello.extend([0u8; 32]);
    hello.extend([0x00, 0x00, 0x02, 0x00, 0x2f, 0x01, 0x00]);
    let mut handshake = vec![0x01, 0x00, 0x00, hello.len() as u8];
    handshake.extend(hello);
    let mut record = vec![0x16, 0x03, 0x01, 0x00, handshake.len() as u8];
    record.extend(handshake);
    record
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_metrics() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &[]).await;
    let client = certs.client();
    let mut conn = client.connect(server.addr).await.unwrap();
    assert_eq!(conn.send("GET", "/healthz", vec![]).await.unwrap(), (StatusCode::OK, "ok".into()));
    assert_eq!(conn.send("GET", "/readyz", vec![]).await.unwrap(), (StatusCode::OK, "ok".into()));
    conn.review("/validate", &review("m", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).await.unwrap();
    conn.review("/mutate", &review("m", "CREATE", &hpa_v2("web", "shop"), None)).await.unwrap();
    let (status, _) = conn.send("POST", "/mutate", b"nope".to_vec()).await.unwrap();
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = conn.send("GET", "/metrics", vec![]).await.unwrap();
    assert_eq!(status, StatusCode::OK);
    let text = String::from_utf8(body.to_vec()).unwrap();
    for line in [
        "hpa_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\",outcome=\"allowed\"} 1",
        "hpa_webhook_requests_total{endpoint=\"mutate\",operation=\"CREATE\",outcome=\"patched\"} 1",
        "hpa_webhook_requests_total{endpoint=\"mutate\",operation=\"unknown\",outcome=\"invalid\"} 1",
        "hpa_webhook_request_duration_seconds_count{endpoint=\"validate\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
    }
    let expiry: i64 = text
        .lines()
        .find_map(|l| l.strip_prefix("hpa_webhook_certificate_expiry_timestamp_seconds "))
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((expiry - now - 86_400).abs() < 600, "expires in a day: {expiry} vs {now}");
    // The format follows the Accept header, as promhttp's: the classic text format unless the
    // scraper asks for OpenMetrics (Prometheus does).
    async fn scrape(conn: &mut crate::support::Conn, accept: &[(&str, &str)]) -> (String, String) {
        let (status, headers, body) = conn.exchange("GET", "/metrics", accept, vec![]).await.unwrap();
        assert_eq!(status, StatusCode::OK);
        (headers["content-type"].to_str().unwrap().to_string(), String::from_utf8(body.to_vec()).unwrap())
    }
    let (content_type, text) = scrape(&mut conn, &[]).await;
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    assert!(text.lines().any(|l| l == "# TYPE hpa_webhook_requests_total counter"), "{text}");
    assert!(!text.contains("# EOF"), "{text}");
    let prometheus = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1";
    let (content_type, open) = scrape(&mut conn, &[("accept", prometheus)]).await;
    assert_eq!(content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert!(open.lines().any(|l| l == "# TYPE hpa_webhook_requests counter"), "{open}");
    assert_eq!(open.lines().last(), Some("# EOF"));
    // Unknown paths and methods are HTTP errors, not admission answers.
    assert_eq!(conn.send("GET", "/validate", vec![]).await.unwrap().0, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(conn.send("POST", "/nope", vec![]).await.unwrap().0, StatusCode::NOT_FOUND);
    server.stop().await;
}

/// `/metrics` is gzipped for a scraper whose `Accept-Encoding` asks for gzip (Prometheus sends
/// `gzip`), as promhttp answers: `Content-Encoding: gzip`, no `Vary`, and the decoded body is
/// the uncompressed one, byte for byte, in either format; `*` or no header gets it as is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_gzipped_when_the_scraper_accepts_gzip() {
    use std::io::Read;
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &[]).await;
    let mut conn = certs.client().connect(server.addr).await.unwrap();
    conn.review("/validate", &review("m", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).await.unwrap();
    let prometheus = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1";
    for accept in [prometheus, "text/plain"] {
        let (status, plain_headers, plain) =
            conn.exchange("GET", "/metrics", &[("accept", accept)], vec![]).await.unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(plain_headers.get("content-encoding"), None);
        let (status, headers, gzipped) =
            conn.exchange("GET", "/metrics", &[("accept", accept), ("accept-encoding", "gzip")], vec![]).await.unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-encoding"], "gzip");
        assert_eq!(headers["content-type"], plain_headers["content-type"]);
        assert_eq!(headers.get("vary"), None);
        assert_eq!(&gzipped[..2], [0x1f, 0x8b], "a gzip member");
        let mut decoded = String::new();
        flate2::read::GzDecoder::new(&gzipped[..]).read_to_string(&mut decoded).unwrap();
        assert_eq!(decoded, String::from_utf8(plain.to_vec()).unwrap(), "{accept}");
        assert!(gzipped.len() * 3 < plain.len(), "{} bytes gzipped, {} plain", gzipped.len(), plain.len());
        assert!(
            decoded.contains(
                "hpa_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\",outcome=\"allowed\"} 1"
            )
        );
    }
    let (_, headers, _) = conn.exchange("GET", "/metrics", &[("accept-encoding", "*")], vec![]).await.unwrap();
    assert_eq!(headers.get("content-encoding"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_certificates_the_server_waits_for_them() {
    let certs = Certs::new();
    let server = Server::start(&certs, &[]).await;
    let client = certs.client();
    assert!(client.connect(server.addr).await.is_err(), "no certificate: handshakes fail");
    certs.write();
    let deadline = Deadline::within(Duration::from_secs(5));
    loop {
        if let Ok(mut conn) = client.connect(server.addr).await {
            assert_eq!(conn.send("GET", "/readyz", vec![]).await.unwrap().0, StatusCode::OK);
            break;
        }
        deadline.tick("the certificate was never loaded").await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_limit_over_https() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &["--max-body-bytes", "1000"]).await;
    let mut conn = certs.client().connect(server.addr).await.unwrap();
    let (status, body) = conn.send("POST", "/validate", vec![b' '; 5000]).await.unwrap();
    assert_eq!(
        (status, body.as_ref()),
        (StatusCode::PAYLOAD_TOO_LARGE, b"request body larger than 1000 bytes".as_ref())
    );
    server.stop().await;
}

/// A body over the limit (up to twice the limit) is read to its end and thrown away before the
/// 413: an HTTP/1.1 client still sending it then reads the answer, where closing the connection
/// on the unread rest made the kernel reset it, often before the client had read the 413 (found
/// by `bench/soak/run.sh`). The connection stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_bodies_get_413_and_the_connection_survives() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &["--max-body-bytes", "262144"]).await;
    let big = serde_json::to_vec(&review("big", "CREATE", &json!({"pad": "x".repeat(400 * 1024)}), None)).unwrap();
    let good = review("good", "CREATE", &hpa_v2_defaulted("web", "shop"), None);
    let mut conn = certs.client().connect(server.addr).await.unwrap();
    assert!(!conn.h2);
    for _ in 0..10 {
        let (status, body) = conn.send("POST", "/validate", big.clone()).await.unwrap();
        assert_eq!(
            (status, body.as_ref()),
            (StatusCode::PAYLOAD_TOO_LARGE, b"request body larger than 262144 bytes".as_ref())
        );
        let answer = conn.review("/validate", &good).await.unwrap();
        assert_eq!(response(&answer), &json!({"uid": "good", "allowed": true}));
    }
    // A client that asks first (`Expect: 100-continue`) is answered at once, not invited to send
    // a body that would be refused.
    let mut stream = certs.client().tls(server.addr).await.unwrap();
    let head = format!(
        "POST /validate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nexpect: 100-continue\r\n\r\n",
        big.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.flush().await.unwrap();
    let mut reply = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(5), stream.read_exact(&mut reply)).await.unwrap().unwrap();
    assert_eq!(&reply, b"HTTP/1.1 413");
    server.stop().await;
}

/// cert-manager rewrites the Secret while kube-apiserver keeps calling: new connections get the
/// new certificate, existing ones keep working, and no request fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificate_rotation_under_load_fails_no_request() {
    let certs = Arc::new(Certs::new());
    let mut current = certs.write();
    let server = Server::start(&certs, &[]).await;
    let addr = server.addr;
    let client = certs.client();
    let body = serde_json::to_vec(&review("r", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).unwrap();
    let (done, ok, failed) =
        (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let _stop_workers = StopOnDrop(done.clone());
    let mut workers = Vec::new();
    for keep_alive in [false, false, true] {
        let (client, body, done, ok, failed) = (client.clone(), body.clone(), done.clone(), ok.clone(), failed.clone());
        workers.push(tokio::spawn(async move {
            let mut conn = if keep_alive { Some(client.connect(addr).await.unwrap()) } else { None };
            while !done.load(Ordering::Relaxed) {
                let result = match &mut conn {
                    Some(conn) => conn.send("POST", "/validate", body.clone()).await,
                    None => client.once(addr, "POST", "/validate", body.clone()).await,
                };
                match result {
                    Ok((StatusCode::OK, _)) => ok.fetch_add(1, Ordering::Relaxed),
                    other => {
                        eprintln!("failed: {other:?}");
                        failed.fetch_add(1, Ordering::Relaxed)
                    }
                };
            }
        }));
    }
    // Each certificate serves requests before the next one is written (waiting for a count,
    // not a time, so that a slow machine tests the same overlap).
    let served_at_least = |n: usize| {
        let ok = ok.clone();
        async move {
            let deadline = Deadline::within(Duration::from_secs(20));
            while ok.load(Ordering::Relaxed) < n {
                deadline.tick("no load reached the server").await;
            }
        }
    };
    for _ in 0..3 {
        served_at_least(ok.load(Ordering::Relaxed) + 20).await;
        let next = certs.write();
        assert_ne!(next, current);
        // New connections get the new certificate once the next poll has seen the files.
        let deadline = Deadline::within(Duration::from_secs(5));
        while client.connect(addr).await.unwrap().peer_cert != next {
            deadline.tick("the new certificate was never served").await;
        }
        current = next;
    }
    served_at_least(ok.load(Ordering::Relaxed) + 20).await;
    done.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }
    let (ok, failed) = (ok.load(Ordering::Relaxed), failed.load(Ordering::Relaxed));
    assert_eq!(failed, 0, "{failed} failed requests ({ok} succeeded)");
    assert!(ok >= 80, "only {ok} requests during the rotation");
    server.stop().await;
}

/// Stops the load when the test ends, even by a failed assertion.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A half-rotated pair (new certificate, old key) is never served: the old pair stays until the
/// key arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mismatched_pair_is_not_served() {
    let certs = Certs::new();
    let first = certs.write();
    let server = Server::start(&certs, &[]).await;
    let client = certs.client();
    let issued = certs.ca.issue(&["127.0.0.1".into()], 1).unwrap();
    crate::support::write_atomically(&certs.cert_path(), issued.cert_pem.as_bytes());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(client.connect(server.addr).await.unwrap().peer_cert, first, "old pair still served");
    crate::support::write_atomically(&certs.key_path(), issued.key_pem.as_bytes());
    let deadline = Deadline::within(Duration::from_secs(5));
    while client.connect(server.addr).await.unwrap().peer_cert == first {
        deadline.tick("the new key pair was never served").await;
    }
    server.stop().await;
}

/// Stopping closes the listener and lets a request that is halfway through its body finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_lets_in_flight_requests_finish() {
    let certs = Certs::new();
    certs.write();
    let server = Server::start(&certs, &[]).await;
    let client = certs.client();
    let body = serde_json::to_vec(&review("s", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).unwrap();
    let mut stream = client.tls(server.addr).await.unwrap();
    let head = format!(
        "POST /validate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() / 2]).await.unwrap();
    stream.flush().await.unwrap();
    // Let the server read the headers: from then on the request is in flight. (A request whose
    // first bytes have not been read yet is not; the shutdown delay covers that window.)
    tokio::time::sleep(Duration::from_millis(100)).await;
    let addr = server.addr;
    let stopping = tokio::spawn(server.stop());
    // The listener closes once the stop has begun (waited for, within a bound: on a loaded
    // machine the server's tasks may not have run yet).
    let deadline = Deadline::within(Duration::from_secs(10));
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        deadline.tick("the listener is still open").await;
    }
    stream.write_all(&body[body.len() / 2..]).await.unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await.unwrap();
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(reply.contains(r#""uid":"s","allowed":true"#), "{reply}");
    stopping.await.unwrap();
}
