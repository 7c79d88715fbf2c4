//! Running one HPA object of a file through hpa-core (decode, admit), and mapping the field
//! paths of its errors back to where the user wrote them.

use hpa_core::admission::{self, Operation, Options, Outcome};
use hpa_core::api::{self, ApiVersion, DecodeError, DecodeErrorKind, Strictness, VersionedHpa};
use hpa_core::convert::annotations as ann;
use hpa_core::features::KubernetesVersion;
use serde_json::Value;

use crate::source::{self, Located, Node, NodeKind, NodeSource, Span};

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

/// Decodes an object's node as `release`'s kube-apiserver decodes what kubectl sends
/// (hpa-core's decoder with that release's Go types, `fieldValidation=Strict`: unknown and
/// duplicate fields are errors).
pub fn decode(node: &Node, release: KubernetesVersion) -> Result<VersionedHpa, Vec<DecodeError>> {
    if !matches!(node.kind, NodeKind::Map(_)) {
        return Err(vec![DecodeError {
            kind: DecodeErrorKind::NotAnObject,
            path: String::new(),
            message: "expected an object".into(),
        }]);
    }
    let field = |k: &str| node.get(k).and_then(Node::as_str).unwrap_or("");
    api::decode_source(field("kind"), field("apiVersion"), NodeSource::new(node), Strictness::Strict, release)
        .map(|decoded| decoded.value)
}

/// Decodes and admits one object, as an UPDATE of `old` when there is one.
pub fn check(node: &Node, old: Option<&Node>, opts: &Options) -> Checked {
    let version = node.get("apiVersion").and_then(Node::as_str).and_then(ApiVersion::parse);
    let object = match decode(node, opts.gates.version()) {
        Ok(o) => o,
        Err(errors) => return Checked::Undecodable { version, errors },
    };
    // The stored object: what its release's types hold (a field they lack was dropped).
    let old_object = old.and_then(|o| {
        let field = |k: &str| o.get(k).and_then(Node::as_str).unwrap_or("");
        let source = NodeSource::new(o);
        api::decode_source(field("kind"), field("apiVersion"), source, Strictness::Lenient, opts.gates.version())
            .ok()
            .map(|d| d.value)
    });
    let operation = if old_object.is_some() { Operation::Update } else { Operation::Create };
    match admission::admit(&object, old_object.as_ref(), operation, opts) {
        Ok(outcome) => Checked::Admitted { object: Box::new(object), outcome: Box::new(outcome), operation },
        Err(e) => Checked::Unconvertible { version: object.api_version(), message: e.to_string() },
    }
}

/// [`check`] of a new object (CREATE).
pub fn check_node(node: &Node, opts: &Options) -> Checked {
    check(node, None, opts)
}

/// The span to point at for a field path of an object: the value (or the key when the
/// finding is about the key, as for unknown and duplicate fields), or the key of the nearest
/// existing parent; a whole mapping or list by its key, an item of a list of mappings by its
/// first line. The `bool` says whether the whole path exists. `hpa-lint` and `hpa-lint
/// validate` point at the same place.
pub fn position(node: &Node, version: Option<ApiVersion>, path: &str, about_key: bool) -> (Span, bool) {
    let l = locate(node, version, path);
    if !l.exact || about_key {
        return (l.key_span.unwrap_or(l.span), l.exact);
    }
    let target = source::locate_node(node, &resolved_path(node, version, path));
    // An item of a list of mappings (a container) is pointed at by its first line.
    if l.key_span.is_none()
        && let Some(NodeKind::Map(entries)) = target.map(|n| &n.kind)
        && let Some(first) = entries.iter().min_by_key(|e| e.key.span.start.index)
    {
        let end = if first.value.span.end.line == first.key.span.start.line {
            first.value.span.end
        } else {
            first.key.span.end
        };
        return (Span { start: l.span.start, end }, true);
    }
    // A whole mapping or list is pointed at by its key, not by every line of it.
    let container = target.is_some_and(|n| !matches!(n.kind, NodeKind::Scalar(_)));
    match (container, l.key_span) {
        (true, Some(k)) => (k, true),
        _ => (l.span, true),
    }
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
