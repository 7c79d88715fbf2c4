//! Prometheus metrics: requests by endpoint, operation and outcome, their latency, the serving
//! certificate's expiry, reloads, and the context cache (objects, sync state and time since the
//! last event per watch, stale and partial views, cross-object findings by rule); in OpenMetrics
//! or the classic text format, as the scraper asks ([`ExpositionFormat::negotiate`]).

use std::fmt;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use std::sync::atomic::AtomicU64;

use hpa_cluster::inventory::TargetRead;
use hpa_cluster::watch::{Phase, State, WatchStatus};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::admission::ContextReport;

/// An exposition format of /metrics, chosen by the scraper's `Accept` header
/// ([`ExpositionFormat::negotiate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpositionFormat {
    /// OpenMetrics 1.0.0 text, for a scraper that asks for it (Prometheus does).
    OpenMetrics,
    /// The classic Prometheus text format 0.0.4, for any other scraper (`curl`, older agents).
    Text,
}

impl ExpositionFormat {
    /// The format an `Accept` header asks for, as client_golang's promhttp negotiates it with
    /// OpenMetrics enabled (`expfmt.NegotiateIncludingOpenMetrics`): the media ranges in order
    /// of preference (highest `q` first, ties in the order written; `q=0` refuses one), the first
    /// that is `application/openmetrics-text` (`version` 1.0.0, 0.0.1 or none: both are answered
    /// as 1.0.0) or `text/plain` (`version` 0.0.4 or none) decides; anything else, or no header,
    /// is the text format.
    pub fn negotiate(accept: Option<&str>) -> ExpositionFormat {
        let mut ranges: Vec<(f64, ExpositionFormat)> = Vec::new();
        for range in accept.unwrap_or("").split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("");
            let (mut q, mut version) = (1.0, "");
            for param in parts {
                let Some((key, value)) = param.split_once('=') else { break };
                match key.trim() {
                    "q" => q = value.trim().parse().unwrap_or(0.0),
                    "version" => version = value.trim(),
                    _ => {}
                }
            }
            let format = if media.eq_ignore_ascii_case("application/openmetrics-text")
                && matches!(version, "1.0.0" | "0.0.1" | "")
            {
                ExpositionFormat::OpenMetrics
            } else if media.eq_ignore_ascii_case("text/plain") && matches!(version, "0.0.4" | "") {
                ExpositionFormat::Text
            } else {
                continue;
            };
            if q > 0.0 {
                ranges.push((q, format));
            }
        }
        // Stable: equal preferences keep the order written.
        ranges.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranges.first().map_or(ExpositionFormat::Text, |(_, f)| *f)
    }

    /// The `Content-Type` of an exposition in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            ExpositionFormat::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            ExpositionFormat::Text => "text/plain; version=0.0.4; charset=utf-8",
        }
    }
}

/// A content coding of /metrics, chosen by the scraper's `Accept-Encoding` header
/// ([`Encoding::negotiate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// The body as it is (no `Content-Encoding`).
    Identity,
    /// gzip (`Content-Encoding: gzip`), for a scraper that asks for it (Prometheus does).
    Gzip,
}

impl Encoding {
    /// The coding the `Accept-Encoding` header values ask for, as client_golang's promhttp
    /// chooses among its default offers, `identity` then `gzip` (`negotiateEncodingWriter` over
    /// gddo's `httputil.NegotiateContentEncoding` and `header.ParseAccept`): every coding of
    /// every value is read with its `q` (1 without one); for each offer in that order, a coding
    /// equal to it (case-sensitive) or `*` whose `q` is above the best so far becomes the best.
    /// So `gzip` is chosen only when written with a `q` above that of `identity` and `*`
    /// (`gzip, identity` stays identity); a best `q` of 0 is no agreement, which promhttp
    /// answers without compression. A value is read up to the first thing ParseAccept does not
    /// take (a parameter other than `q`, a malformed `q`): the codings before it count.
    pub fn negotiate<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Encoding {
        let mut specs = Vec::new();
        for value in values {
            accept_specs(value, &mut specs);
        }
        let (mut best, mut best_q) = (Encoding::Identity, -1.0);
        for offer in [Encoding::Identity, Encoding::Gzip] {
            for (coding, q) in &specs {
                if *q > best_q && (*coding == b"*" || *coding == offer.token().as_bytes()) {
                    best_q = *q;
                    best = offer;
                }
            }
        }
        if best_q == 0.0 { Encoding::Identity } else { best }
    }

    /// Its name in `Accept-Encoding` and `Content-Encoding`.
    pub fn token(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
        }
    }

    /// `body` in this coding, at the default level, as promhttp's `gzip.NewWriter` writes it;
    /// `None` for identity, or should the encoder fail (promhttp then answers uncompressed).
    pub fn encode(self, body: &[u8]) -> Option<Vec<u8>> {
        use std::io::Write;
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 4), flate2::Compression::default());
                encoder.write_all(body).ok()?;
                encoder.finish().ok()
            }
        }
    }
}

/// Appends the codings of one `Accept-Encoding` value and their `q`, as gddo's
/// `header.ParseAccept` reads them: a token (slashes allowed), then optionally `;q=` and a
/// quality; anything else ends the value, and a coding whose parameter is not a valid `q` is
/// dropped with the rest.
fn accept_specs<'a>(value: &'a [u8], specs: &mut Vec<(&'a [u8], f64)>) {
    let mut s = value;
    loop {
        let end = s.iter().position(|b| !is_token(*b) && *b != b'/').unwrap_or(s.len());
        let (coding, rest) = s.split_at(end);
        if coding.is_empty() {
            return;
        }
        let mut q = 1.0;
        s = skip_space(rest);
        if let Some(rest) = s.strip_prefix(b";") {
            let Some(rest) = skip_space(rest).strip_prefix(b"q=") else { return };
            let Some((quality, rest)) = quality(rest) else { return };
            q = quality;
            s = rest;
        }
        specs.push((coding, q));
        let Some(rest) = skip_space(s).strip_prefix(b",") else { return };
        s = skip_space(rest);
    }
}

/// gddo's `expectQuality`: `0` or `1`, then optionally `.` and digits (read as a fraction,
/// with Go's wrapping integers); `None` for anything else.
fn quality(s: &[u8]) -> Option<(f64, &[u8])> {
    let q = match s.first()? {
        b'0' => 0.0,
        b'1' => 1.0,
        _ => return None,
    };
    let Some(s) = s[1..].strip_prefix(b".") else { return Some((q, &s[1..])) };
    let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let (mut n, mut d) = (0i64, 1i64);
    for b in &s[..digits] {
        n = n.wrapping_mul(10).wrapping_add(i64::from(b - b'0'));
        d = d.wrapping_mul(10);
    }
    Some((q + n as f64 / d as f64, &s[digits..]))
}

/// An RFC 2616 token character (gddo's `isToken`): US-ASCII, no control, no separator.
fn is_token(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_control() && !b" \t\"(),/:;<=>?@[]\\{}".contains(&b)
}

/// `s` after its leading spaces, tabs, carriage returns and line feeds (gddo's `skipSpace`).
fn skip_space(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|b| !b" \t\r\n".contains(b)).unwrap_or(s.len());
    &s[start..]
}

/// Upper bounds of the latency buckets, in seconds (100 µs to 5 s).
const LATENCY_BUCKETS: [f64; 15] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0];

macro_rules! label_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// The label value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl EncodeLabelValue for $name {
            fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
                fmt::Write::write_str(encoder, self.as_str())
            }
        }
    };
}

label_enum! {
    /// The admission endpoint.
    Endpoint {
        /// `POST /validate`
        Validate => "validate",
        /// `POST /mutate`
        Mutate => "mutate",
        /// `POST /validate-workloads`
        ValidateWorkloads => "validate_workloads",
    }
}

label_enum! {
    /// The request's operation.
    OperationLabel {
        /// `CREATE`
        Create => "CREATE",
        /// `UPDATE`
        Update => "UPDATE",
        /// `DELETE`
        Delete => "DELETE",
        /// `CONNECT`
        Connect => "CONNECT",
        /// Not known (unreadable request, or an unknown operation).
        Unknown => "unknown",
    }
}

label_enum! {
    /// How a request ended.
    OutcomeLabel {
        /// Admitted unchanged.
        Allowed => "allowed",
        /// Admitted with a patch.
        Patched => "patched",
        /// Denied: the HPA is invalid or breaks the policy.
        Denied => "denied",
        /// The review was malformed (HTTP 400, or `allowed: false` with a uid).
        Invalid => "invalid",
        /// Not ours: another resource, kind or operation, admitted untouched.
        Skipped => "skipped",
        /// The body was larger than the limit (HTTP 413).
        TooLarge => "too_large",
        /// The request missed its deadline (HTTP 503).
        Timeout => "timeout",
        /// Reviewing it met a bug (HTTP 500): kube-apiserver applies the failure policy.
        Internal => "internal_error",
    }
}

label_enum! {
    /// What was reloaded.
    Reloaded {
        /// The serving certificate and key.
        Certificate => "certificate",
        /// The organization policy.
        Policy => "policy",
        /// The lint configuration (`--lint-config`).
        LintConfig => "lint_config",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RequestLabels {
    endpoint: Endpoint,
    operation: OperationLabel,
    outcome: OutcomeLabel,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct EndpointLabels {
    endpoint: Endpoint,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct EndpointResourceLabels {
    endpoint: Endpoint,
    resource: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ResourceLabels {
    resource: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StateLabels {
    resource: String,
    state: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct LeftOutLabels {
    resource: String,
    reason: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RuleLabels {
    rule: &'static str,
}

label_enum! {
    /// What the read of an HPA's scale target at admission answered
    /// ([`ClusterContext::read_target`](crate::context::ClusterContext::read_target)).
    TargetReadResult {
        /// It exists.
        Found => "found",
        /// It does not exist: the `GET` answered 404, or the LIST by name no item.
        NotFound => "not_found",
        /// 403: RBAC refuses the read.
        Refused => "refused",
        /// No answer within [`target_read_timeout`](crate::context::target_read_timeout).
        Timeout => "timeout",
        /// The API server answered with another error.
        Error => "error",
    }
}

label_enum! {
    /// How an HPA's scale target was read at admission
    /// ([`ClusterContext::read_target`](crate::context::ClusterContext::read_target)).
    TargetReadVerb {
        /// A custom resource (the cache watches none): `GET` of it.
        Get => "get",
        /// A watched kind's target the cache lacks: LIST of its kind by name.
        List => "list",
    }
}

impl TargetReadVerb {
    /// The request that answered `read`: a LIST for the kinds the cache watches
    /// ([`kinds::workload`](hpa_cluster::kinds::workload)), a `GET` for a custom resource.
    pub fn of(read: &TargetRead) -> TargetReadVerb {
        let id = read.id();
        let group = hpa_core::api::GroupVersion::parse_or_empty(&id.api_version).group();
        match hpa_cluster::kinds::workload(group, &id.kind) {
            Some(_) => TargetReadVerb::List,
            None => TargetReadVerb::Get,
        }
    }
}

impl TargetReadResult {
    /// The result of `read`.
    pub fn of(read: &TargetRead) -> TargetReadResult {
        match read {
            TargetRead::Found(..) => TargetReadResult::Found,
            TargetRead::Absent(_) | TargetRead::NotServed(_) => TargetReadResult::NotFound,
            TargetRead::Refused(..) => TargetReadResult::Refused,
            TargetRead::TimedOut(..) => TargetReadResult::Timeout,
            TargetRead::Failed(..) => TargetReadResult::Error,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct TargetReadLabels {
    verb: TargetReadVerb,
    result: TargetReadResult,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ReloadLabels {
    what: Reloaded,
    result: ReloadResult,
}

label_enum! {
    /// Whether a reload worked.
    ReloadResult {
        /// A new version is in force.
        Success => "success",
        /// The new version was refused; the old one stays in force.
        Failure => "failure",
    }
}

/// Every metric of the server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    duration: Family<EndpointLabels, Histogram, fn() -> Histogram>,
    certificate_expiry: Gauge,
    reloads: Family<ReloadLabels, Counter>,
    context_objects: Family<ResourceLabels, Gauge>,
    context_synced: Family<ResourceLabels, Gauge>,
    context_refused: Family<ResourceLabels, Gauge>,
    context_state: Family<StateLabels, Gauge>,
    context_since_event: Family<ResourceLabels, Gauge<f64, AtomicU64>>,
    context_since_heard: Family<ResourceLabels, Gauge<f64, AtomicU64>>,
    context_broken: Family<ResourceLabels, Gauge<f64, AtomicU64>>,
    stale_views: Family<EndpointLabels, Counter>,
    partial_views: Family<EndpointResourceLabels, Counter>,
    context_left_out: Family<LeftOutLabels, Gauge>,
    context_ignored_fields: Family<ResourceLabels, Gauge>,
    findings: Family<RuleLabels, Counter>,
    target_reads: Family<TargetReadLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Registers every metric under the `hpa_webhook_` prefix.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("hpa_webhook");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("requests", "AdmissionReview requests by endpoint, operation and outcome", requests.clone());
        let duration: Family<EndpointLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS));
        registry.register_with_unit(
            "request_duration",
            "Time to answer an AdmissionReview, from the complete body to the response",
            Unit::Seconds,
            duration.clone(),
        );
        let certificate_expiry = Gauge::default();
        registry.register_with_unit(
            "certificate_expiry_timestamp",
            "notAfter of the serving certificate in force, in Unix seconds",
            Unit::Seconds,
            certificate_expiry.clone(),
        );
        let reloads = Family::<ReloadLabels, Counter>::default();
        registry.register(
            "reloads",
            concat!(
                "Loads of the certificate (its first one too), the policy and the lint configuration after their ",
                "files changed, by what and result (failure: the version in force stays)",
            ),
            reloads.clone(),
        );
        let context_objects = Family::<ResourceLabels, Gauge>::default();
        registry.register(
            "context_objects",
            "Objects in the context cache, by watched resource",
            context_objects.clone(),
        );
        let context_synced = Family::<ResourceLabels, Gauge>::default();
        registry.register(
            "context_synced",
            "1 when the watch of a resource has listed it (its objects are in the cache), else 0",
            context_synced.clone(),
        );
        let context_refused = Family::<ResourceLabels, Gauge>::default();
        registry.register(
            "context_refused",
            "1 when RBAC refuses to watch a resource (skipped until the next re-check)",
            context_refused.clone(),
        );
        let context_state = Family::<StateLabels, Gauge>::default();
        registry.register(
            "context_watch_state",
            "1 for the state the watch of a resource is in (absent: optional CRD not installed, refused: RBAC, syncing, synced, broken: failing, stale: silent past --context-stale-after), 0 for the others",
            context_state.clone(),
        );
        let context_since_event = Family::<ResourceLabels, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "context_since_last_event",
            "Time since the watch of a resource last delivered a change (an ADDED, MODIFIED or DELETED event)",
            Unit::Seconds,
            context_since_event.clone(),
        );
        let context_since_heard = Family::<ResourceLabels, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "context_since_heard",
            "Time since the watch of a resource was last heard from (an event, a bookmark, a new watch): stale past --context-stale-after",
            Unit::Seconds,
            context_since_heard.clone(),
        );
        let context_broken = Family::<ResourceLabels, Gauge<f64, AtomicU64>>::default();
        registry.register_with_unit(
            "context_watch_broken",
            "How long the watch of a resource has been failing (0 while it works)",
            Unit::Seconds,
            context_broken.clone(),
        );
        let context_left_out = Family::<LeftOutLabels, Gauge>::default();
        registry.register(
            "context_left_out",
            "HPAs left out of the context cache because hpa-core cannot read them (their cross-object checks do not run), by reason",
            context_left_out.clone(),
        );
        let context_ignored_fields = Family::<ResourceLabels, Gauge>::default();
        registry.register(
            "context_ignored_fields",
            "HPAs in the context cache with fields the selected Kubernetes release's types do not have (ignored, as that release's controller ignores them; each logged once)",
            context_ignored_fields.clone(),
        );
        let stale_views = Family::<EndpointLabels, Counter>::default();
        registry.register(
            "context_stale_views",
            "Reviews answered without cross-object checks because the context cache was stale",
            stale_views.clone(),
        );
        let partial_views = Family::<EndpointResourceLabels, Counter>::default();
        registry.register(
            "context_partial_views",
            "Reviews whose cross-object rules read a resource RBAC refuses to watch (checked in part, said in a warning), by resource",
            partial_views.clone(),
        );
        let findings = Family::<RuleLabels, Counter>::default();
        registry.register(
            "cross_object_findings",
            "Findings of cross-object rules reported at admission (warnings and denials), by rule",
            findings.clone(),
        );
        let target_reads = Family::<TargetReadLabels, Counter>::default();
        registry.register(
            "target_reads",
            "Reads of an HPA's scale target at admission, by verb (get: a custom resource, which the cache does not watch; list: a watched kind's target the cache lacks, by name) and result",
            target_reads.clone(),
        );
        Metrics {
            registry,
            requests,
            duration,
            certificate_expiry,
            reloads,
            context_objects,
            context_synced,
            context_refused,
            context_state,
            context_since_event,
            context_since_heard,
            context_broken,
            stale_views,
            partial_views,
            context_left_out,
            context_ignored_fields,
            findings,
            target_reads,
        }
    }

    /// Counts one `GET` of an HPA's scale target at admission.
    pub fn target_read(&self, read: &TargetRead) {
        // Known without a request: nothing was read.
        if matches!(read, TargetRead::NotServed(_)) {
            return;
        }
        let labels = TargetReadLabels { verb: TargetReadVerb::of(read), result: TargetReadResult::of(read) };
        self.target_reads.get_or_create(&labels).inc();
    }

    /// Records what the cluster context did for one review: a stale view, the refused kinds its
    /// cross-object rules read, its cross-object findings.
    pub fn context(&self, endpoint: Endpoint, report: &ContextReport) {
        if report.stale {
            self.stale_views.get_or_create(&EndpointLabels { endpoint }).inc();
        }
        for kind in &report.partial {
            self.partial_views.get_or_create(&EndpointResourceLabels { endpoint, resource: kind.resource() }).inc();
        }
        for rule in &report.findings {
            self.findings.get_or_create(&RuleLabels { rule }).inc();
        }
    }

    /// Sets the context cache's gauges from the state of its watches (`stale_after`: the bound
    /// past which a silent watch is stale).
    pub fn set_watches(&self, watches: &[WatchStatus], stale_after: Duration) {
        // The reasons present now, and no others (a fixed HPA no longer counts).
        self.context_left_out.clear();
        for w in watches {
            for (reason, n) in &w.left_out {
                let labels = LeftOutLabels { resource: w.kind.resource(), reason };
                self.context_left_out.get_or_create(&labels).set(i64::try_from(*n).unwrap_or(i64::MAX));
            }
            let labels = ResourceLabels { resource: w.kind.resource() };
            if w.kind == hpa_cluster::kinds::HPA {
                self.context_ignored_fields
                    .get_or_create(&labels)
                    .set(i64::try_from(w.ignored_fields).unwrap_or(i64::MAX));
            }
            self.context_objects.get_or_create(&labels).set(i64::try_from(w.objects).unwrap_or(i64::MAX));
            self.context_synced.get_or_create(&labels).set(i64::from(w.synced));
            self.context_refused.get_or_create(&labels).set(i64::from(w.phase == Phase::Forbidden));
            let now = w.state(stale_after);
            for state in State::ALL {
                let labels = StateLabels { resource: w.kind.resource(), state: state.as_str() };
                self.context_state.get_or_create(&labels).set(i64::from(state == now));
            }
            if let Some(since) = w.since_last_event {
                self.context_since_event.get_or_create(&labels).set(since.as_secs_f64());
            }
            if let Some(since) = w.since_heard {
                self.context_since_heard.get_or_create(&labels).set(since.as_secs_f64());
            }
            self.context_broken.get_or_create(&labels).set(w.broken_for.map_or(0.0, |d| d.as_secs_f64()));
        }
    }

    /// Counts one answered review and records how long answering took.
    pub fn observe(&self, endpoint: Endpoint, operation: OperationLabel, outcome: OutcomeLabel, elapsed: Duration) {
        self.count(endpoint, operation, outcome);
        self.duration.get_or_create(&EndpointLabels { endpoint }).observe(elapsed.as_secs_f64());
    }

    /// Counts one request refused before it could be read (too large, too slow, unreadable).
    pub fn count(&self, endpoint: Endpoint, operation: OperationLabel, outcome: OutcomeLabel) {
        self.requests.get_or_create(&RequestLabels { endpoint, operation, outcome }).inc();
    }

    /// Sets the expiry of the certificate in force.
    pub fn set_certificate_expiry(&self, not_after_unix: i64) {
        self.certificate_expiry.set(not_after_unix);
    }

    /// Counts a reload.
    pub fn reloaded(&self, what: Reloaded, success: bool) {
        let result = if success { ReloadResult::Success } else { ReloadResult::Failure };
        self.reloads.get_or_create(&ReloadLabels { what, result }).inc();
    }

    /// The exposition in `format`.
    pub fn render(&self, format: ExpositionFormat) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        match format {
            ExpositionFormat::OpenMetrics => out,
            ExpositionFormat::Text => openmetrics_to_text(&out),
        }
    }
}

/// The classic Prometheus text format (0.0.4) of an OpenMetrics exposition of counters, gauges
/// and histograms, as client_golang's `expfmt.MetricFamilyToText` writes the same families: a
/// counter's family is named with its `_total` suffix in `# HELP` and `# TYPE` (OpenMetrics
/// names the family without it; its samples have it in both), and there is no `# UNIT` line and
/// no `# EOF`. Samples, labels and their escaping are the same in both formats.
fn openmetrics_to_text(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> =
        openmetrics.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.strip_suffix(" counter")).collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line.starts_with("# UNIT ") || line == "# EOF" {
            continue;
        }
        let counter = ["# HELP ", "# TYPE "].into_iter().find_map(|comment| {
            let (name, rest) = line.strip_prefix(comment)?.split_once(' ')?;
            counters.contains(name).then(|| format!("{comment}{name}_total {rest}"))
        });
        out.push_str(counter.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_family() {
        let m = Metrics::new();
        m.observe(Endpoint::Validate, OperationLabel::Create, OutcomeLabel::Denied, Duration::from_micros(300));
        m.observe(Endpoint::Validate, OperationLabel::Create, OutcomeLabel::Denied, Duration::from_micros(30));
        m.observe(Endpoint::Mutate, OperationLabel::Create, OutcomeLabel::Patched, Duration::from_millis(2));
        m.count(Endpoint::Mutate, OperationLabel::Unknown, OutcomeLabel::TooLarge);
        m.set_certificate_expiry(1_900_000_000);
        m.reloaded(Reloaded::Certificate, true);
        let text = m.render(ExpositionFormat::OpenMetrics);
        for line in [
            "hpa_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\",outcome=\"denied\"} 2",
            "hpa_webhook_requests_total{endpoint=\"mutate\",operation=\"unknown\",outcome=\"too_large\"} 1",
            "hpa_webhook_requests_total{endpoint=\"mutate\",operation=\"CREATE\",outcome=\"patched\"} 1",
            "hpa_webhook_request_duration_seconds_bucket{le=\"0.0001\",endpoint=\"validate\"} 1",
            "hpa_webhook_request_duration_seconds_bucket{le=\"0.0005\",endpoint=\"validate\"} 2",
            "hpa_webhook_request_duration_seconds_count{endpoint=\"mutate\"} 1",
            "hpa_webhook_certificate_expiry_timestamp_seconds 1900000000",
            "hpa_webhook_reloads_total{what=\"certificate\",result=\"success\"} 1",
            "# EOF",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
    }

    /// The reads of scale targets at admission, by verb and result: a custom resource's `GET`, a
    /// watched kind's LIST; a call the client's bound cut short is a timeout, any other failure
    /// an error.
    #[test]
    fn counts_target_reads_by_verb_and_result() {
        let id = hpa_core::rules::ObjectId {
            api_version: "example.com/v1".into(),
            kind: "WorkerPool".into(),
            namespace: "batch".into(),
            name: "pinned".into(),
        };
        let web = hpa_core::rules::ObjectId {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: "shop".into(),
            name: "web".into(),
        };
        let m = Metrics::new();
        for read in [
            TargetRead::Absent(id.clone()),
            TargetRead::Absent(id.clone()),
            TargetRead::Refused(id.clone(), "get its scale target workerpools.example.com batch/pinned".into()),
            TargetRead::TimedOut(id.clone(), "the API server did not answer".into()),
            TargetRead::Failed(id, "the API server failed".into()),
            TargetRead::Absent(web.clone()),
            TargetRead::TimedOut(web, "the API server did not answer".into()),
        ] {
            m.target_read(&read);
        }
        let text = m.render(ExpositionFormat::Text);
        // Samples in the family's order (a hash map's): sorted.
        let mut reads: Vec<&str> = text.lines().filter(|l| l.contains("hpa_webhook_target_reads")).collect();
        reads.sort_unstable();
        assert_eq!(
            reads,
            [
                "# HELP hpa_webhook_target_reads_total Reads of an HPA's scale target at admission, by verb (get: a custom resource, which the cache does not watch; list: a watched kind's target the cache lacks, by name) and result.",
                "# TYPE hpa_webhook_target_reads_total counter",
                "hpa_webhook_target_reads_total{verb=\"get\",result=\"error\"} 1",
                "hpa_webhook_target_reads_total{verb=\"get\",result=\"not_found\"} 2",
                "hpa_webhook_target_reads_total{verb=\"get\",result=\"refused\"} 1",
                "hpa_webhook_target_reads_total{verb=\"get\",result=\"timeout\"} 1",
                "hpa_webhook_target_reads_total{verb=\"list\",result=\"not_found\"} 1",
                "hpa_webhook_target_reads_total{verb=\"list\",result=\"timeout\"} 1",
            ]
        );
    }

    /// The classic text format, for a scraper that does not ask for OpenMetrics: the same samples,
    /// a counter's family named with `_total`, no `# UNIT`, no `# EOF`.
    #[test]
    fn renders_the_classic_text_format() {
        let m = Metrics::new();
        m.observe(Endpoint::Validate, OperationLabel::Create, OutcomeLabel::Denied, Duration::from_micros(300));
        m.set_certificate_expiry(1_900_000_000);
        let text = m.render(ExpositionFormat::Text);
        let open = m.render(ExpositionFormat::OpenMetrics);
        let samples = |t: &str| t.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
        assert_eq!(samples(&text), samples(&open));
        for line in [
            "# HELP hpa_webhook_requests_total AdmissionReview requests by endpoint, operation and outcome.",
            "# TYPE hpa_webhook_requests_total counter",
            "hpa_webhook_requests_total{endpoint=\"validate\",operation=\"CREATE\",outcome=\"denied\"} 1",
            "# TYPE hpa_webhook_request_duration_seconds histogram",
            "# TYPE hpa_webhook_certificate_expiry_timestamp_seconds gauge",
            "hpa_webhook_certificate_expiry_timestamp_seconds 1900000000",
            "# TYPE hpa_webhook_context_stale_views_total counter",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(!text.contains("# UNIT") && !text.contains("# EOF"), "{text}");
        assert!(open.lines().any(|l| l == "# TYPE hpa_webhook_requests counter"), "{open}");
        assert!(open.lines().any(|l| l == "# UNIT hpa_webhook_request_duration_seconds seconds"), "{open}");
        assert_eq!(open.lines().last(), Some("# EOF"));
    }

    /// As promhttp negotiates with OpenMetrics enabled.
    #[test]
    fn the_format_follows_the_accept_header() {
        use ExpositionFormat::{OpenMetrics, Text};
        for (accept, format) in [
            (None, Text),
            (Some("*/*"), Text),
            (Some("text/plain"), Text),
            (Some("application/json"), Text),
            // Prometheus 3's scrape request.
            (
                Some(
                    "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1",
                ),
                OpenMetrics,
            ),
            (Some("application/openmetrics-text"), OpenMetrics),
            (Some("application/openmetrics-text; version=0.0.1"), OpenMetrics),
            (Some("application/openmetrics-text; version=2.0.0"), Text),
            (Some("text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5"), Text),
            (Some("text/plain;q=0.5, application/openmetrics-text"), OpenMetrics),
            (Some("application/openmetrics-text;q=0, text/plain;q=0.1"), Text),
            (Some("text/plain;version=1.0.0, application/openmetrics-text;q=0.2"), OpenMetrics),
        ] {
            assert_eq!(ExpositionFormat::negotiate(accept), format, "{accept:?}");
        }
        assert_eq!(Text.content_type(), "text/plain; version=0.0.4; charset=utf-8");
        assert_eq!(OpenMetrics.content_type(), "application/openmetrics-text; version=1.0.0; charset=utf-8");
    }

    /// As promhttp chooses between its default offers, identity and gzip (gddo's
    /// `NegotiateContentEncoding` over `ParseAccept`).
    #[test]
    fn the_encoding_follows_the_accept_encoding_header() {
        use Encoding::{Gzip, Identity};
        for (values, encoding) in [
            (&[][..], Identity),
            // Prometheus's scrape request.
            (&["gzip"][..], Gzip),
            // curl --compressed.
            (&["deflate, gzip, br, zstd"][..], Gzip),
            (&["br"][..], Identity),
            // `*` matches identity first, at the same q.
            (&["*"][..], Identity),
            (&["gzip, identity"][..], Identity),
            (&["identity;q=0.5, gzip"][..], Gzip),
            (&["gzip;q=0.8, *;q=0.5"][..], Gzip),
            (&["*;q=0.5, gzip;q=0.5"][..], Identity),
            (&["gzip;q=0"][..], Identity),
            (&["gzip;q=0, identity;q=0"][..], Identity),
            // Codings are compared as written; `q=` is lower case.
            (&["GZIP"][..], Identity),
            (&["gzip;Q=1"][..], Identity),
            // A parameter that is not q ends the value, the coding before it with it.
            (&["gzip;level=1"][..], Identity),
            (&["gzip ; q=1"][..], Gzip),
            (&["br, gzip;q=0.9 x"][..], Gzip),
            (&["identity;q=0.91, gzip;q=0.9"][..], Identity),
            (&["identity;q=0.9, gzip;q=0.91"][..], Gzip),
            (&["identity;q=.5, gzip"][..], Identity),
            // Every value of the header counts.
            (&["identity;q=0.2", "gzip;q=0.3"][..], Gzip),
        ] {
            assert_eq!(Encoding::negotiate(values.iter().map(|v| v.as_bytes())), encoding, "{values:?}");
        }
        assert_eq!(Identity.encode(b"x"), None);
    }

    #[test]
    fn hpas_left_out_of_the_cache_are_counted_by_reason_and_uncounted_once_gone() {
        let m = Metrics::new();
        let hpas = |left_out: Vec<(&'static str, usize)>, ignored_fields: usize| WatchStatus {
            kind: hpa_cluster::kinds::HPA,
            phase: Phase::Synced,
            synced: true,
            objects: 3,
            since_last_event: None,
            since_heard: None,
            broken_for: None,
            error: None,
            left_out,
            ignored_fields,
        };
        m.set_watches(&[hpas(vec![("InvalidValue", 2), ("Unconvertible", 1)], 4)], Duration::from_secs(30));
        let text = m.render(ExpositionFormat::OpenMetrics);
        for line in [
            "hpa_webhook_context_left_out{resource=\"horizontalpodautoscalers.autoscaling\",reason=\"InvalidValue\"} 2",
            "hpa_webhook_context_left_out{resource=\"horizontalpodautoscalers.autoscaling\",reason=\"Unconvertible\"} 1",
            "hpa_webhook_context_ignored_fields{resource=\"horizontalpodautoscalers.autoscaling\"} 4",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        // Fixed: the reason is no longer reported.
        m.set_watches(&[hpas(vec![("InvalidValue", 1)], 0)], Duration::from_secs(30));
        let text = m.render(ExpositionFormat::OpenMetrics);
        assert!(text.lines().any(|l| l == "hpa_webhook_context_ignored_fields{resource=\"horizontalpodautoscalers.autoscaling\"} 0"), "{text}");
        assert!(!text.contains("Unconvertible"), "{text}");
        assert!(text.lines().any(|l| l.ends_with("reason=\"InvalidValue\"} 1")), "{text}");
    }

    #[test]
    fn each_watch_is_in_exactly_one_state() {
        use hpa_cluster::kinds;
        let bound = Duration::from_secs(30);
        let watch = |kind, phase, synced, since: u64, broken: Option<u64>| WatchStatus {
            kind,
            phase,
            synced,
            objects: 0,
            since_last_event: None,
            since_heard: Some(Duration::from_secs(since)),
            broken_for: broken.map(Duration::from_secs),
            error: None,
            left_out: Vec::new(),
            ignored_fields: 0,
        };
        let m = Metrics::new();
        m.set_watches(
            &[
                watch(kinds::VPA, Phase::Absent, false, 0, None),
                watch(kinds::SCALED_OBJECT, Phase::Syncing, false, 0, None),
                watch(kinds::PDB, Phase::Forbidden, false, 0, None),
                watch(kinds::DEPLOYMENT, Phase::Synced, true, 3, None),
                watch(kinds::STATEFUL_SET, Phase::Synced, true, 3, Some(2)),
                watch(kinds::HPA, Phase::Synced, true, 31, None),
                // A relist of a synced kind.
                watch(kinds::LIMIT_RANGE, Phase::Syncing, true, 1, None),
            ],
            bound,
        );
        let text = m.render(ExpositionFormat::OpenMetrics);
        for (resource, state) in [
            ("verticalpodautoscalers.autoscaling.k8s.io", "absent"),
            ("scaledobjects.keda.sh", "syncing"),
            ("poddisruptionbudgets.policy", "refused"),
            ("deployments.apps", "synced"),
            ("statefulsets.apps", "broken"),
            ("horizontalpodautoscalers.autoscaling", "stale"),
            ("limitranges", "syncing"),
        ] {
            for other in State::ALL {
                let value = i64::from(other.as_str() == state);
                let line = format!(
                    "hpa_webhook_context_watch_state{{resource=\"{resource}\",state=\"{}\"}} {value}",
                    other.as_str()
                );
                assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
            }
        }
    }
}
