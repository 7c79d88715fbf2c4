//! One controller sync (`reconcileAutoscaler`), as a pure function.
//!
//! Mirrors `pkg/controller/podautoscaler/horizontal.go`: reading the scale, the range
//! pre-checks, `computeReplicasForMetrics` with the invalid-metric rule, normalization on the
//! legacy or the behavior path, scale from and to zero, the conditions with their exact
//! reasons and messages, the scale events, and the status written back.
//!
//! The caller supplies everything the controller would read from the cluster in a
//! [`SyncInput`] (including the instant of the sync) and the controller's in-memory state
//! for this HPA in a [`ControllerState`]; [`reconcile_autoscaler`] updates that state and
//! returns a [`SyncResult`] holding the new status and every intermediate value. Running the
//! function repeatedly with the returned status reproduces the controller's behaviour over
//! time.

use std::collections::BTreeMap;

use super::behavior::{
    self, Direction, Limited, NormalizationArgs, READY_FOR_NEW_SCALE, SCALE_DOWN_STABILIZED, Stabilized,
    TimestampedRecommendation, TimestampedScaleEvent,
};
use super::gofmt;
use super::replicas::{
    CalcError, ObjectSample, Pod, PodMetricsItem, PodSample, RESOURCE_MEMORY, ReplicaCalculator, Tolerances,
};
use super::time::Timestamp;
use crate::api::quantity::Format;
use crate::api::v2::{
    ContainerResourceMetricStatus, ExternalMetricStatus, HPAScalingRules, HorizontalPodAutoscaler,
    HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus, MetricIdentifier,
    MetricSpec, MetricStatus, MetricTarget, MetricValueStatus, ObjectMetricStatus, PodsMetricStatus,
    ResourceMetricStatus,
};
use crate::api::{CrossVersionObjectReference, Quantity};
use crate::defaults;
use crate::features::Gate;

use super::config::HPAControllerConfiguration;

/// Condition type `AbleToScale`.
pub const ABLE_TO_SCALE: &str = "AbleToScale";
/// Condition type `ScalingActive`.
pub const SCALING_ACTIVE: &str = "ScalingActive";
/// Condition type `ScalingLimited`.
pub const SCALING_LIMITED: &str = "ScalingLimited";
/// Condition type `ScaledToZero`.
pub const SCALED_TO_ZERO: &str = "ScaledToZero";

/// The reason recorded when the target is above `maxReplicas`.
pub const REASON_ABOVE_MAX: &str = "Current number of replicas above Spec.MaxReplicas";
/// The reason recorded when the target is below `minReplicas`.
pub const REASON_BELOW_MIN: &str = "Current number of replicas below Spec.MinReplicas";
/// The metric name reported when [`SyncInput::prenormalized_desired`] replaces the metrics.
pub const PRENORMALIZED_METRIC_NAME: &str = "prenormalized desired replicas";

const TRUE: &str = "True";
const FALSE: &str = "False";

/// The controller's in-memory state for one HPA (lost on restart, never in the API).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ControllerState {
    /// Prenormalized recommendations; `None` until the first sync seeds it with the current
    /// count (`recordInitialRecommendation`). `Some(vec![])` is an existing, empty history.
    pub recommendations: Option<Vec<TimestampedRecommendation>>,
    /// Scale-up events (written only when `spec.behavior` is set).
    pub scale_up_events: Vec<TimestampedScaleEvent>,
    /// Scale-down events (written only when `spec.behavior` is set).
    pub scale_down_events: Vec<TimestampedScaleEvent>,
}

/// The target's scale subresource as read in this sync.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scale {
    /// `spec.replicas`: the controller's current count.
    pub spec_replicas: i32,
    /// `status.replicas`: used by AverageValue Object and External metrics.
    pub status_replicas: i32,
    /// `status.selector` (empty: missing).
    pub selector: String,
}

/// The value the custom metrics API reports for one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectMetricValue {
    /// The object (kind, name and the group of `apiVersion` are matched).
    pub described_object: CrossVersionObjectReference,
    /// The metric name.
    pub metric: String,
    /// The value, as `Quantity::milli_value()`.
    pub value_milli: i64,
    /// When it was measured.
    pub timestamp: Timestamp,
}

/// Everything one sync reads from the cluster, and the instant it runs at.
///
/// Each metrics field is the answer of one metrics API: `Err` is a failed request (its error
/// text), `Ok` the returned data. A metric whose name has no entry gets an empty answer.
/// Metric label selectors are not evaluated: the data given for a metric name is its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncInput {
    /// The instant of the sync: every `time.Now()` of the controller in this sync.
    pub now: Timestamp,
    /// The scale subresource, or the error of reading it.
    pub scale: Result<Scale, String>,
    /// The error of writing the scale (after the conflict retries), if it fails.
    pub scale_update_error: Option<String>,
    /// The `labels.Parse` error of `scale.selector`, if it does not parse.
    pub selector_parse_error: Option<String>,
    /// Keys (`namespace/name`) of other HPAs whose selectors match some of the pods.
    pub other_hpas_selecting_pods: Vec<String>,
    /// The pods matched by the selector (from the informer cache).
    pub pods: Vec<Pod>,
    /// The resource metrics API (`metrics.k8s.io`) answer for the selector.
    pub resource_metrics: Result<Vec<PodMetricsItem>, String>,
    /// The custom metrics API answers for Pods metrics, by metric name.
    pub pods_metrics: Result<BTreeMap<String, Vec<PodSample>>, String>,
    /// The custom metrics API answers for Object metrics.
    pub object_metrics: Result<Vec<ObjectMetricValue>, String>,
    /// The external metrics API answers, by metric name: every series' value in milli-units.
    pub external_metrics: Result<BTreeMap<String, Vec<i64>>, String>,
    /// Skips metric evaluation and uses this count as `computeReplicasForMetrics`' successful
    /// answer (what-if runs).
    pub prenormalized_desired: Option<i32>,
}

impl SyncInput {
    /// A sync at `now` reading `scale`, with no pods and empty metric answers.
    pub fn new(now: Timestamp, scale: Scale) -> SyncInput {
        SyncInput {
            now,
            scale: Ok(scale),
            scale_update_error: None,
            selector_parse_error: None,
            other_hpas_selecting_pods: Vec::new(),
            pods: Vec::new(),
            resource_metrics: Ok(Vec::new()),
            pods_metrics: Ok(BTreeMap::new()),
            object_metrics: Ok(Vec::new()),
            external_metrics: Ok(BTreeMap::new()),
            prenormalized_desired: None,
        }
    }
}

/// Kubernetes event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    /// `Normal`
    Normal,
    /// `Warning`
    Warning,
}

/// An event the controller records on the HPA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// `Normal` or `Warning`.
    pub type_: EventType,
    /// e.g. `SuccessfulRescale`, `FailedGetResourceMetric`.
    pub reason: String,
    /// The event message.
    pub message: String,
}

/// How a sync ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncOutcome {
    /// The scale could not be read (`FailedGetScale`); nothing else happened.
    FailedGetScale,
    /// `spec.replicas` is 0 and scale-from-zero does not apply (`ScalingDisabled`).
    ScalingDisabled,
    /// Metrics could not justify a decision (hard failure); nothing was scaled or recorded.
    FailedComputeMetrics,
    /// A new count was decided but writing the scale failed.
    FailedUpdateScale,
    /// The scale was written.
    Rescaled,
    /// The decision equals the current count.
    Unchanged,
}

/// One metric's evaluation (`computeReplicasForMetric`).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricEvaluation {
    /// The metric's index in `spec.metrics`.
    pub index: usize,
    /// Its source type (`Resource`, `Pods`, ...).
    pub source_type: String,
    /// The name used in messages (`cpu resource utilization (percentage of request)`, ...);
    /// empty on failure.
    pub name: String,
    /// The proposed replica count, on success.
    pub proposal: Option<i32>,
    /// The error, on failure (as `computeReplicasForMetric` returns it).
    pub error: Option<String>,
    /// The ScalingActive condition the failure would set.
    pub failure_condition: Option<HorizontalPodAutoscalerCondition>,
    /// The entry written to `status.currentMetrics` (empty on failure).
    pub status: MetricStatus,
    /// The metric's timestamp, where the controller reports one.
    pub timestamp: Option<Timestamp>,
}

impl MetricEvaluation {
    /// The observed value written to `status.currentMetrics` (`None` on failure).
    pub fn current(&self) -> Option<&MetricValueStatus> {
        let s = &self.status;
        s.resource
            .as_ref()
            .map(|r| &r.current)
            .or_else(|| s.container_resource.as_ref().map(|r| &r.current))
            .or_else(|| s.pods.as_ref().map(|r| &r.current))
            .or_else(|| s.object.as_ref().map(|r| &r.current))
            .or_else(|| s.external.as_ref().map(|r| &r.current))
    }
}

/// Which normalization ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NormalizationPath {
    /// `spec.behavior` is nil: `normalizeDesiredReplicas`.
    Legacy,
    /// `spec.behavior` is set: `normalizeDesiredReplicasWithBehaviors`.
    Behavior,
}

/// The normalization of the metric proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Normalization {
    /// Legacy or behavior path.
    pub path: NormalizationPath,
    /// The input: the metrics' maximum proposal (0 when below every metric).
    pub prenormalized: i32,
    /// After the stabilization window(s).
    pub stabilized: i32,
    /// The AbleToScale reason set (`ReadyForNewScale`, `ScaleDownStabilized`,
    /// `ScaleUpStabilized`).
    pub stabilization_reason: &'static str,
    /// Its message.
    pub stabilization_message: &'static str,
    /// After the rate / range limits, with the ScalingLimited reason and message.
    pub limited: Limited,
    /// Whether ScalingLimited is True (the limits changed the stabilized value).
    pub scaling_limited: bool,
}

/// Everything one sync decided and wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncResult {
    /// How the sync ended.
    pub outcome: SyncOutcome,
    /// The scale's `spec.replicas` (`None` when the scale could not be read).
    pub current_replicas: Option<i32>,
    /// `status.desiredReplicas` after the sync (the previous value after a failure).
    pub desired_replicas: i32,
    /// Whether the scale subresource was written.
    pub rescaled: bool,
    /// The count the controller decided to write, when it decided to rescale (even if the
    /// write failed).
    pub rescale_to: Option<i32>,
    /// The reason of the rescale event (fixed before normalization).
    pub rescale_reason: String,
    /// The tolerances in force.
    pub tolerances: Tolerances,
    /// Each metric's evaluation, in spec order (empty when metrics were not computed).
    pub metrics: Vec<MetricEvaluation>,
    /// The maximum proposal of `computeReplicasForMetrics` (`None` when not computed or
    /// on a hard failure).
    pub metric_desired_replicas: Option<i32>,
    /// The metric that produced it.
    pub metric_name: String,
    /// The aggregated metrics error (hard failure, or some metrics invalid while scaling up).
    pub metrics_error: Option<String>,
    /// The normalization, when it ran.
    pub normalization: Option<Normalization>,
    /// Whether the scale-from-zero patch raised the result to `minReplicas`.
    pub raised_to_min_from_zero: bool,
    /// The scale event stored after a successful rescale (behavior path only).
    pub scale_event: Option<(Direction, TimestampedScaleEvent)>,
    /// The new `status.conditions` (the full list, in status order).
    pub conditions: Vec<HorizontalPodAutoscalerCondition>,
    /// The new status (`status.currentMetrics` included).
    pub status: HorizontalPodAutoscalerStatus,
    /// Whether the status differs from the old one (the controller writes it only then).
    pub status_changed: bool,
    /// Events recorded, in order.
    pub events: Vec<Event>,
    /// The error `reconcileAutoscaler` returns, if any.
    pub error: Option<String>,
}

/// A metric's successful proposal.
struct Proposal {
    replicas: i32,
    name: String,
    status: MetricStatus,
    timestamp: Option<Timestamp>,
}

/// A metric's failure: the ScalingActive condition it proposes, and its error.
struct Failure {
    condition: Box<HorizontalPodAutoscalerCondition>,
    error: String,
}

/// The answer of `computeReplicasForMetrics`.
struct MetricsAnswer {
    /// `-1` on a hard failure.
    replicas: i32,
    name: String,
    statuses: Option<Vec<MetricStatus>>,
    error: Option<String>,
    evaluations: Vec<MetricEvaluation>,
}

/// The working state of one sync.
struct SyncRun<'a> {
    hpa: &'a HorizontalPodAutoscaler,
    input: &'a SyncInput,
    opts: &'a HPAControllerConfiguration,
    calc: ReplicaCalculator,
    tolerances: Tolerances,
    conditions: Vec<HorizontalPodAutoscalerCondition>,
    events: Vec<Event>,
}

impl SyncRun<'_> {
    /// `time.Now()` during this sync.
    fn now(&self) -> Timestamp {
        self.input.now
    }

    /// `hpa.Namespace`.
    fn namespace(&self) -> &str {
        &self.hpa.metadata.namespace
    }

    /// `eventRecorder.Event`.
    fn event(&mut self, type_: EventType, reason: &str, message: impl Into<String>) {
        self.events.push(Event { type_, reason: reason.to_string(), message: message.into() });
    }

    /// `setCondition` on the HPA being reconciled.
    fn set_condition(&mut self, type_: &str, status: &str, reason: &str, message: impl Into<String>) {
        set_condition(&mut self.conditions, type_, status, reason, message.into(), self.input.now);
    }

    /// `getUnableComputeReplicaCountCondition`: records the event and builds the condition.
    fn unable_to_compute(&mut self, reason: &str, err: &str) -> HorizontalPodAutoscalerCondition {
        self.event(EventType::Warning, reason, err);
        HorizontalPodAutoscalerCondition {
            type_: SCALING_ACTIVE.into(),
            status: FALSE.into(),
            reason: reason.into(),
            message: format!("the HPA was unable to compute the replica count: {err}"),
            ..Default::default()
        }
    }

    /// A failed metric: its condition (recording the event) and the error returned.
    fn failure(&mut self, reason: &str, condition_err: &str, error: String) -> Failure {
        Failure { condition: Box::new(self.unable_to_compute(reason, condition_err)), error }
    }

    /// `computeReplicasForMetrics`.
    fn compute_replicas_for_metrics(&mut self, scale: &Scale, specs: &[MetricSpec]) -> MetricsAnswer {
        let hard = |error: String| MetricsAnswer {
            replicas: -1,
            name: String::new(),
            statuses: None,
            error: Some(error),
            evaluations: Vec::new(),
        };
        // validateAndParseSelector
        if scale.selector.is_empty() {
            let msg = "selector is required";
            self.event(EventType::Warning, "SelectorRequired", msg);
            self.set_condition(
                SCALING_ACTIVE,
                FALSE,
                "InvalidSelector",
                "the HPA target's scale is missing a selector",
            );
            return hard(msg.to_string());
        }
        if let Some(e) = &self.input.selector_parse_error {
            let msg = format!("couldn't convert selector into a corresponding internal selector object: {e}");
            self.event(EventType::Warning, "InvalidSelector", msg.clone());
            self.set_condition(SCALING_ACTIVE, FALSE, "InvalidSelector", msg.clone());
            return hard(msg);
        }
        if !self.input.other_hpas_selecting_pods.is_empty() {
            let mut keys = vec![format!("{}/{}", self.hpa.metadata.namespace, self.hpa.metadata.name)];
            keys.extend(self.input.other_hpas_selecting_pods.iter().cloned());
            let msg =
                format!("pods by selector {} are controlled by multiple HPAs: [{}]", scale.selector, keys.join(" "));
            self.event(EventType::Warning, "AmbiguousSelector", msg.clone());
            self.set_condition(SCALING_ACTIVE, FALSE, "AmbiguousSelector", msg.clone());
            return hard(msg);
        }

        let mut statuses = vec![MetricStatus::default(); specs.len()];
        let mut evaluations = Vec::with_capacity(specs.len());
        let mut invalid = 0usize;
        let mut first_failure: Option<Failure> = None;
        let mut replicas = 0i32;
        let mut name = String::new();
        for (i, spec) in specs.iter().enumerate() {
            match self.compute_replicas_for_metric(spec, scale) {
                Err(f) => {
                    evaluations.push(MetricEvaluation {
                        index: i,
                        source_type: spec.type_.as_str().into(),
                        name: String::new(),
                        proposal: None,
                        error: Some(f.error.clone()),
                        failure_condition: Some((*f.condition).clone()),
                        status: MetricStatus::default(),
                        timestamp: None,
                    });
                    if invalid == 0 {
                        first_failure = Some(f);
                    }
                    invalid += 1;
                }
                Ok(p) => {
                    if let Some(slot) = statuses.get_mut(i) {
                        *slot = p.status.clone();
                    }
                    if replicas == 0 || p.replicas > replicas {
                        replicas = p.replicas;
                        name.clone_from(&p.name);
                    }
                    evaluations.push(MetricEvaluation {
                        index: i,
                        source_type: spec.type_.as_str().into(),
                        name: p.name,
                        proposal: Some(p.replicas),
                        error: None,
                        failure_condition: None,
                        status: p.status,
                        timestamp: p.timestamp,
                    });
                }
            }
        }
        let error = first_failure.as_ref().map(|f| {
            format!("invalid metrics ({invalid} invalid out of {}), first error is: {}", specs.len(), f.error)
        });
        if invalid >= specs.len() || (invalid > 0 && replicas < scale.spec_replicas) {
            let c = first_failure.map(|f| *f.condition).unwrap_or_default();
            self.set_condition(&c.type_, &c.status, &c.reason, c.message);
            return MetricsAnswer { replicas: -1, name: String::new(), statuses: Some(statuses), error, evaluations };
        }
        self.set_condition(
            SCALING_ACTIVE,
            TRUE,
            "ValidMetricFound",
            format!("the HPA was able to successfully calculate a replica count from {name}"),
        );
        MetricsAnswer { replicas, name, statuses: Some(statuses), error, evaluations }
    }

    /// `computeReplicasForMetric`.
    fn compute_replicas_for_metric(&mut self, spec: &MetricSpec, scale: &Scale) -> Result<Proposal, Failure> {
        match spec.type_.as_str() {
            "Object" => self
                .compute_status_for_object_metric(spec, scale)
                .map_err(|f| Failure { error: format!("failed to get object metric value: {}", f.error), ..f }),
            "Pods" => self
                .compute_status_for_pods_metric(spec, scale.spec_replicas)
                .map_err(|f| Failure { error: format!("failed to get pods metric value: {}", f.error), ..f }),
            "Resource" => {
                let resource = spec.resource.as_ref().map(|r| r.name.clone()).unwrap_or_default();
                self.compute_status_for_resource_metric(spec, scale.spec_replicas).map_err(|f| Failure {
                    error: format!("failed to get {resource} resource metric value: {}", f.error),
                    ..f
                })
            }
            "ContainerResource" => {
                let container = spec.container_resource.as_ref().map(|r| r.container.clone()).unwrap_or_default();
                self.compute_status_for_container_resource_metric(spec, scale.spec_replicas).map_err(|f| Failure {
                    error: format!("failed to get {container} container metric value: {}", f.error),
                    ..f
                })
            }
            "External" => {
                let metric = spec.external.as_ref().map(|e| e.metric.name.clone()).unwrap_or_default();
                self.compute_status_for_external_metric(spec, scale).map_err(|f| Failure {
                    error: format!("failed to get {metric} external metric value: {}", f.error),
                    ..f
                })
            }
            other => {
                let err = format!("unknown metric source type {}", crate::go::quote(other));
                Err(self.failure("InvalidMetricSourceType", &err, err.clone()))
            }
        }
    }

    /// A metric whose type names a source that is not set (Go would dereference nil;
    /// validation makes it impossible).
    fn missing_source(&mut self, reason: &str, field: &str) -> Failure {
        let err = format!("invalid metric source: the {field} source is not set");
        self.failure(reason, &err, err.clone())
    }

    /// `computeStatusForObjectMetric`.
    fn compute_status_for_object_metric(&mut self, spec: &MetricSpec, scale: &Scale) -> Result<Proposal, Failure> {
        let Some(obj) = &spec.object else { return Err(self.missing_source("FailedGetObjectMetric", "object")) };
        let sample = self.object_sample(&obj.described_object, &obj.metric.name);
        let identifier = MetricIdentifier { name: obj.metric.name.clone(), selector: obj.metric.selector.clone() };
        let status = |current: MetricValueStatus| MetricStatus {
            type_: "Object".into(),
            object: Some(ObjectMetricStatus {
                metric: identifier.clone(),
                current,
                described_object: obj.described_object.clone(),
            }),
            ..Default::default()
        };
        let target = &obj.target;
        if target.type_ == "Value"
            && let Some(value) = &target.value
        {
            return match self.calc.get_object_metric_replicas(
                scale.spec_replicas,
                value.milli_value(),
                &obj.metric.name,
                self.tolerances,
                self.namespace(),
                &obj.described_object,
                &sample,
                &self.input.pods,
            ) {
                Ok(r) => Ok(Proposal {
                    replicas: r.replicas,
                    name: format!("{} metric {}", obj.described_object.kind, obj.metric.name),
                    status: status(MetricValueStatus {
                        value: Some(Quantity::from_milli(r.usage_milli)),
                        ..Default::default()
                    }),
                    timestamp: r.timestamp,
                }),
                Err(e) => Err(self.failure("FailedGetObjectMetric", &e.0, e.0.clone())),
            };
        }
        if target.type_ == "AverageValue"
            && let Some(average) = &target.average_value
        {
            return match self.calc.get_object_per_pod_metric_replicas(
                scale.status_replicas,
                average.milli_value(),
                &obj.metric.name,
                self.tolerances,
                self.namespace(),
                &obj.described_object,
                &sample,
            ) {
                Ok(r) => Ok(Proposal {
                    replicas: r.replicas,
                    // Upstream really calls an Object metric "external metric" here.
                    name: format!(
                        "external metric {}({})",
                        obj.metric.name,
                        gofmt::label_selector(obj.metric.selector.as_ref())
                    ),
                    status: status(MetricValueStatus {
                        average_value: Some(Quantity::from_milli(r.usage_milli)),
                        ..Default::default()
                    }),
                    timestamp: r.timestamp,
                }),
                Err(e) => {
                    let error = format!("failed to get {} object metric: {e}", obj.metric.name);
                    Err(self.failure("FailedGetObjectMetric", &e.0, error))
                }
            };
        }
        let err = "invalid object metric source: neither a value target nor an average value target was set";
        Err(self.failure("FailedGetObjectMetric", err, err.to_string()))
    }

    /// `computeStatusForPodsMetric`.
    fn compute_status_for_pods_metric(&mut self, spec: &MetricSpec, spec_replicas: i32) -> Result<Proposal, Failure> {
        let Some(pods) = &spec.pods else { return Err(self.missing_source("FailedGetPodsMetric", "pods")) };
        let Some(target) = &pods.target.average_value else {
            let err = "invalid pods metric source: no average value target was set";
            return Err(self.failure("FailedGetPodsMetric", err, err.to_string()));
        };
        let samples = match &self.input.pods_metrics {
            Ok(m) => Ok(m.get(pods.metric.name.as_str()).cloned().unwrap_or_default()),
            Err(e) => Err(e.clone()),
        };
        match self.calc.get_metric_replicas(
            self.now(),
            spec_replicas,
            target.milli_value(),
            &pods.metric.name,
            self.tolerances,
            &self.input.pods,
            &samples,
        ) {
            Ok(r) => Ok(Proposal {
                replicas: r.replicas,
                name: format!("pods metric {}", pods.metric.name),
                status: MetricStatus {
                    type_: "Pods".into(),
                    pods: Some(PodsMetricStatus {
                        metric: MetricIdentifier {
                            name: pods.metric.name.clone(),
                            selector: pods.metric.selector.clone(),
                        },
                        current: MetricValueStatus {
                            average_value: Some(Quantity::from_milli(r.usage_milli)),
                            ..Default::default()
                        },
                    }),
                    ..Default::default()
                },
                timestamp: r.timestamp,
            }),
            Err(e) => Err(self.failure("FailedGetPodsMetric", &e.0, e.0.clone())),
        }
    }

    /// `computeStatusForResourceMetricGeneric`: the proposal, the value status and the name,
    /// or the error (without a condition: the callers build it).
    fn compute_status_for_resource_metric_generic(
        &self,
        spec_replicas: i32,
        target: &MetricTarget,
        resource: &str,
        container: &str,
        container_source: bool,
    ) -> Result<(i32, MetricValueStatus, String, Option<Timestamp>), String> {
        let format = if resource == RESOURCE_MEMORY { Format::BinarySI } else { Format::DecimalSI };
        if let Some(average) = &target.average_value {
            let r = self
                .calc
                .get_raw_resource_replicas(
                    self.now(),
                    spec_replicas,
                    average.milli_value(),
                    resource,
                    container,
                    self.tolerances,
                    &self.input.pods,
                    &self.input.resource_metrics,
                )
                .map_err(|e: CalcError| format!("failed to get {resource} usage: {e}"))?;
            let status = MetricValueStatus {
                average_value: Some(Quantity::from_milli_with_format(r.usage_milli, format)),
                ..Default::default()
            };
            return Ok((r.replicas, status, format!("{resource} resource"), r.timestamp));
        }
        let Some(target_utilization) = target.average_utilization else {
            return Err("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set".to_string());
        };
        let r = self
            .calc
            .get_resource_replicas(
                self.now(),
                spec_replicas,
                target_utilization,
                resource,
                container,
                self.tolerances,
                &self.input.pods,
                &self.input.resource_metrics,
            )
            .map_err(|e| format!("failed to get {resource} utilization: {e}"))?;
        let name = if container_source {
            format!("{resource} container resource utilization (percentage of request)")
        } else {
            format!("{resource} resource utilization (percentage of request)")
        };
        let status = MetricValueStatus {
            average_utilization: Some(r.utilization),
            average_value: Some(Quantity::from_milli_with_format(r.raw_value_milli, format)),
            ..Default::default()
        };
        Ok((r.replicas, status, name, Some(r.timestamp)))
    }

    /// `computeStatusForResourceMetric`.
    fn compute_status_for_resource_metric(
        &mut self,
        spec: &MetricSpec,
        spec_replicas: i32,
    ) -> Result<Proposal, Failure> {
        let Some(res) = &spec.resource else { return Err(self.missing_source("FailedGetResourceMetric", "resource")) };
        match self.compute_status_for_resource_metric_generic(spec_replicas, &res.target, &res.name, "", false) {
            Ok((replicas, current, name, timestamp)) => Ok(Proposal {
                replicas,
                name,
                status: MetricStatus {
                    type_: "Resource".into(),
                    resource: Some(ResourceMetricStatus { name: res.name.as_str().into(), current }),
                    ..Default::default()
                },
                timestamp,
            }),
            Err(e) => Err(self.failure("FailedGetResourceMetric", &e, e.clone())),
        }
    }

    /// `computeStatusForContainerResourceMetric`.
    fn compute_status_for_container_resource_metric(
        &mut self,
        spec: &MetricSpec,
        spec_replicas: i32,
    ) -> Result<Proposal, Failure> {
        let Some(res) = &spec.container_resource else {
            return Err(self.missing_source("FailedGetContainerResourceMetric", "containerResource"));
        };
        match self.compute_status_for_resource_metric_generic(
            spec_replicas,
            &res.target,
            &res.name,
            &res.container,
            true,
        ) {
            Ok((replicas, current, name, timestamp)) => Ok(Proposal {
                replicas,
                name,
                status: MetricStatus {
                    type_: "ContainerResource".into(),
                    container_resource: Some(ContainerResourceMetricStatus {
                        name: res.name.as_str().into(),
                        current,
                        container: res.container.as_str().into(),
                    }),
                    ..Default::default()
                },
                timestamp,
            }),
            Err(e) => Err(self.failure("FailedGetContainerResourceMetric", &e, e.clone())),
        }
    }

    /// `computeStatusForExternalMetric`.
    fn compute_status_for_external_metric(&mut self, spec: &MetricSpec, scale: &Scale) -> Result<Proposal, Failure> {
        let Some(ext) = &spec.external else { return Err(self.missing_source("FailedGetExternalMetric", "external")) };
        let values = match &self.input.external_metrics {
            Ok(m) => Ok(m.get(ext.metric.name.as_str()).cloned().unwrap_or_default()),
            Err(e) => Err(e.clone()),
        };
        let selector = ext.metric.selector.as_ref();
        let name = format!("external metric {}({})", ext.metric.name, gofmt::label_selector(selector));
        let status = |current: MetricValueStatus| MetricStatus {
            type_: "External".into(),
            external: Some(ExternalMetricStatus {
                metric: MetricIdentifier { name: ext.metric.name.clone(), selector: ext.metric.selector.clone() },
                current,
            }),
            ..Default::default()
        };
        if let Some(average) = &ext.target.average_value {
            return match self.calc.get_external_per_pod_metric_replicas(
                scale.status_replicas,
                average.milli_value(),
                &ext.metric.name,
                self.tolerances,
                self.namespace(),
                selector,
                &values,
            ) {
                Ok(r) => Ok(Proposal {
                    replicas: r.replicas,
                    name,
                    status: status(MetricValueStatus {
                        average_value: Some(Quantity::from_milli(r.usage_milli)),
                        ..Default::default()
                    }),
                    timestamp: r.timestamp,
                }),
                Err(e) => {
                    let error = format!("failed to get {} external metric: {e}", ext.metric.name);
                    Err(self.failure("FailedGetExternalMetric", &e.0, error))
                }
            };
        }
        if let Some(value) = &ext.target.value {
            return match self.calc.get_external_metric_replicas(
                scale.spec_replicas,
                value.milli_value(),
                &ext.metric.name,
                self.tolerances,
                self.namespace(),
                selector,
                &values,
                &self.input.pods,
            ) {
                Ok(r) => Ok(Proposal {
                    replicas: r.replicas,
                    name,
                    status: status(MetricValueStatus {
                        value: Some(Quantity::from_milli(r.usage_milli)),
                        ..Default::default()
                    }),
                    timestamp: r.timestamp,
                }),
                Err(e) => {
                    let error = format!("failed to get external metric {}: {e}", ext.metric.name);
                    Err(self.failure("FailedGetExternalMetric", &e.0, error))
                }
            };
        }
        let err = "invalid external metric source: neither a value target nor an average value target was set";
        Err(self.failure("FailedGetExternalMetric", err, err.to_string()))
    }

    /// The custom metrics API's answer for one object.
    fn object_sample(&self, object: &CrossVersionObjectReference, metric: &str) -> Result<ObjectSample, String> {
        let values = self.input.object_metrics.as_ref().map_err(Clone::clone)?;
        let group = |api_version: &str| parse_group_version(api_version).map(|(g, _)| g).unwrap_or_default();
        values
            .iter()
            .find(|v| {
                v.metric == metric
                    && v.described_object.kind == object.kind
                    && v.described_object.name == object.name
                    && group(&v.described_object.api_version) == group(&object.api_version)
            })
            .map(|v| ObjectSample { value_milli: v.value_milli, timestamp: v.timestamp })
            .ok_or_else(|| format!("the server could not find the metric {metric} for {} {}", object.kind, object.name))
    }

    /// Normalizes the metric proposal (see [`normalize`]) and sets the two conditions it
    /// decides: AbleToScale (the stabilization reason) and ScalingLimited.
    fn normalize(
        &mut self,
        state: &mut ControllerState,
        behavior: Option<&HorizontalPodAutoscalerBehavior>,
        current: i32,
        prenormalized: i32,
        min: i32,
    ) -> Normalization {
        let n =
            normalize(state, behavior, self.opts, self.hpa.spec.max_replicas, current, prenormalized, min, self.now());
        self.set_condition(ABLE_TO_SCALE, TRUE, n.stabilization_reason, n.stabilization_message);
        let status = if n.scaling_limited { TRUE } else { FALSE };
        self.set_condition(SCALING_LIMITED, status, n.limited.reason, n.limited.message);
        n
    }
}

/// The normalization of one sync: `normalizeDesiredReplicas` when `behavior` is `None` (the
/// legacy path), else `normalizeDesiredReplicasWithBehaviors`. Stabilization first (it records
/// the prenormalized count in `state`), then the limits ([`limit`]).
///
/// The conditions the Go functions set follow from the result: AbleToScale=True with
/// [`Normalization::stabilization_reason`], then ScalingLimited (True when
/// [`Normalization::scaling_limited`]) with the limit's reason.
#[allow(clippy::too_many_arguments)]
pub(crate) fn normalize(
    state: &mut ControllerState,
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    opts: &HPAControllerConfiguration,
    max: i32,
    current: i32,
    prenormalized: i32,
    min: i32,
    now: Timestamp,
) -> Normalization {
    let recommendations = state.recommendations.get_or_insert_with(Vec::new);
    let stabilized = match behavior {
        None => {
            let window = opts.downscale_stabilization_window;
            legacy_stabilized(behavior::stabilize_recommendation(recommendations, prenormalized, window, now))
        }
        Some(b) => {
            let args = normalization_args(b, max, current, prenormalized, min);
            behavior::stabilize_recommendation_with_behaviors(recommendations, &args, now)
        }
    };
    limit(state, behavior, opts, max, current, prenormalized, min, now, stabilized)
}

/// `stabilizeRecommendation`'s count, with the reason the legacy path reports when it differs
/// from the prenormalized count.
pub(crate) fn legacy_stabilized(replicas: i32) -> Stabilized {
    let (reason, message) = SCALE_DOWN_STABILIZED;
    Stabilized { replicas, reason, message }
}

/// Rules with nothing set: what an unset `scaleUp` or `scaleDown` counts as.
static NO_RULES: HPAScalingRules =
    HPAScalingRules { stabilization_window_seconds: None, select_policy: None, policies: None, tolerance: None };

/// `NormalizationArg` of `normalizeDesiredReplicasWithBehaviors` (an unset rule counts as
/// empty; defaulting sets both).
pub(crate) fn normalization_args(
    behavior: &HorizontalPodAutoscalerBehavior,
    max: i32,
    current: i32,
    prenormalized: i32,
    min: i32,
) -> NormalizationArgs<'_> {
    NormalizationArgs {
        scale_up: behavior.scale_up.as_ref().unwrap_or(&NO_RULES),
        scale_down: behavior.scale_down.as_ref().unwrap_or(&NO_RULES),
        min_replicas: min,
        max_replicas: max,
        current_replicas: current,
        desired_replicas: prenormalized,
    }
}

/// The second half of normalization, after stabilization: the AbleToScale reason (the
/// stabilization's reason when it changed the count, else `ReadyForNewScale`), then
/// `convertDesiredReplicasWithRules` (legacy path, `behavior` is `None`) or
/// `convertDesiredReplicasWithBehaviorRate` (with the scale events in `state`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn limit(
    state: &ControllerState,
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    opts: &HPAControllerConfiguration,
    max: i32,
    current: i32,
    prenormalized: i32,
    min: i32,
    now: Timestamp,
    stabilized: Stabilized,
) -> Normalization {
    let ability = if stabilized.replicas != prenormalized {
        (stabilized.reason, stabilized.message)
    } else {
        READY_FOR_NEW_SCALE
    };
    let Some(b) = behavior else {
        let limited = behavior::convert_desired_replicas_with_rules(
            current,
            stabilized.replicas,
            min,
            max,
            opts.scale_up_limit_factor,
            opts.scale_up_limit_minimum,
        );
        return normalization(NormalizationPath::Legacy, prenormalized, stabilized.replicas, ability, limited);
    };
    let mut args = normalization_args(b, max, current, prenormalized, min);
    args.desired_replicas = stabilized.replicas;
    let limited = behavior::convert_desired_replicas_with_behavior_rate(
        &args,
        &state.scale_up_events,
        &state.scale_down_events,
        now,
    );
    normalization(NormalizationPath::Behavior, prenormalized, stabilized.replicas, ability, limited)
}

/// The [`Normalization`] record shared by both paths.
fn normalization(
    path: NormalizationPath,
    prenormalized: i32,
    stabilized: i32,
    (stabilization_reason, stabilization_message): (&'static str, &'static str),
    limited: Limited,
) -> Normalization {
    Normalization {
        path,
        prenormalized,
        stabilized,
        stabilization_reason,
        stabilization_message,
        limited,
        scaling_limited: limited.replicas != stabilized,
    }
}

/// `setConditionInList`: overwrites the condition of that type in place, or appends it;
/// `lastTransitionTime` moves to `now` only when the status changes.
pub fn set_condition(
    conditions: &mut Vec<HorizontalPodAutoscalerCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: String,
    now: Timestamp,
) {
    let index = match conditions.iter().position(|c| c.type_ == type_) {
        Some(i) => i,
        None => {
            conditions.push(HorizontalPodAutoscalerCondition { type_: type_.to_string(), ..Default::default() });
            conditions.len() - 1
        }
    };
    if let Some(c) = conditions.get_mut(index) {
        if c.status != status {
            c.last_transition_time = now.to_api_time();
        }
        c.status = status.to_string();
        c.reason = reason.to_string();
        c.message = message;
    }
}

/// `removeCondition`.
pub fn remove_condition(conditions: &mut Vec<HorizontalPodAutoscalerCondition>, type_: &str) {
    conditions.retain(|c| c.type_ != type_);
}

/// `getScaledToZeroConditionStatus`: the first ScaledToZero condition has status True.
pub fn scaled_to_zero_condition(conditions: &[HorizontalPodAutoscalerCondition]) -> bool {
    conditions.iter().find(|c| c.type_ == SCALED_TO_ZERO).is_some_and(|c| c.status == TRUE)
}

/// `hasObjectOrExternalMetrics`.
pub fn has_object_or_external_metrics(metrics: &[MetricSpec]) -> bool {
    metrics.iter().any(|m| m.type_ == "Object" || m.type_ == "External")
}

/// `schema.ParseGroupVersion`: `(group, version)`.
pub fn parse_group_version(gv: &str) -> Result<(String, String), String> {
    if gv.is_empty() || gv == "/" {
        return Ok((String::new(), String::new()));
    }
    match gv.split_once('/') {
        None => Ok((String::new(), gv.to_string())),
        Some((g, v)) if !v.contains('/') => Ok((g.to_string(), v.to_string())),
        Some(_) => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// The metrics the controller sees: `spec.metrics`, or the API default (cpu at 80 %) when
/// empty, since kube-apiserver defaults an empty list before the controller reads it.
pub fn effective_metrics(hpa: &HorizontalPodAutoscaler) -> Vec<MetricSpec> {
    if hpa.spec.metrics.is_empty() { vec![defaults::default_metric()] } else { hpa.spec.metrics.clone() }
}

/// `reconcileAutoscaler`: one sync of one HPA at `input.now`.
///
/// `hpa` is the object as the controller reads it (its `spec.behavior` as the user wrote it;
/// API defaults are applied here). `state` is the controller's memory for this HPA and is
/// updated (recommendation seeding and history, scale events). The returned
/// [`SyncResult::status`] is the status to carry into the next sync.
pub fn reconcile_autoscaler(
    hpa: &HorizontalPodAutoscaler,
    state: &mut ControllerState,
    input: &SyncInput,
    opts: &HPAControllerConfiguration,
) -> SyncResult {
    let mut sync = SyncRun {
        hpa,
        input,
        opts,
        calc: opts.replica_calculator(),
        tolerances: opts.tolerances_for_hpa(hpa),
        conditions: hpa.status.conditions.clone(),
        events: Vec::new(),
    };
    let now = input.now;
    let spec = &hpa.spec;
    let target = &spec.scale_target_ref;
    let reference = format!("{}/{}/{}", target.kind, hpa.metadata.namespace, target.name);
    let mut result = SyncResult {
        outcome: SyncOutcome::Unchanged,
        current_replicas: None,
        desired_replicas: hpa.status.desired_replicas,
        rescaled: false,
        rescale_to: None,
        rescale_reason: String::new(),
        tolerances: sync.tolerances,
        metrics: Vec::new(),
        metric_desired_replicas: None,
        metric_name: String::new(),
        metrics_error: None,
        normalization: None,
        raised_to_min_from_zero: false,
        scale_event: None,
        conditions: Vec::new(),
        status: hpa.status.clone(),
        status_changed: false,
        events: Vec::new(),
        error: None,
    };

    // 1. Read the scale.
    let scale = match parse_group_version(&target.api_version) {
        Err(e) => Err((e.clone(), format!("invalid API version in scale target reference: {e}"))),
        Ok(_) => match &input.scale {
            Ok(s) => Ok(s.clone()),
            Err(e) => Err((e.clone(), format!("failed to query scale subresource for {reference}: {e}"))),
        },
    };
    let scale = match scale {
        Ok(s) => s,
        Err((e, returned)) => {
            sync.event(EventType::Warning, "FailedGetScale", e.clone());
            sync.set_condition(
                ABLE_TO_SCALE,
                FALSE,
                "FailedGetScale",
                format!("the HPA controller was unable to get the target's current scale: {e}"),
            );
            result.outcome = SyncOutcome::FailedGetScale;
            result.error = Some(returned);
            return finish(result, hpa, sync);
        }
    };
    sync.set_condition(
        ABLE_TO_SCALE,
        TRUE,
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
    );
    let current = scale.spec_replicas;
    result.current_replicas = Some(current);
    // recordInitialRecommendation
    if state.recommendations.is_none() {
        state.recommendations = Some(vec![TimestampedRecommendation { recommendation: current, timestamp: now }]);
    }

    let min = spec.min_replicas.unwrap_or(1);
    let max = spec.max_replicas;
    let metric_specs = effective_metrics(hpa);
    let behavior = opts.effective_behavior(hpa);
    let mut desired = 0i32;
    let mut rescale = true;
    let mut metric_statuses: Option<Vec<MetricStatus>> = None;

    // 5. Scale-to-zero facts.
    let gate_on = opts.gates.enabled(Gate::HPAScaleToZero);
    let has_obj_or_ext = has_object_or_external_metrics(&metric_specs);
    let scaled_to_zero = gate_on && scaled_to_zero_condition(&sync.conditions);
    let can_scale_from_zero = scaled_to_zero && has_obj_or_ext;

    // 6. Range pre-checks.
    let mut needs_metrics = true;
    if current == 0 {
        if !((min != 0 && scaled_to_zero) || can_scale_from_zero) {
            needs_metrics = false;
            rescale = false;
            sync.set_condition(
                SCALING_ACTIVE,
                FALSE,
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
            );
            if !gate_on {
                remove_condition(&mut sync.conditions, SCALED_TO_ZERO);
            }
            result.outcome = SyncOutcome::ScalingDisabled;
        }
    } else if current > max {
        result.rescale_reason = REASON_ABOVE_MAX.to_string();
        desired = max;
        needs_metrics = false;
    } else if current < min {
        result.rescale_reason = REASON_BELOW_MIN.to_string();
        desired = min;
        needs_metrics = false;
    }

    // 7-8. Metrics and normalization.
    if needs_metrics {
        let answer = match input.prenormalized_desired {
            Some(p) => {
                let name = PRENORMALIZED_METRIC_NAME.to_string();
                sync.set_condition(
                    SCALING_ACTIVE,
                    TRUE,
                    "ValidMetricFound",
                    format!("the HPA was able to successfully calculate a replica count from {name}"),
                );
                MetricsAnswer { replicas: p, name, statuses: None, error: None, evaluations: Vec::new() }
            }
            None => sync.compute_replicas_for_metrics(&scale, &metric_specs),
        };
        result.metrics = answer.evaluations;
        result.metrics_error.clone_from(&answer.error);
        metric_statuses = answer.statuses;
        if answer.replicas == -1 && answer.error.is_some() {
            let err = answer.error.unwrap_or_default();
            set_status(&mut result.status, &sync, current, hpa.status.desired_replicas, metric_statuses, false);
            sync.event(EventType::Warning, "FailedComputeMetricsReplicas", err.clone());
            result.outcome = SyncOutcome::FailedComputeMetrics;
            result.error = Some(format!(
                "failed to compute desired number of replicas based on listed metrics for {reference}: {err}"
            ));
            return finish(result, hpa, sync);
        }
        result.error.clone_from(&answer.error);
        result.metric_desired_replicas = Some(answer.replicas);
        result.metric_name.clone_from(&answer.name);

        let mut rescale_metric = "";
        if answer.replicas > desired {
            desired = answer.replicas;
            rescale_metric = &answer.name;
        }
        if desired > current {
            result.rescale_reason = format!("{rescale_metric} above target");
        }
        if desired < current {
            result.rescale_reason = "All metrics below target".to_string();
        }
        let normalization = sync.normalize(state, behavior.as_ref(), current, desired, min);
        desired = normalization.limited.replicas;
        result.normalization = Some(normalization);
        if current == 0 && min != 0 && scaled_to_zero && desired < min {
            desired = min;
            result.raised_to_min_from_zero = true;
            if result.rescale_reason.is_empty() {
                result.rescale_reason = REASON_BELOW_MIN.to_string();
            }
        }
        rescale = desired != current;
    }

    // 9. Act.
    if rescale {
        result.rescale_to = Some(desired);
        if let Some(err) = &input.scale_update_error {
            let msg = format!("New size: {desired}; reason: {}; error: {err}", result.rescale_reason);
            sync.event(EventType::Warning, "FailedRescale", msg);
            sync.set_condition(
                ABLE_TO_SCALE,
                FALSE,
                "FailedUpdateScale",
                format!("the HPA controller was unable to update the target scale: {err}"),
            );
            set_status(&mut result.status, &sync, current, hpa.status.desired_replicas, metric_statuses, false);
            result.outcome = SyncOutcome::FailedUpdateScale;
            result.error = Some(format!("failed to rescale {reference}: {err}"));
            return finish(result, hpa, sync);
        }
        sync.set_condition(
            ABLE_TO_SCALE,
            TRUE,
            "SucceededRescale",
            format!("the HPA controller was able to update the target scale to {desired}"),
        );
        let msg = format!("New size: {desired}; reason: {}", result.rescale_reason);
        sync.event(EventType::Normal, "SuccessfulRescale", msg);
        let stored = behavior::store_scale_event(
            behavior.as_ref(),
            &mut state.scale_up_events,
            &mut state.scale_down_events,
            current,
            desired,
            now,
        );
        result.scale_event = stored.and_then(|(direction, i)| {
            let events = match direction {
                Direction::Up => &state.scale_up_events,
                Direction::Down => &state.scale_down_events,
            };
            events.get(i).map(|e| (direction, *e))
        });
        if gate_on {
            if current > 0 && desired == 0 && min == 0 && has_obj_or_ext {
                sync.set_condition(
                    SCALED_TO_ZERO,
                    TRUE,
                    "ScaledToZero",
                    "the HPA controller scaled the workload to zero",
                );
            } else {
                sync.set_condition(
                    SCALED_TO_ZERO,
                    FALSE,
                    "NotScaledToZero",
                    "the HPA controller did not scale the workload to zero",
                );
            }
        } else {
            remove_condition(&mut sync.conditions, SCALED_TO_ZERO);
        }
        result.rescaled = true;
        result.outcome = SyncOutcome::Rescaled;
    } else {
        desired = current;
    }

    // 10. Status.
    set_status(&mut result.status, &sync, current, desired, metric_statuses, rescale);
    finish(result, hpa, sync)
}

/// `setStatus`: rebuilds the status (observedGeneration reset, set again under gate
/// `HPAGeneration`); `lastScaleTime` moves to now on a rescale.
fn set_status(
    status: &mut HorizontalPodAutoscalerStatus,
    sync: &SyncRun<'_>,
    current: i32,
    desired: i32,
    metric_statuses: Option<Vec<MetricStatus>>,
    rescale: bool,
) {
    let last_scale_time = if rescale { Some(sync.now().to_api_time()) } else { status.last_scale_time };
    *status = HorizontalPodAutoscalerStatus {
        observed_generation: sync.opts.gates.enabled(Gate::HPAGeneration).then_some(sync.hpa.metadata.generation),
        last_scale_time,
        current_replicas: current,
        desired_replicas: desired,
        current_metrics: metric_statuses,
        conditions: sync.conditions.clone(),
    };
}

/// Fills the result from the final status, conditions and events.
fn finish(mut result: SyncResult, hpa: &HorizontalPodAutoscaler, sync: SyncRun<'_>) -> SyncResult {
    result.status.conditions = sync.conditions;
    result.conditions = result.status.conditions.clone();
    result.desired_replicas = result.status.desired_replicas;
    result.events = sync.events;
    result.status_changed = result.status != hpa.status;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::{HPAScalingPolicy, HorizontalPodAutoscalerSpec, ObjectMetricSource, ResourceMetricSource};
    use crate::evaluator::replicas::{Container, ContainerUsage};
    use crate::features::{FeatureGates, KubernetesVersion};
    use std::time::Duration;

    fn cpu_hpa(
        min: i32,
        max: i32,
        target: i32,
        behavior: Option<HorizontalPodAutoscalerBehavior>,
    ) -> HorizontalPodAutoscaler {
        HorizontalPodAutoscaler {
            spec: HorizontalPodAutoscalerSpec {
                scale_target_ref: CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: "demo".into(),
                    api_version: "apps/v1".into(),
                },
                min_replicas: Some(min),
                max_replicas: max,
                metrics: vec![MetricSpec {
                    type_: "Resource".into(),
                    resource: Some(Box::new(ResourceMetricSource {
                        name: "cpu".into(),
                        target: MetricTarget {
                            type_: "Utilization".into(),
                            average_utilization: Some(target),
                            ..Default::default()
                        },
                    })),
                    ..Default::default()
                }],
                behavior,
            },
            ..Default::default()
        }
    }

    /// `n` old, ready pods requesting 20m cpu, each using `usage`.
    fn input(t: i64, n: i32, usage: i64) -> SyncInput {
        let mut input = SyncInput::new(
            Timestamp::from_secs(t),
            Scale { spec_replicas: n, status_replicas: n, selector: "app=demo".into() },
        );
        let mut items = vec![];
        for i in 0..n {
            let mut pod = Pod::running(format!("p{i}"));
            pod.start_time = Some(Timestamp::from_secs(-3600));
            pod.containers.push(Container {
                name: "app".into(),
                requests_milli: BTreeMap::from([("cpu".to_string(), 20)]),
                restart_policy: None,
            });
            input.pods.push(pod);
            items.push(PodMetricsItem {
                pod: format!("p{i}"),
                timestamp: Timestamp::from_secs(t - 10),
                window: Duration::from_secs(15),
                containers: vec![ContainerUsage {
                    name: "app".into(),
                    usage_milli: BTreeMap::from([("cpu".to_string(), usage)]),
                }],
            });
        }
        input.resource_metrics = Ok(items);
        input
    }

    fn run(
        hpa: &mut HorizontalPodAutoscaler,
        state: &mut ControllerState,
        input: &SyncInput,
        opts: &HPAControllerConfiguration,
    ) -> SyncResult {
        let r = reconcile_autoscaler(hpa, state, input, opts);
        hpa.status = r.status.clone();
        r
    }

    fn reasons(r: &SyncResult) -> Vec<(String, String)> {
        r.conditions.iter().map(|c| (c.type_.clone(), c.reason.clone())).collect()
    }

    #[test]
    fn observed_2_4_8_10() {
        let mut hpa = cpu_hpa(2, 10, 20, None);
        let mut state = ControllerState::default();
        let opts = HPAControllerConfiguration::default();
        // (t, current, usage, desired, ScalingLimited reason)
        let syncs = [(0, 2, 515, 4, "ScaleUpLimit"), (15, 4, 0, 8, "ScaleUpLimit"), (30, 8, 0, 10, "TooManyReplicas")];
        for (t, current, usage, want, limit) in syncs {
            let r = run(&mut hpa, &mut state, &input(t, current, usage), &opts);
            assert!(r.rescaled);
            let observed = r.metrics.first().and_then(|m| m.current()).and_then(|c| c.average_utilization);
            assert_eq!(observed, Some(if usage == 515 { 2575 } else { 0 }));
            assert_eq!(r.desired_replicas, want, "t={t}");
            assert_eq!(r.normalization.map(|n| n.limited.reason), Some(limit));
        }
        let cpu = hpa.status.current_metrics.as_ref().and_then(|m| m.first()).and_then(|m| m.resource.clone());
        assert_eq!(cpu.and_then(|r| r.current.average_utilization), Some(0));
        // Held at 10 by the 258 recommendation until it is older than 300 s, then straight to 2.
        let r = run(&mut hpa, &mut state, &input(300, 10, 0), &opts);
        assert_eq!((r.desired_replicas, r.rescaled), (10, false));
        let r = run(&mut hpa, &mut state, &input(315, 10, 0), &opts);
        assert_eq!((r.desired_replicas, r.rescale_reason.as_str()), (2, "All metrics below target"));
    }

    #[test]
    fn default_behavior_adds_max_of_4_and_100_percent() {
        let mut hpa = cpu_hpa(2, 10, 20, Some(HorizontalPodAutoscalerBehavior::default()));
        let mut state = ControllerState::default();
        let opts = HPAControllerConfiguration::default();
        let r = run(&mut hpa, &mut state, &input(0, 2, 515), &opts);
        assert_eq!((r.desired_replicas, r.normalization.map(|n| n.limited.reason)), (6, Some("ScaleUpLimit")));
        // The behavior path never exceeds the current desire: with zero usage it holds at 6.
        let r = run(&mut hpa, &mut state, &input(15, 6, 0), &opts);
        assert_eq!((r.desired_replicas, r.rescaled), (6, false));
        assert_eq!(state.scale_up_events.len(), 1);
    }

    #[test]
    fn range_shortcuts_and_failures() {
        // 1.36 gates: HPAScaleToZero off, so no ScaledToZero condition is written.
        let opts = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::V1_36));
        // (current, min, max, expected desired, rescaled, conditions)
        let cases = [
            (12, 2, 10, 10, true, vec![("AbleToScale", "SucceededRescale")]),
            (1, 2, 10, 2, true, vec![("AbleToScale", "SucceededRescale")]),
            (0, 2, 10, 7, false, vec![("AbleToScale", "SucceededGetScale"), ("ScalingActive", "ScalingDisabled")]),
        ];
        for (current, min, max, want, rescaled, conds) in cases {
            let mut hpa = cpu_hpa(min, max, 50, None);
            hpa.status.desired_replicas = 7;
            let r = run(&mut hpa, &mut ControllerState::default(), &input(0, current, 10), &opts);
            let want = if rescaled { want } else { current };
            assert_eq!((r.desired_replicas, r.rescaled), (want, rescaled), "{current}");
            let conds: Vec<(String, String)> = conds.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
            assert_eq!(reasons(&r), conds);
            assert_eq!(hpa.status.current_metrics, None);
        }
        // A failed scale read leaves everything else alone.
        let mut hpa = cpu_hpa(2, 10, 50, None);
        hpa.status.desired_replicas = 3;
        let mut i = input(0, 3, 10);
        i.scale = Err("boom".into());
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        assert_eq!((r.outcome, r.desired_replicas), (SyncOutcome::FailedGetScale, 3));
        assert_eq!(r.conditions[0].message, "the HPA controller was unable to get the target's current scale: boom");
    }

    #[test]
    fn scale_to_zero_and_back() {
        let mut opts = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::V1_37));
        opts.scale_up_limit_factor = 2.0;
        let mut hpa = cpu_hpa(0, 6, 50, None);
        hpa.spec.metrics = vec![MetricSpec {
            type_: "Object".into(),
            object: Some(Box::new(ObjectMetricSource {
                described_object: CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: "d".into(),
                    api_version: "apps/v1".into(),
                },
                metric: MetricIdentifier { name: "qps".into(), selector: None },
                target: MetricTarget {
                    type_: "Value".into(),
                    value: Some(Quantity::from_milli(15_000)),
                    ..Default::default()
                },
            })),
            ..Default::default()
        }];
        let object = |v: i64| {
            Ok(vec![ObjectMetricValue {
                described_object: CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: "d".into(),
                    api_version: "apps/v1".into(),
                },
                metric: "qps".into(),
                value_milli: v,
                timestamp: Timestamp::ZERO,
            }])
        };
        let mut state = ControllerState { recommendations: Some(vec![]), ..Default::default() };
        let mut down = input(0, 5, 0);
        down.object_metrics = object(0);
        let r = run(&mut hpa, &mut state, &down, &opts);
        assert_eq!(r.desired_replicas, 0);
        assert!(scaled_to_zero_condition(&r.conditions));
        let mut up = input(15, 0, 0);
        up.object_metrics = object(20_000);
        let r = run(&mut hpa, &mut state, &up, &opts);
        assert_eq!(r.desired_replicas, 2);
        assert!(!scaled_to_zero_condition(&r.conditions));
    }

    #[test]
    fn one_invalid_metric_blocks_scale_down_only() {
        let opts = HPAControllerConfiguration::default();
        // (usage → proposal direction, expected desired, ScalingActive reason)
        for (usage, want, reason) in [(5, 4, "InvalidMetricSourceType"), (50, 8, "ValidMetricFound")] {
            let mut hpa = cpu_hpa(1, 10, 50, None);
            hpa.status.desired_replicas = 4;
            hpa.spec.metrics.push(MetricSpec { type_: "CheddarCheese".into(), ..Default::default() });
            let r = run(
                &mut hpa,
                &mut ControllerState { recommendations: Some(vec![]), ..Default::default() },
                &input(0, 4, usage),
                &opts,
            );
            assert_eq!(r.desired_replicas, want, "usage {usage}");
            let active = r.conditions.iter().find(|c| c.type_ == SCALING_ACTIVE).map(|c| c.reason.clone());
            assert_eq!(active.as_deref(), Some(reason));
        }
    }

    #[test]
    fn prenormalized_override_follows_scale_down_policies() {
        // Pods 4/60 s + Percent 10/60 s from 80 replicas: −8, then held for 60 s, then −8 again.
        let down = HPAScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: None,
            policies: Some(vec![
                HPAScalingPolicy { type_: "Pods".into(), value: 4, period_seconds: 60 },
                HPAScalingPolicy { type_: "Percent".into(), value: 10, period_seconds: 60 },
            ]),
            tolerance: None,
        };
        let behavior = HorizontalPodAutoscalerBehavior { scale_up: None, scale_down: Some(down) };
        let mut hpa = cpu_hpa(1, 100, 50, Some(behavior));
        let mut state = ControllerState::default();
        let opts = HPAControllerConfiguration::default();
        // (t, current, desired, ScalingLimited reason)
        let syncs = [(0, 80, 72, "ScaleDownLimit"), (15, 72, 72, "ScaleDownLimit"), (60, 72, 64, "ScaleDownLimit")];
        for (t, current, want, reason) in syncs {
            let mut i = SyncInput::new(
                Timestamp::from_secs(t),
                Scale { spec_replicas: current, status_replicas: current, selector: "app=demo".into() },
            );
            i.prenormalized_desired = Some(10);
            let r = run(&mut hpa, &mut state, &i, &opts);
            assert_eq!(r.desired_replicas, want, "t={t}");
            assert_eq!(r.normalization.map(|n| (n.stabilized, n.limited.reason)), Some((10, reason)));
            assert_eq!(r.rescaled, want != current);
        }
        let changes: Vec<i32> = state.scale_down_events.iter().map(|e| e.replica_change).collect();
        assert_eq!(changes, [8, 8]);
    }

    #[test]
    fn group_versions() {
        for (gv, ok) in [("apps/v1", true), ("v1", true), ("", true), ("a/b/c", false)] {
            assert_eq!(parse_group_version(gv).is_ok(), ok, "{gv}");
        }
    }
}
