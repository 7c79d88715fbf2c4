//! The front door: everything hpa-core knows about one HPA, in one call.
//!
//! Every front end (each `hpa-lint` subcommand, the webhook's `/validate`, live cluster reads)
//! hands [`check`] an HPA as written ([`Written`]: what the one decoder made of it, decode
//! errors included), the old object of an UPDATE, and, when it has them, the other objects of
//! its set (a `&dyn` [`Objects`]: the linter's index of a manifest set, hpa-cluster's
//! inventory, a webhook's watch-backed cache). It gets back one [`Report`]: the admission
//! outcome ([`Admission`]: decode errors, a conversion failure, or kube-apiserver's pipeline
//! with its errors, the object as written and its internal and effective forms) and the
//! findings of every enabled rule, at their configured severity ([`RuleConfig`]).
//!
//! **One behavior for an object kube-apiserver refuses** (it does not decode, does not
//! convert, or fails validation): its report holds only kube-apiserver's errors, as `HPA000
//! invalid` findings, and `HPA401 removed-api-version` when its version is no longer served.
//! No other rule runs on it: its findings would be about an object that cannot exist. The
//! linter and the webhook both render this report, so they agree.
//!
//! A front end that reads a set in two passes (the linter: single-object rules while a file is
//! hot, cross-object rules once the set is indexed) checks without a world first and continues
//! the report later with [`Admitted::check_world`]: the HPA is admitted once.
//!
//! Every rule runs through [`Rule::check`](rules::Rule::check) (the admitted HPA) or
//! [`Rule::check_written`](rules::Rule::check_written) (the object as written, before
//! decoding: the keys a file writes twice, [`Input::duplicate_keys`], for `HPA001
//! duplicate-key`, reported whatever kube-apiserver makes of the object, since kubectl drops the
//! first value before it sends anything). An object of the set that is not an HPA cannot go
//! through this door by nature (it is never decoded nor admitted as an HPA): its one entry point
//! is [`check_other`], which runs the rules' `check_written` on it (`HPA406 misspelled-kind`: an
//! HPA that kube-apiserver would not recognize as one). So no front end names a rule.

use std::collections::BTreeMap;

use crate::admission::{self, AdmitError, Operation};
use crate::api::decode::Source;
use crate::api::{self, ApiVersion, DecodeError, DecodeErrorKind, Strictness, VersionedHpa, v2};
use crate::convert;
use crate::features::FeatureGates;
use crate::rules::{self, AsWritten, Context, Finding, ObjectId, Objects, RuleMeta, Settings, Severity};

/// A rule's configured fate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    /// Not run.
    Off,
    /// Run at this severity.
    At(Severity),
}

/// Which rules run, and at which severity: `--select`, `--ignore` and per-rule levels
/// (`.hpa-lint.yaml`'s `rules:`). The default runs every rule enabled by default at its
/// default severity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleConfig {
    /// Per-rule levels, by rule ID.
    pub levels: BTreeMap<&'static str, RuleLevel>,
    /// Only these rules (IDs or names; `all`: every rule, opt-in ones included); empty means
    /// all that are enabled. `HPA000` runs whether it is named or not: an object kube-apiserver
    /// refuses cannot exist, whichever rules are asked for.
    pub select: Vec<String>,
    /// Not these rules (`HPA000` cannot be ignored).
    pub ignore: Vec<String>,
}

impl RuleConfig {
    /// Only `HPA000`: kube-apiserver's errors, which always run (the webhook with lint
    /// warnings off).
    pub fn only_errors() -> RuleConfig {
        RuleConfig { select: vec![rules::INVALID.id.to_string()], ..RuleConfig::default() }
    }

    /// The level of a rule, or `None` when it does not run. `ignore` wins; `select` runs only
    /// the rules it names (`all`: every rule, opt-in ones included); then `levels`; then the
    /// rule's default (opt-in rules do not run by default). `HPA000` always runs, as an error.
    pub fn level(&self, rule: &'static RuleMeta) -> Option<Severity> {
        // (Asked for every rule of every object. Without a configuration, a rule runs at its
        // default severity when it is enabled by default, `HPA000` among them: that needs only
        // the two fields, not the ID's text, which lies apart from them in memory.)
        if self.select.is_empty() && self.ignore.is_empty() && self.levels.is_empty() {
            return (rule.enabled_by_default || rule.id == rules::INVALID.id).then_some(rule.severity);
        }
        if rule.id == rules::INVALID.id {
            return Some(Severity::Error);
        }
        // (What is not configured is not looked into.)
        let named = |list: &[String]| {
            !list.is_empty()
                && list
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(rule.id) || s == rule.name || s.eq_ignore_ascii_case("all"))
        };
        if named(&self.ignore) {
            return None;
        }
        let selected = named(&self.select);
        if !self.select.is_empty() && !selected {
            return None;
        }
        let level = if self.levels.is_empty() { None } else { self.levels.get(rule.id) };
        match level {
            Some(RuleLevel::Off) if !selected => None,
            Some(RuleLevel::At(s)) => Some(*s),
            _ if selected || rule.enabled_by_default => Some(rule.severity),
            _ => None,
        }
    }

    /// Makes `rule` run at its default severity if it does not run yet, unless the
    /// configuration turns it off by name (`ignore`, or a level `off`): what a caller that
    /// needs a rule's findings (the webhook's `denyRules`) adds to a configuration.
    pub fn run_also(&mut self, rule: &'static RuleMeta) {
        if self.level(rule).is_some() || self.levels.get(rule.id) == Some(&RuleLevel::Off) {
            return;
        }
        if self.select.is_empty() {
            self.levels.insert(rule.id, RuleLevel::At(rule.severity));
        } else {
            self.select.push(rule.id.to_string());
        }
    }

    /// A finding at its configured severity, or `None` when its rule does not run. A rule may
    /// give one finding another severity than its default; the configuration's level for the
    /// rule, when it names one, wins.
    fn configure(&self, mut finding: Finding) -> Option<Finding> {
        let level = self.level(finding.rule)?;
        if finding.severity == finding.rule.severity || self.levels.contains_key(finding.rule.id) {
            finding.severity = level;
        }
        Some(finding)
    }

    /// Whether some rule that needs the other objects of the set runs.
    pub fn needs_world(&self) -> bool {
        rules::ALL.iter().any(|r| r.meta().needs_objects && self.level(r.meta()).is_some())
    }
}

/// The details of the request kube-apiserver is asked to admit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Apply the version's defaulting first (off for objects an admission webhook receives,
    /// which kube-apiserver has already defaulted).
    pub apply_defaults: bool,
    /// Namespace given to objects that have none (kubectl sends its context namespace, and
    /// kube-apiserver fills it from the URL); `None` leaves it empty.
    pub default_namespace: Option<String>,
    /// Whether unknown and duplicate fields are errors ([`Written::decode`]).
    pub strictness: Strictness,
}

impl Default for Request {
    /// What `kubectl apply` sends: defaults applied, namespace `default`, strict field
    /// validation.
    fn default() -> Self {
        Request { apply_defaults: true, default_namespace: Some("default".into()), strictness: Strictness::Strict }
    }
}

/// Everything that decides what [`check`] reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// The cluster (release, feature gates, kube-controller-manager's configuration) and the
    /// bounds of the numeric rules.
    pub settings: Settings,
    /// Which rules run, at which severity.
    pub rules: RuleConfig,
    /// The request's details.
    pub request: Request,
}

impl Options {
    /// Options for a cluster with these gates (and kube-controller-manager's defaults for
    /// them), every rule enabled by default, the request `kubectl apply` sends.
    pub fn for_gates(gates: FeatureGates) -> Options {
        Options {
            settings: Settings {
                controller: crate::evaluator::HPAControllerConfiguration::new(gates),
                ..Settings::default()
            },
            ..Options::default()
        }
    }

    /// Options for kube-apiserver's verdict only (no rule but `HPA000` runs): what
    /// `hpa-lint validate`, `explain` and `simulate` ask.
    pub fn verdict_only(gates: FeatureGates) -> Options {
        Options { rules: RuleConfig::only_errors(), ..Options::for_gates(gates) }
    }

    /// kube-apiserver's pipeline options, for a request in `namespace`.
    fn admission(&self, namespace: Option<&str>) -> admission::AdmissionOptions {
        admission::AdmissionOptions {
            gates: self.settings.gates().clone(),
            apply_defaults: self.request.apply_defaults,
            default_namespace: namespace.map(str::to_string),
        }
    }
}

/// An HPA as written: what the one decoder made of it.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// It decoded.
    Decoded(Box<VersionedHpa>),
    /// kube-apiserver would refuse to decode it (400 BadRequest).
    Undecodable {
        /// Its `apiVersion` as written.
        api_version: String,
        /// Every problem found.
        errors: Vec<DecodeError>,
    },
}

impl Written {
    /// Decodes an object from `source` (YAML nodes, JSON) with `kind` and `apiVersion` as
    /// written, as the release of `opts` decodes a request body, with the request's
    /// strictness ([`api::decode_source`]).
    pub fn decode<'de, S: Source<'de>>(kind: &str, api_version: &str, source: S, opts: &Options) -> Written {
        let (strictness, release) = (opts.request.strictness, opts.settings.gates().version());
        Written::from_result(api_version, api::decode_source(kind, api_version, source, strictness, release))
    }

    /// The decoder's result for an object whose `apiVersion` is `api_version`.
    pub fn from_result(
        api_version: &str,
        result: Result<api::decode::Decoded<VersionedHpa>, Vec<DecodeError>>,
    ) -> Written {
        match result {
            Ok(d) => Written::Decoded(Box::new(d.value)),
            Err(errors) => Written::Undecodable { api_version: api_version.to_string(), errors },
        }
    }
}

/// What [`check`] is given.
pub struct Input<'a> {
    /// The HPA as written.
    pub object: Written,
    /// The stored object of an UPDATE (`None`: CREATE).
    pub old: Option<VersionedHpa>,
    /// The HPA's identity in its set, when it has one.
    pub id: Option<&'a ObjectId>,
    /// The other objects of its set, when the caller has them: the rules that need them run
    /// only then.
    pub world: Option<&'a dyn Objects>,
    /// The keys its text writes more than once in one mapping ([`AsWritten::duplicate_keys`]):
    /// a front end that reads files finds them, since the object decoded has each key once;
    /// empty for JSON already read into a map (an AdmissionReview, a live object).
    pub duplicate_keys: &'a [&'a str],
}

impl Input<'_> {
    /// A CREATE of `object`, alone.
    pub fn create(object: Written) -> Input<'static> {
        Input { object, old: None, id: None, world: None, duplicate_keys: &[] }
    }
}

/// What kube-apiserver does with the request. (Exhaustive on purpose: a front end renders
/// every case, and a new one must not fall through a wildcard unseen.)
#[derive(Debug, Clone, PartialEq)]
pub enum Admission {
    /// It would refuse to decode it (400 BadRequest).
    Undecodable {
        /// The version it claims, if it is an HPA version.
        version: Option<ApiVersion>,
        /// Every problem found.
        errors: Vec<DecodeError>,
    },
    /// Conversion to the internal form failed.
    Unconvertible {
        /// The version.
        version: ApiVersion,
        /// The error.
        error: AdmitError,
    },
    /// It ran the pipeline (defaulting, conversion, preparation, validation).
    Admitted(Admitted),
}

/// An HPA that went through kube-apiserver's pipeline (with or without validation errors).
#[derive(Debug, Clone, PartialEq)]
pub struct Admitted {
    /// The object as decoded, in its own version.
    pub original: Box<VersionedHpa>,
    /// What was written in the internal form, when it differs from `original` (kept once).
    converted: Option<Box<v2::HorizontalPodAutoscaler>>,
    /// The pipeline's outcome: errors, the prepared internal (effective) object, annotation
    /// problems.
    pub outcome: Box<admission::Outcome>,
    /// CREATE or UPDATE.
    pub operation: Operation,
}

impl Admitted {
    /// What was written, in the internal form, not defaulted.
    pub fn written(&self) -> &v2::HorizontalPodAutoscaler {
        match (&self.converted, &*self.original) {
            (Some(c), _) => c,
            (None, VersionedHpa::V2(h)) => h,
            (None, _) => &self.outcome.object,
        }
    }

    /// The object as kube-apiserver stores it (defaulted, converted, prepared).
    pub fn effective(&self) -> &v2::HorizontalPodAutoscaler {
        &self.outcome.object
    }

    /// Whether kube-apiserver accepts it.
    pub fn allowed(&self) -> bool {
        self.outcome.allowed()
    }

    /// Sets the namespace of the effective object (a set's namespace, known after the object
    /// was admitted: validation does not depend on it).
    pub fn set_namespace(&mut self, namespace: &str) {
        namespace.clone_into(&mut self.outcome.object.metadata.namespace);
    }

    fn context<'a>(
        &'a self,
        id: Option<&'a ObjectId>,
        world: Option<&'a dyn Objects>,
        settings: &'a Settings,
    ) -> Context<'a> {
        Context {
            original: &self.original,
            written: self.written(),
            effective: &self.outcome.object,
            errors: &self.outcome.errors,
            annotation_problems: &self.outcome.annotation_problems,
            id,
            objects: world,
            settings,
            operation: self.operation,
            target_refusal: std::cell::OnceCell::new(),
        }
    }

    /// Continues a report with a world: the findings of the enabled rules that need the other
    /// objects of the set (none for an object kube-apiserver refuses).
    pub fn check_world(&self, id: Option<&ObjectId>, world: &dyn Objects, opts: &Options) -> Vec<Finding> {
        if !self.allowed() {
            return Vec::new();
        }
        let cx = self.context(id, Some(world), &opts.settings);
        run(&cx, opts, |m| m.needs_objects)
    }
}

/// The one answer about one HPA.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// What kube-apiserver does with it.
    pub admission: Admission,
    /// The findings of every enabled rule, at their configured severity: about the object, in
    /// rule order, then about its text ([`Rule::check_written`](rules::Rule::check_written)),
    /// in rule order.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether kube-apiserver would accept the object.
    pub fn allowed(&self) -> bool {
        matches!(&self.admission, Admission::Admitted(a) if a.allowed())
    }

    /// The admitted object, when the pipeline ran.
    pub fn admitted(&self) -> Option<&Admitted> {
        match &self.admission {
            Admission::Admitted(a) => Some(a),
            _ => None,
        }
    }

    /// The message kube-apiserver would answer with, when it refuses the object.
    pub fn message(&self) -> Option<String> {
        match &self.admission {
            Admission::Admitted(a) => a.outcome.status_message(),
            Admission::Undecodable { version, errors } => Some(api::decode_failure_message(*version, errors)),
            Admission::Unconvertible { error, .. } => Some(error.to_string()),
        }
    }
}

/// Runs everything on one HPA: kube-apiserver's decoding outcome and pipeline, then the
/// enabled rules (those needing other objects only when `input.world` is given). See the
/// module documentation for what an object kube-apiserver refuses gets.
pub fn check(input: Input<'_>, opts: &Options) -> Report {
    check_in(input, opts.request.default_namespace.as_deref(), opts)
}

/// [`check`] for a request whose namespace is known only per call (an admission webhook's
/// review names it; kube-apiserver fills it from the URL): `namespace` is given to an object
/// that has none, in place of [`Request::default_namespace`], so that the options are built
/// once and shared by every request. An empty `namespace` leaves it empty.
pub fn check_in(input: Input<'_>, namespace: Option<&str>, opts: &Options) -> Report {
    let Input { object, old, id, world, duplicate_keys } = input;
    let api_version = match &object {
        Written::Decoded(o) => o.api_version().as_str(),
        Written::Undecodable { api_version, .. } => api_version.as_str(),
    };
    // What the text says, whatever kube-apiserver makes of the object.
    let as_written = run_written(&AsWritten { api_version, kind: api::KIND, duplicate_keys }, opts);
    let original = match object {
        Written::Decoded(o) => o,
        Written::Undecodable { api_version, errors } => {
            let mut report = undecodable(&api_version, errors, opts);
            report.findings.extend(as_written);
            return report;
        }
    };
    let operation = if old.is_some() { Operation::Update } else { Operation::Create };
    let converted = match convert::as_internal(&original) {
        Some(_) => None,
        None => convert::to_internal_in(&original, opts.settings.gates().version()).ok().map(|c| Box::new(c.object)),
    };
    let namespace = namespace.filter(|n| !n.is_empty());
    let outcome = match admission::admit_owned((*original).clone(), old, operation, &opts.admission(namespace)) {
        Ok(outcome) => outcome,
        Err(error) => {
            let version = original.api_version();
            let mut findings = Vec::new();
            findings
                .extend(rules::check_removed_version(version, &opts.settings).and_then(|f| opts.rules.configure(f)));
            let f = Finding::new(rules::INVALID, "metadata.annotations", error.to_string());
            findings.extend(opts.rules.configure(f));
            findings.extend(as_written);
            return Report { admission: Admission::Unconvertible { version, error }, findings };
        }
    };
    let admitted = Admitted { original, converted, outcome: Box::new(outcome), operation };
    let cx = admitted.context(id, world, &opts.settings);
    let allowed = admitted.allowed();
    let mut findings = run(&cx, opts, |m| {
        // For an object kube-apiserver refuses, only its errors and its version matter.
        (allowed || m.id == rules::INVALID.id || m.id == rules::REMOVED_API_VERSION.id)
            && (!m.needs_objects || world.is_some())
    });
    findings.extend(as_written);
    Report { admission: Admission::Admitted(admitted), findings }
}

/// Runs the enabled rules `which` accepts.
fn run(cx: &Context<'_>, opts: &Options, which: impl Fn(&RuleMeta) -> bool) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in rules::ALL {
        let meta = rule.meta();
        if which(meta) && opts.rules.level(meta).is_some() {
            rule.check(cx, &mut out);
        }
    }
    out.into_iter().filter_map(|f| opts.rules.configure(f)).collect()
}

/// Runs every enabled rule's [`Rule::check_written`](rules::Rule::check_written) on an object as
/// written.
fn run_written(object: &AsWritten<'_>, opts: &Options) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in rules::ALL {
        if opts.rules.level(rule.meta()).is_some() {
            rule.check_written(object, &mut out);
        }
    }
    out.into_iter().filter_map(|f| opts.rules.configure(f)).collect()
}

/// The report of an HPA that does not decode: its errors as HPA000 (after HPA401 when its
/// version is no longer served), or HPA401 alone for an `autoscaling/v2alpha*` version, which
/// no release of this toolkit decodes.
fn undecodable(api_version: &str, errors: Vec<DecodeError>, opts: &Options) -> Report {
    let version = ApiVersion::parse(api_version);
    let mut findings = Vec::new();
    let unknown_version = errors.iter().any(|e| e.kind == DecodeErrorKind::TypeMeta && e.path == "apiVersion");
    let removed = api::served(api_version, opts.settings.gates().version()).err().and_then(|u| u.advice());
    if let (true, Some(message)) = (unknown_version, removed) {
        // `autoscaling/v2alpha*`, which no release of this toolkit decodes.
        let f = Finding::new(rules::REMOVED_API_VERSION, "apiVersion", message)
            .help("rewrite the HPA in autoscaling/v2 (its metric fields differ; see `hpa-lint rules HPA401`)");
        findings.extend(opts.rules.configure(f));
    } else {
        findings.extend(
            version.and_then(|v| rules::check_removed_version(v, &opts.settings)).and_then(|f| opts.rules.configure(f)),
        );
        for e in &errors {
            let mut f = Finding::new(rules::INVALID, e.path.clone(), e.to_string());
            if e.kind.is_strict() {
                f.help = Some(
                    format!(
                        "kube-apiserver refuses unknown fields (strict field validation, kubectl's default): remove it or fix its name{}",
                        version.map(|v| format!(" (see the {v} schema)")).unwrap_or_default()
                    )
                    .into(),
                );
            }
            findings.extend(opts.rules.configure(f));
        }
    }
    Report { admission: Admission::Undecodable { version, errors }, findings }
}

/// Checks an object of the set that is not an HPA, from its `apiVersion` and `kind` as
/// written: the findings of the enabled rules about such objects (`HPA406 misspelled-kind`),
/// every rule's [`Rule::check_written`](rules::Rule::check_written). The one entry point for
/// such an object: it cannot go through [`check`], which decodes and admits an HPA.
pub fn check_other(api_version: &str, kind: &str, opts: &Options) -> Vec<Finding> {
    run_written(&AsWritten { api_version, kind, duplicate_keys: &[] }, opts)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `HPA000` runs whatever `select` and `ignore` name (`--select HPA101` still reports what
    /// kube-apiserver refuses), at error severity; the rules named run, the others do not.
    #[test]
    fn hpa000_runs_whatever_select_and_ignore_name() {
        let hpa101 = rules::find("HPA101").unwrap().meta();
        let hpa102 = rules::find("HPA102").unwrap().meta();
        let selected = RuleConfig { select: vec!["HPA101".into()], ..RuleConfig::default() };
        let ignored = RuleConfig { ignore: vec!["HPA000".into(), "all".into()], ..RuleConfig::default() };
        for config in [&selected, &ignored] {
            assert_eq!(config.level(rules::INVALID), Some(Severity::Error));
        }
        assert_eq!((selected.level(hpa101), selected.level(hpa102)), (Some(hpa101.severity), None));
        assert_eq!(ignored.level(hpa101), None);
        let found = |max_replicas: i32| {
            let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                    "minReplicas": 3, "maxReplicas": max_replicas}});
            let report = check(Input::create(written(hpa)), &Options { rules: selected.clone(), ..Options::default() });
            report.findings.iter().map(|f| format!("{} {}", f.rule.id, f.message)).collect::<Vec<_>>()
        };
        assert_eq!(found(3), ["HPA101 spec.minReplicas equals spec.maxReplicas (3): the HPA can never scale"]);
        assert_eq!(
            found(2),
            ["HPA000 spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"]
        );
    }

    fn written(value: serde_json::Value) -> Written {
        let api_version = value["apiVersion"].as_str().unwrap_or_default().to_string();
        match api::decode(&value) {
            Ok(o) => Written::Decoded(Box::new(o)),
            Err(errors) => Written::Undecodable { api_version, errors },
        }
    }

    fn hpa(min: i64, max: i64) -> serde_json::Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": min, "maxReplicas": max}})
    }

    /// A set with no other object.
    struct Nothing;

    impl Objects for Nothing {
        fn workload(&self, _: &str, _: &str, _: &str, _: &str) -> Option<&rules::objects::Workload> {
            None
        }
        fn limit_ranges(&self, _: &str) -> &[rules::objects::LimitRange] {
            &[]
        }
        fn workload_any_case(&self, _: &str, _: &str, _: &str, _: &str) -> Option<&rules::objects::Workload> {
            None
        }
        fn pdbs(&self, _: &str) -> &[rules::objects::Pdb] {
            &[]
        }
        fn vpas(&self, _: &str) -> &[rules::objects::Vpa] {
            &[]
        }
        fn scaled_objects(&self, _: &str) -> &[rules::objects::ScaledObject] {
            &[]
        }
        fn workloads_of(&self, _: &str) -> Vec<&rules::objects::Workload> {
            Vec::new()
        }
        fn hpa_min_replicas(&self, _: &str, _: &str, _: &str, _: &str) -> Option<i32> {
            None
        }
        fn hpas_targeting(&self, _: &str, _: &str, _: &str, _: &str) -> &[ObjectId] {
            &[]
        }
    }

    fn ids(report: &Report) -> Vec<&'static str> {
        report.findings.iter().map(|f| f.rule.id).collect()
    }

    #[test]
    fn an_object_kube_apiserver_refuses_gets_only_its_errors() {
        let opts = Options::default();
        // Accepted: the rules run (minReplicas equals maxReplicas).
        let report = check(Input::create(written(hpa(3, 3))), &opts);
        assert!(report.allowed() && report.message().is_none());
        assert!(ids(&report).contains(&"HPA101"), "{:?}", ids(&report));
        // Refused (minReplicas above maxReplicas): kube-apiserver's errors only.
        let report = check(Input::create(written(hpa(5, 3))), &opts);
        assert!(!report.allowed());
        assert!(!ids(&report).is_empty() && ids(&report).iter().all(|id| *id == "HPA000"), "{:?}", ids(&report));
        let Admission::Admitted(admitted) = &report.admission else { panic!("{:?}", report.admission) };
        assert!(admitted.check_world(None, &Nothing, &opts).is_empty());
        // Undecodable in a version no release serves: HPA401 alone.
        let mut old = hpa(1, 3);
        old["apiVersion"] = json!("autoscaling/v2alpha1");
        let report = check(Input::create(written(old)), &opts);
        assert!(matches!(report.admission, Admission::Undecodable { .. }));
        assert_eq!(ids(&report), ["HPA401"]);
    }

    #[test]
    fn the_rule_configuration_decides_what_runs_and_at_which_severity() {
        let mut opts = Options::default();
        opts.rules.ignore = vec!["min-replicas-equals-max".into(), "HPA000".into()];
        let report = check(Input::create(written(hpa(3, 3))), &opts);
        assert!(!ids(&report).contains(&"HPA101"));
        // HPA000 cannot be ignored.
        let report = check(Input::create(written(hpa(5, 3))), &opts);
        assert!(ids(&report).contains(&"HPA000"));
        let mut opts = Options::default();
        opts.rules.levels.insert("HPA101", RuleLevel::At(Severity::Error));
        let report = check(Input::create(written(hpa(3, 3))), &opts);
        let f = report.findings.iter().find(|f| f.rule.id == "HPA101").unwrap();
        assert_eq!(f.severity, Severity::Error);
        // Only kube-apiserver's verdict.
        let report = check(Input::create(written(hpa(3, 3))), &Options::verdict_only(FeatureGates::default()));
        assert!(report.findings.is_empty());
        // Objects that are not HPAs.
        assert_eq!(check_other("autoscaling/v2", "HorizontalPodAutoscalar", &Options::default()).len(), 1);
        assert!(check_other("apps/v1", "Deployment", &Options::default()).is_empty());
        let mut opts = Options::default();
        opts.rules.ignore = vec!["misspelled-kind".into()];
        assert!(check_other("autoscaling/v2", "HorizontalPodAutoscalar", &opts).is_empty());
    }

    #[test]
    fn keys_written_twice_are_reported_whatever_kube_apiserver_makes_of_the_object() {
        let keys = ["spec.maxReplicas", "metadata.name"];
        let with_keys = |object| Input { duplicate_keys: &keys, ..Input::create(written(object)) };
        let opts = Options::default();
        // Accepted: after the findings about the object, one per key, in order.
        let report = check(with_keys(hpa(3, 3)), &opts);
        assert_eq!(ids(&report)[ids(&report).len() - 2..], ["HPA001", "HPA001"], "{:?}", ids(&report));
        let f = &report.findings[report.findings.len() - 2];
        assert_eq!(f.location, rules::FindingField::Hpa("spec.maxReplicas".into()));
        assert_eq!(
            f.message,
            "spec.maxReplicas is written twice: kubectl keeps this last value and drops the first without a word"
        );
        // Refused by validation, and undecodable: still reported, after kube-apiserver's errors.
        let report = check(with_keys(hpa(5, 3)), &opts);
        assert!(!report.allowed());
        assert_eq!(ids(&report).last(), Some(&"HPA001"));
        let mut old = hpa(1, 3);
        old["apiVersion"] = json!("autoscaling/v2alpha1");
        assert_eq!(ids(&check(with_keys(old), &opts)), ["HPA401", "HPA001", "HPA001"]);
        // Not when the rule is off, nor without keys.
        let mut off = Options::default();
        off.rules.ignore = vec!["duplicate-key".into()];
        assert!(!ids(&check(with_keys(hpa(3, 3)), &off)).contains(&"HPA001"));
        assert!(!ids(&check(Input::create(written(hpa(3, 3))), &opts)).contains(&"HPA001"));
    }
}
