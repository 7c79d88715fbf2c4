//! HPA410 `workload-sets-replicas`: a workload managed by an HPA that pins its replicas.

use super::objects::Workload;
use super::{Context, Finding, FindingField, Rule, RuleMeta, WorkloadRefusal};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// The HPA's scale target (a Deployment, StatefulSet, ...) sets `spec.replicas` (kube-score,
    /// Polaris); for a custom resource whose CustomResourceDefinition is known, the field its
    /// scale subresource's `specReplicasPath` names instead (`.spec.size`: `spec.size`, which the
    /// controller writes through `/scale`), and nothing for a kind without the subresource. The finding is on the workload, at that
    /// field; several HPAs scaling the workload make one finding, from the first of them,
    /// pointing at each. A count at 0 is worse: the controller then disables the HPA (`ScalingDisabled`). A
    /// count kube-apiserver does not take makes it refuse a built-in workload, in its words: an
    /// error. That is a count that is not a number (`replicas: "3"`) or not an `int32` (`1.5`,
    /// `3000000000`), which decoding refuses, and a negative one, which validation refuses. So is
    /// a built-in target refused for its selector, whether or not it sets `spec.replicas`: one
    /// kube-apiserver refuses (an operator other than `In`, `NotIn`, `Exists` and
    /// `DoesNotExist`, `In` without values, a key or value no label can have: each error, then
    /// `spec.selector: Invalid value: {...}: invalid label selector`, a StatefulSet's without
    /// the detail, and nothing of the pod template, which kube-apiserver then does not
    /// validate), or one that does not select the workload's own pod template
    /// (`spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match
    /// template `labels``): the error gives every error of these kube-apiserver reports, in its
    /// order (the count, the selector, the labels), and points at the first. A selector,
    /// template labels or annotations kube-apiserver cannot decode, a key or value that is no
    /// string (`matchLabels: {version: 1.0}`, which YAML reads as a number), is refused before
    /// any of these, with the decoder's first error (`json: cannot unmarshal
    /// number into Go struct field LabelSelector.spec.selector.matchLabels of type string`). A
    /// missing selector (`spec.selector: Required value`, and an `apps` kind's template then
    /// does not match) or an empty one (`empty selector is invalid for deployment`) is refused
    /// too; a ReplicationController's defaults from its template's labels. So are template
    /// labels that are no valid labels (`spec.template.labels: Invalid value: "-x": a valid
    /// label must be ...`, reported where they are written, `spec.template.metadata.labels`).
    /// So is, of the rest of what `ValidateDeployment` and its kin refuse, what the linter reads
    /// of the workload: a name that is no DNS subdomain (a StatefulSet's, no DNS label:
    /// `metadata.name: Invalid value: "Web"`), a ReplicationController without a pod template
    /// (`spec.template: Required value`), template annotation keys that are no qualified names
    /// or that exceed 256 KiB with their values, and a pod template without containers
    /// (`spec.template.spec.containers: Required value`; a StatefulSet's pod spec is not
    /// validated). The rest of the pod spec (containers' names and images, volumes, ...) and of
    /// the workload's metadata (its labels, annotations, a `generateName`) is not checked. The
    /// words are those of the release `--kubernetes-version` selects: a label value is `no more
    /// than 63 characters` before 1.35, `no more than 63 bytes` from 1.35.
    /// So is, for an Argo Rollout target with `spec.workloadRef`, the Deployment or ReplicaSet
    /// it names when kube-apiserver refuses it, in the same words, on that workload: it is never
    /// created, so Argo Rollouts cannot resolve the reference (the Rollout's `InvalidSpec`
    /// condition: `The Rollout "web" is invalid: deployments.apps "web-template" not found`) and
    /// the Rollout makes no pods. So is an Argo Rollout target whose `spec.workloadRef` Argo
    /// Rollouts refuses, on the Rollout, in its words (`The Rollout "web" is invalid: workload of
    /// type apps/StatefulSet is not supported`, or `template must be empty for workload reference
    /// rollout` when it also writes a template): it makes no pods either, in files and live.
    /// Such a target is never created, or makes no pods: the rules about them (HPA104, HPA201,
    /// HPA202, HPA407, HPA408) say nothing of it, and this error is the one finding; several
    /// HPAs scaling it make one finding, from the first of them, pointing at each. So do several
    /// Argo Rollouts whose `spec.workloadRef` names one workload kube-apiserver refuses: one
    /// finding on that workload, naming each Rollout (by name, up to five) and pointing at each
    /// Rollout's `spec.workloadRef` and each HPA's `spec.scaleTargetRef`, from the first HPA of
    /// the first Rollout by name. A refused workload that HPAs scale both directly and through
    /// Rollouts naming it is one problem too: one finding, from the first HPA that scales the
    /// workload itself, pointing at the Rollouts and at every HPA.
    /// Only in files: a live workload (`hpa-lint cluster`, `hpa-webhook`) was admitted, so it is
    /// never said to be refused.
    ///
    /// Where the workload and the CRD are read from: in files, the HPA's manifest set; with
    /// `hpa-lint cluster`, the cluster (the workloads of the namespaces read, every CRD, and one
    /// `GET` of each custom resource an HPA targets whose CRD it read); in `hpa-webhook`, its
    /// context cache (`--context-cache`), which watches the workloads and the CRDs but no custom
    /// resource, and, for an HPA under review whose target is a custom resource, one `GET` of it
    /// (allowed by the chart's `contextCache.scaleTargets`; a refusal is a warning, no finding).
    /// The webhook's workload side does not see writes of custom resources. A live workload always
    /// has the field, so live it is reported only when a user or a tool set it: a field manager
    /// other than an autoscaler's owns it in `metadata.managedFields` (the HPA controller's,
    /// `kube-controller-manager`, and KEDA's operator, `keda`, which scales its targets to and
    /// from zero through `/scale`), or client-side `kubectl apply`'s last-applied configuration
    /// holds it; the kind's default that its creator owns without writing it is not reported.
    ///
    /// ## Why it matters
    ///
    /// Every `kubectl apply` or GitOps sync of the workload writes that number back, undoing the
    /// HPA: a workload scaled to 12 under load drops to 3 at the next deploy, and the HPA needs
    /// several syncs to climb back. The Kubernetes documentation asks to remove the field when an
    /// HPA is enabled.
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
    ///   minReplicas: 3
    ///   maxReplicas: 12
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 250m, memory: 256Mi}
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
    ///   minReplicas: 3
    ///   maxReplicas: 12
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: ghcr.io/example/web:1.4.2
    ///         resources:
    ///           requests: {cpu: 250m, memory: 256Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Remove `spec.replicas` (or a custom resource's `specReplicasPath` field) from the
    /// workload manifest: the HPA owns it. When the workload is
    /// created, its replica count defaults to 1 and the HPA raises it to `minReplicas` at its first
    /// sync.
    pub struct WorkloadSetsReplicas {
        id: "HPA410",
        name: "workload-sets-replicas",
        severity: Warning,
        summary: "the scale target sets spec.replicas, which every apply resets",
        needs_objects: true,
    }
}

impl Rule for WorkloadSetsReplicas {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(w) = cx.target_workload() else { return };
        // A custom resource's replica count is where its CustomResourceDefinition's scale
        // subresource puts it (`specReplicasPath`, the field the controller writes through
        // `/scale`): a `spec.replicas` elsewhere is no count the HPA sets, and a kind without
        // the subresource is not scaled at all.
        let group = crate::api::GroupVersion::parse_or_empty(&w.id.api_version);
        if let Some(scale) = cx
            .objects
            .and_then(|o| o.custom_resource_definition(group.group(), &w.id.kind))
            .and_then(|crd| crd.served_scale())
            && scale.is_none_or(|s| s.spec_replicas_path != ".spec.replicas")
        {
            if let Some((field, count)) = scale.and_then(|s| w.spec_integer(&s.spec_replicas_path)) {
                out.extend(pinned(cx, w, field, count));
            }
            return;
        }
        if let Some(refusal) = cx.target_refusal() {
            // Not a workload kube-apiserver takes (a count it cannot decode or refuses, a selector
            // it refuses or that does not select the pod template): it is never created. One
            // finding, from the first of the HPAs that scale it, naming them all.
            if let Some(f) = refused(cx, w, refusal) {
                out.push(f);
            }
            return;
        }
        if let Some(why) = w.workload_ref.as_ref().and_then(|r| r.refused.as_deref()) {
            // An Argo Rollout whose reference Argo Rollouts refuses: it makes no pods.
            if let Some(hpas) = hpas_saying(cx, w) {
                out.push(refused_reference(cx, w, why, hpas));
            }
            return;
        }
        let Some(replicas) = w.replicas else { return };
        out.extend(pinned(cx, w, "spec.replicas", replicas));
    }
}

/// The finding on a workload kube-apiserver refuses ([`Context::target_refusal`]): the
/// target `w`, or the workload an Argo Rollout target's `spec.workloadRef` names, which Argo
/// Rollouts then cannot resolve. One problem, one finding, however many paths lead to it: the
/// HPAs that scale the refused workload itself, then those of every Argo Rollout whose
/// `spec.workloadRef` names it ([`rollouts_taking`], by name), and the first of them says it
/// (`None` for the others), naming each Rollout and pointing at each Rollout and HPA.
fn refused(cx: &Context<'_>, w: &Workload, refusal: &WorkloadRefusal<'_>) -> Option<Finding> {
    let WorkloadRefusal { workload: refused, field, message: error } = refusal;
    let direct = std::ptr::eq(*refused, w);
    let rollouts = rollouts_taking(cx, refused, w);
    let mut targets = vec![(refused.id.clone(), "this HPA scales it")];
    targets.extend(rollouts.iter().map(|r| (r.clone(), "this HPA scales the Rollout")));
    let hpas = hpas_saying_for(cx, &targets)?;
    let help = if field != "spec.replicas" && error.contains(": json: cannot unmarshal ") {
        "write every key and value of the selector and of the template's labels and annotations as a string (quote a number or a boolean: version: \"1.0\")"
    } else if field == "spec.selector" {
        "give the workload a selector of its pods, spec.selector.matchLabels with its pod template's labels (kube-apiserver defaults none)"
    } else if field.starts_with("spec.selector") {
        super::REFUSED_SELECTOR_HELP
    } else if field == "spec.template.metadata.labels" {
        "give the pod template the labels spec.selector selects (kube-apiserver refuses a workload whose selector does not select its own pods)"
    } else if field == "metadata.name" {
        if refused.id.kind == "StatefulSet" {
            "name the StatefulSet as kube-apiserver takes it: a DNS label (up to 63 lowercase alphanumeric characters or '-', starting and ending alphanumeric; its pods' hostnames are made from it)"
        } else {
            "name the workload as kube-apiserver takes it: a DNS subdomain (up to 253 lowercase alphanumeric characters, '-' or '.', starting and ending alphanumeric)"
        }
    } else if field == "spec.template" {
        "give the ReplicationController a pod template (spec.template), with the labels its selector selects and its containers"
    } else if field == "spec.template.annotations" {
        "write the pod template's annotation keys as kube-apiserver takes them: a name with an optional DNS prefix (prefix/name), of alphanumeric characters, '-', '_' or '.'; all annotations together up to 256 KiB"
    } else if field == "spec.template.spec.containers" {
        "give the pod template at least one container (spec.template.spec.containers)"
    } else if field == "spec.template.labels" {
        "write the pod template's labels as valid labels: keys of a name with an optional DNS prefix, values of up to 63 alphanumeric characters, '-', '_' or '.' that start and end alphanumeric"
    } else if direct && w.replicas.is_some_and(|n| n < 0) {
        "remove spec.replicas from the workload (the HPA owns it), or write a count of 0 or more"
    } else if direct {
        "remove spec.replicas from the workload (the HPA owns it), or write it as an integer up to 2147483647"
    } else {
        "write spec.replicas: 0 in the workload the Rollout takes its pod template from (the Rollout runs the pods)"
    };
    let message = match rollouts.first() {
        None => format!("kube-apiserver rejects {} ({error}), so there is nothing to scale", w.id),
        Some(first) => {
            // Argo Rollouts' `Resolve` finds no such workload (its lister's NotFound, named by
            // the resource), and its controller sets the Rollout's InvalidSpec condition in
            // these words (`createInvalidRolloutCondition`).
            let group = crate::api::GroupVersion::parse_or_empty(&refused.id.api_version);
            let resource = format!("{}s.{}", refused.id.kind.to_ascii_lowercase(), group.group());
            let (makes, likewise) = if rollouts.len() > 1 { ("make", ", and likewise of each") } else { ("makes", "") };
            // Scaled directly too, it is the first thing with nothing to scale.
            let it_too = if direct { "it is never created, and " } else { "" };
            format!(
                "kube-apiserver rejects {} ({error}), so {it_too}{}, whose spec.workloadRef names it, {makes} no pods (Argo Rollouts: The Rollout \"{}\" is invalid: {resource} \"{}\" not found{likewise}): there is nothing to scale",
                refused.id,
                and_list(&rollouts),
                first.name,
                refused.id.name
            )
        }
    };
    // kube-apiserver names the template's labels `spec.template.labels` (its internal
    // template embeds the metadata), its annotations likewise; they are written under
    // `metadata`.
    let at = match field.as_str() {
        "spec.template.labels" => "spec.template.metadata.labels".to_string(),
        "spec.template.annotations" => "spec.template.metadata.annotations".to_string(),
        _ => field.clone(),
    };
    let mut f =
        Finding::new(&WorkloadSetsReplicas::META, field.clone(), message).help(help).on_object(refused.id.clone(), at);
    f.severity = super::Severity::Error;
    let own = if direct { "this HPA scales it" } else { "this HPA scales the Rollout" };
    f = scaled_by(cx, f, own, hpas.iter().map(|(id, label)| (id, *label)));
    for rollout in rollouts.iter().take(MAX_NAMED) {
        f = f.related(
            FindingField::Object { id: rollout.clone(), path: "spec.workloadRef".into() },
            "takes its pod template from it",
        );
    }
    Some(f)
}

/// At most this many Rollouts are named in a message and pointed at (as HPA407 names HPAs).
const MAX_NAMED: usize = 5;

/// The Argo Rollouts of `w`'s namespace whose pods are made from `template` (their
/// `spec.workloadRef` names it: [`Objects::pod_template_of`](super::objects::Objects::pod_template_of)),
/// `w` among them when it is not `template`, sorted by name.
fn rollouts_taking(cx: &Context<'_>, template: &Workload, w: &Workload) -> Vec<super::ObjectId> {
    let own = (!std::ptr::eq(template, w)).then(|| w.id.clone());
    let Some(objects) = cx.objects else { return own.into_iter().collect() };
    let mut rollouts: Vec<super::ObjectId> = objects
        .workloads_of(&w.id.namespace)
        .into_iter()
        .filter(|r| r.workload_ref.is_some() && r.id != template.id)
        .filter(|r| objects.pod_template_of(r).is_some_and(|t| t.id == template.id))
        .map(|r| r.id.clone())
        .collect();
    if let Some(own) = own.filter(|own| !rollouts.contains(own)) {
        rollouts.push(own);
    }
    rollouts.sort_by(|a, b| a.name.cmp(&b.name));
    rollouts
}

/// `Rollout shop/a`, `Rollout shop/a and Rollout shop/b`, `Rollout shop/a, Rollout shop/b and 3
/// more`: up to [`MAX_NAMED`].
fn and_list(workloads: &[super::ObjectId]) -> String {
    let named: Vec<String> = workloads.iter().take(MAX_NAMED).map(ToString::to_string).collect();
    let more = workloads.len().saturating_sub(MAX_NAMED);
    match (named.split_last(), more) {
        (Some((last, rest)), 0) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        (_, 0) => named.join(", "),
        (_, more) => format!("{} and {more} more", named.join(", ")),
    }
}

/// [`hpas_saying`] over several targets (a refused workload and the Rollouts taking its
/// template), each with the label of the HPAs that scale it: the HPAs that scale any of them,
/// target by target in the order given; this HPA says the finding when it is the first of them
/// (or not among them).
fn hpas_saying_for(
    cx: &Context<'_>,
    targets: &[(super::ObjectId, &'static str)],
) -> Option<Vec<(super::ObjectId, &'static str)>> {
    let objects = cx.objects?;
    let hpas: Vec<(super::ObjectId, &'static str)> = targets
        .iter()
        .flat_map(|(t, label)| {
            objects.hpas_targeting(&t.namespace, t.group(), &t.kind, &t.name).iter().map(|h| (h.clone(), *label))
        })
        .collect();
    let ids: Vec<super::ObjectId> = hpas.iter().map(|(id, _)| id.clone()).collect();
    says(cx, objects, &ids).then_some(hpas)
}

/// The HPAs that scale `w` (`Objects::hpas_targeting`), when the finding about `w` itself (a
/// workload that is never created or makes no pods) is this HPA's to say: one problem, said once,
/// by the first of them in the set's order (or by an HPA not among them); `None` for the others.
/// At admission (`hpa-webhook`'s context cache) the HPA under review always says it: the others
/// are not reported with it.
fn hpas_saying<'a>(cx: &Context<'a>, w: &Workload) -> Option<&'a [super::ObjectId]> {
    let objects = cx.objects?;
    let hpas = objects.hpas_targeting(&w.id.namespace, w.id.group(), &w.id.kind, &w.id.name);
    says(cx, objects, hpas).then_some(hpas)
}

/// Whether this HPA says the finding that `hpas` (this one among them, or not) share: it is the
/// first of them, or not among them, or the webhook's HPA under review.
fn says(cx: &Context<'_>, objects: &dyn super::objects::Objects, hpas: &[super::ObjectId]) -> bool {
    !matches!(
        (hpas.first(), cx.id),
        (Some(first), Some(me))
            if first != me && hpas.contains(me) && objects.source() != super::objects::WorldSource::ContextCache
    )
}

/// `f` pointing at this HPA's `spec.scaleTargetRef` (labelled `own`) and at those of up to a
/// few other `hpas` (as HPA407 names them), each with its label.
fn scaled_by<'h>(
    cx: &Context<'_>,
    mut f: Finding,
    own: &'static str,
    hpas: impl IntoIterator<Item = (&'h super::ObjectId, &'static str)>,
) -> Finding {
    f = f.related(FindingField::Hpa("spec.scaleTargetRef".into()), own);
    for (other, label) in hpas.into_iter().filter(|(id, _)| Some(*id) != cx.id).take(5) {
        f = f.related(FindingField::Object { id: other.clone(), path: "spec.scaleTargetRef".into() }, label);
    }
    f
}

/// The finding on an Argo Rollout `w` whose `spec.workloadRef` Argo Rollouts refuses (`why`, in
/// its words: [`WorkloadRef::refused`](super::objects::WorkloadRef::refused)): its controller sets
/// the Rollout's InvalidSpec condition (`createInvalidRolloutCondition`: `The Rollout "web" is
/// invalid: ...`) and makes no pods. On the template it also writes, or on the kind it names.
fn refused_reference(cx: &Context<'_>, w: &Workload, why: &str, hpas: &[super::ObjectId]) -> Finding {
    let (at, help) = if why.starts_with("template must be empty") {
        (
            "spec.template",
            "leave spec.template out of a Rollout with spec.workloadRef: its pods are made from the template of the workload it names",
        )
    } else {
        (
            "spec.workloadRef.kind",
            "name a Deployment, a ReplicaSet or a PodTemplate in spec.workloadRef (Argo Rollouts resolves no other kind), or write the pod template in the Rollout's spec.template",
        )
    };
    let message = format!(
        "Argo Rollouts refuses {} (InvalidSpec: The Rollout \"{}\" is invalid: {why}), so it makes no pods: there is nothing to scale",
        w.id, w.id.name
    );
    let mut f = Finding::new(&WorkloadSetsReplicas::META, at, message).help(help).on_object(w.id.clone(), at);
    f.severity = super::Severity::Error;
    scaled_by(cx, f, "this HPA scales it", hpas.iter().map(|id| (id, "this HPA scales it")))
}

/// The finding on `w`, which writes `count` at `field` (`spec.replicas`, or the
/// `specReplicasPath` of a custom resource's CRD) while the HPA scales it: one problem of the
/// workload, said once by the first of the HPAs that scale it ([`hpas_saying`]; `None` for the
/// others), pointing at each.
fn pinned(cx: &Context<'_>, w: &Workload, field: &str, count: i64) -> Option<Finding> {
    let hpas = hpas_saying(cx, w)?;
    // Named as the workload is, with its namespace (`ObjectId`'s display).
    let mut hpa = String::new();
    let _ = super::objects::write_object(&mut hpa, crate::api::KIND, cx.namespace(), &cx.effective.metadata.name);
    // At 0 replicas the controller does not scale an HPA whose minReplicas is not 0: it sets
    // ScalingActive False, ScalingDisabled (`reconcileAutoscaler` in
    // `horizontal.go`), so every apply switches the HPA off.
    let message = if count == 0 && cx.effective.spec.min_replicas != Some(0) {
        format!(
            "{} sets {field}: 0 while {hpa} scales it: every apply scales it to 0, and the controller then disables the HPA (ScalingDisabled: \"scaling is disabled since the replica count of the target is zero\") until something scales the workload up",
            w.id
        )
    } else {
        format!("{} sets {field}: {count} while {hpa} scales it: every apply resets the count", w.id)
    };
    let f = Finding::new(&WorkloadSetsReplicas::META, field, message)
        .help(format!("remove {field} from the workload; the HPA owns it"))
        .on_object(w.id.clone(), field);
    Some(scaled_by(cx, f, "this HPA scales it", hpas.iter().map(|id| (id, "this HPA scales it too"))))
}
