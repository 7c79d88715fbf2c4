//! `hpa-lint`: the command-line front end of the HPA toolkit. It finds and parses manifests
//! (keeping source positions), runs them through `hpa-core`, and renders results for people
//! and programs. All HPA semantics live in `hpa-core`; this crate only loads, filters and
//! renders.

pub mod cli;
pub(crate) mod commands;
pub mod controller_flags;
pub mod hpa;
pub mod input;
pub(crate) mod linter;
pub(crate) mod yaml_out;

pub use commands::simulate;

/// The YAML reader (`hpa-yaml`): documents as node trees with positions, read as kubectl
/// reads them. Everything in this crate that touches YAML goes through it.
pub use hpa_yaml as source;

use std::io::Write;

/// How a run ended, mapped to the process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: nothing to report.
    Clean,
    /// 1: invalid objects (or findings at or above the fail level).
    Findings,
    /// 2: usage or I/O error.
    Error,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
        }
    }
}

/// Where a run reads standard input from and writes: results to `stdout`, diagnostics about
/// the run to `stderr`.
pub struct Output<'a> {
    /// Standard input (read when a path is `-`).
    pub stdin: &'a mut dyn std::io::Read,
    /// Results.
    pub stdout: &'a mut dyn Write,
    /// Errors and warnings about the run itself.
    pub stderr: &'a mut dyn Write,
    /// Whether standard output is a terminal (colors in `auto` mode).
    pub terminal: bool,
}

impl Output<'_> {
    /// Writes results.
    pub fn write(&mut self, s: &str) {
        let _ = self.stdout.write_all(s.as_bytes());
    }

    /// Reports an error about the run.
    pub fn error(&mut self, s: &str) {
        let _ = writeln!(self.stderr, "hpa-lint: error: {s}");
    }

    /// Reports a note about the run (something left out on purpose).
    pub fn note(&mut self, s: &str) {
        let _ = writeln!(self.stderr, "hpa-lint: note: {s}");
    }

    /// Reports a warning about the run.
    pub fn warning(&mut self, s: &str) {
        let _ = writeln!(self.stderr, "hpa-lint: warning: {s}");
    }

    /// Reads all of standard input (once; later calls get an empty buffer).
    pub fn read_stdin(&mut self) -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.stdin.read_to_end(&mut buf)?;
        Ok(buf)
    }

    /// Reports an error that stops the run (a usage or I/O error: exit 2): the edge where the
    /// commands' typed errors (`commands::settings::SettingsError`, `diagnose::DiagnoseReadError`) become
    /// what the user reads, their message and, when they give one, their help.
    pub fn fail(&mut self, e: &dyn miette::Diagnostic) -> ExitStatus {
        self.report(e);
        ExitStatus::Error
    }

    /// Reports an error that does not stop the run (an input that cannot be reached, the
    /// others still read): its message and, when it gives one, its help.
    pub fn report(&mut self, e: &dyn miette::Diagnostic) {
        self.error(&e.to_string());
        if let Some(help) = e.help() {
            let _ = writeln!(self.stderr, "  help: {help}");
        }
    }

    /// Reports a usage error and returns the matching status.
    pub fn usage_error(&mut self, s: &str) -> ExitStatus {
        self.error(s);
        ExitStatus::Error
    }
}

/// Runs a parsed command line.
pub fn run(args: cli::Args, out: &mut Output<'_>) -> ExitStatus {
    match &args.command {
        Some(cli::Command::Validate(v)) => commands::validate::run(v, &args.cluster, out),
        Some(cli::Command::Default(d)) => commands::default::run(d, &args.cluster, out),
        Some(cli::Command::Convert(c)) => commands::convert::run(c, &args.cluster, out),
        Some(cli::Command::Explain(e)) => commands::explain::run(e, &args.cluster, out),
        Some(cli::Command::Rules(r)) => commands::rules::run(r, &args.cluster, out),
        Some(cli::Command::Simulate(s)) => commands::simulate::run(s, &args.cluster, out),
        Some(cli::Command::Cluster(c)) => commands::cluster::run(c, &args.cluster, out),
        Some(cli::Command::Diagnose(d)) => commands::diagnose::run(d, &args.cluster, out),
        None => commands::lint::run(&args, out),
    }
}
