//! `hpa-yaml`: YAML (and JSON) files read as kubectl reads them, keeping source positions.
//! It is the only crate that knows the YAML library (`saphyr-parser`); swapping it touches
//! this crate alone.
//!
//! Each document becomes a [`Tree`], built from `saphyr-parser` events: its nodes in one flat
//! list in document order, each with its span, its strings in one text; readers walk it through
//! [`Node`], a borrowed view ([`Node::kind`], [`Node::get`], [`Node::span`], [`Node::to_json`]).
//! Plain scalars are resolved as kubectl resolves them (YAML 1.1 rules of go-yaml v2, which
//! `sigs.k8s.io/yaml` uses: `yes`/`no`/`on`/`off` are booleans, `010` is octal, `1e3` is a
//! number), aliases are expanded within go-yaml's budget (alias bombs are refused where kubectl
//! refuses them), merge keys (`<<`) are applied as go-yaml v2 applies them (in the order
//! written), and a key given twice stays twice (decoding reports it). A field path such
//! as `spec.metrics[1].resource.target` is mapped back to its node, or to the nearest existing
//! parent when the field is missing.
//!
//! [`NodeSource`] reads a node as the JSON kubectl would send, for `hpa-core`'s one decoder.
//! What it deliberately does not do: decide what a document means (hpa-core's job) or render
//! anything for people (the front ends').

mod kubectl;
pub mod read;
mod resolve;
pub mod source;
mod tree;
mod whitespace;

pub use hpa_core::api::decode::{PathStep, parse_path};
pub use read::{ReadError, ReadErrorKind, read, read_document};
pub use resolve::resolve_plain;
pub use source::NodeSource;
pub use tree::{Entries, Entry, Items, Node, NodeKind, Tree};

use resolve::resolve;
use tree::{Slot, SlotKind};

use std::borrow::Cow;
use std::cell::Cell;

use compact_str::CompactString;
use std::collections::HashMap;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as YSpan};
use serde_json::{Number, Value};

/// A position in the source: character index, 1-based line, 0-based column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct Mark {
    /// Character index from the start of the file.
    pub index: u32,
    /// 1-based line.
    pub line: u32,
    /// 0-based column, in characters.
    pub col: u32,
}

impl Mark {
    fn from_saphyr(m: saphyr_parser::Marker) -> Mark {
        let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Mark { index: clamp(m.index()), line: clamp(m.line()), col: clamp(m.col()) }
    }
}

/// A source range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Span {
    /// Where it starts.
    pub start: Mark,
    /// Where it ends (exclusive).
    pub end: Mark,
}

impl Span {
    fn from_saphyr(s: YSpan) -> Span {
        Span { start: Mark::from_saphyr(s.start), end: Mark::from_saphyr(s.end) }
    }
}

/// A resolved scalar (a string one borrows its text from the tree).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    /// `null`, `~` or empty
    Null,
    /// `true`, `yes`, `on`, ...
    Bool(bool),
    /// An integer that fits in i64.
    Int(i64),
    /// An integer above i64::MAX.
    UInt(u64),
    /// A float.
    Float(f64),
    /// Anything else, and every quoted or block scalar.
    Str(&'a str),
}

/// A node's fields as its JSON ([`Node::to_json`]) would show them, without building it.
impl<'a> hpa_core::rules::objects::Fields<'a> for Node<'a> {
    fn field(self, key: &str) -> Option<Self> {
        self.get(key)
    }
    /// [`Node::get_each`]: the keys compared as they lie in the tree, not read as strings first.
    fn fields<const N: usize>(self, keys: [&str; N]) -> [Option<Self>; N] {
        self.get_each(keys)
    }
    fn as_str(self) -> Option<&'a str> {
        Node::as_str(self)
    }
    fn as_i64(self) -> Option<i64> {
        match self.scalar() {
            Some(s) if !matches!(s, Scalar::Str(_)) => scalar_to_json(s).as_i64(),
            _ => None,
        }
    }
    fn as_bool(self) -> Option<bool> {
        match self.scalar() {
            Some(Scalar::Bool(b)) => Some(b),
            _ => None,
        }
    }
    fn quantity_text(self) -> Option<Cow<'a, str>> {
        match self.scalar()? {
            Scalar::Str(s) => Some(Cow::Borrowed(s)),
            s => match scalar_to_json(s) {
                Value::Number(n) => Some(Cow::Owned(n.to_string())),
                _ => None,
            },
        }
    }
    fn entries(self) -> impl Iterator<Item = (Cow<'a, str>, Self)> {
        Node::entries(self).into_iter().flatten().map(|e| (e.key.key_str(), e.value))
    }
    fn items(self) -> Option<impl Iterator<Item = Self>> {
        Node::items(self)
    }
    fn json_type(self) -> &'static str {
        match self.scalar() {
            Some(Scalar::Null) => "null",
            Some(Scalar::Bool(_)) => "bool",
            Some(Scalar::Int(_) | Scalar::UInt(_) | Scalar::Float(_)) => "number",
            Some(Scalar::Str(_)) => "string",
            None if Node::items(self).is_some() => "array",
            None => "object",
        }
    }
}

fn scalar_to_key(s: Scalar<'_>) -> String {
    match s {
        Scalar::Null => "null".into(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::UInt(u) => u.to_string(),
        Scalar::Float(f) => float_key(f),
        Scalar::Str(s) => s.to_string(),
    }
}

fn scalar_to_json(s: Scalar<'_>) -> Value {
    match s {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::from(i),
        Scalar::UInt(u) => Value::from(u),
        Scalar::Float(f) => {
            // json.Marshal writes an integral float below 1e21 without a fraction, so it then
            // decodes into integer fields; mirror that.
            if f.fract() == 0.0 && f.abs() < 1e21 && f.abs() <= 9.007_199_254_740_992e15 {
                Value::from(f as i64)
            } else {
                Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
        }
        Scalar::Str(s) => Value::String(s.to_string()),
    }
}

/// A float key as `sigs.k8s.io/yaml` turns it into a JSON object key (`yamlMapKeyToString`):
/// `strconv.FormatFloat(f, 'g', -1, 32)`, a float32's shortest digits (`685.230_15e+03` is
/// `685230.1`, `1.5e10` is `1.5e+10`), the infinities and NaN spelt as YAML spells them.
fn float_key(f: f64) -> String {
    match hpa_core::go::format_float_g(f, 32).as_str() {
        "+Inf" => ".inf".into(),
        "-Inf" => "-.inf".into(),
        "NaN" => ".nan".into(),
        other => other.into(),
    }
}

/// A YAML document of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// 0-based index of the document in its file.
    pub index: usize,
    /// Where the document starts: its `---` marker, or its first token.
    pub start: Mark,
    /// Its nodes.
    pub tree: Tree,
    /// Whether it was read as JSON: a value of a text kubectl reads as a JSON stream (its first
    /// character but white space, within its first 4096 bytes, is `{`: `GuessJSONStream`), whose
    /// bytes kubectl hands on as written; `false` for a YAML document, kubectl's bytes for which
    /// are `sigs.k8s.io/yaml.YAMLToJSON`'s (the YAML that may follow a JSON stream included).
    pub json: bool,
}

impl Document {
    /// Its root node.
    pub fn root(&self) -> Node<'_> {
        self.tree.root()
    }
}

/// A syntax error that stops parsing the rest of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where.
    pub mark: Mark,
    /// What, in kubectl's words after `error parsing FILE: ` (`error converting YAML to JSON:
    /// yaml: line 4: did not find expected key`; go-yaml's line counts from the document's
    /// `---`), or, for what kubectl would read (past our limits) or word otherwise, ours
    /// after `invalid YAML: `.
    pub message: String,
    /// The document it occurred in.
    pub document: usize,
    /// The field path of the value it is about, for an error about one value of a document
    /// read whole: the `.nan` or `.inf` kubectl's conversion to JSON refuses
    /// (`spec.metrics[0].resource.target.averageUtilization`), found on the document's tree
    /// before it is dropped, so a reader can name the field without parsing the text again.
    pub path: Option<String>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// What a file parses into: the documents read before any syntax error, and that error.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    /// Documents that are not empty.
    pub documents: Vec<Document>,
    /// The first fatal error, if any.
    pub error: Option<SyntaxError>,
}

/// Limits that keep hostile input bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting of collections.
    pub max_depth: usize,
    /// Maximum number of nodes created by expanding aliases, per document, on top of go-yaml's
    /// own guard against alias bombs (`AliasBudget`), which kubectl applies and the default
    /// leaves alone: that guard already bounds an expansion by the document's size.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_depth: 512, max_alias_nodes: usize::MAX }
    }
}

/// go-yaml v2's guard against alias bombs, as its decoder counts (`decoder.unmarshal` of
/// `gopkg.in/yaml.v2` `decode.go`, which `sigs.k8s.io/yaml` decodes with): every node it
/// unmarshals counts once (the document, each collection, key, value and alias; not a merge
/// key `<<`, nor the sequence of maps it merges), the nodes an alias brings in count as aliased
/// too, and a document is refused (`document contains excessive aliasing`) as soon as more
/// than 100 are aliased, more than 1000 are counted and the aliased share is above
/// `allowedAliasRatio`.
#[derive(Debug, Clone, Copy, Default)]
struct AliasBudget {
    /// `decodeCount`.
    decodes: usize,
    /// `aliasCount`.
    aliased: usize,
}

impl AliasBudget {
    /// A document starts: its document node counts.
    fn new_document() -> AliasBudget {
        AliasBudget { decodes: 1, aliased: 0 }
    }

    /// Counts `nodes` unmarshalled (through an alias when `aliased`); says whether go-yaml refuses
    /// the document there. Within one alias both counts grow together, so the share only rises
    /// and the limit only falls: counting its nodes at once decides as go-yaml's node by node.
    fn count(&mut self, nodes: usize, aliased: bool) -> bool {
        self.decodes = self.decodes.saturating_add(nodes);
        if aliased {
            self.aliased = self.aliased.saturating_add(nodes);
        }
        if self.aliased <= 100 || self.decodes <= 1000 {
            // Every node of nearly every document: no division.
            return false;
        }
        // Precision: the counts stay far below 2^52 (each is a node of the document).
        #[allow(clippy::cast_precision_loss)]
        let share = self.aliased as f64 / self.decodes as f64;
        share > allowed_alias_ratio(self.decodes)
    }
}

/// go-yaml v2's `allowedAliasRatio`: 99% of the nodes of a document of up to 400,000 may come
/// from aliases, 10% from 4,000,000 on, falling in a straight line between.
fn allowed_alias_ratio(decodes: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    match decodes {
        ..=LOW => 0.99,
        HIGH.. => 0.10,
        // Precision: both are below 2^22.
        #[allow(clippy::cast_precision_loss)]
        _ => 0.99 - 0.89 * ((decodes - LOW) as f64 / (HIGH - LOW) as f64),
    }
}

/// Parses every document of `text`.
pub fn parse(text: &str) -> Parsed {
    parse_with_limits(text, Limits::default())
}

/// An open collection: its slot is `at` in the document's list, its children follow it there
/// (`len` of them so far; a mapping counts its entries, `key` the slot of its pending key).
///
/// When pruning (see [`parse_pruned`]), `keep` is what the caller needs of the collection
/// (`None`: all of it), and a mapping's `value_keep` what it needs of the value of its pending
/// key.
enum Frame {
    Seq {
        at: usize,
        len: u32,
        start: Mark,
        anchor: usize,
        keep: Option<&'static Keep>,
        /// go-yaml's count of nodes unmarshalled before it ([`AliasBudget`]).
        counted: usize,
        /// Whether it starts with its bracket (`[`): a flow sequence.
        bracket: bool,
    },
    Map {
        at: usize,
        len: u32,
        key: Option<usize>,
        /// Whether it has a merge key (`<<`) to apply when it closes.
        merge: bool,
        /// Whether it is a flow mapping (`{...}`) of YAML, or a pair of one (`[a: b]`: a
        /// mapping of one entry in a flow sequence), whose key go-yaml wants on one line.
        flow: bool,
        start: Mark,
        anchor: usize,
        keep: Option<&'static Keep>,
        value_keep: Option<&'static Keep>,
        /// go-yaml's count of nodes unmarshalled before it ([`AliasBudget`]).
        counted: usize,
        /// Whether it starts with its bracket (`{`): a flow mapping of YAML or JSON (not a pair
        /// of a flow sequence).
        bracket: bool,
    },
}

impl Frame {
    /// Whether the collection starts with its bracket (`{` or `[`): a flow collection, whose
    /// pairs (`[a: b]`) excepted. Kept when it opens, so that asking costs no look at the text.
    fn bracket(&self) -> bool {
        match self {
            Frame::Seq { bracket, .. } | Frame::Map { bracket, .. } => *bracket,
        }
    }
}

/// A key `sigs.k8s.io/yaml` cannot turn into a JSON key (`kubectl::unsupported_key`).
struct ConvertProblem {
    /// Where the key is (the last time it is written in its mapping).
    mark: Mark,
    /// kubectl's words, with the key's value: the last one written, which go-yaml's
    /// `map[interface{}]interface{}` keeps of a key given twice.
    message: String,
    /// The slot of the mapping.
    map: usize,
    /// The key, as Go's `%#v` writes it.
    key: String,
}

/// What a caller needs of an object (see [`parse_pruned`]): the listed keys of a mapping (of
/// each item, for a sequence), each with what it needs of the key's value (`None`: all of it).
/// A pruned mapping also keeps its first entry (of a mapping value, again only its first
/// entry): where it starts is where a diagnostic about it points.
#[derive(Debug)]
pub struct Keep(pub &'static [(&'static str, Option<&'static Keep>)]);

impl Keep {
    /// Nothing but what every pruned mapping keeps: its first entry.
    pub const FIRST_ENTRY: Keep = Keep(&[]);

    /// `None` when `key` is not needed, else what is needed of its value.
    fn of(&self, key: &str) -> Option<Option<&'static Keep>> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, sub)| *sub)
    }
}

/// What a document's kind says the caller needs of it.
type ChooseKeep<'c> = &'c dyn Fn(&str) -> Option<&'static Keep>;

/// The pruning state of the document being built.
#[derive(Default)]
struct Pruning {
    /// The kind the root's filter was chosen for, once chosen.
    kind: Option<CompactString>,
    /// Open collections inside the value being skipped (`Some(0)`: the value has not begun).
    skipping: Option<usize>,
    /// For each of them, whether it is a mapping waiting for a key (`None`: a sequence).
    skipped_at_key: Vec<Option<bool>>,
    /// The first lines of the YAML flow mappings open inside the value being skipped.
    flow_lines: Vec<u32>,
    /// Whether anything of the document was left out.
    skipped: bool,
    /// Whether something left out could change what go-yaml makes of the document (a merge
    /// key, a key that is a collection, a NaN): the document is then read whole.
    inexact: bool,
}

struct Builder<'c> {
    choose: Option<ChooseKeep<'c>>,
    pruning: Pruning,
    stack: Vec<Frame>,
    /// The document's nodes so far, in document order (see [`Tree`]); the list is reused from
    /// document to document, each document's tree moved out into an exactly sized one.
    nodes: Vec<Slot>,
    /// The text of the document's string scalars, one after the other (see [`Tree`]).
    text: String,
    /// The subtree of each anchor, as it was when it closed, and how many nodes go-yaml's
    /// decoder unmarshals to decode it ([`AliasBudget`]).
    anchors: HashMap<usize, (Box<[Slot]>, usize)>,
    alias_nodes: usize,
    /// go-yaml's count of the document's nodes, against alias bombs.
    budget: AliasBudget,
    /// Whether go-yaml refuses the document for its aliases: no alias is expanded after that.
    alias_bomb: bool,
    /// Whether the root is complete (it is then all of `nodes`).
    root: bool,
    /// The first thing go-yaml's decoder refuses in the document (an unhashable key, a merge
    /// of something else than mappings), with the key's position.
    go_problem: Option<(Mark, String)>,
    /// The first key `sigs.k8s.io/yaml` cannot turn into a JSON key (null, a uint64), which
    /// it meets after go-yaml's decoder is done.
    convert_problem: Option<ConvertProblem>,
    /// Whether the document has a NaN or an infinity (which json.Marshal may refuse).
    non_finite: bool,
    /// Whether the piece is JSON (read as `encoding/json` reads it, not go-yaml).
    json: bool,
    /// The slot of the last node copied from an alias: a merge key's value that is an alias
    /// must name a mapping (a list of mappings is merged when written, not through an alias).
    aliased: Option<usize>,
    /// Where the last event read ends (a mark of the text read).
    last_end: Mark,
    /// Where the last key of a YAML flow mapping started and ended (marks of the piece).
    flow_key: (Mark, Mark),
    /// The character saphyr is given for a byte order mark go-yaml reads as text
    /// ([`kubectl::text_boms`]): a string is given back its marks.
    bom: Option<char>,
    /// The character saphyr reads for go-yaml's `\'` escape in the piece being read
    /// ([`whitespace::Whitespace::apostrophe`]): a string is given back its `'`.
    apostrophe: Option<char>,
    /// go-yaml's values of the piece's scalars saphyr reads otherwise, by where their tokens
    /// start in the piece as written ([`whitespace::Whitespace::values`]).
    values: Vec<(u32, String)>,
}

/// The builder's buffers, kept on each thread from file to file: a document's tree is moved
/// out into exactly sized blocks, so what they hold between files is scratch. Buffers grown
/// past [`Scratch::KEEP`] bytes by a large file are not kept.
#[derive(Default)]
struct Scratch {
    stack: Vec<Frame>,
    nodes: Vec<Slot>,
    text: String,
    skipped_at_key: Vec<Option<bool>>,
}

impl Scratch {
    const KEEP: usize = 1 << 20;

    /// The thread's buffers (empty ones the first time).
    fn take() -> Scratch {
        SCRATCH.with(Cell::take)
    }

    /// Gives the buffers back to the thread, cleared.
    fn keep(mut self) {
        fn small<T>(v: &mut Vec<T>) {
            v.clear();
            if v.capacity().saturating_mul(std::mem::size_of::<T>()) > Scratch::KEEP {
                *v = Vec::new();
            }
        }
        small(&mut self.stack);
        small(&mut self.nodes);
        small(&mut self.skipped_at_key);
        self.text.clear();
        if self.text.capacity() > Scratch::KEEP {
            self.text = String::new();
        }
        SCRATCH.with(|s| s.set(self));
    }
}

thread_local! {
    static SCRATCH: Cell<Scratch> = Cell::new(Scratch::default());
}

impl<'c> Builder<'c> {
    fn new(choose: Option<ChooseKeep<'c>>, scratch: Scratch) -> Self {
        let Scratch { stack, nodes, text, skipped_at_key } = scratch;
        Builder {
            choose,
            pruning: Pruning { skipped_at_key, ..Pruning::default() },
            stack,
            nodes,
            text,
            anchors: HashMap::new(),
            alias_nodes: 0,
            budget: AliasBudget::new_document(),
            alias_bomb: false,
            root: false,
            go_problem: None,
            convert_problem: None,
            non_finite: false,
            json: false,
            aliased: None,
            flow_key: (Mark::default(), Mark::default()),
            last_end: Mark::default(),
            bom: None,
            apostrophe: None,
            values: Vec::new(),
        }
    }

    /// Starts a document (the scratch stacks keep their capacity).
    fn reset(&mut self) {
        // The scratch stack of what is being skipped keeps its capacity too.
        let mut skipped_at_key = std::mem::take(&mut self.pruning.skipped_at_key);
        skipped_at_key.clear();
        self.pruning = Pruning { skipped_at_key, ..Pruning::default() };
        self.stack.clear();
        self.nodes.clear();
        self.text.clear();
        self.anchors.clear();
        self.alias_nodes = 0;
        self.budget = AliasBudget::new_document();
        self.alias_bomb = false;
        self.root = false;
        self.go_problem = None;
        self.convert_problem = None;
        self.non_finite = false;
        self.aliased = None;
    }

    /// Keeps the first problem go-yaml's decoder would meet (it decodes in document order).
    fn go_problem(&mut self, at: Mark, message: String) {
        if self.go_problem.as_ref().is_none_or(|(first, _)| at.index < first.index) {
            self.go_problem = Some((at, message));
        }
    }

    /// The innermost open collection, as go-yaml names it in errors (the piece being read
    /// tells flow collections from block ones).
    fn open(&self) -> kubectl::Open {
        match self.stack.last() {
            None => kubectl::Open::Document,
            Some(Frame::Seq { bracket: true, .. }) => kubectl::Open::FlowSequence,
            Some(Frame::Seq { .. }) => kubectl::Open::BlockSequence,
            Some(Frame::Map { bracket: true, .. }) => kubectl::Open::FlowMapping,
            Some(Frame::Map { .. }) => kubectl::Open::BlockMapping,
        }
    }

    /// Whether the innermost open collection is an indentless block sequence: one whose `-`
    /// is at the column of the block mapping it is a value of (saphyr's sequence starts at its
    /// first entry's node, after the `-`).
    fn in_indentless_sequence(&self, piece: &kubectl::Piece<'_>) -> bool {
        match self.stack.as_slice() {
            [
                ..,
                Frame::Map { start: map, flow: false, bracket: false, .. },
                Frame::Seq { start, bracket: false, .. },
            ] => kubectl::dash_at(piece.text, piece.local(*start), piece.local(*map).col),
            _ => false,
        }
    }

    /// Where the open block collections start (marks of the piece), the innermost first: the
    /// column of one is go-yaml's `parser.indent` while it is open, and a token there a
    /// required simple key.
    fn block_starts<'p>(&'p self, piece: &'p kubectl::Piece<'_>) -> impl Iterator<Item = Mark> + 'p {
        self.stack.iter().rev().filter_map(|frame| {
            let start = match frame {
                Frame::Seq { start, .. } | Frame::Map { start, .. } => *start,
            };
            (!frame.bracket()).then(|| piece.local(start))
        })
    }

    /// What the caller needs of a collection that starts now: what its parent needs of it.
    fn child_keep(&self) -> Option<&'static Keep> {
        match self.stack.last()? {
            Frame::Seq { keep, .. } => *keep,
            Frame::Map { key: Some(_), value_keep, .. } => *value_keep,
            // A collection used as a key is kept whole.
            Frame::Map { key: None, .. } => None,
        }
    }

    /// The root node, once complete.
    fn root(&self) -> Option<Node<'_>> {
        self.root.then(|| Node::of(&self.nodes, &self.text))
    }

    /// Opens a collection at `start`.
    fn open_collection(&mut self, start: Mark, anchor: usize, map: bool, flow: bool, bracket: bool) {
        let keep = self.child_keep();
        let at = self.nodes.len();
        let counted = self.budget.decodes;
        // go-yaml merges the maps of a merge key's sequence one by one, never unmarshalling
        // the sequence itself (`decoder.merge`).
        let merged = !map
            && matches!(self.stack.last(), Some(Frame::Map { key: Some(k), .. })
                if self.nodes.get(*k).is_some_and(|n| matches!(n.kind, SlotKind::MergeKey)));
        if !merged {
            self.count_decoded(1, false, start);
        }
        let kind = if map { SlotKind::Map { size: 1, len: 0 } } else { SlotKind::Seq { size: 1, len: 0 } };
        self.nodes.push(Slot { kind, span: Span { start, end: start } });
        self.stack.push(if map {
            Frame::Map {
                at,
                len: 0,
                key: None,
                merge: false,
                flow,
                start,
                anchor,
                keep,
                value_keep: None,
                counted,
                bracket,
            }
        } else {
            Frame::Seq { at, len: 0, start, anchor, keep, counted, bracket }
        });
    }

    /// Closes the innermost collection: its slot, its anchor, and how many nodes go-yaml
    /// unmarshals to decode it.
    fn close(&mut self, end: Mark) -> Option<(usize, usize, usize)> {
        let (at, len, anchor, map, counted) = match self.stack.pop()? {
            Frame::Seq { at, len, anchor, counted, .. } => (at, len, anchor, false, counted),
            Frame::Map { at, len, merge, anchor, counted, .. } => {
                let len = if merge { tree::apply_merges(&mut self.nodes, &self.text, at, len) } else { len };
                (at, len, anchor, true, counted)
            }
        };
        let size = u32::try_from(self.nodes.len().saturating_sub(at)).unwrap_or(u32::MAX);
        let slot = self.nodes.get_mut(at)?;
        slot.kind = if map { SlotKind::Map { size, len } } else { SlotKind::Seq { size, len } };
        slot.span.end = end;
        Some((at, anchor, self.budget.decodes.saturating_sub(counted)))
    }

    /// Counts nodes go-yaml's decoder unmarshals ([`AliasBudget`]), and refuses the document
    /// where it does.
    fn count_decoded(&mut self, nodes: usize, aliased: bool, at: Mark) {
        if self.budget.count(nodes, aliased) && !self.alias_bomb {
            self.alias_bomb = true;
            self.go_problem(at, format!("{}yaml: document contains excessive aliasing", kubectl::YAML_TO_JSON));
        }
    }

    /// go-yaml's value of the scalar saphyr read up to `end`, after the event that ended at
    /// `start` (marks of the text read; a scalar's event starts at its properties, or past
    /// the header of a block scalar), when saphyr reads it otherwise ([`Builder::values`]).
    #[cold]
    fn go_value(&self, piece: &kubectl::Piece<'_>, start: Mark, end: Mark) -> Option<String> {
        let (start, end) = (piece.as_written(start).index, piece.as_written(end).index);
        let at = self.values.partition_point(|(i, _)| *i < start);
        self.values.get(at).filter(|(i, _)| *i < end).map(|(_, v)| v.clone())
    }

    /// Adds a scalar.
    fn scalar(&mut self, scalar: Scalar<'_>, span: Span, anchor: usize) {
        let kind = match scalar {
            // (Only a text rewritten for saphyr has stand-ins: nearly none.)
            Scalar::Str(s) if self.bom.is_some() || self.apostrophe.is_some() => self.string_as_written(s),
            _ => SlotKind::scalar(scalar, &mut self.text),
        };
        self.slot(kind, span, anchor);
    }

    /// The slot of a string of a text rewritten for saphyr, with the characters that stood in
    /// for a byte order mark or a `\'` written back.
    #[cold]
    #[inline(never)]
    fn string_as_written(&mut self, s: &str) -> SlotKind {
        let stand_ins = [(self.bom, "\u{feff}"), (self.apostrophe, "'")];
        if !stand_ins.iter().any(|(c, _)| c.is_some_and(|c| s.contains(c))) {
            return SlotKind::scalar(Scalar::Str(s), &mut self.text);
        }
        let mut s = s.to_string();
        for (c, written) in stand_ins {
            if let Some(c) = c.filter(|c| s.contains(*c)) {
                s = s.replace(c, written);
            }
        }
        SlotKind::scalar(Scalar::Str(&s), &mut self.text)
    }

    /// Adds a scalar of that kind.
    fn slot(&mut self, kind: SlotKind, span: Span, anchor: usize) {
        let at = self.nodes.len();
        // go-yaml's decoder applies a merge key without unmarshalling it (`decoder.mapping`).
        let counted = usize::from(!matches!(kind, SlotKind::MergeKey));
        self.count_decoded(counted, false, span.start);
        self.nodes.push(Slot { kind, span });
        self.finish_node(at, anchor, counted);
    }

    /// The node from slot `at` on is complete: it is an item, a key or a value of the innermost
    /// open collection, or the root; go-yaml unmarshals `decoded` nodes to decode it.
    fn finish_node(&mut self, at: usize, anchor: usize, decoded: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, (self.nodes.get(at..).unwrap_or_default().into(), decoded));
        }
        let at_root = self.stack.len() == 1;
        let nodes = &mut self.nodes;
        let is_plain_key = |node: Node<'_>| matches!(node.scalar(), Some(Scalar::Str(_))) && !node.is_merge_key();
        let mut problem = None;
        match self.stack.last_mut() {
            None => self.root = true,
            Some(Frame::Seq { len, .. }) => *len = len.saturating_add(1),
            Some(Frame::Map { at: map, len, key, merge, keep, value_keep, .. }) => match *key {
                None => {
                    let node = Node::of(nodes.get(at..).unwrap_or_default(), &self.text);
                    let needed = match keep {
                        None => Some(None),
                        Some(keep) => keep.of(&node.key_str()).or_else(|| {
                            // The first entry stays (of its value, its own first entry): it is
                            // the first line of the mapping, where a diagnostic about an item
                            // of a list points.
                            let first = *len == 0 && is_plain_key(node);
                            first.then_some(Some(&Keep::FIRST_ENTRY))
                        }),
                    };
                    match needed {
                        Some(of_value) => {
                            *value_keep = of_value;
                            *key = Some(at);
                        }
                        // A key the caller does not need: it and its value are left out.
                        None => {
                            if !is_plain_key(node) {
                                self.pruning.inexact = true;
                            }
                            nodes.truncate(at);
                            self.pruning.skipping = Some(0);
                            self.pruning.skipped = true;
                        }
                    }
                }
                Some(k) => {
                    *key = None;
                    let k_node = Node::of(nodes.get(k..at).unwrap_or_default(), &self.text);
                    let node = Node::of(nodes.get(at..).unwrap_or_default(), &self.text);
                    // The root's kind, once known, says what the caller needs of the rest.
                    if let (Some(choose), None, true) = (self.choose, &self.pruning.kind, at_root)
                        && k_node.key_str() == "kind"
                        && let Some(Scalar::Str(kind)) = node.scalar()
                    {
                        *keep = choose(kind);
                        self.pruning.kind = Some(kind.into());
                    }
                    // Nearly every key is a string, a boolean or a number, which go-yaml's
                    // decoder and `sigs.k8s.io/yaml` take as they are: only another key (a
                    // merge key, a collection, a null, a uint64) is looked at.
                    let ordinary = matches!(
                        k_node.slot_kind(),
                        Some(SlotKind::Str { .. } | SlotKind::Bool(_) | SlotKind::Int(_) | SlotKind::Float(_))
                    );
                    if !ordinary {
                        let is_merge = k_node.is_merge_key();
                        // go-yaml's `decoder.merge` takes an alias of a mapping, not of a list.
                        let alias_of_list = is_merge && self.aliased == Some(at) && node.is_seq();
                        problem = key_problems(k_node, node, is_merge, alias_of_list, *map, &mut self.convert_problem);
                        *merge |= is_merge;
                    }
                    // A key given twice stays twice, as written: the decoder reports it
                    // (`duplicate field`), and lookups take the last one, as Go does.
                    *len = len.saturating_add(1);
                }
            },
        }
        if let Some((at, message)) = problem {
            self.go_problem(at, message);
        }
    }
}

/// What go-yaml's decoder refuses of a mapping entry whose key is no string, boolean or
/// number ([`kubectl::key_problem`]: a collection, a merge of something else than mappings),
/// with where; else records the first key `sigs.k8s.io/yaml` cannot turn into a JSON key
/// ([`kubectl::unsupported_key`]) in `convert_problem` (the key of mapping `map`).
#[cold]
#[inline(never)]
fn key_problems(
    k_node: Node<'_>,
    node: Node<'_>,
    is_merge: bool,
    alias_of_list: bool,
    map: usize,
    convert_problem: &mut Option<ConvertProblem>,
) -> Option<(Mark, String)> {
    if let Some(message) = kubectl::key_problem(k_node, node, is_merge, alias_of_list) {
        return Some((k_node.span().start, message));
    }
    if let Some((key, message)) = kubectl::unsupported_key(k_node, node)
        && convert_problem.as_ref().is_none_or(|p| p.map == map && p.key == key)
    {
        *convert_problem = Some(ConvertProblem { mark: k_node.span().start, message, map, key });
    }
    None
}

/// Parses with explicit limits.
pub fn parse_with_limits(text: &str, limits: Limits) -> Parsed {
    build(text, limits, None).0
}

/// Parses every document of `text`, leaving out of each object what `choose` (given the
/// object's `kind`) says the caller does not need: the mappings of a large object the caller
/// only indexes are never built. Documents whose kind `choose` does not know (`None`), and
/// everything before their `kind` key, are built whole. The first entry of every mapping is
/// kept (see [`Keep`]), so that a field path of what is kept lands on the same place in the
/// pruned tree as in the whole one: the linter positions findings on the first pass's tree.
///
/// The result is what [`parse`] gives, minus the parts left out, with the same documents,
/// errors and positions. Where leaving parts out could change that (an alias after the kind,
/// which could expand a pruned node or one left out; nesting that reaches the depth limit in
/// a part left out; a second `kind` that differs), the text is parsed whole instead, and so
/// is a text with a syntax error: go-yaml's words for it depend on the collections open
/// where it is, left out or not.
pub fn parse_pruned(text: &str, choose: ChooseKeep<'_>) -> Parsed {
    match build(text, Limits::default(), Some(choose)) {
        (parsed, true) if parsed.error.is_none() => parsed,
        _ => parse(text),
    }
}

/// Builds the documents of `text`, pruned when `choose` is given; the flag is false when
/// pruning could not give the same result as a whole parse (the caller then parses whole).
///
/// The text is read as kubectl reads it ([`kubectl`]): cut into pieces at `---` lines, the
/// first YAML document of each piece read, go-yaml's errors reported in its words. Where the
/// pieces are exactly the YAML stream's documents (no `...`, no directive, no control
/// character), the text is read by one parser; a piece that fails is read again on its own,
/// for go-yaml's account of the error.
fn build(text: &str, limits: Limits, choose: Option<ChooseKeep<'_>>) -> (Parsed, bool) {
    build_with(text, limits, choose, true)
}

/// [`build`], reading the text as one stream where it can (`stream`) or always piece by piece.
fn build_with(text: &str, limits: Limits, choose: Option<ChooseKeep<'_>>, stream: bool) -> (Parsed, bool) {
    let mut builder = Builder::new(choose, Scratch::take());
    let built = build_into(text, limits, &mut builder, stream);
    let Builder { stack, nodes, text, pruning, .. } = builder;
    Scratch { stack, nodes, text, skipped_at_key: pruning.skipped_at_key }.keep();
    built
}

/// [`build_with`] with the builder given.
fn build_into(text: &str, limits: Limits, builder: &mut Builder<'_>, stream: bool) -> (Parsed, bool) {
    // kubectl's file reader drops a UTF-8 byte order mark before anything reads the text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // kubectl reads a text whose first character but white space is `{` as JSON first
    // (`GuessJSONStream`, which looks at its first 4096 bytes).
    let space = text.len() - text.trim_start().len();
    if space < 4096 && text[space..].starts_with('{') {
        return build_json(text, limits, builder);
    }
    // A byte order mark go-yaml reads as text is given to saphyr as a character it reads so.
    let boms = kubectl::text_boms(text);
    builder.bom = boms.as_ref().map(|(_, c)| *c);
    let text = boms.as_ref().map_or(text, |(t, _)| t.as_str());
    let mut out = Parsed::default();
    let kubectl::Pieces { pieces, one_stream, error } = kubectl::pieces(text);
    let mut from = 0;
    // Documents are numbered as the YAML stream numbers them: a piece after a separator line
    // is one (that line starts it, even when nothing follows), and so is the first when it
    // holds one.
    let mut document = 0;
    if stream && one_stream {
        let whole = kubectl::Piece {
            text,
            start: Mark { index: 0, line: 1, col: 0 },
            separator: None,
            shorter: &[],
            line_starts: &[],
            indented: &[],
        };
        match read_events(whole, Some(&pieces), 0, limits, false, builder, &mut out) {
            Ok((Read::Inexact, _)) => return (out, false),
            Ok((Read::On | Read::Stop, _)) => return (out, true),
            Err(again) => {
                // (Only `Pieces` comes back from the whole text.)
                let (piece, first) = match again {
                    Again::Pieces { piece, document } => (piece, document),
                    Again::Whitespace | Again::Cut(_) | Again::CutAt(_) => (0, 0),
                };
                out.documents.retain(|d| d.index < first);
                from = piece;
                document = first;
            }
        }
    }
    for piece in pieces.into_iter().skip(from) {
        match read_piece(piece, false, &mut document, limits, builder, &mut out) {
            Read::On => {}
            Read::Stop => return (out, true),
            Read::Inexact => return (out, false),
        }
    }
    if let Some((mark, mut message)) = error {
        // The separator line is quoted: with its byte order marks, not their stand-in.
        if let Some(stand_in) = builder.bom {
            message = message.replace(stand_in, "\u{feff}");
        }
        out.error = Some(SyntaxError { mark, message, document, path: None });
    }
    (out, true)
}

/// [`build_into`] for a text kubectl reads as JSON first ([`kubectl::JsonStream`]): its JSON
/// values, then, where kubectl goes on in YAML, the YAML documents that follow, the first of
/// which fails with the JSON error.
fn build_json(text: &str, limits: Limits, builder: &mut Builder<'_>) -> (Parsed, bool) {
    let mut out = Parsed::default();
    let kubectl::JsonStream { values, then } = kubectl::json_stream(text);
    let mut document = 0;
    for piece in values {
        match read_piece(piece, true, &mut document, limits, builder, &mut out) {
            Read::On => {}
            Read::Stop => return (out, true),
            Read::Inexact => return (out, false),
        }
    }
    let (from, at, (json_mark, json_message)) = match then {
        kubectl::AfterJson::End => return (out, true),
        kubectl::AfterJson::Error(mark, message) => {
            out.error = Some(SyntaxError { mark, message, document, path: None });
            return (out, true);
        }
        kubectl::AfterJson::Yaml { from, at, error } => (from, at, error),
    };
    // A byte order mark go-yaml reads as text is given to saphyr as a character it reads so,
    // as in a text read as YAML from its start (`build_into`).
    let boms = kubectl::text_boms(&text[from..]);
    builder.bom = boms.as_ref().map(|(_, c)| *c);
    let rest = kubectl::Piece {
        text: boms.as_ref().map_or(&text[from..], |(t, _)| t.as_str()),
        start: at,
        separator: None,
        shorter: &[],
        line_starts: &[],
        indented: &[],
    };
    let kubectl::Pieces { pieces, error, .. } = kubectl::pieces(rest.text);
    let json_error =
        |document: usize| SyntaxError { mark: json_mark, message: json_message.clone(), document, path: None };
    let mut first = true;
    for piece in pieces {
        let piece = kubectl::Piece {
            start: rest.absolute(piece.start),
            separator: piece.separator.map(|m| rest.absolute(m)),
            ..piece
        };
        match read_piece(piece, false, &mut document, limits, builder, &mut out) {
            Read::On => first = false,
            Read::Stop => {
                if first {
                    out.error = Some(json_error(out.error.as_ref().map_or(document, |e| e.document)));
                }
                return (out, true);
            }
            Read::Inexact => return (out, false),
        }
    }
    out.error = match error {
        Some(_) if first => Some(json_error(document)),
        Some((mark, mut message)) => {
            if let Some(stand_in) = builder.bom {
                message = message.replace(stand_in, "\u{feff}");
            }
            Some(SyntaxError { mark: rest.absolute(mark), message, document, path: None })
        }
        None => None,
    };
    (out, true)
}

/// Reads one of kubectl's pieces of a file (`json`: a JSON value, read as `encoding/json` reads
/// it) as the document numbered `document` at most, and moves `document` past it.
fn read_piece(
    piece: kubectl::Piece<'_>,
    json: bool,
    document: &mut usize,
    limits: Limits,
    builder: &mut Builder<'_>,
    out: &mut Parsed,
) -> Read {
    // The separator kubectl dropped started a document, and so does a piece's own `---`.
    let own = piece.text.starts_with("---");
    let index = *document + usize::from(piece.separator.is_some() && own);
    // A JSON value is read as JSON reads it, escaped surrogates included.
    let rewritten = if json { kubectl::JsonForSaphyr::of(piece.text) } else { None };
    let piece = match &rewritten {
        Some(r) => kubectl::Piece { text: &r.text, shorter: &r.shorter, ..piece },
        None => piece,
    };
    let before = out.documents.len();
    let had_error = out.error.is_some();
    let (read, started) = build_piece(piece, json, index, limits, builder, out);
    if json {
        out.documents.iter_mut().skip(before).for_each(|d| d.json = true);
    }
    if !json
        && !had_error
        && let Some(error) = out.error.as_mut()
    {
        kubectl::line_as_line_reader_counts(piece, error);
    }
    *document = index + usize::from(piece.separator.is_some() || own || started);
    read
}

/// Whether reading goes on after a piece.
enum Read {
    /// To the next piece.
    On,
    /// No: a syntax error (recorded).
    Stop,
    /// No: pruning cannot give what a whole parse gives.
    Inexact,
}

/// Read again.
enum Again {
    /// From this piece on, one by one, numbering its document so (the whole text's parser met
    /// an error in it).
    Pieces { piece: usize, document: usize },
    /// This piece, as go-yaml reads its white space ([`whitespace`]): saphyr refused a tab
    /// or a comment there.
    Whitespace,
    /// This piece up to the line of this mark: a directive there ends the document go-yaml
    /// reads (`yaml_parser_fetch_directive` closes every block collection first).
    Cut(Mark),
    /// This piece up to this mark: the text after a quoted scalar that is the document's
    /// node, which go-yaml's `Unmarshal` never parses.
    CutAt(Mark),
}

/// Reads the first YAML document of one of kubectl's pieces of a file, numbering it `index`;
/// says whether the piece has one. A piece with tabs or YAML 1.1 line breaks saphyr reads
/// otherwise (or whose tab or comment saphyr refuses) is read as go-yaml's scanner reads its
/// white space ([`whitespace::scan`]), and a tab go-yaml refuses is refused in its words,
/// unless saphyr refuses something before it.
fn build_piece(
    piece: kubectl::Piece<'_>,
    json: bool,
    index: usize,
    limits: Limits,
    builder: &mut Builder<'_>,
    out: &mut Parsed,
) -> (Read, bool) {
    let stop = |out: &mut Parsed, mark: Mark, message: String| {
        out.error = Some(SyntaxError { mark, message, document: index, path: None });
        (Read::Stop, true)
    };
    builder.json = json;
    // `encoding/json` refuses control characters below U+0020 in strings (a JSON value with one
    // never gets here) and takes every other character.
    // go-yaml's reader decodes (and checks) the text 512 bytes at a time, as its scanner asks
    // for more: a character in a later block is refused only if nothing before it was.
    let control = if json { None } else { kubectl::control_character(piece.text) };
    let control_message = || format!("{}yaml: control characters are not allowed", kubectl::YAML_TO_JSON);
    let control_block = control.map(|at| kubectl::reader_block_start(piece.text, at));
    if let Some(at) = control
        && control_block == Some(0)
    {
        return stop(out, piece.absolute(at), control_message());
    }
    if let Some(at) = kubectl::end_before_document(piece.text) {
        let message = kubectl::worded(at, "did not find expected node content", kubectl::Count::Parser);
        return stop(out, piece.absolute(at), message);
    }
    if let Some((at, message)) = kubectl::directive_problem(piece.text) {
        return stop(out, piece.absolute(at), message);
    }
    // JSON is read by `encoding/json`, not go-yaml.
    let mut scanned = (!json && whitespace::worth_scanning(piece.text)).then(|| whitespace::scan(piece.text));
    let mut cut: Option<usize> = None;
    let before = out.documents.len();
    // Where saphyr is given a YAML 1.1 line break as `\n`, its marks count lines the file does
    // not: they are mapped back by index.
    let mut starts: Vec<u32> = Vec::new();
    let read = loop {
        let text = scanned.as_ref().and_then(|w| w.text.as_deref()).unwrap_or(piece.text);
        if starts.is_empty() && text != piece.text && piece.text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
            starts = kubectl::line_starts(piece.text);
        }
        let text = cut.map_or(text, |c| text.get(..c).unwrap_or(text));
        let retry = !json && scanned.is_none();
        let indented = scanned.as_ref().map_or(&[][..], |w| w.indented.as_slice());
        builder.apostrophe = scanned.as_ref().and_then(|w| w.apostrophe);
        builder.values = scanned.as_ref().map(|w| w.values.clone()).unwrap_or_default();
        match read_events(
            kubectl::Piece { text, line_starts: &starts, indented, ..piece },
            None,
            index,
            limits,
            retry,
            builder,
            out,
        ) {
            Err(Again::Whitespace) if retry => scanned = Some(whitespace::scan(piece.text)),
            Err(Again::Cut(at)) if cut.is_none() => cut = Some(kubectl::line_offset(text, at)),
            Err(Again::CutAt(at)) if cut.is_none() => {
                let line = kubectl::line_offset(text, at);
                let rest = text.get(line..).unwrap_or_default();
                cut = Some(line + rest.char_indices().nth(at.col as usize).map_or(rest.len(), |(i, _)| i));
            }
            Err(_) => {
                let message = format!("{}yaml: did not find expected node content", kubectl::YAML_TO_JSON);
                return stop(out, piece.start, message);
            }
            Ok(read) => break read,
        }
    };
    // saphyr counts no line at a U+2028 or U+2029 of a quoted scalar; go-yaml does.
    let kept = scanned.as_ref().map(|w| w.kept.as_slice()).unwrap_or_default();
    if !kept.is_empty()
        && let Some(e) = out.error.as_mut()
    {
        let local = e.mark.index.saturating_sub(piece.start.index);
        let before = u32::try_from(kept.partition_point(|k| *k < local)).unwrap_or(u32::MAX);
        kubectl::renumber_line(&mut e.message, |line| line.saturating_add(before));
    }
    if let (Some(at), Some(block)) = (control, control_block)
        && !out.error.as_ref().is_some_and(|e| kubectl::scanned_before(piece, e, block))
    {
        out.documents.truncate(before);
        return stop(out, piece.absolute(at), control_message());
    }
    // go-yaml's tab error, unless saphyr stopped before it.
    if let Some((at, problem, count)) = scanned.and_then(|w| w.error.map(|(at, problem)| (at, problem, w.count))) {
        // The scanner counts go-yaml's lines, YAML 1.1 breaks included.
        if starts.is_empty() && piece.text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
            starts = kubectl::line_starts(piece.text);
        }
        let absolute = kubectl::Piece { line_starts: &starts, ..piece }.absolute(at);
        if out.error.as_ref().is_none_or(|e| e.mark.index >= absolute.index) {
            out.documents.truncate(before);
            return stop(out, absolute, kubectl::worded(at, problem, count));
        }
    }
    read
}

/// Runs a parser over `piece` and builds what it reads; says whether a document started.
/// With `pieces` (the whole text, read as one stream), every document is read, and an error
/// sends reading back to the piece of its document (`Again`); without, `piece` is a piece whose
/// document is numbered `index`, its first document is read, and an error is reported in
/// go-yaml's words (`Err(Again)`: the piece is to be read otherwise; `Again::Whitespace` only
/// where `retry` allows it).
#[allow(clippy::too_many_arguments)]
fn read_events(
    piece: kubectl::Piece<'_>,
    pieces: Option<&[kubectl::Piece<'_>]>,
    index: usize,
    limits: Limits,
    retry: bool,
    builder: &mut Builder<'_>,
    out: &mut Parsed,
) -> Result<(Read, bool), Again> {
    let stop = |out: &mut Parsed, mark: Mark, message: String, document: usize| {
        out.error = Some(SyntaxError { mark, message, document, path: None });
        Ok((Read::Stop, true))
    };
    let again = |piece: usize, document: usize| Err(Again::Pieces { piece, document });
    let mut parser = Parser::new_from_str(piece.text);
    // Marks of a piece that starts the text, read as written, are the text's own.
    let whole_text = piece.start == Mark { index: 0, line: 1, col: 0 }
        && piece.shorter.is_empty()
        && piece.line_starts.is_empty()
        && piece.indented.is_empty();
    let mut in_document = false;
    let mut started = false;
    let mut doc_index = index;
    let mut doc_start = Mark::default();
    let mut fatal: Option<(Mark, String)> = None;
    let end = EndOfText::of(piece.text);
    // The piece a document of the whole text starts in (they are in order), and the number of
    // that piece's first document.
    let mut next_piece = 0usize;
    let mut piece_document = index;
    // The text of the last `!!binary` scalar, decoded.
    let mut binary = String::new();
    // Where nodes are in the piece's text (looked for only at some: anchors, keys, block
    // sequences).
    let mut cursor = kubectl::ByteCursor::new(piece.text);
    builder.reset();
    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(ev) => ev,
            Err(e) => {
                if pieces.is_some() {
                    return again(next_piece, piece_document);
                }
                // What go-yaml met first: a problem of the document before this.
                if let Some((mark, message)) = fatal {
                    return stop(out, mark, message, doc_index);
                }
                return match saphyr_error(&e, &piece, end, builder, retry) {
                    Ok((mark, message)) => stop(out, mark, message, doc_index),
                    Err(again) => Err(again),
                };
            }
        };
        let last_end = std::mem::replace(&mut builder.last_end, Mark::from_saphyr(span.end));
        if builder.pruning.kind.is_some() {
            match skip(builder, &event, span, limits) {
                Skip::Built => {}
                Skip::Skipped => continue,
                Skip::Inexact => return Ok((Read::Inexact, started)),
            }
        }
        if builder.pruning.inexact {
            return Ok((Read::Inexact, started));
        }
        if fatal.is_some() && !matches!(event, Event::DocumentEnd | Event::StreamEnd) {
            continue;
        }
        // Only what is built needs its place: an event left out (pruned) is not converted.
        let span = Span::from_saphyr(span);
        let (local_start, local_end) = (span.start, span.end);
        let span = if whole_text && end.0.is_none() { span } else { in_file(span, &piece, whole_text, end) };
        // What go-yaml refuses of a node saphyr reads: looked into, out of this loop, only for
        // the few events that may be one.
        let wants_other = || !builder.json && block_wants_other(builder, span.start.col, Given::Event).is_some();
        let (anchor, suspect) = suspect(&event, local_start, local_end, wants_other);
        if suspect
            && let Some(refused) = refused_node(&event, span, (local_start, local_end), &piece, &mut cursor, builder)
        {
            fatal = Some(refused);
            continue;
        }
        // A YAML flow mapping's key, and its value when that starts on a later line: the `:`
        // between them may be on a line after the key's (see `multi_line_flow_key`).
        if let Some(Frame::Map { key, flow: true, .. }) = builder.stack.last()
            && !matches!(event, Event::MappingEnd | Event::SequenceEnd)
        {
            if key.is_none() {
                let end = if let Event::Scalar(..) | Event::Alias(_) = event { local_end } else { local_start };
                builder.flow_key = (local_start, end);
            } else if let (key_start, key_end) = builder.flow_key
                && key_end.line < local_start.line
                && !kubectl::explicit_key(piece.text, cursor.byte_of(key_start.index))
                && let Some(refused) = multi_line_flow_key(&piece, None, key_end, &mut cursor, builder)
            {
                fatal = Some(refused);
                continue;
            }
        }
        if anchor != 0
            && let Some(refused) = anchor_refused(&piece, local_start, span.start.line, &mut cursor, builder)
        {
            fatal = Some(refused);
            continue;
        }
        match event {
            Event::StreamStart | Event::Nothing => {}
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                cold();
                if pieces.is_some() && started {
                    doc_index += 1;
                }
                in_document = true;
                started = true;
                doc_start = span.start;
                builder.reset();
                fatal = None;
                let this = match pieces {
                    Some(p) => {
                        let begins = |q: &kubectl::Piece<'_>| q.separator.unwrap_or(q.start).index;
                        let before = next_piece;
                        while next_piece + 1 < p.len() && begins(&p[next_piece + 1]) <= span.start.index {
                            next_piece += 1;
                        }
                        if next_piece != before {
                            piece_document = doc_index;
                        }
                        p.get(next_piece)
                    }
                    None => Some(&piece),
                };
                // A document starts at its `---`: the line kubectl dropped before the piece,
                // unless the piece has its own.
                if let Some(p) = this
                    && let Some(separator) = p.separator
                    && !p.text.starts_with("---")
                    && (pieces.is_none() || span.start.index < p.start.index)
                {
                    doc_start = separator;
                }
            }
            Event::DocumentEnd => {
                cold();
                if in_document {
                    if fatal.is_some() && pieces.is_some() {
                        return again(next_piece, piece_document);
                    }
                    if let Some((mark, message)) = fatal.take() {
                        return stop(out, mark, message, doc_index);
                    }
                    if builder.go_problem.is_some() && pieces.is_some() {
                        return again(next_piece, piece_document);
                    }
                    if let Some((mark, message)) = builder.go_problem.take() {
                        return stop(out, mark, message, doc_index);
                    }
                    if builder.convert_problem.is_some() && pieces.is_some() {
                        return again(next_piece, piece_document);
                    }
                    if let Some(ConvertProblem { mark, message, .. }) = builder.convert_problem.take() {
                        return stop(out, mark, message, doc_index);
                    }
                    if let Some(root) = builder.root() {
                        if builder.non_finite
                            && let Some((node, message)) = kubectl::unsupported_float(root)
                        {
                            if pieces.is_some() {
                                return again(next_piece, piece_document);
                            }
                            let path = path_of(root, node.span());
                            out.error =
                                Some(SyntaxError { mark: node.span().start, message, document: doc_index, path });
                            return Ok((Read::Stop, true));
                        }
                        if !matches!(root.scalar(), Some(Scalar::Null)) {
                            let tree = Tree::new(builder.nodes.drain(..).collect(), builder.text.as_str().into());
                            builder.text.clear();
                            out.documents.push(Document { index: doc_index, start: doc_start, tree, json: false });
                        }
                        builder.root = false;
                    }
                }
                in_document = false;
                // go-yaml reads the first document of a piece; what follows `...` is never read.
                if pieces.is_none() {
                    break;
                }
            }
            Event::Scalar(mut value, style, anchor, tag) => {
                if !builder.values.is_empty()
                    && let Some(go) = builder.go_value(&piece, last_end, local_end)
                {
                    value = Cow::Owned(go);
                }
                match resolve(&value, style, tag.as_deref(), &mut binary) {
                    Ok(_) if resolve::is_merge_key(&value, style, tag.as_deref()) => {
                        builder.slot(SlotKind::MergeKey, span, anchor);
                    }
                    Ok(scalar) => {
                        builder.non_finite |= matches!(scalar, Scalar::Float(f) if !f.is_finite());
                        builder.scalar(scalar, span, anchor);
                    }
                    // A text its tag refuses (`!!int abc`): the document is refused in go-yaml's
                    // words; a null keeps the tree whole until then.
                    Err(problem) => {
                        builder.go_problem(span.start, format!("{}yaml: {problem}", kubectl::YAML_TO_JSON));
                        builder.scalar(Scalar::Null, span, anchor);
                    }
                }
            }
            Event::Alias(id) => {
                if let Some(refused) = alias(builder, id, span, local_start, &piece, limits) {
                    fatal = Some(refused);
                }
            }
            Event::SequenceStart(anchor, _) => {
                // saphyr's span of a flow sequence's start is its `[`; a block one's is empty.
                let bracket = local_end.index > local_start.index;
                if builder.stack.len() >= limits.max_depth {
                    fatal = Some(too_deep_here(builder, &piece, local_start, span.start, bracket, limits));
                    continue;
                }
                let start = match bracket {
                    true => span.start,
                    false => block_sequence_start(piece.text, cursor.byte_of(local_start.index), span.start),
                };
                builder.open_collection(start, anchor, false, false, bracket);
            }
            Event::MappingStart(anchor, _) => {
                // saphyr's span of a flow mapping's start is its `{`; a block mapping's is empty,
                // and so is a pair's of a flow sequence, the only mapping there without `{`.
                let bracket = local_end.index > local_start.index;
                if builder.stack.len() >= limits.max_depth {
                    fatal = Some(too_deep_here(builder, &piece, local_start, span.start, bracket, limits));
                    continue;
                }
                let flow = !builder.json && (bracket || builder.open() == kubectl::Open::FlowSequence);
                builder.open_collection(span.start, anchor, true, flow, bracket);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((at, anchor, decoded)) = builder.close(span.end) {
                    builder.finish_node(at, anchor, decoded);
                }
            }
        }
    }
    if let Some((mark, message)) = fatal {
        if pieces.is_some() {
            return again(next_piece, piece_document);
        }
        return stop(out, mark, message, doc_index);
    }
    Ok((Read::On, started))
}

/// Marks the path that calls it as rarely taken: the compiler moves its code out of the way of
/// the event loop's (which runs for every event of every file, and whose code must stay in the
/// instruction cache with the parser's).
#[cold]
#[inline(never)]
fn cold() {}

/// A span of the text read as a span of the file, for a piece that does not start the file or
/// a text without a final line break (the marks past its end are clamped to it).
#[cold]
#[inline(never)]
fn in_file(span: Span, piece: &kubectl::Piece<'_>, whole_text: bool, end: EndOfText) -> Span {
    if whole_text {
        Span { start: end.clamp(span.start), end: end.clamp(span.end) }
    } else {
        Span { start: piece.absolute(end.clamp(span.start)), end: piece.absolute(end.clamp(span.end)) }
    }
}

/// The error for a collection nested deeper than the limit allows.
#[cold]
#[inline(never)]
fn too_deep(at: Mark, limits: Limits) -> (Mark, String) {
    (at, format!("invalid YAML: nesting deeper than {} levels", limits.max_depth))
}

/// The error for a collection nested deeper than the limit allows, starting at `at` (of the
/// file; `local_start` in the piece): kubectl's where go-yaml refuses the block nesting too
/// ([`kubectl::deep_block`], for block collections outside any flow one), else ours.
#[cold]
#[inline(never)]
fn too_deep_here(
    builder: &Builder<'_>,
    piece: &kubectl::Piece<'_>,
    local_start: Mark,
    at: Mark,
    bracket: bool,
    limits: Limits,
) -> (Mark, String) {
    if !bracket && builder.stack.iter().all(|frame| !frame.bracket()) {
        let mut open: Vec<u32> = builder.block_starts(piece).map(|m| m.col).collect();
        open.reverse();
        if let Some((mark, message)) = kubectl::deep_block(piece.text, local_start, &open) {
            return (piece.absolute(mark), message);
        }
    }
    too_deep(at, limits)
}

/// Builds an alias (at `span`, of the file; `local_start` in the piece): a copy of its anchor's
/// subtree, counted against go-yaml's alias budget and our limit; the error that ends the
/// document when the limit is passed.
#[cold]
#[inline(never)]
fn alias(
    builder: &mut Builder<'_>,
    id: usize,
    span: Span,
    local_start: Mark,
    piece: &kubectl::Piece<'_>,
    limits: Limits,
) -> Option<(Mark, String)> {
    match builder.anchors.get(&id) {
        Some((anchored, decoded)) => {
            let (size, decoded) = (anchored.len(), *decoded);
            // The alias node, then what it brings in.
            builder.count_decoded(1, false, span.start);
            builder.count_decoded(decoded, true, span.start);
            builder.alias_nodes = builder.alias_nodes.saturating_add(size);
            if builder.alias_nodes > limits.max_alias_nodes {
                let message = format!("{}yaml: document contains excessive aliasing", kubectl::YAML_TO_JSON);
                return Some((span.start, message));
            }
            // go-yaml refuses the document (reported at its end, unless the parser
            // refuses something first): nothing more is copied.
            if builder.alias_bomb {
                let at = builder.nodes.len();
                builder.nodes.push(Slot { kind: SlotKind::scalar(Scalar::Null, &mut builder.text), span });
                builder.finish_node(at, 0, 0);
                return None;
            }
            // Every node of the copy is where the alias is: a finding inside it is
            // about the object that uses the alias, not the one that defines it.
            let at = builder.nodes.len();
            if let Some((anchored, _)) = builder.anchors.get(&id) {
                builder.nodes.extend(anchored.iter().map(|slot| Slot { kind: slot.kind, span }));
            }
            builder.aliased = Some(at);
            builder.finish_node(at, 0, decoded);
        }
        // saphyr knows the anchor (or it would have refused the alias): it is on a node
        // still open, which go-yaml's parser takes and its decoder refuses
        // (`decoder.alias`).
        None => {
            if builder.go_problem.is_none() {
                let name = kubectl::anchor_name(piece.text, local_start);
                let message = format!("{}yaml: anchor '{name}' value contains itself", kubectl::YAML_TO_JSON);
                builder.go_problem(span.start, message);
            }
            builder.scalar(Scalar::Null, span, 0);
        }
    }
    None
}

/// saphyr's error in a piece, in go-yaml's words and at the place go-yaml points at, or how
/// to read the piece again where go-yaml reads on: with go-yaml's white space (a tab or a
/// comment saphyr refuses, when `retry`), or up to a directive that ends go-yaml's document.
#[cold]
#[inline(never)]
fn saphyr_error(
    e: &ScanError,
    piece: &kubectl::Piece<'_>,
    end: EndOfText,
    builder: &Builder<'_>,
    retry: bool,
) -> Result<(Mark, String), Again> {
    // A text without a final line break: saphyr reads one there, as go-yaml does (kubectl's
    // `LineReader` ends every line with one), so a mark past the end names go-yaml's line; the
    // place reported is the end of the text.
    let mut past_end = Mark::from_saphyr(*e.marker());
    let info = e.info();
    // A plain scalar, a comment after it, and a line that could go on with it: saphyr refuses
    // the line (YAML 1.2's "comment intercepting the multiline text"); go-yaml's scalar ends at
    // the comment (`yaml_parser_scan_plain_scalar` stops at ` #`) and the line starts the next
    // token. A scalar that is the document's node ends the document there, and go-yaml's
    // `Unmarshal` reads no further (`parser.document` parses one node and an implicit end);
    // elsewhere the token is what go-yaml's parser does not expect in the open collection.
    if info == "comment intercepting the multiline text" {
        let next = kubectl::next_line_token(piece.text, past_end);
        if builder.open() == kubectl::Open::Document {
            return Err(Again::Cut(next));
        }
        // The scalar starts a line where the open block collections want no node (a key of a
        // mapping whose value was given, left of a collection's column): go-yaml's parser
        // refuses it there, before its scanner reads on.
        if let Some((mark, problem)) = next_left_of_its_block(piece, builder, builder.last_end, past_end, true) {
            return Ok((piece.absolute(end.clamp(mark)), kubectl::worded(mark, problem, kubectl::Count::Parser)));
        }
        // A continuation line go-yaml's scalar does not reach (indented no more than the
        // innermost block collection): its token is what go-yaml's parser meets next, after
        // closing the block collections right of it.
        if let Some(block) = builder.block_starts(piece).next()
            && let Some(at) = kubectl::plain_ends_left(piece.text, builder.last_end, past_end, block.col)
            && let Some(problem) = block_wants_other(builder, at.col, Given::NextToken { entry_due: false })
        {
            return Ok((piece.absolute(end.clamp(at)), kubectl::worded(at, problem, kubectl::Count::Parser)));
        }
        // A scalar that starts its line at the column of the innermost block collection is a
        // required simple key, stale at the next token (`yaml_parser_stale_simple_keys`).
        if let Some(block) = builder.block_starts(piece).next()
            && kubectl::line_starts_with_key(piece.text, past_end, block.col)
        {
            let message = kubectl::worded(next, "could not find expected ':'", kubectl::Count::Scanner);
            return Ok((piece.absolute(end.clamp(next)), message));
        }
        // An indentless sequence (`- ` at its mapping's column) ends at a token that is no
        // `-` (`yaml_parser_parse_indentless_sequence_entry`); its mapping wants a key.
        if builder.in_indentless_sequence(piece) {
            let message = kubectl::worded(next, "did not find expected key", kubectl::Count::Parser);
            return Ok((piece.absolute(end.clamp(next)), message));
        }
        past_end = next;
    }
    let at = end.clamp(past_end);
    // go-yaml's white space, or lines of a flow collection or a quoted scalar indented less
    // than saphyr wants them, which go-yaml reads ([`whitespace`]).
    if retry
        && (info.contains("tab")
            || info.starts_with("comments must")
            || info.starts_with("':' must")
            || info.starts_with("invalid indentation")
            || info == "while scanning a block scalar, did not find expected comment or line break")
    {
        return Err(Again::Whitespace);
    }
    // A quoted scalar that is the document's node, text after it on its line (`'a' b`): go-yaml's
    // parser ends the document after the node (`yaml_parser_parse_document_end`: an implicit
    // end), and v2's `Unmarshal` parses no further, unless a `:` later on the line makes the
    // scalar a simple key (`"a" x: 1`), whose value is then due where `x` is.
    if info.starts_with("invalid trailing content after") && builder.open() == kubectl::Open::Document {
        match kubectl::after_quoted_document(piece.text, past_end) {
            Some(kubectl::AfterQuoted::Unread) => return Err(Again::CutAt(past_end)),
            Some(kubectl::AfterQuoted::KeyWithoutValue(mark)) => {
                let message = kubectl::worded(mark, "did not find expected key", kubectl::Count::Parser);
                return Ok((piece.absolute(end.clamp(mark)), message));
            }
            Some(kubectl::AfterQuoted::Refused(mark, problem)) => {
                let message = kubectl::worded(mark, problem, kubectl::Count::Scanner);
                return Ok((piece.absolute(end.clamp(mark)), message));
            }
            None => {}
        }
    }
    // A `-` that starts a line inside a flow collection opened lines before (its `}` or `]`
    // forgotten): saphyr's scanner refuses it while it looks ahead for a simple key, before its
    // parser meets what go-yaml's parser refuses first (`{k: b` then `c: {d: 1}`: a value
    // indicator after a value). go-yaml's scanner lets its parser refuse the `-`
    // (`yaml_parser_fetch_block_entry` in the flow context), after every token before it:
    // the piece is read again up to the `-`'s line, where the collection is still open.
    if info == "\"-\" is only valid inside a block" && kubectl::dash_at(piece.text, past_end, past_end.col) {
        return Err(Again::Cut(past_end));
    }
    // `... x`: go-yaml's document ends at the marker, past which kubectl reads nothing of the
    // piece (its parser never asks its scanner for the text after it).
    if info == "invalid content after document end marker" {
        return Err(Again::Cut(at));
    }
    if info == "missing explicit document end marker before directive" {
        return match kubectl::directive_after_content(piece.text, at) {
            Some((mark, problem)) => {
                Ok((piece.absolute(mark), kubectl::worded(mark, problem, kubectl::Count::Scanner)))
            }
            None => Err(Again::Cut(at)),
        };
    }
    if info == "misplaced bracket"
        && let Some(problem) = misplaced_bracket(
            builder,
            past_end.col,
            entry_due(
                piece.text,
                piece.text.char_indices().nth(past_end.index as usize).map_or(piece.text.len(), |(i, _)| i),
            ),
        )
    {
        let message = kubectl::worded(past_end, problem, kubectl::Count::Parser);
        return Ok((piece.absolute(end.clamp(past_end)), message));
    }
    // A flow collection or quoted scalar starting a line where go-yaml wants another token,
    // which saphyr's scanner had not given yet.
    if let Some((mark, problem)) = next_left_of_its_block(piece, builder, builder.last_end, past_end, false) {
        return Ok((piece.absolute(mark), kubectl::worded(mark, problem, kubectl::Count::Parser)));
    }
    // The innermost open block collection first: saphyr may stop before its parser closes
    // the collections that a line less indented ends.
    let go_yaml = builder
        .block_starts(piece)
        .find_map(|block| kubectl::stale_required_key(piece.text, at, Some(block)))
        .or_else(|| kubectl::block_entry_in_flow(piece.text, at))
        .or_else(|| {
            // An indentless sequence ends at any token but `-`, and its mapping wants a key
            // (`yaml_parser_parse_indentless_sequence_entry`): `a:` then `- 'b' c`.
            let open = match builder.open() {
                kubectl::Open::BlockSequence if builder.in_indentless_sequence(piece) => kubectl::Open::BlockMapping,
                open => open,
            };
            kubectl::go_yaml_error(info, past_end, piece.text, open)
        });
    let (mark, message) = match go_yaml {
        Some((mark, message)) => (mark, message),
        // Flow collections deeper than saphyr reads: kubectl's error if it has one there.
        None if info == SAPHYR_RECURSION_LIMIT => {
            let blocks = builder
                .stack
                .iter()
                .filter(|f| !matches!(f, Frame::Seq { bracket: true, .. } | Frame::Map { bracket: true, .. }))
                .count();
            kubectl::deep_flow(piece.text, past_end, blocks).unwrap_or_else(|| (at, scan_error_message(e)))
        }
        None => (at, scan_error_message(e)),
    };
    Ok((piece.absolute(end.clamp(mark)), message))
}

/// What go-yaml's parser wants where a bracket that closes nothing starts a line's token at
/// column `col` of the block context, where saphyr's words would name another collection:
/// go-yaml first closes the block collections right of the column
/// (`yaml_parser_unroll_indent`), then the innermost one left open wants its next key
/// ("did not find expected key"; an indentless sequence, at its mapping's column, ends at any
/// token but `-`)
/// or `-` ("did not find expected '-' indicator"); a block mapping whose value is due, at or
/// right of its column, wants the value's node ("did not find expected node content"). `None`
/// where saphyr's collection is go-yaml's. Right after a `-` (`entry_due`, on its line or
/// lines later), a sequence wants the entry's node ("did not find expected node content").
fn misplaced_bracket(builder: &Builder<'_>, col: u32, entry_due: bool) -> Option<&'static str> {
    if !matches!(builder.open(), kubectl::Open::BlockMapping | kubectl::Open::BlockSequence) {
        return None;
    }
    let mut frames = builder.stack.iter().rev().peekable();
    let mut closed = false;
    while let Some(frame) = frames.next() {
        let (start, map_key) = match frame {
            Frame::Map { start, key, .. } => (*start, Some(key.is_some())),
            Frame::Seq { start, .. } => (*start, None),
        };
        if frame.bracket() {
            return None;
        }
        if start.col > col {
            closed = true;
            continue;
        }
        let indentless = matches!(frames.peek(), Some(Frame::Map { start: parent, .. }) if parent.col == start.col);
        return match map_key {
            Some(true) if !closed => Some("did not find expected node content"),
            Some(_) if closed => Some("did not find expected key"),
            // An indentless sequence ends at any token but `-`, wherever it starts
            // (`yaml_parser_parse_indentless_sequence_entry`): `a:` then `- {b: 1}]`.
            None if entry_due && !closed => Some("did not find expected node content"),
            None if indentless => Some("did not find expected key"),
            None if closed => Some("did not find expected '-' indicator"),
            _ => None,
        };
    }
    None
}

/// What go-yaml refuses in an event that saphyr reads (at `span`, of the file): a verbatim
/// tag with no URI (`!<>`: `yaml_parser_scan_tag_uri`'s "did not find expected tag URI"), a
/// plain scalar starting with `:` in a flow collection, and
/// an implicit empty key in a mapping (`: value`, which go-yaml's scanner reads as a value
/// with no key before it: `yaml_parser_parse_block_mapping_key`'s "did not find expected
/// key"), with the mark of the piece go-yaml's line is counted from: `local`, the event's start
/// in the text saphyr reads, whose lines are go-yaml's (a YAML 1.1 line break, given to saphyr
/// as `\n`, is one) where the file's may not be.
fn go_refuses(
    event: &Event<'_>,
    span: Span,
    local: Mark,
    piece: &kubectl::Piece<'_>,
    builder: &Builder<'_>,
) -> Option<(Mark, &'static str, kubectl::Count)> {
    let local = || local;
    let tag = match event {
        Event::Scalar(_, _, _, tag) | Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) => tag.as_deref(),
        _ => None,
    };
    if tag.is_some_and(empty_tag) {
        return Some((local(), "did not find expected tag URI", kubectl::Count::Scanner));
    }
    // A plain scalar that starts with `:` in a flow collection (`[:x]`, `{a: :b}`): YAML 1.2
    // lets it start one, go-yaml's scanner reads a value indicator there (any `:` in the flow
    // context, `yaml_parser_fetch_next_token`), and its parser finds no node.
    if let Event::Scalar(value, ScalarStyle::Plain, _, _) = event
        && value.starts_with(':')
        && matches!(builder.open(), kubectl::Open::FlowMapping | kubectl::Open::FlowSequence)
        && piece.char_at(span.start.index) == Some(':')
    {
        return Some((local(), "did not find expected node content", kubectl::Count::Parser));
    }
    // A plain scalar that starts with `|` or `>` in a flow collection (`[|]`, `{a: >}`): go-yaml's
    // scanner starts a block scalar there in the block context only, and no other token
    // (`yaml_parser_fetch_next_token`).
    if let Event::Scalar(value, ScalarStyle::Plain, _, _) = event
        && let Some(first @ ('|' | '>')) = value.chars().next()
        && matches!(builder.open(), kubectl::Open::FlowMapping | kubectl::Open::FlowSequence)
        && piece.char_at(span.start.index) == Some(first)
    {
        return Some((local(), "found character that cannot start any token", kubectl::Count::Scanner));
    }
    if let Some(problem) = left_of_its_block(event, span, piece, builder) {
        return Some((local(), problem, kubectl::Count::Parser));
    }
    if let Event::Scalar(value, ScalarStyle::Plain, _, None) = event
        && value.is_empty()
        && matches!(builder.stack.last(), Some(Frame::Map { key: None, .. }))
        && piece.char_at(span.start.index) == Some(':')
        // The empty key of a `?` is a null key, which go-yaml reads (and kubectl refuses).
        && !kubectl::explicit_key(piece.text, piece.byte_at(span.start.index))
    {
        // In a flow mapping (`{: value}`), `yaml_parser_parse_flow_mapping_key` parses the
        // value indicator as a node.
        return match builder.open() {
            kubectl::Open::BlockMapping => Some((local(), "did not find expected key", kubectl::Count::Parser)),
            kubectl::Open::FlowMapping => Some((local(), "did not find expected node content", kubectl::Count::Parser)),
            _ => None,
        };
    }
    None
}

/// The anchor of a node's event (0: none), and whether go-yaml may refuse the node where saphyr
/// reads it ([`refused_node`]): it has a tag, or it is a plain scalar that is empty or starts
/// with `:`, `|` or `>`, a quoted scalar or a flow collection's start where the open block
/// collections want another token (`wants_other`: [`block_wants_other`], which reads only the
/// stack; [`left_of_its_block`] then looks at the line) ([`go_refuses`]), or a scalar on more
/// than one line or of 1024 bytes or more (a flow mapping key go-yaml refuses,
/// [`multi_line_flow_key`]). Nearly no event is one: this much is read of every event, the
/// rest only of those.
#[inline]
fn suspect(event: &Event<'_>, start: Mark, end: Mark, wants_other: impl FnOnce() -> bool) -> (usize, bool) {
    match event {
        Event::Scalar(value, style, anchor, tag) => {
            let plain =
                *style == ScalarStyle::Plain && matches!(value.as_bytes().first(), None | Some(b':' | b'|' | b'>'));
            let long = start.line != end.line || end.index.saturating_sub(start.index) >= 1024;
            let quoted = matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted);
            (*anchor, tag.is_some() || plain || long || (quoted && wants_other()))
        }
        // A flow collection's start (its bracket: a block one's span is empty).
        Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
            (*anchor, tag.is_some() || (end.index > start.index && wants_other()))
        }
        _ => (0, false),
    }
}

/// What go-yaml refuses of a node saphyr reads, for an event [`suspect`] names: the place in
/// the file and kubectl's words, [`go_refuses`] first, then a scalar that is a flow mapping's
/// key on more than one line or too long ([`multi_line_flow_key`]). `span` is the event's in
/// the file, `local` its start and end in `piece`.
#[cold]
#[inline(never)]
fn refused_node(
    event: &Event<'_>,
    span: Span,
    (local_start, local_end): (Mark, Mark),
    piece: &kubectl::Piece<'_>,
    cursor: &mut kubectl::ByteCursor<'_>,
    builder: &Builder<'_>,
) -> Option<(Mark, String)> {
    if let Some((local, problem, count)) = go_refuses(event, span, local_start, piece, builder) {
        return Some((span.start, kubectl::worded(local, problem, count)));
    }
    if let Event::Scalar(..) = event
        && (local_start.line != local_end.line || local_end.index.saturating_sub(local_start.index) >= 1024)
        && matches!(builder.stack.last(), Some(Frame::Map { key: None, flow: true, .. }))
        && !kubectl::explicit_key(piece.text, cursor.byte_of(local_start.index))
    {
        return multi_line_flow_key(piece, Some(local_start), local_end, cursor, builder);
    }
    None
}

/// go-yaml's parser error for a flow collection or a quoted scalar that starts a line of the
/// block context (at `span`, of the file) where no node may start, which saphyr reads on
/// from: left of the innermost block collection's column, where go-yaml's scanner first
/// closes the block collections right of it (`yaml_parser_unroll_indent`) and the one left
/// open wants its next key ("did not find expected key") or `-` ("did not find expected '-'
/// indicator"); or right of a mapping's column where the mapping wants its next key (a node
/// there is no key: `yaml_parser_parse_block_mapping_key`). A token at a mapping's column
/// (a required simple key: [`kubectl::stale_required_key`]) or right of it as the value of its
/// pending key is left as saphyr reads it.
fn left_of_its_block(
    event: &Event<'_>,
    span: Span,
    piece: &kubectl::Piece<'_>,
    builder: &Builder<'_>,
) -> Option<&'static str> {
    // saphyr's span of a flow collection's start is its bracket; a block one's is empty.
    let starts = match event {
        Event::SequenceStart(..) | Event::MappingStart(..) => span.end.index > span.start.index,
        Event::Scalar(_, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted, _, _) => true,
        _ => false,
    };
    if !starts || builder.json {
        return None;
    }
    let problem = block_wants_other(builder, span.start.col, Given::Event)?;
    // The first token of its line (looked at in the text only here, where it is rare).
    let at = piece.byte_at(span.start.index);
    let line = piece.text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let first = piece.text[line..at].bytes().all(|b| b == b' ') && !(line == 0 && piece.start.col > 0);
    first.then_some(problem)
}

/// Where a block sequence starts: at its first `-`. saphyr's span of an indentless
/// sequence's start (`a:` then `- # c` at `a`'s column) is past its `-` (the end of the
/// comment after it, or the end of a `-` alone on its line), which go-yaml's parser reads as
/// the sequence's start (`yaml_parser_parse_indentless_sequence_entry`, at the `-` token):
/// `start` (the span's, in the file, at byte `at` of `text`) moved back to the `-` on its line
/// when only white space and a comment come between them.
fn block_sequence_start(text: &str, at: usize, start: Mark) -> Mark {
    let Some(before) = text.get(..at) else { return start };
    if text[at..].starts_with('-') {
        return start;
    }
    let line = &before[before.rfind(['\n', '\r']).map_or(0, |i| i + 1)..];
    let code = kubectl::comment_start(line).map_or(line, |i| &line[..i]);
    let trimmed = code.trim_end_matches([' ', '\t']);
    if !trimmed.ends_with('-') {
        return start;
    }
    // The characters from the `-` to `at`, all on this line.
    let back = u32::try_from(line[trimmed.len() - 1..].chars().count()).unwrap_or(0);
    Mark { index: start.index.saturating_sub(back), line: start.line, col: start.col.saturating_sub(back) }
}

/// Whether the last token before byte `to` of `text`, past white space and comments, is a `-`
/// (a block entry): the entry's node is then still due.
fn entry_due(text: &str, to: usize) -> bool {
    for line in text.get(..to).unwrap_or(text).rsplit(['\n', '\r']) {
        let code = kubectl::comment_start(line).map_or(line, |i| &line[..i]);
        let code = code.trim_end_matches([' ', '\t']);
        if !code.is_empty() {
            return code.strip_suffix('-').is_some_and(|rest| rest.is_empty() || rest.ends_with([' ', '\t']));
        }
    }
    false
}

/// How the node [`block_wants_other`] looks at was found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Given {
    /// An event saphyr gave: in a block sequence, saphyr gives a node as an entry only after
    /// its `-`, where go-yaml's parser wants the entry's node too.
    Event,
    /// The token after the last event, which saphyr stopped before giving; `entry_due`: a `-`
    /// is the last token before it ([`entry_due`]).
    NextToken { entry_due: bool },
}

/// What go-yaml's parser wants instead of a node that starts a line at column `col` of the
/// block context, where it is no key or value ([`left_of_its_block`]); `None` where it may
/// be one, or a flow collection is open. A node saphyr gives right of an indentless
/// sequence's column, on a line after its `-` (`a:` then `- # c` then `  {b: 1}`), is that
/// entry's: go-yaml's `yaml_parser_parse_indentless_sequence_entry` parses the node after a
/// `-` wherever it starts, and ends the sequence only at a token after an entry.
fn block_wants_other(builder: &Builder<'_>, col: u32, given: Given) -> Option<&'static str> {
    let mut closed = false;
    let mut frames = builder.stack.iter().rev().peekable();
    let mut wanted = None;
    while let Some(frame) = frames.next() {
        let (start, pending) = match frame {
            Frame::Map { start, key, .. } => (*start, Some(key.is_some())),
            Frame::Seq { start, .. } => (*start, None),
        };
        if start.col > col {
            closed = true;
            continue;
        }
        // A sequence at its mapping's column (`a:` then `- b`) ends at any other token, and
        // the mapping wants its next key.
        let indentless = matches!(frames.peek(), Some(Frame::Map { start: parent, .. }) if parent.col == start.col);
        wanted = match pending {
            _ if start.col == col => None,
            Some(true) if !closed => None,
            Some(_) => Some("did not find expected key"),
            None if indentless && !closed && given == Given::Event => None,
            // After an entry, a sequence wants its next `-`.
            None if !closed && given == (Given::NextToken { entry_due: false }) && !indentless => {
                Some("did not find expected '-' indicator")
            }
            None if indentless => Some("did not find expected key"),
            None if closed => Some("did not find expected '-' indicator"),
            None => None,
        };
        break;
    }
    // go-yaml looks at no column inside a flow collection (rarely looked for: only here).
    wanted.filter(|_| !builder.stack.iter().any(Frame::bracket))
}

/// [`left_of_its_block`] for the token after the last event read (which ended at `after`, a
/// mark of the text read), when saphyr stopped at `stop`, past it, before giving it (a flow
/// collection's start waits for the scanner to know whether it is a key): its place in the
/// piece and go-yaml's words.
fn next_left_of_its_block(
    piece: &kubectl::Piece<'_>,
    builder: &Builder<'_>,
    after: Mark,
    stop: Mark,
    plain: bool,
) -> Option<(Mark, &'static str)> {
    let text = piece.text;
    let mut at = text.char_indices().nth(after.index as usize).map_or(text.len(), |(i, _)| i);
    // White space and comments, to the next token, which must start its line.
    loop {
        let rest = &text[at..];
        match rest.chars().next()? {
            ' ' | '\t' | '\n' | '\r' => at += 1,
            '#' => at += rest.find(['\n', '\r']).unwrap_or(rest.len()),
            _ => break,
        }
    }
    let line_start = text[..at].rfind(['\n', '\r']).map(|i| i + 1)?;
    let rest = &text[at..];
    // A plain scalar's token: its line up to a comment (none is a key: saphyr read no `:`).
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let plain_end = rest[..line_end].find(" #").unwrap_or(line_end);
    let is_plain = plain
        && !rest.starts_with([
            '[', '{', '"', '\'', '-', '?', ':', '#', '&', '*', '!', '|', '>', '%', '@', '`', ']', '}', ',',
        ])
        && !rest[..plain_end].contains(": ")
        && !rest[..plain_end].ends_with(':');
    if !(is_plain || rest.starts_with(['[', '{', '"', '\''])) || !text[line_start..at].bytes().all(|b| b == b' ') {
        return None;
    }
    let col = u32::try_from(at - line_start).ok()?;
    let problem = block_wants_other(builder, col, Given::NextToken { entry_due: entry_due(text, at) })?;
    // Lines as go-yaml counts them (a lone `\r` ends one too).
    let mark = kubectl::mark_at(text, at);
    // go-yaml's scanner reads the token (a quoted scalar whole, a flow collection's line, to
    // know whether it is a key) before its parser refuses it: saphyr's error must be past that.
    let rest = &text[at..];
    let scanned = match rest.as_bytes().first() {
        Some(&quote @ (b'"' | b'\'')) => quoted_end(rest, quote)?,
        _ if is_plain => rest[..plain_end].trim_end_matches([' ', '\t']).len(),
        _ => rest.find(['\n', '\r']).unwrap_or(rest.len()),
    };
    let scanned = u32::try_from(rest[..scanned].chars().count()).ok()?;
    (mark.index.saturating_add(scanned) < stop.index).then_some((mark, problem))
}

/// The byte offset in `text`, which starts with a quote, of its closing quote (`''` is an
/// escaped `'` in single quotes, `\\` escapes in double quotes).
fn quoted_end(text: &str, quote: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// go-yaml's scanner error for the name of the anchor of a node that starts at `local` (a mark
/// of the piece; `line` is its line in the file), at the place go-yaml stops
/// ([`kubectl::anchor_problem`]): the place in the file and kubectl's words. Nodes in a flow
/// collection opened on their line are left as saphyr reads them.
#[cold]
#[inline(never)]
fn anchor_refused(
    piece: &kubectl::Piece<'_>,
    local: Mark,
    line: u32,
    cursor: &mut kubectl::ByteCursor<'_>,
    builder: &Builder<'_>,
) -> Option<(Mark, String)> {
    let text = piece.text;
    let at = cursor.byte_of(local.index).min(text.len());
    let line_start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let depth = text[line_start..at].chars().fold(0i32, |d, c| match c {
        '{' | '[' => d + 1,
        '}' | ']' => d - 1,
        _ => d,
    });
    if depth > 0 {
        return None;
    }
    let value_on_key_line = matches!(builder.stack.last(),
        Some(Frame::Map { key: Some(k), .. }) if builder.nodes.get(*k).is_some_and(|n| n.span.start.line == line));
    let (offset, problem) = kubectl::anchor_problem(&text[at..], value_on_key_line)?;
    let chars = u32::try_from(text[at..at + offset].chars().count()).unwrap_or(u32::MAX);
    let mark = Mark { index: local.index.saturating_add(chars), col: local.col.saturating_add(chars), ..local };
    Some((piece.absolute(mark), kubectl::worded(mark, problem, kubectl::Count::Scanner)))
}

/// go-yaml's parser error for a key of a flow mapping (or of a pair of a flow sequence, `[a:
/// b]`) on more than one line, or one whose `:` is on a later line or more than 1024
/// characters after its start, which ends at `end` (a mark of the piece; `scalar`: the start
/// of a scalar key, which the caller read): a simple key and its `:` are on one line and at
/// most 1024 characters apart (`yaml_parser_stale_simple_keys`), so go-yaml scans the key as a
/// node and its `:` as a value indicator with no key, where its parser wants the next entry
/// (`yaml_parser_parse_flow_mapping_key`: "did not find expected ',' or '}'", at the `:`;
/// `yaml_parser_parse_flow_sequence_entry`: "did not find expected ',' or ']'"). An explicit
/// key (`? a`) is no simple key: the caller leaves it alone. The place in the file and
/// kubectl's words.
#[cold]
#[inline(never)]
fn multi_line_flow_key(
    piece: &kubectl::Piece<'_>,
    scalar: Option<Mark>,
    end: Mark,
    cursor: &mut kubectl::ByteCursor<'_>,
    builder: &Builder<'_>,
) -> Option<(Mark, String)> {
    // A pair of a flow sequence (`[a: b]`) is a mapping go-yaml never opens: its parser wants
    // the sequence's next entry (`yaml_parser_parse_flow_sequence_entry`).
    let wanted = match builder.open() {
        kubectl::Open::FlowMapping => "did not find expected ',' or '}'",
        _ if matches!(builder.stack.last(), Some(Frame::Map { flow: true, .. })) => "did not find expected ',' or ']'",
        _ => return None,
    };
    let text = piece.text;
    let at = cursor.byte_of(end.index).min(text.len());
    let after = &text[at..];
    // White space and comments (`{b # c` then `: d` on the next line) up to the `:`.
    let mut colon = 0;
    loop {
        colon += after[colon..].find(|c: char| !c.is_whitespace())?;
        if !after[colon..].starts_with('#') {
            break;
        }
        colon += after[colon..].find(['\n', '\r'])?;
    }
    if !after[colon..].starts_with(':') {
        return None;
    }
    // The `:`, past the white space from `end`, its lines counted as YAML counts them (a lone
    // `\r` ends one).
    let mark = kubectl::advance(end, &after[..colon]);
    let spans_lines = scalar.is_some_and(|start| start.line != end.line);
    let too_far = scalar.is_some_and(|start| mark.index > start.index.saturating_add(1024));
    if !spans_lines && !too_far && mark.line == end.line {
        return None;
    }
    Some((piece.absolute(mark), kubectl::worded(mark, wanted, kubectl::Count::Parser)))
}

/// `!<>`: a verbatim tag with nothing in it.
fn empty_tag(tag: &saphyr_parser::Tag) -> bool {
    tag.handle.is_empty() && tag.suffix.is_empty()
}

/// What [`skip`] did with an event.
enum Skip {
    /// Nothing: the event is built as usual.
    Built,
    /// It belongs to a value left out.
    Skipped,
    /// Pruning cannot give what a whole parse gives (see [`parse_pruned`]).
    Inexact,
}

/// Once a document's kind has chosen what to keep: leaves out the events of values not
/// needed, and tells when pruning would change the result.
fn skip(builder: &mut Builder<'_>, event: &Event<'_>, span: YSpan, limits: Limits) -> Skip {
    let multi_line = span.start.line() != span.end.line();
    // saphyr's span of a flow mapping's `{` or `}` is that character; a block mapping's is empty.
    let yaml_flow = !builder.json && span.end.index() > span.start.index();
    let json = builder.json;
    let open = builder.stack.len();
    let pruning = &mut builder.pruning;
    match (pruning.skipping, event) {
        // A document ends: a second `kind` may have changed what the object is.
        (None, Event::DocumentEnd) => {
            let root_kind = builder
                .root
                .then(|| Node::of(&builder.nodes, &builder.text))
                .and_then(|r| r.get("kind"))
                .and_then(Node::as_str);
            if pruning.skipped && root_kind != pruning.kind.as_deref() { Skip::Inexact } else { Skip::Built }
        }
        // An alias could expand a node that was pruned or left out (and the alias budget
        // counts its whole size).
        (_, Event::Alias(_)) => Skip::Inexact,
        (None, _) => Skip::Built,
        // An anchor's name may be one go-yaml refuses (see `anchor_refused`).
        (Some(_), Event::Scalar(_, _, a, _) | Event::SequenceStart(a, _) | Event::MappingStart(a, _)) if *a != 0 => {
            Skip::Inexact
        }
        // What go-yaml refuses in a value left out must be seen (see `go_refuses`).
        (Some(_), Event::SequenceStart(_, Some(tag)) | Event::MappingStart(_, Some(tag))) if empty_tag(tag) => {
            Skip::Inexact
        }
        // A key on more than one line or of 1024 characters or more, which go-yaml refuses in a
        // flow mapping (see `multi_line_flow_key`).
        (Some(_), Event::Scalar(..))
            if (multi_line || span.end.index() - span.start.index() >= 1024)
                && pruning.skipped_at_key.last() == Some(&Some(true)) =>
        {
            Skip::Inexact
        }
        (Some(_), Event::Scalar(value, ScalarStyle::Plain, _, _))
            if (value.is_empty() && pruning.skipped_at_key.last() == Some(&Some(true))) || value.starts_with(':') =>
        {
            Skip::Inexact
        }
        (Some(_), Event::Scalar(_, _, _, Some(tag))) if empty_tag(tag) => Skip::Inexact,
        (Some(depth), Event::SequenceStart(..) | Event::MappingStart(..)) => {
            // The depth limit counts the collections left out; a collection used as a key is
            // something go-yaml refuses.
            if open + depth >= limits.max_depth || pruning.skipped_at_key.last() == Some(&Some(true)) {
                return Skip::Inexact;
            }
            pruning.skipped_at_key.push(matches!(event, Event::MappingStart(..)).then_some(true));
            pruning.skipping = Some(depth + 1);
            if yaml_flow && matches!(event, Event::MappingStart(..)) {
                pruning.flow_lines.push(u32::try_from(span.start.line()).unwrap_or(u32::MAX));
            }
            Skip::Skipped
        }
        // A YAML flow mapping on more than one line may have a key whose `:` is on a later
        // line, which go-yaml refuses (see `multi_line_flow_key`).
        (Some(_), Event::MappingEnd)
            if yaml_flow
                && pruning
                    .flow_lines
                    .pop()
                    .is_some_and(|line| line != u32::try_from(span.end.line()).unwrap_or(u32::MAX)) =>
        {
            Skip::Inexact
        }
        (Some(depth), Event::SequenceEnd | Event::MappingEnd) => {
            pruning.skipping = depth.checked_sub(1).filter(|d| *d > 0);
            pruning.skipped_at_key.pop();
            if let Some(Some(at_key)) = pruning.skipped_at_key.last_mut() {
                *at_key = !*at_key;
            }
            if depth == 0 { Skip::Inexact } else { Skip::Skipped }
        }
        (Some(depth), Event::Scalar(value, style, _, tag)) => {
            // What go-yaml's decoder or json.Marshal refuse must be seen: a merge key, a NaN.
            let at_key = pruning.skipped_at_key.last_mut();
            let is_key = matches!(at_key, Some(Some(true)));
            if is_key && resolve::is_merge_key(value, *style, tag.as_deref()) {
                return Skip::Inexact;
            }
            // Only `.inf`, `.nan` and their signed spellings resolve to what json.Marshal refuses
            // (a float out of range stays a string), and a tagged text may be one its tag
            // refuses (`!!int abc`): look closer at those alone.
            let non_finite = !is_key && matches!(value.as_bytes().first(), Some(b'.' | b'+' | b'-'));
            if (tag.is_some() || non_finite)
                && match resolve(value, *style, tag.as_deref(), &mut String::new()) {
                    Err(_) => true,
                    Ok(Scalar::Float(f)) => non_finite && !f.is_finite(),
                    Ok(_) => false,
                }
            {
                return Skip::Inexact;
            }
            // A JSON number past float64's range (`1e400`) stays a string, and kubectl refuses
            // the document for it (`json: cannot unmarshal number 1e400 into Go value of type
            // float64`, hpa-lint's `input::number_out_of_range`): it must be seen.
            if json
                && *style == ScalarStyle::Plain
                && matches!(value.as_bytes().first(), Some(b'-' | b'0'..=b'9'))
                && matches!(resolve::resolve_plain(value), Scalar::Str(_))
            {
                return Skip::Inexact;
            }
            if let Some(Some(at_key)) = at_key {
                *at_key = !*at_key;
            }
            if depth == 0 {
                pruning.skipping = None;
            }
            Skip::Skipped
        }
        // A document or the stream cannot end inside a value.
        (Some(_), _) => Skip::Inexact,
    }
}

/// The last position of a text that does not end with a line break. saphyr's scanner reads the
/// missing final break as if it were there, so a mark at the very end of such a text (the end
/// of its last node, an error at end of input) says it is at column 0 of the next line, a line
/// the text does not have; [`EndOfText::clamp`] moves it back to the end of the last line.
#[derive(Debug, Clone, Copy)]
struct EndOfText(Option<Mark>);

impl EndOfText {
    fn of(text: &str) -> EndOfText {
        if text.is_empty() || text.ends_with(['\n', '\r']) {
            return EndOfText(None);
        }
        // Lines end as YAML ends them: `\n`, `\r\n` or a lone `\r`. Marks count characters.
        let (mut index, mut line, mut col) = (0u32, 1u32, 0u32);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            index = index.saturating_add(1);
            if c == '\n' || c == '\r' {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                    index = index.saturating_add(1);
                }
                line = line.saturating_add(1);
                col = 0;
            } else {
                col = col.saturating_add(1);
            }
        }
        EndOfText(Some(Mark { index, line, col }))
    }

    fn clamp(self, mark: Mark) -> Mark {
        match self.0 {
            Some(end) if mark.index >= end.index => end,
            _ => mark,
        }
    }
}

/// saphyr's words for flow collections nested past its limit
/// ([`kubectl::SAPHYR_FLOW_LEVELS`]).
const SAPHYR_RECURSION_LIMIT: &str = "recursion limit exceeded";

/// saphyr's words for an error go-yaml would not meet (or not there), marked as ours.
fn scan_error_message(e: &ScanError) -> String {
    // saphyr counts flow levels in a `u8` and gives up past 255 with a message that names its
    // implementation, not the input.
    match e.info() {
        SAPHYR_RECURSION_LIMIT => {
            "invalid YAML: flow collections ([...] or {...}) nested deeper than 255 levels".to_string()
        }
        info => format!("invalid YAML: {info}"),
    }
}

// === field paths back to nodes ===

/// Where a field path lands in a document.
#[derive(Debug, Clone, Copy)]
pub struct Located<'a> {
    /// The span to point at: the value when it exists, else the nearest existing parent's key.
    pub span: Span,
    /// The key's span when the path ends at a mapping entry.
    pub key_span: Option<Span>,
    /// Whether the whole path exists.
    pub exact: bool,
    /// The node the path names, when it exists ([`locate_node`]'s answer).
    pub node: Option<Node<'a>>,
}

/// Maps a field path to the node it names, or to its nearest existing ancestor.
///
/// A key with a dot in it, which kube-apiserver writes as it is in a field path (`unknown field
/// "spec.1.5"` of a key `1.5`), is found too: where a field is not found, the fields after it
/// are joined to it with dots, one at a time. Every way of reading the path is tried (a key `a`
/// beside a key `a.b` does not hide `a.b.c`); the first that names a node wins, the one
/// with the shortest keys first, and when none does, the answer is where the shortest keys
/// lead (the nearest ancestor that exists).
pub fn locate<'a>(root: Node<'a>, path: &str) -> Located<'a> {
    locate_steps(root, &parse_path(path), None, None)
}

/// [`locate`] for many paths of one document. `locate` walks `i` items to find `[i]` and every
/// entry of a mapping to find a key, so locating one path per item of a long list (a problem
/// per rule of a policy, an error per entry of a scenario's `load`) from the root each time is
/// quadratic in the list; a `Locator` walks each sequence and mapping it goes through once and
/// keeps its items and entries by index and key.
#[derive(Debug)]
pub struct Locator<'a> {
    root: Node<'a>,
    index: LocatorIndex<'a>,
}

/// A [`Locator`]'s indexes: the items of each sequence and the entries of each mapping a path
/// went through, by node.
#[derive(Debug, Default)]
struct LocatorIndex<'a> {
    items: HashMap<usize, Vec<Node<'a>>>,
    entries: HashMap<usize, HashMap<Cow<'a, [u8]>, Entry<'a>>>,
}

impl<'a> Locator<'a> {
    /// A locator of paths below `root`.
    pub fn new(root: Node<'a>) -> Locator<'a> {
        Locator { root, index: LocatorIndex::default() }
    }

    /// What [`locate`] answers for `path`.
    pub fn locate(&mut self, path: &str) -> Located<'a> {
        locate_steps(self.root, &parse_path(path), None, Some(&mut self.index))
    }
}

impl<'a> LocatorIndex<'a> {
    fn item(&mut self, node: Node<'a>, i: usize) -> Option<Node<'a>> {
        self.items.entry(node.id()).or_insert_with(|| node.items().into_iter().flatten().collect()).get(i).copied()
    }

    fn entry(&mut self, node: Node<'a>, key: &str) -> Option<Entry<'a>> {
        self.entries.entry(node.id()).or_insert_with(|| node.entry_index()).get(key.as_bytes()).copied()
    }
}

/// [`locate`] of `steps` below `node`, whose key (if it is a mapping's value) is at `key_span`;
/// through `index`'s items and entries when given (a [`Locator`]'s).
fn locate_steps<'a>(
    node: Node<'a>,
    steps: &[PathStep],
    key_span: Option<Span>,
    mut index: Option<&mut LocatorIndex<'a>>,
) -> Located<'a> {
    let entry = |index: &mut Option<&mut LocatorIndex<'a>>, key: &str| match index {
        Some(index) => index.entry(node, key),
        None => node.entry(key),
    };
    let nearest = Located { span: key_span.unwrap_or(node.span()), key_span, exact: false, node: None };
    let Some((step, rest)) = steps.split_first() else {
        return Located { span: node.span(), key_span, exact: true, node: Some(node) };
    };
    match (step, node.kind()) {
        (PathStep::Field(name), NodeKind::Map(_)) => {
            // The field alone, then joined to the fields after it, one more each time.
            let mut joined = name.clone();
            let mut partial = None;
            for taken in 0..=rest.len() {
                if taken > 0 {
                    let Some(PathStep::Field(more)) = rest.get(taken - 1) else { break };
                    joined.push('.');
                    joined.push_str(more);
                }
                let Some(entry) = entry(&mut index, &joined) else { continue };
                let rest = rest.get(taken..).unwrap_or_default();
                let found = locate_steps(entry.value, rest, Some(entry.key.span()), index.as_deref_mut());
                if found.exact {
                    return found;
                }
                partial.get_or_insert(found);
            }
            partial.unwrap_or(nearest)
        }
        (PathStep::Key(name), NodeKind::Map(_)) => match entry(&mut index, name) {
            Some(entry) => locate_steps(entry.value, rest, Some(entry.key.span()), index),
            None => nearest,
        },
        (PathStep::Index(i), NodeKind::Seq(mut items)) => {
            let item = match index.as_deref_mut() {
                Some(index) => index.item(node, *i),
                None => items.nth(*i),
            };
            match item {
                Some(item) => locate_steps(item, rest, None, index),
                None => nearest,
            }
        }
        _ => nearest,
    }
}

/// The field path of the mapping key or the value at `span` (a duplicate key, a value of the
/// wrong type), written as [`parse_path`] reads it: `spec.metrics[0].type`,
/// `metadata.labels[app.kubernetes.io/name]`.
pub fn path_of(root: Node<'_>, span: Span) -> Option<String> {
    fn walk(node: Node<'_>, target: Span, path: &mut String) -> bool {
        match node.kind() {
            NodeKind::Scalar(_) => false,
            NodeKind::Seq(items) => items.enumerate().any(|(i, item)| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let found =
                    item.span() == target || item.span().start.index <= target.start.index && walk(item, target, path);
                if !found {
                    path.truncate(len);
                }
                found
            }),
            NodeKind::Map(mut entries) => entries.any(|e| {
                let len = path.len();
                let key = e.key.key_str();
                if key.contains(['.', '[', ']']) {
                    path.push_str(&format!("[{key}]"));
                } else {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&key);
                }
                let found = e.key.span() == target || e.value.span() == target || walk(e.value, target, path);
                if !found {
                    path.truncate(len);
                }
                found
            }),
        }
    }
    let mut path = String::new();
    walk(root, span, &mut path).then_some(path)
}

/// The node a field path names, if it exists.
pub fn locate_node<'a>(root: Node<'a>, path: &str) -> Option<Node<'a>> {
    locate(root, path).node
}

/// Turns character positions into byte offsets of one source text. Its lines are the marks'
/// lines: YAML's, which `\n`, `\r\n` and a lone `\r` end.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    ascii: bool,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                line_starts.push(i + 1);
            }
        }
        LineIndex { line_starts, ascii: text.is_ascii() }
    }

    /// The byte offset of a mark in `text` (which must be the indexed text).
    pub fn offset(&self, text: &str, mark: Mark) -> usize {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        if self.ascii {
            return (mark.index as usize).min(text.len());
        }
        let line = (mark.line as usize).saturating_sub(1);
        let start = self.line_starts.get(line).copied().unwrap_or(text.len());
        let start = if line == 0 { start + bom } else { start };
        let rest = text.get(start..).unwrap_or("");
        let within: usize = rest.chars().take(mark.col as usize).map(char::len_utf8).sum();
        (start + within).min(text.len())
    }

    /// The byte range of a span.
    pub fn range(&self, text: &str, span: Span) -> std::ops::Range<usize> {
        let start = self.offset(text, span.start);
        let end = self.offset(text, span.end).max(start);
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_go_yaml_v2() {
        assert_eq!(resolve_plain("yes"), Scalar::Bool(true));
        assert_eq!(resolve_plain("off"), Scalar::Bool(false));
        assert_eq!(resolve_plain("010"), Scalar::Int(8));
        assert_eq!(resolve_plain("0x1F"), Scalar::Int(31));
        assert_eq!(resolve_plain("1_000"), Scalar::Int(1000));
        assert_eq!(resolve_plain("1e3"), Scalar::Float(1000.0));
        assert_eq!(resolve_plain("0.5"), Scalar::Float(0.5));
        assert_eq!(resolve_plain("500m"), Scalar::Str("500m"));
        assert_eq!(resolve_plain("1.2.3"), Scalar::Str("1.2.3"));
        assert_eq!(resolve_plain("-1"), Scalar::Int(-1));
        assert_eq!(resolve_plain("~"), Scalar::Null);
        assert_eq!(resolve_plain("09"), Scalar::Float(9.0));
        assert_eq!(resolve_plain("1e999"), Scalar::Str("1e999"));
    }

    #[test]
    fn documents_and_positions() {
        let text = "a: 1\n---\nkind: X\nspec:\n  metrics:\n  - type: Pods\n    pods: {metric: {name: q}}\n";
        let p = parse(text);
        assert!(p.error.is_none());
        assert_eq!(p.documents.len(), 2);
        let doc = &p.documents[1];
        assert_eq!(doc.index, 1);
        let l = locate(doc.root(), "spec.metrics[0].pods.metric.name");
        assert!(l.exact);
        assert_eq!(l.span.start.line, 7);
        let l = locate(doc.root(), "spec.metrics[0].pods.target.averageValue");
        assert!(!l.exact);
        assert_eq!(l.span.start.line, 7);
        assert_eq!(doc.root().to_json()["spec"]["metrics"][0]["type"], "Pods");
    }

    /// A key with a dot in it is found where a field path names it as kube-apiserver writes it
    /// (`unknown field "spec.1.5"`), and where the key is written in brackets.
    #[test]
    fn keys_with_dots_are_located() {
        let text = "spec:\n  a: 1\n  1.5: x\n  x.y.z: {e: y}\n  b: {c: z}\n";
        let root = parse(text).documents.remove(0).tree;
        let line = |path: &str| {
            let l = locate(root.root(), path);
            (l.exact, l.span.start.line)
        };
        assert_eq!(line("spec.1.5"), (true, 3));
        assert_eq!(line("spec[1.5]"), (true, 3));
        assert_eq!(line("spec.x.y.z.e"), (true, 4));
        assert_eq!(line("spec.b.c"), (true, 5), "a key without dots first");
        assert_eq!(line("spec.1.6"), (false, 1));
    }

    /// A key that is a prefix of a dotted key does not hide it: `a.b.c` is the `c` of the key
    /// `a.b` when the key `a` has no `b`, and the nearest ancestor is where the shortest keys
    /// lead when no reading names a node.
    #[test]
    fn a_dotted_key_is_found_behind_a_key_it_starts_with() {
        let text = "spec:\n  a: {x: 1}\n  a.b: {c: 2}\n  p: {q.r: {s: 3}}\n  p.q: {r: 4}\n";
        let root = parse(text).documents.remove(0).tree;
        let line = |path: &str| {
            let l = locate(root.root(), path);
            (l.exact, l.span.start.line)
        };
        assert_eq!(line("spec.a.b.c"), (true, 3));
        assert_eq!(line("spec.a.x"), (true, 2));
        assert_eq!(line("spec.p.q.r.s"), (true, 4), "the shortest keys first");
        assert_eq!(line("spec.p.q.r"), (true, 4));
        assert_eq!(line("spec.a.b.d"), (false, 2), "where the shortest keys lead: spec.a");
        assert_eq!(locate_node(root.root(), "spec.p.q.r").and_then(|n| n.to_json().get("s").cloned()), Some(3.into()));
    }

    /// A [`Locator`] answers as [`locate`] for every path, in any order and asked twice: items
    /// by index (past the end too), keys given twice (the last), dotted keys, missing fields,
    /// a path through a scalar.
    #[test]
    fn a_locator_answers_as_locate() {
        let text = "spec:\n  a: {x: 1}\n  a.b: {c: 2}\n  a: {y: 3}\n  l: [{n: 0}, {n: 1}, [p, q], 3]\n  1.5: x\n";
        let root = parse(text).documents.remove(0).tree;
        let paths = [
            "spec.l[2][1]",
            "spec.l[1].n",
            "spec.l[0].n",
            "spec.l[4]",
            "spec.l[9].n",
            "spec.a.y",
            "spec.a.x",
            "spec.a.b.c",
            "spec.1.5",
            "spec[1.5]",
            "spec.l[3].n",
            "spec.missing.deeper",
            "",
            "spec.l[1].n",
        ];
        let mut locator = Locator::new(root.root());
        for path in paths {
            let (a, b) = (locate(root.root(), path), locator.locate(path));
            assert_eq!((a.span, a.key_span, a.exact, a.node), (b.span, b.key_span, b.exact, b.node), "{path}");
        }
    }

    #[test]
    fn lines_left_of_the_indentation_keep_their_places() {
        // Read with spaces added at the start of lines 3, 4, 5 and 7 (`whitespace`), placed as
        // written.
        let text = "a:\n  b: [x,\nu, \"z\n\tw\"\n]\n  c: \"p\nq\"\n  d: e\n";
        let p = parse(text);
        assert!(p.error.is_none(), "{:?}", p.error);
        let root = p.documents[0].root();
        assert_eq!(root.to_json(), serde_json::json!({"a": {"b": ["x", "u", "z w"], "c": "p q", "d": "e"}}));
        let place = |path: &str| {
            let l = locate(root, path);
            assert!(l.exact, "{path}");
            (l.span.start.line, l.span.start.col, l.span.start.index, l.span.end.line, l.span.end.col)
        };
        assert_eq!(place("a.b[1]"), (3, 0, 12, 3, 1));
        assert_eq!(place("a.b[2]"), (3, 3, 15, 4, 3));
        assert_eq!(place("a.c"), (6, 5, 29, 7, 2));
        assert_eq!(place("a.d"), (8, 5, 40, 8, 6));
    }

    #[test]
    fn duplicate_keys_are_kept_and_the_last_one_counts() {
        let p = parse("a: 1\nb: 2\na: 3\n");
        let d = &p.documents[0];
        let NodeKind::Map(entries) = d.root().kind() else { panic!() };
        assert_eq!(entries.len(), 3);
        assert_eq!(d.root().entry("a").unwrap().key.span().start.line, 3);
        assert_eq!(d.root().to_json()["a"], 3);
    }

    #[test]
    fn float_keys_are_written_as_a_float32s_shortest_digits() {
        let p = parse("685.230_15e+03: a\n1.5e10: b\n123456789.0: c\n.inf: d\n-.Inf: e\n.NaN: f\n1e3: g\n0.5: h\n");
        let keys: Vec<String> = p.documents[0].root().entries().unwrap().map(|e| e.key.key_string()).collect();
        assert_eq!(keys, ["685230.1", "1.5e+10", "1.2345679e+08", ".inf", "-.inf", ".nan", "1000", "0.5"]);
    }

    /// go-yaml's reader checks the text a block of 512 bytes at a time: a control character
    /// past the first block is refused only if its scanner and parser got there.
    #[test]
    fn a_control_character_is_met_in_go_yamls_reading_order() {
        let pad = format!("# {}\n", "x".repeat(600));
        let cases = [
            (format!("a: 1\n b: 2\n{pad}c: \u{7}\n"), "yaml: line 2: mapping values are not allowed in this context"),
            (format!("a: 1\n{pad}c: \u{7}\n"), "yaml: control characters are not allowed"),
            (format!("a: 1\nb: {}\n c: 2\nd: \u{7}\n", "y".repeat(600)), "yaml: control characters are not allowed"),
            (format!("a: \u{7}\n b: 2\n{pad}"), "yaml: control characters are not allowed"),
        ];
        for (text, message) in cases {
            let error = parse(&text).error.map(|e| e.message);
            assert_eq!(error.as_deref().and_then(|m| m.strip_prefix(kubectl::YAML_TO_JSON)), Some(message), "{text:?}");
        }
    }

    /// A plain scalar that is a document's node ends at a comment, and the document with it:
    /// go-yaml's `Unmarshal` reads no further, whatever the next line holds.
    #[test]
    fn a_comment_ends_a_scalar_document() {
        for text in ["a #c\n b\n", "a #c\n  b: [\n"] {
            let p = parse(text);
            assert_eq!(p.error, None, "{text:?}");
            assert_eq!(p.documents.len(), 1, "{text:?}");
        }
        let p = parse("a: 1\n---\napiVersion:#c  v1 #c\nkind: z\n");
        let roots: Vec<serde_json::Value> = p.documents.iter().map(|d| d.root().to_json()).collect();
        assert_eq!(roots, [serde_json::json!({"a": 1}), serde_json::json!("apiVersion:#c  v1")]);
    }

    #[test]
    fn only_an_implicit_or_merge_tagged_key_merges() {
        let text = "a:\n  <<: {k: 1}\nb:\n  ! \"<<\": {k: 1}\nc:\n  !!merge '<<': {k: 1}\nd:\n  \"<<\": {k: 1}\ne:\n  !!str <<: {k: 1}\n";
        let v = parse(text).documents[0].root().to_json();
        let merged = serde_json::json!({"k": 1});
        let kept = serde_json::json!({"<<": {"k": 1}});
        assert_eq!([&v["a"], &v["b"], &v["c"], &v["d"], &v["e"]], [&merged, &merged, &merged, &kept, &kept]);
    }

    #[test]
    fn aliases_merges_and_bombs() {
        let p = parse("base: &b {x: 1, w: 2}\nthing:\n  <<: *b\n  w: 3\n  y: 4\n");
        let v = p.documents[0].root().to_json();
        assert_eq!(v["thing"]["x"], 1);
        assert_eq!(v["thing"]["w"], 3);
        // YAML 1.1, as kubectl reads it: `y` is the boolean true.
        assert_eq!(v["thing"]["true"], 4);
        // What an alias brings in is located at the alias.
        let thing = p.documents[0].root().get("thing").unwrap();
        assert_eq!(thing.get("x").unwrap().span().start.line, 3);
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..8 {
            let prev = if i == 0 { "a".to_string() } else { format!("l{}", i - 1) };
            bomb.push_str(&format!("l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        let p = parse(&bomb);
        assert_eq!(
            p.error.unwrap().message,
            "error converting YAML to JSON: yaml: document contains excessive aliasing"
        );
    }

    /// go-yaml's alias budget is a share of the nodes its decoder unmarshals, not a count: a
    /// thousand-fold expansion is refused next to 39 labels and read next to 40 (kubectl 1.33
    /// agrees on both), and the nodes after the aliases do not save it (go-yaml stops at once).
    #[test]
    fn alias_budget_is_go_yamls_share_of_nodes() {
        let aliases = |labels: usize, after: usize| {
            let pad = |n: usize| (0..n).map(|i| format!("l{i}: v")).collect::<Vec<_>>().join(", ");
            let mut text = format!("kind: A\nmetadata:\n  labels: {{{}}}\nspec:\n", pad(labels));
            text.push_str("  a: &a [x, x, x, x, x, x, x, x, x, x]\n");
            for (name, of) in [("b", "a"), ("c", "b")] {
                text.push_str(&format!("  {name}: &{name} [{}]\n", vec![format!("*{of}"); 10].join(", ")));
            }
            text.push_str(&format!("  d: [{}]\n  z: {{{}}}\n", ["*c"; 10].join(", "), pad(after)));
            text
        };
        let refused = |text: &str| parse(text).error.map(|e| (e.mark.line, e.message));
        let bomb = Some((8, "error converting YAML to JSON: yaml: document contains excessive aliasing".to_string()));
        assert_eq!(refused(&aliases(39, 0)), bomb);
        assert_eq!(refused(&aliases(39, 500)), bomb);
        assert_eq!(refused(&aliases(40, 0)), None);
        let read = parse(&aliases(40, 0));
        assert_eq!(read.documents[0].root().get("spec").unwrap().to_json()["d"][9][9][9][9], "x");
    }

    /// What the pruning tests keep of a `Thing`: its name, and the `a` of each item of `list`.
    fn keep_things(kind: &str) -> Option<&'static Keep> {
        const ITEM: Keep = Keep(&[("a", None)]);
        const THING: Keep = Keep(&[("kind", None), ("name", None), ("list", Some(&ITEM))]);
        (kind == "Thing").then_some(&THING)
    }

    #[test]
    fn pruning_leaves_out_what_is_not_needed_and_keeps_positions() {
        let text = "name: x\nkind: Thing\nbig: {deep: [1, 2, {x: y}]}\nlist:\n- {a: 1, b: 2}\n- a: [3]\n  c: 4\n- b: {x: 1, w: 2}\n  a: 5\n---\nkind: Other\nbig: 1\n";
        let pruned = parse_pruned(text, &keep_things);
        let whole = parse(text);
        let thing = pruned.documents[0].root();
        assert_eq!(
            thing.to_json(),
            serde_json::json!({"name": "x", "kind": "Thing", "list": [{"a": 1}, {"a": [3]}, {"b": {"x": 1}, "a": 5}]})
        );
        // Every node kept is where it is in the whole tree; a mapping keeps its first entry
        // (of its value, the first entry again).
        for path in ["name", "kind", "list", "list[0].a", "list[1].a", "list[2].b", "list[2].b.x", "list[2].a"] {
            let (p, w) = (locate_node(thing, path).unwrap(), locate_node(whole.documents[0].root(), path).unwrap());
            assert_eq!(p.span(), w.span(), "{path}");
        }
        assert_eq!(thing.span(), whole.documents[0].root().span());
        // A kind the chooser does not know is built whole, and so is what precedes `kind`.
        assert_eq!(pruned.documents[1], whole.documents[1]);
        let late = parse_pruned("big: {x: 1}\nkind: Thing\nmore: 2\n", &keep_things);
        assert_eq!(late.documents[0].root().to_json(), serde_json::json!({"big": {"x": 1}, "kind": "Thing"}));
    }

    #[test]
    fn pruning_parses_whole_where_leaving_out_could_change_the_result() {
        let depth = Limits::default().max_depth;
        let cases = [
            // An alias after the kind (it could expand a pruned node).
            "kind: Thing\nlist: &l [{a: 1, b: 2}]\nagain: *l\n".to_string(),
            "kind: Thing\nbig: &b {x: 1}\nname: *b\n".to_string(),
            // A second kind that differs: the object was not a Thing after all.
            "kind: Thing\nbig: 1\nkind: Other\n".to_string(),
            // Nesting past the limit inside a part left out (flow nesting stops the scanner
            // first, at 255 levels, whether pruned or not).
            format!(
                "kind: Thing\nbig:\n{}",
                (0..depth + 2).map(|i| format!("{}- \n", "  ".repeat(i))).collect::<String>()
            ),
            // What go-yaml refuses, in a part left out: it must still be seen.
            "kind: Thing\nbig: {x: .nan}\n".to_string(),
            "kind: Thing\nbig: {<<: {x: 1}}\n".to_string(),
            "kind: Thing\nbig: {[x]: 1}\n".to_string(),
            "kind: Thing\nbig: [{x: 1}, {? {y: 1} : 2}]\n".to_string(),
            // A key of 1024 characters or more, which go-yaml refuses in a flow collection.
            format!("kind: Thing\nbig: {{{}: 1}}\n", "k".repeat(1025)),
            format!("kind: Thing\nbig: [{}: 1]\n", "k".repeat(1025)),
        ];
        for text in &cases {
            let (_, exact) = build(text, Limits::default(), Some(&keep_things));
            assert!(!exact, "pruning must give way: {text}");
            assert_eq!(parse_pruned(text, &keep_things), parse(text), "{text}");
        }
        // Errors are the same either way, and documents before them are kept.
        let text = "kind: Thing\nbig: 1\n---\nkind: Thing\nbig: [\n";
        let (pruned, whole) = (parse_pruned(text, &keep_things), parse(text));
        assert_eq!(pruned.error, whole.error);
        assert_eq!(pruned.documents.len(), 1);
        // A kind that agrees with itself twice is still pruned (both stay, as written).
        let twice = parse_pruned("kind: Thing\nbig: 1\nkind: Thing\n", &keep_things);
        assert_eq!(twice.documents[0].root().to_json(), serde_json::json!({"kind": "Thing"}));
    }

    /// go-yaml's words and line numbers, as kubectl 1.32 prints them after `error parsing
    /// FILE: ` for these texts (tests/tests/malformed.rs compares with kubectl itself).
    #[test]
    fn a_tag_takes_flow_indicators_as_go_yamls_does() {
        // go-yaml's tag is `!!null,`, which it does not know: `b` is its string.
        let text = "a: [!!null, b]\nc: {k: !!int, v}\nd: !!str,x y\n";
        let p = parse(text);
        assert_eq!(p.error, None);
        assert_eq!(p.documents[0].root().to_json(), serde_json::json!({"a": ["b"], "c": {"k": "v"}, "d": "y"}));
    }

    #[test]
    fn a_tags_suffix_takes_a_bang_as_go_yamls_does() {
        // kubectl 1.33: `!!!y` is the handle `!!` and the suffix `!y`, a tag go-yaml does not
        // know; saphyr's URI refused the `!` (`did not find expected tag URI`).
        let p = parse("a: !!!y b\nc: !!!!y d\ng: [!!!q h]\ni: !!a!b j\n");
        assert_eq!(p.error, None);
        let json = serde_json::json!({"a": "b", "c": "d", "g": ["h"], "i": "j"});
        assert_eq!(p.documents[0].root().to_json(), json);
    }

    #[test]
    fn an_anchors_name_ends_at_a_colon_glued_to_it() {
        // kubectl 1.33: go-yaml's anchor is `nginx`, on the plain scalar `:1.25` (saphyr's
        // name would take the `:1.25`, and the value be null).
        let p = parse("image: &nginx:1.25\ntag: *nginx\n&a:b: c\n");
        assert_eq!(p.error, None);
        let json = serde_json::json!({"image": ":1.25", "tag": ":1.25", ":b": "c"});
        assert_eq!(p.documents[0].root().to_json(), json);
    }

    #[test]
    fn byte_order_marks_past_a_pieces_start_are_text() {
        let text = "a: \u{feff}b\nc: d\u{feff}\n\u{feff}  e: [\u{feff}f]\n---\n\u{feff}g: \u{e000}\n";
        let p = parse(text);
        assert_eq!(p.error, None);
        let docs: Vec<_> = p.documents.iter().map(|d| d.root().to_json()).collect();
        assert_eq!(
            docs,
            [
                serde_json::json!({"a": "\u{feff}b", "c": "d\u{feff}", "\u{feff}  e": ["\u{feff}f"]}),
                serde_json::json!({"g": "\u{e000}"}),
            ]
        );
        // Where go-yaml refuses it, in its words and place.
        let p = parse("a: 1\n \u{feff}b: 2\n");
        let e = p.error.unwrap();
        assert_eq!(
            (e.message.as_str(), e.mark.line, e.mark.col),
            ("error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context", 2, 3)
        );
    }

    /// An entry of an indentless sequence whose `-` a comment (or nothing) follows has its
    /// node on a later line, right of the `-`: go-yaml reads it there, flow collection or
    /// quoted scalar, and so does kubectl; the sequence starts at its `-`.
    #[test]
    fn an_entry_may_start_on_the_line_after_its_dash() {
        for (text, json) in [
            ("a:\n- # c\n  'b'\n", serde_json::json!({"a": ["b"]})),
            ("a:\n- # c\n  {b: 1}\n- # d\n  \"c\"\n", serde_json::json!({"a": [{"b": 1}, "c"]})),
            ("a:\n-   # c\n\n  [1]\n", serde_json::json!({"a": [[1]]})),
            ("a:\n-\n  # c\n  {b: 1}\n", serde_json::json!({"a": [{"b": 1}]})),
        ] {
            let parsed = parse(text);
            assert_eq!(parsed.error.map(|e| e.message), None, "{text:?}");
            let root = parsed.documents[0].root();
            assert_eq!(root.to_json(), json, "{text:?}");
            let list = root.get("a").unwrap();
            assert_eq!((list.span().start.line, list.span().start.col), (2, 0), "{text:?}");
        }
    }

    /// A quoted scalar that is a document's node ends the document: the text after it on its
    /// line is never parsed (go-yaml v2's `Unmarshal` parses one document).
    #[test]
    fn text_after_a_quoted_document_is_not_read() {
        // On lines of its own, the scalar is no simple key: only the next token is read.
        for text in ["'a' b\n", "\"a\"b c\n", "'a' [b #c\n# d\n", "'a' 'b'", "'a\n b' c: d\n- e\n"] {
            let parsed = parse(text);
            assert_eq!(parsed.error.map(|e| e.message), None, "{text:?}");
            assert_eq!(parsed.documents.len(), 1, "{text:?}");
            let first = parsed.documents[0].root().to_json();
            assert!(first == serde_json::json!("a") || first == serde_json::json!("a b"), "{text:?}");
        }
        let parsed = parse("'a' b\n---\nc: 1\n");
        assert_eq!(parsed.documents.len(), 2);
        assert_eq!(parsed.documents[1].root().to_json(), serde_json::json!({"c": 1}));
    }

    #[test]
    fn errors_are_go_yamls() {
        for (text, message, (line, col)) in [
            // At the tab, where go-yaml's scanner stops.
            ("a: 1\nb:\n\tc: 2\n", "yaml: line 3: found character that cannot start any token", (3, 1)),
            ("a: b\n\tc: 2\n", "yaml: line 2: found a tab character that violates indentation", (2, 1)),
            ("a:\n  b: 1\n c: 2\n", "yaml: line 2: did not find expected key", (3, 2)),
            // go-yaml names no line for a problem on the first line.
            ("a: b: c\n", "yaml: mapping values are not allowed in this context", (1, 5)),
            ("a: [1, 2\nb: 3\n", "yaml: line 1: did not find expected ',' or ']'", (2, 2)),
            ("a: {x: 1\nb: 3\n", "yaml: line 1: did not find expected ',' or '}'", (2, 2)),
            // A flow mapping's key and its `:` are on one line; its value may be on the next.
            ("a: {x\n : 1}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 2)),
            ("a: {x: 1, \"y\"\n\n: 1}\n", "yaml: line 2: did not find expected ',' or '}'", (3, 1)),
            ("---\n{a: 1]\n", "yaml: line 1: did not find expected ',' or '}'", (2, 6)),
            ("a: 'x\nb: 1\n", "yaml: line 3: found unexpected end of stream", (3, 1)),
            ("a: \"\\q\"\n", "yaml: found unknown escape character", (1, 5)),
            // go-yaml names the escape's line, not the scalar's.
            ("a: \"x\n  y\n  \\z\"\n", "yaml: line 3: found unknown escape character", (3, 3)),
            ("a: \"x\\\n  y\\x4\"\n", "yaml: line 2: did not find expected hexdecimal number", (2, 6)),
            ("a: \"x\r\n\\uD800\"\n", "yaml: line 2: found invalid Unicode character escape code", (2, 3)),
            // An anchor's name ends at a bracket glued to it, which go-yaml's scanner refuses.
            ("a: 1\nb: &x{ 2\nc: 3\n", "yaml: line 2: did not find expected alphabetic or numeric character", (2, 6)),
            // YAML 1.2's `\/` is none of go-yaml's escapes.
            ("a: \"x\\/y\"\n", "yaml: found unknown escape character", (1, 6)),
            ("a: @x\n", "yaml: found character that cannot start any token", (1, 4)),
            ("a: *nope\n", "yaml: unknown anchor 'nope' referenced", (1, 4)),
            // In a flow collection a `:` glued to an anchor is a value indicator.
            ("a: 1\nb: {k: &x:y}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 10)),
            ("a: 1\nb: [k: &x:y]\n", "yaml: line 1: did not find expected ',' or ']'", (2, 10)),
            ("- a\nb: c\n", "yaml: line 1: did not find expected '-' indicator", (2, 1)),
            // Lines count from the document's first line (after the `---`).
            ("a: 1\n---\nb:\n  c: 1\n d: 2\n", "yaml: line 2: did not find expected key", (5, 2)),
            ("%YAML 1.2\n---\na: 1\n", "yaml: found incompatible YAML document", (1, 1)),
            ("# c\n...\n", "yaml: line 1: did not find expected node content", (2, 1)),
            // A quoted key that closes on a later line is stale right after its quote.
            ("a: 1\n'b: 2\nc\nd: it's\ne: 4\n", "yaml: line 4: could not find expected ':'", (4, 7)),
            ("a: 1\n? [x]\n: y\n", "yaml: invalid map key: []interface {}{\"x\"}", (2, 3)),
            ("a: {<<: 1}\n", "yaml: map merge requires map or sequence of maps as the value", (1, 5)),
            ("z: .nan\nb: .inf\n", "json: unsupported value: +Inf", (2, 4)),
            ("a: \u{7}\n", "yaml: control characters are not allowed", (1, 4)),
            // go-yaml's plain scalar ends at a comment; the next line starts a token, which its
            // parser does not expect (saphyr refuses the line as the scalar's).
            ("a: b #c\n   d: e\n", "yaml: line 1: did not find expected key", (2, 4)),
            ("x: 1\ny:\n  a: b #c\n   d\n", "yaml: line 3: did not find expected key", (4, 4)),
            ("- a #c\n  b\n", "yaml: line 1: did not find expected '-' indicator", (2, 3)),
            ("a:\n- b #c\n  c: d\n", "yaml: line 2: did not find expected key", (3, 3)),
            // A plain scalar starting a line where its mapping wants a key, or ending (for
            // go-yaml) at a line no more indented than its mapping, where a sequence wants `-`.
            ("a:\n  b: c\n x #c\n  d: e\n", "yaml: line 2: did not find expected key", (3, 2)),
            ("a:\n  b: c\n   x\n y #c\n  d: e\n", "yaml: line 3: did not find expected key", (4, 2)),
            ("a:\n  - b: c\n   x #c\n    d: e\n", "yaml: line 2: did not find expected '-' indicator", (3, 4)),
            // An indentless sequence (`-` at its mapping's column) ends at any token but `-`,
            // after an entry; right after a `-` (on its line or lines before), the entry's node
            // is due.
            ("a:\n- {b: 1}]\n", "yaml: line 1: did not find expected key", (2, 9)),
            ("a:\n- 'b' c\n", "yaml: line 1: did not find expected key", (2, 7)),
            ("a:\n- ]\n", "yaml: line 1: did not find expected node content", (2, 3)),
            ("a:\n- # c\n  ]\n", "yaml: line 2: did not find expected node content", (3, 3)),
            // A flow collection left open across lines, a `-` starting a later line: go-yaml's
            // parser refuses the first token it does not expect, before the `-` or at it.
            ("a:\n- {k: b\n  c: {d: 1}\n- e\n", "yaml: line 2: did not find expected ',' or '}'", (3, 4)),
            ("a:\n  - [k, b,\n    [c]\n  - e\n", "yaml: line 3: did not find expected ',' or ']'", (4, 1)),
            // A quoted document node made a simple key by a `:` later on its line.
            ("\"a\" x: 1\n", "yaml: did not find expected key", (1, 5)),
            ("a: 1\n---\n'a'   x:\n", "yaml: did not find expected key", (3, 7)),
            // After it, no simple key is allowed: a `-` or `?` is the scanner's error.
            ("'a' - c\n", "yaml: block sequence entries are not allowed in this context", (1, 5)),
            ("'a\nb' ? c\n", "yaml: line 2: mapping keys are not allowed in this context", (2, 4)),
            // A quoted key after the first key of a mapping that starts after a `-`.
            ("a:\n- b: 1\n  \"c: 2\n  d: \"x\"\n", "yaml: line 4: could not find expected ':'", (4, 7)),
            ("a: 1\nb #c\n  c\n", "yaml: line 3: could not find expected ':'", (3, 3)),
            ("a:\n  x: 1\n  b #c\n    c: d\n", "yaml: line 4: could not find expected ':'", (4, 5)),
            // Without a final line break, go-yaml's text still ends with one (kubectl's
            // `LineReader` adds it): its end is the start of the line after the last.
            ("a: 1\nb: [1,", "yaml: line 2: did not find expected node content", (2, 7)),
            ("a: 1\nb: {c: d", "yaml: line 2: did not find expected ',' or '}'", (2, 9)),
            ("a: 1\nb: 'c", "yaml: line 3: found unexpected end of stream", (2, 6)),
            // Anchor names: go-yaml's scanner reads letters, digits, `_` and `-`.
            ("a: 1\nb: &x.y 1\n", "yaml: line 2: did not find expected alphabetic or numeric character", (2, 6)),
            ("a: 1\nb: &x: 1\n", "yaml: line 2: mapping values are not allowed in this context", (2, 6)),
            ("a: 1\nb: !!str &x@ 1\n", "yaml: line 2: found character that cannot start any token", (2, 12)),
            ("a: &x\n  b: *x\n", "yaml: anchor 'x' value contains itself", (2, 6)),
            // A bracket in a scalar of the line before opens nothing.
            ("x: \"[\"\nb: &a! y\n", "yaml: line 2: did not find expected alphabetic or numeric character", (2, 6)),
            // A quoted key on two lines: a value go-yaml refuses, or, at the mapping's column
            // (after a nested mapping too), a required key gone stale.
            ("a:\n  \"b\n  c\": 1\n", "yaml: line 3: mapping values are not allowed in this context", (3, 5)),
            ("a:\n  b:\n    c: 1\n  'd\n  e': 1\n", "yaml: line 5: could not find expected ':'", (5, 5)),
            // A key of a flow mapping on two lines: its `:` is where go-yaml wants `,` or `}`.
            ("a: {b: 1, c\n  d: 2}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 4)),
            ("a: {\"b\n c\"\n  : 2}\n", "yaml: line 2: did not find expected ',' or '}'", (3, 3)),
            ("a: {\"b\nc\": 2}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 3)),
            // A comment between them changes nothing.
            ("a: {b # c\n  : 2}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 3)),
            ("a: {x: 1, b #c\n\n # d\n : 2}\n", "yaml: line 3: did not find expected ',' or '}'", (4, 2)),
            // Whether such a key is explicit (`? a`) is read back past its properties: a no-break
            // space (two bytes) is text there (fuzz: decode; was a panic).
            ("a: {b: x\u{a0}y,\"c\n d\": 2}\n", "yaml: line 1: did not find expected ',' or '}'", (2, 4)),
            // In a flow collection, `:` where a token starts is a value indicator.
            ("a: 1\nb: [c, :d]\n", "yaml: line 1: did not find expected node content", (2, 8)),
            ("a: {b: :c}\n", "yaml: did not find expected node content", (1, 8)),
        ] {
            assert_refused(text, message, (line, col));
            // A lone `\r` ends a line as `\n` does, for go-yaml (kubectl 1.33 says the same of
            // each text so written) and for the places reported. Not a separator line:
            // kubectl's reader finds one after a `\n` only.
            if !text.contains("---") {
                assert_refused(&text.replace("\r\n", "\n").replace('\n', "\r"), message, (line, col));
            }
        }
        let e = parse("a: 1\n--- b\n").error.unwrap();
        assert_eq!(e.message, "invalid Yaml document separator: b");
        // kubectl's line reader gives go-yaml a line ending `\r\r\n` as `\r\n`: one break.
        for (text, line) in [
            ("a: 1\r\r\nb:\r\r\n  c: 1\r\r\n d: 2\r\r\n", "line 3: did not find expected key"),
            ("a: 1\r\r\r\nb: [1\r\r\r\nc: 2\r\r\r\n", "line 4: did not find expected ',' or ']'"),
            ("a: 1\r\r\n---\r\r\nb: 2\r\r\nc: [\r\r\n", "line 2: did not find expected node content"),
        ] {
            assert_eq!(parse(text).error.unwrap().message, format!("error converting YAML to JSON: yaml: {line}"));
        }
        // A byte order mark after `---` is text to kubectl's reader (Go's TrimSpace keeps it).
        let e = parse("a: 1\n---\u{feff}\nb: 2\n").error.unwrap();
        assert_eq!((e.mark.line, e.message.as_str()), (2, "invalid Yaml document separator: \u{feff}"));
        // What go-yaml reads and saphyr would not: a tab after a colon, and what follows `...`.
        assert_eq!(parse("a:\t1\n").documents[0].root().to_json(), serde_json::json!({"a": 1}));
        assert!(parse("a: 1\n...\nb: [\n").error.is_none());
    }

    /// A YAML 1.1 line break (U+0085, U+2028, U+2029; here one ending a comment's line) ends
    /// one of go-yaml's lines and none of the file's: go-yaml's words name its line (kubectl
    /// 1.33's words for each text), the place reported is the file's.
    #[test]
    fn yaml_1_1_line_breaks_count_in_go_yamls_lines() {
        for (text, message, (line, col)) in [
            ("# a\u{2028}\nb: 1\n: 2\n", "yaml: line 3: did not find expected key", (3, 1)),
            (
                "# a\u{2028}\nspec:\n  maxReplicas: 3\n  {{- if x }}\n  minReplicas: 1\n",
                "yaml: line 6: could not find expected ':'",
                (5, 3),
            ),
            ("# a\u{2028}\na:\n  b:\n    c: 1\n  'd\n  e': 1\n", "yaml: line 7: could not find expected ':'", (6, 5)),
            ("# a\u{85}\n%TAG !e!\n---\na: 1\n", "yaml: line 3: did not find expected whitespace", (2, 9)),
            ("# a\u{2029}\n%YAML 1.2\n---\na: 1\n", "yaml: line 2: found incompatible YAML document", (2, 1)),
            ("# a\u{85}\nb: {c: !<> d}\n", "yaml: line 3: did not find expected tag URI", (2, 8)),
        ] {
            assert_refused(text, message, (line, col));
        }
    }

    /// `text` is refused in kubectl's words (`message`, after its prefix) at the 1-based line
    /// and column given.
    fn assert_refused(text: &str, message: &str, (line, col): (u32, u32)) {
        let e = parse(text).error.unwrap_or_else(|| panic!("{text:?} parses"));
        assert_eq!(e.message, format!("error converting YAML to JSON: {message}"), "{text:?}");
        assert_eq!((e.mark.line, e.mark.col + 1), (line, col), "{text:?}");
    }

    /// kubectl 1.33's words (`kubectl create --dry-run=client -f`) for these texts, which
    /// go-yaml's scanner and parser refuse where saphyr reads on, or read where saphyr stops.
    #[test]
    fn keys_tags_directives_and_merges_are_refused_where_go_yaml_refuses_them() {
        let long = "k".repeat(1025);
        for (text, message, (line, col)) in [
            // A pair of a flow sequence is a simple key too: on one line, under 1024 characters.
            (format!("b: 1\na: [{long}: v]\n"), "yaml: line 1: did not find expected ',' or ']'", (2, 1030)),
            (format!("b: 1\na: [x, {long}: v]\n"), "yaml: line 1: did not find expected ',' or ']'", (2, 1033)),
            // Directives: go-yaml reads each version number as a number, wants a comment or a
            // line break after the value (U+2028 is one), one `%YAML` and one `%TAG` per
            // handle, a handle `!...!`, and then a `---`, which kubectl cut off the piece.
            ("%YAML 1.01\n---\na: 1\n".into(), "yaml: line 1: did not find expected <document start>", (2, 1)),
            ("%YAML 1.1#c\n---\na: 1\n".into(), "yaml: line 1: did not find expected <document start>", (2, 1)),
            ("%YAML 1.1x\n---\na: 1\n".into(), "yaml: did not find expected comment or line break", (1, 10)),
            ("%YAML 1.1\u{2028}\n---\na: 1\n".into(), "yaml: line 2: did not find expected <document start>", (2, 1)),
            ("%YAML 1.1\u{2029}x\n---\na: 1\n".into(), "yaml: line 1: did not find expected <document start>", (1, 11)),
            ("%TAG !e! tag:x: y\n---\na: 1\n".into(), "yaml: did not find expected comment or line break", (1, 17)),
            ("%TAG !e! tag:x:{\n---\na: 1\n".into(), "yaml: did not find expected whitespace or line break", (1, 16)),
            ("%TAG !e tag:x:\n---\na: 1\n".into(), "yaml: did not find expected '!'", (1, 8)),
            ("%YAML 1.1\n%YAML 1.1\n---\na: 1\n".into(), "yaml: line 1: found duplicate %YAML directive", (2, 1)),
            // The line right after a directive allows no simple key: an indicator there is the
            // scanner's error; after a blank or comment line, the parser's.
            ("%YAML 1.1\n- a\n".into(), "yaml: line 2: block sequence entries are not allowed in this context", (2, 1)),
            ("%YAML 1.1 #c\n  ? a\n".into(), "yaml: line 2: mapping keys are not allowed in this context", (2, 3)),
            ("%TAG !e! x:\n: a\n".into(), "yaml: line 2: mapping values are not allowed in this context", (2, 1)),
            ("%YAML 1.1\n# c\n- a\n".into(), "yaml: line 2: did not find expected <document start>", (3, 1)),
            // Without a final line break: go-yaml's text still ends with one.
            ("%YAML 1.1".into(), "yaml: line 1: did not find expected <document start>", (1, 10)),
            ("%YAML 1.1\n# c".into(), "yaml: line 2: did not find expected <document start>", (2, 4)),
            // A lone `\r` ends a line for both: a directive may follow it.
            ("# c\r%YAML 1.123\n---\na: 1\n".into(), "yaml: line 2: found extremely long version number", (2, 12)),
            ("# c\r%YAML 1.1\r%YAML 1.1\n---\na: 1\n".into(), "yaml: line 2: found duplicate %YAML directive", (3, 1)),
            ("%TAG !e! x:\n%TAG !e! y:\n---\na: 1\n".into(), "yaml: line 1: found duplicate %TAG directive", (2, 1)),
            // A tag's URI ends at a character it cannot hold, where white space must follow.
            ("%TAG !e! %zz\n---\na: 1\n".into(), "yaml: did not find URI escaped octet", (1, 10)),
            ("%TAG !e! é\n---\na: 1\n".into(), "yaml: did not find expected tag URI", (1, 10)),
            ("a: 1\nb: !!str#c x\n".into(), "yaml: line 2: did not find expected whitespace or line break", (2, 9)),
            ("a: 1\nb: !<x#y> x\n".into(), "yaml: line 2: did not find the expected '>'", (2, 7)),
            ("a: 1\nb: !!#c x\n".into(), "yaml: line 2: did not find expected tag URI", (2, 6)),
            // A block key broken at U+2028 (text to saphyr, a line break to go-yaml) is on two
            // lines: refused at its `:`, as a required key gone stale at the indentation.
            ("a:\n  'b\u{2028}c': d\n".into(), "yaml: line 3: mapping values are not allowed in this context", (2, 8)),
            ("a: 1\n\"b\u{2029}c\": d\n".into(), "yaml: line 3: could not find expected ':'", (2, 6)),
            // An alias's name ends at a `:` glued to it; marks on its line are as written.
            ("a: &k x\n*k: b: c\n".into(), "yaml: line 2: mapping values are not allowed in this context", (2, 6)),
            ("a: &k x\n*k: b\nc: [\n".into(), "yaml: line 3: did not find expected node content", (4, 1)),
            // A `?` after a node of a flow collection ends a plain scalar and is a key
            // indicator where go-yaml's parser wants the next entry.
            ("a: 1\nb: [http://x/?a=b]\n".into(), "yaml: line 1: did not find expected ',' or ']'", (2, 14)),
            ("a: 1\nb: {c: why?}\n".into(), "yaml: line 1: did not find expected ',' or '}'", (2, 11)),
            ("a: 1\nb: [x,\n  \"y\" ?]\n".into(), "yaml: line 2: did not find expected ',' or ']'", (3, 7)),
            // An empty explicit key is null, which go-yaml reads and sigs.k8s.io/yaml refuses.
            (
                "a:\n  ? # none\n  : x\n".into(),
                "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\"",
                (3, 3),
            ),
            ("a: {? : 1}\n".into(), "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1", (1, 7)),
            // In a flow collection, such a key's `:` is where go-yaml's parser wants an entry.
            ("a: {'b\u{2028}c': d}\n".into(), "yaml: line 1: did not find expected ',' or '}'", (1, 10)),
            // go-yaml counts the lines saphyr does not in a quoted scalar (U+2028 is kept).
            ("a: \"b\u{2028}c\"\nd: [\n".into(), "yaml: line 3: did not find expected node content", (3, 1)),
            // A flow collection or quoted scalar that starts a line where go-yaml's parser
            // wants a key or `-` (left of its block, or where no value is due), even where
            // saphyr reads it as a value and stops later.
            ("spec:\n  a: 2\n [ b: 10\n  c:\n  - d\n".into(), "yaml: line 2: did not find expected key", (3, 2)),
            ("a:\n  b: 1\n {c: d,\n  e: f}\n".into(), "yaml: line 2: did not find expected key", (3, 2)),
            ("-   a: 1\n  [c,\n  d]\n- e\n".into(), "yaml: line 1: did not find expected '-' indicator", (2, 3)),
            ("x:\n-   a: 1\n  [c,\n  d]\n- e\n".into(), "yaml: line 2: did not find expected key", (3, 3)),
            // A merge key takes an alias of a mapping, not of a list (of mappings or not).
            (
                "a: &x [{b: c}]\nd:\n  <<: *x\n".into(),
                "yaml: map merge requires map or sequence of maps as the value",
                (3, 3),
            ),
            (
                "a: &x [{b: c}]\nd: {<<: *x}\n".into(),
                "yaml: map merge requires map or sequence of maps as the value",
                (2, 5),
            ),
        ] {
            let e = parse(&text).error.unwrap_or_else(|| panic!("{text:?} parses"));
            assert_eq!(e.message, format!("error converting YAML to JSON: {message}"), "{text:?}");
            assert_eq!((e.mark.line, e.mark.col + 1), (line, col), "{text:?}");
        }
        let json = |text: &str| {
            let p = parse(text);
            assert_eq!(p.error, None, "{text:?}");
            p.documents.iter().map(|d| d.root().to_json()).collect::<Vec<_>>()
        };
        // An explicit key (`? k`) may end lines before its `:`, in a mapping or a pair.
        assert_eq!(
            json("a: {? b\n  : c}\nd: [? e\n  : f]\n"),
            [serde_json::json!({"a": {"b": "c"}, "d": [{"e": "f"}]})]
        );
        // An alias glued to the `:` after it, as a key, in block and flow mappings and pairs.
        assert_eq!(
            json("a: &k x\n*k: b\nc: {*k: d}\ne: [*k: f]\ng:\n  *k:\n"),
            [serde_json::json!({"a": "x", "x": "b", "c": {"x": "d"}, "e": [{"x": "f"}], "g": {"x": null}})]
        );
        // In a flow collection, a `?` glued to what follows is the key indicator.
        assert_eq!(json("a: {?b: 1}\nc: [?d]\n"), [serde_json::json!({"a": {"b": 1}, "c": [{"d": null}]})]);
        // 1024 characters is not too far.
        let key = "k".repeat(1024);
        assert_eq!(json(&format!("a: [{key}: v]\n")), [serde_json::json!({"a": [{key.as_str(): "v"}]})]);
        // The merge of an alias of a mapping, and of a list of aliases of mappings.
        assert_eq!(json("a: &x {b: c}\nd:\n  <<: [*x]\n  <<: *x\n")[0]["d"], serde_json::json!({"b": "c"}));
        // JSON is `encoding/json`'s: no simple key limit, and any character but those below
        // U+0020 in a string (DEL, C1 controls, U+FFFE, which go-yaml refuses).
        let long_key = format!("{{\"{}\": 1}}\n", "k".repeat(2000));
        assert_eq!(json(&long_key)[0].as_object().map(|o| o.len()), Some(1));
        assert_eq!(json("{\"a\": \"x\u{7f}\u{9f}\u{fffe}\"}\n"), [serde_json::json!({"a": "x\u{7f}\u{9f}\u{fffe}"})]);
    }

    #[test]
    fn json_is_read_as_a_stream_of_values() {
        let p = parse("{\"a\": 1}\n  {\"b\": [2]}\n");
        assert_eq!(p.documents.len(), 2);
        let b = p.documents[1].root().get("b").unwrap();
        assert_eq!((b.span().start.line, b.span().start.col), (2, 8));
        for (text, message) in [
            // Fewer than 4 bytes after the object: kubectl does not try YAML.
            ("{\"a\": 1} x", "json: offset 10: invalid character 'x' looking for beginning of value"),
            ("{\"a\": ", "unexpected EOF"),
        ] {
            assert_eq!(parse(text).error.unwrap().message, message, "{text}");
        }
    }

    /// go-yaml reads `\'` in a double-quoted scalar as `'` (`yaml_parser_scan_flow_scalar`),
    /// an escape YAML and saphyr do not have: in keys, values, flow collections and folded
    /// lines alike, beside the escapes saphyr is given for it, and as text elsewhere; kubectl
    /// 1.33 reads each of these so.
    #[test]
    fn an_escaped_apostrophe_is_an_apostrophe() {
        let json = |text: &str| {
            let parsed = parse(text);
            assert_eq!(parsed.error, None, "{text}");
            parsed.documents[0].root().to_json()
        };
        assert_eq!(json("a: \"x\\'y\"\n"), serde_json::json!({"a": "x'y"}));
        assert_eq!(
            json("\"k\\'\": {b: \"\\'\", c: [\"\\'\\_\"]}\n"),
            serde_json::json!({"k'": {"b": "'", "c": ["'\u{a0}"]}})
        );
        assert_eq!(
            json("a: \"x\\'\n  y \\'\n\n  z\"\r\nb: \"\\_\\N\\L\\P\\x1b\\'\"\n"),
            serde_json::json!({"a": "x' y '\nz", "b": "\u{a0}\u{85}\u{2028}\u{2029}\u{1b}'"})
        );
        assert_eq!(json("a: x\\'y\nb: 'x\\'\n"), serde_json::json!({"a": "x\\'y", "b": "x\\"}));
    }

    #[test]
    fn yaml_1_1_line_breaks_fold_as_go_yamls_do() {
        // kubectl 1.33's values (`create --dry-run=client`): go-yaml breaks lines at U+2028 and
        // U+2029 and keeps them in the value, never folded; a `\` before one joins the lines;
        // kubectl's line reader ends the last line with a `\n`, after a U+0085 too.
        let cases = [
            ("a: 'x\u{2028}\n  y'\n", "x\u{2028}\ny"),
            ("a: \"x \u{2028} y\"\n", "x\u{2028}y"),
            ("a: \"x\\\u{2028}y\"\n", "xy"),
            ("a: \"x\\\n  \u{2028}y\"\n", "x\u{2028}y"),
            ("a: 'x \n\u{2028}  y'\n", "x\u{2028}y"),
            ("a: b\u{2028}  c\n", "b\u{2028}c"),
            ("a: |\n  x\u{2028}\n  y\n", "x\u{2028}\ny\n"),
            ("a: >\n  x\u{2028}\u{2028}\n  y\n", "x\u{2028}\u{2028}\ny\n"),
            ("a: >\n  x\n\n  y\u{2029}\n", "x\ny\u{2029}"),
            ("a: >+\n  x\u{85}", "x\n\n"),
            ("a: |+\n  x\u{2028}", "x\u{2028}\n"),
        ];
        for (text, value) in cases {
            let parsed = parse(text);
            assert_eq!(parsed.error, None, "{text:?}");
            assert_eq!(parsed.documents[0].root().to_json(), serde_json::json!({"a": value}), "{text:?}");
        }
        let parsed = parse("a: {b: x\u{2028}y}\nc: [x\u{2029}\n  y, z]\n");
        let json = serde_json::json!({"a": {"b": "x\u{2028}y"}, "c": ["x\u{2029}\ny", "z"]});
        assert_eq!(parsed.documents[0].root().to_json(), json);
    }

    /// Which documents are read as JSON ([`Document::json`]): the values of a JSON stream, one
    /// whose `{` is within the first 4096 bytes (`GuessJSONStream`), not the YAML after them.
    #[test]
    fn documents_say_whether_they_were_read_as_json() {
        let json = |text: &str| parse(text).documents.iter().map(|d| d.json).collect::<Vec<_>>();
        assert_eq!(json("{\"a\": 1}\n{\"b\": 2}\n"), [true, true]);
        assert_eq!(json("\u{feff} {\"a\": 1}"), [true]);
        assert_eq!(json("{\"a\": 1}\n---\n{b: 2}\n---\nc: 3\n"), [true, false, false]);
        assert_eq!(json("a: 1\n---\n{\"b\": 2}\n"), [false, false]);
        // The `{` at byte 4095 is looked at; at byte 4096 it is not, and the text is YAML.
        assert_eq!(json(&format!("{}{{\"a\": 1}}", " ".repeat(4095))), [true]);
        assert_eq!(json(&format!("{}{{\"a\": 1}}", " ".repeat(4096))), [false]);
    }

    /// What kubectl (1.33 and later: `YAMLOrJSONDecoder`) reads of a text that starts with a
    /// JSON object and goes on with something else, shape by shape ([`kubectl::JsonStream`];
    /// tests/tests/malformed.rs compares the same shapes with kubectl itself).
    #[test]
    fn byte_order_marks_of_json_read_as_yaml_are_text() {
        // kubectl 1.33: JSON refuses the mark between two members, and the text read again as
        // YAML has it in a plain key; after a JSON value, a YAML document has one in a value.
        let p = parse("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\u{feff}\"metadata\": {\"name\": \"web\"}}\n");
        assert_eq!(p.error, None);
        let json =
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "\u{feff}\"metadata\"": {"name": "web"}});
        assert_eq!(p.documents[0].root().to_json(), json);
        let p = parse("{\"a\": 1}\n---\nb: x\u{feff}\n");
        assert_eq!(p.error, None);
        let docs: Vec<_> = p.documents.iter().map(|d| d.root().to_json()).collect();
        assert_eq!(docs, [serde_json::json!({"a": 1}), serde_json::json!({"b": "x\u{feff}"})]);
    }

    #[test]
    fn json_then_more_is_read_as_kubectl_reads_it() {
        const A: &str = r#"{"kind": "A", "n": 1}"#;
        const B: &str = r#"{"kind": "B", "n": 2}"#;
        let read = |text: &str| {
            let p = parse(text);
            let objects: Vec<Value> = p.documents.iter().map(|d| d.root().to_json()).collect();
            let error = p.error.map(|e| (e.mark.line, e.mark.col, e.message));
            (objects, error)
        };
        let (a, b) = (serde_json::json!({"kind": "A", "n": 1}), serde_json::json!({"kind": "B", "n": 2}));
        let y = serde_json::json!({"kind": "Z"});
        // Go's scanner stops at the second `-` of `---`.
        let dash = |line| Some((line, 1, "json: offset 24: invalid character '-' in numeric literal".to_string()));
        // JSON values one after the other, with or without white space between them.
        assert_eq!(read(&format!("{A}{B}")), (vec![a.clone(), b.clone()], None));
        assert_eq!(read(&format!("{A}\n{B}\n")), (vec![a.clone(), b.clone()], None));
        // A separator after one object: the rest is YAML, a JSON object included.
        assert_eq!(read(&format!("{A}\n---\nkind: Z\n")), (vec![a.clone(), y.clone()], None));
        assert_eq!(read(&format!("{A}\n---\n{B}\n")), (vec![a.clone(), b.clone()], None));
        assert_eq!(read(&format!("{A} ---\nkind: Z\n")), (vec![a.clone(), y.clone()], None));
        assert_eq!(read(&format!("{A}\nkind: Z\n")), (vec![a.clone(), y.clone()], None));
        assert_eq!(read(&format!("{A}\n\n\n---\nkind: Z\n")), (vec![a.clone(), y.clone()], None));
        assert_eq!(read(&format!("{A}\n---\nkind: Z\n---\n{B}\n")), (vec![a.clone(), y.clone(), b.clone()], None));
        // A comment after the object is a YAML document of nothing.
        assert_eq!(read(&format!("{A}\n# the end\n")), (vec![a.clone()], None));
        // Where it is, as written.
        let p = parse(&format!("{A} ---\nkind: Z\n---\n{B}"));
        let starts: Vec<(u32, u32)> =
            p.documents.iter().map(|d| d.root().get("kind").unwrap().span().start).map(|m| (m.line, m.col)).collect();
        assert_eq!(starts, [(1, 9), (2, 6), (4, 9)]);
        let junk = parse(&format!("{A}  abcd")).documents[1].root().span();
        assert_eq!((junk.start.line, junk.start.col, junk.start.index, junk.end.col), (1, 23, 23, 27));
        // Junk after the object is YAML too (a string, here), with 4 bytes or more left.
        assert_eq!(read(&format!("{A}\nabc")), (vec![a.clone(), serde_json::json!("abc")], None));
        assert_eq!(read(&format!("{A} trailing junk\n")), (vec![a.clone(), serde_json::json!("trailing junk")], None));
        let junk =
            |c: char| Some((1, 22, format!("json: offset 23: invalid character '{c}' looking for beginning of value")));
        assert_eq!(read(&format!("{A} xyz")), (vec![a.clone()], junk('x')));
        let brace = "json: offset 22: invalid character '}' looking for beginning of value";
        assert_eq!(read(&format!("{A}}}\n")), (vec![a.clone()], Some((1, 21, brace.to_string()))));
        // The first YAML document does not read: kubectl says what JSON said.
        assert_eq!(read(&format!("{A}\n---\n[bad\n")), (vec![a.clone()], dash(2)));
        assert_eq!(read(&format!("{A}\n---junk\nkind: Z\n")), (vec![a.clone()], dash(2)));
        assert_eq!(read(&format!("{A}\n---\nkind: Z\n--- junk\n")), (vec![a.clone()], dash(2)));
        // YAML refuses escaped surrogates, which JSON reads.
        assert_eq!(read(&format!("{A}\n---\n{{\"kind\": \"\\ud83d\\ude00\"}}\n")), (vec![a.clone()], dash(2)));
        // Past the first YAML document, YAML's errors are kubectl's.
        let bad =
            Some((6, 0, "error converting YAML to JSON: yaml: line 1: did not find expected node content".into()));
        assert_eq!(read(&format!("{A}\n---\nkind: Z\n---\nbad: [\n")), (vec![a.clone(), y.clone()], bad));
        let separator = Some((6, 0, "invalid Yaml document separator: junk".to_string()));
        assert_eq!(
            read(&format!("{A}\n---\nkind: Z\n---\nkind: Z\n--- junk\n")),
            (vec![a.clone(), y.clone()], separator)
        );
        // ... unless it ends the first YAML document.
        let k = Some((2, 0, "json: offset 23: invalid character 'k' looking for beginning of value".to_string()));
        assert_eq!(read(&format!("{A}\nkind: Z\n--- junk\n")), (vec![a.clone()], k));
        // Two values or more make a JSON stream: its error ends it, without an offset.
        let stream = Some((3, 1, "invalid character '-' in numeric literal".to_string()));
        assert_eq!(read(&format!("{A}\n{B}\n---\nkind: Z\n")), (vec![a.clone(), b.clone()], stream));
        // A value JSON refuses (a trailing comma) reads as YAML, and so does what follows.
        let comma = r#"{"kind": "A", "n": 1,}"#;
        assert_eq!(read(&format!("{comma}\n---\nkind: Z\n")), (vec![a.clone(), y.clone()], None));
        // A JSON List, then YAML.
        let list = format!("{{\"kind\": \"List\", \"items\": [{B}]}}\n---\nkind: Z\n");
        assert_eq!(read(&list).0.len(), 2);
        // White space before `{` (and a byte order mark) still make JSON; a comment makes YAML,
        // where the first document of a piece is all go-yaml reads.
        assert_eq!(read(&format!(" \n\t{A}\n{B}")), (vec![a.clone(), b.clone()], None));
        assert_eq!(read(&format!("\u{feff}{A}\n{B}")), (vec![a.clone(), b.clone()], None));
        assert_eq!(read(&format!("# c\n{A}\n")), (vec![a.clone()], None));
        // A JSON array is YAML's: one document, a list.
        assert_eq!(read(&format!("[{A}, {B}]")), (vec![serde_json::json!([a, b])], None));
    }

    /// Every prefix of a text that mixes JSON, YAML, junk and separators reads without a panic,
    /// with every node inside the text.
    #[test]
    fn every_prefix_of_json_then_more_reads() {
        let text = "\u{feff} {\"a\": [1, \"\\ud83d\\ude00\"]}\r\n{\"b\": 2} \u{a0}\n---\nc: é\n--- # x\n{\"d\": ,}\n--- junk\n";
        for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let prefix = &text[..end];
            let chars = u32::try_from(prefix.chars().count()).unwrap();
            for d in parse(prefix).documents {
                let span = d.root().span();
                assert!(span.start.index <= span.end.index && span.end.index <= chars, "{prefix:?}");
            }
        }
    }

    /// kubectl reads a JSON manifest with `encoding/json`: an escaped UTF-16 surrogate pair is
    /// its character and a lone surrogate U+FFFD, where YAML refuses both. Every node is where
    /// it is in the file.
    #[test]
    fn json_reads_escaped_surrogates_as_encoding_json_does() {
        let json = "{\"a\": \"\\ud83d\\ude00 \\ud800\", \"b\\ud83d\\ude80\": [1, \"\\udc00\"],\r\n \"c\": {\"d\": \"\\ud83d\\ude00\\ud83d\\ude00\", \"e\": 2}}\n{\"f\": \"\\ud83d\\ude00\", \"g\": 3}";
        let p = parse(json);
        assert_eq!(p.error, None);
        let values: Vec<Value> = p.documents.iter().map(|d| d.root().to_json()).collect();
        assert_eq!(
            values,
            [
                serde_json::json!({"a": "\u{1f600} \u{fffd}", "b\u{1f680}": [1, "\u{fffd}"], "c": {"d": "\u{1f600}\u{1f600}", "e": 2}}),
                serde_json::json!({"f": "\u{1f600}", "g": 3})
            ]
        );
        // The same text with every escape replaced by as many other characters.
        let plain = json.replace("\\ud83d\\ude00", "abcdefghijkl").replace("\\ud83d\\ude80", "abcdefghijkl");
        let plain = plain.replace("\\ud800", "abcdef").replace("\\udc00", "abcdef");
        let q = parse(&plain);
        fn spans(node: Node<'_>, out: &mut Vec<Span>) {
            out.push(node.span());
            match node.kind() {
                NodeKind::Scalar(_) => {}
                NodeKind::Seq(items) => items.for_each(|n| spans(n, out)),
                NodeKind::Map(entries) => entries.for_each(|e| {
                    spans(e.key, out);
                    spans(e.value, out);
                }),
            }
        }
        let all = |p: &Parsed| {
            let mut out = Vec::new();
            p.documents.iter().for_each(|d| spans(d.root(), &mut out));
            out
        };
        assert_eq!(all(&p), all(&q));
        assert_eq!(all(&p).len(), 18);
        // YAML refuses them, as go-yaml does (tests/data/malformed compares with kubectl).
        let e = parse("a: \"\\ud83d\\ude00\"\n").error.unwrap();
        assert_eq!(e.message, "error converting YAML to JSON: yaml: found invalid Unicode character escape code");
    }

    /// Reading a text as one stream is a shortcut: on every text of the test data it gives
    /// exactly what reading it piece by piece (as kubectl does) gives.
    #[test]
    fn one_stream_reads_as_the_pieces_do() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
        let mut files = vec![data.clone()];
        let mut checked = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let stream = build_with(&text, Limits::default(), None, true).0;
            let pieces = build_with(&text, Limits::default(), None, false).0;
            assert_eq!(stream, pieces, "{}", path.display());
            checked += 1;
        }
        assert!(checked > 250, "{checked}");
        for text in [
            "a: 1\n---\n---\nb: [\n",
            "a: 1\n---\nb: 'x\n---\nc: 1\n",
            "---\n# c\n---\na: 1\n---\n",
            "# c\n---\na: 1\n---\n---\nb: {\n",
            "---\n---\na: 1\n",
            "a: 1\n---\n# c\n---\nb: x\n---\nc: .nan\n",
        ] {
            let stream = build_with(text, Limits::default(), None, true).0;
            assert_eq!(stream, build_with(text, Limits::default(), None, false).0, "{text:?}");
        }
    }

    #[test]
    fn syntax_errors_keep_earlier_documents() {
        let p = parse("a: 1\n---\nb: [\n");
        assert_eq!(p.documents.len(), 1);
        let e = p.error.unwrap();
        assert_eq!(e.document, 1);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
        let p = parse(&text);
        let e = p.error.unwrap();
        assert_eq!(e.message, "invalid YAML: flow collections ([...] or {...}) nested deeper than 255 levels");
    }

    #[test]
    fn marks_stay_within_a_text_without_a_final_line_break() {
        for (text, end) in [
            ("a: 1", Mark { index: 4, line: 1, col: 4 }),
            ("a:\r\n  b: é", Mark { index: 10, line: 2, col: 6 }),
            ("a: 1\rb: 2", Mark { index: 9, line: 2, col: 4 }),
            ("a: 1\n", Mark { index: 5, line: 2, col: 0 }),
        ] {
            let p = parse(text);
            assert_eq!(p.documents[0].root().span().end, end, "{text:?}");
        }
        let e = parse("a: [1,").error.unwrap();
        assert_eq!((e.mark.line, e.mark.col), (1, 6));
    }

    #[test]
    fn byte_offsets_for_non_ascii() {
        // Lines end where the marks' lines end: at a lone `\r` too.
        for text in ["# é\nname: ü\n", "# é\rname: ü\r", "# é\r\nname: ü\r\n", "# é\r\rname: ü\r"] {
            let idx = LineIndex::new(text);
            let p = parse(text);
            let n = p.documents[0].root().get("name").unwrap();
            let r = idx.range(text, n.span());
            assert_eq!(&text[r], "ü", "{text:?}");
        }
    }

    #[test]
    fn paths_parse() {
        assert_eq!(
            parse_path("metadata.annotations[a.b/c].x[2]"),
            vec![
                PathStep::Field("metadata".into()),
                PathStep::Field("annotations".into()),
                PathStep::Key("a.b/c".into()),
                PathStep::Field("x".into()),
                PathStep::Index(2)
            ]
        );
    }

    #[test]
    fn a_thread_reuses_its_buffers_and_nothing_else() {
        let pruned = "a: &x [1, {b: c}]\nkind: Secret\nd: *x\ne: {f: g}\n";
        let next = "k: v\nl: [1, 2]\n";
        let fresh = std::thread::spawn(move || parse(next)).join().unwrap();
        let keep = |_: &str| Some(&Keep::FIRST_ENTRY);
        let _ = parse_pruned(pruned, &keep);
        let _ = parse("broken: [\n");
        assert_eq!(parse(next), fresh);
        // A large file's buffers are let go.
        let big: String = (0..50_000).map(|i| format!("k{i}: v{i}\n")).collect();
        assert_eq!(parse(&big).documents.len(), 1);
        let scratch = Scratch::take();
        assert!(scratch.nodes.capacity() * std::mem::size_of::<Slot>() <= Scratch::KEEP);
        assert!(scratch.text.capacity() <= Scratch::KEEP);
    }
}
