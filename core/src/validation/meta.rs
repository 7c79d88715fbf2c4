//! `metadata` validation on create and update.
//!
//! Mirrors `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`
//! (`ValidateObjectMetaAccessor`, `ValidateObjectMetaAccessorUpdate`, annotations, owner
//! references, finalizers), `pkg/apis/meta/v1/validation` (labels, label selectors, managed
//! fields) and the finalizer checks `k8s.io/kubernetes/pkg/apis/core/validation` adds on top.
//! Go iterates label and annotation maps in random order; here they are sorted by key.

use std::collections::BTreeMap;

use crate::api::meta::{LabelSelector, ObjectMeta, OwnerReference};
use crate::features::KubernetesVersion;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::go;

use super::names;

/// `TotalAnnotationSizeLimitB`: 256 KiB.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Which name rule `metadata.name` must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain` (the HPA's own rule).
    DnsSubdomain,
    /// `path.ValidatePathSegmentName` (the generic rule run on every update).
    PathSegment,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::DnsSubdomain => names::name_is_dns_subdomain(name, prefix),
            NameRule::PathSegment => names::path_segment_name_or_prefix(name, prefix),
        }
    }
}

/// apimachinery `ValidateObjectMetaAccessor` for a namespaced object, with the messages of
/// `release`.
pub fn validate_object_meta(
    meta: &ObjectMeta,
    rule: NameRule,
    path: &Path<'_>,
    release: KubernetesVersion,
) -> ErrorList {
    let mut errs = validate_names(meta, rule, path);
    errs.extend(validate_common(meta, path, release));
    errs
}

/// The part of [`validate_object_meta`] its name rule decides: `generateName` (as a prefix)
/// and `name` by `rule` (`name` required). The rest of it is the same whatever the rule.
pub fn validate_names(meta: &ObjectMeta, rule: NameRule, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    if !meta.generate_name.is_empty() {
        let p = path.child("generateName");
        for msg in rule.check(&meta.generate_name, true) {
            errs.push(FieldError::invalid(&p, BadValue::Str(meta.generate_name.clone()), msg));
        }
    }
    let name_path = path.child("name");
    if meta.name.is_empty() {
        errs.push(FieldError::required(&name_path, "name or generateName is required"));
    } else {
        let value = || match meta.name.invalid_utf8() {
            Some(bytes) => BadValue::Bytes(bytes.to_vec()),
            None => BadValue::Str(meta.name.to_string()),
        };
        for msg in rule.check(&meta.name, false) {
            errs.push(FieldError::invalid(&name_path, value(), msg));
        }
    }
    errs
}

/// `validateObjectMetaAccessorWithOptsCommon` for a namespaced object.
fn validate_common(meta: &ObjectMeta, path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = ErrorList::new();
    let ns = path.child("namespace");
    if meta.namespace.is_empty() {
        errs.push(FieldError::required(&ns, ""));
    } else {
        for msg in names::name_is_dns_label(&meta.namespace, false) {
            errs.push(FieldError::invalid(&ns, BadValue::Str(meta.namespace.clone()), msg));
        }
    }
    if meta.generation < 0 {
        errs.push(FieldError::invalid(
            &path.child("generation"),
            BadValue::Int(meta.generation),
            "must be greater than or equal to 0",
        ));
    }
    errs.extend(validate_labels(meta, path, release));
    errs.extend(validate_annotations(meta, path, release));
    errs.extend(validate_owner_references(&meta.owner_references, &path.child("ownerReferences"), release));
    errs.extend(validate_finalizers(&meta.finalizers, &path.child("finalizers"), release));
    errs.extend(validate_managed_fields(meta, &path.child("managedFields")));
    errs
}

/// `ValidateLabels` of `metadata.labels`.
fn validate_labels(meta: &ObjectMeta, path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    validate_label_map(&meta.labels, &path.child("labels"), release)
}

/// `ValidateLabels` (apimachinery `pkg/apis/meta/v1/validation`): one error per bad key
/// (`ValidateLabelName`) or value, each reported on the map's path.
pub fn validate_label_map(labels: &BTreeMap<String, String>, p: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = ErrorList::new();
    for (k, v) in labels {
        errs.extend(validate_label_name(k, p, release));
        for msg in names::label_value(v, release) {
            errs.push(FieldError::invalid(p, BadValue::Str(v.clone()), msg));
        }
    }
    errs
}

/// `ValidateLabelName`: a label key is a qualified name.
fn validate_label_name(key: &str, p: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    names::qualified_name(key, release)
        .into_iter()
        .map(|msg| FieldError::invalid(p, BadValue::Str(key.into()), msg))
        .collect()
}

/// `ValidateLabelSelector` (apimachinery `pkg/apis/meta/v1/validation`, with
/// `AllowInvalidLabelValueInSelector` off): `matchLabels` as labels, and each requirement's
/// operator, values (`ValidateLabelSelectorRequirement`) and key.
pub fn validate_label_selector(selector: &LabelSelector, path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = validate_label_map(&selector.match_labels, &path.child("matchLabels"), release);
    let expressions = path.child("matchExpressions");
    for (i, r) in selector.match_expressions.iter().enumerate() {
        let at = expressions.index(i);
        let values = at.child("values");
        match r.operator.as_str() {
            "In" | "NotIn" if r.values.is_empty() => {
                errs.push(FieldError::required(&values, "must be specified when `operator` is 'In' or 'NotIn'"));
            }
            "Exists" | "DoesNotExist" if !r.values.is_empty() => {
                errs.push(FieldError::forbidden(
                    &values,
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                ));
            }
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            // `metav1.LabelSelectorOperator`, a named string type: JSON from 1.34 (`"i\u003cn"`).
            other => errs.push(FieldError::invalid(
                &at.child("operator"),
                BadValue::named(other),
                "not a valid selector operator",
            )),
        }
        errs.extend(validate_label_name(&r.key, &at.child("key"), release));
        for (j, v) in r.values.iter().enumerate() {
            for msg in names::label_value(v, release) {
                errs.push(FieldError::invalid(&values.index(j), BadValue::Str(v.clone()), msg));
            }
        }
    }
    errs
}

/// `ValidateAnnotations` of `metadata.annotations`.
fn validate_annotations(meta: &ObjectMeta, path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let total: usize = meta.annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    validate_annotation_keys(
        meta.annotations.keys().map(String::as_str),
        total > TOTAL_ANNOTATION_SIZE_LIMIT,
        &path.child("annotations"),
        release,
    )
}

/// `ValidateAnnotations` (apimachinery `pkg/api/validation`) of annotations at `p`, from their
/// keys in order and whether their total size (keys and values) exceeds 256 KiB
/// ([`TOTAL_ANNOTATION_SIZE_LIMIT`]): a key is a qualified name (compared lowercased), one error
/// per message (lowercased as Go's `strings.ToLower` does: [`go::to_lower`]); then
/// `field.TooLong`.
pub fn validate_annotation_keys<'k>(
    keys: impl IntoIterator<Item = &'k str>,
    too_long: bool,
    p: &Path<'_>,
    release: KubernetesVersion,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for k in keys {
        for msg in names::qualified_name(&go::to_lower(k), release) {
            errs.push(FieldError::invalid(p, BadValue::Str(k.to_string()), msg).with_origin("format=k8s-label-key"));
        }
    }
    if too_long {
        errs.push(FieldError::too_long(p, TOTAL_ANNOTATION_SIZE_LIMIT));
    }
    errs
}

/// An owner reference as a field error value: its JSON, and Go's `%#v` of the
/// `metav1.OwnerReference` (a set `controller` or `blockOwnerDeletion` is a `*bool`, which Go
/// prints as a heap address; [`go::POINTER_PLACEHOLDER`] stands in for it).
fn owner_reference_value(r: &OwnerReference) -> BadValue {
    BadValue::Composite {
        json: go::to_go_json(r).unwrap_or_else(|_| "{}".to_string()),
        go_syntax: owner_reference_go(r),
    }
}

fn owner_reference_go(r: &OwnerReference) -> String {
    let ptr = |b: Option<bool>| {
        if b.is_some() { format!("(*bool)({})", go::POINTER_PLACEHOLDER) } else { "(*bool)(nil)".to_string() }
    };
    format!(
        "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, BlockOwnerDeletion:{}}}",
        go::quote(&r.api_version),
        go::quote(&r.kind),
        go::quote(&r.name),
        go::quote(&r.uid),
        ptr(r.controller),
        ptr(r.block_owner_deletion),
    )
}

/// A `[]string` as a field error value.
fn string_list_value(list: &[String]) -> BadValue {
    let items: Vec<String> = list.iter().map(|s| go::quote(s)).collect();
    BadValue::Composite {
        json: go::to_go_json(list).unwrap_or_default(),
        go_syntax: format!("[]string{{{}}}", items.join(", ")),
    }
}

/// `ValidateOwnerReferences`. Up to 1.33 the empty-field details name the field ("kind must not
/// be empty"); from 1.34 they do not.
fn validate_owner_references(refs: &[OwnerReference], path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = |field: &str| {
        if release <= KubernetesVersion::V1_33 {
            format!("{field} must not be empty")
        } else {
            "must not be empty".to_string()
        }
    };
    let mut first_controller: Option<String> = None;
    for r in refs {
        // schema.FromAPIVersionAndKind: an unparsable apiVersion gives an empty group/version.
        let gv = crate::api::GroupVersion::parse_or_empty(&r.api_version);
        let (group, version) = (gv.group(), gv.version());
        if version.is_empty() {
            errs.push(FieldError::invalid(
                &path.child("apiVersion"),
                BadValue::Str(r.api_version.clone()),
                "version must not be empty",
            ));
        }
        if r.kind.is_empty() {
            errs.push(FieldError::invalid(&path.child("kind"), BadValue::Str(r.kind.clone()), empty("kind")));
        }
        if r.name.is_empty() {
            errs.push(FieldError::invalid(&path.child("name"), BadValue::Str(r.name.clone()), empty("name")));
        }
        if r.uid.is_empty() {
            errs.push(FieldError::invalid(&path.child("uid"), BadValue::named(&r.uid), empty("uid")));
        }
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(FieldError::invalid(
                path,
                owner_reference_value(r),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    path,
                    BadValue::Composite {
                        json: go::to_go_json(refs).unwrap_or_default(),
                        go_syntax: format!(
                            "[]v1.OwnerReference{{{}}}",
                            refs.iter().map(owner_reference_go).collect::<Vec<_>>().join(", ")
                        ),
                    },
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    ),
                )),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// `ValidateFinalizers` (apimachinery): qualified names, not both orphan and foregroundDeletion.
fn validate_finalizers(finalizers: &[String], path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = ErrorList::new();
    for f in finalizers {
        for msg in names::qualified_name(f, release) {
            errs.push(FieldError::invalid(path, BadValue::Str(f.clone()), msg));
        }
    }
    if finalizers.iter().any(|f| f == "orphan") && finalizers.iter().any(|f| f == "foregroundDeletion") {
        errs.push(FieldError::invalid(
            path,
            string_list_value(finalizers),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

/// The finalizer check `pkg/apis/core/validation` adds to the generic ones
/// (`ValidateObjectMeta`/`ValidateObjectMetaUpdate` call `validateKubeFinalizerName` for each
/// finalizer, at its index): a name without a `/` must be one of the standard finalizers. It
/// checks nothing else: a malformed name is reported once, without an index, by
/// `validate_finalizers` (apimachinery's `ValidateFinalizers`), and a name without a `/` that is
/// also malformed (`bad name`) gets both errors.
pub fn validate_kube_finalizers(finalizers: &[String], path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, f) in finalizers.iter().enumerate() {
        // `len(strings.Split(stringValue, "/")) == 1` and `!helper.IsStandardFinalizerName`.
        if !f.contains('/') && !matches!(f.as_str(), "kubernetes" | "orphan" | "foregroundDeletion") {
            errs.push(FieldError::invalid(
                &path.index(i),
                BadValue::Str(f.clone()),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
    errs
}

/// `ValidateManagedFields`.
fn validate_managed_fields(meta: &ObjectMeta, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, entry) in meta.managed_fields.iter().enumerate() {
        let p = path.index(i);
        if !matches!(entry.operation.as_str(), "Apply" | "Update") {
            errs.push(FieldError::invalid(
                &p.child("operation"),
                BadValue::named(&entry.operation),
                "must be `Apply` or `Update`",
            ));
        }
        if !entry.fields_type.is_empty() && entry.fields_type != "FieldsV1" {
            errs.push(FieldError::invalid(
                &p.child("fieldsType"),
                BadValue::Str(entry.fields_type.clone()),
                "must be `FieldsV1`",
            ));
        }
        let manager = p.child("manager");
        if entry.manager.len() > 128 {
            errs.push(FieldError::too_long(&manager, 128));
        }
        for (pos, c) in entry.manager.char_indices() {
            if !go::is_print(c) {
                errs.push(FieldError::invalid(
                    &manager,
                    BadValue::Str(entry.manager.clone()),
                    format!("invalid character U+{:04X} (at position {pos})", c as u32),
                ));
            }
        }
        if entry.subresource.len() > 256 {
            errs.push(FieldError::too_long(&p.child("subresource"), 256));
        }
    }
    errs
}

/// apimachinery `ValidateObjectMetaAccessorUpdate`, with the messages of `release`.
pub fn validate_object_meta_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &Path<'_>,
    release: KubernetesVersion,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if old.deletion_timestamp.is_some() {
        let extra: std::collections::BTreeSet<&String> =
            new.finalizers.iter().filter(|f| !old.finalizers.contains(f)).collect();
        if !extra.is_empty() {
            let list: Vec<String> = extra.iter().map(|f| go::quote(f)).collect();
            errs.push(FieldError::forbidden(
                &path.child("finalizers"),
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    list.join(", ")
                ),
            ));
        }
    }
    if new.resource_version.is_empty() {
        errs.push(FieldError::invalid(
            &path.child("resourceVersion"),
            BadValue::Str(new.resource_version.clone()),
            "must be specified for an update",
        ));
    }
    if new.generation < old.generation {
        errs.push(FieldError::invalid(
            &path.child("generation"),
            BadValue::Int(new.generation),
            "must not be decremented",
        ));
    }
    const IMMUTABLE: &str = "field is immutable";
    if new.name != old.name {
        errs.push(FieldError::invalid(&path.child("name"), BadValue::Str(new.name.to_string()), IMMUTABLE));
    }
    if new.namespace != old.namespace {
        errs.push(FieldError::invalid(&path.child("namespace"), BadValue::Str(new.namespace.clone()), IMMUTABLE));
    }
    if new.uid != old.uid {
        errs.push(FieldError::invalid(&path.child("uid"), BadValue::named(&new.uid), IMMUTABLE));
    }
    if new.creation_timestamp != old.creation_timestamp {
        errs.push(FieldError::invalid(
            &path.child("creationTimestamp"),
            BadValue::Time(new.creation_timestamp),
            IMMUTABLE,
        ));
    }
    if new.deletion_timestamp != old.deletion_timestamp {
        let v = new.deletion_timestamp.map_or(BadValue::Null, BadValue::Time);
        errs.push(FieldError::invalid(&path.child("deletionTimestamp"), v, IMMUTABLE));
    }
    if new.deletion_grace_period_seconds != old.deletion_grace_period_seconds {
        let v = match new.deletion_grace_period_seconds {
            Some(s) => BadValue::Int(s),
            None => BadValue::Null,
        };
        errs.push(FieldError::invalid(&path.child("deletionGracePeriodSeconds"), v, IMMUTABLE));
    }
    errs.extend(validate_labels(new, path, release));
    errs.extend(validate_annotations(new, path, release));
    errs.extend(validate_owner_references(&new.owner_references, &path.child("ownerReferences"), release));
    errs.extend(validate_managed_fields(new, &path.child("managedFields")));
    errs
}
