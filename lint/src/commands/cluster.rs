//! `hpa-lint cluster`: lints what a cluster runs, with the same rules and configuration as
//! files. hpa-cluster reads the inventory (HPAs and everything the cross-object rules read,
//! with notes for what it could not read); [`crate::linter::live`] checks it;
//! [`crate::linter::report`] renders it, as it renders files' diagnostics. The release whose
//! rules apply is the one named, else the API server's ([`hpa_cluster::resolve`]), with a
//! `version` note when they differ or the server's is not one of the profiles.

use hpa_cluster::{Cluster, Error, Scope, read_custom_targets, read_inventory};
use hpa_core::features::KubernetesVersion;

use crate::cli::{ClusterArgs, ClusterLintArgs, ColorChoice, LintArgs, LintFormat};
use crate::commands::common::LiveError;
use crate::commands::settings;
use crate::linter::live;
use crate::linter::report::{self, ClusterSource, HumanStyle, Inputs};
use crate::linter::{LintResults, Note};
use crate::{ExitStatus, Output};

impl ClusterLintArgs {
    /// The options the files mode shares (no `-n` for unnamed objects, no `--scope`: live
    /// objects have namespaces, and the cluster is one set; no `--timings`, the files' phases).
    fn lint_args(&self) -> LintArgs {
        LintArgs {
            findings: self.findings.clone(),
            scope: None,
            namespace: None,
            config: self.config.clone(),
            timings: false,
        }
    }
}

/// Runs `hpa-lint cluster`: exit 0 clean, 1 with findings at or above `--fail-on`, 2 when
/// nothing could be read.
pub fn run(args: &ClusterLintArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    let lint_args = args.lint_args();
    let configured = match settings::configured(&lint_args.config, cluster) {
        Ok(c) => c,
        Err(e) => return out.fail(&e),
    };
    for ns in &args.namespace {
        if let Some(problem) = hpa_core::validation::names::dns1123_label(ns).first() {
            return out.usage_error(&format!("--namespace {ns:?}: {problem}"));
        }
    }
    // Usage errors before any network call: an unknown rule, gates or a configuration no
    // release takes.
    if let Err(e) =
        settings::known_rules(&lint_args).and_then(|()| settings::check_before_connecting(&configured, cluster, &[]))
    {
        return out.fail(&e);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            let e = Error::Protocol { doing: "starting the async runtime".into(), reason: e.to_string() };
            return out.fail(&LiveError(e));
        }
    };
    let options = args.connection.client_options(&args.environment);
    let connected = runtime.block_on(async {
        let cluster = Cluster::connect(&options).await?;
        let server = hpa_cluster::server_release(&cluster).await?;
        Ok::<_, Error>((cluster, server))
    });
    let (live_cluster, server) = match connected {
        Ok(c) => c,
        Err(e) => return out.fail(&LiveError(e)),
    };
    // The release: the one named, else the API server's (see `resolve`).
    let resolution = hpa_cluster::resolve(configured.release.as_ref().map(|(r, from)| (*r, from.as_str())), &server);
    let (opts, fail_on, _) = match settings::options_for(&lint_args, cluster, configured, resolution.release, out) {
        Ok(o) => o,
        Err(e) => return out.fail(&e),
    };
    let release = opts.check.settings.gates().version();
    let (mut outcome, origin) = match runtime.block_on(read(args, &live_cluster, release)) {
        Ok((inventory, decoded, origin)) => (live::lint_inventory(inventory, decoded, &opts), origin),
        Err(e) => return out.fail(&LiveError(e)),
    };
    let version_notes = resolution.notes.into_iter().map(|message| Note { kind: Some("version"), message });
    outcome.notes.splice(0..0, version_notes);
    let inputs = Inputs::Cluster(&origin);
    // The report is written as it is rendered; a closed pipe ends the output, not the run.
    let mut writer = std::io::BufWriter::new(&mut *out.stdout);
    let written = match args.findings.output {
        LintFormat::Human => {
            let color = match args.findings.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => out.terminal && !args.findings.no_color,
            };
            // What was not read goes to standard error, ahead of the report.
            for note in std::mem::take(&mut outcome.notes) {
                let _ = writeln!(out.stderr, "hpa-lint: note: {note}");
            }
            report::human(&outcome, inputs, HumanStyle { color, width: 100 }, &mut writer)
        }
        LintFormat::Json => report::json(&outcome, inputs, &mut writer),
        LintFormat::Sarif => report::sarif(&outcome, inputs, &mut writer),
        LintFormat::Github => report::github(&outcome, inputs, &mut writer),
    };
    let _ = written.and_then(|()| std::io::Write::flush(&mut writer));
    drop(writer);
    status(&outcome, fail_on)
}

fn status(outcome: &LintResults, fail_on: Option<hpa_core::rules::Severity>) -> ExitStatus {
    if fail_on.is_some_and(|f| outcome.diagnostics.iter().any(|d| d.severity >= f)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// Reads the inventory (the lists run concurrently on the current-thread runtime), decodes each
/// HPA once with the Go types of `release` (on rayon's threads), then reads the custom resources
/// those HPAs scale, from their decodes.
async fn read(
    args: &ClusterLintArgs,
    cluster: &Cluster,
    release: KubernetesVersion,
) -> Result<(hpa_cluster::Inventory, Vec<live::DecodedHpa>, ClusterSource), Error> {
    let scope = if args.all_namespaces {
        Scope::All
    } else if args.namespace.is_empty() {
        Scope::Namespaces(vec![cluster.default_namespace().to_string()])
    } else {
        let mut namespaces = args.namespace.clone();
        namespaces.sort();
        namespaces.dedup();
        Scope::Namespaces(namespaces)
    };
    let mut inventory = read_inventory(cluster, &scope).await?;
    let decoded = live::decode_hpas(&inventory.hpas, release);
    let targets = live::scale_targets(&inventory.hpas, &decoded);
    read_custom_targets(cluster, &mut inventory, &targets).await?;
    let namespaces = match scope {
        Scope::All => None,
        Scope::Namespaces(list) => Some(list),
    };
    Ok((inventory, decoded, ClusterSource { server: cluster.server().to_string(), namespaces }))
}
