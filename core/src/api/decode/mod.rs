//! The one decoder: values as Go's `encoding/json` decodes them into the API's Go structs,
//! with kube-apiserver's errors.
//!
//! kube-apiserver decodes a request body with apimachinery's JSON serializer
//! (`runtime/serializer/json.Serializer.Decode`), which unmarshals with `sigs.k8s.io/json`
//! (`UnmarshalStrict`, a fork of Go's `encoding/json` that matches keys case-sensitively and
//! also reports unknown and duplicate fields). This module is that decoding, once, for every
//! place values come from: a [`Source`] is JSON text ([`json::JsonSource`]) or anything that
//! reads as the JSON it stands for (the linter's YAML nodes, with positions, implement it in
//! `hpa-yaml`; core knows no YAML). What it reproduces:
//!
//! - **Type errors** (`*json.UnmarshalTypeError`): a value of the wrong JSON type, or a number
//!   that does not fit, leaves its field as it was and decoding goes on; the *first* one is
//!   the error, worded as Go words it (`json: cannot unmarshal object into Go struct field
//!   HorizontalPodAutoscalerSpec.spec.metrics of type []v2.MetricSpec`: the innermost struct,
//!   the JSON path of struct fields without indices, Go's type name).
//! - **Unmarshaler errors** (`resource.Quantity`, `metav1.Time`): returned as they are and
//!   they stop decoding, so they win over an earlier type error.
//! - **Strict errors** (`unknown field "spec.x"`, `duplicate field "spec.y"`: full paths with
//!   indices, deduplicated, at most 100): collected, and reported only when decoding
//!   otherwise succeeded (`runtime.NewStrictDecodingError`). [`Strictness`] says whether they
//!   are errors (`fieldValidation=Strict`, kubectl's default) or values the caller ignores
//!   (the webhook, whose kube-apiserver may know fields this build does not).
//! - `null` leaves a value (struct, string, number) as it is and empties a pointer, slice or
//!   map; decoding goes *into* the existing value, so a duplicate key merges as in Go.
//!
//! kube-apiserver's paths report what it reports ([`decode_from`]: the error that stopped
//! decoding, else the first type error, else the strict errors). A reader of the tools' own
//! files that shows every problem at once asks the same decoder to go on past each value it
//! cannot read ([`decode_every_error_from`], [`Decoder::every_error`]): every type error, every
//! refused value and every strict error, in the order of the source, from one reading.
//!
//! Each error also carries the field path with indices ([`DecodeError::path`]), for callers
//! that point at positions.

pub mod json;

use std::borrow::Cow;
use std::collections::BTreeMap;

use compact_str::CompactString;

pub use hpa_core_derive::Decode;

use crate::api::meta::FieldsV1;
use crate::api::{Quantity, Time};
use crate::features::KubernetesVersion;

/// A type the decoder can fill, as `encoding/json` fills the Go type it mirrors.
///
/// Structs derive it (`#[derive(Decode)]`); the impls for strings, numbers, booleans,
/// pointers (`Option`, `Box`), slices (`Vec`), `map[string]T` (`BTreeMap<String, T>`) and the
/// API's own scalars (`resource.Quantity`, `metav1.Time`) are here.
pub trait Decode {
    /// Go's name of the type, as `reflect.Type.String()` prints it in errors (`int32`,
    /// `[]v2.MetricSpec`); `package` is the version package of the object being decoded.
    fn go_type(package: &str) -> String;

    /// What a value of this type is written as ([`Shape`]), for a reader that words type
    /// errors itself; structs, the default, are mappings.
    fn shape() -> Shape {
        Shape::Mapping
    }

    /// Decodes the source's current value into `self` (consuming it), as `encoding/json`
    /// decodes into an existing value. `ty` is the Go type of the field when it is a named
    /// type Rust does not have (`v2.MetricSourceType` for a `CompactString`).
    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort>;
}

/// The Go package a struct type is in, for its name in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Package {
    /// A fixed package (`v1` for `metav1`'s types).
    Fixed(&'static str),
    /// The version package of the object being decoded (`v2`, `v1`, `v2beta2`): the
    /// autoscaling types are shared by several versions here, and named by the one decoded.
    Object,
}

impl Package {
    /// `package.Name`.
    pub fn name(self, object_package: &str, type_name: &str) -> String {
        match self {
            Package::Fixed(p) => format!("{p}.{type_name}"),
            Package::Object => format!("{object_package}.{type_name}"),
        }
    }
}

/// The Go type of a field, when the Rust type does not say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoType {
    /// The Rust type's own Go name ([`Decode::go_type`]).
    #[default]
    Default,
    /// A named type with its package (`v1.ResourceName`).
    Named(&'static str),
    /// A named type of the object's version package (`MetricSourceType` → `v2.MetricSourceType`).
    InObjectPackage(&'static str),
}

impl GoType {
    fn render<T: Decode + ?Sized>(self, package: &str) -> String {
        match self {
            GoType::Default => T::go_type(package),
            GoType::Named(name) => name.to_string(),
            GoType::InObjectPackage(name) => format!("{package}.{name}"),
        }
    }
}

/// What a field takes, as JSON: the shape of the Rust type that mirrors its Go type, for a
/// reader that words a type error in plain words rather than Go's (hpa-yaml's reader of the
/// tools' own files: `settings.minReplicas: expected a whole number, found "2"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// A string (Go's `string` and its named string types).
    String,
    /// An integer (`int32`, `int64`).
    Integer,
    /// An integer of 0 or more (`uint64`).
    Unsigned,
    /// Any number (`float64`).
    Number,
    /// `true` or `false`.
    Bool,
    /// An array (a slice).
    List,
    /// An object (a struct or a map).
    Mapping,
    /// A `resource.Quantity` (a string or a number: `500m`, `2Gi`, `1.5`).
    Quantity,
    /// A `metav1.Time` (an RFC 3339 string).
    Time,
    /// Any value (`metav1.FieldsV1`).
    Any,
    /// A type of its own, in words (`off, on, error, warning or info`).
    Described(&'static str),
}

/// What a type error or an unknown field is about, beyond its message: for a reader that
/// words it itself ([`Shape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Detail {
    /// A value of the wrong JSON type, a number the field cannot hold, or a value its type
    /// cannot read (a quantity that does not parse): what the field takes.
    Mismatch(Shape),
    /// An unknown field: the fields of its object (JSON names, in declaration order).
    UnknownField(&'static [&'static str]),
}

/// What the source's current value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// a number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

impl Kind {
    /// How `encoding/json` names a value of this kind in a type error.
    pub fn go_name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "bool",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

/// A number as the source holds it; its JSON text is what Go would read.
#[derive(Debug, Clone, PartialEq)]
pub enum Number<'de> {
    /// The literal of a JSON text.
    Text(Cow<'de, str>),
    /// An integer (written in decimal).
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A float, written as Go's `json.Marshal` writes a float64 (`sigs.k8s.io/yaml` turns a
    /// YAML float into JSON that way).
    Float(f64),
}

impl Number<'_> {
    /// The JSON text Go would see.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Number::Text(t) => Cow::Borrowed(t.as_ref()),
            Number::Int(i) => Cow::Owned(i.to_string()),
            Number::UInt(u) => Cow::Owned(u.to_string()),
            Number::Float(f) => Cow::Owned(crate::go::json_float(*f)),
        }
    }

    /// `strconv.ParseInt(text, 10, 64)`.
    fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(*i),
            Number::UInt(u) => i64::try_from(*u).ok(),
            Number::Text(t) => parse_go_int(t),
            Number::Float(f) => parse_go_int(&crate::go::json_float(*f)),
        }
    }
}

/// `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A source that cannot be read on (JSON that is not well formed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    /// What is wrong, in `encoding/json`'s words.
    pub message: String,
    /// The byte offset in the text, when the source is text.
    pub offset: Option<usize>,
}

/// Where values come from, read in document order like a JSON text.
///
/// The decoder asks what the current value is ([`Source::peek`]) and then consumes it with
/// exactly one of the other calls. After [`Source::begin_object`], [`Source::next_key`] is
/// called until it returns `None`, and each key is followed by exactly one value; after
/// [`Source::begin_array`], [`Source::next_item`] likewise.
pub trait Source<'de> {
    /// The kind of the current value, without consuming it.
    fn peek(&mut self) -> Result<Kind, SourceError>;
    /// Consumes a boolean.
    fn bool(&mut self) -> Result<bool, SourceError>;
    /// Consumes a number.
    fn number(&mut self) -> Result<Number<'de>, SourceError>;
    /// Consumes a string.
    fn string(&mut self) -> Result<Cow<'de, str>, SourceError>;
    /// Consumes any value and returns its JSON text, as a Go `UnmarshalJSON` receives it.
    fn raw(&mut self) -> Result<Cow<'de, str>, SourceError>;
    /// Consumes any value.
    fn skip(&mut self) -> Result<(), SourceError>;
    /// Enters the current object.
    fn begin_object(&mut self) -> Result<(), SourceError>;
    /// The next key of the object entered last, or `None` (and the object is left).
    fn next_key(&mut self) -> Result<Option<Cow<'de, str>>, SourceError>;
    /// Enters the current array.
    fn begin_array(&mut self) -> Result<(), SourceError>;
    /// Whether the array entered last has another item (if not, the array is left).
    fn next_item(&mut self) -> Result<bool, SourceError>;

    /// The same value read in the order kube-apiserver reads what kubectl sends, when this
    /// source reads it in another: every object's keys in byte order, a key given twice once
    /// with its last value (kubectl decodes each object into a `map[string]interface{}` and
    /// sends `json.Marshal`'s text of it, which sorts the keys). `None` (the default) when the
    /// source's own order is kube-apiserver's already (JSON text as kube-apiserver sent it).
    ///
    /// Only the errors depend on the order (which type error is the first, the order of the
    /// strict errors), so [`decode_from`] reads a source in its own order and reads this one
    /// only when that yields errors: a clean object is never sorted.
    fn in_key_order(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

impl<'de, S: Source<'de> + ?Sized> Source<'de> for &mut S {
    fn peek(&mut self) -> Result<Kind, SourceError> {
        (**self).peek()
    }
    fn bool(&mut self) -> Result<bool, SourceError> {
        (**self).bool()
    }
    fn number(&mut self) -> Result<Number<'de>, SourceError> {
        (**self).number()
    }
    fn string(&mut self) -> Result<Cow<'de, str>, SourceError> {
        (**self).string()
    }
    fn raw(&mut self) -> Result<Cow<'de, str>, SourceError> {
        (**self).raw()
    }
    fn skip(&mut self) -> Result<(), SourceError> {
        (**self).skip()
    }
    fn begin_object(&mut self) -> Result<(), SourceError> {
        (**self).begin_object()
    }
    fn next_key(&mut self) -> Result<Option<Cow<'de, str>>, SourceError> {
        (**self).next_key()
    }
    fn begin_array(&mut self) -> Result<(), SourceError> {
        (**self).begin_array()
    }
    fn next_item(&mut self) -> Result<bool, SourceError> {
        (**self).next_item()
    }
}

/// Decoding stopped; the error is in the [`Decoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abort(());

/// How `encoding/json` is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Keys match field names exactly (`sigs.k8s.io/json`'s `CaseSensitive`), not also
    /// case-insensitively (plain `encoding/json`).
    pub case_sensitive: bool,
    /// Report duplicate fields (`DisallowDuplicateFields`).
    pub duplicate_fields: bool,
    /// The release whose Go types decode (`None`: this crate's schema, the newest). A field
    /// added in a later release (`#[go(since = "1.37")]`) is an unknown field of the older
    /// release's struct, as its kube-apiserver finds it; a quantity parses as the release's
    /// `ParseQuantity` does (`None`: [`KubernetesVersion::LATEST`]'s).
    pub release: Option<KubernetesVersion>,
}

impl DecodeOptions {
    /// `sigs.k8s.io/json.UnmarshalStrict`, as kube-apiserver decodes a request body.
    pub const KUBE_APISERVER: DecodeOptions =
        DecodeOptions { case_sensitive: true, duplicate_fields: true, release: None };
    /// Go's plain `json.Unmarshal` (the round-trip annotations are read with it): keys also
    /// match case-insensitively, duplicates are not noticed.
    pub const ENCODING_JSON: DecodeOptions =
        DecodeOptions { case_sensitive: false, duplicate_fields: false, release: None };
    /// kubectl's own decoding of each object of a file into `metadataOnlyObject` before it sends
    /// anything (cli-runtime's `metadataValidatingDecoder`): keys match exactly, duplicates are
    /// not noticed.
    pub const KUBECTL_METADATA: DecodeOptions =
        DecodeOptions { case_sensitive: true, duplicate_fields: false, release: None };

    /// These options with the Go types of `release`.
    pub const fn in_release(self, release: KubernetesVersion) -> DecodeOptions {
        DecodeOptions { release: Some(release), ..self }
    }

    /// Whether a field added in minor release `since` (0: always there) is in the types.
    fn knows(self, since: u32) -> bool {
        since == 0 || self.release.is_none_or(|r| r.minor() >= since)
    }
}

/// Whether unknown and duplicate fields are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// They are (`fieldValidation=Strict`, what kubectl asks for by default).
    Strict,
    /// They are returned beside the value, which ignores them (`fieldValidation=Ignore`;
    /// the webhook, whose kube-apiserver may be newer than this build).
    Lenient,
}

/// A decoded value, and the unknown and duplicate fields it ignored (empty when strict).
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<T> {
    /// The value.
    pub value: T,
    /// Unknown and duplicate fields (lenient decoding only).
    pub ignored: Vec<DecodeError>,
}

/// What went wrong while decoding (the 400 BadRequest cases of kube-apiserver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A field the schema does not have (`unknown field "spec.x"`, a strict error).
    UnknownField,
    /// A field given twice in one object (`duplicate field "spec.x"`, a strict error).
    DuplicateField,
    /// A value of the wrong JSON type, a number that does not fit, or one that does not
    /// parse (quantities, times).
    InvalidValue,
    /// `apiVersion` or `kind` missing, or not an HPA version we know.
    TypeMeta,
    /// The document is not a JSON object.
    NotAnObject,
    /// The text is not well-formed JSON.
    Syntax,
}

impl DecodeErrorKind {
    /// A stable machine-readable name.
    pub fn as_str(self) -> &'static str {
        match self {
            DecodeErrorKind::UnknownField => "UnknownField",
            DecodeErrorKind::DuplicateField => "DuplicateField",
            DecodeErrorKind::InvalidValue => "InvalidValue",
            DecodeErrorKind::TypeMeta => "TypeMeta",
            DecodeErrorKind::NotAnObject => "NotAnObject",
            DecodeErrorKind::Syntax => "SyntaxError",
        }
    }

    /// Whether this is one of `sigs.k8s.io/json`'s strict errors (reported together, after
    /// `strict decoding error: `).
    pub fn is_strict(self) -> bool {
        matches!(self, DecodeErrorKind::UnknownField | DecodeErrorKind::DuplicateField)
    }
}

/// One decoding problem: kube-apiserver's words for it, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    /// What kind of problem.
    pub kind: DecodeErrorKind,
    /// Where: the field path with indices (`spec.metrics[0].resource`; a map key with a dot
    /// in brackets, `metadata.labels[app.kubernetes.io/name]`), empty for the object itself.
    pub path: String,
    /// The error as kube-apiserver words it (`json: cannot unmarshal string into Go struct
    /// field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32`, `unknown field
    /// "spec.x"`, `quantities must match the regular expression ...`).
    pub message: String,
    /// What a type error or an unknown field is about, when it is one.
    pub detail: Option<Detail>,
}

impl DecodeError {
    /// An error of `kind` at `path` (no [`Detail`]).
    pub fn new(kind: DecodeErrorKind, path: impl Into<String>, message: impl Into<String>) -> DecodeError {
        DecodeError { kind, path: path.into(), message: message.into(), detail: None }
    }

    /// An error about the object's `apiVersion` or `kind`.
    pub fn type_meta(path: &str, message: impl Into<String>) -> DecodeError {
        DecodeError::new(DecodeErrorKind::TypeMeta, path, message)
    }
}

/// What kube-apiserver's decoding reports for these errors (one type or value error, or the
/// strict errors), after its `transformDecodeError` prefix when `kind` and `version` are
/// known: `HorizontalPodAutoscaler in version "v2" cannot be handled as a
/// HorizontalPodAutoscaler: strict decoding error: unknown field "spec.x"`.
pub fn failure_message(kind: &str, version: Option<&str>, errors: &[DecodeError]) -> String {
    let detail = if errors.first().is_some_and(|e| e.kind.is_strict()) {
        let strict: Vec<&str> = errors.iter().filter(|e| e.kind.is_strict()).map(|e| e.message.as_str()).collect();
        format!("strict decoding error: {}", strict.join(", "))
    } else {
        errors.iter().map(|e| e.message.as_str()).collect::<Vec<_>>().join(", ")
    };
    match version {
        Some(v) => format!("{kind} in version {} cannot be handled as a {kind}: {detail}", crate::go::quote(v)),
        None => detail,
    }
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    /// `.name`
    Field(String),
    /// `[3]`
    Index(usize),
    /// `[key]` (map keys such as annotation names)
    Key(String),
}

/// Reads back a path as [`DecodeError::path`] writes it: `spec.metrics[0].resource`,
/// `metadata.annotations[a.b/c]` (hpa-yaml finds the node it names; hpa-cluster the value).
pub fn parse_path(path: &str) -> Vec<PathStep> {
    let mut steps = Vec::new();
    let mut cur = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !cur.is_empty() {
                    steps.push(PathStep::Field(std::mem::take(&mut cur)));
                }
            }
            '[' => {
                if !cur.is_empty() {
                    steps.push(PathStep::Field(std::mem::take(&mut cur)));
                }
                let mut inner = String::new();
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    inner.push(c);
                }
                match inner.parse::<usize>() {
                    Ok(i) => steps.push(PathStep::Index(i)),
                    Err(_) => steps.push(PathStep::Key(inner)),
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        steps.push(PathStep::Field(cur));
    }
    steps
}

/// The JSON text of the value `steps` names in `source` (an object's key for [`PathStep::Field`]
/// and [`PathStep::Key`], an array's item for [`PathStep::Index`]), as a Go `UnmarshalJSON` receives
/// it: what a value that fails to decode was written as. `None` when the path names nothing.
pub fn raw_at<'de, S: Source<'de>>(mut source: S, steps: &[PathStep]) -> Option<Cow<'de, str>> {
    for step in steps {
        match (step, source.peek().ok()?) {
            (PathStep::Field(name) | PathStep::Key(name), Kind::Object) => {
                source.begin_object().ok()?;
                loop {
                    if source.next_key().ok()?? == name.as_str() {
                        break;
                    }
                    source.skip().ok()?;
                }
            }
            (PathStep::Index(i), Kind::Array) => {
                source.begin_array().ok()?;
                for _ in 0..*i {
                    if !source.next_item().ok()? {
                        return None;
                    }
                    source.skip().ok()?;
                }
                if !source.next_item().ok()? {
                    return None;
                }
            }
            _ => return None,
        }
    }
    source.raw().ok()
}

// === the decoder ===

/// One step of the path to the current value.
#[derive(Debug, Clone)]
enum Segment<'de> {
    /// A struct field (its JSON name).
    Field(&'static str),
    /// A map key.
    Key(Cow<'de, str>),
    /// An array index.
    Index(usize),
}

/// Decoding state: the source, the path to the current value and what went wrong so far
/// (`encoding/json`'s `decodeState`).
#[derive(Debug)]
pub struct Decoder<'de, S> {
    source: S,
    options: DecodeOptions,
    package: &'static str,
    path: Vec<Segment<'de>>,
    /// `errorContext.Struct`: the struct whose field is being decoded.
    go_struct: &'static str,
    /// The first type error (`savedError`).
    type_error: Option<DecodeError>,
    /// The error that stopped decoding.
    failure: Option<DecodeError>,
    /// Strict errors, deduplicated by message (`savedStrictErrors`).
    strict: Vec<DecodeError>,
    /// Whether strict errors are kept (`false` when only a type error matters to the caller:
    /// [`lenient_error_from`], which would build and drop the `unknown field "spec"` of every
    /// metadata-only object).
    keep_strict: bool,
    /// Whether strings and map entries are stored in the value (`false` for
    /// [`lenient_error_from`], which drops it: every value is read and checked all the same, but
    /// the labels and annotations of every object are not copied into a map to be dropped).
    keep_values: bool,
    /// Every type error and every value refused, each with the number of strict errors saved
    /// before it (for their order among them), when decoding goes on past them
    /// ([`Decoder::every_error`]); `None` as in Go, which keeps the first type error and stops
    /// at a refused value.
    every: Option<Vec<(usize, DecodeError)>>,
}

/// `saveStrictError` keeps at most this many.
const MAX_STRICT_ERRORS: usize = 100;

impl<'de, S: Source<'de>> Decoder<'de, S> {
    /// A decoder of `source` for an object of the Go version package `package` (`v2`).
    pub fn new(source: S, package: &'static str, options: DecodeOptions) -> Self {
        Decoder {
            source,
            options,
            package,
            path: Vec::new(),
            go_struct: "",
            type_error: None,
            failure: None,
            strict: Vec::new(),
            keep_strict: true,
            keep_values: true,
            every: None,
        }
    }

    /// This decoder, going on past every error a value can have (a type error, a value an
    /// `UnmarshalJSON` refuses) and keeping each, where Go's keeps the first type error and
    /// stops at a refused value: [`decode_every_error_from`]. Only a source that cannot be read
    /// on (a syntax error) stops it.
    pub fn every_error(mut self) -> Self {
        self.every = Some(Vec::new());
        self
    }

    /// This decoder, keeping no strict error: unknown and duplicate fields are skipped as
    /// [`Strictness::Lenient`] skips them, without their messages being written.
    fn dropping_strict_errors(mut self) -> Self {
        self.keep_strict = false;
        self
    }

    /// This decoder, for errors only: strings and map entries are read and checked but not
    /// stored. No decoding reads back a value it stored (each reads its source), so the errors
    /// are those of decoding with values.
    fn dropping_values(mut self) -> Self {
        self.keep_values = false;
        self
    }

    /// Decodes the whole source as a `T`.
    ///
    /// Mirrors `decodeState.unmarshal`: an error that stopped decoding wins, then the first
    /// type error, and only then the strict errors (which [`Strictness::Lenient`] returns
    /// beside the value instead).
    pub fn decode_value<T: Decode + Default>(mut self, strictness: Strictness) -> Result<Decoded<T>, Vec<DecodeError>> {
        let mut value = T::default();
        let mut result = value.decode(&mut self, GoType::Default);
        if self.every.is_some() {
            if result.is_err() {
                result = self.recover();
            }
            return self.every_error_result(value, result, strictness);
        }
        if let Some(failure) = self.failure {
            return Err(vec![failure]);
        }
        if result.is_err() {
            return Err(vec![self.error_here(DecodeErrorKind::InvalidValue, "decoding stopped".into())]);
        }
        if let Some(e) = self.type_error {
            return Err(vec![e]);
        }
        match strictness {
            Strictness::Strict if !self.strict.is_empty() => Err(self.strict),
            Strictness::Strict => Ok(Decoded { value, ignored: Vec::new() }),
            Strictness::Lenient => Ok(Decoded { value, ignored: self.strict }),
        }
    }

    /// [`Decoder::decode_value`]'s result when decoding went on past every error
    /// ([`Decoder::every_error`]): the errors in the order of the source (each strict error
    /// among the others where it was found), then the one that stopped decoding, if any.
    fn every_error_result<T>(
        mut self,
        value: T,
        result: Result<(), Abort>,
        strictness: Strictness,
    ) -> Result<Decoded<T>, Vec<DecodeError>> {
        let every = self.every.take().unwrap_or_default();
        let (strict, ignored) = match strictness {
            Strictness::Strict => (std::mem::take(&mut self.strict), Vec::new()),
            Strictness::Lenient => (Vec::new(), std::mem::take(&mut self.strict)),
        };
        let mut errors = Vec::with_capacity(every.len() + strict.len() + 1);
        let mut strict = strict.into_iter().enumerate().peekable();
        for (strict_before, error) in every {
            while let Some((_, e)) = strict.next_if(|(i, _)| *i < strict_before) {
                errors.push(e);
            }
            errors.push(error);
        }
        errors.extend(strict.map(|(_, e)| e));
        match (self.failure, result) {
            (Some(failure), _) => errors.push(failure),
            (None, Err(Abort(()))) => {
                errors.push(DecodeError::new(DecodeErrorKind::InvalidValue, "", "decoding stopped"));
            }
            (None, Ok(())) => {}
        }
        if errors.is_empty() { Ok(Decoded { value, ignored }) } else { Err(errors) }
    }

    /// Goes on past the value that stopped decoding when decoding goes on past every error
    /// ([`Decoder::every_error`]) and it was refused (not a source that cannot be read on): the
    /// error is kept, unless an error beneath that value was kept already (a load refused for
    /// having none of its keys, the one it had being refused itself: a consequence).
    /// Otherwise decoding stops, as in Go.
    ///
    /// A [`Decode`] impl refuses a value once it has consumed it ([`Decoder::fail`]), so the
    /// source is at the next value.
    #[cold]
    fn recover(&mut self) -> Result<(), Abort> {
        let Some(every) = &mut self.every else { return Err(Abort(())) };
        let failure = match self.failure.take() {
            Some(failure) if failure.kind != DecodeErrorKind::Syntax => failure,
            other => {
                self.failure = other;
                return Err(Abort(()));
            }
        };
        let beneath = |e: &DecodeError| {
            failure.path.is_empty()
                || e.path
                    .strip_prefix(failure.path.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        let consequence = every.last().is_some_and(|(_, e)| beneath(e)) || self.strict.last().is_some_and(beneath);
        if !consequence {
            every.push((self.strict.len(), failure));
        }
        Ok(())
    }

    /// The source, for [`Decode`] impls.
    pub fn source(&mut self) -> &mut S {
        &mut self.source
    }

    /// The kind of the current value.
    pub fn peek(&mut self) -> Result<Kind, Abort> {
        let r = self.source.peek();
        self.check(r)
    }

    /// Consumes the current value.
    pub fn skip(&mut self) -> Result<(), Abort> {
        let r = self.source.skip();
        self.check(r)
    }

    /// Turns a source error into the error that stops decoding.
    pub fn check<T>(&mut self, result: Result<T, SourceError>) -> Result<T, Abort> {
        match result {
            Ok(value) => Ok(value),
            Err(e) => Err(self.fail_syntax(e)),
        }
    }

    /// [`Decoder::check`]'s error path, out of line (see [`Decoder::fail`]).
    #[cold]
    fn fail_syntax(&mut self, e: SourceError) -> Abort {
        let error = self.error_here(DecodeErrorKind::Syntax, e.message);
        self.failure.get_or_insert(error);
        Abort(())
    }

    /// Stops decoding with an error of the value being decoded, as an `UnmarshalJSON`
    /// returns it (`quantities must match ...`). Call it once the value is consumed: a decoder
    /// that goes on past every error ([`Decoder::every_error`]) reads on from there.
    ///
    /// This and the other builders of errors are `#[cold]`: every object of a run decodes
    /// through the code that calls them and nearly none fails, so their code (and what their
    /// callers compute for them) is kept out of the path that every object takes, which is
    /// then shorter in the instruction cache (bench/lint/instructions.sh).
    #[cold]
    pub fn fail(&mut self, message: String) -> Abort {
        let error = self.error_here(DecodeErrorKind::InvalidValue, message);
        self.failure.get_or_insert(error);
        Abort(())
    }

    /// [`Decoder::fail`] for a value that `T`'s `UnmarshalJSON` cannot read (`quantities must
    /// match ...`), telling a reader that words errors itself what the field takes
    /// ([`Detail::Mismatch`]).
    #[cold]
    pub fn fail_unreadable<T: Decode + ?Sized>(&mut self, message: String) -> Abort {
        let error = self.error_here(DecodeErrorKind::InvalidValue, message);
        self.failure.get_or_insert(DecodeError { detail: Some(Detail::Mismatch(T::shape())), ..error });
        Abort(())
    }

    /// Records a type error for the current value (of kind `found`, or described by
    /// `value`, e.g. `number 1.5`) and skips it: `d.saveError(&UnmarshalTypeError{...})`.
    #[cold]
    pub fn mismatch<T: Decode + ?Sized>(&mut self, value: &str, ty: GoType) -> Result<(), Abort> {
        self.save_type_error::<T>(value, ty);
        self.skip()
    }

    /// Stops decoding with the type error of a value an `UnmarshalJSON` unmarshals into a Go
    /// `T` with the standard library (`metav1.Time`'s and `metav1.Duration`'s into a `string`),
    /// named by the field being decoded: `json: cannot unmarshal number into Go struct field
    /// ObjectMeta.metadata.creationTimestamp of type string`. The error is the standard
    /// library's `*json.UnmarshalTypeError`, and the decoder that called the `UnmarshalJSON`
    /// fills in its `Struct` and `Field` (`decodeState.addErrorContext`): `encoding/json`'s own,
    /// and `sigs.k8s.io/json`'s (kube-apiserver, client-go), whose `UnmarshalTypeError` is a type
    /// alias of the standard library's (`internal/golang/encoding/json/kubernetes_patch.go`).
    #[cold]
    pub fn fail_mismatch<T: Decode + ?Sized>(&mut self, value: &str) -> Abort {
        let message = self.type_error_message::<T>(value, GoType::Default);
        self.fail(message)
    }

    #[cold]
    fn save_type_error<T: Decode + ?Sized>(&mut self, value: &str, ty: GoType) {
        if self.type_error.is_some() && self.every.is_none() {
            return;
        }
        let message = self.type_error_message::<T>(value, ty);
        let error = self.error_here(DecodeErrorKind::InvalidValue, message);
        let error = DecodeError { detail: Some(Detail::Mismatch(T::shape())), ..error };
        match &mut self.every {
            Some(every) => every.push((self.strict.len(), error)),
            None => self.type_error = Some(error),
        }
    }

    /// `UnmarshalTypeError`'s words for the current value, with the field it is in.
    #[cold]
    fn type_error_message<T: Decode + ?Sized>(&self, value: &str, ty: GoType) -> String {
        let type_name = ty.render::<T>(self.package);
        let fields: Vec<&str> =
            self.path.iter().filter_map(|s| if let Segment::Field(f) = s { Some(*f) } else { None }).collect();
        if fields.is_empty() && self.go_struct.is_empty() {
            format!("json: cannot unmarshal {value} into Go value of type {type_name}")
        } else {
            format!(
                "json: cannot unmarshal {value} into Go struct field {}.{} of type {type_name}",
                self.go_struct,
                fields.join(".")
            )
        }
    }

    /// An error at the current path.
    #[cold]
    fn error_here(&self, kind: DecodeErrorKind, message: String) -> DecodeError {
        DecodeError::new(kind, self.location(None), message)
    }

    /// The current path with indices, as [`DecodeError::path`] writes it, plus `last` (a
    /// field, or with `true` a map key).
    fn location(&self, last: Option<(&str, bool)>) -> String {
        self.path_text(last, true)
    }

    /// The path as `sigs.k8s.io/json` writes it in strict errors (`spec.metrics[0].x`,
    /// map keys as they are), plus `last`.
    fn strict_path(&self, last: &str) -> String {
        self.path_text(Some((last, false)), false)
    }

    /// The current path plus `last` (a field, or with `true` a map key): names joined by dots,
    /// indices in brackets, and with `bracket_keys` a map key that holds `.`, `[` or `]` in
    /// brackets too ([`Decoder::location`]).
    fn path_text(&self, last: Option<(&str, bool)>, bracket_keys: bool) -> String {
        let mut out = String::new();
        let push_name = |out: &mut String, name: &str, map_key: bool| {
            if bracket_keys && map_key && name.contains(['.', '[', ']']) {
                out.push('[');
                out.push_str(name);
                out.push(']');
            } else {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
        };
        for segment in &self.path {
            match segment {
                Segment::Field(f) => push_name(&mut out, f, false),
                Segment::Key(k) => push_name(&mut out, k, true),
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        if let Some((last, map_key)) = last {
            push_name(&mut out, last, map_key);
        }
        out
    }

    /// `saveStrictError` for an unknown or duplicate `field` of the current object (a key
    /// of the current map with `map_key`); `known` are the object's fields, for an unknown one.
    #[cold]
    fn save_strict_error(
        &mut self,
        kind: DecodeErrorKind,
        field: &str,
        map_key: bool,
        known: Option<&'static [&'static str]>,
    ) {
        if !self.keep_strict || self.strict.len() >= MAX_STRICT_ERRORS {
            return;
        }
        let what = if kind == DecodeErrorKind::DuplicateField { "duplicate" } else { "unknown" };
        let message = format!("{what} field {}", crate::go::quote(&self.strict_path(field)));
        if self.strict.iter().any(|e| e.message == message) {
            return;
        }
        let path = self.location(Some((field, map_key)));
        self.strict.push(DecodeError { kind, path, message, detail: known.map(Detail::UnknownField) });
    }

    /// Decodes an object into the struct `target` (`decodeState.object` for a struct):
    /// `fields` are its JSON names in declaration order, and `field` decodes the one at an
    /// index. `name` is the struct's Go name. The keys of `ignored` (the rest of a larger type
    /// a file of the tools' own reads part of) are skipped, not unknown fields.
    #[allow(clippy::too_many_arguments)]
    pub fn decode_struct<T: Decode>(
        &mut self,
        target: &mut T,
        ty: GoType,
        name: &'static str,
        fields: &'static [&'static str],
        since: &'static [u32],
        ignored: &'static [&'static str],
        mut field: impl FnMut(&mut T, &mut Self, usize) -> Result<(), Abort>,
    ) -> Result<(), Abort> {
        match self.peek()? {
            Kind::Object => {}
            Kind::Null => return self.skip(),
            other => return self.mismatch::<T>(other.go_name(), ty),
        }
        let r = self.source.begin_object();
        self.check(r)?;
        let mut seen: u64 = 0;
        loop {
            let r = self.source.next_key();
            let Some(key) = self.check(r)? else { break };
            let index = match fields.iter().position(|f| *f == key) {
                Some(i) => Some(i),
                None if !self.options.case_sensitive => fields.iter().position(|f| equal_fold(f, &key)),
                None => None,
            };
            // A field of a later release than the types' is not one of their fields.
            let index = index.filter(|&i| self.options.knows(since.get(i).copied().unwrap_or(0)));
            let Some(index) = index else {
                if !ignored.contains(&key.as_ref()) {
                    self.save_strict_error(DecodeErrorKind::UnknownField, &key, false, Some(fields));
                }
                self.skip()?;
                continue;
            };
            let bit = 1u64 << (index % 64);
            if self.options.duplicate_fields && seen & bit != 0 {
                self.save_strict_error(DecodeErrorKind::DuplicateField, fields[index], false, None);
            }
            seen |= bit;
            let outer = std::mem::replace(&mut self.go_struct, name);
            self.path.push(Segment::Field(fields[index]));
            let result = field(target, self, index);
            self.path.pop();
            self.go_struct = outer;
            if result.is_err() {
                self.recover()?;
            }
        }
        Ok(())
    }
}

/// `encoding/json`'s case-insensitive key match: `foldName` of both the same (Go 1.21 and
/// later, every release modelled). `foldName` upper-cases ASCII letters and maps any other rune
/// through `unicode.ToUpper(unicode.ToLower(r))`, Unicode's simple mappings, which take four
/// runes to ASCII letters: `ſ` (U+017F) to `S`, the Kelvin sign (U+212A) to `K`, `İ` (U+0130)
/// and `ı` (U+0131) to `I`. `name` is a field name of the API, ASCII.
fn equal_fold(name: &str, key: &str) -> bool {
    let mut key = key.chars();
    name.bytes().all(|b| key.next().and_then(fold_to_ascii) == Some(b.to_ascii_uppercase())) && key.next().is_none()
}

/// What `foldName` makes of one rune, when that is an ASCII character (see [`equal_fold`]).
fn fold_to_ascii(c: char) -> Option<u8> {
    if c.is_ascii() {
        return u8::try_from(c).ok().map(|b| b.to_ascii_uppercase());
    }
    // The first rune of the full lowercase mapping is the simple one (`go::to_lower`); an
    // uppercase mapping of more than one rune (`ß` to `SS`) is a full one, where the simple
    // mapping leaves the rune as it is.
    let lower = c.to_lowercase().next().unwrap_or(c);
    let mut upper = lower.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u.is_ascii() => u8::try_from(u).ok(),
        _ => None,
    }
}

/// Decodes `source` as a `T` with kube-apiserver's decoding; `package` names the Go version
/// package of the types in errors (`v2`).
///
/// The errors are those of the order kube-apiserver reads the value in: when the source's own
/// order yields errors (or ignored fields) and the source can be read in kube-apiserver's
/// order ([`Source::in_key_order`]), the value is decoded again in that order and its errors
/// are returned (which type error is the first, which strict errors are kept and in what
/// order: `sigs.k8s.io/json`'s `saveError` and `saveStrictError`).
pub fn decode_from<'de, T: Decode + Default, S: Source<'de>>(
    source: S,
    package: &'static str,
    options: DecodeOptions,
    strictness: Strictness,
) -> Result<Decoded<T>, Vec<DecodeError>> {
    let sorted = source.in_key_order();
    let decoded = Decoder::new(source, package, options).decode_value(strictness);
    match (decoded, sorted) {
        (Ok(d), _) if d.ignored.is_empty() => Ok(d),
        (_, Some(sorted)) => Decoder::new(sorted, package, options).decode_value(strictness),
        (decoded, None) => decoded,
    }
}

/// Decodes `source` as a `T` strictly, going on past every error: each value of the wrong
/// type, each value its type refuses (a quantity that does not parse) and each unknown or
/// duplicate field, in the order of the source, where kube-apiserver reports the first type
/// error or refused value, and the strict errors only without one ([`decode_from`]). A value
/// refused because of an error beneath it is not reported again. For a reader of the tools' own
/// files that reports every problem of a file at once (`hpa-lint simulate`'s scenario); the
/// source is read in its own order (the order of a file).
pub fn decode_every_error_from<'de, T: Decode + Default, S: Source<'de>>(
    source: S,
    package: &'static str,
    options: DecodeOptions,
) -> Result<T, Vec<DecodeError>> {
    Decoder::new(source, package, options).every_error().decode_value(Strictness::Strict).map(|d| d.value)
}

/// The first error of decoding `source` leniently as a `T` (`None` when it decodes): the
/// first of [`decode_from`]'s errors, for a caller that needs neither the value nor the fields
/// it ignores (kubectl's `metadataValidatingDecoder`). Whether there is an error does not depend
/// on the order the keys are read in (each value is decoded once in either), which one does: the
/// source is read again in key order ([`Source::in_key_order`]) only when its own order yields
/// one, and the unknown fields every object has (`spec` of a metadata-only object) never cause
/// a second reading.
pub fn lenient_error_from<'de, T: Decode + Default, S: Source<'de>>(
    source: S,
    package: &'static str,
    options: DecodeOptions,
) -> Option<DecodeError> {
    let sorted = source.in_key_order();
    let decode = |source| {
        Decoder::new(source, package, options)
            .dropping_strict_errors()
            .dropping_values()
            .decode_value::<T>(Strictness::Lenient)
            .err()
    };
    let errors = decode(source)?;
    let errors = match sorted {
        Some(sorted) => decode(sorted)?,
        None => errors,
    };
    errors.into_iter().next()
}

// === the impls for Go's builtin types ===

impl Decode for String {
    fn go_type(_: &str) -> String {
        "string".into()
    }

    fn shape() -> Shape {
        Shape::String
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_string(self, d, ty, |target, s| {
            target.clear();
            target.push_str(s);
        })
    }
}

impl Decode for CompactString {
    fn go_type(_: &str) -> String {
        "string".into()
    }

    fn shape() -> Shape {
        Shape::String
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_string(self, d, ty, |target, s| *target = CompactString::from(s))
    }
}

/// `literalStore` of a string into a Go `string` of type `T`: `store` writes it into `target`
/// (unless the decoder drops values), `null` leaves `target` as it is, any other value is a
/// type error.
fn decode_string<'de, S: Source<'de>, T: Decode>(
    target: &mut T,
    d: &mut Decoder<'de, S>,
    ty: GoType,
    store: impl FnOnce(&mut T, &str),
) -> Result<(), Abort> {
    match d.peek()? {
        Kind::String => {
            let r = d.source.string();
            let s = d.check(r)?;
            if d.keep_values {
                store(target, &s);
            }
            Ok(())
        }
        Kind::Null => d.skip(),
        other => d.mismatch::<T>(other.go_name(), ty),
    }
}

impl Decode for bool {
    fn go_type(_: &str) -> String {
        "bool".into()
    }

    fn shape() -> Shape {
        Shape::Bool
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Bool => {
                let r = d.source.bool();
                *self = d.check(r)?;
                Ok(())
            }
            Kind::Null => d.skip(),
            other => d.mismatch::<Self>(other.go_name(), ty),
        }
    }
}

/// `literalStore` of a number into a Go number of type `T`: `parse` (`strconv.ParseInt` and an
/// overflow check, `ParseUint`, `ParseFloat`), else `UnmarshalTypeError{Value: "number " +
/// literal}`.
fn decode_number<'de, S: Source<'de>, T: Decode>(
    target: &mut T,
    d: &mut Decoder<'de, S>,
    ty: GoType,
    parse: impl FnOnce(&Number) -> Option<T>,
) -> Result<(), Abort> {
    match d.peek()? {
        Kind::Number => {
            let r = d.source.number();
            let number = d.check(r)?;
            match parse(&number) {
                Some(v) => *target = v,
                None => d.save_type_error::<T>(&format!("number {}", number.text()), ty),
            }
            Ok(())
        }
        Kind::Null => d.skip(),
        other => d.mismatch::<T>(other.go_name(), ty),
    }
}

/// [`decode_number`] into a Go integer: `strconv.ParseInt` and an overflow check.
fn decode_int<'de, S: Source<'de>, T: Decode + TryFrom<i64>>(
    target: &mut T,
    d: &mut Decoder<'de, S>,
    ty: GoType,
) -> Result<(), Abort> {
    decode_number(target, d, ty, |n| n.as_i64().and_then(|i| T::try_from(i).ok()))
}

impl Decode for i32 {
    fn go_type(_: &str) -> String {
        "int32".into()
    }

    fn shape() -> Shape {
        Shape::Integer
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_int(self, d, ty)
    }
}

impl Decode for i64 {
    fn go_type(_: &str) -> String {
        "int64".into()
    }

    fn shape() -> Shape {
        Shape::Integer
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_int(self, d, ty)
    }
}

impl Decode for u64 {
    fn go_type(_: &str) -> String {
        "uint64".into()
    }

    fn shape() -> Shape {
        Shape::Unsigned
    }

    /// `strconv.ParseUint(s, 10, 64)`.
    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_number(self, d, ty, |number| match number {
            Number::Int(i) => u64::try_from(*i).ok(),
            Number::UInt(u) => Some(*u),
            other => {
                let text = other.text();
                text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse().ok()).flatten()
            }
        })
    }
}

impl Decode for f64 {
    fn go_type(_: &str) -> String {
        "float64".into()
    }

    fn shape() -> Shape {
        Shape::Number
    }

    /// `strconv.ParseFloat(s, 64)`; out of range is an error.
    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        decode_number(self, d, ty, |number| match number {
            Number::Float(f) => Some(*f),
            #[expect(clippy::cast_precision_loss, reason = "as ParseFloat rounds the integer literal")]
            Number::Int(i) => Some(*i as f64),
            #[expect(clippy::cast_precision_loss, reason = "as ParseFloat rounds the integer literal")]
            Number::UInt(u) => Some(*u as f64),
            Number::Text(t) => t.parse::<f64>().ok().filter(|f| f.is_finite()),
        })
    }
}

impl<T: Decode + Default> Decode for Option<T> {
    fn go_type(package: &str) -> String {
        T::go_type(package)
    }

    fn shape() -> Shape {
        T::shape()
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        if d.peek()? == Kind::Null {
            *self = None;
            return d.skip();
        }
        self.get_or_insert_with(T::default).decode(d, ty)
    }
}

impl<T: Decode> Decode for Box<T> {
    fn go_type(package: &str) -> String {
        T::go_type(package)
    }

    fn shape() -> Shape {
        T::shape()
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        (**self).decode(d, ty)
    }
}

/// A slice: `null` makes it nil; an array resets its length and decodes each item into the
/// slot it lands in (Go reuses the old items there).
impl<T: Decode + Default> Decode for Vec<T> {
    fn go_type(package: &str) -> String {
        format!("[]{}", T::go_type(package))
    }

    fn shape() -> Shape {
        Shape::List
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Array => {}
            Kind::Null => {
                self.clear();
                return d.skip();
            }
            other => return d.mismatch::<Self>(other.go_name(), ty),
        }
        let r = d.source.begin_array();
        d.check(r)?;
        let mut i = 0;
        loop {
            let r = d.source.next_item();
            if !d.check(r)? {
                break;
            }
            if i == self.len() {
                self.push(T::default());
            }
            d.path.push(Segment::Index(i));
            let result = self[i].decode(d, GoType::Default);
            d.path.pop();
            if result.is_err() {
                d.recover()?;
            }
            i += 1;
        }
        self.truncate(i);
        Ok(())
    }
}

/// `map[string]T`: `null` makes it nil; an object adds its entries to the map, each value
/// decoded into a zero `T`.
impl<T: Decode + Default> Decode for BTreeMap<String, T> {
    fn go_type(package: &str) -> String {
        format!("map[string]{}", T::go_type(package))
    }

    fn shape() -> Shape {
        Shape::Mapping
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Object => {}
            Kind::Null => {
                self.clear();
                return d.skip();
            }
            other => return d.mismatch::<Self>(other.go_name(), ty),
        }
        let r = d.source.begin_object();
        d.check(r)?;
        // Duplicates are keys seen in this object; a map that already has entries (a
        // duplicate of the field that holds it) keeps them apart.
        let mut seen: Option<Vec<String>> = (!self.is_empty()).then(Vec::new);
        loop {
            let r = d.source.next_key();
            let Some(key) = d.check(r)? else { break };
            if d.options.duplicate_fields {
                let duplicate = match &mut seen {
                    Some(seen) if seen.iter().any(|k| *k == key) => true,
                    Some(seen) => {
                        seen.push(key.to_string());
                        false
                    }
                    None => self.contains_key(key.as_ref()),
                };
                if duplicate {
                    d.save_strict_error(DecodeErrorKind::DuplicateField, &key, true, None);
                }
            }
            let mut value = T::default();
            d.path.push(Segment::Key(key.clone()));
            let result = value.decode(d, GoType::Default);
            d.path.pop();
            if result.is_err() {
                d.recover()?;
            }
            if d.keep_values {
                self.insert(key.into_owned(), value);
            }
        }
        Ok(())
    }
}

/// `metav1.FieldsV1.UnmarshalJSON`: the value's JSON text, copied as it is; `null` leaves it as
/// it was (behind an `Option`, as behind Go's `*FieldsV1`, it is `None`).
impl Decode for FieldsV1 {
    fn go_type(_: &str) -> String {
        "v1.FieldsV1".into()
    }

    fn shape() -> Shape {
        Shape::Any
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, _: GoType) -> Result<(), Abort> {
        if d.peek()? == Kind::Null {
            return d.skip();
        }
        let r = d.source.raw();
        let raw = d.check(r)?;
        *self = FieldsV1::from_raw(raw.as_ref());
        Ok(())
    }
}

/// `resource.Quantity.UnmarshalJSON`: `null` is the zero quantity; anything else is its
/// JSON text without the quotes, trimmed, through `ParseQuantity` of the options' release
/// ([`Quantity::parse_in`]; without one, [`KubernetesVersion::LATEST`]'s) (a number parses;
/// an object does not).
impl Decode for Quantity {
    fn go_type(_: &str) -> String {
        "resource.Quantity".into()
    }

    fn shape() -> Shape {
        Shape::Quantity
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, _: GoType) -> Result<(), Abort> {
        if d.peek()? == Kind::Null {
            *self = Quantity::default();
            return d.skip();
        }
        let r = d.source.raw();
        let raw = d.check(r)?;
        let text = match raw.len() {
            l if l >= 2 && raw.starts_with('"') && raw.ends_with('"') => &raw[1..l - 1],
            _ => raw.as_ref(),
        };
        match Quantity::parse_in(text.trim(), d.options.release.unwrap_or(KubernetesVersion::LATEST)) {
            Ok(q) => {
                *self = q;
                Ok(())
            }
            Err(e) => Err(d.fail_unreadable::<Self>(e.to_string())),
        }
    }
}

/// `metav1.Time.UnmarshalJSON`: `null` is the zero time; a string is parsed with
/// `time.Parse(time.RFC3339, s)`; anything else fails `json.Unmarshal(b, &str)`
/// ([`Decoder::fail_mismatch`]).
impl Decode for Time {
    fn go_type(_: &str) -> String {
        "v1.Time".into()
    }

    fn shape() -> Shape {
        Shape::Time
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, _: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Null => {
                *self = Time::ZERO;
                d.skip()
            }
            Kind::String => {
                let r = d.source.string();
                let s = d.check(r)?;
                match Time::parse_go(&s) {
                    Ok(t) => {
                        *self = t;
                        Ok(())
                    }
                    Err(error) => Err(d.fail(error.to_string())),
                }
            }
            other => {
                d.skip()?;
                Err(d.fail_mismatch::<String>(other.go_name()))
            }
        }
    }
}

#[cfg(test)]
mod tests;
