//! The metrics APIs' answers, as the HPA controller's metrics clients decode them: `PodMetrics`
//! (`metrics.k8s.io/v1beta1`, `k8s.io/metrics/pkg/apis/metrics/v1beta1/types.go`), `MetricValue`
//! (`custom.metrics.k8s.io/v1beta2` and `v1beta1`, `pkg/apis/custom_metrics/*/types.go`) and
//! `ExternalMetricValue` (`external.metrics.k8s.io/v1beta1`), through the one decoder
//! ([`mod@super::decode`]).
//!
//! The clients decode a whole list at once with apimachinery's JSON serializer, not strict
//! (`runtime/serializer/json.Serializer.Decode` → `sigs.k8s.io/json`
//! `UnmarshalCaseSensitivePreserveInts`): unknown and duplicate fields are ignored, the first type
//! error of the list (in document order) is saved and decoding goes on, and an `UnmarshalJSON`'s
//! error (`resource.Quantity`, `metav1.Time`, `metav1.Duration`) stops it and wins. One bad item
//! fails the whole answer, so [`decode_list`] decodes the items of one answer as one list.

use std::collections::BTreeMap;

use serde_json::Value;

use super::decode::json::JsonSource;
use super::decode::{
    Abort, Decode, DecodeError, DecodeErrorKind, DecodeOptions, Decoder, GoType, Kind, PathStep, Shape, Source,
    Strictness, decode_from, parse_path, raw_at,
};
use super::meta::{LabelSelector, ObjectMeta};
use super::quantity::Quantity;
use super::time::Time;
use crate::features::KubernetesVersion;

/// `metav1.Duration`: a Go `time.Duration`, in nanoseconds (signed: a negative window decodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Duration(pub i64);

/// `metav1.Duration.UnmarshalJSON`: the value is unmarshalled into a Go `string` with the
/// standard library (`null` leaves it `""`; another kind is its type error, not named by the
/// field), then `time.ParseDuration` reads it (`time: invalid duration ""` for `null`).
impl Decode for Duration {
    fn go_type(_: &str) -> String {
        "v1.Duration".into()
    }

    fn shape() -> Shape {
        Shape::String
    }

    fn decode<'de, S: Source<'de>>(&mut self, d: &mut Decoder<'de, S>, _: GoType) -> Result<(), Abort> {
        let text = match d.peek()? {
            Kind::String => {
                let r = d.source().string();
                d.check(r)?.into_owned()
            }
            Kind::Null => {
                d.skip()?;
                String::new()
            }
            other => {
                d.skip()?;
                return Err(d.fail_mismatch::<String>(other.go_name()));
            }
        };
        match crate::go::parse_duration(&text) {
            Ok(nanos) => {
                self.0 = nanos;
                Ok(())
            }
            Err(e) => Err(d.fail(e.to_string())),
        }
    }
}

/// `metrics.k8s.io/v1beta1` `PodMetricsList`: the answer of `PodMetricses(ns).List`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", rename_all = "camelCase")]
pub struct PodMetricsList {
    /// `items`
    pub items: Vec<PodMetrics>,
}

/// `metrics.k8s.io/v1beta1` `PodMetrics`: one pod's usage.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", rename_all = "camelCase")]
pub struct PodMetrics {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `metadata`
    pub metadata: ObjectMeta,
    /// `timestamp`
    pub timestamp: Time,
    /// `window`
    pub window: Duration,
    /// `containers`
    pub containers: Vec<ContainerMetrics>,
}

/// `metrics.k8s.io/v1beta1` `ContainerMetrics`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", rename_all = "camelCase")]
pub struct ContainerMetrics {
    /// `name`
    pub name: String,
    /// `usage` (`v1.ResourceList`)
    #[go(type = "v1.ResourceList")]
    pub usage: BTreeMap<String, Quantity>,
}

/// `v1.ObjectReference` (core/v1), the object a custom metric describes.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1", rename_all = "camelCase")]
pub struct ObjectReference {
    /// `kind`
    pub kind: String,
    /// `namespace`
    pub namespace: String,
    /// `name`
    pub name: String,
    /// `uid`
    #[go(type = "types.UID")]
    pub uid: String,
    /// `apiVersion`
    pub api_version: String,
    /// `resourceVersion`
    pub resource_version: String,
    /// `fieldPath`
    pub field_path: String,
}

/// `custom.metrics.k8s.io/v1beta2` `MetricValueList`: the answer of `GetForObject(s)`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta2", name = "MetricValueList", rename_all = "camelCase")]
pub struct MetricValueList {
    /// `items`
    pub items: Vec<MetricValue>,
}

/// `custom.metrics.k8s.io/v1beta2` `MetricValue`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta2", rename_all = "camelCase")]
pub struct MetricValue {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `describedObject`
    pub described_object: ObjectReference,
    /// `metric`
    pub metric: MetricIdentifier,
    /// `timestamp`
    pub timestamp: Time,
    /// `windowSeconds` (`None`: absent or `null`, the client's default window)
    pub window_seconds: Option<i64>,
    /// `value`
    pub value: Quantity,
}

/// `custom.metrics.k8s.io/v1beta2` `MetricIdentifier`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta2", rename_all = "camelCase")]
pub struct MetricIdentifier {
    /// `name`
    pub name: String,
    /// `selector`
    pub selector: Option<LabelSelector>,
}

/// `custom.metrics.k8s.io/v1beta1` `MetricValueList`, which the client converts to v1beta2
/// (`MetricConverter.ConvertResultToVersion`).
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", name = "MetricValueList", rename_all = "camelCase")]
pub struct MetricValueListV1beta1 {
    /// `items`
    pub items: Vec<MetricValueV1beta1>,
}

/// `custom.metrics.k8s.io/v1beta1` `MetricValue`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", name = "MetricValue", rename_all = "camelCase")]
pub struct MetricValueV1beta1 {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `describedObject`
    pub described_object: ObjectReference,
    /// `metricName`
    pub metric_name: String,
    /// `timestamp`
    pub timestamp: Time,
    /// `window` (Go's `WindowSeconds`)
    #[go(rename = "window")]
    pub window_seconds: Option<i64>,
    /// `value`
    pub value: Quantity,
    /// `selector`
    pub selector: Option<LabelSelector>,
}

/// The v1beta2 form, as the client's conversion makes it (`Convert_v1beta1_MetricValue_To_...`
/// through the internal version: `metricName` and `selector` become `metric`).
impl From<MetricValueV1beta1> for MetricValue {
    fn from(v: MetricValueV1beta1) -> MetricValue {
        MetricValue {
            api_version: v.api_version,
            kind: v.kind,
            described_object: v.described_object,
            metric: MetricIdentifier { name: v.metric_name, selector: v.selector },
            timestamp: v.timestamp,
            window_seconds: v.window_seconds,
            value: v.value,
        }
    }
}

/// `external.metrics.k8s.io/v1beta1` `ExternalMetricValueList`: the answer of
/// `NamespacedMetrics(ns).List`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", rename_all = "camelCase")]
pub struct ExternalMetricValueList {
    /// `items`
    pub items: Vec<ExternalMetricValue>,
}

/// `external.metrics.k8s.io/v1beta1` `ExternalMetricValue`.
#[derive(Debug, Clone, PartialEq, Default, Decode)]
#[go(package = "v1beta1", rename_all = "camelCase")]
pub struct ExternalMetricValue {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `metricName`
    pub metric_name: String,
    /// `metricLabels`
    pub metric_labels: BTreeMap<String, String>,
    /// `timestamp`
    pub timestamp: Time,
    /// `window` (Go's `WindowSeconds`)
    #[go(rename = "window")]
    pub window_seconds: Option<i64>,
    /// `value`
    pub value: Quantity,
}

/// The items of one answer of a metrics API, each as its JSON text (what the API server sent)
/// or as a decoded JSON value (a snapshot's, whose number literals are then written as
/// `serde_json` writes them).
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    /// The item's JSON text, as sent.
    Text(&'a str),
    /// The item as a JSON value.
    Value(&'a Value),
}

/// Why the metrics client cannot decode an answer ([`decode_list`]): the error it returns, and
/// where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AnswerError {
    /// The item the error is in (its index among the items given).
    pub item: usize,
    /// The field within the item, with indices (`window`, `containers[0].usage.cpu`; empty
    /// for the item itself).
    pub field: String,
    /// The field's value as written (JSON text; an object or an array on one line), when the
    /// error is about one.
    pub written: Option<String>,
    /// The client's error, in Go's words (`time: missing unit in duration "15"`, `json: cannot
    /// unmarshal string into Go struct field MetricValue.items.windowSeconds of type int64`).
    pub message: String,
}

/// Decodes the items of one answer as the list `L` (one of the lists above) that holds them,
/// as the metrics client decodes the answer (see the module's doc), with the Go types and
/// `ParseQuantity` of `release`; the error is the one the client returns.
pub fn decode_list<L: Decode + Default>(items: &[Item<'_>], release: KubernetesVersion) -> Result<L, AnswerError> {
    let texts: Vec<std::borrow::Cow<'_, str>> = items
        .iter()
        .map(|item| match item {
            Item::Text(t) => std::borrow::Cow::Borrowed(*t),
            Item::Value(v) => std::borrow::Cow::Owned(v.to_string()),
        })
        .collect();
    let mut text = String::from("{\"items\":[");
    for (i, item) in texts.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(item);
    }
    text.push_str("]}");
    let options = DecodeOptions::KUBE_APISERVER.in_release(release);
    let errors = match decode_from::<L, _>(JsonSource::new(&text), "v1beta1", options, Strictness::Lenient) {
        Ok(decoded) => return Ok(decoded.value),
        Err(errors) => errors,
    };
    let error = errors
        .into_iter()
        .next()
        .unwrap_or_else(|| DecodeError::new(DecodeErrorKind::InvalidValue, "", "the answer cannot be decoded"));
    // `items[3].containers[0].usage.cpu`: item 3, field `containers[0].usage.cpu`.
    let mut steps = parse_path(&error.path).into_iter();
    let (Some(PathStep::Field(_)), Some(PathStep::Index(item))) = (steps.next(), steps.next()) else {
        return Err(AnswerError { item: 0, field: error.path, written: None, message: error.message });
    };
    let within: Vec<PathStep> = steps.collect();
    let field = error.path.split_once(']').map(|(_, rest)| rest.trim_start_matches('.')).unwrap_or_default();
    let written =
        texts.get(item).filter(|_| !within.is_empty()).and_then(|t| raw_at(JsonSource::new(t), &within)).map(|raw| {
            match serde_json::from_str::<Value>(&raw) {
                // An object or an array on one line; a scalar as written (`6e1`).
                Ok(tree @ (Value::Object(_) | Value::Array(_))) => tree.to_string(),
                _ => raw.into_owned(),
            }
        });
    Err(AnswerError { item, field: field.to_string(), written, message: error.message })
}

/// The JSON text of each item of a list's text (its `items`), as sent: what [`Item::Text`]
/// holds for an answer read live. `None` when the text is not an object whose `items` is an
/// array of well-formed values.
pub fn item_texts(list: &str) -> Option<Vec<&str>> {
    let mut source = JsonSource::new(list);
    if source.peek().ok()? != Kind::Object {
        return None;
    }
    source.begin_object().ok()?;
    while let Some(key) = source.next_key().ok()? {
        if key != "items" {
            source.skip().ok()?;
            continue;
        }
        if source.peek().ok()? != Kind::Array {
            return None;
        }
        source.begin_array().ok()?;
        let mut items = Vec::new();
        while source.next_item().ok()? {
            match source.raw().ok()? {
                std::borrow::Cow::Borrowed(text) => items.push(text),
                std::borrow::Cow::Owned(_) => return None,
            }
        }
        return Some(items);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const QUANTITY: &str =
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

    fn pods(items: &[Value]) -> Result<PodMetricsList, AnswerError> {
        let items: Vec<Item<'_>> = items.iter().map(Item::Value).collect();
        decode_list(&items, KubernetesVersion::LATEST)
    }

    /// The item, field, value as written and message of an error.
    fn error<T>(r: Result<T, AnswerError>) -> (usize, String, Option<String>, String) {
        match r {
            Ok(_) => (0, "decoded".into(), None, String::new()),
            Err(e) => (e.item, e.field, e.written, e.message),
        }
    }

    fn texts(texts: &[&'static str]) -> Vec<Item<'static>> {
        texts.iter().map(|t| Item::Text(t)).collect()
    }

    #[test]
    fn pod_metrics_decode() {
        let list = pods(&[json!({"metadata": {"name": "p"}, "timestamp": "2026-03-02T09:41:00Z", "window": "-30s",
            "containers": [{"name": "c", "usage": {"cpu": "250m", "memory": null}}]})])
        .unwrap();
        let item = &list.items[0];
        assert_eq!((item.metadata.name.as_str(), item.window), ("p", Duration(-30_000_000_000)));
        assert_eq!(item.containers[0].usage["cpu"].milli_value(), 250);
        assert_eq!(item.containers[0].usage["memory"].milli_value(), 0);
        // `metav1.Duration.UnmarshalJSON` reads `null` as "".
        assert_eq!(
            error(pods(&[json!({"window": null})])),
            (0, "window".into(), Some("null".into()), "time: invalid duration \"\"".into())
        );
    }

    /// `encoding/json`: the first type error of the list is saved and decoding goes on; an
    /// `UnmarshalJSON`'s error stops it and wins, even over a type error of an earlier item.
    #[test]
    fn which_error_the_client_returns() {
        let wrong = "json: cannot unmarshal string into Go struct field PodMetrics.items.containers of type []v1beta1.ContainerMetrics";
        assert_eq!(
            error(pods(&[json!({"containers": "c"}), json!({"window": 5})])),
            (
                1,
                "window".into(),
                Some("5".into()),
                "json: cannot unmarshal number into Go struct field PodMetrics.items.window of type string".into()
            )
        );
        assert_eq!(
            error(pods(&[json!({"containers": "c"}), json!({"containers": [{"usage": {"cpu": "1x"}}]})])),
            (1, "containers[0].usage.cpu".into(), Some("\"1x\"".into()), QUANTITY.into())
        );
        assert_eq!(
            error(pods(&[json!({"containers": "c"}), json!({"metadata": {"name": 5}})])),
            (0, "containers".into(), Some("\"c\"".into()), wrong.into())
        );
        // Within an item, document order: `value` before `timestamp`.
        assert_eq!(
            error(decode_list::<MetricValueList>(
                &texts(&[r#"{"value": "1x", "timestamp": 5}"#]),
                KubernetesVersion::LATEST
            )),
            (0, "value".into(), Some("\"1x\"".into()), QUANTITY.into())
        );
        assert_eq!(
            error(decode_list::<MetricValueList>(
                &texts(&[r#"{"describedObject": {"name": 5}, "value": "1"}"#]),
                KubernetesVersion::LATEST
            )),
            (
                0,
                "describedObject.name".into(),
                Some("5".into()),
                "json: cannot unmarshal number into Go struct field ObjectReference.items.describedObject.name of type string".into()
            )
        );
    }

    #[test]
    fn items_as_sent() {
        let list = r#"{"kind": "ExternalMetricValueList", "items": [{"window": 1e3}, {"value": "1"}], "metadata": {}}"#;
        assert_eq!(item_texts(list), Some(vec![r#"{"window": 1e3}"#, r#"{"value": "1"}"#]));
        assert_eq!(item_texts(r#"{"items": null}"#), None);
        assert_eq!(item_texts(r#"{"metadata": {}}"#), None);
    }

    /// A number is named by its text as sent (`number 1e3`), which only the item's text keeps.
    #[test]
    fn numbers_are_named_as_written() {
        assert_eq!(
            error(decode_list::<ExternalMetricValueList>(
                &texts(&[r#"{"metricName": "q", "window": 1e3, "value": "1"}"#]),
                KubernetesVersion::LATEST
            )),
            (
                0,
                "window".into(),
                Some("1e3".into()),
                "json: cannot unmarshal number 1e3 into Go struct field ExternalMetricValue.items.window of type int64"
                    .into()
            )
        );
        let list = decode_list::<MetricValueListV1beta1>(
            &[Item::Value(
                &json!({"metricName": "m", "window": 30, "value": 2, "selector": {"matchLabels": {"a": "b"}}}),
            )],
            KubernetesVersion::LATEST,
        )
        .unwrap();
        let v = MetricValue::from(list.items[0].clone());
        assert_eq!((v.metric.name.as_str(), v.window_seconds, v.value.milli_value()), ("m", Some(30), 2000));
    }
}
