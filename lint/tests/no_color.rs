//! `NO_COLOR` as no-color.org defines it: present and not empty, whatever its value, it turns
//! the colors of `--color auto` off on a terminal. The binary runs on a pseudo-terminal made by
//! util-linux's `script`.

use std::process::Command;

#[test]
fn any_non_empty_no_color_turns_colors_off() {
    if !hpa_test_tools::tool("script", &["--version"]) {
        return;
    }
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/manifests/bad/behavior.yaml");
    // Whether `hpa-lint FILE` prints colors on a terminal with `NO_COLOR` set to `no_color`
    // (`None`: unset).
    let colored = |no_color: Option<&str>| {
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
        out.stdout.contains(&0x1b)
    };
    assert!(colored(None), "a terminal without NO_COLOR gets colors");
    assert!(colored(Some("")), "an empty NO_COLOR is no NO_COLOR");
    for value in ["1", "0", "false", "no", "off"] {
        assert!(!colored(Some(value)), "NO_COLOR={value}");
    }
}
