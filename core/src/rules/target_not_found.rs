//! HPA403 `target-not-found`: the scale target is not where the HPA is checked against.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// That the object named by `spec.scaleTargetRef` (kind, name, in the HPA's namespace, or in
    /// none for a kind without namespaces: a Namespace, a ClusterRole, ...) exists where the HPA
    /// is checked (kube-linter `dangling-hpa`, kube-score's HPA target check, Gatekeeper's
    /// scale-target constraint), and the message says where it was looked for:
    ///
    /// - in files, among the manifests being checked (`no Deployment shop/web among the checked
    ///   manifests`);
    /// - with `hpa-lint cluster`, in the cluster (`no Deployment shop/web in the cluster`), only
    ///   where the target's kind was read whole: a list of its kind in its namespace that RBAC
    ///   refused or the API server failed on, the CustomResourceDefinitions unread (no
    ///   custom-resource target is then read), or a custom-resource target whose `GET` was
    ///   refused or failed is a note saying what was not read, not a finding;
    /// - in `hpa-webhook` (where `denyRules` names it), in the cluster as the API server answers
    ///   at admission (`no Deployment shop/web in the cluster`): a target of a kind its context
    ///   cache watches and RBAC lets it read (no custom resource but Argo Rollouts) that the
    ///   cache lacks is asked for with one LIST by name, a custom-resource target with one `GET`;
    ///   when the API server does not answer, from the cache alone (`no Deployment shop/web in
    ///   the cluster (as hpa-webhook's context cache sees it)`), which never denies.
    ///
    /// The target is looked for in the API group `apiVersion` names, as the controller's
    /// RESTMapper looks (the version aside): a Rollout of `argoproj.io` in the set is not the
    /// target of an HPA that names `example.com/v1`. A kind in one of Kubernetes' own groups
    /// that does not serve it (`apps/v1` Rollout, `extensions/v1beta1` Deployment) is HPA405's,
    /// and a kind the set's (or the cluster's) CRD makes cluster-scoped, or spells in another
    /// case, HPA412's.
    ///
    /// The rule is opt-in and informational: the target may well be deployed from elsewhere.
    ///
    /// ## Why it matters
    ///
    /// A typo in the name or a rename of the workload leaves the HPA pointing at nothing; the
    /// controller reports `FailedGetScale` and nobody scales the real workload.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web-frontend}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 250m, memory: 256Mi}
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
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 250m, memory: 256Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Use the workload's exact name and namespace. Enable the rule with `--select HPA403`, or with
    /// a level (`rules: {HPA403: error}`) in `.hpa-lint.yaml` when every workload lives in the
    /// checked tree.
    pub struct TargetNotFound {
        id: "HPA403",
        name: "target-not-found",
        severity: Info,
        summary: "the scale target is not among the checked manifests or in the cluster",
        needs_objects: true,
        enabled_by_default: false,
    }
}

impl Rule for TargetNotFound {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        // A kind in a group that does not serve it is HPA405's finding: found or not, the
        // controller never reaches it.
        if t.kind.is_empty() || t.name.is_empty() || super::unmapped_scale_target(&t.api_version, &t.kind) {
            return;
        }
        let namespace = cx.scale_target_namespace();
        if cx.target_workload().is_some()
            || objects.workload_any_case(cx.scale_target_group(), &t.kind, namespace, &t.name).is_some()
        {
            return;
        }
        // A world that would not hold the target (a live view that watches no custom
        // resources, a list RBAC refused or the API server failed on, a `GET` that did not
        // answer) cannot tell a missing target.
        let group = crate::api::GroupVersion::parse_or_empty(&t.api_version).group();
        if !objects.would_hold(group, &t.kind, namespace, &t.name) {
            return;
        }
        // A kind its CustomResourceDefinition makes cluster-scoped is never in the HPA's
        // namespace, where the controller looks: HPA412's finding.
        if objects.custom_resource_definition(group, cx.scale_target_kind()).is_some_and(|c| c.cluster_scoped) {
            return;
        }
        // A kind its CustomResourceDefinition spells in another case, which the RESTMapper does
        // not map: HPA412's finding (as a built-in kind's is HPA404's).
        if objects
            .kind_any_case(group, &t.kind)
            .is_some_and(|k| !super::maps_kind(k, &t.kind) && objects.custom_resource_definition(group, k).is_some())
        {
            return;
        }
        // The same kind and name in another group: the apiVersion is what is wrong (a scan of
        // the namespace: only a missing target asks).
        let workloads = objects.workloads_of(namespace);
        let elsewhere = workloads.iter().filter(|w| w.id.kind == t.kind && w.id.name == t.name).min_by_key(|w| &w.id);
        let help = match elsewhere {
            Some(w) => format!(
                "a {} {} of apiVersion {} is there: write its apiVersion (the controller looks the target up by API group and kind)",
                w.id.kind, w.id.name, w.id.api_version
            ),
            None => {
                "check the name and namespace of the target, or ignore this when the workload is deployed elsewhere"
                    .into()
            }
        };
        out.push(
            Finding::new(&Self::META, "spec.scaleTargetRef.name", objects.source().absent(cx.scale_target()))
                .help(help),
        );
    }
}
