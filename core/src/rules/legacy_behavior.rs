//! HPA305 `legacy-behavior`: an HPA without `behavior` follows the legacy rules.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// An HPA without `spec.behavior` (every autoscaling/v1 HPA without the behavior
    /// annotation).
    ///
    /// ## Why it matters
    ///
    /// Without `behavior` the controller follows its legacy rules: scale-up by at most
    /// `max(2 × current, 4)` replicas per sync, toward the highest recommendation of the last
    /// 5 minutes: it holds scale-down back, and it keeps scale-up going. A short burst therefore keeps the HPA scaling up
    /// after the load is gone (2 → 4 → 8 → 10 in a publicly reported run), and the scale-down,
    /// when it comes, goes straight to the minimum. Setting `behavior` (even `{}`) switches to
    /// the behavior rules, which never overshoot the current recommendation.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// spec:
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics: [...]
    ///   # no behavior
    /// ```
    ///
    /// ## How to fix
    ///
    /// Add a `behavior` that says how fast to scale in each direction; `hpa-lint explain`
    /// shows what the current rules mean in time.
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
                    "no spec.behavior: the legacy rules apply (at most max(2×current, 4) replicas per sync, toward the highest recommendation of the last 5 minutes, even after the load is gone)",
                )
                .help("add spec.behavior to choose scaling windows and rates; run `hpa-lint explain` to see the current ones"),
            );
        }
    }
}
