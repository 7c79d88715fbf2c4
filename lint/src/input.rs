//! Finding, reading and parsing input files: paths, directories (recursively, honoring
//! `.gitignore`), `-` for standard input; multi-document YAML, JSON, and `kind: List`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use hpa_core::api::GroupVersion;
use rayon::prelude::*;
use serde_json::Value;

use crate::source::{self, Document, LineIndex, Node, NodeKind, Parsed, Scalar};

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file on disk.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
}

/// A problem reaching an input (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum InputError {
    /// A path that does not exist (a typo, or run from another directory).
    #[error("{path}: no such file or directory")]
    #[diagnostic(help(
        "check the path (relative paths start at the working directory); give files or directories of YAML or JSON \
         manifests, or `-` for standard input"
    ))]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// Cannot be read, ...
    #[error("{path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// What the OS said.
        message: String,
    },
    /// A bug: checking the input panicked (the other inputs are still checked).
    #[error(
        "{path}: internal error while checking this file: {message} (a bug in hpa-lint: please report it, with the file if you can)"
    )]
    Internal {
        /// The input's name.
        path: String,
        /// The panic's message.
        message: String,
    },
    /// A bad `--exclude` pattern.
    #[error("invalid --exclude pattern {pattern:?}: {message}")]
    Exclude {
        /// The pattern.
        pattern: String,
        /// Why.
        message: String,
    },
}

/// Runs `f`, turning a panic (a bug) into an error about input `name`: a bug met in one
/// file must not lose the other files' results.
pub fn contained<T>(name: &str, f: impl FnOnce() -> T) -> Result<T, InputError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let message = match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
            (Some(s), _) => (*s).to_string(),
            (_, Some(s)) => s.clone(),
            _ => "panic".to_string(),
        };
        InputError::Internal { path: name.to_string(), message }
    })
}

/// The name standard input is shown as.
pub const STDIN_NAME: &str = "<stdin>";

/// One input file, read and parsed.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown to users (the path as found, or `<stdin>`).
    pub name: String,
    /// The text (empty when unreadable).
    pub text: String,
    /// Byte offsets of lines.
    lines: std::sync::OnceLock<LineIndex>,
    /// The documents.
    pub parsed: Parsed,
    /// A content problem that kept the file from being parsed (binary content).
    pub unreadable: Option<String>,
}

impl SourceFile {
    /// Parses text given directly (tests, stdin).
    pub fn from_text(name: impl Into<String>, text: String) -> SourceFile {
        let parsed = source::parse(&text);
        SourceFile { name: name.into(), lines: std::sync::OnceLock::new(), text, parsed, unreadable: None }
    }

    /// The line index of the text (built on first use: only files with something to show
    /// need it).
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// A 1-based line and column for a mark, for messages ([`line_col`]).
    pub fn line_col(&self, mark: source::Mark) -> (u32, u32) {
        line_col(mark)
    }
}

/// A 1-based line and column for a mark, for messages.
pub fn line_col(mark: source::Mark) -> (u32, u32) {
    (mark.line.max(1), mark.col + 1)
}

/// What [`discover`] found: the inputs, the paths it could not reach, and notes about what it
/// skipped (one per directory given that holds no file to read, one per Helm chart whose
/// templates it left out).
pub type Discovered = (Vec<Origin>, Vec<InputError>, Vec<String>);

/// Expands the given paths into input files, in a deterministic order.
///
/// A directory walk leaves out the `templates/` of every Helm chart it meets (a directory with a
/// `Chart.yaml`): they are Go templates, not manifests (`{{ ... }}` is no YAML, or YAML that is
/// not what the cluster gets), and linting them gives errors about nothing that exists. A
/// template named on the command line (pre-commit names every staged file) is left out too. A
/// note per chart says so and how to lint it: its rendered output. A `templates` directory
/// outside a chart (kustomize, plain manifests) is read.
pub fn discover(paths: &[String], excludes: &[String]) -> Discovered {
    let mut errors = Vec::new();
    let exclude = match build_excludes(excludes) {
        Ok(set) => set,
        Err(e) => return (Vec::new(), vec![e], Vec::new()),
    };
    let mut out = Vec::new();
    // The charts whose templates were left out.
    let mut charts: Vec<PathBuf> = Vec::new();
    let mut stdin_seen = false;
    // The directories given that hold no file to read.
    let mut empty_dirs: Vec<String> = Vec::new();
    // A file is read once however often it is named (`a.yaml ./a.yaml`, or a file and its
    // directory): by its canonical path, as the OS resolves it.
    let mut seen_files = std::collections::HashSet::new();
    let mut first_time =
        |path: &Path| seen_files.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()));
    for p in paths {
        if p == "-" {
            if !stdin_seen {
                out.push(Origin::Stdin);
                stdin_seen = true;
            }
            continue;
        }
        let path = Path::new(p);
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => errors.push(InputError::NotFound { path: p.clone() }),
            Err(e) => errors.push(InputError::Io { path: p.clone(), message: e.to_string() }),
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                let skipped = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
                let skipping = std::sync::Arc::clone(&skipped);
                let walker = ignore::WalkBuilder::new(path)
                    .require_git(false)
                    .sort_by_file_name(std::cmp::Ord::cmp)
                    .filter_entry(move |e| {
                        let chart = helm_templates_of(e.path(), e.file_type().is_some_and(|t| t.is_dir()));
                        if let Some(chart) = chart {
                            skipping
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .push(chart.to_path_buf());
                        }
                        chart.is_none()
                    })
                    .build();
                for entry in walker {
                    match entry {
                        Ok(e) => {
                            let ep = e.path();
                            if e.file_type().is_some_and(|t| t.is_file()) && is_manifest(ep) && !exclude.is_match(ep) {
                                found.push(ep.to_path_buf());
                            }
                        }
                        Err(e) => errors.push(InputError::Io { path: p.clone(), message: e.to_string() }),
                    }
                }
                let skipped = std::mem::take(&mut *skipped.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
                if found.is_empty() && skipped.is_empty() {
                    empty_dirs.push(p.clone());
                }
                out.extend(found.into_iter().filter(|f| first_time(f)).map(Origin::File));
                charts.extend(skipped.into_iter().filter(|chart| !exclude.is_match(chart.join("templates"))));
            }
            Ok(_) => match path.ancestors().skip(1).find_map(|a| helm_templates_of(a, true)) {
                _ if exclude.is_match(path) => {}
                Some(chart) => charts.push(chart.to_path_buf()),
                None if first_time(path) => out.push(Origin::File(path.to_path_buf())),
                None => {}
            },
        }
    }
    // One note per chart, however many of its templates were given (pre-commit names each).
    let mut seen = std::collections::BTreeSet::new();
    let empty = empty_dirs.into_iter().map(|dir| {
        format!(
            "{dir}: no *.yaml, *.yml or *.json file here (after .gitignore and --exclude): nothing to read; give the \
             directory that holds your manifests"
        )
    });
    let notes = empty
        .chain(charts.into_iter().filter(|chart| seen.insert(chart.clone())).map(|chart| {
            let chart = chart.display();
            format!(
                "{chart}/templates: skipped: Helm chart templates are not manifests; lint the rendered output: helm \
                 template {chart} | hpa-lint -"
            )
        }))
        .collect();
    (out, errors, notes)
}

/// The chart whose templates `path` is: a directory `templates` beside a `Chart.yaml` (Helm's
/// `chartutil.IsChartDir` tells a chart by that file).
fn helm_templates_of(path: &Path, is_dir: bool) -> Option<&Path> {
    let chart = path.parent()?;
    (is_dir && path.file_name()? == "templates" && chart.join("Chart.yaml").is_file()).then_some(chart)
}

fn is_manifest(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))
}

fn build_excludes(patterns: &[String]) -> Result<GlobSet, InputError> {
    let mut b = GlobSetBuilder::new();
    for pat in patterns {
        let glob = Glob::new(pat).map_err(|e| InputError::Exclude { pattern: pat.clone(), message: e.to_string() })?;
        b.add(glob);
        // A pattern without a slash also matches anywhere below a directory.
        if !pat.contains('/')
            && let Ok(g) = Glob::new(&format!("**/{pat}"))
        {
            b.add(g);
        }
    }
    b.build().map_err(|e| InputError::Exclude { pattern: patterns.join(","), message: e.to_string() })
}

/// Reads and parses every input in parallel; the order of the result is the order of `origins`.
/// Standard input is read from `out` first, once.
pub fn load(origins: &[Origin], out: &mut crate::Output<'_>) -> (Vec<SourceFile>, Vec<InputError>) {
    load_with(origins, out, true)
}

fn load_with(origins: &[Origin], out: &mut crate::Output<'_>, parse: bool) -> (Vec<SourceFile>, Vec<InputError>) {
    let stdin = if origins.contains(&Origin::Stdin) {
        match out.read_stdin() {
            Ok(b) => Some(b),
            Err(e) => return (Vec::new(), vec![InputError::Io { path: STDIN_NAME.into(), message: e.to_string() }]),
        }
    } else {
        None
    };
    let results: Vec<Result<SourceFile, InputError>> =
        origins.par_iter().map(|o| load_one(o, stdin.as_deref(), parse)).collect();
    let mut files = Vec::with_capacity(results.len());
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(e) => errors.push(e),
        }
    }
    (files, errors)
}

/// The name an input is shown as.
pub fn origin_name(origin: &Origin) -> String {
    match origin {
        Origin::Stdin => STDIN_NAME.to_string(),
        Origin::File(p) => p.display().to_string(),
    }
}

/// Reads one input without parsing it (`stdin`: standard input, already read).
pub fn read_unparsed(origin: &Origin, stdin: Option<&[u8]>) -> Result<SourceFile, InputError> {
    load_one(origin, stdin, false)
}

fn load_one(origin: &Origin, stdin: Option<&[u8]>, parse: bool) -> Result<SourceFile, InputError> {
    let (name, bytes) = match origin {
        Origin::Stdin => (STDIN_NAME.to_string(), stdin.unwrap_or_default().to_vec()),
        Origin::File(p) => {
            let name = p.display().to_string();
            let bytes = std::fs::read(p).map_err(|e| InputError::Io { path: name.clone(), message: e.to_string() })?;
            (name, bytes)
        }
    };
    let mut file = from_bytes_unparsed(name, bytes);
    if parse {
        file.parsed = source::parse(&file.text);
    }
    Ok(file)
}

/// Builds a source file from raw bytes, refusing binary content (a NUL byte in bytes that are
/// not UTF-8) with a reason; other bytes that are not UTF-8 are read as kubectl reads them
/// (`utf8_lossy`).
pub fn from_bytes(name: String, bytes: Vec<u8>) -> SourceFile {
    let mut file = from_bytes_unparsed(name, bytes);
    file.parsed = source::parse(&file.text);
    file
}

/// A text that starts with a UTF-16 byte order mark, as kubectl reads it: cli-runtime's file
/// visitors decode every file through `unicode.BOMOverride` (golang.org/x/text), which drops
/// the mark and decodes UTF-16LE or UTF-16BE after it, an invalid code unit (or a last odd
/// byte) as U+FFFD. `None` for a text without that mark.
fn utf16(bytes: &[u8]) -> Option<String> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
    });
    let mut text: String = char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect();
    if bytes.len() % 2 == 1 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    Some(text)
}

/// [`from_bytes`] without parsing.
fn from_bytes_unparsed(name: String, bytes: Vec<u8>) -> SourceFile {
    let refuse = |reason: String| SourceFile {
        name: name.clone(),
        text: String::new(),
        lines: std::sync::OnceLock::new(),
        parsed: Parsed::default(),
        unreadable: Some(reason),
    };
    let bytes = match utf16(&bytes) {
        Some(text) => text.into_bytes(),
        None => bytes,
    };
    // A NUL in UTF-8 text is go-yaml's to refuse, in its words (`control characters are not
    // allowed`, in the document that has it).
    if let Some(pos) = memchr::memchr(0, &bytes)
        && std::str::from_utf8(&bytes).is_err()
    {
        return refuse(format!("binary content (a NUL byte at offset {pos}); expected YAML or JSON text"));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => utf8_lossy(e.as_bytes()),
    };
    SourceFile { name, lines: std::sync::OnceLock::new(), text, parsed: Parsed::default(), unreadable: None }
}

/// Text that is not valid UTF-8 (Windows-1252 or Latin-1 bytes in a comment or a value), as
/// kubectl reads it: cli-runtime's file visitors (`FileVisitor.Visit`, for files and standard
/// input alike) decode every file through `unicode.BOMOverride(unicode.UTF8.NewDecoder())`
/// (golang.org/x/text), whose `utf8Decoder.Transform` replaces each maximal subpart of an
/// ill-formed sequence with one U+FFFD and goes on: the same replacement as
/// `String::from_utf8_lossy` (both follow Unicode's "substitution of maximal subparts").
fn utf8_lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One Kubernetes object of a file: a document, or an item of a `kind: List` document.
#[derive(Debug, Clone, Copy)]
pub struct ObjectRef<'a> {
    /// The file's index in the workspace.
    pub file: usize,
    /// 0-based document index in the file.
    pub document: usize,
    /// The item index when the object came from a `List`.
    pub item: Option<usize>,
    /// The object's node.
    pub node: Node<'a>,
    /// `apiVersion`, `kind`, `metadata.name` and `metadata.namespace` when they are strings,
    /// read once (each is asked for several times per object); an item's `apiVersion` and
    /// `kind` inherited from its list when it has neither ([`ObjectRef::inherited`]).
    identity: [Option<&'a str>; 4],
    /// How kubectl gives it its kind and version.
    typing: Typing,
}

/// How kubectl gives an object of a file its kind and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Typing {
    /// A document, decoded whole (`unstructuredJSONScheme.Decode`), or an item of a list
    /// without a `kind`, which kubectl refuses whole ([`is_kindless_list`]): its items are
    /// checked as written, and never typed.
    Written,
    /// An item of a list kubectl decodes, with its own `kind` or `apiVersion`: typed by
    /// [`untyped`] (cli-runtime's `FlattenListVisitor`).
    Item,
    /// An item of such a list with neither, which took the list's ([`ObjectRef::inherited`]).
    Inherited,
}

impl<'a> ObjectRef<'a> {
    /// The object at `node`, its identity read.
    pub fn new(file: usize, document: usize, item: Option<usize>, node: Node<'a>) -> Self {
        let [api_version, kind, metadata] = node.get_each(["apiVersion", "kind", "metadata"]);
        ObjectRef::of_fields(file, document, item, node, [api_version, kind, metadata])
    }

    /// Item `item` of a list: with `list`, the list's `apiVersion` and `kind` (when strings),
    /// an item kubectl types, and gives the list's identity when it has none of its own;
    /// without, an item of a list kubectl refuses whole, taken as written.
    ///
    /// Mirrors apimachinery's `unstructuredJSONScheme.decodeToList`
    /// (`pkg/apis/meta/v1/unstructured/helpers.go`): an item whose `GetKind()` and
    /// `GetAPIVersion()` are both empty (absent, empty, or not a string) gets `kind` = the
    /// list's kind less its `List` suffix (`strings.TrimSuffix`) and the list's `apiVersion`,
    /// as `kubectl get --raw` prints the items of a `HorizontalPodAutoscalerList`.
    fn of_item(file: usize, document: usize, item: usize, node: Node<'a>, list: Option<[Option<&'a str>; 2]>) -> Self {
        let mut obj = ObjectRef::new(file, document, Some(item), node);
        if let Some([api_version, kind]) = list {
            let empty = |s: Option<&str>| s.is_none_or(str::is_empty);
            obj.typing = if empty(obj.kind()) && empty(obj.api_version()) {
                let kind = kind.map(|k| k.strip_suffix("List").unwrap_or(k));
                obj.identity[0] = Some(api_version.unwrap_or_default());
                obj.identity[1] = Some(kind.unwrap_or_default());
                Typing::Inherited
            } else {
                Typing::Item
            };
        }
        obj
    }

    /// [`ObjectRef::new`] with its `apiVersion`, `kind` and `metadata` looked up already.
    fn of_fields(
        file: usize,
        document: usize,
        item: Option<usize>,
        node: Node<'a>,
        [api_version, kind, metadata]: [Option<Node<'a>>; 3],
    ) -> Self {
        let [name, namespace] = metadata.map_or([None; 2], |m| m.get_each(["name", "namespace"]));
        let identity = [api_version, kind, name, namespace].map(|n| n.and_then(Node::as_str));
        ObjectRef { file, document, item, node, identity, typing: Typing::Written }
    }

    /// `kind`, when it is a string.
    pub fn kind(&self) -> Option<&'a str> {
        self.identity[1]
    }

    /// `apiVersion`, when it is a string.
    pub fn api_version(&self) -> Option<&'a str> {
        self.identity[0]
    }

    /// `metadata.name`.
    pub fn name(&self) -> Option<&'a str> {
        self.identity[2]
    }

    /// `metadata.namespace`.
    pub fn namespace(&self) -> Option<&'a str> {
        self.identity[3]
    }

    /// `metadata.generateName`, when it is a string (read when asked: only an object without a
    /// name needs it).
    pub fn generate_name(&self) -> Option<&'a str> {
        self.node.get("metadata")?.get("generateName")?.as_str()
    }

    /// Whether it is meant to be a HorizontalPodAutoscaler.
    pub fn is_hpa(&self) -> bool {
        self.kind() == Some(hpa_core::api::KIND)
    }

    /// Whether it is an item of a list that took the list's `kind` and `apiVersion`, having
    /// neither (`decodeToList`): its `kind`, `apiVersion` and [`ObjectRef::to_json`] are
    /// the inherited ones, its node has none.
    pub fn inherited(&self) -> bool {
        self.typing == Typing::Inherited
    }

    /// The object as JSON, as kubectl reads it: an [`ObjectRef::inherited`] item with the
    /// `apiVersion` and `kind` it inherited (first, as `kubectl get -o json` shows them),
    /// unless kubectl cannot type it with them ([`untyped`]: an item of a `kind: List`
    /// inherits the kind `""`), which stays as written.
    pub fn to_json(&self) -> Value {
        let value = self.node.to_json();
        if !self.inherited() || untyped(self).is_some() {
            return value;
        }
        let identity = [("apiVersion", self.api_version()), ("kind", self.kind())];
        let mut object: serde_json::Map<String, Value> =
            identity.into_iter().map(|(k, v)| (k.to_string(), Value::from(v.unwrap_or_default()))).collect();
        if let Value::Object(fields) = value {
            object.extend(fields.into_iter().filter(|(k, _)| k != "apiVersion" && k != "kind"));
        }
        Value::Object(object)
    }
}

/// Whether a document is a list of objects without a `kind` (a hand-edited `kubectl get -o
/// yaml` output): kubectl refuses it ("Object 'Kind' is missing"), but its items are still
/// checked, since they are what the author meant to apply.
pub fn is_kindless_list(root: Node<'_>) -> bool {
    root.get("kind").is_none()
        && root
            .get("items")
            .and_then(Node::items)
            .is_some_and(|mut items| items.len() > 0 && items.all(|i| i.get("kind").is_some()))
}

/// Every object of a file, `List`s expanded.
pub fn objects(file_index: usize, file: &SourceFile) -> Vec<ObjectRef<'_>> {
    objects_in(file_index, &file.parsed)
}

/// Every object of parsed documents, `List`s expanded.
///
/// An item of a list with neither `kind` nor `apiVersion` takes the list's
/// ([`ObjectRef::inherited`]).
pub fn objects_in(file_index: usize, parsed: &Parsed) -> Vec<ObjectRef<'_>> {
    let mut out = Vec::new();
    for doc in &parsed.documents {
        // The root's fields, looked up in one pass over its entries.
        let [api_version, kind, metadata, items] = doc.root().get_each(["apiVersion", "kind", "metadata", "items"]);
        let whole = ObjectRef::of_fields(file_index, doc.index, None, doc.root(), [api_version, kind, metadata]);
        // `is_kindless_list`, whose `kind` lookup is done.
        let kindless = kind.is_none() && is_kindless_list(doc.root());
        // Any mapping with `items` and a kind is a list to kubectl, whatever the kind ([`stray_items`]).
        let is_list = items.is_some() && whole.kind().is_some_and(|k| !k.is_empty()) || kindless;
        match (is_list, items.map(|n| n.kind())) {
            (true, Some(NodeKind::Seq(items))) => {
                let list = (!kindless).then(|| [whole.api_version(), whole.kind()]);
                for (i, item) in items.enumerate() {
                    out.push(ObjectRef::of_item(file_index, doc.index, i, item, list));
                }
            }
            // `items: null`: a list of nothing.
            (true, Some(NodeKind::Scalar(Scalar::Null))) => {}
            // `items` that is no list: kubectl refuses the document ([`refusal`]); its fields are
            // still checked as an object's.
            _ => out.push(whole),
        }
    }
    out
}

/// The kind of a document [`objects_in`] reads as a list that holds no item (`items: []` or
/// `items: null` under a kind: an empty `MetricValueList` from `kubectl get --raw`), which gives
/// no object but says that an answer was gathered, and was empty.
pub fn empty_list_kind(root: Node<'_>) -> Option<&str> {
    let [kind, items] = root.get_each(["kind", "items"]);
    let kind = kind?.as_str().filter(|k| !k.is_empty())?;
    match items?.kind() {
        NodeKind::Seq(items) => (items.len() == 0).then_some(kind),
        NodeKind::Scalar(Scalar::Null) => Some(kind),
        _ => None,
    }
}

/// A document that kubectl reads as a list though its `kind` names none (a
/// `HorizontalPodAutoscaler` with a stray top-level `items`): kubectl applies the objects under
/// `items`, if any, and nothing else of the document, without a word ([`stray_items`]).
#[derive(Debug, Clone, Copy)]
pub struct StrayItems<'a> {
    /// The document's `kind`.
    pub kind: &'a str,
    /// Its `items` entry.
    pub items: source::Entry<'a>,
}

impl StrayItems<'_> {
    /// What happens to the document, in the linter's words (kubectl says nothing).
    pub fn message(&self) -> String {
        let objects =
            self.items.value.items().map_or(0, |i| i.filter(|i| matches!(i.kind(), NodeKind::Map(_))).count());
        let applied = match objects {
            0 => "it applies nothing of it (`items` holds no object)".to_string(),
            1 => "it applies the object under `items` and nothing else of it".to_string(),
            n => format!("it applies the {n} objects under `items` and nothing else of it"),
        };
        format!("a {} with a top-level `items` is a list to kubectl: {applied}", self.kind)
    }
}

/// The document `root` when kubectl reads it as a list though its `kind` names none
/// ([`StrayItems`]).
///
/// Mirrors apimachinery's `unstructuredJSONScheme.decode`
/// (`pkg/apis/meta/v1/unstructured/helpers.go`), which decodes every mapping with an `items`
/// field (even `items: null`) as an `UnstructuredList`, and `decodeToList`, which keeps its
/// items only. `items` that is neither a list nor null, or holds what is no object (a
/// scalar, a sequence), is kubectl's error, not this ([`refusal`]); a kind ending in `List`
/// (`List`, `HorizontalPodAutoscalerList`) means it.
pub fn stray_items(root: Node<'_>) -> Option<StrayItems<'_>> {
    let kind = root.get("kind").and_then(Node::as_str).filter(|k| !k.is_empty() && !k.ends_with("List"))?;
    let items = root.entry("items")?;
    let decodes = match items.value.kind() {
        NodeKind::Scalar(Scalar::Null) => true,
        NodeKind::Seq(mut list) => list.all(|i| json_type(i).is_none()),
        _ => false,
    };
    decodes.then_some(StrayItems { kind, items })
}

/// The node of the object [`objects_in`] lists at `document` and `item` (its
/// [`ObjectRef::document`] and [`ObjectRef::item`]), found without reading the others.
pub fn object_node(parsed: &Parsed, document: usize, item: Option<usize>) -> Option<Node<'_>> {
    let at = parsed.documents.binary_search_by_key(&document, |d| d.index).ok()?;
    let root = parsed.documents[at].root();
    match item {
        None => Some(root),
        Some(i) => root.get("items")?.items()?.nth(i),
    }
}

/// A document of a file of Kubernetes objects that kubectl reads but refuses
/// ([`not_objects`]): one it cannot decode as an object (a scalar other than null, a sequence,
/// a list with such an item), or a mapping without a `kind`; or an item of a list that kubectl
/// cannot type ([`untyped`]).
#[derive(Debug, Clone)]
pub struct NotAnObject<'a> {
    /// 0-based document index in the file.
    pub document: usize,
    /// The item of a list it is about (the [`ObjectRef::item`] of the refused object, or the
    /// item a list cannot be decoded for), or `None` for the document.
    pub item: Option<usize>,
    /// Where the error is reported: the document's root, or the item.
    pub node: Node<'a>,
    /// Why kubectl refuses it.
    pub why: Refusal,
    /// kubectl's words: for a document, after `unable to decode "FILE": `; for an item it
    /// cannot type, the whole line (`unable to get type info from the object ...`).
    pub message: Cow<'static, str>,
}

impl NotAnObject<'_> {
    /// For a refusal for want of a `kind`, the key that is `kind` written in another case
    /// ([`miscased_kind`]), the one to rename: a document is reported at that key, an item of
    /// a list at the item.
    pub fn miscased_kind(&self) -> Option<&str> {
        if self.why != Refusal::MissingKind {
            return None;
        }
        let key = match self.item {
            None => Some(self.node).filter(|n| !n.is_map()),
            Some(_) => miscased_kind(self.node),
        };
        key.and_then(Node::as_str)
    }
}

/// Why kubectl refuses a document ([`NotAnObject`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// It is no object: a scalar, a sequence, or a list with such an item.
    NotAnObject,
    /// A mapping without a `kind` (or with one that is not a non-empty string), or an item of
    /// a list without one ([`untyped`]).
    MissingKind,
    /// An item of a list with a `kind` and without a version ([`untyped`]).
    MissingVersion,
    /// An item of a list that is a list itself ([`NESTED_LIST`]): kubectl refuses the whole list.
    NestedList,
    /// A document read as JSON with a number past float64's range (`1e400`, `-1e400`, an
    /// integer of 400 digits: [`number_out_of_range`]).
    NumberOutOfRange,
    /// A document whose `apiVersion` or `metadata` does not decode into Go's `TypeMeta` and
    /// `ObjectMeta` ([`metadata_refusal`]): `field` is the top-level field it is in.
    Metadata {
        /// `apiVersion` or `metadata`.
        field: &'static str,
    },
}

/// kubectl's words for a list with an item that is a list itself (a mapping whose `items` is a
/// sequence): cli-runtime's `FlattenListVisitor` asks `meta.ExtractList` for the item's
/// items, which an `*unstructured.Unstructured` does not have, and refuses the whole list.
pub const NESTED_LIST: &str = "*unstructured.Unstructured is not a list: no Items field in this object";

/// kubectl's words for an item of a list that has no kind ([`untyped`]).
pub const ITEM_MISSING_KIND: &str = "unable to get type info from the object \"*unstructured.Unstructured\": Object 'Kind' is missing in 'object has no kind field '";

/// kubectl's words for an item of a list that has a kind and no version ([`untyped`]).
pub const ITEM_MISSING_VERSION: &str = "unable to get type info from the object \"*unstructured.Unstructured\": Object 'apiVersion' is missing in 'object has no apiVersion field'";

/// Why kubectl cannot type an item of a list it decoded, and its words, or `None` when it
/// can (or when `obj` is no such item: a document, or an item of a list kubectl refuses whole
/// for want of a `kind`, [`is_kindless_list`]). Its `kind` and `apiVersion` are read after
/// inheritance ([`ObjectRef::inherited`]): a `kind: List` gives its kindless items the kind `""`.
///
/// Mirrors cli-runtime's `FlattenListVisitor.Visit` (`pkg/resource/visitor.go`), which types
/// each item with `mapper.infoForObject` and reports each it cannot type, going on with the
/// others: apimachinery's `unstructuredObjectTyper.ObjectKinds` refuses an empty kind
/// (`runtime.NewMissingKindErr`) then an empty version (`runtime.NewMissingVersionErr`), of
/// `Unstructured.GroupVersionKind`, which reads the version with `schema.ParseGroupVersion`
/// (`group/version`, or `version` alone; `""` and `"/"` are no version) and is empty whole,
/// kind included, when that fails (more than one `/`).
pub fn untyped(obj: &ObjectRef<'_>) -> Option<(Refusal, &'static str)> {
    if obj.typing == Typing::Written {
        return None;
    }
    let api_version = obj.api_version().unwrap_or_default();
    let (kind, version) = match GroupVersion::parse(api_version) {
        Ok(gv) => (obj.kind().unwrap_or_default(), gv.version()),
        Err(_) => ("", ""),
    };
    if kind.is_empty() {
        Some((Refusal::MissingKind, ITEM_MISSING_KIND))
    } else if version.is_empty() {
        Some((Refusal::MissingVersion, ITEM_MISSING_VERSION))
    } else {
        None
    }
}

/// kubectl's words for a document it cannot decode as an object, or `None` for a mapping (an
/// object, or an object kubectl refuses for other reasons: [`refusal`]) and for `null`
/// (kubectl skips it, as it skips an empty document).
///
/// Mirrors cli-runtime's `StreamVisitor.Visit` (`pkg/resource/visitor.go`: a document whose
/// JSON is empty or `null` is skipped, any other goes to `infoForData`), which decodes the
/// document with apimachinery's `unstructuredJSONScheme.decode`
/// (`pkg/apis/meta/v1/unstructured/helpers.go`): `json.Unmarshal` into its `detector` struct
/// fails on anything but a JSON object, with `encoding/json`'s `UnmarshalTypeError`, which
/// names the JSON type (`string`, `number`, `bool`, `array`) and `unstructured.detector`.
/// kubectl reports it as `unable to decode "FILE": <these words>` and goes on with the next
/// document.
pub fn undecodable(root: Node<'_>) -> Option<&'static str> {
    json_type(root).map(|t| match t {
        "array" => "json: cannot unmarshal array into Go value of type unstructured.detector",
        "bool" => "json: cannot unmarshal bool into Go value of type unstructured.detector",
        "number" => "json: cannot unmarshal number into Go value of type unstructured.detector",
        _ => "json: cannot unmarshal string into Go value of type unstructured.detector",
    })
}

/// The JSON type `encoding/json` names when a node that is no object (nor null) is unmarshaled
/// into a struct or a map (`UnmarshalTypeError.Value`).
fn json_type(node: Node<'_>) -> Option<&'static str> {
    match node.kind() {
        NodeKind::Map(_) | NodeKind::Scalar(Scalar::Null) => None,
        NodeKind::Seq(_) => Some("array"),
        NodeKind::Scalar(Scalar::Bool(_)) => Some("bool"),
        NodeKind::Scalar(Scalar::Int(_) | Scalar::UInt(_) | Scalar::Float(_)) => Some("number"),
        NodeKind::Scalar(Scalar::Str(_)) => Some("string"),
    }
}

/// Whether a document is a Kubernetes object, which makes its file a file of Kubernetes
/// objects ([`not_objects`]): a mapping with both `apiVersion` and `kind` set (to anything but
/// null: a documentation template's `kind: #<string>` is no object), an HPA (`kind: HorizontalPodAutoscaler`, which hpa-lint checks whatever else it
/// lacks), or a list of objects without a `kind` ([`is_kindless_list`]).
///
/// Both fields, not one: a Helm `Chart.yaml` has an `apiVersion` and no `kind`, a chart's
/// `values.yaml` may have a `kind: DaemonSet` and no `apiVersion`; neither is a manifest. A
/// `kind` written in another case (`Kind:`, `KIND:`: [`miscased_kind`]) beside an
/// `apiVersion` is a manifest's typo, which kubectl refuses (its `kind` is read as written).
pub fn is_object(root: Node<'_>) -> bool {
    matches!(root.kind(), NodeKind::Map(_)) && {
        let [api_version, kind] = root.get_each(["apiVersion", "kind"]);
        let set = |n: Option<Node<'_>>| n.is_some_and(|n| !matches!(n.kind(), NodeKind::Scalar(Scalar::Null)));
        set(api_version) && (set(kind) || miscased_kind(root).is_some())
            || kind.and_then(Node::as_str) == Some(hpa_core::api::KIND)
            || is_kindless_list(root)
    }
}

/// What kubectl says of a document it reads but refuses, and where: [`undecodable`] for a
/// scalar or a sequence; for a mapping with `items` (kubectl decodes any such mapping as a
/// list, `unstructuredJSONScheme.decodeToList`), its first item that is neither a mapping
/// nor null, which fails the whole list (`decodeToUnstructured`'s `json.Unmarshal` into a
/// `map[string]interface {}`), or its `items` when they are no list (`decodeList`); and for a mapping without a `kind` that is a non-empty string,
/// `runtime.NewMissingKindErr` (`Object 'Kind' is missing in '<the document's JSON>'`,
/// `unstructuredJSONScheme.Decode`), except a list of objects without a `kind`, which the
/// linter reports in its own words ([`is_kindless_list`]); then, for a list, its first item
/// that is a list itself ([`NESTED_LIST`]). `text` is the file's text (`lines` its index): a document read as
/// JSON is shown as written ([`missing_kind`]).
pub fn refusal<'a>(document: &'a Document, text: &str, lines: &LineIndex) -> Option<NotAnObject<'a>> {
    let root = document.root();
    let refused = |item: Option<usize>, node: Node<'a>, why: Refusal, message: Cow<'static, str>| {
        Some(NotAnObject { document: document.index, item, node, why, message })
    };
    // A JSON number past float64's range is read as a string: `encoding/json` names it a number.
    let number = |node: Node<'_>| {
        document.json
            && matches!(node.kind(), NodeKind::Scalar(Scalar::Str(_)))
            && number_out_of_range(node, text, lines).is_some()
    };
    if number(root) {
        let message = "json: cannot unmarshal number into Go value of type unstructured.detector";
        return refused(None, root, Refusal::NotAnObject, Cow::Borrowed(message));
    }
    if let Some(message) = undecodable(root) {
        return refused(None, root, Refusal::NotAnObject, Cow::Borrowed(message));
    }
    let NodeKind::Map(_) = root.kind() else { return None };
    let [kind, items] = root.get_each(["kind", "items"]);
    // `items` that is no list fails `decodeList`'s `json.Unmarshal`, before anything else is
    // converted.
    if let Some(items) = items
        && !matches!(items.kind(), NodeKind::Seq(_) | NodeKind::Scalar(Scalar::Null))
    {
        let t = if number(items) { "number" } else { json_type(items).unwrap_or("object") };
        let message =
            format!("json: cannot unmarshal {t} into Go struct field decodeList.items of type []json.RawMessage");
        return refused(None, items, Refusal::NotAnObject, Cow::Owned(message));
    }
    // Then the whole document is unmarshaled into a `map[string]interface {}`, its numbers
    // converted.
    if document.json
        && let Some((node, literal)) = number_out_of_range(root, text, lines)
    {
        let message = format!("json: cannot unmarshal number {literal} into Go value of type float64");
        return refused(None, node, Refusal::NumberOutOfRange, Cow::Owned(message));
    }
    // Then each item of a list.
    if let Some(list) = items.and_then(Node::items)
        && let Some((at, item, t)) = list.enumerate().find_map(|(at, i)| json_type(i).map(|t| (at, i, t)))
    {
        let message = format!("json: cannot unmarshal {t} into Go value of type map[string]interface {{}}");
        return refused(Some(at), item, Refusal::NotAnObject, Cow::Owned(message));
    }
    // `Unstructured.GroupVersionKind` is empty whole, kind included, when `apiVersion` does not
    // parse (`schema.ParseGroupVersion`: more than one `/`); one that is no string reads as "".
    let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or_default();
    let has_kind =
        kind.and_then(Node::as_str).is_some_and(|k| !k.is_empty()) && GroupVersion::parse(api_version).is_ok();
    if !has_kind {
        if is_kindless_list(root) {
            return None;
        }
        // At a `kind` written in another case, the key to fix.
        let node = miscased_kind(root).unwrap_or(root);
        return refused(None, node, Refusal::MissingKind, Cow::Owned(missing_kind(document, text)));
    }
    // Decoded, the document's `apiVersion` and `metadata` must decode into Go's types.
    if let Some((node, field, message)) = metadata_refusal(root, document.json, text, lines) {
        return refused(None, node, Refusal::Metadata { field }, Cow::Owned(message));
    }
    // Decoded and typed, a list is flattened: an item that is a list itself stops it.
    let nested = items
        .and_then(Node::items)?
        .enumerate()
        .find(|(_, item)| item.get("items").is_some_and(|inner| matches!(inner.kind(), NodeKind::Seq(_))));
    let (at, item) = nested?;
    refused(Some(at), item, Refusal::NestedList, Cow::Borrowed(NESTED_LIST))
}

/// The key of a mapping that is `kind` written in another case (`Kind`, `KIND`, `kInd`), when
/// the mapping has no `kind` that is a non-empty string: kubectl reads `kind` as written
/// (`Unstructured.GetKind` looks the key up in the decoded map) and refuses the document
/// (`Object 'Kind' is missing in '...'`), so the fix is to rename that key.
pub fn miscased_kind(root: Node<'_>) -> Option<Node<'_>> {
    if root.get("kind").and_then(Node::as_str).is_some_and(|k| !k.is_empty()) {
        return None;
    }
    root.entries()?
        .map(|e| e.key)
        .find(|key| key.as_str().is_some_and(|k| k != "kind" && k.eq_ignore_ascii_case("kind")))
}

/// The first number of a document read as JSON ([`Document::json`]) that is past float64's
/// range, in text order, with its literal as written (`1e400`, `-1E400`, an integer of 400
/// digits); `text` is the file's text, `lines` its index. (`1e-400` is in range: it reads as 0.)
///
/// Mirrors `sigs.k8s.io/json`'s `UnmarshalCaseSensitivePreserveInts` (the `util/json.Unmarshal`
/// of apimachinery's `unstructuredJSONScheme.decodeToUnstructured` and `decodeToList`), which
/// converts each number of the document into an `interface{}`: an `int64` when the literal is
/// an integer that fits, else `strconv.ParseFloat(s, 64)` (so `99999999999999999999` is
/// `1e+20`), whose range error is `encoding/json`'s `UnmarshalTypeError` (`json: cannot
/// unmarshal number 1e400 into Go value of type float64`). The first error is kept
/// (`saveError`), in the order the text is read, a key given twice included. A YAML document
/// has none: go-yaml v2 keeps a number it cannot read as a float a string.
///
/// The reader resolves a JSON number as a YAML plain scalar: one out of range stays a string,
/// which in JSON text is a number only when it is written without quotes.
pub fn number_out_of_range<'a, 't>(root: Node<'a>, text: &'t str, lines: &LineIndex) -> Option<(Node<'a>, &'t str)> {
    match root.kind() {
        NodeKind::Scalar(Scalar::Str(_)) => {
            let raw = text.get(lines.range(text, root.span()))?;
            raw.starts_with(|c: char| c == '-' || c.is_ascii_digit()).then_some((root, raw))
        }
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(mut items) => items.find_map(|i| number_out_of_range(i, text, lines)),
        NodeKind::Map(mut entries) => entries.find_map(|e| number_out_of_range(e.value, text, lines)),
    }
}

/// Where and why a document's `apiVersion`, `kind` or `metadata` does not decode into Go's
/// types, in kubectl's words (after `unable to decode "FILE": `): the node to point at, the
/// top-level field (`apiVersion`, `kind` or `metadata`), and the decoder's error (`json: cannot
/// unmarshal number into Go struct field ObjectMeta.metadata.name of type string`, `parsing
/// time ...`). `json`: the document was read as JSON ([`Document::json`]) and is decoded from its
/// text as written (`text` is the file's), number literals included (`generation: 1.0` is no
/// `int64`); a YAML document is read as `sigs.k8s.io/yaml.YAMLToJSON` writes it
/// ([`NodeSource::yaml_to_json`](crate::source::NodeSource::yaml_to_json): keys sorted, a key
/// given twice once, with its last value).
///
/// Mirrors cli-runtime's `metadataValidatingDecoder.Decode` (`pkg/resource/metadata_decoder.go`):
/// once a document decodes as an `Unstructured` object with a kind, kubectl unmarshals it
/// again into `metadataOnlyObject` (`TypeMeta` inline, `ObjectMeta` as `metadata`) and refuses
/// the document on an error. It is hpa-core's one decoder on `api::meta::MetadataOnlyObject`,
/// leniently (unknown fields are no error) with
/// [`DecodeOptions::KUBECTL_METADATA`](hpa_core::api::decode::DecodeOptions::KUBECTL_METADATA): the first value of the wrong type, or
/// `metav1.Time`'s error, which ends the decoding. An item of a list is not checked
/// (`FlattenListVisitor` types the decoded items).
pub fn metadata_refusal<'a>(
    root: Node<'a>,
    json: bool,
    text: &str,
    lines: &LineIndex,
) -> Option<(Node<'a>, &'static str, String)> {
    use hpa_core::api::decode::{self, DecodeOptions, json::JsonSource};
    use hpa_core::api::meta::MetadataOnlyObject;
    let options = DecodeOptions::KUBECTL_METADATA;
    let error = match (json, json.then(|| as_written_json(root, text, lines)).flatten()) {
        (true, Some(raw)) => decode::lenient_error_from::<MetadataOnlyObject, _>(JsonSource::new(raw), "v1", options),
        // As written, each entry of a key given twice in turn, as Go reads JSON text.
        (true, None) => {
            decode::lenient_error_from::<MetadataOnlyObject, _>(source::NodeSource::every_key(root), "v1", options)
        }
        (false, _) => {
            decode::lenient_error_from::<MetadataOnlyObject, _>(source::NodeSource::yaml_to_json(root), "v1", options)
        }
    }?;
    let node = source::locate_node(root, &error.path).unwrap_or(root);
    let field = match error.path.split(['.', '[']).next() {
        Some("metadata") => "metadata",
        Some("kind") => "kind",
        _ => "apiVersion",
    };
    Some((node, field, error.message))
}

/// `runtime.NewMissingKindErr`'s words for a document without a `kind`, with the bytes
/// kubectl decoded: a document read as JSON ([`Document::json`], as the reader decided) as
/// written (cli-runtime's `YAMLOrJSONDecoder` hands `encoding/json`'s raw value on), a YAML
/// one as `sigs.k8s.io/yaml.YAMLToJSON` writes it (`json.Marshal`: keys sorted, compact, `<`,
/// `>` and `&` escaped).
pub fn missing_kind(document: &Document, text: &str) -> String {
    let root = document.root();
    let written = if document.json { as_written_json(root, text, &LineIndex::new(text)) } else { None };
    let data = match written {
        Some(raw) => raw.to_string(),
        None => hpa_core::go::to_go_json(&root.to_json_in_key_order()).unwrap_or_default(),
    };
    format!("Object 'Kind' is missing in '{data}'")
}

/// The text of a mapping of a document read as JSON, as written (`{...}`); `lines` is the
/// text's index.
fn as_written_json<'t>(node: Node<'_>, text: &'t str, lines: &LineIndex) -> Option<&'t str> {
    let raw = text.get(lines.range(text, node.span()))?;
    (raw.starts_with('{') && raw.ends_with('}')).then_some(raw)
}

/// The documents kubectl reads but refuses ([`refusal`]) in a file of Kubernetes objects, one
/// that holds at least one ([`is_object`]); none for a file without one.
///
/// A file with objects is a manifest, and a scalar, a sequence or a mapping without a `kind`
/// among them is a mistake kubectl stops at (a stray line after a JSON object, a `- item`
/// list left in a document, an object whose `kind` was lost in an edit). A file without any is
/// no manifest (an Ansible playbook is a list, a `data.json` array, a Helm values file or a
/// `Chart.yaml` is no object), and a linter that scans a repository must stay silent on it.
/// `text` is the file's text.
///
/// A list kubectl decodes is followed by each of its items it cannot type ([`untyped`]), in
/// order, the item's [`NotAnObject::item`] set: `objects` are the file's, as [`objects_in`]
/// lists them (in document order), read once for both.
pub fn not_objects<'a>(parsed: &'a Parsed, text: &str, objects: &[ObjectRef<'a>]) -> Vec<NotAnObject<'a>> {
    if !holds_objects(parsed, objects) {
        return Vec::new();
    }
    refusals(parsed, text, objects)
}

/// Whether a file is a manifest: one of its documents is an object ([`is_object`]), or one of
/// the items [`objects_in`] read from a list is, with or without the list's own `apiVersion`
/// (kubectl reads the items of `kind: List` without one). `objects` are the file's, as
/// [`objects_in`] lists them.
pub fn holds_objects(parsed: &Parsed, objects: &[ObjectRef<'_>]) -> bool {
    parsed.documents.iter().any(|d| is_object(d.root()))
        || objects.iter().any(|o| o.item.is_some() && is_object(o.node))
}

/// [`not_objects`] of a file that holds objects.
fn refusals<'a>(parsed: &'a Parsed, text: &str, objects: &[ObjectRef<'a>]) -> Vec<NotAnObject<'a>> {
    // Only a document read as JSON is decoded from its text as written ([`metadata_refusal`]):
    // the index of the text's lines is built for those alone.
    let lines = LineIndex::new(if parsed.documents.iter().any(|d| d.json) { text } else { "" });
    let mut out = Vec::new();
    let mut rest = objects;
    for d in &parsed.documents {
        let of_document = take_document(&mut rest, d.index);
        if let Some(refused) = refusal(d, text, &lines) {
            out.push(refused);
            continue;
        }
        out.extend(of_document.iter().filter_map(|obj| {
            untyped(obj).map(|(why, message)| NotAnObject {
                document: d.index,
                item: obj.item,
                node: obj.node,
                why,
                message: Cow::Borrowed(message),
            })
        }));
    }
    out
}

/// What kubectl reads in a file but refuses or never sends, as `validate` reports it beside the
/// file's HPAs (and `default`, `convert` and `explain` on standard error): each of the file's
/// refusals ([`not_objects`]) and each HPA kubectl reads as a list ([`stray_items`]).
#[derive(Debug, Clone)]
pub struct Unsent<'a> {
    /// 0-based document index in the file.
    pub document: usize,
    /// The item of a list it is about, if any ([`NotAnObject::item`]).
    pub item: Option<usize>,
    /// 1-based line and column in the file.
    pub line: u32,
    /// See `line`.
    pub column: u32,
    /// `validate`'s error type: kube-apiserver's decode error types (`NotAnObject`, `TypeMeta`
    /// for a missing kind or apiVersion), and ours for a list kubectl cannot flatten
    /// (`NestedList`) or an HPA it never sends (`StrayItems`).
    pub error_type: &'static str,
    /// The field it is about (`items` for `StrayItems`), or `""`.
    pub field: &'static str,
    /// kubectl's words, or ours where kubectl says nothing ([`StrayItems::message`]).
    pub message: Cow<'a, str>,
}

/// A file's objects, as the one per-file loop ([`walk`]) hands them to every front end.
#[derive(Debug)]
pub struct FileObjects<'a> {
    /// Every object, lists expanded ([`objects_in`]), in order: in a file that is no manifest
    /// (`manifest` false), its documents, which are no objects.
    pub objects: Vec<ObjectRef<'a>>,
    /// What kubectl reads in the file but refuses ([`not_objects`]).
    pub refused: Vec<NotAnObject<'a>>,
    /// Whether the file holds objects ([`holds_objects`]). A file that does not (a Helm
    /// `Chart.yaml` or `values.yaml`, an Ansible playbook) has no object to count or check,
    /// and nothing refused to report.
    pub manifest: bool,
}

impl<'a> FileObjects<'a> {
    /// The objects kubectl decodes and sends ([`FileObjects::counts`]), in order.
    pub fn counted(&self) -> impl Iterator<Item = &ObjectRef<'a>> {
        self.objects.iter().filter(|o| self.counts(o))
    }

    /// Whether `obj`, one of [`FileObjects::objects`], is an object kubectl decodes and sends:
    /// the file is a manifest and kubectl does not refuse it ([`counts_as_object`]).
    pub fn counts(&self, obj: &ObjectRef<'_>) -> bool {
        self.manifest && counts_as_object(obj, &self.refused)
    }
}

/// What a file holds that kubectl cannot read, refuses or never sends, found by the one per-file
/// loop ([`walk`]): `lint` reports each as HPA000, `validate` as an entry, `default`, `convert`
/// and `explain` on standard error (those three and `validate`, which look at HPAs only, as
/// [`Problem::unsent`] words them).
#[derive(Debug, Clone)]
pub enum Problem<'a> {
    /// The file is no text (binary content): nothing of it was read.
    Unreadable(&'a str),
    /// A document with `items` and no `kind` ([`is_kindless_list`]): kubectl refuses it
    /// ([`missing_kind`]); its items are read as they are.
    KindlessList(&'a Document),
    /// A mapping whose `kind` names no list, read by kubectl as a list ([`stray_items`]).
    Stray {
        /// 0-based document index in the file.
        document: usize,
        /// Its kind and `items`.
        stray: StrayItems<'a>,
    },
    /// A document kubectl refuses, or an item it cannot type ([`not_objects`]).
    Refused(NotAnObject<'a>),
    /// The YAML syntax error that ended the file.
    Syntax(&'a source::SyntaxError),
}

impl<'a> Problem<'a> {
    /// The problem as the commands that look at HPAs report it beside them ([`Unsent`]): the
    /// documents kubectl refuses (a list without a kind among them, in kubectl's words) and the
    /// HPAs it reads as lists (`None` for the others).
    pub fn unsent(&self, file: &SourceFile) -> Option<Unsent<'a>> {
        let at = |node: Node<'_>| file.line_col(node.span().start);
        match self {
            Problem::Refused(d) => {
                let (line, column) = at(d.node);
                let error_type = match d.why {
                    Refusal::NotAnObject => "NotAnObject",
                    Refusal::MissingKind | Refusal::MissingVersion => "TypeMeta",
                    Refusal::NestedList => "NestedList",
                    Refusal::NumberOutOfRange => "UnmarshalTypeError",
                    Refusal::Metadata { field: "apiVersion" } => "TypeMeta",
                    Refusal::Metadata { .. } => "ObjectMeta",
                };
                let field = match d.why {
                    Refusal::Metadata { field } => field,
                    _ => "",
                };
                Some(Unsent {
                    document: d.document,
                    item: d.item,
                    line,
                    column,
                    error_type,
                    field,
                    message: d.message.clone(),
                })
            }
            Problem::KindlessList(doc) => {
                let (line, column) = at(doc.root());
                let message = Cow::Owned(missing_kind(doc, &file.text));
                Some(Unsent {
                    document: doc.index,
                    item: None,
                    line,
                    column,
                    error_type: "TypeMeta",
                    field: "kind",
                    message,
                })
            }
            Problem::Stray { document, stray } if stray.kind == hpa_core::api::KIND => {
                let (line, column) = at(stray.items.key);
                let message = Cow::Owned(stray.message());
                Some(Unsent {
                    document: *document,
                    item: None,
                    line,
                    column,
                    error_type: "StrayItems",
                    field: "items",
                    message,
                })
            }
            _ => None,
        }
    }
}

/// The one per-file loop of every front end: a file's objects (from `parsed`, its documents:
/// the file's own, or the linter's pruned parse of its text) handed to `each`, then what it
/// holds that kubectl cannot read, refuses or never sends ([`Problem`]: the file unreadable,
/// documents with items and no kind, mappings read as lists, refusals, the syntax error that
/// ended it), for the caller to report in its form.
pub fn walk<'a, R>(
    index: usize,
    file: &'a SourceFile,
    parsed: &'a Parsed,
    each: impl FnOnce(&FileObjects<'a>) -> R,
) -> (R, Vec<Problem<'a>>) {
    let objects = objects_in(index, parsed);
    let manifest = holds_objects(parsed, &objects);
    let refused = if manifest { refusals(parsed, &file.text, &objects) } else { Vec::new() };
    let contents = FileObjects { objects, refused, manifest };
    let result = each(&contents);
    let mut problems = Vec::new();
    if let Some(reason) = &file.unreadable {
        problems.push(Problem::Unreadable(reason));
    }
    problems.extend(parsed.documents.iter().filter(|d| is_kindless_list(d.root())).map(Problem::KindlessList));
    // A document kubectl refuses (a number out of range, its metadata) is never read as a list.
    let refused_whole = |document: usize| contents.refused.iter().any(|r| r.document == document && r.item.is_none());
    problems.extend(
        parsed
            .documents
            .iter()
            .filter(|d| !refused_whole(d.index))
            .filter_map(|d| stray_items(d.root()).map(|stray| Problem::Stray { document: d.index, stray })),
    );
    problems.extend(contents.refused.into_iter().map(Problem::Refused));
    if let Some(e) = &parsed.error {
        problems.push(Problem::Syntax(e));
    }
    (result, problems)
}

/// Whether `text` may hold a Kubernetes object: it names `apiVersion` or `kind`, as every
/// object does (both, as keys) in YAML or JSON.
pub fn may_be_manifest(text: &str) -> bool {
    text.contains("apiVersion") || text.contains("kind")
}

/// Takes the syntax error out of `problems` when `file`, read from `origin`, cannot be a
/// manifest ([`may_be_manifest`]: its text names neither `apiVersion` nor `kind`), and returns
/// the note that says it was skipped: a file that does not parse and holds no object is one of
/// the files a repository scan meets that are not YAML or JSON kubectl reads (JSON with
/// comments, a `tsconfig.json` or `.devcontainer/devcontainer.json`; YAML with Jinja
/// templating), and stays as silent as the files that parse and hold no object
/// ([`not_objects`]), with a note as a chart's templates ([`discover`]). Files only: standard
/// input is what the user pipes in as manifests (`helm template ... | hpa-lint -`), and its
/// error stays. For `lint` only: `validate` reads a file as kubectl does, and kubectl reports
/// the error whatever the file holds.
pub fn skip_unparsable_non_manifest(
    origin: &Origin,
    file: &SourceFile,
    problems: &mut Vec<Problem<'_>>,
) -> Option<String> {
    let at = problems.iter().position(|p| matches!(p, Problem::Syntax(_)))?;
    if *origin == Origin::Stdin || may_be_manifest(&file.text) {
        return None;
    }
    let Problem::Syntax(e) = problems.remove(at) else { return None };
    let (line, column) = line_col(e.mark);
    Some(format!(
        "{}: skipped: not YAML or JSON kubectl reads ({line}:{column}: {}), and it names neither apiVersion nor kind, so it holds no Kubernetes object",
        file.name, e.message
    ))
}

/// The problems of a file kubectl refuses or never sends as the commands that look at HPAs
/// report them ([`Problem::unsent`]), in line order.
pub fn unsent<'a>(file: &SourceFile, problems: &[Problem<'a>]) -> Vec<Unsent<'a>> {
    let mut out: Vec<Unsent<'a>> = problems.iter().filter_map(|p| p.unsent(file)).collect();
    // A refusal before an HPA read as a list at the same place.
    out.sort_by_key(|u| (u.line, u.column, u.error_type == "StrayItems"));
    out
}

/// The first objects of `rest` that belong to document `document` (all of them, when `rest`
/// lists a file's objects in document order, as [`objects_in`] does), `rest` moved past them.
pub fn take_document<'r, 'a>(rest: &mut &'r [ObjectRef<'a>], document: usize) -> &'r [ObjectRef<'a>] {
    let (of_document, after) = rest.split_at(rest.iter().take_while(|o| o.document == document).count());
    *rest = after;
    of_document
}

/// Whether an object [`objects_in`] lists is one kubectl decodes, so counts as an object: not a
/// scalar or a sequence ([`undecodable`]), nor a document refused for want of a kind or an item
/// kubectl cannot type (among `refused`, the file's [`not_objects`]). All are reported with
/// the file when it holds objects.
///
/// A document kubectl refuses ([`NotAnObject::item`] `None`: its metadata, no kind, a number
/// out of range, `items` that are no list) is refused whole, a list's items with it; so is a
/// list with an item that is no mapping ([`Refusal::NotAnObject`] of an item:
/// `unstructuredJSONScheme.decodeToList` fails, and none of its items is sent) or that is a list
/// itself ([`Refusal::NestedList`]: `FlattenListVisitor` refuses the list before it visits an
/// item). Of a list kubectl flattens, an item it cannot type is refused alone.
pub fn counts_as_object(obj: &ObjectRef<'_>, refused: &[NotAnObject<'_>]) -> bool {
    undecodable(obj.node).is_none()
        && !refused.iter().any(|d| {
            d.document == obj.document
                && (d.item.is_none()
                    || d.item == obj.item
                    || matches!(d.why, Refusal::NotAnObject | Refusal::NestedList))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lint` skips a file that does not parse only when it names neither apiVersion nor kind
    /// (JSON with comments, YAML with Jinja), with a note saying where it stopped; one that
    /// names either keeps its syntax error (HPA000).
    #[test]
    fn unparsable_files_without_apiversion_or_kind_are_skipped() {
        let read = |origin: &Origin, name: &str, text: &str| {
            let file = SourceFile::from_text(name, text.to_string());
            let ((), mut problems) = walk(0, &file, &file.parsed, |_| ());
            let note = skip_unparsable_non_manifest(origin, &file, &mut problems);
            (note, problems.iter().filter(|p| matches!(p, Problem::Syntax(_))).count())
        };
        let skipped = |name: &str, text: &str| read(&Origin::File(PathBuf::from(name)), name, text);
        assert_eq!(
            skipped("tsconfig.json", "{\n  // comments\n  \"compilerOptions\": {}\n}\n"),
            (
                Some("tsconfig.json: skipped: not YAML or JSON kubectl reads (2:3: json: offset 5: invalid character '/' looking for beginning of object key string), and it names neither apiVersion nor kind, so it holds no Kubernetes object".to_string()),
                0
            )
        );
        assert_eq!(
            skipped("vars.yaml", "name: {{ app }}\n{% if debug %}\ndebug: true\n{% endif %}\n"),
            (
                Some("vars.yaml: skipped: not YAML or JSON kubectl reads (3:1: error converting YAML to JSON: yaml: line 3: could not find expected ':'), and it names neither apiVersion nor kind, so it holds no Kubernetes object".to_string()),
                0
            )
        );
        // Naming either may be a manifest: the error stays.
        for text in ["apiVersion: v1\nmetadata: {name: x\n", "{\n  // a\n  \"kind\": \"Pod\"\n}\n"] {
            assert_eq!(skipped("m.yaml", text), (None, 1), "{text:?}");
        }
        // A file that parses keeps its problems, whatever it names.
        assert_eq!(skipped("data.json", "[1, 2]\n"), (None, 0));
        // Standard input is piped in as manifests: its error stays.
        assert_eq!(read(&Origin::Stdin, STDIN_NAME, "{\n  // comments\n  \"compilerOptions\": {}\n}\n"), (None, 1));
    }

    /// UTF-16 with its byte order mark is read as kubectl reads it (`unicode.BOMOverride`).
    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded() {
        let text = "a: \u{e9}\u{1f600}\n---\nb: 1\n";
        let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
        for bytes in [le, be] {
            let file = from_bytes("f.yaml".into(), bytes);
            assert_eq!((file.unreadable, file.text.as_str()), (None, text));
            assert_eq!(file.parsed.documents.len(), 2);
        }
        // A lone surrogate and a last odd byte are U+FFFD.
        let file = from_bytes("f.yaml".into(), vec![0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0, b'c']);
        assert_eq!(file.text, "a\u{fffd}b\u{fffd}");
        // Without the mark, NUL bytes are binary content, unless the text is UTF-8: go-yaml's
        // to refuse then.
        assert!(from_bytes("f.yaml".into(), vec![b'a', 0, 0xFF]).unreadable.is_some());
        let file = from_bytes("f.yaml".into(), b"a: b\0\n".to_vec());
        assert_eq!(file.unreadable, None);
        let error = file.parsed.error.map(|e| e.message);
        assert_eq!(error.as_deref(), Some("error converting YAML to JSON: yaml: control characters are not allowed"));
    }

    /// A directory walk skips the templates of every Helm chart (a subchart's too), with one note
    /// per chart; a `templates` directory outside a chart and a chart's other files are read.
    #[test]
    fn a_walk_skips_helm_chart_templates() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            "app/Chart.yaml",
            "app/values.yaml",
            "app/templates/deployment.yaml",
            "app/templates/extra/hpa.yaml",
            "app/crds/crd.yaml",
            "app/charts/sub/Chart.yaml",
            "app/charts/sub/templates/hpa.yaml",
            "kustomize/templates/hpa.yaml",
            "plain.yaml",
        ];
        for f in files {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "{{ .Values.x }}\n").unwrap();
        }
        let names = |origins: &[Origin]| -> Vec<String> {
            origins
                .iter()
                .map(|o| match o {
                    Origin::File(p) => p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"),
                    Origin::Stdin => "-".into(),
                })
                .collect()
        };
        let (origins, errors, notes) = discover(&[root.to_string_lossy().into_owned()], &[]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            names(&origins),
            [
                "app/Chart.yaml",
                "app/charts/sub/Chart.yaml",
                "app/crds/crd.yaml",
                "app/values.yaml",
                "kustomize/templates/hpa.yaml",
                "plain.yaml"
            ]
        );
        let app = root.join("app");
        let sub = app.join("charts/sub");
        assert_eq!(
            notes,
            [sub.display(), app.display()].map(|c| format!(
                "{c}/templates: skipped: Helm chart templates are not manifests; lint the rendered output: helm \
                 template {c} | hpa-lint -"
            ))
        );
        // Excluded by the user: no note. Named on the command line, as pre-commit names staged
        // files: skipped too, one note for the chart.
        let (_, _, notes) = discover(&[app.to_string_lossy().into_owned()], &["**/templates".into()]);
        assert!(notes.is_empty(), "{notes:?}");
        let named = ["app/templates/deployment.yaml", "app/templates/extra/hpa.yaml", "kustomize/templates/hpa.yaml"]
            .map(|f| root.join(f).to_string_lossy().into_owned());
        let (origins, _, notes) = discover(&named, &[]);
        assert_eq!(names(&origins), ["kustomize/templates/hpa.yaml"]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with(&format!("{}/templates: skipped", app.display())), "{notes:?}");
    }

    /// A panic met while checking one file becomes an error about that file, with its message;
    /// what does not panic passes through.
    #[test]
    fn a_panic_is_contained_to_its_file() {
        assert_eq!(contained("a.yaml", || 7).ok(), Some(7));
        let index: Vec<usize> = Vec::new();
        let err = contained("b.yaml", || index[3]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("b.yaml: internal error while checking this file: index out of bounds"), "{err}");
        assert!(err.contains("a bug in hpa-lint"), "{err}");
        let err = contained("c.yaml", || -> usize { std::panic::panic_any(42u8) }).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "c.yaml: internal error while checking this file: panic (a bug in hpa-lint: please report it, with the file if you can)"
            )
        );
    }

    #[test]
    fn lists_are_expanded() {
        let f = SourceFile::from_text(
            "x.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: B\n---\nkind: C\n".into(),
        );
        let objs = objects(0, &f);
        let kinds: Vec<_> = objs.iter().map(|o| o.kind().unwrap_or("")).collect();
        assert_eq!(kinds, ["A", "B", "C"]);
        for o in &objs {
            let node = object_node(&f.parsed, o.document, o.item).map(Node::span);
            assert_eq!(node, Some(o.node.span()), "object_node finds what objects_in lists");
        }
        assert_eq!(objs[1].item, Some(1));
        assert_eq!(objs[2].document, 1);
        let f = SourceFile::from_text("x.yaml", "apiVersion: v1\nitems:\n- kind: A\n".into());
        assert_eq!(objects(0, &f)[0].kind(), Some("A"));
        let values = SourceFile::from_text("values.yaml", "items:\n- name: a\n".into());
        assert_eq!(objects(0, &values)[0].item, None, "a list of things that are not objects is no List");
    }

    /// The words of each document of `text` that [`not_objects`] reports, with its 1-based
    /// line.
    fn not_objects_of(text: &str) -> Vec<(u32, String)> {
        let parsed = source::parse(text);
        assert!(parsed.error.is_none(), "{text:?}: {:?}", parsed.error);
        not_objects(&parsed, text, &objects_in(0, &parsed))
            .into_iter()
            .map(|d| (line_col(d.node.span().start).0, d.message.into_owned()))
            .collect()
    }

    const HPA: &str = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n";

    /// Among objects, each scalar and sequence document is reported in kubectl's words (what
    /// `kubectl label --local -f FILE x=y` 1.33 says after `unable to decode "FILE": `), and
    /// what kubectl skips (an empty document, one of comments only, `null`, `~`) is not.
    #[test]
    fn scalars_and_sequences_among_objects_are_reported_in_kubectls_words() {
        let detector = |t: &str| format!("json: cannot unmarshal {t} into Go value of type unstructured.detector");
        let text = format!(
            "{HPA}---\nhello\n---\n- a\n- b\n---\n[1]\n---\n42\n---\n-1.5\n---\ntrue\n---\n\"\"\n---\n|\n  block\n\
             ---\n---\n# a comment\n---\nnull\n---\n~\n---\nNULL\n"
        );
        let found = not_objects_of(&text);
        let expected = [
            (5, "string"),
            (7, "array"),
            (10, "array"),
            (12, "number"),
            (14, "number"),
            (16, "bool"),
            (18, "string"),
            // A block scalar's node starts at its text, the line after `|`.
            (21, "string"),
        ]
        .map(|(l, t)| (l, detector(t)));
        assert_eq!(found, expected);
        // JSON: a value after the object is a document of its own (junk after it reads as a
        // YAML string).
        let json = r#"{"apiVersion": "v1", "kind": "ConfigMap"} trailing junk"#;
        assert_eq!(
            not_objects_of(json),
            [(1, "json: cannot unmarshal string into Go value of type unstructured.detector".to_string())]
        );
        let json = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n[1]\nnull\n5\n";
        assert_eq!(
            not_objects_of(json).iter().map(|d| d.0).collect::<Vec<_>>(),
            [2, 4],
            "the array and the number; null is skipped"
        );
    }

    /// A file without a Kubernetes object (a mapping with `apiVersion` or `kind`) is no
    /// manifest: its documents, whatever they are, are not reported.
    #[test]
    fn a_file_without_objects_stays_silent() {
        for text in [
            // An Ansible playbook.
            "- hosts: all\n  tasks:\n  - name: ping\n    ping: {}\n",
            // A data file.
            r#"[{"name": "a"}, {"name": "b"}]"#,
            "just a string\n",
            "42\n---\n- a\n---\nname: not an object\n",
            // Helm values beside a list.
            "replicaCount: 2\nimage: {repository: nginx}\n---\n- x\n",
            "",
            "# only a comment\n",
        ] {
            assert_eq!(not_objects_of(text), [], "{text:?}");
        }
        // One object is enough: `apiVersion` and `kind`, an HPA, or a list of objects without
        // a kind (its items are checked as objects).
        assert_eq!(not_objects_of("apiVersion: v1\nkind: ConfigMap\n---\nx\n").len(), 1);
        assert_eq!(not_objects_of("kind: HorizontalPodAutoscaler\n---\nx\n").len(), 1);
        assert_eq!(not_objects_of("items:\n- kind: ConfigMap\n---\nx\n").len(), 1);
        // One of the two is no object: a Helm `Chart.yaml`, a values file with a `kind`.
        for text in [
            "apiVersion: v2\nname: chart\nversion: 1.0.0\n---\nx\n",
            "kind: DaemonSet\nimage: {repository: fluent-bit}\n---\nx\n",
            "version: '3'\nservices: {web: {image: nginx}}\n",
            // A documentation template: every field null.
            "apiVersion: #<string>\nkind: #<string>\nmetadata: #<Object>\n  name: #<string>\n",
        ] {
            assert_eq!(not_objects_of(text), [], "{text:?}");
        }
    }

    /// Among objects, a mapping without a `kind` that is a non-empty string is reported as
    /// `kubectl label --local -f FILE x=y` 1.33 reports it: `Object 'Kind' is missing in '...'`
    /// with the document as `json.Marshal` writes it (YAML) or as written (JSON); a list of
    /// objects without a kind is left to the linter's own words.
    #[test]
    fn mappings_without_a_kind_among_objects_are_reported_in_kubectls_words() {
        let text = format!(
            "{HPA}---\napiVersion: v1\nmetadata:\n  name: b\n  labels: {{z: \"1\", a: x}}\ndata: {{k: 2}}\n\
             ---\nfoo: bar\n---\n{{}}\n---\napiVersion: v1\nkind: \"\"\n---\nkind: null\nf: 1.0\ng: 1e30\nh: \"<&>\"\ni: 0x10\n\
             ---\nkind: 5\n---\napiVersion: v1\nitems: []\n---\nitems:\n- kind: ConfigMap\n"
        );
        let words = |json: &str| format!("Object 'Kind' is missing in '{json}'");
        let found: Vec<(u32, String)> = not_objects_of(&text);
        assert_eq!(
            found,
            [
                (5, words(r#"{"apiVersion":"v1","data":{"k":2},"metadata":{"labels":{"a":"x","z":"1"},"name":"b"}}"#)),
                (11, words(r#"{"foo":"bar"}"#)),
                (13, words("{}")),
                (15, words(r#"{"apiVersion":"v1","kind":""}"#)),
                (18, words(r#"{"f":1,"g":1e+30,"h":"\u003c\u0026\u003e","i":16,"kind":null}"#)),
                (24, words(r#"{"kind":5}"#)),
                (26, words(r#"{"apiVersion":"v1","items":[]}"#)),
            ]
        );
        let json = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n{\"metadata\": {\"name\": \"b\"},\n  \"apiVersion\":\"v1\"}\n";
        let bom = format!("\u{feff}{json}");
        assert_eq!(not_objects_of(&bom), not_objects_of(json), "after a byte order mark");
        assert_eq!(
            not_objects_of(json),
            [(2, (words("{\"metadata\": {\"name\": \"b\"},\n  \"apiVersion\":\"v1\"}")))],
            "JSON as written"
        );
    }

    /// A document is shown as written only when the reader read it as JSON ([`Document::json`]):
    /// kubectl looks for the `{` of a JSON stream in a text's first 4096 bytes
    /// (`GuessJSONStream`), and reads what follows a JSON stream's `---` as YAML. Both
    /// readings are compared with kubectl's in tests/tests/malformed.rs.
    #[test]
    fn a_document_is_shown_as_written_only_when_read_as_json() {
        let kindless = r#"{"metadata": {"name": "b", "labels": {"z": "1", "a": "<&>"}}}"#;
        let as_yaml = r#"{"metadata":{"labels":{"a":"\u003c\u0026\u003e","z":"1"},"name":"b"}}"#;
        let words = |json: &str| format!("Object 'Kind' is missing in '{json}'");
        let after_spaces = |n: usize| format!("{}{kindless}\n---\n{HPA}", " ".repeat(n));
        assert_eq!(not_objects_of(&after_spaces(4095)), [(1, words(kindless))], "`{{` at byte 4095: JSON");
        assert_eq!(not_objects_of(&after_spaces(4096)), [(1, words(as_yaml))], "`{{` at byte 4096: YAML");
        let after_json = format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}}\n---\n{kindless}\n");
        assert_eq!(not_objects_of(&after_json), [(3, words(as_yaml))], "YAML after a JSON stream");
    }

    /// A list (any mapping with `items`) with an item that is neither a mapping nor null fails
    /// whole in kubectl, with the first such item's JSON type; it is reported at that item, and
    /// the list's other items are not typed. A `null` item of a list kubectl decodes is an
    /// empty object, which inherits the `kind` `""` of a `kind: List` and is refused (as
    /// kubectl 1.33 does).
    #[test]
    fn a_list_with_an_item_that_is_no_object_is_reported_in_kubectls_words() {
        let text = format!(
            "{HPA}---\napiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap}}\n- null\n- hello\n- [1]\n\
             ---\nkind: List\nitems: [5]\n---\napiVersion: v1\nkind: List\nitems: [null]\n"
        );
        let map = |t: &str| format!("json: cannot unmarshal {t} into Go value of type map[string]interface {{}}");
        let found: Vec<(u32, String)> = not_objects_of(&text);
        assert_eq!(found, [(10, map("string")), (14, map("number")), (18, ITEM_MISSING_KIND.to_string())]);
        let parsed = source::parse(&text);
        let items: Vec<_> =
            not_objects(&parsed, &text, &objects_in(0, &parsed)).iter().map(|d| (d.document, d.item)).collect();
        assert_eq!(items, [(1, Some(2)), (2, Some(0)), (3, Some(0))]);
    }

    /// An item of a list with neither `kind` nor `apiVersion` (absent, empty or not strings)
    /// takes the list's, its kind less `List` (`decodeToList`), and reads as JSON with them;
    /// an item with either keeps its own; the items of a list without a `kind` are not typed.
    #[test]
    fn a_kindless_item_inherits_its_lists_kind_and_api_version() {
        let text = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscalerList\nitems:\n\
                    - metadata: {name: a}\n- {kind: \"\", apiVersion: \"\", metadata: {name: b}}\n- {kind: 5}\n\
                    - {kind: ConfigMap}\n- {apiVersion: v1}\n- null\n\
                    ---\nkind: PodList\nitems:\n- {metadata: {name: p}}\n\
                    ---\napiVersion: v1\nkind: List\nitems:\n- {metadata: {name: l}}\n\
                    ---\nitems:\n- {kind: ConfigMap}\n";
        let f = SourceFile::from_text("x.yaml", text.into());
        let objs = objects(0, &f);
        let identity: Vec<_> = objs.iter().map(|o| (o.api_version(), o.kind(), o.inherited())).collect();
        let hpa = (Some("autoscaling/v2"), Some("HorizontalPodAutoscaler"), true);
        assert_eq!(
            identity,
            [
                hpa,
                hpa,
                hpa,
                (None, Some("ConfigMap"), false),
                (Some("v1"), None, false),
                hpa,
                (Some(""), Some("Pod"), true),
                (Some("v1"), Some(""), true),
                (None, Some("ConfigMap"), false),
            ]
        );
        assert!(objs[0].is_hpa() && objs[0].name() == Some("a"));
        assert_eq!(
            objs[0].to_json(),
            serde_json::json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"}})
        );
        assert_eq!(
            objs[2].to_json(),
            serde_json::json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler"})
        );
        assert_eq!(objs[3].to_json(), serde_json::json!({"kind": "ConfigMap"}), "its own identity, as written");
        let refused = not_objects(&f.parsed, &f.text, &objs);
        let found: Vec<_> = refused.iter().map(|d| (d.document, d.item, d.why)).collect();
        assert_eq!(
            found,
            [
                (0, Some(3), Refusal::MissingVersion),
                (0, Some(4), Refusal::MissingKind),
                (1, Some(0), Refusal::MissingVersion),
                (2, Some(0), Refusal::MissingKind),
            ]
        );
        let counted: Vec<_> = objs.iter().map(|o| counts_as_object(o, &refused)).collect();
        assert_eq!(counted, [true, true, true, false, false, true, false, false, true]);
    }

    /// Every mapping with `items` and a kind is a list, whatever the kind (`items: null` one of
    /// nothing); a list is refused for a list among its items, after what decoding refuses
    /// (an item that is no object, a list without a kind); `items: null` makes no item a list.
    /// A document with a kind that names no list is a stray list ([`stray_items`]) unless
    /// kubectl refuses it.
    #[test]
    fn any_mapping_with_items_is_a_list_and_a_list_in_a_list_is_refused() {
        let text = "apiVersion: v1\nkind: ConfigMap\nitems:\n- {metadata: {name: a}}\n\
                    ---\napiVersion: v1\nkind: Secret\nitems: null\n\
                    ---\napiVersion: v1\nkind: List\nitems:\n- {kind: ConfigMap, items: null}\n- {kind: List, items: []}\n\
                    ---\napiVersion: v1\nkind: List\nitems:\n- {kind: List, items: []}\n- 5\n\
                    ---\napiVersion: v1\nitems:\n- {kind: List, items: []}\n\
                    ---\napiVersion: v1\nkind: ConfigMap\nitems:\n- 5\n";
        let f = SourceFile::from_text("x.yaml", text.into());
        let objs = objects(0, &f);
        let found: Vec<_> = objs.iter().map(|o| (o.document, o.item, o.kind())).collect();
        assert_eq!(
            found,
            [
                (0, Some(0), Some("ConfigMap")),
                (2, Some(0), Some("ConfigMap")),
                (2, Some(1), Some("List")),
                (3, Some(0), Some("List")),
                (3, Some(1), Some("")),
                (4, Some(0), Some("List")),
                (5, Some(0), Some("ConfigMap")),
            ]
        );
        let stray: Vec<_> = f.parsed.documents.iter().filter_map(|d| stray_items(d.root()).map(|s| s.kind)).collect();
        assert_eq!(stray, ["ConfigMap", "Secret"]);
        let refused: Vec<_> =
            not_objects(&f.parsed, &f.text, &objs).iter().map(|d| (d.document, d.item, d.why)).collect();
        // A list without a kind is refused before it is flattened (the linter words that); a
        // ConfigMap with an item that is no object is refused, not read as a list.
        assert_eq!(
            refused,
            [(2, Some(1), Refusal::NestedList), (3, Some(1), Refusal::NotAnObject), (5, Some(0), Refusal::NotAnObject)]
        );
    }

    /// A list with an item that is no mapping fails to decode whole (kubectl 1.33: `unable to
    /// decode "x.yaml": json: cannot unmarshal number into Go value of type map[string]interface
    /// {}`, and nothing of the list is sent): none of its items counts, not even the HPA before
    /// the number; a list beside it is sent.
    #[test]
    fn a_list_with_an_item_that_is_no_mapping_sends_no_item() {
        let text = "apiVersion: v1\nkind: List\nitems:\n\
                    - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: a}}\n- 42\n\
                    - {kind: HorizontalPodAutoscaler, metadata: {name: b}}\n\
                    ---\napiVersion: v1\nkind: List\nitems:\n\
                    - {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: c}}\n";
        let f = SourceFile::from_text("x.yaml", text.into());
        let objs = objects(0, &f);
        let refused = not_objects(&f.parsed, &f.text, &objs);
        let found: Vec<_> = refused.iter().map(|d| (d.document, d.item, d.why, d.message.as_ref())).collect();
        assert_eq!(
            found,
            [(
                0,
                Some(1),
                Refusal::NotAnObject,
                "json: cannot unmarshal number into Go value of type map[string]interface {}"
            )]
        );
        let counted: Vec<_> = objs.iter().map(|o| (o.document, o.item, counts_as_object(o, &refused))).collect();
        assert_eq!(counted, [(0, Some(0), false), (0, Some(1), false), (0, Some(2), false), (1, Some(0), true)]);
    }

    /// An item is typed as `Unstructured.GroupVersionKind` reads it (`ParseGroupVersion`): a
    /// version is what follows the one `/`, or the whole `apiVersion`; more than one `/` is no
    /// kind at all. Each answer is kubectl 1.33's (`kubectl label --local`, in
    /// tests/tests/malformed.rs).
    #[test]
    fn an_item_is_typed_as_kubectl_types_it() {
        let typed = |api_version: &str, kind: &str| {
            let text =
                format!("apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: {api_version:?}, kind: {kind:?}}}\n");
            let f = SourceFile::from_text("x.yaml", text);
            objects(0, &f).first().and_then(untyped).map(|(why, _)| why)
        };
        assert_eq!(typed("apps/v1", "Deployment"), None);
        assert_eq!(typed("v1", "ConfigMap"), None);
        assert_eq!(typed("/v1", "ConfigMap"), None, "the core group spelled empty");
        assert_eq!(typed("apps/", "Deployment"), Some(Refusal::MissingVersion));
        assert_eq!(typed("/", "Deployment"), Some(Refusal::MissingVersion));
        assert_eq!(typed("", "Deployment"), Some(Refusal::MissingVersion));
        assert_eq!(typed("a/b/c", "Deployment"), Some(Refusal::MissingKind));
        assert_eq!(typed("v1", ""), Some(Refusal::MissingKind));
        let document = SourceFile::from_text("x.yaml", "apiVersion: apps/\nkind: Deployment\n".into());
        assert_eq!(untyped(&objects(0, &document)[0]), None, "a document is decoded, not typed");
    }

    /// An `apiVersion` with more than one `/` leaves kubectl no kind (`Unstructured.GroupVersionKind`
    /// is empty whole when `ParseGroupVersion` fails): the document is refused as one without a
    /// kind, a list with its items; one with a version that merely is not served is not.
    #[test]
    fn an_api_version_that_does_not_parse_leaves_no_kind() {
        let text = "apiVersion: autoscaling/v2/x\nkind: HorizontalPodAutoscaler\n---\n\
                    apiVersion: a/b/c\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n\
                    ---\napiVersion: autoscaling/v9\nkind: HorizontalPodAutoscaler\n";
        assert_eq!(
            not_objects_of(text),
            [
                (1, "Object 'Kind' is missing in '{\"apiVersion\":\"autoscaling/v2/x\",\"kind\":\"HorizontalPodAutoscaler\"}'".to_string()),
                (
                    4,
                    "Object 'Kind' is missing in '{\"apiVersion\":\"a/b/c\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}],\"kind\":\"List\"}'"
                        .to_string()
                ),
            ]
        );
        let parsed = source::parse(text);
        let objs = objects_in(0, &parsed);
        let refused = not_objects(&parsed, text, &objs);
        let counted: Vec<_> = objs.iter().map(|o| (o.document, counts_as_object(o, &refused))).collect();
        assert_eq!(counted, [(0, false), (1, false), (2, true)]);
    }

    /// A document's `apiVersion` and `metadata` decode into Go's types or kubectl refuses the
    /// document (`metadataValidatingDecoder`), naming the first value of the wrong type in the
    /// order it meets them: a YAML document's keys sorted (`YAMLToJSON`), a JSON one's as
    /// written. A list is refused whole for its own metadata; its items' metadata is not read
    /// (kubectl sends them, kube-apiserver refuses them). Each message is kubectl 1.33's
    /// (tests/data/malformed/metadata-wrong-types.yaml is compared with kubectl's in
    /// tests/tests/malformed.rs).
    #[test]
    fn metadata_kubectl_cannot_decode_is_refused_in_its_words() {
        let field = |s: &str| format!("json: cannot unmarshal {s}");
        let text = format!(
            "{HPA}---\napiVersion: 5\nkind: HorizontalPodAutoscaler\n\
             ---\nkind: HorizontalPodAutoscaler\napiVersion: v2\nmetadata: {{name: 5, labels: {{a: 1}}}}\n\
             ---\napiVersion: v1\nkind: List\nmetadata: {{resourceVersion: 1}}\nitems:\n- {{apiVersion: v1, kind: ConfigMap}}\n\
             ---\napiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: 5}}}}\n\
             ---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a, labels: {{a: 1, a: x}}, generation: 2.0}}\n"
        );
        assert_eq!(
            not_objects_of(&text),
            [
                (5, field("number into Go struct field metadataOnlyObject.apiVersion of type string")),
                (10, field("number into Go struct field ObjectMeta.metadata.labels of type string")),
                (14, field("number into Go struct field ObjectMeta.metadata.resourceVersion of type string")),
            ]
        );
        let parsed = source::parse(&text);
        let objs = objects_in(0, &parsed);
        let refused = not_objects(&parsed, &text, &objs);
        assert_eq!(refused[0].why, Refusal::Metadata { field: "apiVersion" });
        assert_eq!(refused[1].why, Refusal::Metadata { field: "metadata" });
        let counted: Vec<_> = objs.iter().map(|o| (o.document, counts_as_object(o, &refused))).collect();
        assert_eq!(counted, [(0, true), (1, false), (2, false), (3, false), (4, true), (5, true)]);
        // JSON: the fields as written.
        let json =
            "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": 5, \"labels\": {\"a\": 1}}}\n";
        assert_eq!(
            not_objects_of(json),
            [(1, field("number into Go struct field ObjectMeta.metadata.name of type string"))]
        );
        // A timestamp that is no string ends the decoding (`Time.UnmarshalJSON`'s error).
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 5, creationTimestamp: 5}\n";
        assert_eq!(
            not_objects_of(text),
            [(3, field("number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"))]
        );
    }

    #[test]
    fn binary_is_refused() {
        // A NUL in bytes that are not UTF-8 (in UTF-8 text, go-yaml refuses it: see
        // `utf16_with_a_byte_order_mark_is_decoded`).
        assert!(from_bytes("a".into(), vec![0, 1, 0xff]).unreadable.unwrap().contains("binary"));
    }

    /// Bytes that are not UTF-8 (Windows-1252, a UTF-8-encoded surrogate, a sequence cut short)
    /// are read as kubectl reads them: each maximal subpart of an ill-formed sequence is one
    /// U+FFFD (`kubectl label --local -o json` prints `caf\u{fffd}` and three U+FFFD for
    /// `ED A0 80`), and the file's objects are linted.
    #[test]
    fn bytes_that_are_not_utf8_are_replaced_as_kubectl_replaces_them() {
        let file = from_bytes("a".into(), b"name: caf\xe9 # \xed\xa0\x80\nnote: \xe2\x82".to_vec());
        assert_eq!(file.unreadable, None);
        assert_eq!(file.text, "name: caf\u{fffd} # \u{fffd}\u{fffd}\u{fffd}\nnote: \u{fffd}");
        assert!(file.parsed.error.is_none(), "{:?}", file.parsed.error);
        let names: Vec<_> = file.parsed.documents.iter().map(|d| d.root().to_json()).collect();
        assert_eq!(names, [serde_json::json!({"name": "caf\u{fffd}", "note": "\u{fffd}"})]);
    }

    /// A JSON number past float64's range refuses its document, in `encoding/json`'s words
    /// with the literal as written, at the first such number in text order (a key given twice
    /// included); one in range (`1e-400` is 0, an integer past int64 a float) or in YAML (a
    /// string to go-yaml) does not; a top-level one, or `items` that is one, is a number to
    /// kubectl's other errors. The document is not counted, and no item of a list it holds.
    #[test]
    fn a_json_number_past_float64_refuses_its_document() {
        let float = |n: &str| format!("json: cannot unmarshal number {n} into Go value of type float64");
        let object = |rest: &str| format!("{{\"apiVersion\": \"v1\", \"kind\": \"List\", {rest}}}\n");
        let cases = [
            (object(r#""x": 1e400"#), Some(float("1e400"))),
            (object(r#""x": {"b": -1E400, "a": 2e400}"#), Some(float("-1E400"))),
            (object(r#""x": 1e400, "x": 1"#), Some(float("1e400"))),
            (
                object(r#""items": [{"kind": "A", "apiVersion": "v1", "y": [0, 1.7976931348623159e308]}]"#),
                Some(float("1.7976931348623159e308")),
            ),
            (object(r#""items": [5], "z": 1e999"#), Some(float("1e999"))),
            (object(&format!(r#""x": 1{}"#, "0".repeat(400))), Some(float(&format!("1{}", "0".repeat(400))))),
            (
                object(r#""items": 1e400"#),
                Some(
                    "json: cannot unmarshal number into Go struct field decodeList.items of type []json.RawMessage"
                        .into(),
                ),
            ),
            (object(r#""x": [1e-400, 99999999999999999999999, 1.7976931348623157e308, "1e400"]"#), None),
            (format!("# YAML\n{}", object(r#""x": 1e400"#)), None),
        ];
        for (text, expected) in cases {
            let parsed = source::parse(&text);
            let all = objects_in(0, &parsed);
            let refused = not_objects(&parsed, &text, &all);
            assert_eq!(refused.first().map(|r| r.message.to_string()), expected, "{text}");
            if expected.is_some() {
                assert_eq!(
                    refused[0].why == Refusal::NumberOutOfRange,
                    expected.as_deref().is_some_and(|e| e.ends_with("float64")),
                    "{text}"
                );
                assert!(!all.iter().any(|o| counts_as_object(o, &refused)), "{text}");
            }
        }
        let json = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n-1e400\n";
        assert_eq!(
            not_objects_of(json),
            [(2, "json: cannot unmarshal number into Go value of type unstructured.detector".to_string())]
        );
        // The pruned parse of the linter reads such a document whole.
        let text =
            object(r#""kind": "ConfigMap", "data": {"a": "b"}, "x": [1e400]"#).replace("\"kind\": \"List\", ", "");
        let pruned = source::parse_pruned(&text, &|_| Some(&source::Keep::FIRST_ENTRY));
        let all = objects_in(0, &pruned);
        assert_eq!(not_objects(&pruned, &text, &all).len(), 1, "{text}");
    }

    /// A `kind` written in another case beside an `apiVersion` makes a file a manifest, and its
    /// document is refused for want of a `kind` at that key ([`NotAnObject::miscased_kind`]
    /// names it); without an `apiVersion` (a values file) or with no kind of any case (a
    /// `Chart.yaml`) a file stays silent.
    #[test]
    fn a_kind_written_in_another_case_is_a_refused_manifest() {
        for (text, key, line) in [
            ("apiVersion: v1\nKind: ConfigMap\n", "Kind", 2),
            ("apiVersion: v1\nkind: ''\nKIND: ConfigMap\n", "KIND", 3),
            ("apiVersion: v1\nkind: ~\nkInd: ConfigMap\n", "kInd", 3),
            ("{\"apiVersion\": \"v1\",\n \"Kind\": \"ConfigMap\"}", "Kind", 2),
        ] {
            let parsed = source::parse(text);
            let refused = not_objects(&parsed, text, &objects_in(0, &parsed));
            assert_eq!(refused.len(), 1, "{text}");
            assert_eq!((refused[0].why, refused[0].miscased_kind()), (Refusal::MissingKind, Some(key)), "{text}");
            assert_eq!(line_col(refused[0].node.span().start).0, line, "{text}");
        }
        // An item of a list: reported at the item, the key named.
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, Kind: Secret}\n";
        let parsed = source::parse(text);
        let refused = not_objects(&parsed, text, &objects_in(0, &parsed));
        assert_eq!(refused.iter().map(NotAnObject::miscased_kind).collect::<Vec<_>>(), [Some("Kind")]);
        for text in ["Kind: ConfigMap\n", "apiVersion: v2\nname: chart\n", "apiVersion: v1\nkinds: [a]\n"] {
            assert_eq!(not_objects_of(text), [], "{text:?}");
        }
        // `kind` and `Kind`: an object (its `Kind` is an unknown field).
        assert_eq!(not_objects_of("apiVersion: v1\nkind: ConfigMap\nKind: Secret\n"), []);
    }
}
