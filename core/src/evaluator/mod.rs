//! The dry-run replica evaluator: what the HPA controller in kube-controller-manager computes
//! on each sync (replica calculation, normalization, conditions), as a pure function of its
//! inputs and of time passed in.
//!
//! - [`replicas`]: the replica calculator (`replica_calculator.go`, `metrics/utilization.go`):
//!   one metric's samples → a proposed replica count.
//! - [`behavior`]: normalization (`horizontal.go`): stabilization windows, the legacy and
//!   the behavior scale limits, scale events.
//! - [`controller`]: one sync (`reconcileAutoscaler`, [`Autoscaler::reconcile`]): scale read,
//!   range checks, metrics, normalization, scale to/from zero, conditions and status. It is the
//!   only implementation of a sync: the simulation, the timing of scale-ups and scale-downs and
//!   the conformance runner all run it.
//! - [`config`]: kube-controller-manager's configuration of the controller
//!   ([`HPAControllerConfiguration`]: its flags and feature gates, with their defaults).
//! - [`release`]: what the controller of each Kubernetes release does differently
//!   ([`ControllerRelease`], decided once per configuration).
//! - [`time`]: instants with Go's zero time and strict comparisons.
//! - [`timing`]: the fastest scale-up and scale-down, by syncing with a what-if demand.
//! - [`simulation`]: one HPA over time under a described load (pods that start and turn
//!   Ready, the metrics APIs' answers), sync by sync.
//!
//! A caller running the controller over time keeps one [`Autoscaler`] per HPA (the
//! controller's [`ControllerState`] and the status it wrote live in it) and calls
//! [`Autoscaler::reconcile`] with each sync's [`SyncInput`].

pub mod behavior;
pub mod config;
pub mod controller;
pub mod diagnosis;
mod gofmt;
pub mod release;
pub mod replicas;
pub mod simulation;
pub mod time;
pub mod timing;

pub use behavior::{Limited, TimestampedRecommendation, TimestampedScaleEvent};
pub use config::HPAControllerConfiguration;
pub use controller::{
    Autoscaler, ControllerState, Event, EventType, MetricEvaluation, Normalization, NormalizationPath,
    ObjectMetricValue, ReadError, Scale, SyncInput, SyncOutcome, SyncResult, reconcile_autoscaler,
};
pub use release::ControllerRelease;
pub use replicas::{
    CalcError, ConditionStatus, Container, ContainerUsage, Pod, PodMetricsItem, PodPhase, PodSample, ReadyCondition,
    ReplicaCalculator, Tolerances,
};
pub use time::Timestamp;
