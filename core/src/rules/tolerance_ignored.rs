//! HPA306 `tolerance-ignored`: a per-direction tolerance kube-apiserver drops or the controller
//! ignores.

use super::{Context, Finding, Rule, RuleMeta};
use crate::admission::Operation;
use crate::evaluator::config::TOLERANCE_FLAG;
use crate::features::{FeatureGates, Gate};

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
    /// updates, unless the stored object already has a tolerance): no error, no warning. An HPA
    /// stored while the gate was on keeps its tolerance on every update (`dropDisabledFields`:
    /// `toleranceInUse`), so a live HPA, checked as an update onto itself, can carry one; the
    /// finding then says kube-apiserver keeps it. Either way the controller ignores it
    /// (`tolerancesForHpa`): the HPA runs with the controller's global tolerance
    /// (`--horizontal-pod-autoscaler-tolerance`, 10 %) both ways while its manifest says
    /// otherwise, and every sync from a GitOps tool shows a difference.
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
        summary: "a tolerance is set while HPAConfigurableTolerance is off, so it is dropped or ignored",
        needs_objects: false,
    }
}

impl Rule for ToleranceIgnored {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let controller = &cx.settings.controller;
        let written = controller.tolerances_for_hpa(cx.written.spec.behavior.as_ref());
        // What kube-apiserver stores: on an UPDATE onto an object that already uses a
        // tolerance, `dropDisabledFields` keeps the new one (`toleranceInUse(old)`).
        let stored = controller.tolerances_for_hpa(cx.effective.spec.behavior.as_ref());
        for (direction, kept) in written.directions().into_iter().zip(stored.directions()) {
            if direction.ignored().is_none() {
                continue;
            }
            let message = if cx.operation == Operation::Update && kept.written.is_some() {
                format!(
                    "HPAConfigurableTolerance is off: kube-apiserver keeps this tolerance, as the stored object already has one, but the controller ignores it and uses its global tolerance ({TOLERANCE_FLAG}={}) both ways",
                    controller.tolerance
                )
            } else {
                format!(
                    "HPAConfigurableTolerance is off: kube-apiserver drops this tolerance silently and the controller's global tolerance ({}) applies",
                    controller.tolerance
                )
            };
            out.push(
                Finding::new(&Self::META, format!("spec.behavior.{}.tolerance", direction.field), message)
                    .help("enable the HPAConfigurableTolerance feature gate, or remove the field"),
            );
        }
    }

    /// Whether `HPAConfigurableTolerance` is on, and why.
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        let gate = Gate::HPAConfigurableTolerance;
        let locked = gate.spec(gates.version()).is_some_and(|s| s.locked);
        Some(if gates.enabled(gate) && locked {
            "HPAConfigurableTolerance is GA and locked on: the rule never reports".into()
        } else if gates.enabled(gate) {
            "HPAConfigurableTolerance is on: the rule reports nothing unless the gate is turned off".into()
        } else {
            "the rule reports every `behavior` tolerance (HPAConfigurableTolerance off)".into()
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::api::VersionedHpa;
    use crate::check::{self, Input, Options, Written};
    use crate::features::{FeatureGates, KubernetesVersion};
    use crate::test_support::hpa_with_scale_up_tolerance as hpa;

    /// HPA306's messages for `object` on 1.33 (gate off by default), as a CREATE or as an
    /// UPDATE onto `old`.
    fn messages(object: VersionedHpa, old: Option<VersionedHpa>) -> Vec<(String, String)> {
        let opts = Options::for_gates(FeatureGates::new(KubernetesVersion::V1_33));
        let input =
            Input { object: Written::Decoded(Box::new(object)), old, id: None, world: None, duplicate_keys: &[] };
        let report = check::check(input, &opts);
        assert!(report.allowed(), "{:?}", report.message());
        crate::rules::hpa_findings(report.findings, "HPA306")
    }

    const DROPPED: &str = "HPAConfigurableTolerance is off: kube-apiserver drops this tolerance silently and the controller's global tolerance (0.1) applies";

    #[test]
    fn on_create_kube_apiserver_drops_the_tolerance() {
        assert_eq!(messages(hpa(Some("0.02")), None), [("spec.behavior.scaleUp.tolerance".into(), DROPPED.into())]);
        assert!(messages(hpa(None), None).is_empty());
    }

    #[test]
    fn on_update_of_a_stored_tolerance_kube_apiserver_keeps_it_and_the_controller_ignores_it() {
        // The stored object uses a tolerance (`toleranceInUse(old)`): the new one is kept.
        assert_eq!(
            messages(hpa(Some("0.02")), Some(hpa(Some("0.05")))),
            [(
                "spec.behavior.scaleUp.tolerance".into(),
                "HPAConfigurableTolerance is off: kube-apiserver keeps this tolerance, as the stored object already has one, but the controller ignores it and uses its global tolerance (--horizontal-pod-autoscaler-tolerance=0.1) both ways".into()
            )]
        );
        // The stored object has none: the update loses it, as a create does.
        assert_eq!(
            messages(hpa(Some("0.02")), Some(hpa(None))),
            [("spec.behavior.scaleUp.tolerance".into(), DROPPED.into())]
        );
    }
}
