//! The real binary and a real SIGTERM: in-flight requests complete, the listener closes, the
//! process exits cleanly and in time.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hyper::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{Certs, Deadline, hpa_v2_defaulted, review};

struct Process {
    child: Child,
    addr: SocketAddr,
    logs: mpsc::Receiver<Value>,
}

impl Process {
    fn start(certs: &Certs, flags: &[&str]) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
            .args(["--addr", "127.0.0.1:0", "--log-format", "json", "--log-level", "info"])
            .arg("--tls-cert")
            .arg(certs.cert_path())
            .arg("--tls-key")
            .arg(certs.key_path())
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, logs) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let value: Value =
                    serde_json::from_str(&line).unwrap_or_else(|_| panic!("log line is not JSON: {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let listening = wait_for(&logs, "listening");
        let addr = listening["addr"].as_str().unwrap().parse().unwrap();
        Process { child, addr, logs }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill").arg(format!("-{name}")).arg(self.child.id().to_string()).status().unwrap();
        assert!(status.success());
    }

    fn wait(mut self, within: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the process did not exit within {within:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn wait_for(logs: &mpsc::Receiver<Value>, message: &str) -> Value {
    loop {
        let line = logs.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("no {message:?} log line"));
        if line["message"] == message {
            return line;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_in_flight_requests_finish_and_exits_cleanly() {
    let certs = Certs::new();
    certs.write();
    let process = Process::start(&certs, &["--shutdown-delay", "0s", "--shutdown-timeout", "5s"]);
    let client = certs.client();
    let body = serde_json::to_vec(&review("t", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).unwrap();

    // A request whose body is half sent when the signal arrives.
    let mut stream = client.tls(process.addr).await.unwrap();
    let head = format!("POST /validate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\n\r\n", body.len());
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() / 2]).await.unwrap();
    stream.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let signalled = Instant::now();
    process.signal("TERM");
    wait_for(&process.logs, "stop requested");
    // The listener closes once the stop has begun (waited for, within a bound, on a loaded machine).
    let deadline = Deadline::within(Duration::from_secs(10));
    while client.connect(process.addr).await.is_ok() {
        deadline.tick("new connections still accepted after SIGTERM").await;
    }

    stream.write_all(&body[body.len() / 2..]).await.unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await.unwrap();
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(reply.contains(r#""uid":"t","allowed":true"#), "{reply}");

    let status = process.wait(Duration::from_secs(5));
    assert!(status.success(), "{status}");
    assert!(signalled.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_the_shutdown_delay_the_server_serves_but_is_not_ready() {
    let certs = Certs::new();
    certs.write();
    let process = Process::start(&certs, &["--shutdown-delay", "1s"]);
    let client = certs.client();
    let mut conn = client.connect(process.addr).await.unwrap();
    assert_eq!(conn.send("GET", "/readyz", vec![]).await.unwrap().0, StatusCode::OK);
    process.signal("TERM");
    wait_for(&process.logs, "stop requested");
    let mut fresh = client.connect(process.addr).await.unwrap();
    assert_eq!(
        fresh.send("GET", "/readyz", vec![]).await.unwrap(),
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down".into())
    );
    let answer =
        fresh.review("/validate", &review("d", "CREATE", &hpa_v2_defaulted("web", "shop"), None)).await.unwrap();
    assert_eq!(answer["response"]["allowed"], true);
    wait_for(&process.logs, "stopped");
    assert!(process.wait(Duration::from_secs(5)).success());
}

/// With its standard error closed (the reader gone), SIGTERM still stops the server: a failed
/// log write made tracing-subscriber report it with `eprintln!`, which panicked the signal
/// task on the same closed stream, and the server ran on, deaf to every signal.
#[test]
fn sigterm_stops_a_server_whose_stderr_is_closed() {
    let certs = Certs::new();
    certs.write();
    let process = Process::start(&certs, &["--shutdown-delay", "0s"]);
    // The reader thread ends (and closes the pipe) once the receiver is gone.
    let Process { child, addr, logs } = process;
    drop(logs);
    let process = Process { child, addr, logs: mpsc::channel().1 };
    std::thread::sleep(Duration::from_millis(200));
    process.signal("TERM");
    let status = process.wait(Duration::from_secs(10));
    assert!(status.code().is_some(), "{status:?}");
}
