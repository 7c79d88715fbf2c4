//! Controller vectors (`conformance/controller`): replica calculation, normalization and
//! multi-sync timelines, run through `hpa_core::evaluator`.
//!
//! Vector times are seconds on one clock (`"zero"` is Go's zero time); they map to
//! [`Timestamp`]s as seconds since the Unix epoch. In `replica_calc.json` and
//! `normalize.json` "now" is 0 and histories are given by age.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value, json};

use hpa_core::api::CrossVersionObjectReference;
use hpa_core::api::v2::{
    HPAScalingRules, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerCondition,
    HorizontalPodAutoscalerSpec, HorizontalPodAutoscalerStatus, MetricSpec,
};
use hpa_core::evaluator::behavior::{self, NormalizationArgs, TimestampedRecommendation, TimestampedScaleEvent};
use hpa_core::evaluator::controller::{
    self, ControllerState, MetricId, MetricQuery, ObjectMetricValue, ReadError, Scale, SyncInput,
};
use hpa_core::evaluator::replicas::{
    self, ConditionStatus, Container, ContainerUsage, ObjectSample, Pod, PodIndex, PodMetric, PodMetricsInfo,
    PodMetricsItem, PodPhase, PodSample, ReadyCondition, ReplicaCalculator, Tolerances, Workspace,
};
use hpa_core::evaluator::time::Timestamp;
use hpa_core::evaluator::{ControllerRelease, HPAControllerConfiguration};
use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};

use super::project;

type R<T> = Result<T, String>;

/// "now" of the function vectors.
const NOW: Timestamp = Timestamp::from_secs(0);

/// A `replica_calc.json` or `normalize.json` vector.
pub fn run_function(vector: &Value) -> (bool, Value) {
    let expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let function = vector.get("function").and_then(Value::as_str).unwrap_or("");
    let inputs = vector.get("inputs").unwrap_or(&Value::Null);
    let config = vector.get("config").unwrap_or(&Value::Null);
    let got = match function {
        "stabilizeRecommendation"
        | "convertDesiredReplicasWithRules"
        | "stabilizeRecommendationWithBehaviors"
        | "convertDesiredReplicasWithBehaviorRate"
        | "storeScaleEvent"
        | "calculateScaleUpLimitWithScalingRules"
        | "calculateScaleDownLimitWithBehaviors" => run_normalize(function, inputs, config),
        _ => run_replica_calc(function, inputs, config),
    };
    match got {
        Ok(got) => compare(&got, &expect),
        Err(e) => (false, json!({"error": e})),
    }
}

/// Compares the asserted keys; `error_contains` is a substring test on the error message.
fn compare(got: &Value, expect: &Value) -> (bool, Value) {
    let Some(e) = expect.as_object() else { return (got == expect, got.clone()) };
    let mut pass = true;
    let mut shown = project(got, expect);
    for (k, want) in e {
        if k == "error_contains" {
            let msg = got.get("error").and_then(Value::as_str);
            let ok = match (msg, want.as_str()) {
                (Some(m), Some(needle)) => m.contains(needle),
                _ => false,
            };
            pass &= ok;
            if let Value::Object(m) = &mut shown {
                let v = if ok { want.clone() } else { msg.map_or(Value::Null, |m| Value::String(m.to_string())) };
                m.insert(k.clone(), v);
            }
        } else {
            pass &= got.get(k) == Some(want);
        }
    }
    (pass, shown)
}

// === inputs ===

fn field<'a>(v: &'a Value, key: &str) -> R<&'a Value> {
    v.get(key).ok_or_else(|| format!("missing field {key}"))
}

fn i64_of(v: &Value, key: &str) -> R<i64> {
    field(v, key)?.as_i64().ok_or_else(|| format!("{key} is not an integer"))
}

fn i32_of(v: &Value, key: &str) -> R<i32> {
    i32::try_from(i64_of(v, key)?).map_err(|_| format!("{key} is out of the int32 range"))
}

fn f64_of(v: &Value, key: &str) -> R<f64> {
    field(v, key)?.as_f64().ok_or_else(|| format!("{key} is not a number"))
}

fn str_of<'a>(v: &'a Value, key: &str) -> R<&'a str> {
    field(v, key)?.as_str().ok_or_else(|| format!("{key} is not a string"))
}

fn array_of<'a>(v: &'a Value, key: &str) -> R<&'a [Value]> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("{key} is not an array")),
    }
}

fn secs(v: &Value, key: &str) -> R<Duration> {
    let s = f64_of(v, key)?;
    Duration::try_from_secs_f64(s).map_err(|e| format!("{key}: {e}"))
}

/// A number of seconds, possibly negative, as Go's `time.Duration` (nanoseconds; `as`
/// saturates).
fn nanos(v: &Value, key: &str) -> R<i64> {
    Ok((f64_of(v, key)? * 1e9).round() as i64)
}

/// `"zero"`, a number of seconds (rounded to the millisecond; `as` saturates), or `null`.
fn instant(v: &Value) -> R<Option<Timestamp>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s == "zero" => Ok(Some(Timestamp::ZERO)),
        Value::Number(n) => n
            .as_f64()
            .map(|s| Some(Timestamp::from_millis((s * 1000.0).round() as i64)))
            .ok_or_else(|| "bad time".into()),
        other => Err(format!("not a time: {other}")),
    }
}

fn instant_of(v: &Value, key: &str) -> R<Timestamp> {
    instant(field(v, key)?)?.ok_or_else(|| format!("{key} is null"))
}

fn milli_map(v: Option<&Value>) -> R<BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(m)) = v {
        for (k, v) in m {
            out.insert(k.clone(), v.as_i64().ok_or_else(|| format!("{k} is not an integer"))?);
        }
    }
    Ok(out)
}

fn container(v: &Value) -> R<Container> {
    Ok(Container {
        name: str_of(v, "name")?.to_string(),
        requests_milli: milli_map(v.get("requests_milli"))?,
        restart_policy: v.get("restart_policy").and_then(Value::as_str).map(String::from),
    })
}

fn pod(v: &Value) -> R<Pod> {
    let ready_condition = match v.get("ready_condition") {
        None | Some(Value::Null) => None,
        Some(c) => Some(ReadyCondition {
            status: ConditionStatus::parse(str_of(c, "status")?),
            last_transition_time: instant_of(c, "last_transition_time")?,
        }),
    };
    Ok(Pod {
        name: str_of(v, "name")?.into(),
        phase: PodPhase::parse(v.get("phase").and_then(Value::as_str).unwrap_or("")),
        deleted: v.get("deleted").and_then(Value::as_bool).unwrap_or(false),
        start_time: instant(v.get("start_time").unwrap_or(&Value::Null))?,
        ready_condition,
        containers: array_of(v, "containers")?.iter().map(container).collect::<R<_>>()?,
        init_containers: array_of(v, "init_containers")?.iter().map(container).collect::<R<_>>()?,
        pod_requests_milli: milli_map(v.get("pod_requests_milli"))?,
        overhead_milli: milli_map(v.get("overhead_milli"))?,
    })
}

fn pods(v: &Value, key: &str) -> R<Vec<Pod>> {
    array_of(v, key)?.iter().map(pod).collect()
}

fn pod_metrics_item(v: &Value) -> R<PodMetricsItem> {
    let containers = array_of(v, "containers")?
        .iter()
        .map(|c| {
            Ok(ContainerUsage { name: str_of(c, "name")?.to_string(), usage_milli: milli_map(c.get("usage_milli"))? })
        })
        .collect::<R<_>>()?;
    Ok(PodMetricsItem {
        pod: str_of(v, "pod")?.into(),
        timestamp: instant_of(v, "timestamp")?,
        window_nanos: nanos(v, "window_s")?,
        containers,
    })
}

fn pod_sample(v: &Value) -> R<PodSample> {
    let window_seconds = match v.get("window_s") {
        None | Some(Value::Null) => None,
        Some(_) => Some(i64_of(v, "window_s")?),
    };
    Ok(PodSample {
        pod: str_of(v, "pod")?.into(),
        value_milli: i64_of(v, "value_milli")?,
        timestamp: instant_of(v, "timestamp")?,
        window_seconds,
    })
}

/// The gates a vector's `config` names: `kubernetes_version` (`"1.33"` .. `"1.38"`) with
/// `feature_gates` overrides. Without `kubernetes_version`, the newest release (1.37), or 1.36
/// when an override needs a gate the newest release locks (`HPAConfigurableTolerance: false`).
fn gates(config: &Value) -> R<FeatureGates> {
    let fg = config.get("feature_gates");
    let releases = match config.get("kubernetes_version") {
        None | Some(Value::Null) => vec![KubernetesVersion::LATEST, KubernetesVersion::V1_36],
        Some(v) => {
            let v = v.as_str().ok_or("kubernetes_version is not a string")?;
            vec![KubernetesVersion::parse(v).map_err(|e| e.to_string())?]
        }
    };
    let mut last_err = String::new();
    for version in releases {
        let mut gates = FeatureGates::new(version);
        let mut ok = true;
        if let Some(Value::Object(m)) = fg {
            for (name, value) in m {
                let gate = Gate::from_name(name).ok_or_else(|| format!("unknown gate {name}"))?;
                let on = value.as_bool().ok_or_else(|| format!("gate {name} is not a bool"))?;
                if let Err(e) = gates.set(gate, on) {
                    last_err = e.to_string();
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Ok(gates);
        }
    }
    Err(last_err)
}

/// The calculator of the controller the vector's `config` describes (its release and gates).
fn calculator(config: &Value) -> R<ReplicaCalculator> {
    let controller = HPAControllerConfiguration {
        cpu_initialization_period: secs(config, "cpu_initialization_period_s")?,
        initial_readiness_delay: secs(config, "delay_of_initial_readiness_status_s")?,
        ..HPAControllerConfiguration::new(gates(config)?)
    };
    Ok(controller.replica_calculator())
}

fn tolerances(config: &Value) -> R<Tolerances> {
    match config.get("tolerance") {
        Some(Value::Object(_)) => {
            let t = field(config, "tolerance")?;
            Ok(Tolerances { scale_down: f64_of(t, "scale_down")?, scale_up: f64_of(t, "scale_up")? })
        }
        Some(Value::Number(n)) => n.as_f64().map(Tolerances::uniform).ok_or_else(|| "bad tolerance".into()),
        _ => Ok(Tolerances::default()),
    }
}

fn error_value(e: impl ToString) -> Value {
    json!({"error": e.to_string()})
}

// === replica_calc.json ===

fn run_replica_calc(function: &str, inputs: &Value, config: &Value) -> R<Value> {
    let calc = calculator(config)?;
    let tol = tolerances(config)?;
    let ws = &mut Workspace::default();
    let mut index = PodIndex::default();
    let mut entries = Vec::new();
    let metrics_items =
        || -> R<Vec<PodMetricsItem>> { array_of(inputs, "resource_metrics")?.iter().map(pod_metrics_item).collect() };
    let object = || -> R<ObjectSample> {
        Ok(ObjectSample { value_milli: i64_of(inputs, "object_value_milli")?, timestamp: Timestamp::ZERO })
    };
    let external = || -> R<Vec<i64>> {
        array_of(inputs, "external_values_milli")?
            .iter()
            .map(|v| v.as_i64().ok_or_else(|| "external value is not an integer".to_string()))
            .collect()
    };
    let object_ref = CrossVersionObjectReference {
        kind: "Deployment".into(),
        name: "some-deployment".into(),
        api_version: "apps/v1".into(),
    };
    let plain = |r: Result<replicas::MetricReplicas, replicas::CalcError>| match r {
        Ok(r) => json!({"replicas": r.replicas, "usage_milli": r.usage_milli}),
        Err(e) => error_value(e),
    };
    // Every function but the per-pod Object and External ones reads pods.
    let pods = match function {
        "GetObjectPerPodMetricReplicas" | "GetExternalPerPodMetricReplicas" => Vec::new(),
        _ => pods(inputs, "pods")?,
    };
    Ok(match function {
        "GetResourceReplicas" => {
            let r = calc.get_resource_replicas(
                ws,
                NOW,
                i32_of(inputs, "current_replicas")?,
                i32_of(inputs, "target_utilization")?,
                str_of(inputs, "resource")?,
                inputs.get("container").and_then(Value::as_str).unwrap_or(""),
                tol,
                Ok(index.index(&pods).matched(&metrics_items()?, &mut entries)),
            );
            match r {
                Ok(r) => {
                    json!({"replicas": r.replicas, "utilization": r.utilization, "raw_value_milli": r.raw_value_milli})
                }
                Err(e) => error_value(e),
            }
        }
        "GetRawResourceReplicas" => plain(calc.get_raw_resource_replicas(
            ws,
            NOW,
            i32_of(inputs, "current_replicas")?,
            i64_of(inputs, "target_milli")?,
            str_of(inputs, "resource")?,
            inputs.get("container").and_then(Value::as_str).unwrap_or(""),
            tol,
            Ok(index.index(&pods).matched(&metrics_items()?, &mut entries)),
        )),
        "GetMetricReplicas" => {
            let samples = array_of(inputs, "pod_metrics")?.iter().map(pod_sample).collect::<R<Vec<_>>>()?;
            plain(calc.get_metric_replicas(
                ws,
                NOW,
                i32_of(inputs, "current_replicas")?,
                i64_of(inputs, "target_milli")?,
                "qps",
                tol,
                Ok(index.index(&pods).matched(&samples, &mut entries)),
            ))
        }
        "GetObjectMetricReplicas" => plain(calc.get_object_metric_replicas(
            i32_of(inputs, "current_replicas")?,
            i64_of(inputs, "target_milli")?,
            "qps",
            tol,
            "default",
            &object_ref,
            Ok(object()?),
            &pods,
        )),
        "GetObjectPerPodMetricReplicas" => plain(calc.get_object_per_pod_metric_replicas(
            i32_of(inputs, "status_replicas")?,
            i64_of(inputs, "target_average_milli")?,
            "qps",
            tol,
            "default",
            &object_ref,
            Ok(object()?),
        )),
        "GetExternalMetricReplicas" => plain(calc.get_external_metric_replicas(
            i32_of(inputs, "current_replicas")?,
            i64_of(inputs, "target_milli")?,
            "qps",
            tol,
            "default",
            None,
            Ok(&external()?),
            &pods,
        )),
        "GetExternalPerPodMetricReplicas" => plain(calc.get_external_per_pod_metric_replicas(
            i32_of(inputs, "status_replicas")?,
            i64_of(inputs, "target_average_milli")?,
            "qps",
            tol,
            "default",
            None,
            Ok(&external()?),
        )),
        "groupPods" => {
            let mut metrics = PodMetricsInfo::new();
            if let Some(Value::Object(m)) = inputs.get("metrics") {
                for (name, s) in m {
                    let metric = PodMetric {
                        timestamp: instant_of(s, "timestamp")?,
                        window_nanos: nanos(s, "window_s")?,
                        value: i64_of(s, "value")?,
                    };
                    metrics.insert(name.clone(), metric);
                }
            }
            let g = replicas::group_pods(&pods, &metrics, str_of(inputs, "resource")?, &calc, NOW);
            json!({"ready_count": g.ready_count, "unready": g.unready, "missing": g.missing, "ignored": g.ignored})
        }
        "calculateRequests" => {
            match replicas::calculate_requests(
                &pods,
                inputs.get("container").and_then(Value::as_str).unwrap_or(""),
                str_of(inputs, "resource")?,
                &calc,
            ) {
                Ok(r) => json!({"requests_milli": r}),
                Err(e) => error_value(e),
            }
        }
        other => return Err(format!("unknown function {other}")),
    })
}

// === normalize.json ===

fn rules(v: &Value) -> R<HPAScalingRules> {
    hpa_core::api::decode_as(v).map_err(|e| format!("bad rules: {e:?}"))
}

fn recommendations(v: &Value, key: &str) -> R<Vec<TimestampedRecommendation>> {
    array_of(v, key)?
        .iter()
        .map(|r| {
            Ok(TimestampedRecommendation {
                recommendation: i32_of(r, "value")?,
                timestamp: NOW.plus_secs(-i64_of(r, "age_s")?),
            })
        })
        .collect()
}

fn scale_events(v: &Value, key: &str) -> R<Vec<TimestampedScaleEvent>> {
    array_of(v, key)?
        .iter()
        .map(|e| {
            Ok(TimestampedScaleEvent {
                replica_change: i32_of(e, "change")?,
                timestamp: NOW.plus_secs(-i64_of(e, "age_s")?),
                outdated: e.get("outdated").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect()
}

fn limited_json(l: behavior::Limited) -> Value {
    json!({"replicas": l.replicas, "reason": l.reason})
}

fn run_normalize(function: &str, inputs: &Value, config: &Value) -> R<Value> {
    let release = ControllerRelease::of(gates(config)?.version());
    Ok(match function {
        "stabilizeRecommendation" => {
            let mut recs = recommendations(inputs, "recommendations")?;
            let stabilized = behavior::stabilize_recommendation(
                &mut recs,
                i32_of(inputs, "prenormalized_desired")?,
                secs(inputs, "downscale_stabilization_window_s")?,
                NOW,
            );
            let values: Vec<i32> = recs.iter().map(|r| r.recommendation).collect();
            json!({"stabilized": stabilized, "recommendations_len_after": recs.len(), "recommendation_values_after": values})
        }
        "convertDesiredReplicasWithRules" => limited_json(behavior::convert_desired_replicas_with_rules(
            i32_of(inputs, "current_replicas")?,
            i32_of(inputs, "desired_replicas")?,
            i32_of(inputs, "min_replicas")?,
            i32_of(inputs, "max_replicas")?,
            f64_of(inputs, "scale_up_limit_factor").unwrap_or(2.0),
            f64_of(inputs, "scale_up_limit_minimum").unwrap_or(4.0),
        )),
        "stabilizeRecommendationWithBehaviors" => {
            let window = |key| -> R<HPAScalingRules> {
                Ok(HPAScalingRules { stabilization_window_seconds: Some(i32_of(inputs, key)?), ..Default::default() })
            };
            let (up, down) = (window("scale_up_stabilization_window_s")?, window("scale_down_stabilization_window_s")?);
            let args = NormalizationArgs {
                scale_up: &up,
                scale_down: &down,
                min_replicas: 0,
                max_replicas: i32::MAX,
                current_replicas: i32_of(inputs, "current_replicas")?,
                desired_replicas: i32_of(inputs, "prenormalized_desired")?,
                release,
            };
            let mut recs = recommendations(inputs, "recommendations")?;
            let s = behavior::stabilize_recommendation_with_behaviors(&mut recs, &args, NOW);
            let values: Vec<i32> = recs.iter().map(|r| r.recommendation).collect();
            json!({"stabilized": s.replicas, "recommendation_values_after": values, "reason": s.reason})
        }
        "convertDesiredReplicasWithBehaviorRate" => {
            let (up, down) = (rules(field(inputs, "scale_up_rules")?)?, rules(field(inputs, "scale_down_rules")?)?);
            let args = NormalizationArgs {
                scale_up: &up,
                scale_down: &down,
                min_replicas: i32_of(inputs, "min_replicas")?,
                max_replicas: i32_of(inputs, "max_replicas")?,
                current_replicas: i32_of(inputs, "current_replicas")?,
                desired_replicas: i32_of(inputs, "desired_replicas")?,
                release,
            };
            limited_json(behavior::convert_desired_replicas_with_behavior_rate(
                &args,
                &scale_events(inputs, "scale_up_events")?,
                &scale_events(inputs, "scale_down_events")?,
                NOW,
            ))
        }
        "calculateScaleUpLimitWithScalingRules" | "calculateScaleDownLimitWithBehaviors" => {
            let r = rules(field(inputs, "rules")?)?;
            let current = i32_of(inputs, "current_replicas")?;
            let (up, down) = (scale_events(inputs, "scale_up_events")?, scale_events(inputs, "scale_down_events")?);
            let limit = if function == "calculateScaleUpLimitWithScalingRules" {
                behavior::calculate_scale_up_limit_with_scaling_rules(current, &up, &down, &r, NOW, release)
            } else {
                behavior::calculate_scale_down_limit_with_behaviors(current, &up, &down, &r, NOW)
            };
            json!({"limit": limit})
        }
        "storeScaleEvent" => {
            let up_direction = str_of(inputs, "direction")? == "up";
            let before = scale_events(inputs, "events_before")?;
            let check = i32_of(inputs, "change_in_period_check_s")?;
            let change_before = behavior::get_replicas_change_per_period(check, &before, NOW);
            let behavior = match field(inputs, "rules")? {
                Value::Null => None,
                r => {
                    let r = Some(rules(r)?);
                    Some(if up_direction {
                        HorizontalPodAutoscalerBehavior { scale_up: r, scale_down: None }
                    } else {
                        HorizontalPodAutoscalerBehavior { scale_up: None, scale_down: r }
                    })
                }
            };
            let (mut ups, mut downs) = if up_direction { (before, vec![]) } else { (vec![], before) };
            let stored = behavior::store_scale_event(
                behavior.as_ref(),
                &mut ups,
                &mut downs,
                i32_of(inputs, "prev_replicas")?,
                i32_of(inputs, "new_replicas")?,
                NOW,
            );
            let events = if up_direction { &ups } else { &downs };
            let after: Vec<Value> = events
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let new = stored.is_some_and(|(_, at)| at == i);
                    json!({"change": e.replica_change, "outdated": e.outdated, "new": new})
                })
                .collect();
            json!({"change_in_period_before": change_before, "events_after": after})
        }
        other => return Err(format!("unknown function {other}")),
    })
}

// === timelines.json ===

/// Rewrites the vectors' milli targets (`valueMilli`, `averageValueMilli`) into quantities.
fn milli_targets(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                match (k.as_str(), v.as_i64()) {
                    ("valueMilli", Some(n)) => out.insert("value".into(), Value::String(format!("{n}m"))),
                    ("averageValueMilli", Some(n)) => out.insert("averageValue".into(), Value::String(format!("{n}m"))),
                    _ => out.insert(k.clone(), milli_targets(v)),
                };
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(milli_targets).collect()),
        other => other.clone(),
    }
}

fn timeline_hpa(v: &Value) -> R<HorizontalPodAutoscaler> {
    let h = field(v, "hpa")?;
    let kind = h.get("scale_target_kind").and_then(Value::as_str).unwrap_or("Deployment");
    let api_version = if kind == "ReplicationController" { "v1" } else { "apps/v1" };
    let metrics: Vec<MetricSpec> =
        hpa_core::api::decode_as(&milli_targets(field(h, "metrics")?)).map_err(|e| format!("bad metrics: {e:?}"))?;
    let behavior: Option<HorizontalPodAutoscalerBehavior> = match h.get("behavior") {
        None | Some(Value::Null) => None,
        Some(b) => Some(hpa_core::api::decode_as(b).map_err(|e| format!("bad behavior: {e:?}"))?),
    };
    let status = field(v, "initial_status")?;
    let conditions = array_of(status, "conditions")?
        .iter()
        .map(|c| {
            Ok(HorizontalPodAutoscalerCondition {
                type_: str_of(c, "type")?.to_string(),
                status: str_of(c, "status")?.to_string(),
                reason: c.get("reason").and_then(Value::as_str).unwrap_or("").to_string(),
                ..Default::default()
            })
        })
        .collect::<R<_>>()?;
    let mut hpa = HorizontalPodAutoscaler {
        spec: HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                kind: kind.to_string(),
                name: "test-target".into(),
                api_version: api_version.into(),
            },
            min_replicas: match h.get("min_replicas") {
                None | Some(Value::Null) => None,
                Some(_) => Some(i32_of(h, "min_replicas")?),
            },
            max_replicas: i32_of(h, "max_replicas")?,
            metrics,
            behavior,
        },
        status: HorizontalPodAutoscalerStatus {
            current_replicas: i32_of(status, "current_replicas")?,
            desired_replicas: i32_of(status, "desired_replicas")?,
            conditions,
            ..Default::default()
        },
        ..Default::default()
    };
    if let Some(generation) = h.get("generation").and_then(Value::as_i64) {
        hpa.metadata.generation = generation;
    }
    hpa.metadata.name = "test-hpa".into();
    hpa.metadata.namespace = "test-namespace".into();
    Ok(hpa)
}

fn timeline_options(config: &Value) -> R<HPAControllerConfiguration> {
    Ok(HPAControllerConfiguration {
        tolerance: f64_of(config, "tolerance")?,
        downscale_stabilization_window: secs(config, "downscale_stabilization_s")?,
        cpu_initialization_period: secs(config, "cpu_initialization_period_s")?,
        initial_readiness_delay: secs(config, "delay_of_initial_readiness_status_s")?,
        scale_up_limit_factor: f64_of(config, "scale_up_limit_factor")?,
        scale_up_limit_minimum: f64_of(config, "scale_up_limit_minimum")?,
        gates: gates(config)?,
        ..Default::default()
    })
}

fn timeline_state(v: &Value) -> R<ControllerState> {
    let s = field(v, "initial_controller_state")?;
    let at = |e: &Value| -> R<Timestamp> { instant_of(e, "t") };
    let recommendations = match s.get("recommendations") {
        None | Some(Value::Null) => None,
        Some(_) => Some(
            array_of(s, "recommendations")?
                .iter()
                .map(|r| Ok(TimestampedRecommendation { recommendation: i32_of(r, "value")?, timestamp: at(r)? }))
                .collect::<R<_>>()?,
        ),
    };
    let events = |key| -> R<Vec<TimestampedScaleEvent>> {
        array_of(s, key)?
            .iter()
            .map(|e| {
                Ok(TimestampedScaleEvent {
                    replica_change: i32_of(e, "change")?,
                    timestamp: at(e)?,
                    outdated: e.get("outdated").and_then(Value::as_bool).unwrap_or(false),
                })
            })
            .collect()
    };
    Ok(ControllerState {
        recommendations,
        scale_up_events: events("scale_up_events")?,
        scale_down_events: events("scale_down_events")?,
    })
}

/// The metrics of `hpa`'s specs of `type_` named `name` ([`MetricId`]: name and selector): a
/// vector names an answer by the metric's name only, as upstream's fake metrics clients
/// answer whatever the selector; without such a spec, the name without a selector.
fn ids_named(hpa: &HorizontalPodAutoscaler, type_: &str, name: &str) -> Vec<MetricId> {
    let mut ids: Vec<MetricId> = hpa
        .spec
        .metrics
        .iter()
        .filter_map(MetricQuery::of)
        .filter(|q| {
            q.metric().name == name
                && matches!(
                    (q, type_),
                    (MetricQuery::Pods { .. }, "Pods")
                        | (MetricQuery::External { .. }, "External")
                        | (MetricQuery::Object { .. }, "Object")
                )
        })
        .map(|q| q.metric().clone())
        .collect();
    ids.dedup();
    if ids.is_empty() {
        ids.push(MetricId::from(name));
    }
    ids
}

fn sync_input(s: &Value, hpa: &HorizontalPodAutoscaler, release: KubernetesVersion) -> R<SyncInput> {
    let scale = field(s, "scale")?;
    let selector = scale.get("selector").and_then(Value::as_str).unwrap_or("").to_string();
    let flag = |key: &str| s.get(key).and_then(Value::as_bool).unwrap_or(false);
    let fetch_errors: Vec<&str> = array_of(s, "fetch_errors")?.iter().filter_map(Value::as_str).collect();
    let failed = |kind: &str| fetch_errors.contains(&kind);
    let api_error = |kind: &str| ReadError(format!("fake {kind} metrics API error"));

    let mut input = SyncInput::new(
        instant_of(s, "t")?,
        Scale {
            spec_replicas: i32_of(scale, "spec_replicas")?,
            status_replicas: i32_of(scale, "status_replicas")?,
            selector: selector.clone(),
        },
    );
    if flag("scale_get_error") {
        input.scale = Err("fake scale get error".into());
    }
    if flag("scale_update_error") {
        input.scale_update_error = Some("fake scale update error".into());
    }
    if flag("scale_update_conflict") {
        input.scale_update_conflict = Some("fake scale update conflict".into());
    }
    if flag("selector_unparsable") {
        // `labels.Parse`'s own error (hpa-core's one parser) in the vector's release, as the
        // controller words it.
        let error = hpa_core::api::labels::parse(&selector, release)
            .err()
            .map_or_else(|| format!("unable to parse requirement: {selector:?}"), |e| e.to_string());
        input.selector_parse_error = Some(error.into());
    }
    if flag("other_hpa_selects_same_pods") {
        input.other_hpas_selecting_pods = vec!["test-namespace/other-hpa".into()];
    }
    input.pods = pods(s, "pods")?;
    input.resource_metrics = if failed("resource") {
        Err(api_error("resource"))
    } else {
        Ok(array_of(s, "resource_metrics")?.iter().map(pod_metrics_item).collect::<R<_>>()?)
    };
    input.pods_metrics = if failed("pods") {
        Err(api_error("custom"))
    } else {
        let mut m = BTreeMap::new();
        if let Some(Value::Object(by_name)) = s.get("pods_metrics") {
            for (name, samples) in by_name {
                let samples = samples.as_array().map(Vec::as_slice).unwrap_or(&[]);
                let samples: Vec<_> = samples.iter().map(pod_sample).collect::<R<_>>()?;
                for id in ids_named(hpa, "Pods", name) {
                    m.insert(id, samples.clone());
                }
            }
        }
        Ok(m)
    };
    input.object_metrics = if failed("object") {
        Err(api_error("custom"))
    } else {
        let values: Vec<ObjectMetricValue> = array_of(s, "object_metrics")?
            .iter()
            .map(|o| {
                let ids = ids_named(hpa, "Object", str_of(o, "metric")?);
                let described_object = CrossVersionObjectReference {
                    kind: str_of(o, "kind")?.to_string(),
                    name: str_of(o, "name")?.to_string(),
                    api_version: o.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string(),
                };
                let value_milli = i64_of(o, "value_milli")?;
                Ok(ids.into_iter().map(move |metric| ObjectMetricValue {
                    described_object: described_object.clone(),
                    metric,
                    value_milli,
                    timestamp: Timestamp::ZERO,
                }))
            })
            .collect::<R<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        Ok(values)
    };
    input.external_metrics = if failed("external") {
        Err(api_error("external"))
    } else {
        let mut m = BTreeMap::new();
        if let Some(Value::Object(by_name)) = s.get("external_metrics") {
            for (name, values) in by_name {
                let values = values.as_array().map(Vec::as_slice).unwrap_or(&[]);
                let values: Result<Vec<i64>, &str> =
                    values.iter().map(|v| v.as_i64().ok_or("external value is not an integer")).collect();
                let values = values.map_err(String::from)?;
                for id in ids_named(hpa, "External", name) {
                    m.insert(id, values.clone());
                }
            }
        }
        Ok(m)
    };
    if let Some(p) = s.get("prenormalized_desired").filter(|p| !p.is_null()) {
        let p = p.as_i64().and_then(|p| i32::try_from(p).ok()).ok_or("bad prenormalized_desired")?;
        input.prenormalized_desired = Some(p);
    }
    Ok(input)
}

/// One sync's `got`, in the shape of the vectors' `expect`.
fn sync_got(r: &controller::SyncResult) -> Value {
    let conditions: Vec<Value> =
        r.conditions().iter().map(|c| json!({"type": c.type_, "status": c.status, "reason": c.reason})).collect();
    let resource = |name: &str| {
        r.status
            .current_metrics
            .iter()
            .flatten()
            .filter(|m| m.type_ == "Resource")
            .filter_map(|m| m.resource.as_ref())
            .find(|res| res.name == name)
    };
    let cpu = resource("cpu");
    let utilization = cpu.and_then(|c| c.current.average_utilization);
    let average = cpu.and_then(|c| c.current.average_value.as_ref()).map(|q| q.milli_value());
    // As status.currentMetrics renders it (BinarySI for memory from 1.34).
    let memory = resource("memory").and_then(|m| m.current.average_value.as_ref()).map(|q| q.to_string());
    json!({
        "desired_replicas": r.desired_replicas,
        "rescaled": r.rescaled,
        "conditions": conditions,
        "current_cpu_utilization": utilization,
        "current_cpu_average_value_milli": average,
        "current_memory_average_value": memory,
        "observed_generation": r.status.observed_generation,
    })
}

/// A `timelines.json` vector.
pub fn run_timeline(vector: &Value) -> (bool, Value) {
    let run = || -> R<(bool, Value)> {
        let config = timeline_options(field(vector, "config")?)?;
        let hpa = timeline_hpa(vector)?;
        let mut autoscaler = controller::Autoscaler::new(&hpa, &config).with_state(timeline_state(vector)?);
        let mut pass = true;
        let mut syncs = Vec::new();
        for s in array_of(vector, "syncs")? {
            let input = sync_input(s, &hpa, config.gates.version())?;
            let result = autoscaler.reconcile(&input);
            let (ok, got) = compare(&sync_got(result), s.get("expect").unwrap_or(&Value::Null));
            pass &= ok;
            syncs.push(got);
        }
        Ok((pass, json!({"syncs": syncs})))
    };
    match run() {
        Ok(r) => r,
        Err(e) => (false, json!({"error": e})),
    }
}
