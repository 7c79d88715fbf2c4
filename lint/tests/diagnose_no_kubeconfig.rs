//! `hpa-lint diagnose` with no kubeconfig anywhere and outside a cluster: the binary, in an
//! environment of its own (no `$KUBECONFIG`, a `$HOME` without `.kube/`, no in-cluster
//! variables), says so in one sentence and exits 2.

use std::process::Command;

#[test]
fn no_kubeconfig_is_one_sentence_and_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hpa-lint"))
        .args(["diagnose", "-n", "shop", "web"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hpa-lint: error: no kubeconfig found (looked at $KUBECONFIG, ~/.kube/config and the in-cluster service account) and not running inside a cluster: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config\n"
    );
}
