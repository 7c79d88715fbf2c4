//! HPA411 `ignored-alpha-annotation`: `autoscaling.alpha.kubernetes.io/*` annotations that
//! kube-apiserver ignores.

use super::{Context, Finding, Rule, RuleMeta};
use crate::api::VersionedHpa;
use crate::convert::annotations as ann;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The round-trip annotations that carry v2 fields in `autoscaling/v1`
    /// (`autoscaling.alpha.kubernetes.io/metrics`, `.../behavior`, `.../current-metrics`,
    /// `.../conditions`): invalid JSON, a wrong shape, unknown fields, or a behavior with neither
    /// direction. Also these annotations on an `autoscaling/v2` object, where they mean nothing.
    ///
    /// ## Why it matters
    ///
    /// kube-apiserver reads them with Go's `encoding/json`, silently ignores a value it cannot read
    /// (and unknown keys in one it can), and removes them all from the object. A hand-written
    /// behavior annotation with a typo therefore leaves the HPA on the legacy rules, with no error
    /// anywhere.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v1
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    ///   annotations:
    ///     autoscaling.alpha.kubernetes.io/behavior: '{"ScaleDown": {"Policies": [{"Type": "Pods", "Value": 1, "PeriodSeconds": 60}]'
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
    ///   targetCPUUtilizationPercentage: 70
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
    ///   behavior:
    ///     scaleDown:
    ///       policies:
    ///       - {type: Pods, value: 1, periodSeconds: 60}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Write the HPA in `autoscaling/v2`, where these are ordinary fields; or fix the JSON (keys are
    /// the Go field names: `ScaleUp`, `StabilizationWindowSeconds`, `Policies`, ...).
    pub struct IgnoredAlphaAnnotation {
        id: "HPA411",
        name: "ignored-alpha-annotation",
        severity: Warning,
        summary: "an autoscaling.alpha.kubernetes.io annotation is ignored by kube-apiserver",
        needs_objects: false,
    }
}

impl Rule for IgnoredAlphaAnnotation {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        for p in cx.annotation_problems {
            out.push(
                Finding::new(&Self::META, format!("metadata.annotations[{}]", p.annotation), p.message.clone()).help(
                    "write the HPA in autoscaling/v2, or fix the annotation's JSON (Go field names, e.g. ScaleDown)",
                ),
            );
        }
        if let VersionedHpa::V2(h) = cx.original {
            for key in [ann::METRICS, ann::CURRENT_METRICS, ann::CONDITIONS, ann::BEHAVIOR] {
                if h.metadata.annotations.contains_key(key) {
                    out.push(
                        Finding::new(
                            &Self::META,
                            format!("metadata.annotations[{key}]"),
                            format!("{key} only means something in autoscaling/v1: kube-apiserver removes it from v2 objects"),
                        )
                        .help("move its content into the corresponding spec field and remove the annotation"),
                    );
                }
            }
        }
    }
}
