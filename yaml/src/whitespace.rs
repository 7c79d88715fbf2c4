//! Tabs, comments and line breaks as go-yaml v2's scanner reads them, where saphyr reads them
//! otherwise.
//!
//! go-yaml (`gopkg.in/yaml.v2` `scannerc.go`, which kubectl reads YAML with) treats a tab by
//! where its scanner meets it:
//!
//! - `yaml_parser_scan_skip_to_next_token` eats tabs between tokens in a flow collection, and in the
//!   block context where no simple key may start (after a key's `:`, a scalar, an anchor, a
//!   tag); where one may (at the start of a line, after `-`, `?` or a complex key's `:`), it
//!   stops at the tab, which starts no token: `found character that cannot start any token`;
//! - `yaml_parser_scan_plain_scalar` reads on across line breaks, and a tab in the
//!   indentation of a following line (left of the scalar's block indentation) is `found a tab
//!   character that violates indentation`, blank and comment lines included;
//! - `yaml_parser_scan_block_scalar_breaks` refuses a tab where an indentation space is
//!   expected (`found a tab character where an indentation space is expected`);
//! - a quoted scalar's continuation lines may start with tabs.
//!
//! It also ends a comment-free token before `#` after a quoted scalar or a flow collection
//! (`"a"#c`: a comment), and breaks lines at U+0085, U+2028 and U+2029 as at `\n` (inside a
//! quoted scalar, U+0085 only: go-yaml keeps the others in the text). go-yaml keeps a U+2028 or
//! U+2029 it breaks a line at in the scalar's value, where saphyr folds the `\n` it is given:
//! such a scalar's value is go-yaml's, computed here ([`Whitespace::values`]).
//!
//! A `\/` in a double-quoted scalar, an escape of YAML 1.2 that go-yaml does not know, is given
//! to saphyr as one it refuses too (`\q`). A `\'`, an escape go-yaml knows (`'`) and YAML and
//! saphyr do not, is given to saphyr as an escape of a character the text cannot otherwise hold
//! ([`apostrophe_stand_in`]), which the builder reads back as `'`.
//!
//! go-yaml looks at no indentation inside a flow collection or a quoted scalar; saphyr wants
//! their lines right of the block indentation. Such a line is given to saphyr indented
//! ([`crate::kubectl::Indented`]: spaces added at its start, which change no value).
//!
//! [`scan`] follows a piece as that scanner does, as far as the tokens it models go (it stops,
//! saying nothing more, where go-yaml's scanner would refuse something else: saphyr's error
//! is then the one reported), and gives the piece rewritten so that saphyr reads what go-yaml
//! reads (a tab go-yaml reads as a separating space is a space, such a comment is blanked,
//! such a line break is `\n`: one character for one, so no position moves, but for the
//! indented lines), and go-yaml's tab error, if any.

use crate::Mark;
use crate::kubectl::{Count, Indented};

/// What go-yaml's scanner makes of a piece's white space.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Whitespace {
    /// The piece as saphyr should read it, when it differs.
    pub text: Option<String>,
    /// go-yaml's error about a tab: where (a mark of the piece) and its words (without
    /// kubectl's prefix and the line).
    pub error: Option<(Mark, &'static str)>,
    /// How go-yaml counts the error's line: its scanner's, but for a `?` in a flow
    /// collection after a node, which its parser refuses.
    pub count: Count,
    /// The character indices of the line breaks go-yaml counts in quoted scalars and saphyr
    /// does not (U+2028, U+2029, kept in the text): lines saphyr's errors after them name
    /// fewer than go-yaml's.
    pub kept: Vec<u32>,
    /// The lines `text` indents further than written, in order (see [`Indented`]).
    pub indented: Vec<Indented>,
    /// The character saphyr reads where go-yaml reads a `\'` of a double-quoted scalar as `'`,
    /// when `text` has one ([`apostrophe_stand_in`]).
    pub apostrophe: Option<char>,
    /// go-yaml's value of each scalar whose line breaks saphyr reads otherwise (a U+2028 or
    /// U+2029, which go-yaml breaks a line at and keeps in the value, or a U+0085), by the
    /// character index in the piece where its token starts, in order ([`flow_value`],
    /// [`block_value`]).
    pub values: Vec<(u32, String)>,
}

/// Whether a piece has what [`scan`] looks at: a tab, a `\/` or `\'` ([`foreign_escape`]), a tag taking a flow indicator ([`glued_tag`]), or a line break YAML 1.1
/// has and saphyr does not. Nearly every file has none (a pass of `memchr` or two, and one of `memmem` per break for a text that is not
/// ASCII).
pub(crate) fn worth_scanning(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr(b'\t', bytes).is_some()
        || foreign_escape(bytes)
        || glued_tag(bytes)
        || glued_alias(bytes)
        || flow_question(bytes)
        || (!text.is_ascii()
            && (memchr::memmem::find(bytes, "\u{85}".as_bytes()).is_some()
                || memchr::memmem::find(bytes, "\u{2028}".as_bytes()).is_some()
                || memchr::memmem::find(bytes, "\u{2029}".as_bytes()).is_some()))
}

/// Whether a text has a `\/` (an escape YAML 1.2 has and go-yaml does not) or a `\'` (one
/// go-yaml has and YAML does not), anywhere: [`scan`] tells whether it is in a double-quoted
/// scalar. A backslash is rare in a manifest: nearly always one pass of `memchr`.
pub(crate) fn foreign_escape(bytes: &[u8]) -> bool {
    memchr::memchr(b'\\', bytes).is_some_and(|i| {
        memchr::memmem::find(&bytes[i..], b"\\/").is_some() || memchr::memmem::find(&bytes[i..], b"\\'").is_some()
    })
}

/// The escape saphyr is given for go-yaml's `\'` (`yaml_parser_scan_flow_scalar` of
/// `scannerc.go` reads it as `'`; saphyr refuses it), and the character saphyr reads it as:
/// the first of `\_`, `\N`, `\L`, `\P`, `\e`, `\a`, `\b`, `\v` and `\f` whose character the
/// text holds neither as itself nor as an escape, so that every one in what saphyr reads is a
/// `\'`. `None` when each is written (the `\'` is then given as an escape saphyr refuses: the
/// file is refused).
fn apostrophe_stand_in(text: &str) -> Option<(char, char)> {
    // Every character a `\x`, `\u` or `\U` escape of the text may stand for.
    let bytes = text.as_bytes();
    let escaped: Vec<u32> = memchr::memchr_iter(b'\\', bytes)
        .filter_map(|i| {
            let digits = match bytes.get(i + 1)? {
                b'x' => 2,
                b'u' => 4,
                b'U' => 8,
                _ => return None,
            };
            let hex = std::str::from_utf8(bytes.get(i + 2..i + 2 + digits)?).ok()?;
            u32::from_str_radix(hex, 16).ok()
        })
        .collect();
    // The characters of the escapes that follow, but for U+00A0, are ones go-yaml refuses
    // written as themselves in a quoted scalar (`control characters are not allowed`).
    const ESCAPES: [(char, char); 9] = [
        ('_', '\u{a0}'),
        ('N', '\u{85}'),
        ('L', '\u{2028}'),
        ('P', '\u{2029}'),
        ('e', '\u{1b}'),
        ('a', '\u{7}'),
        ('b', '\u{8}'),
        ('v', '\u{b}'),
        ('f', '\u{c}'),
    ];
    ESCAPES.into_iter().find(|&(letter, c)| {
        !text.contains(c) && !text.contains(&format!("\\{letter}")) && !escaped.contains(&(c as u32))
    })
}

/// Whether a text may have a tag with a `,`, `[` or `]` in it (`[!!null, b]`), which go-yaml's
/// `yaml_parser_scan_tag_uri` takes into the tag and saphyr does not, or with a character no
/// URI holds (`!!str#c`), which ends go-yaml's tag where white space must follow, or with a
/// `!` after its handle (`!!!y`), which go-yaml's URI takes and saphyr's does not. A tag is
/// rare in a manifest: nearly always one pass of `memchr`.
pub(crate) fn glued_tag(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'!', bytes).any(|i| {
        let rest = bytes.get(i + 1..).unwrap_or_default();
        let token = &rest[..rest.iter().position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(rest.len())];
        let handle = token.iter().position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')));
        if handle.is_some_and(|k| token[k] == b'!' && token[k + 1..].contains(&b'!')) {
            return true;
        }
        rest.iter()
            .take_while(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .any(|&b| matches!(b, b',' | b'[' | b']') || !crate::kubectl::uri_char(char::from(b)))
    })
}

/// Whether a text may have an alias or an anchor glued to a `:` (`*a: b`, `&a:b`), whose name
/// go-yaml ends there and saphyr does not. An alias or an anchor is rare in a manifest: nearly
/// always one pass of `memchr2`.
pub(crate) fn glued_alias(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(b'*', b'&', bytes).any(|i| {
        let rest = bytes.get(i + 1..).unwrap_or_default();
        let name = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')).count();
        name > 0 && rest.get(name) == Some(&b':')
    })
}

/// Whether a text may have a `?` in a flow collection, which go-yaml reads as the key
/// indicator wherever a token may start, and where a plain scalar ends (`{?a: b}`,
/// `[http://x/?a=b]`), and saphyr reads as text. A `?` is rare in a manifest: nearly always
/// one pass of `memchr`, then one or two.
pub(crate) fn flow_question(bytes: &[u8]) -> bool {
    memchr::memchr(b'?', bytes).is_some() && memchr::memchr2(b'[', b'{', bytes).is_some()
}

/// go-yaml's reading of a piece's white space ([`Whitespace`]).
pub(crate) fn scan(text: &str) -> Whitespace {
    let chars: Vec<char> = text.chars().collect();
    let mut s = Scanner {
        out: chars.clone(),
        c: &chars,
        pos: 0,
        line: 1,
        col: 0,
        flow: 0,
        indent: -1,
        indents: Vec::new(),
        allowed: true,
        key: None,
        changed: false,
        pads: Vec::new(),
        apostrophe: None,
        stand_in: None,
        kept: Vec::new(),
        flows: Vec::new(),
        after_node: false,
        parser_error: false,
        values: Vec::new(),
    };
    let error = s.run().err().flatten();
    let mut indented = Vec::with_capacity(s.pads.len());
    let text = if s.pads.is_empty() {
        s.changed.then(|| s.out.iter().collect())
    } else {
        let mut text = String::with_capacity(s.out.len() + s.pads.len() * 4);
        let mut from = 0;
        for (k, &(pos, by, line, col)) in s.pads.iter().enumerate() {
            text.extend(&s.out[from..pos]);
            let added: u32 = indented.iter().map(|i: &Indented| i.by).sum();
            let index = u32::try_from(pos).unwrap_or(u32::MAX).saturating_add(added);
            // Its column as read counts the spaces added before it on its line.
            let earlier: u32 = s.pads[..k].iter().filter(|p| p.2 == line).map(|p| p.1).sum();
            indented.push(Indented { index, by, col: col.saturating_add(earlier) });
            text.extend(std::iter::repeat_n(' ', by as usize));
            from = pos;
        }
        text.extend(&s.out[from..]);
        Some(text)
    };
    let count = if s.parser_error { Count::Parser } else { Count::Scanner };
    Whitespace { text, error, count, indented, apostrophe: s.apostrophe, kept: s.kept, values: s.values }
}

/// go-yaml's line breaks (`is_break`).
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Where the scanner stops: `Err(None)` where go-yaml refuses something this module leaves
/// to saphyr, `Err(Some(..))` at a tab go-yaml refuses.
type Step = Result<(), Option<(Mark, &'static str)>>;

/// The state of go-yaml's scanner that decides what a tab is.
struct Scanner<'a> {
    c: &'a [char],
    out: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
    /// `flow_level`
    flow: u32,
    /// `indent` and `indents`: the block indentation.
    indent: i64,
    indents: Vec<i64>,
    /// `simple_key_allowed`
    allowed: bool,
    /// The possible simple key of the block context: its line and column.
    key: Option<(u32, u32)>,
    changed: bool,
    /// Spaces to add for saphyr ([`Indented`]): at the start of a line to indent
    /// ([`Scanner::indent_line`]), or before the `:` glued to an alias's name: character
    /// index, spaces, and the line and column there.
    pads: Vec<(usize, u32, u32, u32)>,
    /// The character saphyr reads for a `\'`, once one is given to it ([`apostrophe_stand_in`]).
    apostrophe: Option<char>,
    /// Where the line breaks of quoted scalars are that go-yaml counts and keeps in the text
    /// (U+2028, U+2029), and saphyr reads as text only, so far.
    kept: Vec<u32>,
    /// The open flow collections, innermost last: whether each is a mapping.
    flows: Vec<bool>,
    /// Whether the last token was a node (a scalar, an alias, a flow collection's end).
    after_node: bool,
    /// Whether the error is one of go-yaml's parser.
    parser_error: bool,
    /// The escape for a `\'` and its character, once looked for: `Some(None)` when there is none.
    stand_in: Option<Option<(char, char)>>,
    /// go-yaml's values of scalars saphyr reads otherwise ([`Whitespace::values`]).
    values: Vec<(u32, String)>,
}

impl Scanner<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.c.get(self.pos + i).copied()
    }

    /// `is_blankz` of the character `i` ahead (the end counts).
    fn blankz(&self, i: usize) -> bool {
        self.at(i).is_none_or(|c| is_blank(c) || is_break(c))
    }

    /// A `---` (`Some('-')`), a `...` (`Some('.')`) or either (`None`) at the start of a line.
    fn document_indicator(&self, which: Option<char>) -> bool {
        let c = self.at(0);
        self.col == 0
            && matches!(c, Some('-' | '.'))
            && which.is_none_or(|w| c == Some(w))
            && (1..3).all(|i| self.at(i) == c)
            && self.blankz(3)
    }

    fn mark(&self) -> Mark {
        Mark { index: u32::try_from(self.pos).unwrap_or(u32::MAX), line: self.line, col: self.col }
    }

    fn patch(&mut self, c: char) {
        if let Some(slot) = self.out.get_mut(self.pos)
            && *slot != c
        {
            *slot = c;
            self.changed = true;
        }
    }

    fn skip(&mut self) {
        self.pos += 1;
        self.col += 1;
    }

    /// `skip_line`: a line break (`\r\n` is one), read by saphyr as `\n` when saphyr has none.
    fn skip_break(&mut self) {
        if self.at(0) == Some('\r') && self.at(1) == Some('\n') {
            self.pos += 1;
        } else if matches!(self.at(0), Some('\u{85}' | '\u{2028}' | '\u{2029}')) {
            self.patch('\n');
        }
        self.pos += 1;
        self.line += 1;
        self.col = 0;
    }

    /// A line break inside a quoted scalar (`\r\n` is one), and the next line indented for
    /// saphyr where it needs to be ([`Scanner::indent_line`]). go-yaml's `read_line` makes
    /// U+0085 a `\n`, which it folds as any, and keeps U+2028 and U+2029 in the text: the first
    /// is given to saphyr as `\n`, the others left as written (saphyr reads them as text), but
    /// after a `\` (`escaped`: go-yaml joins the lines, saphyr refuses the escape), where
    /// they are given as `\n` too (the value is go-yaml's, [`Whitespace::values`]).
    fn quoted_break(&mut self, escaped: bool) {
        let kept = !escaped && matches!(self.at(0), Some('\u{2028}' | '\u{2029}'));
        if kept {
            self.kept.push(u32::try_from(self.pos).unwrap_or(u32::MAX));
        }
        if self.at(0) == Some('\r') && self.at(1) == Some('\n') {
            self.pos += 1;
        } else if !kept && matches!(self.at(0), Some('\u{85}' | '\u{2028}' | '\u{2029}')) {
            self.patch('\n');
        }
        self.pos += 1;
        self.line += 1;
        self.col = 0;
        if !kept {
            self.indent_line(true);
        }
    }

    fn roll(&mut self, col: u32) {
        if self.flow == 0 && self.indent < i64::from(col) {
            self.indents.push(self.indent);
            self.indent = i64::from(col);
        }
    }

    fn unroll(&mut self, col: i64) {
        if self.flow > 0 {
            return;
        }
        while self.indent > col {
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// At the start of a line inside a flow collection or a quoted scalar, where go-yaml looks
    /// at no indentation: a line whose first character is left of the block indentation
    /// (`indent + 1`, the column saphyr wants there) is indented for saphyr
    /// ([`Indented`]). Blank lines need nothing, and a `---`, `...` or `%` at column 0 is
    /// what it is to go-yaml wherever it is. In a quoted scalar (`quoted`), a U+2028 or U+2029
    /// is a character to saphyr, which wants it indented.
    fn indent_line(&mut self, quoted: bool) {
        let mut col = 0u32;
        while self.at(col as usize).is_some_and(is_blank) {
            col += 1;
        }
        let first = self.at(col as usize);
        let text_to_saphyr = |c: char| quoted && matches!(c, '\u{2028}' | '\u{2029}');
        if first.is_none_or(|c| is_break(c) && !text_to_saphyr(c))
            || (col == 0 && (first == Some('%') || self.document_indicator(None)))
        {
            return;
        }
        let need = u32::try_from(self.indent + 1).unwrap_or(0);
        if col < need {
            self.pads.push((self.pos, need - col, self.line, 0));
        }
    }

    /// What go-yaml's parser wants after an entry of the innermost flow collection.
    fn wanted_in_flow(&self) -> &'static str {
        if self.flows.last() == Some(&true) {
            "did not find expected ',' or '}'"
        } else {
            "did not find expected ',' or ']'"
        }
    }

    /// `yaml_parser_save_simple_key` (only the block context's key is needed: it sets the
    /// indentation of a block mapping).
    fn save_key(&mut self) {
        if self.allowed && self.flow == 0 {
            self.key = Some((self.line, self.col));
        }
    }

    fn run(&mut self) -> Step {
        loop {
            self.skip_to_next_token();
            let Some(c) = self.at(0) else { return Ok(()) };
            if self.key.is_some_and(|(line, _)| line < self.line) {
                self.key = None;
            }
            self.unroll(i64::from(self.col));
            // A directive or `...` ends the document go-yaml reads; what follows is not read.
            if (self.col == 0 && c == '%') || self.document_indicator(Some('.')) {
                return Ok(());
            }
            if self.document_indicator(Some('-')) {
                self.unroll(-1);
                self.key = None;
                self.allowed = false;
                (0..3).for_each(|_| self.skip());
                continue;
            }
            let after_node = std::mem::take(&mut self.after_node);
            match c {
                '[' | '{' => {
                    self.save_key();
                    self.flows.push(c == '{');
                    self.flow += 1;
                    self.allowed = true;
                    self.skip();
                }
                ']' | '}' => {
                    self.flow = self.flow.saturating_sub(1);
                    self.flows.pop();
                    self.allowed = false;
                    self.after_node = true;
                    self.skip();
                }
                ',' => {
                    self.allowed = true;
                    self.skip();
                }
                '-' if self.blankz(1) => self.entry(true),
                // A `?` right after a node of a flow collection (`[http://x/?a=b]`: go-yaml's
                // plain scalar ends at it) is a key indicator where go-yaml's parser wants the
                // collection's next entry (`yaml_parser_parse_flow_sequence_entry`,
                // `yaml_parser_parse_flow_mapping_key`).
                '?' if self.flow > 0 && after_node => {
                    self.parser_error = true;
                    return Err(Some((self.mark(), self.wanted_in_flow())));
                }
                '?' if self.flow > 0 || self.blankz(1) => {
                    // In a flow collection every `?` is the key indicator to go-yaml
                    // (`yaml_parser_fetch_next_token`); saphyr reads one glued to what follows
                    // as the start of a plain scalar (`{?a: b}`): a space after it says which.
                    if self.flow > 0 && !self.blankz(1) {
                        self.pads.push((self.pos + 1, 1, self.line, self.col + 1));
                    }
                    self.entry(self.flow == 0);
                }
                ':' if self.flow > 0 || self.blankz(1) => {
                    match self.key.take() {
                        Some((_, col)) if self.flow == 0 => {
                            self.roll(col);
                            self.allowed = false;
                        }
                        _ => {
                            self.roll(self.col);
                            self.allowed = self.flow == 0;
                        }
                    }
                    self.skip();
                }
                '*' | '&' => {
                    let key_allowed = self.allowed;
                    self.save_key();
                    self.allowed = false;
                    self.skip();
                    while self.at(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                        self.skip();
                    }
                    // `yaml_parser_scan_anchor`: a name, then white space or an indicator.
                    if !(self.blankz(0) || matches!(self.at(0), Some('?' | ':' | ',' | ']' | '}' | '%' | '@' | '`'))) {
                        return Err(Some((self.mark(), "did not find expected alphabetic or numeric character")));
                    }
                    // An alias's name ends at a `:` glued to it, which saphyr (after YAML 1.2)
                    // takes into the name: a space before it makes it the value indicator
                    // go-yaml reads there.
                    if c == '*'
                        && self.at(0) == Some(':')
                        && (self.blankz(1) || (self.flow > 0 && matches!(self.at(1), Some(',' | ']' | '}'))))
                    {
                        self.pads.push((self.pos, 1, self.line, self.col));
                    }
                    // So does an anchor's: in the block context, the `:` then starts the plain
                    // scalar the anchor is on (`&a:b` is `:b`, `yaml_parser_fetch_plain_scalar`),
                    // which a space before it makes saphyr read too.
                    if c == '&' && self.flow == 0 && self.at(0) == Some(':') && !self.blankz(1) {
                        self.pads.push((self.pos, 1, self.line, self.col));
                    }
                    // In a flow collection the `:` is a value indicator; where no simple key
                    // may start (after a `:`), it follows the anchored empty node with no key,
                    // where go-yaml's parser wants the collection's next entry.
                    if c == '&' && self.flow > 0 && !key_allowed && self.at(0) == Some(':') {
                        self.parser_error = true;
                        return Err(Some((self.mark(), self.wanted_in_flow())));
                    }
                    self.after_node = c == '*';
                }
                '!' => {
                    let start = self.pos;
                    self.save_key();
                    self.allowed = false;
                    // go-yaml's tag takes a `,`, `[` or `]` (URI characters), which end
                    // saphyr's: saphyr is given a `.` there, which leaves the tag one go-yaml
                    // does not know either (its scalar is a string). A verbatim tag (`!<..>`)
                    // is read alike.
                    let verbatim = self.at(1) == Some('<');
                    if verbatim {
                        // `!<uri>`: a URI, then `>`, then white space.
                        let uri = (2..).find(|&k| !self.at(k).is_some_and(crate::kubectl::uri_char)).unwrap_or(2);
                        if uri > 2 && self.at(uri) != Some('>') {
                            (0..uri).for_each(|_| self.skip());
                            return Err(Some((self.mark(), "did not find the expected '>'")));
                        }
                    }
                    // A handle (`!!`, `!e!`) wants a URI after it (`yaml_parser_scan_tag_uri`).
                    let name =
                        (1..).find(|&k| !self.at(k).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
                    if let Some(k) = name
                        && !verbatim
                        && self.at(k) == Some('!')
                        && !self.at(k + 1).is_some_and(crate::kubectl::uri_char)
                    {
                        (0..=k).for_each(|_| self.skip());
                        return Err(Some((self.mark(), "did not find expected tag URI")));
                    }
                    // After a handle, a `!` is a character of go-yaml's URI (`!!!y`: the handle
                    // `!!`, the suffix `!y`) and of no YAML 1.2 tag: saphyr is given a `.`.
                    let suffix = name.filter(|&k| !verbatim && self.at(k) == Some('!')).map(|k| start + k + 1);
                    while !self.blankz(0) {
                        if !verbatim && matches!(self.at(0), Some(',' | '[' | ']')) {
                            self.patch('.');
                        }
                        if suffix.is_some_and(|from| self.pos >= from) && self.at(0) == Some('!') {
                            self.patch('.');
                        }
                        // `yaml_parser_scan_tag`: the URI ends at a character it cannot hold,
                        // where white space or a line break must follow.
                        if !verbatim && self.pos > start && !self.at(0).is_some_and(crate::kubectl::uri_char) {
                            return Err(Some((self.mark(), "did not find expected whitespace or line break")));
                        }
                        self.skip();
                    }
                }
                '|' | '>' if self.flow == 0 => {
                    self.key = None;
                    self.allowed = true;
                    self.block_scalar()?;
                }
                '\'' | '"' => {
                    self.save_key();
                    let (line, col, kept) = (self.line, self.col, self.kept.len());
                    let key = self.key == Some((line, col));
                    let flow_key = self.flow > 0 && self.allowed;
                    self.allowed = false;
                    self.quoted(c == '\'')?;
                    self.after_node = true;
                    // Its lines broken at U+2028 or U+2029 alone, which saphyr reads as text: a
                    // block key on more than one line, which go-yaml's scanner refuses at its
                    // `:` (`yaml_parser_stale_simple_keys` for a key at the indentation,
                    // `yaml_parser_fetch_value` for another).
                    let lines = self.line - line;
                    if key && self.flow == 0 && lines > 0 && self.kept.len() - kept == lines as usize {
                        let colon = (0..).find(|&k| !self.at(k).is_some_and(is_blank)).unwrap_or(0);
                        if self.at(colon) == Some(':') && self.blankz(colon + 1) {
                            (0..colon).for_each(|_| self.skip());
                            let problem = if self.indent == i64::from(col) {
                                "could not find expected ':'"
                            } else {
                                "mapping values are not allowed in this context"
                            };
                            return Err(Some((self.mark(), problem)));
                        }
                    }
                    // In a flow collection, its `:` is a value indicator with no key, where
                    // go-yaml's parser wants the next entry.
                    if flow_key && lines > 0 && self.kept.len() - kept == lines as usize {
                        let colon = (0..).find(|&k| !self.at(k).is_some_and(is_blank)).unwrap_or(0);
                        if self.at(colon) == Some(':') {
                            (0..colon).for_each(|_| self.skip());
                            self.parser_error = true;
                            return Err(Some((self.mark(), self.wanted_in_flow())));
                        }
                    }
                }
                // Not eaten as white space: where a simple key may start.
                '\t' => return Err(Some((self.mark(), "found character that cannot start any token"))),
                _ if self.plain_starts(c) => {
                    self.save_key();
                    self.allowed = false;
                    self.plain()?;
                    self.after_node = true;
                }
                _ => return Err(None),
            }
        }
    }

    /// `-` (`sequence`) or `?`: a block collection may start at its column.
    fn entry(&mut self, allowed_after: bool) {
        if self.flow == 0 {
            self.roll(self.col);
        }
        self.key = None;
        self.allowed = allowed_after;
        self.skip();
    }

    /// Whether `c` starts a plain scalar (`yaml_parser_fetch_next_token`'s last test).
    fn plain_starts(&self, c: char) -> bool {
        let indicator = matches!(
            c,
            '-' | '?'
                | ':'
                | ','
                | '['
                | ']'
                | '{'
                | '}'
                | '#'
                | '&'
                | '*'
                | '!'
                | '|'
                | '>'
                | '\''
                | '"'
                | '%'
                | '@'
                | '`'
        );
        !(self.blankz(0) || indicator)
            || (c == '-' && !self.at(1).is_some_and(is_blank))
            || (self.flow == 0 && matches!(c, '?' | ':') && !self.blankz(1))
    }

    /// `yaml_parser_scan_skip_to_next_token`: tabs eaten here separate tokens (a space for saphyr),
    /// and so does a comment right after a token (blanked for saphyr, which wants a space).
    fn skip_to_next_token(&mut self) {
        loop {
            while let Some(c) = self.at(0) {
                if c == ' ' || (c == '\t' && (self.flow > 0 || !self.allowed)) {
                    self.patch(' ');
                    self.skip();
                } else {
                    break;
                }
            }
            if self.at(0) == Some('#') {
                let glued = self.pos > 0 && !self.c.get(self.pos - 1).is_some_and(|&c| is_blank(c) || is_break(c));
                while self.at(0).is_some_and(|c| !is_break(c)) {
                    if glued {
                        self.patch(' ');
                    }
                    self.skip();
                }
            }
            if self.at(0).is_some_and(is_break) {
                self.skip_break();
                if self.flow == 0 {
                    self.allowed = true;
                } else {
                    self.indent_line(false);
                }
            } else {
                return;
            }
        }
    }

    /// `yaml_parser_scan_plain_scalar`: its white space, and the tabs it refuses.
    fn plain(&mut self) -> Step {
        let indent = self.indent + 1;
        let start = self.pos;
        let mut leading_blanks = false;
        loop {
            let at_document_indicator = self.document_indicator(None);
            if at_document_indicator || self.at(0) == Some('#') {
                break;
            }
            while !self.blankz(0) {
                let c = self.at(0).unwrap_or(' ');
                let ends =
                    (c == ':' && self.blankz(1)) || (self.flow > 0 && matches!(c, ',' | '?' | '[' | ']' | '{' | '}'));
                if ends {
                    break;
                }
                leading_blanks = false;
                self.skip();
            }
            if !self.at(0).is_some_and(|c| is_blank(c) || is_break(c)) {
                break;
            }
            while let Some(c) = self.at(0).filter(|&c| is_blank(c) || is_break(c)) {
                if is_blank(c) {
                    if leading_blanks && c == '\t' {
                        if i64::from(self.col) < indent {
                            return Err(Some((self.mark(), "found a tab character that violates indentation")));
                        }
                        self.patch(' ');
                    }
                    self.skip();
                } else {
                    self.skip_break();
                    if self.flow > 0 {
                        self.indent_line(false);
                    }
                    leading_blanks = true;
                }
            }
            if self.flow == 0 && i64::from(self.col) < indent {
                break;
            }
        }
        if leading_blanks {
            self.allowed = true;
        }
        // The scalar ends at its last character but white space.
        let end = (start..self.pos).rev().find(|&i| !self.c.get(i).is_some_and(|&c| is_blank(c) || is_break(c)));
        if let Some(end) = end {
            self.record(start, |c| flow_value(&c[start..=end], None));
        }
        Ok(())
    }

    /// Keeps go-yaml's value of the scalar whose token starts at `start` and ends where the
    /// scanner is, when saphyr reads it otherwise: when it holds a line break saphyr does not
    /// have (U+2028, U+2029: saphyr is given a `\n`, or reads it as text in a quoted scalar) or
    /// a U+0085 (a `\n` to saphyr, but for where kubectl's line reader adds one after it).
    #[cold]
    fn record(&mut self, start: usize, value: impl FnOnce(&[char]) -> Option<String>) {
        let span = self.c.get(start..self.pos).unwrap_or_default();
        if span.iter().any(|c| matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
            && let Some(value) = value(self.c)
        {
            self.values.push((u32::try_from(start).unwrap_or(u32::MAX), value));
        }
    }

    /// `yaml_parser_scan_flow_scalar`: a continuation line's leading tabs are white space.
    fn quoted(&mut self, single: bool) -> Step {
        let start = self.pos;
        self.skip();
        loop {
            let at_document_indicator = self.document_indicator(None);
            if at_document_indicator || self.at(0).is_none() {
                return Err(None);
            }
            let mut leading_blanks = false;
            while !self.blankz(0) {
                match (self.at(0), self.at(1)) {
                    (Some('\''), Some('\'')) if single => {
                        self.skip();
                        self.skip();
                    }
                    (Some('\''), _) if single => break,
                    (Some('"'), _) if !single => break,
                    (Some('\\'), Some(n)) if !single && is_break(n) => {
                        self.skip();
                        self.quoted_break(true);
                        leading_blanks = true;
                        break;
                    }
                    (Some('\\'), next) if !single => {
                        self.skip();
                        // `\/`: YAML 1.2's escape of `/`, not one of go-yaml's
                        // (`yaml_parser_scan_flow_scalar`: "found unknown escape character"),
                        // given to saphyr as an escape it refuses alike.
                        if next == Some('/') {
                            self.patch('q');
                        }
                        // `\'`: go-yaml's escape of `'`, given as one saphyr reads as a
                        // character the builder turns back into `'`.
                        if next == Some('\'') {
                            let text = self.c;
                            match *self
                                .stand_in
                                .get_or_insert_with(|| apostrophe_stand_in(&text.iter().collect::<String>()))
                            {
                                Some((letter, c)) => {
                                    self.patch(letter);
                                    self.apostrophe = Some(c);
                                }
                                None => self.patch('q'),
                            }
                        }
                        self.skip();
                    }
                    _ => self.skip(),
                }
            }
            if self.at(0) == Some(if single { '\'' } else { '"' }) {
                let end = self.pos;
                self.skip();
                self.record(start, |c| flow_value(&c[start + 1..end], Some(single)));
                return Ok(());
            }
            while let Some(c) = self.at(0).filter(|&c| is_blank(c) || is_break(c)) {
                if is_blank(c) {
                    if leading_blanks && c == '\t' {
                        self.patch(' ');
                    }
                    self.skip();
                } else {
                    self.quoted_break(false);
                    leading_blanks = true;
                }
            }
        }
    }

    /// `yaml_parser_scan_block_scalar`: its indentation, where a tab is refused.
    fn block_scalar(&mut self) -> Step {
        let (start, parent) = (self.pos, self.indent);
        self.skip();
        let mut increment = 0i64;
        for _ in 0..2 {
            match self.at(0) {
                Some('+' | '-') => self.skip(),
                Some('0') => return Err(None),
                Some(d @ '1'..='9') if increment == 0 => {
                    increment = i64::from(d.to_digit(10).unwrap_or(1));
                    self.skip();
                }
                _ => {}
            }
        }
        while self.at(0).is_some_and(is_blank) {
            self.skip();
        }
        if self.at(0) == Some('#') {
            // go-yaml takes a comment glued to the header (`|#c`), blanked for saphyr, which
            // wants a space before it.
            let glued = !self.c.get(self.pos.wrapping_sub(1)).is_some_and(|&c| is_blank(c));
            while self.at(0).is_some_and(|c| !is_break(c)) {
                if glued {
                    self.patch(' ');
                }
                self.skip();
            }
        }
        match self.at(0) {
            None => return Ok(()),
            Some(c) if is_break(c) => self.skip_break(),
            Some(_) => return Err(None),
        }
        let mut indent = match increment {
            0 => 0,
            n if self.indent >= 0 => self.indent + n,
            n => n,
        };
        self.block_breaks(&mut indent)?;
        while i64::from(self.col) == indent && self.at(0).is_some() {
            while self.at(0).is_some_and(|c| !is_break(c)) {
                self.skip();
            }
            if self.at(0).is_some() {
                self.skip_break();
            }
            self.block_breaks(&mut indent)?;
        }
        self.record(start, |c| block_value(&c[start..], parent));
        Ok(())
    }

    /// `yaml_parser_scan_block_scalar_breaks`.
    fn block_breaks(&mut self, indent: &mut i64) -> Step {
        let mut max_indent = 0i64;
        loop {
            while (*indent == 0 || i64::from(self.col) < *indent) && self.at(0) == Some(' ') {
                self.skip();
            }
            max_indent = max_indent.max(i64::from(self.col));
            if (*indent == 0 || i64::from(self.col) < *indent) && self.at(0) == Some('\t') {
                return Err(Some((self.mark(), "found a tab character where an indentation space is expected")));
            }
            if !self.at(0).is_some_and(is_break) {
                break;
            }
            self.skip_break();
        }
        if *indent == 0 {
            *indent = max_indent.max(self.indent + 1).max(1);
        }
        Ok(())
    }
}

/// go-yaml's `read_line`: the line break at `c[*i]` as it goes into a scalar's value (`\r\n`,
/// `\r`, `\n` and U+0085 as `\n`; U+2028 and U+2029 as themselves), past it.
fn read_line(c: &[char], i: &mut usize, out: &mut String) {
    match c.get(*i) {
        Some('\r') if c.get(*i + 1) == Some(&'\n') => {
            out.push('\n');
            *i += 2;
        }
        Some('\r' | '\n' | '\u{85}') => {
            out.push('\n');
            *i += 1;
        }
        Some(&b @ ('\u{2028}' | '\u{2029}')) => {
            out.push(b);
            *i += 1;
        }
        _ => {}
    }
}

/// The value go-yaml gives a plain scalar (`quoted: None`: `c` from its first character to its
/// last but white space) or a quoted one (`Some(single)`: `c` between its quotes), folded as
/// `yaml_parser_scan_flow_scalar` and `yaml_parser_scan_plain_scalar` of `scannerc.go` fold
/// it: white space before a line break is dropped, and so is white space after one; the first
/// break of a run is a space when it is a `\n` and no other follows, the breaks after it when
/// some do, and a U+2028 or U+2029 is kept with the breaks after it. A double-quoted scalar's
/// escapes are go-yaml v2's (a `\` before a line break joins the lines). `None` for an escape
/// go-yaml refuses (the scanner refused it first).
pub(crate) fn flow_value(c: &[char], quoted: Option<bool>) -> Option<String> {
    let double = quoted == Some(false);
    let mut s = String::with_capacity(c.len());
    let (mut whitespaces, mut leading_break, mut trailing_breaks) = (String::new(), String::new(), String::new());
    let mut i = 0;
    while i < c.len() {
        let mut leading_blanks = false;
        while let Some(&ch) = c.get(i).filter(|&&ch| !is_blank(ch) && !is_break(ch)) {
            match (ch, c.get(i + 1).copied()) {
                ('\'', Some('\'')) if quoted == Some(true) => {
                    s.push('\'');
                    i += 2;
                }
                ('\\', Some(n)) if double && is_break(n) => {
                    i += 1;
                    let mut skipped = String::new();
                    read_line(c, &mut i, &mut skipped);
                    leading_blanks = true;
                    break;
                }
                ('\\', Some(n)) if double => {
                    let (escaped, len) = go_escape(n, c.get(i + 2..).unwrap_or_default())?;
                    s.push(escaped);
                    i += 2 + len;
                }
                _ => {
                    s.push(ch);
                    i += 1;
                }
            }
        }
        while let Some(&ch) = c.get(i).filter(|&&ch| is_blank(ch) || is_break(ch)) {
            if is_blank(ch) {
                if !leading_blanks {
                    whitespaces.push(ch);
                }
                i += 1;
            } else if !leading_blanks {
                whitespaces.clear();
                read_line(c, &mut i, &mut leading_break);
                leading_blanks = true;
            } else {
                read_line(c, &mut i, &mut trailing_breaks);
            }
        }
        if leading_blanks {
            if leading_break.starts_with('\n') {
                if trailing_breaks.is_empty() {
                    s.push(' ');
                } else {
                    s.push_str(&trailing_breaks);
                }
            } else {
                s.push_str(&leading_break);
                s.push_str(&trailing_breaks);
            }
            leading_break.clear();
            trailing_breaks.clear();
        } else {
            s.push_str(&whitespaces);
            whitespaces.clear();
        }
    }
    Some(s)
}

/// A double-quoted scalar's escape `\` `n` (`rest` follows `n`) as go-yaml v2 reads it: the
/// character and how many characters of `rest` it takes (`yaml_parser_scan_flow_scalar`: no
/// `\/`; `\'` is `'`; a `\x`, `\u` or `\U` of a surrogate or past U+10FFFF is refused).
fn go_escape(n: char, rest: &[char]) -> Option<(char, usize)> {
    let c = match n {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '\'' => '\'',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' | 'u' | 'U' => {
            let len = match n {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits: String = rest.get(..len)?.iter().collect();
            let code = u32::from_str_radix(&digits, 16).ok()?;
            return char::from_u32(code).map(|c| (c, len));
        }
        _ => return None,
    };
    Some((c, 0))
}

/// The value go-yaml gives a block scalar (`yaml_parser_scan_block_scalar` of `scannerc.go`):
/// `c` from its `|` or `>` to the end of the piece, `parent` the block indentation it is in.
/// Its lines are broken as [`read_line`] breaks them, so a U+2028 or U+2029 is never folded.
/// kubectl's line reader ends the piece's last line with a `\n` when the file does not. `None`
/// for a header or an indentation go-yaml refuses (the scanner refused it first).
pub(crate) fn block_value(c: &[char], parent: i64) -> Option<String> {
    let mut owned;
    let c = if c.last() == Some(&'\n') {
        c
    } else {
        owned = c.to_vec();
        owned.push('\n');
        &owned[..]
    };
    let literal = c.first() == Some(&'|');
    let (mut chomping, mut increment) = (0i8, 0i64);
    let mut i = 1;
    for _ in 0..2 {
        match c.get(i) {
            Some('+') if chomping == 0 => chomping = 1,
            Some('-') if chomping == 0 => chomping = -1,
            Some(&d @ '1'..='9') if increment == 0 => increment = i64::from(d.to_digit(10)?),
            _ => break,
        }
        i += 1;
    }
    while c.get(i).is_some_and(|&ch| is_blank(ch)) {
        i += 1;
    }
    if c.get(i) == Some(&'#') {
        while c.get(i).is_some_and(|&ch| !is_break(ch)) {
            i += 1;
        }
    }
    if !c.get(i).is_some_and(|&ch| is_break(ch)) {
        return None;
    }
    read_line(c, &mut i, &mut String::new());
    let mut indent = match increment {
        0 => 0,
        n if parent >= 0 => parent + n,
        n => n,
    };
    let (mut s, mut leading_break, mut trailing_breaks) = (String::new(), String::new(), String::new());
    let mut col = 0i64;
    block_breaks(c, &mut i, &mut col, &mut indent, parent, &mut trailing_breaks)?;
    let mut leading_blank = false;
    while col == indent && i < c.len() {
        let trailing_blank = c.get(i).is_some_and(|&ch| is_blank(ch));
        if !literal && !leading_blank && !trailing_blank && leading_break.starts_with('\n') {
            if trailing_breaks.is_empty() {
                s.push(' ');
            }
        } else {
            s.push_str(&leading_break);
        }
        leading_break.clear();
        s.push_str(&trailing_breaks);
        trailing_breaks.clear();
        leading_blank = trailing_blank;
        while let Some(&ch) = c.get(i).filter(|&&ch| !is_break(ch)) {
            s.push(ch);
            i += 1;
        }
        read_line(c, &mut i, &mut leading_break);
        col = 0;
        block_breaks(c, &mut i, &mut col, &mut indent, parent, &mut trailing_breaks)?;
    }
    if chomping != -1 {
        s.push_str(&leading_break);
    }
    if chomping == 1 {
        s.push_str(&trailing_breaks);
    }
    Some(s)
}

/// `yaml_parser_scan_block_scalar_breaks` for [`block_value`]: the indentation and the empty
/// lines before a line of a block scalar (the first one sets the indentation when the header
/// does not).
fn block_breaks(
    c: &[char],
    i: &mut usize,
    col: &mut i64,
    indent: &mut i64,
    parent: i64,
    breaks: &mut String,
) -> Option<()> {
    let mut max_indent = 0i64;
    loop {
        while (*indent == 0 || *col < *indent) && c.get(*i) == Some(&' ') {
            *i += 1;
            *col += 1;
        }
        max_indent = max_indent.max(*col);
        if (*indent == 0 || *col < *indent) && c.get(*i) == Some(&'\t') {
            return None;
        }
        if !c.get(*i).is_some_and(|&ch| is_break(ch)) {
            break;
        }
        read_line(c, i, breaks);
        *col = 0;
    }
    if *indent == 0 {
        *indent = max_indent.max(parent + 1).max(1);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> Option<(u32, u32, &'static str)> {
        scan(text).error.map(|(m, e)| (m.line, m.col, e))
    }

    const CANNOT: &str = "found character that cannot start any token";
    const VIOLATES: &str = "found a tab character that violates indentation";
    const INDENTATION: &str = "found a tab character where an indentation space is expected";

    #[test]
    fn tabs_where_a_simple_key_may_start_start_no_token() {
        assert_eq!(error("a:\n  b: {c: d}\n\t\n  e: f\n"), Some((3, 0, CANNOT)));
        assert_eq!(error("\ta: 1\n"), Some((1, 0, CANNOT)));
        assert_eq!(error("a:\n- b\n-\tc: d\n"), Some((3, 1, CANNOT)));
        assert_eq!(error("a:\n  - \tb\n"), Some((2, 4, CANNOT)));
        assert_eq!(error("a: [b]\n\t# c\n"), Some((2, 0, CANNOT)));
    }

    #[test]
    fn tabs_after_a_plain_scalar_violate_its_indentation() {
        for text in ["a:\n  b: 5\n  \t\n", "a:\n  b: 5\n\t# c\n", "a:\n  b: 5\n\t\n---\n", "a:\n  b: c\n\td\n"] {
            assert_eq!(error(text).map(|e| (e.0, e.2)), Some((3, VIOLATES)), "{text:?}");
        }
        // Past the indentation, a tab is the scalar's white space.
        let read = scan("a: b\n  \tc\n");
        assert_eq!((read.error, read.text.as_deref()), (None, Some("a: b\n   c\n")));
    }

    #[test]
    fn tabs_in_a_block_scalar_indentation_are_refused() {
        assert_eq!(error("a: |\n  \tfoo\n"), Some((2, 2, INDENTATION)));
        assert_eq!(error("a: |\n    b\n\tc\n"), Some((3, 0, INDENTATION)));
        // In its content, a tab is text.
        assert_eq!(scan("a: |\n  b\n  \tc\nd: 1\n"), Whitespace::default());
    }

    #[test]
    fn what_go_yaml_reads_is_rewritten_for_saphyr() {
        let text = |t: &str| scan(t).text;
        // Separation: after a key's colon, in a flow collection, a quoted scalar's next line.
        assert_eq!(text("a:\tb\n"), Some("a: b\n".into()));
        assert_eq!(text("a: {\n\tb: 1}\n"), Some("a: {\n b: 1}\n".into()));
        assert_eq!(text("a: \"b\n\tc\"\n"), Some("a: \"b\n c\"\n".into()));
        // Inside a scalar a tab is text.
        assert_eq!(text("a: \"b\tc\"\nd: e\tf\n"), None);
        // A comment glued to a quoted scalar; the YAML 1.1 line breaks.
        assert_eq!(text("a: \"b\"#c\n"), Some("a: \"b\"  \n".into()));
        // A comment glued to a block scalar's header.
        assert_eq!(text("a: |-#c\n  b\n"), Some("a: |-  \n  b\n".into()));
        assert_eq!(text("a: | #c\n  b\n"), None);
        assert_eq!(text("a: b\u{2028}c: d\u{85}"), Some("a: b\nc: d\n".into()));
        // In a quoted scalar, go-yaml folds U+0085 as a line break and keeps U+2028 as text.
        assert_eq!(text("a: \"b\u{85}c\"\n"), Some("a: \"b\n c\"\n".into()));
        assert_eq!(text("a: \"b\u{2028}c\"\n"), None);
        // `\/` is no escape to go-yaml; in a plain or single-quoted scalar it is text.
        assert_eq!(text("a: \"b\\/c\\\\/d\"\n"), Some("a: \"b\\qc\\\\/d\"\n".into()));
        assert_eq!(text("a: b\\/c\nd: 'e\\/f'\n"), None);
        assert!(worth_scanning("a: \"\\/\"\n") && !worth_scanning("a: \"\\\"\n"));
        // An anchor glued to a comment is go-yaml's error.
        assert_eq!(error("a: &b#c 1\n"), Some((1, 5, "did not find expected alphabetic or numeric character")));
        // A directive or `...` ends what go-yaml reads.
        assert_eq!(scan("a: b\n...\n\tc\n"), Whitespace::default());
    }

    #[test]
    fn lines_left_of_the_block_indentation_are_indented_for_saphyr() {
        let read = |t: &str| {
            let w = scan(t);
            (w.text, w.indented.iter().map(|i| (i.index, i.by)).collect::<Vec<_>>())
        };
        // A flow collection's lines (its closing bracket too), a quoted scalar's.
        assert_eq!(read("  a: [b,\nc\n]\n"), (Some("  a: [b,\n   c\n   ]\n".into()), vec![(9, 3), (14, 3)]));
        assert_eq!(read("  a: \"b\n c\"\n"), (Some("  a: \"b\n   c\"\n".into()), vec![(8, 2)]));
        assert_eq!(read("  a: 'b\\\nc'\n"), (Some("  a: 'b\\\n   c'\n".into()), vec![(9, 3)]));
        // A tab go-yaml reads as white space is a space first.
        assert_eq!(read("  a: [b,\n\tc]\n"), (Some("  a: [b,\n   c]\n".into()), vec![(9, 2)]));
        // Far enough right, blank, a document marker, or in the block context: as written.
        assert_eq!(read("  a: [b,\n   c]\n"), (None, vec![]));
        assert_eq!(read("  a: [b,\n\n   c]\n"), (None, vec![]));
        assert_eq!(read("  a: [b,\n...\n]\n"), (None, vec![]));
        assert_eq!(read("a:\n  b: c\nd: e\n"), (None, vec![]));
    }
}
