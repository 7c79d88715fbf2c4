//! The one place where `hpa-lint` turns kube-controller-manager's HPA flags into hpa-core's
//! [`HPAControllerConfiguration`].
//!
//! The flags come from three sources: the command line (`explain`, `simulate`, `diagnose`), the
//! `controller:` section of `.hpa-lint.yaml` (read by `explain`, `simulate` and `diagnose`, and
//! by `lint` and `cluster` for the rules that look at the controller) and the `controller:`
//! section of a `simulate` scenario. Each source reads its own syntax into a [`ControllerFlags`] layer;
//! [`configuration`] lays them over the controller's defaults (hpa-core's, written once there),
//! later layers winning, and checks the result the same way whatever the source.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args as ClapArgs;
use hpa_core::evaluator::HPAControllerConfiguration;
use hpa_core::evaluator::config::{
    CPU_INITIALIZATION_PERIOD_FLAG, DOWNSCALE_STABILIZATION_FLAG, INITIAL_READINESS_DELAY_FLAG, SYNC_PERIOD_FLAG,
    TOLERANCE_FLAG,
};
use hpa_core::features::FeatureGates;

/// Short for the help texts below.
type Configuration = HPAControllerConfiguration;

/// The shortest sync period the controller is run with: a shorter one (a sync period of 0
/// would sync without pause) counts as one second.
pub const MIN_SYNC_PERIOD: Duration = Duration::from_secs(1);

/// Values for the controller's flags from one source; `None` keeps the value below.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControllerFlags {
    /// `--horizontal-pod-autoscaler-sync-period`.
    pub sync_period: Option<Duration>,
    /// `--horizontal-pod-autoscaler-tolerance`.
    pub tolerance: Option<f64>,
    /// `--horizontal-pod-autoscaler-downscale-stabilization`.
    pub downscale_stabilization: Option<Duration>,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`.
    pub cpu_initialization_period: Option<Duration>,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`.
    pub initial_readiness_delay: Option<Duration>,
}

impl From<&hpa_config::ControllerFile> for ControllerFlags {
    /// The flags the `controller:` section of `.hpa-lint.yaml` sets.
    fn from(file: &hpa_config::ControllerFile) -> Self {
        ControllerFlags {
            sync_period: file.sync_period_seconds.map(Duration::from_secs),
            tolerance: file.tolerance,
            downscale_stabilization: file.downscale_stabilization_seconds.map(Duration::from_secs),
            ..ControllerFlags::default()
        }
    }
}

/// A flag value the controller cannot work with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FlagError {
    /// A tolerance that is negative or not a number (callers name the source: `--tolerance`,
    /// `controller.tolerance`).
    #[error("tolerance {0}: must be a number, 0 or more")]
    Tolerance(f64),
}

impl FlagError {
    /// The key of the refused value in a `controller:` section (`tolerance`).
    pub fn key(&self) -> &'static str {
        match self {
            FlagError::Tolerance(_) => "tolerance",
        }
    }
}

/// Where a controller value in effect comes from: the layer that set it last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Provenance {
    /// kube-controller-manager's default (no layer set it).
    #[default]
    ControllerDefault,
    /// The `controller:` section of this configuration file.
    ConfigurationFile(PathBuf),
    /// The `controller:` section of a `simulate` scenario.
    Scenario,
    /// The command line (`--sync-period`, `--tolerance`, `--downscale-stabilization`).
    CommandLine,
}

/// The [`Provenance`] of each of the controller's flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenances {
    /// `--horizontal-pod-autoscaler-sync-period`.
    pub sync_period: Provenance,
    /// `--horizontal-pod-autoscaler-tolerance`.
    pub tolerance: Provenance,
    /// `--horizontal-pod-autoscaler-downscale-stabilization`.
    pub downscale_stabilization: Provenance,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`.
    pub cpu_initialization_period: Provenance,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`.
    pub initial_readiness_delay: Provenance,
}

impl Provenances {
    /// The provenance of the value of kube-controller-manager's `flag` (hpa-core's
    /// `*_FLAG` names, as [`hpa_core::effective::Valued::origin`] gives them); `None` for a
    /// name that is not one of the flags (the controller's constants).
    pub fn of_flag(&self, flag: &str) -> Option<&Provenance> {
        match flag {
            SYNC_PERIOD_FLAG => Some(&self.sync_period),
            TOLERANCE_FLAG => Some(&self.tolerance),
            DOWNSCALE_STABILIZATION_FLAG => Some(&self.downscale_stabilization),
            CPU_INITIALIZATION_PERIOD_FLAG => Some(&self.cpu_initialization_period),
            INITIAL_READINESS_DELAY_FLAG => Some(&self.initial_readiness_delay),
            _ => None,
        }
    }
}

/// The controller's configuration: kube-controller-manager's defaults with `gates`, then each
/// layer in order (a later layer wins), with where each value comes from (the last layer
/// that sets it). A value the controller cannot work with is refused with its layer's
/// provenance.
pub fn configuration(
    gates: FeatureGates,
    layers: &[(&ControllerFlags, Provenance)],
) -> Result<(HPAControllerConfiguration, Provenances), (FlagError, Provenance)> {
    let mut c = HPAControllerConfiguration::new(gates);
    let mut p = Provenances::default();
    for (layer, from) in layers {
        let ControllerFlags {
            sync_period,
            tolerance,
            downscale_stabilization,
            cpu_initialization_period,
            initial_readiness_delay,
        } = layer;
        if let Some(v) = sync_period {
            c.sync_period = (*v).max(MIN_SYNC_PERIOD);
            p.sync_period = from.clone();
        }
        if let Some(v) = tolerance {
            if !(v.is_finite() && *v >= 0.0) {
                return Err((FlagError::Tolerance(*v), from.clone()));
            }
            c.tolerance = *v;
            p.tolerance = from.clone();
        }
        if let Some(v) = downscale_stabilization {
            c.downscale_stabilization_window = *v;
            p.downscale_stabilization = from.clone();
        }
        if let Some(v) = cpu_initialization_period {
            c.cpu_initialization_period = *v;
            p.cpu_initialization_period = from.clone();
        }
        if let Some(v) = initial_readiness_delay {
            c.initial_readiness_delay = *v;
            p.initial_readiness_delay = from.clone();
        }
    }
    Ok((c, p))
}

/// kube-controller-manager's HPA flags on the command line (`explain`, `simulate`, `diagnose`); a
/// flag not given keeps the value below it (a scenario's, the configuration file's, or the
/// controller's default).
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct ControllerArgs {
    /// --horizontal-pod-autoscaler-sync-period, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        help = with_default(
            &format!("{SYNC_PERIOD_FLAG}, in seconds"),
            format_args!("{}s", Configuration::DEFAULT_SYNC_PERIOD.as_secs())
        )
    )]
    pub sync_period: Option<u64>,

    /// --horizontal-pod-autoscaler-tolerance.
    #[arg(long, value_name = "RATIO", help = with_default(TOLERANCE_FLAG, Configuration::DEFAULT_TOLERANCE))]
    pub tolerance: Option<f64>,

    /// --horizontal-pod-autoscaler-downscale-stabilization, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        help = with_default(
            &format!("{DOWNSCALE_STABILIZATION_FLAG}, in seconds"),
            format_args!("{}s", Configuration::DEFAULT_DOWNSCALE_STABILIZATION_WINDOW.as_secs())
        )
    )]
    pub downscale_stabilization: Option<u64>,
}

/// A flag's help with its default: the controller's, unless the configuration file (or a
/// scenario) sets one, so not clap's `[default: ...]`, which would claim the controller's
/// value wins.
fn with_default(help: &str, default: impl std::fmt::Display) -> String {
    format!("{help} [default: the controller's, {default}, or the configuration file's]")
}

impl ControllerArgs {
    /// The command line's name for kube-controller-manager's `flag` (`--tolerance` for
    /// `--horizontal-pod-autoscaler-tolerance`), when it has one.
    pub fn name_of(flag: &str) -> Option<&'static str> {
        match flag {
            SYNC_PERIOD_FLAG => Some("--sync-period"),
            TOLERANCE_FLAG => Some("--tolerance"),
            DOWNSCALE_STABILIZATION_FLAG => Some("--downscale-stabilization"),
            _ => None,
        }
    }

    /// The flags given on the command line.
    pub fn flags(&self) -> ControllerFlags {
        ControllerFlags {
            sync_period: self.sync_period.map(Duration::from_secs),
            tolerance: self.tolerance,
            downscale_stabilization: self.downscale_stabilization.map(Duration::from_secs),
            ..ControllerFlags::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_layers_win_and_defaults_stay() {
        let file =
            ControllerFlags { sync_period: Some(Duration::from_secs(30)), tolerance: Some(0.2), ..Default::default() };
        let cli = ControllerFlags { tolerance: Some(0.05), ..Default::default() };
        let (c, _) =
            configuration(FeatureGates::default(), &[(&file, Provenance::Scenario), (&cli, Provenance::CommandLine)])
                .unwrap();
        assert_eq!((c.sync_period, c.tolerance), (Duration::from_secs(30), 0.05));
        assert_eq!(
            c.downscale_stabilization_window,
            HPAControllerConfiguration::DEFAULT_DOWNSCALE_STABILIZATION_WINDOW
        );
    }

    #[test]
    fn provenance_is_the_last_layer_that_sets_a_value() {
        let file =
            ControllerFlags { sync_period: Some(Duration::from_secs(30)), tolerance: Some(0.2), ..Default::default() };
        let cli = ControllerFlags { tolerance: Some(0.05), ..Default::default() };
        let path = PathBuf::from(".hpa-lint.yaml");
        let (_, p) = configuration(
            FeatureGates::default(),
            &[
                (&file, Provenance::ConfigurationFile(path.clone())),
                (&ControllerFlags::default(), Provenance::Scenario),
                (&cli, Provenance::CommandLine),
            ],
        )
        .unwrap();
        assert_eq!(p.of_flag(SYNC_PERIOD_FLAG), Some(&Provenance::ConfigurationFile(path)));
        assert_eq!(p.of_flag(TOLERANCE_FLAG), Some(&Provenance::CommandLine));
        assert_eq!(p.of_flag(DOWNSCALE_STABILIZATION_FLAG), Some(&Provenance::ControllerDefault));
        assert_eq!(p.of_flag("scaleUpLimitFactor"), None);
    }

    #[test]
    fn values_the_controller_cannot_use() {
        let zero = ControllerFlags { sync_period: Some(Duration::ZERO), ..Default::default() };
        let (c, _) = configuration(FeatureGates::default(), &[(&zero, Provenance::CommandLine)]).unwrap();
        assert_eq!(c.sync_period, MIN_SYNC_PERIOD);
        let fine = ControllerFlags { tolerance: Some(0.1), ..Default::default() };
        for t in [-0.1, f64::NAN, f64::INFINITY] {
            let bad = ControllerFlags { tolerance: Some(t), ..Default::default() };
            let layers = [(&fine, Provenance::CommandLine), (&bad, Provenance::Scenario)];
            let (err, from) = configuration(FeatureGates::default(), &layers).unwrap_err();
            assert!(err.to_string().starts_with("tolerance "), "{err}");
            assert_eq!(from, Provenance::Scenario, "the refused layer is named");
        }
    }
}
