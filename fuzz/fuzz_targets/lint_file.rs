//! The lint pipeline on one file read from standard input, in-process, as `hpa-lint` runs it:
//! `hpa-lint -o json -`, `hpa-lint -o human -`, `hpa-lint validate -o json -`, and the
//! commands that print one result per object: `default`, `convert` and `explain` (`-o json`).
//!
//! Invariants: no panic; exit status 0 or 1; the JSON outputs parse; every position a
//! diagnostic or an error gives (line and column, 1-based, end included) lies within the input,
//! counting lines as YAML does (`\n`, `\r\n` and a lone `\r` end a line) and columns in
//! characters after a byte-order mark, and no diagnostic ends before it starts; what `validate`
//! reports kubectl refuses or never sends (its entries of no HPA) is reported by `default`,
//! `convert` and `explain` in the same words, at the same position.
#![no_main]

use hpa_fuzz::{Lines, run_hpa_lint};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let lines = lines_of(data);

    let (code, out) = run(&["--no-config", "-o", "json", "-"], data);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("lint output is not JSON ({e}):\n{out}"));
    assert!(code <= 1, "exit status {code} on standard input");
    for d in report["diagnostics"].as_array().expect("diagnostics is an array") {
        let at = |l: &str, c: &str| (d[l].as_u64().expect("a line"), d[c].as_u64().expect("a column"));
        let (start, end) = (at("line", "column"), at("endLine", "endColumn"));
        lines.check(start, d);
        lines.check(end, d);
        assert!(start <= end, "a diagnostic ends before it starts: {d}");
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
    let mut refused = Vec::new();
    for e in entries.as_array().expect("validate prints an array") {
        lines.check((e["line"].as_u64().expect("a line"), e["column"].as_u64().expect("a column")), e);
        for err in e["errors"].as_array().expect("errors is an array") {
            lines.check((err["line"].as_u64().expect("a line"), err["column"].as_u64().expect("a column")), err);
            let kubectl_refuses =
                ["NotAnObject", "TypeMeta", "NestedList", "StrayItems"].contains(&err["type"].as_str().unwrap_or(""));
            if e["kind"].is_null() && kubectl_refuses {
                refused.push(format!(
                    "hpa-lint: error: <stdin>:{}:{}: {}\n",
                    err["line"],
                    err["column"],
                    err["message"].as_str().expect("a message")
                ));
            }
        }
    }

    for command in [&["default"][..], &["convert", "--to", "autoscaling/v1"], &["explain"]] {
        let args: Vec<&str> = command.iter().copied().chain(["--no-config", "-o", "json", "-"]).collect();
        let (code, out, err) = run_hpa_lint(&args, data);
        assert!(code <= 1, "{command:?}: exit status {code} on standard input");
        if !out.is_empty() {
            let _: Value =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{command:?} output is not JSON ({e}):\n{out}"));
        }
        for r in &refused {
            assert!(err.contains(r.as_str()), "{command:?} does not report what validate does: {r}stderr:\n{err}");
        }
    }
});

fn run(args: &[&str], stdin: &[u8]) -> (u8, String) {
    let (code, out, _) = run_hpa_lint(args, stdin);
    (code, out)
}

/// The lines of the input as hpa-lint reads it (none when it is not text).
fn lines_of(data: &[u8]) -> Lines {
    // UTF-16 with its byte order mark is read as text (as kubectl reads it).
    // A lone surrogate and a last odd byte are U+FFFD.
    let utf16 = |bytes: &[u8], unit: fn([u8; 2]) -> u16| {
        let pairs = bytes.chunks_exact(2);
        let odd = !pairs.remainder().is_empty();
        let mut text: String =
            char::decode_utf16(pairs.map(|c| unit([c[0], c[1]]))).map(|c| c.unwrap_or('\u{fffd}')).collect();
        if odd {
            text.push('\u{fffd}');
        }
        text
    };
    let decoded = match data {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        _ => match std::str::from_utf8(data) {
            Ok(text) => text.to_string(),
            // Binary content (a NUL in bytes that are not UTF-8) is refused at 1:1.
            Err(_) if data.contains(&0) => return Lines::of_text(""),
            // Other bytes that are not UTF-8 are U+FFFD, as kubectl reads them.
            Err(_) => String::from_utf8_lossy(data).into_owned(),
        },
    };
    Lines::of_text(&decoded)
}
