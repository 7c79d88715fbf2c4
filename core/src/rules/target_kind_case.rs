//! HPA404 `target-kind-case`: a scale target kind spelled in the wrong case.

use super::{Context, Finding, Rule, RuleMeta, SCALABLE_KINDS, Severity};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.kind` that is a built-in scalable kind written in another case
    /// (`Replicaset`, `DEPLOYMENT`, `statefulset`). kube-apiserver accepts any path segment. (A
    /// custom kind written in the wrong case is HPA412's: only its CRD tells its spelling.)
    ///
    /// ## Why it matters
    ///
    /// Kinds are case-sensitive: the controller finds no REST mapping for `Replicaset`, reports
    /// `FailedGetScale` at every sync, and never scales (an error). One spelling besides the
    /// kind's own maps: all lowercase (`statefulset`), which the controller's RESTMapper
    /// registers for every kind it discovers (`NewDiscoveryRESTMapper` in
    /// `k8s.io/client-go/restmapper` adds `strings.ToLower` of each kind). Such an HPA scales its
    /// target, and the other rules read it as that kind's (a warning: the API, `kubectl` and
    /// every tool that compares kinds as written, such as policy engines, name it `StatefulSet`).
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: db
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Statefulset, name: db}
    ///   minReplicas: 3
    ///   maxReplicas: 6
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
    ///   name: db
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
    ///   minReplicas: 3
    ///   maxReplicas: 6
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the kind exactly: `StatefulSet`.
    pub struct TargetKindCase {
        id: "HPA404",
        name: "target-kind-case",
        severity: Error,
        summary: "the scale target's kind has the wrong case",
        needs_objects: false,
    }
}

impl Rule for TargetKindCase {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let t = &cx.effective.spec.scale_target_ref;
        let kind = &t.kind;
        let Some((right, _)) = SCALABLE_KINDS.iter().find(|(k, _)| k.eq_ignore_ascii_case(kind) && *k != kind.as_str())
        else {
            return;
        };
        let group = crate::api::GroupVersion::parse_or_empty(&t.api_version).group();
        let finding = if super::mapped_kind(group, kind) == *right {
            let mut f = Finding::new(
                &Self::META,
                "spec.scaleTargetRef.kind",
                format!(
                    "{kind:?} is {right} in lower case: the controller finds the target all the same (its RESTMapper maps every kind's all-lowercase spelling), but the API and tools that compare kinds as written name it {right}"
                ),
            );
            f.severity = Severity::Warning;
            f
        } else {
            Finding::new(
                &Self::META,
                "spec.scaleTargetRef.kind",
                format!(
                    "kinds are case-sensitive: {kind:?} matches no resource, the controller cannot find the target"
                ),
            )
        };
        out.push(finding.help(format!("write `kind: {right}`")));
    }
}
