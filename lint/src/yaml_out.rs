//! Writes JSON values as block YAML the way kubectl prints objects (sequences not indented
//! under their key, strings quoted only when a YAML 1.1 reader would take them for something
//! else).

use serde_json::Value;

use crate::source::{Scalar, resolve_plain};

/// Renders one value as a YAML document body (no leading `---`), ending with a newline.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, level: usize) {
    for (k, v) in m {
        indent(out, level);
        out.push_str(&quote_if_needed(k));
        out.push(':');
        write_value_after_key(out, v, level);
    }
}

fn write_value_after_key(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, level + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, level);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], level: usize) {
    for item in a {
        indent(out, level);
        out.push('-');
        match item {
            Value::Object(m) if !m.is_empty() => {
                // The first key goes on the dash line; the rest align under it.
                let mut first = true;
                for (k, v) in m {
                    if first {
                        out.push(' ');
                        first = false;
                    } else {
                        indent(out, level + 2);
                    }
                    out.push_str(&quote_if_needed(k));
                    out.push(':');
                    write_value_after_key(out, v, level + 2);
                }
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, level + 2);
            }
            other => {
                out.push(' ');
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote_if_needed(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// Quotes a string when plain YAML would not read it back as the same string.
pub fn quote_if_needed(s: &str) -> String {
    if s.is_empty() {
        return "\"\"".into();
    }
    if s.chars().any(|c| c.is_control() || c == '\u{feff}') {
        return serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""));
    }
    let risky_start = s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c) || c.is_whitespace());
    let risky = risky_start
        || s.ends_with(char::is_whitespace)
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || !matches!(resolve_plain(s), Scalar::Str(_));
    if risky { format!("'{}'", s.replace('\'', "''")) } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kubectl_like_layout() {
        let v = json!({"apiVersion": "autoscaling/v2", "spec": {"metrics": [{"type": "Resource", "resource": {"name": "cpu"}}], "x": [], "y": "yes", "z": "500m"}});
        assert_eq!(
            to_yaml(&v),
            "apiVersion: autoscaling/v2\nspec:\n  metrics:\n  - type: Resource\n    resource:\n      name: cpu\n  x: []\n  'y': 'yes'\n  z: 500m\n"
        );
    }

    #[test]
    fn round_trips_through_the_reader() {
        let v = json!({"a": "010", "b": "on", "c": "- x", "d": "a: b", "e": "line\nbreak", "f": 1.5, "g": null, "h": "'q'"});
        let text = to_yaml(&v);
        let parsed = crate::source::parse(&text);
        assert_eq!(parsed.documents[0].root().to_json(), v);
    }
}
