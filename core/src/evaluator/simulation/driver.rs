//! What the controller reads of the simulated world, and its sync: at every sync, the
//! [`SyncInput`] (named pods, the metrics APIs' answers) brought up to date, and one
//! [`Autoscaler::reconcile`] of the run's one [`Autoscaler`].

use std::collections::BTreeMap;

use super::record::{ReasonFacts, Tables};
use super::{
    FailedAnswers, LoadValue, PodClock, PodLoad, ResourcePlan, Split, Step, World, lookup, metric_containers,
    metric_containers_of,
};
use crate::api::v2::HorizontalPodAutoscalerStatus;
use crate::api::v2::MetricSpec;
use crate::evaluator::controller::{
    Autoscaler, ControllerState, MetricId, MetricQuery, ObjectMetricValue, Scale, SyncInput, SyncResult,
};
use crate::evaluator::replicas::{
    ConditionStatus, ContainerUsage, Pod, PodMetricsItem, PodPhase, PodSample, ReadyCondition,
};
use crate::evaluator::time::Timestamp;

/// The controller's view of the world, rebuilt at every sync.
#[derive(Debug)]
pub(super) struct Driver<'a> {
    /// The controller, with its memory of the HPA and the status it wrote.
    autoscaler: Autoscaler<'a>,
    input: SyncInput,
    /// Regular containers and sidecars of the plan's template: the containers metrics-server
    /// reports (a resumed pod of another spec reports its own, valued by position).
    metric_containers: Vec<String>,
    resources: Vec<ResourcePlan>,
    /// The structure the metric answers were built for: running pods' indexes, availability.
    built_running: Vec<usize>,
    built_available: Vec<bool>,
    built: bool,
    running: Vec<usize>,
    available: Vec<bool>,
    /// Scratch: each resource's split and its usage per container; per container, the
    /// resources its usage lists.
    splits: Vec<Split>,
    shares: Vec<Vec<i64>>,
    reported: Vec<Vec<usize>>,
    /// The world's version the pods and the answers' values were last written for.
    filled: Option<u64>,
    /// Answers that fail at every sync (a resumed sync's), written over the built ones.
    pub(super) failed: FailedAnswers,
}

impl<'a> Driver<'a> {
    /// The driver of `world`; the controller starts from `resumed` (its memory and the status
    /// its next sync reads), else from an empty memory and an empty status.
    pub(super) fn new(
        world: &World<'a>,
        resumed: Option<(ControllerState, HorizontalPodAutoscalerStatus)>,
    ) -> Driver<'a> {
        let plan = world.plan;
        let autoscaler = match resumed {
            Some((state, status)) => Autoscaler::new(&plan.hpa, &plan.options).with_status(status).with_state(state),
            // The plan's HPA is synced from an empty status.
            None => Autoscaler::new(&plan.hpa, &plan.options).with_status(Default::default()),
        };
        let scale = Scale {
            spec_replicas: plan.initial_replicas,
            status_replicas: plan.initial_replicas,
            selector: plan.selector.clone(),
        };
        let mut r = Driver {
            autoscaler,
            input: SyncInput::new(Timestamp::from_millis(0), scale),
            metric_containers: metric_containers(&plan.template).iter().map(|c| c.name.clone()).collect(),
            resources: ResourcePlan::all(plan),
            built_running: Vec::new(),
            built_available: Vec::new(),
            built: false,
            running: Vec::new(),
            available: Vec::new(),
            splits: Vec::new(),
            shares: Vec::new(),
            reported: Vec::new(),
            filled: None,
            failed: FailedAnswers::default(),
        };
        for clock in &world.pods {
            r.pod_added(world, *clock);
        }
        r
    }

    /// The metrics the controller evaluates.
    pub(super) fn metrics(&self) -> &[MetricSpec] {
        self.autoscaler.metrics()
    }

    /// A pod was created.
    pub(super) fn pod_added(&mut self, world: &World<'_>, clock: PodClock) {
        let t = world.spec_of(&clock);
        self.input.pods.push(Pod {
            name: world.pod_name(&clock).into(),
            phase: clock.terminated.unwrap_or(PodPhase::Pending),
            deleted: false,
            start_time: Some(Timestamp::from_millis(clock.created_ms)),
            ready_condition: None,
            containers: t.containers.clone(),
            init_containers: t.init_containers.clone(),
            pod_requests_milli: t.pod_requests_milli.clone(),
            overhead_milli: t.overhead_milli.clone(),
        });
    }

    /// The pod at index `i` was deleted.
    pub(super) fn pod_removed(&mut self, i: usize) {
        if i < self.input.pods.len() {
            self.input.pods.remove(i);
        }
    }

    /// One sync at `at`.
    pub(super) fn sync(&mut self, world: &World<'_>, at: i64, tables: &mut Tables) -> Step {
        let now = Timestamp::from_millis(at);
        self.input.now = now;

        // Pods at `now` (they change only with the world's version).
        let fresh = self.filled != Some(world.version);
        if fresh {
            self.update_pods(world);
        }
        if let Ok(scale) = &mut self.input.scale {
            scale.spec_replicas = world.current;
            scale.status_replicas = i32::try_from(world.active_pods()).unwrap_or(i32::MAX);
        }

        // The load in force.
        self.available.clear();
        self.available.extend(world.values.iter().map(Option::is_some));
        let rebuilt = !self.built || self.running != self.built_running || self.available != self.built_available;
        if rebuilt {
            self.build_answers(world);
        }
        self.fill_answers(world, now, fresh || rebuilt);
        self.filled = Some(world.version);

        let result = self.autoscaler.reconcile(&self.input);
        let before = world.current;
        let after = if result.rescaled { result.rescale_to.unwrap_or(before) } else { before };
        record(world, at, result, before, after, tables)
    }

    /// Every pod's phase and Ready condition, and which are Running.
    fn update_pods(&mut self, world: &World<'_>) {
        self.running.clear();
        for (i, ((pod, clock), state)) in self.input.pods.iter_mut().zip(&world.pods).zip(&world.states).enumerate() {
            if clock.terminated.is_some() {
                // It keeps its phase and its last Ready condition.
                continue;
            }
            pod.phase = if state.running { PodPhase::Running } else { PodPhase::Pending };
            pod.ready_condition = Some(if state.ready {
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
            if state.running {
                self.running.push(i);
            }
        }
    }

    /// Builds the metric answers' structure (which pods, containers, resources and metric
    /// names appear); the values are written by [`Self::fill_answers`].
    fn build_answers(&mut self, world: &World<'_>) {
        let plan = world.plan;
        let values = &world.values;
        let window_nanos = i64::try_from(plan.metric_window.as_nanos()).unwrap_or(i64::MAX);
        let zero = Timestamp::from_millis(0);
        let mut items = Vec::with_capacity(self.running.len());
        for &i in self.running.iter().filter(|&&i| world.reports(i, None)) {
            let Some(pod) = self.input.pods.get(i) else { continue };
            let names: Vec<&str> = match world.pods.get(i).and_then(|clock| clock.spec) {
                Some(_) => metric_containers_of(&pod.containers, &pod.init_containers)
                    .into_iter()
                    .map(|c| c.name.as_str())
                    .collect(),
                None => self.metric_containers.iter().map(String::as_str).collect(),
            };
            let silent = world.silent_containers(i);
            let containers = names
                .into_iter()
                .enumerate()
                .filter(|(_, name)| !silent.iter().any(|s| s == name))
                .map(|(c, name)| {
                    let usage_milli = self
                        .resources
                        .iter()
                        .filter(|r| r.reported_by(values, c))
                        .map(|r| (r.name.clone(), 0))
                        .collect();
                    ContainerUsage { name: name.to_string(), usage_milli }
                })
                .collect();
            items.push(PodMetricsItem { pod: pod.name.clone(), timestamp: zero, window_nanos, containers });
        }
        // A pod whose containers report nothing is not listed at all.
        items.retain(|item| item.containers.iter().any(|c| !c.usage_milli.is_empty()));
        self.input.resource_metrics = Ok(items);

        // One answer per metric asked for (name and selector, and an Object metric's object):
        // each metric spec's request, as the controller sends it.
        let mut pods_metrics = BTreeMap::new();
        let mut external = BTreeMap::new();
        let mut objects = Vec::new();
        for (spec, slot) in self.autoscaler.metrics().iter().zip(&plan.bindings) {
            if lookup(values, *slot).is_none() {
                continue;
            }
            match MetricQuery::of(spec) {
                Some(MetricQuery::Pods { metric }) => {
                    let samples = self
                        .running
                        .iter()
                        .filter(|&&i| world.reports(i, Some(&metric)))
                        .filter_map(|&i| self.input.pods.get(i))
                        .map(|p| PodSample {
                            pod: p.name.clone(),
                            value_milli: 0,
                            timestamp: zero,
                            window_seconds: None,
                        })
                        .collect::<Vec<_>>();
                    pods_metrics.insert(metric, samples);
                }
                Some(MetricQuery::External { metric }) => {
                    external.insert(metric, vec![0]);
                }
                Some(MetricQuery::Object { metric, .. }) => {
                    if let Some(o) = &spec.object {
                        objects.push(ObjectMetricValue {
                            described_object: o.described_object.clone(),
                            metric,
                            value_milli: 0,
                            timestamp: zero,
                        });
                    }
                }
                _ => {}
            }
        }
        self.input.pods_metrics = Ok(pods_metrics);
        self.input.external_metrics = Ok(external);
        self.input.object_metrics = Ok(objects);
        self.failed.apply(&mut self.input);

        self.built_running.clone_from(&self.running);
        self.built_available.clone_from(&self.available);
        self.built = true;
    }

    /// Writes this sync's timestamps, and its values unless they are those written last
    /// (`values` false), into the answers built by [`Self::build_answers`].
    fn fill_answers(&mut self, world: &World<'_>, now: Timestamp, values: bool) {
        if !values {
            if let Ok(items) = &mut self.input.resource_metrics {
                items.iter_mut().for_each(|item| item.timestamp = now);
            }
            if let Ok(map) = &mut self.input.pods_metrics {
                map.values_mut().flatten().for_each(|sample| sample.timestamp = now);
            }
            self.fill_value_answers(world, now);
            return;
        }
        let values = &world.values;
        let pods = &self.input.pods;
        // The Running pods that report `metric` (`None`: the resource metrics), in `running`
        // order, and how many of them are Ready: a total is shared by those.
        let running = &self.running;
        let ready_of = |metric: Option<&MetricId>| {
            let ready = reporting(running, world, metric).filter(|&i| pods.get(i).is_some_and(Pod::is_ready)).count();
            i64::try_from(ready).unwrap_or(0)
        };

        // Resource metrics: one item per Running pod, in `running` order (no items at all when
        // no resource has data).
        if let Ok(items) = &mut self.input.resource_metrics {
            let n = self.resources.len();
            self.splits.resize_with(n, Split::default);
            self.shares.resize_with(n, Vec::new);
            for (split, r) in self.splits.iter_mut().zip(&self.resources) {
                split.read(r, values);
            }
            // Per metric container, the resources its usage lists (in name order, the order of
            // both `resources` and the usage map).
            self.reported.resize_with(self.metric_containers.len(), Vec::new);
            for (c, reported) in self.reported.iter_mut().enumerate() {
                reported.clear();
                reported.extend(
                    self.resources.iter().enumerate().filter(|(_, r)| r.reported_by(values, c)).map(|(i, _)| i),
                );
            }
            // A resource whose shares are the same for every pod is split once.
            let ready_pods = ready_of(None);
            let load = PodLoad { ready: false, k: 0, ready_pods };
            for ((split, r), shares) in self.splits.iter().zip(&self.resources).zip(&mut self.shares) {
                if !split.depends_on_pod() {
                    split.shares(r, load, shares);
                }
            }
            let mut k = 0i64;
            for (item, i) in items.iter_mut().zip(reporting(&self.running, world, None)) {
                let ready = pods.get(i).is_some_and(Pod::is_ready);
                item.timestamp = now;
                let load = PodLoad { ready, k, ready_pods };
                for ((split, r), shares) in self.splits.iter().zip(&self.resources).zip(&mut self.shares) {
                    if split.depends_on_pod() {
                        split.shares(r, load, shares);
                    }
                }
                for ((usage, reported), c) in item.containers.iter_mut().zip(&self.reported).zip(0..) {
                    for (slot, &r) in usage.usage_milli.values_mut().zip(reported) {
                        *slot = self.shares.get(r).and_then(|s| s.get(c)).copied().unwrap_or(0);
                    }
                }
                if ready {
                    k += 1;
                }
            }
        }

        // Custom Pods metrics. Each answer is valued by the slot of the first metric spec that
        // asks for it; without a value it reports 0.
        let specs = self.autoscaler.metrics();
        let bindings = &world.plan.bindings;
        if let Ok(map) = &mut self.input.pods_metrics {
            for (id, samples) in map.iter_mut() {
                let slot = slot_of(specs, bindings, |q| matches!(q, MetricQuery::Pods { metric } if metric == id));
                let v = lookup(values, slot);
                let ready_pods = ready_of(Some(id));
                let mut k = 0i64;
                for (sample, i) in samples.iter_mut().zip(reporting(&self.running, world, Some(id))) {
                    let ready = pods.get(i).is_some_and(Pod::is_ready);
                    sample.value_milli = v.map_or(0, |v| super::per_pod(v, 0, PodLoad { ready, k, ready_pods }));
                    sample.timestamp = now;
                    if ready {
                        k += 1;
                    }
                }
            }
        }

        self.fill_value_answers(world, now);
    }

    /// Writes the External and Object metrics' answers.
    fn fill_value_answers(&mut self, world: &World<'_>, now: Timestamp) {
        let values = &world.values;
        let specs = self.autoscaler.metrics();
        let bindings = &world.plan.bindings;
        // External and Object metrics: a value that is not a `value` (which a scenario refuses
        // for these keys) reports 0.
        if let Ok(map) = &mut self.input.external_metrics {
            for (id, series) in map.iter_mut() {
                let slot = slot_of(specs, bindings, |q| matches!(q, MetricQuery::External { metric } if metric == id));
                let v = match lookup(values, slot) {
                    Some(LoadValue::Value(v)) => v,
                    _ => 0,
                };
                series.iter_mut().for_each(|s| *s = v);
            }
        }
        if let Ok(objects) = &mut self.input.object_metrics {
            for o in objects.iter_mut() {
                let answered = MetricQuery::object_value(o);
                let slot = slot_of(specs, bindings, |q| *q == answered);
                (o.value_milli, o.timestamp) = match lookup(values, slot) {
                    Some(LoadValue::Value(v)) => (v, now),
                    _ => (0, Timestamp::from_millis(0)),
                };
            }
        }
    }
}

/// The Running pods (indexes, in `running` order) that report `metric` (`None`: the resource
/// metrics; [`super::ResumedPod::silence`]).
fn reporting<'r>(
    running: &'r [usize],
    world: &'r World<'_>,
    metric: Option<&'r MetricId>,
) -> impl Iterator<Item = usize> + 'r {
    running.iter().copied().filter(move |&i| world.reports(i, metric))
}

/// The load slot of the first metric spec whose request ([`MetricQuery::of`]) is `wanted`.
fn slot_of(specs: &[MetricSpec], bindings: &[Option<usize>], wanted: impl Fn(&MetricQuery) -> bool) -> Option<usize> {
    specs
        .iter()
        .zip(bindings)
        .find(|(spec, _)| MetricQuery::of(spec).is_some_and(|q| wanted(&q)))
        .and_then(|(_, slot)| *slot)
}

/// The step of a sync, its texts and lists kept once per distinct value in `tables`.
fn record(world: &World<'_>, at_ms: i64, r: &SyncResult, before: i32, after: i32, tables: &mut Tables) -> Step {
    Step {
        at_ms,
        replicas: before,
        pods: world.counts,
        load_phase: world.phase,
        observations: tables.add_evaluations(world.plan.bindings.len(), r.metrics()),
        proposal: r.metric_desired_replicas,
        normalization: r.normalization.map(|n| tables.add_normalization(n)),
        desired: after,
        rescaled: r.rescaled,
        outcome: r.outcome,
        reason: tables.add_reason_facts(&ReasonFacts::of(r)),
        conditions: tables.add_api_conditions(r.conditions()),
    }
}
