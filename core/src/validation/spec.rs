//! `spec` validation: replica bounds, the scale target, metrics and behavior.
//!
//! Mirrors `pkg/apis/autoscaling/validation/validation.go` function by function
//! (`validateHorizontalPodAutoscalerSpec`, `ValidateCrossVersionObjectReference`,
//! `validateMetrics`, `validateMetricSpec`, the per-source functions, `validateMetricTarget`,
//! `validateMetricIdentifier`, `validateBehavior`, `validateScalingRules`,
//! `validateScalingPolicy`), in the same order, with the same messages.

use crate::api::meta::CrossVersionObjectReference;
use crate::api::v2::{
    ContainerResourceMetricSource, ExternalMetricSource, HPAScalingPolicy, HPAScalingRules,
    HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerSpec, METRIC_SOURCE_TYPES, MetricIdentifier, MetricSpec,
    MetricTarget, ObjectMetricSource, PodsMetricSource, ResourceMetricSource,
};
use crate::api::{GroupVersion, GroupVersionError, Quantity};
use crate::features::KubernetesVersion;
use crate::field::{BadValue, ErrorList, FieldError, Path};

use super::names;

/// `MaxPeriodSeconds`
pub const MAX_PERIOD_SECONDS: i32 = 1800;
/// `MaxStabilizationWindowSeconds`
pub const MAX_STABILIZATION_WINDOW_SECONDS: i32 = 3600;

/// `CrossVersionObjectReferenceValidationOptions`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefOptions {
    /// Whether an empty API group (core) is allowed.
    pub allow_empty_api_group: bool,
    /// Skip the apiVersion check entirely.
    pub allow_invalid_api_version: bool,
}

/// `HorizontalPodAutoscalerSpecValidationOptions`, and the release whose hand-written rules
/// and messages apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecOptions {
    /// The minimum value of `minReplicas` (0 or 1).
    pub min_replicas_lower_bound: i32,
    /// Options for `spec.scaleTargetRef` (1.34 and later; 1.33 checks no apiVersion, which
    /// `allow_invalid_api_version` expresses).
    pub scale_target_ref: RefOptions,
    /// Options for Object metrics' `describedObject` (as above).
    pub object_metrics: RefOptions,
    /// The release: the `maxReplicas` rule and the metadata messages differ between releases
    /// (not an upstream option: a different `validation.go`).
    pub release: KubernetesVersion,
}

impl Default for SpecOptions {
    fn default() -> Self {
        SpecOptions {
            min_replicas_lower_bound: 1,
            scale_target_ref: RefOptions::default(),
            object_metrics: RefOptions { allow_empty_api_group: true, allow_invalid_api_version: false },
            release: KubernetesVersion::LATEST,
        }
    }
}

/// `validateHorizontalPodAutoscalerSpec`.
pub fn validate_spec(spec: &HorizontalPodAutoscalerSpec, path: &Path<'_>, opts: &SpecOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    let min_path = path.child("minReplicas");
    let max_path = path.child("maxReplicas");
    if let Some(min) = spec.min_replicas
        && min < opts.min_replicas_lower_bound
    {
        errs.push(
            FieldError::invalid(
                &min_path,
                BadValue::Int(i64::from(min)),
                format!("must be greater than or equal to {}", opts.min_replicas_lower_bound),
            )
            .with_origin("minimum")
            .covered_by_declarative(),
        );
    }
    if opts.release <= KubernetesVersion::V1_35 {
        // Up to 1.35 one rule covered both 0 and negative values.
        if spec.max_replicas < 1 {
            errs.push(FieldError::invalid(
                &max_path,
                BadValue::Int(i64::from(spec.max_replicas)),
                "must be greater than 0",
            ));
        }
    } else if spec.max_replicas == 0 {
        errs.push(FieldError::required(&max_path, "must be set and greater than 0").covered_by_declarative());
    } else if spec.max_replicas < 0 {
        errs.push(
            FieldError::invalid(
                &max_path,
                BadValue::Int(i64::from(spec.max_replicas)),
                "must be greater than or equal to 1",
            )
            .with_origin("minimum")
            .covered_by_declarative(),
        );
    }
    if let Some(min) = spec.min_replicas
        && spec.max_replicas < min
    {
        errs.push(FieldError::invalid(
            &max_path,
            BadValue::Int(i64::from(spec.max_replicas)),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    errs.extend(validate_cross_version_object_reference(
        &spec.scale_target_ref,
        &path.child("scaleTargetRef"),
        &opts.scale_target_ref,
    ));
    errs.extend(validate_metrics(&spec.metrics, &path.child("metrics"), spec.min_replicas, opts));
    errs.extend(validate_behavior(spec.behavior.as_ref(), &path.child("behavior")));
    errs
}

/// `ValidateCrossVersionObjectReference`.
pub fn validate_cross_version_object_reference(
    r: &CrossVersionObjectReference,
    path: &Path<'_>,
    opts: &RefOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let kind = path.child("kind");
    if r.kind.is_empty() {
        errs.push(FieldError::required(&kind, "").covered_by_declarative());
    } else {
        for msg in names::path_segment_name(&r.kind) {
            errs.push(FieldError::invalid(&kind, BadValue::Str(r.kind.clone()), msg));
        }
    }
    let name = path.child("name");
    if r.name.is_empty() {
        errs.push(FieldError::required(&name, "").covered_by_declarative());
    } else {
        for msg in names::path_segment_name(&r.name) {
            errs.push(FieldError::invalid(&name, BadValue::Str(r.name.clone()), msg));
        }
    }
    if let Err(e) = validate_api_version(&r.api_version, opts) {
        errs.push(FieldError::invalid(&path.child("apiVersion"), BadValue::Str(r.api_version.clone()), e.to_string()));
    }
    errs
}

/// Why an `apiVersion` fails `ValidateAPIVersion`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ApiVersionError {
    /// It does not parse ([`GroupVersion::parse`]).
    #[error(transparent)]
    GroupVersion(#[from] GroupVersionError),
    /// It names no group where one is required.
    #[error("apiVersion must specify API group")]
    NoGroup,
}

/// `ValidateAPIVersion`.
pub fn validate_api_version(api_version: &str, opts: &RefOptions) -> Result<(), ApiVersionError> {
    if opts.allow_invalid_api_version {
        return Ok(());
    }
    let group = GroupVersion::parse(api_version)?.group();
    if !opts.allow_empty_api_group && group.is_empty() {
        return Err(ApiVersionError::NoGroup);
    }
    Ok(())
}

/// `validateMetrics`.
fn validate_metrics(
    metrics: &[MetricSpec],
    path: &Path<'_>,
    min_replicas: Option<i32>,
    opts: &SpecOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut has_object_or_external = false;
    for (i, metric) in metrics.iter().enumerate() {
        errs.extend(validate_metric_spec(metric, &path.index(i), opts));
        if metric.type_ == "Object" || metric.type_ == "External" {
            has_object_or_external = true;
        }
    }
    if min_replicas == Some(0) && !has_object_or_external {
        errs.push(FieldError::forbidden(
            path,
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    errs
}

/// `validateMetricSpec`: only the first present source (in the order object, external, pods,
/// resource, containerResource) is validated.
fn validate_metric_spec(spec: &MetricSpec, path: &Path<'_>, opts: &SpecOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    let type_path = path.child("type");
    if spec.type_.is_empty() {
        errs.push(FieldError::required(&type_path, "must specify a metric source type"));
    }
    if !METRIC_SOURCE_TYPES.contains(&spec.type_.as_str()) {
        errs.push(FieldError::not_supported(&type_path, BadValue::named(&spec.type_), &METRIC_SOURCE_TYPES));
    }
    let mut present: Vec<&'static str> = Vec::new();
    if let Some(src) = &spec.object {
        present.push("object");
        if present.len() == 1 {
            errs.extend(validate_object_source(src, &path.child("object"), &opts.object_metrics));
        }
    }
    if let Some(src) = &spec.external {
        present.push("external");
        if present.len() == 1 {
            errs.extend(validate_external_source(src, &path.child("external")));
        }
    }
    if let Some(src) = &spec.pods {
        present.push("pods");
        if present.len() == 1 {
            errs.extend(validate_pods_source(src, &path.child("pods")));
        }
    }
    if let Some(src) = &spec.resource {
        present.push("resource");
        if present.len() == 1 {
            errs.extend(validate_resource_source(src, &path.child("resource")));
        }
    }
    if let Some(src) = &spec.container_resource {
        present.push("containerResource");
        if present.len() == 1 {
            errs.extend(validate_container_resource_source(src, &path.child("containerResource"), opts.release));
        }
    }
    const POPULATE: &str = "must populate information for the given metric source";
    let expected = match spec.type_.as_str() {
        "Object" => Some(("object", spec.object.is_none())),
        "Pods" => Some(("pods", spec.pods.is_none())),
        "Resource" => Some(("resource", spec.resource.is_none())),
        "External" => Some(("external", spec.external.is_none())),
        "ContainerResource" => Some(("containerResource", spec.container_resource.is_none())),
        _ => None,
    };
    match expected {
        Some((field, missing)) => {
            if missing {
                errs.push(FieldError::required(&path.child(field), POPULATE));
            }
        }
        None => errs.push(FieldError::not_supported(&type_path, BadValue::named(&spec.type_), &METRIC_SOURCE_TYPES)),
    }
    if present.len() != 1 {
        let expected_field = expected.map(|(f, _)| f);
        // Go ranges over a set here (random order); sorted order is used for determinism.
        let mut extra: Vec<&str> = present.into_iter().filter(|f| Some(*f) != expected_field).collect();
        extra.sort_unstable();
        for f in extra {
            errs.push(FieldError::forbidden(&path.child(f), "must populate the given metric source only"));
        }
    }
    errs
}

/// `validateObjectSource`.
fn validate_object_source(src: &ObjectMetricSource, path: &Path<'_>, opts: &RefOptions) -> ErrorList {
    let mut errs = validate_cross_version_object_reference(&src.described_object, &path.child("describedObject"), opts);
    errs.extend(validate_metric_identifier(&src.metric, &path.child("metric")));
    let target = path.child("target");
    errs.extend(validate_metric_target(&src.target, &target));
    if src.target.value.is_none() && src.target.average_value.is_none() {
        errs.push(FieldError::required(
            &target.child("averageValue"),
            "must set either a target value or averageValue",
        ));
    }
    errs
}

/// `validateExternalSource`.
fn validate_external_source(src: &ExternalMetricSource, path: &Path<'_>) -> ErrorList {
    let mut errs = validate_metric_identifier(&src.metric, &path.child("metric"));
    let target = path.child("target");
    errs.extend(validate_metric_target(&src.target, &target));
    if src.target.value.is_none() && src.target.average_value.is_none() {
        errs.push(FieldError::required(
            &target.child("averageValue"),
            "must set either a target value for metric or a per-pod target",
        ));
    }
    if src.target.value.is_some() && src.target.average_value.is_some() {
        errs.push(FieldError::forbidden(
            &target.child("value"),
            "may not set both a target value for metric and a per-pod target",
        ));
    }
    errs
}

/// `validatePodsSource`.
fn validate_pods_source(src: &PodsMetricSource, path: &Path<'_>) -> ErrorList {
    let mut errs = validate_metric_identifier(&src.metric, &path.child("metric"));
    let target = path.child("target");
    errs.extend(validate_metric_target(&src.target, &target));
    if src.target.average_value.is_none() {
        errs.push(FieldError::required(&target.child("averageValue"), "must specify a positive target averageValue"));
    }
    errs
}

/// `validateContainerResourceSource`.
fn validate_container_resource_source(
    src: &ContainerResourceMetricSource,
    path: &Path<'_>,
    release: KubernetesVersion,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let name = path.child("name");
    if src.name.is_empty() {
        errs.push(FieldError::required(&name, "must specify a resource name"));
    } else {
        errs.extend(validate_container_resource_name(&src.name, &name, release));
    }
    let container = path.child("container");
    if src.container.is_empty() {
        errs.push(FieldError::required(&container, "must specify a container"));
    } else {
        for msg in names::dns1123_label(&src.container) {
            errs.push(FieldError::invalid(&container, BadValue::Str(src.container.as_str().into()), msg));
        }
    }
    let target = path.child("target");
    errs.extend(validate_metric_target(&src.target, &target));
    errs.extend(utilization_or_value(&src.target, &target));
    errs
}

/// `validateResourceSource`.
fn validate_resource_source(src: &ResourceMetricSource, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    if src.name.is_empty() {
        errs.push(FieldError::required(&path.child("name"), "must specify a resource name"));
    }
    let target = path.child("target");
    errs.extend(validate_metric_target(&src.target, &target));
    errs.extend(utilization_or_value(&src.target, &target));
    errs
}

fn utilization_or_value(target: &MetricTarget, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    if target.average_utilization.is_none() && target.average_value.is_none() {
        errs.push(FieldError::required(
            &path.child("averageUtilization"),
            "must set either a target raw value or a target utilization",
        ));
    }
    if target.average_utilization.is_some() && target.average_value.is_some() {
        errs.push(FieldError::forbidden(
            &path.child("averageValue"),
            "may not set both a target raw value and a target utilization",
        ));
    }
    errs
}

/// `corevalidation.ValidateContainerResourceName` (pkg/apis/core/v1/validation).
fn validate_container_resource_name(value: &str, path: &Path<'_>, release: KubernetesVersion) -> ErrorList {
    let mut errs = ErrorList::new();
    // validateResourceName
    let msgs = names::qualified_name(value, release);
    if !msgs.is_empty() {
        errs.extend(msgs.into_iter().map(|m| FieldError::invalid(path, BadValue::Stringer(value.to_string()), m)));
    } else if !value.contains('/') && !names::is_standard_resource_name(value) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Stringer(value.to_string()),
            "must be a standard resource type or fully qualified",
        ));
    }
    if !value.contains('/') {
        if !names::is_standard_container_resource_name(value) {
            errs.push(FieldError::invalid(
                path,
                BadValue::Stringer(value.to_string()),
                "must be a standard resource for containers",
            ));
        }
    } else if !names::is_native_resource(value) && !names::is_extended_resource_name(value) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Stringer(value.to_string()),
            "doesn't follow extended resource name standard",
        ));
    }
    errs
}

/// A metric target's quantity: `field.Invalid` gets the `*resource.Quantity` itself, which 1.33
/// prints as a struct (`%#v`) and later releases as JSON.
fn quantity_value(q: &Quantity) -> BadValue {
    BadValue::Quantity(q.clone())
}

/// `validateMetricTarget`.
fn validate_metric_target(target: &MetricTarget, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    let type_path = path.child("type");
    if target.type_.is_empty() {
        errs.push(FieldError::required(&type_path, "must specify a metric target type"));
    }
    if !matches!(target.type_.as_str(), "Utilization" | "Value" | "AverageValue") {
        errs.push(FieldError::invalid(
            &type_path,
            BadValue::named(&target.type_),
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    if let Some(v) = &target.value
        && v.sign() != 1
    {
        errs.push(FieldError::invalid(&path.child("value"), quantity_value(v), "must be positive"));
    }
    if let Some(v) = &target.average_value
        && v.sign() != 1
    {
        errs.push(FieldError::invalid(&path.child("averageValue"), quantity_value(v), "must be positive"));
    }
    if let Some(u) = target.average_utilization
        && u < 1
    {
        errs.push(FieldError::invalid(
            &path.child("averageUtilization"),
            BadValue::Int(i64::from(u)),
            "must be greater than 0",
        ));
    }
    errs
}

/// `validateMetricIdentifier`.
fn validate_metric_identifier(id: &MetricIdentifier, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    let name = path.child("name");
    if id.name.is_empty() {
        errs.push(FieldError::required(&name, "must specify a metric name"));
    } else {
        for msg in names::path_segment_name(&id.name) {
            errs.push(FieldError::invalid(&name, BadValue::Str(id.name.as_str().into()), msg));
        }
    }
    errs
}

/// `validateBehavior`.
fn validate_behavior(behavior: Option<&HorizontalPodAutoscalerBehavior>, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    if let Some(b) = behavior {
        errs.extend(validate_scaling_rules(b.scale_up.as_ref(), &path.child("scaleUp")));
        errs.extend(validate_scaling_rules(b.scale_down.as_ref(), &path.child("scaleDown")));
    }
    errs
}

/// Valid `selectPolicy` values, sorted as listed in messages.
pub const SELECT_POLICIES: [&str; 3] = ["Disabled", "Max", "Min"];
/// Valid policy types, sorted as listed in messages.
pub const POLICY_TYPES: [&str; 2] = ["Percent", "Pods"];

/// `validateScalingRules`.
fn validate_scaling_rules(rules: Option<&HPAScalingRules>, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(rules) = rules else { return errs };
    if let Some(w) = rules.stabilization_window_seconds {
        let p = path.child("stabilizationWindowSeconds");
        if w < 0 {
            errs.push(FieldError::invalid(&p, BadValue::Int(i64::from(w)), "must be greater than or equal to zero"));
        }
        if w > MAX_STABILIZATION_WINDOW_SECONDS {
            errs.push(FieldError::invalid(
                &p,
                BadValue::Int(i64::from(w)),
                format!("must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"),
            ));
        }
    }
    if let Some(sp) = &rules.select_policy
        && !SELECT_POLICIES.contains(&sp.as_str())
    {
        errs.push(FieldError::not_supported(&path.child("selectPolicy"), BadValue::named(sp), &SELECT_POLICIES));
    }
    let policies_path = path.child("policies");
    let policies = rules.policies.as_deref().unwrap_or_default();
    if policies.is_empty() {
        errs.push(FieldError::required(&policies_path, "must specify at least one Policy"));
    }
    for (i, policy) in policies.iter().enumerate() {
        errs.extend(validate_scaling_policy(policy, &policies_path.index(i)));
    }
    // `apivalidation.ValidateNonnegativeQuantity(*rules.Tolerance, ...)`: it reports
    // `value.String()`, a Go string, so every release prints it quoted (1.33 too).
    if let Some(t) = &rules.tolerance
        && t.sign() < 0
    {
        errs.push(FieldError::invalid(
            &path.child("tolerance"),
            BadValue::Str(t.canonical()),
            "must be greater than or equal to 0",
        ));
    }
    errs
}

/// `validateScalingPolicy`.
fn validate_scaling_policy(policy: &HPAScalingPolicy, path: &Path<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    if policy.type_ != "Pods" && policy.type_ != "Percent" {
        errs.push(FieldError::not_supported(&path.child("type"), BadValue::named(&policy.type_), &POLICY_TYPES));
    }
    if policy.value <= 0 {
        errs.push(FieldError::invalid(
            &path.child("value"),
            BadValue::Int(i64::from(policy.value)),
            "must be greater than zero",
        ));
    }
    let period = path.child("periodSeconds");
    if policy.period_seconds <= 0 {
        errs.push(FieldError::invalid(
            &period,
            BadValue::Int(i64::from(policy.period_seconds)),
            "must be greater than zero",
        ));
    }
    if policy.period_seconds > MAX_PERIOD_SECONDS {
        errs.push(FieldError::invalid(
            &period,
            BadValue::Int(i64::from(policy.period_seconds)),
            format!("must be less than or equal to {MAX_PERIOD_SECONDS}"),
        ));
    }
    errs
}
