//! Fields of this crate's schema (the newest release's) that an older release does not have.
//!
//! kube-apiserver decodes with the Go types of its own release: a field those types lack is an
//! unknown field, an error under strict field validation (kubectl's default) and silently
//! dropped otherwise (`fieldValidation=Ignore`, and conversion from annotations, which Go's
//! `encoding/json` reads leniently). The only such field of an HPA in 1.33–1.38 is
//! `status.conditions[].observedGeneration` of `autoscaling/v2`, added in 1.37 (#138653,
//! `k8s.io/api` release-1.36 vs master `autoscaling/v2/types.go`).

use crate::features::KubernetesVersion;

use super::{DecodeError, DecodeErrorKind, VersionedHpa, v2};

/// Whether `release` has `HorizontalPodAutoscalerCondition.observedGeneration`.
pub fn has_condition_observed_generation(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_37
}

/// The fields of a decoded object that `release` does not know, as strict decoding reports
/// them. An explicit `null` decodes as an absent value here, so it is not reported (Go would).
pub fn unknown_fields(hpa: &VersionedHpa, release: KubernetesVersion) -> Vec<DecodeError> {
    let VersionedHpa::V2(h) = hpa else { return Vec::new() };
    if has_condition_observed_generation(release) {
        return Vec::new();
    }
    h.status
        .conditions
        .iter()
        .enumerate()
        .filter(|(_, c)| c.observed_generation.is_some())
        .map(|(i, _)| DecodeError {
            kind: DecodeErrorKind::UnknownField,
            path: format!("status.conditions[{i}].observedGeneration"),
            message: "unknown field".into(),
        })
        .collect()
}

/// Strict field validation in `release`: the object, or every field `release` does not know.
pub fn check(hpa: VersionedHpa, release: KubernetesVersion) -> Result<VersionedHpa, Vec<DecodeError>> {
    let unknown = unknown_fields(&hpa, release);
    if unknown.is_empty() { Ok(hpa) } else { Err(unknown) }
}

/// Drops what `release` does not know, as lenient decoding does.
pub fn drop_unknown(hpa: &mut VersionedHpa, release: KubernetesVersion) {
    if let VersionedHpa::V2(h) = hpa {
        drop_unknown_internal(h, release);
    }
}

/// [`drop_unknown`] for the internal (v2-shaped) form.
pub fn drop_unknown_internal(hpa: &mut v2::HorizontalPodAutoscaler, release: KubernetesVersion) {
    if !has_condition_observed_generation(release) {
        for c in &mut hpa.status.conditions {
            c.observed_generation = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api;

    fn object() -> VersionedHpa {
        api::decode(&json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3},
            "status": {"desiredReplicas": 1, "conditions": [
                {"type": "AbleToScale", "status": "True"},
                {"type": "ScalingActive", "status": "True", "observedGeneration": 4}
            ]}
        }))
        .unwrap()
    }

    #[test]
    fn condition_observed_generation_is_unknown_before_1_37() {
        let errs = check(object(), KubernetesVersion::V1_36).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].to_string(), "unknown field \"status.conditions[1].observedGeneration\"");
        assert!(check(object(), KubernetesVersion::V1_37).is_ok());
        let mut dropped = object();
        drop_unknown(&mut dropped, KubernetesVersion::V1_33);
        assert!(check(dropped.clone(), KubernetesVersion::V1_33).is_ok());
        let VersionedHpa::V2(h) = dropped else { panic!() };
        assert!(h.status.conditions.iter().all(|c| c.observed_generation.is_none()));
        let mut kept = object();
        drop_unknown(&mut kept, KubernetesVersion::V1_37);
        assert_eq!(kept, object());
    }
}
