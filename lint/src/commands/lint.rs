//! `hpa-lint [PATH]...`: the lint command.

use hpa_core::check;
use hpa_core::features::{FeatureGates, GateError, KubernetesVersion, UnknownVersion};
use hpa_core::rules::{Settings, Severity};

use crate::cli::{Args, ClusterArgs, ColorChoice, ConfigArgs, FailOn, LintArgs, LintFormat};
use crate::controller_flags::{self, ControllerFlags, FlagError, Provenance, Provenances};
use crate::input;
use crate::linter::{self, LintOptions, config, report};
use crate::{ExitStatus, Output};

/// A command line or configuration file [`settings`] and [`options`] cannot use: a usage error
/// (exit 2). A value of the configuration file names where it is written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum SettingsError {
    /// The configuration file cannot be read or parsed.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// `kubernetesVersion` is not a release this tool knows.
    #[error("{at}: {source}")]
    Version {
        /// `file:line:column`.
        at: String,
        /// Why.
        source: UnknownVersion,
    },
    /// `featureGates` is refused by the release.
    #[error("{at}: featureGates: {source}")]
    ConfiguredGates {
        /// `file:line:column`.
        at: String,
        /// Why.
        source: GateError,
    },
    /// `--feature-gates` is refused by the release.
    #[error(transparent)]
    Gates(GateError),
    /// A value of the configuration's `controller:` the controller cannot work with.
    #[error("{at}: controller.{source}")]
    ConfiguredController {
        /// `file:line:column`.
        at: String,
        /// Why.
        source: FlagError,
    },
    /// A value of a scenario's `controller:` the controller cannot work with (the scenario's
    /// reader refuses it first, with its position).
    #[error("the scenario's controller.{0}")]
    ScenarioController(FlagError),
    /// A controller flag of the command line the controller cannot work with.
    #[error("--{0}")]
    ControllerFlag(FlagError),
    /// `--select` or `--ignore` names no rule.
    #[error("unknown rule {0:?} (see `hpa-lint rules`)")]
    UnknownRule(String),
    /// `failOn` is not a severity.
    #[error("failOn: expected error, warning, info or never, found {0:?}")]
    FailOn(String),
    /// `--namespace` is not a namespace name.
    #[error("--namespace {namespace:?}: {problem}")]
    Namespace {
        /// The name given.
        namespace: String,
        /// Why kube-apiserver would refuse it.
        problem: String,
    },
}

/// Objects plus diagnostics above which a run's results are freed on another thread.
const BACKGROUND_DROP_ABOVE: usize = 10_000;

/// The first path that names a subcommand and no file (`hpa-lint -o json validate x`: an option
/// before the subcommand makes clap read everything as the lint command's paths).
fn subcommand_read_as_path(paths: &[String]) -> Option<&str> {
    let cli = <Args as clap::CommandFactory>::command();
    let path = paths.iter().find(|p| cli.find_subcommand(p.as_str()).is_some())?;
    (!std::path::Path::new(path).exists()).then_some(path.as_str())
}

/// Runs the lint command.
pub fn run(args: &Args, out: &mut Output<'_>) -> ExitStatus {
    if args.paths.is_empty() {
        return out.usage_error("no input: give files or directories to lint (or `-` for standard input); see --help");
    }
    if let Some(misplaced) = subcommand_read_as_path(&args.paths) {
        return out.usage_error(&format!(
            "{misplaced:?} is no file or directory here but a subcommand, read as a path to lint because an option \
             came before it: write the subcommand first, then its options (`hpa-lint {misplaced} [OPTIONS] ...`)"
        ));
    }
    let (opts, fail_on, cfg) = match options(&args.lint, &args.cluster, out) {
        Ok(o) => o,
        Err(e) => return out.fail(&e),
    };
    let mut excludes = args.input.exclude.clone();
    excludes.extend(cfg.file.exclude.iter().cloned());
    let (origins, mut errors, notes) = input::discover(&args.paths, &excludes);
    notes.iter().for_each(|n| out.note(n));
    let timer = linter::Timer::start();
    let stdin = if origins.contains(&input::Origin::Stdin) {
        match out.read_stdin() {
            Ok(bytes) => Some(bytes),
            Err(e) => return out.usage_error(&format!("{}: {e}", input::STDIN_NAME)),
        }
    } else {
        None
    };
    let (outcome, names, read_errors) = linter::lint_inputs(&origins, stdin.as_deref(), &opts);
    errors.extend(read_errors);
    for e in &errors {
        out.error(&e.to_string());
    }
    // The report is written as it is rendered; a closed pipe ends the output, not the run.
    let mut writer = std::io::BufWriter::new(&mut *out.stdout);
    let written = match args.lint.findings.output {
        LintFormat::Human => {
            let color = match args.lint.findings.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => out.terminal && !args.lint.findings.no_color,
            };
            report::human(&outcome, &names, report::HumanStyle { color, width: 100 }, &mut writer)
        }
        LintFormat::Json => report::json(&outcome, &names, &mut writer),
        LintFormat::Sarif => report::sarif(&outcome, &names, &mut writer),
        LintFormat::Github => report::github(&outcome, &names, &mut writer),
    };
    let _ = written.and_then(|()| std::io::Write::flush(&mut writer));
    drop(writer);
    timer.lap("lint, report");
    let status = if !errors.is_empty() {
        ExitStatus::Error
    } else if fail_on.is_some_and(|f| outcome.diagnostics.iter().any(|d| d.severity >= f)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    };
    // Freeing what a large run kept (its diagnostics) takes a noticeable share of it;
    // the process is about to exit, so a thread does it while the status is returned. A small
    // run frees inline: a thread costs more than it saves (and slows down fuzzing, which lints
    // one small input after another in-process).
    if outcome.objects + outcome.diagnostics.len() >= BACKGROUND_DROP_ABOVE {
        std::thread::spawn(move || drop(outcome));
    }
    status
}

/// The lint options of a command line and its configuration file: the [`settings`], rule
/// levels, `--select`/`--ignore`, and the severity that fails the run (`None`: never). Shared
/// by the files mode and `hpa-lint cluster`. Errors are usage errors.
pub fn options(
    lint: &LintArgs,
    cluster: &ClusterArgs,
    out: &mut Output<'_>,
) -> Result<(LintOptions, Option<Severity>, config::Config), SettingsError> {
    let Resolved { settings, config: cfg, .. } = settings(&lint.config, cluster, &[], out)?;
    for r in lint.findings.select.iter().chain(&lint.findings.ignore) {
        if hpa_core::rules::find(r).is_none() && !r.eq_ignore_ascii_case("all") {
            return Err(SettingsError::UnknownRule(r.clone()));
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
            None => return Err(SettingsError::FailOn(s.to_string())),
        },
        (None, None) => Some(Severity::Warning),
    };
    if let Some(ns) = &lint.namespace
        && let Some(problem) = hpa_core::validation::names::dns1123_label(ns).first()
    {
        return Err(SettingsError::Namespace { namespace: ns.clone(), problem: problem.clone() });
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
        excerpts: lint.findings.output == LintFormat::Human,
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
    out: &mut Output<'_>,
) -> Result<Resolved, SettingsError> {
    let cfg =
        if config_args.no_config { config::Config::default() } else { config::load(config_args.config.as_deref())? };
    let version = match cfg.file.kubernetes_version.as_deref().map(KubernetesVersion::parse).transpose() {
        Ok(v) => v,
        Err(source) => return Err(SettingsError::Version { at: cfg.at("kubernetesVersion"), source }),
    };
    // The flag's release, else the configuration's, else the newest; the configuration's gates,
    // then the flags'.
    let mut gates = FeatureGates::new(cluster.kubernetes_version.or(version).unwrap_or(KubernetesVersion::LATEST));
    // Warnings (a GA gate set, a gate that concerns no HPA) go to standard error, those of the
    // configuration with its position.
    if let Some(base) = cfg.file.feature_gates.as_ref().map(config::FeatureGatesSetting::as_flag) {
        match gates.apply(&base) {
            Ok(warnings) => {
                for w in warnings {
                    out.warning(&format!("{}: featureGates: {w}", cfg.at("featureGates")));
                }
            }
            Err(source) => return Err(SettingsError::ConfiguredGates { at: cfg.at("featureGates"), source }),
        }
    }
    for spec in &cluster.feature_gates {
        for w in gates.apply(spec).map_err(SettingsError::Gates)? {
            out.warning(&format!("--feature-gates: {w}"));
        }
    }
    let from_file = cfg.file.controller.flags();
    let file_provenance = cfg.path.clone().map_or(Provenance::ControllerDefault, Provenance::ConfigurationFile);
    let mut all = vec![(&from_file, file_provenance)];
    all.extend(layers.iter().cloned());
    let (controller, provenances) =
        controller_flags::configuration(gates, &all).map_err(|(source, from)| match from {
            Provenance::CommandLine => SettingsError::ControllerFlag(source),
            Provenance::Scenario => SettingsError::ScenarioController(source),
            Provenance::ConfigurationFile(_) | Provenance::ControllerDefault => {
                SettingsError::ConfiguredController { at: cfg.at(&format!("controller.{}", source.key())), source }
            }
        })?;
    let defaults = Settings::default();
    let s = &cfg.file.settings;
    let settings = Settings {
        controller,
        min_replicas: s.min_replicas.unwrap_or(defaults.min_replicas),
        max_replicas_limit: s.max_replicas_limit.or(defaults.max_replicas_limit),
        max_scale_up_seconds: s.max_scale_up_seconds.unwrap_or(defaults.max_scale_up_seconds),
        min_scale_down_window_seconds: s
            .min_scale_down_window_seconds
            .unwrap_or(defaults.min_scale_down_window_seconds),
        min_replica_spread: s.min_replica_spread.unwrap_or(defaults.min_replica_spread),
    };
    Ok(Resolved { settings, config: cfg, controller: provenances })
}
