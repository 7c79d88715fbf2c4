//! `labelSelector` queries as kube-apiserver reads them: apimachinery's `labels.Parse`
//! (`pkg/labels/selector.go`: its lexer, its recursive-descent parser and `NewRequirement`'s
//! checks), which the list and watch handlers run when they decode the list options
//! (`Convert_string_To_labels_Selector`), answering an error as a 400 `BadRequest` whose
//! message is the error.

use hpa_core::api::LabelSelector;
use hpa_core::api::meta::{LabelSelectorRequirement, SelectionOperator, label_key_error, requirement_errors};
use hpa_core::features::KubernetesVersion;
use hpa_core::field::aggregate_message;
use serde_json::Value;

/// Whether an object's labels satisfy a parsed selector: hpa-core's one matcher
/// ([`LabelSelector::matches_by`], `Requirement.Matches`).
pub fn matches(object: &Value, selector: &LabelSelector) -> bool {
    let labels = object.pointer("/metadata/labels").and_then(Value::as_object);
    selector.matches_by(|key| labels.and_then(|l| l.get(key)).and_then(Value::as_str))
}

/// `labels.Parse`: the requirements of `selector`, sorted by key, as the expressions of a
/// [`LabelSelector`] (`=`/`==` as `In` and `!=` as `NotIn` with their one value, `>`/`<` as `Gt`/`Lt`;
/// values sorted, without duplicates, as `sets.String.List` gives them), or the error in
/// apimachinery's words (`unable to parse requirement: <nil>: Invalid value: "a b": name part
/// must consist of ...`, `found ')', expected: !, identifier, or 'end of string'`).
pub fn parse(selector: &str) -> Result<LabelSelector, String> {
    let mut parser = Parser { items: lex(selector), position: 0 };
    let mut requirements = parser.parse()?;
    requirements.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(LabelSelector { match_labels: Default::default(), match_expressions: requirements })
}

/// A token of the lexer (`Token`), with its literal.
#[derive(Debug, Clone, PartialEq, Eq)]
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
            Some((token, len)) => (token, String::from_utf8_lossy(&buffer[..len]).into_owned()),
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
}

/// `ParserContext`: where `in` and `notin` are values, not operators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// `binaryOperators`, joined as `parseOperator`'s error lists them.
const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

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
    fn parse(&mut self) -> Result<Vec<LabelSelectorRequirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::Not => {
                    let r = self.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::End => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::Not {
                                return Err(format!("found '{l2}', expected: identifier after ','"));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Token::End => return Ok(requirements),
                _ => return Err(format!("found '{literal}', expected: !, identifier, or 'end of string'")),
            }
        }
    }

    /// `parseRequirement`, then `NewRequirement`'s checks of what it read (hpa-core's
    /// [`requirement_errors`]), as a [`LabelSelector`]'s expression.
    fn requirement(&mut self) -> Result<LabelSelectorRequirement, String> {
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
                    _ => return Err(format!("found '{literal}', expected: {BINARY_OPERATORS}")),
                };
                let values = match operator {
                    SelectionOperator::In | SelectionOperator::NotIn => self.values()?,
                    _ => self.exact_value()?,
                };
                (operator, values)
            }
        };
        let errors = requirement_errors(&key, operator, &values, KubernetesVersion::LATEST);
        if !errors.is_empty() {
            return Err(aggregate_message(&errors));
        }
        let operator = match operator {
            SelectionOperator::In | SelectionOperator::Equals | SelectionOperator::DoubleEquals => "In",
            SelectionOperator::NotIn | SelectionOperator::NotEquals => "NotIn",
            SelectionOperator::Exists => "Exists",
            SelectionOperator::DoesNotExist => "DoesNotExist",
            SelectionOperator::GreaterThan => "Gt",
            SelectionOperator::LessThan => "Lt",
        };
        Ok(LabelSelectorRequirement { key, operator: operator.to_string(), values })
    }

    /// `parseKeyAndInferOperator`: the key, and `Exists`/`DoesNotExist` where no binary operator
    /// follows (`!key` stays `DoesNotExist` whatever follows).
    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<SelectionOperator>), String> {
        let (mut token, mut literal) = self.consume(Context::Values);
        let mut operator = None;
        if token == Token::Not {
            operator = Some(SelectionOperator::DoesNotExist);
            (token, literal) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        if let Some(error) = label_key_error(&literal, None, KubernetesVersion::LATEST) {
            return Err(error.to_string());
        }
        if operator.is_none() && matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) {
            operator = Some(SelectionOperator::Exists);
        }
        Ok((literal, operator))
    }

    /// `parseValues`: `(a,b)`, sorted and without duplicates; `()` is the empty value.
    fn values(&mut self) -> Result<Vec<String>, String> {
        let (token, literal) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(Context::Values);
        let mut set = std::collections::BTreeSet::new();
        match token {
            Token::Identifier | Token::Comma => {
                self.identifiers(&mut set)?;
                if self.consume(Context::Values).0 != Token::ClosedPar {
                    return Err(format!("found '{literal}', expected: ')'"));
                }
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                set.insert(String::new());
            }
            _ => return Err(format!("found '{literal}', expected: ',', ')' or identifier")),
        }
        Ok(set.into_iter().collect())
    }

    /// `parseIdentifiersList`: comma-separated values, empty ones included, up to `)`.
    fn identifiers(&mut self, set: &mut std::collections::BTreeSet<String>) -> Result<(), String> {
        loop {
            let (token, literal) = self.consume(Context::Values);
            match token {
                Token::Identifier => {
                    set.insert(literal);
                    let (t2, l2) = self.lookahead(Context::Values);
                    match t2 {
                        Token::Comma => {}
                        Token::ClosedPar => return Ok(()),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
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
                            set.insert(String::new());
                        }
                        _ => {}
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    /// `parseExactValue`: one value, empty before a comma or the end.
    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        if matches!(self.lookahead(Context::Values).0, Token::End | Token::Comma) {
            return Ok(vec![String::new()]);
        }
        match self.consume(Context::Values) {
            (Token::Identifier, literal) => Ok(vec![literal]),
            (_, literal) => Err(format!("found '{literal}', expected: identifier")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_match_as_kube_apiserver_matches_them() {
        let pod = json!({"metadata": {"labels": {"app": "web", "tier": "b", "gen": "5"}}});
        let m = |s: &str| matches(&pod, &parse(s).unwrap_or_else(|e| panic!("{s}: {e}")));
        assert!(m("app=web,tier in (a,b)"));
        assert!(!m("app=web,!tier"));
        assert!(m("app, track notin (x)"));
        assert!(m("app==web,tier!=c"));
        assert!(m("gen>4,gen<6"));
        assert!(!m("gen>5"));
        assert!(m(""));
        assert!(m(" app in (in, web) "), "in is a value among values");
        assert!(!m("tier in ()"), "() is the empty value");
        assert!(m("x notin (,)"));
    }

    #[test]
    fn bad_selectors_get_apimachinerys_words() {
        let name_part = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        let cases = [
            ("app:web", format!("unable to parse requirement: <nil>: Invalid value: \"app:web\": {name_part}")),
            ("*bar", format!("unable to parse requirement: <nil>: Invalid value: \"*bar\": {name_part}")),
            (")", "found ')', expected: !, identifier, or 'end of string'".to_string()),
            ("a,", "found '', expected: identifier after ','".to_string()),
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".to_string()),
            ("a in b", "unable to parse requirement: found 'b' expected: '('".to_string()),
            ("a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'".to_string()),
            ("a=b=c", "found '=', expected: ',' or 'end of string'".to_string()),
            ("!a=b", "found '=', expected: ',' or 'end of string'".to_string()),
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
            assert_eq!(parse(selector), Err(expected), "{selector:?}");
        }
        assert_eq!(
            parse("b=1, a notin (y,x,x)"),
            Ok(LabelSelector {
                match_labels: Default::default(),
                match_expressions: vec![
                    LabelSelectorRequirement {
                        key: "a".into(),
                        operator: "NotIn".into(),
                        values: vec!["x".into(), "y".into()]
                    },
                    LabelSelectorRequirement { key: "b".into(), operator: "In".into(), values: vec!["1".into()] },
                ],
            })
        );
    }
}
