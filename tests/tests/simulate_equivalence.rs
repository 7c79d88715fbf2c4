//! The simulation's fast backend against its reference: for random plans, every step recorded
//! through the prepared, index-based path (`Backend::Fast`, what `hpa-lint simulate` runs) is
//! the step recorded by calling `reconcile_autoscaler` on a full input at every sync
//! (`Backend::Reference`): counts, observations, proposals, normalization, reason, conditions.
//!
//! The plans cover what a scenario can say and more: every metric type and target (and metrics
//! the controller rejects), behaviors and the legacy path, both releases' gates, scale to and
//! from zero, sidecars and pod-level requests, missing requests, loads of every kind including
//! unavailable and ill-suited values, an empty selector and an unreadable scale.

use std::collections::BTreeMap;
use std::time::Duration;

use hpa_core::api::v2::{
    ContainerResourceMetricSource, ExternalMetricSource, HPAScalingPolicy, HPAScalingRules, HorizontalPodAutoscaler,
    HorizontalPodAutoscalerBehavior, MetricIdentifier, MetricSpec, MetricTarget, ObjectMetricSource, PodsMetricSource,
    ResourceMetricSource,
};
use hpa_core::api::{CrossVersionObjectReference, LabelSelector, Quantity};
use hpa_core::evaluator::controller::effective_metrics;
use hpa_core::evaluator::simulation::{
    Backend, LoadPhase, LoadValue, MetricKey, Plan, PodTemplate, Simulation, simulate_with,
};
use hpa_core::evaluator::{Container, HPAControllerConfiguration};
use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};
use hpa_lint::simulate::scenario::metric_key;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

/// Asserts that two simulations recorded the same steps.
fn assert_same(fast: &Simulation, reference: &Simulation) -> Result<(), TestCaseError> {
    prop_assert_eq!(fast.steps.len(), reference.steps.len());
    for (i, (a, b)) in fast.steps.iter().zip(&reference.steps).enumerate() {
        prop_assert_eq!(fast.view(a), reference.view(b), "step {}", i);
    }
    Ok(())
}

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
        Just(LabelSelector { match_labels: BTreeMap::from([("queue".into(), "jobs".into())]), ..Default::default() }),
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
                gates,
                ..HPAControllerConfiguration::default()
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
    (vec((0i64..duration_ms.max(1), phase), 0..10), proptest::bool::weighted(0.8)).prop_map(|(mut phases, at_zero)| {
        phases.sort_by_key(|(at, _)| *at);
        if let Some(first) = phases.first_mut().filter(|_| at_zero) {
            first.0 = 0;
        }
        phases.dedup_by_key(|(at, _)| *at);
        phases.into_iter().map(|(at_ms, values)| LoadPhase { at_ms, values }).collect()
    })
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
        .prop_flat_map(|(hpa, options, template, initial_replicas, (start, ready, window), selector, syncs)| {
            // The load keys and each metric's slot, as `scenario::bind` makes them.
            let specs = effective_metrics(&hpa);
            let mut keys: Vec<MetricKey> = Vec::new();
            let bindings: Vec<Option<usize>> = specs
                .iter()
                .map(|spec| {
                    metric_key(spec).map(|k| match keys.iter().position(|kk| *kk == k) {
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
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn fast_backend_records_the_reference_steps(plan in plan()) {
        let fast = simulate_with(&plan, Backend::Fast);
        let reference = simulate_with(&plan, Backend::Reference);
        assert_same(&fast, &reference)?;
    }
}

/// The benchmark's plan (three metrics, a daily wave with hourly bursts, default behavior), for
/// six hours.
#[test]
fn benchmark_day_is_recorded_alike() {
    let resource = |name: &str, target: MetricTarget| MetricSpec {
        type_: "Resource".into(),
        resource: Some(Box::new(ResourceMetricSource { name: name.into(), target })),
        ..Default::default()
    };
    let max = 30;
    let mut hpa = HorizontalPodAutoscaler::default();
    hpa.metadata.name = "web".into();
    hpa.metadata.namespace = "default".into();
    hpa.spec.scale_target_ref =
        CrossVersionObjectReference { kind: "Deployment".into(), name: "web".into(), api_version: "apps/v1".into() };
    hpa.spec.min_replicas = Some(2);
    hpa.spec.max_replicas = max;
    hpa.spec.behavior = Some(Default::default());
    hpa.spec.metrics = vec![
        resource(
            "cpu",
            MetricTarget { type_: "Utilization".into(), average_utilization: Some(60), ..Default::default() },
        ),
        resource(
            "memory",
            MetricTarget {
                type_: "AverageValue".into(),
                average_value: Some(Quantity::from_i64(512 * 1024 * 1024)),
                ..Default::default()
            },
        ),
        MetricSpec {
            type_: "Pods".into(),
            pods: Some(Box::new(PodsMetricSource {
                metric: MetricIdentifier { name: "http_requests_per_second".into(), selector: None },
                target: MetricTarget {
                    type_: "AverageValue".into(),
                    average_value: Some(Quantity::from_i64(50)),
                    ..Default::default()
                },
            })),
            ..Default::default()
        },
    ];
    let scale = f64::from(max) / 30.0;
    let load = (0..72i64)
        .map(|k| {
            let phase = (k as f64 / 288.0) * std::f64::consts::TAU;
            let mut level = 0.55 - 0.45 * phase.cos();
            if k % 12 == 0 {
                level = (level * 2.0).min(1.5);
            }
            LoadPhase {
                at_ms: k * 300_000,
                values: vec![
                    Some(LoadValue::Total((level * 12_000.0 * scale) as i64)),
                    Some(LoadValue::PerPod(((200.0 + 300.0 * level) * 1024.0 * 1024.0) as i64 * 1000)),
                    Some(LoadValue::Total((level * 1_000_000.0 * scale) as i64)),
                ],
            }
        })
        .collect();
    let plan = Plan {
        hpa,
        options: HPAControllerConfiguration::default(),
        initial_replicas: 2,
        template: PodTemplate {
            containers: vec![Container {
                name: "app".into(),
                requests_milli: BTreeMap::from([("cpu".into(), 500), ("memory".into(), 512 * 1024 * 1024 * 1000)]),
                restart_policy: None,
            }],
            ..Default::default()
        },
        pod_start_after_ms: 5_000,
        pod_ready_after_ms: 30_000,
        metric_window: Duration::from_secs(15),
        selector: "app=web".into(),
        duration_ms: 6 * 3_600_000,
        keys: vec![
            MetricKey::Resource("cpu".into()),
            MetricKey::Resource("memory".into()),
            MetricKey::Pods("http_requests_per_second".into()),
        ],
        bindings: vec![Some(0), Some(1), Some(2)],
        load,
    };
    let fast = simulate_with(&plan, Backend::Fast);
    let reference = simulate_with(&plan, Backend::Reference);
    assert_same(&fast, &reference).unwrap();
    // The day is not trivial: it scales both ways.
    assert!(fast.steps.iter().any(|s| s.desired > s.replicas) && fast.steps.iter().any(|s| s.desired < s.replicas));
}
