//! One controller sync (`reconcileAutoscaler`), as a pure function.
//!
//! Mirrors `pkg/controller/podautoscaler/horizontal.go`: reading the scale, the range
//! pre-checks, `computeReplicasForMetrics` with the invalid-metric rule, normalization on the
//! legacy or the behavior path, scale from and to zero, the conditions with their exact
//! reasons and messages, the scale events, and the status written back.
//!
//! An [`Autoscaler`] is one HPA under the controller: what a sync reads of its spec, worked
//! out once; the controller's in-memory state for it ([`ControllerState`]); and the result of
//! its last sync, whose status the next sync reads. The caller supplies everything the
//! controller would read from the cluster in a [`SyncInput`] (including the instant of the
//! sync); [`Autoscaler::reconcile`] updates the state and returns a [`SyncResult`] holding the
//! new status and every intermediate value. Syncing one `Autoscaler` again and again
//! reproduces the controller's behaviour over time; [`reconcile_autoscaler`] is one sync of an
//! HPA with the status it holds.
//!
//! This is the only implementation of a sync. Its speed comes from inside it: the HPA is
//! prepared once per `Autoscaler`, the status and the evaluations are rewritten in place, and
//! the replica calculator matches samples to pods through a kept [`PodIndex`] and works in a
//! reused [`Workspace`].

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fmt;

use super::behavior::{
    self, Direction, Limited, NormalizationArgs, READY_FOR_NEW_SCALE, SCALE_DOWN_STABILIZED, Stabilized,
    TimestampedRecommendation, TimestampedScaleEvent,
};
use super::gofmt;
use super::release::ControllerRelease;
use super::replicas::{
    CalcError, Matched, ObjectSample, Pod, PodIndex, PodMetricsItem, PodSample, Pods, RESOURCE_MEMORY,
    ReplicaCalculator, SetAsidePod, Tolerances, Workspace,
};
use super::time::Timestamp;
use crate::api::quantity::Format;
use crate::api::v2::{
    ExternalMetricSource, HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior,
    HorizontalPodAutoscalerCondition, HorizontalPodAutoscalerStatus, MetricIdentifier, MetricSpec, MetricStatus,
    MetricTarget, MetricValueStatus, ObjectMetricSource, PodsMetricSource,
};
use crate::api::{CrossVersionObjectReference, GroupVersion, LabelSelector, Quantity};
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
/// The beginning of the ScalingActive message of `ValidMetricFound`.
const VALID_METRIC_FOUND: &str = "the HPA was able to successfully calculate a replica count from ";
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
    /// The metric: its name and metric selector (the query that answered the value).
    pub metric: MetricId,
    /// The value, as `Quantity::milli_value()`.
    pub value_milli: i64,
    /// When it was measured.
    pub timestamp: Timestamp,
}

/// Declares an error that is the text a client returned (client-go's `err.Error()`), which the
/// controller puts unchanged into its events, conditions and the error it returns.
macro_rules! client_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
        #[error("{0}")]
        pub struct $name(pub String);

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                $name(text.to_string())
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> $name {
                $name(text)
            }
        }
    };
}

client_error!(
    /// A failed read from the cluster in a sync: the error text its client returned (client-go's
    /// `err.Error()`), which the controller puts unchanged into its events, conditions and the
    /// error it returns.
    ReadError
);

client_error!(
    /// A failed write of the target's scale subresource (`scaleNamespacer.Update`): the error
    /// text its client returned, which the controller puts unchanged into the `FailedRescale`
    /// event, the `AbleToScale` condition and the error it returns.
    UpdateError
);

client_error!(
    /// Why `status.selector` of the scale does not parse: the text of `labels.Parse`'s error,
    /// which the controller puts after `couldn't convert selector into a corresponding internal
    /// selector object: ` in its `InvalidSelector` event and condition.
    SelectorError
);

/// A metric as the controller's metrics client asks for it: `metric.name` and the metric
/// selector in its text form (`metav1.LabelSelectorAsSelector(s).String()`, what the client
/// sends as `metricLabelSelector` or, for External metrics, `labelSelector`; empty for none).
/// Two metric specs of one name but different selectors are two requests with two answers
/// (`GetRawMetric`, `GetObjectMetric`, `GetExternalMetric` in
/// `pkg/controller/podautoscaler/metrics/rest_metrics_client.go`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MetricId {
    /// `metric.name`.
    pub name: String,
    /// `metric.selector` as text (empty: none, or an empty selector).
    pub selector: String,
}

impl MetricId {
    /// The metric a spec's `metric` identifies.
    pub fn of(m: &MetricIdentifier) -> MetricId {
        MetricId {
            name: m.name.to_string(),
            selector: m.selector.as_ref().map(LabelSelector::format).unwrap_or_default(),
        }
    }
}

impl From<&str> for MetricId {
    /// The metric of this name without a selector.
    fn from(name: &str) -> MetricId {
        MetricId { name: name.to_string(), selector: String::new() }
    }
}

impl fmt::Display for MetricId {
    /// `name`, or `name{selector}` when it has one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.selector.is_empty() { f.write_str(&self.name) } else { write!(f, "{}{{{}}}", self.name, self.selector) }
    }
}

/// One request of the custom or external metrics API: the metric of one HPA metric spec, as
/// the controller's metrics client asks for it (`GetRawMetric`, `GetObjectMetric`,
/// `GetExternalMetric` in `pkg/controller/podautoscaler/metrics/rest_metrics_client.go`):
/// the metric's name and selector, and an Object metric's object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MetricQuery {
    /// A Pods metric (`pods/*/<metric>?metricLabelSelector=...`).
    Pods {
        /// `metric`.
        metric: MetricId,
    },
    /// An Object metric of one described object.
    Object {
        /// `metric`.
        metric: MetricId,
        /// The group of `describedObject.apiVersion` (`""`: the core group), which the client
        /// maps with the kind to the resource it asks for.
        group: String,
        /// `describedObject.kind`.
        kind: String,
        /// `describedObject.name`.
        name: String,
    },
    /// An External metric (`<metric>?labelSelector=...`).
    External {
        /// `metric`.
        metric: MetricId,
    },
}

impl MetricQuery {
    /// The request of a Pods, Object or External metric spec (by its `type`, as
    /// `computeReplicasForMetric` dispatches); `None` for the others and for a type whose
    /// source is not set.
    pub fn of(m: &MetricSpec) -> Option<MetricQuery> {
        Some(match QueriedSource::of(m)? {
            QueriedSource::Pods(p) => MetricQuery::Pods { metric: MetricId::of(&p.metric) },
            QueriedSource::Object(o) => MetricQuery::object(&o.metric, &o.described_object),
            QueriedSource::External(e) => MetricQuery::External { metric: MetricId::of(&e.metric) },
        })
    }

    /// The request of an Object metric `metric` of `object` (`GetObjectMetric`).
    pub fn object(metric: &MetricIdentifier, object: &CrossVersionObjectReference) -> MetricQuery {
        MetricQuery::object_of(MetricId::of(metric), object)
    }

    /// The request of an Object metric of `object`.
    fn object_of(metric: MetricId, object: &CrossVersionObjectReference) -> MetricQuery {
        MetricQuery::Object {
            metric,
            group: GroupVersion::parse_or_empty(&object.api_version).group().to_string(),
            kind: object.kind.to_string(),
            name: object.name.to_string(),
        }
    }

    /// The request an Object metric value answers: its metric and described object.
    pub fn object_value(v: &ObjectMetricValue) -> MetricQuery {
        MetricQuery::object_of(v.metric.clone(), &v.described_object)
    }

    /// The metric asked for.
    pub fn metric(&self) -> &MetricId {
        match self {
            MetricQuery::Pods { metric } | MetricQuery::Object { metric, .. } | MetricQuery::External { metric } => {
                metric
            }
        }
    }
}

/// The source of a metric spec that the custom or external metrics API is asked about: a Pods,
/// Object or External metric, by its `type` as `computeReplicasForMetric` dispatches.
#[derive(Debug, Clone, Copy)]
enum QueriedSource<'a> {
    Pods(&'a PodsMetricSource),
    Object(&'a ObjectMetricSource),
    External(&'a ExternalMetricSource),
}

impl<'a> QueriedSource<'a> {
    /// The source of `m`; `None` for the other types and for a type whose source is not set.
    fn of(m: &'a MetricSpec) -> Option<QueriedSource<'a>> {
        match m.type_.as_str() {
            "Pods" => m.pods.as_deref().map(QueriedSource::Pods),
            "Object" => m.object.as_deref().map(QueriedSource::Object),
            "External" => m.external.as_deref().map(QueriedSource::External),
            _ => None,
        }
    }

    /// The metric asked for.
    fn metric(self) -> &'a MetricIdentifier {
        match self {
            QueriedSource::Pods(p) => &p.metric,
            QueriedSource::Object(o) => &o.metric,
            QueriedSource::External(e) => &e.metric,
        }
    }
}

/// Everything one sync reads from the cluster, and the instant it runs at.
///
/// Each metrics field is the answer of one metrics API: `Err` is a failed request
/// ([`ReadError`]), `Ok` the returned data, keyed by the metric's name and selector
/// ([`MetricId`]), as each metric spec asks for its own. A metric with no entry gets an empty
/// answer. Metric label selectors are not evaluated: the data given for a metric is its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncInput {
    /// The instant of the sync: every `time.Now()` of the controller in this sync.
    pub now: Timestamp,
    /// The scale subresource, or the error of reading it.
    pub scale: Result<Scale, ReadError>,
    /// Whether the `scale` error is the RESTMapper's: the target's group and kind map to no
    /// resource (`RESTMappings` failed, `no matches for kind ...`), so the scale was never asked
    /// for. The sync's error then reads `unable to determine resource for scale target
    /// reference: ...` rather than `failed to query scale subresource for ...`.
    pub scale_unmapped: bool,
    /// The error of writing the scale (after the conflict retries), if it fails.
    pub scale_update_error: Option<UpdateError>,
    /// The conflict error of the first scale update, if it conflicts: from 1.34 the controller
    /// retries (the retry's outcome is `scale_update_error`); 1.33 fails with it.
    pub scale_update_conflict: Option<UpdateError>,
    /// The `labels.Parse` error of `scale.selector`, if it does not parse.
    pub selector_parse_error: Option<SelectorError>,
    /// Keys (`namespace/name`) of other HPAs whose selectors match some of the pods.
    pub other_hpas_selecting_pods: Vec<String>,
    /// The pods matched by the selector (from the informer cache).
    pub pods: Vec<Pod>,
    /// The resource metrics API (`metrics.k8s.io`) answer for the selector.
    pub resource_metrics: Result<Vec<PodMetricsItem>, ReadError>,
    /// The custom metrics API answers for Pods metrics, by metric.
    pub pods_metrics: Result<BTreeMap<MetricId, Vec<PodSample>>, ReadError>,
    /// The custom metrics API answers for Object metrics.
    pub object_metrics: Result<Vec<ObjectMetricValue>, ReadError>,
    /// The external metrics API answers, by metric: every series' value in milli-units.
    pub external_metrics: Result<BTreeMap<MetricId, Vec<i64>>, ReadError>,
    /// The requests of one metric that failed while its API answered (an adapter's 404 or 5xx
    /// for that metric only): the client's error, which the controller records for that metric
    /// as it records a failed API (`unable to fetch metrics from custom metrics API: ...`). An
    /// entry here overrides the metric's answer in `pods_metrics`, `object_metrics` or
    /// `external_metrics`.
    pub metric_errors: BTreeMap<MetricQuery, ReadError>,
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
            scale_unmapped: false,
            scale_update_error: None,
            scale_update_conflict: None,
            selector_parse_error: None,
            other_hpas_selecting_pods: Vec::new(),
            pods: Vec::new(),
            resource_metrics: Ok(Vec::new()),
            pods_metrics: Ok(BTreeMap::new()),
            object_metrics: Ok(Vec::new()),
            external_metrics: Ok(BTreeMap::new()),
            metric_errors: BTreeMap::new(),
            prenormalized_desired: None,
        }
    }

    /// The error of the request `query` names ([`Self::metric_errors`]); `query` is built only
    /// when some request failed.
    pub fn metric_error(&self, query: impl FnOnce() -> MetricQuery) -> Option<&ReadError> {
        if self.metric_errors.is_empty() { None } else { self.metric_errors.get(&query()) }
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
    pub reason: &'static str,
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
#[derive(Debug, Clone, PartialEq, Default)]
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
    /// The replica calculator's error behind [`Self::error`], typed, when the calculator
    /// failed (not for an invalid metric source or a target it cannot read).
    pub cause: Option<CalcError>,
    /// The ScalingActive condition the failure would set.
    pub failure_condition: Option<Box<HorizontalPodAutoscalerCondition>>,
    /// The observed value written to `status.currentMetrics` (`None` on failure).
    pub current: Option<MetricValueStatus>,
    /// The metric's timestamp, where the controller reports one.
    pub timestamp: Option<Timestamp>,
    /// The usage ratio the tolerance was judged on (first pass), when the calculator got
    /// that far.
    pub usage_ratio: Option<f64>,
    /// The second pass's usage ratio, when missing or unready pods made the calculator
    /// correct the first.
    pub corrected_ratio: Option<f64>,
    /// For metrics whose calculator groups pods (Resource, ContainerResource, Pods): how many
    /// pods' samples counted as ready.
    pub ready_pods: Option<usize>,
    /// For those metrics, the pods whose samples were set aside or missing, and why.
    pub set_aside: Vec<SetAsidePod>,
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
    /// The stored recommendation the stabilized count comes from, when it is not the
    /// prenormalized one.
    pub held_by: Option<TimestampedRecommendation>,
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
    /// Each metric's evaluation, in spec order: the first `evaluated` entries (the others are
    /// kept for the next sync to overwrite).
    evaluations: Vec<MetricEvaluation>,
    evaluated: usize,
    /// The maximum proposal of `computeReplicasForMetrics` (`None` when not computed or
    /// on a hard failure).
    pub metric_desired_replicas: Option<i32>,
    /// On a hard failure of `computeReplicasForMetrics` while some metrics answered: what
    /// those wanted (its `replicas`), which the invalid-metric rule discarded because it is
    /// below the current count (a failed metric blocks a scale-down, not a scale-up).
    pub blocked_desired_replicas: Option<i32>,
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
    /// The status after the sync (`status.currentMetrics` and `status.conditions` included):
    /// what the controller writes back, and what its next sync reads.
    pub status: HorizontalPodAutoscalerStatus,
    /// Events recorded, in order.
    pub events: Vec<Event>,
    /// The error `reconcileAutoscaler` returns, if any.
    pub error: Option<String>,
}

impl SyncResult {
    /// A result holding `status`, before any sync.
    fn new(status: HorizontalPodAutoscalerStatus, tolerances: Tolerances) -> SyncResult {
        SyncResult {
            outcome: SyncOutcome::Unchanged,
            current_replicas: None,
            desired_replicas: status.desired_replicas,
            rescaled: false,
            rescale_to: None,
            rescale_reason: String::new(),
            tolerances,
            evaluations: Vec::new(),
            evaluated: 0,
            metric_desired_replicas: None,
            blocked_desired_replicas: None,
            metric_name: String::new(),
            metrics_error: None,
            normalization: None,
            raised_to_min_from_zero: false,
            scale_event: None,
            status,
            events: Vec::new(),
            error: None,
        }
    }

    /// The conditions after the sync (`status.conditions`, in status order).
    pub fn conditions(&self) -> &[HorizontalPodAutoscalerCondition] {
        &self.status.conditions
    }

    /// Each metric's evaluation, in spec order (none when metrics were not computed).
    pub fn metrics(&self) -> &[MetricEvaluation] {
        self.evaluations.get(..self.evaluated).unwrap_or_default()
    }

    /// The evaluation of metric `i`, to be overwritten.
    fn evaluation(&mut self, i: usize) -> &mut MetricEvaluation {
        if self.evaluations.len() <= i {
            self.evaluations.resize_with(i + 1, MetricEvaluation::default);
        }
        self.evaluated = self.evaluated.max(i + 1);
        let last = self.evaluations.len() - 1;
        &mut self.evaluations[i.min(last)]
    }

    /// Clears what one sync decides, keeping the status (the next sync reads it) and the
    /// buffers (the evaluations are overwritten in place).
    fn begin(&mut self) {
        self.outcome = SyncOutcome::Unchanged;
        self.current_replicas = None;
        self.desired_replicas = self.status.desired_replicas;
        self.rescaled = false;
        self.rescale_to = None;
        self.rescale_reason.clear();
        self.evaluated = 0;
        self.metric_desired_replicas = None;
        self.blocked_desired_replicas = None;
        self.metric_name.clear();
        self.metrics_error = None;
        self.normalization = None;
        self.raised_to_min_from_zero = false;
        self.scale_event = None;
        self.events.clear();
        self.error = None;
    }

    /// `eventRecorder.Event`.
    fn event(&mut self, type_: EventType, reason: &'static str, message: String) {
        self.events.push(Event { type_, reason, message });
    }

    /// `setCondition` on the HPA being reconciled, at `now`.
    fn set_condition(&mut self, type_: &str, status: &str, reason: &str, message: Message<'_>, now: Timestamp) {
        set_condition_in(&mut self.status.conditions, type_, status, reason, message, now);
    }
}

/// One HPA under the controller: what a sync reads of its spec, worked out once; the
/// controller's memory of it ([`ControllerState`]); and the result of its last sync, whose
/// status the next sync reads as the controller reads the status it wrote.
///
/// [`Autoscaler::reconcile`] is the controller's sync (`reconcileAutoscaler`). Syncing one
/// `Autoscaler` again and again is the controller running over time; it reuses its buffers
/// (the pods' name index, the calculator's maps, the status and the evaluations), so a sync
/// allocates nothing unless something fails or the pods change.
#[derive(Debug)]
pub struct Autoscaler<'a> {
    hpa: &'a HorizontalPodAutoscaler,
    config: &'a HPAControllerConfiguration,
    prepared: Prepared<'a>,
    state: ControllerState,
    result: SyncResult,
    pod_index: PodIndex,
    workspace: Workspace,
    /// The entries of the resource metrics API's samples, and of a Pods metric's.
    resource_entries: Vec<usize>,
    sample_entries: Vec<usize>,
    /// The `status.currentMetrics` list being written (swapped with the status's).
    metric_statuses: Vec<MetricStatus>,
}

/// What every sync reads of the HPA and the configuration, worked out once.
#[derive(Debug)]
struct Prepared<'a> {
    /// `spec.metrics`, or the API default when empty ([`effective_metrics`]).
    metrics: Cow<'a, [MetricSpec]>,
    /// Per metric, the name `computeReplicasForMetric` gives a successful proposal (worked out
    /// the first time one succeeds).
    names: Vec<OnceCell<String>>,
    /// Per metric, why `metav1.LabelSelectorAsSelector` refuses its metric selector, in the
    /// release's words (`None`: no selector, or one that converts; Resource metrics have none).
    /// Validation leaves a metric's selector unchecked, so an HPA can carry one that does not
    /// convert (an `In` without values, a `Gt` operator, a bad key or value): the controller
    /// fails that metric before any metrics API is asked, an Object or Pods metric in
    /// `computeReplicasForMetric`, an External one in `GetExternalMetricReplicas` /
    /// `GetExternalPerPodMetricReplicas`.
    selector_errors: Vec<Option<String>>,
    /// `spec.behavior` as the controller completes it (`None`: the legacy path).
    behavior: Option<HorizontalPodAutoscalerBehavior>,
    tolerances: Tolerances,
    calc: ReplicaCalculator,
    /// `minReplicas` (nil counts as 1) and `maxReplicas`.
    min: i32,
    max: i32,
    /// Gates `HPAScaleToZero` and `HPAGeneration`.
    scale_to_zero: bool,
    generation: bool,
    /// `hasObjectOrExternalMetrics`.
    object_or_external: bool,
    /// Whether a metric reads the resource metrics API (Resource, ContainerResource).
    reads_resource_metrics: bool,
    /// The error of parsing the scale target's `apiVersion` (the scale is then never read).
    api_version_error: Option<String>,
}

impl<'a> Prepared<'a> {
    /// The name of metric `i`'s successful proposal.
    fn name(&self, i: usize) -> &str {
        match (self.names.get(i), self.metrics.get(i)) {
            (Some(name), Some(spec)) => name.get_or_init(|| metric_name(spec)),
            _ => "",
        }
    }

    /// Why metric `i`'s selector does not convert ([`Prepared::selector_errors`]).
    fn selector_error(&self, i: usize) -> Option<&str> {
        self.selector_errors.get(i).and_then(Option::as_deref)
    }

    fn new(hpa: &'a HorizontalPodAutoscaler, config: &HPAControllerConfiguration) -> Prepared<'a> {
        let spec = &hpa.spec;
        let target = &spec.scale_target_ref;
        let metrics = effective_metrics(hpa);
        let calc = config.replica_calculator();
        Prepared {
            names: metrics.iter().map(|_| OnceCell::new()).collect(),
            selector_errors: metrics
                .iter()
                .map(|m| {
                    let selector = QueriedSource::of(m).and_then(|source| source.metric().selector.as_ref());
                    selector.and_then(|s| s.as_selector_error(calc.release.version))
                })
                .collect(),
            object_or_external: has_object_or_external_metrics(&metrics),
            reads_resource_metrics: metrics.iter().any(|m| m.type_ == "Resource" || m.type_ == "ContainerResource"),
            metrics,
            behavior: config.effective_behavior(hpa),
            tolerances: config.tolerances_for_hpa(hpa.spec.behavior.as_ref()).tolerances(),
            calc,
            min: spec.min_replicas.unwrap_or(1),
            max: spec.max_replicas,
            scale_to_zero: config.gates.enabled(Gate::HPAScaleToZero),
            generation: config.gates.enabled(Gate::HPAGeneration),
            api_version_error: GroupVersion::parse(&target.api_version).err().map(|e| e.to_string()),
        }
    }
}

/// `<kind>/<namespace>/<name>` of the scale target, as errors name it.
fn reference(hpa: &HorizontalPodAutoscaler) -> String {
    let target = &hpa.spec.scale_target_ref;
    format!("{}/{}/{}", target.kind, hpa.metadata.namespace, target.name)
}

/// The name `computeReplicasForMetric` gives a metric's successful proposal (empty when the
/// metric cannot succeed).
fn metric_name(spec: &MetricSpec) -> String {
    match spec.type_.as_str() {
        "Object" => match &spec.object {
            Some(obj) if obj.target.type_ == "Value" && obj.target.value.is_some() => {
                format!("{} metric {}", obj.described_object.kind, obj.metric.name)
            }
            // Upstream really calls an Object metric "external metric" here.
            Some(obj) => {
                format!("external metric {}({})", obj.metric.name, gofmt::label_selector(obj.metric.selector.as_ref()))
            }
            None => String::new(),
        },
        "Pods" => spec.pods.as_ref().map(|p| format!("pods metric {}", p.metric.name)).unwrap_or_default(),
        "Resource" => {
            spec.resource.as_ref().map(|r| resource_metric_name(&r.target, &r.name, false)).unwrap_or_default()
        }
        "ContainerResource" => {
            spec.container_resource.as_ref().map(|r| resource_metric_name(&r.target, &r.name, true)).unwrap_or_default()
        }
        "External" => spec
            .external
            .as_ref()
            .map(|e| {
                format!("external metric {}({})", e.metric.name, gofmt::label_selector(e.metric.selector.as_ref()))
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// `computeStatusForResourceMetricGeneric`'s name for a proposal.
fn resource_metric_name(target: &MetricTarget, resource: &str, container_source: bool) -> String {
    if target.average_value.is_some() {
        format!("{resource} resource")
    } else if container_source {
        format!("{resource} container resource utilization (percentage of request)")
    } else {
        format!("{resource} resource utilization (percentage of request)")
    }
}

/// A metric's failure: the ScalingActive reason and the error for its condition (and event),
/// and the error `computeReplicasForMetric` returns.
struct Failure {
    reason: &'static str,
    condition_error: String,
    error: String,
    /// The calculator's error, when it is the cause (boxed: failures are rare).
    cause: Option<Box<CalcError>>,
}

impl Failure {
    /// A failure whose condition and returned error say the same.
    fn same(reason: &'static str, error: String) -> Failure {
        Failure { reason, condition_error: error.clone(), error, cause: None }
    }

    /// A failure of the calculator, whose condition and returned error are its message.
    fn calc(reason: &'static str, cause: CalcError) -> Failure {
        let error = cause.to_string();
        Failure { reason, condition_error: error.clone(), error, cause: Some(Box::new(cause)) }
    }

    /// A failure of the calculator, whose returned error is `error` (its message in the
    /// condition).
    fn calc_wrapped(reason: &'static str, cause: CalcError, error: String) -> Failure {
        Failure { reason, condition_error: cause.to_string(), error, cause: Some(Box::new(cause)) }
    }

    /// `computeReplicasForMetric`'s error: the source's prefix before the error.
    fn prefixed(self, prefix: fmt::Arguments<'_>) -> Failure {
        Failure { error: format!("{prefix}: {}", self.error), ..self }
    }
}

/// A metric's successful proposal.
struct Proposal {
    /// The count.
    replicas: i32,
    /// The observed value.
    current: MetricValueStatus,
    /// The metric's timestamp.
    timestamp: Option<Timestamp>,
    /// The usage ratio, and the corrected one.
    ratio: f64,
    corrected_ratio: Option<f64>,
}

impl Proposal {
    fn of(r: super::replicas::MetricReplicas, current: MetricValueStatus) -> Proposal {
        Proposal {
            replicas: r.replicas,
            current,
            timestamp: r.timestamp,
            ratio: r.ratio,
            corrected_ratio: r.corrected_ratio,
        }
    }
}

/// Why `computeStatusForResourceMetricGeneric` has no proposal (its callers build the
/// condition from the text).
#[derive(Debug, thiserror::Error)]
enum ResourceMetricError {
    #[error("failed to get {resource} usage: {error}")]
    Usage { resource: String, error: Box<CalcError> },
    #[error("failed to get {resource} utilization: {error}")]
    Utilization { resource: String, error: Box<CalcError> },
    #[error(
        "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set"
    )]
    NoTarget,
}

impl ResourceMetricError {
    /// The failure `computeStatusForResourceMetric` / `...ContainerResourceMetric` return.
    fn into_failure(self, reason: &'static str) -> Failure {
        let error = self.to_string();
        let cause = match self {
            ResourceMetricError::Usage { error, .. } | ResourceMetricError::Utilization { error, .. } => Some(error),
            ResourceMetricError::NoTarget => None,
        };
        Failure { reason, condition_error: error.clone(), error, cause }
    }
}

/// Why the custom metrics API has no value for an object (`GetObjectMetric`).
#[derive(Debug, thiserror::Error)]
enum ObjectSampleError {
    /// The request failed.
    #[error(transparent)]
    Read(ReadError),
    /// The answer has no value for the object.
    #[error("the server could not find the metric {metric} for {kind} {name}")]
    NotFound { metric: String, kind: String, name: String },
}

/// Whether `computeReplicasForMetrics` takes a metric's `proposal` over the count chosen so
/// far, `replicas`: `if replicas == 0 || replicaCountProposal > replicas`, so the first proposal
/// (and any after a proposal of 0, even a lower one) or a higher one.
pub(crate) fn takes_proposal(replicas: i32, proposal: i32) -> bool {
    replicas == 0 || proposal > replicas
}

/// The answer of `computeReplicasForMetrics`: the count (`-1` on a hard failure), the
/// metric it came from, the aggregated error, and whether `status.currentMetrics` was built.
struct MetricsAnswer {
    replicas: i32,
    name: Option<usize>,
    error: Option<String>,
    statuses: bool,
}

impl<'a> Autoscaler<'a> {
    /// The controller's view of `hpa` under `config`: an empty memory, and the HPA's own status
    /// as the status the first sync reads.
    pub fn new(hpa: &'a HorizontalPodAutoscaler, config: &'a HPAControllerConfiguration) -> Autoscaler<'a> {
        let prepared = Prepared::new(hpa, config);
        let result = SyncResult::new(hpa.status.clone(), prepared.tolerances);
        Autoscaler {
            hpa,
            config,
            prepared,
            state: ControllerState::default(),
            result,
            pod_index: PodIndex::default(),
            workspace: Workspace::default(),
            resource_entries: Vec::new(),
            sample_entries: Vec::new(),
            metric_statuses: Vec::new(),
        }
    }

    /// `spec.behavior` as the controller completes it (`None`: the legacy path), worked out
    /// once when the autoscaler was made.
    pub(crate) fn behavior(&self) -> Option<&HorizontalPodAutoscalerBehavior> {
        self.prepared.behavior.as_ref()
    }

    /// The same, with the controller's memory of the HPA.
    pub fn with_state(mut self, state: ControllerState) -> Autoscaler<'a> {
        self.state = state;
        self
    }

    /// The same, with `status` as the status the first sync reads (instead of the HPA's).
    pub fn with_status(mut self, status: HorizontalPodAutoscalerStatus) -> Autoscaler<'a> {
        self.result = SyncResult::new(status, self.prepared.tolerances);
        self
    }

    /// The controller's memory of the HPA.
    pub fn state(&self) -> &ControllerState {
        &self.state
    }

    /// The controller's memory of the HPA, taken out.
    pub fn into_state(self) -> ControllerState {
        self.state
    }

    /// The metrics the controller evaluates ([`effective_metrics`]).
    pub fn metrics(&self) -> &[MetricSpec] {
        &self.prepared.metrics
    }

    /// The HPA's status: the one it came with, then the one the last sync wrote.
    pub fn status(&self) -> &HorizontalPodAutoscalerStatus {
        &self.result.status
    }

    /// The result of the last sync.
    pub fn last(&self) -> &SyncResult {
        &self.result
    }

    /// `reconcileAutoscaler`: one sync at `input.now`.
    ///
    /// Reads the HPA's spec (its `spec.behavior` as written; API defaults and the
    /// controller's fill-ins are applied) and its status as the last sync left it; updates the
    /// controller's memory (recommendation seeding and history, scale events) and the status.
    pub fn reconcile(&mut self, input: &SyncInput) -> &SyncResult {
        let Autoscaler {
            hpa,
            config,
            prepared: p,
            state,
            result,
            pod_index,
            workspace,
            resource_entries,
            sample_entries,
            metric_statuses,
        } = self;
        let now = input.now;
        result.begin();

        // 1. Read the scale.
        let scale = match (&p.api_version_error, &input.scale) {
            (Some(e), _) => Err((e, format!("invalid API version in scale target reference: {e}"))),
            (None, Ok(s)) => Ok(s),
            // `reconcileAutoscaler`: the RESTMappings failure, then the scale's.
            (None, Err(e)) if input.scale_unmapped => {
                Err((&e.0, format!("unable to determine resource for scale target reference: {e}")))
            }
            (None, Err(e)) => Err((&e.0, format!("failed to query scale subresource for {}: {e}", reference(hpa)))),
        };
        let scale = match scale {
            Ok(s) => s,
            Err((e, returned)) => {
                result.event(EventType::Warning, "FailedGetScale", e.clone());
                result.set_condition(
                    ABLE_TO_SCALE,
                    FALSE,
                    "FailedGetScale",
                    Message::Concat("the HPA controller was unable to get the target's current scale: ", e),
                    now,
                );
                result.outcome = SyncOutcome::FailedGetScale;
                result.error = Some(returned);
                result.desired_replicas = result.status.desired_replicas;
                return &self.result;
            }
        };
        result.set_condition(
            ABLE_TO_SCALE,
            TRUE,
            "SucceededGetScale",
            Message::Text("the HPA controller was able to get the target's current scale"),
            now,
        );
        let current = scale.spec_replicas;
        result.current_replicas = Some(current);
        // recordInitialRecommendation
        if state.recommendations.is_none() {
            state.recommendations = Some(vec![TimestampedRecommendation { recommendation: current, timestamp: now }]);
        }

        let (min, max) = (p.min, p.max);
        let mut desired = 0i32;
        let mut rescale = true;
        let mut statuses = false;

        // 5. Scale-to-zero facts. Before 1.36 the controller knows no ScaledToZero condition: a
        // target at zero is disabled only when minReplicas != 0, and with minReplicas 0 its
        // metrics are evaluated (a scale-up from zero with no condition).
        let zero_conditions = p.calc.release.scaled_to_zero_condition;
        let gate_on = p.scale_to_zero;
        let scaled_to_zero = zero_conditions && gate_on && scaled_to_zero_condition(&result.status.conditions);
        let can_scale_from_zero = scaled_to_zero && p.object_or_external;

        // 6. Range pre-checks.
        let mut needs_metrics = true;
        if current == 0 {
            let disabled =
                if zero_conditions { !((min != 0 && scaled_to_zero) || can_scale_from_zero) } else { min != 0 };
            if disabled {
                needs_metrics = false;
                rescale = false;
                result.set_condition(
                    SCALING_ACTIVE,
                    FALSE,
                    "ScalingDisabled",
                    Message::Text("scaling is disabled since the replica count of the target is zero"),
                    now,
                );
                if zero_conditions && !gate_on {
                    remove_condition(&mut result.status.conditions, SCALED_TO_ZERO);
                }
                result.outcome = SyncOutcome::ScalingDisabled;
            }
        } else if current > max {
            result.rescale_reason.push_str(REASON_ABOVE_MAX);
            desired = max;
            needs_metrics = false;
        } else if current < min {
            result.rescale_reason.push_str(REASON_BELOW_MIN);
            desired = min;
            needs_metrics = false;
        }

        // 7-8. Metrics and normalization.
        if needs_metrics {
            let answer = match input.prenormalized_desired {
                Some(replicas) => {
                    result.set_condition(
                        SCALING_ACTIVE,
                        TRUE,
                        "ValidMetricFound",
                        Message::Concat(VALID_METRIC_FOUND, PRENORMALIZED_METRIC_NAME),
                        now,
                    );
                    result.metric_name.push_str(PRENORMALIZED_METRIC_NAME);
                    MetricsAnswer { replicas, name: None, error: None, statuses: false }
                }
                None => {
                    let pods = pod_index.index(&input.pods);
                    // The resource metrics API's answer is matched once for every metric reading it.
                    let resource_metrics = match &input.resource_metrics {
                        Ok(items) if p.reads_resource_metrics => Ok(pods.matched(items, resource_entries)),
                        Ok(_) => Ok(pods.matched(&[], resource_entries)),
                        Err(e) => Err(e),
                    };
                    let mut sync = MetricsRun {
                        hpa,
                        p,
                        input,
                        scale,
                        result: &mut *result,
                        statuses: &mut *metric_statuses,
                        pods,
                        resource_metrics,
                        sample_entries,
                        workspace: &mut *workspace,
                    };
                    let answer = sync.compute_replicas_for_metrics();
                    if let Some(i) = answer.name {
                        result.metric_name.push_str(p.name(i));
                    }
                    answer
                }
            };
            result.metrics_error.clone_from(&answer.error);
            statuses = answer.statuses;
            if answer.replicas == -1
                && let Some(err) = answer.error
            {
                result.metric_name.clear();
                let desired = result.status.desired_replicas;
                set_status(result, metric_statuses, p, hpa, now, current, desired, statuses, false);
                result.error = Some(format!(
                    "failed to compute desired number of replicas based on listed metrics for {}: {err}",
                    reference(hpa)
                ));
                result.event(EventType::Warning, "FailedComputeMetricsReplicas", err);
                result.outcome = SyncOutcome::FailedComputeMetrics;
                return &self.result;
            }
            result.error.clone_from(&answer.error);
            result.metric_desired_replicas = Some(answer.replicas);

            let from_metric = answer.replicas > desired;
            if from_metric {
                desired = answer.replicas;
            }
            if desired > current {
                let metric = if from_metric { result.metric_name.as_str() } else { "" };
                Message::Concat(metric, " above target").write_into(&mut result.rescale_reason);
            }
            if desired < current {
                result.rescale_reason.clear();
                result.rescale_reason.push_str("All metrics below target");
            }
            let n = normalize(state, p.behavior.as_ref(), config, p.calc.release, max, current, desired, min, now);
            result.set_condition(
                ABLE_TO_SCALE,
                TRUE,
                n.stabilization_reason,
                Message::Text(n.stabilization_message),
                now,
            );
            let status = if n.scaling_limited { TRUE } else { FALSE };
            result.set_condition(SCALING_LIMITED, status, n.limited.reason, Message::Text(n.limited.message), now);
            desired = n.limited.replicas;
            result.normalization = Some(n);
            if current == 0 && min != 0 && scaled_to_zero && desired < min {
                desired = min;
                result.raised_to_min_from_zero = true;
                if result.rescale_reason.is_empty() {
                    result.rescale_reason.push_str(REASON_BELOW_MIN);
                }
            }
            rescale = desired != current;
        }

        // 9. Act.
        if rescale {
            result.rescale_to = Some(desired);
            let conflict = input.scale_update_conflict.as_ref();
            let update_error = match conflict {
                Some(c) if !p.calc.release.retry_scale_update_on_conflict => Some(c),
                _ => input.scale_update_error.as_ref(),
            };
            if let Some(err) = update_error {
                let msg = format!("New size: {desired}; reason: {}; error: {err}", result.rescale_reason);
                result.event(EventType::Warning, "FailedRescale", msg);
                result.set_condition(
                    ABLE_TO_SCALE,
                    FALSE,
                    "FailedUpdateScale",
                    Message::Concat("the HPA controller was unable to update the target scale: ", &err.0),
                    now,
                );
                let old = result.status.desired_replicas;
                set_status(result, metric_statuses, p, hpa, now, current, old, statuses, false);
                result.outcome = SyncOutcome::FailedUpdateScale;
                result.error = Some(format!("failed to rescale {}: {err}", reference(hpa)));
                return &self.result;
            }
            result.set_condition(
                ABLE_TO_SCALE,
                TRUE,
                "SucceededRescale",
                Message::Count("the HPA controller was able to update the target scale to ", desired),
                now,
            );
            let mut buf = [0u8; 11];
            let size = decimal(desired, &mut buf);
            let mut msg = String::with_capacity(28 + size.len() + result.rescale_reason.len());
            for part in ["New size: ", size, "; reason: ", &result.rescale_reason] {
                msg.push_str(part);
            }
            result.event(EventType::Normal, "SuccessfulRescale", msg);
            let stored = behavior::store_scale_event(
                p.behavior.as_ref(),
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
            // No ScaledToZero condition before 1.36.
            if zero_conditions && gate_on {
                if current > 0 && desired == 0 && min == 0 && p.object_or_external {
                    result.set_condition(
                        SCALED_TO_ZERO,
                        TRUE,
                        "ScaledToZero",
                        Message::Text("the HPA controller scaled the workload to zero"),
                        now,
                    );
                } else {
                    result.set_condition(
                        SCALED_TO_ZERO,
                        FALSE,
                        "NotScaledToZero",
                        Message::Text("the HPA controller did not scale the workload to zero"),
                        now,
                    );
                }
            } else if zero_conditions {
                remove_condition(&mut result.status.conditions, SCALED_TO_ZERO);
            }
            result.rescaled = true;
            result.outcome = SyncOutcome::Rescaled;
        } else {
            desired = current;
        }

        // 10. Status.
        set_status(result, metric_statuses, p, hpa, now, current, desired, statuses, rescale);
        &self.result
    }
}

/// `setStatus`: rebuilds the status (observedGeneration reset, set again under gate
/// `HPAGeneration`); `lastScaleTime` moves to now on a rescale; `status.currentMetrics` is the
/// list `computeReplicasForMetrics` built (`statuses`), or nil.
#[allow(clippy::too_many_arguments)]
fn set_status(
    result: &mut SyncResult,
    metric_statuses: &mut Vec<MetricStatus>,
    p: &Prepared<'_>,
    hpa: &HorizontalPodAutoscaler,
    now: Timestamp,
    current: i32,
    desired: i32,
    statuses: bool,
    rescale: bool,
) {
    let status = &mut result.status;
    status.observed_generation = p.generation.then_some(hpa.metadata.generation);
    if rescale {
        status.last_scale_time = Some(now.to_api_time());
    }
    status.current_replicas = current;
    status.desired_replicas = desired;
    match (&mut status.current_metrics, statuses) {
        (Some(list), true) => std::mem::swap(list, metric_statuses),
        (none @ None, true) => *none = Some(std::mem::take(metric_statuses)),
        (slot, false) => {
            if let Some(list) = slot.take() {
                *metric_statuses = list;
            }
        }
    }
    result.desired_replicas = desired;
}

/// `computeReplicasForMetrics` and the functions it calls, with what they read.
struct MetricsRun<'r, 'a> {
    hpa: &'a HorizontalPodAutoscaler,
    p: &'r Prepared<'a>,
    input: &'r SyncInput,
    scale: &'r Scale,
    result: &'r mut SyncResult,
    /// `status.currentMetrics` as it is built.
    statuses: &'r mut Vec<MetricStatus>,
    pods: Pods<'r>,
    /// The resource metrics API's answer, matched to the pods.
    resource_metrics: Result<Matched<'r, PodMetricsItem>, &'r ReadError>,
    /// A buffer for matching a Pods metric's samples.
    sample_entries: &'r mut Vec<usize>,
    workspace: &'r mut Workspace,
}

impl MetricsRun<'_, '_> {
    fn now(&self) -> Timestamp {
        self.input.now
    }

    fn namespace(&self) -> &str {
        &self.hpa.metadata.namespace
    }

    /// `computeReplicasForMetrics`.
    fn compute_replicas_for_metrics(&mut self) -> MetricsAnswer {
        let now = self.now();
        let hard = |error: String| MetricsAnswer { replicas: -1, name: None, error: Some(error), statuses: false };
        let selector = &self.scale.selector;
        // validateAndParseSelector
        if selector.is_empty() {
            let msg = "selector is required";
            self.result.event(EventType::Warning, "SelectorRequired", msg.to_string());
            self.result.set_condition(
                SCALING_ACTIVE,
                FALSE,
                "InvalidSelector",
                Message::Text("the HPA target's scale is missing a selector"),
                now,
            );
            return hard(msg.to_string());
        }
        if let Some(e) = &self.input.selector_parse_error {
            let msg = format!("couldn't convert selector into a corresponding internal selector object: {e}");
            self.result.event(EventType::Warning, "InvalidSelector", msg.clone());
            self.result.set_condition(SCALING_ACTIVE, FALSE, "InvalidSelector", Message::Text(&msg), now);
            return hard(msg);
        }
        if !self.input.other_hpas_selecting_pods.is_empty() {
            let meta = &self.hpa.metadata;
            let mut keys = vec![format!("{}/{}", meta.namespace, meta.name)];
            keys.extend(self.input.other_hpas_selecting_pods.iter().cloned());
            let msg = format!("pods by selector {selector} are controlled by multiple HPAs: [{}]", keys.join(" "));
            self.result.event(EventType::Warning, "AmbiguousSelector", msg.clone());
            self.result.set_condition(SCALING_ACTIVE, FALSE, "AmbiguousSelector", Message::Text(&msg), now);
            return hard(msg);
        }

        let specs = &self.p.metrics;
        self.statuses.truncate(specs.len());
        self.statuses.resize_with(specs.len(), MetricStatus::default);
        let mut invalid = 0usize;
        let mut first_failure: Option<usize> = None;
        let mut replicas = 0i32;
        let mut name = None;
        for (i, spec) in specs.iter().enumerate() {
            self.workspace.forget();
            match self.compute_replicas_for_metric(i, spec) {
                Err(f) => {
                    let condition = self.unable_to_compute(f.reason, &f.condition_error);
                    let evaluation = self.result.evaluation(i);
                    evaluation.index = i;
                    assign_str(&mut evaluation.source_type, &spec.type_);
                    evaluation.name.clear();
                    evaluation.proposal = None;
                    evaluation.failure_condition = Some(Box::new(condition));
                    evaluation.error = Some(f.error);
                    evaluation.cause = f.cause.map(|c| *c);
                    evaluation.current = None;
                    evaluation.timestamp = None;
                    evaluation.usage_ratio = None;
                    evaluation.corrected_ratio = None;
                    if let Some(slot) = self.statuses.get_mut(i) {
                        *slot = MetricStatus::default();
                    }
                    if invalid == 0 {
                        first_failure = Some(i);
                    }
                    invalid += 1;
                }
                Ok(p) => {
                    if let Some(slot) = self.statuses.get_mut(i) {
                        assign_metric_status(slot, spec, &p.current);
                    }
                    if takes_proposal(replicas, p.replicas) {
                        replicas = p.replicas;
                        name = Some(i);
                    }
                    let metric_name = self.p.name(i);
                    let evaluation = self.result.evaluation(i);
                    evaluation.index = i;
                    assign_str(&mut evaluation.source_type, &spec.type_);
                    assign_str(&mut evaluation.name, metric_name);
                    evaluation.proposal = Some(p.replicas);
                    evaluation.error = None;
                    evaluation.cause = None;
                    evaluation.failure_condition = None;
                    evaluation.current = Some(p.current);
                    evaluation.timestamp = p.timestamp;
                    evaluation.usage_ratio = Some(p.ratio);
                    evaluation.corrected_ratio = p.corrected_ratio;
                }
            }
            // What the calculator's grouping of the pods decided, for this metric.
            let evaluation = self.result.evaluation(i);
            evaluation.ready_pods = self.workspace.ready_count();
            self.workspace.set_aside(self.pods, &mut evaluation.set_aside);
        }
        let first = first_failure.and_then(|i| self.result.metrics().get(i));
        let error = first.map(|f| {
            format!(
                "invalid metrics ({invalid} invalid out of {}), first error is: {}",
                specs.len(),
                f.error.as_deref().unwrap_or_default()
            )
        });
        if invalid >= specs.len() || (invalid > 0 && replicas < self.scale.spec_replicas) {
            if let Some(c) = first.and_then(|f| f.failure_condition.as_deref().cloned()) {
                self.result.set_condition(&c.type_, &c.status, &c.reason, Message::Text(&c.message), now);
            }
            self.result.blocked_desired_replicas = (invalid < specs.len()).then_some(replicas);
            return MetricsAnswer { replicas: -1, name: None, error, statuses: true };
        }
        let metric = name.map_or("", |i| self.p.name(i));
        self.result.set_condition(
            SCALING_ACTIVE,
            TRUE,
            "ValidMetricFound",
            Message::Concat(VALID_METRIC_FOUND, metric),
            now,
        );
        MetricsAnswer { replicas, name, error, statuses: true }
    }

    /// `getUnableComputeReplicaCountCondition`: records the event and builds the condition.
    fn unable_to_compute(&mut self, reason: &'static str, err: &str) -> HorizontalPodAutoscalerCondition {
        self.result.event(EventType::Warning, reason, err.to_string());
        HorizontalPodAutoscalerCondition {
            type_: SCALING_ACTIVE.into(),
            status: FALSE.into(),
            reason: reason.into(),
            message: format!("the HPA was unable to compute the replica count: {err}"),
            ..Default::default()
        }
    }

    /// `computeReplicasForMetric`.
    fn compute_replicas_for_metric(&mut self, i: usize, spec: &MetricSpec) -> Result<Proposal, Failure> {
        let spec_replicas = self.scale.spec_replicas;
        match spec.type_.as_str() {
            "Object" => {
                // `metav1.LabelSelectorAsSelector(spec.Object.Metric.Selector)` comes first.
                match self.p.selector_error(i) {
                    Some(e) => Err(Failure::same("FailedGetObjectMetric", e.to_string())),
                    None => self.compute_status_for_object_metric(spec),
                }
                .map_err(|f| f.prefixed(format_args!("failed to get object metric value")))
            }
            "Pods" => match self.p.selector_error(i) {
                Some(e) => Err(Failure::same("FailedGetPodsMetric", e.to_string())),
                None => self.compute_status_for_pods_metric(spec, spec_replicas),
            }
            .map_err(|f| f.prefixed(format_args!("failed to get pods metric value"))),
            "Resource" => {
                let resource = spec.resource.as_ref().map_or("", |r| r.name.as_str());
                self.compute_status_for_resource_metric(spec, spec_replicas)
                    .map_err(|f| f.prefixed(format_args!("failed to get {resource} resource metric value")))
            }
            "ContainerResource" => {
                let container = spec.container_resource.as_ref().map_or("", |r| r.container.as_str());
                self.compute_status_for_container_resource_metric(spec, spec_replicas)
                    .map_err(|f| f.prefixed(format_args!("failed to get {container} container metric value")))
            }
            "External" => {
                let metric = spec.external.as_ref().map_or("", |e| e.metric.name.as_str());
                self.compute_status_for_external_metric(spec, self.p.selector_error(i))
                    .map_err(|f| f.prefixed(format_args!("failed to get {metric} external metric value")))
            }
            other => Err(Failure::same(
                "InvalidMetricSourceType",
                format!("unknown metric source type {}", crate::go::quote(other)),
            )),
        }
    }

    /// A metric whose type names a source that is not set (Go would dereference nil;
    /// validation makes it impossible).
    fn missing_source(reason: &'static str, field: &str) -> Failure {
        Failure::same(reason, format!("invalid metric source: the {field} source is not set"))
    }

    /// `computeStatusForObjectMetric`.
    fn compute_status_for_object_metric(&mut self, spec: &MetricSpec) -> Result<Proposal, Failure> {
        const REASON: &str = "FailedGetObjectMetric";
        let Some(obj) = &spec.object else { return Err(Self::missing_source(REASON, "object")) };
        // The calculator takes the error as text: `GetObjectMetric`'s error, wrapped by it.
        let sample = self.object_sample(&obj.described_object, &obj.metric).map_err(|e| match e {
            ObjectSampleError::Read(read) => read,
            not_found => ReadError(not_found.to_string()),
        });
        let sample = sample.as_ref().map(|s| *s);
        let target = &obj.target;
        let calc = &self.p.calc;
        let tolerances = self.p.tolerances;
        if target.type_ == "Value"
            && let Some(value) = &target.value
        {
            return match calc.get_object_metric_replicas(
                self.scale.spec_replicas,
                calc.release.milli_value(value),
                &obj.metric.name,
                tolerances,
                self.namespace(),
                &obj.described_object,
                sample,
                self.pods.list(),
            ) {
                Ok(r) => Ok(Proposal::of(r, value_status(Quantity::from_milli(r.usage_milli)))),
                Err(e) => Err(Failure::calc(REASON, e)),
            };
        }
        if target.type_ == "AverageValue"
            && let Some(average) = &target.average_value
        {
            return match calc.get_object_per_pod_metric_replicas(
                self.scale.status_replicas,
                calc.release.milli_value(average),
                &obj.metric.name,
                tolerances,
                self.namespace(),
                &obj.described_object,
                sample,
            ) {
                Ok(r) => Ok(Proposal::of(r, average_status(Quantity::from_milli(r.usage_milli)))),
                Err(e) => {
                    let error = format!("failed to get {} object metric: {e}", obj.metric.name);
                    Err(Failure::calc_wrapped(REASON, e, error))
                }
            };
        }
        let err = "invalid object metric source: neither a value target nor an average value target was set";
        Err(Failure::same(REASON, err.to_string()))
    }

    /// `computeStatusForPodsMetric`.
    fn compute_status_for_pods_metric(&mut self, spec: &MetricSpec, spec_replicas: i32) -> Result<Proposal, Failure> {
        const REASON: &str = "FailedGetPodsMetric";
        let Some(pods) = &spec.pods else { return Err(Self::missing_source(REASON, "pods")) };
        let Some(target) = &pods.target.average_value else {
            let err = "invalid pods metric source: no average value target was set";
            return Err(Failure::same(REASON, err.to_string()));
        };
        let id = MetricId::of(&pods.metric);
        let failed = self.input.metric_error(|| MetricQuery::Pods { metric: id.clone() });
        let samples = match (&self.input.pods_metrics, failed) {
            (_, Some(e)) | (Err(e), None) => Err(e),
            (Ok(m), None) => {
                let samples = m.get(&id).map_or(&[][..], Vec::as_slice);
                Ok(self.pods.matched(samples, self.sample_entries))
            }
        };
        match self.p.calc.get_metric_replicas(
            self.workspace,
            self.input.now,
            spec_replicas,
            self.p.calc.release.milli_value(target),
            &pods.metric.name,
            self.p.tolerances,
            samples,
        ) {
            Ok(r) => Ok(Proposal::of(r, average_status(Quantity::from_milli(r.usage_milli)))),
            Err(e) => Err(Failure::calc(REASON, e)),
        }
    }

    /// `computeStatusForResourceMetricGeneric`: the proposal, or the error (the callers build
    /// the condition).
    fn compute_status_for_resource_metric_generic(
        &mut self,
        spec_replicas: i32,
        target: &MetricTarget,
        resource: &str,
        container: &str,
    ) -> Result<Proposal, ResourceMetricError> {
        // `buildQuantity` (from 1.34): memory in BinarySI; 1.33 renders every resource in DecimalSI.
        let binary = resource == RESOURCE_MEMORY && self.p.calc.release.memory_binary_si;
        let format = if binary { Format::BinarySI } else { Format::DecimalSI };
        let metrics = self.resource_metrics;
        if let Some(average) = &target.average_value {
            let r = self
                .p
                .calc
                .get_raw_resource_replicas(
                    self.workspace,
                    self.input.now,
                    spec_replicas,
                    self.p.calc.release.milli_value(average),
                    resource,
                    container,
                    self.p.tolerances,
                    metrics,
                )
                .map_err(|e| ResourceMetricError::Usage { resource: resource.to_string(), error: Box::new(e) })?;
            let status = average_status(Quantity::from_milli_with_format(r.usage_milli, format));
            return Ok(Proposal::of(r, status));
        }
        let Some(target_utilization) = target.average_utilization else {
            return Err(ResourceMetricError::NoTarget);
        };
        let r = self
            .p
            .calc
            .get_resource_replicas(
                self.workspace,
                self.input.now,
                spec_replicas,
                target_utilization,
                resource,
                container,
                self.p.tolerances,
                metrics,
            )
            .map_err(|e| ResourceMetricError::Utilization { resource: resource.to_string(), error: Box::new(e) })?;
        let status = MetricValueStatus {
            average_utilization: Some(r.utilization),
            average_value: Some(Quantity::from_milli_with_format(r.raw_value_milli, format)),
            ..Default::default()
        };
        Ok(Proposal {
            replicas: r.replicas,
            current: status,
            timestamp: Some(r.timestamp),
            ratio: r.ratio,
            corrected_ratio: r.corrected_ratio,
        })
    }

    /// `computeStatusForResourceMetric`.
    fn compute_status_for_resource_metric(
        &mut self,
        spec: &MetricSpec,
        spec_replicas: i32,
    ) -> Result<Proposal, Failure> {
        const REASON: &str = "FailedGetResourceMetric";
        let Some(res) = &spec.resource else { return Err(Self::missing_source(REASON, "resource")) };
        self.compute_status_for_resource_metric_generic(spec_replicas, &res.target, &res.name, "")
            .map_err(|e| e.into_failure(REASON))
    }

    /// `computeStatusForContainerResourceMetric`.
    fn compute_status_for_container_resource_metric(
        &mut self,
        spec: &MetricSpec,
        spec_replicas: i32,
    ) -> Result<Proposal, Failure> {
        const REASON: &str = "FailedGetContainerResourceMetric";
        let Some(res) = &spec.container_resource else {
            return Err(Self::missing_source(REASON, "containerResource"));
        };
        self.compute_status_for_resource_metric_generic(spec_replicas, &res.target, &res.name, &res.container)
            .map_err(|e| e.into_failure(REASON))
    }

    /// `computeStatusForExternalMetric`.
    ///
    /// `refused`: why `metav1.LabelSelectorAsSelector` refuses the metric's selector, which
    /// fails either target before the external metrics API is asked.
    fn compute_status_for_external_metric(
        &mut self,
        spec: &MetricSpec,
        refused: Option<&str>,
    ) -> Result<Proposal, Failure> {
        const REASON: &str = FAILED_GET_EXTERNAL_METRIC;
        let Some(ext) = &spec.external else { return Err(Self::missing_source(REASON, "external")) };
        let id = MetricId::of(&ext.metric);
        let failed = self.input.metric_error(|| MetricQuery::External { metric: id.clone() });
        let values = match (&self.input.external_metrics, failed) {
            (_, Some(e)) | (Err(e), None) => Err(e),
            (Ok(m), None) => Ok(m.get(&id).map_or(&[][..], Vec::as_slice)),
        };
        let selector = ext.metric.selector.as_ref();
        let calc = &self.p.calc;
        // Each target fails in its own words (upstream's two branches word them apart).
        if let Some(average) = &ext.target.average_value {
            let error = |e: &dyn fmt::Display| format!("failed to get {} external metric: {e}", ext.metric.name);
            return external_proposal(refused, error, average_status, || {
                calc.get_external_per_pod_metric_replicas(
                    self.scale.status_replicas,
                    calc.release.milli_value(average),
                    &ext.metric.name,
                    self.p.tolerances,
                    self.namespace(),
                    selector,
                    values,
                )
            });
        }
        if let Some(value) = &ext.target.value {
            let error = |e: &dyn fmt::Display| format!("failed to get external metric {}: {e}", ext.metric.name);
            return external_proposal(refused, error, value_status, || {
                calc.get_external_metric_replicas(
                    self.scale.spec_replicas,
                    calc.release.milli_value(value),
                    &ext.metric.name,
                    self.p.tolerances,
                    self.namespace(),
                    selector,
                    values,
                    self.pods.list(),
                )
            });
        }
        let err = "invalid external metric source: neither a value target nor an average value target was set";
        Err(Failure::same(REASON, err.to_string()))
    }

    /// The custom metrics API's answer for one object.
    fn object_sample(
        &self,
        object: &CrossVersionObjectReference,
        metric: &MetricIdentifier,
    ) -> Result<ObjectSample, ObjectSampleError> {
        let id = MetricId::of(metric);
        let query = || MetricQuery::object(metric, object);
        if let Some(e) = self.input.metric_error(query) {
            return Err(ObjectSampleError::Read(e.clone()));
        }
        let values = self.input.object_metrics.as_ref().map_err(|e| ObjectSampleError::Read(e.clone()))?;
        fn group(api_version: &str) -> &str {
            GroupVersion::parse_or_empty(api_version).group()
        }
        let wanted = group(&object.api_version);
        values
            .iter()
            .find(|v| {
                v.metric == id
                    && v.described_object.kind == object.kind
                    && v.described_object.name == object.name
                    && group(&v.described_object.api_version) == wanted
            })
            .map(|v| ObjectSample { value_milli: v.value_milli, timestamp: v.timestamp })
            .ok_or_else(|| ObjectSampleError::NotFound {
                metric: metric.name.to_string(),
                kind: object.kind.clone(),
                name: object.name.clone(),
            })
    }
}

/// The reason of an External metric's failures.
const FAILED_GET_EXTERNAL_METRIC: &str = "FailedGetExternalMetric";

/// One target of an External metric, either branch of `computeStatusForExternalMetric`: a
/// selector `metav1.LabelSelectorAsSelector` refuses (`refused`) fails it before the external
/// metrics API is asked, the calculator's error after (`FailedGetExternalMetric`, the returned
/// error worded by `error`); the calculator's result is the proposal, its usage written by
/// `status`.
fn external_proposal(
    refused: Option<&str>,
    error: impl Fn(&dyn fmt::Display) -> String,
    status: fn(Quantity) -> MetricValueStatus,
    calc: impl FnOnce() -> Result<super::replicas::MetricReplicas, CalcError>,
) -> Result<Proposal, Failure> {
    const REASON: &str = FAILED_GET_EXTERNAL_METRIC;
    if let Some(e) = refused {
        return Err(Failure { reason: REASON, condition_error: e.to_string(), error: error(&e), cause: None });
    }
    match calc() {
        Ok(r) => Ok(Proposal::of(r, status(Quantity::from_milli(r.usage_milli)))),
        Err(e) => {
            let error = error(&e);
            Err(Failure::calc_wrapped(REASON, e, error))
        }
    }
}

/// A `value` observation.
fn value_status(q: Quantity) -> MetricValueStatus {
    MetricValueStatus { value: Some(q), ..Default::default() }
}

/// An `averageValue` observation.
fn average_status(q: Quantity) -> MetricValueStatus {
    MetricValueStatus { average_value: Some(q), ..Default::default() }
}

/// Writes into `slot` the `status.currentMetrics` entry `computeStatusFor*Metric` builds for
/// `spec` with the observed value `current`, reusing the strings `slot` holds.
fn assign_metric_status(slot: &mut MetricStatus, spec: &MetricSpec, current: &MetricValueStatus) {
    assign_str(&mut slot.type_, &spec.type_);
    let MetricStatus { object, pods, resource, container_resource, external, .. } = slot;
    let identifier = |slot: &mut MetricIdentifier, m: &MetricIdentifier| {
        if slot.name != m.name {
            slot.name.clone_from(&m.name);
        }
        if slot.selector != m.selector {
            slot.selector.clone_from(&m.selector);
        }
    };
    let of_type = |type_: &str| spec.type_ == type_;
    reuse(object, spec.object.as_ref().filter(|_| of_type("Object")), |s, src| {
        identifier(&mut s.metric, &src.metric);
        s.current.clone_from(current);
        let d = &mut s.described_object;
        assign_str(&mut d.kind, &src.described_object.kind);
        assign_str(&mut d.name, &src.described_object.name);
        assign_str(&mut d.api_version, &src.described_object.api_version);
    });
    reuse(pods, spec.pods.as_ref().filter(|_| of_type("Pods")), |s, src| {
        identifier(&mut s.metric, &src.metric);
        s.current.clone_from(current);
    });
    reuse(resource, spec.resource.as_ref().filter(|_| of_type("Resource")), |s, src| {
        assign_str(&mut s.name, &src.name);
        s.current.clone_from(current);
    });
    reuse(container_resource, spec.container_resource.as_ref().filter(|_| of_type("ContainerResource")), |s, src| {
        assign_str(&mut s.name, &src.name);
        assign_str(&mut s.container, &src.container);
        s.current.clone_from(current);
    });
    reuse(external, spec.external.as_ref().filter(|_| of_type("External")), |s, src| {
        identifier(&mut s.metric, &src.metric);
        s.current.clone_from(current);
    });
}

/// Fills `slot` from `source` with `fill`, reusing what `slot` holds, or empties it when there
/// is no source (a status source of another type than the metric's).
fn reuse<T: Default, U>(slot: &mut Option<T>, source: Option<&U>, fill: impl FnOnce(&mut T, &U)) {
    match source {
        Some(source) => fill(slot.get_or_insert_with(Default::default), source),
        None => *slot = None,
    }
}

/// Sets `dst` to `src`, reusing its buffer.
fn assign_str(dst: &mut String, src: &str) {
    if dst != src {
        dst.clear();
        dst.push_str(src);
    }
}

/// A condition message (or another text of a sync), written without formatting machinery.
#[derive(Debug, Clone, Copy)]
enum Message<'m> {
    /// A text.
    Text(&'m str),
    /// A text, then another.
    Concat(&'m str, &'m str),
    /// A text, then a count.
    Count(&'m str, i32),
}

impl Message<'_> {
    /// Sets `dst` to the message, reusing its buffer (and leaving it alone when it already
    /// holds the message).
    fn write_into(self, dst: &mut String) {
        match self {
            Message::Text(text) => assign_str(dst, text),
            Message::Concat(a, b) => {
                if !(dst.len() == a.len() + b.len() && dst.starts_with(a) && dst.ends_with(b)) {
                    dst.clear();
                    dst.push_str(a);
                    dst.push_str(b);
                }
            }
            Message::Count(a, n) => {
                let mut buf = [0u8; 11];
                Message::Concat(a, decimal(n, &mut buf)).write_into(dst);
            }
        }
    }
}

/// `n` in decimal, written at the end of `buf`.
fn decimal(n: i32, buf: &mut [u8; 11]) -> &str {
    let mut start = buf.len();
    let mut v = n.unsigned_abs();
    let mut put = |byte: u8| {
        start -= 1;
        if let Some(b) = buf.get_mut(start) {
            *b = byte;
        }
    };
    loop {
        // `v % 10` is a digit.
        put(b'0' + (v % 10) as u8);
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        put(b'-');
    }
    std::str::from_utf8(buf.get(start..).unwrap_or_default()).unwrap_or_default()
}

/// The normalization of one sync: `normalizeDesiredReplicas` when `behavior` is `None` (the
/// legacy path), else `normalizeDesiredReplicasWithBehaviors`. Stabilization first (it records
/// the prenormalized count in `state`), then the limits ([`limit`]).
///
/// The conditions the Go functions set follow from the result: AbleToScale=True with
/// [`Normalization::stabilization_reason`], then ScalingLimited (True when
/// [`Normalization::scaling_limited`]) with the limit's reason.
#[allow(clippy::too_many_arguments)]
fn normalize(
    state: &mut ControllerState,
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    opts: &HPAControllerConfiguration,
    release: ControllerRelease,
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
            legacy_stabilized(behavior::stabilize_recommendation_held(recommendations, prenormalized, window, now))
        }
        Some(b) => {
            let args = normalization_args(b, max, current, prenormalized, min, release);
            behavior::stabilize_recommendation_with_behaviors(recommendations, &args, now)
        }
    };
    limit(state, behavior, opts, release, max, current, prenormalized, min, now, stabilized)
}

/// `stabilizeRecommendation`'s count, with the reason the legacy path reports when it differs
/// from the prenormalized count.
fn legacy_stabilized((replicas, held_by): (i32, Option<TimestampedRecommendation>)) -> Stabilized {
    let (reason, message) = SCALE_DOWN_STABILIZED;
    Stabilized { replicas, reason, message, held_by }
}

/// Rules with nothing set: what an unset `scaleUp` or `scaleDown` counts as.
static NO_RULES: HPAScalingRules =
    HPAScalingRules { stabilization_window_seconds: None, select_policy: None, policies: None, tolerance: None };

/// `NormalizationArg` of `normalizeDesiredReplicasWithBehaviors` (an unset rule counts as
/// empty; defaulting sets both).
fn normalization_args(
    behavior: &HorizontalPodAutoscalerBehavior,
    max: i32,
    current: i32,
    prenormalized: i32,
    min: i32,
    release: ControllerRelease,
) -> NormalizationArgs<'_> {
    NormalizationArgs {
        scale_up: behavior.scale_up.as_ref().unwrap_or(&NO_RULES),
        scale_down: behavior.scale_down.as_ref().unwrap_or(&NO_RULES),
        min_replicas: min,
        max_replicas: max,
        current_replicas: current,
        desired_replicas: prenormalized,
        release,
    }
}

/// The second half of normalization, after stabilization: the AbleToScale reason (the
/// stabilization's reason when it changed the count, else `ReadyForNewScale`), then
/// `convertDesiredReplicasWithRules` (legacy path, `behavior` is `None`) or
/// `convertDesiredReplicasWithBehaviorRate` (with the scale events in `state`).
#[allow(clippy::too_many_arguments)]
fn limit(
    state: &ControllerState,
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    opts: &HPAControllerConfiguration,
    release: ControllerRelease,
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
        return normalization(NormalizationPath::Legacy, prenormalized, stabilized, ability, limited);
    };
    let mut args = normalization_args(b, max, current, prenormalized, min, release);
    args.desired_replicas = stabilized.replicas;
    let limited = behavior::convert_desired_replicas_with_behavior_rate(
        &args,
        &state.scale_up_events,
        &state.scale_down_events,
        now,
    );
    normalization(NormalizationPath::Behavior, prenormalized, stabilized, ability, limited)
}

/// The [`Normalization`] record shared by both paths.
fn normalization(
    path: NormalizationPath,
    prenormalized: i32,
    stabilized: Stabilized,
    (stabilization_reason, stabilization_message): (&'static str, &'static str),
    limited: Limited,
) -> Normalization {
    Normalization {
        path,
        prenormalized,
        stabilized: stabilized.replicas,
        held_by: stabilized.held_by.filter(|_| stabilized.replicas != prenormalized),
        stabilization_reason,
        stabilization_message,
        limited,
        scaling_limited: limited.replicas != stabilized.replicas,
    }
}

/// `setConditionInList`: overwrites the condition of that type in place, or appends it;
/// `lastTransitionTime` moves to `now` only when the status changes. The condition's strings
/// are rewritten in place.
fn set_condition_in(
    conditions: &mut Vec<HorizontalPodAutoscalerCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: Message<'_>,
    now: Timestamp,
) {
    let index = match conditions.iter().position(|c| c.type_ == type_) {
        Some(i) => i,
        None => {
            // Room for the controller's longer messages, so that rewriting one rarely grows it.
            conditions.push(HorizontalPodAutoscalerCondition {
                type_: type_.to_string(),
                message: String::with_capacity(128),
                ..Default::default()
            });
            conditions.len() - 1
        }
    };
    if let Some(c) = conditions.get_mut(index) {
        if c.status != status {
            c.last_transition_time = now.to_api_time();
        }
        assign_str(&mut c.status, status);
        assign_str(&mut c.reason, reason);
        message.write_into(&mut c.message);
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

/// The metrics the controller sees: `spec.metrics`, or the API default (cpu at 80 %) when
/// empty, since kube-apiserver defaults an empty list before the controller reads it.
pub fn effective_metrics(hpa: &HorizontalPodAutoscaler) -> Cow<'_, [MetricSpec]> {
    if hpa.spec.metrics.is_empty() {
        Cow::Owned(vec![defaults::default_metric()])
    } else {
        Cow::Borrowed(&hpa.spec.metrics)
    }
}

/// `reconcileAutoscaler` once: one sync of `hpa`, reading the status it holds and the
/// controller's memory `state` (updated). The returned [`SyncResult::status`] is the status to
/// carry into the next sync; [`Autoscaler`] does that itself, without copying the HPA.
pub fn reconcile_autoscaler(
    hpa: &HorizontalPodAutoscaler,
    state: &mut ControllerState,
    input: &SyncInput,
    config: &HPAControllerConfiguration,
) -> SyncResult {
    let mut autoscaler = Autoscaler::new(hpa, config).with_state(std::mem::take(state));
    autoscaler.reconcile(input);
    let Autoscaler { state: after, result, .. } = autoscaler;
    *state = after;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::{HPAScalingPolicy, HorizontalPodAutoscalerSpec, ObjectMetricSource, ResourceMetricSource};
    use crate::evaluator::replicas::{Container, ContainerUsage};
    use crate::features::{FeatureGates, KubernetesVersion};

    /// The Deployment `d` an Object metric describes.
    fn deployment_d() -> CrossVersionObjectReference {
        CrossVersionObjectReference { kind: "Deployment".into(), name: "d".into(), api_version: "apps/v1".into() }
    }

    /// An Object metric `qps` of `described` with a `Value` target of 15.
    fn qps_of(described: CrossVersionObjectReference) -> MetricSpec {
        MetricSpec {
            type_: "Object".into(),
            object: Some(Box::new(ObjectMetricSource {
                described_object: described,
                metric: MetricIdentifier { name: "qps".into(), selector: None },
                target: MetricTarget {
                    type_: "Value".into(),
                    value: Some(Quantity::from_milli(15_000)),
                    ..Default::default()
                },
            })),
            ..Default::default()
        }
    }

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
                pod: format!("p{i}").into(),
                timestamp: Timestamp::from_secs(t - 10),
                window_nanos: 15_000_000_000,
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
        r.conditions().iter().map(|c| (c.type_.clone(), c.reason.clone())).collect()
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
            let observed = r.metrics().first().and_then(|m| m.current.as_ref()).and_then(|c| c.average_utilization);
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
        assert_eq!(r.conditions()[0].message, "the HPA controller was unable to get the target's current scale: boom");
        assert_eq!(r.error.as_deref(), Some("failed to query scale subresource for Deployment//demo: boom"));
        // A kind the RESTMapper cannot map: the same event and condition, the mapper's words.
        let no_kind = "no matches for kind \"Web\" in group \"example.com\"";
        i.scale = Err(no_kind.into());
        i.scale_unmapped = true;
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        assert_eq!((r.outcome, r.desired_replicas), (SyncOutcome::FailedGetScale, 3));
        assert_eq!(
            r.conditions()[0].message,
            format!("the HPA controller was unable to get the target's current scale: {no_kind}")
        );
        assert_eq!(
            r.error.as_deref(),
            Some(format!("unable to determine resource for scale target reference: {no_kind}").as_str())
        );
    }

    #[test]
    fn scale_to_zero_and_back() {
        let mut opts = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::V1_37));
        opts.scale_up_limit_factor = 2.0;
        let mut hpa = cpu_hpa(0, 6, 50, None);
        hpa.spec.metrics = vec![qps_of(deployment_d())];
        let object = |v: i64| {
            Ok(vec![ObjectMetricValue {
                described_object: deployment_d(),
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
        assert!(scaled_to_zero_condition(r.conditions()));
        let mut up = input(15, 0, 0);
        up.object_metrics = object(20_000);
        let r = run(&mut hpa, &mut state, &up, &opts);
        assert_eq!(r.desired_replicas, 2);
        assert!(!scaled_to_zero_condition(r.conditions()));
    }

    /// Two Object metrics of one name on objects of one kind and name in two groups (a Service
    /// and a Knative Service `d`) are two requests (`GetObjectMetric` maps group and kind to a
    /// resource): each reads its own value (15 and 45 for a target of 15: 2 and 6 replicas on
    /// 2 ready pods), and one's failure is not the other's.
    #[test]
    fn object_metrics_of_one_name_in_two_groups_are_two_requests() {
        let opts = HPAControllerConfiguration::default();
        let mut hpa = cpu_hpa(1, 10, 50, None);
        let core = CrossVersionObjectReference { kind: "Service".into(), name: "d".into(), api_version: "v1".into() };
        let knative = CrossVersionObjectReference {
            kind: "Service".into(),
            name: "d".into(),
            api_version: "serving.knative.dev/v1".into(),
        };
        hpa.spec.metrics = vec![qps_of(core.clone()), qps_of(knative.clone())];
        let mut i = input(0, 2, 0);
        let value = |d: &CrossVersionObjectReference, v: i64| ObjectMetricValue {
            described_object: d.clone(),
            metric: "qps".into(),
            value_milli: v,
            timestamp: Timestamp::ZERO,
        };
        i.object_metrics = Ok(vec![value(&core, 15_000), value(&knative, 45_000)]);
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        let proposals: Vec<Option<i32>> = r.metrics().iter().map(|m| m.proposal).collect();
        assert_eq!(proposals, [Some(2), Some(6)]);
        let query = |d: &CrossVersionObjectReference| {
            MetricQuery::object(&MetricIdentifier { name: "qps".into(), selector: None }, d)
        };
        assert_ne!(query(&core), query(&knative));
        i.metric_errors.insert(query(&knative), ReadError::from("boom"));
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        let proposals: Vec<Option<i32>> = r.metrics().iter().map(|m| m.proposal).collect();
        assert_eq!(proposals, [Some(2), None]);
    }

    /// A failed request of one metric (the adapter's 404) fails that metric as the controller
    /// records it, though its API answered: the error wins over a value the answers hold.
    #[test]
    fn a_failed_metric_request_is_recorded_as_the_controller_records_it() {
        let opts = HPAControllerConfiguration::default();
        let mut hpa = cpu_hpa(1, 10, 50, None);
        hpa.metadata.namespace = "ns".into();
        let described = deployment_d();
        hpa.spec.metrics = vec![qps_of(described.clone())];
        let mut i = input(0, 2, 0);
        i.object_metrics = Ok(vec![ObjectMetricValue {
            described_object: described,
            metric: "qps".into(),
            value_milli: 1_000,
            timestamp: Timestamp::ZERO,
        }]);
        let query = MetricQuery::Object {
            metric: "qps".into(),
            group: "apps".into(),
            kind: "Deployment".into(),
            name: "d".into(),
        };
        let not_found = "the server could not find the metric qps for deployments.apps d";
        i.metric_errors.insert(query, ReadError::from(not_found));
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        let active = r.conditions().iter().find(|c| c.type_ == SCALING_ACTIVE).cloned().unwrap();
        assert_eq!(
            (active.status.as_str(), active.reason.as_str(), active.message.as_str()),
            (
                "False",
                "FailedGetObjectMetric",
                "the HPA was unable to compute the replica count: unable to get metric qps on Deployment ns/d: unable to fetch metrics from custom metrics API: the server could not find the metric qps for deployments.apps d"
            )
        );
        // Another object's error leaves this one answered.
        i.metric_errors = BTreeMap::from([(
            MetricQuery::Object {
                metric: "qps".into(),
                group: "apps".into(),
                kind: "Deployment".into(),
                name: "e".into(),
            },
            ReadError::from(not_found),
        )]);
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        let active = r.conditions().iter().find(|c| c.type_ == SCALING_ACTIVE).map(|c| c.reason.clone());
        assert_eq!(active.as_deref(), Some("ValidMetricFound"));
    }

    #[test]
    fn a_metric_selector_that_does_not_convert_fails_its_metric() {
        let opts = HPAControllerConfiguration::default();
        let mut hpa = cpu_hpa(1, 10, 50, None);
        hpa.metadata.namespace = "ns".into();
        let described = deployment_d();
        let mut metric = qps_of(described.clone());
        let in_without_values = LabelSelector {
            match_expressions: vec![crate::api::meta::LabelSelectorRequirement {
                key: "tier".into(),
                operator: "In".into(),
                values: vec![],
            }],
            ..Default::default()
        };
        if let Some(o) = metric.object.as_mut() {
            o.metric.selector = Some(in_without_values.clone());
        }
        hpa.spec.metrics = vec![metric];
        let mut i = input(0, 2, 0);
        // The custom metrics API would answer: the controller never asks it.
        i.object_metrics = Ok(vec![ObjectMetricValue {
            described_object: described,
            metric: MetricId { name: "qps".into(), selector: in_without_values.format() },
            value_milli: 100_000,
            timestamp: Timestamp::ZERO,
        }]);
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        let active = r.conditions().iter().find(|c| c.type_ == SCALING_ACTIVE).cloned().unwrap();
        assert_eq!(
            (active.status.as_str(), active.reason.as_str(), active.message.as_str()),
            (
                "False",
                "FailedGetObjectMetric",
                "the HPA was unable to compute the replica count: values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
            )
        );
        assert_eq!(r.outcome, SyncOutcome::FailedComputeMetrics);
        assert_eq!(
            r.metrics_error.as_deref(),
            Some(
                "invalid metrics (1 invalid out of 1), first error is: failed to get object metric value: values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
            )
        );
        // A selector that converts is asked for.
        if let Some(o) = hpa.spec.metrics.first_mut().and_then(|m| m.object.as_mut()) {
            o.metric.selector = None;
        }
        i.object_metrics = Ok(vec![ObjectMetricValue {
            described_object: deployment_d(),
            metric: "qps".into(),
            value_milli: 100_000,
            timestamp: Timestamp::ZERO,
        }]);
        let r = run(&mut hpa, &mut ControllerState::default(), &i, &opts);
        assert_eq!(r.outcome, SyncOutcome::Rescaled);
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
            let active = r.conditions().iter().find(|c| c.type_ == SCALING_ACTIVE).map(|c| c.reason.clone());
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
}
