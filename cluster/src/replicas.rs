//! Who set a live workload's `spec.replicas`: live objects are not manifests.
//!
//! Every workload read from an API server has `spec.replicas`: the API server defaults it to 1
//! (`SetDefaults_Deployment` and friends) and the HPA controller writes it through the scale
//! subresource. A rule such as HPA410 (`workload-sets-replicas`) must therefore ask who set it,
//! which the object records in two places:
//!
//! - `metadata.managedFields` (server-side field management, `k8s.io/apiserver/pkg/endpoints/
//!   handlers/fieldmanager`): each manager's entry lists the fields it owns. The HPA controller
//!   writes through `/scale` as `kube-controller-manager` with `subresource: scale`; an applier
//!   (`kubectl apply --server-side`, Argo CD, Flux's `kustomize-controller`) or an updater
//!   (`helm`, `kubectl-client-side-apply`, `kubectl edit`) owns `f:spec.f:replicas` when its
//!   manifest sets it. An update that changes a field takes it from its other owners
//!   (structured-merge-diff `Updater.update` with `force`), so the evidence is the current owner
//!   set: who wrote the value last, or applied the same value since.
//! - the `kubectl.kubernetes.io/last-applied-configuration` annotation of client-side
//!   `kubectl apply` (and Argo CD's default sync): the manifest as last applied. When it holds
//!   `spec.replicas`, every apply resets the count, even after the HPA took the field over.
//!
//! [`decide`] hands hpa-core `Some(n)` only when a user or a GitOps tool set the field.

use serde_json::Value;

/// The field manager of kube-controller-manager, whose HPA controller writes `/scale` (and
/// whose deployment controller writes the replicas of a Deployment's ReplicaSets).
pub const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// The annotation of client-side `kubectl apply`.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Who set `spec.replicas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetBy {
    /// A field manager other than kube-controller-manager owns `f:spec.f:replicas`.
    Manager {
        /// `manager`, e.g. `argocd-controller`, `helm`, `kubectl`.
        manager: String,
        /// `Apply` or `Update`.
        operation: String,
        /// `scale` for `kubectl scale`; `None` for the main resource.
        subresource: Option<String>,
    },
    /// The last-applied configuration of client-side `kubectl apply` sets it.
    LastApplied,
    /// Only controllers wrote it (the HPA through `/scale`), or the API server defaulted it:
    /// the manifests do not set it.
    Controllers,
    /// The object carries neither managed fields nor a last-applied configuration (read
    /// without `--show-managed-fields`, or written before field management): unknown, so
    /// treated as not set.
    Unknown,
}

/// The decision for one workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicasDecision {
    /// Who set it.
    pub set_by: SetBy,
    /// What to hand hpa-core as the manifest's `spec.replicas`: the live value when a manager
    /// owns it, the applied value for the last-applied configuration, `None` otherwise.
    pub replicas: Option<i64>,
}

/// Decides who set a live workload's `spec.replicas` (see the module documentation).
pub fn decide(object: &Value) -> ReplicasDecision {
    let live = object.get("spec").and_then(|s| s.get("replicas")).and_then(Value::as_i64);
    let metadata = object.get("metadata");
    let last_applied = metadata
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .map(|applied| applied.get("spec").and_then(|s| s.get("replicas")).and_then(Value::as_i64));
    // Read in place (no copy of the entries' field sets: this runs for every live workload).
    let entries: &[Value] =
        metadata.and_then(|m| m.get("managedFields")).and_then(Value::as_array).map_or(&[], Vec::as_slice);
    fn text<'a>(e: &'a Value, key: &str) -> Option<&'a str> {
        e.get(key).and_then(Value::as_str)
    }
    let owner = entries
        .iter()
        .filter(|e| text(e, "subresource") != Some("status"))
        .filter(|e| text(e, "manager") != Some(CONTROLLER_MANAGER))
        .filter(|e| owns_replicas(e))
        // RFC 3339 times in UTC (as the API server writes them) order as strings.
        .max_by(|a, b| text(a, "time").cmp(&text(b, "time")));
    if let Some(e) = owner {
        return ReplicasDecision {
            set_by: SetBy::Manager {
                manager: text(e, "manager").unwrap_or_default().to_string(),
                operation: text(e, "operation").unwrap_or_default().to_string(),
                subresource: text(e, "subresource").map(String::from),
            },
            replicas: live,
        };
    }
    match last_applied {
        Some(Some(n)) => ReplicasDecision { set_by: SetBy::LastApplied, replicas: Some(n) },
        Some(None) => ReplicasDecision { set_by: SetBy::Controllers, replicas: None },
        None if entries.is_empty() => ReplicasDecision { set_by: SetBy::Unknown, replicas: None },
        None => ReplicasDecision { set_by: SetBy::Controllers, replicas: None },
    }
}

/// Whether a managed-fields entry (`metav1.ManagedFieldsEntry`) owns `spec.replicas`
/// (`fieldsV1: {"f:spec": {"f:replicas": {}}}`).
fn owns_replicas(entry: &Value) -> bool {
    entry.get("fieldsV1").and_then(|f| f.get("f:spec")).and_then(|s| s.get("f:replicas")).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Deployment as `kubectl apply` (client-side) created it from a manifest with
    /// `replicas: 3`, then scaled by the HPA to 7: kube-controller-manager took
    /// `f:spec.f:replicas` through `/scale`, the annotation still says 3.
    fn client_side_applied(with_replicas: bool) -> Value {
        let applied = if with_replicas {
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"shop"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"ghcr.io/example/web:1.4.2","name":"app","resources":{"requests":{"cpu":"250m"}}}]}}}}
"#
        } else {
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"shop"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"ghcr.io/example/web:1.4.2","name":"app","resources":{"requests":{"cpu":"250m"}}}]}}}}
"#
        };
        json!({
            "metadata": {
                "name": "web", "namespace": "shop",
                "annotations": {"deployment.kubernetes.io/revision": "1", LAST_APPLIED: applied},
                "managedFields": [
                    {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1",
                     "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
                        "f:spec": {"f:progressDeadlineSeconds": {}, "f:revisionHistoryLimit": {}, "f:selector": {},
                            "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
                            "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                                "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}, "f:resources": {".": {}, "f:requests": {".": {}, "f:cpu": {}}}}}}}}}},
                    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                     "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}},
                     "subresource": "scale"},
                    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1",
                     "time": "2026-03-02T09:21:02Z", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}},
                        "f:status": {"f:availableReplicas": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}},
                     "subresource": "status"}
                ]
            },
            "spec": {"replicas": 7}
        })
    }

    #[test]
    fn client_side_apply_with_replicas_resets_them() {
        let d = decide(&client_side_applied(true));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::LastApplied, replicas: Some(3) });
    }

    #[test]
    fn client_side_apply_without_replicas_leaves_them_to_the_hpa() {
        let d = decide(&client_side_applied(false));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    #[test]
    fn server_side_apply_owning_replicas() {
        // Argo CD with ServerSideApply=true re-applied after the HPA's last scale.
        let d = decide(&json!({
            "metadata": {"name": "web", "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                 "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"},
                {"manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1",
                 "time": "2026-03-02T09:25:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:labels": {"f:app.kubernetes.io/instance": {}}},
                    "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {"f:metadata": {"f:labels": {"f:app": {}}}}}}}
            ]},
            "spec": {"replicas": 2}
        }));
        assert_eq!(
            d,
            ReplicasDecision {
                set_by: SetBy::Manager {
                    manager: "argocd-controller".into(),
                    operation: "Apply".into(),
                    subresource: None
                },
                replicas: Some(2)
            }
        );
    }

    #[test]
    fn server_side_apply_without_replicas() {
        // Flux applies the manifest without replicas; the HPA owns them through /scale.
        let d = decide(&json!({
            "metadata": {"name": "web", "managedFields": [
                {"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "apps/v1",
                 "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:spec": {"f:selector": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:name": {}}}}}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                 "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}
            ]},
            "spec": {"replicas": 5}
        }));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    #[test]
    fn defaulted_replicas_are_nobodys() {
        // Created by Helm from a chart without replicas: the API server defaulted 1, nobody owns it.
        let d = decide(&json!({
            "metadata": {"name": "web", "annotations": {"meta.helm.sh/release-name": "web"}, "managedFields": [
                {"manager": "helm", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-03-02T09:14:05Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:meta.helm.sh/release-name": {}}},
                    "f:spec": {"f:selector": {}, "f:template": {}}}}
            ]},
            "spec": {"replicas": 1}
        }));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    #[test]
    fn helm_owning_replicas() {
        let d = decide(&json!({
            "metadata": {"name": "web", "managedFields": [
                {"manager": "helm", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-03-02T09:14:05Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}
            ]},
            "spec": {"replicas": 3}
        }));
        assert_eq!(d.replicas, Some(3));
        assert!(matches!(d.set_by, SetBy::Manager { ref manager, .. } if manager == "helm"));
    }

    #[test]
    fn kubectl_scale_is_a_user() {
        let d = decide(&json!({
            "metadata": {"name": "web", "managedFields": [
                {"manager": "kubectl", "operation": "Update", "apiVersion": "autoscaling/v1", "time": "2026-03-02T09:14:05Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}
            ]},
            "spec": {"replicas": 4}
        }));
        assert_eq!(
            d.set_by,
            SetBy::Manager { manager: "kubectl".into(), operation: "Update".into(), subresource: Some("scale".into()) }
        );
    }

    #[test]
    fn without_evidence_replicas_are_not_claimed() {
        let d = decide(&json!({"metadata": {"name": "web"}, "spec": {"replicas": 3}}));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Unknown, replicas: None });
    }
}
