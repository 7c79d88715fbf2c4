//! The replica calculator: from metric samples to a proposed replica count for one metric.
//!
//! Mirrors `pkg/controller/podautoscaler/replica_calculator.go` (`ReplicaCalculator`),
//! `metrics/utilization.go` and the sample aggregation of `metrics/client.go`. Every function
//! takes the data the Go code would have fetched (pods from the informer, metric samples from
//! the metrics APIs) plus the instant `now`, and returns what Go returns: the same replica
//! counts, the same integer and float64 arithmetic, the same error messages.
//!
//! What differs between releases (overflow, pod-level requests, Succeeded pods, error texts) is
//! decided once, in the calculator's [`ControllerRelease`]; the arithmetic reads its fields.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::controller::ReadError;
use super::gofmt;
use super::release::ControllerRelease;
use super::time::Timestamp;
use crate::api::{CrossVersionObjectReference, LabelSelector};
use crate::resources::{self, ContainerRole};

/// The resource whose samples are subject to the CPU readiness rules of [`group_pods`].
pub const RESOURCE_CPU: &str = "cpu";
/// The resource reported in BinarySI format in `status.currentMetrics`.
pub const RESOURCE_MEMORY: &str = "memory";
/// The window a custom-metrics sample gets when the adapter does not report one
/// (`metricServerDefaultMetricWindow`).
pub const DEFAULT_CUSTOM_METRIC_WINDOW: Duration = Duration::from_secs(60);

/// The metrics API a failed fetch went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricsApi {
    /// `metrics.k8s.io` (Resource, ContainerResource metrics).
    Resource,
    /// `custom.metrics.k8s.io` (Pods, Object metrics).
    Custom,
    /// `external.metrics.k8s.io` (External metrics).
    External,
}

impl fmt::Display for MetricsApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MetricsApi::Resource => "resource",
            MetricsApi::Custom => "custom",
            MetricsApi::External => "external",
        })
    }
}

/// A metrics client's failure (`metricsclient`'s `GetResourceMetric`, `GetRawMetric`,
/// `GetObjectMetric`, `GetExternalMetric`), with its exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricsApiError {
    /// The request failed: `unable to fetch metrics from custom metrics API: <client error>`.
    #[error("unable to fetch metrics from {api} metrics API: {error}")]
    Fetch {
        /// The API.
        api: MetricsApi,
        /// What the client returned.
        error: ReadError,
    },
    /// The answer is empty: `no metrics returned from resource metrics API`.
    #[error("no metrics returned from {api} metrics API")]
    Empty {
        /// The API.
        api: MetricsApi,
    },
}

/// An error of the replica calculator (`replica_calculator.go`): one variant per cause, whose
/// `Display` is the controller's exact message in the release the calculator runs (the
/// conformance vectors compare it byte for byte).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalcError {
    /// `getReadyPodsCount` and the calculator's functions with an empty pod list.
    #[error("no pods returned by selector while calculating replica count")]
    NoPods,
    /// No sample left once unready and ignored pods are removed.
    #[error("did not receive metrics for targeted pods (pods might be unready)")]
    NoReadySamples,
    /// No sample of a pod with a request (`GetResourceUtilizationRatio`).
    #[error("no metrics returned matched known pods")]
    NoMatchingSamples,
    /// `calculatePodRequestsFromContainers`: a container without a request for the resource.
    #[error("missing request for {resource} in container {container} of Pod {pod}")]
    MissingRequest {
        /// The resource.
        resource: String,
        /// The container.
        container: String,
        /// The pod.
        pod: String,
    },
    /// `calculatePodRequests` with pod-level resources: no request for the resource.
    #[error("missing pod-level request for {resource} in Pod {pod}")]
    MissingPodLevelRequest {
        /// The resource.
        resource: String,
        /// The pod.
        pod: String,
    },
    /// A ContainerResource metric's container is not in the pod.
    #[error("container {container} not found in Pod {pod}")]
    ContainerNotFound {
        /// The container.
        container: String,
        /// The pod.
        pod: String,
    },
    /// `GetResourceMetric` failed: `unable to get metrics for resource cpu: ...`.
    #[error("unable to get metrics for resource {resource}: {error}")]
    ResourceMetrics {
        /// The resource.
        resource: String,
        /// The client's failure.
        error: MetricsApiError,
    },
    /// `GetRawMetric` (a Pods metric) failed: `unable to get metric <name>: ...`.
    #[error("unable to get metric {metric}: {error}")]
    PodsMetric {
        /// The metric.
        metric: String,
        /// The client's failure.
        error: MetricsApiError,
    },
    /// `GetObjectMetric` failed: from 1.37 `unable to get metric <name> on <kind> <ns>/<name>: ...`,
    /// before Go's misordered `unable to get metric <name>: <kind> on <ns> <name>/...`.
    #[error("{}", object_fetch_text(*.in_order, .metric, .kind, .namespace, .name, .error))]
    ObjectMetric {
        /// The metric.
        metric: String,
        /// The described object's kind.
        kind: String,
        /// The HPA's namespace.
        namespace: String,
        /// The described object's name.
        name: String,
        /// Whether the release formats the message in order (1.37, #139029).
        in_order: bool,
        /// The client's failure (boxed: the variant is the largest).
        error: Box<MetricsApiError>,
    },
    /// `GetExternalMetric` failed: `unable to get external metric <ns>/<name>/<selector>: ...`.
    #[error("unable to get external metric {namespace}/{metric}/{selector}: {error}")]
    ExternalMetric {
        /// The HPA's namespace.
        namespace: String,
        /// The metric.
        metric: String,
        /// The metric's selector, as Go's `%v` prints it.
        selector: String,
        /// The client's failure.
        error: MetricsApiError,
    },
    /// `getUsageRatioReplicaCount`: the ready pods could not be counted.
    #[error("unable to calculate ready pods: {0}")]
    ReadyPods(Box<CalcError>),
}

impl CalcError {
    /// The innermost cause (through [`CalcError::ReadyPods`]).
    pub fn root(&self) -> &CalcError {
        match self {
            CalcError::ReadyPods(inner) => inner.root(),
            other => other,
        }
    }
}

/// `Tolerances`: how far the usage ratio may stray from 1.0 before the count changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    /// Allowed ratio below 1.0 (scale-down direction).
    pub scale_down: f64,
    /// Allowed ratio above 1.0 (scale-up direction).
    pub scale_up: f64,
}

impl Tolerances {
    /// The same tolerance in both directions (the controller flag).
    pub const fn uniform(tolerance: f64) -> Tolerances {
        Tolerances { scale_down: tolerance, scale_up: tolerance }
    }

    /// `Tolerances.isWithin`: `1 − down ≤ ratio ≤ 1 + up`, inclusive, in float64.
    pub fn is_within(&self, usage_ratio: f64) -> bool {
        (1.0 - self.scale_down) <= usage_ratio && usage_ratio <= (1.0 + self.scale_up)
    }
}

impl Default for Tolerances {
    /// The controller default both ways (`--horizontal-pod-autoscaler-tolerance`).
    fn default() -> Self {
        Tolerances::uniform(super::config::HPAControllerConfiguration::DEFAULT_TOLERANCE)
    }
}

/// `v1.PodPhase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PodPhase {
    /// `Pending`
    Pending,
    /// `Running`
    Running,
    /// `Succeeded`
    Succeeded,
    /// `Failed`
    Failed,
    /// `Unknown`, and any other value (the calculator treats them alike).
    Unknown,
}

impl PodPhase {
    /// Parses a phase; anything unrecognised (including `""`) is [`PodPhase::Unknown`].
    pub fn parse(s: &str) -> PodPhase {
        match s {
            "Pending" => PodPhase::Pending,
            "Running" => PodPhase::Running,
            "Succeeded" => PodPhase::Succeeded,
            "Failed" => PodPhase::Failed,
            _ => PodPhase::Unknown,
        }
    }

    /// The phase as Kubernetes spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
            PodPhase::Unknown => "Unknown",
        }
    }
}

/// `v1.ConditionStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConditionStatus {
    /// `True`
    True,
    /// `False`
    False,
    /// `Unknown` (and anything else)
    Unknown,
}

impl ConditionStatus {
    /// Parses a status; anything but `True` / `False` is [`ConditionStatus::Unknown`].
    pub fn parse(s: &str) -> ConditionStatus {
        match s {
            "True" => ConditionStatus::True,
            "False" => ConditionStatus::False,
            _ => ConditionStatus::Unknown,
        }
    }

    /// The status as Kubernetes spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

/// A pod's `Ready` condition (the first one, as `podutil.GetPodCondition` finds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadyCondition {
    /// `status`
    pub status: ConditionStatus,
    /// `lastTransitionTime`
    pub last_transition_time: Timestamp,
}

/// A container of a pod, as far as requests go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Container {
    /// `name`
    pub name: String,
    /// `resources.requests`, as `Quantity::milli_value()` per resource name; an absent key
    /// means no request for that resource.
    pub requests_milli: BTreeMap<String, i64>,
    /// `restartPolicy` (init containers only: `Always` marks a sidecar).
    pub restart_policy: Option<String>,
}

/// A pod matched by the scale target's selector, with what the calculator reads of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pod {
    /// `metadata.name` (shared with the samples of the pod, so that matching them to it is a
    /// pointer comparison when they share it).
    pub name: Arc<str>,
    /// `status.phase`
    pub phase: PodPhase,
    /// Whether `metadata.deletionTimestamp` is set.
    pub deleted: bool,
    /// `status.startTime` (`None` when absent).
    pub start_time: Option<Timestamp>,
    /// The `Ready` condition (`None` when the pod has none).
    pub ready_condition: Option<ReadyCondition>,
    /// `spec.containers`
    pub containers: Vec<Container>,
    /// `spec.initContainers`
    pub init_containers: Vec<Container>,
    /// Pod-level `spec.resources.requests` in milli-units; empty when not set.
    pub pod_requests_milli: BTreeMap<String, i64>,
    /// `spec.overhead` (set by admission from the RuntimeClass) in milli-units; empty when not
    /// set.
    pub overhead_milli: BTreeMap<String, i64>,
}

impl Pod {
    /// A running, ready pod started at Go's zero time (the upstream test fixture).
    pub fn running(name: impl Into<Arc<str>>) -> Pod {
        Pod {
            name: name.into(),
            phase: PodPhase::Running,
            deleted: false,
            start_time: Some(Timestamp::ZERO),
            ready_condition: Some(ReadyCondition {
                status: ConditionStatus::True,
                last_transition_time: Timestamp::ZERO,
            }),
            containers: Vec::new(),
            init_containers: Vec::new(),
            pod_requests_milli: BTreeMap::new(),
            overhead_milli: BTreeMap::new(),
        }
    }

    /// `podutil.IsPodReady`: the Ready condition exists with status True.
    pub fn is_ready(&self) -> bool {
        self.ready_condition.is_some_and(|c| c.status == ConditionStatus::True)
    }
}

/// One container's usage in a `PodMetrics` item.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerUsage {
    /// `name`
    pub name: String,
    /// `usage` per resource name, as `Quantity::milli_value()`.
    pub usage_milli: BTreeMap<String, i64>,
}

/// One item of the resource metrics API (`metrics.k8s.io/v1beta1` `PodMetrics`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodMetricsItem {
    /// `metadata.name` (the pod).
    pub pod: Arc<str>,
    /// `timestamp`
    pub timestamp: Timestamp,
    /// `window`, a `metav1.Duration`: Go's signed `time.Duration` in nanoseconds (a negative
    /// window decodes, and moves the readiness cutoff of [`group_pods`] earlier).
    pub window_nanos: i64,
    /// `containers`
    pub containers: Vec<ContainerUsage>,
}

/// One sample of a custom Pods metric (`custom.metrics.k8s.io` `MetricValue` of a pod).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSample {
    /// `describedObject.name` (the pod).
    pub pod: Arc<str>,
    /// `value`, as `Quantity::milli_value()`.
    pub value_milli: i64,
    /// `timestamp`
    pub timestamp: Timestamp,
    /// `windowSeconds`, signed as Go's `*int64` (`None`: [`DEFAULT_CUSTOM_METRIC_WINDOW`]).
    pub window_seconds: Option<i64>,
}

/// The value of an Object metric (`custom.metrics.k8s.io` `MetricValue` of one object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectSample {
    /// `value`, as `Quantity::milli_value()`.
    pub value_milli: i64,
    /// `timestamp`
    pub timestamp: Timestamp,
}

/// `metricsclient.PodMetric`: one pod's aggregated sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodMetric {
    /// When the sample was taken.
    pub timestamp: Timestamp,
    /// The window it covers: Go's signed `time.Duration`, in nanoseconds.
    pub window_nanos: i64,
    /// The value in milli-units.
    pub value: i64,
}

impl PodMetric {
    /// A synthetic sample (Go's `PodMetric{Value: v}`: zero time, zero window).
    pub fn value(value: i64) -> PodMetric {
        PodMetric { timestamp: Timestamp::ZERO, window_nanos: 0, value }
    }
}

/// `metricsclient.PodMetricsInfo`: pod name → sample.
pub type PodMetricsInfo = BTreeMap<String, PodMetric>;

/// The buckets of [`group_pods`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupedPods {
    /// Pods whose samples count.
    pub ready_count: usize,
    /// Pending pods, and (cpu only) pods not ready per the readiness rules.
    pub unready: BTreeSet<String>,
    /// Pods without a sample.
    pub missing: BTreeSet<String>,
    /// Deleted and failed pods.
    pub ignored: BTreeSet<String>,
}

/// A proposal of [`ReplicaCalculator::get_resource_replicas`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResourceReplicas {
    /// The proposed replica count.
    pub replicas: i32,
    /// The current utilization in integer percent of request (first pass).
    pub utilization: i32,
    /// The raw average usage in milli-units (first pass).
    pub raw_value_milli: i64,
    /// The timestamp of the first metrics item.
    pub timestamp: Timestamp,
    /// The usage ratio of the first pass (`usageRatio`: utilization / target).
    pub ratio: f64,
    /// The usage ratio of the second pass (`newUsageRatio`), when missing or unready pods made
    /// the calculator correct the first.
    pub corrected_ratio: Option<f64>,
}

/// A proposal of the calculator's other functions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricReplicas {
    /// The proposed replica count.
    pub replicas: i32,
    /// The usage reported in status, in milli-units.
    pub usage_milli: i64,
    /// The metric's timestamp, where the controller reports one.
    pub timestamp: Option<Timestamp>,
    /// The usage ratio the tolerance is judged on (`usageRatio`).
    pub ratio: f64,
    /// The usage ratio of the second pass, when missing or unready pods made the calculator
    /// correct the first (Pods metrics and Resource AverageValue targets).
    pub corrected_ratio: Option<f64>,
}

/// Why the replica calculator set a pod's sample aside (`groupPods`), or found none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetAsideReason {
    /// `metadata.deletionTimestamp` is set (ignored).
    Deleted,
    /// The phase is terminal (`Failed`; ignored).
    Terminal(PodPhase),
    /// The phase is `Pending` (unready, never missing).
    Pending,
    /// cpu only: the pod has no Ready condition or no start time (unready).
    NoReadiness,
    /// cpu only: within the CPU initialization period and not Ready (unready).
    Initializing,
    /// cpu only: within the CPU initialization period, Ready, but its sample was taken less
    /// than one metric window after it turned Ready (unready).
    StaleSample,
    /// cpu only: past the CPU initialization period, not Ready, and never Ready since it
    /// started (unready).
    NeverReady,
    /// No sample for the pod (missing).
    MissingMetrics,
}

/// A pod whose sample the calculator did not count as is, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAsidePod {
    /// The pod.
    pub pod: Arc<str>,
    /// Why.
    pub reason: SetAsideReason,
}

// === Samples and pods, matched by name ===

/// The pods' names, indexed for matching metric samples to pods the way the controller's maps
/// keyed by pod name match them: pods sharing a name share an entry, a sample belongs to the
/// entry of its pod's name, and a sample naming no listed pod gets an entry of its own.
///
/// [`PodIndex::index`] sorts the names, and does so again only when they differ from the names
/// it indexed last: a caller that keeps one index across syncs (as
/// [`Autoscaler`](super::controller::Autoscaler) does) pays one comparison per pod while the
/// pods stay the same.
#[derive(Debug, Clone, Default)]
pub struct PodIndex {
    /// The names indexed.
    names: Vec<Arc<str>>,
    /// Per pod, its entry.
    entries: Vec<usize>,
    /// Pod positions ordered by name (and by position among equal names).
    sorted: Vec<usize>,
    /// Per entry, its first pod.
    first: Vec<usize>,
}

impl PodIndex {
    /// Indexes `pods`, reusing the index when their names are the ones it holds.
    pub fn index<'p>(&'p mut self, pods: &'p [Pod]) -> Pods<'p> {
        let unchanged = self.names.len() == pods.len() && self.names.iter().zip(pods).all(|(n, p)| same(n, &p.name));
        if !unchanged {
            self.rebuild(pods);
        }
        Pods { list: pods, index: self }
    }

    fn rebuild(&mut self, pods: &[Pod]) {
        self.names.clear();
        self.names.extend(pods.iter().map(|p| Arc::clone(&p.name)));
        let names = &self.names;
        let name = |i: usize| names.get(i).map_or("", |n| &**n);
        self.sorted.clear();
        self.sorted.extend(0..pods.len());
        // A stable sort keeps equal names in list order: an entry's first pod comes first.
        self.sorted.sort_by(|&a, &b| name(a).cmp(name(b)));
        self.entries.clear();
        self.entries.resize(pods.len(), 0);
        self.first.clear();
        let mut previous: Option<usize> = None;
        for &i in &self.sorted {
            if previous.is_none_or(|p| name(p) != name(i)) {
                self.first.push(i);
            }
            if let Some(entry) = self.entries.get_mut(i) {
                *entry = self.first.len() - 1;
            }
            previous = Some(i);
        }
    }
}

/// Pods indexed by [`PodIndex::index`]: what the calculator's functions take.
#[derive(Debug, Clone, Copy)]
pub struct Pods<'p> {
    list: &'p [Pod],
    index: &'p PodIndex,
}

impl<'p> Pods<'p> {
    /// The pods, in list order.
    pub fn list(&self) -> &'p [Pod] {
        self.list
    }

    /// How many distinct names the pods have.
    fn entries(&self) -> usize {
        self.index.first.len()
    }

    /// The entry of the pod at position `i`.
    fn entry(&self, i: usize) -> usize {
        self.index.entries.get(i).copied().unwrap_or(0)
    }

    /// The entry of the pod named `name`. Samples usually list pods in the pods' order, so the
    /// pod at `hint` (the position after the last match) and the few after it are tried before
    /// a binary search.
    fn find(&self, name: &Arc<str>, hint: &mut usize) -> Option<usize> {
        let list = self.list;
        let mut i = *hint;
        let near = (i + 4).min(list.len());
        loop {
            if i == near {
                let sorted = &self.index.sorted;
                let at = sorted.binary_search_by(|&i| list.get(i).map_or("", |p| &*p.name).cmp(&**name)).ok()?;
                i = sorted.get(at).copied()?;
                break;
            }
            if list.get(i).is_some_and(|p| same(&p.name, name)) {
                break;
            }
            i += 1;
        }
        *hint = i + 1;
        Some(self.entry(i))
    }

    /// Matches the samples of a metrics API answer to the pods (see [`Matched`]), into
    /// `buffer`.
    pub fn matched<'m, T: Sample>(&self, samples: &'m [T], buffer: &'m mut Vec<usize>) -> Matched<'m, T>
    where
        'p: 'm,
    {
        buffer.clear();
        let mut entries = self.entries();
        let mut unlisted: Option<HashMap<&'m str, usize>> = None;
        let mut hint = 0;
        for sample in samples {
            let name = sample.pod();
            let entry = match self.find(name, &mut hint) {
                Some(entry) => entry,
                None => *unlisted.get_or_insert_with(HashMap::new).entry(&**name).or_insert_with(|| {
                    entries += 1;
                    entries - 1
                }),
            };
            buffer.push(entry);
        }
        Matched { pods: *self, samples, entries: buffer, count: entries }
    }
}

/// A sample of a metrics API answer, naming its pod.
pub trait Sample {
    /// The pod the sample is of.
    fn pod(&self) -> &Arc<str>;
}

impl Sample for PodMetricsItem {
    fn pod(&self) -> &Arc<str> {
        &self.pod
    }
}

impl Sample for PodSample {
    fn pod(&self) -> &Arc<str> {
        &self.pod
    }
}

impl Sample for (Arc<str>, PodMetric) {
    fn pod(&self) -> &Arc<str> {
        &self.0
    }
}

/// Whether two names are equal: the same shared string, or equal texts.
fn same(a: &Arc<str>, b: &Arc<str>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// A metrics API answer matched to the pods ([`Pods::matched`]): each sample's entry, that of
/// its pod's name (a sample of an unlisted pod gets an entry of its own, shared with the other
/// samples of that name). Matching once serves every metric that reads the answer.
#[derive(Debug)]
pub struct Matched<'m, T> {
    pods: Pods<'m>,
    samples: &'m [T],
    entries: &'m [usize],
    /// How many entries there are (the pods' names, then the unlisted ones).
    count: usize,
}

impl<T> Clone for Matched<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Matched<'_, T> {}

impl<'m, T> Matched<'m, T> {
    /// The pods matched against.
    pub fn pods(&self) -> Pods<'m> {
        self.pods
    }

    /// The samples.
    pub fn samples(&self) -> &'m [T] {
        self.samples
    }
}

/// Entry flags of `groupPods`' sets.
const UNREADY: u8 = 1;
const MISSING: u8 = 2;
const IGNORED: u8 = 4;
/// Above the set bits, why the cpu readiness rules found a pod unready (for [`SetAsideReason`]).
const WHY_NO_READINESS: u8 = 1 << 3;
const WHY_INITIALIZING: u8 = 2 << 3;
const WHY_STALE_SAMPLE: u8 = 3 << 3;
const WHY_NEVER_READY: u8 = 4 << 3;
const WHY_MASK: u8 = 7 << 3;

/// The replica calculator's reusable buffers: the maps and sets the controller keys by pod
/// name, as arrays over the entries of a [`PodIndex`] (then those of samples of unlisted pods).
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// `metrics[name]`.
    values: Vec<Option<PodMetric>>,
    /// `groupPods`' sets.
    flags: Vec<u8>,
    /// `calculateRequests`' map.
    requests: Vec<Option<i64>>,
    /// The ready count of the last grouping, unless [`Workspace::forget`] came after it.
    grouped: Option<usize>,
}

/// What `groupPods` found, besides the sets (kept in the [`Workspace`]).
#[derive(Debug, Clone, Copy, Default)]
struct Grouped {
    ready_count: usize,
    any_unready: bool,
    any_missing: bool,
}

impl Workspace {
    /// Go's `metrics` map from samples in order (a later sample of the same pod wins); `value`
    /// is a sample's value, `None` for one that is not listed at all.
    fn collect<T>(&mut self, matched: &Matched<'_, T>, value: impl Fn(&T) -> Option<PodMetric>) {
        self.values.clear();
        self.values.resize(matched.count, None);
        for (sample, &entry) in matched.samples.iter().zip(matched.entries) {
            if let Some(v) = value(sample)
                && let Some(slot) = self.values.get_mut(entry)
            {
                *slot = Some(v);
            }
        }
        self.flags.clear();
        self.flags.resize(self.values.len(), 0);
    }

    /// Forgets the last grouping: [`Workspace::set_aside`] reports nothing until the next one.
    pub(crate) fn forget(&mut self) {
        self.grouped = None;
    }

    /// How many pods the last grouping counted as ready, unless it was forgotten.
    pub(crate) fn ready_count(&self) -> Option<usize> {
        self.grouped
    }

    /// The pods the last grouping set aside, and why, in list order (nothing when it was
    /// forgotten): what `groupPods` decided, as it decided it.
    pub(crate) fn set_aside(&self, pods: Pods<'_>, out: &mut Vec<SetAsidePod>) {
        out.clear();
        if self.grouped.is_none() {
            return;
        }
        for (i, pod) in pods.list().iter().enumerate() {
            let Some(&flags) = self.flags.get(pods.entry(i)) else { continue };
            let reason = if flags & IGNORED != 0 {
                if pod.deleted { SetAsideReason::Deleted } else { SetAsideReason::Terminal(pod.phase) }
            } else if flags & UNREADY != 0 {
                match flags & WHY_MASK {
                    WHY_NO_READINESS => SetAsideReason::NoReadiness,
                    WHY_INITIALIZING => SetAsideReason::Initializing,
                    WHY_STALE_SAMPLE => SetAsideReason::StaleSample,
                    WHY_NEVER_READY => SetAsideReason::NeverReady,
                    _ => SetAsideReason::Pending,
                }
            } else if flags & MISSING != 0 {
                SetAsideReason::MissingMetrics
            } else {
                continue;
            };
            out.push(SetAsidePod { pod: Arc::clone(&pod.name), reason });
        }
    }

    /// `groupPods` over the collected samples (see [`group_pods`]).
    fn group(&mut self, pods: Pods<'_>, cpu: bool, calc: &ReplicaCalculator, now: Timestamp) -> Grouped {
        let mut g = Grouped::default();
        let release = &calc.release;
        for (i, pod) in pods.list().iter().enumerate() {
            let entry = pods.entry(i);
            let (Some(flags), Some(value)) = (self.flags.get_mut(entry), self.values.get(entry)) else { continue };
            if pod.deleted || release.ignores_phase(pod.phase) {
                *flags |= IGNORED;
                continue;
            }
            if pod.phase == PodPhase::Pending {
                *flags |= UNREADY;
                g.any_unready = true;
                continue;
            }
            let Some(metric) = value else {
                *flags |= MISSING;
                g.any_missing = true;
                continue;
            };
            if cpu {
                // The unready rules, each recorded with its reason.
                let why = match (pod.ready_condition, pod.start_time) {
                    (Some(cond), Some(start)) => {
                        if start.plus(calc.cpu_initialization_period).after(now) {
                            if cond.status == ConditionStatus::False {
                                WHY_INITIALIZING
                            } else if metric
                                .timestamp
                                .before(cond.last_transition_time.plus_nanos_ceil(metric.window_nanos))
                            {
                                WHY_STALE_SAMPLE
                            } else {
                                0
                            }
                        } else if cond.status == ConditionStatus::False
                            && start.plus(calc.delay_of_initial_readiness_status).after(cond.last_transition_time)
                        {
                            WHY_NEVER_READY
                        } else {
                            0
                        }
                    }
                    _ => WHY_NO_READINESS,
                };
                if why != 0 {
                    *flags |= UNREADY | why;
                    g.any_unready = true;
                    continue;
                }
            }
            g.ready_count += 1;
        }
        self.grouped = Some(g.ready_count);
        g
    }

    /// `removeMetricsForPods` of the ignored, then the unready pods; how many samples are left.
    fn remove_ignored_and_unready(&mut self) -> usize {
        let mut left = 0;
        for (value, flags) in self.values.iter_mut().zip(&self.flags) {
            if flags & (IGNORED | UNREADY) != 0 {
                *value = None;
            }
            left += usize::from(value.is_some());
        }
        left
    }

    /// How many samples there are.
    fn len(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }

    /// The second pass's samples: each pod of the sets with `flag` gets `fill(its request)`.
    fn fill(&mut self, flag: u8, fill: impl Fn(Option<i64>) -> i64) {
        for (i, (value, flags)) in self.values.iter_mut().zip(&self.flags).enumerate() {
            if flags & flag != 0 {
                *value = Some(PodMetric::value(fill(self.requests.get(i).copied().flatten())));
            }
        }
    }

    /// `calculateRequests` into the entries (a later pod of the same name wins).
    fn requests(
        &mut self,
        pods: Pods<'_>,
        container: &str,
        resource: &str,
        calc: &ReplicaCalculator,
    ) -> Result<(), CalcError> {
        self.requests.clear();
        self.requests.resize(self.values.len(), None);
        // A copy the loop's writes cannot alias.
        let calc = *calc;
        for (i, pod) in pods.list().iter().enumerate() {
            let request = pod_request(pod, container, resource, &calc)?;
            if let Some(slot) = self.requests.get_mut(pods.entry(i)) {
                *slot = Some(request);
            }
        }
        Ok(())
    }

    /// `GetResourceUtilizationRatio` (`metrics/utilization.go`): over the samples of pods with a
    /// request, `utilization = Σusage × 100 / Σrequest` stored as int32, `ratio = utilization /
    /// target` in float64, and the raw average `Σusage / n`. Before 1.38 the sums, the `× 100`
    /// and the int32 narrowing wrap (int64 arithmetic, truncation); with `exact` (1.38, #142192)
    /// the sums and the percentage are exact (`math/big`) and only the int32 narrowing
    /// saturates, at `MinInt32`/`MaxInt32`, and the raw average is the exact one, which always
    /// fits an int64.
    fn utilization_ratio(&self, target_utilization: i32, exact: bool) -> Result<(f64, i32, i64), CalcError> {
        let mut metrics_total = 0i128;
        let mut requests_total = 0i128;
        let mut wrapped = (0i64, 0i64);
        let mut entries = 0i64;
        for (value, request) in self.values.iter().zip(&self.requests) {
            // Samples of pods without a request are extraneous: missing requests are checked
            // elsewhere.
            if let (Some(metric), Some(request)) = (value, request) {
                // i128 holds the sum of any number of int64 values a pod list can have.
                metrics_total += i128::from(metric.value);
                requests_total += i128::from(*request);
                wrapped = (wrapped.0.wrapping_add(metric.value), wrapped.1.wrapping_add(*request));
                entries += 1;
            }
        }
        if !exact {
            let (metrics_total, requests_total) = wrapped;
            if requests_total == 0 {
                return Err(CalcError::NoMatchingSamples);
            }
            // Go converts int64 to int32 by truncation, as `as` does.
            let utilization = metrics_total.wrapping_mul(100).wrapping_div(requests_total) as i32;
            let ratio = f64::from(utilization) / f64::from(target_utilization);
            return Ok((ratio, utilization, metrics_total.wrapping_div(entries)));
        }
        if requests_total == 0 {
            return Err(CalcError::NoMatchingSamples);
        }
        // `big.Int.Quo` truncates toward zero, as i128 division does; Σusage × 100 cannot leave
        // i128 (it would take 2^57 pods).
        let percentage = metrics_total.saturating_mul(100) / requests_total;
        let utilization = percentage.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32;
        let ratio = f64::from(utilization) / f64::from(target_utilization);
        let raw_average = (metrics_total / i128::from(entries)) as i64;
        Ok((ratio, utilization, raw_average))
    }

    /// `GetMetricUsageRatio` (formerly `GetMetricUtilizationRatio`): `usage = Σvalues / count`
    /// over every sample (int64), `ratio = usage / target` in float64.
    fn usage_ratio(&self, target_usage: i64) -> (f64, i64) {
        let (total, count) = self
            .values
            .iter()
            .flatten()
            .fold((0i64, 0i64), |(total, count), m| (total.wrapping_add(m.value), count + 1));
        // Callers never pass an empty map (Go would divide by zero).
        let usage = total.checked_div(count).unwrap_or(0);
        (usage as f64 / target_usage as f64, usage)
    }
}

/// `getPodMetrics` / `getContainerMetrics` for one item: without a container, a pod's sample
/// is the sum over all its listed containers, and a pod with no container or a container
/// lacking the resource gets no sample. With a container, the sample is that container's usage
/// (none when it is absent).
fn resource_sample(m: &PodMetricsItem, resource: &str, container: &str) -> Option<PodMetric> {
    let sample = |value| Some(PodMetric { timestamp: m.timestamp, window_nanos: m.window_nanos, value });
    if !container.is_empty() {
        let c = m.containers.iter().find(|c| c.name == container)?;
        return sample(quantity_of(&c.usage_milli, resource)?);
    }
    if m.containers.is_empty() {
        return None;
    }
    let mut sum = 0i64;
    for c in &m.containers {
        sum = sum.wrapping_add(quantity_of(&c.usage_milli, resource)?);
    }
    sample(sum)
}

/// The quantity of `resource` in a container's requests or usage. Such maps usually hold one
/// or two resources: looking at both ends costs less than the tree's ordered search.
fn quantity_of(map: &BTreeMap<String, i64>, resource: &str) -> Option<i64> {
    let matches = |(name, value): (&String, &i64)| (name.as_str() == resource).then_some(*value);
    match map.len() {
        1 | 2 => map.first_key_value().and_then(matches).or_else(|| map.last_key_value().and_then(matches)),
        _ => map.get(resource).copied(),
    }
}

/// `resourceMetricsClient.GetResourceMetric`'s failures, and the first item's timestamp.
fn resource_items<'m>(
    response: Result<Matched<'m, PodMetricsItem>, &ReadError>,
    resource: &str,
) -> Result<(Matched<'m, PodMetricsItem>, Timestamp), CalcError> {
    let wrap = |error| CalcError::ResourceMetrics { resource: resource.to_string(), error };
    let api = MetricsApi::Resource;
    let items = response.map_err(|e| wrap(MetricsApiError::Fetch { api, error: e.clone() }))?;
    let first = items.samples.first().ok_or_else(|| wrap(MetricsApiError::Empty { api }))?;
    Ok((items, first.timestamp))
}

/// `customMetricsClient.GetObjectMetric`.
fn get_object_metric(response: Result<ObjectSample, &ReadError>) -> Result<ObjectSample, MetricsApiError> {
    response.map_err(|e| MetricsApiError::Fetch { api: MetricsApi::Custom, error: e.clone() })
}

/// `externalMetricsClient.GetExternalMetric`: every series' value.
fn get_external_metric<'v>(response: Result<&'v [i64], &ReadError>) -> Result<&'v [i64], MetricsApiError> {
    let api = MetricsApi::External;
    let items = response.map_err(|e| MetricsApiError::Fetch { api, error: e.clone() })?;
    if items.is_empty() {
        return Err(MetricsApiError::Empty { api });
    }
    Ok(items)
}

/// `groupPods`: sorts the pods into ready (counted), unready, missing and ignored.
///
/// Deleted or Failed pods are ignored; Pending pods are unready (never missing); pods without
/// a sample are missing. Only for `cpu`, a pod is also unready when it has no Ready condition
/// or start time, when it is still initializing and either not ready or its sample predates
/// one window after its last readiness transition, or when past initialization it is not
/// ready and has never been ready since starting. All time comparisons are strict.
///
/// Succeeded pods are ignored too from 1.38 (`IsPodTerminal`); before, they are missing
/// without a sample and count with one.
///
/// The calculator runs the same grouping over its [`Workspace`]; this form, with the sets of
/// names, serves the conformance vectors of `groupPods`.
pub fn group_pods(
    pods: &[Pod],
    metrics: &PodMetricsInfo,
    resource: &str,
    calc: &ReplicaCalculator,
    now: Timestamp,
) -> GroupedPods {
    let mut index = PodIndex::default();
    let indexed = index.index(pods);
    let samples: Vec<(Arc<str>, PodMetric)> = metrics.iter().map(|(name, m)| (Arc::from(name.as_str()), *m)).collect();
    let mut buffer = Vec::new();
    let matched = indexed.matched(&samples, &mut buffer);
    let mut ws = Workspace::default();
    ws.collect(&matched, |(_, m)| Some(*m));
    let g = ws.group(indexed, resource == RESOURCE_CPU, calc, now);
    let mut grouped = GroupedPods { ready_count: g.ready_count, ..GroupedPods::default() };
    for (entry, &first) in indexed.index.first.iter().enumerate() {
        let (Some(flags), Some(pod)) = (ws.flags.get(entry), pods.get(first)) else { continue };
        for (flag, set) in
            [(UNREADY, &mut grouped.unready), (MISSING, &mut grouped.missing), (IGNORED, &mut grouped.ignored)]
        {
            if flags & flag != 0 {
                set.insert(pod.name.to_string());
            }
        }
    }
    grouped
}

/// `calculateRequests`: each listed pod's request for the resource, in milli-units.
///
/// With [`ReplicaCalculator::pod_level_resources`] (gate `PodLevelResources`, from 1.34), no
/// container named and pod-level requests set (`IsPodLevelRequestsSet`), the pod's
/// `PodRequests` is used (`calculatePodLevelRequests`, [`crate::resources::pod_requests`]).
/// Otherwise the regular containers plus restartable init containers (sidecars) are summed,
/// each of which must have a request; with a container named only that one counts (a container
/// the pod lacks: request 0 before 1.35, an error from 1.35).
pub fn calculate_requests(
    pods: &[Pod],
    container: &str,
    resource: &str,
    calc: &ReplicaCalculator,
) -> Result<BTreeMap<String, i64>, CalcError> {
    let mut requests = BTreeMap::new();
    for pod in pods {
        requests.insert(pod.name.to_string(), pod_request(pod, container, resource, calc)?);
    }
    Ok(requests)
}

/// One pod's request in `calculateRequests`.
fn pod_request(pod: &Pod, container: &str, resource: &str, calc: &ReplicaCalculator) -> Result<i64, CalcError> {
    // Most pods set no pod-level requests: the emptiness test spares them the key scan.
    if calc.pod_level_resources
        && container.is_empty()
        && !pod.pod_requests_milli.is_empty()
        && resources::is_pod_level_requests_set(pod.pod_requests_milli.keys().map(String::as_str))
    {
        calculate_pod_level_requests(pod, resource, calc.release.pod_overhead)
    } else {
        calculate_pod_requests_from_containers(pod, container, resource, calc.release.missing_container_error)
    }
}

/// `calculatePodLevelRequests`: component-helpers' `PodRequests(pod, {})` for the resource
/// ([`resources::pod_requests`]): the containers' aggregate (a container without the resource
/// adds nothing), replaced by the pod-level request for cpu, memory and hugepages, plus
/// `spec.overhead` when `overhead` (1.34 to 1.37; 1.38 excludes it, #142154). A resource none
/// of them has is an error.
fn calculate_pod_level_requests(pod: &Pod, resource: &str, overhead: bool) -> Result<i64, CalcError> {
    let role = |c: &Container| match c.restart_policy.as_deref() {
        Some("Always") => ContainerRole::Sidecar,
        _ => ContainerRole::Init,
    };
    let containers = (pod.containers.iter().map(|c| (ContainerRole::Regular, c)))
        .chain(pod.init_containers.iter().map(|c| (role(c), c)))
        .map(|(role, c)| (role, quantity_of(&c.requests_milli, resource)));
    let aggregate = resources::aggregate_container_requests(containers);
    let pod_level = pod.pod_requests_milli.get(resource).copied();
    let overhead = if overhead { pod.overhead_milli.get(resource).copied() } else { None };
    resources::pod_requests(resource, aggregate, true, pod_level, overhead)
        .ok_or_else(|| CalcError::MissingPodLevelRequest { resource: resource.to_string(), pod: pod.name.to_string() })
}

/// `calculatePodRequestsFromContainers`; `missing_container_error`: a named container the pod
/// lacks is an error (from 1.35, #133415), else its request is 0.
fn calculate_pod_requests_from_containers(
    pod: &Pod,
    container: &str,
    resource: &str,
    missing_container_error: bool,
) -> Result<i64, CalcError> {
    if container.is_empty() && pod.init_containers.is_empty() {
        // The usual pod: its containers' requests, summed (as below: from 1.35 up to a
        // container whose name is the empty one asked for).
        let mut request = 0i64;
        for c in &pod.containers {
            let Some(r) = quantity_of(&c.requests_milli, resource) else {
                return Err(missing_request(resource, c, pod));
            };
            request = request.wrapping_add(r);
            if missing_container_error && c.name.is_empty() {
                break;
            }
        }
        return Ok(request);
    }
    let sidecars = pod.init_containers.iter().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    let mut request = 0i64;
    for c in pod.containers.iter().chain(sidecars) {
        if container.is_empty() || container == c.name {
            let Some(r) = quantity_of(&c.requests_milli, resource) else {
                return Err(missing_request(resource, c, pod));
            };
            request = request.wrapping_add(r);
        }
        // "container names are unique inside the pod": from 1.35 (#133415, with the error
        // below) the sum stops at the container asked for; before, it goes on, which differs
        // only when that name is the empty one (no container can have it once validated).
        if missing_container_error && container == c.name {
            return Ok(request);
        }
    }
    if !container.is_empty() && missing_container_error {
        return Err(CalcError::ContainerNotFound { container: container.to_string(), pod: pod.name.to_string() });
    }
    Ok(request)
}

/// The error of a container without a request for the resource.
fn missing_request(resource: &str, c: &Container, pod: &Pod) -> CalcError {
    CalcError::MissingRequest { resource: resource.to_string(), container: c.name.clone(), pod: pod.name.to_string() }
}

/// `getReadyPodsCount`: pods with phase Running and Ready=True (deleting pods included).
pub fn get_ready_pods_count(pods: &[Pod]) -> Result<i64, CalcError> {
    if pods.is_empty() {
        return Err(CalcError::NoPods);
    }
    let ready = pods.iter().filter(|p| p.phase == PodPhase::Running && p.is_ready()).count();
    Ok(i64::try_from(ready).unwrap_or(i64::MAX))
}

/// `ReplicaCalculator`: the calculator with the controller's readiness settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaCalculator {
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`
    pub cpu_initialization_period: Duration,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`
    pub delay_of_initial_readiness_status: Duration,
    /// Pod-level requests count: gate `PodLevelResources`, in a release whose controller reads
    /// them (from 1.34, `FeatureGates::pod_level_requests`).
    pub pod_level_resources: bool,
    /// What the release's controller does differently.
    pub release: ControllerRelease,
}

impl Default for ReplicaCalculator {
    /// The production flags (5 min, 30 s) of the newest release, with `PodLevelResources` on
    /// (beta).
    fn default() -> Self {
        ReplicaCalculator {
            cpu_initialization_period: Duration::from_secs(300),
            delay_of_initial_readiness_status: Duration::from_secs(30),
            pod_level_resources: true,
            release: ControllerRelease::default(),
        }
    }
}

impl ReplicaCalculator {
    /// `GetResourceReplicas`: Resource / ContainerResource metrics with a Utilization target.
    ///
    /// The status values (utilization, raw average) are always the first-pass ones.
    #[allow(clippy::too_many_arguments)]
    pub fn get_resource_replicas(
        &self,
        ws: &mut Workspace,
        now: Timestamp,
        current_replicas: i32,
        target_utilization: i32,
        resource: &str,
        container: &str,
        tolerances: Tolerances,
        metrics: Result<Matched<'_, PodMetricsItem>, &ReadError>,
    ) -> Result<ResourceReplicas, CalcError> {
        let (items, timestamp) = resource_items(metrics, resource)?;
        let pods = items.pods;
        if pods.list().is_empty() {
            return Err(CalcError::NoPods);
        }
        ws.collect(&items, |m| resource_sample(m, resource, container));
        let g = ws.group(pods, resource == RESOURCE_CPU, self, now);
        if ws.remove_ignored_and_unready() == 0 {
            return Err(CalcError::NoReadySamples);
        }
        ws.requests(pods, container, resource, self)?;
        let (ratio, utilization, raw_value_milli) =
            ws.utilization_ratio(target_utilization, self.release.exact_utilization)?;
        let done = |replicas: i32, corrected_ratio: Option<f64>| ResourceReplicas {
            replicas,
            utilization,
            raw_value_milli,
            timestamp,
            ratio,
            corrected_ratio,
        };

        let scale_up_with_unready = g.any_unready && ratio > 1.0;
        if !scale_up_with_unready && !g.any_missing {
            return Ok(done(
                self.ready_pods_replica_count(current_replicas, ratio, tolerances, g.ready_count as i64),
                None,
            ));
        }

        if g.any_missing {
            if ratio < 1.0 {
                // Scale-down: missing pods use 100 % of their request, or the target above 100 %.
                let fallback = i64::from(target_utilization.max(100));
                ws.fill(MISSING, |request| request.unwrap_or(0).wrapping_mul(fallback).wrapping_div(100));
            } else if ratio > 1.0 {
                ws.fill(MISSING, |_| 0);
            }
        }
        if scale_up_with_unready {
            ws.fill(UNREADY, |_| 0);
        }

        let (new_ratio, _, _) = ws.utilization_ratio(target_utilization, self.release.exact_utilization)?;
        Ok(done(
            corrected_replicas(current_replicas, ratio, new_ratio, ws.len(), tolerances, self.release),
            Some(new_ratio),
        ))
    }

    /// `GetRawResourceReplicas`: Resource / ContainerResource metrics with an AverageValue
    /// target (the plain path, with CPU readiness rules for cpu).
    #[allow(clippy::too_many_arguments)]
    pub fn get_raw_resource_replicas(
        &self,
        ws: &mut Workspace,
        now: Timestamp,
        current_replicas: i32,
        target_usage_milli: i64,
        resource: &str,
        container: &str,
        tolerances: Tolerances,
        metrics: Result<Matched<'_, PodMetricsItem>, &ReadError>,
    ) -> Result<MetricReplicas, CalcError> {
        let (items, timestamp) = resource_items(metrics, resource)?;
        ws.collect(&items, |m| resource_sample(m, resource, container));
        let plain = self.calc_plain_metric_replicas(
            ws,
            now,
            current_replicas,
            target_usage_milli,
            tolerances,
            items.pods,
            resource,
        )?;
        Ok(plain.with_timestamp(Some(timestamp)))
    }

    /// `GetMetricReplicas`: Pods metrics (the plain path, no CPU readiness rules). The samples
    /// are `customMetricsClient.GetRawMetric`'s: one per pod (the last one wins), with the
    /// adapter's default window where it reports none.
    #[allow(clippy::too_many_arguments)]
    pub fn get_metric_replicas(
        &self,
        ws: &mut Workspace,
        now: Timestamp,
        current_replicas: i32,
        target_usage_milli: i64,
        metric_name: &str,
        tolerances: Tolerances,
        samples: Result<Matched<'_, PodSample>, &ReadError>,
    ) -> Result<MetricReplicas, CalcError> {
        let wrap = |error| CalcError::PodsMetric { metric: metric_name.to_string(), error };
        let api = MetricsApi::Custom;
        let samples = samples.map_err(|e| wrap(MetricsApiError::Fetch { api, error: e.clone() }))?;
        let first = samples.samples.first().ok_or_else(|| wrap(MetricsApiError::Empty { api }))?;
        let timestamp = first.timestamp;
        ws.collect(&samples, |m| {
            // `time.Duration(*m.WindowSeconds) * time.Second`, which wraps as Go's does.
            let window_nanos = match m.window_seconds {
                Some(secs) => secs.wrapping_mul(1_000_000_000),
                None => i64::try_from(DEFAULT_CUSTOM_METRIC_WINDOW.as_nanos()).unwrap_or(i64::MAX),
            };
            Some(PodMetric { timestamp: m.timestamp, window_nanos, value: m.value_milli })
        });
        let plain = self.calc_plain_metric_replicas(
            ws,
            now,
            current_replicas,
            target_usage_milli,
            tolerances,
            samples.pods,
            "",
        )?;
        Ok(plain.with_timestamp(Some(timestamp)))
    }

    /// `calcPlainMetricReplicas` over the samples collected in `ws`: like
    /// [`Self::get_resource_replicas`] on the average value; missing pods count as exactly the
    /// target on a scale-down, and samples of pods outside the list are part of the average.
    #[allow(clippy::too_many_arguments)]
    fn calc_plain_metric_replicas(
        &self,
        ws: &mut Workspace,
        now: Timestamp,
        current_replicas: i32,
        target_usage_milli: i64,
        tolerances: Tolerances,
        pods: Pods<'_>,
        resource: &str,
    ) -> Result<MetricReplicas, CalcError> {
        if pods.list().is_empty() {
            return Err(CalcError::NoPods);
        }
        let g = ws.group(pods, resource == RESOURCE_CPU, self, now);
        if ws.remove_ignored_and_unready() == 0 {
            return Err(CalcError::NoReadySamples);
        }
        let (ratio, usage) = ws.usage_ratio(target_usage_milli);
        let done = |replicas: i32, corrected_ratio: Option<f64>| MetricReplicas {
            replicas,
            usage_milli: usage,
            timestamp: None,
            ratio,
            corrected_ratio,
        };

        let scale_up_with_unready = g.any_unready && ratio > 1.0;
        if !scale_up_with_unready && !g.any_missing {
            return Ok(done(
                self.ready_pods_replica_count(current_replicas, ratio, tolerances, g.ready_count as i64),
                None,
            ));
        }

        if g.any_missing {
            if ratio < 1.0 {
                ws.fill(MISSING, |_| target_usage_milli);
            } else if ratio > 1.0 {
                ws.fill(MISSING, |_| 0);
            }
        }
        if scale_up_with_unready {
            ws.fill(UNREADY, |_| 0);
        }

        let (new_ratio, _) = ws.usage_ratio(target_usage_milli);
        Ok(done(
            corrected_replicas(current_replicas, ratio, new_ratio, ws.len(), tolerances, self.release),
            Some(new_ratio),
        ))
    }

    /// `GetObjectMetricReplicas`: Object metrics with a Value target. The status usage is the
    /// object's value; the timestamp is Go's zero time (an upstream quirk).
    #[allow(clippy::too_many_arguments)]
    pub fn get_object_metric_replicas(
        &self,
        current_replicas: i32,
        target_usage_milli: i64,
        metric_name: &str,
        tolerances: Tolerances,
        namespace: &str,
        object_ref: &CrossVersionObjectReference,
        sample: Result<ObjectSample, &ReadError>,
        pods: &[Pod],
    ) -> Result<MetricReplicas, CalcError> {
        let usage = get_object_metric(sample)
            .map_err(|e| object_fetch_error(self.release, metric_name, namespace, object_ref, e))?
            .value_milli;
        let ratio = usage as f64 / target_usage_milli as f64;
        let replicas = self.get_usage_ratio_replica_count(current_replicas, ratio, tolerances, pods)?;
        Ok(MetricReplicas {
            replicas,
            usage_milli: usage,
            timestamp: Some(Timestamp::ZERO),
            ratio,
            corrected_ratio: None,
        })
    }

    /// The count `GetResourceReplicas` and `calcPlainMetricReplicas` propose when no pod is
    /// unready or missing: `currentReplicas` within the tolerance, else
    /// `int32(math.Ceil(usageRatio * float64(readyPodCount)))` as the release converts it
    /// ([`ControllerRelease::ceil_to_i32`]: `MinInt32` past the int32 range before 1.38).
    pub fn ready_pods_replica_count(
        &self,
        current_replicas: i32,
        usage_ratio: f64,
        tolerances: Tolerances,
        ready_pods: i64,
    ) -> i32 {
        if tolerances.is_within(usage_ratio) {
            current_replicas
        } else {
            self.release.ceil_to_i32(usage_ratio * ready_pods as f64)
        }
    }

    /// `getUsageRatioReplicaCount`: with a current count, `current` within tolerance, else
    /// `ceil(ratio × Running-and-Ready pods)` (capped at `MaxInt32` from 1.35); from zero,
    /// `ceil(ratio)` (scale from zero).
    pub fn get_usage_ratio_replica_count(
        &self,
        current_replicas: i32,
        usage_ratio: f64,
        tolerances: Tolerances,
        pods: &[Pod],
    ) -> Result<i32, CalcError> {
        self.usage_ratio_replica_count(current_replicas, usage_ratio, tolerances, || {
            get_ready_pods_count(pods).map_err(|e| CalcError::ReadyPods(Box::new(e)))
        })
    }

    /// `getUsageRatioReplicaCount` with the count of Running-and-Ready pods given by
    /// `ready_pods` (asked only when the count leaves the tolerance), so that a caller that knows
    /// the count without a pod list (the diagnosis's rebuilt recommendation) computes as
    /// [`ReplicaCalculator::get_usage_ratio_replica_count`] does.
    pub fn usage_ratio_replica_count(
        &self,
        current_replicas: i32,
        usage_ratio: f64,
        tolerances: Tolerances,
        ready_pods: impl FnOnce() -> Result<i64, CalcError>,
    ) -> Result<i32, CalcError> {
        if current_replicas == 0 {
            return Ok(self.release.ceil_to_i32(usage_ratio));
        }
        if tolerances.is_within(usage_ratio) {
            return Ok(current_replicas);
        }
        let ready = ready_pods()?;
        let replicas = usage_ratio * ready as f64;
        if self.release.usage_ratio_cap && replicas > f64::from(i32::MAX) {
            return Ok(i32::MAX);
        }
        Ok(self.release.ceil_to_i32(replicas))
    }

    /// `GetObjectPerPodMetricReplicas`: Object metrics with an AverageValue target. Tolerance
    /// is judged against `status.replicas`; the proposal is `ceil(value / target)`; the status
    /// usage is `ceil(value / status.replicas)` ([`ControllerRelease::per_pod_usage`]).
    #[allow(clippy::too_many_arguments)]
    pub fn get_object_per_pod_metric_replicas(
        &self,
        status_replicas: i32,
        target_average_usage_milli: i64,
        metric_name: &str,
        tolerances: Tolerances,
        namespace: &str,
        object_ref: &CrossVersionObjectReference,
        sample: Result<ObjectSample, &ReadError>,
    ) -> Result<MetricReplicas, CalcError> {
        let sample = get_object_metric(sample)
            .map_err(|e| object_fetch_error(self.release, metric_name, namespace, object_ref, e))?;
        let usage = sample.value_milli;
        let mut replicas = status_replicas;
        let ratio = usage as f64 / (target_average_usage_milli as f64 * f64::from(status_replicas));
        if !tolerances.is_within(ratio) {
            replicas = self.release.ceil_to_i32(usage as f64 / target_average_usage_milli as f64);
        }
        let usage_milli = self.release.per_pod_usage(usage, status_replicas, false);
        Ok(MetricReplicas { replicas, usage_milli, timestamp: Some(sample.timestamp), ratio, corrected_ratio: None })
    }

    /// `GetExternalMetricReplicas`: External metrics with a Value target. The usage is the
    /// sum of all series, capped at `i64::MAX` on positive overflow from 1.35 (wrapping before).
    #[allow(clippy::too_many_arguments)]
    pub fn get_external_metric_replicas(
        &self,
        current_replicas: i32,
        target_usage_milli: i64,
        metric_name: &str,
        tolerances: Tolerances,
        namespace: &str,
        metric_selector: Option<&LabelSelector>,
        values: Result<&[i64], &ReadError>,
        pods: &[Pod],
    ) -> Result<MetricReplicas, CalcError> {
        let values = get_external_metric(values)
            .map_err(|e| external_fetch_error(metric_name, namespace, metric_selector, e))?;
        let mut usage = 0i64;
        for &v in values {
            if self.release.external_sum_cap && v > 0 && usage > i64::MAX - v {
                usage = i64::MAX;
                break;
            }
            usage = usage.wrapping_add(v);
        }
        let ratio = usage as f64 / target_usage_milli as f64;
        let replicas = self.get_usage_ratio_replica_count(current_replicas, ratio, tolerances, pods)?;
        Ok(MetricReplicas { replicas, usage_milli: usage, timestamp: None, ratio, corrected_ratio: None })
    }

    /// `GetExternalPerPodMetricReplicas`: External metrics with an AverageValue target. A sum
    /// that turns negative becomes `i64::MAX` from 1.34 (it wraps before); the proposal `ceil(sum / target)` is capped at
    /// `MaxInt32` from 1.34; the status usage is `ceil(sum / status.replicas)`
    /// ([`ControllerRelease::per_pod_usage`]).
    #[allow(clippy::too_many_arguments)]
    pub fn get_external_per_pod_metric_replicas(
        &self,
        status_replicas: i32,
        target_usage_per_pod_milli: i64,
        metric_name: &str,
        tolerances: Tolerances,
        namespace: &str,
        metric_selector: Option<&LabelSelector>,
        values: Result<&[i64], &ReadError>,
    ) -> Result<MetricReplicas, CalcError> {
        let values = get_external_metric(values)
            .map_err(|e| external_fetch_error(metric_name, namespace, metric_selector, e))?;
        let mut usage = 0i64;
        let guard = self.release.external_per_pod_cap;
        for &v in values {
            usage = usage.wrapping_add(v);
            if guard && usage < 0 {
                usage = i64::MAX;
                break;
            }
        }
        let mut replicas = status_replicas;
        let ratio = usage as f64 / (target_usage_per_pod_milli as f64 * f64::from(status_replicas));
        if !tolerances.is_within(ratio) {
            let proposal = (usage as f64 / target_usage_per_pod_milli as f64).ceil();
            replicas = if self.release.external_per_pod_cap && proposal > f64::from(i32::MAX) {
                i32::MAX
            } else {
                self.release.ceil_to_i32(proposal)
            };
        }
        let usage_milli = self.release.per_pod_usage(usage, status_replicas, self.release.external_per_pod_cap);
        Ok(MetricReplicas { replicas, usage_milli, timestamp: None, ratio, corrected_ratio: None })
    }
}

impl MetricReplicas {
    fn with_timestamp(self, timestamp: Option<Timestamp>) -> MetricReplicas {
        MetricReplicas { timestamp, ..self }
    }
}

/// The second pass shared by `GetResourceReplicas` and `calcPlainMetricReplicas`: no change
/// within tolerance or when the backfill flips the direction, else `ceil(newRatio × samples)`
/// unless that moves against the direction.
fn corrected_replicas(
    current: i32,
    ratio: f64,
    new_ratio: f64,
    samples: usize,
    tolerances: Tolerances,
    release: ControllerRelease,
) -> i32 {
    if tolerances.is_within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0) {
        return current;
    }
    let new_replicas = release.ceil_to_i32(new_ratio * samples as f64);
    if (new_ratio < 1.0 && new_replicas > current) || (new_ratio > 1.0 && new_replicas < current) {
        return current;
    }
    new_replicas
}

/// The message of a failed Object metric fetch: from 1.37 (#139029)
/// `"unable to get metric %s on %s %s/%s: %w"`; before, Go's misordered format arguments
/// (`"unable to get metric %s: %v on %s %s/%s"` fed name, kind, namespace, name, err).
fn object_fetch_text(
    in_order: bool,
    metric: &str,
    kind: &str,
    namespace: &str,
    name: &str,
    error: &MetricsApiError,
) -> String {
    if in_order {
        return format!("unable to get metric {metric} on {kind} {namespace}/{name}: {error}");
    }
    format!("unable to get metric {metric}: {kind} on {namespace} {name}/{error}")
}

/// A failed Object metric fetch ([`CalcError::ObjectMetric`]).
fn object_fetch_error(
    release: ControllerRelease,
    metric_name: &str,
    namespace: &str,
    object_ref: &CrossVersionObjectReference,
    error: MetricsApiError,
) -> CalcError {
    CalcError::ObjectMetric {
        metric: metric_name.to_string(),
        kind: object_ref.kind.to_string(),
        namespace: namespace.to_string(),
        name: object_ref.name.to_string(),
        in_order: release.object_error_in_order,
        error: Box::new(error),
    }
}

/// A failed External metric fetch ([`CalcError::ExternalMetric`]).
fn external_fetch_error(
    metric_name: &str,
    namespace: &str,
    selector: Option<&LabelSelector>,
    error: MetricsApiError,
) -> CalcError {
    CalcError::ExternalMetric {
        namespace: namespace.to_string(),
        metric: metric_name.to_string(),
        selector: gofmt::label_selector(selector),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::KubernetesVersion;

    fn pod_with_cpu(name: &str, request: i64) -> Pod {
        let mut p = Pod::running(name);
        p.containers.push(Container {
            name: "c".into(),
            requests_milli: BTreeMap::from([("cpu".to_string(), request)]),
            restart_policy: None,
        });
        p
    }

    fn usage(pod: &str, cpu: i64) -> PodMetricsItem {
        PodMetricsItem {
            pod: pod.into(),
            timestamp: Timestamp::ZERO,
            window_nanos: 60_000_000_000,
            containers: vec![ContainerUsage {
                name: "c".into(),
                usage_milli: BTreeMap::from([("cpu".to_string(), cpu)]),
            }],
        }
    }

    fn calc() -> ReplicaCalculator {
        calc_at(KubernetesVersion::LATEST)
    }

    fn calc_at(version: KubernetesVersion) -> ReplicaCalculator {
        ReplicaCalculator {
            cpu_initialization_period: Duration::from_secs(120),
            delay_of_initial_readiness_status: Duration::from_secs(10),
            pod_level_resources: false,
            release: ControllerRelease::of(version),
        }
    }

    /// `GetResourceReplicas` for a Utilization target over `pods` and their `metrics`.
    fn resource_replicas(
        calc: &ReplicaCalculator,
        pods: &[Pod],
        metrics: &[PodMetricsItem],
        current: i32,
        target: i32,
    ) -> Result<ResourceReplicas, CalcError> {
        calc.get_resource_replicas(
            &mut Workspace::default(),
            Timestamp::from_secs(0),
            current,
            target,
            "cpu",
            "",
            Tolerances::default(),
            Ok(PodIndex::default().index(pods).matched(metrics, &mut Vec::new())),
        )
    }

    #[test]
    fn tolerance_bounds_are_inclusive() {
        let t = Tolerances::default();
        for (ratio, within) in [(0.9, true), (1.1, true), (0.89, false), (1.11, false), (f64::NAN, false)] {
            assert_eq!(t.is_within(ratio), within, "{ratio}");
        }
    }

    #[test]
    fn resource_replicas_table() {
        // (usages, current, target, expected replicas, utilization)
        let cases: [(&[i64], i32, i32, i32, i32); 4] = [
            (&[300, 500, 700], 3, 30, 5, 50),
            (&[100, 300, 500, 250, 250], 5, 50, 3, 28),
            (&[1010, 1010, 1010], 3, 100, 3, 101),
            // 2575 % against 20 %: the observed 1.23 first sync.
            (&[515, 515], 2, 20, 258, 2575),
        ];
        for (usages, current, target, replicas, utilization) in cases {
            let request = if target == 20 { 20 } else { 1000 };
            let pods: Vec<Pod> = (0..usages.len()).map(|i| pod_with_cpu(&format!("p{i}"), request)).collect();
            let metrics: Vec<PodMetricsItem> =
                usages.iter().enumerate().map(|(i, u)| usage(&format!("p{i}"), *u)).collect();
            let got = resource_replicas(&calc(), &pods, &metrics, current, target).unwrap();
            assert_eq!((got.replicas, got.utilization), (replicas, utilization), "{usages:?}");
        }
    }

    #[test]
    fn plain_metrics_table() {
        // (samples, pods listed, current, target, expected replicas, usage)
        type Case = (&'static [i64], usize, i32, i64, i32, i64);
        let cases: [Case; 4] = [
            (&[20_000, 10_000, 30_000], 3, 3, 15_000, 4, 20_000),
            // A missing pod counts as exactly the target on a scale-down.
            (&[12_000, 12_000], 3, 3, 20_000, 3, 12_000),
            // Superfluous samples (pods not listed) are part of the average.
            (&[10_000, 10_000, 40_000], 2, 2, 10_000, 4, 20_000),
            (&[10_100, 10_100], 2, 2, 10_000, 2, 10_100),
        ];
        for (samples, listed, current, target, replicas, usage) in cases {
            let pods: Vec<Pod> = (0..listed).map(|i| Pod::running(format!("p{i}"))).collect();
            let items: Vec<PodSample> = samples
                .iter()
                .enumerate()
                .map(|(i, v)| PodSample {
                    pod: format!("p{i}").into(),
                    value_milli: *v,
                    timestamp: Timestamp::ZERO,
                    window_seconds: None,
                })
                .collect();
            let got = calc()
                .get_metric_replicas(
                    &mut Workspace::default(),
                    Timestamp::from_secs(0),
                    current,
                    target,
                    "qps",
                    Tolerances::default(),
                    Ok(PodIndex::default().index(&pods).matched(&items, &mut Vec::new())),
                )
                .unwrap();
            assert_eq!((got.replicas, got.usage_milli), (replicas, usage), "{samples:?}");
        }
        // Resource AverageValue goes through the same path.
        let pods: Vec<Pod> = (0..2).map(|i| pod_with_cpu(&format!("p{i}"), 100)).collect();
        let got = calc()
            .get_raw_resource_replicas(
                &mut Workspace::default(),
                Timestamp::from_secs(0),
                2,
                250,
                "cpu",
                "",
                Tolerances::default(),
                Ok(PodIndex::default().index(&pods).matched(&[usage("p0", 500), usage("p1", 500)], &mut Vec::new())),
            )
            .unwrap();
        assert_eq!((got.replicas, got.usage_milli), (4, 500));
    }

    #[test]
    fn missing_pods_backfill_at_request_on_scale_down() {
        let pods: Vec<Pod> = (0..4).map(|i| pod_with_cpu(&format!("p{i}"), 1000)).collect();
        let metrics = vec![usage("p0", 400), usage("p1", 95), usage("p2", 800)];
        let got = resource_replicas(&calc(), &pods, &metrics, 4, 50).unwrap();
        assert_eq!(got.replicas, 4);
        assert_eq!(got.utilization, 43);
    }

    #[test]
    fn errors_carry_go_messages() {
        let pods = vec![pod_with_cpu("p0", 100)];
        let err = calc()
            .get_resource_replicas(
                &mut Workspace::default(),
                Timestamp::from_secs(0),
                1,
                50,
                "cpu",
                "",
                Tolerances::default(),
                Ok(PodIndex::default().index(&pods).matched::<PodMetricsItem>(&[], &mut Vec::new())),
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "unable to get metrics for resource cpu: no metrics returned from resource metrics API"
        );
        let mut no_request = Pod::running("x");
        no_request.containers.push(Container { name: "c".into(), ..Default::default() });
        assert_eq!(
            calculate_requests(&[no_request], "", "cpu", &calc()).unwrap_err().to_string(),
            "missing request for cpu in container c of Pod x"
        );
    }

    #[test]
    fn group_pods_table() {
        let now = Timestamp::from_secs(0);
        let sample = |ts: i64, window: i64| PodMetric {
            timestamp: Timestamp::from_secs(ts),
            window_nanos: window * 1_000_000_000,
            value: 1,
        };
        let ready = |status, at: i64| Some(ReadyCondition { status, last_transition_time: Timestamp::from_secs(at) });
        // (start, ready condition, sample, resource, bucket)
        let cases = [
            (Some(-60), ready(ConditionStatus::True, -30), sample(0, 30), "cpu", "ready"),
            (Some(-60), ready(ConditionStatus::True, -30), sample(0, 60), "cpu", "unready"),
            // A negative window moves the cutoff before the transition: a sample taken 10 s
            // before it counts when the window is -30 s, not when it is -5 s.
            (Some(-60), ready(ConditionStatus::True, -30), sample(-40, -30), "cpu", "ready"),
            (Some(-60), ready(ConditionStatus::True, -30), sample(-40, -5), "cpu", "unready"),
            (Some(-600), ready(ConditionStatus::False, -594), sample(0, 0), "cpu", "unready"),
            (Some(-600), ready(ConditionStatus::False, -590), sample(0, 0), "cpu", "ready"),
            (None, None, sample(0, 0), "cpu", "unready"),
            (None, None, sample(0, 0), "memory", "ready"),
        ];
        for (start, cond, metric, resource, bucket) in cases {
            let mut pod = Pod::running("p");
            pod.phase = PodPhase::Succeeded;
            pod.start_time = start.map(Timestamp::from_secs);
            pod.ready_condition = cond;
            let metrics = PodMetricsInfo::from([("p".to_string(), metric)]);
            let g = group_pods(&[pod], &metrics, resource, &calc(), now);
            let got = if g.ready_count == 1 { "ready" } else { "unready" };
            assert_eq!(got, bucket, "{start:?} {cond:?} {metric:?} {resource}");
        }
    }

    #[test]
    fn external_sums_saturate() {
        let c = calc();
        let pods: Vec<Pod> = (0..3).map(|i| Pod::running(format!("p{i}"))).collect();
        let got = c
            .get_external_metric_replicas(
                3,
                i64::MAX,
                "qps",
                Tolerances::default(),
                "default",
                None,
                Ok(&[1 << 62, 1 << 62]),
                &pods,
            )
            .unwrap();
        assert_eq!((got.replicas, got.usage_milli), (3, i64::MAX));
        let got = c
            .get_external_per_pod_metric_replicas(1, 1, "qps", Tolerances::default(), "default", None, Ok(&[i64::MAX]))
            .unwrap();
        assert_eq!((got.replicas, got.usage_milli), (i32::MAX, i64::MAX));
        let err = c
            .get_external_per_pod_metric_replicas(
                1,
                1,
                "qps",
                Tolerances::default(),
                "ns",
                None,
                Err(&ReadError::from("boom")),
            )
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "unable to get external metric ns/qps/nil: unable to fetch metrics from external metrics API: boom"
        );
    }

    #[test]
    fn object_fetch_error_keeps_go_argument_order_before_1_37() {
        let r =
            CrossVersionObjectReference { kind: "Deployment".into(), name: "d".into(), api_version: "apps/v1".into() };
        let err = |v| {
            calc_at(v)
                .get_object_metric_replicas(
                    3,
                    1,
                    "qps",
                    Tolerances::default(),
                    "ns",
                    &r,
                    Err(&ReadError::from("x")),
                    &[],
                )
                .unwrap_err()
        };
        assert_eq!(
            err(KubernetesVersion::V1_36).to_string(),
            "unable to get metric qps: Deployment on ns d/unable to fetch metrics from custom metrics API: x"
        );
        assert_eq!(
            err(KubernetesVersion::V1_37).to_string(),
            "unable to get metric qps on Deployment ns/d: unable to fetch metrics from custom metrics API: x"
        );
    }

    #[test]
    fn pod_level_requests_per_release() {
        // Two containers (one without a cpu request), a sidecar, pod-level cpu and overhead.
        let mut pod = Pod::running("p");
        pod.containers = vec![
            Container { name: "a".into(), requests_milli: BTreeMap::from([("cpu".into(), 100)]), ..Default::default() },
            Container { name: "b".into(), ..Default::default() },
        ];
        pod.init_containers = vec![Container {
            name: "s".into(),
            requests_milli: BTreeMap::from([("memory".into(), 64_000)]),
            restart_policy: Some("Always".into()),
        }];
        pod.pod_requests_milli = BTreeMap::from([("cpu".into(), 800)]);
        pod.overhead_milli = BTreeMap::from([("cpu".into(), 250), ("memory".into(), 10_000)]);
        let requests = |v, resource| {
            let mut c = calc_at(v);
            c.pod_level_resources = v >= KubernetesVersion::V1_34;
            calculate_requests(std::slice::from_ref(&pod), "", resource, &c).map(|m| m["p"]).map_err(|e| e.to_string())
        };
        use KubernetesVersion::*;
        // 1.33 ignores pod-level requests: every container needs one.
        assert_eq!(requests(V1_33, "cpu"), Err("missing request for cpu in container b of Pod p".into()));
        // 1.34-1.37: the pod-level value plus overhead; memory: the containers' aggregate plus overhead.
        assert_eq!(requests(V1_34, "cpu"), Ok(1050));
        assert_eq!(requests(V1_37, "cpu"), Ok(1050));
        assert_eq!(requests(V1_37, "memory"), Ok(74_000));
        // 1.38 excludes the overhead.
        assert_eq!(requests(V1_38, "cpu"), Ok(800));
        assert_eq!(requests(V1_38, "memory"), Ok(64_000));
        assert_eq!(
            requests(V1_38, "hugepages-2Mi"),
            Err("missing pod-level request for hugepages-2Mi in Pod p".into())
        );
    }

    #[test]
    fn missing_container_is_an_error_from_1_35() {
        let pods = [pod_with_cpu("p", 100)];
        let request =
            |v| calculate_requests(&pods, "sidecar", "cpu", &calc_at(v)).map(|m| m["p"]).map_err(|e| e.to_string());
        assert_eq!(request(KubernetesVersion::V1_34), Ok(0));
        assert_eq!(request(KubernetesVersion::V1_35), Err("container sidecar not found in Pod p".into()));
    }

    #[test]
    fn succeeded_pods_are_ignored_from_1_38() {
        let mut done = Pod::running("done");
        done.phase = PodPhase::Succeeded;
        let metrics = PodMetricsInfo::from([("done".to_string(), PodMetric::value(1))]);
        let g =
            |v, m: &PodMetricsInfo| group_pods(std::slice::from_ref(&done), m, "memory", &calc_at(v), Timestamp::ZERO);
        assert_eq!(g(KubernetesVersion::V1_37, &metrics).ready_count, 1);
        assert!(g(KubernetesVersion::V1_37, &PodMetricsInfo::new()).missing.contains("done"));
        assert!(g(KubernetesVersion::V1_38, &metrics).ignored.contains("done"));
        assert!(g(KubernetesVersion::V1_38, &PodMetricsInfo::new()).ignored.contains("done"));
    }

    /// #142192 (1.38): `GetResourceUtilizationRatio` sums exactly and saturates only the int32
    /// utilization; before, two pods at 5×10^18 milli-cores wrap the sum negative.
    #[test]
    fn resource_utilization_past_int64_per_release() {
        use KubernetesVersion::*;
        let pods: Vec<Pod> = (0..2).map(|i| pod_with_cpu(&format!("p{i}"), 1000)).collect();
        let metrics: Vec<PodMetricsItem> = (0..2).map(|i| usage(&format!("p{i}"), 5_000_000_000_000_000_000)).collect();
        let at = |v| {
            let got = resource_replicas(&calc_at(v), &pods, &metrics, 2, 50).unwrap();
            (got.replicas, got.utilization, got.raw_value_milli)
        };
        // Σ = 10^19 wraps to -8446744073709551616; × 100 / 2000 wraps, narrowed to int32.
        for v in [V1_33, V1_37] {
            assert_eq!(at(v), (-28_357_982, -708_949_574, -4_223_372_036_854_775_808), "{v}");
        }
        // Exact: 5×10^17 % saturates at MaxInt32; the raw average is the true 5×10^18.
        assert_eq!(at(V1_38), (85_899_346, i32::MAX, 5_000_000_000_000_000_000));
    }

    #[test]
    fn overflow_per_release() {
        use KubernetesVersion::*;
        let pods: Vec<Pod> = (0..3).map(|i| Pod::running(format!("p{i}"))).collect();
        let tol = Tolerances::default();
        // External Value: the sum wraps before 1.35 (negative: scale to MinInt32 on amd64).
        let external = |v| {
            let r = calc_at(v)
                .get_external_metric_replicas(3, 1000, "qps", tol, "default", None, Ok(&[i64::MAX, 1000]), &pods)
                .unwrap();
            (r.replicas, r.usage_milli)
        };
        assert_eq!(external(V1_34), (i32::MIN, i64::MIN + 999));
        assert_eq!(external(V1_35), (i32::MAX, i64::MAX));
        // getUsageRatioReplicaCount: capped from 1.35, MinInt32 on amd64 before.
        let ratio = |v| calc_at(v).get_usage_ratio_replica_count(3, 1e10, tol, &pods).unwrap();
        assert_eq!((ratio(V1_34), ratio(V1_35), ratio(V1_38)), (i32::MIN, i32::MAX, i32::MAX));
        // External AverageValue: replicas capped from 1.34; the saturated sum's per-pod usage too.
        let per_pod = |v| {
            let r = calc_at(v)
                .get_external_per_pod_metric_replicas(1, 1, "qps", tol, "default", None, Ok(&[i64::MAX]))
                .unwrap();
            (r.replicas, r.usage_milli)
        };
        assert_eq!(per_pod(V1_33), (i32::MIN, i64::MIN));
        assert_eq!(per_pod(V1_34), (i32::MAX, i64::MAX));
        // The sum's guard came with the cap (#127050): before, it wraps to a negative sum.
        let wrapped = |v| {
            let r = calc_at(v)
                .get_external_per_pod_metric_replicas(2, 1000, "qps", tol, "default", None, Ok(&[i64::MAX, 1000]))
                .unwrap();
            (r.replicas, r.usage_milli)
        };
        assert_eq!(wrapped(V1_33), (i32::MIN, (((i64::MIN + 999) as f64) / 2.0).ceil() as i64));
        assert_eq!(wrapped(V1_34), (i32::MAX, i64::MAX));
        // Object AverageValue at zero replicas: int64(+Inf) before 1.38, 0 in 1.38.
        let r = CrossVersionObjectReference { kind: "Service".into(), name: "s".into(), api_version: "v1".into() };
        let object = |v| {
            let sample = ObjectSample { value_milli: 5000, timestamp: Timestamp::ZERO };
            let got = calc_at(v).get_object_per_pod_metric_replicas(0, 1000, "qps", tol, "ns", &r, Ok(sample)).unwrap();
            (got.replicas, got.usage_milli)
        };
        assert_eq!(object(V1_37), (5, i64::MIN));
        assert_eq!(object(V1_38), (5, 0));
    }
}
