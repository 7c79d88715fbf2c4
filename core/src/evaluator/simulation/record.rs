//! What a simulation keeps of each sync: the [`Step`]s refer to observation lists,
//! normalizations, reason texts and condition lists kept once per distinct value (in a row) in
//! [`Tables`]; and the reason text, rendered from the facts of a sync.

use super::{ConditionBrief, MetricObservation, PodCounts, Step};
use crate::api::v2::HorizontalPodAutoscalerCondition;
use crate::evaluator::controller::{MetricEvaluation, Normalization, SyncOutcome, SyncResult};

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
    /// A buffer the reason texts are written into.
    scratch: String,
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
            scratch: String::new(),
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

    /// Keeps the observations of a sync's metric evaluations, one per metric of `metrics`
    /// (none when the sync evaluated none), without copying them when they repeat the last list.
    pub(super) fn add_evaluations(&mut self, metrics: usize, evaluations: &[MetricEvaluation]) -> ObservationsId {
        if evaluations.is_empty() {
            return ObservationsId(0);
        }
        let observed = |i: usize| evaluations.iter().find(|e| e.index == i);
        let same = |o: &MetricObservation, e: Option<&MetricEvaluation>| match e {
            Some(e) => o.current == e.current && o.proposal == e.proposal && o.error == e.error,
            None => *o == MetricObservation::default(),
        };
        if let Some(last) = self.observations.last()
            && self.observations.len() > 1
            && last.len() == metrics
            && last.iter().enumerate().all(|(i, o)| same(o, observed(i)))
        {
            return ObservationsId(last_id(&self.observations));
        }
        let list = (0..metrics)
            .map(|i| {
                observed(i).map_or_else(MetricObservation::default, |e| MetricObservation {
                    current: e.current.clone(),
                    proposal: e.proposal,
                    error: e.error.clone(),
                })
            })
            .collect();
        self.add_observations(list)
    }

    /// Keeps the reason text of a sync (rendered into a buffer kept for the purpose, and
    /// copied only when it differs from the last one).
    pub(super) fn add_reason_facts(&mut self, facts: &ReasonFacts<'_>) -> ReasonId {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        facts.write(&mut text);
        let id = match self.reasons.last() {
            Some(last) if *last == text => ReasonId(last_id(&self.reasons)),
            _ => self.add_reason(text.clone()),
        };
        self.scratch = text;
        id
    }

    /// Keeps the conditions of a status in short (copied only when they differ from the last
    /// list).
    pub(super) fn add_api_conditions(&mut self, conditions: &[HorizontalPodAutoscalerCondition]) -> ConditionsId {
        let same = |last: &[ConditionBrief]| {
            last.len() == conditions.len()
                && last
                    .iter()
                    .zip(conditions)
                    .all(|(b, c)| b.type_ == c.type_ && b.status == c.status && b.reason == c.reason)
        };
        if let Some(last) = self.conditions.last()
            && same(last)
        {
            return ConditionsId(last_id(&self.conditions));
        }
        let list = conditions
            .iter()
            .map(|c| ConditionBrief { type_: c.type_.clone(), status: c.status.clone(), reason: c.reason.clone() })
            .collect();
        self.add_conditions(list)
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
    /// The facts of a sync as [`Autoscaler::reconcile`](crate::evaluator::Autoscaler::reconcile)
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

    /// Why a sync ended where it did, in a few words (the controller's rescale reason, then
    /// what stabilization and the limits did), written into `out` (replacing what it holds).
    pub(super) fn write(&self, out: &mut String) {
        out.clear();
        match self.outcome {
            SyncOutcome::FailedGetScale | SyncOutcome::FailedUpdateScale => {
                out.push_str(self.error.unwrap_or_default())
            }
            SyncOutcome::ScalingDisabled => {
                out.push_str("scaling is disabled since the replica count of the target is zero");
            }
            SyncOutcome::FailedComputeMetrics => {
                out.push_str("no change: ");
                out.push_str(self.metrics_error.unwrap_or("the metrics could not be computed"));
            }
            SyncOutcome::Rescaled | SyncOutcome::Unchanged => {
                // The parts, joined by "; ".
                let mut parts = 0;
                let part = |out: &mut String, text: &str| {
                    if !out.is_empty() {
                        out.push_str("; ");
                    }
                    out.push_str(text);
                };
                if self.rescaled && !self.rescale_reason.is_empty() {
                    part(out, self.rescale_reason);
                    parts += 1;
                }
                if let Some(n) = &self.normalization {
                    for text in [n.stabilization, n.limit].into_iter().flatten() {
                        part(out, text);
                        parts += 1;
                    }
                    if !self.rescaled && parts == 0 {
                        let text =
                            if n.at_current { "within tolerance" } else { "recommendation equals the current count" };
                        part(out, text);
                        parts += 1;
                    }
                }
                if let Some(e) = self.metrics_error
                    && self.has_proposal
                {
                    part(out, "some metrics failed: ");
                    out.push_str(e);
                    parts += 1;
                }
                if parts == 0 {
                    out.push_str("no change");
                }
            }
        }
    }
}
