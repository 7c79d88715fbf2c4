//! Lint rules: checks beyond what kube-apiserver enforces, each one a self-documenting unit
//! with an ID, a name, a default severity and its documentation.
//!
//! Rules live here, not in the linter, because both the linter and the admission webhook (as
//! warnings) use them. A rule sees one HPA ([`Context`]) and, when the caller has them, the
//! other objects of the same manifest set ([`objects::Objects`]), or an object as written before
//! it is decoded ([`AsWritten`]: the keys its text writes twice, the kind of an object that is
//! not an HPA); it reports [`Finding`]s with field paths, never positions.
//!
//! Adding a rule: one file under `rules/` declaring it with
//! [`declare_rule!`](crate::declare_rule) (its doc comment is its documentation, with the
//! sections `## What it checks`, `## Why it matters`, `## Example` and `## How to fix`; the
//! example is a bad and a good manifest, which a test runs), one line in [`ALL`], the fixtures
//! `tests/data/lint/<ID>/bad.yaml` (with markers of the expected positions) and `good.yaml`,
//! and the regenerated `docs/rules.md`.

pub mod index;
pub mod objects;
pub mod replicas_owner;

mod conflicting_hpas;
mod duplicate_key;
mod duplicate_metric;
mod ignore;
mod ignored_alpha_annotation;
mod invalid;
mod invalid_metric_selector;
mod keda_conflict;
mod legacy_behavior;
mod max_replicas_above_limit;
mod min_replicas_below_threshold;
mod min_replicas_blocked_by_pdb;
mod min_replicas_equals_max;
mod missing_resource_request;
mod misspelled_kind;
mod policy_period_below_sync_period;
mod removed_api_version;
mod scale_down_disabled;
mod short_scale_down_window;
mod slow_scale_up;
mod target_kind_case;
mod target_not_found;
mod target_type_mismatch;
mod tolerance_ignored;
mod unknown_container;
mod unscalable_custom_resource;
mod unscalable_target_kind;
mod unserved_target_api_version;
mod unsupported_resource_metric;
mod vpa_conflict;
mod workload_sets_replicas;

use std::borrow::Cow;

use crate::admission::Operation;
use crate::api::{VersionedHpa, v2};
use crate::convert::AnnotationProblem;
use crate::evaluator::HPAControllerConfiguration;
use crate::features::FeatureGates;
use crate::field::FieldError;

pub use ignore::{IGNORE_ANNOTATION, Ignore, suppressed};
pub use index::ObjectIndex;
pub use objects::{ObjectId, Objects, is_cluster_scoped};
pub use removed_api_version::check_version as check_removed_version;

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
            "info" | "note" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A rule's identity and documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// `HPA` and three digits: `1xx` replicas, `2xx` metrics, `3xx` behavior, `4xx` scale target
    /// and metadata; `HPA000` is every kube-apiserver validation error.
    pub id: &'static str,
    /// Kebab-case, naming the pattern flagged (`min-replicas-equals-max`).
    pub name: &'static str,
    /// The default severity.
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// The documentation (Markdown), from the rule's doc comment.
    pub explanation: &'static str,
    /// Whether the rule needs the other objects of the manifest set.
    pub needs_objects: bool,
    /// Whether the rule runs unless configured (opt-in rules are noisy on ordinary manifests:
    /// enable them with `--select` or in `.hpa-lint.yaml`).
    pub enabled_by_default: bool,
}

impl RuleMeta {
    /// The explanation with the one leading space of each doc-comment line removed.
    pub fn docs(&self) -> String {
        self.explanation.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")
    }
}

/// Where a finding points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingField {
    /// A field of the HPA under check (an internal, v2-shaped path; empty for the object).
    Hpa(String),
    /// A field of another object of the manifest set.
    Object {
        /// The object.
        id: ObjectId,
        /// The field path in it.
        path: String,
    },
}

/// A suggested replacement for the whole object.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    /// What the fix does.
    pub description: String,
    /// The object to use instead (JSON).
    pub replacement: serde_json::Value,
}

/// One finding of a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule.
    pub rule: &'static RuleMeta,
    /// The severity (the rule's default; callers may override).
    pub severity: Severity,
    /// Where.
    pub location: FindingField,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do about it (most rules' advice is a fixed text: it is not copied).
    pub help: Option<Cow<'static, str>>,
    /// Other places that matter (with a short label each, most of them fixed texts).
    pub related: Vec<(FindingField, Cow<'static, str>)>,
    /// A replacement object, when the fix is mechanical.
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding on a field of the HPA, at the rule's default severity.
    pub fn new(rule: &'static RuleMeta, path: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            severity: rule.severity,
            location: FindingField::Hpa(path.into()),
            message: message.into(),
            help: None,
            related: Vec::new(),
            fix: None,
        }
    }

    /// Adds help text.
    pub fn help(mut self, help: impl Into<Cow<'static, str>>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Points the finding at another object instead.
    pub fn on_object(mut self, id: ObjectId, path: impl Into<String>) -> Finding {
        self.location = FindingField::Object { id, path: path.into() };
        self
    }

    /// Adds a related location.
    pub fn related(mut self, location: FindingField, label: impl Into<Cow<'static, str>>) -> Finding {
        self.related.push((location, label.into()));
        self
    }

    /// The short form used for admission warnings: `HPA101 min-replicas-equals-max: ...`.
    pub fn short(&self) -> String {
        format!("{} {}: {}", self.rule.id, self.rule.name, self.message)
    }
}

/// Settings that change what rules report (the configurable bounds) and the cluster they
/// assume.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// kube-controller-manager's settings (sync period, tolerance, downscale stabilization)
    /// and the cluster's release and feature gates, which it owns ([`Settings::gates`]).
    pub controller: HPAControllerConfiguration,
    /// `min-replicas-below-threshold`: the smallest acceptable `minReplicas`.
    pub min_replicas: i32,
    /// `max-replicas-above-limit`: the largest acceptable `maxReplicas` (off when `None`).
    pub max_replicas_limit: Option<i32>,
    /// `slow-scale-up`: the longest acceptable time from `minReplicas` to `maxReplicas`.
    pub max_scale_up_seconds: i64,
    /// `short-scale-down-window`: the shortest acceptable scale-down stabilization window.
    pub min_scale_down_window_seconds: i32,
    /// `min-replicas-equals-max`: the smallest acceptable `maxReplicas - minReplicas`
    /// (Gatekeeper's `minimumReplicaSpread`); 1 flags equal bounds only.
    pub min_replica_spread: i32,
}

impl Settings {
    /// The cluster's release and feature gates: the controller's (`--feature-gates` is one
    /// flag for kube-apiserver and kube-controller-manager alike), kept in one place.
    pub fn gates(&self) -> &FeatureGates {
        &self.controller.gates
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            controller: HPAControllerConfiguration::default(),
            min_replicas: 2,
            max_replicas_limit: None,
            max_scale_up_seconds: 600,
            min_scale_down_window_seconds: 60,
            min_replica_spread: 1,
        }
    }
}

/// The help of a finding on a selector kube-apiserver refuses (a workload's, HPA410; a
/// budget's, HPA104).
pub(crate) const REFUSED_SELECTOR_HELP: &str = "write the selector as kube-apiserver takes it: operators In, NotIn, Exists or DoesNotExist, keys and values that are valid labels";

/// Everything a rule sees about one HPA.
#[derive(Clone)]
pub struct Context<'a> {
    /// The object as written, in its own version.
    pub original: &'a VersionedHpa,
    /// What was written, converted to the internal form but not defaulted.
    pub written: &'a v2::HorizontalPodAutoscaler,
    /// The object as kube-apiserver stores it (defaulted, converted, prepared).
    pub effective: &'a v2::HorizontalPodAutoscaler,
    /// kube-apiserver's validation errors (empty when it would accept the object).
    pub errors: &'a [FieldError],
    /// Round-trip annotations kube-apiserver ignores in whole or in part.
    pub annotation_problems: &'a [AnnotationProblem],
    /// The HPA's identity in the manifest set, when there is one.
    pub id: Option<&'a ObjectId>,
    /// The rest of the manifest set, when the caller has it.
    pub objects: Option<&'a dyn Objects>,
    /// Configurable bounds.
    pub settings: &'a Settings,
    /// CREATE (a file, a new object) or UPDATE (onto a stored object: a live HPA re-applied).
    pub operation: Operation,
    /// [`Context::target_refusal`], worked out by the first rule that asks (six rules do).
    pub target_refusal: std::cell::OnceCell<Option<WorkloadRefusal<'a>>>,
}

/// Why kube-apiserver refuses a workload of a manifest set ([`Context::refusal_of`]): the
/// workload refused (the one asked about, or the workload an Argo Rollout's `spec.workloadRef`
/// names), the field of its first error and kube-apiserver's message
/// ([`objects::Workload::refusal`]).
#[derive(Debug, Clone)]
pub struct WorkloadRefusal<'a> {
    /// The workload kube-apiserver refuses.
    pub workload: &'a objects::Workload,
    /// The field of the first error.
    pub field: String,
    /// kube-apiserver's message, every error.
    pub message: String,
}

/// Items as a sentence lists them: `a`, `a and b`, `a, b and c` (how every finding and note
/// lists names).
pub fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    }
}

impl<'a> Context<'a> {
    /// The namespace of the HPA.
    pub fn namespace(&self) -> &str {
        &self.effective.metadata.namespace
    }

    /// The scale target's identity: in the HPA's namespace, or in none for a kind without
    /// namespaces.
    pub fn scale_target(&self) -> ObjectId {
        let t = &self.effective.spec.scale_target_ref;
        let namespace = self.scale_target_namespace().to_string();
        ObjectId { api_version: t.api_version.clone(), kind: t.kind.clone(), namespace, name: t.name.clone() }
    }

    /// The namespace the scale target is looked up in: the HPA's, or none for a kind without
    /// namespaces ([`is_cluster_scoped`]), whose objects the set holds without one.
    pub fn scale_target_namespace(&self) -> &str {
        let t = &self.effective.spec.scale_target_ref;
        if is_cluster_scoped(&t.api_version, &t.kind) { "" } else { self.namespace() }
    }

    /// The scale target, when the caller has the rest of the set and the set holds it
    /// (its kind compared exactly, in the HPA's namespace or in none: [`Context::scale_target`]),
    /// in the API group the reference names ([`object_group`]: a Rollout of `argoproj.io` is not
    /// the target of an HPA that names `example.com/v1` or `apps/v1`, where the controller looks;
    /// an `apps/v1beta2` Deployment is the one an `apps/v1` reference names). `None` for a
    /// reference the controller's RESTMapper maps to no resource ([`unmapped_scale_target`]:
    /// a Deployment of `extensions/v1beta1`, a ReplicationController of `core/v1`): it never
    /// finds a target, whatever the set holds, so no rule reads one (HPA405 says why).
    pub fn target_workload(&self) -> Option<&'a objects::Workload> {
        let t = &self.effective.spec.scale_target_ref;
        if unmapped_scale_target(&t.api_version, &t.kind) {
            return None;
        }
        self.objects?.workload(
            self.scale_target_group(),
            self.scale_target_kind(),
            self.scale_target_namespace(),
            &t.name,
        )
    }

    /// The kind of the scale target as the controller's RESTMapper maps it: as written, or,
    /// written all in lowercase, the kind it is the alias of ([`Objects::mapped_kind`] when the
    /// caller has the rest of the set, which may define it; [`mapped_kind`] otherwise). With
    /// [`Context::scale_target_group`], namespace and name, the identity every rule looks the
    /// target up by.
    pub fn scale_target_kind(&self) -> &'a str {
        let (group, kind) = (self.scale_target_group(), self.effective.spec.scale_target_ref.kind.as_str());
        match self.objects {
            Some(objects) => objects.mapped_kind(group, kind),
            None => mapped_kind(group, kind),
        }
    }

    /// The API group of the scale target ([`object_group`] of `spec.scaleTargetRef`): with its
    /// kind, namespace and name, its identity.
    pub fn scale_target_group(&self) -> &'a str {
        let t = &self.effective.spec.scale_target_ref;
        object_group(&t.kind, &t.api_version)
    }

    /// Why kube-apiserver refuses the scale target or the workload its pods are made from
    /// ([`Context::refusal_of`] the target, worked out once). HPA410 reports it; the rules about
    /// what the target's pods would do (HPA104's budget, HPA201's requests, HPA202's
    /// containers, HPA407's HPAs, HPA408's VPA) say nothing of a target that is never created or
    /// that makes no pods.
    pub fn target_refusal(&self) -> Option<&WorkloadRefusal<'a>> {
        self.target_refusal.get_or_init(|| self.refusal_of(self.target_workload()?)).as_ref()
    }

    /// Why kube-apiserver refuses `w` ([`objects::Workload::refusal`], in the words of the
    /// release linted for), or, for an Argo Rollout whose `spec.workloadRef` names a workload
    /// of the set, that workload: it is never created, so Argo Rollouts cannot resolve the
    /// reference (`informerBasedTemplateResolver.Resolve`: not found) and the Rollout makes no
    /// pods. `None` when kube-apiserver takes them, and whenever the objects were read from a
    /// cluster or hpa-webhook's context cache ([`objects::WorldSource`]): those were admitted
    /// (kube-apiserver validates a workload before any validating webhook sees it), so none is
    /// refused, whatever this model of validation says of it.
    pub fn refusal_of<'w>(&self, w: &'w objects::Workload) -> Option<WorkloadRefusal<'w>>
    where
        'a: 'w,
    {
        let objects = self.objects?;
        if objects.source() != objects::WorldSource::Manifests {
            return None;
        }
        let release = self.settings.gates().version();
        let refused = |workload: &'w objects::Workload| {
            let (field, message) = workload.refusal(release)?;
            Some(WorkloadRefusal { workload, field, message })
        };
        refused(w).or_else(|| {
            let template = objects.pod_template_of(w).filter(|t| !std::ptr::eq(*t, w))?;
            refused(template)
        })
    }

    /// Whether `w` makes no pods: kube-apiserver refuses it or the workload its pods are made
    /// from ([`Context::refusal_of`]), or it is an Argo Rollout whose `spec.workloadRef` Argo
    /// refuses ([`objects::WorkloadRef::refused`]). Its HPA never gets a selector from it, so
    /// the HPA controller counts it for no pod (HPA407, HPA201's pods of other workloads).
    pub fn makes_no_pods(&self, w: &objects::Workload) -> bool {
        w.workload_ref.as_ref().is_some_and(|r| r.refused.is_some()) || self.refusal_of(w).is_some()
    }

    /// The workload the target's pods are made from ([`Objects::pod_template_of`]): the target
    /// itself, or what an Argo Rollout's `spec.workloadRef` names. `None` when the controller
    /// never reaches the target's pods ([`Context::scales_target`]): the rules about what the
    /// pods would do (HPA201's requests, HPA202's containers, HPA408's VPA) have nothing to say
    /// of an HPA that fails before it reads a metric (HPA402, HPA405 say why).
    pub fn target_pod_template(&self) -> Option<&'a objects::Workload> {
        if !self.scales_target() {
            return None;
        }
        self.objects?.pod_template_of(self.target_workload()?)
    }

    /// Whether the controller gets as far as the target's pods: not for a target kind without a
    /// `scale` subresource (HPA402) or a built-in kind in a group that does not serve it
    /// (HPA405), where `reconcileAutoscaler` stops at `FailedGetScale` before it reads a
    /// selector or a metric. (An HPA in a version the release no longer serves, HPA401, is
    /// judged as what it asks for: rewritten in `autoscaling/v2`, it does the same.)
    pub fn scales_target(&self) -> bool {
        let t = &self.effective.spec.scale_target_ref;
        !unmapped_scale_target(&t.api_version, &t.kind)
            && !unscalable_target_kind::has_no_scale(&t.api_version, &t.kind)
    }

    /// Whether the HPA is written in `autoscaling/v1`, whose spec has no `metrics` (only
    /// `targetCPUUtilizationPercentage`) and no `behavior`: help must not suggest fields it
    /// cannot express, but `autoscaling/v2`.
    pub fn written_in_v1(&self) -> bool {
        matches!(self.original, VersionedHpa::V1(_))
    }

    /// Help that names `autoscaling/v2` fields (metric types and targets, `behavior`): as it is
    /// for an HPA in a version that has them; for an `autoscaling/v1` HPA, preceded by rewriting
    /// it in `autoscaling/v2` (its annotations are a round-trip format, not for writing).
    pub fn help_in_v2(&self, help: &str) -> String {
        if self.written_in_v1() {
            format!(
                "autoscaling/v1 has only targetCPUUtilizationPercentage: write the HPA in autoscaling/v2 (`hpa-lint convert --to autoscaling/v2`), then {help}"
            )
        } else {
            help.to_string()
        }
    }
}

/// An object as a front end read it, before it was decoded: what the decoded object no longer
/// shows. [`crate::check::check`] gives the rules this for the HPA under check (its `kind` is
/// `HorizontalPodAutoscaler`), whether kube-apiserver admits it or not;
/// [`crate::check::check_other`] for each other object of a set.
#[derive(Debug, Clone, Copy)]
pub struct AsWritten<'a> {
    /// Its `apiVersion` as written.
    pub api_version: &'a str,
    /// Its `kind` as written.
    pub kind: &'a str,
    /// The keys written more than once in one mapping, each the path of its field as the
    /// decoder words it (`spec.maxReplicas`), in the order of the text; empty for a source that
    /// cannot hold one (JSON kubectl or kube-apiserver already read into a map).
    pub duplicate_keys: &'a [&'a str],
}

/// One rule. A rule implements [`Rule::check`] (the HPA, decoded and admitted), or
/// [`Rule::check_written`] (the object as written, before decoding), or both.
pub trait Rule: Sync {
    /// Its identity and documentation.
    fn meta(&self) -> &'static RuleMeta;
    /// Adds its findings about one HPA that went through kube-apiserver's pipeline.
    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let _ = (cx, out);
    }
    /// Adds its findings about an object as written ([`AsWritten`]): the HPA under check, even
    /// one kube-apiserver refuses, or another object of the set.
    fn check_written(&self, object: &AsWritten<'_>, out: &mut Vec<Finding>) {
        let _ = (object, out);
    }
    /// What the rule checks or reports on the release and feature gates of `gates`, for a rule
    /// whose verdict depends on them (`hpa-lint rules --kubernetes-version`), in one sentence
    /// without the release's name; `None` when it is the same on every supported release.
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        let _ = gates;
        None
    }
}

/// Declares a rule: a unit struct whose doc comment is the rule's documentation.
#[macro_export]
#[doc(hidden)]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            id: $id:literal,
            name: $rname:literal,
            severity: $sev:ident,
            summary: $summary:literal,
            needs_objects: $needs:literal
            $(, enabled_by_default: $enabled:literal)? $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, Default)]
        $vis struct $name;

        impl $name {
            /// The rule's identity and documentation.
            pub const META: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                id: $id,
                name: $rname,
                severity: $crate::rules::Severity::$sev,
                summary: $summary,
                explanation: concat!($($doc, "\n"),*),
                needs_objects: $needs,
                enabled_by_default: $crate::__rule_enabled!($($enabled)?),
            };
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __rule_enabled {
    () => {
        true
    };
    ($enabled:literal) => {
        $enabled
    };
}

/// Every rule, sorted by ID: the table of contents. Front ends run them only through the front
/// door, [`crate::check`]: [`crate::check::check`] runs every rule on an HPA (with the keys its
/// text writes twice, for `HPA001 duplicate-key`). An object that is not an HPA cannot go
/// through the HPA's door, by nature (it is never decoded nor admitted as one): its one entry
/// point is [`crate::check::check_other`], which runs every rule's [`Rule::check_written`] on it
/// (`HPA406 misspelled-kind`).
pub static ALL: &[&dyn Rule] = &[
    &invalid::Invalid,
    &duplicate_key::DuplicateKey,
    &min_replicas_equals_max::MinReplicasEqualsMax,
    &min_replicas_below_threshold::MinReplicasBelowThreshold,
    &max_replicas_above_limit::MaxReplicasAboveLimit,
    &min_replicas_blocked_by_pdb::MinReplicasBlockedByPdb,
    &missing_resource_request::MissingResourceRequest,
    &unknown_container::UnknownContainer,
    &target_type_mismatch::TargetTypeMismatch,
    &unsupported_resource_metric::UnsupportedResourceMetric,
    &duplicate_metric::DuplicateMetric,
    &invalid_metric_selector::InvalidMetricSelector,
    &scale_down_disabled::ScaleDownDisabled,
    &slow_scale_up::SlowScaleUp,
    &short_scale_down_window::ShortScaleDownWindow,
    &policy_period_below_sync_period::PolicyPeriodBelowSyncPeriod,
    &legacy_behavior::LegacyBehavior,
    &tolerance_ignored::ToleranceIgnored,
    &removed_api_version::RemovedApiVersion,
    &unscalable_target_kind::UnscalableTargetKind,
    &target_not_found::TargetNotFound,
    &target_kind_case::TargetKindCase,
    &unserved_target_api_version::UnservedTargetApiVersion,
    &misspelled_kind::MisspelledKind,
    &conflicting_hpas::ConflictingHpas,
    &vpa_conflict::VpaConflict,
    &keda_conflict::KedaConflict,
    &workload_sets_replicas::WorkloadSetsReplicas,
    &ignored_alpha_annotation::IgnoredAlphaAnnotation,
    &unscalable_custom_resource::UnscalableCustomResource,
];

/// `HPA000 invalid`: kube-apiserver's errors (decoding, conversion, validation) as findings.
pub const INVALID: &RuleMeta = &invalid::Invalid::META;

/// `HPA001 duplicate-key`: its findings point at a key (the one kubectl keeps), not at a value.
pub const DUPLICATE_KEY: &RuleMeta = &duplicate_key::DuplicateKey::META;

/// `HPA401 removed-api-version`: reported on an object kube-apiserver refuses too.
pub const REMOVED_API_VERSION: &RuleMeta = &removed_api_version::RemovedApiVersion::META;

/// `HPA403 target-not-found`: concludes from an absence, so the webhook denies on it only where
/// the target was read from the API server at admission (a watch cache may lag a write).
pub const TARGET_NOT_FOUND: &RuleMeta = &target_not_found::TargetNotFound::META;

/// Looks a rule up by ID or name.
pub fn find(id_or_name: &str) -> Option<&'static dyn Rule> {
    ALL.iter().copied().find(|r| r.meta().id.eq_ignore_ascii_case(id_or_name) || r.meta().name == id_or_name)
}

/// Built-in kinds that have a `scale` subresource, with the `apiVersion`s that serve them.
pub const SCALABLE_KINDS: &[(&str, &[&str])] = &[
    ("Deployment", &["apps/v1"]),
    ("StatefulSet", &["apps/v1"]),
    ("ReplicaSet", &["apps/v1"]),
    ("ReplicationController", &["v1", ""]),
];

/// Whether the HPA controller cannot map the scale target `kind` of `api_version` to a resource:
/// a kind of [`SCALABLE_KINDS`] written in a group that does not serve it (a Deployment of
/// `extensions/v1beta1`). `reconcileAutoscaler` asks its RESTMapper for the group and kind
/// (`RESTMappings`, the version aside) and stops there with `FailedGetScale`: the HPA never
/// reads its target's selector, so it selects no pods and conflicts with no other HPA (HPA405
/// reports the group).
///
/// Or any kind written in one of Kubernetes' own groups whose name has no dot
/// ([`DOTLESS_GROUP_KINDS`]) that does not serve it (an Argo `Rollout` of `apps/v1`): no
/// CustomResourceDefinition can add a kind to those groups, since a CRD's group must contain a
/// dot (`ValidateCustomResourceDefinitionSpec`: "should be a domain with at least one dot"),
/// so the RESTMapper finds nothing there either (HPA405 reports it, HPA402 a kind without a
/// `scale` subresource). Or any kind of the group `core`: discovery lists the core group as `""`.
pub fn unmapped_scale_target(api_version: &str, kind: &str) -> bool {
    let Ok(written) = crate::api::GroupVersion::parse(api_version).map(crate::api::GroupVersion::group) else {
        return false;
    };
    // The core group spelled `core`, as RBAC names it, is no group of discovery (which lists
    // the core group as `""`): the RESTMapper maps no kind there, built-in or custom (a CRD's
    // group has a dot).
    if written == "core" {
        return true;
    }
    let kind = mapped_kind(written, kind);
    match scalable_group(kind) {
        Some(served) => written != served,
        None => dotless_group_lacks(written, kind),
    }
}

/// The kinds each of Kubernetes' own API groups without a dot in its name serves, as
/// kube-apiserver registers them (`pkg/registry/*/rest/storage_*.go`; the core group `""` with
/// OpenShift's legacy `v1` DeploymentConfig, which [`objects::Workload::pods_known`] reads).
/// `extensions` is served by no release linted for (its last kinds went in 1.22).
pub const DOTLESS_GROUP_KINDS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "DeploymentConfig",
            "Endpoints",
            "Event",
            "LimitRange",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
        ],
    ),
    ("apps", &["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]),
    ("autoscaling", &["HorizontalPodAutoscaler", "Scale"]),
    ("batch", &["CronJob", "Job"]),
    ("extensions", &[]),
    ("policy", &["Eviction", "PodDisruptionBudget"]),
];

/// The kinds `group` serves when it is one of [`DOTLESS_GROUP_KINDS`].
pub fn dotless_group_kinds(group: &str) -> Option<&'static [&'static str]> {
    DOTLESS_GROUP_KINDS.iter().find(|(g, _)| *g == group).map(|(_, kinds)| *kinds)
}

/// Whether a reference to the kind `written` names the kind `served`, as the controller's
/// RESTMapper decides: `NewDiscoveryRESTMapper` (`k8s.io/client-go/restmapper`) registers each
/// discovered kind under its name and under `strings.ToLower` of it, so `statefulset` names the
/// StatefulSet and `Statefulset` nothing (HPA404 warns of the first, and errs on the second).
pub fn maps_kind(served: &str, written: &str) -> bool {
    served == written || (!written.bytes().any(|b| b.is_ascii_uppercase()) && served.eq_ignore_ascii_case(written))
}

/// The kind the controller's RESTMapper maps `kind` of `group` to ([`maps_kind`]): `kind`
/// itself, or, for the all-lowercase spelling of a kind one of Kubernetes' own groups serves
/// ([`DOTLESS_GROUP_KINDS`]), that kind.
pub fn mapped_kind<'a>(group: &str, kind: &'a str) -> &'a str {
    // (Asked of every HPA: a kind with a capital, as written, is its own without a scan.)
    if kind.bytes().any(|b| b.is_ascii_uppercase()) {
        return kind;
    }
    dotless_group_kinds(group).and_then(|kinds| kinds.iter().copied().find(|k| maps_kind(k, kind))).unwrap_or(kind)
}

/// The API group and kind the controller's RESTMapper gives the scale target `t`
/// ([`object_group`], [`mapped_kind`]): with its name and the HPA's namespace, the object it
/// scales, wherever the toolkit looks a target up (the rules, the index, the linter's sets,
/// the webhook, `diagnose`).
pub fn target_group_kind(t: &crate::api::CrossVersionObjectReference) -> (&str, &str) {
    let group = object_group(&t.kind, &t.api_version);
    (group, mapped_kind(group, &t.kind))
}

/// Whether `group` is one of [`DOTLESS_GROUP_KINDS`] and does not serve `kind`.
pub fn dotless_group_lacks(group: &str, kind: &str) -> bool {
    dotless_group_kinds(group).is_some_and(|kinds| !kinds.contains(&kind))
}

/// The API group an object of `kind` written in `api_version` belongs to, as the RESTMapper
/// maps a reference to it (`meta.RESTMapper.RESTMapping` by `schema.GroupKind`: the version
/// aside): a slice of `api_version`, so that it costs no allocation. The core group may be
/// spelled `core` (`GroupVersion::api_group`); a kind that moved keeps its objects: an
/// `extensions` Deployment, ReplicaSet or DaemonSet is the `apps` one (one storage, served in
/// both groups until 1.16), OpenShift's legacy core-group `v1` DeploymentConfig the
/// `apps.openshift.io` one. With the kind, namespace and name, it is an object's identity
/// wherever the toolkit matches objects ([`objects::ObjectId::same_object`], the index).
pub fn object_group<'a>(kind: &str, api_version: &'a str) -> &'a str {
    match crate::api::GroupVersion::parse_or_empty(api_version).api_group() {
        "" if kind == "DeploymentConfig" => "apps.openshift.io",
        "extensions" if matches!(kind, "Deployment" | "ReplicaSet" | "DaemonSet") => "apps",
        g => g,
    }
}

/// Whether a workload of `workload_api_version` is of the API group an object reference of
/// `reference_api_version` names, as the RESTMapper compares them (by group, the version
/// aside: [`object_group`] of each).
pub fn same_group(kind: &str, reference_api_version: &str, workload_api_version: &str) -> bool {
    object_group(kind, reference_api_version) == object_group(kind, workload_api_version)
}

/// The workload an HPA counts as scaling wherever the toolkit asks which HPAs scale a workload
/// or select its pods (HPA407 and HPA104's other workloads, through the index every front end
/// builds with it: files, `hpa-lint cluster`, the webhook's cache; the webhook's
/// `/validate-workloads`, finding the HPAs a write concerns): the API group ([`object_group`]),
/// kind and name of `target`, the
/// `spec.scaleTargetRef` of an HPA written in `hpa_api_version`. `None` for an HPA the
/// controller never scales anything with: a target without a kind or a name; an HPA in a version
/// `release` does not serve (`autoscaling/v2beta2` from 1.26, HPA401), which kubectl cannot send
/// and kube-apiserver never stores; a built-in kind written in a group that does not serve it
/// ([`unmapped_scale_target`], HPA405), where `reconcileAutoscaler` stops at the RESTMapper
/// (`FailedGetScale`) before it reads a selector, so it selects no pods; a kind without a
/// `scale` subresource (`unscalable_target_kind::has_no_scale`, HPA402: a DaemonSet, a Job,
/// ...), where it stops at `scaleForResourceMappings` (`FailedGetScale`), as early: the HPA
/// never registers a selector (`validateAndParseSelector`), so `hpasControllingPodsUnderSelector`
/// counts it for no pod.
pub fn counted_target<'a>(
    hpa_api_version: &str,
    target: &'a crate::api::CrossVersionObjectReference,
    release: crate::features::KubernetesVersion,
) -> Option<(&'a str, &'a str, &'a str)> {
    let served = crate::api::served(hpa_api_version, release).is_ok();
    (served
        && !target.kind.is_empty()
        && !target.name.is_empty()
        && !unmapped_scale_target(&target.api_version, &target.kind)
        && !unscalable_target_kind::has_no_scale(&target.api_version, &target.kind))
    .then(|| {
        let (group, kind) = target_group_kind(target);
        (group, kind, target.name.as_str())
    })
}

/// The API group of a built-in scalable kind ([`SCALABLE_KINDS`]: `apps` for a Deployment, the
/// core group `""` for a ReplicationController), in any of its versions; `None` for another kind.
pub fn scalable_group(kind: &str) -> Option<&'static str> {
    let (_, served) = SCALABLE_KINDS.iter().find(|(k, _)| *k == kind)?;
    crate::api::GroupVersion::parse(served.first()?).ok().map(crate::api::GroupVersion::group)
}

/// The field path and message of each finding of rule `id` about the HPA, for the rules' tests.
#[cfg(test)]
pub(crate) fn hpa_findings(findings: Vec<Finding>, id: &str) -> Vec<(String, String)> {
    findings
        .into_iter()
        .filter(|f| f.rule.id == id)
        .map(|f| match f.location {
            FindingField::Hpa(path) => (path, f.message),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An HPA counts as scaling its target only when the controller gets as far as its
    /// selector: not on a kind without a `scale` subresource, nor on a built-in kind in a group
    /// that does not serve it.
    #[test]
    fn only_targets_the_controller_scales_are_counted() {
        let release = crate::features::KubernetesVersion::LATEST;
        let counted = |hpa_api_version: &str, api_version: &str, kind: &str| {
            let target = crate::api::CrossVersionObjectReference {
                api_version: api_version.into(),
                kind: kind.into(),
                name: "web".into(),
            };
            counted_target(hpa_api_version, &target, release).map(|(_, k, n)| (k.to_string(), n.to_string()))
        };
        let web = |kind: &str| Some((kind.to_string(), "web".to_string()));
        assert_eq!(counted("autoscaling/v2", "apps/v1", "Deployment"), web("Deployment"));
        assert_eq!(counted("autoscaling/v2", "example.com/v1", "Worker"), web("Worker"));
        assert_eq!(counted("autoscaling/v2", "apps/v1", "DaemonSet"), None);
        assert_eq!(counted("autoscaling/v2", "batch/v1", "Job"), None);
        assert_eq!(counted("autoscaling/v2", "extensions/v1beta1", "Deployment"), None);
        assert_eq!(counted("autoscaling/v2beta2", "apps/v1", "Deployment"), None);
    }

    /// One table ([`SCALABLE_KINDS`]) gives the group of each built-in scalable kind, which
    /// both the unmapped-target check and `replicas_error` read.
    #[test]
    fn scalable_groups_come_from_the_one_table() {
        assert_eq!(scalable_group("Deployment"), Some("apps"));
        assert_eq!(scalable_group("ReplicationController"), Some(""));
        assert_eq!(scalable_group("Rollout"), None);
        assert!(unmapped_scale_target("extensions/v1beta1", "Deployment"));
        assert!(!unmapped_scale_target("apps/v1beta2", "Deployment"));
        // A custom kind in one of Kubernetes' own groups without a dot is never served there;
        // in a group with a dot, or at another version of its own group, it may be.
        assert!(unmapped_scale_target("apps/v1", "Rollout"));
        assert!(unmapped_scale_target("batch/v1", "WorkerPool"));
        assert!(unmapped_scale_target("extensions/v1beta1", "DaemonSet"));
        assert!(!unmapped_scale_target("argoproj.io/v1", "Rollout"));
        assert!(!unmapped_scale_target("example.com/v1", "Rollout"));
        assert!(!unmapped_scale_target("v1", "DeploymentConfig"));
        assert!(!unmapped_scale_target("apps/v1", "DaemonSet"));
        assert!(!unmapped_scale_target("a/b/c", "Rollout"));
        assert!(unmapped_scale_target("core/v1", "ReplicationController"));
        assert!(unmapped_scale_target("core/v1", "WorkerPool"));
        assert!(!unmapped_scale_target("v1", "ReplicationController"));
        // The RESTMapper also maps each kind's all-lowercase spelling, and no other.
        assert!(!unmapped_scale_target("apps/v1", "statefulset"));
        assert!(!unmapped_scale_target("v1", "replicationcontroller"));
        assert!(unmapped_scale_target("apps/v1", "Statefulset"));
        assert!(unmapped_scale_target("apps/v1", "replicationcontroller"));
        assert_eq!(mapped_kind("apps", "statefulset"), "StatefulSet");
        assert_eq!(mapped_kind("apps", "Statefulset"), "Statefulset");
        assert_eq!(mapped_kind("example.com", "workerpool"), "workerpool");
        // The target is looked up by group, the version aside.
        assert!(same_group("Rollout", "argoproj.io/v1", "argoproj.io/v1alpha1"));
        assert!(!same_group("Rollout", "example.com/v1alpha1", "argoproj.io/v1alpha1"));
        assert!(same_group("DeploymentConfig", "v1", "apps.openshift.io/v1"));
        assert!(same_group("Namespace", "core/v1", "v1"));
        assert!(same_group("Deployment", "extensions/v1beta1", "apps/v1"));
        assert!(!same_group("Deployment", "example.com/v1", "apps/v1"));
        // Which HPAs count as scaling their target: one rule for every front end.
        let target = |api_version: &str, kind: &str, name: &str| crate::api::CrossVersionObjectReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
        };
        let v1_33 = crate::features::KubernetesVersion::V1_33;
        let web = target("apps/v1beta2", "Deployment", "web");
        assert_eq!(counted_target("autoscaling/v2", &web, v1_33), Some(("apps", "Deployment", "web")));
        assert_eq!(counted_target("autoscaling/v1", &web, v1_33), Some(("apps", "Deployment", "web")));
        assert_eq!(counted_target("autoscaling/v2beta2", &web, v1_33), None);
        assert_eq!(counted_target("autoscaling/v2", &target("extensions/v1beta1", "Deployment", "web"), v1_33), None);
        assert_eq!(counted_target("autoscaling/v2", &target("apps/v1", "Deployment", ""), v1_33), None);
        assert_eq!(counted_target("autoscaling/v2", &target("apps/v1", "", "web"), v1_33), None);
        let pool = target("example.com/v1", "WorkerPool", "pool");
        assert_eq!(counted_target("autoscaling/v2", &pool, v1_33), Some(("example.com", "WorkerPool", "pool")));
        let rc = target("v1", "ReplicationController", "rc");
        assert_eq!(counted_target("autoscaling/v2", &rc, v1_33), Some(("", "ReplicationController", "rc")));
        let id = |api_version: &str, kind: &str| objects::ObjectId {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: "shop".into(),
            name: "web".into(),
        };
        let spec = serde_json::json!({"replicas": "3"});
        assert!(objects::replicas_error(&id("apps/v1beta2", "StatefulSet"), Some(&spec)).is_some());
        assert!(objects::replicas_error(&id("v1", "ReplicationController"), Some(&spec)).is_some());
        assert_eq!(objects::replicas_error(&id("extensions/v1beta1", "Deployment"), Some(&spec)), None);
        assert_eq!(objects::replicas_error(&id("argoproj.io/v1alpha1", "Rollout"), Some(&spec)), None);
    }

    #[test]
    fn registry_is_sorted_unique_and_documented() {
        let ids: Vec<&str> = ALL.iter().map(|r| r.meta().id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "ALL is sorted by ID, without duplicates");
        let mut names: Vec<&str> = ALL.iter().map(|r| r.meta().name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len(), "names are unique");
        for r in ALL {
            let m = r.meta();
            assert!(
                m.id.len() == 6 && m.id.starts_with("HPA") && m.id[3..].chars().all(|c| c.is_ascii_digit()),
                "{}",
                m.id
            );
            assert!(m.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{} is kebab-case", m.name);
            let docs = m.docs();
            let mut at = 0;
            for section in ["## What it checks", "## Why it matters", "## Example", "## How to fix"] {
                let found = docs[at..].find(&format!("{section}\n"));
                assert!(found.is_some(), "{} lacks {section} (or has it out of order)", m.id);
                at += found.unwrap_or_default();
            }
            let (yaml_blocks, instead) = example_shape(&docs);
            assert_eq!(yaml_blocks, 2, "{}: the example is a bad and a good ```yaml block", m.id);
            assert!(instead, "{}: a line `Instead:` separates the bad example from the good one", m.id);
            assert!(!m.summary.is_empty() && !m.summary.contains('\n'), "{}: the summary is one line", m.id);
            assert!(!m.summary.ends_with('.'), "{}: summaries have no trailing period", m.id);
        }
    }

    /// A rule that reads LimitRanges, RuntimeClasses or CustomResourceDefinitions says where
    /// each front end reads them from: files, `hpa-lint cluster` and `hpa-webhook`'s context
    /// cache read them all, and "among the checked manifests" alone would say the live ones do
    /// not.
    #[test]
    fn rules_reading_cluster_kinds_say_where_each_front_end_reads_them() {
        let mut found = Vec::new();
        for r in ALL {
            let m = r.meta();
            let docs = m.docs();
            let checks = docs.split("## Why it matters").next().unwrap_or_default();
            if !["LimitRange", "RuntimeClass", "CustomResourceDefinition"].iter().any(|k| checks.contains(k)) {
                continue;
            }
            found.push(m.id);
            for front_end in ["in files", "`hpa-lint cluster`", "`hpa-webhook`", "context cache"] {
                assert!(checks.contains(front_end), "{}: `## What it checks` does not name {front_end}", m.id);
            }
        }
        assert_eq!(found, ["HPA201", "HPA403", "HPA410", "HPA412"]);
    }

    /// The number of ```yaml blocks in the `## Example` section, and whether a line `Instead:`
    /// stands between the first and the second.
    fn example_shape(docs: &str) -> (usize, bool) {
        let Some(start) = docs.find("## Example\n") else { return (0, false) };
        let section = &docs[start + "## Example\n".len()..];
        let section = section.find("\n## ").map_or(section, |end| &section[..end]);
        let (mut blocks, mut fenced, mut instead) = (0, false, false);
        for line in section.lines() {
            match line.trim_end() {
                "```yaml" if !fenced => {
                    fenced = true;
                    blocks += 1;
                }
                "```" if fenced => fenced = false,
                "Instead:" if !fenced && blocks == 1 => instead = true,
                _ => {}
            }
        }
        (blocks, instead)
    }
}
