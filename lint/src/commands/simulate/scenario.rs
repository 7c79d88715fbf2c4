//! The scenario file format: a hand-written YAML file decoded by the one reader of the tools'
//! own files (hpa-yaml's `decode_node` into `#[derive(Decode)]` types, as `.hpa-lint.yaml`), so
//! that every problem carries the position of the text that caused it and its field path. Its
//! `controller:` section is `.hpa-lint.yaml`'s (hpa-config's `ControllerFile`); its pod templates
//! become pods by hpa-core's admission rules ([`TemplateSpec::admitted`]).
//!
//! ```yaml
//! hpa: web-hpa.yaml          # or an inline object under `hpaObject`
//! replicas: 2
//! podTemplate:
//!   containers: [{name: app, requests: {cpu: 20m}}]
//! podReadyAfter: 10s
//! duration: 5m
//! controller: {syncPeriodSeconds: 15, tolerance: 0.1}   # as in .hpa-lint.yaml
//! load:
//!   - at: 0s
//!     metrics: {cpu: {total: 1030m}}
//!   - at: 15s
//!     metrics: {cpu: {perPod: 0}}
//! ```
//!
//! Parsing reads the file alone ([`parse`]); matching the load's metric keys against the HPA's
//! metrics happens in [`bind`], once the HPA is known.

use std::collections::BTreeMap;

use hpa_core::api::Quantity;
use hpa_core::api::quantity::QuantityError;
use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::evaluator::Container;
use hpa_core::evaluator::controller::effective_metrics;
use hpa_core::evaluator::time::format_ms;
use hpa_core::features::Gate;
use hpa_core::rules::objects::{AdmittedPod, TemplateContainer, Workload};

use hpa_core::api::decode::{Abort, Decode, DecodeErrorKind, Decoder, GoType, Kind, Shape, Source};
use hpa_yaml::read::ReadErrorKind;

use crate::controller_flags::{self, ControllerFlags};
use crate::linter::config::ControllerFile;
use crate::source::{Node, NodeKind, Span, Tree};
use hpa_core::evaluator::simulation::{self, LoadPhase, LoadValue, MetricKey, Plan, PodTemplate, UnknownTemplate};

/// A problem in a scenario (or in a file it refers to), at a position of that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

impl ScenarioError {
    fn new(span: Span, message: impl Into<String>) -> ScenarioError {
        ScenarioError { span, message: message.into() }
    }
}

/// A value together with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Its position in the scenario file.
    pub span: Span,
}

/// Where the HPA comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum HpaSource {
    /// `hpa: path`: a manifest file, relative to the scenario's directory.
    File(Spanned<String>),
    /// `hpaObject: {...}`: the object written inline.
    Inline(Tree),
}

/// One `load:` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadEntry {
    /// `at`, in ms since the start.
    pub at_ms: Spanned<i64>,
    /// `metrics`: key → value, in the order written.
    pub metrics: Vec<LoadItem>,
}

/// One metric of a load entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadItem {
    /// The key as written (`cpu`, `container/app/cpu`, `queue_length`).
    pub key: Spanned<String>,
    /// The value.
    pub value: Spanned<LoadValue>,
}

/// A parsed scenario, before the HPA is read.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The scenario's root node (errors without a better place point at it).
    pub span: Span,
    /// `hpa` or `hpaObject`.
    pub hpa: HpaSource,
    /// `hpaName`: which HPA of the file, when it holds several.
    pub hpa_name: Option<Spanned<String>>,
    /// `replicas` at t = 0.
    pub replicas: Option<Spanned<i32>>,
    /// `podTemplate`.
    pub pod_template: Option<Spanned<TemplateSpec>>,
    /// `podStartAfter` (ms): how long a new pod stays Pending.
    pub pod_start_after_ms: i64,
    /// `podReadyAfter` (ms): how long after its creation a new pod becomes Ready.
    pub pod_ready_after_ms: i64,
    /// `metricWindow` (ms): the window of resource-metric samples.
    pub metric_window_ms: Option<i64>,
    /// `selector`: the scale subresource's selector, checked by [`bind`] as the selected
    /// release's `labels.Parse` reads it.
    pub selector: Option<Spanned<String>>,
    /// `duration` (ms).
    pub duration_ms: Spanned<i64>,
    /// `controller`: the controller's flags the scenario sets (the command line's win).
    pub controller: ControllerFlags,
    /// `load`.
    pub load: Vec<LoadEntry>,
}

/// The other fields of a Kubernetes `PodSpec` (core/v1, 1.33–1.38): a template pasted from a
/// workload is taken, these fields ignored (they do not change what the controller computes).
const K8S_POD_FIELDS: &[&str] = &[
    "activeDeadlineSeconds",
    "affinity",
    "automountServiceAccountToken",
    "dnsConfig",
    "dnsPolicy",
    "enableServiceLinks",
    "ephemeralContainers",
    "hostAliases",
    "hostIPC",
    "hostNetwork",
    "hostPID",
    "hostUsers",
    "hostname",
    "hostnameOverride",
    "imagePullSecrets",
    "nodeName",
    "nodeSelector",
    "os",
    "preemptionPolicy",
    "priority",
    "priorityClassName",
    "readinessGates",
    "resourceClaims",
    "restartPolicy",
    "runtimeClassName",
    "schedulerName",
    "schedulingGates",
    "securityContext",
    "serviceAccount",
    "serviceAccountName",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "subdomain",
    "terminationGracePeriodSeconds",
    "tolerations",
    "topologySpreadConstraints",
    "volumes",
];
/// The other fields of a Kubernetes `Container` (core/v1, 1.33–1.38), ignored likewise.
const K8S_CONTAINER_FIELDS: &[&str] = &[
    "args",
    "command",
    "env",
    "envFrom",
    "image",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "ports",
    "readinessProbe",
    "resizePolicy",
    "restartPolicyRules",
    "securityContext",
    "startupProbe",
    "stdin",
    "stdinOnce",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "tty",
    "volumeDevices",
    "volumeMounts",
    "workingDir",
];
/// The other fields of a Kubernetes `ResourceRequirements`, ignored likewise.
const K8S_RESOURCES_FIELDS: &[&str] = &["claims"];

/// A scenario's `podTemplate` as written: hpa-core's [`Workload`] (its containers and
/// pod-level resources), which the pods are made from as kube-apiserver admits them
/// ([`TemplateSpec::admitted`]), and the RuntimeClass's overhead admission adds to each pod.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TemplateSpec {
    /// The template's containers and pod-level `resources`.
    pub workload: Workload,
    /// `spec.overhead`, in milli-units.
    pub overhead_milli: BTreeMap<String, i64>,
}

impl TemplateSpec {
    /// The pods' spec as kube-apiserver admits them (hpa-core's [`PodTemplate::admitted`], the
    /// rules' [`AdmittedPod`]; `pod_level_resources`: the `PodLevelResources` gate), with the
    /// overhead.
    pub fn admitted(&self, pod_level_resources: bool) -> PodTemplate {
        let mut template = PodTemplate::admitted(&AdmittedPod::new(&self.workload, &[], pod_level_resources));
        template.overhead_milli = self.overhead_milli.clone();
        template
    }
}

/// A value of a scenario that does not read as what its field takes (a duration, a load
/// quantity, a percentage); the message quotes the text as written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// Nothing but spaces.
    #[error("empty duration")]
    EmptyDuration,
    /// A duration below zero.
    #[error("duration {0:?} must not be negative")]
    NegativeDuration(String),
    /// Not a Go duration (`time.ParseDuration`'s words).
    #[error(transparent)]
    Syntax(#[from] hpa_core::go::DurationError),
    /// Longer than the simulation can count in milliseconds.
    #[error("duration {0:?} is too long")]
    TooLong(String),
    /// Not a whole number of milliseconds.
    #[error("duration {0:?} is finer than a millisecond")]
    FinerThanMillisecond(String),
    /// Not a Kubernetes quantity.
    #[error("invalid quantity {text:?}: {source}")]
    Quantity {
        /// The quantity as written.
        text: String,
        /// Why apimachinery would refuse it.
        source: QuantityError,
    },
    /// A load below zero.
    #[error("{0} is negative; loads must not be negative")]
    NegativeLoad(String),
    /// A value past what the controller holds in milli-units (an int64: `MilliValue()`).
    #[error(
        "{0} is more than the controller counts: it reads usage and requests in milli-units into an int64 (at most 9223372036854775807m, about 9.2e15); write a smaller value"
    )]
    PastMilliRange(String),
    /// Not a number.
    #[error("invalid percentage {0:?}: expected a number such as 80")]
    NotAPercentage(String),
    /// A number too large for a float (`1e400`).
    #[error("percentage {0:?} is too large")]
    PercentageTooLarge(String),
}

/// Parses a duration as Go's `time.ParseDuration` does (`90s`, `5m`, `1h30m`, `1.5s`,
/// `250ms`), or a plain number of seconds. Durations are non-negative and whole milliseconds.
pub fn parse_duration(text: &str) -> Result<i64, ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError::EmptyDuration);
    }
    // A plain number is seconds.
    if let Some(secs) = decimal(t) {
        return millis_of(secs * 1000.0, t);
    }
    let nanos = hpa_core::go::parse_duration(t)?;
    if nanos < 0 {
        return Err(ValueError::NegativeDuration(t.to_string()));
    }
    if nanos % 1_000_000 != 0 {
        return Err(ValueError::FinerThanMillisecond(t.to_string()));
    }
    millis_of((nanos / 1_000_000) as f64, t)
}

fn millis_of(ms: f64, text: &str) -> Result<i64, ValueError> {
    if ms < 0.0 {
        return Err(ValueError::NegativeDuration(text.to_string()));
    }
    if !ms.is_finite() || ms > 1e15 {
        return Err(ValueError::TooLong(text.to_string()));
    }
    let rounded = ms.round();
    if (ms - rounded).abs() > 1e-6 {
        return Err(ValueError::FinerThanMillisecond(text.to_string()));
    }
    Ok(rounded as i64)
}

/// `text` as a decimal number (an optional sign, then digits with an optional fraction and
/// exponent: `15`, `7.5`, `.5`, `1e3`), not the words Rust's float parsing also takes (`inf`,
/// `infinity`, `NaN`), which are no number of seconds or percentage a scenario can mean; a
/// number too large for a float is infinite.
fn decimal(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') { text.parse().ok() } else { None }
}

/// Parses a non-negative quantity (`500m`, `2Gi`, `10`, `0.5`) into milli-units.
pub fn parse_quantity_milli(text: &str) -> Result<i64, ValueError> {
    non_negative_quantity(text).map(|q| q.milli_value())
}

/// A Kubernetes quantity that is not negative (a load, a request).
fn non_negative_quantity(text: &str) -> Result<Quantity, ValueError> {
    let q = Quantity::parse(text.trim()).map_err(|source| ValueError::Quantity { text: text.to_string(), source })?;
    if q.sign() < 0 {
        return Err(ValueError::NegativeLoad(text.to_string()));
    }
    if past_milli_range(&q) {
        return Err(ValueError::PastMilliRange(text.to_string()));
    }
    Ok(q)
}

/// Whether a quantity's value in milli-units is past an int64: what the controller's
/// `MilliValue()` cannot hold (it wraps before 1.38 and saturates from 1.38, #141305), and a
/// simulation, which splits and sums the values, cannot mean.
fn past_milli_range(q: &Quantity) -> bool {
    q.cmp_value(&Quantity::from_milli(i64::MAX)) == std::cmp::Ordering::Greater
}

/// Parses a percentage: `150`, `37.5` or `"80%"`.
pub fn parse_percent(text: &str) -> Result<f64, ValueError> {
    let t = text.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    let p = decimal(t).ok_or_else(|| ValueError::NotAPercentage(text.to_string()))?;
    if !p.is_finite() {
        return Err(ValueError::PercentageTooLarge(text.to_string()));
    }
    if p < 0.0 {
        return Err(ValueError::NegativeLoad(text.to_string()));
    }
    Ok(p)
}

/// The scenario file as the one decoder reads it (hpa-yaml's `decode_node`): unknown and
/// duplicate fields refused, a value of the wrong type worded plainly, with its field path.
/// What the fields mean together (`hpa` or `hpaObject`, load times in order) is [`parse`]'s.
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "Scenario", rename_all = "camelCase")]
struct ScenarioFile {
    hpa: Option<String>,
    hpa_object: Option<InlineObject>,
    hpa_name: Option<String>,
    replicas: Option<i32>,
    pod_template: Option<PodTemplateFile>,
    pod_start_after: Option<Millis>,
    pod_ready_after: Option<Millis>,
    metric_window: Option<Millis>,
    selector: Option<String>,
    duration: Option<Millis>,
    controller: Option<ControllerFile>,
    load: Option<Vec<LoadEntryFile>>,
}

/// A scenario's `podTemplate`: the pod's fields (`containers`, ...), or a real pod template
/// (`metadata` and `spec`) pasted from a workload, whose other Kubernetes fields are taken and
/// ignored (`K8S_POD_FIELDS`).
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "PodTemplate", rename_all = "camelCase", ignore = "K8S_POD_FIELDS")]
struct PodTemplateFile {
    metadata: Option<Ignored>,
    spec: Option<PodSpecFile>,
    containers: Option<Vec<ContainerFile>>,
    init_containers: Vec<ContainerFile>,
    resources: Option<ResourcesFile>,
    overhead: Option<BTreeMap<String, NonNegative>>,
}

/// `podTemplate.spec`: the fields of a pod spec the simulation reads, the others ignored.
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "PodSpec", rename_all = "camelCase", ignore = "K8S_POD_FIELDS")]
struct PodSpecFile {
    containers: Option<Vec<ContainerFile>>,
    init_containers: Vec<ContainerFile>,
    resources: Option<ResourcesFile>,
    overhead: Option<BTreeMap<String, NonNegative>>,
}

/// A container of a scenario's `podTemplate`: `{name, requests}` or `{name, resources}`
/// (`restartPolicy: Always` makes an init container a sidecar).
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "Container", rename_all = "camelCase", ignore = "K8S_CONTAINER_FIELDS")]
struct ContainerFile {
    name: String,
    requests: BTreeMap<String, NonNegative>,
    resources: Option<ResourcesFile>,
    restart_policy: Option<String>,
}

/// `resources` of a scenario's container and pod: what kube-apiserver admits the pod with
/// ([`TemplateSpec::admitted`]: a limit without a request is the request, pod-level requests
/// as `defaultPodRequests` sets them).
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "ResourceRequirements", rename_all = "camelCase", ignore = "K8S_RESOURCES_FIELDS")]
struct ResourcesFile {
    requests: BTreeMap<String, NonNegative>,
    limits: BTreeMap<String, NonNegative>,
}

/// One `load:` entry as written.
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "LoadEntry")]
struct LoadEntryFile {
    at: Option<Millis>,
    metrics: Option<BTreeMap<String, Load>>,
}

/// A metric's load written as a mapping: one of its four keys.
#[derive(Debug, Default, Decode)]
#[go(package = "scenario", name = "Load", rename_all = "camelCase")]
struct LoadFields {
    per_pod: Option<NonNegative>,
    total: Option<NonNegative>,
    utilization: Option<Percent>,
    value: Option<NonNegative>,
}

/// Any value, skipped: `podTemplate.metadata`, which the simulation does not read.
#[derive(Debug, Default)]
struct Ignored;

impl Decode for Ignored {
    fn go_type(_: &str) -> String {
        "interface {}".into()
    }

    fn shape() -> Shape {
        Shape::Any
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, _: GoType) -> Result<(), Abort> {
        d.skip()
    }
}

/// `hpaObject`: an object, decoded later as the HPA it is (from its node), skipped here.
#[derive(Debug, Default)]
struct InlineObject;

impl Decode for InlineObject {
    fn go_type(_: &str) -> String {
        "scenario.HorizontalPodAutoscaler".into()
    }

    fn shape() -> Shape {
        Shape::Described("a HorizontalPodAutoscaler object (a mapping)")
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::Object => d.skip(),
            other => d.mismatch::<Self>(other.go_name(), ty),
        }
    }
}

/// A value a scenario takes as a string or a number (a number as its JSON text), read by
/// `parse` (a duration, a percentage): `None` (and a type error recorded) for anything else, the
/// error of `parse` where decoding stops.
fn scalar<'de, T: Decode, S: Source<'de>, V>(
    d: &mut Decoder<'de, S>,
    ty: GoType,
    parse: fn(&str) -> Result<V, ValueError>,
) -> Result<Option<V>, Abort> {
    let text = match d.peek()? {
        Kind::String => {
            let r = d.source().string();
            d.check(r)?.into_owned()
        }
        Kind::Number => {
            let r = d.source().number();
            d.check(r)?.text().into_owned()
        }
        other => return d.mismatch::<T>(other.go_name(), ty).map(|()| None),
    };
    parse(&text).map(Some).map_err(|e| d.fail(e.to_string()))
}

/// A duration of a scenario, in milliseconds: a Go duration (`90s`, `1h30m`) or a number of
/// seconds ([`parse_duration`]).
#[derive(Debug, Default, Clone, Copy)]
struct Millis(i64);

impl Decode for Millis {
    fn go_type(_: &str) -> String {
        "scenario.Duration".into()
    }

    fn shape() -> Shape {
        Shape::Described("a duration such as 30s, 5m or 1h30m, or a number of seconds")
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        if let Some(value) = scalar::<Self, S, _>(d, ty, parse_duration)? {
            *self = Millis(value);
        }
        Ok(())
    }
}

/// A percentage of a load (`utilization`): `150`, `37.5` or `"80%"` ([`parse_percent`]).
#[derive(Debug, Default, Clone, Copy)]
struct Percent(f64);

impl Decode for Percent {
    fn go_type(_: &str) -> String {
        "scenario.Percentage".into()
    }

    fn shape() -> Shape {
        Shape::Described("a percentage such as 80")
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        if let Some(value) = scalar::<Self, S, _>(d, ty, parse_percent)? {
            *self = Percent(value);
        }
        Ok(())
    }
}

/// A quantity that is not negative (a load, a request): `resource.Quantity`'s decoding, then
/// the sign.
#[derive(Debug, Default, Clone)]
struct NonNegative(Quantity);

impl Decode for NonNegative {
    fn go_type(package: &str) -> String {
        Quantity::go_type(package)
    }

    fn shape() -> Shape {
        Quantity::shape()
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        self.0.decode(d, ty)?;
        if self.0.sign() < 0 {
            return Err(d.fail(ValueError::NegativeLoad(self.0.to_string()).to_string()));
        }
        if past_milli_range(&self.0) {
            return Err(d.fail(ValueError::PastMilliRange(self.0.to_string()).to_string()));
        }
        Ok(())
    }
}

/// A metric's load: `unavailable`, or a mapping of exactly one of `perPod`, `total`,
/// `utilization` (a percentage) and `value`.
#[derive(Debug, Default, Clone, Copy)]
struct Load(Option<LoadValue>);

impl Decode for Load {
    fn go_type(_: &str) -> String {
        "scenario.Load".into()
    }

    fn shape() -> Shape {
        Shape::Described(
            "unavailable, or a mapping with one of perPod, total, utilization or value (e.g. {total: 500m})",
        )
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
        match d.peek()? {
            Kind::String => {
                let r = d.source().string();
                let text = d.check(r)?;
                if text != "unavailable" {
                    return Err(d.fail(format!(
                        "expected unavailable, or a mapping with one of perPod, total, utilization or value (e.g. {{total: 500m}}), found the string {text:?}"
                    )));
                }
                *self = Load(Some(LoadValue::Unavailable));
                Ok(())
            }
            Kind::Object => {
                let mut fields = LoadFields::default();
                fields.decode(d, GoType::Default)?;
                let given = [
                    fields.per_pod.map(|q| LoadValue::PerPod(q.0.milli_value())),
                    fields.total.map(|q| LoadValue::Total(q.0.milli_value())),
                    fields.utilization.map(|p| LoadValue::Utilization(p.0)),
                    fields.value.map(|q| LoadValue::Value(q.0.milli_value())),
                ];
                let mut given = given.into_iter().flatten();
                match (given.next(), given.next()) {
                    (Some(value), None) => {
                        *self = Load(Some(value));
                        Ok(())
                    }
                    (None, _) => Err(d.fail(NO_LOAD_VALUE.into())),
                    (Some(_), Some(_)) => Err(d.fail("give exactly one of perPod, total, utilization or value".into())),
                }
            }
            other => d.mismatch::<Self>(other.go_name(), ty),
        }
    }
}

/// A scenario's `podTemplate` as a [`TemplateSpec`], `path` being where it is written (for the
/// position of its problems): its containers, sidecars among them, as hpa-core's
/// `workload_from` counts them, its pod-level resources and overhead.
fn template_spec(
    file: PodTemplateFile,
    root: Node<'_>,
    path: &str,
    errs: &mut Vec<ScenarioError>,
) -> Option<TemplateSpec> {
    // One locator for all: a problem per container, each located from the root, would walk
    // the containers before it every time.
    let mut locator = hpa_yaml::Locator::new(root);
    let mut at = |p: &str| locator.locate(p).span;
    let (spec, path) = match file.spec {
        Some(spec) => {
            let own = [
                file.containers.is_some(),
                !file.init_containers.is_empty(),
                file.resources.is_some(),
                file.overhead.is_some(),
            ];
            if own.contains(&true) {
                errs.push(ScenarioError::new(
                    at(path),
                    format!(
                        "{path}: give either the pod template's `spec` or the pod's fields (containers, ...), not both"
                    ),
                ));
                return None;
            }
            (spec, format!("{path}.spec"))
        }
        None => (
            PodSpecFile {
                containers: file.containers,
                init_containers: file.init_containers,
                resources: file.resources,
                overhead: file.overhead,
            },
            path.to_string(),
        ),
    };
    let before = errs.len();
    let mut t = TemplateSpec::default();
    let w = &mut t.workload;
    let Some(containers) = spec.containers else {
        errs.push(ScenarioError::new(at(&path), format!("{path}: a pod template needs `containers`")));
        return None;
    };
    // Container names are unique across `containers` and `initContainers`, as kube-apiserver's
    // pod validation has them (`Duplicate value`): a `container/<name>/<resource>` key names one.
    let mut names: Vec<String> = Vec::new();
    let mut container = |c: ContainerFile, field: &str, index: usize, init: bool| {
        let here = format!("{path}.{field}[{index}]");
        if c.name.is_empty() {
            errs.push(ScenarioError::new(at(&here), format!("{here}: a container needs a `name`")));
        } else if names.contains(&c.name) {
            let name = format!("{here}.name");
            errs.push(ScenarioError::new(
                at(&name),
                format!("{name}: another container is named {:?}: give each its own name", c.name),
            ));
        } else {
            names.push(c.name.clone());
        }
        let mut requests: BTreeMap<String, Quantity> = c.requests.into_iter().map(|(k, q)| (k, q.0)).collect();
        let mut limits = BTreeMap::new();
        if let Some(r) = c.resources {
            requests.extend(r.requests.into_iter().map(|(k, q)| (k, q.0)));
            limits.extend(r.limits.into_iter().map(|(k, q)| (k, q.0)));
        }
        // What hpa-core's `TemplateContainer` keeps of the limits: those without a request.
        let limits_as_requests = limits.into_iter().filter(|(name, _)| !requests.contains_key(name)).collect();
        TemplateContainer {
            index,
            name: c.name,
            requests,
            limits_as_requests,
            sidecar: init && c.restart_policy.as_deref() == Some("Always"),
            ..TemplateContainer::default()
        }
    };
    w.containers = containers.into_iter().enumerate().map(|(i, c)| container(c, "containers", i, false)).collect();
    // Restartable init containers (sidecars) count with the containers, as in hpa-core's
    // `workload_from`; the others only in the pod's aggregate requests.
    for (i, c) in spec.init_containers.into_iter().enumerate() {
        let c = container(c, "initContainers", i, true);
        if c.sidecar { w.containers.push(c) } else { w.init_containers.push(c) }
    }
    if let Some(r) = spec.resources {
        w.pod_requests = r.requests.into_iter().map(|(k, q)| (k, q.0)).collect();
        w.pod_limits = r.limits.into_iter().map(|(k, q)| (k, q.0)).collect();
    }
    // `spec.overhead`, as admission sets it from the RuntimeClass: the controller adds it to
    // pod-level requests in 1.34 to 1.37.
    t.overhead_milli = spec.overhead.unwrap_or_default().into_iter().map(|(k, q)| (k, q.0.milli_value())).collect();
    if errs.len() > before {
        return None;
    }
    if t.workload.containers.iter().all(|c| c.sidecar) {
        errs.push(ScenarioError::new(at(&path), format!("{path}: a pod template needs at least one container")));
        return None;
    }
    Some(t)
}

/// Decodes the scenario document `root` (`ScenarioFile`) with the one decoder, going on past
/// every value it cannot read (hpa-yaml's `read::decode_node_every_error`), as `hpa-lint validate`
/// reports every object of a file: each value of the wrong type, each value refused (a
/// duration, a quantity, a load) and each unknown or duplicate field, in the order of the file,
/// at its place and worded as hpa-yaml words the problems of the tools' own files
/// (`read::plain_message`).
fn decode_every_problem(root: Node<'_>) -> Result<ScenarioFile, Vec<ScenarioError>> {
    hpa_yaml::read::decode_node_every_error(root, "scenario").map_err(|errors| {
        errors
            .into_iter()
            .map(|e| {
                if e.message == NO_LOAD_VALUE
                    && let Some(empty) = empty_load_value(root, &e.path)
                {
                    return empty;
                }
                // A refused value's own words, prefixed with its field path as the plain words
                // for a value of the wrong type have it.
                let message = match e.kind {
                    ReadErrorKind::Decode(DecodeErrorKind::InvalidValue)
                        if !e.path.is_empty() && !e.message.starts_with(&format!("{}: ", e.path)) =>
                    {
                        format!("{}: {}", e.path, e.message)
                    }
                    _ => e.message,
                };
                ScenarioError::new(e.span, message)
            })
            .collect()
    })
}

/// What a load mapping without a value is told.
const NO_LOAD_VALUE: &str = "give one of perPod, total, utilization or value";

/// A load mapping at `path` whose value is written without one (`total:`, null): that key's
/// problem, at the key, saying what to write.
fn empty_load_value(root: Node<'_>, path: &str) -> Option<ScenarioError> {
    let node = hpa_yaml::locate_node(root, path)?;
    let NodeKind::Map(mut entries) = node.kind() else { return None };
    entries.find_map(|e| {
        let key = e.key.key_string();
        let what = match key.as_str() {
            "utilization" => "a percentage such as 80",
            "perPod" | "total" | "value" => "a quantity such as 500m",
            _ => return None,
        };
        matches!(e.value.kind(), NodeKind::Scalar(hpa_yaml::Scalar::Null)).then(|| {
            ScenarioError::new(
                e.key.span(),
                format!(
                    "{path}.{key}: empty: write {what}, or `unavailable` in place of the mapping for a metric with no value"
                ),
            )
        })
    })
}

/// Parses a scenario document, `root`: decodes it, reporting every value it cannot
/// read, then checks what its fields mean together, each problem at its place.
pub fn parse(root: Node<'_>) -> Result<Scenario, Vec<ScenarioError>> {
    let file = decode_every_problem(root)?;
    let mut errs: Vec<ScenarioError> = Vec::new();
    let located = |path: &str| hpa_yaml::locate(root, path);
    let at = |path: &str| located(path).span;
    let push =
        |errs: &mut Vec<ScenarioError>, path: &str, message: String| errs.push(ScenarioError::new(at(path), message));

    let hpa = match (file.hpa, file.hpa_object) {
        (Some(path), None) if path.is_empty() => {
            push(&mut errs, "hpa", "hpa: give the path of the HPA manifest".into());
            None
        }
        (Some(path), None) => Some(HpaSource::File(Spanned { value: path, span: at("hpa") })),
        (None, Some(InlineObject)) => root.get("hpaObject").map(|obj| HpaSource::Inline(obj.to_tree())),
        (Some(_), Some(_)) => {
            let span = located("hpa").key_span.unwrap_or_else(|| at("hpa"));
            errs.push(ScenarioError::new(span, "give either `hpa` (a file) or `hpaObject` (inline), not both"));
            None
        }
        (None, None) => {
            errs.push(ScenarioError::new(
                root.span(),
                "missing `hpa` (the HPA manifest file) or `hpaObject` (the HPA inline)",
            ));
            None
        }
    };
    let non_empty = |errs: &mut Vec<ScenarioError>, field: &str, value: Option<String>| match value {
        Some(v) if v.is_empty() => {
            push(errs, field, format!("{field}: must not be empty"));
            None
        }
        v => v,
    };
    let hpa_name = non_empty(&mut errs, "hpaName", file.hpa_name).map(|value| Spanned { value, span: at("hpaName") });
    // The scale's `status.selector`: whether it parses depends on the release, chosen after the
    // scenario is read (its `controller:` is one of the layers), so [`bind`] checks it.
    let selector = non_empty(&mut errs, "selector", file.selector).map(|value| Spanned { value, span: at("selector") });
    let replicas = match file.replicas {
        Some(r) if r < 0 => {
            push(&mut errs, "replicas", format!("replicas: expected a whole number of 0 or more, found {r}"));
            None
        }
        r => r.map(|value| Spanned { value, span: at("replicas") }),
    };
    let pod_template = file.pod_template.and_then(|t| {
        template_spec(t, root, "podTemplate", &mut errs).map(|value| Spanned { value, span: at("podTemplate") })
    });
    let metric_window_ms = file.metric_window.map(|m| m.0);
    if metric_window_ms == Some(0) {
        push(&mut errs, "metricWindow", "metricWindow: must be longer than 0s".into());
    }
    let duration_ms = match file.duration {
        Some(Millis(0)) => {
            push(&mut errs, "duration", "duration: must be longer than 0s".into());
            None
        }
        Some(Millis(ms)) => Some(Spanned { value: ms, span: at("duration") }),
        None => {
            errs.push(ScenarioError::new(root.span(), "missing `duration` (how long to simulate, e.g. 10m)"));
            None
        }
    };

    // `controller:` is `.hpa-lint.yaml`'s section, read by the same decoder into the same type
    // and checked by the same function.
    let controller = file.controller.map_or_else(ControllerFlags::default, |c| {
        let flags = ControllerFlags::from(&c);
        if let Err(e) = controller_flags::check(&flags) {
            let path = format!("controller.{}", e.key());
            push(&mut errs, &path, format!("{path} {e}"));
        }
        flags
    });

    let load = load(file.load.unwrap_or_default(), root, &mut errs);

    match (hpa, duration_ms) {
        (Some(hpa), Some(duration_ms)) if errs.is_empty() => Ok(Scenario {
            span: root.span(),
            hpa,
            hpa_name,
            replicas,
            pod_template,
            pod_start_after_ms: file.pod_start_after.map_or(0, |m| m.0),
            pod_ready_after_ms: file.pod_ready_after.map_or(0, |m| m.0),
            metric_window_ms,
            selector,
            duration_ms,
            controller,
            load,
        }),
        _ => Err(errs),
    }
}

/// The `load:` entries, in order of their times, each metric in the order written (from the
/// nodes: the decoded mapping is sorted), with where each is written.
fn load(entries: Vec<LoadEntryFile>, root: Node<'_>, errs: &mut Vec<ScenarioError>) -> Vec<LoadEntry> {
    let mut out: Vec<LoadEntry> = Vec::new();
    // One locator for every entry: `load[i]` located from the root each time would walk the
    // entries before it, quadratic in a long load.
    let mut locator = hpa_yaml::Locator::new(root);
    for (i, entry) in entries.into_iter().enumerate() {
        let path = format!("load[{i}]");
        let item = locator.locate(&path);
        let Some(Millis(at_ms)) = entry.at else {
            errs.push(ScenarioError::new(
                item.span,
                format!("{path}: a load entry needs `at` (when it starts, e.g. 30s)"),
            ));
            continue;
        };
        let at = Spanned { value: at_ms, span: locator.locate(&format!("{path}.at")).span };
        if let Some(prev) = out.last()
            && at.value <= prev.at_ms.value
        {
            errs.push(ScenarioError::new(
                at.span,
                format!(
                    "{path}.at: load times out of order: {} is not after the previous entry's {}",
                    format_ms(at.value),
                    format_ms(prev.at_ms.value)
                ),
            ));
        }
        let (Some(values), Some(NodeKind::Map(written))) =
            (entry.metrics, item.node.and_then(|n| n.get("metrics")).map(|n| n.kind()))
        else {
            errs.push(ScenarioError::new(item.span, format!("{path}: a load entry needs `metrics`")));
            continue;
        };
        let mut metrics = Vec::new();
        for e in written {
            let key = e.key.key_string();
            if key.is_empty() {
                errs.push(ScenarioError::new(e.key.span(), format!("{path}.metrics: a metric key must not be empty")));
                continue;
            }
            if let Some(Load(Some(value))) = values.get(&key) {
                metrics.push(LoadItem {
                    key: Spanned { value: key, span: e.key.span() },
                    value: Spanned { value: *value, span: e.value.span() },
                });
            }
        }
        out.push(LoadEntry { at_ms: at, metrics });
    }
    out
}

/// The request a utilization load of `key` is a percentage of, in milli-units: the named
/// container's for a ContainerResource metric, the pod's (pod-level, else its containers' and
/// sidecars' sum) for a Resource metric; `None` for other metrics.
fn utilization_request(template: &PodTemplate, key: &MetricKey) -> Option<i64> {
    let sidecars = || template.init_containers.iter().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    let containers = || template.containers.iter().chain(sidecars());
    match key {
        MetricKey::Resource(r) => Some(template.pod_requests_milli.get(r).copied().unwrap_or_else(|| {
            containers().filter_map(|c| c.requests_milli.get(r)).fold(0i64, |a, v| a.saturating_add(*v))
        })),
        MetricKey::Container { container, resource } => {
            containers().find(|c| c.name == *container)?.requests_milli.get(resource).copied()
        }
        _ => None,
    }
}

/// What the scenario needs besides itself to become a [`Plan`].
#[derive(Debug, Clone)]
pub struct PlanInputs {
    /// The HPA (defaulted, internal form).
    pub hpa: HorizontalPodAutoscaler,
    /// The pod template of the target workload, when it was found next to the HPA, or why it
    /// is not known.
    pub workload_template: Result<PodTemplate, UnknownTemplate>,
    /// The workload's `spec.replicas`, when set.
    pub workload_replicas: Option<i32>,
    /// Where to point errors about the HPA reference (the `hpa`/`hpaObject` value).
    pub hpa_span: Span,
    /// The controller's configuration (the scenario's `controller:` and the command line
    /// applied).
    pub options: hpa_core::evaluator::HPAControllerConfiguration,
}

/// Checks the scenario against its HPA and builds the engine's plan: every load key must name
/// one of the HPA's metrics and every value must suit that metric's type.
pub fn bind(s: &Scenario, ctx: PlanInputs) -> Result<Plan, Vec<ScenarioError>> {
    let mut errs: Vec<ScenarioError> = Vec::new();
    // The scale's `status.selector`, which the controller parses at every sync (`labels.Parse`)
    // as its release parses it: one that does not parse is a slip of the scenario's, refused
    // where it is written, in that release's words.
    if let Some(selector) = &s.selector
        && let Err(e) = hpa_core::api::labels::parse(&selector.value, ctx.options.release())
    {
        errs.push(ScenarioError::new(selector.span, format!("selector: {e}: write a label selector such as app=web")));
    }
    let specs = effective_metrics(&ctx.hpa);
    // The distinct keys the HPA's metrics use, with the metric types behind each.
    let mut keys: Vec<(String, MetricKey)> = Vec::new();
    let mut bindings = Vec::with_capacity(specs.len());
    for spec in specs.iter() {
        let slot = MetricKey::of(spec).map(|k| {
            let text = k.to_string();
            match keys.iter().position(|(t, kk)| *t == text && *kk == k) {
                Some(i) => i,
                None => {
                    keys.push((text, k));
                    keys.len() - 1
                }
            }
        });
        bindings.push(slot);
    }
    let template = match (&s.pod_template, &ctx.workload_template) {
        (Some(t), _) => Some(t.value.admitted(ctx.options.gates.enabled(Gate::PodLevelResources))),
        (None, Ok(t)) => Some(t.clone()),
        (None, Err(_)) => None,
    };
    let needs_requests = specs.iter().any(|m| {
        let t = m.resource.as_ref().map(|r| &r.target).or_else(|| m.container_resource.as_ref().map(|r| &r.target));
        t.is_some_and(|t| t.type_ == "Utilization")
    });
    if let (None, true, Err(why)) = (&template, needs_requests, &ctx.workload_template) {
        let target = format!("{}/{}", ctx.hpa.spec.scale_target_ref.kind, ctx.hpa.spec.scale_target_ref.name);
        let why = match why {
            UnknownTemplate::NotFound => format!("the target {target} is not in the HPA's file"),
            UnknownTemplate::CustomResource => format!(
                "the target {target} is a custom resource: its operator makes its pods from a template only it knows"
            ),
            UnknownTemplate::Referenced(workload) => format!(
                "{workload}, whose pod template the target {target} uses (spec.workloadRef), is not in the HPA's file"
            ),
            UnknownTemplate::NoPods => format!("the target {target} has no pod template with a container"),
        };
        errs.push(ScenarioError::new(
            ctx.hpa_span,
            format!(
                "the HPA has a Utilization metric, so the pods need resource requests: add a `podTemplate` ({why})"
            ),
        ));
    }
    let template = template.unwrap_or_else(|| PodTemplate {
        containers: vec![Container { name: "app".into(), ..Container::default() }],
        ..PodTemplate::default()
    });

    let mut load: Vec<LoadPhase> = Vec::with_capacity(s.load.len());
    let mut current: Vec<Option<LoadValue>> = vec![None; keys.len()];
    let known = || keys.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(", ");
    for entry in &s.load {
        for item in &entry.metrics {
            let matching: Vec<usize> =
                keys.iter().enumerate().filter(|(_, (t, _))| *t == item.key.value).map(|(i, _)| i).collect();
            if matching.is_empty() {
                let hint = if item.key.value.starts_with("container/") {
                    " (container keys are container/<container>/<resource>)"
                } else {
                    ""
                };
                errs.push(ScenarioError::new(
                    item.key.span,
                    format!("unknown metric key `{}`{hint}; the HPA's metrics are: {}", item.key.value, known()),
                ));
                continue;
            }
            for i in matching {
                let Some((_, key)) = keys.get(i) else { continue };
                if let Err(m) = key.accepts(&item.value.value) {
                    errs.push(ScenarioError::new(item.value.span, format!("`{}`: {m}", item.key.value)));
                    continue;
                }
                if let MetricKey::Container { container, .. } = key
                    && !template.containers.iter().chain(&template.init_containers).any(|c| c.name == *container)
                {
                    errs.push(ScenarioError::new(
                        item.key.span,
                        format!("container `{container}` is not in the pod template"),
                    ));
                    continue;
                }
                // A utilization makes each pod's usage its request times the percentage: past an
                // int64 of milli-units, what no metrics API reports and the controller cannot read.
                if let LoadValue::Utilization(percent) = item.value.value
                    && let Some(request) = utilization_request(&template, key)
                    && request as f64 * percent / 100.0 > i64::MAX as f64
                {
                    errs.push(ScenarioError::new(
                        item.value.span,
                        format!(
                            "`{}`: {percent} % of the pods' request ({request}m) is more than the controller counts: it reads usage in milli-units into an int64 (at most 9223372036854775807m); write a smaller percentage",
                            item.key.value
                        ),
                    ));
                    continue;
                }
                if let Some(slot) = current.get_mut(i) {
                    *slot = Some(item.value.value);
                }
            }
        }
        load.push(LoadPhase { at_ms: entry.at_ms.value, values: current.clone() });
    }

    let replicas = s
        .replicas
        .as_ref()
        .map(|r| r.value)
        .or(ctx.workload_replicas)
        .unwrap_or_else(|| ctx.hpa.spec.min_replicas.unwrap_or(1));
    // Each sync is kept: a duration of millions of syncs (`1000000h`) would take the memory
    // before it ended.
    let period_ms = ctx.options.sync_period_millis();
    let syncs = simulation::sync_count(s.duration_ms.value, period_ms);
    if syncs > simulation::MAX_SYNCS {
        errs.push(ScenarioError::new(
            s.duration_ms.span,
            format!(
                "duration: {} is {syncs} syncs every {}; simulate at most {} syncs ({} at this sync period)",
                format_ms(s.duration_ms.value),
                format_ms(period_ms),
                simulation::MAX_SYNCS,
                format_ms((simulation::MAX_SYNCS - 1).saturating_mul(period_ms.max(1))),
            ),
        ));
    }
    // A load entry no sync reads (its `at` after the last sync before `duration`) would be left
    // out without a word.
    let first_ms = i64::try_from(ctx.options.first_sync_after_creation().as_millis()).unwrap_or(i64::MAX);
    let last_ms = simulation::last_sync_ms(s.duration_ms.value, period_ms, first_ms);
    for (i, entry) in s.load.iter().enumerate() {
        if last_ms.is_none_or(|last| entry.at_ms.value > last) {
            let syncs = match last_ms {
                Some(last) => format!(
                    "the last sync is at {} (every {} from {}, before duration {})",
                    format_ms(last),
                    format_ms(period_ms),
                    format_ms(first_ms),
                    format_ms(s.duration_ms.value)
                ),
                None => format!(
                    "no sync comes before duration {} (the first is at {})",
                    format_ms(s.duration_ms.value),
                    format_ms(first_ms)
                ),
            };
            // The first sync at or after it: the duration must pass it.
            let period = period_ms.max(1);
            let reader = first_ms.saturating_add(
                entry.at_ms.value.saturating_sub(first_ms).max(0).saturating_add(period - 1) / period * period,
            );
            errs.push(ScenarioError::new(
                entry.at_ms.span,
                format!(
                    "load[{i}].at: no sync reads the load from {}: {syncs}; make duration longer than {} (the sync that would read it) or remove the entry",
                    format_ms(entry.at_ms.value),
                    format_ms(reader)
                ),
            ));
        }
    }
    let metric_window_ms = s.metric_window_ms.unwrap_or(15_000);
    let selector =
        s.selector.as_ref().map_or_else(|| format!("app={}", ctx.hpa.spec.scale_target_ref.name), |s| s.value.clone());
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(Plan {
        hpa: ctx.hpa,
        options: ctx.options,
        initial_replicas: replicas,
        template,
        pod_start_after_ms: s.pod_start_after_ms,
        pod_ready_after_ms: s.pod_ready_after_ms.max(s.pod_start_after_ms),
        metric_window: std::time::Duration::from_millis(u64::try_from(metric_window_ms).unwrap_or(15_000)),
        selector,
        duration_ms: s.duration_ms.value,
        keys: keys.into_iter().map(|(_, k)| k).collect(),
        bindings,
        load,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn durations() {
        let ok = [
            ("0", 0),
            ("0s", 0),
            ("90s", 90_000),
            ("5m", 300_000),
            ("1h30m", 5_400_000),
            ("1h0m15s", 3_615_000),
            ("1.5s", 1500),
            ("250ms", 250),
            ("2m30.5s", 150_500),
            ("15", 15_000),
            ("7.5", 7500),
            ("+10s", 10_000),
        ];
        for (text, ms) in ok {
            assert_eq!(parse_duration(text), Ok(ms), "{text}");
        }
        for bad in ["", "-5s", "5x", "s", "1.5.2s", "1us", "0.0001s", "5 m m"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("-5s").unwrap_err().to_string().contains("negative"));
        assert!(parse_duration("3d").unwrap_err().to_string().contains("unknown unit"));
    }

    #[test]
    fn formats_durations() {
        for (ms, text) in [(0, "0s"), (15_000, "15s"), (90_000, "1m30s"), (5_400_000, "1h30m"), (1500, "1.5s")] {
            assert_eq!(format_ms(ms), text);
            assert_eq!(parse_duration(text), Ok(ms));
        }
    }

    #[test]
    fn value_errors_are_typed_and_read_as_before() {
        assert_eq!(parse_duration(" -5s"), Err(ValueError::NegativeDuration("-5s".into())));
        assert_eq!(parse_duration("3d").unwrap_err().to_string(), "time: unknown unit \"d\" in duration \"3d\"");
        assert_eq!(parse_duration("5m3").unwrap_err().to_string(), "time: missing unit in duration \"5m3\"");
        assert_eq!(
            parse_duration("0.0001").unwrap_err().to_string(),
            "duration \"0.0001\" is finer than a millisecond"
        );
        assert_eq!(
            parse_percent("x").unwrap_err().to_string(),
            "invalid percentage \"x\": expected a number such as 80"
        );
        assert_eq!(parse_quantity_milli("-1").unwrap_err().to_string(), "-1 is negative; loads must not be negative");
        // Only a decimal number is a number of seconds or a percentage: not `NaN`, `inf` or
        // `infinity` (which Rust's float parsing takes), and a number past a float is too large,
        // below zero negative.
        for (text, error) in [
            ("NaN", "time: invalid duration \"NaN\""),
            ("-inf", "time: invalid duration \"-inf\""),
            ("infinity", "time: invalid duration \"infinity\""),
            ("1e400", "duration \"1e400\" is too long"),
            ("-1e400", "duration \"-1e400\" must not be negative"),
        ] {
            assert_eq!(parse_duration(text).unwrap_err().to_string(), error, "{text}");
        }
        for (text, error) in [
            ("NaN", "invalid percentage \"NaN\": expected a number such as 80"),
            ("inf%", "invalid percentage \"inf%\": expected a number such as 80"),
            ("1e400", "percentage \"1e400\" is too large"),
        ] {
            assert_eq!(parse_percent(text).unwrap_err().to_string(), error, "{text}");
        }
        assert_eq!((parse_duration(".5"), parse_percent("1e1")), (Ok(500), Ok(10.0)));
        assert!(matches!(parse_quantity_milli("abc"), Err(ValueError::Quantity { .. })));
    }

    #[test]
    fn quantities_and_percentages() {
        assert_eq!(parse_quantity_milli("1030m"), Ok(1030));
        assert_eq!(parse_quantity_milli("0"), Ok(0));
        assert_eq!(parse_quantity_milli("2"), Ok(2000));
        assert_eq!(parse_quantity_milli("0.5"), Ok(500));
        assert_eq!(parse_quantity_milli("1Ki"), Ok(1_024_000));
        assert!(parse_quantity_milli("-1").unwrap_err().to_string().contains("negative"));
        assert!(parse_quantity_milli("abc").is_err());
        assert_eq!(parse_percent("80"), Ok(80.0));
        assert_eq!(parse_percent("37.5%"), Ok(37.5));
        assert!(parse_percent("-3").unwrap_err().to_string().contains("negative"));
        assert!(parse_percent("x").is_err());
    }

    fn parse_text(text: &str) -> Result<Scenario, Vec<ScenarioError>> {
        let p = crate::source::parse(text);
        parse(p.documents[0].root())
    }

    /// The errors of a scenario that fails, as `line:column: message`.
    fn errors_at(text: &str) -> Vec<String> {
        let errs = parse_text(text).unwrap_err();
        errs.into_iter().map(|e| format!("{}:{}: {}", e.span.start.line, e.span.start.col + 1, e.message)).collect()
    }

    #[test]
    fn keys_written_twice_are_refused() {
        assert_eq!(
            errors_at(
                "hpa: a.yaml\nduration: 1m\nduration: 2m\nload:\n- {at: 0, metrics: {cpu: unavailable, cpu: {total: 1}}}\n"
            ),
            ["3:1: duration is written twice: keep one", "5:39: load[0].metrics.cpu is written twice: keep one"]
        );
    }

    #[test]
    fn parses_the_issue_example() {
        let s = parse_text(
            "hpa: web-hpa.yaml\nreplicas: 2\npodTemplate:\n  containers: [{name: app, requests: {cpu: 20m}}]\npodReadyAfter: 10s\nduration: 5m\ncontroller: {syncPeriodSeconds: 15, tolerance: 0.1}\nload:\n  - at: 0s\n    metrics: {cpu: {total: 1030m}}\n  - at: 15s\n    metrics: {cpu: {perPod: 0}}\n",
        )
        .unwrap();
        assert!(matches!(&s.hpa, HpaSource::File(p) if p.value == "web-hpa.yaml"));
        assert_eq!(s.replicas.map(|r| r.value), Some(2));
        assert_eq!(s.pod_ready_after_ms, 10_000);
        assert_eq!(s.duration_ms.value, 300_000);
        assert_eq!(s.controller.sync_period, Some(Duration::from_secs(15)));
        assert_eq!(s.controller.tolerance, Some(0.1));
        let t = s.pod_template.unwrap().value.admitted(true);
        assert_eq!(t.containers[0].requests_milli.get("cpu"), Some(&20));
        assert_eq!(s.load.len(), 2);
        assert_eq!(s.load[0].metrics[0].value.value, LoadValue::Total(1030));
        assert_eq!(s.load[1].metrics[0].value.value, LoadValue::PerPod(0));
    }

    #[test]
    fn values() {
        let s = parse_text(
            "hpaObject: {kind: HorizontalPodAutoscaler}\nduration: 1m\nload:\n- at: 0\n  metrics:\n    a: {utilization: 150}\n    b: {value: 2k}\n    c: unavailable\n",
        )
        .unwrap();
        let v: Vec<_> = s.load[0].metrics.iter().map(|m| m.value.value).collect();
        assert_eq!(v, [LoadValue::Utilization(150.0), LoadValue::Value(2_000_000), LoadValue::Unavailable]);
    }

    /// Every problem is at its place, with its field path; the values the decoder cannot read
    /// and the unknown fields, in the order of their positions.
    #[test]
    fn errors_have_positions() {
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\nbogus: 1\nload:\n- at: 30s\n  metrics: {cpu: {total: -5}}\n"),
            [
                "3:1: unknown field `bogus`; expected one of: hpa, hpaObject, hpaName, replicas, podTemplate, podStartAfter, podReadyAfter, metricWindow, selector, duration, controller, load",
                "6:26: load[0].metrics.cpu.total: -5 is negative; loads must not be negative"
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\nbogus: 1\n"),
            [
                "3:1: unknown field `bogus`; expected one of: hpa, hpaObject, hpaName, replicas, podTemplate, podStartAfter, podReadyAfter, metricWindow, selector, duration, controller, load"
            ]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\nload:\n- at: 30s\n  metrics: {cpu: {total: 5}}\n- at: 10s\n  metrics: {cpu: {perPod: 1, total: 2}}\n"
            ),
            ["7:18: load[1].metrics.cpu: give exactly one of perPod, total, utilization or value"]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\nload:\n- at: 30s\n  metrics: {cpu: {total: 5}}\n- at: 10s\n  metrics: {cpu: {}, b: \"80\"}\n- {at: 20s}\n"
            ),
            [
                "7:18: load[1].metrics.cpu: give one of perPod, total, utilization or value",
                "7:25: load[1].metrics.b: expected unavailable, or a mapping with one of perPod, total, utilization or value (e.g. {total: 500m}), found the string \"80\""
            ]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\nload:\n- at: 30s\n  metrics: {cpu: {total: 5}}\n- at: 10s\n  metrics: {cpu: {utilization: 80%}}\n- {at: 20s}\n"
            ),
            [
                "6:7: load[1].at: load times out of order: 10s is not after the previous entry's 30s",
                "8:3: load[2]: a load entry needs `metrics`",
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 5\nload:\n- {at: 0, metrics: {cpu: 80}}\n"),
            [
                "4:26: load[0].metrics.cpu: expected unavailable, or a mapping with one of perPod, total, utilization or value (e.g. {total: 500m}), found 80"
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: [5m]\n"),
            ["2:11: duration: expected a duration such as 30s, 5m or 1h30m, or a number of seconds, found a list"]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 5 m\n"),
            ["2:11: duration: time: unknown unit \" m\" in duration \"5 m\""]
        );
    }

    /// A scenario with several values the decoder cannot read reports each, at its place, not
    /// only the first; a value refused only because one beneath it was (the load left with
    /// none of its keys) is not reported; what the fields mean together is checked once the
    /// file decodes.
    #[test]
    fn every_undecodable_value_is_reported() {
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nreplicas: x\nduration: 5q\nload:\n- at: 0s\n  metrics: {cpu: {total: abc}}\n- at: 1z\n  metrics:\n    cpu: {total: -5}\n    rps: [1]\n"
            ),
            [
                "2:11: replicas: expected a whole number, found the string \"x\"",
                "3:11: duration: time: unknown unit \"q\" in duration \"5q\"",
                "6:26: load[0].metrics.cpu.total: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"abc\"",
                "7:7: load[1].at: time: unknown unit \"z\" in duration \"1z\"",
                "9:18: load[1].metrics.cpu.total: -5 is negative; loads must not be negative",
                "10:10: load[1].metrics.rps: expected unavailable, or a mapping with one of perPod, total, utilization or value (e.g. {total: 500m}), found a list",
            ]
        );
    }

    /// Unknown keys of `podTemplate`, its `spec`, its containers and their `resources` are
    /// refused with their position, as at the top level; a workload's real template is not
    /// the scenario's to refuse.
    #[test]
    fn pod_template_keys_are_checked() {
        let got = errors_at(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  containers:\n  - name: app\n    request: {cpu: 20m}\n    image: nginx\n    resources: {limits: {cpu: 1}}\n  overheads: {cpu: 1m}\n",
        );
        assert_eq!(
            got,
            [
                "6:5: unknown field `request` in podTemplate.containers[0]; expected one of: name, requests, resources, restartPolicy",
                "9:3: unknown field `overheads` in podTemplate; expected one of: metadata, spec, containers, initContainers, resources, overhead",
            ]
        );
        let got = errors_at(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  metadata: {labels: {app: web}}\n  spec:\n    containers: [{name: app, requests: {cpu: 20m}}]\n    volume: []\n    resources: {requests: {cpu: 1}, claim: []}\n  template: {}\n",
        );
        assert_eq!(
            got,
            [
                "7:5: unknown field `volume` in podTemplate.spec; expected one of: containers, initContainers, resources, overhead",
                "8:37: unknown field `claim` in podTemplate.spec.resources; expected one of: requests, limits",
                "9:3: unknown field `template` in podTemplate; expected one of: metadata, spec, containers, initContainers, resources, overhead",
            ]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\npodTemplate:\n  spec: {containers: [{name: app}]}\n  containers: []\n"
            ),
            ["4:3: podTemplate: give either the pod template's `spec` or the pod's fields (containers, ...), not both"]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\npodTemplate:\n  initContainers: [{name: proxy, restartPolicy: Always}]\n"
            ),
            ["4:3: podTemplate: a pod template needs `containers`"]
        );
        assert_eq!(
            errors_at(
                "hpa: x.yaml\nduration: 1m\npodTemplate:\n  containers: [{name: app}, {name: app}]\n  initContainers: [{name: proxy, restartPolicy: Always}, {name: app}]\n"
            ),
            [
                "4:36: podTemplate.containers[1].name: another container is named \"app\": give each its own name",
                "5:65: podTemplate.initContainers[1].name: another container is named \"app\": give each its own name",
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\npodTemplate:\n  containers: [{requests: {cpu: -1}}]\n"),
            ["4:33: podTemplate.containers[0].requests.cpu: -1 is negative; loads must not be negative"]
        );

        // A template pasted from a workload: its other Kubernetes fields are taken and ignored,
        // and a limit without a request is the request, per resource, as at pod creation.
        let scenario = parse_text(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  spec:\n    volumes: []\n    containers:\n    - name: app\n      image: nginx\n      ports: [{containerPort: 80}]\n      resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {memory: 256Mi}}\n",
        )
        .unwrap();
        let template = scenario.pod_template.unwrap().value.admitted(true);
        assert_eq!(template.containers[0].requests_milli.get("cpu"), Some(&500));
        assert_eq!(template.containers[0].requests_milli.get("memory"), Some(&(256 * 1024 * 1024 * 1000)));
    }

    /// A template's pods are made as kube-apiserver admits them (hpa-core's
    /// `PodTemplate::admitted`): pod-level limits set pod-level requests with the
    /// `PodLevelResources` gate (`defaultPodRequests`), not without; a sidecar counts among the
    /// init containers in its place.
    #[test]
    fn templates_are_admitted_by_core_rules() {
        let s = parse_text(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  containers: [{name: app}]\n  initContainers: [{name: setup, requests: {cpu: 1}}, {name: proxy, restartPolicy: Always, resources: {limits: {cpu: 100m}}}]\n  resources: {limits: {cpu: 2, memory: 1Gi}}\n",
        )
        .unwrap();
        let t = s.pod_template.unwrap().value;
        let on = t.admitted(true);
        // cpu from the containers' aggregate request (the init container's 1 outweighs the
        // sidecar's 100m), memory, which no container requests, from the pod-level limit.
        assert_eq!(on.pod_requests_milli.get("cpu"), Some(&1000));
        assert_eq!(on.pod_requests_milli.get("memory"), Some(&(1024 * 1024 * 1024 * 1000)));
        let init: Vec<(&str, Option<&i64>)> =
            on.init_containers.iter().map(|c| (c.name.as_str(), c.requests_milli.get("cpu"))).collect();
        assert_eq!(init, [("setup", Some(&1000)), ("proxy", Some(&100))]);
        assert_eq!(on.init_containers[1].restart_policy.as_deref(), Some("Always"));
        assert!(t.admitted(false).pod_requests_milli.is_empty());
    }

    /// `controller:` is `.hpa-lint.yaml`'s section (`syncPeriodSeconds`, ...), read by the one
    /// reader and checked by the one check: its errors point at the value.
    #[test]
    fn the_controller_section_is_the_configuration_files() {
        let s = parse_text(
            "hpa: x.yaml\nduration: 1m\ncontroller:\n  syncPeriodSeconds: 30\n  tolerance: 0.2\n  downscaleStabilizationSeconds: 60\n  cpuInitializationPeriodSeconds: 120\n  initialReadinessDelaySeconds: 10\n",
        )
        .unwrap();
        let c = s.controller;
        assert_eq!(
            (
                c.sync_period,
                c.tolerance,
                c.downscale_stabilization,
                c.cpu_initialization_period,
                c.initial_readiness_delay
            ),
            (
                Some(Duration::from_secs(30)),
                Some(0.2),
                Some(Duration::from_secs(60)),
                Some(Duration::from_secs(120)),
                Some(Duration::from_secs(10))
            )
        );
        // The old duration syntax is an unknown field; a type error wins over it, as in every
        // decoding.
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller: {syncPeriod: 15s}\n"),
            [
                "3:14: unknown field `syncPeriod` in controller; expected one of: syncPeriodSeconds, tolerance, downscaleStabilizationSeconds, cpuInitializationPeriodSeconds, initialReadinessDelaySeconds"
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller: {syncPeriod: 15s, tolerance: x}\n"),
            [
                "3:14: unknown field `syncPeriod` in controller; expected one of: syncPeriodSeconds, tolerance, downscaleStabilizationSeconds, cpuInitializationPeriodSeconds, initialReadinessDelaySeconds",
                "3:42: controller.tolerance: expected a number, found the string \"x\""
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller:\n  tolerance: -0.5\n"),
            ["4:14: controller.tolerance -0.5: must be a finite number, 0 or more"]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller:\n  syncPeriodSeconds: 9223372037\n"),
            [
                "4:22: controller.syncPeriodSeconds 9223372037s: longer than kube-controller-manager's flag holds (a Go time.Duration: at most 9223372036s)"
            ]
        );
    }

    #[test]
    fn required_fields() {
        assert_eq!(
            errors_at("replicas: -1\n"),
            [
                "1:1: missing `hpa` (the HPA manifest file) or `hpaObject` (the HPA inline)",
                "1:11: replicas: expected a whole number of 0 or more, found -1",
                "1:1: missing `duration` (how long to simulate, e.g. 10m)",
            ]
        );
        assert_eq!(
            errors_at("hpa: \"\"\nhpaName: \"\"\nduration: 0s\nmetricWindow: 0\n"),
            [
                "1:6: hpa: give the path of the HPA manifest",
                "2:10: hpaName: must not be empty",
                "4:15: metricWindow: must be longer than 0s",
                "3:11: duration: must be longer than 0s",
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nhpaObject: {}\nduration: 1m\n"),
            ["1:1: give either `hpa` (a file) or `hpaObject` (inline), not both"]
        );
    }
}
