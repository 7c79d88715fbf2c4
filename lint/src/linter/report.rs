//! Rendering lint results: `human` (miette: source snippet, label, help, rule ID and a link to
//! its documentation), `json` (a stable schema), `sarif` (SARIF 2.1.0, for GitHub code
//! scanning) and `github` (workflow-command annotations). One renderer per format, for files
//! and for `hpa-lint cluster` alike: a diagnostic's [`Location`] is a span of a file (a source
//! snippet; `file`, `line` and `column`; a SARIF physical location; `file=` in an annotation)
//! or a live object and a field in it (`namespace/name (Kind) path` heading the message; the
//! object in JSON; SARIF logical locations only; an annotation without a file).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use hpa_core::rules::{self, RuleMeta, Severity};
use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};
use serde::Serialize;
use serde::ser::Serializer;
use serde_json::ser::{Formatter as _, PrettyFormatter};
use serde_json::{Value, json};

use super::live::ClusterObject;
use super::{Diagnostic, LintResults, Location, Note, Place};
use crate::input::{self, SourceFile};

/// Where rule documentation lives.
pub const DOCS_URL: &str = "https://github.com/hpa-toolkit/hpa-toolkit/blob/main/docs/rules.md";

/// The documentation anchor of a rule (GitHub's heading anchors).
pub fn docs_url(rule: &RuleMeta) -> String {
    format!("{DOCS_URL}#{}-{}", rule.id.to_ascii_lowercase(), rule.name)
}

/// The version of the JSON output schema.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// What the diagnostics' locations refer to.
#[derive(Debug, Clone, Copy)]
pub enum Inputs<'a> {
    /// Files: the name of every input, which a [`Location::File`]'s `file` indexes.
    Files(&'a [String]),
    /// A cluster (`hpa-lint cluster`): where its objects were read.
    Cluster(&'a ClusterSource),
}

impl<'a> Inputs<'a> {
    /// The name of input `file` (empty for a cluster, which has none).
    fn name(self, file: usize) -> &'a str {
        match self {
            Inputs::Files(names) => names.get(file).map_or("", String::as_str),
            Inputs::Cluster(_) => "",
        }
    }
}

/// Where the objects of a cluster were read from.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterSource {
    /// The API server's URL.
    pub server: String,
    /// The namespaces read (`None`: all).
    pub namespaces: Option<Vec<String>>,
}

/// `shop/web (HorizontalPodAutoscaler) spec.minReplicas`: a live object and a field in it.
fn object_place(object: &ClusterObject, path: &str) -> String {
    if path.is_empty() { object.describe() } else { format!("{} {path}", object.describe()) }
}

fn severity_word(s: Severity) -> &'static str {
    s.as_str()
}

/// What the human output shows of a diagnostic: where its span and its related places are
/// (byte ranges in their files) and the lines around them. Taken while linting (`shown`),
/// when the text is at hand, so that no file's text is kept for the report and miette reads
/// a few lines per label instead of its file from the start.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The diagnostic's span, then each related place's.
    ranges: Vec<SourceSpan>,
    /// The lines around them: one excerpt per label, those of a file that overlap or touch
    /// joined (miette merges two labels' snippets only when their excerpts overlap).
    excerpts: Vec<Excerpt>,
}

/// Whole lines of a file, from a few lines before a label to a few after it: more than
/// miette shows around one (a line of context).
#[derive(Debug, Clone)]
struct Excerpt {
    file: usize,
    /// The byte offset of its first line in the file.
    offset: usize,
    /// How many lines precede it (as miette counts lines: `\n`, `\r\n` or a lone `\r` ends one).
    line: usize,
    text: String,
}

/// Lines of an excerpt kept before a label and after the label's last line.
const EXCERPT_LINES: usize = 2;

/// What the human output will show of `d` ([`Shown`]), from its files' texts (`file_of`: an
/// input by index; `None` when one is not at hand).
pub(crate) fn shown<'f>(d: &Diagnostic, file_of: &dyn Fn(usize) -> Option<&'f SourceFile>) -> Option<Shown> {
    let related = d.related.iter().map(|r| match &r.place {
        Place::File { file, span } => Some((*file, *span)),
        Place::Object(_) => None,
    });
    let places = std::iter::once(d.file_span()).chain(related);
    let mut ranges = Vec::with_capacity(1 + d.related.len());
    // (file, first byte, end) of the lines each label needs, by file and position.
    let mut wanted: Vec<(usize, usize, usize)> = Vec::with_capacity(1 + d.related.len());
    for place in places {
        let (file, span) = place?;
        let f = file_of(file)?;
        let range = span_of(f, span);
        let b = f.text.as_bytes();
        let from = lines_back(b, range.offset().min(b.len()), EXCERPT_LINES);
        let to = lines_forward(b, (range.offset() + range.len()).min(b.len()), EXCERPT_LINES + 1);
        wanted.push((file, from, to));
        ranges.push(range);
    }
    wanted.sort_unstable();
    let mut excerpts: Vec<Excerpt> = Vec::with_capacity(wanted.len());
    let mut joined: Vec<(usize, usize, usize)> = Vec::with_capacity(wanted.len());
    for (file, from, to) in wanted {
        match joined.last_mut() {
            Some(last) if last.0 == file && from <= last.2 => last.2 = last.2.max(to),
            _ => joined.push((file, from, to)),
        }
    }
    for (file, from, to) in joined {
        excerpts.push(excerpt(file, &file_of(file)?.text, from, to));
    }
    Some(Shown { ranges, excerpts })
}

/// The excerpt of `text` (file `file`) from byte `from` to `to`, both line starts (or ends of
/// the text).
fn excerpt(file: usize, text: &str, from: usize, to: usize) -> Excerpt {
    let b = text.as_bytes();
    Excerpt {
        file,
        offset: from,
        line: lines_before(b, from),
        text: lone_cr_as_lf(text.get(from..to).unwrap_or_default()),
    }
}

/// `text` with each lone `\r` written `\n`: one byte for one, so spans stay. miette's
/// `read_span` ends a line at a lone `\r` (as YAML does), but its graphical renderer
/// (`GraphicalReportHandler::get_lines`) does not: it printed the lines of a file whose lines
/// end so as one, numbered as its first, the `\r` written to the terminal.
fn lone_cr_as_lf(text: &str) -> String {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(if c == '\r' && chars.peek() != Some(&'\n') { '\n' } else { c });
    }
    out
}

/// The excerpt of a label between bytes `start` and `end` of `text`, alone.
#[cfg(test)]
fn label_excerpt(text: &str, start: usize, end: usize) -> Excerpt {
    let b = text.as_bytes();
    let from = lines_back(b, start.min(b.len()), EXCERPT_LINES);
    excerpt(0, text, from, lines_forward(b, end.min(b.len()), EXCERPT_LINES + 1))
}

/// Whether a line starts at byte `p` (miette's line breaks: `\n`, `\r\n`, a lone `\r`).
fn is_line_start(b: &[u8], p: usize) -> bool {
    p == 0 || b[p - 1] == b'\n' || (b[p - 1] == b'\r' && b.get(p) != Some(&b'\n'))
}

/// The start of the line `n` lines above the one holding byte `p`.
fn lines_back(b: &[u8], mut p: usize, n: usize) -> usize {
    let mut found = 0;
    while p > 0 {
        if is_line_start(b, p) {
            if found == n {
                return p;
            }
            found += 1;
        }
        p -= 1;
    }
    0
}

/// The start of the `n`th line after the one holding byte `p` (the end of the text if there
/// are fewer).
fn lines_forward(b: &[u8], mut p: usize, n: usize) -> usize {
    let mut found = 0;
    while p < b.len() {
        p += 1;
        if is_line_start(b, p) {
            found += 1;
            if found == n {
                return p;
            }
        }
    }
    b.len()
}

/// How many lines precede byte `p`, a line start.
fn lines_before(b: &[u8], p: usize) -> usize {
    let before = &b[..p];
    if memchr::memchr(b'\r', before).is_none() {
        return memchr::memchr_iter(b'\n', before).count();
    }
    (1..=p).filter(|&q| is_line_start(b, q)).count()
}

/// A diagnostic as miette renders it.
#[derive(Debug)]
struct Rendered<'a> {
    message: String,
    code: Option<String>,
    severity: miette::Severity,
    help: Option<String>,
    url: Option<String>,
    /// The file's excerpts (none for a live object).
    source: Option<Source<'a>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered<'a>>,
}

impl std::fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl MietteDiagnostic for Rendered<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.code.as_ref().map(|c| Box::new(c) as Box<dyn std::fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn url<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.url.as_ref().map(|u| Box::new(u) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() { None } else { Some(Box::new(self.labels.iter().cloned())) }
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn MietteDiagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|r| r as &dyn MietteDiagnostic)))
        }
    }
}

/// A file as miette reads it, from excerpts of it: spans, lines and columns are the file's.
/// A snippet's `line_count` is the number of lines it holds, as `MietteSpanContents` documents
/// it. miette 7.6's `context_info` returns the lines from the start of its text instead, and
/// `render_snippets` then merges two labels into one snippet whenever the second lies within
/// about twice the first one's line number: a related place 30 lines below a finding would
/// print every line in between.
#[derive(Debug)]
struct Source<'a> {
    name: &'a str,
    file: usize,
    excerpts: &'a [Excerpt],
}

impl SourceCode for Source<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let excerpt = self
            .excerpts
            .iter()
            .filter(|e| e.file == self.file)
            .find(|e| e.offset <= span.offset() && span.offset() + span.len() <= e.offset + e.text.len())
            .ok_or(MietteError::OutOfBounds)?;
        let offset = excerpt.offset;
        let within = span.offset() - offset;
        let contents = excerpt.text.as_str().read_span(
            &SourceSpan::from((within, span.len())),
            context_lines_before,
            context_lines_after,
        )?;
        let lines = contents.data().iter().filter(|&&b| b == b'\n').count();
        let fixed = MietteSpanContents::new_named(
            self.name.to_string(),
            contents.data(),
            SourceSpan::from((contents.span().offset() + offset, contents.span().len())),
            contents.line() + excerpt.line,
            contents.column(),
            lines,
        );
        Ok(Box::new(fixed))
    }
}

/// Options of the human output.
#[derive(Debug, Clone, Copy)]
pub struct HumanStyle {
    /// ANSI colors.
    pub color: bool,
    /// Terminal width.
    pub width: usize,
}

fn span_of(file: &SourceFile, d_span: crate::source::Span) -> SourceSpan {
    let r = file.lines().range(&file.text, d_span);
    let len = (r.end - r.start).max(usize::from(!file.text.is_empty() && r.start < file.text.len()));
    SourceSpan::from((r.start, len))
}

/// Renders for people. A diagnostic in a file shows the source lines of its [`Shown`] (one
/// without it is written on one line); one on a live object is headed by the object and field,
/// its related places listed in its help. The notes follow the diagnostics (a command that
/// prints them elsewhere, as `cluster` does on standard error, takes them out first), then the
/// summary line.
pub fn human(outcome: &LintResults, inputs: Inputs<'_>, style: HumanStyle, out: &mut dyn io::Write) -> io::Result<()> {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    // Each diagnostic is rendered on its own: they are rendered on rayon's threads.
    let render = |d: &Diagnostic, buf: &mut String| {
        let rendered = match &d.location {
            Location::File { .. } => d.shown.as_deref().and_then(|shown| rendered(d, shown, inputs)),
            Location::Object(object) => Some(rendered_live(d, object)),
        };
        if rendered.is_none_or(|r| handler.render_report(buf, &r).is_err()) {
            let _ = match &d.location {
                Location::File { file, span, .. } => {
                    let (l, c) = input::line_col(span.start);
                    writeln!(
                        buf,
                        "{}:{l}:{c}: {}: {} [{}]",
                        inputs.name(*file),
                        severity_word(d.severity),
                        d.message,
                        d.rule.id
                    )
                }
                Location::Object(object) => writeln!(
                    buf,
                    "{}: {}: {} [{}]",
                    object_place(object, &d.path),
                    severity_word(d.severity),
                    d.message,
                    d.rule.id
                ),
            };
        }
        buf.push('\n');
    };
    in_order(
        &outcome.diagnostics,
        |chunk| {
            let mut buf = String::new();
            for d in chunk {
                render(d, &mut buf);
            }
            buf
        },
        |part| out.write_all(part.as_bytes()),
    )?;
    for note in &outcome.notes {
        writeln!(out, "note: {note}")?;
    }
    out.write_all(summary_line(outcome).as_bytes())
}

/// A diagnostic on a live object as miette renders it: no source, the object and field ahead
/// of the message, and the related places (`see namespace/name (Kind) path: label`) after its
/// help.
fn rendered_live<'a>(d: &'a Diagnostic, object: &ClusterObject) -> Rendered<'a> {
    let mut help = d.help.as_deref().unwrap_or_default().to_string();
    for r in &d.related {
        if let Place::Object(place) = &r.place {
            if !help.is_empty() {
                help.push('\n');
            }
            let _ = write!(help, "see {}: {}", object_place(&place.0, &place.1), r.message);
        }
    }
    Rendered {
        message: format!("{}: {}", object_place(object, &d.path), d.message),
        code: Some(format!("{} {}", d.rule.id, d.rule.name)),
        severity: miette_severity(d.severity),
        help: (!help.is_empty()).then_some(help),
        url: Some(docs_url(d.rule)),
        source: None,
        labels: Vec::new(),
        related: Vec::new(),
    }
}

fn miette_severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

/// A diagnostic as miette renders it, its source read from what was kept of it (`None` when
/// an excerpt is missing).
fn rendered<'a>(d: &'a Diagnostic, shown: &'a Shown, inputs: Inputs<'a>) -> Option<Rendered<'a>> {
    let Location::File { file: d_file, exact, object, .. } = &d.location else { return None };
    let names = match inputs {
        Inputs::Files(names) => names,
        Inputs::Cluster(_) => return None,
    };
    let source = |file: usize| -> Option<Source<'a>> {
        Some(Source { name: names.get(file)?, file, excerpts: &shown.excerpts })
    };
    let what = object
        .as_ref()
        .map(|o| match (o.kind.is_empty(), o.shown_name().is_empty()) {
            (true, _) => String::new(),
            (false, true) => format!(" ({} without a name)", o.kind),
            // Messages about other objects name them already.
            (false, false) if d.message.contains(&o.describe()) => String::new(),
            (false, false) => format!(" ({})", o.describe()),
        })
        .unwrap_or_default();
    let label_text = match (d.path.is_empty(), *exact) {
        (true, _) => d.rule.name.to_string(),
        (false, true) => d.path.clone(),
        (false, false) => format!("{} is missing here", d.path),
    };
    // Related places in the diagnostic's own file are labels of its snippet: one finding,
    // one report. Those in another file (a workload defined elsewhere) are labels of one
    // related report per file, of its own source, without a code of its own; its message is
    // their labels' texts, each once.
    let mut labels = vec![LabeledSpan::new_primary_with_span(Some(label_text), *shown.ranges.first()?)];
    // (file, messages, labels) of each other file, in the order of their first related place.
    let mut elsewhere: Vec<(usize, Vec<&str>, Vec<LabeledSpan>)> = Vec::new();
    for (r, span) in d.related.iter().zip(shown.ranges.iter().skip(1)) {
        let Place::File { file: r_file, .. } = r.place else { return None };
        let label = LabeledSpan::new_with_span(Some(r.message.to_string()), *span);
        if r_file == *d_file {
            labels.push(label);
            continue;
        }
        let at = match elsewhere.iter().position(|(file, ..)| *file == r_file) {
            Some(at) => at,
            None => {
                elsewhere.push((r_file, Vec::new(), Vec::new()));
                elsewhere.len() - 1
            }
        };
        let (_, messages, labels) = &mut elsewhere[at];
        if !messages.contains(&&*r.message) {
            messages.push(&r.message);
        }
        labels.push(label);
    }
    let mut related = Vec::with_capacity(elsewhere.len());
    for (file, messages, labels) in elsewhere {
        related.push(Rendered {
            message: messages.join("; "),
            code: Some("see also".into()),
            severity: miette::Severity::Advice,
            help: None,
            url: None,
            source: Some(source(file)?),
            labels,
            related: Vec::new(),
        });
    }
    Some(Rendered {
        message: format!("{}{what}", d.message),
        code: Some(format!("{} {}", d.rule.id, d.rule.name)),
        severity: miette_severity(d.severity),
        help: d.help.as_deref().map(str::to_string),
        url: Some(docs_url(d.rule)),
        source: Some(source(*d_file)?),
        labels,
        related,
    })
}

/// `3 errors, 1 warning, 0 infos in 12 HPAs (40 objects)`.
pub fn summary_line(outcome: &LintResults) -> String {
    let severities = outcome.diagnostics.iter().map(|d| d.severity);
    summary_text(severities, outcome.hpas, outcome.objects, outcome.suppressed)
}

/// The summary line of files and of a cluster: the count of each severity, HPAs and objects,
/// and what `hpa-lint.dev/ignore` annotations suppressed.
fn summary_text(severities: impl Iterator<Item = Severity>, hpas: usize, objects: usize, suppressed: usize) -> String {
    let mut counts = [0usize; 3];
    for s in severities {
        counts[match s {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        }] += 1;
    }
    let plural = |n: usize, w: &str| if n == 1 { format!("{n} {w}") } else { format!("{n} {w}s") };
    let mut s = format!(
        "{}, {}, {} in {} ({})",
        plural(counts[0], "error"),
        plural(counts[1], "warning"),
        plural(counts[2], "info"),
        plural(hpas, "HorizontalPodAutoscaler"),
        plural(objects, "object"),
    );
    if suppressed > 0 {
        let _ = write!(s, "; {suppressed} suppressed by {}", hpa_core::rules::IGNORE_ANNOTATION);
    }
    s.push('\n');
    s
}

/// Line, column, end line and end column (1-based) of a span.
fn position(d: crate::source::Span) -> (u32, u32, u32, u32) {
    let (l, c) = input::line_col(d.start);
    let (el, ec) = input::line_col(d.end);
    (l, c, el.max(l), if el > l { ec } else { ec.max(c) })
}

/// Serializes the items of an iterator as a sequence, without collecting them: the reports
/// are written as they are serialized.
struct Items<F>(F);

impl<I, F> Serialize for Items<F>
where
    F: Fn() -> I,
    I: Iterator<Item: Serialize>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

/// Items rendered at once on rayon's threads: enough to share the work, few enough that what
/// is rendered and not yet written stays around a megabyte.
const BATCH: usize = 1024;

/// Items one thread renders into one buffer.
const CHUNK: usize = 64;

/// Writes a report as pretty-printed JSON and a newline, its long sequence (the diagnostics)
/// rendered on rayon's threads. `frame` is the report with that sequence empty, at `key`
/// (`"key": []`, found as text: the first such text is the key, since a quote inside a JSON
/// string is escaped), its items `depth` levels deep; `render` gives each of `items`. The
/// bytes are those serde_json writes for the whole report: each item is pretty-printed on its
/// own at `depth` levels ([`nested_at`]), between the formatter's
/// separators.
fn write_json<'a, T: Sync, S: Serialize>(
    out: &mut dyn io::Write,
    frame: &impl Serialize,
    (key, depth): (&str, usize),
    items: &'a [T],
    render: impl Fn(&'a T) -> S + Sync,
) -> io::Result<()> {
    let mut text = serde_json::to_vec_pretty(frame)?;
    text.push(b'\n');
    let empty = format!("\"{key}\": []");
    let Some(at) = memchr::memmem::find(&text, empty.as_bytes()).map(|i| i + empty.len() - 1) else {
        return Err(io::Error::other(format!("no empty {key:?} in the report's frame")));
    };
    if items.is_empty() {
        return out.write_all(&text);
    }
    // Up to the sequence's `[`; then each item after `,`, a line break and its indentation
    // (no `,` before the first), then a line break and the indentation of the `]`.
    out.write_all(&text[..at])?;
    let indent = "  ".repeat(depth);
    let before = format!(",\n{indent}");
    let mut first = true;
    in_order(
        items,
        |chunk| -> serde_json::Result<Vec<u8>> {
            let mut buf = Vec::new();
            for each in chunk {
                buf.extend_from_slice(before.as_bytes());
                let formatter = nested_at(depth).map_err(serde_json::Error::io)?;
                render(each).serialize(&mut serde_json::Serializer::with_formatter(&mut buf, formatter))?;
            }
            Ok(buf)
        },
        |part| {
            let part = part?;
            out.write_all(if std::mem::take(&mut first) { &part[1..] } else { &part })
        },
    )?;
    out.write_all(b"\n")?;
    out.write_all(&indent.as_bytes()[indent.len().min(2)..])?;
    out.write_all(&text[at..])
}

/// Renders `items` on rayon's threads, [`CHUNK`] of them into each part, and hands the parts
/// to `write` in order, [`BATCH`] items at a time.
fn in_order<'a, T: Sync, P: Send>(
    items: &'a [T],
    render: impl Fn(&'a [T]) -> P + Sync,
    mut write: impl FnMut(P) -> io::Result<()>,
) -> io::Result<()> {
    use rayon::prelude::*;
    for batch in items.chunks(BATCH) {
        let parts: Vec<P> = batch.par_chunks(CHUNK).map(&render).collect();
        for part in parts {
            write(part)?;
        }
    }
    Ok(())
}

/// serde_json's `PrettyFormatter` (two spaces) for a value nested `depth` levels deep, so that
/// its lines are where the formatter puts them when it writes the whole report: its depth is
/// private, so it opens `depth` arrays into a sink (which only counts them).
fn nested_at(depth: usize) -> io::Result<PrettyFormatter<'static>> {
    let mut formatter = PrettyFormatter::new();
    (0..depth).try_for_each(|_| formatter.begin_array(&mut io::sink()))?;
    Ok(formatter)
}

/// The stable JSON schema (version 1). A cluster's report says where it was read
/// (`cluster`) and has no `files`.
#[derive(Serialize)]
struct JsonReport<'a, D> {
    version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a ClusterSource>,
    summary: JsonSummary,
    diagnostics: D,
    notes: &'a [Note],
}

/// A note of files is its sentence; one of a cluster says which kind of note it is.
impl Serialize for Note {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        match self.kind {
            None => serializer.serialize_str(&self.message),
            Some(kind) => {
                let mut s = serializer.serialize_struct("Note", 2)?;
                s.serialize_field("kind", kind)?;
                s.serialize_field("message", &self.message)?;
                s.end()
            }
        }
    }
}

#[derive(Serialize)]
struct JsonSummary {
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<usize>,
    objects: usize,
    hpas: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    suppressed: usize,
}

/// A diagnostic: in a file (`file`, `line`, `column`, `endLine`, `endColumn`, and its object
/// with its document), or on a live object (the object with its `apiVersion`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonDiagnostic<'a, R> {
    rule: &'a str,
    name: &'a str,
    severity: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
    object: Option<JsonObject<'a>>,
    path: &'a str,
    message: &'a str,
    help: Option<&'a str>,
    related: R,
    fix: Option<&'a Value>,
    docs: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonObject<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    api_version: Option<&'a str>,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    /// `metadata.generateName` of an object written with it and no name.
    #[serde(skip_serializing_if = "Option::is_none")]
    generate_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    document: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<Option<usize>>,
}

impl<'a> JsonObject<'a> {
    fn live(o: &'a ClusterObject) -> JsonObject<'a> {
        JsonObject {
            api_version: Some(&o.api_version),
            kind: &o.kind,
            namespace: o.namespace.as_deref(),
            name: &o.name,
            generate_name: None,
            document: None,
            item: None,
        }
    }
}

/// A related place: in a file (`file`, `line`, `column`) or a field of a live object (`object`,
/// `path`).
#[derive(Serialize)]
struct JsonRelated<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<JsonObject<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    message: &'a str,
}

/// The stable JSON schema (version 1), written to `out`.
pub fn json(outcome: &LintResults, inputs: Inputs<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let report = JsonReport {
        version: JSON_SCHEMA_VERSION,
        cluster: match inputs {
            Inputs::Files(_) => None,
            Inputs::Cluster(origin) => Some(origin),
        },
        summary: json_summary(outcome, inputs),
        // Written by `write_json`.
        diagnostics: [(); 0],
        notes: &outcome.notes,
    };
    write_json(out, &report, ("diagnostics", 2), &outcome.diagnostics, |d| json_diagnostic(d, inputs))
}

/// The JSON report's summary: counts of inputs, objects and diagnostics by severity.
fn json_summary(outcome: &LintResults, inputs: Inputs<'_>) -> JsonSummary {
    let count = |s: Severity| outcome.diagnostics.iter().filter(|d| d.severity == s).count();
    JsonSummary {
        files: match inputs {
            Inputs::Files(names) => Some(names.len()),
            Inputs::Cluster(_) => None,
        },
        objects: outcome.objects,
        hpas: outcome.hpas,
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        infos: count(Severity::Info),
        suppressed: outcome.suppressed,
    }
}

/// A diagnostic in the JSON schema.
fn json_diagnostic<'a>(d: &'a Diagnostic, inputs: Inputs<'a>) -> JsonDiagnostic<'a, impl Serialize + 'a> {
    let (file, position, object) = match &d.location {
        Location::File { file, span, object, .. } => {
            let object = object.as_ref().map(|o| JsonObject {
                api_version: None,
                kind: &o.kind,
                namespace: o.namespace.as_deref(),
                name: &o.name,
                generate_name: o.generate_name.as_deref(),
                document: Some(o.document),
                item: Some(o.item),
            });
            (Some(inputs.name(*file)), Some(position(*span)), object)
        }
        Location::Object(o) => (None, None, Some(JsonObject::live(o))),
    };
    JsonDiagnostic {
        rule: d.rule.id,
        name: d.rule.name,
        severity: d.severity.as_str(),
        file,
        line: position.map(|p| p.0),
        column: position.map(|p| p.1),
        end_line: position.map(|p| p.2),
        end_column: position.map(|p| p.3),
        object,
        path: &d.path,
        message: &d.message,
        help: d.help.as_deref(),
        related: Items(move || {
            d.related.iter().map(move |r| match &r.place {
                Place::File { file, span } => {
                    let (line, column) = input::line_col(span.start);
                    JsonRelated {
                        file: Some(inputs.name(*file)),
                        line: Some(line),
                        column: Some(column),
                        object: None,
                        path: None,
                        message: &r.message,
                    }
                }
                Place::Object(place) => JsonRelated {
                    file: None,
                    line: None,
                    column: None,
                    object: Some(JsonObject::live(&place.0)),
                    path: Some(&place.1),
                    message: &r.message,
                },
            })
        }),
        fix: d.fix.as_deref(),
        docs: docs_url(d.rule),
    }
}

/// SARIF logical locations of an object and a field in it: the object (`Kind/namespace/name`,
/// or `Kind/name` for a kind without namespaces), and in it the field (kind `property`: as the
/// user wrote it in a file, `spec.targetCPUUtilizationPercentage` for an autoscaling/v1 CPU
/// target).
fn logical_locations<'a>(
    kind: &str,
    namespace: Option<&str>,
    name: Cow<'a, str>,
    path: &'a str,
) -> Vec<SarifLogicalLocation<'a>> {
    let object = match namespace {
        Some(ns) => format!("{kind}/{ns}/{name}"),
        None => format!("{kind}/{name}"),
    };
    let field = (!path.is_empty()).then(|| format!("{object}/{path}"));
    let mut out = vec![SarifLogicalLocation { name, fully_qualified_name: object, kind: "object" }];
    if let Some(field) = field {
        out.push(SarifLogicalLocation { name: path.into(), fully_qualified_name: field, kind: "property" });
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLogicalLocation<'a> {
    name: Cow<'a, str>,
    fully_qualified_name: String,
    kind: &'static str,
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a SARIF artifact URI: relative, forward slashes, percent-encoded where needed.
fn artifact_uri(name: &str) -> String {
    let rel = name.strip_prefix("./").unwrap_or(name).replace('\\', "/");
    let drive = rel.len() > 2 && rel.as_bytes()[1] == b':' && rel.as_bytes()[0].is_ascii_alphabetic();
    let mut out = String::with_capacity(rel.len() + 8);
    if rel.starts_with('/') {
        out.push_str("file://");
    } else if drive {
        out.push_str("file:///");
    }
    for (i, b) in rel.bytes().enumerate() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            b':' if drive && i == 1 => out.push(':'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The rules as SARIF `reportingDescriptor`s (the driver's `rules`), with the registry they
/// index into (a result's `ruleIndex`).
fn sarif_rules() -> (Vec<&'static RuleMeta>, Vec<Value>) {
    let rules_list: Vec<&'static RuleMeta> = rules::ALL.iter().map(|r| r.meta()).collect();
    let rule_objects: Vec<Value> = rules_list
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "name": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.summary},
                "help": {"text": m.docs(), "markdown": m.docs()},
                "helpUri": docs_url(m),
                "defaultConfiguration": {"level": sarif_level(m.severity)},
                "properties": {"tags": ["kubernetes", "hpa"]},
            })
        })
        .collect();
    (rules_list, rule_objects)
}

#[derive(Serialize)]
struct SarifLog<'a, R> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [SarifRun<'a, R>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a, R> {
    tool: SarifTool,
    /// Files' columns (a cluster's report has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    column_kind: Option<&'static str>,
    invocations: [SarifInvocation<'a>; 1],
    /// Where a cluster's objects were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<&'a ClusterSource>,
    results: R,
}

#[derive(Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifInvocation<'a> {
    execution_successful: bool,
    tool_execution_notifications: Vec<SarifNotification<'a>>,
}

#[derive(Serialize)]
struct SarifNotification<'a> {
    level: &'static str,
    message: SarifMessage<'a>,
}

#[derive(Serialize)]
struct SarifMessage<'a> {
    text: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: SarifMessage<'a>,
    locations: [SarifLocation<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifRelated<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation<'a> {
    /// A span of a file (a live object is no artifact: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<SarifPhysical>,
    logical_locations: Vec<SarifLogicalLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRelated<'a> {
    id: usize,
    message: SarifMessage<'a>,
    /// A span of a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<SarifPhysical>,
    /// A field of a live object.
    #[serde(skip_serializing_if = "Option::is_none")]
    logical_locations: Option<Vec<SarifLogicalLocation<'a>>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifArtifact,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

impl SarifPhysical {
    /// A span of a file, as a SARIF physical location.
    fn new(name: &str, span: crate::source::Span) -> SarifPhysical {
        let (start_line, start_column, end_line, end_column) = position(span);
        SarifPhysical {
            artifact_location: SarifArtifact { uri: artifact_uri(name) },
            region: SarifRegion { start_line, start_column, end_line, end_column: end_column.max(start_column) },
        }
    }
}

/// SARIF 2.1.0, written to `out`: physical and logical locations for files, logical locations
/// only for a cluster (with where it was read as the run's `properties`).
pub fn sarif(outcome: &LintResults, inputs: Inputs<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let cluster = match inputs {
        Inputs::Files(_) => None,
        Inputs::Cluster(origin) => Some(origin),
    };
    let (rules_list, rule_objects) = sarif_rules();
    let log = SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "hpa-lint",
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: "https://github.com/hpa-toolkit/hpa-toolkit",
                    rules: rule_objects,
                },
            },
            column_kind: cluster.is_none().then_some("unicodeCodePoints"),
            invocations: [SarifInvocation {
                execution_successful: true,
                tool_execution_notifications: outcome
                    .notes
                    .iter()
                    .map(|n| SarifNotification {
                        level: "note",
                        message: SarifMessage { text: n.message.as_str().into() },
                    })
                    .collect(),
            }],
            properties: cluster,
            // Written by `write_json`.
            results: [(); 0],
        }],
    };
    write_json(out, &log, ("results", 4), &outcome.diagnostics, |d| sarif_result(d, inputs, &rules_list))
}

/// A diagnostic as a SARIF result (`rules`: the driver's rules, which `ruleIndex` indexes).
fn sarif_result<'a>(d: &'a Diagnostic, inputs: Inputs<'_>, rules: &[&RuleMeta]) -> SarifResult<'a> {
    SarifResult {
        rule_id: d.rule.id,
        rule_index: rules.iter().position(|m| m.id == d.rule.id).unwrap_or(0),
        level: sarif_level(d.severity),
        message: SarifMessage {
            text: match &d.help {
                Some(h) => format!("{} ({h})", d.message).into(),
                None => d.message.as_str().into(),
            },
        },
        locations: [match &d.location {
            Location::File { file, span, object, .. } => SarifLocation {
                physical_location: Some(SarifPhysical::new(inputs.name(*file), *span)),
                // An item of a list that writes neither kind nor name has no logical name.
                logical_locations: object
                    .as_ref()
                    .filter(|o| !o.kind.is_empty() || !o.shown_name().is_empty())
                    .map_or_else(Vec::new, |o| {
                        logical_locations(&o.kind, o.namespace.as_deref(), o.shown_name(), &d.path)
                    }),
            },
            Location::Object(o) => SarifLocation {
                physical_location: None,
                logical_locations: logical_locations(&o.kind, o.namespace.as_deref(), o.name.as_str().into(), &d.path),
            },
        }],
        related_locations: d
            .related
            .iter()
            .enumerate()
            .map(|(id, r)| {
                let message = SarifMessage { text: r.message.as_ref().into() };
                match &r.place {
                    Place::File { file, span } => SarifRelated {
                        id,
                        message,
                        physical_location: Some(SarifPhysical::new(inputs.name(*file), *span)),
                        logical_locations: None,
                    },
                    Place::Object(place) => {
                        let (o, path) = &**place;
                        SarifRelated {
                            id,
                            message,
                            physical_location: None,
                            logical_locations: Some(logical_locations(
                                &o.kind,
                                o.namespace.as_deref(),
                                o.name.as_str().into(),
                                path,
                            )),
                        }
                    }
                }
            })
            .collect(),
    }
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, written to `out`: `::error file=...,line=...::message` for
/// a file; for a live object no file, the object and field leading the message.
pub fn github(outcome: &LintResults, inputs: Inputs<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    for note in &outcome.notes {
        writeln!(out, "::notice title=hpa-lint::{}", escape_data(&note.message))?;
    }
    for d in &outcome.diagnostics {
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let title = escape_property(&format!("{} {}", d.rule.id, d.rule.name));
        let help = d.help.as_deref().map(|h| format!(" ({h})")).unwrap_or_default();
        match &d.location {
            Location::File { file, span, .. } => {
                let (line, column, end_line, end_column) = position(*span);
                writeln!(
                    out,
                    "::{cmd} file={},line={line},col={column},endLine={end_line},endColumn={end_column},title={title}::{}",
                    escape_property(inputs.name(*file)),
                    escape_data(&format!("{}{help}", d.message))
                )?;
            }
            Location::Object(o) => writeln!(
                out,
                "::{cmd} title={title}::{}",
                escape_data(&format!("{}: {}{help}", object_place(o, &d.path), d.message))
            )?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_uris_are_uri_references() {
        assert_eq!(artifact_uri("./k8s/web app.yaml"), "k8s/web%20app.yaml");
        assert_eq!(artifact_uri("/srv/repo/hpa.yaml"), "file:///srv/repo/hpa.yaml");
        assert_eq!(artifact_uri("C:\\repo\\hpa.yaml"), "file:///C:/repo/hpa.yaml");
        assert_eq!(artifact_uri("<stdin>"), "%3Cstdin%3E");
    }

    /// miette reads the same lines, spans, line numbers and columns from an excerpt as from
    /// the whole text, whatever ends the lines (a lone `\r` as `\n`, which its renderer
    /// reads as a line break).
    #[test]
    fn excerpts_read_as_the_whole_text() {
        let body = "a: 1\nb:\n  c: 2\n  d: [x, y]\n\n# ñandú ☃\ne: 'long value'\nf:\n- g: 1\n  h: 2\nlast: 3";
        let texts = [
            body.to_string(),
            body.replace('\n', "\r\n"),
            body.replace('\n', "\r"),
            format!("\u{feff}{}\n", body.replace('\n', "\r\n")),
        ];
        for text in &texts {
            // What miette is given of the whole text: its lone `\r`s as `\n`s, as in excerpts.
            let as_given = lone_cr_as_lf(text);
            for start in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                for len in [0, 1, 3, 12] {
                    let end = (start + len).min(text.len());
                    if !text.is_char_boundary(end) {
                        continue;
                    }
                    let span = SourceSpan::from((start, end - start));
                    let e = [label_excerpt(text, start, end)];
                    let source = Source { name: "t", file: 0, excerpts: &e };
                    for context in [0, 1] {
                        let whole = as_given.as_str().read_span(&span, context, context);
                        let part = source.read_span(&span, context, context);
                        match (whole, part) {
                            (Ok(w), Ok(p)) => {
                                let what = format!("{text:?} at {start}+{} with {context}", end - start);
                                assert_eq!(w.data(), p.data(), "{what}");
                                assert_eq!(w.span(), p.span(), "{what}");
                                assert_eq!((w.line(), w.column()), (p.line(), p.column()), "{what}");
                            }
                            (w, p) => assert_eq!(w.is_ok(), p.is_ok(), "{text:?} at {start}"),
                        }
                    }
                }
            }
        }
    }

    /// A report of `n` diagnostics of several shapes (with and without an object, help,
    /// related places and a fix; strings with line breaks, quotes and non-ASCII text), in files
    /// or (`live`) on a cluster's objects.
    fn report_of(n: usize, live: bool) -> (LintResults, Vec<String>) {
        use crate::linter::{ObjectLabel, Related};
        use crate::source::{Mark, Span};
        let at = |line: u32, col: u32| Span {
            start: Mark { index: line * 10 + col, line, col },
            end: Mark { index: line * 10 + col + 4, line, col: col + 4 },
        };
        let live_object = |i: usize| ClusterObject {
            namespace: (!i.is_multiple_of(3)).then(|| format!("ns-{i}")),
            name: format!("web-{i}"),
            kind: "Deployment".into(),
            api_version: "apps/v1".into(),
        };
        let diagnostics = (0..n)
            .map(|i| {
                let line = u32::try_from(i).unwrap_or(0) + 1;
                let shape = i % 4;
                let location = if live {
                    Location::Object(Box::new(live_object(i)))
                } else {
                    Location::File {
                        file: i % 2,
                        span: at(line, 2),
                        exact: shape != 1,
                        object: (shape != 0).then(|| ObjectLabel {
                            kind: "HorizontalPodAutoscaler".into(),
                            namespace: (shape != 2).then(|| format!("ns-{i}").into()),
                            name: format!("web-{i}").into(),
                            generate_name: None,
                            document: i,
                            item: (shape == 3).then_some(i % 5),
                        }),
                    }
                };
                Diagnostic {
                    rule: if shape == 0 { rules::INVALID } else { rules::ALL[i % rules::ALL.len()].meta() },
                    severity: [Severity::Error, Severity::Warning, Severity::Info][i % 3],
                    location,
                    path: if shape == 0 { String::new() } else { format!("spec.metrics[{i}].resource") },
                    message: format!("finding {i}: \"quoted\"\nsecond line, ñandú ☃\t"),
                    help: (shape != 1).then(|| format!("help {i}").into()),
                    related: (0..shape)
                        .map(|r| Related {
                            place: if live {
                                Place::Object(Box::new((live_object(i + r), format!("spec.replicas{r}"))))
                            } else {
                                Place::File { file: (i + r) % 2, span: at(line + 1, 0) }
                            },
                            message: format!("related {r}").into(),
                        })
                        .collect(),
                    fix: (shape == 2)
                        .then(|| Box::new(json!({"spec": {"minReplicas": i, "list": [1, {"a": null}], "empty": {}}}))),
                    shown: None,
                }
            })
            .collect();
        let note = "a note with \"diagnostics\": [] and \"results\": [] in it".to_string();
        let outcome = LintResults {
            diagnostics,
            objects: 2 * n,
            hpas: n,
            suppressed: 1,
            notes: vec![Note { kind: live.then_some("forbidden"), message: note }],
        };
        (outcome, vec!["a.yaml".into(), "dir/b c.yaml".into()])
    }

    /// The JSON and SARIF reports, rendered in parallel batches, are what serde_json writes for
    /// the whole report at once, for files and for a cluster.
    #[test]
    fn reports_are_the_plain_serde_json_render() {
        fn plain(v: &impl Serialize) -> Vec<u8> {
            let mut text = serde_json::to_vec_pretty(v).unwrap_or_default();
            text.push(b'\n');
            text
        }
        let origin = ClusterSource { server: "https://127.0.0.1:6443".into(), namespaces: Some(vec!["shop".into()]) };
        for live in [false, true] {
            for n in [0, 1, 2, CHUNK - 1, CHUNK, CHUNK + 1, BATCH + CHUNK + 3] {
                let (outcome, names) = report_of(n, live);
                let inputs = if live { Inputs::Cluster(&origin) } else { Inputs::Files(&names) };
                let mut got = Vec::new();
                json(&outcome, inputs, &mut got).unwrap_or_else(|e| panic!("{e}"));
                let want = JsonReport {
                    version: JSON_SCHEMA_VERSION,
                    cluster: live.then_some(&origin),
                    summary: json_summary(&outcome, inputs),
                    diagnostics: Items(|| outcome.diagnostics.iter().map(|d| json_diagnostic(d, inputs))),
                    notes: &outcome.notes,
                };
                assert!(got == plain(&want), "json, {n} diagnostics:\n{}", String::from_utf8_lossy(&got));

                let mut got = Vec::new();
                sarif(&outcome, inputs, &mut got).unwrap_or_else(|e| panic!("{e}"));
                let mut whole: Value = serde_json::from_slice(&got).unwrap_or_else(|e| panic!("{e}"));
                let (rules_list, _) = sarif_rules();
                let results: Vec<Value> = outcome
                    .diagnostics
                    .iter()
                    .map(|d| serde_json::to_value(sarif_result(d, inputs, &rules_list)).unwrap_or_default())
                    .collect();
                assert_eq!(whole["runs"][0]["results"].as_array().map(Vec::len), Some(n));
                whole["runs"][0]["results"] = Value::Array(results);
                assert!(got == plain(&whole), "sarif, {n} diagnostics:\n{}", String::from_utf8_lossy(&got));
            }
        }
    }

    #[test]
    fn workflow_commands_escape_their_data() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a,b:c"), "a%2Cb%3Ac");
    }
}
