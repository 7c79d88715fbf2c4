//! JSON text as a [`Source`]: read once, front to back, without building a tree.
//!
//! The scanner follows `encoding/json`'s grammar and its syntax error messages
//! (`scanner.go`); strings are unquoted as its `unquote` does (a lone surrogate becomes
//! U+FFFD). Object keys and strings without escapes are borrowed from the text.

use std::borrow::Cow;

use super::{Kind, Number, Source, SourceError};

/// `encoding/json`'s `maxNestingDepth`.
const MAX_DEPTH: usize = 10_000;

/// A JSON text being read.
#[derive(Debug, Clone)]
pub struct JsonSource<'de> {
    text: &'de str,
    pos: usize,
    /// The open containers (`{` or `[`) and whether their next element is the first.
    stack: Vec<(u8, bool)>,
}

impl<'de> JsonSource<'de> {
    /// A source reading `text`.
    pub fn new(text: &'de str) -> Self {
        JsonSource { text, pos: 0, stack: Vec::new() }
    }

    /// The byte offset reading has reached.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Checks that nothing but white space follows the value read (`checkValid`).
    pub fn finish(&mut self) -> Result<(), SourceError> {
        self.skip_space();
        match self.byte() {
            None => Ok(()),
            Some(c) => Err(self.invalid(c, "after top-level value")),
        }
    }

    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    fn byte(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.byte() {
            self.pos += 1;
        }
    }

    fn error(&self, message: String) -> SourceError {
        SourceError { message, offset: Some(self.pos) }
    }

    fn eof(&self) -> SourceError {
        self.error("unexpected end of JSON input".into())
    }

    /// `invalid character 'x' <context>`, or the end of the input. Go's `quoteChar` quotes
    /// the byte, as the character of that number: the first byte of a character beyond ASCII
    /// (`é`, `0xC3 0xA9`) is shown as `'Ã'`.
    fn invalid(&self, c: u8, context: &str) -> SourceError {
        let shown = match c {
            b'\'' => "'\\''".to_string(),
            b'"' => "'\"'".to_string(),
            c => {
                let quoted = crate::go::quote(&char::from(c).to_string());
                format!("'{}'", &quoted[1..quoted.len() - 1])
            }
        };
        self.error(format!("invalid character {shown} {context}"))
    }

    fn expect_value(&mut self) -> Result<u8, SourceError> {
        self.skip_space();
        self.byte().ok_or_else(|| self.eof())
    }

    fn literal(&mut self, word: &str) -> Result<(), SourceError> {
        for (i, want) in word.bytes().enumerate() {
            match self.byte() {
                None => return Err(self.eof()),
                Some(c) if c == want => self.pos += 1,
                Some(c) => {
                    return Err(self.invalid(c, &format!("in literal {word} (expecting {})", quote_byte(want))));
                }
            }
            let _ = i;
        }
        Ok(())
    }

    fn scan_number(&mut self) -> Result<&'de str, SourceError> {
        let start = self.pos;
        if self.byte() == Some(b'-') {
            self.pos += 1;
        }
        match self.byte() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = self.byte() {
                    self.pos += 1;
                }
            }
            Some(c) => return Err(self.invalid(c, "in numeric literal")),
            None => return Err(self.eof()),
        }
        if self.byte() == Some(b'.') {
            self.pos += 1;
            match self.byte() {
                Some(b'0'..=b'9') => {}
                Some(c) => return Err(self.invalid(c, "after decimal point in numeric literal")),
                None => return Err(self.eof()),
            }
            while let Some(b'0'..=b'9') = self.byte() {
                self.pos += 1;
            }
        }
        if let Some(b'e' | b'E') = self.byte() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.byte() {
                self.pos += 1;
            }
            match self.byte() {
                Some(b'0'..=b'9') => {}
                Some(c) => return Err(self.invalid(c, "in exponent of numeric literal")),
                None => return Err(self.eof()),
            }
            while let Some(b'0'..=b'9') = self.byte() {
                self.pos += 1;
            }
        }
        Ok(&self.text[start..self.pos])
    }

    /// Reads a string starting at its opening quote.
    fn scan_string(&mut self) -> Result<Cow<'de, str>, SourceError> {
        self.pos += 1;
        let start = self.pos;
        let bytes = self.bytes();
        // The common case: no escape, borrowed.
        loop {
            match bytes.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(&c) if c < 0x20 => return Err(self.invalid(c, "in string literal")),
                Some(_) => self.pos += 1,
            }
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(&self.text[start..self.pos]);
        loop {
            match bytes.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(&e) = bytes.get(self.pos) else { return Err(self.eof()) };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let first = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&first)
                                && bytes.get(self.pos) == Some(&b'\\')
                                && bytes.get(self.pos + 1) == Some(&b'u')
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let second = self.hex4()?;
                                if (0xdc00..0xe000).contains(&second) {
                                    char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00))
                                } else {
                                    // Not a pair: the first is replaced and the second read on its own.
                                    self.pos = save;
                                    None
                                }
                            } else {
                                char::from_u32(first)
                            };
                            out.push(c.unwrap_or('\u{fffd}'));
                        }
                        c => {
                            self.pos -= 1;
                            return Err(self.invalid(c, "in string escape code"));
                        }
                    }
                }
                Some(&c) if c < 0x20 => return Err(self.invalid(c, "in string literal")),
                Some(_) => {
                    let rest = &self.text[self.pos..];
                    let run = rest.find(['"', '\\']).unwrap_or(rest.len());
                    let run = rest[..run].find(|c: char| (c as u32) < 0x20).unwrap_or(run);
                    out.push_str(&rest[..run]);
                    self.pos += run;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SourceError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(c) = self.byte() else { return Err(self.eof()) };
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(self.invalid(c, "in \\u hexadecimal character escape")),
            };
            v = v * 16 + u32::from(digit);
            self.pos += 1;
        }
        Ok(v)
    }

    fn open(&mut self, bracket: u8) -> Result<(), SourceError> {
        // encoding/json's `pushParseState`: `s.error(c, "exceeded max depth")`, the bracket quoted.
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.invalid(bracket, "exceeded max depth"));
        }
        self.pos += 1;
        self.stack.push((bracket, true));
        Ok(())
    }
}

fn quote_byte(c: u8) -> String {
    format!("'{}'", char::from(c))
}

impl<'de> Source<'de> for JsonSource<'de> {
    fn peek(&mut self) -> Result<Kind, SourceError> {
        match self.expect_value()? {
            b'{' => Ok(Kind::Object),
            b'[' => Ok(Kind::Array),
            b'"' => Ok(Kind::String),
            b't' | b'f' => Ok(Kind::Bool),
            b'n' => Ok(Kind::Null),
            b'-' | b'0'..=b'9' => Ok(Kind::Number),
            c => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn bool(&mut self) -> Result<bool, SourceError> {
        match self.expect_value()? {
            b't' => self.literal("true").map(|()| true),
            b'f' => self.literal("false").map(|()| false),
            c => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn number(&mut self) -> Result<Number<'de>, SourceError> {
        self.expect_value()?;
        self.scan_number().map(|t| Number::Text(Cow::Borrowed(t)))
    }

    fn string(&mut self) -> Result<Cow<'de, str>, SourceError> {
        match self.expect_value()? {
            b'"' => self.scan_string(),
            c => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn raw(&mut self) -> Result<Cow<'de, str>, SourceError> {
        self.expect_value()?;
        let start = self.pos;
        self.skip()?;
        Ok(Cow::Borrowed(&self.text[start..self.pos]))
    }

    fn skip(&mut self) -> Result<(), SourceError> {
        let base = self.stack.len();
        loop {
            match self.peek()? {
                Kind::Object => self.open(b'{')?,
                Kind::Array => self.open(b'[')?,
                Kind::String => {
                    self.scan_string()?;
                }
                Kind::Number => {
                    self.scan_number()?;
                }
                Kind::Bool => {
                    self.bool()?;
                }
                Kind::Null => self.literal("null")?,
            }
            // On to the next value, closing the containers that end.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                let more = match self.stack.last() {
                    Some((b'{', _)) => self.next_key()?.is_some(),
                    _ => self.next_item()?,
                };
                if more {
                    break;
                }
            }
        }
    }

    fn begin_object(&mut self) -> Result<(), SourceError> {
        match self.expect_value()? {
            b'{' => self.open(b'{'),
            c => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn next_key(&mut self) -> Result<Option<Cow<'de, str>>, SourceError> {
        self.skip_space();
        let Some((_, first)) = self.stack.last_mut() else { return Ok(None) };
        let was_first = std::mem::replace(first, false);
        let Some(c) = self.byte() else { return Err(self.eof()) };
        match c {
            b'}' => {
                self.pos += 1;
                self.stack.pop();
                return Ok(None);
            }
            b',' if !was_first => {
                self.pos += 1;
                self.skip_space();
            }
            b'"' if was_first => {}
            c if was_first => return Err(self.invalid(c, "looking for beginning of object key string")),
            c => return Err(self.invalid(c, "after object key:value pair")),
        }
        match self.byte() {
            Some(b'"') => {}
            Some(c) => return Err(self.invalid(c, "looking for beginning of object key string")),
            None => return Err(self.eof()),
        }
        let key = self.scan_string()?;
        self.skip_space();
        match self.byte() {
            Some(b':') => self.pos += 1,
            Some(c) => return Err(self.invalid(c, "after object key")),
            None => return Err(self.eof()),
        }
        Ok(Some(key))
    }

    fn begin_array(&mut self) -> Result<(), SourceError> {
        match self.expect_value()? {
            b'[' => self.open(b'['),
            c => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn next_item(&mut self) -> Result<bool, SourceError> {
        self.skip_space();
        let Some((_, first)) = self.stack.last_mut() else { return Ok(false) };
        let was_first = std::mem::replace(first, false);
        match self.byte() {
            None => Err(self.eof()),
            Some(b']') => {
                self.pos += 1;
                self.stack.pop();
                Ok(false)
            }
            Some(b',') if !was_first => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) if was_first => Ok(true),
            Some(c) => Err(self.invalid(c, "after array element")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Result<serde_json::Value, SourceError> {
        let mut s = JsonSource::new(text);
        let raw = s.raw()?.into_owned();
        s.finish()?;
        serde_json::from_str(&raw).map_err(|e| s.error(e.to_string()))
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2.5e3, true, false, null, "x\u00e9\n\"", {}], "b": {"c": []}}"#,
            r#"  "\ud83d\ude00"  "#,
            "0",
            "[[[]]]",
        ] {
            assert_eq!(tokens(text).unwrap(), serde_json::from_str::<serde_json::Value>(text).unwrap(), "{text}");
        }
    }

    #[test]
    fn syntax_errors_in_go_words() {
        for (text, message) in [
            ("{\"a\": 1,}", "invalid character '}' looking for beginning of object key string"),
            ("[1 2]", "invalid character '2' after array element"),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            ("{\"a\": 1 \"b\": 2}", "invalid character '\"' after object key:value pair"),
            ("tru", "unexpected end of JSON input"),
            ("trux", "invalid character 'x' in literal true (expecting 'e')"),
            ("01", "invalid character '1' after top-level value"),
            ("1.", "unexpected end of JSON input"),
            ("1.x", "invalid character 'x' after decimal point in numeric literal"),
            ("\"a\\q\"", "invalid character 'q' in string escape code"),
            ("{} x", "invalid character 'x' after top-level value"),
            // Go quotes the byte: a character beyond ASCII is shown by its first byte.
            ("{\"a\": 1,\u{80}}", "invalid character 'Â' looking for beginning of object key string"),
            ("[\u{fffe}]", "invalid character 'ï' looking for beginning of value"),
            ("[é]", "invalid character 'Ã' looking for beginning of value"),
        ] {
            let mut s = JsonSource::new(text);
            let r = s.skip().and_then(|()| s.finish());
            assert_eq!(r.unwrap_err().message, message, "{text}");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let mut s = JsonSource::new(r#""a\ud800b\udc00\ud800\u0041""#);
        assert_eq!(s.string().unwrap(), "a\u{fffd}b\u{fffd}\u{fffd}A");
    }

    #[test]
    fn raw_is_the_text_of_the_value() {
        let mut s = JsonSource::new(r#"{"q": "500m", "n": 1.5e3, "o": {"x": [1]}}"#);
        s.begin_object().unwrap();
        let mut raws = Vec::new();
        while s.next_key().unwrap().is_some() {
            raws.push(s.raw().unwrap().into_owned());
        }
        assert_eq!(raws, ["\"500m\"", "1.5e3", "{\"x\": [1]}"]);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let error = JsonSource::new(&deep).skip().unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.offset),
            ("invalid character '[' exceeded max depth", Some(MAX_DEPTH))
        );
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "{");
        assert_eq!(JsonSource::new(&deep).skip().unwrap_err().message, "invalid character '{' exceeded max depth");
    }
}
