//! A `serde` deserializer over a YAML [`Node`] that behaves exactly as
//! `hpa_core::api::strict::Strict` over the node's JSON ([`Node::to_json`]) would: the same
//! values, the same errors, the same paths. The linter decodes HPAs through it, so their
//! trees never become JSON.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Unexpected, Visitor};

use crate::source::{Entry, Node, NodeKind, Scalar};

/// Deserializes a node as its JSON would deserialize with Go's rules.
#[derive(Debug, Clone, Copy)]
pub struct NodeDe<'a> {
    node: &'a Node,
    /// Set when a value is skipped (a field no type reads), for
    /// `hpa_core::api::decode_with_noticing`.
    ignored: Option<&'a Cell<bool>>,
}

impl<'a> NodeDe<'a> {
    /// A deserializer of `node`.
    pub fn new(node: &'a Node) -> Self {
        NodeDe { node, ignored: None }
    }

    /// A deserializer of `node` that sets `ignored` when a value is skipped.
    pub fn noticing(node: &'a Node, ignored: &'a Cell<bool>) -> Self {
        NodeDe { node, ignored: Some(ignored) }
    }

    /// The same deserializer for another node of the tree.
    fn at(self, node: &'a Node) -> Self {
        NodeDe { node, ignored: self.ignored }
    }
}

/// A scalar as its JSON value would look to a visitor.
enum Json<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'a str),
}

/// How [`Node::to_json`] turns a scalar into JSON (integral floats become integers; NaN and
/// infinities become null).
fn json_of(s: &Scalar) -> Json<'_> {
    match s {
        Scalar::Null => Json::Null,
        Scalar::Bool(b) => Json::Bool(*b),
        Scalar::Int(i) => u64::try_from(*i).map_or(Json::I64(*i), Json::U64),
        Scalar::UInt(u) => Json::U64(*u),
        Scalar::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 1e21 && f.abs() <= 9.007_199_254_740_992e15 {
                #[expect(clippy::cast_possible_truncation, reason = "integral and within ±2^53")]
                let i = *f as i64;
                u64::try_from(i).map_or(Json::I64(i), Json::U64)
            } else if f.is_finite() {
                Json::F64(*f)
            } else {
                Json::Null
            }
        }
        Scalar::Str(s) => Json::Str(s.as_str()),
    }
}

fn unexpected<'a>(node: &'a Node) -> Unexpected<'a> {
    match &node.kind {
        NodeKind::Scalar(s) => match json_of(s) {
            Json::Null => Unexpected::Unit,
            Json::Bool(b) => Unexpected::Bool(b),
            Json::U64(u) => Unexpected::Unsigned(u),
            Json::I64(i) => Unexpected::Signed(i),
            Json::F64(f) => Unexpected::Float(f),
            Json::Str(s) => Unexpected::Str(s),
        },
        NodeKind::Seq(_) => Unexpected::Seq,
        NodeKind::Map(_) => Unexpected::Map,
    }
}

fn is_null(node: &Node) -> bool {
    matches!(&node.kind, NodeKind::Scalar(s) if matches!(json_of(s), Json::Null))
}

impl<'de> Deserializer<'de> for NodeDe<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match &self.node.kind {
            NodeKind::Scalar(s) => match json_of(s) {
                Json::Null => visitor.visit_unit(),
                Json::Bool(b) => visitor.visit_bool(b),
                Json::U64(u) => visitor.visit_u64(u),
                Json::I64(i) => visitor.visit_i64(i),
                Json::F64(f) => visitor.visit_f64(f),
                Json::Str(s) => visitor.visit_borrowed_str(s),
            },
            NodeKind::Seq(items) => visitor.visit_seq(Seq { de: self, iter: items.iter() }),
            NodeKind::Map(entries) => visitor.visit_map(Map { de: self, iter: entries.iter(), value: None }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if is_null(self.node) { visitor.visit_none() } else { visitor.visit_some(self) }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match &self.node.kind {
            NodeKind::Map(entries) => visitor.visit_map(Map { de: self, iter: entries.iter(), value: None }),
            _ => Err(de::Error::invalid_type(unexpected(self.node), &visitor)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match &self.node.kind {
            NodeKind::Seq(items) => visitor.visit_seq(Seq { de: self, iter: items.iter() }),
            _ => Err(de::Error::invalid_type(unexpected(self.node), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match &self.node.kind {
            NodeKind::Scalar(Scalar::Str(s)) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::invalid_type(unexpected(self.node), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if let Some(ignored) = self.ignored {
            ignored.set(true);
        }
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple tuple_struct identifier
    }
}

struct Seq<'a> {
    de: NodeDe<'a>,
    iter: std::slice::Iter<'a, Node>,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        match self.iter.next() {
            Some(n) => seed.deserialize(self.de.at(n)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct Map<'a> {
    de: NodeDe<'a>,
    iter: std::slice::Iter<'a, Entry>,
    value: Option<&'a Node>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let Some(entry) = self.iter.next() else { return Ok(None) };
        self.value = Some(&entry.value);
        match &entry.key.kind {
            NodeKind::Scalar(Scalar::Str(k)) => {
                let key: de::value::BorrowedStrDeserializer<'de, serde_json::Error> =
                    de::value::BorrowedStrDeserializer::new(k.as_str());
                seed.deserialize(key).map(Some)
            }
            _ => {
                let key: de::value::StringDeserializer<serde_json::Error> = entry.key.key_string().into_deserializer();
                seed.deserialize(key).map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(self.de.at(v)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

#[cfg(test)]
mod tests {
    use hpa_core::api;

    use super::*;
    use crate::source;

    /// Decoding through the node and through its JSON give the same object or the same errors.
    fn same(yaml: &str) {
        let parsed = source::parse(yaml);
        let root = &parsed.documents[0].root;
        let s = |k: &str| root.get(k).and_then(Node::as_str).unwrap_or("").to_string();
        let via_node = api::decode_with(&s("kind"), &s("apiVersion"), NodeDe::new(root));
        let ignored = Cell::new(false);
        let noticing =
            api::decode_with_noticing(&s("kind"), &s("apiVersion"), NodeDe::noticing(root, &ignored), &ignored);
        assert_eq!(format!("{via_node:?}"), format!("{noticing:?}"), "{yaml}");
        let via_json = api::decode(&root.to_json());
        assert_eq!(format!("{via_node:?}"), format!("{via_json:?}"), "{yaml}");
    }

    #[test]
    fn agrees_with_the_json_path() {
        let head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, labels: {x: 'y'}}\n";
        for spec in [
            "spec: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: a, apiVersion: apps/v1}}",
            "spec: {maxReplicas: 3.0, minReplicas: 2}",
            "spec: {maxReplicas: 3.5}",
            "spec: {maxReplicas: '3'}",
            "spec: {maxReplicas: -3}",
            "spec: {maxReplicas: 99999999999}",
            "spec: {maxReplicas: .nan}",
            "spec: {maxReplicas: ~}",
            "spec: {maxReplicas: [1]}",
            "spec: {metrics: {a: 1}}",
            "spec: {metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 1e2}}}]}",
            "spec: {metrics: [{type: Pods, pods: {metric: {name: q}, target: {type: AverageValue, averageValue: 1.5}}}]}",
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
}
