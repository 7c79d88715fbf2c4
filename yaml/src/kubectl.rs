//! How kubectl reads a YAML file, where that differs from reading it as a YAML stream, and
//! go-yaml's words for what it refuses.
//!
//! kubectl (`k8s.io/apimachinery/pkg/util/yaml`'s `YAMLReader`) cuts a file into documents
//! at every line that starts with `---` (the line is dropped, unless nothing precedes it in
//! the document, where it stays as its first line), and converts each with `sigs.k8s.io/yaml`
//! (`YAMLToJSON`: go-yaml v2 `Unmarshal` of the first YAML document of the piece, then
//! `json.Marshal`). So:
//!
//! - line numbers in its errors count from the piece's first line, and a parser error names
//!   the line *before* the one it is about (go-yaml v2 counts a parser error's line from 0,
//!   a scanner error's from 1, and names no line when the count is 0): [`go_yaml_error`]
//!   maps saphyr's error to go-yaml's message and line;
//! - a separator line followed by anything but a comment is refused (`invalid Yaml document
//!   separator`), where `YAMLReader` meets it: the documents before the one it would end are
//!   read;
//! - what follows a `...` document end inside a piece is never read;
//! - go-yaml refuses control characters anywhere, YAML versions other than 1.1, keys that
//!   are sequences or mappings (`invalid map key`), merge keys whose value is not a mapping
//!   or a list of them, and `json.Marshal` refuses NaN and the infinities;
//! - a text that starts with `{` is a stream of JSON values, read by `encoding/json`: `\u`
//!   escapes of UTF-16 surrogates, which YAML refuses, are its characters and U+FFFD
//!   ([`JsonForSaphyr`]); where a value does not read after none or one, kubectl (1.33 and
//!   later) reads on in YAML ([`json_stream`]).

use std::fmt::Write as _;

use crate::{Mark, Node, NodeKind, Scalar};

/// The prefix kubectl puts before a go-yaml error (after `error parsing FILE: `).
pub(crate) const YAML_TO_JSON: &str = "error converting YAML to JSON: ";

/// One of kubectl's documents: the text between two separator lines (or one JSON value).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece<'a> {
    /// Its text (whole lines), as the parser reads it.
    pub text: &'a str,
    /// Where it starts in the file.
    pub start: Mark,
    /// The separator line kubectl dropped before it, if any.
    pub separator: Option<Mark>,
    /// Where `text` is shorter than the file's text ([`JsonForSaphyr`]), in order.
    pub shorter: &'a [Shorter],
    /// When `text` breaks lines where the piece as written does not (a YAML 1.1 line break,
    /// U+0085, U+2028 or U+2029, given to saphyr as `\n`: [`crate::whitespace`]), the index
    /// of the first character of each line of the piece as written; empty otherwise.
    pub line_starts: &'a [u32],
    /// Lines `text` starts further right than the piece as written ([`Indented`]), in order.
    pub indented: &'a [Indented],
}

impl Piece<'_> {
    /// A mark of this piece's text as a mark of the file.
    pub fn absolute(&self, m: Mark) -> Mark {
        let m = self.as_written(m);
        Mark {
            index: m.index.saturating_add(self.start.index),
            line: m.line.saturating_add(self.start.line).saturating_sub(1),
            col: if m.line <= 1 { m.col.saturating_add(self.start.col) } else { m.col },
        }
    }

    /// A mark of `text` as a mark of the piece as written (the same unless it is
    /// [`shorter`](Self::shorter)).
    pub(crate) fn as_written(&self, m: Mark) -> Mark {
        let m = if self.indented.is_empty() { m } else { Indented::undo(self.indented, m) };
        if !self.line_starts.is_empty() {
            // Same characters, other line breaks: the line and column of the index as written.
            let line = self.line_starts.partition_point(|start| *start <= m.index).max(1);
            let start = self.line_starts.get(line - 1).copied().unwrap_or(0);
            return Mark { index: m.index, line: u32::try_from(line).unwrap_or(u32::MAX), col: m.index - start };
        }
        if self.shorter.is_empty() {
            return m;
        }
        // Sorted by index, so by line too: those before the mark, and of them, those on its line.
        let before = self.shorter.partition_point(|s| s.index < m.index);
        let on_line = before - self.shorter[..before].partition_point(|s| s.line < m.line);
        let by = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).saturating_mul(Shorter::BY);
        Mark { index: m.index.saturating_add(by(before)), line: m.line, col: m.col.saturating_add(by(on_line)) }
    }

    /// The byte offset in `text` of the file's character `index` (see [`Piece::char_at`]).
    pub fn byte_at(&self, index: u32) -> usize {
        let at = self.text_index(index) as usize;
        self.text.char_indices().nth(at).map_or(self.text.len(), |(i, _)| i)
    }

    /// The character of the piece as written at the file's character `index`, read in `text`.
    pub fn char_at(&self, index: u32) -> Option<char> {
        self.text.chars().nth(self.text_index(index) as usize)
    }

    /// The character index in `text` of the file's character `index`.
    fn text_index(&self, index: u32) -> u32 {
        let mut at = index.saturating_sub(self.start.index);
        // Spaces added before the index as written are in `text` too.
        for i in self.indented {
            if i.index > at {
                break;
            }
            at = at.saturating_add(i.by);
        }
        // A shortening at `s.index` of `text` was at `s.index + BY * (those before it)` as written.
        let mut k = 0u32;
        for s in self.shorter {
            if s.index.saturating_add(Shorter::BY.saturating_mul(k)) >= at {
                break;
            }
            k += 1;
        }
        at.saturating_sub(Shorter::BY.saturating_mul(k))
    }
}

/// A place where a piece's text, as read, is [`Shorter::BY`] characters shorter than as
/// written: an escaped UTF-16 surrogate pair (`\ud83d\ude00`, 12 characters) that YAML spells
/// `\U0001f600` (10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shorter {
    /// Character index in the text as read where the shorter spelling starts.
    index: u32,
    /// Its line (1-based, as saphyr counts lines).
    line: u32,
}

impl Shorter {
    /// Characters fewer.
    const BY: u32 = 2;
}

/// Spaces saphyr reads that the piece as written does not have: [`Indented::by`] of them at
/// the start of a line inside a flow collection or a quoted scalar left of the block
/// indentation, where go-yaml (`yaml_parser_scan_flow_scalar`, and
/// `yaml_parser_unroll_indent`, which does nothing in a flow collection) looks at no
/// indentation and saphyr, after YAML 1.2, wants the lines indented; or one before a `:` glued
/// to an alias's name (`*a: b`), which go-yaml's name ends at and saphyr's takes in
/// ([`crate::whitespace`] finds them). Such white space separates tokens or is folded away,
/// so the spaces added change what is read nowhere; marks of the text read map back to the
/// file through [`Piece::indented`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Indented {
    /// Character index in the text as read where the spaces added start.
    pub index: u32,
    /// Spaces added.
    pub by: u32,
    /// Column in the text as read where they start (0: the line's start).
    pub col: u32,
}

impl Indented {
    /// A mark of a text with the spaces of `added` (in order) as a mark of the text without
    /// them; a mark among added spaces is where they start.
    fn undo(added: &[Indented], m: Mark) -> Mark {
        let before = added.partition_point(|i| i.index <= m.index);
        let mut index = m.index;
        for i in &added[..before] {
            index = index.saturating_sub(i.by.min(m.index - i.index));
        }
        // The spaces added on its line before it: its column counts them.
        let mut col = m.col;
        for i in added[..before].iter().rev() {
            if m.col < i.col || m.index - i.index != m.col - i.col {
                break;
            }
            col = col.saturating_sub(i.by.min(m.col - i.col));
        }
        Mark { index, line: m.line, col }
    }
}

/// A JSON value's text rewritten so that saphyr, a YAML parser, reads the strings
/// `encoding/json` reads (kubectl decodes a JSON manifest with it). YAML refuses a `\u` escape
/// of a UTF-16 surrogate (go-yaml and saphyr alike: `found invalid Unicode character escape
/// code`), where JSON reads an escaped pair as the character it encodes and Go's `unquote`
/// makes a lone one U+FFFD. So a lone one is written `\ufffd`
/// ([`hpa_core::go::replace_lone_surrogates`], the same length), and a pair as YAML's
/// `\U` escape of its character, two characters shorter: marks of the text read map back to
/// the file through [`Piece::shorter`].
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonForSaphyr {
    /// The text saphyr reads.
    pub text: String,
    /// Where it is shorter than written.
    pub shorter: Vec<Shorter>,
}

impl JsonForSaphyr {
    /// The rewritten text of a JSON value, or `None` when it has no escaped surrogate (nearly
    /// every one: then it is read as written).
    pub fn of(json: &str) -> Option<JsonForSaphyr> {
        memchr::memmem::find(json.as_bytes(), b"\\u")?;
        let lone_replaced = hpa_core::go::replace_lone_surrogates(json);
        let text = lone_replaced.as_deref().unwrap_or(json);
        let (pairs, shorter) = surrogate_pairs_as_yaml(text);
        pairs.or(lone_replaced).map(|text| JsonForSaphyr { text, shorter })
    }
}

/// `text` (JSON, every surrogate escape in it part of a pair) with each escaped pair written
/// as YAML's `\U` escape of its character, and where it got shorter; `None` when there is none.
/// Outside strings JSON has no backslash, so every backslash starts an escape.
fn surrogate_pairs_as_yaml(text: &str) -> (Option<String>, Vec<Shorter>) {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u32> {
        let escape = bytes.get(at..at + 6)?;
        if escape[0] != b'\\' || escape[1] != b'u' {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&escape[2..]).ok()?, 16).ok()
    };
    let (mut out, mut shorter) = (None::<String>, Vec::new());
    // Characters and lines of `text` up to `counted`, the way saphyr counts them (a line ends
    // at `\n`, `\r\n` or a lone `\r`).
    let (mut counted, mut chars, mut line, mut after_cr) = (0usize, 0u32, 1u32, false);
    let (mut i, mut copied) = (0usize, 0usize);
    while let Some(found) = memchr::memchr(b'\\', &bytes[i..]) {
        i += found;
        let (Some(high @ 0xD800..=0xDBFF), Some(low @ 0xDC00..=0xDFFF)) = (unit(i), unit(i + 6)) else {
            // Another escape (`\"`, `\\`, `\u0041`, ...): its second byte starts none.
            i += 2;
            continue;
        };
        for &b in &bytes[counted..i] {
            if (b as i8) >= -0x40 {
                chars += 1;
            }
            if b == b'\n' && !after_cr || b == b'\r' {
                line += 1;
            }
            after_cr = b == b'\r';
        }
        counted = i;
        let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[copied..i]);
        let _ = write!(o, "\\U{c:08x}");
        // The index in the text as read: those before this one were shorter already.
        let index = chars.saturating_sub(Shorter::BY.saturating_mul(u32::try_from(shorter.len()).unwrap_or(u32::MAX)));
        shorter.push(Shorter { index, line });
        i += 12;
        copied = i;
    }
    if let Some(o) = out.as_mut() {
        o.push_str(&text[copied..]);
    }
    (out, shorter)
}

/// kubectl's pieces of a file, and whether they are exactly its YAML documents.
#[derive(Debug)]
pub(crate) struct Pieces<'a> {
    /// The pieces, in order.
    pub pieces: Vec<Piece<'a>>,
    /// Whether one parser can read them all as one YAML stream: no line starts with `...`
    /// (go-yaml stops a piece there) or `%` (a directive belongs to the piece before the
    /// `---`), and no carriage return or character go-yaml refuses.
    pub one_stream: bool,
    /// The separator line kubectl refuses, with where it is and its words: `YAMLReader` meets
    /// it while reading the document the line would end, so the pieces before that one are
    /// read and that one is not.
    pub error: Option<(Mark, String)>,
}

/// The pieces of a file up to the first separator kubectl refuses, if any (`YAMLReader.Read`
/// of `k8s.io/apimachinery/pkg/util/yaml`).
pub(crate) fn pieces(text: &str) -> Pieces<'_> {
    let bytes = text.as_bytes();
    // Nearly every file: the check for characters go-yaml refuses is then done, marks are
    // found without looking at characters, and there is no tab to read as go-yaml does (nor,
    // nearly always, a `\/` or a tag taking a `,`: see `whitespace`).
    let plain = clean_ascii(bytes, false, false);
    let mut counter = Counter { plain, ..Counter::default() };
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut start_mark = Mark { index: 0, line: 1, col: 0 };
    let mut separator = None;
    // Only lines that start with `---`, `...` or `%` matter: find them, not every line.
    let line_start =
        |prefix: &[u8]| bytes.starts_with(prefix) || memchr::memmem::find(bytes, &[b"\n", prefix].concat()).is_some();
    let at_start = text.starts_with("---").then_some(0);
    let later = memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1);
    for line_start in at_start.into_iter().chain(later) {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
        let rest = &text[line_start + 3..line_end];
        let here = counter.mark(text, line_start);
        let trimmed = rest.trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            let error = Some((here, format!("invalid Yaml document separator: {trimmed}")));
            return Pieces { pieces: out, one_stream: false, error };
        }
        if line_start > start {
            out.push(Piece {
                text: &text[start..line_start],
                start: start_mark,
                separator,
                shorter: &[],
                line_starts: &[],
                indented: &[],
            });
            separator = Some(here);
            start = line_end;
            start_mark = counter.mark(text, line_end);
        }
        // Else: a separator before anything else is the first line of the next document (and
        // the one dropped before it, if any, still started a document in the YAML stream).
    }
    if start < text.len() {
        out.push(Piece {
            text: &text[start..],
            start: start_mark,
            separator,
            shorter: &[],
            line_starts: &[],
            indented: &[],
        });
    }
    let one_stream = !line_start(b"...")
        && !line_start(b"%")
        && ((plain
            && !crate::whitespace::foreign_escape(bytes)
            && !crate::whitespace::glued_tag(bytes)
            && !crate::whitespace::glued_alias(bytes)
            && !crate::whitespace::flow_question(bytes))
            || (memchr::memchr(b'\r', bytes).is_none()
                && control_character(text).is_none()
                && !crate::whitespace::worth_scanning(text)));
    Pieces { pieces: out, one_stream, error: None }
}

/// How kubectl reads a text that starts with `{` (`YAMLOrJSONDecoder` of
/// `k8s.io/apimachinery/pkg/util/yaml`, as of Kubernetes 1.33; `StreamVisitor` of
/// `k8s.io/cli-runtime/pkg/resource` decodes object after object, and stops at the first error).
///
/// It reads JSON values with `encoding/json`'s `Decoder`, value after value (`{..}{..}`,
/// `{..}\n{..}`). Where a value does not read: after two values or more the text is a JSON
/// stream, and `Decoder`'s error ends it (`invalid character '-' in numeric literal`, without
/// an offset). After none or one, kubectl reads the rest as YAML instead, from the end of the
/// value read (or the start): `consumeWhitespace` skips white space up to and including the
/// first line break, and gives up (the text ends, with the JSON error) when fewer than 4 bytes
/// are left or it meets U+FFFD (Go's `utf8.RuneError`). If the first YAML document does not
/// read either, the JSON error is kubectl's (`json: offset 65: invalid character '-' in
/// numeric literal`, `unexpected EOF`); past it, YAML's errors are. So `{..}\n---\nyaml`,
/// `{..}\n---\n{..}` and `{..} trailing junk` read the object and then YAML; `{"a": 1,}`
/// (JSON refuses the trailing comma) reads as YAML.
#[derive(Debug)]
pub(crate) struct JsonStream<'a> {
    /// The JSON values read, each a piece.
    pub values: Vec<Piece<'a>>,
    /// What follows them.
    pub then: AfterJson,
}

/// What kubectl does after the JSON values of a text ([`JsonStream`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AfterJson {
    /// Nothing: the values are all the text (white space aside).
    End,
    /// It stops with this error, at this mark.
    Error(Mark, String),
    /// It reads the text from the byte offset `from` (at the mark `at`) as YAML; where the
    /// first YAML document does not read, it stops with `error` (the JSON error) instead.
    Yaml { from: usize, at: Mark, error: (Mark, String) },
}

/// The values of a text that starts with `{`, and what kubectl does after them ([`JsonStream`]).
pub(crate) fn json_stream(text: &str) -> JsonStream<'_> {
    use hpa_core::api::decode::Source;
    use hpa_core::api::decode::json::JsonSource;
    let mut values = Vec::new();
    let mut counter = Counter::default();
    let mut source = JsonSource::new(text);
    // Where the last value read ends (`Decoder.InputOffset`).
    let mut after = 0usize;
    loop {
        let at = source.offset() + text[source.offset()..].len()
            - text[source.offset()..].trim_start_matches([' ', '\t', '\n', '\r']).len();
        if at >= text.len() {
            return JsonStream { values, then: AfterJson::End };
        }
        let Err(e) = source.skip() else {
            let start = counter.mark(text, at);
            values.push(Piece {
                text: &text[at..source.offset()],
                start,
                separator: None,
                shorter: &[],
                line_starts: &[],
                indented: &[],
            });
            after = source.offset();
            continue;
        };
        let offset = e.offset.unwrap_or(text.len()).min(text.len());
        // `io.ErrUnexpectedEOF` is not a `SyntaxError`: it says no offset.
        let (bare, wrapped) = if e.message == "unexpected end of JSON input" {
            ("unexpected EOF".to_string(), "unexpected EOF".to_string())
        } else {
            (e.message.clone(), format!("json: offset {}: {}", offset + 1, e.message))
        };
        let mark = counter.mark(text, offset);
        if values.len() > 1 {
            return JsonStream { values, then: AfterJson::Error(mark, bare) };
        }
        let then = match yaml_after(text, after) {
            Some(from) => AfterJson::Yaml { from, at: mark_at(text, from), error: (mark, wrapped) },
            None => AfterJson::Error(mark, wrapped),
        };
        return JsonStream { values, then };
    }
}

/// Where kubectl's YAML reading starts after the JSON read up to the byte offset `after`
/// (`YAMLOrJSONDecoder.consumeWhitespace`), or `None` where it gives up.
fn yaml_after(text: &str, after: usize) -> Option<usize> {
    let mut at = after;
    for c in text[after..].chars() {
        // It reads 4 bytes at a time, and gives up where the text has fewer left.
        if text.len() - at < 4 || c == char::REPLACEMENT_CHARACTER {
            return None;
        }
        // Go's `unicode.IsSpace` is Unicode's White_Space, as `char::is_whitespace` is.
        if !c.is_whitespace() {
            return Some(at);
        }
        at += c.len_utf8();
        if c == '\n' {
            return Some(at);
        }
    }
    None
}

/// Counts characters, YAML lines and columns up to a byte offset, moving forward only.
#[derive(Debug, Default)]
struct Counter {
    /// The text is ASCII without carriage returns.
    plain: bool,
    byte: usize,
    index: u32,
    line: u32,
    col: u32,
    after_cr: bool,
}

impl Counter {
    /// The mark of a byte offset at or after the last one asked for.
    fn mark(&mut self, text: &str, to: usize) -> Mark {
        let segment = &text[self.byte..to];
        // The common case, ASCII with `\n` line ends, without a loop over characters.
        if self.plain || (segment.is_ascii() && memchr::memchr(b'\r', segment.as_bytes()).is_none() && !self.after_cr) {
            let lines = memchr::memchr_iter(b'\n', segment.as_bytes()).count();
            self.index = self.index.saturating_add(u32::try_from(segment.len()).unwrap_or(u32::MAX));
            self.line = self.line.saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
            let tail = segment.rfind('\n').map_or(segment.len(), |i| segment.len() - i - 1);
            let tail = u32::try_from(tail).unwrap_or(u32::MAX);
            self.col = if lines > 0 { tail } else { self.col.saturating_add(tail) };
            self.byte = to;
            return Mark { index: self.index, line: self.line + 1, col: self.col };
        }
        for c in segment.chars() {
            self.index = self.index.saturating_add(1);
            match c {
                '\n' if self.after_cr => {}
                '\n' | '\r' => {
                    self.line = self.line.saturating_add(1);
                    self.col = 0;
                }
                _ => self.col = self.col.saturating_add(1),
            }
            self.after_cr = c == '\r';
        }
        self.byte = to;
        Mark { index: self.index, line: self.line + 1, col: self.col }
    }
}

/// The lines of `text` as YAML counts them (saphyr and go-yaml alike), each with its line
/// break: a line ends at `\n`, `\r\n` or a lone `\r`.
fn yaml_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = match rest.find(['\n', '\r']) {
            None => rest.len(),
            Some(i) if rest[i..].starts_with("\r\n") => i + 2,
            Some(i) => i + 1,
        };
        let (line, after) = rest.split_at(end);
        rest = after;
        Some(line)
    })
}

/// The byte offset of the start of the line after the one `from` (a byte offset) is on, if a
/// line break ends that one.
fn next_line_start(text: &str, from: usize) -> Option<usize> {
    let line = yaml_lines(text.get(from..)?).next()?;
    line.ends_with(['\n', '\r']).then_some(from + line.len())
}

/// A `...` before any document content: go-yaml's parser then finds no node where a document
/// must start ("did not find expected node content"), as a mark of the piece.
pub(crate) fn end_before_document(text: &str) -> Option<Mark> {
    let mut index = 0u32;
    for (i, l) in yaml_lines(text).enumerate() {
        let content = l.trim_start_matches([' ', '\t']);
        let trimmed = content.trim_end();
        if let Some(rest) = trimmed.strip_prefix("...")
            && (rest.is_empty() || rest.starts_with([' ', '\t', '#']))
            && content.len() == l.len()
        {
            return Some(Mark { index, line: u32::try_from(i).unwrap_or(u32::MAX) + 1, col: 0 });
        }
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            return None;
        }
        index += u32::try_from(l.chars().count()).unwrap_or(u32::MAX);
    }
    None
}

/// go-yaml's reader refuses characters outside these ranges (`yaml_parser_update_buffer`).
fn allowed(c: char) -> bool {
    matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

/// A text whose byte order marks go-yaml reads as text (all but one starting a piece: go-yaml's
/// `yaml_parser_determine_encoding` drops that one, and its scanner keeps any other in a
/// plain scalar, where saphyr refuses it), each replaced with a character of the Private Use
/// Area the text lacks, which saphyr reads as text too (three bytes, one character, as the
/// mark: no position moves); and that character. `None`: no such mark, or no such character.
pub(crate) fn text_boms(text: &str) -> Option<(String, char)> {
    memchr::memmem::find(text.as_bytes(), "\u{feff}".as_bytes())?;
    let starts: Vec<u32> = pieces(text).pieces.iter().map(|p| p.start.index).collect();
    let stand_in = ('\u{e000}'..='\u{f8ff}').find(|c| !text.contains(*c))?;
    let mut out = String::with_capacity(text.len());
    let mut replaced = false;
    for (index, c) in (0u32..).zip(text.chars()) {
        if c == '\u{feff}' && starts.binary_search(&index).is_err() {
            out.push(stand_in);
            replaced = true;
        } else {
            out.push(c);
        }
    }
    replaced.then_some((out, stand_in))
}

/// The first character go-yaml's reader refuses, as a mark of the piece.
pub(crate) fn control_character(text: &str) -> Option<Mark> {
    if clean_ascii(text.as_bytes(), true, true) {
        return None;
    }
    let (mut index, mut line, mut col) = (0u32, 1u32, 0u32);
    let mut after_cr = false;
    for c in text.chars() {
        if !allowed(c) {
            return Some(Mark { index, line, col });
        }
        index += 1;
        match c {
            '\n' if after_cr => {}
            '\n' | '\r' => {
                line += 1;
                col = 0;
            }
            _ => col += 1,
        }
        after_cr = c == '\r';
    }
    None
}

/// How many bytes go-yaml's reader reads at a time (`input_raw_buffer_size`): it decodes and
/// checks each block whole (`yaml_parser_update_buffer`) when its scanner asks for a character
/// past the blocks read.
const READER_BLOCK: usize = 512;

/// The byte offset in a piece of the block of go-yaml's reader that holds `mark`
/// ([`READER_BLOCK`]): where its scanner is when the reader refuses a character of it.
pub(crate) fn reader_block_start(piece: &str, mark: Mark) -> usize {
    offset(piece, mark) / READER_BLOCK * READER_BLOCK
}

/// Whether go-yaml meets a piece's syntax `error` before its reader reads the block that
/// starts at byte `block` ([`reader_block_start`]): a scanner or parser error (`yaml: line N:
/// ...`, or one of the first line; not what its decoder or `json.Marshal` refuses after
/// parsing the document), whose line ends a few characters (the scanner's lookahead) before.
pub(crate) fn scanned_before(piece: Piece<'_>, error: &crate::SyntaxError, block: usize) -> bool {
    let Some(problem) = error.message.strip_prefix(YAML_TO_JSON).and_then(|m| m.strip_prefix("yaml: ")) else {
        return false;
    };
    let decoded = ["invalid map key", "map merge requires", "unmarshal errors", "document contains excessive"];
    let first_line = error.mark.line <= piece.start.line;
    if !(problem.starts_with("line ") || first_line) || decoded.iter().any(|d| problem.starts_with(d)) {
        return false;
    }
    let chars = error.mark.index.saturating_sub(piece.start.index) as usize;
    let at = piece.text.char_indices().nth(chars).map_or(piece.text.len(), |(i, _)| i);
    let rest = piece.text.get(at..).unwrap_or_default();
    let line_end = at + rest.find(['\n', '\r']).unwrap_or(rest.len());
    line_end + 4 < block
}

/// Whether text is ASCII without a control character other than line feed (and tab, if
/// `tab`, and carriage return, if `cr`) or DEL. Files are large and nearly always are: the
/// bytes are looked at in blocks without a branch, which the compiler turns into vector
/// instructions.
fn clean_ascii(bytes: &[u8], cr: bool, tab: bool) -> bool {
    let bad = |b: u8| b >= 0x7f || (b < 0x20 && (b != b'\t' || !tab) && b != b'\n' && (b != b'\r' || !cr));
    let mut blocks = bytes.chunks_exact(64);
    for block in blocks.by_ref() {
        if block.iter().fold(0u8, |any, &b| any | u8::from(bad(b))) != 0 {
            return false;
        }
    }
    !blocks.remainder().iter().any(|&b| bad(b))
}

/// What go-yaml refuses in the directives that start a piece, as a mark of the piece and
/// kubectl's words: a name it does not know, none, or one glued to what follows
/// (`yaml_parser_scan_directive_name`, scanner errors), a `%YAML` directive of another version
/// than 1.1 or a second one, or a second `%TAG` of a handle (`yaml_parser_process_directives`:
/// go-yaml v2 reads 1.1 only, parser errors), or
/// directives that no `---` follows (`yaml_parser_parse_document_start`: "did not find
/// expected <document start>", at the next token; kubectl cuts a `---` line off the piece that
/// precedes it, so only one glued to a directive's YAML 1.1 line break may follow). On the
/// line right after a directive, a `-`, `?` or `:` indicator is refused by the scanner first:
/// `yaml_parser_scan_directive` eats the directive's line break, so no simple key is allowed
/// there (`yaml_parser_fetch_block_entry`: "block sequence entries are not allowed in this
/// context", and so on), unless a blank or comment line comes between.
pub(crate) fn directive_problem(text: &str) -> Option<(Mark, String)> {
    let mut index = 0u32;
    let mut directives = false;
    // The line of the last directive.
    let mut last = 0u32;
    // The `%YAML` directive and the `%TAG` handles met.
    let mut yaml = false;
    let mut handles: Vec<&str> = Vec::new();
    // go-yaml's lines are more: a YAML 1.1 line break (U+0085, U+2028, U+2029) ends one too.
    let mut breaks = 0u32;
    for (line, l) in (1u32..).zip(yaml_lines(text)) {
        let go = |m: Mark| Mark { line: m.line.saturating_add(breaks), ..m };
        if let Some(rest) = l.strip_prefix('%') {
            directives = true;
            last = line;
            let at = Mark { index, line, col: 0 };
            if let Some(problem) = directive_name_problem(rest) {
                return Some((at, worded(go(at), problem, Count::Scanner)));
            }
            if let Some((byte, problem)) = directive_value_problem(rest) {
                let col = u32::try_from(rest[..byte].chars().count()).map_or(u32::MAX, |c| c.saturating_add(1));
                let at = Mark { index: index.saturating_add(col), col, ..at };
                return Some((at, worded(go(at), problem, Count::Scanner)));
            }
            // `yaml_parser_process_directives`: one `%YAML`, of version 1.1, and one `%TAG` per
            // handle.
            if let Some(version) = rest.strip_prefix("YAML") {
                if std::mem::replace(&mut yaml, true) {
                    return Some((at, worded(go(at), "found duplicate %YAML directive", Count::Parser)));
                }
                if yaml_version(version) != Some((1, 1)) {
                    return Some((at, worded(go(at), "found incompatible YAML document", Count::Parser)));
                }
            }
            if let Some(value) = rest.strip_prefix("TAG") {
                let handle = value.split_whitespace().next().unwrap_or_default();
                if handles.contains(&handle) {
                    return Some((at, worded(go(at), "found duplicate %TAG directive", Count::Parser)));
                }
                handles.push(handle);
            }
        }
        // Directives come before the document.
        let content = l.trim_start();
        if !content.is_empty() && !content.starts_with(['%', '#']) {
            let indicator = |c: char| {
                content.strip_prefix(c).is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n', '\r']))
            };
            let problem = match () {
                _ if indicator('-') => "block sequence entries are not allowed in this context",
                _ if indicator('?') => "mapping keys are not allowed in this context",
                _ if indicator(':') => "mapping values are not allowed in this context",
                _ => break,
            };
            if directives && last.saturating_add(1) == line {
                let col = u32::try_from(l.len() - content.len()).unwrap_or(u32::MAX);
                let at = Mark { index: index.saturating_add(col), line, col };
                return Some((at, worded(go(at), problem, Count::Scanner)));
            }
            break;
        }
        index += u32::try_from(l.chars().count()).unwrap_or(u32::MAX);
        if !l.is_ascii() {
            let yaml_1_1 = l.chars().filter(|c| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')).count();
            breaks = breaks.saturating_add(u32::try_from(yaml_1_1).unwrap_or(u32::MAX));
        }
    }
    if !directives {
        return None;
    }
    let (at, go_line) = after_directives(text)?;
    let go = Mark { line: go_line, ..at };
    Some((at, worded(go, "did not find expected <document start>", Count::Parser)))
}

/// The first token after a piece's directives, comments and blank lines (or its end), as a
/// mark of the piece and the line go-yaml counts (its line breaks are YAML 1.1's: U+0085,
/// U+2028 and U+2029 too); `None` where it is a `---`.
fn after_directives(text: &str) -> Option<(Mark, u32)> {
    let (mut index, mut line, mut col, mut go_line) = (0u32, 1u32, 0u32, 1u32);
    let mut chars = text.chars().peekable();
    // Whether the rest of the line is a directive or a comment, skipped.
    let mut skipping = false;
    while let Some(&c) = chars.peek() {
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                chars.next();
                index += 1;
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                    index += 1;
                }
                if matches!(c, '\n' | '\r') {
                    (line, col) = (line + 1, 0);
                } else {
                    col += 1;
                }
                go_line += 1;
                skipping = false;
                continue;
            }
            ' ' | '\t' => {}
            _ if skipping => {}
            '%' | '#' => skipping = true,
            _ => {
                let rest: String = chars.clone().take(4).collect();
                let start = rest.strip_prefix("---").is_some_and(|after| {
                    after.is_empty() || after.starts_with([' ', '\t', '\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
                });
                return (!start).then_some((Mark { index, line, col }, go_line));
            }
        }
        chars.next();
        index += 1;
        col += 1;
    }
    // go-yaml's text ends with a line break (kubectl's `LineReader` adds one): its end is on the
    // line after a last line without one.
    if col > 0 {
        go_line += 1;
    }
    Some((Mark { index, line, col }, go_line))
}

/// What go-yaml's scanner refuses in the name of the directive `rest` follows `%` of.
fn directive_name_problem(rest: &str) -> Option<&'static str> {
    let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len());
    let (name, after) = rest.split_at(name_end);
    if name.is_empty() {
        Some("could not find expected directive name")
    } else if !after.is_empty() && !after.starts_with([' ', '\t', '\n', '\r']) {
        Some("found unexpected non-alphabetical character")
    } else if name != "YAML" && name != "TAG" {
        Some("found unknown directive name")
    } else {
        None
    }
}

/// What go-yaml's scanner refuses in the value of the `%YAML` or `%TAG` directive `rest`
/// follows `%` of (a name it knows): a version that is not digits, `.`, digits, each number of
/// at most 2 digits (`yaml_parser_scan_version_directive_value`), a tag handle not followed by
/// white space, or a prefix not followed by white space or a line break
/// (`yaml_parser_scan_tag_directive_value`), or more than a comment after the value
/// ([`directive_end_problem`]); the byte offset in `rest` where it stops, and its words.
fn directive_value_problem(rest: &str) -> Option<(usize, &'static str)> {
    let skip_blanks = |from: usize| from + rest[from..].len() - rest[from..].trim_start_matches([' ', '\t']).len();
    let digits = |from: usize| rest[from..].bytes().take_while(u8::is_ascii_digit).count();
    if let Some(value) = rest.strip_prefix("YAML") {
        let major = skip_blanks(rest.len() - value.len());
        let n = digits(major);
        if n == 0 {
            return Some((major, "did not find expected version number"));
        }
        // go-yaml's `max_number_length` is 2.
        if n > 2 {
            return Some((major + 3, "found extremely long version number"));
        }
        if !rest[major + n..].starts_with('.') {
            return Some((major + n, "did not find expected digit or '.' character"));
        }
        let minor = major + n + 1;
        return match digits(minor) {
            0 => Some((minor, "did not find expected version number")),
            3.. => Some((minor + 3, "found extremely long version number")),
            n => directive_end_problem(rest, minor + n),
        };
    }
    let value = rest.strip_prefix("TAG")?;
    let handle = skip_blanks(rest.len() - value.len());
    // `!`, or `!` letters, digits, `_`, `-` and `!` (`yaml_parser_scan_tag_handle`).
    let Some(name) = rest[handle..].strip_prefix('!') else {
        return Some((handle, "did not find expected '!'"));
    };
    let word = name.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
    let end = match name.as_bytes().get(word) {
        Some(b'!') => handle + 1 + word + 1,
        _ if word == 0 => handle + 1,
        _ => return Some((handle + 1 + word, "did not find expected '!'")),
    };
    if !rest[end..].starts_with([' ', '\t']) {
        return Some((end, "did not find expected whitespace"));
    }
    // The prefix, a URI, then white space (`yaml_parser_scan_tag_directive_value`) and the
    // directive's end.
    let prefix = end + rest[end..].len() - rest[end..].trim_start_matches([' ', '\t']).len();
    let uri = match uri_end(&rest[prefix..]) {
        Ok(0) => return Some((prefix, "did not find expected tag URI")),
        Ok(n) => prefix + n,
        Err((at, problem)) => return Some((prefix + at, problem)),
    };
    if !(rest[uri..].is_empty() || rest[uri..].starts_with([' ', '\t', '\r', '\n', '\u{85}', '\u{2028}', '\u{2029}'])) {
        return Some((uri, "did not find expected whitespace or line break"));
    }
    directive_end_problem(rest, uri)
}

/// The version a `%YAML` directive's value names, as go-yaml reads its two numbers (each
/// digit by digit: `01.1` is 1.1).
fn yaml_version(value: &str) -> Option<(u8, u8)> {
    fn number(s: &str) -> Option<(u8, &str)> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        Some((s[..digits].parse::<u8>().ok()?, &s[digits..]))
    }
    let (major, rest) = number(value.trim_start_matches([' ', '\t']))?;
    let (minor, _) = number(rest.strip_prefix('.')?)?;
    Some((major, minor))
}

/// Where go-yaml's `yaml_parser_scan_tag_uri` stops in `text` (a byte offset; 0: no URI), or
/// where and why it refuses a `%` escape (`yaml_parser_scan_uri_escapes`: `%` and two hex
/// digits per octet, the octets of one UTF-8 character).
fn uri_end(text: &str) -> Result<usize, (usize, &'static str)> {
    let bytes = text.as_bytes();
    let octet = |at: usize| {
        let hex = bytes.get(at + 1..at + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes.get(at), hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (Some(b'%'), Some(o)) if hex.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())) => Ok(o),
            _ => Err((at, "did not find URI escaped octet")),
        }
    };
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if b != b'%' {
            if !uri_char(char::from(b)) {
                break;
            }
            at += 1;
            continue;
        }
        let width = match octet(at)? {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return Err((at, "found an incorrect leading UTF-8 octet")),
        };
        at += 3;
        for _ in 1..width {
            if octet(at)? & 0xC0 != 0x80 {
                return Err((at, "found an incorrect trailing UTF-8 octet"));
            }
            at += 3;
        }
    }
    Ok(at)
}

/// Whether go-yaml reads `c` as a character of a tag's URI (`yaml_parser_scan_tag_uri`:
/// letters, digits, `_`, `-` and `;/?:@&=+$,.!~*'()[]%`).
pub(crate) fn uri_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-;/?:@&=+$,.!~*'()[]%".contains(c)
}

/// What go-yaml's scanner refuses after a directive's value, which ends at the byte offset
/// `end` of `rest`: anything but blanks, then a comment or a line break (`\r`, `\n`, U+0085,
/// U+2028, U+2029) or the end (`yaml_parser_scan_directive`'s "did not find expected comment
/// or line break", where the blanks end).
fn directive_end_problem(rest: &str, end: usize) -> Option<(usize, &'static str)> {
    let after = rest[end..].trim_start_matches([' ', '\t']);
    let at = rest.len() - after.len();
    let fine = after.is_empty() || after.starts_with(['#', '\r', '\n', '\u{85}', '\u{2028}', '\u{2029}']);
    (!fine).then_some((at, "did not find expected comment or line break"))
}

/// A directive after a document's content (saphyr's "missing explicit document end marker
/// before directive", at `mark`): go-yaml's scanner closes the document's block collections
/// there, and its parser ends the document, which is all kubectl reads (`None`: read the
/// piece up to that line), unless the scanner refuses the directive's name.
pub(crate) fn directive_after_content(piece: &str, mark: Mark) -> Option<(Mark, &'static str)> {
    let line = Mark { col: 0, ..mark };
    let rest = piece[line_offset(piece, mark)..].strip_prefix('%')?;
    directive_name_problem(rest).map(|problem| (line, problem))
}

/// Where go-yaml's plain scalar ends before saphyr's does: saphyr read the scalar after the
/// last event (which ended at `after`) up to `at` (a comment it refuses after a continuation
/// line), but go-yaml's scanner ends a plain scalar at a line indented no more than the
/// innermost block collection's column `col` (`yaml_parser_scan_plain_scalar`: `column <
/// indent`, its `indent` being `parser.indent + 1`), and that line's token is the next. The
/// mark of that token, if it is neither a `-`, `?` or `:` indicator nor a key (which go-yaml
/// reads on from, and what follows decides).
pub(crate) fn plain_ends_left(piece: &str, after: Mark, at: Mark, col: u32) -> Option<Mark> {
    let from = offset(piece, after);
    let to = offset(piece, at);
    let mut pos = from;
    // The scalar's first line: the rest of `after`'s line, or the next that is not blank.
    let mut started = false;
    for line in piece.get(from..to)?.split_inclusive(['\n', '\r']) {
        let start = pos;
        pos += line.len();
        let content = line.trim_start_matches(' ');
        let code = content.trim_end_matches(['\n', '\r', ' ', '\t']);
        if code.is_empty() || code.starts_with('#') {
            continue;
        }
        if !started {
            started = true;
            continue;
        }
        let column = line.len() - content.len();
        if u32::try_from(column).is_ok_and(|c| c <= col) {
            let indicator = |c: char| code.strip_prefix(c).is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']));
            let key = code.contains(": ") || code.contains(":\t") || code.ends_with(':');
            return (!indicator('-') && !indicator('?') && !indicator(':') && !key)
                .then(|| mark_at(piece, start + column));
        }
    }
    None
}

/// What go-yaml makes of the text after a quoted scalar that is a document's node
/// ([`after_quoted_document`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterQuoted {
    /// Nothing: the document is the scalar, and `Unmarshal` parses no further.
    Unread,
    /// A `:` later on the line makes the scalar a simple key, and the token at this mark
    /// stands where its value indicator is due (`yaml_parser_parse_block_mapping_key`).
    KeyWithoutValue(Mark),
    /// The next token is an indicator go-yaml's scanner refuses where no simple key is allowed
    /// (after a quoted scalar): `yaml_parser_fetch_block_entry`, `yaml_parser_fetch_key`.
    Refused(Mark, &'static str),
}

/// What go-yaml makes of the text from `mark` (right after a quoted scalar that is the
/// document's node): a `-` or `?` indicator is refused (no simple key is allowed after a
/// quoted scalar); after a scalar that started on an earlier line (no simple key: go-yaml's
/// scanner gives it at once), a next token that scans (a plain scalar, a closed quoted one)
/// is all its parser reads; after one on a single line, the rest of its line, when the lines
/// after it are blank or comments (go-yaml's scanner reads on to the first token of the next
/// line before it gives a possible simple key). `None` for any other text, and for a quoted
/// scalar that never closes (the end of the stream).
pub(crate) fn after_quoted_document(piece: &str, mark: Mark) -> Option<AfterQuoted> {
    let at = offset(piece, mark);
    let rest = piece.get(at..)?;
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let (line, after) = rest.split_at(line_end);
    // A scalar that started on an earlier line is no simple key: go-yaml's scanner gives it at
    // once, and its parser reads only the next token, which a plain scalar's text is.
    let token = line.trim_start_matches([' ', '\t']);
    let indicator = |c: char| token.strip_prefix(c).is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']));
    let token_at = || mark_at(piece, at + (line.len() - token.len()));
    // A quoted scalar that never closes: go-yaml's scanner meets the end of the stream.
    if token.starts_with(['"', '\'']) && closing(piece, at + (line.len() - token.len())).is_none() {
        return None;
    }
    if indicator('-') {
        return Some(AfterQuoted::Refused(token_at(), "block sequence entries are not allowed in this context"));
    }
    if indicator('?') {
        return Some(AfterQuoted::Refused(token_at(), "mapping keys are not allowed in this context"));
    }
    // (A quoted scalar after it must close somewhere: go-yaml's scanner reads it whole.)
    if quoted_on_earlier_line(piece, mark)
        && token.chars().next().is_some_and(|c| {
            c.is_alphanumeric()
                || matches!(c, '_' | '/' | '.')
                || matches!(c, '"' | '\'') && closing(piece, at + (line.len() - token.len())).is_some()
        })
    {
        return Some(AfterQuoted::Unread);
    }
    if !yaml_lines(after)
        .all(|l| matches!(l.trim_start_matches([' ', '\t']).chars().next(), None | Some('#' | '\n' | '\r')))
    {
        return None;
    }
    let code = line.find(" #").map_or(line, |i| &line[..i]).trim_end_matches([' ', '\t']);
    let first = code.len() - code.trim_start_matches([' ', '\t']).len();
    match code.find(": ").or_else(|| code.ends_with(':').then(|| code.len() - 1)) {
        Some(colon) if colon > first => Some(AfterQuoted::KeyWithoutValue(mark_at(piece, at + first))),
        Some(_) => None,
        None => Some(AfterQuoted::Unread),
    }
}

/// Whether the piece's first token (past blank, comment and directive lines) is a quote on a
/// line before `mark`'s: a quoted scalar document that ends on `mark`'s line started there.
fn quoted_on_earlier_line(piece: &str, mark: Mark) -> bool {
    for (line, l) in (1u32..).zip(yaml_lines(piece)) {
        if line >= mark.line {
            return false;
        }
        let content = l.trim_start_matches([' ', '\t']);
        match content.chars().next() {
            None | Some('#' | '%' | '\n' | '\r') => {}
            Some(c) => return c == '"' || c == '\'',
        }
    }
    false
}

/// The first token of the line after `mark`'s, as a mark of the piece: its first character that
/// is neither a space nor a tab (the line's end if none is).
pub(crate) fn next_line_token(piece: &str, mark: Mark) -> Mark {
    let next = offset(piece, Mark { line: mark.line.saturating_add(1), col: 0, ..mark });
    let rest = piece.get(next..).unwrap_or_default();
    mark_at(piece, next + (rest.len() - rest.trim_start_matches([' ', '\t']).len()))
}

/// Whether the plain scalar that ends at `mark` starts its line at column `col`: what precedes
/// it on the line is indentation only (no `-`, `?` or `:` indicator, no key and `: `).
pub(crate) fn line_starts_with_key(piece: &str, mark: Mark, col: u32) -> bool {
    let start = line_offset(piece, mark);
    let line = piece.get(start..offset(piece, mark)).unwrap_or_default();
    let content = line.trim_start_matches(' ');
    if content.contains(": ") || content.contains(":\t") {
        return false;
    }
    let indicator =
        |c: char| content.strip_prefix(c).is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n', '\r']));
    line.len() - content.len() == col as usize
        && !content.starts_with('#')
        && !indicator('-')
        && !indicator('?')
        && !indicator(':')
}

/// Whether `mark`'s line has, at column `col` and after indentation only, a `-` indicator.
pub(crate) fn dash_at(piece: &str, mark: Mark, col: u32) -> bool {
    let line = piece.get(line_offset(piece, mark)..).unwrap_or_default();
    let content = line.trim_start_matches(' ');
    line.len() - content.len() == col as usize
        && content.strip_prefix('-').is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\n', '\r']))
}

/// The byte offset in a piece of the start of `mark`'s line.
pub(crate) fn line_offset(piece: &str, mark: Mark) -> usize {
    offset(piece, Mark { col: 0, ..mark })
}

/// The collection open where saphyr stopped, as go-yaml names what it expected there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// None: the document level.
    Document,
    /// `- item`
    BlockSequence,
    /// `key: value`
    BlockMapping,
    /// `[a, b]`
    FlowSequence,
    /// `{a: b}`
    FlowMapping,
}

/// Which line go-yaml names for a problem (`parser.fail` of go-yaml v2's `yaml.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Count {
    /// A scanner error: the problem's line, from 1 (none on the first line: go-yaml names a
    /// line only when the one counted from 0 is not 0).
    #[default]
    Scanner,
    /// A parser error: the problem's line, from 0 (so the line before it, and none on the
    /// first line).
    Parser,
    /// No line (the decoder's errors).
    None,
}

/// kubectl's words for go-yaml's `problem` at `at` (a mark of the piece): `error converting
/// YAML to JSON: yaml: line N: problem`, the line counted as `count` says.
pub(crate) fn worded(at: Mark, problem: &str, count: Count) -> String {
    let line = match count {
        Count::Scanner => Some(at.line).filter(|l| *l > 1),
        Count::Parser => Some(at.line.saturating_sub(1)).filter(|l| *l > 0),
        Count::None => None,
    };
    match line {
        Some(l) => format!("{YAML_TO_JSON}yaml: line {l}: {problem}"),
        None => format!("{YAML_TO_JSON}yaml: {problem}"),
    }
}

/// The line a message names (`yaml: line N: ...`), if it names one, changed by `to`.
pub(crate) fn renumber_line(message: &mut String, to: impl FnOnce(u32) -> u32) {
    const LINE: &str = "yaml: line ";
    let Some(at) = message.find(LINE).map(|i| i + LINE.len()) else {
        return;
    };
    let digits = message[at..].bytes().take_while(u8::is_ascii_digit).count();
    if let Ok(line) = message[at..at + digits].parse::<u32>() {
        message.replace_range(at..at + digits, &to(line).to_string());
    }
}

/// The line a piece's error names (`yaml: line N: ...`) as go-yaml counts it in the text
/// kubectl gives it: `LineReader` reads the file with `bufio.Reader.ReadLine`, which drops the
/// `\r\n` or `\n` ending each line, and ends each with `\n`, so a line ending `\r\r\n` reaches
/// go-yaml ending `\r\n`: one line break where the file (and saphyr) has two. Every such
/// ending before the error takes one off the line named.
pub(crate) fn line_as_line_reader_counts(piece: Piece<'_>, error: &mut crate::SyntaxError) {
    if memchr::memmem::find(piece.text.as_bytes(), b"\r\r\n").is_none() {
        return;
    }
    // The error's place in the piece, in characters (marks count characters).
    let chars = error.mark.index.saturating_sub(piece.start.index) as usize;
    let end = piece.text.char_indices().nth(chars).map_or(piece.text.len(), |(i, _)| i);
    let doubled =
        u32::try_from(memchr::memmem::find_iter(&piece.text.as_bytes()[..end], b"\r\r\n").count()).unwrap_or(u32::MAX);
    // Past the first line: each such ending is before the error, on an earlier line.
    renumber_line(&mut error.message, |line| line.saturating_sub(doubled).max(1));
}

/// go-yaml's error for saphyr's `message` at `mark` (a mark of `piece`): kubectl's words, and
/// the place go-yaml points at when it is not saphyr's (the tab of a bad indentation, the end
/// of the document). Every message of saphyr's scanner and parser is mapped to go-yaml's
/// error for that state of its scanner, or, where go-yaml's scanner reads on, to what its
/// parser then expects in the open collection; `None` only for the nesting saphyr gives up
/// on, which is a limit of ours ([`deep_flow`] says where kubectl gives up too).
pub(crate) fn go_yaml_error(message: &str, mark: Mark, piece: &str, open: Open) -> Option<(Mark, String)> {
    // What go-yaml's parser expects in the open collection where saphyr stopped, for a token
    // that go-yaml scans there but does not expect: in a block collection, a node right after
    // a `:`, `?` or `-` on the line, else the next key or `-`.
    let after_indicator = || {
        let line = piece.get(line_offset(piece, mark)..offset(piece, mark)).unwrap_or_default().trim_end();
        line.ends_with([':', '-', '?'])
    };
    let expected_here = match open {
        Open::Document => "did not find expected <document start>",
        Open::BlockSequence | Open::BlockMapping if after_indicator() => "did not find expected node content",
        Open::BlockSequence => "did not find expected '-' indicator",
        Open::BlockMapping => "did not find expected key",
        Open::FlowSequence => "did not find expected ',' or ']'",
        Open::FlowMapping => "did not find expected ',' or '}'",
    };
    // A bracket closing nothing where a document's node is expected.
    let misplaced = match open {
        Open::Document => "did not find expected node content",
        _ => expected_here,
    };
    let strip = |m: &str| m.split_once(", ").map_or(m, |(_, problem)| problem).to_string();
    let flow_key_colon = (message == "invalid indentation in quoted scalar" && open == Open::FlowMapping)
        .then(|| quoted_then_colon(piece, mark))
        .flatten();
    let (at, problem, count) = match message {
        m if m.starts_with("unexpected character:")
            || m.starts_with("tabs disallowed")
            || m == "tab cannot be used as indentation" =>
        {
            (mark, "found character that cannot start any token".to_string(), Count::Scanner)
        }
        "while scanning a plain scalar, found a tab" => {
            let tab = indentation_tab(piece, mark).unwrap_or(mark);
            (tab, "found a tab character that violates indentation".to_string(), Count::Scanner)
        }
        "a block scalar content cannot start with a tab" => {
            (mark, "found a tab character where an indentation space is expected".to_string(), Count::Scanner)
        }
        "while scanning a quoted scalar, found unexpected end of stream" => {
            (end_of(piece), "found unexpected end of stream".to_string(), Count::Scanner)
        }
        "invalid indentation in quoted scalar" if !closes(piece, mark) => {
            (end_of(piece), "found unexpected end of stream".to_string(), Count::Scanner)
        }
        // go-yaml does not mind how a quoted scalar's lines are indented; one on more lines
        // than one is no simple key, and its `:` a value where the flow mapping's parser wants
        // the next entry (see `multi_line_flow_key` of lib.rs).
        "invalid indentation in quoted scalar" if flow_key_colon.is_some() => {
            (flow_key_colon.unwrap_or(mark), expected_here.to_string(), Count::Parser)
        }
        // A quote right after a quoted scalar (`"a""`) opens the next token for go-yaml's
        // scanner, which reads it to the end of the piece when nothing closes it.
        m if m.starts_with("invalid trailing content after") && !closes(piece, mark) => {
            (end_of(piece), "found unexpected end of stream".to_string(), Count::Scanner)
        }
        // A `:` after a quoted scalar that is no simple key (one that spans lines, or a second
        // value on a key's line): go-yaml's scanner refuses the value indicator in the block
        // context (`yaml_parser_fetch_value`; a required key went stale before, above).
        m if m.starts_with("invalid trailing content after")
            && matches!(open, Open::Document | Open::BlockMapping | Open::BlockSequence)
            && value_indicator_at(piece, mark) =>
        {
            (mark, "mapping values are not allowed in this context".to_string(), Count::Scanner)
        }
        "mapping values are not allowed in this context"
        | "mapping keys are not allowed in this context"
        | "block sequence entries are not allowed in this context"
        | "while scanning an anchor or alias, did not find expected alphabetic or numeric character"
        | "while scanning a verbatim tag, did not find the expected '>'"
        | "while scanning a tag, did not find expected whitespace or line break"
        | "while scanning a tag, did not find expected '!'"
        | "while parsing a tag directive, did not find expected '!'"
        | "while parsing a tag, did not find expected tag URI"
        | "while scanning TAG, did not find expected whitespace or line break"
        | "while scanning a block scalar, did not find expected comment or line break"
        | "while scanning a block scalar, found an indentation indicator equal to 0"
        | "while scanning a directive, found unexpected non-alphabetical character"
        | "while scanning a directive, did not find expected comment or line break"
        | "while scanning a directive, could not find expected directive name"
        | "while scanning a YAML directive, found extremely long version number"
        | "while scanning a YAML directive, did not find expected version number"
        | "while scanning a YAML directive, did not find expected digit or '.' character" => {
            (mark, strip(message), Count::Scanner)
        }
        // go-yaml points at the indicator (the scanner's mark), saphyr at the scalar's start.
        "while scanning a quoted scalar, found unexpected document indicator" => {
            (document_indicator(piece, mark).unwrap_or(mark), strip(message), Count::Scanner)
        }
        // saphyr points at the scalar's start, go-yaml at the escape (its `\` when it does not
        // know the letter, else the first of its digits).
        "while parsing a quoted scalar, found unknown escape character"
        | "while parsing a quoted scalar, found invalid Unicode character escape code" => {
            (bad_escape(piece, mark).unwrap_or(mark), strip(message), Count::Scanner)
        }
        "while parsing a quoted scalar, did not find expected hexadecimal number" => {
            // libyaml's spelling, which go-yaml keeps.
            let at = bad_escape(piece, mark).unwrap_or(mark);
            (at, "did not find expected hexdecimal number".to_string(), Count::Scanner)
        }
        "expected whitespace" => (mark, "did not find expected whitespace".to_string(), Count::Scanner),
        "invalid global tag character" => (mark, "did not find expected tag URI".to_string(), Count::Scanner),
        "while parsing a tag, found an invalid escape sequence" => {
            (mark, "did not find URI escaped octet".to_string(), Count::Scanner)
        }
        "while parsing a tag, found an incorrect leading UTF-8 byte"
        | "while parsing a tag, found an invalid UTF-8 codepoint" => {
            (mark, "found an incorrect leading UTF-8 octet".to_string(), Count::Scanner)
        }
        "while parsing a tag, found an incorrect trailing UTF-8 byte" => {
            (mark, "found an incorrect trailing UTF-8 octet".to_string(), Count::Scanner)
        }
        "simple key expect ':'" | "simple key expected" => {
            (mark, "could not find expected ':'".to_string(), Count::Scanner)
        }
        "found unprintable character" => (mark, "control characters are not allowed".to_string(), Count::None),
        // The single pair of a flow sequence's item (`[a: b c: d]`, a mapping that opens at its
        // key, not at `{`): go-yaml's parser is back in the sequence after the pair
        // (`yaml_parser_parse_flow_sequence_entry`), saphyr says the pair's mapping.
        "while parsing a flow mapping, did not find expected ',' or '}'" if open == Open::BlockMapping => {
            (mark, "did not find expected ',' or ']'".to_string(), Count::Parser)
        }
        "while parsing a block mapping, did not find expected key"
        | "while parsing a block collection, did not find expected '-' indicator"
        | "while parsing a flow mapping, did not find expected ',' or '}'"
        | "while parsing a node, did not find expected node content" => (mark, strip(message), Count::Parser),
        "while parsing a flow sequence, expected ',' or ']'" => {
            (mark, "did not find expected ',' or ']'".to_string(), Count::Parser)
        }
        "did not find expected <document start>"
        | "did not find expected <document-start>"
        | "invalid content after document end marker" => {
            (mark, "did not find expected <document start>".to_string(), Count::Parser)
        }
        "the handle wasn't declared" => (mark, "found undefined tag handle".to_string(), Count::Parser),
        "found incompatible YAML document" => (mark, message.to_string(), Count::Parser),
        "duplicate version directive" => (mark, "found duplicate %YAML directive".to_string(), Count::Parser),
        "the TAG directive must only be given at most once per handle in the same document" => {
            (mark, "found duplicate %TAG directive".to_string(), Count::Parser)
        }
        "misplaced bracket" => (mark, misplaced.to_string(), Count::Parser),
        // go-yaml's scanner may refuse the alias's name before its parser looks for it.
        "while parsing node, found unknown anchor" => {
            let from = offset(piece, mark);
            let name = piece[from..].strip_prefix('*').unwrap_or_default();
            match name_problem(name, false) {
                Some((stop, problem)) => (mark_at(piece, from + 1 + stop), problem.to_string(), Count::Scanner),
                None => (mark, format!("unknown anchor '{}' referenced", anchor_name(piece, mark)), Count::None),
            }
        }
        "unexpected eof" => (end_of(piece), expected_here.to_string(), Count::Parser),
        // saphyr's limit (flow collections nested past 255): ours, worded by the caller.
        "recursion limit exceeded" => return None,
        // saphyr stops at a character that go-yaml scans as the start of the next token, and
        // go-yaml's parser then finds no token it expects in the open collection:
        // "illegal placement of ':' indicator", "invalid trailing content after double-quoted
        // scalar", "invalid indentation in flow construct", "wrongly indented line in block
        // scalar", "comment intercepting the multiline text", "'-' must be followed by a
        // valid YAML whitespace", ... and any message saphyr adds.
        _ => (mark, expected_here.to_string(), Count::Parser),
    };
    Some((at, worded(at, &problem, count)))
}

/// go-yaml's scanner error for a flow collection or a quoted scalar that starts a line at the
/// column of the innermost open block collection (which starts at `block`) and does not end
/// with a `:` on that line: there a token is a *required* simple key
/// (`yaml_parser_save_simple_key`: block context and `parser.indent == column`), and go-yaml
/// scans on (its parser gets no token while the key is pending) until the key goes stale on
/// the next line (`yaml_parser_stale_simple_keys`: "could not find expected ':'", at the next
/// token, a scanner error), before its parser meets what saphyr stopped at (`at`), on that
/// line or later inside the collection. An unrendered Helm directive between two keys (`
/// {{- if .Values.x }}`) is this. The collection's lines are read from its start to `at`:
/// the first line at its column that starts so is the key (one that ends on its line with `:`
/// resolves: a key, which go-yaml reads on from).
pub(crate) fn stale_required_key(piece: &str, at: Mark, block: Option<Mark>) -> Option<(Mark, String)> {
    let block = block?;
    let column = block.col as usize;
    let first = line_offset(piece, block);
    let stop = line_offset(piece, at);
    let end = stop + piece[stop..].find(['\n', '\r']).unwrap_or(piece.len() - stop);
    let mut found = None;
    let mut line_start = first;
    for line in yaml_lines(piece.get(first..end).unwrap_or_default()) {
        let text = line.trim_end_matches(['\n', '\r']);
        let indent = text.chars().take_while(|c| *c == ' ').count();
        let content = &text[indent..];
        let blank = content.trim().is_empty() || content.starts_with('#');
        // The collection's first line may start left of it, with the `- ` of its item.
        if line_start == first && indent < column {
            line_start += line.len();
            continue;
        }
        if !blank && indent == column && content.starts_with(['{', '[', '"', '\'']) && !resolves(content) {
            found = Some((line_start, text));
            break;
        }
        if !blank && indent < column {
            break;
        }
        line_start += line.len();
    }
    let (line_start, line) = found?;
    // A quoted scalar is one token: one that nothing closes ends the stream before the key can
    // go stale (`yaml_parser_scan_flow_scalar`).
    let indent = line.len() - line.trim_start_matches(' ').len();
    if line[indent..].starts_with(['"', '\'']) && closing(piece, line_start + indent).is_none() {
        let end = end_of(piece);
        return Some((end, worded(end, "found unexpected end of stream", Count::Scanner)));
    }
    // A quoted scalar that closes on a later line: the key is stale right after it (go-yaml v2's
    // `yaml_parser_fetch_more_tokens` looks for stale keys before it fetches the next token, and
    // names where the scanner is).
    let after_line = line_start + line.len();
    if line[indent..].starts_with(['"', '\''])
        && let Some(close) = closing(piece, line_start + indent).filter(|&c| c > after_line)
    {
        let mark = mark_at(piece, close);
        return Some((mark, worded(mark, "could not find expected ':'", Count::Scanner)));
    }
    // The next token: the first character of a later line that is neither blank nor a comment.
    let mut next = None;
    let mut from = after_line;
    for l in yaml_lines(&piece[after_line..]) {
        let trimmed = l.trim_start_matches([' ', '\t', '\r', '\n']);
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            next = Some(mark_at(piece, from + (l.len() - trimmed.len())));
            break;
        }
        from += l.len();
    }
    let mark = next.unwrap_or_else(|| end_of(piece));
    Some((mark, worded(mark, "could not find expected ':'", Count::Scanner)))
}

/// Whether a value indicator (`:` and a blank or the end of the line) is at `mark`.
fn value_indicator_at(piece: &str, mark: Mark) -> bool {
    let rest = piece.get(offset(piece, mark)..).unwrap_or_default();
    rest.strip_prefix(':')
        .is_some_and(|after| after.chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\n' | '\r')))
}

/// Whether the rest of a line that starts with a flow collection or a quoted scalar (`content`)
/// closes it with a `:` on the line: a simple key that resolves.
fn resolves(content: &str) -> bool {
    content.match_indices(['}', ']', '"', '\'']).any(|(i, _)| {
        let after = content[i + 1..].trim_start_matches(' ');
        i > 0 && after.starts_with(':') && after[1..].chars().next().is_none_or(|c| c == ' ' || c == '\t')
    })
}

/// The flow level saphyr gives up past (it counts flow levels in a `u8`).
pub(crate) const SAPHYR_FLOW_LEVELS: usize = 255;

/// go-yaml's `max_flow_level` (`scannerc.go`), and `encoding/json`'s `maxNestingDepth`.
const GO_MAX_DEPTH: usize = 10_000;

/// kubectl's error for flow collections nested deeper than saphyr reads, from the bracket
/// saphyr refused at `mark` (of `piece`, the first past [`SAPHYR_FLOW_LEVELS`]), inside
/// `blocks` block collections; `None` where kubectl reads them (a limit of ours).
///
/// Two limits of 10000 levels apply. go-yaml's scanner refuses a flow collection opened past
/// `max_flow_level` (`yaml_parser_increase_flow_level`: `yaml: line N: exceeded max depth of
/// 10000`, a scanner error at the bracket). Below it, the document converts, and the JSON that
/// `sigs.k8s.io/yaml` then unmarshals counts every collection, block ones included: past
/// `maxNestingDepth`, `encoding/json`'s scanner refuses the bracket (`pushParseState`), and
/// kubectl says `error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded
/// max depth`. The brackets are counted outside quoted scalars and comments.
pub(crate) fn deep_flow(piece: &str, mark: Mark, blocks: usize) -> Option<(Mark, String)> {
    let bytes = piece.as_bytes();
    let mut i = offset(piece, mark);
    let (mut flow, mut depth) = (SAPHYR_FLOW_LEVELS, SAPHYR_FLOW_LEVELS + blocks);
    let mut json: Option<(usize, u8)> = None;
    // The last byte that is not white space: a quote after one of these starts a scalar.
    let mut last = b'[';
    while let Some(&b) = bytes.get(i) {
        match b {
            b'[' | b'{' => {
                flow += 1;
                depth += 1;
                if flow > GO_MAX_DEPTH {
                    let at = mark_at(piece, i);
                    return Some((at, worded(at, &format!("exceeded max depth of {GO_MAX_DEPTH}"), Count::Scanner)));
                }
                if depth > GO_MAX_DEPTH && json.is_none() {
                    json = Some((i, b));
                }
            }
            b']' | b'}' => {
                flow = flow.saturating_sub(1);
                depth = depth.saturating_sub(1);
                if flow == 0 {
                    break;
                }
            }
            b'"' | b'\'' if matches!(last, b'[' | b'{' | b',' | b':' | b'?') => {
                let mut j = i + 1;
                while let Some(&c) = bytes.get(j) {
                    if c == b'\\' && b == b'"' {
                        j += 1;
                    } else if c == b {
                        break;
                    }
                    j += 1;
                }
                i = j;
            }
            b'#' if i == 0 || bytes.get(i - 1).is_some_and(|c| c.is_ascii_whitespace()) => {
                i = bytes.get(i..).and_then(|rest| memchr::memchr2(b'\n', b'\r', rest)).map_or(bytes.len(), |n| i + n);
                continue;
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
        i += 1;
    }
    let (at, bracket) = json?;
    let message = format!(
        "error unmarshaling JSON: while decoding JSON: invalid character '{}' exceeded max depth",
        char::from(bracket)
    );
    Some((mark_at(piece, at), message))
}

/// kubectl's error for block collections nested deeper than our tree holds, from the block
/// collection that starts at `mark` (of `piece`), inside the open block collections that start
/// at the columns `open` (the outermost first); `None` where go-yaml reads on, or where the text
/// is more than the plain block keys and entries this follows (a limit of ours).
///
/// go-yaml's scanner keeps a stack of indentation columns, one pushed for each block collection
/// that starts right of the current one (`yaml_parser_roll_indent`: at a `-` or `?` entry, and at
/// a simple key's `:`), popped at each token left of it (`yaml_parser_unroll_indent`), and refuses
/// a push past `max_indents` (`yaml: line N: exceeded max depth of 10000`, a scanner error).
pub(crate) fn deep_block(piece: &str, mark: Mark, open: &[u32]) -> Option<(Mark, String)> {
    let mut indents: Vec<usize> = Vec::new();
    // go-yaml's `parser.indent`, from -1: a column plus one.
    let mut indent = 0usize;
    // `yaml_parser_roll_indent`: whether the stack is then past go-yaml's limit.
    fn roll(indents: &mut Vec<usize>, indent: &mut usize, column: usize) -> bool {
        if *indent < column + 1 {
            indents.push(*indent);
            *indent = column + 1;
        }
        indents.len() > GO_MAX_DEPTH
    }
    for &column in open {
        roll(&mut indents, &mut indent, column as usize);
    }
    let refused = |at: usize| {
        let at = mark_at(piece, at);
        Some((at, worded(at, &format!("exceeded max depth of {GO_MAX_DEPTH}"), Count::Scanner)))
    };
    let bytes = piece.as_bytes();
    let mut i = offset(piece, mark);
    let mut line_start = i.saturating_sub(mark.col as usize);
    let column = |line_start: usize, i: usize| piece.get(line_start..i).map_or(0, |s| s.chars().count());
    loop {
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
        let blank = |b: Option<&u8>| matches!(b, None | Some(b' ' | b'\n' | b'\r'));
        match bytes.get(i) {
            None => return None,
            Some(b'\n' | b'\r') => {
                i += if bytes.get(i..i + 2) == Some(b"\r\n") { 2 } else { 1 };
                line_start = i;
                let col = bytes.get(i..).map_or(0, |rest| rest.iter().take_while(|b| **b == b' ').count());
                // A token left of the indentation closes the collections right of it.
                if !matches!(bytes.get(i + col), None | Some(b'\n' | b'\r' | b'#')) {
                    while indent > col + 1
                        && let Some(outer) = indents.pop()
                    {
                        indent = outer;
                    }
                }
            }
            Some(b'#') => {
                i = bytes.get(i..).and_then(|rest| memchr::memchr2(b'\n', b'\r', rest)).map_or(bytes.len(), |n| i + n);
            }
            Some(b'-' | b'?') if blank(bytes.get(i + 1)) => {
                if roll(&mut indents, &mut indent, column(line_start, i)) {
                    return refused(i);
                }
                i += 1;
            }
            Some(b) if !b"[]{},#&*!|>'\"%@`\t".contains(b) => {
                let end =
                    bytes.get(i..).and_then(|rest| memchr::memchr2(b'\n', b'\r', rest)).map_or(bytes.len(), |n| i + n);
                let line = bytes.get(i..end).unwrap_or_default();
                // The line up to a comment.
                let line = line.windows(2).position(|w| w == b" #").and_then(|n| line.get(..n)).unwrap_or(line);
                let colon = line.windows(2).position(|w| w == b": ");
                let colon = colon.or_else(|| line.ends_with(b":").then(|| line.len() - 1));
                match colon {
                    Some(k) => {
                        if roll(&mut indents, &mut indent, column(line_start, i)) {
                            return refused(i);
                        }
                        i += k + 1;
                    }
                    // A scalar value: the rest of the line.
                    None => i = end,
                }
            }
            _ => return None,
        }
    }
}

/// Whether saphyr stopped at a `-` followed by a blank inside a flow collection opened on
/// the same line: go-yaml scans a block entry there, and its flow parser, expecting a node,
/// says "did not find expected node content" (`yaml_parser_parse_node`).
pub(crate) fn block_entry_in_flow(piece: &str, at: Mark) -> Option<(Mark, String)> {
    let start = line_offset(piece, at);
    let here = offset(piece, at);
    let mut rest = piece[here..].chars();
    if rest.next() != Some('-') || !rest.next().is_none_or(|c| c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        return None;
    }
    let before = &piece[start..here];
    let depth = before.chars().fold(0i32, |d, c| match c {
        '{' | '[' => d + 1,
        '}' | ']' => d - 1,
        _ => d,
    });
    (depth > 0).then(|| (at, worded(at, "did not find expected node content", Count::Parser)))
}

/// Where go-yaml's scanner stops at the first escape it refuses in the double-quoted scalar
/// that starts at `quote` (a mark of `piece`, as saphyr counts lines): the `\` of an escape
/// it does not know, the first digit of a `\x`, `\u` or `\U` whose digits are not hex or
/// name no character (`yaml_parser_scan_flow_scalar`: its marks are not past them yet).
fn bad_escape(piece: &str, quote: Mark) -> Option<Mark> {
    let from = offset(piece, quote);
    let mut chars = piece.get(from..)?.chars().peekable();
    let mut at = quote;
    let step = |at: &mut Mark, c: char, next: Option<&char>| {
        at.index += 1;
        if c == '\n' || (c == '\r' && next != Some(&'\n')) {
            at.line += 1;
            at.col = 0;
        } else {
            at.col += 1;
        }
    };
    let c = chars.next().filter(|c| *c == '"')?;
    step(&mut at, c, chars.peek());
    while let Some(c) = chars.next() {
        if c == '"' {
            return None;
        }
        if c != '\\' {
            step(&mut at, c, chars.peek());
            continue;
        }
        let escape = at;
        step(&mut at, c, chars.peek());
        let letter = chars.next()?;
        let len = match letter {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            '0' | 'a' | 'b' | 't' | '\t' | 'n' | 'v' | 'f' | 'r' | 'e' | ' ' | '"' | '\'' | '\\' | 'N' | '_' | 'L'
            | 'P' | '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => 0,
            _ => return Some(escape),
        };
        step(&mut at, letter, chars.peek());
        if len > 0 {
            let digits: String = chars.clone().take(len).collect();
            let code = (digits.len() == len && digits.chars().all(|d| d.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(&digits, 16).ok())
                .flatten();
            if code.and_then(char::from_u32).is_none() {
                return Some(at);
            }
        }
    }
    None
}

/// The byte offset of a piece's mark in its text.
fn offset(piece: &str, mark: Mark) -> usize {
    let mut start = 0usize;
    let mut lines = yaml_lines(piece);
    for _ in 1..mark.line {
        match lines.next() {
            Some(line) if line.ends_with(['\n', '\r']) => start += line.len(),
            _ => return piece.len(),
        }
    }
    let rest = &piece[start..];
    start + rest.char_indices().nth(mark.col as usize).map_or(rest.len(), |(i, _)| i)
}

/// The mark of a byte offset of a piece.
pub(crate) fn mark_at(piece: &str, byte: usize) -> Mark {
    let (mut index, mut line, mut col) = (0u32, 1u32, 0u32);
    let mut after_cr = false;
    for c in piece[..byte.min(piece.len())].chars() {
        index += 1;
        match c {
            '\n' if after_cr => {}
            '\n' | '\r' => {
                line += 1;
                col = 0;
            }
            _ => col += 1,
        }
        after_cr = c == '\r';
    }
    Mark { index, line, col }
}

/// The mark after `text`, which starts at `from`: its characters, and its lines as YAML counts
/// them (`\n`, `\r\n` and a lone `\r` end one).
pub(crate) fn advance(from: Mark, text: &str) -> Mark {
    let to = mark_at(text, text.len());
    Mark {
        index: from.index.saturating_add(to.index),
        line: from.line.saturating_add(to.line - 1),
        col: if to.line > 1 { to.col } else { from.col.saturating_add(to.col) },
    }
}

impl Piece<'_> {
    /// The mark in `text` of the file's mark `m` (of this piece): its line and column as
    /// saphyr counts them in `text`, which are go-yaml's where `text` breaks lines the piece as
    /// written does not ([`Piece::line_starts`]). For the paths that choose go-yaml's words.
    pub(crate) fn local(&self, m: Mark) -> Mark {
        if self.line_starts.is_empty() {
            return Mark { line: m.line.saturating_sub(self.start.line).saturating_add(1), ..m };
        }
        mark_at(self.text, self.byte_at(m.index))
    }
}

/// Where go-yaml's reading of a piece ends.
fn end_of(piece: &str) -> Mark {
    let end = mark_at(piece, piece.len());
    // kubectl's `YAMLReader` gives go-yaml each line with a line break, the last one too: a
    // piece that ends without one ends, for go-yaml, at the start of the line after its last.
    if end.col > 0 { Mark { line: end.line.saturating_add(1), col: 0, ..end } } else { end }
}

/// The first line after `mark`'s that starts with a document indicator (`---` or `...` before
/// a blank or the end): where go-yaml's quoted scalar scanner finds "unexpected document
/// indicator".
fn document_indicator(piece: &str, mark: Mark) -> Option<Mark> {
    let from = offset(piece, mark);
    let mut at = next_line_start(piece, from)?;
    for line in yaml_lines(&piece[at..]) {
        let indicator = line.starts_with("---") || line.starts_with("...");
        if indicator && line[3..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
            return Some(mark_at(piece, at));
        }
        at += line.len();
    }
    None
}

/// The first tab in the indentation of a line after `mark`'s: where go-yaml's plain scalar
/// scanner finds "a tab character that violates indentation".
fn indentation_tab(piece: &str, mark: Mark) -> Option<Mark> {
    let from = offset(piece, mark);
    let next_line = next_line_start(piece, from)?;
    let mut at = next_line;
    for line in yaml_lines(&piece[next_line..]) {
        let blank = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = line[..blank].find('\t') {
            return Some(mark_at(piece, at + tab));
        }
        if !line.trim().is_empty() {
            return None;
        }
        at += line.len();
    }
    None
}

/// Whether the quoted scalar starting at `mark` is closed somewhere in the piece (go-yaml
/// does not mind how its lines are indented).
fn closes(piece: &str, mark: Mark) -> bool {
    let from = offset(piece, mark);
    !piece[from..].starts_with(['"', '\'']) || closing(piece, from).is_some()
}

/// The byte offset after the closing quote of the quoted scalar that starts at the byte
/// offset `from`, if it is closed.
fn closing(piece: &str, from: usize) -> Option<usize> {
    let mut chars = piece[from..].char_indices().peekable();
    let close = match chars.next()?.1 {
        '"' => {
            let mut escaped = false;
            chars.find(|(_, c)| {
                let close = *c == '"' && !escaped;
                escaped = *c == '\\' && !escaped;
                close
            })
        }
        '\'' => loop {
            let (i, c) = chars.next()?;
            // `''` is a quote inside the scalar.
            if c == '\'' && chars.next_if(|(_, c)| *c == '\'').is_none() {
                break Some((i, c));
            }
        },
        _ => None,
    };
    close.map(|(i, _)| from + i + 1)
}

/// The `:` after the quoted scalar that starts at `mark`, if one follows it (white space
/// and line breaks between).
fn quoted_then_colon(piece: &str, mark: Mark) -> Option<Mark> {
    let end = closing(piece, offset(piece, mark))?;
    let colon = end + piece[end..].find(|c: char| !c.is_whitespace())?;
    piece[colon..].starts_with(':').then(|| mark_at(piece, colon))
}

/// The name of the alias at `mark` (`*name`), as go-yaml scans it.
pub(crate) fn anchor_name(piece: &str, mark: Mark) -> String {
    let from = offset(piece, mark);
    piece[from..]
        .trim_start_matches('*')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

/// Byte offsets of a text's character indices (saphyr's marks count characters), asked for in
/// increasing order: each character is looked at once however many are asked for, and none
/// in an ASCII text (nearly every manifest), where an index is its offset.
#[derive(Debug)]
pub(crate) struct ByteCursor<'t> {
    text: &'t str,
    ascii: bool,
    index: u32,
    byte: usize,
}

impl<'t> ByteCursor<'t> {
    /// A cursor over `text` (one look at its bytes, to know whether they are ASCII).
    pub fn new(text: &'t str) -> Self {
        ByteCursor { text, ascii: text.is_ascii(), index: 0, byte: 0 }
    }

    /// The byte offset of the character `index` of the text (its length past the end).
    pub fn byte_of(&mut self, index: u32) -> usize {
        let text = self.text;
        if self.ascii {
            return (index as usize).min(text.len());
        }
        if index < self.index {
            (self.index, self.byte) = (0, 0);
        }
        let rest = text.get(self.byte..).unwrap_or_default();
        let ahead = (index - self.index) as usize;
        self.byte += rest.char_indices().nth(ahead).map_or(rest.len(), |(i, _)| i);
        self.index = index;
        self.byte
    }
}

/// Where a line's comment starts: at a `#` that starts the line or follows white space
/// (quoted scalars are not looked into).
pub(crate) fn comment_start(line: &str) -> Option<usize> {
    line.char_indices().find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with([' ', '\t']))).map(|(i, _)| i)
}

/// Whether the node that starts at byte `at` of `text` is an explicit key: what precedes it,
/// past white space and its properties (an anchor `&a`, a tag `!t`), is a `?` indicator
/// (`yaml_parser_fetch_key`), which go-yaml reads as a key however far its `:` is.
pub(crate) fn explicit_key(text: &str, at: usize) -> bool {
    let mut before = text.get(..at).unwrap_or_default().trim_end();
    // Comments on the lines between (`? # empty`).
    loop {
        let line = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let last = &before[line..];
        let Some(hash) = comment_start(last) else {
            break;
        };
        before = before[..line + hash].trim_end();
    }
    for _ in 0..2 {
        // go-yaml's blanks and line breaks end a property (a no-break space, for one, is text).
        let word = before.rfind([' ', '\t', '\n', '\r']).map_or(0, |i| i + 1);
        if !before[word..].starts_with(['&', '!']) {
            break;
        }
        before = before[..word].trim_end();
    }
    before
        .strip_suffix('?')
        .is_some_and(|rest| rest.is_empty() || rest.ends_with([' ', '\t', '\n', '\r', '{', '[', ',']))
}

/// What go-yaml's scanner refuses in the name of an anchor that saphyr reads (YAML 1.2 names
/// take any character but white space and `,[]{}`; `yaml_parser_scan_anchor` reads letters,
/// digits, `_` and `-`, and then wants white space or one of `?:,]}%@` and a backtick).
/// `node` is the text from the start of the anchored node (its tag, if the tag comes first,
/// then the `&`); `value_on_key_line` says it is the value of a block mapping's key on the
/// key's line, where go-yaml's scanner refuses a `:` that ends the name (a second value on the
/// line). Returns the byte offset in `node` of the character go-yaml stops at and its words
/// (scanner errors), or `None` when go-yaml reads the name as saphyr does, or reads on in a
/// way not followed here.
pub(crate) fn anchor_problem(node: &str, value_on_key_line: bool) -> Option<(usize, &'static str)> {
    let mut at = 0;
    if node.starts_with('!') {
        at = node.find([' ', '\t', '\n', '\r']).unwrap_or(node.len());
        at += node[at..].len() - node[at..].trim_start_matches([' ', '\t']).len();
    }
    let name = node[at..].strip_prefix('&')?;
    let (stop, problem) = name_problem(name, value_on_key_line)?;
    Some((at + 1 + stop, problem))
}

/// What go-yaml's scanner refuses in `name`, the text after an anchor's `&` or an alias's `*`
/// that saphyr reads as the name (`yaml_parser_scan_anchor`, for both: an empty name, or one
/// that ends at a character it does not allow there); see [`anchor_problem`].
pub(crate) fn name_problem(name: &str, value_on_key_line: bool) -> Option<(usize, &'static str)> {
    const NOT_ALPHANUMERIC: &str = "did not find expected alphabetic or numeric character";
    // saphyr's name ends at white space or a flow indicator; go-yaml's scanner refuses an
    // opening bracket right after the name (`&a{`), so that one is looked at.
    let end = name.find([' ', '\t', '\n', '\r', ',', ']', '}']).unwrap_or(name.len());
    let (stop, c) = name[..end].char_indices().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))?;
    // A name of nothing (`&"a"`, `*'b'`) is refused whatever follows.
    if stop == 0 {
        return Some((0, NOT_ALPHANUMERIC));
    }
    let problem = match c {
        // The name ends, and the character starts the next token.
        ':' if value_on_key_line
            && name[stop + 1..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\n' | '\r')) =>
        {
            "mapping values are not allowed in this context"
        }
        '%' | '@' | '`' => "found character that cannot start any token",
        '?' | ':' | ',' | ']' | '}' => return None,
        _ => NOT_ALPHANUMERIC,
    };
    Some((stop, problem))
}

// === what go-yaml's decoder and json.Marshal refuse in a document that parses ===

/// A key that go-yaml cannot hash (`invalid map key: []interface {}{"a", "b"}`, with Go's
/// `%#v` of it), or a merge key whose value is not a mapping or a list of mappings, or is a
/// list through an alias (`alias_of_list`: `decoder.merge` wants an alias of a mapping).
/// go-yaml decodes a key before it hashes it, so a key that is itself a mapping with an
/// unhashable key of its own is refused for that inner key first.
pub(crate) fn key_problem(key: Node<'_>, value: Node<'_>, is_merge: bool, alias_of_list: bool) -> Option<String> {
    if key.scalar().is_none() {
        let inner = invalid_key_within(key).unwrap_or(key);
        return Some(format!("{YAML_TO_JSON}yaml: invalid map key: {}", go_sharp_v(inner, true)));
    }
    // (Asked of every entry as it is read: only a merge key's value is looked at.)
    if !is_merge {
        return None;
    }
    let mergeable = match value.kind() {
        NodeKind::Map(_) => true,
        NodeKind::Seq(mut items) => items.all(Node::is_map),
        NodeKind::Scalar(_) => false,
    };
    (!mergeable || alias_of_list)
        .then(|| format!("{YAML_TO_JSON}yaml: map merge requires map or sequence of maps as the value"))
}

/// The first unhashable key go-yaml meets decoding `node` (in document order, each key
/// before its value), if any.
fn invalid_key_within(node: Node<'_>) -> Option<Node<'_>> {
    match node.kind() {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(mut items) => items.find_map(invalid_key_within),
        NodeKind::Map(mut entries) => entries.find_map(|e| {
            invalid_key_within(e.key)
                .or_else(|| e.key.scalar().is_none().then_some(e.key))
                .or_else(|| invalid_key_within(e.value))
        }),
    }
}

/// A key go-yaml decodes but `sigs.k8s.io/yaml` cannot make a JSON key of
/// (`convertToJSONableObject` takes strings, ints, floats and bools): null, and an integer
/// only a uint64 holds; in its words (`unsupported map key of type: %s, key: %+#v, value:
/// %+#v`, where `%s` of the nil type is `%!s(<nil>)`), with the key's `%#v`.
pub(crate) fn unsupported_key(key: Node<'_>, value: Node<'_>) -> Option<(String, String)> {
    let type_ = match key.scalar()? {
        Scalar::Null => "%!s(<nil>)",
        Scalar::UInt(_) => "uint64",
        _ => return None,
    };
    let key = go_sharp_v(key, true);
    let message =
        format!("{YAML_TO_JSON}unsupported map key of type: {type_}, key: {key}, value: {}", go_sharp_v(value, true));
    Some((key, message))
}

/// Go's `%#v` of what go-yaml decodes a node into (an `interface{}`).
fn go_sharp_v(node: Node<'_>, top: bool) -> String {
    match node.kind() {
        NodeKind::Scalar(Scalar::Null) if top => "<nil>".into(),
        NodeKind::Scalar(Scalar::Null) => "interface {}(nil)".into(),
        NodeKind::Scalar(Scalar::Bool(b)) => b.to_string(),
        NodeKind::Scalar(Scalar::Int(i)) => i.to_string(),
        NodeKind::Scalar(Scalar::UInt(u)) => format!("0x{u:x}"),
        NodeKind::Scalar(Scalar::Float(f)) => go_g(f),
        NodeKind::Scalar(Scalar::Str(s)) => hpa_core::go::quote(s),
        NodeKind::Seq(items) => {
            let items: Vec<String> = items.map(|i| go_sharp_v(i, false)).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        NodeKind::Map(entries) => {
            // fmt prints a map's entries sorted by key.
            let mut pairs: Vec<(String, String)> =
                entries.map(|e| (go_sharp_v(e.key, false), go_sharp_v(e.value, false))).collect();
            pairs.sort();
            let mut out = String::from("map[interface {}]interface {}{");
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{k}:{v}");
            }
            out.push('}');
            out
        }
    }
}

/// Go's `%v`/`%g` of a float64 (shortest digits, exponent from 1e21 or below 1e-4).
fn go_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let e = format!("{f:e}");
    let exp: i32 = e.split_once('e').and_then(|(_, x)| x.parse().ok()).unwrap_or(0);
    if (-4..21).contains(&exp) {
        format!("{f}")
    } else {
        let (mantissa, _) = e.split_once('e').unwrap_or((&e, ""));
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
    }
}

/// The float `json.Marshal` refuses first, walking the document as it does (mapping keys
/// sorted): `json: unsupported value: NaN`, with the node.
pub(crate) fn unsupported_float(root: Node<'_>) -> Option<(Node<'_>, String)> {
    match root.kind() {
        NodeKind::Scalar(Scalar::Float(f)) if !f.is_finite() => {
            Some((root, format!("{YAML_TO_JSON}json: unsupported value: {}", go_g(f))))
        }
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(mut items) => items.find_map(unsupported_float),
        NodeKind::Map(entries) => {
            // The last of equal keys is the one kept.
            let mut kept: Vec<(std::borrow::Cow<'_, str>, Node<'_>)> = Vec::with_capacity(entries.len());
            for e in entries {
                let key = e.key.key_str();
                match kept.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = e.value,
                    None => kept.push((key, e.value)),
                }
            }
            kept.sort_by(|a, b| a.0.cmp(&b.0));
            kept.into_iter().find_map(|(_, v)| unsupported_float(v))
        }
    }
}

/// The index of the first character of each line of `text` (lines end at `\n`, `\r\n` or a
/// lone `\r`, as YAML 1.2 and saphyr end them), for [`Piece::line_starts`].
pub(crate) fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = vec![0u32];
    let mut chars = text.chars().peekable();
    let mut index = 0u32;
    while let Some(c) = chars.next() {
        index = index.saturating_add(1);
        if c == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
            index = index.saturating_add(1);
            starts.push(index);
        } else if c == '\n' || c == '\r' {
            starts.push(index);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A character index is its byte offset in an ASCII text, and is counted in any other,
    /// asked for forwards or backwards; past the end, the text's length.
    #[test]
    fn byte_cursor_finds_each_characters_offset() {
        for text in ["a: b\n- c\n", "é: ü\n  - x # ñ\n", ""] {
            let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
            let mut cursor = ByteCursor::new(text);
            let order: Vec<usize> = (0..offsets.len()).chain((0..offsets.len()).rev()).collect();
            for index in order {
                assert_eq!(cursor.byte_of(index as u32), offsets[index], "{text:?} at {index}");
            }
            assert_eq!(cursor.byte_of(offsets.len() as u32 + 3), text.len(), "{text:?}");
        }
    }

    /// Past saphyr's flow levels, kubectl's errors: go-yaml's scanner past 10000 flow levels,
    /// at the bracket (the line named from the second on), else `encoding/json` past 10000
    /// levels of the converted JSON, block collections counted; brackets in quoted scalars
    /// and comments are no collections; `None` where kubectl reads it all.
    #[test]
    fn flow_nesting_past_saphyrs_limit_is_refused_where_kubectl_refuses_it() {
        // The bracket saphyr refuses, the 256th.
        let at = |_: &str| Mark { index: 255, line: 1, col: 255 };
        let seqs = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let (mark, message) = deep_flow(&seqs(10_001), at(""), 0).unwrap();
        assert_eq!((mark.line, mark.col), (1, 10_000));
        assert_eq!(message, "error converting YAML to JSON: yaml: exceeded max depth of 10000");
        let (mark, message) = deep_flow(&seqs(9_999), at(""), 2).unwrap();
        assert_eq!((mark.line, mark.col), (1, 9_998));
        assert_eq!(message, "error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth");
        assert_eq!(deep_flow(&seqs(9_999), at(""), 1), None);
        assert_eq!(deep_flow(&seqs(300), at(""), 0), None);
        let quoted = format!(
            "{}\"{}\", '{}' # {}\n{}",
            "[".repeat(300),
            "[".repeat(10_000),
            "{".repeat(10_000),
            "[".repeat(10_000),
            "]".repeat(300)
        );
        assert_eq!(deep_flow(&quoted, at(""), 5), None);
        let maps = format!("[\n{}", "{a: ".repeat(10_000));
        let (mark, message) = deep_flow(&maps, Mark { index: 2 + 254 * 4, line: 2, col: 254 * 4 }, 0).unwrap();
        assert_eq!((mark.line, mark.col), (2, 9_999 * 4));
        assert_eq!(message, "error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000");
    }

    /// Past our tree's depth, kubectl's error where go-yaml's stack of indentation columns
    /// passes 10000 (a push for each collection right of the last, a pop for each token left
    /// of it), at the token that passes it; `None` where go-yaml reads on, and where the text
    /// is more than plain keys and entries.
    #[test]
    fn block_nesting_past_our_depth_is_refused_where_go_yaml_refuses_it() {
        let open: Vec<u32> = (0..512).map(|i| i * 2).collect();
        let at = Mark { index: 1024, line: 1, col: 1024 };
        let dashes = |n: usize| format!("{}x\n", "- ".repeat(n));
        let (mark, message) = deep_block(&dashes(10_001), at, &open).unwrap();
        assert_eq!((mark.line, mark.col), (1, 20_000));
        assert_eq!(message, "error converting YAML to JSON: yaml: exceeded max depth of 10000");
        assert_eq!(deep_block(&dashes(10_000), at, &open), None);
        // Keys, each a column right of the last, after comments and blank lines; a line back
        // at the left closes them all.
        let keys = |n: usize, back: bool| {
            let mut text = String::from("a:\n");
            for d in 1..n {
                text.push_str(&format!("{}a: # c\n\n", " ".repeat(d)));
                if back && d == 5000 {
                    text.push_str("b:\n");
                }
            }
            text
        };
        // The key at depth 512, on line 1024.
        let (open, at): (Vec<u32>, _) = ((0..512).collect(), Mark { index: 0, line: 1024, col: 512 });
        let text = keys(10_002, false);
        let (mark, message) = deep_block(&text, at, &open).unwrap();
        assert_eq!((mark.line, mark.col), (20_000, 10_000));
        assert_eq!(message, "error converting YAML to JSON: yaml: line 20000: exceeded max depth of 10000");
        let text = keys(10_002, true);
        assert_eq!(deep_block(&text, at, &open), None);
        assert_eq!(deep_block("- [\n", Mark::default(), &[]), None);
    }

    #[test]
    fn json_surrogate_escapes_are_rewritten_for_saphyr() {
        let of = |json: &str| JsonForSaphyr::of(json).map(|r| (r.text, r.shorter));
        assert_eq!(of(r#"{"a": "\u00e9", "b": "\\ud800"}"#), None, "no surrogate, an escaped backslash");
        // Lone ones: U+FFFD, as Go's `unquote` reads them; the same length.
        assert_eq!(
            of(r#"{"a": "\ud800", "b": "x\uDC00y", "c": "\ud800\u0041"}"#),
            Some((r#"{"a": "\ufffd", "b": "x\ufffdy", "c": "\ufffd\u0041"}"#.to_string(), vec![]))
        );
        // Pairs: YAML's 8-digit escape, two characters shorter, each where the text read has it.
        let (text, shorter) =
            of("{\"a\": \"\\ud83d\\ude00\\uD83D\\uDE80\",\r\n \"\\ud800\\ud83d\\ude00\": 1}").unwrap();
        assert_eq!(text, "{\"a\": \"\\U0001f600\\U0001f680\",\r\n \"\\ufffd\\U0001f600\": 1}");
        assert_eq!(
            shorter,
            [Shorter { index: 7, line: 1 }, Shorter { index: 17, line: 1 }, Shorter { index: 39, line: 2 }]
        );
    }

    #[test]
    fn marks_of_a_shorter_text_map_back_to_the_file() {
        let json = "{\"a\": \"\\ud83d\\ude00\\ud83d\\ude00 x\",\n \"b\": \"\\ud83d\\ude00\", \"c\": 1}";
        let r = JsonForSaphyr::of(json).unwrap();
        let start = Mark { index: 100, line: 5, col: 3 };
        let piece =
            Piece { text: &r.text, start, separator: None, shorter: &r.shorter, line_starts: &[], indented: &[] };
        // Every character of the text read that is not inside a rewritten escape is the same
        // character of the file.
        let read: Vec<char> = r.text.chars().collect();
        let written: Vec<char> = json.chars().collect();
        let (mut line, mut col) = (1u32, 0u32);
        for (index, c) in read.iter().enumerate() {
            let m = piece.as_written(Mark { index: index as u32, line, col });
            let inside =
                r.shorter.iter().any(|s| (s.index..s.index + 10).contains(&(index as u32)) && index as u32 != s.index);
            if !inside {
                assert_eq!(written[m.index as usize], *c, "{index}");
                let before = &written[..m.index as usize];
                let line_start = before.iter().rposition(|c| *c == '\n').map_or(0, |p| p + 1);
                assert_eq!((m.line, m.col as usize), (line, before.len() - line_start), "{index}");
                assert_eq!(piece.char_at(m.index + start.index), Some(*c), "{index}");
            }
            if *c == '\n' {
                (line, col) = (line + 1, 0);
            } else {
                col += 1;
            }
        }
        let last_line = |t: &str| t.rsplit('\n').next().unwrap().chars().count() as u32;
        let end = piece.absolute(Mark { index: read.len() as u32, line: 2, col: last_line(&r.text) });
        assert_eq!(end, Mark { index: 100 + written.len() as u32, line: 6, col: last_line(json) });
    }

    #[test]
    fn pieces_are_cut_at_separator_lines() {
        let text = "a: 1\n---\nb: 2\n--- # c\r\nc: 3\n";
        let p = pieces(text).pieces;
        assert_eq!(p.iter().map(|p| p.text).collect::<Vec<_>>(), ["a: 1\n", "b: 2\n", "c: 3\n"]);
        // A separator that starts a document stays in it.
        let first = pieces("---\na: 1\n---\n---\nb: 2\n").pieces;
        assert_eq!(first.iter().map(|p| p.text).collect::<Vec<_>>(), ["---\na: 1\n", "---\nb: 2\n"]);
        assert_eq!((first[0].separator, first[1].separator.map(|m| m.line)), (None, Some(3)));
        assert_eq!(p[1].start, Mark { index: 9, line: 3, col: 0 });
        assert_eq!(p[2].start, Mark { index: 23, line: 5, col: 0 });
        assert_eq!(p[2].separator, Some(Mark { index: 14, line: 4, col: 0 }));
        // A separator kubectl refuses ends the pieces: the one it would end is not read.
        let refused = pieces("a: 1\n---\nb: 2\n--- {c: 3}\nd: 4\n");
        assert_eq!(refused.pieces.iter().map(|p| p.text).collect::<Vec<_>>(), ["a: 1\n"]);
        let (at, message) = refused.error.unwrap();
        assert_eq!((at.line, message.as_str()), (4, "invalid Yaml document separator: {c: 3}"));
        assert!(!refused.one_stream);
        assert_eq!(pieces("--- x\na: 1\n").pieces.len(), 0);
        assert_eq!(pieces("---\n---\n").pieces.len(), 1);
    }

    #[test]
    fn marks_of_pieces_count_characters_and_lines() {
        let texts = ["a: 1\n---\nb: 2\n--- # c\nc: 3\n---", "é: 1\n---\nb: 2\n", "a: 1\r\n---\r\nb: 2\r\n", "a\n--- #"];
        for text in texts {
            for p in pieces(text).pieces {
                let at = p.text.as_ptr() as usize - text.as_ptr() as usize;
                assert_eq!(p.start, Counter::default().mark(text, at), "{text:?}");
            }
        }
        let one = |text: &str| pieces(text).one_stream;
        // A tab is read as go-yaml reads it, piece by piece.
        assert!(one("a: 1\n---\nb: é\n") && !one("a:\t1\n"));
        assert!(!one("a: 1\n...\n") && !one("%YAML 1.1\n---\na: 1\n") && !one("a: 1\r\n") && !one("a: \u{7}\n"));
    }

    #[test]
    fn control_characters_are_found_in_any_position() {
        for bad in ['\u{0}', '\u{7}', '\u{b}', '\u{1f}', '\u{7f}', '\u{80}', '\u{fffe}'] {
            for at in (0..17).chain([63, 64, 65, 127, 128, 140]) {
                let text = format!("{}{bad}{}", "a".repeat(at), "b\n\tc\r\n".repeat(3));
                let m = control_character(&text).unwrap_or_else(|| panic!("{bad:?} at {at}"));
                assert_eq!(m.index as usize, at, "{bad:?}");
            }
        }
        assert_eq!(control_character("a: b\r\n\tc: d\n\u{85}é\u{feff}"), None);
    }

    #[test]
    fn go_formats_keys_and_floats_as_fmt_does() {
        let doc = crate::parse("[a, 1, 1.5, ~, {k: v}]\n");
        let key = doc.documents[0].root();
        let scalars = crate::parse("[~, 5, <<]\n");
        let mut scalars = scalars.documents[0].root().items().unwrap();
        let (value, scalar, merge) = (scalars.next().unwrap(), scalars.next().unwrap(), scalars.next().unwrap());
        assert_eq!(
            key_problem(key, value, false, false).unwrap(),
            "error converting YAML to JSON: yaml: invalid map key: []interface {}{\"a\", 1, 1.5, interface {}(nil), map[interface {}]interface {}{\"k\":\"v\"}}"
        );
        assert_eq!(go_g(1e21), "1e+21");
        assert_eq!(go_g(0.5), "0.5");
        // A merge of a scalar, or of a list with a scalar in it.
        assert!(
            key_problem(merge, scalar, true, false)
                .unwrap()
                .ends_with("map merge requires map or sequence of maps as the value")
        );
        assert!(key_problem(merge, key, true, false).is_some());
    }

    #[test]
    fn json_refuses_the_first_nan_in_sorted_order() {
        let mut doc = crate::parse("z: 1.5\nb: [1, 2.5]\n");
        let tree = &mut doc.documents[0].tree;
        // The slots: the mapping, `z`, 1.5, `b`, the sequence, 1, 2.5.
        let slots = tree.slots_mut();
        slots[2].kind = crate::SlotKind::Float(f64::NAN);
        slots[6].kind = crate::SlotKind::Float(f64::NEG_INFINITY);
        let (node, message) = unsupported_float(tree.root()).unwrap();
        assert_eq!(message, "error converting YAML to JSON: json: unsupported value: -Inf");
        assert_eq!(node.span().start.line, 2);
    }

    #[test]
    fn yaml_after_json_starts_where_consume_whitespace_stops() {
        // Past white space, up to and including the first line break.
        assert_eq!(yaml_after("{}  abcd", 2), Some(4));
        assert_eq!(yaml_after("{} \t\n  a: 1\n", 2), Some(5));
        // Not with fewer than 4 bytes left where it looks, nor at U+FFFD.
        assert_eq!(yaml_after("{} xyz", 2), None);
        assert_eq!(yaml_after("{}\nab", 2), None);
        assert_eq!(yaml_after("{}\nabc", 2), Some(3));
        assert_eq!(yaml_after("{} \u{fffd} abc", 2), None);
        assert_eq!(yaml_after("{}   ", 2), None);
        // A value JSON refuses: from the start.
        assert_eq!(yaml_after("\n {a: 1,}", 0), Some(1));
        let s = json_stream("{\"a\": 1}{\"b\": 2}\n---\n");
        assert_eq!(s.values.len(), 2);
        assert!(
            matches!(s.then, AfterJson::Error(m, ref e) if m.line == 2 && e == "invalid character '-' in numeric literal")
        );
        let s = json_stream("{\"a\": 1}\n---\nb: 2\n");
        assert!(matches!(s.then, AfterJson::Yaml { from: 9, at: Mark { index: 9, line: 2, col: 0 }, .. }));
    }
}
