//! Objects the unit tests of several modules share (compiled for tests only: `unwrap` on what
//! the tests write themselves is their way to fail).

#![cfg(test)]

use serde_json::json;

use crate::api::{self, VersionedHpa};

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
