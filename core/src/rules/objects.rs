//! The other objects of a manifest set that rules look at: scale targets (workloads and their
//! pod templates), PodDisruptionBudgets, VerticalPodAutoscalers, KEDA ScaledObjects, and the
//! other HPAs. The linter builds them from its input files, the webhook's context cache from
//! its watches, both into the one [`ObjectIndex`](super::index::ObjectIndex).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::api::GroupVersion;
use crate::api::meta::LabelSelectorRequirement;
use crate::api::{LabelSelector, Quantity};
use crate::resources::{self, ContainerRole, is_supported_pod_level_resource};

/// Identifies an object of the manifest set.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `metadata.namespace`, or the namespace the object lands in when it names none; empty for
    /// the kinds that have no namespace ([`is_cluster_scoped`]).
    pub namespace: String,
    /// `metadata.name`
    pub name: String,
}

/// Separates the prefix of a [`ObjectId::generated`] name from what makes it one of its own: a
/// character no object name has (names are DNS subdomains or path segments).
const GENERATED: char = '\u{0}';

impl ObjectId {
    /// Its API group as the RESTMapper maps it ([`super::object_group`]: `core` read as the core
    /// group, an `extensions` Deployment as the `apps` one): a slice of `api_version`.
    pub fn group(&self) -> &str {
        super::object_group(&self.kind, &self.api_version)
    }

    /// Whether `other` is the same object: the same API group ([`ObjectId::group`]: the version
    /// aside, as kube-apiserver stores an object once for every version of its group), kind,
    /// namespace and name. An `apps/v1beta2` and an `apps/v1` Deployment `shop/web` are one
    /// object; a `Foo` of `a.example.com` and one of `b.example.com` of the same name are two.
    pub fn same_object(&self, other: &ObjectId) -> bool {
        self.name == other.name
            && self.kind == other.kind
            && self.namespace == other.namespace
            && self.group() == other.group()
    }

    /// Whether objects of this kind live in a namespace ([`is_cluster_scoped`]).
    pub fn namespaced(&self) -> bool {
        !is_cluster_scoped(&self.api_version, &self.kind)
    }

    /// The identity of an object written with `metadata.generateName` and no name:
    /// kube-apiserver names each one when it is created (`BeforeCreate` with
    /// `names.SimpleNameGenerator`: the prefix and five random characters), so each is an object
    /// of its own (`kubectl create` twice makes two), told apart by `nth` (its place in the
    /// input). Its [`ObjectId::written_name`] is empty and [`ObjectId::describe_name`] speaks
    /// of its prefix.
    pub fn generated(api_version: &str, kind: &str, namespace: &str, generate_name: &str, nth: &str) -> ObjectId {
        ObjectId {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: format!("{generate_name}{GENERATED}{nth}"),
        }
    }

    /// `metadata.generateName` of an object [`ObjectId::generated`] gave its identity.
    pub fn generate_name(&self) -> Option<&str> {
        self.name.split_once(GENERATED).map(|(prefix, _)| prefix)
    }

    /// `metadata.name` as written (empty for an object named by kube-apiserver at creation).
    pub fn written_name(&self) -> &str {
        if self.generate_name().is_some() { "" } else { &self.name }
    }

    /// The object as a message names one of its kind among others: its name (`web`), or in
    /// words when it has none: `an HPA with generateName web-`, `an HPA without a name`
    /// (`a_noun`: `an HPA`, `a Deployment`, ...).
    pub fn describe_name(&self, a_noun: &str) -> String {
        match self.generate_name() {
            Some(prefix) => format!("{a_noun} with generateName {prefix}"),
            None if self.name.is_empty() => format!("{a_noun} without a name"),
            None => self.name.clone(),
        }
    }
}

/// `Deployment shop/web`, or `ClusterRole web` for an object without a namespace; `Deployment
/// shop/web-*` for one [`ObjectId::generated`] (`generateName: web-`).
impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.generate_name() {
            Some(prefix) => write_object(f, &self.kind, &self.namespace, &format!("{prefix}*")),
            None => write_object(f, &self.kind, &self.namespace, &self.name),
        }
    }
}

/// Writes an object's kind and name as [`ObjectId`]'s `Display` does: `Deployment shop/web`,
/// or `ClusterRole web` when the namespace is empty (a kind without namespaces).
pub fn write_object(out: &mut impl std::fmt::Write, kind: &str, namespace: &str, name: &str) -> std::fmt::Result {
    if namespace.is_empty() { write!(out, "{kind} {name}") } else { write!(out, "{kind} {namespace}/{name}") }
}

/// The kinds that have no namespace, by API group: the built-in ones (`kubectl api-resources
/// --namespaced=false` on Kubernetes 1.37) and those of widely installed extensions. The one
/// list: the linter asks it which objects take part in namespace resolution, and object names
/// are printed without a namespace for them.
const CLUSTER_SCOPED: &[(&str, &[&str])] = &[
    ("", &["Namespace", "Node", "PersistentVolume", "ComponentStatus"]),
    ("rbac.authorization.k8s.io", &["ClusterRole", "ClusterRoleBinding"]),
    ("apiextensions.k8s.io", &["CustomResourceDefinition"]),
    ("apiregistration.k8s.io", &["APIService"]),
    (
        "admissionregistration.k8s.io",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    ("storage.k8s.io", &["StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"]),
    ("scheduling.k8s.io", &["PriorityClass"]),
    ("node.k8s.io", &["RuntimeClass"]),
    ("networking.k8s.io", &["IngressClass", "IPAddress", "ServiceCIDR"]),
    ("policy", &["PodSecurityPolicy"]),
    ("certificates.k8s.io", &["CertificateSigningRequest", "ClusterTrustBundle"]),
    ("flowcontrol.apiserver.k8s.io", &["FlowSchema", "PriorityLevelConfiguration"]),
    ("resource.k8s.io", &["DeviceClass", "ResourceSlice"]),
    ("storagemigration.k8s.io", &["StorageVersionMigration"]),
    ("authentication.k8s.io", &["TokenReview", "SelfSubjectReview"]),
    ("authorization.k8s.io", &["SubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview"]),
    ("internal.apiserver.k8s.io", &["StorageVersion"]),
    // Gateway API (a SIG Network project whose CRDs clusters install).
    ("gateway.networking.k8s.io", &["GatewayClass"]),
    // Extensions whose charts are common inputs.
    ("cert-manager.io", &["ClusterIssuer"]),
    ("trust.cert-manager.io", &["Bundle"]),
    ("snapshot.storage.k8s.io", &["VolumeSnapshotClass", "VolumeSnapshotContent"]),
    ("keda.sh", &["ClusterTriggerAuthentication"]),
    ("external-secrets.io", &["ClusterSecretStore", "ClusterExternalSecret"]),
    ("kyverno.io", &["ClusterPolicy", "ClusterCleanupPolicy"]),
    ("wgpolicyk8s.io", &["ClusterPolicyReport"]),
    ("templates.gatekeeper.sh", &["ConstraintTemplate"]),
    ("karpenter.sh", &["NodePool", "NodeClaim"]),
    ("karpenter.k8s.aws", &["EC2NodeClass"]),
    ("argoproj.io", &["ClusterWorkflowTemplate"]),
    ("pkg.crossplane.io", &["Provider", "Configuration", "Function", "DeploymentRuntimeConfig"]),
    ("apiextensions.crossplane.io", &["CompositeResourceDefinition", "Composition", "CompositionRevision"]),
    ("crd.projectcalico.org", CALICO_CLUSTER_SCOPED),
    ("projectcalico.org", CALICO_CLUSTER_SCOPED),
    (
        "cilium.io",
        &[
            "CiliumClusterwideNetworkPolicy",
            "CiliumClusterwideEnvoyConfig",
            "CiliumNode",
            "CiliumIdentity",
            "CiliumLoadBalancerIPPool",
        ],
    ),
];

/// Calico's kinds without namespaces, in both of its groups (`crd.projectcalico.org`, the CRDs;
/// `projectcalico.org`, its API server): all but `NetworkPolicy` and `NetworkSet`.
const CALICO_CLUSTER_SCOPED: &[&str] = &[
    "GlobalNetworkPolicy",
    "GlobalNetworkSet",
    "IPPool",
    "IPReservation",
    "HostEndpoint",
    "FelixConfiguration",
    "BGPConfiguration",
    "BGPPeer",
    "ClusterInformation",
    "KubeControllersConfiguration",
];

/// Whether objects of `kind` in `apiVersion` live outside namespaces (a Namespace, a
/// ClusterRole, a CustomResourceDefinition, a PriorityClass, ...; see the list above). Every
/// kind of Gatekeeper's `constraints.gatekeeper.sh` group is too.
///
/// The legacy group may be spelled `core` (`core/v1`, as RBAC and `kubectl explain` name it, and
/// as an HPA must write it: a scale target's `apiVersion` needs a group): no other group has
/// that name (an API group of an extension has a dot).
pub fn is_cluster_scoped(api_version: &str, kind: &str) -> bool {
    let group = GroupVersion::parse_or_empty(api_version).api_group();
    group == "constraints.gatekeeper.sh" || CLUSTER_SCOPED.iter().any(|(g, kinds)| *g == group && kinds.contains(&kind))
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
    /// `resources.requests`, parsed, as written.
    pub requests: BTreeMap<String, Quantity>,
    /// `resources.limits` of the resources it has no request for, parsed: the pod gets them as
    /// requests when it is created ([`AdmittedPod`]). (The other limits are not read.)
    pub limits_as_requests: BTreeMap<String, Quantity>,
    /// Why kube-apiserver cannot decode its `resources`, in its words ([`resources_error`]):
    /// it then rejects the whole object. (A quantity written `null` decodes, as 0.)
    pub resources_error: Option<String>,
}

impl TemplateContainer {
    /// The list it is in: `containers` or `initContainers`.
    pub fn list(&self) -> &'static str {
        if self.sidecar { "initContainers" } else { "containers" }
    }
}

/// Containers as findings name them: `container "app"`, `container "app" and sidecar "proxy"`,
/// `containers "a", "b" and "c"` (a restartable init container is a sidecar).
pub fn describe_containers(containers: &[&TemplateContainer]) -> String {
    let noun = |c: &TemplateContainer| if c.sidecar { "sidecar" } else { "container" };
    let Some(first) = containers.first() else { return String::new() };
    let all_same = containers.iter().all(|c| c.sidecar == first.sidecar);
    let names: Vec<String> = containers
        .iter()
        .map(|c| if all_same { format!("{:?}", c.name) } else { format!("{} {:?}", noun(c), c.name) })
        .collect();
    let list = super::and_list(&names);
    match (all_same, containers.len()) {
        (true, 1) => format!("{} {list}", noun(first)),
        (true, _) => format!("{}s {list}", noun(first)),
        (false, _) => list,
    }
}

/// `spec.workloadRef` of an Argo Rollout: the workload whose pod template the Rollout's pods
/// are made from (the Rollout then owns the replicas; the workload usually has `replicas: 0`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkloadRef {
    /// `apiVersion`
    pub api_version: String,
    /// `kind`
    pub kind: String,
    /// `name` (in the Rollout's namespace)
    pub name: String,
    /// Why Argo Rollouts refuses the reference, in its words (`workload_ref_refusal`): the
    /// Rollout then starts no pods, from this workload's template or any.
    pub refused: Option<String>,
}

/// Why Argo Rollouts refuses a Rollout's `workloadRef`, in its words; `None` when it takes it.
/// Its validation (`ValidateRolloutSpec`) says `template must be empty for workload reference
/// rollout` when the Rollout also writes a template (`RolloutSpec.EmptyTemplate`: labels or
/// annotations in `spec.template.metadata`), and its template resolver
/// (`informerBasedTemplateResolver.Resolve`, rollout/templateref.go) `workload of type
/// <group>/<kind> is not supported` for a kind other than a Deployment, a ReplicaSet (`apps`) or
/// a core PodTemplate (`infoByGroupKind`).
fn workload_ref_refusal(r: &WorkloadRef, template_written: bool) -> Option<String> {
    if template_written {
        return Some("template must be empty for workload reference rollout".into());
    }
    let group = GroupVersion::parse_or_empty(&r.api_version).group().to_string();
    let supported =
        matches!((group.as_str(), r.kind.as_str()), ("apps", "Deployment" | "ReplicaSet") | ("", "PodTemplate"));
    (!supported).then(|| format!("workload of type {group}/{} is not supported", r.kind))
}

/// A scalable workload (or any object named as a scale target) of the manifest set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Workload {
    /// Which object.
    pub id: ObjectId,
    /// `spec.replicas`, when written.
    pub replicas: Option<i64>,
    /// `spec.replicas` is 0 as the object stands, whoever set it (a live object's
    /// [`Workload::replicas`] keeps only what a user or a tool set): it runs no pods, as a
    /// Deployment's old ReplicaSets do once its controller has scaled them down.
    pub zero_replicas: bool,
    /// Why kube-apiserver cannot decode a built-in workload: its `spec.replicas` (`replicas:
    /// "3"`, `1.5`), its selector or its template's labels (`version: 1.0`), in its words
    /// ([`workload_decode_refusal`]); `None` when it decodes them. What its validation refuses
    /// is [`Workload::refusal`]'s. (Boxed: a set keeps thousands of workloads, almost none with
    /// one.)
    pub undecodable: Option<Box<DecodeRefusal>>,
    /// kube-apiserver's error on a built-in workload whose valid selector does not select its
    /// own pod template (`template_labels_error`). (Boxed: a set keeps thousands of workloads,
    /// almost none with one.)
    pub template_labels_error: Option<Box<crate::field::FieldError>>,
    /// kube-apiserver's error on a built-in workload without a selector, or with an empty one
    /// (`selector_error`). (Boxed, as [`Workload::template_labels_error`].)
    pub selector_error: Option<Box<crate::field::FieldError>>,
    /// What else kube-apiserver's validation refuses in a built-in workload's pod template, of
    /// what the decoder reads ([`TemplateRefusal`]); `None` when nothing. (Boxed, as
    /// [`Workload::template_labels_error`].)
    pub template_refusal: Option<Box<TemplateRefusal>>,
    /// The pod template's labels.
    pub pod_labels: BTreeMap<String, String>,
    /// Regular containers, then restartable init containers (sidecars): the containers whose
    /// requests the HPA controller adds up for utilization.
    pub containers: Vec<TemplateContainer>,
    /// The other (plain) init containers: they count only in a pod's aggregate requests
    /// ([`AdmittedPod::pod_requests`]), never for a container's utilization.
    pub init_containers: Vec<TemplateContainer>,
    /// Pod-level `spec.template.spec.resources.requests`, when written.
    pub pod_requests: BTreeMap<String, Quantity>,
    /// Pod-level `spec.template.spec.resources.limits`, when written.
    pub pod_limits: BTreeMap<String, Quantity>,
    /// A custom resource's integers under `spec` (group with a dot, as every CRD's), outside
    /// its pod template, by dotted path (`spec.size`): where its CustomResourceDefinition's
    /// `specReplicasPath` may put the count the HPA sets ([`Workload::spec_integer`]). Empty for
    /// the built-in kinds. (Boxed: a set keeps thousands of workloads, few of them custom.)
    pub spec_integers: Option<Box<Vec<(String, i64)>>>,
    /// The pod spec's `runtimeClassName`, when written: the RuntimeClass whose overhead
    /// admission sets on each pod ([`Objects::pod_overhead`]).
    pub runtime_class_name: Option<String>,
    /// The path of the pod spec inside the object (`spec.template.spec`, `spec.jobTemplate...`).
    pub pod_spec_path: String,
    /// An Argo Rollout's `spec.workloadRef`: its pods come from that workload's template.
    /// (Boxed: a set keeps thousands of workloads, almost none with one.)
    pub workload_ref: Option<Box<WorkloadRef>>,
    /// The selector of its pods (`workload_selector`), when it has one.
    pub selector: Option<LabelSelector>,
}

/// What kube-apiserver's validation of a built-in workload (Deployment, StatefulSet, ReplicaSet
/// of `apps`, ReplicationController of the core group) refuses in its pod template besides its
/// labels ([`Workload::refusal`] gives the errors): the part of `ValidatePodTemplateSpec` the
/// decoder reads. The rest of the pod spec (a container's name, image, ports, volumes, ...) is
/// not checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemplateRefusal {
    /// A ReplicationController without `spec.template` (a pointer there, where an `apps`
    /// kind's is a value): `ValidatePodTemplateSpecForRC`'s `spec.template: Required value`,
    /// and nothing else of the template.
    pub missing: bool,
    /// The template's annotation keys `ValidateAnnotations` refuses (a key is a qualified
    /// name, compared lowercased), in key order.
    pub annotation_keys: Vec<String>,
    /// The template's annotations exceed `TotalAnnotationSizeLimitB` (256 KiB, keys and values).
    pub annotations_too_long: bool,
    /// No container: `ValidatePodSpec`'s `spec.template.spec.containers: Required value`
    /// (not a StatefulSet's: `ValidatePodTemplateSpecForStatefulSet` validates no pod spec).
    pub no_containers: bool,
}

/// [`TemplateRefusal`] of a built-in workload's template as written (`template`; its
/// `annotations` and `containers`); `None` for another kind, or when nothing is refused.
fn template_refusal<'a, F: Fields<'a>>(
    id: &ObjectId,
    template: Option<F>,
    annotations: Option<F>,
    containers: Option<F>,
) -> Option<TemplateRefusal> {
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    if super::scalable_group(&id.kind) != Some(gv.group()) {
        return None;
    }
    let template = template.filter(|t| t.json_type() != "null");
    let mut refusal = TemplateRefusal::default();
    if template.is_none() && id.kind == "ReplicationController" {
        refusal.missing = true;
        return Some(refusal);
    }
    let latest = crate::features::KubernetesVersion::LATEST;
    let mut size = 0;
    for (key, value) in annotations.into_iter().flat_map(Fields::entries) {
        size += key.len() + value.as_str().map_or(0, str::len);
        if !crate::validation::names::qualified_name(&crate::go::to_lower(&key), latest).is_empty() {
            refusal.annotation_keys.push(key.into_owned());
        }
    }
    refusal.annotation_keys.sort();
    refusal.annotations_too_long = size > crate::validation::meta::TOTAL_ANNOTATION_SIZE_LIMIT;
    refusal.no_containers =
        id.kind != "StatefulSet" && containers.and_then(Fields::items).is_none_or(|mut c| c.next().is_none());
    (refusal != TemplateRefusal::default()).then_some(refusal)
}

/// Reads a `metav1.LabelSelector` from JSON, leniently (a value of the wrong type is empty):
/// the rules match it with [`LabelSelector::matches`], the one matcher.
pub fn selector_from_json(v: &Value) -> LabelSelector {
    selector_from(v)
}

/// Reads a `metav1.LabelSelector` from an object's fields ([`selector_from_json`]).
pub fn selector_from<'a>(v: impl Fields<'a>) -> LabelSelector {
    let s = |n: Option<_>| n.and_then(Fields::as_str).unwrap_or_default().to_string();
    let match_labels = v.field("matchLabels").map(|m| m.entries().map(|(k, v)| (k.into_owned(), s(Some(v)))).collect());
    let match_expressions = v.field("matchExpressions").and_then(Fields::items).map(|a| {
        a.map(|e| {
            let values = e.field("values").and_then(Fields::items);
            let values = values.map(|vs| vs.filter_map(Fields::as_str).map(String::from).collect()).unwrap_or_default();
            LabelSelectorRequirement { key: s(e.field("key")), operator: s(e.field("operator")), values }
        })
        .collect()
    });
    LabelSelector {
        match_labels: match_labels.unwrap_or_default(),
        match_expressions: match_expressions.unwrap_or_default(),
    }
}

/// The selector of a workload's pods, as its `/scale` subresource reports it (`status.selector`,
/// which the HPA controller lists pods by) from `written`, its `spec.selector`: a
/// `metav1.LabelSelector`, or for a ReplicationController or an OpenShift DeploymentConfig a
/// map of labels (the pod template's labels when it is empty, as kube-apiserver defaults an
/// RC's). `None` when there is none, or it is empty (kube-apiserver refuses an empty selector
/// on the built-in kinds).
fn workload_selector<'a>(
    id: &ObjectId,
    written: Option<impl Fields<'a>>,
    pod_labels: &BTreeMap<String, String>,
) -> Option<LabelSelector> {
    let map_form = matches!(id.kind.as_str(), "ReplicationController" | "DeploymentConfig");
    let selector = if map_form {
        let match_labels: BTreeMap<String, String> = written
            .map(|m| m.entries().map(|(k, v)| (k.into_owned(), v.as_str().unwrap_or_default().to_string())).collect())
            .unwrap_or_default();
        let match_labels = if match_labels.is_empty() { pod_labels.clone() } else { match_labels };
        LabelSelector { match_labels, match_expressions: Vec::new() }
    } else {
        written.map(selector_from).unwrap_or_default()
    };
    (!selector.match_labels.is_empty() || !selector.match_expressions.is_empty()).then_some(selector)
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
    /// `spec.selector`; `None` when it selects no pod ([`pdb_from_json`]). Read it through
    /// [`Pdb::selects`].
    pub selector: Option<LabelSelector>,
    /// `spec.minAvailable`
    pub min_available: Option<IntOrPercent>,
    /// `spec.maxUnavailable`
    pub max_unavailable: Option<IntOrPercent>,
    /// What kube-apiserver's decoding refuses in `minAvailable` or `maxUnavailable`, before any
    /// validation ([`pdb_decode_refusal`]: `2.5`, `true`, `2147483648`): the budget is never
    /// stored, and nothing else is said of it.
    pub undecodable: Option<DecodeRefusal>,
    /// What kube-apiserver's validation refuses in `minAvailable` and `maxUnavailable`
    /// ([`pdb_budget_errors`]): the budget is then never stored. The rest of what it refuses
    /// (the selector, the eviction policy) is in [`Pdb::refusal`].
    pub invalid: Vec<crate::field::FieldError>,
    /// `spec.unhealthyPodEvictionPolicy`, when written as a string.
    pub unhealthy_pod_eviction_policy: Option<String>,
    /// When kube-apiserver refuses the selector, the one meant ([`Pdb::meant_for`]).
    pub meant_selector: Option<LabelSelector>,
}

/// A field kube-apiserver's decoding of an object refuses (a Go type error), so that it never
/// validates nor stores the object: where, and kube-apiserver's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeRefusal {
    /// The field, as the object's fields name it (`spec.minAvailable`).
    pub field: String,
    /// kube-apiserver's message (`PodDisruptionBudget in version "v1" cannot be handled as a
    /// PodDisruptionBudget: json: cannot unmarshal number 2.5 into Go struct field ...`).
    pub message: String,
}

/// A VerticalPodAutoscaler.
#[derive(Debug, Clone, PartialEq)]
pub struct Vpa {
    /// Which object.
    pub id: ObjectId,
    /// The API group of the object `spec.targetRef` names, as the VPA resolves it
    /// ([`vpa_target_group`]).
    pub target_group: String,
    /// `spec.targetRef` (kind, name).
    pub target_kind: String,
    /// `spec.targetRef.name`
    pub target_name: String,
    /// `spec.updatePolicy.updateMode` (`Recreate` when absent, as the VPA defaults it; `Auto`,
    /// the former default, is the same mode).
    pub update_mode: String,
    /// Every value the VPA CRD's schema refuses among the enums the rules read
    /// ([`vpa_schema_refusals`]), in the schema's order: the VPA is never created.
    pub refused: Vec<VpaSchemaRefusal>,
    /// What the VPA admission controller refuses when the VPA is created
    /// ([`vpa_admission_refusal`]): it denies the request, so a VPA of a manifest set with
    /// these errors is never created either.
    pub admission_refusal: crate::field::ErrorList,
    /// `spec.resourcePolicy.containerPolicies`, in order: which containers it sizes, and which
    /// of their resources ([`Vpa::sets_request`]).
    pub container_policies: Vec<ContainerPolicy>,
    /// `metadata.creationTimestamp` as stored (RFC 3339, to the second, so that text order is
    /// time order); `None` in a manifest set, whose VPAs are not created yet.
    pub created: Option<String>,
}

/// A value of a VPA the VPA CRD's structural schema refuses: one outside a `type: string` field's
/// `enum` (a string not in it, or no string at all: an unquoted `Off` is YAML 1.1's `false`,
/// which kubectl sends as JSON `false`).
#[derive(Debug, Clone, PartialEq)]
pub struct VpaSchemaRefusal {
    /// Its path (`spec.updatePolicy.updateMode`).
    pub path: String,
    /// The value written.
    pub value: Value,
    /// The field's enum, in the schema's order.
    pub allowed: &'static [&'static str],
}

impl VpaSchemaRefusal {
    /// The field's key (`updateMode`, `mode`, `controlledValues`).
    pub fn key(&self) -> &str {
        self.path.rsplit('.').next().unwrap_or_default()
    }

    /// The errors apiextensions-apiserver reports for it (`kubeOpenAPIResultToFieldErrors` of
    /// `k8s.io/apiextensions-apiserver/pkg/apiserver/validation`): kube-openapi's
    /// `SchemaValidator` runs every validator of the field, so a value of another JSON type
    /// fails the type (`errors.InvalidType`, reported as `field.Invalid` with the type's name)
    /// and then the enum too (`errors.EnumFail`, reported as `field.NotSupported` with the
    /// enum's values); a string fails only the enum.
    pub fn errors(&self) -> crate::field::ErrorList {
        use crate::field::{BadValue, FieldError, Path};
        let path = Path::new(&self.path);
        let ty = match &self.value {
            Value::String(s) => {
                return vec![FieldError::not_supported(&path, BadValue::Str(s.clone()), self.allowed)];
            }
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::Array(_) => "array",
            Value::Object(_) | Value::Null => "object",
        };
        let value = match &self.value {
            Value::Bool(b) => BadValue::Bool(*b),
            Value::Number(n) if n.is_i64() => BadValue::Int(n.as_i64().unwrap_or_default()),
            // A float64: `%v` in every release (`1.2345675e+06`, not JSON's `1234567.5`).
            Value::Number(n) => {
                let g = crate::go::format_float_g(n.as_f64().unwrap_or_default(), 64);
                BadValue::Composite { json: g.clone(), go_syntax: g }
            }
            // A `[]interface{}` or a `map[string]interface{}`: its JSON from 1.34, `%#v` in 1.33
            // (`[]interface {}{false}`).
            v => BadValue::Composite {
                json: crate::go::unstructured_json(v),
                go_syntax: crate::go::unstructured_go_syntax(v),
            },
        };
        vec![
            FieldError::invalid(
                &path,
                BadValue::Str(ty.into()),
                format!("{} in body must be of type string: {}", self.path, crate::go::quote(ty)),
            ),
            FieldError::not_supported(&path, value, self.allowed),
        ]
    }
}

/// One of a VPA's `resourcePolicy.containerPolicies` (`ContainerResourcePolicy` of
/// `autoscaling.k8s.io/v1`), with what decides whether the VPA sets a container's requests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerPolicy {
    /// `containerName`; `*` is the policy of every container no other policy names.
    pub container_name: String,
    /// `mode: "Off"`: the VPA never changes this container's resources.
    pub off: bool,
    /// `controlledResources`; `None` when not written (cpu and memory).
    pub controlled_resources: Option<Vec<String>>,
}

impl ContainerPolicy {
    /// Whether a container this policy applies to gets its `resource` request from the VPA:
    /// not `mode: "Off"`, and `resource` among `controlledResources` (cpu and memory when not
    /// written). `controlledValues` (`RequestsOnly` or `RequestsAndLimits`) sets requests
    /// either way.
    pub fn controls(&self, resource: &str) -> bool {
        !self.off
            && match &self.controlled_resources {
                Some(rs) => rs.iter().any(|r| r == resource),
                None => DEFAULT_CONTROLLED_RESOURCES.contains(&resource),
            }
    }
}

/// The resources a VPA controls in a container without a policy, or whose policy names none
/// (`controlledResources` defaults to `[cpu, memory]`).
const DEFAULT_CONTROLLED_RESOURCES: [&str; 2] = ["cpu", "memory"];

/// `supportedUnhealthyPodEvictionPolicies` of `pkg/apis/policy/validation`, as its `List()`
/// gives them (sorted).
pub const PDB_UNHEALTHY_POD_EVICTION_POLICIES: &[&str] = &["AlwaysAllow", "IfHealthyBudget"];

impl Pdb {
    /// Whether the budget selects a pod with these labels: `metav1.LabelSelectorAsSelector` of
    /// its selector then `Selector.Matches`, as the disruption controller's `getPodsForPdb`
    /// (`pkg/controller/disruption/disruption.go`) lists them; a budget with no selector
    /// selects none.
    pub fn selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.selector.as_ref().is_some_and(|s| s.matches(labels))
    }

    /// Every error kube-apiserver's `ValidatePodDisruptionBudgetSpec` (`pkg/apis/policy/
    /// validation`) finds in the budget on create, in its order and worded as `release` words
    /// them: [`Pdb::invalid`] (both bounds set, `minAvailable`, `maxUnavailable`), then the
    /// selector's (`ValidateLabelSelector`, label values checked: the registry's create strategy
    /// leaves `AllowInvalidLabelValueInSelector` off), then an `unhealthyPodEvictionPolicy`
    /// outside [`PDB_UNHEALTHY_POD_EVICTION_POLICIES`] (`field.NotSupported`). Empty when it
    /// stores the budget.
    pub fn refusal(&self, release: crate::features::KubernetesVersion) -> crate::field::ErrorList {
        use crate::field::{BadValue, FieldError, Path};
        let mut errors = self.invalid.clone();
        let spec = Path::new("spec");
        if let Some(selector) = &self.selector {
            errors.extend(crate::validation::meta::validate_label_selector(selector, &spec.child("selector"), release));
        }
        if let Some(policy) = self.unhealthy_pod_eviction_policy.as_deref()
            && !PDB_UNHEALTHY_POD_EVICTION_POLICIES.contains(&policy)
        {
            errors.push(FieldError::not_supported(
                &spec.child("unhealthyPodEvictionPolicy"),
                BadValue::named(policy),
                PDB_UNHEALTHY_POD_EVICTION_POLICIES,
            ));
        }
        errors
    }

    /// Whether the budget was meant for a pod with these labels: it selects it
    /// ([`Pdb::selects`]) or, when kube-apiserver refuses its selector, its
    /// [`Pdb::meant_selector`] does. A refused budget is never stored and selects nothing; this
    /// only tells which HPAs to report it on.
    pub fn meant_for(&self, labels: &BTreeMap<String, String>) -> bool {
        match &self.meant_selector {
            Some(meant) => meant.matches(labels),
            None => self.selects(labels),
        }
    }
}

/// The selector a budget's author meant when kube-apiserver refuses it
/// (`ValidateLabelSelector`), `None` when it takes it: an operator written in the wrong case
/// (`in`) read as the one meant, without the label pairs and requirements still refused (a value
/// no label can have). Computed once per budget, not per HPA it is checked against.
fn meant_selector(selector: &LabelSelector) -> Option<LabelSelector> {
    const OPERATORS: [&str; 4] = ["In", "NotIn", "Exists", "DoesNotExist"];
    let release = crate::features::KubernetesVersion::LATEST;
    let refused = |s: &LabelSelector| {
        !crate::validation::meta::validate_label_selector(s, &crate::field::Path::new("selector"), release).is_empty()
    };
    if !refused(selector) {
        return None;
    }
    let match_labels = selector
        .match_labels
        .iter()
        .filter(|(k, v)| {
            let pair = BTreeMap::from([((*k).clone(), (*v).clone())]);
            !refused(&LabelSelector { match_labels: pair, match_expressions: Vec::new() })
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let match_expressions = selector
        .match_expressions
        .iter()
        .map(|r| {
            let operator = OPERATORS.iter().find(|o| o.eq_ignore_ascii_case(&r.operator));
            LabelSelectorRequirement {
                operator: operator.map_or_else(|| r.operator.clone(), |o| (*o).to_string()),
                ..r.clone()
            }
        })
        .filter(|r| !refused(&LabelSelector { match_labels: BTreeMap::new(), match_expressions: vec![r.clone()] }))
        .collect();
    Some(LabelSelector { match_labels, match_expressions })
}

impl Vpa {
    /// Whether the VPA is stronger than `other` to control a pod both match, as `stronger` in
    /// the VPA's `pkg/utils/vpa/api.go` orders them for `GetControllingVPAForPod`: created
    /// earlier, or, created in the same second, the first by name. VPAs of a manifest set have
    /// no creation time yet: applied together, they are created in the same second, so their
    /// names decide.
    pub fn stronger_than(&self, other: &Vpa) -> bool {
        match (&self.created, &other.created) {
            (Some(a), Some(b)) if a != b => a < b,
            _ => self.id.name < other.id.name,
        }
    }

    /// Whether the VPA updater acts on running pods for it: `Recreate`, `Auto`,
    /// `InPlaceOrRecreate` or `InPlace` (the modes `RunOnce` of the updater keeps; it skips
    /// `Initial` and `Off` VPAs, which it then never picks for a pod).
    pub fn updates_running_pods(&self) -> bool {
        matches!(self.update_mode.as_str(), "Auto" | "Recreate" | "InPlaceOrRecreate" | "InPlace")
    }

    /// The policy the VPA applies to `container`, as `GetContainerResourcePolicy`
    /// (autoscaler `vertical-pod-autoscaler/pkg/utils/vpa/api.go`) resolves it: the first
    /// policy naming it exactly, else the (last) `*` policy, else none (the defaults: cpu and
    /// memory controlled, mode `Auto`).
    pub fn policy_of(&self, container: &str) -> Option<&ContainerPolicy> {
        self.container_policies.iter().find(|p| p.container_name == container).or_else(|| self.others_policy())
    }

    /// The policy of the containers no policy names: the last `*` policy (the one
    /// `GetContainerResourcePolicy`'s loop keeps).
    fn others_policy(&self) -> Option<&ContainerPolicy> {
        self.container_policies.iter().rev().find(|p| p.container_name == "*")
    }

    /// Whether the VPA sets the `resource` request of `container` ([`Vpa::policy_of`],
    /// [`ContainerPolicy::controls`]), whatever its update mode.
    pub fn sets_request(&self, container: &str, resource: &str) -> bool {
        self.policy_of(container).map_or(DEFAULT_CONTROLLED_RESOURCES.contains(&resource), |p| p.controls(resource))
    }

    /// Whether the VPA sets the `resource` request of some container when the containers are
    /// not known (the pod template is not in the set): of a container one of its policies
    /// names, or of the others, through its `*` policy or, when it has no policy at all, the
    /// defaults. (A container no policy names, in a VPA with named policies and no `*`, also
    /// gets the defaults; whether the pods have one is not known, so it is not assumed.)
    pub fn may_set_request(&self, resource: &str) -> bool {
        if self.container_policies.is_empty() {
            return DEFAULT_CONTROLLED_RESOURCES.contains(&resource);
        }
        let named = self.container_policies.iter().filter(|p| p.container_name != "*");
        let resolved = named.filter_map(|p| self.policy_of(&p.container_name));
        resolved.chain(self.others_policy()).any(|p| p.controls(resource))
    }
}

/// A KEDA ScaledObject.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaledObject {
    /// Which object.
    pub id: ObjectId,
    /// The API group of `spec.scaleTargetRef.apiVersion` ([`super::object_group`]; `apps` when
    /// absent, as KEDA defaults it: `ParseGVKR`).
    pub target_group: String,
    /// `spec.scaleTargetRef.kind` (`Deployment` when absent, as KEDA defaults it).
    pub target_kind: String,
    /// `spec.scaleTargetRef.name`
    pub target_name: String,
    /// The name of the HPA KEDA makes for it (KEDA's `getHPAName`):
    /// `spec.advanced.horizontalPodAutoscalerConfig.name`, else `keda-hpa-<name>` cut to 63
    /// characters.
    pub hpa_name: String,
    /// Whether it is annotated `scaledobject.keda.sh/transfer-hpa-ownership: "true"`: KEDA then
    /// adopts the existing HPA named [`hpa_name`](Self::hpa_name) instead of creating one.
    pub adopts_hpa: bool,
    /// The annotation that pauses it, as written (`autoscaling.keda.sh/paused: "true"`), when
    /// one does (KEDA's `NeedToBePausedByAnnotation`): KEDA then stops its scale loop and
    /// deletes the HPA named [`hpa_name`](Self::hpa_name), and makes it again once the
    /// annotation is gone.
    pub paused: Option<String>,
    /// An `autoscaling.keda.sh/paused-replicas` that does not pause it, as written, with why:
    /// a value KEDA cannot scale the target to (not an `int32` to `strconv.ParseInt`, or
    /// negative). KEDA then never records `status.pausedReplicaCount`, so it does not pause
    /// (and `autoscaling.keda.sh/paused` is not read), and cannot build or update its HPA
    /// (`newHPAForScaledObject` fails on the count): an HPA it made before stays.
    pub pause_refused: Option<String>,
}

impl ScaledObject {
    /// Whether `hpa` is the HPA KEDA runs for this ScaledObject, not a second one: its
    /// controller `ownerReference` is this ScaledObject (KEDA's `newHPAForScaledObject` sets it
    /// with `controllerutil.SetControllerReference`), or the ScaledObject adopts the HPA of its
    /// name ([`adopts_hpa`](Self::adopts_hpa)).
    pub fn controls(&self, hpa: &crate::api::meta::ObjectMeta) -> bool {
        let owned = hpa.owner_references.iter().any(|r| {
            r.controller == Some(true)
                && r.kind == "ScaledObject"
                && r.name == self.id.name
                && r.api_version.split_once('/').is_some_and(|(group, _)| group == "keda.sh")
        });
        owned || (self.adopts_hpa && hpa.name == self.hpa_name)
    }
}

/// A LimitRange: the defaults LimitRanger gives the containers of every pod created in its
/// namespace.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitRange {
    /// Which object.
    pub id: ObjectId,
    /// `spec.limits`, as kube-apiserver stores them ([`set_defaults_limit_range_item`]).
    pub limits: Vec<LimitRangeItem>,
    /// What kube-apiserver's validation refuses in those limits ([`validate_limit_range`]):
    /// then the LimitRange is never stored and LimitRanger gives no pod its defaults.
    pub refusal: crate::field::ErrorList,
    /// What its decoding refuses before any validation ([`limit_range_decode_refusal`]: a
    /// quantity that does not parse, a list that is no mapping): never stored either.
    pub undecodable: Option<Box<DecodeRefusal>>,
}

impl LimitRange {
    /// Whether kube-apiserver stores it: it decodes, and validation refuses nothing.
    pub fn stored(&self) -> bool {
        self.undecodable.is_none() && self.refusal.is_empty()
    }
}

/// A CustomResourceDefinition (`apiextensions.k8s.io/v1`) of the set: the kind it defines and,
/// per version, its `scale` subresource, which is all the HPA controller reaches a custom
/// resource through (`scaleForResourceMappings` reads `/scale`; `computeReplicasForMetrics`
/// needs its `status.selector`).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomResourceDefinition {
    /// Which object (cluster-scoped: no namespace).
    pub id: ObjectId,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.names.plural`: the resource's name in its REST paths (a live cluster's custom
    /// resources are read at `/apis/<group>/<version>/namespaces/<ns>/<plural>`).
    pub plural: String,
    /// `spec.scope` is `Cluster`: its resources have no namespace (any other value, or none,
    /// which kube-apiserver refuses, is read as `Namespaced`).
    pub cluster_scoped: bool,
    /// `spec.versions`, in their order.
    pub versions: Vec<CrdVersion>,
}

/// One entry of a CustomResourceDefinition's `spec.versions`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CrdVersion {
    /// `name`.
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `subresources.scale`, when the version has one.
    pub scale: Option<CrdScale>,
}

/// A version's `subresources.scale` (`CustomResourceSubresourceScale`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CrdScale {
    /// `specReplicasPath` (`.spec.replicas` for most): the field the scale's `spec.replicas`
    /// reads and writes, the one the HPA sets.
    pub spec_replicas_path: String,
    /// `labelSelectorPath`: where the scale's `status.selector` is read from; without it the
    /// scale has no selector.
    pub label_selector_path: Option<String>,
}

impl CustomResourceDefinition {
    /// The scale subresource of every served version, or `None` when the versions differ in
    /// what matters here (the HPA controller reads `/scale` at the version discovery prefers,
    /// which a manifest set does not tell): then no conclusion is drawn.
    pub fn served_scale(&self) -> Option<Option<&CrdScale>> {
        let mut served = self.versions.iter().filter(|v| v.served).map(|v| v.scale.as_ref());
        let first = served.next()?;
        served.all(|s| s == first).then_some(first)
    }
}

/// Builds a [`CustomResourceDefinition`] from a CustomResourceDefinition's fields; `None` for one
/// of another version than `apiextensions.k8s.io/v1` (`v1beta1`, not served since 1.22, had
/// its subresources elsewhere).
pub fn custom_resource_definition_from<'a, F: Fields<'a>>(id: ObjectId, v: F) -> Option<CustomResourceDefinition> {
    if id.api_version != "apiextensions.k8s.io/v1" {
        return None;
    }
    let spec = v.field("spec");
    let text = |f: Option<F>| f.and_then(Fields::as_str).unwrap_or_default().to_string();
    let versions = spec
        .and_then(|s| s.field("versions"))
        .and_then(Fields::items)
        .into_iter()
        .flatten()
        .map(|version| {
            let scale =
                version.field("subresources").and_then(|s| s.field("scale")).filter(|s| s.json_type() == "object");
            CrdVersion {
                name: text(version.field("name")),
                served: version.field("served").and_then(Fields::as_bool).unwrap_or(false),
                scale: scale.map(|s| CrdScale {
                    spec_replicas_path: text(s.field("specReplicasPath")),
                    label_selector_path: s.field("labelSelectorPath").and_then(Fields::as_str).map(str::to_string),
                }),
            }
        })
        .collect();
    Some(CustomResourceDefinition {
        group: text(spec.and_then(|s| s.field("group"))),
        kind: text(spec.and_then(|s| s.field("names")).and_then(|n| n.field("kind"))),
        plural: text(spec.and_then(|s| s.field("names")).and_then(|n| n.field("plural"))),
        cluster_scoped: spec.and_then(|s| s.field("scope")).and_then(Fields::as_str) == Some("Cluster"),
        versions,
        id,
    })
}

/// A RuntimeClass (`node.k8s.io/v1`, cluster-scoped) of the set: the overhead the RuntimeClass
/// admission plugin (`plugin/pkg/admission/runtimeclass/admission.go`, `setOverhead`) copies
/// into `spec.overhead` of each pod whose `runtimeClassName` names it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RuntimeClass {
    /// Which object (no namespace).
    pub id: ObjectId,
    /// `overhead.podFixed`: the quantities that parse.
    pub pod_fixed: BTreeMap<String, Quantity>,
}

/// Builds a [`RuntimeClass`] from a RuntimeClass's fields; `None` for one of another version
/// than `node.k8s.io/v1` (`v1beta1`, gone since 1.25, had no pod overhead at this path).
pub fn runtime_class_from<'a, F: Fields<'a>>(id: ObjectId, v: F) -> Option<RuntimeClass> {
    if id.api_version != "node.k8s.io/v1" {
        return None;
    }
    let pod_fixed = v.field("overhead").and_then(|o| o.field("podFixed")).map(quantities).unwrap_or_default();
    Some(RuntimeClass { id, pod_fixed })
}

/// One item of a LimitRange's `spec.limits`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LimitRangeItem {
    /// `type`: `Container`, `Pod` or `PersistentVolumeClaim`. Only `Container` items set
    /// defaults; a `Pod` item only bounds the pod's total (it can refuse a pod, never fill in a
    /// request).
    pub type_: String,
    /// `max`
    pub max: BTreeMap<String, Quantity>,
    /// `min`
    pub min: BTreeMap<String, Quantity>,
    /// `default`: the limit of a container that has none.
    pub default: BTreeMap<String, Quantity>,
    /// `defaultRequest`: the request of a container that has none.
    pub default_request: BTreeMap<String, Quantity>,
    /// `maxLimitRequestRatio`
    pub max_limit_request_ratio: BTreeMap<String, Quantity>,
}

/// Where a world's objects were read from ([`Objects::source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorldSource {
    /// A manifest set: files, standard input, rendered charts.
    #[default]
    Manifests,
    /// A live cluster, read once (`hpa-lint cluster`).
    Cluster,
    /// The webhook's context cache, at admission (`hpa-webhook`).
    ContextCache,
}

impl WorldSource {
    /// The one wording of an absence, `what` (`Deployment shop/web`) not found where the world
    /// was read: `no Deployment shop/web among the checked manifests`, `... in the cluster`, or
    /// `... in the cluster (as hpa-webhook's context cache sees it)`.
    pub fn absent(self, what: impl std::fmt::Display) -> String {
        match self {
            WorldSource::Manifests => format!("no {what} among the checked manifests"),
            WorldSource::Cluster => format!("no {what} in the cluster"),
            WorldSource::ContextCache => format!("no {what} in the cluster (as hpa-webhook's context cache sees it)"),
        }
    }
}

/// What a one-shot read of a cluster covered (`hpa-lint cluster`): the kinds whose lists
/// answered, and where, and the objects read one by one whose `GET` answered (found or not
/// found). A world read so would hold an object only there ([`Objects::would_hold`]): a list
/// RBAC refused or the API server failed on, or a `GET` that did not answer, tells nothing of
/// what exists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// (API group, kind, namespaces): `None` when the list was read across the cluster (or the
    /// kind has no namespace).
    listed: Vec<(String, String, Option<BTreeSet<String>>)>,
    /// (API group, kind, namespace, name) of each object whose `GET` answered.
    fetched: BTreeSet<(String, String, String, String)>,
}

impl Coverage {
    /// A list of `kind` (API group `group`) that answered whole, in `namespace` (`None`: across
    /// the cluster).
    pub fn listed(&mut self, group: &str, kind: &str, namespace: Option<&str>) {
        let at = self.listed.iter().position(|(g, k, _)| g == group && k == kind);
        let at = at.unwrap_or_else(|| {
            self.listed.push((group.to_string(), kind.to_string(), Some(BTreeSet::new())));
            self.listed.len() - 1
        });
        match (namespace, &mut self.listed[at].2) {
            (None, all) => *all = None,
            (Some(ns), Some(some)) => {
                some.insert(ns.to_string());
            }
            (Some(_), None) => {}
        }
    }

    /// A `GET` of one object that answered: it exists, or it does not (404).
    pub fn fetched(&mut self, group: &str, kind: &str, namespace: &str, name: &str) {
        self.fetched.insert((group.to_string(), kind.to_string(), namespace.to_string(), name.to_string()));
    }

    /// Whether the read would have found `namespace/name` ([`Objects::would_hold`]).
    pub fn holds(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        let listed = self.listed.iter().any(|(g, k, namespaces)| {
            g == group && k.eq_ignore_ascii_case(kind) && namespaces.as_ref().is_none_or(|n| n.contains(namespace))
        });
        listed
            || (!name.is_empty()
                && self
                    .fetched
                    .iter()
                    .any(|(g, k, ns, n)| g == group && k.eq_ignore_ascii_case(kind) && ns == namespace && n == name))
    }
}

/// What a rule may ask about the rest of the manifest set.
pub trait Objects: Sync {
    /// The workload of API group `group` ([`super::object_group`]: the version aside), kind
    /// (compared exactly), namespace and name: its identity ([`ObjectId::same_object`]).
    fn workload(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload>;
    /// The workload whose pod template the pods of `target` are made from: `target` itself,
    /// or, for an Argo Rollout with `spec.workloadRef`, the workload it names in its namespace
    /// (`None` when that one is not in the set).
    /// A reference Argo refuses ([`WorkloadRef::refused`]) makes no pods: `None`.
    /// Any other kind (a custom resource with a `/scale` subresource) makes its pods as its own
    /// controller decides, which the set does not tell: `None` ([`Workload::pods_known`]).
    fn pod_template_of<'a>(&'a self, target: &'a Workload) -> Option<&'a Workload> {
        if !target.pods_known() {
            return None;
        }
        match &target.workload_ref {
            None => Some(target),
            Some(r) if r.refused.is_some() => None,
            // Argo Rollouts reads the reference by its group and kind
            // (`informerBasedTemplateResolver.Resolve`: `schema.FromAPIVersionAndKind`).
            Some(r) => {
                self.workload(super::object_group(&r.kind, &r.api_version), &r.kind, &target.id.namespace, &r.name)
            }
        }
    }
    /// LimitRanges of a namespace.
    fn limit_ranges(&self, namespace: &str) -> &[LimitRange];
    /// The CustomResourceDefinition of the set that defines `kind` in API group `group`, if
    /// any (the last one, should two define it; a live cluster's inventory and the webhook's
    /// context cache hold the cluster's). None by default: a world that wraps another forwards
    /// it.
    fn custom_resource_definition(&self, group: &str, kind: &str) -> Option<&CustomResourceDefinition> {
        let _ = (group, kind);
        None
    }
    /// A kind of API group `group` the world knows to be served (the kind a CustomResourceDefinition
    /// of it defines, else the kind of a workload it holds) that is `kind` in any case, if any.
    /// None by default: a world that wraps another forwards it.
    fn kind_any_case(&self, group: &str, kind: &str) -> Option<&str> {
        let _ = (group, kind);
        None
    }
    /// The kind a reference to `kind` of API group `group` names, as the controller's RESTMapper
    /// maps it in this world ([`super::maps_kind`]): `kind` itself, or, written all in lowercase,
    /// the kind it is the alias of: one of Kubernetes' own groups' ([`super::mapped_kind`]), or a
    /// custom kind the world knows ([`Objects::kind_any_case`]: `widget` of `example.com` is the
    /// `Widget` its CustomResourceDefinition defines; `NewDiscoveryRESTMapper` registers the
    /// lowercase alias of every kind discovery lists, built-in or custom).
    fn mapped_kind<'k>(&'k self, group: &str, kind: &'k str) -> &'k str {
        if kind.bytes().any(|b| b.is_ascii_uppercase()) || super::dotless_group_kinds(group).is_some() {
            return super::mapped_kind(group, kind);
        }
        self.kind_any_case(group, kind).filter(|k| super::maps_kind(k, kind)).unwrap_or(kind)
    }
    /// The RuntimeClass of the set named `name`, if any (a live cluster's inventory and the
    /// webhook's context cache hold the cluster's). None by default: a world that wraps another
    /// forwards it.
    fn runtime_class(&self, name: &str) -> Option<&RuntimeClass> {
        let _ = name;
        None
    }
    /// The overhead admission sets on the pods of `template` (`spec.overhead`): the
    /// `overhead.podFixed` of the RuntimeClass its `runtimeClassName` names, when that one is
    /// in the set.
    fn pod_overhead(&self, template: &Workload) -> Option<&BTreeMap<String, Quantity>> {
        let rc = self.runtime_class(template.runtime_class_name.as_deref()?)?;
        (!rc.pod_fixed.is_empty()).then_some(&rc.pod_fixed)
    }
    /// Whether the world would hold the object `namespace/name` of `kind` in API group `group`
    /// if it existed (kinds compared case-insensitively, as [`Objects::workload_any_case`]
    /// does; `namespace` empty for a cluster-scoped kind, `name` empty for every object of the
    /// kind in the namespace), so that its absence is one. True by default: a manifest set is
    /// what is checked. A live view answers for what it read whole: `hpa-lint cluster` the
    /// lists that answered and the custom-resource targets whose `GET` answered ([`Coverage`]),
    /// the webhook's context cache the kinds it watches and RBAC does not refuse
    /// (`hpa_cluster::Reads`). A rule that concludes from an absence (HPA403; HPA201 from a
    /// LimitRange or RuntimeClass it does not see) asks first.
    fn would_hold(&self, _group: &str, _kind: &str, _namespace: &str, _name: &str) -> bool {
        true
    }
    /// Where the world's objects were read from, as a finding that concludes from an absence
    /// words it ([`WorldSource::absent`]). Manifests by default: a world that wraps another forwards
    /// it.
    fn source(&self) -> WorldSource {
        WorldSource::Manifests
    }
    /// Any object of API group `group` with this name in the namespace whose kind matches
    /// case-insensitively.
    fn workload_any_case(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Workload>;
    /// PodDisruptionBudgets of a namespace.
    fn pdbs(&self, namespace: &str) -> &[Pdb];
    /// VerticalPodAutoscalers of a namespace.
    fn vpas(&self, namespace: &str) -> &[Vpa];
    /// KEDA ScaledObjects of a namespace.
    fn scaled_objects(&self, namespace: &str) -> &[ScaledObject];
    /// Every workload of a namespace, of any kind, in no particular order.
    fn workloads_of(&self, namespace: &str) -> Vec<&Workload>;
    /// The smallest `minReplicas` (as stored: defaulted to 1) of the HPAs of the set that target
    /// `kind/name` of API group `group` in `namespace`; `None` when no HPA does.
    fn hpa_min_replicas(&self, namespace: &str, group: &str, kind: &str, name: &str) -> Option<i32>;
    /// Every HPA of the set that targets `kind/name` of API group `group`
    /// ([`super::object_group`] of its `scaleTargetRef`: the version aside) in `namespace` (the
    /// one under check included), in input order (the linter) or by name (the context cache,
    /// which has no input order): [`HpaOrder`](super::index::HpaOrder).
    fn hpas_targeting(&self, namespace: &str, group: &str, kind: &str, name: &str) -> &[ObjectId];
    /// The other workloads of `w`'s namespace whose pods and `w`'s are selected together
    /// ([`pods_overlap`]), sorted by kind and name. This scans the namespace: an index answers
    /// it from its labels.
    fn workloads_sharing_pods<'a>(&'a self, w: &'a Workload) -> Vec<&'a Workload> {
        let mut found: Vec<&Workload> = self
            .workloads_of(&w.id.namespace)
            .into_iter()
            .filter(|b| (&b.id.kind, &b.id.name) != (&w.id.kind, &w.id.name) && pods_overlap(self, w, b))
            .collect();
        found.sort_by(|a, b| (&a.id.kind, &a.id.name).cmp(&(&b.id.kind, &b.id.name)));
        found
    }
}

/// Whether one pod can be selected by the selectors of both `a` and `b` (workloads of one
/// namespace), as far as their templates tell: `a`'s selector selects the labels of `b`'s pod
/// template, or `b`'s selects `a`'s ([`Objects::pod_template_of`] for an Argo Rollout with a
/// `workloadRef`). Neither selector nor template of a kind whose pods are not known
/// ([`Workload::pods_known`]: a custom resource, whose `/scale` selector its CRD's
/// `labelSelectorPath` reads from wherever it says) counts. The HPA controller then finds the pods of each under the selector of the
/// other's HPA too (`hpasControllingPodsUnderSelector`).
pub fn pods_overlap<O: Objects + ?Sized>(objects: &O, a: &Workload, b: &Workload) -> bool {
    let selects = |x: &Workload, y: &Workload| {
        x.pods_known()
            && x.selector.as_ref().is_some_and(|s| objects.pod_template_of(y).is_some_and(|t| s.matches(&t.pod_labels)))
    };
    selects(a, b) || selects(b, a)
}

/// Read access to an object's fields, as JSON sees them: the linter builds index entries
/// straight from its YAML nodes through it, without turning them into JSON first. Every method
/// answers what the same method of `serde_json::Value` answers for the object's JSON.
pub trait Fields<'a>: Copy + 'a {
    /// The value of `key` in an object.
    fn field(self, key: &str) -> Option<Self>;
    /// The values of several keys of an object ([`Fields::field`] of each), read in one pass
    /// over its entries: the last entry of a key given twice, as `field` gives it (a YAML
    /// mapping's lookup of one key is a pass over its entries).
    fn fields<const N: usize>(self, keys: [&str; N]) -> [Option<Self>; N] {
        let mut found = [None; N];
        for (key, value) in self.entries() {
            for (slot, k) in found.iter_mut().zip(keys) {
                if key == k {
                    *slot = Some(value);
                }
            }
        }
        found
    }
    /// A string's value.
    fn as_str(self) -> Option<&'a str>;
    /// An integer's value (`Value::as_i64`).
    fn as_i64(self) -> Option<i64>;
    /// A boolean's value (`Value::as_bool`).
    fn as_bool(self) -> Option<bool>;
    /// A string, or a number as JSON writes it: the text of a quantity.
    fn quantity_text(self) -> Option<Cow<'a, str>>;
    /// An object's entries (none for anything else).
    fn entries(self) -> impl Iterator<Item = (Cow<'a, str>, Self)>;
    /// An array's items, `None` for anything else.
    fn items(self) -> Option<impl Iterator<Item = Self>>;
    /// The JSON type as Go's `encoding/json` names it in a type error: `null`, `bool`,
    /// `number`, `string`, `array` or `object`.
    fn json_type(self) -> &'static str;
}

impl<'a> Fields<'a> for &'a Value {
    fn field(self, key: &str) -> Option<Self> {
        self.get(key)
    }
    /// A JSON object's lookups are by key already: one each.
    fn fields<const N: usize>(self, keys: [&str; N]) -> [Option<Self>; N] {
        keys.map(|k| self.get(k))
    }
    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }
    fn as_i64(self) -> Option<i64> {
        Value::as_i64(self)
    }
    fn as_bool(self) -> Option<bool> {
        Value::as_bool(self)
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
    fn json_type(self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// Builds a [`Workload`] from a workload object's JSON (Deployment, StatefulSet, ReplicaSet,
/// ReplicationController, DeploymentConfig, Argo Rollout, or any object with a pod template).
pub fn workload_from_json(id: ObjectId, v: &Value) -> Workload {
    workload_from(id, v)
}

/// Builds a [`Workload`] from a workload object's fields (see [`workload_from_json`]).
///
/// A core `PodTemplate` holds its template at the top level (`template`, no `spec`): an Argo
/// Rollout's `workloadRef` may name one, as Argo's `informerBasedTemplateResolver.Resolve`
/// (rollout/templateref.go) reads the template at each kind's path (`infoByGroupKind`:
/// `template` for a PodTemplate, `spec.template` for a Deployment or a ReplicaSet).
pub fn workload_from<'a, F: Fields<'a>>(id: ObjectId, v: F) -> Workload {
    // Each mapping's fields are read in one pass over its entries (`Fields::fields`).
    let [spec, top_template] = v.fields(["spec", "template"]);
    let [replicas, spec_template, selector, workload_ref, job_template] =
        spec.map_or([None; 5], |s| s.fields(["replicas", "template", "selector", "workloadRef", "jobTemplate"]));
    let (template, pod_spec_path) = pod_template_at(&id, v, top_template, spec_template, job_template);
    let [metadata, pod_spec] = template.map_or([None; 2], |t| t.fields(["metadata", "spec"]));
    let [labels, annotations] = metadata.map_or([None; 2], |m| m.fields(["labels", "annotations"]));
    let pod_labels = labels
        .map(|m| m.entries().map(|(k, v)| (k.into_owned(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default();
    let [container_list, init_container_list, pod_resources, runtime_class_name] =
        pod_spec.map_or([None; 4], |p| p.fields(["containers", "initContainers", "resources", "runtimeClassName"]));
    let mut containers = Vec::new();
    let mut init_containers = Vec::new();
    if let Some(cs) = container_list.and_then(Fields::items) {
        containers.extend(cs.enumerate().map(|(i, c)| template_container(c, i, false, pod_spec_path)));
    }
    if let Some(cs) = init_container_list.and_then(Fields::items) {
        for (i, c) in cs.enumerate() {
            let container = template_container(c, i, true, pod_spec_path);
            if container.sidecar { containers.push(container) } else { init_containers.push(container) }
        }
    }
    let workload_ref = workload_ref.map(|r| {
        let [api_version, kind, name] = r.fields(["apiVersion", "kind", "name"]);
        let s = |v: Option<F>| v.and_then(Fields::as_str).unwrap_or_default().to_string();
        let mut r = WorkloadRef { api_version: s(api_version), kind: s(kind), name: s(name), refused: None };
        let written = |m: Option<F>| m.is_some_and(|m| m.entries().next().is_some());
        r.refused = workload_ref_refusal(&r, written(labels) || written(annotations));
        Box::new(r)
    });
    let selector_written = selector;
    let selector = workload_selector(&id, selector_written, &pod_labels);
    let undecodable = workload_decode_refusal(&id, replicas, selector_written, [annotations, labels]).map(Box::new);
    let labels_written = labels.is_some_and(|l| l.json_type() == "object");
    let selector_error = selector_error(&id, selector_written, selector.as_ref());
    let nothing = selector_error.as_ref().is_some_and(|e| e.kind == crate::field::ErrorType::Required)
        && id.kind != "ReplicationController";
    let template_labels_error =
        template_labels_error(&id, selector.as_ref(), nothing, &pod_labels, labels_written).map(Box::new);
    let selector_error = selector_error.map(Box::new);
    let template_refusal = template_refusal(&id, template, annotations, container_list).map(Box::new);
    let mut spec_integers = Vec::new();
    if GroupVersion::parse_or_empty(&id.api_version).group().contains('.')
        && let Some(spec) = spec
    {
        integers_under(spec, "spec", &mut spec_integers);
    }
    let [pod_requests, pod_limits] = pod_resources.map_or([None; 2], |r| r.fields(["requests", "limits"]));
    Workload {
        id,
        replicas: replicas.and_then(Fields::as_i64),
        zero_replicas: replicas.and_then(Fields::as_i64) == Some(0),
        undecodable,
        template_labels_error,
        selector_error,
        template_refusal,
        selector,
        pod_labels,
        containers,
        init_containers,
        pod_requests: pod_requests.map(quantities).unwrap_or_default(),
        pod_limits: pod_limits.map(quantities).unwrap_or_default(),
        spec_integers: (!spec_integers.is_empty()).then(|| Box::new(spec_integers)),
        runtime_class_name: runtime_class_name.and_then(Fields::as_str).filter(|n| !n.is_empty()).map(str::to_string),
        pod_spec_path: pod_spec_path.into(),
        workload_ref,
    }
}

/// The integers of an object's fields, by dotted path from `path`, at any depth (a CRD's
/// `specReplicasPath` is any JSON path under `.spec` without array indices:
/// `validateCustomResourceDefinitionSubresources` in apiextensions-apiserver's
/// `pkg/apis/apiextensions/validation/validation.go`), past arrays (no such path enters one) and
/// pod templates (an object whose `spec` has `containers`: a pod's fields are no replica count).
fn integers_under<'a, F: Fields<'a>>(v: F, path: &str, out: &mut Vec<(String, i64)>) {
    if let Some(n) = v.as_i64() {
        out.push((path.to_string(), n));
        return;
    }
    for (k, child) in v.entries() {
        let pod_template = child.field("spec").is_some_and(|s| s.field("containers").is_some());
        if !pod_template {
            integers_under(child, &format!("{path}.{k}"), out);
        }
    }
}

/// The kinds whose pods are made from the pod template the object holds, by API group (the
/// legacy group is `""`): Kubernetes' own workloads (their controllers in
/// `pkg/controller/{deployment,replicaset,statefulset,daemon,job,cronjob}` and the
/// ReplicationManager; a Pod is its own template, a PodTemplate what an Argo Rollout's
/// `workloadRef` may name), Argo Rollouts' `Rollout` (rollout/replicaset.go makes ReplicaSets
/// from `spec.template`, or from its `workloadRef`'s) and OpenShift's `DeploymentConfig`
/// (ReplicationControllers from `spec.template`; once served in the legacy group as `v1`).
const POD_TEMPLATE_KINDS: &[(&str, &[&str])] = &[
    ("", &["Pod", "PodTemplate", "ReplicationController", "DeploymentConfig"]),
    ("apps", &["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"]),
    ("extensions", &["Deployment", "ReplicaSet", "DaemonSet"]),
    ("batch", &["Job", "CronJob"]),
    ("argoproj.io", &["Rollout"]),
    ("apps.openshift.io", &["DeploymentConfig"]),
];

impl Workload {
    /// Whether the rules know this object's pods: it is of a kind that makes them from the pod
    /// template it holds (`POD_TEMPLATE_KINDS`), so its template's labels and containers are
    /// its pods'. Any other object an HPA may scale is a custom resource with a `/scale`
    /// subresource: its operator makes its pods (or none) as it sees fit, and the HPA
    /// controller finds them by the selector its CRD's `labelSelectorPath` reads, wherever it
    /// points. A `spec.template` or `spec.selector` it happens to have says nothing certain
    /// of them, so the rules about the target's pods (HPA104, HPA201, HPA202, HPA407's shared
    /// pods, HPA408's containers) do not guess from it.
    pub fn pods_known(&self) -> bool {
        let group = GroupVersion::parse_or_empty(&self.id.api_version).group();
        POD_TEMPLATE_KINDS.iter().any(|(g, kinds)| *g == group && kinds.contains(&self.id.kind.as_str()))
    }

    /// Why kube-apiserver refuses this workload, as far as the rules know (a built-in kind's
    /// replica count and selector), in its words as `release` words them: the field and the
    /// message. Its decoding first ([`Workload::undecodable`]: nothing is validated then);
    /// else the errors of `ValidateDeploymentSpec` (and its kin) in their order: a negative
    /// `spec.replicas` (`ValidateNonnegativeField`), an `apps` kind's selector
    /// (`ValidateLabelSelector`, label values checked), a missing or empty selector
    /// (`selector_error`, before the count for a ReplicationController), its template's labels that the selector
    /// does not select ([`Workload::template_labels_error`]), its template's labels that are no
    /// valid labels (`ValidateLabels` on `spec.template.labels`), then the rest of
    /// [`Workload::template_refusal`] (an RC's missing template, the template's annotations, no
    /// container); the template only when the selector converts. Before all of them the
    /// workload's name (`ValidateObjectMeta`: a DNS subdomain, a StatefulSet's a DNS label).
    /// `None` when none of these is refused (what else kube-apiserver validates, the rest of
    /// the pod template and of the metadata, is not checked).
    pub fn refusal(&self, release: crate::features::KubernetesVersion) -> Option<(String, String)> {
        use crate::field::{BadValue, FieldError, Path};
        if let Some(u) = &self.undecodable {
            return Some((u.field.clone(), u.message.clone()));
        }
        let gv = GroupVersion::parse_or_empty(&self.id.api_version);
        if super::scalable_group(&self.id.kind) != Some(gv.group()) {
            return None;
        }
        let spec = Path::new("spec");
        // `ValidateObjectMeta` first, of the name as written (a `generateName` object's name is
        // made with a random suffix before validation: not checked). A StatefulSet's is a DNS
        // label (its pods' hostnames are made from it), the others' a DNS subdomain.
        let mut errors = Vec::new();
        let name = self.id.written_name();
        if !name.is_empty() {
            let metadata = Path::new("metadata");
            let messages = if self.id.kind == "StatefulSet" {
                crate::validation::names::name_is_dns_label(name, false)
            } else {
                crate::validation::names::name_is_dns_subdomain(name, false)
            };
            let at = metadata.child("name");
            errors.extend(messages.into_iter().map(|m| FieldError::invalid(&at, BadValue::Str(name.to_string()), m)));
        }
        // `ValidateReplicationControllerSpec` checks the selector before the count.
        let rc = self.id.kind == "ReplicationController";
        if rc {
            errors.extend(self.selector_error.as_deref().cloned());
        }
        if let Some(n) = self.replicas.filter(|n| *n < 0) {
            errors.push(FieldError::invalid(
                &spec.child("replicas"),
                BadValue::Int(n),
                "must be greater than or equal to 0",
            ));
        }
        let mut converts = true;
        if gv.group() == "apps"
            && let Some(selector) = &self.selector
        {
            let refused = crate::validation::meta::validate_label_selector(selector, &spec.child("selector"), release);
            // `LabelSelectorAsSelector` fails on what `ValidateLabelSelector` refuses: the
            // template is then never validated.
            converts = refused.is_empty();
            errors.extend(refused);
        }
        if !rc {
            errors.extend(self.selector_error.as_deref().cloned());
        }
        let template = spec.child("template");
        let refusal = self.template_refusal.as_deref();
        if refusal.is_some_and(|r| r.missing) {
            errors.push(FieldError::required(&template, ""));
        } else if converts {
            errors.extend(self.template_labels_error.as_deref().cloned());
            // `ValidatePodTemplateSpec` validates the labels on `spec.template.labels` (the
            // internal `PodTemplateSpec` embeds its `ObjectMeta`): one error per bad key or
            // value; then the annotations, then the pod spec (its containers).
            errors.extend(crate::validation::meta::validate_label_map(
                &self.pod_labels,
                &template.child("labels"),
                release,
            ));
            if let Some(r) = refusal {
                errors.extend(crate::validation::meta::validate_annotation_keys(
                    r.annotation_keys.iter().map(String::as_str),
                    r.annotations_too_long,
                    &template.child("annotations"),
                    release,
                ));
                if r.no_containers {
                    let pod = template.child("spec");
                    errors.push(FieldError::required(&pod.child("containers"), ""));
                }
            }
        }
        let rendering = crate::field::ValueRendering::of(release);
        for e in &mut errors {
            e.rendering = rendering;
        }
        let field = errors.first()?.field.clone();
        Some((field, crate::field::invalid_message(&self.id.kind, gv.group(), &self.id.name, &errors)))
    }

    /// The integer at `spec_replicas_path` (a CRD scale subresource's `specReplicasPath`,
    /// `.spec.size`), when the custom resource writes one ([`Workload::spec_integers`]): the
    /// path as the object's fields name it (`spec.size`), and the value.
    pub fn spec_integer(&self, spec_replicas_path: &str) -> Option<(&str, i64)> {
        let path = spec_replicas_path.strip_prefix('.').unwrap_or(spec_replicas_path);
        self.spec_integers.iter().flat_map(|v| v.iter()).find(|(p, _)| p == path).map(|(p, n)| (p.as_str(), *n))
    }
}

/// Why kube-apiserver cannot decode a built-in workload (Deployment, StatefulSet, ReplicaSet of
/// `apps`, ReplicationController of the core group) for its `spec.replicas`, a Go `*int32`, in
/// its words; `None` when the count decodes (or is not written, or `null`).
///
/// Decoding fails on a value of another JSON type than a number (`json: cannot unmarshal string
/// into Go struct field DeploymentSpec.spec.replicas of type int32`, as `resources_error` words
/// those of a container's resources) and on a number that is no `int32`: a fraction or one out
/// of range, named by the JSON text kubectl sends (`literalStore` in `encoding/json`: `json:
/// cannot unmarshal number 1.5 into ...`), the error wrapped as the apiserver's serializer
/// wraps it (`Deployment in version "v1" cannot be handled as a Deployment: ...`). A negative
/// count decodes, and validation refuses it ([`Workload::refusal`]: `ValidateNonnegativeField`
/// in `ValidateDeploymentSpec` and its kin): `Deployment.apps "web" is invalid: spec.replicas:
/// Invalid value: -1: must be greater than or equal to 0`.
pub fn replicas_error<'a>(id: &ObjectId, spec: Option<impl Fields<'a>>) -> Option<String> {
    replicas_error_of(id, spec.and_then(|s| s.field("replicas")))
}

/// [`replicas_error`] of the `spec.replicas` written (`replicas`), read with the spec's other
/// fields.
fn replicas_error_of<'a>(id: &ObjectId, replicas: Option<impl Fields<'a>>) -> Option<String> {
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    if super::scalable_group(&id.kind) != Some(gv.group()) {
        return None;
    }
    let replicas = replicas?;
    // An integer that is an int32 decodes, a negative one for validation to refuse
    // ([`Workload::refusal`]).
    let value = go_int32(replicas).err()?;
    Some(cannot_be_handled(id, &format!("{}Spec", id.kind), "spec.replicas", &value, "int32"))
}

/// What kube-apiserver's decoding refuses in a built-in workload (Deployment, StatefulSet,
/// ReplicaSet of `apps`, ReplicationController of the core group), whose Go type errors
/// `sigs.k8s.io/json` keeps while it goes on and reports the first of, in the order kubectl
/// sends the keys (sorted): `spec.replicas` ([`replicas_error`]), `spec.selector` (a
/// `*metav1.LabelSelector`, or an RC's `map[string]string`: `matchLabels: {version: 1.0}` is a
/// number where a label value is a string), then the pod template's `metadata.annotations` and
/// `metadata.labels` (`annotations: {replicas: 3}`). The serializer wraps it (`Deployment in
/// version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct
/// field LabelSelector.spec.selector.matchLabels of type string`). `None` for any other kind,
/// or when these decode. Of the fields as written, read with the workload's others
/// ([`workload_from`]): `replicas`, `selector` and the template's `annotations` and `labels`.
pub fn workload_decode_refusal<'a, F: Fields<'a>>(
    id: &ObjectId,
    replicas: Option<F>,
    selector: Option<F>,
    [annotations, labels]: [Option<F>; 2],
) -> Option<DecodeRefusal> {
    if let Some(message) = replicas_error_of(id, replicas) {
        return Some(DecodeRefusal { field: "spec.replicas".to_string(), message });
    }
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    if super::scalable_group(&id.kind) != Some(gv.group()) {
        return None;
    }
    let holder = format!("{}Spec", id.kind);
    let selector = selector.and_then(|s| {
        if id.kind == "ReplicationController" {
            string_map_type_error(s, "spec.selector".to_string(), &holder)
        } else {
            selector_type_error(s, "spec.selector", &holder)
        }
    });
    let metadata =
        |map: Option<F>, key: &str| string_map_type_error(map?, format!("spec.template.metadata.{key}"), "ObjectMeta");
    let template = || metadata(annotations, "annotations").or_else(|| metadata(labels, "labels"));
    let (field, go_struct, value, go_type) = selector.or_else(template)?;
    let message = cannot_be_handled(id, go_struct, &field, value, go_type);
    Some(DecodeRefusal { field, message })
}

/// kube-apiserver's error on a built-in workload (Deployment, StatefulSet, ReplicaSet of `apps`,
/// ReplicationController of the core group) whose selector, valid and not empty, does not select
/// the labels of its own pod template: `ValidatePodTemplateSpecForReplicaSet` (and its kin for
/// StatefulSets and ReplicationControllers) reports `field.Invalid` on
/// `spec.template.metadata.labels` with the labels, a `map[string]string` (`{"app":"web"}` from
/// 1.34, `map[string]string{"app":"web"}` in 1.33, `null` or `map[string]string(nil)` when none
/// is written), "`selector` does not match template `labels`". A refused selector is left to
/// [`Workload::refusal`] (kube-apiserver then never compares). An `apps` kind without a selector
/// (`nothing`) is compared too: `metav1.LabelSelectorAsSelector` makes `labels.Nothing()` of a
/// nil selector, which is not `Empty()` and matches no labels.
fn template_labels_error(
    id: &ObjectId,
    selector: Option<&LabelSelector>,
    nothing: bool,
    labels: &BTreeMap<String, String>,
    labels_written: bool,
) -> Option<crate::field::FieldError> {
    use crate::field::{BadValue, FieldError, Path};
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    if super::scalable_group(&id.kind) != Some(gv.group()) {
        return None;
    }
    if !nothing {
        let selector = selector?;
        let latest = crate::features::KubernetesVersion::LATEST;
        if selector.matches(labels)
            || !crate::validation::meta::validate_label_selector(selector, &Path::new("selector"), latest).is_empty()
        {
            return None;
        }
    }
    let value = if labels.is_empty() && !labels_written {
        BadValue::Composite { json: "null".into(), go_syntax: "map[string]string(nil)".into() }
    } else {
        let pairs: Vec<String> =
            labels.iter().map(|(k, v)| format!("{}:{}", crate::go::quote(k), crate::go::quote(v))).collect();
        BadValue::Composite {
            json: crate::go::to_go_json(labels).unwrap_or_default(),
            go_syntax: format!("map[string]string{{{}}}", pairs.join(", ")),
        }
    };
    let spec = Path::new("spec");
    let template = spec.child("template");
    let metadata = template.child("metadata");
    Some(FieldError::invalid(&metadata.child("labels"), value, "`selector` does not match template `labels`"))
}

/// kube-apiserver's error on a built-in workload's selector: one missing or empty, or for an
/// `apps` kind one `metav1.LabelSelectorAsSelector` cannot convert. An `apps` kind's
/// `spec.selector`, a `*metav1.LabelSelector` that nothing defaults: `spec.selector: Required
/// value` when not written (or `null`), and when it selects nothing written (`{}`, `matchLabels:
/// {}`) `field.Invalid` with the selector ([`label_selector_value`]) "empty selector is invalid
/// for deployment" (`ValidateDeploymentSpec`, `ValidateReplicaSetSpec`; "for statefulset" in
/// `ValidateStatefulSetSpec`). A selector `ValidateLabelSelector` refuses (an operator other
/// than the four, `In` without values, a key or value no label can have) also fails
/// `LabelSelectorAsSelector` ([`LabelSelector::as_selector_error`]), which these functions report
/// after `ValidateLabelSelector`'s errors as `field.Invalid` with the selector, "invalid label
/// selector" (a StatefulSet's with no detail), and then validate no pod template. A
/// ReplicationController's map selector defaults from its template's labels
/// (`SetDefaults_ReplicationController`); with neither, `ValidateNonEmptySelector` gives
/// `spec.selector: Required value`.
fn selector_error<'a>(
    id: &ObjectId,
    written: Option<impl Fields<'a>>,
    selector: Option<&LabelSelector>,
) -> Option<crate::field::FieldError> {
    use crate::field::{FieldError, Path};
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    if super::scalable_group(&id.kind) != Some(gv.group()) {
        return None;
    }
    let at = Path::new("spec");
    let at = at.child("selector");
    let statefulset = id.kind == "StatefulSet";
    if let Some(selector) = selector {
        // Whether it converts does not depend on the release, only its words do.
        let converts =
            gv.group() != "apps" || selector.as_selector_error(crate::features::KubernetesVersion::LATEST).is_none();
        let detail = if statefulset { "" } else { "invalid label selector" };
        if converts {
            return None;
        }
        return Some(FieldError::invalid(&at, label_selector_value(written?), detail));
    }
    // `apps/v1beta1` (served until 1.16) defaulted a missing selector from the template's labels
    // (its `SetDefaults_Deployment` and `SetDefaults_StatefulSet`): not modelled.
    if id.api_version == "apps/v1beta1" {
        return None;
    }
    let Some(written) = written.filter(|s| s.json_type() != "null" && id.kind != "ReplicationController") else {
        return Some(FieldError::required(&at, ""));
    };
    if written.json_type() != "object" {
        return None;
    }
    let kind = if statefulset { "statefulset" } else { "deployment" };
    Some(FieldError::invalid(&at, label_selector_value(written), format!("empty selector is invalid for {kind}")))
}

/// A written `metav1.LabelSelector` as kube-apiserver prints it as the value of a field error
/// (`field.Invalid(fldPath.Child("selector"), spec.Selector, ...)`): from 1.34 its JSON
/// (`encoding/json`, the `omitempty` fields left out: `{}` for an empty one); in 1.33 `%#v` of
/// the struct the pointer points to, where a field not written (or `null`) is nil and one
/// written empty is not: `v1.LabelSelector{MatchLabels:map[string]string(nil),
/// MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app",
/// Operator:"Foo", Values:[]string{"web"}}}}`. Of a selector that decodes (its keys, values and
/// operators strings).
fn label_selector_value<'a>(written: impl Fields<'a>) -> crate::field::BadValue {
    let go = crate::go::quote;
    // `%#v` of a list or a map: nil when not written (or not a list or a map), else its items.
    let go_list = |ty: &str, items: Option<Vec<String>>| match items {
        None => format!("{ty}(nil)"),
        Some(items) => format!("{ty}{{{}}}", items.join(", ")),
    };
    let [match_labels, match_expressions] = written.fields(["matchLabels", "matchExpressions"]);
    let labels = match_labels.filter(|m| m.json_type() == "object").map(|m| {
        let pairs: BTreeMap<String, String> =
            m.entries().map(|(k, v)| (k.into_owned(), v.as_str().unwrap_or_default().to_string())).collect();
        pairs.iter().map(|(k, v)| format!("{}:{}", go(k), go(v))).collect()
    });
    let expressions = match_expressions.and_then(Fields::items).map(|items| {
        items
            .map(|e| {
                let [key, operator, values] = e.fields(["key", "operator", "values"]);
                let s = |v: Option<_>| go(v.and_then(Fields::as_str).unwrap_or_default());
                let values = values.and_then(Fields::items).map(|vs| vs.map(|v| s(Some(v))).collect());
                format!(
                    "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                    s(key),
                    s(operator),
                    go_list("[]string", values)
                )
            })
            .collect()
    });
    crate::field::BadValue::Composite {
        json: crate::go::to_go_json(&selector_from(written)).unwrap_or_default(),
        go_syntax: format!(
            "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{}}}",
            go_list("map[string]string", labels),
            go_list("[]v1.LabelSelectorRequirement", expressions)
        ),
    }
}

/// How Go's `encoding/json` decodes a JSON value into an `int32` (`literalStore`): `Ok(None)`
/// for `null` (no value), `Ok(Some(n))` for an integer in range, else the value as its
/// `UnmarshalTypeError` names it: `number 1.5`, `number 2147483648` (the JSON text kubectl
/// sends: an integer's digits as they are, a fraction as Go's encoder writes the float kubectl
/// read, `1.50` as `1.5`, `1e30` as `1e+30`), or the JSON type (`string`, `bool`, `array`,
/// `object`).
fn go_int32<'a>(v: impl Fields<'a>) -> Result<Option<i64>, String> {
    match v.json_type() {
        "null" => Ok(None),
        "number" => {
            let text = v.quantity_text().unwrap_or_default();
            match text.parse::<i64>().ok().and_then(|n| i32::try_from(n).ok()) {
                Some(n) => Ok(Some(i64::from(n))),
                None => {
                    let go = if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
                        text.into_owned()
                    } else {
                        text.parse::<f64>().map_or_else(|_| text.into_owned(), crate::go::json_float)
                    };
                    Err(format!("number {go}"))
                }
            }
        }
        ty => Err(ty.to_string()),
    }
}

/// What kube-apiserver answers when its decoding of `id` (`sigs.k8s.io/json`) fails on a Go type
/// error at `field` (the JSON path without indices, as the decoder's error context writes it)
/// of struct `go_struct`: the serializer's wrapping (`Deployment in version "v1" cannot be
/// handled as a Deployment: ...`) of `json: cannot unmarshal <value> into Go struct field
/// <go_struct>.<field> of type <go_type>`.
fn cannot_be_handled(id: &ObjectId, go_struct: &str, field: &str, value: &str, go_type: &str) -> String {
    let gv = GroupVersion::parse_or_empty(&id.api_version);
    format!(
        "{kind} in version {version} cannot be handled as a {kind}: json: cannot unmarshal {value} into Go struct field {go_struct}.{field} of type {go_type}",
        kind = id.kind,
        version = crate::go::quote(gv.version()),
    )
}

/// Where an object holds the template of the pods it makes, and the path of its pod spec: at
/// the top level for a core `PodTemplate` (`template`) and a core `Pod` (the object itself: its
/// `metadata` and `spec`), under `spec.jobTemplate.spec.template` for a `CronJob` of `batch`,
/// else under `spec.template`. `template`, `spec_template` and `job_template` are the object's
/// `template`, `spec.template` and `spec.jobTemplate`.
fn pod_template_at<'a, F: Fields<'a>>(
    id: &ObjectId,
    v: F,
    template: Option<F>,
    spec_template: Option<F>,
    job_template: Option<F>,
) -> (Option<F>, &'static str) {
    match (id.kind.as_str(), id.api_version.as_str()) {
        ("PodTemplate", "v1") => (template, "template.spec"),
        ("Pod", "v1") => (Some(v), "spec"),
        ("CronJob", api_version) if GroupVersion::parse_or_empty(api_version).group() == "batch" => (
            job_template.and_then(|j| j.field("spec")).and_then(|s| s.field("template")),
            "spec.jobTemplate.spec.template.spec",
        ),
        _ => (spec_template, "spec.template.spec"),
    }
}

/// A container of a pod template, at `index` in its list (`init`: `initContainers`, a sidecar
/// when its `restartPolicy` is `Always`), in the pod spec at `pod_spec_path`.
fn template_container<'a, F: Fields<'a>>(c: F, index: usize, init: bool, pod_spec_path: &str) -> TemplateContainer {
    let [name, resources, restart_policy] = c.fields(["name", "resources", "restartPolicy"]);
    let [requests, limits] = resources.map_or([None; 2], |r| r.fields(["requests", "limits"]));
    let requests = requests.map(quantities).unwrap_or_default();
    let limits_as_requests = limits
        .map(|limits| {
            limits
                .entries()
                .filter(|(k, _)| !requests.contains_key(k.as_ref()))
                .filter_map(|(k, q)| quantity(q).map(|p| (k.into_owned(), p)))
                .collect()
        })
        .unwrap_or_default();
    TemplateContainer {
        name: name.and_then(Fields::as_str).unwrap_or_default().to_string(),
        index,
        sidecar: init && restart_policy.and_then(Fields::as_str) == Some("Always"),
        requests,
        limits_as_requests,
        resources_error: resources_error(resources, pod_spec_path, if init { "initContainers" } else { "containers" }),
    }
}

/// Why kube-apiserver's decoding of a built-in workload (`sigs.k8s.io/json` into
/// `v1.Container`) fails on a container's `resources` (as written, `None` when it has none),
/// in its words; `None` when they decode.
///
/// - `resources`, `limits` or `requests` of another JSON type than an object (or null): Go's
///   type error, `json: cannot unmarshal array into Go struct field
///   Container.spec.template.spec.containers.resources of type v1.ResourceRequirements` (the
///   field path without indices, as `encoding/json`'s error context writes it);
/// - a quantity that does not parse: `Quantity.UnmarshalJSON` (apimachinery
///   `pkg/api/resource/quantity.go`) hands `ParseQuantity` the string, or the JSON text of any
///   other value, and returns its error as is (`quantities must match the regular expression
///   ...`); decoding stops there, so it is reported before a type error. A `null` quantity is
///   the zero `Quantity`: it decodes, as 0.
pub fn resources_error<'a>(resources: Option<impl Fields<'a>>, pod_spec_path: &str, list: &str) -> Option<String> {
    let resources = resources?;
    let type_error = |value: &str, strukt: &str, field: &str, ty: &str| {
        format!(
            "json: cannot unmarshal {value} into Go struct field {strukt}.{pod_spec_path}.{list}.{field} of type {ty}"
        )
    };
    match resources.json_type() {
        "null" => return None,
        "object" => {}
        other => return Some(type_error(other, "Container", "resources", "v1.ResourceRequirements")),
    }
    let mut first_type_error = None;
    for (key, value) in resources.entries() {
        if key != "limits" && key != "requests" {
            continue;
        }
        match value.json_type() {
            "null" => {}
            "object" => {
                for (_, q) in value.entries() {
                    if let Err(e) = parse_json_quantity(q) {
                        return Some(e.to_string());
                    }
                }
            }
            other => {
                first_type_error.get_or_insert_with(|| {
                    type_error(other, "ResourceRequirements", &format!("resources.{key}"), "v1.ResourceList")
                });
            }
        }
    }
    first_type_error
}

/// `Quantity.UnmarshalJSON`: `null` is the zero quantity; a string is parsed without its
/// quotes, any other value from its JSON text (`true`, `{}`, `[1]` fail as `ParseQuantity`
/// fails on them: not a quantity's form), trimmed.
fn parse_json_quantity<'a>(q: impl Fields<'a>) -> Result<Quantity, crate::api::quantity::QuantityError> {
    match q.json_type() {
        "null" => Ok(Quantity::default()),
        "string" | "number" => Quantity::parse(q.quantity_text().unwrap_or_default().trim()),
        _ => Err(crate::api::quantity::QuantityError::FormatWrong),
    }
}

/// A `ResourceList`: the quantities that parse.
fn quantities<'a>(list: impl Fields<'a>) -> BTreeMap<String, Quantity> {
    list.entries().filter_map(|(k, q)| quantity(q).map(|p| (k.into_owned(), p))).collect()
}

/// A quantity's value, when it decodes (`null`: 0, as kube-apiserver decodes it).
fn quantity<'a>(q: impl Fields<'a>) -> Option<Quantity> {
    parse_json_quantity(q).ok()
}

/// Builds a [`LimitRange`] from JSON, each item defaulted as kube-apiserver stores it.
pub fn limit_range_from_json(id: ObjectId, v: &Value) -> LimitRange {
    let items = v.get("spec").and_then(|s| s.get("limits")).and_then(Value::as_array);
    let list = |item: &Value, key: &str| item.get(key).map(quantities).unwrap_or_default();
    let limits = items
        .into_iter()
        .flatten()
        .map(|item| {
            let mut parsed = LimitRangeItem {
                type_: item.get("type").and_then(Value::as_str).unwrap_or_default().to_string(),
                max: list(item, "max"),
                min: list(item, "min"),
                default: list(item, "default"),
                default_request: list(item, "defaultRequest"),
                max_limit_request_ratio: list(item, "maxLimitRequestRatio"),
            };
            set_defaults_limit_range_item(&mut parsed);
            parsed
        })
        .collect::<Vec<_>>();
    let refusal = validate_limit_range(&limits);
    let undecodable = limit_range_decode_refusal(&id, items.map(Vec::as_slice).unwrap_or_default()).map(Box::new);
    LimitRange { id, limits, refusal, undecodable }
}

/// What kube-apiserver's decoding refuses in a LimitRange's `spec.limits`, in the order kubectl
/// sends them (the items in their order, each item's keys and each list's resources sorted):
/// a quantity `Quantity.UnmarshalJSON` cannot parse stops the decoding at once, its error as is
/// (`quantities must match the regular expression ...`), wrapped by the serializer
/// (`LimitRange in version "v1" cannot be handled as a LimitRange: ...`); a `max`, `min`,
/// `default`, `defaultRequest` or `maxLimitRequestRatio` of another JSON type than a mapping is
/// a Go type error (`json: cannot unmarshal array into Go struct field
/// LimitRangeItem.spec.limits.default of type v1.ResourceList`) that decoding keeps while it goes
/// on, reported when no quantity failed.
pub fn limit_range_decode_refusal(id: &ObjectId, items: &[Value]) -> Option<DecodeRefusal> {
    const LISTS: [&str; 5] = ["default", "defaultRequest", "max", "maxLimitRequestRatio", "min"];
    let version = GroupVersion::parse_or_empty(&id.api_version).version().to_string();
    let wrap = |error: &str| {
        format!(
            "{kind} in version {} cannot be handled as a {kind}: {error}",
            crate::go::quote(&version),
            kind = id.kind
        )
    };
    let mut type_error = None;
    for (i, item) in items.iter().enumerate() {
        for key in LISTS {
            let Some(list) = item.get(key) else { continue };
            match list {
                Value::Null => {}
                Value::Object(map) => {
                    let mut resources: Vec<(&String, &Value)> = map.iter().collect();
                    resources.sort_by(|a, b| a.0.cmp(b.0));
                    for (resource, q) in resources {
                        if let Err(e) = parse_json_quantity(q) {
                            let field = format!("spec.limits[{i}].{key}[{resource}]");
                            return Some(DecodeRefusal { field, message: wrap(&e.to_string()) });
                        }
                    }
                }
                other => {
                    type_error.get_or_insert_with(|| {
                        let ty = other.json_type();
                        let error = format!(
                            "json: cannot unmarshal {ty} into Go struct field LimitRangeItem.spec.limits.{key} of type v1.ResourceList"
                        );
                        DecodeRefusal { field: format!("spec.limits[{i}].{key}"), message: wrap(&error) }
                    });
                }
            }
        }
    }
    type_error
}

/// What `ValidateLimitRange` (`pkg/apis/core/validation`) refuses in a LimitRange's items as
/// kube-apiserver validates them, defaulted ([`set_defaults_limit_range_item`]: a `default`
/// from `max`, a `defaultRequest` from `default` or `min`), in its order for each item: a type
/// already listed (`field.Duplicate`); a `default` or `defaultRequest` on a `Pod` item
/// (`field.Forbidden`); then for each resource of the item, a `min` above the `max`, a `min`
/// above the `defaultRequest`, a `defaultRequest` above the `max` or the `default`, a `min`
/// above the `default`, a `default` above the `max`, a `maxLimitRequestRatio` below 1 or above
/// `max/min` (`%f`), and for a resource that cannot be overcommitted (hugepages, an extended
/// resource) a `defaultRequest` other than the `default`. The resources are a Go set, walked in
/// map order: with several refused, kube-apiserver's order varies from one request to the next;
/// here they are sorted. Not checked: the type's and the resources' names, a `PersistentVolumeClaim`
/// item's storage bounds. Each value is a quantity whose `String()` the message called, so 1.33
/// prints it with its canonical form cached ([`Quantity::stringified`]).
pub fn validate_limit_range(items: &[LimitRangeItem]) -> crate::field::ErrorList {
    use crate::field::{BadValue, FieldError, Path};
    use std::cmp::Ordering::Greater;
    let mut errors = Vec::new();
    let spec = Path::new("spec");
    let limits = spec.child("limits");
    let mut types = std::collections::BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        let at = limits.index(i);
        if !types.insert(item.type_.as_str()) {
            errors.push(FieldError::duplicate(&at.child("type"), BadValue::named(&item.type_)));
        }
        if item.type_ == "Pod" {
            for (key, list) in [("default", &item.default), ("defaultRequest", &item.default_request)] {
                if !list.is_empty() {
                    errors.push(FieldError::forbidden(&at.child(key), "may not be specified when `type` is 'Pod'"));
                }
            }
        }
        let keys: std::collections::BTreeSet<&String> = item
            .max
            .keys()
            .chain(item.min.keys())
            .chain(item.default.keys())
            .chain(item.default_request.keys())
            .chain(item.max_limit_request_ratio.keys())
            .collect();
        // A Pod item's defaults are refused above, and never compared.
        let (default, default_request) = if item.type_ == "Pod" {
            (&BTreeMap::new(), &BTreeMap::new())
        } else {
            (&item.default, &item.default_request)
        };
        for k in keys {
            let (min, max) = (item.min.get(k), item.max.get(k));
            let (default, request) = (default.get(k), default_request.get(k));
            let ratio = item.max_limit_request_ratio.get(k);
            let at = |list: &str| at.child(list).key(k).render();
            let mut invalid = |field: String, value: &Quantity, detail: String| {
                errors.push(FieldError::invalid(&Path::new(&field), BadValue::Quantity(value.stringified()), detail));
            };
            let s = Quantity::canonical;
            // Each comparison in its order: the greater side, the smaller one, their names in the
            // message, the field, and whether the error's value is the greater side.
            let comparisons = [
                (min, max, "min", "max", "min", true),
                (min, request, "min", "default request", "defaultRequest", false),
                (request, max, "default request", "max", "defaultRequest", true),
                (request, default, "default request", "default limit", "defaultRequest", true),
                (min, default, "min", "default", "default", true),
                (default, max, "default", "max", "default", false),
            ];
            for (greater, smaller, greater_name, smaller_name, field, value_is_greater) in comparisons {
                if let (Some(g), Some(l)) = (greater, smaller)
                    && g.cmp_value(l) == Greater
                {
                    let detail = format!("{greater_name} value {} is greater than {smaller_name} value {}", s(g), s(l));
                    invalid(at(field), if value_is_greater { g } else { l }, detail);
                }
            }
            if let Some(ratio) = ratio {
                if ratio.milli_value() < 1000 {
                    invalid(at("maxLimitRequestRatio"), ratio, format!("ratio {} is less than 1", s(ratio)));
                }
                if let (Some(min), Some(max)) = (min, max) {
                    // In milli-units, as Go computes it for values below `MaxMilliValue`.
                    #[allow(clippy::cast_precision_loss)] // Go's float64 conversions.
                    let (ratio_value, limit) =
                        (ratio.milli_value() as f64 / 1000.0, max.milli_value() as f64 / min.milli_value() as f64);
                    if ratio_value > limit {
                        let detail = format!("ratio {} is greater than max/min = {limit:.6}", s(ratio));
                        invalid(at("maxLimitRequestRatio"), ratio, detail);
                    }
                }
            }
            // `IsOvercommitAllowed`: a native resource (no `/`, or `kubernetes.io/` in it) other
            // than hugepages.
            let overcommit = (!k.contains('/') || k.contains("kubernetes.io/")) && !k.starts_with("hugepages-");
            if !overcommit
                && let (Some(default), Some(request)) = (default, request)
                && default.cmp_value(request) != std::cmp::Ordering::Equal
            {
                let detail =
                    format!("default value {} must equal to defaultRequest value {} in {k}", s(default), s(request));
                invalid(at("defaultRequest"), request, detail);
            }
        }
    }
    errors
}

/// `SetDefaults_LimitRangeItem` (`pkg/apis/core/v1/defaults.go`): for a `Container` item, a
/// resource with a `max` but no `default` gets the max as its default limit; one with a
/// default limit but no `defaultRequest` gets the default limit as its default request; one
/// with a `min` and still no default request gets the min.
pub fn set_defaults_limit_range_item(item: &mut LimitRangeItem) {
    if item.type_ != "Container" {
        return;
    }
    for (k, v) in &item.max {
        item.default.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in &item.default {
        item.default_request.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in &item.min {
        item.default_request.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

// === pods as kube-apiserver admits them ===

/// A pod made from a workload's pod template, as kube-apiserver admits it: the requests the HPA
/// controller reads when it computes utilization. Nothing is copied: each question is about
/// one resource, answered from the template and the namespace's LimitRanges, in the order
/// kube-apiserver applies them:
///
/// 1. `SetDefaults_Pod` (`pkg/apis/core/v1/defaults.go`): a container (regular or init) without
///    a request for a resource it has a limit for gets the limit as its request, one resource at
///    a time (a memory limit says nothing about cpu); with `PodLevelResources`,
///    `defaultPodRequests` then fills pod-level requests when pod-level limits are written;
/// 2. the LimitRanger admission plugin (`plugin/pkg/admission/limitranger/admission.go`,
///    `PodLimitFunc`): each LimitRange of the namespace gives every container (regular and
///    init) the default request of each resource it still has none of
///    (`defaultContainerResourceRequirements`, `mergeContainerResources`): its `Container`
///    items' `defaultRequest`, which kube-apiserver completed from `default` and `max` when it
///    stored the LimitRange ([`set_defaults_limit_range_item`]). When several LimitRanges set a
///    default for one resource, Kubernetes applies them in the order its informer lists them;
///    here, in input order (which value is set may differ, whether one is set does not).
///
/// A LimitRange never sets a pod-level request; its `Pod` items only bound a pod's totals.
#[derive(Debug, Clone, Copy)]
pub struct AdmittedPod<'a> {
    /// The workload whose pod template the pod is made from.
    pub template: &'a Workload,
    limit_ranges: &'a [LimitRange],
    pod_level_resources: bool,
    /// `spec.overhead`, when the controller adds it ([`AdmittedPod::with_overhead`]).
    overhead: Option<&'a BTreeMap<String, Quantity>>,
}

impl<'a> AdmittedPod<'a> {
    /// A pod made from `template` in a namespace with `limit_ranges`; `pod_level_resources` is
    /// the `PodLevelResources` feature gate.
    pub fn new(template: &'a Workload, limit_ranges: &'a [LimitRange], pod_level_resources: bool) -> Self {
        AdmittedPod { template, limit_ranges, pod_level_resources, overhead: None }
    }

    /// The same pod with `overhead` as its `spec.overhead` ([`Objects::pod_overhead`]), which
    /// [`AdmittedPod::pod_requests`] adds: pass it only where the HPA controller of the release
    /// adds it ([`FeatureGates::pod_overhead`]).
    ///
    /// [`FeatureGates::pod_overhead`]: crate::features::FeatureGates::pod_overhead
    pub fn with_overhead(self, overhead: Option<&'a BTreeMap<String, Quantity>>) -> Self {
        AdmittedPod { overhead, ..self }
    }

    /// The pod's `spec.overhead` ([`AdmittedPod::with_overhead`]), if it was given one.
    pub fn overhead(&self) -> Option<&'a BTreeMap<String, Quantity>> {
        self.overhead
    }

    /// The request of one of the template's containers (of [`Workload::containers`] or
    /// [`Workload::init_containers`]) for `resource`: as written, else its limit
    /// (`SetDefaults_Pod`), else a LimitRange's default (LimitRanger).
    pub fn container_request(&self, c: &'a TemplateContainer, resource: &str) -> Option<&'a Quantity> {
        defaulted_request(c, resource).or_else(|| self.limit_range_default(resource))
    }

    /// Every request of one of the template's containers as the pod gets it
    /// ([`AdmittedPod::container_request`] of each resource it requests, limits or a
    /// LimitRange defaults), in milli-units.
    pub fn container_requests(&self, c: &'a TemplateContainer) -> BTreeMap<String, i64> {
        let defaults = self.stored_limit_ranges().flat_map(|range| {
            range.limits.iter().filter(|i| i.type_ == "Container").flat_map(|i| i.default_request.keys())
        });
        c.requests
            .keys()
            .chain(c.limits_as_requests.keys())
            .chain(defaults)
            .filter_map(|r| self.container_request(c, r).map(|q| (r.clone(), q.milli_value())))
            .collect()
    }

    /// The LimitRanges of the namespace kube-apiserver stores ([`LimitRange::stored`]): one it
    /// refuses does not exist, and LimitRanger gives nothing from it.
    fn stored_limit_ranges(&self) -> impl Iterator<Item = &'a LimitRange> {
        self.limit_ranges.iter().filter(|range| range.stored())
    }

    /// LimitRanger's default request for `resource`: the first LimitRange that has one; within
    /// a LimitRange, its last `Container` item that has one (`defaultContainerResourceRequirements`
    /// lets a later item override an earlier one).
    fn limit_range_default(&self, resource: &str) -> Option<&'a Quantity> {
        self.stored_limit_ranges().find_map(|range| {
            range.limits.iter().rev().filter(|i| i.type_ == "Container").find_map(|i| i.default_request.get(resource))
        })
    }

    /// Whether `defaultPodRequests` runs: with `PodLevelResources`, when pod-level limits are
    /// written.
    fn defaults_pod_requests(&self) -> bool {
        self.pod_level_resources && !self.template.pod_limits.is_empty()
    }

    /// The pod-level request for `resource`, in milli-units: as written, else as
    /// `defaultPodRequests` sets it (cpu and memory from the containers' aggregate request as
    /// `SetDefaults_Pod` left it, else a pod-level resource from the pod-level limit).
    pub fn pod_level_request(&self, resource: &str) -> Option<i64> {
        if let Some(q) = self.template.pod_requests.get(resource) {
            return Some(q.milli_value());
        }
        if !self.defaults_pod_requests() {
            return None;
        }
        // `IsSupportedPodLevelResource` and `IsOvercommitAllowed`: cpu and memory.
        let from_containers =
            matches!(resource, "cpu" | "memory").then(|| self.aggregate(|c| defaulted_request(c, resource))).flatten();
        from_containers.or_else(|| {
            self.template
                .pod_limits
                .get(resource)
                .filter(|_| is_supported_pod_level_resource(resource))
                .map(Quantity::milli_value)
        })
    }

    /// `IsPodLevelRequestsSet` (component-helpers `resource/helpers.go`) of the admitted pod:
    /// its pod-level requests name a resource pods support at that level (cpu, memory,
    /// hugepages).
    pub fn pod_level_requests_set(&self) -> bool {
        let t = self.template;
        resources::is_pod_level_requests_set(t.pod_requests.keys().map(String::as_str))
            || (self.defaults_pod_requests()
                && (resources::is_pod_level_requests_set(t.pod_limits.keys().map(String::as_str))
                    || ["cpu", "memory"].iter().any(|r| self.aggregate(|c| defaulted_request(c, r)).is_some())))
    }

    /// `PodRequests` (component-helpers `resource/helpers.go`, [`resources::pod_requests`]) for
    /// `resource`, in milli-units: the pod-level request when pod-level requests are set and
    /// the resource is a pod-level one, else the containers' aggregate
    /// (`AggregateContainerRequests`), plus the pod's overhead when it has one
    /// ([`AdmittedPod::with_overhead`]: the HPA controller adds the RuntimeClass's in
    /// Kubernetes 1.34 to 1.37); `None` when none of them has the resource.
    pub fn pod_requests(&self, resource: &str) -> Option<i64> {
        let aggregate = self.aggregate(|c| self.container_request(c, resource));
        let pod_level = if is_supported_pod_level_resource(resource) { self.pod_level_request(resource) } else { None };
        let overhead = self.overhead.and_then(|o| o.get(resource)).map(Quantity::milli_value);
        resources::pod_requests(resource, aggregate, self.pod_level_requests_set(), pod_level, overhead)
    }

    /// `AggregateContainerRequests` ([`resources::aggregate_container_requests`]) for one
    /// resource, with each container's request from `request`. `None` when no container has the
    /// resource.
    fn aggregate(&self, request: impl Fn(&'a TemplateContainer) -> Option<&'a Quantity>) -> Option<i64> {
        let t = self.template;
        let milli = |c: &'a TemplateContainer| request(c).map(Quantity::milli_value);
        let regular = t.containers.iter().filter(|c| !c.sidecar).map(|c| (ContainerRole::Regular, milli(c)));
        if t.init_containers.is_empty() && !t.containers.iter().any(|c| c.sidecar) {
            return resources::aggregate_container_requests(regular);
        }
        // `initContainers` in their order: sidecars (kept among `containers`) and plain ones
        // interleave.
        let mut init: Vec<&TemplateContainer> = t.containers.iter().filter(|c| c.sidecar).collect();
        init.extend(&t.init_containers);
        init.sort_by_key(|c| c.index);
        let init = init.into_iter().map(|c| {
            let role = if c.sidecar { ContainerRole::Sidecar } else { ContainerRole::Init };
            (role, milli(c))
        });
        resources::aggregate_container_requests(regular.chain(init))
    }
}

/// The request part of `SetDefaults_Pod` for one container and resource: as written, else the
/// limit.
fn defaulted_request<'a>(c: &'a TemplateContainer, resource: &str) -> Option<&'a Quantity> {
    c.requests.get(resource).or_else(|| c.limits_as_requests.get(resource))
}

/// Builds a [`Pdb`] from JSON. Its selector selects no pod when it is null or absent
/// (`metav1.LabelSelectorAsSelector(nil)` is `labels.Nothing()`, the `PodDisruptionBudgetSpec.selector`
/// doc of policy/v1) and, for a `policy/v1beta1` budget (served until 1.25), when it is empty
/// too: there `{}` selected nothing, where policy/v1's selects every pod of the namespace.
pub fn pdb_from_json(id: ObjectId, v: &Value) -> Pdb {
    let spec = v.get("spec");
    let selector = spec.and_then(|s| s.get("selector")).filter(|s| s.is_object()).map(selector_from_json);
    let selector = selector.filter(|s| {
        id.api_version != "policy/v1beta1" || !s.match_labels.is_empty() || !s.match_expressions.is_empty()
    });
    let undecodable = spec.and_then(|spec| pdb_decode_refusal(&id, spec));
    // A selector that does not decode was meant without what does not (`decodable_selector`).
    let meant = match &undecodable {
        Some(u) if u.field.starts_with("spec.selector") => {
            let decodable = spec.and_then(|s| s.get("selector")).and_then(decodable_selector);
            decodable.map(|s| meant_selector(&s).unwrap_or(s))
        }
        _ => selector.as_ref().and_then(meant_selector),
    };
    Pdb {
        id,
        meant_selector: meant,
        selector,
        min_available: spec.and_then(|s| s.get("minAvailable")).and_then(IntOrPercent::from_json),
        max_unavailable: spec.and_then(|s| s.get("maxUnavailable")).and_then(IntOrPercent::from_json),
        undecodable,
        invalid: spec.map(pdb_budget_errors).unwrap_or_default(),
        unhealthy_pod_eviction_policy: spec
            .and_then(|s| s.get("unhealthyPodEvictionPolicy"))
            .and_then(Value::as_str)
            .map(String::from),
    }
}

/// What kube-apiserver's decoding refuses in a budget's spec, in the order kubectl sends its keys
/// (sorted). `maxUnavailable` and `minAvailable` first: each is a pointer to an
/// `intstr.IntOrString`, whose `UnmarshalJSON` (apimachinery `pkg/util/intstr`) decodes a JSON
/// string as the string and anything else with `encoding/json` into the `int32`: a fraction, an
/// integer out of range, a boolean, a list or a map fails there (`go_int32`), and decoding stops
/// (a `null` is no value); `sigs.k8s.io/json` aliases that `UnmarshalTypeError` and puts its own
/// context on it (`Go struct field PodDisruptionBudgetSpec.spec.minAvailable`). Then the Go type
/// errors decoding keeps while it goes on, the first reported: the `selector`
/// (`selector_type_error`: `matchLabels: {version: 1.0}` is a number where a label value is a
/// string) and an `unhealthyPodEvictionPolicy` that is no string. The serializer wraps it
/// (`cannot_be_handled`).
pub fn pdb_decode_refusal(id: &ObjectId, spec: &Value) -> Option<DecodeRefusal> {
    let refusal = |field: String, go_struct: &str, value: &str, go_type: &str| {
        let message = cannot_be_handled(id, go_struct, &field, value, go_type);
        DecodeRefusal { field, message }
    };
    let intstr = ["maxUnavailable", "minAvailable"].into_iter().find_map(|key| {
        let value = spec.get(key).filter(|v| !v.is_string())?;
        let error = go_int32(value).err()?;
        Some(refusal(format!("spec.{key}"), "PodDisruptionBudgetSpec", &error, "int32"))
    });
    if intstr.is_some() {
        return intstr;
    }
    if let Some(selector) = spec.get("selector")
        && let Some((field, go_struct, value, go_type)) =
            selector_type_error(selector, "spec.selector", "PodDisruptionBudgetSpec")
    {
        return Some(refusal(field, go_struct, value, go_type));
    }
    let policy = spec.get("unhealthyPodEvictionPolicy").filter(|p| !p.is_null() && !p.is_string())?;
    let field = "spec.unhealthyPodEvictionPolicy".to_string();
    Some(refusal(field, "PodDisruptionBudgetSpec", json_type(policy), "v1.UnhealthyPodEvictionPolicyType"))
}

/// The selector a budget's author meant when kube-apiserver cannot decode it
/// ([`pdb_decode_refusal`]): its label pairs whose value is a string, its requirements whose
/// key, operator and values are strings; `None` when it is no mapping.
fn decodable_selector(v: &Value) -> Option<LabelSelector> {
    let map = v.as_object()?;
    let text = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v.is_string());
    let match_labels = map
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    let match_expressions = map
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| {
            let values = r.get("values");
            r.is_object()
                && text(r.get("key"))
                && text(r.get("operator"))
                && values.is_none_or(|v| v.is_null() || v.as_array().is_some_and(|vs| vs.iter().all(Value::is_string)))
        })
        .flat_map(|r| selector_from_json(&serde_json::json!({"matchExpressions": [r]})).match_expressions)
        .collect();
    Some(LabelSelector { match_labels, match_expressions })
}

/// The JSON type of a value as Go's `encoding/json` names it in a type error.
fn json_type(v: &Value) -> &'static str {
    Fields::json_type(v)
}

/// A Go type error `encoding/json` meets decoding an object: the field as its error context
/// writes it (no indices, no map keys), the Go struct holding it, the JSON value's type and the
/// Go type.
type GoTypeError<'s> = (String, &'s str, &'static str, &'static str);

/// The first Go type error `encoding/json` meets decoding `selector`, at `field` of the Go
/// struct `holder` (`PodDisruptionBudgetSpec`, `DeploymentSpec`), into a
/// `*metav1.LabelSelector`, in the order kubectl sends the keys (`matchExpressions`, then
/// `matchLabels`; a requirement's `key`, `operator`, `values`). A `null` anywhere is no value;
/// a number where a string is wanted is `number`, without its text.
fn selector_type_error<'a, 's>(selector: impl Fields<'a>, field: &str, holder: &'s str) -> Option<GoTypeError<'s>> {
    let at = |child: &str| format!("{field}{child}");
    match selector.json_type() {
        "null" => return None,
        "object" => {}
        other => return Some((at(""), holder, other, "v1.LabelSelector")),
    }
    match selector.field("matchExpressions") {
        None => {}
        Some(e) if e.json_type() == "null" => {}
        Some(e) => {
            let Some(requirements) = e.items() else {
                let field = at(".matchExpressions");
                return Some((field, "LabelSelector", e.json_type(), "[]v1.LabelSelectorRequirement"));
            };
            for r in requirements {
                match r.json_type() {
                    "null" => continue,
                    "object" => {}
                    other => {
                        return Some((at(".matchExpressions"), "LabelSelector", other, "v1.LabelSelectorRequirement"));
                    }
                }
                for (key, go_type) in [("key", "string"), ("operator", "v1.LabelSelectorOperator")] {
                    if let Some(v) = r.field(key).filter(|v| !matches!(v.json_type(), "null" | "string")) {
                        let field = at(&format!(".matchExpressions.{key}"));
                        return Some((field, "LabelSelectorRequirement", v.json_type(), go_type));
                    }
                }
                let field = at(".matchExpressions.values");
                match r.field("values") {
                    None => {}
                    Some(values) => match values.items() {
                        Some(mut values) => {
                            if let Some(v) = values.find(|v| !matches!(v.json_type(), "null" | "string")) {
                                return Some((field, "LabelSelectorRequirement", v.json_type(), "string"));
                            }
                        }
                        None if values.json_type() == "null" => {}
                        None => return Some((field, "LabelSelectorRequirement", values.json_type(), "[]string")),
                    },
                }
            }
        }
    }
    string_map_type_error(selector.field("matchLabels")?, at(".matchLabels"), "LabelSelector")
}

/// The first Go type error `encoding/json` meets decoding `map`, at `field` of the Go struct
/// `holder`, into a `map[string]string` (a selector's `matchLabels`, a ReplicationController's
/// `spec.selector`, a pod template's `metadata.labels`): a value that is no string, the first
/// by key as kubectl sends them (sorted), or a map that is no JSON object. `null` is no value.
fn string_map_type_error<'a, 's>(map: impl Fields<'a>, field: String, holder: &'s str) -> Option<GoTypeError<'s>> {
    match map.json_type() {
        "null" => None,
        "object" => {
            let mut entries: Vec<_> =
                map.entries().filter(|(_, v)| !matches!(v.json_type(), "null" | "string")).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let (_, v) = entries.first()?;
            Some((field, holder, v.json_type(), "string"))
        }
        other => Some((field, holder, other, "map[string]string")),
    }
}

/// What `ValidatePodDisruptionBudgetSpec` (`pkg/apis/policy/validation`) refuses in a budget's
/// `minAvailable` and `maxUnavailable`, each an `intstr.IntOrString`, in its order: both set
/// (an error on `spec`, printed with the whole spec: `pdb_spec_value`), then for each a string
/// that is no percentage (`"2"`: `IsValidPercent`) or one above 100% (`IsNotMoreThan100Percent`),
/// a negative integer (`ValidateNonnegativeField`). A string is printed as the `IntOrString` it
/// is (JSON from 1.34, a Go struct dump in 1.33), an integer plainly.
pub fn pdb_budget_errors(spec: &Value) -> Vec<crate::field::FieldError> {
    use crate::field::{BadValue, FieldError, Path};
    let mut errors = Vec::new();
    let spec_path = Path::new("spec");
    let set = |key: &str| spec.get(key).is_some_and(|v| !v.is_null());
    if set("minAvailable") && set("maxUnavailable") {
        errors.push(FieldError::invalid(
            &spec_path,
            pdb_spec_value(spec),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for key in ["minAvailable", "maxUnavailable"] {
        let path = spec_path.child(key);
        match spec.get(key) {
            Some(Value::String(s)) => {
                let value = || BadValue::Composite {
                    json: crate::go::json_string(s),
                    go_syntax: format!("intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}", crate::go::quote(s)),
                };
                if let Some(message) = crate::validation::names::percent_error(s) {
                    errors.push(FieldError::invalid(&path, value(), message));
                } else if s.trim_end_matches('%').parse::<u64>().map_or(true, |p| p > 100) {
                    errors.push(FieldError::invalid(&path, value(), "must not be greater than 100%"));
                }
            }
            Some(v) => {
                if let Some(n) = v.as_i64().filter(|n| *n < 0 && i32::try_from(*n).is_ok()) {
                    errors.push(FieldError::invalid(&path, BadValue::Int(n), "must be greater than or equal to 0"));
                }
            }
            None => {}
        }
    }
    errors
}

/// A budget's spec as the value of a field error: the internal `policy.PodDisruptionBudgetSpec`
/// (no JSON tags: Go's field names, in Go's field order) as `json.Marshal` writes it from 1.34,
/// and as `%#v` prints it in 1.33, where each set pointer is a heap address
/// ([`crate::go::POINTER_PLACEHOLDER`] stands in for it).
fn pdb_spec_value(spec: &Value) -> crate::field::BadValue {
    let present = |key: &str| spec.get(key).filter(|v| !v.is_null());
    let json_of = |key: &str| present(key).and_then(|v| crate::go::to_go_json(v).ok()).unwrap_or_else(|| "null".into());
    let selector = spec
        .get("selector")
        .filter(|s| s.is_object())
        .and_then(|s| crate::go::to_go_json(&selector_from_json(s)).ok())
        .unwrap_or_else(|| "null".into());
    let policy = present("unhealthyPodEvictionPolicy")
        .and_then(Value::as_str)
        .map_or_else(|| "null".to_string(), crate::go::json_string);
    let json = format!(
        "{{\"MinAvailable\":{},\"Selector\":{selector},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{policy}}}",
        json_of("minAvailable"),
        json_of("maxUnavailable"),
    );
    let pointer =
        |ty: &str, set: bool| format!("(*{ty})({})", if set { crate::go::POINTER_PLACEHOLDER } else { "nil" });
    let go_syntax = format!(
        "policy.PodDisruptionBudgetSpec{{MinAvailable:{}, Selector:{}, MaxUnavailable:{}, UnhealthyPodEvictionPolicy:{}}}",
        pointer("intstr.IntOrString", present("minAvailable").is_some()),
        pointer("v1.LabelSelector", spec.get("selector").is_some_and(Value::is_object)),
        pointer("intstr.IntOrString", present("maxUnavailable").is_some()),
        pointer("policy.UnhealthyPodEvictionPolicyType", present("unhealthyPodEvictionPolicy").is_some()),
    );
    crate::field::BadValue::Composite { json, go_syntax }
}

/// The API group of VerticalPodAutoscalers.
pub const VPA_GROUP: &str = "autoscaling.k8s.io";

/// The one version of [`VPA_GROUP`] the VPA CRD of VPA 1.7 serves
/// (`vertical-pod-autoscaler/deploy/vpa-v1-crd-gen.yaml`: `v1`, served and stored; `v1beta2`
/// deprecated and `served: false`): a VPA written in another version is not created.
pub const VPA_VERSION: &str = "v1";

/// The VPA CRD's enum of `spec.updatePolicy.updateMode` (`UpdateMode` of
/// `autoscaling.k8s.io/v1`, `+kubebuilder:validation:Enum`), in its order: the CRD of VPA 1.7
/// (`vertical-pod-autoscaler/deploy/vpa-v1-crd-gen.yaml`), which added `InPlace`.
pub const VPA_UPDATE_MODES: &[&str] = &["Off", "Initial", "Recreate", "InPlaceOrRecreate", "InPlace", "Auto"];

/// The VPA CRD's enum of a container policy's `mode` (`ContainerScalingMode`), in its order.
pub const VPA_CONTAINER_MODES: &[&str] = &["Auto", "Off"];

/// The VPA CRD's enum of a container policy's `controlledValues` (`ContainerControlledValues`),
/// in its order.
pub const VPA_CONTROLLED_VALUES: &[&str] = &["RequestsAndLimits", "RequestsOnly"];

/// What the VPA CRD's schema refuses in `spec` among the enums the rules read, in the schema's
/// order: `updatePolicy.updateMode`, then each container policy's `controlledValues` and
/// `mode`. A null is no value (apiextensions prunes the null of a field that is not
/// `nullable`). (kube-openapi walks an object's properties in Go map order, so with several
/// errors kube-apiserver's order may differ from one request to the next.)
pub fn vpa_schema_refusals(spec: Option<&Value>) -> Vec<VpaSchemaRefusal> {
    let mut out = Vec::new();
    let mut check = |path: String, v: Option<&Value>, allowed: &'static [&'static str]| {
        let refused = v.filter(|v| !v.is_null() && v.as_str().is_none_or(|m| !allowed.contains(&m)));
        if let Some(value) = refused {
            out.push(VpaSchemaRefusal { path, value: value.clone(), allowed });
        }
    };
    let mode = spec.and_then(|s| s.get("updatePolicy")).and_then(|p| p.get("updateMode"));
    check("spec.updatePolicy.updateMode".into(), mode, VPA_UPDATE_MODES);
    let policies =
        spec.and_then(|s| s.get("resourcePolicy")).and_then(|r| r.get("containerPolicies")).and_then(Value::as_array);
    for (i, p) in policies.into_iter().flatten().enumerate() {
        let at = format!("spec.resourcePolicy.containerPolicies[{i}]");
        check(format!("{at}.controlledValues"), p.get("controlledValues"), VPA_CONTROLLED_VALUES);
        check(format!("{at}.mode"), p.get("mode"), VPA_CONTAINER_MODES);
    }
    out
}

/// The update modes the VPA admission controller knows (`GetUpdateModes` of VPA 1.7's
/// `autoscaling.k8s.io/v1`), as `GetUpdateModesList` lists them in a `NotSupported` error:
/// sorted, without the deprecated `Auto` (which it still accepts).
const VPA_ADMITTED_UPDATE_MODES: &[&str] = &["InPlace", "InPlaceOrRecreate", "Initial", "Off", "Recreate"];

/// What the VPA admission controller of VPA 1.7 refuses when a VPA is created (`validateVPA`
/// of `vertical-pod-autoscaler/pkg/admission-controller/resource/vpa/validation.go`, with the
/// feature gates at their defaults: `InPlace`, `PerVPAConfig` and `CPUStartupBoost` alpha, off),
/// every error in its order. Its webhook (`vpa.k8s.io`, mutating, `DisallowIncorrectObjects`)
/// denies such a request, and kube-apiserver then stores nothing.
///
/// Only what decodes into the VPA's Go types is judged here: a value of another JSON type fails
/// the webhook's `json.Unmarshal` before any check (and the CRD's schema too,
/// [`vpa_schema_refusals`]). A resource map's errors are in its keys' order; Go walks a map in a
/// random order, so with several resources the webhook's order may differ from one request to
/// the next. (`targetRef`'s `Required` is never reported: the handler passes an empty old object
/// on create, so `IsVPACreate` is false.)
pub fn vpa_admission_refusal(spec: Option<&Value>) -> crate::field::ErrorList {
    use crate::field::{BadValue, FieldError, Path};
    let mut errors = Vec::new();
    let present = |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).filter(|v| !v.is_null()).cloned();
    let gate_off = |gate: &str| format!("not supported when feature flag {gate} is disabled");
    let boost_off =
        "in order to use startupBoost, you must enable feature gate CPUStartupBoost in the admission-controller args";
    let root = Path::new("spec");
    if let Some(policy) = present(spec, "updatePolicy").filter(Value::is_object) {
        let at = root.child("updatePolicy");
        let mode_at = at.child("updateMode");
        match present(Some(&policy), "updateMode") {
            None => errors.push(FieldError::required(&mode_at, "updateMode is required if UpdatePolicy is used")),
            Some(Value::String(mode)) => {
                if mode != "Auto" && !VPA_ADMITTED_UPDATE_MODES.contains(&mode.as_str()) {
                    errors.push(FieldError::not_supported(
                        &mode_at,
                        BadValue::Named(mode.clone()),
                        VPA_ADMITTED_UPDATE_MODES,
                    ));
                }
                if mode == "InPlace" {
                    errors.push(FieldError::forbidden(
                        &mode_at,
                        "in order to use UpdateMode InPlace, you must enable feature gate InPlace in the admission-controller args",
                    ));
                }
            }
            Some(_) => return Vec::new(),
        }
        match present(Some(&policy), "minReplicas") {
            Some(Value::Number(n)) if n.as_i64().is_some_and(|m| m <= 0) => errors.push(FieldError::invalid(
                &at.child("minReplicas"),
                BadValue::Int(n.as_i64().unwrap_or_default()),
                "minReplicas has to be positive",
            )),
            _ => {}
        }
        if present(Some(&policy), "evictAfterOOMSeconds").is_some() {
            errors.push(FieldError::forbidden(&at.child("evictAfterOOMSeconds"), gate_off("PerVPAConfig")));
        }
    }
    let policies = present(spec, "resourcePolicy").and_then(|r| r.get("containerPolicies").cloned());
    let at = root.child("resourcePolicy");
    let list = at.child("containerPolicies");
    for (i, policy) in policies.as_ref().and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = list.index(i);
        let name = policy.get("containerName").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() {
            errors.push(FieldError::required(&at.child("containerName"), ""));
        }
        let mode = policy.get("mode").and_then(Value::as_str);
        if let Some(mode) = mode.filter(|m| !VPA_CONTAINER_MODES.contains(m)) {
            errors.push(FieldError::not_supported(&at.child("mode"), BadValue::Named(mode.into()), &["Auto", "Off"]));
        }
        let quantities = |key: &str| -> BTreeMap<String, Quantity> {
            let map = policy.get(key).and_then(Value::as_object);
            let parsed = map.into_iter().flatten().filter_map(|(resource, v)| {
                let q = match v {
                    Value::String(s) => Quantity::parse(s).ok(),
                    Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
                    _ => None,
                };
                q.map(|q| (resource.clone(), q))
            });
            parsed.collect()
        };
        let (min_allowed, max_allowed) = (quantities("minAllowed"), quantities("maxAllowed"));
        let resolution = |errors: &mut Vec<FieldError>, field: &str, resource: &str, q: &Quantity| {
            let (scale, what) = match resource {
                "cpu" => (-3, "milli CPUs"),
                "memory" => (0, "bytes"),
                _ => return,
            };
            if !q.is_whole_at_scale(scale) {
                let path = at.child(field);
                errors.push(FieldError::invalid(
                    &path.key(resource),
                    BadValue::Str(q.canonical()),
                    format!("must be a whole number of {what}"),
                ));
            }
        };
        for (resource, min) in &min_allowed {
            resolution(&mut errors, "minAllowed", resource, min);
            if let Some(max) = max_allowed.get(resource).filter(|max| max.cmp_value(min).is_lt()) {
                let path = at.child("maxAllowed");
                errors.push(FieldError::invalid(
                    &path.key(resource),
                    BadValue::Str(max.canonical()),
                    format!("max resource for {resource} is lower than min of \"{}\"", min.canonical()),
                ));
            }
        }
        for (resource, max) in &max_allowed {
            resolution(&mut errors, "maxAllowed", resource, max);
        }
        if mode == Some("Off") && policy.get("controlledValues").and_then(Value::as_str) == Some("RequestsAndLimits") {
            errors.push(FieldError::forbidden(
                &at.child("controlledValues"),
                "controlledValues shouldn't be specified if container scaling mode is off",
            ));
        }
        for field in
            ["oomBumpUpRatio", "oomMinBumpUp", "memoryAggregationIntervalSeconds", "memoryAggregationIntervalCount"]
        {
            if present(Some(policy), field).is_some() {
                errors.push(FieldError::forbidden(&at.child(field), gate_off("PerVPAConfig")));
            }
        }
        if present(Some(policy), "startupBoost").is_some() {
            errors.push(FieldError::forbidden(&at.child("startupBoost"), boost_off));
        }
    }
    if present(spec, "startupBoost").is_some() {
        errors.push(FieldError::forbidden(&root.child("startupBoost"), boost_off));
    }
    let recommenders = present(spec, "recommenders").and_then(|r| r.as_array().map(Vec::len)).unwrap_or_default();
    if recommenders > 1 {
        errors.push(FieldError::too_many(&root.child("recommenders"), recommenders, 1));
    }
    errors
}

/// Builds a [`Vpa`] from JSON.
pub fn vpa_from_json(id: ObjectId, v: &Value) -> Vpa {
    let spec = v.get("spec");
    let target = spec.and_then(|s| s.get("targetRef"));
    let s =
        |n: Option<&Value>, k: &str| n.and_then(|n| n.get(k)).and_then(Value::as_str).unwrap_or_default().to_string();
    let written = spec.and_then(|s| s.get("updatePolicy")).and_then(|p| p.get("updateMode"));
    let mut update_mode = written.and_then(Value::as_str).unwrap_or_default().to_string();
    if written.is_none_or(Value::is_null) {
        update_mode = "Recreate".into();
    }
    let policies =
        spec.and_then(|s| s.get("resourcePolicy")).and_then(|r| r.get("containerPolicies")).and_then(Value::as_array);
    let container_policies = policies
        .into_iter()
        .flatten()
        .map(|p| ContainerPolicy {
            container_name: s(Some(p), "containerName"),
            off: p.get("mode").and_then(Value::as_str) == Some("Off"),
            controlled_resources: p
                .get("controlledResources")
                .and_then(Value::as_array)
                .map(|rs| rs.iter().filter_map(Value::as_str).map(String::from).collect()),
        })
        .collect();
    let target_kind = s(target, "kind");
    Vpa {
        id,
        target_group: vpa_target_group(
            &target_kind,
            target.and_then(|t| t.get("apiVersion")).and_then(Value::as_str).unwrap_or_default(),
        )
        .to_string(),
        target_kind,
        target_name: s(target, "name"),
        update_mode,
        refused: vpa_schema_refusals(spec),
        admission_refusal: vpa_admission_refusal(spec),
        container_policies,
        created: v.pointer("/metadata/creationTimestamp").and_then(Value::as_str).map(String::from),
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
    let configured = v
        .pointer("/spec/advanced/horizontalPodAutoscalerConfig/name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    let hpa_name = match configured {
        Some(n) => n.to_string(),
        // `kedacontrollerutil.Trim`: the first 63 bytes (names are ASCII).
        None => format!("keda-hpa-{}", id.name).chars().take(63).collect(),
    };
    let adopts_hpa = v
        .pointer("/metadata/annotations/scaledobject.keda.sh~1transfer-hpa-ownership")
        .and_then(Value::as_str)
        .is_some_and(|a| a == "true");
    let annotations = v.pointer("/metadata/annotations");
    let annotation = |key: &str| annotations.and_then(|a| a.get(key)).and_then(Value::as_str);
    let recorded = v.pointer("/status/pausedReplicaCount").is_some_and(|c| !c.is_null());
    let (paused, pause_refused) = match keda_pause(annotation(KEDA_PAUSED_REPLICAS), annotation(KEDA_PAUSED), recorded)
    {
        KedaPause::None => (None, None),
        KedaPause::Paused(annotation) => (Some(annotation), None),
        KedaPause::Refused(why) => (None, Some(why)),
    };
    // KEDA's `ParseGVKR`: no apiVersion is `apps/v1`, whatever the kind.
    let api_version = s("apiVersion");
    let target_group =
        if api_version.is_empty() { "apps".to_string() } else { super::object_group(&kind, &api_version).to_string() };
    ScaledObject {
        id,
        target_group,
        target_kind: kind,
        target_name: s("name"),
        hpa_name,
        adopts_hpa,
        paused,
        pause_refused,
    }
}

/// The API group of the object a VPA's `spec.targetRef` of `kind` and `api_version` names, as
/// the VPA recommender resolves it (`controllerFetcher.FindTopMostWellKnownOrScalable`,
/// `autoscaler/vertical-pod-autoscaler/pkg/target/controller_fetcher`): a well-known controller
/// kind (`DaemonSet`, `Deployment`, `ReplicaSet`, `StatefulSet`, `ReplicationController`,
/// `Job`, `CronJob`: `isWellKnown` compares the kind alone) is read from its informer, the
/// built-in one, whatever group the reference writes; any other kind by its group and kind
/// through the RESTMapper and its `/scale` ([`super::object_group`]).
pub fn vpa_target_group<'a>(kind: &str, api_version: &'a str) -> &'a str {
    match kind {
        "DaemonSet" | "Deployment" | "ReplicaSet" | "StatefulSet" => "apps",
        "ReplicationController" => "",
        "Job" | "CronJob" => "batch",
        _ => super::object_group(kind, api_version),
    }
}

/// KEDA's annotation that pauses a ScaledObject at a replica count.
const KEDA_PAUSED_REPLICAS: &str = "autoscaling.keda.sh/paused-replicas";
/// KEDA's annotation that pauses a ScaledObject where it stands.
const KEDA_PAUSED: &str = "autoscaling.keda.sh/paused";

/// What KEDA's pause annotations do to a ScaledObject ([`keda_pause`]).
#[derive(Debug, Clone, PartialEq)]
enum KedaPause {
    /// Not paused.
    None,
    /// Paused by this annotation, written as it is.
    Paused(String),
    /// An `autoscaling.keda.sh/paused-replicas` that does not pause, written as it is, with why.
    Refused(String),
}

/// Whether a ScaledObject is paused, given its `autoscaling.keda.sh/paused-replicas` and
/// `autoscaling.keda.sh/paused` annotations and whether its status records a
/// `pausedReplicaCount`: KEDA's `ScaledObject.NeedToBePausedByAnnotation`
/// (`apis/keda/v1alpha1/scaledobject_types.go`, KEDA main as stored), one reading for the KEDA
/// releases still run (2.14 on). KEDA's CHANGELOG: a pause deletes the HPA from 2.11
/// (kedacore/keda#4253), `paused` exists on ScaledObjects from 2.12 (#3304), and
/// `paused: "false"` stopped pausing in 2.13 (#5215).
///
/// - With `paused-replicas`, it alone decides (`paused` is not read): the ScaledObject is
///   paused once `status.pausedReplicaCount` is recorded. The scale executor
///   (`pkg/scaling/executor/scale_scaledobjects.go`) records it after scaling the target to the
///   count, read by `GetPausedReplicaCount` with `strconv.ParseInt(value, 10, 32)`. A count it
///   reaches (an `int32`, 0 or more) pauses: a manifest has no status yet and is taken where
///   KEDA brings it. A value that does not parse (`"three"`, `" 3"`, `"3000000000"`) or a
///   negative count (the scale subresource refuses it) is never recorded: no pause, and
///   `newHPAForScaledObject` fails on it, so KEDA neither builds nor updates its HPA. A status
///   that already records a count (a live object whose annotation was changed since) keeps it
///   paused.
/// - Else `paused` pauses unless Go's `strconv.ParseBool` reads its value as false (`0`, `f`,
///   `F`, `false`, `False`, `FALSE`): a value that is no boolean (`"yes"`, `""`) pauses too.
///
/// Paused, `reconcileScaledObject` stops the scale loop and deletes the HPA
/// (`ensureHPAForScaledObjectIsDeleted`). `paused-scale-in` and `paused-scale-out` keep the HPA
/// (its behavior disables one direction): they are not a pause here.
fn keda_pause(paused_replicas: Option<&str>, paused: Option<&str>, recorded: bool) -> KedaPause {
    if let Some(count) = paused_replicas {
        let written = format!("{KEDA_PAUSED_REPLICAS}: {}", crate::go::quote(count));
        // Rust's `i32` parse reads what `strconv.ParseInt(s, 10, 32)` reads: an optional sign,
        // then decimal digits, in range.
        return match count.parse::<i32>() {
            _ if recorded => KedaPause::Paused(written),
            Ok(n) if n >= 0 => KedaPause::Paused(written),
            Ok(_) => KedaPause::Refused(format!("{written} is negative, a count KEDA cannot scale the target to")),
            Err(_) => {
                KedaPause::Refused(format!("{written} is not a replica count (KEDA reads it with strconv.ParseInt)"))
            }
        };
    }
    let Some(value) = paused else { return KedaPause::None };
    let false_ = matches!(value, "0" | "f" | "F" | "false" | "False" | "FALSE");
    if false_ { KedaPause::None } else { KedaPause::Paused(format!("{KEDA_PAUSED}: {}", crate::go::quote(value))) }
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
        let s = selector_from_json(
            &json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}),
        );
        let mut labels = BTreeMap::new();
        labels.insert("app".to_string(), "web".to_string());
        assert!(!s.matches(&labels));
        labels.insert("tier".to_string(), "b".to_string());
        assert!(s.matches(&labels));
    }

    /// A null or absent selector selects no pod; `{}` every pod in policy/v1, none in v1beta1.
    #[test]
    fn pdb_selectors_as_the_disruption_controller_reads_them() {
        let labels = BTreeMap::from([("app".to_string(), "web".to_string())]);
        let selects = |api_version: &str, spec: Value| {
            let id = ObjectId { api_version: api_version.into(), ..ObjectId::default() };
            pdb_from_json(id, &json!({"spec": spec})).selects(&labels)
        };
        assert!(!selects("policy/v1", json!({"maxUnavailable": 0})));
        assert!(!selects("policy/v1", json!({"maxUnavailable": 0, "selector": null})));
        assert!(selects("policy/v1", json!({"selector": {}})));
        assert!(selects("policy/v1", json!({"selector": {"matchLabels": {"app": "web"}}})));
        assert!(!selects("policy/v1", json!({"selector": {"matchLabels": {"app": "api"}}})));
        assert!(!selects("policy/v1beta1", json!({"selector": {}})));
        assert!(!selects("policy/v1beta1", json!({})));
        assert!(selects("policy/v1beta1", json!({"selector": {"matchLabels": {"app": "web"}}})));
    }

    #[test]
    fn pdb_percentages() {
        assert_eq!(IntOrPercent::from_json(&json!("50%")).unwrap().scaled(3, true), 2);
        assert_eq!(IntOrPercent::from_json(&json!("50%")).unwrap().scaled(3, false), 1);
        assert_eq!(IntOrPercent::from_json(&json!(2)).unwrap().scaled(3, true), 2);
    }

    fn template(spec: Value) -> Workload {
        workload_from_json(ObjectId::default(), &json!({"spec": {"template": {"spec": spec}}}))
    }

    /// The resources a container of the admitted pod requests, of those named.
    fn requested<'a>(pod: &AdmittedPod<'_>, c: &TemplateContainer, of: &[&'a str]) -> Vec<&'a str> {
        of.iter().copied().filter(|r| pod.container_request(c, r).is_some()).collect()
    }

    /// `SetDefaults_Pod`: a request comes from the limit of the same resource only.
    #[test]
    fn requests_default_to_limits_per_resource() {
        let w = template(json!({"containers": [
            {"name": "a", "resources": {"limits": {"memory": "1Gi"}}},
            {"name": "b", "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "1", "memory": "1Gi"}}},
        ]}));
        let pod = AdmittedPod::new(&w, &[], true);
        assert_eq!(requested(&pod, &w.containers[0], &["cpu", "memory"]), ["memory"]);
        assert_eq!(pod.container_request(&w.containers[1], "cpu").map(Quantity::milli_value), Some(100));
        assert_eq!(pod.container_request(&w.containers[1], "memory").map(Quantity::value), Some(1 << 30));
        assert!(!pod.pod_level_requests_set());
    }

    /// `ValidateLimitRange` on the items as defaulted, in its words and order: a LimitRange it
    /// refuses is never stored, and LimitRanger gives no pod anything from it.
    #[test]
    fn limit_ranges_kube_apiserver_refuses_give_nothing() {
        let refusal = |limits: Value| {
            let range = limit_range_from_json(ObjectId::default(), &json!({"spec": {"limits": limits}}));
            range.refusal.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        // Compared after defaulting: `default` from `max`, `defaultRequest` from `default`.
        assert_eq!(
            refusal(json!([{"type": "Container", "defaultRequest": {"cpu": "100m"}, "max": {"cpu": "50m"}}])),
            [
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"100m\": default request value 100m is greater than max value 50m",
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"100m\": default request value 100m is greater than default limit value 50m",
            ]
        );
        assert_eq!(
            refusal(json!([{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}])),
            [
                "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1",
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"1\": min value 2 is greater than default request value 1",
                "spec.limits[0].default[cpu]: Invalid value: \"2\": min value 2 is greater than default value 1",
            ]
        );
        assert_eq!(
            refusal(json!([
                {"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}},
                {"type": "Container", "min": {"memory": "1Gi"}, "max": {"memory": "2Gi"}, "maxLimitRequestRatio": {"memory": "3"}},
                {"type": "Pod", "default": {"cpu": "1"}},
                {"type": "Container", "default": {"nvidia.com/gpu": "2"}, "defaultRequest": {"nvidia.com/gpu": "1"}},
            ])),
            [
                "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m is less than 1",
                "spec.limits[1].type: Duplicate value: \"Container\"",
                "spec.limits[1].maxLimitRequestRatio[memory]: Invalid value: \"3\": ratio 3 is greater than max/min = 2.000000",
                "spec.limits[2].default: Forbidden: may not be specified when `type` is 'Pod'",
                "spec.limits[3].type: Duplicate value: \"Container\"",
                "spec.limits[3].defaultRequest[nvidia.com/gpu]: Invalid value: \"1\": default value 2 must equal to defaultRequest value 1 in nvidia.com/gpu",
            ]
        );
        // 1.33 prints each quantity with `%#v`, its canonical form cached by the message's `String()`.
        let range = limit_range_from_json(
            ObjectId::default(),
            &json!({"spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "0.5"}, "default": {"cpu": "200m"}}]}}),
        );
        let mut e = range.refusal[0].clone();
        e.rendering = crate::field::ValueRendering::GoReflect;
        assert_eq!(
            e.to_string(),
            "spec.limits[0].defaultRequest[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"500m\", Format:\"DecimalSI\"}: default request value 500m is greater than default limit value 200m"
        );
        // Decoding first, in the order kubectl sends the keys: a quantity that does not parse
        // stops it, before a list of the wrong type met earlier.
        let undecodable = |limits: Value| {
            let range = limit_range_from_json(
                ObjectId { api_version: "v1".into(), kind: "LimitRange".into(), ..ObjectId::default() },
                &json!({"spec": {"limits": limits}}),
            );
            assert!(!range.stored());
            range.undecodable.map(|u| (u.field, u.message))
        };
        let parse = "LimitRange in version \"v1\" cannot be handled as a LimitRange: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
        assert_eq!(
            undecodable(json!([{"type": "Container", "max": [1], "min": {"memory": "x", "cpu": "y"}}])),
            Some(("spec.limits[0].min[cpu]".to_string(), parse.to_string()))
        );
        assert_eq!(
            undecodable(json!([{"type": "Container", "max": [1], "default": true}])),
            Some((
                "spec.limits[0].default".to_string(),
                "LimitRange in version \"v1\" cannot be handled as a LimitRange: json: cannot unmarshal bool into Go struct field LimitRangeItem.spec.limits.default of type v1.ResourceList".to_string()
            ))
        );
        // A refused LimitRange is never stored: LimitRanger gives nothing from it.
        let w = template(json!({"containers": [{"name": "a"}]}));
        let ranges = [range];
        let pod = AdmittedPod::new(&w, &ranges, true);
        assert_eq!(pod.container_request(&w.containers[0], "cpu"), None);
        assert!(pod.container_requests(&w.containers[0]).is_empty());
    }

    /// `SetDefaults_LimitRangeItem` then LimitRanger: defaultRequest, else default, else max,
    /// else min; `Container` items only, for containers and init containers alike.
    #[test]
    fn limit_ranges_fill_missing_requests() {
        let range = limit_range_from_json(
            ObjectId::default(),
            &json!({"spec": {"limits": [
                {"type": "Pod", "max": {"ephemeral-storage": "1Gi"}},
                {"type": "Container", "max": {"memory": "2Gi"}, "min": {"nvidia.com/gpu": "1"},
                 "default": {"cpu": "500m"}, "defaultRequest": {"memory": "256Mi"}},
            ]}}),
        );
        assert_eq!(range.refusal, []);
        let keys = |m: &BTreeMap<String, Quantity>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&range.limits[1].default), ["cpu", "memory"]);
        assert_eq!(keys(&range.limits[1].default_request), ["cpu", "memory", "nvidia.com/gpu"]);
        assert!(range.limits[0].default_request.is_empty(), "a Pod item defaults nothing");
        let w = template(json!({
            "initContainers": [{"name": "init"}],
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
        }));
        let ranges = [range];
        let pod = AdmittedPod::new(&w, &ranges, true);
        let all = ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage"];
        assert_eq!(requested(&pod, &w.containers[0], &all), ["cpu", "memory", "nvidia.com/gpu"]);
        assert_eq!(pod.container_request(&w.containers[0], "cpu").map(Quantity::milli_value), Some(1000));
        let memory = pod.container_request(&w.containers[0], "memory").map(Quantity::value);
        assert_eq!(memory, Some(256 << 20), "the written defaultRequest, not the max");
        assert_eq!(requested(&pod, &w.init_containers[0], &all), ["cpu", "memory", "nvidia.com/gpu"]);
    }

    /// `defaultPodRequests`: only with pod-level limits; from the containers' aggregate for cpu
    /// and memory, else from the pod-level limit.
    #[test]
    fn pod_level_requests_default_from_limits_and_containers() {
        let w = template(json!({
            "resources": {"limits": {"cpu": "2", "memory": "2Gi"}},
            "containers": [{"name": "a", "resources": {"requests": {"memory": "1Gi"}}}, {"name": "b"}],
        }));
        let pod = AdmittedPod::new(&w, &[], true);
        assert_eq!(pod.pod_level_request("cpu"), Some(2000), "from the pod-level limit");
        assert_eq!(pod.pod_level_request("memory"), Some(1000 << 30), "from the containers' aggregate");
        assert!(pod.pod_level_requests_set());
        let gate_off = AdmittedPod::new(&w, &[], false);
        assert!(!gate_off.pod_level_requests_set(), "not without PodLevelResources");
        assert_eq!(gate_off.pod_level_request("cpu"), None);
        let no_limits = template(json!({"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}));
        assert!(!AdmittedPod::new(&no_limits, &[], true).pod_level_requests_set());
    }

    /// `AggregateContainerRequests` and `PodRequests`: containers and sidecars add up; a plain
    /// init container, with the sidecars started before it, is a floor.
    #[test]
    fn pod_requests_follow_the_sidecar_formula() {
        let w = template(json!({
            "initContainers": [
                {"name": "s1", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
                {"name": "init", "resources": {"requests": {"cpu": "2", "memory": "64Mi"}}},
                {"name": "s2", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m"}}},
            ],
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m"}}}],
        }));
        let pod = AdmittedPod::new(&w, &[], true);
        // max(500m + 100m + 200m, 100m + 2) = 2100m; memory only from the init container.
        assert_eq!(pod.pod_requests("cpu"), Some(2100));
        assert_eq!(pod.pod_requests("memory"), Some(64 * 1024 * 1024 * 1000));
        assert_eq!(pod.pod_requests("ephemeral-storage"), None);
        let with_pod_level = template(json!({
            "resources": {"requests": {"cpu": "3", "ephemeral-storage": "1Gi"}},
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
        }));
        let pod = AdmittedPod::new(&with_pod_level, &[], true);
        assert_eq!(pod.pod_requests("cpu"), Some(3000), "the pod-level request wins");
        assert_eq!(pod.pod_requests("memory"), Some(1000 * (1 << 30)), "the containers' aggregate otherwise");
        assert_eq!(pod.pod_requests("ephemeral-storage"), None, "not a pod-level resource");
    }

    /// Objects are identified by API group, kind, namespace and name; a ScaledObject's target
    /// group defaults to `apps` (KEDA's `ParseGVKR`), a VPA's well-known controller kinds are
    /// the built-in ones whatever group they write (`controllerFetcher.isWellKnown`).
    #[test]
    fn targets_and_objects_are_identified_by_api_group() {
        let id = |api_version: &str, kind: &str| ObjectId {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: "shop".into(),
            name: "x".into(),
        };
        assert!(id("apps/v1beta2", "Deployment").same_object(&id("apps/v1", "Deployment")));
        assert!(id("extensions/v1beta1", "Deployment").same_object(&id("apps/v1", "Deployment")));
        assert!(!id("a.example.com/v1", "Foo").same_object(&id("b.example.com/v1", "Foo")));
        assert!(id("a.example.com/v1", "Foo").same_object(&id("a.example.com/v2", "Foo")));
        assert!(id("core/v1", "ReplicationController").same_object(&id("v1", "ReplicationController")));
        assert_eq!(id("a.example.com/v1", "Foo").group(), "a.example.com");
        let so =
            |target: Value| scaled_object_from_json(ObjectId::default(), &json!({"spec": {"scaleTargetRef": target}}));
        assert_eq!(so(json!({"name": "db", "kind": "StatefulSet"})).target_group, "apps");
        assert_eq!(
            so(json!({"name": "x", "apiVersion": "a.example.com/v1", "kind": "Foo"})).target_group,
            "a.example.com"
        );
        let vpa = |target: Value| vpa_from_json(ObjectId::default(), &json!({"spec": {"targetRef": target}}));
        assert_eq!(vpa(json!({"kind": "Deployment", "name": "web"})).target_group, "apps");
        assert_eq!(
            vpa(json!({"apiVersion": "example.com/v1", "kind": "StatefulSet", "name": "db"})).target_group,
            "apps"
        );
        assert_eq!(
            vpa(json!({"apiVersion": "b.example.com/v1", "kind": "Foo", "name": "x"})).target_group,
            "b.example.com"
        );
    }

    /// KEDA's `getHPAName` and `SetControllerReference`: the ScaledObject's own HPA is the one it
    /// controls (keda.sh group, controller), or the one it adopts by name.
    #[test]
    fn a_scaled_object_controls_the_hpa_keda_makes_or_adopts() {
        let id =
            ObjectId { api_version: "keda.sh/v1alpha1".into(), kind: "ScaledObject".into(), ..ObjectId::default() };
        let so = scaled_object_from_json(ObjectId { name: "w".repeat(60), ..id.clone() }, &json!({"spec": {}}));
        assert_eq!(so.hpa_name, format!("keda-hpa-{}", "w".repeat(54)), "cut to 63");
        assert!(!so.adopts_hpa);
        let owner = |api_version: &str, name: &str, controller: Option<bool>| crate::api::meta::OwnerReference {
            api_version: api_version.into(),
            kind: "ScaledObject".into(),
            name: name.into(),
            uid: "u".into(),
            controller,
            block_owner_deletion: None,
        };
        let meta = |name: &str, refs: Vec<crate::api::meta::OwnerReference>| crate::api::meta::ObjectMeta {
            name: name.into(),
            owner_references: refs,
            ..Default::default()
        };
        let so = scaled_object_from_json(ObjectId { name: "kd".into(), ..id.clone() }, &json!({"spec": {}}));
        assert!(so.controls(&meta("anything", vec![owner("keda.sh/v1alpha1", "kd", Some(true))])));
        assert!(!so.controls(&meta("keda-hpa-kd", vec![owner("keda.sh/v1alpha1", "kd", None)])), "not controller");
        assert!(!so.controls(&meta("keda-hpa-kd", vec![owner("keda.sh/v1alpha1", "other", Some(true))])));
        assert!(!so.controls(&meta("keda-hpa-kd", vec![owner("example.com/v1", "kd", Some(true))])), "another group");
        assert!(!so.controls(&meta("keda-hpa-kd", vec![])), "the name alone is not enough");
        let adopting = scaled_object_from_json(
            ObjectId { name: "kd".into(), ..id },
            &json!({"metadata": {"annotations": {"scaledobject.keda.sh/transfer-hpa-ownership": "true"}},
                    "spec": {"advanced": {"horizontalPodAutoscalerConfig": {"name": "web"}}}}),
        );
        assert_eq!(adopting.hpa_name, "web");
        assert!(adopting.controls(&meta("web", vec![])));
        assert!(!adopting.controls(&meta("keda-hpa-kd", vec![])));
    }

    /// KEDA's `NeedToBePausedByAnnotation`: `paused-replicas` decides whatever `paused` says;
    /// `paused` pauses unless Go's `ParseBool` reads it as false (a value that is no boolean
    /// pauses).
    #[test]
    fn a_scaled_object_is_paused_as_keda_reads_its_annotations() {
        let paused = |annotations: Value| {
            scaled_object_from_json(ObjectId::default(), &json!({"metadata": {"annotations": annotations}, "spec": {}}))
                .paused
        };
        assert_eq!(paused(json!({})), None);
        assert_eq!(
            paused(json!({"autoscaling.keda.sh/paused": "true"})).as_deref(),
            Some("autoscaling.keda.sh/paused: \"true\"")
        );
        for yes in ["true", "1", "T", "TRUE", "yes", ""] {
            assert!(paused(json!({"autoscaling.keda.sh/paused": yes})).is_some(), "{yes:?}");
        }
        for no in ["false", "0", "f", "F", "False", "FALSE"] {
            assert_eq!(paused(json!({"autoscaling.keda.sh/paused": no})), None, "{no:?}");
        }
        assert_eq!(
            paused(json!({"autoscaling.keda.sh/paused": "false", "autoscaling.keda.sh/paused-replicas": "0"}))
                .as_deref(),
            Some("autoscaling.keda.sh/paused-replicas: \"0\"")
        );
        assert_eq!(paused(json!({"autoscaling.keda.sh/paused-scale-in": "true"})), None, "one direction: not paused");
    }

    /// `paused-replicas` pauses once KEDA records the count it scaled the target to
    /// (`status.pausedReplicaCount`): a count it can reach (`strconv.ParseInt(v, 10, 32)`, 0 or
    /// more) does, any other value never does, and then `paused` is not read either.
    #[test]
    fn paused_replicas_pauses_only_at_a_count_keda_reaches() {
        let read = |object: Value| scaled_object_from_json(ObjectId::default(), &object);
        let with = |annotations: Value| read(json!({"metadata": {"annotations": annotations}, "spec": {}}));
        for count in ["0", "3", "+3", "03", "-0", "2147483647"] {
            let so = with(json!({"autoscaling.keda.sh/paused-replicas": count}));
            assert_eq!(so.paused, Some(format!("autoscaling.keda.sh/paused-replicas: {count:?}")), "{count:?}");
            assert_eq!(so.pause_refused, None, "{count:?}");
        }
        for bad in ["three", "", " 3", "3 ", "3.0", "1e3", "0x10", "1_000", "2147483648", "-1", "-2147483648"] {
            let so = with(json!({"autoscaling.keda.sh/paused-replicas": bad, "autoscaling.keda.sh/paused": "true"}));
            assert_eq!(so.paused, None, "{bad:?}: not paused, and `paused` is not read");
            assert!(
                so.pause_refused
                    .as_deref()
                    .is_some_and(|w| w.starts_with(&format!("autoscaling.keda.sh/paused-replicas: {bad:?} is "))),
                "{bad:?}: {:?}",
                so.pause_refused
            );
        }
        assert_eq!(
            with(json!({"autoscaling.keda.sh/paused-replicas": "-1"})).pause_refused.as_deref(),
            Some("autoscaling.keda.sh/paused-replicas: \"-1\" is negative, a count KEDA cannot scale the target to")
        );
        assert_eq!(
            with(json!({"autoscaling.keda.sh/paused-replicas": "x"})).pause_refused.as_deref(),
            Some(
                "autoscaling.keda.sh/paused-replicas: \"x\" is not a replica count (KEDA reads it with strconv.ParseInt)"
            )
        );
        // A live object whose status records a count stays paused whatever the annotation says.
        let live = read(json!({
            "metadata": {"annotations": {"autoscaling.keda.sh/paused-replicas": "x"}},
            "spec": {},
            "status": {"pausedReplicaCount": 2},
        }));
        assert_eq!(live.paused.as_deref(), Some("autoscaling.keda.sh/paused-replicas: \"x\""));
        assert_eq!(live.pause_refused, None);
        // A recorded count without the annotation: KEDA clears it (`removePausedStatus`).
        let resumed = read(json!({"spec": {}, "status": {"pausedReplicaCount": 2}}));
        assert_eq!((resumed.paused, resumed.pause_refused), (None, None));
    }

    /// `stronger` of the VPA: the first created, then by name; without a creation time (a
    /// manifest set) by name.
    #[test]
    fn the_first_created_vpa_is_the_stronger() {
        let vpa = |name: &str, created: Option<&str>| {
            let id = ObjectId { name: name.into(), ..ObjectId::default() };
            vpa_from_json(id, &json!({"metadata": {"creationTimestamp": created}}))
        };
        let (early, late) = (vpa("web-b", Some("2026-01-01T10:00:00Z")), vpa("web-a", Some("2026-01-01T10:00:01Z")));
        assert!(early.stronger_than(&late) && !late.stronger_than(&early));
        let same = vpa("web-a", Some("2026-01-01T10:00:00Z"));
        assert!(same.stronger_than(&early) && !early.stronger_than(&same));
        let (a, b) = (vpa("web-a", None), vpa("web-b", None));
        assert!(a.stronger_than(&b) && !b.stronger_than(&a));
        assert_eq!(early.created.as_deref(), Some("2026-01-01T10:00:00Z"));
    }

    /// `GetContainerResourcePolicy`: the policy naming the container, else the last `*`, else
    /// the defaults (cpu and memory); `mode: "Off"` sizes nothing.
    #[test]
    fn a_vpa_resolves_a_policy_per_container() {
        let vpa = |policies: Value| {
            vpa_from_json(ObjectId::default(), &json!({"spec": {"resourcePolicy": {"containerPolicies": policies}}}))
        };
        let v = vpa(json!([
            {"containerName": "app", "controlledResources": ["memory"]},
            {"containerName": "*", "controlledResources": ["cpu"]},
            {"containerName": "app", "mode": "Off"},
            {"containerName": "*", "mode": "Off"},
        ]));
        assert!(v.sets_request("app", "memory") && !v.sets_request("app", "cpu"), "the first exact match");
        assert!(!v.sets_request("envoy", "cpu"), "the last * policy");
        assert!(v.may_set_request("memory") && !v.may_set_request("cpu"));
        let v = vpa(json!([{"containerName": "envoy", "mode": "Off"}]));
        assert!(v.sets_request("app", "cpu") && v.sets_request("app", "memory") && !v.sets_request("envoy", "cpu"));
        assert!(!v.may_set_request("cpu"), "unnamed containers are not assumed");
        let v = vpa(json!([{"containerName": "*", "controlledResources": []}]));
        assert!(!v.may_set_request("cpu") && !v.sets_request("app", "memory"));
        let v = vpa_from_json(ObjectId::default(), &json!({"spec": {}}));
        assert!(
            v.may_set_request("cpu") && v.sets_request("any", "memory") && !v.sets_request("any", "nvidia.com/gpu")
        );
    }

    #[test]
    fn kinds_without_namespaces() {
        assert!(is_cluster_scoped("rbac.authorization.k8s.io/v1", "ClusterRole"));
        let generated = ObjectId::generated("autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web-", "0.1.0");
        assert_eq!(generated.generate_name(), Some("web-"));
        assert_eq!(generated.written_name(), "");
        assert_eq!(generated.describe_name("an HPA"), "an HPA with generateName web-");
        assert_eq!(generated.to_string(), "HorizontalPodAutoscaler shop/web-*");
        let unnamed = ObjectId { name: String::new(), ..generated.clone() };
        assert_eq!(unnamed.describe_name("an HPA"), "an HPA without a name");
        let named = ObjectId { name: "web".into(), ..generated };
        assert_eq!((named.generate_name(), named.describe_name("an HPA").as_str()), (None, "web"));
        assert!(is_cluster_scoped("v1", "Namespace"));
        assert!(is_cluster_scoped("gateway.networking.k8s.io/v1", "GatewayClass"));
        assert!(!is_cluster_scoped("gateway.networking.k8s.io/v1", "Gateway"), "a Gateway has a namespace");
        assert!(is_cluster_scoped("crd.projectcalico.org/v1", "GlobalNetworkPolicy"));
        assert!(!is_cluster_scoped("crd.projectcalico.org/v1", "NetworkPolicy"));
        assert!(is_cluster_scoped("core/v1", "Namespace"), "the legacy group, spelled core");
        assert!(!is_cluster_scoped("core/v1", "ConfigMap"));
        assert!(is_cluster_scoped("constraints.gatekeeper.sh/v1beta1", "K8sRequiredLabels"));
        assert!(!is_cluster_scoped("rbac.authorization.k8s.io/v1", "Role"));
        assert!(!is_cluster_scoped("example.com/v1", "Namespace"), "another group's kind");
        let mut id = ObjectId {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            namespace: String::new(),
            name: "shop".into(),
        };
        assert_eq!(id.to_string(), "Namespace shop");
        assert!(!id.namespaced());
        id.kind = "ConfigMap".into();
        id.namespace = "shop".into();
        assert_eq!(id.to_string(), "ConfigMap shop/shop");
    }

    #[test]
    fn rollouts_name_the_workload_of_their_template() {
        let w = workload_from_json(
            ObjectId::default(),
            &json!({"spec": {"workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}}),
        );
        let r = w.workload_ref.unwrap_or_default();
        assert_eq!((r.api_version.as_str(), r.kind.as_str(), r.name.as_str()), ("apps/v1", "Deployment", "web"));
        assert_eq!(r.refused, None);
        let refused = |spec: Value| {
            workload_from_json(ObjectId::default(), &json!({"spec": spec})).workload_ref.unwrap_or_default().refused
        };
        let sts = json!({"workloadRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web"}});
        assert_eq!(refused(sts).as_deref(), Some("workload of type apps/StatefulSet is not supported"));
        let pod_template = json!({"workloadRef": {"apiVersion": "v1", "kind": "PodTemplate", "name": "web"}});
        assert_eq!(refused(pod_template), None);
        let both = json!({"template": {"metadata": {"labels": {"app": "web"}}},
                          "workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}});
        assert_eq!(refused(both).as_deref(), Some("template must be empty for workload reference rollout"));
        // `EmptyTemplate` reads the template's labels and annotations only.
        let containers_only = json!({"template": {"spec": {"containers": [{"name": "web"}]}},
                                     "workloadRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}});
        assert_eq!(refused(containers_only), None);
    }

    /// A `v1` PodTemplate's template is at the top level; another kind's at `spec.template`.
    #[test]
    fn a_pod_template_holds_its_template_at_the_top_level() {
        let v = json!({"template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]}}});
        let id = |api_version: &str, kind: &str| ObjectId {
            api_version: api_version.into(),
            kind: kind.into(),
            ..ObjectId::default()
        };
        let w = workload_from_json(id("v1", "PodTemplate"), &v);
        assert_eq!(w.containers.len(), 1);
        assert_eq!(w.containers[0].requests["cpu"].milli_value(), 100);
        assert_eq!(w.pod_labels.get("app").map(String::as_str), Some("web"));
        assert_eq!(w.pod_spec_path, "template.spec");
        let other = workload_from_json(id("example.com/v1", "PodTemplate"), &v);
        assert!(other.containers.is_empty(), "only the core kind");
    }

    /// Kubernetes' own workloads, Argo Rollouts and OpenShift DeploymentConfigs make their pods
    /// from their template; a custom resource's pods are its operator's: not guessed, neither
    /// its template nor its selector.
    #[test]
    fn only_known_kinds_make_pods_from_their_template() {
        let id = |api_version: &str, kind: &str, name: &str| ObjectId {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            ..ObjectId::default()
        };
        let v = json!({"spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "app"}]}}}});
        for (api_version, kind) in [
            ("apps/v1", "Deployment"),
            ("apps/v1", "StatefulSet"),
            ("apps/v1", "DaemonSet"),
            ("v1", "ReplicationController"),
            ("batch/v1", "Job"),
            ("argoproj.io/v1alpha1", "Rollout"),
            ("apps.openshift.io/v1", "DeploymentConfig"),
        ] {
            assert!(workload_from_json(id(api_version, kind, "a"), &v).pods_known(), "{kind}");
        }
        for (api_version, kind) in
            [("apps.kruise.io/v1alpha1", "CloneSet"), ("example.com/v1", "Deployment"), ("apps/v1", "Worker")]
        {
            assert!(!workload_from_json(id(api_version, kind, "a"), &v).pods_known(), "{api_version} {kind}");
        }
        use crate::rules::index::{IndexedObject, ObjectIndex};
        let mut index: ObjectIndex = ObjectIndex::default();
        index.insert(IndexedObject::Workload(workload_from_json(id("example.com/v1", "Worker", "a"), &v)));
        index.insert(IndexedObject::Workload(workload_from_json(id("apps/v1", "Deployment", "b"), &v)));
        let worker = index.workload("example.com", "Worker", "default", "a").unwrap();
        let deployment = index.workload("apps", "Deployment", "default", "b").unwrap();
        assert!(index.pod_template_of(worker).is_none());
        assert!(index.pod_template_of(deployment).is_some());
        assert!(!pods_overlap(&index, worker, deployment));
        assert!(index.workloads_sharing_pods(deployment).is_empty());
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
