//! `hpa-lint rules [RULE]`: the rule list, one rule's documentation, or the Markdown reference
//! (`docs/rules.md` is generated from it and checked by a test). With `--kubernetes-version` or
//! `--feature-gates`, each rule whose verdict depends on the release also says what it does on
//! the one selected (`Rule::on_release`).

use hpa_core::features::{FeatureGates, KubernetesVersion};
use hpa_core::rules::{self, Rule, RuleMeta};
use serde_json::json;

use super::common;
use super::settings::settings;
use crate::cli::{ClusterArgs, ConfigArgs, RulesArgs, RulesFormat};
use crate::linter::report::docs_url;
use crate::{ExitStatus, Output};

/// The release `rules` describes the rules on, with what each rule does differently there.
struct Release {
    /// The release and gates selected.
    gates: FeatureGates,
    /// `On Kubernetes 1.33` (and the gates given).
    title: String,
}

impl Release {
    /// The release of the flags.
    fn new(gates: FeatureGates, cluster: &ClusterArgs) -> Release {
        let mut title = format!("On Kubernetes {}", gates.version());
        if gates.version() == KubernetesVersion::PREVIEW {
            title.push_str(" (a preview of the development branch)");
        }
        if !cluster.feature_gates.is_empty() {
            title.push_str(&format!(" with --feature-gates {}", cluster.feature_gates.join(",")));
        }
        Release { gates, title }
    }

    /// What `rule` does on this release, or `None` when it is the same on every release.
    fn of(&self, rule: &dyn Rule) -> Option<String> {
        rule.on_release(&self.gates)
    }
}

/// Runs `rules`. The release comes from `--kubernetes-version` and `--feature-gates` only (as
/// `commands::settings::settings` turns them into gates, reading no configuration file), so
/// that the reference reads the same in every directory.
pub fn run(args: &RulesArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    let selected: Vec<&'static dyn Rule> = match &args.rule {
        Some(r) => match rules::find(r) {
            Some(rule) => vec![rule],
            None => return out.usage_error(&format!("unknown rule {r:?} (see `hpa-lint rules`)")),
        },
        None => rules::ALL.to_vec(),
    };
    let release = if cluster.kubernetes_version.is_some() || !cluster.feature_gates.is_empty() {
        let no_config = ConfigArgs { config: None, no_config: true };
        match settings(&no_config, cluster, &[], out) {
            Ok(resolved) => Some(Release::new(resolved.settings.gates().clone(), cluster)),
            Err(e) => return out.fail(&e),
        }
    } else {
        None
    };
    let release = release.as_ref();
    let text = match (args.output, &args.rule) {
        (RulesFormat::Json, _) => {
            let v: Vec<_> = selected
                .iter()
                .map(|r| {
                    let m = r.meta();
                    let mut v = json!({"id": m.id, "name": m.name, "severity": m.severity.as_str(), "summary": m.summary,
                           "needsObjects": m.needs_objects, "enabledByDefault": m.enabled_by_default,
                           "documentation": m.docs(), "url": docs_url(m)});
                    if let (Some(release), Some(obj)) = (release, v.as_object_mut()) {
                        obj.insert("kubernetesVersion".into(), json!(release.gates.version().to_string()));
                        obj.insert("onRelease".into(), json!(release.of(*r)));
                    }
                    v
                })
                .collect();
            common::json_text(&v)
        }
        (RulesFormat::Markdown, None) => markdown_on(release),
        (RulesFormat::Markdown, Some(_)) | (RulesFormat::Human, Some(_)) => {
            selected.iter().map(|r| one(*r, release)).collect()
        }
        (RulesFormat::Human, None) => table(&selected, release),
    };
    out.write(&text);
    ExitStatus::Clean
}

fn table(selected: &[&'static dyn Rule], release: Option<&Release>) -> String {
    let w = selected.iter().map(|r| r.meta().name.len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in selected {
        let m = r.meta();
        let opt_in = if m.enabled_by_default { "" } else { "opt-in" };
        s.push_str(&format!("{}  {:<w$}  {:<7}  {:<6}  {}\n", m.id, m.name, m.severity.as_str(), opt_in, m.summary));
    }
    if let Some(release) = release {
        s.push_str(&format!("\n{}, the rules that depend on the release:\n", release.title));
        for r in selected {
            if let Some(text) = release.of(*r) {
                s.push_str(&format!("{}  {}: {text}.\n", r.meta().id, r.meta().name));
            }
        }
    }
    s.push_str(
        "\nOpt-in rules run with `--select <ID>` (or `--select all`) or a level under `rules:` in .hpa-lint.yaml.\n\
         `hpa-lint rules <ID>` prints a rule's documentation; `--kubernetes-version` says what differs on a release.\n",
    );
    s
}

/// "warning by default; opt-in; looks at ..." for one rule.
fn traits(m: &RuleMeta) -> String {
    let mut s = format!("{} by default", m.severity.as_str());
    if !m.enabled_by_default {
        s.push_str(&format!("; opt-in: runs with `--select {}` or a level in .hpa-lint.yaml", m.id));
    }
    if m.needs_objects {
        s.push_str("; looks at other objects: the manifest set's, or live the cluster's");
    }
    s
}

fn one(rule: &dyn Rule, release: Option<&Release>) -> String {
    let m = rule.meta();
    let mut s = format!("{} {} ({})\n\n{}\n\n", m.id, m.name, traits(m), m.summary);
    if let Some(release) = release {
        let title = &release.title;
        match release.of(rule) {
            Some(text) => s.push_str(&format!("{title}: {text}.\n\n")),
            None => s.push_str(&format!("{title}: the same as on every supported release.\n\n")),
        }
    }
    s.push_str(m.docs().trim_end());
    s.push('\n');
    s
}

/// The anchor diagnostics link to (`report::docs_url`): GitHub's anchor of the rule's heading
/// `## HPA101 min-replicas-equals-max`.
fn anchor(m: &RuleMeta) -> String {
    docs_url(m).rsplit_once('#').map(|(_, anchor)| anchor.to_string()).unwrap_or_default()
}

/// A rule's heading in the reference.
fn heading(m: &RuleMeta) -> String {
    format!("{} {}", m.id, m.name)
}

/// A rule's documentation one heading level down (`## What it checks` becomes `###`), leaving
/// code blocks alone.
fn demoted(docs: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in docs.trim().lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The rule reference as Markdown (the content of `docs/rules.md`): a table of contents, then
/// every rule's documentation under a heading whose anchor the diagnostics link to; with a
/// release, also what each rule that depends on it does there, under its heading.
fn markdown_on(release: Option<&Release>) -> String {
    let mut s = String::from(
        "# hpa-lint rules\n\n\
         <!-- Generated by `hpa-lint rules -o markdown` from the rules' doc comments. A test keeps it current; \
         regenerate it with `UPDATE_DOCS=1 cargo test -p hpa-tests docs_rules_md`. -->\n\n\
         Severities are defaults: `.hpa-lint.yaml` changes them (`rules: {HPA101: error}`), `--ignore` turns a rule \
         off, and the annotation `hpa-lint.dev/ignore: \"HPA101,HPA102 -- reason\"` silences rules for one object. \
         HPA000 (what kube-apiserver rejects) cannot be turned off. Opt-in rules run only when selected: \
         `--select <ID>`, `--select all`, or a level under `rules:` in `.hpa-lint.yaml`. Rules marked \
         *cross-object* look at other objects (the workload, PodDisruptionBudgets, VerticalPodAutoscalers, KEDA \
         ScaledObjects, LimitRanges, RuntimeClasses, CustomResourceDefinitions, the other HPAs): in files, those of \
         the HPA's manifest set; with `hpa-lint cluster`, the cluster's; in `hpa-webhook`, those of its context cache \
         (`--context-cache`), which watches the same kinds but no custom resource.\n\n\
         | ID | name | severity | opt-in | summary |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in rules::ALL {
        let m = r.meta();
        s.push_str(&format!(
            "| [{}](#{}) | `{}` | {} | {} | {}{} |\n",
            m.id,
            anchor(m),
            m.name,
            m.severity.as_str(),
            if m.enabled_by_default { "" } else { "opt-in" },
            m.summary,
            if m.needs_objects { " (cross-object)" } else { "" },
        ));
    }
    for r in rules::ALL {
        let m = r.meta();
        s.push_str(&format!("\n## {}\n\n*{}.* Default severity: **{}**", heading(m), m.summary, m.severity.as_str()));
        if !m.enabled_by_default {
            s.push_str(&format!("; opt-in (`--select {}`)", m.id));
        }
        if m.needs_objects {
            s.push_str("; cross-object");
        }
        s.push_str(".\n\n");
        if let Some(text) = release.and_then(|release| Some(format!("**{}:** {}.\n\n", release.title, release.of(*r)?)))
        {
            s.push_str(&text);
        }
        s.push_str(&demoted(&m.docs()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Each rule has its heading; that the links of diagnostics (SARIF's `helpUri`) find it in
    /// docs/rules.md is `tests/tests/readme.rs`'s to check, with GitHub's anchors.
    fn headings_have_the_anchors_diagnostics_link_to() {
        for r in rules::ALL {
            let m = r.meta();
            assert!(markdown_on(None).contains(&format!("\n## {}\n", heading(m))));
        }
        assert_eq!(anchor(rules::ALL[2].meta()), "hpa101-min-replicas-equals-max");
    }

    #[test]
    fn sections_are_demoted_outside_code_blocks_only() {
        assert_eq!(
            demoted("## What\n\n```yaml\n## not a heading\n```\n"),
            "### What\n\n```yaml\n## not a heading\n```\n"
        );
    }
}
