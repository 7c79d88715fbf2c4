//! Any bytes as a manifest, read as YAML (the linter's reader) and as JSON, and every HPA in it
//! decoded (by hpa-core's one decoder, from each source), defaulted, admitted and converted.
//!
//! Invariants:
//! - decoding never panics, from YAML nodes or from JSON text;
//! - the YAML source reads an object as the JSON kubectl would send of it
//!   (`sigs.k8s.io/yaml`'s conversion): the same object, or errors of the same kinds at the
//!   same paths (a key written twice is a duplicate field only in YAML, where it is kept);
//! - defaulting is idempotent, in the object's own version and in the internal one;
//! - an object kube-apiserver admits stays valid when admitted again, and after the internal
//!   defaulting;
//! - an admitted object converts to autoscaling/v1 and back unchanged when the conversion
//!   reports no loss, v1 → v2 → v1 is the identity, and v2beta2 always round-trips (the
//!   statements of `tests/tests/properties.rs`, on objects the fuzzer writes).
#![no_main]

use hpa_core::admission::{self, AdmissionOptions, Operation};
use hpa_core::api::{self, ApiVersion, Strictness, VersionedHpa, v2};
use hpa_core::convert;
use hpa_core::defaults;
use hpa_core::features::KubernetesVersion;
use hpa_lint::input;
use hpa_lint::source::{self, Node};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parsed = source::parse(text);
    for object in input::objects_in(0, &parsed) {
        if let Some(hpa) = decode_node(object.node) {
            check(hpa);
        }
    }
    // The newest schema, and an older release's (a field it lacks is unknown to it).
    let runs = [
        (Strictness::Strict, KubernetesVersion::LATEST),
        (Strictness::Lenient, KubernetesVersion::LATEST),
        (Strictness::Strict, KubernetesVersion::V1_36),
        (Strictness::Lenient, KubernetesVersion::V1_36),
    ];
    for (strictness, release) in runs {
        if let Ok(decoded) = api::decode_json(text, strictness, release) {
            check(decoded.value);
        }
    }
});

/// Decodes a node as the linter does, and the JSON kubectl would send of it, and insists
/// that they agree.
fn decode_node(node: Node<'_>) -> Option<VersionedHpa> {
    let from_nodes = hpa_lint::hpa::decode_object(&input::ObjectRef::new(0, 0, None, node), KubernetesVersion::LATEST);
    // A key written twice is kept in YAML (a duplicate field, or a value decoded twice); the
    // JSON kubectl sends has only the last one.
    if !source::read::duplicate_keys(node).is_empty() {
        return from_nodes.ok();
    }
    // kubectl sends the object re-encoded from a map: keys sorted, so errors come in that order.
    let json = hpa_core::go::to_go_json(&node.to_json_in_key_order()).expect("a node converts to JSON");
    let from_json = api::decode_json(&json, Strictness::Strict, KubernetesVersion::LATEST).map(|d| d.value);
    match (&from_nodes, &from_json) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the YAML source reads differently from its JSON"),
        (Err(a), Err(b)) => {
            let shape = |e: &[api::DecodeError]| e.iter().map(|e| (e.kind, e.path.clone())).collect::<Vec<_>>();
            assert_eq!(shape(a), shape(b), "the YAML source fails differently from its JSON");
        }
        _ => panic!("the YAML source and its JSON disagree: {from_nodes:?} / {from_json:?}"),
    }
    from_nodes.ok()
}

fn options(apply_defaults: bool) -> AdmissionOptions {
    AdmissionOptions { apply_defaults, ..AdmissionOptions::default() }
}

fn check(hpa: VersionedHpa) {
    let mut once = hpa.clone();
    defaults::default_versioned(&mut once);
    let mut twice = once.clone();
    defaults::default_versioned(&mut twice);
    assert_eq!(once, twice, "defaulting in {} is not idempotent", hpa.api_version());

    // Every version converts to the internal form and back without panicking.
    for to in ApiVersion::ALL {
        let _ = convert::convert(&hpa, to);
    }

    let Ok(outcome) = admission::admit(&hpa, None, Operation::Create, &options(true)) else { return };
    if !outcome.allowed() {
        return;
    }
    let valid = outcome.object;
    let again = admission::admit(&VersionedHpa::V2(valid.clone()), None, Operation::Create, &options(false))
        .expect("an admitted object converts");
    assert!(again.allowed(), "an admitted object is refused when admitted again: {:?}", again.errors);

    let mut defaulted = valid.clone();
    defaults::default_v2(&mut defaulted);
    let mut twice = defaulted.clone();
    defaults::default_v2(&mut twice);
    assert_eq!(defaulted, twice, "internal defaulting is not idempotent");
    let after = admission::admit(&VersionedHpa::V2(defaulted), None, Operation::Create, &options(false))
        .expect("an admitted object converts");
    assert!(after.allowed(), "a valid object is invalid after defaulting: {:?}", after.errors);

    round_trips(&valid);
}

fn round_trips(h: &v2::HorizontalPodAutoscaler) {
    let to_v1 = convert::convert(&VersionedHpa::V2(h.clone()), ApiVersion::V1).expect("internal converts to v1");
    let back = convert::convert(&to_v1.object, ApiVersion::V2).expect("v1 written by us converts back");
    let original = VersionedHpa::V2(h.clone());
    if to_v1.lossy.is_empty() {
        same(&back.object, &original, "v2 -> v1 -> v2 changed an object with no reported loss");
    }
    let v1_again = convert::convert(&back.object, ApiVersion::V1).expect("converts to v1");
    assert_eq!(v1_again.object, to_v1.object, "v1 -> v2 -> v1 is not the identity");

    let to_v2beta2 = convert::convert(&original, ApiVersion::V2beta2).expect("converts");
    let back = convert::convert(&to_v2beta2.object, ApiVersion::V2).expect("v2beta2 written by us converts back");
    same(&back.object, &original, "v2 -> v2beta2 -> v2 is not the identity");
}

/// The same object, as kube-apiserver writes it. Values may differ where Go's quantity
/// formatting rewrites them (a DecimalSI quantity past 10^18 with an exponent that no suffix
/// names loses its exponent in `Quantity.String()`, in Go as here): the text is what counts.
fn same(a: &VersionedHpa, b: &VersionedHpa, what: &str) {
    if a != b {
        assert_eq!(a.to_json(), b.to_json(), "{what}");
    }
}
