//! `hpa-lint diagnose`: the controller's current sync of one HPA, replayed with the one sync
//! ([`Autoscaler::reconcile`]) on live inputs, and explained.
//!
//! Pure (no IO, no clock): [`diagnose`] takes what the API server holds for one HPA (the HPA
//! with its status, the sync's inputs, the HPA's events, the containers resized in place) and
//! returns a [`Diagnosis`]:
//! - the controller's memory of the HPA (`recommendations`, `scaleUpEvents`,
//!   `scaleDownEvents` in `horizontal.go`), which lives only in kube-controller-manager, as
//!   far as the HPA's status and `SuccessfulRescale` events show it, every guess listed in
//!   [`Memory::assumptions`];
//! - the sync's [`SyncResult`]: per metric the usage ratio, the proposal and the pods set
//!   aside, the normalization (stabilization and the recommendation that held it, the rate
//!   limit and the policy that bound it, min/max), the conditions and events;
//! - the conditions it writes compared with the live ones ([`ConditionCheck`]);
//! - the next syncs if the load stays as it is ([`Forecast`], the simulation driver resumed
//!   from the sync's memory and status);
//! - plain answers to "why is it not scaling" and "why is it slow" ([`Answer`]).

use std::collections::BTreeMap;
use std::time::Duration;

use super::behavior::{TimestampedRecommendation, TimestampedScaleEvent};
use super::config::HPAControllerConfiguration;
use super::controller::{
    Autoscaler, ControllerState, MetricQuery, NormalizationPath, SyncInput, SyncOutcome, SyncResult, UpdateError,
    has_object_or_external_metrics, scaled_to_zero_condition,
};
use super::release::ControllerRelease;
use super::replicas::{CalcError, ConditionStatus, MetricsApiError, PodPhase, SetAsideReason};
use super::simulation::{
    FailedAnswers, LoadPhase, LoadValue, MetricKey, Plan, PodTemplate, PodTimeline, Resume, ResumedPod, Silence,
    Simulation, Simulator,
};
use super::time::{Timestamp, format_ms};
use super::timing::memory_seconds;
use crate::api::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition};
use crate::evaluator::replicas::Container;
use crate::features::Gate;

/// The event reason of a rescale (`SuccessfulRescale`, recorded by `reconcileAutoscaler`).
pub const SUCCESSFUL_RESCALE: &str = "SuccessfulRescale";

/// The event reason of a scale write that failed (`FailedRescale`, recorded by
/// `reconcileAutoscaler` when `scaleNamespacer.Update` fails; the sync then writes AbleToScale
/// False `FailedUpdateScale`).
pub const FAILED_RESCALE: &str = "FailedRescale";

/// What the event recorder's correlator puts before the newest message when it combines
/// events that differ only in their message (`EventAggregate` in
/// `staging/src/k8s.io/client-go/tools/record/events_cache.go`: from the 10th such event
/// within 10 minutes, one event keyed without its message, counted by `eventObserve`).
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// One event recorded on the HPA, as the diagnosis reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedEvent {
    /// `SuccessfulRescale`, `FailedGetResourceMetric`, ...
    pub reason: String,
    /// The message (`New size: 4; reason: cpu resource utilization (percentage of request)
    /// above target`).
    pub message: String,
    /// How many times the recorder counted it (`eventObserve` counts repeats of one event and
    /// keeps its `firstTimestamp`).
    pub count: i64,
    /// `firstTimestamp` (or `eventTime`): the first of the `count` occurrences.
    pub first: Option<Timestamp>,
    /// `lastTimestamp` (or `eventTime`): the last of them.
    pub last: Option<Timestamp>,
}

/// A container whose requests were resized in place: the pod spec (which the HPA controller
/// reads) and its status (what the kubelet applied) differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InPlaceResize {
    /// The pod.
    pub pod: String,
    /// The container.
    pub container: String,
    /// `spec.containers[].resources.requests`, in milli-units.
    pub spec_requests_milli: BTreeMap<String, i64>,
    /// `status.containerStatuses[].resources.requests`, in milli-units.
    pub status_requests_milli: BTreeMap<String, i64>,
    /// The pod's `PodResizePending` / `PodResizeInProgress` condition (type and reason), if any.
    pub condition: Option<(String, String)>,
}

/// What the diagnosis reads.
#[derive(Debug, Clone, Copy)]
pub struct DiagnosisInput<'a> {
    /// The HPA (decoded and defaulted, internal form), with its live status.
    pub hpa: &'a HorizontalPodAutoscaler,
    /// The controller's configuration (flags and release).
    pub config: &'a HPAControllerConfiguration,
    /// What the sync reads from the API (`input.now` is the instant of the replayed sync).
    pub sync: &'a SyncInput,
    /// The HPA's events, in any order.
    pub events: &'a [RecordedEvent],
    /// The scale target's `ScalingReplicaSet` events (the deployment controller's), in any
    /// order: the earlier size of a rescale whose events do not show it.
    pub target_events: &'a [RecordedEvent],
    /// Containers of the target's pods resized in place.
    pub resizes: &'a [InPlaceResize],
    /// The target's pod template (`spec.template.spec` of the Deployment, StatefulSet, ...):
    /// the spec of the pods a scale-up creates; `None` when the inputs lack it.
    pub template: Option<&'a PodTemplate>,
}

/// A rescale (or a failed scale write) the HPA's events record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rescale {
    /// When (the event's last time).
    pub at: Timestamp,
    /// The new size (of the last rescale the event counts).
    pub size: i32,
    /// The reason of the message (`cpu resource utilization (percentage of request) above
    /// target`).
    pub reason: String,
    /// How many rescales the event aggregates.
    pub count: i64,
    /// When the first of them happened (`firstTimestamp`), when the event counts more than one.
    pub first: Option<Timestamp>,
    /// Whether the correlator combined events of different messages ([`COMBINED_PREFIX`]):
    /// only the last one's size is recorded.
    pub combined: bool,
    /// The write's error, for a `FailedRescale` event (`...; error: E`).
    pub error: Option<String>,
}

impl Rescale {
    /// The rescales of known size and time this event records: the last, and for an event that
    /// counts repeats of one message (not combined) the first too, to the same size.
    fn known(&self) -> impl Iterator<Item = (Timestamp, i32)> + '_ {
        let first = self.first.filter(|f| self.count > 1 && !self.combined && f.before(self.at));
        first.into_iter().chain(std::iter::once(self.at)).map(|t| (t, self.size))
    }
}

/// The controller's memory of the HPA, as reconstructed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Memory {
    /// The memory the replayed sync starts from.
    pub state: ControllerState,
    /// The rescales the `SuccessfulRescale` events record, oldest first.
    pub rescales: Vec<Rescale>,
    /// The scale writes the `FailedRescale` events record, oldest first.
    pub failed_rescales: Vec<Rescale>,
    /// How far back the controller remembers, in seconds (the longest stabilization window
    /// and policy period, or the downscale stabilization window).
    pub window_seconds: i64,
    /// What had to be assumed, in plain sentences (empty: the memory is known exactly).
    pub assumptions: Vec<String>,
}

/// One condition type: what the replayed sync writes, and what the live status holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionCheck {
    /// `AbleToScale`, `ScalingActive`, `ScalingLimited`.
    pub type_: String,
    /// What the replayed sync writes.
    pub replayed: Option<HorizontalPodAutoscalerCondition>,
    /// What the live status holds.
    pub live: Option<HorizontalPodAutoscalerCondition>,
    /// Whether the live status has conditions at all (none before the controller's first
    /// sync: nothing to compare).
    pub compared: bool,
    /// Why the two differ though the inputs explain it (the replayed sync is the one after
    /// the sync that wrote the live status), in a sentence; `None` when they agree or nothing
    /// explains the difference.
    pub explained: Option<String>,
}

impl ConditionCheck {
    /// Whether status and reason agree (messages carry numbers that move with every sync).
    pub fn agrees(&self) -> bool {
        if !self.compared {
            return true;
        }
        match (&self.replayed, &self.live) {
            (Some(a), Some(b)) => a.status == b.status && a.reason == b.reason,
            (None, None) => true,
            _ => false,
        }
    }

    /// Whether they differ and nothing the inputs hold explains it: the live status shows
    /// something they do not.
    pub fn unexplained(&self) -> bool {
        !self.agrees() && self.explained.is_none()
    }
}

/// The next syncs, if the load stays as it is.
#[derive(Debug, Clone)]
pub struct Forecast {
    /// The simulated syncs after the replayed one (times are ms after it).
    pub simulation: Simulation,
    /// The sync period, in ms.
    pub sync_period_ms: i64,
    /// When the count stops changing (ms after the replayed sync), and the count then; `None`
    /// when it still changes at the end of the horizon.
    pub steady: Option<(i64, i32)>,
    /// Why the steady count is not what the metrics want (`scaleDown.selectPolicy: Disabled
    /// keeps it from 1`), from the last simulated sync; `None` when it is.
    pub held: Option<String>,
    /// What the forecast assumes.
    pub assumptions: Vec<String>,
}

/// Which question a finding answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Question {
    /// Why the count does not change (or not as the metrics say).
    NotScaling,
    /// Why it takes several syncs, or longer, to get there.
    Slow,
}

/// A plain answer: a stable cause code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The question.
    pub question: Question,
    /// A stable code (`missing-requests`, `container-not-found`, `no-metrics`, `unready-pods`, `tolerance`,
    /// `stabilization`, `rate-limit`, `max-replicas`, `min-replicas`, `scaling-disabled`,
    /// `ambiguous-selector`, `invalid-selector`, `scale-unreadable`, `scale-update-failed`, `metric-failed`,
    /// `in-place-resize`, `forecast`).
    pub cause: &'static str,
    /// The sentence.
    pub message: String,
}

/// The diagnosis of one HPA.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    /// The instant of the replayed sync.
    pub now: Timestamp,
    /// The controller's memory, as reconstructed.
    pub memory: Memory,
    /// The replayed sync.
    pub sync: SyncResult,
    /// Replayed and live conditions, by type.
    pub conditions: Vec<ConditionCheck>,
    /// The next syncs; `None` when the sync stops before metrics (no scale, scaling disabled).
    pub forecast: Option<Forecast>,
    /// The answers, "not scaling" first.
    pub findings: Vec<Answer>,
    /// What is worth saying but answers neither question (an in-place resize that does not
    /// hold the count).
    pub notes: Vec<String>,
}

impl Diagnosis {
    /// Whether some replayed condition differs from the live one and nothing the inputs hold
    /// explains it ([`ConditionCheck::unexplained`]).
    pub fn conditions_differ(&self) -> bool {
        self.conditions.iter().any(ConditionCheck::unexplained)
    }
}

/// The diagnosis of `input.hpa` at `input.sync.now`: its memory reconstructed, its sync
/// replayed with [`Autoscaler::reconcile`] (`reconcileAutoscaler`), compared, forecast and
/// explained.
pub fn diagnose(input: &DiagnosisInput<'_>) -> Diagnosis {
    let now = input.sync.now;
    let mut memory = reconstruct_memory(input);
    let replay = |sync: &SyncInput| {
        let mut autoscaler = Autoscaler::new(input.hpa, input.config).with_state(memory.state.clone());
        let result = autoscaler.reconcile(sync).clone();
        (result, autoscaler.into_state())
    };
    let (mut sync, mut state_after) = replay(input.sync);
    // The live status says the last sync's write of the scale failed: this sync's is assumed
    // to fail the same way (the API cannot be asked whether a write would be refused).
    if sync.rescaled
        && input.sync.scale_update_error.is_none()
        && let Some(error) = failing_write(input)
    {
        let mut failing = input.sync.clone();
        failing.scale_update_error = Some(UpdateError(error.clone()));
        (sync, state_after) = replay(&failing);
        memory.assumptions.push(format!(
            "the live AbleToScale is False (FailedUpdateScale): the last sync's write of the scale failed{}; this sync's write (to {}) is assumed to fail the same way: {error}",
            failed_events_text(&memory, now),
            sync.rescale_to.unwrap_or(sync.desired_replicas)
        ));
    }

    let conditions = compare_conditions(&sync, input.hpa, now);
    let forecast = (!stops_whatever_the_load(&sync)).then(|| forecast(input, &sync, state_after));
    let mut diagnosis = Diagnosis { now, memory, sync, conditions, forecast, findings: Vec::new(), notes: Vec::new() };
    (diagnosis.findings, diagnosis.notes) = findings(input, &diagnosis);
    diagnosis.notes.extend(repeated_samples(input.sync));
    diagnosis
}

/// A note for each pod an answer has more than one sample of: metrics-server lists a pod once,
/// a hand-written snapshot or another adapter may not. The metrics client keeps one value per
/// pod name in a map, the last written (`getPodMetrics`, `getContainerMetrics`, `GetRawMetric`
/// in `pkg/controller/podautoscaler/metrics/client.go`): for PodMetrics the last item that has
/// the usage asked for (one without it writes nothing), for a Pods metric the last sample. The
/// replay and the forecast's load do the same.
fn repeated_samples(sync: &SyncInput) -> Vec<String> {
    fn repeated<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for n in names {
            *counts.entry(n).or_default() += 1;
        }
        counts.into_iter().filter(|(_, n)| *n > 1).collect()
    }
    let mut notes = Vec::new();
    if let Ok(items) = &sync.resource_metrics {
        for (pod, n) in repeated(items.iter().map(|m| &*m.pod)) {
            notes.push(format!(
                "the PodMetrics list has {n} items of pod {pod} (metrics-server lists a pod once): the controller's metrics client keeps one value per pod, that of the last item with the usage asked for (getPodMetrics fills a map by pod name), and so does this replay"
            ));
        }
    }
    if let Ok(map) = &sync.pods_metrics {
        for (metric, samples) in map {
            for (pod, n) in repeated(samples.iter().map(|s| &*s.pod)) {
                notes.push(format!(
                    "the answer of Pods metric {metric} has {n} samples of pod {pod}: the controller's metrics client keeps the last (GetRawMetric fills a map by pod name), and so does this replay"
                ));
            }
        }
    }
    notes
}

/// What the live status says about a target replayed as disabled at zero, when the replay
/// runs with gate `HPAScaleToZero` off (the default before 1.37): a live ScaledToZero True was
/// written by a controller with the gate on (`reconcileAutoscaler` from 1.36 writes it only
/// then, on a rescale to zero), and with the gate on `shouldComputeMetricsForZeroReplicas`
/// evaluates the metrics of such a target (`minReplicas` above 0, or an Object or External
/// metric) instead of disabling it. Empty when the replay's gate is on, the release predates
/// the condition, the live status lacks it, or the gate would disable the target anyway.
fn scaled_to_zero_by_a_gated_controller(input: &DiagnosisInput<'_>) -> String {
    let gates = &input.config.gates;
    let hpa = input.hpa;
    let evaluated = hpa.spec.min_replicas.unwrap_or(1) != 0 || has_object_or_external_metrics(&hpa.spec.metrics);
    if gates.enabled(Gate::HPAScaleToZero)
        || !ControllerRelease::of(gates.version()).scaled_to_zero_condition
        || !scaled_to_zero_condition(&hpa.status.conditions)
        || !evaluated
    {
        return String::new();
    }
    format!(
        "; but the live ScaledToZero condition is True: the HPA scaled the target to zero itself, which kube-controller-manager does only with feature gate HPAScaleToZero on, and with it on this sync would evaluate the metrics from zero. This replay runs with it off, the default of Kubernetes {}: pass --feature-gates HPAScaleToZero=true if the cluster's controller enables it",
        gates.version()
    )
}

/// The prefix of the AbleToScale message `reconcileAutoscaler` writes when the scale write
/// fails (`FailedUpdateScale`), before the client's error.
const UPDATE_SCALE_FAILED: &str = "the HPA controller was unable to update the target scale: ";

/// The error of the last sync's scale write, when the live AbleToScale is False
/// `FailedUpdateScale`: its message's error, else the newest `FailedRescale` event's.
fn failing_write(input: &DiagnosisInput<'_>) -> Option<String> {
    let c = input.hpa.status.conditions.iter().find(|c| c.type_ == "AbleToScale")?;
    if c.status != "False" || c.reason != "FailedUpdateScale" {
        return None;
    }
    if let Some(error) = c.message.strip_prefix(UPDATE_SCALE_FAILED).filter(|e| !e.is_empty()) {
        return Some(error.to_string());
    }
    let newest = rescales_of(input.events, FAILED_RESCALE).into_iter().next_back().and_then(|r| r.error);
    Some(newest.unwrap_or_else(|| c.message.clone()))
}

/// ` (FailedRescale: 40 events since 10m ago, the last 15s ago)`, from the newest
/// `FailedRescale` event; empty without one.
fn failed_events_text(memory: &Memory, now: Timestamp) -> String {
    memory.failed_rescales.last().map_or_else(String::new, |r| {
        let since = r.first.filter(|_| r.count > 1).map_or_else(String::new, |f| format!(" since {}", ago(now, f)));
        format!(
            " ({FAILED_RESCALE}: {} event{}{since}, the last {})",
            r.count,
            if r.count == 1 { "" } else { "s" },
            ago(now, r.at)
        )
    })
}

/// Whether the sync stopped at an early return of `reconcileAutoscaler` that the next syncs
/// take again whatever the load: the scale unreadable (`FailedGetScale`), the target at zero
/// (`ScalingDisabled`), a selector `validateAndParseSelector` refuses (`computeReplicasForMetrics`:
/// `SelectorRequired`/`InvalidSelector`, `AmbiguousSelector`, which return before any metric),
/// or a scale write that fails (`FailedUpdateScale`); and every metric failing on a pod's
/// missing request (`calculatePodRequests` reads every listed pod, so until the pods change,
/// which a sync that does not scale does not do, each sync fails the same way). A forecast
/// would replay syncs that scale (the simulation reads a scale, one HPA's selector and writes
/// that succeed), so there is none. Another failed metric is not one of these: the simulation
/// keeps its answer unavailable, and pods that turn Ready can make it answer.
fn stops_whatever_the_load(sync: &SyncResult) -> bool {
    match sync.outcome {
        SyncOutcome::FailedGetScale | SyncOutcome::ScalingDisabled | SyncOutcome::FailedUpdateScale => true,
        SyncOutcome::FailedComputeMetrics => {
            sync.status.conditions.iter().any(|c| {
                c.type_ == "ScalingActive"
                    && c.status == "False"
                    && matches!(c.reason.as_str(), "InvalidSelector" | "AmbiguousSelector")
            }) || (!sync.metrics().is_empty() && sync.metrics().iter().all(|e| missing_request(e).is_some()))
        }
        SyncOutcome::Rescaled | SyncOutcome::Unchanged => false,
    }
}

/// The pod whose missing request failed a metric (`CalcError::MissingRequest`,
/// `MissingPodLevelRequest`), or whose spec lacks the container a ContainerResource metric
/// names (`ContainerNotFound`, from 1.35): what `calculateRequests` reads of every listed pod.
fn missing_request(e: &super::controller::MetricEvaluation) -> Option<&str> {
    match e.cause.as_ref().map(CalcError::root) {
        Some(
            CalcError::MissingRequest { pod, .. }
            | CalcError::MissingPodLevelRequest { pod, .. }
            | CalcError::ContainerNotFound { pod, .. },
        ) => Some(pod),
        _ => None,
    }
}

// === The controller's memory ===

/// `New size: N; reason: R` (`reconcileAutoscaler`'s `SuccessfulRescale` message) and
/// `New size: N; reason: R; error: E` (its `FailedRescale` message), perhaps after the
/// correlator's [`COMBINED_PREFIX`]: the size, the reason, the error, and whether it was
/// combined.
fn parse_rescale(message: &str) -> Option<(i32, String, Option<String>, bool)> {
    let (combined, message) = match message.strip_prefix(COMBINED_PREFIX) {
        Some(rest) => (true, rest),
        None => (false, message),
    };
    let rest = message.strip_prefix("New size: ")?;
    let (size, reason) = rest.split_once("; reason: ").unwrap_or((rest, ""));
    let (reason, error) = match reason.split_once("; error: ") {
        Some((r, e)) => (r, Some(e.to_string())),
        None => (reason, None),
    };
    Some((size.trim().parse().ok()?, reason.to_string(), error, combined))
}

/// The events of `reason` that record a rescale (or a failed write), oldest first.
fn rescales_of(events: &[RecordedEvent], reason: &str) -> Vec<Rescale> {
    let mut out: Vec<Rescale> = events
        .iter()
        .filter(|e| e.reason == reason)
        .filter_map(|e| {
            let (size, reason, error, combined) = parse_rescale(&e.message)?;
            let at = e.last.or(e.first)?;
            Some(Rescale { at, size, reason, count: e.count, first: e.first.filter(|_| e.count > 1), combined, error })
        })
        .collect();
    out.sort_by_key(|r| r.at);
    out
}

/// What the events aggregate (`count > 1`), in sentences: the rescales whose time or size is
/// not recorded.
fn aggregation_assumptions(what: &str, events: &[&Rescale], now: Timestamp) -> Vec<String> {
    events
        .iter()
        .filter(|r| r.count > 1)
        .map(|r| {
            let since = r.first.map_or_else(String::new, |f| format!(" since {}", ago(now, f)));
            if r.combined {
                format!(
                    "the {what} event of {} counts {} events{since} that the event recorder combined (\"(combined from similar events)\": their messages differ): only the last one's size ({}) is recorded; the others are left out",
                    ago(now, r.at),
                    r.count,
                    r.size
                )
            } else {
                format!(
                    "the {what} event of {} counts {} identical ones{since}: the first and the last ({}) are taken, both to {}; {}",
                    ago(now, r.at),
                    r.count,
                    ago(now, r.at),
                    r.size,
                    if r.count > 2 {
                        format!("the times of the {} between them are not recorded", r.count - 2)
                    } else {
                        "what the count was between them is not recorded".to_string()
                    }
                )
            }
        })
        .collect()
}

/// The controller's memory of the HPA, from its status and its `SuccessfulRescale` and
/// `FailedRescale` events.
///
/// `reconcileAutoscaler` stores each sync's recommendation (`stabilizeRecommendation` /
/// `stabilizeRecommendationWithBehaviors`) before it writes the scale, so a failed write's sync
/// left one too; only a write that succeeded stores a scale event (`storeScaleEvent`).
fn reconstruct_memory(input: &DiagnosisInput<'_>) -> Memory {
    let hpa = input.hpa;
    let now = input.sync.now;
    let behavior = input.config.effective_behavior(hpa);
    let window_seconds = memory_seconds(behavior.as_ref(), input.config);
    let rescales = rescales_of(input.events, SUCCESSFUL_RESCALE);
    let failed_rescales = rescales_of(input.events, FAILED_RESCALE);
    let mut memory = Memory { rescales, failed_rescales, window_seconds, ..Memory::default() };

    let status = &hpa.status;
    let synced =
        !status.conditions.is_empty() || status.last_scale_time.is_some() || status.observed_generation.is_some();
    if !synced {
        // The controller seeds its memory at the first sync (recordInitialRecommendation).
        memory.assumptions.push(
            "the HPA has no status yet: the replayed sync is the controller's first, from an empty memory".into(),
        );
        return memory;
    }

    let cutoff = now.plus_secs(-window_seconds);
    let in_window = |r: &&Rescale| !r.at.before(cutoff) || r.known().any(|(t, _)| !t.before(cutoff));
    let succeeded: Vec<(Timestamp, i32)> =
        memory.rescales.iter().flat_map(Rescale::known).filter(|(t, _)| !t.before(cutoff)).collect();
    let failed: Vec<(Timestamp, i32)> =
        memory.failed_rescales.iter().flat_map(Rescale::known).filter(|(t, _)| !t.before(cutoff)).collect();
    let mut recommendations: Vec<TimestampedRecommendation> = succeeded
        .iter()
        .chain(&failed)
        .map(|&(timestamp, recommendation)| TimestampedRecommendation { recommendation, timestamp })
        .collect();
    recommendations.sort_by_key(|r| r.timestamp);
    let period = input.config.sync_period_millis();
    let last_sync = Timestamp::from_millis(now.as_millis().saturating_sub(period));
    let status_part = match last_recommendation(&status.conditions) {
        LastRecommendation::Recorded(what) => {
            recommendations
                .push(TimestampedRecommendation { recommendation: status.desired_replicas, timestamp: last_sync });
            format!("and the status's desiredReplicas ({}) one sync period ago ({what})", status.desired_replicas)
        }
        LastRecommendation::NotOne(why) => {
            format!("only; the status's desiredReplicas ({}) is not taken: {why}", status.desired_replicas)
        }
        LastRecommendation::NotStored(why) => match rebuilt_recommendation(input) {
            Some(rebuilt) => {
                recommendations
                    .push(TimestampedRecommendation { recommendation: rebuilt.replicas, timestamp: last_sync });
                format!(
                    "and, one sync period ago, {} rebuilt from the status (the status's desiredReplicas ({}) is not the recommendation: {why}; the recommendation is reconstructed from status.currentMetrics and currentReplicas as the controller computes it: {}, assuming all {} pods were Ready with metrics then)",
                    rebuilt.replicas,
                    status.desired_replicas,
                    rebuilt.how.join(", "),
                    status.current_replicas
                )
            }
            None => format!(
                "only; the status's desiredReplicas ({}) is not taken: {why}; the recommendation it stored cannot be rebuilt from status.currentMetrics (absent, or a per-pod Object or External target), so the memory may lack the one that holds the count",
                status.desired_replicas
            ),
        },
    };
    let failed_part = if failed.is_empty() {
        String::new()
    } else {
        format!(
            ", the sizes of the scale writes that failed in it ({}: FailedRescale events; the controller stores its recommendation before the write)",
            failed.len()
        )
    };
    memory.assumptions.push(format!(
        "the controller's memory lives only in kube-controller-manager: its recommendations of the last {} are taken as the sizes of the rescales its events record in that window ({}){failed_part} {status_part}; the pre-normalization counts it really stored are not in the API",
        format_ms(window_seconds.saturating_mul(1000)),
        succeeded.len(),
    ));
    let aggregated: Vec<&Rescale> = memory.rescales.iter().filter(in_window).collect();
    memory.assumptions.extend(aggregation_assumptions(SUCCESSFUL_RESCALE, &aggregated, now));
    let aggregated: Vec<&Rescale> = memory.failed_rescales.iter().filter(in_window).collect();
    memory.assumptions.extend(aggregation_assumptions(FAILED_RESCALE, &aggregated, now));

    if behavior.is_some() {
        // The sizes the target went through, oldest first: each change is a scale event.
        let mut sizes: Vec<(Timestamp, i32)> = memory.rescales.iter().flat_map(Rescale::known).collect();
        sizes.sort_by_key(|(t, _)| *t);
        for (i, &(at, size)) in sizes.iter().enumerate() {
            if at.before(cutoff) {
                continue;
            }
            let before = match i.checked_sub(1).and_then(|j| sizes.get(j)) {
                Some(&(_, prev)) => prev,
                None => match earlier_size(input, &memory.rescales, at, size) {
                    Some((before, assumption)) => {
                        memory.assumptions.push(assumption);
                        before
                    }
                    None => {
                        memory.assumptions.push(format!(
                            "the rescale to {size} {} has no earlier size on record and its reason does not say its direction: it is left out of the scaling policies' periods",
                            ago(now, at)
                        ));
                        continue;
                    }
                },
            };
            let event = TimestampedScaleEvent { replica_change: (size - before).abs(), timestamp: at, outdated: false };
            if size > before {
                memory.state.scale_up_events.push(event);
            } else if size < before {
                memory.state.scale_down_events.push(event);
            }
        }
    }
    memory
        .assumptions
        .push("a restart of kube-controller-manager empties this memory; the events cannot show one".into());
    memory.state.recommendations = Some(recommendations);
    memory
}

/// The size before the first rescale the events record (to `size` at `at`), with the
/// assumption that says where it comes from: the scale target's `ScalingReplicaSet` event of
/// that rescale (`Scaled up replica set web-5d4 from 1 to 2`, within a sync period of it), else
/// one replica away in the direction its reason gives (`reconcileAutoscaler` writes `<metric>
/// above target` when the metrics want more replicas, `All metrics below target` when fewer,
/// and the min/max reasons when the count is outside them). `storeScaleEvent` records the
/// change, so the policies' periods need it; one replica is the least a rescale changes, so
/// the limit replayed is the loosest the controller can have.
fn earlier_size(input: &DiagnosisInput<'_>, rescales: &[Rescale], at: Timestamp, size: i32) -> Option<(i32, String)> {
    let now = input.sync.now;
    let period = input.config.sync_period_millis();
    let from_target = input
        .target_events
        .iter()
        .filter(|e| e.reason == SCALING_REPLICA_SET)
        .filter_map(|e| {
            let t = e.last.or(e.first)?;
            let (from, to) = parse_scaled_replica_set(&e.message)?;
            let gap = (t.as_millis() - at.as_millis()).abs();
            (to == size && from != to && gap <= period).then_some((gap, from, e))
        })
        .min_by_key(|(gap, _, _)| *gap);
    if let Some((_, from, e)) = from_target {
        return Some((
            from,
            format!(
                "the rescale to {size} {} has no earlier size among the HPA's events: {from} is read from the target's {SCALING_REPLICA_SET} event ({:?})",
                ago(now, at),
                e.message
            ),
        ));
    }
    let reason = rescales.iter().find(|r| r.at == at || r.known().any(|(t, _)| t == at)).map(|r| r.reason.as_str())?;
    let up = if reason.ends_with(" above target")
        || reason.ends_with("below Spec.MinReplicas")
        || reason.ends_with("must be greater than 0")
    {
        true
    } else if reason.ends_with(" below target") || reason.ends_with("above Spec.MaxReplicas") {
        false
    } else {
        return None;
    };
    let (before, verb) = if up { (size.saturating_sub(1), "up") } else { (size.saturating_add(1), "down") };
    Some((
        before,
        format!(
            "the rescale to {size} {} has no earlier size on record: its reason ({reason}) says it scaled {verb}, so it is counted as a change of 1 replica (from {before}), the least it can be; the scaling policies' limit replayed is then the highest the controller can have",
            ago(now, at)
        ),
    ))
}

/// The reason of the deployment controller's events on a Deployment as it scales a replica
/// set (`scaleReplicaSet` in `pkg/controller/deployment/sync.go`).
pub const SCALING_REPLICA_SET: &str = "ScalingReplicaSet";

/// `Scaled up replica set web-5d4 from 1 to 2` / `Scaled down replica set web-5d4 from 3 to
/// 2` (the deployment controller's `ScalingReplicaSet` message): the sizes from and to.
fn parse_scaled_replica_set(message: &str) -> Option<(i32, i32)> {
    let rest =
        message.strip_prefix("Scaled up replica set ").or_else(|| message.strip_prefix("Scaled down replica set "))?;
    let (_, sizes) = rest.rsplit_once(" from ")?;
    let (from, to) = sizes.split_once(" to ")?;
    Some((from.trim().parse().ok()?, to.trim().parse().ok()?))
}

/// A recommendation rebuilt from the status.
struct Rebuilt {
    /// The count.
    replicas: i32,
    /// How each metric gave its count, in words.
    how: Vec<String>,
}

/// The recommendation the last sync stored, rebuilt from the status it wrote, when its
/// `desiredReplicas` is not that recommendation (ScalingLimited True, a failed write).
///
/// `setStatus` writes `currentReplicas` (the scale's `spec.replicas` the sync read) and
/// `currentMetrics` (each metric's value, in spec order; a failed metric's is empty) even when
/// the count was limited or the write failed. From them the metric's proposal is what the
/// replica calculator computes with every one of those pods Ready and reporting
/// (`GetResourceReplicas`, `GetRawResourceReplicas`, `GetMetricReplicas`,
/// `GetObjectMetricReplicas`, `GetExternalMetricReplicas`): the usage ratio (a utilization is
/// the integer percentage the status holds; a value is in milli-units), the current count
/// within the tolerance, else `ceil(ratio × pods)` converted as the release converts it
/// ([`ready_pods_replica_count`](super::replicas::ReplicaCalculator::ready_pods_replica_count),
/// [`usage_ratio_replica_count`](super::replicas::ReplicaCalculator::usage_ratio_replica_count): `MinInt32` past the int32 range before
/// 1.38, Object and External capped from 1.35); the recommendation is the one
/// `computeReplicasForMetrics` keeps (the highest, or one after a 0). Per-pod targets of Object and External metrics
/// (`AverageValue`: the status holds a rounded average) cannot be rebuilt exactly: then `None`,
/// as for a metric the status does not record.
fn rebuilt_recommendation(input: &DiagnosisInput<'_>) -> Option<Rebuilt> {
    let status = &input.hpa.status;
    let current = status.current_replicas;
    let statuses = status.current_metrics.as_ref().filter(|m| !m.is_empty())?;
    let specs = super::controller::effective_metrics(input.hpa);
    if statuses.len() != specs.len() {
        return None;
    }
    let t = input.config.tolerances_for_hpa(input.hpa.spec.behavior.as_ref());
    let tolerances = super::replicas::Tolerances { scale_down: t.scale_down.used, scale_up: t.scale_up.used };
    let calc = input.config.replica_calculator();
    let mut best: Option<i32> = None;
    let mut how = Vec::new();
    for (spec, st) in specs.iter().zip(statuses) {
        let (target, value) = match spec.type_.as_str() {
            "Resource" => (&spec.resource.as_ref()?.target, &st.resource.as_ref()?.current),
            "ContainerResource" => {
                (&spec.container_resource.as_ref()?.target, &st.container_resource.as_ref()?.current)
            }
            "Pods" => (&spec.pods.as_ref()?.target, &st.pods.as_ref()?.current),
            "Object" => (&spec.object.as_ref()?.target, &st.object.as_ref()?.current),
            "External" => (&spec.external.as_ref()?.target, &st.external.as_ref()?.current),
            _ => return None,
        };
        let (ratio, words) = match target.type_.as_str() {
            "Utilization" => {
                let (u, of) = (value.average_utilization?, target.average_utilization?);
                if of == 0 {
                    return None;
                }
                (f64::from(u) / f64::from(of), format!("{u}% of {of}%"))
            }
            "AverageValue" if matches!(spec.type_.as_str(), "Resource" | "ContainerResource" | "Pods") => {
                let (v, of) =
                    (value.average_value.as_ref()?.milli_value(), target.average_value.as_ref()?.milli_value());
                if of == 0 {
                    return None;
                }
                (v as f64 / of as f64, format!("{}m per pod of {}m", v, of))
            }
            "Value" if matches!(spec.type_.as_str(), "Object" | "External") => {
                let (v, of) = (value.value.as_ref()?.milli_value(), target.value.as_ref()?.milli_value());
                if of == 0 {
                    return None;
                }
                (v as f64 / of as f64, format!("{}m of {}m", v, of))
            }
            _ => return None,
        };
        // Every one of the `current` pods Ready and reporting: the fast path of
        // `GetResourceReplicas`/`calcPlainMetricReplicas`, or `getUsageRatioReplicaCount` for
        // Object and External values (and from zero replicas), with the release's int32
        // conversion and caps.
        let replicas = if current == 0 || matches!(spec.type_.as_str(), "Object" | "External") {
            calc.usage_ratio_replica_count(current, ratio, tolerances, || Ok(i64::from(current))).ok()?
        } else {
            calc.ready_pods_replica_count(current, ratio, tolerances, i64::from(current))
        };
        how.push(format!("{} {words} on {current} → {replicas}", spec.type_));
        best = Some(match best {
            Some(b) if !super::controller::takes_proposal(b, replicas) => b,
            _ => replicas,
        });
    }
    Some(Rebuilt { replicas: best?, how })
}

/// What the live status's `desiredReplicas` is, as its conditions tell.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LastRecommendation {
    /// A count the controller stored as a recommendation (what it was, in words).
    Recorded(String),
    /// Not the recommendation the last sync stored, though it stored one (why, in words): it
    /// can be rebuilt from the status's metrics ([`rebuilt_recommendation`]).
    NotStored(String),
    /// Not a stored recommendation, and the last sync stored none (why, in words).
    NotOne(String),
}

/// Whether the status's `desiredReplicas` is a recommendation the controller stored.
///
/// `stabilizeRecommendationWithBehaviors` (and `stabilizeRecommendation` without
/// `spec.behavior`) store the *prenormalized* count; `normalizeDesiredReplicasWithBehaviors`
/// (`normalizeDesiredReplicas`) then write AbleToScale `ReadyForNewScale` when the stabilized
/// count is that recommendation, `ScaleUpStabilized`/`ScaleDownStabilized` when a stored one
/// held it, and ScalingLimited True when `convertDesiredReplicasWithBehaviorRate`
/// (`convertDesiredReplicasWithRules`) moved it (a rate limit, `selectPolicy: Disabled` in
/// `calculateScaleUpLimitWithScalingRules`/`calculateScaleDownLimitWithBehaviors`, min or
/// max). `reconcileAutoscaler` writes the final count to `status.desiredReplicas` and, after a
/// rescale, AbleToScale `SucceededRescale`. So the status's count is a recommendation only
/// when ScalingLimited is not True and AbleToScale is one of those. When the scale write
/// fails (AbleToScale False `FailedUpdateScale`) the sync has stored its recommendation (the
/// write comes after normalization) but keeps the earlier `desiredReplicas`; after a failed
/// metric (AbleToScale `SucceededGetScale`) the sync stopped before normalization and stored
/// nothing.
fn last_recommendation(conditions: &[HorizontalPodAutoscalerCondition]) -> LastRecommendation {
    let find = |t: &str| conditions.iter().find(|c| c.type_ == t);
    if find("AbleToScale").is_some_and(|c| c.status == "False" && c.reason == "FailedUpdateScale") {
        return LastRecommendation::NotStored(
            "AbleToScale is False (FailedUpdateScale): the last sync stored its recommendation, then failed to write the scale and kept the earlier desiredReplicas".into(),
        );
    }
    if let Some(l) = find("ScalingLimited").filter(|c| c.status == "True") {
        return LastRecommendation::NotStored(format!(
            "ScalingLimited is True ({}), so it is the count after the limit, not a recommendation",
            l.reason
        ));
    }
    match find("AbleToScale").filter(|c| c.status == "True").map(|c| c.reason.as_str()) {
        Some("ReadyForNewScale") => {
            LastRecommendation::Recorded("AbleToScale ReadyForNewScale: the last sync's recommendation".into())
        }
        Some(r @ ("ScaleUpStabilized" | "ScaleDownStabilized")) => LastRecommendation::Recorded(format!(
            "AbleToScale {r}: the recommendation the window held, recorded at some time within it; one sync period ago is the latest, so the forecast's hold is the longest it can be"
        )),
        Some("SucceededRescale") => {
            LastRecommendation::Recorded("AbleToScale SucceededRescale: the count of the last rescale".into())
        }
        Some(other) => {
            LastRecommendation::NotOne(format!("AbleToScale is {other}, so the last sync did not reach normalization"))
        }
        None => match find("AbleToScale") {
            Some(c) => LastRecommendation::NotOne(format!(
                "AbleToScale is {} ({}), so the last sync did not reach normalization",
                c.status, c.reason
            )),
            None => LastRecommendation::Recorded("taken as a recommendation: no AbleToScale condition tells".into()),
        },
    }
}

fn ago(now: Timestamp, at: Timestamp) -> String {
    format!("{} ago", format_ms(now.as_millis().saturating_sub(at.as_millis())))
}

// === Conditions ===

/// The condition types in the controller's order, each replayed and live, with the
/// differences the inputs explain.
///
/// The replayed sync is the one after the sync that wrote the live status, so some
/// differences are the expected transition from one sync to the next:
/// - AbleToScale: `reconcileAutoscaler` writes `SucceededRescale` after a rescale and the
///   stabilization reason (`normalizeDesiredReplicas[WithBehaviors]`) otherwise, each sync
///   anew: a live `SucceededRescale` (the last sync rescaled) next to a replayed stabilization
///   reason, or the reverse (this sync rescales, the last did not), is that transition;
/// - ScaledToZero (from 1.36, gate `HPAScaleToZero`): written only by a sync that rescales, so
///   a live status without it next to a rescaling replay is expected, and so is a live status
///   of the other value next to a replay that rescales to 0 (True) or from 0 (False).
///
/// Every other difference (ScalingActive, ScalingLimited, a status or a failure reason) is
/// left unexplained: a metric that moved since, the controller's memory or flags, a newer
/// sync.
fn compare_conditions(sync: &SyncResult, hpa: &HorizontalPodAutoscaler, now: Timestamp) -> Vec<ConditionCheck> {
    let replayed = &sync.status.conditions;
    let live = &hpa.status.conditions;
    let mut types: Vec<&str> = ["AbleToScale", "ScalingActive", "ScalingLimited"].to_vec();
    for c in replayed.iter().chain(live) {
        if !types.contains(&c.type_.as_str()) {
            types.push(&c.type_);
        }
    }
    types
        .into_iter()
        .map(|t| {
            let mut check = ConditionCheck {
                type_: t.to_string(),
                replayed: replayed.iter().find(|c| c.type_ == t).cloned(),
                live: live.iter().find(|c| c.type_ == t).cloned(),
                compared: !live.is_empty(),
                explained: None,
            };
            if !check.agrees() {
                check.explained = explain_difference(&check, sync, hpa, now);
            }
            check
        })
        .filter(|c| c.replayed.is_some() || c.live.is_some())
        .collect()
}

/// Why `check`'s replayed and live conditions differ, when it is the transition from the sync
/// that wrote the live status to the replayed one ([`compare_conditions`]).
fn explain_difference(
    check: &ConditionCheck,
    sync: &SyncResult,
    hpa: &HorizontalPodAutoscaler,
    now: Timestamp,
) -> Option<String> {
    const STABILIZATION: [&str; 3] = ["ReadyForNewScale", "ScaleUpStabilized", "ScaleDownStabilized"];
    match (check.type_.as_str(), &check.replayed, &check.live) {
        ("AbleToScale", Some(r), Some(l)) if r.status == "True" && l.status == "True" => {
            if l.reason == "SucceededRescale" && STABILIZATION.contains(&r.reason.as_str()) {
                let when = hpa
                    .status
                    .last_scale_time
                    .map_or_else(String::new, |t| format!(" ({})", ago(now, Timestamp::from(t))));
                Some(format!(
                    "the live status was written by the last sync, which rescaled{when}; this sync does not rescale, so it writes its stabilization reason"
                ))
            } else if r.reason == "SucceededRescale" && STABILIZATION.contains(&l.reason.as_str()) {
                Some("this sync rescales; the last sync, which wrote the live status, did not".to_string())
            } else {
                None
            }
        }
        // A rescale writes ScaledToZero anew, True when it scales to zero and False otherwise
        // (`reconcileAutoscaler`): a live condition of the other status is the last rescale's.
        ("ScaledToZero", Some(r), Some(l)) if sync.rescaled && r.status != l.status => {
            let to = sync.rescale_to.unwrap_or(sync.desired_replicas);
            match (r.status.as_str(), l.status.as_str()) {
                ("True", "False") if to == 0 => Some(
                    "this sync rescales to 0, so it sets ScaledToZero True; the live condition is the last rescale's, which was not to 0"
                        .to_string(),
                ),
                ("False", "True") if to > 0 => Some(format!(
                    "this sync rescales from 0 to {to}, so it sets ScaledToZero False; the live condition is the last rescale's, to 0"
                )),
                _ => None,
            }
        }
        // A live status whose last sync rescaled would hold it: its absence is then the
        // controller's release or gate, which the inputs do not show.
        ("ScaledToZero", Some(r), None)
            if sync.rescaled
                && r.status == "False"
                && !hpa.status.conditions.iter().any(|c| c.type_ == "AbleToScale" && c.reason == "SucceededRescale") =>
        {
            Some(
                "the controller writes ScaledToZero only when it rescales: the last sync, which wrote the live status, did not"
                    .to_string(),
            )
        }
        _ => None,
    }
}

// === The forecast ===

/// The longest a forecast runs, in ms after the replayed sync (beyond the controller's
/// memory window).
const FORECAST_HORIZON_MS: i64 = 3_600_000;

/// The next syncs, if the load stays as the replayed sync read it: the simulation driver
/// resumed from the sync's memory and status, with the live pods.
fn forecast(input: &DiagnosisInput<'_>, sync: &SyncResult, state: ControllerState) -> Forecast {
    let config = input.config;
    let now = input.sync.now;
    let period_ms = config.sync_period_millis().max(1);
    let memory_ms = memory_seconds(config.effective_behavior(input.hpa).as_ref(), config).saturating_mul(1000);
    let mut assumptions = Vec::new();

    // Every pod the controller lists, each with its own spec and phase; the terminated ones
    // (Failed, Succeeded) stay listed (`calculatePodRequests` reads their requests too), the
    // deleted ones are taken as gone by the next sync.
    let listed: Vec<_> = input.sync.pods.iter().filter(|p| !p.deleted).collect();
    let terminated = |p: &super::replicas::Pod| matches!(p.phase, PodPhase::Failed | PodPhase::Succeeded);
    let pods: Vec<_> = listed.iter().copied().filter(|p| !terminated(p)).collect();
    let rel = |t: Timestamp| t.as_millis().saturating_sub(now.as_millis());
    let init_ms = i64::try_from(config.cpu_initialization_period.as_millis()).unwrap_or(i64::MAX);
    // How long a new pod takes to turn Ready: as the Ready pods did (the longest), else 30 s.
    // Only a Ready transition within the CPU initialization period of the pod's start is its
    // start-up (the period `groupPods` gives a starting pod); a later one is a readiness flap
    // (a probe that failed and recovered), which says nothing about how long a new pod takes.
    let ready_delays: Vec<i64> = pods
        .iter()
        .filter_map(|p| {
            let c = p.ready_condition?;
            let start = p.start_time?;
            (c.status == ConditionStatus::True).then(|| c.last_transition_time.as_millis() - start.as_millis())
        })
        .filter(|d| *d >= 0)
        .collect();
    let flaps = ready_delays.iter().filter(|d| **d > init_ms).count();
    let flap_note = if flaps == 0 {
        String::new()
    } else {
        format!(
            "; {flaps} Ready pod{} turned Ready later than the CPU initialization period ({}) after {} start (a readiness change, not a start-up): not counted",
            if flaps == 1 { "" } else { "s" },
            format_ms(init_ms),
            if flaps == 1 { "its" } else { "their" }
        )
    };
    let ready_after_ms = match ready_delays.iter().filter(|d| **d <= init_ms).max() {
        Some(&d) => {
            assumptions.push(format!(
                "new pods start at once and turn Ready after {}, as the slowest Ready pod did within the CPU initialization period ({}) of its start{flap_note}",
                format_ms(d),
                format_ms(init_ms)
            ));
            d
        }
        None => {
            assumptions.push(format!(
                "new pods start at once and turn Ready after 30s (no Ready pod shows how long{flap_note})"
            ));
            30_000
        }
    };
    // Pending pods run from the next sync on (no scheduling or image-pull delay): said by name,
    // with what the controller makes of a Pending pod (`groupPods`: unready, whatever the
    // metric) and where the forecast's Running pod differs.
    let pending: Vec<&str> = pods.iter().filter(|p| p.phase == PodPhase::Pending).map(|p| &*p.name).collect();
    if !pending.is_empty() {
        let (pods, are, them, their, a_pod) = if pending.len() == 1 {
            ("pod", "is", "it", "its", "a Pending pod")
        } else {
            ("pods", "are", "them", "their", "Pending pods")
        };
        assumptions.push(format!(
            "{pods} {} {are} Pending: the forecast has {them} Running from the next sync on and Ready that long after {their} start (at the next sync at the earliest; no scheduling or image-pull delay is assumed); the controller counts {a_pod} as not ready (groupPods), as it counts a starting pod for a cpu metric; for another metric the forecast's Running pods count as ready once they report, where Pending ones would not",
            pending.join(", ")
        ));
    }
    let silences = silences(input, sync);
    let timelines: Vec<ResumedPod> = listed
        .iter()
        .map(|p| {
            let created = p.start_time.map_or(0, rel);
            let running = if p.phase == PodPhase::Pending { created.max(0) } else { created.min(0) };
            let ready = match p.ready_condition {
                Some(c) if c.status == ConditionStatus::True => rel(c.last_transition_time).min(0),
                // Still starting (within the CPU initialization period): Ready after the
                // delay, at the next sync at the earliest; older unready pods stay so.
                _ if created.saturating_add(init_ms) > 0 => created.saturating_add(ready_after_ms).max(period_ms),
                _ => PodTimeline::NEVER,
            };
            ResumedPod {
                timeline: PodTimeline { created_ms: created, running_ms: running, ready_ms: ready },
                spec: PodTemplate::of(p),
                terminated: terminated(p).then_some(p.phase),
                silence: silences.get(&*p.name).cloned().unwrap_or_default(),
            }
        })
        .collect();
    if pods.iter().any(|p| p.ready_condition.is_none_or(|c| c.status != ConditionStatus::True)) {
        assumptions.push(format!(
            "pods not Ready yet turn Ready after that delay (at the next sync at the earliest) while within the CPU initialization period ({}) of their start; older unready pods stay unready",
            format_ms(init_ms)
        ));
    }
    assumptions.push(
        "the load stays as the replayed sync read it: the pods' total usage, shared by the Ready pods (unready pods get none), and each Object or External metric's value".into(),
    );
    // Ready pods the replayed sync found without a sample (`groupPods`' missing pods) stay so:
    // each sync counts them as the controller does.
    let (containers_only, silences_rest): (Vec<_>, Vec<_>) =
        silences.iter().partition(|(_, s)| !s.resources && s.pods_metrics.is_empty());
    for (pod, s) in &containers_only {
        let (containers, them, metric) = if s.containers.len() == 1 {
            (format!("container {}", s.containers.join("")), "it", "that container's metric")
        } else {
            (format!("containers {}", s.containers.join(", ")), "them", "those containers' metrics")
        };
        assumptions.push(format!(
            "pod {pod} is Ready but its PodMetrics lists no {containers} (the pod lacks {them}, or {them} did not report): the forecast keeps it so, and each sync counts the pod, for {metric}, as the controller counts a pod without metrics (using nothing when the others want more replicas, the target when they want fewer)"
        ));
    }
    if !silences_rest.is_empty() {
        let silent: Vec<&str> = silences_rest.iter().map(|(p, _)| **p).collect();
        let (pods, them) = if silent.len() == 1 { ("pod", "it") } else { ("pods", "them") };
        assumptions.push(format!(
            "{pods} {} had no metrics in the replayed sync and keep{} none (the load is shared by the Ready pods that report): each sync counts {them} as the controller counts a pod without metrics, as using nothing when the pods that report want more replicas, as using the target when they want fewer (a resource utilization metric: 100 % of the request, or the target utilization above 100 %)",
            silent.join(", "),
            if silent.len() == 1 { "s" } else { "" }
        ));
    }
    // Pods not Ready yet without a sample are starting: they report once Running in the
    // simulation (nothing while unready).
    let mut starting: Vec<&str> = Vec::new();
    for p in sync.metrics().iter().flat_map(|e| &e.set_aside) {
        if p.reason == SetAsideReason::MissingMetrics && !silences.contains_key(&*p.pod) && !starting.contains(&&*p.pod)
        {
            starting.push(&p.pod);
        }
    }
    if !starting.is_empty() {
        let (pods, them, their, they_report) = if starting.len() == 1 {
            ("pod", "it", "its", "it reports")
        } else {
            ("pods", "them", "their", "they report")
        };
        assumptions.push(format!(
            "{pods} {}, not Ready yet, had no metrics in the replayed sync: the forecast has {them} report {their} share of the load from the next sync on; while {they_report} none, each sync decides as the replayed one did",
            starting.join(", ")
        ));
    }

    let current = input.sync.scale.as_ref().map_or(0, |s| s.spec_replicas);
    let specs = super::controller::effective_metrics(input.hpa);
    let (keys, bindings) = metric_keys(&specs);
    let values = specs
        .iter()
        .zip(&bindings)
        .filter(|(_, slot)| slot.is_some())
        .map(|(spec, _)| Some(current_load(input.sync, spec)))
        .collect();
    // New pods: the target's pod template; without it, copies of the first pod (said).
    let template = match (input.template, pods.first()) {
        (Some(t), _) => t.clone(),
        (None, Some(p)) => {
            assumptions.push(format!(
                "the target's pod template is not known (not among the inputs, or a custom resource's, see the notes): new pods are taken as copies of pod {}",
                p.name
            ));
            PodTemplate::of(p)
        }
        (None, None) => PodTemplate {
            containers: vec![Container { name: "app".into(), ..Container::default() }],
            ..PodTemplate::default()
        },
    };
    let metric_window = match &input.sync.resource_metrics {
        // The forecast's pods sample over the live window; a negative one is taken as none.
        Ok(items) => items
            .first()
            .map_or(Duration::from_secs(15), |m| Duration::from_nanos(u64::try_from(m.window_nanos).unwrap_or(0))),
        Err(_) => Duration::from_secs(15),
    };
    let plan = Plan {
        hpa: input.hpa.clone(),
        options: config.clone(),
        initial_replicas: current,
        template,
        pod_start_after_ms: 0,
        pod_ready_after_ms: ready_after_ms,
        metric_window,
        selector: input.sync.scale.as_ref().map_or_else(|_| "app".into(), |s| s.selector.clone()),
        duration_ms: FORECAST_HORIZON_MS.saturating_add(memory_ms),
        keys,
        bindings,
        load: vec![LoadPhase { at_ms: 0, values }],
    };
    let resume = Resume {
        state: relative_to(state, now),
        status: sync.status.clone(),
        pods: timelines,
        first_sync_ms: period_ms,
        rescaled: sync.rescaled.then_some((0, current, sync.desired_replicas)),
        failed: FailedAnswers::of(input.sync),
    };
    let mut sim = Simulator::resume(&plan, resume);
    let mut steps = Vec::new();
    let mut last_change = 0i64;
    let mut count = if sync.rescaled { sync.desired_replicas } else { current };
    let mut steady = None;
    while let Some(step) = sim.step() {
        let at = step.at_ms;
        if step.rescaled {
            last_change = at;
            count = step.desired;
        }
        steps.push(step);
        // Steady: nothing changed for longer than the controller remembers, pods settled.
        if at - last_change > memory_ms.saturating_add(period_ms) && sim.pods_settled() {
            steady = Some((last_change, count));
            break;
        }
    }
    let held = steps.last().and_then(|st| sim.view(st).normalization).and_then(|n| why_limited(&n));
    // Keep the syncs up to one after the last change.
    let keep = steps.iter().position(|s| s.at_ms > last_change).map_or(steps.len(), |i| i + 1);
    steps.truncate(keep);
    Forecast { simulation: sim.finish(steps), sync_period_ms: period_ms, steady, held, assumptions }
}

/// What each Ready (or Succeeded) pod the replayed sync set aside for missing metrics does not
/// report, by pod: the resource metrics when the resource metrics API listed no `PodMetrics` of
/// it (a Resource or ContainerResource metric missed it) or listed it without the resource, a
/// container when its `PodMetrics` lists no usage of the container a ContainerResource metric
/// names (`getContainerMetrics` leaves the pod without a sample), a Pods metric when that
/// metric's answer had no sample of it. A pod not Ready yet is starting: it is taken to report once
/// Ready. A Succeeded pod never reports again, yet the controller counts it as missing before
/// 1.38 (`groupPods` ignores terminal pods from 1.38, #141302).
fn silences<'a>(input: &DiagnosisInput<'_>, sync: &'a SyncResult) -> BTreeMap<&'a str, Silence> {
    let specs = super::controller::effective_metrics(input.hpa);
    let ready = |pod: &str| {
        input.sync.pods.iter().any(|p| {
            *p.name == *pod
                && (p.phase == PodPhase::Succeeded
                    || p.ready_condition.is_some_and(|c| c.status == ConditionStatus::True))
        })
    };
    // The pod's `PodMetrics` items (the metrics client keeps the last of one name).
    let item = |pod: &str| match &input.sync.resource_metrics {
        Ok(items) => Ok(items.iter().rev().find(|m| *m.pod == *pod)),
        Err(_) => Err(()),
    };
    let mut out: BTreeMap<&str, Silence> = BTreeMap::new();
    for e in sync.metrics() {
        let Some(spec) = specs.get(e.index) else { continue };
        for p in e.set_aside.iter().filter(|p| p.reason == SetAsideReason::MissingMetrics && ready(&p.pod)) {
            match (MetricQuery::of(spec), item(&p.pod)) {
                (Some(MetricQuery::Pods { metric }), _) => {
                    let silence = out.entry(&p.pod).or_default();
                    if !silence.pods_metrics.contains(&metric) {
                        silence.pods_metrics.push(metric);
                    }
                }
                (None, Ok(None)) => out.entry(&p.pod).or_default().resources = true,
                // Listed, without the container a ContainerResource metric names (a container
                // the pod lacks, or one not started or not reported yet): it stays unlisted.
                (None, Ok(Some(m))) => match MetricKey::of(spec) {
                    Some(MetricKey::Container { container, .. })
                        if !m.containers.iter().any(|c| c.name == container) =>
                    {
                        let silence = out.entry(&p.pod).or_default();
                        if !silence.containers.contains(&container) {
                            silence.containers.push(container);
                        }
                    }
                    // Listed without the resource: no sample from it either.
                    _ => out.entry(&p.pod).or_default().resources = true,
                },
                _ => {}
            }
        }
    }
    out
}

/// The controller's memory with its instants made relative to `now` (the simulation's 0).
fn relative_to(mut state: ControllerState, now: Timestamp) -> ControllerState {
    let shift = |t: Timestamp| Timestamp::from_millis(t.as_millis().saturating_sub(now.as_millis()));
    for r in state.recommendations.iter_mut().flatten() {
        r.timestamp = shift(r.timestamp);
    }
    for e in state.scale_up_events.iter_mut().chain(state.scale_down_events.iter_mut()) {
        e.timestamp = shift(e.timestamp);
    }
    state
}

/// The load keys of the HPA's metrics and each metric's slot: one slot per metric spec, as
/// the controller evaluates each spec on its own (`computeReplicasForMetrics`), even two of
/// one name (another selector, another object, another target).
fn metric_keys(specs: &[crate::api::v2::MetricSpec]) -> (Vec<MetricKey>, Vec<Option<usize>>) {
    let mut keys: Vec<MetricKey> = Vec::new();
    let bindings = specs
        .iter()
        .map(|m| {
            keys.push(MetricKey::of(m)?);
            Some(keys.len() - 1)
        })
        .collect();
    (keys, bindings)
}

/// The load of one metric spec as the sync read it: the total usage of the pods that report it
/// (which the simulation shares among the Ready pods), its object's value, its external
/// series' sum; `Unavailable` when nothing answered. Each Pods, Object and External metric's
/// answer is its own request's ([`MetricQuery::of`]).
fn current_load(sync: &SyncInput, spec: &crate::api::v2::MetricSpec) -> LoadValue {
    let total = |values: Vec<i64>| {
        if values.is_empty() {
            return LoadValue::Unavailable;
        }
        LoadValue::Total(values.iter().fold(0i64, |a, v| a.saturating_add(*v)))
    };
    let live = |name: &str| {
        sync.pods
            .iter()
            .any(|p| &*p.name == name && !p.deleted && !matches!(p.phase, PodPhase::Failed | PodPhase::Succeeded))
    };
    // One value per pod, as the metrics client's map keeps it (`res[m.Name] = ...`): the last
    // item of a name that gives one.
    let by_pod = |values: Vec<(&str, i64)>| -> Vec<i64> {
        let mut kept: BTreeMap<&str, i64> = BTreeMap::new();
        for (pod, v) in values {
            kept.insert(pod, v);
        }
        kept.into_values().collect()
    };
    let usage = |container: Option<&str>, resource: &str| match &sync.resource_metrics {
        Ok(items) => total(by_pod(
            items
                .iter()
                .filter(|m| live(&m.pod))
                .filter_map(|m| match container {
                    // `getPodMetrics`: the sum over the listed containers, none when one lacks
                    // the resource or none is listed.
                    None if m.containers.is_empty() => None,
                    None => Some((
                        &*m.pod,
                        m.containers
                            .iter()
                            .try_fold(0i64, |sum, c| Some(sum.wrapping_add(*c.usage_milli.get(resource)?)))?,
                    )),
                    Some(container) => Some((
                        &*m.pod,
                        m.containers.iter().find(|c| c.name == container)?.usage_milli.get(resource).copied()?,
                    )),
                })
                .collect(),
        )),
        Err(_) => LoadValue::Unavailable,
    };
    match MetricKey::of(spec) {
        Some(MetricKey::Resource(r)) => return usage(None, &r),
        Some(MetricKey::Container { container, resource }) => return usage(Some(&container), &resource),
        _ => {}
    }
    let Some(query) = MetricQuery::of(spec) else { return LoadValue::Unavailable };
    if sync.metric_errors.contains_key(&query) {
        return LoadValue::Unavailable;
    }
    match &query {
        MetricQuery::Pods { metric } => match &sync.pods_metrics {
            Ok(map) => total(by_pod(
                map.get(metric).map(|s| s.iter().map(|s| (&*s.pod, s.value_milli)).collect()).unwrap_or_default(),
            )),
            Err(_) => LoadValue::Unavailable,
        },
        MetricQuery::Object { .. } => match &sync.object_metrics {
            // The value of the spec's object, as `object_sample` finds it.
            Ok(values) => values
                .iter()
                .find(|v| MetricQuery::object_value(v) == query)
                .map_or(LoadValue::Unavailable, |v| LoadValue::Value(v.value_milli)),
            Err(_) => LoadValue::Unavailable,
        },
        MetricQuery::External { metric } => match &sync.external_metrics {
            Ok(map) => match map.get(metric) {
                Some(v) if !v.is_empty() => LoadValue::Value(v.iter().fold(0i64, |a, x| a.saturating_add(*x))),
                _ => LoadValue::Unavailable,
            },
            Err(_) => LoadValue::Unavailable,
        },
    }
}

// === The answers ===

/// The metrics client's failure a calculator error carries (`GetResourceMetric`,
/// `GetRawMetric`, `GetObjectMetric`, `GetExternalMetric`), if any.
fn metrics_api_error(c: &CalcError) -> Option<&MetricsApiError> {
    match c {
        CalcError::ResourceMetrics { error, .. }
        | CalcError::PodsMetric { error, .. }
        | CalcError::ExternalMetric { error, .. } => Some(error),
        CalcError::ObjectMetric { error, .. } => Some(error),
        _ => None,
    }
}

/// Why it is not scaling, and why it is slow, from the replayed sync and the forecast.
fn findings(input: &DiagnosisInput<'_>, d: &Diagnosis) -> (Vec<Answer>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let holds = resizes_hold_the_count(input, d);
    let mut push = |question, cause, message: String| out.push(Answer { question, cause, message });
    let sync = &d.sync;
    let current = sync.current_replicas.unwrap_or(0);
    let not = Question::NotScaling;
    let cond = |t: &str| sync.status.conditions.iter().find(|c| c.type_ == t);

    match sync.outcome {
        SyncOutcome::FailedGetScale => push(
            not,
            "scale-unreadable",
            format!(
                "the controller cannot read the target's scale subresource: {}",
                sync.error.as_deref().unwrap_or("unknown error")
            ),
        ),
        SyncOutcome::ScalingDisabled => push(
            not,
            "scaling-disabled",
            format!(
                "the target's spec.replicas is 0: autoscaling is disabled (ScalingActive=False, ScalingDisabled) until it is set above 0{}",
                scaled_to_zero_by_a_gated_controller(input)
            ),
        ),
        // The write comes after normalization: the count was decided (and its recommendation
        // stored), then `scaleNamespacer.Update` failed.
        SyncOutcome::FailedUpdateScale => push(
            not,
            "scale-update-failed",
            format!(
                "{}: the controller wants {} replicas but every write of the scale fails, so the count stays at {current} until the write is allowed{}",
                cond("AbleToScale").map_or_else(|| sync.error.clone().unwrap_or_default(), |c| c.message.clone()),
                sync.rescale_to.unwrap_or(sync.desired_replicas),
                failed_events_text(&d.memory, d.now)
            ),
        ),
        _ => {}
    }
    // The controller could not read the scale where this diagnosis could.
    if sync.outcome != SyncOutcome::FailedGetScale
        && let Some(c) = input
            .hpa
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == "AbleToScale" && c.status == "False" && c.reason == "FailedGetScale")
    {
        push(
            not,
            "scale-unreadable",
            format!(
                "the last sync could not read the target's scale ({}), this diagnosis could: the controller reads with its own credentials, or the error has passed",
                c.message
            ),
        );
    }
    if let Some(c) = cond("ScalingActive").filter(|c| c.status == "False") {
        match c.reason.as_str() {
            "ScalingDisabled" | "FailedGetScale" => {}
            "AmbiguousSelector" => push(
                not,
                "ambiguous-selector",
                format!(
                    "{}: the controller refuses to scale pods that another HPA also selects; every sync stops there whatever the load, so the count stays at {current} until only one HPA selects them",
                    c.message
                ),
            ),
            "InvalidSelector" => push(
                not,
                "invalid-selector",
                format!(
                    "the target's selector is unusable: {}; every sync stops there whatever the load, so the count stays at {current} until the target's selector is fixed",
                    c.message
                ),
            ),
            _ => {}
        }
    }
    // The invalid-metric rule of `computeReplicasForMetrics` let the sync go on with the metrics
    // that answer, and they change the count (a scale-up, written or not): the controller
    // ignores the failed metrics (ScalingActive True, ValidMetricFound), so they do not answer
    // why it is not scaling; they are noted.
    let went_on = sync.metric_desired_replicas.is_some() && sync.rescale_to.is_some_and(|n| n != current);
    for e in sync.metrics() {
        let Some(error) = &e.error else { continue };
        let (cause, message) = match e.cause.as_ref().map(CalcError::root) {
            Some(CalcError::MissingRequest { .. } | CalcError::MissingPodLevelRequest { .. }) => {
                let pod = missing_request(e).unwrap_or_default();
                // A terminated pod is still listed, and its requests read.
                let terminated = input.sync.pods.iter().find(|p| &*p.name == pod).and_then(|p| match p.phase {
                    PodPhase::Failed => Some("Failed"),
                    PodPhase::Succeeded => Some("Succeeded"),
                    _ => None,
                });
                let fix = match terminated {
                    Some(phase) => format!(
                        "; Pod {pod} is {phase}, yet the controller reads the requests of every pod the selector lists: delete it, and set resources.requests on every container of the pods"
                    ),
                    None => "; set resources.requests on every container of the pods".into(),
                };
                let stays = if d.forecast.is_none() && sync.outcome == SyncOutcome::FailedComputeMetrics {
                    format!(
                        "; every sync fails there whatever the load, so the count stays at {current} until the pods have their requests"
                    )
                } else {
                    String::new()
                };
                ("missing-requests", format!("metric {} fails: {error}{fix}{stays}", e.index + 1))
            }
            // From 1.35 `calculateRequests` refuses a listed pod without the named container
            // (#133415): each sync fails until no pod the selector lists lacks it.
            Some(CalcError::ContainerNotFound { container, pod }) => {
                let stays = if d.forecast.is_none() && sync.outcome == SyncOutcome::FailedComputeMetrics {
                    format!(
                        "; every sync fails there whatever the load, so the count stays at {current} until no pod the selector lists lacks it"
                    )
                } else {
                    String::new()
                };
                (
                    "container-not-found",
                    format!(
                        "metric {} fails: {error}; the controller reads container {container}'s request in every pod the selector lists, and Pod {pod} has no such container: a rollout that adds it ends this once the pods without it are gone (delete them if they linger), else name a container the pods have{stays}",
                        e.index + 1
                    ),
                )
            }
            // The request failed (the API, or this metric's answer): no sample was read.
            Some(c) if matches!(metrics_api_error(c), Some(MetricsApiError::Fetch { .. })) => {
                ("no-metrics", format!("metric {} cannot be read: {error}", e.index + 1))
            }
            Some(
                CalcError::NoReadySamples
                | CalcError::NoMatchingSamples
                | CalcError::ResourceMetrics { .. }
                | CalcError::PodsMetric { .. }
                | CalcError::ObjectMetric { .. }
                | CalcError::ExternalMetric { .. },
            ) => ("no-metrics", format!("metric {} has no samples: {error}", e.index + 1)),
            _ => ("metric-failed", format!("metric {} fails: {error}", e.index + 1)),
        };
        if went_on {
            notes.push(message);
        } else {
            push(not, cause, message);
        }
    }
    // The invalid-metric rule of `computeReplicasForMetrics`: a failed metric blocks a
    // scale-down (and all failing, everything); the others scale up or keep the count alone.
    let failed: Vec<String> =
        sync.metrics().iter().filter(|e| e.error.is_some()).map(|e| (e.index + 1).to_string()).collect();
    if !failed.is_empty() {
        let (them, fail) = if failed.len() == 1 {
            (format!("metric {}", failed.join("")), "fails")
        } else {
            (format!("metrics {}", failed.join(", ")), "fail")
        };
        if let Some(blocked) = sync.blocked_desired_replicas {
            push(
                not,
                "metric-failed",
                format!(
                    "the metrics that answer want {blocked}, fewer than the current {current}, but {them} {fail}: the controller does not scale down while a metric fails (it scales on the others only when they want at least the current count), so the count stays at {current}"
                ),
            );
        } else if let Some(wanted) = sync.metric_desired_replicas {
            notes.push(format!(
                "{them} {fail}; the controller goes on with the others, which want {wanted}, at least the current {current}: a failed metric blocks a scale-down only"
            ));
        }
    }
    let specs = super::controller::effective_metrics(input.hpa);
    for e in sync.metrics() {
        // A failed metric's answer is its error (its set-aside pods stay in its evaluation).
        if e.set_aside.is_empty() || e.error.is_some() {
            continue;
        }
        let mut by_reason: BTreeMap<&'static str, usize> = BTreeMap::new();
        for p in &e.set_aside {
            *by_reason.entry(set_aside_text(p.reason)).or_default() += 1;
        }
        let list: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let how = set_aside_effect(e, specs.get(e.index));
        let q = if e.proposal.is_some_and(|p| p > current) { Question::Slow } else { not };
        push(q, "unready-pods", format!("metric {} sets pods aside ({}): {how}", e.index + 1, list.join(", ")));
    }
    for e in sync.metrics() {
        let judged = e.corrected_ratio.or(e.usage_ratio);
        // Within the tolerance, the metric keeps the count; that holds the count only when no
        // other metric wants more (`computeReplicasForMetrics` takes the largest proposal).
        if let (Some(ratio), Some(proposal)) = (judged, e.proposal)
            && proposal == current
            && sync.metric_desired_replicas == Some(current)
            && sync.tolerances.is_within(ratio)
        {
            push(
                not,
                "tolerance",
                format!(
                    "metric {}'s usage ratio {:.3}{} is within the tolerance (−{} / +{}) of 1: the controller keeps {current}",
                    e.index + 1,
                    ratio,
                    if e.corrected_ratio.is_some() { " (with the pods set aside)" } else { "" },
                    percent(sync.tolerances.scale_down),
                    percent(sync.tolerances.scale_up)
                ),
            );
        }
    }
    if let Some(n) = &sync.normalization
        && !limited_by_disabled(n)
        && let Some(direction) = disabled_direction(input, n.prenormalized, current)
    {
        // The sync is held by something else now (a stabilization window, the first sync's
        // recommendation), but the rate limit of that direction will keep the count anyway.
        let (verb, reason) = if direction == "scaleUp" { ("up", "ScaleUpLimit") } else { ("down", "ScaleDownLimit") };
        push(
            not,
            "rate-limit",
            format!(
                "the metrics want {} but {direction}.selectPolicy is Disabled: the controller never scales {verb} (once nothing else holds the count, it is limited to {current}, {reason})",
                n.prenormalized
            ),
        );
    }
    if let Some(n) = &sync.normalization {
        if n.stabilized != n.prenormalized {
            let held = n.held_by.map_or_else(String::new, |h| {
                format!(", held by the recommendation of {} recorded {}", h.recommendation, ago(d.now, h.timestamp))
            });
            let q = if n.stabilized == current { not } else { Question::Slow };
            push(
                q,
                "stabilization",
                format!(
                    "the stabilization window keeps {} instead of {} ({}{held}){}",
                    n.stabilized,
                    n.prenormalized,
                    n.stabilization_reason,
                    if d.memory.assumptions.is_empty() {
                        ""
                    } else {
                        "; the recommendations are reconstructed (see memory)"
                    }
                ),
            );
        }
        let limited = &n.limited;
        match limited.reason {
            "ScaleUpLimit" | "ScaleDownLimit" => {
                let how = match (n.path, limited.rate.and_then(|r| r.policy)) {
                    (NormalizationPath::Legacy, _) => format!(
                        "the controller's scale-up limit max({}×{current}, {}) = {}",
                        input.config.scale_up_limit_factor, input.config.scale_up_limit_minimum, limited.replicas
                    ),
                    (NormalizationPath::Behavior, Some((i, start))) => {
                        format!("{} (the count at its period's start: {start})", policy_text(input, limited.reason, i))
                    }
                    (NormalizationPath::Behavior, None) => {
                        let direction = if limited.reason == "ScaleUpLimit" { "scaleUp" } else { "scaleDown" };
                        format!("{direction}.selectPolicy: Disabled (the controller never scales in that direction)")
                    }
                };
                push(
                    if limited_by_disabled(n) { not } else { Question::Slow },
                    "rate-limit",
                    format!("{} is limited to {} by {how} ({})", n.stabilized, limited.replicas, limited.reason),
                );
            }
            "TooManyReplicas" => push(
                not,
                "max-replicas",
                format!("{} is capped at maxReplicas {} (TooManyReplicas)", n.stabilized, limited.replicas),
            ),
            "TooFewReplicas" => push(
                not,
                "min-replicas",
                format!("{} is raised to minReplicas {} (TooFewReplicas)", n.stabilized, limited.replicas),
            ),
            _ => {}
        }
    }
    let read = metric_resources(input.hpa);
    let mut resized = Vec::new();
    for r in input.resizes {
        for (res, spec) in &r.spec_requests_milli {
            let status = r.status_requests_milli.get(res);
            if status == Some(spec) || !read.iter().any(|x| x == res) {
                continue;
            }
            resized.push(
                format!(
                    "pod {} container {}: {res} request {} in the spec, {} applied by an in-place resize{}; the controller computes utilization from the spec's request",
                    r.pod,
                    r.container,
                    milli_text(*spec),
                    status.map_or_else(|| "none".into(), |v| milli_text(*v)),
                    r.condition
                        .as_ref()
                        .map(|(t, why)| if why.is_empty() { format!(" ({t})") } else { format!(" ({t}: {why})") })
                        .unwrap_or_default()
                ),
            );
        }
    }
    match holds {
        Some(n) if !resized.is_empty() => {
            for r in resized {
                push(not, "in-place-resize", format!("{r}; with the applied requests it would scale to {n}"));
            }
        }
        _ => notes.extend(resized),
    }
    if let Some(f) = &d.forecast {
        let rescales = f.simulation.steps.iter().filter(|s| s.rescaled).count();
        let held = f.held.as_ref().map(|h| format!(": {h}")).unwrap_or_default();
        match f.steady {
            // This sync's rescale is the last: nothing slow, and it is scaling.
            Some(_) if rescales == 0 && sync.rescaled => {}
            Some((_, n)) if rescales == 0 => {
                push(not, "forecast", format!("if the load stays as it is, the count stays at {n}{held}"))
            }
            Some((at, n)) => push(
                Question::Slow,
                "forecast",
                format!(
                    "if the load stays as it is, the count settles at {n} {} after this sync, after {} more rescale{}{held}",
                    format_ms(at),
                    rescales,
                    if rescales == 1 { "" } else { "s" }
                ),
            ),
            None => push(
                Question::Slow,
                "forecast",
                format!(
                    "if the load stays as it is, the count still changes {} after this sync",
                    format_ms(f.simulation.steps.last().map_or(0, |s| s.at_ms))
                ),
            ),
        }
    }
    // "Why is it not scaling?" does not apply to a sync that scales to what the metrics want
    // (its failed metrics, which that count ignores, are notes).
    let reaches = sync.rescaled && sync.normalization.as_ref().is_none_or(|n| n.limited.replicas == n.prenormalized);
    if reaches {
        out.retain(|f| f.question != Question::NotScaling);
    }
    out.sort_by_key(|f| f.question);
    (out, notes)
}

/// Whether the in-place resizes hold the count: the sync does not rescale, and the same sync
/// ([`Autoscaler::reconcile`], from the same memory) with the requests the kubelet applied in
/// place of the spec's would; then the count it would scale to.
fn resizes_hold_the_count(input: &DiagnosisInput<'_>, d: &Diagnosis) -> Option<i32> {
    if d.sync.rescaled || input.resizes.is_empty() {
        return None;
    }
    let mut applied = input.sync.clone();
    for r in input.resizes {
        let Some(pod) = applied.pods.iter_mut().find(|p| *p.name == *r.pod) else { continue };
        let containers = pod.containers.iter_mut().chain(pod.init_containers.iter_mut());
        for c in containers.filter(|c| c.name == r.container) {
            for (res, v) in &r.status_requests_milli {
                c.requests_milli.insert(res.clone(), *v);
            }
        }
    }
    let mut autoscaler = Autoscaler::new(input.hpa, input.config).with_state(d.memory.state.clone());
    let result = autoscaler.reconcile(&applied);
    result.rescaled.then(|| result.rescale_to.unwrap_or(result.desired_replicas))
}

/// Whether the rate limit of `selectPolicy: Disabled` is what limited the sync
/// (`calculateScaleUpLimitWithScalingRules` / `calculateScaleDownLimitWithBehaviors` return
/// the current count for it, and `convertDesiredReplicasWithBehaviorRate` writes
/// `ScaleUpLimit` / `ScaleDownLimit`).
fn limited_by_disabled(n: &super::controller::Normalization) -> bool {
    n.path == NormalizationPath::Behavior
        && matches!(n.limited.reason, "ScaleUpLimit" | "ScaleDownLimit")
        && n.limited.rate.is_some_and(|r| r.policy.is_none())
}

/// The direction the metrics want (`scaleUp` / `scaleDown`) when `spec.behavior` disables it
/// (`selectPolicy: Disabled`), whatever holds the count in this sync.
fn disabled_direction(input: &DiagnosisInput<'_>, prenormalized: i32, current: i32) -> Option<&'static str> {
    let behavior = input.config.effective_behavior(input.hpa)?;
    let (direction, rules) = if prenormalized > current {
        ("scaleUp", behavior.scale_up)
    } else if prenormalized < current {
        ("scaleDown", behavior.scale_down)
    } else {
        return None;
    };
    rules
        .and_then(|r| r.select_policy)
        .is_some_and(|p| p == super::behavior::SELECT_POLICY_DISABLED)
        .then_some(direction)
}

/// Why a sync's count is not the metrics' one, when a limit (not a window) keeps it there.
fn why_limited(n: &super::controller::Normalization) -> Option<String> {
    if n.limited.replicas == n.prenormalized {
        return None;
    }
    let p = n.prenormalized;
    if limited_by_disabled(n) {
        let direction = if n.limited.reason == "ScaleUpLimit" { "scaleUp" } else { "scaleDown" };
        return Some(format!("{direction}.selectPolicy: Disabled keeps it from {p} ({})", n.limited.reason));
    }
    match n.limited.reason {
        "TooManyReplicas" => Some(format!("maxReplicas keeps it from {p} (TooManyReplicas)")),
        "TooFewReplicas" => Some(format!("minReplicas keeps it from {p} (TooFewReplicas)")),
        _ => None,
    }
}

/// What the calculator did with the pods it set aside in this sync, in words.
///
/// `groupPods` sorts them: deleted and failed pods are ignored (left out); pending pods, and
/// for cpu the pods not Ready within the CPU initialization period (or never Ready), are
/// unready; pods without a sample are missing. Then `GetResourceReplicas` (Utilization
/// targets) and `calcPlainMetricReplicas` (AverageValue targets, Pods metrics) judge the
/// first usage ratio: above 1 (a scale-up) unready and missing pods count as using nothing;
/// below 1 (a scale-down) unready pods stay left out and missing pods count as using 100 % of
/// their request, or the target utilization when it is above 100 % (`GetResourceReplicas`),
/// or exactly the target value (`calcPlainMetricReplicas`); at exactly 1 missing pods are left
/// out. The corrected ratio then only counts if it does not reverse the direction.
fn set_aside_effect(e: &super::controller::MetricEvaluation, spec: Option<&crate::api::v2::MetricSpec>) -> String {
    let up = e.usage_ratio.is_some_and(|r| r > 1.0);
    let down = e.usage_ratio.is_some_and(|r| r < 1.0);
    let has = |f: fn(SetAsideReason) -> bool| e.set_aside.iter().any(|p| f(p.reason));
    let mut parts = Vec::new();
    if has(|r| matches!(r, SetAsideReason::Deleted | SetAsideReason::Terminal(_))) {
        parts.push("deleted and terminated pods are left out".to_string());
    }
    if has(|r| {
        matches!(
            r,
            SetAsideReason::Pending
                | SetAsideReason::NoReadiness
                | SetAsideReason::Initializing
                | SetAsideReason::StaleSample
                | SetAsideReason::NeverReady
        )
    }) {
        parts.push(if up {
            "unready pods count as using nothing (this is a scale-up)".to_string()
        } else {
            "unready pods are left out (they count as using nothing only on a scale-up)".to_string()
        });
    }
    if has(|r| r == SetAsideReason::MissingMetrics) {
        let target = spec.and_then(|m| {
            m.resource.as_ref().map(|r| &r.target).or_else(|| m.container_resource.as_ref().map(|r| &r.target))
        });
        let utilization = target.filter(|t| t.type_ == "Utilization").and_then(|t| t.average_utilization);
        parts.push(if up {
            "pods without metrics count as using nothing (this is a scale-up)".to_string()
        } else if down {
            match utilization {
                Some(u) => format!(
                    "pods without metrics count as using {} % of their request (this is a scale-down: 100 %, or the target utilization when above 100 %)",
                    u.max(100)
                ),
                None => "pods without metrics count as using exactly the target (this is a scale-down)".to_string(),
            }
        } else if e.usage_ratio.is_none() {
            // The metric failed before a ratio (no sample left once they were set aside).
            "pods without metrics are left out".to_string()
        } else {
            "pods without metrics are left out (the ratio is exactly 1)".to_string()
        });
    }
    let damp = if up || (down && has(|r| r == SetAsideReason::MissingMetrics)) {
        "; this damps the change (the count stays when the corrected ratio is within the tolerance or reverses the direction)"
    } else {
        ""
    };
    format!("{}{damp}", parts.join("; "))
}

/// `Percent 100 % per 15s` of the limiting direction's policy `i`.
fn policy_text(input: &DiagnosisInput<'_>, reason: &str, i: usize) -> String {
    let behavior = input.config.effective_behavior(input.hpa);
    let rules = behavior.and_then(|b| if reason == "ScaleUpLimit" { b.scale_up } else { b.scale_down });
    let policy = rules.and_then(|r| r.policies).and_then(|ps| ps.get(i).cloned());
    let direction = if reason == "ScaleUpLimit" { "scaleUp" } else { "scaleDown" };
    match policy {
        Some(p) => format!("the {direction} policy {} ({} {} per {}s)", i + 1, p.type_, p.value, p.period_seconds),
        None => format!("the {direction} policy {}", i + 1),
    }
}

fn metric_resources(hpa: &HorizontalPodAutoscaler) -> Vec<String> {
    super::controller::effective_metrics(hpa)
        .iter()
        .filter_map(|m| {
            m.resource
                .as_ref()
                .map(|r| r.name.to_string())
                .or_else(|| m.container_resource.as_ref().map(|r| r.name.to_string()))
        })
        .collect()
}

fn percent(f: f64) -> String {
    format!("{} %", (f * 1000.0).round() / 10.0)
}

fn milli_text(m: i64) -> String {
    if m % 1000 == 0 { format!("{}", m / 1000) } else { format!("{m}m") }
}

/// Why a pod was set aside, in a few words.
pub fn set_aside_text(r: SetAsideReason) -> &'static str {
    match r {
        SetAsideReason::Deleted => "being deleted",
        SetAsideReason::Terminal(PodPhase::Succeeded) => "succeeded",
        SetAsideReason::Terminal(_) => "failed",
        SetAsideReason::Pending => "pending",
        SetAsideReason::NoReadiness => "without a Ready condition or start time",
        SetAsideReason::Initializing => "unready within the CPU initialization period",
        SetAsideReason::StaleSample => "Ready less than a metric window before their sample",
        SetAsideReason::NeverReady => "never Ready since they started",
        SetAsideReason::MissingMetrics => "without metrics",
    }
}

/// A stable code for why a pod was set aside (the JSON output's `reason`).
pub fn set_aside_code(r: SetAsideReason) -> &'static str {
    match r {
        SetAsideReason::Deleted => "Deleted",
        SetAsideReason::Terminal(PodPhase::Succeeded) => "Succeeded",
        SetAsideReason::Terminal(_) => "Failed",
        SetAsideReason::Pending => "Pending",
        SetAsideReason::NoReadiness => "NoReadiness",
        SetAsideReason::Initializing => "Initializing",
        SetAsideReason::StaleSample => "StaleSample",
        SetAsideReason::NeverReady => "NeverReady",
        SetAsideReason::MissingMetrics => "MissingMetrics",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::evaluator::replicas::{ContainerUsage, Pod, PodMetricsItem, ReadyCondition};
    use crate::evaluator::{Scale, SyncInput};
    use crate::features::{FeatureGates, KubernetesVersion};

    /// The diagnosis input of an HPA and a sync, without events, resizes or template.
    fn input<'a>(
        hpa: &'a HorizontalPodAutoscaler,
        config: &'a HPAControllerConfiguration,
        sync: &'a SyncInput,
    ) -> DiagnosisInput<'a> {
        DiagnosisInput { hpa, config, sync, events: &[], target_events: &[], resizes: &[], template: None }
    }

    fn hpa(json: serde_json::Value) -> HorizontalPodAutoscaler {
        let decoded = crate::api::decode(&json).unwrap();
        crate::convert::to_internal(&decoded).unwrap().object
    }

    /// The HPA `name` in `shop` on the Deployment of that name, with one cpu utilization metric
    /// at 50 %, the other fields of `spec` (bounds, behavior) and `status` (`Null` for none).
    fn cpu_hpa(name: &str, spec: serde_json::Value, status: serde_json::Value) -> HorizontalPodAutoscaler {
        let mut json = serde_json::json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]
            }
        });
        if let (Some(base), Some(extra)) = (json["spec"].as_object_mut(), spec.as_object()) {
            base.extend(extra.clone());
        }
        if !status.is_null() {
            json["status"] = status;
        }
        hpa(json)
    }

    /// A pod of 100m cpu requested, started 1 h before `now` (or `started_ago` s), Ready or not.
    /// Each named pod's container `app` using `milli` cpu, sampled 5 s before `now`.
    fn cpu_usage(names: &[&str], now: Timestamp, milli: i64) -> Vec<PodMetricsItem> {
        names
            .iter()
            .map(|n| PodMetricsItem {
                pod: (*n).into(),
                timestamp: now.plus_secs(-5),
                window_nanos: 15_000_000_000,
                containers: vec![ContainerUsage {
                    name: "app".into(),
                    usage_milli: BTreeMap::from([("cpu".to_string(), milli)]),
                }],
            })
            .collect()
    }

    fn pod(name: &str, now: Timestamp, started_ago: i64, ready: bool) -> Pod {
        let start = now.plus_secs(-started_ago);
        Pod {
            name: name.into(),
            phase: PodPhase::Running,
            deleted: false,
            start_time: Some(start),
            ready_condition: Some(ReadyCondition {
                status: if ready { ConditionStatus::True } else { ConditionStatus::False },
                last_transition_time: start.plus_secs(20),
            }),
            containers: vec![Container {
                name: "app".into(),
                requests_milli: BTreeMap::from([("cpu".to_string(), 100)]),
                restart_policy: None,
            }],
            init_containers: Vec::new(),
            pod_requests_milli: BTreeMap::new(),
            overhead_milli: BTreeMap::new(),
        }
    }

    /// The recommendation rebuilt from the status converts `ceil(ratio × pods)` as the release's
    /// controller does: 2147483647 % of a 1 % target on 2 pods is past int32, which amd64's
    /// `int32(math.Ceil(...))` turns into MinInt32 before 1.38 (1.38's `ceilToInt32` saturates),
    /// also after a metric proposing 0 (`replicas == 0 ||` in `computeReplicasForMetrics`); an
    /// External value past int32 replicas is capped at MaxInt32 from 1.35 only
    /// (`getUsageRatioReplicaCount`).
    #[test]
    fn a_rebuilt_recommendation_converts_as_the_release_does() {
        use serde_json::json;
        let now = Timestamp::from_secs(1_772_445_600);
        let rebuilt = |version: &str, metrics: serde_json::Value, current: serde_json::Value| {
            let hpa = cpu_hpa(
                "web",
                json!({"minReplicas": 1, "maxReplicas": 10, "metrics": metrics}),
                json!({"currentReplicas": 2, "desiredReplicas": 10, "currentMetrics": current}),
            );
            let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::parse(version).unwrap()));
            let sync = SyncInput::new(now, Scale { spec_replicas: 2, status_replicas: 2, selector: "app=web".into() });
            rebuilt_recommendation(&input(&hpa, &config, &sync)).map(|r| r.replicas)
        };
        let cpu = |target: i32| json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": target}}});
        let cpu_at =
            |u: i32| json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": u}}});
        let external = json!({"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "1m"}}});
        let external_at =
            json!({"type": "External", "external": {"metric": {"name": "queue"}, "current": {"value": "5M"}}});

        let past_int32 = |v| rebuilt(v, json!([cpu(1)]), json!([cpu_at(i32::MAX)]));
        assert_eq!((past_int32("1.37"), past_int32("1.38")), (Some(i32::MIN), Some(i32::MAX)));
        let after_zero = |v| rebuilt(v, json!([cpu(50), cpu(1)]), json!([cpu_at(0), cpu_at(i32::MAX)]));
        assert_eq!((after_zero("1.37"), after_zero("1.38")), (Some(i32::MIN), Some(i32::MAX)));
        // 5M = 5e9 milli-units over a 1m target on 2 pods: 1e10 replicas.
        let value = |v| rebuilt(v, json!([external.clone()]), json!([external_at.clone()]));
        assert_eq!((value("1.34"), value("1.35")), (Some(i32::MIN), Some(i32::MAX)));
        // Within range nothing changes: 90 % of 50 % on 2 pods is 4.
        assert_eq!(rebuilt("1.37", json!([cpu(50)]), json!([cpu_at(90)])), Some(4));
    }

    /// A running HPA at 6 replicas whose load fell to 20 % of a 50 % target: the legacy
    /// downscale stabilization holds 6 (the recommendations reconstructed from the status and
    /// the rescale event), one new pod is set aside as initializing, and the forecast scales
    /// down once the window has passed.
    #[test]
    fn a_running_hpa_held_by_its_stabilization_window() {
        let now = Timestamp::from_secs(1_772_445_600);
        let lst = now.plus_secs(-120).to_api_time().to_rfc3339();
        let hpa = cpu_hpa(
            "web",
            serde_json::json!({"minReplicas": 2, "maxReplicas": 10}),
            serde_json::json!({
                "currentReplicas": 6, "desiredReplicas": 6, "lastScaleTime": lst,
                "conditions": [
                    {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size", "lastTransitionTime": lst},
                    {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "ok", "lastTransitionTime": lst},
                    {"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange", "message": "ok", "lastTransitionTime": lst}
                ]
            }),
        );
        let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
        let scale = Scale { spec_replicas: 6, status_replicas: 6, selector: "app=web".into() };
        let mut sync = SyncInput::new(now, scale);
        let names = ["a", "b", "c", "d", "e", "f"];
        sync.pods = names.iter().map(|n| pod(n, now, if *n == "f" { 30 } else { 3600 }, *n != "f")).collect();
        sync.resource_metrics = Ok(cpu_usage(&names, now, 20));
        let events = [RecordedEvent {
            reason: SUCCESSFUL_RESCALE.into(),
            message: "New size: 6; reason: cpu resource utilization (percentage of request) above target".into(),
            count: 1,
            first: Some(now.plus_secs(-120)),
            last: Some(now.plus_secs(-120)),
        }];
        let d = diagnose(&DiagnosisInput {
            hpa: &hpa,
            config: &config,
            sync: &sync,
            events: &events,
            target_events: &[],
            resizes: &[],
            template: None,
        });

        // The memory: the rescale and the status's count, said to be reconstructed.
        let recs = d.memory.state.recommendations.clone().unwrap();
        assert_eq!(recs.iter().map(|r| r.recommendation).collect::<Vec<_>>(), vec![6, 6]);
        assert!(d.memory.assumptions[0].contains("taken as the sizes of the rescales"), "{:?}", d.memory.assumptions);

        // The sync: 20 % of 50 % on the 5 ready pods, the new one set aside.
        let m = &d.sync.metrics()[0];
        assert_eq!(m.usage_ratio, Some(0.4));
        assert_eq!(m.ready_pods, Some(5));
        assert_eq!(
            m.set_aside.iter().map(|p| (&*p.pod, p.reason)).collect::<Vec<_>>(),
            vec![("f", SetAsideReason::Initializing)]
        );
        let n = d.sync.normalization.unwrap();
        assert_eq!((n.prenormalized, n.stabilized, n.stabilization_reason), (2, 6, "ScaleDownStabilized"));
        assert_eq!(n.held_by.map(|h| (h.recommendation, h.timestamp)), Some((6, now.plus_secs(-15))));
        assert_eq!(d.sync.desired_replicas, 6);

        // Live AbleToScale ReadyForNewScale, replayed ScaleDownStabilized: a difference the
        // inputs do not explain.
        assert!(d.conditions_differ());
        let causes: Vec<(Question, &str)> = d.findings.iter().map(|f| (f.question, f.cause)).collect();
        assert!(causes.contains(&(Question::NotScaling, "stabilization")), "{causes:?}");
        assert!(causes.contains(&(Question::NotScaling, "unready-pods")), "{causes:?}");

        // The forecast: the total load (120m) on 6 Ready pods (the new one Ready by then) is
        // ceil(0.4 × 6) = 3, once the window of the last 6 (15 s before) has passed.
        let f = d.forecast.unwrap();
        let rescales: Vec<(i64, i32)> =
            f.simulation.steps.iter().filter(|s| s.rescaled).map(|s| (s.at_ms, s.desired)).collect();
        assert_eq!(rescales, vec![(300_000, 3)]);
        assert_eq!(f.steady, Some((300_000, 3)));
    }

    /// With `spec.behavior`: the scale events come from consecutive rescale events, the
    /// scale-up limit names the policy that gave it, and an in-place resize of the request the
    /// metric reads is an answer.
    const NOW_SECS: i64 = 1_772_445_600;

    /// An HPA at 4 replicas with `scaleUp` as given, its 4 pods at 200 % of a 50 % target, two
    /// rescale events (to 2, 90 s ago; to 4, 30 s ago) and a resize of pod `a`'s cpu request.
    fn behavior_case(scale_up: serde_json::Value) -> Diagnosis {
        let now = Timestamp::from_secs(NOW_SECS);
        let hpa = cpu_hpa(
            "web",
            serde_json::json!({"minReplicas": 1, "maxReplicas": 50, "behavior": {"scaleUp": scale_up}}),
            serde_json::json!({"currentReplicas": 4, "desiredReplicas": 4, "lastScaleTime": now.plus_secs(-30).to_api_time().to_rfc3339()}),
        );
        let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
        let scale = Scale { spec_replicas: 4, status_replicas: 4, selector: "app=web".into() };
        let mut sync = SyncInput::new(now, scale);
        let names = ["a", "b", "c", "d"];
        sync.pods = names.iter().map(|n| pod(n, now, 3600, true)).collect();
        sync.resource_metrics = Ok(cpu_usage(&names, now, 200));
        let rescale = |size: i32, ago: i64| RecordedEvent {
            reason: SUCCESSFUL_RESCALE.into(),
            message: format!("New size: {size}; reason: cpu resource utilization (percentage of request) above target"),
            count: 1,
            first: Some(now.plus_secs(-ago)),
            last: Some(now.plus_secs(-ago)),
        };
        let events = [rescale(2, 90), rescale(4, 30)];
        let resizes = [InPlaceResize {
            pod: "a".into(),
            container: "app".into(),
            spec_requests_milli: BTreeMap::from([("cpu".to_string(), 100)]),
            status_requests_milli: BTreeMap::from([("cpu".to_string(), 250)]),
            condition: None,
        }];
        diagnose(&DiagnosisInput {
            hpa: &hpa,
            config: &config,
            sync: &sync,
            events: &events,
            target_events: &[],
            resizes: &resizes,
            template: None,
        })
    }

    #[test]
    fn behavior_policies_and_resizes() {
        let now = Timestamp::from_secs(NOW_SECS);
        let d = behavior_case(serde_json::json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
            {"type": "Pods", "value": 2, "periodSeconds": 60},
            {"type": "Percent", "value": 50, "periodSeconds": 60}
        ]}));

        // 2 → 4, 30 s ago, is a scale-up event of 2; the first rescale has no earlier size:
        // above target, it added at least 1 (outside the policies' 60 s periods).
        assert_eq!(
            d.memory.state.scale_up_events.iter().map(|e| (e.replica_change, e.timestamp)).collect::<Vec<_>>(),
            vec![(1, now.plus_secs(-90)), (2, now.plus_secs(-30))]
        );
        assert!(
            d.memory.assumptions.iter().any(|a| a.starts_with("the rescale to 2 1m30s ago has no earlier size on record: its reason (cpu resource utilization (percentage of request) above target) says it scaled up, so it is counted as a change of 1 replica (from 1)")),
            "{:?}",
            d.memory.assumptions
        );
        // 200 % of 50 %: 16; the period started at 4 − 2 = 2: Pods gives 4, Percent 3; Max: 4,
        // which is the current count, so no scale-up until the event ages out.
        let n = d.sync.normalization.unwrap();
        assert_eq!(n.prenormalized, 16);
        assert_eq!((n.limited.replicas, n.limited.reason), (4, "ScaleUpLimit"));
        assert_eq!(n.limited.rate.map(|r| (r.limit, r.policy)), Some((4, Some((0, 2)))));
        let rate = d.findings.iter().find(|f| f.cause == "rate-limit").unwrap();
        assert_eq!(
            rate.message,
            "16 is limited to 4 by the scaleUp policy 1 (Pods 2 per 60s) (the count at its period's start: 2) (ScaleUpLimit)"
        );
        // The policy holds the count, not the resize (with 250m applied it is limited to 4
        // too): a note, not an answer.
        assert!(!d.findings.iter().any(|f| f.cause == "in-place-resize"), "{:?}", d.findings);
        assert_eq!(
            d.notes,
            vec!["pod a container app: cpu request 100m in the spec, 250m applied by an in-place resize; the controller computes utilization from the spec's request".to_string()]
        );
    }

    /// `selectPolicy: Disabled` keeps the count: a "not scaling" answer that says so.
    #[test]
    fn disabled_scale_up_is_why_it_does_not_scale() {
        let d = behavior_case(serde_json::json!({"selectPolicy": "Disabled"}));
        let n = d.sync.normalization.unwrap();
        assert_eq!((n.prenormalized, n.limited.replicas, n.limited.reason), (16, 4, "ScaleUpLimit"));
        let f = d.findings.iter().find(|f| f.cause == "rate-limit").unwrap();
        assert_eq!(f.question, Question::NotScaling);
        assert_eq!(
            f.message,
            "16 is limited to 4 by scaleUp.selectPolicy: Disabled (the controller never scales in that direction) (ScaleUpLimit)"
        );
    }

    /// An HPA at 4 replicas with `scaleDown.selectPolicy: Disabled`, its 4 pods at 10 % of a
    /// 50 % target (the metrics want 1), with the live conditions given (none: the first sync).
    fn disabled_scale_down(conditions: serde_json::Value) -> Diagnosis {
        let now = Timestamp::from_secs(NOW_SECS);
        let lst = now.plus_secs(-7200).to_api_time().to_rfc3339();
        let status = if conditions.as_array().is_some_and(|c| c.is_empty()) {
            serde_json::json!({})
        } else {
            serde_json::json!({"currentReplicas": 4, "desiredReplicas": 4, "lastScaleTime": lst, "conditions": conditions})
        };
        let hpa = cpu_hpa(
            "w",
            serde_json::json!({"minReplicas": 1, "maxReplicas": 20, "behavior": {"scaleDown": {"selectPolicy": "Disabled"}}}),
            serde_json::json!(status),
        );
        let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
        let scale = Scale { spec_replicas: 4, status_replicas: 4, selector: "app=w".into() };
        let mut sync = SyncInput::new(now, scale);
        let names = ["a", "b", "c", "d"];
        sync.pods = names.iter().map(|n| pod(n, now, 3600, true)).collect();
        sync.resource_metrics = Ok(cpu_usage(&names, now, 10));
        diagnose(&input(&hpa, &config, &sync))
    }

    fn conditions(able: &str, limited: (&str, &str)) -> serde_json::Value {
        let t = Timestamp::from_secs(NOW_SECS - 3000).to_api_time().to_rfc3339();
        serde_json::json!([
            {"type": "AbleToScale", "status": "True", "reason": able, "message": "m", "lastTransitionTime": t},
            {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound", "message": "m", "lastTransitionTime": t},
            {"type": "ScalingLimited", "status": limited.0, "reason": limited.1, "message": "m", "lastTransitionTime": t}
        ])
    }

    /// Live ScalingLimited True: the status's desiredReplicas is the limited count, not a
    /// recommendation, so it is not put in the memory; the replay then agrees with the live
    /// conditions and the answer is `selectPolicy: Disabled`, in the findings and the forecast.
    #[test]
    fn a_limited_desired_count_is_not_a_recommendation() {
        let d = disabled_scale_down(conditions("ReadyForNewScale", ("True", "ScaleDownLimit")));
        assert_eq!(d.memory.state.recommendations, Some(Vec::new()));
        assert!(
            d.memory.assumptions[0].contains("is not taken: ScalingLimited is True (ScaleDownLimit)"),
            "{:?}",
            d.memory.assumptions
        );
        let n = d.sync.normalization.unwrap();
        assert_eq!((n.prenormalized, n.stabilized, n.limited.replicas), (1, 1, 4));
        assert_eq!((n.stabilization_reason, n.limited.reason), ("ReadyForNewScale", "ScaleDownLimit"));
        assert!(!d.conditions_differ(), "{:?}", d.conditions);
        assert!(!d.findings.iter().any(|f| f.cause == "stabilization"), "{:?}", d.findings);
        let disabled = d.findings.iter().find(|f| f.cause == "rate-limit").unwrap();
        assert_eq!(disabled.question, Question::NotScaling);
        assert!(disabled.message.contains("scaleDown.selectPolicy: Disabled"), "{}", disabled.message);
        let f = d.forecast.as_ref().unwrap();
        assert_eq!(f.steady.map(|(_, n)| n), Some(4));
        assert_eq!(f.held.as_deref(), Some("scaleDown.selectPolicy: Disabled keeps it from 1 (ScaleDownLimit)"));
        let forecast = d.findings.iter().find(|f| f.cause == "forecast").unwrap();
        assert_eq!(
            forecast.message,
            "if the load stays as it is, the count stays at 4: scaleDown.selectPolicy: Disabled keeps it from 1 (ScaleDownLimit)"
        );
    }

    /// The good side: ScalingLimited False with ReadyForNewScale, the status's count is the
    /// last recommendation and is remembered.
    #[test]
    fn an_unlimited_desired_count_is_the_last_recommendation() {
        let d = disabled_scale_down(conditions("ReadyForNewScale", ("False", "DesiredWithinRange")));
        let recs = d.memory.state.recommendations.unwrap();
        assert_eq!(recs.iter().map(|r| r.recommendation).collect::<Vec<_>>(), vec![4]);
        assert!(d.memory.assumptions[0].contains("(AbleToScale ReadyForNewScale: the last sync's recommendation)"));
        // A failed metric's sync never reached normalization: its count is the current one.
        let d = disabled_scale_down(conditions("SucceededGetScale", ("False", "DesiredWithinRange")));
        assert_eq!(d.memory.state.recommendations, Some(Vec::new()));
    }

    /// The first sync: the controller's initial recommendation (the current count) holds the
    /// scale-down for the window, and Disabled holds it after: both are said.
    #[test]
    fn disabled_is_the_answer_while_a_window_holds_the_count() {
        let d = disabled_scale_down(serde_json::json!([]));
        let n = d.sync.normalization.unwrap();
        assert_eq!(
            (n.stabilized, n.stabilization_reason, n.limited.reason),
            (4, "ScaleDownStabilized", "DesiredWithinRange")
        );
        let causes: Vec<(Question, &str)> = d.findings.iter().map(|f| (f.question, f.cause)).collect();
        assert_eq!(
            causes,
            vec![
                (Question::NotScaling, "rate-limit"),
                (Question::NotScaling, "stabilization"),
                (Question::NotScaling, "forecast")
            ]
        );
        assert_eq!(
            d.findings[0].message,
            "the metrics want 1 but scaleDown.selectPolicy is Disabled: the controller never scales down (once nothing else holds the count, it is limited to 4, ScaleDownLimit)"
        );
        assert!(d.findings[2].message.ends_with(": scaleDown.selectPolicy: Disabled keeps it from 1 (ScaleDownLimit)"));
    }

    /// A sync that scales to what the metrics want: no "not scaling" answer (an in-place
    /// resize included), and no "slow" one when this rescale is the last.
    #[test]
    fn a_sync_that_reaches_the_metrics_count_has_no_not_scaling_answer() {
        let now = Timestamp::from_secs(NOW_SECS);
        let hpa = cpu_hpa("w", serde_json::json!({"minReplicas": 1, "maxReplicas": 20}), serde_json::Value::Null);
        let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
        let scale = Scale { spec_replicas: 2, status_replicas: 2, selector: "app=w".into() };
        let mut sync = SyncInput::new(now, scale);
        sync.pods = ["a", "b"].iter().map(|n| pod(n, now, 3600, true)).collect();
        sync.resource_metrics = Ok(cpu_usage(&["a", "b"], now, 75));
        let resize = |reason: &str| InPlaceResize {
            pod: "a".into(),
            container: "app".into(),
            spec_requests_milli: BTreeMap::from([("cpu".to_string(), 100)]),
            status_requests_milli: BTreeMap::from([("cpu".to_string(), 50)]),
            condition: Some(("PodResizeInProgress".into(), reason.into())),
        };
        let run = |hpa: &HorizontalPodAutoscaler, sync: &SyncInput, resizes: &[InPlaceResize]| {
            diagnose(&DiagnosisInput { resizes, ..input(hpa, &config, sync) })
        };
        let resizes = [resize("")];
        let d = run(&hpa, &sync, &resizes);
        assert!(d.sync.rescaled);
        assert_eq!(d.sync.desired_replicas, 3);
        assert!(d.findings.is_empty(), "{:?}", d.findings);

        // The resize is a note (it does not hold the count); an empty reason is left out of its
        // words.
        assert_eq!(
            d.notes,
            vec!["pod a container app: cpu request 100m in the spec, 50m applied by an in-place resize (PodResizeInProgress); the controller computes utilization from the spec's request".to_string()]
        );

        // Held at the count by maxReplicas, whatever the requests: still a note.
        let mut capped = hpa.clone();
        capped.spec.max_replicas = 2;
        let d = run(&capped, &sync, &resizes);
        assert!(!d.findings.iter().any(|f| f.cause == "in-place-resize"), "{:?}", d.findings);
        assert_eq!(d.notes.len(), 1);

        // At 52m each: 52 % of 50 % is within tolerance with the spec's 100m, 69 % with the
        // 50m applied to a would scale to 3: the resize holds the count, an answer.
        sync.resource_metrics = Ok(cpu_usage(&["a", "b"], now, 52));
        let resizes = [resize("InProgress")];
        let d = run(&hpa, &sync, &resizes);
        assert!(!d.sync.rescaled);
        assert!(d.notes.is_empty(), "{:?}", d.notes);
        let r = d.findings.iter().find(|f| f.cause == "in-place-resize").unwrap();
        assert_eq!(r.question, Question::NotScaling);
        assert_eq!(
            r.message,
            "pod a container app: cpu request 100m in the spec, 50m applied by an in-place resize (PodResizeInProgress: InProgress); the controller computes utilization from the spec's request; with the applied requests it would scale to 3"
        );
    }

    /// What the calculator does with pods set aside depends on the direction of the first
    /// ratio (`GetResourceReplicas`, `calcPlainMetricReplicas`).
    #[test]
    fn set_aside_pods_are_explained_by_direction() {
        use crate::evaluator::controller::MetricEvaluation;
        use crate::evaluator::replicas::SetAsidePod;
        let spec = |target: serde_json::Value| {
            let h = hpa(serde_json::json!({
                "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "w", "namespace": "shop"},
                "spec": {
                    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"},
                    "maxReplicas": 20,
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]
                }
            }));
            h.spec.metrics[0].clone()
        };
        let eval = |ratio: f64, reasons: &[SetAsideReason]| MetricEvaluation {
            index: 0,
            source_type: "Resource".into(),
            name: String::new(),
            proposal: Some(1),
            error: None,
            cause: None,
            failure_condition: None,
            current: None,
            timestamp: None,
            usage_ratio: Some(ratio),
            corrected_ratio: None,
            ready_pods: Some(1),
            set_aside: reasons.iter().map(|r| SetAsidePod { pod: "p".into(), reason: *r }).collect(),
        };
        let util = |u: i32| spec(serde_json::json!({"type": "Utilization", "averageUtilization": u}));
        let missing = [SetAsideReason::MissingMetrics];
        let down = set_aside_effect(&eval(0.5, &missing), Some(&util(50)));
        assert!(down.starts_with("pods without metrics count as using 100 % of their request"), "{down}");
        let down = set_aside_effect(&eval(0.5, &missing), Some(&util(150)));
        assert!(down.starts_with("pods without metrics count as using 150 % of their request"), "{down}");
        let plain = spec(serde_json::json!({"type": "AverageValue", "averageValue": "100m"}));
        let down = set_aside_effect(&eval(0.5, &missing), Some(&plain));
        assert!(down.starts_with("pods without metrics count as using exactly the target"), "{down}");
        let up = set_aside_effect(&eval(2.0, &missing), Some(&util(50)));
        assert!(up.starts_with("pods without metrics count as using nothing (this is a scale-up)"), "{up}");

        let unready = [SetAsideReason::Initializing];
        let up = set_aside_effect(&eval(2.0, &unready), Some(&util(50)));
        assert!(up.starts_with("unready pods count as using nothing (this is a scale-up); this damps"), "{up}");
        let down = set_aside_effect(&eval(0.5, &unready), Some(&util(50)));
        assert_eq!(down, "unready pods are left out (they count as using nothing only on a scale-up)");
        let gone = set_aside_effect(&eval(0.5, &[SetAsideReason::Deleted]), Some(&util(50)));
        assert_eq!(gone, "deleted and terminated pods are left out");
        // A metric that failed once they were set aside has no ratio to call exactly 1.
        let failed = MetricEvaluation { usage_ratio: None, proposal: None, ..eval(1.0, &missing) };
        assert_eq!(set_aside_effect(&failed, Some(&util(50))), "pods without metrics are left out");
        assert_eq!(
            set_aside_effect(&eval(1.0, &missing), Some(&util(50))),
            "pods without metrics are left out (the ratio is exactly 1)"
        );
    }

    /// The forecast's readiness delay is the slowest start-up (Ready within the CPU
    /// initialization period of the start), not a readiness change long after it.
    #[test]
    fn the_readiness_delay_counts_start_ups_only() {
        let ready_after = |delays: &[i64]| {
            let now = Timestamp::from_secs(NOW_SECS);
            let hpa = cpu_hpa("w", serde_json::json!({"maxReplicas": 20}), serde_json::Value::Null);
            let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
            let n = i32::try_from(delays.len()).unwrap();
            let mut sync =
                SyncInput::new(now, Scale { spec_replicas: n, status_replicas: n, selector: "app=w".into() });
            let names: Vec<String> = (0..delays.len()).map(|i| format!("p{i}")).collect();
            sync.pods = names
                .iter()
                .zip(delays)
                .map(|(name, d)| {
                    let mut p = pod(name, now, 7200, true);
                    let start = p.start_time.unwrap();
                    p.ready_condition = Some(ReadyCondition {
                        status: ConditionStatus::True,
                        last_transition_time: start.plus_secs(*d),
                    });
                    p
                })
                .collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            sync.resource_metrics = Ok(cpu_usage(&refs, now, 50));
            let d = diagnose(&input(&hpa, &config, &sync));
            let f = d.forecast.unwrap();
            f.assumptions.into_iter().find(|a| a.starts_with("new pods start at once")).unwrap()
        };
        // A pod Ready 48m40s after its start (a probe that recovered) is not a start-up.
        assert_eq!(
            ready_after(&[20, 2920, 45]),
            "new pods start at once and turn Ready after 45s, as the slowest Ready pod did within the CPU initialization period (5m) of its start; 1 Ready pod turned Ready later than the CPU initialization period (5m) after its start (a readiness change, not a start-up): not counted"
        );
        assert_eq!(
            ready_after(&[20, 300]),
            "new pods start at once and turn Ready after 5m, as the slowest Ready pod did within the CPU initialization period (5m) of its start"
        );
        assert_eq!(
            ready_after(&[2920, 3000]),
            "new pods start at once and turn Ready after 30s (no Ready pod shows how long; 2 Ready pods turned Ready later than the CPU initialization period (5m) after their start (a readiness change, not a start-up): not counted)"
        );
    }

    /// Failed metrics are answered by the calculator's error variant, not its words.
    #[test]
    fn failed_metrics_are_classified_by_variant() {
        let now = Timestamp::from_secs(NOW_SECS);
        let hpa = cpu_hpa("w", serde_json::json!({"maxReplicas": 20}), serde_json::Value::Null);
        let config = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::LATEST));
        let cause = |sync: &SyncInput| {
            let d = diagnose(&DiagnosisInput {
                hpa: &hpa,
                config: &config,
                sync,
                events: &[],
                target_events: &[],
                resizes: &[],
                template: None,
            });
            let e = &d.sync.metrics()[0];
            let f = d.findings.iter().find(|f| f.message.starts_with("metric 1 ")).unwrap();
            (e.cause.clone(), f.cause, f.message.clone())
        };
        let mut sync = SyncInput::new(now, Scale { spec_replicas: 2, status_replicas: 2, selector: "app=w".into() });
        sync.pods = ["a", "b"].iter().map(|n| pod(n, now, 3600, true)).collect();
        sync.pods[1].containers[0].requests_milli.clear();
        sync.resource_metrics = Ok(cpu_usage(&["a", "b"], now, 50));
        let (typed, code, message) = cause(&sync);
        assert_eq!(
            typed,
            Some(CalcError::MissingRequest { resource: "cpu".into(), container: "app".into(), pod: "b".into() })
        );
        assert_eq!(code, "missing-requests");
        assert!(message.contains("missing request for cpu in container app of Pod b"), "{message}");

        sync.pods[1].containers[0].requests_milli.insert("cpu".into(), 100);
        sync.resource_metrics = Ok(Vec::new());
        let (typed, code, message) = cause(&sync);
        assert!(matches!(typed, Some(CalcError::ResourceMetrics { .. })), "{typed:?}");
        assert_eq!(code, "no-metrics");
        assert!(message.ends_with("no metrics returned from resource metrics API"), "{message}");

        sync.resource_metrics = Err("the server is currently unable to handle the request".into());
        let (_, code, message) = cause(&sync);
        assert_eq!(code, "no-metrics");
        assert!(message.ends_with("unable to fetch metrics from resource metrics API: the server is currently unable to handle the request"), "{message}");
    }

    #[test]
    fn rescale_messages() {
        let above = "cpu resource utilization (percentage of request) above target";
        assert_eq!(parse_rescale(&format!("New size: 4; reason: {above}")), Some((4, above.into(), None, false)));
        assert_eq!(
            parse_rescale("New size: 10; reason: Current number of replicas above Spec.MaxReplicas"),
            Some((10, "Current number of replicas above Spec.MaxReplicas".into(), None, false))
        );
        // The correlator's prefix (`EventAggregate`), and a failed write's error.
        assert_eq!(
            parse_rescale(&format!("(combined from similar events): New size: 6; reason: {above}")),
            Some((6, above.into(), None, true))
        );
        assert_eq!(
            parse_rescale(&format!("New size: 4; reason: {above}; error: admission webhook \"q\" denied the request")),
            Some((4, above.into(), Some("admission webhook \"q\" denied the request".into()), false))
        );
        assert_eq!(parse_rescale("something else"), None);
        assert_eq!(parse_rescale("(combined from similar events): something else"), None);
    }

    /// The deployment controller's `ScalingReplicaSet` messages; the older form without the
    /// earlier size says nothing.
    #[test]
    fn scaled_replica_set_messages() {
        assert_eq!(parse_scaled_replica_set("Scaled up replica set web-5d4 from 1 to 2"), Some((1, 2)));
        assert_eq!(parse_scaled_replica_set("Scaled down replica set web-from-5d4 from 10 to 3"), Some((10, 3)));
        assert_eq!(parse_scaled_replica_set("Scaled up replica set web-5d4 to 2"), None);
        assert_eq!(parse_scaled_replica_set("New size: 2"), None);
    }
}
