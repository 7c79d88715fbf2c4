//! `autoscaling/v1` ⇄ internal, with the round-trip annotations.
//!
//! Mirrors `pkg/apis/autoscaling/v1/conversion.go`:
//! `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler` and its reverse,
//! the spec/status functions, and the per-metric functions (shared with v2beta1).

use crate::api::Quantity;
use crate::api::meta::CrossVersionObjectReference;
use crate::api::v1 as ext;
use crate::api::v2 as int;
use crate::features::KubernetesVersion;

use super::Conversion;
use super::annotations::{self as ann, AnnotationProblem};

/// `DefaultCPUUtilization`.
pub const DEFAULT_CPU_UTILIZATION: i32 = 80;

/// The 80 % (or given) CPU utilization metric.
pub fn cpu_utilization_metric(target: i32) -> int::MetricSpec {
    int::MetricSpec {
        type_: "Resource".into(),
        resource: Some(Box::new(int::ResourceMetricSource {
            name: "cpu".into(),
            target: int::MetricTarget {
                type_: "Utilization".into(),
                average_utilization: Some(target),
                ..Default::default()
            },
        })),
        ..Default::default()
    }
}

fn is_cpu_utilization(m: &int::MetricSpec) -> Option<i32> {
    match &m.resource {
        Some(r) if m.type_ == "Resource" && r.name == "cpu" => r.target.average_utilization,
        _ => None,
    }
}

/// v1 → internal, as [`KubernetesVersion::LATEST`] converts ([`to_internal_in`]).
pub fn to_internal(input: &ext::HorizontalPodAutoscaler) -> Conversion<int::HorizontalPodAutoscaler> {
    to_internal_in(input, KubernetesVersion::LATEST)
}

/// v1 → internal, as `release`'s kube-apiserver converts (its `ParseQuantity` reads the
/// quantities of the annotations).
pub fn to_internal_in(
    input: &ext::HorizontalPodAutoscaler,
    release: KubernetesVersion,
) -> Conversion<int::HorizontalPodAutoscaler> {
    let mut problems: Vec<AnnotationProblem> = Vec::new();
    let mut metadata = input.metadata.clone();
    let annotations = input.metadata.annotations.clone();
    ann::drop_round_trip(&mut metadata.annotations);

    let mut spec = int::HorizontalPodAutoscalerSpec {
        scale_target_ref: input.spec.scale_target_ref.clone(),
        min_replicas: input.spec.min_replicas,
        max_replicas: input.spec.max_replicas,
        metrics: Vec::new(),
        behavior: None,
    };
    if let Some(target) = input.spec.target_cpu_utilization_percentage {
        spec.metrics = vec![cpu_utilization_metric(target)];
    }
    let mut status = int::HorizontalPodAutoscalerStatus {
        observed_generation: input.status.observed_generation,
        last_scale_time: input.status.last_scale_time,
        current_replicas: input.status.current_replicas,
        desired_replicas: input.status.desired_replicas,
        current_metrics: None,
        conditions: Vec::new(),
    };
    if let Some(current) = input.status.current_cpu_utilization_percentage {
        status.current_metrics = Some(vec![int::MetricStatus {
            type_: "Resource".into(),
            resource: Some(int::ResourceMetricStatus {
                name: "cpu".into(),
                current: int::MetricValueStatus { average_utilization: Some(current), ..Default::default() },
            }),
            ..Default::default()
        }]);
    }

    if let Some(raw) = annotations.get(ann::METRICS)
        && let Some(other) =
            ann::decode_lenient::<Vec<ext::MetricSpec>>(ann::METRICS, "v1", raw, release, &mut problems)
    {
        let keep_zero = keeps_zero_object_value(release);
        let mut metrics: Vec<int::MetricSpec> = other.iter().map(|m| metric_spec_to_internal(m, keep_zero)).collect();
        if let Some(cpu) = spec.metrics.first() {
            metrics.push(cpu.clone());
        }
        spec.metrics = metrics;
    }
    if let Some(raw) = annotations.get(ann::BEHAVIOR) {
        spec.behavior = ann::decode_behavior(raw, release, &mut problems);
    }
    if let Some(raw) = annotations.get(ann::CURRENT_METRICS)
        && let Some(current) =
            ann::decode_lenient::<Vec<ext::MetricStatus>>(ann::CURRENT_METRICS, "v1", raw, release, &mut problems)
    {
        status.current_metrics = Some(current.iter().map(metric_status_to_internal).collect());
    }
    if spec.metrics.is_empty() {
        spec.metrics = vec![cpu_utilization_metric(DEFAULT_CPU_UTILIZATION)];
    }
    if let Some(raw) = annotations.get(ann::CONDITIONS)
        && let Some(conditions) = ann::decode_lenient::<Vec<ext::HorizontalPodAutoscalerCondition>>(
            ann::CONDITIONS,
            "v1",
            raw,
            release,
            &mut problems,
        )
    {
        status.conditions = conditions.into_iter().map(condition_to_internal).collect();
    }
    Conversion {
        object: int::HorizontalPodAutoscaler {
            api_version: int::API_VERSION.into(),
            kind: crate::api::KIND.into(),
            metadata,
            spec,
            status,
        },
        annotation_problems: problems,
        lossy: Vec::new(),
    }
}

/// internal → v1.
pub fn from_internal(input: &int::HorizontalPodAutoscaler) -> Conversion<ext::HorizontalPodAutoscaler> {
    let mut metadata = input.metadata.clone();
    ann::drop_round_trip(&mut metadata.annotations);

    let target_cpu = input.spec.metrics.iter().find_map(is_cpu_utilization);
    let other: Vec<ext::MetricSpec> =
        input.spec.metrics.iter().filter(|m| is_cpu_utilization(m).is_none()).map(metric_spec_from_internal).collect();
    if !other.is_empty()
        && let Ok(enc) = crate::go::to_go_json(&other)
    {
        metadata.annotations.insert(ann::METRICS.into(), enc);
    }
    if let Some(current) = input.status.current_metrics.as_ref().filter(|c| !c.is_empty()) {
        let converted: Vec<ext::MetricStatus> = current.iter().map(metric_status_from_internal).collect();
        if let Ok(enc) = crate::go::to_go_json(&converted) {
            metadata.annotations.insert(ann::CURRENT_METRICS.into(), enc);
        }
    }
    if let Some(b) = &input.spec.behavior {
        metadata.annotations.insert(ann::BEHAVIOR.into(), ann::encode_behavior(b));
    }
    if !input.status.conditions.is_empty() {
        let converted: Vec<ext::HorizontalPodAutoscalerCondition> =
            input.status.conditions.iter().cloned().map(condition_from_internal).collect();
        if let Ok(enc) = crate::go::to_go_json(&converted) {
            metadata.annotations.insert(ann::CONDITIONS.into(), enc);
        }
    }
    let current_cpu = input
        .status
        .current_metrics
        .iter()
        .flatten()
        .filter_map(|m| match &m.resource {
            Some(r) if m.type_ == "Resource" && r.name == "cpu" => r.current.average_utilization,
            _ => None,
        })
        .next_back();
    Conversion {
        object: ext::HorizontalPodAutoscaler {
            api_version: ext::API_VERSION.into(),
            kind: crate::api::KIND.into(),
            metadata,
            spec: ext::HorizontalPodAutoscalerSpec {
                scale_target_ref: input.spec.scale_target_ref.clone(),
                min_replicas: input.spec.min_replicas,
                max_replicas: input.spec.max_replicas,
                target_cpu_utilization_percentage: target_cpu,
            },
            status: ext::HorizontalPodAutoscalerStatus {
                observed_generation: input.status.observed_generation,
                last_scale_time: input.status.last_scale_time,
                current_replicas: input.status.current_replicas,
                desired_replicas: input.status.desired_replicas,
                current_cpu_utilization_percentage: current_cpu,
            },
        },
        annotation_problems: Vec::new(),
        lossy: Vec::new(),
    }
}

// === per-metric conversions (shared with v2beta1) ===

/// Whether `release`'s v1 conversion keeps an Object metric's zero `targetValue` as the
/// internal `target.value` when `averageValue` is set
/// (`Convert_v1_ObjectMetricSource_To_autoscaling_ObjectMetricSource`). 1.33 to 1.35 always take
/// `&in.TargetValue`, and the v1 type cannot omit it, so a v2 HPA with an `AverageValue` Object
/// target read through `autoscaling/v1` comes back with `target.value: "0"`, which validation
/// refuses (`must be positive`, kubernetes#87733). 1.36 keeps only a non-zero `targetValue` there
/// (#137856, CHANGELOG-1.36 v1.36.0-beta.0: "Fix bug where users can't update HPAv2 resources
/// that use object metrics with averageValue via the v1 HPA API").
pub(crate) fn keeps_zero_object_value(release: KubernetesVersion) -> bool {
    release < KubernetesVersion::V1_36
}

/// v1/v2beta1 `MetricSpec` → internal. `object_value_always` keeps `targetValue` as
/// `target.value`, even `"0"` next to an `averageValue`: v2beta1 always, and v1 before 1.36
/// (`keeps_zero_object_value`); v1 from 1.36 drops a zero `targetValue` when `averageValue` is
/// set (#137856).
pub fn metric_spec_to_internal(m: &ext::MetricSpec, object_value_always: bool) -> int::MetricSpec {
    int::MetricSpec {
        type_: m.type_.as_str().into(),
        object: m.object.as_ref().map(|o| {
            let type_ = if o.average_value.is_some() { "AverageValue" } else { "Value" };
            let keep_value = object_value_always || !(o.average_value.is_some() && o.target_value.is_zero());
            Box::new(int::ObjectMetricSource {
                described_object: o.target.clone(),
                target: int::MetricTarget {
                    type_: type_.into(),
                    value: keep_value.then(|| o.target_value.clone()),
                    average_value: o.average_value.clone(),
                    average_utilization: None,
                },
                metric: int::MetricIdentifier { name: o.metric_name.as_str().into(), selector: o.selector.clone() },
            })
        }),
        pods: m.pods.as_ref().map(|p| {
            Box::new(int::PodsMetricSource {
                metric: int::MetricIdentifier { name: p.metric_name.as_str().into(), selector: p.selector.clone() },
                target: int::MetricTarget {
                    type_: "AverageValue".into(),
                    average_value: Some(p.target_average_value.clone()),
                    ..Default::default()
                },
            })
        }),
        resource: m.resource.as_ref().map(|r| {
            Box::new(int::ResourceMetricSource {
                name: r.name.as_str().into(),
                target: resource_target(r.target_average_utilization, r.target_average_value.clone()),
            })
        }),
        container_resource: m.container_resource.as_ref().map(|r| {
            Box::new(int::ContainerResourceMetricSource {
                name: r.name.as_str().into(),
                target: resource_target(r.target_average_utilization, r.target_average_value.clone()),
                container: r.container.as_str().into(),
            })
        }),
        external: m.external.as_ref().map(|e| {
            Box::new(int::ExternalMetricSource {
                metric: int::MetricIdentifier {
                    name: e.metric_name.as_str().into(),
                    selector: e.metric_selector.clone(),
                },
                target: int::MetricTarget {
                    type_: if e.target_value.is_some() { "Value" } else { "AverageValue" }.into(),
                    value: e.target_value.clone(),
                    average_value: e.target_average_value.clone(),
                    average_utilization: None,
                },
            })
        }),
    }
}

fn resource_target(utilization: Option<i32>, average_value: Option<Quantity>) -> int::MetricTarget {
    int::MetricTarget {
        type_: if utilization.is_some() { "Utilization" } else { "AverageValue" }.into(),
        value: None,
        average_value,
        average_utilization: utilization,
    }
}

/// Where [`metric_spec_to_internal`] and [`metric_spec_from_internal`] move each field of a
/// metric whose path differs between the internal form and the v1 annotation types
/// (`autoscaling/v2beta1`'s metrics, `autoscaling/v1`'s metrics annotation): (path in the
/// internal form, path as written), within one metric. Upstream spells the same moves in
/// `Convert_autoscaling_*MetricSource_To_v2beta1_*MetricSource` and back
/// (`pkg/apis/autoscaling/v2beta1/conversion.go`); [`super::written_path`] reads this table.
pub const METRIC_FIELDS: &[(&str, &str)] = &[
    ("object.describedObject", "object.target"),
    ("object.metric.name", "object.metricName"),
    ("object.metric.selector", "object.selector"),
    ("object.target.value", "object.targetValue"),
    ("object.target.averageValue", "object.averageValue"),
    ("pods.metric.name", "pods.metricName"),
    ("pods.metric.selector", "pods.selector"),
    ("pods.target.averageValue", "pods.targetAverageValue"),
    ("resource.target.averageUtilization", "resource.targetAverageUtilization"),
    ("resource.target.averageValue", "resource.targetAverageValue"),
    ("containerResource.target.averageUtilization", "containerResource.targetAverageUtilization"),
    ("containerResource.target.averageValue", "containerResource.targetAverageValue"),
    ("external.metric.name", "external.metricName"),
    ("external.metric.selector", "external.metricSelector"),
    ("external.target.value", "external.targetValue"),
    ("external.target.averageValue", "external.targetAverageValue"),
];

/// internal → v1/v2beta1 `MetricSpec`.
pub fn metric_spec_from_internal(m: &int::MetricSpec) -> ext::MetricSpec {
    ext::MetricSpec {
        type_: m.type_.as_str().into(),
        object: m.object.as_ref().map(|o| ext::ObjectMetricSource {
            target: CrossVersionObjectReference {
                kind: o.described_object.kind.clone(),
                name: o.described_object.name.clone(),
                api_version: o.described_object.api_version.clone(),
            },
            metric_name: o.metric.name.as_str().into(),
            target_value: o.target.value.clone().unwrap_or_default(),
            selector: o.metric.selector.clone(),
            average_value: o.target.average_value.clone(),
        }),
        pods: m.pods.as_ref().map(|p| ext::PodsMetricSource {
            metric_name: p.metric.name.as_str().into(),
            target_average_value: p.target.average_value.clone().unwrap_or_default(),
            selector: p.metric.selector.clone(),
        }),
        resource: m.resource.as_ref().map(|r| ext::ResourceMetricSource {
            name: r.name.as_str().into(),
            target_average_utilization: r.target.average_utilization,
            target_average_value: r.target.average_value.clone(),
        }),
        container_resource: m.container_resource.as_ref().map(|r| ext::ContainerResourceMetricSource {
            name: r.name.as_str().into(),
            target_average_utilization: r.target.average_utilization,
            target_average_value: r.target.average_value.clone(),
            container: r.container.as_str().into(),
        }),
        external: m.external.as_ref().map(|e| ext::ExternalMetricSource {
            metric_name: e.metric.name.as_str().into(),
            metric_selector: e.metric.selector.clone(),
            target_value: e.target.value.clone(),
            target_average_value: e.target.average_value.clone(),
        }),
    }
}

/// v1/v2beta1 `MetricStatus` → internal.
pub fn metric_status_to_internal(m: &ext::MetricStatus) -> int::MetricStatus {
    int::MetricStatus {
        type_: m.type_.clone(),
        object: m.object.as_ref().map(|o| int::ObjectMetricStatus {
            metric: int::MetricIdentifier { name: o.metric_name.as_str().into(), selector: o.selector.clone() },
            current: int::MetricValueStatus {
                value: Some(o.current_value.clone()),
                average_value: o.average_value.clone(),
                average_utilization: None,
            },
            described_object: o.target.clone(),
        }),
        pods: m.pods.as_ref().map(|p| int::PodsMetricStatus {
            metric: int::MetricIdentifier { name: p.metric_name.as_str().into(), selector: p.selector.clone() },
            current: int::MetricValueStatus {
                average_value: Some(p.current_average_value.clone()),
                ..Default::default()
            },
        }),
        resource: m.resource.as_ref().map(|r| int::ResourceMetricStatus {
            name: r.name.clone(),
            current: int::MetricValueStatus {
                value: None,
                average_value: Some(r.current_average_value.clone()),
                average_utilization: r.current_average_utilization,
            },
        }),
        container_resource: m.container_resource.as_ref().map(|r| int::ContainerResourceMetricStatus {
            name: r.name.clone(),
            current: int::MetricValueStatus {
                value: None,
                average_value: Some(r.current_average_value.clone()),
                average_utilization: r.current_average_utilization,
            },
            container: r.container.clone(),
        }),
        external: m.external.as_ref().map(|e| int::ExternalMetricStatus {
            metric: int::MetricIdentifier { name: e.metric_name.as_str().into(), selector: e.metric_selector.clone() },
            current: int::MetricValueStatus {
                value: Some(e.current_value.clone()),
                average_value: e.current_average_value.clone(),
                average_utilization: None,
            },
        }),
    }
}

/// internal → v1/v2beta1 `MetricStatus`.
pub fn metric_status_from_internal(m: &int::MetricStatus) -> ext::MetricStatus {
    ext::MetricStatus {
        type_: m.type_.clone(),
        object: m.object.as_ref().map(|o| ext::ObjectMetricStatus {
            target: o.described_object.clone(),
            metric_name: o.metric.name.as_str().into(),
            current_value: o.current.value.clone().unwrap_or_default(),
            selector: o.metric.selector.clone(),
            average_value: o.current.average_value.clone(),
        }),
        pods: m.pods.as_ref().map(|p| ext::PodsMetricStatus {
            metric_name: p.metric.name.as_str().into(),
            current_average_value: p.current.average_value.clone().unwrap_or_default(),
            selector: p.metric.selector.clone(),
        }),
        resource: m.resource.as_ref().map(|r| ext::ResourceMetricStatus {
            name: r.name.clone(),
            current_average_utilization: r.current.average_utilization,
            current_average_value: r.current.average_value.clone().unwrap_or_default(),
        }),
        container_resource: m.container_resource.as_ref().map(|r| ext::ContainerResourceMetricStatus {
            name: r.name.clone(),
            current_average_utilization: r.current.average_utilization,
            current_average_value: r.current.average_value.clone().unwrap_or_default(),
            container: r.container.clone(),
        }),
        external: m.external.as_ref().map(|e| ext::ExternalMetricStatus {
            metric_name: e.metric.name.as_str().into(),
            metric_selector: e.metric.selector.clone(),
            current_value: e.current.value.clone().unwrap_or_default(),
            current_average_value: e.current.average_value.clone(),
        }),
    }
}

fn condition_to_internal(c: ext::HorizontalPodAutoscalerCondition) -> int::HorizontalPodAutoscalerCondition {
    int::HorizontalPodAutoscalerCondition {
        type_: c.type_,
        status: c.status,
        last_transition_time: c.last_transition_time,
        reason: c.reason,
        message: c.message,
        observed_generation: c.observed_generation,
    }
}

fn condition_from_internal(c: int::HorizontalPodAutoscalerCondition) -> ext::HorizontalPodAutoscalerCondition {
    ext::HorizontalPodAutoscalerCondition {
        type_: c.type_,
        status: c.status,
        last_transition_time: c.last_transition_time,
        reason: c.reason,
        message: c.message,
        observed_generation: c.observed_generation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_fields_say_where_the_conversion_moves_each_field() {
        use crate::api::LabelSelector;
        let q = |s: &str| Quantity::parse(s).unwrap();
        let selector =
            |v: &str| Some(LabelSelector { match_labels: [("k".into(), v.into())].into(), ..Default::default() });
        let target = CrossVersionObjectReference { kind: "Service".into(), name: "s".into(), api_version: "v1".into() };
        // Every field of every source set, each to a value of its own.
        let written = [
            ext::MetricSpec {
                type_: "Object".into(),
                object: Some(ext::ObjectMetricSource {
                    target,
                    metric_name: "o".into(),
                    target_value: q("1"),
                    selector: selector("o"),
                    average_value: Some(q("2")),
                }),
                ..Default::default()
            },
            ext::MetricSpec {
                type_: "Pods".into(),
                pods: Some(ext::PodsMetricSource {
                    metric_name: "p".into(),
                    target_average_value: q("3"),
                    selector: selector("p"),
                }),
                ..Default::default()
            },
            ext::MetricSpec {
                type_: "Resource".into(),
                resource: Some(ext::ResourceMetricSource {
                    name: "cpu".into(),
                    target_average_utilization: Some(50),
                    target_average_value: Some(q("4")),
                }),
                ..Default::default()
            },
            ext::MetricSpec {
                type_: "ContainerResource".into(),
                container_resource: Some(ext::ContainerResourceMetricSource {
                    name: "memory".into(),
                    target_average_utilization: Some(60),
                    target_average_value: Some(q("5")),
                    container: "app".into(),
                }),
                ..Default::default()
            },
            ext::MetricSpec {
                type_: "External".into(),
                external: Some(ext::ExternalMetricSource {
                    metric_name: "e".into(),
                    metric_selector: selector("e"),
                    target_value: Some(q("6")),
                    target_average_value: Some(q("7")),
                }),
                ..Default::default()
            },
        ];
        let at = |v: &serde_json::Value, path: &str| v.pointer(&format!("/{}", path.replace('.', "/"))).cloned();
        for m in &written {
            let external = serde_json::to_value(m).unwrap();
            let internal = serde_json::to_value(metric_spec_to_internal(m, true)).unwrap();
            // Each listed move holds: the value written at one path is the internal form's at
            // the other.
            let source = external.as_object().unwrap().keys().find(|k| *k != "type").unwrap().clone();
            for (to, from) in METRIC_FIELDS.iter().filter(|(to, _)| to.starts_with(&format!("{source}."))) {
                assert!(at(&external, from).is_some(), "{from} is not written");
                assert_eq!(at(&internal, to), at(&external, from), "{from} -> {to}");
            }
            // And every field written elsewhere than the internal form holds it is listed.
            for field in external[&source].as_object().unwrap().keys() {
                let path = format!("{source}.{field}");
                if at(&internal, &path) != at(&external, &path) {
                    assert!(METRIC_FIELDS.iter().any(|(_, from)| *from == path), "{path} moves and is not listed");
                }
            }
        }
    }
}
