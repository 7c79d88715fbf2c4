//! The one place that turns flags and the configuration file into hpa-core's options
//! ([`settings`], and the lint options of `lint` and `cluster`, [`options`]). Every command
//! that reads the configuration calls it; no command module imports another.

use hpa_core::check;
use hpa_core::features::{FeatureGates, GateError, KubernetesVersion, UnknownVersion};
use hpa_core::rules::{Settings, Severity};

use crate::Output;
use crate::cli::{ClusterArgs, ConfigArgs, LintArgs, LintFormat};
use crate::controller_flags::{self, ControllerFlags, FlagError, Provenance, Provenances};
use crate::linter::{LintOptions, config};

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
    #[error("{at}: controller.{} {source}", .source.key())]
    ConfiguredController {
        /// `file:line:column`.
        at: String,
        /// Why.
        source: FlagError,
    },
    /// A value of a scenario's `controller:` the controller cannot work with (the scenario's
    /// reader refuses what it can first, with its position).
    #[error("the scenario's controller.{key} {0}", key = .0.key())]
    ScenarioController(FlagError),
    /// A controller flag of the command line the controller cannot work with.
    #[error("{name} {0}", name = .0.flag_name())]
    ControllerFlag(FlagError),
    /// `--select` or `--ignore` names no rule.
    #[error("unknown rule {0:?} (see `hpa-lint rules`)")]
    UnknownRule(String),
    /// `--namespace` is not a namespace name.
    #[error("--namespace {namespace:?}: {problem}")]
    Namespace {
        /// The name given.
        namespace: String,
        /// Why kube-apiserver would refuse it.
        problem: String,
    },
}

/// The lint options of a command line and its configuration file: the [`settings`], rule
/// levels, `--select`/`--ignore`, and the severity that fails the run (`None`: never). Shared
/// by the files mode and `hpa-lint cluster`. Errors are usage errors.
pub fn options(
    lint: &LintArgs,
    cluster: &ClusterArgs,
    out: &mut Output<'_>,
) -> Result<(LintOptions, Option<Severity>, config::Config), SettingsError> {
    let configured = configured(&lint.config, cluster)?;
    let release = configured.release_or_default();
    options_for(lint, cluster, configured, release, out)
}

/// [`options`] with the configuration already read ([`configured`]) and the release chosen
/// (`hpa-lint cluster`: the API server's, see [`hpa_cluster::resolve`]).
pub fn options_for(
    lint: &LintArgs,
    cluster: &ClusterArgs,
    configured: Configured,
    release: KubernetesVersion,
    out: &mut Output<'_>,
) -> Result<(LintOptions, Option<Severity>, config::Config), SettingsError> {
    let Resolved { settings, config: cfg, .. } = settings_for(configured, release, cluster, &[], out)?;
    known_rules(lint)?;
    // `None`: findings never fail the run.
    let fail_on = lint.findings.fail_on.or(cfg.file.fail_on).unwrap_or_default().severity();
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

/// Refuses a `--select` or `--ignore` that names no rule (`all` names them all).
pub fn known_rules(lint: &LintArgs) -> Result<(), SettingsError> {
    match lint
        .findings
        .select
        .iter()
        .chain(&lint.findings.ignore)
        .find(|r| hpa_core::rules::find(r).is_none() && !r.eq_ignore_ascii_case("all"))
    {
        Some(r) => Err(SettingsError::UnknownRule(r.clone())),
        None => Ok(()),
    }
}

/// The usage errors a live command can tell before it connects: [`settings_for`] of the release
/// the command line or the configuration names, else of each release a server may run (the
/// default one first, whose error is the one returned when every release refuses): a feature
/// gate or controller value that no release takes is refused before any network call, one that
/// only some releases take waits for the server's. Warnings are left to the real run.
pub fn check_before_connecting(
    configured: &Configured,
    cluster: &ClusterArgs,
    layers: &[(&ControllerFlags, Provenance)],
) -> Result<(), SettingsError> {
    let releases: Vec<KubernetesVersion> = match &configured.release {
        Some((release, _)) => vec![*release],
        None => std::iter::once(KubernetesVersion::LATEST)
            .chain(KubernetesVersion::ALL.iter().copied().filter(|r| *r != KubernetesVersion::LATEST))
            .collect(),
    };
    let (mut stdin, mut stdout, mut stderr) = (std::io::empty(), std::io::sink(), std::io::sink());
    let mut quiet = Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    let mut first = None;
    for release in releases {
        match settings_for(configured.clone(), release, cluster, layers, &mut quiet) {
            Ok(_) => return Ok(()),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    first.map_or(Ok(()), Err)
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
    let configured = configured(config_args, cluster)?;
    let release = configured.release_or_default();
    settings_for(configured, release, cluster, layers, out)
}

/// The configuration read, and the release the command line or the configuration names.
#[derive(Debug, Clone)]
pub struct Configured {
    /// The configuration read (the defaults, with no path, when there is none).
    pub config: config::Config,
    /// `--kubernetes-version`'s release, else `kubernetesVersion`'s, with where it is named
    /// (`--kubernetes-version`, or `file:line:column: kubernetesVersion`); `None`: neither.
    pub release: Option<(KubernetesVersion, String)>,
}

impl Configured {
    /// The release named, else the newest generally available one.
    pub fn release_or_default(&self) -> KubernetesVersion {
        self.release.as_ref().map_or(KubernetesVersion::LATEST, |(r, _)| *r)
    }
}

/// Reads the configuration (`--config`, else `.hpa-lint.yaml` found upward from the working
/// directory; none with `--no-config`) and the release it or the command line names: the
/// first half of [`settings`], which a live command runs before it asks the API server its
/// release. Errors are usage errors.
pub fn configured(config_args: &ConfigArgs, cluster: &ClusterArgs) -> Result<Configured, SettingsError> {
    let cfg =
        if config_args.no_config { config::Config::default() } else { config::load(config_args.config.as_deref())? };
    let version = match cfg.file.kubernetes_version.as_deref().map(KubernetesVersion::parse).transpose() {
        Ok(v) => v,
        Err(source) => return Err(SettingsError::Version { at: cfg.at("kubernetesVersion"), source }),
    };
    // The flag's release, else the configuration's.
    let release = match (cluster.kubernetes_version, version) {
        (Some(flag), _) => Some((flag, "--kubernetes-version".to_string())),
        (None, Some(file)) => Some((file, format!("{}: kubernetesVersion", cfg.at("kubernetesVersion")))),
        (None, None) => None,
    };
    Ok(Configured { config: cfg, release })
}

/// The second half of [`settings`]: the gates, controller and bounds of `release` (the
/// configuration's gates, then the flags').
pub fn settings_for(
    configured: Configured,
    release: KubernetesVersion,
    cluster: &ClusterArgs,
    layers: &[(&ControllerFlags, Provenance)],
    out: &mut Output<'_>,
) -> Result<Resolved, SettingsError> {
    let cfg = configured.config;
    let mut gates = FeatureGates::new(release);
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
    let from_file = ControllerFlags::from(&cfg.file.controller);
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
    let settings = cfg.file.settings.apply(Settings { controller, ..Settings::default() });
    Ok(Resolved { settings, config: cfg, controller: provenances })
}
