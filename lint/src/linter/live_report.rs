//! Rendering the lint results of a live cluster (`hpa-lint cluster`). Locations are objects
//! and field paths: `human` names `namespace/name (Kind) path`, `json` gives the object and the
//! path, `sarif` logical locations (no artifact), `github` annotations without a file. The
//! inventory's notes (an absent CRD, a 403, a failure) are part of the JSON and SARIF reports;
//! the human form prints them on standard error ([`human_notes`]).

use std::fmt::Write as _;

use hpa_core::rules::Severity;
use miette::{GraphicalReportHandler, GraphicalTheme, MietteDiagnostic};
use serde_json::{Value, json};

use super::live::{LiveDiagnostic, LiveObject, LiveOutcome};
use super::report::{
    HumanStyle, JSON_SCHEMA_VERSION, docs_url, escape_data, escape_property, sarif_level, sarif_rules,
};

/// Where the objects were read from.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The API server's URL.
    pub server: String,
    /// The namespaces read (`None`: all).
    pub namespaces: Option<Vec<String>>,
}

fn place(object: &LiveObject, path: &str) -> String {
    if path.is_empty() { object.describe() } else { format!("{} {path}", object.describe()) }
}

/// For people: one miette report per diagnostic, headed by the object and field, then the
/// summary line.
pub fn human(outcome: &LiveOutcome, style: HumanStyle) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let mut out = String::new();
    for d in &outcome.diagnostics {
        let mut help = d.help.clone().unwrap_or_default();
        for r in &d.related {
            if !help.is_empty() {
                help.push('\n');
            }
            let _ = write!(help, "see {}: {}", place(&r.object, &r.path), r.message);
        }
        let mut report = MietteDiagnostic::new(format!("{}: {}", place(&d.object, &d.path), d.message))
            .with_code(format!("{} {}", d.rule.id, d.rule.name))
            .with_severity(match d.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            })
            .with_url(docs_url(d.rule));
        if !help.is_empty() {
            report = report.with_help(help);
        }
        let mut buf = String::new();
        if handler.render_report(&mut buf, &report).is_err() {
            buf = format!("{}: {}: {} [{}]\n", place(&d.object, &d.path), d.severity.as_str(), d.message, d.rule.id);
        }
        out.push_str(&buf);
        out.push('\n');
    }
    out.push_str(&summary_line(outcome));
    out
}

/// The inventory's notes as the human form prints them on standard error.
pub fn human_notes(outcome: &LiveOutcome) -> String {
    outcome.notes.iter().map(|n| format!("hpa-lint: note: {}\n", n.message)).collect()
}

/// `1 error, 2 warnings, 0 infos in 12 HorizontalPodAutoscalers (40 objects)`, as for files.
pub fn summary_line(outcome: &LiveOutcome) -> String {
    let severities = outcome.diagnostics.iter().map(|d| d.severity);
    super::report::summary_text(severities, outcome.hpas, outcome.objects, outcome.suppressed)
}

fn object_json(o: &LiveObject) -> Value {
    json!({"apiVersion": o.api_version, "kind": o.kind, "namespace": o.namespace, "name": o.name})
}

/// The JSON report: the files mode's schema (version 1) with objects for files.
pub fn json(outcome: &LiveOutcome, origin: &Origin) -> String {
    let count = |s: Severity| outcome.diagnostics.iter().filter(|d| d.severity == s).count();
    let diags: Vec<Value> = outcome
        .diagnostics
        .iter()
        .map(|d| {
            json!({
                "rule": d.rule.id,
                "name": d.rule.name,
                "severity": d.severity.as_str(),
                "object": object_json(&d.object),
                "path": d.path,
                "message": d.message,
                "help": d.help,
                "related": d.related.iter().map(|r| json!({"object": object_json(&r.object), "path": r.path, "message": r.message})).collect::<Vec<_>>(),
                "docs": docs_url(d.rule),
            })
        })
        .collect();
    let v = json!({
        "version": JSON_SCHEMA_VERSION,
        "cluster": {"server": origin.server, "namespaces": origin.namespaces},
        "summary": {
            "objects": outcome.objects,
            "hpas": outcome.hpas,
            "errors": count(Severity::Error),
            "warnings": count(Severity::Warning),
            "infos": count(Severity::Info),
            "suppressed": outcome.suppressed,
        },
        "diagnostics": diags,
        "notes": outcome.notes.iter().map(|n| json!({"kind": n.kind, "message": n.message})).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}

/// SARIF logical locations of an object and a field in it: `Kind/namespace/name` (kind
/// `object`), then the field (kind `property`), as the files mode writes them.
fn logical_locations(object: &LiveObject, path: &str) -> Vec<Value> {
    let name = match &object.namespace {
        Some(ns) => format!("{}/{ns}/{}", object.kind, object.name),
        None => format!("{}/{}", object.kind, object.name),
    };
    let mut out = vec![json!({"name": object.name, "fullyQualifiedName": name, "kind": "object"})];
    if !path.is_empty() {
        out.push(json!({"name": path, "fullyQualifiedName": format!("{name}/{path}"), "kind": "property"}));
    }
    out
}

/// SARIF 2.1.0, with logical locations only (a live object is no artifact).
pub fn sarif(outcome: &LiveOutcome, origin: &Origin) -> String {
    let (rules_list, rule_objects) = sarif_rules();
    let results: Vec<Value> = outcome
        .diagnostics
        .iter()
        .map(|d: &LiveDiagnostic| {
            let index = rules_list.iter().position(|m| m.id == d.rule.id).unwrap_or(0);
            let mut result = json!({
                "ruleId": d.rule.id,
                "ruleIndex": index,
                "level": sarif_level(d.severity),
                "message": {"text": match &d.help { Some(h) => format!("{} ({h})", d.message), None => d.message.clone() }},
                "locations": [{"logicalLocations": logical_locations(&d.object, &d.path)}],
            });
            if !d.related.is_empty() {
                result["relatedLocations"] = Value::Array(
                    d.related
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            json!({
                                "id": i,
                                "message": {"text": r.message},
                                "logicalLocations": logical_locations(&r.object, &r.path),
                            })
                        })
                        .collect(),
                );
            }
            result
        })
        .collect();
    let v = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hpa-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/hpa-toolkit/hpa-toolkit",
                "rules": rule_objects,
            }},
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": outcome.notes.iter().map(|n| json!({"level": "note", "message": {"text": n.message}})).collect::<Vec<_>>(),
            }],
            "properties": {"server": origin.server, "namespaces": origin.namespaces},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}

/// GitHub Actions workflow commands without a file: the object and field lead the message.
pub fn github(outcome: &LiveOutcome) -> String {
    let mut out = String::new();
    for note in &outcome.notes {
        let _ = writeln!(out, "::notice title=hpa-lint::{}", escape_data(&note.message));
    }
    for d in &outcome.diagnostics {
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let message = match &d.help {
            Some(h) => format!("{}: {} ({h})", place(&d.object, &d.path), d.message),
            None => format!("{}: {}", place(&d.object, &d.path), d.message),
        };
        let _ = writeln!(
            out,
            "::{cmd} title={}::{}",
            escape_property(&format!("{} {}", d.rule.id, d.rule.name)),
            escape_data(&message)
        );
    }
    out
}
