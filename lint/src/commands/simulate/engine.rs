//! The simulation engine: pods and metric samples sync by sync, and the controller's decision
//! at each sync. It lives in hpa-core ([`hpa_core::evaluator::simulation`]), next to the
//! controller it drives; this module re-exports it under the name the rest of `simulate` uses.
//!
//! Pure (no IO, no clock): the same plan always gives the same [`Simulation`].

pub use hpa_core::evaluator::simulation::{
    ConditionBrief, ConditionsId, LoadPhase, LoadValue, MetricKey, MetricObservation, NormalizationId, ObservationsId,
    Plan, PodCounts, PodTemplate, ReasonId, Simulation, Simulator, Step, StepView, simulate,
};
