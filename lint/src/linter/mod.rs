//! The linter: every object of every input file indexed, every HPA run through kube-apiserver's
//! pipeline (rule HPA000) and the rules of `hpa_core::rules`, findings mapped to the line and
//! column of the field they are about.

pub mod config;
pub mod index;
pub mod report;
pub mod suppress;

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use hpa_core::admission::Options;
use hpa_core::api::{ApiVersion, DecodeErrorKind};
use hpa_core::convert;
use hpa_core::rules::{self, Context, Finding, Location, ObjectId, RuleMeta, Settings, Severity};
use rayon::prelude::*;
use serde_json::Value;

use crate::hpa::{self, Checked};
use crate::input::{self, ObjectRef, SourceFile};
use crate::source::{Node, Span};

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

/// An HPA of the input, after decoding and admission.
struct HpaEntry<'a> {
    file: usize,
    obj: ObjectRef<'a>,
    id: ObjectId,
    version: Option<ApiVersion>,
    checked: Checked,
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

/// Every object of a manifest set by identity: its file, node and label.
type Locations<'a> = HashMap<ObjectId, (usize, &'a Node, ObjectLabel)>;

/// What the first pass found in one file.
struct FileResult<'a> {
    objs: Vec<ObjectRef<'a>>,
    hpas: Vec<HpaEntry<'a>>,
    indexed: Vec<index::Indexed>,
    diags: Vec<Diagnostic>,
    suppressed: usize,
}

fn object_id(obj: &ObjectRef<'_>, default_namespace: &str) -> ObjectId {
    ObjectId {
        api_version: obj.api_version().unwrap_or_default().to_string(),
        kind: obj.kind().unwrap_or_default().to_string(),
        namespace: obj.namespace().unwrap_or(default_namespace).to_string(),
        name: obj.name().unwrap_or_default().to_string(),
    }
}

fn label(obj: &ObjectRef<'_>, id: &ObjectId) -> ObjectLabel {
    ObjectLabel {
        kind: id.kind.clone(),
        namespace: id.namespace.clone(),
        name: id.name.clone(),
        document: obj.document,
        item: obj.item,
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

/// Lints loaded files.
pub fn lint(files: &[SourceFile], opts: &LintOptions) -> Outcome {
    let admission = opts.admission();
    let timer = Timer::start();
    // 1. Every object, per file in parallel: HPAs decoded and admitted.
    let per_file: Vec<FileResult<'_>> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            let mut diags = file_level_diagnostics(i, f, opts);
            let mut suppressed = 0;
            let objs = input::objects(i, f);
            let mut hpas = Vec::new();
            let mut indexed = Vec::new();
            for obj in &objs {
                let id = object_id(obj, &opts.default_namespace);
                if obj.is_hpa() {
                    let value = obj.to_json();
                    let mut checked = hpa::check(&value, None, &admission);
                    let dups = hpa::duplicate_key_errors(f, obj);
                    if !dups.is_empty() {
                        let mut errors: Vec<_> = dups.into_iter().map(|(e, _)| e).collect();
                        if let Checked::Undecodable { errors: more, .. } = checked {
                            errors.extend(more);
                        }
                        checked =
                            Checked::Undecodable { version: obj.api_version().and_then(ApiVersion::parse), errors };
                    }
                    let version = obj.api_version().and_then(ApiVersion::parse);
                    hpas.push(HpaEntry { file: i, obj: *obj, id, version, checked });
                    continue;
                }
                if obj.kind().is_some() {
                    indexed.extend(index::prepare(id.clone(), obj.node));
                }
                if let Some(finding) =
                    rules::check_misspelled_kind(obj.api_version().unwrap_or(""), obj.kind().unwrap_or(""))
                    && let Some(sev) = opts.level(finding.rule)
                {
                    if suppress::from_node(obj.node).covers(finding.rule) {
                        suppressed += 1;
                        continue;
                    }
                    let path = match &finding.location {
                        Location::Hpa(p) => p.clone(),
                        Location::Object { path, .. } => path.clone(),
                    };
                    let l = crate::source::locate(obj.node, &path);
                    diags.push(Diagnostic {
                        rule: finding.rule,
                        severity: sev,
                        file: i,
                        span: l.span,
                        exact: l.exact,
                        object: Some(label(obj, &id)),
                        path,
                        message: finding.message,
                        help: finding.help,
                        related: Vec::new(),
                        fix: None,
                    });
                }
            }
            FileResult { objs, hpas, indexed, diags, suppressed }
        })
        .collect();

    timer.lap("decode, admit");
    // 2. The manifest sets, and an index of each.
    let (set_of, sets, notes) = manifest_sets(files, &per_file, opts);
    let mut indexes: Vec<index::Index<'_>> = (0..sets).map(|_| index::Index::default()).collect();
    let mut outcome = Outcome { notes, ..Outcome::default() };
    let mut per_file = per_file;
    let mut indexed: Vec<Vec<index::Indexed>> = per_file.iter_mut().map(|r| std::mem::take(&mut r.indexed)).collect();
    for (file, r) in per_file.iter().enumerate() {
        let set = set_of[file];
        outcome.objects += r.objs.len();
        outcome.hpas += r.hpas.len();
        outcome.suppressed += r.suppressed;
        for entry in indexed[file].drain(..) {
            indexes[set].add(entry);
        }
        for h in &r.hpas {
            if let Checked::Admitted { outcome: o, .. } = &h.checked {
                indexes[set].add_hpa(h.id.clone(), &o.object);
            }
        }
    }
    // Where the objects of each set are, built only for sets with a finding about another
    // object than the HPA under check.
    let locations: Vec<OnceLock<Locations<'_>>> = (0..sets).map(|_| OnceLock::new()).collect();
    let locate_in = |set: usize| {
        locations[set].get_or_init(|| {
            let mut map = Locations::new();
            for (file, r) in per_file.iter().enumerate().filter(|(f, _)| set_of[*f] == set) {
                let _ = file;
                for obj in &r.objs {
                    let id = object_id(obj, &opts.default_namespace);
                    let l = label(obj, &id);
                    map.entry(id).or_insert((obj.file, obj.node, l));
                }
            }
            map
        })
    };

    timer.lap("index");
    // 3. The rules, per HPA in parallel.
    let hpa_entries: Vec<&HpaEntry<'_>> = per_file.iter().flat_map(|r| r.hpas.iter()).collect();
    let results: Vec<(Vec<Diagnostic>, usize)> = hpa_entries
        .par_iter()
        .map(|h| {
            let set = set_of[h.file];
            check_hpa(h, &indexes[set], &|| locate_in(set), opts)
        })
        .collect();
    for r in &per_file {
        outcome.diagnostics.extend(r.diags.iter().cloned());
    }
    for (diags, suppressed) in results {
        outcome.diagnostics.extend(diags);
        outcome.suppressed += suppressed;
    }
    timer.lap("rules");
    outcome.diagnostics.sort_by(|a, b| {
        (a.file, a.span.start.line, a.span.start.col, a.rule.id).cmp(&(
            b.file,
            b.span.start.line,
            b.span.start.col,
            b.rule.id,
        ))
    });
    outcome
}

/// Assigns each file to a manifest set (see [`Scope`]); returns the set of each file, the
/// number of sets, and notes on directories split because they define an object twice.
fn manifest_sets(
    files: &[SourceFile],
    per_file: &[FileResult<'_>],
    opts: &LintOptions,
) -> (Vec<usize>, usize, Vec<String>) {
    let n = files.len();
    match opts.scope {
        Scope::All => (vec![0; n], 1, Vec::new()),
        Scope::File => ((0..n).collect(), n.max(1), Vec::new()),
        Scope::Directory => {
            // Files by directory (standard input is a set of its own).
            let mut dirs: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, f) in files.iter().enumerate() {
                let key = if f.name == input::STDIN_NAME {
                    format!("\0{i}")
                } else {
                    std::path::Path::new(&f.name).parent().map(|p| p.display().to_string()).unwrap_or_default()
                };
                dirs.entry(key).or_default().push(i);
            }
            let mut set_of = vec![0; n];
            let mut sets = 0;
            let mut notes = Vec::new();
            for (dir, members) in dirs {
                match duplicate_definition(per_file, &members, &opts.default_namespace) {
                    Some((what, a, b)) => {
                        let shown = if dir.is_empty() { "." } else { dir.as_str() };
                        notes.push(format!(
                            "{shown}: {what} is defined in both {} and {}, so the directory is not one set of objects applied together; each of its files is checked with its own objects only (use --scope all to match across them)",
                            files[a].name, files[b].name
                        ));
                        for i in members {
                            set_of[i] = sets;
                            sets += 1;
                        }
                    }
                    None => {
                        for i in members {
                            set_of[i] = sets;
                        }
                        sets += 1;
                    }
                }
            }
            (set_of, sets.max(1), notes)
        }
    }
}

/// The first object defined in two files of `members` (kind, namespace and name; the API
/// group version may differ), with the two files.
fn duplicate_definition(
    per_file: &[FileResult<'_>],
    members: &[usize],
    default_namespace: &str,
) -> Option<(String, usize, usize)> {
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    for &i in members {
        for obj in &per_file[i].objs {
            let (Some(kind), Some(name)) = (obj.kind(), obj.name()) else { continue };
            if name.is_empty() {
                continue;
            }
            let ns = obj.namespace().unwrap_or(default_namespace);
            let key = (kind.to_string(), ns.to_string(), name.to_string());
            match seen.get(&key) {
                Some(&first) if first != i => return Some((format!("{kind} {ns}/{name}"), first, i)),
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
fn file_level_diagnostics(i: usize, f: &SourceFile, _opts: &LintOptions) -> Vec<Diagnostic> {
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
    for doc in f.parsed.documents.iter().filter(|d| input::is_kindless_list(&d.root)) {
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
    if let Some(e) = &f.parsed.error {
        out.push(Diagnostic {
            rule: invalid,
            severity: Severity::Error,
            file: i,
            span: Span { start: e.mark, end: e.mark },
            exact: true,
            object: None,
            path: String::new(),
            message: format!("invalid YAML: {}", e.message),
            help: Some("fix the syntax; nothing after this point in the file was checked".into()),
            related: Vec::new(),
            fix: None,
        });
    }
    out
}

/// Runs everything about one HPA; returns its diagnostics and the number suppressed.
fn check_hpa<'a>(
    h: &HpaEntry<'_>,
    index: &index::Index<'_>,
    locations: &dyn Fn() -> &'a Locations<'a>,
    opts: &LintOptions,
) -> (Vec<Diagnostic>, usize) {
    // (finding, whether it is about a key rather than a value)
    let mut findings: Vec<(Finding, bool)> = Vec::new();
    let invalid = rules::find("HPA000").map(|r| r.meta());
    match &h.checked {
        Checked::Undecodable { version, errors } => {
            let removed = rules::find("HPA401").map(|r| r.meta());
            let unknown_version = errors.iter().any(|e| e.kind == DecodeErrorKind::TypeMeta && e.path == "apiVersion");
            let api_version = h.obj.api_version().unwrap_or_default();
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
                    let key = e.kind == DecodeErrorKind::UnknownField || e.message.starts_with(hpa::DUPLICATE_FIELD);
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
            let written = convert::to_internal(object).map(|c| c.object).unwrap_or_else(|_| outcome.object.clone());
            let cx = Context {
                original: object,
                written: &written,
                effective: &outcome.object,
                errors: &outcome.errors,
                annotation_problems: &outcome.annotation_problems,
                id: Some(&h.id),
                objects: Some(index),
                settings: &opts.settings,
            };
            let mut out = Vec::new();
            for rule in rules::ALL {
                let id = rule.meta().id;
                if opts.level(rule.meta()).is_none() {
                    continue;
                }
                // For an object kube-apiserver rejects, only its errors (and its version) matter.
                if !outcome.errors.is_empty() && id != "HPA000" && id != "HPA401" {
                    continue;
                }
                rule.check(&cx, &mut out);
            }
            findings.extend(out.into_iter().map(|f| (f, false)));
        }
    }
    let ignore = suppress::from_node(h.obj.node);
    let mut out = Vec::new();
    let mut suppressed = 0;
    for (f, about_key) in findings {
        let Some(mut severity) = opts.level(f.rule) else { continue };
        if f.severity != f.rule.severity && !opts.levels.contains_key(f.rule.id) {
            // The rule chose another severity for this finding, and the user did not override it.
            severity = f.severity;
        }
        let (file, node, path, on_hpa) = match &f.location {
            Location::Hpa(path) => (h.file, h.obj.node, path.clone(), true),
            Location::Object { id, path } => match locations().get(id) {
                Some((fi, node, _)) => (*fi, *node, path.clone(), false),
                None => (h.file, h.obj.node, String::new(), true),
            },
        };
        if f.rule.id != "HPA000" {
            let other = if on_hpa { suppress::Ignore::default() } else { suppress::from_node(node) };
            if ignore.covers(f.rule) || other.covers(f.rule) {
                suppressed += 1;
                continue;
            }
        }
        let (span, exact) = position(node, if on_hpa { h.version } else { None }, &path, about_key);
        let related = f
            .related
            .iter()
            .filter_map(|(loc, msg)| {
                let (fi, node, path, v) = match loc {
                    Location::Hpa(p) => (h.file, h.obj.node, p.clone(), h.version),
                    Location::Object { id, path } => {
                        let (fi, node, _) = locations().get(id)?;
                        (*fi, *node, path.clone(), None)
                    }
                };
                Some(Related { file: fi, span: position(node, v, &path, false).0, message: msg.clone() })
            })
            .collect();
        let object = match &f.location {
            Location::Object { id, .. } if !on_hpa => locations().get(id).map(|(_, _, l)| l.clone()),
            _ => Some(label(&h.obj, &h.id)),
        };
        out.push(Diagnostic {
            rule: f.rule,
            severity,
            file,
            span,
            exact,
            object,
            path,
            message: f.message,
            help: f.help,
            related,
            fix: f.fix.map(|x| x.replacement),
        });
    }
    (out, suppressed)
}

/// The span to point at for a field path: the value (or the key when the finding is about
/// the key), or the key of the nearest existing parent.
fn position(node: &Node, version: Option<ApiVersion>, path: &str, about_key: bool) -> (Span, bool) {
    let l = hpa::locate(node, version, path);
    if !l.exact || about_key {
        return (l.key_span.unwrap_or(l.span), l.exact);
    }
    // An item of a list of mappings (a container) is pointed at by its first line.
    if l.key_span.is_none()
        && let Some(crate::source::NodeKind::Map(entries)) =
            crate::source::locate_node(node, &hpa_path(version, node, path)).map(|n| &n.kind)
        && let Some(first) = entries.iter().min_by_key(|e| e.key.span.start.index)
    {
        let end = if first.value.span.end.line == first.key.span.start.line {
            first.value.span.end
        } else {
            first.key.span.end
        };
        return (crate::source::Span { start: l.span.start, end }, true);
    }
    // A whole mapping or list is pointed at by its key, not by every line of it.
    let container = crate::source::locate_node(node, &hpa_path(version, node, path))
        .is_some_and(|n| !matches!(n.kind, crate::source::NodeKind::Scalar(_)));
    match (container, l.key_span) {
        (true, Some(k)) => (k, true),
        _ => (l.span, true),
    }
}

/// The path `hpa::locate` resolved (the remapped one for other versions).
fn hpa_path(version: Option<ApiVersion>, node: &Node, path: &str) -> String {
    hpa::resolved_path(node, version, path)
}
