//! The live inputs of one HPA's controller sync, for `hpa-lint diagnose`.
//!
//! Two halves. [`read_objects`] makes the API calls the HPA controller's sync depends on (the
//! HPA with its status, the target and its scale subresource, the pods its selector matches,
//! the other HPAs of the namespace and their targets, the HPA's events, and the metrics APIs'
//! answers) and collects what they return as JSON objects. [`inputs_from_objects`] turns a set
//! of such objects into hpa-core's plain evaluator inputs; it does no IO, so the same function
//! serves a snapshot read from files (`kubectl get hpa,deploy,sts,rs,pods,pdb,events -o yaml`
//! plus `kubectl get --raw` of the metrics APIs, [`DiagnosisObjects::snapshot`]), whose lists the
//! reader expands (hpa-lint reads them as kubectl does): the objects here are never lists.
//!
//! Each HPA is decoded once per diagnosis ([`read_hpa`]), as the other live paths decode a
//! stored HPA: by hpa-core's one decoder, leniently (the API server stored it, and may be
//! newer than the selected release), with the Go types of the selected release. The live
//! half decodes what it must read to know what to ask for (the HPA's metrics, every HPA's
//! target) and hands those to the shared half in [`DiagnosisObjects::hpas`]; the shared half decodes
//! only the HPAs it was not handed (a snapshot's).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use hpa_core::api::GroupVersion;
use hpa_core::api::LabelSelector;
use hpa_core::api::Quantity;
use hpa_core::api::Time;
use hpa_core::api::labels;
use hpa_core::api::metrics::{self, AnswerError, Item, decode_list};
use hpa_core::api::v2::{HorizontalPodAutoscaler, MetricIdentifier, MetricSpec, ObjectMetricSource};
use hpa_core::api::{DecodeError, Strictness};
use hpa_core::evaluator::diagnosis::SCALING_REPLICA_SET;
use hpa_core::evaluator::simulation::{PodTemplate, UnknownTemplate};
use hpa_core::evaluator::{
    ConditionStatus, Container, ContainerUsage, MetricId, MetricQuery, ObjectMetricValue, Pod, PodMetricsItem,
    PodPhase, PodSample, ReadError, ReadyCondition, Scale, SelectorError, SyncInput, Timestamp,
};
use hpa_core::features::{FeatureGates, Gate, KubernetesVersion};
use hpa_core::rules::objects::{
    ObjectId, Workload, custom_resource_definition_from, selector_from_json, workload_from_json,
};
use serde_json::Value;

use crate::connect::Cluster;
use crate::discovery::{self, Served};
use crate::error::Error;
use crate::kinds::{self, PAGE_SIZE, ResourceKind};

/// The answers of the metrics APIs that failed, as a whole or for one metric: the live path
/// sets them; a snapshot has none (a missing list is an empty answer, with a note).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricsErrors {
    /// The requests of one Pods, Object or External metric that failed while the API answered
    /// (an adapter's 404 or 5xx for that metric): client-go's error text, which the
    /// controller records for that metric ([`SyncInput::metric_errors`]).
    pub metrics: BTreeMap<MetricQuery, ReadError>,
    /// The resource metrics API (`metrics.k8s.io`).
    pub resource: Option<String>,
    /// The custom metrics API (`custom.metrics.k8s.io`).
    pub custom: Option<String>,
    /// The external metrics API (`external.metrics.k8s.io`).
    pub external: Option<String>,
}

/// One event recorded on the HPA (`v1` Event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HpaEvent {
    /// `Normal` or `Warning`.
    pub type_: String,
    /// `SuccessfulRescale`, `FailedGetResourceMetric`, ...
    pub reason: String,
    /// The message.
    pub message: String,
    /// How many times it was recorded (the event recorder aggregates repeats).
    pub count: i64,
    /// `firstTimestamp` (or `eventTime`).
    pub first: Option<Timestamp>,
    /// `lastTimestamp` (or `eventTime`, or `series.lastObservedTime`).
    pub last: Option<Timestamp>,
}

/// A container whose requests were resized in place (hpa-core's type: the diagnosis reads it).
pub use hpa_core::evaluator::diagnosis::InPlaceResize as Resize;

/// Everything one sync of one HPA reads, in hpa-core's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct DiagnoseInputs {
    /// The HPA as the controller reads it: decoded once ([`read_hpa`]) and converted to the
    /// internal (autoscaling/v2) form, with its status.
    pub hpa: HorizontalPodAutoscaler,
    /// `namespace/name` of the HPA.
    pub key: String,
    /// The sync's inputs (scale, pods, metrics answers, other HPAs selecting the pods).
    pub sync: SyncInput,
    /// The HPA's events, oldest first.
    pub events: Vec<HpaEvent>,
    /// The scale target's `ScalingReplicaSet` events (the deployment controller's `Scaled up
    /// replica set web-5d4 from 1 to 2`), oldest first: the earlier size of a rescale.
    pub target_events: Vec<HpaEvent>,
    /// Containers resized in place.
    pub resizes: Vec<Resize>,
    /// The target's pod template (`spec.template`), the spec of the pods a scale-up creates;
    /// `None` when the target is not among the objects or has none (a `Scale` only, a custom
    /// resource).
    pub template: Option<PodTemplate>,
    /// What the inputs had to assume, and what the decoder ignored of the HPA (fields the
    /// selected release's types do not have).
    pub notes: Vec<String>,
}

/// The objects of a diagnosis, the HPAs among them already decoded, and the live reads' notes.
#[derive(Debug, Clone, PartialEq)]
pub struct DiagnosisObjects {
    /// Every object read, the HPAs included: objects, not lists (a snapshot's reader expands
    /// its files' lists as kubectl reads them).
    pub items: Vec<Value>,
    /// HPAs of `items` already decoded with `release` ([`read_objects`] decodes each HPA it
    /// reads once); [`inputs_from_objects`] decodes those of `items` that are not here.
    pub hpas: Vec<ReadHpa>,
    /// The release whose Go types the HPAs are decoded with (`--kubernetes-version`).
    pub release: KubernetesVersion,
    /// Metrics APIs that failed as a whole.
    pub metrics_errors: MetricsErrors,
    /// What was not read.
    pub notes: Vec<String>,
    /// The error of reading the HPA's scale live, in the controller's words (`no matches for
    /// kind ...`): the sync's `FailedGetScale` error when the scale is not among the items.
    pub target_error: Option<String>,
    /// Whether [`Self::target_error`] is the RESTMapper's: discovery maps the target's group
    /// and kind to no resource ([`SyncInput::scale_unmapped`]).
    pub target_unmapped: bool,
    /// Whether the metrics APIs were asked for each metric (a live read): a metric without
    /// items was answered with an empty list. From files it may just not have been gathered.
    pub metrics_asked: bool,
    /// The kinds of the lists among a snapshot's files that hold no item (`MetricValueList`,
    /// `ExternalMetricValueList`): a metric answer gathered, and empty.
    pub empty_lists: Vec<String>,
    /// The JSON text the API server sent for metrics answers' items, by index in
    /// [`Self::items`]: their clients decode that text, whose number literals (`1e3`) a tree
    /// does not keep. An item without one is decoded from its tree.
    pub sent: BTreeMap<usize, Box<str>>,
    /// The request each custom or external metrics item read live answers, by index in
    /// [`Self::items`]: the controller takes its request's answer whole, so a live answer is
    /// replayed as sent, never filtered again (`Answers::live`).
    pub answering: BTreeMap<usize, MetricQuery>,
}

impl DiagnosisObjects {
    /// Objects from files (`kubectl get -o yaml` snapshots): nothing decoded yet, no metrics
    /// API failed (a missing list is an empty answer), no notes.
    pub fn snapshot(items: Vec<Value>, release: KubernetesVersion) -> DiagnosisObjects {
        DiagnosisObjects {
            items,
            hpas: Vec::new(),
            release,
            metrics_errors: MetricsErrors::default(),
            notes: Vec::new(),
            target_error: None,
            target_unmapped: false,
            metrics_asked: false,
            empty_lists: Vec::new(),
            sent: BTreeMap::new(),
            answering: BTreeMap::new(),
        }
    }
}

/// One HPA of a diagnosis, decoded once ([`read_hpa`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadHpa {
    /// `metadata.namespace` (`default` when absent, as in a snapshot file).
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// The internal form the controller reads, or why it cannot be read.
    pub hpa: Result<HorizontalPodAutoscaler, HpaReadError>,
    /// What the lenient decoder ignored: fields the release's types do not have (a newer API
    /// server's), duplicate fields.
    pub ignored: Vec<DecodeError>,
}

impl ReadHpa {
    /// The internal form of the HPA `namespace/name` (this one), or the error that ends its
    /// diagnosis: it cannot be read.
    fn internal(&self, namespace: &str, name: &str) -> Result<HorizontalPodAutoscaler, Error> {
        match &self.hpa {
            Ok(hpa) => Ok(hpa.clone()),
            Err(e) => Err(Error::Snapshot(format!("HorizontalPodAutoscaler {namespace}/{name} cannot be read: {e}"))),
        }
    }
}

// === the shared half: objects → inputs ===

/// Turns a set of objects (HPAs, workloads, `Scale`s, pods, events, `PodMetrics`, `MetricValue`
/// and `ExternalMetricValue` items, each with its kind) into the
/// inputs of the sync of HPA `namespace/name` at `now`, as the HPA controller
/// (`pkg/controller/podautoscaler/horizontal.go`, `reconcileAutoscaler`) would read them.
/// Each HPA is decoded at most once: those of [`DiagnosisObjects::hpas`] not again, the others of
/// [`DiagnosisObjects::items`] here ([`read_hpa`], with [`DiagnosisObjects::release`]).
pub fn inputs_from_objects(
    objects: &DiagnosisObjects,
    namespace: &str,
    name: &str,
    now: Timestamp,
) -> Result<DiagnoseInputs, Error> {
    let metrics_errors = &objects.metrics_errors;
    let items: Vec<&Value> = objects.items.iter().collect();
    let in_ns = |v: &&&Value| namespace_of(v) == namespace;
    let decoded: HashMap<(&str, &str), &ReadHpa> =
        objects.hpas.iter().map(|h| ((h.namespace.as_str(), h.name.as_str()), h)).collect();
    let hpa_json = items
        .iter()
        .filter(in_ns)
        .find(|v| kind_of(v) == "HorizontalPodAutoscaler" && name_of(v) == name)
        .ok_or_else(|| hpa_not_found(&items, namespace, name))?;
    // An HPA handed decoded, else decoded here (once).
    let read = |v: &Value| -> Cow<'_, ReadHpa> {
        match decoded.get(&(namespace, name_of(v))) {
            Some(h) => Cow::Borrowed(*h),
            None => Cow::Owned(read_hpa(v, objects.release)),
        }
    };
    let this = read(hpa_json);
    let hpa = this.internal(namespace, name)?;
    let key = format!("{namespace}/{name}");
    let mut notes = crate::inventory::ignored_notes(&key, &this.ignored, objects.release);
    let target = &snapshot_mapped_target(&hpa.spec.scale_target_ref, &items);

    // From files, a kind Kubernetes' own groups do not serve (a Deployment of
    // `extensions/v1beta1`, an Argo Rollout written `apps/v1`) maps to no resource whatever
    // the files hold: `reconcileAutoscaler` stops at its RESTMapper (`RESTMappings`) with
    // `no matches for kind ...`, as a live read finds through discovery.
    let unmapped = !objects.metrics_asked
        && objects.target_error.is_none()
        && hpa_core::rules::unmapped_scale_target(&target.api_version, &target.kind);
    // The scale subresource, or the target itself read as the API server builds its scale.
    let scale = if unmapped {
        let group = GroupVersion::parse_or_empty(&target.api_version).group();
        Err(Error::Snapshot(discovery::no_kind_match(group, &target.kind)))
    } else {
        scale_of(&items, namespace, &target.api_version, &target.kind, &target.name, &mut notes)
    };
    // Read live, a target that could not be read comes with the server's error; from files,
    // a target whose kind the files hold none of was not gathered, which says nothing of what
    // the controller sees.
    if scale.is_err()
        && !unmapped
        && objects.target_error.is_none()
        && !items.iter().any(|v| kind_of(v) == target.kind)
        && cluster_scoped_plural(&items, &target.api_version, &target.kind).is_none()
    {
        return Err(target_not_gathered(namespace, &target.api_version, &target.kind, &target.name));
    }
    let mut sync = SyncInput::new(now, Scale::default());
    sync.scale = match (&scale, &objects.target_error) {
        (Ok(s), _) => Ok(s.clone()),
        (Err(_), Some(e)) => Err(ReadError(e.clone())),
        (Err(e), None) => Err(ReadError(e.to_string())),
    };
    sync.scale_unmapped = unmapped || (scale.is_err() && objects.target_error.is_some() && objects.target_unmapped);
    let template = target_object(&items, namespace, &target.api_version, &target.kind, &target.name).and_then(|t| {
        admitted_template(t, &items, namespace, objects.release)
            .map_err(|why| notes.extend(unknown_template_note(&why, &target.kind, namespace, &target.name)))
            .ok()
    });
    let selector_text = scale.as_ref().map(|s| s.selector.clone()).unwrap_or_default();
    // `labels.Parse` as the controller's release parses it: its error is the one the controller
    // shows (`InvalidSelector`), in apimachinery's words.
    let pod_selector = match labels::parse(&selector_text, objects.release) {
        Ok(s) => Some(s),
        Err(e) => {
            sync.selector_parse_error = Some(SelectorError(e.to_string()));
            None
        }
    };

    // The pods of the selector (an empty selector selects none: the controller stops before).
    let pod_objects: Vec<&Value> = match &pod_selector {
        Some(sel) if !selector_text.is_empty() => {
            items.iter().filter(in_ns).filter(|v| kind_of(v) == "Pod" && sel.matches(&labels_of(v))).copied().collect()
        }
        _ => Vec::new(),
    };
    let mut resizes = Vec::new();
    for p in &pod_objects {
        sync.pods.push(pod_from_json(p));
        resizes.extend(resizes_of(p));
    }

    // Other HPAs of the namespace whose targets' selectors select some of these pods
    // (`hpaSelectors`, the AmbiguousSelector condition).
    for other in items.iter().filter(in_ns).filter(|v| kind_of(v) == "HorizontalPodAutoscaler") {
        if name_of(other) == name {
            continue;
        }
        let other_read = read(other);
        let Ok(other_hpa) = &other_read.hpa else { continue };
        let t = &other_hpa.spec.scale_target_ref;
        // A target its RESTMapper maps to nothing: that HPA never reads a selector (live, the
        // Scale of a same-named target of another group must not be taken for its own).
        if hpa_core::rules::unmapped_scale_target(&t.api_version, &t.kind) {
            continue;
        }
        let mut ignored = Vec::new();
        let Ok(other_scale) = scale_of(&items, namespace, &t.api_version, &t.kind, &t.name, &mut ignored) else {
            if objects.target_error.is_none() && !items.iter().any(|v| kind_of(v) == t.kind) {
                notes.push(format!(
                    "HPA {namespace}/{}'s target {} {} is not among the objects: whether it selects these pods (AmbiguousSelector) is unknown",
                    name_of(other),
                    t.kind,
                    t.name
                ));
            }
            continue;
        };
        let Ok(other_selector) = labels::parse(&other_scale.selector, objects.release) else { continue };
        if other_scale.selector.is_empty() {
            continue;
        }
        if pod_objects.iter().any(|p| other_selector.matches(&labels_of(p))) {
            sync.other_hpas_selecting_pods.push(format!("{namespace}/{}", name_of(other)));
        }
    }

    // The metrics APIs' answers.
    let answers = Answers::new(objects);
    let answered = AnsweredPods {
        selector: pod_selector.as_ref().filter(|_| !selector_text.is_empty()),
        pods: items.iter().filter(in_ns).filter(|v| kind_of(v) == "Pod").map(|v| (name_of(v), labels_of(v))).collect(),
    };
    sync.resource_metrics = match &metrics_errors.resource {
        Some(e) => Err(ReadError(e.clone())),
        None => {
            let mut without_pod = BTreeSet::new();
            // The answer: the PodMetrics of the pods the selector matches. One item the client
            // cannot decode fails the whole list, as it fails the controller's.
            let answer: Vec<&Value> = items
                .iter()
                .filter(in_ns)
                .filter(|v| kind_of(v) == "PodMetrics")
                .filter(|v| {
                    let own = v.get("metadata").and_then(|m| m.get("labels")).map(labels_map);
                    // Live, the list answered to the controller's request, whole: its
                    // client does not filter it again (`GetResourceMetric`).
                    let answer = if objects.metrics_asked {
                        answered.live(name_of(v))
                    } else {
                        answered.answered(name_of(v), own)
                    };
                    match answer {
                        Answered::Yes => true,
                        Answered::WithoutPod => without_pod.insert(name_of(v)),
                        Answered::No => false,
                    }
                })
                .copied()
                .collect();
            let decoded = answers.decode::<metrics::PodMetricsList>(&answer)
                .map(|list| list.items.into_iter().map(pod_metrics_item).collect::<Vec<_>>())
                .map_err(|e| {
                    notes.push(format!(
                        "PodMetrics {namespace}/{}: {}: {}; the resource metrics client cannot decode the list, so the controller gets none of its samples",
                        answer.get(e.item).map(|v| name_of(v)).unwrap_or_default(),
                        located(&e),
                        e.message
                    ));
                    e.message
                });
            if !without_pod.is_empty() {
                notes.push(answered.without_pod_note("PodMetrics:", &without_pod));
            }
            match decoded {
                Err(e) => Err(ReadError(e)),
                Ok(metrics) => {
                    let needs_resource =
                        hpa.spec.metrics.iter().any(|m| m.type_ == "Resource" || m.type_ == "ContainerResource");
                    if metrics.is_empty() && needs_resource && !pod_objects.is_empty() {
                        notes.push(format!(
                            "no PodMetrics for these pods among the inputs: every pod counts as missing metrics (gather them with kubectl get --raw \"/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods\")"
                        ));
                    }
                    Ok(metrics)
                }
            }
        }
    };
    // Answers the metrics clients cannot decode, or an Object answer of more than one value:
    // that metric fails (a request's own failure, read live, wins).
    let mut undecodable = BTreeMap::new();
    sync.pods_metrics = match &metrics_errors.custom {
        Some(e) => Err(ReadError(e.clone())),
        None => {
            Ok(pods_metrics(&items, namespace, &hpa.spec.metrics, &answered, &answers, &mut notes, &mut undecodable))
        }
    };
    sync.object_metrics = match &metrics_errors.custom {
        Some(e) => Err(ReadError(e.clone())),
        None => Ok(object_metrics(&items, namespace, &hpa.spec.metrics, &answers, &mut notes, &mut undecodable)),
    };
    sync.external_metrics = match &metrics_errors.external {
        Some(e) => Err(ReadError(e.clone())),
        None => Ok(external_metrics(&items, &hpa.spec.metrics, &answers, &mut notes, &mut undecodable)),
    };
    sync.metric_errors.clone_from(&metrics_errors.metrics);
    for (query, error) in undecodable {
        sync.metric_errors.entry(query).or_insert(error);
    }
    if !objects.metrics_asked {
        // The pods' selector as the metrics clients send it, `labels.Parse(status.selector).String()`
        // (as the live reads send it): not the scale's text as written.
        let sent_selector =
            labels::normalize(&selector_text, objects.release).unwrap_or_else(|_| selector_text.clone());
        // A snapshot's failed answers (`Status` objects naming their request), replayed as
        // the live failures are.
        let failures = snapshot_failures(&items, objects.release);
        if !failures.is_empty() {
            for m in &hpa.spec.metrics {
                let Some(request) = metric_request(&items, namespace, m, &sent_selector) else { continue };
                let key = request_key(&request.path);
                let failed = failures.iter().find(|f| f.key == key && f.answers(&request, objects.release));
                if let Some(f) = failed {
                    sync.metric_errors.entry(request.query).or_insert_with(|| ReadError(f.message.clone()));
                }
            }
            let pods = request_key(&format!("/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods"));
            if let (Some(f), None) = (failures.iter().find(|f| f.key == pods), &metrics_errors.resource) {
                sync.resource_metrics = Err(ReadError(f.message.clone()));
            }
        }
        notes.extend(ungathered_metrics(
            &items,
            &objects.empty_lists,
            namespace,
            &hpa.spec.metrics,
            &sync,
            &sent_selector,
        ));
    }

    // An HPA deleted and created again under the same name keeps its predecessor's events
    // until they expire; the controller forgets the old one's memory (`reconcileKey` in
    // `pkg/controller/podautoscaler/horizontal.go` deletes it when the HPA is gone). With both uids
    // known, the events of another uid are left out (said).
    let hpa_uid = str_at(hpa_json, &["metadata", "uid"]).filter(|u| !u.is_empty());
    let mut predecessor = 0usize;
    let mut events: Vec<HpaEvent> = items
        .iter()
        .filter(in_ns)
        .filter(|v| kind_of(v) == "Event")
        .filter(|v| {
            let o = v.get("involvedObject").or_else(|| v.get("regarding"));
            let ours = o.and_then(|o| o.get("kind")).and_then(Value::as_str) == Some("HorizontalPodAutoscaler")
                && o.and_then(|o| o.get("name")).and_then(Value::as_str) == Some(name);
            let uid = o.and_then(|o| o.get("uid")).and_then(Value::as_str).filter(|u| !u.is_empty());
            let older = ours && hpa_uid.is_some() && uid.is_some() && uid != hpa_uid;
            predecessor += usize::from(older);
            ours && !older
        })
        .map(|v| event_from_json(v))
        .collect();
    if predecessor > 0 {
        notes.push(format!(
            "{predecessor} event(s) of an earlier HorizontalPodAutoscaler {key} (another uid than {}) left out: the HPA was deleted and created again, and the controller forgets a deleted HPA's memory",
            hpa_uid.unwrap_or_default()
        ));
    }
    events.sort_by_key(|e| e.last.or(e.first));
    let mut target_events: Vec<HpaEvent> = items
        .iter()
        .filter(in_ns)
        .filter(|v| kind_of(v) == "Event" && str_of(v, "reason") == SCALING_REPLICA_SET)
        .filter(|v| {
            let o = v.get("involvedObject").or_else(|| v.get("regarding"));
            o.and_then(|o| o.get("kind")).and_then(Value::as_str) == Some(target.kind.as_str())
                && o.and_then(|o| o.get("name")).and_then(Value::as_str) == Some(target.name.as_str())
        })
        .map(|v| event_from_json(v))
        .collect();
    target_events.sort_by_key(|e| e.last.or(e.first));

    Ok(DiagnoseInputs { hpa, key, sync, events, target_events, resizes, template, notes })
}

/// No HPA `namespace/name` among the objects: the error names those there are (a snapshot's
/// files hold them; `-n` chooses the namespace), and the namespace that has one of that name.
/// A scale target the snapshot's files hold nothing of its kind of: say what to gather.
fn target_not_gathered(namespace: &str, api_version: &str, kind: &str, name: &str) -> Error {
    let group = GroupVersion::parse_or_empty(api_version).group();
    // An unknown kind: its lowercase name, which kubectl resolves through discovery.
    let resource = kinds::workload(group, kind).map_or_else(
        || if group.is_empty() { kind.to_lowercase() } else { format!("{}.{group}", kind.to_lowercase()) },
        ResourceKind::resource,
    );
    Error::Snapshot(format!(
        "the HPA's scale target {kind} {namespace}/{name} is not among the objects, nor any {kind}: add it to the snapshot (kubectl get {resource} -n {namespace} {name} -o yaml)"
    ))
}

fn hpa_not_found(items: &[&Value], namespace: &str, name: &str) -> Error {
    let what = format!("HorizontalPodAutoscaler {namespace}/{name}");
    let mut held: Vec<String> = items
        .iter()
        .filter(|v| kind_of(v) == "HorizontalPodAutoscaler")
        .map(|v| format!("{}/{}", namespace_of(v), name_of(v)))
        .collect();
    held.sort();
    held.dedup();
    if held.is_empty() {
        return Error::Snapshot(format!("{what} not found: the objects hold no HorizontalPodAutoscaler"));
    }
    let elsewhere: Vec<&str> = items
        .iter()
        .filter(|v| kind_of(v) == "HorizontalPodAutoscaler" && name_of(v) == name)
        .map(|v| namespace_of(v))
        .collect();
    const SHOWN: usize = 10;
    let mut list = held.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if held.len() > SHOWN {
        list.push_str(&format!(" and {} more", held.len() - SHOWN));
    }
    let hint = match elsewhere.as_slice() {
        [ns] => format!(" (pass -n {ns})"),
        _ => String::new(),
    };
    Error::Snapshot(format!("{what} not found; the objects hold {list}{hint}"))
}

/// The latest instant the objects record (PodMetrics timestamps, events, the HPA's status):
/// a snapshot's "now" when none is given.
pub fn latest_instant(objects: &[Value]) -> Option<Timestamp> {
    fn walk(v: &Value, best: &mut Option<Timestamp>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let is_time = matches!(
                        k.as_str(),
                        "timestamp" | "lastTimestamp" | "eventTime" | "lastScaleTime" | "lastTransitionTime"
                    );
                    if is_time && let Some(t) = v.as_str().and_then(Time::parse_rfc3339) {
                        let t = Timestamp::from_api_time(t);
                        if best.is_none_or(|b| t > b) {
                            *best = Some(t);
                        }
                    }
                    walk(v, best);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, best)),
            _ => {}
        }
    }
    let mut best = None;
    objects.iter().for_each(|o| walk(o, &mut best));
    best
}

/// The newest `metadata.creationTimestamp` or `metadata.managedFields[].time` of the objects:
/// the fallback "now" of a snapshot that records no sample, event or condition time
/// ([`latest_instant`]). The snapshot was taken after every object in it was created or last
/// written, so the sync replayed is no earlier than that.
pub fn latest_write(objects: &[Value]) -> Option<Timestamp> {
    let mut best: Option<Timestamp> = None;
    let mut consider = |t: Option<&str>| {
        if let Some(t) = t.and_then(Time::parse_rfc3339).map(Timestamp::from_api_time)
            && best.is_none_or(|b| t > b)
        {
            best = Some(t);
        }
    };
    for v in objects {
        let Some(meta) = v.get("metadata") else { continue };
        consider(meta.get("creationTimestamp").and_then(Value::as_str));
        for entry in meta.get("managedFields").and_then(Value::as_array).into_iter().flatten() {
            consider(entry.get("time").and_then(Value::as_str));
        }
    }
    best
}

/// The spec of the pods a scale-up of the target makes, as kube-apiserver admits them
/// ([`PodTemplate::of_target`], with the release's `PodLevelResources` default).
fn admitted_template(
    target: &Value,
    items: &[&Value],
    namespace: &str,
    release: KubernetesVersion,
) -> Result<PodTemplate, UnknownTemplate> {
    let gate = FeatureGates::new(release).enabled(Gate::PodLevelResources);
    PodTemplate::of_target(target, items, namespace, gate)
}

/// What the diagnosis says of an unknown template, for the target `kind namespace/name`: the
/// forecast's new pods are then copies of a live pod, whose spec the controller reads.
fn unknown_template_note(why: &UnknownTemplate, kind: &str, namespace: &str, name: &str) -> Option<String> {
    match why {
        UnknownTemplate::CustomResource => Some(format!(
            "the scale target {kind} {namespace}/{name} is a custom resource: its operator makes its pods from a template only it knows (a spec.template of the resource may not be theirs), so the requests of new pods are taken from the live pods"
        )),
        UnknownTemplate::Referenced(workload) => Some(format!(
            "{workload}, whose pod template the scale target {kind} {namespace}/{name} uses (spec.workloadRef), is not among the objects: the requests of new pods are taken from the live pods"
        )),
        UnknownTemplate::NotFound | UnknownTemplate::NoPods => None,
    }
}

/// A `v1` Pod as the replica calculator reads it.
pub fn pod_from_json(v: &Value) -> Pod {
    let status = v.get("status");
    let spec = v.get("spec");
    let ready_condition = status
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("Ready")))
        .map(|c| ReadyCondition {
            status: ConditionStatus::parse(c.get("status").and_then(Value::as_str).unwrap_or_default()),
            last_transition_time: time_at(c, "lastTransitionTime").unwrap_or(Timestamp::ZERO),
        });
    let containers = |key: &str| -> Vec<Container> {
        spec.and_then(|s| s.get(key))
            .and_then(Value::as_array)
            .map(|cs| {
                cs.iter()
                    .map(|c| Container {
                        name: str_of(c, "name").to_string(),
                        requests_milli: milli_map(c.get("resources").and_then(|r| r.get("requests"))),
                        restart_policy: c.get("restartPolicy").and_then(Value::as_str).map(String::from),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    Pod {
        name: name_of(v).into(),
        phase: PodPhase::parse(status.and_then(|s| s.get("phase")).and_then(Value::as_str).unwrap_or_default()),
        deleted: v.get("metadata").and_then(|m| m.get("deletionTimestamp")).is_some_and(|t| !t.is_null()),
        start_time: status.and_then(|s| time_at(s, "startTime")),
        ready_condition,
        containers: containers("containers"),
        init_containers: containers("initContainers"),
        pod_requests_milli: milli_map(spec.and_then(|s| s.get("resources")).and_then(|r| r.get("requests"))),
        overhead_milli: milli_map(spec.and_then(|s| s.get("overhead"))),
    }
}

/// A `PodMetrics` item as the HPA controller reads it (`getPodMetrics` in
/// `pkg/controller/podautoscaler/metrics/client.go`): usage in milli-units (`MilliValue`).
fn pod_metrics_item(m: metrics::PodMetrics) -> PodMetricsItem {
    PodMetricsItem {
        pod: m.metadata.name.as_str().into(),
        timestamp: Timestamp::from_api_time(m.timestamp),
        window_nanos: m.window.0,
        containers: m
            .containers
            .into_iter()
            .map(|c| ContainerUsage {
                name: c.name,
                usage_milli: c.usage.into_iter().map(|(k, q)| (k, q.milli_value())).collect(),
            })
            .collect(),
    }
}

/// The metrics APIs' answers as their clients decode them: each item from the text the API
/// server sent ([`DiagnosisObjects::sent`]), else from its tree (a snapshot's), with the Go types and
/// `ParseQuantity` of the release.
struct Answers<'a> {
    sent: HashMap<*const Value, &'a str>,
    release: KubernetesVersion,
    /// Whether the metrics APIs were asked live ([`DiagnosisObjects::metrics_asked`]).
    asked: bool,
    /// The request each item read live answers ([`DiagnosisObjects::answering`]).
    answering: HashMap<*const Value, &'a MetricQuery>,
}

impl<'a> Answers<'a> {
    fn new(objects: &'a DiagnosisObjects) -> Answers<'a> {
        let sent = objects
            .sent
            .iter()
            .filter_map(|(i, text)| objects.items.get(*i).map(|v| (std::ptr::from_ref(v), &**text)))
            .collect();
        let answering = objects
            .answering
            .iter()
            .filter_map(|(i, query)| objects.items.get(*i).map(|v| (std::ptr::from_ref(v), query)))
            .collect();
        Answers { sent, release: objects.release, asked: objects.metrics_asked, answering }
    }

    /// Read live, the items of `query`'s answer, in the order sent, all of them: the
    /// controller's clients keep every item an adapter answers (`GetRawMetric` and
    /// `GetExternalMetric` in `pkg/controller/podautoscaler/metrics/client.go` check neither
    /// the pod, the metric's labels nor its name), so an adapter that ignores `labelSelector`
    /// is replayed as the controller sees it. `None` from files, whose lists may hold more
    /// than the request's answer: the callers keep what the request would have been answered.
    fn live(&self, items: &[&'a Value], query: &MetricQuery) -> Option<Vec<&'a Value>> {
        self.asked.then(|| {
            items.iter().filter(|v| self.answering.get(&std::ptr::from_ref(**v)) == Some(&query)).copied().collect()
        })
    }

    /// The answer made of `items` decoded as the list `L` ([`decode_list`]).
    fn decode<L: hpa_core::api::decode::Decode + Default>(&self, items: &[&'a Value]) -> Result<L, AnswerError> {
        let items: Vec<Item<'_>> = items
            .iter()
            .map(|v| match self.sent.get(&std::ptr::from_ref(*v)) {
                Some(text) => Item::Text(text),
                None => Item::Value(v),
            })
            .collect();
        decode_list(&items, self.release)
    }

    /// A custom metrics answer as the client decodes it: as the version it is in
    /// (`custom.metrics.k8s.io/v1beta1` items converted to v1beta2, as `ConvertResultToVersion`
    /// does), else v1beta2.
    fn metric_values(&self, items: &[&'a Value]) -> Result<Vec<metrics::MetricValue>, AnswerError> {
        if items.first().is_some_and(|v| str_of(v, "apiVersion") == "custom.metrics.k8s.io/v1beta1") {
            let list: metrics::MetricValueListV1beta1 = self.decode(items)?;
            Ok(list.items.into_iter().map(metrics::MetricValue::from).collect())
        } else {
            self.decode::<metrics::MetricValueList>(items).map(|l| l.items)
        }
    }
}

/// Where an answer's error is, for a note: the field and its value as written
/// (`window "15.012"`).
fn located(e: &AnswerError) -> String {
    match (e.field.as_str(), &e.written) {
        ("", _) => "the item".to_string(),
        (field, Some(written)) => format!("{field} {written}"),
        (field, None) => field.to_string(),
    }
}

/// An event in either API: core/v1 (`firstTimestamp`, `lastTimestamp`, `count`, `message`) or
/// `events.k8s.io/v1`, where an event recorded by the legacy recorder (the HPA controller's)
/// keeps its times and count in `deprecatedFirstTimestamp`, `deprecatedLastTimestamp` and
/// `deprecatedCount` with a null `eventTime` (the conversion in
/// `pkg/apis/events/v1/conversion.go`), and a new-style one has `eventTime`, `series` and `note`.
fn event_from_json(v: &Value) -> HpaEvent {
    let event_time = time_at(v, "eventTime");
    HpaEvent {
        type_: str_of(v, "type").to_string(),
        reason: str_of(v, "reason").to_string(),
        message: v.get("message").or_else(|| v.get("note")).and_then(Value::as_str).unwrap_or_default().to_string(),
        count: v
            .get("count")
            .and_then(Value::as_i64)
            .or_else(|| v.get("deprecatedCount").and_then(Value::as_i64))
            .or_else(|| v.get("series").and_then(|s| s.get("count")).and_then(Value::as_i64))
            .unwrap_or(1),
        first: time_at(v, "firstTimestamp").or_else(|| time_at(v, "deprecatedFirstTimestamp")).or(event_time),
        last: time_at(v, "lastTimestamp")
            .or_else(|| time_at(v, "deprecatedLastTimestamp"))
            .or_else(|| v.get("series").and_then(|s| time_at(s, "lastObservedTime")))
            .or(event_time),
    }
}

/// The metric selector a custom metrics item records (`metric.selector` in v1beta2,
/// `selector` in v1beta1: the `metricLabelSelector` of the query that fetched it), in its
/// string form; `None` when the item records none.
fn recorded_metric_selector(v: &Value) -> Option<String> {
    let s = v.get("metric").and_then(|m| m.get("selector")).or_else(|| v.get("selector"))?;
    if s.is_null() {
        return None;
    }
    Some(LabelSelector::format(&selector_from_json(s)))
}

/// Whether an item's recorded metric selector is the spec's (an item that records none is
/// taken as answering the spec's query).
fn same_metric_selector(item: &Value, spec: Option<&LabelSelector>) -> bool {
    recorded_metric_selector(item).is_none_or(|s| s == spec.map(LabelSelector::format).unwrap_or_default())
}

/// The distinct metrics (name and selector) of `specs`, in order: each is one request of the
/// controller's metrics client and one answer ([`MetricId`]); two specs of one name and
/// another selector are two.
fn distinct_metrics<'a>(specs: impl Iterator<Item = &'a MetricIdentifier>) -> Vec<(&'a MetricIdentifier, MetricId)> {
    let mut out: Vec<(&MetricIdentifier, MetricId)> = Vec::new();
    for m in specs {
        let id = MetricId::of(m);
        if !out.iter().any(|(_, o)| *o == id) {
            out.push((m, id));
        }
    }
    out
}

/// Samples of the Pods metrics among the objects, by metric (name and selector): `MetricValue` items
/// describing pods (`metric.name` in v1beta2, `metricName` in v1beta1), as the controller
/// gets them from `GetRawMetric` (`pkg/controller/podautoscaler/metrics/rest_metrics_client.go`),
/// which asks the custom metrics API for the metric of the pods that the HPA's selector
/// matches (`labelSelector`) and of the series the metric's selector matches
/// (`metricLabelSelector`). Live, the answer is replayed whole, as the client keeps it
/// ([`Answers::live`]). A snapshot's list may hold more (`pods/*/METRIC` without
/// `labelSelector` answers for every pod of the namespace): samples of pods among the objects
/// that the selector does not match, and items recording another metric selector, are left
/// out, and the leaving out is noted. Samples of pods the objects lack are kept, as the
/// controller keeps them ([`AnsweredPods`]), and noted.
fn pods_metrics(
    items: &[&Value],
    namespace: &str,
    metrics: &[MetricSpec],
    answered: &AnsweredPods<'_>,
    answers: &Answers<'_>,
    notes: &mut Vec<String>,
    undecodable: &mut BTreeMap<MetricQuery, ReadError>,
) -> BTreeMap<MetricId, Vec<PodSample>> {
    let mut out: BTreeMap<MetricId, Vec<PodSample>> = BTreeMap::new();
    let specs = distinct_metrics(
        metrics.iter().filter(|m| m.type_ == "Pods").filter_map(|m| m.pods.as_ref()).map(|p| &p.metric),
    );
    for (spec, id) in specs {
        let (mut other_pods, mut without_pod, mut other_selector) = (BTreeSet::new(), BTreeSet::new(), 0);
        let query = MetricQuery::Pods { metric: id.clone() };
        let live = answers.live(items, &query);
        for v in live.iter().flatten() {
            let pod = v.get("describedObject").and_then(|d| d.get("name")).and_then(Value::as_str).unwrap_or_default();
            if answered.live(pod) == Answered::WithoutPod {
                without_pod.insert(pod);
            }
        }
        let mut answer = live.clone().unwrap_or_default();
        let snapshot = if live.is_some() { &[][..] } else { items };
        for v in snapshot.iter().filter(|v| kind_of(v) == "MetricValue" && metric_name(v) == spec.name.as_str()) {
            let described = v.get("describedObject");
            if described.and_then(|d| d.get("kind")).and_then(Value::as_str) != Some("Pod") {
                continue;
            }
            if described.and_then(|d| d.get("namespace")).and_then(Value::as_str).is_some_and(|ns| ns != namespace) {
                continue;
            }
            let pod = described.and_then(|d| d.get("name")).and_then(Value::as_str).unwrap_or_default();
            if !same_metric_selector(v, spec.selector.as_ref()) {
                other_selector += 1;
                continue;
            }
            match answered.answered(pod, None) {
                Answered::Yes => {}
                Answered::WithoutPod => {
                    without_pod.insert(pod);
                }
                Answered::No => {
                    other_pods.insert(pod);
                    continue;
                }
            }
            answer.push(*v);
        }
        let samples = match answers.metric_values(&answer) {
            Ok(values) => values
                .into_iter()
                .map(|m| PodSample {
                    pod: m.described_object.name.into(),
                    value_milli: m.value.milli_value(),
                    timestamp: Timestamp::from_api_time(m.timestamp),
                    window_seconds: m.window_seconds,
                })
                .collect(),
            Err(e) => {
                failed_decoding(&format!("Pods metric {}", spec.name), &e, query, notes, undecodable);
                Vec::new()
            }
        };
        out.insert(id, samples);
        if !other_pods.is_empty() {
            let pods: Vec<&str> = other_pods.into_iter().collect();
            notes.push(format!(
                "Pods metric {}: {} sample(s) left out, of pods the HPA's selector does not match ({}): the controller asks only for the pods it selects (labelSelector)",
                spec.name,
                pods.len(),
                pods.join(", ")
            ));
        }
        if !without_pod.is_empty() {
            notes.push(answered.without_pod_note(&format!("Pods metric {}:", spec.name), &without_pod));
        }
        if other_selector > 0 {
            notes.push(format!(
                "Pods metric {}: {other_selector} sample(s) left out, recorded for another metric selector than the HPA's ({})",
                spec.name,
                spec.selector.as_ref().map(LabelSelector::format).filter(|s| !s.is_empty()).unwrap_or_else(|| "none".into())
            ));
        }
    }
    out
}

/// Whether the metrics APIs' answer to the controller holds a pod's sample. The controller asks
/// for the samples of the pods its selector matches (`labelSelector`) and keeps every sample
/// it is answered, those of pods missing from its pod list included: they count in
/// `GetResourceReplicas`' `ceil(newUsageRatio * len(metrics))` and in a Pods metric's average
/// (`pkg/controller/podautoscaler/replica_calculator.go`). A snapshot's list read without the
/// selector holds more: a sample is the answer's when the selector matches its labels (a
/// `PodMetrics` carries its pod's) or, without labels, its pod's among the objects; the sample
/// of a pod the objects lack, without labels, is kept as the live answer's is.
struct AnsweredPods<'a> {
    /// The HPA's pod selector (`None`: no pods are selected, the sync stops before metrics).
    selector: Option<&'a LabelSelector>,
    /// The pods of the namespace among the objects, by name, with their labels.
    pods: HashMap<&'a str, BTreeMap<String, String>>,
}

/// Whether a sample is part of the controller's answer ([`AnsweredPods::answered`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answered {
    /// Its pod is among the objects, and the selector matches.
    Yes,
    /// Its pod is not among the objects: kept (the controller keeps it).
    WithoutPod,
    /// The selector does not match: left out.
    No,
}

impl AnsweredPods<'_> {
    /// Whether the sample of `pod` (with the sample's own `labels`, when it records them) is
    /// part of the answer.
    fn answered(&self, pod: &str, labels: Option<BTreeMap<String, String>>) -> Answered {
        let Some(selector) = self.selector else { return Answered::No };
        let known = self.pods.get(pod);
        let matches = match (labels.as_ref(), known) {
            (Some(labels), _) | (None, Some(labels)) => selector.matches(labels),
            (None, None) => true,
        };
        match (matches, known) {
            (false, _) => Answered::No,
            (true, Some(_)) => Answered::Yes,
            (true, None) => Answered::WithoutPod,
        }
    }

    /// Whether the sample of `pod` in a live answer is of a pod read ([`Answered::Yes`]) or
    /// not ([`Answered::WithoutPod`]): live, the answer is the controller's whole
    /// ([`Answers::live`]); the replica calculator joins it with the pods it lists by name.
    fn live(&self, pod: &str) -> Answered {
        if self.pods.contains_key(pod) { Answered::Yes } else { Answered::WithoutPod }
    }

    /// The note on the samples of pods the objects lack, kept.
    fn without_pod_note(&self, what: &str, pods: &BTreeSet<&str>) -> String {
        format!(
            "{what} {} sample(s) of pods not among the pods read ({}) counted: the controller keeps the samples the metrics API answers for pods missing from its pod list (a deleted pod's, one created since)",
            pods.len(),
            pods.iter().copied().collect::<Vec<_>>().join(", ")
        )
    }
}

/// Object metric values: `MetricValue` items describing anything but pods, of a metric and
/// object an Object metric names (`GetObjectMetric`), and not recording another metric
/// selector than that metric's.
fn object_metrics(
    items: &[&Value],
    namespace: &str,
    metrics: &[MetricSpec],
    answers: &Answers<'_>,
    notes: &mut Vec<String>,
    undecodable: &mut BTreeMap<MetricQuery, ReadError>,
) -> Vec<ObjectMetricValue> {
    let specs: Vec<_> = metrics.iter().filter(|m| m.type_ == "Object").filter_map(|m| m.object.as_ref()).collect();
    let query_of = |o: &ObjectMetricSource| MetricQuery::object(&o.metric, &o.described_object);
    let mut by_query: BTreeMap<MetricQuery, Vec<&Value>> = BTreeMap::new();
    // Live, each request's answer as sent ([`Answers::live`]): `GetObjectMetric` takes the one
    // value answered as the metric's, whatever object the item describes.
    for o in specs.iter().filter(|_| answers.asked) {
        let query = query_of(o);
        if let Some(answer) = answers.live(items, &query).filter(|a| !a.is_empty()) {
            by_query.entry(query).or_insert(answer);
        }
    }
    let snapshot = if answers.asked { &[][..] } else { items };
    for v in snapshot.iter().filter(|v| kind_of(v) == "MetricValue") {
        let Some(d) = v.get("describedObject") else { continue };
        let kind = d.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind == "Pod" || d.get("namespace").and_then(Value::as_str).is_some_and(|ns| ns != namespace) {
            continue;
        }
        let name = metric_name(v);
        // The item answers each spec of its metric and object whose selector it records (or
        // every such spec, when it records none).
        // An item that names its object's apiVersion answers the spec of that group only.
        let item_group = d.get("apiVersion").and_then(Value::as_str).map(|a| GroupVersion::parse_or_empty(a).group());
        for o in specs.iter().filter(|o| {
            let group = GroupVersion::parse_or_empty(&o.described_object.api_version).group();
            // `GetObjectMetric` asks a Namespace's metrics of the HPA's own namespace, whatever
            // name the spec gives it (`RootScopedMetrics().GetForObject(…, namespace, …)`).
            let object_name = if o.described_object.kind == "Namespace" && group.is_empty() {
                namespace
            } else {
                o.described_object.name.as_str()
            };
            o.metric.name.as_str() == name
                && item_group.is_none_or(|g| g == group)
                && o.described_object.kind == kind
                && object_name == str_of(d, "name")
                && same_metric_selector(v, o.metric.selector.as_ref())
        }) {
            let answer = by_query.entry(query_of(o)).or_default();
            if !answer.iter().any(|a| std::ptr::eq(*a, *v)) {
                answer.push(*v);
            }
        }
    }
    let mut out: Vec<ObjectMetricValue> = Vec::new();
    for (query, answer) in by_query {
        let MetricQuery::Object { metric, .. } = &query else { continue };
        let values = match answers.metric_values(&answer) {
            Ok(values) => values,
            Err(e) => {
                failed_decoding(&format!("Object metric {metric}"), &e, query.clone(), notes, undecodable);
                continue;
            }
        };
        // `GetForObject` asks for one object's value and refuses any other count
        // (`k8s.io/metrics/pkg/client/custom_metrics/versioned_client.go`), once decoded.
        if values.len() > 1 {
            undecodable.entry(query.clone()).or_insert_with(|| {
                ReadError(format!(
                    "the custom metrics API server returned {} results when we asked for exactly one",
                    values.len()
                ))
            });
        }
        // The value is the spec's object's, as the controller takes it (live: whatever object
        // the answer describes; from a snapshot: the items that answer the spec's query).
        let asked = specs.iter().find(|o| query_of(o) == query);
        for m in values {
            out.push(ObjectMetricValue {
                described_object: match asked {
                    Some(o) => o.described_object.clone(),
                    None => hpa_core::api::CrossVersionObjectReference {
                        kind: m.described_object.kind,
                        name: m.described_object.name,
                        api_version: m.described_object.api_version,
                    },
                },
                metric: metric.clone(),
                value_milli: m.value.milli_value(),
                timestamp: Timestamp::from_api_time(m.timestamp),
            });
        }
    }
    out
}

/// A metric answer the client cannot decode: the metric's error, and a note on the item.
fn failed_decoding(
    what: &str,
    e: &AnswerError,
    query: MetricQuery,
    notes: &mut Vec<String>,
    undecodable: &mut BTreeMap<MetricQuery, ReadError>,
) {
    if undecodable.contains_key(&query) {
        return;
    }
    notes.push(format!(
        "{what}: {}: {}; the metrics client cannot decode the answer, so the controller gets none of it",
        located(e),
        e.message
    ));
    undecodable.insert(query, ReadError(e.message.clone()));
}

/// External metric values, by metric name: the `ExternalMetricValue` items of each External
/// metric's name whose `metricLabels` its selector matches, as `GetExternalMetric`
/// (`pkg/controller/podautoscaler/metrics/rest_metrics_client.go`) gets them from the
/// external metrics API with `labelSelector` (the controller then sums them). Live, the answer
/// is summed whole, as the client keeps it ([`Answers::live`]). A snapshot's list read
/// without the selector holds every series of the name: the others are left out, and the
/// leaving out is noted.
fn external_metrics(
    items: &[&Value],
    metrics: &[MetricSpec],
    answers: &Answers<'_>,
    notes: &mut Vec<String>,
    undecodable: &mut BTreeMap<MetricQuery, ReadError>,
) -> BTreeMap<MetricId, Vec<i64>> {
    let mut out: BTreeMap<MetricId, Vec<i64>> = BTreeMap::new();
    let specs = distinct_metrics(
        metrics.iter().filter(|m| m.type_ == "External").filter_map(|m| m.external.as_ref()).map(|e| &e.metric),
    );
    for (spec, id) in specs {
        let mut left_out = 0;
        let query = MetricQuery::External { metric: id.clone() };
        let live = answers.live(items, &query);
        let mut answer = live.clone().unwrap_or_default();
        let snapshot = if live.is_some() { &[][..] } else { items };
        for v in snapshot
            .iter()
            .filter(|v| kind_of(v) == "ExternalMetricValue" && str_of(v, "metricName") == spec.name.as_str())
        {
            let labels = v.get("metricLabels").map(labels_map).unwrap_or_default();
            if spec.selector.as_ref().is_none_or(|s| s.matches(&labels)) {
                answer.push(*v);
            } else {
                left_out += 1;
            }
        }
        let values = match answers.decode::<metrics::ExternalMetricValueList>(&answer) {
            Ok(list) => list.items.into_iter().map(|m| m.value.milli_value()).collect(),
            Err(e) => {
                failed_decoding(&format!("External metric {}", spec.name), &e, query, notes, undecodable);
                Vec::new()
            }
        };
        out.insert(id, values);
        if left_out > 0 {
            notes.push(format!(
                "External metric {}: {left_out} series left out, whose metricLabels the metric's selector ({}) does not match: the controller asks only for those it matches (labelSelector)",
                spec.name,
                spec.selector.as_ref().map(LabelSelector::format).unwrap_or_default()
            ));
        }
    }
    out
}

/// The request the HPA controller's metrics clients send for a Pods, Object or External metric
/// (as `read_metrics` sends it live), with the query string, and the answer it stands for.
struct MetricRequest<'m> {
    /// `Pods`, `Object` or `External`.
    type_: &'static str,
    /// `metric.name`.
    name: &'m str,
    /// `/apis/...?...`
    path: String,
    /// Whose answer it is.
    query: MetricQuery,
}

/// [`MetricRequest`] of metric `m` (`None` for Resource and ContainerResource metrics), at the
/// versions the gathering commands use (`custom.metrics.k8s.io/v1beta2`,
/// `external.metrics.k8s.io/v1beta1`).
/// The resource of an Object metric's object is [`snapshot_resource`]'s.
fn metric_request<'m>(
    items: &[&Value],
    namespace: &str,
    m: &'m MetricSpec,
    pod_selector: &str,
) -> Option<MetricRequest<'m>> {
    let selector_param = |key: &str, s: Option<&LabelSelector>| -> Vec<(String, String)> {
        s.map(|s| vec![(key.to_string(), LabelSelector::format(s))]).unwrap_or_default()
    };
    let custom = format!("/apis/custom.metrics.k8s.io/v1beta2/namespaces/{namespace}");
    let (type_, name, mut path, params, query) = if let Some(p) = &m.pods {
        let mut params = vec![("labelSelector".to_string(), pod_selector.to_string())];
        params.extend(selector_param("metricLabelSelector", p.metric.selector.as_ref()));
        let query = MetricQuery::Pods { metric: MetricId::of(&p.metric) };
        ("Pods", p.metric.name.as_str(), format!("{custom}/pods/*/{}", p.metric.name), params, query)
    } else if let Some(o) = &m.object {
        let d = &o.described_object;
        let group = GroupVersion::parse_or_empty(&d.api_version).group();
        let path = if d.kind == "Namespace" && group.is_empty() {
            format!("{custom}/metrics/{}", o.metric.name)
        } else {
            format!("{custom}/{}/{}/{}", snapshot_resource(items, group, &d.kind), d.name, o.metric.name)
        };
        let query = MetricQuery::object(&o.metric, d);
        let params = selector_param("metricLabelSelector", o.metric.selector.as_ref());
        ("Object", o.metric.name.as_str(), path, params, query)
    } else if let Some(e) = &m.external {
        let path = format!("/apis/external.metrics.k8s.io/v1beta1/namespaces/{namespace}/{}", e.metric.name);
        let params = selector_param("labelSelector", e.metric.selector.as_ref());
        ("External", e.metric.name.as_str(), path, params, MetricQuery::External { metric: MetricId::of(&e.metric) })
    } else {
        return None;
    };
    crate::kinds::push_query(&mut path, &params);
    Some(MetricRequest { type_, name, path, query })
}

/// A failed answer among a snapshot's objects ([`snapshot_failures`]).
struct SnapshotFailure {
    /// The request's path without its query string and API version ([`request_key`]).
    key: String,
    /// The metric selector the request carried (`metricLabelSelector` of a custom metric,
    /// `labelSelector` of an external one), parsed; `None` when the path has none (it answers
    /// every metric of that path).
    selector: Option<LabelSelector>,
    /// `message`.
    message: String,
}

impl SnapshotFailure {
    /// Whether it is the answer to `request`: the controller asks once per metric spec, with
    /// the spec's metric selector, so a failure that names a selector answers only the metric
    /// of that selector.
    fn answers(&self, request: &MetricRequest<'_>, release: KubernetesVersion) -> bool {
        // Both read by `labels.Parse`, compared as what they select (requirements sorted by key,
        // values as sets, `=`/`==` as `in`, `!=` as `notin`): `a=b` and `a in (b)` answer alike.
        // Not as text: a parsed selector has no `LabelSelector::format` of upstream's (that is
        // `labels::normalize`, which keeps the operators as written).
        let spec = labels::parse(&request.query.metric().selector, release);
        self.selector.as_ref().is_none_or(|s| spec.as_ref().is_ok_and(|spec| spec == s))
    }
}

/// The failed answers among a snapshot's objects: each `Status` of `status: Failure` whose
/// `metadata.selfLink` is the metrics request it answers (the README's gathering commands write
/// it so when `kubectl get --raw` fails), keyed by that path without its query string and API
/// version (`custom.metrics.k8s.io` at v1beta1 or v1beta2 alike), with the metric selector its
/// query names and its `message`.
fn snapshot_failures(items: &[&Value], release: KubernetesVersion) -> Vec<SnapshotFailure> {
    items
        .iter()
        .filter(|v| kind_of(v) == "Status" && str_of(v, "status") == "Failure")
        .filter_map(|v| {
            let link = str_at(v, &["metadata", "selfLink"])?;
            let key = request_key(link);
            let param =
                if key.starts_with("/apis/external.metrics.k8s.io/") { "labelSelector" } else { "metricLabelSelector" };
            let selector = query_param(link, param).and_then(|text| labels::parse(&text, release).ok());
            Some(SnapshotFailure { key, selector, message: str_of(v, "message").to_string() })
        })
        .collect()
}

/// The value of the query parameter `key` of `path`, percent-decoded (`+` is a space, as Go's
/// `url.ParseQuery` reads it); `None` when the query has no such parameter.
fn query_param(path: &str, key: &str) -> Option<String> {
    let (_, query) = path.split_once('?')?;
    let raw = query.split('&').find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))?;
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// A request path without its query string and, under `/apis/`, its API version.
fn request_key(path: &str) -> String {
    let path = path.split('?').next().unwrap_or_default();
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.get(1) == Some(&"apis") && parts.len() > 3 {
        parts.remove(3);
    }
    parts.join("/")
}

/// The notes on the Pods, Object and External metrics of which a snapshot holds no answer
/// (no item, no failed answer, and no empty list of their kind that could be it): they are
/// replayed as an empty answer (the metric fails: `no metrics returned ...`), which the API may
/// not give. Each names the `kubectl get --raw` command that gathers it, as the controller asks
/// for it.
fn ungathered_metrics(
    items: &[&Value],
    empty_lists: &[String],
    namespace: &str,
    metrics: &[MetricSpec],
    sync: &SyncInput,
    pod_selector: &str,
) -> Vec<String> {
    // An empty list among the files may be the answer.
    let empty_list = |kind: &str| empty_lists.iter().any(|k| k == kind);
    let mut out = Vec::new();
    for m in metrics {
        let Some(request) = metric_request(items, namespace, m, pod_selector) else { continue };
        if sync.metric_errors.contains_key(&request.query) {
            continue;
        }
        let answered = if m.pods.is_some() {
            matches!(&sync.pods_metrics, Ok(map) if map.get(request.query.metric()).is_some_and(|s| !s.is_empty()))
                || empty_list("MetricValueList")
        } else if let Some(o) = &m.object {
            let d = &o.described_object;
            matches!(&sync.object_metrics, Ok(values) if values.iter().any(|v| v.metric == *request.query.metric() && v.described_object.kind == d.kind && v.described_object.name == d.name))
                || empty_list("MetricValueList")
        } else if m.external.is_some() {
            matches!(&sync.external_metrics, Ok(map) if map.get(request.query.metric()).is_some_and(|v| !v.is_empty()))
                || empty_list("ExternalMetricValueList")
        } else {
            true
        };
        if !answered {
            out.push(format!(
                "{} metric {}: no answer among the inputs, replayed as an empty one (the metric fails); gather it with kubectl get --raw \"{}\" and pass the file",
                request.type_, request.name, request.path
            ));
        }
    }
    out
}

fn metric_name(v: &Value) -> String {
    v.get("metric")
        .and_then(|m| m.get("name"))
        .or_else(|| v.get("metricName"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The scale target `kind` `namespace/name` of group `api_version`'s among the objects.
fn target_object<'v>(
    items: &[&'v Value],
    namespace: &str,
    api_version: &str,
    kind: &str,
    name: &str,
) -> Option<&'v Value> {
    let group = GroupVersion::parse_or_empty(api_version).group();
    items.iter().copied().find(|v| {
        kind_of(v) == kind
            && namespace_of(v) == namespace
            && name_of(v) == name
            && api_group(v).is_none_or(|g| g == group)
    })
}

/// The scale of the target: a `Scale` object among the inputs (read from the subresource),
/// else the target object read the way its registry builds its scale (`scaleFromDeployment`
/// and friends in `pkg/registry/apps/*/storage`, Argo Rollouts' CRD `scale` paths).
fn scale_of(
    items: &[&Value],
    namespace: &str,
    api_version: &str,
    kind: &str,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Scale, Error> {
    // The controller asks for the scale in the HPA's namespace: a cluster-scoped target has
    // none there ([`cluster_scoped_scale_error`]).
    if let Some(plural) = cluster_scoped_plural(items, api_version, kind) {
        return Err(Error::Snapshot(cluster_scoped_scale_error(&plural, name)));
    }
    let group = GroupVersion::parse_or_empty(api_version).group();
    let known = kinds::workload(group, kind);
    // The controller's scale client asks for the resource its RESTMapper maps the kind to, and
    // kube-apiserver's 404 names it by the request's group and resource
    // (`Store.qualifiedResourceFromContext`): `deployments.apps "web" not found`,
    // `widgets.example.com "w" not found` ([`snapshot_resource`]: the CRD's plural when the
    // snapshot has it).
    let resource = snapshot_resource(items, group, kind);
    let not_found = || Error::NotFound { what: format!("{resource} \"{name}\""), message: String::new() };
    let target = target_object(items, namespace, api_version, kind, name);
    // A Scale read from the subresource carries its object's name and uid.
    let uid = |v: &Value| str_at(v, &["metadata", "uid"]).map(String::from);
    // Without the target among the objects, a Scale of that name is another object's when
    // one of another kind carries its uid.
    let owned_by_other = |scale: &Value| {
        uid(scale).is_some_and(|u| {
            items.iter().any(|o| kind_of(o) != "Scale" && kind_of(o) != kind && uid(o).as_deref() == Some(u.as_str()))
        })
    };
    let scale = items.iter().find(|v| {
        kind_of(v) == "Scale"
            && namespace_of(v) == namespace
            && name_of(v) == name
            && match (target.and_then(uid), uid(v)) {
                (Some(a), Some(b)) => a == b,
                (None, _) => !owned_by_other(v),
                _ => true,
            }
    });
    if let Some(s) = scale {
        return Ok(Scale {
            spec_replicas: int_at(s, &["spec", "replicas"]),
            status_replicas: int_at(s, &["status", "replicas"]),
            selector: str_at(s, &["status", "selector"]).unwrap_or_default().into(),
        });
    }
    let target = target.ok_or_else(not_found)?;
    let spec_replicas = int_at(target, &["spec", "replicas"]);
    let (status_replicas, selector) = match kind {
        // Argo Rollouts: statusReplicasPath .status.HPAReplicas, labelSelectorPath .status.selector.
        "Rollout" => (
            int_at(target, &["status", "HPAReplicas"]),
            str_at(target, &["status", "selector"]).unwrap_or_default().to_string(),
        ),
        // A ReplicationController's selector is a plain map.
        "ReplicationController" => {
            let mut s = LabelSelector::default();
            if let Some(m) = target.get("spec").and_then(|s| s.get("selector")).and_then(Value::as_object) {
                s.match_labels = m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into())).collect();
            }
            (int_at(target, &["status", "replicas"]), LabelSelector::format(&s))
        }
        _ if known.is_some() => {
            let s = target.get("spec").and_then(|s| s.get("selector")).map(selector_from_json).unwrap_or_default();
            (int_at(target, &["status", "replicas"]), LabelSelector::format(&s))
        }
        _ => {
            notes.push(format!(
                "the scale of {kind} {namespace}/{name} was not among the inputs and its kind's scale paths are unknown: read as a workload"
            ));
            let s = target.get("spec").and_then(|s| s.get("selector")).map(selector_from_json).unwrap_or_default();
            (int_at(target, &["status", "replicas"]), LabelSelector::format(&s))
        }
    };
    Ok(Scale { spec_replicas, status_replicas, selector })
}

fn resizes_of(pod: &Value) -> Vec<Resize> {
    let condition = pod
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter().find(|c| {
                matches!(c.get("type").and_then(Value::as_str), Some("PodResizePending" | "PodResizeInProgress"))
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
        .map(|c| (str_of(c, "type").to_string(), str_of(c, "reason").to_string()));
    let statuses: Vec<&Value> = pod
        .get("status")
        .and_then(|s| s.get("containerStatuses"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for c in pod.get("spec").and_then(|s| s.get("containers")).and_then(Value::as_array).into_iter().flatten() {
        let name = str_of(c, "name");
        let Some(status) = statuses.iter().find(|s| str_of(s, "name") == name) else { continue };
        let Some(actual) = status.get("resources").map(|r| milli_map(r.get("requests"))) else { continue };
        let desired = milli_map(c.get("resources").and_then(|r| r.get("requests")));
        if desired != actual || condition.is_some() {
            out.push(Resize {
                pod: name_of(pod).to_string(),
                container: name.to_string(),
                spec_requests_milli: desired,
                status_requests_milli: actual,
                condition: condition.clone(),
            });
        }
    }
    out
}

// === the live half: API calls → objects ===

/// Reads, for HPA `namespace/name`, what its controller sync reads, as [`DiagnosisObjects`] for
/// [`inputs_from_objects`].
///
/// The resource metrics API is read at `metrics.k8s.io/v1` when served, else `v1beta1` (never
/// `v1alpha1`); the custom metrics API at the version its client chooses by discovery
/// (`v1beta2` or `v1beta1`: `custom_metrics.NewAvailableAPIsGetter`) and the external one
/// at `external.metrics.k8s.io/v1beta1`, one request per metric, as the controller's REST
/// metrics client does. An API that is not installed is recorded as its failed answer (the
/// controller's own view) and noted; [`Error::MetricsApiMissing`] is not raised here, so the
/// diagnosis can say what the controller would do without it. A metrics API that refuses these
/// credentials (403) is [`Error::ControllerReadForbidden`]: the controller has its own RBAC, so the
/// refusal is not what it saw.
pub async fn read_objects(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    release: KubernetesVersion,
) -> Result<DiagnosisObjects, Error> {
    let mut out = DiagnosisObjects::snapshot(Vec::new(), release);
    out.metrics_asked = true;
    let hpa_path = kinds::HPA.object_path(namespace, name);
    let hpa = match cluster.get_json(&hpa_path, &format!("reading HorizontalPodAutoscaler {namespace}/{name}")).await {
        Ok(h) => crate::inventory::as_listed(h, &kinds::HPA),
        Err(e) => return Err(e),
    };
    let this = read_hpa(&hpa, release);
    let decoded = this.internal(namespace, name)?;

    // Every HPA of the namespace, and each one's target and scale (AmbiguousSelector). This
    // HPA is the one read above (not decoded again); the others are decoded once each.
    let mut listed = Vec::new();
    match cluster.list_each(&kinds::HPA, Some(namespace), &[], PAGE_SIZE, |h| h.collect_into(&mut listed)).await {
        Ok(_) => {}
        Err(e) if e.is_connection() => return Err(e),
        Err(e) => out.notes.push(format!("the other HPAs of the namespace were not read: {e}")),
    }
    let mut hpas = vec![(hpa, this)];
    for h in listed {
        if name_of(&h) == name {
            continue;
        }
        let h = crate::inventory::as_listed(h, &kinds::HPA);
        let read = read_hpa(&h, release);
        hpas.push((h, read));
    }
    let mut selectors = Vec::new();
    for (h, read) in hpas {
        let is_this = name_of(&h) == name;
        let target = read.hpa.as_ref().ok().map(|internal| internal.spec.scale_target_ref.clone());
        out.items.push(h);
        out.hpas.push(read);
        let Some(t) = target else { continue };
        match read_target(cluster, namespace, &t.api_version, &t.kind, &t.name).await {
            Ok(objects) => {
                for o in objects {
                    if kind_of(&o) == "Scale"
                        && let Some(s) = str_at(&o, &["status", "selector"])
                    {
                        selectors.push((is_this, s.to_string()));
                    }
                    out.items.push(o);
                }
            }
            Err(TargetError::Stop(e)) => return Err(e),
            Err(error @ (TargetError::Scale(_) | TargetError::Unmapped(_))) if is_this => {
                out.target_unmapped = matches!(error, TargetError::Unmapped(_));
                if let TargetError::Scale(e) | TargetError::Unmapped(e) = error {
                    out.notes.push(format!("the scale target was not read: {e}"));
                    out.target_error = Some(e);
                }
            }
            Err(TargetError::Scale(_) | TargetError::Unmapped(_)) => {}
        }
    }

    // The workload whose pod template the target's pods are made from (`admitted_template`):
    // the target itself, or the workload an Argo Rollout's `workloadRef` names, read here; none
    // for a custom resource, whose operator makes its pods from a template only it knows.
    let target = &mapped_target(&decoded.spec.scale_target_ref);
    let mut holder = out
        .items
        .iter()
        .find(|o| kind_of(o) == target.kind && name_of(o) == target.name)
        .map(|o| workload_from_json(object_id(o, namespace), o))
        .filter(Workload::pods_known);
    let reference = holder.as_ref().and_then(|w| w.workload_ref.as_deref()).filter(|r| r.refused.is_none()).cloned();
    if let Some(r) = reference {
        holder = None;
        let group = GroupVersion::parse_or_empty(&r.api_version).group().to_string();
        let kind = kinds::workload(&group, &r.kind)
            .or((group.is_empty() && r.kind == POD_TEMPLATE.kind).then_some(&POD_TEMPLATE));
        if let Some(kind) = kind {
            let doing = format!("reading {} {namespace}/{}", r.kind, r.name);
            match cluster.get_json(&kind.object_path(namespace, &r.name), &doing).await {
                Ok(object) => {
                    let object = typed(object, kind);
                    holder = Some(workload_from_json(object_id(&object, namespace), &object));
                    out.items.push(object);
                }
                Err(e) if e.is_connection() => return Err(e),
                Err(e) => out.notes.push(format!(
                    "the {} {namespace}/{} the scale target's spec.workloadRef names was not read: {e}",
                    r.kind, r.name
                )),
            }
        }
    }
    // The RuntimeClass the template names (cluster-scoped): its overhead is part of each pod a
    // forecast adds, as admission sets it on the pods that run.
    let runtime_class = holder.and_then(|w| w.runtime_class_name);
    if let Some(rc) = runtime_class {
        let path = format!("{}/{rc}", kinds::RUNTIME_CLASS.collection_path(None));
        match cluster.get_json(&path, &format!("reading RuntimeClass {rc}")).await {
            Ok(object) => out.items.push(typed(object, &kinds::RUNTIME_CLASS)),
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => out.notes.push(format!("the RuntimeClass {rc} the target's pods name was not read: {e}")),
        }
    }

    // The pods of this HPA's selector and of the others' (only these can be ambiguous).
    let mut pod_names = std::collections::BTreeSet::new();
    for (_, sel) in &selectors {
        if sel.is_empty() {
            continue;
        }
        let mut pods = Vec::new();
        let query = [("labelSelector", sel.as_str())];
        cluster.list_each(&kinds::POD, Some(namespace), &query, PAGE_SIZE, |p| p.collect_into(&mut pods)).await?;
        for p in pods {
            if pod_names.insert(name_of(&p).to_string()) {
                out.items.push(typed(p, &kinds::POD));
            }
        }
    }

    // The HPA's events, and the target's ScalingReplicaSet events (the earlier size of a
    // rescale).
    let event_lists = [
        (format!("involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name={name}"), "the HPA's events"),
        (
            format!(
                "involvedObject.kind={},involvedObject.name={},reason={SCALING_REPLICA_SET}",
                target.kind, target.name
            ),
            "the scale target's events",
        ),
    ];
    for (field_selector, what) in event_lists {
        let query = [("fieldSelector", field_selector.as_str())];
        let mut events = Vec::new();
        match cluster
            .list_each(&kinds::EVENT, Some(namespace), &query, PAGE_SIZE, |e| e.collect_into(&mut events))
            .await
        {
            Ok(_) => out.items.extend(events.into_iter().map(|e| typed(e, &kinds::EVENT))),
            // The events only rebuild the controller's memory: a list too slow to answer (a
            // namespace of many events) is said, and the sync replayed without them.
            Err(e @ Error::Timeout { .. }) => out.notes.push(format!("{what} were not read: {e}")),
            Err(e) if e.is_connection() => return Err(e),
            Err(e) => out.notes.push(format!("{what} were not read: {e}")),
        }
    }

    read_metrics(cluster, namespace, &decoded, &selectors, &mut out).await?;
    Ok(out)
}

/// The target object and its scale subresource, read as the HPA controller reads a scale
/// (`reconcileAutoscaler` and `scaleForResourceMappings` in
/// `pkg/controller/podautoscaler/horizontal.go`): the target's group and kind mapped to
/// resources by discovery (its RESTMapper; any kind with a scale subresource, CRDs included),
/// then `GET .../scale` (autoscaling/v1 Scale) of each resource mapped (the preferred version's
/// mapping of each: `discovery::distinct_resources`) until one answers, the first error
/// otherwise. The error is the controller's text (`no matches for kind ...`,
/// `deployments.apps "web" not found`, the API server's message).
async fn read_target(
    cluster: &Cluster,
    namespace: &str,
    api_version: &str,
    kind: &str,
    name: &str,
) -> Result<Vec<Value>, TargetError> {
    let group = GroupVersion::parse_or_empty(api_version).group();
    let mappings = discovery::mappings(cluster, group, kind).await.map_err(TargetError::Stop)?;
    let Some((preferred, others)) = mappings.split_first() else {
        return Err(TargetError::Unmapped(discovery::no_kind_match(group, kind)));
    };
    let mut first_error = None;
    let distinct = std::iter::once(preferred).chain(discovery::distinct_resources(others, preferred));
    for m in distinct {
        // The controller's scale client asks in the HPA's namespace whatever the resource's
        // scope (`namespacedScaleClient.Get`: `Scales(hpa.Namespace)`), and kube-apiserver
        // routes no namespaced path of a cluster-scoped resource (`crdHandler` hands it to the
        // not-found handler: `404 page not found`, plain text), which client-go reads as
        // `NewGenericServerResponse`'s text (the scale client's REST client has no group).
        if !m.namespaced {
            first_error.get_or_insert_with(|| cluster_scoped_scale_error(&m.plural, name));
            continue;
        }
        let path = m.object_path(namespace, name);
        let scale = match cluster
            .get_json(&format!("{path}/scale"), &format!("reading the scale of {kind} {namespace}/{name}"))
            .await
        {
            Ok(scale) => scale,
            Err(e) if e.is_connection() => return Err(TargetError::Stop(e)),
            // Our credentials' refusal says nothing of what the controller's saw.
            Err(Error::Forbidden { message, .. }) => {
                return Err(TargetError::Stop(Error::ControllerReadForbidden {
                    what: format!("the scale of {kind} {namespace}/{name}"),
                    access: format!("get on {}/scale", m.group_resource()),
                    namespace: namespace.to_string(),
                    message,
                }));
            }
            Err(e) => {
                let text = match &e {
                    Error::NotFound { .. } => format!("{} \"{name}\" not found", m.group_resource()),
                    other => api_error_text(other),
                };
                first_error.get_or_insert(text);
                continue;
            }
        };
        // The object itself (its uid ties the Scale to it); a scale without it is enough.
        let mut out = Vec::new();
        match cluster.get_json(&path, &format!("reading {kind} {namespace}/{name}")).await {
            Ok(mut object) => {
                if let Some(o) = object.as_object_mut() {
                    let api_version =
                        if m.group.is_empty() { m.version.clone() } else { format!("{}/{}", m.group, m.version) };
                    o.entry("apiVersion").or_insert_with(|| Value::String(api_version));
                    o.entry("kind").or_insert_with(|| Value::String(kind.to_string()));
                }
                out.push(object);
            }
            Err(e) if e.is_connection() => return Err(TargetError::Stop(e)),
            Err(_) => {}
        }
        out.push(scale);
        return Ok(out);
    }
    Err(TargetError::Scale(first_error.unwrap_or_default()))
}

/// The error the HPA controller's scale client gets for the scale of a cluster-scoped
/// resource: its `GET` of the namespaced path answered 404 with a body that is not a `Status`
/// (`newUnstructuredResponseError` in `k8s.io/client-go/rest/request.go`, then
/// `NewGenericServerResponse` in `k8s.io/apimachinery/pkg/api/errors/errors.go`).
fn cluster_scoped_scale_error(plural: &str, name: &str) -> String {
    format!("the server could not find the requested resource (get {plural} {name})")
}

/// Why a scale target was not read.
enum TargetError {
    /// The server cannot be used at all: the diagnosis stops.
    Stop(Error),
    /// The controller's error getting the scale (`FailedGetScale`).
    Scale(String),
    /// The RESTMapper's error: discovery maps the target's kind to no resource
    /// (`FailedGetScale` too, with another sync error).
    Unmapped(String),
}

async fn read_metrics(
    cluster: &Cluster,
    namespace: &str,
    hpa: &HorizontalPodAutoscaler,
    selectors: &[(bool, String)],
    out: &mut DiagnosisObjects,
) -> Result<(), Error> {
    let metrics = &hpa.spec.metrics;
    let wants_resource = metrics.iter().any(|m| m.resource.is_some() || m.container_resource.is_some());
    let wants_custom = metrics.iter().any(|m| m.pods.is_some() || m.object.is_some());
    let wants_external = metrics.iter().any(|m| m.external.is_some());
    let external = ResourceKind {
        group: "external.metrics.k8s.io",
        version: "v1beta1",
        kind: "ExternalMetricValueList",
        plural: "*",
        optional: true,
    };
    let wanted = [kinds::POD_METRICS_V1, kinds::POD_METRICS_V1BETA1];
    let served = discovery::served(cluster, &wanted).await?;
    let groups = served_groups(cluster).await?;
    let served_group =
        |name: &str| groups.as_ref().map_or(Some(None), |gs| gs.iter().find(|g| g.name == name).map(Some));
    // The pods' selector as the metrics clients send it, `labels.Parse(status.selector).String()`
    // (one that does not parse stops the sync before any metric: sent as written).
    let written = selectors.iter().find(|(this, _)| *this).map(|(_, s)| s.as_str()).unwrap_or_default();
    let selector = labels::normalize(written, out.release).unwrap_or_else(|_| written.to_string());
    let selector = selector.as_str();

    if wants_resource {
        let version = [kinds::POD_METRICS_V1, kinds::POD_METRICS_V1BETA1]
            .into_iter()
            .find(|k| served.kinds.get(k) != Some(&Served::No));
        match version {
            None => {
                out.notes.push(Error::MetricsApiMissing.to_string());
                // client-go's error for an absent group, as the controller records it.
                out.metrics_errors.resource =
                    Some("the server could not find the requested resource (get pods.metrics.k8s.io)".into());
            }
            Some(k) if !selector.is_empty() => {
                // One request, as `PodMetricses(ns).List` sends it (no `limit`): the answer's
                // text is what the client decodes.
                let mut path = k.collection_path(Some(namespace));
                crate::kinds::push_query(&mut path, &[("labelSelector".into(), selector.into())]);
                let doing = format!("listing {}", k.describe(Some(namespace)));
                match cluster.get_text(&path, &doing).await.and_then(|text| {
                    let list = hpa_core::go::parse_tree(&text)
                        .map_err(|e| Error::Protocol { doing: doing.clone(), reason: e.to_string() })?;
                    Ok((text, list))
                }) {
                    Ok((text, list)) => push_answer(out, &text, &list, "PodMetrics", None),
                    Err(e @ Error::Timeout { .. }) => {
                        out.metrics_errors.resource = Some(timed_out_metric(&e, &mut out.notes));
                    }
                    Err(e) if e.is_connection() => return Err(e),
                    Err(Error::Forbidden { message, .. }) => {
                        return Err(metrics_forbidden("metrics.k8s.io", namespace, message));
                    }
                    Err(e) => out.metrics_errors.resource = Some(api_error_text(&e)),
                }
            }
            Some(_) => {}
        }
    }
    if wants_custom {
        // The client's errors (`fetchVersions`, `chooseVersion`), as the controller records them.
        let version = match served_group(CUSTOM_METRICS_GROUP) {
            None => {
                out.notes.push(format!("the custom metrics API ({CUSTOM_METRICS_GROUP}) is not installed"));
                Err(NoCustomMetricsVersion::NotRegistered)
            }
            // Discovery failed: the newest version is tried.
            Some(None) => Ok(CUSTOM_METRICS_VERSIONS[0]),
            Some(Some(group)) => custom_metrics_version(group).inspect_err(|_| {
                out.notes.push(format!(
                    "the custom metrics API ({CUSTOM_METRICS_GROUP}) serves {}, none of the versions the controller reads ({})",
                    group.versions.join(", "),
                    CUSTOM_METRICS_VERSIONS.join(", ")
                ))
            }),
        };
        if let Err(e) = &version {
            out.metrics_errors.custom = Some(e.to_string());
        }
        if let Ok(version) = version {
            for m in metrics {
                let (path, query) = if let Some(p) = &m.pods {
                    let mut path = format!(
                        "/apis/{CUSTOM_METRICS_GROUP}/{version}/namespaces/{namespace}/pods/*/{}",
                        p.metric.name
                    );
                    let mut params = vec![("labelSelector".to_string(), selector.to_string())];
                    if let Some(s) = &p.metric.selector {
                        params.push(("metricLabelSelector".into(), LabelSelector::format(s)));
                    }
                    crate::kinds::push_query(&mut path, &params);
                    (path, MetricQuery::Pods { metric: MetricId::of(&p.metric) })
                } else if let Some(o) = &m.object {
                    let d = &o.described_object;
                    let base = format!("/apis/{CUSTOM_METRICS_GROUP}/{version}/namespaces/{namespace}");
                    let group = GroupVersion::parse_or_empty(&d.api_version).group();
                    // `GetObjectMetric`: a Namespace's metrics are the namespace's own (root
                    // scoped); any other object's resource is mapped by discovery
                    // (`qualResourceForKind`: `GroupResource.String()`).
                    let mut path = if d.kind == "Namespace" && group.is_empty() {
                        format!("{base}/metrics/{}", o.metric.name)
                    } else {
                        let resource = match discovery::mappings(cluster, group, &d.kind).await {
                            Ok(found) => match found.first() {
                                Some(mapping) => mapping.group_resource(),
                                // The client fails the metric before any request
                                // (`qualResourceForKind` in
                                // `k8s.io/metrics/pkg/client/custom_metrics/versioned_client.go`,
                                // with `GroupKind.String()`).
                                None => {
                                    let group_kind = if group.is_empty() {
                                        d.kind.to_string()
                                    } else {
                                        format!("{}.{group}", d.kind)
                                    };
                                    let query = MetricQuery::object(&o.metric, d);
                                    let error = format!(
                                        "unable to map kind {group_kind} to resource: {}",
                                        discovery::no_kind_match(group, &d.kind)
                                    );
                                    out.metrics_errors.metrics.insert(query, ReadError(error));
                                    continue;
                                }
                            },
                            Err(e) if e.is_connection() => return Err(e),
                            // Discovery failed: the English plural, as the API names most kinds.
                            Err(_) if group.is_empty() => plural_of(&d.kind),
                            Err(_) => format!("{}.{group}", plural_of(&d.kind)),
                        };
                        format!("{base}/{resource}/{}/{}", d.name, o.metric.name)
                    };
                    if let Some(s) = &o.metric.selector {
                        crate::kinds::push_query(
                            &mut path,
                            &[("metricLabelSelector".into(), LabelSelector::format(s))],
                        );
                    }
                    let query = MetricQuery::object(&o.metric, d);
                    (path, query)
                } else {
                    continue;
                };
                read_metric_list(cluster, namespace, &path, "MetricValue", query, out).await?;
            }
        }
    }
    if wants_external {
        if served_group(external.group).is_none() {
            out.notes.push("the external metrics API (external.metrics.k8s.io) is not installed".into());
            out.metrics_errors.external =
                Some("the server could not find the requested resource (get *.external.metrics.k8s.io)".into());
        } else {
            for e in metrics.iter().filter_map(|m| m.external.as_ref()) {
                let mut path =
                    format!("/apis/{}/{}/namespaces/{namespace}/{}", external.group, external.version, e.metric.name);
                if let Some(s) = &e.metric.selector {
                    crate::kinds::push_query(&mut path, &[("labelSelector".into(), LabelSelector::format(s))]);
                }
                let query = MetricQuery::External { metric: MetricId::of(&e.metric) };
                read_metric_list(cluster, namespace, &path, "ExternalMetricValue", query, out).await?;
            }
        }
    }
    Ok(())
}

/// The custom metrics API's group.
const CUSTOM_METRICS_GROUP: &str = "custom.metrics.k8s.io";

/// The custom metrics API versions the controller's client speaks, newest first
/// (`custom_metrics.MetricVersions` in `k8s.io/metrics/pkg/client/custom_metrics`).
const CUSTOM_METRICS_VERSIONS: [&str; 2] = ["v1beta2", "v1beta1"];

/// An API group as `/apis` lists it (`metav1.APIGroup`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ApiGroup {
    /// `name`.
    name: String,
    /// `preferredVersion.version` (empty when absent).
    preferred: String,
    /// `versions[].version`, in the listed order.
    versions: Vec<String>,
}

/// The API groups `/apis` lists (the plain `APIGroupList`, as client-go's `ServerGroups`
/// reads it); `None` when the list cannot be read (a refusal or another failure that leaves
/// the server usable).
async fn served_groups(cluster: &Cluster) -> Result<Option<Vec<ApiGroup>>, Error> {
    let list = match cluster.get_json("/apis", "listing the API groups").await {
        Ok(l) => l,
        Err(e) if e.is_connection() => return Err(e),
        Err(_) => return Ok(None),
    };
    let version = |v: &Value| str_of(v, "version").to_string();
    let groups = list
        .get("groups")
        .and_then(Value::as_array)
        .map(|gs| {
            gs.iter()
                .map(|g| ApiGroup {
                    name: str_of(g, "name").to_string(),
                    preferred: g.get("preferredVersion").map(version).unwrap_or_default(),
                    versions: g.get("versions").and_then(Value::as_array).into_iter().flatten().map(version).collect(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(groups))
}

/// The custom metrics API version the HPA controller's client reads, by discovery
/// (`apiVersionsFromDiscovery.chooseVersion` in `k8s.io/metrics/pkg/client/custom_metrics/discovery.go`,
/// behind `NewAvailableAPIsGetter`): the group's preferred version when the client speaks it,
/// else the first listed version it speaks.
fn custom_metrics_version(group: &ApiGroup) -> Result<&'static str, NoCustomMetricsVersion> {
    let known = |v: &str| CUSTOM_METRICS_VERSIONS.into_iter().find(|k| *k == v);
    known(&group.preferred)
        .or_else(|| group.versions.iter().find_map(|v| known(v)))
        .ok_or(NoCustomMetricsVersion::NoneKnown)
}

/// Why the HPA controller's custom metrics client has no version to read, in its words
/// (`k8s.io/metrics/pkg/client/custom_metrics/discovery.go`), which the controller records as
/// the metric's error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum NoCustomMetricsVersion {
    /// Discovery lists no such group (`fetchVersions`).
    #[error("no custom metrics API ({CUSTOM_METRICS_GROUP}) registered")]
    NotRegistered,
    /// The group serves none of the versions the client speaks (`chooseVersion`).
    #[error("no known available metric versions found")]
    NoneKnown,
}

/// Reads the answer of the custom or external metrics API for one metric (`query`, at `path`)
/// into `out`'s items, each with `item_kind`. A failure of that request alone (the adapter's
/// 404 or 5xx) is the metric's error, in client-go's words as the controller records it
/// (`unable to fetch metrics from custom metrics API: <this>`); a refusal or a server that
/// cannot be used stops the diagnosis; anything else is noted and the answer left empty.
async fn read_metric_list(
    cluster: &Cluster,
    namespace: &str,
    path: &str,
    item_kind: &str,
    query: MetricQuery,
    out: &mut DiagnosisObjects,
) -> Result<(), Error> {
    let doing = format!("reading {path}");
    let answer = cluster.get_text(path, &doing).await.and_then(|text| {
        let list = hpa_core::go::parse_tree(&text)
            .map_err(|e| Error::Protocol { doing: doing.clone(), reason: e.to_string() })?;
        Ok((text, list))
    });
    match answer {
        // `GetForObject` refuses an answer without the object's value (more than one is
        // refused where the items are read, `object_metrics`).
        Ok((_, list))
            if matches!(query, MetricQuery::Object { .. })
                && list.get("items").and_then(Value::as_array).is_none_or(Vec::is_empty) =>
        {
            let error = "the custom metrics API server returned 0 results when we asked for exactly one";
            out.metrics_errors.metrics.insert(query, ReadError(error.into()));
            Ok(())
        }
        Ok((text, list)) => {
            push_answer(out, &text, &list, item_kind, Some(&query));
            Ok(())
        }
        Err(e @ Error::Timeout { .. }) => {
            let text = timed_out_metric(&e, &mut out.notes);
            out.metrics_errors.metrics.insert(query, ReadError(text));
            Ok(())
        }
        Err(e) if e.is_connection() => Err(e),
        Err(Error::Forbidden { message, .. }) => {
            let api = path.trim_start_matches("/apis/").split('/').next().unwrap_or_default();
            Err(metrics_forbidden(api, namespace, message))
        }
        Err(e @ (Error::NotFound { .. } | Error::Api { .. })) => {
            out.metrics_errors.metrics.insert(query, ReadError(api_error_text(&e)));
            Ok(())
        }
        Err(e) => {
            out.notes.push(format!("metric values not read: {e}"));
            Ok(())
        }
    }
}

/// Adds a metrics API's answer read live (`text`, read as `list`) to `out`: its items, each
/// with `kind` `item_kind` and the list's `apiVersion` when it names none (the version its client
/// decodes it as), and each item's text as sent ([`DiagnosisObjects::sent`]), which its client decodes;
/// the items of a custom or external metric's answer with the `query` they answer
/// ([`DiagnosisObjects::answering`]).
fn push_answer(out: &mut DiagnosisObjects, text: &str, list: &Value, item_kind: &str, query: Option<&MetricQuery>) {
    let api_version = list.get("apiVersion").cloned();
    let items = list.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    let texts = metrics::item_texts(text).filter(|t| t.len() == items.len()).unwrap_or_default();
    for (i, mut item) in items.into_iter().enumerate() {
        if let Some(o) = item.as_object_mut() {
            o.insert("kind".into(), Value::String(item_kind.into()));
            if let Some(v) = &api_version {
                o.entry("apiVersion").or_insert_with(|| v.clone());
            }
        }
        if let Some(t) = texts.get(i) {
            out.sent.insert(out.items.len(), (*t).into());
        }
        if let Some(q) = query {
            out.answering.insert(out.items.len(), q.clone());
        }
        out.items.push(item);
    }
}

/// The `Status` message kube-apiserver answers a request to an aggregated metrics API that
/// does not complete in time with (504, `WithTimeoutForNonLongRunningRequests` in
/// `apiserver/pkg/server/filters/timeout.go` through `apierrors.NewTimeoutError`).
const APISERVER_TIMEOUT_MESSAGE: &str = "Timeout: request did not complete within the allotted timeout";

/// A metrics request that did not answer within our timeout, once the API server has answered
/// everything else: the metrics API (its adapter) hangs. The HPA controller's client sets no
/// timeout of its own, so its request ends at kube-apiserver's (`--request-timeout`, 1m0s by
/// default) with [`APISERVER_TIMEOUT_MESSAGE`], which fails that metric alone (`FailedGet...Metric`)
/// while the others are computed; the diagnosis replays that, and says it assumed so.
fn timed_out_metric(e: &Error, notes: &mut Vec<String>) -> String {
    notes.push(format!(
        "{e}: replayed as the answer the HPA controller gets when kube-apiserver's request timeout (--request-timeout, 1m0s by default) ends the same request, 504 \"{APISERVER_TIMEOUT_MESSAGE}\""
    ));
    APISERVER_TIMEOUT_MESSAGE.to_string()
}

/// A 403 on a metrics API: the diagnosis stops ([`Error::ControllerReadForbidden`]) rather than
/// replay the refusal as the controller's `FailedGet*Metric`: the controller reads with its
/// own RBAC, and what it saw is unknown.
fn metrics_forbidden(api: &str, namespace: &str, message: String) -> Error {
    Error::ControllerReadForbidden {
        what: api.to_string(),
        access: format!("get and list on {api}"),
        namespace: namespace.to_string(),
        message,
    }
}

fn api_error_text(e: &Error) -> String {
    match e {
        Error::Api { message, .. } | Error::Forbidden { message, .. } | Error::NotFound { message, .. } => {
            message.clone()
        }
        other => other.to_string(),
    }
}

/// The resource (`plural.group`, `GroupResource.String()`) of a kind of a group in a snapshot,
/// where live diagnose asks discovery ([`discovery::mappings`], as the custom metrics client's
/// `qualResourceForKind` asks its RESTMapper): a built-in kind's ([`kinds::workload`]), else the
/// `names.plural` of the snapshot's CustomResourceDefinition of that group and kind, mapped by
/// the same resolver ([`discovery::Resolver::Crds`]: what discovery serves it as, `mice` for
/// `Mouse`), else the English plural ([`plural_of`]).
fn snapshot_resource(items: &[&Value], group: &str, kind: &str) -> String {
    if let Some(k) = kinds::workload(group, kind) {
        return k.resource();
    }
    match snapshot_crd_mapping(items, group, kind) {
        Some(mapping) => mapping.group_resource(),
        None if group.is_empty() => plural_of(kind),
        None => format!("{}.{group}", plural_of(kind)),
    }
}

/// The mapping of a kind of a group by the snapshot's CustomResourceDefinitions
/// ([`discovery::Resolver::Crds`]: its plural and `spec.scope`), if one defines it.
fn snapshot_crd_mapping(items: &[&Value], group: &str, kind: &str) -> Option<discovery::Mapping> {
    let crds = items
        .iter()
        .filter(|v| kind_of(v) == "CustomResourceDefinition")
        .filter_map(|v| {
            let id = ObjectId {
                api_version: str_of(v, "apiVersion").to_string(),
                kind: kind_of(v).to_string(),
                namespace: String::new(),
                name: name_of(v).to_string(),
            };
            custom_resource_definition_from(id, *v).filter(|c| !c.plural.is_empty())
        })
        .collect();
    discovery::Resolver::Crds(crds).mappings(group, kind).into_iter().next()
}

/// The plural of a scale target that a snapshot shows cluster-scoped: the snapshot's
/// CustomResourceDefinition of its group and kind has `spec.scope: Cluster` (an object without
/// a namespace is read as one of `default`, as a hand-written snapshot means it). `None` for a
/// namespaced target, or one whose CRD the snapshot lacks.
fn cluster_scoped_plural(items: &[&Value], api_version: &str, kind: &str) -> Option<String> {
    let group = GroupVersion::parse_or_empty(api_version).group();
    if kinds::workload(group, kind).is_some() {
        return None;
    }
    snapshot_crd_mapping(items, group, kind).filter(|m| !m.namespaced).map(|m| m.plural)
}

/// The resource of a kind for the custom metrics API's object paths when discovery cannot say
/// (the controller asks its RESTMapper; these are the English plurals the API uses).
fn plural_of(kind: &str) -> String {
    let lower = kind.to_lowercase();
    if lower.ends_with('s') || lower.ends_with('x') || lower.ends_with("ch") || lower.ends_with("sh") {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// A list item with the `apiVersion` and `kind` the API server leaves out of built-in lists.
/// The core `PodTemplate` kind, which an Argo Rollout's `workloadRef` may name.
const POD_TEMPLATE: ResourceKind =
    ResourceKind { group: "", version: "v1", kind: "PodTemplate", plural: "podtemplates", optional: false };

/// The identity of an object read in `namespace`, as hpa-core's builders take it.
fn object_id(v: &Value, namespace: &str) -> ObjectId {
    ObjectId {
        api_version: str_of(v, "apiVersion").to_string(),
        kind: kind_of(v).to_string(),
        namespace: namespace.to_string(),
        name: name_of(v).to_string(),
    }
}

fn typed(mut item: Value, kind: &ResourceKind) -> Value {
    if let Some(o) = item.as_object_mut() {
        o.entry("apiVersion").or_insert_with(|| Value::String(kind.api_version()));
        o.entry("kind").or_insert_with(|| Value::String(kind.kind.to_string()));
    }
    item
}

// === small readers ===

/// Why an HPA object cannot be read into the internal form ([`read_hpa`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HpaReadError {
    /// The decoder refused it (a syntax or type error: unknown fields are ignored): every
    /// error, joined with `, `.
    #[error("{}", join_errors(.0))]
    Decode(Vec<DecodeError>),
    /// Conversion to the internal form failed.
    #[error(transparent)]
    Convert(#[from] hpa_core::convert::ConvertError),
}

fn join_errors(errors: &[DecodeError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// An HPA object (any served version, as stored) decoded as the other live paths decode a
/// stored HPA (`hpa_cluster::LiveHpa::decode`): by hpa-core's one decoder
/// ([`hpa_core::api::decode_json`], as kube-apiserver decodes a body), leniently (the API
/// server stored it and may be newer than `release`: a field `release`'s Go types lack is
/// ignored, as the informer of that release's controller ignores it) and with the Go types of
/// `release`; then converted to the internal (autoscaling/v2) form the controller reads.
pub fn read_hpa(v: &Value, release: KubernetesVersion) -> ReadHpa {
    let namespace = namespace_of(v).to_string();
    let name = name_of(v).to_string();
    match hpa_core::api::decode_json(&v.to_string(), Strictness::Lenient, release) {
        Ok(decoded) => {
            let hpa = hpa_core::convert::to_internal_in(&decoded.value, release)
                .map(|c| c.object)
                .map_err(HpaReadError::from);
            ReadHpa { namespace, name, hpa, ignored: decoded.ignored }
        }
        Err(errors) => ReadHpa { namespace, name, hpa: Err(HpaReadError::Decode(errors)), ignored: Vec::new() },
    }
}

fn kind_of(v: &Value) -> &str {
    str_of(v, "kind")
}

fn name_of(v: &Value) -> &str {
    str_at(v, &["metadata", "name"]).unwrap_or_default()
}

fn namespace_of(v: &Value) -> &str {
    str_at(v, &["metadata", "namespace"]).unwrap_or("default")
}

fn api_group(v: &Value) -> Option<&str> {
    v.get("apiVersion").and_then(Value::as_str).map(|av| GroupVersion::parse_or_empty(av).group())
}

fn labels_of(v: &Value) -> BTreeMap<String, String> {
    v.get("metadata").and_then(|m| m.get("labels")).map(labels_map).unwrap_or_default()
}

/// A JSON map of strings (labels).
fn labels_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(*k)).and_then(Value::as_str)
}

fn int_at(v: &Value, path: &[&str]) -> i32 {
    path.iter().try_fold(v, |v, k| v.get(*k)).and_then(Value::as_i64).and_then(|n| i32::try_from(n).ok()).unwrap_or(0)
}

fn time_at(v: &Value, key: &str) -> Option<Timestamp> {
    v.get(key).and_then(Value::as_str).and_then(Time::parse_rfc3339).map(Timestamp::from_api_time)
}

fn quantity_milli(v: Option<&Value>) -> Option<i64> {
    let text = match v? {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    Quantity::parse(text.trim()).ok().map(|q| q.milli_value())
}

fn milli_map(v: Option<&Value>) -> BTreeMap<String, i64> {
    v.and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, q)| quantity_milli(Some(q)).map(|q| (k.clone(), q))).collect())
        .unwrap_or_default()
}

/// The scale target with the kind the controller's RESTMapper maps it to
/// ([`hpa_core::rules::target_group_kind`]: `statefulset` of `apps` is the StatefulSet), as the
/// objects read hold it.
fn mapped_target(target: &hpa_core::api::CrossVersionObjectReference) -> hpa_core::api::CrossVersionObjectReference {
    let kind = hpa_core::rules::target_group_kind(target).1.to_string();
    hpa_core::api::CrossVersionObjectReference { kind, ..target.clone() }
}

/// [`mapped_target`] in a snapshot, whose objects show which kinds the cluster serves: a kind
/// written all in lowercase in a group with a dot is also the alias of the custom kind a
/// CustomResourceDefinition of the snapshot defines, or an object of the snapshot is of, in that
/// group (`widget` of `example.com` is the `Widget`: `NewDiscoveryRESTMapper` registers the
/// lowercase alias of every kind discovery lists, `hpa_core::rules::maps_kind`).
fn snapshot_mapped_target(
    target: &hpa_core::api::CrossVersionObjectReference,
    items: &[&Value],
) -> hpa_core::api::CrossVersionObjectReference {
    let mapped = mapped_target(target);
    let group = hpa_core::rules::object_group(&mapped.kind, &mapped.api_version);
    if mapped.kind != target.kind || hpa_core::rules::dotless_group_kinds(group).is_some() {
        return mapped;
    }
    let served = items.iter().find_map(|v| {
        let kind = if kind_of(v) == "CustomResourceDefinition" {
            (str_at(v, &["spec", "group"]) == Some(group)).then(|| str_at(v, &["spec", "names", "kind"])).flatten()?
        } else {
            (api_group(v) == Some(group)).then(|| kind_of(v))?
        };
        (kind != target.kind && hpa_core::rules::maps_kind(kind, &target.kind)).then_some(kind)
    });
    match served {
        Some(kind) => hpa_core::api::CrossVersionObjectReference { kind: kind.to_string(), ..mapped },
        None => mapped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot's failed answer is the answer to the request whose metric selector selects
    /// what its `metricLabelSelector` selects: the controller sends `a=b` for a `matchLabels`
    /// entry and `a in (b)` for an `In` expression, and a command written either way gathers
    /// both; another selection is another request's.
    #[test]
    fn a_failed_answer_is_matched_by_what_its_selector_selects() {
        let request = |selector: &str| MetricRequest {
            type_: "External",
            name: "q",
            path: String::new(),
            query: MetricQuery::External {
                metric: hpa_core::evaluator::MetricId { name: "q".into(), selector: selector.into() },
            },
        };
        let failure = |text: Option<&str>| SnapshotFailure {
            key: String::new(),
            selector: text.map(|t| labels::parse(t, KubernetesVersion::LATEST).unwrap_or_default()),
            message: String::new(),
        };
        let answers =
            |spec: &str, recorded: Option<&str>| failure(recorded).answers(&request(spec), KubernetesVersion::LATEST);
        assert!(answers("a=b", Some("a in (b)")));
        assert!(answers("a in (b)", Some("a==b")));
        assert!(answers("a=b,c notin (d)", Some("c!=d, a=b")));
        assert!(answers("a=b", None), "a failure that names no selector answers every one");
        assert!(!answers("a=b", Some("a=c")));
        assert!(!answers("a=b", Some("a!=b")));
        assert!(!answers("", Some("a=b")));
    }

    /// A scale whose `status.selector` does not parse: the controller's `labels.Parse` error,
    /// in apimachinery's words as the release words it, and no pods; a selector that parses
    /// selects the pods by the one matcher.
    #[test]
    fn scale_selectors_are_read_by_labels_parse() {
        use serde_json::json;
        let objects = |selector: &str, release: KubernetesVersion| {
            DiagnosisObjects::snapshot(
                vec![
                    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                        "metadata": {"name": "web", "namespace": "ns"},
                        "spec": {"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": "Pool", "name": "web"},
                            "minReplicas": 1, "maxReplicas": 5,
                            "metrics": [{"type": "External", "external": {"metric": {"name": "q"},
                                "target": {"type": "Value", "value": "1"}}}]}}),
                    json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                        "metadata": {"name": "web", "namespace": "ns"},
                        "spec": {"replicas": 2}, "status": {"replicas": 2, "selector": selector}}),
                    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns",
                        "labels": {"app": "web", "tier": ""}}}),
                ],
                release,
            )
        };
        let sync = |selector: &str, release| {
            inputs_from_objects(&objects(selector, release), "ns", "web", Timestamp::from_secs(0))
                .map(|i| (i.sync.selector_parse_error.map(|e| e.to_string()), i.sync.pods.len()))
                .map_err(|e| e.to_string())
        };
        let latest = KubernetesVersion::LATEST;
        assert_eq!(
            sync("app=web,tier in (a b)", latest),
            Ok((Some("unable to parse requirement: found 'b', expected: ',' or ')'".into()), 0))
        );
        assert_eq!(
            sync("app:web", latest).map(|(e, _)| e.unwrap_or_default().starts_with(
                "unable to parse requirement: <nil>: Invalid value: \"app:web\": name part must consist of"
            )),
            Ok(true)
        );
        assert_eq!(sync("app=web,tier in (x,,)", latest), Ok((None, 1)));
        assert_eq!(
            sync("app=web,tier in (x,,)", KubernetesVersion::V1_34),
            Ok((Some("unable to parse requirement: found ')', expected: ',', or identifier".into()), 0))
        );
        assert_eq!(sync("app==web,!track", latest), Ok((None, 1)));
    }

    /// From files, a target written in one of Kubernetes' own groups that does not serve its
    /// kind is the RESTMapper's failure (`scale_unmapped`, `no matches for kind ...`), even where
    /// the files hold an object of that kind and name in another group or in that one; another
    /// HPA of such a target selects nothing.
    #[test]
    fn a_target_kind_its_group_does_not_serve_is_unmapped() {
        use serde_json::json;
        let hpa = |name: &str, api_version: &str| {
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {"scaleTargetRef": {"apiVersion": api_version, "kind": "Deployment", "name": "web"},
                    "minReplicas": 1, "maxReplicas": 5}})
        };
        let deployment = |api_version: &str| {
            json!({"apiVersion": api_version, "kind": "Deployment", "metadata": {"name": "web", "namespace": "ns"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 2}})
        };
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web"}}});
        let sync = |items: Vec<Value>| {
            let objects = DiagnosisObjects::snapshot(items, KubernetesVersion::LATEST);
            inputs_from_objects(&objects, "ns", "web", Timestamp::from_secs(0))
                .map(|i| (i.sync.scale.map(|s| s.spec_replicas).map_err(|e| e.0), i.sync.scale_unmapped))
                .map_err(|e| e.to_string())
        };
        let unmapped =
            |group: &str| Ok((Err(format!("no matches for kind \"Deployment\" in group \"{group}\"")), true));
        for held in ["apps/v1", "extensions/v1beta1"] {
            assert_eq!(sync(vec![hpa("web", "extensions/v1beta1"), deployment(held)]), unmapped("extensions"));
        }
        assert_eq!(sync(vec![hpa("web", "extensions/v1beta1")]), unmapped("extensions"));
        assert_eq!(sync(vec![hpa("web", "apps"), deployment("apps/v1")]), unmapped(""));
        assert_eq!(sync(vec![hpa("web", "apps/v1beta2"), deployment("apps/v1")]), Ok((Ok(2), false)));
        let other = DiagnosisObjects::snapshot(
            vec![hpa("web", "apps/v1"), hpa("old", "extensions/v1beta1"), deployment("apps/v1"), pod],
            KubernetesVersion::LATEST,
        );
        let inputs = inputs_from_objects(&other, "ns", "web", Timestamp::from_secs(0)).map_err(|e| e.to_string());
        assert_eq!(inputs.map(|i| (i.sync.pods.len(), i.sync.other_hpas_selecting_pods)), Ok((1, Vec::new())));
    }

    /// A target kind written all in lowercase is the kind the RESTMapper maps it to: its scale
    /// is read; another case maps to nothing.
    #[test]
    fn a_target_kind_in_lowercase_is_the_kind() {
        use serde_json::json;
        let sync = |kind: &str| {
            let items = vec![
                json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                    "metadata": {"name": "web", "namespace": "ns"},
                    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": "web"},
                        "minReplicas": 1, "maxReplicas": 5}}),
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "ns"},
                    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 2}}),
            ];
            let objects = DiagnosisObjects::snapshot(items, KubernetesVersion::LATEST);
            inputs_from_objects(&objects, "ns", "web", Timestamp::from_secs(0))
                .map(|i| (i.sync.scale.map(|s| s.spec_replicas).map_err(|e| e.0), i.sync.scale_unmapped))
                .map_err(|e| e.to_string())
        };
        assert_eq!(sync("deployment"), Ok((Ok(2), false)));
        assert_eq!(sync("DEPLOYMENT"), Ok((Err("no matches for kind \"DEPLOYMENT\" in group \"apps\"".into()), true)));
    }

    /// An HPA controller event read through `events.k8s.io/v1`: the legacy recorder leaves
    /// `eventTime` null and keeps its times and count in the `deprecated*` fields.
    #[test]
    fn events_in_either_api() {
        let core = event_from_json(&serde_json::json!({
            "type": "Normal", "reason": "SuccessfulRescale", "message": "New size: 4; reason: cpu resource utilization (percentage of request) above target",
            "count": 2, "firstTimestamp": "2026-03-02T10:00:00Z", "lastTimestamp": "2026-03-02T10:03:00Z"}));
        let events_v1 = event_from_json(&serde_json::json!({
            "type": "Normal", "reason": "SuccessfulRescale", "note": "New size: 4; reason: cpu resource utilization (percentage of request) above target",
            "eventTime": null, "deprecatedCount": 2,
            "deprecatedFirstTimestamp": "2026-03-02T10:00:00Z", "deprecatedLastTimestamp": "2026-03-02T10:03:00Z"}));
        assert_eq!(core, events_v1);
        assert_eq!(core.count, 2);
        assert!(core.first.is_some() && core.last.is_some() && core.first < core.last);
        let series = event_from_json(&serde_json::json!({
            "type": "Normal", "reason": "SuccessfulRescale", "note": "New size: 4",
            "eventTime": "2026-03-02T10:00:00.000000Z",
            "series": {"count": 3, "lastObservedTime": "2026-03-02T10:05:00.000000Z"}}));
        assert_eq!(series.count, 3);
        assert!(series.first < series.last);
    }

    /// One `PodMetrics` item decoded as the resource metrics client decodes its list: the
    /// item, or the error's field, value as written and message.
    fn pod_metrics(v: &Value) -> Result<PodMetricsItem, (String, Option<String>, String)> {
        decode_list::<metrics::PodMetricsList>(&[Item::Value(v)], KubernetesVersion::LATEST)
            .map(|mut l| pod_metrics_item(l.items.remove(0)))
            .map_err(|e| (e.field, e.written, e.message))
    }

    /// `window` as the resource metrics client decodes it (`metav1.Duration`): Go durations,
    /// absent as zero; anything else is the error that fails the whole list, in Go's words.
    #[test]
    fn pod_metrics_windows() {
        let window = |w: Option<Value>| {
            let mut v =
                serde_json::json!({"metadata": {"name": "p"}, "timestamp": "2026-03-02T10:00:00Z", "containers": []});
            if let Some(w) = w {
                v["window"] = w;
            }
            pod_metrics(&v).map(|m| m.window_nanos).map_err(|e| e.2)
        };
        use serde_json::json;
        assert_eq!(window(Some(json!("30s"))), Ok(30_000_000_000));
        assert_eq!(window(Some(json!("1m0.5s"))), Ok(60_500_000_000));
        assert_eq!(window(Some(json!("500ms"))), Ok(500_000_000));
        assert_eq!(window(Some(json!("-30s"))), Ok(-30_000_000_000));
        assert_eq!(window(None), Ok(0));
        assert_eq!(window(Some(json!("30"))), Err("time: missing unit in duration \"30\"".to_string()));
        assert_eq!(window(Some(json!("x"))), Err("time: invalid duration \"x\"".to_string()));
        assert_eq!(window(Some(Value::Null)), Err("time: invalid duration \"\"".to_string()));
        assert_eq!(
            window(Some(json!(30))),
            Err("json: cannot unmarshal number into Go struct field PodMetrics.items.window of type string".to_string())
        );
    }

    /// `timestamp` and the usage quantities as the client decodes them: the error, with its
    /// field, fails the list; `null` usage is a zero sample.
    #[test]
    fn pod_metrics_timestamps_and_usage() {
        use serde_json::json;
        let item = |timestamp: Value, cpu: Value| {
            pod_metrics(&json!({"metadata": {"name": "p"}, "timestamp": timestamp, "window": "30s",
                "containers": [{"name": "c", "usage": {"cpu": cpu}}]}))
        };
        let ok = item(json!("2026-03-02T10:00:00Z"), json!(5)).unwrap();
        assert_eq!(ok.containers[0].usage_milli.get("cpu"), Some(&5000));
        assert_eq!(
            item(json!("2026-03-02T10:00:00Z"), Value::Null).unwrap().containers[0].usage_milli.get("cpu"),
            Some(&0)
        );
        assert_eq!(
            item(json!("yesterday"), json!("1")).unwrap_err(),
            (
                "timestamp".into(),
                Some("\"yesterday\"".into()),
                "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\""
                    .into()
            )
        );
        assert_eq!(
            item(json!("2026-03-02T10:00:00Z"), json!("5 cores")).unwrap_err(),
            (
                "containers[0].usage.cpu".into(),
                Some("\"5 cores\"".into()),
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'".into()
            )
        );
    }

    /// Two External metrics of one name and another selector are two answers, keyed by name and
    /// selector (the same twice is one); items recording another metric selector are not a Pods
    /// metric's answer.
    #[test]
    fn metric_selectors() {
        let spec = |name: &str, selector: serde_json::Value| MetricIdentifier {
            name: name.into(),
            selector: Some(selector_from_json(&selector)),
        };
        let (a, b) = (
            spec("q", serde_json::json!({"matchLabels": {"queue": "a"}})),
            spec("q", serde_json::json!({"matchLabels": {"queue": "b"}})),
        );
        let kept = distinct_metrics([&a, &b, &a].into_iter());
        let id = |selector: &str| MetricId { name: "q".into(), selector: selector.into() };
        assert_eq!(kept, vec![(&a, id("queue=a")), (&b, id("queue=b"))]);

        let item = |selector: serde_json::Value| serde_json::json!({"metric": {"name": "q", "selector": selector}});
        assert!(same_metric_selector(&item(serde_json::json!({"matchLabels": {"queue": "a"}})), a.selector.as_ref()));
        assert!(!same_metric_selector(&item(serde_json::json!({"matchLabels": {"queue": "b"}})), a.selector.as_ref()));
        assert!(same_metric_selector(&item(serde_json::Value::Null), a.selector.as_ref()));
        assert!(same_metric_selector(&item(serde_json::json!({})), None));
        // v1beta1 records it beside `metricName`.
        assert!(!same_metric_selector(
            &serde_json::json!({"metricName": "q", "selector": {"matchLabels": {"x": "y"}}}),
            None
        ));
    }

    /// New pods get what kube-apiserver admits from the target's template: a limit stands for
    /// a missing request (`SetDefaults_Pod`), a LimitRange of the namespace fills the rest, a
    /// sidecar counts among the init containers in their order.
    #[test]
    fn new_pods_are_made_from_the_admitted_template() {
        let deployment = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"template": {"spec": {
                "initContainers": [{"name": "init", "resources": {"requests": {"cpu": "1"}}},
                                   {"name": "proxy", "restartPolicy": "Always", "resources": {"limits": {"cpu": "50m"}}}],
                "containers": [{"name": "app", "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}}},
                               {"name": "log"}]}}}});
        let range = serde_json::json!({"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "defaults", "namespace": "shop"},
            "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]}});
        let elsewhere = serde_json::json!({"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "defaults", "namespace": "other"},
            "spec": {"limits": [{"type": "Container", "defaultRequest": {"memory": "1Mi"}}]}});
        let items = [&deployment, &range, &elsewhere];
        let t = admitted_template(&deployment, &items, "shop", KubernetesVersion::LATEST).unwrap();
        let requests = |cs: &[Container]| {
            cs.iter().map(|c| (c.name.clone(), c.requests_milli.clone(), c.restart_policy.clone())).collect::<Vec<_>>()
        };
        let milli = |pairs: &[(&str, i64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>();
        assert_eq!(
            requests(&t.containers),
            [
                ("app".to_string(), milli(&[("cpu", 500), ("memory", 1_073_741_824_000)]), None),
                ("log".to_string(), milli(&[("cpu", 100)]), None),
            ]
        );
        assert_eq!(
            requests(&t.init_containers),
            [
                ("init".to_string(), milli(&[("cpu", 1000)]), None),
                ("proxy".to_string(), milli(&[("cpu", 50)]), Some("Always".to_string())),
            ]
        );
        assert!(t.pod_requests_milli.is_empty() && t.overhead_milli.is_empty());
    }

    /// New pods get the overhead of the RuntimeClass their template names (admission's
    /// `spec.overhead`), read from the items like the rest; another RuntimeClass gives none.
    #[test]
    fn new_pods_get_their_runtime_class_overhead() {
        let deployment = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"template": {"spec": {"runtimeClassName": "kata", "resources": {"requests": {"memory": "1Gi"}},
                "containers": [{"name": "app"}]}}}});
        let kata = serde_json::json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": "kata"}, "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}});
        let gvisor = serde_json::json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": "gvisor"}, "handler": "runsc", "overhead": {"podFixed": {"cpu": "1"}}});
        let t =
            admitted_template(&deployment, &[&deployment, &gvisor, &kata], "shop", KubernetesVersion::LATEST).unwrap();
        assert_eq!(
            t.overhead_milli,
            BTreeMap::from([("cpu".to_string(), 250), ("memory".to_string(), 125_829_120_000)])
        );
        let t = admitted_template(&deployment, &[&deployment, &gvisor], "shop", KubernetesVersion::LATEST).unwrap();
        assert!(t.overhead_milli.is_empty());
    }

    /// A custom resource's `spec.template` is not taken for its pods' (its operator makes them
    /// as it decides): no template, and a note that says so; an Argo Rollout's `workloadRef`
    /// gives the template of the workload it names, when that one is among the items.
    #[test]
    fn a_custom_resource_template_is_not_guessed() {
        let template =
            serde_json::json!({"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "2"}}}]}});
        let worker = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Worker",
            "metadata": {"name": "w", "namespace": "shop"}, "spec": {"replicas": 2, "template": template}});
        let t = admitted_template(&worker, &[&worker], "shop", KubernetesVersion::LATEST);
        assert_eq!(t, Err(UnknownTemplate::CustomResource));
        let note = unknown_template_note(&UnknownTemplate::CustomResource, "Worker", "shop", "w").unwrap();
        assert!(note.starts_with("the scale target Worker shop/w is a custom resource"), "{note}");

        let rollout = serde_json::json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
            "metadata": {"name": "r", "namespace": "shop"},
            "spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}});
        let web = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 0, "template": template}});
        let t = admitted_template(&rollout, &[&rollout, &web], "shop", KubernetesVersion::LATEST).unwrap();
        assert_eq!(
            t.containers.first().map(|c| c.requests_milli.clone()),
            Some(BTreeMap::from([("cpu".to_string(), 2000)]))
        );
        let t = admitted_template(&rollout, &[&rollout], "shop", KubernetesVersion::LATEST);
        assert_eq!(t, Err(UnknownTemplate::Referenced("Deployment shop/web".into())));
        // Its own template, once it names a workload, is not the pods' either.
        let in_other = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "other"}, "spec": {"template": template}});
        assert!(admitted_template(&rollout, &[&rollout, &in_other], "shop", KubernetesVersion::LATEST).is_err());
    }

    /// `chooseVersion`: the preferred version when the client speaks it, else the first
    /// listed one it speaks, else its error.
    #[test]
    fn custom_metrics_versions() {
        let group = |preferred: &str, versions: &[&str]| ApiGroup {
            name: CUSTOM_METRICS_GROUP.into(),
            preferred: preferred.into(),
            versions: versions.iter().map(|v| v.to_string()).collect(),
        };
        assert_eq!(custom_metrics_version(&group("v1beta2", &["v1beta2", "v1beta1"])), Ok("v1beta2"));
        assert_eq!(custom_metrics_version(&group("v1beta1", &["v1beta2", "v1beta1"])), Ok("v1beta1"));
        assert_eq!(custom_metrics_version(&group("v1beta3", &["v1beta3", "v1beta1", "v1beta2"])), Ok("v1beta1"));
        assert_eq!(custom_metrics_version(&group("", &["v1beta2"])), Ok("v1beta2"));
        assert_eq!(custom_metrics_version(&group("v1alpha1", &["v1alpha1"])), Err(NoCustomMetricsVersion::NoneKnown));
        assert_eq!(NoCustomMetricsVersion::NoneKnown.to_string(), "no known available metric versions found");
        assert_eq!(
            NoCustomMetricsVersion::NotRegistered.to_string(),
            "no custom metrics API (custom.metrics.k8s.io) registered"
        );
    }

    #[test]
    fn plurals() {
        let mice = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "mice.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Mouse", "plural": "mice"},
                "versions": [{"name": "v1", "served": true, "storage": true}]}});
        assert_eq!(snapshot_resource(&[&mice], "example.com", "Mouse"), "mice.example.com");
        assert_eq!(snapshot_resource(&[&mice], "other.example.com", "Mouse"), "mouses.other.example.com");
        assert_eq!(snapshot_resource(&[], "example.com", "Mouse"), "mouses.example.com");
        assert_eq!(snapshot_resource(&[&mice], "apps", "Deployment"), "deployments.apps");
        assert_eq!(snapshot_resource(&[], "", "Service"), "services");
        assert_eq!(plural_of("Service"), "services");
        assert_eq!(plural_of("Ingress"), "ingresses");
        assert_eq!(plural_of("Gateway"), "gateways");
        assert_eq!(plural_of("Policy"), "policies");
    }

    /// A custom-resource target the snapshot lacks is named as the controller's scale client
    /// hears it from kube-apiserver: by its group and resource (`Store.qualifiedResourceFromContext`),
    /// the CRD's plural when the snapshot has it, else the English plural; and a kind written all
    /// in lowercase is the custom kind the snapshot shows served (the RESTMapper's alias).
    #[test]
    fn a_missing_custom_target_is_named_by_its_resource() {
        let other = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Mouse",
            "metadata": {"name": "other", "namespace": "shop"}});
        let mice = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "mice.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Mouse", "plural": "mice"},
                "versions": [{"name": "v1", "served": true, "storage": true}]}});
        let missing = |items: &[&Value], kind: &str| match scale_of(
            items,
            "shop",
            "example.com/v1",
            kind,
            "m",
            &mut Vec::new(),
        ) {
            Err(e) => e.to_string(),
            Ok(_) => "found".into(),
        };
        assert!(missing(&[&other], "Mouse").contains("mouses.example.com \"m\""), "{}", missing(&[&other], "Mouse"));
        assert!(missing(&[&other, &mice], "Mouse").contains("mice.example.com \"m\""));

        let target = |kind: &str| hpa_core::api::CrossVersionObjectReference {
            api_version: "example.com/v1".into(),
            kind: kind.into(),
            name: "m".into(),
        };
        assert_eq!(snapshot_mapped_target(&target("mouse"), &[&other]).kind, "Mouse");
        assert_eq!(snapshot_mapped_target(&target("mouse"), &[&mice]).kind, "Mouse");
        assert_eq!(snapshot_mapped_target(&target("mouse"), &[]).kind, "mouse");
        assert_eq!(snapshot_mapped_target(&target("MOUSE"), &[&other, &mice]).kind, "MOUSE");
        let elsewhere = serde_json::json!({"apiVersion": "other.example.com/v1", "kind": "Mouse",
            "metadata": {"name": "m", "namespace": "shop"}});
        assert_eq!(snapshot_mapped_target(&target("mouse"), &[&elsewhere]).kind, "mouse");
        assert_eq!(snapshot_mapped_target(&target("deployment"), &[]).kind, "deployment");
        let apps = hpa_core::api::CrossVersionObjectReference { api_version: "apps/v1".into(), ..target("deployment") };
        assert_eq!(snapshot_mapped_target(&apps, &[]).kind, "Deployment");
    }
}
