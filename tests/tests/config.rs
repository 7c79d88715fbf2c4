//! Every `hpa-lint` command reads `.hpa-lint.yaml` the same way (`commands::settings::settings`):
//! the configuration applies, `--no-config` ignores it, a flag wins over it, and a broken file
//! is a usage error (exit 2) that names `file:line:column`. `lint`, `validate` and `explain`
//! have theirs in lint_cli.rs and explain.rs; here are `default`, `convert`, `simulate` and
//! `diagnose`.

use std::path::Path;

use hpa_tests::cli::{CapturedRun, hpa_lint};
use serde_json::Value;

/// [`hpa_tests::VALID_HPA`] with a condition's `observedGeneration`, a field of 1.37 (unknown
/// to 1.36's strict decoding).
fn with_1_37_field() -> String {
    format!(
        "{}status:\n  desiredReplicas: 1\n  conditions:\n  - {{type: AbleToScale, status: \"True\", observedGeneration: 4}}\n",
        hpa_tests::VALID_HPA
    )
}

/// An HPA that scales to zero (gate HPAScaleToZero: off in 1.36, on in 1.37), as a scenario.
const SCALE_TO_ZERO_SCENARIO: &str = "hpaObject:
  apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: q}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: q}
    minReplicas: 0
    maxReplicas: 5
    metrics:
      - type: External
        external: {metric: {name: q}, target: {type: Value, value: \"1\"}}
replicas: 1
podTemplate:
  containers: [{name: q}]
duration: 1m
load:
  - at: 0s
    metrics: {q: {value: 1}}
";

/// Writes `text` to `name` in `dir` and returns its path.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A configuration naming a release that does not exist, on line 1 column 20, and one whose
/// controller tolerance is negative, on line 1 column 25: each must fail the run with its place.
fn assert_broken_configurations_fail(dir: &tempfile::TempDir, run: impl Fn(&str) -> CapturedRun) {
    let version = write(dir, "version.yaml", "kubernetesVersion: \"1.20\"\n");
    let r = run(&version);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{version}:1:20: ")), "names file:line:col: {}", r.stderr);
    // A gate every modelled release refuses (removed in 1.32): a name that merely concerns no
    // HPA is accepted with a warning, as kube-apiserver accepts the gates it has.
    let gates = write(dir, "gates.yaml", "featureGates:\n  HPAContainerMetrics: true\n");
    let r = run(&gates);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{gates}:2:3: featureGates: ")), "names file:line:col: {}", r.stderr);
    let syntax = write(dir, "syntax.yaml", "kubernetesVersion: [\n");
    let r = run(&syntax);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{syntax}:")), "names the file: {}", r.stderr);
}

#[test]
fn default_reads_the_release_of_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(&dir, "old.yaml", "kubernetesVersion: \"1.36\"\n");
    let hpa = with_1_37_field();
    let default = |extra: &[&str]| hpa_lint(&[&["default"], extra, &["-"]].concat(), &hpa);
    let r = default(&["--config", &old]);
    assert_eq!(r.code, 1, "1.36 does not know the field: {}", r.stderr);
    assert!(r.stderr.contains("observedGeneration"), "{}", r.stderr);
    let r = default(&["--no-config", "--kubernetes-version", "1.36"]);
    assert_eq!(r.code, 1, "the flag applies (default used to decode as 1.37 whatever it said)");
    let r = default(&["--config", &old, "--kubernetes-version", "1.37"]);
    assert_eq!(r.code, 0, "the flag wins: {}", r.stderr);
    assert!(r.stdout.contains("observedGeneration: 4"), "{}", r.stdout);
    assert_eq!(default(&["--no-config"]).code, 0);
    assert_broken_configurations_fail(&dir, |config| default(&["--config", config]));
}

#[test]
fn convert_reads_the_release_of_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(&dir, "old.yaml", "kubernetesVersion: \"1.36\"\n");
    let hpa = with_1_37_field();
    let convert = |extra: &[&str]| hpa_lint(&[&["convert", "--to", "autoscaling/v2"], extra, &["-"]].concat(), &hpa);
    let r = convert(&["--config", &old]);
    assert_eq!(r.code, 1, "1.36 does not know the field: {}", r.stderr);
    let r = convert(&["--config", &old, "--kubernetes-version", "1.37"]);
    assert_eq!(r.code, 0, "the flag wins: {}", r.stderr);
    assert_eq!(convert(&["--no-config"]).code, 0);
    assert_broken_configurations_fail(&dir, |config| convert(&["--config", config]));
}

/// The `at` of the second sync of a `simulate -o json` run: the sync period.
fn sync_period(run: &CapturedRun) -> Value {
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()["steps"][1]["at"].clone()
}

#[test]
fn simulate_reads_the_release_gates_and_controller_of_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write(&dir, "scenario.yaml", SCALE_TO_ZERO_SCENARIO);
    let with_own = write(&dir, "own.yaml", &format!("{SCALE_TO_ZERO_SCENARIO}controller: {{syncPeriodSeconds: 20}}\n"));
    let old = write(&dir, "old.yaml", "kubernetesVersion: \"1.36\"\n");
    let gate_off = write(&dir, "gate.yaml", "featureGates: {HPAScaleToZero: false}\n");
    let slow = write(&dir, "slow.yaml", "controller:\n  syncPeriodSeconds: 30\n");
    let simulate = |extra: &[&str], file: &str| hpa_lint(&[&["simulate", "-o", "json"], extra, &[file]].concat(), "");

    let r = simulate(&["--config", &old], &scenario);
    assert_eq!(r.code, 1, "kubernetesVersion applies: {}", r.stderr);
    assert!(r.stderr.contains("invalid HPA"), "{}", r.stderr);
    assert_eq!(simulate(&["--config", &gate_off], &scenario).code, 1, "featureGates apply");
    assert_eq!(sync_period(&simulate(&["--config", &old, "--kubernetes-version", "1.37"], &scenario)), 15);
    assert_eq!(sync_period(&simulate(&["--no-config"], &scenario)), 15);

    assert_eq!(sync_period(&simulate(&["--config", &slow], &scenario)), 30, "controller: applies");
    assert_eq!(sync_period(&simulate(&["--config", &slow], &with_own)), 20, "the scenario's controller: wins");
    assert_eq!(sync_period(&simulate(&["--config", &slow, "--sync-period", "45"], &with_own)), 45, "the flag wins");
    assert_eq!(sync_period(&simulate(&["--no-config"], &with_own)), 20);

    assert_broken_configurations_fail(&dir, |config| simulate(&["--config", config], &scenario));
    let tolerance = write(&dir, "tolerance.yaml", "controller: {tolerance: -1}\n");
    let r = simulate(&["--config", &tolerance], &scenario);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{tolerance}:1:25: controller.tolerance -1")), "{}", r.stderr);
}

fn diagnose_data(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/diagnose/published-1.23").join(file).display().to_string()
}

#[test]
fn diagnose_reads_the_release_and_controller_of_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let (objects, metrics) = (diagnose_data("objects.yaml"), diagnose_data("pod-metrics.json"));
    let diagnose = |extra: &[&str]| {
        hpa_lint(&[&["diagnose", "-o", "json"], extra, &["--snapshot", &objects, &metrics, "php-apache"]].concat(), "")
    };
    let period = |r: &CapturedRun| {
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.json()["forecast"]["syncPeriodSeconds"].clone()
    };
    let slow = write(&dir, "slow.yaml", "kubernetesVersion: \"1.33\"\ncontroller:\n  syncPeriodSeconds: 30\n");
    assert_eq!(period(&diagnose(&["--no-config"])), 15);
    assert_eq!(period(&diagnose(&["--config", &slow])), 30, "controller: applies");
    assert_eq!(period(&diagnose(&["--config", &slow, "--sync-period", "45"])), 45, "the flag wins");
    // The release: HPAConfigurableTolerance is GA and locked on in 1.37, not yet in 1.33.
    let r = diagnose(&["--config", &slow, "--feature-gates", "HPAConfigurableTolerance=false"]);
    assert_eq!(r.code, 0, "kubernetesVersion applies: {}", r.stderr);
    let r = diagnose(&["--no-config", "--feature-gates", "HPAConfigurableTolerance=false"]);
    assert_eq!(r.code, 2, "{}", r.stderr);

    assert_broken_configurations_fail(&dir, |config| diagnose(&["--config", config]));
    let tolerance = write(&dir, "tolerance.yaml", "controller: {tolerance: -1}\n");
    let r = diagnose(&["--config", &tolerance]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{tolerance}:1:25: controller.tolerance -1")), "{}", r.stderr);
}

/// A controller duration longer than a Go `time.Duration` holds (2^63-1 ns, 9,223,372,036 s)
/// is a usage error from every source, as kube-controller-manager refuses such a flag
/// (`time: invalid duration`): it was taken, and `explain` printed syncs of 2^63-1 seconds.
#[test]
fn controller_durations_past_go_time_duration_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let hpa = write(&dir, "hpa.yaml", &with_1_37_field());
    let too_long = "longer than kube-controller-manager's flag holds (a Go time.Duration: at most 9223372036s)";

    let r = hpa_lint(&["explain", "--no-config", "--sync-period", "9223372036", &hpa], "");
    assert_eq!(r.code, 0, "the longest it holds is taken: {}", r.stderr);
    let r = hpa_lint(&["explain", "--no-config", "--sync-period", "9223372037", &hpa], "");
    assert_eq!(
        (r.code, r.stderr.trim_end()),
        (2, format!("hpa-lint: error: --sync-period 9223372037s: {too_long}").as_str())
    );
    let r = hpa_lint(&["explain", "--no-config", "--downscale-stabilization", "18446744073709551615", &hpa], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("--downscale-stabilization 18446744073709551615s: {too_long}")), "{}", r.stderr);

    let config = write(&dir, "long.yaml", "controller: {syncPeriodSeconds: 18446744073709551615}\n");
    let r = hpa_lint(&["explain", "--config", &config, &hpa], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{config}:1:33: controller.syncPeriodSeconds 18446744073709551615s: {too_long}")),
        "{}",
        r.stderr
    );

    // A scenario's `controller:` is the same section, refused where the value is written.
    let scenario = write(
        &dir,
        "scenario.yaml",
        &format!("{SCALE_TO_ZERO_SCENARIO}controller: {{syncPeriodSeconds: 9223372037}}\n"),
    );
    let r = hpa_lint(&["simulate", "--no-config", &scenario], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let at = format!("{scenario}:19:33: controller.syncPeriodSeconds 9223372037s: {too_long}");
    assert!(r.stderr.contains(&at), "{}", r.stderr);
}

/// A configuration file that is not UTF-8 is refused in the words the webhook's `--lint-config`
/// uses for it (one `ConfigError::NotUtf8`), where `hpa-lint` said the file could not be read.
#[test]
fn a_configuration_that_is_not_utf8_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("latin1.yaml");
    std::fs::write(&config, b"rules: {HPA101: off} # \xe9\n").unwrap();
    let config = config.display().to_string();
    let r = hpa_lint(&["--config", &config, "-"], hpa_tests::VALID_HPA);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!("hpa-lint: error: {config}: not UTF-8: invalid utf-8 sequence of 1 bytes from index 23")
    );
}
