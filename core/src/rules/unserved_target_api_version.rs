//! HPA405 `unserved-target-api-version`: a scale target apiVersion that is not served.

use super::{Context, Finding, Rule, RuleMeta, SCALABLE_KINDS, Severity};
use crate::api::GroupVersion;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.apiVersion` of a built-in workload kind against the versions Kubernetes
    /// serves: `apps/v1` for Deployment, StatefulSet and ReplicaSet, `v1` for
    /// ReplicationController.
    ///
    /// ## Why it matters
    ///
    /// The controller looks the target up by API group and kind, ignoring the version. A wrong group
    /// (`extensions/v1beta1` for a Deployment, not served since 1.16) finds nothing:
    /// `FailedGetScale`, no scaling; those findings are errors. A right group with a version that
    /// does not exist (`apps/v1beta3`, `apps/v2`) still works, but it misleads readers and other
    /// tools (a warning). Versions the kind was once served in (`apps/v1beta1`, `apps/v1beta2`) are
    /// not reported: they name the right group.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: extensions/v1beta1, kind: Deployment, name: web}
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
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use `apiVersion: apps/v1` (`v1` for a ReplicationController).
    pub struct UnservedTargetApiVersion {
        id: "HPA405",
        name: "unserved-target-api-version",
        severity: Warning,
        summary: "the scale target's apiVersion is not served for its kind",
        needs_objects: false,
    }
}

impl Rule for UnservedTargetApiVersion {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let t = &cx.effective.spec.scale_target_ref;
        let Some((kind, served)) = SCALABLE_KINDS.iter().find(|(k, _)| *k == t.kind) else { return };
        // An empty apiVersion is a validation error already (HPA000). A version the kind was
        // once served in still names the right group, and the controller uses only the group.
        if t.api_version.is_empty() || served.contains(&t.api_version.as_str()) || retired(kind, &t.api_version) {
            return;
        }
        let Ok(group) = GroupVersion::parse(&t.api_version).map(GroupVersion::group) else { return };
        let Ok(served_group) = GroupVersion::parse(served[0]).map(GroupVersion::group) else { return };
        let mut f = Finding::new(&Self::META, "spec.scaleTargetRef.apiVersion", String::new())
            .help(format!("use `apiVersion: {}`", served[0]));
        if group != served_group {
            f.severity = Severity::Error;
            f.message = format!(
                "{kind} is not served in group {:?} ({}): the controller cannot find the target",
                group, t.api_version
            );
        } else {
            f.message = format!(
                "{} is not a version of {kind} (a typo?); the controller only uses the group, so it works, but write {}",
                t.api_version, served[0]
            );
        }
        out.push(f);
    }
}

/// Versions a kind was served in by earlier releases, in its current group.
fn retired(kind: &str, api_version: &str) -> bool {
    match kind {
        "Deployment" | "StatefulSet" => matches!(api_version, "apps/v1beta1" | "apps/v1beta2"),
        "ReplicaSet" => api_version == "apps/v1beta2",
        _ => false,
    }
}
