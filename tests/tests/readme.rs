//! README.md and docs/*.md stay true where a new user checks them first: the outputs they show
//! are what the commands print on the bundled examples, the configuration example reads
//! without a word, the counts they give are the data's, and every relative link and anchor
//! resolves.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hpa_tests::cli::hpa_lint;

/// The checkout's root.
fn root() -> PathBuf {
    hpa_tests::data_dir().join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The fenced blocks of a Markdown text: (info string, body).
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => open = Some((info.trim().to_string(), String::new())),
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// The body of the one block whose body contains `marker`.
fn block_with<'a>(blocks: &'a [(String, String)], marker: &str) -> &'a str {
    let found: Vec<&str> = blocks.iter().filter(|(_, b)| b.contains(marker)).map(|(_, b)| b.as_str()).collect();
    assert_eq!(found.len(), 1, "README blocks containing {marker:?}: {found:#?}");
    found[0]
}

/// Output of a run from the `tests` package's directory, with paths as a run from the
/// checkout's root prints them.
fn from_root(text: &str) -> String {
    text.replace("../examples/", "examples/")
}

/// Every line of `shown` that is not an elision (`...`, `⋮ ...`) appears in `printed`, in order.
fn shown_in_order(shown: &str, printed: &str) {
    let printed: Vec<&str> = printed.lines().collect();
    let mut at = 0;
    for line in shown.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed == "..." || trimmed.starts_with('$') {
            continue;
        }
        match printed[at..].iter().position(|p| *p == line) {
            Some(i) => at += i + 1,
            None => panic!(
                "README shows {line:?}, which the command does not print (after line {at}):\n{}",
                printed.join("\n")
            ),
        }
    }
}

#[test]
fn the_json_example_is_what_the_command_prints() {
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let shown: serde_json::Value =
        serde_json::from_str(block_with(&blocks, "\"summary\": {\"files\"")).expect("README's JSON example parses");
    let run = hpa_lint(&["-o", "json", "../examples/manifests"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let printed: serde_json::Value = serde_json::from_str(&from_root(&run.stdout)).unwrap();
    assert_eq!(shown["version"], printed["version"]);
    assert_eq!(shown["summary"], printed["summary"], "README's summary of `hpa-lint -o json examples/manifests`");
    assert_eq!(shown["notes"], printed["notes"]);
    let example = &shown["diagnostics"][0];
    let diagnostics = printed["diagnostics"].as_array().unwrap();
    let same = diagnostics
        .iter()
        .find(|d| d["rule"] == example["rule"] && d["file"] == example["file"] && d["line"] == example["line"])
        .expect("README's example diagnostic is printed");
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(keys(example), keys(same), "the fields of a diagnostic");
    for (key, value) in example.as_object().unwrap() {
        // The message is shortened in the README.
        if key != "message" {
            assert_eq!(value, &same[key], "diagnostic field {key}");
        }
    }
}

#[test]
fn the_human_example_is_what_the_command_prints() {
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let shown = block_with(&blocks, "HPA201 missing-resource-request (https://");
    let run = hpa_lint(&["../examples/"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let printed = from_root(&run.stdout);
    assert!(printed.contains(shown), "README's HPA201 example is not in `hpa-lint examples/`:\n{printed}");
}

#[test]
fn the_simulate_and_explain_examples_are_what_the_commands_print() {
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let simulate = block_with(&blocks, "$ hpa-lint simulate examples/simulate/burst-legacy.yaml");
    let run = hpa_lint(&["simulate", "../examples/simulate/burst-legacy.yaml"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    shown_in_order(simulate, &from_root(&run.stdout));

    let explain = block_with(&blocks, "spec.behavior is not set, so the controller follows its legacy rules:");
    assert!(readme.contains("hpa-lint explain examples/simulate/burst-legacy-hpa.yaml\n"));
    let run = hpa_lint(&["explain", "../examples/simulate/burst-legacy-hpa.yaml"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    shown_in_order(explain, &from_root(&run.stdout));
}

#[test]
fn the_diagnose_example_is_what_the_command_prints() {
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let shown = block_with(
        &blocks,
        "$ cd tests/data/diagnose/published-1.23 && hpa-lint diagnose --snapshot objects.yaml pod-metrics.json php-apache",
    );
    let dir = "data/diagnose/published-1.23";
    let (objects, metrics) = (format!("{dir}/objects.yaml"), format!("{dir}/pod-metrics.json"));
    let run = hpa_lint(&["diagnose", "--snapshot", &objects, &metrics, "php-apache"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    shown_in_order(shown, &run.stdout);
}

#[test]
fn the_configuration_example_reads_without_a_warning() {
    let readme = read("README.md");
    let blocks = fenced_blocks(&readme);
    let example = block_with(&blocks, "maxScaleUpSeconds:");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".hpa-lint.yaml");
    std::fs::write(&config, example).unwrap();
    let config = config.display().to_string();
    let run = hpa_lint(&["--config", &config, "../examples/manifests/good"], "");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "README's .hpa-lint.yaml example on examples/manifests/good");
}

#[test]
fn the_counts_are_the_datas() {
    let readme = read("README.md");
    let manifests = std::fs::read_dir(hpa_tests::data_dir().join("realworld/hpa"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            [".yaml", ".yml", ".json"].iter().any(|ext| name.ends_with(ext))
        })
        .count();
    assert!(
        readme.contains(&format!("{manifests} real-world manifests")),
        "README should say `{manifests} real-world manifests` (tests/data/realworld/hpa)"
    );
}

/// GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced blocks), numbered as GitHub
/// numbers repeated ones.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')) else { continue };
        if fenced || !heading.starts_with(' ') {
            continue;
        }
        let base = anchor(heading.trim());
        let mut name = base.clone();
        let mut n = 0;
        while !out.insert(name.clone()) {
            n += 1;
            name = format!("{base}-{n}");
        }
    }
    out
}

#[test]
fn relative_links_and_anchors_resolve() {
    let root = root();
    let mut files = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            files.push(Path::new("docs").join(entry.file_name()));
        }
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let mut fenced = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if fenced {
                continue;
            }
            for (i, _) in line.match_indices("](") {
                let rest = &line[i + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = &rest[..end];
                if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                    continue;
                }
                let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
                let linked = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
                let place = format!("{}:{}: {target}", file.display(), n + 1);
                let Ok(linked_text) = std::fs::read_to_string(root.join(&linked)) else {
                    if !root.join(&linked).exists() {
                        broken.push(format!("{place}: no such file"));
                    }
                    continue;
                };
                if !fragment.is_empty()
                    && linked.extension().is_some_and(|e| e == "md")
                    && !anchors(&linked_text).contains(fragment)
                {
                    broken.push(format!("{place}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The link of each rule's diagnostics (SARIF's `helpUri`, the JSON `docs`) is docs/rules.md at
/// the rule's heading, as GitHub anchors it.
#[test]
fn every_rules_link_finds_its_heading() {
    let run = hpa_lint(&["-o", "sarif", "--fail-on", "never", "../examples/manifests"], "");
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), hpa_core::rules::ALL.len());
    let headings = anchors(&read("docs/rules.md"));
    for rule in rules {
        let uri = rule["helpUri"].as_str().unwrap();
        let (page, anchor) = uri.rsplit_once('#').unwrap();
        assert!(page.ends_with("/blob/main/docs/rules.md"), "{uri}");
        assert!(headings.contains(anchor), "{uri}: docs/rules.md has no such heading");
    }
}
