//! HPA001 `duplicate-key`: a key written twice in one mapping of an HPA, of which kubectl keeps
//! the last value without a word.

use super::{AsWritten, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A key given more than once in one mapping of an HPA as written in a file
    /// (`metadata.name` twice, two `maxReplicas` in `spec`, a target with two
    /// `averageUtilization`), in YAML or JSON.
    ///
    /// ## Why it matters
    ///
    /// kubectl turns the file into JSON with `sigs.k8s.io/yaml.YAMLToJSON` (JSON with
    /// `encoding/json` into a map), which keeps the last value of a key and drops the others
    /// without a word: kube-apiserver never sees the duplicate (its strict decoding, which would
    /// refuse it, reads the JSON kubectl sends), and the object is applied with the last value. A
    /// key written twice is nearly always an edit or a merge gone wrong, and the value that was
    /// meant may be the first one. Only the linter, which reads the file, can say so; each
    /// finding points at the key kubectl keeps, with the one it drops beside it.
    ///
    /// ## Example
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
    ///   maxReplicas: 4   # kubectl applies 4, and drops the 10 above
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
    /// Keep one of the two keys, with the value you mean.
    pub struct DuplicateKey {
        id: "HPA001",
        name: "duplicate-key",
        severity: Warning,
        summary: "a key is written twice in one mapping: kubectl keeps the last value silently",
        needs_objects: false,
    }
}

impl Rule for DuplicateKey {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    /// Keys are read from the text, which a decoded object no longer shows: one finding per key
    /// the front end found written again in its mapping ([`AsWritten::duplicate_keys`]), on
    /// the occurrence kubectl keeps, the last.
    fn check_written(&self, object: &AsWritten<'_>, out: &mut Vec<Finding>) {
        out.extend(object.duplicate_keys.iter().map(|path| {
            Finding::new(
                &Self::META,
                *path,
                format!("{path} is written twice: kubectl keeps this last value and drops the first without a word"),
            )
            .help("keep one of the two, with the value you mean")
        }));
    }
}
