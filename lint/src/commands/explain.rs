//! `hpa-lint explain`: for each HPA, what the controller will actually do — the effective
//! scaling rules in both directions with where each value comes from, the metrics and targets,
//! and what that means in time (the fastest scale-up and scale-down, computed by driving the
//! controller's own algorithm sync by sync).

use hpa_core::api::v2::{
    self, HPAScalingPolicy, HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, MetricSpec, MetricTarget,
};
use hpa_core::api::{self, ApiVersion};
use hpa_core::check::{self, Admission};
use hpa_core::effective::{self, EffectiveBehavior, EffectiveRules, ValueSource, Valued};
use hpa_core::evaluator::HPAControllerConfiguration;
use hpa_core::evaluator::timing::{self, Trajectory};
use hpa_core::features::{FeatureGates, Gate};
use hpa_core::rules::ObjectId;
use serde_json::{Value, json};

use crate::cli::{ExplainArgs, ReportFormat};
use crate::commands::common;
use crate::controller_flags::{ControllerArgs, Provenance, Provenances};
use crate::hpa;
use crate::{ExitStatus, Output};

/// Runs `explain`.
pub fn run(args: &ExplainArgs, cluster: &crate::cli::ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    // The configuration's release, gates and controller apply as they do to `lint`; the
    // controller flags given here override its `controller:`.
    let resolved = match crate::commands::settings::settings(
        &args.config,
        cluster,
        &[(&args.controller.flags(), Provenance::CommandLine)],
        out,
    ) {
        Ok(r) => r,
        Err(e) => return out.fail(&e),
    };
    let controller = resolved.settings.controller;
    let provenances = resolved.controller;
    // The timing below runs whole-second syncs (hpa-core's `timing`, as the rules time them);
    // a period with a fraction of a second (only the command line can give one) would be
    // rounded there, so it is refused rather than explained with another period.
    if controller.sync_period.subsec_nanos() != 0 {
        return out.usage_error(&format!(
            "--sync-period {:?}: explain times scale-ups in whole-second syncs; give a whole number of seconds, or run `hpa-lint simulate`, which honours it to the millisecond",
            controller.sync_period
        ));
    }
    // So does the downscale stabilization window of an HPA without `spec.behavior` (the
    // controller keeps it to the nanosecond): its table and timing give whole seconds.
    if controller.downscale_stabilization_window.subsec_nanos() != 0 {
        return out.usage_error(&format!(
            "--downscale-stabilization {:?}: explain gives the stabilization window in whole seconds; give a whole number of seconds, or run `hpa-lint simulate`, which honours it to the millisecond",
            controller.downscale_stabilization_window
        ));
    }
    let opts = check::Options::verdict_only(controller.gates.clone());
    let mut explanations = Vec::new();
    let mut hpas = 0usize;
    let status = super::each_file(&args.paths, &args.input, out, |file, contents, out| {
        let mut status = ExitStatus::Clean;
        for obj in &contents.objects {
            if !obj.is_hpa() || !contents.counts(obj) {
                continue;
            }
            hpas += 1;
            let at = common::object_at(file, obj);
            let report = hpa::check_object(obj, None, &opts);
            match &report.admission {
                Admission::Admitted(admitted) if admitted.allowed() => {
                    // The behavior as written (not defaulted), in the internal form.
                    let user = admitted.written().spec.behavior.as_ref();
                    let eff = effective::effective_behavior(user, None, &controller);
                    let notes = ignored_tolerances(user, &controller, &cluster.feature_gates);
                    let up = timing::fastest_scale_up(admitted.effective(), &controller);
                    let down = timing::fastest_scale_down(admitted.effective(), &controller);
                    // Named as the linter names it: by its prefix when kube-apiserver would name it
                    // at creation (not by the placeholder admission gives it).
                    let (written, stored) = (&admitted.written().metadata, &admitted.effective().metadata);
                    let object = if written.name.is_empty() && !written.generate_name.is_empty() {
                        ObjectId::generated(v2::API_VERSION, api::KIND, &stored.namespace, &written.generate_name, "")
                    } else {
                        ObjectId {
                            api_version: v2::API_VERSION.into(),
                            kind: api::KIND.into(),
                            namespace: stored.namespace.clone(),
                            name: stored.name.to_string(),
                        }
                    };
                    explanations.push(Explanation {
                        at,
                        object,
                        version: admitted.original.api_version(),
                        hpa: admitted.effective().clone(),
                        effective: eff,
                        up,
                        down,
                        controller: provenances.clone(),
                        notes,
                    });
                }
                _ => {
                    let msg = report.message().unwrap_or_default();
                    let at = common::checked_at(file, obj, &report, &opts);
                    out.error(&format!("{at}: cannot explain an object kube-apiserver rejects: {msg}"));
                    status = status.max(ExitStatus::Findings);
                }
            }
        }
        status
    });
    let text = match args.output {
        ReportFormat::Human => explanations.iter().map(Explanation::human).collect::<Vec<_>>().join("\n"),
        ReportFormat::Json => {
            let v: Vec<Value> = explanations.iter().map(Explanation::json).collect();
            common::json_text(&v)
        }
    };
    out.write(&text);
    // Said rather than left to an empty output: the input (a Deployment's file, a directory
    // without HPAs) has nothing to explain.
    if hpas == 0 && status == ExitStatus::Clean {
        let inputs: Vec<&str> = args.paths.iter().map(|p| if p == "-" { "<stdin>" } else { p.as_str() }).collect();
        out.note(&format!("nothing to explain: no HorizontalPodAutoscaler in {}", inputs.join(", ")));
    }
    status
}

/// Everything explained about one HPA.
pub struct Explanation {
    /// `file:line:col`.
    pub at: String,
    /// The HPA, named as `hpa-lint` names objects (`HorizontalPodAutoscaler shop/web`, or
    /// `shop/web-*` for one written with `generateName`).
    pub object: ObjectId,
    /// The version it was written in.
    pub version: ApiVersion,
    /// The HPA as the controller sees it (defaulted, internal form).
    pub hpa: HorizontalPodAutoscaler,
    /// The effective behavior with provenance.
    pub effective: EffectiveBehavior,
    /// The fastest scale-up.
    pub up: Trajectory,
    /// The fastest scale-down.
    pub down: Trajectory,
    /// Where the controller's values come from (its defaults, the configuration file, the
    /// command line).
    pub controller: Provenances,
    /// What the HPA sets that kube-apiserver drops or the controller ignores (a per-direction
    /// tolerance with `HPAConfigurableTolerance` off), in rule HPA306's words.
    pub notes: Vec<String>,
}

/// The per-direction tolerances the HPA sets that the release drops and its controller ignores
/// (`HPAConfigurableTolerance` off: `dropDisabledFields` on create, `tolerancesForHpa`), decided
/// by [`HPAControllerConfiguration::tolerances_for_hpa`] as for rule HPA306 and `diagnose`.
/// `feature_gates` are the command line's `--feature-gates`, to say what switched the gate off.
fn ignored_tolerances(
    written: Option<&HorizontalPodAutoscalerBehavior>,
    controller: &HPAControllerConfiguration,
    feature_gates: &[String],
) -> Vec<String> {
    let off = tolerance_gate_off(controller, feature_gates);
    controller
        .tolerances_for_hpa(written)
        .ignored()
        .filter_map(|d| {
            Some(format!(
                "spec.behavior.{}.tolerance {} ({}) is not used: HPAConfigurableTolerance is {off}: kube-apiserver drops this tolerance silently and the controller's global tolerance ({}) applies (HPA306)",
                d.field,
                d.ignored()?,
                pct(d.ignored()?.as_approximate_f64()),
                d.used
            ))
        })
        .collect()
}

/// Why gate `HPAConfigurableTolerance` is off for `controller`: `off in Kubernetes 1.33` where
/// that is the release's default, else the override that switched it off (`--feature-gates`
/// when the command line's gates alone do, else the configuration's `featureGates`).
fn tolerance_gate_off(controller: &HPAControllerConfiguration, feature_gates: &[String]) -> String {
    let release = controller.release();
    if Gate::HPAConfigurableTolerance.spec(release).is_none_or(|spec| !spec.default) {
        return format!("off in Kubernetes {release}");
    }
    let mut from_flags = FeatureGates::new(release);
    let by_flags = feature_gates.iter().all(|spec| from_flags.apply(spec).is_ok())
        && !from_flags.enabled(Gate::HPAConfigurableTolerance);
    let by = if by_flags { "--feature-gates" } else { "the configuration's featureGates" };
    format!("off by {by} (Kubernetes {release} has it on by default)")
}

fn pct(f: f64) -> String {
    let p = f * 100.0;
    if (p - p.round()).abs() < 1e-9 { format!("{}%", p.round()) } else { format!("{p}%") }
}

fn policy_text(p: &HPAScalingPolicy) -> String {
    match p.type_.as_str() {
        "Pods" => format!("{} pod{} per {}s", p.value, if p.value == 1 { "" } else { "s" }, p.period_seconds),
        "Percent" => format!("{}% per {}s", p.value, p.period_seconds),
        other => format!("{} {other} per {}s", p.value, p.period_seconds),
    }
}

/// Where a controller value comes from: hpa-core knows which of kube-controller-manager's
/// flags it is ([`Valued::origin`]); the command line knows who set that flag.
enum ValueOrigin<'a> {
    /// Not the controller's (set by the user, a policy, Kubernetes' defaulting), or one of its
    /// constants: hpa-core's [`ValueSource`] says it all.
    Core(ValueSource),
    /// A kube-controller-manager flag, and who set it.
    Flag(&'static str, &'a Provenance),
}

impl ValueOrigin<'_> {
    fn of<'a, T>(v: &Valued<T>, provenances: &'a Provenances) -> ValueOrigin<'a> {
        match v.origin.and_then(|flag| provenances.of_flag(flag).map(|p| (flag, p))) {
            Some((flag, p)) if v.source == ValueSource::ControllerDefault => ValueOrigin::Flag(flag, p),
            _ => ValueOrigin::Core(v.source),
        }
    }

    /// `source` in the JSON, and the file for a value from the configuration file.
    fn json(&self) -> (&'static str, Option<String>) {
        match self {
            ValueOrigin::Core(source) => (source.as_str(), None),
            ValueOrigin::Flag(_, Provenance::ControllerDefault) => (ValueSource::ControllerDefault.as_str(), None),
            ValueOrigin::Flag(_, Provenance::ConfigurationFile(path)) => {
                ("configuration-file", Some(path.display().to_string()))
            }
            ValueOrigin::Flag(_, Provenance::Scenario) => ("scenario", None),
            ValueOrigin::Flag(_, Provenance::CommandLine) => ("command-line", None),
        }
    }
}

/// A value with where it comes from: `source` (hpa-core's [`ValueSource::as_str`], or for a
/// controller flag set by other than its default `configuration-file`, `scenario` or
/// `command-line`), `from` (the flag or constant) and, from a configuration file, `file`.
fn valued_json<T: serde::Serialize>(v: &Valued<T>, provenances: &Provenances) -> Value {
    let (source, file) = ValueOrigin::of(v, provenances).json();
    let mut out = json!({
        "value": serde_json::to_value(&v.value).unwrap_or(Value::Null),
        "source": source,
        "from": v.origin,
    });
    if let (Some(file), Value::Object(map)) = (file, &mut out) {
        map.insert("file".into(), Value::String(file));
    }
    out
}

/// Where a value comes from, for people; a controller value names its flag.
fn source_text<T>(v: &Valued<T>, provenances: &Provenances) -> String {
    match (ValueOrigin::of(v, provenances), v.origin) {
        (ValueOrigin::Flag(flag, Provenance::ControllerDefault), _) => {
            format!("{} ({flag})", ValueSource::ControllerDefault)
        }
        (ValueOrigin::Flag(flag, Provenance::ConfigurationFile(path)), _) => {
            format!("configuration file {} ({flag})", path.display())
        }
        (ValueOrigin::Flag(flag, Provenance::Scenario), _) => format!("scenario ({flag})"),
        (ValueOrigin::Flag(flag, Provenance::CommandLine), _) => match ControllerArgs::name_of(flag) {
            Some(name) => format!("command line {name} ({flag})"),
            None => format!("command line ({flag})"),
        },
        (ValueOrigin::Core(source), Some(constant)) if source == ValueSource::ControllerDefault => {
            format!("{source} ({constant})")
        }
        (ValueOrigin::Core(source), _) => source.to_string(),
    }
}

fn target_text(t: &MetricTarget) -> String {
    match t.type_.as_str() {
        "Utilization" => format!("{}% of requests on average", t.average_utilization.unwrap_or_default()),
        "AverageValue" => {
            format!("{} per pod on average", t.average_value.as_ref().map(ToString::to_string).unwrap_or_default())
        }
        "Value" => format!("{} in total", t.value.as_ref().map(ToString::to_string).unwrap_or_default()),
        other => format!("{other} target"),
    }
}

/// One line describing a metric.
pub fn metric_text(m: &MetricSpec) -> String {
    if let Some(r) = &m.resource {
        return format!("{} (Resource): {}", r.name, target_text(&r.target));
    }
    if let Some(r) = &m.container_resource {
        return format!("{} of container {} (ContainerResource): {}", r.name, r.container, target_text(&r.target));
    }
    if let Some(p) = &m.pods {
        return format!("{} (Pods): {}", p.metric.name, target_text(&p.target));
    }
    if let Some(o) = &m.object {
        return format!(
            "{} of {}/{} (Object): {}",
            o.metric.name,
            o.described_object.kind,
            o.described_object.name,
            target_text(&o.target)
        );
    }
    if let Some(e) = &m.external {
        return format!("{} (External): {}", e.metric.name, target_text(&e.target));
    }
    format!("{} metric", m.type_)
}

fn run_text(run: &Trajectory) -> String {
    let path: Vec<String> = run.path().iter().map(ToString::to_string).collect();
    match run.seconds {
        Some(_) if run.steps.is_empty() => format!("{} → {}: already there", run.from, run.target),
        Some(s) => format!(
            "{} → {} in {} sync{} ({s} s): {}",
            run.from,
            run.target,
            run.syncs,
            if run.syncs == 1 { "" } else { "s" },
            path.join(" → ")
        ),
        None if run.steps.is_empty() => format!("{} → {}: never (the rules do not allow it)", run.from, run.target),
        None => format!(
            "{} → {}: not reached within {} syncs (stuck at {})",
            run.from,
            run.target,
            run.syncs,
            path.last().cloned().unwrap_or_default()
        ),
    }
}

fn table(rows: &[(String, String, String)]) -> String {
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    let mut s = String::new();
    for (a, b, c) in rows {
        let line = format!("    {a:<w0$}  {b:<w1$}  {c}");
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn rules_rows(label: &str, r: &EffectiveRules, p: &Provenances) -> Vec<(String, String, String)> {
    let mut rows = vec![(label.to_string(), String::new(), String::new())];
    rows.push((
        "  stabilization window".into(),
        format!("{}s", r.stabilization_window_seconds.value),
        source_text(&r.stabilization_window_seconds, p),
    ));
    rows.push(("  select policy".into(), r.select_policy.value.as_str().into(), source_text(&r.select_policy, p)));
    let policies: Vec<String> = r.policies.value.iter().map(policy_text).collect();
    for (i, policy) in policies.iter().enumerate() {
        let (name, src) = if i == 0 { ("  policies", source_text(&r.policies, p)) } else { ("", String::new()) };
        rows.push((name.into(), policy.clone(), src));
    }
    if policies.is_empty() {
        rows.push(("  policies".into(), "(none)".into(), source_text(&r.policies, p)));
    }
    rows.push(("  tolerance".into(), pct(r.tolerance.value), source_text(&r.tolerance, p)));
    rows
}

impl Explanation {
    /// The human-readable explanation.
    pub fn human(&self) -> String {
        let h = &self.hpa;
        let p = &self.controller;
        let t = &h.spec.scale_target_ref;
        let mut s = format!("{}: {} ({})\n", self.at, self.object, self.version);
        s.push_str(&format!(
            "  scales {}/{} ({}) between {} and {} replicas\n",
            t.kind,
            t.name,
            if t.api_version.is_empty() { "core" } else { &t.api_version },
            h.spec.min_replicas.unwrap_or(1),
            h.spec.max_replicas
        ));
        s.push_str("  metrics (the highest proposal wins):\n");
        for m in &h.spec.metrics {
            s.push_str(&format!("    - {}\n", metric_text(m)));
        }
        match &self.effective {
            EffectiveBehavior::Legacy {
                stabilization_window_seconds,
                scale_up_limit_factor,
                scale_up_limit_minimum,
                tolerance,
            } => {
                s.push_str("  spec.behavior is not set, so the controller follows its legacy rules:\n");
                s.push_str(&table(&[
                    (
                        "scale up".into(),
                        format!(
                            "at most max({} × current, {}) replicas per sync",
                            scale_up_limit_factor.value, scale_up_limit_minimum.value
                        ),
                        "controller constants".into(),
                    ),
                    (
                        "scale down".into(),
                        format!(
                            "to the highest recommendation of the last {}s, no rate limit",
                            stabilization_window_seconds.value
                        ),
                        source_text(stabilization_window_seconds, p),
                    ),
                    ("tolerance".into(), pct(tolerance.value), source_text(tolerance, p)),
                ]));
                s.push_str(
                    "  The legacy rules keep the highest recommendation of the whole window in both directions:\n  a short burst keeps the HPA scaling up after the load is gone. Set spec.behavior to choose\n  your own windows and rates (even `behavior: {}` switches to the behavior rules).\n",
                );
            }
            EffectiveBehavior::Rules { scale_up, scale_down } => {
                s.push_str("  scaling rules (spec.behavior):\n");
                let mut rows = rules_rows("scale up", scale_up, p);
                rows.extend(rules_rows("scale down", scale_down, p));
                s.push_str(&table(&rows));
            }
        }
        for note in &self.notes {
            s.push_str(&format!("  note: {note}\n"));
        }
        s.push_str(&format!(
            "  in time ({} s syncs, demand jumping from one bound to the other):\n",
            self.up.sync_period_seconds
        ));
        s.push_str(&format!("    fastest scale-up:   {}\n", run_text(&self.up)));
        s.push_str(&format!("    fastest scale-down: {}\n", run_text(&self.down)));
        s
    }

    /// The JSON explanation.
    pub fn json(&self) -> Value {
        let h = &self.hpa;
        let p = &self.controller;
        let rules = |r: &EffectiveRules| {
            json!({
                "stabilizationWindowSeconds": valued_json(&r.stabilization_window_seconds, p),
                "selectPolicy": valued_json(&r.select_policy, p),
                "policies": valued_json(&r.policies, p),
                "tolerance": valued_json(&r.tolerance, p),
            })
        };
        let behavior = match &self.effective {
            EffectiveBehavior::Legacy {
                stabilization_window_seconds,
                scale_up_limit_factor,
                scale_up_limit_minimum,
                tolerance,
            } => json!({
                "path": "legacy",
                "stabilizationWindowSeconds": valued_json(stabilization_window_seconds, p),
                "scaleUpLimitFactor": valued_json(scale_up_limit_factor, p),
                "scaleUpLimitMinimum": valued_json(scale_up_limit_minimum, p),
                "tolerance": valued_json(tolerance, p),
            }),
            EffectiveBehavior::Rules { scale_up, scale_down } => json!({
                "path": "behavior",
                "scaleUp": rules(scale_up),
                "scaleDown": rules(scale_down),
            }),
        };
        let run = |r: &Trajectory| {
            json!({"from": r.from, "to": r.target, "reached": r.reached(), "syncs": r.syncs, "seconds": r.seconds,
                   "path": r.path(), "syncPeriodSeconds": r.sync_period_seconds})
        };
        let mut v = json!({
            "at": self.at,
            "apiVersion": self.version.as_str(),
            "namespace": h.metadata.namespace,
            "name": self.object.written_name(),
            "scaleTargetRef": h.spec.scale_target_ref,
            "minReplicas": h.spec.min_replicas.unwrap_or(1),
            "maxReplicas": h.spec.max_replicas,
            "metrics": h.spec.metrics.iter().map(|m| json!({"spec": m, "description": metric_text(m)})).collect::<Vec<_>>(),
            "behavior": behavior,
            "fastestScaleUp": run(&self.up),
            "fastestScaleDown": run(&self.down),
            "notes": self.notes,
        });
        // `generateName` after `name`, for an HPA written with it only.
        if let (Some(prefix), Some(map)) = (self.object.generate_name(), v.as_object_mut()) {
            map.shift_insert(4, "generateName".into(), json!(prefix));
        }
        v
    }
}
