//! The single integration-test binary of the workspace (one binary links once).

mod conformance;
mod lint_cli;
mod realworld;
