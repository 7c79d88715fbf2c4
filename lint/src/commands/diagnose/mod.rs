//! `hpa-lint diagnose`: the HPA controller's current sync of one HPA, replayed exactly on what
//! the cluster holds (live, through hpa-cluster, or from `kubectl get` snapshot files), and
//! explained.
//!
//! - [`run`]: reads the objects (live: [`hpa_cluster::diagnose::read_objects`]; snapshot: the
//!   files through the project's YAML reader), then shares everything after reading: hpa-cluster's
//!   [`inputs_from_objects`] builds the sync's inputs, each HPA decoded once, leniently, with the
//!   Go types of the release `--kubernetes-version` selects, else (live) the API server's (the
//!   release of the controller that is replayed), and hpa-core's [`diagnose`](hpa_core::evaluator::diagnosis::diagnose) replays
//!   and explains it.
//! - [`render`]: the human report (with the `simulate` chart of the next syncs) and the JSON
//!   document (schema in docs/diagnose.md).

pub mod render;

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use hpa_cluster::diagnose::{DiagnosisObjects, HpaEvent, inputs_from_objects, latest_instant, latest_write};
use hpa_cluster::{Cluster, ServerRelease};
use hpa_core::api::Time;
use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::evaluator::config::TOLERANCE_FLAG;
use hpa_core::evaluator::diagnosis::{self, DiagnosisInput, RecordedEvent};
use hpa_core::evaluator::{HPAControllerConfiguration, Timestamp};
use hpa_core::features::KubernetesVersion;
use serde_json::Value;

use crate::cli::{ClusterArgs, DiagnoseArgs, ReportFormat};
use crate::commands::common::{self, LiveError};
use crate::commands::settings;
use crate::controller_flags::Provenance;
use crate::input;
use crate::{ExitStatus, Output};

/// Where the objects came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A live API server.
    Live,
    /// Snapshot files.
    Snapshot,
}

/// What was read, before the shared half.
struct Read {
    source: Source,
    objects: DiagnosisObjects,
    namespace: String,
    now: Timestamp,
    notes: Vec<String>,
}

/// Why the objects of a diagnosis could not be read (each a usage or I/O error, exit 2).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum DiagnoseReadError {
    /// `--now` is not an RFC 3339 time.
    #[error("--now {0:?} is not an RFC 3339 time (2026-03-02T09:21:05Z)")]
    Now(String),
    /// The async runtime of a live read did not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// hpa-cluster could not read the objects live, or build the sync's inputs from them
    /// (shown as `hpa-lint cluster` shows it, with the same help).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Cluster(#[from] LiveError),
    /// A snapshot file cannot be read.
    #[error("{file}: {source}")]
    File {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// A snapshot file is not text the YAML reader takes (binary, not UTF-8).
    #[error("{file}: {reason}")]
    Unreadable {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// A snapshot file's YAML (or JSON) syntax error.
    #[error("{file}:{line}:{column}: invalid YAML: {message}")]
    Yaml {
        /// The file.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The parser's message.
        message: String,
    },
    /// Without `--now`, the snapshot must record some instant.
    #[error(
        "the snapshot records no instant (no PodMetrics timestamp, event, condition time, creationTimestamp or managedFields time): pass --now"
    )]
    NoInstant,
}

impl From<hpa_cluster::error::Error> for DiagnoseReadError {
    fn from(e: hpa_cluster::error::Error) -> Self {
        DiagnoseReadError::Cluster(LiveError(e))
    }
}

/// Runs `diagnose`: exit 0 with a diagnosis, 2 when nothing could be read.
pub fn run(args: &DiagnoseArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    // `--snapshot a.yaml b.json NAME`: the flag takes every value, the last is the name.
    let mut args = args.clone();
    if args.name.is_none() && args.snapshot.len() > 1 {
        args.name = args.snapshot.pop().map(|p| p.display().to_string());
    }
    let Some(name) = args.name.clone() else {
        return out.usage_error("diagnose needs the HorizontalPodAutoscaler's NAME");
    };
    let args = &args;
    // A namespace or name no request can carry, refused before any network call: the
    // namespace as `hpa-lint cluster` refuses it, the name as client-go's `Request.Name` does.
    if let Some(ns) = &args.namespace
        && let Some(problem) = hpa_core::validation::names::dns1123_label(ns).first()
    {
        return out.usage_error(&format!("--namespace {ns:?}: {problem}"));
    }
    let problems = hpa_core::validation::names::path_segment_name(&name);
    if !problems.is_empty() {
        return out.usage_error(&format!("invalid resource name {name:?}: [{}]", problems.join(" ")));
    }
    // The configuration's release, gates and controller apply as they do to `lint`; the
    // controller flags given here override its `controller:`. Live, the release is the one
    // named, else the API server's (`hpa_cluster::resolve`, with its notes).
    let configured = match settings::configured(&args.config, cluster) {
        Ok(c) => c,
        Err(e) => return out.fail(&e),
    };
    let now = match args.now.as_deref().map(parse_now).transpose() {
        Ok(n) => n,
        Err(e) => return out.fail(&e),
    };
    let flags = args.controller.flags();
    // Usage errors before any network call: gates or controller values no release takes.
    if let Err(e) = settings::check_before_connecting(&configured, cluster, &[(&flags, Provenance::CommandLine)]) {
        return out.fail(&e);
    }
    let (live, release, version_notes) = if args.snapshot.is_empty() {
        let (runtime, live_cluster, server) = match connect_live(args) {
            Ok(c) => c,
            Err(e) => return out.fail(&e),
        };
        let resolution =
            hpa_cluster::resolve(configured.release.as_ref().map(|(r, from)| (*r, from.as_str())), &server);
        (Some((runtime, live_cluster)), resolution.release, resolution.notes)
    } else {
        (None, configured.release_or_default(), Vec::new())
    };
    let config = match settings::settings_for(configured, release, cluster, &[(&flags, Provenance::CommandLine)], out) {
        Ok(r) => r.settings.controller,
        Err(e) => return out.fail(&e),
    };
    let read = match &live {
        Some((runtime, live_cluster)) => read_live(runtime, live_cluster, args, &name, now, release),
        None => read_snapshot(args, &name, now, release),
    };
    let mut read = match read {
        Ok(r) => r,
        Err(e) => return out.fail(&e),
    };
    read.notes.splice(0..0, version_notes);
    let inputs = match inputs_from_objects(&read.objects, &read.namespace, &name, read.now) {
        Ok(i) => i,
        Err(e) => return out.fail(&DiagnoseReadError::from(e)),
    };
    let hpa = &inputs.hpa;
    read.notes.extend(inputs.notes.iter().cloned());
    read.notes.extend(ignored_by_controller(hpa, &config));
    let events = core_events(&inputs.events);
    let target_events = core_events(&inputs.target_events);
    let input = DiagnosisInput {
        hpa,
        config: &config,
        sync: &inputs.sync,
        events: &events,
        target_events: &target_events,
        resizes: &inputs.resizes,
        template: inputs.template.as_ref(),
    };
    let diagnosis = diagnosis::diagnose(&input);
    let view = render::DiagnosisView {
        source: read.source,
        key: &inputs.key,
        hpa,
        config: &config,
        inputs: &inputs,
        diagnosis: &diagnosis,
        notes: &read.notes,
    };
    let text = match args.output {
        ReportFormat::Human => render::human(&view),
        ReportFormat::Json => common::json_text(&render::json(&view)),
    };
    out.write(&text);
    ExitStatus::Clean
}

/// hpa-cluster's events in hpa-core's terms.
fn core_events(events: &[HpaEvent]) -> Vec<RecordedEvent> {
    events
        .iter()
        .map(|e| RecordedEvent {
            reason: e.reason.clone(),
            message: e.message.clone(),
            count: e.count,
            first: e.first,
            last: e.last.or(e.first),
        })
        .collect()
}

/// What the controller of `config`'s release ignores of what the HPA sets: a per-HPA
/// `behavior.scale{Up,Down}.tolerance` while gate `HPAConfigurableTolerance` is off
/// ([`HPAControllerConfiguration::tolerances_for_hpa`], `tolerancesForHpa` in
/// `pkg/controller/podautoscaler/horizontal.go`: the flag's tolerance in both directions).
/// kube-apiserver keeps such a tolerance on an object that already had one
/// (`dropDisabledFields`/`toleranceInUse`), so a live HPA can carry it.
fn ignored_by_controller(hpa: &HorizontalPodAutoscaler, config: &HPAControllerConfiguration) -> Vec<String> {
    config
        .tolerances_for_hpa(hpa.spec.behavior.as_ref())
        .ignored()
        .filter_map(|d| {
            Some(format!(
                "spec.behavior.{}.tolerance {} is ignored: HPAConfigurableTolerance is off in this Kubernetes {} controller, which uses {TOLERANCE_FLAG}={} both ways",
                d.field,
                d.ignored()?,
                config.release(),
                d.used
            ))
        })
        .collect()
}

fn parse_now(text: &str) -> Result<Timestamp, DiagnoseReadError> {
    Time::parse_rfc3339(text).map(Timestamp::from_api_time).ok_or_else(|| DiagnoseReadError::Now(text.to_string()))
}

/// Connects to the API server and asks it its release.
fn connect_live(args: &DiagnoseArgs) -> Result<(tokio::runtime::Runtime, Cluster, ServerRelease), DiagnoseReadError> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(DiagnoseReadError::Runtime)?;
    let options = args.connection.client_options(&args.environment);
    let (cluster, server) = runtime.block_on(async {
        let cluster = Cluster::connect(&options).await?;
        let server = hpa_cluster::server_release(&cluster).await?;
        Ok::<_, DiagnoseReadError>((cluster, server))
    })?;
    Ok((runtime, cluster, server))
}

/// Reads the HPA's objects from the API server.
fn read_live(
    runtime: &tokio::runtime::Runtime,
    cluster: &Cluster,
    args: &DiagnoseArgs,
    name: &str,
    now: Option<Timestamp>,
    release: KubernetesVersion,
) -> Result<Read, DiagnoseReadError> {
    runtime.block_on(async {
        let namespace = args.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
        let mut objects = hpa_cluster::diagnose::read_objects(cluster, &namespace, name, release).await?;
        let now = now.unwrap_or_else(|| {
            let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
            Timestamp::from_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        });
        let notes = std::mem::take(&mut objects.notes);
        Ok(Read { source: Source::Live, objects, namespace, now, notes })
    })
}

/// Reads snapshot files (YAML or JSON, one or more documents each): their objects as kubectl
/// reads them, lists expanded ([`input::objects_in`]: an item without `kind` and `apiVersion`
/// takes the list's, as the items of `kubectl get --raw` lists need), and the kinds of the lists
/// that hold no item (an answer gathered empty).
fn read_snapshot(
    args: &DiagnoseArgs,
    name: &str,
    now: Option<Timestamp>,
    release: KubernetesVersion,
) -> Result<Read, DiagnoseReadError> {
    let mut objects = Vec::new();
    let mut empty_lists = Vec::new();
    let mut sent = BTreeMap::new();
    for path in &args.snapshot {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| DiagnoseReadError::File { file: name.clone(), source })?;
        let file = input::from_bytes(name.clone(), bytes);
        if let Some(reason) = &file.unreadable {
            return Err(DiagnoseReadError::Unreadable { file: name, reason: reason.to_string() });
        }
        if let Some(e) = &file.parsed.error {
            let (line, column) = file.line_col(e.mark);
            return Err(DiagnoseReadError::Yaml { file: name, line, column, message: e.message.clone() });
        }
        let texts = answer_texts(&file);
        for o in input::objects_in(0, &file.parsed) {
            let v = o.to_json();
            if v.is_null() {
                continue;
            }
            if let Some(text) = o.item.and_then(|i| texts.get(i)) {
                sent.insert(objects.len(), Box::from(*text));
            }
            objects.push(v);
        }
        empty_lists
            .extend(file.parsed.documents.iter().filter_map(|d| input::empty_list_kind(d.root())).map(String::from));
    }
    let mut notes = Vec::new();
    let namespace = match &args.namespace {
        Some(ns) => ns.clone(),
        None => snapshot_namespace(&objects, name).unwrap_or_else(|| "default".into()),
    };
    let now = match now {
        Some(n) => n,
        None => match latest_instant(&objects) {
            Some(latest) => {
                notes.push(format!(
                    "the sync is replayed at {}, the latest instant the snapshot records; pass --now to choose another",
                    latest.to_api_time().to_rfc3339()
                ));
                latest
            }
            None => {
                let written = latest_write(&objects).ok_or(DiagnoseReadError::NoInstant)?;
                notes.push(format!(
                    "the snapshot records no metric sample, event or condition time: the sync is replayed at {}, the newest creationTimestamp or managedFields time it holds (the snapshot is no older); pass --now to choose another",
                    written.to_api_time().to_rfc3339()
                ));
                written
            }
        },
    };
    let mut objects = DiagnosisObjects::snapshot(objects, release);
    objects.empty_lists = empty_lists;
    objects.sent = sent;
    Ok(Read { source: Source::Snapshot, objects, namespace, now, notes })
}

/// The text of each item of a metrics answer written as JSON (`kubectl get --raw`, the README's
/// gathering commands): the text the metrics client decodes ([`DiagnosisObjects::sent`]), its number
/// literals as written (`1e3`), which the YAML reader's tree does not keep. Empty for any other
/// file.
fn answer_texts(file: &input::SourceFile) -> Vec<&str> {
    let answers = ["PodMetricsList", "MetricValueList", "ExternalMetricValueList"];
    let text = file.text.trim_start_matches('\u{feff}');
    let is_answer =
        |d: &&hpa_yaml::Document| d.root().get("kind").and_then(|k| k.as_str()).is_some_and(|k| answers.contains(&k));
    match file.parsed.documents.as_slice() {
        [one] if is_answer(&one) && text.trim_start().starts_with('{') => {
            hpa_core::api::metrics::item_texts(text).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The namespace of the one HPA named `name` among the objects.
fn snapshot_namespace(objects: &[Value], name: &str) -> Option<String> {
    let namespaces: Vec<&str> = objects
        .iter()
        .filter(|v| v.get("kind").and_then(Value::as_str) == Some(hpa_core::api::KIND))
        .filter(|v| v.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
        .filter_map(|v| v.pointer("/metadata/namespace").and_then(Value::as_str))
        .collect();
    match namespaces.as_slice() {
        [one] => Some((*one).to_string()),
        _ => None,
    }
}
