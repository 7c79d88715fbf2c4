//! `hpa-lint [PATH]...`: the lint command.

use hpa_core::check;
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::rules::{Settings, Severity};

use crate::cli::{Args, ClusterArgs, ColorChoice, ConfigArgs, FailOn, LintArgs, LintFormat};
use crate::controller_flags::{self, ControllerFlags, Provenance, Provenances};
use crate::input;
use crate::linter::{self, LintOptions, config, report};
use crate::{ExitStatus, Output};

/// Objects plus diagnostics above which a run's results are freed on another thread.
const BACKGROUND_DROP_ABOVE: usize = 10_000;

/// Runs the lint command.
pub fn run(args: &Args, out: &mut Output<'_>) -> ExitStatus {
    if args.paths.is_empty() {
        return out.usage_error("no input: give files or directories to lint (or `-` for standard input); see --help");
    }
    let (opts, fail_on, cfg) = match options(&args.lint, &args.cluster) {
        Ok(o) => o,
        Err(e) => return out.usage_error(&e),
    };
    let mut excludes = args.input.exclude.clone();
    excludes.extend(cfg.file.exclude.iter().cloned());
    let (origins, mut errors) = input::discover(&args.paths, &excludes);
    let timer = linter::Timer::start();
    let stdin = if origins.contains(&input::Origin::Stdin) {
        match out.read_stdin() {
            Ok(bytes) => Some(bytes),
            Err(e) => return out.usage_error(&format!("{}: {e}", input::STDIN_NAME)),
        }
    } else {
        None
    };
    let (outcome, files, read_errors) = linter::lint_inputs(&origins, stdin.as_deref(), &opts);
    errors.extend(read_errors);
    for e in &errors {
        out.error(&e.to_string());
    }
    let text = match args.lint.findings.output {
        LintFormat::Human => {
            let color = match args.lint.findings.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => out.terminal && !args.lint.findings.no_color,
            };
            report::human(&outcome, &files, report::HumanStyle { color, width: 100 })
        }
        LintFormat::Json => report::json(&outcome, &files),
        LintFormat::Sarif => report::sarif(&outcome, &files),
        LintFormat::Github => report::github(&outcome, &files),
    };
    timer.lap("lint, report");
    out.write(&text);
    let status = if !errors.is_empty() {
        ExitStatus::Error
    } else if fail_on.is_some_and(|f| outcome.diagnostics.iter().any(|d| d.severity >= f)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    };
    // Freeing what a large run kept (its files, its diagnostics) takes a noticeable share of it;
    // the process is about to exit, so a thread does it while the status is returned. A small
    // run frees inline: a thread costs more than it saves (and slows down fuzzing, which lints
    // one small input after another in-process).
    if outcome.objects + outcome.diagnostics.len() >= BACKGROUND_DROP_ABOVE {
        std::thread::spawn(move || drop((files, outcome)));
    }
    status
}

/// The lint options of a command line and its configuration file: the [`settings`], rule
/// levels, `--select`/`--ignore`, and the severity that fails the run (`None`: never). Shared
/// by the files mode and `hpa-lint cluster`. Errors are usage errors.
pub fn options(
    lint: &LintArgs,
    cluster: &ClusterArgs,
) -> Result<(LintOptions, Option<Severity>, config::Config), String> {
    let Resolved { settings, config: cfg, .. } = settings(&lint.config, cluster, &[])?;
    for r in lint.findings.select.iter().chain(&lint.findings.ignore) {
        if hpa_core::rules::find(r).is_none() && !r.eq_ignore_ascii_case("all") {
            return Err(format!("unknown rule {r:?} (see `hpa-lint rules`)"));
        }
    }
    // `None`: findings never fail the run.
    let fail_on = match (lint.findings.fail_on, cfg.file.fail_on.as_deref()) {
        (Some(FailOn::Error), _) => Some(Severity::Error),
        (Some(FailOn::Warning), _) => Some(Severity::Warning),
        (Some(FailOn::Info), _) => Some(Severity::Info),
        (Some(FailOn::Never), _) => None,
        (None, Some("never")) => None,
        (None, Some(s)) => match Severity::parse(s) {
            Some(sev) => Some(sev),
            None => return Err(format!("failOn: expected error, warning, info or never, found {s:?}")),
        },
        (None, None) => Some(Severity::Warning),
    };
    if let Some(ns) = &lint.namespace
        && let Some(problem) = hpa_core::validation::names::dns1123_label(ns).first()
    {
        return Err(format!("--namespace {ns:?}: {problem}"));
    }
    let opts = LintOptions {
        check: check::Options {
            settings,
            rules: check::RuleConfig {
                levels: cfg.levels.clone(),
                select: lint.findings.select.clone(),
                ignore: lint.findings.ignore.clone(),
            },
            // An HPA that names no namespace is admitted in `default` (or `-n`'s) until its
            // set's namespace is known: validation does not depend on it.
            request: check::Request {
                default_namespace: Some(lint.namespace.clone().unwrap_or_else(|| "default".into())),
                ..check::Request::default()
            },
        },
        namespace: lint.namespace.clone(),
        scope: lint.scope.or(cfg.file.scope).unwrap_or_default(),
    };
    Ok((opts, fail_on, cfg))
}

/// What [`settings`] resolves.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// hpa-core's settings.
    pub settings: Settings,
    /// The configuration read (the defaults, with no path, when there is none).
    pub config: config::Config,
    /// Where each of the controller's values comes from.
    pub controller: Provenances,
}

/// The one place that turns flags and the configuration file into hpa-core's [`Settings`]:
/// the configuration (`--config`, else `.hpa-lint.yaml` found upward from the working
/// directory; none with `--no-config`), then the release and feature gates (the flags over
/// `kubernetesVersion` and `featureGates`), the controller (the controller's defaults, then
/// `controller:`, then each of `layers` in order: a scenario's `controller:`, a command line's
/// controller flags; with where each value comes from) and the rules' bounds (`settings:`).
/// Every command that reads the configuration calls it: lint, cluster, validate, default,
/// convert, explain, simulate and diagnose. Errors are usage errors.
pub fn settings(
    config_args: &ConfigArgs,
    cluster: &ClusterArgs,
    layers: &[(&ControllerFlags, Provenance)],
) -> Result<Resolved, String> {
    let cfg = if config_args.no_config {
        config::Config::default()
    } else {
        match config::load(config_args.config.as_deref()) {
            Ok(c) => c,
            Err(e) => return Err(e.to_string()),
        }
    };
    let version = match cfg.file.kubernetes_version.as_deref().map(KubernetesVersion::parse).transpose() {
        Ok(v) => v,
        Err(e) => return Err(format!("{}: {e}", cfg.at("kubernetesVersion"))),
    };
    // The flag's release, else the configuration's, else the newest; the configuration's gates,
    // then the flags'.
    let mut gates = FeatureGates::new(cluster.kubernetes_version.or(version).unwrap_or(KubernetesVersion::LATEST));
    if let Some(base) = cfg.file.feature_gates.as_ref().map(config::FeatureGatesSetting::as_flag)
        && let Err(e) = gates.apply(&base)
    {
        return Err(format!("{}: featureGates: {e}", cfg.at("featureGates")));
    }
    for spec in &cluster.feature_gates {
        if let Err(e) = gates.apply(spec) {
            return Err(e.to_string());
        }
    }
    // Each layer is checked alone first, so an error names its source.
    let from_file = cfg.file.controller.flags();
    let file_provenance = cfg.path.clone().map_or(Provenance::ControllerDefault, Provenance::ConfigurationFile);
    let mut all = vec![(&from_file, file_provenance)];
    all.extend(layers.iter().cloned());
    for (layer, from) in &all {
        if let Err(e) = controller_flags::configuration(gates.clone(), &[layer]) {
            return Err(match from {
                Provenance::CommandLine => format!("--{e}"),
                _ => format!("{}: controller.{e}", cfg.at(&format!("controller.{}", e.key()))),
            });
        }
    }
    let flags: Vec<&ControllerFlags> = all.iter().map(|(layer, _)| *layer).collect();
    let controller = match controller_flags::configuration(gates.clone(), &flags) {
        Ok(c) => c,
        Err(e) => return Err(format!("--{e}")),
    };
    let defaults = Settings::default();
    let s = &cfg.file.settings;
    let settings = Settings {
        gates,
        controller,
        min_replicas: s.min_replicas.unwrap_or(defaults.min_replicas),
        max_replicas_limit: s.max_replicas_limit.or(defaults.max_replicas_limit),
        max_scale_up_seconds: s.max_scale_up_seconds.unwrap_or(defaults.max_scale_up_seconds),
        min_scale_down_window_seconds: s
            .min_scale_down_window_seconds
            .unwrap_or(defaults.min_scale_down_window_seconds),
        min_replica_spread: s.min_replica_spread.unwrap_or(defaults.min_replica_spread),
    };
    Ok(Resolved { settings, config: cfg, controller: Provenances::of(&all) })
}
