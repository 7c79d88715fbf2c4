//! The other objects of a manifest set that rules look at: scale targets (workloads and their
//! pod templates), PodDisruptionBudgets, VerticalPodAutoscalers, KEDA ScaledObjects, and the
//! other HPAs. The linter builds them from its input files; the webhook has none.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::Quantity;

/// Identifies an object of the manifest set.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `metadata.namespace` (the default namespace when absent)
    pub namespace: String,
    /// `metadata.name`
    pub name: String,
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// A container of a pod template, with what the rules need.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TemplateContainer {
    /// Its name.
    pub name: String,
    /// Its index in `containers` (or `initContainers`).
    pub index: usize,
    /// Whether it is a restartable init container (a sidecar), which counts for requests.
    pub sidecar: bool,
    /// `resources.requests`, parsed.
    pub requests: BTreeMap<String, Quantity>,
}

/// A scalable workload (or any object named as a scale target) of the manifest set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Workload {
    /// Which object.
    pub id: ObjectId,
    /// `spec.replicas`, when written.
    pub replicas: Option<i64>,
    /// The pod template's labels.
    pub pod_labels: BTreeMap<String, String>,
    /// Regular containers, then restartable init containers (plain init containers are
    /// left out: they do not count for utilization).
    pub containers: Vec<TemplateContainer>,
    /// Pod-level `spec.template.spec.resources.requests`, when written.
    pub pod_requests: BTreeMap<String, Quantity>,
    /// The path of the pod spec inside the object (`spec.template.spec`, `spec.jobTemplate...`).
    pub pod_spec_path: String,
}

/// `metav1.LabelSelector`, for matching.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selector {
    /// `matchLabels`
    pub match_labels: BTreeMap<String, String>,
    /// `matchExpressions` as (key, operator, values).
    pub match_expressions: Vec<(String, String, Vec<String>)>,
}

impl Selector {
    /// Reads a selector from JSON.
    pub fn from_json(v: &Value) -> Selector {
        let match_labels = v
            .get("matchLabels")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
            .unwrap_or_default();
        let match_expressions = v
            .get("matchExpressions")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|e| {
                        let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                        let values = e
                            .get("values")
                            .and_then(Value::as_array)
                            .map(|vs| vs.iter().filter_map(Value::as_str).map(String::from).collect())
                            .unwrap_or_default();
                        (s("key"), s("operator"), values)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Selector { match_labels, match_expressions }
    }

    /// Whether the selector matches a label set (an empty selector matches everything,
    /// as `metav1.LabelSelectorAsSelector` makes it).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|(k, op, values)| match op.as_str() {
                "In" => labels.get(k).is_some_and(|v| values.contains(v)),
                "NotIn" => labels.get(k).is_none_or(|v| !values.contains(v)),
                "Exists" => labels.contains_key(k),
                "DoesNotExist" => !labels.contains_key(k),
                _ => false,
            })
    }
}

/// An `intstr.IntOrString` of a PodDisruptionBudget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntOrPercent {
    /// A count.
    Int(i64),
    /// A percentage (`"50%"`).
    Percent(i64),
}

impl IntOrPercent {
    /// Reads an int or a `"N%"` string.
    pub fn from_json(v: &Value) -> Option<IntOrPercent> {
        if let Some(i) = v.as_i64() {
            return Some(IntOrPercent::Int(i));
        }
        let s = v.as_str()?;
        match s.strip_suffix('%') {
            Some(p) => p.parse().ok().map(IntOrPercent::Percent),
            None => s.parse().ok().map(IntOrPercent::Int),
        }
    }

    /// The count for `total` pods (`intstr.GetScaledValueFromIntOrPercent`): a percentage
    /// rounds up with `round_up`, else down. The disruption controller
    /// (`pkg/controller/disruption/disruption.go`, `getExpectedPodCount`) rounds both
    /// `minAvailable` and `maxUnavailable` up.
    pub fn scaled(&self, total: i64, round_up: bool) -> i64 {
        match self {
            IntOrPercent::Int(i) => *i,
            IntOrPercent::Percent(p) => {
                let num = p.saturating_mul(total);
                if round_up { (num + 99).div_euclid(100) } else { num.div_euclid(100) }
            }
        }
    }
}

/// A PodDisruptionBudget.
#[derive(Debug, Clone, PartialEq)]
pub struct Pdb {
    /// Which object.
    pub id: ObjectId,
    /// `spec.selector`
    pub selector: Selector,
    /// `spec.minAvailable`
    pub min_available: Option<IntOrPercent>,
    /// `spec.maxUnavailable`
    pub max_unavailable: Option<IntOrPercent>,
}

/// A VerticalPodAutoscaler.
#[derive(Debug, Clone, PartialEq)]
pub struct Vpa {
    /// Which object.
    pub id: ObjectId,
    /// `spec.targetRef` (kind, name).
    pub target_kind: String,
    /// `spec.targetRef.name`
    pub target_name: String,
    /// `spec.updatePolicy.updateMode` (`Auto` when absent, as the VPA defaults it).
    pub update_mode: String,
    /// Resources the VPA controls (from `resourcePolicy.containerPolicies[*].controlledResources`;
    /// cpu and memory when not restricted). Containers with `mode: "Off"` are left out.
    pub controlled_resources: Vec<String>,
}

/// A KEDA ScaledObject.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaledObject {
    /// Which object.
    pub id: ObjectId,
    /// `spec.scaleTargetRef.kind` (`Deployment` when absent, as KEDA defaults it).
    pub target_kind: String,
    /// `spec.scaleTargetRef.name`
    pub target_name: String,
}

/// What a rule may ask about the rest of the manifest set.
pub trait Objects: Sync {
    /// Workloads with this kind (compared exactly) and name in a namespace.
    fn workload(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload>;
    /// Any object with this name in the namespace whose kind matches case-insensitively.
    fn workload_any_case(&self, kind: &str, namespace: &str, name: &str) -> Option<&Workload>;
    /// PodDisruptionBudgets of a namespace.
    fn pdbs(&self, namespace: &str) -> &[Pdb];
    /// VerticalPodAutoscalers of a namespace.
    fn vpas(&self, namespace: &str) -> &[Vpa];
    /// KEDA ScaledObjects of a namespace.
    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject];
    /// Every HPA of the set that targets `kind/name` in `namespace` (the one under check
    /// included), in input order.
    fn hpas_targeting(&self, namespace: &str, kind: &str, name: &str) -> &[ObjectId];
}

/// Read access to an object's fields, as JSON sees them: the linter builds index entries
/// straight from its YAML nodes through it, without turning them into JSON first. Every method
/// answers what the same method of `serde_json::Value` answers for the object's JSON.
pub trait Fields<'a>: Copy + 'a {
    /// The value of `key` in an object.
    fn field(self, key: &str) -> Option<Self>;
    /// A string's value.
    fn as_str(self) -> Option<&'a str>;
    /// An integer's value (`Value::as_i64`).
    fn as_i64(self) -> Option<i64>;
    /// A string, or a number as JSON writes it: the text of a quantity.
    fn quantity_text(self) -> Option<Cow<'a, str>>;
    /// An object's entries (none for anything else).
    fn entries(self) -> impl Iterator<Item = (Cow<'a, str>, Self)>;
    /// An array's items, `None` for anything else.
    fn items(self) -> Option<impl Iterator<Item = Self>>;
}

impl<'a> Fields<'a> for &'a Value {
    fn field(self, key: &str) -> Option<Self> {
        self.get(key)
    }
    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }
    fn as_i64(self) -> Option<i64> {
        Value::as_i64(self)
    }
    fn quantity_text(self) -> Option<Cow<'a, str>> {
        match self {
            Value::String(s) => Some(Cow::Borrowed(s)),
            Value::Number(n) => Some(Cow::Owned(n.to_string())),
            _ => None,
        }
    }
    fn entries(self) -> impl Iterator<Item = (Cow<'a, str>, Self)> {
        self.as_object().into_iter().flatten().map(|(k, v)| (Cow::Borrowed(k.as_str()), v))
    }
    fn items(self) -> Option<impl Iterator<Item = Self>> {
        self.as_array().map(|a| a.iter())
    }
}

/// Builds a [`Workload`] from a workload object's JSON (Deployment, StatefulSet, ReplicaSet,
/// ReplicationController, DeploymentConfig, Argo Rollout, or any object with a pod template).
pub fn workload_from_json(id: ObjectId, v: &Value) -> Workload {
    workload_from(id, v)
}

/// Builds a [`Workload`] from a workload object's fields (see [`workload_from_json`]).
pub fn workload_from<'a>(id: ObjectId, v: impl Fields<'a>) -> Workload {
    let spec = v.field("spec");
    let replicas = spec.and_then(|s| s.field("replicas")).and_then(Fields::as_i64);
    let template = spec.and_then(|s| s.field("template"));
    let pod_labels = template
        .and_then(|t| t.field("metadata"))
        .and_then(|m| m.field("labels"))
        .map(|m| m.entries().map(|(k, v)| (k.into_owned(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default();
    let pod_spec = template.and_then(|t| t.field("spec"));
    fn requests_of<'a>(c: impl Fields<'a>) -> BTreeMap<String, Quantity> {
        c.field("resources")
            .and_then(|r| r.field("requests"))
            .map(|m| {
                m.entries()
                    .filter_map(|(k, q)| {
                        let parsed = q.quantity_text().and_then(|text| Quantity::parse(text.trim()).ok());
                        parsed.map(|p| (k.into_owned(), p))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    let mut containers = Vec::new();
    if let Some(cs) = pod_spec.and_then(|p| p.field("containers")).and_then(Fields::items) {
        for (i, c) in cs.enumerate() {
            containers.push(TemplateContainer {
                name: c.field("name").and_then(Fields::as_str).unwrap_or_default().to_string(),
                index: i,
                sidecar: false,
                requests: requests_of(c),
            });
        }
    }
    if let Some(cs) = pod_spec.and_then(|p| p.field("initContainers")).and_then(Fields::items) {
        for (i, c) in cs.enumerate() {
            if c.field("restartPolicy").and_then(Fields::as_str) == Some("Always") {
                containers.push(TemplateContainer {
                    name: c.field("name").and_then(Fields::as_str).unwrap_or_default().to_string(),
                    index: i,
                    sidecar: true,
                    requests: requests_of(c),
                });
            }
        }
    }
    let pod_requests = pod_spec.map(requests_of).unwrap_or_default();
    Workload { id, replicas, pod_labels, containers, pod_requests, pod_spec_path: "spec.template.spec".into() }
}

/// Builds a [`Pdb`] from JSON.
pub fn pdb_from_json(id: ObjectId, v: &Value) -> Pdb {
    let spec = v.get("spec");
    Pdb {
        id,
        selector: spec.and_then(|s| s.get("selector")).map(Selector::from_json).unwrap_or_default(),
        min_available: spec.and_then(|s| s.get("minAvailable")).and_then(IntOrPercent::from_json),
        max_unavailable: spec.and_then(|s| s.get("maxUnavailable")).and_then(IntOrPercent::from_json),
    }
}

/// Builds a [`Vpa`] from JSON.
pub fn vpa_from_json(id: ObjectId, v: &Value) -> Vpa {
    let spec = v.get("spec");
    let target = spec.and_then(|s| s.get("targetRef"));
    let s =
        |n: Option<&Value>, k: &str| n.and_then(|n| n.get(k)).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut update_mode = s(spec.and_then(|s| s.get("updatePolicy")), "updateMode");
    if update_mode.is_empty() {
        update_mode = "Auto".into();
    }
    let policies =
        spec.and_then(|s| s.get("resourcePolicy")).and_then(|r| r.get("containerPolicies")).and_then(Value::as_array);
    let mut controlled: Vec<String> = Vec::new();
    match policies {
        Some(ps) if !ps.is_empty() => {
            for p in ps {
                if p.get("mode").and_then(Value::as_str) == Some("Off") {
                    continue;
                }
                match p.get("controlledResources").and_then(Value::as_array) {
                    Some(rs) => controlled.extend(rs.iter().filter_map(Value::as_str).map(String::from)),
                    None => controlled.extend(["cpu".to_string(), "memory".to_string()]),
                }
            }
        }
        _ => controlled.extend(["cpu".to_string(), "memory".to_string()]),
    }
    controlled.sort();
    controlled.dedup();
    Vpa {
        id,
        target_kind: s(target, "kind"),
        target_name: s(target, "name"),
        update_mode,
        controlled_resources: controlled,
    }
}

/// Builds a [`ScaledObject`] from JSON.
pub fn scaled_object_from_json(id: ObjectId, v: &Value) -> ScaledObject {
    let target = v.get("spec").and_then(|s| s.get("scaleTargetRef"));
    let s = |k: &str| target.and_then(|t| t.get(k)).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut kind = s("kind");
    if kind.is_empty() {
        kind = "Deployment".into();
    }
    ScaledObject { id, target_kind: kind, target_name: s("name") }
}

impl Default for ObjectId {
    fn default() -> Self {
        ObjectId { api_version: String::new(), kind: String::new(), namespace: "default".into(), name: String::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_match() {
        let s = Selector::from_json(
            &json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}),
        );
        let mut labels = BTreeMap::new();
        labels.insert("app".to_string(), "web".to_string());
        assert!(!s.matches(&labels));
        labels.insert("tier".to_string(), "b".to_string());
        assert!(s.matches(&labels));
    }

    #[test]
    fn pdb_percentages() {
        assert_eq!(IntOrPercent::from_json(&json!("50%")).unwrap().scaled(3, true), 2);
        assert_eq!(IntOrPercent::from_json(&json!("50%")).unwrap().scaled(3, false), 1);
        assert_eq!(IntOrPercent::from_json(&json!(2)).unwrap().scaled(3, true), 2);
    }

    #[test]
    fn workloads_read_requests_and_sidecars() {
        let w = workload_from_json(
            ObjectId::default(),
            &json!({"spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {
                "containers": [{"name": "app", "resources": {"requests": {"cpu": "250m"}}}],
                "initContainers": [{"name": "init"}, {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": 0.1}}}]
            }}}}),
        );
        assert_eq!(w.replicas, Some(3));
        assert_eq!(w.containers.len(), 2);
        assert!(w.containers[1].sidecar);
        assert_eq!(w.containers[1].requests["cpu"].milli_value(), 100);
    }
}
