//! HPA000 `invalid`: every error kube-apiserver would answer with.

use super::{Context, Finding, Rule, RuleMeta};
use crate::admission::{checks_api_versions, declarative_enforced};
use crate::api::quantity::{rejects_exponent_past_int32, writes_exponent_past_e};
use crate::api::release::has_condition_observed_generation;
use crate::features::{FeatureGates, Gate, KubernetesVersion};
use crate::field::ValueRendering;
use crate::validation::names::content_wording;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// Everything kube-apiserver checks before it stores an HPA: decoding (unknown fields, wrong
    /// types, unparsable quantities, as strict field validation refuses them; a key written twice
    /// never reaches it, kubectl keeps the last value: HPA001) and
    /// validation (names, replica bounds, the scale target, every metric source and target, behavior
    /// rules, feature gates), with the same field paths and messages. Objects of `autoscaling/v1` are
    /// converted first, as kube-apiserver does, and each error points at the field that was written
    /// (`targetCPUUtilizationPercentage`, a round-trip annotation).
    ///
    /// The verdict and the wording are those of the selected release (`kubernetesVersion`,
    /// `--kubernetes-version`): only from 1.34 must `scaleTargetRef.apiVersion` name an API group
    /// and may an Object metric's `describedObject.apiVersion` not be malformed; up to 1.35
    /// `maxReplicas: 0` is `must be greater than 0`, in 1.36 `Required value`, and from 1.37 the
    /// declarative error comes last; up to 1.34 label messages say "characters" and "a qualified
    /// name" (from 1.35 "bytes" and "a valid label key"); 1.33 prints values such as quantities as
    /// Go structs; before 1.37 a condition's `status.conditions[].observedGeneration` is an unknown
    /// field; before 1.36 an `autoscaling/v1` Object metric written with `"targetValue":"0"` next to
    /// an `averageValue` (the form a v2 `AverageValue` target takes in v1) converts to a
    /// `target.value` of 0 and is refused (`must be positive`, #137856); the feature-gate defaults
    /// of each release decide `minReplicas: 0` and `tolerance`; the 1.38 preview refuses a quantity
    /// whose decimal exponent is past ±2147483647 (`unable to parse quantity's suffix`; before, Go
    /// narrows it to int32: `1e4294967297` is `10`) and writes a quantity past the `E` suffix with
    /// its exponent (`-1000E` is `"-1e21"`, before `"-1"`).
    ///
    /// HPA000 also reports, in kubectl's words, what kubectl itself refuses in a file before
    /// anything reaches kube-apiserver: YAML or JSON it cannot read, and, in a file that holds a
    /// Kubernetes object (a mapping with both `apiVersion` and `kind`), each document it reads but
    /// cannot decode: a scalar or a sequence, a mapping without a `kind` (`Object 'Kind' is missing
    /// in '...'`), or a JSON document with a number past float64's range (`json: cannot unmarshal
    /// number 1e400 into Go value of type float64`, at the number; in YAML such a number is a
    /// string, which kube-apiserver refuses for the field's type). kubectl reads `kind` as
    /// written: a mapping with an `apiVersion` and `Kind:` or `KIND:` for its `kind` is a manifest
    /// with a typo, refused at that key, and the help names the key to rename. A mapping with an
    /// `apiVersion` and no kind of any case (a Helm `Chart.yaml`) is no manifest: alone in its file
    /// it is not reported.
    ///
    /// ## Why it matters
    ///
    /// `kubectl apply` fails with this error; in a GitOps pipeline the sync fails and the cluster
    /// keeps running the previous version of the object.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 4
    ///   maxReplicas: 2   # Invalid value: 2: must be greater than or equal to `minReplicas`
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// Instead:
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 4
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Correct the field the message names. These findings cannot be ignored or turned off: the
    /// object would not be accepted. While an object is invalid, the other rules (except HPA401) do
    /// not look at it.
    pub struct Invalid {
        id: "HPA000",
        name: "invalid",
        severity: Error,
        summary: "kube-apiserver would reject the object",
        needs_objects: false,
    }
}

impl Rule for Invalid {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        for e in cx.errors {
            out.push(Finding::new(&Self::META, e.field.clone(), e.to_string()));
        }
    }

    /// The release-dependent checks and wordings of the doc comment's second paragraph, each
    /// from the predicate validation uses.
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        let v = gates.version();
        let mut facts = vec![
            if checks_api_versions(v) {
                "`scaleTargetRef.apiVersion` must name an API group and an Object metric's `describedObject.apiVersion` must be well formed"
            } else {
                "neither `scaleTargetRef.apiVersion` nor an Object metric's `describedObject.apiVersion` is checked for its group"
            },
            if v <= KubernetesVersion::V1_35 {
                "`maxReplicas: 0` is `Invalid value: 0: must be greater than 0`"
            } else if declarative_enforced(gates) {
                "`maxReplicas: 0` is `Required value`, and the declarative error comes last"
            } else {
                "`maxReplicas: 0` is `Required value`"
            },
            if content_wording(v) {
                "label messages say \"bytes\" and \"a valid label key\""
            } else {
                "label messages say \"characters\" and \"a qualified name\""
            },
        ];
        if ValueRendering::of(v) == ValueRendering::GoReflect {
            facts.push("values such as quantities are printed as Go structs");
        }
        if !has_condition_observed_generation(v) {
            facts.push("`status.conditions[].observedGeneration` is an unknown field");
        }
        if crate::convert::v1::keeps_zero_object_value(v) {
            facts.push("an `autoscaling/v1` Object metric's `\"targetValue\":\"0\"` next to an `averageValue` is refused (`must be positive`)");
        }
        if rejects_exponent_past_int32(v) {
            facts.push("a quantity's decimal exponent past ±2147483647 is refused");
        }
        if writes_exponent_past_e(v) {
            facts.push("a quantity past the `E` suffix is written with its exponent (`1e21`)");
        }
        facts.push(if gates.enabled(Gate::HPAScaleToZero) {
            "`minReplicas: 0` is allowed with an Object or External metric (HPAScaleToZero on)"
        } else {
            "`minReplicas: 0` is refused (HPAScaleToZero off)"
        });
        facts.push(if gates.enabled(Gate::HPAConfigurableTolerance) {
            "`behavior` tolerances are kept (HPAConfigurableTolerance on)"
        } else {
            "`behavior` tolerances are dropped silently (HPAConfigurableTolerance off)"
        });
        Some(facts.join("; "))
    }
}
