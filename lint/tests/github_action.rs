//! The GitHub Action (`action.yml`) and the workflows (`.github/workflows/`): the action's two
//! scripts run here as the composite action runs them, with the `hpa-lint` just built (on
//! `examples/`) and against release assets served on loopback (checksum verified, fallback to
//! `cargo install`); the workflows pass `actionlint`. Skipped when a tool is missing (`bash`,
//! `curl`, `actionlint`), unless `HPA_REQUIRE_TOOLS` requires the tools (`hpa_test_tools`; CI
//! sets it, so there it always runs).

// Helpers outside `#[test]` functions are test code too (clippy.toml allows these in tests).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn tool(name: &str, probe: &str) -> bool {
    hpa_test_tools::tool(name, &[probe])
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `PATH` with the directory of the hpa-lint under test first.
fn path_with_hpa_lint() -> std::ffi::OsString {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_hpa-lint"));
    std::env::join_paths(
        std::iter::once(bin.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap()
}

/// The `key=value` lines a step wrote to `$GITHUB_OUTPUT`.
fn outputs(file: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

fn output<'a>(outputs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    outputs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// `run.sh` as the action's step runs it in `dir`, with the hpa-lint under test, no
/// configuration file, the SARIF file and `$GITHUB_OUTPUT` given; the other inputs unset.
fn run_script(dir: &Path, sarif: &Path, github_output: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(workspace().join(".github/action/run.sh"))
        .current_dir(dir)
        .env("PATH", path_with_hpa_lint())
        .env_remove("INPUT_PATHS")
        .env_remove("INPUT_FAIL_ON")
        .env("INPUT_SARIF", sarif)
        .env("INPUT_ARGS", "--no-config")
        .env("GITHUB_OUTPUT", github_output)
        .env("NO_COLOR", "1");
    cmd
}

// === action.yml ===

/// `action.yml` is read as YAML (hpa-lint's own reader, kubectl's YAML 1.1, which GitHub's
/// parser agrees with on this file: a plain scalar with `: ` in it is an error in both): a
/// composite action whose steps run the two scripts, every input with a description, every
/// `inputs.NAME` the steps read declared and every declared input read.
#[test]
fn the_action_runs_its_scripts_with_declared_inputs() {
    use hpa_lint::source::{self, Node};
    let text = std::fs::read_to_string(workspace().join("action.yml")).unwrap();
    let parsed = source::parse(&text);
    assert!(parsed.error.is_none(), "action.yml is not valid YAML: {:?}", parsed.error);
    let [action] = parsed.documents.as_slice() else { panic!("action.yml holds one document") };
    let root = action.root();
    let str_at = |node: Node<'_>, path: &[&str]| -> String {
        let found = path.iter().try_fold(node, |n, k| n.get(k));
        found
            .and_then(Node::as_str)
            .unwrap_or_else(|| panic!("action.yml: {} is no string", path.join(".")))
            .to_string()
    };
    for key in ["name", "description", "author"] {
        assert!(!str_at(root, &[key]).is_empty(), "{key}");
    }
    assert_eq!(str_at(root, &["runs", "using"]), "composite");
    let steps: Vec<Node<'_>> = root.get("runs").and_then(|r| r.get("steps")).and_then(Node::items).unwrap().collect();
    let runs: Vec<String> =
        steps.iter().filter_map(|s| s.get("run").and_then(Node::as_str)).map(String::from).collect();
    for script in ["install.sh", "run.sh"] {
        let call = format!("\"$GITHUB_ACTION_PATH/.github/action/{script}\"");
        assert!(runs.contains(&call), "a step runs {call}: {runs:?}");
        let path = workspace().join(".github/action").join(script);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o111 != 0, "{script} is executable");
        }
    }
    for step in &steps {
        assert!(step.get("run").is_none() || str_at(*step, &["shell"]) == "bash", "a run step names its shell");
    }
    let uses: Vec<String> =
        steps.iter().filter_map(|s| s.get("uses").and_then(Node::as_str)).map(String::from).collect();
    assert!(uses.iter().any(|u| u.starts_with("github/codeql-action/upload-sarif@")), "{uses:?}");
    // Every `inputs.NAME` the steps and outputs read is declared, and every declared input is read.
    let inputs = root.get("inputs").and_then(Node::entries).unwrap();
    let mut declared = Vec::new();
    for input in inputs {
        let name = input.key.key_string();
        assert!(!str_at(input.value, &["description"]).is_empty(), "input {name} has a description");
        declared.push(name);
    }
    let used: std::collections::BTreeSet<&str> = text
        .match_indices("inputs.")
        .map(|(i, _)| {
            let rest = &text[i + "inputs.".len()..];
            &rest[..rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(rest.len())]
        })
        .collect();
    for input in &used {
        assert!(declared.iter().any(|d| d == input), "inputs.{input} is not declared");
    }
    for input in &declared {
        assert!(used.contains(input.as_str()), "input {input} is never used");
    }
}

#[test]
fn the_action_lints_the_examples() {
    if !tool("bash", "--version") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = |paths: &str, fail_on: &str, name: &str| {
        let github_output = tmp.path().join(format!("{name}.output"));
        let sarif = tmp.path().join(format!("{name}.sarif"));
        let out = run_script(&workspace(), &sarif, &github_output)
            .env("INPUT_PATHS", paths)
            .env("INPUT_FAIL_ON", fail_on)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", text(&out));
        let sarif: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
        (out, outputs(&github_output), sarif)
    };

    // The clean examples: exit code 0, an empty SARIF run, no annotation.
    let (out, outputs, sarif) = run("examples/manifests/good", "warning", "good");
    assert_eq!(output(&outputs, "exit-code"), Some("0"), "{}", text(&out));
    assert!(output(&outputs, "sarif-file").unwrap().ends_with("good.sarif"));
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));

    // Both directories, one per line: findings are annotations and SARIF results, and the
    // verdict is 1, for the last step to fail with.
    let (out, outputs, sarif) = run("examples/manifests/good\nexamples/manifests/bad", "warning", "all");
    assert_eq!(output(&outputs, "exit-code"), Some("1"), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("::error file=examples/manifests/bad/"), "{stdout}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 10, "{} results", results.len());
    assert!(results.iter().all(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .starts_with("examples/manifests/bad/")
    }));
    let annotations = stdout.lines().filter(|l| l.starts_with("::error") || l.starts_with("::warning")).count();
    assert!(annotations >= results.iter().filter(|r| r["level"] != "note").count(), "{stdout}");

    // fail-on never: the same findings, a passing verdict.
    let (_, outputs, _) = run("examples/manifests", "never", "never");
    assert_eq!(output(&outputs, "exit-code"), Some("0"));

    // hpa-lint cannot run (a path that does not exist): the script fails itself.
    let out = Command::new("bash")
        .arg(workspace().join(".github/action/run.sh"))
        .current_dir(workspace())
        .env("PATH", path_with_hpa_lint())
        .env("INPUT_PATHS", "no/such/dir")
        .env("INPUT_SARIF", tmp.path().join("missing.sarif"))
        .env("GITHUB_OUTPUT", tmp.path().join("missing.output"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// With its default `paths: .`, the action lints a repository whose YAML and JSON files are
/// mostly no manifests: JSON with comments (`tsconfig.json`) and YAML with Jinja templating do
/// not parse and name neither apiVersion nor kind, so they are skipped with a notice, and the
/// verdict is the manifests' alone.
#[test]
fn the_action_passes_files_that_are_no_manifests() {
    if !tool("bash", "--version") {
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for (file, contents) in [
        ("tsconfig.json", "{\n  // TypeScript allows comments\n  \"compilerOptions\": {\"strict\": true}\n}\n"),
        (".devcontainer/devcontainer.json", "{\n  // a dev container\n  \"image\": \"rust\",\n}\n"),
        ("ansible/vars.yaml", "name: {{ app_name }}\n{% if debug %}\ndebug: true\n{% endif %}\n"),
    ] {
        std::fs::create_dir_all(repo.path().join(file).parent().unwrap()).unwrap();
        std::fs::write(repo.path().join(file), contents).unwrap();
    }
    std::fs::create_dir(repo.path().join("deploy")).unwrap();
    std::fs::copy(workspace().join("examples/manifests/good/web.yaml"), repo.path().join("deploy/hpa.yaml")).unwrap();
    let github_output = tmp.path().join("output");
    let out = run_script(repo.path(), &tmp.path().join("hpa-lint.sarif"), &github_output).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(output(&outputs(&github_output), "exit-code"), Some("0"), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("::error"), "{stdout}");
    for file in ["./tsconfig.json", "./ansible/vars.yaml"] {
        assert!(
            stdout.contains(&format!("::notice title=hpa-lint::{file}: skipped: not YAML or JSON kubectl reads")),
            "{file}: {stdout}"
        );
    }
}

/// The `args` input is split into words as a shell splits them (quotes, backslashes), so a
/// quoted glob reaches hpa-lint as one argument without its quotes; nothing in it is run or
/// expanded; an unmatched quote fails the step (exit 2) instead of passing a literal quote.
#[test]
fn the_args_input_is_split_like_a_shell_without_running_it() {
    if !tool("bash", "--version") || !tool("xargs", "--version") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("ran");
    let run = |args: &str, name: &str| {
        let github_output = tmp.path().join(format!("{name}.output"));
        let out = Command::new("bash")
            .arg(workspace().join(".github/action/run.sh"))
            .current_dir(workspace())
            .env("PATH", path_with_hpa_lint())
            .env("INPUT_PATHS", "examples/manifests")
            .env("INPUT_SARIF", "")
            .env("INPUT_ARGS", args)
            .env("GITHUB_OUTPUT", &github_output)
            .output()
            .unwrap();
        (out.status.code(), output(&outputs(&github_output), "exit-code").map(String::from), text(&out))
    };
    // Without the exclusion examples/manifests/bad has findings: exit-code 1.
    let (status, verdict, log) = run("--no-config", "plain");
    assert_eq!((status, verdict.as_deref()), (Some(0), Some("1")), "{log}");
    let touch = format!("$(touch {})", marker.display());
    for (name, args) in [
        ("single", "--no-config --exclude '**/bad/**'".to_string()),
        ("double", "--no-config --exclude \"**/bad/**\" --select 'all'".to_string()),
        ("backslash", "--no-config --exclude \\*\\*/bad/\\*\\*".to_string()),
        ("lines", "--no-config\n--exclude '**/bad/**'\n".to_string()),
        (
            "no-eval",
            format!("--no-config --exclude '{touch}' --exclude \"`touch {}`\" --exclude '**/bad/**'", marker.display()),
        ),
    ] {
        let (status, verdict, log) = run(&args, name);
        assert_eq!((status, verdict.as_deref()), (Some(0), Some("0")), "{name}: {args}: {log}");
    }
    assert!(!marker.exists(), "the args input was evaluated");
    let (status, _, log) = run("--exclude 'a b", "unmatched");
    assert_eq!(status, Some(2), "{log}");
    assert!(log.contains("the args input does not split into words"), "{log}");
}

/// The `paths` input is split as `args` is: a quoted path keeps its spaces, and a glob or a
/// `$VAR` reaches hpa-lint as written (nothing expands it: a path that does not exist is
/// hpa-lint's usage error, exit 2); an unmatched quote fails the step.
#[test]
fn the_paths_input_keeps_spaces_and_globs_literal() {
    if !tool("bash", "--version") || !tool("xargs", "--version") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let spaced = tmp.path().join("a dir");
    std::fs::create_dir_all(&spaced).unwrap();
    for entry in std::fs::read_dir(workspace().join("examples/manifests/bad")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), spaced.join(entry.file_name())).unwrap();
    }
    let run = |paths: &str, name: &str| {
        let github_output = tmp.path().join(format!("{name}.output"));
        let out = Command::new("bash")
            .arg(workspace().join(".github/action/run.sh"))
            .current_dir(tmp.path())
            .env("PATH", path_with_hpa_lint())
            .env("INPUT_PATHS", paths)
            .env("INPUT_SARIF", "")
            .env("INPUT_ARGS", "--no-config")
            .env("GITHUB_OUTPUT", &github_output)
            .output()
            .unwrap();
        (out.status.code(), output(&outputs(&github_output), "exit-code").map(String::from), text(&out))
    };
    for (name, paths) in [("single", "'a dir'"), ("double", "\"a dir\" 'a dir'"), ("backslash", "a\\ dir\n")] {
        let (status, verdict, log) = run(paths, name);
        assert_eq!((status, verdict.as_deref()), (Some(0), Some("1")), "{name}: {paths}: {log}");
        assert!(log.contains("::error file=a dir/"), "{name}: {log}");
    }
    // A path that starts with `-` is a path, not an option of hpa-lint.
    std::fs::copy(workspace().join("examples/manifests/bad/targets.yaml"), tmp.path().join("-x.yaml")).unwrap();
    let (status, verdict, log) = run("-x.yaml", "dash");
    assert_eq!((status, verdict.as_deref()), (Some(0), Some("1")), "{log}");
    assert!(log.contains("::error file=-x.yaml,"), "{log}");
    // Unquoted, the path is two words, neither of which exists.
    for (name, paths) in [("split", "a dir"), ("glob", "a*"), ("variable", "$HOME")] {
        let (status, _, log) = run(paths, name);
        assert_eq!(status, Some(2), "{name}: {paths}: {log}");
    }
    let (status, _, log) = run("'a dir", "unmatched");
    assert_eq!(status, Some(2), "{log}");
    assert!(log.contains("the paths input does not split into words"), "{log}");
}

/// The action's scripts (and the kind e2e's), the benchmarks' and fuzzing's scripts, the
/// pre-commit hook's entry and `.ci/run` pass
/// shellcheck, each as the shell its shebang names (actionlint runs it on the workflows' `run:`
/// scripts too, when it is installed: `.ci/run` installs it). A comment line that starts with
/// `# shellcheck` is read as a directive: one that is none stops the check of the whole file
/// (SC1073), so such a file must fail here rather than pass unchecked.
#[test]
fn the_ci_and_action_scripts_pass_shellcheck() {
    if !tool("shellcheck", "--version") {
        return;
    }
    let bench_dirs = std::fs::read_dir(workspace().join("bench")).unwrap().map(|e| e.unwrap().path());
    let dirs = [".github/action", ".github/e2e", "fuzz"].map(|d| workspace().join(d)).into_iter().chain(bench_dirs);
    let mut scripts: Vec<PathBuf> = dirs
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sh"))
        .collect();
    assert!(scripts.len() >= 11, "{scripts:?}");
    scripts.extend([".ci/run", "lint/pre-commit.sh"].map(|s| workspace().join(s)));
    let out = Command::new("shellcheck")
        .current_dir(workspace())
        .args(["--severity=style", "--format=gcc", "--external-sources"])
        .args(&scripts)
        .output()
        .unwrap();
    assert!(out.status.success(), "shellcheck:\n{}", text(&out));
}

// === install.sh ===

/// Serves the files of `dir` over HTTP on loopback (404 for anything else), until the test ends;
/// a file `<path>.redirect` answers `<path>` with a 302 to the location it holds (as GitHub
/// answers `releases/latest`).
fn serve(dir: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            let file = dir.join(&path);
            let redirect = std::fs::read_to_string(dir.join(format!("{path}.redirect")));
            let response = match std::fs::read(&file) {
                _ if redirect.is_ok() && !path.contains("..") => format!(
                    "HTTP/1.1 302 Found\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    redirect.unwrap().trim()
                )
                .into_bytes(),
                Ok(body) if !path.contains("..") => {
                    let mut r =
                        format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())
                            .into_bytes();
                    r.extend(body);
                    r
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    format!("http://{addr}/releases")
}

const TARGETS: [&str; 4] =
    ["x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl", "x86_64-apple-darwin", "aarch64-apple-darwin"];

/// Release assets as the release workflow names them: `hpa-lint-<target>.tar.gz` and its
/// `.sha256` (`shasum -a 256` output), under `download/<tag>/`.
fn publish_release(root: &Path, tag: &str, checksum_of: Option<&[u8]>) {
    let dir = root.join("releases/download").join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    // The archived `hpa-lint` runs the binary under test (a wrapper, so that archiving stays
    // fast: the debug binary is over 100 MB).
    let staging = tempfile::tempdir().unwrap();
    let wrapper = staging.path().join("hpa-lint");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_hpa-lint"))).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for target in TARGETS {
        let archive = dir.join(format!("hpa-lint-{target}.tar.gz"));
        let out = Command::new("tar")
            .arg("-czf")
            .arg(&archive)
            .arg("-C")
            .arg(staging.path())
            .arg("hpa-lint")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let summed = match checksum_of {
            Some(other) => {
                let other_file = staging.path().join("other");
                std::fs::write(&other_file, other).unwrap();
                other_file
            }
            None => archive.clone(),
        };
        let out = Command::new("sha256sum").arg(&summed).output().unwrap();
        let hash = String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string();
        std::fs::write(
            dir.join(format!("hpa-lint-{target}.tar.gz.sha256")),
            format!("{hash}  hpa-lint-{target}.tar.gz\n"),
        )
        .unwrap();
    }
}

#[test]
fn the_install_script_verifies_the_release_checksum_and_falls_back_to_cargo() {
    if !tool("bash", "--version") || !tool("curl", "--version") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    publish_release(root.path(), "v0.1.0", None);
    publish_release(root.path(), "v0.0.9", Some(b"not the archive"));
    let base = serve(root.path().to_path_buf());
    let install = |tag: &str, name: &str, extra: &[(&str, &str)]| {
        let dir = root.path().join("installed").join(name);
        let github_path = root.path().join(format!("{name}.path"));
        let github_output = root.path().join(format!("{name}.output"));
        let mut cmd = Command::new("bash");
        cmd.arg(workspace().join(".github/action/install.sh"))
            .env("HPA_LINT_VERSION", tag)
            .env("HPA_LINT_DOWNLOAD_URL", &base)
            .env("HPA_LINT_REPOSITORY", "https://example.invalid/hpa-toolkit")
            .env("HPA_LINT_INSTALL_DIR", &dir)
            .env("GITHUB_PATH", &github_path)
            .env("GITHUB_OUTPUT", &github_output);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (out, dir, std::fs::read_to_string(&github_path).unwrap_or_default(), outputs(&github_output))
    };

    // A release with a matching checksum: installed, on PATH, and it runs.
    let (out, dir, github_path, outs) = install("v0.1.0", "ok", &[("HPA_LINT_FALLBACK", "never")]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("verified"), "{}", text(&out));
    assert_eq!(github_path.trim(), dir.to_str().unwrap());
    assert_eq!(output(&outs, "path").map(PathBuf::from), Some(dir.join("hpa-lint")));
    let version = Command::new(dir.join("hpa-lint")).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")));

    // A checksum that does not match: refused, nothing installed, and no fallback either.
    let (out, dir, _, _) = install("v0.0.9", "tampered", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("checksum mismatch"), "{}", text(&out));
    assert!(!dir.join("hpa-lint").exists());

    // No release binary: `cargo install --locked --git` of the same tag (a stand-in cargo
    // records its arguments and installs the binary where cargo would).
    let fake_cargo = root.path().join("cargo");
    let log = root.path().join("cargo.log");
    std::fs::write(
        &fake_cargo,
        format!(
            "#!/usr/bin/env bash\necho \"$@\" > {log}\nwhile [ \"$1\" != --root ]; do shift; done\nmkdir -p \"$2/bin\"\ncp {bin} \"$2/bin/hpa-lint\"\n",
            log = log.display(),
            bin = env!("CARGO_BIN_EXE_hpa-lint")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake_cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (out, dir, _, _) = install("v9.9.9", "fallback", &[("HPA_LINT_CARGO", fake_cargo.to_str().unwrap())]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("no release binary"), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().trim(),
        format!(
            "install --locked --git https://example.invalid/hpa-toolkit --tag v9.9.9 --root {}/cargo hpa-lint",
            dir.display()
        )
    );
    assert!(dir.join("hpa-lint").exists());

    // No release binary and no fallback: a clear failure.
    let (out, _, _, _) = install("v9.9.9", "never", &[("HPA_LINT_FALLBACK", "never")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("HPA_LINT_FALLBACK=never"), "{}", text(&out));

    // `latest` is resolved to its tag first (GitHub's redirect): that tag's binary is installed,
    // in that tag's cache directory.
    let latest = root.path().join("releases/latest.redirect");
    std::fs::create_dir_all(root.path().join("releases/tag")).unwrap();
    for tag in ["v0.1.0", "v9.9.9"] {
        std::fs::write(root.path().join("releases/tag").join(tag), tag).unwrap();
    }
    std::fs::write(&latest, "/releases/tag/v0.1.0").unwrap();
    let (out, dir, _, _) = install("latest", "latest", &[("HPA_LINT_FALLBACK", "never")]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("hpa-lint: latest is v0.1.0") && text(&out).contains("verified"), "{}", text(&out));
    assert!(dir.join("hpa-lint").exists());
    // The fallback of `latest` builds its tag, never the default branch's HEAD.
    std::fs::write(&latest, "/releases/tag/v9.9.9").unwrap();
    std::fs::remove_file(&log).unwrap();
    let (out, dir, _, _) = install("latest", "latest-fallback", &[("HPA_LINT_CARGO", fake_cargo.to_str().unwrap())]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().trim(),
        format!(
            "install --locked --git https://example.invalid/hpa-toolkit --tag v9.9.9 --root {}/cargo hpa-lint",
            dir.display()
        )
    );
    // `latest` that cannot be resolved fails; nothing is built.
    std::fs::remove_file(&latest).unwrap();
    std::fs::remove_file(&log).unwrap();
    let (out, _, _, _) = install("latest", "unresolved", &[("HPA_LINT_CARGO", fake_cargo.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("cannot resolve the latest release"), "{}", text(&out));
    assert!(!log.exists(), "no build without a tag");

    // No version input: the tag the action is used at; pinned by SHA, the latest release with a
    // warning that says to set `version:`.
    std::fs::write(&latest, "/releases/tag/v0.1.0").unwrap();
    let (out, _, _, _) = install("", "at-tag", &[("HPA_LINT_ACTION_REF", "v0.1.0"), ("HPA_LINT_FALLBACK", "never")]);
    assert!(out.status.success() && !text(&out).contains("latest is"), "{}", text(&out));
    let sha = "0123456789abcdef0123456789abcdef01234567";
    let (out, _, _, _) = install("", "at-sha", &[("HPA_LINT_ACTION_REF", sha), ("HPA_LINT_FALLBACK", "never")]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&format!("::warning title=hpa-lint::the action is pinned by commit ({sha})")));
    assert!(text(&out).contains("hpa-lint: latest is v0.1.0"), "{}", text(&out));

    // A Windows runner is refused at once, saying where to run instead (it built for minutes
    // with cargo, then failed on `hpa-lint.exe`, before).
    let windows = [("RUNNER_OS", "Windows"), ("HPA_LINT_CARGO", fake_cargo.to_str().unwrap())];
    let (out, dir, _, _) = install("v0.1.0", "windows", &windows);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "::error title=hpa-lint::Windows runners are not supported (no Windows binary is released); run this job on ubuntu-latest or macos-latest: the manifests lint the same\n"
    );
    assert!(!dir.exists() && !log.exists(), "nothing downloaded, built or installed");

    // A version that is not a tag is a usage error.
    let (out, _, _, _) = install("main; rm -rf /", "bad-version", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

// === workflows ===

#[test]
fn the_workflows_pass_actionlint() {
    if !tool("actionlint", "--version") {
        return;
    }
    let out = Command::new("actionlint").args(["-color=false", "-oneline"]).current_dir(workspace()).output().unwrap();
    assert!(out.status.success(), "actionlint:\n{}", text(&out));
    let workflows = workspace().join(".github/workflows");
    let ci = std::fs::read_to_string(workflows.join("ci.yaml")).unwrap();
    assert!(ci.contains("run: bash .ci/run"), "CI runs .ci/run");
    let release = std::fs::read_to_string(workflows.join("release.yaml")).unwrap();
    for target in TARGETS {
        assert!(release.contains(target), "release builds {target}");
    }
    assert!(release.contains("shasum -a 256") && release.contains("SHA256SUMS"), "release publishes checksums");
    assert!(release.contains("docker/build-push-action@"), "release builds the image");
}

/// The release pushes the Helm chart where README's "Install" and the chart's README install it
/// from (`oci://ghcr.io/<owner>/charts/hpa-webhook`, beside the image the chart deploys), at the
/// version of `Chart.yaml`, and attaches it with its checksum.
#[test]
fn the_release_publishes_the_chart_the_readme_installs() {
    let read = |path: &str| std::fs::read_to_string(workspace().join(path)).unwrap();
    let release = read(".github/workflows/release.yaml");
    assert!(release.contains("helm package charts/hpa-webhook --destination dist"), "{release}");
    assert!(release.contains("helm push \"dist/$archive\" \"oci://ghcr.io/${GITHUB_REPOSITORY_OWNER,,}/charts\""));
    assert!(release.contains("archive=\"hpa-webhook-${TAG#v}.tgz\"") && release.contains("name: chart"));
    assert!(release.contains("needs: [binaries, chart]"), "the GitHub release attaches the chart");
    let chart = read("charts/hpa-webhook/Chart.yaml");
    let version = chart.lines().find_map(|l| l.strip_prefix("version: ")).unwrap().trim();
    let values = read("charts/hpa-webhook/values.yaml");
    assert!(values.contains("  repository: ghcr.io/hpa-toolkit/hpa-webhook\n"), "the image beside the chart");
    let install =
        format!("helm install hpa-webhook oci://ghcr.io/hpa-toolkit/charts/hpa-webhook --version {version} \\\n");
    for readme in ["README.md", "charts/hpa-webhook/README.md"] {
        assert!(read(readme).contains(&install), "{readme}: {install}");
    }
}

/// The tools `.ci/run` installs with pip are the ones README's "Development" tells a developer
/// to install, at the same versions: with `HPA_REQUIRE_TOOLS=1` a missing one fails its tests
/// (shellcheck the script test above), so a README that leaves one out sends developers to a
/// failure CI does not have.
#[test]
fn the_readme_installs_the_tools_ci_installs() {
    let pins = |text: &str| -> BTreeSet<String> {
        // A command continued on the next line (`\` at the end) is one line.
        text.replace("\\\n", " ")
            .lines()
            .filter(|line| line.trim_start().starts_with("python3 -m pip install"))
            .flat_map(|line| line.split_whitespace().map(|w| w.trim_matches('\'').to_string()).collect::<Vec<_>>())
            .filter(|word| word.contains("=="))
            .collect()
    };
    let ci = pins(&std::fs::read_to_string(workspace().join(".ci/run")).unwrap());
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let development = readme.split("\n## Development\n").nth(1).unwrap().split("\n## ").next().unwrap();
    let documented = pins(development);
    assert!(ci.len() >= 5, "{ci:?}");
    assert_eq!(ci, documented, "README.md, \"Development\", installs other tools than .ci/run");
}
