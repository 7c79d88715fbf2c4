//! Lint rules: checks beyond what kube-apiserver enforces, each one a self-documenting unit
//! with an ID, a name, a default severity and its documentation.
//!
//! Rules live here, not in the linter, because both the linter and the admission webhook (as
//! warnings) use them. A rule sees one HPA ([`Subject`]) and, when the caller has them, the
//! other objects of the same manifest set ([`Workloads`]); it reports [`Finding`]s with field
//! paths, never positions.

use crate::api::{VersionedHpa, v2};
use crate::features::FeatureGates;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Informational.
    Info,
    /// Probably a mistake.
    Warning,
    /// Certainly wrong (kube-apiserver rejects it, or it cannot work).
    Error,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `error`, `warning` or `info`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// One finding of a rule about one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule's ID, e.g. `HPA101`.
    pub rule: &'static str,
    /// The rule's name, e.g. `min-replicas-equals-max`.
    pub name: &'static str,
    /// The severity (the rule's default unless configured otherwise).
    pub severity: Severity,
    /// The field path the finding is about (internal, v2-shaped), empty for the whole object.
    pub path: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

/// The HPA under check.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The object as written, in its own version.
    pub original: &'a VersionedHpa,
    /// The object after kube-apiserver's defaulting and conversion (internal form).
    pub internal: &'a v2::HorizontalPodAutoscaler,
}

/// Other objects of the manifest set a rule may look at (the scale target, PDBs, ...).
/// Implemented by the linter; the webhook has none.
pub trait Workloads {
    /// The objects of a kind in a namespace, as JSON.
    fn objects(&self, kind: &str, namespace: &str) -> Vec<&serde_json::Value>;
    /// The HPAs of the set (internal form), to compare with the one under check.
    fn hpas(&self) -> Vec<&v2::HorizontalPodAutoscaler>;
}

/// Settings that change what rules report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RuleOptions {
    /// Release and feature gates.
    pub gates: FeatureGates,
}

/// Runs every rule that needs only the object itself (what the webhook can run).
pub fn check_single(subject: Subject<'_>, opts: &RuleOptions) -> Vec<Finding> {
    let _ = (subject, opts);
    Vec::new()
}
