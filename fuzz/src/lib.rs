//! What the fuzz targets share: running `hpa-lint` in-process, and checking that a position a
//! command reports lies within its input.

use std::fmt::Display;

use clap::Parser;

/// `hpa-lint ARGS` in-process on `stdin`, as the binary runs: its exit status, standard output
/// and standard error (both UTF-8).
pub fn run_hpa_lint(args: &[&str], stdin: &[u8]) -> (u8, String, String) {
    let args = hpa_lint::cli::Args::try_parse_from(std::iter::once("hpa-lint").chain(args.iter().copied()))
        .expect("the fuzzer's command lines parse");
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = hpa_lint::Output { stdin: &mut input, stdout: &mut out, stderr: &mut err, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("output is UTF-8");
    (code, text(out), text(err))
}

/// The length in characters of each line of a text, as YAML counts lines (`\n`, `\r\n` and a
/// lone `\r` end one), after a byte-order mark.
pub struct Lines(Vec<u64>);

impl Lines {
    /// The lines of `text`.
    pub fn of_text(text: &str) -> Lines {
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

    /// Panics unless the 1-based (line, column) names a character of the text or the end of a
    /// line; `what` is the finding or error that gave it.
    pub fn check(&self, (line, column): (u64, u64), what: &dyn Display) {
        assert!(line >= 1 && column >= 1, "position {line}:{column} is not 1-based: {what}");
        let index = usize::try_from(line - 1).expect("small");
        let Some(&length) = self.0.get(index) else {
            panic!("line {line} is past the end of the input ({} lines): {what}", self.0.len())
        };
        assert!(column <= length + 1, "column {column} is past the end of line {line} ({length} characters): {what}");
    }
}
