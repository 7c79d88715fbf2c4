//! The kube-apiserver request pipeline for an HPA create or update, in order:
//! defaulting of the object's version, conversion to the internal form, the strategy's
//! preparation, validation, and (from 1.37) declarative validation.
//!
//! Mirrors `pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`
//! (`PrepareForCreate`, `PrepareForUpdate`, `validationOptionsForHorizontalPodAutoscaler`),
//! `k8s.io/apiserver/pkg/registry/rest/create.go` (`BeforeCreate`) and `update.go`
//! (`BeforeUpdate`, `validateCommonFields`), and the declarative-validation merge of
//! `rest/validate.go` as it applies to HPAs in 1.37.

use crate::api::{self, VersionedHpa, v2};
use crate::convert::{self, AnnotationProblem, ConvertError};
use crate::features::{FeatureGates, Gate, KubernetesVersion};
use crate::field::{self, BadValue, ErrorList, FieldError, Path, ValueRendering};
use crate::validation::{self, RefOptions, SpecOptions, meta};

/// CREATE or UPDATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// POST
    Create,
    /// PUT / PATCH (with the old object)
    Update,
}

/// What the pipeline needs to know about the cluster and the request; the front door
/// ([`crate::check::check`]) makes it from its own [`crate::check::Options`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmissionOptions {
    /// Release and feature gates.
    pub gates: FeatureGates,
    /// Apply the version's defaulting first (off for objects an admission webhook receives,
    /// which kube-apiserver has already defaulted).
    pub apply_defaults: bool,
    /// Namespace given to objects that have none (kubectl sends its context namespace, and
    /// kube-apiserver fills it from the URL); `None` leaves it empty.
    pub default_namespace: Option<String>,
}

impl Default for AdmissionOptions {
    fn default() -> Self {
        AdmissionOptions {
            gates: FeatureGates::default(),
            apply_defaults: true,
            default_namespace: Some("default".into()),
        }
    }
}

/// Suffix used when a name is generated from `generateName` (kube-apiserver appends five
/// random characters; a fixed, valid suffix keeps results reproducible).
pub const GENERATED_NAME_SUFFIX: &str = "xxxxx";

/// The outcome of admitting one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The object as kube-apiserver validated it (internal form, prepared).
    pub object: v2::HorizontalPodAutoscaler,
    /// The validation errors, in kube-apiserver's order, duplicates included.
    pub errors: ErrorList,
    /// Round-trip annotations that were ignored or partly ignored.
    pub annotation_problems: Vec<AnnotationProblem>,
    /// The warnings kube-apiserver's request handler answers (`Warning:` headers) for what it
    /// changed in the object before admission: duplicate owner references it dropped
    /// ([`dedup_owner_references`]).
    pub warnings: Vec<String>,
}

impl Outcome {
    /// Whether kube-apiserver would accept the object.
    pub fn allowed(&self) -> bool {
        self.errors.is_empty()
    }

    /// The object's name (the generated one with `generateName`), as Go reads it rune by rune:
    /// an invalid byte a generated name's cut left is a U+FFFD here, and `\xNN` in
    /// [`Outcome::status_message`], which quotes the name's bytes.
    pub fn name(&self) -> &str {
        &self.object.metadata.name
    }

    /// The message of the 422 status, or `None` when allowed.
    pub fn status_message(&self) -> Option<String> {
        (!self.errors.is_empty()).then(|| {
            field::invalid_message_bytes(api::KIND, api::GROUP, self.object.metadata.name.as_bytes(), &self.errors)
        })
    }
}

/// A request kube-apiserver rejects before validation (400 BadRequest / conversion failure).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdmitError {
    /// Conversion to the internal form failed.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// UPDATE needs the old object.
    #[error("an update needs the old object")]
    MissingOld,
}

/// Runs the whole pipeline for one request.
pub fn admit(
    object: &VersionedHpa,
    old: Option<&VersionedHpa>,
    operation: Operation,
    opts: &AdmissionOptions,
) -> Result<Outcome, AdmitError> {
    admit_owned(object.clone(), old.cloned(), operation, opts)
}

/// [`admit`], consuming the objects (saves a copy).
pub fn admit_owned(
    object: VersionedHpa,
    old: Option<VersionedHpa>,
    operation: Operation,
    opts: &AdmissionOptions,
) -> Result<Outcome, AdmitError> {
    let (mut new, problems) = prepare_input(object, opts)?;
    let warnings: Vec<String> = dedup_owner_references(&mut new.metadata.owner_references).into_iter().collect();
    match operation {
        Operation::Create => {
            keep_decodable_managed_fields(&mut new.metadata.managed_fields, &[]);
            before_create(&mut new, &opts.gates);
            let errors = validate_create(&new, &opts.gates);
            Ok(Outcome { object: new, errors, annotation_problems: problems, warnings })
        }
        Operation::Update => {
            let old = old.ok_or(AdmitError::MissingOld)?;
            let (old, _) = prepare_input(old, opts)?;
            keep_decodable_managed_fields(&mut new.metadata.managed_fields, &old.metadata.managed_fields);
            before_update(&mut new, &old, &opts.gates);
            let errors = validate_update(&new, &old, &opts.gates);
            Ok(Outcome { object: new, errors, annotation_problems: problems, warnings })
        }
    }
}

/// `DuplicateOwnerReferencesWarningFormat` (`k8s.io/apiserver/pkg/endpoints/handlers/rest.go`),
/// before the duplicate UIDs, joined by `, `.
pub const DUPLICATE_OWNER_REFERENCES_WARNING: &str = ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ";

/// `dedupOwnerReferencesAndAddWarning` of the create and update handlers
/// (`k8s.io/apiserver/pkg/endpoints/handlers/rest.go`), run on the request's object before
/// admission and validation: an owner reference equal in every field to an earlier one
/// (`dedupOwnerReferences`: same UID, then `apiequality.Semantic.DeepEqual`) is dropped, and the
/// request answers one warning naming the UID of each one dropped, in order. References that
/// share a UID but differ in another field all stay.
pub fn dedup_owner_references(refs: &mut Vec<crate::api::meta::OwnerReference>) -> Option<String> {
    let mut kept: Vec<crate::api::meta::OwnerReference> = Vec::with_capacity(refs.len());
    let mut duplicates: Vec<String> = Vec::new();
    for r in refs.drain(..) {
        if kept.contains(&r) {
            duplicates.push(r.uid);
        } else {
            kept.push(r);
        }
    }
    *refs = kept;
    (!duplicates.is_empty()).then(|| format!("{DUPLICATE_OWNER_REFERENCES_WARNING}{}", duplicates.join(", ")))
}

/// What the field manager does to the request's `metadata.managedFields` before admission and
/// validation (`FieldManager.UpdateNoErrors`, run by the create and update handlers): when they
/// do not decode (`DecodeManagedFields`: an entry whose `operation` is not `Apply` or `Update`,
/// whose `apiVersion` is empty, or whose `fieldsType` is not `FieldsV1`) or are empty, it takes the
/// live object's instead (none on create) and records the request's manager in them. So
/// validation never sees such entries: `ValidateManagedFields` can only refuse entries that
/// decode (a `manager` too long or not printable, a `subresource` too long). The entry the field
/// manager adds for the request is valid and is not modelled. (The content of `fieldsV1` is not
/// parsed here.)
pub fn keep_decodable_managed_fields(
    managed: &mut Vec<crate::api::meta::ManagedFieldsEntry>,
    live: &[crate::api::meta::ManagedFieldsEntry],
) {
    let decodes = |entries: &[crate::api::meta::ManagedFieldsEntry]| {
        entries.iter().all(|e| {
            matches!(e.operation.as_str(), "Apply" | "Update")
                && !e.api_version.is_empty()
                && e.fields_type == "FieldsV1"
        })
    };
    if managed.is_empty() || !decodes(managed) {
        *managed = if decodes(live) { live.to_vec() } else { Vec::new() };
    }
}

/// Steps 1–3: defaulting in the object's version, conversion, namespace from the request.
fn prepare_input(
    mut obj: VersionedHpa,
    opts: &AdmissionOptions,
) -> Result<(v2::HorizontalPodAutoscaler, Vec<AnnotationProblem>), ConvertError> {
    if opts.apply_defaults {
        crate::defaults::default_versioned(&mut obj);
    }
    let conv = convert::into_internal_in(obj, opts.gates.version())?;
    let mut internal = conv.object;
    // The release's internal type holds only the fields the release has.
    crate::api::release::drop_unknown_internal(&mut internal, opts.gates.version());
    if internal.metadata.namespace.is_empty()
        && let Some(ns) = &opts.default_namespace
    {
        internal.metadata.namespace.clone_from(ns);
    }
    Ok((internal, conv.annotation_problems))
}

/// `rest.BeforeCreate` and the strategy's `PrepareForCreate`: status cleared, `generation`
/// set to 1 when `HPAGeneration` is on (1.37 and later; the gate lets a user who sets the
/// generation themselves opt out), `tolerance` dropped while `HPAConfigurableTolerance` is off.
pub fn before_create(hpa: &mut v2::HorizontalPodAutoscaler, gates: &FeatureGates) {
    hpa.metadata.deletion_timestamp = None;
    hpa.metadata.deletion_grace_period_seconds = None;
    hpa.status = Default::default();
    if gates.enabled(Gate::HPAGeneration) {
        hpa.metadata.generation = 1;
    }
    drop_disabled_fields(hpa, gates);
    if hpa.metadata.name.is_empty() && !hpa.metadata.generate_name.is_empty() {
        let name = generated_name(hpa.metadata.generate_name.as_bytes());
        hpa.metadata.name = api::meta::Name::from_bytes(name);
    }
}

/// The longest prefix of a generated name: a name is at most 63 bytes, five of them random
/// (`MaxGeneratedNameLength` of `k8s.io/apiserver/pkg/storage/names`).
const MAX_GENERATED_NAME_PREFIX: usize = 58;

/// `names.SimpleNameGenerator.GenerateName`: `generateName` cut to 58 *bytes* (a Go string
/// slice, which may split a UTF-8 character and leave its first bytes, invalid UTF-8, in the
/// name), then the random suffix ([`GENERATED_NAME_SUFFIX`] here).
fn generated_name(generate_name: &[u8]) -> Vec<u8> {
    let base = generate_name.get(..MAX_GENERATED_NAME_PREFIX).unwrap_or(generate_name);
    [base, GENERATED_NAME_SUFFIX.as_bytes()].concat()
}

/// `rest.BeforeUpdate` and the strategy's `PrepareForUpdate`: `generation` taken from the old
/// object whatever the request says ("Ensure requests cannot update generation", in every
/// release), status kept from the old object, `tolerance` dropped while the gate is off (unless
/// the old object uses one), and with `HPAGeneration` on `generation` bumped past the old one
/// when the spec changed (`apiequality.Semantic.DeepEqual`).
pub fn before_update(new: &mut v2::HorizontalPodAutoscaler, old: &v2::HorizontalPodAutoscaler, gates: &FeatureGates) {
    new.metadata.generation = old.metadata.generation;
    new.status = old.status.clone();
    if !gates.enabled(Gate::HPAConfigurableTolerance) && !uses_tolerance(old) {
        drop_tolerance(new);
    }
    if gates.enabled(Gate::HPAGeneration) && !semantically_equal(&new.spec, &old.spec) {
        new.metadata.generation = old.metadata.generation.saturating_add(1);
    }
    if new.metadata.uid.is_empty() {
        new.metadata.uid.clone_from(&old.metadata.uid);
    }
    if !old.metadata.creation_timestamp.is_zero() {
        new.metadata.creation_timestamp = old.metadata.creation_timestamp;
    }
    if old.metadata.deletion_timestamp.is_some() {
        new.metadata.deletion_timestamp = old.metadata.deletion_timestamp;
    }
    if old.metadata.deletion_grace_period_seconds.is_some() && new.metadata.deletion_grace_period_seconds.is_none() {
        new.metadata.deletion_grace_period_seconds = old.metadata.deletion_grace_period_seconds;
    }
}

/// `apiequality.Semantic.DeepEqual` of two specs: quantities compare by value (their
/// `PartialEq`), and an empty list equals an absent one.
fn semantically_equal(a: &v2::HorizontalPodAutoscalerSpec, b: &v2::HorizontalPodAutoscalerSpec) -> bool {
    fn normalized(spec: &v2::HorizontalPodAutoscalerSpec) -> v2::HorizontalPodAutoscalerSpec {
        let mut spec = spec.clone();
        if let Some(b) = &mut spec.behavior {
            for rules in [&mut b.scale_up, &mut b.scale_down].into_iter().flatten() {
                if rules.policies.as_ref().is_some_and(Vec::is_empty) {
                    rules.policies = None;
                }
            }
        }
        spec
    }
    a == b || normalized(a) == normalized(b)
}

fn uses_tolerance(hpa: &v2::HorizontalPodAutoscaler) -> bool {
    hpa.spec.behavior.as_ref().is_some_and(|b| {
        b.scale_up.as_ref().is_some_and(|r| r.tolerance.is_some())
            || b.scale_down.as_ref().is_some_and(|r| r.tolerance.is_some())
    })
}

/// A field the strategy dropped because its feature gate is off ([`drop_disabled_fields`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DroppedField {
    /// Its path, e.g. `spec.behavior.scaleUp.tolerance`.
    pub path: &'static str,
    /// The gate that is off.
    pub gate: Gate,
}

/// `dropDisabledFields` of the strategy's `PrepareForCreate`: with `HPAConfigurableTolerance`
/// off (1.33 and 1.34 by default), each direction's `tolerance` is dropped. Returns the path of
/// each field it dropped with the gate that is off, for the caller to say so (kube-apiserver
/// drops them silently).
pub fn drop_disabled_fields(hpa: &mut v2::HorizontalPodAutoscaler, gates: &FeatureGates) -> Vec<DroppedField> {
    if gates.enabled(Gate::HPAConfigurableTolerance) {
        return Vec::new();
    }
    let Some(b) = &hpa.spec.behavior else { return Vec::new() };
    let dropped = [
        (b.scale_up.as_ref(), "spec.behavior.scaleUp.tolerance"),
        (b.scale_down.as_ref(), "spec.behavior.scaleDown.tolerance"),
    ]
    .into_iter()
    .filter(|(rules, _)| rules.is_some_and(|r| r.tolerance.is_some()))
    .map(|(_, path)| DroppedField { path, gate: Gate::HPAConfigurableTolerance })
    .collect();
    drop_tolerance(hpa);
    dropped
}

fn drop_tolerance(hpa: &mut v2::HorizontalPodAutoscaler) {
    if let Some(b) = &mut hpa.spec.behavior {
        for rules in [&mut b.scale_up, &mut b.scale_down].into_iter().flatten() {
            rules.tolerance = None;
        }
    }
}

/// `validationOptionsForHorizontalPodAutoscaler`. Before 1.34 the strategy had no apiVersion
/// options and validation checked no apiVersion (#132537 added both): expressed here as
/// `allow_invalid_api_version` on both references.
pub fn spec_options(
    new: &v2::HorizontalPodAutoscaler,
    old: Option<&v2::HorizontalPodAutoscaler>,
    gates: &FeatureGates,
) -> SpecOptions {
    let old_has_zero_min = old.is_some_and(|o| o.spec.min_replicas == Some(0));
    let lower = if gates.enabled(Gate::HPAScaleToZero) || old_has_zero_min { 0 } else { 1 };
    let same_target = old.is_some_and(|o| {
        o.spec.scale_target_ref.api_version == new.spec.scale_target_ref.api_version
            && o.spec.scale_target_ref.kind == new.spec.scale_target_ref.kind
    });
    let old_invalid_object_metrics = old.is_some_and(|o| {
        o.spec.metrics.iter().any(|m| {
            m.type_ == "Object"
                && m.object
                    .as_ref()
                    .is_some_and(|obj| crate::api::GroupVersion::parse(&obj.described_object.api_version).is_err())
        })
    });
    let release = gates.version();
    let checks_api_versions = checks_api_versions(release);
    SpecOptions {
        min_replicas_lower_bound: lower,
        scale_target_ref: RefOptions {
            allow_empty_api_group: new.spec.scale_target_ref.kind == "ReplicationController",
            allow_invalid_api_version: same_target || !checks_api_versions,
        },
        object_metrics: RefOptions {
            allow_empty_api_group: true,
            allow_invalid_api_version: old_invalid_object_metrics || !checks_api_versions,
        },
        release,
    }
}

/// The strategy's `Validate` plus the generic metadata check `BeforeCreate` runs afterwards.
///
/// `rest.BeforeCreate` runs `genericvalidation.ValidateObjectMetaAccessor` with
/// `path.ValidatePathSegmentName` only when the strategy found nothing; the strategy's own
/// `ValidateObjectMeta` ran the same checks then, with `NameIsDNSSubdomain` for the names. So
/// only the names can fail it ([`meta::validate_names`]): a `generateName` is checked as a
/// prefix whose last two bytes the DNS rule masks (`web/-` passes it, not the path rule).
pub fn validate_create(hpa: &v2::HorizontalPodAutoscaler, gates: &FeatureGates) -> ErrorList {
    let opts = spec_options(hpa, None, gates);
    let errs = validation::validate_create(hpa, &opts);
    let errs = declarative_merge(errs, hpa, None, gates);
    if !errs.is_empty() {
        return rendered(errs, gates);
    }
    let meta_errs = meta::validate_names(&hpa.metadata, meta::NameRule::PathSegment, &Path::new("metadata"));
    rendered(meta_errs, gates)
}

/// The errors with their values printed as the release prints them.
fn rendered(mut errs: ErrorList, gates: &FeatureGates) -> ErrorList {
    let rendering = ValueRendering::of(gates.version());
    for e in &mut errs {
        e.rendering = rendering;
    }
    errs
}

/// `validateCommonFields` then the strategy's `ValidateUpdate`.
pub fn validate_update(
    new: &v2::HorizontalPodAutoscaler,
    old: &v2::HorizontalPodAutoscaler,
    gates: &FeatureGates,
) -> ErrorList {
    let meta_path = Path::new("metadata");
    let release = gates.version();
    let mut errs = meta::validate_object_meta(&new.metadata, meta::NameRule::PathSegment, &meta_path, release);
    errs.extend(meta::validate_object_meta_update(&new.metadata, &old.metadata, &meta_path, release));
    let opts = spec_options(new, Some(old), gates);
    let hpa_errs = validation::validate_update(new, old, &opts);
    errs.extend(declarative_merge(hpa_errs, new, Some(old), gates));
    rendered(errs, gates)
}

/// Whether `release` checks that `scaleTargetRef.apiVersion` names an API group and that an
/// Object metric's `describedObject.apiVersion` is well formed (1.34 and later, #130839's
/// `ValidateCrossVersionObjectReference` options in `validation.go`).
pub fn checks_api_versions(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_34
}

/// Whether declarative min/max replica rules are enforced (beta in 1.37 and later).
pub fn declarative_enforced(gates: &FeatureGates) -> bool {
    gates.version() >= KubernetesVersion::V1_37
        && gates.enabled(Gate::DeclarativeValidation)
        && gates.enabled(Gate::DeclarativeValidationBeta)
}

/// The declarative rules on `spec.minReplicas` and `spec.maxReplicas`, with ratcheting: a
/// field whose value did not change on update is not validated again.
pub fn declarative_errors(
    new: &v2::HorizontalPodAutoscaler,
    old: Option<&v2::HorizontalPodAutoscaler>,
    gates: &FeatureGates,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let spec_path = Path::new("spec");
    let min_changed = old.is_none_or(|o| o.spec.min_replicas != new.spec.min_replicas);
    if let (Some(min), true) = (new.spec.min_replicas, min_changed) {
        // The strategy passes the `HPAScaleToZero` option when the gate is on, and on update
        // also when the old object has `minReplicas: 0` (`ValidateUpdate` in strategy.go,
        // kubernetes @ 008b3652, 1.37 cycle).
        let old_zero = old.is_some_and(|o| o.spec.min_replicas == Some(0));
        let bound = if gates.enabled(Gate::HPAScaleToZero) || old_zero { 0 } else { 1 };
        if min < bound {
            errs.push(
                FieldError::invalid(
                    &spec_path.child("minReplicas"),
                    BadValue::Int(i64::from(min)),
                    format!("must be greater than or equal to {bound}"),
                )
                .with_origin("minimum"),
            );
        }
    }
    let max_changed = old.is_none_or(|o| o.spec.max_replicas != new.spec.max_replicas);
    if max_changed {
        let max = new.spec.max_replicas;
        let p = spec_path.child("maxReplicas");
        if max == 0 {
            errs.push(FieldError::required(&p, ""));
        } else if max < 1 {
            errs.push(
                FieldError::invalid(&p, BadValue::Int(i64::from(max)), "must be greater than or equal to 1")
                    .with_origin("minimum"),
            );
        }
    }
    errs
}

/// 1.37: hand-written errors covered by a matching declarative error are replaced by it, and
/// the declarative errors are appended after all others.
fn declarative_merge(
    handwritten: ErrorList,
    new: &v2::HorizontalPodAutoscaler,
    old: Option<&v2::HorizontalPodAutoscaler>,
    gates: &FeatureGates,
) -> ErrorList {
    if !declarative_enforced(gates) {
        return handwritten;
    }
    let declarative = declarative_errors(new, old, gates);
    let mut out: ErrorList = handwritten
        .into_iter()
        .filter(|e| {
            !(e.covered_by_declarative
                && declarative.iter().any(|d| d.kind == e.kind && d.field == e.field && d.origin == e.origin))
        })
        .collect();
    out.extend(declarative);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::hpa_with_scale_up_tolerance as hpa;

    /// The field manager replaces managed fields it cannot decode (or none) with the live
    /// object's, before validation; decodable ones stay for `ValidateManagedFields`.
    #[test]
    fn undecodable_managed_fields_are_replaced_by_the_live_ones() {
        use crate::api::meta::ManagedFieldsEntry;
        let entry = |manager: &str, operation: &str, fields_type: &str| ManagedFieldsEntry {
            manager: manager.into(),
            operation: operation.into(),
            api_version: "autoscaling/v2".into(),
            fields_type: fields_type.into(),
            ..ManagedFieldsEntry::default()
        };
        let live = vec![entry("kubectl", "Update", "FieldsV1")];
        let mut bad = vec![entry("a", "Apply", "FieldsV1"), entry("b", "Bogus", "FieldsV1")];
        keep_decodable_managed_fields(&mut bad, &live);
        assert_eq!(bad, live);
        let mut untyped = vec![entry("a", "Update", "")];
        keep_decodable_managed_fields(&mut untyped, &[]);
        assert!(untyped.is_empty());
        let long = "x".repeat(200);
        let mut kept = vec![entry(&long, "Update", "FieldsV1")];
        keep_decodable_managed_fields(&mut kept, &live);
        assert_eq!(kept, vec![entry(&long, "Update", "FieldsV1")]);
    }

    /// `dedupOwnerReferences`: only a reference equal in every field to an earlier one goes; one
    /// with the same UID and another name stays.
    #[test]
    fn exact_duplicate_owner_references_are_dropped_with_a_warning() {
        use crate::api::meta::OwnerReference;
        let r = |name: &str, uid: &str| OwnerReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: name.into(),
            uid: uid.into(),
            controller: Some(true),
            block_owner_deletion: None,
        };
        let mut refs = vec![r("a", "1"), r("a", "1"), r("b", "1"), r("c", "2"), r("c", "2"), r("a", "1")];
        let warning = dedup_owner_references(&mut refs);
        assert_eq!(refs, vec![r("a", "1"), r("b", "1"), r("c", "2")]);
        assert_eq!(warning, Some(format!("{DUPLICATE_OWNER_REFERENCES_WARNING}1, 2, 1")));
        assert_eq!(dedup_owner_references(&mut refs), None);
    }

    /// 1.33, gate `HPAConfigurableTolerance` off (alpha). `dropDisabledFields` keeps the new
    /// tolerance when the old object uses one (`toleranceInUse`), and
    /// `ValidateHorizontalPodAutoscalerUpdate` validates what is kept as it validates any
    /// tolerance (`validateScalingRules`: `ValidateNonnegativeQuantity` whenever
    /// `rules.Tolerance != nil`; no option or gate guards it, and 1.33's own validation test,
    /// kubernetes@dc1696d8, expects `-0.001` refused without enabling the gate): a negative one
    /// is refused. Where it is dropped (a CREATE, an UPDATE onto an object without one), there
    /// is nothing to refuse.
    #[test]
    fn a_negative_tolerance_kept_with_the_gate_off_is_refused() {
        let opts =
            AdmissionOptions { gates: FeatureGates::new(KubernetesVersion::V1_33), ..AdmissionOptions::default() };
        let messages = |outcome: Outcome| outcome.errors.iter().map(ToString::to_string).collect::<Vec<_>>();
        let update = admit(&hpa(Some("-0.05")), Some(&hpa(Some("0.1"))), Operation::Update, &opts).unwrap();
        assert_eq!(
            messages(update),
            ["spec.behavior.scaleUp.tolerance: Invalid value: \"-50m\": must be greater than or equal to 0"]
        );
        for (old, operation) in [(None, Operation::Create), (Some(hpa(None)), Operation::Update)] {
            let outcome = admit(&hpa(Some("-0.05")), old.as_ref(), operation, &opts).unwrap();
            assert!(!uses_tolerance(&outcome.object), "{operation:?}");
            assert_eq!(messages(outcome), Vec::<String>::new(), "{operation:?}");
        }
    }

    /// `BeforeCreate`'s generic metadata check, after the strategy's passed: a `generateName`
    /// whose last two bytes `NameIsDNSSubdomain` masks is refused by the path rule alone, with
    /// a name given or generated (from its first 58 characters, the `%` cut off).
    #[test]
    fn a_generate_name_the_dns_rule_masks_is_refused_by_the_path_rule() {
        let opts = AdmissionOptions::default();
        let long = format!("{}%-", "a".repeat(58));
        for (name, generate_name, refused) in
            [("web", "a/-", "may not contain '/'"), ("", long.as_str(), "may not contain '%'")]
        {
            let mut object = hpa(None);
            object.metadata_mut().name = name.into();
            object.metadata_mut().generate_name = generate_name.into();
            let outcome = admit(&object, None, Operation::Create, &opts).unwrap();
            let messages: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
            assert_eq!(messages, [format!("metadata.generateName: Invalid value: \"{generate_name}\": {refused}")]);
        }
        // 58 bytes: a prefix of multi-byte characters keeps 29 of its 30 `é`.
        let mut object = hpa(None);
        object.metadata_mut().name = Default::default();
        object.metadata_mut().generate_name = format!("{}-", "\u{e9}".repeat(30));
        let outcome = admit(&object, None, Operation::Create, &opts).unwrap();
        assert_eq!(outcome.name(), format!("{}xxxxx", "\u{e9}".repeat(29)));
        assert_eq!(outcome.object.metadata.name.invalid_utf8(), None);
        // A name and a prefix of the DNS rule pass the path rule too.
        let mut object = hpa(None);
        object.metadata_mut().generate_name = "web-".into();
        assert_eq!(admit(&object, None, Operation::Create, &opts).unwrap().errors, Vec::new());
    }

    /// `names.SimpleNameGenerator` cuts `generateName` at 58 bytes, here inside the `é` that
    /// follows 57 `a`: its first byte stays in the name, invalid UTF-8, which `%q` prints as
    /// `\xc3` in the field error (a Go `string`: `%q` in 1.33 and from 1.34 alike) and in the
    /// status message (`errors.NewInvalid`).
    #[test]
    fn a_generated_name_cut_inside_a_character_keeps_the_invalid_byte() {
        let generate_name = format!("{}\u{e9}-", "a".repeat(57));
        let name = format!("{}\\xc3xxxxx", "a".repeat(57));
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', \
                         and must start and end with an alphanumeric character (e.g. 'example.com', regex used for \
                         validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        for version in [KubernetesVersion::V1_33, KubernetesVersion::V1_34, KubernetesVersion::V1_38] {
            let opts = AdmissionOptions { gates: FeatureGates::new(version), ..AdmissionOptions::default() };
            let mut object = hpa(None);
            object.metadata_mut().name = Default::default();
            object.metadata_mut().generate_name.clone_from(&generate_name);
            let outcome = admit(&object, None, Operation::Create, &opts).unwrap();
            let mut bytes = "a".repeat(57).into_bytes();
            bytes.extend(b"\xc3xxxxx");
            assert_eq!(outcome.object.metadata.name.as_bytes(), bytes.as_slice(), "{version}");
            assert_eq!(outcome.name(), format!("{}\u{fffd}xxxxx", "a".repeat(57)), "{version}");
            let messages: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
            assert_eq!(
                messages,
                [
                    format!("metadata.generateName: Invalid value: \"{generate_name}\": {subdomain}"),
                    format!("metadata.name: Invalid value: \"{name}\": {subdomain}"),
                ],
                "{version}"
            );
            assert_eq!(
                outcome.status_message().unwrap(),
                format!(
                    "HorizontalPodAutoscaler.autoscaling \"{name}\" is invalid: [{}, {}]",
                    messages[0], messages[1]
                ),
                "{version}"
            );
        }
    }
}
