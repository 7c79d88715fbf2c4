//! Per-object suppression: the [`IGNORE_ANNOTATION`] an object carries to opt out of rules.
//!
//! One implementation for every front end: `hpa-lint` reads it on the objects of files and of
//! live clusters, `hpa-webhook` on the HPA under admission, on the objects of its context cache
//! and on the workload under admission; [`suppressed`] is the one decision of which
//! annotation covers a finding at its location.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::{Finding, FindingField, INVALID, ObjectId, RuleMeta};

/// The annotation that opts one object out of rules, by ID or name, with an optional reason
/// (`hpa-lint.dev/ignore: "HPA101,HPA102 -- reason"`; `all` opts out of every rule).
///
/// It waives findings, never kube-apiserver's verdict: `HPA000` (kube-apiserver's own errors)
/// is never suppressed, and at admission the annotation leaves out **warnings** only: a
/// finding the organization policy's `denyRules` deny on, a policy constraint enforced with
/// `Deny` and a validation error still deny (they are the organization's and the API
/// server's, not the app team's to waive).
pub const IGNORE_ANNOTATION: &str = "hpa-lint.dev/ignore";

/// The rules an object opts out of: the parsed value of its [`IGNORE_ANNOTATION`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ignore {
    /// IDs or names, as written.
    pub rules: Vec<String>,
    /// The reason given, if any.
    pub reason: Option<String>,
}

impl Ignore {
    /// Parses the annotation's value: rule IDs or names separated by commas or spaces,
    /// optionally followed by ` -- reason` (or `: reason`).
    pub fn parse(value: &str) -> Ignore {
        let (list, reason) = match value.split_once(" -- ").or_else(|| value.split_once(": ")) {
            Some((l, r)) => (l, Some(r.trim().to_string()).filter(|r| !r.is_empty())),
            None => (value, None),
        };
        Ignore {
            rules: list.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect(),
            reason,
        }
    }

    /// The suppression in an object's annotations (none when it has no [`IGNORE_ANNOTATION`]).
    pub fn from_annotations(annotations: &BTreeMap<String, String>) -> Ignore {
        annotations.get(IGNORE_ANNOTATION).map(|v| Ignore::parse(v)).unwrap_or_default()
    }

    /// The suppression of an object read as JSON (a live object, an admission request's).
    pub fn from_json(object: &serde_json::Value) -> Ignore {
        object
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(IGNORE_ANNOTATION))
            .and_then(serde_json::Value::as_str)
            .map(Ignore::parse)
            .unwrap_or_default()
    }

    /// Whether a rule is ignored (`all` ignores every rule; IDs match in any case, names
    /// exactly).
    pub fn covers(&self, rule: &RuleMeta) -> bool {
        self.rules.iter().any(|r| r == "all" || r.eq_ignore_ascii_case(rule.id) || r == rule.name)
    }

    /// Whether it lists no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Whether a finding of an HPA's report is left out by an `hpa-lint.dev/ignore` annotation, as
/// every front end decides it: the HPA's own annotation (`hpa`) covers every finding of its
/// report; a finding located on another object (HPA410 on a Deployment's `spec.replicas`, a
/// finding on a PodDisruptionBudget, a VPA, a ScaledObject) is also covered by **that**
/// object's annotation, which `object` looks up by identity (`None`: the object is unknown or
/// has no annotation). `HPA000` (kube-apiserver's own errors) is never left out.
///
/// Related places of a finding do not suppress it: only where it is located.
pub fn suppressed<I: Borrow<Ignore>>(
    finding: &Finding,
    hpa: &Ignore,
    object: impl FnOnce(&ObjectId) -> Option<I>,
) -> bool {
    if finding.rule.id == INVALID.id {
        return false;
    }
    hpa.covers(finding.rule)
        || match &finding.location {
            FindingField::Object { id, .. } => object(id).is_some_and(|i| i.borrow().covers(finding.rule)),
            FindingField::Hpa(_) => false,
        }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rules::find;

    #[test]
    fn parses_ids_names_and_reasons() {
        let i = Ignore::parse("HPA101, min-replicas-below-threshold -- a singleton by design");
        assert_eq!(i.rules, ["HPA101", "min-replicas-below-threshold"]);
        assert_eq!(i.reason.as_deref(), Some("a singleton by design"));
        assert_eq!(Ignore::parse("HPA012,HPA020").rules.len(), 2);
        assert_eq!(Ignore::parse("HPA101: why").reason.as_deref(), Some("why"));
        assert_eq!(Ignore::parse("HPA101 -- ").reason, None);
        assert!(Ignore::parse("").is_empty());
    }

    #[test]
    fn covers_ids_in_any_case_names_and_all() {
        let Some(rule) = find("HPA101") else { panic!("HPA101 is registered") };
        let rule = rule.meta();
        let Some(other) = find("HPA201") else { panic!("HPA201 is registered") };
        let other = other.meta();
        assert!(Ignore::parse("hpa101").covers(rule));
        assert!(Ignore::parse(rule.name).covers(rule));
        assert!(!Ignore::parse(&rule.name.to_uppercase()).covers(rule));
        assert!(Ignore::parse("all -- a test namespace").covers(other));
        assert!(!Ignore::parse("HPA101").covers(other));
        assert!(!Ignore::default().covers(rule));
    }

    #[test]
    fn the_annotation_of_the_object_a_finding_is_located_on_covers_it() {
        let Some(rule) = find("HPA410") else { panic!("HPA410 is registered") };
        let web = ObjectId {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: "shop".into(),
            name: "web".into(),
        };
        let on_web = Finding::new(rule.meta(), "spec.minReplicas", "m").on_object(web.clone(), "spec.replicas");
        let on_hpa = Finding::new(rule.meta(), "spec.minReplicas", "m");
        let waived = Ignore::parse("HPA410 -- replicas owned by the rollout tool");
        let none = Ignore::default();
        let web_waives = |id: &ObjectId| (id == &web).then_some(&waived);
        assert!(suppressed(&on_web, &none, web_waives));
        assert!(suppressed(&on_web, &waived, |_| None::<Ignore>));
        assert!(!suppressed(&on_web, &none, |_| None::<Ignore>));
        assert!(!suppressed(&on_web, &none, |_| Some(Ignore::parse("HPA201"))));
        // On the HPA: the HPA's annotation only.
        assert!(!suppressed(&on_hpa, &none, |_| Some(&waived)));
        assert!(suppressed(&on_hpa, &waived, |_| None::<Ignore>));
        // kube-apiserver's errors are never waived.
        let invalid = Finding::new(INVALID, "spec.maxReplicas", "m");
        assert!(!suppressed(&invalid, &Ignore::parse("all"), |_| Some(Ignore::parse("all"))));
    }

    #[test]
    fn read_from_annotations_and_json() {
        let object = json!({"metadata": {"annotations": {IGNORE_ANNOTATION: "HPA101 -- why"}}});
        assert_eq!(Ignore::from_json(&object), Ignore::parse("HPA101 -- why"));
        assert_eq!(Ignore::from_json(&json!({"metadata": {}})), Ignore::default());
        assert_eq!(Ignore::from_json(&json!({"metadata": {"annotations": {IGNORE_ANNOTATION: 1}}})), Ignore::default());
        let annotations = BTreeMap::from([(IGNORE_ANNOTATION.to_string(), "all".to_string())]);
        assert_eq!(Ignore::from_annotations(&annotations).rules, ["all"]);
        assert_eq!(Ignore::from_annotations(&BTreeMap::new()), Ignore::default());
    }
}
