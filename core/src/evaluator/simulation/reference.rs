//! The reference backend: at every sync, the full [`SyncInput`] (named pods, the metrics APIs'
//! answers) and one [`reconcile_autoscaler`] call, whose status is carried into the next sync.

use std::collections::BTreeMap;

use super::record::{ReasonFacts, Tables};
use super::{
    ConditionBrief, LoadValue, MetricKey, MetricObservation, PodClock, PodLoad, ResourcePlan, Split, Step, World,
    lookup, metric_containers,
};
use crate::api::v2::{HorizontalPodAutoscaler, MetricSpec};
use crate::evaluator::controller::{
    ControllerState, ObjectMetricValue, Scale, SyncInput, SyncResult, reconcile_autoscaler,
};
use crate::evaluator::replicas::{
    ConditionStatus, ContainerUsage, Pod, PodMetricsItem, PodPhase, PodSample, ReadyCondition,
};
use crate::evaluator::time::Timestamp;

/// The controller's view of the world, rebuilt at every sync.
#[derive(Debug)]
pub(super) struct Reference {
    metrics: Vec<MetricSpec>,
    hpa: HorizontalPodAutoscaler,
    state: ControllerState,
    input: SyncInput,
    /// Regular containers and sidecars: the containers metrics-server reports.
    metric_containers: Vec<String>,
    resources: Vec<ResourcePlan>,
    /// The structure the metric answers were built for: running pods' indexes, availability.
    built_running: Vec<usize>,
    built_available: Vec<bool>,
    built: bool,
    running: Vec<usize>,
    available: Vec<bool>,
    /// Scratch: each resource's split, one resource's usage per container.
    splits: Vec<Split>,
    shares: Vec<i64>,
}

impl Reference {
    pub(super) fn new(world: &World<'_>, hpa: HorizontalPodAutoscaler, metrics: &[MetricSpec]) -> Reference {
        let plan = world.plan;
        let scale = Scale {
            spec_replicas: plan.initial_replicas,
            status_replicas: plan.initial_replicas,
            selector: plan.selector.clone(),
        };
        let mut r = Reference {
            metrics: metrics.to_vec(),
            hpa,
            state: ControllerState::default(),
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
        };
        for clock in &world.pods {
            r.pod_added(world, *clock);
        }
        r
    }

    /// A pod was created.
    pub(super) fn pod_added(&mut self, world: &World<'_>, clock: PodClock) {
        let t = &world.plan.template;
        self.input.pods.push(Pod {
            name: world.pod_name(&clock),
            phase: PodPhase::Pending,
            deleted: false,
            start_time: Some(Timestamp::from_millis(clock.created_ms)),
            ready_condition: None,
            containers: t.containers.clone(),
            init_containers: t.init_containers.clone(),
            pod_requests_milli: t.pod_requests_milli.clone(),
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

        // Pods at `now`.
        self.running.clear();
        for (i, ((pod, clock), state)) in self.input.pods.iter_mut().zip(&world.pods).zip(&world.states).enumerate() {
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
        if let Ok(scale) = &mut self.input.scale {
            scale.spec_replicas = world.current;
            scale.status_replicas = i32::try_from(self.input.pods.len()).unwrap_or(i32::MAX);
        }

        // The load in force.
        self.available.clear();
        self.available.extend(world.values.iter().map(Option::is_some));
        if !self.built || self.running != self.built_running || self.available != self.built_available {
            self.build_answers(world);
        }
        self.fill_answers(world, now);

        let result = reconcile_autoscaler(&self.hpa, &mut self.state, &self.input, &world.plan.options);
        let before = world.current;
        let after = if result.rescaled { result.rescale_to.unwrap_or(before) } else { before };
        let step = self.record(world, at, &result, before, after, tables);
        self.hpa.status = result.status;
        step
    }

    /// Builds the metric answers' structure (which pods, containers, resources and metric
    /// names appear); the values are written by [`Self::fill_answers`].
    fn build_answers(&mut self, world: &World<'_>) {
        let plan = world.plan;
        let values = &world.values;
        let window = plan.metric_window;
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
                        .filter(|r| r.reported_by(values, c))
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
        for (slot, key) in plan.keys.iter().enumerate() {
            if lookup(values, Some(slot)).is_none() {
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
        for (spec, slot) in self.metrics.iter().zip(&plan.bindings) {
            if let Some(o) = &spec.object
                && spec.type_ == "Object"
                && lookup(values, *slot).is_some()
            {
                objects.push(ObjectMetricValue {
                    described_object: o.described_object.clone(),
                    metric: o.metric.name.as_str().into(),
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
    fn fill_answers(&mut self, world: &World<'_>, now: Timestamp) {
        let ready_pods = i64::from(world.counts.ready.max(0));
        let values = &world.values;
        let pods = &self.input.pods;

        // Resource metrics: one item per Running pod, in `running` order (no items at all when
        // no resource has data).
        if let Ok(items) = &mut self.input.resource_metrics {
            let shares = &mut self.shares;
            self.splits.resize_with(self.resources.len(), Split::default);
            for (split, r) in self.splits.iter_mut().zip(&self.resources) {
                split.read(r, values);
            }
            let mut k = 0i64;
            for (item, &i) in items.iter_mut().zip(&self.running) {
                let ready = pods.get(i).is_some_and(Pod::is_ready);
                item.timestamp = now;
                for (r, split) in self.resources.iter().zip(&self.splits) {
                    split.shares(r, PodLoad { ready, k, ready_pods }, shares);
                    for (c, usage) in item.containers.iter_mut().enumerate() {
                        if let Some(slot) = usage.usage_milli.get_mut(&r.name) {
                            *slot = shares.get(c).copied().unwrap_or(0);
                        }
                    }
                }
                if ready {
                    k += 1;
                }
            }
        }

        // Custom Pods metrics. Each answer is valued by the first key of its name (keys are
        // distinct in a plan made from a scenario); without a value it reports 0.
        let keys = &world.plan.keys;
        if let Ok(map) = &mut self.input.pods_metrics {
            for (name, samples) in map.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::Pods(n) if n == name));
                let v = lookup(values, slot);
                let mut k = 0i64;
                for (sample, &i) in samples.iter_mut().zip(&self.running) {
                    let ready = pods.get(i).is_some_and(Pod::is_ready);
                    sample.value_milli = v.map_or(0, |v| super::per_pod(v, 0, PodLoad { ready, k, ready_pods }));
                    sample.timestamp = now;
                    if ready {
                        k += 1;
                    }
                }
            }
        }

        // External and Object metrics: a value that is not a `value` (which a scenario refuses
        // for these keys) reports 0.
        if let Ok(map) = &mut self.input.external_metrics {
            for (name, series) in map.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::External(n) if n == name));
                let v = match lookup(values, slot) {
                    Some(LoadValue::Value(v)) => v,
                    _ => 0,
                };
                series.iter_mut().for_each(|s| *s = v);
            }
        }
        if let Ok(objects) = &mut self.input.object_metrics {
            for o in objects.iter_mut() {
                let slot = keys.iter().position(|key| matches!(key, MetricKey::Object(n) if *n == o.metric));
                (o.value_milli, o.timestamp) = match lookup(values, slot) {
                    Some(LoadValue::Value(v)) => (v, now),
                    _ => (0, Timestamp::from_millis(0)),
                };
            }
        }
    }

    fn record(
        &self,
        world: &World<'_>,
        at_ms: i64,
        r: &SyncResult,
        before: i32,
        after: i32,
        tables: &mut Tables,
    ) -> Step {
        let metrics = if r.metrics.is_empty() {
            Vec::new()
        } else {
            let mut m = vec![MetricObservation::default(); self.metrics.len()];
            for e in &r.metrics {
                if let Some(slot) = m.get_mut(e.index) {
                    *slot =
                        MetricObservation { current: e.current.clone(), proposal: e.proposal, error: e.error.clone() };
                }
            }
            m
        };
        let conditions = r
            .conditions()
            .iter()
            .map(|c| ConditionBrief { type_: c.type_.clone(), status: c.status.clone(), reason: c.reason.clone() })
            .collect();
        Step {
            at_ms,
            replicas: before,
            pods: world.counts,
            load_phase: world.phase,
            observations: tables.add_observations(metrics),
            proposal: r.metric_desired_replicas,
            normalization: r.normalization.map(|n| tables.add_normalization(n)),
            desired: after,
            rescaled: r.rescaled,
            outcome: r.outcome,
            reason: tables.add_reason(ReasonFacts::of(r).text()),
            conditions: tables.add_conditions(conditions),
        }
    }
}
