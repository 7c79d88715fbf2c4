//! HPA303 `short-scale-down-window`: scale-down that reacts to every dip (flapping).

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A scale-down stabilization window shorter than `settings.minScaleDownWindowSeconds` in
    /// `.hpa-lint.yaml` (60 by default), when `spec.behavior` is set and scale-down is enabled. The
    /// window is the one the controller uses: an omitted `stabilizationWindowSeconds` is the
    /// `--horizontal-pod-autoscaler-downscale-stabilization` flag (300 s). Without `behavior` the
    /// controller always uses that flag, and the rule says nothing.
    ///
    /// ## Why it matters
    ///
    /// Metrics are noisy. The window makes the controller scale down only to the highest
    /// recommendation of its last minutes; without one it removes pods at the first sync with low
    /// usage and adds them back at the next peak: pods churn, caches go cold, and latency suffers
    /// (thrashing, or flapping).
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
    ///       stabilizationWindowSeconds: 0
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
    ///       stabilizationWindowSeconds: 300
    ///       policies:
    ///       - {type: Percent, value: 50, periodSeconds: 60}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Keep a scale-down window of a few minutes (the default 300 s is a good start; omitting the
    /// field uses it), and use policies to limit how fast replicas go away.
    pub struct ShortScaleDownWindow {
        id: "HPA303",
        name: "short-scale-down-window",
        severity: Info,
        summary: "the scale-down stabilization window is so short that the HPA flaps",
        needs_objects: false,
    }
}

impl Rule for ShortScaleDownWindow {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(behavior) = cx.settings.controller.effective_behavior(cx.effective) else { return };
        let Some(down) = behavior.scale_down else { return };
        if down.select_policy.as_deref() == Some("Disabled") {
            return;
        }
        let window = down.stabilization_window_seconds.unwrap_or(0);
        let bound = cx.settings.min_scale_down_window_seconds;
        if window < bound {
            let written = cx
                .written
                .spec
                .behavior
                .as_ref()
                .and_then(|b| b.scale_down.as_ref())
                .is_some_and(|r| r.stabilization_window_seconds.is_some());
            let path = if written { "spec.behavior.scaleDown.stabilizationWindowSeconds" } else { "spec.behavior" };
            out.push(
                Finding::new(
                    &Self::META,
                    path,
                    format!("a {window} s scale-down window removes pods at the first dip in load (less than {bound} s): the HPA will flap"),
                )
                .help(cx.help_in_v2("use a scale-down stabilizationWindowSeconds of a few minutes (300 is the default)")),
            );
        }
    }
}
