//! A simulation of one HPA over time: the pods a scale target would have and the samples
//! its metrics APIs would answer, sync by sync, with the controller's decision at each sync.
//!
//! Pure (no IO, no clock): the same [`Plan`] always gives the same [`Simulation`].
//!
//! Model:
//! - The HPA is created at `t = 0`. From 1.37 the controller syncs a newly created HPA at once
//!   (#138294), and syncs run at `t = 0, p, 2p, …` while `t < duration` (`p` = the sync
//!   period; a 24 h run with 15 s syncs has 5760 syncs). On 1.33 to 1.36 the first sync comes
//!   one sync period after creation (`enqueueHPA`'s `AddRateLimited`), at `t = p, 2p, …`
//!   ([`HPAControllerConfiguration::first_sync_after_creation`]).
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
//!
//! Each sync, the driver builds what the controller would read from the cluster (a
//! [`SyncInput`] with named pods and the metrics APIs' answers) and runs the controller's one
//! sync, [`Autoscaler::reconcile`], on one [`Autoscaler`] for the whole run: the evaluator used
//! as any caller uses it, its memory and status carried from sync to sync. The driver keeps
//! the input between syncs and rewrites only what changed (the timestamps every sync, the
//! values when the load or a pod changes). [`Step`]s keep each sync in a few words; texts and
//! lists that repeat the previous sync's are kept once.
//!
//! [`SyncInput`]: super::SyncInput
//! [`Autoscaler`]: super::Autoscaler
//! [`Autoscaler::reconcile`]: super::Autoscaler::reconcile

mod driver;
mod record;

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use super::config::HPAControllerConfiguration;
use super::controller::{ControllerState, MetricId, MetricQuery, Normalization, ReadError, SyncInput, SyncOutcome};
use super::replicas::{Container, Pod, PodPhase};
use crate::api::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus, MetricSpec, MetricValueStatus};
use crate::rules::index::{IndexedObject, ObjectIndex};
use crate::rules::objects::{
    AdmittedPod, ObjectId, Objects, TemplateContainer, limit_range_from_json, runtime_class_from, workload_from_json,
};
use serde_json::Value;

use record::Tables;
pub use record::{ConditionsId, NormalizationId, ObservationsId, ReasonId, StepView};

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
    /// The key naming one of an HPA's metrics (`cpu`, `container/app/cpu`, or the metric name
    /// of a Pods, Object or External metric); `None` for a metric of an unknown type.
    pub fn of(m: &MetricSpec) -> Option<MetricKey> {
        match m.type_.as_str() {
            "Resource" => m.resource.as_ref().map(|r| MetricKey::Resource(r.name.as_str().into())),
            "ContainerResource" => m.container_resource.as_ref().map(|r| MetricKey::Container {
                container: r.container.as_str().into(),
                resource: r.name.as_str().into(),
            }),
            "Pods" => m.pods.as_ref().map(|p| MetricKey::Pods(p.metric.name.as_str().into())),
            "Object" => m.object.as_ref().map(|o| MetricKey::Object(o.metric.name.as_str().into())),
            "External" => m.external.as_ref().map(|e| MetricKey::External(e.metric.name.as_str().into())),
            _ => None,
        }
    }

    /// Whether a value suits this kind of metric ([`UnsuitableLoad`] says why not).
    pub fn accepts(&self, v: &LoadValue) -> Result<(), UnsuitableLoad> {
        match (self, v) {
            (_, LoadValue::Unavailable) => Ok(()),
            (
                MetricKey::Resource(_) | MetricKey::Container { .. },
                LoadValue::PerPod(_) | LoadValue::Total(_) | LoadValue::Utilization(_),
            ) => Ok(()),
            (MetricKey::Resource(_) | MetricKey::Container { .. }, LoadValue::Value(_)) => {
                Err(UnsuitableLoad::Resource)
            }
            (MetricKey::Pods(_), LoadValue::PerPod(_) | LoadValue::Total(_)) => Ok(()),
            (MetricKey::Pods(_), _) => Err(UnsuitableLoad::Pods),
            (MetricKey::Object(_) | MetricKey::External(_), LoadValue::Value(_)) => Ok(()),
            (MetricKey::Object(_), _) => Err(UnsuitableLoad::Object),
            (MetricKey::External(_), _) => Err(UnsuitableLoad::External),
        }
    }
}

/// A load value of a kind the metric does not take ([`MetricKey::accepts`]), by the metric's
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnsuitableLoad {
    /// A Resource or ContainerResource metric given `value`.
    #[error("a resource metric takes perPod, total or utilization, not value")]
    Resource,
    /// A Pods metric given `utilization` or `value`.
    #[error("a Pods metric takes perPod or total")]
    Pods,
    /// An Object metric given anything but `value`.
    #[error("an Object metric takes value (the object's value)")]
    Object,
    /// An External metric given anything but `value`.
    #[error("an External metric takes value (the sum of its series)")]
    External,
}

/// Why the pods a scale-up of a target makes are not known ([`PodTemplate::of_target`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownTemplate {
    /// The target is not among the objects.
    NotFound,
    /// A custom resource: its operator makes the pods, from a template only it knows.
    CustomResource,
    /// An Argo Rollout's `workloadRef` names this workload (`Kind namespace/name`), which is
    /// not among the objects.
    Referenced(String),
    /// The target holds no pod template with a container (or Argo refuses its `workloadRef`).
    NoPods,
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
    /// `spec.overhead` (the RuntimeClass's, set by admission), in milli-units: the controller
    /// adds it to pod-level requests in 1.34 to 1.37 ([`ControllerRelease::pod_overhead`]).
    ///
    /// [`ControllerRelease::pod_overhead`]: super::ControllerRelease::pod_overhead
    pub overhead_milli: BTreeMap<String, i64>,
}

impl PodTemplate {
    /// The spec of the pods a scale-up of `target` (JSON) makes, as kube-apiserver admits them
    /// ([`PodTemplate::admitted`]) in the world of `items` (JSON; those of other namespaces than
    /// `namespace` are left out, one that names none is in it): a limit stands for a missing
    /// request, the namespace's LimitRanges fill defaults, pod-level requests with
    /// `pod_level_resources` (the `PodLevelResources` gate), and the overhead of the
    /// RuntimeClass the template names (`spec.overhead`, which the RuntimeClass admission
    /// plugin sets; the controller's release decides whether it counts).
    ///
    /// The template is the one hpa-core's rules read ([`Objects::pod_template_of`]): the
    /// target's own for a kind whose pods are made from the template it holds, that of the
    /// workload an Argo Rollout's `workloadRef` names (among `items`). Otherwise the reason: a
    /// custom resource's operator makes its pods as it decides ([`pods_known`](crate::rules::objects::Workload::pods_known)), so a
    /// `spec.template` it happens to have is no evidence of their requests.
    pub fn of_target(
        target: &Value,
        items: &[&Value],
        namespace: &str,
        pod_level_resources: bool,
    ) -> Result<PodTemplate, UnknownTemplate> {
        let text =
            |v: &Value, pointer: &str| v.pointer(pointer).and_then(Value::as_str).unwrap_or_default().to_string();
        let id = |v: &Value| ObjectId {
            api_version: text(v, "/apiVersion"),
            kind: text(v, "/kind"),
            namespace: namespace.to_string(),
            name: text(v, "/metadata/name"),
        };
        let in_namespace =
            |v: &Value| v.pointer("/metadata/namespace").and_then(Value::as_str).is_none_or(|ns| ns == namespace);
        let target = workload_from_json(id(target), target);
        if !target.pods_known() {
            return Err(UnknownTemplate::CustomResource);
        }
        // The world of the template: the workload a `workloadRef` names, the namespace's
        // LimitRanges, the RuntimeClasses (cluster-scoped).
        let mut world: ObjectIndex<()> = ObjectIndex::default();
        for v in items {
            let id = id(v);
            let entry = match id.kind.as_str() {
                "LimitRange" if in_namespace(v) => IndexedObject::LimitRange(limit_range_from_json(id, v)),
                "RuntimeClass" => {
                    let Some(rc) = runtime_class_from(ObjectId { namespace: String::new(), ..id }, *v) else {
                        continue;
                    };
                    IndexedObject::RuntimeClass(rc)
                }
                kind if in_namespace(v)
                    && target.workload_ref.as_ref().is_some_and(|r| r.kind == kind && r.name == id.name) =>
                {
                    IndexedObject::Workload(workload_from_json(id, v))
                }
                _ => continue,
            };
            world.insert(entry);
        }
        let template = match (world.pod_template_of(&target), &target.workload_ref) {
            (Some(template), _) => template,
            (None, Some(r)) if r.refused.is_none() => {
                return Err(UnknownTemplate::Referenced(format!("{} {namespace}/{}", r.kind, r.name)));
            }
            (None, _) => return Err(UnknownTemplate::NoPods),
        };
        if template.containers.is_empty() && template.init_containers.is_empty() {
            return Err(UnknownTemplate::NoPods);
        }
        let pod = AdmittedPod::new(template, world.limit_ranges(namespace), pod_level_resources)
            .with_overhead(world.pod_overhead(template));
        Ok(PodTemplate::admitted(&pod))
    }

    /// The spec of the pods a workload's template makes, as kube-apiserver admits them
    /// ([`AdmittedPod`]: a container's limit stands for its missing request, a LimitRange's
    /// default fills the rest, pod-level requests as `defaultPodRequests` sets them), with the
    /// `spec.overhead` the RuntimeClass admission plugin sets on each pod, the overhead `pod`
    /// was given ([`AdmittedPod::with_overhead`]: give it the RuntimeClass's whatever the
    /// release; the controller's release decides whether it counts,
    /// [`ControllerRelease::pod_overhead`]).
    ///
    /// [`ControllerRelease::pod_overhead`]: super::ControllerRelease::pod_overhead
    pub fn admitted(pod: &AdmittedPod<'_>) -> PodTemplate {
        let t = pod.template;
        let container = |c: &TemplateContainer| Container {
            name: c.name.clone(),
            requests_milli: pod.container_requests(c),
            restart_policy: c.sidecar.then(|| "Always".to_string()),
        };
        // `initContainers` in their order: sidecars (kept among `containers`) and plain ones.
        let mut init: Vec<&TemplateContainer> = t.containers.iter().filter(|c| c.sidecar).collect();
        init.extend(&t.init_containers);
        init.sort_by_key(|c| c.index);
        let pod_level = t.pod_requests.keys().chain(t.pod_limits.keys()).map(String::as_str).chain(["cpu", "memory"]);
        PodTemplate {
            containers: t.containers.iter().filter(|c| !c.sidecar).map(container).collect(),
            init_containers: init.into_iter().map(container).collect(),
            pod_requests_milli: pod_level
                .filter_map(|r| pod.pod_level_request(r).map(|m| (r.to_string(), m)))
                .collect(),
            overhead_milli: pod
                .overhead()
                .map(|o| o.iter().map(|(r, q)| (r.clone(), q.milli_value())).collect())
                .unwrap_or_default(),
        }
    }

    /// A pod's spec as the controller reads it (its containers' and its pod-level requests).
    pub fn of(pod: &Pod) -> PodTemplate {
        PodTemplate {
            containers: pod.containers.clone(),
            init_containers: pod.init_containers.clone(),
            pod_requests_milli: pod.pod_requests_milli.clone(),
            overhead_milli: pod.overhead_milli.clone(),
        }
    }
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
    pub options: HPAControllerConfiguration,
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

/// Where a simulation starts when it continues an HPA the controller already runs (`hpa-lint
/// diagnose`) instead of a fresh one: the controller's memory and the status after its last
/// sync, the pods as they are, and when the next sync comes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resume {
    /// The controller's memory of the HPA.
    pub state: ControllerState,
    /// The HPA's status, as the next sync reads it.
    pub status: HorizontalPodAutoscalerStatus,
    /// The target's pods (instead of the plan's `initial_replicas` pods, Ready for long), each
    /// with its own spec.
    pub pods: Vec<ResumedPod>,
    /// The instant of the first sync, in ms.
    pub first_sync_ms: i64,
    /// A rescale the controller made just before (`(at_ms, from, to)`): its pods are created or
    /// deleted as after a simulated sync.
    pub rescaled: Option<(i64, i32, i32)>,
    /// The metrics answers that failed in the sync resumed from: each later sync gets the same
    /// failures (the load of a failed answer stays failed), not an empty answer.
    pub failed: FailedAnswers,
}

/// Metrics answers that fail at every sync: a whole metrics API's ([`SyncInput`]'s
/// `resource_metrics`, `pods_metrics`, `object_metrics`, `external_metrics` as `Err`) and one
/// metric's request ([`SyncInput::metric_errors`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FailedAnswers {
    /// The resource metrics API (`metrics.k8s.io`).
    pub resource: Option<ReadError>,
    /// The custom metrics API, for Pods metrics.
    pub pods: Option<ReadError>,
    /// The custom metrics API, for Object metrics.
    pub objects: Option<ReadError>,
    /// The external metrics API.
    pub external: Option<ReadError>,
    /// One metric's request.
    pub metrics: BTreeMap<MetricQuery, ReadError>,
}

impl FailedAnswers {
    /// The failed answers of a sync's inputs.
    pub fn of(input: &SyncInput) -> FailedAnswers {
        FailedAnswers {
            resource: input.resource_metrics.as_ref().err().cloned(),
            pods: input.pods_metrics.as_ref().err().cloned(),
            objects: input.object_metrics.as_ref().err().cloned(),
            external: input.external_metrics.as_ref().err().cloned(),
            metrics: input.metric_errors.clone(),
        }
    }

    /// Writes these failures over the answers of `input`.
    pub(super) fn apply(&self, input: &mut SyncInput) {
        if let Some(e) = &self.resource {
            input.resource_metrics = Err(e.clone());
        }
        if let Some(e) = &self.pods {
            input.pods_metrics = Err(e.clone());
        }
        if let Some(e) = &self.objects {
            input.object_metrics = Err(e.clone());
        }
        if let Some(e) = &self.external {
            input.external_metrics = Err(e.clone());
        }
        input.metric_errors.clone_from(&self.metrics);
    }
}

/// A pod the simulation resumes with: its timeline, its own spec (which may differ from the
/// plan's template, the new pods' spec) and, for a pod that has terminated, its phase.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedPod {
    /// When it was created, turned Running and Ready (ignored for a terminated pod but its
    /// creation).
    pub timeline: PodTimeline,
    /// Its containers and requests, as the controller reads them (`calculatePodRequests`).
    pub spec: PodTemplate,
    /// `Failed` or `Succeeded`: the pod stays so, is never Running, never reports metrics,
    /// is not one of the scale's replicas and is not deleted by a scale-down, but the
    /// controller still lists it (its requests count, `groupPods` sets it aside).
    pub terminated: Option<PodPhase>,
    /// The metrics it does not report (the sync resumed from had no sample of it): it stays
    /// without them, and each sync counts it as the controller counts a pod without metrics
    /// (`groupPods`' missing pods).
    pub silence: Silence,
}

/// What a resumed pod does not report: the resource metrics API lists no `PodMetrics` of it,
/// its `PodMetrics` lists no usage of a container a ContainerResource metric names, or a Pods
/// metric's answer has no sample of it. The replica calculator then counts it, for that metric,
/// at 0 on a scale-up and at the target (100 % of its request, or the target utilization above
/// 100 %) on a scale-down (`GetResourceReplicas`, `calcPlainMetricReplicas` in
/// `pkg/controller/podautoscaler/replica_calculator.go`; a container missing from a
/// `PodMetrics` leaves the pod without a sample, `getContainerMetrics` of
/// `pkg/controller/podautoscaler/metrics/client.go` since 1.33, #127193).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Silence {
    /// No `PodMetrics` (Resource and ContainerResource metrics).
    pub resources: bool,
    /// The containers its `PodMetrics` does not list (ContainerResource metrics).
    pub containers: Vec<String>,
    /// The Pods metrics with no sample of it.
    pub pods_metrics: Vec<MetricId>,
}

impl Silence {
    /// Whether it reports nothing the simulation writes.
    pub fn is_empty(&self) -> bool {
        !self.resources && self.containers.is_empty() && self.pods_metrics.is_empty()
    }
}

/// A pod's timeline, in ms: when it was created (its start time), turned Running and turned
/// Ready; [`PodTimeline::NEVER`] for what does not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodTimeline {
    /// Creation (`status.startTime`).
    pub created_ms: i64,
    /// Running from this instant (Pending before).
    pub running_ms: i64,
    /// Ready from this instant (its Ready condition's `lastTransitionTime`).
    pub ready_ms: i64,
}

impl PodTimeline {
    /// An instant that never comes.
    pub const NEVER: i64 = i64::MAX;
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
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConditionBrief {
    /// `AbleToScale`, `ScalingActive`, `ScalingLimited`, `ScaledToZero`.
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    /// The reason.
    pub reason: String,
}

/// One controller sync, in a few words: the texts, lists and normalizations it refers to are
/// kept once per distinct value by the [`Simulation`] (or the [`Simulator`]), which resolves
/// them ([`Simulation::observations`], [`Simulation::normalization`], [`Simulation::reason`],
/// [`Simulation::conditions`], or all at once [`Simulation::view`]).
#[derive(Debug, Clone, Copy, PartialEq)]
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
    pub observations: ObservationsId,
    /// The highest metric proposal (`computeReplicasForMetrics`).
    pub proposal: Option<i32>,
    /// Stabilization and limits, when normalization ran.
    pub normalization: Option<NormalizationId>,
    /// `spec.replicas` after the sync.
    pub desired: i32,
    /// Whether the scale was written.
    pub rescaled: bool,
    /// How the sync ended.
    pub outcome: SyncOutcome,
    /// Why the count is what it is, in words.
    pub reason: ReasonId,
    /// The HPA's conditions after the sync.
    pub conditions: ConditionsId,
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
    tables: Tables,
}

impl Simulation {
    /// A step's metric observations, one per metric in spec order (empty when the sync did
    /// not evaluate metrics).
    pub fn observations(&self, step: &Step) -> &[MetricObservation] {
        self.tables.observations(step.observations)
    }

    /// A step's stabilization and limits, when normalization ran.
    pub fn normalization(&self, step: &Step) -> Option<Normalization> {
        self.tables.normalization(step.normalization)
    }

    /// Why a step's sync ended where it did, in a few words.
    pub fn reason(&self, step: &Step) -> &str {
        self.tables.reason(step.reason)
    }

    /// The HPA's conditions after a step's sync, in status order.
    pub fn conditions(&self, step: &Step) -> &[ConditionBrief] {
        self.tables.conditions(step.conditions)
    }

    /// A step with everything it refers to resolved (what two simulations are compared by).
    pub fn view<'a>(&'a self, step: &'a Step) -> StepView<'a> {
        self.tables.view(step)
    }
}

/// Drives the controller over a plan, one sync at a time.
#[derive(Debug)]
pub struct Simulator<'a> {
    world: World<'a>,
    driver: Box<driver::Driver<'a>>,
    tables: Tables,
}

impl<'a> Simulator<'a> {
    /// Prepares a simulation: the initial pods, the controller's empty memory (and an empty
    /// status: the plan's is ignored).
    pub fn new(plan: &'a Plan) -> Simulator<'a> {
        let world = World::new(plan, None);
        let driver = Box::new(driver::Driver::new(&world, None));
        Simulator { world, driver, tables: Tables::new() }
    }

    /// Prepares a simulation that continues an HPA the controller already runs: its memory,
    /// status and pods from `resume`, the first sync at `resume.first_sync_ms` (the plan's
    /// `initial_replicas` is the target's count then).
    pub fn resume(plan: &'a Plan, resume: Resume) -> Simulator<'a> {
        let world = World::new(plan, Some(&resume));
        let mut driver = Box::new(driver::Driver::new(&world, Some((resume.state, resume.status))));
        driver.failed = resume.failed;
        let mut sim = Simulator { world, driver, tables: Tables::new() };
        if let Some((at, from, to)) = resume.rescaled {
            sim.rescale(at, from, to);
        }
        sim
    }

    /// Whether no pod changes state any more from the next sync on (each is Running and Ready,
    /// or stays as it is).
    pub fn pods_settled(&self) -> bool {
        let Some(at) = self.world.next_at_ms() else { return true };
        self.world.pods.iter().all(|c| {
            let settled = |t: i64| t == PodTimeline::NEVER || at >= t;
            settled(c.running_ms) && settled(c.ready_ms)
        })
    }

    /// The instant of the next sync, if it is before the end.
    pub fn next_at_ms(&self) -> Option<i64> {
        self.world.next_at_ms()
    }

    /// Runs the next sync; `None` once the duration is over.
    pub fn step(&mut self) -> Option<Step> {
        let at = self.world.next_at_ms()?;
        self.world.begin_sync(at);
        let step = self.driver.sync(&self.world, at, &mut self.tables);
        self.rescale(at, step.replicas, step.desired);
        Some(step)
    }

    /// The pods of a rescale from `before` to `after` at `at`: new pods created, or pods
    /// deleted as a ReplicaSet picks them; the count becomes `after`.
    fn rescale(&mut self, at: i64, before: i32, after: i32) {
        if after > before {
            let clock = PodClock {
                created_ms: at,
                running_ms: at.saturating_add(self.world.plan.pod_start_after_ms),
                ready_ms: at.saturating_add(self.world.plan.pod_ready_after_ms),
                serial: 0,
                spec: None,
                terminated: None,
                silence: None,
            };
            for _ in before.max(0)..after {
                let clock = self.world.add_pod(clock);
                self.driver.pod_added(&self.world, clock);
            }
        } else if after < before {
            let n = usize::try_from(i64::from(before) - i64::from(after)).unwrap_or(0);
            for _ in 0..n.min(self.world.pods.len()) {
                let Some(i) = self.world.remove_pod(at) else { break };
                self.driver.pod_removed(i);
            }
        }
        self.world.current = after;
    }

    /// A step of the simulation so far with everything it refers to resolved (see
    /// [`Simulation::view`]).
    pub fn view<'s>(&'s self, step: &'s Step) -> StepView<'s> {
        self.tables.view(step)
    }

    /// The simulation of the steps run so far (`steps` as returned by [`Self::step`]).
    pub fn finish(self, steps: Vec<Step>) -> Simulation {
        let plan = self.world.plan;
        let metric_keys =
            plan.bindings.iter().map(|b| b.and_then(|i| plan.keys.get(i)).map(ToString::to_string)).collect();
        let metrics = self.driver.metrics().to_vec();
        Simulation { metrics, metric_keys, steps, tables: self.tables }
    }
}

/// The most syncs a plan may run (about 173 days at the default 15 s): each step is kept, about
/// half a kilobyte, so a duration past this (`1000000h`, 240 million syncs) would take the
/// machine's memory before it ended. Front ends refuse such a plan where its duration is
/// written ([`sync_count`]).
pub const MAX_SYNCS: i64 = 1_000_000;

/// How many syncs a plan of `duration_ms` runs at most with a sync period of `period_ms` (one
/// every period from the first, none after the end): what [`MAX_SYNCS`] bounds.
pub fn sync_count(duration_ms: i64, period_ms: i64) -> i64 {
    duration_ms / period_ms.max(1) + 1
}

/// The instant of the last sync of a plan of `duration_ms` whose syncs come every `period_ms`
/// from `first_ms` (the first sync after the HPA's creation), each before the end (as the
/// simulator's next sync is found); `None` when none does.
pub fn last_sync_ms(duration_ms: i64, period_ms: i64, first_ms: i64) -> Option<i64> {
    let span = duration_ms.checked_sub(first_ms)?.checked_sub(1)?;
    (span >= 0).then(|| first_ms + span / period_ms.max(1) * period_ms.max(1))
}

/// Runs a whole plan.
pub fn simulate(plan: &Plan) -> Simulation {
    let mut sim = Simulator::new(plan);
    let syncs = sync_count(plan.duration_ms, sim.world.period_ms).min(MAX_SYNCS);
    let capacity = usize::try_from(syncs).unwrap_or(0);
    let mut steps = Vec::with_capacity(capacity);
    while let Some(s) = sim.step() {
        steps.push(s);
    }
    sim.finish(steps)
}

// === The world: pods and load over time ===

/// One simulated pod's timeline.
#[derive(Debug, Clone, Copy)]
struct PodClock {
    created_ms: i64,
    running_ms: i64,
    ready_ms: i64,
    /// The pod is named `<target>-<serial>`.
    serial: u64,
    /// The index of its own spec in [`World::specs`] (a resumed pod), else the plan's template.
    spec: Option<usize>,
    /// A resumed pod's terminal phase ([`ResumedPod::terminated`]).
    terminated: Option<PodPhase>,
    /// The index of what a resumed pod does not report in [`World::silences`]
    /// ([`ResumedPod::silence`]); `None`: it reports everything.
    silence: Option<usize>,
}

/// A pod's state at one sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PodState {
    /// `Running` (else `Pending`).
    running: bool,
    /// `Ready=True` (else `Ready=False`).
    ready: bool,
}

/// The scale target's pods and the load, as the syncs see them.
#[derive(Debug)]
struct World<'a> {
    plan: &'a Plan,
    period_ms: i64,
    /// Syncs run so far.
    sync: usize,
    /// `spec.replicas` of the scale.
    current: i32,
    /// The load phase in force.
    phase: Option<usize>,
    /// This phase's value per key slot, `None` when none is given or it is unavailable.
    values: Vec<Option<LoadValue>>,
    /// The instant of the first sync, in ms.
    start_ms: i64,
    /// The pods, in creation order (deleted ones removed).
    pods: Vec<PodClock>,
    /// The specs of the resumed pods ([`PodClock::spec`]).
    specs: Vec<PodTemplate>,
    /// What resumed pods do not report ([`PodClock::silence`]).
    silences: Vec<Silence>,
    next_serial: u64,
    /// Changes whenever a pod is created or deleted.
    generation: u64,
    /// Each pod's state at the current sync, and their counts.
    states: Vec<PodState>,
    counts: PodCounts,
    /// `states` are those of pods of `states_generation` at any instant before `states_until_ms`.
    states_generation: u64,
    /// Changes whenever the load or a pod's state does (what the metrics answers' values follow).
    version: u64,
    states_until_ms: i64,
}

/// The value of a key slot in `values`, unless it is missing or unavailable.
fn lookup(values: &[Option<LoadValue>], slot: Option<usize>) -> Option<LoadValue> {
    slot.and_then(|s| values.get(s).copied().flatten()).and_then(LoadValue::available)
}

impl<'a> World<'a> {
    fn new(plan: &'a Plan, resume: Option<&Resume>) -> World<'a> {
        let period_ms = plan.options.sync_period_millis().max(1);
        // A new HPA, created at t = 0, is first synced when its release's controller syncs it.
        let created_sync_ms = i64::try_from(plan.options.first_sync_after_creation().as_millis()).unwrap_or(period_ms);
        let mut world = World {
            plan,
            period_ms,
            start_ms: resume.map_or(created_sync_ms, |r| r.first_sync_ms),
            sync: 0,
            current: plan.initial_replicas,
            phase: None,
            values: vec![None; plan.keys.len()],
            pods: Vec::new(),
            specs: Vec::new(),
            silences: Vec::new(),
            next_serial: 1,
            generation: 0,
            states: Vec::new(),
            counts: PodCounts::default(),
            states_generation: u64::MAX,
            version: 0,
            states_until_ms: i64::MIN,
        };
        if let Some(r) = resume {
            for p in &r.pods {
                let t = p.timeline;
                let never = p.terminated.is_some();
                world.add_pod(PodClock {
                    created_ms: t.created_ms,
                    running_ms: if never { PodTimeline::NEVER } else { t.running_ms },
                    ready_ms: if never { PodTimeline::NEVER } else { t.ready_ms },
                    serial: 0,
                    spec: Some(world.specs.len()),
                    terminated: p.terminated,
                    silence: (!p.silence.is_empty()).then_some(world.silences.len()),
                });
                world.specs.push(p.spec.clone());
                if !p.silence.is_empty() {
                    world.silences.push(p.silence.clone());
                }
            }
            return world;
        }
        // Old pods: started and Ready long before t = 0.
        let init = i64::try_from(plan.options.cpu_initialization_period.as_millis()).unwrap_or(0);
        let old = -(init + plan.pod_ready_after_ms + 3_600_000);
        for _ in 0..plan.initial_replicas.max(0) {
            world.add_pod(PodClock {
                created_ms: old,
                running_ms: old,
                ready_ms: old + plan.pod_ready_after_ms,
                serial: 0,
                spec: None,
                terminated: None,
                silence: None,
            });
        }
        world
    }

    /// The instant of the next sync, if it is before the end.
    fn next_at_ms(&self) -> Option<i64> {
        let at = i64::try_from(self.sync).ok()?.checked_mul(self.period_ms)?.checked_add(self.start_ms)?;
        (at < self.plan.duration_ms).then_some(at)
    }

    /// Moves to the sync at `at`: the load phase in force and every pod's state.
    fn begin_sync(&mut self, at: i64) {
        self.sync += 1;
        let before = self.phase;
        while self.plan.load.get(self.phase.map_or(0, |p| p + 1)).is_some_and(|l| l.at_ms <= at) {
            self.phase = Some(self.phase.map_or(0, |p| p + 1));
        }
        if self.phase != before {
            self.version = self.version.wrapping_add(1);
            let values = self.phase.and_then(|p| self.plan.load.get(p)).map(|l| l.values.as_slice()).unwrap_or(&[]);
            for (slot, v) in self.values.iter_mut().enumerate() {
                *v = lookup(values, Some(slot));
            }
        }
        if self.states_generation != self.generation || at >= self.states_until_ms {
            self.refresh_states(at);
        }
    }

    /// Every pod's state at `at`, and the first later instant at which one changes.
    fn refresh_states(&mut self, at: i64) {
        self.version = self.version.wrapping_add(1);
        self.states.clear();
        self.counts = PodCounts::default();
        let mut until = i64::MAX;
        for clock in &self.pods {
            let running = at >= clock.running_ms;
            let ready = running && at >= clock.ready_ms;
            match (running, ready) {
                _ if clock.terminated.is_some() => {}
                (true, true) => self.counts.ready += 1,
                (true, false) => self.counts.unready += 1,
                _ => self.counts.pending += 1,
            }
            self.states.push(PodState { running, ready });
            for t in [clock.running_ms, clock.ready_ms] {
                if t > at {
                    until = until.min(t);
                }
            }
        }
        self.states_generation = self.generation;
        self.states_until_ms = until;
    }

    /// Creates a pod (its serial assigned here) and returns it.
    fn add_pod(&mut self, mut clock: PodClock) -> PodClock {
        clock.serial = self.next_serial;
        self.next_serial += 1;
        self.pods.push(clock);
        self.generation = self.generation.wrapping_add(1);
        clock
    }

    /// Deletes one pod the way a ReplicaSet picks it: Pending first, then not Ready, then the
    /// most recently created; never a terminated one (not among its active pods). Returns its
    /// index.
    fn remove_pod(&mut self, now: i64) -> Option<usize> {
        let i = self
            .pods
            .iter()
            .enumerate()
            .filter(|(_, c)| c.terminated.is_none())
            .min_by_key(|(_, c)| (now >= c.running_ms, now >= c.ready_ms, std::cmp::Reverse(c.created_ms)))
            .map(|(i, _)| i)?;
        self.pods.remove(i);
        self.generation = self.generation.wrapping_add(1);
        Some(i)
    }

    /// Whether the pod at index `i` reports the resource metrics (`metric` `None`) or the Pods
    /// metric `metric` ([`ResumedPod::silence`]).
    fn reports(&self, i: usize, metric: Option<&MetricId>) -> bool {
        let silence = self.pods.get(i).and_then(|c| c.silence).and_then(|s| self.silences.get(s));
        silence.is_none_or(|s| match metric {
            None => !s.resources,
            Some(id) => !s.pods_metrics.contains(id),
        })
    }

    /// The containers the pod at index `i` leaves out of its `PodMetrics`
    /// ([`Silence::containers`]).
    fn silent_containers(&self, i: usize) -> &[String] {
        let silence = self.pods.get(i).and_then(|c| c.silence).and_then(|s| self.silences.get(s));
        silence.map_or(&[], |s| s.containers.as_slice())
    }

    /// A pod's spec: its own (a resumed pod), else the plan's template.
    fn spec_of(&self, clock: &PodClock) -> &PodTemplate {
        clock.spec.and_then(|i| self.specs.get(i)).unwrap_or(&self.plan.template)
    }

    /// How many pods are the scale's replicas (the terminated ones are not).
    fn active_pods(&self) -> usize {
        self.pods.iter().filter(|c| c.terminated.is_none()).count()
    }

    /// A pod's name.
    fn pod_name(&self, clock: &PodClock) -> String {
        format!("{}-{}", self.plan.hpa.spec.scale_target_ref.name, clock.serial)
    }
}

// === The samples: how a Running pod's usage follows from the load ===

/// The containers metrics-server reports for a pod of the template: the regular containers,
/// then the sidecars (init containers with `restartPolicy: Always`).
fn metric_containers(t: &PodTemplate) -> Vec<&Container> {
    metric_containers_of(&t.containers, &t.init_containers)
}

/// The containers metrics-server reports for a pod of these containers and init containers.
fn metric_containers_of<'c>(containers: &'c [Container], init_containers: &'c [Container]) -> Vec<&'c Container> {
    let sidecars = init_containers.iter().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    containers.iter().chain(sidecars).collect()
}

/// For one resource: which key slots give its usage.
#[derive(Debug, Clone)]
struct ResourcePlan {
    name: String,
    /// The slot of the pod-level key (`cpu`).
    pod_slot: Option<usize>,
    /// Per metric container (in [`metric_containers`] order): the slot of its
    /// `container/<c>/<resource>` key.
    container_slots: Vec<Option<usize>>,
    /// Per metric container, its request for this resource (0 when none).
    requests: Vec<i64>,
    /// The pod's request for this resource (pod-level when set, else the containers' sum).
    pod_request: i64,
}

impl ResourcePlan {
    /// The resources the load keys name (sorted), each with its slots and requests.
    fn all(plan: &Plan) -> Vec<ResourcePlan> {
        let t = &plan.template;
        let containers = metric_containers(t);
        let mut names: Vec<String> = Vec::new();
        for k in &plan.keys {
            if let MetricKey::Resource(r) | MetricKey::Container { resource: r, .. } = k
                && !names.contains(r)
            {
                names.push(r.clone());
            }
        }
        names.sort();
        names
            .into_iter()
            .map(|name| {
                let pod_slot = plan.keys.iter().position(|k| matches!(k, MetricKey::Resource(r) if *r == name));
                let container_slots = containers
                    .iter()
                    .map(|c| {
                        plan.keys.iter().position(|k| {
                            matches!(k, MetricKey::Container { container, resource } if *container == c.name && *resource == name)
                        })
                    })
                    .collect();
                let requests: Vec<i64> =
                    containers.iter().map(|c| c.requests_milli.get(&name).copied().unwrap_or(0)).collect();
                let pod_request =
                    t.pod_requests_milli.get(&name).copied().unwrap_or_else(|| requests.iter().sum::<i64>());
                ResourcePlan { name, pod_slot, container_slots, requests, pod_request }
            })
            .collect()
    }

    /// Whether metric container `c` reports this resource (its usage map has the key).
    fn reported_by(&self, values: &[Option<LoadValue>], c: usize) -> bool {
        lookup(values, self.pod_slot).is_some()
            || lookup(values, self.container_slots.get(c).copied().flatten()).is_some()
    }
}

/// A Running pod as the load sees it.
#[derive(Debug, Clone, Copy)]
struct PodLoad {
    /// Whether it is Ready (only Ready pods share a total).
    ready: bool,
    /// How many Ready pods come before it.
    k: i64,
    /// How many pods are Ready.
    ready_pods: i64,
}

/// A Running pod's usage of a value with this request.
fn per_pod(v: LoadValue, request: i64, pod: PodLoad) -> i64 {
    match v {
        LoadValue::PerPod(x) => x,
        LoadValue::Total(total) if pod.ready => {
            // The k-th Ready pod's share of a total.
            if pod.ready_pods == 0 {
                return 0;
            }
            total / pod.ready_pods + i64::from(pod.k < total % pod.ready_pods)
        }
        LoadValue::Utilization(p) => (request as f64 * p / 100.0).round() as i64,
        _ => 0,
    }
}

/// What one sync's load says of one resource, whatever the pod: each metric container's own
/// value (a `container/<c>/<resource>` key), the pod's value, and the requests and number of
/// the containers that share the pod's value.
#[derive(Debug, Clone, Default)]
struct Split {
    explicit: Vec<Option<LoadValue>>,
    pod: Option<LoadValue>,
    weights: i64,
    others: i64,
}

impl Split {
    /// Whether the shares differ from pod to pod: only a `total` is shared by the Ready pods.
    fn depends_on_pod(&self) -> bool {
        let total = |v: &Option<LoadValue>| matches!(v, Some(LoadValue::Total(_)));
        total(&self.pod) || self.explicit.iter().any(total)
    }

    /// Reads the values of `r`'s keys (reusing `self`'s buffer).
    fn read(&mut self, r: &ResourcePlan, values: &[Option<LoadValue>]) {
        self.explicit.clear();
        self.weights = 0;
        self.others = 0;
        for (c, slot) in r.container_slots.iter().enumerate() {
            let v = lookup(values, *slot);
            if v.is_none() {
                self.weights += r.requests.get(c).copied().unwrap_or(0);
                self.others += 1;
            }
            self.explicit.push(v);
        }
        self.pod = lookup(values, r.pod_slot);
    }

    /// One resource's usage in each metric container of a Running pod, into `shares`: explicit
    /// container values first, then the rest of the pod's usage split over the other containers
    /// in proportion to their requests.
    fn shares(&self, r: &ResourcePlan, pod: PodLoad, shares: &mut Vec<i64>) {
        if let ([None], Some(v)) = (self.explicit.as_slice(), self.pod) {
            // One container: it has the pod's usage.
            shares.clear();
            shares.push(per_pod(v, r.pod_request, pod).max(0));
            return;
        }
        shares.clear();
        shares.resize(r.container_slots.len(), 0);
        let mut explicit_sum = 0i64;
        for (c, v) in self.explicit.iter().enumerate() {
            if let Some(v) = v {
                let u = per_pod(*v, r.requests.get(c).copied().unwrap_or(0), pod);
                explicit_sum = explicit_sum.saturating_add(u);
                if let Some(s) = shares.get_mut(c) {
                    *s = u;
                }
            }
        }
        if let Some(v) = self.pod {
            let (weights, others) = (self.weights, self.others);
            let rest = per_pod(v, r.pod_request, pod).saturating_sub(explicit_sum).max(0);
            let mut given = 0i64;
            let mut seen = 0i64;
            for (c, explicit) in self.explicit.iter().enumerate() {
                if explicit.is_some() {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::{MetricTarget, PodsMetricSource, ResourceMetricSource};
    use crate::features::Gate;

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
            options: HPAControllerConfiguration::default(),
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
            resource: Some(Box::new(ResourceMetricSource {
                name: "cpu".into(),
                target: MetricTarget {
                    type_: "Utilization".into(),
                    average_utilization: Some(target),
                    ..Default::default()
                },
            })),
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
        observed_burst_is(&simulate(&p));
    }

    fn observed_burst_is(sim: &Simulation) {
        let path: Vec<(i64, i32, i32)> = sim.steps.iter().map(|s| (s.at_ms, s.replicas, s.desired)).collect();
        assert_eq!(path, [(0, 2, 4), (15_000, 4, 8), (30_000, 8, 10), (45_000, 10, 10)]);
        let first = &sim.observations(&sim.steps[0])[0];
        assert_eq!(first.current.as_ref().and_then(|c| c.average_utilization), Some(2575));
        assert_eq!(first.proposal, Some(258));
        // At 15 s the two new pods are Ready but their samples are stale: 2 ready + 2 counted unready.
        assert_eq!(sim.steps[1].pods, PodCounts { ready: 4, unready: 0, pending: 0 });
    }

    #[test]
    fn the_first_sync_is_one_period_after_creation_before_1_37() {
        use crate::features::{FeatureGates, KubernetesVersion};
        // The same load from creation on: the 1.33-1.36 run is the 1.37 run one sync period
        // later (and one sync shorter, the run ending at the same instant).
        let path = |v: KubernetesVersion| {
            let mut p = plan(
                vec![cpu(20)],
                vec![MetricKey::Resource("cpu".into())],
                vec![LoadPhase { at_ms: 0, values: vec![Some(LoadValue::Total(1030))] }],
            );
            p.options = HPAControllerConfiguration::new(FeatureGates::new(v));
            simulate(&p).steps.iter().map(|s| (s.at_ms, s.replicas, s.desired)).collect::<Vec<_>>()
        };
        let at_creation = path(KubernetesVersion::V1_37);
        assert_eq!(at_creation, [(0, 2, 4), (15_000, 4, 8), (30_000, 8, 10), (45_000, 10, 10)]);
        assert_eq!(path(KubernetesVersion::V1_38), at_creation);
        let later: Vec<_> = at_creation.iter().take(3).map(|&(at, from, to)| (at + 15_000, from, to)).collect();
        for v in [KubernetesVersion::V1_33, KubernetesVersion::V1_36] {
            assert_eq!(path(v), later, "{v}");
        }
    }

    #[test]
    fn pod_overhead_counts_with_pod_level_requests_in_1_34_to_1_37() {
        use crate::features::{FeatureGates, KubernetesVersion::*};
        // Pod-level cpu 500m, a RuntimeClass overhead of 400m, 450m used per pod, a 50 % target:
        // 1.34-1.37 divide by 900m (50 %, 2 pods stay); 1.38 drops the overhead (#142154) and
        // 1.33 reads the containers' 500m (90 %, 4 pods).
        for (v, utilization, desired) in [(V1_33, 90, 4), (V1_34, 50, 2), (V1_37, 50, 2), (V1_38, 90, 4)] {
            let mut p = plan(
                vec![cpu(50)],
                vec![MetricKey::Resource("cpu".into())],
                vec![LoadPhase { at_ms: 0, values: vec![Some(LoadValue::PerPod(450))] }],
            );
            p.options =
                HPAControllerConfiguration::new(FeatureGates::new(v).with(Gate::PodLevelResources, true).unwrap());
            p.template.containers[0].requests_milli = BTreeMap::from([("cpu".into(), 500)]);
            p.template.pod_requests_milli = BTreeMap::from([("cpu".into(), 500)]);
            p.template.overhead_milli = BTreeMap::from([("cpu".into(), 400)]);
            let sim = simulate(&p);
            let first = &sim.steps[0];
            let observed = sim.observations(first)[0].current.as_ref().and_then(|c| c.average_utilization);
            assert_eq!((observed, first.desired), (Some(utilization), desired), "{v}");
        }
    }

    #[test]
    fn totals_are_shared_by_ready_pods_and_pods_metrics_count_unready_pods() {
        let pods = MetricSpec {
            type_: "Pods".into(),
            pods: Some(Box::new(PodsMetricSource {
                metric: crate::api::v2::MetricIdentifier { name: "rps".into(), selector: None },
                target: MetricTarget {
                    type_: "AverageValue".into(),
                    average_value: Some(crate::api::Quantity::from_i64(10)),
                    ..Default::default()
                },
            })),
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
                let current = sim.observations(s)[0].current.as_ref();
                let v = current.and_then(|c| c.average_value.as_ref()).map(ToString::to_string);
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
        let reason = sim.reason(&sim.steps[0]);
        assert!(reason.contains("no metrics returned"), "{reason}");
        assert_eq!(sim.steps.len(), 4);
    }
}
