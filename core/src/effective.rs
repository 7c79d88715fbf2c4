//! The effective scaling behavior: what the HPA controller will actually use, field by field,
//! and where each value comes from.
//!
//! On top of kube-apiserver's defaulting (`GenerateHPAScaleUpRules`/`ScaleDownRules`), the
//! controller fills a nil scale-down stabilization window from
//! `--horizontal-pod-autoscaler-downscale-stabilization` (`maybeInitScaleDownStabilizationWindow`
//! in `horizontal.go`), uses `--horizontal-pod-autoscaler-tolerance` when a direction sets no
//! tolerance (`tolerancesForHpa`), and, when `spec.behavior` is nil, follows its legacy path
//! (scale up by at most `max(2 × current, 4)` per sync; scale down to the highest
//! recommendation of the stabilization window).

use compact_str::CompactString;
use std::fmt;

use crate::api::v2::{HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscalerBehavior};
use crate::defaults;
use crate::evaluator::config::{
    DOWNSCALE_STABILIZATION_FLAG, DirectionTolerance, HPAControllerConfiguration, SCALE_UP_LIMIT_FACTOR_CONSTANT,
    SCALE_UP_LIMIT_MINIMUM_CONSTANT, TOLERANCE_FLAG,
};

/// Where an effective value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueSource {
    /// Written by the user.
    User,
    /// Filled by an organization policy (the admission webhook's).
    Policy,
    /// Filled by kube-apiserver's defaulting.
    KubernetesDefault,
    /// Taken from a kube-controller-manager flag or constant.
    ControllerDefault,
}

impl ValueSource {
    /// A stable machine-readable name.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueSource::User => "user",
            ValueSource::Policy => "policy",
            ValueSource::KubernetesDefault => "kubernetes-default",
            ValueSource::ControllerDefault => "controller-default",
        }
    }

    /// For people.
    pub fn describe(self) -> &'static str {
        match self {
            ValueSource::User => "set by you",
            ValueSource::Policy => "organization policy",
            ValueSource::KubernetesDefault => "Kubernetes default",
            ValueSource::ControllerDefault => "controller default",
        }
    }
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A value and its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Valued<T> {
    /// The value in effect.
    pub value: T,
    /// Where it comes from.
    pub source: ValueSource,
    /// For controller defaults, the flag or constant it comes from.
    pub origin: Option<&'static str>,
}

impl<T> Valued<T> {
    fn new(value: T, source: ValueSource) -> Self {
        Valued { value, source, origin: None }
    }

    fn controller(value: T, origin: &'static str) -> Self {
        Valued { value, source: ValueSource::ControllerDefault, origin: Some(origin) }
    }
}

/// One direction's effective rules.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectiveRules {
    /// `stabilizationWindowSeconds`
    pub stabilization_window_seconds: Valued<i32>,
    /// `selectPolicy`
    pub select_policy: Valued<CompactString>,
    /// `policies`
    pub policies: Valued<Vec<HPAScalingPolicy>>,
    /// `tolerance`, as the float the controller uses.
    pub tolerance: Valued<f64>,
}

/// What the controller will do with an HPA's behavior.
#[derive(Debug, Clone, PartialEq)]
pub enum EffectiveBehavior {
    /// `spec.behavior` is nil: the legacy path.
    Legacy {
        /// The window over which the highest recommendation is kept (both directions).
        stabilization_window_seconds: Valued<i32>,
        /// Scale-up limit per sync: `max(factor × current, minimum)`.
        scale_up_limit_factor: Valued<f64>,
        /// The minimum of that limit.
        scale_up_limit_minimum: Valued<f64>,
        /// Tolerance in both directions.
        tolerance: Valued<f64>,
    },
    /// `spec.behavior` is set: the behavior path.
    Rules {
        /// Scale-up rules.
        scale_up: EffectiveRules,
        /// Scale-down rules.
        scale_down: EffectiveRules,
    },
}

/// Computes the effective behavior. `user` is `spec.behavior` as written (before defaulting);
/// `policy` is what an organization policy adds where the user left fields unset; `controller`
/// is the controller's configuration (its flags and feature gates).
pub fn effective_behavior(
    user: Option<&HorizontalPodAutoscalerBehavior>,
    policy: Option<&HorizontalPodAutoscalerBehavior>,
    controller: &HPAControllerConfiguration,
) -> EffectiveBehavior {
    if user.is_none() && policy.is_none() {
        return EffectiveBehavior::Legacy {
            stabilization_window_seconds: Valued::controller(
                controller.downscale_stabilization_seconds(),
                DOWNSCALE_STABILIZATION_FLAG,
            ),
            scale_up_limit_factor: Valued::controller(controller.scale_up_limit_factor, SCALE_UP_LIMIT_FACTOR_CONSTANT),
            scale_up_limit_minimum: Valued::controller(
                controller.scale_up_limit_minimum,
                SCALE_UP_LIMIT_MINIMUM_CONSTANT,
            ),
            tolerance: Valued::controller(controller.tolerance, TOLERANCE_FLAG),
        };
    }
    let up_user = user.and_then(|b| b.scale_up.as_ref());
    let down_user = user.and_then(|b| b.scale_down.as_ref());
    let up_policy = policy.and_then(|b| b.scale_up.as_ref());
    let down_policy = policy.and_then(|b| b.scale_down.as_ref());
    // The values are the controller's, for the behavior the user and the policy write together.
    let written = HorizontalPodAutoscalerBehavior {
        scale_up: merge(up_user, up_policy),
        scale_down: merge(down_user, down_policy),
    };
    let effective = controller.complete_behavior(&written);
    let tolerances = controller.tolerances_for_hpa(Some(&written));
    EffectiveBehavior::Rules {
        scale_up: rules(effective.scale_up, tolerances.scale_up, up_user, up_policy, true),
        scale_down: rules(effective.scale_down, tolerances.scale_down, down_user, down_policy, false),
    }
}

/// One direction's rules as the user and the policy write them together: each field the
/// user's, else the policy's.
fn merge(user: Option<&HPAScalingRules>, policy: Option<&HPAScalingRules>) -> Option<HPAScalingRules> {
    let field = |get: &dyn Fn(&HPAScalingRules) -> bool| user.filter(|r| get(r)).or(policy.filter(|r| get(r)));
    if user.is_none() && policy.is_none() {
        return None;
    }
    Some(HPAScalingRules {
        stabilization_window_seconds: field(&|r| r.stabilization_window_seconds.is_some())
            .and_then(|r| r.stabilization_window_seconds),
        select_policy: field(&|r| r.select_policy.is_some()).and_then(|r| r.select_policy.clone()),
        policies: field(&|r| r.policies.is_some()).and_then(|r| r.policies.clone()),
        tolerance: field(&|r| r.tolerance.is_some()).and_then(|r| r.tolerance.clone()),
    })
}

/// Who set a field: the user, else the policy.
fn setter(
    user: Option<&HPAScalingRules>,
    policy: Option<&HPAScalingRules>,
    set: impl Fn(&HPAScalingRules) -> bool,
) -> Option<ValueSource> {
    if user.is_some_and(&set) {
        Some(ValueSource::User)
    } else if policy.is_some_and(&set) {
        Some(ValueSource::Policy)
    } else {
        None
    }
}

/// One direction's effective rules (`effective`, as the controller completes them; `tolerance`
/// as it uses it), each value with who set it.
fn rules(
    effective: Option<HPAScalingRules>,
    tolerance: DirectionTolerance<'_>,
    user: Option<&HPAScalingRules>,
    policy: Option<&HPAScalingRules>,
    up: bool,
) -> EffectiveRules {
    let effective = effective.unwrap_or_default();
    // What API defaulting fills; a window it leaves nil comes from the controller's flag.
    let defaulted = if up { defaults::scale_up_rules(None) } else { defaults::scale_down_rules(None) };
    let window = effective.stabilization_window_seconds.unwrap_or_default();
    let window = match setter(user, policy, |r| r.stabilization_window_seconds.is_some()) {
        Some(s) => Valued::new(window, s),
        None if defaulted.stabilization_window_seconds.is_some() => Valued::new(window, ValueSource::KubernetesDefault),
        None => Valued::controller(window, DOWNSCALE_STABILIZATION_FLAG),
    };
    let select = effective.select_policy.unwrap_or_default();
    let select = Valued::new(
        select,
        setter(user, policy, |r| r.select_policy.is_some()).unwrap_or(ValueSource::KubernetesDefault),
    );
    let policies = effective.policies.unwrap_or_default();
    let policies =
        Valued::new(policies, setter(user, policy, |r| r.policies.is_some()).unwrap_or(ValueSource::KubernetesDefault));
    // Without gate HPAConfigurableTolerance a written tolerance is ignored (`tolerancesForHpa`).
    let tolerance = match setter(user, policy, |r| r.tolerance.is_some()).filter(|_| tolerance.in_use().is_some()) {
        Some(s) => Valued::new(tolerance.used, s),
        None => Valued::controller(tolerance.used, TOLERANCE_FLAG),
    };
    EffectiveRules { stabilization_window_seconds: window, select_policy: select, policies, tolerance }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureGates, KubernetesVersion};

    #[test]
    fn only_a_scale_down_window_is_set() {
        let user = HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HPAScalingRules { stabilization_window_seconds: Some(60), ..Default::default() }),
        };
        let controller = HPAControllerConfiguration::new(FeatureGates::new(KubernetesVersion::V1_37));
        let EffectiveBehavior::Rules { scale_up, scale_down } = effective_behavior(Some(&user), None, &controller)
        else {
            panic!("behavior set");
        };
        assert_eq!(scale_down.stabilization_window_seconds.value, 60);
        assert_eq!(scale_down.stabilization_window_seconds.source, ValueSource::User);
        assert_eq!(scale_down.policies.source, ValueSource::KubernetesDefault);
        assert_eq!(scale_up.stabilization_window_seconds.value, 0);
        assert_eq!(scale_up.policies.value.len(), 2);
        assert_eq!(scale_up.tolerance.source, ValueSource::ControllerDefault);
    }

    #[test]
    fn nil_scale_down_window_comes_from_the_controller_flag() {
        let user = HorizontalPodAutoscalerBehavior::default();
        let EffectiveBehavior::Rules { scale_down, .. } =
            effective_behavior(Some(&user), None, &HPAControllerConfiguration::default())
        else {
            panic!("behavior set");
        };
        assert_eq!(scale_down.stabilization_window_seconds.value, 300);
        assert_eq!(scale_down.stabilization_window_seconds.origin, Some(DOWNSCALE_STABILIZATION_FLAG));
    }

    #[test]
    fn policy_fills_what_the_user_left_unset() {
        let user = HorizontalPodAutoscalerBehavior {
            scale_down: Some(HPAScalingRules { select_policy: Some("Min".into()), ..Default::default() }),
            scale_up: None,
        };
        let policy = HorizontalPodAutoscalerBehavior {
            scale_down: Some(HPAScalingRules {
                select_policy: Some("Max".into()),
                stabilization_window_seconds: Some(600),
                ..Default::default()
            }),
            scale_up: None,
        };
        let EffectiveBehavior::Rules { scale_down, .. } =
            effective_behavior(Some(&user), Some(&policy), &HPAControllerConfiguration::default())
        else {
            panic!("behavior set");
        };
        assert_eq!(scale_down.select_policy.value, "Min");
        assert_eq!(scale_down.stabilization_window_seconds.value, 600);
        assert_eq!(scale_down.stabilization_window_seconds.source, ValueSource::Policy);
    }

    #[test]
    fn no_behavior_is_the_legacy_path() {
        let e = effective_behavior(None, None, &HPAControllerConfiguration::default());
        assert!(matches!(e, EffectiveBehavior::Legacy { .. }));
    }
}
