//! The two configuration files users write by hand, on any bytes: the linter's `.hpa-lint.yaml`
//! (`hpa_config::parse`, read by `hpa-lint --config` and `hpa-webhook serve --lint-config`) and
//! the webhook's policy (`Policy::parse`, read by `hpa-webhook serve --policy`, `policy check`
//! and `policy export`). Each input is both: the two share the YAML reader and the decoder, and
//! a seed of one kind explores the other's refusals too.
//!
//! The bytes are also written to a scratch file and read as the binaries read it: `hpa-lint
//! --config FILE -o json -` (on a small HPA) and `hpa-webhook policy check FILE` and `policy
//! export --policy FILE`, in-process.
//!
//! Invariants:
//! - no panic;
//! - an error names where it is: every line and column it gives lies within the input (counted
//!   as YAML counts them), and a problem of a policy that names no position is about the file as
//!   a whole (its `apiVersion` and `kind`); `hpa-lint` refuses a configuration it cannot use
//!   with exit status 2 and the file's name, `file:line:column` when the value is written;
//! - the commands agree with the parsers: `hpa-lint --config` refuses what `hpa_config::parse`
//!   refuses, with its message; `policy check` accepts what `Policy::parse` accepts and refuses
//!   the rest with its message (the file's name added);
//! - a file that parses reparses the same from its JSON (`sigs.k8s.io/yaml`'s conversion: the
//!   same object, as kubectl would send it; JSON is YAML, and both readers take it): the same
//!   configuration, the same policy;
//! - a valid policy exports to objects kube-apiserver accepts (`policy export`'s own check,
//!   under its default flags), and applies in any namespace without panicking.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_fuzz::{Lines, run_hpa_lint};
use hpa_lint::source;
use hpa_webhook::export::{self, ExportOptions};
use hpa_webhook::policy::{Policy, PolicyError};
use libfuzzer_sys::fuzz_target;

/// The scratch file the commands read (one per process: libFuzzer's `-jobs` and `-fork` run
/// several).
static SCRATCH: LazyLock<PathBuf> =
    LazyLock::new(|| std::env::temp_dir().join(format!("hpa-fuzz-config-{}.yaml", std::process::id())));

/// What `hpa-lint --config` lints: one small valid HPA.
const HPA: &str = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
";

fuzz_target!(|data: &[u8]| {
    let path = &*SCRATCH;
    std::fs::write(path, data).expect("the scratch file is writable");
    let lines = Lines::of_text(&String::from_utf8_lossy(data));
    lint_config(data, path, &lines);
    policy(data, path, &lines);
});

// === .hpa-lint.yaml ===

fn lint_config(data: &[u8], path: &Path, lines: &Lines) {
    let name = path.display().to_string();
    let parsed = std::str::from_utf8(data).map(|text| hpa_config::parse(&name, text));
    let (code, stderr) = hpa_lint(path);
    match &parsed {
        Ok(Ok(config)) => {
            let text = std::str::from_utf8(data).unwrap_or_default();
            reparses_as_json(text, config);
            for field in hpa_config::LOCATED {
                let at = config.at(field);
                assert!(at.starts_with(&name), "{field} is located outside the file: {at}");
                if let Some(position) = at.strip_prefix(&name).and_then(|p| p.strip_prefix(':')) {
                    lines.check(line_column(position), &at);
                }
            }
            if code == 2 {
                // The release, the gates or the controller's values: refused after reading.
                assert!(stderr.contains(&name), "a refused configuration is named: {stderr}");
            }
        }
        Ok(Err(error)) => {
            let message = error.to_string();
            let position = message
                .strip_prefix(&name)
                .and_then(|rest| rest.strip_prefix(':'))
                .unwrap_or_else(|| panic!("an error names the file: {message}"));
            lines.check(line_column(position), &message);
            assert_eq!(code, 2, "hpa-lint --config takes a configuration the parser refuses ({message})");
            assert!(stderr.contains(&message), "hpa-lint says why:\n{message}\nstderr:\n{stderr}");
        }
        Err(_) => {
            assert_eq!(code, 2, "hpa-lint --config takes a file that is not UTF-8");
            assert!(stderr.contains(&format!("{name}: not UTF-8")), "{stderr}");
        }
    }
}

/// `hpa-lint --config FILE -o json -` on [`HPA`]: its exit status and standard error.
fn hpa_lint(config: &Path) -> (u8, String) {
    let config = config.to_str().expect("the scratch path is UTF-8");
    let (code, out, err) = run_hpa_lint(&["--config", config, "-o", "json", "-"], HPA.as_bytes());
    assert!(code <= 2, "exit status {code}: {err}");
    if code < 2 {
        let _: serde_json::Value = serde_json::from_str(&out).expect("hpa-lint -o json prints JSON");
    } else {
        assert!(!err.is_empty(), "a usage error says why");
    }
    (code, err)
}

/// The configuration written as JSON reads the same.
fn reparses_as_json(text: &str, config: &hpa_config::Config) {
    let Some(json) = as_json(text) else { return };
    let again = hpa_config::parse("json", &json)
        .unwrap_or_else(|e| panic!("the configuration as JSON is refused: {e}\nJSON: {json}"));
    assert_eq!(
        format!("{:?} {:?}", again.file, again.levels),
        format!("{:?} {:?}", config.file, config.levels),
        "the configuration reads differently as JSON: {json}"
    );
}

// === the webhook's policy ===

fn policy(data: &[u8], path: &Path, lines: &Lines) {
    let parsed = std::str::from_utf8(data).map(Policy::parse);
    let args = hpa_webhook::cli::CheckArgs {
        policy: path.to_path_buf(),
        kubernetes_version: KubernetesVersion::LATEST,
        feature_gates: String::new(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let checked = hpa_webhook::policy::check(&args, &mut out, &mut err);
    match &parsed {
        Ok(Ok(policy)) => {
            if let Err(e) = &checked {
                panic!("policy check refuses a policy that parses: {e}");
            }
            let text = std::str::from_utf8(data).unwrap_or_default();
            if let Some(json) = as_json(text) {
                let again =
                    Policy::parse(&json).unwrap_or_else(|e| panic!("the policy as JSON is refused: {e}\nJSON: {json}"));
                assert_eq!(&again, policy, "the policy reads differently as JSON: {json}");
            }
            apply(policy);
        }
        Ok(Err(error)) => {
            located(error, lines);
            let Err(hpa_webhook::policy::CheckError::Policy(checked)) = &checked else {
                panic!("policy check does not refuse a policy that does not parse ({error}): {checked:?}");
            };
            let named = error.to_string().replacen("invalid policy", &format!("invalid policy {}", path.display()), 1);
            assert_eq!(checked.to_string(), named, "policy check words the refusal as the parser");
        }
        Err(_) => {
            let refused = checked.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(refused.contains("not UTF-8"), "policy check on bytes that are not UTF-8: {refused:?}");
        }
    }
}

/// Every position an error gives lies within the input; a problem without one is about the
/// file as a whole.
fn located(error: &PolicyError, lines: &Lines) {
    match error {
        PolicyError::Decode { errors, .. } => {
            assert!(!errors.is_empty(), "a refusal says why");
            for e in errors {
                lines.check((u64::from(e.line), u64::from(e.column)), &e.to_string());
            }
        }
        PolicyError::Invalid { problems, .. } => {
            assert!(!problems.is_empty(), "a refusal says why");
            for p in problems {
                match p.at {
                    Some((line, column)) => lines.check((u64::from(line), u64::from(column)), &p.to_string()),
                    None => assert!(
                        p.path.is_empty() && p.message.starts_with("expected apiVersion"),
                        "a problem names no position: {p}"
                    ),
                }
            }
        }
        other => panic!("Policy::parse reads no file: {other}"),
    }
}

/// The policy at work: in the namespaces it names and another, and exported.
fn apply(policy: &Policy) {
    let namespaces: Vec<&str> =
        policy.namespace_labels().keys().map(String::as_str).chain(["default", "kube-system"]).collect();
    let hpa = HorizontalPodAutoscaler::default();
    for namespace in namespaces {
        let effective = policy.effective(namespace);
        for tolerance in [false, true] {
            let mut behavior = None;
            let changed = effective.apply_behavior(&mut behavior, tolerance);
            assert_eq!(changed, behavior.is_some(), "apply_behavior says what it did");
            assert_eq!(changed, effective.sets_behavior(tolerance));
            // Filling again changes nothing.
            assert!(!effective.apply_behavior(&mut behavior, tolerance), "behavior defaults fill twice");
        }
        let _ = effective.violations(&hpa, namespace);
    }
    let _ = policy.ignored_tolerance(&FeatureGates::default());
    for release in [KubernetesVersion::LATEST, KubernetesVersion::V1_33] {
        let options = ExportOptions {
            name: "hpa-toolkit-policy".into(),
            validation_actions: None,
            excluded_namespaces: vec!["kube-system".into()],
            tolerance: true,
            release,
        };
        let exported = export::export(policy, &options);
        let refused = export::refusals(&exported.objects, release);
        assert!(refused.is_empty(), "kube-apiserver would refuse the export of a valid policy: {refused:?}");
    }
}

// === shared ===

/// The text's one document as JSON (`sigs.k8s.io/yaml`'s conversion, keys sorted as kubectl
/// sends them), when it has one and no key written twice (YAML keeps both, JSON the last).
fn as_json(text: &str) -> Option<String> {
    let document = source::read_document(text).ok().flatten()?;
    let root = document.root();
    if !source::read::duplicate_keys(root).is_empty() {
        return None;
    }
    Some(hpa_core::go::to_go_json(&root.to_json_in_key_order()).expect("a node converts to JSON"))
}

/// `line:column` at the start of `text`.
fn line_column(text: &str) -> (u64, u64) {
    let mut numbers = text.splitn(3, ':').map(|n| n.trim().parse::<u64>());
    match (numbers.next(), numbers.next()) {
        (Some(Ok(line)), Some(Ok(column))) => (line, column),
        _ => panic!("no line:column in {text:?}"),
    }
}
