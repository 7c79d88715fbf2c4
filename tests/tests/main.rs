//! The single integration-test binary of the workspace (one binary links once).

mod architecture;
mod cluster;
mod config;
mod conformance;
mod context_cache;
mod convert_cli;
mod diagnose;
mod evaluator;
mod explain;
mod lint_cli;
mod lint_cluster;
mod lint_output;
mod lint_sets;
mod malformed;
mod properties;
mod readme;
mod realworld;
mod releases;
mod rules;
mod simulate;
