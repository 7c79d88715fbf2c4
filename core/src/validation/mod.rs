//! HPA validation exactly as kube-apiserver performs it.
//!
//! [`validate_create`] and [`validate_update`] mirror `ValidateHorizontalPodAutoscaler` and
//! `ValidateHorizontalPodAutoscalerUpdate` in `pkg/apis/autoscaling/validation/validation.go`.
//! The surrounding request logic (strategy options, the generic metadata checks of
//! `rest.BeforeCreate`/`BeforeUpdate`, declarative validation in 1.37) lives in
//! [`crate::admission`].

pub mod meta;
pub mod names;
pub mod spec;

use crate::api::v2::HorizontalPodAutoscaler;
use crate::field::{BadValue, ErrorList, FieldError, Path};

pub use spec::{RefOptions, SpecOptions};

/// `ValidateHorizontalPodAutoscaler`: metadata (DNS-subdomain name, namespace, labels,
/// annotations, owner references, finalizers, managed fields) then spec.
pub fn validate_create(hpa: &HorizontalPodAutoscaler, opts: &SpecOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = meta::validate_object_meta(&hpa.metadata, meta::NameRule::DnsSubdomain, &meta_path);
    errs.extend(meta::validate_kube_finalizers(&hpa.metadata.finalizers, &meta_path.child("finalizers")));
    errs.extend(spec::validate_spec(&hpa.spec, &Path::new("spec"), opts));
    errs
}

/// `ValidateHorizontalPodAutoscalerUpdate`: metadata update rules then spec (the name format is
/// not checked again).
pub fn validate_update(new: &HorizontalPodAutoscaler, old: &HorizontalPodAutoscaler, opts: &SpecOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata, &meta_path);
    errs.extend(meta::validate_kube_finalizers(&new.metadata.finalizers, &meta_path.child("finalizers")));
    errs.extend(spec::validate_spec(&new.spec, &Path::new("spec"), opts));
    errs
}

/// `ValidateHorizontalPodAutoscalerStatusUpdate` (the `/status` subresource).
pub fn validate_status_update(new: &HorizontalPodAutoscaler, old: &HorizontalPodAutoscaler) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = meta::validate_object_meta_update(&new.metadata, &old.metadata, &meta_path);
    errs.extend(meta::validate_kube_finalizers(&new.metadata.finalizers, &meta_path.child("finalizers")));
    let status = Path::new("status");
    for (field, value) in
        [("currentReplicas", new.status.current_replicas), ("desiredReplicas", new.status.desired_replicas)]
    {
        if value < 0 {
            errs.push(FieldError::invalid(
                &status.child(field),
                BadValue::Int(i64::from(value)),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs
}
