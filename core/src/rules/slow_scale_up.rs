//! HPA302 `slow-scale-up`: reaching maxReplicas takes too long (or never happens).

use super::{Context, Finding, Rule, RuleMeta};
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
        // With the default scale-up rules (or the legacy doubling), the count at least doubles
        // every sync: 31 syncs reach any int32 count. Skip the simulation when that is in bounds.
        let period = cx.settings.controller.sync_period_seconds();
        let default_rules = cx.written.spec.behavior.as_ref().is_none_or(|b| b.scale_up.is_none());
        if default_rules && 31 * period <= bound {
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
