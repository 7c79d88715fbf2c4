//! HPA305 `legacy-behavior`: an HPA without `behavior` follows the legacy rules.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// An HPA without `spec.behavior` (in `autoscaling/v1`, without the
    /// `autoscaling.alpha.kubernetes.io/behavior` annotation). The rule is opt-in: it flags most
    /// HPAs written before `behavior` existed.
    ///
    /// ## Why it matters
    ///
    /// Without `behavior` the controller follows its legacy rules: at each sync it scales toward the
    /// highest recommendation of the last 5 minutes
    /// (`--horizontal-pod-autoscaler-downscale-stabilization`), up to at most `max(2 × current, 4)`
    /// replicas. That maximum holds scale-down back, but it also keeps scale-up going: after a short
    /// burst the HPA goes on scaling up while the load is gone (2 → 4 → 8 → 10 in a publicly reported
    /// run), and when the burst leaves the window it drops in one step, with no rate limit. With
    /// `behavior` set (even `{}`) the controller uses the behavior rules, which never go beyond the
    /// current recommendation and which you can tune per direction.
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
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
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
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleUp:
    ///       stabilizationWindowSeconds: 0
    ///       policies:
    ///       - {type: Percent, value: 100, periodSeconds: 15}
    ///     scaleDown:
    ///       stabilizationWindowSeconds: 300
    ///       policies:
    ///       - {type: Percent, value: 20, periodSeconds: 60}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Add a `behavior` that says how fast to scale in each direction; `hpa-lint explain` shows what
    /// the current rules mean in time. Enable the rule with `--select HPA305` or
    /// `rules: {HPA305: info}` in `.hpa-lint.yaml`.
    pub struct LegacyBehavior {
        id: "HPA305",
        name: "legacy-behavior",
        severity: Info,
        summary: "without spec.behavior the controller follows its legacy scaling rules",
        needs_objects: false,
        enabled_by_default: false,
    }
}

impl Rule for LegacyBehavior {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        if cx.written.spec.behavior.is_none() {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec",
                    "no spec.behavior: the legacy rules apply (each sync scales toward the highest recommendation of the last 5 minutes, up to max(2×current, 4) replicas, so scale-up goes on after the load is gone)",
                )
                .help(cx.help_in_v2(
                    "add spec.behavior to choose scaling windows and rates; run `hpa-lint explain` to see the current ones",
                )),
            );
        }
    }
}
