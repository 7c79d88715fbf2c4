//! `/validate` and `/mutate`: one AdmissionReview body in, one answer out, with no IO.
//!
//! - `/mutate` applies the organization policy's behavior defaults where the HPA leaves
//!   fields unset, then kube-apiserver's defaulting of the object's version, and answers with
//!   a minimal JSON Patch against the object as sent. A nil `behavior` stays nil unless the
//!   policy sets one. For `autoscaling/v1`, `behavior` lives in the
//!   `autoscaling.alpha.kubernetes.io/behavior` annotation, read and written with hpa-core's
//!   conversion functions. Decoding is hpa-core's one decoder and defaulting hpa-core's
//!   `defaults` (`default_v2`, `default_v1`, and `default_behavior` for the annotation's
//!   behavior), as in `hpa-lint default`; not the front door, whose defaulted forms are the
//!   internal one, where a patch needs the object's own version.
//! - `/validate` takes the object through hpa-core's front door ([`hpa_core::check`]) without
//!   defaulting (the object is already defaulted): kube-apiserver's pipeline and the rules in
//!   one report. It denies with the 422 `Status` kube-apiserver would return for the report's
//!   errors and the policy's constraints; constraints the policy enforces with `Warn` and the
//!   report's findings (warning severity and above) become warnings, but those of the rules
//!   the HPA's own `hpa-lint.dev/ignore` annotation lists ([`Ignore`]), and those located on
//!   another object (HPA410 on a Deployment's `spec.replicas`) whose annotation, kept by the
//!   context cache, lists them ([`rules::suppressed`], as in files): an annotation waives
//!   warnings, never a denial. An object kube-apiserver refuses gets only its errors and
//!   `HPA401`, as in `hpa-lint`. An UPDATE is held to the policy as kube-apiserver's ratcheting
//!   validation holds it: a constraint only for a value it changes, a `denyRules` finding only if
//!   the stored object did not have it, and neither when the object is being deleted or the
//!   update changes only metadata: those are warnings that say why they were allowed.
//!
//! Requests for other resources, subresources or operations are admitted untouched. A body
//! that is not a v1 (or v1beta1) AdmissionReview with a uid gets HTTP 400; a review whose
//! request is malformed gets `allowed: false` with the reason. The answer is a review of the
//! request's version.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use hpa_config::ConfigError;

use serde_json::Value;
use serde_json::value::RawValue;

use hpa_core::admission as pipeline;
use hpa_core::api::meta::Name;
use hpa_core::api::{self, ApiVersion, DecodeError, Strictness, VersionedHpa, v1, v2};
use hpa_core::check::{self, Input, Written};
use hpa_core::convert::annotations;
use hpa_core::defaults;
use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};
use hpa_core::field::{self, FieldError};
use hpa_core::rules::{self, Finding, FindingField, Ignore, RuleMeta, Severity};

use hpa_cluster::inventory::TargetRead;

use crate::context::{self, Subject, View};
use crate::files::FileValue;
use crate::metrics::{Endpoint, OperationLabel, OutcomeLabel};
use crate::patch;
use crate::policy::{Effective, Enforcement, Policy, Violation};
use crate::review::{
    self, AdmissionRequest, AdmissionResponse, Rejection, ResponseReview, ReviewVersion, Status, StatusCause,
    StatusDetails,
};

/// Longest warning, in characters: what kube-apiserver keeps of each warning once a response's
/// warnings pass 4096 characters (`truncateItemRunes` = 256 against `truncateAtTotalRunes` in
/// `recorder.AddWarning`, `k8s.io/apiserver/pkg/endpoints/filters/warning.go`, through which a
/// validating webhook's warnings go: `warning.AddWarning` in the dispatcher). A webhook warning
/// is otherwise passed on whole; cut here at the same length, it reads the same however many
/// warnings one request gathers, and a finding's explanation (which follows the HPA's name and
/// the rule) is no longer cut off, as it was at 120.
pub const MAX_WARNING_CHARS: usize = 256;

/// Reviews AdmissionReviews: the admission logic, configured once for the cluster it serves
/// (what it decides for one HPA is hpa-core's [`check::Admission`] and the policy's).
#[derive(Debug, Clone)]
pub struct Reviewer {
    gates: FeatureGates,
    lint_warnings: bool,
    /// The front door's options in force, shared by every review (the request's namespace is an
    /// input of each call, [`check::check_in`]): the rules' levels and bounds of the lint
    /// configuration (`--lint-config`, read again when it changes), or the defaults; with lint
    /// warnings off, only kube-apiserver's errors are checked.
    check: Arc<FileValue<check::Options, ConfigError>>,
}

/// The HTTP answer to one review.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewAnswer {
    /// 200, or 400 when no AdmissionResponse can be formed.
    pub status: u16,
    /// `application/json` review for 200, a `text/plain` reason for 400.
    pub body: Vec<u8>,
    /// The request's operation, for metrics.
    pub operation: OperationLabel,
    /// How it ended, for metrics.
    pub outcome: OutcomeLabel,
    /// What the cluster context added, for metrics.
    pub context: ContextReport,
}

/// What the cluster context did for one review.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextReport {
    /// The view was stale: only single-object checks ran.
    pub stale: bool,
    /// The kinds RBAC refuses to watch that the cross-object rules read (fresh view): they ran
    /// in part, and the answer says so.
    pub partial: Vec<hpa_cluster::kinds::ResourceKind>,
    /// The rule of each cross-object finding reported (as a warning or a denial).
    pub findings: Vec<&'static str>,
}

impl ReviewAnswer {
    pub(crate) fn review(
        response: &AdmissionResponse,
        version: ReviewVersion,
        operation: OperationLabel,
        outcome: OutcomeLabel,
    ) -> ReviewAnswer {
        ReviewAnswer {
            status: 200,
            body: ResponseReview::in_version(response, version).to_vec(),
            operation,
            outcome,
            context: ContextReport::default(),
        }
    }

    fn bad_request(message: String) -> ReviewAnswer {
        ReviewAnswer {
            status: 400,
            body: message.into_bytes(),
            operation: OperationLabel::Unknown,
            outcome: OutcomeLabel::Invalid,
            context: ContextReport::default(),
        }
    }
}

/// Why a review could not be answered with a decision (it is answered `allowed: false`
/// with this reason).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReviewError {
    /// `request.object` or `request.oldObject` is not a decodable HPA.
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// The object decodes but does not convert to the internal form.
    #[error("converting to the internal form: {0}")]
    Conversion(#[from] pipeline::AdmitError),
}

/// Why `request.object` or `request.oldObject` cannot be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectError {
    /// It is absent or `null`.
    #[error("request.{field} is missing")]
    Missing {
        /// `object` or `oldObject`.
        field: &'static str,
    },
    /// kube-apiserver's decoding refuses it (a value of the wrong type, say).
    #[error("request.{field}: {message}")]
    Undecodable {
        /// `object` or `oldObject`.
        field: &'static str,
        /// The version it names, when it is an HPA version.
        version: Option<ApiVersion>,
        /// What the decoder reports.
        errors: Vec<DecodeError>,
        /// kube-apiserver's message for them.
        message: String,
    },
    /// Its version is not the one the request says.
    #[error("request.{field} is autoscaling/{object}, but request.kind is autoscaling/{request}")]
    VersionMismatch {
        /// `object` or `oldObject`.
        field: &'static str,
        /// The object's version.
        object: String,
        /// The request's.
        request: String,
    },
}

/// A decoded `object` or `oldObject`.
#[derive(Debug)]
struct Decoded<'a> {
    /// The JSON as sent (what a patch must apply to).
    raw: &'a str,
    hpa: VersionedHpa,
    /// Fields this build does not know (a newer kube-apiserver's), ignored.
    unknown_fields: Vec<String>,
}

/// One AdmissionReview body as [`Reviewer::read`] read it, for [`Reviewer::answer`]: parsed
/// once, and the object of an HPA under `/validate` decoded once.
#[derive(Debug)]
pub struct Read<'a> {
    endpoint: Endpoint,
    state: ReadState<'a>,
}

#[derive(Debug)]
enum ReadState<'a> {
    /// Not a review to decide: answered already (400, or `allowed: false` for a malformed one).
    Answered(ReviewAnswer),
    /// A request to decide.
    Request(Box<ReadRequest<'a>>),
}

/// A request [`Reviewer::read`] parsed.
#[derive(Debug)]
struct ReadRequest<'a> {
    request: AdmissionRequest<'a>,
    operation: OperationLabel,
    /// The review's span, entered while it is read and answered.
    span: tracing::Span,
    /// `request.object` decoded, for an HPA CREATE or UPDATE under `/validate`.
    object: Option<Result<Decoded<'a>, ObjectError>>,
}

impl Read<'_> {
    /// The namespace and `spec.scaleTargetRef` of the HPA under review (`/validate`, CREATE or
    /// UPDATE, its object decoded): what the server reads of the cluster before the answer
    /// ([`ClusterContext::read_target`](crate::context::ClusterContext::read_target)).
    pub fn scale_target(&self) -> Option<(&str, &hpa_core::api::CrossVersionObjectReference)> {
        let ReadState::Request(r) = &self.state else { return None };
        let Some(Ok(object)) = &r.object else { return None };
        Some((r.request.namespace(), object.hpa.scale_target_ref()))
    }
}

impl Reviewer {
    /// The reviewer for a cluster with these feature gates, with lint warnings and the rules'
    /// defaults.
    pub fn new(gates: FeatureGates) -> Reviewer {
        let check = Arc::new(FileValue::fixed(front_door_options(&gates, true, None), config_read_error));
        Reviewer { gates, lint_warnings: true, check }
    }

    /// Turns lint warnings on or off (before [`Reviewer::with_lint_config`], which keeps the
    /// choice).
    pub fn with_lint_warnings(mut self, on: bool) -> Reviewer {
        self.lint_warnings = on;
        self.check = Arc::new(FileValue::fixed(front_door_options(&self.gates, on, None), config_read_error));
        self
    }

    /// Runs the rules as the lint configuration `path` (`.hpa-lint.yaml`'s format, read by
    /// hpa-config's reader as `hpa-lint --config` reads it) says: its `rules:` (off, on, a
    /// severity) and its `settings:` (the bounds of the numeric rules). The file is read again
    /// by [`Reviewer::reload_lint_config`]. Its other keys describe the files and the cluster
    /// a CI run lints against, which the webhook's own flags describe here: they are logged as
    /// not used.
    pub fn with_lint_config(mut self, path: &Path) -> Result<Reviewer, ConfigError> {
        let (gates, lint_warnings) = (self.gates.clone(), self.lint_warnings);
        let parse = move |path: &Path, bytes: &[u8]| -> Result<check::Options, ConfigError> {
            let name = path.display().to_string();
            let text =
                std::str::from_utf8(bytes).map_err(|source| ConfigError::NotUtf8 { file: name.clone(), source })?;
            let config = hpa_config::parse(&name, text)?;
            for (key, why) in unused_lint_config_keys(&config) {
                tracing::warn!("{}: {key} is not used by hpa-webhook ({why})", config.at(key));
            }
            Ok(front_door_options(&gates, lint_warnings, Some(&config)))
        };
        self.check = Arc::new(FileValue::open(path, parse, config_read_error)?);
        Ok(self)
    }

    /// Reads the lint configuration again if its file changed; `Ok(true)` when a new one is in
    /// force. An invalid file leaves the one in force.
    pub async fn reload_lint_config(&self) -> Result<bool, ConfigError> {
        self.check.reload().await
    }

    /// The lint configuration's file, if there is one.
    pub fn lint_config(&self) -> Option<&Path> {
        self.check.path()
    }

    /// The feature gates in force.
    pub fn gates(&self) -> &FeatureGates {
        &self.gates
    }

    /// Whether lint warnings are on.
    pub fn lint_warnings(&self) -> bool {
        self.lint_warnings
    }

    /// The front door's options in force (lint warnings on or off, the lint configuration's
    /// rules and bounds; the request's namespace unset).
    pub fn check_options(&self) -> arc_swap::Guard<Arc<check::Options>> {
        self.check.current()
    }

    /// The front door's options for the context cache's HPAs, admitted once as they arrive
    /// (hpa-cluster's `CachedHpa::admit`): these options with no rule run (the rules run per
    /// review, on the admitted object).
    pub fn cache_admission(&self) -> check::Options {
        check::Options { rules: check::RuleConfig::only_errors(), ..check::Options::clone(&self.check.current()) }
    }

    /// Whether a finding of `rule` in `namespace` would be said under `policy`: it runs there
    /// (the lint configuration, widened by the namespace's `denyRules` as `/validate` widens it)
    /// and either denies or warns (its level is warning or above). The server asks before it
    /// reads what only that finding needs: HPA403 on a watched kind's target the cache lacks
    /// ([`ClusterContext::read_target`](crate::context::ClusterContext::read_target)).
    pub fn says(&self, rule: &'static RuleMeta, namespace: &str, policy: &Policy) -> bool {
        let effective = policy.effective(namespace);
        let denied = denied_rules(&effective);
        let options = self.check.current();
        let options = widened(&options, &denied);
        match options.rules.level(rule) {
            Some(level) => level >= Severity::Warning || denied.iter().any(|r| r.id == rule.id),
            None => false,
        }
    }

    /// Answers one AdmissionReview body on `endpoint`, under `policy`, without a view of the
    /// cluster.
    pub fn review(&self, endpoint: Endpoint, body: &[u8], policy: &Policy) -> ReviewAnswer {
        self.review_in(endpoint, body, policy, &View::Off)
    }

    /// Answers one AdmissionReview body on `endpoint`, under `policy`, with `view` of the
    /// cluster: [`Reviewer::read`], then [`Reviewer::answer`].
    pub fn review_in(&self, endpoint: Endpoint, body: &[u8], policy: &Policy, view: &View<'_>) -> ReviewAnswer {
        self.answer(self.read(endpoint, body), policy, view)
    }

    /// Reads one AdmissionReview body on `endpoint`, once: the review parsed and, for an HPA
    /// under `/validate`, its `request.object` decoded by hpa-core's one decoder. The server
    /// reads what the review needs of the cluster from it ([`Read::scale_target`]: the HPA's
    /// custom-resource target, one bounded `GET`) before [`Reviewer::answer`] decides.
    pub fn read<'a>(&self, endpoint: Endpoint, body: &'a [u8]) -> Read<'a> {
        tracing::trace!(body = %String::from_utf8_lossy(body), "review received");
        let request = match review::parse(body) {
            Ok(request) => request,
            Err(Rejection::BadRequest(message)) => {
                tracing::warn!(reason = %message, "rejected a request that is not an AdmissionReview");
                return Read { endpoint, state: ReadState::Answered(ReviewAnswer::bad_request(message)) };
            }
            Err(Rejection::Invalid { version, uid, message }) => {
                tracing::warn!(%uid, reason = %message, "rejected a malformed AdmissionReview");
                let answer = ReviewAnswer::review(
                    &AdmissionResponse::invalid(&uid, message),
                    version,
                    OperationLabel::Unknown,
                    OutcomeLabel::Invalid,
                );
                return Read { endpoint, state: ReadState::Answered(answer) };
            }
        };
        let operation = operation_of(&request);
        let span = tracing::info_span!(
            "review",
            uid = %request.uid,
            kind = %request.kind.kind,
            namespace = request.namespace(),
            object = request.name(),
            operation = %request.operation,
            dry_run = request.dry_run.unwrap_or(false),
        );
        // The HPA `/validate` checks, decoded here once: `Reviewer::validate` reads it, and the
        // server its scale target.
        let object = (endpoint == Endpoint::Validate
            && request.is_hpa_resource()
            && matches!(operation, OperationLabel::Create | OperationLabel::Update))
        .then(|| decode(&request, "object", request.object, self.gates.version()));
        Read { endpoint, state: ReadState::Request(Box::new(ReadRequest { request, operation, span, object })) }
    }

    /// Answers a review [`Reviewer::read`] read, under `policy`, with `view` of the cluster.
    pub fn answer(&self, read: Read<'_>, policy: &Policy, view: &View<'_>) -> ReviewAnswer {
        let ReadRequest { request, operation, span, object } = match read.state {
            ReadState::Answered(answer) => return answer,
            ReadState::Request(r) => *r,
        };
        let _entered = span.enter();
        let mut report = ContextReport::default();
        let (response, outcome) = self.decide(read.endpoint, &request, operation, object, policy, view, &mut report);
        match outcome {
            OutcomeLabel::Denied => {
                let reason = response.status.as_ref().map(|s| s.message.as_str()).unwrap_or_default();
                tracing::info!(reason, "denied");
            }
            OutcomeLabel::Invalid => {
                let reason = response.status.as_ref().map(|s| s.message.as_str()).unwrap_or_default();
                tracing::warn!(reason, "malformed request");
            }
            _ => tracing::debug!(outcome = outcome.as_str(), warnings = response.warnings.len(), "answered"),
        }
        ReviewAnswer { context: report, ..ReviewAnswer::review(&response, request.review_version, operation, outcome) }
    }

    #[expect(clippy::too_many_arguments, reason = "one review's parts, each read once")]
    fn decide<'a>(
        &self,
        endpoint: Endpoint,
        request: &AdmissionRequest<'a>,
        op: OperationLabel,
        object: Option<Result<Decoded<'a>, ObjectError>>,
        policy: &Policy,
        view: &View<'_>,
        report: &mut ContextReport,
    ) -> (AdmissionResponse, OutcomeLabel) {
        let uid = request.uid.as_ref();
        if endpoint == Endpoint::ValidateWorkloads {
            return crate::workloads::decide(self, request, op, view, report);
        }
        let operation = match op {
            _ if !request.is_hpa_resource() => return (AdmissionResponse::allow(uid), OutcomeLabel::Skipped),
            OperationLabel::Create => pipeline::Operation::Create,
            OperationLabel::Update => pipeline::Operation::Update,
            OperationLabel::Delete | OperationLabel::Connect => {
                return (AdmissionResponse::allow(uid), OutcomeLabel::Skipped);
            }
            OperationLabel::Unknown => {
                let message =
                    format!("request.operation {:?} is not one of CREATE, UPDATE, DELETE, CONNECT", request.operation);
                return (AdmissionResponse::invalid(uid, message), OutcomeLabel::Invalid);
            }
        };
        if request.kind.group != api::GROUP || request.kind.kind != api::KIND {
            let message = format!(
                "request.kind is {:?} in group {:?}, but the resource is autoscaling/horizontalpodautoscalers",
                request.kind.kind, request.kind.group
            );
            return (AdmissionResponse::invalid(uid, message), OutcomeLabel::Invalid);
        }
        if operation == pipeline::Operation::Update && request.old_object.is_none_or(|o| o.get() == "null") {
            return (AdmissionResponse::invalid(uid, "request.oldObject is missing for UPDATE"), OutcomeLabel::Invalid);
        }
        let result = match endpoint {
            Endpoint::Validate => {
                // `Reviewer::read` decoded the object of every HPA CREATE or UPDATE it reads.
                let new = object.unwrap_or_else(|| decode(request, "object", request.object, self.gates.version()));
                new.map_err(ReviewError::from)
                    .and_then(|new| self.validate(request, operation, new, policy, view, report))
            }
            Endpoint::Mutate | Endpoint::ValidateWorkloads => self.mutate(request, policy),
        };
        result.unwrap_or_else(|e| (AdmissionResponse::invalid(uid, e.to_string()), OutcomeLabel::Invalid))
    }

    // === /validate ===

    fn validate(
        &self,
        request: &AdmissionRequest<'_>,
        operation: pipeline::Operation,
        new: Decoded<'_>,
        policy: &Policy,
        view: &View<'_>,
        report: &mut ContextReport,
    ) -> Result<(AdmissionResponse, OutcomeLabel), ReviewError> {
        let uid = request.uid.as_ref();
        let namespace = request.namespace();
        let old = match operation {
            pipeline::Operation::Update => {
                Some(decode(request, "oldObject", request.old_object, self.gates.version())?)
            }
            pipeline::Operation::Create => None,
        };
        let options = self.check.current();
        let effective = policy.effective(namespace);
        let denied = denied_rules(&effective);
        let options = widened(&options, &denied);
        let options: &check::Options = &options;
        // The cross-object rules run for lint warnings, or for a `denyRules` that needs them.
        let cross_object = self.lint_warnings() || denied.iter().any(|r| r.needs_objects);
        let input = Input {
            object: Written::Decoded(Box::new(new.hpa)),
            old: old.map(|o| o.hpa),
            id: None,
            world: None,
            duplicate_keys: &[],
        };
        // The request's namespace is an input of the call: the options are shared.
        let check::Report { admission, mut findings } = check::check_in(input, Some(namespace), options);
        let admitted = match admission {
            check::Admission::Admitted(admitted) => admitted,
            check::Admission::Unconvertible { error, .. } => return Err(error.into()),
            // Not reached: the webhook decoded the object itself (leniently, from the request's
            // bytes) before handing it to the door.
            check::Admission::Undecodable { version, errors } => {
                let message = api::decode_failure_message(version, &errors);
                return Err(ObjectError::Undecodable { field: "object", version, errors, message }.into());
            }
        };
        // With a fresh view of the cluster, the cross-object rules too: the report continued with
        // the cache as its world, this HPA in place of the cached one.
        // A fresh view may lack kinds RBAC refuses to watch: the rules that read one ran in part,
        // and the answer says so (a `denyRules` on them could not deny).
        let stale_warning = if cross_object { view.stale_warning(Subject::Hpa) } else { None };
        let mut partial_warning = None;
        // The HPA's custom-resource target as its `GET` answered (the cache watches none): in
        // the world when it exists, known absent when not, named in a warning when not read.
        let target = view.target().filter(|read| context::is_target_of(read, admitted.effective()));
        let mut target_warning = None;
        if cross_object && let Some(index) = view.index() {
            target_warning = target.and_then(context::target_warning);
            let (found, unseen) = cross_object_findings(&admitted, index, view.refused(), target, options);
            findings.extend(found);
            report.partial = unseen;
            partial_warning = context::partial_warning(Subject::Hpa, &report.partial);
        }
        let outcome = *admitted.outcome;

        // The stored object of an UPDATE in the internal form, for ratcheting. It went to the
        // front door (no copy per UPDATE); it is decoded again only when something would deny.
        let old_internal = std::cell::OnceCell::new();
        let old_internal = || {
            old_internal
                .get_or_init(|| {
                    (operation == pipeline::Operation::Update)
                        .then(|| decode(request, "oldObject", request.old_object, self.gates.version()).ok())
                        .flatten()
                        .and_then(|o| hpa_core::convert::into_internal_in(o.hpa, self.gates.version()).ok())
                        .map(|c| c.object)
                })
                .as_ref()
        };
        // Why this UPDATE is not denied by the policy whatever it finds: the object is being
        // deleted (removing a finalizer must never be refused: it would block the deletion and
        // the namespace's termination), or the update changes only metadata (labels, annotations,
        // owner references: the spec the policy holds the object to is the stored one).
        let exemption = || -> Option<&'static str> {
            let old = old_internal()?;
            if outcome.object.metadata.deletion_timestamp.is_some() || old.metadata.deletion_timestamp.is_some() {
                Some("the object is being deleted")
            } else if old.spec == outcome.object.spec {
                Some("this update changes only metadata")
            } else {
                None
            }
        };

        let mut warnings: Vec<String> = Vec::new();
        let mut violations = effective.violations(&outcome.object, namespace);
        if operation == pipeline::Operation::Update && !violations.is_empty() {
            // Ratcheting, as declarative validation does it: a field whose value did not change
            // is not held to the policy again (the user is told so).
            let old_violations = old_internal().map(|old| effective.violations(old, namespace)).unwrap_or_default();
            violations.retain(|v| {
                let kept =
                    !old_violations.iter().any(|o| o.error.field == v.error.field && o.error.value == v.error.value);
                if !kept {
                    warnings.push(short(&format!("{} (allowed: the object already broke this rule)", v.error)));
                }
                kept
            });
        }
        // Constraints the policy enforces with `Warn` admit the object and say what they found.
        let (mut denials, warned): (Vec<Violation>, Vec<Violation>) =
            violations.into_iter().partition(|v| v.enforcement == Enforcement::Deny);
        warnings.extend(warned.iter().map(|v| short(&v.error.to_string())));
        if !denials.is_empty()
            && let Some(reason) = exemption()
        {
            warnings.extend(denials.drain(..).map(|v| short(&format!("{} (allowed: {reason})", v.error))));
        }

        warnings.extend(new.unknown_fields.iter().map(|path| {
            short(&format!(
                "field {path} is unknown to hpa-webhook (Kubernetes {}) and was not checked",
                self.gates.version()
            ))
        }));
        // The report's findings (ignored alpha annotations among them) at warning severity and
        // above, but HPA000: those are kube-apiserver's errors, the denial itself. For an object
        // kube-apiserver refuses, the door reports nothing else but HPA401. The policy's
        // `denyRules` turn findings into denials (cross-object ones exist only on a fresh view).
        if let Some(warning) = stale_warning {
            report.stale = true;
            warnings.push(short(&warning));
        }
        warnings.extend(partial_warning.map(|w| short(&w)));
        warnings.extend(target_warning.map(|w| short(&w)));
        // The HPA's own `hpa-lint.dev/ignore` annotation leaves out the warnings of the rules it
        // lists (they are not counted in /metrics either), and so does, for a finding located on
        // another object, that object's annotation as the cache keeps it (as in files); neither
        // lifts a denial: `denyRules` and kube-apiserver's errors are the organization's and the
        // API server's to waive.
        let ignore = Ignore::from_annotations(&outcome.object.metadata.annotations);
        let index = if cross_object { view.index() } else { None };
        // The custom-resource target read at admission is in no index: its own opt-outs.
        let target_ignore = match target {
            Some(TargetRead::Found(w, _, Some(annotation))) if cross_object => Some((&w.id, Ignore::parse(annotation))),
            _ => None,
        };
        // HPA403 denies only on a target the API server said at admission is not there (the
        // `GET` of a custom-resource target, the LIST by name of a watched kind's), or that
        // cannot exist (its kind is not served: an Argo Rollout without its CRD): a workload
        // absent from the context cache may be in flight, its watch event behind this HPA's
        // review (`kubectl apply -f dir/` creating both), so that absence alone (the LIST not
        // answered in time, refused or failed: `target_warning` says why) is a warning, never a
        // denial.
        let target_absent = matches!(target, Some(TargetRead::Absent(_) | TargetRead::NotServed(_)));
        let mut denying: Vec<(&Finding, &str)> = Vec::new();
        // The findings' warnings, said most severe first (in the report's order within a
        // severity): kube-apiserver passes on the first 4096 characters of a response's warnings
        // ([`AdmissionResponse::with_warnings`]), so an error-level finding is never the one left
        // out for a run of warning-level ones.
        let mut finding_warnings: Vec<(Severity, String)> = Vec::new();
        for f in findings.iter().filter(|f| f.rule.id != rules::INVALID.id) {
            if let Some(origin) = effective.denies(f.rule.id) {
                if f.rule.id == rules::TARGET_NOT_FOUND.id && !target_absent {
                    warnings.push(short(&format!("{} (allowed: {CACHE_ABSENCE})", finding_text(f))));
                } else {
                    denying.push((f, origin));
                }
                report.findings.extend(f.rule.needs_objects.then_some(f.rule.id));
            } else if f.severity >= Severity::Warning
                && !rules::suppressed(f, &ignore, |id| {
                    target_ignore
                        .as_ref()
                        .filter(|(target, _)| *target == id)
                        .map(|(_, ignore)| ignore)
                        .or_else(|| index.and_then(|i| i.ignore(id)))
                })
            {
                finding_warnings.push((f.severity, finding_warning(f)));
                report.findings.extend(f.rule.needs_objects.then_some(f.rule.id));
            }
        }
        finding_warnings.sort_by_key(|(severity, _)| std::cmp::Reverse(*severity));
        warnings.extend(finding_warnings.into_iter().map(|(_, w)| w));
        // `denyRules` ratchet as kube-apiserver's ratcheting validation does: an UPDATE is denied
        // only for findings the stored object did not already have (a label added to an HPA whose
        // Deployment pins its replicas is not refused for HPA410), and never when it is exempt.
        if operation == pipeline::Operation::Update && !denying.is_empty() {
            let exempt = exemption();
            let before = match exempt {
                Some(_) => HashSet::new(),
                None => self.findings_before(request, namespace, view, options),
            };
            denying.retain(|(f, _)| {
                let reason = match exempt {
                    Some(reason) => reason,
                    None if before.contains(&(f.rule.id, f.message.clone())) => "the object already had this finding",
                    None => return true,
                };
                warnings.push(short(&format!("{} (allowed: {reason})", finding_text(f))));
                false
            });
        }
        let denied_findings: Vec<FieldError> = denying.iter().map(|(f, origin)| finding_error(f, origin)).collect();
        let allowed = outcome.errors.is_empty() && denials.is_empty() && denied_findings.is_empty();

        if allowed {
            return Ok((AdmissionResponse::allow(uid).with_warnings(warnings), OutcomeLabel::Allowed));
        }
        let mut errors = outcome.errors;
        errors.extend(denials.into_iter().map(|v| v.error));
        errors.extend(denied_findings);
        let status = invalid_status(&outcome.object.metadata.name, &errors);
        Ok((AdmissionResponse::deny(uid, status).with_warnings(warnings), OutcomeLabel::Denied))
    }

    /// The findings (rule and message) of an UPDATE's stored object, as `/validate` finds them
    /// for the object sent: the front door, then the cross-object rules with `view` of the
    /// cluster (the stored object in place of the cached one). Empty when it does not decode.
    fn findings_before(
        &self,
        request: &AdmissionRequest<'_>,
        namespace: &str,
        view: &View<'_>,
        options: &check::Options,
    ) -> HashSet<(&'static str, String)> {
        let Ok(old) = decode(request, "oldObject", request.old_object, self.gates.version()) else {
            return HashSet::new();
        };
        let input = Input {
            object: Written::Decoded(Box::new(old.hpa)),
            old: None,
            id: None,
            world: None,
            duplicate_keys: &[],
        };
        let check::Report { admission, mut findings } = check::check_in(input, Some(namespace), options);
        if let check::Admission::Admitted(admitted) = admission
            && let Some(index) = view.index()
        {
            // The same world as the object sent's: the target read at admission is the stored
            // object's too when the update keeps `scaleTargetRef`.
            let target = view.target().filter(|read| context::is_target_of(read, admitted.effective()));
            findings.extend(cross_object_findings(&admitted, index, view.refused(), target, options).0);
        }
        findings.into_iter().map(|f| (f.rule.id, f.message)).collect()
    }

    // === /mutate ===

    fn mutate(
        &self,
        request: &AdmissionRequest<'_>,
        policy: &Policy,
    ) -> Result<(AdmissionResponse, OutcomeLabel), ReviewError> {
        let uid = request.uid.as_ref();
        let object = decode(request, "object", request.object, self.gates.version())?;
        let effective = policy.effective(request.namespace());
        let tolerance = self.gates.enabled(Gate::HPAConfigurableTolerance);
        let mutated = match &object.hpa {
            VersionedHpa::V2(hpa) => VersionedHpa::V2(mutate_v2(hpa, &effective, tolerance)),
            VersionedHpa::V1(hpa) => VersionedHpa::V1(mutate_v1(hpa, &effective, tolerance, self.gates.version())),
            other => {
                let warning =
                    format!("hpa-webhook mutates autoscaling/v1 and v2 only; {} left as is", other.api_version());
                return Ok((AdmissionResponse::allow(uid).with_warnings(vec![warning]), OutcomeLabel::Allowed));
            }
        };
        if mutated == object.hpa {
            return Ok((AdmissionResponse::allow(uid), OutcomeLabel::Allowed));
        }
        // The object decoded, so it is JSON; a patch applies to it as sent. Read as Go reads it
        // (a lone surrogate escape kube-apiserver passes through in `fieldsV1` is U+FFFD here and
        // in both renderings, so the patch leaves managed fields alone); a text that still does
        // not read is not patched rather than replaced whole.
        let Ok(sent) = hpa_core::go::parse_tree(object.raw) else {
            tracing::warn!("the object decodes but does not read as a JSON tree: not patched");
            return Ok((AdmissionResponse::allow(uid), OutcomeLabel::Allowed));
        };
        let (before, after) = (object.hpa.to_json(), mutated.to_json());
        if !before.is_object() || !after.is_object() {
            // Never a patch that replaces the whole object.
            tracing::warn!("the object does not render as a JSON object: not patched");
            return Ok((AdmissionResponse::allow(uid), OutcomeLabel::Allowed));
        }
        let patch = patch::between(&sent, &before, &after);
        if patch.0.is_empty() {
            return Ok((AdmissionResponse::allow(uid), OutcomeLabel::Allowed));
        }
        let patch = patch::to_json(&patch);
        tracing::debug!(patch = %String::from_utf8_lossy(&patch), "patched");
        Ok((AdmissionResponse::allow(uid).with_patch(&patch), OutcomeLabel::Patched))
    }
}

/// autoscaling/v2: the policy's behavior defaults where the user left fields unset, then
/// kube-apiserver's v2 defaulting (which completes a behavior field by field and never adds one).
pub fn mutate_v2(
    hpa: &v2::HorizontalPodAutoscaler,
    policy: &Effective<'_>,
    tolerance: bool,
) -> v2::HorizontalPodAutoscaler {
    let mut out = hpa.clone();
    policy.apply_behavior(&mut out.spec.behavior, tolerance);
    defaults::default_v2(&mut out);
    out
}

/// autoscaling/v1: kube-apiserver's v1 defaulting, and the policy's behavior defaults applied to
/// the behavior the `autoscaling.alpha.kubernetes.io/behavior` annotation holds (read as
/// `release`'s kube-apiserver conversion reads it: an annotation it would ignore counts as no
/// behavior).
/// A changed behavior is completed as v2 defaulting completes it and written back as
/// kube-apiserver writes it; an unchanged annotation is left byte for byte.
pub fn mutate_v1(
    hpa: &v1::HorizontalPodAutoscaler,
    policy: &Effective<'_>,
    tolerance: bool,
    release: KubernetesVersion,
) -> v1::HorizontalPodAutoscaler {
    let mut out = hpa.clone();
    defaults::default_v1(&mut out);
    if !policy.sets_behavior(tolerance) {
        return out;
    }
    let mut behavior = out
        .metadata
        .annotations
        .get(annotations::BEHAVIOR)
        .and_then(|raw| annotations::decode_behavior(raw, release, &mut Vec::new()));
    if policy.apply_behavior(&mut behavior, tolerance)
        && let Some(b) = &mut behavior
    {
        defaults::default_behavior(b);
        out.metadata.annotations.insert(annotations::BEHAVIOR.to_string(), annotations::encode_behavior(b));
    }
    out
}

/// The cross-object findings of `admitted` (the HPA under review, or an UPDATE's stored object)
/// in the cluster as `index` holds it, this HPA in place of the cached one, without the kinds
/// RBAC refuses to watch (`refused`), and with what the read of its target at admission answered
/// (`target`, of this HPA's target: found, the workload read is in the world; found or not, the
/// API server, not the cache, said whether it exists): the findings, and the refused kinds the
/// rules read ([`Reads::unseen`](hpa_cluster::Reads::unseen)).
fn cross_object_findings(
    admitted: &check::Admitted,
    index: &hpa_cluster::Index,
    refused: &[hpa_cluster::kinds::ResourceKind],
    target: Option<&TargetRead>,
    options: &check::Options,
) -> (Vec<Finding>, Vec<hpa_cluster::kinds::ResourceKind>) {
    let t = &admitted.effective().spec.scale_target_ref;
    let id = context::hpa_id(admitted.effective());
    // Listed under its target as the cache files it (`Objects::mapped_kind`: `statefulset` is
    // the StatefulSet, `widget` the Widget of a CRD held), where the rules look it up.
    let group = hpa_core::rules::object_group(&t.kind, &t.api_version);
    let kind = hpa_core::rules::Objects::mapped_kind(index.objects(), group, &t.kind);
    let overlay = hpa_cluster::Overlay::new(index).with_hpa(&id, (group, kind, &t.name));
    let overlay = match target {
        Some(TargetRead::Found(w, ..)) => overlay.with_workload(w),
        _ => overlay,
    };
    let mut world = hpa_cluster::Reads::new(&overlay, refused);
    match target {
        Some(TargetRead::Found(w, ..)) => world = world.with_fetched(&w.id),
        Some(TargetRead::Absent(absent) | TargetRead::NotServed(absent)) => world = world.with_fetched(absent),
        Some(_) | None => {}
    }
    let findings = admitted.check_world(Some(&id), &world, options);
    (findings, world.unseen())
}

/// The rules a namespace's `denyRules` name (`effective`, the policy in force there).
fn denied_rules(effective: &Effective<'_>) -> Vec<&'static RuleMeta> {
    effective.denied_rules().iter().filter_map(|id| rules::find(id)).map(|r| r.meta()).collect()
}

/// The front door's `options` widened by `denied` (a namespace's `denyRules`): those rules run
/// whether lint warnings are on and whether they run by default (opt-in rules), since a denial
/// the organization asked for is never skipped. A rule the lint configuration turns off stays
/// off.
fn widened<'o>(options: &'o check::Options, denied: &[&'static RuleMeta]) -> std::borrow::Cow<'o, check::Options> {
    if denied.iter().all(|r| options.rules.level(r).is_some()) {
        return std::borrow::Cow::Borrowed(options);
    }
    let mut o = options.clone();
    for r in denied {
        o.rules.run_also(r);
    }
    std::borrow::Cow::Owned(o)
}

/// The front door's options of a reviewer: kube-apiserver's request as a webhook receives it
/// (already defaulted, decoded with kube-apiserver's own, maybe newer, schema: an unknown field
/// is version skew, ignored), the rules' levels and bounds of `config` (hpa-config's
/// [`SettingsFile::apply`](hpa_config::SettingsFile::apply), as `hpa-lint` applies them), and
/// only kube-apiserver's errors without lint warnings.
fn front_door_options(
    gates: &FeatureGates,
    lint_warnings: bool,
    config: Option<&hpa_config::Config>,
) -> check::Options {
    let mut options = check::Options::for_gates(gates.clone());
    options.request =
        check::Request { apply_defaults: false, default_namespace: None, strictness: Strictness::Lenient };
    if let Some(config) = config {
        options.settings = config.file.settings.apply(options.settings);
    }
    options.rules = match (lint_warnings, config) {
        (false, _) => check::RuleConfig::only_errors(),
        (true, Some(config)) => check::RuleConfig { levels: config.levels.clone(), ..check::RuleConfig::default() },
        (true, None) => check::RuleConfig::default(),
    };
    options
}

/// The keys a lint configuration sets that the webhook does not use: the release, gates and
/// kube-controller-manager's flags (`--kubernetes-version` and `--feature-gates` describe the
/// cluster served; the controller's defaults apply), and what concerns files (`failOn`,
/// `exclude`, `scope`).
fn unused_lint_config_keys(config: &hpa_config::Config) -> Vec<(&'static str, &'static str)> {
    const CLUSTER: &str = "its own flags describe the cluster it serves";
    const FILES: &str = "it is about the files a CI run lints; admission reviews objects";
    const CONTROLLER: &str = "kube-controller-manager's defaults apply";
    let file = &config.file;
    let controller = &file.controller;
    [
        ("kubernetesVersion", CLUSTER, file.kubernetes_version.is_some()),
        ("featureGates", CLUSTER, file.feature_gates.is_some()),
        ("failOn", FILES, file.fail_on.is_some()),
        ("exclude", FILES, !file.exclude.is_empty()),
        ("scope", FILES, file.scope.is_some()),
        (
            "controller",
            CONTROLLER,
            controller.sync_period_seconds.is_some()
                || controller.tolerance.is_some()
                || controller.downscale_stabilization_seconds.is_some()
                || controller.cpu_initialization_period_seconds.is_some()
                || controller.initial_readiness_delay_seconds.is_some(),
        ),
    ]
    .into_iter()
    .filter_map(|(key, why, set)| set.then_some((key, why)))
    .collect()
}

/// An unreadable lint configuration, worded as `hpa-lint` words it.
fn config_read_error(path: std::path::PathBuf, e: std::io::Error) -> ConfigError {
    ConfigError::Read { file: path.display().to_string(), source: e }
}

/// A lint finding as a warning: `HPA101 min-replicas-equals-max: <message>`, at most
/// [`MAX_WARNING_CHARS`] characters.
pub fn finding_warning(finding: &Finding) -> String {
    short(&finding_text(finding))
}

/// Why a `denyRules` HPA403 finding on a target absent only from the context cache admits the
/// HPA: the cache learns of a write through its watch, which may lag the HPA's review.
const CACHE_ABSENCE: &str = "absent from the context cache only, whose watch may lag a target written with this HPA";

/// `HPA101 min-replicas-equals-max: <message>`.
fn finding_text(finding: &Finding) -> String {
    format!("{} {}: {}", finding.rule.id, finding.rule.name, finding.message)
}

/// A finding the policy's `denyRules` turn into a denial, as a `Forbidden` field error at the
/// finding's field of the HPA (`spec.scaleTargetRef` when it points at another object).
fn finding_error(finding: &Finding, origin: &str) -> FieldError {
    let mut error = FieldError::forbidden(
        &field::Path::new("spec"),
        format!(
            "{} {}: {} (organization policy: {origin} denies {})",
            finding.rule.id, finding.rule.name, finding.message, finding.rule.id
        ),
    );
    error.field = match &finding.location {
        FindingField::Hpa(path) if !path.is_empty() => path.clone(),
        FindingField::Hpa(_) => String::new(),
        FindingField::Object { .. } => "spec.scaleTargetRef".to_string(),
    };
    error
}

/// One line of at most [`MAX_WARNING_CHARS`] characters: control characters become spaces
/// (kube-apiserver drops a warning that has one: `NewWarningHeader` in
/// `k8s.io/apimachinery/pkg/util/net/http.go` refuses it, and the recorder skips it); a longer
/// text is cut at the last clause it can keep whole (before `: `, `; `, `, ` or ` (` in its
/// second half, else before the last space there) and ends with `…`, so that what is said is
/// never cut in the middle of a word or a value.
pub fn short(text: &str) -> String {
    let clean = |c: char| if c.is_control() { ' ' } else { c };
    if text.chars().count() <= MAX_WARNING_CHARS {
        return text.chars().map(clean).collect();
    }
    let head: String = text.chars().take(MAX_WARNING_CHARS - 1).map(clean).collect();
    let half = head.len() / 2;
    let clause = [": ", "; ", ", ", " ("].iter().filter_map(|b| head.rfind(b)).filter(|&i| i >= half).max();
    let cut = clause.or_else(|| head.rfind(' ').filter(|&i| i >= half)).unwrap_or(head.len());
    let mut out = head.get(..cut).unwrap_or(&head).trim_end().to_string();
    out.push('…');
    out
}

/// The 422 `Invalid` status kube-apiserver returns for these errors (`errors.NewInvalid`): the
/// message quotes the name's bytes with `%q` (an invalid byte a generated name's cut left is
/// `\xNN`), `details.name` is the name as `encoding/json` writes it (each such byte a U+FFFD).
pub fn invalid_status(name: &Name, errors: &[FieldError]) -> Status {
    let message = field::invalid_message_bytes(api::KIND, api::GROUP, name.as_bytes(), errors);
    Status::failure(422, "Invalid", message).with_details(StatusDetails {
        name: name.as_str().to_string(),
        group: api::GROUP,
        kind: api::KIND,
        causes: errors
            .iter()
            .map(|e| StatusCause { reason: e.kind.reason(), message: e.body(), field: e.field.clone() })
            .collect(),
    })
}

fn operation_of(request: &AdmissionRequest<'_>) -> OperationLabel {
    match request.operation.as_ref() {
        "CREATE" => OperationLabel::Create,
        "UPDATE" => OperationLabel::Update,
        "DELETE" => OperationLabel::Delete,
        "CONNECT" => OperationLabel::Connect,
        _ => OperationLabel::Unknown,
    }
}

/// Decodes `request.<field>` as an HPA of the request's version, with hpa-core's decoder
/// straight from the request's bytes.
///
/// Decoding is lenient: kube-apiserver has already decoded the object with its own schema,
/// which may be newer than this build's, so an unknown field means version skew, not a
/// user's typo. It is ignored (and returned, for a warning); a value of the wrong type is
/// an error, with kube-apiserver's message.
fn decode<'a>(
    request: &AdmissionRequest<'_>,
    field: &'static str,
    raw: Option<&'a RawValue>,
    release: KubernetesVersion,
) -> Result<Decoded<'a>, ObjectError> {
    let raw = raw.filter(|r| r.get() != "null").ok_or(ObjectError::Missing { field })?.get();
    let expected = ApiVersion::parse(&format!("{}/{}", api::GROUP, request.kind.version));
    let decoded = match expected {
        Some(version) => api::decode_json_expecting(raw, version, Strictness::Lenient, release),
        None => api::decode_json(raw, Strictness::Lenient, release),
    };
    let decoded = decoded.map_err(|errors| {
        let version = object_version(raw);
        ObjectError::Undecodable { field, message: api::decode_failure_message(version, &errors), version, errors }
    })?;
    let version = decoded.value.api_version().version();
    if !request.kind.version.is_empty() && request.kind.version != version {
        return Err(ObjectError::VersionMismatch {
            field,
            object: version.to_string(),
            request: request.kind.version.to_string(),
        });
    }
    // kube-apiserver re-encodes what it sends: a duplicate field cannot come from it.
    let unknown_fields =
        decoded.ignored.into_iter().filter(|e| e.kind == api::DecodeErrorKind::UnknownField).map(|e| e.path).collect();
    Ok(Decoded { raw, hpa: decoded.value, unknown_fields })
}

/// The version an object names in its `apiVersion`, if it is an HPA version.
fn object_version(raw: &str) -> Option<ApiVersion> {
    let value: Value = serde_json::from_str(raw).ok()?;
    value.get("apiVersion").and_then(Value::as_str).and_then(ApiVersion::parse)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn finding(message: &str) -> Finding {
        let rule = hpa_core::rules::find("min-replicas-equals-max").unwrap().meta();
        Finding::new(rule, "spec.maxReplicas", message)
    }

    #[test]
    fn warnings_are_short_single_lines() {
        assert_eq!(
            finding_warning(&finding("spec.minReplicas equals spec.maxReplicas")),
            "HPA101 min-replicas-equals-max: spec.minReplicas equals spec.maxReplicas"
        );
        let long = finding_warning(&finding(&"x".repeat(MAX_WARNING_CHARS + 80)));
        assert_eq!(long.chars().count(), MAX_WARNING_CHARS);
        assert!(long.ends_with('…'));
        // Cut at the last clause that fits whole, never inside a word or a value.
        let clauses = format!("{}: {}, {} (why)", "a".repeat(100), "b".repeat(100), "c".repeat(100));
        assert_eq!(short(&clauses), format!("{}: {}…", "a".repeat(100), "b".repeat(100)));
        let words = "word ".repeat(60);
        let cut = short(&words);
        assert!(cut.chars().count() <= MAX_WARNING_CHARS && cut.ends_with("word…"), "{cut}");
        assert_eq!(short("a\nb\tc"), "a b c");
        assert_eq!(short(&"é".repeat(MAX_WARNING_CHARS)), "é".repeat(MAX_WARNING_CHARS));
    }

    /// A generated name cut inside a character (`names.SimpleNameGenerator`) keeps an invalid
    /// byte: `errors.NewInvalid` quotes it with `%q` (`\xc3`), `details.name` is JSON (U+FFFD).
    #[test]
    fn invalid_status_quotes_the_bytes_of_a_generated_name() {
        let name = Name::from_bytes(b"web-\xc3xxxxx".to_vec());
        let errors = vec![FieldError::required(&field::Path::new("spec").child("maxReplicas"), "")];
        let status = serde_json::to_value(invalid_status(&name, &errors)).unwrap();
        assert_eq!(
            status["message"],
            r#"HorizontalPodAutoscaler.autoscaling "web-\xc3xxxxx" is invalid: spec.maxReplicas: Required value"#
        );
        assert_eq!(status["details"]["name"], "web-\u{fffd}xxxxx");
    }

    #[test]
    fn invalid_status_renders_like_kube_apiserver() {
        let spec = field::Path::new("spec");
        let errors = vec![
            FieldError::invalid(
                &spec.child("minReplicas"),
                field::BadValue::Int(0),
                "must be greater than or equal to 1",
            ),
            FieldError::required(&spec.child("maxReplicas"), "must be set and greater than 0"),
        ];
        let status = invalid_status(&Name::from("web"), &errors);
        assert_eq!(
            serde_json::to_value(&status).unwrap(),
            json!({"metadata": {}, "status": "Failure", "reason": "Invalid", "code": 422,
                "message": "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Required value: must be set and greater than 0]",
                "details": {"name": "web", "group": "autoscaling", "kind": "HorizontalPodAutoscaler", "causes": [
                    {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be greater than or equal to 1", "field": "spec.minReplicas"},
                    {"reason": "FieldValueRequired", "message": "Required value: must be set and greater than 0", "field": "spec.maxReplicas"}]}})
        );
    }

    fn review_request(object: &str) -> String {
        format!(
            r#"{{"uid": "u", "kind": {{"group": "autoscaling", "version": "v2", "kind": "HorizontalPodAutoscaler"}},
               "resource": {{"group": "autoscaling", "version": "v2", "resource": "horizontalpodautoscalers"}},
               "operation": "CREATE", "object": {object}}}"#
        )
    }

    fn decode_object(object: &str) -> Result<(VersionedHpa, Vec<String>), ObjectError> {
        let text = review_request(object);
        let request: AdmissionRequest<'_> = serde_json::from_str(&text).unwrap();
        decode(&request, "object", request.object, KubernetesVersion::LATEST).map(|d| (d.hpa, d.unknown_fields))
    }

    #[test]
    fn unknown_fields_are_ignored_and_reported() {
        let (hpa, unknown) = decode_object(
            r#"{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "web"}, "spec": {"maxReplicas": 3, "syncPeriodSeconds": 30}}"#,
        )
        .unwrap();
        assert_eq!(unknown, ["spec.syncPeriodSeconds"]);
        let VersionedHpa::V2(hpa) = hpa else { panic!() };
        assert_eq!(hpa.spec.max_replicas, 3);
        // Wrong types are still errors, in kube-apiserver's words.
        let e = decode_object(
            r#"{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"maxReplicas": "3", "x": 1}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "request.object: HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: \
             json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32"
        );
        assert!(matches!(e, ObjectError::Undecodable { version: Some(ApiVersion::V2), .. }));
    }

    #[test]
    fn the_object_must_be_of_the_requests_version() {
        let e = decode_object(r#"{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "spec": {}}"#)
            .unwrap_err();
        assert_eq!(e.to_string(), "request.object is autoscaling/v1, but request.kind is autoscaling/v2");
        assert!(matches!(decode_object("null").unwrap_err(), ObjectError::Missing { field: "object" }));
    }

    /// A policy file's body under its header (the empty text: no policy).
    fn test_policy(policy: &str) -> Policy {
        if policy.is_empty() {
            return Policy::default();
        }
        Policy::parse(&format!("apiVersion: hpa-toolkit.io/v1alpha1\nkind: WebhookPolicy\n{policy}")).unwrap()
    }

    /// The AdmissionReview of a CREATE of `object`.
    fn review_of(object: &Value) -> Value {
        crate::review::hpa_review("u", "CREATE", object, None)
    }

    /// The warnings of a review's response.
    fn warnings_of(response: &Value) -> Vec<String> {
        response["warnings"]
            .as_array()
            .map(|w| w.iter().map(|w| w.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }

    /// `/validate` of an HPA (min = max = 1, so HPA101) with these annotations, under `policy`:
    /// whether it is allowed, its warnings and the status message.
    fn validate_annotated(annotations: Value, max: i64, policy: &str) -> (bool, Vec<String>, String) {
        let policy = test_policy(policy);
        let object = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "annotations": annotations},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": max,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        let body = review_of(&object);
        let admission = Reviewer::new(FeatureGates::default());
        let answer = admission.review(Endpoint::Validate, body.to_string().as_bytes(), &policy);
        assert!(answer.context.findings.is_empty(), "no cross-object finding without context");
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        let response = &review["response"];
        let warnings = warnings_of(response);
        let message = response["status"]["message"].as_str().unwrap_or_default().to_string();
        (response["allowed"] == true, warnings, message)
    }

    #[test]
    fn the_ignore_annotation_leaves_out_the_warnings_it_lists() {
        let hpa101 = |w: &Vec<String>| w.iter().any(|w| w.starts_with("HPA101 "));
        let (allowed, warnings, _) = validate_annotated(json!({}), 1, "");
        assert!(allowed);
        assert!(hpa101(&warnings), "{warnings:?}");
        for value in ["HPA101 -- a singleton by design", "min-replicas-equals-max", "hpa101,HPA102", "all"] {
            let (allowed, warnings, _) = validate_annotated(json!({rules::IGNORE_ANNOTATION: value}), 1, "");
            assert!(allowed, "{value}");
            assert!(!hpa101(&warnings), "{value}: {warnings:?}");
        }
        // Another rule listed: HPA101 stays.
        let (_, warnings, _) = validate_annotated(json!({rules::IGNORE_ANNOTATION: "HPA201"}), 1, "");
        assert!(hpa101(&warnings), "{warnings:?}");
    }

    #[test]
    fn the_ignore_annotation_never_lifts_a_denial() {
        let ignore = json!({rules::IGNORE_ANNOTATION: "all -- the app team says so"});
        // The policy's denyRules: still denied, in the same words as without the annotation.
        let deny = "defaults: {denyRules: [HPA101]}\n";
        let (allowed, _, with) = validate_annotated(ignore.clone(), 1, deny);
        let (_, _, without) = validate_annotated(json!({}), 1, deny);
        assert!(!allowed);
        assert!(with.contains("Forbidden: HPA101 min-replicas-equals-max: "), "{with}");
        assert_eq!(with, without);
        // A constraint the policy enforces with Deny.
        let (allowed, _, message) =
            validate_annotated(ignore.clone(), 3, "defaults: {constraints: {maxReplicas: 2}}\n");
        assert!(!allowed, "{message}");
        // kube-apiserver's validation (maxReplicas 0 is invalid).
        let (allowed, _, message) = validate_annotated(ignore, 0, "");
        assert!(!allowed);
        assert!(message.contains("spec.maxReplicas: Invalid value: 0"), "{message}");
    }

    /// A context holding the Deployment `shop/web` (100m cpu requested) whose `spec.replicas`
    /// (3) a GitOps apply owns, with `annotations` (`Null` for none).
    fn gitops_index(annotations: Value, gates: &FeatureGates) -> hpa_cluster::watch::Index {
        let mut deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop",
                // A GitOps apply owns spec.replicas.
                "managedFields": [{"manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app",
                "resources": {"requests": {"cpu": "100m"}}}]}}}});
        if !annotations.is_null() {
            deployment["metadata"]["annotations"] = annotations;
        }
        hpa_cluster::watch::Index::of_objects(
            [(hpa_cluster::kinds::DEPLOYMENT, deployment)],
            &hpa_cluster::watch::CacheOptions::admission_for(gates.clone()),
        )
    }

    /// `/validate` of the HPA `web` with a fresh context holding the Deployment it scales (with
    /// `spec.replicas` a GitOps tool applies, and `deployment_annotations`): the warnings, whether
    /// it is allowed, and the cross-object findings counted.
    fn validate_in_context(deployment_annotations: Value, policy: &str) -> (Vec<String>, bool, Vec<&'static str>) {
        let policy = test_policy(policy);
        let gates = FeatureGates::default();
        let lock = std::sync::RwLock::new(gitops_index(deployment_annotations, &gates));
        let view = View::Fresh(lock.read().unwrap(), Vec::new(), None);
        let object = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 5,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        let body = review_of(&object);
        let admission = Reviewer::new(gates);
        let answer = admission.review_in(Endpoint::Validate, body.to_string().as_bytes(), &policy, &view);
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        let response = &review["response"];
        let warnings = warnings_of(response);
        (warnings, response["allowed"] == true, answer.context.findings)
    }

    /// The warnings of `/validate` of the review `body` (default gates, no policy) with a fresh
    /// context cache holding `objects` as the watches would store them.
    fn warnings_with_cache(
        objects: impl IntoIterator<Item = (hpa_cluster::kinds::ResourceKind, Value)>,
        body: &Value,
    ) -> Vec<String> {
        let gates = FeatureGates::default();
        let index = hpa_cluster::watch::Index::of_objects(
            objects,
            &hpa_cluster::watch::CacheOptions::admission_for(gates.clone()),
        );
        let lock = std::sync::RwLock::new(index);
        let view = View::Fresh(lock.read().unwrap(), Vec::new(), None);
        let answer =
            Reviewer::new(gates).review_in(Endpoint::Validate, body.to_string().as_bytes(), &test_policy(""), &view);
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        warnings_of(&review["response"])
    }

    /// At admission the HPA under review says HPA410 on the Argo Rollout it scales, which makes
    /// no pods (Argo Rollouts refuses its `workloadRef`), even when another HPA of the cache,
    /// first by name, scales it too: the linter says it once, from the first HPA, as it sees them
    /// all; the webhook answers for one.
    #[test]
    fn the_hpa_under_review_says_the_refused_rollout_whatever_the_other_hpas() {
        let rollout = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                "workloadRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web"}}});
        let hpa = |name: &str| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "shop"},
                "spec": {"scaleTargetRef": {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "web"},
                    "minReplicas": 2, "maxReplicas": 5}})
        };
        let warnings = warnings_with_cache(
            [(hpa_cluster::kinds::ROLLOUT, rollout), (hpa_cluster::kinds::HPA, hpa("a-web"))],
            &review_of(&hpa("web")),
        );
        assert!(
            warnings.iter().any(|w| w.starts_with(
                "HPA410 workload-sets-replicas: Argo Rollouts refuses Rollout shop/web (InvalidSpec: The Rollout \"web\" is invalid: workload of type apps/StatefulSet is not supported)"
            )),
            "{warnings:?}"
        );
    }

    /// Two HPAs on one target whatever the spelling the RESTMapper maps (`statefulset` is the
    /// StatefulSet; `widget` the Widget of the CRD held): HPA407 at the admission of either, the
    /// other cached (before the CRD, as a watch may deliver them), on CREATE and on UPDATE (the
    /// HPA under review cached too), as the linter says it of the same objects in files.
    #[test]
    fn hpa407_at_admission_maps_each_spelling_of_the_target() {
        let hpa = |name: &str, api_version: &str, kind: &str| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "shop", "resourceVersion": "7"},
                "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": kind, "name": "web"},
                    "minReplicas": 2, "maxReplicas": 5}})
        };
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}]}});
        for (cached, written) in [
            (("apps/v1", "Deployment"), ("apps/v1", "deployment")),
            (("apps/v1", "statefulset"), ("apps/v1", "StatefulSet")),
            (("example.com/v1", "Widget"), ("example.com/v1", "widget")),
            (("example.com/v1", "widget"), ("example.com/v1", "Widget")),
        ] {
            let (other, this) = (hpa("a-web", cached.0, cached.1), hpa("web", written.0, written.1));
            let create = review_of(&this);
            let update = crate::review::hpa_review("u", "UPDATE", &this, Some(&this));
            for (body, also_cached) in [(create, None), (update, Some(this.clone()))] {
                let mut objects =
                    vec![(hpa_cluster::kinds::HPA, other.clone()), (hpa_cluster::kinds::CRD, crd.clone())];
                objects.extend(also_cached.map(|h| (hpa_cluster::kinds::HPA, h)));
                let warnings = warnings_with_cache(objects, &body);
                assert!(
                    warnings.iter().any(|w| w.starts_with("HPA407 ") && w.contains("is also scaled by a-web")),
                    "{cached:?} cached, {written:?} reviewed ({}): {warnings:?}",
                    body["request"]["operation"]
                );
            }
        }
    }

    /// A Deployment's old ReplicaSet, from before the cpu request was added and scaled to zero
    /// by the deployment controller (`spec.replicas` 0, its write): it runs no pod, so the HPA of
    /// the Deployment gets no HPA201 for it; with a pod left (a rollout under way), it does.
    #[test]
    fn an_old_replica_set_scaled_to_zero_is_no_pod_without_the_request() {
        let replica_set = |replicas: i64| {
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-5f7b9c8d4", "namespace": "shop",
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                        "uid": "0b6c1a52", "controller": true}],
                    "managedFields": [{"manager": "kube-controller-manager", "operation": "Update",
                        "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "5f7b9c8d4"}},
                    "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "5f7b9c8d4"}},
                        "spec": {"containers": [{"name": "app"}]}}}})
        };
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app",
                "resources": {"requests": {"cpu": "100m"}}}]}}}});
        for (replicas, warned) in [(0, false), (1, true)] {
            let warnings = warnings_with_cache(
                [
                    (hpa_cluster::kinds::DEPLOYMENT, deployment.clone()),
                    (hpa_cluster::kinds::REPLICA_SET, replica_set(replicas)),
                ],
                &review_of(&web_hpa(5, json!({}))),
            );
            assert_eq!(
                warnings.iter().any(|w| w.starts_with("HPA201 ") && w.contains("ReplicaSet shop/web-5f7b9c8d4")),
                warned,
                "{replicas} replicas: {warnings:?}"
            );
        }
    }

    #[test]
    fn the_annotation_of_the_object_a_cross_object_finding_is_on_leaves_it_out() {
        let hpa410 = |w: &Vec<String>| w.iter().any(|w| w.starts_with("HPA410 "));
        // The Deployment sets spec.replicas under the HPA: HPA410, located on the Deployment.
        let (warnings, allowed, findings) = validate_in_context(json!({}), "");
        assert!(allowed);
        assert!(hpa410(&warnings), "{warnings:?}");
        assert!(findings.contains(&"HPA410"));
        // The Deployment's own annotation, as the cache keeps it, leaves it out (and uncounted).
        for value in ["HPA410 -- replicas owned by Argo CD", "workload-sets-replicas", "all"] {
            let (warnings, allowed, findings) = validate_in_context(json!({rules::IGNORE_ANNOTATION: value}), "");
            assert!(allowed, "{value}");
            assert!(!hpa410(&warnings), "{value}: {warnings:?}");
            assert!(!findings.contains(&"HPA410"), "{value}");
        }
        // Another rule listed: HPA410 stays.
        let (warnings, _, _) = validate_in_context(json!({rules::IGNORE_ANNOTATION: "HPA201"}), "");
        assert!(hpa410(&warnings), "{warnings:?}");
        // Never a denial lifted: the policy's denyRules still deny it.
        let (_, allowed, findings) =
            validate_in_context(json!({rules::IGNORE_ANNOTATION: "all"}), "defaults: {denyRules: [HPA410]}\n");
        assert!(!allowed);
        assert!(findings.contains(&"HPA410"));
    }

    /// The HPA `web` (min 1, `max`, a cpu utilization metric) with these metadata fields.
    fn web_hpa(max: i64, metadata: Value) -> Value {
        let mut object = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 1, "maxReplicas": max,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        for (k, v) in metadata.as_object().unwrap() {
            object["metadata"][k] = v.clone();
        }
        object
    }

    /// `/validate` of an UPDATE from `old` to `new` under `policy`, with `view`: whether it is
    /// allowed, its warnings and the status message.
    fn validate_update(old: &Value, new: &Value, policy: &str, view: &View<'_>) -> (bool, Vec<String>, String) {
        let body = crate::review::hpa_review("u", "UPDATE", new, Some(old));
        let admission = Reviewer::new(FeatureGates::default());
        let answer = admission.review_in(Endpoint::Validate, body.to_string().as_bytes(), &test_policy(policy), view);
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        let response = &review["response"];
        let message = response["status"]["message"].as_str().unwrap_or_default().to_string();
        (response["allowed"] == true, warnings_of(response), message)
    }

    #[test]
    fn deny_rules_ratchet_on_update() {
        let deny = "defaults: {denyRules: [HPA101]}\n";
        let off = &View::Off;
        // min = max = 1 (HPA101) already stored: a label added is allowed, and says why.
        let old = web_hpa(1, json!({}));
        let labelled = web_hpa(1, json!({"labels": {"team": "shop"}}));
        let (allowed, warnings, message) = validate_update(&old, &labelled, deny, off);
        assert!(allowed, "{message}");
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("HPA101 ") && w.ends_with("(allowed: this update changes only metadata)")),
            "{warnings:?}"
        );
        // A spec change that keeps the finding the stored object had: allowed.
        let mut retargeted = old.clone();
        retargeted["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = json!(70);
        let (allowed, warnings, _) = validate_update(&old, &retargeted, deny, off);
        assert!(allowed);
        assert!(warnings.iter().any(|w| w.ends_with("(allowed: the object already had this finding)")), "{warnings:?}");
        // A spec change that brings it: denied, as a CREATE is.
        let (allowed, _, message) = validate_update(&web_hpa(2, json!({})), &old, deny, off);
        assert!(!allowed);
        assert!(message.contains("Forbidden: HPA101 min-replicas-equals-max: "), "{message}");
        // An object being deleted: a finalizer removed (or anything else) is never refused.
        let deleting = json!({"deletionTimestamp": "2026-03-02T10:00:00Z", "finalizers": ["example.com/cleanup"]});
        let old = web_hpa(2, deleting.clone());
        let mut new = web_hpa(1, deleting);
        new["metadata"].as_object_mut().unwrap().remove("finalizers");
        let (allowed, warnings, message) = validate_update(&old, &new, deny, off);
        assert!(allowed, "{message}");
        assert!(warnings.iter().any(|w| w.ends_with("(allowed: the object is being deleted)")), "{warnings:?}");
        // The policy's constraints too: a metadata-only update of an object over maxReplicas.
        let constraint = "defaults: {constraints: {maxReplicas: 3}}\n";
        let (allowed, _, _) = validate_update(&web_hpa(2, json!({})), &web_hpa(5, json!({})), constraint, off);
        assert!(!allowed);
        let over = web_hpa(5, json!({}));
        let (allowed, warnings, message) =
            validate_update(&over, &web_hpa(5, json!({"labels": {"team": "shop"}})), constraint, off);
        assert!(allowed, "{message}");
        assert!(warnings.iter().any(|w| w.contains("allowed")), "{warnings:?}");
    }

    #[test]
    fn cross_object_deny_rules_ratchet_on_update() {
        // The Deployment pins its replicas (HPA410), and the policy denies HPA410.
        let lock = std::sync::RwLock::new(gitops_index(Value::Null, &FeatureGates::default()));
        let view = View::Fresh(lock.read().unwrap(), Vec::new(), None);
        let deny = "defaults: {denyRules: [HPA410]}\n";
        // A CREATE is denied.
        let body = review_of(&web_hpa(5, json!({})));
        let answer = Reviewer::new(FeatureGates::default()).review_in(
            Endpoint::Validate,
            body.to_string().as_bytes(),
            &test_policy(deny),
            &view,
        );
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(review["response"]["allowed"], false, "{review}");
        // An UPDATE of the HPA's labels, or of its maxReplicas: the finding is the stored
        // object's too (it is about the Deployment), so allowed with a warning.
        let old = web_hpa(5, json!({}));
        for new in [web_hpa(5, json!({"labels": {"team": "shop"}})), web_hpa(6, json!({}))] {
            let (allowed, warnings, message) = validate_update(&old, &new, deny, &view);
            assert!(allowed, "{message}");
            assert!(warnings.iter().any(|w| w.starts_with("HPA410 ") && w.contains("(allowed: ")), "{warnings:?}");
        }
        // Retargeted at it from another Deployment: the finding is new, denied.
        let mut elsewhere = old.clone();
        elsewhere["spec"]["scaleTargetRef"]["name"] = json!("api");
        let (allowed, _, message) = validate_update(&elsewhere, &old, deny, &view);
        assert!(!allowed);
        assert!(message.contains("HPA410"), "{message}");
    }

    /// The rules a namespace's `denyRules` name run whether lint warnings are on and whether
    /// they run by default (an opt-in rule): the denial the organization asked for is never
    /// skipped, and nothing else is added. A rule the lint configuration turns off stays off.
    #[test]
    fn deny_rules_run_their_rules_whatever_lint_warnings_and_defaults_say() {
        let lock = std::sync::RwLock::new(gitops_index(Value::Null, &FeatureGates::default()));
        let view = View::Fresh(lock.read().unwrap(), Vec::new(), None);
        let review = |reviewer: &Reviewer, object: &Value, policy: &str| -> Value {
            let body = review_of(object);
            let answer =
                reviewer.review_in(Endpoint::Validate, body.to_string().as_bytes(), &test_policy(policy), &view);
            let review: Value = serde_json::from_slice(&answer.body).unwrap();
            review["response"].clone()
        };
        let quiet = Reviewer::new(FeatureGates::default()).with_lint_warnings(false);
        // Lint warnings off: no warning, but a cross-object denyRules still denies.
        let web = web_hpa(5, json!({}));
        let r = review(&quiet, &web, "");
        assert_eq!((r["allowed"].clone(), warnings_of(&r).len()), (json!(true), 0), "{r}");
        let r = review(&quiet, &web, "defaults: {denyRules: [HPA410]}\n");
        assert_eq!(r["allowed"], false, "{r}");
        assert!(r["status"]["message"].as_str().unwrap().contains("HPA410"), "{r}");
        // An opt-in rule (HPA403, off by default) named by denyRules runs, and only there.
        let mut missing = web_hpa(5, json!({}));
        missing["spec"]["scaleTargetRef"]["name"] = json!("nowhere");
        let loud = Reviewer::new(FeatureGates::default());
        let r = review(&loud, &missing, "");
        assert_eq!(r["allowed"], true, "{r}");
        assert!(!warnings_of(&r).iter().any(|w| w.starts_with("HPA403 ")), "{r}");
        for reviewer in [&loud, &quiet] {
            let r = review(reviewer, &missing, "defaults: {denyRules: [HPA403]}\n");
            // Absent from the cache only (its watch may lag a Deployment written with this HPA):
            // admitted, with the finding and why, where the target was looked for.
            assert_eq!(r["allowed"], true, "{r}");
            assert_eq!(
                warnings_of(&r),
                ["HPA403 target-not-found: no Deployment shop/nowhere in the cluster (as hpa-webhook's context cache \
                  sees it) (allowed: absent from the context cache only, whose watch may lag a target written \
                  with this HPA)"],
                "{r}"
            );
        }
    }

    /// A lone surrogate escape in `fieldsV1` (kube-apiserver keeps `FieldsV1.Raw` and sends it
    /// as it is): `/mutate` still defaults the object, with the patch a Go webhook would send
    /// (managed fields untouched), and `/validate` still checks it.
    #[test]
    fn a_lone_surrogate_in_fields_v1_is_mutated_and_validated() {
        let object = r#"{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "managedFields": [{"manager": "kubectl",
                "operation": "Update", "apiVersion": "autoscaling/v2", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {"f:a\ud800": {}}}}}]},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5}}"#;
        let body = format!(
            r#"{{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}}"#,
            review_request(object)
        );
        let admission = Reviewer::new(FeatureGates::default());
        let answer = admission.review(Endpoint::Mutate, body.as_bytes(), &Policy::default());
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(answer.outcome, OutcomeLabel::Patched, "{review}");
        let patch = review["response"]["patch"].as_str().unwrap();
        use base64::Engine as _;
        let patch: Value =
            serde_json::from_slice(&base64::engine::general_purpose::STANDARD.decode(patch).unwrap()).unwrap();
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/spec/minReplicas", "value": 1},
                {"op": "add", "path": "/spec/metrics", "value": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 80}}}]}])
        );
        let answer = admission.review(Endpoint::Validate, body.as_bytes(), &Policy::default());
        let review: Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(review["response"]["allowed"], true, "{review}");
    }

    #[test]
    fn nil_behavior_stays_nil_without_a_policy() {
        let hpa = v2::HorizontalPodAutoscaler::default();
        let out = mutate_v2(&hpa, &Effective::default(), true);
        assert!(out.spec.behavior.is_none());
        assert_eq!(out.spec.min_replicas, Some(1));
        let v1hpa = v1::HorizontalPodAutoscaler::default();
        let out = mutate_v1(&v1hpa, &Effective::default(), true, KubernetesVersion::LATEST);
        assert!(out.metadata.annotations.is_empty());
    }

    /// Each key the webhook does not use is logged with its own reason: `failOn` is no
    /// description of the cluster (it said so for every key).
    #[test]
    fn unused_lint_config_keys_say_why_each() {
        let text = "kubernetesVersion: \"1.35\"\nfailOn: error\ncontroller:\n  syncPeriodSeconds: 30\n";
        let config = hpa_config::parse("lint.yaml", text).unwrap();
        let unused = unused_lint_config_keys(&config);
        assert_eq!(
            unused,
            [
                ("kubernetesVersion", "its own flags describe the cluster it serves"),
                ("failOn", "it is about the files a CI run lints; admission reviews objects"),
                ("controller", "kube-controller-manager's defaults apply"),
            ]
        );
    }
}
