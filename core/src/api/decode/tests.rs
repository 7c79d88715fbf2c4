//! The decoder against what kube-apiserver answers. The messages are Go's: `encoding/json`'s
//! `UnmarshalTypeError` (with `sigs.k8s.io/json`'s field context), its strict errors,
//! `resource.ParseQuantity` and `time.Parse`. (Compiled for tests only.)

#![cfg(test)]

use super::*;
use crate::api::{self, ApiVersion, VersionedHpa};

/// What a test that reads its own inputs back returns: `?` fails it with the error's text.
type TestResult = Result<(), Box<dyn std::error::Error>>;

const V2: &str = r#""apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler""#;

fn errors(version: &str, body: &str) -> Vec<DecodeError> {
    let text = format!(r#"{{"apiVersion": "autoscaling/{version}", "kind": "HorizontalPodAutoscaler", {body}}}"#);
    api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).expect_err("decoding must fail")
}

fn message(version: &str, body: &str) -> String {
    let errors = errors(version, body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors[0].message.clone()
}

#[test]
fn type_errors_are_go_unmarshal_type_errors() {
    for (version, body, expected) in [
        (
            "v2",
            r#""spec": {"metrics": {}}"#,
            "json: cannot unmarshal object into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type []v2.MetricSpec",
        ),
        (
            "v2beta2",
            r#""spec": {"metrics": {}}"#,
            "json: cannot unmarshal object into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type []v2beta2.MetricSpec",
        ),
        (
            "v2",
            r#""spec": {"maxReplicas": "ten"}"#,
            "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        ),
        (
            "v2",
            r#""spec": {"maxReplicas": 5.5}"#,
            "json: cannot unmarshal number 5.5 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        ),
        (
            "v2",
            r#""spec": {"maxReplicas": 2147483648}"#,
            "json: cannot unmarshal number 2147483648 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        ),
        (
            "v2",
            r#""spec": {"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": "50%"}}}]}"#,
            "json: cannot unmarshal string into Go struct field MetricTarget.spec.metrics.resource.target.averageUtilization of type int32",
        ),
        (
            "v2",
            r#""spec": {"metrics": ["cpu"]}"#,
            "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type v2.MetricSpec",
        ),
        (
            "v2",
            r#""spec": {"metrics": [{"type": 5}]}"#,
            "json: cannot unmarshal number into Go struct field MetricSpec.spec.metrics.type of type v2.MetricSourceType",
        ),
        (
            "v2",
            r#""spec": {"metrics": [{"resource": {"name": ["cpu"]}}]}"#,
            "json: cannot unmarshal array into Go struct field ResourceMetricSource.spec.metrics.resource.name of type v1.ResourceName",
        ),
        (
            "v2",
            r#""spec": {"behavior": {"scaleDown": {"selectPolicy": []}}}"#,
            "json: cannot unmarshal array into Go struct field HPAScalingRules.spec.behavior.scaleDown.selectPolicy of type v2.ScalingPolicySelect",
        ),
        (
            "v2",
            r#""spec": {"behavior": {"scaleUp": {"policies": [true]}}}"#,
            "json: cannot unmarshal bool into Go struct field HPAScalingRules.spec.behavior.scaleUp.policies of type v2.HPAScalingPolicy",
        ),
        (
            "v2",
            r#""metadata": []"#,
            "json: cannot unmarshal array into Go struct field HorizontalPodAutoscaler.metadata of type v1.ObjectMeta",
        ),
        (
            "v2",
            r#""metadata": {"labels": {"app": {}}}"#,
            "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            "v2",
            r#""metadata": {"labels": []}"#,
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            "v2",
            r#""metadata": {"uid": 7}"#,
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID",
        ),
        (
            "v2",
            r#""metadata": {"generation": -9223372036854776000}"#,
            "json: cannot unmarshal number -9223372036854776000 into Go struct field ObjectMeta.metadata.generation of type int64",
        ),
        (
            "v2",
            r#""spec": {"metrics": [{"pods": {"metric": {"selector": {"matchExpressions": [{"operator": 1}]}}}}]}"#,
            "json: cannot unmarshal number into Go struct field LabelSelectorRequirement.spec.metrics.pods.metric.selector.matchExpressions.operator of type v1.LabelSelectorOperator",
        ),
        (
            "v1",
            r#""spec": {"targetCPUUtilizationPercentage": true}"#,
            "json: cannot unmarshal bool into Go struct field HorizontalPodAutoscalerSpec.spec.targetCPUUtilizationPercentage of type int32",
        ),
        (
            "v2",
            r#""status": {"conditions": [{"status": false}]}"#,
            "json: cannot unmarshal bool into Go struct field HorizontalPodAutoscalerCondition.status.conditions.status of type v1.ConditionStatus",
        ),
    ] {
        assert_eq!(message(version, body), expected, "{body}");
    }
}

#[test]
fn unmarshaler_errors_are_theirs() -> TestResult {
    for (body, expected, path) in [
        (
            r#""spec": {"metrics": [{"pods": {"target": {"averageValue": "1ki"}}}]}"#,
            "unable to parse quantity's suffix",
            "spec.metrics[0].pods.target.averageValue",
        ),
        (
            r#""spec": {"metrics": [{"pods": {"target": {"averageValue": {"a": 1}}}}]}"#,
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            "spec.metrics[0].pods.target.averageValue",
        ),
        (
            r#""metadata": {"creationTimestamp": "yesterday"}"#,
            "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\"",
            "metadata.creationTimestamp",
        ),
        (
            r#""metadata": {"creationTimestamp": 5}"#,
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
            "metadata.creationTimestamp",
        ),
        (
            r#""status": {"conditions": [{"type": "AbleToScale", "status": "True", "lastTransitionTime": true}]}"#,
            "json: cannot unmarshal bool into Go struct field HorizontalPodAutoscalerCondition.status.conditions.lastTransitionTime of type string",
            "status.conditions[0].lastTransitionTime",
        ),
        (
            r#""status": {"lastScaleTime": 5}"#,
            "json: cannot unmarshal number into Go struct field HorizontalPodAutoscalerStatus.status.lastScaleTime of type string",
            "status.lastScaleTime",
        ),
        (
            r#""metadata": {"managedFields": [{"manager": "m", "time": ["x"]}]}"#,
            "json: cannot unmarshal array into Go struct field ManagedFieldsEntry.metadata.managedFields.time of type string",
            "metadata.managedFields[0].time",
        ),
    ] {
        let errors = errors("v2", body);
        assert_eq!((errors[0].message.as_str(), errors[0].path.as_str()), (expected, path), "{body}");
    }
    // Quantities are read from numbers too, and `null` is nil.
    let text = format!(
        r#"{{{V2}, "spec": {{"metrics": [{{"pods": {{"target": {{"averageValue": 1.5, "value": null}}}}}}]}}}}"#
    );
    let VersionedHpa::V2(hpa) =
        api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).map_err(|e| format!("{e:?}"))?.value
    else {
        return Err("not an autoscaling/v2 object".into());
    };
    let target = &hpa.spec.metrics[0].pods.as_ref().ok_or("absent")?.target;
    assert_eq!(target.average_value.as_ref().map(ToString::to_string).as_deref(), Some("1500m"));
    assert_eq!(target.value, None);
    Ok(())
}

#[test]
fn which_error_wins() {
    // The first type error in document order.
    assert!(message("v2", r#""spec": {"minReplicas": "1", "maxReplicas": "2"}"#).contains("spec.minReplicas"));
    // An unmarshaler error stops decoding and wins over an earlier type error.
    let body = r#""spec": {"maxReplicas": "x", "metrics": [{"pods": {"target": {"averageValue": "1ki"}}}], "minReplicas": "y"}"#;
    assert_eq!(message("v2", body), "unable to parse quantity's suffix");
    // Strict errors only when nothing else failed.
    assert!(message("v2", r#""spec": {"bogus": 1, "maxReplicas": "x"}"#).starts_with("json: cannot unmarshal string"));
}

#[test]
fn strict_errors_in_document_order_deduplicated() {
    let errors = errors(
        "v2",
        r#""metadata": {"name": "a", "nmae": "b", "name": "c", "labels": {"a.b": "1", "a.b": "2"}},
        "spec": {"miniReplicas": 1, "metrics": [{"type": "Pods", "bogus": 1}, {"bogus": 2}],
                 "scaleTargetRef": {"x": 1}, "scaleTargetRef": {"x": 2}}"#,
    );
    let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "unknown field \"metadata.nmae\"",
            "duplicate field \"metadata.name\"",
            "duplicate field \"metadata.labels.a.b\"",
            "unknown field \"spec.miniReplicas\"",
            "unknown field \"spec.metrics[0].bogus\"",
            "unknown field \"spec.metrics[1].bogus\"",
            "unknown field \"spec.scaleTargetRef.x\"",
            "duplicate field \"spec.scaleTargetRef\"",
        ]
    );
    let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths[2], "metadata.labels[a.b]");
    assert_eq!(paths[4], "spec.metrics[0].bogus");
    assert_eq!(
        api::decode_failure_message(Some(ApiVersion::V2), &errors[..2]),
        "HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: \
         strict decoding error: unknown field \"metadata.nmae\", duplicate field \"metadata.name\""
    );
}

#[test]
fn lenient_decoding_returns_what_it_ignored() -> TestResult {
    let text = format!(r#"{{{V2}, "spec": {{"maxReplicas": 3, "syncPeriodSeconds": 30}}}}"#);
    let decoded =
        api::decode_json(&text, Strictness::Lenient, KubernetesVersion::LATEST).map_err(|e| format!("{e:?}"))?;
    assert_eq!(decoded.ignored.len(), 1);
    assert_eq!(decoded.ignored[0].path, "spec.syncPeriodSeconds");
    let VersionedHpa::V2(hpa) = decoded.value else { return Err("not an autoscaling/v2 object".into()) };
    assert_eq!(hpa.spec.max_replicas, 3);
    // Type errors are errors either way.
    let text = format!(r#"{{{V2}, "spec": {{"maxReplicas": "3", "x": 1}}}}"#);
    assert_eq!(
        api::decode_json(&text, Strictness::Lenient, KubernetesVersion::LATEST).unwrap_err()[0].kind,
        DecodeErrorKind::InvalidValue
    );
    Ok(())
}

#[test]
fn null_and_duplicates_decode_as_in_go() -> TestResult {
    let text = format!(
        r#"{{{V2}, "metadata": {{"name": null, "labels": {{"a": null}}}},
        "spec": {{"maxReplicas": null, "scaleTargetRef": null, "metrics": null, "minReplicas": null,
                 "behavior": {{"scaleUp": {{"stabilizationWindowSeconds": 5}}}},
                 "behavior": {{"scaleDown": {{"policies": []}}}}}}}}"#
    );
    let decoded =
        api::decode_json(&text, Strictness::Lenient, KubernetesVersion::LATEST).map_err(|e| format!("{e:?}"))?;
    let VersionedHpa::V2(hpa) = decoded.value else { return Err("not an autoscaling/v2 object".into()) };
    assert_eq!(hpa.spec.max_replicas, 0);
    assert_eq!(hpa.spec.min_replicas, None);
    assert_eq!(hpa.metadata.labels["a"], "");
    // A duplicate decodes into the value the first one made.
    let behavior = hpa.spec.behavior.ok_or("absent")?;
    assert_eq!(behavior.scale_up.ok_or("absent")?.stabilization_window_seconds, Some(5));
    assert_eq!(behavior.scale_down.ok_or("absent")?.policies, Some(Vec::new()));
    assert_eq!(decoded.ignored[0].message, "duplicate field \"spec.behavior\"");
    Ok(())
}

#[test]
fn encoding_json_matches_keys_case_insensitively() -> TestResult {
    let text = r#"{"scaleup": {"POLICIES": [{"type": "Pods", "value": 1, "periodseconds": 60}]}, "x": 1}"#;
    let d = decode_from::<crate::convert::annotations::InternalBehavior, _>(
        json::JsonSource::new(text),
        "autoscaling",
        DecodeOptions::ENCODING_JSON,
        Strictness::Lenient,
    )
    .map_err(|e| format!("{e:?}"))?;
    assert_eq!(d.value.scale_up.ok_or("absent")?.policies.ok_or("absent")?[0].period_seconds, 60);
    assert_eq!(d.ignored.len(), 1);
    let text = r#"{"ScaleUp": {"Policies": "x"}}"#;
    let e = decode_from::<crate::convert::annotations::InternalBehavior, _>(
        json::JsonSource::new(text),
        "autoscaling",
        DecodeOptions::ENCODING_JSON,
        Strictness::Lenient,
    )
    .unwrap_err();
    assert_eq!(
        e[0].message,
        "json: cannot unmarshal string into Go struct field HPAScalingRules.ScaleUp.Policies of type []autoscaling.HPAScalingPolicy"
    );
    Ok(())
}

/// `foldName` maps runes through Unicode's simple case mappings: `ſ` (U+017F) folds to `S`, the
/// Kelvin sign to `K`, `İ` and `ı` to `I`; `ß` stays itself (its uppercase `SS` is a full
/// mapping), and a key of another length never matches.
#[test]
fn encoding_json_folds_keys_as_go_does() -> TestResult {
    let text =
        "{\"\u{17f}caleUp\": {\"pol\u{131}c\u{130}es\": [{\"type\": \"Pods\", \"value\": 1, \"periodSeconds\": 60}]}}";
    let d = decode_from::<crate::convert::annotations::InternalBehavior, _>(
        json::JsonSource::new(text),
        "autoscaling",
        DecodeOptions::ENCODING_JSON,
        Strictness::Lenient,
    )
    .map_err(|e| format!("{e:?}"))?;
    assert_eq!(d.value.scale_up.ok_or("absent")?.policies.ok_or("absent")?[0].period_seconds, 60);
    assert!(super::equal_fold("kind", "\u{212a}IND"));
    assert!(!super::equal_fold("ss", "\u{df}"));
    assert!(!super::equal_fold("scaleUp", "scaleUpx"));
    assert!(!super::equal_fold("scaleUp", "scaleU"));
    Ok(())
}

#[test]
fn syntax_errors_win() {
    let text = format!(r#"{{{V2}, "spec": {{"maxReplicas": "x"}}}} trailing"#);
    let e = api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).unwrap_err();
    assert_eq!(e[0].kind, DecodeErrorKind::Syntax);
    assert_eq!(e[0].message, "invalid character 't' after top-level value");
}

#[test]
fn numbers_from_other_sources_read_as_their_json() {
    assert_eq!(Number::Float(5.0).as_i64(), Some(5));
    assert_eq!(Number::Float(1e20).text(), "100000000000000000000");
    assert_eq!(Number::Float(1e20).as_i64(), None);
    assert_eq!(Number::UInt(u64::MAX).as_i64(), None);
    assert_eq!(Number::Text("1e3".into()).as_i64(), None);
    assert_eq!(Number::Text("-0".into()).as_i64(), Some(0));
}

#[test]
fn fields_v1_is_kept_raw_as_in_go() -> TestResult {
    let fields = |value: &str| -> Result<Option<_>, Box<dyn std::error::Error>> {
        let text = format!(
            r#"{{{V2}, "metadata": {{"managedFields": [{{"manager": "m", "operation": "Update", "fieldsV1": {value}}}]}}}}"#
        );
        let decoded =
            api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).map_err(|e| format!("{e:?}"))?;
        let VersionedHpa::V2(hpa) = decoded.value else { return Err("not an autoscaling/v2 object".into()) };
        Ok(hpa.metadata.managed_fields[0].fields_v1.clone())
    };
    // `FieldsV1.UnmarshalJSON` copies the text; `encoding/json` compacts what `MarshalJSON`
    // returns (HTML-safe): key order, duplicates, escapes and number spellings stay.
    let f = fields(r#"{ "f:spec": {"f:b": {}, "f:a": {}, "f:a": {"x": 1e3}}, "f:<": "\u0041" }"#)?.ok_or("absent")?;
    assert_eq!(f.raw(), r#"{ "f:spec": {"f:b": {}, "f:a": {}, "f:a": {"x": 1e3}}, "f:<": "\u0041" }"#);
    assert_eq!(crate::go::to_go_json(&f)?, r#"{"f:spec":{"f:b":{},"f:a":{},"f:a":{"x":1e3}},"f:\u003c":"\u0041"}"#);
    // `null` leaves the `*FieldsV1` nil, and the field is omitted again.
    assert_eq!(fields("null")?, None);
    // Any other JSON value is taken as it is (a lone surrogate too, which serde_json refuses):
    // neither decoding nor `ValidateManagedFields` looks inside.
    assert_eq!(fields(r#""x""#)?.ok_or("absent")?.raw(), r#""x""#);
    assert_eq!(fields(r#"["\ud800"]"#)?.ok_or("absent")?.raw(), r#"["\ud800"]"#);
    assert_eq!(fields("[1, 2]")?.ok_or("absent")?.to_json(), "[1,2]");
    Ok(())
}

/// A lone surrogate escape in `fieldsV1` (Go accepts it, and `FieldsV1.Raw` keeps it): the
/// object is written back with the escape passed through (`json.Marshal` of a `RawMessage`), and
/// as a tree it reads as `encoding/json` reads it into an `interface{}` (U+FFFD), where
/// `serde_json::to_value` refuses the whole object.
#[test]
fn a_lone_surrogate_in_fields_v1_is_passed_through() -> TestResult {
    let text = format!(
        r#"{{{V2}, "metadata": {{"name": "web", "managedFields": [{{"manager": "m", "operation": "Update",
            "fieldsV1": {{"f:metadata": {{"f:labels": {{"f:a\ud800": {{}}}}}}}}}}]}}, "spec": {{"maxReplicas": 3}}}}"#
    );
    let decoded =
        api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).map_err(|e| format!("{e:?}"))?;
    let VersionedHpa::V2(hpa) = &decoded.value else { return Err("not an autoscaling/v2 object".into()) };
    assert!(serde_json::to_value(hpa).is_err(), "serde_json cannot hold the escape in a tree");
    // Written as text: the escape passes through unchanged.
    let written = crate::go::to_go_json(hpa)?;
    assert!(written.contains(r#""fieldsV1":{"f:metadata":{"f:labels":{"f:a\ud800":{}}}}"#), "{written}");
    assert!(serde_json::to_string(hpa)?.contains(r#""f:a\ud800""#));
    // As a tree: the whole object, the escape read as Go reads it.
    let tree = decoded.value.to_json();
    assert_eq!(tree["spec"]["maxReplicas"], 3);
    assert_eq!(tree["kind"], "HorizontalPodAutoscaler");
    assert_eq!(
        tree["metadata"]["managedFields"][0]["fieldsV1"],
        serde_json::json!({"f:metadata": {"f:labels": {"f:a\u{fffd}": {}}}})
    );
    let fields = hpa.metadata.managed_fields[0].fields_v1.as_ref().ok_or("absent")?;
    assert_eq!(fields.to_value(), Some(serde_json::json!({"f:metadata": {"f:labels": {"f:a\u{fffd}": {}}}})));
    Ok(())
}

/// A struct that reads part of a larger type (`#[go(ignore = ..)]`): the keys of the rest are
/// skipped, neither decoded nor unknown, nor named among the fields an unknown one could be.
#[test]
fn ignored_keys_are_skipped_and_not_listed() {
    const REST: &[&str] = &["image", "ports"];
    #[derive(Debug, Default, crate::api::decode::Decode)]
    #[go(package = "scenario", name = "Container", ignore = "REST")]
    struct Part {
        name: String,
    }
    let decode = |text: &str| {
        decode_from::<Part, _>(
            json::JsonSource::new(text),
            "scenario",
            DecodeOptions::KUBE_APISERVER,
            Strictness::Strict,
        )
    };
    let part = decode(r#"{"name": "app", "image": "nginx", "ports": [{"containerPort": 80}]}"#);
    assert_eq!(part.map(|d| (d.value.name, d.ignored.len())).ok(), Some(("app".to_string(), 0)));
    let errors = decode(r#"{"name": "app", "image": 1, "imag": "nginx"}"#).unwrap_err();
    let got: Vec<(&str, Option<Detail>)> = errors.iter().map(|e| (e.message.as_str(), e.detail)).collect();
    assert_eq!(got, [("unknown field \"imag\"", Some(Detail::UnknownField(&["name"])))]);
}

/// Decoding for the first error alone (kubectl's metadata check: strings and map entries read
/// and checked, not stored) finds the first error decoding the value finds, in its words.
#[test]
fn the_first_error_alone_is_the_first_error_of_decoding_the_value() {
    use crate::api::meta::MetadataOnlyObject;
    let options = DecodeOptions::KUBECTL_METADATA;
    for (body, expected) in [
        (
            r#"{"kind": "X", "metadata": {"name": "a", "labels": {"a": "b", "c": 1}}}"#,
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
        ),
        (
            r#"{"kind": "X", "metadata": {"labels": {"a": "b"}, "annotations": [1], "name": 2}}"#,
            Some(
                "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.annotations of type map[string]string",
            ),
        ),
        (
            r#"{"kind": "X", "metadata": {"name": "a", "creationTimestamp": "today"}}"#,
            Some(r#"parsing time "today" as "2006-01-02T15:04:05Z07:00": cannot parse "today" as "2006""#),
        ),
        (r#"{"kind": "X", "metadata": {"name": "a", "labels": {"a": "b"}}, "spec": 1}"#, None),
    ] {
        let first = lenient_error_from::<MetadataOnlyObject, _>(json::JsonSource::new(body), "v1", options);
        let decoded =
            decode_from::<MetadataOnlyObject, _>(json::JsonSource::new(body), "v1", options, Strictness::Lenient);
        let decoded_first = decoded.err().and_then(|e| e.into_iter().next());
        assert_eq!(first.as_ref().map(|e| e.message.as_str()), expected, "{body}");
        assert_eq!(first.map(|e| e.to_string()), decoded_first.map(|e| e.to_string()), "{body}");
    }
}

/// Decoding that goes on past every error ([`decode_every_error_from`]) keeps each type error,
/// each refused value and each strict error, in document order, where kube-apiserver's decoding
/// of the same text keeps the refused quantity alone (it stops there) and, without it, the first
/// type error alone.
#[test]
fn every_error_in_document_order() {
    let text = format!(
        r#"{{{V2}, "metadata": {{"name": 5, "nmae": "x"}},
        "spec": {{"maxReplicas": "ten", "metrics": [{{"type": "Pods", "pods": {{"target": {{"averageValue": "1ki"}}}}}},
                  "cpu", {{"type": 5, "bogus": 1}}], "minReplicas": 1.5}}}}"#
    );
    let every = decode_every_error_from::<crate::api::v2::HorizontalPodAutoscaler, _>(
        json::JsonSource::new(&text),
        "v2",
        DecodeOptions::KUBE_APISERVER,
    )
    .unwrap_err();
    let got: Vec<(&str, &str)> = every.iter().map(|e| (e.path.as_str(), e.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (
                "metadata.name",
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"
            ),
            ("metadata.nmae", "unknown field \"metadata.nmae\""),
            (
                "spec.maxReplicas",
                "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32"
            ),
            ("spec.metrics[0].pods.target.averageValue", "unable to parse quantity's suffix"),
            (
                "spec.metrics[1]",
                "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type v2.MetricSpec"
            ),
            (
                "spec.metrics[2].type",
                "json: cannot unmarshal number into Go struct field MetricSpec.spec.metrics.type of type v2.MetricSourceType"
            ),
            ("spec.metrics[2].bogus", "unknown field \"spec.metrics[2].bogus\""),
            (
                "spec.minReplicas",
                "json: cannot unmarshal number 1.5 into Go struct field HorizontalPodAutoscalerSpec.spec.minReplicas of type int32"
            ),
        ]
    );
    // kube-apiserver: the refused quantity stops decoding; without it, the first type error.
    let first = api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).unwrap_err();
    assert_eq!(first.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(), ["unable to parse quantity's suffix"]);
    let text = text.replace("1ki", "1Ki");
    let first = api::decode_json(&text, Strictness::Strict, KubernetesVersion::LATEST).unwrap_err();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].path, "metadata.name");
    // A clean text decodes as with `decode_from`; only a syntax error stops, after what was kept.
    let clean = format!(r#"{{{V2}, "spec": {{"maxReplicas": 3}}}}"#);
    let hpa = decode_every_error_from::<crate::api::v2::HorizontalPodAutoscaler, _>(
        json::JsonSource::new(&clean),
        "v2",
        DecodeOptions::KUBE_APISERVER,
    );
    assert_eq!(hpa.map(|h| h.spec.max_replicas).ok(), Some(3));
    let broken = format!(r#"{{{V2}, "spec": {{"maxReplicas": "x", "minReplicas": 1,,}}}}"#);
    let errors = decode_every_error_from::<crate::api::v2::HorizontalPodAutoscaler, _>(
        json::JsonSource::new(&broken),
        "v2",
        DecodeOptions::KUBE_APISERVER,
    )
    .unwrap_err();
    let kinds: Vec<DecodeErrorKind> = errors.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [DecodeErrorKind::InvalidValue, DecodeErrorKind::Syntax]);
}

/// A value refused only because a value beneath it was (its own check of what it holds, after
/// the refused part) is a consequence, not reported again; one refused for itself is.
#[test]
fn a_refusal_beneath_a_refused_value_is_reported_once() {
    #[derive(Debug, Default)]
    struct Pair(Vec<Quantity>);
    impl Decode for Pair {
        fn go_type(_: &str) -> String {
            "test.Pair".into()
        }
        fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, ty: GoType) -> Result<(), Abort> {
            self.0.decode(d, ty)?;
            if self.0.len() == 2 { Ok(()) } else { Err(d.fail("a pair has two items".into())) }
        }
    }
    #[derive(Debug, Default, crate::api::decode::Decode)]
    #[go(package = "test", name = "Pairs")]
    struct Pairs {
        a: Pair,
        b: Pair,
    }
    let errors = decode_every_error_from::<Pairs, _>(
        json::JsonSource::new(r#"{"a": ["1", "x", "3"], "b": ["1"]}"#),
        "test",
        DecodeOptions::KUBE_APISERVER,
    )
    .unwrap_err();
    let got: Vec<(&str, &str)> = errors.iter().map(|e| (e.path.as_str(), e.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("a[1]", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
            ("b", "a pair has two items"),
        ]
    );
}

/// kube-apiserver words a decode error alike in 1.33 to 1.38. Its decoder is
/// `sigs.k8s.io/json`'s fork of `encoding/json`: the syntax errors are the fork's own, and the
/// type errors are the standard library's `UnmarshalTypeError` (a type alias), whose `Error()`
/// comes from the Go release the Kubernetes release is built with: Go 1.24 to 1.26 for 1.33 to
/// 1.37, and Go 1.27 for 1.38, where `encoding/json` runs on json/v2 (`v2_decode.go`). That `Error()` keeps the v1 words; it drops "Go struct field " only when
/// the field path ends in an array index, which the fork's path (field names only) never does,
/// and appends `Err`, which the fork never sets. `metav1.Time`'s standard-library
/// `json.Unmarshal(b, &str)` gives the same error under json/v2 (no value, no `Err`).
#[test]
fn decode_errors_are_worded_alike_in_every_release() {
    let bodies = [
        r#""spec": {"maxReplicas": "3"}"#,
        r#""spec": {"maxReplicas": 5.5}"#,
        r#""spec": {"metrics": {}}"#,
        r#""metadata": {"labels": {"a": 1}}"#,
        r#""metadata": {"creationTimestamp": 5}"#,
        r#""spec": {"maxReplicas": 3, "x": 1}"#,
        r#""spec": {"maxReplicas": 3,}"#,
    ];
    let expected = [
        "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        "json: cannot unmarshal number 5.5 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32",
        "json: cannot unmarshal object into Go struct field HorizontalPodAutoscalerSpec.spec.metrics of type []v2.MetricSpec",
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
        "unknown field \"spec.x\"",
        "invalid character '}' looking for beginning of object key string",
    ];
    for release in KubernetesVersion::ALL {
        let got: Vec<String> = bodies
            .iter()
            .map(|body| {
                let text = format!("{{{V2}, {body}}}");
                let errors = api::decode_json(&text, Strictness::Strict, release).expect_err("decoding must fail");
                errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
            })
            .collect();
        assert_eq!(got, expected, "{release:?}");
    }
}
