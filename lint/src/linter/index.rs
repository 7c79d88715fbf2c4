//! What the linter puts in hpa-core's [`ObjectIndex`](hpa_core::rules::ObjectIndex), the one
//! index of an HPA's world (the webhook's context cache keeps one too), read from its input
//! trees: each object's entry ([`prepare`]) and what the first pass reads of an object to make
//! it ([`first_pass_needs`]). Of an object defined more than once in a set, the linter gives
//! the index its last definition (what `kubectl apply` leaves; `DefinedAgain` in the linter).

use hpa_core::api::GroupVersion;
use hpa_core::rules::index::IndexedObject;
use hpa_core::rules::objects::{self, ObjectId};

use crate::source::{Keep, Node};

/// Kinds whose objects are indexed as potential scale targets: every kind but those the rules
/// read otherwise and a few common ones no HPA can target. Kinds without namespaces are indexed
/// (without one): an HPA that names a Namespace or a ClusterRole finds it (HPA402 says it cannot
/// be scaled; HPA403 must not say it is missing).
pub fn is_workload_kind(kind: &str) -> bool {
    !matches!(
        kind,
        hpa_core::api::KIND
            | "PodDisruptionBudget"
            | "VerticalPodAutoscaler"
            | "ScaledObject"
            | "LimitRange"
            | "Service"
            | "ConfigMap"
            | "Secret"
            | "ServiceAccount"
            | "Role"
            | "RoleBinding"
            | "Ingress"
            | "NetworkPolicy"
            | "List"
    )
}

/// The kinds of Kubernetes' own workloads, whose `spec` the first pass prunes to what
/// [`objects::workload_from`] reads (any other kind may be a custom resource).
const BUILT_IN_WORKLOADS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "ReplicationController",
    "DaemonSet",
    "Pod",
    "Job",
    "CronJob",
    "PodTemplate",
];

/// The API group of CustomResourceDefinitions.
const CRD_GROUP: &str = "apiextensions.k8s.io";

/// The index entry of an object that is not an HPA, if its kind matters to the rules.
pub fn prepare(id: ObjectId, node: Node<'_>) -> Option<IndexedObject> {
    Some(match id.kind.as_str() {
        "PodDisruptionBudget" => IndexedObject::Pdb(objects::pdb_from_json(id, &node.to_json())),
        // Of any group and version: HPA408 says when the VPA's CRD does not serve it.
        "VerticalPodAutoscaler" => IndexedObject::Vpa(objects::vpa_from_json(id, &node.to_json())),
        "LimitRange" if id.api_version == "v1" => {
            IndexedObject::LimitRange(objects::limit_range_from_json(id, &node.to_json()))
        }
        "RuntimeClass" if GroupVersion::parse_or_empty(&id.api_version).group() == "node.k8s.io" => {
            IndexedObject::RuntimeClass(objects::runtime_class_from(id, node)?)
        }
        "CustomResourceDefinition" if GroupVersion::parse_or_empty(&id.api_version).group() == CRD_GROUP => {
            IndexedObject::CustomResourceDefinition(objects::custom_resource_definition_from(id, node)?)
        }
        "ScaledObject" if GroupVersion::parse_or_empty(&id.api_version).group() == "keda.sh" => {
            IndexedObject::ScaledObject(objects::scaled_object_from_json(id, &node.to_json()))
        }
        // Read straight from the tree: the rest of the object is never converted.
        kind if is_workload_kind(kind) => IndexedObject::Workload(objects::workload_from(id, node)),
        _ => return None,
    })
}

/// What the first pass reads of an object that is not an HPA, by kind (`None`: all of it):
/// its identity and suppressions, and for a workload what [`objects::workload_from`] reads. The rest
/// of a large Deployment is never built (see [`crate::source::parse_pruned`]).
///
/// **Invariant:** every field a cross-object finding or its related places point at in such
/// an object (`spec.replicas`, the pod spec's `resources.requests`, `containers[i]`, ...) is
/// kept: the linter positions those findings on this pruned tree and parses no file twice.
pub fn first_pass_needs(kind: &str) -> Option<&'static Keep> {
    const ALL: Option<&Keep> = None;
    // All of it: kubectl refuses a document whose metadata does not decode into `ObjectMeta`
    // (`input::metadata_refusal` reads it).
    const METADATA: Option<&Keep> = ALL;
    const CONTAINER: Keep = Keep(&[("name", ALL), ("restartPolicy", ALL), ("resources", ALL)]);
    const POD_SPEC: Keep = Keep(&[
        ("resources", ALL),
        ("runtimeClassName", ALL),
        ("containers", Some(&CONTAINER)),
        ("initContainers", Some(&CONTAINER)),
    ]);
    // `annotations`: Argo refuses a Rollout with a `workloadRef` whose template has labels or
    // annotations (`workload_from`).
    const TEMPLATE: Keep =
        Keep(&[("metadata", Some(&Keep(&[("annotations", ALL), ("labels", ALL)]))), ("spec", Some(&POD_SPEC))]);
    // A CronJob's template is under `spec.jobTemplate.spec.template`.
    const JOB_SPEC: Keep = Keep(&[("template", Some(&TEMPLATE))]);
    const JOB_TEMPLATE: Keep = Keep(&[("spec", Some(&JOB_SPEC))]);
    // A Pod's spec is its pod spec (`resources`, `containers`, `initContainers`).
    const SPEC: Keep = Keep(&[
        ("replicas", ALL),
        ("selector", ALL),
        ("template", Some(&TEMPLATE)),
        ("workloadRef", ALL),
        ("jobTemplate", Some(&JOB_TEMPLATE)),
        ("resources", ALL),
        ("runtimeClassName", ALL),
        ("containers", Some(&CONTAINER)),
        ("initContainers", Some(&CONTAINER)),
    ]);
    const WORKLOAD: Keep = Keep(&[
        ("apiVersion", ALL),
        ("kind", ALL),
        ("metadata", METADATA),
        ("spec", Some(&SPEC)),
        // A PodTemplate's (`workload_from`).
        ("template", Some(&TEMPLATE)),
        ("items", ALL),
    ]);
    const CUSTOM: Keep = Keep(&[
        ("apiVersion", ALL),
        ("kind", ALL),
        ("metadata", METADATA),
        ("spec", ALL),
        ("template", Some(&TEMPLATE)),
        ("items", ALL),
    ]);
    // `items`: a mapping with `items` is decoded as a list by kubectl, whatever its kind
    // (`input::refusal` reads them).
    const IDENTITY: Keep = Keep(&[("apiVersion", ALL), ("kind", ALL), ("metadata", METADATA), ("items", ALL)]);
    // A CustomResourceDefinition's kind, scope and the scale subresource of each version
    // (`objects::custom_resource_definition_from`), not its schemas.
    const CRD_VERSION: Keep = Keep(&[("name", ALL), ("served", ALL), ("subresources", ALL)]);
    const CRD_SPEC: Keep = Keep(&[("group", ALL), ("names", ALL), ("scope", ALL), ("versions", Some(&CRD_VERSION))]);
    const CRD: Keep =
        Keep(&[("apiVersion", ALL), ("kind", ALL), ("metadata", METADATA), ("spec", Some(&CRD_SPEC)), ("items", ALL)]);
    match kind {
        // No kind: kubectl refuses it, and says so with the whole document (`input::refusal`).
        "" => None,
        // Lists hold objects of their own kinds; HPAs and the other indexed kinds are read whole.
        _ if kind.ends_with("List") => None,
        hpa_core::api::KIND | "PodDisruptionBudget" | "VerticalPodAutoscaler" | "ScaledObject" | "LimitRange" => None,
        "CustomResourceDefinition" => Some(&CRD),
        // A RuntimeClass is small: its `overhead` (`objects::runtime_class_from`) and the rest.
        "RuntimeClass" => None,
        // A custom resource's whole `spec`: its CRD's `specReplicasPath` (HPA410) may name any
        // field of it, and the CRD may come later in the set.
        _ if is_workload_kind(kind) && !BUILT_IN_WORKLOADS.contains(&kind) => Some(&CUSTOM),
        _ if is_workload_kind(kind) => Some(&WORKLOAD),
        _ => Some(&IDENTITY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input;
    use crate::linter::suppress;
    use crate::source;

    /// Every YAML file under `dir`.
    fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }

    /// What the first pass reads of the objects that are not HPAs (identity, suppressions,
    /// index entry) is the same from a pruned tree as from a whole one, for every object of
    /// the examples and the test data.
    #[test]
    fn the_first_pass_reads_the_same_of_a_pruned_tree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        yaml_files(&root.join("examples"), &mut files);
        yaml_files(&root.join("tests/data"), &mut files);
        let mut workloads = 0;
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let whole = source::parse(&text);
            let pruned = source::parse_pruned(&text, &first_pass_needs);
            // The documents kubectl cannot decode, reported from the pruned tree.
            let not_objects = |parsed| -> Vec<String> {
                input::not_objects(parsed, &text, &input::objects_in(0, parsed))
                    .iter()
                    .map(|d| format!("{} {:?} {}", d.document, d.node.span(), d.message))
                    .collect()
            };
            assert_eq!(not_objects(&whole), not_objects(&pruned), "{}", path.display());
            let (whole, pruned) = (input::objects_in(0, &whole), input::objects_in(0, &pruned));
            assert_eq!(whole.len(), pruned.len(), "{}", path.display());
            for (w, p) in whole.iter().zip(&pruned) {
                let what = format!("{}: document {} item {:?}", path.display(), w.document, w.item);
                fn identity(o: &input::ObjectRef<'_>) -> String {
                    format!("{:?}", (o.api_version(), o.kind(), o.name(), o.namespace(), o.is_hpa()))
                }
                assert_eq!(identity(w), identity(p), "{what}");
                assert_eq!(suppress::from_node(w.node), suppress::from_node(p.node), "{what}");
                let id = ObjectId {
                    api_version: w.api_version().unwrap_or_default().into(),
                    kind: w.kind().unwrap_or_default().into(),
                    namespace: w.namespace().unwrap_or_default().into(),
                    name: w.name().unwrap_or_default().into(),
                };
                let entry = |o: &input::ObjectRef<'_>| format!("{:?}", prepare(id.clone(), o.node));
                assert_eq!(entry(w), entry(p), "{what}");
                if w.is_hpa() {
                    // (Debug text: a NaN is not equal to itself.)
                    assert_eq!(format!("{:?}", w.node), format!("{:?}", p.node), "HPAs are read whole: {what}");
                }
                workloads += usize::from(matches!(prepare(id.clone(), p.node), Some(IndexedObject::Workload(_))));
            }
        }
        assert!(workloads > 20, "the data has workloads to compare ({workloads})");
    }

    /// A workload read from its tree is the workload read from its JSON: for every object of
    /// the examples and the test data, and for the scalars JSON turns into something else.
    #[test]
    fn workloads_read_from_trees_and_from_json_agree() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut texts = vec![
            "spec: {replicas: 3.0, template: {metadata: {labels: {a: 1, b: true, c: x, 1: y, a: z}}, spec: {containers: [{name: a, resources: {requests: {cpu: 1, memory: 1e3, x: 0.5, y: .nan, z: ~, w: [1], v: ' 2 '}}}, {resources: {requests: 7}}], initContainers: [{name: s, restartPolicy: Always, resources: {requests: {cpu: 100m}}}, {name: t}], resources: {requests: {cpu: 2}}}}}\n".to_string(),
            "spec: {replicas: 3.5}\n".into(),
            "spec: {replicas: '3'}\n".into(),
            "spec: {replicas: 99999999999999999999}\n".into(),
            "spec: {replicas: 0x10, template: {spec: {containers: {name: a}}}}\n".into(),
            "spec: [1]\n".into(),
        ];
        let mut files = Vec::new();
        yaml_files(&root.join("examples"), &mut files);
        yaml_files(&root.join("tests/data"), &mut files);
        texts.extend(files.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
        let id = ObjectId {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: "n".into(),
            name: "w".into(),
        };
        let mut compared = 0;
        for text in &texts {
            for doc in source::parse(text).documents {
                let from_tree = objects::workload_from(id.clone(), doc.root());
                let from_json = objects::workload_from_json(id.clone(), &doc.root().to_json());
                assert_eq!(format!("{from_tree:?}"), format!("{from_json:?}"), "{text}");
                compared += 1;
            }
        }
        assert!(compared > 100, "{compared}");
    }
}
