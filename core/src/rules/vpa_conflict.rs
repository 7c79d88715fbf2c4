//! HPA408 `vpa-conflict`: an HPA and a VPA both acting on cpu or memory of one workload.

use super::objects::{TemplateContainer, describe_containers};
use super::{Context, Finding, Location, Rule, RuleMeta, Severity};

/// The containers of the target's pods a VPA sizes, for one metric: those of the template, or
/// the one a `ContainerResource` metric names.
enum Sizes<'a> {
    /// Of the template (a `Resource` metric reads them all).
    Template(Vec<&'a TemplateContainer>),
    /// The container of a `ContainerResource` metric, when the VPA sizes it.
    Named(Option<TemplateContainer>),
}

impl Sizes<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Sizes::Template(list) => list.is_empty(),
            Sizes::Named(one) => one.is_none(),
        }
    }

    fn list(&self) -> Vec<&TemplateContainer> {
        match self {
            Sizes::Template(list) => list.clone(),
            Sizes::Named(one) => one.iter().collect(),
        }
    }
}

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A VerticalPodAutoscaler that sets pod requests and targets the same workload as this HPA,
    /// when the HPA scales on a `Resource` (or `ContainerResource`) metric of cpu or memory that
    /// the VPA controls. The VPA resolves a policy per container, as `GetContainerResourcePolicy`
    /// does: the `containerPolicies` entry naming the container, else the `"*"` entry, else the
    /// defaults; a container is sized unless its policy says `mode: "Off"`, in the resources of
    /// its `controlledResources` (cpu and memory when not written), whatever its
    /// `controlledValues`. A `Resource` metric reads every container of the pod, so any container
    /// the VPA sizes conflicts; a `ContainerResource` metric only its own container. The message
    /// names the containers. (Restartable init containers, "sidecars", are left out: the VPA
    /// sizes them only behind its `NativeSidecar` feature gate. When the pod template is not in
    /// the set, a `Resource` metric conflicts when a policy the VPA has, or its defaults when it
    /// has none, controls the resource.)
    ///
    /// The severity follows the VPA's `updatePolicy.updateMode` (the update modes of
    /// `autoscaling.k8s.io/v1`):
    ///
    /// - `Recreate` (the default), `Auto` (the same, deprecated) and `InPlaceOrRecreate`: a
    ///   warning. The VPA changes the requests of running pods, by eviction or in place, while
    ///   the HPA is scaling on them.
    /// - `Initial`: informational, and only for a `Utilization` target. The VPA sets requests
    ///   only when a pod is created, and never touches a running one; but every pod the HPA
    ///   adds, and every pod of a rollout, gets the VPA's current recommendation as its requests,
    ///   so the denominator of the utilization the HPA targets moves with each new pod. The two
    ///   are coupled through pod creation, not by a loop within one scaling event: over pod
    ///   generations the target's meaning drifts (70 % of a request that itself follows usage),
    ///   which is worth knowing rather than certainly wrong. An `AverageValue` target (which the
    ///   controller uses whenever `averageValue` is written) reads usage alone, which requests set
    ///   at creation do not move: nothing is reported.
    /// - `Off`: nothing is reported (recommendations only).
    ///
    /// A VPA whose `updateMode`, or a container policy's `mode`, is no string (an unquoted `Off`
    /// is YAML 1.1's `false`, sent as a JSON boolean) or no mode of the CRD's enum (`auto`,
    /// `off`) is reported instead: the VPA CRD's schema refuses it (`Invalid value: "boolean":
    /// ... must be of type string`, `Unsupported value: "auto": supported values: ...`), so the
    /// VPA never exists, and the mode meant is not known.
    ///
    /// ## Why it matters
    ///
    /// The HPA targets a utilization, a ratio of usage to requests; the VPA changes the requests.
    /// Each reacts to the other: the VPA raises requests, utilization drops, the HPA removes pods,
    /// usage per pod rises, the VPA raises requests again. The VPA documentation warns against using
    /// both on the same resource.
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
    /// ---
    /// apiVersion: autoscaling.k8s.io/v1
    /// kind: VerticalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   updatePolicy:
    ///     updateMode: Auto
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
    /// ---
    /// apiVersion: autoscaling.k8s.io/v1
    /// kind: VerticalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   updatePolicy:
    ///     updateMode: Auto
    ///   resourcePolicy:
    ///     containerPolicies:
    ///     - containerName: "*"
    ///       controlledResources: [memory]
    /// ```
    ///
    /// ## How to fix
    ///
    /// Let each autoscaler own a different resource: restrict the VPA with `controlledResources`
    /// to a resource the HPA does not scale on (as above), or scale horizontally on custom or
    /// external metrics, or run the VPA with `updateMode: "Off"` (recommendations only).
    pub struct VpaConflict {
        id: "HPA408",
        name: "vpa-conflict",
        severity: Warning,
        summary: "a VerticalPodAutoscaler also acts on the cpu or memory this HPA scales on",
        needs_objects: true,
    }
}

impl Rule for VpaConflict {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let t = &cx.effective.spec.scale_target_ref;
        for vpa in objects.vpas(cx.namespace()) {
            if vpa.target_kind != t.kind || vpa.target_name != t.name {
                continue;
            }
            if let Some((path, value)) = &vpa.refused_mode {
                out.push(refused_mode(vpa, path, value));
                continue;
            }
            // Modes that change running pods fight the HPA; `Initial` sets requests of new pods
            // only (see the documentation); `Off` and unknown modes set nothing.
            let severity = match vpa.update_mode.as_str() {
                "Auto" | "Recreate" | "InPlaceOrRecreate" => Severity::Warning,
                "Initial" => Severity::Info,
                _ => continue,
            };
            let template = cx.target_pod_template().filter(|w| !w.containers.is_empty());
            for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
                let (source, name, containers) = match (&m.resource, &m.container_resource) {
                    (Some(r), _) => match template {
                        // A Resource metric reads every container the VPA sizes.
                        Some(w) => {
                            let sized = w.containers.iter().filter(|c| !c.sidecar);
                            let set: Vec<&TemplateContainer> =
                                sized.filter(|c| vpa.sets_request(&c.name, &r.name)).collect();
                            ("resource", &r.name, Some(Sizes::Template(set)))
                        }
                        None if vpa.may_set_request(&r.name) => ("resource", &r.name, None),
                        None => continue,
                    },
                    (None, Some(r)) => {
                        // A sidecar is sized by the VPA only behind its `NativeSidecar` gate.
                        let sidecar =
                            template.is_some_and(|w| w.containers.iter().any(|c| c.sidecar && c.name == r.container));
                        let set = (!sidecar && vpa.sets_request(&r.container, &r.name)).then(|| TemplateContainer {
                            name: r.container.to_string(),
                            ..TemplateContainer::default()
                        });
                        ("containerResource", &r.name, Some(Sizes::Named(set)))
                    }
                    _ => continue,
                };
                // Requests set at pod creation only move a utilization, the ratio to them: an
                // AverageValue target (which the controller uses whenever it is written) reads
                // usage alone.
                let target =
                    m.resource.as_ref().map(|r| &r.target).or(m.container_resource.as_ref().map(|r| &r.target));
                let utilization = target.is_some_and(|t| t.average_value.is_none() && t.average_utilization.is_some());
                if severity == Severity::Info && !utilization {
                    continue;
                }
                if containers.as_ref().is_some_and(Sizes::is_empty) {
                    continue;
                }
                let (of, in_) = match &containers {
                    Some(sized) => {
                        let names = describe_containers(&sized.list());
                        (format!("{names} of "), format!("{names} in "))
                    }
                    None => (String::new(), String::new()),
                };
                let target = cx.scale_target();
                let message = if severity == Severity::Info {
                    format!(
                        "{} (Initial) sets the {name} requests of {in_}every new pod of {target}: the utilization this HPA targets is measured against requests that follow usage",
                        vpa.id
                    )
                } else {
                    format!(
                        "{} ({}) also sets the {name} requests of {of}{target}: the two autoscalers feed each other",
                        vpa.id, vpa.update_mode
                    )
                };
                let help = if cx.written_in_v1() {
                    "limit the VPA's controlledResources, use updateMode \"Off\", or write the HPA in autoscaling/v2 to scale on a custom or external metric"
                } else {
                    "scale on a custom or external metric, limit the VPA's controlledResources, or use updateMode \"Off\""
                };
                let mut f = Finding::new(&Self::META, format!("spec.metrics[{i}].{source}"), message)
                    .help(help)
                    .related(Location::Object { id: vpa.id.clone(), path: "spec.updatePolicy".into() }, "this VPA");
                f.severity = severity;
                out.push(f);
            }
        }
    }
}

/// The finding for a VPA whose `updateMode`, or a container policy's `mode`, at `path`, the VPA
/// CRD's structural schema refuses, in apiextensions-apiserver's words, so there is no VPA to
/// conflict with, and the mode meant is unknown: one that is no string (`type: string`:
/// kube-openapi's `errors.InvalidType`, reported as `field.Invalid` with the JSON type's name;
/// an unquoted `Off`, or `No`, `N`, is YAML 1.1's `false`, `On`, `Yes`, `Y` are `true`, which
/// kubectl sends as a JSON boolean), or a string outside the enum (`errors.EnumFail`, reported
/// as `field.NotSupported` with the enum's values).
fn refused_mode(vpa: &super::objects::Vpa, path: &str, value: &serde_json::Value) -> Finding {
    use super::objects::{VPA_CONTAINER_MODES, VPA_UPDATE_MODES};
    use serde_json::Value;
    // `updateMode`, or `containerPolicies[0].mode`, as the message names it.
    let (field, key, modes, allowed) = match path.strip_prefix("spec.resourcePolicy.") {
        Some(policy) => (policy, "mode", "\"Auto\" or \"Off\"", VPA_CONTAINER_MODES),
        None => (
            "updateMode",
            "updateMode",
            "\"Off\", \"Initial\", \"Recreate\" or \"InPlaceOrRecreate\"",
            VPA_UPDATE_MODES,
        ),
    };
    if let Value::String(mode) = value {
        let supported: Vec<String> = allowed.iter().map(|m| crate::go::quote(m)).collect();
        let refusal = format!(
            "{path}: Unsupported value: {}: supported values: {}",
            crate::go::quote(mode),
            supported.join(", ")
        );
        let help = match allowed.iter().find(|m| m.eq_ignore_ascii_case(mode)) {
            Some(meant) => format!("write the mode as the schema spells it: {key}: \"{meant}\""),
            None => format!("write one of the modes: {modes}"),
        };
        let message = format!(
            "{}: {field} {} is no mode the VPA's schema allows ({refusal}): the VPA is not created",
            vpa.id,
            crate::go::quote(mode)
        );
        return Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message)
            .help(help)
            .related(Location::Object { id: vpa.id.clone(), path: path.to_string() }, "not a mode");
    }
    let ty = match value {
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::String(_) | Value::Null => "string",
    };
    let refusal = format!("{path}: Invalid value: \"{ty}\": {path} in body must be of type string: \"{ty}\"");
    let (message, help) = match value {
        Value::Bool(false) => (
            format!(
                "{}: {field} is the boolean false (YAML reads an unquoted Off as false), which the VPA's schema refuses ({refusal}): the VPA is not created",
                vpa.id
            ),
            format!("quote the mode: {key}: \"Off\""),
        ),
        Value::Bool(true) => (
            format!(
                "{}: {field} is the boolean true (YAML reads an unquoted On or Yes as true), which the VPA's schema refuses ({refusal}): the VPA is not created",
                vpa.id
            ),
            format!("write the mode as a quoted string: {modes}"),
        ),
        _ => (
            format!(
                "{}: {field} is no string, which the VPA's schema refuses ({refusal}): the VPA is not created",
                vpa.id
            ),
            format!("write the mode as a quoted string: {modes}"),
        ),
    };
    Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message)
        .help(help)
        .related(Location::Object { id: vpa.id.clone(), path: path.to_string() }, "not a string")
}
