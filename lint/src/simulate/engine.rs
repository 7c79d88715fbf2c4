//! The simulation engine: turns a [`Plan`] into pods and metric samples sync by sync, runs
//! [`reconcile_autoscaler`] on each, and records what every sync saw and decided.
//!
//! Pure (no IO, no clock): the same plan always gives the same [`Simulation`].
//!
//! Model (see also the README section):
//! - Syncs run at `t = 0, p, 2p, …` while `t < duration` (`p` = the sync period): the
//!   controller syncs a newly created HPA at once, and a 24 h run with 15 s syncs has 5760 syncs.
//! - The `replicas` pods at t = 0 have been running and Ready for long (past the CPU
//!   initialization period). A pod created by a rescale at `t` has `startTime = t`, is
//!   `Pending` until `t + podStartAfter`, then `Running` with `Ready=False`
//!   (`lastTransitionTime = t`), and `Ready=True` from `t + podReadyAfter` (that instant is its
//!   `lastTransitionTime`). A scale-down deletes Pending pods first, then unready ones, then
//!   the newest; deleted pods disappear at once.
//! - `status.replicas` of the scale is the number of pods that exist.
//! - Every Running pod reports samples, Pending pods none. Resource samples (metrics.k8s.io)
//!   carry `timestamp = now` and `window = metricWindow` (15 s), so a pod that turned Ready
//!   less than one window ago has a stale sample that the CPU readiness rules discard.
//! - `perPod` is every Running pod's usage, `utilization` a percentage of each pod's (or
//!   container's) request, and `total` a load shared evenly by the Ready pods (Running pods
//!   that are not Ready get no traffic and report 0). A pod's resource usage is split over its
//!   containers in proportion to their requests, unless a `container/<c>/<r>` key gives a
//!   container its own usage.
//! - Object metrics report `value` for every Object metric of that name; External metrics
//!   report one series whose value is `value`. Custom Pods samples have the adapter's default
//!   window.
//! - A metric with no value yet, or marked `unavailable`, gets an empty answer from its
//!   metrics API (the controller then fails that metric).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use hpa_core::api::v2::{HorizontalPodAutoscaler, MetricSpec, MetricValueStatus};
use hpa_core::evaluator::controller::effective_metrics;
use hpa_core::evaluator::{
    ConditionStatus, Container, ContainerUsage, ControllerOptions, ControllerState, Normalization, ObjectMetricValue,
    Pod, PodMetricsItem, PodPhase, PodSample, ReadyCondition, Scale, SyncInput, SyncOutcome, SyncResult, Timestamp,
    reconcile_autoscaler,
};

/// One metric's load, as the scenario gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadValue {
    /// Every Running pod's usage, in milli-units.
    PerPod(i64),
    /// A total shared evenly by the Ready pods, in milli-units.
    Total(i64),
    /// A percentage of each pod's (or container's) request.
    Utilization(f64),
    /// The value of an Object metric, or the (single-series) value of an External metric.
    Value(i64),
    /// The metrics API has no data for it.
    Unavailable,
}

impl LoadValue {
    /// The value, unless it is [`LoadValue::Unavailable`].
    fn available(self) -> Option<LoadValue> {
        (self != LoadValue::Unavailable).then_some(self)
    }
}

/// What a load key names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MetricKey {
    /// `cpu`, `memory`: a Resource metric (the pod's total usage).
    Resource(String),
    /// `container/<container>/<resource>`: a ContainerResource metric.
    Container {
        /// The container.
        container: String,
        /// The resource.
        resource: String,
    },
    /// The name of a Pods metric.
    Pods(String),
    /// The name of an Object metric.
    Object(String),
    /// The name of an External metric.
    External(String),
}

impl fmt::Display for MetricKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetricKey::Resource(r) => f.write_str(r),
            MetricKey::Container { container, resource } => write!(f, "container/{container}/{resource}"),
            MetricKey::Pods(n) | MetricKey::Object(n) | MetricKey::External(n) => f.write_str(n),
        }
    }
}

impl MetricKey {
    /// Whether a value suits this kind of metric (the message says why not).
    pub fn accepts(&self, v: &LoadValue) -> Result<(), String> {
        match (self, v) {
            (_, LoadValue::Unavailable) => Ok(()),
            (
                MetricKey::Resource(_) | MetricKey::Container { .. },
                LoadValue::PerPod(_) | LoadValue::Total(_) | LoadValue::Utilization(_),
            ) => Ok(()),
            (MetricKey::Resource(_) | MetricKey::Container { .. }, LoadValue::Value(_)) => {
                Err("a resource metric takes perPod, total or utilization, not value".into())
            }
            (MetricKey::Pods(_), LoadValue::PerPod(_) | LoadValue::Total(_)) => Ok(()),
            (MetricKey::Pods(_), _) => Err("a Pods metric takes perPod or total".into()),
            (MetricKey::Object(_) | MetricKey::External(_), LoadValue::Value(_)) => Ok(()),
            (MetricKey::Object(_), _) => Err("an Object metric takes value (the object's value)".into()),
            (MetricKey::External(_), _) => Err("an External metric takes value (the sum of its series)".into()),
        }
    }
}

/// The pods' spec as far as the controller reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodTemplate {
    /// `spec.containers`, with their requests.
    pub containers: Vec<Container>,
    /// `spec.initContainers` (those with `restartPolicy: Always` are sidecars and count).
    pub init_containers: Vec<Container>,
    /// Pod-level `spec.resources.requests`, in milli-units.
    pub pod_requests_milli: BTreeMap<String, i64>,
}

/// The load from `at_ms` until the next phase: one value per key slot (`None`: none given).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPhase {
    /// When the phase starts, in ms.
    pub at_ms: i64,
    /// Per key slot of [`Plan::keys`], the value in force (earlier entries carried over).
    pub values: Vec<Option<LoadValue>>,
}

/// Everything a simulation needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The HPA (defaulted, internal form); its status is ignored.
    pub hpa: HorizontalPodAutoscaler,
    /// The controller's settings.
    pub options: ControllerOptions,
    /// `spec.replicas` at t = 0.
    pub initial_replicas: i32,
    /// The pods' spec.
    pub template: PodTemplate,
    /// How long a new pod stays Pending, in ms.
    pub pod_start_after_ms: i64,
    /// How long after creation a new pod turns Ready, in ms (≥ `pod_start_after_ms`).
    pub pod_ready_after_ms: i64,
    /// The window of resource-metric samples.
    pub metric_window: Duration,
    /// The scale's selector (any non-empty string).
    pub selector: String,
    /// How long to simulate, in ms (syncs run while `t < duration`).
    pub duration_ms: i64,
    /// The distinct load keys of the HPA's metrics (the slots of [`LoadPhase::values`]).
    pub keys: Vec<MetricKey>,
    /// For each metric of the HPA (effective metrics, in spec order), its key slot.
    pub bindings: Vec<Option<usize>>,
    /// The load over time, ordered by `at_ms`.
    pub load: Vec<LoadPhase>,
}

/// The pods at one sync, by state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PodCounts {
    /// Running and Ready.
    pub ready: i32,
    /// Running, not Ready yet.
    pub unready: i32,
    /// Pending.
    pub pending: i32,
}

/// One metric as one sync evaluated it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricObservation {
    /// The value written to `status.currentMetrics` (`None` on failure or when not computed).
    pub current: Option<MetricValueStatus>,
    /// The metric's proposal.
    pub proposal: Option<i32>,
    /// Why the metric failed.
    pub error: Option<String>,
}

/// A condition of the HPA after a sync, in short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionBrief {
    /// `AbleToScale`, `ScalingActive`, `ScalingLimited`, `ScaledToZero`.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// The reason.
    pub reason: String,
}

/// One controller sync.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// When, in ms since the start.
    pub at_ms: i64,
    /// `spec.replicas` before the sync.
    pub replicas: i32,
    /// The pods the sync saw.
    pub pods: PodCounts,
    /// The load phase in force (index into [`Plan::load`]).
    pub load_phase: Option<usize>,
    /// Each metric of the HPA, in spec order (empty when metrics were not evaluated).
    pub metrics: Vec<MetricObservation>,
    /// The highest metric proposal (`computeReplicasForMetrics`).
    pub proposal: Option<i32>,
    /// Stabilization and limits, when normalization ran.
    pub normalization: Option<Normalization>,
    /// `spec.replicas` after the sync.
    pub desired: i32,
    /// Whether the scale was written.
    pub rescaled: bool,
    /// How the sync ended.
    pub outcome: SyncOutcome,
    /// Why the count is what it is, in words.
    pub reason: String,
    /// The HPA's conditions after the sync.
    pub conditions: Vec<ConditionBrief>,
}

/// A finished simulation.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The HPA's metrics as the controller sees them (an empty list becomes cpu at 80 %).
    pub metrics: Vec<MetricSpec>,
    /// The load key of each metric (`None` for an unknown metric type).
    pub metric_keys: Vec<Option<String>>,
    /// One step per sync.
    pub steps: Vec<Step>,
}

/// One simulated pod's timeline.
#[derive(Debug, Clone, Copy)]
struct PodClock {
    created_ms: i64,
    running_ms: i64,
    ready_ms: i64,
}

/// For one resource: which key slots give its usage.
#[derive(Debug, Clone)]
struct ResourcePlan {
    name: String,
    /// The slot of the pod-level key (`cpu`).
    pod_slot: Option<usize>,
    /// Per metric container (same order as [`Simulator::metric_containers`]): the slot of its
    /// `container/<c>/<resource>` key.
    container_slots: Vec<Option<usize>>,
    /// Per metric container, its request for this resource (0 when none).
    requests: Vec<i64>,
    /// The pod's request for this resource (pod-level when set, else the containers' sum).
    pod_request: i64,
}

/// Drives the controller over a plan, one sync at a time.
#[derive(Debug)]
pub struct Simulator<'a> {
    plan: &'a Plan,
    metrics: Vec<MetricSpec>,
    hpa: HorizontalPodAutoscaler,
    state: ControllerState,
    input: SyncInput,
    clocks: Vec<PodClock>,
    next_serial: u64,
    current: i32,
    sync: usize,
    period_ms: i64,
    phase: Option<usize>,
    /// Regular containers and sidecars: the containers metrics-server reports.
    metric_containers: Vec<String>,
    resources: Vec<ResourcePlan>,
    /// The structure the metric answers were built for: running pods' indexes, availability.
    built_running: Vec<usize>,
    built_available: Vec<bool>,
    built: bool,
    running: Vec<usize>,
    available: Vec<bool>,
    /// This sync's value per key slot (`None`: unavailable).
    values: Vec<Option<LoadValue>>,
    /// Scratch: one resource's usage per container.
    shares: Vec<i64>,
}

/// The value of a key slot in `values`, unless it is missing or unavailable.
fn lookup(values: &[Option<LoadValue>], slot: Option<usize>) -> Option<LoadValue> {
    slot.and_then(|s| values.get(s).copied().flatten()).and_then(LoadValue::available)
}

impl<'a> Simulator<'a> {
    /// Prepares a simulation: the initial pods, the controller's empty memory.
    pub fn new(plan: &'a Plan) -> Simulator<'a> {
        let mut hpa = plan.hpa.clone();
        hpa.status = Default::default();
        let metrics = effective_metrics(&hpa);
        let period_ms = i64::try_from(plan.options.sync_period.as_millis()).unwrap_or(15_000).max(1);
        let t = &plan.template;
        let sidecars = t.init_containers.iter().filter(|c| c.restart_policy.as_deref() == Some("Always"));
        let containers: Vec<&Container> = t.containers.iter().chain(sidecars).collect();
        let metric_containers: Vec<String> = containers.iter().map(|c| c.name.clone()).collect();
        let mut names: Vec<String> = Vec::new();
        for k in &plan.keys {
            if let MetricKey::Resource(r) | MetricKey::Container { resource: r, .. } = k
                && !names.contains(r)
            {
                names.push(r.clone());
            }
        }
        names.sort();
        let resources = names
            .into_iter()
            .map(|name| {
                let pod_slot = plan.keys.iter().position(|k| matches!(k, MetricKey::Resource(r) if *r == name));
                let container_slots = metric_containers
                    .iter()
                    .map(|c| {
                        plan.keys.iter().position(
                            |k| matches!(k, MetricKey::Container { container, resource } if container == c && *resource == name),
                        )
                    })
                    .collect();
                let requests: Vec<i64> =
                    containers.iter().map(|c| c.requests_milli.get(&name).copied().unwrap_or(0)).collect();
                let pod_request =
                    t.pod_requests_milli.get(&name).copied().unwrap_or_else(|| requests.iter().sum::<i64>());
                ResourcePlan { name, pod_slot, container_slots, requests, pod_request }
            })
            .collect();
        let scale = Scale {
            spec_replicas: plan.initial_replicas,
            status_replicas: plan.initial_replicas,
            selector: plan.selector.clone(),
        };
        let mut sim = Simulator {
            plan,
            metrics,
            hpa,
            state: ControllerState::default(),
            input: SyncInput::new(Timestamp::from_millis(0), scale),
            clocks: Vec::new(),
            next_serial: 1,
            current: plan.initial_replicas,
            sync: 0,
            period_ms,
            phase: None,
            metric_containers,
            resources,
            built_running: Vec::new(),
            built_available: Vec::new(),
            built: false,
            running: Vec::new(),
            available: Vec::new(),
            values: Vec::new(),
            shares: Vec::new(),
        };
        // Old pods: started and Ready long before t = 0.
        let init = i64::try_from(plan.options.cpu_initialization_period.as_millis()).unwrap_or(0);
        let old = -(init + plan.pod_ready_after_ms + 3_600_000);
        for _ in 0..plan.initial_replicas.max(0) {
            sim.add_pod(PodClock { created_ms: old, running_ms: old, ready_ms: old + plan.pod_ready_after_ms });
        }
        sim
    }

    fn add_pod(&mut self, clock: PodClock) {
        let t = &self.plan.template;
        let pod = Pod {
            name: format!("{}-{}", self.plan.hpa.spec.scale_target_ref.name, self.next_serial),
            phase: PodPhase::Pending,
            deleted: false,
            start_time: Some(Timestamp::from_millis(clock.created_ms)),
            ready_condition: None,
            containers: t.containers.clone(),
            init_containers: t.init_containers.clone(),
            pod_requests_milli: t.pod_requests_milli.clone(),
        };
        self.next_serial += 1;
        self.input.pods.push(pod);
        self.clocks.push(clock);
    }

    /// Removes `n` pods the way a ReplicaSet picks them: Pending first, then not Ready, then
    /// the most recently created.
    fn remove_pods(&mut self, n: usize, now: i64) {
        for _ in 0..n {
            let victim = self
                .clocks
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| (now >= c.running_ms, now >= c.ready_ms, std::cmp::Reverse(c.created_ms)))
                .map(|(i, _)| i);
            let Some(i) = victim else { return };
            self.clocks.remove(i);
            self.input.pods.remove(i);
        }
    }

    /// The instant of the next sync, if it is before the end.
    pub fn next_at_ms(&self) -> Option<i64> {
        let at = i64::try_from(self.sync).ok()?.checked_mul(self.period_ms)?;
        (at < self.plan.duration_ms).then_some(at)
    }

    /// Runs the next sync; `None` once the duration is over.
    pub fn step(&mut self) -> Option<Step> {
        let at = self.next_at_ms()?;
        self.sync += 1;
        let now = Timestamp::from_millis(at);
        self.input.now = now;

        // Pods at `now`.
        let mut counts = PodCounts::default();
        self.running.clear();
        for (i, (pod, clock)) in self.input.pods.iter_mut().zip(&self.clocks).enumerate() {
            let running = at >= clock.running_ms;
            let ready = running && at >= clock.ready_ms;
            pod.phase = if running { PodPhase::Running } else { PodPhase::Pending };
            pod.ready_condition = Some(if ready {
                ReadyCondition {
                    status: ConditionStatus::True,
                    last_transition_time: Timestamp::from_millis(clock.ready_ms),
                }
            } else {
                ReadyCondition {
                    status: ConditionStatus::False,
                    last_transition_time: Timestamp::from_millis(clock.created_ms),
                }
            });
            match (running, ready) {
                (true, true) => counts.ready += 1,
                (true, false) => counts.unready += 1,
                _ => counts.pending += 1,
            }
            if running {
                self.running.push(i);
            }
        }
        if let Ok(scale) = &mut self.input.scale {
            scale.spec_replicas = self.current;
            scale.status_replicas = i32::try_from(self.input.pods.len()).unwrap_or(i32::MAX);
        }

        // The load in force.
        while self.plan.load.get(self.phase.map_or(0, |p| p + 1)).is_some_and(|l| l.at_ms <= at) {
            self.phase = Some(self.phase.map_or(0, |p| p + 1));
        }
        let values = self.phase.and_then(|p| self.plan.load.get(p)).map(|l| l.values.as_slice()).unwrap_or(&[]);
        self.values.clear();
        self.values.extend((0..self.plan.keys.len()).map(|i| lookup(values, Some(i))));
        self.available.clear();
        self.available.extend(self.values.iter().map(Option::is_some));
        if !self.built || self.running != self.built_running || self.available != self.built_available {
            self.build_answers();
        }
        self.fill_answers(now, counts.ready);

        let result = reconcile_autoscaler(&self.hpa, &mut self.state, &self.input, &self.plan.options);
        let before = self.current;
        let after = if result.rescaled { result.rescale_to.unwrap_or(before) } else { before };
        let step = self.record(at, counts, &result, before, after);
        self.hpa.status = result.status;

        if after > before {
            let clock = PodClock {
                created_ms: at,
                running_ms: at + self.plan.pod_start_after_ms,
                ready_ms: at + self.plan.pod_ready_after_ms,
            };
            for _ in before.max(0)..after {
                self.add_pod(clock);
            }
        } else if after < before {
            let n = usize::try_from(i64::from(before) - i64::from(after)).unwrap_or(0);
            self.remove_pods(n.min(self.input.pods.len()), at);
        }
        self.current = after;
        Some(step)
    }

    /// The current value of a key slot, when available.
    fn value(&self, slot: Option<usize>) -> Option<LoadValue> {
        lookup(&self.values, slot)
    }

    /// Builds the metric answers' structure (which pods, containers, resources and metric
    /// names appear); the values are written by [`Self::fill_answers`].
    fn build_answers(&mut self) {
        let window = self.plan.metric_window;
        let zero = Timestamp::from_millis(0);
        let mut items = Vec::with_capacity(self.running.len());
        for &i in &self.running {
            let Some(pod) = self.input.pods.get(i) else { continue };
            let containers = self
                .metric_containers
                .iter()
                .enumerate()
                .map(|(c, name)| {
                    let usage_milli = self
                        .resources
                        .iter()
                        .filter(|r| {
                            self.value(r.pod_slot).is_some()
                                || self.value(r.container_slots.get(c).copied().flatten()).is_some()
                        })
                        .map(|r| (r.name.clone(), 0))
                        .collect();
                    ContainerUsage { name: name.clone(), usage_milli }
                })
                .collect();
            items.push(PodMetricsItem { pod: pod.name.clone(), timestamp: zero, window, containers });
        }
        // A pod whose containers report nothing is not listed at all.
        items.retain(|item| item.containers.iter().any(|c| !c.usage_milli.is_empty()));
        self.input.resource_metrics = Ok(items);

        let mut pods_metrics = BTreeMap::new();
        let mut external = BTreeMap::new();
        for (slot, key) in self.plan.keys.iter().enumerate() {
            if self.value(Some(slot)).is_none() {
                continue;
            }
            match key {
                MetricKey::Pods(name) => {
                    let samples = self
                        .running
                        .iter()
                        .filter_map(|&i| self.input.pods.get(i))
                        .map(|p| PodSample { pod: p.name.clone(), value_milli: 0, timestamp: zero, window: None })
                        .collect::<Vec<_>>();
                    pods_metrics.insert(name.clone(), samples);
                }
                MetricKey::External(name) => {
                    external.insert(name.clone(), vec![0]);
                }
                _ => {}
            }
        }
        self.input.pods_metrics = Ok(pods_metrics);
        self.input.external_metrics = Ok(external);

        let mut objects = Vec::new();
        for (spec, slot) in self.metrics.iter().zip(&self.plan.bindings) {
            if let Some(o) = &spec.object
                && spec.type_ == "Object"
                && self.value(*slot).is_some()
            {
                objects.push(ObjectMetricValue {
                    described_object: o.described_object.clone(),
                    metric: o.metric.name.clone(),
                    value_milli: 0,
                    timestamp: zero,
                });
            }
        }
        self.input.object_metrics = Ok(objects);

        self.built_running.clone_from(&self.running);
        self.built_available.clone_from(&self.available);
        self.built = true;
    }

    /// Writes this sync's values and timestamps into the answers built by
    /// [`Self::build_answers`].
    fn fill_answers(&mut self, now: Timestamp, ready: i32) {
        let ready = i64::from(ready.max(0));
        // The k-th Ready pod's share of a total.
        let share = |total: i64, k: i64| {
            if ready == 0 {
                return 0;
            }
            total / ready + i64::from(k < total % ready)
        };
        let per_pod = |v: LoadValue, request: i64, is_ready: bool, k: i64| -> i64 {
            match v {
                LoadValue::PerPod(x) => x,
                LoadValue::Total(total) if is_ready => share(total, k),
                LoadValue::Utilization(p) => (request as f64 * p / 100.0).round() as i64,
                _ => 0,
            }
        };
        let values = &self.values;
        let pods = &self.input.pods;

        // Resource metrics: one item per Running pod, in `running` order (no items at all when
        // no resource has data).
        if let Ok(items) = &mut self.input.resource_metrics {
            let shares = &mut self.shares;
            let mut k = 0i64;
            for (item, &i) in items.iter_mut().zip(&self.running) {
                let is_ready = pods.get(i).is_some_and(Pod::is_ready);
                item.timestamp = now;
                for r in &self.resources {
                    // Explicit container values first, then the rest of the pod's usage split
                    // over the other containers in proportion to their requests.
                    shares.clear();
                    shares.resize(r.container_slots.len(), 0);
                    let mut explicit_sum = 0i64;
                    let mut weights = 0i64;
                    let mut others = 0i64;
                    for (c, slot) in r.container_slots.iter().enumerate() {
                        let request = r.requests.get(c).copied().unwrap_or(0);
                        match lookup(values, *slot) {
                            Some(v) => {
                                let u = per_pod(v, request, is_ready, k);
                                explicit_sum = explicit_sum.saturating_add(u);
                                if let Some(s) = shares.get_mut(c) {
                                    *s = u;
                                }
                            }
                            None => {
                                weights += request;
                                others += 1;
                            }
                        }
                    }
                    if let Some(v) = lookup(values, r.pod_slot) {
                        let rest = per_pod(v, r.pod_request, is_ready, k).saturating_sub(explicit_sum).max(0);
                        let mut given = 0i64;
                        let mut seen = 0i64;
                        for (c, slot) in r.container_slots.iter().enumerate() {
                            if lookup(values, *slot).is_some() {
                                continue;
                            }
                            seen += 1;
                            let u = if seen == others {
                                rest - given
                            } else if weights > 0 {
                                let w = i128::from(r.requests.get(c).copied().unwrap_or(0));
                                i64::try_from(i128::from(rest) * w / i128::from(weights)).unwrap_or(0)
                            } else {
                                rest / others
                            };
                            given += u;
                            if let Some(s) = shares.get_mut(c) {
                                *s = u;
                            }
                        }
                    }
                    for (c, usage) in item.containers.iter_mut().enumerate() {
                        if let Some(slot) = usage.usage_milli.get_mut(&r.name) {
                            *slot = shares.get(c).copied().unwrap_or(0);
                        }
                    }
                }
                if is_ready {
                    k += 1;
                }
            }
        }

        // Custom Pods metrics.
        let keys = &self.plan.keys;
        if let Ok(map) = &mut self.input.pods_metrics {
            for (name, samples) in map.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::Pods(n) if n == name));
                let Some(v) = lookup(values, slot) else { continue };
                let mut k = 0i64;
                for (sample, &i) in samples.iter_mut().zip(&self.running) {
                    let is_ready = pods.get(i).is_some_and(Pod::is_ready);
                    sample.value_milli = per_pod(v, 0, is_ready, k);
                    sample.timestamp = now;
                    if is_ready {
                        k += 1;
                    }
                }
            }
        }

        // External and Object metrics.
        if let Ok(map) = &mut self.input.external_metrics {
            for (name, series) in map.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::External(n) if n == name));
                if let Some(LoadValue::Value(v)) = lookup(values, slot) {
                    series.iter_mut().for_each(|s| *s = v);
                }
            }
        }
        if let Ok(objects) = &mut self.input.object_metrics {
            for o in objects.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::Object(n) if *n == o.metric));
                if let Some(LoadValue::Value(v)) = lookup(values, slot) {
                    o.value_milli = v;
                    o.timestamp = now;
                }
            }
        }
    }

    fn record(&self, at_ms: i64, pods: PodCounts, r: &SyncResult, before: i32, after: i32) -> Step {
        let metrics = if r.metrics.is_empty() {
            Vec::new()
        } else {
            let mut m = vec![MetricObservation::default(); self.metrics.len()];
            for e in &r.metrics {
                if let Some(slot) = m.get_mut(e.index) {
                    *slot = MetricObservation {
                        current: e.current().cloned(),
                        proposal: e.proposal,
                        error: e.error.clone(),
                    };
                }
            }
            m
        };
        Step {
            at_ms,
            replicas: before,
            pods,
            load_phase: self.phase,
            metrics,
            proposal: r.metric_desired_replicas,
            normalization: r.normalization,
            desired: after,
            rescaled: r.rescaled,
            outcome: r.outcome,
            reason: reason(r),
            conditions: r
                .conditions
                .iter()
                .map(|c| ConditionBrief { type_: c.type_.clone(), status: c.status.clone(), reason: c.reason.clone() })
                .collect(),
        }
    }
}

/// Why a sync ended where it did, in a few words: the controller's rescale reason, then what
/// stabilization and the limits did.
pub fn reason(r: &SyncResult) -> String {
    match r.outcome {
        SyncOutcome::FailedGetScale | SyncOutcome::FailedUpdateScale => r.error.clone().unwrap_or_default(),
        SyncOutcome::ScalingDisabled => "scaling is disabled since the replica count of the target is zero".into(),
        SyncOutcome::FailedComputeMetrics => {
            format!("no change: {}", r.metrics_error.as_deref().unwrap_or("the metrics could not be computed"))
        }
        SyncOutcome::Rescaled | SyncOutcome::Unchanged => {
            let mut parts: Vec<String> = Vec::new();
            if r.rescaled && !r.rescale_reason.is_empty() {
                parts.push(r.rescale_reason.clone());
            }
            if let Some(n) = &r.normalization {
                if n.stabilized != n.prenormalized {
                    parts.push(n.stabilization_reason.to_string());
                }
                if n.scaling_limited {
                    parts.push(n.limited.reason.to_string());
                }
                if !r.rescaled && parts.is_empty() {
                    parts.push(if n.prenormalized == r.current_replicas.unwrap_or(n.prenormalized) {
                        "within tolerance".to_string()
                    } else {
                        "recommendation equals the current count".to_string()
                    });
                }
            }
            if let Some(e) = &r.metrics_error
                && r.metric_desired_replicas.is_some()
            {
                parts.push(format!("some metrics failed: {e}"));
            }
            if parts.is_empty() { "no change".to_string() } else { parts.join("; ") }
        }
    }
}

/// Runs a whole plan.
pub fn simulate(plan: &Plan) -> Simulation {
    let mut sim = Simulator::new(plan);
    let capacity = usize::try_from(plan.duration_ms / sim.period_ms + 1).unwrap_or(0).min(1_000_000);
    let mut steps = Vec::with_capacity(capacity);
    while let Some(s) = sim.step() {
        steps.push(s);
    }
    let metric_keys = plan.bindings.iter().map(|b| b.and_then(|i| plan.keys.get(i)).map(ToString::to_string)).collect();
    Simulation { metrics: sim.metrics, metric_keys, steps }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hpa_core::api::v2::{MetricTarget, PodsMetricSource, ResourceMetricSource};

    fn plan(metrics: Vec<MetricSpec>, keys: Vec<MetricKey>, load: Vec<LoadPhase>) -> Plan {
        let mut hpa = HorizontalPodAutoscaler::default();
        hpa.metadata.name = "web".into();
        hpa.metadata.namespace = "default".into();
        hpa.spec.scale_target_ref.kind = "Deployment".into();
        hpa.spec.scale_target_ref.name = "web".into();
        hpa.spec.scale_target_ref.api_version = "apps/v1".into();
        hpa.spec.min_replicas = Some(2);
        hpa.spec.max_replicas = 10;
        let bindings = (0..metrics.len()).map(Some).collect();
        hpa.spec.metrics = metrics;
        Plan {
            hpa,
            options: ControllerOptions::default(),
            initial_replicas: 2,
            template: PodTemplate {
                containers: vec![Container {
                    name: "app".into(),
                    requests_milli: BTreeMap::from([("cpu".into(), 20)]),
                    restart_policy: None,
                }],
                ..Default::default()
            },
            pod_start_after_ms: 0,
            pod_ready_after_ms: 10_000,
            metric_window: Duration::from_secs(15),
            selector: "app=web".into(),
            duration_ms: 60_000,
            keys,
            bindings,
            load,
        }
    }

    fn cpu(target: i32) -> MetricSpec {
        MetricSpec {
            type_: "Resource".into(),
            resource: Some(ResourceMetricSource {
                name: "cpu".into(),
                target: MetricTarget {
                    type_: "Utilization".into(),
                    average_utilization: Some(target),
                    ..Default::default()
                },
            }),
            ..Default::default()
        }
    }

    #[test]
    fn observed_burst() {
        let p = plan(
            vec![cpu(20)],
            vec![MetricKey::Resource("cpu".into())],
            vec![
                LoadPhase { at_ms: 0, values: vec![Some(LoadValue::Total(1030))] },
                LoadPhase { at_ms: 15_000, values: vec![Some(LoadValue::PerPod(0))] },
            ],
        );
        let sim = simulate(&p);
        let path: Vec<(i64, i32, i32)> = sim.steps.iter().map(|s| (s.at_ms, s.replicas, s.desired)).collect();
        assert_eq!(path, [(0, 2, 4), (15_000, 4, 8), (30_000, 8, 10), (45_000, 10, 10)]);
        let first = &sim.steps[0].metrics[0];
        assert_eq!(first.current.as_ref().and_then(|c| c.average_utilization), Some(2575));
        assert_eq!(first.proposal, Some(258));
        // At 15 s the two new pods are Ready but their samples are stale: 2 ready + 2 counted unready.
        assert_eq!(sim.steps[1].pods, PodCounts { ready: 4, unready: 0, pending: 0 });
    }

    #[test]
    fn totals_are_shared_by_ready_pods_and_pods_metrics_count_unready_pods() {
        let pods = MetricSpec {
            type_: "Pods".into(),
            pods: Some(PodsMetricSource {
                metric: hpa_core::api::v2::MetricIdentifier { name: "rps".into(), selector: None },
                target: MetricTarget {
                    type_: "AverageValue".into(),
                    average_value: Some(hpa_core::api::Quantity::from_i64(10)),
                    ..Default::default()
                },
            }),
            ..Default::default()
        };
        let mut p = plan(
            vec![pods],
            vec![MetricKey::Pods("rps".into())],
            vec![LoadPhase { at_ms: 0, values: vec![Some(LoadValue::Total(40_000))] }],
        );
        p.pod_ready_after_ms = 30_000;
        p.hpa.spec.behavior = Some(Default::default());
        let sim = simulate(&p);
        // 40 rps over 2 pods = 20 per pod → 4 pods; at 15 s the 2 new pods are Running but not
        // Ready and report 0, so the average is 10: within target.
        let s: Vec<(i32, i32, String)> = sim
            .steps
            .iter()
            .map(|s| {
                let v = s.metrics[0].current.as_ref().and_then(|c| c.average_value.as_ref()).map(ToString::to_string);
                (s.replicas, s.desired, v.unwrap_or_default())
            })
            .collect();
        assert_eq!(s[0], (2, 4, "20".to_string()));
        assert_eq!(s[1], (4, 4, "10".to_string()));
        assert_eq!(sim.steps[1].pods, PodCounts { ready: 2, unready: 2, pending: 0 });
    }

    #[test]
    fn unavailable_metrics_fail() {
        let p = plan(vec![cpu(50)], vec![MetricKey::Resource("cpu".into())], vec![]);
        let sim = simulate(&p);
        assert_eq!(sim.steps[0].outcome, SyncOutcome::FailedComputeMetrics);
        assert!(sim.steps[0].reason.contains("no metrics returned"), "{}", sim.steps[0].reason);
        assert_eq!(sim.steps.len(), 4);
    }
}
