//! The bearer token of a token file (a kubeconfig user's `tokenFile`, the in-cluster service
//! account's token), read again while the client runs, as client-go reads it: a token that
//! rotates (a projected service account token, a credential helper that rewrites the file) is
//! picked up within a minute, by the one-shot client and the webhook's watches alike.
//!
//! kube reads a token file itself and again every minute, but takes its text as it is: a token
//! written with `echo` (a trailing newline) is no header value. So the file is taken out of
//! kube's configuration ([`TokenFile::take`]) and its token is set on each request by a tower
//! layer ([`BearerLayer`]) on every client built from the configuration.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{HeaderValue, Request};
use kube::Config;
use tower::{Layer, Service};

/// How long a token read from the file is used before the file is read again: client-go's
/// `fileTokenSource` period (one minute) less `cachingTokenSource`'s leeway (ten seconds),
/// `NewCachedFileTokenSource` in `transport/token_source.go`.
pub(crate) const REFRESH: Duration = Duration::from_secs(50);

/// A token file, its last good token and when it was read.
#[derive(Debug)]
pub(crate) struct TokenFile {
    path: PathBuf,
    /// The last good token and when it was read.
    cached: Mutex<(HeaderValue, Instant)>,
}

impl TokenFile {
    /// Takes the user's token file out of `config` (kube then adds no `Authorization` of its
    /// own) and reads it once: `None` when the user has no token file.
    ///
    /// As client-go (`getUserIdentificationPartialConfig` in `tools/clientcmd/client_config.go`,
    /// then `NewBearerAuthWithRefreshRoundTripper` in `transport/round_trippers.go`): a user
    /// with both `token` and `tokenFile` sends the file's token when the file can be read (and
    /// the inline token, left to kube, when it cannot); a user with a `tokenFile` alone needs it
    /// readable now.
    pub(crate) fn take(config: &mut Config) -> Result<Option<TokenFile>, TokenFileError> {
        let user = &mut config.auth_info;
        let Some(path) = user.token_file.take() else { return Ok(None) };
        let token = match read(Path::new(&path)) {
            Ok(token) => token,
            // kube sends the inline token.
            Err(_) if user.token.is_some() => return Ok(None),
            Err(failure) => return Err(TokenFileError { path, failure }),
        };
        user.token = None;
        Ok(Some(TokenFile { path: PathBuf::from(path), cached: Mutex::new((token, Instant::now())) }))
    }

    /// The header value to send at `now`: the token read last, or, once it is [`REFRESH`] old,
    /// the file read again; a file that cannot be read then keeps the last good token
    /// (`cachingTokenSource.Token`: "Unable to rotate token").
    pub(crate) fn header_at(&self, now: Instant) -> HeaderValue {
        let mut cached = self.cached.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if now.saturating_duration_since(cached.1) >= REFRESH {
            if let Ok(token) = read(&self.path) {
                cached.0 = token;
            }
            // Read or not, not again before the next period (client-go keeps its expired token
            // and tries again at the next request; reading once a period is enough here).
            cached.1 = now;
        }
        cached.0.clone()
    }
}

/// A token file the kubeconfig's user needs and cannot use: its path and why. Its `Display` is
/// the sentence naming the file and the field to fix.
#[derive(Debug, thiserror::Error)]
#[error("{}", .failure.sentence(.path))]
pub(crate) struct TokenFileError {
    /// The file, as the kubeconfig names it.
    path: String,
    /// Why it gives no token.
    failure: ReadFailure,
}

/// Why a token file gives no token.
#[derive(Debug)]
enum ReadFailure {
    /// It cannot be read.
    Io(std::io::Error),
    /// It holds only white space.
    Empty,
    /// Its token holds a character no header carries.
    NotAHeader,
}

impl ReadFailure {
    /// The sentence, naming the file and the field to fix.
    fn sentence(&self, path: &str) -> String {
        match self {
            ReadFailure::Io(io) => format!(
                "cannot read the kubeconfig user's token file {path} ({io}): log in again, or fix users[].user.tokenFile"
            ),
            ReadFailure::Empty => format!(
                "the kubeconfig user's token file {path} is empty (read empty token from file \"{path}\"): log in again, or fix users[].user.tokenFile"
            ),
            ReadFailure::NotAHeader => format!(
                "the kubeconfig user's token file {path} holds a control character inside its token, which no header can carry: log in again, or fix users[].user.tokenFile"
            ),
        }
    }
}

/// The token of a token file as client-go reads it (`fileTokenSource.Token`): the text with the
/// white space around it trimmed (`strings.TrimSpace`), an empty one refused; as the header
/// value `Bearer <token>`, marked sensitive.
fn read(path: &Path) -> Result<HeaderValue, ReadFailure> {
    let text = std::fs::read_to_string(path).map_err(ReadFailure::Io)?;
    let token = text.trim_matches(char::is_whitespace);
    if token.is_empty() {
        return Err(ReadFailure::Empty);
    }
    bearer(token).ok_or(ReadFailure::NotAHeader)
}

/// `Bearer <token>` as a sensitive header value, if the token can be one.
fn bearer(token: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// Sets `Authorization: Bearer <token>` from a [`TokenFile`] on each request that has no
/// `Authorization` yet (client-go's `bearerAuthRoundTripper`).
#[derive(Debug, Clone)]
pub(crate) struct BearerLayer(pub(crate) Arc<TokenFile>);

impl<S> Layer<S> for BearerLayer {
    type Service = Bearer<S>;

    fn layer(&self, inner: S) -> Bearer<S> {
        Bearer { inner, token: self.0.clone() }
    }
}

/// The service [`BearerLayer`] makes.
#[derive(Debug, Clone)]
pub(crate) struct Bearer<S> {
    inner: S,
    token: Arc<TokenFile>,
}

impl<S, B> Service<Request<B>> for Bearer<S>
where
    S: Service<Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> S::Future {
        if !request.headers().contains_key(http::header::AUTHORIZATION) {
            request.headers_mut().insert(http::header::AUTHORIZATION, self.token.header_at(Instant::now()));
        }
        self.inner.call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token is read trimmed, kept for [`REFRESH`], then read again; a file that is gone
    /// keeps the last good token; an inline token stands in only while the file cannot be read.
    #[test]
    fn a_token_file_is_read_again_as_it_rotates() {
        let dir = std::env::temp_dir().join(format!("hpa-cluster-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        let config = |inline: Option<&str>| {
            let mut config = Config::new("https://10.0.0.1:6443".parse().unwrap());
            config.auth_info.token_file = Some(path.display().to_string());
            config.auth_info.token = inline.map(|t| t.to_string().into());
            config
        };
        std::fs::write(&path, "first\n").unwrap();
        let mut taken = config(None);
        let file = TokenFile::take(&mut taken).unwrap().unwrap();
        assert!(taken.auth_info.token_file.is_none() && taken.auth_info.token.is_none());
        let t0 = file.cached.lock().unwrap().1;
        let at = |secs: u64| file.header_at(t0 + Duration::from_secs(secs)).to_str().unwrap().to_string();
        assert_eq!(at(0), "Bearer first");
        std::fs::write(&path, " second\r\n").unwrap();
        assert_eq!(at(49), "Bearer first");
        assert_eq!(at(50), "Bearer second");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(at(200), "Bearer second");
        std::fs::write(&path, "third").unwrap();
        assert_eq!(at(249), "Bearer second");
        assert_eq!(at(250), "Bearer third");
        assert!(file.header_at(t0).is_sensitive());

        // The file's token wins over an inline one; the inline one (kube's) stands in for a
        // missing file.
        let mut both = config(Some("inline"));
        let file = TokenFile::take(&mut both).unwrap().unwrap();
        assert_eq!(file.header_at(Instant::now()).to_str().unwrap(), "Bearer third");
        assert!(both.auth_info.token.is_none());
        std::fs::remove_file(&path).unwrap();
        let mut both = config(Some("inline"));
        assert!(TokenFile::take(&mut both).unwrap().is_none());
        assert!(both.auth_info.token.is_some() && both.auth_info.token_file.is_none());
        let e = TokenFile::take(&mut config(None)).unwrap_err().to_string();
        assert!(e.starts_with(&format!("cannot read the kubeconfig user's token file {} (", path.display())), "{e}");
        std::fs::write(&path, "a\u{7}b").unwrap();
        let e = TokenFile::take(&mut config(None)).unwrap_err().to_string();
        assert!(e.contains("holds a control character"), "{e}");
        // No token file: nothing taken.
        let mut plain = Config::new("https://10.0.0.1:6443".parse().unwrap());
        plain.auth_info.token = Some("inline".to_string().into());
        assert!(TokenFile::take(&mut plain).unwrap().is_none());
        assert!(plain.auth_info.token.is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
