//! The test API server's storage: resources it serves, objects stored generically by
//! (group, resource, namespace, name) as JSON, a monotonic resourceVersion, the event history
//! watches replay, and compaction.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// A resource the server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// API group (`""`: core).
    pub group: String,
    /// Versions served (the first is preferred).
    pub versions: Vec<String>,
    /// Kind.
    pub kind: String,
    /// Plural name.
    pub plural: String,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Served by a CRD (list items keep `apiVersion` and `kind`, as unstructured objects do).
    pub custom: bool,
    /// Has a `scale` subresource; the JSON paths of its spec replicas, status replicas and
    /// selector (`None`: the selector is `spec.selector` formatted, as built-ins do).
    pub scale: Option<ScalePaths>,
    /// Read-only (metrics APIs): no `create`/`watch` verbs.
    pub read_only: bool,
}

/// Where a scale subresource reads its fields (a CRD's `subresources.scale`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScalePaths {
    /// `statusReplicasPath` without the leading dot, split.
    pub status_replicas: Vec<String>,
    /// `labelSelectorPath`, split; `None`: format `spec.selector`.
    pub selector: Option<Vec<String>>,
}

impl Resource {
    fn new(group: &str, versions: &[&str], kind: &str, plural: &str, namespaced: bool) -> Resource {
        Resource {
            group: group.into(),
            versions: versions.iter().map(|v| (*v).to_string()).collect(),
            kind: kind.into(),
            plural: plural.into(),
            namespaced,
            custom: false,
            scale: None,
            read_only: false,
        }
    }

    fn with_scale(mut self) -> Resource {
        self.scale = Some(ScalePaths { status_replicas: vec!["status".into(), "replicas".into()], selector: None });
        self
    }

    /// `plural.group`, as RBAC messages name it.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() { self.plural.clone() } else { format!("{}.{}", self.plural, self.group) }
    }

    /// `group/version` of a served version.
    pub fn api_version(&self, version: &str) -> String {
        if self.group.is_empty() { version.to_string() } else { format!("{}/{version}", self.group) }
    }
}

/// The built-in resources every server serves.
pub fn builtin() -> Vec<Resource> {
    vec![
        Resource::new("", &["v1"], "Pod", "pods", true),
        Resource::new("", &["v1"], "Event", "events", true),
        Resource::new("", &["v1"], "LimitRange", "limitranges", true),
        Resource::new("", &["v1"], "Namespace", "namespaces", false),
        Resource::new("", &["v1"], "ReplicationController", "replicationcontrollers", true).with_scale(),
        Resource::new("apps", &["v1"], "Deployment", "deployments", true).with_scale(),
        Resource::new("apps", &["v1"], "StatefulSet", "statefulsets", true).with_scale(),
        Resource::new("apps", &["v1"], "ReplicaSet", "replicasets", true).with_scale(),
        Resource::new("autoscaling", &["v2", "v1"], "HorizontalPodAutoscaler", "horizontalpodautoscalers", true),
        Resource::new("policy", &["v1"], "PodDisruptionBudget", "poddisruptionbudgets", true),
        Resource::new("node.k8s.io", &["v1"], "RuntimeClass", "runtimeclasses", false),
        Resource::new("apiextensions.k8s.io", &["v1"], "CustomResourceDefinition", "customresourcedefinitions", false),
    ]
}

/// The CRDs and aggregated APIs a test may install.
pub fn optional(name: &str) -> Option<Resource> {
    let crd = |group: &str, version: &str, kind: &str, plural: &str| {
        let mut r = Resource::new(group, &[version], kind, plural, true);
        r.custom = true;
        r
    };
    Some(match name {
        "rollouts" => {
            let mut r = crd("argoproj.io", "v1alpha1", "Rollout", "rollouts");
            // The Rollout CRD's `subresources.scale`.
            r.scale = Some(ScalePaths {
                status_replicas: vec!["status".into(), "HPAReplicas".into()],
                selector: Some(vec!["status".into(), "selector".into()]),
            });
            r
        }
        // A CRD of no product the toolkit knows, with a scale subresource (`specReplicasPath
        // .spec.replicas`, `statusReplicasPath .status.replicas`, `labelSelectorPath
        // .status.selector`): any resource with `/scale` is a scale target.
        "widgets" => {
            let mut r = crd("example.com", "v1", "Widget", "widgets");
            r.scale = Some(ScalePaths {
                status_replicas: vec!["status".into(), "replicas".into()],
                selector: Some(vec!["status".into(), "selector".into()]),
            });
            r
        }
        // A CRD whose scale subresource keeps the count elsewhere (`specReplicasPath
        // .spec.size`): read with GET, as `hpa-lint cluster` reads a target no table holds.
        "workerpools" => crd("example.com", "v1", "WorkerPool", "workerpools"),
        // The fixtures' CRD without a scale subresource: served, as kube-apiserver serves every
        // installed CRD, so discovery maps its kind and a `GET` of a missing one answers 404.
        "gadgets" => crd("example.com", "v1", "Gadget", "gadgets"),
        // A cluster-scoped CRD with a scale subresource (`scope: Cluster`): its objects have no
        // namespace, and a namespaced path to one is not served (404), as kube-apiserver's
        // `crdHandler` passes such a request on to its not-found handler.
        "fleets" => {
            let mut r = Resource::new("example.com", &["v1"], "Fleet", "fleets", false);
            r.custom = true;
            r.scale = Some(ScalePaths {
                status_replicas: vec!["status".into(), "replicas".into()],
                selector: Some(vec!["status".into(), "selector".into()]),
            });
            r
        }
        // The same served at v2 too, v2 preferred: the HPA controller's RESTMapper reads it there,
        // whatever version an HPA names.
        "workerpools-v2" => {
            let mut r = Resource::new("example.com", &["v2", "v1"], "WorkerPool", "workerpools", true);
            r.custom = true;
            r
        }
        // The custom and external metrics APIs' groups, for discovery (adapters list their
        // metrics as resources); answers are served with `TestApiServer::serve_raw`.
        "externalmetrics" => {
            let mut r =
                Resource::new("external.metrics.k8s.io", &["v1beta1"], "ExternalMetricValueList", "queue_depth", true);
            r.read_only = true;
            r
        }
        "custommetrics" => {
            let mut r =
                Resource::new("custom.metrics.k8s.io", &["v1beta2"], "MetricValueList", "pods/http_requests", true);
            r.read_only = true;
            r
        }
        // An adapter that serves only the older custom metrics version (`metricName`,
        // `window`, `selector` in its items).
        "custommetrics-v1beta1" => {
            let mut r =
                Resource::new("custom.metrics.k8s.io", &["v1beta1"], "MetricValueList", "pods/http_requests", true);
            r.read_only = true;
            r
        }
        "verticalpodautoscalers" => crd("autoscaling.k8s.io", "v1", "VerticalPodAutoscaler", "verticalpodautoscalers"),
        "scaledobjects" => crd("keda.sh", "v1alpha1", "ScaledObject", "scaledobjects"),
        // What a Helm chart's `lookup` reads on an upgrade (hpa-webhook's self-signed
        // certificate: the Secret it keeps, the webhook configuration's CA it trusts on rotation).
        "secrets" => Resource::new("", &["v1"], "Secret", "secrets", true),
        "validatingwebhookconfigurations" => Resource::new(
            "admissionregistration.k8s.io",
            &["v1"],
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            false,
        ),
        "podmetrics" => {
            let mut r = Resource::new("metrics.k8s.io", &["v1beta1"], "PodMetrics", "pods", true);
            r.read_only = true;
            r
        }
        // A metrics server that serves v1 (preferred) beside v1beta1.
        "podmetrics-v1" => {
            let mut r = Resource::new("metrics.k8s.io", &["v1", "v1beta1"], "PodMetrics", "pods", true);
            r.read_only = true;
            r
        }
        // One that serves only the old v1alpha1.
        "podmetrics-v1alpha1" => {
            let mut r = Resource::new("metrics.k8s.io", &["v1alpha1"], "PodMetrics", "pods", true);
            r.read_only = true;
            r
        }
        _ => return None,
    })
}

/// One change, as watches deliver it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The resourceVersion it produced.
    pub rv: u64,
    /// `ADDED`, `MODIFIED`, `DELETED`.
    pub type_: &'static str,
    /// Which resource (index into `resources`).
    pub resource: usize,
    /// The object after the change (before it, for DELETED, with the new resourceVersion).
    pub object: Value,
}

/// The objects of one resource (its collection), by (namespace, name): the order of etcd keys.
pub type Collection = BTreeMap<(String, String), Value>;

/// The store.
#[derive(Debug, Default)]
pub struct Store {
    /// Served resources.
    pub resources: Vec<Resource>,
    /// Objects, per resource index.
    pub objects: Vec<Collection>,
    /// The last resourceVersion handed out.
    pub rv: u64,
    /// Changes after the last compaction.
    pub history: Vec<Change>,
    /// Everything at or below this resourceVersion is compacted (watches and continue tokens
    /// from before it get 410 Gone).
    pub compacted: u64,
    uid_counter: u64,
    /// The manifest each manager sent last, per object (by resource, namespace, name, manager):
    /// what Helm keeps in its release for its next three-way merge.
    pub sent: BTreeMap<(usize, String, String, String), Value>,
}

impl Store {
    /// A store serving the built-in resources.
    pub fn new() -> Store {
        let resources = builtin();
        let objects = resources.iter().map(|_| Collection::new()).collect();
        Store { resources, objects, rv: 1000, ..Store::default() }
    }

    /// Serves one more resource (again, after [`Store::uninstall`]).
    pub fn install(&mut self, resource: Resource) {
        match self.resource(&resource.group, &resource.plural) {
            Some(r) => self.resources[r] = resource,
            None => {
                self.resources.push(resource);
                self.objects.push(Collection::new());
            }
        }
    }

    /// Stops serving a resource, as kube-apiserver stops serving a custom resource whose CRD is
    /// deleted: discovery no longer lists it, its requests answer 404 and its objects are gone.
    /// (It keeps its place, versionless, so that the positions of the others hold.)
    pub fn uninstall(&mut self, group: &str, plural: &str) {
        if let Some(r) = self.resource(group, plural) {
            self.resources[r].versions.clear();
            self.objects[r] = Collection::new();
        }
    }

    /// The resource of a group and plural.
    pub fn resource(&self, group: &str, plural: &str) -> Option<usize> {
        self.resources.iter().position(|r| r.group == group && r.plural == plural)
    }

    /// The resource of an object's `apiVersion` and `kind`.
    pub fn resource_of(&self, object: &Value) -> Option<usize> {
        let api_version = object.get("apiVersion")?.as_str()?;
        let kind = object.get("kind")?.as_str()?;
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        self.resources
            .iter()
            .position(|r| r.group == group && r.kind == kind && r.versions.iter().any(|v| v == version))
    }

    /// Creates or replaces an object as kube-apiserver stores it: namespace defaulted, uid,
    /// creationTimestamp and generation set once, a new resourceVersion, `spec.replicas`
    /// defaulted to 1 for scalable workloads (`SetDefaults_Deployment` and friends).
    pub fn put(&mut self, object: Value) -> Result<Value, String> {
        // HPAs are stored in their storage version, converted by kube-apiserver's rules.
        let mut object = if object.get("kind").and_then(Value::as_str) == Some("HorizontalPodAutoscaler") {
            convert_hpa(&object, hpa_core::api::ApiVersion::V2)?
        } else {
            object
        };
        let r = self.resource_of(&object).ok_or_else(|| format!("no resource serves {}", describe(&object)))?;
        let resource = self.resources[r].clone();
        let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            return Err("metadata.name is required".into());
        }
        let namespace = if resource.namespaced {
            let ns = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
            set(&mut object, &["metadata", "namespace"], Value::String(ns.clone()));
            ns
        } else {
            String::new()
        };
        let key = (namespace, name);
        let previous = self.objects[r].get(&key).cloned();
        self.rv += 1;
        let meta = object.get_mut("metadata").and_then(Value::as_object_mut).ok_or("metadata is not an object")?;
        match &previous {
            Some(p) => {
                for k in ["uid", "creationTimestamp"] {
                    if let Some(v) = p.pointer(&format!("/metadata/{k}")) {
                        meta.insert(k.into(), v.clone());
                    }
                }
                let generation = p.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(1);
                let spec_changed = p.get("spec") != object.get("spec");
                if let Some(m) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.insert("generation".into(), json!(if spec_changed { generation + 1 } else { generation }));
                }
            }
            None => {
                self.uid_counter += 1;
                meta.entry("uid")
                    .or_insert_with(|| json!(format!("5f0c1d2e-0000-4000-8000-{:012x}", self.uid_counter)));
                meta.entry("creationTimestamp").or_insert_with(|| json!("2026-03-02T09:14:05Z"));
                meta.entry("generation").or_insert(json!(1));
            }
        }
        set(&mut object, &["metadata", "resourceVersion"], json!(self.rv.to_string()));
        default_replicas(&resource, &mut object);
        let type_ = if previous.is_some() { "MODIFIED" } else { "ADDED" };
        self.objects[r].insert(key, object.clone());
        self.history.push(Change { rv: self.rv, type_, resource: r, object: object.clone() });
        Ok(object)
    }

    /// Writes `object` as `manager` does with `operation` (`Apply`: server-side apply; `Update`:
    /// a create, or a three-way merge patch from the manager's previous manifest: the live
    /// object's last-applied configuration for client-side `kubectl apply`, which writes it, the
    /// manifest it sent last for any other, as Helm keeps it in its release), recording who owns
    /// what as kube-apiserver does ([`super::managed`]).
    pub fn write_as(&mut self, object: &Value, manager: &str, operation: &str) -> Result<Value, String> {
        use super::managed::{self, Write};
        let r = self.resource_of(object).ok_or_else(|| format!("no resource serves {}", describe(object)))?;
        let resource = self.resources[r].clone();
        let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        let namespace = if resource.namespaced {
            object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string()
        } else {
            String::new()
        };
        let live = self.objects[r].get(&(namespace.clone(), name.clone())).cloned();
        let client_side = manager == managed::CLIENT_SIDE_APPLY && operation != "Apply";
        let sent = if client_side { managed::with_last_applied(object) } else { object.clone() };
        let sent_key = (r, namespace, name, manager.to_string());
        let previous =
            if client_side { live.as_ref().and_then(managed::last_applied) } else { self.sent.get(&sent_key).cloned() };
        let write = if operation == "Apply" { Write::Apply } else { Write::Update { previous: previous.as_ref() } };
        let mut new = managed::written(live.as_ref(), &sent, manager, write);
        default_replicas(&resource, &mut new);
        managed::record(live.as_ref(), &mut new, manager, write, &sent);
        self.sent.insert(sent_key, sent);
        self.put(new)
    }

    /// Deletes an object; `None` when absent.
    pub fn delete(&mut self, r: usize, namespace: &str, name: &str) -> Option<Value> {
        let mut object = self.objects[r].remove(&(namespace.to_string(), name.to_string()))?;
        self.rv += 1;
        set(&mut object, &["metadata", "resourceVersion"], json!(self.rv.to_string()));
        self.history.push(Change { rv: self.rv, type_: "DELETED", resource: r, object: object.clone() });
        Some(object)
    }

    /// Drops the history up to now, as etcd compaction does.
    pub fn compact(&mut self) {
        self.compacted = self.rv;
        self.history.clear();
    }

    /// A scale subresource of an object (`scaleFromDeployment` etc., or the CRD's paths).
    pub fn scale_of(&self, r: usize, object: &Value) -> Option<Value> {
        let paths = self.resources[r].scale.as_ref()?;
        let at = |path: &[String]| path.iter().try_fold(object, |v, k| v.get(k));
        let selector = match &paths.selector {
            Some(p) => at(p).and_then(Value::as_str).unwrap_or_default().to_string(),
            None => format_selector(object.pointer("/spec/selector")),
        };
        let meta = object.get("metadata")?;
        let mut m = Map::new();
        for k in ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] {
            if let Some(v) = meta.get(k) {
                m.insert(k.into(), v.clone());
            }
        }
        Some(json!({
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": m,
            "spec": {"replicas": object.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(0)},
            "status": {"replicas": at(&paths.status_replicas).and_then(Value::as_i64).unwrap_or(0), "selector": selector},
        }))
    }
}

/// An HPA in another version, converted as kube-apiserver converts it (hpa-core's conversion).
pub fn convert_hpa(object: &Value, to: hpa_core::api::ApiVersion) -> Result<Value, String> {
    let decoded = hpa_core::api::decode(object).map_err(|e| {
        format!("{}: {}", describe(object), e.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
    })?;
    let converted = hpa_core::convert::convert(&decoded, to).map_err(|e| e.to_string())?;
    Ok(converted.object.to_json())
}

/// `metav1.LabelSelectorAsSelector(s).String()` for a `LabelSelector` (or, for a
/// ReplicationController, a plain map), written here independently of the code under test.
pub fn format_selector(selector: Option<&Value>) -> String {
    let Some(Value::Object(s)) = selector else { return String::new() };
    let mut parts: Vec<(String, String)> = Vec::new();
    let plain = !s.contains_key("matchLabels") && !s.contains_key("matchExpressions");
    let labels = if plain { Some(s) } else { s.get("matchLabels").and_then(Value::as_object) };
    for (k, v) in labels.into_iter().flatten() {
        parts.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())));
    }
    for e in s.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
        let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
        let mut values: Vec<&str> =
            e.get("values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        let text = match e.get("operator").and_then(Value::as_str).unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            _ => format!("!{key}"),
        };
        parts.push((key.to_string(), text));
    }
    parts.sort_by(|a, b| a.0.cmp(&b.0));
    parts.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(",")
}

/// `spec.replicas` defaulted to 1 where kube-apiserver defaults it: the built-in scalable
/// workloads (`SetDefaults_Deployment`, `SetDefaults_StatefulSet`, `SetDefaults_ReplicaSet`,
/// `SetDefaults_ReplicationController`); a CRD (Argo Rollouts') declares no default.
pub fn default_replicas(resource: &Resource, object: &mut Value) {
    if resource.scale.is_some()
        && !resource.custom
        && object.pointer("/spec/replicas").is_none()
        && object.get("spec").is_some()
    {
        set(object, &["spec", "replicas"], json!(1));
    }
}

/// One requirement of a `fieldSelector` query as `fields.ParseSelector` reads it: the field,
/// whether the operator is `!=` (else `=` or `==`), and the value with its escapes undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTerm {
    /// The field (`metadata.name`), as written: kube-apiserver escapes nothing in it.
    pub field: String,
    /// `!=`.
    pub negated: bool,
    /// The value, unescaped (`\,`, `\=` and `\\` are `,`, `=` and `\`).
    pub value: String,
}

/// A `fieldSelector` query read as apimachinery's `fields.ParseSelector` reads it (kube-apiserver
/// decodes the list options with it, `Convert_string_To_fields_Selector`, and answers its error
/// as a 400 `BadRequest` with the error as the message): the terms split at each comma a
/// backslash does not escape (`splitTerms`), sorted, empty ones skipped, each split at the first
/// `!=`, `==` or `=` (`splitTerm`: `invalid selector: '<selector>'; can't understand '<term>'`
/// without one) and its value unescaped (`UnescapeValue`: `invalid field selector: invalid escape
/// sequence: \x`, and `invalid field selector: unescaped character in value: 61` for an `=`,
/// which Go prints as the rune's number).
pub fn parse_field_selector(selector: &str) -> Result<Vec<FieldTerm>, String> {
    let mut terms = split_terms(selector);
    terms.sort_unstable();
    let mut out = Vec::new();
    for term in terms.into_iter().filter(|t| !t.is_empty()) {
        let Some((field, negated, raw)) = split_term(term) else {
            return Err(format!("invalid selector: '{selector}'; can't understand '{term}'"));
        };
        out.push(FieldTerm { field: field.to_string(), negated, value: unescape_value(raw)? });
    }
    Ok(out)
}

/// `splitTerms`: `selector` split at each comma not escaped by a backslash (the backslash kept).
fn split_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let (mut terms, mut start, mut escaped) = (Vec::new(), 0, false);
    for (i, c) in selector.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push(&selector[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&selector[start..]);
    terms
}

/// `splitTerm`: the field, whether the operator is `!=`, and the raw value, split at the first
/// place one of `!=`, `==`, `=` (tried in that order) starts; `None` without one.
fn split_term(term: &str) -> Option<(&str, bool, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        [("!=", true), ("==", false), ("=", false)]
            .into_iter()
            .find(|(op, _)| rest.starts_with(op))
            .map(|(op, negated)| (&term[..i], negated, &rest[op.len()..]))
    })
}

/// `UnescapeValue`: `\\`, `\,` and `\=` are the character; another escape, a lone trailing
/// backslash or an unescaped `,` or `=` is an error in apimachinery's words.
fn unescape_value(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!("invalid field selector: invalid escape sequence: \\{c}"));
            }
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ',' | '=' => return Err(format!("invalid field selector: unescaped character in value: {}", u32::from(c))),
            _ => out.push(c),
        }
    }
    if escaped {
        return Err("invalid field selector: invalid escape sequence: \\".into());
    }
    Ok(out)
}

/// Why kube-apiserver refuses the `fieldSelector` query `selector` on `resource` (a 400
/// `BadRequest` with this message), or `None` when it selects on every field the query names.
/// The handler (`ListResource` in `apiserver/pkg/endpoints/handlers/get.go`) first parses the
/// query ([`parse_field_selector`]: its error), then hands each requirement, in the order the
/// parse sorted the terms, to the kind's field label conversion and refuses the first it does
/// not support: the built-in kinds' own functions
/// (`addConversionFuncs` and `AddFieldLabelConversionsFor*` in `pkg/apis/core/v1/conversion.go`:
/// `field label not supported: <label>`), a custom resource's (`ConvertFieldLabel` of
/// apiextensions-apiserver's CR converter: `metadata.name`, and `metadata.namespace` when it is
/// namespaced) and, for every other kind (Deployments, HPAs, ...),
/// `runtime.DefaultMetaV1FieldSelectorConversion`. (A Pod's legacy `spec.host`, which upstream
/// converts to `spec.nodeName`, is refused here.)
pub fn field_selector_error(resource: &Resource, selector: &str) -> Option<String> {
    match parse_field_selector(selector) {
        Ok(terms) => terms.iter().find_map(|t| field_label_error(resource, &t.field)),
        Err(message) => Some(message),
    }
}

/// The error of the field label conversion of `resource` for `label` (see
/// [`field_selector_error`]).
fn field_label_error(resource: &Resource, label: &str) -> Option<String> {
    let own: Option<&[&str]> = match (resource.group.as_str(), resource.kind.as_str()) {
        _ if resource.custom => {
            Some(if resource.namespaced { &["metadata.name", "metadata.namespace"] } else { &["metadata.name"] })
        }
        ("", "Pod") => Some(&[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ]),
        ("", "ReplicationController") => Some(&["metadata.name", "metadata.namespace", "status.replicas"]),
        ("", "Event") => Some(&[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
            "metadata.namespace",
            "metadata.name",
        ]),
        ("", "Namespace") => Some(&["status.phase", "metadata.name"]),
        _ => None,
    };
    match own {
        Some(labels) if labels.contains(&label) => None,
        Some(_) => Some(format!("field label not supported: {label}")),
        None if matches!(label, "metadata.name" | "metadata.namespace") => None,
        None => {
            Some(format!("{label:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""))
        }
    }
}

/// Whether an object satisfies a `fieldSelector` query (`a.b=c`, `a.b==c`, `a.b!=c`, values
/// escaped as [`parse_field_selector`] reads them); a query that does not parse selects nothing
/// (the handlers refuse it first: [`field_selector_error`]).
pub fn fields_match(object: &Value, selector: &str) -> bool {
    let Ok(terms) = parse_field_selector(selector) else { return false };
    terms.iter().all(|t| {
        let pointer = format!("/{}", t.field.replace('.', "/"));
        let actual = object.pointer(&pointer).and_then(Value::as_str).unwrap_or_default();
        (actual == t.value) != t.negated
    })
}

/// Sets a nested field, creating objects on the way.
pub fn set(object: &mut Value, path: &[&str], value: Value) {
    let mut current = object;
    for (i, key) in path.iter().enumerate() {
        if !current.is_object() {
            *current = Value::Object(Map::new());
        }
        let Value::Object(m) = current else { return };
        if i + 1 == path.len() {
            m.insert((*key).to_string(), value);
            return;
        }
        current = m.entry((*key).to_string()).or_insert_with(|| Value::Object(Map::new()));
    }
}

/// `Kind namespace/name`, for messages.
pub fn describe(object: &Value) -> String {
    format!(
        "{} {}/{}",
        object.get("kind").and_then(Value::as_str).unwrap_or("?"),
        object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default(),
        object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?"),
    )
}

/// The `fieldsV1` set of what an object (as sent by a manager) sets: `f:<field>` for map
/// keys, `k:{"name":...}` for list items keyed by name (containers, ports, env), whole lists
/// otherwise, as structured-merge-diff records them for the apps/v1 schema
/// ([`managed::leaves`](super::managed::leaves)).
pub fn fields_v1(object: &Value) -> Value {
    super::managed::to_fields_v1(super::managed::leaves(object).keys())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_selectors_kube_apiserver_refuses() {
        let resources = builtin();
        let of = |kind: &str| resources.iter().find(|r| r.kind == kind).unwrap();
        let deployments = of("Deployment");
        assert_eq!(field_selector_error(deployments, "metadata.name=web"), None);
        assert_eq!(field_selector_error(deployments, "metadata.namespace!=shop,metadata.name==web"), None);
        assert_eq!(
            field_selector_error(deployments, "status.replicas=1"),
            Some(
                r#""status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace""#.into()
            )
        );
        // The terms sorted, as `fields.ParseSelector` sorts them: the first refused is named.
        assert_eq!(
            field_selector_error(deployments, "spec.paused=true,metadata.name=web,a.b=c"),
            Some(r#""a.b" is not a known field selector: only "metadata.name", "metadata.namespace""#.into())
        );
        assert_eq!(field_selector_error(of("ReplicationController"), "status.replicas=0"), None);
        assert_eq!(
            field_selector_error(of("ReplicationController"), "spec.replicas=0"),
            Some("field label not supported: spec.replicas".into())
        );
        assert_eq!(field_selector_error(of("Event"), "involvedObject.name=web,reason=SuccessfulRescale"), None);
        assert_eq!(
            field_selector_error(of("Namespace"), "metadata.namespace="),
            Some("field label not supported: metadata.namespace".into())
        );
        let rollouts = optional("rollouts").unwrap();
        assert_eq!(field_selector_error(&rollouts, "metadata.namespace=shop,metadata.name=web"), None);
        assert_eq!(
            field_selector_error(&rollouts, "spec.replicas=1"),
            Some("field label not supported: spec.replicas".into())
        );
        let fleets = optional("fleets").unwrap();
        assert_eq!(
            field_selector_error(&fleets, "metadata.namespace=shop"),
            Some("field label not supported: metadata.namespace".into())
        );
    }

    /// `fields.ParseSelector`'s errors, before any field is looked at, and its reading of
    /// escapes and operators.
    #[test]
    fn field_selectors_that_do_not_parse() {
        let resources = builtin();
        let deployments = resources.iter().find(|r| r.kind == "Deployment").unwrap();
        let error = |s: &str| field_selector_error(deployments, s);
        assert_eq!(
            error("metadata.name"),
            Some("invalid selector: 'metadata.name'; can't understand 'metadata.name'".into())
        );
        // The sorted terms are read in turn: the first that does not parse is named, with the whole query.
        assert_eq!(
            error("status.replicas=1,metadata.name"),
            Some("invalid selector: 'status.replicas=1,metadata.name'; can't understand 'metadata.name'".into())
        );
        assert_eq!(error("metadata.name=a=b"), Some("invalid field selector: unescaped character in value: 61".into()));
        assert_eq!(error(r"metadata.name=a\x"), Some(r"invalid field selector: invalid escape sequence: \x".into()));
        assert_eq!(error(r"metadata.name=a\"), Some(r"invalid field selector: invalid escape sequence: \".into()));
        // An escaped comma is data, not a separator; empty terms are skipped; nothing is trimmed.
        assert_eq!(error(r"metadata.name=web\,x"), None);
        assert_eq!(error(",,metadata.name=web,"), None);
        assert_eq!(error(""), None);
        assert_eq!(
            error("metadata.name = web"),
            Some(
                r#""metadata.name " is not a known field selector: only "metadata.name", "metadata.namespace""#.into()
            )
        );
        assert_eq!(
            parse_field_selector(r"metadata.name!=a\=b\\,metadata.namespace==shop"),
            Ok(vec![
                FieldTerm { field: "metadata.name".into(), negated: true, value: r"a=b\".into() },
                FieldTerm { field: "metadata.namespace".into(), negated: false, value: "shop".into() },
            ])
        );
        let web = json!({"metadata": {"name": "web,x", "namespace": "shop"}});
        assert!(fields_match(&web, r"metadata.name=web\,x"));
        assert!(!fields_match(&web, "metadata.name=web"));
        assert!(!fields_match(&web, "metadata.name"));
    }

    #[test]
    fn selectors() {
        assert_eq!(
            format_selector(Some(
                &json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "a", "operator": "Exists"}]})
            )),
            "a,app=web"
        );
        let event = json!({"involvedObject": {"kind": "HorizontalPodAutoscaler", "name": "web"}});
        assert!(fields_match(&event, "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web"));
        assert!(!fields_match(&event, "involvedObject.name=api"));
    }

    #[test]
    fn managed_fields_sets() {
        let f = fields_v1(
            &json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "app", "image": "x"}]}}}}),
        );
        assert_eq!(
            f,
            json!({"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:replicas": {}, "f:template": {
                "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}})
        );
    }
}
