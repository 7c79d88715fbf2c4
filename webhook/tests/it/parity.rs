//! One behavior, both front ends: the same HPAs fed to `hpa-lint` (in-process, each HPA alone
//! on standard input, default rules) and to the webhook's `/validate` (as kube-apiserver sends
//! them: defaulted, in a CREATE review) give the same rule IDs.
//!
//! - The HPAs: every rule's documentation examples (bad and good), every lint fixture
//!   (`tests/data/lint/*/{bad,good}.yaml`) and the real-world manifests.
//! - The webhook's IDs: those of its warnings (`HPA101 min-replicas-equals-max: ...`), and
//!   `HPA000` when it denies the object with kube-apiserver's `Invalid` status.
//! - The linter's IDs: its diagnostics on the HPA at warning severity or above (the webhook
//!   turns informational findings into no warning), of the rules that need only the HPA (this
//!   webhook has no view of the other objects).
//! - Objects kube-apiserver cannot decode, and versions the release no longer serves, never
//!   reach a webhook: they are counted, not compared.

use std::collections::BTreeSet;
use std::path::Path;

use clap::Parser as _;
use hpa_core::api::{self, VersionedHpa};
use hpa_core::features::KubernetesVersion;
use hpa_core::rules::{self, Severity};
use serde_json::Value;

use crate::support::{Harness, response, review, workspace};

/// The IDs `hpa-lint` reports for one object (JSON text on standard input).
fn lint_ids(object: &Value) -> BTreeSet<String> {
    let args =
        hpa_lint::cli::Args::try_parse_from(["hpa-lint", "--no-config", "-o", "json", "--fail-on", "never", "-"])
            .unwrap();
    let text = object.to_string();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = text.as_bytes();
    let mut io = hpa_lint::Output { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    assert_eq!(code, 0, "{text}: {}", String::from_utf8_lossy(&stderr));
    let report: Value = serde_json::from_slice(&stdout).unwrap();
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| matches!(d["severity"].as_str(), Some("error" | "warning")))
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .filter(|id| rules::find(id).is_some_and(|r| !r.meta().needs_objects))
        .collect()
}

/// The IDs the webhook reports for one object as kube-apiserver sends it.
async fn webhook_ids(h: &Harness, object: &Value) -> BTreeSet<String> {
    let answer = h.post("/validate", &review("parity", "CREATE", object, None)).await;
    let r = response(&answer);
    let mut ids: BTreeSet<String> = r["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w.as_str()?.split(' ').next()).map(String::from).collect())
        .unwrap_or_default();
    ids.retain(|id| rules::find(id).is_some());
    if r["allowed"] == false {
        assert_eq!(r["status"]["reason"], "Invalid", "{object}: {r}");
        ids.insert(rules::INVALID.id.to_string());
    }
    ids
}

/// The ```yaml blocks of a rule's documentation.
fn doc_examples(docs: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in docs.lines() {
        match &mut current {
            None if line.trim_end() == "```yaml" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

fn yaml_files(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        }
    }
}

#[tokio::test]
async fn the_linter_and_the_webhook_report_the_same_rules() {
    let mut inputs: Vec<(String, String)> = Vec::new();
    for rule in rules::ALL {
        for (i, example) in doc_examples(&rule.meta().docs()).into_iter().enumerate() {
            inputs.push((format!("{} example {i}", rule.meta().id), example));
        }
    }
    let data = workspace().join("tests/data");
    yaml_files(&data.join("lint"), &mut inputs);
    yaml_files(&data.join("realworld"), &mut inputs);

    let h = Harness::default_config();
    let release = KubernetesVersion::LATEST;
    let (mut compared, mut unreachable) = (0, 0);
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut failures = Vec::new();
    for (name, text) in &inputs {
        let file = hpa_lint::input::from_bytes(name.clone(), text.clone().into_bytes());
        for obj in hpa_lint::input::objects(0, &file).iter().filter(|o| o.is_hpa()) {
            let written = obj.node.to_json();
            // What kube-apiserver would send the webhook: the object decoded (strictly, as kubectl
            // asks) and defaulted; an object it refuses to decode, or of a version it no longer
            // serves, never reaches a webhook.
            let Ok(mut sent) = api::decode(&written) else {
                unreachable += 1;
                continue;
            };
            if sent.api_version().removed_in().is_some_and(|minor| release.minor() >= minor) {
                unreachable += 1;
                continue;
            }
            hpa_core::defaults::default_versioned(&mut sent);
            let sent: Value = VersionedHpa::to_json(&sent);
            let (lint, webhook) = (lint_ids(&written), webhook_ids(&h, &sent).await);
            if lint != webhook {
                failures.push(format!("{name}: hpa-lint {lint:?}, webhook {webhook:?}\n  {written}"));
            }
            seen.extend(lint);
            compared += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {compared} HPAs differ:\n{}", failures.len(), failures.join("\n"));
    // The comparison covers refused objects and every single-object rule at warning severity
    // or above, not only clean ones, except those no HPA here can show under the defaults:
    // HPA103 needs a `maxReplicasLimit`, HPA306 a release without `HPAConfigurableTolerance`,
    // HPA401 a version the release no longer serves (never sent to a webhook), HPA406 is
    // about objects that are not HPAs, and HPA001 about a key a file writes twice (kubectl sends
    // it once: no object a webhook is sent has one).
    const UNREACHABLE: [&str; 5] = ["HPA001", "HPA103", "HPA306", "HPA401", "HPA406"];
    let expected: BTreeSet<String> = rules::ALL
        .iter()
        .map(|r| r.meta())
        .filter(|m| !m.needs_objects && m.enabled_by_default && m.severity >= Severity::Warning)
        .filter(|m| !UNREACHABLE.contains(&m.id))
        .map(|m| m.id.to_string())
        .collect();
    let missing: Vec<&String> = expected.difference(&seen).collect();
    assert!(missing.is_empty(), "no compared HPA has a finding of {missing:?} ({compared} compared)");
    assert!(compared > 100 && unreachable > 0, "{compared} compared, {unreachable} unreachable");
}
