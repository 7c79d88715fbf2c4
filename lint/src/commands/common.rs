//! What several commands share, so that no command module imports another: the error of a
//! live read (`cluster`, `diagnose`), the `-o json` text of `validate`, `explain`, `simulate`,
//! `diagnose` and `rules` (`json_text`), objects printed as YAML or JSON (`default`, `convert`),
//! an HPA's admission verdict with positions (`validate`, `simulate`), and the text of metrics,
//! sync outcomes and the replica chart (`simulate`, `diagnose`).

use hpa_cluster::Error;
use hpa_core::admission::Operation;
use hpa_core::api::v2::{MetricSpec, MetricTarget, MetricValueStatus};
use hpa_core::api::{self, ApiVersion, DecodeError, Quantity};
use hpa_core::check::{self, Admission, Admitted};
use hpa_core::convert::Conversion;
use hpa_core::evaluator::SyncOutcome;
use hpa_core::evaluator::simulation::Simulation;
use hpa_core::evaluator::time::format_ms;
use serde::Serialize;
use serde_json::Value;

use crate::Output;
use crate::cli::ObjectFormat;
use crate::hpa;
use crate::input::{ObjectRef, SourceFile};
use crate::source::Span;

/// What to do about an error that stopped the read, beyond its sentence.
fn advice(e: &Error) -> Option<&'static str> {
    match e {
        Error::Unreachable { .. } => Some(
            "check that the cluster is up and reachable from here (VPN, proxy, port-forward), or choose another with --context or --kubeconfig",
        ),
        Error::Proxy { .. } => Some(
            "check that the proxy is up and lets this machine CONNECT to the API server; a kubeconfig's proxy-url serves every request, HTTPS_PROXY all but the hosts NO_PROXY names",
        ),
        Error::Timeout { .. } => Some("the server or the network is slow: retry, or raise --timeout"),
        Error::Throttled { .. } => Some(
            "the API server is overloaded or limits these credentials (API Priority and Fairness): retry later, or raise --timeout to wait out its Retry-After",
        ),
        Error::Kubeconfig { .. } => Some("fix the file, or choose another with --kubeconfig or --context"),
        Error::Api { .. } | Error::Protocol { .. } => Some("retry; if it persists, check the API server's health"),
        _ => None,
    }
}

/// An error that stopped a live read (`cluster`, `diagnose`), shown as every command shows an
/// error (`hpa-lint: error: ...`, then `  help: ...` with what to do beyond its sentence).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct LiveError(#[from] pub Error);

impl miette::Diagnostic for LiveError {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        advice(&self.0).map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
}

/// A value as the commands' `-o json` prints it (not `lint`'s, `report::write_json`): serde_json's
/// pretty form and a newline (nothing if it cannot be serialized, which a tree of JSON values and
/// plain structs never is).
pub fn json_text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string_pretty(value).map(|s| s + "\n").unwrap_or_default()
}

/// Prints objects: YAML documents, or one JSON object (a `List` when there are several).
pub fn render_objects(objects: &[Value], format: ObjectFormat) -> String {
    match format {
        ObjectFormat::Json => {
            let value = match objects {
                [one] => one.clone(),
                many => serde_json::json!({"apiVersion": "v1", "kind": "List", "items": many}),
            };
            json_text(&value)
        }
        ObjectFormat::Yaml => {
            let docs: Vec<String> = objects.iter().map(crate::yaml_out::to_yaml).collect();
            docs.join("---\n")
        }
    }
}

/// One HPA's result, in the stable JSON schema of `validate -o json`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationEntry {
    /// The file the object is in.
    pub file: String,
    /// 0-based index of the YAML document in its file.
    pub document: usize,
    /// Index in a `List`'s `items`, when the object came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<usize>,
    /// 1-based line where the object starts.
    pub line: u32,
    /// 1-based column where the object starts.
    pub column: u32,
    /// The object's `apiVersion` (null for an unparsable document).
    pub api_version: Option<String>,
    /// The object's `kind` (null for an unparsable document).
    pub kind: Option<String>,
    /// The namespace (the default namespace when the object has none).
    pub namespace: String,
    /// The name (the generated one with `generateName`).
    pub name: String,
    /// CREATE or UPDATE.
    pub operation: &'static str,
    /// Whether kube-apiserver would accept it.
    pub allowed: bool,
    /// The whole rejection as kube-apiserver renders it (null when allowed).
    pub message: Option<String>,
    /// Each error, in kube-apiserver's order, duplicates included.
    pub errors: Vec<ErrorEntry>,
    /// kube-apiserver's own warnings for what its request handler changed (duplicate owner
    /// references dropped), then the round-trip annotations it ignores (in whole or in part).
    pub warnings: Vec<String>,
}

impl ValidationEntry {
    /// The entry of an object of a file as written (where it starts, its `apiVersion`, `kind`,
    /// namespace and name), a CREATE with this verdict and no errors yet.
    pub fn of_object(
        file: &SourceFile,
        obj: &ObjectRef<'_>,
        opts: &check::Options,
        allowed: bool,
        message: Option<String>,
    ) -> ValidationEntry {
        let (line, column) = file.line_col(obj.node.span().start);
        ValidationEntry {
            file: file.name.clone(),
            document: obj.document,
            item: obj.item,
            line,
            column,
            api_version: obj.api_version().map(String::from),
            kind: obj.kind().map(String::from),
            namespace: namespace_of(obj, opts),
            name: obj.name().unwrap_or_default().to_string(),
            operation: "CREATE",
            allowed,
            message,
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// One error of a [`ValidationEntry`].
#[derive(Debug, Clone, Serialize)]
pub struct ErrorEntry {
    /// `FieldValueInvalid`, ..., or a decoding problem (`UnknownField`, `DuplicateField`, `InvalidValue`,
    /// `TypeMeta`, `NotAnObject`, `SyntaxError`).
    #[serde(rename = "type")]
    pub type_: String,
    /// The field path (internal, v2-shaped paths for validation errors).
    pub field: String,
    /// The offending value (null when not shown).
    pub value: Value,
    /// The detail.
    pub detail: String,
    /// The whole error as kube-apiserver renders it.
    pub message: String,
    /// 1-based line in the file where the field is (or its nearest existing parent).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// Where an object starts, as the messages about it name it: `file:line:column`.
pub(crate) fn object_at(file: &SourceFile, obj: &ObjectRef<'_>) -> String {
    let (line, col) = file.line_col(obj.node.span().start);
    format!("{}:{line}:{col}", file.name)
}

/// Warns, for the object `at`, of the round-trip annotations a conversion could not read and of
/// what the target version cannot hold (`default`, `convert`).
pub(crate) fn warn_conversion<T>(out: &mut Output<'_>, at: &str, conversion: &Conversion<T>) {
    for p in &conversion.annotation_problems {
        out.warning(&format!("{at}: {}", p.message));
    }
    for l in &conversion.lossy {
        out.warning(&format!("{at}: lossy conversion: {l}"));
    }
}

/// The namespace an object lands in: its own, or the one of objects that name none.
pub(crate) fn namespace_of(obj: &ObjectRef<'_>, opts: &check::Options) -> String {
    obj.namespace().map_or_else(|| opts.request.default_namespace.clone().unwrap_or_default(), String::from)
}

/// The entry of an object the front door has `checked`: its verdict, and each error where
/// `hpa-lint` points at it.
pub fn entry_of(
    file: &SourceFile,
    obj: &ObjectRef<'_>,
    checked: &check::Report,
    opts: &check::Options,
) -> ValidationEntry {
    let version = obj.api_version().and_then(ApiVersion::parse);
    // Where `hpa-lint` points at the same error (`hpa::position`: a whole mapping or list by
    // its key, an item of a list of mappings by its first line).
    let position = |path: &str| -> (u32, u32) { span_pos(file, hpa::position(obj.node, version, path, false).0) };
    let mut entry = ValidationEntry::of_object(file, obj, opts, checked.allowed(), checked.message());
    match &checked.admission {
        Admission::Admitted(Admitted { outcome, operation, .. }) => {
            entry.operation = if *operation == Operation::Update { "UPDATE" } else { "CREATE" };
            outcome.object.metadata.name.as_str().clone_into(&mut entry.name);
            entry.namespace.clone_from(&outcome.object.metadata.namespace);
            for e in &outcome.errors {
                let (line, column) = position(&e.field);
                entry.errors.push(ErrorEntry {
                    type_: e.kind.reason().to_string(),
                    field: e.field.clone(),
                    value: e.value.to_json(),
                    detail: e.detail.clone(),
                    message: e.to_string(),
                    line,
                    column,
                });
            }
            entry.warnings = outcome.warnings.clone();
            entry.warnings.extend(outcome.annotation_problems.iter().map(|p| p.message.clone()));
        }
        Admission::Undecodable { errors, .. } => {
            for e in errors {
                // Where `hpa-lint` points at the same error.
                let (line, column) = span_pos(file, hpa::decode_error_span(obj, e));
                entry.errors.push(ErrorEntry {
                    type_: e.kind.as_str().to_string(),
                    field: e.path.clone(),
                    value: Value::Null,
                    detail: e.message.clone(),
                    message: e.to_string(),
                    line,
                    column,
                });
            }
        }
        Admission::Unconvertible { error, .. } => {
            let message = error.to_string();
            entry.errors.push(ErrorEntry {
                type_: "ConversionError".into(),
                field: String::new(),
                value: Value::Null,
                detail: message.clone(),
                message: message.clone(),
                line: entry.line,
                column: entry.column,
            });
        }
    }
    entry
}

/// `FILE:LINE:COLUMN: MESSAGE` for an HPA of a file kube-apiserver cannot decode (`default`,
/// `convert`): kube-apiserver's message, at its first error, where `validate` and `hpa-lint`
/// point at it.
pub fn undecodable(file: &SourceFile, obj: &ObjectRef<'_>, errors: &[DecodeError]) -> String {
    let at = errors.first().map_or_else(|| obj.node.span(), |e| hpa::decode_error_span(obj, e));
    let (line, column) = span_pos(file, at);
    let message = api::decode_failure_message(obj.api_version().and_then(ApiVersion::parse), errors);
    format!("{}:{line}:{column}: {message}", file.name)
}

/// `FILE:LINE:COLUMN` of an HPA the front door has `checked` (`explain`): at its first error,
/// where `validate` points at it ([`entry_of`]), or at the object when it has none.
pub fn checked_at(file: &SourceFile, obj: &ObjectRef<'_>, checked: &check::Report, opts: &check::Options) -> String {
    let entry = entry_of(file, obj, checked, opts);
    let (line, column) = entry.errors.first().map_or((entry.line, entry.column), |e| (e.line, e.column));
    format!("{}:{line}:{column}", file.name)
}

fn span_pos(file: &SourceFile, span: Span) -> (u32, u32) {
    file.line_col(span.start)
}

/// The target of a metric.
pub fn target_of(m: &MetricSpec) -> Option<&MetricTarget> {
    m.resource
        .as_ref()
        .map(|r| &r.target)
        .or_else(|| m.container_resource.as_ref().map(|r| &r.target))
        .or_else(|| m.pods.as_ref().map(|r| &r.target))
        .or_else(|| m.object.as_ref().map(|r| &r.target))
        .or_else(|| m.external.as_ref().map(|r| &r.target))
}

/// The target in short: `20%`, `500m/pod`, `30`.
pub fn target_text(t: &MetricTarget) -> String {
    match t.type_.as_str() {
        "Utilization" => format!("{}%", t.average_utilization.unwrap_or_default()),
        "AverageValue" => format!("{}/pod", t.average_value.as_ref().map(ToString::to_string).unwrap_or_default()),
        "Value" => t.value.as_ref().map(ToString::to_string).unwrap_or_default(),
        other => other.to_string(),
    }
}

/// The observed value in the target's terms: `2575%`, `515m`, `42`.
pub fn observed_text(t: Option<&MetricTarget>, c: &MetricValueStatus) -> String {
    let q = |q: &Option<Quantity>| q.as_ref().map(ToString::to_string);
    match t.map(|t| t.type_.as_str()) {
        Some("Utilization") => c.average_utilization.map(|u| format!("{u}%")),
        Some("AverageValue") => q(&c.average_value),
        Some("Value") => q(&c.value),
        _ => None,
    }
    .or_else(|| c.average_utilization.map(|u| format!("{u}%")))
    .or_else(|| q(&c.average_value))
    .or_else(|| q(&c.value))
    .unwrap_or_else(|| "?".into())
}

/// The observed value as a fraction of the target (1.0 = on target), for charts: the status's
/// value (per-pod values rounded up to a milli-unit) over the target, not the usage ratio the
/// controller judged (`GetObjectPerPodMetricReplicas` and its kin divide the unrounded sum).
pub fn ratio_to_target(t: &MetricTarget, c: &MetricValueStatus) -> Option<f64> {
    let milli = |q: &Option<Quantity>| q.as_ref().map(|q| q.milli_value() as f64);
    let (observed, target) = match t.type_.as_str() {
        "Utilization" => (c.average_utilization.map(f64::from)?, f64::from(t.average_utilization?)),
        "AverageValue" => (milli(&c.average_value)?, milli(&t.average_value)?),
        "Value" => (milli(&c.value)?, milli(&t.value)?),
        _ => return None,
    };
    (target > 0.0).then(|| observed / target)
}

/// A sync's outcome, as its JSON and reports name it.
pub fn outcome_str(o: SyncOutcome) -> &'static str {
    match o {
        SyncOutcome::FailedGetScale => "FailedGetScale",
        SyncOutcome::ScalingDisabled => "ScalingDisabled",
        SyncOutcome::FailedComputeMetrics => "FailedComputeMetrics",
        SyncOutcome::FailedUpdateScale => "FailedUpdateScale",
        SyncOutcome::Rescaled => "Rescaled",
        SyncOutcome::Unchanged => "Unchanged",
    }
}

/// Block characters by eighths.
const BLOCKS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// Chart height in text rows.
const CHART_ROWS: usize = 6;
/// Chart width in columns (with the axis labels, at most 80 characters).
const CHART_COLS: usize = 72;

/// A compact chart of the replica count after each sync, at most 80 columns wide.
pub fn chart(sim: &Simulation, sync_period_ms: i64) -> String {
    let n = sim.steps.len();
    if n == 0 {
        return String::new();
    }
    let per_col = n.div_ceil(CHART_COLS);
    // Short runs get up to three columns per sync.
    let repeat = (CHART_COLS / n).clamp(1, 3);
    let values: Vec<i32> = sim
        .steps
        .chunks(per_col)
        .flat_map(|c| std::iter::repeat_n(c.iter().map(|s| s.desired).max().unwrap_or(0), repeat))
        .collect();
    let top = values.iter().copied().max().unwrap_or(0).max(1);
    let levels = (CHART_ROWS * 8) as f64;
    let heights: Vec<usize> =
        values.iter().map(|&v| ((f64::from(v.max(0)) / f64::from(top)) * levels).round() as usize).collect();
    let mut out = format!(
        "  replicas after each sync ({} per {}{}):\n",
        format_ms(sync_period_ms * i64::try_from(per_col).unwrap_or(1)),
        if repeat > 1 { format!("{repeat} columns") } else { "column".to_string() },
        if per_col > 1 { ", highest shown" } else { "" }
    );
    let mid_row = CHART_ROWS / 2;
    for row in 0..CHART_ROWS {
        let base = (CHART_ROWS - 1 - row) * 8;
        let label = if row == 0 {
            format!("{top:>5} ┤")
        } else if row == mid_row {
            let v = f64::from(top) * (CHART_ROWS - row) as f64 / CHART_ROWS as f64;
            format!("{:>5} ┤", format!("{v:.0}"))
        } else {
            "      │".to_string()
        };
        let cells: String = heights.iter().map(|&hgt| BLOCKS[hgt.saturating_sub(base).min(8)]).collect();
        out.push_str(format!("{label}{cells}").trim_end());
        out.push('\n');
    }
    out.push_str(&format!("    0 └{}\n", "─".repeat(values.len())));
    let first = "0s".to_string();
    let last = sim.steps.last().map(|s| format_ms(s.at_ms)).unwrap_or_default();
    let gap = values.len().saturating_sub(first.chars().count() + last.chars().count()).max(1);
    out.push_str(&format!("       {first}{}{last}\n", " ".repeat(gap)));
    out
}
