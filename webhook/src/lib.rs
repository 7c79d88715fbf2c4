//! `hpa-webhook`: a mutating and validating admission webhook for HorizontalPodAutoscalers.
//!
//! It owns the HTTP side of admission: the AdmissionReview wire format ([`review`]), the
//! decisions ([`admission`]: defaulting and organization policy on `/mutate`, kube-apiserver's
//! validation, policy constraints and lint warnings on `/validate`), minimal JSON Patches
//! ([`patch`]), the policy file ([`policy`]), TLS with certificate reload ([`tls`]), metrics,
//! graceful shutdown and development certificates ([`certs`]).
//!
//! It deliberately does not decide what an HPA means: decoding, defaulting, conversion,
//! validation and lint rules all come from `hpa-core`, so the webhook answers exactly as
//! kube-apiserver and `hpa-lint` do. With `--context-cache` it watches the cluster through
//! `hpa-cluster` ([`context`]), so that `/validate` runs the cross-object rules and
//! `/validate-workloads` ([`workloads`]) warns about writes that break an HPA; without it, it
//! talks to no Kubernetes API server.
//!
//! [`app`] builds the router from an [`AppState`], so tests drive it without a socket;
//! [`server::serve`] puts it behind rustls on a listener.
#![warn(missing_docs)]

pub mod admission;
pub mod certs;
pub mod cli;
pub mod context;
pub mod export;
pub mod files;
pub mod metrics;
pub mod patch;
pub mod policy;
pub mod review;
pub mod server;
pub mod shutdown;
pub mod tls;
pub mod workloads;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::admission::Reviewer;
use crate::context::{ClusterContext, View};
use crate::metrics::{Endpoint, Metrics, OperationLabel, OutcomeLabel};
use crate::policy::PolicyStore;
use crate::shutdown::Lifecycle;
use crate::tls::CertStore;

/// Paths served; the manifests' webhook configurations and probes must use these.
pub mod paths {
    /// Mutating admission.
    pub const MUTATE: &str = "/mutate";
    /// Validating admission.
    pub const VALIDATE: &str = "/validate";
    /// Validating admission of what HPAs scale or depend on (warnings only).
    pub const VALIDATE_WORKLOADS: &str = "/validate-workloads";
    /// Liveness.
    pub const HEALTHZ: &str = "/healthz";
    /// Readiness: a certificate is loaded, the server is not draining, and the context cache
    /// (when on) has synced or the bounded wait for it is over.
    pub const READYZ: &str = "/readyz";
    /// Prometheus metrics.
    pub const METRICS: &str = "/metrics";
}

/// Request limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Largest accepted body; larger ones get 413.
    pub max_body_bytes: usize,
    /// Deadline of one request, body included; past it, 503.
    pub request_timeout: Duration,
}

/// What the handlers share.
#[derive(Debug)]
pub struct Shared {
    /// The admission decisions.
    pub admission: Reviewer,
    /// The organization policy.
    pub policy: PolicyStore,
    /// The serving certificate (readiness).
    pub certs: Arc<CertStore>,
    /// Metrics.
    pub metrics: Metrics,
    /// Draining or not (readiness).
    pub lifecycle: Lifecycle,
    /// Request limits.
    pub limits: RequestLimits,
    /// The context cache, when on.
    pub context: Option<ClusterContext>,
}

/// The state of the router: cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    /// The state of a server.
    pub fn new(admission: Reviewer, policy: PolicyStore, certs: Arc<CertStore>, limits: RequestLimits) -> Self {
        AppState::with_context(admission, policy, certs, limits, None)
    }

    /// The state of a server with a context cache (or none).
    pub fn with_context(
        admission: Reviewer,
        policy: PolicyStore,
        certs: Arc<CertStore>,
        limits: RequestLimits,
        context: Option<ClusterContext>,
    ) -> Self {
        AppState(Arc::new(Shared {
            admission,
            policy,
            certs,
            metrics: Metrics::new(),
            lifecycle: Lifecycle::default(),
            limits,
            context,
        }))
    }

    /// The shared parts.
    pub fn shared(&self) -> &Shared {
        &self.0
    }
}

/// The router: `POST /validate`, `POST /validate-workloads`, `POST /mutate`, `GET /healthz`,
/// `/readyz` and `/metrics`, each request under the deadline of [`RequestLimits::request_timeout`].
pub fn app(state: AppState) -> Router {
    Router::new()
        .route(paths::VALIDATE, post(validate))
        .route(paths::VALIDATE_WORKLOADS, post(validate_workloads))
        .route(paths::MUTATE, post(mutate))
        .route(paths::HEALTHZ, get(healthz))
        .route(paths::READYZ, get(readyz))
        .route(paths::METRICS, get(metrics))
        .layer(middleware::from_fn_with_state(state.clone(), deadline))
        .with_state(state)
}

async fn validate(State(state): State<AppState>, request: Request) -> Response {
    admit(&state, Endpoint::Validate, request).await
}

async fn validate_workloads(State(state): State<AppState>, request: Request) -> Response {
    admit(&state, Endpoint::ValidateWorkloads, request).await
}

async fn mutate(State(state): State<AppState>, request: Request) -> Response {
    admit(&state, Endpoint::Mutate, request).await
}

async fn admit(state: &AppState, endpoint: Endpoint, request: Request) -> Response {
    let shared = state.shared();
    let limit = shared.limits.max_body_bytes;
    let too_large = || {
        shared.metrics.count(endpoint, OperationLabel::Unknown, OutcomeLabel::TooLarge);
        text(StatusCode::PAYLOAD_TOO_LARGE, format!("request body larger than {limit} bytes"))
    };
    // A refused body is still read, up to twice the limit in all and for a short while, and
    // thrown away: closing a connection with unread data makes the kernel reset it, and an
    // HTTP/1.1 client still sending would then often lose the 413 (Go's net/http server discards
    // for the same reason).
    let discard_budget = limit.saturating_mul(2);
    let discard_time = DISCARD_TIME.min(shared.limits.request_timeout / 2);
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    // A client waiting for `100 Continue` has sent no body yet: it gets the 413 at once.
    let waits =
        request.headers().get(header::EXPECT).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let mut body = request.into_body();
    if let Some(len) = declared.filter(|&len| len > limit as u64) {
        if len <= discard_budget as u64 && !waits {
            discard(&mut body, discard_budget, discard_time).await;
        }
        return too_large();
    }
    let body = match Limited::new(&mut body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            discard(&mut body, discard_budget - limit, discard_time).await;
            return too_large();
        }
        Err(e) => {
            shared.metrics.count(endpoint, OperationLabel::Unknown, OutcomeLabel::Invalid);
            return text(StatusCode::BAD_REQUEST, format!("reading the request body: {e}"));
        }
    };
    let start = Instant::now();
    // A bug met while reviewing one request answers that request with 500 (kube-apiserver then
    // applies the webhook's failure policy); the connection and the server carry on.
    let internal = || {
        shared.metrics.observe(endpoint, OperationLabel::Unknown, OutcomeLabel::Internal, start.elapsed());
        tracing::error!(?endpoint, "internal error while reviewing a request (a bug: please report it)");
        text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error while reviewing the request (a bug in hpa-webhook: please report it)".into(),
        )
    };
    // The review is read once (parsed, its HPA decoded); what it needs of the cluster is read
    // from that: an HPA's custom-resource target (the cache watches none; one bounded `GET`),
    // or a watched kind's target the cache lacks where HPA403 would say so (one bounded LIST).
    let Some(read) = contained(|| shared.admission.read(endpoint, &body)) else { return internal() };
    let target = match (&shared.context, read.scale_target()) {
        (Some(context), Some((namespace, target))) => {
            let says_hpa403 =
                || shared.admission.says(hpa_core::rules::TARGET_NOT_FOUND, namespace, &shared.policy.current());
            context.read_target(namespace, target, says_hpa403).await
        }
        _ => None,
    };
    if let Some(read) = &target {
        shared.metrics.target_read(read);
    }
    // The view is taken here (it reads the clock) and dropped before any await.
    let review = || {
        let view = shared.context.as_ref().map_or(View::Off, |context| context.view(target));
        shared.admission.answer(read, &shared.policy.current(), &view)
    };
    let Some(answer) = contained(review) else { return internal() };
    shared.metrics.observe(endpoint, answer.operation, answer.outcome, start.elapsed());
    shared.metrics.context(endpoint, &answer.context);
    let content_type = if answer.status == 200 { "application/json" } else { "text/plain; charset=utf-8" };
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// Runs `f`; `None` if it panicked (the panic hook has logged where).
fn contained<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

/// Longest time spent reading a refused body (see [`discard`]).
const DISCARD_TIME: Duration = Duration::from_secs(1);

/// Reads and drops the rest of a body, until it ends, `budget` more bytes have come or `time`
/// has passed.
async fn discard(body: &mut Body, budget: usize, time: Duration) {
    let drain = async {
        let mut read = 0usize;
        while read <= budget {
            match body.frame().await {
                Some(Ok(frame)) => read += frame.data_ref().map_or(0, |data| data.len()),
                Some(Err(_)) | None => return,
            }
        }
    };
    let _ = tokio::time::timeout(time, drain).await;
}

async fn healthz() -> Response {
    text(StatusCode::OK, "ok".into())
}

async fn readyz(State(state): State<AppState>) -> Response {
    let shared = state.shared();
    if shared.lifecycle.is_draining() {
        text(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into())
    } else if !shared.certs.is_loaded() {
        text(StatusCode::SERVICE_UNAVAILABLE, "no serving certificate loaded".into())
    } else if shared.context.as_ref().is_some_and(|c| !c.ready()) {
        text(StatusCode::SERVICE_UNAVAILABLE, "the context cache has not synced yet".into())
    } else {
        text(StatusCode::OK, "ok".into())
    }
}

/// The metrics in the format the scraper's `Accept` header asks for ([`metrics::ExpositionFormat::negotiate`]:
/// OpenMetrics for Prometheus, the classic text format otherwise), gzipped when its
/// `Accept-Encoding` asks for gzip ([`metrics::Encoding::negotiate`]; Prometheus does), with
/// `Content-Encoding: gzip` and, as promhttp's `HandlerForTransactional`, no `Vary`.
async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let shared = state.shared();
    if let Some(context) = &shared.context {
        shared.metrics.set_watches(&context.cache().status(), context.stale_after());
    }
    let format = metrics::ExpositionFormat::negotiate(headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()));
    let body = shared.metrics.render(format);
    let encoding = metrics::Encoding::negotiate(headers.get_all(header::ACCEPT_ENCODING).iter().map(|v| v.as_bytes()));
    match encoding.encode(body.as_bytes()) {
        Some(encoded) => {
            ([(header::CONTENT_TYPE, format.content_type()), (header::CONTENT_ENCODING, encoding.token())], encoded)
                .into_response()
        }
        None => ([(header::CONTENT_TYPE, format.content_type())], body).into_response(),
    }
}

/// The per-request deadline: past it the request is dropped and answered with 503, so that
/// kube-apiserver applies the failure policy before its own `timeoutSeconds`.
async fn deadline(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let timeout = state.shared().limits.request_timeout;
    let endpoint = match request.uri().path() {
        paths::VALIDATE => Some(Endpoint::Validate),
        paths::MUTATE => Some(Endpoint::Mutate),
        paths::VALIDATE_WORKLOADS => Some(Endpoint::ValidateWorkloads),
        _ => None,
    };
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            if let Some(endpoint) = endpoint {
                state.shared().metrics.count(endpoint, OperationLabel::Unknown, OutcomeLabel::Timeout);
            }
            tracing::warn!(?timeout, "request deadline exceeded");
            text(StatusCode::SERVICE_UNAVAILABLE, format!("request deadline of {timeout:?} exceeded"))
        }
    }
}

fn text(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_reviewing_is_contained() {
        assert_eq!(contained(|| 3), Some(3));
        let empty: Vec<u8> = Vec::new();
        assert_eq!(contained(|| empty[1]), None);
    }
}
