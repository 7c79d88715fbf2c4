//! Running the server: loads the policy and the certificate, serves HTTPS on a listener,
//! reloads the files they come from, and drains when asked to stop.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use axum_server::Handle;
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};

use hpa_cluster::watch::{CacheOptions, ContextCache};
use hpa_cluster::{ClientOptions, Cluster};

use crate::admission::Reviewer;
use crate::cli::ServeArgs;
use crate::context::{ClusterContext, ContextSettings};
use crate::metrics::Reloaded;
use crate::policy::{PolicyError, PolicyStore};
use crate::shutdown::{self, Drain};
use crate::tls::{self, CertStore, Reload, TlsError};
use crate::{AppState, RequestLimits};

/// Longest time a client may take to send its request headers, or its TLS handshake.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The server could not start or stopped with an error.
///
/// Each message says everything (the flag, then its cause), so a variant that prints its cause
/// does not also return it as its `source()`: `hpa-webhook serve` logs the whole chain
/// (`{error:#}`), and a cause returned there too would be printed twice
/// (`--feature-gates: unrecognized feature gate: X: unrecognized feature gate: X`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// `--feature-gates` is not valid for the release.
    #[error("--feature-gates: {0}")]
    Gates(hpa_core::features::GateError),
    /// The policy file is missing or invalid.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The lint configuration (`--lint-config`) is missing or invalid.
    #[error("--lint-config: {0}")]
    LintConfig(#[from] hpa_config::ConfigError),
    /// The TLS configuration was refused.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The context cache could not connect to the cluster.
    #[error("--context-cache: {0}")]
    Cluster(hpa_cluster::Error),
    /// The listener failed.
    #[error("serving on {addr}: {error}")]
    Io {
        /// The listening address.
        addr: String,
        /// Why.
        error: std::io::Error,
    },
}

impl From<hpa_core::features::GateError> for ServeError {
    fn from(e: hpa_core::features::GateError) -> Self {
        ServeError::Gates(e)
    }
}

impl From<hpa_cluster::Error> for ServeError {
    fn from(e: hpa_cluster::Error) -> Self {
        ServeError::Cluster(e)
    }
}

/// Everything the server needs, built from the flags, without a context cache; see [`serve`].
pub fn state(args: &ServeArgs) -> Result<AppState, ServeError> {
    state_with(args, None)
}

/// Starts the context cache the flags ask for (inside a tokio runtime): connects (no request
/// is made yet) and starts the watches; `None` without `--context-cache`.
pub async fn context(args: &ServeArgs) -> Result<Option<ClusterContext>, ServeError> {
    if !args.context_cache {
        return Ok(None);
    }
    let options = ClientOptions {
        kubeconfig: args.kubeconfig.clone(),
        environment: args.environment.clone(),
        ..ClientOptions::default()
    };
    let cluster = Cluster::connect(&options).await?;
    tracing::info!(server = cluster.server(), "context cache: watching the cluster");
    // Cached HPAs are admitted as /validate admits them (this release and these gates), once,
    // when their event arrives.
    let admission = Reviewer::new(args.gates()?).cache_admission();
    let targets = cluster.clone();
    let cache = ContextCache::start(
        cluster,
        CacheOptions {
            recheck_interval: args.context_recheck_interval,
            admission,
            stale_after: args.context_stale_after,
        },
    );
    let settings = ContextSettings { stale_after: args.context_stale_after, sync_timeout: args.context_sync_timeout };
    let bound = crate::context::target_read_timeout(args.request_timeout);
    Ok(Some(ClusterContext::new(cache, settings).reading_targets(&targets, bound)))
}

/// Everything the server needs, with this context cache.
pub fn state_with(args: &ServeArgs, context: Option<ClusterContext>) -> Result<AppState, ServeError> {
    let gates = args.gates_logged()?;
    let policy = PolicyStore::load(args.policy.as_deref())?;
    if let Some(warning) = policy.current().ignored_tolerance(&gates) {
        tracing::warn!("{warning}");
    }
    let certs = Arc::new(CertStore::new(&args.tls_cert, &args.tls_key));
    let limits = RequestLimits { max_body_bytes: args.max_body_bytes, request_timeout: args.request_timeout };
    let mut admission = Reviewer::new(gates).with_lint_warnings(args.lint_warnings);
    if let Some(path) = &args.lint_config {
        admission = admission.with_lint_config(path)?;
    }
    Ok(AppState::with_context(admission, policy, certs, limits, context))
}

/// Serves on `listener` until `stop` resolves, then drains (a second `second_stop` ends at
/// once). The certificate may be missing at start: the server then refuses handshakes and
/// reports not ready until the files appear.
pub async fn serve<F, G>(args: &ServeArgs, listener: TcpListener, stop: F, second_stop: G) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send + 'static,
    G: Future<Output = ()> + Send + 'static,
{
    let state = state_with(args, context(args).await?)?;
    reload_certificate(&state).await;
    let addr = listener.local_addr().map_or_else(|_| args.addr.to_string(), |a| a.to_string());
    let io_error = |error| ServeError::Io { addr: addr.clone(), error };
    listener.set_nonblocking(true).map_err(io_error)?;
    let config = RustlsConfig::from_config(Arc::new(tls::server_config(state.shared().certs.clone())?));

    let handle: Handle<SocketAddr> = Handle::new();
    let mut server = axum_server::from_tcp(listener)
        .map_err(io_error)?
        .acceptor(RustlsAcceptor::new(config).handshake_timeout(HEADER_READ_TIMEOUT))
        .handle(handle.clone());
    server.http_builder().http1().timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);

    let reloader = tokio::spawn(reload_loop(state.clone(), args.reload_interval));
    let drain = Drain { delay: args.shutdown_delay, timeout: args.shutdown_timeout };
    let drainer = {
        let (state, handle) = (state.clone(), handle.clone());
        tokio::spawn(async move { shutdown::drain(stop, second_stop, &state.shared().lifecycle, handle, drain).await })
    };
    tracing::info!(%addr, version = env!("CARGO_PKG_VERSION"), kubernetes = %state.shared().admission.gates().version(), "listening");
    let result = server.serve(crate::app(state).into_make_service()).await;
    reloader.abort();
    drainer.abort();
    result.map_err(io_error)?;
    tracing::info!("stopped");
    Ok(())
}

/// Checks the certificate, key, policy and lint configuration files every `interval`. The CLI
/// refuses a zero interval ([`crate::cli::parse_interval`]); a caller of the library that passes
/// one gets the shortest period instead of `tokio::time::interval`'s panic.
async fn reload_loop(state: AppState, interval: Duration) {
    let mut ticker = tokio::time::interval(interval.max(Duration::from_millis(1)));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker.tick().await;
    loop {
        ticker.tick().await;
        reload_certificate(&state).await;
        reload_policy(&state).await;
        reload_lint_config(&state).await;
    }
}

async fn reload_certificate(state: &AppState) {
    let shared = state.shared();
    match shared.certs.reload().await {
        Ok(Reload::Unchanged) => {}
        Ok(Reload::Loaded { not_after }) => {
            if let Some(not_after) = not_after {
                shared.metrics.set_certificate_expiry(not_after);
            }
            shared.metrics.reloaded(Reloaded::Certificate, true);
            tracing::info!(not_after, "serving certificate loaded");
        }
        Err(error) => {
            shared.metrics.reloaded(Reloaded::Certificate, false);
            if shared.certs.is_loaded() {
                tracing::error!(%error, "certificate not reloaded; the one in force stays");
            } else {
                tracing::error!(%error, "no serving certificate yet; not ready until one loads");
            }
        }
    }
}

async fn reload_policy(state: &AppState) {
    let shared = state.shared();
    match shared.policy.reload().await {
        Ok(false) => {}
        Ok(true) => {
            shared.metrics.reloaded(Reloaded::Policy, true);
            tracing::info!("policy reloaded");
        }
        Err(error) => {
            shared.metrics.reloaded(Reloaded::Policy, false);
            tracing::error!(%error, "policy not reloaded; the one in force stays");
        }
    }
}

async fn reload_lint_config(state: &AppState) {
    let shared = state.shared();
    match shared.admission.reload_lint_config().await {
        Ok(false) => {}
        Ok(true) => {
            shared.metrics.reloaded(Reloaded::LintConfig, true);
            tracing::info!("lint configuration reloaded");
        }
        Err(error) => {
            shared.metrics.reloaded(Reloaded::LintConfig, false);
            tracing::error!(%error, "lint configuration not reloaded; the one in force stays");
        }
    }
}
