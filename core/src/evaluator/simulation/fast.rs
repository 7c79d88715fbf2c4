//! The fast backend: [`reconcile_autoscaler`] restricted to what a simulation feeds it, with
//! the HPA prepared once and the metrics evaluated again only when their inputs change.
//!
//! What a simulation feeds the controller is narrow: the scale is always read (its selector
//! is the plan's), nothing else selects the pods, writes never fail, the pods are alive
//! (Pending or Running, Ready or not, never deleted or failed), every pod has the template's
//! containers and a unique name, and each metrics API answers for exactly the Running pods
//! (or for none). On that ground the name-keyed maps of `replica_calculator.go` reduce to
//! counts and sums over the pods in list order, which is what this file computes; the
//! functions below cite the Go functions they follow.
//!
//! The metrics are evaluated again only when something they read has changed: the load phase,
//! the pods, the replica count, or the instant (a pod turning Running or Ready, or a cpu
//! readiness rule turning, see [`valid_until`]). Stabilization keeps the recommendations as
//! monotonic queues instead of scanning a list (see [`Recommendations`] for why the result is
//! the same); the limits and the scale events go through the same functions as
//! [`reconcile_autoscaler`] on the same [`ControllerState`]. Conditions are kept as `(type,
//! status, reason)`; their messages and `lastTransitionTime` are not recorded and the
//! controller's decisions never read them. Reason texts and condition lists are rendered once
//! per distinct value.
//!
//! [`reconcile_autoscaler`]: crate::evaluator::reconcile_autoscaler

use std::collections::VecDeque;

use super::record::{NormalizationFacts, ReasonFacts, Tables};
use super::{
    ConditionBrief, ConditionsId, LoadValue, MetricKey, MetricObservation, NormalizationId, ObservationsId, PodLoad,
    PodState, ReasonId, ResourcePlan, Split, Step, World, lookup, metric_containers, per_pod,
};
use crate::api::quantity::Format;
use crate::api::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, MetricSpec, MetricValueStatus};
use crate::api::{CrossVersionObjectReference, LabelSelector, Quantity};
use crate::evaluator::behavior::{self, TimestampedRecommendation};
use crate::evaluator::controller::{
    ABLE_TO_SCALE, ControllerState, Normalization, REASON_ABOVE_MAX, REASON_BELOW_MIN, SCALED_TO_ZERO, SCALING_ACTIVE,
    SCALING_LIMITED, SyncOutcome, has_object_or_external_metrics, legacy_stabilized, limit, normalization_args,
};
use crate::evaluator::gofmt;
use crate::evaluator::replicas::{
    CalcError, NO_CUSTOM_METRICS, NO_MATCHING_SAMPLES, NO_PODS, NO_READY_SAMPLES, NO_RESOURCE_METRICS, ObjectSample,
    Pod, RESOURCE_CPU, RESOURCE_MEMORY, ReplicaCalculator, Tolerances, calculate_requests, ceil_to_i32,
    corrected_replicas, external_fetch_error, get_external_metric, get_object_metric, object_fetch_error,
};
use crate::evaluator::time::Timestamp;
use crate::features::Gate;
use crate::validation::spec::parse_group_version;

/// The simulation's controller for one HPA.
#[derive(Debug)]
pub(super) struct Fast {
    hpa: Prepared,
    /// The controller's memory: the scale events (`state`) and the recommendations.
    state: ControllerState,
    recommendations: Recommendations,
    /// `status.conditions`, in status order, and the position of each type there.
    conditions: Vec<Condition>,
    positions: [Option<usize>; 4],
    cache: Cache,
    /// The reason texts rendered so far, the last one used first.
    reasons: Vec<(ReasonKey, ReasonId)>,
    last_reason: usize,
    /// The condition lists recorded so far, the last one used first.
    condition_lists: Vec<(Vec<Condition>, ConditionsId)>,
    last_conditions: usize,
    /// The last normalization recorded.
    last_normalization: Option<(Normalization, NormalizationId)>,
    /// Scratch: a resource's split, its usage per container.
    split: Split,
    shares: Vec<i64>,
}

/// A condition as the simulation keeps it: type, status (`True` / `False`, the only ones the
/// controller writes) and reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Condition {
    type_: ConditionType,
    status: bool,
    reason: Text,
}

/// The condition types the controller writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConditionType {
    AbleToScale,
    ScalingActive,
    ScalingLimited,
    ScaledToZero,
}

impl Condition {
    fn brief(&self) -> ConditionBrief {
        let type_ = match self.type_ {
            ConditionType::AbleToScale => ABLE_TO_SCALE,
            ConditionType::ScalingActive => SCALING_ACTIVE,
            ConditionType::ScalingLimited => SCALING_LIMITED,
            ConditionType::ScaledToZero => SCALED_TO_ZERO,
        };
        ConditionBrief {
            type_: type_.to_string(),
            status: if self.status { "True" } else { "False" }.to_string(),
            reason: self.reason.0.to_string(),
        }
    }
}

/// A static text compared by identity (address and length), which is cheap: equal identities
/// are equal texts, and the rare equal texts at two addresses only cost a second record of the
/// same words.
#[derive(Debug, Clone, Copy)]
struct Text(&'static str);

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Text {}

/// The HPA as the controller reads it at every sync, worked out once.
#[derive(Debug)]
struct Prepared {
    /// The error `reconcileAutoscaler` returns when the scale target's `apiVersion` does not
    /// parse (the scale cannot be read then, at any sync).
    scale_error: Option<String>,
    /// Whether the scale's selector is empty (`validateAndParseSelector` fails).
    selector_missing: bool,
    /// `minReplicas` (nil counts as 1) and `maxReplicas`.
    min: i32,
    max: i32,
    /// `spec.behavior` completed by defaulting (`None`: the legacy path).
    behavior: Option<HorizontalPodAutoscalerBehavior>,
    /// Gate `HPAScaleToZero`.
    scale_to_zero: bool,
    /// `hasObjectOrExternalMetrics`.
    object_or_external: bool,
    tolerances: Tolerances,
    calc: ReplicaCalculator,
    namespace: String,
    /// The effective metrics, compiled.
    metrics: Vec<Compiled>,
    /// The resources the load keys name (the metric containers' usage entries).
    resources: Vec<ResourcePlan>,
    /// How many containers metrics-server reports per pod.
    metric_containers: usize,
    /// Whether a metric reads cpu samples (the readiness rules depend on time then).
    cpu_rules: bool,
}

/// One metric, compiled: how to evaluate it and the name its proposal is reported under.
#[derive(Debug)]
struct Compiled {
    kind: Kind,
    /// The name `computeReplicasForMetric` returns on success.
    name: String,
}

#[derive(Debug)]
enum Kind {
    /// Resource and ContainerResource metrics.
    Resource(ResourceMetric),
    /// A Pods metric: `computeStatusForPodsMetric`.
    Pods { metric: String, target_milli: i64 },
    /// An Object metric with a Value target (`average: false`) or an AverageValue target.
    Object {
        object: CrossVersionObjectReference,
        metric: String,
        target_milli: i64,
        average: bool,
        answer: ObjectAnswer,
    },
    /// An External metric with an AverageValue target (`average: true`) or a Value target.
    External {
        metric: String,
        selector: Option<LabelSelector>,
        target_milli: i64,
        average: bool,
        answer: ExternalAnswer,
    },
    /// A metric that fails the same way at every sync (unknown type, no source, no target).
    Invalid(Failure),
}

/// Where the custom metrics API's answer for an Object metric comes from: the simulation lists
/// one value for each Object metric whose load is available (`candidates`: the key slots of
/// the metrics whose entry this one would match, in order), with the value of the first load
/// key of that metric name (`value_slot`).
#[derive(Debug)]
struct ObjectAnswer {
    candidates: Vec<Option<usize>>,
    value_slot: Option<usize>,
}

/// Where the external metrics API's answer comes from: one series when a load key of that name
/// is available (`slots`: the keys of that name), whose value is the first such key's
/// (`value_slot`).
#[derive(Debug)]
struct ExternalAnswer {
    slots: Vec<usize>,
    value_slot: Option<usize>,
}

#[derive(Debug)]
struct ResourceMetric {
    resource: String,
    /// Empty for a Resource metric.
    container: String,
    /// `Some(target)` for an AverageValue target, else the utilization target.
    average_milli: Option<i64>,
    utilization: i32,
    format: Format,
    /// The resource plan of the samples (`None`: no container reports the resource).
    plan: Option<usize>,
    /// For a ContainerResource metric, the first reported container of that name.
    container_index: Option<usize>,
    /// Every pod's request (all pods have the template's containers); `None` when
    /// `calculateRequests` fails.
    request: Option<i64>,
    /// `FailedGetResourceMetric` or `FailedGetContainerResourceMetric`.
    reason: &'static str,
    /// `failed to get <resource> resource metric value` or `failed to get <container>
    /// container metric value`.
    prefix: String,
}

/// A metric's failure: the ScalingActive reason and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    reason: &'static str,
    error: String,
}

/// One metric's evaluation.
#[derive(Debug, Clone)]
struct Evaluated {
    /// The proposal, or the failure.
    result: Result<i32, Failure>,
    /// The value written to `status.currentMetrics`.
    current: Option<MetricValueStatus>,
}

/// The metrics' evaluation, valid for the load phase, pods and replica count it was made for,
/// before `until_ms`.
#[derive(Debug, Default)]
struct Cache {
    valid: bool,
    phase: Option<usize>,
    generation: u64,
    current: i32,
    until_ms: i64,
    /// Names the `metrics_error` text: changes when the text does.
    metrics_error_id: u64,
    evaluated: Vec<Evaluated>,
    /// `computeReplicasForMetrics`' aggregate: the invalid count, the first failure, the
    /// highest proposal and the metric it came from.
    invalid: usize,
    first_failure: Option<usize>,
    replicas: i32,
    replicas_from: Option<usize>,
    metrics_error: Option<String>,
    observations: ObservationsId,
}

/// The rescale event's reason, as `reconcileAutoscaler` builds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RescaleReason {
    None,
    /// `<metric name> above target` (the metric that gave the highest proposal, when it
    /// raised the count).
    AboveTarget(Option<usize>),
    BelowTarget,
    AboveMax,
    BelowMin,
}

/// What a sync decided besides its [`Step`].
#[derive(Debug, Clone, Copy)]
struct Decision {
    rescale_reason: RescaleReason,
    /// The metrics error ([`ReasonKey::metrics_error`]).
    metrics_error: Option<u64>,
    normalization: Option<Normalization>,
}

/// Whether two normalizations are the same (their texts compared by identity, see [`Text`]).
fn same_normalization(a: &Normalization, b: &Normalization) -> bool {
    let same = |x: &'static str, y: &'static str| Text(x) == Text(y);
    a.path == b.path
        && a.prenormalized == b.prenormalized
        && a.stabilized == b.stabilized
        && same(a.stabilization_reason, b.stabilization_reason)
        && same(a.stabilization_message, b.stabilization_message)
        && a.limited.replicas == b.limited.replicas
        && same(a.limited.reason, b.limited.reason)
        && same(a.limited.message, b.limited.message)
        && a.scaling_limited == b.scaling_limited
}

/// Everything a sync's reason text is made of ([`ReasonFacts`] with the texts named);
/// equal keys give equal texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReasonKey {
    outcome: SyncOutcome,
    rescaled: bool,
    rescale: RescaleReason,
    /// [`NormalizationFacts`]: the stabilization and limit reasons (when they changed the
    /// count) and whether the proposal was the current count.
    normalization: Option<(Option<Text>, Option<Text>, bool)>,
    has_proposal: bool,
    /// The metrics error: [`Cache::metrics_error_id`], or [`SELECTOR_REQUIRED_ID`].
    metrics_error: Option<u64>,
}

/// The `metrics_error` of a missing selector in a [`ReasonKey`].
const SELECTOR_REQUIRED_ID: u64 = u64::MAX;
/// `validateAndParseSelector`'s error for an empty selector.
const SELECTOR_REQUIRED: &str = "selector is required";

// === Preparation ===

impl Fast {
    pub(super) fn new(world: &World<'_>, hpa: &HorizontalPodAutoscaler, metrics: &[MetricSpec]) -> Fast {
        let plan = world.plan;
        let opts = &plan.options;
        let target = &hpa.spec.scale_target_ref;
        let scale_error = parse_group_version(&target.api_version)
            .err()
            .map(|e| format!("invalid API version in scale target reference: {e}"));
        let calc = opts.replica_calculator();
        let resources = ResourcePlan::all(plan);
        let containers = metric_containers(&plan.template);
        let template_pod = Pod {
            name: String::new(),
            phase: crate::evaluator::replicas::PodPhase::Pending,
            deleted: false,
            start_time: None,
            ready_condition: None,
            containers: plan.template.containers.clone(),
            init_containers: plan.template.init_containers.clone(),
            pod_requests_milli: plan.template.pod_requests_milli.clone(),
        };
        let compiled: Vec<Compiled> = metrics
            .iter()
            .map(|spec| compile(spec, metrics, plan, &resources, &containers, &template_pod, calc.pod_level_resources))
            .collect();
        let cpu_rules = compiled.iter().any(|m| matches!(&m.kind, Kind::Resource(r) if r.resource == RESOURCE_CPU));
        let prepared = Prepared {
            scale_error,
            selector_missing: plan.selector.is_empty(),
            min: hpa.spec.min_replicas.unwrap_or(1),
            max: hpa.spec.max_replicas,
            behavior: opts.effective_behavior(hpa),
            scale_to_zero: opts.gates.enabled(Gate::HPAScaleToZero),
            object_or_external: has_object_or_external_metrics(metrics),
            tolerances: opts.tolerances_for_hpa(hpa),
            calc,
            namespace: hpa.metadata.namespace.clone(),
            metrics: compiled,
            resources,
            metric_containers: containers.len(),
            cpu_rules,
        };
        let n = prepared.metrics.len();
        Fast {
            hpa: prepared,
            state: ControllerState::default(),
            recommendations: Recommendations::default(),
            conditions: Vec::with_capacity(4),
            positions: [None; 4],
            cache: Cache { evaluated: Vec::with_capacity(n), ..Cache::default() },
            reasons: Vec::new(),
            last_reason: 0,
            condition_lists: Vec::new(),
            last_conditions: 0,
            last_normalization: None,
            split: Split::default(),
            shares: Vec::new(),
        }
    }
}

/// A metric's failure as `computeReplicasForMetric` reports it: `computeStatusFor*Metric`'s
/// error with the prefix of its source type.
fn failure(reason: &'static str, prefix: &str, error: &str) -> Failure {
    Failure { reason, error: format!("{prefix}: {error}") }
}

/// `computeReplicasForMetric`'s dispatch, done once: what each metric is, its name, and the
/// failures that do not depend on the sync (`invalid metric source` errors).
fn compile(
    spec: &MetricSpec,
    metrics: &[MetricSpec],
    plan: &super::Plan,
    resources: &[ResourcePlan],
    containers: &[&crate::evaluator::replicas::Container],
    template_pod: &Pod,
    pod_level_resources: bool,
) -> Compiled {
    let invalid = |reason, prefix: &str, error: &str| Compiled {
        kind: Kind::Invalid(failure(reason, prefix, error)),
        name: String::new(),
    };
    let missing_source = |field: &str| format!("invalid metric source: the {field} source is not set");
    match spec.type_.as_str() {
        "Object" => {
            const REASON: &str = "FailedGetObjectMetric";
            let prefix = "failed to get object metric value";
            let Some(obj) = &spec.object else { return invalid(REASON, prefix, &missing_source("object")) };
            let t = &obj.target;
            let (average, target) = match (t.type_.as_str(), &t.value, &t.average_value) {
                ("Value", Some(v), _) => (false, v),
                ("AverageValue", _, Some(v)) => (true, v),
                _ => {
                    let err =
                        "invalid object metric source: neither a value target nor an average value target was set";
                    return invalid(REASON, prefix, err);
                }
            };
            let name = if average {
                // Upstream really calls an Object metric "external metric" here.
                format!("external metric {}({})", obj.metric.name, gofmt::label_selector(obj.metric.selector.as_ref()))
            } else {
                format!("{} metric {}", obj.described_object.kind, obj.metric.name)
            };
            let group = |api_version: &str| parse_group_version(api_version).map(|(g, _)| g).unwrap_or_default();
            // The entries the simulation would list (one per available Object metric), those
            // `objectSample` would match for this metric.
            let candidates = metrics
                .iter()
                .zip(&plan.bindings)
                .filter_map(|(other, slot)| {
                    let o = other.object.as_ref().filter(|_| other.type_ == "Object")?;
                    let matches = o.metric.name == obj.metric.name
                        && o.described_object.kind == obj.described_object.kind
                        && o.described_object.name == obj.described_object.name
                        && group(&o.described_object.api_version) == group(&obj.described_object.api_version);
                    matches.then_some(*slot)
                })
                .collect();
            let value_slot = plan.keys.iter().position(|k| matches!(k, MetricKey::Object(n) if *n == obj.metric.name));
            Compiled {
                kind: Kind::Object {
                    object: obj.described_object.clone(),
                    metric: obj.metric.name.as_str().into(),
                    target_milli: target.milli_value(),
                    average,
                    answer: ObjectAnswer { candidates, value_slot },
                },
                name,
            }
        }
        "Pods" => {
            const REASON: &str = "FailedGetPodsMetric";
            let prefix = "failed to get pods metric value";
            let Some(pods) = &spec.pods else { return invalid(REASON, prefix, &missing_source("pods")) };
            let Some(target) = &pods.target.average_value else {
                return invalid(REASON, prefix, "invalid pods metric source: no average value target was set");
            };
            Compiled {
                kind: Kind::Pods { metric: pods.metric.name.as_str().into(), target_milli: target.milli_value() },
                name: format!("pods metric {}", pods.metric.name),
            }
        }
        "Resource" | "ContainerResource" => {
            let container_source = spec.type_ == "ContainerResource";
            let (reason, source) = if container_source {
                let source =
                    spec.container_resource.as_ref().map(|r| (r.name.as_str(), r.container.as_str(), &r.target));
                ("FailedGetContainerResourceMetric", source)
            } else {
                ("FailedGetResourceMetric", spec.resource.as_ref().map(|r| (r.name.as_str(), "", &r.target)))
            };
            let Some((resource, container, target)) = source else {
                let (prefix, field) = if container_source {
                    ("failed to get  container metric value", "containerResource")
                } else {
                    ("failed to get  resource metric value", "resource")
                };
                return invalid(reason, prefix, &missing_source(field));
            };
            let prefix = if container_source {
                format!("failed to get {container} container metric value")
            } else {
                format!("failed to get {resource} resource metric value")
            };
            let (average_milli, utilization, name) = match (&target.average_value, target.average_utilization) {
                (Some(average), _) => (Some(average.milli_value()), 0, format!("{resource} resource")),
                (None, Some(u)) if container_source => {
                    (None, u, format!("{resource} container resource utilization (percentage of request)"))
                }
                (None, Some(u)) => (None, u, format!("{resource} resource utilization (percentage of request)")),
                (None, None) => {
                    let err = "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set";
                    return invalid(reason, &prefix, err);
                }
            };
            let request =
                calculate_requests(std::slice::from_ref(template_pod), container, resource, pod_level_resources)
                    .ok()
                    .and_then(|r| r.values().next().copied());
            Compiled {
                kind: Kind::Resource(ResourceMetric {
                    resource: resource.to_string(),
                    container: container.to_string(),
                    average_milli,
                    utilization,
                    format: if resource == RESOURCE_MEMORY { Format::BinarySI } else { Format::DecimalSI },
                    plan: resources.iter().position(|r| r.name == resource),
                    container_index: (container_source)
                        .then(|| containers.iter().position(|c| c.name == container))
                        .flatten(),
                    request,
                    reason,
                    prefix,
                }),
                name,
            }
        }
        "External" => {
            const REASON: &str = "FailedGetExternalMetric";
            let Some(ext) = &spec.external else {
                return invalid(REASON, "failed to get  external metric value", &missing_source("external"));
            };
            let prefix = format!("failed to get {} external metric value", ext.metric.name);
            let (average, target) = match (&ext.target.average_value, &ext.target.value) {
                (Some(v), _) => (true, v),
                (None, Some(v)) => (false, v),
                (None, None) => {
                    let err =
                        "invalid external metric source: neither a value target nor an average value target was set";
                    return invalid(REASON, &prefix, err);
                }
            };
            let selector = ext.metric.selector.as_ref();
            let is_key = |k: &MetricKey| matches!(k, MetricKey::External(n) if *n == ext.metric.name);
            let answer = ExternalAnswer {
                slots: plan.keys.iter().enumerate().filter(|(_, k)| is_key(k)).map(|(i, _)| i).collect(),
                value_slot: plan.keys.iter().position(is_key),
            };
            Compiled {
                kind: Kind::External {
                    metric: ext.metric.name.as_str().into(),
                    selector: ext.metric.selector.clone(),
                    target_milli: target.milli_value(),
                    average,
                    answer,
                },
                name: format!("external metric {}({})", ext.metric.name, gofmt::label_selector(selector)),
            }
        }
        other => {
            let err = format!("unknown metric source type {}", crate::go::quote(other));
            Compiled {
                kind: Kind::Invalid(Failure { reason: "InvalidMetricSourceType", error: err }),
                name: String::new(),
            }
        }
    }
}

// === One sync ===

impl Fast {
    /// `reconcileAutoscaler` at `at`, on the world as it is.
    pub(super) fn sync(&mut self, world: &World<'_>, at: i64, tables: &mut Tables) -> Step {
        let now = Timestamp::from_millis(at);
        let current = world.current;
        let mut step = Step {
            at_ms: at,
            replicas: current,
            pods: world.counts,
            load_phase: world.phase,
            observations: ObservationsId::default(),
            proposal: None,
            normalization: None,
            desired: current,
            rescaled: false,
            outcome: SyncOutcome::Unchanged,
            reason: ReasonId::default(),
            conditions: ConditionsId::default(),
        };
        let mut decision = Decision { rescale_reason: RescaleReason::None, metrics_error: None, normalization: None };
        self.decide(world, now, tables, &mut step, &mut decision);
        step.normalization = decision.normalization.map(|n| self.normalization_id(n, tables));
        step.reason = self.reason(&step, &decision, tables);
        step.conditions = self.conditions_id(tables);
        step
    }

    /// The recorded normalization.
    fn normalization_id(&mut self, n: Normalization, tables: &mut Tables) -> NormalizationId {
        if let Some((last, id)) = &self.last_normalization
            && same_normalization(last, &n)
        {
            return *id;
        }
        let id = tables.add_normalization(n);
        self.last_normalization = Some((n, id));
        id
    }

    /// The decisions of `reconcileAutoscaler`, in its order.
    fn decide(
        &mut self,
        world: &World<'_>,
        now: Timestamp,
        tables: &mut Tables,
        step: &mut Step,
        decision: &mut Decision,
    ) {
        let Decision { rescale_reason, metrics_error, normalization } = decision;
        // 1. Read the scale.
        if self.hpa.scale_error.is_some() {
            self.set_condition(ConditionType::AbleToScale, false, "FailedGetScale");
            step.outcome = SyncOutcome::FailedGetScale;
            return;
        }
        self.set_condition(ConditionType::AbleToScale, true, "SucceededGetScale");
        let current = world.current;
        // recordInitialRecommendation
        if !self.recommendations.seeded {
            self.recommendations.seeded = true;
            self.recommendations.record(current, now, self.hpa.behavior.is_some());
        }
        let (min, max) = (self.hpa.min, self.hpa.max);
        let mut desired = 0i32;
        let mut rescale = true;

        // 5. Scale-to-zero facts.
        let gate_on = self.hpa.scale_to_zero;
        let scaled_to_zero = gate_on && self.scaled_to_zero_condition();
        let can_scale_from_zero = scaled_to_zero && self.hpa.object_or_external;

        // 6. Range pre-checks.
        let mut needs_metrics = true;
        if current == 0 {
            if !((min != 0 && scaled_to_zero) || can_scale_from_zero) {
                needs_metrics = false;
                rescale = false;
                self.set_condition(ConditionType::ScalingActive, false, "ScalingDisabled");
                if !gate_on {
                    self.remove_condition(ConditionType::ScaledToZero);
                }
                step.outcome = SyncOutcome::ScalingDisabled;
            }
        } else if current > max {
            *rescale_reason = RescaleReason::AboveMax;
            desired = max;
            needs_metrics = false;
        } else if current < min {
            *rescale_reason = RescaleReason::BelowMin;
            desired = min;
            needs_metrics = false;
        }

        // 7-8. Metrics and normalization.
        if needs_metrics {
            // computeReplicasForMetrics: validateAndParseSelector, then each metric.
            if self.hpa.selector_missing {
                self.set_condition(ConditionType::ScalingActive, false, "InvalidSelector");
                *metrics_error = Some(SELECTOR_REQUIRED_ID);
                step.outcome = SyncOutcome::FailedComputeMetrics;
                return;
            }
            self.evaluate(world, now, tables);
            let cache = &self.cache;
            step.observations = cache.observations;
            *metrics_error = cache.metrics_error.is_some().then_some(cache.metrics_error_id);
            let n = self.hpa.metrics.len();
            if cache.invalid >= n || (cache.invalid > 0 && cache.replicas < current) {
                let reason = cache.first_failure.and_then(|i| self.failure_reason(i)).unwrap_or_default();
                self.set_condition(ConditionType::ScalingActive, false, reason);
                step.outcome = SyncOutcome::FailedComputeMetrics;
                return;
            }
            let (replicas, replicas_from) = (cache.replicas, cache.replicas_from);
            self.set_condition(ConditionType::ScalingActive, true, "ValidMetricFound");
            step.proposal = Some(replicas);

            let mut rescale_metric = None;
            if replicas > desired {
                desired = replicas;
                rescale_metric = replicas_from;
            }
            if desired > current {
                *rescale_reason = RescaleReason::AboveTarget(rescale_metric);
            }
            if desired < current {
                *rescale_reason = RescaleReason::BelowTarget;
            }
            let n = self.normalize(world, current, desired, min, now);
            self.set_condition(ConditionType::AbleToScale, true, n.stabilization_reason);
            self.set_condition(ConditionType::ScalingLimited, n.scaling_limited, n.limited.reason);
            desired = n.limited.replicas;
            *normalization = Some(n);
            if current == 0 && min != 0 && scaled_to_zero && desired < min {
                desired = min;
                if *rescale_reason == RescaleReason::None {
                    *rescale_reason = RescaleReason::BelowMin;
                }
            }
            rescale = desired != current;
        }

        // 9. Act.
        if rescale {
            self.set_condition(ConditionType::AbleToScale, true, "SucceededRescale");
            behavior::store_scale_event(
                self.hpa.behavior.as_ref(),
                &mut self.state.scale_up_events,
                &mut self.state.scale_down_events,
                current,
                desired,
                now,
            );
            if gate_on {
                if current > 0 && desired == 0 && min == 0 && self.hpa.object_or_external {
                    self.set_condition(ConditionType::ScaledToZero, true, "ScaledToZero");
                } else {
                    self.set_condition(ConditionType::ScaledToZero, false, "NotScaledToZero");
                }
            } else {
                self.remove_condition(ConditionType::ScaledToZero);
            }
            step.rescaled = true;
            step.outcome = SyncOutcome::Rescaled;
            step.desired = desired;
        }
    }

    /// The ScalingActive reason of metric `i`'s failure.
    fn failure_reason(&self, i: usize) -> Option<&'static str> {
        match &self.cache.evaluated.get(i)?.result {
            Err(f) => Some(f.reason),
            Ok(_) => None,
        }
    }

    /// `setConditionInList` (status, reason; the message is not kept).
    fn set_condition(&mut self, type_: ConditionType, status: bool, reason: &'static str) {
        let condition = Condition { type_, status, reason: Text(reason) };
        let slot = &mut self.positions[type_ as usize];
        match slot.and_then(|i| self.conditions.get_mut(i)) {
            Some(c) => *c = condition,
            None => {
                *slot = Some(self.conditions.len());
                self.conditions.push(condition);
            }
        }
    }

    /// `removeCondition`.
    fn remove_condition(&mut self, type_: ConditionType) {
        if self.positions[type_ as usize].is_some() {
            self.conditions.retain(|c| c.type_ != type_);
            self.positions = [None; 4];
            for (i, c) in self.conditions.iter().enumerate() {
                self.positions[c.type_ as usize] = Some(i);
            }
        }
    }

    /// `getScaledToZeroConditionStatus`.
    fn scaled_to_zero_condition(&self) -> bool {
        let i = self.positions[ConditionType::ScaledToZero as usize];
        i.and_then(|i| self.conditions.get(i)).is_some_and(|c| c.status)
    }

    /// The reason text of a sync, rendered once per distinct [`ReasonKey`].
    fn reason(&mut self, step: &Step, decision: &Decision, tables: &mut Tables) -> ReasonId {
        let (rescale, metrics_error) = (decision.rescale_reason, decision.metrics_error);
        let key = ReasonKey {
            outcome: step.outcome,
            rescaled: step.rescaled,
            rescale,
            normalization: decision.normalization.as_ref().map(|n| {
                let facts = NormalizationFacts::new(n, Some(step.replicas));
                (facts.stabilization.map(Text), facts.limit.map(Text), facts.at_current)
            }),
            has_proposal: step.proposal.is_some(),
            metrics_error,
        };
        if let Some((last, id)) = self.reasons.get(self.last_reason)
            && *last == key
        {
            return *id;
        }
        if let Some(i) = self.reasons.iter().rposition(|(k, _)| *k == key)
            && let Some((_, id)) = self.reasons.get(i)
        {
            self.last_reason = i;
            return *id;
        }
        let rescale_text = match rescale {
            RescaleReason::None => String::new(),
            RescaleReason::AboveTarget(metric) => {
                let name = metric.and_then(|i| self.hpa.metrics.get(i)).map_or("", |m| m.name.as_str());
                format!("{name} above target")
            }
            RescaleReason::BelowTarget => "All metrics below target".to_string(),
            RescaleReason::AboveMax => REASON_ABOVE_MAX.to_string(),
            RescaleReason::BelowMin => REASON_BELOW_MIN.to_string(),
        };
        let metrics_error = match metrics_error {
            Some(SELECTOR_REQUIRED_ID) => Some(SELECTOR_REQUIRED),
            Some(_) => self.cache.metrics_error.as_deref(),
            None => None,
        };
        let facts = ReasonFacts {
            outcome: key.outcome,
            error: self.hpa.scale_error.as_deref(),
            metrics_error,
            rescaled: key.rescaled,
            rescale_reason: &rescale_text,
            normalization: key.normalization.map(|(stabilization, limit, at_current)| NormalizationFacts {
                stabilization: stabilization.map(|t| t.0),
                limit: limit.map(|t| t.0),
                at_current,
            }),
            has_proposal: key.has_proposal,
        };
        let id = tables.add_reason(facts.text());
        self.reasons.push((key, id));
        self.last_reason = self.reasons.len() - 1;
        id
    }

    /// The recorded list of the current conditions.
    fn conditions_id(&mut self, tables: &mut Tables) -> ConditionsId {
        if let Some((list, id)) = self.condition_lists.get(self.last_conditions)
            && *list == self.conditions
        {
            return *id;
        }
        if let Some(i) = self.condition_lists.iter().position(|(list, _)| *list == self.conditions) {
            self.last_conditions = i;
            return self.condition_lists.get(i).map_or_else(ConditionsId::default, |(_, id)| *id);
        }
        let id = tables.add_conditions(self.conditions.iter().map(Condition::brief).collect());
        self.condition_lists.push((self.conditions.clone(), id));
        self.last_conditions = self.condition_lists.len() - 1;
        id
    }
}

// === Normalization ===

/// The prenormalized recommendations the controller remembers, kept as the two monotonic
/// queues its stabilization windows need.
///
/// The controller keeps a list and scans it at every sync (`stabilizeRecommendation`,
/// `stabilizeRecommendationWithBehaviors`): the highest (lowest) recommendation whose timestamp
/// is in a window ending now. In a simulation every recommendation is recorded at the instant
/// of its sync, so timestamps never decrease, and a window's cutoff (`now` minus a fixed
/// length) never decreases either. Hence a recommendation the window has passed never counts
/// again, and one that is no higher (no lower) than a later one is never the highest (lowest)
/// of a window, since the later one is in every window that holds it. The list only ever
/// overwrites recommendations no window holds. So the front of a queue that drops dominated
/// entries at the back and passed ones at the front is the value the scan finds.
#[derive(Debug, Default)]
struct Recommendations {
    /// `recordInitialRecommendation` has run.
    seeded: bool,
    /// Timestamps increasing, recommendations strictly decreasing: candidates for the highest.
    highest: VecDeque<TimestampedRecommendation>,
    /// Timestamps increasing, recommendations strictly increasing: candidates for the lowest
    /// (the behavior path's scale-up window only).
    lowest: VecDeque<TimestampedRecommendation>,
}

impl Recommendations {
    /// Records a recommendation made at `now` (at or after every earlier one).
    fn record(&mut self, recommendation: i32, now: Timestamp, with_lowest: bool) {
        let rec = TimestampedRecommendation { recommendation, timestamp: now };
        while self.highest.back().is_some_and(|b| b.recommendation <= recommendation) {
            self.highest.pop_back();
        }
        self.highest.push_back(rec);
        if with_lowest {
            while self.lowest.back().is_some_and(|b| b.recommendation >= recommendation) {
                self.lowest.pop_back();
            }
            self.lowest.push_back(rec);
        }
    }

    /// The highest recommendation whose timestamp `counts` (true from some instant on, and
    /// from no earlier instant at a later call).
    fn highest(&mut self, counts: impl Fn(Timestamp) -> bool) -> Option<i32> {
        while self.highest.front().is_some_and(|f| !counts(f.timestamp)) {
            self.highest.pop_front();
        }
        self.highest.front().map(|f| f.recommendation)
    }

    /// The lowest recommendation whose timestamp `counts` (as for [`Self::highest`]).
    fn lowest(&mut self, counts: impl Fn(Timestamp) -> bool) -> Option<i32> {
        while self.lowest.front().is_some_and(|f| !counts(f.timestamp)) {
            self.lowest.pop_front();
        }
        self.lowest.front().map(|f| f.recommendation)
    }
}

impl Fast {
    /// `normalizeDesiredReplicas` / `normalizeDesiredReplicasWithBehaviors`: stabilization over
    /// [`Recommendations`], then the shared [`limit`].
    fn normalize(
        &mut self,
        world: &World<'_>,
        current: i32,
        prenormalized: i32,
        min: i32,
        now: Timestamp,
    ) -> Normalization {
        let opts = &world.plan.options;
        let max = self.hpa.max;
        let recommendations = &mut self.recommendations;
        let stabilized = match &self.hpa.behavior {
            None => {
                // stabilizeRecommendation: the highest of `prenormalized` and every
                // recommendation not before `now − window`.
                let cutoff = now.minus(opts.downscale_stabilization_window);
                let highest = recommendations.highest(|t| !t.before(cutoff));
                recommendations.record(prenormalized, now, false);
                legacy_stabilized(highest.map_or(prenormalized, |h| h.max(prenormalized)))
            }
            Some(b) => {
                // stabilizeRecommendationWithBehaviors: the lowest recommendation strictly after
                // the scale-up cutoff and the highest strictly after the scale-down cutoff, both
                // with `prenormalized`.
                let args = normalization_args(b, max, current, prenormalized, min);
                let (up_cutoff, down_cutoff) = behavior::behavior_cutoffs(&args, now);
                let up = recommendations.lowest(|t| t.after(up_cutoff)).map_or(prenormalized, |l| l.min(prenormalized));
                let down =
                    recommendations.highest(|t| t.after(down_cutoff)).map_or(prenormalized, |h| h.max(prenormalized));
                recommendations.record(prenormalized, now, true);
                behavior::stabilized_between(&args, up, down)
            }
        };
        limit(&self.state, self.hpa.behavior.as_ref(), opts, max, current, prenormalized, min, now, stabilized)
    }
}

// === The metrics ===

/// The pods as `groupPods` sorts them for one metric: how many count, how many are unready
/// (Pending, or not ready per the cpu rules) or missing (Running without a sample), and the
/// sum of the samples that count.
#[derive(Debug, Clone, Copy, Default)]
struct Grouped {
    ready_count: usize,
    unready: usize,
    missing: usize,
    sum: i64,
}

/// Adds `n` samples of `value` to a wrapping sum (`n` map insertions, as Go adds them).
fn add_times(sum: i64, value: i64, n: usize) -> i64 {
    sum.wrapping_add(value.wrapping_mul(n as i64))
}

impl Fast {
    /// Evaluates every metric, unless nothing it reads has changed since the last evaluation.
    fn evaluate(&mut self, world: &World<'_>, now: Timestamp, tables: &mut Tables) {
        let at = now.as_millis();
        let c = &self.cache;
        if c.valid
            && c.phase == world.phase
            && c.generation == world.generation
            && c.current == world.current
            && at < c.until_ms
        {
            return;
        }
        let mut evaluated = std::mem::take(&mut self.cache.evaluated);
        evaluated.clear();
        for m in &self.hpa.metrics {
            evaluated.push(evaluate_metric(&self.hpa, m, world, now, &mut self.split, &mut self.shares));
        }

        // computeReplicasForMetrics' loop.
        let (mut invalid, mut first_failure, mut replicas, mut replicas_from) = (0usize, None, 0i32, None);
        for (i, e) in evaluated.iter().enumerate() {
            match &e.result {
                Err(_) => {
                    if invalid == 0 {
                        first_failure = Some(i);
                    }
                    invalid += 1;
                }
                Ok(p) => {
                    if replicas == 0 || *p > replicas {
                        replicas = *p;
                        replicas_from = Some(i);
                    }
                }
            }
        }
        let n = evaluated.len();
        let metrics_error = first_failure
            .and_then(|i| evaluated.get(i))
            .and_then(|e| e.result.as_ref().err())
            .map(|f| format!("invalid metrics ({invalid} invalid out of {n}), first error is: {}", f.error));
        let observations = evaluated
            .iter()
            .map(|e| MetricObservation {
                current: e.current.clone(),
                proposal: e.result.as_ref().ok().copied(),
                error: e.result.as_ref().err().map(|f| f.error.clone()),
            })
            .collect();

        let until_ms = valid_until(&self.hpa, world, at);
        let c = &mut self.cache;
        c.observations = tables.add_observations(observations);
        c.valid = true;
        c.phase = world.phase;
        c.generation = world.generation;
        c.current = world.current;
        c.until_ms = until_ms;
        if c.metrics_error != metrics_error {
            c.metrics_error_id = c.metrics_error_id.wrapping_add(1) % SELECTOR_REQUIRED_ID;
            c.metrics_error = metrics_error;
        }
        c.evaluated = evaluated;
        c.invalid = invalid;
        c.first_failure = first_failure;
        c.replicas = replicas;
        c.replicas_from = replicas_from;
    }
}

/// The first instant after `at` at which an evaluation could differ with the same pods and
/// load: a pod turning Running or Ready and, when a metric reads cpu samples, the instants at
/// which `groupPods`' cpu rules turn (the end of a pod's initialization period, one sample
/// window after its readiness changed). Every time comparison of an evaluation is of the form
/// `now < t` for one of these `t`.
fn valid_until(hpa: &Prepared, world: &World<'_>, at: i64) -> i64 {
    let window = world.plan.metric_window;
    let mut until = i64::MAX;
    let mut consider = |t: i64| {
        if t > at {
            until = until.min(t);
        }
    };
    for clock in &world.pods {
        consider(clock.running_ms);
        consider(clock.ready_ms);
        if hpa.cpu_rules {
            let start = Timestamp::from_millis(clock.created_ms);
            consider(start.plus(hpa.calc.cpu_initialization_period).as_millis());
            consider(start.plus(window).as_millis());
            consider(Timestamp::from_millis(clock.ready_ms).plus(window).as_millis());
        }
    }
    until
}

/// `computeReplicasForMetric` on the world as it is.
fn evaluate_metric(
    hpa: &Prepared,
    m: &Compiled,
    world: &World<'_>,
    now: Timestamp,
    split: &mut Split,
    shares: &mut Vec<i64>,
) -> Evaluated {
    let failed = |f: Failure| Evaluated { result: Err(f), current: None };
    match &m.kind {
        Kind::Invalid(f) => failed(f.clone()),
        Kind::Resource(r) => match resource_metric(hpa, r, world, now, split, shares) {
            Ok((replicas, current)) => Evaluated { result: Ok(replicas), current: Some(current) },
            Err(e) => failed(failure(r.reason, &r.prefix, &e)),
        },
        Kind::Pods { metric, target_milli } => match pods_metric(hpa, metric, *target_milli, world) {
            Ok((replicas, usage)) => Evaluated {
                result: Ok(replicas),
                current: Some(MetricValueStatus {
                    average_value: Some(Quantity::from_milli(usage)),
                    ..Default::default()
                }),
            },
            Err(e) => failed(failure("FailedGetPodsMetric", "failed to get pods metric value", &e.0)),
        },
        Kind::Object { object, metric, target_milli, average, answer } => {
            object_metric(hpa, object, metric, *target_milli, *average, answer, world, now)
        }
        Kind::External { metric, selector, target_milli, average, answer } => {
            external_metric(hpa, metric, selector.as_ref(), *target_milli, *average, answer, world)
        }
    }
}

/// `computeStatusForResourceMetricGeneric` (for `computeStatusForResourceMetric` and
/// `computeStatusForContainerResourceMetric`): `GetRawResourceReplicas` for an AverageValue
/// target, else `GetResourceReplicas`. The error is the generic function's.
fn resource_metric(
    hpa: &Prepared,
    m: &ResourceMetric,
    world: &World<'_>,
    now: Timestamp,
    split: &mut Split,
    shares: &mut Vec<i64>,
) -> Result<(i32, MetricValueStatus), String> {
    let values = &world.values;
    let current = world.current;
    let wrap = |e: CalcError| match m.average_milli {
        Some(_) => format!("failed to get {} usage: {e}", m.resource),
        None => format!("failed to get {} utilization: {e}", m.resource),
    };
    // resourceMetricsClient.GetResourceMetric: one item per Running pod, none at all when no
    // container reports any resource.
    let running = world.counts.ready > 0 || world.counts.unready > 0;
    let items = running && (0..hpa.metric_containers).any(|c| hpa.resources.iter().any(|r| r.reported_by(values, c)));
    if !items {
        return Err(wrap(CalcError(format!(
            "unable to get metrics for resource {}: {NO_RESOURCE_METRICS}",
            m.resource
        ))));
    }
    if world.pods.is_empty() {
        return Err(wrap(CalcError(NO_PODS.to_string())));
    }
    // getPodMetrics / getContainerMetrics: a pod's sample is the sum over its containers (all
    // must report the resource) or the named container's usage. Which containers report a
    // resource is the same for every pod.
    let plan = m.plan.and_then(|p| hpa.resources.get(p));
    let (plan, whole_pod) = match plan {
        Some(r) if m.container.is_empty() => {
            let all = hpa.metric_containers > 0 && (0..hpa.metric_containers).all(|c| r.reported_by(values, c));
            (all.then_some(r), true)
        }
        Some(r) => (m.container_index.filter(|c| r.reported_by(values, *c)).map(|_| r), false),
        None => (None, true),
    };
    let container = m.container_index.unwrap_or(0);
    let cpu = m.resource == RESOURCE_CPU;
    let sample_of = |shares: &[i64]| {
        if whole_pod {
            shares.iter().fold(0i64, |acc, v| acc.wrapping_add(*v))
        } else {
            shares.get(container).copied().unwrap_or(0)
        }
    };
    // Without a `total`, every Running pod has the same sample.
    let mut same_for_all = None;
    if let Some(r) = plan {
        split.read(r, values);
        if !split.depends_on_pod() {
            split.shares(r, PodLoad { ready: false, k: 0, ready_pods: 0 }, shares);
            same_for_all = Some(sample_of(shares));
        }
    }
    let g = group(hpa, world, now, cpu, |load| {
        let r = plan?;
        if same_for_all.is_some() {
            return same_for_all;
        }
        split.shares(r, load, shares);
        Some(sample_of(shares))
    });
    if g.ready_count == 0 {
        return Err(wrap(CalcError(NO_READY_SAMPLES.to_string())));
    }
    if let Some(target) = m.average_milli {
        // GetRawResourceReplicas → calcPlainMetricReplicas
        let (replicas, usage) = plain_replicas(current, target, g, hpa.tolerances);
        let status = MetricValueStatus {
            average_value: Some(Quantity::from_milli_with_format(usage, m.format)),
            ..Default::default()
        };
        return Ok((replicas, status));
    }
    // GetResourceReplicas: calculateRequests (every pod has the template's request).
    let request = match m.request {
        Some(r) => r,
        None => return Err(wrap(request_error(hpa, world, m))),
    };
    let (replicas, utilization, raw) =
        utilization_replicas(current, m.utilization, g, request, hpa.tolerances).map_err(wrap)?;
    let status = MetricValueStatus {
        average_utilization: Some(utilization),
        average_value: Some(Quantity::from_milli_with_format(raw, m.format)),
        ..Default::default()
    };
    Ok((replicas, status))
}

/// `calculateRequests`' error for the pods of the world: the first pod's (every pod has the
/// template's containers).
fn request_error(hpa: &Prepared, world: &World<'_>, m: &ResourceMetric) -> CalcError {
    let t = &world.plan.template;
    let first = world.pods.first().map(|c| Pod {
        name: world.pod_name(c),
        phase: crate::evaluator::replicas::PodPhase::Pending,
        deleted: false,
        start_time: None,
        ready_condition: None,
        containers: t.containers.clone(),
        init_containers: t.init_containers.clone(),
        pod_requests_milli: t.pod_requests_milli.clone(),
    });
    let pods = first.as_slice();
    match calculate_requests(pods, &m.container, &m.resource, hpa.calc.pod_level_resources) {
        Err(e) => e,
        // Not reached: the template's request failed the same way when it was prepared.
        Ok(_) => CalcError(NO_MATCHING_SAMPLES.to_string()),
    }
}

/// `groupPods` over the pods in list order: Pending pods are unready, Running pods without a
/// sample missing, and for cpu the readiness rules may find a Running pod unready. `sample`
/// gives a Running pod's sample (`None`: no sample).
fn group(
    hpa: &Prepared,
    world: &World<'_>,
    now: Timestamp,
    cpu: bool,
    mut sample: impl FnMut(PodLoad) -> Option<i64>,
) -> Grouped {
    let ready_pods = i64::from(world.counts.ready.max(0));
    let window = world.plan.metric_window;
    let calc = &hpa.calc;
    let mut g = Grouped::default();
    let mut k = 0i64;
    for (clock, state) in world.pods.iter().zip(&world.states) {
        let PodState { running, ready } = *state;
        if !running {
            g.unready += 1;
            continue;
        }
        let load = PodLoad { ready, k, ready_pods };
        if ready {
            k += 1;
        }
        let Some(value) = sample(load) else {
            g.missing += 1;
            continue;
        };
        if cpu {
            // The Ready condition: True since `ready_ms`, else False since creation.
            let start = Timestamp::from_millis(clock.created_ms);
            let transition = Timestamp::from_millis(if ready { clock.ready_ms } else { clock.created_ms });
            let unready = if start.plus(calc.cpu_initialization_period).after(now) {
                // The sample is taken now, with the metric window.
                !ready || now.before(transition.plus(window))
            } else {
                !ready && start.plus(calc.delay_of_initial_readiness_status).after(transition)
            };
            if unready {
                g.unready += 1;
                continue;
            }
        }
        g.ready_count += 1;
        g.sum = g.sum.wrapping_add(value);
    }
    g
}

/// `GetResourceReplicas` once the samples are grouped: `GetResourceUtilizationRatio` over
/// the samples that count, then (with missing pods, or unready pods on a scale-up) the second
/// pass with the backfilled samples. Returns the proposal, the utilization and the raw average
/// of the first pass.
fn utilization_replicas(
    current: i32,
    target: i32,
    g: Grouped,
    request: i64,
    tolerances: Tolerances,
) -> Result<(i32, i32, i64), CalcError> {
    // GetResourceUtilizationRatio over `entries` samples with their requests.
    let ratio_of = |total: i64, requests: i64, entries: usize| {
        if requests == 0 {
            return Err(CalcError(NO_MATCHING_SAMPLES.to_string()));
        }
        let utilization = total.wrapping_mul(100).wrapping_div(requests) as i32;
        let ratio = f64::from(utilization) / f64::from(target);
        Ok((ratio, utilization, total.wrapping_div(entries as i64)))
    };
    let requests = add_times(0, request, g.ready_count);
    let (ratio, utilization, raw) = ratio_of(g.sum, requests, g.ready_count)?;
    let scale_up_with_unready = g.unready > 0 && ratio > 1.0;
    if !scale_up_with_unready && g.missing == 0 {
        if tolerances.is_within(ratio) {
            return Ok((current, utilization, raw));
        }
        return Ok((ceil_to_i32(ratio * g.ready_count as f64), utilization, raw));
    }
    let (mut total, mut requests, mut len) = (g.sum, requests, g.ready_count);
    if g.missing > 0 {
        // Scale-down: missing pods use 100 % of their request (or the target above 100 %);
        // scale-up: 0.
        let fill = if ratio < 1.0 {
            Some(request.wrapping_mul(i64::from(target.max(100))).wrapping_div(100))
        } else if ratio > 1.0 {
            Some(0)
        } else {
            None
        };
        if let Some(v) = fill {
            total = add_times(total, v, g.missing);
            requests = add_times(requests, request, g.missing);
            len += g.missing;
        }
    }
    if scale_up_with_unready {
        requests = add_times(requests, request, g.unready);
        len += g.unready;
    }
    let (new_ratio, _, _) = ratio_of(total, requests, len)?;
    Ok((corrected_replicas(current, ratio, new_ratio, len, tolerances), utilization, raw))
}

/// `calcPlainMetricReplicas` once the samples are grouped (`GetMetricUsageRatio`, then the
/// second pass where missing pods count as the target on a scale-down and 0 on a scale-up).
fn plain_replicas(current: i32, target: i64, g: Grouped, tolerances: Tolerances) -> (i32, i64) {
    let usage_ratio = |total: i64, count: usize| {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        let usage = total.checked_div(count).unwrap_or(0);
        (usage as f64 / target as f64, usage)
    };
    let (ratio, usage) = usage_ratio(g.sum, g.ready_count);
    let scale_up_with_unready = g.unready > 0 && ratio > 1.0;
    if !scale_up_with_unready && g.missing == 0 {
        if tolerances.is_within(ratio) {
            return (current, usage);
        }
        return (ceil_to_i32(ratio * g.ready_count as f64), usage);
    }
    let (mut total, mut len) = (g.sum, g.ready_count);
    if g.missing > 0 {
        let fill = if ratio < 1.0 {
            Some(target)
        } else if ratio > 1.0 {
            Some(0)
        } else {
            None
        };
        if let Some(v) = fill {
            total = add_times(total, v, g.missing);
            len += g.missing;
        }
    }
    if scale_up_with_unready {
        len += g.unready;
    }
    let (new_ratio, _) = usage_ratio(total, len);
    (corrected_replicas(current, ratio, new_ratio, len, tolerances), usage)
}

/// `GetMetricReplicas` for a Pods metric: one sample per Running pod when a load key of that
/// name is available (valued by the first key of the name).
fn pods_metric(hpa: &Prepared, metric: &str, target: i64, world: &World<'_>) -> Result<(i32, i64), CalcError> {
    let keys = &world.plan.keys;
    let values = &world.values;
    let is_key = |k: &MetricKey| matches!(k, MetricKey::Pods(n) if n == metric);
    let answered = keys.iter().enumerate().any(|(slot, k)| is_key(k) && lookup(values, Some(slot)).is_some());
    let running = world.counts.ready > 0 || world.counts.unready > 0;
    if !answered || !running {
        return Err(CalcError(format!("unable to get metric {metric}: {NO_CUSTOM_METRICS}")));
    }
    if world.pods.is_empty() {
        return Err(CalcError(NO_PODS.to_string()));
    }
    let value = lookup(values, keys.iter().position(is_key));
    let g = group(hpa, world, Timestamp::ZERO, false, |load| Some(value.map_or(0, |v| per_pod(v, 0, load))));
    if g.ready_count == 0 {
        return Err(CalcError(NO_READY_SAMPLES.to_string()));
    }
    Ok(plain_replicas(world.current, target, g, hpa.tolerances))
}

/// `getUsageRatioReplicaCount`: from zero `ceil(ratio)`, within tolerance the current count,
/// else `ceil(ratio × Running-and-Ready pods)`.
fn usage_ratio_replica_count(
    current: i32,
    ratio: f64,
    tolerances: Tolerances,
    world: &World<'_>,
) -> Result<i32, CalcError> {
    if current == 0 {
        return Ok(ceil_to_i32(ratio));
    }
    if tolerances.is_within(ratio) {
        return Ok(current);
    }
    if world.pods.is_empty() {
        return Err(CalcError(format!("unable to calculate ready pods: {NO_PODS}")));
    }
    let ready = i64::from(world.counts.ready);
    Ok(ceil_to_i32(ratio * ready as f64))
}

/// `computeStatusForObjectMetric`: `GetObjectMetricReplicas` (Value) or
/// `GetObjectPerPodMetricReplicas` (AverageValue).
#[allow(clippy::too_many_arguments)]
fn object_metric(
    hpa: &Prepared,
    object: &CrossVersionObjectReference,
    metric: &str,
    target: i64,
    average: bool,
    answer: &ObjectAnswer,
    world: &World<'_>,
    now: Timestamp,
) -> Evaluated {
    let values = &world.values;
    let ns = hpa.namespace.as_str();
    let sample = if answer.candidates.iter().any(|slot| lookup(values, *slot).is_some()) {
        Ok(match lookup(values, answer.value_slot) {
            Some(LoadValue::Value(v)) => ObjectSample { value_milli: v, timestamp: now },
            _ => ObjectSample { value_milli: 0, timestamp: Timestamp::from_millis(0) },
        })
    } else {
        Err(format!("the server could not find the metric {metric} for {} {}", object.kind, object.name))
    };
    let prefix = "failed to get object metric value";
    let failed =
        |error: &str| Evaluated { result: Err(failure("FailedGetObjectMetric", prefix, error)), current: None };
    if average {
        let status_replicas = i32::try_from(world.pods.len()).unwrap_or(i32::MAX);
        return match hpa.calc.get_object_per_pod_metric_replicas(
            status_replicas,
            target,
            metric,
            hpa.tolerances,
            ns,
            object,
            sample.as_ref().map(|s| *s).map_err(String::as_str),
        ) {
            Ok(r) => Evaluated {
                result: Ok(r.replicas),
                current: Some(MetricValueStatus {
                    average_value: Some(Quantity::from_milli(r.usage_milli)),
                    ..Default::default()
                }),
            },
            Err(e) => failed(&format!("failed to get {metric} object metric: {e}")),
        };
    }
    // GetObjectMetricReplicas
    let replicas = get_object_metric(sample.as_ref().map(|s| *s).map_err(String::as_str))
        .map_err(|e| object_fetch_error(metric, ns, object, &e))
        .and_then(|s| {
            let ratio = s.value_milli as f64 / target as f64;
            usage_ratio_replica_count(world.current, ratio, hpa.tolerances, world).map(|r| (r, s.value_milli))
        });
    match replicas {
        Ok((replicas, usage)) => Evaluated {
            result: Ok(replicas),
            current: Some(MetricValueStatus { value: Some(Quantity::from_milli(usage)), ..Default::default() }),
        },
        Err(e) => failed(&e.0),
    }
}

/// `computeStatusForExternalMetric`: `GetExternalPerPodMetricReplicas` (AverageValue) or
/// `GetExternalMetricReplicas` (Value).
fn external_metric(
    hpa: &Prepared,
    metric: &str,
    selector: Option<&LabelSelector>,
    target: i64,
    average: bool,
    answer: &ExternalAnswer,
    world: &World<'_>,
) -> Evaluated {
    let values = &world.values;
    let ns = hpa.namespace.as_str();
    let series: Result<Vec<i64>, String> = Ok(if answer.slots.iter().any(|s| lookup(values, Some(*s)).is_some()) {
        match lookup(values, answer.value_slot) {
            Some(LoadValue::Value(v)) => vec![v],
            _ => vec![0],
        }
    } else {
        Vec::new()
    });
    let prefix = format!("failed to get {metric} external metric value");
    let failed =
        |error: &str| Evaluated { result: Err(failure("FailedGetExternalMetric", &prefix, error)), current: None };
    if average {
        let status_replicas = i32::try_from(world.pods.len()).unwrap_or(i32::MAX);
        return match hpa.calc.get_external_per_pod_metric_replicas(
            status_replicas,
            target,
            metric,
            hpa.tolerances,
            ns,
            selector,
            series.as_deref().map_err(String::as_str),
        ) {
            Ok(r) => Evaluated {
                result: Ok(r.replicas),
                current: Some(MetricValueStatus {
                    average_value: Some(Quantity::from_milli(r.usage_milli)),
                    ..Default::default()
                }),
            },
            Err(e) => failed(&format!("failed to get {metric} external metric: {e}")),
        };
    }
    // GetExternalMetricReplicas: the sum of the series, capped at i64::MAX on overflow.
    let replicas = get_external_metric(series.as_deref().map_err(String::as_str))
        .map_err(|e| external_fetch_error(metric, ns, selector, &e))
        .and_then(|values| {
            let mut usage = 0i64;
            for &v in values {
                if v > 0 && usage > i64::MAX - v {
                    usage = i64::MAX;
                    break;
                }
                usage = usage.wrapping_add(v);
            }
            let ratio = usage as f64 / target as f64;
            usage_ratio_replica_count(world.current, ratio, hpa.tolerances, world).map(|r| (r, usage))
        });
    match replicas {
        Ok((replicas, usage)) => Evaluated {
            result: Ok(replicas),
            current: Some(MetricValueStatus { value: Some(Quantity::from_milli(usage)), ..Default::default() }),
        },
        Err(e) => failed(&format!("failed to get external metric {metric}: {e}")),
    }
}
