//! Properties over generated objects: conversion round trips, defaulting idempotence, and
//! validity kept by defaulting.
//!
//! The generator produces valid autoscaling/v2 objects within what autoscaling/v1 can hold
//! through its annotations (as Kubernetes' own round-trip fuzzer constrains its objects): at
//! least one metric, target types consistent with the value set, at most one cpu utilization
//! metric and it comes last, metric statuses with their current values set. The cases outside
//! that set are the documented lossy conversions, checked in `lossy_cases_are_reported`.

use hpa_core::admission::{self, Operation, Options};
use hpa_core::api::meta::{CrossVersionObjectReference, LabelSelector, ObjectMeta};
use hpa_core::api::v2::*;
use hpa_core::api::{ApiVersion, Quantity, Time, VersionedHpa};
use hpa_core::convert;
use hpa_core::defaults;
use hpa_core::features::{FeatureGates, KubernetesVersion};
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,12}[a-z0-9]"
}

fn quantity() -> impl Strategy<Value = Quantity> {
    prop_oneof![
        (1i64..10_000).prop_map(|v| Quantity::parse(&v.to_string()).unwrap()),
        (1i64..100_000).prop_map(Quantity::from_milli),
        (1i64..64).prop_map(|v| Quantity::parse(&format!("{v}Mi")).unwrap()),
    ]
}

fn selector() -> impl Strategy<Value = Option<LabelSelector>> {
    option::of(
        btree_map(name(), name(), 1..3).prop_map(|m| LabelSelector { match_labels: m, match_expressions: vec![] }),
    )
}

fn target_value() -> impl Strategy<Value = MetricTarget> {
    quantity().prop_map(|q| MetricTarget { type_: "Value".into(), value: Some(q), ..Default::default() })
}

fn target_average() -> impl Strategy<Value = MetricTarget> {
    quantity().prop_map(|q| MetricTarget { type_: "AverageValue".into(), average_value: Some(q), ..Default::default() })
}

fn target_utilization() -> impl Strategy<Value = MetricTarget> {
    (1i32..200).prop_map(|u| MetricTarget {
        type_: "Utilization".into(),
        average_utilization: Some(u),
        ..Default::default()
    })
}

/// Any metric but a cpu utilization one.
fn metric() -> impl Strategy<Value = MetricSpec> {
    prop_oneof![
        (prop_oneof![Just("memory"), Just("ephemeral-storage")], prop_oneof![target_utilization(), target_average()])
            .prop_map(|(n, t)| MetricSpec {
                type_: "Resource".into(),
                resource: Some(Box::new(ResourceMetricSource { name: n.into(), target: t })),
                ..Default::default()
            }),
        target_average().prop_map(|t| MetricSpec {
            type_: "Resource".into(),
            resource: Some(Box::new(ResourceMetricSource { name: "cpu".into(), target: t })),
            ..Default::default()
        }),
        (name(), prop_oneof![Just("cpu"), Just("memory")], prop_oneof![target_utilization(), target_average()])
            .prop_map(|(c, n, t)| MetricSpec {
                type_: "ContainerResource".into(),
                container_resource: Some(Box::new(ContainerResourceMetricSource {
                    name: n.into(),
                    target: t,
                    container: c.into()
                })),
                ..Default::default()
            }),
        (name(), selector(), target_average()).prop_map(|(n, s, t)| MetricSpec {
            type_: "Pods".into(),
            pods: Some(Box::new(PodsMetricSource {
                metric: MetricIdentifier { name: n.into(), selector: s },
                target: t
            })),
            ..Default::default()
        }),
        (name(), name(), selector(), prop_oneof![target_value(), target_average()]).prop_map(|(obj, n, s, t)| {
            MetricSpec {
                type_: "Object".into(),
                object: Some(Box::new(ObjectMetricSource {
                    described_object: CrossVersionObjectReference {
                        kind: "Service".into(),
                        name: obj,
                        api_version: "v1".into(),
                    },
                    target: t,
                    metric: MetricIdentifier { name: n.into(), selector: s },
                })),
                ..Default::default()
            }
        }),
        (name(), selector(), prop_oneof![target_value(), target_average()]).prop_map(|(n, s, t)| MetricSpec {
            type_: "External".into(),
            external: Some(Box::new(ExternalMetricSource {
                metric: MetricIdentifier { name: n.into(), selector: s },
                target: t
            })),
            ..Default::default()
        }),
    ]
}

fn metrics() -> impl Strategy<Value = Vec<MetricSpec>> {
    (vec(metric(), 0..4), option::of(1i32..100)).prop_filter_map("at least one metric", |(mut ms, cpu)| {
        if let Some(u) = cpu {
            ms.push(hpa_core::convert::v1::cpu_utilization_metric(u));
        }
        (!ms.is_empty()).then_some(ms)
    })
}

fn policy() -> impl Strategy<Value = HPAScalingPolicy> {
    (prop_oneof![Just("Pods"), Just("Percent")], 1i32..500, 1i32..=1800).prop_map(|(t, v, p)| HPAScalingPolicy {
        type_: t.into(),
        value: v,
        period_seconds: p,
    })
}

fn rules() -> impl Strategy<Value = HPAScalingRules> {
    (
        option::of(0i32..=3600),
        option::of(prop_oneof![Just("Max"), Just("Min"), Just("Disabled")]),
        vec(policy(), 1..4),
        option::of((0i64..1000).prop_map(Quantity::from_milli)),
    )
        .prop_map(|(w, s, p, t)| HPAScalingRules {
            stabilization_window_seconds: w,
            select_policy: s.map(Into::into),
            policies: Some(p),
            tolerance: t,
        })
}

fn behavior() -> impl Strategy<Value = Option<HorizontalPodAutoscalerBehavior>> {
    option::of(
        (option::of(rules()), option::of(rules()))
            .prop_filter("behavior: {} does not survive autoscaling/v1 (reported as lossy)", |(up, down)| {
                up.is_some() || down.is_some()
            })
            .prop_map(|(up, down)| HorizontalPodAutoscalerBehavior { scale_up: up, scale_down: down }),
    )
}

fn status() -> impl Strategy<Value = HorizontalPodAutoscalerStatus> {
    let current = prop_oneof![
        (1i32..300, quantity()).prop_map(|(u, q)| MetricStatus {
            type_: "Resource".into(),
            resource: Some(ResourceMetricStatus {
                name: "cpu".into(),
                current: MetricValueStatus { average_utilization: Some(u), average_value: Some(q), value: None },
            }),
            ..Default::default()
        }),
        (name(), quantity()).prop_map(|(n, q)| MetricStatus {
            type_: "Pods".into(),
            pods: Some(PodsMetricStatus {
                metric: MetricIdentifier { name: n.into(), selector: None },
                current: MetricValueStatus { average_value: Some(q), ..Default::default() },
            }),
            ..Default::default()
        }),
        (name(), quantity()).prop_map(|(n, q)| MetricStatus {
            type_: "External".into(),
            external: Some(ExternalMetricStatus {
                metric: MetricIdentifier { name: n.into(), selector: None },
                current: MetricValueStatus { value: Some(q), ..Default::default() },
            }),
            ..Default::default()
        }),
    ];
    let condition = (
        prop_oneof![Just("AbleToScale"), Just("ScalingActive"), Just("ScalingLimited")],
        prop_oneof![Just("True"), Just("False")],
        0i64..2_000_000_000,
        "[A-Z][a-zA-Z]{0,12}",
    )
        .prop_map(|(t, s, at, r)| HorizontalPodAutoscalerCondition {
            type_: t.into(),
            status: s.into(),
            last_transition_time: Time(at),
            reason: r,
            message: String::new(),
            observed_generation: None,
        });
    (0i32..50, 0i32..50, option::of(vec(current, 1..3)), vec(condition, 0..3)).prop_map(|(c, d, m, conds)| {
        HorizontalPodAutoscalerStatus {
            observed_generation: None,
            last_scale_time: None,
            current_replicas: c,
            desired_replicas: d,
            current_metrics: m,
            conditions: conds,
        }
    })
}

fn hpa() -> impl Strategy<Value = HorizontalPodAutoscaler> {
    (name(), name(), 1i32..10, 0i32..50, metrics(), behavior(), status()).prop_map(|(n, ns, min, extra, m, b, st)| {
        HorizontalPodAutoscaler {
            api_version: "autoscaling/v2".into(),
            kind: "HorizontalPodAutoscaler".into(),
            metadata: ObjectMeta { name: n.clone(), namespace: ns, ..Default::default() },
            spec: HorizontalPodAutoscalerSpec {
                scale_target_ref: CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: n,
                    api_version: "apps/v1".into(),
                },
                min_replicas: Some(min),
                max_replicas: min + extra,
                metrics: m,
                behavior: b,
            },
            status: st,
        }
    })
}

fn round_trip(h: &HorizontalPodAutoscaler, via: ApiVersion) -> HorizontalPodAutoscaler {
    let out = convert::convert(&VersionedHpa::V2(h.clone()), via).unwrap();
    let back = convert::convert(&out.object, ApiVersion::V2).unwrap();
    let VersionedHpa::V2(b) = back.object else { panic!("asked for v2") };
    b
}

fn errors(h: &HorizontalPodAutoscaler, defaults: bool) -> Vec<String> {
    let opts = Options {
        gates: FeatureGates::new(KubernetesVersion::V1_37),
        apply_defaults: defaults,
        default_namespace: None,
    };
    let out = admission::admit(&VersionedHpa::V2(h.clone()), None, Operation::Create, &opts).unwrap();
    out.errors.iter().map(ToString::to_string).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn v2_to_v1_to_v2_is_the_identity(h in hpa()) {
        prop_assert!(errors(&h, false).is_empty(), "generated objects are valid: {:?}", errors(&h, false));
        prop_assert_eq!(round_trip(&h, ApiVersion::V1), h.clone());
        let lossy = convert::convert(&VersionedHpa::V2(h), ApiVersion::V1).unwrap().lossy;
        prop_assert!(lossy.is_empty(), "{:?}", lossy);
    }

    #[test]
    fn v1_to_v2_to_v1_is_the_identity(h in hpa()) {
        let v1 = convert::convert(&VersionedHpa::V2(h), ApiVersion::V1).unwrap().object;
        let v2 = convert::convert(&v1, ApiVersion::V2).unwrap().object;
        let again = convert::convert(&v2, ApiVersion::V1).unwrap().object;
        prop_assert_eq!(again, v1);
    }

    #[test]
    fn v2_to_v2beta2_to_v2_is_the_identity(h in hpa()) {
        prop_assert_eq!(round_trip(&h, ApiVersion::V2beta2), h);
    }

    #[test]
    fn as_internal_is_the_object_exactly_when_conversion_leaves_it_unchanged(
        mut h in hpa(),
        annotation in option::of((0usize..8, name())),
        api_version in prop_oneof![Just("autoscaling/v2"), Just(""), Just("autoscaling/v1")],
        kind in prop_oneof![Just("HorizontalPodAutoscaler"), Just("")],
    ) {
        // Round-trip keys, and keys that are not.
        let keys = convert::annotations::ROUND_TRIP.iter().copied().chain(["a.b/c", "autoscaling.alpha.kubernetes.io/other"]);
        if let Some((k, v)) = annotation {
            let key = keys.clone().nth(k).unwrap_or("x");
            h.metadata.annotations.insert(key.to_string(), v);
        }
        h.api_version = api_version.into();
        h.kind = kind.into();
        let obj = VersionedHpa::V2(h.clone());
        let converted = convert::to_internal(&obj).unwrap().object;
        match convert::as_internal(&obj) {
            Some(same) => prop_assert_eq!(same, &converted),
            None => prop_assert_ne!(&h, &converted),
        }
    }

    #[test]
    fn defaulting_is_idempotent_and_keeps_valid_objects_valid(mut h in hpa(), drop_min in any::<bool>(), drop_metrics in any::<bool>()) {
        if drop_min { h.spec.min_replicas = None; }
        if drop_metrics { h.spec.metrics.clear(); }
        let mut once = h.clone();
        defaults::default_v2(&mut once);
        let mut twice = once.clone();
        defaults::default_v2(&mut twice);
        prop_assert_eq!(&once, &twice);
        prop_assert!(errors(&once, false).is_empty(), "{:?}", errors(&once, false));
        prop_assert_eq!(errors(&h, true), errors(&once, false));
    }
}

#[test]
fn lossy_cases_are_reported() {
    let mut h = HorizontalPodAutoscaler {
        api_version: "autoscaling/v2".into(),
        kind: "HorizontalPodAutoscaler".into(),
        metadata: ObjectMeta { name: "web".into(), namespace: "default".into(), ..Default::default() },
        spec: HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                kind: "Deployment".into(),
                name: "web".into(),
                api_version: "apps/v1".into(),
            },
            min_replicas: Some(1),
            max_replicas: 5,
            metrics: vec![
                hpa_core::convert::v1::cpu_utilization_metric(50),
                MetricSpec {
                    type_: "External".into(),
                    external: Some(Box::new(ExternalMetricSource {
                        metric: MetricIdentifier { name: "q".into(), selector: None },
                        target: MetricTarget {
                            type_: "AverageValue".into(),
                            value: Some(Quantity::from_i64(3)),
                            average_value: Some(Quantity::from_i64(1)),
                            average_utilization: None,
                        },
                    })),
                    ..Default::default()
                },
                hpa_core::convert::v1::cpu_utilization_metric(70),
            ],
            behavior: None,
        },
        status: Default::default(),
    };
    let lossy = convert::convert(&VersionedHpa::V2(h.clone()), ApiVersion::V1).unwrap().lossy;
    assert_eq!(lossy.len(), 3, "{lossy:?}");
    assert!(lossy[0].starts_with("spec.metrics[2]: a second cpu utilization metric is dropped"));
    assert!(lossy[1].starts_with("spec.metrics[0]: the cpu utilization metric moves to the end"));
    assert!(lossy[2].starts_with(
        "spec.metrics[1].external.target.type: autoscaling/v1 cannot hold it as written; it comes back as \"Value\""
    ));
    h.spec.metrics.truncate(1);
    assert!(convert::convert(&VersionedHpa::V2(h.clone()), ApiVersion::V1).unwrap().lossy.is_empty());
    h.spec.behavior = Some(HorizontalPodAutoscalerBehavior::default());
    let lossy = convert::convert(&VersionedHpa::V2(h), ApiVersion::V1).unwrap().lossy;
    assert_eq!(
        lossy,
        [
            "spec.behavior: an empty behavior ({}) is dropped when read back from autoscaling/v1, which turns the controller's legacy path back on"
        ]
    );
}
