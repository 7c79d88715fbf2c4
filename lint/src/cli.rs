//! Command-line interface: every flag and subcommand, documented by its doc comment.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use hpa_cluster::DEFAULT_TIMEOUT;

use hpa_core::features::KubernetesVersion;

/// Lint, validate, default, convert, explain and simulate Kubernetes HorizontalPodAutoscalers
/// exactly as kube-apiserver and the HPA controller would treat them: offline from files, or
/// live from a cluster (`cluster`, `diagnose`).
///
/// Without a subcommand, lints the given files and directories: every kube-apiserver
/// validation error (HPA000) and the rules listed by `hpa-lint rules`.
#[derive(Debug, Parser)]
#[command(
    name = "hpa-lint",
    version,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    after_long_help = LINT_EXAMPLES
)]
pub struct Args {
    /// A subcommand; without one, the given paths are linted.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Files and directories to lint (`-` reads standard input).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Lint options.
    #[command(flatten)]
    pub lint: LintArgs,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,

    /// Kubernetes release and feature gates.
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Options of the lint command: the findings flags it shares with `hpa-lint cluster`, and
/// what only files need.
#[derive(Debug, Clone, ClapArgs)]
pub struct LintArgs {
    /// Output, rules and failure.
    #[command(flatten)]
    pub findings: FindingsArgs,

    /// Which objects the cross-object rules look at for an HPA [default: directory, or `scope`
    /// in the configuration].
    #[arg(long, value_enum)]
    pub scope: Option<crate::linter::config::Scope>,

    /// The namespace of objects that name none, as `kubectl apply -n` and `helm install -n`
    /// give it; objects that name one stay in it [default: the one namespace the other objects
    /// of their set name, else `default`].
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// The configuration file.
    #[command(flatten)]
    pub config: ConfigArgs,

    /// Prints the time each phase took on standard error, for profiling (set by the
    /// HPA_LINT_TIMINGS environment variable, whatever its value).
    #[arg(long, env = "HPA_LINT_TIMINGS", hide = true, default_value = "", value_parser = environment_switch)]
    pub timings: bool,
}

/// The findings flags of every command that lints (files and `hpa-lint cluster`): one
/// definition, so both read alike in `--help` and resolve through the one
/// `commands::settings::options`.
#[derive(Debug, Clone, ClapArgs)]
pub struct FindingsArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = LintFormat::Human)]
    pub output: LintFormat,

    /// When to use colors in the human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Only these rules (IDs or names, comma-separated or repeated; `all` also runs the opt-in
    /// rules). HPA000, what kube-apiserver refuses, always runs.
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    pub select: Vec<String>,

    /// Not these rules (IDs or names, comma-separated or repeated; HPA000 cannot be ignored).
    /// `--disable` is the same flag, the word other linters use.
    #[arg(long, visible_alias = "disable", value_name = "RULE", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Exit with status 1 when a finding at or above this severity is reported
    /// [default: warning, or `failOn` in the configuration].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,

    /// Disables colors (set by the NO_COLOR environment variable, whatever its value).
    #[arg(long = "no-color", env = "NO_COLOR", hide = true, default_value = "", value_parser = environment_switch)]
    pub no_color: bool,
}

/// A switch set by an environment variable as no-color.org defines `NO_COLOR`: present and not
/// empty turns it on, whatever the value (`NO_COLOR=0` and `NO_COLOR=false` too, which clap's
/// `FalseyValueParser` read as off); absent or empty, it stays off (the flag's default is the
/// empty value, not clap's `false`). The flag itself reads as `true`.
fn environment_switch(value: &str) -> Result<bool, std::convert::Infallible> {
    Ok(!value.is_empty())
}

/// Where the configuration comes from: every command that reads `.hpa-lint.yaml`.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct ConfigArgs {
    /// The configuration file (default: `.hpa-lint.yaml` found upward from the working directory).
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore any configuration file.
    #[arg(long)]
    pub no_config: bool,
}

/// Lint output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// For people: source snippets, labels and help.
    Human,
    /// A stable JSON schema (README, "Output"; `cluster`: docs/cluster.md).
    Json,
    /// SARIF 2.1.0, for SARIF tools and GitHub code scanning (which shows results in files only,
    /// not those of `cluster`).
    Sarif,
    /// GitHub Actions workflow-command annotations.
    Github,
}

/// Colors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The lowest severity that fails the run (`--fail-on`, the configuration's `failOn`).
pub use crate::linter::config::FailOn;

// The examples of each command's `--help`, run from a checkout's root: each command under the
// comment that says what it shows, and `exit N` when its status is not 0 (a command too long for
// one line continues after a `\\`). `tests/tests/lint_cli.rs` runs every `hpa-lint` command
// and checks its status, except those with a pipe or a redirection and those whose comment says
// `live` (they need a cluster) or `writes a file`.

/// `hpa-lint --help`: examples and the exit status.
const LINT_EXAMPLES: &str = "\
Examples (from a checkout's root):
  # a directory, recursively: nothing found
  hpa-lint examples/manifests/good
  # findings at or above --fail-on (default: warning): exit 1
  hpa-lint examples/manifests/bad
  # the stable JSON schema, and status 0 whatever is found
  hpa-lint -o json --fail-on never examples/manifests/bad
  # the rules of another release (1.33 to 1.37; 1.38 as a preview)
  hpa-lint --kubernetes-version 1.33 examples/manifests/good
  # the opt-in rules too, one rule off: exit 1
  hpa-lint --select all --ignore HPA410 examples/
  # rendered output, on standard input
  helm template CHART | hpa-lint -
  # for GitHub code scanning
  hpa-lint -o sarif deploy/ > hpa-lint.sarif

Exit status (every command):
  0  nothing at or above --fail-on was found (validate: every HPA is valid)
  1  findings at or above --fail-on (validate: an HPA kube-apiserver refuses; default, convert,
     explain, simulate: an input they cannot use)
  2  a usage error, a path that does not exist, a file that cannot be read, a configuration
     error, a cluster that cannot be read, or an internal error";

/// `hpa-lint validate --help`.
const VALIDATE_EXAMPLES: &str = "\
Examples:
  # every HPA accepted
  hpa-lint validate examples/manifests/good
  # refused, with kube-apiserver's errors at their lines: exit 1
  hpa-lint validate -o json examples/manifests/bad/broken.yaml
  # as a 1.33 kube-apiserver decides
  hpa-lint validate --kubernetes-version 1.33 examples/manifests/good
  # UPDATE semantics against the live objects, saved with kubectl get -o yaml
  hpa-lint validate --old live.yaml new.yaml";

/// `hpa-lint default --help`.
const DEFAULT_EXAMPLES: &str = "\
Examples:
  # as kube-apiserver returns it after a create
  hpa-lint default examples/manifests/good/web.yaml
  # autoscaling/v1 stays v1, as JSON
  hpa-lint default -o json examples/manifests/good/worker-v1.yaml";

/// `hpa-lint convert --help`.
const CONVERT_EXAMPLES: &str = "\
Examples:
  # to autoscaling/v2 (the default)
  hpa-lint convert examples/manifests/bad/legacy-v2beta1.yaml
  # what autoscaling/v1 cannot hold is a warning on standard error
  hpa-lint convert --to autoscaling/v1 examples/manifests/good/web.yaml";

/// `hpa-lint explain --help`.
const EXPLAIN_EXAMPLES: &str = "\
Examples:
  # every value, where it comes from, and how fast it scales up and down
  hpa-lint explain examples/manifests/good/web.yaml
  # with another --horizontal-pod-autoscaler-downscale-stabilization, as JSON
  hpa-lint explain --downscale-stabilization 5m -o json examples/manifests/good/web.yaml";

/// `hpa-lint simulate --help`.
const SIMULATE_EXAMPLES: &str = "\
Examples (the scenario's format: README.md, \"The scenario file\"):
  # the published 1.23 run: 2 -> 4 -> 8 -> 10 replicas
  hpa-lint simulate examples/simulate/burst-legacy.yaml
  # every sync as JSON, as a 1.36 controller runs it
  hpa-lint simulate -o json --kubernetes-version 1.36 examples/simulate/queue-worker.yaml
  # also an SVG chart (writes a file)
  hpa-lint simulate --plot burst.svg examples/simulate/burst-legacy.yaml";

/// `hpa-lint diagnose --help`.
const DIAGNOSE_EXAMPLES: &str = "\
Examples (gathering a snapshot with kubectl: README.md, \"Diagnose a running HPA\"):
  # live: kubeconfig, current context
  hpa-lint diagnose -n shop web
  # live: another context, as JSON
  hpa-lint diagnose --context prod -n shop web -o json
  # a snapshot: objects and the metrics API's answer, as kubectl wrote them
  hpa-lint diagnose php-apache --snapshot tests/data/diagnose/published-1.23/objects.yaml \\
    tests/data/diagnose/published-1.23/pod-metrics.json";

/// `hpa-lint cluster --help`.
const CLUSTER_EXAMPLES: &str = "\
Examples:
  # live: the current context's namespace
  hpa-lint cluster
  # live: these namespaces
  hpa-lint cluster -n shop -n payments
  # live: every namespace of another context, as JSON
  hpa-lint cluster -A -o json --context prod";

/// `hpa-lint rules --help`.
const RULES_EXAMPLES: &str = "\
Examples:
  # every rule: ID, name, severity
  hpa-lint rules
  # one rule's documentation
  hpa-lint rules HPA201
  # by name, as it checks on 1.33
  hpa-lint rules --kubernetes-version 1.33 missing-resource-request";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate HPAs exactly as kube-apiserver does on create (or update, with --old).
    #[command(after_long_help = VALIDATE_EXAMPLES)]
    Validate(ValidateArgs),
    /// Print HPAs as kube-apiserver returns them, in their own version.
    #[command(after_long_help = DEFAULT_EXAMPLES)]
    Default(ObjectArgs),
    /// Convert HPAs to another autoscaling version, as kube-apiserver converts them.
    #[command(after_long_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Explain the effective scaling behavior of HPAs: every value and where it comes from,
    /// and how fast they can scale up and down.
    #[command(after_long_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Simulate the HPA controller over time from a scenario file: every sync, a chart, JSON or SVG.
    ///
    /// The controller's flags given on the command line override the scenario's `controller:`,
    /// which overrides the configuration file's.
    #[command(after_long_help = SIMULATE_EXAMPLES)]
    Simulate(SimulateArgs),
    /// Replay the HPA controller's current sync of one HPA, live or from a snapshot, and
    /// explain it: per metric, normalization, conditions, the next syncs, why not or slow.
    #[command(after_long_help = DIAGNOSE_EXAMPLES)]
    Diagnose(DiagnoseArgs),
    /// Lint the HPAs a cluster runs, with the same rules and configuration as files: each one
    /// admitted as kube-apiserver admits it, the cross-object rules against the live objects.
    #[command(after_long_help = CLUSTER_EXAMPLES)]
    Cluster(ClusterLintArgs),
    /// List the lint rules, or print one rule's documentation.
    #[command(after_long_help = RULES_EXAMPLES)]
    Rules(RulesArgs),
}

/// Options shared by every command that reads manifests.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct InputArgs {
    /// Skip files whose path matches this glob (repeatable), e.g. `--exclude '**/charts/**'`.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

/// Which Kubernetes the checks reproduce.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct ClusterArgs {
    /// Kubernetes release whose rules apply: 1.33, 1.34, 1.35, 1.36, 1.37, or 1.38 (a preview
    /// of the development branch); a patch release (`v1.34.4`) reads as its release as shipped,
    /// x.y.0 [default: 1.37, or `kubernetesVersion` in the configuration of a command that reads one; `cluster` and
    /// live `diagnose`: the API server's release (`/version`), the nearest profile for one older
    /// than 1.33 or newer than 1.38, 1.37 when it cannot be read, each choice other than the
    /// server's own release said in a note].
    #[arg(long, value_name = "VERSION", global = true)]
    pub kubernetes_version: Option<KubernetesVersion>,

    /// Feature gates, as kube-apiserver's --feature-gates: `HPAScaleToZero=true,...` (repeatable).
    #[arg(long, value_name = "NAME=BOOL,...", global = true)]
    pub feature_gates: Vec<String>,
}

/// `hpa-lint simulate`.
#[derive(Debug, Clone, ClapArgs)]
pub struct SimulateArgs {
    /// The scenario file (YAML; `-` reads standard input, with paths relative to the current
    /// directory).
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,

    /// Output format: a table and chart, or `{"steps": [...]}`.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Human)]
    pub output: ReportFormat,

    /// Also write an SVG chart (replicas and metrics against time) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,

    /// kube-controller-manager's flags (they override the scenario's `controller:`, which
    /// overrides the configuration's).
    #[command(flatten)]
    pub controller: crate::controller_flags::ControllerArgs,

    /// The configuration file (`kubernetesVersion`, `featureGates`, `controller`).
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `hpa-lint validate`.
#[derive(Debug, ClapArgs)]
pub struct ValidateArgs {
    /// Files and directories (`-` reads standard input).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// Previous versions of the objects (matched by namespace and name): validate as an UPDATE.
    #[arg(long, value_name = "PATH")]
    pub old: Vec<String>,

    /// Validate the objects as sent, without kube-apiserver's defaulting (as an admission
    /// webhook receives them).
    #[arg(long)]
    pub no_defaults: bool,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Human)]
    pub output: ReportFormat,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,

    /// The configuration file (`kubernetesVersion`, `featureGates`).
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `hpa-lint default`, and what `hpa-lint convert` reads and how it prints it: objects in files,
/// printed as objects.
#[derive(Debug, ClapArgs)]
pub struct ObjectArgs {
    /// Files and directories (`-` reads standard input).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,

    /// The configuration file (`kubernetesVersion`, `featureGates`).
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `hpa-lint convert`.
#[derive(Debug, ClapArgs)]
pub struct ConvertArgs {
    /// The target version: autoscaling/v2, autoscaling/v1, autoscaling/v2beta2 or autoscaling/v2beta1.
    #[arg(long, value_name = "API_VERSION", default_value = "autoscaling/v2")]
    pub to: String,

    /// The objects, read and printed as `default` reads and prints them.
    #[command(flatten)]
    pub objects: ObjectArgs,
}

/// `hpa-lint explain`.
#[derive(Debug, ClapArgs)]
pub struct ExplainArgs {
    /// Files and directories (`-` reads standard input).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Human)]
    pub output: ReportFormat,

    /// kube-controller-manager settings (over the configuration's `controller:`).
    #[command(flatten)]
    pub controller: crate::controller_flags::ControllerArgs,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,

    /// The configuration file (`kubernetesVersion`, `featureGates`, `controller`).
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `hpa-lint rules`.
#[derive(Debug, ClapArgs)]
pub struct RulesArgs {
    /// A rule ID or name: print its documentation.
    #[arg(value_name = "RULE")]
    pub rule: Option<String>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = RulesFormat::Human)]
    pub output: RulesFormat,
}

/// Formats of `hpa-lint rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// A table, or one rule's documentation.
    Human,
    /// JSON.
    Json,
    /// The Markdown reference (docs/rules.md).
    Markdown,
}

/// Formats of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// For people.
    Human,
    /// For programs.
    Json,
}

/// Formats of objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObjectFormat {
    /// YAML documents separated by `---`.
    Yaml,
    /// One JSON object, or a `List` of several.
    Json,
}

/// `hpa-lint diagnose`.
#[derive(Debug, Clone, ClapArgs)]
pub struct DiagnoseArgs {
    /// The HorizontalPodAutoscaler's name (after `--snapshot FILE...`, the last value is the
    /// name).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Its namespace [default: the kubeconfig context's namespace live; in a snapshot, the
    /// namespace of the one HPA of that name, else `default`].
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Read these files instead of a cluster: the output of `kubectl get
    /// hpa,deploy,sts,rs,pods,pdb,events -n NS -o yaml`, and the JSON of `kubectl get --raw` of
    /// the metrics APIs (see the README).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["context", "kubeconfig"])]
    pub snapshot: Vec<PathBuf>,

    /// The instant of the replayed sync, RFC 3339 [default: now live; the latest instant a
    /// snapshot records].
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,

    /// How to reach the API server.
    #[command(flatten)]
    pub connection: ConnectionArgs,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Human)]
    pub output: ReportFormat,

    /// kube-controller-manager's flags, as the cluster runs it (over the configuration's
    /// `controller:`).
    #[command(flatten)]
    pub controller: crate::controller_flags::ControllerArgs,

    /// The configuration file (`kubernetesVersion`, `featureGates`, `controller`).
    #[command(flatten)]
    pub config: ConfigArgs,

    /// `KUBECONFIG` and the proxy variables, read as kubectl reads them (hidden; last, so that
    /// the help's order of the other flags stays).
    #[command(flatten)]
    pub environment: hpa_cluster::Environment,
}

/// How the live commands (`cluster`, `diagnose`) reach the API server.
#[derive(Debug, Clone, ClapArgs)]
pub struct ConnectionArgs {
    /// The kubeconfig context [default: the current context].
    #[arg(long, value_name = "CONTEXT")]
    pub context: Option<String>,

    /// The kubeconfig file [default: $KUBECONFIG, else ~/.kube/config, else in-cluster].
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The timeout of each API call, in seconds (at least 1).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT.as_secs(), value_parser = timeout_seconds)]
    pub timeout: u64,
}

/// `--timeout`: whole seconds, at least 1. Every call to the API server is bounded here, so
/// kubectl's `--request-timeout=0` (no timeout at all: a server that never answers hangs the
/// command) has no counterpart, and 0 is refused rather than read as some other bound.
fn timeout_seconds(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1 second: every API call has a timeout (there is no \"no timeout\", kubectl's --request-timeout=0)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}: expected whole seconds, e.g. 30")),
    }
}

impl ConnectionArgs {
    /// The client options these flags give, with the environment's variables.
    pub fn client_options(&self, environment: &hpa_cluster::Environment) -> hpa_cluster::ClientOptions {
        hpa_cluster::ClientOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            in_cluster: false,
            timeout: std::time::Duration::from_secs(self.timeout),
            environment: environment.clone(),
        }
    }
}

/// `hpa-lint cluster`.
#[derive(Debug, Clone, ClapArgs)]
pub struct ClusterLintArgs {
    /// Lint the HPAs of this namespace (repeatable) [default: the kubeconfig context's
    /// namespace].
    #[arg(short = 'n', long, value_name = "NAMESPACE", conflicts_with = "all_namespaces")]
    pub namespace: Vec<String>,

    /// Lint the HPAs of every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// How to reach the API server.
    #[command(flatten)]
    pub connection: ConnectionArgs,

    /// Output, rules and failure, as when linting files.
    #[command(flatten)]
    pub findings: FindingsArgs,

    /// The configuration file.
    #[command(flatten)]
    pub config: ConfigArgs,

    /// `KUBECONFIG` and the proxy variables, read as kubectl reads them (hidden; last, so that
    /// the help's order of the other flags stays).
    #[command(flatten)]
    pub environment: hpa_cluster::Environment,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Args::command().debug_assert();
    }

    /// `--timeout 0` is refused when the flags are parsed, in clap's words with ours; it was read
    /// as one second before.
    #[test]
    fn timeout_zero_is_refused() {
        for command in ["cluster", "diagnose"] {
            let mut args = vec!["hpa-lint", command];
            if command == "diagnose" {
                args.push("web");
            }
            let err = Args::try_parse_from(args.iter().copied().chain(["--timeout", "0"])).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::ValueValidation);
            assert_eq!(
                err.to_string().lines().next(),
                Some(
                    "error: invalid value '0' for '--timeout <SECONDS>': must be at least 1 second: every API call has a timeout (there is no \"no timeout\", kubectl's --request-timeout=0)"
                )
            );
            let ok = Args::try_parse_from(args.iter().copied().chain(["--timeout", "1"])).unwrap();
            let Some(
                Command::Cluster(ClusterLintArgs { connection, .. })
                | Command::Diagnose(DiagnoseArgs { connection, .. }),
            ) = ok.command
            else {
                panic!("{command}: parsed as another command");
            };
            assert_eq!(
                connection.client_options(&hpa_cluster::Environment::default()).timeout,
                std::time::Duration::from_secs(1)
            );
        }
        let err = Args::try_parse_from(["hpa-lint", "cluster", "--timeout", "1s"]).unwrap_err();
        assert!(err.to_string().contains("expected whole seconds, e.g. 30"), "{err}");
    }

    /// Every command's `--help`, as users read it, is a snapshot: a change to a flag, a default
    /// or a sentence shows in review. New subcommands are picked up without editing this test.
    #[test]
    fn help_snapshots() {
        fn walk(command: &mut clap::Command, path: &str, seen: &mut Vec<String>) {
            let help = command.render_long_help().to_string();
            insta::assert_snapshot!(format!("help@{path}"), help);
            seen.push(path.to_owned());
            for sub in command.get_subcommands_mut() {
                if sub.get_name() == "help" {
                    continue;
                }
                let path = format!("{path}_{}", sub.get_name());
                walk(sub, &path, seen);
            }
        }
        let mut command = Args::command().term_width(100);
        command.build();
        let mut seen = Vec::new();
        walk(&mut command, "hpa-lint", &mut seen);
        assert!(seen.len() > 5, "subcommands found: {seen:?}");
    }
}
