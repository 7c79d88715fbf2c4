//! The scenario file format: a hand-written YAML file read from a [`Node`] tree, so that every
//! problem carries the position of the text that caused it. Its `controller:` section is
//! `.hpa-lint.yaml`'s (hpa-config's `ControllerFile`, read by hpa-yaml's `decode_node`); its
//! pod templates become pods by hpa-core's admission rules ([`TemplateSpec::admitted`]).
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
//! Parsing is purely syntactic ([`parse`]); matching the load's metric keys against the HPA's
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

use crate::controller_flags::{self, ControllerFlags};
use crate::linter::config::ControllerFile;
use crate::source::{Node, NodeKind, Scalar, Span, Tree};
use hpa_core::evaluator::simulation::{LoadPhase, LoadValue, MetricKey, Plan, PodTemplate};

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
    /// `selector`: the scale subresource's selector.
    pub selector: Option<String>,
    /// `duration` (ms).
    pub duration_ms: Spanned<i64>,
    /// `controller`: the controller's flags the scenario sets (the command line's win).
    pub controller: ControllerFlags,
    /// `load`.
    pub load: Vec<LoadEntry>,
}

/// The top-level fields, for the unknown-field message.
const TOP_FIELDS: &[&str] = &[
    "hpa",
    "hpaObject",
    "hpaName",
    "replicas",
    "podTemplate",
    "podStartAfter",
    "podReadyAfter",
    "metricWindow",
    "selector",
    "duration",
    "controller",
    "load",
];
const VALUE_FIELDS: &[&str] = &["perPod", "total", "utilization", "value"];
/// A scenario's `podTemplate` written as a real pod template.
const TEMPLATE_FIELDS: &[&str] = &["metadata", "spec"];
/// A scenario's `podTemplate` (or its `spec`).
const POD_FIELDS: &[&str] = &["containers", "initContainers", "resources", "overhead"];
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
/// A container of a scenario's `podTemplate`.
const CONTAINER_FIELDS: &[&str] = &["name", "requests", "resources", "restartPolicy"];
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
/// `resources` of a scenario's container and pod: what kube-apiserver admits the pod with
/// ([`TemplateSpec::admitted`]: a limit without a request is the request, pod-level requests
/// as `defaultPodRequests` sets them).
const RESOURCES_FIELDS: &[&str] = &["requests", "limits"];
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

/// Collects errors while parsing goes on.
#[derive(Default)]
struct Errors(Vec<ScenarioError>);

impl Errors {
    fn push(&mut self, span: Span, message: impl Into<String>) {
        self.0.push(ScenarioError::new(span, message));
    }

    /// Keeps the value of `r`, recording its error.
    fn keep<T>(&mut self, r: Result<T, ScenarioError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.0.push(e);
                None
            }
        }
    }
}

/// The entries of a mapping node, or an error naming what was expected.
fn entries<'a>(node: Node<'a>, what: &str) -> Result<crate::source::Entries<'a>, ScenarioError> {
    match node.kind() {
        NodeKind::Map(e) => Ok(e),
        _ => Err(ScenarioError::new(node.span(), format!("{what} must be a mapping"))),
    }
}

/// Checks that every key of a mapping is one of `allowed`.
fn check_fields(node: Node<'_>, allowed: &[&str], what: &str, errs: &mut Errors) {
    check_fields_ignoring(node, allowed, &[], what, errs);
}

/// [`check_fields`], where the keys of `ignored` (the rest of a Kubernetes type the scenario
/// reads part of) are taken without a word.
fn check_fields_ignoring(node: Node<'_>, allowed: &[&str], ignored: &[&str], what: &str, errs: &mut Errors) {
    if let NodeKind::Map(entries) = node.kind() {
        for e in entries {
            let k = e.key.key_string();
            if !allowed.contains(&k.as_str()) && !ignored.contains(&k.as_str()) {
                errs.push(
                    e.key.span(),
                    format!("unknown field `{k}` in {what}; expected one of: {}", allowed.join(", ")),
                );
            }
        }
    }
}

/// A scalar as text (numbers as written in canonical form), or `None` for collections.
fn scalar_text(node: Node<'_>) -> Option<String> {
    match node.kind() {
        NodeKind::Scalar(Scalar::Str(s)) => Some(s.to_string()),
        NodeKind::Scalar(Scalar::Int(i)) => Some(i.to_string()),
        NodeKind::Scalar(Scalar::UInt(u)) => Some(u.to_string()),
        NodeKind::Scalar(Scalar::Float(f)) => Some(f.to_string()),
        _ => None,
    }
}

fn string(node: Node<'_>, what: &str) -> Result<String, ScenarioError> {
    match node.kind() {
        NodeKind::Scalar(Scalar::Str(s)) if !s.is_empty() => Ok(s.to_string()),
        _ => Err(ScenarioError::new(node.span(), format!("{what} must be a non-empty string"))),
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
    /// Not a number.
    #[error("invalid percentage {0:?}: expected a number such as 80")]
    NotAPercentage(String),
    /// Infinite or not a number.
    #[error("invalid percentage {0:?}")]
    NonFinitePercentage(String),
}

/// Parses a duration as Go's `time.ParseDuration` does (`90s`, `5m`, `1h30m`, `1.5s`,
/// `250ms`), or a plain number of seconds. Durations are non-negative and whole milliseconds.
pub fn parse_duration(text: &str) -> Result<i64, ValueError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ValueError::EmptyDuration);
    }
    // A plain number is seconds.
    if let Ok(secs) = t.parse::<f64>() {
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
    if !ms.is_finite() || ms > 1e15 {
        return Err(ValueError::TooLong(text.to_string()));
    }
    if ms < 0.0 {
        return Err(ValueError::NegativeDuration(text.to_string()));
    }
    let rounded = ms.round();
    if (ms - rounded).abs() > 1e-6 {
        return Err(ValueError::FinerThanMillisecond(text.to_string()));
    }
    Ok(rounded as i64)
}

fn duration(node: Node<'_>, what: &str) -> Result<i64, ScenarioError> {
    let text = scalar_text(node).ok_or_else(|| {
        ScenarioError::new(node.span(), format!("{what} must be a duration such as 30s, 5m or 1h30m"))
    })?;
    parse_duration(&text).map_err(|m| ScenarioError::new(node.span(), format!("{what}: {m}")))
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
    Ok(q)
}

fn quantity(node: Node<'_>, what: &str) -> Result<i64, ScenarioError> {
    let text = scalar_text(node)
        .ok_or_else(|| ScenarioError::new(node.span(), format!("{what} must be a quantity such as 250m, 2Gi or 10")))?;
    parse_quantity_milli(&text).map_err(|m| ScenarioError::new(node.span(), format!("{what}: {m}")))
}

/// Parses a percentage: `150`, `37.5` or `"80%"`.
pub fn parse_percent(text: &str) -> Result<f64, ValueError> {
    let t = text.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    let p: f64 = t.parse().map_err(|_| ValueError::NotAPercentage(text.to_string()))?;
    if !p.is_finite() {
        return Err(ValueError::NonFinitePercentage(text.to_string()));
    }
    if p < 0.0 {
        return Err(ValueError::NegativeLoad(text.to_string()));
    }
    Ok(p)
}

/// Parses a load value node: `{perPod: q}`, `{total: q}`, `{utilization: p}`, `{value: q}` or
/// the word `unavailable`.
fn load_value(node: Node<'_>) -> Result<LoadValue, ScenarioError> {
    if let NodeKind::Scalar(Scalar::Str(s)) = node.kind()
        && s == "unavailable"
    {
        return Ok(LoadValue::Unavailable);
    }
    let NodeKind::Map(entries) = node.kind() else {
        return Err(ScenarioError::new(
            node.span(),
            "a metric's load must be a mapping with one of perPod, total, utilization or value (e.g. {total: 500m}), or `unavailable`",
        ));
    };
    let mut found: Option<LoadValue> = None;
    for e in entries {
        let k = e.key.key_string();
        let v = match k.as_str() {
            "perPod" => LoadValue::PerPod(quantity(e.value, "perPod")?),
            "total" => LoadValue::Total(quantity(e.value, "total")?),
            "value" => LoadValue::Value(quantity(e.value, "value")?),
            "utilization" => {
                let text = scalar_text(e.value)
                    .ok_or_else(|| ScenarioError::new(e.value.span(), "utilization must be a percentage such as 80"))?;
                LoadValue::Utilization(
                    parse_percent(&text)
                        .map_err(|m| ScenarioError::new(e.value.span(), format!("utilization: {m}")))?,
                )
            }
            other => {
                return Err(ScenarioError::new(
                    e.key.span(),
                    format!("unknown load field `{other}`; expected one of: {}", VALUE_FIELDS.join(", ")),
                ));
            }
        };
        if found.is_some() {
            return Err(ScenarioError::new(e.key.span(), "give exactly one of perPod, total, utilization or value"));
        }
        found = Some(v);
    }
    found.ok_or_else(|| ScenarioError::new(node.span(), "give one of perPod, total, utilization or value"))
}

/// Reads `{name, requests: {...}}` or `{name, resources: {requests, limits}}` (plus
/// `restartPolicy` for init containers), at `index` of its list.
fn container(node: Node<'_>, index: usize, init: bool, errs: &mut Errors) -> Option<TemplateContainer> {
    let entries = errs.keep(entries(node, "a container"))?;
    check_fields_ignoring(node, CONTAINER_FIELDS, K8S_CONTAINER_FIELDS, "a container of podTemplate", errs);
    if let Some(r) = node.get("resources") {
        check_fields_ignoring(r, RESOURCES_FIELDS, K8S_RESOURCES_FIELDS, "a container's resources", errs);
    }
    let mut c = TemplateContainer { index, ..TemplateContainer::default() };
    let mut limits = BTreeMap::new();
    let mut named = false;
    for e in entries {
        match e.key.key_string().as_str() {
            "name" => {
                if let Some(n) = errs.keep(string(e.value, "name")) {
                    c.name = n;
                    named = true;
                }
            }
            "requests" => requests(e.value, &mut c.requests, errs),
            "resources" => resources(e.value, &mut c.requests, &mut limits, errs),
            "restartPolicy" => {
                c.sidecar = init && errs.keep(string(e.value, "restartPolicy")).as_deref() == Some("Always");
            }
            // Everything else of a real container spec (image, ports, ...) is irrelevant here
            // (refused above when it is not a Kubernetes field).
            _ => {}
        }
    }
    // What hpa-core's `TemplateContainer` keeps of the limits: those without a request.
    c.limits_as_requests = limits.into_iter().filter(|(name, _)| !c.requests.contains_key(name)).collect();
    if !named {
        errs.push(node.span(), "a container needs a `name`");
    }
    Some(c)
}

/// Reads `resources: {requests, limits}`.
fn resources(
    node: Node<'_>,
    requests_into: &mut BTreeMap<String, Quantity>,
    limits_into: &mut BTreeMap<String, Quantity>,
    errs: &mut Errors,
) {
    if let Some(r) = node.get("requests") {
        requests(r, requests_into, errs);
    }
    if let Some(l) = node.get("limits") {
        requests(l, limits_into, errs);
    }
}

/// Reads a resource list (`{cpu: 500m, memory: 1Gi}`): non-negative quantities.
fn requests(node: Node<'_>, into: &mut BTreeMap<String, Quantity>, errs: &mut Errors) {
    let Some(entries) = errs.keep(entries(node, "requests")) else { return };
    for e in entries {
        let name = e.key.key_string();
        if let Some(q) = errs.keep(resource_quantity(e.value, &format!("request {name}"))) {
            into.insert(name, q);
        }
    }
}

/// A resource quantity of a template: a Kubernetes quantity, not negative.
fn resource_quantity(node: Node<'_>, what: &str) -> Result<Quantity, ScenarioError> {
    let text = scalar_text(node)
        .ok_or_else(|| ScenarioError::new(node.span(), format!("{what} must be a quantity such as 250m, 2Gi or 10")))?;
    non_negative_quantity(&text).map_err(|m| ScenarioError::new(node.span(), format!("{what}: {m}")))
}

/// Reads a scenario's `podTemplate`: `{containers, initContainers, resources: {requests,
/// limits}, overhead}`, either directly or under `spec` (as in a real pod template); keys it
/// does not read are refused with their position, as at the top level (a misspelt `requests`
/// would leave the pods without requests), but for the other fields of a Kubernetes pod spec
/// (a template pasted from a workload), which are taken and ignored.
pub fn pod_template(node: Node<'_>, errs_out: &mut Vec<ScenarioError>) -> Option<TemplateSpec> {
    let mut errs = Errors::default();
    let spec = node.get("spec").unwrap_or(node);
    if node.get("spec").is_some() {
        check_fields(node, TEMPLATE_FIELDS, "podTemplate", &mut errs);
        check_fields_ignoring(spec, POD_FIELDS, K8S_POD_FIELDS, "podTemplate.spec", &mut errs);
    } else {
        check_fields_ignoring(node, POD_FIELDS, K8S_POD_FIELDS, "podTemplate", &mut errs);
    }
    if let Some(r) = spec.get("resources") {
        check_fields_ignoring(r, RESOURCES_FIELDS, K8S_RESOURCES_FIELDS, "the pod's resources", &mut errs);
    }
    let mut t = TemplateSpec::default();
    let w = &mut t.workload;
    match spec.get("containers").map(|n| n.kind()) {
        Some(NodeKind::Seq(items)) => {
            w.containers = items.enumerate().filter_map(|(i, c)| container(c, i, false, &mut errs)).collect();
        }
        Some(_) => errs.push(spec.get("containers").map_or(spec.span(), |n| n.span()), "containers must be a list"),
        None => errs.push(spec.span(), "a pod template needs `containers`"),
    }
    // Restartable init containers (sidecars) count with the containers, as in hpa-core's
    // `workload_from`; the others only in the pod's aggregate requests.
    if let Some(NodeKind::Seq(items)) = spec.get("initContainers").map(|n| n.kind()) {
        for c in items.enumerate().filter_map(|(i, c)| container(c, i, true, &mut errs)) {
            if c.sidecar { w.containers.push(c) } else { w.init_containers.push(c) }
        }
    }
    if let Some(r) = spec.get("resources") {
        resources(r, &mut w.pod_requests, &mut w.pod_limits, &mut errs);
    }
    // `spec.overhead`, as admission sets it from the RuntimeClass: the controller adds it to
    // pod-level requests in 1.34 to 1.37.
    if let Some(o) = spec.get("overhead") {
        let mut overhead = BTreeMap::new();
        requests(o, &mut overhead, &mut errs);
        t.overhead_milli = overhead.into_iter().map(|(name, q)| (name, q.milli_value())).collect();
    }
    if t.workload.containers.iter().all(|c| c.sidecar) && errs.0.is_empty() {
        errs.push(spec.span(), "a pod template needs at least one container");
    }
    let ok = errs.0.is_empty();
    errs_out.extend(errs.0);
    ok.then_some(t)
}

/// Parses a scenario document.
pub fn parse(root: Node<'_>) -> Result<Scenario, Vec<ScenarioError>> {
    let mut errs = Errors::default();
    if let Err(e) = entries(root, "a scenario") {
        return Err(vec![e]);
    }
    check_fields(root, TOP_FIELDS, "the scenario", &mut errs);
    // A key written twice is refused, as everywhere (the inline HPA's by its decoding).
    for (span, path) in crate::source::read::duplicate_keys(root) {
        if !path.starts_with("hpaObject.") {
            errs.push(span, format!("duplicate field {path:?}"));
        }
    }

    let hpa = match (root.entry("hpa"), root.get("hpaObject")) {
        (Some(e), None) => errs
            .keep(string(e.value, "hpa (a path to the HPA manifest)"))
            .map(|p| HpaSource::File(Spanned { value: p, span: e.value.span() })),
        (None, Some(obj)) => {
            if matches!(obj.kind(), NodeKind::Map(_)) {
                Some(HpaSource::Inline(obj.to_tree()))
            } else {
                errs.push(obj.span(), "hpaObject must be a HorizontalPodAutoscaler object");
                None
            }
        }
        (Some(e), Some(_)) => {
            errs.push(e.key.span(), "give either `hpa` (a file) or `hpaObject` (inline), not both");
            None
        }
        (None, None) => {
            errs.push(root.span(), "missing `hpa` (the HPA manifest file) or `hpaObject` (the HPA inline)");
            None
        }
    };
    let hpa_name = root
        .get("hpaName")
        .and_then(|n| errs.keep(string(n, "hpaName")).map(|value| Spanned { value, span: n.span() }));

    let replicas = root.get("replicas").and_then(|n| match n.kind() {
        NodeKind::Scalar(Scalar::Int(i)) if (0..=i64::from(i32::MAX)).contains(&i) => {
            Some(Spanned { value: i32::try_from(i).unwrap_or(i32::MAX), span: n.span() })
        }
        _ => {
            errs.push(n.span(), "replicas must be a whole number, 0 or more");
            None
        }
    });

    let pod_template = root.get("podTemplate").and_then(|n| {
        let mut v = Vec::new();
        let t = pod_template(n, &mut v);
        errs.0.extend(v);
        t.map(|value| Spanned { value, span: n.span() })
    });

    let dur = |key: &str, errs: &mut Errors| root.get(key).and_then(|n| errs.keep(duration(n, key)));
    let pod_start_after_ms = dur("podStartAfter", &mut errs).unwrap_or(0);
    let pod_ready_after_ms = dur("podReadyAfter", &mut errs).unwrap_or(0);
    let metric_window_ms = dur("metricWindow", &mut errs);
    if let (Some(0), Some(n)) = (metric_window_ms, root.get("metricWindow")) {
        errs.push(n.span(), "metricWindow must be longer than 0s");
    }
    let selector = root.get("selector").and_then(|n| errs.keep(string(n, "selector")));

    let duration_ms = match root.get("duration") {
        Some(n) => errs.keep(duration(n, "duration")).and_then(|ms| {
            if ms == 0 {
                errs.push(n.span(), "duration must be longer than 0s");
                None
            } else {
                Some(Spanned { value: ms, span: n.span() })
            }
        }),
        None => {
            errs.push(root.span(), "missing `duration` (how long to simulate, e.g. 10m)");
            None
        }
    };

    // `controller:` is `.hpa-lint.yaml`'s section, read by the same reader into the same type
    // and checked by the same function.
    let controller =
        root.get("controller").map_or_else(ControllerFlags::default, |c| {
            match hpa_yaml::read::decode_node::<ControllerFile>(c, "config") {
                Ok(file) => {
                    let flags = ControllerFlags::from(&file);
                    if let Err(e) = controller_flags::check(&flags) {
                        errs.push(hpa_yaml::locate(c, e.key()).span, format!("controller.{} {e}", e.key()));
                    }
                    flags
                }
                Err(read) => {
                    for e in read {
                        errs.push(e.span, format!("controller: {}", e.message));
                    }
                    ControllerFlags::default()
                }
            }
        });

    let load = root.get("load").map(|n| load(n, &mut errs)).unwrap_or_default();

    match (hpa, duration_ms) {
        (Some(hpa), Some(duration_ms)) if errs.0.is_empty() => Ok(Scenario {
            span: root.span(),
            hpa,
            hpa_name,
            replicas,
            pod_template,
            pod_start_after_ms,
            pod_ready_after_ms,
            metric_window_ms,
            selector,
            duration_ms,
            controller,
            load,
        }),
        _ => Err(errs.0),
    }
}

fn load(node: Node<'_>, errs: &mut Errors) -> Vec<LoadEntry> {
    let NodeKind::Seq(items) = node.kind() else {
        errs.push(node.span(), "load must be a list of entries like {at: 0s, metrics: {cpu: {total: 500m}}}");
        return Vec::new();
    };
    let mut out: Vec<LoadEntry> = Vec::new();
    for item in items {
        if errs.keep(entries(item, "a load entry")).is_none() {
            continue;
        }
        check_fields(item, &["at", "metrics"], "a load entry", errs);
        let at = match item.get("at") {
            Some(n) => errs.keep(duration(n, "at")).map(|ms| Spanned { value: ms, span: n.span() }),
            None => {
                errs.push(item.span(), "a load entry needs `at` (when it starts, e.g. 30s)");
                None
            }
        };
        if let (Some(at), Some(prev)) = (&at, out.last())
            && at.value <= prev.at_ms.value
        {
            errs.push(
                at.span,
                format!(
                    "load times out of order: {} is not after the previous entry's {}",
                    format_ms(at.value),
                    format_ms(prev.at_ms.value)
                ),
            );
        }
        let mut metrics = Vec::new();
        match item.get("metrics") {
            Some(m) => {
                if let Some(es) = errs.keep(entries(m, "metrics")) {
                    for e in es {
                        let key = e.key.key_string();
                        if key.is_empty() {
                            errs.push(e.key.span(), "a metric key must not be empty");
                            continue;
                        }
                        if let Some(v) = errs.keep(load_value(e.value)) {
                            metrics.push(LoadItem {
                                key: Spanned { value: key, span: e.key.span() },
                                value: Spanned { value: v, span: e.value.span() },
                            });
                        }
                    }
                }
            }
            None => errs.push(item.span(), "a load entry needs `metrics`"),
        }
        if let Some(at_ms) = at {
            out.push(LoadEntry { at_ms, metrics });
        }
    }
    out
}

/// What the scenario needs besides itself to become a [`Plan`].
#[derive(Debug, Clone)]
pub struct PlanInputs {
    /// The HPA (defaulted, internal form).
    pub hpa: HorizontalPodAutoscaler,
    /// The pod template of the target workload, when it was found next to the HPA.
    pub workload_template: Option<PodTemplate>,
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
    let mut errs = Errors::default();
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
        (None, Some(t)) => Some(t.clone()),
        (None, None) => None,
    };
    let needs_requests = specs.iter().any(|m| {
        let t = m.resource.as_ref().map(|r| &r.target).or_else(|| m.container_resource.as_ref().map(|r| &r.target));
        t.is_some_and(|t| t.type_ == "Utilization")
    });
    if template.is_none() && needs_requests {
        errs.push(
            ctx.hpa_span,
            format!(
                "the HPA has a Utilization metric, so the pods need resource requests: add a `podTemplate` (the target {}/{} is not in the HPA's file)",
                ctx.hpa.spec.scale_target_ref.kind, ctx.hpa.spec.scale_target_ref.name
            ),
        );
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
                errs.push(
                    item.key.span,
                    format!("unknown metric key `{}`{hint}; the HPA's metrics are: {}", item.key.value, known()),
                );
                continue;
            }
            for i in matching {
                let Some((_, key)) = keys.get(i) else { continue };
                if let Err(m) = key.accepts(&item.value.value) {
                    errs.push(item.value.span, format!("`{}`: {m}", item.key.value));
                    continue;
                }
                if let MetricKey::Container { container, .. } = key
                    && !template.containers.iter().chain(&template.init_containers).any(|c| c.name == *container)
                {
                    errs.push(item.key.span, format!("container `{container}` is not in the pod template"));
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
    let metric_window_ms = s.metric_window_ms.unwrap_or(15_000);
    let selector = s.selector.clone().unwrap_or_else(|| format!("app={}", ctx.hpa.spec.scale_target_ref.name));
    if !errs.0.is_empty() {
        return Err(errs.0);
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
        let e = parse_text("hpa: a.yaml\nduration: 1m\nduration: 2m\nhpaObject: {}\n").unwrap_err();
        assert!(e.iter().any(|e| e.message == "duplicate field \"duration\"" && e.span.start.line == 3), "{e:?}");
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

    #[test]
    fn errors_have_positions() {
        let errs = parse_text(
            "hpa: x.yaml\nduration: 1m\nbogus: 1\nload:\n- at: 30s\n  metrics: {cpu: {total: -5}}\n- at: 10s\n  metrics: {cpu: {perPod: 1, total: 2}}\n",
        )
        .unwrap_err();
        let got: Vec<(u32, u32, &str)> =
            errs.iter().map(|e| (e.span.start.line, e.span.start.col + 1, e.message.as_str())).collect();
        assert!(got.iter().any(|(l, c, m)| (*l, *c) == (3, 1) && m.contains("unknown field `bogus`")), "{got:?}");
        assert!(got.iter().any(|(l, c, m)| (*l, *c) == (6, 26) && m.contains("negative")), "{got:?}");
        assert!(got.iter().any(|(l, c, m)| (*l, *c) == (7, 7) && m.contains("out of order")), "{got:?}");
        assert!(got.iter().any(|(l, _, m)| *l == 8 && m.contains("exactly one")), "{got:?}");
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
                "9:3: unknown field `overheads` in podTemplate; expected one of: containers, initContainers, resources, overhead",
                "6:5: unknown field `request` in a container of podTemplate; expected one of: name, requests, resources, restartPolicy",
            ]
        );
        let got = errors_at(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  metadata: {labels: {app: web}}\n  spec:\n    containers: [{name: app, requests: {cpu: 20m}}]\n    volume: []\n    resources: {requests: {cpu: 1}, claim: []}\n  template: {}\n",
        );
        assert_eq!(
            got,
            [
                "9:3: unknown field `template` in podTemplate; expected one of: metadata, spec",
                "7:5: unknown field `volume` in podTemplate.spec; expected one of: containers, initContainers, resources, overhead",
                "8:37: unknown field `claim` in the pod's resources; expected one of: requests, limits",
            ]
        );

        // A template pasted from a workload: its other Kubernetes fields are taken and ignored,
        // and a limit without a request is the request, per resource, as at pod creation.
        let p = crate::source::parse(
            "hpa: x.yaml\nduration: 1m\npodTemplate:\n  spec:\n    volumes: []\n    containers:\n    - name: app\n      image: nginx\n      ports: [{containerPort: 80}]\n      resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {memory: 256Mi}}\n",
        );
        let scenario = parse(p.documents[0].root()).unwrap();
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
        let p = crate::source::parse(
            "containers: [{name: app}]\ninitContainers: [{name: setup, requests: {cpu: 1}}, {name: proxy, restartPolicy: Always, resources: {limits: {cpu: 100m}}}]\nresources: {limits: {cpu: 2, memory: 1Gi}}\n",
        );
        let mut errs = Vec::new();
        let t = pod_template(p.documents[0].root(), &mut errs).unwrap();
        assert!(errs.is_empty(), "{errs:?}");
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
                "3:14: controller: unknown field `syncPeriod`; expected one of: syncPeriodSeconds, tolerance, downscaleStabilizationSeconds, cpuInitializationPeriodSeconds, initialReadinessDelaySeconds"
            ]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller: {syncPeriod: 15s, tolerance: x}\n"),
            ["3:42: controller: tolerance: expected a number, found the string \"x\""]
        );
        assert_eq!(
            errors_at("hpa: x.yaml\nduration: 1m\ncontroller:\n  tolerance: -0.5\n"),
            ["4:14: controller.tolerance -0.5: must be a number, 0 or more"]
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
        let errs = parse_text("replicas: -1\n").unwrap_err();
        let msgs: Vec<&str> = errs.iter().map(|e| e.message.as_str()).collect();
        assert!(msgs.iter().any(|m| m.contains("missing `hpa`")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("missing `duration`")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("replicas must be")), "{msgs:?}");
    }
}
