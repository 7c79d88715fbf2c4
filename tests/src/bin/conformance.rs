//! Runs conformance vectors and prints one JSON line per vector:
//! `{"id": ..., "pass": true|false, "got": {...}}`.
//!
//! Usage: `conformance FILE.json...`. The kind of each vector (validation, defaulting,
//! conversion, replica calculation, normalization, timeline) is recognised from its fields.
//! Exit status: 0 when every vector passed, 1 when one failed, 2 when a file could not be read.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        let _ = writeln!(std::io::stderr(), "usage: conformance FILE.json...");
        return ExitCode::from(2);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_pass = true;
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "conformance: cannot read {file}: {e}");
                return ExitCode::from(2);
            }
        };
        let results = match hpa_tests::conformance::run_file(&text, file) {
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
