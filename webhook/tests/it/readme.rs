//! The operator's documents stay true where they list what keeps changing: the flag tables of
//! `webhook/README.md` are the CLI's (names, environment variables, defaults), every metric the
//! documents name is one `/metrics` serves and the webhook README names them all, and the chart
//! README's values table gives `values.yaml`'s defaults.

use std::collections::BTreeSet;

use clap::CommandFactory as _;
use serde_json::Value;

use hpa_webhook::cli::Args;
use hpa_webhook::metrics::{ExpositionFormat, Metrics};

use crate::support::{workspace, yaml_documents};

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rows (cells trimmed) of the Markdown table whose header line is `header`.
fn table(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "no table {header:?}");
    lines
        .skip(1) // the `| --- |` line
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The backquoted spans of a cell.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// A default cell: empty for an empty string, one quoted value, or no default ("none",
/// "(required)", prose).
fn default_of(cell: &str) -> Option<String> {
    if cell.is_empty() {
        return Some(String::new());
    }
    let inner = cell.strip_prefix('`')?.strip_suffix('`')?;
    (!inner.contains('`')).then(|| inner.to_string())
}

/// `a.{x,y}` for the `i`-th of several flags sharing a row: `a.x` or `a.y`.
fn alternative(value: &str, i: usize) -> String {
    match (value.find('{'), value.find('}')) {
        (Some(open), Some(close)) if open < close => {
            let choices: Vec<&str> = value[open + 1..close].split(',').collect();
            format!("{}{}{}", &value[..open], choices[i], &value[close + 1..])
        }
        _ => value.to_string(),
    }
}

/// Checks a flag table against `command`: each row's flags exist, with the row's environment
/// variables (when the table has that column) and default, and every visible flag has a row.
fn check_flag_table(command: &clap::Command, rows: &[Vec<String>], env_column: bool) {
    let name = command.get_name();
    let mut documented = BTreeSet::new();
    for row in rows {
        let flags = quoted(&row[0]);
        let envs = if env_column { quoted(&row[1]) } else { Vec::new() };
        let default_cell = &row[if env_column { 2 } else { 1 }];
        for (i, flag) in flags.iter().enumerate() {
            let long = flag.strip_prefix("--").unwrap_or_else(|| panic!("{name}: {flag:?} is no flag"));
            documented.insert(long.to_string());
            let arg = command
                .get_arguments()
                .find(|a| a.get_long() == Some(long))
                .unwrap_or_else(|| panic!("{name}: the README's {flag} is not a flag of the CLI"));
            if env_column {
                let env = arg.get_env().map(|e| e.to_string_lossy().into_owned());
                assert_eq!(env.as_deref(), envs.get(i).copied(), "{name} {flag}: environment variable");
            }
            let want = default_of(default_cell).map(|d| alternative(&d, i));
            let have: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
            let have = (!have.is_empty()).then(|| have.join(","));
            assert_eq!(have, want, "{name} {flag}: the README's default {default_cell:?}");
        }
    }
    let visible: BTreeSet<String> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long())
        .filter(|l| !["help", "version"].contains(l))
        .map(str::to_string)
        .collect();
    assert_eq!(documented, visible, "{name}: the README's flag table and the CLI's flags");
}

#[test]
fn the_flag_tables_are_the_clis() {
    let readme = read("webhook/README.md");
    let mut cli = Args::command();
    cli.build();
    let serve = cli.find_subcommand("serve").unwrap();
    check_flag_table(serve, &table(&readme, "| flag | environment | default | meaning |"), true);
    let export = cli.find_subcommand("policy").unwrap().find_subcommand("export").unwrap();
    check_flag_table(export, &table(&readme, "| flag | default | meaning |"), false);
}

/// The metric families `/metrics` serves (classic text format names: counters with `_total`).
fn metric_families() -> BTreeSet<String> {
    Metrics::new()
        .render(ExpositionFormat::Text)
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .map(str::to_string)
        .collect()
}

/// The `hpa_webhook_*` names `text` mentions.
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("hpa_webhook_") {
        let tail = &rest[at..];
        let end = tail.find(|c: char| !(c.is_ascii_lowercase() || c == '_')).unwrap_or(tail.len());
        names.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    names
}

#[test]
fn the_metrics_the_documents_name_are_served() {
    let families = metric_families();
    let served = |name: &str| {
        families.contains(name)
            || ["_bucket", "_count", "_sum"]
                .iter()
                .any(|s| name.strip_suffix(s).is_some_and(|family| families.contains(family)))
    };
    for path in [
        "webhook/README.md",
        "README.md",
        "charts/hpa-webhook/README.md",
        "charts/hpa-webhook/values.yaml",
        "charts/hpa-webhook/templates/NOTES.txt",
        "certs/README.md",
        "manifests/base/rbac.yaml",
    ] {
        for name in metric_names(&read(path)) {
            assert!(served(&name), "{path} names {name}, which /metrics does not serve: {families:?}");
        }
    }
    // The README's Metrics list names every family.
    let readme = read("webhook/README.md");
    let list = readme.split("- **Metrics**").nth(1).unwrap().split("\n- **").next().unwrap();
    let listed = metric_names(list);
    let missing: Vec<&String> = families.iter().filter(|f| !listed.contains(*f)).collect();
    assert!(missing.is_empty(), "webhook/README.md, Operations, Metrics: not listed: {missing:?}");
}

/// The value at a dotted `path` of `values`.
fn at<'a>(values: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(values, |v, key| v.get(key))
}

#[test]
fn the_chart_values_table_gives_values_yaml_defaults() {
    let values = &yaml_documents(&read("charts/hpa-webhook/values.yaml"))[0];
    let readme = read("charts/hpa-webhook/README.md");
    let rows = table(&readme, "| key | default | meaning |");
    assert!(rows.len() > 10, "{rows:?}");
    for row in &rows {
        let keys = quoted(&row[0]);
        // `a.b`, `c`, `d`: siblings of the first key share its parent.
        let first = keys[0];
        let parent = first.rsplit_once('.').map_or("", |(p, _)| p);
        for key in &keys {
            let key = if key.contains('.') || parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") };
            if let Some(prefix) = key.strip_suffix(".*") {
                assert!(at(values, prefix).is_some_and(Value::is_object), "chart README: {key} is not in values.yaml");
                continue;
            }
            let value = at(values, &key).unwrap_or_else(|| panic!("chart README: {key} is not in values.yaml"));
            match (row[1].as_str(), default_of(&row[1])) {
                ("none", _) => {
                    let empty = value.as_object().is_some_and(|o| o.is_empty())
                        || value.as_array().is_some_and(|a| a.is_empty())
                        || value.as_str() == Some("");
                    assert!(empty, "chart README: {key} defaults to none, values.yaml has {value}");
                }
                ("", _) => {}
                (cell, Some(text)) => {
                    let documented = &yaml_documents(&format!("v: {text}\n"))[0]["v"];
                    assert_eq!(value, documented, "chart README: {key}'s default {cell}");
                }
                (cell, None) => panic!("chart README: {key}'s default {cell:?} is not a value"),
            }
        }
    }
}
