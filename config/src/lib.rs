//! `hpa-config`: `.hpa-lint.yaml`, the file format and its one reader, for every front end that
//! takes it: `hpa-lint` (found upward from the working directory, or given with `--config`) and
//! `hpa-webhook serve --lint-config` (so that admission runs the rules as CI does).
//!
//! The file sets rules on or off and their severities, the target Kubernetes version, feature
//! gates, the bounds of the numeric rules, kube-controller-manager's flags and, for files, which
//! objects form a set. It is read with hpa-yaml's reader (YAML as kubectl reads it, one
//! document, unknown and duplicate fields refused) into types decoded by hpa-core's one decoder;
//! what it means for the rules is hpa-core's ([`RuleLevel`], [`hpa_core::rules::Settings`]).
//! This crate does no other IO than reading the file it is given (or found).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hpa_core::api::decode::{Abort, Decode, Decoder, GoType, Kind, Shape, Source};
use hpa_core::rules::{self, Settings, Severity};

/// The configuration file names looked for, in order.
pub const FILE_NAMES: [&str; 2] = [".hpa-lint.yaml", ".hpa-lint.yml"];

/// The file's content.
#[derive(Debug, Clone, Default, Decode)]
#[go(package = "config", rename_all = "camelCase")]
pub struct ConfigFile {
    /// `kubernetesVersion: "1.37"`
    pub kubernetes_version: Option<String>,
    /// `featureGates: {HPAScaleToZero: true}` or `"HPAScaleToZero=true,..."`.
    pub feature_gates: Option<FeatureGatesSetting>,
    /// `failOn: warning`
    pub fail_on: Option<FailOn>,
    /// Globs of paths to skip.
    pub exclude: Vec<String>,
    /// Rule ID or name → `off`, `on` (its default severity) or a severity.
    pub rules: BTreeMap<String, LevelSetting>,
    /// Which objects the cross-object rules match an HPA with.
    pub scope: Option<Scope>,
    /// Bounds of the numeric rules.
    pub settings: SettingsFile,
    /// kube-controller-manager's flags.
    pub controller: ControllerFile,
}

/// Feature gates as a map or a `--feature-gates` string.
#[derive(Debug, Clone)]
pub enum FeatureGatesSetting {
    /// `{Name: bool}`
    Map(BTreeMap<String, bool>),
    /// `"Name=bool,..."`
    Flag(String),
}

impl FeatureGatesSetting {
    /// As a `--feature-gates` value.
    pub fn as_flag(&self) -> String {
        match self {
            FeatureGatesSetting::Flag(s) => s.clone(),
            FeatureGatesSetting::Map(m) => m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
        }
    }
}

/// A rule's level as written: YAML 1.1 reads `off`/`on` as booleans.
#[derive(Debug, Clone)]
pub enum LevelSetting {
    /// `on`/`off`, `true`/`false`.
    Switch(bool),
    /// `error`, `warning`, `info`, `off`, `on`.
    Named(String),
}

/// Which objects form a manifest set: the objects the cross-object rules (missing requests,
/// conflicting HPAs, PDBs, VPAs, ...) look at for an HPA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Decode)]
#[go(package = "config", rename_all = "lowercase")]
pub enum Scope {
    /// Only the objects of the HPA's own file.
    File,
    /// The objects of the files in the HPA's directory, as `kubectl apply -f DIR` applies them
    /// together; a directory that defines one object twice is a collection of alternatives
    /// (overlays, examples) and each of its files is then a set of its own.
    #[default]
    Directory,
    /// Every object checked (standard input, rendered with `kustomize build` or `helm
    /// template`, is always one set).
    All,
}

/// The lowest severity of a finding that fails the run (exit status 1): `failOn`, and
/// `hpa-lint --fail-on`; `warning` when neither is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Decode)]
#[go(package = "config", rename_all = "lowercase")]
pub enum FailOn {
    /// Errors only.
    Error,
    /// Warnings and errors.
    #[default]
    Warning,
    /// Any finding.
    Info,
    /// Never (findings are reported, the exit status is 0 unless an input cannot be read).
    Never,
}

impl FailOn {
    /// The severity that fails the run, `None` for [`FailOn::Never`].
    pub fn severity(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

/// `settings:`
#[derive(Debug, Clone, Default, Decode)]
#[go(package = "config", rename_all = "camelCase")]
pub struct SettingsFile {
    /// `min-replicas-below-threshold`
    pub min_replicas: Option<i32>,
    /// `max-replicas-above-limit`
    pub max_replicas_limit: Option<i32>,
    /// `slow-scale-up`
    pub max_scale_up_seconds: Option<i64>,
    /// `short-scale-down-window`
    pub min_scale_down_window_seconds: Option<i32>,
    /// `min-replicas-equals-max`
    pub min_replica_spread: Option<i32>,
}

/// `controller:`: kube-controller-manager's HPA flags, in `.hpa-lint.yaml` and in an
/// `hpa-lint simulate` scenario alike (one syntax, durations in whole seconds).
#[derive(Debug, Clone, Default, Decode)]
#[go(package = "config", rename_all = "camelCase")]
pub struct ControllerFile {
    /// `--horizontal-pod-autoscaler-sync-period`, seconds.
    pub sync_period_seconds: Option<u64>,
    /// `--horizontal-pod-autoscaler-tolerance`.
    pub tolerance: Option<f64>,
    /// `--horizontal-pod-autoscaler-downscale-stabilization`, seconds.
    pub downscale_stabilization_seconds: Option<u64>,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`, seconds.
    pub cpu_initialization_period_seconds: Option<u64>,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`, seconds.
    pub initial_readiness_delay_seconds: Option<u64>,
}

impl SettingsFile {
    /// hpa-core's settings with the bounds this section sets over `settings`' (the others kept).
    pub fn apply(&self, settings: Settings) -> Settings {
        Settings {
            min_replicas: self.min_replicas.unwrap_or(settings.min_replicas),
            max_replicas_limit: self.max_replicas_limit.or(settings.max_replicas_limit),
            max_scale_up_seconds: self.max_scale_up_seconds.unwrap_or(settings.max_scale_up_seconds),
            min_scale_down_window_seconds: self
                .min_scale_down_window_seconds
                .unwrap_or(settings.min_scale_down_window_seconds),
            min_replica_spread: self.min_replica_spread.unwrap_or(settings.min_replica_spread),
            ..settings
        }
    }
}

// === decoding the enumerations (the structs derive `Decode`) ===

impl Default for FeatureGatesSetting {
    fn default() -> Self {
        FeatureGatesSetting::Map(BTreeMap::new())
    }
}

impl Decode for FeatureGatesSetting {
    fn go_type(_: &str) -> String {
        "config.FeatureGates".into()
    }

    fn shape() -> Shape {
        Shape::Described("a mapping of feature gates to true or false, or a string Name=true,Other=false")
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Object => {
                let mut map = BTreeMap::new();
                map.decode(d, GoType::Default)?;
                *self = FeatureGatesSetting::Map(map);
                Ok(())
            }
            Kind::String => {
                let mut flag = String::new();
                flag.decode(d, GoType::Default)?;
                *self = FeatureGatesSetting::Flag(flag);
                Ok(())
            }
            Kind::Null => d.skip(),
            other => d.mismatch::<Self>(other.go_name(), ty),
        }
    }
}

impl Default for LevelSetting {
    fn default() -> Self {
        LevelSetting::Switch(true)
    }
}

impl Decode for LevelSetting {
    fn go_type(_: &str) -> String {
        "config.Level".into()
    }

    fn shape() -> Shape {
        Shape::Described("off, on, error, warning or info")
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Bool => {
                let mut on = false;
                on.decode(d, GoType::Default)?;
                *self = LevelSetting::Switch(on);
                Ok(())
            }
            Kind::String => {
                let mut name = String::new();
                name.decode(d, GoType::Default)?;
                *self = LevelSetting::Named(name);
                Ok(())
            }
            Kind::Null => d.skip(),
            other => d.mismatch::<Self>(other.go_name(), ty),
        }
    }
}

pub use hpa_core::check::RuleLevel;

/// Where a value of a configuration file is written: `file:line:column`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The file's name as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A configuration the tools cannot use, with where the problem is (the file, or the
/// `file:line:column` of the value).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: cannot read the configuration: {source}")]
    Read {
        /// The file's name as given.
        file: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{file}: not UTF-8: {source}")]
    NotUtf8 {
        /// The file's name as given.
        file: String,
        /// Where the text stops being UTF-8.
        source: std::str::Utf8Error,
    },
    /// hpa-yaml's reader refuses it: not YAML as kubectl reads it, more than one document, an
    /// unknown or duplicate field, a value of the wrong type (its first problem).
    #[error("{file}:{error}")]
    Yaml {
        /// The file's name as given.
        file: String,
        /// The problem, at its line and column.
        error: hpa_yaml::read::ReadError,
    },
    /// `kubernetesVersion` written as a YAML number (`1.30` would be the release 1.3).
    #[error(
        "{at}: kubernetesVersion: {written} is a number in YAML; write the release as a string: kubernetesVersion: \"{written}\""
    )]
    VersionIsANumber {
        /// Where the value is.
        at: Position,
        /// The number as written.
        written: String,
    },
    /// `rules:` names no rule.
    #[error("{at}: unknown rule {rule:?} (see `hpa-lint rules`)")]
    UnknownRule {
        /// Where the key is.
        at: Position,
        /// The key as written.
        rule: String,
    },
    /// A rule's level is none of `off`, `on`, `error`, `warning`, `info`.
    #[error("{at}: rule {rule}: expected off, on, error, warning or info, found {level:?}")]
    UnknownLevel {
        /// Where the rule's key is.
        at: Position,
        /// The rule as written.
        rule: String,
        /// The level as written.
        level: String,
    },
    /// A bound of `settings:` below what its rule can use (`minReplicas: -1` would turn
    /// `min-replicas-below-threshold` off without a word).
    #[error("{at}: settings.{field}: {value} is below {min}: {advice}")]
    SettingBelowMinimum {
        /// Where the value is.
        at: Position,
        /// The field (`minReplicas`).
        field: &'static str,
        /// The value as read.
        value: i64,
        /// The smallest value the rule can use.
        min: i64,
        /// What the bound means and what to write instead.
        advice: &'static str,
    },
    /// `HPA000: off`: kube-apiserver's validation always runs.
    #[error("{at}: HPA000 (kube-apiserver's validation) cannot be turned off")]
    InvalidOff {
        /// Where the rule's key is.
        at: Position,
    },
}

/// A loaded configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where it came from (none: defaults).
    pub path: Option<PathBuf>,
    /// The content.
    pub file: ConfigFile,
    /// Per-rule levels, keyed by rule ID.
    pub levels: BTreeMap<&'static str, RuleLevel>,
    /// `file:line:column` of the values checked after reading (by [`LOCATED`] name), so an
    /// error about one names where it is written.
    pub locations: BTreeMap<&'static str, String>,
}

/// The fields whose values are checked after reading (the release, the gates, the
/// controller's flags), by their name in [`Config::at`].
pub const LOCATED: [&str; 7] = [
    "kubernetesVersion",
    "featureGates",
    "controller.syncPeriodSeconds",
    "controller.tolerance",
    "controller.downscaleStabilizationSeconds",
    "controller.cpuInitializationPeriodSeconds",
    "controller.initialReadinessDelaySeconds",
];

impl Config {
    /// Where `field` (one of [`LOCATED`], e.g. `controller.tolerance`) is written:
    /// `file:line:column`, else the file's name (empty without a file).
    pub fn at(&self, field: &str) -> String {
        match self.locations.get(field) {
            Some(at) => at.clone(),
            None => self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
        }
    }
}

/// Finds `.hpa-lint.yaml` in `start` or its parents.
pub fn find_upward(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        for name in FILE_NAMES {
            let candidate = d.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = d.parent();
    }
    None
}

/// `kubernetesVersion` written as a YAML number (`1.34`, not `"1.34"`): the number as written,
/// which is refused with the way to write it ([`ConfigError::VersionIsANumber`]); as a number
/// `1.30` would be the release 1.3, so the text is never guessed from.
fn version_written_as_number(text: &str, node: hpa_yaml::Node<'_>) -> Option<String> {
    use hpa_yaml::Scalar;
    if !matches!(node.scalar(), Some(Scalar::Int(_) | Scalar::UInt(_) | Scalar::Float(_))) {
        return None;
    }
    let span = node.span();
    Some(
        text.chars()
            .skip(span.start.index as usize)
            .take(span.end.index.saturating_sub(span.start.index) as usize)
            .collect(),
    )
}

/// Parses a configuration file's text (with hpa-yaml's reader, [`hpa_yaml::read_document`]
/// and [`hpa_yaml::read::decode_node`]: YAML as kubectl reads it, one document, unknown and
/// duplicate fields refused).
pub fn parse(name: &str, text: &str) -> Result<Config, ConfigError> {
    let at = |mark: hpa_yaml::Mark| Position { file: name.to_string(), line: mark.line.max(1), column: mark.col + 1 };
    let yaml = |error| ConfigError::Yaml { file: name.to_string(), error };
    let Some(doc) = hpa_yaml::read_document(text).map_err(yaml)? else {
        return Ok(Config { path: Some(PathBuf::from(name)), ..Config::default() });
    };
    if let Some(version) = doc.root().get("kubernetesVersion")
        && let Some(written) = version_written_as_number(text, version)
    {
        return Err(ConfigError::VersionIsANumber { at: at(version.span().start), written });
    }
    // Its first problem: a decoding that fails says why at least once.
    let cfg: ConfigFile = match hpa_yaml::read::decode_node(doc.root(), "config") {
        Ok(cfg) => cfg,
        Err(errors) => match errors.into_iter().next() {
            Some(first) => return Err(yaml(first)),
            None => ConfigFile::default(),
        },
    };
    let mut levels = BTreeMap::new();
    for (key, level) in &cfg.rules {
        let entry = doc.root().get("rules").and_then(|r| r.entry(key));
        let pos = entry.map_or(doc.root().span().start, |e| e.key.span().start);
        let Some(rule) = rules::find(key) else {
            return Err(ConfigError::UnknownRule { at: at(pos), rule: key.clone() });
        };
        let level = match level {
            LevelSetting::Switch(false) => RuleLevel::Off,
            LevelSetting::Switch(true) => RuleLevel::At(rule.meta().severity),
            LevelSetting::Named(s) if s == "off" => RuleLevel::Off,
            LevelSetting::Named(s) if s == "on" => RuleLevel::At(rule.meta().severity),
            LevelSetting::Named(s) => match Severity::parse(s) {
                Some(sev) => RuleLevel::At(sev),
                None => {
                    return Err(ConfigError::UnknownLevel { at: at(pos), rule: key.clone(), level: s.clone() });
                }
            },
        };
        if rule.meta().id == hpa_core::rules::INVALID.id && level == RuleLevel::Off {
            return Err(ConfigError::InvalidOff { at: at(pos) });
        }
        levels.insert(rule.meta().id, level);
    }
    if let Some((field, value, min, advice)) = setting_below_minimum(&cfg.settings) {
        let written = doc.root().get("settings").and_then(|n| n.get(field)).map_or(doc.root().span(), |n| n.span());
        return Err(ConfigError::SettingBelowMinimum { at: at(written.start), field, value, min, advice });
    }
    let mut locations = BTreeMap::new();
    for field in LOCATED {
        let node = field.split('.').try_fold(doc.root(), |node, key| node.get(key));
        if let Some(node) = node {
            locations.insert(field, at(node.span().start).to_string());
        }
    }
    Ok(Config { path: Some(PathBuf::from(name)), file: cfg, levels, locations })
}

/// The first bound of `settings:` (in the order of [`SettingsFile`]'s fields) below the smallest
/// value its rule can use: its field, value, that minimum and what to write instead. A count
/// of replicas is at least 1 (kube-apiserver's smallest `minReplicas` and `maxReplicas`; a
/// threshold or spread below it would silence its rule or be read as 1), a time at least 0.
fn setting_below_minimum(settings: &SettingsFile) -> Option<(&'static str, i64, i64, &'static str)> {
    let bounds: [(&'static str, Option<i64>, i64, &'static str); 5] = [
        (
            "minReplicas",
            settings.min_replicas.map(i64::from),
            1,
            "it is the smallest minReplicas min-replicas-below-threshold accepts, and kube-apiserver's own lower bound is 1; to turn the rule off, write `rules: {min-replicas-below-threshold: off}`",
        ),
        (
            "maxReplicasLimit",
            settings.max_replicas_limit.map(i64::from),
            1,
            "every HPA has maxReplicas of 1 or more, so max-replicas-above-limit would flag them all; to turn the rule off, leave maxReplicasLimit out",
        ),
        (
            "maxScaleUpSeconds",
            settings.max_scale_up_seconds,
            0,
            "it is the longest time slow-scale-up accepts from minReplicas to maxReplicas, in seconds",
        ),
        (
            "minScaleDownWindowSeconds",
            settings.min_scale_down_window_seconds.map(i64::from),
            0,
            "it is the shortest scale-down stabilization window short-scale-down-window accepts, in seconds",
        ),
        (
            "minReplicaSpread",
            settings.min_replica_spread.map(i64::from),
            1,
            "it is the smallest maxReplicas - minReplicas min-replicas-equals-max accepts (1 flags equal bounds only)",
        ),
    ];
    bounds.into_iter().find_map(|(field, value, min, advice)| {
        let value = value.filter(|v| *v < min)?;
        Some((field, value, min, advice))
    })
}

/// Loads the configuration: `explicit` if given, else the first file found upward from the
/// working directory, else defaults.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => std::env::current_dir().ok().and_then(|d| find_upward(&d)),
    };
    let Some(path) = path else { return Ok(Config::default()) };
    let name = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(|source| ConfigError::Read { file: name.clone(), source })?;
    let text = std::str::from_utf8(&bytes).map_err(|source| ConfigError::NotUtf8 { file: name.clone(), source })?;
    parse(&name, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file is ours, not kube-apiserver's: a value of the wrong type is worded plainly, with
    /// the field (a gate's name included), what it takes and what was found.
    #[test]
    fn wrong_types_are_worded_plainly() {
        let refused = |text: &str| parse(".hpa-lint.yaml", text).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            refused("settings:\n  minReplicas: \"2\"\n"),
            ".hpa-lint.yaml:2:16: settings.minReplicas: expected a whole number, found the string \"2\": write it without quotes"
        );
        assert_eq!(
            refused("featureGates: {HPAScaleToZero: yes please}\n"),
            ".hpa-lint.yaml:1:32: featureGates.HPAScaleToZero: expected true or false, found the string \"yes please\""
        );
        assert_eq!(
            refused("featureGates: 5\n"),
            ".hpa-lint.yaml:1:15: featureGates: expected a mapping of feature gates to true or false, or a string Name=true,Other=false, found 5"
        );
        assert_eq!(
            refused("rules: {HPA101: 5}\n"),
            ".hpa-lint.yaml:1:17: rules.HPA101: expected off, on, error, warning or info, found 5"
        );
        assert_eq!(refused("rules: [HPA101]\n"), ".hpa-lint.yaml:1:8: rules: expected a mapping, found a list");
        assert_eq!(
            refused("controller: {syncPeriodSeconds: -5}\n"),
            ".hpa-lint.yaml:1:33: controller.syncPeriodSeconds: expected a whole number of 0 or more, found -5"
        );
        // Numbers the file cannot hold: the key, its place and what to write.
        assert_eq!(
            refused("controller:\n  tolerance: .nan\n"),
            ".hpa-lint.yaml:2:14: controller.tolerance: .nan is not a number this file can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a finite number, or leave the field out"
        );
        assert_eq!(
            refused("controller:\n  syncPeriodSeconds: 1e400\n"),
            ".hpa-lint.yaml:2:22: controller.syncPeriodSeconds: expected a whole number of 0 or more, found the string \"1e400\": a number past a float64's range (about 1.8e308) is a string in YAML; write a smaller number"
        );
        assert_eq!(
            refused("settings:\n  minReplicas: 1e10\n"),
            ".hpa-lint.yaml:2:16: settings.minReplicas: expected a whole number, found 10000000000: it must be from -2147483648 to 2147483647"
        );
        assert_eq!(
            refused("exclude: vendor/\n"),
            ".hpa-lint.yaml:1:10: exclude: expected a list, found the string \"vendor/\""
        );
    }

    /// A bound below what its rule can use is refused where it is written, with what it means;
    /// the smallest values are accepted.
    #[test]
    fn settings_below_their_minimum_are_refused_with_their_place() {
        let refused = |text: &str| parse(".hpa-lint.yaml", text).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            refused("rules: {HPA101: off}\nsettings:\n  minReplicas: -1\n"),
            ".hpa-lint.yaml:3:16: settings.minReplicas: -1 is below 1: it is the smallest minReplicas min-replicas-below-threshold accepts, and kube-apiserver's own lower bound is 1; to turn the rule off, write `rules: {min-replicas-below-threshold: off}`"
        );
        assert_eq!(
            refused("settings: {maxReplicasLimit: 0}\n"),
            ".hpa-lint.yaml:1:30: settings.maxReplicasLimit: 0 is below 1: every HPA has maxReplicas of 1 or more, so max-replicas-above-limit would flag them all; to turn the rule off, leave maxReplicasLimit out"
        );
        assert_eq!(
            refused("settings:\n  minReplicas: 2\n  maxScaleUpSeconds: -3\n"),
            ".hpa-lint.yaml:3:22: settings.maxScaleUpSeconds: -3 is below 0: it is the longest time slow-scale-up accepts from minReplicas to maxReplicas, in seconds"
        );
        assert!(
            refused("settings:\n  minScaleDownWindowSeconds: -1\n")
                .starts_with(".hpa-lint.yaml:2:30: settings.minScaleDownWindowSeconds: -1 is below 0: ")
        );
        assert!(
            refused("settings:\n  minReplicaSpread: 0\n")
                .starts_with(".hpa-lint.yaml:2:21: settings.minReplicaSpread: 0 is below 1: ")
        );
        let lowest = "settings: {minReplicas: 1, maxReplicasLimit: 1, maxScaleUpSeconds: 0, minScaleDownWindowSeconds: 0, minReplicaSpread: 1}\n";
        assert!(parse(".hpa-lint.yaml", lowest).is_ok());
    }

    #[test]
    fn parses_levels_and_settings() {
        let c = parse(
            ".hpa-lint.yaml",
            "kubernetesVersion: '1.36'\nrules:\n  HPA102: off\n  target-not-found: error\n  HPA305: on\n  HPA101: 'off'\nscope: file\nsettings:\n  minReplicas: 3\n",
        )
        .unwrap();
        assert_eq!(c.levels["HPA102"], RuleLevel::Off);
        assert_eq!(c.levels["HPA101"], RuleLevel::Off);
        assert_eq!(c.levels["HPA305"], RuleLevel::At(Severity::Info));
        assert_eq!(c.file.scope, Some(Scope::File));
        assert_eq!(c.levels["HPA403"], RuleLevel::At(Severity::Error));
        assert_eq!(c.file.settings.min_replicas, Some(3));
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("c.yaml", "rules:\n  HPA999: off\n").unwrap_err();
        assert!(
            matches!(&e, ConfigError::UnknownRule { at, rule } if at.to_string() == "c.yaml:2:3" && rule == "HPA999")
        );
        assert_eq!(e.to_string(), "c.yaml:2:3: unknown rule \"HPA999\" (see `hpa-lint rules`)");
        let e = parse("c.yaml", "settings:\n  minReplica: 3\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:2:3: unknown field `minReplica` in settings; expected one of: minReplicas, maxReplicasLimit, maxScaleUpSeconds, minScaleDownWindowSeconds, minReplicaSpread"
        );
        assert!(matches!(e, ConfigError::Yaml { error, .. } if error.path == "settings.minReplica"));
        let e = parse("c.yaml", "rules: {HPA000: off}\n").unwrap_err();
        assert_eq!(e.to_string(), "c.yaml:1:9: HPA000 (kube-apiserver's validation) cannot be turned off");
        let e = parse("c.yaml", "rules: {HPA101: loud}\n").unwrap_err();
        assert!(matches!(&e, ConfigError::UnknownLevel { level, .. } if level == "loud"));
        assert_eq!(e.to_string(), "c.yaml:1:9: rule HPA101: expected off, on, error, warning or info, found \"loud\"");
    }

    /// `scope` is one of its three words (the derived string enum), each read as written.
    #[test]
    fn scope_is_one_of_its_words() {
        for (word, scope) in [("file", Scope::File), ("directory", Scope::Directory), ("all", Scope::All)] {
            assert_eq!(parse("c.yaml", &format!("scope: {word}\n")).unwrap().file.scope, Some(scope));
        }
        let e = parse("c.yaml", "rules: {}\nscope: File\n").unwrap_err();
        assert_eq!(e.to_string(), "c.yaml:2:8: unknown scope \"File\": expected file, directory or all");
        // A value of another type is worded as the other problems of the file are.
        let e = parse("c.yaml", "scope: 5\n").unwrap_err();
        assert_eq!(e.to_string(), "c.yaml:1:8: scope: expected file, directory or all, found 5");
        let e = parse("c.yaml", "failOn: [error]\n").unwrap_err();
        assert_eq!(e.to_string(), "c.yaml:1:9: failOn: expected error, warning, info or never, found a list");
        assert_eq!(parse("c.yaml", "scope: ~\n").unwrap().file.scope, None);
    }

    /// `failOn` is one of its four words, and any other value is refused where it is written,
    /// as `scope`'s are (it was refused later, without its place, and not at all when
    /// `--fail-on` was given).
    #[test]
    fn fail_on_is_one_of_its_words() {
        for (word, fail_on) in
            [("error", FailOn::Error), ("warning", FailOn::Warning), ("info", FailOn::Info), ("never", FailOn::Never)]
        {
            assert_eq!(parse("c.yaml", &format!("failOn: {word}\n")).unwrap().file.fail_on, Some(fail_on));
        }
        let e = parse("c.yaml", "rules: {}\nfailOn: Warning\n").unwrap_err();
        assert_eq!(e.to_string(), "c.yaml:2:9: unknown fail on \"Warning\": expected error, warning, info or never");
    }

    /// An unquoted release is a YAML number (`1.30` would be 1.3): refused with how to write it.
    #[test]
    fn an_unquoted_version_says_how_to_write_it() {
        let e = parse("c.yaml", "rules: {}\nkubernetesVersion: 1.30\n").unwrap_err();
        assert!(
            matches!(&e, ConfigError::VersionIsANumber { at, written } if at.line == 2 && at.column == 20 && written == "1.30")
        );
        assert_eq!(
            e.to_string(),
            "c.yaml:2:20: kubernetesVersion: 1.30 is a number in YAML; write the release as a string: kubernetesVersion: \"1.30\""
        );
        assert_eq!(
            parse("c.yaml", "kubernetesVersion: '1.34'\n").unwrap().file.kubernetes_version.as_deref(),
            Some("1.34")
        );
        assert_eq!(
            parse("c.yaml", "kubernetesVersion: v1.34.2\n").unwrap().file.kubernetes_version.as_deref(),
            Some("v1.34.2")
        );
    }

    /// One reader for every configuration file (hpa-yaml's `read_document`, as the webhook's
    /// policy): a second document is refused where it starts, not ignored.
    #[test]
    fn a_second_document_is_refused() {
        let e = parse("c.yaml", "rules: {HPA101: off}\n---\nrules: {HPA101: error}\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:2:1: a second YAML document starts here, and this file holds one: merge its keys into the first document, or remove it"
        );
        // One document, with or without its `---`, and none at all, are read.
        assert_eq!(parse("c.yaml", "---\nrules: {HPA101: off}\n").unwrap().levels["HPA101"], RuleLevel::Off);
        assert!(parse("c.yaml", "# nothing\n").unwrap().levels.is_empty());
        let e = parse("c.yaml", "rules: [\n").unwrap_err();
        assert!(
            matches!(&e, ConfigError::Yaml { error, .. } if error.message.contains("did not find expected")),
            "{e}"
        );
    }
}
