//! Per-object suppression: `metadata.annotations["hpa-lint.dev/ignore"]` lists rule IDs or
//! names, comma-separated, optionally followed by ` -- reason` (or `: reason`).

use hpa_core::rules::RuleMeta;

use crate::source::Node;

/// The annotation key ([`hpa_core::rules::IGNORE_ANNOTATION`]).
pub const ANNOTATION: &str = hpa_core::rules::IGNORE_ANNOTATION;

/// The rules an object opts out of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ignore {
    /// IDs or names, as written.
    pub rules: Vec<String>,
    /// The reason given, if any.
    pub reason: Option<String>,
}

impl Ignore {
    /// Parses the annotation's value.
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

    /// Whether a rule is ignored (`all` ignores every rule).
    pub fn covers(&self, rule: &RuleMeta) -> bool {
        self.rules.iter().any(|r| r == "all" || r.eq_ignore_ascii_case(rule.id) || r == rule.name)
    }
}

/// The suppression of an object node.
pub fn from_node(node: Node<'_>) -> Ignore {
    node.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(ANNOTATION))
        .and_then(Node::as_str)
        .map(Ignore::parse)
        .unwrap_or_default()
}

/// The suppression of an object read as JSON (a live object).
pub fn from_json(object: &serde_json::Value) -> Ignore {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ANNOTATION))
        .and_then(serde_json::Value::as_str)
        .map(Ignore::parse)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_names_and_reasons() {
        let i = Ignore::parse("HPA101, min-replicas-below-threshold -- a singleton by design");
        assert_eq!(i.rules, ["HPA101", "min-replicas-below-threshold"]);
        assert_eq!(i.reason.as_deref(), Some("a singleton by design"));
        assert_eq!(Ignore::parse("HPA012,HPA020").rules.len(), 2);
    }
}
