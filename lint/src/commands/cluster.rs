//! `hpa-lint cluster`: lints what a cluster runs, with the same rules and configuration as
//! files. hpa-cluster reads the inventory (HPAs and everything the cross-object rules read,
//! with notes for what it could not read); [`crate::linter::live`] checks it;
//! [`crate::linter::live_report`] renders it.

use hpa_cluster::{Cluster, Error, Scope, read_inventory};

use crate::cli::{ClusterArgs, ClusterLintArgs, ColorChoice, LintArgs, LintFormat};
use crate::commands::common::LiveError;
use crate::commands::settings;
use crate::linter::live::{self, LiveOutcome};
use crate::linter::live_report::{self, Origin};
use crate::linter::report::HumanStyle;
use crate::{ExitStatus, Output};

impl ClusterLintArgs {
    /// The options the files mode shares (no `-n` for unnamed objects, no `--scope`: live
    /// objects have namespaces, and the cluster is one set).
    fn lint_args(&self) -> LintArgs {
        LintArgs { findings: self.findings.clone(), scope: None, namespace: None, config: self.config.clone() }
    }
}

/// Runs `hpa-lint cluster`: exit 0 clean, 1 with findings at or above `--fail-on`, 2 when
/// nothing could be read.
pub fn run(args: &ClusterLintArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    let (opts, fail_on, _) = match settings::options(&args.lint_args(), cluster, out) {
        Ok(o) => o,
        Err(e) => return out.fail(&e),
    };
    for ns in &args.namespace {
        if let Some(problem) = hpa_core::validation::names::dns1123_label(ns).first() {
            return out.usage_error(&format!("--namespace {ns:?}: {problem}"));
        }
    }
    let (outcome, origin) = match read(args) {
        Ok((inventory, origin)) => (live::lint_inventory(inventory, &opts), origin),
        Err(e) => return out.fail(&LiveError(e)),
    };
    let text = match args.findings.output {
        LintFormat::Human => {
            let color = match args.findings.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => out.terminal && !args.findings.no_color,
            };
            let _ = out.stderr.write_all(live_report::human_notes(&outcome).as_bytes());
            live_report::human(&outcome, HumanStyle { color, width: 100 })
        }
        LintFormat::Json => live_report::json(&outcome, &origin),
        LintFormat::Sarif => live_report::sarif(&outcome, &origin),
        LintFormat::Github => live_report::github(&outcome),
    };
    out.write(&text);
    status(&outcome, fail_on)
}

fn status(outcome: &LiveOutcome, fail_on: Option<hpa_core::rules::Severity>) -> ExitStatus {
    if fail_on.is_some_and(|f| outcome.diagnostics.iter().any(|d| d.severity >= f)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// Connects and reads the inventory (one current-thread runtime: the lists run concurrently
/// on it).
fn read(args: &ClusterLintArgs) -> Result<(hpa_cluster::Inventory, Origin), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Protocol { doing: "starting the async runtime".into(), reason: e.to_string() })?;
    let options = args.connection.client_options();
    runtime.block_on(async {
        let cluster = Cluster::connect(&options).await?;
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
        let inventory = read_inventory(&cluster, &scope).await?;
        let namespaces = match scope {
            Scope::All => None,
            Scope::Namespaces(list) => Some(list),
        };
        Ok((inventory, Origin { server: cluster.server().to_string(), namespaces }))
    })
}
