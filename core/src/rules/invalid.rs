//! HPA000 `invalid`: every error kube-apiserver would answer with.

use super::{Context, Finding, Rule, RuleMeta};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// Everything kube-apiserver checks before it stores an HPA: decoding (unknown fields,
    /// wrong types, unparsable quantities, duplicate keys under strict field validation) and
    /// validation (names, replica bounds, the scale target, every metric source and target,
    /// behavior rules, feature gates), with the same field paths and messages.
    ///
    /// ## Why it matters
    ///
    /// `kubectl apply` would fail with this error; in a GitOps pipeline the sync fails and the
    /// cluster keeps running the previous version.
    ///
    /// ## Example
    ///
    /// ```yaml
    /// spec:
    ///   minReplicas: 4
    ///   maxReplicas: 2   # Invalid value: 2: must be greater than or equal to `minReplicas`
    /// ```
    ///
    /// ## How to fix
    ///
    /// Correct the field the message names. These findings cannot be ignored: the object would
    /// not be accepted.
    pub struct Invalid {
        id: "HPA000",
        name: "invalid",
        severity: Error,
        summary: "kube-apiserver would reject the object",
        needs_objects: false,
    }
}

impl Rule for Invalid {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        for e in cx.errors {
            out.push(Finding::new(&Self::META, e.field.clone(), e.to_string()));
        }
    }
}
