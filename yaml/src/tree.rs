//! The one tree of a document: every node in one flat list, in document order.
//!
//! A node is followed by its subtree: a sequence by its items, a mapping by its entries, each
//! a key then its value, each item, key and value followed by its own subtree. A collection
//! records how many slots its subtree takes (itself included), so a node is a slice of the
//! list, its children are found by reading on, and a subtree can be copied (an alias) or moved
//! (a merge key) as it is. The text of string scalars is kept apart, in one string per
//! document, and a slot holds where its text is: slots own nothing, so dropping a document
//! frees two blocks instead of walking a tree of vectors and strings, and reading one reads
//! contiguous memory.
//!
//! Readers see a [`Node`], a borrowed view (a slice of the list) with the accessors of a tree:
//! [`Node::kind`] (a scalar, or an iterator over items or entries), [`Node::get`],
//! [`Node::span`], [`Node::to_json`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::{Scalar, Span, scalar_to_json, scalar_to_key};

/// One node of the list: what it is and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slot {
    pub(crate) kind: SlotKind,
    pub(crate) span: Span,
}

/// A node of the list; a collection's children follow it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum SlotKind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// A string: the byte range `at..at + len` of the tree's text.
    Str {
        at: u32,
        len: u32,
    },
    /// `<<` as go-yaml's decoder merges it where it is a key ([`crate::resolve::is_merge_key`]);
    /// it reads as the string `<<`.
    MergeKey,
    /// `size`: the slots of its subtree, itself included; `len`: its items.
    Seq {
        size: u32,
        len: u32,
    },
    /// `size`: the slots of its subtree, itself included; `len`: its entries.
    Map {
        size: u32,
        len: u32,
    },
}

impl Slot {
    /// The slots of its subtree, itself included.
    pub(crate) fn size(&self) -> usize {
        match self.kind {
            SlotKind::Seq { size, .. } | SlotKind::Map { size, .. } => size as usize,
            _ => 1,
        }
    }
}

impl SlotKind {
    /// A scalar's slot, its text (if a string) added to `text`.
    pub(crate) fn scalar(scalar: Scalar<'_>, text: &mut String) -> SlotKind {
        match scalar {
            Scalar::Null => SlotKind::Null,
            Scalar::Bool(b) => SlotKind::Bool(b),
            Scalar::Int(i) => SlotKind::Int(i),
            Scalar::UInt(u) => SlotKind::UInt(u),
            Scalar::Float(f) => SlotKind::Float(f),
            Scalar::Str(s) => {
                // A text past 4 GiB cannot be marked: its strings read as empty.
                let (at, len) = (u32::try_from(text.len()), u32::try_from(s.len()));
                match (at, len) {
                    (Ok(at), Ok(len)) if at.checked_add(len).is_some() => {
                        text.push_str(s);
                        SlotKind::Str { at, len }
                    }
                    _ => SlotKind::Str { at: 0, len: 0 },
                }
            }
        }
    }

    /// The scalar of a slot (`None`: a collection).
    fn to_scalar(self, text: &str) -> Option<Scalar<'_>> {
        Some(match self {
            SlotKind::Null => Scalar::Null,
            SlotKind::Bool(b) => Scalar::Bool(b),
            SlotKind::Int(i) => Scalar::Int(i),
            SlotKind::UInt(u) => Scalar::UInt(u),
            SlotKind::Float(f) => Scalar::Float(f),
            SlotKind::Str { at, len } => {
                let at = at as usize;
                Scalar::Str(text.get(at..at.saturating_add(len as usize)).unwrap_or_default())
            }
            SlotKind::MergeKey => Scalar::Str("<<"),
            SlotKind::Seq { .. } | SlotKind::Map { .. } => return None,
        })
    }
}

/// A document's nodes, in one list, and the text of its strings (see the module's
/// documentation).
#[derive(Clone, Default)]
pub struct Tree {
    slots: Box<[Slot]>,
    text: Box<str>,
}

impl Tree {
    pub(crate) fn new(slots: Box<[Slot]>, text: Box<str>) -> Tree {
        Tree { slots, text }
    }

    /// The root node.
    pub fn root(&self) -> Node<'_> {
        Node::of(&self.slots, &self.text)
    }

    /// The slots, for tests that build what the parser would not.
    #[cfg(test)]
    pub(crate) fn slots_mut(&mut self) -> &mut [Slot] {
        &mut self.slots
    }
}

/// Trees are equal when their nodes are (what they hold and where).
impl PartialEq for Tree {
    fn eq(&self, other: &Tree) -> bool {
        self.root() == other.root()
    }
}

impl fmt::Debug for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root().fmt(f)
    }
}

/// A YAML node with its span: a view of a [`Tree`] (it copies like a reference).
#[derive(Clone, Copy)]
pub struct Node<'a> {
    /// Its subtree: the node, then its children.
    slots: &'a [Slot],
    /// The tree's text.
    text: &'a str,
}

/// Nodes are equal when they hold the same at the same place (children included).
impl PartialEq for Node<'_> {
    fn eq(&self, other: &Node<'_>) -> bool {
        if self.span() != other.span() {
            return false;
        }
        match (self.kind(), other.kind()) {
            (NodeKind::Scalar(a), NodeKind::Scalar(b)) => a == b,
            (NodeKind::Seq(a), NodeKind::Seq(b)) => a.len() == b.len() && a.zip(b).all(|(a, b)| a == b),
            (NodeKind::Map(a), NodeKind::Map(b)) => a.len() == b.len() && a.zip(b).all(|(a, b)| a == b),
            _ => false,
        }
    }
}

/// The shape of a node.
#[derive(Debug, Clone)]
pub enum NodeKind<'a> {
    /// A scalar.
    Scalar(Scalar<'a>),
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

/// The items of a sequence (for [`Entries`], the keys and values of a mapping, one after the other).
#[derive(Clone)]
pub struct Items<'a> {
    rest: &'a [Slot],
    text: &'a str,
    len: usize,
}

/// The entries of a mapping: its children read two by two, a key then its value.
#[derive(Clone)]
pub struct Entries<'a>(Items<'a>);

impl<'a> Node<'a> {
    /// The node whose subtree `slots` is (its first slot).
    pub(crate) fn of(slots: &'a [Slot], text: &'a str) -> Node<'a> {
        Node { slots, text }
    }

    /// Where it is.
    pub fn span(self) -> Span {
        self.slots.first().map(|s| s.span).unwrap_or_default()
    }

    /// What it holds.
    pub fn kind(self) -> NodeKind<'a> {
        let (rest, text) = (self.slots.get(1..).unwrap_or_default(), self.text);
        match self.slots.first().map(|s| s.kind) {
            None => NodeKind::Scalar(Scalar::Null),
            Some(SlotKind::Seq { len, .. }) => NodeKind::Seq(Items { rest, text, len: len as usize }),
            Some(SlotKind::Map { len, .. }) => NodeKind::Map(Entries::new(rest, text, len as usize)),
            Some(scalar) => NodeKind::Scalar(scalar.to_scalar(text).unwrap_or(Scalar::Null)),
        }
    }

    /// The scalar it is, if it is one.
    pub fn scalar(self) -> Option<Scalar<'a>> {
        self.slots.first()?.kind.to_scalar(self.text)
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
        Tree { slots: self.slots.into(), text: self.text.into() }
    }

    /// Whether it is a mapping.
    pub fn is_map(self) -> bool {
        matches!(self.slots.first().map(|s| &s.kind), Some(SlotKind::Map { .. }))
    }

    /// Whether it is a sequence.
    pub fn is_seq(self) -> bool {
        matches!(self.slots.first().map(|s| &s.kind), Some(SlotKind::Seq { .. }))
    }

    /// What its slot holds (a collection's children not looked at).
    pub(crate) fn slot_kind(self) -> Option<SlotKind> {
        self.slots.first().map(|s| s.kind)
    }

    /// The entries of every mapping of its subtree (itself included), read off its slots in
    /// document order, without walking the tree: each slot of a subtree is a node of it (merge
    /// keys were applied when the mapping closed).
    pub(crate) fn mappings(self) -> impl Iterator<Item = Entries<'a>> {
        let size = self.slots.first().map_or(0, Slot::size);
        let (slots, text) = (self.slots.get(..size).unwrap_or(self.slots), self.text);
        slots.iter().enumerate().filter_map(move |(i, slot)| match slot.kind {
            SlotKind::Map { len, .. } => Some(Entries::new(slots.get(i + 1..).unwrap_or_default(), text, len as usize)),
            _ => None,
        })
    }

    /// Whether it is a `<<` go-yaml's decoder merges where it is a key.
    pub(crate) fn is_merge_key(self) -> bool {
        matches!(self.slots.first().map(|s| &s.kind), Some(SlotKind::MergeKey))
    }

    /// The key as a string, as sigs.k8s.io/yaml turns keys into JSON object keys.
    pub fn key_string(self) -> String {
        self.key_str().into_owned()
    }

    /// The key as a string, borrowed when it is one already (keys are compared often).
    pub fn key_str(self) -> Cow<'a, str> {
        match self.scalar() {
            Some(Scalar::Str(s)) => Cow::Borrowed(s),
            Some(s) => Cow::Owned(scalar_to_key(s)),
            None => Cow::Borrowed(""),
        }
    }

    /// Whether the key reads as `key` ([`Node::key_str`]), a string key's text compared as it
    /// lies in the tree: lookups run for every key of every mapping they search, and nearly
    /// every key is a string of another length.
    pub(crate) fn is_key(self, key: &str) -> bool {
        self.key_bytes() == key.as_bytes()
    }

    /// The bytes of the key as [`Node::key_str`] reads it, a string key's borrowed from the
    /// tree without a look at character boundaries (what it is compared with is a `&str`).
    fn key_bytes(self) -> Cow<'a, [u8]> {
        match self.slot_kind() {
            Some(SlotKind::Str { at, len }) => {
                let at = at as usize;
                Cow::Borrowed(self.text.as_bytes().get(at..at.saturating_add(len as usize)).unwrap_or_default())
            }
            _ => match self.key_str() {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            },
        }
    }

    /// Which node this is, among the nodes of its tree (the place of its slot): the key of
    /// [`crate::Locator`]'s indexes.
    pub(crate) fn id(self) -> usize {
        self.slots.as_ptr() as usize
    }

    /// A mapping's entries by key, as [`Node::entry`] finds them (the last of a key given
    /// twice); empty for anything else.
    pub(crate) fn entry_index(self) -> HashMap<Cow<'a, [u8]>, Entry<'a>> {
        let mut index = HashMap::new();
        for e in self.entries().into_iter().flatten() {
            index.insert(e.key.key_bytes(), e);
        }
        index
    }

    /// The value of `key` in a mapping.
    pub fn get(self, key: &str) -> Option<Node<'a>> {
        self.entry(key).map(|e| e.value)
    }

    /// The entry for `key` in a mapping (the last one, when the key is given twice, as Go
    /// keeps the last).
    pub fn entry(self, key: &str) -> Option<Entry<'a>> {
        let mut found = None;
        for e in self.entries()? {
            if e.key.is_key(key) {
                found = Some(e);
            }
        }
        found
    }

    /// The values of several keys of a mapping, read in one pass over its entries: what
    /// [`Node::get`] gives for each key (the last entry of a key given twice).
    pub fn get_each<const N: usize>(self, keys: [&str; N]) -> [Option<Node<'a>>; N] {
        let mut found = [None; N];
        for e in self.entries().into_iter().flatten() {
            // As in `entry`: a collection's key reads as "". Each key is read once.
            let key = e.key.key_bytes();
            for (slot, k) in found.iter_mut().zip(keys) {
                if *key == *k.as_bytes() {
                    *slot = Some(e.value);
                }
            }
        }
        found
    }

    /// The entries of a mapping as kubectl sends them (empty for anything else): one per key,
    /// the last value of a key given twice, the keys in byte order, as Go's `json.Marshal`
    /// writes the `map[string]interface{}` that `sigs.k8s.io/yaml.YAMLToJSON` (and kubectl's
    /// unstructured decoding of every object) reads a mapping into.
    pub fn entries_in_key_order(self) -> Vec<Entry<'a>> {
        let mut entries: Vec<Entry<'a>> = self.entries().into_iter().flatten().collect();
        // Reversed, so that the stable sort puts the last of a key first and `dedup` keeps it.
        entries.reverse();
        entries.sort_by(|a, b| a.key.key_str().cmp(&b.key.key_str()));
        entries.dedup_by(|later, first| later.key.key_str() == first.key.key_str());
        entries
    }

    /// Converts to JSON as kubectl sends it ([`Node::to_json`] with every mapping's entries
    /// [`Node::entries_in_key_order`]): the keys sorted, each once.
    pub fn to_json_in_key_order(self) -> Value {
        match self.kind() {
            NodeKind::Scalar(s) => scalar_to_json(s),
            NodeKind::Seq(items) => Value::Array(items.map(Node::to_json_in_key_order).collect()),
            NodeKind::Map(_) => Value::Object(
                self.entries_in_key_order()
                    .into_iter()
                    .map(|e| (e.key.key_string(), e.value.to_json_in_key_order()))
                    .collect(),
            ),
        }
    }

    /// The string value of a scalar.
    pub fn as_str(self) -> Option<&'a str> {
        match self.scalar() {
            Some(Scalar::Str(s)) => Some(s),
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

impl<'a> Iterator for Items<'a> {
    type Item = Node<'a>;

    /// The next subtree of `rest`; `rest` moves past it.
    fn next(&mut self) -> Option<Node<'a>> {
        self.len = self.len.checked_sub(1)?;
        let size = self.rest.first()?.size();
        let (node, after) = self.rest.split_at_checked(size).unwrap_or((self.rest, &[]));
        self.rest = after;
        Some(Node { slots: node, text: self.text })
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

impl<'a> Entries<'a> {
    /// The `len` entries whose subtrees `rest` starts with.
    fn new(rest: &'a [Slot], text: &'a str, len: usize) -> Entries<'a> {
        Entries(Items { rest, text, len: len.saturating_mul(2) })
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        Some(Entry { key: self.0.next()?, value: self.0.next()? })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.len / 2;
        (len, Some(len))
    }
}

impl ExactSizeIterator for Entries<'_> {}

impl fmt::Debug for Entries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.clone().map(|e| (e.key, e.value))).finish()
    }
}

/// Applies YAML merge keys (`<<: *base` or `<<: [*a, *b]`) to the mapping at slot `at` of
/// `nodes` (its `len` entries end the list) as go-yaml v2 applies them (`decoder.mapping` and
/// `decoder.merge`, which kubectl's `sigs.k8s.io/yaml` reads with): the entries are set in the
/// order written, a merge sets each entry of its mapping (replacing a key set before it; a key
/// after it replaces the merged one), two merges apply in turn, and a sequence of mappings is
/// merged from its last item to its first (earlier items win). Each merged entry takes the
/// merge's place; a key written twice keeps both entries unless a merge sets it between them (the
/// linter reports it; the decoder reads the last). Returns the number of entries.
pub(crate) fn apply_merges(nodes: &mut Vec<Slot>, text: &str, at: usize, len: u32) -> u32 {
    let Some(from) = at.checked_add(1).filter(|from| *from <= nodes.len()) else { return len };
    let region = nodes.split_off(from);
    let is_merge = |e: &Entry<'_>| e.key.is_merge_key();
    // Each entry set, and whether a merge set it.
    let mut out: Vec<(Entry<'_>, bool)> = Vec::with_capacity(len as usize);
    for e in Entries::new(&region, text, len as usize) {
        if !is_merge(&e) {
            let key = e.key.key_str();
            out.retain(|(o, merged)| !*merged || o.key.key_str() != key);
            out.push((e, false));
            continue;
        }
        let sources: Vec<Entries<'_>> = match e.value.kind() {
            NodeKind::Map(m) => vec![m],
            NodeKind::Seq(items) => {
                let mut maps: Vec<Entries<'_>> = items.filter_map(Node::entries).collect();
                maps.reverse();
                maps
            }
            NodeKind::Scalar(_) => Vec::new(),
        };
        for merged in sources.into_iter().flatten() {
            let key = merged.key.key_str();
            out.retain(|(o, _)| o.key.key_str() != key);
            out.push((merged, true));
        }
    }
    let mut count = 0u32;
    for (e, _) in &out {
        nodes.extend_from_slice(e.key.slots);
        nodes.extend_from_slice(e.value.slots);
        count = count.saturating_add(1);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_own_nothing() {
        // Dropping a document frees its two blocks without visiting a slot.
        assert!(!std::mem::needs_drop::<Slot>());
        assert!(std::mem::size_of::<Slot>() <= 40, "{}", std::mem::size_of::<Slot>());
    }

    #[test]
    fn children_are_found_past_the_subtrees_before_them() {
        let long = "a string longer than any inline string, with é and ü";
        let text =
            format!("a: {{b: [1, {{c: [x, w]}}, []], d: {{}}}}\nl: [[[1]], 2.5, ~, true]\ns: '{long}'\nz: last\n");
        let p = crate::parse(&text);
        let root = p.documents[0].root();
        assert_eq!(
            root.to_json(),
            serde_json::json!({"a": {"b": [1, {"c": ["x", "w"]}, []], "d": {}}, "l": [[[1]], 2.5, null, true], "s": long, "z": "last"})
        );
        assert_eq!(root.get("z").and_then(Node::as_str), Some("last"));
        assert_eq!(root.get("s").and_then(Node::as_str), Some(long));
        assert_eq!(root.get_each(["z", "a", "nothing", "s"]), [root.get("z"), root.get("a"), None, root.get("s")]);
        // The last of a key given twice, as `get`; keys that are not strings read as their text.
        let twice = crate::parse("k: 1\n2: two\nk: [x]\n");
        let r = twice.documents[0].root();
        assert_eq!(r.get_each(["k", "2", ""]), [r.get("k"), r.get("2"), r.get("")]);
        assert!(r.get_each(["k"])[0].is_some_and(Node::is_seq));
        // A key that is no string is found by the text JSON gives it; a string key by its
        // whole text, not a prefix of it.
        let keys = crate::parse("true: a\n1.5: b\nab: d\n");
        let k = keys.documents[0].root();
        let found = ["true", "1.5", "a", "ab", "abc", ""].map(|key| k.get(key).and_then(Node::as_str));
        assert_eq!(found, [Some("a"), Some("b"), None, Some("d"), None, None]);
        let b = root.get("a").and_then(|a| a.get("b")).and_then(Node::items).unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(root.get("a").and_then(|a| a.get("d")).and_then(Node::entries).map(|e| e.len()), Some(0));
        let l = root.get("l").unwrap();
        assert_eq!(crate::locate_node(l, "[1]").and_then(Node::scalar), Some(Scalar::Float(2.5)));
        assert_eq!(crate::locate_node(root, "a.b[1].c[1]").map(|n| n.span().start.line), Some(1));
        // A copy is a tree of its own, equal to what it copies.
        let copy = root.get("a").unwrap().to_tree();
        assert_eq!(copy.root(), root.get("a").unwrap());
        assert_ne!(copy.root(), root.get("l").unwrap());
    }

    /// Merge keys as go-yaml v2 applies them (`decoder.mapping`, `decoder.merge`), checked
    /// against kubectl 1.33 `create`'s bodies: in the order written, a merge replacing a key set
    /// before it, a key after it replacing the merged one, the items of a merged sequence from
    /// the last to the first.
    #[test]
    fn merge_keys_apply_in_the_order_written() {
        let json = |yaml: &str| crate::parse(yaml).documents[0].root().to_json();
        // mg1: `minReplicas: 2` then `<<: {minReplicas: "3"}` sends "minReplicas":"3".
        assert_eq!(json("a: 2\n<<: {a: '3'}\nb: 1\n"), serde_json::json!({"b": 1, "a": "3"}));
        assert_eq!(json("<<: {a: 1, b: 2}\na: 3\n"), serde_json::json!({"b": 2, "a": 3}));
        // mg3: two merges apply in turn, the second wins.
        assert_eq!(json("<<: {a: x}\n<<: {a: 10}\n"), serde_json::json!({"a": 10}));
        // A sequence: its earlier mappings win, and all of it replaces what was set before.
        assert_eq!(json("a: 0\nc: 0\n<<: [{a: 1}, {a: 2, b: 2}]\nc: 3\n"), serde_json::json!({"a": 1, "b": 2, "c": 3}));
        // A merged entry is where the merge is; a key given twice with no merge between is kept
        // twice (the decoder reads the last).
        assert_eq!(json("<<: {a: 1}\na: 2\n"), serde_json::json!({"a": 2}));
        let p = crate::parse("<<: {a: 1}\na: 2\n");
        assert_eq!(
            p.documents[0].root().entries().map(|e| e.len()),
            Some(1),
            "a merged key set again is not a duplicate"
        );
        let p = crate::parse("a: 1\n<<: {b: 2}\na: 3\n");
        let keys: Vec<(String, u32)> =
            p.documents[0].root().entries().unwrap().map(|e| (e.key.key_string(), e.key.span().start.line)).collect();
        assert_eq!(keys, [("a".to_string(), 1), ("b".to_string(), 2), ("a".to_string(), 3)]);
    }

    #[test]
    fn a_view_of_nothing_reads_as_null() {
        let empty = Tree::default();
        assert_eq!(empty.root().scalar(), None);
        assert!(matches!(empty.root().kind(), NodeKind::Scalar(Scalar::Null)));
        assert_eq!(empty.root().get("x"), None);
        assert_eq!(empty.root().to_json(), Value::Null);
    }
}
