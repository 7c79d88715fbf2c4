//! The lint benchmark's baselines (bench/lint/run.sh): the same files as `hpa-lint PATH`, found
//! the same way, read and parsed on the same threads, but nothing else.
//!
//!     bare_parse events PATH   # saphyr-parser's events with their spans, nothing kept
//!     bare_parse tree PATH     # hpa-lint's span-keeping node tree (`source::parse`)
//!
//! Prints `documents files seconds`.

// A benchmark program: its output is the point.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Instant;

use rayon::prelude::*;

// The allocator hpa-lint uses, so that the comparison is about the work, not the allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use saphyr_parser::{Event, Parser};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(mode), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: bare_parse events|tree PATH");
        return std::process::ExitCode::from(2);
    };
    let started = Instant::now();
    let (origins, errors, _) = hpa_lint::input::discover(std::slice::from_ref(path), &[]);
    if !errors.is_empty() {
        eprintln!("{errors:?}");
        return std::process::ExitCode::from(2);
    }
    let paths: Vec<std::path::PathBuf> = origins
        .iter()
        .filter_map(|o| match o {
            hpa_lint::input::Origin::File(p) => Some(p.clone()),
            hpa_lint::input::Origin::Stdin => None,
        })
        .collect();
    let documents: usize = paths
        .par_iter()
        .map(|p| {
            let Ok(text) = std::fs::read_to_string(p) else { return 0 };
            match mode.as_str() {
                "tree" => hpa_lint::source::parse(&text).documents.len(),
                _ => {
                    let mut docs = 0;
                    let mut spans = 0usize;
                    for (event, span) in Parser::new_from_str(&text).flatten() {
                        if matches!(event, Event::DocumentStart(_)) {
                            docs += 1;
                        }
                        spans = spans.wrapping_add(span.start.index());
                    }
                    std::hint::black_box(spans);
                    docs
                }
            }
        })
        .sum();
    println!("{documents} {} {:.3}", paths.len(), started.elapsed().as_secs_f64());
    std::process::ExitCode::SUCCESS
}
