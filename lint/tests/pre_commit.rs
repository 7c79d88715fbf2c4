//! The pre-commit hook definition (`.pre-commit-hooks.yaml`), run by the real `pre-commit`
//! (from PyPI) against a temporary git repository. Skipped when `pre-commit` or `git` is not
//! installed, unless `HPA_REQUIRE_TOOLS` requires the tools (`hpa_test_tools`; CI sets it, so
//! there it always runs).

// Helpers outside `#[test]` functions are test code too (clippy.toml allows these in tests).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tool(name: &str) -> Option<PathBuf> {
    hpa_test_tools::tool(name, &["--version"]).then(|| PathBuf::from(name))
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

const BAD: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 4
  maxReplicas: 4
";

const GOOD: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 8
";

/// A Helm template: no YAML (`{{- with ...}}` at the start of a line is a flow mapping).
const HELM_TEMPLATE: &str = "\
{{- if .Values.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include \"chart.fullname\" . }}
spec:
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
{{- end }}
";

/// JSON with comments and a trailing comma (`tsconfig.json`, `.vscode/settings.json`,
/// `.devcontainer/devcontainer.json`): no JSON kubectl reads, and no manifest.
const JSONC: &str = "{\n  // TypeScript allows comments\n  \"compilerOptions\": {\"strict\": true},\n}\n";

/// YAML with Jinja templating (an Ansible variables template): no YAML, and no manifest.
const JINJA: &str = "name: {{ app_name }}\n{% if debug %}\ndebug: true\n{% endif %}\n";

/// The cargo-building hook's entry without cargo on PATH says what to install or use instead
/// (it was sh's bare `cargo: not found`, status 127).
#[test]
fn the_hook_without_cargo_says_what_to_do() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("pre-commit.sh");
    let empty = tempfile::tempdir().unwrap();
    let out = run(Command::new("/bin/sh").arg(&script).arg("x.yaml").env("PATH", empty.path()));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hpa-lint: the hpa-lint hook builds hpa-lint with cargo, which is not on PATH: install Rust (https://rustup.rs), or use the hook hpa-lint-system with a release binary of hpa-lint on PATH\n"
    );
}

#[test]
fn the_hook_runs_under_pre_commit() {
    let (Some(pre_commit), Some(git)) = (tool("pre-commit"), tool("git")) else { return };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    if !workspace.join(".git").exists() {
        hpa_test_tools::missing("a git checkout of the workspace");
        return;
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_hpa-lint"));
    let path = std::env::join_paths(
        std::iter::once(bin.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let repo = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let git_in = |args: &[&str]| {
        let out = run(Command::new(&git).args(args).current_dir(repo.path()));
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
    };
    git_in(&["init", "-q"]);
    git_in(&["config", "user.email", "ci@example.com"]);
    git_in(&["config", "user.name", "CI"]);
    std::fs::create_dir(repo.path().join("k8s")).unwrap();
    std::fs::write(repo.path().join("k8s/bad.yaml"), BAD).unwrap();
    std::fs::write(repo.path().join("k8s/good.yaml"), GOOD).unwrap();
    std::fs::write(repo.path().join("README.md"), "not linted\n").unwrap();
    // A Helm chart: its templates are not manifests (hpa-lint leaves them out, with a note).
    std::fs::create_dir_all(repo.path().join("chart/templates")).unwrap();
    std::fs::write(repo.path().join("chart/Chart.yaml"), "apiVersion: v2\nname: chart\nversion: 0.1.0\n").unwrap();
    std::fs::write(repo.path().join("chart/templates/hpa.yaml"), HELM_TEMPLATE).unwrap();
    // Files the hook's `files:` pattern matches that are no manifest and do not parse.
    for (file, contents) in [
        ("tsconfig.json", JSONC),
        (".vscode/settings.json", JSONC),
        (".devcontainer/devcontainer.json", JSONC),
        ("ansible/vars.yaml", JINJA),
    ] {
        std::fs::create_dir_all(repo.path().join(file).parent().unwrap()).unwrap();
        std::fs::write(repo.path().join(file), contents).unwrap();
    }
    git_in(&["add", "."]);
    let try_repo = |files: &[&str]| {
        let mut cmd = Command::new(&pre_commit);
        cmd.args(["try-repo", workspace.to_str().unwrap(), "hpa-lint-system", "--verbose"])
            .args(files)
            .current_dir(repo.path())
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", home.path())
            .env("NO_COLOR", "1");
        run(&mut cmd)
    };

    let clean = try_repo(&["--files", "k8s/good.yaml", "README.md"]);
    assert!(clean.status.success(), "{}", text(&clean));
    assert!(text(&clean).contains("0 errors, 0 warnings"), "{}", text(&clean));

    let chart = try_repo(&["--files", "k8s/good.yaml", "chart/Chart.yaml", "chart/templates/hpa.yaml"]);
    assert!(chart.status.success(), "{}", text(&chart));
    assert!(
        text(&chart).contains("chart/templates: skipped: Helm chart templates are not manifests"),
        "{}",
        text(&chart)
    );

    // They pass, each skipped with a note (a file that names apiVersion or kind and does not
    // parse is still an error: the malformed corpus tests).
    let others = ["tsconfig.json", ".vscode/settings.json", ".devcontainer/devcontainer.json", "ansible/vars.yaml"];
    let skipped = try_repo(&[&["--files", "k8s/good.yaml"][..], &others[..]].concat());
    let out = text(&skipped);
    assert!(skipped.status.success(), "{out}");
    assert!(out.contains("0 errors, 0 warnings, 0 infos in 1 HorizontalPodAutoscaler (1 object)"), "{out}");
    for file in others {
        assert!(
            out.contains(&format!("note: {file}: skipped: not YAML or JSON kubectl reads")),
            "{file} is skipped with a note: {out}"
        );
    }
    assert!(
        out.contains("note: tsconfig.json: skipped: not YAML or JSON kubectl reads (2:3: json: offset 5: invalid character '/' looking for beginning of object key string), and it names neither apiVersion nor kind, so it holds no Kubernetes object"),
        "{out}"
    );

    let dirty = try_repo(&["--all-files"]);
    assert_eq!(dirty.status.code(), Some(1), "{}", text(&dirty));
    let out = text(&dirty);
    assert!(out.contains("HPA101") && out.contains("k8s/bad.yaml:7:16"), "{out}");
    assert!(!out.contains("HPA000"), "{out}");
    assert!(!out.contains("README.md"), "only YAML and JSON files are passed: {out}");
    assert!(!out.contains("chart/templates/hpa.yaml"), "{out}");
}
