//! HPA408 `vpa-conflict`: an HPA and a VPA both acting on cpu or memory of one workload.

use super::objects::{
    TemplateContainer, VPA_CONTAINER_MODES, VPA_GROUP, VPA_VERSION, Vpa, WorldSource, describe_containers,
};
use super::{Context, Finding, FindingField, Rule, RuleMeta, Severity};

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
    /// A VerticalPodAutoscaler that sets pod requests and targets the same workload as this HPA
    /// (the same kind and name, and the same API group as the VPA resolves its `targetRef`: a
    /// well-known controller kind, such as a Deployment, by its kind alone, whatever group it
    /// writes, any other kind by group and kind, as `controllerFetcher` does), when the HPA scales on a `Resource` (or `ContainerResource`) metric of cpu or memory that
    /// the VPA controls. The VPA resolves a policy per container, as `GetContainerResourcePolicy`
    /// does: the `containerPolicies` entry naming the container, else the `"*"` entry, else the
    /// defaults; a container is sized unless its policy says `mode: "Off"`, in the resources of
    /// its `controlledResources` (cpu and memory when not written), whatever its
    /// `controlledValues`. A `Resource` metric reads every container of the pod, so any container
    /// the VPA sizes conflicts; a `ContainerResource` metric only its own container. The message
    /// names the containers. (Restartable init containers, "sidecars", are left out: the VPA
    /// sizes them only behind its `NativeSidecar` feature gate. When the pod template is not in
    /// the set, or the target is a custom resource, whose operator makes its pods as it
    /// decides, a `Resource` metric conflicts when a policy the VPA has, or its defaults when it
    /// has none, controls the resource.)
    ///
    /// The severity follows the VPA's `updatePolicy.updateMode` (the update modes of
    /// `autoscaling.k8s.io/v1`):
    ///
    /// - `Recreate` (the default), `Auto` (the same, deprecated), `InPlaceOrRecreate` and
    ///   `InPlace` (VPA 1.7, alpha): a warning. The VPA changes the requests of running pods, by
    ///   eviction or in place, while the HPA is scaling on them.
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
    /// A VPA whose `updateMode`, or a container policy's `mode` or `controlledValues`, is no
    /// string (an unquoted `Off` is YAML 1.1's `false`, sent as a JSON boolean) or no value of
    /// the enum of the VPA 1.7 CRD (`auto`, `off`, `requestsOnly`) is reported instead: the
    /// CRD's schema refuses it, so the VPA never exists, and the mode meant is not known. The
    /// message gives kube-apiserver's words, every error of the VPA (`VerticalPodAutoscaler.
    /// autoscaling.k8s.io "web" is invalid: spec.updatePolicy.updateMode: Unsupported value:
    /// "auto": supported values: "Off", ...`; a boolean fails the type, `Invalid value:
    /// "boolean": ... must be of type string: "boolean"`, and then the enum). Where the VPA
    /// admission controller runs, kube-apiserver calls its webhook before it checks the schema,
    /// and `kubectl apply` prints the webhook's denial instead (`admission webhook "vpa.k8s.io"
    /// denied the request: ...`: a mode outside its list is an `Unsupported value`, a value of
    /// another type fails its JSON decoding, an `Internal error`); the VPA is not created either
    /// way.
    ///
    /// So is a VPA of the checked manifests that the VPA admission controller refuses when it is
    /// created: its webhook (`vpa.k8s.io`) runs `validateVPA` of VPA 1.7, with the feature gates
    /// at their defaults, and denies an `updatePolicy` without `updateMode` (the default mode,
    /// `Recreate`, is for a VPA without `updatePolicy`), `updateMode: InPlace` (behind the alpha
    /// `InPlace` gate), a `minReplicas` below 1, a container policy without `containerName`, a
    /// `maxAllowed` below its `minAllowed`, cpu finer than a millicore or memory finer than a
    /// byte, `controlledValues: RequestsAndLimits` on a policy whose `mode` is `Off`, the
    /// `PerVPAConfig` fields (`evictAfterOOMSeconds`, `oomBumpUpRatio`, `oomMinBumpUp`,
    /// `memoryAggregationInterval*`) and `startupBoost` (alpha gates), and more than one
    /// recommender. The message gives kube-apiserver's words, every error in `validateVPA`'s
    /// order (`admission webhook "vpa.k8s.io" denied the request: spec.updatePolicy.updateMode:
    /// Required value: updateMode is required if UpdatePolicy is used`). A VPA read from a
    /// cluster, or from the webhook's cache, was stored: it is read as the VPA reads it (no
    /// `updateMode` is `Recreate`), whatever its admission would have said.
    ///
    /// The VPA followed is release 1.7: its CRD, which serves `autoscaling.k8s.io/v1` only
    /// (`v1beta2` is deprecated and not served; `hpa-lint cluster` lists `v1`), and its
    /// components' defaults. A VPA of the checked manifests written in another API version (the
    /// former `v1beta2`, or another group: `autoscaling/v1`) is reported as not created
    /// (`kubectl apply` finds no resource for it).
    ///
    /// Several VPAs on one target are not all followed: for each pod, the VPA's components pick
    /// one (`GetControllingVPAForPod` of VPA 1.7: the first created, then the first by name).
    /// The admission controller, which sets the requests of new pods, picks among the VPAs whose
    /// mode is not `Off`; the updater, which evicts or resizes running pods, among those in a
    /// mode that updates them (`Recreate`, `Auto`, `InPlaceOrRecreate`, `InPlace`). Only the
    /// VPAs picked are reported, each saying by which component and which VPAs are ignored; a
    /// VPA neither picks sets no request and is not reported. VPAs of a manifest set have no
    /// creation time: applied together, they are created in the same second, so the first by
    /// name is picked; with `hpa-lint cluster` and `hpa-webhook`, their `creationTimestamp`
    /// decides. A VPA that is not created (below) is not counted.
    ///
    /// A target kube-apiserver refuses (HPA410) is never created: the VPA sizes no pod of it
    /// (HPA410 is the one finding); a VPA refused itself is still said. Nor is a VPA on a target
    /// the HPA controller never scales (HPA402: a DaemonSet, ...; HPA405): the HPA fails
    /// before it reads a metric, so the two never meet.
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
        // A target kube-apiserver refuses has no pods for the VPA to size (HPA410 says why); a
        // VPA refused itself is still said.
        // Nor for a target the controller never scales (HPA402, HPA405): the HPA fails
        // before it reads a metric, so the two never meet.
        let target_refused = cx.target_refusal().is_some() || !cx.scales_target();
        let on_target: Vec<&Vpa> = objects
            .vpas(cx.namespace())
            .iter()
            .filter(|v| {
                // Both kinds as the RESTMapper maps them (the VPA's recommender and updater map a
                // `targetRef` through it too): `statefulset` is the StatefulSet.
                v.target_name == t.name
                    && v.target_group == cx.scale_target_group()
                    && objects.mapped_kind(&v.target_group, &v.target_kind) == cx.scale_target_kind()
            })
            .collect();
        let acting = Acting::of(&on_target, objects.source());
        for &vpa in &on_target {
            // kubectl finds no resource for a group or version the VPA's CRD does not serve.
            let version = crate::api::GroupVersion::parse_or_empty(&vpa.id.api_version);
            let served = version.group() == VPA_GROUP && version.version() == VPA_VERSION;
            if objects.source() == WorldSource::Manifests && !served {
                out.push(unserved(vpa));
                continue;
            }
            if !vpa.refused.is_empty() {
                out.push(refused(cx, vpa));
                continue;
            }
            // A VPA read from a cluster was stored: the admission controller let it in, or did
            // not run. One still to be applied is created only if it admits it.
            if objects.source() == WorldSource::Manifests && !vpa.admission_refusal.is_empty() {
                out.push(refused_by_admission(vpa));
                continue;
            }
            if target_refused {
                continue;
            }
            // Modes that change running pods fight the HPA; `Initial` sets requests of new pods
            // only (see the documentation); `Off` and unknown modes set nothing.
            let severity = match vpa.update_mode.as_str() {
                "Auto" | "Recreate" | "InPlaceOrRecreate" | "InPlace" => Severity::Warning,
                "Initial" => Severity::Info,
                _ => continue,
            };
            // Of several VPAs on the target, the VPA's components follow one per pod: a VPA
            // neither picks sets no request of these pods.
            let Some(picked) = acting.says(vpa, objects.source()) else { continue };
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
                        "{} (Initial) sets the {name} requests of {in_}every new pod of {target}: the utilization this HPA targets is measured against requests that follow usage{picked}",
                        vpa.id
                    )
                } else {
                    format!(
                        "{} ({}) also sets the {name} requests of {of}{target}: the two autoscalers feed each other{picked}",
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
                    .related(FindingField::Object { id: vpa.id.clone(), path: "spec.updatePolicy".into() }, "this VPA");
                f.severity = severity;
                out.push(f);
            }
        }
    }
}

/// Which of several VPAs on one target the VPA's components follow for its pods (VPA 1.7): for
/// each pod, `GetControllingVPAForPod` picks the strongest of the VPAs it is given
/// ([`Vpa::stronger_than`]: the first created, then by name). The admission controller, which
/// sets the requests of each new pod (`matcher.GetMatchingVPA`), is given every VPA but those
/// whose mode is `Off`; the updater, which evicts or resizes running pods (`RunOnce`), those in
/// a mode that updates them ([`Vpa::updates_running_pods`]). Only VPAs that exist count: not
/// those of a manifest set that kube-apiserver or the VPA admission controller refuses.
struct Acting<'a> {
    /// The VPAs given to the admission controller, the strongest first.
    admitted: Vec<&'a Vpa>,
    /// The strongest of those given to the updater.
    updater: Option<&'a Vpa>,
}

impl<'a> Acting<'a> {
    /// The VPAs of `on_target` (those naming the target) the components pick from.
    fn of(on_target: &[&'a Vpa], source: WorldSource) -> Acting<'a> {
        let exists = |v: &Vpa| {
            let version = crate::api::GroupVersion::parse_or_empty(&v.id.api_version);
            let served = version.group() == VPA_GROUP && version.version() == VPA_VERSION;
            v.refused.is_empty() && (source != WorldSource::Manifests || (served && v.admission_refusal.is_empty()))
        };
        let mut admitted: Vec<&Vpa> =
            on_target.iter().copied().filter(|v| exists(v) && v.update_mode != "Off").collect();
        admitted.sort_by(|a, b| {
            if a.stronger_than(b) {
                std::cmp::Ordering::Less
            } else if b.stronger_than(a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let updater = admitted.iter().copied().find(|v| v.updates_running_pods());
        Acting { admitted, updater }
    }

    /// What the finding on `vpa` adds, when several VPAs are given to the components: which of
    /// them picks it (`Some("")` when it is the only one); `None` when none does, and `vpa` sets
    /// no request of the target's pods.
    fn says(&self, vpa: &Vpa, source: WorldSource) -> Option<String> {
        if self.admitted.len() < 2 {
            return Some(String::new());
        }
        let is = |other: Option<&&Vpa>| other.is_some_and(|o| std::ptr::eq(*o, vpa));
        let by_admission = is(self.admitted.first());
        let by_updater = is(self.updater.as_ref());
        // VPAs of a manifest set have no creation time: applied together, they are created
        // in the same second, and the VPA compares names.
        let (first, same_second) = if source == WorldSource::Manifests {
            ("first by name", " (VPAs applied together are created in the same second)")
        } else {
            ("created first", "")
        };
        let others: Vec<String> =
            self.admitted.iter().filter(|o| !std::ptr::eq(**o, vpa)).map(|o| o.id.name.clone()).collect();
        let n = self.admitted.len();
        match (by_admission, by_updater) {
            (true, true) => Some(format!(
                "; of the {n} VPAs on it, the VPA admission controller and updater follow only this one, {first}{same_second}, and ignore {}",
                super::and_list(&others)
            )),
            (true, false) => Some(format!(
                "; of the {n} VPAs on it, the VPA admission controller follows this one for new pods, {first}{same_second}{}",
                match self.updater {
                    Some(u) => format!(", and the VPA updater evicts or resizes running pods for {}", u.id.name),
                    None => String::new(),
                }
            )),
            (false, true) => Some(format!(
                "; of the {n} VPAs on it, the VPA updater follows this one for running pods, {first} of those that update them{same_second}, and the VPA admission controller sizes new pods from {}",
                self.admitted.first().map_or(String::new(), |a| a.id.name.clone())
            )),
            (false, false) => None,
        }
    }
}

/// The finding for a VPA of a manifest set written in an API version the VPA's CRD does not
/// serve (the former `v1beta2`, `v1beta1`, or another group, as `autoscaling/v1`, which HPA406
/// also names): `kubectl apply` finds no resource for it (its RESTMapper's `NoKindMatchError`)
/// and creates nothing.
fn unserved(vpa: &super::objects::Vpa) -> Finding {
    let message = format!(
        "{}: {} is not served by the VPA's CustomResourceDefinition, which serves {VPA_GROUP}/{VPA_VERSION} only (kubectl: no matches for kind \"VerticalPodAutoscaler\" in version \"{}\"): the VPA is not created",
        vpa.id, vpa.id.api_version, vpa.id.api_version
    );
    Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message)
        .help(format!("write apiVersion: {VPA_GROUP}/{VPA_VERSION}"))
        .related(FindingField::Object { id: vpa.id.clone(), path: "apiVersion".into() }, "not served")
}

/// The finding for a VPA of a manifest set the VPA admission controller refuses
/// ([`Vpa::admission_refusal`](super::objects::Vpa::admission_refusal)), in kube-apiserver's
/// words for a webhook's denial (`admission webhook "vpa.k8s.io" denied the request: `, then
/// the aggregate of the errors `validateVPA` returned): the VPA is never created, so there is
/// nothing to conflict with. The help is about the first error.
fn refused_by_admission(vpa: &super::objects::Vpa) -> Finding {
    let errors = &vpa.admission_refusal;
    let words =
        format!("admission webhook \"vpa.k8s.io\" denied the request: {}", crate::field::aggregate_message(errors));
    let message = format!("{}: the VPA admission controller refuses it ({words}): the VPA is not created", vpa.id);
    let Some(first) = errors.first() else {
        return Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message);
    };
    let field = first.field.as_str();
    let help = if field.ends_with(".updateMode") && first.kind == crate::field::ErrorType::Required {
        "write updatePolicy.updateMode (\"Recreate\", \"InPlaceOrRecreate\", \"Initial\" or \"Off\"), or leave updatePolicy out for the default, \"Recreate\"".to_string()
    } else if field.ends_with(".updateMode") && first.kind == crate::field::ErrorType::Forbidden {
        "enable the InPlace feature gate of the VPA admission controller and updater (--feature-gates=InPlace=true), or write updateMode: \"InPlaceOrRecreate\"".to_string()
    } else if first.detail.contains("PerVPAConfig") {
        "enable the PerVPAConfig feature gate of the VPA's components (--feature-gates=PerVPAConfig=true), or leave the field out".to_string()
    } else if first.detail.contains("CPUStartupBoost") {
        "enable the CPUStartupBoost feature gate of the VPA admission controller and updater (--feature-gates=CPUStartupBoost=true), or leave startupBoost out".to_string()
    } else if field.ends_with(".containerName") {
        "name the container the policy is for, or \"*\" for every container".to_string()
    } else if field.ends_with(".controlledValues") {
        "leave controlledValues out of a policy whose mode is \"Off\"".to_string()
    } else if field.ends_with(".minReplicas") {
        "write minReplicas of 1 or more, or leave it out".to_string()
    } else if first.detail.starts_with("max resource") {
        "make maxAllowed at least minAllowed".to_string()
    } else if let Some(unit) = first.detail.strip_prefix("must be a whole number of ") {
        format!("write the quantity as a whole number of {unit}")
    } else if field.ends_with(".recommenders") {
        "name one recommender".to_string()
    } else {
        "correct the field the VPA admission controller names".to_string()
    };
    // Where the error is; a required field is missing, so its parent.
    let at = match first.kind {
        crate::field::ErrorType::Required => field.rsplit_once('.').map_or(field, |(parent, _)| parent),
        _ => field,
    };
    Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message).help(help).related(
        FindingField::Object { id: vpa.id.clone(), path: at.to_string() },
        "refused by the VPA admission controller",
    )
}

/// The finding for a VPA the VPA CRD's structural schema refuses ([`Vpa::refused`]), in
/// kube-apiserver's words (`errors.NewInvalid` of every error apiextensions-apiserver reports,
/// [`VpaSchemaRefusal::errors`]), so there is no VPA to conflict with, and the mode meant is
/// unknown. The message and help are about the first refused value: one that is no string (an
/// unquoted `Off`, or `No`, `N`, is YAML 1.1's `false`, `On`, `Yes`, `Y` are `true`, which
/// kubectl sends as a JSON boolean), or a string outside the enum.
fn refused(cx: &Context<'_>, vpa: &super::objects::Vpa) -> Finding {
    use serde_json::Value;
    let rendering = crate::field::ValueRendering::of(cx.settings.gates().version());
    let mut errors: Vec<crate::field::FieldError> = vpa.refused.iter().flat_map(|r| r.errors()).collect();
    for e in &mut errors {
        e.rendering = rendering;
    }
    let words = crate::field::invalid_message("VerticalPodAutoscaler", "autoscaling.k8s.io", &vpa.id.name, &errors);
    let Some(first) = vpa.refused.first() else {
        return Finding::new(&VpaConflict::META, "spec.scaleTargetRef", words);
    };
    let (path, key) = (first.path.as_str(), first.key());
    // `updateMode`, or `containerPolicies[0].mode`, as the message names it.
    let field = path.strip_prefix("spec.resourcePolicy.").unwrap_or(key);
    let noun = if key == "controlledValues" { "value" } else { "mode" };
    // What to suggest: the enum, without the deprecated `Auto` and the alpha `InPlace` modes.
    let listed: Vec<String> = first
        .allowed
        .iter()
        .filter(|m| !matches!(**m, "Auto" | "InPlace") || first.allowed == VPA_CONTAINER_MODES)
        .map(|m| crate::go::quote(m))
        .collect();
    let choices = match listed.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => listed.join(""),
    };
    let (message, help) = match &first.value {
        Value::String(value) => (
            format!(
                "{}: {field} {} is no {noun} the VPA's schema allows ({words}): the VPA is not created",
                vpa.id,
                crate::go::quote(value)
            ),
            match first.allowed.iter().find(|m| m.eq_ignore_ascii_case(value)) {
                Some(meant) => format!("write the {noun} as the schema spells it: {key}: \"{meant}\""),
                None => format!("write one of the {noun}s: {choices}"),
            },
        ),
        Value::Bool(false) if first.allowed.contains(&"Off") => (
            format!(
                "{}: {field} is the boolean false (YAML reads an unquoted Off as false), which the VPA's schema refuses ({words}): the VPA is not created",
                vpa.id
            ),
            format!("quote the mode: {key}: \"Off\""),
        ),
        Value::Bool(true) if first.allowed.contains(&"Off") => (
            format!(
                "{}: {field} is the boolean true (YAML reads an unquoted On or Yes as true), which the VPA's schema refuses ({words}): the VPA is not created",
                vpa.id
            ),
            format!("write the {noun} as a quoted string: {choices}"),
        ),
        _ => (
            format!(
                "{}: {field} is no string, which the VPA's schema refuses ({words}): the VPA is not created",
                vpa.id
            ),
            format!("write the {noun} as a quoted string: {choices}"),
        ),
    };
    let label = if first.value.is_string() { format!("not a {noun}") } else { "not a string".to_string() };
    Finding::new(&VpaConflict::META, "spec.scaleTargetRef", message)
        .help(help)
        .related(FindingField::Object { id: vpa.id.clone(), path: path.to_string() }, label)
}
