//! Label selectors in their string form, as the scale subresource carries them
//! (`status.selector`), read into hpa-core's `metav1.LabelSelector` (matched by its one
//! matcher, [`LabelSelector::matches`]) and written from it.

use hpa_core::api::LabelSelector;
use hpa_core::api::meta::LabelSelectorRequirement;

/// Why a text selector does not parse ([`parse`]), in our words (`labels.Parse`'s own
/// errors name a position; a string from the API server's `String()` always parses).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectorError {
    /// A comma with nothing after it.
    #[error("found '', expected: identifier after ',' in {text:?}")]
    TrailingComma {
        /// The whole selector.
        text: String,
    },
    /// A key followed by something that is not an operator.
    #[error("found '{found}', expected: in, notin, =, ==, !=, gt, lt")]
    UnknownOperator {
        /// What follows the key.
        found: String,
    },
    /// `in`/`notin` not followed by a parenthesised set.
    #[error("found '{found}', expected: '(' ... ')'")]
    MissingSet {
        /// What follows the operator.
        found: String,
    },
    /// A key that is not a label key.
    #[error("invalid label key {0:?}")]
    InvalidKey(String),
    /// A value that is not a label value.
    #[error("invalid label value {0:?}")]
    InvalidValue(String),
}

/// `labels.Parse` (`k8s.io/apimachinery/pkg/labels/selector.go`): `a=b`, `a==b`, `a!=b`,
/// `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, `a>1`, `a<1`, separated by commas. An empty
/// string selects everything. Errors say what is wrong in our words (a string from the API
/// server's own `String()` always parses).
pub fn parse(text: &str) -> Result<LabelSelector, SelectorError> {
    let mut selector = LabelSelector::default();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (requirement, after) = split_requirement(rest);
        let (key, op, values) = parse_requirement(requirement.trim())?;
        selector.match_expressions.push(LabelSelectorRequirement { key, operator: op, values });
        rest = after.trim_start();
        if let Some(r) = rest.strip_prefix(',') {
            rest = r.trim_start();
            if rest.is_empty() {
                return Err(SelectorError::TrailingComma { text: text.to_string() });
            }
        }
    }
    Ok(selector)
}

/// `metav1.LabelSelectorAsSelector(s).String()` ([`LabelSelector::format`]): what the API
/// server writes in a scale's `status.selector`.
pub fn format(selector: &LabelSelector) -> String {
    selector.format()
}

/// Splits off one requirement: up to a comma outside parentheses.
fn split_requirement(s: &str) -> (&str, &str) {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

fn parse_requirement(r: &str) -> Result<(String, String, Vec<String>), SelectorError> {
    if let Some(key) = r.strip_prefix('!') {
        let key = key.trim();
        check_key(key)?;
        return Ok((key.to_string(), "DoesNotExist".into(), Vec::new()));
    }
    for (token, op) in [("==", "In"), ("!=", "NotIn"), ("=", "In"), (">", "Gt"), ("<", "Lt")] {
        if let Some((key, value)) = r.split_once(token) {
            let (key, value) = (key.trim(), value.trim());
            check_key(key)?;
            check_value(value)?;
            return Ok((key.to_string(), op.into(), vec![value.to_string()]));
        }
    }
    let mut words = r.splitn(2, char::is_whitespace);
    let key = words.next().unwrap_or_default().trim();
    let rest = words.next().unwrap_or_default().trim();
    check_key(key)?;
    if rest.is_empty() {
        return Ok((key.to_string(), "Exists".into(), Vec::new()));
    }
    let (op, set) = if let Some(set) = rest.strip_prefix("notin") {
        ("NotIn", set)
    } else if let Some(set) = rest.strip_prefix("in") {
        ("In", set)
    } else {
        return Err(SelectorError::UnknownOperator { found: rest.to_string() });
    };
    let set = set.trim();
    let inner = set
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| SelectorError::MissingSet { found: set.to_string() })?;
    let values: Vec<String> = inner.split(',').map(str::trim).filter(|v| !v.is_empty()).map(String::from).collect();
    for v in &values {
        check_value(v)?;
    }
    Ok((key.to_string(), op.into(), values))
}

fn check_key(key: &str) -> Result<(), SelectorError> {
    let ok = !key.is_empty()
        && key.len() <= 317
        && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if ok { Ok(()) } else { Err(SelectorError::InvalidKey(key.to_string())) }
}

fn check_value(value: &str) -> Result<(), SelectorError> {
    let ok = value.len() <= 63 && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok { Ok(()) } else { Err(SelectorError::InvalidValue(value.to_string())) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    #[test]
    fn parses_what_the_api_server_writes() {
        let s = parse("app=web,tier in (a,b),!canary,track").unwrap();
        assert!(s.matches(&labels(&[("app", "web"), ("tier", "b"), ("track", "x")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "b"), ("track", "x"), ("canary", "1")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "c"), ("track", "x")])));
        assert!(parse("").unwrap().matches(&labels(&[])));
        assert!(parse("app!=web").unwrap().matches(&labels(&[])));
        assert!(parse("app==web, x notin (y)").unwrap().matches(&labels(&[("app", "web")])));
        assert_eq!(
            parse("app=web,").unwrap_err().to_string(),
            r#"found '', expected: identifier after ',' in "app=web,""#
        );
        assert_eq!(parse("app in a").unwrap_err(), SelectorError::MissingSet { found: "a".into() });
        assert_eq!(parse("a b c").unwrap_err().to_string(), "found 'b c', expected: in, notin, =, ==, !=, gt, lt");
        assert_eq!(parse("a=b c").unwrap_err(), SelectorError::InvalidValue("b c".into()));
    }

    #[test]
    fn formats_as_label_selector_as_selector() {
        let s = hpa_core::rules::objects::selector_from_json(&serde_json::json!({
            "matchLabels": {"app": "web", "zone": "eu"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}, {"key": "canary", "operator": "DoesNotExist"}]
        }));
        assert_eq!(format(&s), "app=web,!canary,tier in (a,b),zone=eu");
        assert_eq!(format(&LabelSelector::default()), "");
    }
}
