//! Running `hpa-lint` in-process, as its `main` would, with captured output.

use clap::Parser;

/// What an in-process `hpa-lint` run printed and how it ended (as `std::process::Output`).
#[derive(Debug, Clone)]
pub struct CapturedRun {
    /// Exit status.
    pub code: u8,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl CapturedRun {
    /// Standard output parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// Runs `hpa-lint ARGS...` with `stdin` as standard input.
pub fn hpa_lint(args: &[&str], stdin: &str) -> CapturedRun {
    hpa_lint_bytes(args, stdin.as_bytes())
}

/// [`hpa_lint`](fn@hpa_lint) with any bytes (binary, not UTF-8) as standard input.
pub fn hpa_lint_bytes(args: &[&str], stdin: &[u8]) -> CapturedRun {
    let parsed = hpa_lint::cli::Args::try_parse_from(std::iter::once("hpa-lint").chain(args.iter().copied()));
    let args = match parsed {
        Ok(a) => a,
        Err(e) => return CapturedRun { code: 2, stdout: String::new(), stderr: e.to_string() },
    };
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = hpa_lint::Output { stdin: &mut input, stdout: &mut out, stderr: &mut err, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    CapturedRun {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}
