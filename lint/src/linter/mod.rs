//! The linter: every object of every input file indexed, every HPA run through kube-apiserver's
//! pipeline (rule HPA000) and the rules of `hpa_core::rules`, findings mapped to the line and
//! column of the field they are about.

pub use hpa_config as config;
pub mod index;
pub mod live;
pub mod report;
pub mod suppress;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasher as _;
use std::sync::OnceLock;

use compact_str::CompactString;
use hpa_core::api::ApiVersion;
use hpa_core::check::{self, Admission, Admitted, Input};
use hpa_core::rules::and_list;
use hpa_core::rules::index::IndexedObject;
use hpa_core::rules::objects;
use hpa_core::rules::{self, Finding, Ignore, ObjectId, ObjectIndex, RuleMeta, Severity};
use rayon::prelude::*;
use serde_json::Value;

use crate::hpa;
use crate::input::{self, ObjectRef, SourceFile};
use crate::source::{self, Node, Parsed, Span};

use self::config::Scope;

/// Everything that decides what the linter reports.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// The front door's options: rule settings (release, gates, controller flags, numeric
    /// bounds), which rules run at which severity (the configuration's levels, `--select`,
    /// `--ignore`), and the request (defaults applied, strict decoding, namespace `default`
    /// or `-n` until a set's namespace is known).
    pub check: check::Options,
    /// `-n/--namespace`: the namespace of objects that name none. Without it, they join the
    /// namespace the other objects of their set name when those all name the same one, and
    /// `default` otherwise, as kubectl does. An object that names a namespace stays in it, as
    /// Helm applies it (`pkg/kube/client.go` `newBuilder`: `DefaultNamespace()` fills only empty
    /// namespaces; `kubectl apply -n` alone refuses such an object, and kube-apiserver does not).
    pub namespace: Option<String>,
    /// Which objects form a manifest set.
    pub scope: Scope,
    /// Whether to keep, for each diagnostic, the source lines the human output shows around
    /// it ([`Diagnostic::shown`]; `-o human`). The other formats need no source text.
    pub excerpts: bool,
}

/// One reported problem, positioned: in a file (a span) or on a live object (`hpa-lint
/// cluster`). Every output format renders both ([`report`]).
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The rule.
    pub rule: &'static RuleMeta,
    /// The severity after configuration.
    pub severity: Severity,
    /// Where it is.
    pub location: Location,
    /// The field path (as written, where it could be mapped; a live object's in
    /// autoscaling/v2, the version the HPAs are read in; empty: the object).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do (a rule's fixed advice is not copied).
    pub help: Option<Cow<'static, str>>,
    /// Other relevant places.
    pub related: Vec<Related>,
    /// A replacement object.
    pub fix: Option<Box<Value>>,
    /// What the human output shows of the source, when asked for ([`LintOptions::excerpts`]).
    pub shown: Option<Box<report::Shown>>,
}

/// Where a diagnostic is: a span of an input file, or an object of a cluster (no file, line
/// or column; the field is the diagnostic's `path`).
#[derive(Debug, Clone)]
pub enum Location {
    /// A span of an input file.
    File {
        /// The file (index into the loaded files).
        file: usize,
        /// The span in that file.
        span: Span,
        /// Whether the field exists (else the span is its nearest existing parent).
        exact: bool,
        /// The object the finding is on (`HorizontalPodAutoscaler shop/web`), if any.
        object: Option<ObjectLabel>,
    },
    /// An object read from a cluster.
    Object(Box<live::ClusterObject>),
}

/// The object a diagnostic is about. Its strings are kept inline up to 24 bytes (most kinds,
/// namespaces and names): a run keeps one label per diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectLabel {
    /// `kind`
    pub kind: CompactString,
    /// `metadata.namespace`, or the namespace it lands in when it names none; `None` for the
    /// kinds without namespaces (`hpa_core::rules::is_cluster_scoped`).
    pub namespace: Option<CompactString>,
    /// `metadata.name`
    pub name: CompactString,
    /// `metadata.generateName` of an object written with it and no name (kube-apiserver names
    /// it when it is created).
    pub generate_name: Option<CompactString>,
    /// 0-based document index.
    pub document: usize,
    /// Index in a `List`.
    pub item: Option<usize>,
}

/// A related place of a diagnostic.
#[derive(Debug, Clone)]
pub struct Related {
    /// Where.
    pub place: Place,
    /// A short label (a rule's fixed text is not copied).
    pub message: Cow<'static, str>,
}

/// A related place: a span of an input file, or a field of a live object.
#[derive(Debug, Clone)]
pub enum Place {
    /// A span of an input file.
    File {
        /// The file (index into the loaded files).
        file: usize,
        /// The span.
        span: Span,
    },
    /// A field of an object read from a cluster.
    Object(Box<(live::ClusterObject, String)>),
}

/// A remark on how the input was read: a directory split into per-file sets, a namespace
/// assumed (files); a kind a cluster did not serve or refused, fields a release does not know
/// (`hpa-lint cluster`, which says which with `kind`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// `absent`, `forbidden`, `failed`, `discovery`, `restarted` or `ignored` for a cluster's
    /// notes (see [`live::lint_inventory`]); none for files'.
    pub kind: Option<&'static str>,
    /// The sentence.
    pub message: String,
}

impl Note {
    /// A note of files (no kind).
    pub fn text(message: String) -> Note {
        Note { kind: None, message }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Diagnostic {
    /// The file and span, for a diagnostic in a file.
    pub fn file_span(&self) -> Option<(usize, Span)> {
        match &self.location {
            Location::File { file, span, .. } => Some((*file, *span)),
            Location::Object(_) => None,
        }
    }
}

/// What a lint run found.
#[derive(Debug, Default)]
pub struct LintResults {
    /// Diagnostics, sorted by file, position and rule (a cluster's: by object, path and
    /// rule).
    pub diagnostics: Vec<Diagnostic>,
    /// How many objects were read.
    pub objects: usize,
    /// How many of them are HPAs.
    pub hpas: usize,
    /// Findings suppressed by `hpa-lint.dev/ignore` annotations.
    pub suppressed: usize,
    /// Remarks on how the input was read.
    pub notes: Vec<Note>,
}

impl ObjectLabel {
    /// `HorizontalPodAutoscaler shop/web`, `ClusterRole web`, `HorizontalPodAutoscaler
    /// shop/web-*` for `generateName: web-` (as [`ObjectId`]'s `Display`).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let _ =
            objects::write_object(&mut out, &self.kind, self.namespace.as_deref().unwrap_or(""), &self.shown_name());
        out
    }

    /// The name as outputs show it: `metadata.name`, or `web-*` for `generateName: web-` (as
    /// [`ObjectId`]'s `Display`); empty for an object with neither.
    pub fn shown_name(&self) -> Cow<'_, str> {
        match &self.generate_name {
            Some(prefix) => format!("{prefix}*").into(),
            None => self.name.as_str().into(),
        }
    }
}

/// An object of the input, as the later passes know it (no tree is kept).
struct ObjectInfo {
    /// Its identity; the namespace is empty until its set's namespace is known when the object
    /// names none ([`Namespace::Unwritten`]).
    id: ObjectId,
    namespace: Namespace,
    document: usize,
    item: Option<usize>,
    /// A later definition of an object identical to the one before it (in its file, as far as
    /// the first pass reads; or in its set, as kube-apiserver would store it: `DefinedAgain`):
    /// its findings would repeat that one's, so it is not checked.
    repeat: bool,
}

/// What finding an object defined twice in a set needs of it, computed while its tree is hot
/// and kept apart from [`ObjectInfo`] (a few bytes each, read in one sweep): the set-level pass
/// reads no string unless two keys meet.
#[derive(Debug, Clone, Copy)]
struct IdentityKeys {
    /// [`Keys::name`] of its API group, kind and name (0 when it lacks a kind or a name: it is
    /// no object one can define twice).
    name: u64,
    /// [`Keys::namespace`] of its written namespace (0 when it names none).
    namespace: u64,
    /// Where its namespace comes from.
    state: Namespace,
}

impl IdentityKeys {
    /// [`Keys::identity`] of the object, in a set whose namespace has key `set_namespace` (where
    /// the objects that name none land).
    fn key(&self, set_namespace: u64) -> u64 {
        let namespace = match self.state {
            Namespace::Written => self.namespace,
            Namespace::Unwritten => set_namespace,
            Namespace::None => 0,
        };
        Keys::identity(self.name, namespace)
    }
}

/// Where an object's namespace comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Namespace {
    /// `metadata.namespace` is written.
    Written,
    /// It names none: it lands in its set's namespace ([`set_namespace`]).
    Unwritten,
    /// Its kind has no namespace.
    None,
}

impl ObjectInfo {
    fn label(&self) -> ObjectLabel {
        ObjectLabel {
            kind: self.id.kind.as_str().into(),
            namespace: (self.namespace != Namespace::None).then(|| self.id.namespace.as_str().into()),
            name: self.id.written_name().into(),
            generate_name: self.id.generate_name().map(CompactString::from),
            document: self.document,
            item: self.item,
        }
    }
}

/// An HPA kube-apiserver admits, kept (until its group is done) for the rules that need the
/// other objects: the front door's report is continued with the set's index.
struct Deferred {
    file: usize,
    /// Its place in its file's [`FileResult::objects`].
    position: usize,
    version: Option<ApiVersion>,
    ignore: Ignore,
    // The objects stay where admission put them (boxed): a group keeps hundreds of these until
    // its cross-object rules have run, and they are the larger part of what it keeps.
    admitted: Admitted,
}

/// What the first pass found in one file.
#[derive(Default)]
struct FileResult {
    objects: Vec<ObjectInfo>,
    hpas: usize,
    /// HPAs (place in `objects`, target API group, kind and name, `minReplicas`) for the
    /// conflicting-HPA rule.
    targets: Vec<(usize, String, String, String, i32)>,
    deferred: Vec<Deferred>,
    /// Index entries, with the place of their object in `objects`.
    indexed: Vec<(usize, IndexedObject)>,
    /// Each object's [`IdentityKeys`], in the order of `objects`.
    keys: Vec<IdentityKeys>,
    /// The namespaces the file's objects write (each once), and whether an object that has a
    /// namespace names none.
    namespaces: Vec<String>,
    unwritten: bool,
    /// How many of `objects` are identical repeats ([`ObjectInfo::repeat`]).
    repeats: usize,
    diags: Vec<Diagnostic>,
    suppressed: usize,
    /// Notes about the file (skipped: [`input::skip_unparsable_non_manifest`]).
    notes: Vec<Note>,
}

/// The HPA a finding is about, for positions and suppression.
struct Subject<'n> {
    file: usize,
    node: Node<'n>,
    version: Option<ApiVersion>,
    label: ObjectLabel,
    ignore: &'n Ignore,
}

/// Finds another object of the set: its file, node and label.
type FindObject<'a> = dyn Fn(&ObjectId) -> Option<(usize, Node<'a>, ObjectLabel)> + 'a;

/// Seeded hashes of object identities (a `RandomState` per run: input cannot choose
/// collisions). Equal keys are always confirmed by comparing the strings.
struct Keys(std::collections::hash_map::RandomState);

impl Keys {
    /// The key of an API group ([`ObjectId::group`]: the version aside), a kind and a name.
    fn name(&self, group: &str, kind: &str, name: &str) -> u64 {
        self.0.hash_one((group, kind, name))
    }

    /// The key of a namespace.
    fn namespace(&self, namespace: &str) -> u64 {
        self.0.hash_one(namespace)
    }

    /// The key of an identity: its name key with its namespace key (0: none).
    fn identity(name_key: u64, namespace_key: u64) -> u64 {
        name_key ^ namespace_key.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    }
}

/// A hasher for keys that are already seeded hashes ([`Keys`]): it passes them through.
#[derive(Default)]
struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// A map by [`Keys`] key.
type ByKey<V> = HashMap<u64, V, std::hash::BuildHasherDefault<PassThrough>>;

/// An object's identity, its namespace left empty when it names none (its set's namespace is
/// not known yet: [`resolve_namespaces`]) and for kinds without namespaces.
fn object_id(obj: &ObjectRef<'_>) -> (ObjectId, Namespace) {
    let api_version = obj.api_version().unwrap_or_default();
    let kind = obj.kind().unwrap_or_default();
    let (namespace, state) = if rules::is_cluster_scoped(api_version, kind) {
        ("", Namespace::None)
    } else {
        match obj.namespace().filter(|n| !n.is_empty()) {
            Some(n) => (n, Namespace::Written),
            None => ("", Namespace::Unwritten),
        }
    };
    let id = match (obj.name().filter(|n| !n.is_empty()), obj.generate_name().filter(|p| !p.is_empty())) {
        // Named by kube-apiserver when created: an object of its own, whatever else has the
        // prefix (`kubectl create` of two such objects makes two).
        (None, Some(prefix)) => {
            let nth = format!("{}.{}.{}", obj.file, obj.document, obj.item.map_or(0, |i| i + 1));
            ObjectId::generated(api_version, kind, namespace, prefix, &nth)
        }
        (name, _) => ObjectId {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.unwrap_or_default().to_string(),
        },
    };
    (id, state)
}

/// Lints loaded files (parsed or not: the linter parses each file itself).
///
/// The files are grouped into the groups a manifest set can span (a directory, every file, or
/// one file; see [`Scope`]), and each group is linted on its own: memory follows the largest
/// group, not the whole input. Within a group:
///
/// 1. per file, in parallel: parse (of objects other than HPAs, what the index reads);
///    decode, default and validate every HPA (HPA000); run the rules that need only the HPA;
///    prepare the index entries of the other objects;
/// 2. form the manifest sets (a directory that defines an object twice is split into its
///    files) and index each;
/// 3. per HPA, in parallel: the rules that need the other objects of its set, their findings
///    positioned on the first pass's trees (no file is parsed twice); the trees are dropped.
///
/// Each input is read when its group is linted (standard input is read already, `stdin`):
/// no file's text outlives its group. Returns the outcome, the name of every input (the
/// diagnostics' `file` indexes them) and the inputs that could not be read.
pub fn lint_inputs(
    origins: &[input::Origin],
    stdin: Option<&[u8]>,
    opts: &LintOptions,
) -> (LintResults, Vec<String>, Vec<input::InputError>) {
    let names: Vec<String> = origins.iter().map(input::origin_name).collect();
    let parts: Vec<GroupResult> =
        groups(&names, opts.scope).par_iter().map(|g| lint_group(origins, stdin, g, opts)).collect();
    let mut outcome = LintResults {
        diagnostics: Vec::with_capacity(parts.iter().map(|(part, _)| part.diagnostics.len()).sum()),
        ..LintResults::default()
    };
    let mut errors = Vec::new();
    for (mut part, mut errs) in parts {
        errors.append(&mut errs);
        outcome.diagnostics.append(&mut part.diagnostics);
        outcome.notes.append(&mut part.notes);
        outcome.objects += part.objects;
        outcome.hpas += part.hpas;
        outcome.suppressed += part.suppressed;
    }
    // (Every diagnostic of files is in a file.)
    let key = |d: &Diagnostic| d.file_span().map(|(file, span)| (file, span.start.line, span.start.col));
    outcome.diagnostics.sort_by(|a, b| (key(a), a.rule.id).cmp(&(key(b), b.rule.id)));
    (outcome, names, errors)
}

/// The files of each group, in input order: by directory (standard input alone), all
/// together, or one by one.
fn groups(names: &[String], scope: Scope) -> Vec<Vec<usize>> {
    match scope {
        Scope::All => vec![(0..names.len()).collect()],
        Scope::File => (0..names.len()).map(|i| vec![i]).collect(),
        Scope::Directory => {
            let mut dirs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, name) in names.iter().enumerate() {
                let key = if *name == input::STDIN_NAME {
                    format!("\0{i}")
                } else {
                    std::path::Path::new(name).parent().map(|p| p.display().to_string()).unwrap_or_default()
                };
                dirs.entry(key).or_default().push(i);
            }
            dirs.into_values().collect()
        }
    }
}

/// How many files a thread parses before it checks them ([`lint_group`]), at most. When it
/// came in, alternating the parser and the checks file by file missed the instruction cache
/// a fifth more (CHANGELOG); at the code of 2026-11-28 cachegrind counts as many misses for 1
/// to 64 files, and it stays because a build without it laid its code out worse (README,
/// *Speed*).
const PARSE_BATCH: usize = 8;

/// What linting a group gives: the outcome and the inputs that could not be read.
type GroupResult = (LintResults, Vec<input::InputError>);

/// Lints one group of inputs (see [`lint_inputs`]); returns what it found and the inputs it
/// could not read.
fn lint_group(origins: &[input::Origin], stdin: Option<&[u8]>, members: &[usize], opts: &LintOptions) -> GroupResult {
    let deferring = opts.check.rules.needs_world();
    let keys = Keys(std::collections::hash_map::RandomState::new());
    // Files are read and parsed a few at a time ([`PARSE_BATCH`]), then checked. Of objects
    // other than HPAs, only what the first pass reads is built; the trees stay until the group
    // is done, for the positions of cross-object findings (a file is never parsed twice: what
    // those findings point at is what the first pass reads, see `index::first_pass_needs`).
    let mut errors = Vec::new();
    // (Never fewer batches than threads: a group of a few large files keeps every thread busy.)
    let batch = PARSE_BATCH.min(members.len().div_ceil(rayon::current_num_threads())).max(1);
    type FirstPass = (SourceFile, Result<(FileResult, Parsed), input::InputError>);
    let checked: Vec<FirstPass> = members
        .par_chunks(batch)
        .flat_map_iter(|batch| {
            let parsed: Vec<(usize, SourceFile, Result<Parsed, input::InputError>)> = batch
                .iter()
                .map(|&i| match input::read_unparsed(&origins[i], stdin) {
                    Ok(f) => {
                        let parsed =
                            input::contained(&f.name, || source::parse_pruned(&f.text, &index::first_pass_needs));
                        (i, f, parsed)
                    }
                    Err(e) => {
                        let name = input::origin_name(&origins[i]);
                        (i, SourceFile::from_text(name, String::new()), Err(e))
                    }
                })
                .collect();
            parsed.into_iter().map(|(i, f, parsed)| {
                let result = parsed.and_then(|parsed| {
                    input::contained(&f.name, || {
                        let r = first_pass(i, &origins[i], &f, &parsed, opts, deferring, &keys);
                        (r, parsed)
                    })
                });
                (f, result)
            })
        })
        .collect();
    let mut owned_files: Vec<SourceFile> = Vec::with_capacity(members.len());
    let mut per_file: Vec<FileResult> = Vec::with_capacity(members.len());
    let mut trees: Vec<Parsed> = Vec::with_capacity(members.len());
    for (f, result) in checked {
        owned_files.push(f);
        let (r, tree) = result.unwrap_or_else(|e| {
            errors.push(e);
            (FileResult::default(), Parsed::default())
        });
        per_file.push(r);
        trees.push(tree);
    }
    let files = &owned_files;

    // Objects that name no namespace land in their set's. Duplicate definitions are looked
    // for with the group's namespace (a directory is one set unless it defines an object twice).
    clear_custom_cluster_scoped(&mut per_file);
    let group_namespace = set_namespace(per_file.iter(), opts);
    resolve_namespaces(&mut per_file, &|_| group_namespace.name.as_str());

    // The sets: the group, or each file when the group is a directory that defines an object
    // twice (alternatives, not objects applied together).
    let mut outcome = LintResults::default();
    let duplicate = if opts.scope == Scope::Directory && members.len() > 1 {
        duplicate_definition(&per_file, keys.namespace(&group_namespace.name))
    } else {
        None
    };
    let split = match duplicate {
        Some((what, a, b)) => {
            // `a` and `b` are positions in the group, as `files` is. (The files may have been
            // named one by one: the note speaks of them, not of their directory.)
            outcome.notes.push(Note::text(format!(
                "{what} is defined in both {} and {}, so they and the files beside them are not one set of objects applied together: each file is checked with its own objects only (use --scope all to match across them)",
                files[a].name, files[b].name
            )));
            true
        }
        _ => false,
    };
    let set_of = |k: usize| if split { k } else { 0 };
    let sets = if split { members.len() } else { 1 };
    let namespaces: Vec<SetNamespace> = if split {
        let each: Vec<SetNamespace> = per_file.iter().map(|r| set_namespace(std::iter::once(r), opts)).collect();
        resolve_namespaces(&mut per_file, &|k| each[k].name.as_str());
        each
    } else {
        vec![group_namespace]
    };
    for (k, r) in per_file.iter_mut().enumerate() {
        let labels = r.diags.iter_mut().filter_map(|d| match &mut d.location {
            Location::File { object, .. } => object.as_mut(),
            Location::Object(_) => None,
        });
        for label in labels {
            if label.namespace.as_deref() == Some("") {
                label.namespace = Some(namespaces[set_of(k)].name.as_str().into());
            }
        }
    }
    // An object defined again in its set (a stream concatenated twice, a file given twice with
    // `--scope all`, a chart's object rendered by two templates) is one object, and what is
    // stored is its last definition, as `kubectl apply` (and Helm) leaves it: the index keeps
    // that one, and a note says so. A definition the same as the one before it, as
    // kube-apiserver would store it, is not checked again. Two definitions are compared whole
    // (the first pass keeps only some fields of most kinds: a file is read whole again for
    // those, which only a file with repeats costs), with the namespace each lands in (written
    // in one, taken from the set in the other, is no difference).
    let namespace_keys: Vec<u64> = namespaces.iter().map(|ns| keys.namespace(&ns.name)).collect();
    let mut whole: HashMap<usize, Parsed> = HashMap::new();
    let same_content = |a: (usize, usize), b: (usize, usize)| {
        let mut object = |(k, position): (usize, usize)| {
            let o = &per_file[k].objects[position];
            let tree = if index::first_pass_needs(&o.id.kind).is_none() {
                &trees[k]
            } else {
                &*whole.entry(k).or_insert_with(|| source::parse(&files[k].text))
            };
            input::object_node(tree, o.document, o.item).map(|node| stored(node, &o.id))
        };
        let first = object(a);
        matches!((first, object(b)), (Some(a), Some(b)) if a == b)
    };
    let again = defined_again(&per_file, set_of, &namespace_keys, same_content);
    drop(whole);
    // A copy the first pass could not tell from the definition before it (in another file, or
    // with the namespace written in one only) was checked: its findings repeat the other's.
    for &(k, position) in &again.copies {
        let r = &mut per_file[k];
        let o = &mut r.objects[position];
        if o.repeat {
            continue;
        }
        o.repeat = true;
        r.repeats += 1;
        let (document, item) = (o.document, o.item);
        if o.id.kind == hpa_core::api::KIND {
            r.hpas = r.hpas.saturating_sub(1);
        }
        r.diags.retain(|d| match &d.location {
            Location::File { object: Some(l), .. } => (l.document, l.item) != (document, item),
            _ => true,
        });
        r.deferred.retain(|d| d.position != position);
    }
    let set_files = |set: usize| -> Vec<usize> { (0..members.len()).filter(|&k| set_of(k) == set).collect() };
    for (set, repeated) in again.repeats.iter().enumerate() {
        if !repeated.is_empty() {
            let name = set_name(files, &set_files(set), opts.scope);
            outcome.notes.push(Note::text(repeats_note(&name, repeated, &per_file, files)));
        }
    }
    let mut indexes: Vec<ObjectIndex> = (0..sets).map(|_| ObjectIndex::default()).collect();
    outcome.diagnostics.reserve(per_file.iter().map(|r| r.diags.len()).sum());
    for (k, r) in per_file.iter_mut().enumerate() {
        outcome.objects += r.objects.len() - r.repeats;
        outcome.hpas += r.hpas;
        outcome.suppressed += r.suppressed;
        outcome.diagnostics.append(&mut r.diags);
        outcome.notes.append(&mut r.notes);
        for (position, entry) in r.indexed.drain(..) {
            if !again.out_of_index(k, position) {
                indexes[set_of(k)].insert_first(entry);
            }
        }
    }
    // HPAs after every other object of their set: a target kind written all in lowercase is
    // filed under the kind the set defines (`Objects::mapped_kind`: `widget` of a set whose
    // CustomResourceDefinition defines `Widget`), whichever file defines it.
    for (k, r) in per_file.iter_mut().enumerate() {
        let index = &mut indexes[set_of(k)];
        for (position, group, kind, name, min) in r.targets.drain(..) {
            if !again.out_of_index(k, position) {
                let kind = hpa_core::rules::Objects::mapped_kind(&*index, &group, &kind).to_string();
                index.insert_hpa(r.objects[position].id.clone(), (&group, &kind, &name), min, ());
            }
        }
    }

    // An object's node in its file's first-pass tree, by its document and list item.
    let node_of = |k: usize, o: &ObjectInfo| input::object_node(&trees[k], o.document, o.item);
    let locations: Vec<OnceLock<HashMap<&ObjectId, (usize, &ObjectInfo)>>> =
        (0..sets).map(|_| OnceLock::new()).collect();
    let find = |set: usize, id: &ObjectId| -> Option<(usize, Node<'_>, ObjectLabel)> {
        let map = locations[set].get_or_init(|| {
            let in_set = || per_file.iter().enumerate().filter(|(k, _)| set_of(*k) == set);
            let mut map = HashMap::with_capacity(in_set().map(|(_, r)| r.objects.len()).sum());
            for (k, r) in in_set() {
                // An object defined more than once is found where the index's definition is.
                for (_, o) in r.objects.iter().enumerate().filter(|(p, _)| !again.out_of_index(k, *p)) {
                    map.entry(&o.id).or_insert((k, o));
                }
            }
            map
        });
        let (k, o) = map.get(id)?;
        Some((members[*k], node_of(*k, o)?, o.label()))
    };
    // The objects whose namespace was assumed, per set, when a note may have to say so.
    let assumed: Vec<Option<HashSet<&ObjectId>>> = (0..sets)
        .map(|set| {
            (namespaces[set].assumed() && namespaces[set].unwritten).then(|| {
                per_file
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| set_of(*k) == set)
                    .flat_map(|(_, r)| r.objects.iter().filter(|o| o.namespace == Namespace::Unwritten).map(|o| &o.id))
                    .collect()
            })
        })
        .collect();
    let deferred: Vec<(usize, &Deferred)> =
        per_file.iter().enumerate().flat_map(|(k, r)| r.deferred.iter().map(move |d| (k, d))).collect();
    type Checked = (Vec<Diagnostic>, usize, bool);
    let results: Vec<Result<Checked, input::InputError>> = deferred
        .par_iter()
        .map(|&(k, d)| {
            input::contained(&files[k].name, || {
                let object = &per_file[k].objects[d.position];
                let index = &indexes[set_of(k)];
                let findings = object_rules(d, &object.id, index, opts);
                let depends = assumed[set_of(k)]
                    .as_ref()
                    .is_some_and(|assumed| link_depends_on_namespace(d, object, index, &findings, assumed));
                if findings.is_empty() {
                    return (Vec::new(), 0, depends);
                }
                let Some(node) = node_of(k, object) else { return (Vec::new(), 0, depends) };
                let subject =
                    Subject { file: d.file, node, version: d.version, label: object.label(), ignore: &d.ignore };
                let (diags, suppressed) = position_findings(findings, &subject, &|id| find(set_of(k), id));
                (diags, suppressed, depends)
            })
        })
        .collect();
    let mut depended = vec![false; sets];
    outcome.diagnostics.reserve(results.iter().map(|r| r.as_ref().map_or(0, |(diags, ..)| diags.len())).sum());
    for (result, &(k, _)) in results.into_iter().zip(&deferred) {
        match result {
            Ok((diags, suppressed, depends)) => {
                outcome.diagnostics.extend(diags);
                outcome.suppressed += suppressed;
                depended[set_of(k)] |= depends;
            }
            Err(e) => errors.push(e),
        }
    }
    for (set, ns) in namespaces.iter().enumerate() {
        if depended[set] {
            outcome.notes.extend(ns.note(&set_name(files, &set_files(set), opts.scope)).map(Note::text));
        }
    }
    // What `-o human` shows of the files, taken while their text is here: the texts go with
    // the group.
    if opts.excerpts {
        let file_of = |i: usize| members.binary_search(&i).ok().map(|k| &owned_files[k]);
        for d in &mut outcome.diagnostics {
            d.shown = report::shown(d, &file_of).map(Box::new);
        }
    }
    (outcome, errors)
}

/// The first pass over one file (see [`lint_inputs`]).
fn first_pass(
    i: usize,
    origin: &input::Origin,
    f: &SourceFile,
    parsed: &Parsed,
    opts: &LintOptions,
    deferring: bool,
    keys: &Keys,
) -> FileResult {
    let (mut r, mut problems) =
        input::walk(i, f, parsed, |contents| first_pass_objects(i, contents, opts, deferring, keys));
    r.notes.extend(input::skip_unparsable_non_manifest(origin, f, &mut problems).map(Note::text));
    // What the file holds that kubectl cannot read, refuses or never sends, ahead of the rest.
    r.diags.splice(0..0, file_level_diagnostics(i, parsed, problems));
    r
}

/// The objects of a file in the first pass: a scalar, a sequence or a document without a kind
/// is no object (reported with the file when the file holds objects), nor counted as one.
fn first_pass_objects(
    i: usize,
    contents: &input::FileObjects<'_>,
    opts: &LintOptions,
    deferring: bool,
    keys: &Keys,
) -> FileResult {
    let mut r = FileResult::default();
    let objects = &contents.objects;
    // The latest definition of each object of the file, by API group, kind, namespace as written
    // and name:
    // a definition identical to the one before it is a repeat (`A, B, A` applies A last).
    r.objects.reserve_exact(objects.len());
    r.keys.reserve_exact(objects.len());
    let mut first: ByKey<(usize, Node<'_>)> = ByKey::with_capacity_and_hasher(objects.len(), Default::default());
    for obj in contents.counted() {
        let (id, namespace) = object_id(obj);
        // An object without a name (or named by kube-apiserver from a prefix) cannot be defined
        // twice.
        let identifiable = !id.kind.is_empty() && !id.written_name().is_empty();
        let identity = IdentityKeys {
            name: if identifiable { keys.name(id.group(), &id.kind, &id.name) } else { 0 },
            namespace: if namespace == Namespace::Written { keys.namespace(&id.namespace) } else { 0 },
            state: namespace,
        };
        r.keys.push(identity);
        let mut info = ObjectInfo { id, namespace, document: obj.document, item: obj.item, repeat: false };
        if identifiable {
            let key = Keys::identity(identity.name, identity.namespace);
            match first.entry(key) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let (earlier, node) = *e.get();
                    info.repeat = r.objects[earlier].id == info.id && same_object(node, obj.node);
                    if !info.repeat {
                        e.insert((r.objects.len(), obj.node));
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((r.objects.len(), obj.node));
                }
            }
        }
        if info.repeat {
            // Checking it again would repeat every finding of the definition before it.
            r.repeats += 1;
            r.objects.push(info);
            continue;
        }
        let position = r.objects.len();
        if obj.is_hpa() {
            r.hpas += 1;
            first_pass_hpa(obj, &info, position, opts, deferring, &mut r);
        } else {
            if obj.kind().is_some() {
                r.indexed.extend(index::prepare(info.id.clone(), obj.node).map(|e| (position, e)));
            }
            let findings = check::check_other(obj.api_version().unwrap_or(""), obj.kind().unwrap_or(""), &opts.check);
            if !findings.is_empty() {
                let ignore = suppress::from_node(obj.node);
                let subject = Subject { file: i, node: obj.node, version: None, label: info.label(), ignore: &ignore };
                let findings = findings.into_iter().map(|f| (f, false)).collect();
                let (diags, suppressed) = position_findings(findings, &subject, &|_| None);
                r.diags.extend(diags);
                r.suppressed += suppressed;
            }
        }
        r.objects.push(info);
    }
    (r.namespaces, r.unwritten) = written_namespaces(&r.objects);
    r
}

/// The namespaces a file's objects write (each once), and whether an object that has a
/// namespace names none ([`FileResult::namespaces`], [`FileResult::unwritten`]).
fn written_namespaces(objects: &[ObjectInfo]) -> (Vec<String>, bool) {
    let mut namespaces: Vec<String> = Vec::new();
    for o in objects.iter().filter(|o| o.namespace == Namespace::Written) {
        if !namespaces.contains(&o.id.namespace) {
            namespaces.push(o.id.namespace.clone());
        }
    }
    (namespaces, objects.iter().any(|o| o.namespace == Namespace::Unwritten))
}

/// Decodes one HPA and takes it through the front door without the other objects (what needs
/// only the HPA), and keeps it for the cross-object rules when kube-apiserver admits it.
fn first_pass_hpa(
    obj: &ObjectRef<'_>,
    info: &ObjectInfo,
    position: usize,
    opts: &LintOptions,
    deferring: bool,
    r: &mut FileResult,
) {
    let version = obj.api_version().and_then(ApiVersion::parse);
    // Keys written twice, which kubectl collapses before kube-apiserver sees them. None (nearly
    // every HPA) means no mapping gives a key twice: the decoder need not look again.
    let twice = source::read::written_twice(obj.node);
    let written = hpa::written_object(obj, &opts.check, twice.is_empty());
    let duplicate_keys: Vec<&str> = twice.iter().map(|t| t.0.as_str()).collect();
    let input = Input { object: written, old: None, id: Some(&info.id), world: None, duplicate_keys: &duplicate_keys };
    let report = check::check(input, &opts.check);
    let ignore = suppress::from_node(obj.node);
    let check::Report { admission, findings } = report;
    let findings = about_keys(&admission, findings);
    let subject = Subject { file: obj.file, node: obj.node, version, label: info.label(), ignore: &ignore };
    let (mut diags, suppressed) = position_findings(findings, &subject, &|_| None);
    // Beside each key kubectl keeps, the ones it drops (one finding per key, in order).
    let kept = diags.iter_mut().filter(|d| d.rule.id == rules::DUPLICATE_KEY.id);
    for (d, (_, dropped)) in kept.zip(&twice) {
        d.related.extend(dropped.iter().map(|span| Related {
            place: Place::File { file: obj.file, span: *span },
            message: "written first here: dropped".into(),
        }));
    }
    r.diags.extend(diags);
    r.suppressed += suppressed;
    // Only an HPA kube-apiserver accepts exists to conflict with another (HPA407), and only
    // one that counts as scaling its target scales it (`rules::counted_target`).
    if let Admission::Admitted(admitted) = admission
        && admitted.allowed()
    {
        let spec = &admitted.effective().spec;
        let release = opts.check.settings.gates().version();
        let written = admitted.original.api_version();
        if let Some(target) = rules::counted_target(written.as_str(), &spec.scale_target_ref, release) {
            r.targets.push((
                position,
                target.0.to_string(),
                target.1.to_string(),
                target.2.to_string(),
                spec.min_replicas.unwrap_or(1),
            ));
        }
        if deferring {
            r.deferred.push(Deferred { file: obj.file, position, version, ignore, admitted });
        }
    }
}

/// A report's findings, each with whether it is about a key (an unknown or duplicate field
/// the decoder refused, or a key the text writes twice: pointed at by its key). The report
/// holds one `HPA000` finding per decode error, in order.
fn about_keys(admission: &Admission, findings: Vec<Finding>) -> Vec<(Finding, bool)> {
    let mut strict = match admission {
        Admission::Undecodable { errors, .. } => errors.iter().map(|e| e.kind.is_strict()).collect(),
        _ => Vec::new(),
    }
    .into_iter();
    findings
        .into_iter()
        .map(|f| {
            let key = (f.rule.id == rules::INVALID.id && strict.next().unwrap_or(false))
                || f.rule.id == rules::DUPLICATE_KEY.id;
            (f, key)
        })
        .collect()
}

/// The rules that need the other objects of the set, for an admitted HPA: its report continued
/// with the set's index.
fn object_rules(d: &Deferred, id: &ObjectId, index: &ObjectIndex, opts: &LintOptions) -> Vec<(Finding, bool)> {
    d.admitted.check_world(Some(id), index, &opts.check).into_iter().map(|f| (f, false)).collect()
}

/// Turns findings into diagnostics: severity after configuration, suppression, positions of
/// the finding and its related places. Returns them and the number suppressed.
fn position_findings<'a>(
    findings: Vec<(Finding, bool)>,
    h: &Subject<'a>,
    find: &FindObject<'a>,
) -> (Vec<Diagnostic>, usize) {
    let mut out = Vec::with_capacity(findings.len());
    let mut suppressed = 0;
    for (f, about_key) in findings {
        // The object the finding is located on, when not the HPA (an object not found: the HPA).
        let other = match &f.location {
            rules::FindingField::Hpa(_) => None,
            rules::FindingField::Object { id, .. } => find(id),
        };
        let node = other.as_ref().map_or(h.node, |(_, node, _)| *node);
        let on_hpa = other.is_none();
        // The HPA's annotation, or that of the object the finding is located on.
        if rules::suppressed(&f, h.ignore, |_| (!on_hpa).then(|| suppress::from_node(node))) {
            suppressed += 1;
            continue;
        }
        // The front door gave it its configured severity.
        let Finding { rule, severity, location, message, help, related, fix } = f;
        let (file, label) = match other {
            Some((fi, _, label)) => (fi, label),
            None => (h.file, h.label.clone()),
        };
        let path = match location {
            rules::FindingField::Hpa(path) => path,
            rules::FindingField::Object { path, .. } if !on_hpa => path,
            rules::FindingField::Object { .. } => String::new(),
        };
        let version = if on_hpa { h.version } else { None };
        // The field as the user wrote it (an autoscaling/v1 CPU target, an annotation), not the
        // internal one.
        let (span, exact, resolved) = hpa::position_and_path(node, version, &path, about_key);
        let path = resolved.unwrap_or(path);
        let related = related
            .into_iter()
            .filter_map(|(loc, message)| {
                let (fi, node, path, v) = match loc {
                    rules::FindingField::Hpa(p) => (h.file, h.node, p, h.version),
                    rules::FindingField::Object { id, path } => {
                        let (fi, node, _) = find(&id)?;
                        (fi, node, path, None)
                    }
                };
                Some(Related { place: Place::File { file: fi, span: hpa::position(node, v, &path, false).0 }, message })
            })
            .collect();
        out.push(Diagnostic {
            rule,
            severity,
            location: Location::File { file, span, exact, object: Some(label) },
            path,
            message,
            help,
            related,
            fix: fix.map(|x| Box::new(x.replacement)),
            shown: None,
        });
    }
    (out, suppressed)
}

// === namespaces ===

/// The namespace of a set's objects that name none.
#[derive(Debug, Clone)]
struct SetNamespace {
    name: String,
    choice: NamespaceChoice,
    /// Whether some object of the set that has a namespace names none.
    unwritten: bool,
}

/// How [`SetNamespace::name`] was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NamespaceChoice {
    /// `-n/--namespace`.
    Given,
    /// The one namespace the set's other objects name (`helm template` and `kubectl kustomize`
    /// write it on some objects and leave it out of others; all land in it).
    Named,
    /// `default`, as kubectl does, since the other objects name none or several (these).
    Default(Vec<String>),
}

impl SetNamespace {
    /// Whether the namespace was assumed rather than given.
    fn assumed(&self) -> bool {
        self.choice != NamespaceChoice::Given
    }

    /// The note saying which namespace was assumed, for `set` (a file, a directory, ...);
    /// none when `-n` gave it (nothing was assumed).
    fn note(&self, set: &str) -> Option<String> {
        let name = &self.name;
        Some(match &self.choice {
            NamespaceChoice::Given => return None,
            NamespaceChoice::Named => format!(
                "{set}: objects that name no namespace were taken to be in namespace {name:?}, the one the others name (where `kubectl apply -n {name}` or `helm template -n {name}` puts them); pass -n/--namespace if they belong elsewhere"
            ),
            NamespaceChoice::Default(named) => {
                const LISTED: usize = 5;
                let mut list = named.iter().take(LISTED).cloned().collect::<Vec<_>>().join(", ");
                if named.len() > LISTED {
                    list.push_str(&format!(" and {} more", named.len() - LISTED));
                }
                format!(
                    "{set}: objects that name no namespace were taken to be in namespace \"default\", as kubectl does, while the others name {}; pass -n/--namespace to place them",
                    if named.is_empty() { "none" } else { &list }
                )
            }
        })
    }
}

/// The namespace of the objects of a set (its files' first-pass results) that name none:
/// `-n/--namespace`; else the one namespace the others name; else `default`, as kubectl does.
fn set_namespace<'a>(files: impl Iterator<Item = &'a FileResult>, opts: &LintOptions) -> SetNamespace {
    let mut named: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut unwritten = false;
    for r in files {
        named.extend(r.namespaces.iter().map(String::as_str));
        unwritten |= r.unwritten;
    }
    let (name, choice) = match (&opts.namespace, named.len()) {
        (Some(given), _) => (given.clone(), NamespaceChoice::Given),
        (None, 1) => (named.iter().map(|n| (*n).to_string()).collect(), NamespaceChoice::Named),
        (None, _) => {
            ("default".to_string(), NamespaceChoice::Default(named.iter().map(|n| (*n).to_string()).collect()))
        }
    };
    SetNamespace { name, choice, unwritten }
}

/// Takes the namespace away from the objects of the kinds the group's
/// CustomResourceDefinitions make cluster-scoped (`spec.scope: Cluster`, by API group and kind;
/// [`rules::is_cluster_scoped`] knows only the kinds every cluster has): whatever namespace
/// they write or their set's, they have none, as kube-apiserver stores them (`BeforeCreate`
/// clears a cluster-scoped object's namespace). So they are never printed in one, nor met by
/// an HPA's target lookup in its namespace, where the controller looks for them in vain
/// (HPA412 says so).
fn clear_custom_cluster_scoped(per_file: &mut [FileResult]) {
    let kinds: Vec<(String, String)> = per_file
        .iter()
        .flat_map(|r| &r.indexed)
        .filter_map(|(_, entry)| match entry {
            IndexedObject::CustomResourceDefinition(c) if c.cluster_scoped => Some((c.group.clone(), c.kind.clone())),
            _ => None,
        })
        .collect();
    if kinds.is_empty() {
        return;
    }
    let cluster_scoped = |id: &ObjectId| {
        let group = hpa_core::api::GroupVersion::parse_or_empty(&id.api_version).group();
        kinds.iter().any(|(g, k)| g == group && *k == id.kind)
    };
    for r in per_file.iter_mut() {
        let FileResult { objects, keys, indexed, namespaces, unwritten, .. } = r;
        let mut changed = false;
        for (o, k) in objects.iter_mut().zip(keys.iter_mut()) {
            if o.namespace != Namespace::None && cluster_scoped(&o.id) {
                o.namespace = Namespace::None;
                o.id.namespace.clear();
                k.state = Namespace::None;
                k.namespace = 0;
                changed = true;
            }
        }
        if !changed {
            continue;
        }
        for (position, entry) in indexed.iter_mut() {
            if objects.get(*position).is_some_and(|o| o.namespace == Namespace::None) {
                entry.id_mut().namespace.clear();
            }
        }
        (*namespaces, *unwritten) = written_namespaces(objects);
    }
}

/// Puts the objects that name no namespace in their set's (`namespace_of(file)`): their
/// identity, their index entries and the admitted HPAs. (The labels of the first pass's
/// diagnostics are patched once the sets are final.)
fn resolve_namespaces<'a>(per_file: &mut [FileResult], namespace_of: &dyn Fn(usize) -> &'a str) {
    for (k, r) in per_file.iter_mut().enumerate().filter(|(_, r)| r.unwritten) {
        let namespace = namespace_of(k);
        let FileResult { objects, indexed, deferred, .. } = r;
        for o in objects.iter_mut().filter(|o| o.namespace == Namespace::Unwritten) {
            o.id.namespace.clear();
            o.id.namespace.push_str(namespace);
        }
        for (position, entry) in indexed.iter_mut() {
            if objects[*position].namespace == Namespace::Unwritten {
                entry.id_mut().namespace.clone_from(&objects[*position].id.namespace);
            }
        }
        for d in deferred.iter_mut() {
            if objects[d.position].namespace == Namespace::Unwritten {
                d.admitted.set_namespace(&objects[d.position].id.namespace);
            }
        }
    }
}

/// Whether linking an HPA with the other objects of its set depended on the namespace assumed
/// for objects that name none (`assumed`: those objects): the HPA and its scale target, or an
/// object a finding is about or a rule read for it (a LimitRange of the namespace, a selecting
/// PodDisruptionBudget, a VPA or ScaledObject on the target, a Rollout's `workloadRef`
/// workload), are one with and one without a written namespace; or the target
/// was not found in the HPA's namespace but exists in another one of the set, where one of the
/// two was placed by assumption.
fn link_depends_on_namespace(
    d: &Deferred,
    hpa: &ObjectInfo,
    index: &ObjectIndex,
    findings: &[(Finding, bool)],
    assumed: &HashSet<&ObjectId>,
) -> bool {
    use hpa_core::rules::Objects as _;
    let hpa_assumed = hpa.namespace == Namespace::Unwritten;
    // One of the HPA's namespace placed there by assumption and the HPA not, or the reverse. An
    // object of a kind without namespaces (a CustomResourceDefinition, HPA412's) is linked
    // whatever namespace the HPA is in, as is a custom resource its set's CRD makes
    // cluster-scoped (left without one: [`clear_custom_cluster_scoped`]).
    let apart = |id: &ObjectId| id.namespaced() && !id.namespace.is_empty() && assumed.contains(id) != hpa_assumed;
    let t = &d.admitted.effective().spec.scale_target_ref;
    let namespace = &hpa.id.namespace;
    // A target without a namespace is found (or not) whatever namespace the HPA is in.
    let namespaced_target = !rules::is_cluster_scoped(&t.api_version, &t.kind);
    let (group, kind) = rules::target_group_kind(t);
    let kind = index.mapped_kind(group, kind);
    match index.workload(group, kind, namespace, &t.name).filter(|_| namespaced_target) {
        Some(target) if apart(&target.id) => return true,
        Some(target) => {
            // What the cross-object rules read of the namespace for this target, whatever they
            // found: the workload its pods are made from (a Rollout's `workloadRef`), the
            // LimitRanges that default its requests (HPA201), the PodDisruptionBudgets that
            // select its pods (HPA104), the VPAs and KEDA ScaledObjects that act on it (HPA408,
            // HPA409). A clean result may owe itself to one of them as much as a finding does.
            let template = index.pod_template_of(target);
            let labels = template.map_or(&target.pod_labels, |w| &w.pod_labels);
            let acts_on =
                |g: &str, k: &str, name: &str| g == group && index.mapped_kind(g, k) == kind && name == t.name;
            if template.is_some_and(|w| apart(&w.id))
                || index.limit_ranges(namespace).iter().any(|l| apart(&l.id))
                || index.pdbs(namespace).iter().any(|p| apart(&p.id) && p.meant_for(labels))
                || index
                    .vpas(namespace)
                    .iter()
                    .any(|v| apart(&v.id) && acts_on(&v.target_group, &v.target_kind, &v.target_name))
                || index
                    .scaled_objects(namespace)
                    .iter()
                    .any(|o| apart(&o.id) && acts_on(&o.target_group, &o.target_kind, &o.target_name))
            {
                return true;
            }
        }
        None if namespaced_target
            && index
                .workloads_named(group, kind, &t.name)
                .any(|w| !w.id.namespace.is_empty() && (hpa_assumed || assumed.contains(&w.id))) =>
        {
            return true;
        }
        None => {}
    }
    findings
        .iter()
        .flat_map(|(f, _)| std::iter::once(&f.location).chain(f.related.iter().map(|(l, _)| l)))
        .any(|location| matches!(location, rules::FindingField::Object { id, .. } if apart(id)))
}

// === objects defined more than once ===

/// Whether two definitions of one object are the same, as far as the first pass read them.
fn same_object(first: Node<'_>, again: Node<'_>) -> bool {
    first.to_json() == again.to_json()
}

/// The objects of each set defined more than once.
struct DefinedAgain {
    /// (file, object) of every definition the index leaves out, sorted: one a later definition
    /// with other content supersedes (what is stored is the last one, as `kubectl apply`
    /// leaves it), and a copy of the definition before it. Usually empty.
    out: Vec<(usize, usize)>,
    /// (file, object) of each copy (a definition the same as the one before it, as
    /// kube-apiserver would store it): not checked, not counted. Sorted.
    copies: Vec<(usize, usize)>,
    /// Per set, each object defined more than once, once, in the order of its second
    /// definition.
    repeats: Vec<Vec<Repeat>>,
}

/// An object defined more than once in a set: where each of its definitions is.
struct Repeat {
    /// (file, object) of each definition, in input order.
    definitions: Vec<(usize, usize)>,
    label: String,
    /// How many of the later definitions are the same as the one the index kept before them,
    /// as kube-apiserver would store it (identical, or differing only by a namespace written in
    /// one and taken from the set in the other); the others have other content.
    same: usize,
}

impl Repeat {
    /// The later definitions with other content than the one kept before them.
    fn changed(&self) -> usize {
        self.definitions.len() - 1 - self.same
    }
}

/// An object's JSON as kube-apiserver would store it, as far as the namespace goes: with the
/// namespace it lands in (`id`'s: written, or its set's) written, for a kind that has one.
fn stored(node: Node<'_>, id: &ObjectId) -> Value {
    let mut value = node.to_json();
    if !id.namespace.is_empty()
        && let Some(Value::Object(metadata)) = value.get_mut("metadata")
    {
        metadata.insert("namespace".into(), Value::from(id.namespace.as_str()));
    }
    value
}

/// Finds the objects of each set defined more than once (`namespace_keys`: each set's
/// [`Keys::namespace`] of its namespace, for the objects that name none), and which definition
/// of each the index keeps: the last one with other content than the one before it
/// (`same_content` compares two definitions, by (file, object), as kube-apiserver would store
/// them). Only the keys the first pass computed are read, and the identities of objects whose
/// keys meet.
fn defined_again(
    per_file: &[FileResult],
    set_of: impl Fn(usize) -> usize,
    namespace_keys: &[u64],
    mut same_content: impl FnMut((usize, usize), (usize, usize)) -> bool,
) -> DefinedAgain {
    let mut sizes = vec![0; namespace_keys.len()];
    for (k, r) in per_file.iter().enumerate() {
        sizes[set_of(k)] += r.objects.len();
    }
    // Per set, by identity: the definition the index keeps so far, and the object's place in
    // the set's `repeats` once it has one.
    type Kept = ((usize, usize), Option<usize>);
    let mut kept: Vec<ByKey<Kept>> =
        sizes.iter().map(|&n| ByKey::with_capacity_and_hasher(n, Default::default())).collect();
    let mut out = Vec::new();
    let mut copies = Vec::new();
    let mut repeats: Vec<Vec<Repeat>> = namespace_keys.iter().map(|_| Vec::new()).collect();
    for (k, r) in per_file.iter().enumerate() {
        let set = set_of(k);
        for (position, identity) in r.keys.iter().enumerate() {
            if identity.name == 0 {
                continue;
            }
            match kept[set].entry(identity.key(namespace_keys[set])) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let (before, group) = *e.get();
                    let o = &r.objects[position];
                    // Equal keys of different identities (a chance of 2^-64) are not repeats; one
                    // object written in two versions of its group is one object.
                    if !per_file[before.0].objects[before.1].id.same_object(&o.id) {
                        continue;
                    }
                    let same = same_content(before, (k, position));
                    // A repeat of the first pass is identical to the definition before it in
                    // what the rules read (a field the first pass does not keep may differ):
                    // the index keeps that one, and it is not checked again.
                    let group = group.unwrap_or_else(|| {
                        repeats[set].push(Repeat { definitions: vec![before], label: o.label().describe(), same: 0 });
                        repeats[set].len() - 1
                    });
                    let repeat = &mut repeats[set][group];
                    repeat.definitions.push((k, position));
                    repeat.same += usize::from(same);
                    if same || o.repeat {
                        if same {
                            copies.push((k, position));
                        }
                        out.push((k, position));
                        e.insert((before, Some(group)));
                    } else {
                        out.push(before);
                        e.insert(((k, position), Some(group)));
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(((k, position), None));
                }
            }
        }
    }
    out.sort_unstable();
    copies.sort_unstable();
    DefinedAgain { out, copies, repeats }
}

impl DefinedAgain {
    /// Whether the index leaves out object `position` of file `k`: a definition superseded by
    /// a later one with other content, or a copy.
    fn out_of_index(&self, k: usize, position: usize) -> bool {
        !self.out.is_empty() && self.out.binary_search(&(k, position)).is_ok()
    }
}

/// A document (0-based) and the 1-based numbers of the `List` items it holds a definition in
/// (none: the document is the definition).
type DocumentItems = (usize, Vec<String>);

/// The note about the objects a set defines more than once: each object once, with where
/// its definitions are (`documents 1, 6 and 11`, or `a.yaml (documents 1 and 3) and b.yaml
/// (document 1)`; the items of a `List`, `document 1 (items 2 and 3)`), the first few listed.
fn repeats_note(set: &str, repeats: &[Repeat], per_file: &[FileResult], files: &[SourceFile]) -> String {
    const LISTED: usize = 3;
    let places = |r: &Repeat| {
        // The documents of each file in turn (a set's files are read in order, so a file's
        // definitions are together), each with the items of a `List` it holds them in.
        let mut by_file: Vec<(usize, Vec<DocumentItems>)> = Vec::new();
        for &(k, position) in &r.definitions {
            let o = &per_file[k].objects[position];
            let item = o.item.map(|i| (i + 1).to_string());
            match by_file.last_mut() {
                Some((file, documents)) if *file == k => match documents.last_mut() {
                    Some((document, items)) if *document == o.document => items.extend(item),
                    _ => documents.push((o.document, item.into_iter().collect())),
                },
                _ => by_file.push((k, vec![(o.document, item.into_iter().collect())])),
            }
        }
        // `documents 1 and 3`; with items, `document 1 (items 2 and 3)`.
        let documents = |d: &[DocumentItems]| {
            if d.iter().all(|(_, items)| items.is_empty()) {
                let numbers: Vec<String> = d.iter().map(|(n, _)| (n + 1).to_string()).collect();
                let noun = if numbers.len() == 1 { "document" } else { "documents" };
                return format!("{noun} {}", and_list(&numbers));
            }
            let each: Vec<String> = d
                .iter()
                .map(|(n, items)| match items.as_slice() {
                    [] => format!("document {}", n + 1),
                    [one] => format!("document {} (item {one})", n + 1),
                    many => format!("document {} (items {})", n + 1, and_list(many)),
                })
                .collect();
            and_list(&each)
        };
        let text = match by_file.as_slice() {
            [(_, only)] => documents(only),
            _ => and_list(
                &by_file.iter().map(|(k, d)| format!("{} ({})", files[*k].name, documents(d))).collect::<Vec<_>>(),
            ),
        };
        if r.changed() > 0 { format!("{text}, with other content") } else { text }
    };
    let what = match repeats {
        [one] => format!("{} is defined more than once (in {})", one.label, places(one)),
        _ => {
            let listed: Vec<String> =
                repeats.iter().take(LISTED).map(|r| format!("{} in {}", r.label, places(r))).collect();
            let more = repeats.len().saturating_sub(LISTED);
            format!(
                "{} objects are defined more than once ({}{})",
                repeats.len(),
                listed.join("; "),
                if more > 0 { format!("; and {more} more") } else { String::new() }
            )
        }
    };
    let same: usize = repeats.iter().map(|r| r.same).sum();
    let changed: usize = repeats.iter().map(Repeat::changed).sum();
    let treatment = match (same, changed) {
        (_, 0) => "each is one object, checked once",
        (0, _) => {
            "each is one object, matched with the others by its last definition (what kubectl apply leaves); every definition is checked"
        }
        _ => {
            "each is one object, matched with the others by its last definition (what kubectl apply leaves); a definition the same as the one before it is not checked again, the others are"
        }
    };
    format!("{set}: {what}: {treatment}")
}

/// How a set is named in notes: its file, its directory, or all the inputs.
fn set_name(files: &[SourceFile], set_files: &[usize], scope: Scope) -> String {
    match set_files {
        [one] => files[*one].name.clone(),
        _ if scope == Scope::Directory => {
            let dir = set_files.first().and_then(|k| std::path::Path::new(&files[*k].name).parent());
            dir.map(|p| p.display().to_string()).filter(|d| !d.is_empty()).unwrap_or_else(|| ".".into())
        }
        _ => "the inputs".into(),
    }
}

/// The first object defined in two of the files (API group, kind, namespace and name; the
/// version may differ: [`ObjectId::same_object`]), with the positions of the two files (`namespace_key`: the group's
/// [`Keys::namespace`], for the objects that name none). Only the keys the first pass computed
/// are read, and the identities of objects whose keys meet.
fn duplicate_definition(per_file: &[FileResult], namespace_key: u64) -> Option<(String, usize, usize)> {
    let objects = per_file.iter().map(|r| r.objects.len()).sum();
    let mut seen: ByKey<(usize, usize)> = ByKey::with_capacity_and_hasher(objects, Default::default());
    for (i, r) in per_file.iter().enumerate() {
        for (position, identity) in r.keys.iter().enumerate().filter(|(_, identity)| identity.name != 0) {
            match seen.entry(identity.key(namespace_key)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let (first, at) = *e.get();
                    let (a, b) = (&per_file[first].objects[at].id, &r.objects[position].id);
                    // Equal keys of different identities (a chance of 2^-64) are no duplicate.
                    if first != i && a.same_object(b) {
                        return Some((b.to_string(), first, i));
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((i, position));
                }
            }
        }
    }
    None
}

/// What a file holds that kubectl cannot read, refuses or never sends ([`input::Problem`]:
/// unreadable files, documents with items and no kind, mappings read as lists, documents kubectl
/// reads but refuses, YAML syntax errors), as HPA000.
fn file_level_diagnostics(i: usize, parsed: &Parsed, problems: Vec<input::Problem<'_>>) -> Vec<Diagnostic> {
    // An HPA000 error about the file (no object but an item of a list), with its help.
    let located =
        |span: Span, exact: bool, object: Option<ObjectLabel>, path: &str, message: String, help: Cow<'static, str>| {
            Diagnostic {
                rule: rules::INVALID,
                severity: Severity::Error,
                location: Location::File { file: i, span, exact, object },
                path: path.to_string(),
                message,
                help: Some(help),
                related: Vec::new(),
                fix: None,
                shown: None,
            }
        };
    let error = |span: Span, exact: bool, path: &str, message: String, help: &'static str| {
        located(span, exact, None, path, message, help.into())
    };
    problems
        .into_iter()
        .map(|problem| match problem {
            input::Problem::Unreadable(reason) => error(
                Span::default(),
                true,
                "",
                format!("cannot read this file: {reason}"),
                "lint YAML or JSON text files only (use --exclude to skip others)",
            ),
            input::Problem::KindlessList(doc) => error(
                doc.root().entry("items").map_or(doc.root().span(), |e| e.key.span()),
                false,
                "kind",
                "a document with items but no kind: kubectl refuses it (\"Object 'Kind' is missing\")".into(),
                "add `kind: List` (its items are checked below as they are)",
            ),
            input::Problem::Stray { stray, .. } => error(
                stray.items.key.span(),
                true,
                "items",
                stray.message(),
                "remove `items` (no kind of object has it at the top level); to apply several objects, write each as a document of its own (after `---`) or under `kind: List`",
            ),
            input::Problem::Refused(doc) => {
                let help: Cow<'static, str> = match doc.miscased_kind() {
                    Some(key) => format!("kubectl reads `kind` as written, in lowercase: rename `{key}` to `kind`").into(),
                    None => Cow::Borrowed(match (doc.why, doc.item) {
                    (input::Refusal::NotAnObject, _) => {
                        "kubectl cannot apply this document (`unable to decode`): remove it, or make it a Kubernetes object"
                    }
                    (input::Refusal::MissingKind, None) => {
                        "kubectl cannot apply this document (`unable to decode`): add its `kind`, or remove it"
                    }
                    (input::Refusal::MissingKind, Some(_)) => {
                        "kubectl cannot apply this item (`unable to get type info`): add its `kind` (and `apiVersion`), or remove it"
                    }
                    (input::Refusal::NumberOutOfRange, _) => {
                        "kubectl cannot apply this document (`unable to decode`): JSON numbers must be within float64's range (about ±1.8e308)"
                    }
                    (input::Refusal::NestedList, _) => {
                        "kubectl cannot apply this list (a list inside a list): move the inner list's items into the outer one"
                    }
                    (input::Refusal::Metadata { field: "apiVersion" }, _) => {
                        "kubectl cannot apply this document (`unable to decode`): write `apiVersion` as a string (`group/version`, or `v1`)"
                    }
                    (input::Refusal::Metadata { .. }, _) => {
                        "kubectl cannot apply this document (`unable to decode`): give the field the type ObjectMeta has (quote label and annotation values: they are strings)"
                    }
                    (input::Refusal::MissingVersion, _) => {
                        "kubectl cannot apply this item (`unable to get type info`): add its `apiVersion` (`group/version`, or `v1`), or remove it"
                    }
                    }),
                };
                // kubectl's decoding of the metadata names a Go field path without keys or
                // indices: the JSON path says which field (`metadata.annotations.a`).
                let path = match doc.why {
                    input::Refusal::Metadata { .. } => parsed
                        .documents
                        .get(doc.document)
                        .and_then(|d| source::path_of(d.root(), doc.node.span()))
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                // An item of a list is found by its document and index.
                let object = doc.item.map(|item| item_label(doc.node, doc.document, item));
                located(doc.node.span(), true, object, &path, doc.message.to_string(), help)
            }
            input::Problem::Syntax(e) => error(
                Span { start: e.mark, end: e.mark },
                true,
                "",
                e.message.clone(),
                "fix the syntax; nothing after this point in the file was checked",
            ),
        })
        .collect()
}

/// The label of an item of a list kubectl refuses (it cannot type it, or it is no mapping):
/// its document and index in the list, which find it, and its kind, namespace and name as far
/// as it writes them (empty, or `None` for the namespace, when it does not).
fn item_label<'a>(node: Node<'a>, document: usize, item: usize) -> ObjectLabel {
    let text = |n: Option<Node<'a>>| n.and_then(Node::as_str);
    let [name, namespace, generate_name] =
        node.get("metadata").map_or([None; 3], |m| m.get_each(["name", "namespace", "generateName"]));
    let name = text(name).unwrap_or_default();
    ObjectLabel {
        kind: text(node.get("kind")).unwrap_or_default().into(),
        namespace: text(namespace).filter(|n| !n.is_empty()).map(CompactString::from),
        name: name.into(),
        generate_name: text(generate_name).filter(|_| name.is_empty()).map(CompactString::from),
        document,
        item: Some(item),
    }
}
