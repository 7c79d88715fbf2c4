//! HPA412 `unscalable-custom-resource`: a custom resource whose CustomResourceDefinition gives
//! the HPA controller no scale to read, or a scale without a selector.

use super::objects::{CrdVersion, CustomResourceDefinition};
use super::{Context, Finding, FindingField, Rule, RuleMeta};
use crate::api::GroupVersion;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The scale target is a custom resource whose CustomResourceDefinition is known, and the
    /// CRD's served versions either have no `subresources.scale`, or have one without
    /// `labelSelectorPath`. (When the served versions differ in this, the version the controller
    /// reads depends on the cluster's discovery, and nothing is reported.) Or the CRD is
    /// cluster-scoped (`spec.scope: Cluster`): `scaleTargetRef` has no namespace, and the
    /// controller reads the target's scale in the HPA's namespace
    /// (`/apis/<group>/<version>/namespaces/<ns>/<plural>/<name>/scale`, the scale client adding
    /// the namespace it was made for), a path the API server does not serve for a cluster-scoped
    /// resource: 404, at every version it tries (`scaleForResourceMappings`). Or the kind is
    /// the CRD's kind written in another case than its own or all lowercase (`Workerpool`,
    /// `WORKERPOOL` for `WorkerPool`; `workerpool` is the alias the controller's RESTMapper
    /// registers for every kind it discovers, and maps): kinds are case-sensitive, so the
    /// RESTMapper maps the reference to no resource (`no matches for kind "Workerpool" in group
    /// "example.com"`). HPA404 says this of Kubernetes' own kinds; a custom kind's spelling only
    /// its CRD tells.
    ///
    /// Where the CRD is read from: in files, the HPA's manifest set (a chart's CRDs rendered
    /// with `helm template --include-crds`, an operator's bundle); with `hpa-lint cluster`, the
    /// cluster's CRDs; in `hpa-webhook`, its context cache (`--context-cache`), which watches
    /// them. A CRD that is not there (not in the set, or a list RBAC refuses: a note of
    /// `hpa-lint cluster`, a warning of the webhook that it checked in part) reports nothing.
    ///
    /// ## Why it matters
    ///
    /// The HPA controller reaches any target through its `scale` subresource
    /// (`scaleForResourceMappings`): without one it fails at every sync (`AbleToScale` False,
    /// `FailedGetScale`) and never acts; so it does for a cluster-scoped target, which it looks
    /// for in the HPA's namespace, and for a kind its RESTMapper does not map. With one, it finds the pods to measure by the scale's
    /// `status.selector`, which a CRD fills only from `labelSelectorPath`; without it every sync
    /// stops there (`ScalingActive` False, `InvalidSelector`: "the HPA target's scale is missing
    /// a selector"), whatever the metric type. kube-apiserver accepts both HPAs.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: workers
    /// spec:
    ///   scaleTargetRef: {apiVersion: example.com/v1, kind: WorkerPool, name: workers}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: External
    ///     external:
    ///       metric: {name: queue_depth}
    ///       target: {type: AverageValue, averageValue: "30"}
    /// ---
    /// apiVersion: apiextensions.k8s.io/v1
    /// kind: CustomResourceDefinition
    /// metadata:
    ///   name: workerpools.example.com
    /// spec:
    ///   group: example.com
    ///   names: {kind: WorkerPool, plural: workerpools}
    ///   scope: Namespaced
    ///   versions:
    ///   - name: v1
    ///     served: true
    ///     storage: true
    ///     schema:
    ///       openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    ///     subresources:
    ///       scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: workers
    /// spec:
    ///   scaleTargetRef: {apiVersion: example.com/v1, kind: WorkerPool, name: workers}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: External
    ///     external:
    ///       metric: {name: queue_depth}
    ///       target: {type: AverageValue, averageValue: "30"}
    /// ---
    /// apiVersion: apiextensions.k8s.io/v1
    /// kind: CustomResourceDefinition
    /// metadata:
    ///   name: workerpools.example.com
    /// spec:
    ///   group: example.com
    ///   names: {kind: WorkerPool, plural: workerpools}
    ///   scope: Namespaced
    ///   versions:
    ///   - name: v1
    ///     served: true
    ///     storage: true
    ///     schema:
    ///       openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    ///     subresources:
    ///       scale:
    ///         specReplicasPath: .spec.replicas
    ///         statusReplicasPath: .status.replicas
    ///         labelSelectorPath: .status.selector
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the kind as the CRD's `spec.names.kind` spells it. An HPA scales a resource of its
    /// own namespace: point it at a namespaced one. Give each
    /// served version of the CRD a `subresources.scale` with a `labelSelectorPath`
    /// (a string field of the resource's status, `.status.selector`, that its controller fills
    /// with the label selector of its pods in text form, `app=workers`), or point the HPA at
    /// the workload that runs the pods.
    pub struct UnscalableCustomResource {
        id: "HPA412",
        name: "unscalable-custom-resource",
        severity: Error,
        summary: "the scale target's CustomResourceDefinition has no scale subresource, or one without a selector",
        needs_objects: true,
    }
}

impl Rule for UnscalableCustomResource {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        let Ok(group_version) = GroupVersion::parse(&t.api_version) else { return };
        let group = group_version.group();
        let Some(crd) = objects.custom_resource_definition(group, cx.scale_target_kind()) else {
            // The CRD's kind in another case than its own or all lowercase: the RESTMapper
            // (`NewDiscoveryRESTMapper`) registers only those two, so it maps the reference to
            // nothing (`reconcileAutoscaler`: `RESTMappings`, `NoKindMatchError`).
            let Some(crd) = objects
                .kind_any_case(group, &t.kind)
                .filter(|k| !super::maps_kind(k, &t.kind))
                .and_then(|k| objects.custom_resource_definition(group, k))
            else {
                return;
            };
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.scaleTargetRef.kind",
                    format!(
                        "CustomResourceDefinition {} defines the kind {}, not {:?}: kinds are case-sensitive, so the controller maps the target to no resource (no matches for kind {:?} in group {group:?}) and never scales it (AbleToScale False, FailedGetScale)",
                        crd.id.name, crd.kind, t.kind, t.kind
                    ),
                )
                .help(format!("write `kind: {}`", crd.kind))
                .related(FindingField::Object { id: crd.id.clone(), path: "spec.names.kind".into() }, "the kind it defines"),
            );
            return;
        };
        if crd.cluster_scoped {
            out.push(
                Finding::new(
                    &Self::META,
                    "spec.scaleTargetRef.kind",
                    format!(
                        "CustomResourceDefinition {} makes {} cluster-scoped: the controller reads its scale in the HPA's namespace, which serves none (404), and never scales it (AbleToScale False, FailedGetScale)",
                        crd.id.name, t.kind
                    ),
                )
                .help("an HPA scales a resource of its own namespace: target a namespaced resource")
                .related(FindingField::Object { id: crd.id.clone(), path: "spec.scope".into() }, "cluster-scoped"),
            );
            return;
        }
        let Some(scale) = crd.served_scale() else { return };
        let (path, message) = match scale {
            None => (
                "",
                format!(
                    "CustomResourceDefinition {} gives {} no scale subresource: the controller cannot read the target's scale and never scales it (AbleToScale False, FailedGetScale)",
                    crd.id.name, t.kind
                ),
            ),
            Some(s) if s.label_selector_path.is_none() => (
                ".subresources.scale",
                format!(
                    "CustomResourceDefinition {} gives {} a scale subresource without labelSelectorPath, so the scale has no selector: the controller never scales it (ScalingActive False, InvalidSelector: \"the HPA target's scale is missing a selector\")",
                    crd.id.name, t.kind
                ),
            ),
            Some(_) => return,
        };
        let Some(at) = first_served(crd) else { return };
        out.push(
            Finding::new(&Self::META, "spec.scaleTargetRef.kind", message)
                .help(if path.is_empty() {
                    "add subresources.scale with specReplicasPath, statusReplicasPath and labelSelectorPath to each served version of the CRD, or target the workload that runs the pods"
                } else {
                    "add labelSelectorPath (a status field the resource's controller fills with its pods' label selector) to the scale subresource of each served version of the CRD"
                })
                .related(
                    FindingField::Object { id: crd.id.clone(), path: format!("spec.versions[{at}]{path}") },
                    if path.is_empty() { "no scale subresource" } else { "no labelSelectorPath" },
                ),
        );
    }
}

/// The index of the first served version of `crd` in `spec.versions`.
fn first_served(crd: &CustomResourceDefinition) -> Option<usize> {
    crd.versions.iter().position(|v: &CrdVersion| v.served)
}
