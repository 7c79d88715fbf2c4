//! Normalization of a metric proposal: stabilization windows, scale limits and scale events.
//!
//! Mirrors the normalization half of `pkg/controller/podautoscaler/horizontal.go`: the legacy
//! path taken when `spec.behavior` is nil (`stabilizeRecommendation`,
//! `convertDesiredReplicasWithRules`) and the behavior path (`stabilizeRecommendationWithBehaviors`,
//! `convertDesiredReplicasWithBehaviorRate` and the policy arithmetic), plus the per-HPA scale
//! event log (`storeScaleEvent`). The controller's in-memory state is passed in explicitly and
//! `time.Now()` is the `now` argument.
//!
//! Rules are `HPAScalingRules` after API defaulting. An unset `selectPolicy` counts as `Max`
//! and an unset stabilization window as 0 s (Go would dereference nil; the API defaults make
//! both impossible in the controller).

use std::time::Duration;

use super::release::{ControllerRelease, go_amd64_int32};
use super::time::Timestamp;
use crate::api::v2::{HPAScalingRules, HorizontalPodAutoscalerBehavior};

/// `selectPolicy: Disabled`.
pub const SELECT_POLICY_DISABLED: &str = "Disabled";
/// `selectPolicy: Min`.
pub const SELECT_POLICY_MIN: &str = "Min";
/// `selectPolicy: Max`.
pub const SELECT_POLICY_MAX: &str = "Max";
/// Policy type `Pods`.
pub const POLICY_PODS: &str = "Pods";
/// Policy type `Percent`.
pub const POLICY_PERCENT: &str = "Percent";

/// Reason `ScaleUpLimit` and its message.
pub const SCALE_UP_LIMIT: (&str, &str) =
    ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate");
/// Reason `ScaleDownLimit` and its message.
pub const SCALE_DOWN_LIMIT: (&str, &str) =
    ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate");
/// Reason `TooManyReplicas` and its message.
pub const TOO_MANY_REPLICAS: (&str, &str) =
    ("TooManyReplicas", "the desired replica count is more than the maximum replica count");
/// Reason `TooFewReplicas` and its message.
pub const TOO_FEW_REPLICAS: (&str, &str) =
    ("TooFewReplicas", "the desired replica count is less than the minimum replica count");
/// Reason `DesiredWithinRange` and its message.
pub const DESIRED_WITHIN_RANGE: (&str, &str) =
    ("DesiredWithinRange", "the desired count is within the acceptable range");
/// AbleToScale reason `ScaleUpStabilized` and its message.
pub const SCALE_UP_STABILIZED: (&str, &str) = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
);
/// AbleToScale reason `ScaleDownStabilized` and its message.
pub const SCALE_DOWN_STABILIZED: (&str, &str) = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
);
/// AbleToScale reason `ReadyForNewScale` and its message.
pub const READY_FOR_NEW_SCALE: (&str, &str) = ("ReadyForNewScale", "recommended size matches current size");

/// `timestampedRecommendation`: a prenormalized desired count and when it was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampedRecommendation {
    /// The prenormalized desired replica count.
    pub recommendation: i32,
    /// When it was recorded.
    pub timestamp: Timestamp,
}

/// `timestampedScaleEvent`: one rescale, as the behavior path remembers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampedScaleEvent {
    /// `|new − previous|`, non-negative.
    pub replica_change: i32,
    /// When the rescale happened.
    pub timestamp: Timestamp,
    /// Marked reusable by `markScaleEventsOutdated` (never cleared).
    pub outdated: bool,
}

/// The direction of a scale event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `scaleUpEvents`
    Up,
    /// `scaleDownEvents`
    Down,
}

/// A result limited (or not) by a bound: the replica count, and the ScalingLimited reason
/// and message the controller would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    /// The resulting replica count.
    pub replicas: i32,
    /// The reason (`DesiredWithinRange`, `ScaleUpLimit`, `TooManyReplicas`, ...).
    pub reason: &'static str,
    /// The matching condition message.
    pub message: &'static str,
    /// On the behavior path, the rate limit of the direction of movement, as the policies
    /// gave it (whether or not it bound the result).
    pub rate: Option<RateLimit>,
}

/// The scale-up or scale-down limit of `spec.behavior`'s policies in one sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// The direction's limit (`calculateScaleUpLimitWithScalingRules` or
    /// `calculateScaleDownLimitWithBehaviors`), before it is moved to the current count.
    pub limit: i32,
    /// The policy (index into the direction's `policies`) whose proposal the `selectPolicy`
    /// chose, with the count at the start of its period; `None` with `selectPolicy: Disabled`
    /// or no policies.
    pub policy: Option<(usize, i32)>,
}

impl Limited {
    fn new(replicas: i32, (reason, message): (&'static str, &'static str)) -> Limited {
        Limited { replicas, reason, message, rate: None }
    }

    fn with_rate(self, rate: RateLimit) -> Limited {
        Limited { rate: Some(rate), ..self }
    }
}

/// A stabilized recommendation with the AbleToScale reason and message the function reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stabilized {
    /// The stabilized replica count.
    pub replicas: i32,
    /// `ScaleUpStabilized` or `ScaleDownStabilized` (the function's own answer, set as the
    /// condition only when the value differs from the prenormalized one).
    pub reason: &'static str,
    /// The matching condition message.
    pub message: &'static str,
    /// The stored recommendation the result comes from when it is not the prenormalized
    /// count (the latest of equals): the one that holds the count.
    pub held_by: Option<TimestampedRecommendation>,
}

/// `NormalizationArg`: what the behavior path normalizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NormalizationArgs<'a> {
    /// `behavior.scaleUp` after defaulting.
    pub scale_up: &'a HPAScalingRules,
    /// `behavior.scaleDown` after defaulting (and the controller's window fill-in).
    pub scale_down: &'a HPAScalingRules,
    /// `minReplicas` (nil counts as 1).
    pub min_replicas: i32,
    /// `maxReplicas`
    pub max_replicas: i32,
    /// The scale's `spec.replicas`.
    pub current_replicas: i32,
    /// The count to normalize.
    pub desired_replicas: i32,
    /// The release's controller (how a Percent policy's `int32(ceil(x))` converts).
    pub release: ControllerRelease,
}

/// `stabilizeRecommendation` (legacy path): the maximum of `prenormalized` and every stored
/// recommendation not strictly older than `now − window` (so one exactly `window` old still
/// counts); then `(prenormalized, now)` overwrites the last old entry or is appended.
pub fn stabilize_recommendation(
    recommendations: &mut Vec<TimestampedRecommendation>,
    prenormalized: i32,
    window: Duration,
    now: Timestamp,
) -> i32 {
    stabilize_recommendation_held(recommendations, prenormalized, window, now).0
}

/// [`stabilize_recommendation`], with the stored recommendation that gave the result when it
/// is not `prenormalized` (the latest of the highest).
pub fn stabilize_recommendation_held(
    recommendations: &mut Vec<TimestampedRecommendation>,
    prenormalized: i32,
    window: Duration,
    now: Timestamp,
) -> (i32, Option<TimestampedRecommendation>) {
    let cutoff = now.minus(window);
    let mut max_recommendation = prenormalized;
    let mut held_by: Option<TimestampedRecommendation> = None;
    let mut old_index = None;
    for (i, rec) in recommendations.iter().enumerate() {
        if rec.timestamp.before(cutoff) {
            old_index = Some(i);
        } else {
            if rec.recommendation > max_recommendation {
                max_recommendation = rec.recommendation;
            }
            if rec.recommendation == max_recommendation
                && rec.recommendation > prenormalized
                && held_by.is_none_or(|h| h.recommendation < rec.recommendation || !rec.timestamp.before(h.timestamp))
            {
                held_by = Some(*rec);
            }
        }
    }
    store_recommendation(recommendations, old_index, prenormalized, now);
    (max_recommendation, held_by)
}

/// Records `(recommendation, now)` over the last old entry, or appends it.
fn store_recommendation(
    recommendations: &mut Vec<TimestampedRecommendation>,
    old_index: Option<usize>,
    recommendation: i32,
    now: Timestamp,
) {
    let rec = TimestampedRecommendation { recommendation, timestamp: now };
    match old_index.and_then(|i| recommendations.get_mut(i)) {
        Some(slot) => *slot = rec,
        None => recommendations.push(rec),
    }
}

/// `calculateScaleUpLimit`: `int32(max(factor × current, minimum))` (production factor 2.0,
/// minimum 4.0). The conversion is Go's on amd64 ([`go_amd64_int32`]): it truncates, and a
/// limit past `MaxInt32` (absurd counts) becomes `MinInt32`, in every release (the 1.38
/// saturation fixes, #141397, left this site alone).
pub fn calculate_scale_up_limit(current_replicas: i32, factor: f64, minimum: f64) -> i32 {
    go_amd64_int32((factor * f64::from(current_replicas)).max(minimum))
}

/// `convertDesiredReplicasWithRules` (legacy path): clamps to `[min, ceiling]` where the
/// ceiling is the per-sync scale-up limit or `maxReplicas`, whichever is lower.
pub fn convert_desired_replicas_with_rules(
    current_replicas: i32,
    desired_replicas: i32,
    min_replicas: i32,
    max_replicas: i32,
    scale_up_limit_factor: f64,
    scale_up_limit_minimum: f64,
) -> Limited {
    let scale_up_limit = calculate_scale_up_limit(current_replicas, scale_up_limit_factor, scale_up_limit_minimum);
    let (maximum, limit) = if max_replicas > scale_up_limit {
        (scale_up_limit, SCALE_UP_LIMIT)
    } else {
        (max_replicas, TOO_MANY_REPLICAS)
    };
    if desired_replicas < min_replicas {
        Limited::new(min_replicas, TOO_FEW_REPLICAS)
    } else if desired_replicas > maximum {
        Limited::new(maximum, limit)
    } else {
        Limited::new(desired_replicas, DESIRED_WITHIN_RANGE)
    }
}

/// A rule's stabilization window in seconds (unset counts as 0).
fn window_of(rules: &HPAScalingRules) -> i64 {
    i64::from(rules.stabilization_window_seconds.unwrap_or(0))
}

/// `stabilizeRecommendationWithBehaviors`: the lowest recommendation strictly inside the
/// scale-up window and the highest strictly inside the scale-down window bound the result,
/// which starts from the current count. `(desired, now)` then overwrites the last entry that
/// is strictly older than both cutoffs, or is appended.
pub fn stabilize_recommendation_with_behaviors(
    recommendations: &mut Vec<TimestampedRecommendation>,
    args: &NormalizationArgs<'_>,
    now: Timestamp,
) -> Stabilized {
    let (up_cutoff, down_cutoff) = behavior_cutoffs(args, now);
    let mut up_recommendation = args.desired_replicas;
    let mut down_recommendation = args.desired_replicas;
    // The latest recommendation giving each bound (the prenormalized count gives it when none).
    let mut up_holder: Option<TimestampedRecommendation> = None;
    let mut down_holder: Option<TimestampedRecommendation> = None;
    let mut old_index = None;
    for (i, rec) in recommendations.iter().enumerate() {
        if rec.timestamp.after(up_cutoff) {
            up_recommendation = up_recommendation.min(rec.recommendation);
            if rec.recommendation == up_recommendation && rec.recommendation < args.desired_replicas {
                up_holder = Some(*rec);
            }
        }
        if rec.timestamp.after(down_cutoff) {
            down_recommendation = down_recommendation.max(rec.recommendation);
            if rec.recommendation == down_recommendation && rec.recommendation > args.desired_replicas {
                down_holder = Some(*rec);
            }
        }
        if rec.timestamp.before(up_cutoff) && rec.timestamp.before(down_cutoff) {
            old_index = Some(i);
        }
    }
    store_recommendation(recommendations, old_index, args.desired_replicas, now);
    let mut stabilized = stabilized_between(args, up_recommendation, down_recommendation);
    stabilized.held_by = if stabilized.replicas == args.desired_replicas {
        None
    } else if stabilized.replicas == up_recommendation {
        up_holder
    } else {
        down_holder
    };
    stabilized
}

/// The cutoffs of `stabilizeRecommendationWithBehaviors`: a recommendation counts for the
/// scale-up (scale-down) window when it is strictly after the first (second) instant.
pub(crate) fn behavior_cutoffs(args: &NormalizationArgs<'_>, now: Timestamp) -> (Timestamp, Timestamp) {
    (now.plus_secs(-window_of(args.scale_up)), now.plus_secs(-window_of(args.scale_down)))
}

/// The end of `stabilizeRecommendationWithBehaviors`: the current count raised to the lowest
/// recommendation of the scale-up window and lowered to the highest of the scale-down window
/// (both windows include the desired count), with the function's reason.
pub(crate) fn stabilized_between(
    args: &NormalizationArgs<'_>,
    up_recommendation: i32,
    down_recommendation: i32,
) -> Stabilized {
    let mut recommendation = args.current_replicas;
    if recommendation < up_recommendation {
        recommendation = up_recommendation;
    }
    if recommendation > down_recommendation {
        recommendation = down_recommendation;
    }
    let (reason, message) =
        if args.desired_replicas >= args.current_replicas { SCALE_UP_STABILIZED } else { SCALE_DOWN_STABILIZED };
    Stabilized { replicas: recommendation, reason, message, held_by: None }
}

/// `convertDesiredReplicasWithBehaviorRate`: applies the policy limit in the direction of
/// movement only (max on the way up, min on the way down).
pub fn convert_desired_replicas_with_behavior_rate(
    args: &NormalizationArgs<'_>,
    scale_up_events: &[TimestampedScaleEvent],
    scale_down_events: &[TimestampedScaleEvent],
    now: Timestamp,
) -> Limited {
    let (current, desired) = (args.current_replicas, args.desired_replicas);
    if desired > current {
        let (computed, policy) =
            scale_up_limit_and_policy(current, scale_up_events, scale_down_events, args.scale_up, now, args.release);
        let rate = RateLimit { limit: computed, policy };
        // No further scale-up until the scale-up events age out.
        let limit = computed.max(current);
        let (maximum, reason) =
            if args.max_replicas > limit { (limit, SCALE_UP_LIMIT) } else { (args.max_replicas, TOO_MANY_REPLICAS) };
        if desired > maximum {
            return Limited::new(maximum, reason).with_rate(rate);
        }
        return Limited::new(desired, DESIRED_WITHIN_RANGE).with_rate(rate);
    } else if desired < current {
        let (computed, policy) =
            scale_down_limit_and_policy(current, scale_up_events, scale_down_events, args.scale_down, now);
        let rate = RateLimit { limit: computed, policy };
        // No further scale-down until the scale-down events age out.
        let limit = computed.min(current);
        let (minimum, reason) =
            if args.min_replicas < limit { (limit, SCALE_DOWN_LIMIT) } else { (args.min_replicas, TOO_FEW_REPLICAS) };
        if desired < minimum {
            return Limited::new(minimum, reason).with_rate(rate);
        }
        return Limited::new(desired, DESIRED_WITHIN_RANGE).with_rate(rate);
    }
    Limited::new(desired, DESIRED_WITHIN_RANGE)
}

/// `getReplicasChangePerPeriod`: the sum of the changes of events strictly after
/// `now − periodSeconds` (an event exactly one period old no longer counts). int32 sum.
pub fn get_replicas_change_per_period(period_seconds: i32, events: &[TimestampedScaleEvent], now: Timestamp) -> i32 {
    let cutoff = now.plus_secs(-i64::from(period_seconds));
    events.iter().filter(|e| e.timestamp.after(cutoff)).fold(0i32, |acc, e| acc.wrapping_add(e.replica_change))
}

/// A rule's `selectPolicy` (unset counts as `Max`).
fn select_policy(rules: &HPAScalingRules) -> &str {
    rules.select_policy.as_deref().unwrap_or(SELECT_POLICY_MAX)
}

/// A rule's policies (unset counts as none).
fn policies(rules: &HPAScalingRules) -> &[crate::api::v2::HPAScalingPolicy] {
    rules.policies.as_deref().unwrap_or(&[])
}

/// `calculateScaleUpLimitWithScalingRules`: the most replicas the scale-up policies allow.
///
/// Disabled → `current`. Max keeps the largest proposal (starting at `i32::MIN`), Min the
/// smallest (starting at `i32::MAX`). Per policy, `periodStart = current − added + removed`
/// over the policy period; Pods proposes `periodStart + value`, Percent
/// `ceil(periodStart × (1 + value/100))` in float64, converted as `release` does
/// ([`ControllerRelease::ceil_to_i32`]: saturating in 1.38; before, `MinInt32` on amd64 when out
/// of range, which freezes scale-up under a Max policy).
pub fn calculate_scale_up_limit_with_scaling_rules(
    current_replicas: i32,
    scale_up_events: &[TimestampedScaleEvent],
    scale_down_events: &[TimestampedScaleEvent],
    rules: &HPAScalingRules,
    now: Timestamp,
    release: ControllerRelease,
) -> i32 {
    scale_up_limit_and_policy(current_replicas, scale_up_events, scale_down_events, rules, now, release).0
}

/// [`calculate_scale_up_limit_with_scaling_rules`], with the policy that gave the limit (its
/// index, and the count at the start of its period): the first policy whose proposal is the
/// result.
fn scale_up_limit_and_policy(
    current_replicas: i32,
    scale_up_events: &[TimestampedScaleEvent],
    scale_down_events: &[TimestampedScaleEvent],
    rules: &HPAScalingRules,
    now: Timestamp,
    release: ControllerRelease,
) -> (i32, Option<(usize, i32)>) {
    let periods = PolicyPeriods { current_replicas, scale_up_events, scale_down_events, now };
    periods.limit_and_policy(
        rules,
        Direction::Up,
        |start, value| start.wrapping_add(value),
        |start, value| release.ceil_to_i32(f64::from(start) * (1.0 + f64::from(value) / 100.0)),
    )
}

/// `calculateScaleDownLimitWithBehaviors`: the fewest replicas the scale-down policies allow.
///
/// Disabled → `current`. Max ("biggest change") keeps the smallest proposal (starting at
/// `i32::MAX`), Min the largest (starting at `i32::MIN`). Pods proposes
/// `periodStart − value`, Percent `int32(periodStart × (1 − value/100))` in float64, truncated
/// toward zero.
pub fn calculate_scale_down_limit_with_behaviors(
    current_replicas: i32,
    scale_up_events: &[TimestampedScaleEvent],
    scale_down_events: &[TimestampedScaleEvent],
    rules: &HPAScalingRules,
    now: Timestamp,
) -> i32 {
    scale_down_limit_and_policy(current_replicas, scale_up_events, scale_down_events, rules, now).0
}

/// [`calculate_scale_down_limit_with_behaviors`], with the policy that gave the limit (as
/// [`scale_up_limit_and_policy`]).
fn scale_down_limit_and_policy(
    current_replicas: i32,
    scale_up_events: &[TimestampedScaleEvent],
    scale_down_events: &[TimestampedScaleEvent],
    rules: &HPAScalingRules,
    now: Timestamp,
) -> (i32, Option<(usize, i32)>) {
    let periods = PolicyPeriods { current_replicas, scale_up_events, scale_down_events, now };
    periods.limit_and_policy(
        rules,
        Direction::Down,
        |start, value| start.wrapping_sub(value),
        |start, value| (f64::from(start) * (1.0 - f64::from(value) / 100.0)) as i32,
    )
}

/// What each policy's period starts from: the current count, the scale events and the instant.
struct PolicyPeriods<'a> {
    current_replicas: i32,
    scale_up_events: &'a [TimestampedScaleEvent],
    scale_down_events: &'a [TimestampedScaleEvent],
    now: Timestamp,
}

impl PolicyPeriods<'_> {
    /// The count at the start of a period: `currentReplicas − replicasAddedInCurrentPeriod +
    /// replicasDeletedInCurrentPeriod`.
    fn start(&self, period_seconds: i32) -> i32 {
        let added = get_replicas_change_per_period(period_seconds, self.scale_up_events, self.now);
        let deleted = get_replicas_change_per_period(period_seconds, self.scale_down_events, self.now);
        self.current_replicas.wrapping_sub(added).wrapping_add(deleted)
    }

    /// The loop `calculateScaleUpLimitWithScalingRules` and `calculateScaleDownLimitWithBehaviors`
    /// share. Each policy proposes a count from the replicas at the start of its period (`pods`
    /// and `percent` for the two policy types; a policy of another type proposes what the one
    /// before it did, as Go's `proposed` outlives each iteration). The limit is the proposal of
    /// the biggest change (`Max`) or of the smallest (`Min`): scaling up, the largest or the
    /// smallest proposal; scaling down, the reverse. Returns the limit and the policy that gave
    /// it (its index, and the count at the start of its period): the first policy whose
    /// proposal is the result.
    fn limit_and_policy(
        &self,
        rules: &HPAScalingRules,
        direction: Direction,
        pods: impl Fn(i32, i32) -> i32,
        percent: impl Fn(i32, i32) -> i32,
    ) -> (i32, Option<(usize, i32)>) {
        let select = select_policy(rules);
        if select == SELECT_POLICY_DISABLED {
            return (self.current_replicas, None);
        }
        // Max up and Min down keep the largest proposal, Min up and Max down the smallest.
        let largest = (select == SELECT_POLICY_MIN) == (direction == Direction::Down);
        let mut result = if largest { i32::MIN } else { i32::MAX };
        let mut chosen = None;
        let mut proposed = 0i32;
        for (i, policy) in policies(rules).iter().enumerate() {
            let start = self.start(policy.period_seconds);
            if policy.type_ == POLICY_PODS {
                proposed = pods(start, policy.value);
            } else if policy.type_ == POLICY_PERCENT {
                proposed = percent(start, policy.value);
            }
            let next = if largest { result.max(proposed) } else { result.min(proposed) };
            if next != result || chosen.is_none() {
                chosen = Some((i, start));
            }
            result = next;
        }
        (result, chosen)
    }
}

/// `getLongestPolicyPeriod`: the largest `periodSeconds` of the rules (0 without policies).
pub fn get_longest_policy_period(rules: Option<&HPAScalingRules>) -> i32 {
    rules.map(policies).unwrap_or(&[]).iter().map(|p| p.period_seconds).fold(0, i32::max)
}

/// `markScaleEventsOutdated`: flags every event strictly older than `now − longest` (the flag
/// is never cleared).
pub fn mark_scale_events_outdated(events: &mut [TimestampedScaleEvent], longest_policy_period: i32, now: Timestamp) {
    let cutoff = now.plus_secs(-i64::from(longest_policy_period));
    for e in events.iter_mut() {
        if e.timestamp.before(cutoff) {
            e.outdated = true;
        }
    }
}

/// `storeScaleEvent`: records a rescale from `prev` to `new` (only when `spec.behavior` is
/// set). Up if `new > prev`, else down; after marking outdated events with the direction's
/// longest policy period, the last outdated event is overwritten, or the event appended.
///
/// Returns the direction and the index at which the event was stored, `None` without a
/// behavior. `behavior` holds the rules as the controller has them (after defaulting).
pub fn store_scale_event(
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    scale_up_events: &mut Vec<TimestampedScaleEvent>,
    scale_down_events: &mut Vec<TimestampedScaleEvent>,
    prev_replicas: i32,
    new_replicas: i32,
    now: Timestamp,
) -> Option<(Direction, usize)> {
    let behavior = behavior?;
    let (direction, rules, events, change) = if new_replicas > prev_replicas {
        (Direction::Up, behavior.scale_up.as_ref(), scale_up_events, new_replicas.wrapping_sub(prev_replicas))
    } else {
        (Direction::Down, behavior.scale_down.as_ref(), scale_down_events, prev_replicas.wrapping_sub(new_replicas))
    };
    mark_scale_events_outdated(events, get_longest_policy_period(rules), now);
    let event = TimestampedScaleEvent { replica_change: change, timestamp: now, outdated: false };
    let reusable = events.iter().rposition(|e| e.outdated);
    let index = match reusable.and_then(|i| events.get_mut(i).map(|slot| (i, slot))) {
        Some((i, slot)) => {
            *slot = event;
            i
        }
        None => {
            events.push(event);
            events.len() - 1
        }
    };
    Some((direction, index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::HPAScalingPolicy;
    use crate::defaults;

    fn policy(type_: &str, value: i32, period_seconds: i32) -> HPAScalingPolicy {
        HPAScalingPolicy { type_: type_.into(), value, period_seconds }
    }

    fn rules(select: &str, policies: Vec<HPAScalingPolicy>) -> HPAScalingRules {
        HPAScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: Some(select.into()),
            policies: Some(policies),
            tolerance: None,
        }
    }

    fn event(change: i32, age_s: i64) -> TimestampedScaleEvent {
        TimestampedScaleEvent { replica_change: change, timestamp: Timestamp::from_secs(-age_s), outdated: false }
    }

    const NOW: Timestamp = Timestamp::from_secs(0);

    #[test]
    fn legacy_run_2_4_8_10() {
        // controller.md §10: production factor 2, window 300 s, min 2, max 10; proposals 258, 0, 0.
        let mut recs = vec![TimestampedRecommendation { recommendation: 2, timestamp: NOW }];
        let mut current = 2;
        let mut seen = vec![];
        for (t, proposal, reason) in [(0, 258, "ScaleUpLimit"), (15, 0, "ScaleUpLimit"), (30, 0, "TooManyReplicas")] {
            let now = Timestamp::from_secs(t);
            let stabilized = stabilize_recommendation(&mut recs, proposal, Duration::from_secs(300), now);
            assert_eq!(stabilized, 258);
            let limited = convert_desired_replicas_with_rules(current, stabilized, 2, 10, 2.0, 4.0);
            assert_eq!(limited.reason, reason);
            current = limited.replicas;
            seen.push(current);
        }
        assert_eq!(seen, [4, 8, 10]);
        // 300 s after the 258 the legacy window still counts it (inclusive); 1 ms later it is gone.
        assert_eq!(
            stabilize_recommendation(&mut recs.clone(), 0, Duration::from_secs(300), Timestamp::from_secs(300)),
            258
        );
        assert_eq!(
            stabilize_recommendation(&mut recs, 0, Duration::from_secs(300), Timestamp::from_millis(300_001)),
            0
        );
    }

    #[test]
    fn legacy_convert_table() {
        // (current, desired, min, max, factor, expected, reason)
        let cases = [
            (5, 7, 3, 8, 8.0, 7, "DesiredWithinRange"),
            (3, 1, 2, 8, 8.0, 2, "TooFewReplicas"),
            (20, 1000, 1, 10, 8.0, 10, "TooManyReplicas"),
            (3, 1000, 1, 2000, 8.0, 24, "ScaleUpLimit"),
            (3, 1000, 1, 2000, 2.0, 6, "ScaleUpLimit"),
            (0, 9, 0, 20, 2.0, 4, "ScaleUpLimit"),
        ];
        for (current, desired, min, max, factor, want, reason) in cases {
            let got = convert_desired_replicas_with_rules(current, desired, min, max, factor, 4.0);
            assert_eq!((got.replicas, got.reason), (want, reason), "{current} → {desired}");
        }
    }

    #[test]
    fn scale_down_policies_from_80() {
        // Pods 4/60 s + Percent 10/60 s, Max: the first step removes 8, then nothing for 60 s.
        let down = rules("Max", vec![policy("Pods", 4, 60), policy("Percent", 10, 60)]);
        let up = defaults::scale_up_rules(None);
        let mut up_events = vec![];
        let mut down_events = vec![];
        let args = |current| NormalizationArgs {
            scale_up: &up,
            scale_down: &down,
            min_replicas: 1,
            max_replicas: 100,
            current_replicas: current,
            desired_replicas: 10,
            release: ControllerRelease::default(),
        };
        let first = convert_desired_replicas_with_behavior_rate(&args(80), &up_events, &down_events, NOW);
        assert_eq!((first.replicas, first.reason), (72, "ScaleDownLimit"));
        let behavior = HorizontalPodAutoscalerBehavior { scale_up: Some(up.clone()), scale_down: Some(down.clone()) };
        store_scale_event(Some(&behavior), &mut up_events, &mut down_events, 80, 72, NOW);
        // (seconds later, expected)
        for (later, want) in [(15, 72), (59, 72), (60, 64)] {
            let now = Timestamp::from_secs(later);
            let got = convert_desired_replicas_with_behavior_rate(&args(72), &up_events, &down_events, now);
            assert_eq!(got.replicas, want, "{later} s later");
        }
        // From 28, −4 is the bigger change (Percent gives int(28 × 0.9) = 25).
        let got = convert_desired_replicas_with_behavior_rate(&args(28), &[], &[], NOW);
        assert_eq!(got.replicas, 24);
    }

    #[test]
    fn disabled_never_scales_down() {
        let down = rules("Disabled", vec![policy("Percent", 100, 15)]);
        let up = defaults::scale_up_rules(None);
        for (current, desired) in [(10, 1), (5, 0), (100, 99)] {
            let args = NormalizationArgs {
                scale_up: &up,
                scale_down: &down,
                min_replicas: 0,
                max_replicas: 100,
                current_replicas: current,
                desired_replicas: desired,
                release: ControllerRelease::default(),
            };
            let got = convert_desired_replicas_with_behavior_rate(&args, &[], &[], NOW);
            assert_eq!((got.replicas, got.reason), (current, "ScaleDownLimit"));
        }
    }

    #[test]
    fn default_scale_up_is_max_of_4_pods_and_100_percent() {
        let up = defaults::scale_up_rules(None);
        // (current, limit)
        for (current, limit) in [(0, 4), (1, 5), (2, 6), (4, 8), (5, 10), (40, 80)] {
            assert_eq!(
                calculate_scale_up_limit_with_scaling_rules(current, &[], &[], &up, NOW, ControllerRelease::default()),
                limit,
                "{current}"
            );
        }
        // An event exactly 15 s old no longer counts; one 14 s old does.
        let events = [event(4, 15)];
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(6, &events, &[], &up, NOW, ControllerRelease::default()),
            12
        );
        let events = [event(4, 14)];
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(6, &events, &[], &up, NOW, ControllerRelease::default()),
            6
        );
    }

    #[test]
    fn percent_float_artifacts() {
        let up = rules("Max", vec![policy("Percent", 10, 60)]);
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(100, &[], &[], &up, NOW, ControllerRelease::default()),
            111
        );
        let down = rules("Max", vec![policy("Percent", 80, 60)]);
        assert_eq!(calculate_scale_down_limit_with_behaviors(10, &[], &[], &down, NOW), 1);
    }

    #[test]
    fn behavior_stabilization_table() {
        // (current, desired, up window, down window, recommendations (value, age), stabilized, after)
        type Case = (i32, i32, i32, i32, &'static [(i32, i64)], i32, &'static [i32]);
        let cases: [Case; 5] = [
            (100, 3, 0, 180, &[(4, 120), (5, 60)], 5, &[4, 5, 3]),
            (1, 7, 300, 0, &[(4, 120), (5, 60)], 4, &[4, 5, 7]),
            (100, 3, 0, 0, &[(10, 600), (9, 540)], 3, &[10, 3]),
            (1, 100, 300, 0, &[(10, 6000), (6, 60), (5, 120), (9, 180)], 5, &[100, 6, 5, 9]),
            // A window exactly as old as the recommendation neither counts nor reuses it.
            (10, 3, 0, 60, &[(8, 60)], 3, &[8, 3]),
        ];
        for (current, desired, up_w, down_w, recs, want, after) in cases {
            let mut up = defaults::scale_up_rules(None);
            up.stabilization_window_seconds = Some(up_w);
            let mut down = defaults::scale_down_rules(None);
            down.stabilization_window_seconds = Some(down_w);
            let args = NormalizationArgs {
                scale_up: &up,
                scale_down: &down,
                min_replicas: 1,
                max_replicas: 1000,
                current_replicas: current,
                desired_replicas: desired,
                release: ControllerRelease::default(),
            };
            let mut log: Vec<TimestampedRecommendation> = recs
                .iter()
                .map(|&(v, age)| TimestampedRecommendation { recommendation: v, timestamp: Timestamp::from_secs(-age) })
                .collect();
            let got = stabilize_recommendation_with_behaviors(&mut log, &args, NOW);
            assert_eq!(got.replicas, want, "{recs:?}");
            let values: Vec<i32> = log.iter().map(|r| r.recommendation).collect();
            assert_eq!(values, after, "{recs:?}");
        }
    }

    #[test]
    fn store_scale_event_reuses_last_outdated() {
        let up = rules("Max", vec![policy("Pods", 10, 60)]);
        let behavior = HorizontalPodAutoscalerBehavior { scale_up: Some(up), scale_down: None };
        let mut ups = vec![event(1, 100), event(2, 70), event(3, 60), event(4, 10)];
        let mut downs = vec![];
        let stored = store_scale_event(Some(&behavior), &mut ups, &mut downs, 10, 15, NOW);
        assert_eq!(stored, Some((Direction::Up, 1)));
        let got: Vec<(i32, bool)> = ups.iter().map(|e| (e.replica_change, e.outdated)).collect();
        assert_eq!(got, [(1, true), (5, false), (3, false), (4, false)]);
        assert_eq!(store_scale_event(None, &mut ups, &mut downs, 10, 15, NOW), None);
        assert_eq!(get_replicas_change_per_period(60, &ups, NOW), 9);
    }
}
