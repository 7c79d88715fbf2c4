//! Rendering a diagnosis: the report for people, and the JSON document for programs (schema
//! `hpa-lint.diagnose/v1`, documented in docs/diagnose.md and pinned by a test).

use hpa_cluster::diagnose::DiagnoseInputs;
use hpa_core::api::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition};
use hpa_core::evaluator::diagnosis::{Diagnosis, Question, set_aside_code, set_aside_text};
use hpa_core::evaluator::time::format_ms;
use hpa_core::evaluator::{HPAControllerConfiguration, NormalizationPath, Timestamp};
use serde_json::{Value, json};

use super::Source;
use crate::commands::common::{chart, observed_text, outcome_str, target_of, target_text};

/// The schema name of the JSON document.
pub const SCHEMA: &str = "hpa-lint.diagnose/v1";

/// Everything `hpa-lint diagnose` shows of one HPA: its diagnosis and what it was made from.
pub struct DiagnosisView<'a> {
    /// Live or snapshot.
    pub source: Source,
    /// `namespace/name`.
    pub key: &'a str,
    /// The HPA as the controller reads it.
    pub hpa: &'a HorizontalPodAutoscaler,
    /// The controller's configuration.
    pub config: &'a HPAControllerConfiguration,
    /// The sync's inputs.
    pub inputs: &'a DiagnoseInputs,
    /// The diagnosis.
    pub diagnosis: &'a Diagnosis,
    /// What reading noted.
    pub notes: &'a [String],
}

fn time(t: Timestamp) -> String {
    t.to_api_time().to_rfc3339()
}

fn question(q: Question) -> &'static str {
    match q {
        Question::NotScaling => "not-scaling",
        Question::Slow => "slow",
    }
}

fn seconds(ms: i64) -> Value {
    if ms % 1000 == 0 { json!(ms / 1000) } else { json!(ms as f64 / 1000.0) }
}

fn condition_json(c: Option<&HorizontalPodAutoscalerCondition>) -> Value {
    c.map_or(Value::Null, |c| json!({"status": c.status, "reason": c.reason, "message": c.message}))
}

/// The JSON document.
pub fn json(r: &DiagnosisView<'_>) -> Value {
    let d = r.diagnosis;
    let s = &d.sync;
    let specs = hpa_core::evaluator::controller::effective_metrics(r.hpa);
    let target = &r.hpa.spec.scale_target_ref;
    let scale = r.inputs.sync.scale.as_ref().ok();
    let metrics: Vec<Value> = s
        .metrics()
        .iter()
        .map(|e| {
            let spec = specs.get(e.index);
            let t = spec.and_then(target_of);
            json!({
                "index": e.index,
                "type": spec.map(|m| m.type_.to_string()),
                "name": e.name,
                "target": t.map(target_text),
                "current": e.current.as_ref().map(|c| observed_text(t, c)),
                "usageRatio": e.usage_ratio,
                "correctedRatio": e.corrected_ratio,
                "proposal": e.proposal,
                "readyPods": e.ready_pods,
                "setAside": e.set_aside.iter().map(|p| json!({"pod": &*p.pod, "reason": set_aside_code(p.reason)})).collect::<Vec<_>>(),
                "error": e.error,
            })
        })
        .collect();
    let normalization = s.normalization.as_ref().map(|n| {
        // The direction is `convertDesiredReplicasWithBehaviorRate`'s: the stabilized count
        // against the current one (a limit binds below the stabilized count on the way up).
        let up = s.current_replicas.is_some_and(|current| n.stabilized > current);
        let policy = n.limited.rate.and_then(|rate| rate.policy).map(|(i, start)| {
            json!({"direction": if up { "scaleUp" } else { "scaleDown" }, "index": i, "periodStartReplicas": start})
        });
        json!({
            "path": if n.path == NormalizationPath::Legacy { "legacy" } else { "behavior" },
            "prenormalized": n.prenormalized,
            "stabilized": n.stabilized,
            "stabilizationReason": n.stabilization_reason,
            "heldBy": n.held_by.map(|h| json!({"replicas": h.recommendation, "at": time(h.timestamp)})),
            "limited": n.limited.replicas,
            "limitReason": n.limited.reason,
            "rateLimit": n.limited.rate.map(|r| r.limit),
            "policy": policy,
        })
    });
    let conditions: Vec<Value> = d
        .conditions
        .iter()
        .map(|c| {
            json!({"type": c.type_, "replayed": condition_json(c.replayed.as_ref()), "live": condition_json(c.live.as_ref()), "agrees": c.compared.then(|| c.agrees()), "explained": c.explained})
        })
        .collect();
    let m = &d.memory;
    let recs = |v: &[hpa_core::evaluator::TimestampedScaleEvent]| -> Vec<Value> {
        v.iter().map(|e| json!({"change": e.replica_change, "at": time(e.timestamp)})).collect()
    };
    let rescale = |x: &hpa_core::evaluator::diagnosis::Rescale| {
        let mut v = json!({"at": time(x.at), "size": x.size, "reason": x.reason, "count": x.count, "firstAt": x.first.map(time), "combined": x.combined});
        if let Some(e) = &x.error {
            v["error"] = json!(e);
        }
        v
    };
    let memory = json!({
        "windowSeconds": m.window_seconds,
        "recommendations": m.state.recommendations.as_ref().map(|rs| rs.iter().map(|r| json!({"replicas": r.recommendation, "at": time(r.timestamp)})).collect::<Vec<_>>()),
        "scaleUpEvents": recs(&m.state.scale_up_events),
        "scaleDownEvents": recs(&m.state.scale_down_events),
        "rescales": m.rescales.iter().map(rescale).collect::<Vec<_>>(),
        "failedRescales": m.failed_rescales.iter().map(rescale).collect::<Vec<_>>(),
        "assumptions": m.assumptions,
    });
    let forecast = d.forecast.as_ref().map(|f| {
        let steps: Vec<Value> = f
            .simulation
            .steps
            .iter()
            .map(|st| {
                json!({
                    "afterSeconds": seconds(st.at_ms),
                    "replicas": st.replicas,
                    "desired": st.desired,
                    "rescaled": st.rescaled,
                    "reason": f.simulation.reason(st),
                    "limitReason": f.simulation.normalization(st).map(|n| n.limited.reason),
                })
            })
            .collect();
        json!({
            "syncPeriodSeconds": seconds(f.sync_period_ms),
            "steady": f.steady.map(|(at, n)| json!({"afterSeconds": seconds(at), "replicas": n})),
            "held": f.held,
            "steps": steps,
            "assumptions": f.assumptions,
        })
    });
    json!({
        "schema": SCHEMA,
        "hpa": r.key,
        "source": if r.source == Source::Live { "live" } else { "snapshot" },
        "kubernetesVersion": r.config.release().to_string(),
        "now": time(d.now),
        "target": {
            "kind": target.kind,
            "name": target.name,
            "specReplicas": scale.map(|s| s.spec_replicas),
            "statusReplicas": scale.map(|s| s.status_replicas),
            "selector": scale.map(|s| s.selector.clone()),
            "pods": r.inputs.sync.pods.len(),
        },
        "minReplicas": r.hpa.spec.min_replicas.unwrap_or(1),
        "maxReplicas": r.hpa.spec.max_replicas,
        "outcome": outcome_str(s.outcome),
        "currentReplicas": s.current_replicas,
        "desiredReplicas": s.desired_replicas,
        "rescaled": s.rescaled,
        "rescaleReason": if s.rescaled { Some(s.rescale_reason.clone()) } else { None },
        "error": s.error,
        "metrics": metrics,
        "normalization": normalization,
        "conditions": conditions,
        "conditionsDiffer": d.conditions_differ(),
        "events": s.events.iter().map(|e| json!({"reason": e.reason, "message": e.message})).collect::<Vec<_>>(),
        "memory": memory,
        "forecast": forecast,
        "findings": d.findings.iter().map(|f| json!({"question": question(f.question), "cause": f.cause, "message": f.message})).collect::<Vec<_>>(),
        "notes": d.notes.iter().chain(r.notes.iter()).collect::<Vec<_>>(),
    })
}

/// The report for people.
pub fn human(r: &DiagnosisView<'_>) -> String {
    let d = r.diagnosis;
    let s = &d.sync;
    let mut out = String::new();
    let target = &r.hpa.spec.scale_target_ref;
    out.push_str(&format!(
        "HorizontalPodAutoscaler {} → {}/{} ({}..{} replicas), {} sync replayed at {} (Kubernetes {})\n",
        r.key,
        target.kind,
        target.name,
        r.hpa.spec.min_replicas.unwrap_or(1),
        r.hpa.spec.max_replicas,
        if r.source == Source::Live { "live" } else { "snapshot" },
        time(d.now),
        r.config.release()
    ));
    match (s.current_replicas, s.rescaled) {
        (Some(c), true) => out.push_str(&format!("  replicas: {c} → {} ({})\n", s.desired_replicas, s.rescale_reason)),
        (Some(c), false) => out.push_str(&format!("  replicas: {c}, unchanged ({})\n", outcome_str(s.outcome))),
        (None, _) => out.push_str(&format!("  {}: {}\n", outcome_str(s.outcome), s.error.as_deref().unwrap_or(""))),
    }

    let specs = hpa_core::evaluator::controller::effective_metrics(r.hpa);
    if !s.metrics().is_empty() {
        out.push_str("\nMetrics\n");
    }
    for e in s.metrics() {
        let spec = specs.get(e.index);
        let t = spec.and_then(target_of);
        let kind = spec.map_or("", |m| m.type_.as_str());
        let key = spec.and_then(metric_label).unwrap_or_else(|| e.name.clone());
        match (&e.error, e.proposal) {
            (Some(err), _) => out.push_str(&format!("  {}. {kind} {key}: failed: {err}\n", e.index + 1)),
            (None, Some(p)) => {
                let ratio = match (e.usage_ratio, e.corrected_ratio) {
                    (Some(u), Some(c)) => format!("usage ratio {u:.3}, {c:.3} with the pods set aside"),
                    (Some(u), None) => format!("usage ratio {u:.3}"),
                    _ => String::new(),
                };
                out.push_str(&format!(
                    "  {}. {kind} {}: {} (target {}): {ratio} → {p} replicas{}\n",
                    e.index + 1,
                    key,
                    e.current.as_ref().map(|c| observed_text(t, c)).unwrap_or_default(),
                    t.map(target_text).unwrap_or_default(),
                    e.ready_pods
                        .map(|n| format!(" ({n} ready pod{})", if n == 1 { "" } else { "s" }))
                        .unwrap_or_default(),
                ));
            }
            (None, None) => {}
        }
        for p in &e.set_aside {
            out.push_str(&format!("       set aside: {} ({})\n", p.pod, set_aside_text(p.reason)));
        }
    }

    if let Some(n) = &s.normalization {
        out.push_str(&format!(
            "\nNormalization ({})\n",
            if n.path == NormalizationPath::Legacy { "legacy rules: no spec.behavior" } else { "spec.behavior" }
        ));
        out.push_str(&format!("  recommended: {}\n", n.prenormalized));
        let held = n
            .held_by
            .map(|h| {
                format!(
                    ", held by {} recorded {} before",
                    h.recommendation,
                    format_ms(d.now.as_millis() - h.timestamp.as_millis())
                )
            })
            .unwrap_or_default();
        out.push_str(&format!("  stabilized:  {} ({}{held})\n", n.stabilized, n.stabilization_reason));
        let rate = n.limited.rate.map(|r| format!(", rate limit {}", r.limit)).unwrap_or_default();
        out.push_str(&format!("  limited:     {} ({}{rate})\n", n.limited.replicas, n.limited.reason));
    }

    if !d.conditions.is_empty() {
        out.push_str("\nConditions (replayed | live)\n");
        let brief = |c: Option<&HorizontalPodAutoscalerCondition>| {
            c.map_or_else(|| "-".to_string(), |c| format!("{} {}", c.status, c.reason))
        };
        for c in &d.conditions {
            out.push_str(&format!(
                "  {:<15} {:<28} | {}{}\n",
                c.type_,
                brief(c.replayed.as_ref()),
                brief(c.live.as_ref()),
                if c.unexplained() {
                    "   ≠"
                } else if c.explained.is_some() {
                    "   ≈"
                } else {
                    ""
                }
            ));
        }
        for c in d.conditions.iter().filter(|c| !c.agrees()) {
            if let Some(why) = &c.explained {
                out.push_str(&format!("  ≈ {}: {why}\n", c.type_));
            }
        }
        if d.conditions_differ() {
            out.push_str("  ≠ the live status differs from the replayed sync: something the inputs do not show (a metric that moved since, the controller's memory or flags, a newer sync)\n");
        }
    }

    if let Some(f) = &d.forecast {
        out.push_str(&format!("\nNext syncs if the load stays as it is (every {})\n", format_ms(f.sync_period_ms)));
        // The count the first simulated sync reads: the rescale's, else the one this sync read
        // (a sync that stops keeps `desiredReplicas` from the status, not the current count).
        let mut from = if s.rescaled { s.desired_replicas } else { s.current_replicas.unwrap_or(s.desired_replicas) };
        for st in f.simulation.steps.iter().filter(|st| st.rescaled) {
            let why = f.simulation.normalization(st).map(|n| format!(" ({})", n.limited.reason)).unwrap_or_default();
            out.push_str(&format!("  +{}: {from} → {}{why}\n", format_ms(st.at_ms), st.desired));
            from = st.desired;
        }
        match f.steady {
            Some((at, n)) => out.push_str(&format!(
                "  steady at {n} from +{}{}\n",
                format_ms(at),
                f.held.as_ref().map(|h| format!(": {h}")).unwrap_or_default()
            )),
            None => out.push_str("  still changing at the end of the forecast\n"),
        }
        if f.simulation.steps.len() > 1 {
            out.push_str(&chart(&f.simulation, f.sync_period_ms));
        }
    }

    for (q, title) in [(Question::NotScaling, "Why is it not scaling?"), (Question::Slow, "Why is it slow?")] {
        let list: Vec<&str> = d.findings.iter().filter(|f| f.question == q).map(|f| f.message.as_str()).collect();
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}\n"));
        for m in list {
            out.push_str(&format!("  - {m}\n"));
        }
    }

    let assumptions: Vec<&String> = d
        .memory
        .assumptions
        .iter()
        .chain(d.forecast.iter().flat_map(|f| &f.assumptions))
        .chain(&d.notes)
        .chain(r.notes)
        .collect();
    if !assumptions.is_empty() {
        out.push_str("\nAssumptions and notes\n");
        for a in assumptions {
            out.push_str(&format!("  - {a}\n"));
        }
    }
    out
}

/// How the report names a metric spec, so that two of one name read apart: `cpu`,
/// `container/app/cpu`, a Pods or External metric's name with its selector
/// (`queue_depth{queue=orders}`), an Object metric's with its object (`requests of
/// Service/front`); `None` for an unknown type.
fn metric_label(m: &hpa_core::api::v2::MetricSpec) -> Option<String> {
    use hpa_core::evaluator::MetricQuery;
    match MetricQuery::of(m) {
        Some(MetricQuery::Object { metric, kind, name, .. }) => Some(format!("{metric} of {kind}/{name}")),
        Some(q) => Some(q.metric().to_string()),
        None => hpa_core::evaluator::simulation::MetricKey::of(m).map(|k| k.to_string()),
    }
}
