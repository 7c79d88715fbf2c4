//! The single integration-test binary of the workspace (one binary links once).

mod conformance;
mod evaluator;
mod lint_cli;
mod properties;
mod realworld;
