//! The linter: every object of every input file indexed, every HPA run through kube-apiserver's
//! pipeline (rule HPA000) and the rules of `hpa_core::rules`, findings mapped to the line and
//! column of the field they are about.

pub mod config;
pub mod index;
pub mod report;
pub mod suppress;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use hpa_core::admission::{self, Options};
use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::api::{ApiVersion, DecodeErrorKind, VersionedHpa};
use hpa_core::convert;
use hpa_core::rules::{self, Context, Finding, Location, ObjectId, RuleMeta, Settings, Severity};
use rayon::prelude::*;
use serde_json::Value;

use crate::hpa::{self, Checked};
use crate::input::{self, ObjectRef, SourceFile};
use crate::source::{self, Node, Parsed, Span};

use self::config::{RuleLevel, Scope};

/// Everything that decides what the linter reports.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// Rule settings (release, gates, controller flags, numeric bounds).
    pub settings: Settings,
    /// Per-rule levels from the configuration, by rule ID.
    pub levels: BTreeMap<&'static str, RuleLevel>,
    /// `--select`: only these rules (IDs or names); empty means all.
    pub select: Vec<String>,
    /// `--ignore`: not these rules (HPA000 cannot be ignored).
    pub ignore: Vec<String>,
    /// The namespace of objects that have none.
    pub default_namespace: String,
    /// Which objects form a manifest set.
    pub scope: Scope,
}

/// One reported problem, positioned.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The rule.
    pub rule: &'static RuleMeta,
    /// The severity after configuration.
    pub severity: Severity,
    /// The file (index into the loaded files).
    pub file: usize,
    /// The span in that file.
    pub span: Span,
    /// Whether the field exists (else the span is its nearest existing parent).
    pub exact: bool,
    /// The object the finding is on (`HorizontalPodAutoscaler shop/web`), if any.
    pub object: Option<ObjectLabel>,
    /// The field path (as written, where it could be mapped).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
    /// Other relevant places.
    pub related: Vec<Related>,
    /// A replacement object.
    pub fix: Option<Value>,
}

/// The object a diagnostic is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectLabel {
    /// `kind`
    pub kind: String,
    /// `metadata.namespace`
    pub namespace: String,
    /// `metadata.name`
    pub name: String,
    /// 0-based document index.
    pub document: usize,
    /// Index in a `List`.
    pub item: Option<usize>,
}

/// A related place of a diagnostic.
#[derive(Debug, Clone)]
pub struct Related {
    /// The file.
    pub file: usize,
    /// The span.
    pub span: Span,
    /// A short label.
    pub message: String,
}

/// What a lint run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Diagnostics, sorted by file, position and rule.
    pub diagnostics: Vec<Diagnostic>,
    /// How many objects were read.
    pub objects: usize,
    /// How many of them are HPAs.
    pub hpas: usize,
    /// Findings suppressed by `hpa-lint.dev/ignore` annotations.
    pub suppressed: usize,
    /// Remarks on how the input was read (directories split into per-file sets).
    pub notes: Vec<String>,
}

/// An object of the input, as the later passes know it (no tree is kept).
struct ObjectInfo {
    id: ObjectId,
    document: usize,
    item: Option<usize>,
}

impl ObjectInfo {
    fn label(&self) -> ObjectLabel {
        ObjectLabel {
            kind: self.id.kind.clone(),
            namespace: self.id.namespace.clone(),
            name: self.id.name.clone(),
            document: self.document,
            item: self.item,
        }
    }
}

/// An HPA kube-apiserver admits, kept (until its group is done) for the rules that need the
/// other objects.
struct Deferred {
    file: usize,
    object: ObjectInfo,
    version: Option<ApiVersion>,
    ignore: suppress::Ignore,
    // The objects stay where admission put them: a group keeps hundreds of these until its
    // cross-object rules have run, and they are the larger part of what it keeps.
    original: Box<VersionedHpa>,
    /// What was written in the internal form, when it differs from `original` (kept once).
    converted: Option<Box<HorizontalPodAutoscaler>>,
    /// Admission's outcome, without errors: its object is the effective HPA.
    admitted: Box<admission::Outcome>,
}

impl Deferred {
    /// What was written, in the internal form.
    fn written(&self) -> &HorizontalPodAutoscaler {
        written(&self.original, self.converted.as_deref()).unwrap_or(&self.admitted.object)
    }
}

/// What was written in the internal form, when it needs a copy of the original: `None` for
/// an autoscaling/v2 object that converting leaves unchanged, the usual case.
fn converted(original: &VersionedHpa) -> Option<Box<HorizontalPodAutoscaler>> {
    match convert::as_internal(original) {
        Some(_) => None,
        None => convert::to_internal(original).ok().map(|c| Box::new(c.object)),
    }
}

/// What was written, in the internal form, given what [`converted`] kept: the original itself,
/// or its conversion (`None` only when the original does not convert, which admission has ruled
/// out for the objects this is asked about). An autoscaling/v2 original always converts, so
/// when no copy was kept it is its own internal form; this does not look at it again (in the
/// cross-object pass it has long left the cache).
fn written<'a>(
    original: &'a VersionedHpa,
    converted: Option<&'a HorizontalPodAutoscaler>,
) -> Option<&'a HorizontalPodAutoscaler> {
    match (converted, original) {
        (Some(c), _) => Some(c),
        (None, VersionedHpa::V2(h)) => Some(h),
        (None, _) => None,
    }
}

/// What the first pass found in one file.
#[derive(Default)]
struct FileResult {
    objects: Vec<ObjectInfo>,
    hpas: usize,
    /// HPAs (id and target) for the conflicting-HPA rule.
    targets: Vec<(ObjectId, String, String)>,
    deferred: Vec<Deferred>,
    indexed: Vec<index::Indexed>,
    diags: Vec<Diagnostic>,
    suppressed: usize,
}

/// The HPA a finding is about, for positions and suppression.
struct Subject<'n> {
    file: usize,
    node: &'n Node,
    version: Option<ApiVersion>,
    label: ObjectLabel,
    ignore: &'n suppress::Ignore,
}

/// Finds another object of the set: its file, node and label.
/// A file's object nodes by (document, list item).
type NodesByPlace<'a> = HashMap<(usize, Option<usize>), &'a Node>;

type FindObject<'a> = dyn Fn(&ObjectId) -> Option<(usize, &'a Node, ObjectLabel)> + 'a;

fn object_id(obj: &ObjectRef<'_>, default_namespace: &str) -> ObjectId {
    ObjectId {
        api_version: obj.api_version().unwrap_or_default().to_string(),
        kind: obj.kind().unwrap_or_default().to_string(),
        namespace: obj.namespace().unwrap_or(default_namespace).to_string(),
        name: obj.name().unwrap_or_default().to_string(),
    }
}

impl LintOptions {
    /// The level of a rule, or `None` when it does not run. `--ignore` wins; `--select` runs
    /// only the rules it names (`all`: every rule, opt-in ones included); then the
    /// configuration; then the rule's default (opt-in rules do not run by default).
    pub fn level(&self, rule: &'static RuleMeta) -> Option<Severity> {
        if rule.id == "HPA000" {
            return Some(Severity::Error);
        }
        let named = |list: &[String]| {
            list.iter().any(|s| s.eq_ignore_ascii_case(rule.id) || s == rule.name || s.eq_ignore_ascii_case("all"))
        };
        if named(&self.ignore) {
            return None;
        }
        let selected = named(&self.select);
        if !self.select.is_empty() && !selected {
            return None;
        }
        match self.levels.get(rule.id) {
            Some(RuleLevel::Off) if !selected => None,
            Some(RuleLevel::At(s)) => Some(*s),
            _ if selected || rule.enabled_by_default => Some(rule.severity),
            _ => None,
        }
    }

    fn admission(&self) -> Options {
        Options {
            gates: self.settings.gates.clone(),
            apply_defaults: true,
            default_namespace: Some(self.default_namespace.clone()),
        }
    }
}

/// Lints loaded files (parsed or not: the linter parses each file itself).
///
/// The files are grouped into the groups a manifest set can span (a directory, every file, or
/// one file; see [`Scope`]), and each group is linted on its own: memory follows the largest
/// group, not the whole input. Within a group:
///
/// 1. per file, in parallel: parse; decode, default and validate every HPA (HPA000); run the
///    rules that need only the HPA; prepare the index entries of the other objects; drop the
///    tree;
/// 2. form the manifest sets (a directory that defines an object twice is split into its
///    files) and index each;
/// 3. per HPA, in parallel: the rules that need the other objects of its set (the files their
///    findings are about are parsed again, for positions).
pub fn lint(files: &[SourceFile], opts: &LintOptions) -> Outcome {
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let (outcome, _, _) = lint_sources(&Sources::Loaded(files), &names, opts);
    outcome
}

/// What the linter reads.
pub enum Sources<'a> {
    /// Files already read.
    Loaded(&'a [SourceFile]),
    /// Inputs the linter reads itself, each when its group is linted (standard input already
    /// read): nothing but the files that have findings stays in memory.
    Lazy {
        /// The inputs.
        origins: &'a [input::Origin],
        /// Standard input's bytes, when it is one of them.
        stdin: Option<&'a [u8]>,
    },
}

/// Lints inputs read lazily (see [`Sources::Lazy`]): returns the outcome, every input (its
/// text kept only when a diagnostic points into it) for the report, and the inputs that
/// could not be read.
pub fn lint_inputs(
    origins: &[input::Origin],
    stdin: Option<&[u8]>,
    opts: &LintOptions,
) -> (Outcome, Vec<SourceFile>, Vec<input::InputError>) {
    let names: Vec<String> = origins.iter().map(input::origin_name).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    lint_sources(&Sources::Lazy { origins, stdin }, &names, opts)
}

fn lint_sources(
    sources: &Sources<'_>,
    names: &[&str],
    opts: &LintOptions,
) -> (Outcome, Vec<SourceFile>, Vec<input::InputError>) {
    let timer = Timer::start();
    let parts: Vec<GroupResult> = groups(names, opts.scope).par_iter().map(|g| lint_group(sources, g, opts)).collect();
    let mut outcome = Outcome::default();
    let mut files: Vec<Option<SourceFile>> = (0..names.len()).map(|_| None).collect();
    let mut errors = Vec::new();
    for (mut part, read, mut errs) in parts {
        errors.append(&mut errs);
        for (i, f) in read {
            files[i] = Some(f);
        }
        outcome.diagnostics.append(&mut part.diagnostics);
        outcome.notes.append(&mut part.notes);
        outcome.objects += part.objects;
        outcome.hpas += part.hpas;
        outcome.suppressed += part.suppressed;
    }
    timer.lap("lint");
    outcome.diagnostics.sort_by(|a, b| {
        (a.file, a.span.start.line, a.span.start.col, a.rule.id).cmp(&(
            b.file,
            b.span.start.line,
            b.span.start.col,
            b.rule.id,
        ))
    });
    let files = files
        .into_iter()
        .zip(names)
        .map(|(f, name)| f.unwrap_or_else(|| SourceFile::from_text(*name, String::new())))
        .collect();
    (outcome, files, errors)
}

/// The files of each group, in input order: by directory (standard input alone), all
/// together, or one by one.
fn groups(names: &[&str], scope: Scope) -> Vec<Vec<usize>> {
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

/// What linting a group gives: the outcome, the files read (by input index) and the inputs
/// that could not be read.
type GroupResult = (Outcome, Vec<(usize, SourceFile)>, Vec<input::InputError>);

/// Lints one group of files (see [`lint`]); returns what it found, the files it read (for
/// [`Sources::Lazy`]) and the inputs it could not read.
fn lint_group(sources: &Sources<'_>, members: &[usize], opts: &LintOptions) -> GroupResult {
    let admission = opts.admission();
    let deferring = rules::ALL.iter().any(|r| r.meta().needs_objects && opts.level(r.meta()).is_some());
    // Each file is read, parsed and checked in one go, while its text and tree are in the
    // cache, and its tree is dropped: the few files that cross-object findings are about are
    // parsed again, whole. Of objects other than HPAs, only what the first pass reads is built.
    let mut errors = Vec::new();
    let checked: Vec<(Cow<'_, SourceFile>, Result<FileResult, input::InputError>)> = members
        .par_iter()
        .map(|&i| {
            let file = match sources {
                Sources::Loaded(files) => Ok(Cow::Borrowed(&files[i])),
                Sources::Lazy { origins, stdin } => input::read_unparsed(&origins[i], *stdin).map(Cow::Owned),
            };
            match file {
                Ok(f) => {
                    let result = input::contained(&f.name, || {
                        let parsed = source::parse_pruned(&f.text, &index::first_pass_needs);
                        first_pass(i, &f, &parsed, opts, &admission, deferring)
                    });
                    (f, result)
                }
                Err(e) => {
                    let name = input::origin_name(&unreadable_origin(sources, i));
                    (Cow::Owned(SourceFile::from_text(name, String::new())), Err(e))
                }
            }
        })
        .collect();
    let mut owned_files: Vec<Cow<'_, SourceFile>> = Vec::with_capacity(members.len());
    let mut per_file: Vec<FileResult> = Vec::with_capacity(members.len());
    for (f, result) in checked {
        owned_files.push(f);
        per_file.push(result.unwrap_or_else(|e| {
            errors.push(e);
            FileResult::default()
        }));
    }
    let files = &owned_files;

    // The sets: the group, or each file when the group is a directory that defines an object
    // twice (alternatives, not objects applied together).
    let mut outcome = Outcome::default();
    let split = match duplicate_definition(&per_file) {
        Some((what, a, b)) if opts.scope == Scope::Directory && members.len() > 1 => {
            // `a` and `b` are positions in the group, as `files` is.
            let dir = std::path::Path::new(&files[a].name).parent().map(|p| p.display().to_string());
            let shown = dir.filter(|d| !d.is_empty()).unwrap_or_else(|| ".".into());
            outcome.notes.push(format!(
                "{shown}: {what} is defined in both {} and {}, so the directory is not one set of objects applied together; each of its files is checked with its own objects only (use --scope all to match across them)",
                files[a].name, files[b].name
            ));
            true
        }
        _ => false,
    };
    let set_of = |k: usize| if split { k } else { 0 };
    let sets = if split { members.len() } else { 1 };
    let mut indexes: Vec<index::Index> = (0..sets).map(|_| index::Index::default()).collect();
    for (k, r) in per_file.iter_mut().enumerate() {
        outcome.objects += r.objects.len();
        outcome.hpas += r.hpas;
        outcome.suppressed += r.suppressed;
        outcome.diagnostics.append(&mut r.diags);
        for entry in r.indexed.drain(..) {
            indexes[set_of(k)].add(entry);
        }
        for (id, kind, name) in r.targets.drain(..) {
            indexes[set_of(k)].add_hpa(id, &kind, &name);
        }
    }

    // Where the objects of each set are, built when a finding is about another object.
    let reparsed: Vec<OnceLock<Parsed>> = members.iter().map(|_| OnceLock::new()).collect();
    // Each file's objects by (document, list item), found once: a file with thousands of
    // findings about other objects must not be scanned once per finding.
    let object_nodes: Vec<OnceLock<NodesByPlace<'_>>> = members.iter().map(|_| OnceLock::new()).collect();
    let node_of = |k: usize, o: &ObjectInfo| -> Option<&Node> {
        let nodes = object_nodes[k].get_or_init(|| {
            let parsed = reparsed[k].get_or_init(|| source::parse(&files[k].text));
            input::objects_in(members[k], parsed).into_iter().map(|r| ((r.document, r.item), r.node)).collect()
        });
        nodes.get(&(o.document, o.item)).copied()
    };
    let locations: Vec<OnceLock<HashMap<&ObjectId, (usize, &ObjectInfo)>>> =
        (0..sets).map(|_| OnceLock::new()).collect();
    let find = |set: usize, id: &ObjectId| -> Option<(usize, &Node, ObjectLabel)> {
        let map = locations[set].get_or_init(|| {
            let mut map = HashMap::new();
            for (k, r) in per_file.iter().enumerate().filter(|(k, _)| set_of(*k) == set) {
                for o in &r.objects {
                    map.entry(&o.id).or_insert((k, o));
                }
            }
            map
        });
        let (k, o) = map.get(id)?;
        Some((members[*k], node_of(*k, o)?, o.label()))
    };
    let deferred: Vec<(usize, &Deferred)> =
        per_file.iter().enumerate().flat_map(|(k, r)| r.deferred.iter().map(move |d| (k, d))).collect();
    let results: Vec<Result<(Vec<Diagnostic>, usize), input::InputError>> = deferred
        .par_iter()
        .map(|&(k, d)| {
            input::contained(&files[k].name, || {
                let findings = object_rules(d, &indexes[set_of(k)], opts);
                if findings.is_empty() {
                    return (Vec::new(), 0);
                }
                let Some(node) = node_of(k, &d.object) else { return (Vec::new(), 0) };
                let subject =
                    Subject { file: d.file, node, version: d.version, label: d.object.label(), ignore: &d.ignore };
                position_findings(findings, &subject, &|id| find(set_of(k), id), opts)
            })
        })
        .collect();
    for result in results {
        match result {
            Ok((diags, suppressed)) => {
                outcome.diagnostics.extend(diags);
                outcome.suppressed += suppressed;
            }
            Err(e) => errors.push(e),
        }
    }
    // Keep the text of the files the diagnostics point into, for the report.
    let mut shown: Vec<usize> = outcome
        .diagnostics
        .iter()
        .flat_map(|d| std::iter::once(d.file).chain(d.related.iter().map(|r| r.file)))
        .collect();
    shown.sort_unstable();
    shown.dedup();
    let kept = match sources {
        Sources::Loaded(_) => Vec::new(),
        Sources::Lazy { .. } => members
            .iter()
            .zip(owned_files)
            .map(|(&i, f)| {
                let mut f = f.into_owned();
                if shown.binary_search(&i).is_err() {
                    f.text = String::new();
                }
                (i, f)
            })
            .collect(),
    };
    (outcome, kept, errors)
}

/// The origin of input `i` (for the name of one that could not be read).
fn unreadable_origin(sources: &Sources<'_>, i: usize) -> input::Origin {
    match sources {
        Sources::Lazy { origins, .. } => origins[i].clone(),
        Sources::Loaded(files) => input::Origin::File(std::path::PathBuf::from(&files[i].name)),
    }
}

/// The first pass over one file (see [`lint`]).
fn first_pass(
    i: usize,
    f: &SourceFile,
    parsed: &Parsed,
    opts: &LintOptions,
    admission: &Options,
    deferring: bool,
) -> FileResult {
    let mut r = FileResult {
        objects: Vec::new(),
        hpas: 0,
        targets: Vec::new(),
        deferred: Vec::new(),
        indexed: Vec::new(),
        diags: file_level_diagnostics(i, f, parsed),
        suppressed: 0,
    };
    for obj in input::objects_in(i, parsed) {
        let id = object_id(&obj, &opts.default_namespace);
        let info = ObjectInfo { id, document: obj.document, item: obj.item };
        if obj.is_hpa() {
            r.hpas += 1;
            first_pass_hpa(&obj, &info, opts, admission, deferring, &mut r);
        } else {
            if obj.kind().is_some() {
                r.indexed.extend(index::prepare(info.id.clone(), obj.node));
            }
            if let Some(finding) =
                rules::check_misspelled_kind(obj.api_version().unwrap_or(""), obj.kind().unwrap_or(""))
            {
                let ignore = suppress::from_node(obj.node);
                let subject = Subject { file: i, node: obj.node, version: None, label: info.label(), ignore: &ignore };
                let (diags, suppressed) = position_findings(vec![(finding, false)], &subject, &|_| None, opts);
                r.diags.extend(diags);
                r.suppressed += suppressed;
            }
        }
        r.objects.push(info);
    }
    r
}

/// Decodes and admits one HPA, reports what needs only the HPA, and keeps it for the
/// cross-object rules when kube-apiserver admits it.
fn first_pass_hpa(
    obj: &ObjectRef<'_>,
    info: &ObjectInfo,
    opts: &LintOptions,
    admission: &Options,
    deferring: bool,
    r: &mut FileResult,
) {
    let version = obj.api_version().and_then(ApiVersion::parse);
    let checked = hpa::check_node(obj.node, admission);
    let ignore = suppress::from_node(obj.node);
    let converted = match &checked {
        Checked::Admitted { object, .. } => converted(object),
        _ => None,
    };
    let written = match &checked {
        Checked::Admitted { object, .. } => written(object, converted.as_deref()),
        _ => None,
    };
    let findings = single_rules(&checked, written, obj.api_version().unwrap_or_default(), info, opts);
    let subject = Subject { file: obj.file, node: obj.node, version, label: info.label(), ignore: &ignore };
    let (diags, suppressed) = position_findings(findings, &subject, &|_| None, opts);
    r.diags.extend(diags);
    r.suppressed += suppressed;
    if let Checked::Admitted { object, outcome, .. } = checked {
        let t = &outcome.object.spec.scale_target_ref;
        r.targets.push((info.id.clone(), t.kind.clone(), t.name.clone()));
        if deferring && outcome.errors.is_empty() {
            r.deferred.push(Deferred {
                file: obj.file,
                object: ObjectInfo { id: info.id.clone(), document: info.document, item: info.item },
                version,
                ignore,
                original: object,
                converted,
                admitted: outcome,
            });
        }
    }
}

/// HPA000 and HPA401 for an HPA that does not decode or convert; every rule that needs only
/// the HPA for one that does. Each finding comes with whether it is about a key.
fn single_rules(
    checked: &Checked,
    written: Option<&HorizontalPodAutoscaler>,
    api_version: &str,
    info: &ObjectInfo,
    opts: &LintOptions,
) -> Vec<(Finding, bool)> {
    let mut findings: Vec<(Finding, bool)> = Vec::new();
    let invalid = rules::find("HPA000").map(|r| r.meta());
    match checked {
        Checked::Undecodable { version, errors } => {
            let removed = rules::find("HPA401").map(|r| r.meta());
            let unknown_version = errors.iter().any(|e| e.kind == DecodeErrorKind::TypeMeta && e.path == "apiVersion");
            if unknown_version && api_version.starts_with("autoscaling/v2alpha") {
                if let Some(meta) = removed {
                    let f = Finding::new(
                        meta,
                        "apiVersion",
                        format!("{api_version} was removed in Kubernetes 1.9: use autoscaling/v2"),
                    )
                    .help("rewrite the HPA in autoscaling/v2 (its metric fields differ; see `hpa-lint rules HPA401`)");
                    findings.push((f, false));
                }
            } else if let Some(meta) = invalid {
                if let Some(f) = version.and_then(|v| rules::check_removed_version(v, &opts.settings)) {
                    findings.push((f, false));
                }
                for e in errors {
                    let mut f = Finding::new(meta, e.path.clone(), e.to_string());
                    let key = e.kind.is_strict();
                    if key {
                        f.help = Some(format!(
                            "kube-apiserver refuses unknown fields (strict field validation, kubectl's default): remove it or fix its name{}",
                            version.map(|v| format!(" (see the {v} schema)")).unwrap_or_default()
                        ));
                    }
                    findings.push((f, key));
                }
            }
        }
        Checked::Unconvertible { message, .. } => {
            if let Some(meta) = invalid {
                findings.push((Finding::new(meta, "metadata.annotations", message.clone()), false));
            }
        }
        Checked::Admitted { object, outcome, .. } => {
            let cx = Context {
                original: object,
                written: written.unwrap_or(&outcome.object),
                effective: &outcome.object,
                errors: &outcome.errors,
                annotation_problems: &outcome.annotation_problems,
                id: Some(&info.id),
                objects: None,
                settings: &opts.settings,
            };
            let mut out = Vec::new();
            for rule in rules::ALL {
                let meta = rule.meta();
                if meta.needs_objects || opts.level(meta).is_none() {
                    continue;
                }
                // For an object kube-apiserver rejects, only its errors (and its version) matter.
                if !outcome.errors.is_empty() && meta.id != "HPA000" && meta.id != "HPA401" {
                    continue;
                }
                rule.check(&cx, &mut out);
            }
            findings.extend(out.into_iter().map(|f| (f, false)));
        }
    }
    findings
}

/// The rules that need the other objects of the set, for an admitted HPA.
fn object_rules(d: &Deferred, index: &index::Index, opts: &LintOptions) -> Vec<(Finding, bool)> {
    let cx = Context {
        original: &d.original,
        written: d.written(),
        effective: &d.admitted.object,
        errors: &[],
        annotation_problems: &[],
        id: Some(&d.object.id),
        objects: Some(index),
        settings: &opts.settings,
    };
    let mut out = Vec::new();
    for rule in rules::ALL {
        let meta = rule.meta();
        if meta.needs_objects && opts.level(meta).is_some() {
            rule.check(&cx, &mut out);
        }
    }
    out.into_iter().map(|f| (f, false)).collect()
}

/// Turns findings into diagnostics: severity after configuration, suppression, positions of
/// the finding and its related places. Returns them and the number suppressed.
fn position_findings<'a>(
    findings: Vec<(Finding, bool)>,
    h: &Subject<'a>,
    find: &FindObject<'a>,
    opts: &LintOptions,
) -> (Vec<Diagnostic>, usize) {
    let mut out = Vec::new();
    let mut suppressed = 0;
    for (f, about_key) in findings {
        let Some(mut severity) = opts.level(f.rule) else { continue };
        if f.severity != f.rule.severity && !opts.levels.contains_key(f.rule.id) {
            // The rule chose another severity for this finding, and the user did not override it.
            severity = f.severity;
        }
        let (file, node, path, on_hpa, label) = match &f.location {
            Location::Hpa(path) => (h.file, h.node, path.clone(), true, h.label.clone()),
            Location::Object { id, path } => match find(id) {
                Some((fi, node, label)) => (fi, node, path.clone(), false, label),
                None => (h.file, h.node, String::new(), true, h.label.clone()),
            },
        };
        if f.rule.id != "HPA000" {
            let other = if on_hpa { suppress::Ignore::default() } else { suppress::from_node(node) };
            if h.ignore.covers(f.rule) || other.covers(f.rule) {
                suppressed += 1;
                continue;
            }
        }
        let (span, exact) = hpa::position(node, if on_hpa { h.version } else { None }, &path, about_key);
        let related = f
            .related
            .iter()
            .filter_map(|(loc, msg)| {
                let (fi, node, path, v) = match loc {
                    Location::Hpa(p) => (h.file, h.node, p.clone(), h.version),
                    Location::Object { id, path } => {
                        let (fi, node, _) = find(id)?;
                        (fi, node, path.clone(), None)
                    }
                };
                Some(Related { file: fi, span: hpa::position(node, v, &path, false).0, message: msg.clone() })
            })
            .collect();
        out.push(Diagnostic {
            rule: f.rule,
            severity,
            file,
            span,
            exact,
            object: Some(label),
            path,
            message: f.message,
            help: f.help,
            related,
            fix: f.fix.map(|x| x.replacement),
        });
    }
    (out, suppressed)
}

/// Phase timings on standard error when `HPA_LINT_TIMINGS` is set (for profiling).
pub struct Timer(Option<std::time::Instant>);

impl Timer {
    /// Starts timing if `HPA_LINT_TIMINGS` is set.
    pub fn start() -> Timer {
        Timer(std::env::var_os("HPA_LINT_TIMINGS").map(|_| std::time::Instant::now()))
    }

    /// Prints the time since the start.
    #[expect(clippy::print_stderr, reason = "profiling output, asked for with HPA_LINT_TIMINGS")]
    pub fn lap(&self, phase: &str) {
        if let Some(t) = self.0 {
            eprintln!("{:>9.3} ms  {phase}", t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

/// The first object defined in two of the files (kind, namespace and name; the API group
/// version may differ), with the positions of the two files.
fn duplicate_definition(per_file: &[FileResult]) -> Option<(String, usize, usize)> {
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, r) in per_file.iter().enumerate() {
        for obj in &r.objects {
            let id = &obj.id;
            if id.name.is_empty() || id.kind.is_empty() {
                continue;
            }
            let key = (id.kind.as_str(), id.namespace.as_str(), id.name.as_str());
            match seen.get(&key) {
                Some(&first) if first != i => {
                    return Some((format!("{} {}/{}", id.kind, id.namespace, id.name), first, i));
                }
                Some(_) => {}
                None => {
                    seen.insert(key, i);
                }
            }
        }
    }
    None
}

/// Unreadable files and YAML syntax errors, as HPA000.
fn file_level_diagnostics(i: usize, f: &SourceFile, parsed: &Parsed) -> Vec<Diagnostic> {
    let invalid = rules::find("HPA000").map(|r| r.meta());
    let Some(invalid) = invalid else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(reason) = &f.unreadable {
        out.push(Diagnostic {
            rule: invalid,
            severity: Severity::Error,
            file: i,
            span: Span::default(),
            exact: true,
            object: None,
            path: String::new(),
            message: format!("cannot read this file: {reason}"),
            help: Some("lint YAML or JSON text files only (use --exclude to skip others)".into()),
            related: Vec::new(),
            fix: None,
        });
    }
    for doc in parsed.documents.iter().filter(|d| input::is_kindless_list(&d.root)) {
        let span = doc.root.entry("items").map_or(doc.root.span, |e| e.key.span);
        out.push(Diagnostic {
            rule: invalid,
            severity: Severity::Error,
            file: i,
            span,
            exact: false,
            object: None,
            path: "kind".into(),
            message: "a document with items but no kind: kubectl refuses it (\"Object 'Kind' is missing\")".into(),
            help: Some("add `kind: List` (its items are checked below as they are)".into()),
            related: Vec::new(),
            fix: None,
        });
    }
    if let Some(e) = &parsed.error {
        out.push(Diagnostic {
            rule: invalid,
            severity: Severity::Error,
            file: i,
            span: Span { start: e.mark, end: e.mark },
            exact: true,
            object: None,
            path: String::new(),
            message: e.message.clone(),
            help: Some("fix the syntax; nothing after this point in the file was checked".into()),
            related: Vec::new(),
            fix: None,
        });
    }
    out
}
