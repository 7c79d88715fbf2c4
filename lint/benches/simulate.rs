//! Benchmark of `hpa-lint simulate`'s engine: a simulated day, 24 h of 15 s syncs (5,760
//! controller syncs) of one HPA with three metrics (cpu utilization, memory average value, a
//! Pods metric) under a load that changes every 5 minutes, each sync the controller's one sync
//! (`Autoscaler::reconcile`) on the pods and metrics answers of that instant.
//!
//! The argument is `maxReplicas`: the load is scaled so that the HPA uses its whole range, so
//! it also sets how many pods each sync reads (up to 4, 10 or 30). The target is a day in
//! under 10 ms.
//!
//! Run with `cargo bench -p hpa-lint --bench simulate`.

use std::collections::BTreeMap;
use std::time::Duration;

use hpa_core::api::Quantity;
use hpa_core::api::v2::{
    HorizontalPodAutoscaler, MetricIdentifier, MetricSpec, MetricTarget, PodsMetricSource, ResourceMetricSource,
};
use hpa_core::evaluator::simulation::{self, LoadPhase, LoadValue, MetricKey, Plan, PodTemplate};
use hpa_core::evaluator::{Container, HPAControllerConfiguration};

fn main() {
    divan::main();
}

fn resource(name: &str, target: MetricTarget) -> MetricSpec {
    MetricSpec {
        type_: "Resource".into(),
        resource: Some(Box::new(ResourceMetricSource { name: name.into(), target })),
        ..Default::default()
    }
}

/// The plan: 2..`max` replicas, a daily wave of load with a burst every hour (the load is
/// scaled so that the HPA uses its whole range).
fn plan(max: i32) -> Plan {
    let mut hpa = HorizontalPodAutoscaler::default();
    hpa.metadata.name = "web".into();
    hpa.metadata.namespace = "default".into();
    hpa.spec.scale_target_ref.kind = "Deployment".into();
    hpa.spec.scale_target_ref.name = "web".into();
    hpa.spec.scale_target_ref.api_version = "apps/v1".into();
    hpa.spec.min_replicas = Some(2);
    hpa.spec.max_replicas = max;
    let scale = f64::from(max) / 30.0;
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
    let load = (0..288i64)
        .map(|k| {
            // A daily wave between 10 % and 100 %, and a burst in the first 5 minutes of each hour.
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
    Plan {
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
        duration_ms: 24 * 3_600_000,
        keys: vec![
            MetricKey::Resource("cpu".into()),
            MetricKey::Resource("memory".into()),
            MetricKey::Pods("http_requests_per_second".into()),
        ],
        bindings: vec![Some(0), Some(1), Some(2)],
        load,
    }
}

/// A simulated day, 3 metrics: 5,760 syncs, every step recorded, for an HPA with at most `max`
/// replicas.
#[divan::bench(args = [4, 10, 30], sample_count = 20)]
fn day_of_syncs(bencher: divan::Bencher, max: i32) {
    let plan = plan(max);
    bencher.bench(|| {
        let sim = simulation::simulate(divan::black_box(&plan));
        assert_eq!(sim.steps.len(), 5760);
        sim
    });
}

/// The whole day without keeping the steps (the engine and the controller alone).
#[divan::bench(args = [30], sample_count = 20)]
fn day_of_syncs_unrecorded(bencher: divan::Bencher, max: i32) {
    let plan = plan(max);
    bencher.bench(|| {
        let mut sim = simulation::Simulator::new(divan::black_box(&plan));
        let mut n = 0usize;
        while let Some(step) = sim.step() {
            n += usize::from(step.rescaled);
        }
        n
    });
}
