//! Development certificates: a CA and a serving certificate for the webhook's Service
//! (`hpa-webhook certs`), and the same in memory for tests.
//!
//! The CA's private key is never written: it exists only while the serving certificate is
//! signed. Rotating means running the command again (new CA, new `caBundle`); clusters that
//! need rotation without a gap use the cert-manager overlay.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use time::{Duration, OffsetDateTime};

use crate::cli::CertsArgs;

/// Certificates could not be made or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CertsError {
    /// rcgen refused the parameters.
    #[error("generating certificates: {0}")]
    Generate(#[from] rcgen::Error),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A CA that issues serving certificates (kept in memory only).
pub struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A serving certificate and its key, PEM-encoded.
#[derive(Debug, Clone)]
pub struct Issued {
    /// The certificate (`tls.crt`).
    pub cert_pem: String,
    /// Its private key, PKCS#8 (`tls.key`).
    pub key_pem: String,
}

/// A CA certificate with one serving certificate.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The CA certificate (`ca.crt`, the webhook configurations' `caBundle`).
    pub ca_pem: String,
    /// The serving certificate (`tls.crt`).
    pub cert_pem: String,
    /// Its private key (`tls.key`).
    pub key_pem: String,
}

impl Authority {
    /// A new CA valid for `days` days.
    pub fn new(days: u32) -> Result<Authority, CertsError> {
        let mut params = CertificateParams::default();
        params.distinguished_name = name("hpa-webhook development CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        set_validity(&mut params, days);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate()?)?;
        Ok(Authority { issuer })
    }

    /// The CA certificate, PEM-encoded.
    pub fn ca_pem(&self) -> String {
        self.issuer.pem()
    }

    /// A serving certificate for these DNS names or IP addresses, valid for `days` days.
    pub fn issue(&self, names: &[String], days: u32) -> Result<Issued, CertsError> {
        let mut params = CertificateParams::new(names.to_vec())?;
        params.distinguished_name = name(names.first().map(String::as_str).unwrap_or("hpa-webhook"));
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        set_validity(&mut params, days);
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok(Issued { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
    }
}

/// A new CA and one serving certificate for `names`.
pub fn generate(names: &[String], days: u32) -> Result<Bundle, CertsError> {
    let ca = Authority::new(days)?;
    let issued = ca.issue(names, days)?;
    Ok(Bundle { ca_pem: ca.ca_pem(), cert_pem: issued.cert_pem, key_pem: issued.key_pem })
}

/// The DNS names kube-apiserver may use for a Service: `svc`, `svc.ns`, `svc.ns.svc` and
/// `svc.ns.svc.<domain>` (it dials `<svc>.<ns>.svc`).
pub fn service_names(service: &str, namespace: &str, cluster_domain: &str) -> Vec<String> {
    vec![
        service.to_string(),
        format!("{service}.{namespace}"),
        format!("{service}.{namespace}.svc"),
        format!("{service}.{namespace}.svc.{cluster_domain}"),
    ]
}

/// `hpa-webhook certs`: writes `ca.crt`, `tls.crt` and `tls.key` (mode 0600) to `--out`,
/// prints the base64 `caBundle` to `stdout` and what it wrote to `stderr`.
pub fn run(args: &CertsArgs, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<(), CertsError> {
    let names = service_names(&args.service, &args.namespace, &args.cluster_domain);
    let bundle = generate(&names, args.days)?;
    let out = &args.out;
    fs::create_dir_all(out).map_err(|source| CertsError::Write { path: out.clone(), source })?;
    write_file(&out.join("ca.crt"), &bundle.ca_pem, 0o644)?;
    write_file(&out.join("tls.crt"), &bundle.cert_pem, 0o644)?;
    write_file(&out.join("tls.key"), &bundle.key_pem, 0o600)?;
    let console = |w: &mut dyn Write, text: String| {
        w.write_all(text.as_bytes()).map_err(|source| CertsError::Write { path: PathBuf::from("<output>"), source })
    };
    console(
        stderr,
        format!(
            "wrote {dir}/ca.crt, {dir}/tls.crt and {dir}/tls.key for {names}, valid {days} days\n",
            dir = out.display(),
            names = names.join(", "),
            days = args.days
        ),
    )?;
    use base64::Engine as _;
    console(stdout, format!("{}\n", base64::engine::general_purpose::STANDARD.encode(&bundle.ca_pem)))
}

fn write_file(path: &Path, contents: &str, mode: u32) -> Result<(), CertsError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let err = |source| CertsError::Write { path: path.to_path_buf(), source };
    let mut file = fs::OpenOptions::new().write(true).create(true).truncate(true).mode(mode).open(path).map_err(err)?;
    // `mode` applies only to new files: an existing key file is tightened too.
    file.set_permissions(fs::Permissions::from_mode(mode)).map_err(err)?;
    file.write_all(contents.as_bytes()).map_err(err)
}

fn name(common_name: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    dn
}

fn set_validity(params: &mut CertificateParams, days: u32) {
    let now = OffsetDateTime::now_utc();
    // A little slack for clocks that lag behind the one that made the certificate.
    params.not_before = now - Duration::minutes(5);
    params.not_after = now + Duration::days(i64::from(days));
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use rustls::client::danger::ServerCertVerifier;
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;

    use super::*;

    #[test]
    fn service_dns_names() {
        assert_eq!(
            service_names("hpa-webhook", "ops", "cluster.local"),
            ["hpa-webhook", "hpa-webhook.ops", "hpa-webhook.ops.svc", "hpa-webhook.ops.svc.cluster.local"]
        );
    }

    #[test]
    fn issued_certificates_chain_to_the_ca() {
        let ca = Authority::new(1).unwrap();
        let issued = ca.issue(&["hpa-webhook.ops.svc".into(), "127.0.0.1".into()], 1).unwrap();
        let mut roots = rustls::RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(ca.ca_pem().as_bytes()).unwrap()).unwrap();
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(
            std::sync::Arc::new(roots),
            crate::tls::provider(),
        )
        .build()
        .unwrap();
        let leaf = CertificateDer::from_pem_slice(issued.cert_pem.as_bytes()).unwrap();
        let now = rustls::pki_types::UnixTime::now();
        for name in ["hpa-webhook.ops.svc", "127.0.0.1"] {
            let server = rustls::pki_types::ServerName::try_from(name).unwrap();
            verifier.verify_server_cert(&leaf, &[], &server, &[], now).unwrap();
        }
        let other = rustls::pki_types::ServerName::try_from("other.ops.svc").unwrap();
        assert!(verifier.verify_server_cert(&leaf, &[], &other, &[], now).is_err());
    }

    #[test]
    fn run_writes_files_and_prints_the_ca_bundle() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let args = CertsArgs {
            service: "hpa-webhook".into(),
            namespace: "ops".into(),
            out: out.clone(),
            cluster_domain: "cluster.local".into(),
            days: 3,
        };
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        run(&args, &mut stdout, &mut stderr).unwrap();
        let ca = fs::read_to_string(out.join("ca.crt")).unwrap();
        use base64::Engine as _;
        let printed = String::from_utf8(stdout).unwrap();
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(printed.trim()).unwrap(), ca.as_bytes());
        assert!(String::from_utf8(stderr).unwrap().contains("hpa-webhook.ops.svc.cluster.local"));
        let key_mode = fs::metadata(out.join("tls.key")).unwrap().permissions().mode() & 0o777;
        assert_eq!(key_mode, 0o600);
        assert!(fs::read_to_string(out.join("tls.key")).unwrap().contains("PRIVATE KEY"));
        assert!(!out.join("ca.key").exists(), "the CA key is never written");
    }
}
