//! `hpa-core`: the Kubernetes HorizontalPodAutoscaler, as kube-apiserver and the HPA
//! controller see it.
//!
//! It owns the API model of every HPA version ([`api`]), validation exactly as kube-apiserver
//! performs it ([`validation`]), defaulting ([`defaults`]), conversion between versions
//! ([`convert`]) and the request pipeline that ties them together ([`admission`]).
//!
//! It deliberately does no IO, no logging and no async, reads no clock and knows nothing of
//! YAML, HTTP or terminals: callers pass values in and get values out. Time, where needed,
//! is an argument.
#![warn(missing_docs)]

// `#[derive(Decode)]` names this crate `::hpa_core`, inside it as well as outside.
extern crate self as hpa_core;

pub mod admission;
pub mod api;
pub mod check;
pub mod convert;
pub mod defaults;
pub mod effective;
pub mod evaluator;
pub mod features;
pub mod field;
pub mod go;
pub mod resources;
pub mod rules;
pub mod validation;

/// Objects the unit tests of several modules share (compiled for tests only: `unwrap` on what
/// the tests write themselves is their way to fail).
#[cfg(test)]
mod test_support {
    use serde_json::json;

    use crate::api::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior};
    use crate::api::{self, VersionedHpa};

    /// An HPA in the internal form, `default/web` scaling Deployment `web` from `min` to `max`
    /// replicas on the default metric, with `behavior`: what the controller's timing runs.
    pub(crate) fn hpa_scaling(
        min: i32,
        max: i32,
        behavior: Option<HorizontalPodAutoscalerBehavior>,
    ) -> HorizontalPodAutoscaler {
        let mut h = HorizontalPodAutoscaler::default();
        h.metadata.name = "web".into();
        h.metadata.namespace = "default".into();
        h.spec.scale_target_ref.kind = "Deployment".into();
        h.spec.scale_target_ref.name = "web".into();
        h.spec.scale_target_ref.api_version = "apps/v1".into();
        h.spec.min_replicas = Some(min);
        h.spec.max_replicas = max;
        h.spec.metrics = vec![crate::defaults::default_metric()];
        h.spec.behavior = behavior;
        h
    }

    /// HPA `shop/web` as stored (`resourceVersion` 7: an UPDATE may be made onto it), scaling
    /// Deployment `web` 2..10 with a scale-down window, and, when given, a per-HPA scale-up
    /// `tolerance` (`HPAConfigurableTolerance`).
    pub(crate) fn hpa_with_scale_up_tolerance(tolerance: Option<&str>) -> VersionedHpa {
        let mut value = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 10, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}});
        if let Some(t) = tolerance {
            value["spec"]["behavior"]["scaleUp"] = json!({"tolerance": t});
        }
        api::decode(&value).unwrap()
    }
}
