//! `metav1` types shared by every API version: `ObjectMeta`, `LabelSelector`, references.
//!
//! Field order and `omitempty` follow `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::de::is_zero_i64;
use super::decode::{Abort, Decode, Decoder, GoType, Kind, Shape, Source};
use super::time::Time;
use crate::go;

/// `metav1.ObjectMeta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `name`, as kube-apiserver holds it: bytes, which only a generated name can leave
    /// invalid UTF-8 ([`Name`]).
    #[serde(skip_serializing_if = "Name::is_empty")]
    pub name: Name,
    /// `generateName`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    /// `namespace`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// `selfLink`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub self_link: String,
    #[go(type = "types.UID")]
    /// `uid`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// `resourceVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    /// `generation`
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    /// `creationTimestamp` (zero time omitted)
    #[serde(skip_serializing_if = "Time::is_zero")]
    pub creation_timestamp: Time,
    /// `deletionTimestamp`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    /// `deletionGracePeriodSeconds`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `labels`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `annotations`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// `ownerReferences`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    /// `finalizers`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// `managedFields`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

/// An object's name as kube-apiserver holds it: a Go string, bytes that need not be valid
/// UTF-8, which only a generated name can be (`names.SimpleNameGenerator` cuts `generateName`
/// at 58 bytes, possibly inside a character: [`crate::admission::before_create`]).
///
/// One value with two views: the bytes ([`Name::as_bytes`]; [`Name::quoted`] as `%q` prints
/// them, an invalid byte as `\xNN`), and the text as Go reads it rune by rune, each invalid
/// byte a U+FFFD ([`go::lossy`]): [`Name::as_str`], its `Deref`, `Display` and serialization,
/// which is what `encoding/json` writes. A name read from JSON or YAML is always UTF-8.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Name(NameBytes);

/// The two forms of a [`Name`], private so that the lossy text of invalid bytes is always
/// theirs.
#[derive(Clone, PartialEq, Eq, Hash)]
enum NameBytes {
    /// Valid UTF-8: the text is the bytes.
    Utf8(String),
    /// Invalid UTF-8: the bytes, and their text as Go reads it ([`go::lossy`]).
    Invalid { bytes: Box<[u8]>, lossy: String },
}

impl Default for NameBytes {
    fn default() -> Self {
        NameBytes::Utf8(String::new())
    }
}

impl Name {
    /// The name of these Go string bytes, which need not be valid UTF-8.
    pub fn from_bytes(bytes: Vec<u8>) -> Name {
        match String::from_utf8(bytes) {
            Ok(text) => Name(NameBytes::Utf8(text)),
            Err(e) => {
                let bytes = e.into_bytes().into_boxed_slice();
                let lossy = go::lossy(&bytes);
                Name(NameBytes::Invalid { bytes, lossy })
            }
        }
    }

    /// The name as Go reads it rune by rune: its text, each invalid byte a U+FFFD.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            NameBytes::Utf8(text) => text,
            NameBytes::Invalid { lossy, .. } => lossy,
        }
    }

    /// The name's bytes, as kube-apiserver holds them.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            NameBytes::Utf8(text) => text.as_bytes(),
            NameBytes::Invalid { bytes, .. } => bytes,
        }
    }

    /// Whether the name is empty (not written, not generated yet).
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// The bytes, when they are not valid UTF-8 (then [`Name::as_str`] is not them).
    pub fn invalid_utf8(&self) -> Option<&[u8]> {
        match &self.0 {
            NameBytes::Utf8(_) => None,
            NameBytes::Invalid { bytes, .. } => Some(bytes),
        }
    }

    /// The name as `%q` prints it (`strconv.Quote`, an invalid byte as `\xNN`).
    pub fn quoted(&self) -> String {
        go::quote_bytes(self.as_bytes())
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// Names sort by their text ([`Name::as_str`]), then by their bytes.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str()).then_with(|| self.as_bytes().cmp(other.as_bytes()))
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            NameBytes::Utf8(text) => std::fmt::Debug::fmt(text, f),
            NameBytes::Invalid { bytes, .. } => write!(f, "Name({})", go::quote_bytes(bytes)),
        }
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name(NameBytes::Utf8(text))
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name(NameBytes::Utf8(text.to_string()))
    }
}

/// A name and a text compare in Go's reading of the name ([`Name::as_str`]), as the text of a
/// name read back from JSON would.
impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self == *other.as_str()
    }
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Decode for Name {
    fn go_type(package: &str) -> String {
        String::go_type(package)
    }

    fn shape() -> Shape {
        String::shape()
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        // As a `string`: `null` leaves the name as it is (`literalStore`), a string replaces it.
        match &mut self.0 {
            NameBytes::Utf8(text) => text.decode(d, ty),
            NameBytes::Invalid { .. } if d.peek()? == Kind::Null => d.skip(),
            NameBytes::Invalid { .. } => {
                self.0 = NameBytes::default();
                self.decode(d, ty)
            }
        }
    }
}

/// cli-runtime's `metadataOnlyObject` (`pkg/resource/metadata_decoder.go`): `metav1.TypeMeta`
/// inline and `metav1.ObjectMeta` as `metadata`, what kubectl decodes each object of a file
/// into before it sends anything (`metadataValidatingDecoder`), refusing the file when that
/// fails.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "resource", name = "metadataOnlyObject", rename_all = "camelCase")]
pub struct MetadataOnlyObject {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `metadata`
    pub metadata: ObjectMeta,
}

/// `metav1.OwnerReference`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `name`
    pub name: String,
    #[go(type = "types.UID")]
    /// `uid`
    pub uid: String,
    /// `controller`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// `metav1.ManagedFieldsEntry`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// `manager`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub manager: String,
    #[go(type = "ManagedFieldsOperationType")]
    /// `operation`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operation: String,
    /// `apiVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// `time`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// `fieldsType`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fields_type: String,
    /// `fieldsV1`: the managed-fields set, kept as the JSON text it was written in.
    #[serde(rename = "fieldsV1", skip_serializing_if = "Option::is_none")]
    pub fields_v1: Option<FieldsV1>,
    /// `subresource`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

/// `metav1.FieldsV1`: a managed-fields set kept as raw JSON text, as kube-apiserver keeps it
/// (`FieldsV1.Raw`), never decoded into a tree.
///
/// Decoding mirrors `FieldsV1.UnmarshalJSON`: any JSON value is taken as its text (an object, but
/// also a string or an array: neither decoding nor `ValidateManagedFields` looks inside), and
/// `null` leaves it unset (a `*FieldsV1` becomes nil). From YAML it is the JSON the node stands
/// for. Serializing mirrors `FieldsV1.MarshalJSON` under `encoding/json`, which compacts a
/// marshaler's output with HTML-safe escaping: the text without insignificant whitespace, key
/// order, duplicates and number spellings kept. The text is shared, so cloning an object that
/// holds one copies no managed fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldsV1 {
    raw: Arc<str>,
}

impl FieldsV1 {
    /// A set from its JSON text, as `FieldsV1.UnmarshalJSON` receives it (not checked here: the
    /// decoder hands over only well-formed JSON).
    pub fn from_raw(raw: impl Into<Arc<str>>) -> FieldsV1 {
        FieldsV1 { raw: raw.into() }
    }

    /// The JSON text as it was written (`FieldsV1.Raw`); empty when never set.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The set as a JSON tree, for a reader that walks it (`None` when the text is empty), read
    /// as `encoding/json` reads it into an `interface{}` (a lone surrogate escape is U+FFFD:
    /// [`go::parse_tree`]).
    pub fn to_value(&self) -> Option<serde_json::Value> {
        go::parse_tree(&self.raw).ok()
    }

    /// The text `encoding/json` writes for it (`MarshalJSON`, then `compact` with HTML escaping):
    /// `null` when unset.
    pub fn to_json(&self) -> String {
        if self.raw.is_empty() {
            return "null".into();
        }
        go::compact(&self.raw)
    }
}

impl Serialize for FieldsV1 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_string(self.to_json()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// `matchLabels`
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Decode)]
#[go(package = "v1")]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    /// `key`
    pub key: String,
    #[go(type = "LabelSelectorOperator")]
    /// `operator`
    pub operator: String,
    /// `values`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `CrossVersionObjectReference` (identical in every autoscaling version).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    /// `kind`
    pub kind: String,
    /// `name`
    pub name: String,
    /// `apiVersion`
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
}

/// `selection.Operator` (`k8s.io/apimachinery/pkg/selection`): how a label requirement
/// compares a label's value. A `LabelSelector` speaks four of them
/// ([`SelectionOperator::of_label_selector`]) and its `matchLabels` are `Equals`; a selector
/// parsed from text (`labels.Parse`) may use all nine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionOperator {
    /// `in`
    In,
    /// `notin`
    NotIn,
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
    /// `exists` (a bare key in text)
    Exists,
    /// `!` (`!key` in text)
    DoesNotExist,
    /// `gt` (`>` in text)
    GreaterThan,
    /// `lt` (`<` in text)
    LessThan,
}

// === impl LabelSelector ===

impl LabelSelector {
    /// Whether the selector selects a label set: `metav1.LabelSelectorAsSelector(s)` then
    /// `Selector.Matches` (`k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`,
    /// `pkg/labels/selector.go`). An empty selector selects everything. The toolkit's one
    /// label-selector matcher: rules, the webhook's policy and hpa-cluster all call it.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matches_by(|key| labels.get(key).map(String::as_str))
    }

    /// The selector as text: `metav1.LabelSelectorAsSelector(s).String()`, what the API server
    /// writes in a scale's `status.selector` and the HPA controller sends as a metric selector
    /// (`k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`, `pkg/labels/selector.go`), the same
    /// in 1.33 to 1.38:
    ///
    /// - `matchLabels` are `Equals` requirements, `key=value`; then the expressions, `In` and
    ///   `NotIn` as `key in (a,b)` and `key notin (a,b)`, `Exists` as `key`, `DoesNotExist` as
    ///   `!key`;
    /// - `Requirement.String` sorts several values (`safeSort`) but keeps duplicates:
    ///   `NewRequirement` keeps the slice it is given (a copy of `values`), only `labels.Parse`
    ///   reads values into a set;
    /// - `internalSelector.Add` sorts the requirements by key with `sort.Sort`, which for a dozen
    ///   requirements or fewer is an insertion sort, stable: with one key in `matchLabels` and in
    ///   an expression, `matchLabels` first. (Past a dozen, Go's pdqsort may order requirements
    ///   of one key otherwise.)
    /// - empty for an empty selector (`Everything`) as for none (`Nothing`).
    ///
    /// A selector read from text ([`labels::parse`](super::labels::parse)) may also hold `Gt`
    /// and `Lt`, written `key>1` and `key<1` as `Requirement.String` writes them. An operator
    /// `LabelSelectorAsSelector` refuses has no text upstream (the controller stops at the
    /// error, [`as_selector_error`](Self::as_selector_error)); it is written `key Op (values)`.
    pub fn format(&self) -> String {
        use super::labels::{requirement_text, selector_text};
        let labels = self
            .match_labels
            .iter()
            .map(|(k, v)| (k.as_str(), requirement_text(k, SelectionOperator::Equals, std::slice::from_ref(v))));
        let expressions = self.match_expressions.iter().map(|r| {
            let operator = match r.operator.as_str() {
                "Gt" => Some(SelectionOperator::GreaterThan),
                "Lt" => Some(SelectionOperator::LessThan),
                other => SelectionOperator::of_label_selector(other),
            };
            let text = match operator {
                Some(operator) => requirement_text(&r.key, operator, &r.values),
                None => {
                    let mut values: Vec<&str> = r.values.iter().map(String::as_str).collect();
                    values.sort_unstable();
                    format!("{} {} ({})", r.key, r.operator, values.join(","))
                }
            };
            (r.key.as_str(), text)
        });
        selector_text(labels.chain(expressions))
    }

    /// Why `metav1.LabelSelectorAsSelector` refuses the selector, in its words as `release`
    /// writes them (`k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`, each requirement through
    /// `labels.NewRequirement`: the key a label key, each value a label value, `In`/`NotIn` with
    /// values, `Exists`/`DoesNotExist` without; an operator that is none of the four), the
    /// requirement's errors aggregated; `None` when it converts. `matchLabels` come first, in
    /// key order (Go ranges over a map, so with several bad pairs its first is any of them), then
    /// the expressions in order; the first bad requirement is the error.
    pub fn as_selector_error(&self, release: crate::features::KubernetesVersion) -> Option<String> {
        for (k, v) in &self.match_labels {
            let errs = requirement_errors(k, SelectionOperator::Equals, std::slice::from_ref(v), release);
            if !errs.is_empty() {
                return Some(crate::field::aggregate_message(&errs));
            }
        }
        for r in &self.match_expressions {
            let Some(operator) = SelectionOperator::of_label_selector(&r.operator) else {
                return Some(format!("{} is not a valid label selector operator", go::quote(&r.operator)));
            };
            let errs = requirement_errors(&r.key, operator, &r.values, release);
            if !errs.is_empty() {
                return Some(crate::field::aggregate_message(&errs));
            }
        }
        None
    }

    /// [`matches`](Self::matches) over labels looked up by key (the webhook's policy adds the
    /// `kubernetes.io/metadata.name` label of a namespace this way).
    ///
    /// `matchLabels` are `Equals` requirements; `In`, `NotIn`, `Exists` and `DoesNotExist`
    /// are as `Requirement.Matches`; `Gt` and `Lt` (which only a parsed text selector, such as
    /// a scale's `status.selector`, carries) compare one integer value. An unknown operator
    /// makes `LabelSelectorAsSelector` fail, and a selector that does not convert selects
    /// nothing.
    pub fn matches_by<'a>(&self, label: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.match_labels.iter().all(|(k, v)| label(k) == Some(v.as_str()))
            && self.match_expressions.iter().all(|r| {
                let value = label(&r.key);
                let listed = |v: &str| r.values.iter().any(|x| x == v);
                // `Requirement.Matches` for `gt`/`lt`: both sides parse as int64.
                let compare = |ordering: std::cmp::Ordering| {
                    let parse = |v: &str| v.parse::<i64>().ok();
                    match (value.and_then(parse), r.values.first().and_then(|v| parse(v))) {
                        (Some(have), Some(want)) if r.values.len() == 1 => have.cmp(&want) == ordering,
                        _ => false,
                    }
                };
                match r.operator.as_str() {
                    "In" => value.is_some_and(listed),
                    "NotIn" => value.is_none_or(|v| !listed(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    "Gt" => compare(std::cmp::Ordering::Greater),
                    "Lt" => compare(std::cmp::Ordering::Less),
                    _ => false,
                }
            })
    }
}

// === impl SelectionOperator ===

impl SelectionOperator {
    /// The operator a `metav1.LabelSelectorOperator` stands for, as `LabelSelectorAsSelector`
    /// switches on it: `In`, `NotIn`, `Exists` and `DoesNotExist`; `None` for any other, which
    /// it refuses (`"Gt" is not a valid label selector operator`).
    pub fn of_label_selector(operator: &str) -> Option<SelectionOperator> {
        Some(match operator {
            "In" => SelectionOperator::In,
            "NotIn" => SelectionOperator::NotIn,
            "Exists" => SelectionOperator::Exists,
            "DoesNotExist" => SelectionOperator::DoesNotExist,
            _ => return None,
        })
    }
}

/// `validateLabelKey` (`k8s.io/apimachinery/pkg/labels/selector.go`): the error of a
/// requirement's key that is not a qualified name, at `path`, in `release`'s words. `None` for
/// the path is Go's nil `*field.Path`, which prints as `<nil>`: `labels.Parse` checks the keys
/// it reads that way (`<nil>: Invalid value: "a b": name part must consist of ...`).
pub fn label_key_error(
    key: &str,
    path: Option<&crate::field::Path<'_>>,
    release: crate::features::KubernetesVersion,
) -> Option<crate::field::FieldError> {
    use crate::field::{BadValue, FieldError, Path, ValueRendering};
    let problems = crate::validation::names::qualified_name(key, release);
    if problems.is_empty() {
        return None;
    }
    let error =
        FieldError::invalid(path.unwrap_or(&Path::new("<nil>")), BadValue::Str(key.to_string()), problems.join("; "));
    Some(FieldError { rendering: ValueRendering::of(release), ..error })
}

/// `labels.NewRequirement` (`k8s.io/apimachinery/pkg/labels/selector.go`) with no path: why a
/// requirement is refused, every error in its order (the key a qualified name; `In`/`NotIn`
/// with values; `Equals`/`DoubleEquals`/`NotEquals` and `GreaterThan`/`LessThan` with exactly
/// one, the latter an `int64`; `Exists`/`DoesNotExist` without; then each value a label value),
/// in `release`'s words. Empty when the requirement stands; upstream returns the list as one
/// aggregate error ([`aggregate_message`](crate::field::aggregate_message)). The one copy of
/// these checks: [`LabelSelector::as_selector_error`] and `labels.Parse`
/// ([`labels::parse`](super::labels::parse)) call it.
pub fn requirement_errors(
    key: &str,
    operator: SelectionOperator,
    values: &[String],
    release: crate::features::KubernetesVersion,
) -> crate::field::ErrorList {
    use crate::field::{BadValue, FieldError, Path, ValueRendering};
    use SelectionOperator as Op;
    let mut errs = Vec::new();
    errs.extend(label_key_error(key, Some(&Path::new("key")), release));
    let values_path = Path::new("values");
    // `field.Invalid(valuePath, vals, ...)`: the `[]string` as a release prints it.
    let list = || {
        if values.is_empty() {
            BadValue::Composite { json: "null".into(), go_syntax: "[]string(nil)".into() }
        } else {
            let quoted: Vec<String> = values.iter().map(|v| go::quote(v)).collect();
            BadValue::Composite {
                json: go::to_go_json(values).unwrap_or_default(),
                go_syntax: format!("[]string{{{}}}", quoted.join(", ")),
            }
        }
    };
    let count_error = match operator {
        Op::In | Op::NotIn if values.is_empty() => Some("for 'in', 'notin' operators, values set can't be empty"),
        Op::Equals | Op::DoubleEquals | Op::NotEquals if values.len() != 1 => {
            Some("exact-match compatibility requires one single value")
        }
        Op::Exists | Op::DoesNotExist if !values.is_empty() => {
            Some("values set must be empty for exists and does not exist")
        }
        Op::GreaterThan | Op::LessThan if values.len() != 1 => {
            Some("for 'Gt', 'Lt' operators, exactly one value is required")
        }
        _ => None,
    };
    if let Some(detail) = count_error {
        errs.push(FieldError::invalid(&values_path, list(), detail));
    }
    if matches!(operator, Op::GreaterThan | Op::LessThan) {
        for (i, v) in values.iter().enumerate() {
            if v.parse::<i64>().is_err() {
                errs.push(FieldError::invalid(
                    &values_path.index(i),
                    BadValue::Str(v.clone()),
                    "for 'Gt', 'Lt' operators, the value must be an integer",
                ));
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        // `validateLabelValue`.
        let problems = crate::validation::names::label_value(v, release);
        if !problems.is_empty() {
            let at = values_path.index(i);
            errs.push(FieldError::invalid(&at.key(key), BadValue::Str(v.clone()), problems.join("; ")));
        }
    }
    let rendering = ValueRendering::of(release);
    errs.into_iter().map(|e| FieldError { rendering, ..e }).collect()
}

/// One entry of an object's `metadata.managedFields` (`metav1.ManagedFieldsEntry`, read in place
/// from the object's JSON) that owns a field: [`field_owners`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldOwner<'v> {
    /// `manager` (`helm`, `kube-controller-manager`, `argocd-controller`).
    pub manager: Option<&'v str>,
    /// `operation`: `Apply` or `Update`.
    pub operation: Option<&'v str>,
    /// `subresource` (`scale` for `kubectl scale` and the HPA controller); `None` or empty for
    /// the main resource.
    pub subresource: Option<&'v str>,
    /// `time`, RFC 3339 in UTC as the API server writes it (so that times order as strings).
    pub time: Option<&'v str>,
}

/// The entries of `object`'s `metadata.managedFields` whose field set (`fieldsV1`, the JSON a
/// [`FieldsV1`] keeps as text) owns the field at `path`, given by its field names
/// (`["spec", "replicas"]`: `{"f:spec": {"f:replicas": {}}}`), in the order of the list. Entries
/// of the `status` subresource are left out: they own status only (kube-apiserver's status
/// strategies reset whatever else a status write sends). The one reading of field ownership:
/// HPA410's [`decide`](crate::rules::replicas_owner::decide) and the webhook's
/// `/validate-workloads`. Read in place, without a copy of the entries' sets: it runs for every
/// live workload.
pub fn field_owners<'v>(object: &'v Value, path: &[&str]) -> impl Iterator<Item = FieldOwner<'v>> {
    fn text<'v>(entry: &'v Value, key: &str) -> Option<&'v str> {
        entry.get(key).and_then(Value::as_str)
    }
    let keys: Vec<String> = path.iter().map(|name| format!("f:{name}")).collect();
    let entries = object.pointer("/metadata/managedFields").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    entries
        .iter()
        .filter(|e| text(e, "subresource") != Some("status"))
        .filter(move |e| e.get("fieldsV1").and_then(|set| keys.iter().try_fold(set, |set, key| set.get(key))).is_some())
        .map(|e| FieldOwner {
            manager: text(e, "manager"),
            operation: text(e, "operation"),
            subresource: text(e, "subresource"),
            time: text(e, "time"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name's bytes and its text are one value: a name of invalid bytes reads, compares with
    /// a text and is written as their lossy text, and quotes its bytes; one read back from that
    /// text or built from valid bytes is the text alone, another name.
    #[test]
    fn a_name_is_its_bytes_with_a_lossy_view() {
        let cut = Name::from_bytes(b"web-\xc3".to_vec());
        assert_eq!(
            (cut.as_str(), cut.as_bytes(), cut.invalid_utf8()),
            ("web-\u{fffd}", &b"web-\xc3"[..], Some(&b"web-\xc3"[..]))
        );
        assert_eq!(cut.quoted(), r#""web-\xc3""#);
        assert!(cut == "web-\u{fffd}" && !cut.is_empty());
        assert_eq!(serde_json::to_string(&cut).unwrap(), "\"web-\u{fffd}\"");
        assert_eq!(format!("{cut} {cut:?}"), "web-\u{fffd} Name(\"web-\\xc3\")");
        let valid = Name::from_bytes("web-é".as_bytes().to_vec());
        assert_eq!((valid.invalid_utf8(), valid.quoted()), (None, "\"web-é\"".to_string()));
        assert_eq!(valid, Name::from("web-é"));
        let hpa = serde_json::json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web-\u{fffd}"}});
        let read = crate::api::decode(&hpa).unwrap();
        let name = &read.metadata().name;
        assert_eq!((name.invalid_utf8(), name.as_bytes()), (None, "web-\u{fffd}".as_bytes()));
        assert_ne!(*name, cut);
    }

    #[test]
    fn field_owners_reads_the_sets_in_place() {
        let object = serde_json::json!({"metadata": {"managedFields": [
            {"manager": "helm", "operation": "Update", "time": "2026-03-02T09:14:05Z",
             "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
             "fieldsV1": {"f:spec": {"f:replicas": {}}}},
            {"manager": "kubectl", "operation": "Update", "subresource": "scale",
             "fieldsV1": {"f:spec": {"f:replicas": {}}}},
            {"manager": "argocd-controller", "operation": "Apply", "fieldsV1": {"f:spec": {"f:template": {}}}}
        ]}});
        let managers =
            |path: &[&str]| field_owners(&object, path).map(|o| o.manager.unwrap_or_default()).collect::<Vec<_>>();
        assert_eq!(managers(&["spec", "replicas"]), ["helm", "kubectl"]);
        assert_eq!(managers(&["spec", "template"]), ["argocd-controller"]);
        assert_eq!(managers(&["spec"]), ["helm", "kubectl", "argocd-controller"]);
        assert!(managers(&["spec", "paused"]).is_empty());
        assert_eq!(
            field_owners(&object, &["spec", "selector"]).collect::<Vec<_>>(),
            [FieldOwner {
                manager: Some("helm"),
                operation: Some("Update"),
                subresource: None,
                time: Some("2026-03-02T09:14:05Z")
            }]
        );
        assert_eq!(field_owners(&serde_json::json!({"spec": {}}), &["spec"]).count(), 0);
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    /// `LabelSelectorAsSelector(s).String()`: requirements sorted by key, set values sorted.
    #[test]
    fn selectors_format_as_kubernetes_writes_them() {
        let s = LabelSelector {
            match_labels: labels(&[("track", "canary"), ("app", "web")]),
            match_expressions: vec![
                requirement("tier", "In", &["b", "a"]),
                requirement("env", "NotIn", &["dev"]),
                requirement("zone", "Exists", &[]),
                requirement("legacy", "DoesNotExist", &[]),
            ],
        };
        assert_eq!(s.format(), "app=web,env notin (dev),!legacy,tier in (a,b),track=canary,zone");
        assert_eq!(LabelSelector::default().format(), "");
    }

    /// `Requirement.String` sorts values with `safeSort` and keeps duplicates (`NewRequirement`
    /// keeps the slice); one value is written as is; a key in `matchLabels` and in expressions
    /// keeps that order (a stable sort).
    #[test]
    fn values_are_sorted_but_not_deduplicated() {
        let s = LabelSelector {
            match_labels: labels(&[("app", "web")]),
            match_expressions: vec![
                requirement("tier", "In", &["b", "a", "b"]),
                requirement("app", "NotIn", &["", "x"]),
                requirement("app", "In", &["web"]),
                requirement("env", "NotIn", &["z", "z"]),
            ],
        };
        assert_eq!(s.format(), "app=web,app notin (,x),app in (web),env notin (z,z),tier in (a,b,b)");
        // What only a selector read from text holds: `Gt`, `Lt`.
        let parsed = LabelSelector {
            match_labels: BTreeMap::new(),
            match_expressions: vec![requirement("n", "Gt", &["1"]), requirement("m", "Lt", &["-2"])],
        };
        assert_eq!(parsed.format(), "m<-2,n>1");
    }

    /// `LabelSelectorAsSelector`'s errors, as `NewRequirement` words them.
    #[test]
    fn selectors_that_do_not_convert_say_why() {
        use crate::features::KubernetesVersion;
        let one =
            |r: LabelSelectorRequirement| LabelSelector { match_labels: BTreeMap::new(), match_expressions: vec![r] };
        let latest = KubernetesVersion::LATEST;
        assert_eq!(
            one(requirement("env", "Exists", &["prod"])).as_selector_error(latest).as_deref(),
            Some("values: Invalid value: [\"prod\"]: values set must be empty for exists and does not exist")
        );
        assert_eq!(
            one(requirement("env", "Exists", &["prod"])).as_selector_error(KubernetesVersion::V1_33).as_deref(),
            Some("values: Invalid value: []string{\"prod\"}: values set must be empty for exists and does not exist")
        );
        // The list as `encoding/json` writes it from 1.34 (`&` escaped), as `%#v` in 1.33.
        let html = one(requirement("env", "Exists", &["a&b"]));
        let (json, go) = (html.as_selector_error(latest), html.as_selector_error(KubernetesVersion::V1_33));
        let wanted = |value: &str| {
            format!(
                "[values: Invalid value: {value}: values set must be empty for exists and does not exist, values[0][env]: Invalid value: \"a&b\": a valid label must be"
            )
        };
        assert!(json.as_deref().unwrap_or_default().starts_with(&wanted("[\"a\\u0026b\"]")), "{json:?}");
        assert!(go.as_deref().unwrap_or_default().starts_with(&wanted("[]string{\"a&b\"}")), "{go:?}");
        assert_eq!(
            one(requirement("tier", "In", &[])).as_selector_error(latest).as_deref(),
            Some("values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty")
        );
        assert_eq!(
            one(requirement("tier", "Gt", &["1"])).as_selector_error(latest).as_deref(),
            Some("\"Gt\" is not a valid label selector operator")
        );
        let spaced = LabelSelector { match_labels: labels(&[("queue", "my queue")]), match_expressions: Vec::new() };
        let error = spaced.as_selector_error(latest).unwrap_or_default();
        assert!(error.starts_with("values[0][queue]: Invalid value: \"my queue\": a valid label must be"), "{error}");
        assert_eq!(LabelSelector::default().as_selector_error(latest), None);
        assert_eq!(one(requirement("tier", "NotIn", &["a"])).as_selector_error(latest), None);
    }

    /// `NewRequirement`'s checks for every operator, and `validateLabelKey` with a nil path
    /// as `labels.Parse` calls it.
    #[test]
    fn requirements_are_checked_as_new_requirement_checks_them() {
        use crate::features::KubernetesVersion;
        use SelectionOperator as Op;
        let latest = KubernetesVersion::LATEST;
        let message = |key: &str, operator: Op, values: &[&str]| {
            let values: Vec<String> = values.iter().map(|v| (*v).to_string()).collect();
            crate::field::aggregate_message(&requirement_errors(key, operator, &values, latest))
        };
        assert_eq!(message("n", Op::GreaterThan, &["5"]), "");
        assert_eq!(message("n", Op::NotEquals, &[""]), "");
        assert_eq!(
            message("n", Op::DoubleEquals, &["a", "b"]),
            "values: Invalid value: [\"a\",\"b\"]: exact-match compatibility requires one single value"
        );
        assert_eq!(
            message("n", Op::LessThan, &[]),
            "values: Invalid value: null: for 'Gt', 'Lt' operators, exactly one value is required"
        );
        assert_eq!(
            message("n", Op::GreaterThan, &["x"]),
            "values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"
        );
        let both = message("n", Op::LessThan, &["1", "y z"]);
        assert!(
            both.starts_with(
                "[values: Invalid value: [\"1\",\"y z\"]: for 'Gt', 'Lt' operators, exactly one value is required, values[1]: Invalid value: \"y z\": for 'Gt', 'Lt' operators, the value must be an integer, values[1][n]: Invalid value: \"y z\": a valid label must be"
            ),
            "{both}"
        );
        let bad_key = message("a b", Op::Exists, &[]);
        assert!(bad_key.starts_with("key: Invalid value: \"a b\": name part must consist of"), "{bad_key}");
        let parsed = label_key_error("a:b", None, latest).map(|e| e.to_string()).unwrap_or_default();
        assert!(parsed.starts_with("<nil>: Invalid value: \"a:b\": name part must consist of"), "{parsed}");
        assert_eq!(label_key_error("example.com/app", None, latest), None);
        assert_eq!(SelectionOperator::of_label_selector("NotIn"), Some(Op::NotIn));
        assert_eq!(SelectionOperator::of_label_selector("Gt"), None);
    }

    fn requirement(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: values.iter().map(|v| (*v).to_string()).collect(),
        }
    }

    #[test]
    fn selectors_match_as_label_selector_as_selector() {
        let empty = LabelSelector::default();
        assert!(empty.matches(&labels(&[])));
        assert!(empty.matches(&labels(&[("app", "web")])));

        let mut s = LabelSelector::default();
        s.match_labels.insert("app".into(), "web".into());
        s.match_expressions.push(requirement("tier", "In", &["a", "b"]));
        s.match_expressions.push(requirement("track", "NotIn", &["canary"]));
        s.match_expressions.push(requirement("zone", "Exists", &[]));
        s.match_expressions.push(requirement("legacy", "DoesNotExist", &[]));
        assert!(s.matches(&labels(&[("app", "web"), ("tier", "b"), ("zone", "eu")])));
        assert!(s.matches(&labels(&[("app", "web"), ("tier", "a"), ("zone", "eu"), ("track", "stable")])));
        assert!(!s.matches(&labels(&[("app", "api"), ("tier", "b"), ("zone", "eu")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("zone", "eu")])), "In needs the key");
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "b"), ("zone", "eu"), ("track", "canary")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "b")])), "Exists");
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "b"), ("zone", "eu"), ("legacy", "")])));
    }

    #[test]
    fn gt_lt_compare_integers_and_unknown_operators_select_nothing() {
        let one = |op: &str, values: &[&str]| LabelSelector {
            match_labels: BTreeMap::new(),
            match_expressions: vec![requirement("n", op, values)],
        };
        assert!(one("Gt", &["2"]).matches(&labels(&[("n", "3")])));
        assert!(!one("Gt", &["3"]).matches(&labels(&[("n", "3")])));
        assert!(!one("Gt", &["2"]).matches(&labels(&[("n", "x")])));
        assert!(!one("Gt", &["2"]).matches(&labels(&[])));
        assert!(one("Lt", &["10"]).matches(&labels(&[("n", "-1")])));
        assert!(!one("Lt", &["10"]).matches(&labels(&[("n", "10")])));
        assert!(!one("Equals", &["3"]).matches(&labels(&[("n", "3")])));
    }

    #[test]
    fn labels_can_be_looked_up_by_key() {
        let mut s = LabelSelector::default();
        s.match_labels.insert("kubernetes.io/metadata.name".into(), "prod".into());
        assert!(s.matches_by(|k| (k == "kubernetes.io/metadata.name").then_some("prod")));
        assert!(!s.matches_by(|_| None));
    }
}
