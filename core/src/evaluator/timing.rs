//! How fast an HPA can move between its bounds: the controller driven sync by sync with a
//! demand pinned at `maxReplicas` (scale-up) or at `minReplicas` after a period at the top
//! (scale-down), so every stabilization window, rate limit and rounding the controller
//! applies is in the figures.
//!
//! With the demand given and the count between the bounds (at least 1), a sync of
//! [`reconcile_autoscaler`] comes down to its normalization and, when the count changes, the
//! scale event it records: `drive` runs just those, the same functions the sync calls
//! (a test compares it with whole syncs), as the linter and the webhook time every HPA.

use crate::api::v2::HorizontalPodAutoscaler;

use super::behavior::{TimestampedRecommendation, store_scale_event};
use super::controller::{
    ControllerOptions, ControllerState, Scale, SyncInput, normalize, parse_group_version, reconcile_autoscaler,
};
use super::time::Timestamp;

/// One step of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Seconds after the demand changed.
    pub at_seconds: i64,
    /// Replicas before the sync.
    pub from: i32,
    /// Replicas after the sync.
    pub to: i32,
}

/// A run from one bound to the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Where it starts.
    pub from: i32,
    /// Where it should end.
    pub target: i32,
    /// The syncs that changed the count, in order.
    pub steps: Vec<Step>,
    /// Syncs run until the target was reached (or until giving up).
    pub syncs: usize,
    /// Seconds from the first sync that saw the new demand to the sync that reached the
    /// target; `None` when it was not reached within the limit.
    pub seconds: Option<i64>,
    /// The sync period used.
    pub sync_period_seconds: i64,
}

impl Run {
    /// Whether the target was reached.
    pub fn reached(&self) -> bool {
        self.seconds.is_some()
    }

    /// The replica counts visited, starting count first (`2 → 4 → 8 → 10`).
    pub fn path(&self) -> Vec<i32> {
        let mut p = vec![self.from];
        p.extend(self.steps.iter().map(|s| s.to));
        p
    }
}

/// How many syncs to try before giving up (a week of 15 s syncs).
pub const MAX_SYNCS: usize = 40_320;

fn sync_seconds(opts: &ControllerOptions) -> i64 {
    i64::try_from(opts.sync_period.as_secs()).unwrap_or(15).max(1)
}

/// Drives the controller with a fixed demand from `start` until the count reaches `target`.
/// Syncs from `start` towards a demand of `target` (both within the HPA's bounds, at least 1),
/// as `reconcileAutoscaler` runs them: `recordInitialRecommendation`, the normalization
/// (stabilization, then the legacy or behavior limits) and `storeScaleEvent` on a rescale.
fn drive(
    hpa: &HorizontalPodAutoscaler,
    opts: &ControllerOptions,
    state: &mut ControllerState,
    start: i32,
    target: i32,
    first_sync: i64,
    max_syncs: usize,
) -> Run {
    let period = sync_seconds(opts);
    let mut current = start;
    let mut run = Run { from: start, target, steps: Vec::new(), syncs: 0, seconds: None, sync_period_seconds: period };
    if current == target {
        run.seconds = Some(0);
        return run;
    }
    // A scale target the controller cannot read never scales (FailedGetScale).
    if parse_group_version(&hpa.spec.scale_target_ref.api_version).is_err() {
        run.syncs = max_syncs;
        return run;
    }
    let min = hpa.spec.min_replicas.unwrap_or(1);
    let max = hpa.spec.max_replicas;
    let behavior = opts.effective_behavior(hpa);
    for k in 0..max_syncs {
        let at = first_sync + i64::try_from(k).unwrap_or(i64::MAX) * period;
        let now = Timestamp::from_secs(at);
        if state.recommendations.is_none() {
            state.recommendations = Some(vec![TimestampedRecommendation { recommendation: current, timestamp: now }]);
        }
        let desired = normalize(state, behavior.as_ref(), opts, max, current, target, min, now).limited.replicas;
        run.syncs = k + 1;
        if desired != current {
            store_scale_event(
                behavior.as_ref(),
                &mut state.scale_up_events,
                &mut state.scale_down_events,
                current,
                desired,
                now,
            );
            run.steps.push(Step { at_seconds: at - first_sync, from: current, to: desired });
            current = desired;
        }
        if current == target {
            run.seconds = Some(at - first_sync);
            break;
        }
    }
    run
}

/// [`drive`] with whole controller syncs, to check it against.
#[cfg(test)]
fn drive_reference(
    hpa: &HorizontalPodAutoscaler,
    opts: &ControllerOptions,
    state: &mut ControllerState,
    start: i32,
    target: i32,
    first_sync: i64,
    max_syncs: usize,
) -> Run {
    let period = sync_seconds(opts);
    let mut hpa = hpa.clone();
    let mut current = start;
    let mut run = Run { from: start, target, steps: Vec::new(), syncs: 0, seconds: None, sync_period_seconds: period };
    if current == target {
        run.seconds = Some(0);
        return run;
    }
    for k in 0..max_syncs {
        let at = first_sync + i64::try_from(k).unwrap_or(i64::MAX) * period;
        let mut input = SyncInput::new(
            Timestamp::from_secs(at),
            Scale { spec_replicas: current, status_replicas: current, selector: "app=sim".into() },
        );
        input.prenormalized_desired = Some(target);
        let result = reconcile_autoscaler(&hpa, state, &input, opts);
        hpa.status = result.status.clone();
        run.syncs = k + 1;
        if result.rescaled {
            let to = result.desired_replicas;
            run.steps.push(Step { at_seconds: at - first_sync, from: current, to });
            current = to;
        }
        if current == target {
            run.seconds = Some(at - first_sync);
            break;
        }
    }
    run
}

/// The fastest scale-up from `minReplicas` to `maxReplicas`: demand jumps to the maximum at
/// the first sync of a freshly created HPA.
pub fn fastest_scale_up(hpa: &HorizontalPodAutoscaler, opts: &ControllerOptions) -> Run {
    scale_up_with(hpa, opts, drive, MAX_SYNCS)
}

/// The signature of [`drive`].
type Drive = fn(&HorizontalPodAutoscaler, &ControllerOptions, &mut ControllerState, i32, i32, i64, usize) -> Run;

fn scale_up_with(hpa: &HorizontalPodAutoscaler, opts: &ControllerOptions, drive: Drive, max_syncs: usize) -> Run {
    let min = hpa.spec.min_replicas.unwrap_or(1).max(1);
    let max = hpa.spec.max_replicas;
    let mut state = ControllerState::default();
    drive(hpa, opts, &mut state, min, max, 0, max_syncs)
}

/// The fastest scale-down from `maxReplicas` back to `minReplicas`: the HPA has been at the
/// maximum (and recommending it) for longer than any window or policy period, and demand
/// drops to the minimum at second 0.
pub fn fastest_scale_down(hpa: &HorizontalPodAutoscaler, opts: &ControllerOptions) -> Run {
    scale_down_with(hpa, opts, drive, MAX_SYNCS)
}

fn scale_down_with(hpa: &HorizontalPodAutoscaler, opts: &ControllerOptions, drive: Drive, max_syncs: usize) -> Run {
    let min = hpa.spec.min_replicas.unwrap_or(1).max(1);
    let max = hpa.spec.max_replicas;
    let period = sync_seconds(opts);
    let behavior = opts.effective_behavior(hpa);
    let longest_window = behavior
        .as_ref()
        .map(|b| {
            let w = |r: &Option<crate::api::v2::HPAScalingRules>| {
                r.as_ref().and_then(|r| r.stabilization_window_seconds).unwrap_or(0)
            };
            let p = |r: &Option<crate::api::v2::HPAScalingRules>| {
                r.as_ref()
                    .and_then(|r| r.policies.as_ref())
                    .map_or(0, |ps| ps.iter().map(|p| p.period_seconds).max().unwrap_or(0))
            };
            i64::from(w(&b.scale_up).max(w(&b.scale_down)).max(p(&b.scale_up)).max(p(&b.scale_down)))
        })
        .unwrap_or_else(|| i64::try_from(opts.downscale_stabilization_window.as_secs()).unwrap_or(300));
    // Warm up: enough syncs at the top to fill every window with recommendations of `max`.
    let warmup_syncs = usize::try_from(longest_window / period + 2).unwrap_or(2);
    let mut state = ControllerState::default();
    let warm_start = -(i64::try_from(warmup_syncs).unwrap_or(2)) * period;
    let mut warm_hpa = hpa.clone();
    for k in 0..warmup_syncs {
        let at = warm_start + i64::try_from(k).unwrap_or(0) * period;
        let mut input = SyncInput::new(
            Timestamp::from_secs(at),
            Scale { spec_replicas: max, status_replicas: max, selector: "app=sim".into() },
        );
        input.prenormalized_desired = Some(max);
        let r = reconcile_autoscaler(&warm_hpa, &mut state, &input, opts);
        warm_hpa.status = r.status;
    }
    drive(&warm_hpa, opts, &mut state, max, min, 0, max_syncs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior};

    fn hpa(min: i32, max: i32, behavior: Option<HorizontalPodAutoscalerBehavior>) -> HorizontalPodAutoscaler {
        let mut h = HorizontalPodAutoscaler::default();
        h.metadata.name = "web".into();
        h.metadata.namespace = "default".into();
        h.spec.scale_target_ref.kind = "Deployment".into();
        h.spec.scale_target_ref.name = "web".into();
        h.spec.scale_target_ref.api_version = "apps/v1".into();
        h.spec.min_replicas = Some(min);
        h.spec.max_replicas = max;
        h.spec.metrics = vec![crate::defaults::default_metric()];
        h.spec.behavior = behavior;
        h
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// The light drive gives exactly what whole controller syncs give.
        #[test]
        fn drive_equals_whole_syncs(
            min in 1i32..12,
            span in 0i32..120,
            sync in 1u64..61,
            up in proptest::option::of(rules()),
            down in proptest::option::of(rules()),
            legacy in proptest::bool::ANY,
        ) {
            let behavior = (!legacy).then_some(HorizontalPodAutoscalerBehavior { scale_up: up, scale_down: down });
            let h = hpa(min, min + span, behavior);
            let opts = ControllerOptions { sync_period: std::time::Duration::from_secs(sync), ..ControllerOptions::default() };
            // 600 syncs: far enough for every window and period, short enough for whole syncs.
            proptest::prop_assert_eq!(scale_up_with(&h, &opts, drive, 600), scale_up_with(&h, &opts, drive_reference, 600));
            proptest::prop_assert_eq!(scale_down_with(&h, &opts, drive, 600), scale_down_with(&h, &opts, drive_reference, 600));
        }
    }

    fn rules() -> impl proptest::strategy::Strategy<Value = HPAScalingRules> {
        use proptest::prelude::*;
        let policy = (prop_oneof![Just("Pods"), Just("Percent")], 1i32..300, 1i32..1801)
            .prop_map(|(t, value, period_seconds)| HPAScalingPolicy { type_: t.into(), value, period_seconds });
        (
            proptest::option::of(0i32..3601),
            proptest::option::of(prop_oneof![Just("Max"), Just("Min"), Just("Disabled")]),
            proptest::option::of(proptest::collection::vec(policy, 0..4)),
        )
            .prop_map(|(window, select, policies)| HPAScalingRules {
                stabilization_window_seconds: window,
                select_policy: select.map(Into::into),
                policies,
                tolerance: None,
            })
    }

    #[test]
    fn legacy_path_doubles_per_sync() {
        let run = fastest_scale_up(&hpa(2, 10, None), &ControllerOptions::default());
        assert_eq!(run.path(), [2, 4, 8, 10]);
        assert_eq!(run.seconds, Some(30));
        let down = fastest_scale_down(&hpa(2, 10, None), &ControllerOptions::default());
        assert_eq!(down.path(), [10, 2]);
        assert_eq!(down.seconds, Some(300));
    }

    #[test]
    fn default_behavior_adds_four_pods_or_doubles() {
        let run = fastest_scale_up(&hpa(1, 20, Some(Default::default())), &ControllerOptions::default());
        assert_eq!(run.path(), [1, 5, 10, 20]);
    }

    #[test]
    fn disabled_scale_down_never_reaches_the_minimum() {
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HPAScalingRules { select_policy: Some("Disabled".into()), ..Default::default() }),
        };
        let opts = ControllerOptions::default();
        let h = hpa(2, 6, Some(b));
        let mut state = ControllerState::default();
        let run = drive(&h, &opts, &mut state, 6, 2, 0, 200);
        assert!(!run.reached());
        assert!(run.steps.is_empty());
    }

    #[test]
    fn percent_policies_step_once_per_period() {
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HPAScalingRules {
                stabilization_window_seconds: Some(300),
                policies: Some(vec![HPAScalingPolicy { type_: "Percent".into(), value: 20, period_seconds: 60 }]),
                ..Default::default()
            }),
        };
        let run = fastest_scale_down(&hpa(3, 20, Some(b)), &ControllerOptions::default());
        let at: Vec<(i64, i32)> = run.steps.iter().map(|s| (s.at_seconds, s.to)).collect();
        // The last high recommendation is from the sync before the drop (-15 s): it leaves the
        // 300 s window at 285 s. Then one step per 60 s period, truncating 20 % each time.
        assert_eq!(at, [(285, 16), (345, 12), (405, 9), (465, 7), (525, 5), (585, 4), (645, 3)]);
    }

    #[test]
    fn scale_down_policies_limit_the_rate() {
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HPAScalingRules {
                stabilization_window_seconds: Some(0),
                policies: Some(vec![HPAScalingPolicy { type_: "Pods".into(), value: 1, period_seconds: 60 }]),
                ..Default::default()
            }),
        };
        let run = fastest_scale_down(&hpa(1, 4, Some(b)), &ControllerOptions::default());
        assert_eq!(run.path(), [4, 3, 2, 1]);
        assert_eq!(run.seconds, Some(120));
    }
}
