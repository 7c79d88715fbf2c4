//! Kubernetes releases and the feature gates that change HPA behavior.
//!
//! Gate defaults per release follow `pkg/features/kube_features.go` (see the spec's §6):
//! `HPAScaleToZero` is alpha/off in 1.36 and beta/on in 1.37; `HPAConfigurableTolerance` is
//! beta/on in 1.36 and GA/locked in 1.37; the declarative min/max replica rules are alpha
//! (shadow) in 1.36 and beta (enforced through `DeclarativeValidationBeta`) in 1.37.

use std::collections::BTreeMap;
use std::fmt;

/// A Kubernetes minor release whose rules this crate reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KubernetesVersion {
    /// v1.36
    V1_36,
    /// v1.37
    V1_37,
}

impl KubernetesVersion {
    /// The newest release, the default everywhere.
    pub const LATEST: KubernetesVersion = KubernetesVersion::V1_37;
    /// Every supported release, oldest first.
    pub const ALL: [KubernetesVersion; 2] = [KubernetesVersion::V1_36, KubernetesVersion::V1_37];

    /// The minor version number.
    pub fn minor(self) -> u32 {
        match self {
            KubernetesVersion::V1_36 => 36,
            KubernetesVersion::V1_37 => 37,
        }
    }

    /// Parses `1.37`, `v1.37`, `1.37.2` or `v1.37.0-rc.1`.
    pub fn parse(s: &str) -> Result<KubernetesVersion, UnknownVersion> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split(['.', '-', '+']);
        let major = parts.next().unwrap_or("");
        let minor = parts.next().unwrap_or("");
        match (major, minor) {
            ("1", "36") => Ok(KubernetesVersion::V1_36),
            ("1", "37") => Ok(KubernetesVersion::V1_37),
            _ => Err(UnknownVersion(s.to_string())),
        }
    }
}

impl fmt::Display for KubernetesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor())
    }
}

impl std::str::FromStr for KubernetesVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KubernetesVersion::parse(s)
    }
}

/// A release this crate does not model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported Kubernetes version {0:?}: supported versions are 1.36 and 1.37")]
pub struct UnknownVersion(pub String);

/// A feature gate that changes what kube-apiserver or the HPA controller does with an HPA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Gate {
    /// `HPAScaleToZero`: `minReplicas: 0` with an Object or External metric.
    HPAScaleToZero,
    /// `HPAConfigurableTolerance`: per-direction `tolerance` in `behavior`.
    HPAConfigurableTolerance,
    /// `DeclarativeValidation`: runs declarative validation (GA, locked on).
    DeclarativeValidation,
    /// `DeclarativeValidationBeta`: enforces declarative rules at beta.
    DeclarativeValidationBeta,
    /// `PodLevelResources`: pod-level requests count for utilization (controller).
    PodLevelResources,
    /// `HPAGeneration`: `status.observedGeneration` (controller).
    HPAGeneration,
}

/// Maturity of a gate in a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Off by default.
    Alpha,
    /// On by default.
    Beta,
    /// Generally available; may be locked.
    GA,
}

/// A gate's default and whether it may be changed, in one release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateSpec {
    /// The default value.
    pub default: bool,
    /// Whether setting it to the other value is refused.
    pub locked: bool,
    /// Its maturity.
    pub stage: Stage,
}

impl Gate {
    /// Every gate, in name order.
    pub const ALL: [Gate; 6] = [
        Gate::DeclarativeValidation,
        Gate::DeclarativeValidationBeta,
        Gate::HPAConfigurableTolerance,
        Gate::HPAGeneration,
        Gate::HPAScaleToZero,
        Gate::PodLevelResources,
    ];

    /// The gate's name as kube-apiserver's `--feature-gates` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Gate::HPAScaleToZero => "HPAScaleToZero",
            Gate::HPAConfigurableTolerance => "HPAConfigurableTolerance",
            Gate::DeclarativeValidation => "DeclarativeValidation",
            Gate::DeclarativeValidationBeta => "DeclarativeValidationBeta",
            Gate::PodLevelResources => "PodLevelResources",
            Gate::HPAGeneration => "HPAGeneration",
        }
    }

    /// Looks a gate up by name.
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }

    /// The gate in a release.
    pub fn spec(self, version: KubernetesVersion) -> GateSpec {
        use KubernetesVersion::*;
        let (default, locked, stage) = match (self, version) {
            (Gate::HPAScaleToZero, V1_36) => (false, false, Stage::Alpha),
            (Gate::HPAScaleToZero, V1_37) => (true, false, Stage::Beta),
            (Gate::HPAConfigurableTolerance, V1_36) => (true, false, Stage::Beta),
            (Gate::HPAConfigurableTolerance, V1_37) => (true, true, Stage::GA),
            (Gate::DeclarativeValidation, _) => (true, true, Stage::GA),
            (Gate::DeclarativeValidationBeta, _) => (true, false, Stage::Beta),
            (Gate::PodLevelResources, _) => (true, false, Stage::Beta),
            (Gate::HPAGeneration, V1_36) => (false, false, Stage::Alpha),
            (Gate::HPAGeneration, V1_37) => (true, false, Stage::Beta),
        };
        GateSpec { default, locked, stage }
    }
}

/// A refused `--feature-gates` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// Not `Name=bool`.
    #[error("missing bool value for {0}")]
    Malformed(String),
    /// The value is not a bool.
    #[error("invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax")]
    NotBool {
        /// The gate.
        name: String,
        /// The value given.
        value: String,
    },
    /// Not a gate this release knows (or one that does not concern HPAs).
    #[error("unrecognized feature gate: {0}")]
    Unknown(String),
    /// A locked gate set to the other value.
    #[error("cannot set feature gate {name} to {value}, feature is locked to {locked}")]
    Locked {
        /// The gate.
        name: String,
        /// The value requested.
        value: bool,
        /// The value it is locked to.
        locked: bool,
    },
}

/// Feature gates of one release with explicit overrides, as `--feature-gates` sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGates {
    version: KubernetesVersion,
    overrides: BTreeMap<Gate, bool>,
}

impl FeatureGates {
    /// The defaults of a release.
    pub fn new(version: KubernetesVersion) -> Self {
        FeatureGates { version, overrides: BTreeMap::new() }
    }

    /// The release these gates belong to.
    pub fn version(&self) -> KubernetesVersion {
        self.version
    }

    /// Whether a gate is on.
    pub fn enabled(&self, gate: Gate) -> bool {
        self.overrides.get(&gate).copied().unwrap_or_else(|| gate.spec(self.version).default)
    }

    /// Sets a gate, refusing to change a locked one.
    pub fn set(&mut self, gate: Gate, value: bool) -> Result<(), GateError> {
        let spec = gate.spec(self.version);
        if spec.locked && value != spec.default {
            return Err(GateError::Locked { name: gate.name().to_string(), value, locked: spec.default });
        }
        self.overrides.insert(gate, value);
        Ok(())
    }

    /// Applies a `--feature-gates` value: `Name=true,Other=false`.
    pub fn apply(&mut self, spec: &str) -> Result<(), GateError> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((name, value)) = item.split_once('=') else {
                return Err(GateError::Malformed(item.to_string()));
            };
            let (name, value) = (name.trim(), value.trim());
            let gate = Gate::from_name(name).ok_or_else(|| GateError::Unknown(name.to_string()))?;
            let value = parse_go_bool(value)
                .ok_or_else(|| GateError::NotBool { name: name.to_string(), value: value.to_string() })?;
            self.set(gate, value)?;
        }
        Ok(())
    }

    /// A gate set from a `(name, value)` map, e.g. from a test vector.
    pub fn with(mut self, gate: Gate, value: bool) -> Result<Self, GateError> {
        self.set(gate, value)?;
        Ok(self)
    }
}

impl Default for FeatureGates {
    fn default() -> Self {
        FeatureGates::new(KubernetesVersion::LATEST)
    }
}

/// `strconv.ParseBool`.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_per_release() {
        let g36 = FeatureGates::new(KubernetesVersion::V1_36);
        let g37 = FeatureGates::new(KubernetesVersion::V1_37);
        assert!(!g36.enabled(Gate::HPAScaleToZero));
        assert!(g37.enabled(Gate::HPAScaleToZero));
        assert!(g36.enabled(Gate::HPAConfigurableTolerance));
    }

    #[test]
    fn parse_flags() {
        let mut g = FeatureGates::new(KubernetesVersion::V1_36);
        g.apply("HPAScaleToZero=true, HPAConfigurableTolerance=false").unwrap();
        assert!(g.enabled(Gate::HPAScaleToZero));
        assert!(!g.enabled(Gate::HPAConfigurableTolerance));
        let mut g = FeatureGates::new(KubernetesVersion::V1_37);
        assert_eq!(
            g.apply("HPAConfigurableTolerance=false").unwrap_err().to_string(),
            "cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true"
        );
        assert!(matches!(g.apply("Nope=true"), Err(GateError::Unknown(_))));
        assert!(matches!(g.apply("HPAScaleToZero=yes"), Err(GateError::NotBool { .. })));
        assert_eq!(KubernetesVersion::parse("v1.36.3"), Ok(KubernetesVersion::V1_36));
        assert!(KubernetesVersion::parse("1.20").is_err());
    }
}
