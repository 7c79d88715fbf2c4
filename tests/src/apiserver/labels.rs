//! `labelSelector` queries as kube-apiserver reads them: hpa-core's `labels.Parse`
//! ([`hpa_core::api::labels::parse`]), which the list and watch handlers run when they decode
//! the list options (`Convert_string_To_labels_Selector`), answering an error as a 400
//! `BadRequest` whose message is the error; then hpa-core's one matcher.

use hpa_core::api::LabelSelector;
use hpa_core::features::KubernetesVersion;
use serde_json::Value;

/// `labels.Parse` of a query's `labelSelector` as the server (the latest release) reads it, or
/// the message of its error (`found ')', expected: !, identifier, or 'end of string'`).
pub fn parse(selector: &str) -> Result<LabelSelector, String> {
    hpa_core::api::labels::parse(selector, KubernetesVersion::LATEST).map_err(|e| e.to_string())
}

/// Whether an object's labels satisfy a parsed selector: hpa-core's one matcher
/// ([`LabelSelector::matches_by`], `Requirement.Matches`).
pub fn matches(object: &Value, selector: &LabelSelector) -> bool {
    let labels = object.pointer("/metadata/labels").and_then(Value::as_object);
    selector.matches_by(|key| labels.and_then(|l| l.get(key)).and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_match_an_objects_labels() {
        let pod = json!({"metadata": {"labels": {"app": "web", "tier": "b", "gen": "5"}}});
        let m = |s: &str| matches(&pod, &parse(s).unwrap_or_else(|e| panic!("{s}: {e}")));
        assert!(m("app=web,tier in (a,b)"));
        assert!(!m("app=web,!tier"));
        assert!(m("gen>4,gen<6"));
        assert!(m(""));
        assert!(!matches(&json!({"metadata": {}}), &parse("app").unwrap()));
        assert_eq!(parse("a,"), Err("found '', expected: identifier after ','".to_string()));
    }
}
