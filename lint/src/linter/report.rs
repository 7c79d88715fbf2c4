//! Rendering lint results: `human` (miette: source snippet, label, help, rule ID and a link to
//! its documentation), `json` (a stable schema), `sarif` (SARIF 2.1.0, for GitHub code
//! scanning) and `github` (workflow-command annotations).

use std::fmt::Write as _;
use std::sync::Arc;

use hpa_core::rules::{self, RuleMeta, Severity};
use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents,
};
use serde_json::{Value, json};

use super::LintResults;
use crate::input::SourceFile;

/// Where rule documentation lives.
pub const DOCS_URL: &str = "https://github.com/hpa-toolkit/hpa-toolkit/blob/main/docs/rules.md";

/// The documentation anchor of a rule (GitHub's heading anchors).
pub fn docs_url(rule: &RuleMeta) -> String {
    format!("{DOCS_URL}#{}-{}", rule.id.to_ascii_lowercase(), rule.name)
}

/// The version of the JSON output schema.
pub const JSON_SCHEMA_VERSION: u32 = 1;

fn severity_word(s: Severity) -> &'static str {
    s.as_str()
}

/// A diagnostic as miette renders it.
#[derive(Debug)]
struct Rendered {
    message: String,
    code: Option<String>,
    severity: miette::Severity,
    help: Option<String>,
    url: Option<String>,
    source: Source,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered>,
}

impl std::fmt::Display for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl MietteDiagnostic for Rendered {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.code.as_ref().map(|c| Box::new(c) as Box<dyn std::fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn url<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.url.as_ref().map(|u| Box::new(u) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn MietteDiagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn MietteDiagnostic)))
        }
    }
}

/// A file's text as miette reads it, except that a snippet's `line_count` is the number of
/// lines it holds, as `MietteSpanContents` documents it. miette 7.6's `context_info` returns
/// the lines from the start of the file instead, and `render_snippets` then merges two labels
/// into one snippet whenever the second lies within about twice the first one's line number:
/// a related place 30 lines below a finding would print every line in between.
#[derive(Debug)]
struct Source(NamedSource<Arc<str>>);

impl Source {
    fn new(name: &str, text: Arc<str>) -> Source {
        Source(NamedSource::new(name, text))
    }
}

impl SourceCode for Source {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.0.read_span(span, context_lines_before, context_lines_after)?;
        let lines = contents.data().iter().filter(|&&b| b == b'\n').count();
        let fixed = MietteSpanContents::new_named(
            self.0.name().to_string(),
            contents.data(),
            *contents.span(),
            contents.line(),
            contents.column(),
            lines,
        );
        Ok(Box::new(fixed))
    }
}

/// Options of the human output.
#[derive(Debug, Clone, Copy)]
pub struct HumanStyle {
    /// ANSI colors.
    pub color: bool,
    /// Terminal width.
    pub width: usize,
}

fn span_of(file: &SourceFile, d_span: crate::source::Span) -> SourceSpan {
    let r = file.lines().range(&file.text, d_span);
    let len = (r.end - r.start).max(usize::from(!file.text.is_empty() && r.start < file.text.len()));
    SourceSpan::from((r.start, len))
}

/// Renders for people.
pub fn human(outcome: &LintResults, files: &[SourceFile], style: HumanStyle) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let sources: Vec<Arc<str>> = files.iter().map(|f| Arc::from(f.text.as_str())).collect();
    let mut out = String::new();
    for d in &outcome.diagnostics {
        let file = &files[d.file];
        let what = d
            .object
            .as_ref()
            .map(|o| match (o.kind.is_empty(), o.name.is_empty()) {
                (true, _) => String::new(),
                (false, true) => format!(" ({} without a name)", o.kind),
                // Messages about other objects name them already.
                (false, false) if d.message.contains(&o.describe()) => String::new(),
                (false, false) => format!(" ({})", o.describe()),
            })
            .unwrap_or_default();
        let label_text = match (d.path.is_empty(), d.exact) {
            (true, _) => d.rule.name.to_string(),
            (false, true) => d.path.clone(),
            (false, false) => format!("{} is missing here", d.path),
        };
        // Related places in the diagnostic's own file are labels of its snippet: one finding,
        // one report. Those in other files (a workload defined elsewhere) follow as related
        // reports of their own source, without a code of their own.
        let mut labels = vec![LabeledSpan::new_primary_with_span(Some(label_text), span_of(file, d.span))];
        let mut related = Vec::new();
        for r in &d.related {
            let rf = &files[r.file];
            let span = span_of(rf, r.span);
            if r.file == d.file {
                labels.push(LabeledSpan::new_with_span(Some(r.message.clone()), span));
            } else {
                related.push(Rendered {
                    message: r.message.clone(),
                    code: Some("see also".into()),
                    severity: miette::Severity::Advice,
                    help: None,
                    url: None,
                    source: Source::new(&rf.name, sources[r.file].clone()),
                    labels: vec![LabeledSpan::new_with_span(Some(r.message.clone()), span)],
                    related: Vec::new(),
                });
            }
        }
        let rendered = Rendered {
            message: format!("{}{what}", d.message),
            code: Some(format!("{} {}", d.rule.id, d.rule.name)),
            severity: match d.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            help: d.help.clone(),
            url: Some(docs_url(d.rule)),
            source: Source::new(&file.name, sources[d.file].clone()),
            labels,
            related,
        };
        let mut buf = String::new();
        if handler.render_report(&mut buf, &rendered).is_err() {
            let (l, c) = file.line_col(d.span.start);
            let _ =
                writeln!(buf, "{}:{l}:{c}: {}: {} [{}]", file.name, severity_word(d.severity), d.message, d.rule.id);
        }
        out.push_str(&buf);
        out.push('\n');
    }
    for note in &outcome.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out.push_str(&summary_line(outcome));
    out
}

/// `3 errors, 1 warning, 0 infos in 12 HPAs (40 objects)`.
pub fn summary_line(outcome: &LintResults) -> String {
    let severities = outcome.diagnostics.iter().map(|d| d.severity);
    summary_text(severities, outcome.hpas, outcome.objects, outcome.suppressed)
}

/// The summary line of files and of a cluster: the count of each severity, HPAs and objects,
/// and what `hpa-lint.dev/ignore` annotations suppressed.
pub(crate) fn summary_text(
    severities: impl Iterator<Item = Severity>,
    hpas: usize,
    objects: usize,
    suppressed: usize,
) -> String {
    let mut counts = [0usize; 3];
    for s in severities {
        counts[match s {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        }] += 1;
    }
    let plural = |n: usize, w: &str| if n == 1 { format!("{n} {w}") } else { format!("{n} {w}s") };
    let mut s = format!(
        "{}, {}, {} in {} ({})",
        plural(counts[0], "error"),
        plural(counts[1], "warning"),
        plural(counts[2], "info"),
        plural(hpas, "HorizontalPodAutoscaler"),
        plural(objects, "object"),
    );
    if suppressed > 0 {
        let _ = write!(s, "; {suppressed} suppressed by {}", super::suppress::ANNOTATION);
    }
    s.push('\n');
    s
}

fn position(file: &SourceFile, d: crate::source::Span) -> (u32, u32, u32, u32) {
    let (l, c) = file.line_col(d.start);
    let (el, ec) = file.line_col(d.end);
    (l, c, el.max(l), if el > l { ec } else { ec.max(c) })
}

/// The stable JSON schema (version 1).
pub fn json(outcome: &LintResults, files: &[SourceFile]) -> String {
    let count = |s: Severity| outcome.diagnostics.iter().filter(|d| d.severity == s).count();
    let diags: Vec<Value> = outcome
        .diagnostics
        .iter()
        .map(|d| {
            let file = &files[d.file];
            let (line, column, end_line, end_column) = position(file, d.span);
            json!({
                "rule": d.rule.id,
                "name": d.rule.name,
                "severity": d.severity.as_str(),
                "file": file.name,
                "line": line,
                "column": column,
                "endLine": end_line,
                "endColumn": end_column,
                "object": d.object.as_ref().map(|o| json!({"kind": o.kind, "namespace": o.namespace, "name": o.name, "document": o.document, "item": o.item})),
                "path": d.path,
                "message": d.message,
                "help": d.help,
                "related": d.related.iter().map(|r| {
                    let rf = &files[r.file];
                    let (l, c) = rf.line_col(r.span.start);
                    json!({"file": rf.name, "line": l, "column": c, "message": r.message})
                }).collect::<Vec<_>>(),
                "fix": d.fix,
                "docs": docs_url(d.rule),
            })
        })
        .collect();
    let v = json!({
        "version": JSON_SCHEMA_VERSION,
        "summary": {
            "files": files.len(),
            "objects": outcome.objects,
            "hpas": outcome.hpas,
            "errors": count(Severity::Error),
            "warnings": count(Severity::Warning),
            "infos": count(Severity::Info),
            "suppressed": outcome.suppressed,
        },
        "diagnostics": diags,
        "notes": outcome.notes,
    });
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}

/// A diagnostic's SARIF logical locations: the object (`Kind/namespace/name`, or `Kind/name`
/// for a kind without namespaces), and in it the field as the user wrote it (kind `property`:
/// `spec.targetCPUUtilizationPercentage` for an autoscaling/v1 CPU target).
fn logical_locations(d: &super::Diagnostic) -> Vec<Value> {
    let Some(o) = &d.object else { return Vec::new() };
    let object = match &o.namespace {
        Some(ns) => format!("{}/{ns}/{}", o.kind, o.name),
        None => format!("{}/{}", o.kind, o.name),
    };
    let mut out = vec![json!({"name": o.name, "fullyQualifiedName": object, "kind": "object"})];
    if !d.path.is_empty() {
        out.push(json!({"name": d.path, "fullyQualifiedName": format!("{object}/{}", d.path), "kind": "property"}));
    }
    out
}

pub(crate) fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a SARIF artifact URI: relative, forward slashes, percent-encoded where needed.
fn artifact_uri(name: &str) -> String {
    let rel = name.strip_prefix("./").unwrap_or(name).replace('\\', "/");
    let drive = rel.len() > 2 && rel.as_bytes()[1] == b':' && rel.as_bytes()[0].is_ascii_alphabetic();
    let mut out = String::with_capacity(rel.len() + 8);
    if rel.starts_with('/') {
        out.push_str("file://");
    } else if drive {
        out.push_str("file:///");
    }
    for (i, b) in rel.bytes().enumerate() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            b':' if drive && i == 1 => out.push(':'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The rules as SARIF `reportingDescriptor`s (the driver's `rules`), with the registry they
/// index into (a result's `ruleIndex`).
pub(crate) fn sarif_rules() -> (Vec<&'static RuleMeta>, Vec<Value>) {
    let rules_list: Vec<&'static RuleMeta> = rules::ALL.iter().map(|r| r.meta()).collect();
    let rule_objects: Vec<Value> = rules_list
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.summary},
                "help": {"text": m.docs(), "markdown": m.docs()},
                "helpUri": docs_url(m),
                "defaultConfiguration": {"level": sarif_level(m.severity)},
                "properties": {"tags": ["kubernetes", "hpa"]},
            })
        })
        .collect();
    (rules_list, rule_objects)
}

/// SARIF 2.1.0.
pub fn sarif(outcome: &LintResults, files: &[SourceFile]) -> String {
    let (rules_list, rule_objects) = sarif_rules();
    let results: Vec<Value> = outcome
        .diagnostics
        .iter()
        .map(|d| {
            let file = &files[d.file];
            let (line, column, end_line, end_column) = position(file, d.span);
            let index = rules_list.iter().position(|m| m.id == d.rule.id).unwrap_or(0);
            let mut result = json!({
                "ruleId": d.rule.id,
                "ruleIndex": index,
                "level": sarif_level(d.severity),
                "message": {"text": match &d.help { Some(h) => format!("{} ({h})", d.message), None => d.message.clone() }},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(&file.name)},
                        "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(column)},
                    },
                    "logicalLocations": logical_locations(d),
                }],
            });
            if !d.related.is_empty() {
                result["relatedLocations"] = Value::Array(
                    d.related
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let rf = &files[r.file];
                            let (l, c, el, ec) = position(rf, r.span);
                            json!({
                                "id": i,
                                "message": {"text": r.message},
                                "physicalLocation": {
                                    "artifactLocation": {"uri": artifact_uri(&rf.name)},
                                    "region": {"startLine": l, "startColumn": c, "endLine": el, "endColumn": ec.max(c)},
                                },
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
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": outcome.notes.iter().map(|n| json!({"level": "note", "message": {"text": n}})).collect::<Vec<_>>(),
            }],
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}

pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands (`::error file=...,line=...::message`).
pub fn github(outcome: &LintResults, files: &[SourceFile]) -> String {
    let mut out = String::new();
    for note in &outcome.notes {
        let _ = writeln!(out, "::notice title=hpa-lint::{}", escape_data(note));
    }
    for d in &outcome.diagnostics {
        let file = &files[d.file];
        let (line, column, end_line, end_column) = position(file, d.span);
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let message = match &d.help {
            Some(h) => format!("{} ({h})", d.message),
            None => d.message.clone(),
        };
        let _ = writeln!(
            out,
            "::{cmd} file={},line={line},col={column},endLine={end_line},endColumn={end_column},title={}::{}",
            escape_property(&file.name),
            escape_property(&format!("{} {}", d.rule.id, d.rule.name)),
            escape_data(&message)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uris_are_uri_references() {
        assert_eq!(artifact_uri("./k8s/web app.yaml"), "k8s/web%20app.yaml");
        assert_eq!(artifact_uri("/srv/repo/hpa.yaml"), "file:///srv/repo/hpa.yaml");
        assert_eq!(artifact_uri("C:\\repo\\hpa.yaml"), "file:///C:/repo/hpa.yaml");
        assert_eq!(artifact_uri("<stdin>"), "%3Cstdin%3E");
    }

    #[test]
    fn workflow_commands_escape_their_data() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a,b:c"), "a%2Cb%3Ac");
    }
}
