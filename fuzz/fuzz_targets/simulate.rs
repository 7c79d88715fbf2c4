//! A scenario file for `hpa-lint simulate`: parsed, bound to its HPA and simulated.
//!
//! The HPA is the scenario's `hpaObject`, or for `hpa: <file>` one of the example manifests
//! compiled in (no file is read). The plan is built as `hpa-lint simulate` builds it (the
//! scenario's controller overrides, admission with defaults); runs are capped in syncs and pods
//! so that one input stays fast.
//!
//! Invariants:
//! - `hpa-lint simulate -o json -` (inline HPAs) never panics and prints JSON;
//! - every rescale lands in `[minReplicas, maxReplicas]` and a sync that does not rescale
//!   leaves `spec.replicas` alone; after the first sync that read the scale, `spec.replicas`
//!   stays in `[minReplicas, maxReplicas]`, except when the target started at 0 replicas with
//!   `minReplicas` above 0: the controller then never scales (`ScalingDisabled`) and it stays
//!   at 0. (The plan's HPA is valid: kube-apiserver would refuse the others and `simulate`
//!   refuses them too, so the controller never sees one.)
#![no_main]

use clap::Parser;
use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::check;
use hpa_core::evaluator::controller::SyncOutcome;
use hpa_core::evaluator::simulation::{Plan, Simulation, simulate};
use hpa_core::features::FeatureGates;
use hpa_lint::hpa;
use hpa_lint::input::{self, ObjectRef, SourceFile};
use hpa_lint::simulate::scenario::{self, HpaSource, PlanInputs, Scenario};
use libfuzzer_sys::fuzz_target;

/// At most this many syncs per run.
const MAX_SYNCS: i64 = 2_000;
/// At most this many pods at once (initial replicas, maxReplicas).
const MAX_PODS: i64 = 500;
/// At most this many syncs × pods.
const MAX_WORK: i64 = 200_000;

/// The manifests `hpa: <file>` may name.
const MANIFESTS: &[(&str, &str)] = &[
    ("web-hpa.yaml", include_str!("../../tests/data/simulate/web-hpa.yaml")),
    ("queue-worker-hpa.yaml", include_str!("../../examples/simulate/queue-worker-hpa.yaml")),
    ("burst-legacy-hpa.yaml", include_str!("../../examples/simulate/burst-legacy-hpa.yaml")),
];

fuzz_target!(|data: &[u8]| {
    let file = input::from_bytes("scenario.yaml".into(), data.to_vec());
    let [document] = file.parsed.documents.as_slice() else {
        // Not one document: the command refuses it before reading anything else.
        assert_eq!(cli(data), 1);
        return;
    };
    if file.unreadable.is_some() || file.parsed.error.is_some() {
        assert_eq!(cli(data), 1);
        return;
    }
    let scenario = match scenario::parse(document.root()) {
        Ok(s) => s,
        Err(errors) => {
            assert!(!errors.is_empty(), "a refused scenario says why");
            assert_eq!(cli(data), 1);
            return;
        }
    };
    let inline = matches!(scenario.hpa, HpaSource::Inline(_));
    let Some(plan) = plan(&scenario) else {
        if inline {
            assert_eq!(cli(data), 1, "simulate accepts a scenario the mirror of its preparation refuses");
        }
        return;
    };
    if !affordable(&plan) {
        return;
    }
    if inline {
        assert_eq!(cli(data), 0, "simulate refuses a scenario the mirror of its preparation accepts");
    }
    within_bounds(&plan, &simulate(&plan));
});

/// `hpa-lint simulate -o json -` on the input; its exit status.
fn cli(data: &[u8]) -> u8 {
    let args = hpa_lint::cli::Args::try_parse_from(["hpa-lint", "simulate", "-o", "json", "-"])
        .expect("the command line parses");
    let mut stdin = data;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = hpa_lint::Output { stdin: &mut stdin, stdout: &mut out, stderr: &mut err, terminal: false };
    let code = hpa_lint::run(args, &mut io).code();
    assert!(code <= 1, "exit status {code}: {}", String::from_utf8_lossy(&err));
    if code == 0 {
        let _: serde_json::Value = serde_json::from_slice(&out).expect("simulate -o json prints JSON");
    } else {
        assert!(!err.is_empty(), "a refused scenario says why");
    }
    code
}

/// Whether the run is small enough.
fn affordable(plan: &Plan) -> bool {
    let period = i64::try_from(plan.options.sync_period.as_millis()).unwrap_or(i64::MAX).max(1);
    let syncs = plan.duration_ms / period + 1;
    let pods = i64::from(plan.initial_replicas.max(plan.hpa.spec.max_replicas)) + 1;
    syncs <= MAX_SYNCS && pods <= MAX_PODS && syncs * pods <= MAX_WORK
}

fn within_bounds(plan: &Plan, sim: &Simulation) {
    let min = plan.hpa.spec.min_replicas.unwrap_or(1);
    let max = plan.hpa.spec.max_replicas;
    let disabled = plan.initial_replicas == 0 && min != 0;
    let mut scale_read = false;
    for (i, step) in sim.steps.iter().enumerate() {
        if scale_read {
            if disabled {
                assert_eq!(step.replicas, 0, "sync {i}: scaling is disabled at 0 replicas");
            } else {
                assert!(
                    (min..=max).contains(&step.replicas),
                    "sync {i}: {} replicas outside [{min}, {max}]",
                    step.replicas
                );
            }
        }
        if step.rescaled {
            assert!(
                (min..=max).contains(&step.desired),
                "sync {i}: rescaled to {} outside [{min}, {max}]",
                step.desired
            );
        } else {
            assert_eq!(step.desired, step.replicas, "sync {i}: no rescale, yet spec.replicas changed");
        }
        scale_read |= step.outcome != SyncOutcome::FailedGetScale;
    }
}

/// The plan `hpa-lint simulate` would run (mirrors its private `prepare`), or `None` when it
/// refuses the scenario.
fn plan(scenario: &Scenario) -> Option<Plan> {
    let gates = FeatureGates::default();
    let admission = check::Options::verdict_only(gates.clone());
    let (hpa, template, replicas, span) = match &scenario.hpa {
        HpaSource::Inline(tree) => {
            let target = hpa_lint::simulate::Target::default();
            (admit(&ObjectRef::new(0, 0, None, tree.root()), &admission)?, target.template, None, tree.root().span())
        }
        HpaSource::File(path) => {
            let (name, text) = MANIFESTS.iter().find(|(name, _)| *name == path.value)?;
            let file = SourceFile::from_text(*name, (*text).to_string());
            let objects = input::objects(0, &file);
            let wanted = scenario.hpa_name.as_ref().map(|n| n.value.as_str());
            let chosen: Vec<_> =
                objects.iter().filter(|o| o.is_hpa() && wanted.is_none_or(|w| o.name() == Some(w))).collect();
            let [obj] = chosen.as_slice() else { return None };
            let hpa = admit(obj, &admission)?;
            let target = hpa_lint::simulate::target_in(&objects, &hpa, &gates);
            (hpa, target.template, target.replicas, path.span)
        }
    };
    let layers = [(&scenario.controller, hpa_lint::controller_flags::Provenance::Scenario)];
    let (options, _) = hpa_lint::controller_flags::configuration(gates, &layers).ok()?;
    let ctx = PlanInputs { hpa, workload_template: template, workload_replicas: replicas, hpa_span: span, options };
    scenario::bind(scenario, ctx).ok()
}

fn admit(obj: &ObjectRef<'_>, opts: &check::Options) -> Option<HorizontalPodAutoscaler> {
    match hpa::check_object(obj, None, opts).admission {
        check::Admission::Admitted(admitted) if admitted.allowed() => Some(admitted.outcome.object),
        _ => None,
    }
}
