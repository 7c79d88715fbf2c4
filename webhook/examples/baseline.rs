//! Baselines for `bench/webhook/run.sh`: the same axum + rustls stack as `hpa-webhook` (same TLS
//! configuration, same server, same runtime), with a handler that does no admission work.
//!
//! - `--mode fixed`: answers every POST with a fixed AdmissionReview response of the size the
//!   webhook's `/validate` answer has (the cost of HTTP and TLS alone);
//! - `--mode parse`: parses the body into a `serde_json::Value`, reads the uid and serializes a
//!   response (the floor under any JSON webhook).
//!
//! `cargo run --release -p hpa-webhook --example baseline -- --mode parse --addr 127.0.0.1:18445 \
//!   --tls-cert tls.crt --tls-key tls.key`

#![allow(clippy::print_stderr)]

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::post;
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};
use clap::{Parser, ValueEnum};
use serde_json::{Value, json};

use hpa_webhook::tls::{CertStore, server_config};

/// What the handler does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// A fixed response.
    Fixed,
    /// Parse the request into a `serde_json::Value`, serialize a response.
    Parse,
}

/// Baseline servers for the webhook benchmark.
#[derive(Debug, Parser)]
struct Args {
    /// What the handler does.
    #[arg(long, value_enum)]
    mode: Mode,
    /// Address to listen on.
    #[arg(long)]
    addr: SocketAddr,
    /// PEM certificate.
    #[arg(long)]
    tls_cert: PathBuf,
    /// PEM key.
    #[arg(long)]
    tls_key: PathBuf,
}

/// A `/validate` answer of the webhook for the benchmark's review (same length).
const FIXED: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"0df28fbd-5f5f-11e8-bc74-36e6bb280816","allowed":true}}"#;

/// Reads the body (as every webhook must) and answers with the fixed response.
async fn fixed(_body: Bytes) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], FIXED)
}

async fn parse(body: Bytes) -> axum::response::Response {
    let Ok(review) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let uid = review["request"]["uid"].clone();
    let answer = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": uid, "allowed": true}});
    ([(header::CONTENT_TYPE, "application/json")], serde_json::to_vec(&answer).unwrap_or_default()).into_response()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let certs = Arc::new(CertStore::new(&args.tls_cert, &args.tls_key));
        certs.reload().await?;
        let config = RustlsConfig::from_config(Arc::new(server_config(certs)?));
        let app = match args.mode {
            Mode::Fixed => Router::new().route("/validate", post(fixed)).route("/mutate", post(fixed)),
            Mode::Parse => Router::new().route("/validate", post(parse)).route("/mutate", post(parse)),
        };
        let listener = TcpListener::bind(args.addr)?;
        listener.set_nonblocking(true)?;
        eprintln!("baseline {:?} listening on {}", args.mode, args.addr);
        axum_server::from_tcp(listener)?.acceptor(RustlsAcceptor::new(config)).serve(app.into_make_service()).await?;
        Ok(())
    })
}
