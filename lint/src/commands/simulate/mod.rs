//! `hpa-lint simulate`: drives the HPA controller's algorithm over time from a hand-written
//! scenario file and shows every sync (a table and a terminal chart, JSON, or an SVG plot).
//!
//! - [`scenario`]: the file format, parsed with positions so every error is `file:line:col`.
//! - the pure simulation (pods, samples, the controller at every sync) is hpa-core's
//!   [`hpa_core::evaluator::simulation`], next to the controller it drives.
//! - [`render`]: the table, the terminal chart and the JSON document.
//! - [`svg`]: the SVG chart.

pub mod render;
pub mod scenario;
pub mod svg;

use std::path::{Path, PathBuf};

use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::check;
use hpa_core::evaluator::simulation::{self, Plan, PodTemplate, UnknownTemplate};
use hpa_core::features::{FeatureGates, Gate};
use hpa_core::rules::objects::{ObjectId, workload_from};

use crate::cli::{ClusterArgs, ReportFormat, SimulateArgs};
use crate::commands::common;
use crate::controller_flags::Provenance;
use crate::hpa;
use crate::input::{self, ObjectRef, SourceFile};
use crate::source::{Node, Span};
use crate::{ExitStatus, Output};

use scenario::{HpaSource, PlanInputs, Scenario, ScenarioError};

/// Why a run stopped before simulating.
#[derive(Debug)]
enum Failure {
    /// The scenario or its HPA is invalid (exit 1): messages already positioned.
    Invalid(Vec<String>),
    /// Usage or I/O (exit 2).
    Error(SimulateError),
}

/// A usage or I/O error of `simulate` (exit 2).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum SimulateError {
    /// The scenario could not be read from standard input.
    #[error("<stdin>: {0}")]
    Stdin(#[source] std::io::Error),
    /// The scenario file does not exist.
    #[error("{path}: no such scenario file")]
    #[diagnostic(help(
        "give the path of a scenario (YAML: the HPA, the load, the duration; `hpa-lint simulate --help` has \
         examples), or `-` for standard input"
    ))]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The scenario file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The path as given.
        path: String,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The configuration (file, flags, the scenario's `controller:`) is wrong.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Settings(#[from] crate::commands::settings::SettingsError),
}

impl From<SimulateError> for Failure {
    fn from(error: SimulateError) -> Failure {
        Failure::Error(error)
    }
}

/// Formats scenario errors of one file as `file:line:col: message`.
fn positioned(file: &SourceFile, errors: &[ScenarioError]) -> Vec<String> {
    errors
        .iter()
        .map(|e| {
            let (line, col) = file.line_col(e.span.start);
            format!("{}:{line}:{col}: {}", file.name, e.message)
        })
        .collect()
}

fn at(file: &SourceFile, span: Span, message: impl std::fmt::Display) -> String {
    let (line, col) = file.line_col(span.start);
    format!("{}:{line}:{col}: {message}", file.name)
}

/// Runs `simulate`.
pub fn run(args: &SimulateArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    match prepare(args, cluster, out) {
        Err(Failure::Error(e)) => out.fail(&e),
        Err(Failure::Invalid(messages)) => {
            for m in &messages {
                out.error(m);
            }
            ExitStatus::Findings
        }
        Ok((plan, header)) => {
            let sim = simulation::simulate(&plan);
            let text = match args.output {
                ReportFormat::Human => render::human(&header, &sim),
                ReportFormat::Json => common::json_text(&render::json(&sim)),
            };
            out.write(&text);
            if let Some(path) = &args.plot
                && let Err(e) = std::fs::write(path, svg::render(&header, &sim))
            {
                return out.usage_error(&format!("{}: cannot write the plot: {e}", path.display()));
            }
            ExitStatus::Clean
        }
    }
}

/// Reads the scenario and its HPA and builds the plan.
fn prepare(
    args: &SimulateArgs,
    cluster: &ClusterArgs,
    out: &mut Output<'_>,
) -> Result<(Plan, render::Header), Failure> {
    let (file, base) = if args.scenario == "-" {
        let bytes = out.read_stdin().map_err(SimulateError::Stdin)?;
        (input::from_bytes("<stdin>".into(), bytes), PathBuf::from("."))
    } else {
        let path = Path::new(&args.scenario);
        let bytes = std::fs::read(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => SimulateError::NotFound { path: args.scenario.clone() },
            _ => SimulateError::Read { path: args.scenario.clone(), source },
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (input::from_bytes(args.scenario.clone(), bytes), base)
    };
    let root = document_root(&file)?;
    let scenario = scenario::parse(root).map_err(|e| Failure::Invalid(positioned(&file, &e)))?;

    // The configuration's release, gates and controller apply as they do to `lint`; the
    // scenario's `controller:` overrides the configuration's, the command line both.
    let flags = args.controller.flags();
    let layers = [(&scenario.controller, Provenance::Scenario), (&flags, Provenance::CommandLine)];
    let settings =
        crate::commands::settings::settings(&args.config, cluster, &layers, out).map_err(SimulateError::from)?.settings;
    let admission = check::Options::verdict_only(settings.gates().clone());
    let (hpa, workload, hpa_span) = match &scenario.hpa {
        HpaSource::Inline(tree) => {
            let node = tree.root();
            let hpa = admit(&file, &ObjectRef::new(0, 0, None, node), &admission)?;
            (hpa, Target::default(), node.span())
        }
        HpaSource::File(path) => {
            let resolved = base.join(&path.value);
            let bytes = std::fs::read(&resolved).map_err(|e| {
                Failure::Invalid(vec![at(
                    &file,
                    path.span,
                    format!("cannot read the HPA file {}: {e}", resolved.display()),
                )])
            })?;
            let hpa_file = input::from_bytes(resolved.display().to_string(), bytes);
            let (hpa, workload) = from_manifests(&file, &hpa_file, &scenario, path.span, &admission)?;
            (hpa, workload, path.span)
        }
    };

    let options = settings.controller;

    let header = render::Header {
        scenario: file.name.clone(),
        hpa: format!("{}/{}", hpa.metadata.namespace, hpa.metadata.name),
        target: format!("{}/{}", hpa.spec.scale_target_ref.kind, hpa.spec.scale_target_ref.name),
        min: hpa.spec.min_replicas.unwrap_or(1),
        max: hpa.spec.max_replicas,
        behavior: hpa.spec.behavior.is_some(),
        sync_period_ms: options.sync_period_millis(),
        pod_ready_after_ms: scenario.pod_ready_after_ms.max(scenario.pod_start_after_ms),
    };
    let ctx = PlanInputs {
        hpa,
        workload_template: workload.template,
        workload_replicas: workload.replicas,
        hpa_span,
        options,
    };
    let plan = scenario::bind(&scenario, ctx).map_err(|e| Failure::Invalid(positioned(&file, &e)))?;
    Ok((plan, header))
}

/// The single document of a scenario file.
fn document_root(file: &SourceFile) -> Result<Node<'_>, Failure> {
    if let Some(reason) = &file.unreadable {
        return Err(Failure::Invalid(vec![format!("{}: {reason}", file.name)]));
    }
    if let Some(e) = &file.parsed.error {
        let (line, col) = file.line_col(e.mark);
        let message = non_finite_message(&file.text, e).unwrap_or_else(|| e.message.clone());
        return Err(Failure::Invalid(vec![format!("{}:{line}:{col}: {message}", file.name)]));
    }
    match file.parsed.documents.as_slice() {
        [] => Err(Failure::Invalid(vec![format!("{}:1:1: the scenario is empty", file.name)])),
        [doc] => Ok(doc.root()),
        [_, second, ..] => Err(Failure::Invalid(vec![at(
            file,
            second.root().span(),
            "a scenario file holds one YAML document; put the HPA in its own file (`hpa:`) or under `hpaObject`",
        )])),
    }
}

/// A scenario's `.nan` or `.inf` refused as kubectl refuses it, said in the scenario's words: the
/// field and what to write. The field is the one the reader found the value at
/// ([`hpa_yaml::read::non_finite`]: on the document's tree, in the one parse); `None` when the
/// error is another.
fn non_finite_message(text: &str, e: &crate::source::SyntaxError) -> Option<String> {
    let (path, written) = crate::source::read::non_finite(text, e)?;
    let field = path.rsplit('.').next().unwrap_or_default();
    let what = match field.split('[').next().unwrap_or_default() {
        "utilization" => "a percentage such as 80",
        "perPod" | "total" | "value" => {
            "a quantity such as 500m, or `unavailable` in place of the mapping for a metric with no value"
        }
        "at" | "duration" | "podStartAfter" | "podReadyAfter" | "metricWindow" => "a duration such as 90s",
        "replicas" => "a whole number",
        "tolerance" => "a ratio such as 0.1",
        f if f.ends_with("Seconds") => "a whole number of seconds",
        _ if path.contains("requests") || path.contains("overhead") => "a quantity such as 100m",
        _ => "a number",
    };
    Some(format!(
        "{path}: {written} is not a number a scenario can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write {what}"
    ))
}

/// Runs an HPA object of a file through hpa-core's front door once ([`hpa::check_object`]:
/// an item of a list keeps the `kind` and `apiVersion` it inherits), and refuses it, with
/// `hpa-lint validate`'s positioned errors, when kube-apiserver would.
fn admit(file: &SourceFile, obj: &ObjectRef<'_>, opts: &check::Options) -> Result<HorizontalPodAutoscaler, Failure> {
    let checked = hpa::check_object(obj, None, opts);
    if let check::Admission::Admitted(admitted) = &checked.admission
        && admitted.allowed()
    {
        return Ok(admitted.outcome.object.clone());
    }
    let entry = common::entry_of(file, obj, &checked, opts);
    let mut messages: Vec<String> = entry
        .errors
        .iter()
        .map(|e| format!("{}:{}:{}: invalid HPA: {}", file.name, e.line, e.column, e.message))
        .collect();
    if messages.is_empty() {
        messages.push(at(
            file,
            obj.node.span(),
            format!("invalid HPA: {}", entry.message.unwrap_or_else(|| "kube-apiserver would reject it".into())),
        ));
    }
    Err(Failure::Invalid(messages))
}

/// The scale target found next to the HPA ([`target_in`]).
#[derive(Debug)]
pub struct Target {
    /// The spec of its pods, as admitted, or why it is not known.
    pub template: Result<PodTemplate, UnknownTemplate>,
    /// Its `spec.replicas`, when written (and not negative).
    pub replicas: Option<i32>,
}

impl Default for Target {
    /// No target found.
    fn default() -> Target {
        Target { template: Err(UnknownTemplate::NotFound), replicas: None }
    }
}

/// Picks the HPA from a manifest file, and its target workload when the file holds it.
fn from_manifests(
    scenario_file: &SourceFile,
    file: &SourceFile,
    scenario: &Scenario,
    hpa_span: Span,
    opts: &check::Options,
) -> Result<(HorizontalPodAutoscaler, Target), Failure> {
    if let Some(reason) = &file.unreadable {
        return Err(Failure::Invalid(vec![at(scenario_file, hpa_span, format!("{}: {reason}", file.name))]));
    }
    if let Some(e) = &file.parsed.error {
        let (line, col) = file.line_col(e.mark);
        let message = non_finite_message(&file.text, e).unwrap_or_else(|| e.message.clone());
        return Err(Failure::Invalid(vec![format!("{}:{line}:{col}: {message}", file.name)]));
    }
    let objects = input::objects(0, file);
    let hpas: Vec<&ObjectRef<'_>> = objects.iter().filter(|o| o.is_hpa()).collect();
    let wanted = scenario.hpa_name.as_ref();
    let chosen: Vec<&&ObjectRef<'_>> =
        hpas.iter().filter(|o| wanted.is_none_or(|w| o.name() == Some(w.value.as_str()))).collect();
    let obj = match (chosen.as_slice(), wanted) {
        ([one], _) => **one,
        ([], Some(w)) => {
            return Err(Failure::Invalid(vec![at(
                scenario_file,
                w.span,
                format!("no HorizontalPodAutoscaler named {:?} in {}", w.value, file.name),
            )]));
        }
        ([], None) => {
            return Err(Failure::Invalid(vec![at(
                scenario_file,
                hpa_span,
                format!("no HorizontalPodAutoscaler in {}", file.name),
            )]));
        }
        (many, _) => {
            let names: Vec<&str> = many.iter().filter_map(|o| o.name()).collect();
            return Err(Failure::Invalid(vec![at(
                scenario_file,
                hpa_span,
                format!(
                    "{} holds {} HorizontalPodAutoscalers ({}); choose one with `hpaName`",
                    file.name,
                    many.len(),
                    names.join(", ")
                ),
            )]));
        }
    };
    let hpa = admit(file, obj, opts)?;

    let target = target_in(&objects, &hpa, opts.settings.gates());
    Ok((hpa, target))
}

/// The scale target of `hpa` among the objects of its file, when the file holds it (in the
/// HPA's namespace, or naming none): its pods as kube-apiserver admits them in the world of the
/// file ([`PodTemplate::of_target`], with the `PodLevelResources` gate of `gates`), as
/// `diagnose` makes them, and its `spec.replicas`.
pub fn target_in(objects: &[ObjectRef<'_>], hpa: &HorizontalPodAutoscaler, gates: &FeatureGates) -> Target {
    let namespace = hpa.metadata.namespace.as_str();
    let target = &hpa.spec.scale_target_ref;
    let found = objects.iter().enumerate().find(|(_, o)| {
        o.namespace().is_none_or(|ns| ns == namespace)
            && o.kind() == Some(target.kind.as_str())
            && o.name() == Some(target.name.as_str())
    });
    let Some((at, found)) = found else { return Target::default() };
    let id = ObjectId {
        api_version: found.api_version().unwrap_or_default().to_string(),
        kind: target.kind.clone(),
        namespace: namespace.to_string(),
        name: target.name.clone(),
    };
    let replicas = workload_from(id, found.node).replicas.and_then(|r| i32::try_from(r).ok()).filter(|r| *r >= 0);
    // The file is small (one HPA and what it scales): its objects are read as JSON, as
    // `diagnose` reads a snapshot's.
    let json: Vec<serde_json::Value> = objects.iter().map(|o| o.node.to_json()).collect();
    let items: Vec<&serde_json::Value> = json.iter().collect();
    let template = match items.get(at) {
        Some(found) => PodTemplate::of_target(found, &items, namespace, gates.enabled(Gate::PodLevelResources)),
        None => Err(UnknownTemplate::NotFound),
    };
    Target { template, replicas }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    #[test]
    fn usage_errors_are_typed_and_keep_their_words() {
        let e = SimulateError::Read { path: "no/such.yaml".into(), source: io::Error::from(io::ErrorKind::NotFound) };
        assert_eq!(e.to_string(), "no/such.yaml: entity not found");
        assert!(matches!(&e, SimulateError::Read { source, .. } if source.kind() == io::ErrorKind::NotFound));
        let e = SimulateError::Stdin(io::Error::other("closed"));
        assert_eq!(e.to_string(), "<stdin>: closed");
        let e = SimulateError::from(crate::commands::settings::SettingsError::UnknownRule("HPA999".into()));
        assert!(matches!(e, SimulateError::Settings(_)));
        assert_eq!(e.to_string(), crate::commands::settings::SettingsError::UnknownRule("HPA999".into()).to_string());
        assert!(matches!(Failure::from(e), Failure::Error(SimulateError::Settings(_))));
    }
}
