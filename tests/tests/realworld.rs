//! The 146 real-world manifests of `data/realworld` (public repositories, unmodified): every
//! tool handles each one without a crash, stays quiet on the valid ones, and finds the real
//! mistakes.

use std::collections::{BTreeMap, BTreeSet};

use hpa_tests::cli::hpa_lint;

fn corpus() -> String {
    hpa_tests::data_dir().join("realworld").join("hpa").display().to_string()
}

/// The objects kube-apiserver rejects, reviewed one by one against `SOURCES.md` (each is a
/// mistake noted there, a fixture or fragment, a placeholder name, a removed version, or a
/// scale target without an API group).
fn expected_invalid() -> BTreeSet<String> {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("realworld/expected-invalid.txt")).unwrap();
    text.lines().map(str::to_string).collect()
}

/// `SOURCES.md`'s table: file name → (API versions, notes).
fn sources() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("realworld/SOURCES.md")).unwrap();
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells.len() > 9 && cells[1].parse::<u32>().is_ok())
                .then(|| (cells[2].trim_matches('`').to_string(), (cells[6].to_string(), cells[9].to_string())))
        })
        .collect()
}

fn file_name(diagnostic: &serde_json::Value) -> String {
    diagnostic["file"].as_str().unwrap().rsplit('/').next().unwrap().to_string()
}

/// (file, rule, severity) of every error and warning.
fn alarms(report: &serde_json::Value, rules: impl Fn(&str) -> bool) -> BTreeSet<(String, String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "info" && rules(d["rule"].as_str().unwrap()))
        .map(|d| (file_name(d), d["rule"].as_str().unwrap().to_string(), d["severity"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn lint_finds_the_mistakes_and_stays_quiet_on_the_rest() {
    let run = hpa_lint(&["--no-config", "-o", "json", &corpus()], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["summary"]["files"], 146);
    assert_eq!(report["summary"]["hpas"], 183);
    let sources = sources();
    assert_eq!(sources.len(), 146);

    // HPA000: exactly the files of the objects kube-apiserver rejects (plus one List without
    // a kind, which kubectl refuses before sending anything).
    let mut invalid_files: BTreeSet<String> =
        expected_invalid().iter().map(|l| l.split(' ').next().unwrap().to_string()).collect();
    invalid_files.insert("3siksfather__hpa__hpa.yaml".into());
    // An autoscaling/v2alpha1 object is reported as a removed version (HPA401) instead.
    invalid_files.remove("luxas__kubeadm-workshop__demos__monitoring__sample-hpa.yaml");
    let hpa000: BTreeSet<String> = alarms(&report, |r| r == "HPA000").into_iter().map(|(f, _, _)| f).collect();
    assert_eq!(hpa000, invalid_files);

    // HPA401: exactly the files with an HPA in a version Kubernetes 1.37 does not serve.
    let removed: BTreeSet<String> = sources
        .iter()
        .filter(|(_, (versions, _))| ["v2beta1", "v2beta2", "v2alpha1"].iter().any(|v| versions.contains(v)))
        .map(|(f, _)| f.clone())
        .collect();
    let hpa401: BTreeSet<String> = alarms(&report, |r| r == "HPA401").into_iter().map(|(f, _, _)| f).collect();
    assert_eq!(hpa401, removed);

    // Every other error and warning was reviewed (expected-lint.txt says why each is right).
    let text = std::fs::read_to_string(hpa_tests::data_dir().join("realworld/expected-lint.txt")).unwrap();
    let expected: BTreeSet<(String, String, String)> = text
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect();
    assert_eq!(alarms(&report, |r| r != "HPA000" && r != "HPA401"), expected);

    // Every mistake SOURCES.md notes is found.
    let alarmed: BTreeSet<String> = alarms(&report, |_| true).into_iter().map(|(f, _, _)| f).collect();
    for (file, (_, notes)) in &sources {
        if notes.contains("MISTAKE") {
            assert!(alarmed.contains(file), "{file}: {notes}");
        }
    }
    for d in report["diagnostics"].as_array().unwrap() {
        assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1, "positioned: {d}");
    }
}

/// The files come from unrelated repositories: the directory defines the same objects more
/// than once, so the linter checks each file with its own objects only, and linting the
/// directory finds what linting each file alone finds.
#[test]
fn lint_of_the_directory_equals_lint_of_each_file() {
    let key = |d: &serde_json::Value| format!("{} {}:{} {}", file_name(d), d["line"], d["column"], d["rule"]);
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", &corpus()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = run.json();
    assert_eq!(report["notes"].as_array().unwrap().len(), 1, "the split is said");
    let together: BTreeSet<String> = report["diagnostics"].as_array().unwrap().iter().map(key).collect();
    let mut alone = BTreeSet::new();
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path().display().to_string();
        let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", &path], "");
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        alone.extend(run.json()["diagnostics"].as_array().unwrap().iter().map(key));
    }
    assert_eq!(together, alone);
}

/// Several directories, the last of which defines an object twice: the split is said for
/// that directory, with the names of its two files (positions within a directory's group
/// were once taken for positions among all inputs, and linting crashed).
#[test]
fn a_directory_split_among_others_names_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let hpa = |name: &str| {
        format!(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}\n  minReplicas: 2\n  maxReplicas: 5\n"
        )
    };
    for d in ["a", "b", "c"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
        for f in 0..3 {
            std::fs::write(dir.path().join(format!("{d}/{f}.yaml")), hpa(&format!("{d}{f}"))).unwrap();
        }
    }
    std::fs::write(dir.path().join("c/dup.yaml"), hpa("c1")).unwrap();
    let root = dir.path().display().to_string();
    let run = hpa_lint(&["--no-config", "-o", "json", "--fail-on", "never", &root], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes = run.json()["notes"].clone();
    let notes: Vec<&str> = notes.as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let c = dir.path().join("c");
    assert!(notes[0].contains(&format!("defined in both {0}/1.yaml and {0}/dup.yaml", c.display())), "{notes:?}");
}

#[test]
fn validate_rejects_exactly_the_known_bad_objects() {
    let run = hpa_lint(&["validate", "-o", "json", &corpus()], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let entries = run.json();
    let entries = entries.as_array().unwrap();
    // 183 HPA objects, and the document of 3siksfather's hpa.yaml with `items` and no `kind`,
    // which kubectl refuses (`Object 'Kind' is missing`) as the linter says.
    assert_eq!(entries.len(), 184, "every HorizontalPodAutoscaler object is checked");
    let key = |e: &serde_json::Value| {
        let file = e["file"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
        let name = e["name"].as_str().unwrap();
        format!("{file} {} {}", e["document"], if name.is_empty() { "(no name)" } else { name })
    };
    // An HPA in a version 1.37 does not serve is refused by kubectl (its RESTMapper), never
    // sent: exactly those, whatever else is wrong with them.
    let unserved: BTreeSet<String> =
        entries.iter().filter(|e| e["errors"][0]["type"] == "NoKindMatch").map(key).collect();
    let written_unserved: BTreeSet<String> = entries
        .iter()
        .filter(|e| e["kind"] == "HorizontalPodAutoscaler")
        .filter(|e| !["autoscaling/v1", "autoscaling/v2"].contains(&e["apiVersion"].as_str().unwrap()))
        .map(key)
        .collect();
    assert_eq!(unserved, written_unserved);
    assert_eq!(unserved.len(), 61, "{unserved:?}");
    let invalid: BTreeSet<String> = entries.iter().filter(|e| e["allowed"] == false).map(key).collect();
    let sent_invalid: BTreeSet<String> = invalid.difference(&unserved).cloned().collect();
    let expected_sent: BTreeSet<String> = expected_invalid().difference(&unserved).cloned().collect();
    assert_eq!(sent_invalid, expected_sent);
    for e in entries {
        for err in e["errors"].as_array().unwrap() {
            assert!(err["line"].as_u64().unwrap() >= 1, "every error is positioned: {err}");
        }
    }
}

#[test]
fn default_handles_every_file() {
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path().display().to_string();
        let run = hpa_lint(&["default", "-o", "json", &path], "");
        assert!(run.code <= 1, "{path}: {}", run.stderr);
    }
}

/// The linter's objects reach hpa-core's decoder as YAML nodes; on every object of the corpus
/// that source reads exactly as the JSON kubectl would send (`sigs.k8s.io/yaml`'s conversion),
/// errors and all.
#[test]
fn yaml_nodes_read_as_the_json_kubectl_sends() {
    use hpa_core::api::{self, Strictness};
    use hpa_core::features::KubernetesVersion;
    let mut checked = 0;
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let parsed = hpa_lint::source::parse(&text);
        for obj in hpa_lint::input::objects_in(0, &parsed) {
            let field = |k: &str| obj.node.get(k).and_then(hpa_lint::source::Node::as_str).unwrap_or("").to_string();
            let source = hpa_lint::source::NodeSource::new(obj.node);
            let via_node = api::decode_source(
                &field("kind"),
                &field("apiVersion"),
                source,
                Strictness::Strict,
                KubernetesVersion::LATEST,
            );
            // A key written twice is kept in YAML (a duplicate field); the JSON kubectl sends
            // has only the last one.
            if !hpa_lint::source::read::duplicate_keys(obj.node).is_empty() {
                continue;
            }
            let json = hpa_core::go::to_go_json(&obj.node.to_json_in_key_order()).unwrap();
            let via_json = api::decode_json(&json, Strictness::Strict, KubernetesVersion::LATEST);
            assert_eq!(format!("{via_node:?}"), format!("{via_json:?}"));
            checked += 1;
        }
    }
    assert!(checked > 250, "{checked}");
}
