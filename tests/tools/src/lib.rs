//! The tests of the HPA toolkit that drive an external tool (`kubectl`, `pre-commit`, `git`,
//! `actionlint`, python3 with `helm-python-sdk`, `kubernetes-validate`) skip when it is
//! missing, and fail instead when `HPA_REQUIRE_TOOLS` asks for the tools ([`required`]): set
//! to anything but the empty string or `0` (CI's `.ci/run` sets `HPA_REQUIRE_TOOLS=1`).
//!
//! Every such test asks here, through [`tool`] (a program that runs) or [`missing`] (anything
//! else it needs), so the variable has one meaning everywhere.

// Saying on standard error that a test skipped is this crate's purpose.
#![allow(clippy::print_stderr)]

use std::ffi::OsStr;
use std::process::Command;

/// The environment variable that makes a missing tool fail the tests that need it.
pub const REQUIRE_TOOLS: &str = "HPA_REQUIRE_TOOLS";

/// Whether a missing tool fails the test that needs it: `HPA_REQUIRE_TOOLS` is set, and is
/// neither empty nor `0`.
pub fn required() -> bool {
    requires(std::env::var_os(REQUIRE_TOOLS).as_deref())
}

/// [`required`] for a value of the variable (`None`: unset).
fn requires(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether `program` runs here: `program probe...` starts and exits with status 0. When it
/// does not, the test cannot go on: see [`missing`].
#[track_caller]
pub fn tool(program: &str, probe: &[&str]) -> bool {
    let runs = Command::new(program).args(probe).output().is_ok_and(|o| o.status.success());
    if !runs {
        missing(&format!("`{program}`"));
    }
    runs
}

/// Says that `what` (a tool, a module, a git checkout) is missing, so the calling test skips;
/// panics instead, failing the test, when the tools are [`required`].
///
/// # Panics
///
/// When [`required`].
#[track_caller]
pub fn missing(what: &str) {
    assert!(!required(), "{what} is required ({REQUIRE_TOOLS} is set) but missing");
    eprintln!("skipped: {what} is missing (with {REQUIRE_TOOLS}=1 this fails instead)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_neither_empty_nor_zero_requires_the_tools() {
        assert!(!requires(None));
        assert!(!requires(Some(OsStr::new(""))));
        assert!(!requires(Some(OsStr::new("0"))));
        for value in ["1", "true", "yes", "00"] {
            assert!(requires(Some(OsStr::new(value))), "{value}");
        }
    }
}
