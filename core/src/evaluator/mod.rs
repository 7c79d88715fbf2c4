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
//!   ([`ControllerRelease`]: pod-level requests and overhead, overflow as amd64 converts it, the
//!   caps, Succeeded pods, status rendering, scale to and from zero, error texts), built once in
//!   `HPAControllerConfiguration::replica_calculator` and read as plain fields in the sync.
//! - [`time`]: instants with Go's zero time and strict comparisons.
//! - [`timing`]: the fastest scale-up and scale-down, by syncing with a what-if demand.
//! - [`simulation`]: one HPA over time under a described load (pods that start and turn
//!   Ready, the metrics APIs' answers), sync by sync; `Simulator::resume` continues an HPA the
//!   controller already runs.
//! - [`diagnosis`]: `hpa-lint diagnose`'s pure half: the controller's memory reconstructed
//!   from status and events (every guess listed), the one sync replayed, its conditions against
//!   the live ones, the forecast (the simulation resumed from the sync).
//!
//! What a sync decides and why (usage ratios, the pods `groupPods` set aside and why, the
//! recommendation that held the stabilization, the policy that bound the rate) is recorded by
//! the sync itself, in its [`SyncResult`]. The replica calculator matches samples to pods by
//! name through a [`replicas::PodIndex`] and keeps Go's name-keyed maps as arrays in a
//! workspace reused from sync to sync.
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
    Autoscaler, ControllerState, Event, EventType, MetricEvaluation, MetricId, MetricQuery, Normalization,
    NormalizationPath, ObjectMetricValue, ReadError, Scale, SelectorError, SyncInput, SyncOutcome, SyncResult,
    UpdateError, reconcile_autoscaler,
};
pub use release::ControllerRelease;
pub use replicas::{
    CalcError, ConditionStatus, Container, ContainerUsage, Pod, PodMetricsItem, PodPhase, PodSample, ReadyCondition,
    ReplicaCalculator, Tolerances,
};
pub use time::Timestamp;
