//! Per-object suppression in files: the [`hpa_core::rules::IGNORE_ANNOTATION`] of an object
//! node. Parsing and matching are hpa-core's ([`Ignore`]), shared with `hpa-lint cluster` and
//! the webhook; what is the linter's is reading it from a YAML node.

use hpa_core::rules::{IGNORE_ANNOTATION as ANNOTATION, Ignore};

use crate::source::Node;

/// The suppression of an object node.
pub fn from_node(node: Node<'_>) -> Ignore {
    node.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(ANNOTATION))
        .and_then(Node::as_str)
        .map(Ignore::parse)
        .unwrap_or_default()
}
