//! Test support for the HPA toolkit: the conformance runner that checks the project against
//! the vectors translated from Kubernetes' own tests (`data/conformance/`), and helpers the
//! integration tests share.

pub mod cli;
pub mod conformance;

use std::path::PathBuf;

/// The `tests/data` directory.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}
