//! HPA306 `tolerance-ignored`: a per-direction tolerance the cluster drops.

use super::{Context, Finding, Rule, RuleMeta};
use crate::features::Gate;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.behavior.scaleUp.tolerance` or `scaleDown.tolerance` (in `autoscaling/v1`, inside the
    /// behavior annotation) while the feature gate `HPAConfigurableTolerance` is off. Whether it
    /// reports depends on the release: on Kubernetes 1.33 and 1.34 the gate is alpha and off by
    /// default, so every tolerance is reported; on 1.35 and 1.36 it is beta and on, so only
    /// clusters that switched it off are concerned; from 1.37 it is GA and locked on, and the rule
    /// never reports. The examples below assume `kubernetesVersion: "1.36"` with
    /// `featureGates: {HPAConfigurableTolerance: false}` (or 1.33/1.34 with their defaults).
    ///
    /// ## Why it matters
    ///
    /// With the gate off, kube-apiserver drops the field silently when the HPA is created (and on
    /// updates, unless the stored object already has a tolerance): no error, no warning. The HPA
    /// runs with the controller's global tolerance (`--horizontal-pod-autoscaler-tolerance`, 10 %)
    /// while its manifest says otherwise, and every sync from a GitOps tool shows a difference.
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
    ///     scaleUp:
    ///       tolerance: "0.02"
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
    /// ```
    ///
    /// ## How to fix
    ///
    /// Enable the gate on kube-apiserver and kube-controller-manager, or remove the field (and tune
    /// the target value instead).
    pub struct ToleranceIgnored {
        id: "HPA306",
        name: "tolerance-ignored",
        severity: Warning,
        summary: "a tolerance is set while HPAConfigurableTolerance is off, so it is dropped",
        needs_objects: false,
    }
}

impl Rule for ToleranceIgnored {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        if cx.settings.gates.enabled(Gate::HPAConfigurableTolerance) {
            return;
        }
        let Some(b) = &cx.written.spec.behavior else { return };
        for (dir, rules) in [("scaleUp", &b.scale_up), ("scaleDown", &b.scale_down)] {
            if rules.as_ref().is_some_and(|r| r.tolerance.is_some()) {
                out.push(
                    Finding::new(
                        &Self::META,
                        format!("spec.behavior.{dir}.tolerance"),
                        format!(
                            "HPAConfigurableTolerance is off: kube-apiserver drops this tolerance silently and the controller's global tolerance ({}) applies",
                            cx.settings.controller.tolerance
                        ),
                    )
                    .help("enable the HPAConfigurableTolerance feature gate, or remove the field"),
                );
            }
        }
    }
}
