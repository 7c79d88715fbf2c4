//! The one tree of a document: every node in one flat list, in document order.
//!
//! A node is followed by its subtree: a sequence by its items, a mapping by its entries, each
//! a key then its value, each item, key and value followed by its own subtree. A collection
//! records how many slots its subtree takes (itself included), so a node is a slice of the
//! list, its children are found by reading on, and a subtree can be copied (an alias) or moved
//! (a merge key) as it is. Dropping a document frees one list instead of walking a tree of
//! vectors, and reading one reads contiguous memory.
//!
//! Readers see a [`Node`], a borrowed view (a slice of the list) with the accessors of a tree:
//! [`Node::kind`] (a scalar, or an iterator over items or entries), [`Node::get`],
//! [`Node::span`], [`Node::to_json`].

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::{Scalar, Span, scalar_to_json, scalar_to_key};

/// One node of the list: what it is and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Slot {
    pub(crate) kind: SlotKind,
    pub(crate) span: Span,
}

/// A node of the list; a collection's children follow it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SlotKind {
    Scalar(Scalar),
    /// `size`: the slots of its subtree, itself included; `len`: its items.
    Seq { size: u32, len: u32 },
    /// `size`: the slots of its subtree, itself included; `len`: its entries.
    Map { size: u32, len: u32 },
}

impl Slot {
    /// The slots of its subtree, itself included.
    pub(crate) fn size(&self) -> usize {
        match self.kind {
            SlotKind::Scalar(_) => 1,
            SlotKind::Seq { size, .. } | SlotKind::Map { size, .. } => size as usize,
        }
    }
}

/// A document's nodes, in one list (see the module's documentation).
#[derive(Clone, PartialEq, Default)]
pub struct Tree {
    slots: Box<[Slot]>,
}

impl Tree {
    pub(crate) fn from_slots(slots: Box<[Slot]>) -> Tree {
        Tree { slots }
    }

    /// The root node.
    pub fn root(&self) -> Node<'_> {
        Node::of(&self.slots)
    }

    /// The slots, for tests that build what the parser would not.
    #[cfg(test)]
    pub(crate) fn slots_mut(&mut self) -> &mut [Slot] {
        &mut self.slots
    }
}

impl fmt::Debug for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root().fmt(f)
    }
}

/// A YAML node with its span: a view of a [`Tree`] (it copies like a reference).
#[derive(Clone, Copy, PartialEq)]
pub struct Node<'a> {
    /// Its subtree: the node, then its children.
    slots: &'a [Slot],
}

/// The shape of a node.
#[derive(Debug, Clone)]
pub enum NodeKind<'a> {
    /// A scalar.
    Scalar(&'a Scalar),
    /// A sequence, its items.
    Seq(Items<'a>),
    /// A mapping, its entries in document order (merge keys already applied).
    Map(Entries<'a>),
}

/// A mapping entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry<'a> {
    /// The key node.
    pub key: Node<'a>,
    /// The value node.
    pub value: Node<'a>,
}

/// The items of a sequence.
#[derive(Clone)]
pub struct Items<'a> {
    rest: &'a [Slot],
    len: usize,
}

/// The entries of a mapping.
#[derive(Clone)]
pub struct Entries<'a> {
    rest: &'a [Slot],
    len: usize,
}

/// A `null` for a view with nothing in it (which the parser never makes).
static NULL: Scalar = Scalar::Null;

impl<'a> Node<'a> {
    /// The node whose subtree `slots` is (its first slot).
    pub(crate) fn of(slots: &'a [Slot]) -> Node<'a> {
        Node { slots }
    }

    /// Where it is.
    pub fn span(self) -> Span {
        self.slots.first().map(|s| s.span).unwrap_or_default()
    }

    /// What it holds.
    pub fn kind(self) -> NodeKind<'a> {
        let rest = self.slots.get(1..).unwrap_or_default();
        match self.slots.first().map(|s| &s.kind) {
            None => NodeKind::Scalar(&NULL),
            Some(SlotKind::Scalar(s)) => NodeKind::Scalar(s),
            Some(SlotKind::Seq { len, .. }) => NodeKind::Seq(Items { rest, len: *len as usize }),
            Some(SlotKind::Map { len, .. }) => NodeKind::Map(Entries { rest, len: *len as usize }),
        }
    }

    /// The scalar it is, if it is one.
    pub fn scalar(self) -> Option<&'a Scalar> {
        match self.slots.first().map(|s| &s.kind) {
            Some(SlotKind::Scalar(s)) => Some(s),
            _ => None,
        }
    }

    /// Its items, if it is a sequence.
    pub fn items(self) -> Option<Items<'a>> {
        match self.kind() {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// Its entries, if it is a mapping.
    pub fn entries(self) -> Option<Entries<'a>> {
        match self.kind() {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// A tree of its own holding a copy of the node and everything under it.
    pub fn to_tree(self) -> Tree {
        Tree { slots: self.slots.into() }
    }

    /// Whether it is a mapping.
    pub fn is_map(self) -> bool {
        matches!(self.slots.first().map(|s| &s.kind), Some(SlotKind::Map { .. }))
    }

    /// Whether it is a sequence.
    pub fn is_seq(self) -> bool {
        matches!(self.slots.first().map(|s| &s.kind), Some(SlotKind::Seq { .. }))
    }

    /// The key as a string, as sigs.k8s.io/yaml turns keys into JSON object keys.
    pub fn key_string(self) -> String {
        self.key_str().into_owned()
    }

    /// The key as a string, borrowed when it is one already (keys are compared often).
    pub fn key_str(self) -> Cow<'a, str> {
        match self.scalar() {
            Some(Scalar::Str(s)) => Cow::Borrowed(s.as_str()),
            Some(s) => Cow::Owned(scalar_to_key(s)),
            None => Cow::Borrowed(""),
        }
    }

    /// Whether it is a key that reads as `key`.
    fn is_key(self, key: &str) -> bool {
        match self.scalar() {
            Some(Scalar::Str(s)) => s == key,
            Some(_) => self.key_str() == key,
            None => key.is_empty(),
        }
    }

    /// The value of `key` in a mapping.
    pub fn get(self, key: &str) -> Option<Node<'a>> {
        self.entry(key).map(|e| e.value)
    }

    /// The entry for `key` in a mapping (the last one, when the key is given twice, as Go
    /// keeps the last).
    pub fn entry(self, key: &str) -> Option<Entry<'a>> {
        self.entries()?.filter(|e| e.key.is_key(key)).last()
    }

    /// The string value of a scalar.
    pub fn as_str(self) -> Option<&'a str> {
        match self.scalar() {
            Some(Scalar::Str(s)) => Some(s.as_str()),
            _ => None,
        }
    }

    /// Converts to JSON as `sigs.k8s.io/yaml.YAMLToJSON` would.
    pub fn to_json(self) -> Value {
        match self.kind() {
            NodeKind::Scalar(s) => scalar_to_json(s),
            NodeKind::Seq(items) => Value::Array(items.map(Node::to_json).collect()),
            NodeKind::Map(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for e in entries {
                    map.insert(e.key.key_string(), e.value.to_json());
                }
                Value::Object(map)
            }
        }
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            NodeKind::Scalar(s) => write!(f, "{s:?} @ {:?}", self.span()),
            NodeKind::Seq(items) => f.debug_list().entries(items).finish(),
            NodeKind::Map(entries) => f.debug_map().entries(entries.map(|e| (e.key, e.value))).finish(),
        }
    }
}

/// The next subtree of `rest`, and what follows it.
fn split_next<'a>(rest: &mut &'a [Slot]) -> Option<Node<'a>> {
    let size = rest.first()?.size();
    let (node, after) = rest.split_at_checked(size).unwrap_or((rest, &[]));
    *rest = after;
    Some(Node { slots: node })
}

impl<'a> Iterator for Items<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        split_next(&mut self.rest)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl ExactSizeIterator for Items<'_> {}

impl fmt::Debug for Items<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let key = split_next(&mut self.rest)?;
        let value = split_next(&mut self.rest)?;
        Some(Entry { key, value })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl ExactSizeIterator for Entries<'_> {}

impl fmt::Debug for Entries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.clone().map(|e| (e.key, e.value))).finish()
    }
}

/// Applies YAML merge keys (`<<: *base` or `<<: [*a, *b]`) to the mapping at slot `at` of
/// `nodes` (its `len` entries end the list): explicit keys win, earlier sources win over later
/// ones, merged entries come first. Returns the number of entries.
pub(crate) fn apply_merges(nodes: &mut Vec<Slot>, at: usize, len: u32) -> u32 {
    let Some(from) = at.checked_add(1).filter(|from| *from <= nodes.len()) else { return len };
    let region = nodes.split_off(from);
    let entries: Vec<Entry<'_>> = Entries { rest: &region, len: len as usize }.collect();
    let is_merge = |e: &Entry<'_>| matches!(e.key.scalar(), Some(Scalar::Str(s)) if s == "<<");
    let mut sources = Vec::new();
    for e in entries.iter().filter(|e| is_merge(e)) {
        match e.value.kind() {
            NodeKind::Map(m) => sources.push(m),
            NodeKind::Seq(items) => sources.extend(items.filter_map(Node::entries)),
            NodeKind::Scalar(_) => {}
        }
    }
    let explicit = entries.iter().filter(|e| !is_merge(e));
    let mut seen: HashSet<String> = explicit.clone().map(|e| e.key.key_string()).collect();
    let merged: Vec<Entry<'_>> = sources.into_iter().flatten().filter(|e| seen.insert(e.key.key_string())).collect();
    let mut count = 0u32;
    for e in merged.iter().chain(explicit) {
        nodes.extend_from_slice(e.key.slots);
        nodes.extend_from_slice(e.value.slots);
        count = count.saturating_add(1);
    }
    count
}
