//! What a simulation keeps of each sync: the [`Step`]s refer to observation lists,
//! normalizations, reason texts and condition lists kept once per distinct value (in a row) in
//! [`Tables`]; and the reason text, rendered from the facts of a sync by one function for both
//! backends.

use super::{ConditionBrief, MetricObservation, PodCounts, Step};
use crate::evaluator::controller::{Normalization, SyncOutcome, SyncResult};

/// A list of metric observations kept by a simulation (see [`Step::observations`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ObservationsId(u32);

/// A normalization kept by a simulation (see [`Step::normalization`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NormalizationId(u32);

/// A reason text kept by a simulation (see [`Step::reason`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReasonId(u32);

/// A list of conditions kept by a simulation (see [`Step::conditions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ConditionsId(u32);

/// The id of the last entry of a table (saturating: no simulation keeps 2³² values).
fn last_id<T>(table: &[T]) -> u32 {
    u32::try_from(table.len().saturating_sub(1)).unwrap_or(u32::MAX)
}

/// The entry of a table.
fn entry<T>(table: &[T], id: u32) -> Option<&T> {
    usize::try_from(id).ok().and_then(|i| table.get(i))
}

/// A [`Step`] with its observations, reason and conditions resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView<'a> {
    /// When, in ms since the start.
    pub at_ms: i64,
    /// `spec.replicas` before the sync.
    pub replicas: i32,
    /// The pods the sync saw.
    pub pods: PodCounts,
    /// The load phase in force.
    pub load_phase: Option<usize>,
    /// Each metric of the HPA, in spec order (empty when metrics were not evaluated).
    pub observations: &'a [MetricObservation],
    /// The highest metric proposal.
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
    pub reason: &'a str,
    /// The HPA's conditions after the sync.
    pub conditions: &'a [ConditionBrief],
}

/// The distinct observation lists, normalizations, reasons and condition lists of a
/// simulation.
#[derive(Debug, Clone)]
pub(super) struct Tables {
    /// `observations[0]` is the empty list.
    observations: Vec<Vec<MetricObservation>>,
    normalizations: Vec<Normalization>,
    reasons: Vec<String>,
    conditions: Vec<Vec<ConditionBrief>>,
}

/// Appends `value` unless it repeats the last entry; the entry's id.
fn add<T: PartialEq>(table: &mut Vec<T>, value: T) -> u32 {
    if table.last() != Some(&value) {
        table.push(value);
    }
    last_id(table)
}

impl Tables {
    pub(super) fn new() -> Tables {
        Tables {
            observations: vec![Vec::new()],
            normalizations: Vec::new(),
            reasons: Vec::new(),
            conditions: Vec::new(),
        }
    }

    /// Keeps a list of observations (the empty list and a repeat of the last one are not
    /// kept twice).
    pub(super) fn add_observations(&mut self, list: Vec<MetricObservation>) -> ObservationsId {
        if list.is_empty() {
            return ObservationsId(0);
        }
        ObservationsId(add(&mut self.observations, list))
    }

    /// Keeps a normalization (a repeat of the last one is not kept twice).
    pub(super) fn add_normalization(&mut self, n: Normalization) -> NormalizationId {
        NormalizationId(add(&mut self.normalizations, n))
    }

    /// Keeps a reason text (a repeat of the last one is not kept twice).
    pub(super) fn add_reason(&mut self, text: String) -> ReasonId {
        ReasonId(add(&mut self.reasons, text))
    }

    /// Keeps a list of conditions (a repeat of the last one is not kept twice).
    pub(super) fn add_conditions(&mut self, list: Vec<ConditionBrief>) -> ConditionsId {
        ConditionsId(add(&mut self.conditions, list))
    }

    pub(super) fn observations(&self, id: ObservationsId) -> &[MetricObservation] {
        entry(&self.observations, id.0).map_or(&[], Vec::as_slice)
    }

    pub(super) fn normalization(&self, id: Option<NormalizationId>) -> Option<Normalization> {
        id.and_then(|id| entry(&self.normalizations, id.0)).copied()
    }

    pub(super) fn reason(&self, id: ReasonId) -> &str {
        entry(&self.reasons, id.0).map_or("", String::as_str)
    }

    pub(super) fn conditions(&self, id: ConditionsId) -> &[ConditionBrief] {
        entry(&self.conditions, id.0).map_or(&[], Vec::as_slice)
    }

    pub(super) fn view<'a>(&'a self, s: &'a Step) -> StepView<'a> {
        StepView {
            at_ms: s.at_ms,
            replicas: s.replicas,
            pods: s.pods,
            load_phase: s.load_phase,
            observations: self.observations(s.observations),
            proposal: s.proposal,
            normalization: self.normalization(s.normalization),
            desired: s.desired,
            rescaled: s.rescaled,
            outcome: s.outcome,
            reason: self.reason(s.reason),
            conditions: self.conditions(s.conditions),
        }
    }
}

/// Everything the reason text of a sync depends on.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReasonFacts<'a> {
    pub(super) outcome: SyncOutcome,
    /// The error `reconcileAutoscaler` returned (shown for a failed scale read or write).
    pub(super) error: Option<&'a str>,
    /// The aggregated metrics error.
    pub(super) metrics_error: Option<&'a str>,
    /// Whether the scale was written.
    pub(super) rescaled: bool,
    /// The rescale event's reason.
    pub(super) rescale_reason: &'a str,
    /// What normalization did, when it ran.
    pub(super) normalization: Option<NormalizationFacts>,
    /// Whether `computeReplicasForMetrics` gave a count.
    pub(super) has_proposal: bool,
}

/// What the reason text says of a normalization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct NormalizationFacts {
    /// The stabilization reason, when stabilization changed the count.
    pub(super) stabilization: Option<&'static str>,
    /// The limit's reason, when a limit changed the count.
    pub(super) limit: Option<&'static str>,
    /// Whether the prenormalized count is the current one.
    pub(super) at_current: bool,
}

impl NormalizationFacts {
    pub(super) fn new(n: &Normalization, current_replicas: Option<i32>) -> NormalizationFacts {
        NormalizationFacts {
            stabilization: (n.stabilized != n.prenormalized).then_some(n.stabilization_reason),
            limit: n.scaling_limited.then_some(n.limited.reason),
            at_current: n.prenormalized == current_replicas.unwrap_or(n.prenormalized),
        }
    }
}

impl<'a> ReasonFacts<'a> {
    /// The facts of a sync as [`reconcile_autoscaler`](crate::evaluator::reconcile_autoscaler)
    /// reports it.
    pub(super) fn of(r: &'a SyncResult) -> ReasonFacts<'a> {
        ReasonFacts {
            outcome: r.outcome,
            error: r.error.as_deref(),
            metrics_error: r.metrics_error.as_deref(),
            rescaled: r.rescaled,
            rescale_reason: &r.rescale_reason,
            normalization: r.normalization.as_ref().map(|n| NormalizationFacts::new(n, r.current_replicas)),
            has_proposal: r.metric_desired_replicas.is_some(),
        }
    }

    /// Why a sync ended where it did, in a few words: the controller's rescale reason, then
    /// what stabilization and the limits did.
    pub(super) fn text(&self) -> String {
        match self.outcome {
            SyncOutcome::FailedGetScale | SyncOutcome::FailedUpdateScale => self.error.unwrap_or_default().to_string(),
            SyncOutcome::ScalingDisabled => "scaling is disabled since the replica count of the target is zero".into(),
            SyncOutcome::FailedComputeMetrics => {
                format!("no change: {}", self.metrics_error.unwrap_or("the metrics could not be computed"))
            }
            SyncOutcome::Rescaled | SyncOutcome::Unchanged => {
                let mut parts: Vec<String> = Vec::new();
                if self.rescaled && !self.rescale_reason.is_empty() {
                    parts.push(self.rescale_reason.to_string());
                }
                if let Some(n) = &self.normalization {
                    if let Some(s) = n.stabilization {
                        parts.push(s.to_string());
                    }
                    if let Some(l) = n.limit {
                        parts.push(l.to_string());
                    }
                    if !self.rescaled && parts.is_empty() {
                        parts.push(if n.at_current {
                            "within tolerance".to_string()
                        } else {
                            "recommendation equals the current count".to_string()
                        });
                    }
                }
                if let Some(e) = self.metrics_error
                    && self.has_proposal
                {
                    parts.push(format!("some metrics failed: {e}"));
                }
                if parts.is_empty() { "no change".to_string() } else { parts.join("; ") }
            }
        }
    }
}
