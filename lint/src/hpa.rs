//! Running one HPA object of a file through hpa-core (decode, admit), and mapping the field
//! paths of its errors back to where the user wrote them.

use hpa_core::api::{self, ApiVersion, DecodeError, DecodeErrorKind, Strictness, VersionedHpa};
use hpa_core::check::{self, Input, Written};
use hpa_core::convert::{self, annotations as ann};
use hpa_core::features::KubernetesVersion;
use serde_json::Value;

use crate::input::ObjectRef;
use crate::source::{self, Located, Node, NodeKind, NodeSource, Span};

/// Decodes an object of a file as `release`'s kube-apiserver decodes what kubectl sends
/// (hpa-core's decoder with that release's Go types, `fieldValidation=Strict`: unknown and
/// duplicate fields are errors), with the `kind` and `apiVersion` kubectl reads (an item of a
/// list may inherit the list's: [`ObjectRef::inherited`]).
pub fn decode_object(obj: &ObjectRef<'_>, release: KubernetesVersion) -> Result<VersionedHpa, Vec<DecodeError>> {
    if !matches!(obj.node.kind(), NodeKind::Map(_)) {
        return Err(not_an_object());
    }
    decode_as(obj, Strictness::Strict, release)
}

/// The one decoder on an object of a file, with the `kind` and `apiVersion` kubectl reads.
fn decode_as(
    obj: &ObjectRef<'_>,
    strictness: Strictness,
    release: KubernetesVersion,
) -> Result<VersionedHpa, Vec<DecodeError>> {
    let (kind, api_version) = type_meta(obj);
    api::decode_source(kind, api_version, source_of(obj), strictness, release).map(|decoded| decoded.value)
}

/// The `kind` and `apiVersion` kubectl reads for an object (`""` where none is a string).
fn type_meta<'a>(obj: &ObjectRef<'a>) -> (&'a str, &'a str) {
    (obj.kind().unwrap_or(""), obj.api_version().unwrap_or(""))
}

/// The decoder's source for an object of a file: an item that took its list's `kind` and
/// `apiVersion` ([`ObjectRef::inherited`]) is read without its own ([`NodeSource::retyped`]).
fn source_of<'a>(obj: &ObjectRef<'a>) -> NodeSource<'a> {
    if obj.inherited() { NodeSource::retyped(obj.node) } else { NodeSource::new(obj.node) }
}

/// The decoder's error for a node that is not a mapping.
fn not_an_object() -> Vec<DecodeError> {
    vec![DecodeError::new(DecodeErrorKind::NotAnObject, "", "expected an object")]
}

/// An object of a file as the front door takes it: decoded by the door's decoder with the
/// release and strictness of `opts` ([`check::Written::decode`]; [`decode_object`] is the same
/// with kubectl's strictness), with the `kind` and `apiVersion` kubectl reads (an item of a
/// list may inherit the list's: [`ObjectRef::inherited`]).
///
/// `keys_once`: the caller has checked that no mapping of the object gives a key twice
/// ([`NodeSource::keys_once`]; `false` when it has not: the decoder checks).
pub fn written_object(obj: &ObjectRef<'_>, opts: &check::Options, keys_once: bool) -> Written {
    let (kind, api_version) = type_meta(obj);
    if !matches!(obj.node.kind(), NodeKind::Map(_)) {
        return Written::Undecodable { api_version: api_version.to_string(), errors: not_an_object() };
    }
    let source = source_of(obj);
    Written::decode(kind, api_version, if keys_once { source.keys_once() } else { source }, opts)
}

/// Takes an object of a file through hpa-core's front door ([`check::check`]), with the `kind`
/// and `apiVersion` kubectl reads (an item of a list may inherit the list's:
/// [`ObjectRef::inherited`]), as an UPDATE of `old` when there is one (the stored object:
/// decoded leniently, as what its release's types hold).
pub fn check_object(obj: &ObjectRef<'_>, old: Option<&ObjectRef<'_>>, opts: &check::Options) -> check::Report {
    let object = written_object(obj, opts, false);
    let old = old.and_then(|o| decode_as(o, Strictness::Lenient, opts.settings.gates().version()).ok());
    check::check(Input { object, old, id: None, world: None, duplicate_keys: &[] }, opts)
}

/// Where a decoding error of an object is pointed at ([`position`] of its field; the key of an
/// unknown or duplicate field): the one place `hpa-lint`, `validate`, `default`, `convert` and
/// `explain` give it.
pub fn decode_error_span(obj: &ObjectRef<'_>, error: &DecodeError) -> Span {
    let version = obj.api_version().and_then(ApiVersion::parse);
    position(obj.node, version, &error.path, error.kind.is_strict()).0
}

/// The span to point at for a field path of an object: the value (or the key when the
/// finding is about the key, as for unknown and duplicate fields), or the key of the nearest
/// existing parent; a whole mapping or list by its key, an item of a list of mappings by its
/// first line. The `bool` says whether the whole path exists. `hpa-lint` and `hpa-lint
/// validate` point at the same place.
pub fn position(node: Node<'_>, version: Option<ApiVersion>, path: &str, about_key: bool) -> (Span, bool) {
    let (span, exact, _) = position_and_path(node, version, path, about_key);
    (span, exact)
}

/// [`position`], and the field as the user wrote it when it is not `path` (an autoscaling/v1
/// CPU target, an annotation: the path it lands on), the path looked up once for both.
pub fn position_and_path(
    node: Node<'_>,
    version: Option<ApiVersion>,
    path: &str,
    about_key: bool,
) -> (Span, bool, Option<String>) {
    let (l, resolved) = locate_and_resolve(node, version, path);
    if !l.exact || about_key {
        return (l.key_span.unwrap_or(l.span), l.exact, resolved);
    }
    let target = l.node;
    // An item of a list of mappings (a container) is pointed at by its first line.
    if l.key_span.is_none()
        && let Some(NodeKind::Map(entries)) = target.map(|n| n.kind())
        && let Some(first) = entries.min_by_key(|e| e.key.span().start.index)
    {
        let end = if first.value.span().end.line == first.key.span().start.line {
            first.value.span().end
        } else {
            first.key.span().end
        };
        return (Span { start: l.span.start, end }, true, resolved);
    }
    // A whole mapping or list is pointed at by its key, not by every line of it.
    let container = target.is_some_and(|n| !matches!(n.kind(), NodeKind::Scalar(_)));
    match (container, l.key_span) {
        (true, Some(k)) => (k, true, resolved),
        _ => (l.span, true, resolved),
    }
}

/// Where an error at `path` (an internal, v2-shaped path for validation errors) lands in an
/// object written in `version`, and the path it lands on when that is not `path` itself (the
/// version's own, when the internal path is not written).
fn locate_and_resolve<'a>(node: Node<'a>, version: Option<ApiVersion>, path: &str) -> (Located<'a>, Option<String>) {
    let direct = source::locate(node, path);
    if direct.exact {
        return (direct, None);
    }
    let Some(alt) = version.and_then(|v| remap(node, v, path)) else { return (direct, None) };
    if path.is_empty() {
        return (direct, Some(alt));
    }
    let l = source::locate(node, &alt);
    (if l.exact || l.span != node.span() { l } else { direct }, Some(alt))
}

/// The path in the user's version for an internal path, when the two differ: core's
/// conversion says where each version writes a field ([`convert::written_path`]); for an
/// `autoscaling/v1` object, what it writes of its metrics is read here.
fn remap(node: Node<'_>, version: ApiVersion, path: &str) -> Option<String> {
    let v1 = if version == ApiVersion::V1 && path.starts_with("spec.metrics") {
        let spec = node.get("spec");
        convert::V1Metrics {
            annotated: node
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(ann::METRICS))
                .and_then(Node::as_str)
                .and_then(|raw| serde_json::from_str::<Vec<Value>>(raw).ok())
                .map_or(0, |v| v.len()),
            cpu_target: spec.and_then(|s| s.get("targetCPUUtilizationPercentage")).is_some(),
        }
    } else {
        convert::V1Metrics::default()
    };
    convert::written_path(version, path, v1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::SourceFile;
    use crate::source::Tree;

    fn node_of(text: &str) -> Tree {
        let f = SourceFile::from_text("t.yaml", text.to_string());
        f.parsed.documents[0].tree.clone()
    }

    #[test]
    fn v1_cpu_metric_points_at_target_cpu() {
        let n = node_of(
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplicas: 3\n  targetCPUUtilizationPercentage: -5\n",
        );
        let (l, _) =
            locate_and_resolve(n.root(), Some(ApiVersion::V1), "spec.metrics[0].resource.target.averageUtilization");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 5);
    }

    #[test]
    fn v2beta1_fields_are_renamed() {
        let n = node_of(
            "spec:\n  metrics:\n  - type: Pods\n    pods:\n      metricName: x\n      targetAverageValue: -1\n",
        );
        let (l, _) =
            locate_and_resolve(n.root(), Some(ApiVersion::V2beta1), "spec.metrics[0].pods.target.averageValue");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 6);
    }

    #[test]
    fn v2beta1_metric_selectors_are_found_where_written() {
        // `metric.selector` is written `selector` (Pods, Object) and `metricSelector` (External).
        let n = node_of(
            "spec:\n  metrics:\n  - type: Pods\n    pods:\n      metricName: x\n      selector: {matchLabels: {a: b}}\n  - type: External\n    external:\n      metricName: y\n      metricSelector: {matchLabels: {c: d}}\n",
        );
        let (l, _) = locate_and_resolve(n.root(), Some(ApiVersion::V2beta1), "spec.metrics[0].pods.metric.selector");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 6);
        let (l, _) =
            locate_and_resolve(n.root(), Some(ApiVersion::V2beta1), "spec.metrics[1].external.metric.selector");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 10);
    }
}
