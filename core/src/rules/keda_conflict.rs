//! HPA409 `keda-conflict`: an HPA and a KEDA ScaledObject on the same workload.

use super::{Context, Finding, FindingField, Rule, RuleMeta, Severity};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A KEDA `ScaledObject` whose `scaleTargetRef` names the same workload as this HPA (the
    /// same API group, kind and name; KEDA defaults its `apiVersion` to `apps/v1` and its kind
    /// to Deployment, `ParseGVKR`), unless this HPA is the one KEDA runs for that
    /// ScaledObject: KEDA (`controllers/keda/hpa.go`, `newHPAForScaledObject`) names it
    /// `keda-hpa-<ScaledObject name>` or `spec.advanced.horizontalPodAutoscalerConfig.name`, and
    /// makes the ScaledObject its controller (an `ownerReference` with `apiVersion: keda.sh/…`,
    /// `kind: ScaledObject`, `controller: true`); with the annotation
    /// `scaledobject.keda.sh/transfer-hpa-ownership: "true"`, KEDA adopts the existing HPA of
    /// that name instead. Either is the ScaledObject's own HPA, not a second one.
    ///
    /// A paused ScaledObject has no HPA: KEDA stops its scale loop and deletes its HPA
    /// (`reconcileScaledObject`, `ensureHPAForScaledObjectIsDeleted`), so this HPA scales the
    /// workload alone while the pause lasts. The conflict comes back with KEDA's HPA when the
    /// annotation is removed: the finding is then a note (info), which says so. KEDA's
    /// `NeedToBePausedByAnnotation` decides what pauses:
    ///
    /// - `autoscaling.keda.sh/paused-replicas`, when present, alone (`paused` is then not
    ///   read): a count KEDA scales the target to (an `int32`, 0 or more, as
    ///   `strconv.ParseInt(value, 10, 32)` reads it) pauses once it is reached. A value that is
    ///   no such count (`"three"`, `"-1"`) never pauses, and KEDA cannot build or update its HPA
    ///   while it is there (an HPA it made before stays): the conflict stands, and the finding
    ///   says why the pause does not happen.
    /// - else `autoscaling.keda.sh/paused` with any value but one Go's `strconv.ParseBool` reads
    ///   as false (`"false"`, `"0"`, `"f"`): `"true"`, and a value that is no boolean such as
    ///   `"yes"`, pause.
    ///
    /// `autoscaling.keda.sh/paused-scale-in` and `paused-scale-out` keep KEDA's HPA (one
    /// direction disabled in its behavior): the conflict stands.
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
            // Both kinds as the RESTMapper maps them (KEDA maps `scaleTargetRef` through it too).
            if objects.mapped_kind(&so.target_group, &so.target_kind) == cx.scale_target_kind()
                && so.target_name == t.name
                && so.target_group == cx.scale_target_group()
                && !so.controls(&cx.effective.metadata)
            {
                let mut f = match &so.paused {
                    // No pause: a `paused-replicas` KEDA cannot apply leaves its HPA in place.
                    None if so.pause_refused.is_some() => Finding::new(
                        &Self::META,
                        "spec.scaleTargetRef",
                        format!(
                            "KEDA ScaledObject {} also scales {} {}, and it is not paused: {}, so KEDA does not pause it, and cannot build or update its HPA ({}) until the annotation is fixed or removed; an HPA it made before stays, and the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
                            so.id.name,
                            t.kind,
                            t.name,
                            so.pause_refused.as_deref().unwrap_or_default(),
                            so.hpa_name
                        ),
                    ),
                    None => Finding::new(
                        &Self::META,
                        "spec.scaleTargetRef",
                        format!(
                            "KEDA ScaledObject {} also scales {} {}: KEDA creates an HPA of its own for it, and the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
                            so.id.name, t.kind, t.name
                        ),
                    ),
                    // KEDA deleted its HPA: no conflict while paused, one when resumed.
                    Some(pause) => {
                        let mut f = Finding::new(
                            &Self::META,
                            "spec.scaleTargetRef",
                            format!(
                                "KEDA ScaledObject {} also scales {} {}, but it is paused ({pause}): KEDA deletes its HPA while paused, so this HPA scales {} {} alone; once the annotation is removed KEDA creates its HPA ({}) again, and the controller refuses to scale pods of several HPAs (AmbiguousSelector)",
                                so.id.name, t.kind, t.name, t.kind, t.name, so.hpa_name
                            ),
                        );
                        f.severity = Severity::Info;
                        f
                    }
                };
                let help = if so.paused.is_some() {
                    "move this HPA's metrics into the ScaledObject as triggers and delete the HPA, or delete the ScaledObject if KEDA is not to scale the workload again"
                } else {
                    "move this HPA's metrics into the ScaledObject as triggers and delete the HPA"
                };
                f = f.help(help).related(
                    FindingField::Object { id: so.id.clone(), path: "spec.scaleTargetRef".into() },
                    "this ScaledObject",
                );
                out.push(f);
            }
        }
    }
}
