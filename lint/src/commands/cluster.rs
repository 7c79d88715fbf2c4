//! `hpa-lint cluster`: lints what a cluster runs, with the same rules and configuration as
//! files. hpa-cluster reads the inventory (HPAs and everything the cross-object rules read,
//! with notes for what it could not read); [`crate::linter::live`] checks it;
//! [`crate::linter::report`] renders it, as it renders files' diagnostics.

use hpa_cluster::{Cluster, Error, Scope, read_inventory};

use crate::cli::{ClusterArgs, ClusterLintArgs, ColorChoice, LintArgs, LintFormat};
use crate::commands::common::LiveError;
use crate::commands::settings;
use crate::linter::LintResults;
use crate::linter::live;
use crate::linter::report::{self, HumanStyle, Inputs, Origin};
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
    let (mut outcome, origin) = match read(args) {
        Ok((inventory, origin)) => (live::lint_inventory(inventory, &opts), origin),
        Err(e) => return out.fail(&LiveError(e)),
    };
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

/// Connects and reads the inventory (one current-thread runtime: the lists run concurrently
/// on it).
fn read(args: &ClusterLintArgs) -> Result<(hpa_cluster::Inventory, Origin), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Protocol { doing: "starting the async runtime".into(), reason: e.to_string() })?;
    let options = args.connection.client_options(&args.environment);
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
