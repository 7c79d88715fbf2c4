//! HPA302 `slow-scale-up`: reaching maxReplicas takes too long (or never happens).

use super::{Context, Finding, Rule, RuleMeta};
use crate::api::v2::{HPAScalingRules, HorizontalPodAutoscaler};
use crate::defaults;
use crate::evaluator::config::HPAControllerConfiguration;
use crate::evaluator::timing;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// How long the controller needs, at best, to go from `minReplicas` to `maxReplicas`: the HPA
    /// controller's own algorithm is run sync by sync with the demand pinned at the maximum
    /// (stabilization windows, policies and the legacy doubling limit all apply). The rule reports
    /// when that takes longer than `settings.maxScaleUpSeconds` in `.hpa-lint.yaml` (600 by
    /// default), or never happens (`scaleUp.selectPolicy: Disabled`).
    ///
    /// ## Why it matters
    ///
    /// A traffic spike has to be absorbed by the replicas that exist while the HPA is still
    /// climbing. Restrictive scale-up policies (one pod per minute towards 50 replicas) or a long
    /// scale-up stabilization window make the HPA useless for spikes.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 50
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleUp:
    ///       policies:
    ///       - {type: Pods, value: 1, periodSeconds: 60}   # 48 steps: 47 minutes to the top
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 50
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleUp:
    ///       policies:
    ///       - {type: Percent, value: 100, periodSeconds: 30}
    ///       - {type: Pods, value: 4, periodSeconds: 30}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Allow proportional growth (`{type: Percent, value: 100, periodSeconds: 30}` doubles the count
    /// every 30 s) or a larger pod step, and keep `scaleUp.stabilizationWindowSeconds` short.
    /// `hpa-lint explain` shows the path the controller would take.
    pub struct SlowScaleUp {
        id: "HPA302",
        name: "slow-scale-up",
        severity: Warning,
        summary: "reaching maxReplicas from minReplicas takes longer than the configured bound",
        needs_objects: false,
    }
}

/// Whether stored scale-up rules are the ones kube-apiserver fills in when none are written
/// ([`defaults::scale_up_rules`]), their policies in any order: the controller takes the
/// largest (`Max`) or smallest (`Min`) of the policies' limits whatever their order
/// (`calculateScaleUpLimitWithScalingRules`), so the simulation is that of an HPA without
/// scale-up rules. Spelled out (`stabilizationWindowSeconds: 0`, the two default policies), they
/// need no simulation either.
fn is_default_scale_up(rules: &HPAScalingRules) -> bool {
    let defaults = defaults::scale_up_rules(None);
    let (Some(policies), Some(default_policies)) = (&rules.policies, &defaults.policies) else {
        return false;
    };
    rules.stabilization_window_seconds == defaults.stabilization_window_seconds
        && rules.select_policy == defaults.select_policy
        && rules.tolerance == defaults.tolerance
        && policies.len() == default_policies.len()
        && default_policies.iter().all(|d| policies.contains(d))
}

/// How often, at the longest, the controller at least doubles the count of an HPA whose demand
/// is pinned above `maxReplicas`, when its scale-up rules say so without a simulation: every
/// sync on the legacy path (no `behavior`: `max(2 × current, 4)` per sync), and with the
/// default scale-up rules ([`is_default_scale_up`]: 100 % per 15 s) at the first sync 15 s or
/// more after the last scale-up, when the scale-ups of the policy's period no longer count
/// (`getReplicasChangePerPeriod`): every sync for a sync period of 15 s or more, every
/// `period × ⌈15 s / period⌉` for a shorter one. `None`: only a simulation says.
fn doubling_seconds(effective: &HorizontalPodAutoscaler, config: &HPAControllerConfiguration) -> Option<i64> {
    let period = config.sync_period_seconds();
    match &effective.spec.behavior {
        None => Some(period),
        Some(b) if b.scale_up.as_ref().is_some_and(is_default_scale_up) => {
            let policy_period =
                defaults::default_scale_up_policies().iter().map(|p| i64::from(p.period_seconds)).max()?;
            Some(period * ((policy_period + period - 1) / period))
        }
        Some(_) => None,
    }
}

impl Rule for SlowScaleUp {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        if !cx.errors.is_empty() {
            return;
        }
        let spec = &cx.effective.spec;
        let min = spec.min_replicas.unwrap_or(1).max(1);
        if spec.max_replicas <= min {
            return;
        }
        let bound = cx.settings.max_scale_up_seconds;
        // Skip the simulation when the count at least doubles every `doubling` seconds and 31
        // doublings, which reach any int32 count, are in bounds.
        if doubling_seconds(cx.effective, &cx.settings.controller).is_some_and(|doubling| 31 * doubling <= bound) {
            return;
        }
        let run = timing::fastest_scale_up(cx.effective, &cx.settings.controller);
        let path = if cx.written.spec.behavior.as_ref().is_some_and(|b| b.scale_up.is_some()) {
            "spec.behavior.scaleUp"
        } else {
            "spec.maxReplicas"
        };
        match run.seconds {
            None => out.push(
                Finding::new(
                    &Self::META,
                    path,
                    format!("the HPA can never scale from {min} to {} replicas (stuck at {})", spec.max_replicas, run.path().last().copied().unwrap_or(min)),
                )
                .help(cx.help_in_v2("allow scale-up (selectPolicy Max or Min with a non-zero policy)")),
            ),
            Some(s) if s > bound => out.push(
                Finding::new(
                    &Self::META,
                    path,
                    format!(
                        "scaling from {min} to {} replicas takes at least {s} s ({} syncs), more than {bound} s",
                        spec.max_replicas, run.syncs
                    ),
                )
                .help(cx.help_in_v2(
                    "allow faster growth (a Percent policy, a larger step, a shorter scale-up window); see `hpa-lint explain`",
                )),
            ),
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::api::v2::{HPAScalingPolicy, HorizontalPodAutoscalerBehavior};
    use crate::test_support::hpa_scaling as hpa;

    /// The simulation the rule skips ends within 31 doublings ([`doubling_seconds`]), and
    /// default scale-up rules spelled out (policies in either order) run as those kube-apiserver
    /// fills in: over sync periods (below, at and above the policies' 15 s), replica ranges, the
    /// legacy path and scale-down rules. (Before, the default rules were taken to double every
    /// sync: with a 1 s sync period, 2 to 50 replicas takes 60 s, not at most 31.)
    #[test]
    fn skipped_simulations_end_within_31_doublings() {
        let pods = HPAScalingPolicy { type_: "Pods".into(), value: 4, period_seconds: 15 };
        let percent = HPAScalingPolicy { type_: "Percent".into(), value: 100, period_seconds: 15 };
        let downs = [
            None,
            Some(defaults::scale_down_rules(None)),
            Some(HPAScalingRules { stabilization_window_seconds: Some(0), ..defaults::scale_down_rules(None) }),
            Some(HPAScalingRules { select_policy: Some("Disabled".into()), ..defaults::scale_down_rules(None) }),
        ];
        let mut runs = 0;
        for period in [1u64, 2, 4, 5, 7, 10, 14, 15, 16, 20, 30, 60] {
            let config = HPAControllerConfiguration { sync_period: Duration::from_secs(period), ..Default::default() };
            for (min, max) in [(1, 2), (1, 5), (1, 10), (2, 50), (3, 1000), (7, 100_000), (1, 1_000_000_000)] {
                let run = |behavior: Option<HorizontalPodAutoscalerBehavior>| {
                    let h = hpa(min, max, behavior);
                    let doubling = doubling_seconds(&h, &config);
                    let run = timing::fastest_scale_up(&h, &config);
                    let within = run.seconds.zip(doubling).is_some_and(|(s, d)| s <= 31 * d);
                    assert!(within, "{period} s, {min}..{max}: {:?} in {doubling:?}", run.seconds);
                    (run.seconds, run.path())
                };
                run(None);
                runs += 1;
                for down in &downs {
                    let behavior =
                        |up| Some(HorizontalPodAutoscalerBehavior { scale_up: up, scale_down: down.clone() });
                    let filled = run(behavior(Some(defaults::scale_up_rules(None))));
                    for policies in [vec![pods.clone(), percent.clone()], vec![percent.clone(), pods.clone()]] {
                        let spelled = HPAScalingRules { policies: Some(policies), ..defaults::scale_up_rules(None) };
                        assert!(is_default_scale_up(&spelled));
                        assert_eq!(run(behavior(Some(spelled))), filled);
                        runs += 1;
                    }
                }
            }
        }
        assert_eq!(runs, 12 * 7 * (1 + 4 * 2));
    }

    /// Any other scale-up rules are simulated.
    #[test]
    fn other_scale_up_rules_are_not_the_defaults() {
        let default = defaults::scale_up_rules(None);
        let with = |f: fn(&mut HPAScalingRules)| {
            let mut r = default.clone();
            f(&mut r);
            is_default_scale_up(&r)
        };
        assert!(is_default_scale_up(&default));
        assert!(!with(|r| r.stabilization_window_seconds = Some(60)));
        assert!(!with(|r| r.stabilization_window_seconds = None));
        assert!(!with(|r| r.select_policy = Some("Min".into())));
        assert!(!with(|r| r.tolerance = Some(crate::api::quantity::Quantity::from_milli(50))));
        assert!(!with(|r| r.policies = None));
        assert!(!with(|r| r.policies = Some(Vec::new())));
        assert!(!with(|r| r.policies.iter_mut().flatten().for_each(|p| p.period_seconds = 16)));
        assert!(!with(|r| {
            if let Some(ps) = &mut r.policies {
                ps[1] = ps[0].clone();
            }
        }));
        assert!(!with(|r| r.policies.iter_mut().for_each(|ps| ps.push(ps[0].clone()))));
    }
}
