//! `hpa-lint validate`: every HPA found, validated as kube-apiserver would on create (or on
//! update against `--old`), reported kubectl-style or as JSON.

use std::collections::HashMap;

use hpa_core::{api, check, go};
use serde_json::Value;

use crate::cli::{ClusterArgs, ReportFormat, ValidateArgs};
use crate::commands::common::{ErrorEntry, ValidationEntry, entry_of, json_text, namespace_of};
use crate::commands::settings;
use crate::hpa;
use crate::input::{self, ObjectRef, SourceFile};
use crate::{ExitStatus, Output};

/// Runs `validate`.
pub fn run(args: &ValidateArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    // The configuration's release and gates apply as they do to `lint`.
    let settings = match settings::settings(&args.config, cluster, &[], out) {
        Ok(r) => r.settings,
        Err(e) => return out.fail(&e),
    };
    let mut opts = check::Options::verdict_only(settings.gates().clone());
    opts.request.apply_defaults = !args.no_defaults;
    let (origins, mut io_errors, notes) = input::discover(&args.paths, &args.input.exclude);
    notes.iter().for_each(|n| out.note(n));
    let (files, load_errors) = input::load(&origins, out);
    io_errors.extend(load_errors);
    let (old_origins, old_errors, old_notes) = input::discover(&args.old, &args.input.exclude);
    old_notes.iter().for_each(|n| out.note(n));
    io_errors.extend(old_errors);
    let (old_files, old_load_errors) = input::load(&old_origins, out);
    io_errors.extend(old_load_errors);
    let old_index = index_old(&old_files);

    let per_file: Vec<Result<(Vec<ValidationEntry>, usize), input::InputError>> = {
        use rayon::prelude::*;
        files
            .par_iter()
            .enumerate()
            .map(|(i, f)| input::contained(&f.name, || validate_file(i, f, &old_index, &opts)))
            .collect()
    };
    let mut entries = Vec::new();
    let mut skipped = 0;
    for result in per_file {
        match result {
            Ok((e, s)) => {
                entries.extend(e);
                skipped += s;
            }
            Err(e) => io_errors.push(e),
        }
    }
    for e in &io_errors {
        out.report(e);
    }
    let rendered = match args.output {
        ReportFormat::Json => json_text(&entries),
        ReportFormat::Human => render_human(&entries, skipped),
    };
    out.write(&rendered);
    if !io_errors.is_empty() {
        ExitStatus::Error
    } else if entries.iter().any(|e| !e.allowed) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// Old objects by (namespace, name).
fn index_old(files: &[SourceFile]) -> HashMap<(String, String), ObjectRef<'_>> {
    let mut map = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        for obj in input::objects(i, f) {
            if obj.is_hpa() {
                let ns = obj.namespace().unwrap_or("default").to_string();
                let name = obj.name().unwrap_or_default().to_string();
                map.insert((ns, name), obj);
            }
        }
    }
    map
}

/// Validates every HPA of one file, in the one per-file loop ([`input::walk`]); returns the
/// entries and the number of other objects.
pub fn validate_file(
    index: usize,
    file: &SourceFile,
    old: &HashMap<(String, String), ObjectRef<'_>>,
    opts: &check::Options,
) -> (Vec<ValidationEntry>, usize) {
    let ((mut entries, skipped), problems) = input::walk(index, file, &file.parsed, |contents| {
        let mut entries = Vec::new();
        let mut skipped = 0;
        // What kubectl refuses never reaches kube-apiserver: it is reported below, in kubectl's
        // words, when the file holds objects.
        for obj in contents.counted() {
            if obj.is_hpa() {
                // No `apiVersion` is version `""` to kubectl's RESTMapper: never sent either.
                let served = api::served(obj.api_version().unwrap_or_default(), opts.settings.gates().version());
                entries.push(match served {
                    Err(unserved) => unserved_entry(file, obj, &unserved, opts),
                    Ok(_) => validate_object(file, obj, old, opts),
                });
            } else {
                skipped += 1;
            }
        }
        (entries, skipped)
    });
    if let Some(reason) = &file.unreadable {
        return (vec![problem_entry(file, 0, 1, 1, "SyntaxError", reason)], 0);
    }
    // What kubectl refuses, and an HPA it reads as a list (never sent: no answer to report, but
    // no silence).
    let unsent = input::unsent(file, &problems);
    if !unsent.is_empty() {
        for u in unsent {
            let mut entry = problem_entry(file, u.document, u.line, u.column, u.error_type, &u.message);
            entry.item = u.item;
            entry.errors.iter_mut().for_each(|e| e.field = u.field.into());
            entries.push(entry);
        }
        // In document order, as kubectl meets them, and in a List in the order of its lines.
        entries.sort_by_key(|e| (e.document, e.line, e.column));
    }
    if let Some(input::Problem::Syntax(e)) = problems.last() {
        let (line, column) = file.line_col(e.mark);
        entries.push(problem_entry(file, e.document, line, column, "SyntaxError", &e.message));
    }
    (entries, skipped)
}

fn problem_entry(
    file: &SourceFile,
    document: usize,
    line: u32,
    column: u32,
    type_: &str,
    message: &str,
) -> ValidationEntry {
    ValidationEntry {
        file: file.name.clone(),
        document,
        item: None,
        line,
        column,
        api_version: None,
        kind: None,
        namespace: String::new(),
        name: String::new(),
        operation: "CREATE",
        allowed: false,
        message: Some(message.to_string()),
        errors: vec![ErrorEntry {
            type_: type_.into(),
            field: String::new(),
            value: Value::Null,
            detail: message.to_string(),
            message: message.to_string(),
            line,
            column,
        }],
        warnings: Vec::new(),
    }
}

/// The error type of an HPA in a version the release does not serve: kubectl's RESTMapper
/// refuses it (`meta.NoKindMatchError`) before anything is sent.
const NO_KIND_MATCH: &str = "NoKindMatch";

/// An HPA in a version the release does not serve ([`api::served`]): kubectl never sends it,
/// so kube-apiserver never decodes it. `kubectl apply` says (cli-runtime's
/// `mapper.infoForData`) `resource mapping not found for name: "x" namespace: "" from
/// "hpa.yaml": no matches for kind "HorizontalPodAutoscaler" in version "autoscaling/v2beta2"`
/// and `ensure CRDs are installed first` on a line of its own, with the name and namespace as
/// written and the file as named (`STDIN` for standard input); the error's detail is what to
/// do, as `HPA401 removed-api-version` says it.
fn unserved_entry(
    file: &SourceFile,
    obj: &ObjectRef<'_>,
    unserved: &api::Unserved,
    opts: &check::Options,
) -> ValidationEntry {
    let (at_line, at_column) = file.line_col(obj.node.get("apiVersion").unwrap_or(obj.node).span().start);
    let source = if file.name == input::STDIN_NAME { "STDIN" } else { file.name.as_str() };
    let message = format!(
        "resource mapping not found for name: {} namespace: {} from {}: {unserved}\nensure CRDs are installed first",
        go::quote(obj.name().unwrap_or_default()),
        go::quote(obj.namespace().unwrap_or_default()),
        go::quote(source),
    );
    let mut entry = ValidationEntry::of_object(file, obj, opts, false, Some(message.clone()));
    entry.errors.push(ErrorEntry {
        type_: NO_KIND_MATCH.into(),
        field: "apiVersion".into(),
        value: obj.api_version().map_or(Value::Null, Value::from),
        detail: unserved.advice().unwrap_or_else(|| unserved.to_string()),
        message,
        line: at_line,
        column: at_column,
    });
    entry
}

/// Validates one HPA object.
pub fn validate_object(
    file: &SourceFile,
    obj: &ObjectRef<'_>,
    old: &HashMap<(String, String), ObjectRef<'_>>,
    opts: &check::Options,
) -> ValidationEntry {
    let key = (namespace_of(obj, opts), obj.name().unwrap_or_default().to_string());
    let checked = hpa::check_object(obj, old.get(&key), opts);
    entry_of(file, obj, &checked, opts)
}

/// kubectl-style text.
pub fn render_human(entries: &[ValidationEntry], skipped: usize) -> String {
    let mut s = String::new();
    // Documents that are no HPA and did not decode: unreadable ones (a file that is not text, a
    // syntax error, which ends the file), ones kubectl reads but refuses (no object, no kind),
    // and HPAs it reads as lists (a top-level `items`), which it never sends.
    let (mut valid, mut invalid, mut unparsable, mut refused, mut stray, mut unserved) = (0, 0, 0, 0, 0, 0);
    for e in entries {
        let what = match (&e.kind, &e.api_version) {
            (Some(k), Some(v)) => format!("{k} {:?} (namespace {}, {v})", e.name, e.namespace),
            (Some(k), None) => format!("{k} {:?} (no apiVersion)", e.name),
            _ => "document".to_string(),
        };
        if e.allowed {
            valid += 1;
            s.push_str(&format!("{}:{}:{}: ok: {what}\n", e.file, e.line, e.column));
            for w in &e.warnings {
                s.push_str(&format!("  warning: {w}\n"));
            }
            continue;
        }
        if let Some(err) = e.errors.first().filter(|err| err.type_ == NO_KIND_MATCH) {
            // kubectl's refusal as it prints it, then what to do.
            unserved += 1;
            s.push_str(&format!("{}:{}:{}: error: {}\n", e.file, err.line, err.column, err.message));
            if !err.message.contains(&err.detail) {
                s.push_str(&format!("  {}\n", err.detail));
            }
            continue;
        }
        if e.kind.is_none() {
            match e.errors.first().map(|err| err.type_.as_str()) {
                Some("NotAnObject" | "TypeMeta" | "ObjectMeta" | "NestedList" | "UnmarshalTypeError") => refused += 1,
                Some("StrayItems") => stray += 1,
                _ => unparsable += 1,
            }
            for err in &e.errors {
                s.push_str(&format!("{}:{}:{}: error: {}\n", e.file, err.line, err.column, err.message));
            }
            continue;
        }
        invalid += 1;
        s.push_str(&format!("{}:{}:{}: error: {what} would be rejected\n", e.file, e.line, e.column));
        for err in &e.errors {
            s.push_str(&format!("  {}:{}:{}: {}\n", e.file, err.line, err.column, err.message));
        }
        if let Some(m) = &e.message {
            s.push_str(&format!("  kube-apiserver: {m}\n"));
        }
        for w in &e.warnings {
            s.push_str(&format!("  warning: {w}\n"));
        }
    }
    let plural = |n: usize, one: &str, many: &str| if n == 1 { one.to_string() } else { many.to_string() };
    s.push_str(&format!(
        "{} {}: {valid} valid, {invalid} invalid",
        valid + invalid,
        plural(valid + invalid, "HorizontalPodAutoscaler", "HorizontalPodAutoscalers")
    ));
    if unparsable > 0 {
        s.push_str(&format!("; {unparsable} unreadable {}", plural(unparsable, "document", "documents")));
    }
    if refused > 0 {
        s.push_str(&format!("; {refused} {} kubectl cannot decode", plural(refused, "document", "documents")));
    }
    if stray > 0 {
        let what = plural(stray, "HorizontalPodAutoscaler", "HorizontalPodAutoscalers");
        s.push_str(&format!("; {stray} {what} kubectl reads as a list, never sent"));
    }
    if unserved > 0 {
        let what = plural(unserved, "HorizontalPodAutoscaler", "HorizontalPodAutoscalers");
        s.push_str(&format!("; {unserved} {what} in a version the release does not serve, never sent"));
    }
    s.push_str(&format!("; {skipped} other {} skipped\n", plural(skipped, "object", "objects")));
    s
}
