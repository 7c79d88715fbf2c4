//! The one way YAML files are read into structs: the file parsed as kubectl parses YAML, its
//! one document decoded by hpa-core's decoder (unknown and duplicate fields refused), every
//! problem with the line and column it is at. The webhook's policy file is read with [`read`],
//! `.hpa-lint.yaml` with its two halves ([`read_document`], then [`decode_node`], as it also
//! needs where its fields are written), and an `hpa-lint simulate` scenario (whose
//! `controller:` section is `.hpa-lint.yaml`'s type) with [`decode_node_every_error`], which
//! reports every value it cannot read at once.

use hpa_core::api::decode::{self, Decode, DecodeError, DecodeErrorKind, DecodeOptions, Detail, Shape, Strictness};

use std::collections::HashSet;

use crate::{Document, Locator, Node, NodeKind, NodeSource, Scalar, Span, SyntaxError, parse};

/// The most entries a mapping may have for [`duplicate_keys`] to compare its keys pairwise
/// rather than keep a set of them.
const SMALL_MAPPING: usize = 16;

/// What kind of problem a [`ReadError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The text is not YAML (kubectl would refuse the file).
    Syntax,
    /// The file holds more than one document.
    MultipleDocuments,
    /// A value does not decode into its field, or the field is unknown or given twice.
    Decode(DecodeErrorKind),
}

/// One problem of a file, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ReadError {
    /// What kind of problem.
    pub kind: ReadErrorKind,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The text it points at (where `line` and `column` are), for a reader that positions
    /// errors by span.
    pub span: Span,
    /// The field path it is about (empty for the file as a whole).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ReadError {
    fn at(kind: ReadErrorKind, span: Span, path: String, message: String) -> ReadError {
        ReadError { kind, line: span.start.line.max(1), column: span.start.col + 1, span, path, message }
    }
}

/// Reads `text` (one YAML document, or none: `T::default()`) into a `T`. Go type names in
/// errors are of the package `package`.
pub fn read<T: Decode + Default>(text: &str, package: &'static str) -> Result<T, Vec<ReadError>> {
    match read_document(text).map_err(|e| vec![e])? {
        Some(document) => decode_node(document.root(), package),
        None => Ok(T::default()),
    }
}

/// The one document of `text`, parsed as kubectl parses YAML (`None`: it has none): what
/// [`read`] decodes, for a reader that also needs the nodes (where a field is written). A
/// syntax error, or a second document (at its start), is refused.
pub fn read_document(text: &str) -> Result<Option<Document>, ReadError> {
    let parsed = parse(text);
    if let Some(e) = parsed.error {
        let at = Span { start: e.mark, end: e.mark };
        let message = match non_finite(text, &e) {
            Some((path, written)) => format!(
                "{path}: {written} is not a number this file can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a finite number, or leave the field out"
            ),
            None => e.message,
        };
        return Err(ReadError::at(ReadErrorKind::Syntax, at, e.path.unwrap_or_default(), message));
    }
    let mut documents = parsed.documents.into_iter();
    let document = documents.next();
    if let Some(second) = documents.next() {
        return Err(ReadError::at(
            ReadErrorKind::MultipleDocuments,
            Span { start: second.start, end: second.start },
            String::new(),
            "a second YAML document starts here, and this file holds one: merge its keys into the first document, or remove it".into(),
        ));
    }
    Ok(document)
}

/// The field and the value as written (`-.Inf`) of a `.nan` or `.inf` that kubectl's conversion
/// to JSON refuses in `text`: the error's path, found on the document's tree when it was read
/// ([`SyntaxError::path`]); `None` for any other error.
pub fn non_finite<'e>(text: &str, e: &'e SyntaxError) -> Option<(&'e str, String)> {
    let path = e.path.as_deref()?;
    let start = text.char_indices().nth(usize::try_from(e.mark.index).ok()?)?.0;
    let rest = text.get(start..)?;
    let len = rest.find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}' | '#')).unwrap_or(rest.len());
    Some((path, rest.get(..len)?.to_string()))
}

/// Decodes a node into a `T` as [`read`] does. The files read so are the tools' own, not
/// kube-apiserver's objects: their problems are worded plainly ([`plain_message`]), not as Go's
/// decoder words them.
pub fn decode_node<T: Decode + Default>(node: Node<'_>, package: &'static str) -> Result<T, Vec<ReadError>> {
    decode::decode_from::<T, _>(NodeSource::every_key(node), package, DecodeOptions::KUBE_APISERVER, Strictness::Strict)
        .map(|decoded| decoded.value)
        .map_err(|errors| located(node, errors))
}

/// Decodes a node into a `T` as [`decode_node`] does, but going on past every value it cannot
/// read ([`decode::decode_every_error_from`]): every problem of the node, in the order of the
/// file, where [`decode_node`] reports what kube-apiserver's decoding would (the first value of
/// a wrong type, else the unknown and duplicate fields).
pub fn decode_node_every_error<T: Decode + Default>(
    node: Node<'_>,
    package: &'static str,
) -> Result<T, Vec<ReadError>> {
    decode::decode_every_error_from::<T, _>(NodeSource::every_key(node), package, DecodeOptions::KUBE_APISERVER)
        .map_err(|errors| located(node, errors))
}

/// The decoder's `errors` on `node`, each at its place (an unknown or duplicate field at its
/// key, any other at its value) in plain words ([`plain_message`]).
fn located(node: Node<'_>, errors: Vec<DecodeError>) -> Vec<ReadError> {
    let mut locator = Locator::new(node);
    errors
        .into_iter()
        .map(|e| {
            let l = locator.locate(&e.path);
            let span = if e.kind.is_strict() { l.key_span.unwrap_or(l.span) } else { l.span };
            let message = plain_message(&e, l.node.filter(|_| l.exact));
            ReadError::at(ReadErrorKind::Decode(e.kind), span, e.path, message)
        })
        .collect()
}

/// A decoding problem of a file of the tools' own in plain words, with the field it is about
/// (`found`: its value as written, when it is): for a value of the wrong type what the field
/// takes, what was found and, for the two usual slips, what to write (`settings.minReplicas:
/// expected a whole number, found the string "2": write it without quotes`); for an unknown
/// field the fields there are, as `hpa-lint simulate` words its own (`unknown field
/// `minReplica` in settings; expected one of: minReplicas, ...`); for a field given twice that
/// it is; for any other problem (an enumeration's value, a quantity) the decoder's words.
pub fn plain_message(e: &DecodeError, found: Option<Node<'_>>) -> String {
    match (e.kind, e.detail) {
        (DecodeErrorKind::UnknownField, Some(Detail::UnknownField(known))) => {
            let (parent, field) = match e.path.rsplit_once('.') {
                Some((parent, field)) => (format!(" in {parent}"), field),
                None => (String::new(), e.path.as_str()),
            };
            format!("unknown field `{field}`{parent}; expected one of: {}", known.join(", "))
        }
        (DecodeErrorKind::DuplicateField, _) => format!("{} is written twice: keep one", e.path),
        (_, Some(Detail::Mismatch(shape))) => {
            let field = if e.path.is_empty() { "the file" } else { e.path.as_str() };
            let out_of_range = out_of_range(&e.message, found);
            let (found, advice) = describe(found, shape);
            format!("{field}: expected {}, found {found}{}", takes(shape), out_of_range.as_deref().unwrap_or(advice))
        }
        // Their own words, which name what they are about (`unknown scope "dir": expected
        // file, directory or all`), at its place.
        _ => e.message.clone(),
    }
}

/// For a whole number found where a Go integer of a narrower width is expected (the decoder's
/// words end `of type int32`), the range that type holds: `: it must be from -2147483648 to
/// 2147483647`; `None` for any other mismatch, and for a negative number where an unsigned one
/// is expected (what [`takes`] says, "of 0 or more", is the range).
fn out_of_range(message: &str, found: Option<Node<'_>>) -> Option<String> {
    let negative = match found.map(Node::kind) {
        Some(NodeKind::Scalar(Scalar::Int(i))) => i < 0,
        Some(NodeKind::Scalar(Scalar::UInt(_))) => false,
        // A whole number YAML reads as a float (`1e10`, `99999999999999999999`).
        Some(NodeKind::Scalar(Scalar::Float(f))) if f.is_finite() && f.fract() == 0.0 => f < 0.0,
        _ => return None,
    };
    let (min, max): (i128, i128) = match message.rsplit_once(" of type ")?.1 {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    };
    if negative && min == 0 {
        return None;
    }
    Some(format!(": it must be from {min} to {max}"))
}

/// What a field of this shape takes, in words.
fn takes(shape: Shape) -> &'static str {
    match shape {
        Shape::String => "a string",
        Shape::Integer => "a whole number",
        Shape::Unsigned => "a whole number of 0 or more",
        Shape::Number => "a number",
        Shape::Bool => "true or false",
        Shape::List => "a list",
        Shape::Quantity => "a quantity (a number, or a string such as 500m or 2Gi)",
        Shape::Time => "a time (an RFC 3339 string)",
        Shape::Described(words) => words,
        Shape::Mapping => "a mapping",
        // `Any` takes whatever is written (no type error); a shape added later is an object's.
        _ => "a mapping",
    }
}

/// A value found where a field of `shape` was expected, in words, and what to write instead
/// when the slip is a usual one: a number in quotes, or YAML 1.1's unquoted `yes`/`no`/`on`/`off`
/// read as a boolean where a string is expected.
fn describe(found: Option<Node<'_>>, shape: Shape) -> (String, &'static str) {
    let numeric = matches!(shape, Shape::Integer | Shape::Unsigned | Shape::Number);
    match found.map(Node::kind) {
        Some(NodeKind::Scalar(Scalar::Str(s))) => {
            let advice = match s.trim().parse::<f64>() {
                Ok(f) if numeric && f.is_finite() => ": write it without quotes",
                // `1e400`: go-yaml resolves a number past a float64's range as a string.
                Ok(_) if numeric && s.contains(|c: char| c.is_ascii_digit()) => {
                    ": a number past a float64's range (about 1.8e308) is a string in YAML; write a smaller number"
                }
                _ => "",
            };
            (format!("the string {s:?}"), advice)
        }
        Some(NodeKind::Scalar(Scalar::Bool(b))) => {
            let advice = if shape == Shape::String {
                ": YAML reads an unquoted yes, no, on or off as true or false; quote it"
            } else {
                ""
            };
            (b.to_string(), advice)
        }
        Some(NodeKind::Scalar(Scalar::Int(i))) => (i.to_string(), ""),
        Some(NodeKind::Scalar(Scalar::UInt(u))) => (u.to_string(), ""),
        Some(NodeKind::Scalar(Scalar::Float(f))) => (hpa_core::go::json_float(f), ""),
        Some(NodeKind::Seq(_)) => ("a list".into(), ""),
        Some(NodeKind::Map(_)) => ("a mapping".into(), ""),
        Some(NodeKind::Scalar(Scalar::Null)) | None => ("nothing".into(), ""),
    }
}

/// Every key written more than once in a mapping of `node`, in document order of its last
/// occurrence: the path of its field (as the decoder words one: `spec.metrics[0].type`) and the
/// spans of the occurrences before the last, which `sigs.k8s.io/yaml.YAMLToJSON` drops (the
/// JSON kubectl sends holds the last value). Only the values kept are walked.
pub fn written_twice(node: Node<'_>) -> Vec<(String, Vec<crate::Span>)> {
    fn walk(node: Node<'_>, path: &str, out: &mut Vec<(String, Vec<crate::Span>)>) {
        let child = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
        match node.kind() {
            crate::NodeKind::Scalar(_) => {}
            crate::NodeKind::Seq(items) => {
                for (i, item) in items.enumerate() {
                    walk(item, &format!("{path}[{i}]"), out);
                }
            }
            crate::NodeKind::Map(entries) => {
                // Each key's occurrences, by index (one pass; most mappings give each key once).
                let mut at: std::collections::HashMap<std::borrow::Cow<'_, str>, Vec<usize>> =
                    std::collections::HashMap::with_capacity(entries.len());
                let entries: Vec<crate::Entry<'_>> = entries.collect();
                for (i, e) in entries.iter().enumerate() {
                    at.entry(e.key.key_str()).or_default().push(i);
                }
                for (i, e) in entries.iter().enumerate() {
                    let key = e.key.key_str();
                    let occurrences = at.get(&key).map(Vec::as_slice).unwrap_or_default();
                    if occurrences.last() != Some(&i) {
                        continue;
                    }
                    let field = child(&key);
                    if let [dropped @ .., _] = occurrences
                        && !dropped.is_empty()
                    {
                        out.push((field.clone(), dropped.iter().map(|&d| entries[d].key.span()).collect()));
                    }
                    walk(e.value, &field, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    // Nearly every HPA gives each key once: checked without building paths first.
    if has_duplicate_keys(node) {
        walk(node, "", &mut out);
    }
    out
}

/// Whether a mapping gives a key more than once: pairwise for a mapping of at most 16 entries
/// (`SMALL_MAPPING`, nearly every one) whose keys are strings, each key read once into an array
/// of borrowed strings on the stack (this runs for every mapping of every HPA), through a set of
/// the keys as JSON names them ([`Node::key_str`](crate::Node::key_str): `1` and `"1"` are one
/// key) for a longer one or one with another key.
pub fn repeats_a_key(entries: &crate::Entries<'_>) -> bool {
    if entries.len() <= SMALL_MAPPING {
        let mut keys = [""; SMALL_MAPPING];
        let mut strings = true;
        for (i, e) in entries.clone().enumerate() {
            let Some(key) = e.key.as_str() else {
                strings = false;
                break;
            };
            let Some((earlier, [slot, ..])) = keys.split_at_mut_checked(i) else { break };
            if earlier.contains(&key) {
                return true;
            }
            *slot = key;
        }
        if strings {
            return false;
        }
    }
    let mut seen = HashSet::with_capacity(entries.len());
    !entries.clone().all(|e| seen.insert(e.key.key_str()))
}

/// Whether any mapping in `node` gives a key more than once ([`repeats_a_key`]), without a
/// field path or an allocation: the check before [`duplicate_keys`]-like walks that build them.
/// The mappings are read off the node's slots in one pass, not found by a walk of the tree.
pub fn has_duplicate_keys(node: Node<'_>) -> bool {
    node.mappings().any(|entries| repeats_a_key(&entries))
}

/// Every key written again in its mapping, with the path of the field it names (as the
/// decoder words a duplicate field: `spec.maxReplicas`, `metrics[0].type`), for readers that
/// walk a node themselves. Each later occurrence of a key is reported, in document order. A
/// mapping of more than 16 entries (`SMALL_MAPPING`) keeps a set of the keys it has seen (linear
/// in its size; a smaller one compares each key with the earlier ones, cheaper than a set).
pub fn duplicate_keys(node: Node<'_>) -> Vec<(crate::Span, String)> {
    fn walk(node: Node<'_>, path: &str, out: &mut Vec<(crate::Span, String)>) {
        match node.kind() {
            crate::NodeKind::Scalar(_) => {}
            crate::NodeKind::Seq(items) => {
                for (i, item) in items.enumerate() {
                    walk(item, &format!("{path}[{i}]"), out);
                }
            }
            crate::NodeKind::Map(entries) => {
                let mut seen = (entries.len() > SMALL_MAPPING).then(|| HashSet::with_capacity(entries.len()));
                for (i, e) in entries.clone().enumerate() {
                    let key = e.key.key_str();
                    let field = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
                    let repeated = match &mut seen {
                        Some(seen) => !seen.insert(key),
                        None => entries.clone().take(i).any(|earlier| earlier.key.key_str() == key),
                    };
                    if repeated {
                        out.push((e.key.span(), field.clone()));
                    }
                    walk(e.value, &field, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(node, "", &mut out);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use hpa_core::api::decode::Decode;

    use super::*;

    #[derive(Debug, Default, PartialEq, Decode)]
    #[go(package = "test", rename_all = "camelCase")]
    struct Settings {
        max_replicas: Option<i32>,
        labels: BTreeMap<String, String>,
        names: Vec<String>,
    }

    #[test]
    fn reads_one_document_into_a_struct() {
        let s: Settings = read("maxReplicas: 0x10\nlabels: {a: b}\nnames: [x, 'yes']\n", "test").unwrap();
        assert_eq!(s.max_replicas, Some(16));
        assert_eq!(s.labels["a"], "b");
        assert_eq!(s.names, ["x", "yes"]);
        assert_eq!(read::<Settings>("", "test").unwrap(), Settings::default());
        // YAML 1.1, as kubectl reads it: an unquoted `yes` is a boolean.
        let e = read::<Settings>("names: [x, yes]\n", "test").unwrap_err();
        assert_eq!(
            e[0].message,
            "names[1]: expected a string, found true: YAML reads an unquoted yes, no, on or off as true or false; quote it"
        );
        assert_eq!((e[0].line, e[0].column, e[0].path.as_str()), (1, 12, "names[1]"));
    }

    #[test]
    fn a_repeat_among_many_keys_is_found_once() {
        // 50,000 distinct keys and one repeat: only the repeat, with its path and line.
        let mut text = String::from("spec:\n");
        for i in 0..50_000 {
            text.push_str(&format!("  k{i}: {i}\n"));
        }
        text.push_str("  k777: again\n");
        let parsed = parse(&text);
        let found: Vec<(u32, String)> =
            duplicate_keys(parsed.documents[0].root()).into_iter().map(|(s, p)| (s.start.line, p)).collect();
        assert_eq!(found, [(50_002, "spec.k777".to_string())]);
    }

    #[test]
    fn repeats_are_reported_in_order_whatever_the_mapping_size() {
        // Below and above SMALL_MAPPING: every later occurrence, in document order, and keys
        // that are not strings compared as their text (`1` and `"1"` are one JSON key).
        for filler in [0, SMALL_MAPPING] {
            let mut text: String = (0..filler).map(|i| format!("f{i}: x\n")).collect();
            text.push_str("b: 1\na: 1\n1: x\nb: 2\n'1': y\nb: 3\na: 2\n");
            let parsed = parse(&text);
            let found: Vec<(u32, String)> =
                duplicate_keys(parsed.documents[0].root()).into_iter().map(|(s, p)| (s.start.line, p)).collect();
            let line = |l: usize| u32::try_from(filler + l).unwrap();
            let expected = [(line(4), "b"), (line(5), "1"), (line(6), "b"), (line(7), "a")];
            assert_eq!(found, expected.map(|(l, p)| (l, p.to_string())), "{filler} filler keys");
        }
    }

    /// A file of the tools' own is not kube-apiserver's: its problems are worded plainly, with
    /// the field, what it takes and what was found (a map's key in the field, which Go's words
    /// lose), and what to write for a number in quotes.
    #[test]
    fn problems_are_worded_plainly() {
        let message = |text: &str| read::<Settings>(text, "test").unwrap_err()[0].to_string();
        assert_eq!(
            message("maxReplicas: \"2\"\n"),
            "1:14: maxReplicas: expected a whole number, found the string \"2\": write it without quotes"
        );
        assert_eq!(message("maxReplicas: 1.5\n"), "1:14: maxReplicas: expected a whole number, found 1.5");
        // A whole number its Go type cannot hold: the range it can.
        assert_eq!(
            message("maxReplicas: 99999999999\n"),
            "1:14: maxReplicas: expected a whole number, found 99999999999: it must be from -2147483648 to 2147483647"
        );
        assert_eq!(message("maxReplicas: [1]\n"), "1:14: maxReplicas: expected a whole number, found a list");
        assert_eq!(message("labels: {a: {b: c}}\n"), "1:13: labels.a: expected a string, found a mapping");
        assert_eq!(message("labels: x\n"), "1:9: labels: expected a mapping, found the string \"x\"");
        assert_eq!(message("42\n"), "1:1: the file: expected a mapping, found 42");
    }

    /// Numbers a tool's file cannot hold say which key and what to write: a `.nan` or `.inf`
    /// (kubectl's bare `json: unsupported value: NaN` before), a number past a float64's range
    /// (go-yaml reads `1e400` as a string: "write it without quotes" before), a whole number
    /// YAML reads as a float past the field's Go type (no range before).
    #[test]
    fn numbers_a_file_cannot_hold_name_the_key_and_what_to_write() {
        let message = |text: &str| read::<Settings>(text, "test").unwrap_err()[0].to_string();
        let e = read::<Settings>("labels: {a: b}\nmaxReplicas: -.Inf\n", "test").unwrap_err();
        assert_eq!(
            (e[0].to_string(), e[0].path.as_str()),
            (
                "2:14: maxReplicas: -.Inf is not a number this file can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a finite number, or leave the field out".to_string(),
                "maxReplicas"
            )
        );
        assert_eq!(
            message("names: [a, {x: .nan}]\n"),
            "1:16: names[1].x: .nan is not a number this file can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a finite number, or leave the field out"
        );
        assert_eq!(
            message("maxReplicas: 1e400\n"),
            "1:14: maxReplicas: expected a whole number, found the string \"1e400\": a number past a float64's range (about 1.8e308) is a string in YAML; write a smaller number"
        );
        assert_eq!(
            message("maxReplicas: 1e10\n"),
            "1:14: maxReplicas: expected a whole number, found 10000000000: it must be from -2147483648 to 2147483647"
        );
        assert_eq!(
            message("maxReplicas: 99999999999999999999\n"),
            "1:14: maxReplicas: expected a whole number, found 100000000000000000000: it must be from -2147483648 to 2147483647"
        );
        // `inf` unquoted is a string in YAML too: no advice to unquote it.
        assert_eq!(
            message("maxReplicas: inf\n"),
            "1:14: maxReplicas: expected a whole number, found the string \"inf\""
        );
    }

    /// Whether a mapping reached through values and items gives a key twice, short mappings
    /// and long, keys compared as JSON keys.
    #[test]
    fn keys_given_twice_are_found_at_any_depth() {
        let long: String = (0..=SMALL_MAPPING).map(|i| format!("k{i}: x\n")).collect();
        let cases = [
            ("a: 1\nb: {c: 1, d: [{e: 1, f: 2}]}\n", false),
            ("a: 1\nb: {c: 1, d: [{e: 1, e: 2}]}\n", true),
            ("a: 1\nb: 2\na: 3\n", true),
            ("- {a: 1}\n- {a: 2, b: 3, a: 4}\n", true),
            ("a: {b: 1}\nc: {b: 2}\n", false),
            // `1` and `'1'` are one JSON key.
            ("1: x\n'1': y\n", true),
            ("1: x\n'2': y\n", false),
            (long.as_str(), false),
        ];
        for (text, expected) in cases {
            let parsed = parse(text);
            let root = parsed.documents[0].root();
            assert_eq!(has_duplicate_keys(root), expected, "{text:?}");
        }
        let twice = format!("{long}k0: y\n");
        assert!(has_duplicate_keys(parse(&twice).documents[0].root()));
    }

    #[test]
    fn every_problem_has_a_position() {
        let e = read::<Settings>("maxReplicas: 1\nmaxReplica: 2\nmaxReplicas: 3\n", "test").unwrap_err();
        let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "2:1: unknown field `maxReplica`; expected one of: maxReplicas, labels, names",
                "3:1: maxReplicas is written twice: keep one",
            ]
        );
        let e = read::<Settings>("names: {a: 1}\n", "test").unwrap_err();
        assert_eq!(e[0].to_string(), "1:8: names: expected a list, found a mapping");
        let doc = crate::parse("a: 1\nb: [{c: 1, c: 2}]\na: 3\n");
        let dups: Vec<(u32, String)> =
            duplicate_keys(doc.documents[0].root()).into_iter().map(|(s, p)| (s.start.line, p)).collect();
        assert_eq!(dups, [(2, "b[0].c".to_string()), (3, "a".to_string())]);
        let e = read::<Settings>("a: [\n", "test").unwrap_err();
        assert_eq!(e[0].kind, ReadErrorKind::Syntax);
        let e = read::<Settings>("a: 1\n---\nb: 2\n", "test").unwrap_err();
        assert_eq!((e[0].kind, e[0].line), (ReadErrorKind::MultipleDocuments, 2));
    }
}
