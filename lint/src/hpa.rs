//! Running one HPA object of a file through hpa-core (decode, admit), and mapping the field
//! paths of its errors back to where the user wrote them.

use hpa_core::admission::{self, Operation, Options, Outcome};
use hpa_core::api::{self, ApiVersion, DecodeError, DecodeErrorKind, VersionedHpa};
use hpa_core::convert::annotations as ann;
use serde_json::Value;

use crate::input::ObjectRef;
use crate::source::{self, Located, Node, NodeKind, Span};

/// What happened to one HPA object.
#[derive(Debug, Clone)]
pub enum Checked {
    /// Decoded and run through the admission pipeline.
    Admitted {
        /// The object as decoded, in its own version.
        object: Box<VersionedHpa>,
        /// The pipeline's outcome (errors, the prepared internal object).
        outcome: Box<Outcome>,
        /// CREATE or UPDATE.
        operation: Operation,
    },
    /// kube-apiserver would refuse to decode it (400 BadRequest).
    Undecodable {
        /// The version it claims, if known.
        version: Option<ApiVersion>,
        /// Every problem found.
        errors: Vec<DecodeError>,
    },
    /// Conversion to the internal form failed.
    Unconvertible {
        /// The version.
        version: ApiVersion,
        /// The error.
        message: String,
    },
}

impl Checked {
    /// Whether kube-apiserver would accept the object.
    pub fn allowed(&self) -> bool {
        matches!(self, Checked::Admitted { outcome, .. } if outcome.allowed())
    }

    /// The message kube-apiserver would answer with, when it rejects the object.
    pub fn message(&self) -> Option<String> {
        match self {
            Checked::Admitted { outcome, .. } => outcome.status_message(),
            Checked::Undecodable { version, errors } => Some(api::decode_failure_message(*version, errors)),
            Checked::Unconvertible { message, .. } => Some(message.clone()),
        }
    }
}

/// Decodes and admits one object; duplicate YAML keys make it undecodable, as strict decoding does.
pub fn check(value: &Value, old: Option<&Value>, opts: &Options) -> Checked {
    let version = value.get("apiVersion").and_then(Value::as_str).and_then(ApiVersion::parse);
    let release = opts.gates.version();
    let object = match api::decode(value).and_then(|o| api::release::check(o, release)) {
        Ok(o) => o,
        Err(errors) => return Checked::Undecodable { version, errors },
    };
    let old_object = old.and_then(|o| api::decode(o).ok());
    let operation = if old_object.is_some() { Operation::Update } else { Operation::Create };
    match admission::admit(&object, old_object.as_ref(), operation, opts) {
        Ok(outcome) => Checked::Admitted { object: Box::new(object), outcome: Box::new(outcome), operation },
        Err(e) => Checked::Unconvertible { version: object.api_version(), message: e.to_string() },
    }
}

/// [`check`] of an object's YAML node, decoded without going through JSON (same result).
pub fn check_node(node: &Node, opts: &Options) -> Checked {
    if !matches!(node.kind, NodeKind::Map(_)) {
        return check(&node.to_json(), None, opts);
    }
    let field = |k: &str| node.get(k).and_then(Node::as_str).unwrap_or("");
    let version = ApiVersion::parse(field("apiVersion"));
    let ignored = std::cell::Cell::new(false);
    let de = crate::node_de::NodeDe::noticing(node, &ignored);
    let decoded = api::decode_with_noticing(field("kind"), field("apiVersion"), de, &ignored);
    let object = match decoded.and_then(|o| api::release::check(o, opts.gates.version())) {
        Ok(o) => o,
        Err(errors) => return Checked::Undecodable { version, errors },
    };
    match admission::admit(&object, None, Operation::Create, opts) {
        Ok(outcome) => {
            Checked::Admitted { object: Box::new(object), outcome: Box::new(outcome), operation: Operation::Create }
        }
        Err(e) => Checked::Unconvertible { version: object.api_version(), message: e.to_string() },
    }
}

/// How the message of a duplicate-key error starts.
pub const DUPLICATE_FIELD: &str = "duplicate field: ";

/// Duplicate keys inside an object's node, as decode errors (strict decoding refuses them).
pub fn duplicate_key_errors(parsed: &source::Parsed, obj: &ObjectRef<'_>) -> Vec<(DecodeError, Span)> {
    let Some(doc) = parsed.documents.iter().find(|d| d.index == obj.document) else { return Vec::new() };
    doc.problems
        .iter()
        .filter(|p| within(obj.node.span, p.span))
        .map(|p| {
            (
                DecodeError {
                    kind: DecodeErrorKind::InvalidValue,
                    path: source::path_of_key(obj.node, p.span).unwrap_or_default(),
                    message: format!("{DUPLICATE_FIELD}{}", p.message),
                },
                p.span,
            )
        })
        .collect()
}

fn within(outer: Span, inner: Span) -> bool {
    outer.start.index <= inner.start.index && inner.end.index <= outer.end.index
}

/// Where an error at `path` (an internal, v2-shaped path for validation errors) should point
/// in an object written in `version`.
pub fn locate(node: &Node, version: Option<ApiVersion>, path: &str) -> Located {
    let direct = source::locate(node, path);
    if direct.exact || path.is_empty() {
        return direct;
    }
    match version.map(|v| remap(node, v, path)) {
        Some(Some(alt)) => {
            let l = source::locate(node, &alt);
            if l.exact || l.span != node.span { l } else { direct }
        }
        _ => direct,
    }
}

/// The path [`locate`] lands on: the internal path itself when it exists, else the
/// version-specific one.
pub fn resolved_path(node: &Node, version: Option<ApiVersion>, path: &str) -> String {
    if source::locate(node, path).exact {
        return path.to_string();
    }
    version.and_then(|v| remap(node, v, path)).unwrap_or_else(|| path.to_string())
}

/// The path in the user's version for an internal path, when the two differ.
fn remap(node: &Node, version: ApiVersion, path: &str) -> Option<String> {
    let annotation = |key: &str| format!("metadata.annotations[{key}]");
    match version {
        ApiVersion::V2 => None,
        ApiVersion::V2beta2 => path.contains(".tolerance").then(|| {
            let key = if path.contains("scaleUp") { ann::SCALE_UP_TOLERANCE } else { ann::SCALE_DOWN_TOLERANCE };
            annotation(key)
        }),
        ApiVersion::V1 => {
            if path.starts_with("spec.behavior") {
                return Some(annotation(ann::BEHAVIOR));
            }
            let rest = path.strip_prefix("spec.metrics")?;
            let spec = node.get("spec");
            let has_cpu = spec.and_then(|s| s.get("targetCPUUtilizationPercentage")).is_some();
            let annotated = node
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(ann::METRICS))
                .and_then(Node::as_str)
                .and_then(|raw| serde_json::from_str::<Vec<Value>>(raw).ok())
                .map_or(0, |v| v.len());
            let index: Option<usize> =
                rest.strip_prefix('[').and_then(|r| r.split(']').next()).and_then(|i| i.parse().ok());
            // The metrics annotation's entries come first, then the CPU target: without one,
            // the metric is kube-apiserver's default, which the absent field stands for.
            match index {
                Some(i) if i < annotated => Some(annotation(ann::METRICS)),
                Some(_) => Some("spec.targetCPUUtilizationPercentage".into()),
                None if has_cpu => Some("spec.targetCPUUtilizationPercentage".into()),
                None => Some("spec".into()),
            }
        }
        ApiVersion::V2beta1 => {
            if path.starts_with("spec.behavior") {
                return Some(annotation(ann::BEHAVIOR));
            }
            let renames = [
                ("resource.target.averageUtilization", "resource.targetAverageUtilization"),
                ("resource.target.averageValue", "resource.targetAverageValue"),
                ("containerResource.target.averageUtilization", "containerResource.targetAverageUtilization"),
                ("containerResource.target.averageValue", "containerResource.targetAverageValue"),
                ("pods.metric.name", "pods.metricName"),
                ("pods.target.averageValue", "pods.targetAverageValue"),
                ("object.describedObject", "object.target"),
                ("object.metric.name", "object.metricName"),
                ("object.target.value", "object.targetValue"),
                ("object.target.averageValue", "object.averageValue"),
                ("external.metric.name", "external.metricName"),
                ("external.metric.selector", "external.metricSelector"),
                ("external.target.value", "external.targetValue"),
                ("external.target.averageValue", "external.targetAverageValue"),
            ];
            renames.iter().find(|(from, _)| path.contains(from)).map(|(from, to)| path.replacen(from, to, 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::SourceFile;

    fn node_of(text: &str) -> Node {
        let f = SourceFile::from_text("t.yaml", text.to_string());
        f.parsed.documents[0].root.clone()
    }

    #[test]
    fn v1_cpu_metric_points_at_target_cpu() {
        let n = node_of(
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplicas: 3\n  targetCPUUtilizationPercentage: -5\n",
        );
        let l = locate(&n, Some(ApiVersion::V1), "spec.metrics[0].resource.target.averageUtilization");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 5);
    }

    #[test]
    fn v2beta1_fields_are_renamed() {
        let n = node_of(
            "spec:\n  metrics:\n  - type: Pods\n    pods:\n      metricName: x\n      targetAverageValue: -1\n",
        );
        let l = locate(&n, Some(ApiVersion::V2beta1), "spec.metrics[0].pods.target.averageValue");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 6);
    }
}
