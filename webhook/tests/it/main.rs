//! Integration tests of `hpa-webhook`, in one test binary (one link step).

// Helpers outside `#[test]` functions are test code too (clippy.toml allows these in tests).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stderr)]

mod chart;
mod context;
mod export;
mod groups;
mod https;
mod malformed;
mod manifests;
mod mutate;
mod parity;
mod readme;
mod semantics;
mod sigterm;
mod startup;
mod support;
mod validate;
