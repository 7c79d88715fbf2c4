//! How fast an HPA can move between its bounds: the controller driven sync by sync with a
//! demand pinned at `maxReplicas` (scale-up) or at `minReplicas` after a period at the top
//! (scale-down), so every stabilization window, rate limit and rounding the controller
//! applies is in the figures.
//!
//! The demand is the controller's what-if input ([`SyncInput::prenormalized_desired`]): each
//! sync is the controller's one sync, [`Autoscaler::reconcile`], with the metrics replaced by
//! the demand, as the linter, `explain` and the webhook time every HPA.

use crate::api::v2::{HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior};

use super::config::HPAControllerConfiguration;
use super::controller::{Autoscaler, Scale, SyncInput};
use super::time::Timestamp;

/// A sync of a [`Trajectory`] that changed the replica count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleChange {
    /// Seconds after the demand changed.
    pub at_seconds: i64,
    /// Replicas before the sync.
    pub from: i32,
    /// Replicas after the sync.
    pub to: i32,
}

/// The replica count driven from one bound to the other, sync by sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trajectory {
    /// Where it starts.
    pub from: i32,
    /// Where it should end.
    pub target: i32,
    /// The syncs that changed the count, in order.
    pub steps: Vec<ScaleChange>,
    /// Syncs run until the target was reached (or until giving up).
    pub syncs: usize,
    /// Seconds from the change of demand to the sync that reached the target (for a new HPA,
    /// from its creation: its first sync is one sync period later on 1.33 to 1.36); `None` when
    /// it was not reached within the limit.
    pub seconds: Option<i64>,
    /// The sync period used.
    pub sync_period_seconds: i64,
}

impl Trajectory {
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

/// The selector the driven scale reports (any non-empty one).
const SELECTOR: &str = "app=timing";

/// Syncs `autoscaler` from `start` towards a demand of `target` (both within the HPA's bounds,
/// at least 1) that appeared at second 0, the first sync at `first_sync` seconds, until the count
/// reaches the target or `max_syncs` have run.
///
/// A run that has not moved for longer than the controller remembers anything (`memory`
/// seconds: its longest stabilization window or policy period) stops early: with the demand
/// and the count fixed, every later sync decides as the last one did, so the target is never
/// reached and the run is what `max_syncs` syncs would give.
fn drive(
    autoscaler: &mut Autoscaler<'_>,
    start: i32,
    target: i32,
    first_sync: i64,
    period: i64,
    memory: i64,
) -> Trajectory {
    let mut run =
        Trajectory { from: start, target, steps: Vec::new(), syncs: 0, seconds: None, sync_period_seconds: period };
    if start == target {
        run.seconds = Some(0);
        return run;
    }
    let quiet_limit = memory / period + 2;
    let mut current = start;
    let mut quiet = 0i64;
    let scale = |replicas: i32| Scale { spec_replicas: replicas, status_replicas: replicas, selector: SELECTOR.into() };
    let mut input = SyncInput::new(Timestamp::from_secs(first_sync), scale(current));
    input.prenormalized_desired = Some(target);
    for k in 0..MAX_SYNCS {
        let at = first_sync.saturating_add(i64::try_from(k).unwrap_or(i64::MAX).saturating_mul(period));
        input.now = Timestamp::from_secs(at);
        if let Ok(s) = &mut input.scale {
            (s.spec_replicas, s.status_replicas) = (current, current);
        }
        let result = autoscaler.reconcile(&input);
        run.syncs = k + 1;
        if result.rescaled {
            let to = result.desired_replicas;
            run.steps.push(ScaleChange { at_seconds: at, from: current, to });
            current = to;
            quiet = 0;
        } else {
            quiet += 1;
        }
        if current == target {
            run.seconds = Some(at);
            break;
        }
        if quiet > quiet_limit {
            run.syncs = MAX_SYNCS;
            break;
        }
    }
    run
}

/// The longest the controller remembers a recommendation or a scale event, in seconds: the
/// longest stabilization window and policy period of the behavior, or the legacy path's
/// downscale stabilization window.
pub(crate) fn memory_seconds(
    behavior: Option<&HorizontalPodAutoscalerBehavior>,
    config: &HPAControllerConfiguration,
) -> i64 {
    let Some(b) = behavior else { return i64::from(config.downscale_stabilization_seconds()) };
    let longest = |r: &Option<HPAScalingRules>| {
        let r = r.as_ref();
        let window = r.and_then(|r| r.stabilization_window_seconds).unwrap_or(0);
        let period =
            r.and_then(|r| r.policies.as_ref()).map_or(0, |ps| ps.iter().map(|p| p.period_seconds).max().unwrap_or(0));
        window.max(period)
    };
    i64::from(longest(&b.scale_up).max(longest(&b.scale_down)).max(0))
}

/// The fastest scale-up from `minReplicas` to `maxReplicas` of a running HPA: demand jumps to
/// the maximum at second 0, and at best a periodic sync sees it at once. (When a new HPA is
/// first synced differs per release, [`HPAControllerConfiguration::first_sync_after_creation`],
/// but a running HPA is synced every period on every release: the bound is the same.) With
/// `minReplicas: 0` the run starts from 1: from 1.36 the controller leaves a target at zero
/// replicas alone unless it scaled it there itself (the `ScaledToZero` condition).
pub fn fastest_scale_up(hpa: &HorizontalPodAutoscaler, config: &HPAControllerConfiguration) -> Trajectory {
    let min = hpa.spec.min_replicas.unwrap_or(1).max(1);
    let max = hpa.spec.max_replicas;
    let mut autoscaler = Autoscaler::new(hpa, config).with_status(Default::default());
    let memory = memory_seconds(autoscaler.behavior(), config);
    let period = config.sync_period_seconds();
    drive(&mut autoscaler, min, max, 0, period, memory)
}

/// The fastest scale-down from `maxReplicas` back to `minReplicas`: the HPA has been at the
/// maximum (and recommending it) for longer than any window or policy period, and demand
/// drops to the minimum at second 0. With `minReplicas: 0` that is zero replicas, which the
/// controller reaches in every release (`convertDesiredReplicasWithRules` and
/// `convertDesiredReplicasWithBehaviorRate` clamp at `minReplicas` only).
pub fn fastest_scale_down(hpa: &HorizontalPodAutoscaler, config: &HPAControllerConfiguration) -> Trajectory {
    let min = hpa.spec.min_replicas.unwrap_or(1);
    let max = hpa.spec.max_replicas;
    let period = config.sync_period_seconds();
    let mut autoscaler = Autoscaler::new(hpa, config).with_status(Default::default());
    let memory = memory_seconds(autoscaler.behavior(), config);
    // Warm up: enough syncs at the top to fill every window with recommendations of `max`.
    let warmup_syncs = memory / period + 2;
    let mut input =
        SyncInput::new(Timestamp::ZERO, Scale { spec_replicas: max, status_replicas: max, selector: SELECTOR.into() });
    input.prenormalized_desired = Some(max);
    for k in 0..warmup_syncs {
        input.now = Timestamp::from_secs((k - warmup_syncs).saturating_mul(period));
        autoscaler.reconcile(&input);
    }
    drive(&mut autoscaler, max, min, 0, period, memory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior};
    use crate::test_support::hpa_scaling as hpa;

    #[test]
    fn legacy_path_doubles_per_sync() {
        let run = fastest_scale_up(&hpa(2, 10, None), &HPAControllerConfiguration::default());
        assert_eq!(run.path(), [2, 4, 8, 10]);
        assert_eq!(run.seconds, Some(30));
        let down = fastest_scale_down(&hpa(2, 10, None), &HPAControllerConfiguration::default());
        assert_eq!(down.path(), [10, 2]);
        assert_eq!(down.seconds, Some(300));
    }

    /// A spike on a running HPA is seen at the next periodic sync on every release: the fastest
    /// runs do not depend on when a new HPA is first synced (#138294, 1.37).
    #[test]
    fn the_fastest_runs_are_the_same_on_every_release() {
        use crate::features::{FeatureGates, KubernetesVersion};
        let config = |v| HPAControllerConfiguration::new(FeatureGates::new(v));
        let at = |run: &Trajectory| run.steps.iter().map(|s| (s.at_seconds, s.to)).collect::<Vec<_>>();
        let h = hpa(2, 10, None);
        for v in KubernetesVersion::ALL {
            let run = fastest_scale_up(&h, &config(v));
            assert_eq!((at(&run), run.seconds, run.syncs), (vec![(0, 4), (15, 8), (30, 10)], Some(30), 3), "{v}");
            let down = fastest_scale_down(&h, &config(v));
            assert_eq!((down.path(), down.seconds), (vec![10, 2], Some(300)), "{v}");
        }
    }

    /// With `minReplicas: 0` the scale-down ends at zero replicas, as the controller takes it
    /// there; the scale-up still starts from 1.
    #[test]
    fn scale_down_reaches_zero_with_min_replicas_zero() {
        use crate::features::{FeatureGates, KubernetesVersion};
        for v in KubernetesVersion::ALL {
            let config = HPAControllerConfiguration::new(FeatureGates::new(v));
            let down = fastest_scale_down(&hpa(0, 5, None), &config);
            assert_eq!((down.path(), down.seconds), (vec![5, 0], Some(300)), "{v}");
            let b = HorizontalPodAutoscalerBehavior {
                scale_up: None,
                scale_down: Some(HPAScalingRules {
                    stabilization_window_seconds: Some(0),
                    policies: Some(vec![HPAScalingPolicy { type_: "Pods".into(), value: 2, period_seconds: 15 }]),
                    ..Default::default()
                }),
            };
            let down = fastest_scale_down(&hpa(0, 5, Some(b)), &config);
            assert_eq!((down.path(), down.seconds), (vec![5, 3, 1, 0], Some(30)), "{v}");
            assert_eq!(fastest_scale_up(&hpa(0, 5, None), &config).path(), [1, 4, 5], "{v}");
        }
    }

    #[test]
    fn default_behavior_adds_four_pods_or_doubles() {
        let run = fastest_scale_up(&hpa(1, 20, Some(Default::default())), &HPAControllerConfiguration::default());
        assert_eq!(run.path(), [1, 5, 10, 20]);
    }

    #[test]
    fn disabled_scale_down_never_reaches_the_minimum() {
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HPAScalingRules { select_policy: Some("Disabled".into()), ..Default::default() }),
        };
        let run = fastest_scale_down(&hpa(2, 6, Some(b)), &HPAControllerConfiguration::default());
        assert!(!run.reached());
        assert!(run.steps.is_empty());
        assert_eq!(run.syncs, MAX_SYNCS);
    }

    #[test]
    fn a_long_policy_period_still_steps() {
        // One pod per 30 minutes: 120 quiet syncs between steps, all within what the controller
        // remembers, so the run goes on to the top.
        let b = HorizontalPodAutoscalerBehavior {
            scale_up: Some(HPAScalingRules {
                stabilization_window_seconds: Some(0),
                policies: Some(vec![HPAScalingPolicy { type_: "Pods".into(), value: 1, period_seconds: 1800 }]),
                ..Default::default()
            }),
            scale_down: None,
        };
        let run = fastest_scale_up(&hpa(1, 4, Some(b)), &HPAControllerConfiguration::default());
        assert_eq!(run.path(), [1, 2, 3, 4]);
        assert_eq!(run.seconds, Some(3600));
    }

    #[test]
    fn an_unreadable_scale_target_never_scales() {
        let mut h = hpa(1, 4, None);
        h.spec.scale_target_ref.api_version = "apps/v1/beta".into();
        let run = fastest_scale_up(&h, &HPAControllerConfiguration::default());
        assert_eq!((run.reached(), run.steps.len(), run.syncs), (false, 0, MAX_SYNCS));
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
        let run = fastest_scale_down(&hpa(3, 20, Some(b)), &HPAControllerConfiguration::default());
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
        let run = fastest_scale_down(&hpa(1, 4, Some(b)), &HPAControllerConfiguration::default());
        assert_eq!(run.path(), [4, 3, 2, 1]);
        assert_eq!(run.seconds, Some(120));
    }
}
