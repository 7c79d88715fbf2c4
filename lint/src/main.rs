//! The `hpa-lint` binary: parses arguments, runs, maps the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = hpa_lint::cli::Args::parse();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let (mut so, mut se) = (stdout.lock(), stderr.lock());
    let mut out = hpa_lint::Output { stdout: &mut so, stderr: &mut se };
    ExitCode::from(hpa_lint::run(args, &mut out).code())
}
