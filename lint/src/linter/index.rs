//! The index of every object of the manifest set, for rules that look across objects.

use std::collections::HashMap;

use hpa_core::api::v2::HorizontalPodAutoscaler;
use hpa_core::rules::objects::{self, ObjectId, Pdb, ScaledObject, Vpa, Workload};

/// Objects by kind and namespace, built once before the rules run.
#[derive(Debug, Default)]
pub struct Index {
    workloads: HashMap<(String, String, String), Workload>,
    workloads_folded: HashMap<(String, String, String), (String, String, String)>,
    pdbs: HashMap<String, Vec<Pdb>>,
    vpas: HashMap<String, Vec<Vpa>>,
    scaled_objects: HashMap<String, Vec<ScaledObject>>,
    hpas: Vec<(ObjectId, HorizontalPodAutoscaler)>,
    hpas_by_target: HashMap<(String, String, String), Vec<usize>>,
}

/// Kinds whose objects are indexed as potential scale targets.
pub fn is_workload_kind(kind: &str) -> bool {
    !matches!(
        kind,
        "HorizontalPodAutoscaler"
            | "PodDisruptionBudget"
            | "VerticalPodAutoscaler"
            | "ScaledObject"
            | "Service"
            | "ConfigMap"
            | "Secret"
            | "Namespace"
            | "ServiceAccount"
            | "Role"
            | "RoleBinding"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "Ingress"
            | "NetworkPolicy"
            | "List"
    )
}

impl Index {
    /// Adds an object of any kind (others than those the rules use are ignored).
    pub fn add(&mut self, id: ObjectId, json: &serde_json::Value) {
        match id.kind.as_str() {
            "PodDisruptionBudget" => {
                self.pdbs.entry(id.namespace.clone()).or_default().push(objects::pdb_from_json(id, json));
            }
            "VerticalPodAutoscaler" => {
                self.vpas.entry(id.namespace.clone()).or_default().push(objects::vpa_from_json(id, json));
            }
            "ScaledObject" if id.api_version.starts_with("keda.sh/") => {
                self.scaled_objects
                    .entry(id.namespace.clone())
                    .or_default()
                    .push(objects::scaled_object_from_json(id, json));
            }
            kind if is_workload_kind(kind) => {
                let key = (id.kind.clone(), id.namespace.clone(), id.name.clone());
                let folded = (id.kind.to_ascii_lowercase(), id.namespace.clone(), id.name.clone());
                self.workloads_folded.entry(folded).or_insert_with(|| key.clone());
                self.workloads.entry(key).or_insert_with(|| objects::workload_from_json(id, json));
            }
            _ => {}
        }
    }

    /// Adds an HPA (after admission, in internal form).
    pub fn add_hpa(&mut self, id: ObjectId, hpa: HorizontalPodAutoscaler) {
        let t = &hpa.spec.scale_target_ref;
        let key = (id.namespace.clone(), t.kind.clone(), t.name.clone());
        self.hpas_by_target.entry(key).or_default().push(self.hpas.len());
        self.hpas.push((id, hpa));
    }
}

impl hpa_core::rules::Objects for Index {
    fn workload(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        self.workloads.get(&(kind.to_string(), namespace.to_string(), name.to_string()))
    }

    fn workload_any_case(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload> {
        let key = self.workloads_folded.get(&(kind.to_ascii_lowercase(), namespace.to_string(), name.to_string()))?;
        self.workloads.get(key)
    }

    fn pdbs(&self, namespace: &str) -> &[Pdb] {
        self.pdbs.get(namespace).map_or(&[], Vec::as_slice)
    }

    fn vpas(&self, namespace: &str) -> &[Vpa] {
        self.vpas.get(namespace).map_or(&[], Vec::as_slice)
    }

    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject] {
        self.scaled_objects.get(namespace).map_or(&[], Vec::as_slice)
    }

    fn hpas_targeting(&self, namespace: &str, kind: &str, name: &str) -> Vec<(&ObjectId, &HorizontalPodAutoscaler)> {
        self.hpas_by_target
            .get(&(namespace.to_string(), kind.to_string(), name.to_string()))
            .map(|ixs| ixs.iter().filter_map(|&i| self.hpas.get(i)).map(|(id, h)| (id, h)).collect())
            .unwrap_or_default()
    }
}
