//! Command-line interface: every flag, subcommand and environment variable of `hpa-webhook`.
//!
//! Nothing else in the crate reads the environment: each variable is declared here, next to
//! the flag it sets, so `--help` lists them all; those of the context cache's connection
//! (`KUBECONFIG`, the proxy variables) are hpa-cluster's `Environment`, flattened in (hidden).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

use hpa_core::features::{FeatureGates, GateError, GateWarning, KubernetesVersion};
use hpa_core::go;

/// The port the server listens on by default; the manifests' containerPort must match it.
pub const DEFAULT_PORT: u16 = 8443;
/// Default path of the serving certificate (the Secret volume in the manifests).
pub const DEFAULT_TLS_CERT: &str = "/etc/hpa-webhook/tls/tls.crt";
/// Default path of the serving key.
pub const DEFAULT_TLS_KEY: &str = "/etc/hpa-webhook/tls/tls.key";

/// Admission webhook for Kubernetes HorizontalPodAutoscalers: defaulting and organization
/// policy on /mutate, kube-apiserver's validation, lint warnings and policy constraints on
/// /validate.
#[derive(Debug, Parser)]
#[command(
    name = "hpa-webhook",
    version,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    after_long_help = SERVE_EXAMPLES
)]
pub struct Args {
    /// A subcommand; without one, the server runs (`serve`).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Server options (when no subcommand is given).
    #[command(flatten)]
    pub serve: ServeArgs,
}

impl Args {
    /// The command to run: `serve` unless another subcommand was given.
    pub fn into_command(self) -> Command {
        self.command.unwrap_or_else(|| Command::Serve(Box::new(self.serve)))
    }
}

// The examples of each command's `--help`, run from a checkout's root: each command under the
// comment that says what it shows. The tests below run every `hpa-webhook policy` command, and
// parse the others (a server, or a command that writes files).

/// `hpa-webhook --help` and `serve --help`.
const SERVE_EXAMPLES: &str = "\
Examples (in a cluster, install with Helm or kustomize: README.md, \"Install\"):
  # development certificates, then a local server with a policy (writes files)
  hpa-webhook certs --service hpa-webhook --namespace hpa-webhook --out certs/out
  hpa-webhook serve --tls-cert certs/out/tls.crt --tls-key certs/out/tls.key \\
    --policy webhook/tests/data/policy-example.yaml --kubernetes-version 1.36

Exit status: 0 after a graceful shutdown, 1 when the server cannot start, 2 on a usage error.";

/// `hpa-webhook certs --help`.
const CERTS_EXAMPLES: &str = "\
Examples:
  # for the Service hpa-webhook in namespace hpa-webhook; prints the caBundle (writes files)
  hpa-webhook certs --service hpa-webhook --namespace hpa-webhook --out certs/out";

/// `hpa-webhook policy export --help`.
const EXPORT_EXAMPLES: &str = "\
Examples:
  # the policy as ValidatingAdmissionPolicies and a MutatingAdmissionPolicy, with bindings
  hpa-webhook policy export --policy webhook/tests/data/policy-example.yaml
  # for 1.34: the constraints only (a note says the defaults need the webhook)
  hpa-webhook policy export --policy webhook/tests/data/policy-example.yaml \\
    --kubernetes-version 1.34
  # applied, pruning what an earlier export left (README.md, \"Install\", has the allowlist)
  hpa-webhook policy export --policy my-policy.yaml | kubectl apply -f -";

/// `hpa-webhook policy check --help`.
const CHECK_EXAMPLES: &str = "\
Examples:
  # 0 when `serve --policy FILE` would take it
  hpa-webhook policy check webhook/tests/data/policy-example.yaml";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve AdmissionReviews over HTTPS (the default).
    #[command(after_long_help = SERVE_EXAMPLES)]
    Serve(Box<ServeArgs>),
    /// Write a development CA and a serving certificate for the webhook's Service, and print
    /// the caBundle.
    #[command(after_long_help = CERTS_EXAMPLES)]
    Certs(CertsArgs),
    /// Work with the organization policy file.
    #[command(subcommand)]
    Policy(PolicyCommand),
}

/// `hpa-webhook policy ...`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the policy as in-tree admission objects: the constraints as
    /// ValidatingAdmissionPolicies (those enforced with Deny, those with Warn), the behavior
    /// defaults as a MutatingAdmissionPolicy (Kubernetes 1.36 and later; before, a note says they
    /// need the webhook), each with its binding (a v1 List, for `kubectl apply -f -`). They
    /// cannot run cross-object checks or lint warnings, nor word denials as the webhook.
    #[command(after_long_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),
    /// Check a policy file as the server reads it (the same reader, the same checks) without
    /// serving: exit status 0 when `serve --policy FILE` would take it, 1 with every problem
    /// otherwise, 2 when the file cannot be read or the flags do not go together. Charts and CI
    /// run it before the server ever sees the file.
    #[command(after_long_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
}

/// Options of `hpa-webhook policy check`.
#[derive(Debug, Clone, ClapArgs)]
pub struct CheckArgs {
    /// The policy file (YAML).
    #[arg(value_name = "FILE")]
    pub policy: PathBuf,

    /// Kubernetes release the server applies (its `--kubernetes-version`).
    #[arg(long, value_name = "VERSION", default_value_t = KubernetesVersion::LATEST)]
    pub kubernetes_version: KubernetesVersion,

    /// The server's feature gates (its `--feature-gates`): tolerance defaults are ignored while
    /// HPAConfigurableTolerance is off, which is said as a warning.
    #[arg(long, value_name = "NAME=BOOL,...", default_value = "")]
    pub feature_gates: String,
}

/// Options of `hpa-webhook policy export`.
#[derive(Debug, Clone, ClapArgs)]
pub struct ExportArgs {
    /// The policy file (YAML).
    #[arg(long, value_name = "PATH")]
    pub policy: PathBuf,

    /// Prefix of the objects' names (`<name>-constraints`, `<name>-constraints-warn`,
    /// `<name>-defaults`), and the value of their label `hpa-toolkit.io/policy-export` (so a
    /// label value: at most 63 characters), which `kubectl apply --prune -l` selects them by.
    #[arg(long, value_name = "NAME", default_value = "hpa-toolkit-policy")]
    pub name: String,

    /// validationActions for every constraint, in one binding, instead of each constraint's
    /// `enforcement` (Deny or Warn, a binding each); e.g. Audit or Warn,Audit to try a policy out.
    #[arg(long, value_name = "ACTION,...", value_delimiter = ',', value_parser = ["Deny", "Warn", "Audit"])]
    pub validation_actions: Vec<String>,

    /// Namespaces the bindings leave out (repeat, or comma-separated; `--exclude-namespace ""`
    /// for none).
    #[arg(long, value_name = "NAMESPACE", value_delimiter = ',', default_value = "kube-system")]
    pub exclude_namespace: Vec<String>,

    /// Kubernetes release of the cluster: 1.33 to 1.38. Before 1.36, where MutatingAdmissionPolicy
    /// is not GA, the behavior defaults are left out (a note on stderr says so).
    #[arg(long, value_name = "VERSION", default_value_t = KubernetesVersion::LATEST)]
    pub kubernetes_version: KubernetesVersion,

    /// The cluster's feature gates (tolerance defaults are exported with HPAConfigurableTolerance).
    #[arg(long, value_name = "NAME=BOOL,...", default_value = "")]
    pub feature_gates: String,
}

impl ExportArgs {
    /// The feature gates these flags describe, and the warnings of `--feature-gates`.
    pub fn gates(&self) -> Result<(FeatureGates, Vec<GateWarning>), GateError> {
        let mut gates = FeatureGates::new(self.kubernetes_version);
        let warnings = gates.apply(&self.feature_gates)?;
        Ok((gates, warnings))
    }
}

/// Options of the server.
#[derive(Debug, Clone, ClapArgs)]
pub struct ServeArgs {
    /// Address to listen on (HTTPS).
    #[arg(long, env = "HPA_WEBHOOK_ADDR", hide_env_values = true, value_name = "IP:PORT", default_value_t = default_addr())]
    pub addr: SocketAddr,

    /// PEM certificate chain served to clients; reloaded when the file changes.
    #[arg(long, env = "HPA_WEBHOOK_TLS_CERT", hide_env_values = true, value_name = "PATH", default_value = DEFAULT_TLS_CERT)]
    pub tls_cert: PathBuf,

    /// PEM private key of the certificate; reloaded when the file changes.
    #[arg(long, env = "HPA_WEBHOOK_TLS_KEY", hide_env_values = true, value_name = "PATH", default_value = DEFAULT_TLS_KEY)]
    pub tls_key: PathBuf,

    /// Organization policy (YAML): behavior defaults and constraints per namespace; reloaded
    /// when the file changes. Without it, /mutate only applies kube-apiserver's defaulting.
    #[arg(long, env = "HPA_WEBHOOK_POLICY", hide_env_values = true, value_name = "PATH")]
    pub policy: Option<PathBuf>,

    /// Lint configuration (`.hpa-lint.yaml`'s format, as `hpa-lint --config` reads it): its
    /// `rules:` (off, on, a severity) and `settings:` (the numeric rules' bounds) apply to the
    /// warnings and `denyRules` of /validate and /validate-workloads, as in CI; reloaded when
    /// the file changes. Its release, gates and controller keys are not used (these flags
    /// describe the cluster).
    #[arg(long, env = "HPA_WEBHOOK_LINT_CONFIG", hide_env_values = true, value_name = "PATH")]
    pub lint_config: Option<PathBuf>,

    /// Kubernetes release whose rules apply: 1.33 to 1.37, or 1.38 (a preview of the
    /// development branch); a patch release (`v1.34.4`) reads as its release as shipped, x.y.0.
    /// The default is the newest generally available release.
    #[arg(long, env = "HPA_WEBHOOK_KUBERNETES_VERSION", hide_env_values = true, value_name = "VERSION", default_value_t = KubernetesVersion::LATEST)]
    pub kubernetes_version: KubernetesVersion,

    /// Feature gates, as kube-apiserver's --feature-gates: `HPAScaleToZero=true,...`.
    #[arg(
        long,
        env = "HPA_WEBHOOK_FEATURE_GATES",
        hide_env_values = true,
        value_name = "NAME=BOOL,...",
        default_value = ""
    )]
    pub feature_gates: String,

    /// Answer /validate with lint findings as warnings (hpa-core's rules enabled by default;
    /// kubectl prints them).
    #[arg(long, env = "HPA_WEBHOOK_LINT_WARNINGS", hide_env_values = true, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub lint_warnings: bool,

    /// Watch the cluster (scale targets, PodDisruptionBudgets, VPAs, KEDA ScaledObjects,
    /// LimitRanges, RuntimeClasses, CustomResourceDefinitions, HPAs: list and watch only) so that
    /// /validate runs the cross-object rules and /validate-workloads answers. Needs the read-only
    /// ClusterRole of the manifests.
    #[arg(long, env = "HPA_WEBHOOK_CONTEXT_CACHE", hide_env_values = true, value_name = "BOOL", default_value_t = false, action = clap::ArgAction::Set)]
    pub context_cache: bool,

    /// The kubeconfig the context cache connects with; without it, `$KUBECONFIG` or
    /// `~/.kube/config`, else the pod's service account.
    #[arg(long, env = "HPA_WEBHOOK_KUBECONFIG", hide_env_values = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// `KUBECONFIG` and the proxy variables (`HTTPS_PROXY`, `NO_PROXY`...) the context cache's
    /// connection reads, as kubectl reads them.
    #[command(flatten)]
    pub environment: hpa_cluster::Environment,

    /// /readyz waits at most this long for the context cache's first sync; past it the server
    /// is ready and checks each HPA alone (saying so in a warning) until the cache has synced.
    #[arg(long, env = "HPA_WEBHOOK_CONTEXT_SYNC_TIMEOUT", hide_env_values = true, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub context_sync_timeout: Duration,

    /// A watch broken, or silent (no event, no bookmark), longer than this makes the context
    /// cache stale: cross-object checks are skipped (never denied on), said in a warning and
    /// counted in a metric. Each watch is renewed every half of it.
    #[arg(long, env = "HPA_WEBHOOK_CONTEXT_STALE_AFTER", hide_env_values = true, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub context_stale_after: Duration,

    /// How often discovery is asked whether the optional CRDs (Argo Rollouts, VPA, KEDA) are
    /// installed, and kinds RBAC refused are tried again (greater than zero).
    #[arg(long, env = "HPA_WEBHOOK_CONTEXT_RECHECK_INTERVAL", hide_env_values = true, value_name = "DURATION", default_value = "5m", value_parser = parse_interval)]
    pub context_recheck_interval: Duration,

    /// Deadline for one request, body included; keep it below the webhook's timeoutSeconds
    /// (greater than zero).
    #[arg(long, env = "HPA_WEBHOOK_REQUEST_TIMEOUT", hide_env_values = true, value_name = "DURATION", default_value = "4s", value_parser = parse_interval)]
    pub request_timeout: Duration,

    /// Largest accepted request body in bytes (kube-apiserver sends at most about 3 MiB);
    /// larger bodies get 413.
    #[arg(long, env = "HPA_WEBHOOK_MAX_BODY_BYTES", hide_env_values = true, value_name = "BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// How often the certificate, key, policy and lint configuration files are checked for
    /// changes (greater than zero).
    #[arg(long, env = "HPA_WEBHOOK_RELOAD_INTERVAL", hide_env_values = true, value_name = "DURATION", default_value = "10s", value_parser = parse_interval)]
    pub reload_interval: Duration,

    /// After SIGTERM, keep serving (and report not ready) this long before closing the
    /// listener, so that kube-apiserver stops sending requests to this pod first.
    #[arg(long, env = "HPA_WEBHOOK_SHUTDOWN_DELAY", hide_env_values = true, value_name = "DURATION", default_value = "0s", value_parser = parse_duration)]
    pub shutdown_delay: Duration,

    /// Longest wait for in-flight requests once the listener is closed.
    #[arg(long, env = "HPA_WEBHOOK_SHUTDOWN_TIMEOUT", hide_env_values = true, value_name = "DURATION", default_value = "20s", value_parser = parse_duration)]
    pub shutdown_timeout: Duration,

    /// Log filter, as tracing's EnvFilter: `info`, `hpa_webhook=debug,info`, ...
    #[arg(long, env = "HPA_WEBHOOK_LOG_LEVEL", hide_env_values = true, value_name = "FILTER", default_value = "info", value_parser = parse_log_filter)]
    pub log_level: LogFilter,

    /// Log format: `json` in clusters, `plain` in a terminal.
    #[arg(long, env = "HPA_WEBHOOK_LOG_FORMAT", hide_env_values = true, value_enum, default_value_t = LogFormat::Plain)]
    pub log_format: LogFormat,
}

impl ServeArgs {
    /// The feature gates these flags describe (the warnings of `--feature-gates` are logged
    /// once, by [`ServeArgs::gates_logged`]).
    pub fn gates(&self) -> Result<FeatureGates, GateError> {
        let mut gates = FeatureGates::new(self.kubernetes_version);
        gates.apply(&self.feature_gates)?;
        Ok(gates)
    }

    /// [`ServeArgs::gates`], with each warning of `--feature-gates` (a GA gate set, a gate that
    /// concerns no HPA) logged at warn, as kube-apiserver logs them.
    pub fn gates_logged(&self) -> Result<FeatureGates, GateError> {
        let mut gates = FeatureGates::new(self.kubernetes_version);
        for w in gates.apply(&self.feature_gates)? {
            tracing::warn!("--feature-gates: {w}");
        }
        Ok(gates)
    }
}

/// Options of `hpa-webhook certs`.
#[derive(Debug, Clone, ClapArgs)]
pub struct CertsArgs {
    /// Name of the webhook's Service.
    #[arg(long, value_name = "NAME")]
    pub service: String,

    /// Namespace of the webhook's Service.
    #[arg(long, value_name = "NAMESPACE")]
    pub namespace: String,

    /// Directory to write `ca.crt`, `tls.crt` and `tls.key` to (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// Cluster DNS domain, for the `<service>.<namespace>.svc.<domain>` name.
    #[arg(long, value_name = "DOMAIN", default_value = "cluster.local")]
    pub cluster_domain: String,

    /// Validity of the CA and the serving certificate, in days.
    #[arg(long, value_name = "DAYS", default_value_t = 365, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub days: u32,
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable lines.
    Plain,
}

fn default_addr() -> SocketAddr {
    SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT))
}

/// A log filter `tracing_subscriber::EnvFilter` takes (checked when the flags are parsed, so a
/// bad one is a usage error like any other flag's, and a chart's values are checked by the same
/// parser).
pub fn parse_log_filter(s: &str) -> Result<LogFilter, tracing_subscriber::filter::ParseError> {
    tracing_subscriber::EnvFilter::try_new(s).map(|_| LogFilter(s.to_string()))
}

/// `--log-level`: a filter text [`parse_log_filter`] accepted, so that building the filter from
/// it cannot fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFilter(String);

/// The directive that leaves out kube-client's line per failed request (its HTTP trace layer,
/// target `kube_client::client::builder`, logs each at error): the context cache's watches ask
/// again every 2.5 s at most while kube-apiserver is down, and logged 1,335 such lines in the
/// first 7 minutes of an outage, where the cache logs each kind's failure once (`watch broken;
/// retrying`) and its recovery.
const KUBE_CLIENT_REQUESTS_OFF: &str = "kube_client::client::builder=off";

impl LogFilter {
    /// The filter, built as `EnvFilter::try_new` builds it (`parse_lossy` drops nothing from a
    /// text `try_new` accepted, and adds no default directive, unlike `EnvFilter::new`), with
    /// kube-client's line per failed request off (`KUBE_CLIENT_REQUESTS_OFF`) unless the filter
    /// names `kube_client`.
    pub fn env_filter(&self) -> tracing_subscriber::EnvFilter {
        let builder = tracing_subscriber::EnvFilter::builder();
        if self.0.contains("kube_client") {
            builder.parse_lossy(&self.0)
        } else {
            builder.parse_lossy(format!("{},{KUBE_CLIENT_REQUESTS_OFF}", self.0))
        }
    }
}

impl std::fmt::Display for LogFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a flag's duration does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlagDurationError {
    /// Not a Go duration (`time.ParseDuration`'s words).
    #[error(transparent)]
    Syntax(#[from] go::DurationError),
    /// Below zero: no interval or timeout of the server runs backwards.
    #[error("invalid duration {0:?}: must not be negative")]
    Negative(String),
    /// Zero where only a positive duration makes sense (a period, a deadline).
    #[error("invalid duration {0:?}: must be greater than zero")]
    Zero(String),
}

/// Parses a duration as Kubernetes' own duration flags are (Go's `time.ParseDuration`:
/// `250ms`, `4s`, `1m30s`, `1.5h`, `0`), refusing negative ones.
pub fn parse_duration(s: &str) -> Result<Duration, FlagDurationError> {
    let nanos = go::parse_duration(s.trim())?;
    let nanos = u64::try_from(nanos).map_err(|_| FlagDurationError::Negative(s.trim().to_string()))?;
    Ok(Duration::from_nanos(nanos))
}

/// [`parse_duration`] for a period or a deadline, which must be greater than zero: a ticker
/// of period zero panics (`tokio::time::interval`), and a zero request deadline would fail every
/// request.
pub fn parse_interval(s: &str) -> Result<Duration, FlagDurationError> {
    match parse_duration(s)? {
        Duration::ZERO => Err(FlagDurationError::Zero(s.trim().to_string())),
        d => Ok(d),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn verify_cli() {
        Args::command().debug_assert();
    }

    #[test]
    fn help_snapshot() {
        let help = Args::command().term_width(100).render_long_help().to_string();
        insta::assert_snapshot!(help);
    }

    /// Every subcommand's `--help` is a snapshot too (new ones are picked up without editing
    /// this test).
    #[test]
    fn subcommand_help_snapshots() {
        fn walk(command: &mut clap::Command, path: &str, seen: &mut Vec<String>) {
            for sub in command.get_subcommands_mut() {
                if sub.get_name() == "help" {
                    continue;
                }
                let path = format!("{path}_{}", sub.get_name());
                insta::assert_snapshot!(format!("help@{path}"), sub.render_long_help().to_string());
                seen.push(path.clone());
                walk(sub, &path, seen);
            }
        }
        let mut command = Args::command().term_width(100);
        command.build();
        let mut seen = Vec::new();
        walk(&mut command, "hpa-webhook", &mut seen);
        assert!(seen.iter().any(|p| p == "hpa-webhook_policy_export"), "{seen:?}");
        assert!(seen.iter().any(|p| p == "hpa-webhook_policy_check"), "{seen:?}");
    }

    /// Every example of every `--help` parses; the `policy` ones run from the checkout's root
    /// and succeed.
    #[test]
    fn help_examples_parse_and_policy_ones_run() {
        fn walk(command: &clap::Command, found: &mut Vec<String>) {
            if let Some(text) = command.get_after_long_help() {
                // Within the help's width (100 columns), so clap never wraps a command in two.
                let text = text.to_string();
                let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 100).collect();
                assert!(long.is_empty(), "{}: lines clap would wrap: {long:?}", command.get_name());
                let text = text.replace("\\\n", " ");
                found.extend(text.lines().map(str::trim).filter(|l| l.starts_with("hpa-webhook")).map(String::from));
            }
            command.get_subcommands().for_each(|sub| walk(sub, found));
        }
        let mut examples = Vec::new();
        walk(&Args::command(), &mut examples);
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut ran = 0;
        for line in examples.iter().filter(|l| !l.contains('|')) {
            let args: Vec<String> = line
                .split_whitespace()
                .map(|a| {
                    if a.contains('/') && root.join(a).exists() { root.join(a).display().to_string() } else { a.into() }
                })
                .collect();
            let parsed = Args::try_parse_from(&args).unwrap_or_else(|e| panic!("`{line}`: {e}"));
            let (mut out, mut err) = (Vec::new(), Vec::new());
            match parsed.into_command() {
                Command::Policy(PolicyCommand::Check(a)) => crate::policy::check(&a, &mut out, &mut err).unwrap(),
                Command::Policy(PolicyCommand::Export(a)) => crate::export::run(&a, &mut out, &mut err).unwrap(),
                _ => continue,
            }
            assert!(!out.is_empty(), "`{line}` printed nothing");
            ran += 1;
        }
        assert!(ran >= 3, "{examples:?}");
    }

    #[test]
    fn serve_is_the_default_command() {
        let args = Args::try_parse_from(["hpa-webhook", "--addr", "127.0.0.1:9443"]).unwrap();
        let Command::Serve(serve) = args.into_command() else { panic!("expected serve") };
        assert_eq!(serve.addr, "127.0.0.1:9443".parse().unwrap());
        assert_eq!(serve.tls_cert, PathBuf::from(DEFAULT_TLS_CERT));
        assert_eq!(serve.request_timeout, Duration::from_secs(4));
        let args = Args::try_parse_from(["hpa-webhook", "serve", "--log-format", "json"]).unwrap();
        assert!(matches!(args.into_command(), Command::Serve(s) if s.log_format == LogFormat::Json));
    }

    #[test]
    fn certs_command() {
        let args =
            Args::try_parse_from(["hpa-webhook", "certs", "--service", "s", "--namespace", "n", "--out", "o"]).unwrap();
        let Command::Certs(certs) = args.into_command() else { panic!("expected certs") };
        assert_eq!((certs.service.as_str(), certs.days), ("s", 365));
    }

    #[test]
    fn gates_follow_the_flags() {
        let args = Args::try_parse_from([
            "hpa-webhook",
            "--kubernetes-version",
            "1.36",
            "--feature-gates",
            "HPAScaleToZero=true",
        ])
        .unwrap();
        let gates = args.serve.gates().unwrap();
        assert!(gates.enabled(hpa_core::features::Gate::HPAScaleToZero));
        // A name that cannot be a gate is refused; one that concerns no HPA is accepted (and
        // logged).
        let args = Args::try_parse_from(["hpa-webhook", "--feature-gates", "nope=true"]).unwrap();
        assert!(args.serve.gates().is_err());
        let args = Args::try_parse_from([
            "hpa-webhook",
            "--kubernetes-version",
            "1.36",
            "--feature-gates",
            "InPlacePodVerticalScaling=true,AllAlpha=true",
        ])
        .unwrap();
        let gates = args.serve.gates_logged().unwrap();
        assert!(gates.enabled(hpa_core::features::Gate::HPAScaleToZero), "AllAlpha switches 1.36's alpha gates on");
    }

    #[test]
    fn every_release_is_selectable_and_the_default_is_the_newest_ga_one() {
        use hpa_core::features::KubernetesVersion;
        let args = Args::try_parse_from(["hpa-webhook"]).unwrap();
        assert_eq!(args.serve.kubernetes_version, KubernetesVersion::V1_37);
        for v in KubernetesVersion::ALL {
            let args = Args::try_parse_from(["hpa-webhook", "--kubernetes-version", &v.to_string()]).unwrap();
            assert_eq!(args.serve.gates().unwrap().version(), v);
        }
        assert!(Args::try_parse_from(["hpa-webhook", "--kubernetes-version", "1.32"]).is_err());
        // A gate the release does not have is refused, as kube-apiserver refuses it.
        let args = Args::try_parse_from([
            "hpa-webhook",
            "--kubernetes-version",
            "1.36",
            "--feature-gates",
            "HPAGeneration=true",
        ])
        .unwrap();
        assert!(args.serve.gates().is_err());
    }

    /// `--log-level` as tracing's EnvFilter parses it: a bad level is refused when the flags are
    /// parsed (a bare word is a target, which EnvFilter takes).
    #[test]
    fn log_filters() {
        for good in ["info", "hpa_webhook=debug,info", "WARN", "3", "hpa_webhook=,", "debugg", "a::b=trace"] {
            assert!(Args::try_parse_from(["hpa-webhook", "--log-level", good]).is_ok(), "{good}");
        }
        for bad in ["hpa_webhook=debugg", "=info", "info=6", "[x"] {
            let error = Args::try_parse_from(["hpa-webhook", "--log-level", bad]).unwrap_err();
            assert!(error.to_string().contains("--log-level"), "{bad}: {error}");
        }
    }

    /// What a filter lets through: an error of kube-client's trace layer, and the context
    /// cache's warning, as logged during an outage of kube-apiserver.
    fn logged_through(filter: &str) -> String {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(parse_log_filter(filter).unwrap().env_filter())
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(target: "kube_client::client::builder", "failed with error client error (Connect)");
            tracing::warn!(target: "hpa_cluster::watch", "watch broken; retrying");
        });
        String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
    }

    /// kube-client's line per failed request is off unless the filter names kube_client: an
    /// outage of kube-apiserver logged it at error about three times a second.
    #[test]
    fn kube_clients_line_per_failed_request_is_off_unless_asked_for() {
        let warning = " WARN hpa_cluster::watch: watch broken; retrying\n";
        let error = "ERROR kube_client::client::builder: failed with error client error (Connect)\n";
        for filter in ["info", "trace", "hpa_webhook=debug,info"] {
            assert_eq!(logged_through(filter), warning, "{filter:?}");
        }
        assert_eq!(logged_through("info,kube_client=error"), format!("{error}{warning}"));
        assert_eq!(logged_through("warn,kube_client::client::builder=trace"), format!("{error}{warning}"));
        // Nothing passes an empty filter, as before.
        assert_eq!(logged_through("error"), "");
        assert_eq!(logged_through(""), "");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("4s"), Ok(Duration::from_secs(4)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        // As Kubernetes' duration flags: Go's grammar.
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        for bad in ["", "s", "4", "4x", "-1s", "99999999999999999999s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_duration("4x").unwrap_err().to_string(), "time: unknown unit \"x\" in duration \"4x\"");
        assert_eq!(parse_duration("4").unwrap_err().to_string(), "time: missing unit in duration \"4\"");
        assert_eq!(parse_duration("-1s").unwrap_err().to_string(), "invalid duration \"-1s\": must not be negative");
        assert_eq!(parse_duration("3000000h").unwrap_err().to_string(), "time: invalid duration \"3000000h\"");
        assert_eq!(parse_interval("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_interval("1ms"), Ok(Duration::from_millis(1)));
        for zero in ["0", "0s", "0ms", "00m", " 0h "] {
            assert_eq!(parse_interval(zero), Err(FlagDurationError::Zero(zero.trim().into())), "{zero}");
        }
        assert_eq!(parse_interval("0s").unwrap_err().to_string(), "invalid duration \"0s\": must be greater than zero");
        assert_eq!(parse_interval("-5m"), Err(FlagDurationError::Negative("-5m".into())));
    }
}
