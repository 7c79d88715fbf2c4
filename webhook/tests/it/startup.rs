//! The real binary refusing to start: the error it logs names each cause once.

use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `hpa-webhook serve` with `flags` (it must fail before serving) and returns the `error`
/// field of its JSON "hpa-webhook failed" log line.
fn startup_error(flags: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["serve", "--addr", "127.0.0.1:0", "--log-format", "json"])
        .args(flags)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{flags:?}: {stderr}");
    let failed = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["message"] == "hpa-webhook failed")
        .unwrap_or_else(|| panic!("{flags:?}: no failure logged: {stderr}"));
    failed["error"].as_str().unwrap().to_string()
}

/// `--feature-gates HPAGeneration=true` on 1.36 logged "serving: --feature-gates: unrecognized
/// feature gate: HPAGeneration: unrecognized feature gate: HPAGeneration": the cause was both in
/// the message and the error's `source()`. Each cause now appears once, for every error of the
/// chain that names a cause (`--feature-gates`, the policy file read).
#[test]
fn a_refused_start_names_each_cause_once() {
    assert_eq!(
        startup_error(&["--kubernetes-version", "1.36", "--feature-gates", "HPAGeneration=true"]),
        "serving: --feature-gates: unrecognized feature gate: HPAGeneration"
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("policy.yaml");
    let error = startup_error(&["--policy", missing.to_str().unwrap()]);
    let prefix = format!("serving: reading policy {}: ", missing.display());
    let cause = error.strip_prefix(&prefix).unwrap_or_else(|| panic!("{error}"));
    assert!(cause.contains("No such file") && !cause.contains("reading policy"), "{error}");
    assert_eq!(error.matches("No such file").count(), 1, "{error}");
}

/// `--log-format plain` wrote tracing's color escapes (`\x1b[2m...`) to a file or a pipe; they
/// are for a terminal only, as the flag's help says (`plain` in a terminal).
#[test]
fn plain_logs_to_a_pipe_have_no_color_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("policy.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_hpa-webhook"))
        .args(["serve", "--addr", "127.0.0.1:0", "--log-format", "plain", "--policy"])
        .arg(&missing)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("hpa-webhook failed"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}
