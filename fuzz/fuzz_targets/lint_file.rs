//! The lint pipeline on one file read from standard input, in-process, as `hpa-lint` runs it:
//! `hpa-lint -o json -`, `hpa-lint -o human -` and `hpa-lint validate -o json -`.
//!
//! Invariants: no panic; the JSON outputs parse; every position a diagnostic or an error gives
//! (line and column, 1-based, end included) lies within the input, counting lines as YAML does
//! (`\n`, `\r\n` and a lone `\r` end a line) and columns in characters after a byte-order mark.
#![no_main]

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let lines = Lines::of(data);

    let (code, out) = run(&["--no-config", "-o", "json", "-"], data);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("lint output is not JSON ({e}):\n{out}"));
    assert!(code <= 1, "exit status {code} on standard input");
    for d in report["diagnostics"].as_array().expect("diagnostics is an array") {
        let at = |l: &str, c: &str| (d[l].as_u64().expect("a line"), d[c].as_u64().expect("a column"));
        lines.check(at("line", "column"), d);
        lines.check(at("endLine", "endColumn"), d);
        for r in d["related"].as_array().expect("related is an array") {
            if r["file"] == d["file"] {
                lines.check((r["line"].as_u64().expect("a line"), r["column"].as_u64().expect("a column")), r);
            }
        }
    }

    let _ = run(&["--no-config", "-o", "human", "--color", "never", "-"], data);

    let (code, out) = run(&["validate", "-o", "json", "-"], data);
    assert!(code <= 1, "exit status {code} on standard input");
    let entries: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("validate output is not JSON ({e}):\n{out}"));
    for e in entries.as_array().expect("validate prints an array") {
        lines.check((e["line"].as_u64().expect("a line"), e["column"].as_u64().expect("a column")), e);
        for err in e["errors"].as_array().expect("errors is an array") {
            lines.check((err["line"].as_u64().expect("a line"), err["column"].as_u64().expect("a column")), err);
        }
    }
});

fn run(args: &[&str], stdin: &[u8]) -> (u8, String) {
    let args = hpa_lint::cli::Args::try_parse_from(std::iter::once("hpa-lint").chain(args.iter().copied()))
        .expect("the fuzzer's command lines parse");
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = hpa_lint::Output { stdin: &mut input, stdout: &mut out, stderr: &mut err, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    (code, String::from_utf8(out).expect("output is UTF-8"))
}

/// The length in characters of each line of the input (empty when it is not text).
struct Lines(Vec<u64>);

impl Lines {
    fn of(data: &[u8]) -> Lines {
        let Ok(text) = std::str::from_utf8(data) else { return Lines(vec![0]) };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lengths = vec![0u64];
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    lengths.push(0);
                }
                '\n' => lengths.push(0),
                _ => *lengths.last_mut().expect("never empty") += 1,
            }
        }
        Lines(lengths)
    }

    /// A 1-based (line, column) must name a character of the input, or the end of a line.
    fn check(&self, (line, column): (u64, u64), what: &Value) {
        assert!(line >= 1 && column >= 1, "position {line}:{column} is not 1-based: {what}");
        let index = usize::try_from(line - 1).expect("small");
        let Some(&length) = self.0.get(index) else {
            panic!("line {line} is past the end of the input ({} lines): {what}", self.0.len())
        };
        assert!(column <= length + 1, "column {column} is past the end of line {line} ({length} characters): {what}");
    }
}
