//! Rendering a simulation: the per-sync table and terminal chart for people, and the JSON
//! document (`{"steps": [...]}`) for programs.

use hpa_core::evaluator::SyncOutcome;
use serde_json::{Map, Value, json};

use crate::commands::common::{chart, observed_text, outcome_str, ratio_to_target, target_of, target_text};
use hpa_core::evaluator::simulation::{Simulation, Step};
use hpa_core::evaluator::time::format_ms;

/// What the header says about the run, besides the steps.
#[derive(Debug, Clone)]
pub struct Header {
    /// The scenario file as named on the command line.
    pub scenario: String,
    /// `namespace/name` of the HPA.
    pub hpa: String,
    /// `Kind/name` of the target.
    pub target: String,
    /// `minReplicas`.
    pub min: i32,
    /// `maxReplicas`.
    pub max: i32,
    /// Whether `spec.behavior` is set.
    pub behavior: bool,
    /// The sync period, in ms.
    pub sync_period_ms: i64,
    /// `podReadyAfter`, in ms.
    pub pod_ready_after_ms: i64,
}

/// Seconds as a JSON number: an integer when whole.
fn seconds(ms: i64) -> Value {
    if ms % 1000 == 0 { json!(ms / 1000) } else { json!(ms as f64 / 1000.0) }
}

/// The JSON document: `{"steps": [{"at", "replicas", "desired", "reason", ...}]}`.
pub fn json(sim: &Simulation) -> Value {
    let steps: Vec<Value> = sim.steps.iter().map(|s| step_json(sim, s)).collect();
    json!({ "steps": steps })
}

fn step_json(sim: &Simulation, s: &Step) -> Value {
    let mut o = Map::new();
    o.insert("at".into(), seconds(s.at_ms));
    o.insert("replicas".into(), json!(s.replicas));
    o.insert("desired".into(), json!(s.desired));
    o.insert("reason".into(), json!(sim.reason(s)));
    o.insert("rescaled".into(), json!(s.rescaled));
    o.insert("outcome".into(), json!(outcome_str(s.outcome)));
    o.insert("pods".into(), json!({"ready": s.pods.ready, "unready": s.pods.unready, "pending": s.pods.pending}));
    let metrics: Vec<Value> = sim
        .metrics
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let obs = sim.observations(s).get(i);
            let current = obs.and_then(|m| m.current.as_ref());
            let target = target_of(spec);
            json!({
                "key": sim.metric_keys.get(i).cloned().flatten(),
                "type": spec.type_,
                "target": target.map(target_text),
                "current": current.and_then(|c| serde_json::to_value(c).ok()),
                "observed": current.map(|c| observed_text(target, c)),
                "ratio": target.zip(current).and_then(|(t, c)| ratio_to_target(t, c)),
                "proposal": obs.and_then(|m| m.proposal),
                "error": obs.and_then(|m| m.error.clone()),
            })
        })
        .collect();
    o.insert("metrics".into(), Value::Array(metrics));
    o.insert("proposal".into(), json!(s.proposal));
    let n = sim.normalization(s);
    o.insert("prenormalized".into(), json!(n.map(|n| n.prenormalized)));
    o.insert("stabilized".into(), json!(n.map(|n| n.stabilized)));
    o.insert("stabilization".into(), json!(n.map(|n| n.stabilization_reason)));
    o.insert(
        "limit".into(),
        match n {
            Some(n) => json!({"reason": n.limited.reason, "message": n.limited.message, "applied": n.scaling_limited,
                              "replicas": n.limited.replicas}),
            None => Value::Null,
        },
    );
    let conditions: Vec<Value> =
        sim.conditions(s).iter().map(|c| json!({"type": c.type_, "status": c.status, "reason": c.reason})).collect();
    o.insert("conditions".into(), Value::Array(conditions));
    Value::Object(o)
}

/// The short form of a condition type.
fn condition_letter(t: &str) -> &str {
    match t {
        "AbleToScale" => "A",
        "ScalingActive" => "S",
        "ScalingLimited" => "L",
        "ScaledToZero" => "Z",
        other => other,
    }
}

/// One table row's cells, the time excluded.
fn cells(sim: &Simulation, s: &Step) -> Vec<String> {
    let unready = s.pods.unready + s.pods.pending;
    let mut row = vec![format!("{} ({}/{})", s.replicas, s.pods.ready, unready)];
    for (i, spec) in sim.metrics.iter().enumerate() {
        let target = target_of(spec);
        let cell = match sim.observations(s).get(i) {
            None => "·".to_string(),
            Some(m) => {
                let observed = m.current.as_ref().map_or_else(|| "failed".to_string(), |c| observed_text(target, c));
                match m.proposal {
                    Some(p) => format!("{observed} → {p}"),
                    None => observed,
                }
            }
        };
        row.push(cell);
    }
    let opt = |v: Option<i32>| v.map_or_else(|| "·".to_string(), |v| v.to_string());
    let normalization = sim.normalization(s);
    row.push(opt(normalization.map(|n| n.prenormalized)));
    row.push(opt(normalization.map(|n| n.stabilized)));
    row.push(match normalization {
        Some(n) if n.scaling_limited => format!("{} → {}", n.limited.reason, n.limited.replicas),
        Some(n) => n.limited.reason.to_string(),
        None => "·".to_string(),
    });
    let arrow = match s.desired.cmp(&s.replicas) {
        std::cmp::Ordering::Greater => "↑",
        std::cmp::Ordering::Less => "↓",
        std::cmp::Ordering::Equal => " ",
    };
    row.push(format!("{arrow}{}", s.desired));
    // ScaledToZero only matters when True (with gate HPAScaleToZero it is written on every rescale).
    let conds: Vec<String> = sim
        .conditions(s)
        .iter()
        .filter(|c| c.type_ != "ScaledToZero" || c.status == "True")
        .map(|c| format!("{}:{}", condition_letter(&c.type_), c.reason))
        .collect();
    row.push(conds.join(" "));
    row
}

/// Pads to a width in characters (the table holds arrows and dots).
fn pad(s: &str, w: usize, right: bool) -> String {
    let n = s.chars().count();
    let fill = " ".repeat(w.saturating_sub(n));
    if right { format!("{fill}{s}") } else { format!("{s}{fill}") }
}

/// The human report: header, table, notes and the replica chart.
pub fn human(h: &Header, sim: &Simulation) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{}: simulating HorizontalPodAutoscaler {} → {} ({}..{} replicas)\n",
        h.scenario, h.hpa, h.target, h.min, h.max
    ));
    // One sync is said as one ("1 sync at 15s", not "1 syncs every 1h from 15s to 15s").
    let syncs = match sim.steps.as_slice() {
        [one] => format!("1 sync at {} (every {})", format_ms(one.at_ms), format_ms(h.sync_period_ms)),
        steps => format!(
            "{} syncs every {}{}",
            steps.len(),
            format_ms(h.sync_period_ms),
            steps.last().map(|s| format!(" from 0s to {}", format_ms(s.at_ms))).unwrap_or_default()
        ),
    };
    out.push_str(&format!(
        "  {syncs}; new pods turn Ready {} after creation; {}\n",
        format_ms(h.pod_ready_after_ms),
        if h.behavior { "spec.behavior rules" } else { "legacy rules (no spec.behavior)" }
    ));
    let mut headers = vec!["time".to_string(), "replicas".to_string()];
    for (i, spec) in sim.metrics.iter().enumerate() {
        let key = sim.metric_keys.get(i).cloned().flatten().unwrap_or_else(|| spec.type_.as_str().into());
        let target = target_of(spec).map(target_text).unwrap_or_default();
        out.push_str(&format!("  metric {key}: {} target {target}\n", spec.type_));
        headers.push(format!("{key} ({target})"));
    }
    for h in ["prenorm", "stabilized", "limit", "desired", "conditions"] {
        headers.push(h.to_string());
    }
    out.push('\n');

    // Rows, with runs of identical rows collapsed.
    struct Row {
        time: String,
        cells: Vec<String>,
        notes: Vec<String>,
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut last_notes: Vec<String> = Vec::new();
    let mut run: Vec<(String, Vec<String>)> = Vec::new();
    let mut skipped: Vec<(usize, String)> = Vec::new();
    for s in &sim.steps {
        let c = cells(sim, s);
        let mut notes: Vec<String> = Vec::new();
        for (i, m) in sim.observations(s).iter().enumerate() {
            if let Some(e) = &m.error {
                let key = sim.metric_keys.get(i).cloned().flatten().unwrap_or_default();
                notes.push(format!("{key}: {e}"));
            }
        }
        if s.outcome == SyncOutcome::FailedComputeMetrics && notes.is_empty() {
            notes.push(sim.reason(s).to_string());
        }
        let new_notes: Vec<String> = notes.iter().filter(|n| !last_notes.contains(n)).cloned().collect();
        last_notes = notes;
        let same = run.last().is_some_and(|(_, prev)| *prev == c) && !s.rescaled && new_notes.is_empty();
        if same {
            run.push((format_ms(s.at_ms), c));
            continue;
        }
        flush(&mut rows, &mut run, &mut skipped);
        rows.push(Row { time: format_ms(s.at_ms), cells: c.clone(), notes: new_notes });
        run.push((format_ms(s.at_ms), c));
    }
    flush(&mut rows, &mut run, &mut skipped);

    fn flush(rows: &mut Vec<Row>, run: &mut Vec<(String, Vec<String>)>, skipped: &mut Vec<(usize, String)>) {
        // `run` holds the printed row followed by the rows identical to it.
        match run.len() {
            0 | 1 => {}
            2 => {
                if let Some((time, cells)) = run.pop() {
                    rows.push(Row { time, cells, notes: Vec::new() });
                }
            }
            n => {
                if let Some((time, _)) = run.last() {
                    skipped.push((rows.len(), format!("⋮ {} more syncs alike, until {time}", n - 1)));
                }
            }
        }
        run.clear();
    }

    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        let all = std::iter::once(&r.time).chain(&r.cells);
        for (w, c) in widths.iter_mut().zip(all) {
            *w = (*w).max(c.chars().count());
        }
    }
    let last = widths.len().saturating_sub(1);
    let line = |cells: &[&str], widths: &[usize]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = widths.get(i).copied().unwrap_or(0);
                // Numbers and time right-aligned; the conditions column unpadded.
                if i == last {
                    c.to_string()
                } else {
                    pad(c, w, i == 0 || i == last - 1 || i == last - 3 || i == last - 4)
                }
            })
            .collect();
        format!("  {}", parts.join("  ")).trim_end().to_string() + "\n"
    };
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    out.push_str(&line(&header_refs, &widths));
    let mut skipped = skipped.into_iter().peekable();
    for (i, r) in rows.iter().enumerate() {
        let mut cells: Vec<&str> = vec![r.time.as_str()];
        cells.extend(r.cells.iter().map(String::as_str));
        out.push_str(&line(&cells, &widths));
        for n in &r.notes {
            out.push_str(&format!("        ! {n}\n"));
        }
        while let Some((_, text)) = skipped.next_if(|(at, _)| *at == i + 1) {
            out.push_str(&format!("  {}\n", pad(&text, 0, false)));
        }
    }
    out.push_str(
        "  replicas: before the sync (ready/unready); metric cells: observed → proposal; ↑↓: rescaled;\n  conditions: A = AbleToScale, S = ScalingActive, L = ScalingLimited, Z = ScaledToZero (shown when True)\n",
    );
    out.push('\n');
    out.push_str(&chart(sim, h.sync_period_ms));
    out
}
