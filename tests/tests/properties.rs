//! Properties over generated objects: conversion round trips, defaulting idempotence, and
//! validity kept by defaulting; and of the controller over generated simulations (replicas
//! within the bounds, holding still inside the tolerance).
//!
//! The generator produces valid autoscaling/v2 objects within what autoscaling/v1 can hold
//! through its annotations (as Kubernetes' own round-trip fuzzer constrains its objects): at
//! least one metric, target types consistent with the value set, at most one cpu utilization
//! metric and it comes last, metric statuses with their current values set. The cases outside
//! that set are the documented lossy conversions, checked in `lossy_cases_are_reported`.

use hpa_core::admission::{self, AdmissionOptions, Operation};
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
            metadata: ObjectMeta { name: n.clone().into(), namespace: ns, ..Default::default() },
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
    let opts = AdmissionOptions {
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

/// Properties of the simulated controller (`hpa-lint simulate`'s engine, the controller's one
/// sync driven over time) on generated plans: every metric type and target (and metrics the
/// controller rejects), behaviors and the legacy path, both releases' gates, scale to and from
/// zero, sidecars and pod-level requests, missing requests, loads of every kind including
/// unavailable and ill-suited values, an empty selector and an unreadable scale.
mod simulation {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use hpa_core::api::v2::{
        ContainerResourceMetricSource, ExternalMetricSource, HPAScalingPolicy, HPAScalingRules,
        HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, MetricIdentifier, MetricSpec, MetricTarget,
        ObjectMetricSource, PodsMetricSource, ResourceMetricSource,
    };
    use hpa_core::api::{CrossVersionObjectReference, LabelSelector, Quantity};
    use hpa_core::evaluator::controller::{SyncOutcome, effective_metrics};
    use hpa_core::evaluator::simulation::{LoadPhase, LoadValue, MetricKey, Plan, PodTemplate, simulate};
    use hpa_core::evaluator::{Container, HPAControllerConfiguration};
    use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    fn utilization() -> impl Strategy<Value = MetricTarget> {
        (1i32..200).prop_map(|u| MetricTarget {
            type_: "Utilization".into(),
            average_utilization: Some(u),
            ..Default::default()
        })
    }

    /// An AverageValue target of `lo..hi` milli-units.
    fn average(lo: i64, hi: i64) -> impl Strategy<Value = MetricTarget> {
        (lo..hi).prop_map(|v| MetricTarget {
            type_: "AverageValue".into(),
            average_value: Some(Quantity::from_milli(v)),
            ..Default::default()
        })
    }

    /// A Value target of `lo..hi` milli-units.
    fn value(lo: i64, hi: i64) -> impl Strategy<Value = MetricTarget> {
        (lo..hi).prop_map(|v| MetricTarget {
            type_: "Value".into(),
            value: Some(Quantity::from_milli(v)),
            ..Default::default()
        })
    }

    /// A target with nothing usable set (the controller fails such a metric).
    fn empty_target() -> impl Strategy<Value = MetricTarget> {
        prop_oneof![Just("Utilization"), Just("AverageValue"), Just("Value")]
            .prop_map(|t| MetricTarget { type_: t.into(), ..Default::default() })
    }

    fn selector() -> impl Strategy<Value = Option<LabelSelector>> {
        option::weighted(
            0.2,
            Just(LabelSelector {
                match_labels: BTreeMap::from([("queue".into(), "jobs".into())]),
                ..Default::default()
            }),
        )
    }

    fn resource_name() -> impl Strategy<Value = String> {
        prop_oneof![8 => Just("cpu".to_string()), 3 => Just("memory".to_string()), 1 => Just("gpu".to_string())]
    }

    fn metric() -> impl Strategy<Value = MetricSpec> {
        let custom = || prop_oneof![Just("rps".to_string()), Just("queue".to_string())];
        prop_oneof![
            12 => (resource_name(), prop_oneof![8 => utilization(), 4 => average(50, 1_500), 1 => empty_target()]).prop_map(
                |(name, target)| MetricSpec {
                    type_: "Resource".into(),
                    resource: Some(Box::new(ResourceMetricSource { name: name.into(), target })),
                    ..Default::default()
                }
            ),
            2 => (
                prop_oneof![6 => Just("app"), 2 => Just("side"), 2 => Just("proxy"), 1 => Just("ghost")],
                resource_name(),
                prop_oneof![3 => utilization(), 1 => average(50, 1_500)],
            )
                .prop_map(|(container, name, target)| MetricSpec {
                    type_: "ContainerResource".into(),
                    container_resource: Some(Box::new(ContainerResourceMetricSource { name: name.into(), target, container: container.into() })),
                    ..Default::default()
                }),
            5 => (custom(), selector(), prop_oneof![12 => average(1_000, 100_000), 1 => empty_target()]).prop_map(
                |(name, selector, target)| MetricSpec {
                    type_: "Pods".into(),
                    pods: Some(Box::new(PodsMetricSource { metric: MetricIdentifier { name: name.into(), selector }, target })),
                    ..Default::default()
                }
            ),
            2 => (
                custom(),
                prop_oneof![Just(("Deployment", "web", "apps/v1")), Just(("Service", "front", "v1"))],
                prop_oneof![6 => value(10_000, 100_000), 6 => average(10_000, 100_000), 1 => empty_target()],
            )
                .prop_map(|(name, (kind, object, api_version), target)| MetricSpec {
                    type_: "Object".into(),
                    object: Some(Box::new(ObjectMetricSource {
                        described_object: CrossVersionObjectReference {
                            kind: kind.into(),
                            name: object.into(),
                            api_version: api_version.into(),
                        },
                        target,
                        metric: MetricIdentifier { name: name.into(), selector: None },
                    })),
                    ..Default::default()
                }),
            2 => (
                prop_oneof![Just("backlog".to_string()), Just("queue".to_string())],
                selector(),
                prop_oneof![6 => value(10_000, 100_000), 6 => average(10_000, 100_000), 1 => empty_target()],
            )
                .prop_map(|(name, selector, target)| MetricSpec {
                    type_: "External".into(),
                    external: Some(Box::new(ExternalMetricSource { metric: MetricIdentifier { name: name.into(), selector }, target })),
                    ..Default::default()
                }),
            1 => prop_oneof![Just("Resource"), Just("Pods"), Just("Object"), Just("External"), Just("CheddarCheese")]
                .prop_map(|t| MetricSpec { type_: t.into(), ..Default::default() }),
        ]
    }

    fn policy() -> impl Strategy<Value = HPAScalingPolicy> {
        (prop_oneof![Just("Pods"), Just("Percent")], 1i32..200, 1i32..=300).prop_map(|(t, v, p)| HPAScalingPolicy {
            type_: t.into(),
            value: v,
            period_seconds: p,
        })
    }

    fn rules() -> impl Strategy<Value = HPAScalingRules> {
        (
            option::of(0i32..=600),
            option::of(prop_oneof![4 => Just("Max"), 2 => Just("Min"), 1 => Just("Disabled")]),
            option::of(vec(policy(), 0..3)),
            option::of((0i64..300).prop_map(Quantity::from_milli)),
        )
            .prop_map(|(w, s, p, t)| HPAScalingRules {
                stabilization_window_seconds: w,
                select_policy: s.map(Into::into),
                policies: p,
                tolerance: t,
            })
    }

    fn behavior() -> impl Strategy<Value = Option<HorizontalPodAutoscalerBehavior>> {
        option::of(
            (option::of(rules()), option::of(rules()))
                .prop_map(|(scale_up, scale_down)| HorizontalPodAutoscalerBehavior { scale_up, scale_down }),
        )
    }

    fn container(names: &'static [&'static str]) -> impl Strategy<Value = Container> {
        (
            proptest::sample::select(names),
            option::weighted(0.95, prop_oneof![1 => Just(0i64), 20 => 1i64..1_000]),
            option::weighted(0.8, prop_oneof![1 => Just(0i64), 20 => 1i64..1_000]),
            option::weighted(0.3, prop_oneof![Just("Always"), Just("OnFailure")]),
        )
            .prop_map(|(name, cpu, memory, restart)| {
                let mut requests_milli = BTreeMap::new();
                if let Some(v) = cpu {
                    requests_milli.insert("cpu".to_string(), v);
                }
                if let Some(v) = memory {
                    requests_milli.insert("memory".to_string(), v);
                }
                Container { name: name.into(), requests_milli, restart_policy: restart.map(String::from) }
            })
    }

    fn template() -> impl Strategy<Value = PodTemplate> {
        (
            vec(container(&["app", "side"]), 1..=2),
            vec(container(&["proxy", "init"]), 0..=1),
            option::weighted(0.15, 1i64..1_000),
        )
            .prop_map(|(containers, init_containers, pod_cpu)| PodTemplate {
                containers,
                init_containers,
                pod_requests_milli: pod_cpu.map(|v| BTreeMap::from([("cpu".to_string(), v)])).unwrap_or_default(),
                overhead_milli: BTreeMap::new(),
            })
    }

    fn options() -> impl Strategy<Value = HPAControllerConfiguration> {
        (
            5u64..=30,
            prop_oneof![Just(0.1), 0.0f64..0.3],
            0u64..=600,
            0u64..=360,
            0u64..=60,
            prop_oneof![Just(KubernetesVersion::V1_36), Just(KubernetesVersion::V1_37)],
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(sync, tolerance, down, init, delay, version, pod_level, tolerance_gate)| {
                let mut gates = FeatureGates::new(version);
                // Locked gates refuse to change; those keep their release's value.
                let _ = gates.set(Gate::PodLevelResources, pod_level);
                let _ = gates.set(Gate::HPAConfigurableTolerance, tolerance_gate);
                HPAControllerConfiguration {
                    sync_period: Duration::from_secs(sync),
                    tolerance,
                    downscale_stabilization_window: Duration::from_secs(down),
                    cpu_initialization_period: Duration::from_secs(init),
                    initial_readiness_delay: Duration::from_secs(delay),
                    ..HPAControllerConfiguration::new(gates)
                }
            })
    }

    /// A value for a load key: mostly of the kind the key takes, scaled around the generated
    /// targets, sometimes unavailable or of another kind.
    fn load_value(key: &MetricKey) -> BoxedStrategy<LoadValue> {
        let any_kind = prop_oneof![
            (0i64..1_500).prop_map(LoadValue::PerPod),
            (0i64..8_000).prop_map(LoadValue::Total),
            (0.0f64..200.0).prop_map(LoadValue::Utilization),
            (0i64..300_000).prop_map(LoadValue::Value),
        ];
        let suited = match key {
            MetricKey::Resource(_) | MetricKey::Container { .. } => prop_oneof![
                (0i64..1_500).prop_map(LoadValue::PerPod),
                (0i64..8_000).prop_map(LoadValue::Total),
                (0.0f64..200.0).prop_map(LoadValue::Utilization),
            ]
            .boxed(),
            MetricKey::Pods(_) => {
                prop_oneof![(0i64..150_000).prop_map(LoadValue::PerPod), (0i64..400_000).prop_map(LoadValue::Total),]
                    .boxed()
            }
            MetricKey::Object(_) | MetricKey::External(_) => (0i64..300_000).prop_map(LoadValue::Value).boxed(),
        };
        prop_oneof![24 => suited, 2 => Just(LoadValue::Unavailable), 1 => any_kind].boxed()
    }

    /// Load phases for the given keys: strictly increasing start times within `duration_ms`, the
    /// first one usually at 0.
    fn load(keys: Vec<MetricKey>, duration_ms: i64) -> impl Strategy<Value = Vec<LoadPhase>> {
        let phase = keys.iter().map(|k| option::weighted(0.9, load_value(k))).collect::<Vec<_>>();
        (vec((0i64..duration_ms.max(1), phase), 0..10), proptest::bool::weighted(0.8)).prop_map(
            |(mut phases, at_zero)| {
                phases.sort_by_key(|(at, _)| *at);
                if let Some(first) = phases.first_mut().filter(|_| at_zero) {
                    first.0 = 0;
                }
                phases.dedup_by_key(|(at, _)| *at);
                phases.into_iter().map(|(at_ms, values)| LoadPhase { at_ms, values }).collect()
            },
        )
    }

    fn hpa() -> impl Strategy<Value = HorizontalPodAutoscaler> {
        (
            option::weighted(0.8, 0i32..=3),
            1i32..=16,
            prop_oneof![1 => vec(metric(), 0..=3), 3 => vec(metric(), 1..=2)],
            behavior(),
            prop_oneof![20 => Just("apps/v1"), 1 => Just("apps/v1/beta")],
        )
            .prop_map(|(min, extra, metrics, behavior, api_version)| {
                let mut hpa = HorizontalPodAutoscaler::default();
                hpa.metadata.name = "web".into();
                hpa.metadata.namespace = "default".into();
                hpa.spec.scale_target_ref = CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: "web".into(),
                    api_version: api_version.into(),
                };
                hpa.spec.min_replicas = min;
                hpa.spec.max_replicas = min.unwrap_or(1).max(1) + extra - 1;
                hpa.spec.metrics = metrics;
                hpa.spec.behavior = behavior;
                hpa
            })
    }

    fn plan() -> impl Strategy<Value = Plan> {
        (
            hpa(),
            options(),
            template(),
            prop_oneof![1 => Just(0), 12 => 1i32..=6],
            (0i64..=30_000, 0i64..=60_000, 1u64..=60),
            prop_oneof![30 => Just("app=web"), 1 => Just("")],
            1i64..=120,
        )
            .prop_flat_map(
                |(hpa, options, template, initial_replicas, (start, ready, window), selector, syncs)| {
                    // The load keys and each metric's slot, as `scenario::bind` makes them.
                    let specs = effective_metrics(&hpa);
                    let mut keys: Vec<MetricKey> = Vec::new();
                    let bindings: Vec<Option<usize>> = specs
                        .iter()
                        .map(|spec| {
                            MetricKey::of(spec).map(|k| match keys.iter().position(|kk| *kk == k) {
                                Some(i) => i,
                                None => {
                                    keys.push(k);
                                    keys.len() - 1
                                }
                            })
                        })
                        .collect();
                    let duration_ms = syncs * i64::try_from(options.sync_period.as_millis()).unwrap();
                    load(keys.clone(), duration_ms).prop_map(move |load| Plan {
                        hpa: hpa.clone(),
                        options: options.clone(),
                        initial_replicas,
                        template: template.clone(),
                        pod_start_after_ms: start,
                        pod_ready_after_ms: start + ready,
                        metric_window: Duration::from_secs(window),
                        selector: selector.into(),
                        duration_ms,
                        keys: keys.clone(),
                        bindings: bindings.clone(),
                        load,
                    })
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every rescale lands in `[minReplicas, maxReplicas]` and a sync that does not rescale
        /// leaves `spec.replicas` alone; once a sync has read the scale, `spec.replicas` stays in
        /// the bounds, except at 0 with `minReplicas` above 0, where the controller never scales
        /// (`ScalingDisabled`).
        #[test]
        fn the_controller_keeps_replicas_within_bounds(plan in plan()) {
            let sim = simulate(&plan);
            let min = plan.hpa.spec.min_replicas.unwrap_or(1);
            let max = plan.hpa.spec.max_replicas;
            let disabled = plan.initial_replicas == 0 && min != 0;
            let mut scale_read = false;
            for (i, step) in sim.steps.iter().enumerate() {
                if scale_read && disabled {
                    prop_assert_eq!(step.replicas, 0, "sync {}: scaling is disabled at 0 replicas", i);
                } else if scale_read {
                    prop_assert!((min..=max).contains(&step.replicas), "sync {}: {} outside [{}, {}]", i, step.replicas, min, max);
                }
                if step.rescaled {
                    prop_assert!((min..=max).contains(&step.desired), "sync {}: rescaled to {}", i, step.desired);
                } else {
                    prop_assert_eq!(step.desired, step.replicas, "sync {}: no rescale, yet the count changed", i);
                }
                scale_read |= step.outcome != SyncOutcome::FailedGetScale;
            }
        }

        /// With every metric's usage ratio inside the tolerance and the count within the
        /// bounds, the controller proposes the current count at every sync and never rescales.
        #[test]
        fn the_controller_holds_still_inside_the_tolerance(plan in still_plan()) {
            let sim = simulate(&plan);
            for (i, step) in sim.steps.iter().enumerate() {
                prop_assert_eq!(step.outcome, SyncOutcome::Unchanged, "sync {}: {}", i, sim.reason(step));
                prop_assert_eq!(step.proposal, Some(plan.initial_replicas), "sync {}", i);
                prop_assert_eq!(step.desired, plan.initial_replicas, "sync {}", i);
            }
        }
    }

    /// Plans whose load keeps every metric within the tolerance: cpu utilization, memory and
    /// Pods averages at `target × r` with `|1 − r|` at most half the tolerance (cpu targets of
    /// 50 % or more, so that rounding to whole percents stays inside too).
    fn still_plan() -> impl Strategy<Value = Plan> {
        let kinds = proptest::sample::subsequence(vec!["cpu", "memory", "rps"], 1..=3);
        (
            kinds,
            1i32..=4,
            0i32..=6,
            0.1f64..0.3,
            50i32..=100,
            1_000i64..100_000,
            any::<bool>(),
            proptest::collection::vec(-0.5f64..0.5, 3),
            1i64..=80,
        )
            .prop_map(|(kinds, min, spread, tolerance, utilization, average, legacy, offsets, syncs)| {
                let mut hpa = HorizontalPodAutoscaler::default();
                hpa.metadata.name = "web".into();
                hpa.metadata.namespace = "default".into();
                hpa.spec.scale_target_ref = CrossVersionObjectReference {
                    kind: "Deployment".into(),
                    name: "web".into(),
                    api_version: "apps/v1".into(),
                };
                hpa.spec.min_replicas = Some(min);
                hpa.spec.max_replicas = min + spread;
                hpa.spec.behavior = (!legacy).then(HorizontalPodAutoscalerBehavior::default);
                let mut keys = Vec::new();
                let mut values = Vec::new();
                for (kind, offset) in kinds.iter().zip(&offsets) {
                    let r = 1.0 + offset * tolerance;
                    let (spec, key, value) = match *kind {
                        "cpu" => (
                            resource_metric(
                                "cpu",
                                MetricTarget {
                                    type_: "Utilization".into(),
                                    average_utilization: Some(utilization),
                                    ..Default::default()
                                },
                            ),
                            MetricKey::Resource("cpu".into()),
                            LoadValue::Utilization(f64::from(utilization) * r),
                        ),
                        "memory" => (
                            resource_metric(
                                "memory",
                                MetricTarget {
                                    type_: "AverageValue".into(),
                                    average_value: Some(Quantity::from_milli(average)),
                                    ..Default::default()
                                },
                            ),
                            MetricKey::Resource("memory".into()),
                            LoadValue::PerPod((average as f64 * r).round() as i64),
                        ),
                        _ => (
                            MetricSpec {
                                type_: "Pods".into(),
                                pods: Some(Box::new(PodsMetricSource {
                                    metric: MetricIdentifier { name: "rps".into(), selector: None },
                                    target: MetricTarget {
                                        type_: "AverageValue".into(),
                                        average_value: Some(Quantity::from_milli(average)),
                                        ..Default::default()
                                    },
                                })),
                                ..Default::default()
                            },
                            MetricKey::Pods("rps".into()),
                            LoadValue::PerPod((average as f64 * r).round() as i64),
                        ),
                    };
                    hpa.spec.metrics.push(spec);
                    keys.push(key);
                    values.push(Some(value));
                }
                let bindings = (0..keys.len()).map(Some).collect();
                let options = HPAControllerConfiguration { tolerance, ..HPAControllerConfiguration::default() };
                let duration_ms = syncs * 15_000;
                Plan {
                    hpa,
                    options,
                    initial_replicas: min + spread / 2,
                    template: PodTemplate {
                        containers: vec![Container {
                            name: "app".into(),
                            requests_milli: BTreeMap::from([("cpu".into(), 500), ("memory".into(), 1_000_000)]),
                            restart_policy: None,
                        }],
                        ..Default::default()
                    },
                    pod_start_after_ms: 0,
                    pod_ready_after_ms: 30_000,
                    metric_window: Duration::from_secs(15),
                    selector: "app=web".into(),
                    duration_ms,
                    keys,
                    bindings,
                    load: vec![LoadPhase { at_ms: 0, values }],
                }
            })
    }

    fn resource_metric(name: &str, target: MetricTarget) -> MetricSpec {
        MetricSpec {
            type_: "Resource".into(),
            resource: Some(Box::new(ResourceMetricSource { name: name.into(), target })),
            ..Default::default()
        }
    }
}
