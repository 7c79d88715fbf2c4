//! Organization policy: `behavior` defaults and constraints, cluster-wide and per namespace,
//! read from a YAML file and reloaded when it changes.
//!
//! ```yaml
//! apiVersion: hpa-toolkit.io/v1alpha1
//! kind: WebhookPolicy
//! defaults:                      # every namespace
//!   constraints: {maxReplicas: 200}
//! namespaceLabels:               # webhooks are not sent namespace labels: declare them here
//!   shop: {tier: production}
//! rules:                         # applied in order after `defaults`; later rules win per field
//!   - name: production
//!     namespaceSelector: {matchLabels: {tier: production}}
//!     behavior:
//!       scaleDown: {stabilizationWindowSeconds: 600}
//!     constraints: {requireBehavior: true}
//!   - name: previews
//!     namespaces: [preview-1, preview-2]
//!     enforcement: Warn          # its constraints warn instead of denying
//!     constraints: {maxReplicas: 5}
//!   - name: payments
//!     namespaces: [payments]
//!     denyRules: [HPA201, workload-sets-replicas]   # deny on these lint findings
//! ```
//!
//! `denyRules` lists lint rules (by ID or name) whose findings deny the request instead of
//! warning; a later layer's list replaces an earlier one's (`[]` turns denial off again). A
//! rule that reads other objects (a cross-object rule, such as HPA201 or HPA410) denies only
//! when the server's context cache is on and its view is fresh: never on a stale view. An UPDATE
//! is denied only for findings the stored object did not already have, and never when the object
//! is being deleted or the update changes only metadata (`/validate` ratchets: see
//! [`crate::admission`]).
//!
//! A constraint is enforced as the layer that set it says (`enforcement: Deny`, the default,
//! or `Warn`); a rule without `enforcement` takes the one of `defaults`, so `defaults:
//! {enforcement: Warn}` makes a whole policy advisory while single rules opt in to `Deny`.
//!
//! Behavior defaults fill only the fields an HPA leaves unset, then kube-apiserver's defaulting
//! completes the rest. Setting any behavior default therefore gives an HPA without `behavior`
//! one, which moves it from the controller's legacy scaling path to the behavior path: that is
//! the point of such a policy, and the only way `behavior` is ever added.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hpa_core::api::decode::Decode;
use hpa_yaml::ReadError;

use crate::files::FileValue;

use hpa_core::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior};
use hpa_core::api::{CrossVersionObjectReference, LabelSelector, Quantity, VersionedHpa};
use hpa_core::check;
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::field::{BadValue, FieldError, Path as FieldPath};

/// `apiVersion` of a policy file.
pub const API_VERSION: &str = "hpa-toolkit.io/v1alpha1";
/// `kind` of a policy file.
pub const KIND: &str = "WebhookPolicy";
/// The label Kubernetes puts on every namespace, with the namespace's name as its value; it
/// is always known, so selectors may use it without declaring it in `namespaceLabels`.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// A policy that could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file could not be read.
    #[error("reading policy {path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (printed in the message, so not a `source()`).
        error: std::io::Error,
    },
    /// The file does not read as a policy (not YAML, or a field unknown or of the wrong type).
    #[error("invalid policy{}: {}", .path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default(), .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Decode {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// Every problem found, with its line and column.
        errors: Vec<ReadError>,
    },
    /// The file is not a valid policy.
    #[error("invalid policy{}: {}", .path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default(), .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// Every problem found.
        problems: Vec<Problem>,
    },
}

/// One problem of a valid YAML policy file: the field it is about, where that field is
/// written, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `(line, column)`, 1-based, of the field (or of its nearest written ancestor).
    pub at: Option<(u32, u32)>,
    /// The field path, as the file's keys spell it (`rules[2].namespaceSelector`); empty for
    /// the file as a whole.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { at: None, path: path.into(), message: message.into() }
    }

    /// Of a field error under `at` whose own field starts with `strip` (`spec.behavior`).
    fn of_field_error(e: &FieldError, at: &str, strip: &str) -> Option<Problem> {
        e.field.strip_prefix(strip).map(|rest| Problem::new(format!("{at}{rest}"), e.body()))
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((line, column)) = self.at {
            write!(f, "{line}:{column}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

/// What a broken constraint does to the request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Decode)]
#[go(package = "policy")]
#[non_exhaustive]
pub enum Enforcement {
    /// The request is refused (422 `Invalid`), as kube-apiserver refuses an invalid object.
    #[default]
    Deny,
    /// The request is admitted with a warning that `kubectl` prints.
    Warn,
}

impl Enforcement {
    /// The name in a policy file, which is also the `validationActions` entry of a
    /// ValidatingAdmissionPolicyBinding (`Deny`, `Warn`).
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Deny => "Deny",
            Enforcement::Warn => "Warn",
        }
    }
}

/// A constraint an HPA breaks: the field error, and whether it denies or warns.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The field error, worded as kube-apiserver words one.
    pub error: FieldError,
    /// How the layer that set the constraint enforces it.
    pub enforcement: Enforcement,
}

/// Constraints an HPA must meet (checked by /validate).
#[derive(Debug, Clone, Default, PartialEq, Eq, Decode)]
#[go(package = "policy", rename_all = "camelCase")]
pub struct Constraints {
    /// The largest `spec.maxReplicas` allowed.
    pub max_replicas: Option<i32>,
    /// Whether `spec.behavior` must be set.
    pub require_behavior: Option<bool>,
}

/// A validated policy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    defaults: Layer,
    namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    rules: Vec<(Selector, Layer)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Layer {
    /// `defaults` or `rule "name"`, as messages name it.
    origin: String,
    behavior: Option<HorizontalPodAutoscalerBehavior>,
    constraints: Constraints,
    /// How its constraints are enforced (a rule's own, else that of `defaults`).
    enforcement: Enforcement,
    /// `denyRules`, as rule IDs.
    deny_rules: Option<Vec<&'static str>>,
}

#[derive(Debug, Clone, PartialEq)]
enum Selector {
    Names(Vec<String>),
    Labels(LabelSelector),
}

// === the file format ===

#[derive(Debug, Default, Decode)]
#[go(package = "policy", rename_all = "camelCase")]
struct PolicyFile {
    api_version: String,
    kind: String,
    defaults: Option<DefaultsFile>,
    namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    rules: Vec<RuleFile>,
}

/// `defaults:`, for every namespace: a rule's fields without its selection.
#[derive(Debug, Default, Decode)]
#[go(package = "policy", rename_all = "camelCase")]
struct DefaultsFile {
    behavior: Option<HorizontalPodAutoscalerBehavior>,
    constraints: Option<Constraints>,
    enforcement: Option<Enforcement>,
    deny_rules: Option<Vec<String>>,
}

#[derive(Debug, Default, Decode)]
#[go(package = "policy", rename_all = "camelCase")]
struct RuleFile {
    name: String,
    namespaces: Option<Vec<String>>,
    namespace_selector: Option<LabelSelector>,
    behavior: Option<HorizontalPodAutoscalerBehavior>,
    constraints: Option<Constraints>,
    enforcement: Option<Enforcement>,
    deny_rules: Option<Vec<String>>,
}

impl Policy {
    /// Parses and checks a policy file. Every problem is reported, with its place in the file.
    pub fn parse(yaml: &str) -> Result<Policy, PolicyError> {
        let decode = |errors| PolicyError::Decode { path: None, errors };
        let document = hpa_yaml::read_document(yaml).map_err(|e| decode(vec![e]))?;
        // The behavior and selectors are autoscaling/v2's and metav1's types, named so in errors.
        let file: PolicyFile = match &document {
            Some(d) => hpa_yaml::read::decode_node(d.root(), "v2").map_err(decode)?,
            None => PolicyFile::default(),
        };
        let mut problems = Vec::new();
        if file.api_version != API_VERSION || file.kind != KIND {
            problems.push(Problem::new(
                "",
                format!(
                    "expected apiVersion {API_VERSION:?} and kind {KIND:?}, got {:?} and {:?}",
                    file.api_version, file.kind
                ),
            ));
        }
        let defaults = file.defaults.unwrap_or_default();
        let enforcement = defaults.enforcement.unwrap_or_default();
        let defaults =
            Layer::new("defaults".into(), "defaults", defaults.behavior, defaults.constraints, &mut problems)
                .enforced(enforcement)
                .denying(deny_rules(defaults.deny_rules, "defaults", &mut problems));
        let mut rules = Vec::with_capacity(file.rules.len());
        let mut names = std::collections::BTreeSet::new();
        for (i, rule) in file.rules.into_iter().enumerate() {
            let at = format!("rules[{i}]");
            if rule.name.is_empty() {
                problems.push(Problem::new(format!("{at}.name"), "required"));
            } else if !names.insert(rule.name.clone()) {
                problems.push(Problem::new(format!("{at}.name"), format!("duplicate rule name {:?}", rule.name)));
            }
            let selector = match (rule.namespaces, rule.namespace_selector) {
                (Some(names), None) if !names.is_empty() => Selector::Names(names),
                (None, Some(selector)) => {
                    problems.extend(selector_problems(&selector, &format!("{at}.namespaceSelector")));
                    Selector::Labels(selector)
                }
                _ => {
                    problems.push(Problem::new(
                        at.as_str(),
                        "set exactly one of namespaces (a non-empty list) and namespaceSelector",
                    ));
                    Selector::Names(Vec::new())
                }
            };
            let origin = format!("rule {:?}", rule.name);
            let layer = Layer::new(origin, &at, rule.behavior, rule.constraints, &mut problems).denying(deny_rules(
                rule.deny_rules,
                &at,
                &mut problems,
            ));
            rules.push((selector, layer.enforced(rule.enforcement.unwrap_or(enforcement))));
        }
        if !problems.is_empty() {
            if let Some(d) = &document {
                // One locator for all: a problem per rule, each located from the root, would
                // walk the rules before it every time.
                let mut locator = hpa_yaml::Locator::new(d.root());
                for p in problems.iter_mut().filter(|p| !p.path.is_empty()) {
                    let start = locator.locate(&p.path).span.start;
                    p.at = Some((start.line.max(1), start.col + 1));
                }
            }
            return Err(PolicyError::Invalid { path: None, problems });
        }
        Ok(Policy { defaults, namespace_labels: file.namespace_labels, rules })
    }

    /// Whether any layer sets a tolerance default (ignored while `HPAConfigurableTolerance` is off).
    pub fn sets_tolerance(&self) -> bool {
        std::iter::once(&self.defaults).chain(self.rules.iter().map(|(_, l)| l)).any(|l| {
            l.behavior
                .as_ref()
                .is_some_and(|b| [&b.scale_up, &b.scale_down].into_iter().flatten().any(|r| r.tolerance.is_some()))
        })
    }

    /// The warning `serve` logs when the policy sets tolerance defaults the gates ignore.
    pub fn ignored_tolerance(&self, gates: &FeatureGates) -> Option<&'static str> {
        (self.sets_tolerance() && !gates.enabled(hpa_core::features::Gate::HPAConfigurableTolerance))
            .then_some("the policy sets tolerance defaults, which are ignored while HPAConfigurableTolerance is off")
    }

    /// `namespaceLabels`: the labels the policy reads for each namespace (webhooks are not sent
    /// the namespace's own).
    pub fn namespace_labels(&self) -> &BTreeMap<String, BTreeMap<String, String>> {
        &self.namespace_labels
    }

    /// Whether any layer sets `denyRules` (which in-tree admission policies cannot express).
    pub fn denies_rules(&self) -> bool {
        std::iter::once(&self.defaults).chain(self.rules.iter().map(|(_, l)| l)).any(|l| l.deny_rules.is_some())
    }

    /// What applies in a namespace: `defaults`, then every matching rule in order.
    pub fn effective(&self, namespace: &str) -> Effective<'_> {
        let mut out = Effective::default();
        out.overlay(&self.defaults);
        let labels = self.namespace_labels.get(namespace);
        let label = |key: &str| -> Option<&str> {
            if key == NAMESPACE_NAME_LABEL {
                return Some(namespace);
            }
            labels.and_then(|l| l.get(key)).map(String::as_str)
        };
        for (selector, layer) in &self.rules {
            let matches = match selector {
                Selector::Names(names) => names.iter().any(|n| n == namespace),
                Selector::Labels(selector) => selector.matches_by(label),
            };
            if matches {
                out.overlay(layer);
            }
        }
        out
    }
}

impl Layer {
    fn new(
        origin: String,
        at: &str,
        behavior: Option<HorizontalPodAutoscalerBehavior>,
        constraints: Option<Constraints>,
        problems: &mut Vec<Problem>,
    ) -> Layer {
        let constraints = constraints.unwrap_or_default();
        if let Some(max) = constraints.max_replicas.filter(|m| *m < 1) {
            problems
                .push(Problem::new(format!("{at}.constraints.maxReplicas"), format!("must be at least 1, got {max}")));
        }
        if let Some(b) = &behavior {
            problems.extend(behavior_problems(b, &format!("{at}.behavior")));
        }
        Layer { origin, behavior, constraints, enforcement: Enforcement::Deny, deny_rules: None }
    }

    fn enforced(self, enforcement: Enforcement) -> Layer {
        Layer { enforcement, ..self }
    }

    fn denying(self, deny_rules: Option<Vec<&'static str>>) -> Layer {
        Layer { deny_rules, ..self }
    }
}

/// `denyRules` as rule IDs; an ID or name hpa-core does not know is a problem.
fn deny_rules(list: Option<Vec<String>>, at: &str, problems: &mut Vec<Problem>) -> Option<Vec<&'static str>> {
    let list = list?;
    let mut ids = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        match hpa_core::rules::find(entry) {
            Some(rule) if rule.meta().id == hpa_core::rules::INVALID.id => problems.push(Problem::new(
                format!("{at}.denyRules[{i}]"),
                "HPA000 is kube-apiserver's own validation, which always denies",
            )),
            Some(rule) => ids.push(rule.meta().id),
            None => problems.push(Problem::new(
                format!("{at}.denyRules[{i}]"),
                format!("unknown rule {entry:?} (see `hpa-lint rules`)"),
            )),
        }
    }
    ids.sort_unstable();
    ids.dedup();
    Some(ids)
}

/// kube-apiserver's validation of a behavior, as it would be once defaulted onto an HPA: an HPA
/// that has it, created through hpa-core's front door ([`check::check`], kube-apiserver's
/// verdict only), and the errors under `spec.behavior`.
fn behavior_problems(behavior: &HorizontalPodAutoscalerBehavior, at: &str) -> Vec<Problem> {
    let mut hpa = HorizontalPodAutoscaler::default();
    hpa.metadata.name = "policy".into();
    hpa.metadata.namespace = "default".into();
    hpa.spec.scale_target_ref =
        CrossVersionObjectReference { kind: "Deployment".into(), name: "policy".into(), api_version: "apps/v1".into() };
    hpa.spec.max_replicas = 1;
    hpa.spec.behavior = Some(behavior.clone());
    let written = check::Written::Decoded(Box::new(VersionedHpa::V2(hpa)));
    let report = check::check(check::Input::create(written), &check::Options::verdict_only(FeatureGates::default()));
    let check::Admission::Admitted(admitted) = report.admission else {
        // A v2 object in hand is neither undecodable nor unconvertible.
        return Vec::new();
    };
    admitted.outcome.errors.iter().filter_map(|e| Problem::of_field_error(e, at, "spec.behavior")).collect()
}

/// `metav1.LabelSelector` validation, kube-apiserver's (`ValidateLabelSelector`,
/// [`hpa_core::validation::meta::validate_label_selector`]): what kube-apiserver would refuse in
/// a selector is refused here, in its words.
fn selector_problems(selector: &LabelSelector, at: &str) -> Vec<Problem> {
    let path = FieldPath::new(at);
    hpa_core::validation::meta::validate_label_selector(selector, &path, KubernetesVersion::LATEST)
        .iter()
        .filter_map(|e| Problem::of_field_error(e, at, at))
        .collect()
}

// === what applies to one namespace ===

/// The policy in force in one namespace, borrowed from the [`Policy`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Effective<'p> {
    scale_up: RuleDefaults<'p>,
    scale_down: RuleDefaults<'p>,
    /// Each constraint with the layer that set it (as messages name it) and its enforcement.
    max_replicas: Option<(i32, &'p str, Enforcement)>,
    require_behavior: Option<(bool, &'p str, Enforcement)>,
    /// `denyRules` of the last layer that set it, with that layer.
    deny_rules: Option<(&'p [&'static str], &'p str)>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct RuleDefaults<'p> {
    stabilization_window_seconds: Option<i32>,
    select_policy: Option<&'p str>,
    policies: Option<&'p [HPAScalingPolicy]>,
    tolerance: Option<&'p Quantity>,
}

impl<'p> RuleDefaults<'p> {
    fn overlay(&mut self, rules: &'p HPAScalingRules) {
        if let Some(w) = rules.stabilization_window_seconds {
            self.stabilization_window_seconds = Some(w);
        }
        if let Some(s) = &rules.select_policy {
            self.select_policy = Some(s);
        }
        if let Some(p) = &rules.policies {
            self.policies = Some(p);
        }
        if let Some(t) = &rules.tolerance {
            self.tolerance = Some(t);
        }
    }

    fn is_empty(&self, tolerance_enabled: bool) -> bool {
        self.stabilization_window_seconds.is_none()
            && self.select_policy.is_none()
            && self.policies.is_none()
            && (self.tolerance.is_none() || !tolerance_enabled)
    }

    /// Fills the fields `rules` leaves unset; reports whether anything changed.
    fn fill(&self, rules: &mut Option<HPAScalingRules>, tolerance_enabled: bool) -> bool {
        if self.is_empty(tolerance_enabled) {
            return false;
        }
        let mut changed = rules.is_none();
        let r = rules.get_or_insert_with(HPAScalingRules::default);
        if r.stabilization_window_seconds.is_none()
            && let Some(w) = self.stabilization_window_seconds
        {
            r.stabilization_window_seconds = Some(w);
            changed = true;
        }
        if r.select_policy.is_none()
            && let Some(s) = self.select_policy
        {
            r.select_policy = Some(s.to_string().into());
            changed = true;
        }
        if r.policies.is_none()
            && let Some(p) = self.policies
        {
            r.policies = Some(p.to_vec());
            changed = true;
        }
        if tolerance_enabled
            && r.tolerance.is_none()
            && let Some(t) = self.tolerance
        {
            r.tolerance = Some(t.clone());
            changed = true;
        }
        changed
    }
}

impl<'p> Effective<'p> {
    fn overlay(&mut self, layer: &'p Layer) {
        if let Some(b) = &layer.behavior {
            if let Some(up) = &b.scale_up {
                self.scale_up.overlay(up);
            }
            if let Some(down) = &b.scale_down {
                self.scale_down.overlay(down);
            }
        }
        if let Some(max) = layer.constraints.max_replicas {
            self.max_replicas = Some((max, &layer.origin, layer.enforcement));
        }
        if let Some(required) = layer.constraints.require_behavior {
            self.require_behavior = Some((required, &layer.origin, layer.enforcement));
        }
        if let Some(ids) = &layer.deny_rules {
            self.deny_rules = Some((ids, &layer.origin));
        }
    }

    /// The rules whose findings deny the request here (`denyRules` of the last layer that
    /// set it).
    pub fn denied_rules(&self) -> &'p [&'static str] {
        self.deny_rules.map_or(&[], |(ids, _)| ids)
    }

    /// Whether findings of the rule `id` deny the request, and the layer that says so.
    pub fn denies(&self, id: &str) -> Option<&'p str> {
        self.deny_rules.filter(|(ids, _)| ids.contains(&id)).map(|(_, origin)| origin)
    }

    /// Whether this policy would set any behavior field.
    pub fn sets_behavior(&self, tolerance_enabled: bool) -> bool {
        !self.scale_up.is_empty(tolerance_enabled) || !self.scale_down.is_empty(tolerance_enabled)
    }

    /// Fills the behavior fields the HPA leaves unset (creating `behavior` if the policy sets
    /// any field); tolerance only when `tolerance_enabled`. Returns whether anything changed.
    pub fn apply_behavior(
        &self,
        behavior: &mut Option<HorizontalPodAutoscalerBehavior>,
        tolerance_enabled: bool,
    ) -> bool {
        if !self.sets_behavior(tolerance_enabled) {
            return false;
        }
        let mut changed = behavior.is_none();
        let b = behavior.get_or_insert_with(HorizontalPodAutoscalerBehavior::default);
        changed |= self.scale_up.fill(&mut b.scale_up, tolerance_enabled);
        changed |= self.scale_down.fill(&mut b.scale_down, tolerance_enabled);
        changed
    }

    /// The constraints the HPA (internal form) breaks, as field errors with their enforcement.
    pub fn violations(&self, hpa: &HorizontalPodAutoscaler, namespace: &str) -> Vec<Violation> {
        let spec = FieldPath::new("spec");
        let mut violations = Vec::new();
        if let Some((max, origin, enforcement)) = self.max_replicas
            && hpa.spec.max_replicas > max
        {
            let error = FieldError::invalid(
                &spec.child("maxReplicas"),
                BadValue::Int(i64::from(hpa.spec.max_replicas)),
                format!("must be less than or equal to {max} (organization policy: {origin})"),
            );
            violations.push(Violation { error, enforcement });
        }
        if let Some((true, origin, enforcement)) = self.require_behavior
            && hpa.spec.behavior.is_none()
        {
            let error = FieldError::required(
                &spec.child("behavior"),
                format!("organization policy requires behavior in namespace {namespace:?} ({origin})"),
            );
            violations.push(Violation { error, enforcement });
        }
        violations
    }
}

// === the layers as written (for `hpa-webhook policy export`) ===

/// One layer of a policy as written: `defaults`, or one rule with its namespace selector.
#[derive(Debug, Clone, Copy)]
pub struct LayerView<'p> {
    /// `defaults` or `rule "name"`, as messages name it.
    pub origin: &'p str,
    /// The namespaces it applies to; `None` for `defaults` (every namespace).
    pub selector: Option<NamespaceSelector<'p>>,
    /// Its behavior defaults.
    pub behavior: Option<&'p HorizontalPodAutoscalerBehavior>,
    /// Its constraints.
    pub constraints: &'p Constraints,
    /// How its constraints are enforced (a rule's own, else that of `defaults`).
    pub enforcement: Enforcement,
}

/// How a rule selects namespaces.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum NamespaceSelector<'p> {
    /// `namespaces: [...]`.
    Names(&'p [String]),
    /// `namespaceSelector`, matched against the namespace's labels (and
    /// [`NAMESPACE_NAME_LABEL`], always its name).
    Labels(&'p LabelSelector),
}

impl Policy {
    /// `defaults`, then every rule in order: what [`Policy::effective`] overlays.
    pub fn layers(&self) -> impl Iterator<Item = LayerView<'_>> {
        std::iter::once(self.defaults.view(None)).chain(self.rules.iter().map(|(selector, layer)| {
            let selector = match selector {
                Selector::Names(names) => NamespaceSelector::Names(names),
                Selector::Labels(labels) => NamespaceSelector::Labels(labels),
            };
            layer.view(Some(selector))
        }))
    }
}

impl Layer {
    fn view<'p>(&'p self, selector: Option<NamespaceSelector<'p>>) -> LayerView<'p> {
        LayerView {
            origin: &self.origin,
            selector,
            behavior: self.behavior.as_ref(),
            constraints: &self.constraints,
            enforcement: self.enforcement,
        }
    }
}

// === the file on disk ===

/// The policy in force, reloaded from its file when the file changes.
pub type PolicyStore = FileValue<Policy, PolicyError>;

impl FileValue<Policy, PolicyError> {
    /// Reads the policy file (or none: an empty policy).
    pub fn load(path: Option<&Path>) -> Result<PolicyStore, PolicyError> {
        match path {
            Some(path) => FileValue::open(path, parse_file, read_error),
            None => Ok(PolicyStore::fixed(Policy::default(), read_error)),
        }
    }
}

/// Why `hpa-webhook policy check` refused a policy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The policy file could not be read or is invalid (the server would not start).
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// `--kubernetes-version` and `--feature-gates` do not go together.
    #[error("--feature-gates: {0}")]
    Gates(#[from] hpa_core::features::GateError),
    /// Writing the result failed.
    #[error("writing the result: {0}")]
    Write(#[from] std::io::Error),
}

impl CheckError {
    /// The exit status `policy check` ends with: 1 for a policy `serve` would refuse, 2 when
    /// there was nothing to check (the file could not be read, the flags do not go together)
    /// or the result could not be written, as `hpa-lint` tells a problem found from one that
    /// stopped it.
    pub fn exit_status(&self) -> u8 {
        match self {
            CheckError::Policy(PolicyError::Read { .. }) | CheckError::Gates(_) | CheckError::Write(_) => 2,
            CheckError::Policy(_) => 1,
        }
    }
}

/// `hpa-webhook policy check FILE`: reads the file as `serve` does ([`PolicyStore::load`]) and
/// says so; what `serve` would log at warn about it goes to `stderr`.
pub fn check(
    args: &crate::cli::CheckArgs,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> Result<(), CheckError> {
    let mut gates = FeatureGates::new(args.kubernetes_version);
    for w in gates.apply(&args.feature_gates)? {
        writeln!(stderr, "warning: --feature-gates: {w}")?;
    }
    let store = PolicyStore::load(Some(&args.policy))?;
    let policy = store.current();
    if let Some(warning) = policy.ignored_tolerance(&gates) {
        writeln!(stderr, "warning: {warning}")?;
    }
    let rules = policy.rules.len();
    let noun = if rules == 1 { "rule" } else { "rules" };
    writeln!(stdout, "{}: a valid policy ({rules} {noun})", args.policy.display())?;
    Ok(())
}

fn read_error(path: PathBuf, error: std::io::Error) -> PolicyError {
    PolicyError::Read { path, error }
}

fn parse_file(path: &Path, bytes: &[u8]) -> Result<Policy, PolicyError> {
    let text = std::str::from_utf8(bytes).map_err(|e| PolicyError::Invalid {
        path: Some(path.to_path_buf()),
        problems: vec![Problem::new("", format!("not UTF-8: {e}"))],
    })?;
    Policy::parse(text).map_err(|e| match e {
        PolicyError::Invalid { problems, .. } => PolicyError::Invalid { path: Some(path.to_path_buf()), problems },
        PolicyError::Decode { errors, .. } => PolicyError::Decode { path: Some(path.to_path_buf()), errors },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy tests' example (also the first policy of the export differential test).
    const EXAMPLE: &str = concat!("\n", include_str!("../tests/data/policy-example.yaml"));

    fn example() -> Policy {
        Policy::parse(EXAMPLE).unwrap()
    }

    fn problems(yaml: &str) -> Vec<String> {
        match Policy::parse(yaml) {
            Err(PolicyError::Invalid { problems, .. }) => problems.iter().map(ToString::to_string).collect(),
            Err(PolicyError::Decode { errors, .. }) => errors.iter().map(ToString::to_string).collect(),
            other => panic!("{other:?}"),
        }
    }

    const HEADER: &str = "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n";

    #[test]
    fn layers_apply_in_order_by_name_and_label() {
        let p = example();
        let shop = p.effective("shop");
        assert_eq!(shop.max_replicas, Some((100, "rule \"not-batch\"", Enforcement::Deny)));
        assert_eq!(shop.require_behavior, Some((true, "rule \"production\"", Enforcement::Deny)));
        assert_eq!(shop.scale_down.stabilization_window_seconds, Some(600));
        assert_eq!(shop.scale_up.select_policy, Some("Min"));
        let preview = p.effective("preview");
        assert_eq!(preview.max_replicas, Some((100, "rule \"not-batch\"", Enforcement::Deny)), "a later rule wins");
        assert_eq!(preview.scale_down.stabilization_window_seconds, Some(60));
        assert_eq!(preview.require_behavior, None);
        let batch = p.effective("batch");
        assert_eq!(batch.max_replicas, Some((200, "defaults", Enforcement::Deny)));
        // Namespaces always carry their name label; undeclared ones have no other label.
        assert_eq!(p.effective("kube-public").max_replicas, Some((200, "defaults", Enforcement::Deny)));
        assert_eq!(p.effective("other").max_replicas, Some((100, "rule \"not-batch\"", Enforcement::Deny)));
        assert!(p.sets_tolerance());
        assert_eq!(Policy::default().effective("x"), Effective::default());
    }

    #[test]
    fn behavior_defaults_fill_only_unset_fields() {
        let p = example();
        let shop = p.effective("shop");
        // No behavior: created, with only the policy's fields (defaulting completes it later).
        let mut b = None;
        assert!(shop.apply_behavior(&mut b, true));
        let b = b.unwrap();
        assert_eq!(b.scale_down.as_ref().unwrap().stabilization_window_seconds, Some(600));
        assert_eq!(b.scale_up.as_ref().unwrap().tolerance, Some(Quantity::parse("50m").unwrap()));
        assert_eq!(b.scale_up.as_ref().unwrap().select_policy.as_deref(), Some("Min"));
        assert_eq!(b.scale_up.as_ref().unwrap().policies, None);
        // The user's fields win; a fully specified behavior is left alone.
        let mut user = Some(HorizontalPodAutoscalerBehavior {
            scale_up: Some(HPAScalingRules {
                select_policy: Some("Max".into()),
                tolerance: Some(Quantity::parse("0.2").unwrap()),
                ..Default::default()
            }),
            scale_down: Some(HPAScalingRules { stabilization_window_seconds: Some(30), ..Default::default() }),
        });
        let before = user.clone();
        assert!(!shop.apply_behavior(&mut user, true));
        assert_eq!(user, before);
        // Tolerance only while the gate is on: with it off, a tolerance-only layer sets nothing.
        let only_tolerance =
            Policy::parse(&format!("{HEADER}defaults:\n  behavior:\n    scaleUp: {{tolerance: \"0.05\"}}\n")).unwrap();
        let mut none = None;
        assert!(!only_tolerance.effective("x").apply_behavior(&mut none, false));
        assert_eq!(none, None);
        assert!(only_tolerance.effective("x").apply_behavior(&mut none, true));
    }

    #[test]
    fn constraints_become_field_errors() {
        let p = example();
        let mut hpa = HorizontalPodAutoscaler::default();
        hpa.spec.max_replicas = 150;
        let violations = p.effective("shop").violations(&hpa, "shop");
        assert!(violations.iter().all(|v| v.enforcement == Enforcement::Deny));
        let errors: Vec<String> = violations.iter().map(|v| v.error.to_string()).collect();
        assert_eq!(
            errors,
            [
                "spec.maxReplicas: Invalid value: 150: must be less than or equal to 100 (organization policy: rule \"not-batch\")",
                "spec.behavior: Required value: organization policy requires behavior in namespace \"shop\" (rule \"production\")",
            ]
        );
        hpa.spec.max_replicas = 100;
        hpa.spec.behavior = Some(Default::default());
        assert!(p.effective("shop").violations(&hpa, "shop").is_empty());
    }

    #[test]
    fn each_constraint_is_enforced_as_the_layer_that_set_it() {
        // `defaults` makes the policy advisory; a rule without `enforcement` inherits it, one
        // with `Deny` enforces what it sets, and a later rule's value brings its own.
        let p = Policy::parse(&format!(
            "{HEADER}defaults:\n  enforcement: Warn\n  constraints: {{maxReplicas: 200, requireBehavior: true}}\n\
             rules:\n  - {{name: shop, namespaces: [shop], enforcement: Deny, constraints: {{maxReplicas: 50}}}}\n\
             \x20 - {{name: batch, namespaces: [batch], constraints: {{maxReplicas: 10}}}}\n"
        ))
        .unwrap();
        let shop = p.effective("shop");
        assert_eq!(shop.max_replicas, Some((50, "rule \"shop\"", Enforcement::Deny)));
        assert_eq!(shop.require_behavior, Some((true, "defaults", Enforcement::Warn)));
        assert_eq!(p.effective("batch").max_replicas, Some((10, "rule \"batch\"", Enforcement::Warn)));
        let mut hpa = HorizontalPodAutoscaler::default();
        hpa.spec.max_replicas = 300;
        let enforcement =
            |ns: &str| p.effective(ns).violations(&hpa, ns).iter().map(|v| v.enforcement).collect::<Vec<_>>();
        assert_eq!(enforcement("shop"), [Enforcement::Deny, Enforcement::Warn]);
        assert_eq!(enforcement("other"), [Enforcement::Warn, Enforcement::Warn]);
        // Without `enforcement` anywhere, everything denies (the behaviour before the key).
        assert!(example().layers().all(|l| l.enforcement == Enforcement::Deny));
        let layers: Vec<Enforcement> = p.layers().map(|l| l.enforcement).collect();
        assert_eq!(layers, [Enforcement::Warn, Enforcement::Deny, Enforcement::Warn]);
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{enforcement: Audit}}\n")),
            ["3:25: unknown enforcement \"Audit\": expected Deny or Warn"]
        );
    }

    #[test]
    fn invalid_policies_report_every_problem_with_its_place() {
        assert_eq!(
            problems("kind: Nope\n"),
            ["expected apiVersion \"hpa-toolkit.io/v1alpha1\" and kind \"WebhookPolicy\", got \"\" and \"Nope\""]
        );
        let p = problems(&format!(
            "{HEADER}defaults:\n  behavior:\n    scaleDown: {{stabilizationWindowSeconds: 4000, policies: []}}\n  constraints: {{maxReplicas: 0}}\n\
             rules:\n  - {{name: a, namespaces: [x], namespaceSelector: {{}}}}\n  - {{name: a, namespaces: [z]}}\n  - {{namespaceSelector: {{matchExpressions: [{{key: k, operator: In}}, {{key: k, operator: Has}}]}}}}\n"
        ));
        assert_eq!(
            p,
            [
                "6:30: defaults.constraints.maxReplicas: must be at least 1, got 0",
                "5:45: defaults.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
                "5:61: defaults.behavior.scaleDown.policies: Required value: must specify at least one Policy",
                "8:5: rules[0]: set exactly one of namespaces (a non-empty list) and namespaceSelector",
                "9:12: rules[1].name: duplicate rule name \"a\"",
                "10:5: rules[2].name: required",
                "10:45: rules[2].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "10:88: rules[2].namespaceSelector.matchExpressions[1].operator: Invalid value: \"Has\": not a valid selector operator",
            ]
        );
        // Keys and values as kube-apiserver's `ValidateLabelSelector` checks them.
        let p = problems(&format!(
            "{HEADER}rules:\n  - {{name: a, namespaceSelector: {{matchLabels: {{\"bad key!\": \"x y\"}}, matchExpressions: [{{key: -k, operator: Exists, values: [v]}}]}}}}\n"
        ));
        assert_eq!(
            p,
            [
                "4:48: rules[0].namespaceSelector.matchLabels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "4:48: rules[0].namespaceSelector.matchLabels: Invalid value: \"x y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                "4:124: rules[0].namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "4:94: rules[0].namespaceSelector.matchExpressions[0].key: Invalid value: \"-k\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ]
        );
        assert_eq!(
            problems(&format!("{HEADER}rules:\n  - name: a\n    namespace: [x]\n")),
            [
                "5:5: unknown field `namespace` in rules[0]; expected one of: name, namespaces, namespaceSelector, behavior, constraints, enforcement, denyRules"
            ]
        );
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{constraints: {{maxReplicas: many}}}}\n")),
            ["3:39: defaults.constraints.maxReplicas: expected a whole number, found the string \"many\""]
        );
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{behavior: {{scaleUp: {{tolerance: 5%}}}}}}\n")),
            [
                "3:44: defaults.behavior.scaleUp.tolerance: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"5%\""
            ]
        );
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{behavior: {{scaleDown: {{tolerance: [1]}}}}}}\n")),
            [
                "3:46: defaults.behavior.scaleDown.tolerance: expected a quantity (a number, or a string such as 500m or 2Gi), found a list"
            ]
        );
        assert_eq!(
            problems(&format!("{HEADER}rules:\n  - name: a\n    enforcement: 1\n")),
            ["5:18: rules[0].enforcement: expected Deny or Warn, found 1"]
        );
        assert_eq!(problems("a: [").len(), 1);
        assert_eq!(
            problems("a: 1\n---\nb: 2\n"),
            [
                "2:1: a second YAML document starts here, and this file holds one: merge its keys into the first document, or remove it"
            ]
        );
    }

    #[test]
    fn deny_rules_are_rule_ids_per_namespace() {
        let p = Policy::parse(&format!(
            "{HEADER}defaults: {{denyRules: [conflicting-hpas]}}\nrules:\n  - name: pay\n    namespaces: [pay]\n    denyRules: [hpa201, HPA410, HPA201]\n  - name: open\n    namespaces: [open]\n    denyRules: []\n"
        ))
        .unwrap();
        assert!(p.denies_rules());
        assert_eq!(p.effective("other").denies("HPA407"), Some("defaults"));
        let pay = p.effective("pay");
        assert_eq!((pay.denies("HPA201"), pay.denies("HPA410")), (Some("rule \"pay\""), Some("rule \"pay\"")));
        assert_eq!(pay.denies("HPA407"), None, "a later layer's list replaces the earlier one");
        assert_eq!(p.effective("open").denies("HPA407"), None);
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{denyRules: [HPA999, HPA000]}}\n")),
            [
                "3:24: defaults.denyRules[0]: unknown rule \"HPA999\" (see `hpa-lint rules`)",
                "3:32: defaults.denyRules[1]: HPA000 is kube-apiserver's own validation, which always denies"
            ]
        );
    }

    #[test]
    fn yaml_is_read_as_kubectl_reads_it() {
        // YAML 1.1 scalars, as everywhere else: `yes` is true, `010` is octal.
        let p =
            Policy::parse(&format!("{HEADER}defaults: {{constraints: {{requireBehavior: yes, maxReplicas: 010}}}}\n"))
                .unwrap();
        assert_eq!(p.defaults.constraints, Constraints { max_replicas: Some(8), require_behavior: Some(true) });
        assert!(Policy::parse("").unwrap_err().to_string().contains("expected apiVersion"));
        // A key given twice is refused, not silently overwritten.
        assert_eq!(
            problems(&format!("{HEADER}defaults: {{constraints: {{maxReplicas: 1, maxReplicas: 2}}}}\n")),
            ["3:42: defaults.constraints.maxReplicas is written twice: keep one"]
        );
    }

    /// A number the policy cannot hold names its key and what to write (kubectl's bare
    /// `json: unsupported value: NaN` before, and "write it without quotes" for an unquoted
    /// `1e400`, which go-yaml reads as a string).
    #[test]
    fn numbers_a_policy_cannot_hold_name_the_key() {
        assert_eq!(
            problems(&format!("{HEADER}defaults:\n  constraints: {{maxReplicas: .inf}}\n")),
            [
                "4:30: defaults.constraints.maxReplicas: .inf is not a number this file can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a finite number, or leave the field out"
            ]
        );
        assert_eq!(
            problems(&format!("{HEADER}defaults:\n  constraints: {{maxReplicas: 1e400}}\n")),
            [
                "4:30: defaults.constraints.maxReplicas: expected a whole number, found the string \"1e400\": a number past a float64's range (about 1.8e308) is a string in YAML; write a smaller number"
            ]
        );
    }

    #[tokio::test]
    async fn store_reloads_changes_and_keeps_the_last_good_policy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.yaml");
        std::fs::write(&path, format!("{HEADER}defaults: {{constraints: {{maxReplicas: 10}}}}\n")).unwrap();
        let store = PolicyStore::load(Some(&path)).unwrap();
        assert_eq!(store.current().effective("x").max_replicas, Some((10, "defaults", Enforcement::Deny)));
        assert!(!store.reload().await.unwrap(), "unchanged file");
        std::fs::write(&path, format!("{HEADER}defaults: {{constraints: {{maxReplicas: 20}}}}\n")).unwrap();
        assert!(store.reload().await.unwrap());
        assert_eq!(store.current().effective("x").max_replicas, Some((20, "defaults", Enforcement::Deny)));
        std::fs::write(&path, "kind: broken\n").unwrap();
        assert!(matches!(store.reload().await, Err(PolicyError::Invalid { path: Some(_), .. })));
        assert!(!store.reload().await.unwrap(), "a bad file is reported once");
        assert_eq!(store.current().effective("x").max_replicas, Some((20, "defaults", Enforcement::Deny)));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(store.reload().await, Err(PolicyError::Read { .. })));
        assert!(matches!(PolicyStore::load(Some(&path)), Err(PolicyError::Read { .. })));
        assert_eq!(*PolicyStore::load(None).unwrap().current().as_ref(), Policy::default());
    }

    /// `policy check` counts the rules in words: `(1 rule)`, `(0 rules)`.
    #[test]
    fn check_counts_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.yaml");
        let head = "apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n";
        for (rules, said) in [("", "(0 rules)"), ("rules:\n  - {name: a, namespaces: [x]}\n", "(1 rule)")] {
            std::fs::write(&path, format!("{head}{rules}")).unwrap();
            let args = crate::cli::CheckArgs {
                policy: path.clone(),
                kubernetes_version: hpa_core::features::KubernetesVersion::LATEST,
                feature_gates: String::new(),
            };
            let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
            check(&args, &mut stdout, &mut stderr).unwrap();
            assert_eq!(String::from_utf8(stdout).unwrap(), format!("{}: a valid policy {said}\n", path.display()));
            assert!(stderr.is_empty());
        }
    }
}
