//! HPA304 `policy-period-below-sync-period`: a rate limit that limits nothing over time.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A scaling policy whose `periodSeconds` is shorter than the controller's sync period
    /// (`--horizontal-pod-autoscaler-sync-period`, 15 s; `controller.syncPeriodSeconds` in
    /// `.hpa-lint.yaml`).
    ///
    /// ## Why it matters
    ///
    /// A policy limits the change within its period, counted from the scale events of earlier syncs.
    /// With a period shorter than the time between two syncs, no earlier event is ever inside it: the
    /// policy allows its full step at every sync, so `{type: Pods, value: 1, periodSeconds: 5}` means
    /// one pod per 15 s, not per 5 s, and `{type: Percent, value: 10, periodSeconds: 1}` compounds
    /// 10 % at every sync. The manifest promises a rate the controller does not apply.
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
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleDown:
    ///       policies:
    ///       - {type: Pods, value: 1, periodSeconds: 5}
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
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   behavior:
    ///     scaleDown:
    ///       policies:
    ///       - {type: Pods, value: 4, periodSeconds: 60}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Express the rate over a period of at least the sync period: `{type: Pods, value: 4,
    /// periodSeconds: 60}` for four pods a minute.
    pub struct PolicyPeriodBelowSyncPeriod {
        id: "HPA304",
        name: "policy-period-below-sync-period",
        severity: Info,
        summary: "a scaling policy's period is shorter than the controller's sync period",
        needs_objects: false,
    }
}

impl Rule for PolicyPeriodBelowSyncPeriod {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let sync = cx.settings.controller.sync_period_seconds();
        let Some(b) = &cx.written.spec.behavior else { return };
        for (dir, rules) in [("scaleUp", &b.scale_up), ("scaleDown", &b.scale_down)] {
            let Some(policies) = rules.as_ref().and_then(|r| r.policies.as_ref()) else { continue };
            for (i, p) in policies.iter().enumerate() {
                if p.period_seconds > 0 && i64::from(p.period_seconds) < sync {
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("spec.behavior.{dir}.policies[{i}].periodSeconds"),
                            format!(
                                "a {} s period is shorter than the {sync} s sync period: the policy allows its full step at every sync",
                                p.period_seconds
                            ),
                        )
                        .help(cx.help_in_v2(&format!("use a period of at least {sync} s"))),
                    );
                }
            }
        }
    }
}
