//! Fields of this crate's schema (the newest release's) that an older release does not have.
//!
//! kube-apiserver decodes with the Go types of its own release: a field those types lack is an
//! unknown field, an error under strict field validation (kubectl's default) and silently
//! dropped otherwise (`fieldValidation=Ignore`, and conversion from annotations, which Go's
//! `encoding/json` reads leniently). The only such field of an HPA in 1.33–1.38 is
//! `status.conditions[].observedGeneration` of `autoscaling/v2`, added in 1.37 (#138653,
//! `k8s.io/api` release-1.36 vs master `autoscaling/v2/types.go`).
//!
//! Decoding knows it from the field's `#[go(since = "1.37")]`: the decoder, given a release
//! ([`super::decode::DecodeOptions::in_release`], [`super::decode_json`], [`super::decode_source`]),
//! treats the field as any other unknown field. What is here is for values that do not come
//! from a decode: the internal form after conversion, which in an older release has no room
//! for the field.

use crate::features::KubernetesVersion;

use super::v2;

/// Whether `release` has `HorizontalPodAutoscalerCondition.observedGeneration`.
pub fn has_condition_observed_generation(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_37
}

/// Drops from the internal (v2-shaped) form what `release`'s internal type cannot hold.
pub fn drop_unknown_internal(hpa: &mut v2::HorizontalPodAutoscaler, release: KubernetesVersion) {
    if !has_condition_observed_generation(release) {
        for c in &mut hpa.status.conditions {
            c.observed_generation = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{self, Strictness, VersionedHpa};

    const OBJECT: &str = r#"{
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3},
        "status": {"desiredReplicas": 1, "conditions": [
            {"type": "AbleToScale", "status": "True"},
            {"type": "ScalingActive", "status": "True", "observedGeneration": 4}
        ]}
    }"#;

    #[test]
    fn condition_observed_generation_is_unknown_before_1_37() {
        let errs = api::decode_json(OBJECT, Strictness::Strict, KubernetesVersion::V1_36).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].to_string(), "unknown field \"status.conditions[1].observedGeneration\"");
        assert_eq!(errs[0].path, "status.conditions[1].observedGeneration");
        let newest = api::decode_json(OBJECT, Strictness::Strict, KubernetesVersion::V1_37).unwrap();
        let VersionedHpa::V2(h) = &newest.value else { panic!() };
        assert_eq!(h.status.conditions[1].observed_generation, Some(4));

        // Ignored, it is dropped; the newest release keeps it.
        let lenient = api::decode_json(OBJECT, Strictness::Lenient, KubernetesVersion::V1_33).unwrap();
        assert_eq!(lenient.ignored.len(), 1);
        let VersionedHpa::V2(h) = &lenient.value else { panic!() };
        assert!(h.status.conditions.iter().all(|c| c.observed_generation.is_none()));
        assert!(api::decode_json(OBJECT, Strictness::Lenient, KubernetesVersion::V1_38).unwrap().ignored.is_empty());

        // Reported with the others, in document order, only when nothing else is wrong.
        let both = OBJECT.replace(r#""maxReplicas": 3"#, r#""maxReplicas": 3, "x": 1"#);
        let errs = api::decode_json(&both, Strictness::Strict, KubernetesVersion::V1_36).unwrap_err();
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["spec.x", "status.conditions[1].observedGeneration"]);
        let wrong = OBJECT.replace(r#""maxReplicas": 3"#, r#""maxReplicas": "3""#);
        let errs = api::decode_json(&wrong, Strictness::Strict, KubernetesVersion::V1_36).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message.starts_with("json: cannot unmarshal string"), "{}", errs[0].message);
    }

    #[test]
    fn the_internal_form_of_an_older_release_has_no_condition_observed_generation() {
        let decoded = api::decode_json(OBJECT, Strictness::Strict, KubernetesVersion::V1_37).unwrap();
        let VersionedHpa::V2(mut h) = decoded.value else { panic!() };
        let kept = h.clone();
        drop_unknown_internal(&mut h, KubernetesVersion::V1_37);
        assert_eq!(h, kept);
        drop_unknown_internal(&mut h, KubernetesVersion::V1_33);
        assert!(h.status.conditions.iter().all(|c| c.observed_generation.is_none()));
    }
}
