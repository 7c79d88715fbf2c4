//! A connection to one API server: a `kube::Client` built from a kubeconfig (a file, the
//! default locations, a context) or the in-cluster service account, and raw JSON requests with
//! a timeout on every call.
//!
//! Objects are read as JSON, not as k8s-openapi structs: HPAs go to hpa-core's strict decoder
//! as the JSON text the API server wrote ([`crate::object::LiveObject`]), and every other object
//! to hpa-core's builders, which read trees (`serde_json::Value`).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use kube::client::{ClientBuilder, DynBody};
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use serde_json::Value;

use crate::error::Error;
use crate::token::{BearerLayer, TokenFile};

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
    /// A kubeconfig file (`--kubeconfig`). `None`: the files of `KUBECONFIG`
    /// ([`Environment::kubeconfig`]), else `~/.kube/config`, then the in-cluster service account.
    pub kubeconfig: Option<PathBuf>,
    /// The context to use (`--context`); `None`: the kubeconfig's current context.
    pub context: Option<String>,
    /// The in-cluster service account only, ignoring any kubeconfig.
    pub in_cluster: bool,
    /// The timeout of every call (connect, send, whole answer).
    pub timeout: Duration,
    /// The environment variables kubectl's loading rules and client-go's transport read
    /// (`KUBECONFIG`, the proxy variables), as the binary's arguments got them.
    pub environment: Environment,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            kubeconfig: None,
            context: None,
            in_cluster: false,
            timeout: DEFAULT_TIMEOUT,
            environment: Environment::default(),
        }
    }
}

/// The environment variables a connection reads as kubectl reads them, declared as hidden
/// arguments: a binary flattens this into its `Args` (`#[command(flatten)]`), so that clap
/// reads them with every other variable the binary declares, and hpa-cluster reads none itself
/// (`Environment::default()`: none set). What kube reads of the environment on its own (`HOME`
/// for `~/.kube/config`, the in-cluster `KUBERNETES_SERVICE_HOST` and `_PORT`) stays with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct Environment {
    /// `KUBECONFIG`: the kubeconfig files to merge when no file is given (the platform's path
    /// list: `a:b` on Unix).
    #[arg(id = "env-kubeconfig", long = "env-kubeconfig", env = "KUBECONFIG", hide = true, hide_env_values = true)]
    pub kubeconfig: Option<std::ffi::OsString>,
    /// `HTTPS_PROXY`: the proxy of an `https` server.
    #[arg(id = "env-https-proxy", long = "env-https-proxy", env = "HTTPS_PROXY", hide = true, hide_env_values = true)]
    pub https_proxy: Option<String>,
    /// `https_proxy`, read when `HTTPS_PROXY` is unset or empty.
    #[arg(
        id = "env-https-proxy-lowercase",
        long = "env-https-proxy-lowercase",
        env = "https_proxy",
        hide = true,
        hide_env_values = true
    )]
    pub https_proxy_lowercase: Option<String>,
    /// `HTTP_PROXY`: the proxy of an `http` server.
    #[arg(id = "env-http-proxy", long = "env-http-proxy", env = "HTTP_PROXY", hide = true, hide_env_values = true)]
    pub http_proxy: Option<String>,
    /// `http_proxy`, read when `HTTP_PROXY` is unset or empty.
    #[arg(
        id = "env-http-proxy-lowercase",
        long = "env-http-proxy-lowercase",
        env = "http_proxy",
        hide = true,
        hide_env_values = true
    )]
    pub http_proxy_lowercase: Option<String>,
    /// `NO_PROXY`: the hosts no proxy is used for.
    #[arg(id = "env-no-proxy", long = "env-no-proxy", env = "NO_PROXY", hide = true, hide_env_values = true)]
    pub no_proxy: Option<String>,
    /// `no_proxy`, read when `NO_PROXY` is unset or empty.
    #[arg(
        id = "env-no-proxy-lowercase",
        long = "env-no-proxy-lowercase",
        env = "no_proxy",
        hide = true,
        hide_env_values = true
    )]
    pub no_proxy_lowercase: Option<String>,
}

impl Environment {
    /// The value of a variable as httpproxy's `getEnvAny` reads it: the first of its spellings
    /// that is set and not empty.
    fn any(spellings: [&Option<String>; 2]) -> Option<&str> {
        spellings.into_iter().find_map(|v| v.as_deref().filter(|v| !v.is_empty()))
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
    /// The user's token file, read again as it rotates (taken out of `config`).
    token: Option<Arc<TokenFile>>,
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
        let in_cluster_origin = PathBuf::from("in-cluster configuration");
        let environment = &options.environment;
        let (config, origin) = if options.in_cluster {
            let mut config = in_cluster()?;
            config.proxy_url = environment_proxy(&config.cluster_url, environment)?;
            (config, in_cluster_origin)
        } else {
            let (kubeconfig, path) = match &options.kubeconfig {
                Some(path) => match Kubeconfig::read_from(path) {
                    Ok(k) => (k, path.clone()),
                    Err(e) => return Err(kubeconfig_error(path.clone(), &e)),
                },
                None => match kubeconfig_from_list(environment.kubeconfig.clone())? {
                    Some(k) => (k, PathBuf::from("$KUBECONFIG")),
                    // A list none of whose files exists: client-go's loading rules read no
                    // `~/.kube/config` then (`NewDefaultClientConfigLoadingRules`), in-cluster.
                    None if environment.kubeconfig.as_ref().is_some_and(|list| !list.is_empty()) => {
                        return Cluster::build(in_cluster_or_none(options)?, options.timeout, &in_cluster_origin);
                    }
                    // Unset: `~/.kube/config`, else in-cluster.
                    None => match Kubeconfig::read() {
                        Ok(k) => (k, PathBuf::from("$KUBECONFIG or ~/.kube/config")),
                        Err(KubeconfigError::FindPath) => {
                            return Cluster::build(in_cluster_or_none(options)?, options.timeout, &in_cluster_origin);
                        }
                        Err(KubeconfigError::ReadConfig(e, _)) if e.kind() == std::io::ErrorKind::NotFound => {
                            return Cluster::build(in_cluster_or_none(options)?, options.timeout, &in_cluster_origin);
                        }
                        Err(e) => return Err(kubeconfig_error(PathBuf::from("$KUBECONFIG or ~/.kube/config"), &e)),
                    },
                },
            };
            let contexts: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
            let proxy_url = kubeconfig_proxy(&kubeconfig, options.context.as_deref());
            let origin = path.clone();
            let listed = if contexts.is_empty() { "none".to_string() } else { contexts.join(", ") };
            let mut config = Config::from_custom_kubeconfig(kubeconfig, &kube_options).await.map_err(|e| match e {
                // kubectl's words, and the names to choose from.
                KubeconfigError::LoadContext(name) => Error::Kubeconfig {
                    path,
                    reason: format!("no context exists with the name \"{name}\" (its contexts: {listed})"),
                },
                // kubectl then talks to no cluster at all (`localhost:8080`): say which to choose.
                KubeconfigError::CurrentContextNotSet => Error::Kubeconfig {
                    path,
                    reason: format!("it sets no current-context: pass --context (its contexts: {listed})"),
                },
                e => kubeconfig_error(path, &e),
            })?;
            // kube reads `proxy-url` itself; without one, the environment as client-go reads it.
            if proxy_url.is_none() {
                config.proxy_url = environment_proxy(&config.cluster_url, environment)?;
            }
            (config, origin)
        };
        Cluster::build(config, options.timeout, &origin)
    }

    /// Builds the client from a kube `Config`, with `timeout` on connecting and on every call.
    pub fn from_config(config: Config, timeout: Duration) -> Result<Cluster, Error> {
        Cluster::build(config, timeout, Path::new("(the configuration given)"))
    }

    /// [`Cluster::from_config`], naming `origin` (the kubeconfig file, `in-cluster
    /// configuration`) when what the configuration points to cannot be loaded (a client
    /// certificate, key or certificate authority file that is missing or invalid).
    fn build(mut config: Config, timeout: Duration, origin: &Path) -> Result<Cluster, Error> {
        let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
        if let Some(reason) = unusable_tls(&config) {
            return Err(Error::Kubeconfig { path: origin.to_path_buf(), reason });
        }
        config.connect_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
        // No read timeout on the connection: watches (the webhook's caches) stay open for minutes
        // between events. Every one-shot call is bounded as a whole by `timeout` instead.
        config.read_timeout = None;
        let default_namespace = config.default_namespace.clone();
        let credentials = CredentialSource::of(&config);
        let token = TokenFile::take(&mut config)
            .map_err(|e| Error::Credentials { server: server.clone(), reason: e.to_string() })?
            .map(Arc::new);
        // No client of ours keeps kube's own retry (429, 503 and 504 with a backoff from 5 ms up
        // to 1000 s, 15 times): one-shot calls retry as client-go does (`get_text`), within their
        // timeout, and the watches' client (`client_builder`) through `RetryAfterPolicy`.
        config.default_retry = false;
        let one_shot = config.clone();
        let one_shot_proxy = config.proxy_url.clone();
        let client =
            layered(one_shot, token.as_ref()).map(ClientBuilder::build).map_err(|e| match (&e, auth_error(&e)) {
                (kube::Error::InferKubeconfig(k), _) => {
                    Error::Kubeconfig { path: origin.to_path_buf(), reason: unloadable_file(k) }
                }
                (_, Some(auth)) => Error::Credentials { server: server.clone(), reason: credentials.failure(auth) },
                (_, None) => unreachable(server.clone(), one_shot_proxy.as_ref(), &e),
            })?;
        Ok(Cluster { client, config, token, server, default_namespace, timeout, credentials })
    }

    /// A builder of another client like [`Cluster::client`] (same server, credentials and
    /// timeouts), to which a layer can be added: the context cache observes its watches'
    /// responses this way (`watch::heartbeat`). An answer that asks to be repeated is repeated as
    /// client-go's `rest.Request` repeats it ([`RetryAfterPolicy`]). Call it within a tokio
    /// runtime: the client's requests are dispatched by a task spawned on it.
    pub(crate) fn client_builder(&self) -> Result<ClientBuilder<GenericService>, Error> {
        let builder = layered(self.config.clone(), self.token.as_ref()).map_err(|e| match auth_error(&e) {
            Some(auth) => Error::Credentials { server: self.server.clone(), reason: self.credentials.failure(auth) },
            None => unreachable(self.server.clone(), self.config.proxy_url.as_ref(), &e),
        })?;
        // The retry sends a request again through the same stack: the buffer makes it shareable.
        Ok(builder
            .with_layer(&tower::buffer::BufferLayer::new(RETRY_BUFFER))
            .with_layer(&tower::retry::RetryLayer::new(RetryAfterPolicy::default()))
            .with_layer(&tower::util::BoxService::layer()))
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

    /// The same client (one connection pool) with another timeout for every call: the webhook's
    /// reads at admission are bounded well below kube-apiserver's wait for its answer.
    pub fn with_timeout(&self, timeout: Duration) -> Cluster {
        Cluster { timeout, ..self.clone() }
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
            let answer = self.bounded_until(deadline, doing, GetAnswer::get(&self.client, request)).await?;
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
                    404 => Error::NotFound { what: what.into(), message },
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
                    unreachable(server, self.config.proxy_url.as_ref(), &other)
                }
            }
        }
    }
}

/// One answer to a `GET`, read whole: the body's text, or the failure as kube-client's
/// `handle_api_errors` reads it (a `Status`, or one made of a body that is not one); and the
/// wait the server asked for before a retry (client-go's `checkWait`: `Retry-After` in whole
/// seconds on a 429 or a 5xx).
struct GetAnswer {
    /// The text, or the failure.
    text: Result<String, Box<kube::core::Status>>,
    /// `Retry-After`, when the answer may be retried.
    retry_after: Option<Duration>,
}

impl GetAnswer {
    /// Sends `request` and reads the answer.
    async fn get(client: &Client, request: http::Request<kube::client::Body>) -> Result<GetAnswer, kube::Error> {
        use http_body_util::BodyExt as _;
        let path = request.uri().path().to_string();
        let response = client.send(request).await?;
        let code = response.status();
        let is_text = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|t| t.to_str().ok())
            .is_some_and(|t| t.starts_with("text/"));
        let retry_after = retry_after(&response);
        let bytes = response.into_body().collect().await?.to_bytes();
        let text = String::from_utf8(bytes.to_vec()).map_err(kube::Error::FromUtf8)?;
        if !(code.is_client_error() || code.is_server_error()) {
            return Ok(GetAnswer { text: Ok(text), retry_after });
        }
        let status = serde_json::from_str::<kube::core::Status>(&text)
            .unwrap_or_else(|_| generic_server_response(code.as_u16(), &path, is_text.then_some(text.trim())));
        Ok(GetAnswer { text: Err(Box::new(status)), retry_after })
    }
}

/// The wait an answer asks for before its request is sent again: `Retry-After` in whole seconds
/// on a 429 or a 5xx (client-go's `checkWait`); `None` when it is not to be repeated.
fn retry_after<B>(response: &http::Response<B>) -> Option<Duration> {
    let code = response.status();
    if code != http::StatusCode::TOO_MANY_REQUESTS && !code.is_server_error() {
        return None;
    }
    let seconds = response.headers().get(http::header::RETRY_AFTER)?.to_str().ok()?.trim().parse::<u64>().ok()?;
    Some(Duration::from_secs(seconds))
}

/// How many requests of the watches' client wait for the stack at once ([`Cluster::client_builder`]).
const RETRY_BUFFER: usize = 64;

/// The watches' retry, as client-go's `rest.Request` retries a list or a watch
/// (`withRetry.IsNextRetry`, `rest/with_retry.go`): an answer that names its wait ([`retry_after`]:
/// kube-apiserver's API Priority and Fairness and max-in-flight filters answer 429 with
/// `Retry-After: 1`, a shutting-down kube-apiserver 429 with `Retry-After: 5`) is asked again after
/// exactly that wait, at most [`MAX_RETRIES`] times; any other answer goes to the caller, whose own
/// backoff decides (the cache's watch backoff: at most 2.5 s). kube-client's default retry (429,
/// 503 and 504, the server's wait only as a floor under a backoff doubling from 5 ms to 1000 s,
/// 15 times) kept a watch asleep long after the server answered again: the view stayed stale for
/// 22 s after a 60 s throttle, 31 s after 60 s of 503s.
#[derive(Debug, Clone, Default)]
pub(crate) struct RetryAfterPolicy {
    /// Retries of this request so far.
    retries: u32,
}

impl<B> tower::retry::Policy<http::Request<kube::client::Body>, http::Response<B>, tower::BoxError>
    for RetryAfterPolicy
{
    type Future = tokio::time::Sleep;

    fn retry(
        &mut self,
        _request: &mut http::Request<kube::client::Body>,
        result: &mut Result<http::Response<B>, tower::BoxError>,
    ) -> Option<Self::Future> {
        let wait = retry_after(result.as_ref().ok()?)?;
        if self.retries >= MAX_RETRIES {
            return None;
        }
        self.retries += 1;
        Some(tokio::time::sleep(wait))
    }

    fn clone_request(
        &mut self,
        request: &http::Request<kube::client::Body>,
    ) -> Option<http::Request<kube::client::Body>> {
        let mut copy = http::Request::new(request.body().try_clone()?);
        *copy.method_mut() = request.method().clone();
        *copy.uri_mut() = request.uri().clone();
        *copy.version_mut() = request.version();
        *copy.headers_mut() = request.headers().clone();
        *copy.extensions_mut() = request.extensions().clone();
        Some(copy)
    }
}

/// The failure of a `GET` of `path` whose answer is not a `Status` (a proxy's or an aggregated
/// API's plain text: kube-aggregator answers `service unavailable` for an APIService that is
/// down), as client-go makes it: `NewGenericServerResponse` (apimachinery
/// `pkg/api/errors/errors.go`), called by `Request.newUnstructuredResponseError` with the
/// request's verb, resource and name, the body as the server's message when it is text
/// (`unknown` otherwise). Its message is what the HPA controller records: `the server is
/// currently unable to handle the request (get pods.metrics.k8s.io)`.
fn generic_server_response(code: u16, path: &str, text: Option<&str>) -> kube::core::Status {
    let server_message = text.unwrap_or("unknown");
    let (reason, message) = match code {
        409 => ("Conflict", "the server reported a conflict".to_string()),
        404 => ("NotFound", "the server could not find the requested resource".to_string()),
        400 => ("BadRequest", "the server rejected our request for an unknown reason".to_string()),
        401 => ("Unauthorized", "the server has asked for the client to provide credentials".to_string()),
        403 => ("Forbidden", server_message.to_string()),
        406 if server_message.is_empty() || server_message == "unknown" => (
            "NotAcceptable",
            "the server was unable to respond with a content type that the client supports".to_string(),
        ),
        406 => ("NotAcceptable", server_message.to_string()),
        415 => ("UnsupportedMediaType", server_message.to_string()),
        405 => ("MethodNotAllowed", "the server does not allow this method on the requested resource".to_string()),
        422 => ("Invalid", "the server rejected our request due to an error in our request".to_string()),
        503 => ("ServiceUnavailable", "the server is currently unable to handle the request".to_string()),
        504 => (
            "Timeout",
            "the server was unable to return a response in the time allotted, but may still be processing the request"
                .to_string(),
        ),
        429 => (
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later".to_string(),
        ),
        500.. => (
            "InternalError",
            format!(
                "an error on the server ({}) has prevented the request from succeeding",
                hpa_core::go::quote(server_message)
            ),
        ),
        _ => ("", format!("the server responded with the status code {code} but did not return more information")),
    };
    let message = match request_resource(path) {
        Some((resource, Some(name))) => format!("{message} (get {resource} {name})"),
        Some((resource, None)) => format!("{message} (get {resource})"),
        None => message,
    };
    kube::core::Status::failure(&message, reason).with_code(code)
}

/// The resource (`pods.metrics.k8s.io`, `deployments.apps`, `pods`) and name a request's path
/// names, as client-go's `Request` holds them (`resource`, `resourceName`; a subresource is
/// not part of it); `None` for a path of no resource (discovery).
fn request_resource(path: &str) -> Option<(String, Option<&str>)> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segments.as_slice() {
        ["api", _version, rest @ ..] => ("", rest),
        ["apis", group, _version, rest @ ..] => (*group, rest),
        _ => return None,
    };
    let rest = match rest {
        ["namespaces", namespace] => return Some((qualified("namespaces", group), Some(namespace))),
        ["namespaces", _namespace, rest @ ..] => rest,
        rest => rest,
    };
    let (resource, name) = match rest {
        [resource, name, ..] => (*resource, Some(*name)),
        [resource] => (*resource, None),
        [] => return None,
    };
    Some((qualified(resource, group), name))
}

/// `GroupResource.String()`: `resource.group`, or `resource` in the core group.
fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") }
}

/// What the kubeconfig points to that cannot be loaded, naming its field and file (kube's text
/// shows the path in Rust's debug form).
fn unloadable_file(e: &KubeconfigError) -> String {
    use kube::config::LoadDataError;
    let (what, field, data) = match e {
        KubeconfigError::LoadClientCertificate(d) => {
            ("the user's client certificate", "users[].user.client-certificate", d)
        }
        KubeconfigError::LoadClientKey(d) => ("the user's client key", "users[].user.client-key", d),
        KubeconfigError::LoadCertificateAuthority(d) => {
            ("the cluster's certificate authority", "clusters[].cluster.certificate-authority", d)
        }
        other => return chain(other),
    };
    match data {
        LoadDataError::ReadFile(io, path) => {
            format!("cannot read {what} {} ({io}): fix {field}, or log in again to write it", path.display())
        }
        other => format!("cannot load {what} ({}): fix {field}", chain(other)),
    }
}

/// `("list", "deployments.apps in namespace shop")` from `"listing deployments.apps in
/// namespace shop"` (`"discovering the API groups"`: `("get", "the API groups")`): the verb
/// RBAC speaks of and the object of a call's description.
fn split_doing(doing: &str) -> (&str, &str) {
    if let Some(what) = doing.strip_prefix("listing ") {
        ("list", what)
    } else if let Some(what) = doing.strip_prefix("reading ") {
        ("get", what)
    } else if let Some(what) = doing.strip_prefix("discovering ") {
        // Discovery reads `/api`, `/apis` and each group's version (non-resource URLs).
        ("get", what)
    } else {
        ("read", doing)
    }
}

/// kube's client stack for `config`, with the token file's token set on each request when the
/// user has one ([`TokenFile`], taken out of `config`, read again as it rotates).
fn layered(config: Config, token: Option<&Arc<TokenFile>>) -> Result<ClientBuilder<GenericService>, kube::Error> {
    let builder = ClientBuilder::try_from(config)?;
    Ok(match token {
        Some(token) => builder.with_layer(&BearerLayer(token.clone())).with_layer(&tower::util::BoxService::layer()),
        None => builder,
    })
}

/// A `$KUBECONFIG` list of files read as kubectl's loading rules read it
/// (`ClientConfigLoadingRules.Load` in client-go's `tools/clientcmd/loader.go`): each file in
/// order, one that does not exist skipped, the others merged (the first file to set a map key
/// wins, `Kubeconfig::merge`); `None` when the list is unset, empty, or names no file that
/// exists (kube's own reader stops at the first missing file and loses the whole list).
fn kubeconfig_from_list(list: Option<std::ffi::OsString>) -> Result<Option<Kubeconfig>, Error> {
    let Some(list) = list else { return Ok(None) };
    let mut merged: Option<Kubeconfig> = None;
    for path in std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()) {
        let next = match Kubeconfig::read_from(&path) {
            Ok(k) => k,
            Err(KubeconfigError::ReadConfig(io, _)) if io.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(kubeconfig_error(path, &e)),
        };
        merged = Some(match merged {
            Some(m) => m.merge(next).map_err(|e| kubeconfig_error(path, &e))?,
            None => next,
        });
    }
    Ok(merged)
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
    let mut config = Config::incluster().map_err(|_| none())?;
    config.proxy_url = environment_proxy(&config.cluster_url, &options.environment)?;
    Ok(config)
}

/// What client-go refuses in a cluster's TLS settings before any request (`TLSConfigFor` and
/// `rootCertPool` in `transport/transport.go`), which kube takes: a certificate authority with
/// `insecure-skip-tls-verify` (kube would skip verification), and a certificate authority that
/// holds no PEM certificate (kube would trust nothing, and every server's certificate would
/// read as signed by another authority).
fn unusable_tls(config: &Config) -> Option<String> {
    match &config.root_cert {
        Some(_) if config.accept_invalid_certs => Some(
            "specifying a root certificates file with the insecure flag is not allowed: remove clusters[].cluster.insecure-skip-tls-verify, or its certificate-authority and certificate-authority-data".to_string(),
        ),
        Some(certificates) if certificates.is_empty() => Some(
            "cannot load the cluster's certificate authority (unable to load root certificates: unable to parse bytes as PEM block): fix clusters[].cluster.certificate-authority or certificate-authority-data".to_string(),
        ),
        _ => None,
    }
}

fn kubeconfig_error(path: PathBuf, e: &KubeconfigError) -> Error {
    if matches!(
        e,
        KubeconfigError::LoadClientCertificate(_)
            | KubeconfigError::LoadClientKey(_)
            | KubeconfigError::LoadCertificateAuthority(_)
    ) {
        return Error::Kubeconfig { path, reason: unloadable_file(e) };
    }
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
/// the server's certificate, [`Error::Proxy`] when the proxy could not be reached or would not
/// open the tunnel (hyper-util's `tunnel error: ...` and `SOCKS error: ...`),
/// [`Error::Unreachable`] otherwise.
fn unreachable(server: String, proxy: Option<&http::Uri>, e: &(dyn std::error::Error + 'static)) -> Error {
    if let Some(reason) = untrusted_certificate(e) {
        return Error::UntrustedCertificate { server, reason };
    }
    match (proxy, proxy_failure(e)) {
        (Some(proxy), Some(failure)) => Error::Proxy { server, proxy: without_userinfo(proxy), reason: chain(failure) },
        _ => Error::Unreachable { server, reason: innermost(e) },
    }
}

/// The error of the chain that says the connection failed at the proxy: hyper-util's tunnel
/// (`tunnel error: ...`) or SOCKS (`SOCKS error: ...`) connector's, or one that wraps its text.
fn proxy_failure<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a (dyn std::error::Error + 'static)> {
    let mut current = Some(e);
    while let Some(err) = current {
        let text = err.to_string();
        if text.starts_with("tunnel error: ") || text.starts_with("SOCKS error: ") {
            return Some(err);
        }
        current = err.source();
    }
    None
}

/// A proxy URL without its credentials (`user:password@`), to show.
fn without_userinfo(proxy: &http::Uri) -> String {
    let text = proxy.to_string();
    match proxy.authority().map(|a| a.as_str()).and_then(|a| a.rsplit_once('@')) {
        Some((userinfo, _)) => text.replacen(&format!("{userinfo}@"), "", 1),
        None => text,
    }
}

/// The `proxy-url` of the cluster the kubeconfig's context (`context`, else its current one)
/// names, when it sets one: client-go uses it for every request, whatever the environment says.
fn kubeconfig_proxy(kubeconfig: &Kubeconfig, context: Option<&str>) -> Option<String> {
    let context = context.or(kubeconfig.current_context.as_deref())?;
    let cluster = kubeconfig.contexts.iter().find(|c| c.name == context)?.context.as_ref()?.cluster.as_str();
    let named = kubeconfig.clusters.iter().find(|c| c.name == cluster)?;
    named.cluster.as_ref()?.proxy_url.clone().filter(|p| !p.is_empty())
}

/// The proxy of the environment for `server` ([`proxy_for`]).
fn environment_proxy(server: &http::Uri, environment: &Environment) -> Result<Option<http::Uri>, Error> {
    proxy_for(server, environment).map_err(|(proxy, reason)| Error::Proxy {
        server: server.to_string().trim_end_matches('/').to_string(),
        proxy,
        reason,
    })
}

/// The proxy client-go's default transport uses for `server` when the kubeconfig sets no
/// `proxy-url`: Go's `http.ProxyFromEnvironment` (`golang.org/x/net/http/httpproxy`,
/// `Config.ProxyFunc`, `FromEnvironment`). `HTTPS_PROXY` (else `https_proxy`) for an `https`
/// server, `HTTP_PROXY` (else `http_proxy`) for an `http` one; none for `localhost` and
/// loopback addresses, nor for a server `NO_PROXY` (else `no_proxy`) names. A proxy without a
/// scheme is `http://`. The error: the proxy text and why it is unusable.
fn proxy_for(server: &http::Uri, environment: &Environment) -> Result<Option<http::Uri>, (String, String)> {
    let e = environment;
    let proxy = match server.scheme_str() {
        Some("https") => Environment::any([&e.https_proxy, &e.https_proxy_lowercase]),
        Some("http") => Environment::any([&e.http_proxy, &e.http_proxy_lowercase]),
        _ => None,
    };
    let Some(proxy) = proxy else { return Ok(None) };
    let host = server.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    let port = server.port_u16().unwrap_or(if server.scheme_str() == Some("https") { 443 } else { 80 });
    if !use_proxy(&host, port, Environment::any([&e.no_proxy, &e.no_proxy_lowercase]).unwrap_or_default()) {
        return Ok(None);
    }
    // `parseProxy`: a proxy without a scheme or host is tried with `http://`.
    let parsed =
        proxy.parse::<http::Uri>().ok().filter(|u| u.scheme().is_some() && u.host().is_some_and(|h| !h.is_empty()));
    match parsed.or_else(|| format!("http://{proxy}").parse::<http::Uri>().ok()) {
        Some(uri) => Ok(Some(uri)),
        None => Err((proxy.to_string(), "it is not a URL".to_string())),
    }
}

/// Whether a request to `host:port` goes through the proxy: httpproxy's `useProxy`. Never for
/// `localhost` or a loopback address; not for a host `no_proxy` names: `*`, an IP address or
/// CIDR range, a domain (`example.com` also matches its subdomains; `.example.com` and
/// `*.example.com` only those), each with an optional `:port`.
fn use_proxy(host: &str, port: u16, no_proxy: &str) -> bool {
    let ip = host.parse::<std::net::IpAddr>().ok();
    if host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()) {
        return false;
    }
    let port = port.to_string();
    for entry in no_proxy.split(',').map(|e| e.trim().to_ascii_lowercase()).filter(|e| !e.is_empty()) {
        if entry == "*" {
            return false;
        }
        if let Some((network, bits)) = entry.split_once('/') {
            if let (Ok(network), Ok(bits), Some(ip)) = (network.parse::<std::net::IpAddr>(), bits.parse::<u32>(), ip)
                && cidr_contains(network, bits, ip)
            {
                return false;
            }
            continue;
        }
        // `host:port` and `[v6]:port`; a bare IPv6 address has colons but no port.
        let (entry_host, entry_port) = match entry.rsplit_once(':') {
            Some((h, p)) if entry.parse::<std::net::IpAddr>().is_err() && p.parse::<u16>().is_ok() => {
                (h.trim_start_matches('[').trim_end_matches(']'), Some(p))
            }
            _ => (entry.as_str(), None),
        };
        let port_matches = entry_port.is_none_or(|p| p == port);
        if let Ok(entry_ip) = entry_host.parse::<std::net::IpAddr>() {
            if ip == Some(entry_ip) && port_matches {
                return false;
            }
            continue;
        }
        if entry_host.is_empty() {
            continue;
        }
        let suffix = entry_host.strip_prefix('*').unwrap_or(entry_host);
        let (suffix, exact) = match suffix.strip_prefix('.') {
            Some(_) => (suffix.to_string(), false),
            None => (format!(".{suffix}"), true),
        };
        if (host.ends_with(&suffix) || (exact && host == &suffix[1..])) && port_matches {
            return false;
        }
    }
    true
}

/// Whether `ip` is in the network `network/bits` (both of one family).
fn cidr_contains(network: std::net::IpAddr, bits: u32, ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr::{V4, V6};
    let masked = |a: u128, width: u32| if bits == 0 { 0 } else { a >> (width - bits.min(width)) };
    match (network, ip) {
        (V4(n), V4(i)) if bits <= 32 => masked(u32::from(n).into(), 32) == masked(u32::from(i).into(), 32),
        (V6(n), V6(i)) if bits <= 128 => masked(u128::from(n), 128) == masked(u128::from(i), 128),
        _ => false,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `http.ProxyFromEnvironment`: the variable of the server's scheme, uppercase first; none
    /// for loopback or a `NO_PROXY` match; `http://` when the proxy has no scheme.
    #[test]
    fn proxies_from_the_environment() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            let var = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
            Environment {
                kubeconfig: None,
                https_proxy: var("HTTPS_PROXY"),
                https_proxy_lowercase: var("https_proxy"),
                http_proxy: var("HTTP_PROXY"),
                http_proxy_lowercase: var("http_proxy"),
                no_proxy: var("NO_PROXY"),
                no_proxy_lowercase: var("no_proxy"),
            }
        };
        let proxy = |server: &str, vars: &'static [(&'static str, &'static str)]| {
            proxy_for(&server.parse().unwrap(), &env(vars)).map(|p| p.map(|u| u.to_string()))
        };
        let corp: &[(&str, &str)] = &[("HTTPS_PROXY", "http://proxy.corp:3128"), ("https_proxy", "http://lower:1")];
        assert_eq!(proxy("https://10.0.0.1:6443", corp), Ok(Some("http://proxy.corp:3128/".into())));
        // An http server reads HTTP_PROXY only; loopback and localhost are never proxied.
        assert_eq!(proxy("http://10.0.0.1:8080", corp), Ok(None));
        assert_eq!(proxy("https://127.0.0.1:6443", corp), Ok(None));
        assert_eq!(proxy("https://localhost:6443", corp), Ok(None));
        assert_eq!(proxy("https://[::1]:6443", corp), Ok(None));
        assert_eq!(
            proxy("https://10.0.0.1", &[("https_proxy", "socks5://s:1080")]),
            Ok(Some("socks5://s:1080/".into()))
        );
        assert_eq!(
            proxy("https://10.0.0.1", &[("HTTPS_PROXY", "proxy.corp:3128")]),
            Ok(Some("http://proxy.corp:3128/".into()))
        );
        assert_eq!(
            proxy("https://10.0.0.1", &[("HTTPS_PROXY", "http://a b")]),
            Err(("http://a b".into(), "it is not a URL".into()))
        );
        // An empty variable is unset (`getEnvAny`): the lowercase spelling is read.
        assert_eq!(
            proxy("https://10.0.0.1", &[("HTTPS_PROXY", ""), ("https_proxy", "http://lower:1")]),
            Ok(Some("http://lower:1/".into()))
        );
        let with_no_proxy = |no_proxy: &'static str, server: &str| {
            let vars: &'static [(&str, &str)] =
                Box::leak(Box::new([("HTTPS_PROXY", "http://proxy.corp:3128"), ("NO_PROXY", no_proxy)]));
            proxy(server, vars).unwrap().is_none()
        };
        assert!(with_no_proxy("*", "https://api.example.com"));
        assert!(with_no_proxy("10.0.0.0/8", "https://10.1.2.3:6443"));
        assert!(!with_no_proxy("10.0.0.0/8", "https://11.1.2.3:6443"));
        assert!(with_no_proxy("10.1.2.3", "https://10.1.2.3:6443"));
        assert!(with_no_proxy("10.1.2.3:6443", "https://10.1.2.3:6443"));
        assert!(!with_no_proxy("10.1.2.3:443", "https://10.1.2.3:6443"));
        assert!(with_no_proxy(" other.org , example.com", "https://api.example.com"));
        assert!(with_no_proxy("example.com", "https://example.com"));
        assert!(!with_no_proxy(".example.com", "https://example.com"));
        assert!(with_no_proxy("*.example.com", "https://api.example.com"));
        assert!(!with_no_proxy("ample.com", "https://api.example.com"));
        assert!(with_no_proxy("fd00::/8", "https://[fd00::1]:6443"));
        assert!(with_no_proxy("[fd00::1]:6443", "https://[fd00::1]:6443"));
    }

    /// `KUBECONFIG=missing.yaml:a.yaml:b.yaml`: the missing file skipped, the others merged
    /// (the first to name a context wins); a list of missing files is no kubeconfig.
    #[test]
    fn a_kubeconfig_list_skips_missing_files() {
        let dir = std::env::temp_dir().join(format!("hpa-cluster-kubeconfig-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = |name: &str, context: &str, namespace: &str| {
            let path = dir.join(name);
            std::fs::write(
                &path,
                format!(
                    "apiVersion: v1\nkind: Config\ncurrent-context: {context}\nclusters:\n- name: {context}\n  cluster: {{server: \"https://{context}.example:6443\"}}\ncontexts:\n- name: {context}\n  context: {{cluster: {context}, user: u, namespace: {namespace}}}\n- name: shared\n  context: {{cluster: {context}, user: u, namespace: {namespace}}}\nusers:\n- name: u\n  user: {{token: t}}\n"
                ),
            )
            .unwrap();
            path
        };
        let (a, b) = (file("a.yaml", "a", "from-a"), file("b.yaml", "b", "from-b"));
        let missing = dir.join("missing.yaml");
        let list = std::env::join_paths([&missing, &a, &b]).unwrap();
        let merged = kubeconfig_from_list(Some(list)).unwrap().unwrap();
        assert_eq!(merged.current_context.as_deref(), Some("a"));
        let contexts: Vec<&str> = merged.contexts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(contexts, ["a", "shared", "b"]);
        let shared = merged.contexts.iter().find(|c| c.name == "shared").unwrap();
        assert_eq!(shared.context.as_ref().unwrap().namespace.as_deref(), Some("from-a"));
        assert!(kubeconfig_from_list(Some(std::env::join_paths([&missing]).unwrap())).unwrap().is_none());
        assert!(kubeconfig_from_list(None).unwrap().is_none());
        std::fs::write(&b, "clusters: [").unwrap();
        let e = kubeconfig_from_list(Some(std::env::join_paths([&missing, &a, &b]).unwrap())).unwrap_err();
        assert!(e.to_string().starts_with(&format!("cannot use kubeconfig {}: ", b.display())), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An answer that is no `Status` is worded as client-go words it (`NewGenericServerResponse`),
    /// with the resource and name of the request.
    #[test]
    fn plain_failures_read_as_client_go_words_them() {
        let failure = |code, path, text| {
            let s = generic_server_response(code, path, text);
            (s.code, s.reason, s.message)
        };
        assert_eq!(
            failure(503, "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods", Some("service unavailable")),
            (
                503,
                "ServiceUnavailable".into(),
                "the server is currently unable to handle the request (get pods.metrics.k8s.io)".into()
            )
        );
        assert_eq!(
            failure(502, "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/rps", Some("bad \"gateway\"")),
            (
                502,
                "InternalError".into(),
                "an error on the server (\"bad \\\"gateway\\\"\") has prevented the request from succeeding (get pods.custom.metrics.k8s.io *)".into()
            )
        );
        assert_eq!(
            failure(500, "/apis/apps/v1/namespaces/shop/deployments/web/scale", None).2,
            "an error on the server (\"unknown\") has prevented the request from succeeding (get deployments.apps web)"
        );
        assert_eq!(
            failure(404, "/api/v1/namespaces/shop", None).2,
            "the server could not find the requested resource (get namespaces shop)"
        );
        assert_eq!(
            failure(418, "/apis", None).2,
            "the server responded with the status code 418 but did not return more information"
        );
        assert_eq!(failure(403, "/api/v1/pods", Some("no")).2, "no (get pods)");
    }

    /// A refusal of discovery reads as a sentence: RBAC refused to get the API groups.
    #[test]
    fn discovery_refusals_are_worded() {
        assert_eq!(split_doing("discovering the API groups"), ("get", "the API groups"));
        assert_eq!(
            split_doing("listing deployments.apps in namespace shop"),
            ("list", "deployments.apps in namespace shop")
        );
        let (verb, what) = split_doing("discovering the API groups");
        let e = Error::Forbidden {
            verb: verb.into(),
            what: what.into(),
            message: "forbidden: User \"u\" cannot get path \"/apis\"".into(),
        };
        assert_eq!(
            e.to_string(),
            "RBAC refused to get the API groups: forbidden: User \"u\" cannot get path \"/apis\"; ask for read access (get, list) to it"
        );
    }

    /// The watches' retry repeats what client-go's `rest.Request` repeats: a 429 or a 5xx that
    /// names its wait, after exactly that wait, at most `MAX_RETRIES` times; a 503 that names
    /// none (kube-client's default retry repeated it, and any 429 or 504, with its own backoff)
    /// and any other answer go to the watcher.
    #[test]
    fn the_watches_retry_only_what_names_its_wait() {
        use tower::retry::Policy as _;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let _entered = runtime.enter();
        let answer = |code: u16, retry_after: Option<&str>| {
            let mut response = http::Response::builder().status(code);
            if let Some(wait) = retry_after {
                response = response.header("Retry-After", wait);
            }
            Ok::<_, tower::BoxError>(response.body(()).unwrap())
        };
        let request =
            || http::Request::get("/apis/apps/v1/deployments?watch=true").body(kube::client::Body::empty()).unwrap();
        let waits = |policy: &mut RetryAfterPolicy, code: u16, retry_after: Option<&str>| {
            let start = tokio::time::Instant::now();
            policy.retry(&mut request(), &mut answer(code, retry_after)).map(|sleep| sleep.deadline() - start)
        };
        let mut policy = RetryAfterPolicy::default();
        for (code, retry_after) in [(429, Some("1")), (503, Some(" 5 ")), (500, Some("2"))] {
            let wait = waits(&mut policy, code, retry_after).unwrap();
            let named = Duration::from_secs(retry_after.unwrap().trim().parse().unwrap());
            assert!(wait >= named && wait < named + Duration::from_millis(100), "{code}: {wait:?}");
        }
        let mut fresh = RetryAfterPolicy::default();
        for (code, retry_after) in
            [(503, None), (504, None), (429, None), (429, Some("soon")), (404, Some("1")), (200, Some("1"))]
        {
            assert!(waits(&mut fresh, code, retry_after).is_none(), "{code} {retry_after:?}");
        }
        assert!(fresh.retry(&mut request(), &mut Err::<http::Response<()>, _>("refused".into())).is_none());
        // Ten retries, then the answer goes to the watcher.
        let mut policy = RetryAfterPolicy::default();
        for _ in 0..MAX_RETRIES {
            assert!(waits(&mut policy, 429, Some("1")).is_some());
        }
        assert!(waits(&mut policy, 429, Some("1")).is_none());
        // The request is sent again as it was.
        let sent = request();
        let copy =
            tower::retry::Policy::<_, http::Response<()>, tower::BoxError>::clone_request(&mut policy, &sent).unwrap();
        assert_eq!((copy.method(), copy.uri()), (sent.method(), sent.uri()));
    }
}
