//! TLS: the rustls server configuration (TLS 1.2 and 1.3 only, ring provider) and the
//! serving certificate, reloaded from its files without a restart.
//!
//! The configuration is built once; its certificate resolver hands every new handshake the
//! certified key currently in an `ArcSwap`. Reloading swaps that pointer: connections already
//! established keep the key they were made with, new ones get the new key, and no request
//! fails. The files are polled (cert-manager's Secret volume changes them by swapping a
//! symlink, which mtime-based watchers can miss); a half-written pair whose key does not match
//! its certificate is refused and retried at the next poll, the old pair staying in force.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwapOption;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// A certificate or key that could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read.
    #[error("reading {what} from {path}: {error}")]
    Read {
        /// `TLS certificate` or `TLS key`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why (printed in the message, so not a `source()`).
        error: std::io::Error,
    },
    /// A file does not hold what it should.
    #[error("{what} in {path}: {message}")]
    Parse {
        /// `TLS certificate` or `TLS key`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The key does not belong to the certificate, or rustls refuses it.
    #[error("TLS key {key} does not fit certificate {cert}: {message}")]
    Mismatch {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// rustls' reason.
        message: String,
    },
    /// rustls refused the configuration.
    #[error("TLS configuration: {0}")]
    Config(String),
}

/// The crypto provider used everywhere (ring: builds with a C compiler only).
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The server configuration: TLS 1.2 and 1.3, HTTP/2 and HTTP/1.1 by ALPN, certificates from
/// `resolver`.
pub fn server_config(resolver: Arc<dyn ResolvesServerCert>) -> Result<rustls::ServerConfig, TlsError> {
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// What a reload did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// The files are as last read.
    Unchanged,
    /// A new certificate is in force; its `notAfter`, in Unix seconds, when readable.
    Loaded {
        /// `notAfter` of the leaf certificate.
        not_after: Option<i64>,
    },
}

/// The serving certificate and key, read from files; the resolver of the server config.
#[derive(Debug)]
pub struct CertStore {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    current: ArcSwapOption<CertifiedKey>,
    last_read: Mutex<(Vec<u8>, Vec<u8>)>,
}

impl CertStore {
    /// A store for these files, with nothing loaded yet (see [`CertStore::reload`]).
    pub fn new(cert_path: &Path, key_path: &Path) -> CertStore {
        CertStore {
            cert_path: cert_path.to_path_buf(),
            key_path: key_path.to_path_buf(),
            provider: provider(),
            current: ArcSwapOption::empty(),
            last_read: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// Whether a certificate is loaded (the server is ready).
    pub fn is_loaded(&self) -> bool {
        self.current.load().is_some()
    }

    /// Reads both files; installs them if they changed and form a valid pair. On error the
    /// certificate in force stays in force.
    pub async fn reload(&self) -> Result<Reload, TlsError> {
        let cert = read(&self.cert_path, "TLS certificate").await?;
        let key = read(&self.key_path, "TLS key").await?;
        {
            let last = self.last_read.lock().unwrap_or_else(PoisonError::into_inner);
            if last.0 == cert && last.1 == key && self.is_loaded() {
                return Ok(Reload::Unchanged);
            }
        }
        let certified = self.certified_key(&cert, &key)?;
        let not_after = certified.end_entity_cert().ok().and_then(|c| not_after(c));
        self.current.store(Some(Arc::new(certified)));
        *self.last_read.lock().unwrap_or_else(PoisonError::into_inner) = (cert, key);
        Ok(Reload::Loaded { not_after })
    }

    fn certified_key(&self, cert_pem: &[u8], key_pem: &[u8]) -> Result<CertifiedKey, TlsError> {
        let parse = |what, message: String| TlsError::Parse { what, path: self.cert_path.clone(), message };
        let chain = CertificateDer::pem_slice_iter(cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| parse("TLS certificate", e.to_string()))?;
        if chain.is_empty() {
            return Err(parse("TLS certificate", "no CERTIFICATE block found".into()));
        }
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Parse {
            what: "TLS key",
            path: self.key_path.clone(),
            message: e.to_string(),
        })?;
        let mismatch = |e: rustls::Error| TlsError::Mismatch {
            cert: self.cert_path.clone(),
            key: self.key_path.clone(),
            message: e.to_string(),
        };
        let signing_key = self.provider.key_provider.load_private_key(key).map_err(mismatch)?;
        let certified = CertifiedKey::new(chain, signing_key);
        // Unlike `CertifiedKey::from_der`, an unverifiable pair is refused too: during a
        // rotation the two files may briefly belong to different pairs.
        certified.keys_match().map_err(mismatch)?;
        Ok(certified)
    }
}

impl ResolvesServerCert for CertStore {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.current.load_full()
    }
}

async fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, TlsError> {
    tokio::fs::read(path).await.map_err(|error| TlsError::Read { what, path: path.to_path_buf(), error })
}

// === notAfter, for the expiry metric ===

/// The `notAfter` of an X.509 certificate (DER), in Unix seconds; `None` if it cannot be read.
///
/// Walks `Certificate → tbsCertificate → validity` (RFC 5280 §4.1) and nothing else; rustls
/// has already parsed and accepted the certificate, this only reads one field for metrics.
pub fn not_after(cert_der: &[u8]) -> Option<i64> {
    let (_, certificate, _) = der_element(cert_der)?;
    let (_, tbs, _) = der_element(certificate)?;
    let mut rest = tbs;
    // version [0] EXPLICIT (optional), serialNumber, signature, issuer, then validity.
    let (tag, _, after) = der_element(rest)?;
    if tag == 0xa0 {
        rest = after;
    }
    for _ in 0..3 {
        rest = der_element(rest)?.2;
    }
    let (tag, validity, _) = der_element(rest)?;
    if tag != 0x30 {
        return None;
    }
    let (_, _, after_not_before) = der_element(validity)?;
    let (tag, time, _) = der_element(after_not_before)?;
    parse_time(tag, std::str::from_utf8(time).ok()?)
}

/// One DER element: (tag, contents, rest). Only single-byte tags, definite lengths.
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (bytes, rest) = rest.split_at(n);
        (bytes.iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b)), rest)
    };
    if rest.len() < len {
        return None;
    }
    let (contents, rest) = rest.split_at(len);
    Some((tag, contents, rest))
}

/// UTCTime (`YYMMDDHHMMSSZ`, tag 0x17) or GeneralizedTime (`YYYYMMDDHHMMSSZ`, tag 0x18).
fn parse_time(tag: u8, s: &str) -> Option<i64> {
    let digits = s.strip_suffix('Z')?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match (tag, digits.len()) {
        (0x17, 12) => {
            let yy: i64 = digits.get(..2)?.parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, digits.get(2..)?)
        }
        (0x18, 14) => (digits.get(..4)?.parse().ok()?, digits.get(4..)?),
        _ => return None,
    };
    let field = |i: usize| -> Option<i64> { rest.get(i..i + 2)?.parse().ok() };
    let (month, day, hour, minute, second) = (field(0)?, field(2)?, field(4)?, field(6)?, field(8)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(hpa_core::api::time::days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs;

    fn write_pair(dir: &Path, bundle: &certs::Bundle) -> (PathBuf, PathBuf) {
        let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
        std::fs::write(&cert, &bundle.cert_pem).unwrap();
        std::fs::write(&key, &bundle.key_pem).unwrap();
        (cert, key)
    }

    #[test]
    fn reads_not_after_of_generated_certificates() {
        let bundle = certs::generate(&["localhost".into()], 30).unwrap();
        let der = CertificateDer::from_pem_slice(bundle.cert_pem.as_bytes()).unwrap();
        let got = not_after(&der).unwrap();
        let expected = (time::OffsetDateTime::now_utc() + time::Duration::days(30)).unix_timestamp();
        assert!((got - expected).abs() < 120, "{got} vs {expected}");
        assert_eq!(not_after(b""), None);
        assert_eq!(not_after(&der[..40]), None);
        assert_eq!(not_after(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
    }

    #[test]
    fn times() {
        assert_eq!(parse_time(0x17, "700101000000Z"), Some(0));
        assert_eq!(parse_time(0x17, "491231235959Z"), Some(2_524_607_999));
        assert_eq!(parse_time(0x18, "20380119031408Z"), Some(2_147_483_648));
        assert_eq!(parse_time(0x18, "20240229120000Z"), Some(1_709_208_000));
        for bad in ["", "Z", "700101000000", "7001010000Z", "701301000000Z", "70010100000xZ"] {
            assert_eq!(parse_time(0x17, bad), None, "{bad}");
        }
        assert_eq!(parse_time(0x02, "700101000000Z"), None);
    }

    #[tokio::test]
    async fn reload_swaps_valid_pairs_and_keeps_the_old_one_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let first = certs::generate(&["localhost".into()], 10).unwrap();
        let (cert, key) = write_pair(dir.path(), &first);
        let store = CertStore::new(&cert, &key);
        assert!(!store.is_loaded());
        assert!(matches!(store.reload().await.unwrap(), Reload::Loaded { not_after: Some(_) }));
        assert!(store.is_loaded());
        assert_eq!(store.reload().await.unwrap(), Reload::Unchanged);
        let in_force = store.current.load_full().unwrap();

        // Half a rotation: a new certificate with the old key is refused, the old pair stays.
        let second = certs::generate(&["localhost".into()], 20).unwrap();
        std::fs::write(&cert, &second.cert_pem).unwrap();
        assert!(matches!(store.reload().await, Err(TlsError::Mismatch { .. })));
        assert!(Arc::ptr_eq(&store.current.load_full().unwrap(), &in_force));
        // The key arrives: the new pair is in force.
        std::fs::write(&key, &second.key_pem).unwrap();
        assert!(matches!(store.reload().await.unwrap(), Reload::Loaded { .. }));
        assert!(!Arc::ptr_eq(&store.current.load_full().unwrap(), &in_force));

        std::fs::write(&cert, "not a certificate").unwrap();
        assert!(matches!(store.reload().await, Err(TlsError::Parse { what: "TLS certificate", .. })));
        std::fs::write(&key, "").unwrap();
        std::fs::write(&cert, &second.cert_pem).unwrap();
        assert!(matches!(store.reload().await, Err(TlsError::Parse { what: "TLS key", .. })));
        std::fs::remove_file(&key).unwrap();
        assert!(matches!(store.reload().await, Err(TlsError::Read { what: "TLS key", .. })));
        assert!(store.is_loaded(), "errors never unload the certificate in force");
    }

    #[test]
    fn config_offers_tls12_and_tls13_with_alpn() {
        let store = Arc::new(CertStore::new(Path::new("/nonexistent"), Path::new("/nonexistent")));
        let config = server_config(store).unwrap();
        assert_eq!(config.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);
        let versions: Vec<_> = config.crypto_provider().cipher_suites.iter().map(|s| s.version().version).collect();
        assert!(versions.contains(&rustls::ProtocolVersion::TLSv1_3));
        assert!(versions.contains(&rustls::ProtocolVersion::TLSv1_2));
    }
}
