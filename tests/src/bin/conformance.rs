//! Runs conformance vectors and prints one JSON line per vector:
//! `{"id": ..., "pass": true|false, "got": {...}}`.
//!
//! Usage: `conformance FILE.json...`. The kind of each vector (validation, defaulting,
//! conversion, replica calculation, normalization, timeline) is recognised from its fields.
//! Exit status: 0 when every vector passed, 1 when one failed, 2 when a file could not be read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Runs conformance vectors (Kubernetes' own test tables, as JSON) against hpa-core and prints
/// one JSON line per vector: `{"id": ..., "pass": true|false, "got": {...}}`.
///
/// The kind of each vector (validation, defaulting, conversion, replica calculation,
/// normalization, timeline) is recognised from its fields; a vector's `config.kubernetes_version`
/// selects the release it runs against. Exit status: 0 when every vector passed, 1 when one
/// failed, 2 when a file could not be read.
#[derive(Debug, Parser)]
#[command(name = "conformance", version)]
struct Args {
    /// Vector files (JSON arrays of vectors, e.g. tests/data/conformance/*.json).
    #[arg(required = true, value_name = "FILE.json")]
    files: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_pass = true;
    for path in &args.files {
        let file = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "conformance: cannot read {file}: {e}");
                return ExitCode::from(2);
            }
        };
        let results = match hpa_tests::conformance::run_file(&text, &file) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "conformance: {file}: {e}");
                return ExitCode::from(2);
            }
        };
        for r in results {
            all_pass &= r.pass;
            let line = serde_json::json!({"id": r.id, "pass": r.pass, "got": r.got});
            if writeln!(out, "{line}").is_err() {
                return ExitCode::from(2);
            }
        }
    }
    if all_pass { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Args;

    #[test]
    fn verify_cli() {
        Args::command().debug_assert();
    }

    #[test]
    fn help_snapshot() {
        let help = Args::command().term_width(100).render_long_help().to_string();
        insta::assert_snapshot!(help);
    }
}
