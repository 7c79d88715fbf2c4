//! `NO_COLOR` as no-color.org defines it: present and not empty, whatever its value, it turns
//! the colors of `--color auto` off on a terminal. The binary runs on a pseudo-terminal made by
//! util-linux's `script`.

use std::process::Command;

/// Whether `hpa-lint FILE` prints colors on a terminal with `NO_COLOR` set to `no_color`
/// (`None`: unset); `None` when `script` is missing.
fn colored(no_color: Option<&str>) -> Option<bool> {
    if !hpa_test_tools::tool("script", &["--version"]) {
        return None;
    }
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/manifests/bad/behavior.yaml");
    let mut command = Command::new("script");
    command
        .args(["-qec", &format!("'{}' '{file}'", env!("CARGO_BIN_EXE_hpa-lint")), "/dev/null"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    Some(out.stdout.contains(&0x1b))
}

#[test]
fn any_non_empty_no_color_turns_colors_off() {
    let Some(unset) = colored(None) else { return };
    assert!(unset, "a terminal without NO_COLOR gets colors");
    assert_eq!(colored(Some("")), Some(true), "an empty NO_COLOR is no NO_COLOR");
    for value in ["1", "0", "false", "no", "off"] {
        assert_eq!(colored(Some(value)), Some(false), "NO_COLOR={value}");
    }
}
