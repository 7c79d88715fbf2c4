//! Kubernetes releases and the feature gates that change HPA behavior.
//!
//! A profile is a release as it shipped (x.y.0); 1.38 is the development branch, a preview.
//! Gate defaults, stages and locks per release follow `pkg/features/kube_features.go` and
//! `k8s.io/apiserver/pkg/features/kube_features.go` of each release (see the project's
//! `spec/versions.md` §1):
//!
//! | gate | 1.33 | 1.34 | 1.35 | 1.36 | 1.37 | 1.38 |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | `HPAConfigurableTolerance` | alpha | alpha | beta | beta | GA, locked | GA, locked |
//! | `HPAScaleToZero` | alpha | alpha | alpha | alpha | beta | beta |
//! | `HPAGeneration` | — | — | — | — | beta | GA, locked |
//! | `PodLevelResources` | alpha | beta | beta | beta | beta | beta |
//! | `DeclarativeValidation` | beta | beta | beta | GA, locked | GA, locked | GA, locked |
//! | `DeclarativeValidationTakeover` | beta (off) | beta (off) | beta (off) | deprecated | deprecated, locked off | deprecated, locked off |
//! | `DeclarativeValidationBeta` | — | — | — | beta | beta | beta |
//! | `StaleControllerConsistencyHPA` | — | — | — | — | beta | beta |
//!
//! Alpha gates are off by default, beta and GA gates on (`DeclarativeValidationTakeover` is the
//! exception: a beta gate that was off). "—" means the release does not know the gate, and
//! `--feature-gates` refuses it there, as kube-apiserver does. `--feature-gates` also takes
//! `AllAlpha`/`AllBeta` and gates that concern no HPA ([`FeatureGates::apply`]).
//!
//! What differs between releases beyond their gates is decided where it happens, by comparing
//! `gates.version()`: validation messages and rules (`validation`), how values print
//! (`field::ValueRendering`), the strategy (`admission`), the fields a release's schema has
//! (`api::release`), and the controller's behavior (`evaluator::release`, decided once per
//! configuration).

use std::collections::BTreeMap;
use std::fmt;

/// A Kubernetes minor release whose rules this crate reproduces, as it shipped (x.y.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KubernetesVersion {
    /// v1.33
    V1_33,
    /// v1.34
    V1_34,
    /// v1.35
    V1_35,
    /// v1.36
    V1_36,
    /// v1.37
    V1_37,
    /// v1.38, the development branch: a preview of what is merged so far.
    V1_38,
}

impl KubernetesVersion {
    /// The newest generally available release, the default everywhere.
    pub const LATEST: KubernetesVersion = KubernetesVersion::V1_37;
    /// The release in development, selectable as a preview.
    pub const PREVIEW: KubernetesVersion = KubernetesVersion::V1_38;
    /// Every supported release, oldest first.
    pub const ALL: [KubernetesVersion; 6] = [
        KubernetesVersion::V1_33,
        KubernetesVersion::V1_34,
        KubernetesVersion::V1_35,
        KubernetesVersion::V1_36,
        KubernetesVersion::V1_37,
        KubernetesVersion::V1_38,
    ];

    /// The minor version number.
    pub fn minor(self) -> u32 {
        match self {
            KubernetesVersion::V1_33 => 33,
            KubernetesVersion::V1_34 => 34,
            KubernetesVersion::V1_35 => 35,
            KubernetesVersion::V1_36 => 36,
            KubernetesVersion::V1_37 => 37,
            KubernetesVersion::V1_38 => 38,
        }
    }

    /// Parses a release as `kubectl version` and the providers print it: `1.37`, `v1.37`,
    /// `1.37.2`, `v1.37.0-rc.1` or `v1.37.4-eks-a737599` (a pre-release or build suffix only
    /// after a patch number). A patch release reads as its minor release as shipped (x.y.0):
    /// backports in patch releases are not modelled. Numbers are written without leading zeros
    /// (`1.037` and `1.37.x` are refused).
    pub fn parse(s: &str) -> Result<KubernetesVersion, UnknownVersion> {
        let unknown = || UnknownVersion(s.to_string());
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let (release, suffix) = match t.find(['-', '+']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let number =
            |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'));
        let parts: Vec<&str> = release.split('.').collect();
        let minor = match parts.as_slice() {
            ["1", minor] if number(minor) && suffix.is_none() => minor,
            ["1", minor, patch] if number(minor) && number(patch) && suffix != Some("") => minor,
            _ => return Err(unknown()),
        };
        KubernetesVersion::ALL.into_iter().find(|v| minor.parse::<u32>() == Ok(v.minor())).ok_or_else(unknown)
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
#[error("unsupported Kubernetes version {0:?}: supported versions are 1.33 to 1.37, and 1.38 as a preview")]
pub struct UnknownVersion(pub String);

/// A feature gate that changes what kube-apiserver or the HPA controller does with an HPA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Gate {
    /// `HPAScaleToZero`: `minReplicas: 0` with an Object or External metric.
    HPAScaleToZero,
    /// `HPAConfigurableTolerance`: per-direction `tolerance` in `behavior`.
    HPAConfigurableTolerance,
    /// `DeclarativeValidation`: runs declarative validation (GA, locked on, from 1.36).
    DeclarativeValidation,
    /// `DeclarativeValidationTakeover`: declarative errors replace hand-written ones. HPA types
    /// carry no declarative rule before 1.36 and only alpha ones (never enforced) in 1.36; the
    /// gate is locked off from 1.37, so it changes nothing for HPAs in any modelled release.
    DeclarativeValidationTakeover,
    /// `DeclarativeValidationBeta`: enforces declarative rules at beta (from 1.36).
    DeclarativeValidationBeta,
    /// `PodLevelResources`: pod-level requests count for utilization (controller, from 1.34).
    PodLevelResources,
    /// `HPAGeneration`: `metadata.generation` maintained by kube-apiserver and
    /// `status.observedGeneration` written by the controller (from 1.37).
    HPAGeneration,
    /// `StaleControllerConsistencyHPA` (kube-controller-manager, from 1.37, #139025): the HPA
    /// controller defers a sync (and requeues the HPA) while its informer's cache has not yet
    /// observed the status the controller wrote at the previous sync (the consistency store's
    /// `EnsureReady`, KEP-5647). It changes when a sync runs under cache lag, never what a sync
    /// computes: the replica arithmetic, conditions and status are the same. This tool's
    /// controller always reads what it wrote (`simulate`, `explain`, `diagnose`), so the gate
    /// changes nothing it models; it is listed so that each release accepts or refuses it as
    /// kube-apiserver does (every Kubernetes component registers every `kube` gate).
    StaleControllerConsistencyHPA,
}

/// Maturity of a gate in a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Off by default.
    Alpha,
    /// Usually on by default.
    Beta,
    /// Generally available; may be locked.
    GA,
    /// On its way out; may be locked.
    Deprecated,
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
    pub const ALL: [Gate; 8] = [
        Gate::DeclarativeValidation,
        Gate::DeclarativeValidationBeta,
        Gate::DeclarativeValidationTakeover,
        Gate::HPAConfigurableTolerance,
        Gate::HPAGeneration,
        Gate::HPAScaleToZero,
        Gate::PodLevelResources,
        Gate::StaleControllerConsistencyHPA,
    ];

    /// The gate's name as kube-apiserver's `--feature-gates` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Gate::HPAScaleToZero => "HPAScaleToZero",
            Gate::HPAConfigurableTolerance => "HPAConfigurableTolerance",
            Gate::DeclarativeValidation => "DeclarativeValidation",
            Gate::DeclarativeValidationTakeover => "DeclarativeValidationTakeover",
            Gate::DeclarativeValidationBeta => "DeclarativeValidationBeta",
            Gate::PodLevelResources => "PodLevelResources",
            Gate::HPAGeneration => "HPAGeneration",
            Gate::StaleControllerConsistencyHPA => "StaleControllerConsistencyHPA",
        }
    }

    /// Looks a gate up by name.
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }

    /// The gate in a release, or `None` when the release does not have it.
    pub fn spec(self, version: KubernetesVersion) -> Option<GateSpec> {
        use KubernetesVersion::*;
        use Stage::*;
        let m = version.minor();
        let (default, locked, stage) = match self {
            Gate::HPAScaleToZero if m <= 36 => (false, false, Alpha),
            Gate::HPAScaleToZero => (true, false, Beta),
            Gate::HPAConfigurableTolerance if m <= 34 => (false, false, Alpha),
            Gate::HPAConfigurableTolerance if m <= 36 => (true, false, Beta),
            Gate::HPAConfigurableTolerance => (true, true, GA),
            Gate::DeclarativeValidation if m <= 35 => (true, false, Beta),
            Gate::DeclarativeValidation => (true, true, GA),
            Gate::DeclarativeValidationTakeover if m <= 35 => (false, false, Beta),
            Gate::DeclarativeValidationTakeover if version == V1_36 => (false, false, Deprecated),
            Gate::DeclarativeValidationTakeover => (false, true, Deprecated),
            Gate::DeclarativeValidationBeta if m <= 35 => return None,
            Gate::DeclarativeValidationBeta => (true, false, Beta),
            Gate::PodLevelResources if version == V1_33 => (false, false, Alpha),
            Gate::PodLevelResources => (true, false, Beta),
            Gate::HPAGeneration if m <= 36 => return None,
            // Beta, on, in 1.37: `kube_features.go` @ f87817f5 (2026-07-03, the 1.37
            // development branch, as read for spec/versions.md §1). The 1.37 release branch's
            // copy is not in the index (it stores one old commit of kube_features.go, and a 2016
            // strategy.go), so the cell stays inferred. #138228's description planned "n+1: set
            // to enabled by default" before review, which would make it off in 1.37; the merged
            // code at f87817f5 says on.
            Gate::HPAGeneration if m == 37 => (true, false, Beta),
            // GA and locked on in 1.38: #142386 ("Graduate HPA observedGeneration to GA. The
            // HPAGeneration feature gate is now locked to enabled."), merged for
            // v1.38.0-alpha.2 (CHANGELOG-1.38).
            Gate::HPAGeneration => (true, true, GA),
            Gate::StaleControllerConsistencyHPA if m <= 36 => return None,
            // Beta, on, from 1.37: #139025 (merged for 1.37, listed in CHANGELOG-1.37
            // v1.37.0-alpha.1) registers it in `pkg/features/kube_features.go` as
            // `{Version: 1.37, Default: true, PreRelease: Beta}` (its review moved the version from
            // 1.36, released by then, to 1.37). No change on the development branch was found.
            Gate::StaleControllerConsistencyHPA => (true, false, Beta),
        };
        Some(GateSpec { default, locked, stage })
    }
}

/// A refused `--feature-gates` value, in kube-apiserver's words (`featureGate.Set` and
/// `unsafeSetFromMap` of `k8s.io/component-base/featuregate`, `ComponentGlobalsRegistry.Set` of
/// `k8s.io/component-base/compatibility`).
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
    /// Not a gate this release knows.
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
    /// `component:Name=bool` with a component other than `kube`.
    #[error("component not registered: {0}")]
    Component(String),
    /// `kube:Name=bool` and `Name=bool` in one value.
    #[error("set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use")]
    MixedPrefix,
    /// Several errors, as `utilerrors.NewAggregate` prints them: `[first, second]`.
    #[error("[{}]", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Several(Vec<GateError>),
}

/// A `--feature-gates` value accepted with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GateWarning {
    /// A GA or deprecated gate set (to the value it is locked to, or while it is not locked):
    /// kube-apiserver logs `Setting GA feature gate %s=%t. It will be removed in a future
    /// release.` (`unsafeSetFromMap`).
    Graduated {
        /// The gate.
        gate: Gate,
        /// [`Stage::GA`] or [`Stage::Deprecated`].
        stage: Stage,
        /// The value set.
        value: bool,
    },
    /// A gate that does not change anything this tool models: the release may have it (it is
    /// not checked against the release's full gate list), and it is ignored.
    NotHpa {
        /// The gate's name.
        name: String,
        /// The value set.
        value: bool,
    },
}

impl fmt::Display for GateWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateWarning::Graduated { gate, stage, value } => {
                let stage = if *stage == Stage::Deprecated { "deprecated" } else { "GA" };
                write!(
                    f,
                    "Setting {stage} feature gate {}={value}. It will be removed in a future release.",
                    gate.name()
                )
            }
            GateWarning::NotHpa { name, value } => write!(
                f,
                "feature gate {name}={value}: not an HPA gate, ignored (kube-apiserver refuses it if the release does not have it)"
            ),
        }
    }
}

/// The HPA gates Kubernetes removed before 1.33: refused by every modelled release.
const REMOVED_HPA_GATES: [&str; 1] = ["HPAContainerMetrics"];

/// `AllAlpha` and `AllBeta`, component-base's special gates (`setUnsetAlphaGates`,
/// `setUnsetBetaGates`).
const ALL_ALPHA: &str = "AllAlpha";
const ALL_BETA: &str = "AllBeta";

/// Feature gates of one release with explicit overrides, as `--feature-gates` sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGates {
    version: KubernetesVersion,
    overrides: BTreeMap<Gate, bool>,
    /// `AllAlpha=`: every alpha gate not set explicitly.
    all_alpha: Option<bool>,
    /// `AllBeta=`: every beta gate not set explicitly.
    all_beta: Option<bool>,
}

impl FeatureGates {
    /// The defaults of a release.
    pub fn new(version: KubernetesVersion) -> Self {
        FeatureGates { version, overrides: BTreeMap::new(), all_alpha: None, all_beta: None }
    }

    /// The release these gates belong to.
    pub fn version(&self) -> KubernetesVersion {
        self.version
    }

    /// Whether a gate is on (a gate the release does not have is off): its explicit value, else
    /// `AllAlpha`/`AllBeta` for a gate at that stage, else its default (`featureEnabled`).
    pub fn enabled(&self, gate: Gate) -> bool {
        if let Some(&on) = self.overrides.get(&gate) {
            return on;
        }
        let Some(spec) = gate.spec(self.version) else {
            return false;
        };
        match spec.stage {
            Stage::Alpha => self.all_alpha.unwrap_or(spec.default),
            Stage::Beta => self.all_beta.unwrap_or(spec.default),
            Stage::GA | Stage::Deprecated => spec.default,
        }
    }

    /// Whether the HPA controller counts pod-level requests (`spec.resources.requests`) for
    /// utilization: from 1.34 (#132430, `PodRequests` of component-helpers) with
    /// `PodLevelResources` on. 1.33's `calculatePodRequests` reads container requests only,
    /// even with the alpha gate on.
    pub fn pod_level_requests(&self) -> bool {
        self.version >= KubernetesVersion::V1_34 && self.enabled(Gate::PodLevelResources)
    }

    /// Whether the HPA controller adds a pod's `spec.overhead` to its pod-level requests
    /// (`calculatePodLevelRequests` through `PodRequests(pod, {})`): where it counts pod-level
    /// requests ([`FeatureGates::pod_level_requests`]), 1.34 to 1.37; 1.38 excludes it
    /// (#142154), as `ControllerRelease::pod_overhead` says.
    pub fn pod_overhead(&self) -> bool {
        self.pod_level_requests() && self.version < KubernetesVersion::V1_38
    }

    /// Sets a gate, refusing one the release does not have and a change to a locked one
    /// (`featuregate.Set` in `k8s.io/component-base/featuregate`).
    pub fn set(&mut self, gate: Gate, value: bool) -> Result<(), GateError> {
        let Some(spec) = gate.spec(self.version) else {
            return Err(GateError::Unknown(gate.name().to_string()));
        };
        if spec.locked && value != spec.default {
            return Err(GateError::Locked { name: gate.name().to_string(), value, locked: spec.default });
        }
        self.overrides.insert(gate, value);
        Ok(())
    }

    /// Applies a `--feature-gates` value, `Name=true,Other=false`, as kube-apiserver does
    /// (`ComponentGlobalsRegistry.Set`, then `featureGate.Set` and `unsafeSetFromMap` of
    /// `k8s.io/component-base`):
    ///
    /// - an item may name its component, `kube:Name=bool` (the only one kube-apiserver has);
    ///   `kube:` and no prefix are not mixed;
    /// - every item is read (`Name=bool`, `strconv.ParseBool`) before any name is looked up, and
    ///   the first malformed one is the error; a later item of the same name wins;
    /// - then each gate, in name order: a name the release does not have stops there
    ///   (`unrecognized feature gate`); a locked gate set to the other value is an error and the
    ///   next gate is looked at; the errors are returned together (`[a, b]`); a GA or
    ///   deprecated gate set gives kube-apiserver's warning;
    /// - `AllAlpha=v` / `AllBeta=v` set every alpha / beta gate of the release that is not set
    ///   explicitly (`setUnsetAlphaGates`); later values (a later call) replace earlier ones, as
    ///   kube-apiserver joins repeated `--feature-gates` flags into one value.
    ///
    /// Gates that concern no HPA are not all known to this tool: a name shaped like a gate
    /// (`UpperCamelCase`) that is not one of [`Gate::ALL`] is accepted with a
    /// [`GateWarning::NotHpa`] and ignored; a name that cannot be a gate, an HPA gate spelled
    /// with other capitals, an HPA gate the release does not have (or removed before 1.33,
    /// `HPAContainerMetrics`) is refused as kube-apiserver refuses it.
    pub fn apply(&mut self, spec: &str) -> Result<Vec<GateWarning>, GateError> {
        // `ColonSeparatedMultimapStringString` (with an empty default key), then `Set`.
        let (mut prefixed, mut bare) = (false, false);
        let mut items = Vec::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let item = match item.split_once(':') {
                Some((component, rest)) => {
                    let component = component.trim();
                    if component != "kube" {
                        return Err(GateError::Component(component.to_string()));
                    }
                    prefixed = true;
                    rest.trim()
                }
                None => {
                    bare = true;
                    item
                }
            };
            if prefixed && bare {
                return Err(GateError::MixedPrefix);
            }
            items.push(item);
        }
        let mut values = BTreeMap::new();
        for item in items.into_iter().filter(|s| !s.is_empty()) {
            let Some((name, value)) = item.split_once('=') else {
                return Err(GateError::Malformed(item.trim().to_string()));
            };
            let (name, value) = (name.trim(), value.trim());
            let value = parse_go_bool(value)
                .ok_or_else(|| GateError::NotBool { name: name.to_string(), value: value.to_string() })?;
            values.insert(name, value);
        }
        let mut errors = Vec::new();
        let mut warnings = Vec::new();
        let (mut all_alpha, mut all_beta) = (self.all_alpha, self.all_beta);
        let mut overrides = self.overrides.clone();
        for (&name, &value) in &values {
            match name {
                ALL_ALPHA => all_alpha = Some(value),
                ALL_BETA => all_beta = Some(value),
                _ => match Gate::from_name(name) {
                    Some(gate) => match gate.spec(self.version) {
                        None => {
                            errors.push(GateError::Unknown(name.to_string()));
                            break;
                        }
                        Some(s) if s.locked && value != s.default => {
                            errors.push(GateError::Locked { name: name.to_string(), value, locked: s.default });
                        }
                        Some(s) => {
                            overrides.insert(gate, value);
                            if matches!(s.stage, Stage::GA | Stage::Deprecated) {
                                warnings.push(GateWarning::Graduated { gate, stage: s.stage, value });
                            }
                        }
                    },
                    None if may_be_other_gate(name) => {
                        warnings.push(GateWarning::NotHpa { name: name.to_string(), value });
                    }
                    None => {
                        errors.push(GateError::Unknown(name.to_string()));
                        break;
                    }
                },
            }
        }
        match errors.len() {
            0 => {}
            1 => return Err(errors.remove(0)),
            _ => return Err(GateError::Several(errors)),
        }
        self.overrides = overrides;
        self.all_alpha = all_alpha;
        self.all_beta = all_beta;
        Ok(warnings)
    }

    /// A gate set from a `(name, value)` map, e.g. from a test vector.
    pub fn with(mut self, gate: Gate, value: bool) -> Result<Self, GateError> {
        self.set(gate, value)?;
        Ok(self)
    }
}

/// Whether `name` may be a gate of a Kubernetes release that concerns no HPA: shaped as every
/// gate name is (an upper-case ASCII letter, then ASCII letters and digits), and neither an HPA
/// gate spelled with other capitals nor an HPA gate removed before 1.33.
fn may_be_other_gate(name: &str) -> bool {
    let shaped =
        name.bytes().next().is_some_and(|b| b.is_ascii_uppercase()) && name.bytes().all(|b| b.is_ascii_alphanumeric());
    let hpa = |known: &str| known.eq_ignore_ascii_case(name);
    shaped
        && !Gate::ALL.into_iter().any(|g| hpa(g.name()))
        && !REMOVED_HPA_GATES.into_iter().any(hpa)
        && !hpa(ALL_ALPHA)
        && !hpa(ALL_BETA)
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
    use KubernetesVersion::*;

    fn default_of(gate: Gate, v: KubernetesVersion) -> Option<(bool, bool)> {
        gate.spec(v).map(|s| (s.default, s.locked))
    }

    #[test]
    fn gate_table_per_release() {
        // (default, locked) per release, 1.33 .. 1.38: spec/versions.md §1.
        type Row = [Option<(bool, bool)>; 6];
        let table: &[(Gate, Row)] = &[
            (
                Gate::HPAConfigurableTolerance,
                [
                    Some((false, false)),
                    Some((false, false)),
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, true)),
                    Some((true, true)),
                ],
            ),
            (
                Gate::HPAScaleToZero,
                [
                    Some((false, false)),
                    Some((false, false)),
                    Some((false, false)),
                    Some((false, false)),
                    Some((true, false)),
                    Some((true, false)),
                ],
            ),
            (Gate::HPAGeneration, [None, None, None, None, Some((true, false)), Some((true, true))]),
            (Gate::StaleControllerConsistencyHPA, [None, None, None, None, Some((true, false)), Some((true, false))]),
            (
                Gate::PodLevelResources,
                [
                    Some((false, false)),
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, false)),
                ],
            ),
            (
                Gate::DeclarativeValidation,
                [
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, false)),
                    Some((true, true)),
                    Some((true, true)),
                    Some((true, true)),
                ],
            ),
            (
                Gate::DeclarativeValidationTakeover,
                [
                    Some((false, false)),
                    Some((false, false)),
                    Some((false, false)),
                    Some((false, false)),
                    Some((false, true)),
                    Some((false, true)),
                ],
            ),
            (
                Gate::DeclarativeValidationBeta,
                [None, None, None, Some((true, false)), Some((true, false)), Some((true, false))],
            ),
        ];
        for (gate, row) in table {
            for (v, want) in KubernetesVersion::ALL.into_iter().zip(row) {
                assert_eq!(default_of(*gate, v), *want, "{} in {v}", gate.name());
                assert_eq!(FeatureGates::new(v).enabled(*gate), want.is_some_and(|w| w.0), "{} in {v}", gate.name());
            }
        }
    }

    #[test]
    fn overrides_on_every_release() {
        for v in KubernetesVersion::ALL {
            let mut g = FeatureGates::new(v);
            g.apply("HPAScaleToZero=true, PodLevelResources=false").unwrap();
            assert!(g.enabled(Gate::HPAScaleToZero), "{v}");
            assert!(!g.enabled(Gate::PodLevelResources), "{v}");
            // The tolerance gate can be switched off until it is locked (1.37).
            let off = FeatureGates::new(v).with(Gate::HPAConfigurableTolerance, false);
            assert_eq!(off.is_ok(), v < V1_37, "{v}");
        }
    }

    #[test]
    fn pod_level_requests_from_1_34() {
        let on = |v| FeatureGates::new(v).with(Gate::PodLevelResources, true).unwrap();
        assert!(!on(V1_33).pod_level_requests());
        assert!(on(V1_34).pod_level_requests());
        assert!(FeatureGates::new(V1_34).pod_level_requests());
        assert!(!FeatureGates::new(V1_35).with(Gate::PodLevelResources, false).unwrap().pod_level_requests());
    }

    #[test]
    fn gates_a_release_does_not_have_are_refused() {
        let mut g = FeatureGates::new(V1_36);
        assert_eq!(g.apply("HPAGeneration=true").unwrap_err().to_string(), "unrecognized feature gate: HPAGeneration");
        let mut g = FeatureGates::new(V1_35);
        assert!(matches!(g.apply("DeclarativeValidationBeta=false"), Err(GateError::Unknown(_))));
        assert!(!g.enabled(Gate::DeclarativeValidationBeta));
        let mut g = FeatureGates::new(V1_37);
        g.apply("HPAGeneration=false").unwrap();
        assert!(!g.enabled(Gate::HPAGeneration));
        assert_eq!(
            g.apply("DeclarativeValidationTakeover=true").unwrap_err().to_string(),
            "cannot set feature gate DeclarativeValidationTakeover to true, feature is locked to false"
        );
    }

    /// #142386 (v1.38.0-alpha.2): `HPAGeneration` is GA and locked on in 1.38, beta in 1.37.
    #[test]
    fn hpa_generation_is_locked_on_from_1_38() {
        let mut g = FeatureGates::new(V1_38);
        assert_eq!(
            g.apply("HPAGeneration=false").unwrap_err().to_string(),
            "cannot set feature gate HPAGeneration to false, feature is locked to true"
        );
        assert_eq!(
            g.apply("HPAGeneration=true").unwrap().iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["Setting GA feature gate HPAGeneration=true. It will be removed in a future release."]
        );
        // AllBeta no longer reaches it; 1.37's beta gate still follows AllBeta.
        g.apply("AllBeta=false").unwrap();
        assert!(g.enabled(Gate::HPAGeneration) && !g.enabled(Gate::HPAScaleToZero));
        let mut g = FeatureGates::new(V1_37);
        assert!(g.apply("HPAGeneration=true").unwrap().is_empty());
        g.apply("AllBeta=false,HPAGeneration=false").unwrap();
        assert!(!g.enabled(Gate::HPAGeneration));
    }

    #[test]
    fn stale_controller_consistency_hpa_is_known_from_1_37() {
        // 1.36's kube-apiserver refuses the name; 1.37 takes it, as the beta gate it is (no
        // warning), in both directions; it was accepted as "not an HPA gate" before.
        for v in [V1_33, V1_36] {
            assert_eq!(
                FeatureGates::new(v).apply("StaleControllerConsistencyHPA=false"),
                Err(GateError::Unknown("StaleControllerConsistencyHPA".into())),
                "{v}"
            );
        }
        for v in [V1_37, V1_38] {
            let mut g = FeatureGates::new(v);
            assert!(g.enabled(Gate::StaleControllerConsistencyHPA), "{v}");
            assert_eq!(g.apply("StaleControllerConsistencyHPA=false"), Ok(vec![]), "{v}");
            assert!(!g.enabled(Gate::StaleControllerConsistencyHPA), "{v}");
            assert_eq!(g.apply("kube:StaleControllerConsistencyHPA=true"), Ok(vec![]), "{v}");
            // The stale-cache gates of other controllers are not HPA gates.
            let w = g.apply("StaleControllerConsistencyJob=false").unwrap();
            assert!(matches!(w.as_slice(), [GateWarning::NotHpa { .. }]), "{v}");
        }
    }

    #[test]
    fn parse_flags() {
        let mut g = FeatureGates::new(V1_36);
        g.apply("HPAScaleToZero=true, HPAConfigurableTolerance=false").unwrap();
        assert!(g.enabled(Gate::HPAScaleToZero));
        assert!(!g.enabled(Gate::HPAConfigurableTolerance));
        let mut g = FeatureGates::new(V1_37);
        assert_eq!(
            g.apply("HPAConfigurableTolerance=false").unwrap_err().to_string(),
            "cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true"
        );
        assert!(matches!(g.apply("nope=true"), Err(GateError::Unknown(_))));
        assert!(matches!(g.apply("HPAScaleToZero=yes"), Err(GateError::NotBool { .. })));
    }

    #[test]
    fn gates_that_concern_no_hpa_are_accepted_with_a_warning() {
        for v in KubernetesVersion::ALL {
            let mut g = FeatureGates::new(v);
            let warnings = g.apply("InPlacePodVerticalScaling=true,HPAScaleToZero=true").unwrap();
            assert_eq!(
                warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
                [
                    "feature gate InPlacePodVerticalScaling=true: not an HPA gate, ignored (kube-apiserver refuses it if the release does not have it)"
                ],
                "{v}"
            );
            assert!(g.enabled(Gate::HPAScaleToZero), "{v}");
        }
        // What cannot be a gate, an HPA gate with other capitals, a removed HPA gate, and a gate
        // the release does not have are refused.
        let mut g = FeatureGates::new(V1_37);
        for bad in
            ["inPlacePodVerticalScaling", "In-Place", "Gate_1", "HpaScaleToZero", "HPAContainerMetrics", "allAlpha"]
        {
            assert_eq!(g.apply(&format!("{bad}=true")), Err(GateError::Unknown(bad.to_string())), "{bad}");
        }
        assert_eq!(g, FeatureGates::new(V1_37), "a refused value changes nothing");
    }

    #[test]
    fn values_are_read_before_names_are_looked_up() {
        // `featureGate.Set`: every item is parsed first; the first malformed one is the error.
        let mut g = FeatureGates::new(V1_37);
        assert_eq!(
            g.apply("Nope_=true,HPAScaleToZero=maybe").unwrap_err().to_string(),
            "invalid value of HPAScaleToZero=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax"
        );
        assert_eq!(g.apply("HPAScaleToZero").unwrap_err().to_string(), "missing bool value for HPAScaleToZero");
        // A later item of the same name wins.
        g.apply("HPAScaleToZero=false,HPAScaleToZero=T").unwrap();
        assert!(g.enabled(Gate::HPAScaleToZero));
    }

    #[test]
    fn graduated_gates_warn_and_locked_errors_are_collected() {
        let mut g = FeatureGates::new(V1_37);
        let w = g.apply("HPAConfigurableTolerance=true,DeclarativeValidationTakeover=false").unwrap();
        assert_eq!(
            w.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "Setting deprecated feature gate DeclarativeValidationTakeover=false. It will be removed in a future release.",
                "Setting GA feature gate HPAConfigurableTolerance=true. It will be removed in a future release.",
            ]
        );
        // Both locked gates are reported, together, as `utilerrors.NewAggregate` prints them.
        assert_eq!(
            g.apply("HPAConfigurableTolerance=false,DeclarativeValidationTakeover=true,DeclarativeValidation=false")
                .unwrap_err()
                .to_string(),
            "[cannot set feature gate DeclarativeValidation to false, feature is locked to true, \
             cannot set feature gate DeclarativeValidationTakeover to true, feature is locked to false, \
             cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true]"
        );
        // An unrecognized gate stops the lookup (`unsafeSetFromMap` returns early).
        assert_eq!(
            FeatureGates::new(V1_36).apply("DeclarativeValidation=false,HPAGeneration=true,HPAScaleToZero=true"),
            Err(GateError::Several(vec![
                GateError::Locked { name: "DeclarativeValidation".into(), value: false, locked: true },
                GateError::Unknown("HPAGeneration".into()),
            ]))
        );
        // Beta and alpha gates set give no warning.
        assert!(
            FeatureGates::new(V1_36).apply("HPAScaleToZero=true,HPAConfigurableTolerance=false").unwrap().is_empty()
        );
    }

    #[test]
    fn all_alpha_and_all_beta() {
        // 1.36: HPAScaleToZero alpha; HPAConfigurableTolerance, PodLevelResources beta.
        let mut g = FeatureGates::new(V1_36);
        assert!(g.apply("AllAlpha=true").unwrap().is_empty());
        assert!(g.enabled(Gate::HPAScaleToZero));
        g.apply("AllBeta=false,PodLevelResources=true").unwrap();
        assert!(!g.enabled(Gate::HPAConfigurableTolerance) && !g.enabled(Gate::DeclarativeValidationBeta));
        assert!(g.enabled(Gate::PodLevelResources), "an explicit value wins over AllBeta");
        // GA and deprecated gates are not touched; a later AllAlpha replaces the earlier one.
        assert!(g.enabled(Gate::DeclarativeValidation));
        g.apply("AllAlpha=false").unwrap();
        assert!(!g.enabled(Gate::HPAScaleToZero));
        // 1.33: the beta, default-off DeclarativeValidationTakeover is switched on by AllBeta.
        let mut g = FeatureGates::new(V1_33);
        g.apply("AllBeta=true").unwrap();
        assert!(g.enabled(Gate::DeclarativeValidationTakeover) && !g.enabled(Gate::HPAScaleToZero));
        // 1.37: HPAScaleToZero is beta; the locked GA tolerance gate stays on.
        let mut g = FeatureGates::new(V1_37);
        g.apply("AllBeta=false").unwrap();
        assert!(!g.enabled(Gate::HPAScaleToZero) && !g.enabled(Gate::HPAGeneration));
        assert!(g.enabled(Gate::HPAConfigurableTolerance));
    }

    #[test]
    fn component_prefix() {
        let mut g = FeatureGates::new(V1_36);
        g.apply("kube:HPAScaleToZero=true, kube:AllBeta=false").unwrap();
        assert!(g.enabled(Gate::HPAScaleToZero) && !g.enabled(Gate::PodLevelResources));
        assert_eq!(g.apply("wardle:Foo=true").unwrap_err().to_string(), "component not registered: wardle");
        assert_eq!(
            g.apply("kube:HPAScaleToZero=true,PodLevelResources=true").unwrap_err().to_string(),
            "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use"
        );
    }

    #[test]
    fn parse_versions() {
        for v in KubernetesVersion::ALL {
            assert_eq!(KubernetesVersion::parse(&v.to_string()), Ok(v));
            assert_eq!(KubernetesVersion::parse(&format!("v{v}.4")), Ok(v));
        }
        assert_eq!(KubernetesVersion::parse("v1.36.3"), Ok(V1_36));
        assert_eq!(KubernetesVersion::parse("1.33.0-rc.1"), Ok(V1_33));
        assert_eq!(KubernetesVersion::parse("v1.34.4-eks-a737599"), Ok(V1_34));
        assert_eq!(KubernetesVersion::parse("1.35.5-gke.1014001"), Ok(V1_35));
        assert_eq!(KubernetesVersion::parse(" 1.37.0+k3s1 "), Ok(V1_37));
        for bad in [
            "1.20", "1.32", "1.39", "2.37", "1.+37", "1", "", "1.3x", "1.37.x", "1.037", "01.37", "1.37.02", "1.37-rc",
            "1.37.", "1.37.1.2", "1.37.1-", "vv1.37", "1.37 .1",
        ] {
            assert!(KubernetesVersion::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            KubernetesVersion::parse("1.32").unwrap_err().to_string(),
            "unsupported Kubernetes version \"1.32\": supported versions are 1.33 to 1.37, and 1.38 as a preview"
        );
        assert!(V1_38 == KubernetesVersion::PREVIEW && KubernetesVersion::LATEST != KubernetesVersion::PREVIEW);
        assert_eq!(KubernetesVersion::LATEST, V1_37);
    }
}
