//! `hpa-lint simulate`: the observed 1.23 run, the Kubernetes documentation's behavior
//! examples, the JSON shape, scenario errors with positions, and a snapshot of the human output.
//!
//! Paths are relative to the `tests` package, the working directory of integration tests.

use hpa_tests::cli::hpa_lint;
use serde_json::Value;

const EXAMPLES: &str = "../examples/simulate";
const DATA: &str = "data/simulate";

/// Runs `simulate -o json` on a scenario and returns its steps.
fn steps(path: &str) -> Vec<Value> {
    let run = hpa_lint(&["simulate", "-o", "json", path], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    v["steps"].as_array().cloned().unwrap_or_default()
}

/// `(at, replicas, desired)` of every step.
fn path(steps: &[Value]) -> Vec<(i64, i64, i64)> {
    steps
        .iter()
        .map(|s| (s["at"].as_i64().unwrap(), s["replicas"].as_i64().unwrap(), s["desired"].as_i64().unwrap()))
        .collect()
}

#[test]
fn observed_1_23_run_goes_2_4_8_10_on_consecutive_syncs() {
    let s = steps(&format!("{EXAMPLES}/burst-legacy.yaml"));
    let p = path(&s);
    assert_eq!(p[..4], [(0, 2, 4), (15, 4, 8), (30, 8, 10), (45, 10, 10)]);
    assert_eq!(s[0]["metrics"][0]["current"]["averageUtilization"], 2575);
    assert_eq!(s[0]["metrics"][0]["current"]["averageValue"], "515m");
    assert_eq!(s[0]["metrics"][0]["proposal"], 258);
    let limits: Vec<&str> = s[..3].iter().map(|s| s["limit"]["reason"].as_str().unwrap()).collect();
    assert_eq!(limits, ["ScaleUpLimit", "ScaleUpLimit", "TooManyReplicas"]);
    // The second sync scales up with no load: the 258 recommendation is still in the window.
    assert_eq!(s[1]["stabilized"], 258);
    assert!(s[1]["reason"].as_str().unwrap().starts_with("All metrics below target"));
    // Held at 10 while the recommendation is at most 300 s old, then straight to minReplicas.
    assert!(p.iter().filter(|(at, ..)| (45..=300).contains(at)).all(|&(_, r, d)| (r, d) == (10, 10)));
    assert!(p.contains(&(315, 10, 2)));
}

#[test]
fn json_shape_has_one_step_per_sync() {
    let run = hpa_lint(&["simulate", "-o", "json", &format!("{EXAMPLES}/burst-legacy.yaml")], "");
    let v = run.json();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["steps"]);
    let steps = v["steps"].as_array().unwrap();
    // duration 6m, 15 s syncs, the first at 0 s and the last before 6m: 24 syncs.
    assert_eq!(steps.len(), 24);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["at"].as_i64(), Some(15 * i as i64));
        assert!(s["replicas"].is_i64() && s["desired"].is_i64() && s["reason"].is_string(), "{s}");
        if i > 0 {
            assert_eq!(s["replicas"], steps[i - 1]["desired"]);
        }
    }
}

#[test]
fn docs_scale_down_policies_remove_8_of_80_at_the_first_step() {
    let p = path(&steps(&format!("{EXAMPLES}/scale-down-policies.yaml")));
    let downs: Vec<(i64, i64, i64)> = p.iter().copied().filter(|(_, r, d)| d < r).collect();
    assert_eq!(downs.first().map(|&(_, r, d)| (r, d)), Some((80, 72)));
    // The default 300 s window holds the count first; then one step per 60 s period.
    assert_eq!(downs[0].0, 300);
    for w in downs.windows(2) {
        assert!(w[1].0 - w[0].0 >= 60, "{w:?}");
        // The bigger change of 4 pods and 10 % per minute; Percent truncates the new count
        // (float64, as Go computes it).
        let r = w[1].1;
        let percent = (r as f64 * (1.0 - 10.0 / 100.0)) as i64;
        assert_eq!(w[1].2, (r - 4).min(percent), "{w:?}");
    }
}

#[test]
fn docs_select_policy_disabled_never_scales_down() {
    let p = path(&steps(&format!("{EXAMPLES}/disabled-scale-down.yaml")));
    assert!(p.iter().all(|&(_, r, d)| d >= r), "{p:?}");
    assert_eq!(p.last().map(|&(_, _, d)| d), Some(10));
    assert!(p.iter().any(|&(_, r, d)| d > r));
}

#[test]
fn docs_default_behavior_adds_max_of_4_pods_and_100_percent_per_15s() {
    let p = path(&steps(&format!("{EXAMPLES}/default-behavior.yaml")));
    let ups: Vec<(i64, i64, i64)> = p.iter().copied().filter(|(_, r, d)| d > r).collect();
    for &(_, r, d) in &ups {
        assert_eq!(d, (r + 4).max(2 * r).min(100), "{r} → {d}");
    }
    let counts: Vec<i64> = std::iter::once(1).chain(ups.iter().map(|u| u.2)).collect();
    assert_eq!(counts, [1, 5, 10, 20, 40, 80, 100]);
    // On consecutive 15 s syncs.
    let at: Vec<i64> = ups.iter().map(|u| u.0).collect();
    assert_eq!(at, [0, 15, 30, 45, 60, 75]);
}

#[test]
fn pods_and_external_metrics() {
    let s = steps(&format!("{EXAMPLES}/queue-worker.yaml"));
    let p = path(&s);
    // The backlog (400 messages, 30 per replica) asks for 14 replicas; the default scale-up
    // rules get there in three syncs, and the scale-down policy removes 2 pods per 30 s.
    let at_1m = s.iter().find(|s| s["at"] == 60).unwrap();
    assert_eq!(at_1m["metrics"][0]["proposal"], 14);
    assert!(p.iter().any(|&(_, _, d)| d == 14));
    assert_eq!(p.last().map(|&(_, _, d)| d), Some(1));
    // New pods are Pending, then Running but not Ready, and report 0 for the Pods metric.
    let pods = &s.iter().find(|s| s["at"] == 75).unwrap()["pods"];
    assert_eq!((pods["ready"].as_i64(), pods["unready"].as_i64()), (Some(2), Some(4)));
}

/// Runs a failing scenario and returns its error lines.
fn errors(file: &str) -> (u8, Vec<String>) {
    let run = hpa_lint(&["simulate", &format!("{DATA}/{file}")], "");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let lines = run.stderr.lines().map(|l| l.trim_start_matches("hpa-lint: error: ").to_string()).collect();
    (run.code, lines)
}

#[test]
fn scenario_errors_have_file_line_and_column() {
    let cases = [
        (
            "unknown-key.yaml",
            "data/simulate/unknown-key.yaml:10:7: unknown metric key `http_requests_per_sec`; the HPA's metrics are: cpu, http_requests_per_second",
        ),
        (
            "negative-value.yaml",
            "data/simulate/negative-value.yaml:10:42: load[0].metrics.http_requests_per_second.perPod: -5 is negative; loads must not be negative",
        ),
        (
            "out-of-order.yaml",
            "data/simulate/out-of-order.yaml:9:9: load[1].at: load times out of order: 30s is not after the previous entry's 1m",
        ),
        (
            "missing-hpa.yaml",
            "data/simulate/missing-hpa.yaml:2:6: cannot read the HPA file data/simulate/no-such-hpa.yaml: No such file or directory (os error 2)",
        ),
    ];
    for (file, want) in cases {
        let (code, lines) = errors(file);
        assert_eq!(code, 1, "{file}");
        assert_eq!(lines, [want], "{file}");
    }
}

/// A scenario with several values the decoder cannot read: each is reported, at its place,
/// in the order of the file, as `hpa-lint validate` reports every object of a file; the run
/// exits 1 as with one.
#[test]
fn every_undecodable_value_of_a_scenario_is_reported() {
    let (code, lines) = errors("several-bad-values.yaml");
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [
            "data/simulate/several-bad-values.yaml:3:11: replicas: expected a whole number, found the string \"two\"",
            "data/simulate/several-bad-values.yaml:6:11: duration: time: unknown unit \" minutes\" in duration \"5 minutes\"",
            "data/simulate/several-bad-values.yaml:10:20: load[0].metrics.cpu.total: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"lots\"",
            "data/simulate/several-bad-values.yaml:11:42: load[0].metrics.http_requests_per_second.perPod: -5 is negative; loads must not be negative",
            "data/simulate/several-bad-values.yaml:12:9: load[1].at: time: unknown unit \"z\" in duration \"1z\"",
        ]
    );
}

/// Three values the decoder cannot read, in three sections and nested in lists (a container's
/// request, the controller's sync period, a later load's utilization): all three, each at its
/// `file:line:column`, in the order of the file, from one decoding; the same written as JSON.
#[test]
fn three_bad_values_in_yaml_and_json_are_each_reported_in_order() {
    for (file, places) in
        [("three-bad-values.yaml", ["8:37", "11:22", "17:26"]), ("three-bad-values.json", ["7:45", "11:39", "14:54"])]
    {
        let (code, lines) = errors(file);
        assert_eq!(code, 1, "{file}");
        let messages = [
            "podTemplate.containers[1].requests.cpu: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"lots\"",
            "controller.syncPeriodSeconds: expected a whole number of 0 or more, found the string \"15\": write it without quotes",
            "load[1].metrics.cpu.utilization: invalid percentage \"high\": expected a number such as 80",
        ];
        let expected: Vec<String> =
            places.iter().zip(messages).map(|(at, m)| format!("data/simulate/{file}:{at}: {m}")).collect();
        assert_eq!(lines, expected, "{file}");
    }
}

/// Decoding goes on past each value it cannot read rather than stopping at it: an unknown field
/// beside a refused value in one load is reported with it, and every one of 80 refused values
/// is (not the first 30 or so, which is all that masking each value and decoding again found).
#[test]
fn decoding_goes_on_past_every_refused_value() {
    let run = hpa_lint(
        &["simulate", "-"],
        "hpa: web-hpa.yaml\nduration: 1m\nload:\n  - at: 0s\n    metrics: {cpu: {totl: 5, total: lots}}\n",
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "hpa-lint: error: <stdin>:5:21: unknown field `totl` in load[0].metrics.cpu; expected one of: perPod, total, utilization, value",
            "hpa-lint: error: <stdin>:5:37: load[0].metrics.cpu.total: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"lots\"",
        ]
    );
    let mut scenario = String::from("hpa: web-hpa.yaml\nduration: 10m\nload:\n");
    for i in 0..80 {
        scenario.push_str(&format!("  - {{at: {i}s, metrics: {{cpu: {{total: x{i}}}}}}}\n"));
    }
    let run = hpa_lint(&["simulate", "-"], &scenario);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 80);
    assert_eq!(
        lines[79],
        "hpa-lint: error: <stdin>:83:38: load[79].metrics.cpu.total: expected a quantity (a number, or a string such as 500m or 2Gi), found the string \"x79\""
    );
}

/// A duration of more syncs than a simulation keeps (`simulation::MAX_SYNCS`) is refused at its
/// place, with how many syncs it is and the longest duration at this sync period: it ran until
/// it took the machine's memory (each sync is kept, about half a kilobyte).
#[test]
fn a_duration_of_millions_of_syncs_is_refused() {
    let scenario = "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\npodTemplate: {containers: [{name: app, requests: {cpu: 100m}}]}\nduration: 1000000h\n";
    let run = hpa_lint(&["simulate", "-"], scenario);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "hpa-lint: error: <stdin>:4:11: duration: 1000000h is 240000001 syncs every 15s; simulate at most 1000000 syncs (4166h39m45s at this sync period)"
        ]
    );
    // At a sync period of 1 h it is one sync too many.
    let run = hpa_lint(&["simulate", "--sync-period", "3600", "-"], scenario);
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "hpa-lint: error: <stdin>:4:11: duration: 1000000h is 1000001 syncs every 1h; simulate at most 1000000 syncs (999999h at this sync period)"
        ]
    );
}

/// `--sync-period` and `--downscale-stabilization` take what kube-controller-manager's flags
/// take, a duration (`30s`, `1m`), as well as a whole number of seconds; anything else is a usage
/// error that says what to write (it was clap's bare `invalid digit found in string`).
#[test]
fn controller_duration_flags_take_seconds_or_a_duration() {
    let scenario = "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\npodTemplate: {containers: [{name: app, requests: {cpu: 100m}}]}\nduration: 2m\nload: [{at: 0s, metrics: {cpu: {total: 300m}, http_requests_per_second: {perPod: 1}}}]\n";
    let json = |args: &[&str]| {
        let run = hpa_lint(&[&["simulate", "-o", "json"], args, &["-"]].concat(), scenario);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        run.stdout
    };
    let seconds = json(&["--sync-period", "30", "--downscale-stabilization", "60"]);
    assert_eq!(json(&["--sync-period", "30s", "--downscale-stabilization", "1m"]), seconds);
    assert_eq!(json(&["--sync-period=0.5m", "--downscale-stabilization=60000ms"]), seconds);
    let ats: Vec<i64> = serde_json::from_str::<Value>(&seconds).unwrap()["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at"].as_i64().unwrap())
        .collect();
    assert_eq!(ats, [0, 30, 60, 90]);

    let run = hpa_lint(&["simulate", "--sync-period", "15x", "-"], scenario);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.lines().next(),
        Some(
            "error: invalid value '15x' for '--sync-period <SECONDS>': expected a whole number of seconds (15) or a duration as kube-controller-manager takes it (15s, 1m30s, 500ms): time: unknown unit \"x\" in duration \"15x\""
        )
    );
    let run = hpa_lint(&["simulate", "--downscale-stabilization=-5m", "-"], scenario);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr.lines().next(),
        Some(
            "error: invalid value '-5m' for '--downscale-stabilization <SECONDS>': expected a whole number of seconds (15) or a duration as kube-controller-manager takes it (15s, 1m30s, 500ms); a duration must not be negative"
        )
    );
}

/// A sync period below a second is kube-controller-manager's period as it is (its work
/// queue waits exactly that long between two syncs of an HPA: `processNextWorkItem`'s
/// `AddRateLimited`); it was raised to 1 s without a word. A period of 0 (the controller would
/// sync without pause) and a part below a millisecond are refused naming the flag, or the key
/// and its place in `.hpa-lint.yaml`; `explain`, which times whole-second syncs and shows the
/// stabilization window in seconds, refuses a fraction of a second in either rather than round it.
#[test]
fn sub_second_sync_periods_are_honoured_or_refused_by_name() {
    let scenario = "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\npodTemplate: {containers: [{name: app, requests: {cpu: 100m}}]}\nduration: 2s\nload: [{at: 0s, metrics: {cpu: {total: 300m}, http_requests_per_second: {perPod: 1}}}]\n";
    let run = hpa_lint(&["simulate", "--no-config", "-o", "json", "--sync-period", "500ms", "-"], scenario);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ats: Vec<f64> = run.json()["steps"].as_array().unwrap().iter().map(|s| s["at"].as_f64().unwrap()).collect();
    assert_eq!(ats, [0.0, 0.5, 1.0, 1.5]);
    let refused = |args: &[&str], stdin: &str| {
        let run = hpa_lint(args, stdin);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        run.stderr
    };
    let zero = "0s: with a sync period of 0 kube-controller-manager syncs each HPA again as soon as its sync ends, which cannot be replayed sync by sync; give a positive duration (15s is the default)";
    for period in ["0", "0s", "-0"] {
        let err = refused(&["simulate", "--no-config", &format!("--sync-period={period}"), "-"], scenario);
        assert_eq!(err, format!("hpa-lint: error: --sync-period {zero}\n"));
    }
    assert_eq!(
        refused(&["simulate", "--no-config", "--sync-period=1500us", "-"], scenario),
        "hpa-lint: error: --sync-period 1.5ms: not a whole number of milliseconds; simulate, explain and diagnose count the controller's time in milliseconds: write it as 1ms or another whole number of milliseconds\n"
    );
    // Rounded down to 0, it would be refused: the advice is 1ms.
    assert_eq!(
        refused(&["simulate", "--no-config", "--sync-period=1us", "-"], scenario),
        "hpa-lint: error: --sync-period 1µs: not a whole number of milliseconds; simulate, explain and diagnose count the controller's time in milliseconds: write it as 1ms or another whole number of milliseconds\n"
    );
    // A tolerance past a float64 is refused as kube-controller-manager's flag refuses it (it was
    // read as an infinity and said as `inf`).
    assert_eq!(
        refused(&["simulate", "--no-config", "--tolerance=1e400", "-"], scenario).lines().next(),
        Some(
            "error: invalid value '1e400' for '--tolerance <RATIO>': strconv.ParseFloat: parsing \"1e400\": value out of range (kube-controller-manager refuses it; a tolerance is a ratio such as 0.1)"
        )
    );
    // One sync is said as one (it was "1 syncs every 1h from 0s to 0s").
    let run = hpa_lint(&["simulate", "--no-config", "--sync-period=1h", "-"], scenario);
    assert_eq!(
        run.stdout.lines().nth(1),
        Some("  1 sync at 0s (every 1h); new pods turn Ready 0s after creation; legacy rules (no spec.behavior)")
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hpa-lint.yaml");
    std::fs::write(&config, "controller:\n  syncPeriodSeconds: 0\n").unwrap();
    let config = config.to_str().unwrap();
    assert_eq!(
        refused(&["simulate", "--config", config, "-"], scenario),
        format!("hpa-lint: error: {config}:2:22: controller.syncPeriodSeconds {zero}\n")
    );
    assert_eq!(
        refused(&["explain", "--no-config", "--sync-period", "1500ms", "data/simulate/web-hpa.yaml"], ""),
        "hpa-lint: error: --sync-period 1.5s: explain times scale-ups in whole-second syncs; give a whole number of seconds, or run `hpa-lint simulate`, which honours it to the millisecond\n"
    );
    assert_eq!(
        refused(&["explain", "--no-config", "--downscale-stabilization", "1500ms", "data/simulate/web-hpa.yaml"], ""),
        "hpa-lint: error: --downscale-stabilization 1.5s: explain gives the stabilization window in whole seconds; give a whole number of seconds, or run `hpa-lint simulate`, which honours it to the millisecond\n"
    );
}

/// Values a scenario cannot mean are refused at their place, saying what to write: a `.nan` or
/// `.inf` (kubectl's bare `json: unsupported value: -Inf` before), a load key written without a
/// value (`give one of perPod, total, utilization or value` at the mapping before), a load
/// entry no sync reads (left out without a word before), a value past an int64 of milli-units,
/// or a utilization making one (read as 0 % or a negative utilization before).
#[test]
fn values_a_scenario_cannot_mean_say_what_to_write() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "non-finite.yaml",
            &[
                "data/simulate/non-finite.yaml:9:43: load[0].metrics.cpu.utilization: -.Inf is not a number a scenario can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a percentage such as 80",
            ],
        ),
        (
            "empty-load.yaml",
            &[
                "data/simulate/empty-load.yaml:9:13: load[0].metrics.cpu.total: empty: write a quantity such as 500m, or `unavailable` in place of the mapping for a metric with no value",
                "data/simulate/empty-load.yaml:11:9: load[0].metrics.http_requests_per_second.perPod: empty: write a quantity such as 500m, or `unavailable` in place of the mapping for a metric with no value",
            ],
        ),
        (
            "past-end.yaml",
            &[
                "data/simulate/past-end.yaml:11:10: load[2].at: no sync reads the load from 50s: the last sync is at 45s (every 15s from 0s, before duration 1m); make duration longer than 1m (the sync that would read it) or remove the entry",
                "data/simulate/past-end.yaml:12:10: load[3].at: no sync reads the load from 5m: the last sync is at 45s (every 15s from 0s, before duration 1m); make duration longer than 5m (the sync that would read it) or remove the entry",
            ],
        ),
        (
            "past-milli-range.yaml",
            &[
                "data/simulate/past-milli-range.yaml:6:44: podTemplate.containers[0].requests.cpu: 9223372036854776 is more than the controller counts: it reads usage and requests in milli-units into an int64 (at most 9223372036854775807m, about 9.2e15); write a smaller value",
                "data/simulate/past-milli-range.yaml:11:20: load[0].metrics.cpu.total: 9223372036854775807 is more than the controller counts: it reads usage and requests in milli-units into an int64 (at most 9223372036854775807m, about 9.2e15); write a smaller value",
            ],
        ),
        (
            "huge-utilization.yaml",
            &[
                "data/simulate/huge-utilization.yaml:10:12: `cpu`: 1000000000000000000000000000000 % of the pods' request (100m) is more than the controller counts: it reads usage in milli-units into an int64 (at most 9223372036854775807m); write a smaller percentage",
            ],
        ),
    ];
    for (file, want) in cases {
        let (code, lines) = errors(file);
        assert_eq!(code, 1, "{file}");
        assert_eq!(lines, want, "{file}");
    }
    // A `.inf` where a duration or a number of seconds goes is told to write one.
    let scenario = "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\npodTemplate: {containers: [{name: app, requests: {cpu: 100m}}]}\nduration: .inf\ncontroller: {syncPeriodSeconds: .NaN}\n";
    let run = hpa_lint(&["simulate", "-"], scenario);
    assert_eq!(
        (run.code, run.stderr.lines().collect::<Vec<_>>()),
        (
            1,
            vec![
                "hpa-lint: error: <stdin>:5:33: controller.syncPeriodSeconds: .NaN is not a number a scenario can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a whole number of seconds"
            ]
        )
    );
    let run = hpa_lint(&["simulate", "-"], &scenario.replace(".NaN", "30"));
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "hpa-lint: error: <stdin>:4:11: duration: .inf is not a number a scenario can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a duration such as 90s"
        ]
    );
    // The field is the reader's, found in its one parse: past 64 such values (the text was
    // parsed again per value, at most 64 times, and the generic error said after that).
    let many: String = (0..70).map(|_| "- {at: 0s, metrics: {cpu: {utilization: .nan}}}\n").collect();
    let run =
        hpa_lint(&["simulate", "-"], &format!("{}load:\n{many}", scenario.replace(".NaN", "30").replace(".inf", "1m")));
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "hpa-lint: error: <stdin>:7:41: load[0].metrics.cpu.utilization: .nan is not a number a scenario can hold (YAML's .nan and .inf have no JSON form, and kubectl refuses them): write a percentage such as 80"
        ]
    );
    // The first sync comes one period after the creation before 1.37: syncs at 15s, 30s, 45s.
    let run = hpa_lint(&["simulate", "--kubernetes-version", "1.33", &format!("{DATA}/past-end.yaml")], "");
    assert_eq!(
        run.stderr.lines().next(),
        Some(
            "hpa-lint: error: data/simulate/past-end.yaml:11:10: load[2].at: no sync reads the load from 50s: the last sync is at 45s (every 15s from 15s, before duration 1m); make duration longer than 1m (the sync that would read it) or remove the entry"
        )
    );
    // The largest value it can hold is taken: 9223372036854775807m, an int64 of milli-units.
    let scenario = "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\npodTemplate: {containers: [{name: app, requests: {cpu: 100m}}]}\nduration: 15s\nload: [{at: 0s, metrics: {cpu: {total: 9223372036854775807m}, http_requests_per_second: {perPod: 1}}}]\n";
    let run = hpa_lint(&["simulate", "-o", "json", "-"], scenario);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn values_must_suit_the_metric_type() {
    let (code, lines) = errors("wrong-value-kind.yaml");
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [
            "data/simulate/wrong-value-kind.yaml:9:12: `cpu`: a resource metric takes perPod, total or utilization, not value",
            "data/simulate/wrong-value-kind.yaml:10:33: `http_requests_per_second`: a Pods metric takes perPod or total",
        ]
    );
}

#[test]
fn an_invalid_hpa_is_refused_with_its_position() {
    let (code, lines) = errors("invalid-hpa.yaml");
    assert_eq!(code, 1);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("data/simulate/invalid-hpa.yaml:8:18: invalid HPA: spec.maxReplicas: Invalid value: 3"),
        "{lines:?}"
    );
}

#[test]
fn an_hpa_in_a_typed_list_takes_the_lists_kind() {
    // `kubectl get hpa -o yaml` output: the item has no kind of its own; lint, validate and
    // explain take it as the list's, and so does simulate.
    let s = steps(&format!("{DATA}/hpa-list-scenario.yaml"));
    assert_eq!(path(&s)[..3], [(0, 2, 4), (15, 4, 8), (30, 8, 10)]);
}

#[test]
fn io_errors_exit_2() {
    let run = hpa_lint(&["simulate", "no/such/scenario.yaml"], "");
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "hpa-lint: error: no/such/scenario.yaml: no such scenario file\n  help: give the path of a scenario (YAML: the \
         HPA, the load, the duration; `hpa-lint simulate --help` has examples), or `-` for standard input\n"
    );
}

/// A scenario without a field it needs names the field, what it holds and where (exit 1).
#[test]
fn a_scenario_missing_a_field_names_it() {
    let cases = [
        (
            "duration: 2m\nload: [{at: 0s, metrics: {cpu: {total: 1}}}]\n",
            "<stdin>:1:1: missing `hpa` (the HPA manifest file) or `hpaObject` (the HPA inline)",
        ),
        (
            "hpa: burst-legacy-hpa.yaml\nload: [{at: 0s, metrics: {cpu: {total: 1}}}]\n",
            "<stdin>:1:1: missing `duration` (how long to simulate, e.g. 10m)",
        ),
        (
            "hpa: burst-legacy-hpa.yaml\nduration: 1m\nload:\n  - metrics: {cpu: {total: 1}}\n",
            "<stdin>:4:5: load[0]: a load entry needs `at` (when it starts, e.g. 30s)",
        ),
    ];
    for (scenario, want) in cases {
        let run = hpa_lint(&["simulate", "-"], scenario);
        assert_eq!((run.code, run.stderr.as_str()), (1, format!("hpa-lint: error: {want}\n").as_str()), "{scenario}");
    }
}

#[test]
fn scenario_from_stdin_and_svg_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plot.svg");
    let scenario = format!(
        "hpa: {EXAMPLES}/burst-legacy-hpa.yaml\npodReadyAfter: 10s\nduration: 1m\nload:\n- at: 0s\n  metrics: {{cpu: {{total: 1030m}}}}\n- at: 15s\n  metrics: {{cpu: {{perPod: 0}}}}\n"
    );
    let run = hpa_lint(&["simulate", "-o", "json", "--plot", svg.to_str().unwrap(), "-"], &scenario);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(path(run.json()["steps"].as_array().unwrap()), [(0, 2, 4), (15, 4, 8), (30, 8, 10), (45, 10, 10)]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert!(text.contains("cpu (target 20%)"));
}

#[test]
fn human_output_snapshot() {
    let run = hpa_lint(&["simulate", &format!("{EXAMPLES}/burst-legacy.yaml")], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("burst_legacy_human", run.stdout);
}

#[test]
fn kubernetes_version_selects_the_release_of_the_controller() {
    // Memory averageValue in status: bytes in 1.33 (DecimalSI), BinarySI from 1.34 (buildQuantity).
    let current = |version: &str| {
        let path = format!("{DATA}/memory-average-value.yaml");
        let run = hpa_lint(&["simulate", "-o", "json", "--kubernetes-version", version, &path], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()["steps"][0]["metrics"][0]["current"]["averageValue"].clone()
    };
    assert_eq!(current("1.33"), "209715200");
    assert_eq!(current("1.34"), "200Mi");
    assert_eq!(current("1.37"), "200Mi");
}

#[test]
fn a_target_past_int64_milli_units_wraps_before_1_38() {
    // averageValue 18446744178567151616m (2^64 milli-bytes + 100Mi): MilliValue is 100Mi before
    // 1.38 (the low 64 bits: 200Mi per pod is twice the target, 2 -> 4), MaxInt64 from 1.38
    // (#141305: far below the target, no scale-up).
    let first = |version: &str| {
        let path = format!("{DATA}/huge-target.yaml");
        let run = hpa_lint(&["simulate", "-o", "json", "--kubernetes-version", version, &path], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()["steps"][0]["desired"].as_i64()
    };
    assert_eq!(first("1.37"), Some(4));
    assert_eq!(first("1.33"), Some(4));
    assert_eq!(first("1.38"), Some(2));
}

#[test]
fn pod_overhead_counts_in_1_34_to_1_37() {
    // podTemplate.overhead is the pod's spec.overhead, which the controller adds to pod-level
    // requests in 1.34-1.37 (PodRequests), not in 1.33 (no pod-level requests) nor 1.38.
    let first = |version: &str| {
        let path = format!("{DATA}/pod-overhead.yaml");
        let run = hpa_lint(&["simulate", "-o", "json", "--kubernetes-version", version, &path], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let s = run.json()["steps"][0].clone();
        (s["metrics"][0]["current"]["averageUtilization"].as_i64(), s["desired"].as_i64())
    };
    assert_eq!(first("1.33"), (Some(90), Some(4)));
    assert_eq!(first("1.34"), (Some(50), Some(2)));
    assert_eq!(first("1.37"), (Some(50), Some(2)));
    assert_eq!(first("1.38"), (Some(90), Some(4)));
}

#[test]
fn the_first_sync_is_one_period_after_creation_before_1_37() {
    // enqueueHPA: queue.Add from 1.37 (#138294), AddRateLimited (one sync period) before.
    let path_of = |version: &str| {
        let run = hpa_lint(
            &["simulate", "-o", "json", "--kubernetes-version", version, &format!("{EXAMPLES}/burst-legacy.yaml")],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        path(run.json()["steps"].as_array().unwrap())
    };
    assert_eq!(path_of("1.37")[..3], [(0, 2, 4), (15, 4, 8), (30, 8, 10)]);
    // The burst of the first 15 s is over when 1.36 first looks: no scale-up at all.
    let p36 = path_of("1.36");
    assert_eq!(p36[0].0, 15);
    assert!(p36.iter().all(|&(_, r, d)| (r, d) == (2, 2)), "{p36:?}");
    assert_eq!(p36.len(), path_of("1.37").len() - 1);
}

/// The target's template in the HPA's file makes pods as kube-apiserver admits them (hpa-core's
/// `PodTemplate::admitted`, as `diagnose` makes them): the namespace's LimitRange gives a
/// container without a request its default (LimitRanger), and pod-level limits become the
/// pod-level requests with `PodLevelResources` (beta from 1.34; alpha, off, in 1.33). Both were
/// read as no request at all: the metric failed at every sync and nothing scaled.
#[test]
fn the_targets_pods_are_admitted_as_kube_apiserver_admits_them() {
    let first = |scenario: &str, version: &str| {
        let path = format!("{DATA}/{scenario}");
        let run = hpa_lint(&["simulate", "-o", "json", "--kubernetes-version", version, &path], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let s = run.json()["steps"][0].clone();
        (s["metrics"][0]["current"]["averageUtilization"].as_i64(), s["desired"].as_i64())
    };
    assert_eq!(first("limit-range.yaml", "1.33"), (Some(90), Some(4)));
    assert_eq!(first("limit-range.yaml", "1.38"), (Some(90), Some(4)));
    assert_eq!(first("pod-limits.yaml", "1.35"), (Some(90), Some(4)));
    assert_eq!(first("pod-limits.yaml", "1.33"), (None, Some(2)));
    // The RuntimeClass the template names gives each pod its overhead, as admission does.
    assert_eq!(first("runtime-class.yaml", "1.33"), (Some(90), Some(4)));
    assert_eq!(first("runtime-class.yaml", "1.37"), (Some(50), Some(2)));
    assert_eq!(first("runtime-class.yaml", "1.38"), (Some(90), Some(4)));
}

/// The pods of a target are those hpa-core's rules read (`PodTemplate::of_target`, as
/// `diagnose` reads them): an Argo Rollout's come from the workload its `workloadRef` names,
/// and a custom resource's are not guessed from a `spec.template` it happens to hold.
#[test]
fn the_targets_pods_follow_a_workload_ref_and_are_not_guessed_for_a_custom_resource() {
    let run = hpa_lint(&["simulate", "-o", "json", &format!("{DATA}/rollout-ref.yaml")], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = run.json()["steps"][0].clone();
    assert_eq!((s["metrics"][0]["current"]["averageUtilization"].as_i64(), s["desired"].as_i64()), (Some(90), Some(4)));

    let (code, errors) = errors("custom-resource.yaml");
    assert_eq!(code, 1, "{errors:?}");
    assert!(
        errors.iter().any(|e| e.contains(
            "add a `podTemplate` (the target Widget/workers is a custom resource: its operator makes its pods from a template only it knows)"
        )),
        "{errors:?}"
    );
}

/// The scenario's `selector` is read as the selected release's `labels.Parse` reads it: its
/// words for a bad label key changed in 1.35 (`content.IsLabelKey`), and the error points at the
/// selector.
#[test]
fn the_selector_is_parsed_by_the_selected_release() {
    let scenario = |selector: &str| {
        format!(
            "hpa: data/simulate/web-hpa.yaml\nreplicas: 2\nselector: {selector:?}\npodTemplate: {{containers: [{{name: app, requests: {{cpu: 100m}}}}]}}\nduration: 1m\nload: [{{at: 0s, metrics: {{cpu: {{total: 100m}}, http_requests_per_second: {{perPod: 1}}}}}}]\n"
        )
    };
    let first_error = |version: &str, selector: &str| {
        let run = hpa_lint(&["simulate", "--kubernetes-version", version, "-"], &scenario(selector));
        assert_ne!(run.code, 0, "{version} {selector}: {}", run.stdout);
        run.stderr.lines().next().unwrap_or_default().to_string()
    };
    let prefix =
        "hpa-lint: error: <stdin>:3:11: selector: unable to parse requirement: <nil>: Invalid value: \"a/b/c\": ";
    for (version, words) in [
        ("1.34", "a qualified name must consist of alphanumeric characters"),
        ("1.35", "a valid label key must consist of alphanumeric characters"),
    ] {
        let error = first_error(version, "a/b/c");
        assert!(error.starts_with(&format!("{prefix}{words}")), "{version}: {error}");
        assert!(error.ends_with(": write a label selector such as app=web"), "{version}: {error}");
    }
    assert_eq!(
        first_error("1.37", "app in (a"),
        "hpa-lint: error: <stdin>:3:11: selector: unable to parse requirement: found '', expected: ',' or ')': write a label selector such as app=web"
    );
    // Both sides of 1.35 for `,,` before `)` (kubernetes/kubernetes#133419).
    assert_eq!(
        first_error("1.34", "app in (a,,)"),
        "hpa-lint: error: <stdin>:3:11: selector: unable to parse requirement: found ')', expected: ',', or identifier: write a label selector such as app=web"
    );
    let run = hpa_lint(&["simulate", "-o", "json", "--kubernetes-version", "1.35", "-"], &scenario("app in (a,,)"));
    assert_eq!(run.code, 0, "{}", run.stderr);
}
