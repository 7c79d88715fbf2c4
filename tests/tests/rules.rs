//! Every rule, checked against its own documentation and fixtures, and `docs/rules.md`
//! checked against the registry.
//!
//! **Documentation examples.** The `## Example` section of each rule's documentation holds a
//! bad example, a line `Instead:`, and a good example, each a ```yaml block of complete
//! manifests. The bad one must produce at least one finding of the rule, the good one none,
//! and the good one must be clean under the default rules too (it is what users copy). Each
//! runs as one manifest set on standard input, with `--select <ID>` so that opt-in rules run,
//! and with the rule's fixture configuration (below) when it has one.
//!
//! **Fixtures.** `data/lint/<ID>/bad.yaml` and `data/lint/<ID>/good.yaml`, linted as files with
//! `--select <ID>` and `data/lint/<ID>/.hpa-lint.yaml` (`--config`) when it exists, else
//! `--no-config`. Only the diagnostics of rule `<ID>` are compared: `good.yaml` must have
//! none, and those of `bad.yaml` must be exactly the ones its markers announce, position for
//! position. A marker is a comment line directly below the flagged line:
//!
//! ```yaml
//!   maxReplicas: 5
//! #              ^ HPA101
//! ```
//!
//! - Each `^` marks the column it sits in and is followed by the rule ID; one marker line may
//!   hold several (`#   ^ HPA201   ^ HPA201`).
//! - Column 1 is taken by the `#` itself: `#<` followed by the ID marks column 1.
//! - Several marker lines in a row all mark the line above them (two findings at one place).
//! - A comment that contains a `^` but does not follow this syntax fails the test.
//! - A marker cannot follow a line that opens a block scalar (`key: |`): the comment would end
//!   the scalar. Write such values quoted on one line.
//!
//! The bad examples and fixtures of every rule but HPA000 are objects kube-apiserver accepts
//! (for an invalid object the linter reports only HPA000 and HPA401), and every good one is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hpa_core::rules::{self, RuleMeta};
use hpa_tests::cli::hpa_lint;
use serde_json::Value;

/// One reported diagnostic, reduced to what the tests compare.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Reported {
    line: u64,
    column: u64,
    rule: String,
    path: String,
    message: String,
}

fn fixture_dir(id: &str) -> PathBuf {
    hpa_tests::data_dir().join("lint").join(id)
}

/// `--config <dir>/.hpa-lint.yaml` when the fixture has one, else `--no-config`.
fn config_args(id: &str) -> Vec<String> {
    let config = fixture_dir(id).join(".hpa-lint.yaml");
    if config.is_file() { vec!["--config".into(), config.display().to_string()] } else { vec!["--no-config".into()] }
}

/// Lints `path` (`-`: `stdin`) with the rule's configuration and the extra arguments.
fn lint(id: &str, extra: &[&str], path: &str, stdin: &str) -> Result<Vec<Reported>, String> {
    let config = config_args(id);
    let mut args: Vec<&str> = config.iter().map(String::as_str).collect();
    args.extend(["-o", "json", "--fail-on", "never"]);
    args.extend(extra);
    args.push(path);
    let run = hpa_lint(&args, stdin);
    if run.code != 0 {
        return Err(format!("hpa-lint {} exited with {}: {}", args.join(" "), run.code, run.stderr));
    }
    let report: Value = serde_json::from_str(&run.stdout).map_err(|e| format!("not JSON ({e}): {}", run.stdout))?;
    let diagnostics = report["diagnostics"].as_array().cloned().unwrap_or_default();
    Ok(diagnostics
        .iter()
        .map(|d| Reported {
            line: d["line"].as_u64().unwrap_or(0),
            column: d["column"].as_u64().unwrap_or(0),
            rule: d["rule"].as_str().unwrap_or_default().to_string(),
            path: d["path"].as_str().unwrap_or_default().to_string(),
            message: d["message"].as_str().unwrap_or_default().to_string(),
        })
        .collect())
}

fn of_rule<'a>(reported: &'a [Reported], id: &str) -> Vec<&'a Reported> {
    reported.iter().filter(|r| r.rule == id).collect()
}

fn show(reported: &[&Reported]) -> String {
    reported.iter().map(|r| format!("\n    {}:{} {} {}: {}", r.line, r.column, r.rule, r.path, r.message)).collect()
}

// === documentation examples ===

/// The two ```yaml blocks of the `## Example` section (the bad one, then the good one), or why
/// the section does not have that shape.
fn examples(meta: &RuleMeta) -> Result<(String, String), String> {
    let docs = meta.docs();
    let start = docs.find("## Example\n").ok_or("no `## Example` section")?;
    let section = &docs[start + "## Example\n".len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut blocks: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    let mut instead_between = false;
    for line in section.lines() {
        match &mut current {
            None if line.trim_end() == "```yaml" => current = Some(String::new()),
            None if line.trim_end() == "Instead:" && blocks.len() == 1 => instead_between = true,
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    match (blocks.len(), instead_between) {
        (2, true) => {
            let good = blocks.pop().unwrap_or_default();
            let bad = blocks.pop().unwrap_or_default();
            Ok((bad, good))
        }
        (2, false) => Err("no line `Instead:` between the two yaml blocks".into()),
        (n, _) => Err(format!("{n} yaml blocks instead of two (bad, then good)")),
    }
}

fn check_examples(meta: &RuleMeta) -> Result<(), String> {
    let (bad, good) = examples(meta)?;
    let id = meta.id;
    let selected = ["--select", id];
    let found = lint(id, &selected, "-", &bad)?;
    if of_rule(&found, id).is_empty() {
        return Err(format!(
            "the bad example produces no {id} finding; it produces:{}",
            show(&found.iter().collect::<Vec<_>>())
        ));
    }
    if id != "HPA000" && !of_rule(&found, "HPA000").is_empty() {
        return Err(format!("the bad example is invalid:{}", show(&of_rule(&found, "HPA000"))));
    }
    let found = lint(id, &selected, "-", &good)?;
    if !found.is_empty() {
        return Err(format!("the good example produces:{}", show(&found.iter().collect::<Vec<_>>())));
    }
    let found = lint(id, &[], "-", &good)?;
    if !found.is_empty() {
        return Err(format!(
            "the good example is not clean under the default rules:{}",
            show(&found.iter().collect::<Vec<_>>())
        ));
    }
    Ok(())
}

#[test]
fn every_rule_documents_a_bad_and_a_good_example_that_behave_as_documented() {
    let failures: Vec<String> = rules::ALL
        .iter()
        .filter_map(|r| check_examples(r.meta()).err().map(|e| format!("{} {}: {e}", r.meta().id, r.meta().name)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// === fixtures ===

/// A marker: the (line, column) it points at and the rule it names.
type Marker = (u64, u64, String);

fn is_rule_id(s: &str) -> bool {
    s.len() == 6 && s.starts_with("HPA") && s[3..].chars().all(|c| c.is_ascii_digit())
}

/// Reads the markers of a fixture (see the module documentation).
fn markers(text: &str) -> Result<Vec<Marker>, String> {
    let mut out = Vec::new();
    let mut target = 0;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let chars: Vec<char> = line.chars().collect();
        let Some(hash) = chars.iter().position(|c| !c.is_whitespace()).filter(|&p| chars[p] == '#') else {
            target = number;
            continue;
        };
        let column_one = hash == 0 && chars.get(1) == Some(&'<');
        if !column_one && !chars.contains(&'^') {
            target = number;
            continue;
        }
        if target == 0 {
            return Err(format!("line {number}: a marker with no line above it"));
        }
        let mut i = hash + 1;
        let mut found = 0;
        while i < chars.len() {
            let column = match chars[i] {
                c if c.is_whitespace() => {
                    i += 1;
                    continue;
                }
                '<' if i == 1 => 1,
                '^' => i + 1,
                _ => return Err(format!("line {number}: expected `^ ID` at column {}: {line}", i + 1)),
            };
            i += 1;
            let spaces = chars[i..].iter().take_while(|c| c.is_whitespace()).count();
            let word: String = chars[i + spaces..].iter().take_while(|c| !c.is_whitespace()).collect();
            if spaces == 0 || !is_rule_id(&word) {
                return Err(format!("line {number}: a marker at column {column} is not followed by a rule ID: {line}"));
            }
            i += spaces + word.chars().count();
            out.push((target as u64, column as u64, word));
            found += 1;
        }
        if found == 0 {
            return Err(format!("line {number}: a marker line without markers: {line}"));
        }
    }
    Ok(out)
}

fn check_fixture(meta: &RuleMeta) -> Result<(), String> {
    let id = meta.id;
    let dir = fixture_dir(id);
    let read = |name: &str| {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok((path, text)),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    };
    let (bad_path, bad) = read("bad.yaml")?;
    let (good_path, _) = read("good.yaml")?;
    let selected = ["--select", id];
    let mut problems = String::new();

    let expected = markers(&bad).map_err(|e| format!("{}: {e}", bad_path.display()))?;
    if expected.is_empty() {
        return Err(format!("{}: no marker", bad_path.display()));
    }
    if let Some((line, column, other)) = expected.iter().find(|(_, _, rule)| rule != id) {
        return Err(format!("{}:{line}:{column}: a marker for {other}, not {id}", bad_path.display()));
    }
    let found = lint(id, &selected, &bad_path.display().to_string(), "")?;
    let mut actual: Vec<Marker> = of_rule(&found, id).iter().map(|r| (r.line, r.column, r.rule.clone())).collect();
    actual.sort();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    if actual != expected_sorted {
        let missing: Vec<&Marker> = expected_sorted.iter().filter(|m| !actual.contains(m)).collect();
        let unexpected: Vec<&Reported> = of_rule(&found, id)
            .into_iter()
            .filter(|r| !expected_sorted.contains(&(r.line, r.column, r.rule.clone())))
            .collect();
        let _ = write!(problems, "\n  {}: reported and marked differ", bad_path.display());
        for (line, column, rule) in &missing {
            let _ = write!(problems, "\n    marked, not reported: {line}:{column} {rule}");
        }
        for r in unexpected {
            let _ = write!(
                problems,
                "\n    reported, not marked: {}:{} {} {}: {}",
                r.line, r.column, r.rule, r.path, r.message
            );
        }
        if actual.len() != expected_sorted.len() {
            let _ = write!(problems, "\n    ({} marked, {} reported)", expected_sorted.len(), actual.len());
        }
    }
    if id != "HPA000" && !of_rule(&found, "HPA000").is_empty() {
        let _ = write!(problems, "\n  {}: invalid objects:{}", bad_path.display(), show(&of_rule(&found, "HPA000")));
    }

    let found = lint(id, &selected, &good_path.display().to_string(), "")?;
    if !found.is_empty() {
        let _ = write!(problems, "\n  {}: reports{}", good_path.display(), show(&found.iter().collect::<Vec<_>>()));
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

#[test]
fn every_rule_reports_exactly_the_marked_positions_of_its_fixture() {
    let failures: Vec<String> = rules::ALL
        .iter()
        .filter_map(|r| check_fixture(r.meta()).err().map(|e| format!("{} {}: {e}", r.meta().id, r.meta().name)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fixture_directories_are_rules() {
    for entry in std::fs::read_dir(hpa_tests::data_dir().join("lint")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(rules::find(&name).is_some_and(|r| r.meta().id == name), "data/lint/{name} is not a rule ID");
    }
}

#[test]
fn markers_are_read_as_documented() {
    let text = "a: 1\n#  ^ HPA101\nkey: value\n#<  HPA305 ^ HPA305\n#        ^ HPA305\n# an ordinary comment\n";
    assert_eq!(
        markers(text).unwrap(),
        vec![
            (1, 4, "HPA101".to_string()),
            (3, 1, "HPA305".to_string()),
            (3, 12, "HPA305".to_string()),
            (3, 10, "HPA305".to_string()),
        ]
    );
    assert!(markers("a: 1\n#  ^ oops\n").is_err());
    assert!(markers("a: 1\n#  ^ HPA101 and text\n").is_err());
    assert!(markers("#  ^ HPA101\n").is_err());
}

// === docs/rules.md ===

fn docs_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("docs").join("rules.md")
}

/// `docs/rules.md` is `hpa-lint rules -o markdown`; `UPDATE_DOCS=1` rewrites it.
#[test]
fn docs_rules_md_is_generated_from_the_registry() {
    let run = hpa_lint(&["rules", "-o", "markdown"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let path = docs_path();
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == run.stdout {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &run.stdout).unwrap();
        return;
    }
    panic!(
        "docs/rules.md is not what `hpa-lint rules -o markdown` generates; regenerate it with\n\n    \
         UPDATE_DOCS=1 cargo test -p hpa-tests docs_rules_md\n"
    );
}

// === hpa-lint rules --kubernetes-version ===

/// `hpa-lint rules --kubernetes-version` says, per rule that depends on the release, what it
/// does there, from the release's gates (and `--feature-gates` over them); without the flag the
/// list names no release.
#[test]
fn rules_say_what_differs_on_the_selected_release() {
    let run = hpa_lint(&["rules", "--kubernetes-version", "1.33"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let section: Vec<&str> =
        run.stdout.lines().skip_while(|l| !l.starts_with("On Kubernetes")).take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        section,
        [
            "On Kubernetes 1.33, the rules that depend on the release:",
            "HPA000  invalid: neither `scaleTargetRef.apiVersion` nor an Object metric's `describedObject.apiVersion` is checked for its group; `maxReplicas: 0` is `Invalid value: 0: must be greater than 0`; label messages say \"characters\" and \"a qualified name\"; values such as quantities are printed as Go structs; `status.conditions[].observedGeneration` is an unknown field; an `autoscaling/v1` Object metric's `\"targetValue\":\"0\"` next to an `averageValue` is refused (`must be positive`); `minReplicas: 0` is refused (HPAScaleToZero off); `behavior` tolerances are dropped silently (HPAConfigurableTolerance off).",
            "HPA201  missing-resource-request: the controller ignores pod-level requests, even with PodLevelResources on: every container needs its own request.",
            "HPA202  unknown-container: while a rollout adds or removes the container, the pods without it count with a request of 0.",
            "HPA206  invalid-metric-selector: the quoted error says \"a qualified name\" and \"must be no more than 63 characters\"; it prints the missing values of an `In` or `NotIn` as `[]string(nil)`.",
            "HPA306  tolerance-ignored: the rule reports every `behavior` tolerance (HPAConfigurableTolerance off).",
        ]
    );
    assert!(!hpa_lint(&["rules"], "").stdout.contains("On Kubernetes"));

    let one = hpa_lint(&["rules", "HPA306", "--kubernetes-version", "1.37"], "");
    assert_eq!(
        one.stdout.lines().nth(4),
        Some("On Kubernetes 1.37: HPAConfigurableTolerance is GA and locked on: the rule never reports."),
        "{}",
        one.stdout
    );
    let same = hpa_lint(&["rules", "HPA101", "--kubernetes-version", "1.35"], "");
    assert_eq!(same.stdout.lines().nth(4), Some("On Kubernetes 1.35: the same as on every supported release."));
    // 1.38 is the development branch: said wherever the release is named.
    let preview = hpa_lint(&["rules", "HPA101", "--kubernetes-version", "1.38"], "");
    assert_eq!(
        preview.stdout.lines().nth(4),
        Some("On Kubernetes 1.38 (a preview of the development branch): the same as on every supported release.")
    );
    // HPA000 on the preview: its quantity rules (#141203, #140459), not 1.37's.
    let invalid = |v: &str| {
        let run = hpa_lint(&["rules", "HPA000", "--kubernetes-version", v], "");
        run.stdout.lines().find(|l| l.starts_with("On Kubernetes")).unwrap_or_default().to_string()
    };
    let quantity_facts = "; a quantity's decimal exponent past ±2147483647 is refused; a quantity past the `E` suffix is written with its exponent (`1e21`);";
    assert!(invalid("1.38").contains(quantity_facts), "{}", invalid("1.38"));
    assert!(!invalid("1.37").contains("decimal exponent"), "{}", invalid("1.37"));
    // #137856 (1.36): a v1 Object metric's zero targetValue next to an averageValue.
    assert!(
        invalid("1.35").contains("`\"targetValue\":\"0\"` next to an `averageValue` is refused"),
        "{}",
        invalid("1.35")
    );
    assert!(!invalid("1.36").contains("targetValue"), "{}", invalid("1.36"));
    // HPA201: the pod's overhead counts with its pod-level requests from 1.34 to 1.37, not on
    // 1.38 (#142154), so a pod whose only cpu request is its overhead is reported on 1.38 only.
    let requests = |v: &str| {
        let run = hpa_lint(&["rules", "HPA201", "--kubernetes-version", v], "");
        run.stdout.lines().find(|l| l.starts_with("On Kubernetes")).unwrap_or_default().to_string()
    };
    let pod_level = "pod-level requests (`spec.template.spec.resources`) count: only a pod with no request at all for the resource is reported; ";
    assert_eq!(
        requests("1.37"),
        format!(
            "On Kubernetes 1.37: {pod_level}the pod's overhead (its RuntimeClass's `overhead.podFixed`) counts with them: a pod whose only request for the resource is its overhead is not reported."
        )
    );
    assert_eq!(requests("1.34"), requests("1.37").replace("1.37", "1.34"));
    assert_eq!(
        requests("1.38"),
        format!(
            "On Kubernetes 1.38 (a preview of the development branch): {pod_level}the pod's overhead does not count with them (#142154): a pod whose only request for the resource is its overhead is reported."
        )
    );

    // The gates given on the command line count, as in every other command.
    let json = hpa_lint(
        &[
            "rules",
            "HPA306",
            "-o",
            "json",
            "--kubernetes-version",
            "1.36",
            "--feature-gates",
            "HPAConfigurableTolerance=false",
        ],
        "",
    );
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v[0]["kubernetesVersion"], "1.36");
    assert_eq!(v[0]["onRelease"], "the rule reports every `behavior` tolerance (HPAConfigurableTolerance off)");
    let on = hpa_lint(&["rules", "HPA306", "-o", "json", "--kubernetes-version", "1.36"], "");
    let v: Value = serde_json::from_str(&on.stdout).unwrap();
    assert_eq!(
        v[0]["onRelease"],
        "HPAConfigurableTolerance is on: the rule reports nothing unless the gate is turned off"
    );
    assert!(hpa_lint(&["rules", "HPA306", "-o", "json"], "").stdout.find("onRelease").is_none());

    let md = hpa_lint(&["rules", "-o", "markdown", "--kubernetes-version", "1.35"], "");
    assert!(md.stdout.contains(
        "\n**On Kubernetes 1.35:** while a rollout adds or removes the container, the pods without it make a `Utilization` metric fail (`container <name> not found in Pod <pod>`).\n"
    ));

    let refused =
        hpa_lint(&["rules", "--kubernetes-version", "1.37", "--feature-gates", "HPAConfigurableTolerance=false"], "");
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.starts_with("hpa-lint: error: "), "{}", refused.stderr);
}
