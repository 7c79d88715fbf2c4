//! A connection to one API server: a `kube::Client` built from a kubeconfig (a file, the
//! default locations, a context) or the in-cluster service account, and raw JSON requests with
//! a timeout on every call.
//!
//! Objects are read as JSON, not as k8s-openapi structs: HPAs go to hpa-core's strict decoder
//! as the JSON text the API server wrote ([`crate::object::LiveObject`]), and every other object
//! to hpa-core's builders, which read trees (`serde_json::Value`).

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use kube::client::{ClientBuilder, DynBody};
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use serde_json::Value;

use crate::error::Error;

/// How many times a `GET` the API server asks to repeat (429 or 5xx with `Retry-After`) is sent
/// again: client-go's `maxRetries` of a `rest.Request` (10, `rest/request.go`, `NewRequest`).
pub const MAX_RETRIES: u32 = 10;

/// The HTTP stack `ClientBuilder::try_from(Config)` builds (kube-client's own `GenericService`,
/// which it does not export).
pub(crate) type GenericService =
    tower::util::BoxService<http::Request<kube::client::Body>, http::Response<Box<DynBody>>, tower::BoxError>;

/// The default timeout of one call: connecting plus the whole answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How to reach the cluster.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// A kubeconfig file (`--kubeconfig`). `None`: `$KUBECONFIG` or `~/.kube/config`, then the
    /// in-cluster service account.
    pub kubeconfig: Option<PathBuf>,
    /// The context to use (`--context`); `None`: the kubeconfig's current context.
    pub context: Option<String>,
    /// The in-cluster service account only, ignoring any kubeconfig.
    pub in_cluster: bool,
    /// The timeout of every call (connect, send, whole answer).
    pub timeout: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions { kubeconfig: None, context: None, in_cluster: false, timeout: DEFAULT_TIMEOUT }
    }
}

/// A client of one API server.
#[derive(Clone)]
pub struct Cluster {
    client: Client,
    /// What the client was built from: [`Cluster::client_builder`] builds another like it.
    config: Config,
    server: String,
    default_namespace: String,
    timeout: Duration,
    credentials: CredentialSource,
}

/// Where the kubeconfig's user gets its credentials, to say which failed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CredentialSource {
    /// An exec credential plugin (`users[].user.exec.command`).
    Exec(String),
    /// A token file (`users[].user.tokenFile`).
    TokenFile(String),
    /// Anything else (a token, a client certificate, an auth provider, nothing).
    Other,
}

impl CredentialSource {
    fn of(config: &Config) -> CredentialSource {
        let user = &config.auth_info;
        if let Some(command) = user.exec.as_ref().and_then(|e| e.command.clone()) {
            CredentialSource::Exec(command)
        } else if let Some(file) = &user.token_file {
            CredentialSource::TokenFile(file.clone())
        } else {
            CredentialSource::Other
        }
    }

    /// What went wrong getting credentials, in a sentence that names the plugin or file and
    /// says what to do: `AuthError`'s own text carries Rust's debug form of the plugin's
    /// command and output.
    fn failure(&self, e: &kube::client::AuthError) -> String {
        use kube::client::AuthError as A;
        let plugin = match self {
            CredentialSource::Exec(command) => format!("the kubeconfig user's exec credential plugin `{command}`"),
            _ => "the kubeconfig user's exec credential plugin".to_string(),
        };
        match e {
            A::AuthExecRun { out, .. } => {
                let status = match out.status.code() {
                    Some(code) => format!("exited with status {code}"),
                    None => "was killed by a signal".to_string(),
                };
                let said = String::from_utf8_lossy(&out.stderr);
                let said = said.lines().map(str::trim).rfind(|l| !l.is_empty()).map(|l| format!(" ({l})"));
                let said = said.unwrap_or_else(|| " (its own message, if it printed one, is above)".to_string());
                format!("{plugin} {status}{said}: log in again with it, or choose another context")
            }
            A::AuthExecStart(io) if io.kind() == std::io::ErrorKind::NotFound => {
                format!("{plugin} is not installed (not found on PATH): install it, or fix users[].user.exec.command")
            }
            A::AuthExecStart(io) => format!("{plugin} could not be started ({io}): fix users[].user.exec.command"),
            A::AuthExecParse(_) | A::AuthExec(_) | A::ExecPluginFailed | A::MalformedTokenExpirationDate(_) => {
                format!("{plugin} gave no usable credential ({}): log in again with it", short(e))
            }
            A::ReadTokenFile(io, path) => format!(
                "cannot read the kubeconfig user's token file {} ({io}): log in again, or fix users[].user.tokenFile",
                path.display()
            ),
            other => format!("the kubeconfig user's credentials cannot be used ({}): log in again", short(other)),
        }
    }
}

/// An auth error's text without what kube writes in Rust's debug form (`AuthExec` messages
/// that embed one are cut at it).
fn short(e: &kube::client::AuthError) -> String {
    let text = innermost(e);
    match text.find(['{', '(']).filter(|_| matches!(e, kube::client::AuthError::AuthExec(_))) {
        Some(cut) => text[..cut].trim_end().trim_end_matches(':').to_string(),
        None => text,
    }
}

/// The auth error in an error's chain (kube wraps it in the service's errors).
fn auth_error<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a kube::client::AuthError> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(auth) = err.downcast_ref::<kube::client::AuthError>() {
            return Some(auth);
        }
        current = err.source();
    }
    None
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("server", &self.server).field("timeout", &self.timeout).finish()
    }
}

impl Cluster {
    /// Builds the client (no request is made yet). Mirrors kubectl's loading rules: an explicit
    /// file, else `$KUBECONFIG` (a list of files, merged), else `~/.kube/config`, else the
    /// in-cluster configuration (`rest.InClusterConfig`).
    pub async fn connect(options: &ClientOptions) -> Result<Cluster, Error> {
        let kube_options = KubeConfigOptions { context: options.context.clone(), ..KubeConfigOptions::default() };
        let config = if options.in_cluster {
            in_cluster()?
        } else {
            let (kubeconfig, path) = match &options.kubeconfig {
                Some(path) => match Kubeconfig::read_from(path) {
                    Ok(k) => (k, path.clone()),
                    Err(e) => return Err(kubeconfig_error(path.clone(), &e)),
                },
                None => match Kubeconfig::read() {
                    Ok(k) => (k, PathBuf::from("$KUBECONFIG or ~/.kube/config")),
                    Err(KubeconfigError::FindPath) => {
                        return Cluster::from_config(in_cluster_or_none(options)?, options.timeout);
                    }
                    Err(KubeconfigError::ReadConfig(e, _)) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Cluster::from_config(in_cluster_or_none(options)?, options.timeout);
                    }
                    Err(e) => return Err(kubeconfig_error(PathBuf::from("$KUBECONFIG or ~/.kube/config"), &e)),
                },
            };
            let contexts: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
            Config::from_custom_kubeconfig(kubeconfig, &kube_options).await.map_err(|e| match e {
                // kubectl's words, and the names to choose from.
                KubeconfigError::LoadContext(name) => Error::Kubeconfig {
                    path,
                    reason: format!(
                        "no context exists with the name \"{name}\" (its contexts: {})",
                        if contexts.is_empty() { "none".to_string() } else { contexts.join(", ") }
                    ),
                },
                e => kubeconfig_error(path, &e),
            })?
        };
        Cluster::from_config(config, options.timeout)
    }

    /// Builds the client from a kube `Config`, with `timeout` on connecting and on every call.
    pub fn from_config(mut config: Config, timeout: Duration) -> Result<Cluster, Error> {
        let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
        config.connect_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
        // No read timeout on the connection: watches (the webhook's caches) stay open for minutes
        // between events. Every one-shot call is bounded as a whole by `timeout` instead.
        config.read_timeout = None;
        let default_namespace = config.default_namespace.clone();
        let credentials = CredentialSource::of(&config);
        // One-shot calls retry as client-go does (`get_text`), within their timeout; kube's own
        // retry (429, 503 and 504 with a backoff up to 1000 s, 15 times) would spend the timeout
        // on a throttling server and report it as slow. The watches' client (`client_builder`)
        // keeps it.
        let mut one_shot = config.clone();
        one_shot.default_retry = false;
        let client = Client::try_from(one_shot).map_err(|e| match auth_error(&e) {
            Some(auth) => Error::Credentials { server: server.clone(), reason: credentials.failure(auth) },
            None => unreachable(server.clone(), &e),
        })?;
        Ok(Cluster { client, config, server, default_namespace, timeout, credentials })
    }

    /// A builder of another client like [`Cluster::client`] (same server, credentials and
    /// timeouts), to which a layer can be added: the context cache observes its watches'
    /// responses this way (`watch::heartbeat`).
    pub(crate) fn client_builder(&self) -> Result<ClientBuilder<GenericService>, Error> {
        ClientBuilder::try_from(self.config.clone()).map_err(|e| match auth_error(&e) {
            Some(auth) => Error::Credentials { server: self.server.clone(), reason: self.credentials.failure(auth) },
            None => unreachable(self.server.clone(), &e),
        })
    }

    /// The underlying kube client (watchers and reflectors use it).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The server URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The namespace of the kubeconfig's context (`default` when it names none).
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// The timeout of every call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// `GET path` (with its query), parsed as JSON; `doing` describes the call for errors.
    pub async fn get_json(&self, path_and_query: &str, doing: &str) -> Result<Value, Error> {
        let text = self.get_text(path_and_query, doing).await?;
        // As client-go's dynamic client reads it: a lone surrogate escape (which kube-apiserver
        // keeps in `fieldsV1`) is U+FFFD, not a page that cannot be read.
        hpa_core::go::parse_tree(&text).map_err(|e| Error::Protocol { doing: doing.to_string(), reason: e.to_string() })
    }

    /// `GET path` (with its query): the body's text; `doing` describes the call for errors.
    ///
    /// An answer that asks to be repeated (429 Too Many Requests or a 5xx, with `Retry-After`:
    /// client-go's `checkWait`) is asked again after the wait it names, up to [`MAX_RETRIES`]
    /// times, as client-go's `rest.Request` does (`withRetry.IsNextRetry`), as long as the wait
    /// ends within the call's timeout, which bounds all the attempts together; past that, a
    /// 429 is [`Error::Throttled`] at once rather than a timeout after a useless wait.
    pub(crate) async fn get_text(&self, path_and_query: &str, doing: &str) -> Result<String, Error> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut retries = 0;
        loop {
            let request = http::Request::get(path_and_query)
                .body(kube::client::Body::from(Vec::new()))
                .map_err(|e| Error::Protocol { doing: doing.to_string(), reason: e.to_string() })?;
            let answer = self.bounded_until(deadline, doing, Answer::get(&self.client, request)).await?;
            if let Some(wait) = answer.retry_after
                && retries < MAX_RETRIES
                && tokio::time::Instant::now() + wait < deadline
            {
                retries += 1;
                tokio::time::sleep(wait).await;
                continue;
            }
            return answer.text.map_err(|status| match status.code {
                429 => self.throttled(doing, retries, answer.retry_after),
                _ => self.classify(kube::Error::Api(status), doing),
            });
        }
    }

    /// [`Error::Throttled`] for a call that got 429 after `retries` retries.
    fn throttled(&self, doing: &str, retries: u32, retry_after: Option<Duration>) -> Error {
        Error::Throttled {
            server: self.server.clone(),
            doing: doing.to_string(),
            attempts: retries + 1,
            retry_after: retry_after.map(|d| d.as_secs()),
            timeout: self.timeout,
        }
    }

    /// Runs one call under the timeout and classifies its error.
    pub(crate) async fn bounded<T>(
        &self,
        doing: &str,
        call: impl Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, Error> {
        self.bounded_until(tokio::time::Instant::now() + self.timeout, doing, call).await
    }

    /// [`Self::bounded`], with the deadline of a call that began earlier (its retries).
    async fn bounded_until<T>(
        &self,
        deadline: tokio::time::Instant,
        doing: &str,
        call: impl Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, Error> {
        match tokio::time::timeout_at(deadline, call).await {
            Err(_) => {
                Err(Error::Timeout { server: self.server.clone(), doing: doing.to_string(), after: self.timeout })
            }
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.classify(e, doing)),
        }
    }

    /// Turns a kube error into one of ours.
    pub(crate) fn classify(&self, error: kube::Error, doing: &str) -> Error {
        let server = self.server.clone();
        match error {
            kube::Error::Api(status) => {
                let code = status.code;
                let reason = status.reason.clone();
                let message = status.message.clone();
                let (verb, what) = split_doing(doing);
                match code {
                    401 => Error::Unauthorized { server },
                    429 => self.throttled(
                        doing,
                        0,
                        status.details.as_ref().map(|d| Duration::from_secs(d.retry_after_seconds.into())),
                    ),
                    403 => Error::Forbidden { verb: verb.into(), what: what.into(), message },
                    404 => Error::NotFound { what: what.into() },
                    _ => Error::Api { code, reason, message, doing: doing.to_string() },
                }
            }
            kube::Error::Auth(e) => Error::Credentials { server, reason: self.credentials.failure(&e) },
            kube::Error::SerdeError(e) => Error::Protocol { doing: doing.to_string(), reason: e.to_string() },
            kube::Error::FromUtf8(e) => Error::Protocol { doing: doing.to_string(), reason: e.to_string() },
            other => {
                if let Some(auth) = auth_error(&other) {
                    Error::Credentials { server, reason: self.credentials.failure(auth) }
                } else if chain_has_timeout(&other) {
                    Error::Timeout { server, doing: doing.to_string(), after: self.timeout }
                } else {
                    unreachable(server, &other)
                }
            }
        }
    }
}

/// One answer to a `GET`, read whole: the body's text, or the failure as kube-client's
/// `handle_api_errors` reads it (a `Status`, or one made of a body that is not one); and the
/// wait the server asked for before a retry (client-go's `checkWait`: `Retry-After` in whole
/// seconds on a 429 or a 5xx).
struct Answer {
    /// The text, or the failure.
    text: Result<String, Box<kube::core::Status>>,
    /// `Retry-After`, when the answer may be retried.
    retry_after: Option<Duration>,
}

impl Answer {
    /// Sends `request` and reads the answer.
    async fn get(client: &Client, request: http::Request<kube::client::Body>) -> Result<Answer, kube::Error> {
        use http_body_util::BodyExt as _;
        let response = client.send(request).await?;
        let code = response.status();
        let retry_after = (code == http::StatusCode::TOO_MANY_REQUESTS || code.is_server_error())
            .then(|| response.headers().get(http::header::RETRY_AFTER)?.to_str().ok()?.trim().parse::<u64>().ok())
            .flatten()
            .map(Duration::from_secs);
        let bytes = response.into_body().collect().await?.to_bytes();
        let text = String::from_utf8(bytes.to_vec()).map_err(kube::Error::FromUtf8)?;
        if !(code.is_client_error() || code.is_server_error()) {
            return Ok(Answer { text: Ok(text), retry_after });
        }
        let status = serde_json::from_str::<kube::core::Status>(&text).unwrap_or_else(|_| {
            kube::core::Status::failure(text.trim(), "Failed to parse error data").with_code(code.as_u16())
        });
        Ok(Answer { text: Err(Box::new(status)), retry_after })
    }
}

/// `("list", "deployments.apps in namespace shop")` from `"listing deployments.apps in
/// namespace shop"`: the verb RBAC speaks of and the object of a call's description.
fn split_doing(doing: &str) -> (&str, &str) {
    if let Some(what) = doing.strip_prefix("listing ") {
        ("list", what)
    } else if let Some(what) = doing.strip_prefix("reading ") {
        ("get", what)
    } else {
        ("read", doing)
    }
}

/// The in-cluster configuration (`rest.InClusterConfig`).
fn in_cluster() -> Result<Config, Error> {
    Config::incluster()
        .map_err(|e| Error::Kubeconfig { path: PathBuf::from("in-cluster configuration"), reason: innermost(&e) })
}

fn in_cluster_or_none(options: &ClientOptions) -> Result<Config, Error> {
    let none =
        || Error::NoKubeconfig { looked_at: "$KUBECONFIG, ~/.kube/config and the in-cluster service account".into() };
    if options.context.is_some() {
        return Err(none());
    }
    Config::incluster().map_err(|_| none())
}

fn kubeconfig_error(path: PathBuf, e: &KubeconfigError) -> Error {
    if let KubeconfigError::ReadConfig(io, _) = e
        && io.kind() == std::io::ErrorKind::NotFound
    {
        return Error::Kubeconfig { path, reason: "no such file".into() };
    }
    if let KubeconfigError::ReadConfig(io, _) = e {
        return Error::Kubeconfig { path, reason: io.to_string() };
    }
    Error::Kubeconfig { path, reason: chain(e) }
}

/// An error and its sources, joined with `: ` (each once).
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// The innermost cause of an error (what a user can act on: "Connection refused (os error
/// 111)", "invalid peer certificate: UnknownIssuer"), after the outermost message when that
/// adds something.
/// A connection that failed: [`Error::UntrustedCertificate`] when the TLS handshake refused
/// the server's certificate, [`Error::Unreachable`] otherwise.
fn unreachable(server: String, e: &(dyn std::error::Error + 'static)) -> Error {
    match untrusted_certificate(e) {
        Some(reason) => Error::UntrustedCertificate { server, reason },
        None => Error::Unreachable { server, reason: innermost(e) },
    }
}

/// What is wrong with the server's certificate, in words, when rustls refused it somewhere in
/// the error's chain (an `io::Error` carries it as its inner error, which its `source` skips).
fn untrusted_certificate(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rustls::CertificateError as C;
    let mut current = Some(e);
    while let Some(err) = current {
        // `io::Error`s nest (the connector wraps rustls' InvalidData in an Other): look inside.
        let mut inner = err;
        while let Some(next) = inner.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            inner = next;
        }
        let tls = inner.downcast_ref::<rustls::Error>();
        if let Some(rustls::Error::InvalidCertificate(cert)) = tls {
            return Some(match cert {
                C::UnknownIssuer => "it is not signed by the kubeconfig's certificate-authority".to_string(),
                C::BadSignature | C::BadEncoding => "its signature or encoding is invalid".to_string(),
                C::Expired | C::ExpiredContext { .. } => "it has expired".to_string(),
                C::NotValidYet | C::NotValidYetContext { .. } => {
                    "it is not valid yet (check this machine's clock)".to_string()
                }
                C::NotValidForName | C::NotValidForNameContext { .. } => {
                    "it is not valid for the server's name in the kubeconfig (set tls-server-name, or use the name the certificate names)".to_string()
                }
                C::Revoked => "it has been revoked".to_string(),
                other => format!("rustls refused it ({other:?})"),
            });
        }
        current = err.source();
    }
    None
}

pub(crate) fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last: &(dyn std::error::Error + 'static) = e;
    while let Some(s) = last.source() {
        last = s;
    }
    let inner = last.to_string();
    let outer = e.to_string();
    if std::ptr::addr_eq(last, e) || outer.contains(&inner) { outer } else { inner }
}

fn chain_has_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return true;
        }
        if err.to_string().contains("timed out") || err.to_string().contains("deadline has elapsed") {
            return true;
        }
        current = err.source();
    }
    false
}
