//! Defaulting as kube-apiserver applies it, per version, right after decoding.
//!
//! Mirrors `pkg/apis/autoscaling/v1/defaults.go`, `v2/defaults.go`
//! (`SetDefaults_HorizontalPodAutoscaler`, `GenerateHPAScaleUpRules`,
//! `GenerateHPAScaleDownRules`), `v2beta2/defaults.go` and `v2beta1/defaults.go`.
//! Defaulting is idempotent. `behavior` is never added when absent: the controller keeps its
//! legacy path for an HPA without `behavior`.

use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior, MetricSpec};
use crate::api::{VersionedHpa, v1, v2, v2beta1, v2beta2};

/// The default scale-up stabilization window.
pub const SCALE_UP_STABILIZATION_WINDOW_SECONDS: i32 = 0;
/// The default `selectPolicy` of both directions.
pub const DEFAULT_SELECT_POLICY: &str = "Max";

/// Default scale-up policies: 4 pods or 100 % per 15 s, whichever is more.
pub fn default_scale_up_policies() -> Vec<HPAScalingPolicy> {
    vec![
        HPAScalingPolicy { type_: "Pods".into(), value: 4, period_seconds: 15 },
        HPAScalingPolicy { type_: "Percent".into(), value: 100, period_seconds: 15 },
    ]
}

/// Default scale-down policies: 100 % per 15 s.
pub fn default_scale_down_policies() -> Vec<HPAScalingPolicy> {
    vec![HPAScalingPolicy { type_: "Percent".into(), value: 100, period_seconds: 15 }]
}

/// `GenerateHPAScaleUpRules`: the defaults, overwritten field by field by what the user set.
pub fn scale_up_rules(user: Option<&HPAScalingRules>) -> HPAScalingRules {
    merge(
        HPAScalingRules {
            stabilization_window_seconds: Some(SCALE_UP_STABILIZATION_WINDOW_SECONDS),
            select_policy: Some(DEFAULT_SELECT_POLICY.into()),
            policies: Some(default_scale_up_policies()),
            tolerance: None,
        },
        user,
    )
}

/// `GenerateHPAScaleDownRules`: no stabilization window (the controller's
/// `--horizontal-pod-autoscaler-downscale-stabilization` applies).
pub fn scale_down_rules(user: Option<&HPAScalingRules>) -> HPAScalingRules {
    merge(
        HPAScalingRules {
            stabilization_window_seconds: None,
            select_policy: Some(DEFAULT_SELECT_POLICY.into()),
            policies: Some(default_scale_down_policies()),
            tolerance: None,
        },
        user,
    )
}

fn merge(mut defaults: HPAScalingRules, user: Option<&HPAScalingRules>) -> HPAScalingRules {
    if let Some(u) = user {
        if u.select_policy.is_some() {
            defaults.select_policy.clone_from(&u.select_policy);
        }
        if u.stabilization_window_seconds.is_some() {
            defaults.stabilization_window_seconds = u.stabilization_window_seconds;
        }
        // A user list replaces the default list as a whole; an explicit `[]` counts as set.
        if u.policies.is_some() {
            defaults.policies.clone_from(&u.policies);
        }
        if u.tolerance.is_some() {
            defaults.tolerance.clone_from(&u.tolerance);
        }
    }
    defaults
}

/// The CPU utilization metric every version defaults to.
pub fn default_metric() -> MetricSpec {
    crate::convert::v1::cpu_utilization_metric(crate::convert::v1::DEFAULT_CPU_UTILIZATION)
}

/// `SetDefaults_HorizontalPodAutoscaler` for autoscaling/v2 (and the internal form).
pub fn default_v2(hpa: &mut v2::HorizontalPodAutoscaler) {
    if hpa.spec.min_replicas.is_none() {
        hpa.spec.min_replicas = Some(1);
    }
    if hpa.spec.metrics.is_empty() {
        hpa.spec.metrics = vec![default_metric()];
    }
    if let Some(b) = &mut hpa.spec.behavior {
        default_behavior(b);
    }
}

/// `SetDefaults_HorizontalPodAutoscalerBehavior` (`pkg/apis/autoscaling/v2/defaults.go`) for a
/// behavior that is set: every rule the user left nil filled from the defaults, field by field
/// ([`scale_up_rules`], [`scale_down_rules`]). Also what completes a behavior the webhook's
/// policy gives an `autoscaling/v1` object's annotation, as v2 defaulting would.
pub fn default_behavior(behavior: &mut HorizontalPodAutoscalerBehavior) {
    *behavior = HorizontalPodAutoscalerBehavior {
        scale_up: Some(scale_up_rules(behavior.scale_up.as_ref())),
        scale_down: Some(scale_down_rules(behavior.scale_down.as_ref())),
    };
}

/// autoscaling/v1 defaulting: only `minReplicas` (the 80 % CPU metric comes from conversion).
pub fn default_v1(hpa: &mut v1::HorizontalPodAutoscaler) {
    if hpa.spec.min_replicas.is_none() {
        hpa.spec.min_replicas = Some(1);
    }
}

/// autoscaling/v2beta2 defaulting: as v2, without tolerance.
pub fn default_v2beta2(hpa: &mut v2beta2::HorizontalPodAutoscaler) {
    if hpa.spec.min_replicas.is_none() {
        hpa.spec.min_replicas = Some(1);
    }
    if hpa.spec.metrics.is_empty() {
        hpa.spec.metrics = vec![default_metric()];
    }
    if let Some(b) = &mut hpa.spec.behavior {
        let to_beta = |r: HPAScalingRules| v2beta2::HPAScalingRules {
            stabilization_window_seconds: r.stabilization_window_seconds,
            select_policy: r.select_policy.map(Into::into),
            policies: r.policies,
        };
        let to_int = |r: &v2beta2::HPAScalingRules| HPAScalingRules {
            stabilization_window_seconds: r.stabilization_window_seconds,
            select_policy: r.select_policy.as_deref().map(Into::into),
            policies: r.policies.clone(),
            tolerance: None,
        };
        b.scale_up = Some(to_beta(scale_up_rules(b.scale_up.as_ref().map(to_int).as_ref())));
        b.scale_down = Some(to_beta(scale_down_rules(b.scale_down.as_ref().map(to_int).as_ref())));
    }
}

/// autoscaling/v2beta1 defaulting.
pub fn default_v2beta1(hpa: &mut v2beta1::HorizontalPodAutoscaler) {
    if hpa.spec.min_replicas.is_none() {
        hpa.spec.min_replicas = Some(1);
    }
    if hpa.spec.metrics.is_empty() {
        hpa.spec.metrics = vec![v1::MetricSpec {
            type_: "Resource".into(),
            resource: Some(v1::ResourceMetricSource {
                name: "cpu".into(),
                target_average_utilization: Some(crate::convert::v1::DEFAULT_CPU_UTILIZATION),
                target_average_value: None,
            }),
            ..Default::default()
        }];
    }
}

/// Applies the defaulting of the object's own version.
pub fn default_versioned(obj: &mut VersionedHpa) {
    match obj {
        VersionedHpa::V1(h) => default_v1(h),
        VersionedHpa::V2(h) => default_v2(h),
        VersionedHpa::V2beta2(h) => default_v2beta2(h),
        VersionedHpa::V2beta1(h) => default_v2beta1(h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_rules_are_completed_field_by_field() {
        let user = HPAScalingRules { stabilization_window_seconds: Some(60), ..Default::default() };
        let down = scale_down_rules(Some(&user));
        assert_eq!(down.stabilization_window_seconds, Some(60));
        assert_eq!(down.policies, Some(default_scale_down_policies()));
        let up = scale_up_rules(None);
        assert_eq!(up.stabilization_window_seconds, Some(0));
        let empty = HPAScalingRules { policies: Some(vec![]), ..Default::default() };
        assert_eq!(scale_up_rules(Some(&empty)).policies, Some(vec![]));
    }

    #[test]
    fn defaulting_is_idempotent_and_keeps_nil_behavior() {
        let mut hpa = v2::HorizontalPodAutoscaler::default();
        default_v2(&mut hpa);
        assert!(hpa.spec.behavior.is_none());
        hpa.spec.behavior = Some(Default::default());
        default_v2(&mut hpa);
        let once = hpa.clone();
        default_v2(&mut hpa);
        assert_eq!(once, hpa);
    }
}
