//! A node tree as a `hpa_core::api::decode::Source`: hpa-core's decoder reads it as the JSON
//! that `sigs.k8s.io/yaml` would turn it into (the JSON kubectl sends), so that the linter's
//! objects are decoded by the same decoder as the webhook's, without becoming JSON.
//!
//! `sigs.k8s.io/yaml.YAMLToJSON` unmarshals YAML into Go values and marshals them with
//! `encoding/json`: keys become strings, floats are written as Go writes a float64 (so `5.0`
//! reads as the integer `5`, and `1e20` as `100000000000000000000`). NaN and the infinities,
//! which `json.Marshal` refuses (kubectl then reports the file), read as `null`.

use std::borrow::Cow;

use hpa_core::api::decode::{Kind, Number, Source, SourceError};

use crate::{Entries, Items, Node, NodeKind, Scalar};

/// Reads a node (and everything under it) in document order.
#[derive(Debug, Clone)]
pub struct NodeSource<'a> {
    /// The value to be read next.
    current: Option<Node<'a>>,
    /// The mappings and sequences entered and not yet left.
    stack: Vec<Frame<'a>>,
    /// Whether the root mapping's `apiVersion` and `kind` are left out ([`NodeSource::retyped`]).
    retyped: bool,
    /// Whether every entry of a key given twice is read ([`NodeSource::every_key`]), not the
    /// last only.
    every_key: bool,
    /// Whether each mapping's keys are read in byte order ([`Source::in_key_order`]).
    sorted: bool,
    /// Whether numbers are read as written, not as kubectl's unstructured round trip leaves
    /// them ([`sent_uint`]): a file hpa-lint reads itself, or what kubectl decodes before that
    /// round trip ([`NodeSource::yaml_to_json`]).
    exact: bool,
    /// Whether the caller knows that no mapping gives a key twice ([`NodeSource::keys_once`]):
    /// no mapping is checked for one.
    keys_once: bool,
}

#[derive(Debug, Clone)]
enum Frame<'a> {
    /// A mapping's entries left, and, when it gives a key more than once, which of its entries
    /// (by index) a later one of the same key replaces, with the index of the next entry.
    Map(Entries<'a>, Option<(Vec<bool>, usize)>),
    /// A mapping's entries left, in the order kubectl sends them ([`Node::entries_in_key_order`]).
    Sorted(std::vec::IntoIter<crate::Entry<'a>>),
    Seq(Items<'a>),
}

/// For a mapping that gives a key more than once, which entries a later entry of the same key
/// replaces (`None` when every key is given once): `sigs.k8s.io/yaml.YAMLToJSON` keeps the
/// last value of a key (go-yaml fills a map), so the JSON kubectl sends has each key once.
fn replaced(entries: &Entries<'_>) -> Option<Vec<bool>> {
    // This runs for every mapping decoded: nearly every one gives each key once.
    if !crate::read::repeats_a_key(entries) {
        return None;
    }
    let keys: Vec<Cow<'_, str>> = entries.clone().map(|e| e.key.key_str()).collect();
    let mut later = std::collections::HashSet::with_capacity(keys.len());
    let mut out: Vec<bool> = keys.iter().rev().map(|k| !later.insert(k)).collect();
    out.reverse();
    Some(out)
}

impl<'a> NodeSource<'a> {
    /// A source whose one value is `node`.
    ///
    /// A key given more than once in a mapping is read once, with its last value, as
    /// `sigs.k8s.io/yaml.YAMLToJSON` writes it in the JSON kubectl sends.
    pub fn new(node: Node<'a>) -> Self {
        NodeSource {
            current: Some(node),
            stack: Vec::new(),
            retyped: false,
            every_key: false,
            sorted: false,
            exact: false,
            keys_once: false,
        }
    }

    /// A source whose one value is `node`, each entry of a key given twice read in turn (a
    /// strict decoder reports the duplicate field): for a file hpa-lint reads itself (its
    /// configuration), which no kubectl turns into JSON first.
    pub fn every_key(node: Node<'a>) -> Self {
        NodeSource { every_key: true, exact: true, ..NodeSource::new(node) }
    }

    /// A source whose one value is `node`, read as the JSON `sigs.k8s.io/yaml.YAMLToJSON`
    /// writes of it (each mapping's keys once with its last value; numbers as written): what
    /// kubectl's own decoders read a YAML document as, before any unstructured round trip
    /// (cli-runtime's `metadataValidatingDecoder`). It reads the keys in document order and,
    /// [`Source::in_key_order`], sorted as that JSON has them: [`decode::decode_from`] and
    /// [`decode::lenient_error_from`] sort only a document with an error.
    ///
    /// [`decode::decode_from`]: hpa_core::api::decode::decode_from
    /// [`decode::lenient_error_from`]: hpa_core::api::decode::lenient_error_from
    pub fn yaml_to_json(node: Node<'a>) -> Self {
        NodeSource { exact: true, ..NodeSource::new(node) }
    }

    /// A source whose one value is `node`, an object whose `apiVersion` and `kind` were
    /// replaced before it was sent: its own (whatever they are) are not read. An item of a list
    /// that takes the list's (apimachinery's `unstructuredJSONScheme.decodeToList` sets them with
    /// `SetKind` and `SetAPIVersion` when the item's are empty or not strings).
    pub fn retyped(node: Node<'a>) -> Self {
        NodeSource { retyped: true, ..NodeSource::new(node) }
    }

    /// This source, for a node whose mappings the caller has checked to give each key once
    /// ([`read::has_duplicate_keys`](crate::read::has_duplicate_keys) is false, or
    /// [`read::written_twice`](crate::read::written_twice) found none): entering a mapping skips
    /// the check for a key given twice (it would find none), so the walk the caller made is not
    /// made again by the decoding. Anything else reads as without it.
    pub fn keys_once(self) -> Self {
        NodeSource { keys_once: true, ..self }
    }

    fn take(&mut self) -> Result<Node<'a>, SourceError> {
        self.current.take().ok_or_else(|| SourceError { message: "no value to read".into(), offset: None })
    }
}

/// The JSON a scalar becomes (`None`: `null`).
fn scalar_kind(s: Scalar<'_>) -> Kind {
    match s {
        Scalar::Null => Kind::Null,
        Scalar::Float(f) if !f.is_finite() => Kind::Null,
        Scalar::Bool(_) => Kind::Bool,
        Scalar::Int(_) | Scalar::UInt(_) | Scalar::Float(_) => Kind::Number,
        Scalar::Str(_) => Kind::String,
    }
}

fn kind_of(node: Node<'_>) -> Kind {
    match node.kind() {
        NodeKind::Scalar(s) => scalar_kind(s),
        NodeKind::Seq(_) => Kind::Array,
        NodeKind::Map(_) => Kind::Object,
    }
}

fn mismatch(node: Node<'_>, wanted: &str) -> SourceError {
    SourceError { message: format!("expected {wanted}, found {}", kind_of(node).go_name()), offset: None }
}

/// An integer past `int64` as kubectl sends it: a float64. kubectl decodes each object into an
/// `Unstructured` before sending it, and apimachinery's `util/json.Unmarshal` keeps a number as
/// an `int64` only when it fits one (`convertNumber`), so `9999999999999999999` is sent as
/// `10000000000000000000` (kubectl 1.33 `create`), the number kube-apiserver's error shows.
#[expect(clippy::cast_precision_loss, reason = "as Go's json.Number.Float64 rounds the literal")]
fn sent_uint(u: u64) -> f64 {
    u as f64
}

/// The JSON text `encoding/json` writes for a node (`sigs.k8s.io/yaml`'s conversion).
fn json_text(node: Node<'_>) -> String {
    match node.kind() {
        NodeKind::Scalar(Scalar::Str(s)) => hpa_core::go::json_string(s),
        NodeKind::Scalar(Scalar::Bool(b)) => b.to_string(),
        NodeKind::Scalar(Scalar::Int(i)) => i.to_string(),
        NodeKind::Scalar(Scalar::UInt(u)) => u.to_string(),
        NodeKind::Scalar(Scalar::Float(f)) if f.is_finite() => hpa_core::go::json_float(f),
        NodeKind::Scalar(_) => "null".into(),
        NodeKind::Seq(_) | NodeKind::Map(_) => hpa_core::go::to_go_json(&node.to_json()).unwrap_or_default(),
    }
}

impl<'a> Source<'a> for NodeSource<'a> {
    fn peek(&mut self) -> Result<Kind, SourceError> {
        match self.current {
            Some(node) => Ok(kind_of(node)),
            None => Err(SourceError { message: "no value to read".into(), offset: None }),
        }
    }

    fn bool(&mut self) -> Result<bool, SourceError> {
        let node = self.take()?;
        match node.scalar() {
            Some(Scalar::Bool(b)) => Ok(b),
            _ => Err(mismatch(node, "a boolean")),
        }
    }

    fn number(&mut self) -> Result<Number<'a>, SourceError> {
        let node = self.take()?;
        match node.scalar() {
            Some(Scalar::Int(i)) => Ok(Number::Int(i)),
            Some(Scalar::UInt(u)) if self.exact => Ok(Number::UInt(u)),
            Some(Scalar::UInt(u)) => Ok(Number::Float(sent_uint(u))),
            Some(Scalar::Float(f)) if f.is_finite() => Ok(Number::Float(f)),
            _ => Err(mismatch(node, "a number")),
        }
    }

    fn string(&mut self) -> Result<Cow<'a, str>, SourceError> {
        let node = self.take()?;
        match node.as_str() {
            Some(s) => Ok(Cow::Borrowed(s)),
            None => Err(mismatch(node, "a string")),
        }
    }

    fn raw(&mut self) -> Result<Cow<'a, str>, SourceError> {
        let node = self.take()?;
        match node.scalar() {
            Some(Scalar::UInt(u)) if !self.exact => Ok(Cow::Owned(hpa_core::go::json_float(sent_uint(u)))),
            _ => Ok(Cow::Owned(json_text(node))),
        }
    }

    fn skip(&mut self) -> Result<(), SourceError> {
        self.take().map(|_| ())
    }

    fn begin_object(&mut self) -> Result<(), SourceError> {
        let node = self.take()?;
        match node.entries() {
            Some(_) if self.sorted => {
                self.stack.push(Frame::Sorted(node.entries_in_key_order().into_iter()));
                Ok(())
            }
            Some(entries) => {
                let replaced = if self.every_key || self.keys_once { None } else { replaced(&entries).map(|r| (r, 0)) };
                self.stack.push(Frame::Map(entries, replaced));
                Ok(())
            }
            None => Err(mismatch(node, "a mapping")),
        }
    }

    fn next_key(&mut self) -> Result<Option<Cow<'a, str>>, SourceError> {
        let root = self.retyped && self.stack.len() == 1;
        loop {
            let entry = match self.stack.last_mut() {
                Some(Frame::Map(entries, replaced)) => {
                    let entry = entries.next();
                    if entry.is_some()
                        && let Some((replaced, at)) = replaced
                    {
                        let gone = replaced.get(*at).copied().unwrap_or(false);
                        *at += 1;
                        if gone {
                            continue;
                        }
                    }
                    entry
                }
                Some(Frame::Sorted(entries)) => entries.next(),
                Some(Frame::Seq(_)) | None => return Ok(None),
            };
            match entry {
                Some(entry) => {
                    let key = entry.key.key_str();
                    if root && (key == "apiVersion" || key == "kind") {
                        continue;
                    }
                    self.current = Some(entry.value);
                    return Ok(Some(key));
                }
                None => {
                    self.stack.pop();
                    return Ok(None);
                }
            }
        }
    }

    fn begin_array(&mut self) -> Result<(), SourceError> {
        let node = self.take()?;
        match node.items() {
            Some(items) => {
                self.stack.push(Frame::Seq(items));
                Ok(())
            }
            None => Err(mismatch(node, "a sequence")),
        }
    }

    fn next_item(&mut self) -> Result<bool, SourceError> {
        let Some(Frame::Seq(items)) = self.stack.last_mut() else { return Ok(false) };
        match items.next() {
            Some(item) => {
                self.current = Some(item);
                Ok(true)
            }
            None => {
                self.stack.pop();
                Ok(false)
            }
        }
    }

    /// The node with each mapping's keys in byte order, as kubectl sends the object; `None` for
    /// a file hpa-lint reads itself ([`NodeSource::every_key`]), which no kubectl re-encodes.
    fn in_key_order(&self) -> Option<Self> {
        (!self.every_key && !self.sorted).then(|| NodeSource { sorted: true, ..self.clone() })
    }
}

#[cfg(test)]
mod tests {
    use hpa_core::api::{self, Strictness};
    use hpa_core::features::KubernetesVersion;

    use super::*;
    use crate::parse;

    /// Decoding a node and decoding the JSON kubectl sends of it (`sigs.k8s.io/yaml` and
    /// `json.Marshal`: keys sorted) give the same object or the same errors: the node is only
    /// another source.
    fn same(yaml: &str) {
        let parsed = parse(yaml);
        let root = parsed.documents[0].root();
        let s = |k: &str| root.get(k).and_then(Node::as_str).unwrap_or("").to_string();
        let via_node = api::decode_source(
            &s("kind"),
            &s("apiVersion"),
            NodeSource::new(root),
            Strictness::Strict,
            KubernetesVersion::LATEST,
        );
        let json = hpa_core::go::to_go_json(&root.to_json_in_key_order()).unwrap();
        let via_json = api::decode_json(&json, Strictness::Strict, KubernetesVersion::LATEST);
        assert_eq!(format!("{via_node:?}"), format!("{via_json:?}"), "{yaml}");
        // A node without a key given twice reads the same when the caller says so.
        if crate::read::has_duplicate_keys(root) {
            return;
        }
        let keys_once = api::decode_source(
            &s("kind"),
            &s("apiVersion"),
            NodeSource::new(root).keys_once(),
            Strictness::Strict,
            KubernetesVersion::LATEST,
        );
        assert_eq!(format!("{keys_once:?}"), format!("{via_node:?}"), "{yaml}");
    }

    #[test]
    fn reads_as_its_json() {
        let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, labels: {x: 'y'}}\n";
        for spec in [
            "spec: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: a, apiVersion: apps/v1}}",
            "spec: {maxReplicas: 3.0, minReplicas: 2}",
            "spec: {maxReplicas: 3.5}",
            "spec: {maxReplicas: '3'}",
            "spec: {maxReplicas: -3}",
            "spec: {maxReplicas: 99999999999}",
            "spec: {maxReplicas: ~}",
            "spec: {maxReplicas: [1]}",
            "spec: {metrics: {a: 1}}",
            "spec: {metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 1e2}}}]}",
            "spec: {metrics: [{type: Pods, pods: {metric: {name: q}, target: {type: AverageValue, averageValue: 1.5}}}]}",
            "spec: {metrics: [{type: Pods, pods: {target: {averageValue: {a: 1}}}}]}",
            "spec: {unknown: 1, behavior: {scaleUp: {policies: [{type: Pods, value: 4, periodSeconds: 15, extra: x}]}}}",
            "spec: {behavior: {scaleDown: {selectPolicy: 7}}}",
            "spec: {1: a, true: b}",
            "spec: yes",
        ] {
            same(&format!("{head}{spec}\n"));
        }
        same(
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, annotations: {k: v}}\nspec: {targetCPUUtilizationPercentage: 50, maxReplicas: 2}\n",
        );
    }

    /// A key given twice reads as the JSON kubectl sends (`YAMLToJSON`: the last value, the key
    /// once), so kube-apiserver's strict decoding never sees a duplicate field (kubectl 1.33
    /// `create --dry-run=client -o json` of tests/data/malformed/duplicate-keys.yaml: the last
    /// values, no error); the linter reports the key written twice itself.
    #[test]
    fn duplicate_keys_read_as_the_last_value_as_kubectl_sends_them() {
        let yaml = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplicas: 1\n  minReplicas: 1\n  maxReplicas: 2\n  scaleTargetRef: {kind: A, name: b, kind: Deployment}\n";
        let parsed = parse(yaml);
        let root = parsed.documents[0].root();
        let hpa = api::decode_source(
            "HorizontalPodAutoscaler",
            "autoscaling/v2",
            NodeSource::new(root),
            Strictness::Strict,
            KubernetesVersion::LATEST,
        )
        .map(|d| d.value.to_json());
        let json = hpa.unwrap_or_default();
        assert_eq!(json["spec"]["maxReplicas"], 2);
        assert_eq!(json["spec"]["minReplicas"], 1);
        assert_eq!(json["spec"]["scaleTargetRef"]["kind"], "Deployment");
        same(yaml);
    }

    /// The errors of a decode: each one's path and message.
    fn errors_of(yaml: &str) -> Vec<(String, String)> {
        let parsed = parse(yaml);
        let root = parsed.documents[0].root();
        let decoded = api::decode_source(
            "HorizontalPodAutoscaler",
            "autoscaling/v2",
            NodeSource::new(root),
            Strictness::Strict,
            KubernetesVersion::LATEST,
        );
        decoded.err().unwrap_or_default().into_iter().map(|e| (e.path, e.message)).collect()
    }

    /// The type error of `value` (`string`, `number 5.5`) at `spec.{field}`, an `int32`.
    fn spec_int32_error(value: &str, field: &str) -> (String, String) {
        let message = format!(
            "json: cannot unmarshal {value} into Go struct field HorizontalPodAutoscalerSpec.spec.{field} of type int32"
        );
        (format!("spec.{field}"), message)
    }

    /// kube-apiserver reads what kubectl sends: every object re-encoded from a map, its keys
    /// sorted at every level (kubectl 1.33 `create` of tests/data/malformed/order-*.yaml sends
    /// `{"spec":{"maxReplicas":"10","minReplicas":"2",...}}`). So the first type error is the
    /// first in key order, and the strict errors come in key order.
    #[test]
    fn errors_come_in_the_order_kubectl_sends_the_keys() {
        let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n";
        assert_eq!(
            errors_of(&format!("{head}spec: {{minReplicas: '2', maxReplicas: '10'}}\n")),
            [spec_int32_error("string", "maxReplicas")]
        );
        // A key given twice is sent once, with its last value, in its sorted place.
        assert_eq!(
            errors_of(&format!("{head}spec: {{maxReplicas: x, minReplicas: '2', maxReplicas: 3}}\n")),
            [spec_int32_error("string", "minReplicas")]
        );
        let unknown = |path: &str| (path.to_string(), format!("unknown field \"{path}\""));
        assert_eq!(
            errors_of(&format!(
                "{head}spec: {{z: 1, metrics: [{{type: Pods, w: 1, b: 2}}], behavior: {{x: 1}}, a: 1}}\nmetadata: {{q: 1}}\n"
            )),
            [
                unknown("metadata.q"),
                unknown("spec.a"),
                unknown("spec.behavior.x"),
                unknown("spec.metrics[0].b"),
                unknown("spec.metrics[0].w"),
                unknown("spec.z"),
            ]
        );
    }

    /// `sigs.k8s.io/json` keeps the first 100 strict errors it meets (`saveStrictError`): the
    /// first 100 keys in sorted order, whatever order they are written in.
    #[test]
    fn the_first_hundred_unknown_fields_in_key_order_are_kept() {
        let keys: String = (1..=120).rev().map(|i| format!("u{i:03}: 1, ")).collect();
        let errors =
            errors_of(&format!("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec: {{{keys}}}\n"));
        let paths: Vec<String> = errors.into_iter().map(|(path, _)| path).collect();
        let expected: Vec<String> = (1..=100).map(|i| format!("spec.u{i:03}")).collect();
        assert_eq!(paths, expected);
    }

    /// An integer past `int64` reaches kube-apiserver as the float64 kubectl's unstructured
    /// round trip makes of it (kubectl 1.33 `create` of `maxReplicas: 9999999999999999999`
    /// sends `"maxReplicas":10000000000000000000`, and `9223372036854775808` as
    /// `9223372036854776000`); hpa-lint's own files keep it exact.
    #[test]
    fn an_integer_past_int64_is_sent_as_a_float64() {
        let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n";
        assert_eq!(
            errors_of(&format!("{head}spec: {{maxReplicas: 9999999999999999999}}\n")),
            [spec_int32_error("number 10000000000000000000", "maxReplicas")]
        );
        assert_eq!(
            errors_of(&format!("{head}spec: {{maxReplicas: 9223372036854775808}}\n")),
            [spec_int32_error("number 9223372036854776000", "maxReplicas")]
        );
        let parsed = parse("9999999999999999999");
        let mut own = NodeSource::every_key(parsed.documents[0].root());
        assert_eq!(own.number().unwrap(), Number::UInt(9_999_999_999_999_999_999));
    }

    /// hpa-lint's own files (`every_key`) are read as written: no kubectl re-encodes them.
    #[test]
    fn only_what_kubectl_sends_is_read_in_key_order() {
        let parsed = parse("b: 1\na: 2\n");
        let root = parsed.documents[0].root();
        assert!(NodeSource::new(root).in_key_order().is_some());
        assert!(NodeSource::every_key(root).in_key_order().is_none());
        let mut sorted = NodeSource::new(root).in_key_order().unwrap();
        assert!(sorted.in_key_order().is_none());
        sorted.begin_object().unwrap();
        assert_eq!(sorted.next_key().unwrap().as_deref(), Some("a"));
        sorted.skip().unwrap();
        assert_eq!(sorted.next_key().unwrap().as_deref(), Some("b"));
    }

    /// A retyped object is read without its own `apiVersion` and `kind` (any values), and
    /// only those: a nested `kind` (the scale target's) is read, and so are its other fields.
    #[test]
    fn a_retyped_object_is_read_without_its_own_kind() {
        let yaml = "kind: 5\napiVersion: [x]\nmetadata: {name: a}\nspec: {scaleTargetRef: {kind: Deployment, name: web, apiVersion: apps/v1}, maxReplicas: 1, minReplicas: one}\n";
        let parsed = parse(yaml);
        let root = parsed.documents[0].root();
        let decode = |source| {
            api::decode_source(
                "HorizontalPodAutoscaler",
                "autoscaling/v2",
                source,
                Strictness::Strict,
                KubernetesVersion::LATEST,
            )
        };
        let paths = |r: Result<_, Vec<hpa_core::api::DecodeError>>| -> Vec<String> {
            r.err().unwrap_or_default().into_iter().map(|e| e.path).collect()
        };
        // Sent sorted: `apiVersion`'s type error is met before `kind`'s.
        assert_eq!(paths(decode(NodeSource::new(root))), ["apiVersion"]);
        assert_eq!(paths(decode(NodeSource::retyped(root))), ["spec.minReplicas"]);
    }
}
