//! Who set a live workload's `spec.replicas`: live objects are not manifests. HPA410
//! (`workload-sets-replicas`) reads a live workload's `replicas` only where [`decide`] says a
//! user or a tool set them; hpa-cluster hands it the objects it reads.
//!
//! Every workload read from an API server has `spec.replicas`: the API server defaults it to 1
//! (`SetDefaults_Deployment` and friends) and the HPA controller writes it through the scale
//! subresource. A rule such as HPA410 (`workload-sets-replicas`) must therefore ask who set it,
//! which the object records in two places:
//!
//! - `metadata.managedFields` (server-side field management, `k8s.io/apiserver/pkg/endpoints/
//!   handlers/fieldmanager`): each manager's entry lists the fields it owns. The HPA controller
//!   writes through `/scale` as `kube-controller-manager` with `subresource: scale`, and KEDA's
//!   operator, which scales its targets to and from zero, as `keda`; an applier
//!   (`kubectl apply --server-side`, Argo CD, Flux's `kustomize-controller`) or an updater
//!   (`helm`, `kubectl-client-side-apply`, `kubectl edit`) owns `f:spec.f:replicas` when its
//!   manifest sets it. An update that changes a field takes it from its other owners
//!   (structured-merge-diff `Updater.update` with `force`), so the evidence is the current owner
//!   set: who wrote the value last, or applied the same value since ([`field_owners`], the one
//!   reading of managed fields).
//! - the `kubectl.kubernetes.io/last-applied-configuration` annotation of client-side
//!   `kubectl apply` (and Argo CD's default sync): the manifest as last applied. When it holds
//!   `spec.replicas`, every apply resets the count, even after the HPA took the field over.
//!
//! Ownership is evidence of a user's intent only where the manager chose the value. kube-apiserver
//! decodes and defaults an object before it records who owns what: its create handler
//! (`createHandler` in `k8s.io/apiserver/pkg/endpoints/handlers/create.go`) calls
//! `FieldManager.UpdateNoErrors(<new empty object>, <decoded, defaulted object>, manager)`, and
//! structured-merge-diff's `Updater.Update` gives an `Update`-operation manager every field the
//! write added or modified, defaulted ones included. So Helm (`helm install`), `kubectl create`,
//! client-side `kubectl apply` and any other creator by `Update` own `f:spec.f:replicas` of a
//! workload created without it, at the kind's default (1: `SetDefaults_Deployment`,
//! `SetDefaults_StatefulSet`, `SetDefaults_ReplicaSet` in `pkg/apis/apps/v1/defaults.go`,
//! `SetDefaults_ReplicationController` in `pkg/apis/core/v1/defaults.go`; an Argo Rollout's CRD
//! has no default, its controller reads nil as 1). A server-side applier (`Apply`) owns only what
//! it applied. [`decide`] therefore reads an `Update`-operation owner of the main resource whose
//! value equals the kind's default ([`defaulted_replicas`]) as the API server's default, unless
//! the last-applied configuration sets `spec.replicas`.
//!
//! The lifecycle under Helm: `helm install` of a chart without replicas (helm owns 1: read as
//! defaulted), the HPA scales through `/scale` (kube-controller-manager takes the field), `helm
//! upgrade` without replicas (its three-way merge leaves the field alone: still the
//! controller's), `helm upgrade` of a chart that sets them (helm owns a value again: reported, and
//! reported again at every upgrade that resets them, until the HPA takes the field back).
//!
//! Blind spot: an explicit `replicas: 1` written by an `Update`-operation manager (a chart with
//! `replicaCount: 1`, `kubectl create deployment`'s own `replicas: 1`) records exactly what the
//! default records, and is read as the default. A server-side apply or the last-applied
//! configuration of `replicas: 1` is still reported.
//!
//! [`decide`] gives a workload `replicas` (`Some(n)`) only when a user or a GitOps tool set the
//! field.

use serde_json::Value;

use super::SCALABLE_KINDS;
use crate::api::GroupVersion;
use crate::api::meta::{FieldOwner, field_owners};

/// The field manager of kube-controller-manager, whose HPA controller writes `/scale` (and
/// whose deployment controller writes the replicas of a Deployment's ReplicaSets).
pub const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// The field manager of KEDA's operator. It scales a ScaledObject's target through `/scale`
/// itself, between zero (or `idleReplicaCount`) and `minReplicaCount`, where the HPA it made
/// does not go (`updateScaleOnScaleTarget` in KEDA's `pkg/scaling/executor/scale_scaledobjects.go`),
/// and when a ScaledObject is deleted it restores the count it found. It sends no field
/// manager, so kube-apiserver records the first word of its user agent, client-go's default:
/// the name of its binary, `keda`.
pub const KEDA_OPERATOR_MANAGER: &str = "keda";

/// Whether a writer of `spec.replicas` is an autoscaler, not a user or a tool applying
/// manifests: kube-controller-manager (the HPA controller), and KEDA's operator through `/scale`.
fn is_autoscaler(owner: &FieldOwner<'_>) -> bool {
    match owner.manager {
        Some(CONTROLLER_MANAGER) => true,
        Some(KEDA_OPERATOR_MANAGER) => owner.subresource == Some("scale"),
        _ => false,
    }
}

/// The annotation of client-side `kubectl apply`.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Who set `spec.replicas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetBy {
    /// A field manager other than an autoscaler's (kube-controller-manager, KEDA's operator
    /// through `/scale`) owns `f:spec.f:replicas`.
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
    /// Only autoscalers wrote it (the HPA controller, KEDA's operator, through `/scale`), or the API server defaulted it
    /// (owned by nobody after a server-side apply; by the creator, at the default value, after
    /// an `Update`-operation create): the manifests do not set it.
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
    /// What the rules read as the manifest's `spec.replicas`: the live value when a manager
    /// owns it, the applied value for the last-applied configuration, `None` otherwise.
    pub replicas: Option<i64>,
}

/// The `spec.replicas` kube-apiserver defaults a workload of `kind` in API group `group` to when
/// it is left out: 1 for Deployments, StatefulSets, ReplicaSets (`SetDefaults_Deployment`,
/// `SetDefaults_StatefulSet`, `SetDefaults_ReplicaSet`) and ReplicationControllers
/// (`SetDefaults_ReplicationController`), the built-in kinds with a scale subresource
/// ([`SCALABLE_KINDS`]); `None` for custom resources (an Argo Rollout's CRD declares no default:
/// the field stays unset until someone writes it).
pub fn defaulted_replicas(group: &str, kind: &str) -> Option<i64> {
    SCALABLE_KINDS
        .iter()
        .any(|(k, versions)| *k == kind && versions.iter().any(|v| GroupVersion::parse_or_empty(v).group() == group))
        .then_some(1)
}

/// Decides who set a live workload's `spec.replicas` (see the module documentation); `default`
/// is what the API server defaults it to for the object's kind ([`defaulted_replicas`]).
pub fn decide(object: &Value, default: Option<i64>) -> ReplicasDecision {
    decide_at(object, &["spec", "replicas"], default)
}

/// [`decide`] for the count at `path` (a custom resource's: the `specReplicasPath` of its CRD's
/// scale subresource, `.spec.size` as `["spec", "size"]`), which kube-apiserver's scale handler
/// records in the managed fields as it records `spec.replicas` of the built-in kinds
/// (`NewScaleHandler` with the replicas path mappings in `customresource_handler.go` of
/// apiextensions-apiserver); `default` as [`decide`]'s (`None` for a custom resource).
pub fn decide_at(object: &Value, path: &[&str], default: Option<i64>) -> ReplicasDecision {
    let at = |v: &Value| path.iter().try_fold(v, |v, k| v.get(*k)).and_then(Value::as_i64);
    let live = at(object);
    let metadata = object.get("metadata");
    let last_applied = metadata
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .map(|applied| at(&applied));
    let no_entries = metadata.and_then(|m| m.get("managedFields")).and_then(Value::as_array).is_none_or(Vec::is_empty);
    // An `Update` of the main resource owns what it added, the API server's defaults included:
    // at the default value, and with no last-applied configuration setting the field, that
    // ownership says nothing of a user's intent.
    let applied_sets_it = matches!(last_applied, Some(Some(_)));
    let defaulted = |o: &FieldOwner<'_>| {
        o.operation == Some("Update")
            && o.subresource.is_none_or(str::is_empty)
            && live.is_some()
            && live == default
            && !applied_sets_it
    };
    let owner = field_owners(object, path)
        .filter(|o| !is_autoscaler(o))
        .filter(|o| !defaulted(o))
        // RFC 3339 times in UTC (as the API server writes them) order as strings.
        .max_by(|a, b| a.time.cmp(&b.time));
    if let Some(o) = owner {
        return ReplicasDecision {
            set_by: SetBy::Manager {
                manager: o.manager.unwrap_or_default().to_string(),
                operation: o.operation.unwrap_or_default().to_string(),
                subresource: o.subresource.map(String::from),
            },
            replicas: live,
        };
    }
    match last_applied {
        Some(Some(n)) => ReplicasDecision { set_by: SetBy::LastApplied, replicas: Some(n) },
        Some(None) => ReplicasDecision { set_by: SetBy::Controllers, replicas: None },
        None if no_entries => ReplicasDecision { set_by: SetBy::Unknown, replicas: None },
        None => ReplicasDecision { set_by: SetBy::Controllers, replicas: None },
    }
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
        let d = decide(&client_side_applied(true), Some(1));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::LastApplied, replicas: Some(3) });
    }

    #[test]
    fn client_side_apply_without_replicas_leaves_them_to_the_hpa() {
        let d = decide(&client_side_applied(false), Some(1));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    #[test]
    fn server_side_apply_owning_replicas() {
        // Argo CD with ServerSideApply=true re-applied after the HPA's last scale.
        let d = decide(
            &json!({
                "metadata": {"name": "web", "managedFields": [
                    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                     "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"},
                    {"manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1",
                     "time": "2026-03-02T09:25:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:metadata": {"f:labels": {"f:app.kubernetes.io/instance": {}}},
                        "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": {"f:metadata": {"f:labels": {"f:app": {}}}}}}}
                ]},
                "spec": {"replicas": 2}
            }),
            Some(1),
        );
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
        let d = decide(
            &json!({
                "metadata": {"name": "web", "managedFields": [
                    {"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "apps/v1",
                     "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:spec": {"f:selector": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:name": {}}}}}}}},
                    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                     "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}
                ]},
                "spec": {"replicas": 5}
            }),
            Some(1),
        );
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    /// A Deployment created by Helm (an `Update`: kube-apiserver's create handler records
    /// ownership of the decoded, defaulted object) from a chart with `replicas` (`None`: without),
    /// then `steps` of its lifecycle applied to the managed fields.
    fn helm_created(replicas: Option<i64>) -> Value {
        json!({
            "metadata": {"name": "web", "annotations": {"meta.helm.sh/release-name": "web"}, "managedFields": [
                {"manager": "helm", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-03-02T09:14:05Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:meta.helm.sh/release-name": {}}},
                    "f:spec": {"f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {},
                        "f:selector": {}, "f:template": {}}}}
            ]},
            "spec": {"replicas": replicas.unwrap_or(1)}
        })
    }

    /// The HPA controller's write through `/scale` (structured-merge-diff's forced update: the
    /// field leaves its other owners).
    fn scaled_by_hpa(mut object: Value, replicas: i64) -> Value {
        object["spec"]["replicas"] = json!(replicas);
        let entries = object["metadata"]["managedFields"].as_array_mut().unwrap();
        for e in entries.iter_mut() {
            e["fieldsV1"]["f:spec"].as_object_mut().unwrap().remove("f:replicas");
        }
        entries.push(
            json!({"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
            "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}},
            "subresource": "scale"}),
        );
        object
    }

    /// `helm upgrade` of a chart setting `replicas`: its three-way merge patch writes them, and
    /// the `Update` takes the field back (its time is later than the HPA's).
    fn helm_upgraded(mut object: Value, replicas: i64) -> Value {
        object["spec"]["replicas"] = json!(replicas);
        let entries = object["metadata"]["managedFields"].as_array_mut().unwrap();
        entries.retain(|e| e["manager"] != "kube-controller-manager");
        entries[0]["fieldsV1"]["f:spec"]["f:replicas"] = json!({});
        entries[0]["time"] = json!("2026-03-02T09:30:00Z");
        object
    }

    #[test]
    fn an_update_creator_owning_the_default_did_not_set_it() {
        // `helm install` of a chart without replicas: helm owns the defaulted 1.
        let created = helm_created(None);
        assert_eq!(decide(&created, Some(1)), ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
        // The HPA scales to 5: the controller's.
        let scaled = scaled_by_hpa(created, 5);
        assert_eq!(decide(&scaled, Some(1)), ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
        // `helm upgrade` without replicas: its patch leaves the field alone, nothing changes. With
        // replicas: 3 it resets them, and owns them again with a value that is not the default.
        let upgraded = helm_upgraded(scaled, 3);
        let helm = SetBy::Manager { manager: "helm".into(), operation: "Update".into(), subresource: None };
        assert_eq!(decide(&upgraded, Some(1)), ReplicasDecision { set_by: helm.clone(), replicas: Some(3) });
        // `helm install` of a chart with replicas: 4.
        assert_eq!(decide(&helm_created(Some(4)), Some(1)), ReplicasDecision { set_by: helm, replicas: Some(4) });
    }

    #[test]
    fn the_default_is_the_kinds() {
        assert_eq!(defaulted_replicas("apps", "Deployment"), Some(1));
        assert_eq!(defaulted_replicas("apps", "StatefulSet"), Some(1));
        assert_eq!(defaulted_replicas("apps", "ReplicaSet"), Some(1));
        assert_eq!(defaulted_replicas("", "ReplicationController"), Some(1));
        // A kind of the same name in another group is not kube-apiserver's to default.
        assert_eq!(defaulted_replicas("example.com", "Deployment"), None);
        // The Rollout CRD defaults nothing: a 1 an `Update` owns was written.
        assert_eq!(defaulted_replicas("argoproj.io", "Rollout"), None);
        let rollout = helm_created(Some(1));
        assert_eq!(
            decide(&rollout, None).set_by,
            SetBy::Manager { manager: "helm".into(), operation: "Update".into(), subresource: None }
        );
    }

    #[test]
    fn ownership_of_the_default_counts_where_it_cannot_be_the_defaults() {
        // `kubectl scale --replicas=1` (the scale subresource) and a server-side apply of
        // `replicas: 1` chose the value.
        let scale = json!({"metadata": {"managedFields": [
            {"manager": "kubectl", "operation": "Update", "apiVersion": "autoscaling/v1", "time": "2026-03-02T09:14:05Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}]},
            "spec": {"replicas": 1}});
        assert_eq!(decide(&scale, Some(1)).replicas, Some(1));
        let apply = json!({"metadata": {"managedFields": [
            {"manager": "argocd-controller", "operation": "Apply", "apiVersion": "apps/v1", "time": "2026-03-02T09:14:05Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]},
            "spec": {"replicas": 1}});
        assert_eq!(decide(&apply, Some(1)).replicas, Some(1));
        // Client-side `kubectl apply` creating from a manifest with `replicas: 1`: its Update owns
        // the 1, and its last-applied configuration says it was written.
        let mut created = helm_created(Some(1));
        created["metadata"]["managedFields"][0]["manager"] = json!("kubectl-client-side-apply");
        created["metadata"]["annotations"][LAST_APPLIED] = json!(
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":1}}"#
        );
        assert_eq!(decide(&created, Some(1)).replicas, Some(1));
        // Without replicas in it: the default.
        created["metadata"]["annotations"][LAST_APPLIED] = json!(
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{}}"#
        );
        assert_eq!(decide(&created, Some(1)), ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
    }

    #[test]
    fn a_custom_resource_count_elsewhere_is_decided_at_its_path() {
        // A WorkerPool whose CRD says `specReplicasPath: .spec.size`: the HPA's write through
        // `/scale` is recorded at `f:spec.f:size`.
        let scaled = json!({"metadata": {"managedFields": [
            {"manager": "helm", "operation": "Update", "apiVersion": "example.com/v1", "time": "2026-03-02T09:14:05Z",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:image": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
             "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}},
             "subresource": "scale"}]},
            "spec": {"replicas": 2, "size": 6}});
        assert_eq!(
            decide_at(&scaled, &["spec", "size"], None),
            ReplicasDecision { set_by: SetBy::Controllers, replicas: None }
        );
        // Argo CD applied `size: 3` after it: its.
        let mut applied = scaled.clone();
        applied["spec"]["size"] = json!(3);
        applied["metadata"]["managedFields"][1] = json!({"manager": "argocd-controller", "operation": "Apply",
            "apiVersion": "example.com/v1", "time": "2026-03-02T09:25:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:size": {}}}});
        let argo = SetBy::Manager { manager: "argocd-controller".into(), operation: "Apply".into(), subresource: None };
        assert_eq!(decide_at(&applied, &["spec", "size"], None), ReplicasDecision { set_by: argo, replicas: Some(3) });
        // The last-applied configuration at the same path; Helm's `spec.replicas` is no count here.
        let mut last =
            json!({"metadata": {"annotations": {LAST_APPLIED: r#"{"spec":{"size":4}}"#}}, "spec": {"size": 9}});
        assert_eq!(
            decide_at(&last, &["spec", "size"], None),
            ReplicasDecision { set_by: SetBy::LastApplied, replicas: Some(4) }
        );
        last["metadata"]["annotations"][LAST_APPLIED] = json!(r#"{"spec":{"replicas":4}}"#);
        assert_eq!(decide_at(&last, &["spec", "size"], None).replicas, None);
    }

    #[test]
    fn helm_owning_replicas() {
        let d = decide(
            &json!({
                "metadata": {"name": "web", "managedFields": [
                    {"manager": "helm", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-03-02T09:14:05Z",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}
                ]},
                "spec": {"replicas": 3}
            }),
            Some(1),
        );
        assert_eq!(d.replicas, Some(3));
        assert!(matches!(d.set_by, SetBy::Manager { ref manager, .. } if manager == "helm"));
    }

    #[test]
    fn kubectl_scale_is_a_user() {
        let d = decide(
            &json!({
                "metadata": {"name": "web", "managedFields": [
                    {"manager": "kubectl", "operation": "Update", "apiVersion": "autoscaling/v1", "time": "2026-03-02T09:14:05Z",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}
                ]},
                "spec": {"replicas": 4}
            }),
            Some(1),
        );
        assert_eq!(
            d.set_by,
            SetBy::Manager { manager: "kubectl".into(), operation: "Update".into(), subresource: Some("scale".into()) }
        );
    }

    /// KEDA's operator scaled its ScaledObject's target to zero through `/scale` after an
    /// apply without replicas: an autoscaler's write, as the HPA controller's.
    #[test]
    fn keda_scaling_to_zero_is_an_autoscaler() {
        let object = |manager: &str, subresource: Option<&str>| {
            let mut entry = json!({"manager": manager, "operation": "Update", "apiVersion": "autoscaling/v1",
                "time": "2026-03-02T09:30:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}});
            if let Some(s) = subresource {
                entry["subresource"] = json!(s);
            }
            json!({
                "metadata": {"name": "worker", "managedFields": [
                    {"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "apps/v1",
                     "time": "2026-03-02T09:14:05Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:selector": {}}}},
                    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
                     "time": "2026-03-02T09:20:35Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"},
                    entry,
                ]},
                "spec": {"replicas": 0}
            })
        };
        let d = decide(&object("keda", Some("scale")), Some(1));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Controllers, replicas: None });
        // A `keda` writing the main resource is no scaling of KEDA's: whoever it is, it set them.
        let d = decide(&object("keda", None), Some(1));
        assert_eq!(d.set_by, SetBy::Manager { manager: "keda".into(), operation: "Update".into(), subresource: None });
    }

    #[test]
    fn without_evidence_replicas_are_not_claimed() {
        let d = decide(&json!({"metadata": {"name": "web"}, "spec": {"replicas": 3}}), Some(1));
        assert_eq!(d, ReplicasDecision { set_by: SetBy::Unknown, replicas: None });
    }
}
