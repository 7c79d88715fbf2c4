//! HPA306 `tolerance-ignored`: a per-direction tolerance the cluster drops.

use super::{Context, Finding, Rule, RuleMeta};
use crate::features::Gate;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.behavior.scaleUp.tolerance` or `scaleDown.tolerance` while the feature gate
    /// `HPAConfigurableTolerance` is off (it is alpha, off, before 1.35; beta from 1.35; GA in
    /// 1.37).
    ///
    /// ## Why it matters
    ///
    /// kube-apiserver drops the field silently on create (no error, no warning), so the HPA
    /// runs with the controller's global tolerance (10 %) while its manifest says otherwise.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// behavior:
    ///   scaleUp:
    ///     tolerance: 0.02
    /// ```
    ///
    /// ## How to fix
    ///
    /// Enable the gate on kube-apiserver and kube-controller-manager, or remove the field.
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
                        "HPAConfigurableTolerance is off: kube-apiserver drops this tolerance silently and the global 10 % applies",
                    )
                    .help("enable the HPAConfigurableTolerance feature gate, or remove the field"),
                );
            }
        }
    }
}
