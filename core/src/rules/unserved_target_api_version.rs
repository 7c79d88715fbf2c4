//! HPA405 `unserved-target-api-version`: a scale target (or described object) apiVersion that is
//! not served.

use super::unscalable_target_kind::has_no_scale;
use super::{Context, Finding, Rule, RuleMeta, SCALABLE_KINDS, Severity, unmapped_scale_target};
use crate::api::GroupVersion;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `spec.scaleTargetRef.apiVersion` of a built-in workload kind against the versions Kubernetes
    /// serves: `apps/v1` for Deployment, StatefulSet and ReplicaSet, `v1` for
    /// ReplicationController. And the `describedObject.apiVersion` of each `Object` metric of a
    /// built-in kind (those, and Ingress in `networking.k8s.io/v1`; Service, Pod and Namespace in
    /// `v1`; DaemonSet in `apps/v1`; Job and CronJob in `batch/v1`): an Ingress written
    /// `extensions/v1beta1`, as older charts do. Every release from 1.33 to 1.38 judges alike:
    /// these groups went away before 1.33. And a scale target of any other kind written in one
    /// of Kubernetes' own groups without a dot in its name (the core group, `apps`, `batch`,
    /// `autoscaling`, `policy`, `extensions`) that does not serve it, such as an Argo `Rollout`
    /// written `apps/v1`: a custom resource's API group must contain a dot, so none is ever
    /// served there (an error; the help names the `apiVersion` of the object
    /// of that kind and name among the checked manifests, or `argoproj.io/v1alpha1` for a
    /// Rollout). A kind without a `scale` subresource is HPA402's. A custom resource's version
    /// is not judged: the controller finds it in any version its group serves. The core group
    /// written `core/v1` (as RBAC names it; kube-apiserver takes it from 1.34, which asks for a
    /// group) is no group the controller knows either: discovery names the core group `""`, so a
    /// ReplicationController of `core/v1` is never found, and no other rule reads it as the
    /// HPA's target.
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
    /// The custom metrics client maps a described object to its resource the same way, by group
    /// and kind (`qualResourceForKind` in `k8s.io/metrics/pkg/client/custom_metrics`): in a group
    /// that does not serve the kind it fails with `unable to map kind Ingress.extensions to
    /// resource`, and the metric never has a value (`FailedGetObjectMetric`), an error.
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
    /// Use `apiVersion: apps/v1` (`v1` for a ReplicationController); for a described object, the
    /// version its kind is served in (`networking.k8s.io/v1` for an Ingress).
    pub struct UnservedTargetApiVersion {
        id: "HPA405",
        name: "unserved-target-api-version",
        severity: Warning,
        summary: "the scale target's or a described object's apiVersion is not served for its kind",
        needs_objects: false,
    }
}

impl Rule for UnservedTargetApiVersion {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let t = &cx.effective.spec.scale_target_ref;
        // An empty apiVersion is a validation error already (HPA000).
        if !t.api_version.is_empty()
            && let Some((kind, served)) = SCALABLE_KINDS.iter().find(|(k, _)| *k == t.kind)
            && let Some(mut f) = judge(kind, served, &t.api_version, "spec.scaleTargetRef.apiVersion")
        {
            if f.severity == Severity::Error {
                f.message.push_str(": the controller cannot find the target");
            }
            out.push(f);
        } else if !t.api_version.is_empty()
            && !has_no_scale(&t.api_version, &t.kind)
            && super::scalable_group(&t.kind).is_none()
            && unmapped_scale_target(&t.api_version, &t.kind)
            && !is_served_in_another_case(&t.api_version, &t.kind)
        {
            out.push(unserved_kind(cx, &t.kind, &t.api_version, &t.name));
        }
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            let Some(o) = m.object.as_deref().filter(|_| m.type_ == "Object") else { continue };
            let d = &o.described_object;
            // An empty apiVersion is allowed here and names the core group.
            let Some((kind, served)) = SCALABLE_KINDS.iter().chain(DESCRIBED_KINDS).find(|(k, _)| *k == d.kind) else {
                continue;
            };
            let path = format!("spec.metrics[{i}].object.describedObject.apiVersion");
            let Some(mut f) = judge(kind, served, &d.api_version, &path) else { continue };
            if f.severity == Severity::Error {
                let group = GroupVersion::parse_or_empty(&d.api_version).group().to_string();
                let group_kind = if group.is_empty() { d.kind.to_string() } else { format!("{}.{group}", d.kind) };
                f.message.push_str(&format!(
                    ": the controller cannot read metric {:?} (FailedGetObjectMetric: \"unable to map kind {group_kind} to resource\")",
                    o.metric.name
                ));
            }
            out.push(f);
        }
    }
}

/// The error for a scale target whose kind `kind` the group of `api_version`, one of Kubernetes'
/// own without a dot in its name, does not serve ([`super::dotless_group_lacks`]: an Argo
/// `Rollout` written `apps/v1`). The help names the `apiVersion` of the workload of that kind
/// and name the set holds in the HPA's namespace, if any, else the one of a well-known kind.
fn unserved_kind(cx: &Context<'_>, kind: &str, api_version: &str, name: &str) -> Finding {
    let group = GroupVersion::parse_or_empty(api_version).group();
    let message = format!(
        "{kind} is not served in group {group:?} ({api_version}): the controller cannot find the target (a group without a dot is one of Kubernetes' own, which no CustomResourceDefinition extends)"
    );
    // Of any group but the one written (a scan of the namespace: only a refused target asks).
    let in_set = cx.objects.and_then(|o| {
        let mut found = o.workloads_of(cx.scale_target_namespace()).into_iter().filter(|w| {
            w.id.kind == kind && w.id.name == name && GroupVersion::parse_or_empty(&w.id.api_version).group() != group
        });
        found.next().map(|w| w.id.api_version.clone())
    });
    let known = WELL_KNOWN_KINDS.iter().find(|(k, _)| *k == kind).map(|(_, v)| (*v).to_string());
    let help = match in_set.or(known) {
        Some(v) => format!("use `apiVersion: {v}`"),
        // A misspelled kind (`deployments`) as much as a wrong group: name what the group has.
        None => match super::dotless_group_kinds(group) {
            Some(kinds) if !group.is_empty() && !kinds.is_empty() => format!(
                "correct the kind (group {group:?} serves {}), or use the apiVersion of the API group that serves {kind}",
                super::and_list(&kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>())
            ),
            _ => format!("correct the kind, or use the apiVersion of the API group that serves {kind}"),
        },
    };
    let mut f = Finding::new(&UnservedTargetApiVersion::META, "spec.scaleTargetRef.apiVersion", message).help(help);
    f.severity = Severity::Error;
    f
}

/// Whether the group of `api_version` serves `kind` in another case (`statefulset`): HPA404's
/// finding, not this rule's.
fn is_served_in_another_case(api_version: &str, kind: &str) -> bool {
    let group = GroupVersion::parse_or_empty(api_version).group();
    super::dotless_group_kinds(group).is_some_and(|kinds| kinds.iter().any(|k| k.eq_ignore_ascii_case(kind)))
}

/// Scale target kinds of well-known custom resources, with the `apiVersion` to write.
const WELL_KNOWN_KINDS: &[(&str, &str)] =
    &[("Rollout", "argoproj.io/v1alpha1"), ("DeploymentConfig", "apps.openshift.io/v1")];

/// The built-in kinds an `Object` metric commonly describes, besides [`SCALABLE_KINDS`], with
/// the versions they are served in (the first is the one to write).
const DESCRIBED_KINDS: &[(&str, &[&str])] = &[
    ("Ingress", &["networking.k8s.io/v1"]),
    ("Service", &["v1", ""]),
    ("Pod", &["v1", ""]),
    ("Namespace", &["v1", ""]),
    ("DaemonSet", &["apps/v1"]),
    ("Job", &["batch/v1"]),
    ("CronJob", &["batch/v1"]),
];

/// The finding for `api_version` of `kind` at `path`, if it is not one of the `served` versions
/// (nor one the kind was once served in): an error when the group differs, since the controller
/// maps group and kind to a resource and ignores the version (the message then says what fails
/// after its colon), a warning for a version of the right group that never existed.
fn judge(kind: &str, served: &[&str], api_version: &str, path: &str) -> Option<Finding> {
    if served.contains(&api_version) || retired(kind, api_version) {
        return None;
    }
    let group = GroupVersion::parse(api_version).map(GroupVersion::group).ok()?;
    let served_group = GroupVersion::parse(served.first()?).map(GroupVersion::group).ok()?;
    let mut f = Finding::new(&UnservedTargetApiVersion::META, path, String::new())
        .help(format!("use `apiVersion: {}`", served[0]));
    if group != served_group {
        f.severity = Severity::Error;
        let written = if api_version.is_empty() { "no apiVersion" } else { api_version };
        f.message = format!("{kind} is not served in group {group:?} ({written})");
    } else {
        f.message = format!(
            "{api_version} is not a version of {kind} (a typo?); the controller only uses the group, so it works, but write {}",
            served[0]
        );
    }
    Some(f)
}

/// Versions a kind was served in by earlier releases, in its current group.
fn retired(kind: &str, api_version: &str) -> bool {
    match kind {
        "Deployment" | "StatefulSet" => matches!(api_version, "apps/v1beta1" | "apps/v1beta2"),
        "ReplicaSet" | "DaemonSet" => api_version == "apps/v1beta2",
        "Ingress" => api_version == "networking.k8s.io/v1beta1",
        "CronJob" => matches!(api_version, "batch/v1beta1" | "batch/v2alpha1"),
        _ => false,
    }
}
