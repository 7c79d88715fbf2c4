//! HPA401 `removed-api-version`: an HPA in a version the cluster no longer serves.

use super::{Context, Finding, Fix, Rule, RuleMeta, Settings};
use crate::api::{self, ApiVersion};
use crate::convert;

crate::declare_rule! {
    /// ## What it checks
    ///
    /// `apiVersion: autoscaling/v2beta1` (not served since Kubernetes 1.25),
    /// `autoscaling/v2beta2` (not served since 1.26) and `autoscaling/v2alpha1` (removed in 1.9),
    /// for the Kubernetes version being targeted (`kubernetesVersion` in `.hpa-lint.yaml`).
    ///
    /// ## Why it matters
    ///
    /// `kubectl apply` fails with `no matches for kind "HorizontalPodAutoscaler" in version
    /// "autoscaling/v2beta2"`: the manifest cannot be deployed to a current cluster at all.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2beta2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 2
    ///   maxReplicas: 10
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
    ///   maxReplicas: 10
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Convert to `autoscaling/v2`. From `v2beta2` only the `apiVersion` changes; `v2beta1` metrics
    /// have another shape (`targetAverageUtilization` becomes `target: {type: Utilization,
    /// averageUtilization: ...}`). The finding carries the converted object, and
    /// `hpa-lint convert --to autoscaling/v2` rewrites files with kube-apiserver's own conversion.
    pub struct RemovedApiVersion {
        id: "HPA401",
        name: "removed-api-version",
        severity: Error,
        summary: "the HPA's apiVersion is no longer served by the target Kubernetes version",
        needs_objects: false,
    }
}

impl Rule for RemovedApiVersion {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(mut finding) = check_version(cx.original.api_version(), cx.settings) else { return };
        finding =
            finding.help("convert it with `hpa-lint convert --to autoscaling/v2` (the converted object is attached)");
        if let Ok(c) = convert::convert(cx.original, ApiVersion::V2) {
            let mut replacement = c.object.to_json();
            // A manifest has no status; keep the suggestion minimal.
            if let Some(m) = replacement.as_object_mut() {
                m.remove("status");
            }
            finding.fix = Some(Fix { description: "convert to autoscaling/v2".into(), replacement });
        }
        out.push(finding);
    }
}

/// The finding for an HPA of a version the target release no longer serves, whether or not
/// the object decodes (the linter reports it next to the decoding errors too).
pub fn check_version(version: ApiVersion, settings: &Settings) -> Option<Finding> {
    let unserved = api::served(version.as_str(), settings.gates().version()).err()?;
    Some(
        Finding::new(&RemovedApiVersion::META, "apiVersion", unserved.advice()?)
            .help("rewrite it in autoscaling/v2 (`hpa-lint convert --to autoscaling/v2` once it decodes)"),
    )
}
