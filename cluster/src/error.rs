//! What can go wrong talking to an API server, one clear sentence each.
//!
//! A front end shows [`Error`]'s `Display` as is: each variant is a sentence that says what
//! failed and what to do. Refusals that leave the rest readable (a 403 on one kind or
//! namespace, an absent CRD) are not errors but [`Note`](crate::Note)s.

use std::path::PathBuf;
use std::time::Duration;

/// An error that stops a read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No kubeconfig file was found and the process does not run inside a cluster.
    #[error(
        "no kubeconfig found (looked at {looked_at}) and not running inside a cluster: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config"
    )]
    NoKubeconfig {
        /// Where it was looked for.
        looked_at: String,
    },
    /// The kubeconfig exists but cannot be used (unreadable, invalid, unknown context...).
    #[error("cannot use kubeconfig {path}: {reason}")]
    Kubeconfig {
        /// The file, or `in-cluster configuration`.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The API server could not be reached (connection refused, DNS, TLS handshake).
    #[error("cannot reach the API server at {server}: {reason}")]
    Unreachable {
        /// The server URL.
        server: String,
        /// Why (the innermost cause).
        reason: String,
    },
    /// The proxy (the kubeconfig's `proxy-url`, else `HTTPS_PROXY`/`HTTP_PROXY`) could not be
    /// reached, refused the tunnel, or is not a URL.
    #[error(
        "cannot reach the API server at {server} through the proxy {proxy}: {reason}; check the kubeconfig's proxy-url, or HTTPS_PROXY and NO_PROXY"
    )]
    Proxy {
        /// The server URL.
        server: String,
        /// The proxy URL, without credentials.
        proxy: String,
        /// Why (the connector's chain of errors).
        reason: String,
    },
    /// The TLS handshake failed on the server's certificate: the kubeconfig's
    /// certificate-authority does not vouch for it (another cluster, a rotated CA, a proxy).
    #[error(
        "the API server at {server} presented a certificate that is not trusted: {reason}; refresh the kubeconfig (its certificate-authority may be out of date), or check that this is the cluster you meant"
    )]
    UntrustedCertificate {
        /// The server URL.
        server: String,
        /// What is wrong with the certificate, in words.
        reason: String,
    },
    /// The API server did not answer in time.
    #[error("the API server at {server} did not answer within {}s while {doing}", .after.as_secs_f64())]
    Timeout {
        /// The server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// The timeout that expired.
        after: Duration,
    },
    /// 429: the API server throttled the call (API Priority and Fairness, or max-in-flight) and
    /// every retry it allowed within the timeout.
    #[error(
        "the API server at {server} throttled the requests (429 Too Many Requests) while {doing}: {attempts} attempt{s} within the {}s timeout{wait}",
        .timeout.as_secs_f64(),
        s = if *.attempts == 1 { "" } else { "s" },
        wait = match .retry_after {
            Some(n) => format!(", the last answered with Retry-After: {n}"),
            None => String::new(),
        }
    )]
    Throttled {
        /// The server URL.
        server: String,
        /// What was being done.
        doing: String,
        /// How many times the call was sent.
        attempts: u32,
        /// The last `Retry-After`, in seconds.
        retry_after: Option<u64>,
        /// The timeout of the call, retries included.
        timeout: Duration,
    },
    /// 401: the credentials are missing, invalid or expired.
    #[error(
        "the API server at {server} rejected the credentials (401 Unauthorized): they are missing, invalid or expired; log in again or refresh the kubeconfig's token"
    )]
    Unauthorized {
        /// The server URL.
        server: String,
    },
    /// The credentials could not be obtained (an exec plugin or token file failed).
    #[error("cannot get credentials for the API server at {server}: {reason}")]
    Credentials {
        /// The server URL.
        server: String,
        /// Why.
        reason: String,
    },
    /// 403 on something without which nothing useful can be read.
    #[error("RBAC refused to {verb} {what}: {message}; ask for read access (get, list) to it")]
    Forbidden {
        /// `list`, `get`...
        verb: String,
        /// `horizontalpodautoscalers.autoscaling in namespace shop`...
        what: String,
        /// The API server's message.
        message: String,
    },
    /// The object asked for does not exist.
    #[error("{what} not found")]
    NotFound {
        /// `HorizontalPodAutoscaler shop/web`...
        what: String,
        /// The `message` of the server's `Status` (client-go's error text for the 404, which
        /// a controller records as is); empty when no server answered.
        message: String,
    },
    /// The resource metrics API is not served: no metrics-server (or equivalent).
    #[error(
        "the resource metrics API (metrics.k8s.io) is not installed, so the HPA controller gets no CPU or memory usage: install metrics-server"
    )]
    MetricsApiMissing,
    /// 403, for the credentials used here, on something the HPA controller reads with its own
    /// RBAC (kube-controller-manager's account: the metrics APIs, the scale subresource): the
    /// refusal says nothing of what the controller saw, and its sync cannot be replayed
    /// without the answer (it is not the controller's `FailedGet*`).
    #[error(
        "your credentials cannot read {what} ({message}); the HPA controller reads it with its own RBAC, so what it saw cannot be replayed: ask for {access} in namespace {namespace}, or diagnose a snapshot gathered with that access (--snapshot)"
    )]
    ControllerReadForbidden {
        /// What was refused: `metrics.k8s.io`, `the scale of Deployment shop/web`...
        what: String,
        /// The access to ask for: `get and list on metrics.k8s.io`, `get on
        /// deployments.apps/scale`...
        access: String,
        /// The namespace read.
        namespace: String,
        /// The API server's message.
        message: String,
    },
    /// Any other answer of the API server that is not a success.
    #[error("the API server answered {code} {reason} while {doing}: {message}")]
    Api {
        /// HTTP status code.
        code: u16,
        /// `reason` of the Status.
        reason: String,
        /// `message` of the Status.
        message: String,
        /// What was being done.
        doing: String,
    },
    /// The answer was not what the API promises (not JSON, wrong shape).
    #[error("unexpected answer while {doing}: {reason}")]
    Protocol {
        /// What was being done.
        doing: String,
        /// What was wrong.
        reason: String,
    },
    /// A snapshot does not hold what is needed.
    #[error("{0}")]
    Snapshot(String),
}

impl Error {
    /// Whether this error means that the server could not be used at all (no connection, no
    /// credentials), as opposed to one request failing.
    pub fn is_connection(&self) -> bool {
        matches!(
            self,
            Error::NoKubeconfig { .. }
                | Error::Kubeconfig { .. }
                | Error::Unreachable { .. }
                | Error::Proxy { .. }
                | Error::Timeout { .. }
                | Error::Unauthorized { .. }
                | Error::Credentials { .. }
        )
    }
}
