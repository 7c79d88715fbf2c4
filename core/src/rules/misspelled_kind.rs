//! HPA406 `misspelled-kind`: an object meant to be an HPA, with a misspelled kind.

use super::{AsWritten, Finding, Rule, RuleMeta};
use crate::api::{GroupVersion, KIND as HPA};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// An object whose `apiVersion` is in the `autoscaling` group but whose `kind` is not
    /// `HorizontalPodAutoscaler`, or whose `kind` is a near miss of it (`HorizantalPodAutoscaler`,
    /// `HorizontalPodAutoscaling`, `horizontalpodautoscaler`), in any group. Autoscalers of other
    /// groups written with an `autoscaling/...` apiVersion (`VerticalPodAutoscaler`, KEDA's
    /// `ScaledObject`) are pointed to their own group.
    ///
    /// ## Why it matters
    ///
    /// `kubectl apply` fails with `no matches for kind ...`, and tools that look for HPAs by kind
    /// (this linter's other rules included) never see the object, so its other mistakes go
    /// unreported.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizantalPodAutoscaler
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
    /// Write `kind: HorizontalPodAutoscaler`, or the `apiVersion` of the autoscaler's own group
    /// (`autoscaling.k8s.io/v1` for a VerticalPodAutoscaler).
    pub struct MisspelledKind {
        id: "HPA406",
        name: "misspelled-kind",
        severity: Error,
        summary: "an autoscaling object whose kind is not HorizontalPodAutoscaler",
        needs_objects: false,
    }
}

impl Rule for MisspelledKind {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    /// This rule is about objects that are not HPAs, as written ([`check_kind`]).
    fn check_written(&self, object: &AsWritten<'_>, out: &mut Vec<Finding>) {
        out.extend(check_kind(object.api_version, object.kind));
    }
}

/// Autoscaler kinds of other API groups, sometimes written with `apiVersion: autoscaling/...`.
const ELSEWHERE: &[(&str, &str)] = &[
    ("VerticalPodAutoscaler", "autoscaling.k8s.io/v1"),
    ("VerticalPodAutoscalerCheckpoint", "autoscaling.k8s.io/v1"),
    ("ClusterAutoscaler", "autoscaling.openshift.io/v1"),
    ("MachineAutoscaler", "autoscaling.openshift.io/v1beta1"),
    ("MultidimPodAutoscaler", "autoscaling.gke.io/v1beta1"),
    ("ScaledObject", "keda.sh/v1alpha1"),
    ("ScaledJob", "keda.sh/v1alpha1"),
];

/// Checks an object that is not an HPA: returns a finding (on `kind`) when it looks like one.
fn check_kind(api_version: &str, kind: &str) -> Option<Finding> {
    if kind == HPA {
        return None;
    }
    let autoscaling = GroupVersion::parse_or_empty(api_version).group() == crate::api::GROUP;
    if autoscaling && let Some((_, right)) = ELSEWHERE.iter().find(|(k, _)| *k == kind) {
        return Some(
            Finding::new(
                &MisspelledKind::META,
                "apiVersion",
                format!("{kind} is not served by {api_version:?} (the group of HorizontalPodAutoscaler): it belongs to {right}"),
            )
            .help(format!("write `apiVersion: {right}` (or the version your cluster serves)")),
        );
    }
    // A near miss is within 4 edits, so its length is within 4 of the kind's.
    let close = kind.len().abs_diff(HPA.len()) <= 4
        && edit_distance(&kind.to_ascii_lowercase(), &HPA.to_ascii_lowercase()) <= 4;
    // `Scale` is the only other kind of the group (a subresource, never a manifest).
    if (autoscaling && kind != "Scale" && !kind.is_empty()) || (close && !kind.is_empty()) {
        return Some(
            Finding::new(
                &MisspelledKind::META,
                "kind",
                format!("{kind:?} is not a kind of {api_version:?}: did you mean HorizontalPodAutoscaler?"),
            )
            .help("write `kind: HorizontalPodAutoscaler`"),
        );
    }
    None
}

/// Levenshtein distance, bounded work for short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 8 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses() {
        assert!(check_kind("autoscaling/v2", "HorizantalPodAutoscaler").is_some());
        assert!(check_kind("autoscaling/v1", "HorizontalPodAutoscaling").is_some());
        assert!(check_kind("v1", "horizontalpodautoscaler").is_some());
        assert!(check_kind("apps/v1", "Deployment").is_none());
        assert!(check_kind("autoscaling/v2", "HorizontalPodAutoscaler").is_none());
        assert!(check_kind("autoscaling.k8s.io/v1", "VerticalPodAutoscaler").is_none());
        let f = check_kind("autoscaling/v1", "VerticalPodAutoscaler").unwrap();
        assert_eq!(f.location, crate::rules::FindingField::Hpa("apiVersion".into()));
        assert!(f.message.contains("autoscaling.k8s.io/v1"), "{}", f.message);
    }
}
