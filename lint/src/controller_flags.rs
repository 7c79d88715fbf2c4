//! The one place where `hpa-lint` turns kube-controller-manager's HPA flags into hpa-core's
//! [`HPAControllerConfiguration`].
//!
//! The flags come from three sources: the command line (`explain`, `simulate`, `diagnose`), the
//! `controller:` section of `.hpa-lint.yaml` (read by `explain`, `simulate` and `diagnose`, and
//! by `lint` and `cluster` for the rules that look at the controller) and the `controller:`
//! section of a `simulate` scenario. The two sections are one type, hpa-config's
//! [`ControllerFile`](hpa_config::ControllerFile), read by one reader; each source becomes a
//! [`ControllerFlags`] layer, [`check`]ed the same way whatever the source, and
//! [`configuration`] lays them over the controller's defaults (hpa-core's, written once there),
//! later layers winning.

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
    /// The flags a `controller:` section (of `.hpa-lint.yaml` or of a scenario) sets.
    fn from(file: &hpa_config::ControllerFile) -> Self {
        ControllerFlags {
            sync_period: file.sync_period_seconds.map(Duration::from_secs),
            tolerance: file.tolerance,
            downscale_stabilization: file.downscale_stabilization_seconds.map(Duration::from_secs),
            cpu_initialization_period: file.cpu_initialization_period_seconds.map(Duration::from_secs),
            initial_readiness_delay: file.initial_readiness_delay_seconds.map(Duration::from_secs),
        }
    }
}

/// The longest duration kube-controller-manager's duration flags hold: a Go `time.Duration`
/// is an `int64` of nanoseconds, and pflag's `DurationVar` reads a flag with
/// `time.ParseDuration`, which refuses a longer one (`time: invalid duration`).
pub const MAX_FLAG_DURATION: Duration = Duration::from_nanos(i64::MAX as u64);

/// A flag value the controller cannot work with. Its `Display` is the value and why; the
/// caller names the value as its source writes it ([`FlagError::key`], `--tolerance`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FlagError {
    /// A tolerance that is negative, infinite or not a number.
    #[error("{0}: must be a finite number, 0 or more")]
    Tolerance(f64),
    /// A sync period of 0. kube-controller-manager takes it (its flag is any `time.Duration`,
    /// and `HPAControllerOptions.Validate` checks none), but its work queue then hands each HPA
    /// back as soon as its sync ends (`processNextWorkItem` requeues with `AddRateLimited`, whose
    /// `FixedItemIntervalRateLimiter` waits the sync period): the controller syncs without
    /// pause, which no run of syncs one period apart can reproduce.
    #[error(
        "0s: with a sync period of 0 kube-controller-manager syncs each HPA again as soon as its sync ends, which cannot be replayed sync by sync; give a positive duration (15s is the default)"
    )]
    ZeroSyncPeriod,
    /// A duration with a part below a millisecond (`1500us`): kube-controller-manager takes it,
    /// but hpa-core's controller counts time in whole milliseconds, so it would not be honoured
    /// exactly.
    #[error(
        "{value:?}: not a whole number of milliseconds; simulate, explain and diagnose count the controller's time in milliseconds: write it as {rounded}ms or another whole number of milliseconds",
        rounded = .value.as_millis().max(1)
    )]
    BelowMillisecond {
        /// kube-controller-manager's flag (hpa-core's `*_FLAG` names).
        flag: &'static str,
        /// The value given.
        value: Duration,
    },
    /// A duration longer than a Go `time.Duration` holds ([`MAX_FLAG_DURATION`]):
    /// kube-controller-manager refuses such a flag when it starts.
    #[error(
        "{}s: longer than kube-controller-manager's flag holds (a Go time.Duration: at most {}s)",
        .value.as_secs(),
        MAX_FLAG_DURATION.as_secs()
    )]
    TooLong {
        /// kube-controller-manager's flag (hpa-core's `*_FLAG` names).
        flag: &'static str,
        /// The value given.
        value: Duration,
    },
}

impl FlagError {
    /// The key of the refused value in a `controller:` section (`tolerance`,
    /// `syncPeriodSeconds`).
    pub fn key(&self) -> &'static str {
        match self {
            FlagError::Tolerance(_) => "tolerance",
            FlagError::ZeroSyncPeriod => "syncPeriodSeconds",
            FlagError::TooLong { flag, .. } | FlagError::BelowMillisecond { flag, .. } => match *flag {
                SYNC_PERIOD_FLAG => "syncPeriodSeconds",
                DOWNSCALE_STABILIZATION_FLAG => "downscaleStabilizationSeconds",
                CPU_INITIALIZATION_PERIOD_FLAG => "cpuInitializationPeriodSeconds",
                _ => "initialReadinessDelaySeconds",
            },
        }
    }

    /// The command line's name of the refused flag (`--tolerance`, `--sync-period`), else
    /// kube-controller-manager's.
    pub fn flag_name(&self) -> &'static str {
        let flag = match self {
            FlagError::Tolerance(_) => TOLERANCE_FLAG,
            FlagError::ZeroSyncPeriod => SYNC_PERIOD_FLAG,
            FlagError::TooLong { flag, .. } | FlagError::BelowMillisecond { flag, .. } => flag,
        };
        ControllerArgs::name_of(flag).unwrap_or(flag)
    }
}

/// Refuses a layer's value the controller cannot work with, or that would not be honoured
/// exactly: a tolerance that is negative or not a number, a sync period of 0
/// ([`FlagError::ZeroSyncPeriod`]), a duration with a part below a millisecond
/// ([`FlagError::BelowMillisecond`]), a duration a Go `time.Duration` cannot hold
/// ([`MAX_FLAG_DURATION`]). Any other duration is taken as it is, a sync period below a second
/// included (the controller's work queue waits exactly the period between two syncs). The one
/// check of every source ([`configuration`] runs it on each layer; a scenario's reader runs it
/// first, to point at the value).
pub fn check(layer: &ControllerFlags) -> Result<(), FlagError> {
    if let Some(t) = layer.tolerance
        && !(t.is_finite() && t >= 0.0)
    {
        return Err(FlagError::Tolerance(t));
    }
    if layer.sync_period == Some(Duration::ZERO) {
        return Err(FlagError::ZeroSyncPeriod);
    }
    let durations = [
        (SYNC_PERIOD_FLAG, layer.sync_period),
        (DOWNSCALE_STABILIZATION_FLAG, layer.downscale_stabilization),
        (CPU_INITIALIZATION_PERIOD_FLAG, layer.cpu_initialization_period),
        (INITIAL_READINESS_DELAY_FLAG, layer.initial_readiness_delay),
    ];
    for (flag, value) in durations {
        match value {
            Some(value) if value > MAX_FLAG_DURATION => return Err(FlagError::TooLong { flag, value }),
            Some(value) if value.subsec_nanos() % 1_000_000 != 0 => {
                return Err(FlagError::BelowMillisecond { flag, value });
            }
            _ => {}
        }
    }
    Ok(())
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
        check(layer).map_err(|e| (e, from.clone()))?;
        let ControllerFlags {
            sync_period,
            tolerance,
            downscale_stabilization,
            cpu_initialization_period,
            initial_readiness_delay,
        } = layer;
        if let Some(v) = sync_period {
            c.sync_period = *v;
            p.sync_period = from.clone();
        }
        if let Some(v) = tolerance {
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
    /// --horizontal-pod-autoscaler-sync-period: seconds, or a duration.
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = seconds_or_duration,
        help = with_default(
            &format!("{SYNC_PERIOD_FLAG}, in seconds (15) or as a duration (15s, 1m30s)"),
            format_args!("{}s", Configuration::DEFAULT_SYNC_PERIOD.as_secs())
        )
    )]
    pub sync_period: Option<Duration>,

    /// --horizontal-pod-autoscaler-tolerance.
    #[arg(
        long,
        value_name = "RATIO",
        value_parser = ratio,
        help = with_default(TOLERANCE_FLAG, Configuration::DEFAULT_TOLERANCE)
    )]
    pub tolerance: Option<f64>,

    /// --horizontal-pod-autoscaler-downscale-stabilization: seconds, or a duration.
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = seconds_or_duration,
        help = with_default(
            &format!("{DOWNSCALE_STABILIZATION_FLAG}, in seconds (300) or as a duration (5m)"),
            format_args!("{}s", Configuration::DEFAULT_DOWNSCALE_STABILIZATION_WINDOW.as_secs())
        )
    )]
    pub downscale_stabilization: Option<Duration>,
}

/// A duration flag's value: a whole number of seconds (`15`), or a duration as
/// kube-controller-manager's flag takes it (`15s`, `1m30s`: Go's `time.ParseDuration`,
/// [`hpa_core::go::parse_duration`]), not negative. Refused, the message says what to write.
fn seconds_or_duration(text: &str) -> Result<Duration, String> {
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let expected =
        "expected a whole number of seconds (15) or a duration as kube-controller-manager takes it (15s, 1m30s, 500ms)";
    match hpa_core::go::parse_duration(text) {
        Ok(nanos) => u64::try_from(nanos)
            .map(Duration::from_nanos)
            .map_err(|_| format!("{expected}; a duration must not be negative")),
        Err(e) => Err(format!("{expected}: {e}")),
    }
}

/// The tolerance flag's value as pflag's `Float64Var` reads it (`strconv.ParseFloat`): a number
/// past a float64's range (`1e400`) is refused as kube-controller-manager refuses it, where
/// Rust's parser would make it an infinity (and the message would name `inf`, not what was
/// written); `inf` and `NaN` are read, and refused by [`check`].
fn ratio(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|_| format!("strconv.ParseFloat: parsing {text:?}: invalid syntax"))?;
    let spelled_infinite = text.trim_start_matches(['+', '-']).to_ascii_lowercase().starts_with("inf");
    if value.is_infinite() && !spelled_infinite {
        return Err(format!(
            "strconv.ParseFloat: parsing {text:?}: value out of range (kube-controller-manager refuses it; a tolerance is a ratio such as 0.1)"
        ));
    }
    Ok(value)
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
            sync_period: self.sync_period,
            tolerance: self.tolerance,
            downscale_stabilization: self.downscale_stabilization,
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
        let (err, from) = configuration(FeatureGates::default(), &[(&zero, Provenance::CommandLine)]).unwrap_err();
        assert_eq!((err.flag_name(), err.key(), from), ("--sync-period", "syncPeriodSeconds", Provenance::CommandLine));
        assert_eq!(
            err.to_string(),
            "0s: with a sync period of 0 kube-controller-manager syncs each HPA again as soon as its sync ends, which cannot be replayed sync by sync; give a positive duration (15s is the default)"
        );
        let fine = ControllerFlags { tolerance: Some(0.1), ..Default::default() };
        for t in [-0.1, f64::NAN, f64::INFINITY] {
            let bad = ControllerFlags { tolerance: Some(t), ..Default::default() };
            let layers = [(&fine, Provenance::CommandLine), (&bad, Provenance::Scenario)];
            let (err, from) = configuration(FeatureGates::default(), &layers).unwrap_err();
            assert!(err.to_string().ends_with(": must be a finite number, 0 or more"), "{err}");
            assert_eq!(err.key(), "tolerance");
            assert_eq!(from, Provenance::Scenario, "the refused layer is named");
        }
    }

    /// A sync period below a second is the controller's period, as its work queue waits it
    /// (no longer raised to 1 s); a part below a millisecond is refused, naming the flag.
    #[test]
    fn sub_second_sync_periods_are_honoured_to_the_millisecond() {
        let half = ControllerFlags { sync_period: Some(Duration::from_millis(500)), ..Default::default() };
        let (c, _) = configuration(FeatureGates::default(), &[(&half, Provenance::CommandLine)]).unwrap();
        assert_eq!((c.sync_period, c.sync_period_millis()), (Duration::from_millis(500), 500));
        let cases = [
            (ControllerFlags { sync_period: Some(Duration::from_micros(1500)), ..Default::default() }, "--sync-period"),
            (
                ControllerFlags { downscale_stabilization: Some(Duration::from_nanos(1)), ..Default::default() },
                "--downscale-stabilization",
            ),
        ];
        for (flags, name) in &cases {
            let (err, _) = configuration(FeatureGates::default(), &[(flags, Provenance::CommandLine)]).unwrap_err();
            assert_eq!(err.flag_name(), *name);
        }
        let (err, _) = configuration(FeatureGates::default(), &[(&cases[0].0, Provenance::CommandLine)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1.5ms: not a whole number of milliseconds; simulate, explain and diagnose count the controller's time in milliseconds: write it as 1ms or another whole number of milliseconds"
        );
    }

    /// A duration past what a Go `time.Duration` holds (2^63-1 ns) is refused, from any layer,
    /// as kube-controller-manager refuses the flag; the longest one it holds is taken.
    #[test]
    fn durations_past_go_time_duration_are_refused() {
        let longest = Duration::from_secs(9_223_372_036);
        let ok = ControllerFlags { sync_period: Some(longest), ..Default::default() };
        let (c, _) = configuration(FeatureGates::default(), &[(&ok, Provenance::CommandLine)]).unwrap();
        assert_eq!(c.sync_period, longest);
        let cases: [(ControllerFlags, &str, &str); 4] = [
            (
                ControllerFlags { sync_period: Some(longest + Duration::from_secs(1)), ..Default::default() },
                "--sync-period",
                "syncPeriodSeconds",
            ),
            (
                ControllerFlags { downscale_stabilization: Some(Duration::from_secs(u64::MAX)), ..Default::default() },
                "--downscale-stabilization",
                "downscaleStabilizationSeconds",
            ),
            (
                ControllerFlags {
                    cpu_initialization_period: Some(Duration::from_secs(u64::MAX)),
                    ..Default::default()
                },
                CPU_INITIALIZATION_PERIOD_FLAG,
                "cpuInitializationPeriodSeconds",
            ),
            (
                ControllerFlags { initial_readiness_delay: Some(Duration::from_secs(u64::MAX)), ..Default::default() },
                INITIAL_READINESS_DELAY_FLAG,
                "initialReadinessDelaySeconds",
            ),
        ];
        for (flags, name, key) in cases {
            let (err, from) = configuration(FeatureGates::default(), &[(&flags, Provenance::Scenario)]).unwrap_err();
            assert_eq!((err.flag_name(), err.key(), from), (name, key, Provenance::Scenario));
        }
        let past = ControllerFlags { sync_period: Some(Duration::from_secs(9_223_372_037)), ..Default::default() };
        let (err, _) = configuration(FeatureGates::default(), &[(&past, Provenance::CommandLine)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "9223372037s: longer than kube-controller-manager's flag holds (a Go time.Duration: at most 9223372036s)"
        );
    }
}
