//! HPA409 `keda-conflict`: an HPA and a KEDA ScaledObject on the same workload.

use super::{Context, Finding, Location, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A KEDA `ScaledObject` whose `scaleTargetRef` names the same workload as this HPA (KEDA
    /// defaults its kind to Deployment), unless this HPA is the one KEDA runs for that
    /// ScaledObject: KEDA (`controllers/keda/hpa.go`, `newHPAForScaledObject`) names it
    /// `keda-hpa-<ScaledObject name>` or `spec.advanced.horizontalPodAutoscalerConfig.name`, and
    /// makes the ScaledObject its controller (an `ownerReference` with `apiVersion: keda.sh/…`,
    /// `kind: ScaledObject`, `controller: true`); with the annotation
    /// `scaledobject.keda.sh/transfer-hpa-ownership: "true"`, KEDA adopts the existing HPA of
    /// that name instead. Either is the ScaledObject's own HPA, not a second one.
    ///
    /// ## Why it matters
    ///
    /// KEDA creates and manages an HPA of its own (`keda-hpa-<name>`) for every ScaledObject. With
    /// a second HPA on the same workload, two HPAs select the same pods, and the HPA controller
    /// refuses to scale either (`AmbiguousSelector`).
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: worker
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
    ///   minReplicas: 1
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ---
    /// apiVersion: keda.sh/v1alpha1
    /// kind: ScaledObject
    /// metadata:
    ///   name: worker
    /// spec:
    ///   scaleTargetRef: {name: worker}
    ///   maxReplicaCount: 20
    ///   triggers:
    ///   - type: rabbitmq
    ///     metadata: {queueName: jobs, mode: QueueLength, value: "50", hostFromEnv: RABBITMQ_URL}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: keda.sh/v1alpha1
    /// kind: ScaledObject
    /// metadata:
    ///   name: worker
    /// spec:
    ///   scaleTargetRef: {name: worker}
    ///   minReplicaCount: 1
    ///   maxReplicaCount: 20
    ///   triggers:
    ///   - type: rabbitmq
    ///     metadata: {queueName: jobs, mode: QueueLength, value: "50", hostFromEnv: RABBITMQ_URL}
    ///   - type: cpu
    ///     metricType: Utilization
    ///     metadata: {value: "70"}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Move the HPA's metrics into the ScaledObject as triggers (KEDA has `cpu` and `memory`
    /// triggers, and `advanced.horizontalPodAutoscalerConfig` for `behavior`) and delete the HPA.
    pub struct KedaConflict {
        id: "HPA409",
        name: "keda-conflict",
        severity: Error,
        summary: "a KEDA ScaledObject also scales the target",
        needs_objects: true,
    }
}

impl Rule for KedaConflict {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        for so in objects.scaled_objects(cx.namespace()) {
            if so.target_kind == t.kind && so.target_name == t.name && !so.controls(&cx.effective.metadata) {
                out.push(
                    Finding::new(
                        &Self::META,
                        "spec.scaleTargetRef",
                        format!(
                            "KEDA ScaledObject {} also scales {} {}: KEDA creates an HPA of its own for it, and the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
                            so.id.name, t.kind, t.name
                        ),
                    )
                    .help("move this HPA's metrics into the ScaledObject as triggers and delete the HPA")
                    .related(Location::Object { id: so.id.clone(), path: "spec.scaleTargetRef".into() }, "this ScaledObject"),
                );
            }
        }
    }
}
