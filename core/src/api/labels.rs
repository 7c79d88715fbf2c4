//! The text form of a label selector (`k8s.io/apimachinery/pkg/labels/selector.go`):
//! [`parse`] is `labels.Parse`, its lexer, its recursive-descent parser and
//! `NewRequirement`'s checks, with its errors in apimachinery's words ([`ParseError`]). The
//! writing side, one `Requirement.String`, is [`LabelSelector::format`]
//! (`metav1.LabelSelectorAsSelector(s).String()`) and [`normalize`] (`labels.Parse(s).String()`).
//!
//! kube-apiserver parses a list's or a watch's `labelSelector` with it, and the HPA controller
//! the scale subresource's `status.selector` at every sync (an error becomes its
//! `InvalidSelector` condition). What it reads becomes a [`LabelSelector`], matched by the
//! toolkit's one matcher ([`LabelSelector::matches`]).

use std::collections::BTreeSet;

use super::meta::{LabelSelector, LabelSelectorRequirement, SelectionOperator, label_key_error, requirement_errors};
use crate::features::KubernetesVersion;
use crate::field::{ErrorList, aggregate_message};

/// Why `labels.Parse` refuses a selector; `Display` is upstream's `err.Error()`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// `Parser.parse`: a token where a requirement, a comma or the end should be (`found ')',
    /// expected: !, identifier, or 'end of string'`, `found '', expected: identifier after ','`).
    #[error("found '{found}', expected: {expected}")]
    Unexpected {
        /// The literal of the token found (empty for the end of the string).
        found: String,
        /// What the parser expected, in its words.
        expected: &'static str,
    },
    /// A requirement that does not read or that `NewRequirement` refuses, which `Parser.parse`
    /// wraps: `unable to parse requirement: ...`.
    #[error("unable to parse requirement: {0}")]
    Requirement(RequirementError),
}

/// Why `Parser.parseRequirement` refuses one requirement.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RequirementError {
    /// A token where a key, an operator or a value should be (`found 'b', expected: in, notin,
    /// =, ==, !=, gt, lt`, `found 'c', expected: ',' or ')'`).
    #[error("found '{found}', expected: {expected}")]
    Unexpected {
        /// The literal of the token found (empty for the end of the string).
        found: String,
        /// What the parser expected, in its words.
        expected: &'static str,
    },
    /// `parseValues`: `in`/`notin` not followed by `(` (upstream's message has no colon here).
    #[error("found '{found}' expected: '('")]
    MissingOpenParenthesis {
        /// The literal of the token found.
        found: String,
    },
    /// The key is not a label key (`validateLabelKey` with Go's nil path, which prints as
    /// `<nil>`), or `NewRequirement` refuses the requirement: its errors, aggregated.
    #[error("{}", aggregate_message(.0))]
    Invalid(ErrorList),
}

/// `labels.Parse(selector)` as `release` parses it, for matching: the requirements sorted by key
/// (a stable sort), as the expressions of a [`LabelSelector`]: `=`/`==` become `In` and `!=`
/// becomes `NotIn` with their one value, `>`/`<` become `Gt`/`Lt`, a bare key `Exists` and
/// `!key` `DoesNotExist`. Values are read into a `sets.String` in every release (`parseValues`,
/// `parseExactValue`), so they come out sorted and without duplicates. An empty string is the
/// empty selector, which selects everything.
///
/// It selects what upstream's `labels.Selector` selects (`Requirement.Matches` treats `=`, `==`
/// and `in` alike, `!=` and `notin` alike), but it is neither upstream's `labels.Selector` nor
/// `metav1.ParseToLabelSelector` (which puts `=`/`==` in `matchLabels` and refuses `!=`, `>` and
/// `<`): its [`LabelSelector::format`] is no upstream text (`a in (b)` for `a=b`, where
/// `labels.Parse("a=b").String()` writes `a=b`). The text of a parsed selector is
/// [`normalize`]; compare two parsed selectors as values (`==`), not through `format`.
///
/// Releases differ in their words (label keys and values: [`label_key_error`],
/// [`requirement_errors`]) and in one rule: before 1.35 two commas in a row inside `( )` skip
/// the second (`parseIdentifiersList` consumed it), so `x in (a,,)` fails with `found ')',
/// expected: ',', or identifier`; from 1.35 it reads as `a` and the empty value
/// (kubernetes/kubernetes#133419, opened 2025-08-07, after the 1.34 branch point, merged
/// without a feature gate). Read: two pre-1.35 copies of `selector.go` (kubernetes/apimachinery
/// 8140f573 and 2a9a9331, keys checked by `IsQualifiedName`) consume the comma; a later one
/// (kubernetes/kubernetes 008b3652, keys checked by `content.IsLabelKey`, 1.36-era) does not.
/// No 1.35 copy was found: the boundary at 1.35 rests on the PR's date.
pub fn parse(selector: &str, release: KubernetesVersion) -> Result<LabelSelector, ParseError> {
    let expressions = read(selector, release)?
        .into_iter()
        .map(|r| {
            let operator = match r.operator {
                SelectionOperator::In | SelectionOperator::Equals | SelectionOperator::DoubleEquals => "In",
                SelectionOperator::NotIn | SelectionOperator::NotEquals => "NotIn",
                SelectionOperator::Exists => "Exists",
                SelectionOperator::DoesNotExist => "DoesNotExist",
                SelectionOperator::GreaterThan => "Gt",
                SelectionOperator::LessThan => "Lt",
            };
            LabelSelectorRequirement { key: r.key, operator: operator.to_string(), values: r.values }
        })
        .collect();
    Ok(LabelSelector { match_labels: Default::default(), match_expressions: expressions })
}

/// `labels.Parse(selector).String()`: the selector as the HPA controller's metrics clients send
/// it (`labelSelector` of the pods' metrics, from the scale's `status.selector`). Requirements
/// sorted by key, white space gone, the operators as written (`a=b`, `a==b`, `a!=b`, `a>1`),
/// set values sorted without duplicates: ` tier in (b,a,a), app=web` is `app=web,tier in (a,b)`.
pub fn normalize(selector: &str, release: KubernetesVersion) -> Result<String, ParseError> {
    let requirements = read(selector, release)?;
    Ok(selector_text(requirements.iter().map(|r| (r.key.as_str(), requirement_text(&r.key, r.operator, &r.values)))))
}

/// `Requirement.String`: `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin
/// (a,b)`, `key>1`, `key<1`, `key`, `!key`. Several values are sorted (`safeSort`), duplicates
/// kept.
pub(crate) fn requirement_text(key: &str, operator: SelectionOperator, values: &[String]) -> String {
    use SelectionOperator as Op;
    let (open, close) = match operator {
        Op::Exists => return key.to_string(),
        Op::DoesNotExist => return format!("!{key}"),
        Op::Equals => ("=", ""),
        Op::DoubleEquals => ("==", ""),
        Op::NotEquals => ("!=", ""),
        Op::In => (" in (", ")"),
        Op::NotIn => (" notin (", ")"),
        Op::GreaterThan => (">", ""),
        Op::LessThan => ("<", ""),
    };
    let mut sorted: Vec<&str> = values.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    format!("{key}{open}{}{close}", sorted.join(","))
}

/// `internalSelector.String` of requirements given as their keys and texts: sorted by key as
/// `sort.Sort(ByKey(...))` sorts them (for a dozen requirements or fewer an insertion sort,
/// stable; past that Go's pdqsort may order requirements of one key otherwise), joined with
/// commas.
pub(crate) fn selector_text<'k>(requirements: impl Iterator<Item = (&'k str, String)>) -> String {
    let mut parts: Vec<(&str, String)> = requirements.collect();
    parts.sort_by(|a, b| a.0.cmp(b.0));
    parts.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(",")
}

/// `labels.Requirement` as the parser builds it (before `NewRequirement` returns it).
struct Requirement {
    key: String,
    operator: SelectionOperator,
    values: Vec<String>,
}

/// `labels.parse`: the requirements, sorted by key (`sort.Sort(ByKey(items))`, stable for a
/// dozen or fewer; past that, requirements of one key may come in another order in Go, which
/// does not change what the selector selects).
fn read(selector: &str, release: KubernetesVersion) -> Result<Vec<Requirement>, ParseError> {
    let mut parser = Parser { items: lex(selector), position: 0, release };
    let mut requirements = parser.parse()?;
    requirements.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(requirements)
}

/// A token of the lexer (`Token`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    End,
    ClosedPar,
    Comma,
    Not,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// `string2token`: the literals that are tokens.
fn keyword(literal: &[u8]) -> Option<Token> {
    Some(match literal {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::Not,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

/// `isWhitespace`.
fn white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// `isSpecialSymbol`.
fn special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// `Lexer`: the selector's bytes and the position of the next.
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    /// `read`: the next byte, and past it; 0 at the end (without moving). A NUL byte reads as
    /// 0 too: it ends an identifier, and the string where a token would start.
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    /// `unread`: back one byte (only ever after a byte that was not 0).
    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    /// `scanIDOrKeyword`: up to a special byte, white space or a 0; a keyword or an identifier.
    fn id_or_keyword(&mut self) -> (Token, String) {
        let mut buffer = Vec::new();
        loop {
            match self.read() {
                0 => break,
                b if special(b) || white(b) => {
                    self.unread();
                    break;
                }
                b => buffer.push(b),
            }
        }
        (keyword(&buffer).unwrap_or(Token::Identifier), String::from_utf8_lossy(&buffer).into_owned())
    }

    /// `scanSpecialSymbol`: the longest run of special bytes that is a token. (Each special
    /// byte alone is one, so upstream's `ErrorToken` never comes out of it.)
    fn special_symbol(&mut self) -> (Token, String) {
        let mut buffer = Vec::new();
        let mut last: Option<(Token, usize)> = None;
        loop {
            match self.read() {
                0 => break,
                b if special(b) => {
                    buffer.push(b);
                    match keyword(&buffer) {
                        Some(token) => last = Some((token, buffer.len())),
                        None if last.is_some() => {
                            self.unread();
                            break;
                        }
                        None => {}
                    }
                }
                _ => {
                    self.unread();
                    break;
                }
            }
        }
        match last {
            Some((token, len)) => (token, String::from_utf8_lossy(buffer.get(..len).unwrap_or_default()).into_owned()),
            None => (Token::End, String::new()),
        }
    }

    /// `Lex`: the next token after white space.
    fn lex(&mut self) -> (Token, String) {
        let mut ch = self.read();
        while white(ch) {
            ch = self.read();
        }
        match ch {
            0 => (Token::End, String::new()),
            b => {
                self.unread();
                if special(b) { self.special_symbol() } else { self.id_or_keyword() }
            }
        }
    }
}

/// `Parser.scan`: every token up to the end, the end included.
fn lex(selector: &str) -> Vec<(Token, String)> {
    let mut lexer = Lexer { s: selector.as_bytes(), pos: 0 };
    let mut items = Vec::new();
    loop {
        let item = lexer.lex();
        let end = item.0 == Token::End;
        items.push(item);
        if end {
            return items;
        }
    }
}

/// `Parser`: the scanned tokens and the position of the next.
struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
    release: KubernetesVersion,
}

/// `ParserContext`: where `in` and `notin` are values, not operators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// `binaryOperators`, joined as `parseOperator`'s error lists them.
const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

fn unexpected(found: String, expected: &'static str) -> RequirementError {
    RequirementError::Unexpected { found, expected }
}

impl Parser {
    /// `lookahead`: the next token (an identifier for `in`/`notin` among values).
    fn lookahead(&self, context: Context) -> (Token, String) {
        let (token, literal) = self.items.get(self.position).cloned().unwrap_or((Token::End, String::new()));
        let token = match token {
            Token::In | Token::NotIn if context == Context::Values => Token::Identifier,
            t => t,
        };
        (token, literal)
    }

    /// `consume`: [`Parser::lookahead`], and past it.
    fn consume(&mut self, context: Context) -> (Token, String) {
        let item = self.lookahead(context);
        self.position = (self.position + 1).min(self.items.len());
        item
    }

    /// `parse`: requirements separated by commas.
    fn parse(&mut self) -> Result<Vec<Requirement>, ParseError> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::Not => {
                    requirements.push(self.requirement().map_err(ParseError::Requirement)?);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::End => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::Not {
                                return Err(ParseError::Unexpected { found: l2, expected: "identifier after ','" });
                            }
                        }
                        _ => return Err(ParseError::Unexpected { found: l, expected: "',' or 'end of string'" }),
                    }
                }
                Token::End => return Ok(requirements),
                _ => {
                    return Err(ParseError::Unexpected {
                        found: literal,
                        expected: "!, identifier, or 'end of string'",
                    });
                }
            }
        }
    }

    /// `parseRequirement`, then `NewRequirement`'s checks of what it read ([`requirement_errors`]).
    fn requirement(&mut self) -> Result<Requirement, RequirementError> {
        let (key, inferred) = self.key_and_inferred_operator()?;
        let (operator, values) = match inferred {
            Some(op) => (op, Vec::new()),
            None => {
                let (token, literal) = self.consume(Context::KeyAndOperator);
                let operator = match token {
                    Token::In => SelectionOperator::In,
                    Token::Equals => SelectionOperator::Equals,
                    Token::DoubleEquals => SelectionOperator::DoubleEquals,
                    Token::GreaterThan => SelectionOperator::GreaterThan,
                    Token::LessThan => SelectionOperator::LessThan,
                    Token::NotIn => SelectionOperator::NotIn,
                    Token::NotEquals => SelectionOperator::NotEquals,
                    _ => return Err(unexpected(literal, BINARY_OPERATORS)),
                };
                let values = match operator {
                    SelectionOperator::In | SelectionOperator::NotIn => self.values()?,
                    _ => self.exact_value()?,
                };
                (operator, values)
            }
        };
        let errors = requirement_errors(&key, operator, &values, self.release);
        if !errors.is_empty() {
            return Err(RequirementError::Invalid(errors));
        }
        Ok(Requirement { key, operator, values })
    }

    /// `parseKeyAndInferOperator`: the key, and `Exists`/`DoesNotExist` where no binary operator
    /// follows (`!key` stays `DoesNotExist` whatever follows).
    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<SelectionOperator>), RequirementError> {
        let (mut token, mut literal) = self.consume(Context::Values);
        let mut operator = None;
        if token == Token::Not {
            operator = Some(SelectionOperator::DoesNotExist);
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(unexpected(literal, "identifier"));
        }
        if let Some(error) = label_key_error(&literal, None, self.release) {
            return Err(RequirementError::Invalid(vec![error]));
        }
        if operator.is_none() && matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) {
            operator = Some(SelectionOperator::Exists);
        }
        Ok((literal, operator))
    }

    /// `parseValues`: `(a,b)`, sorted and without duplicates; `()` is the empty value.
    fn values(&mut self) -> Result<Vec<String>, RequirementError> {
        let (token, literal) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(RequirementError::MissingOpenParenthesis { found: literal });
        }
        let (token, literal) = self.lookahead(Context::Values);
        let mut set = BTreeSet::new();
        match token {
            Token::Identifier | Token::Comma => {
                self.identifiers(&mut set)?;
                if self.consume(Context::Values).0 != Token::ClosedPar {
                    return Err(unexpected(literal, "')'"));
                }
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                set.insert(String::new());
            }
            _ => return Err(unexpected(literal, "',', ')' or identifier")),
        }
        Ok(set.into_iter().collect())
    }

    /// `parseIdentifiersList`: comma-separated values, empty ones included, up to `)`.
    fn identifiers(&mut self, set: &mut BTreeSet<String>) -> Result<(), RequirementError> {
        loop {
            let (token, literal) = self.consume(Context::Values);
            match token {
                Token::Identifier => {
                    set.insert(literal);
                    let (t2, l2) = self.lookahead(Context::Values);
                    match t2 {
                        Token::Comma => {}
                        Token::ClosedPar => return Ok(()),
                        _ => return Err(unexpected(l2, "',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        set.insert(String::new());
                    }
                    match self.lookahead(Context::Values).0 {
                        Token::ClosedPar => {
                            set.insert(String::new());
                            return Ok(());
                        }
                        Token::Comma => {
                            // Before kubernetes/kubernetes#133419 (1.35) the second comma was
                            // consumed here, so a `)` right after it was not seen as `,)`.
                            if self.release < KubernetesVersion::V1_35 {
                                self.consume(Context::Values);
                            }
                            set.insert(String::new());
                        }
                        _ => {}
                    }
                }
                _ => return Err(unexpected(literal, "',', or identifier")),
            }
        }
    }

    /// `parseExactValue`: one value, empty before a comma or the end.
    fn exact_value(&mut self) -> Result<Vec<String>, RequirementError> {
        if matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) {
            return Ok(vec![String::new()]);
        }
        match self.consume(Context::Values) {
            (Token::Identifier, literal) => Ok(vec![literal]),
            (_, literal) => Err(unexpected(literal, "identifier")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    use KubernetesVersion::{V1_33, V1_34, V1_35, V1_37};

    const LATEST: KubernetesVersion = KubernetesVersion::LATEST;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    fn requirement(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: values.iter().map(|v| (*v).to_string()).collect(),
        }
    }

    fn message(selector: &str, release: KubernetesVersion) -> String {
        match parse(selector, release) {
            Ok(s) => format!("parsed: {}", s.format()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn selectors_match_as_kube_apiserver_matches_them() {
        let pod = labels(&[("app", "web"), ("tier", "b"), ("gen", "5")]);
        let m = |s: &str| parse(s, LATEST).unwrap_or_else(|e| panic!("{s}: {e}")).matches(&pod);
        assert!(m("app=web,tier in (a,b)"));
        assert!(!m("app=web,!tier"));
        assert!(m("app, track notin (x)"));
        assert!(m("app==web,tier!=c"));
        assert!(m("gen>4,gen<6"));
        assert!(!m("gen>5"));
        assert!(m(""));
        assert!(m(" app in (in, web) "), "in is a value among values");
        assert!(!m("notin=in"), "in and notin are values after =");
        assert!(!m("tier in ()"), "() is the empty value");
        assert!(m("x notin (,)"));
        assert!(m("\rapp"));
        assert!(m("app in\t(web)\n"));
    }

    /// Each requirement as the parser builds it: operator, values from a `sets.String`
    /// (sorted, no duplicates, the empty value where a comma or `()` leaves one), sorted by key.
    #[test]
    fn requirements_are_read_as_labels_parse_reads_them() {
        assert_eq!(
            parse("b=1, a notin (y,x,x), !c, d, e==, f!=g, h>2, i<3, j in (,k)", LATEST),
            Ok(LabelSelector {
                match_labels: BTreeMap::new(),
                match_expressions: vec![
                    requirement("a", "NotIn", &["x", "y"]),
                    requirement("b", "In", &["1"]),
                    requirement("c", "DoesNotExist", &[]),
                    requirement("d", "Exists", &[]),
                    requirement("e", "In", &[""]),
                    requirement("f", "NotIn", &["g"]),
                    requirement("h", "Gt", &["2"]),
                    requirement("i", "Lt", &["3"]),
                    requirement("j", "In", &["", "k"]),
                ],
            })
        );
        // A stable sort: requirements of one key keep their order.
        assert_eq!(
            parse("x=b,a,x in (a)", LATEST).map(|s| s.match_expressions),
            Ok(vec![requirement("a", "Exists", &[]), requirement("x", "In", &["b"]), requirement("x", "In", &["a"])])
        );
        assert_eq!(parse("   ", LATEST), Ok(LabelSelector::default()));
        // A NUL byte ends the string where a token would start, and ends an identifier.
        assert_eq!(parse("x=a \0junk", LATEST).map(|s| s.match_expressions), Ok(vec![requirement("x", "In", &["a"])]));
        assert_eq!(
            parse("x=a\0,junk", LATEST).map(|s| s.match_expressions),
            Ok(vec![requirement("junk", "Exists", &[]), requirement("x", "In", &["a"])])
        );
    }

    #[test]
    fn bad_selectors_get_apimachinerys_words() {
        let name_part = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        let cases = [
            ("app:web", format!("unable to parse requirement: <nil>: Invalid value: \"app:web\": {name_part}")),
            ("*bar", format!("unable to parse requirement: <nil>: Invalid value: \"*bar\": {name_part}")),
            (")", "found ')', expected: !, identifier, or 'end of string'".to_string()),
            ("a,", "found '', expected: identifier after ','".to_string()),
            ("a,,b", "found ',', expected: identifier after ','".to_string()),
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".to_string()),
            ("a in b", "unable to parse requirement: found 'b' expected: '('".to_string()),
            ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'".to_string()),
            ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'".to_string()),
            ("a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier".to_string()),
            ("a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier".to_string()),
            ("a=b=c", "found '=', expected: ',' or 'end of string'".to_string()),
            ("!a=b", "found '=', expected: ',' or 'end of string'".to_string()),
            ("!=a", "found '!=', expected: !, identifier, or 'end of string'".to_string()),
            ("!", "unable to parse requirement: found '', expected: identifier".to_string()),
            ("a=(", "unable to parse requirement: found '(', expected: identifier".to_string()),
            (
                "a>x",
                "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"
                    .to_string(),
            ),
            (
                "a=-b",
                "unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string(),
            ),
        ];
        for (selector, expected) in cases {
            assert_eq!(message(selector, LATEST), expected, "{selector:?}");
        }
        assert_eq!(
            parse("a b", LATEST),
            Err(ParseError::Requirement(RequirementError::Unexpected {
                found: "b".into(),
                expected: BINARY_OPERATORS
            }))
        );
        // `Gt` with an empty value: one error for the integer, none for the label value.
        assert_eq!(
            message("n>", LATEST),
            "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"
        );
    }

    /// The words of a release: label keys (`content.IsLabelKey` from 1.35), label values'
    /// length (bytes from 1.35).
    #[test]
    fn each_release_words_errors_its_way() {
        let long = "v".repeat(64);
        let value = format!("a={long}");
        assert!(message(&value, V1_34).ends_with(": must be no more than 63 characters"), "{}", message(&value, V1_34));
        assert!(message(&value, V1_35).ends_with(": must be no more than 63 bytes"), "{}", message(&value, V1_35));
        assert!(message("a/b/c", V1_34).starts_with(
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of"
        ));
        assert!(message("a/b/c", V1_37).starts_with(
            "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of"
        ));
        // A value is a Go string, which every release prints with `%q` (`field.ErrorBody`).
        for release in [V1_33, V1_37] {
            let both = message("a>&", release);
            assert!(
                both.starts_with("unable to parse requirement: [values[0]: Invalid value: \"&\": for 'Gt'"),
                "{both}"
            );
        }
    }

    /// kubernetes/kubernetes#133419: `,,` right before `)` reads from 1.35.
    #[test]
    fn two_commas_before_the_parenthesis_read_from_1_35() {
        for selector in ["x in (a,,)", "x in (,,)", "x notin (a,,)"] {
            assert_eq!(
                message(selector, V1_34),
                "unable to parse requirement: found ')', expected: ',', or identifier",
                "{selector}"
            );
            assert!(message(selector, V1_35).starts_with("parsed: x "), "{selector}");
        }
        assert_eq!(
            parse("x in (a,,)", V1_35).map(|s| s.match_expressions),
            Ok(vec![requirement("x", "In", &["", "a"])])
        );
        for release in [V1_33, V1_37] {
            assert!(parse("x in (a,,,)", release).is_ok());
            assert_eq!(
                parse("x in (a,,b)", release).map(|s| s.match_expressions),
                Ok(vec![requirement("x", "In", &["", "a", "b"])])
            );
        }
    }

    /// `labels.Parse(s).String()`: upstream's `TestSelectorParse` good strings come back
    /// without their spaces; requirements sorted by key, set values sorted and deduplicated by
    /// the parser, the operators as written.
    #[test]
    fn parsed_selectors_write_back_as_selector_string() {
        for text in ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"] {
            assert_eq!(normalize(text, LATEST), Ok(text.replace(' ', "")), "{text:?}");
        }
        for (text, written) in [
            (" tier in (b,a,a), app==web", "app==web,tier in (a,b)"),
            ("b notin (,z), a", "a,b notin (,z)"),
            ("x in ()", "x in ()"),
            ("x=b,a,x in (a)", "a,x=b,x in (a)"),
        ] {
            assert_eq!(normalize(text, LATEST), Ok(written.to_string()), "{text:?}");
        }
        assert_eq!(
            normalize("x=a,", LATEST),
            Err(ParseError::Unexpected { found: String::new(), expected: "identifier after ','" })
        );
        // As a `LabelSelector`, `=`, `==` and `!=` are `In`/`NotIn` of one value (same selection).
        for (text, written) in [("x=a,y==b", "x in (a),y in (b)"), ("x!=a", "x notin (a)"), ("x>1,!y", "x>1,!y")] {
            assert_eq!(parse(text, LATEST).map(|s| s.format()), Ok(written.to_string()), "{text}");
        }
    }

    /// Upstream's two text paths: `labels.Parse(s).String()` ([`normalize`]) keeps each operator
    /// as written; `metav1.FormatLabelSelector` / `LabelSelectorAsSelector(s).String()`
    /// ([`LabelSelector::format`]) writes a `matchLabels` entry `a=b` and an `In` expression
    /// `a in (b)`. A parsed selector selects as both (it is compared as a value), and is written
    /// by `normalize` only.
    #[test]
    fn a_selector_is_written_by_the_path_it_came_from() {
        for (text, string) in [
            ("a=b", "a=b"),
            ("a==b", "a==b"),
            ("a!=b", "a!=b"),
            ("a in (b)", "a in (b)"),
            (" b=1 , a = 2", "a=2,b=1"),
            ("tier notin (y,x), app==web", "app==web,tier notin (x,y)"),
        ] {
            assert_eq!(normalize(text, LATEST), Ok(string.to_string()), "{text:?}");
        }
        let match_labels = LabelSelector { match_labels: labels(&[("a", "b")]), match_expressions: Vec::new() };
        assert_eq!(match_labels.format(), "a=b");
        let expression =
            LabelSelector { match_labels: BTreeMap::new(), match_expressions: vec![requirement("a", "In", &["b"])] };
        assert_eq!(expression.format(), "a in (b)");
        // `a=b`, `a==b` and `a in (b)` parse to one value; each selects as both LabelSelectors.
        let parsed = parse("a=b", LATEST);
        assert_eq!(parsed, parse("a==b", LATEST));
        assert_eq!(parsed, parse("a in (b)", LATEST));
        assert_eq!(parsed.as_ref().ok(), Some(&expression));
        for pod in [labels(&[("a", "b")]), labels(&[("a", "c")]), labels(&[])] {
            let selects = parsed.as_ref().is_ok_and(|s| s.matches(&pod));
            assert_eq!(selects, match_labels.matches(&pod), "{pod:?}");
            assert_eq!(selects, expression.matches(&pod), "{pod:?}");
        }
        assert_ne!(parse("a!=b", LATEST), parsed);
        assert_eq!(parse("a!=b", LATEST), parse("a notin (b)", LATEST));
    }

    /// `Requirement.String` for every operator; several values sorted, duplicates kept.
    #[test]
    fn requirements_write_as_requirement_string() {
        use SelectionOperator as Op;
        let text = |op: Op, values: &[&str]| {
            let values: Vec<String> = values.iter().map(|v| (*v).to_string()).collect();
            requirement_text("k", op, &values)
        };
        assert_eq!(text(Op::Equals, &["v"]), "k=v");
        assert_eq!(text(Op::DoubleEquals, &["v"]), "k==v");
        assert_eq!(text(Op::NotEquals, &[""]), "k!=");
        assert_eq!(text(Op::In, &["b", "a", "b"]), "k in (a,b,b)");
        assert_eq!(text(Op::NotIn, &[""]), "k notin ()");
        assert_eq!(text(Op::GreaterThan, &["1"]), "k>1");
        assert_eq!(text(Op::LessThan, &["-1"]), "k<-1");
        assert_eq!(text(Op::Exists, &[]), "k");
        assert_eq!(text(Op::DoesNotExist, &[]), "!k");
    }
}
