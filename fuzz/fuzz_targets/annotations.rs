//! The `autoscaling.alpha.kubernetes.io/*` round-trip annotations on arbitrary strings.
//!
//! Invariants, for each annotation:
//! - the decoder never panics (kube-apiserver ignores what does not decode, and so do we);
//! - what it accepts re-encodes (as kube-apiserver writes it) to a value that decodes with no
//!   problem reported and encodes to the same text: one pass reaches a fixed point;
//! - an autoscaling/v1 (or v2beta2) object carrying the value converts to the internal form,
//!   and when that internal object loses nothing in v1, back to v1 and in again, and from
//!   there on unchanged.
//!
//! Fixed points, not equal values: Go's `Quantity.String()` has no suffix for a DecimalSI value
//! whose exponent is past `E` (10^18) and prints the digits alone, so `0500…0` (5×10^41, 43
//! digits) is written `500` by kube-apiserver and read back as 500 (found by this target;
//! `hpa_core::api::Quantity` does the same, on purpose).
#![no_main]

use hpa_core::api::decode::Decode;
use hpa_core::api::v1::{HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus};
use hpa_core::api::{ApiVersion, Quantity, v1, v2, v2beta2};
use hpa_core::convert::{self, annotations as ann};
use hpa_core::features::KubernetesVersion;
use hpa_core::go::to_go_json;
use libfuzzer_sys::fuzz_target;
use serde::Serialize;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else { return };

    let mut problems = Vec::new();
    if let Some(b) = ann::decode_behavior(raw, KubernetesVersion::LATEST, &mut problems) {
        let encoded = ann::encode_behavior(&b);
        let mut again = Vec::new();
        let decoded =
            ann::decode_behavior(&encoded, KubernetesVersion::LATEST, &mut again).expect("a behavior we wrote decodes");
        assert_eq!(ann::encode_behavior(&decoded), encoded, "behavior {raw:?} re-encoded as {encoded}");
        assert!(again.is_empty(), "re-encoded behavior {encoded} has problems: {again:?}");
    }
    lenient::<Vec<MetricSpec>>(ann::METRICS, raw);
    lenient::<Vec<MetricStatus>>(ann::CURRENT_METRICS, raw);
    lenient::<Vec<HorizontalPodAutoscalerCondition>>(ann::CONDITIONS, raw);
    if let Ok(q) = Quantity::parse(raw) {
        let text = q.to_string();
        let again = Quantity::parse(&text).expect("a quantity we wrote parses");
        assert_eq!(again.to_string(), text, "tolerance {raw:?} re-encoded as {text:?}");
    }

    for key in [ann::METRICS, ann::CURRENT_METRICS, ann::CONDITIONS, ann::BEHAVIOR] {
        through_v1(key, raw);
    }
    for key in [ann::SCALE_UP_TOLERANCE, ann::SCALE_DOWN_TOLERANCE] {
        through_v2beta2(key, raw);
    }
});

/// One lenient decoder: accepted values survive encoding.
fn lenient<T: Decode + Default + Serialize + PartialEq + std::fmt::Debug>(key: &'static str, raw: &str) {
    let mut problems = Vec::new();
    let Some(value) = ann::decode_lenient::<T>(key, "v1", raw, KubernetesVersion::LATEST, &mut problems) else {
        return;
    };
    let encoded = to_go_json(&value).expect("annotation values serialize");
    let mut again = Vec::new();
    let decoded = ann::decode_lenient::<T>(key, "v1", &encoded, KubernetesVersion::LATEST, &mut again)
        .unwrap_or_else(|| panic!("{key}: {encoded} (written by us) does not decode"));
    assert_eq!(to_go_json(&decoded).expect("serializes"), encoded, "{key}: {raw:?} re-encoded as {encoded}");
    assert!(again.is_empty(), "{key}: re-encoded {encoded} has problems: {again:?}");
}

fn v1_object(key: &str, raw: &str) -> v1::HorizontalPodAutoscaler {
    let mut h = v1::HorizontalPodAutoscaler {
        api_version: v1::API_VERSION.into(),
        kind: "HorizontalPodAutoscaler".into(),
        ..Default::default()
    };
    h.metadata.name = "web".into();
    h.spec.max_replicas = 5;
    h.metadata.annotations.insert(key.into(), raw.into());
    h
}

fn through_v1(key: &str, raw: &str) {
    let h = v1_object(key, raw);
    let first = convert::v1::to_internal(&h).object;
    if !convert::losses(&first, ApiVersion::V1, KubernetesVersion::LATEST).is_empty() {
        return;
    }
    let out = convert::v1::from_internal(&first).object;
    let second = convert::v1::to_internal(&out);
    assert!(second.annotation_problems.is_empty(), "{key}: {:?}", second.annotation_problems);
    let second = nil_if_empty(second.object);
    let out_again = convert::v1::from_internal(&second).object;
    assert_eq!(out_again, out, "{key}: {raw:?}: v1 written from the internal form changes when read and written again");
    let third = nil_if_empty(convert::v1::to_internal(&out_again).object);
    assert_eq!(third, second, "{key}: {raw:?} changed on v1 -> internal -> v1 -> internal");
    // The first pass changes nothing either, as kube-apiserver writes it (the values may differ
    // where Go's quantity formatting rewrites them, and then the written text says so).
    assert_eq!(
        to_go_json(&second).ok(),
        to_go_json(&nil_if_empty(first)).ok(),
        "{key}: {raw:?} changed on v1 -> internal -> v1 -> internal"
    );
}

/// An empty `status.currentMetrics` as nil. Go's conversion reads `[]` from the annotation as an
/// empty slice but writes the annotation only for a non-empty one (`len(...) > 0` in
/// `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`), so the empty
/// list comes back as nil there too; both mean "no current metrics".
fn nil_if_empty(mut h: v2::HorizontalPodAutoscaler) -> v2::HorizontalPodAutoscaler {
    if h.status.current_metrics.as_ref().is_some_and(Vec::is_empty) {
        h.status.current_metrics = None;
    }
    h
}

fn through_v2beta2(key: &str, raw: &str) {
    let mut h = v2beta2::HorizontalPodAutoscaler {
        api_version: v2beta2::API_VERSION.into(),
        kind: "HorizontalPodAutoscaler".into(),
        ..Default::default()
    };
    h.metadata.name = "web".into();
    h.spec.max_replicas = 5;
    h.metadata.annotations.insert(key.into(), raw.into());
    let Ok(first) = convert::v2beta2::to_internal(&h) else { return };
    let out = convert::v2beta2::from_internal(&first.object).object;
    let second = convert::v2beta2::to_internal(&out).expect("a tolerance we wrote parses");
    let again = convert::v2beta2::from_internal(&second.object).object;
    assert_eq!(
        again, out,
        "{key}: {raw:?}: v2beta2 written from the internal form changes when read and written again"
    );
    assert_eq!(
        to_go_json(&second.object).ok(),
        to_go_json(&first.object).ok(),
        "{key}: {raw:?} changed on v2beta2 -> internal -> v2beta2 -> internal"
    );
}
