//! Command-line interface: every flag and subcommand, documented by its doc comment.

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

use hpa_core::features::{FeatureGates, KubernetesVersion};

/// Lint, validate, default, convert and explain Kubernetes HorizontalPodAutoscalers offline,
/// exactly as kube-apiserver and the HPA controller would treat them.
#[derive(Debug, Parser)]
#[command(name = "hpa-lint", version, propagate_version = true, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// A subcommand; without one, the given paths are validated.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Files and directories to check (`-` reads standard input).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,

    /// Kubernetes release and feature gates.
    #[command(flatten)]
    pub cluster: ClusterArgs,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Human)]
    pub output: ReportFormat,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate HPAs exactly as kube-apiserver does on create (or update, with --old).
    Validate(ValidateArgs),
    /// Print HPAs after kube-apiserver's defaulting, in their own version.
    Default(DefaultArgs),
    /// Convert HPAs to another autoscaling version, as kube-apiserver converts them.
    Convert(ConvertArgs),
    /// Explain the effective scaling behavior of HPAs: every value and where it comes from,
    /// and how fast they can scale up and down.
    Explain(ExplainArgs),
}

/// Options shared by every command that reads manifests.
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct InputArgs {
    /// Skip files whose path matches this glob (repeatable), e.g. `--exclude '**/charts/**'`.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

/// Which Kubernetes the checks reproduce.
#[derive(Debug, Clone, ClapArgs)]
pub struct ClusterArgs {
    /// Kubernetes release whose rules apply (1.36 or 1.37).
    #[arg(long, value_name = "VERSION", default_value_t = KubernetesVersion::LATEST, global = true)]
    pub kubernetes_version: KubernetesVersion,

    /// Feature gates, as kube-apiserver's --feature-gates: `HPAScaleToZero=true,...` (repeatable).
    #[arg(long, value_name = "NAME=BOOL,...", global = true)]
    pub feature_gates: Vec<String>,
}

impl Default for ClusterArgs {
    fn default() -> Self {
        ClusterArgs { kubernetes_version: KubernetesVersion::LATEST, feature_gates: Vec::new() }
    }
}

impl ClusterArgs {
    /// The feature gates these flags describe.
    pub fn gates(&self) -> Result<FeatureGates, hpa_core::features::GateError> {
        let mut gates = FeatureGates::new(self.kubernetes_version);
        for spec in &self.feature_gates {
            gates.apply(spec)?;
        }
        Ok(gates)
    }
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
}

/// `hpa-lint default`.
#[derive(Debug, ClapArgs)]
pub struct DefaultArgs {
    /// Files and directories (`-` reads standard input).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,
}

/// `hpa-lint convert`.
#[derive(Debug, ClapArgs)]
pub struct ConvertArgs {
    /// Files and directories (`-` reads standard input).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// The target version: autoscaling/v2, autoscaling/v1, autoscaling/v2beta2 or autoscaling/v2beta1.
    #[arg(long, value_name = "API_VERSION", default_value = "autoscaling/v2")]
    pub to: String,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,
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

    /// kube-controller-manager settings.
    #[command(flatten)]
    pub controller: ControllerArgs,

    /// Input options.
    #[command(flatten)]
    pub input: InputArgs,
}

/// kube-controller-manager's HPA flags (defaults are the controller's).
#[derive(Debug, Clone, ClapArgs)]
pub struct ControllerArgs {
    /// --horizontal-pod-autoscaler-sync-period, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 15)]
    pub sync_period: u64,

    /// --horizontal-pod-autoscaler-tolerance.
    #[arg(long, value_name = "RATIO", default_value_t = 0.1)]
    pub tolerance: f64,

    /// --horizontal-pod-autoscaler-downscale-stabilization, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub downscale_stabilization: u64,
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Args::command().debug_assert();
    }
}
