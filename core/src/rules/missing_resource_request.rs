//! HPA201 `missing-resource-request`: a utilization target the controller cannot compute.

use super::objects::{AdmittedPod, TemplateContainer, describe_containers};
use super::unsupported_resource_metric::served;
use super::{Context, Finding, FindingField, Rule, RuleMeta};
use crate::api::VersionedHpa;
use crate::features::{FeatureGates, Gate, KubernetesVersion};

crate::declare_rule! {
    /// ## What it checks
    ///
    /// A `Resource` metric with a `Utilization` target while some container of the scale target's
    /// pods (regular containers and restartable init containers, "sidecars"; not plain init
    /// containers) has no request for that resource; or a `ContainerResource` utilization metric
    /// whose container has none. This includes the CPU metric that kube-apiserver adds when
    /// `metrics` is omitted (and every `autoscaling/v1` HPA's). One finding per metric names
    /// every container without the request. Only `cpu` and `memory` are judged: the resource
    /// metrics API serves no other resource, so a utilization of `ephemeral-storage`,
    /// `storage`, `hugepages-*` or `pods` never works whatever the requests (HPA204 reports it).
    ///
    /// Requests are those of the pods as kube-apiserver admits them, not only as written in the
    /// template: a container with a limit and no request for a resource gets the limit as its
    /// request (`SetDefaults_Pod`; per resource: a memory limit says nothing about cpu), and a
    /// `LimitRange` of the namespace gives the containers its `defaultRequest` (or `default`,
    /// `max` or `min`, from which kube-apiserver defaults it: `SetDefaults_LimitRangeItem`) of
    /// each resource they still lack (LimitRanger), from its items of `type: Container` only,
    /// every LimitRange of the namespace in turn. A LimitRange kube-apiserver refuses
    /// (`ValidateLimitRange` on its items as defaulted: a `defaultRequest` above the `default` or
    /// the `max`, a `min` above the `max`, two items of one type, ...), or cannot decode (a
    /// quantity that does not parse, even another resource's), is never stored and gives
    /// nothing: when it is the one that would have given the request, the finding says so, with
    /// kube-apiserver's words, and points at its refused field.
    /// With pod-level requests (`spec.template.spec.resources`, feature gate `PodLevelResources`,
    /// on by default from Kubernetes 1.34), the controller uses the pod's total instead (the
    /// pod-level request, or else the containers' aggregate), and only a pod without any request
    /// for the resource is reported. From 1.34 to 1.37 that total includes the pod's overhead:
    /// the `overhead.podFixed` of the `RuntimeClass` that the template's `runtimeClassName`
    /// names, which the RuntimeClass admission plugin sets on each pod; 1.38 leaves the overhead
    /// out. The 1.33 controller ignores pod-level requests even with the
    /// alpha gate on, so for `kubernetesVersion: "1.33"` every container needs its own request.
    /// Requests of 0 in every container (or pod-level) add up to 0, which the controller refuses
    /// as it refuses no request (`no metrics returned matched known pods`): reported too, and so
    /// is a `ContainerResource` utilization metric whose container requests 0.
    ///
    /// A request written but not decodable is not a missing one: a quantity that does not parse
    /// (`cpu: abc`, `cpu: true`) or `resources`, `requests` or `limits` that are not mappings
    /// (`resources: []`) make kube-apiserver reject the whole workload when it decodes it, and
    /// the finding says so in its words (`Deployment in version "v1" cannot be handled as a
    /// Deployment: quantities must match the regular expression ...`). A quantity written
    /// `null` decodes as 0 (`Quantity.UnmarshalJSON`), a request of 0.
    ///
    /// The controller reads the requests of every pod the scale target's selector selects, not
    /// only the target's own: the other objects of the namespace whose pods it selects (a bare
    /// Pod such as the `helm create` scaffold's test Pod, a Job, a CronJob's jobs, another
    /// workload with more labels) need the request too, and each that lacks it is reported,
    /// named. A finished pod still counts while it is kept (`calculatePodRequests` reads the
    /// whole pod list on every release, Succeeded and Failed pods included).
    ///
    /// For an Argo Rollout with `spec.workloadRef`, the referenced workload's template is read
    /// (a Deployment's or ReplicaSet's `spec.template`, a core PodTemplate's `template`). A
    /// custom resource with a `/scale` subresource (any kind but Kubernetes' own workloads,
    /// Argo Rollouts and OpenShift DeploymentConfigs) makes its pods as its operator decides:
    /// they are not guessed from a `spec.template` it may have, and it is not judged.
    ///
    /// Where the workload, its LimitRanges and its RuntimeClass are read from: in files, the
    /// HPA's manifest set (a workload not in it is not judged); with `hpa-lint cluster`, the
    /// cluster (its workloads and LimitRanges in the namespaces read, its RuntimeClasses across
    /// the cluster); in `hpa-webhook`, its context cache (`--context-cache`), which watches the
    /// same kinds. Live, only the templates of the workloads read are judged (the target's and
    /// those of the other workloads its selector selects): bare Pods, Jobs, CronJobs and
    /// PodTemplates are not read. Where RBAC refused the LimitRanges of the workload's namespace,
    /// or the RuntimeClasses while the controller adds a pod's overhead (1.34 to 1.37, a
    /// template with `runtimeClassName`), a request they could give is not concluded missing:
    /// `hpa-lint cluster` reports nothing for it and notes what it could not read, and the
    /// webhook's answer says it checked the HPA in part (`RBAC refuses to watch limitranges`).
    ///
    /// A target kube-apiserver refuses (HPA410: a selector it refuses, a count it cannot decode,
    /// ...) is never created and has no pods: this rule says nothing of it, HPA410 is the one
    /// finding. Live objects (`hpa-lint cluster`, `hpa-webhook`) were admitted: never refused.
    /// An HPA whose target the controller never scales, a kind without a `scale` subresource
    /// (HPA402: a DaemonSet, a Job, ...) or a built-in kind in a group that does not serve it
    /// (HPA405), fails at `FailedGetScale` before it reads a metric: this rule says nothing of
    /// it either.
    ///
    /// ## Why it matters
    ///
    /// Utilization is usage divided by requests. The HPA controller refuses to compute it when a
    /// request is missing (`missing request for cpu in container app of Pod ...`): it sets
    /// `ScalingActive=False` with reason `FailedGetResourceMetric`, and a failing metric blocks
    /// every scale-down, even those that other metrics of the HPA ask for. With no other metric,
    /// the HPA never scales at all.
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
    ///           limits: {memory: 512Mi}
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
    ///           requests: {cpu: 500m}
    ///           limits: {memory: 512Mi}
    /// ```
    ///
    /// ## How to fix
    ///
    /// Give every container a request for the resource, sidecars included (a limit alone also sets
    /// it, at the limit's value); or use an `AverageValue` target (`averageValue: 350m`), which
    /// needs no request; or scale on one container with a `ContainerResource` metric. An
    /// `autoscaling/v1` HPA has neither: write it in `autoscaling/v2` for those.
    pub struct MissingResourceRequest {
        id: "HPA201",
        name: "missing-resource-request",
        severity: Error,
        summary: "a utilization metric while a container has no request for the resource",
        needs_objects: true,
    }
}

impl Rule for MissingResourceRequest {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Finding>) {
        let Some(objects) = cx.objects else { return };
        let Some(template) = cx.target_pod_template() else { return };
        // A target kube-apiserver refuses has no pods: HPA410 says why.
        if template.containers.is_empty() || cx.target_refusal().is_some() {
            return;
        }
        // What the controller reads are the pods, as kube-apiserver admitted them.
        let gate = cx.settings.gates().enabled(Gate::PodLevelResources);
        // With pod-level requests (and no container named), the controller takes the pod's
        // aggregated requests instead (`calculatePodLevelRequests` in `replica_calculator.go`,
        // through component-helpers' `PodRequests`): the pod-level value, or else the
        // containers' aggregate, plus the pod's overhead (its RuntimeClass's) from 1.34 to 1.37;
        // it fails only when none has the resource. (The 1.33 controller ignores pod-level
        // requests: `pod_level_requests` says from which release.)
        let pod = admitted(cx, objects, template, gate);
        let pod_level = cx.settings.gates().pod_level_requests() && pod.pod_level_requests_set();
        let unseen = Unseen::of(cx, objects, template);
        let v1 = cx.written_in_v1();
        // No metric written: the one metric is kube-apiserver's default, 80% cpu utilization
        // (`SetDefaults_HorizontalPodAutoscaler`; autoscaling/v1's conversion adds it to an HPA
        // without `targetCPUUtilizationPercentage` nor metrics annotation), which nothing written
        // stands for: findings point at where the metrics would be written.
        let defaulted = match cx.original {
            VersionedHpa::V1(h) => {
                h.spec.target_cpu_utilization_percentage.is_none()
                    && !h.metadata.annotations.contains_key(crate::convert::annotations::METRICS)
            }
            _ => cx.written.spec.metrics.is_empty(),
        };
        for (i, m) in cx.effective.spec.metrics.iter().enumerate() {
            // The controller reads averageValue first: only then utilization needs requests.
            // A resource the metrics API never serves has no utilization whatever the requests:
            // HPA204 reports it, once.
            if let Some(r) = &m.resource
                && m.type_ == "Resource"
                && served(&r.name)
                && r.target.average_value.is_none()
                && r.target.average_utilization.is_some()
            {
                let resource = r.name.as_str();
                let path = if defaulted {
                    if v1 { "spec.targetCPUUtilizationPercentage" } else { "spec.metrics" }.to_string()
                } else {
                    format!("spec.metrics[{i}].resource.target.averageUtilization")
                };
                if pod_level {
                    let total = pod.pod_requests(resource);
                    if unseen.may_raise(total) {
                        continue;
                    }
                    if total == Some(0) {
                        out.push(zero_requests(resource, &path, template));
                    } else if total.is_none() {
                        out.push(
                            Finding::new(
                                &Self::META,
                                path,
                                format!(
                                    "{resource} utilization is measured against the pod-level requests of {}, and neither they nor any container request {resource}: the controller will not scale on this metric",
                                    template.id
                                ),
                            )
                            .help(format!("add {resource} to the pod-level resources.requests"))
                            .related(
                                FindingField::Object {
                                    id: template.id.clone(),
                                    path: format!("{}.resources.requests", template.pod_spec_path),
                                },
                                format!("no {resource} among the pod-level requests"),
                            ),
                        );
                    }
                    continue;
                }
                let missing: Vec<&TemplateContainer> =
                    template.containers.iter().filter(|c| pod.container_request(c, resource).is_none()).collect();
                if missing.is_empty() {
                    // Requests of 0 in every container add up to 0 in every pod.
                    let zero = template
                        .containers
                        .iter()
                        .all(|c| pod.container_request(c, resource).is_some_and(|q| q.milli_value() == 0));
                    if zero {
                        out.push(zero_requests(resource, &path, template));
                    }
                    continue;
                }
                // A request written but not decodable: kube-apiserver rejects the workload.
                let undecodable: Vec<&TemplateContainer> =
                    missing.iter().copied().filter(|c| c.resources_error.is_some()).collect();
                if !undecodable.is_empty() {
                    out.push(rejected(&path, template, &undecodable));
                    continue;
                }
                if unseen.limit_ranges {
                    continue;
                }
                let named = describe_containers(&missing);
                let alternative = match (v1, defaulted) {
                    (true, false) => {
                        "or write the HPA in autoscaling/v2 and use an AverageValue target (autoscaling/v1 has only targetCPUUtilizationPercentage)"
                    }
                    (true, true) => {
                        "or write the HPA in autoscaling/v2 with metrics of your own (an AverageValue target needs no request)"
                    }
                    (false, false) => "or use an AverageValue target",
                    (false, true) => {
                        "or write metrics of your own in spec.metrics (an AverageValue target needs no request)"
                    }
                };
                let subject = match (v1, defaulted) {
                    (_, false) => format!("{resource} utilization"),
                    (true, true) => "the default cpu metric (80% utilization, which kube-apiserver adds to an HPA without spec.targetCPUUtilizationPercentage)".to_string(),
                    (false, true) => "the default cpu metric (80% utilization, which kube-apiserver adds when spec.metrics is empty)".to_string(),
                };
                let f = Finding::new(
                    &Self::META,
                    path,
                    format!(
                        "{subject} needs a {resource} request in every container, and {named} of {} {} none: the controller will not scale on this metric",
                        template.id,
                        if missing.len() == 1 { "has" } else { "have" },
                    ),
                )
                .help(format!(
                    "add resources.requests.{resource} to {named} (a {resource} limit alone also sets it), {alternative}"
                ));
                let f = refused_limit_range(cx, objects, template, resource, f);
                out.push(without_request_here(f, template, &missing, resource));
            }
            if let Some(r) = &m.container_resource
                && m.type_ == "ContainerResource"
                && served(&r.name)
                && r.target.average_value.is_none()
                && r.target.average_utilization.is_some()
                && let Some(c) = template.containers.iter().find(|c| c.name == r.container)
            {
                let path = format!("spec.metrics[{i}].containerResource.target.averageUtilization");
                let here = FindingField::Object {
                    id: template.id.clone(),
                    path: format!("{}.{}[{}]", template.pod_spec_path, c.list(), c.index),
                };
                // A restartable init container is named a sidecar, as everywhere else.
                let named = describe_containers(&[c]);
                match pod.container_request(c, &r.name) {
                    None if c.resources_error.is_some() => out.push(rejected(&path, template, &[c])),
                    None if unseen.limit_ranges => {}
                    None => {
                        let f = Finding::new(
                            &Self::META,
                            path,
                            format!(
                                "{} utilization of {named} needs a {} request, and it has none: the controller will not scale on this metric",
                                r.name, r.name
                            ),
                        )
                        .help(format!(
                            "add resources.requests.{} to {named} (a {} limit alone also sets it)",
                            r.name, r.name
                        ));
                        let f = refused_limit_range(cx, objects, template, &r.name, f);
                        out.push(f.related(here, format!("no {} request here", r.name)));
                    }
                    // The container's requests are the pods' requests for this metric
                    // (`calculatePodRequests` with a container name): 0 in every pod is refused
                    // as for a `Resource` metric.
                    Some(q) if q.milli_value() == 0 => out.push(
                        Finding::new(
                            &Self::META,
                            path,
                            format!(
                                "{} utilization of {named} is measured against its {} request, which is 0: the controller will not scale on this metric (\"the HPA was unable to compute the replica count: failed to get {} utilization: no metrics returned matched known pods\")",
                                r.name, r.name, r.name
                            ),
                        )
                        .help(format!(
                            "request some {} in {named} (a request of 0 makes every utilization undefined), or use an AverageValue target",
                            r.name
                        ))
                        .related(here, format!("{} request of 0 here", r.name)),
                    ),
                    Some(_) => {}
                }
            }
        }
        other_selected_pods(cx, objects, template, defaulted, out);
    }

    /// Whether pod-level requests count ([`FeatureGates::pod_level_requests`]), and whether the
    /// pod's overhead counts with them ([`FeatureGates::pod_overhead`]): from 1.34 to 1.37 a
    /// RuntimeClass overhead gives the pod a request for its resources, which 1.38 leaves out.
    fn on_release(&self, gates: &FeatureGates) -> Option<String> {
        Some(if gates.pod_level_requests() {
            let overhead = if gates.pod_overhead() {
                "the pod's overhead (its RuntimeClass's `overhead.podFixed`) counts with them: a pod whose only request for the resource is its overhead is not reported"
            } else {
                "the pod's overhead does not count with them (#142154): a pod whose only request for the resource is its overhead is reported"
            };
            format!(
                "pod-level requests (`spec.template.spec.resources`) count: only a pod with no request at all for the resource is reported; {overhead}"
            )
        } else if gates.version() == KubernetesVersion::V1_33 {
            "the controller ignores pod-level requests, even with PodLevelResources on: every container needs its own request".into()
        } else {
            "PodLevelResources is off: the controller ignores pod-level requests, so every container needs its own request".into()
        })
    }
}

/// The findings for the other objects of the namespace (bare Pods, Jobs, CronJobs, other
/// workloads: [`Objects::workloads_sharing_pods`]) whose pods the scale target's selector
/// selects and which lack the request of a `Resource` utilization metric: the controller lists
/// every pod under the target's selector and reads the requests of each
/// (`calculatePodRequests` over the pod list in `GetResourceReplicas`, `replica_calculator.go`,
/// every release), so one such pod fails the metric (`missing request for cpu`), as the
/// `helm create` scaffold's test Pod does after `helm test`. A workload scaled to zero runs no
/// pod ([`Workload::zero_replicas`]: a Deployment's old ReplicaSets, live, whose template may
/// predate the request). `own`: the target's pod template, checked already.
///
/// [`Workload::zero_replicas`]: super::objects::Workload::zero_replicas
///
/// [`Objects::workloads_sharing_pods`]: super::objects::Objects::workloads_sharing_pods
fn other_selected_pods(
    cx: &Context<'_>,
    objects: &dyn super::objects::Objects,
    own: &super::objects::Workload,
    defaulted: bool,
    out: &mut Vec<Finding>,
) {
    let Some(target) = cx.target_workload() else { return };
    let Some(selector) = &target.selector else { return };
    let metrics: Vec<(usize, &str)> = cx
        .effective
        .spec
        .metrics
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let r = m.resource.as_deref().filter(|_| m.type_ == "Resource")?;
            (served(&r.name) && r.target.average_value.is_none() && r.target.average_utilization.is_some())
                .then_some((i, r.name.as_str()))
        })
        .collect();
    if metrics.is_empty() {
        return;
    }
    let gate = cx.settings.gates().enabled(Gate::PodLevelResources);
    let pod_level = cx.settings.gates().pod_level_requests();
    // A workload that makes no pods (kube-apiserver refuses it: never created) has none here,
    // nor one scaled to zero (a Deployment's old ReplicaSets, whose pods lacked the request).
    for w in objects.workloads_sharing_pods(target).into_iter().filter(|w| !cx.makes_no_pods(w) && !w.zero_replicas) {
        let Some(t) = objects.pod_template_of(w) else { continue };
        if t.id == own.id || t.containers.is_empty() || !selector.matches(&t.pod_labels) {
            continue;
        }
        let pod = admitted(cx, objects, t, gate);
        let unseen = Unseen::of(cx, objects, t);
        for &(i, resource) in &metrics {
            let missing: Vec<&TemplateContainer> = if pod_level && pod.pod_level_requests_set() {
                let total = pod.pod_requests(resource);
                if total.is_some() || unseen.may_raise(total) { Vec::new() } else { t.containers.iter().collect() }
            } else if unseen.limit_ranges {
                Vec::new()
            } else {
                t.containers.iter().filter(|c| pod.container_request(c, resource).is_none()).collect()
            };
            if missing.is_empty() {
                continue;
            }
            let path = if defaulted {
                if cx.written_in_v1() { "spec.targetCPUUtilizationPercentage" } else { "spec.metrics" }.to_string()
            } else {
                format!("spec.metrics[{i}].resource.target.averageUtilization")
            };
            let named = describe_containers(&missing);
            let f = Finding::new(
                &MissingResourceRequest::META,
                path,
                format!(
                    "{resource} utilization is measured against the requests of every pod the selector of {} ({}) selects, and it selects the pods of {}, whose {named} {} no {resource} request: the controller will not scale on this metric while one runs or is kept",
                    target.id,
                    selector.format(),
                    t.id,
                    if missing.len() == 1 { "has" } else { "have" },
                ),
            )
            .help(format!(
                "give {named} of {} a {resource} request, or give its pods labels the selector of {} does not match",
                t.id, target.id
            ));
            out.push(without_request_here(f, t, &missing, resource));
        }
    }
}

/// The pods of `template` as the controller reads their requests: admitted with the LimitRanges
/// of their namespace (`gate`: `PodLevelResources`), with the overhead of their RuntimeClass
/// where the release adds it ([`FeatureGates::pod_overhead`]).
fn admitted<'a>(
    cx: &Context<'_>,
    objects: &'a dyn super::objects::Objects,
    template: &'a super::objects::Workload,
    gate: bool,
) -> AdmittedPod<'a> {
    let overhead = cx.settings.gates().pod_overhead().then(|| objects.pod_overhead(template)).flatten();
    AdmittedPod::new(template, objects.limit_ranges(&template.id.namespace), gate).with_overhead(overhead)
}

/// What a live world could not show of the pods of a template ([`Objects::would_hold`]): the
/// LimitRanges of its namespace (RBAC refused their list: a `defaultRequest` may give a request
/// that looks missing), or the RuntimeClass its `runtimeClassName` names where the controller
/// adds the pod's overhead to its pod-level requests (1.34 to 1.37: a total that looks missing
/// or 0 may not be). HPA201 then concludes nothing from the absence; the front end's note says
/// what was not read (`hpa-lint cluster`), or its warning that the check was partial
/// (`hpa-webhook`).
///
/// [`Objects::would_hold`]: super::objects::Objects::would_hold
#[derive(Debug, Clone, Copy)]
struct Unseen {
    /// The LimitRanges of the template's namespace are not all seen.
    limit_ranges: bool,
    /// The overhead the controller adds to the pod's requests is not seen.
    overhead: bool,
}

impl Unseen {
    fn of(cx: &Context<'_>, objects: &dyn super::objects::Objects, template: &super::objects::Workload) -> Unseen {
        let limit_ranges = !objects.would_hold("", "LimitRange", &template.id.namespace, "");
        let overhead = cx.settings.gates().pod_overhead()
            && template
                .runtime_class_name
                .as_deref()
                .is_some_and(|name| !objects.would_hold("node.k8s.io", "RuntimeClass", "", name));
        Unseen { limit_ranges, overhead }
    }

    /// Whether what is unseen may make a pod-level total of `total` (none, or 0) more: an
    /// overhead adds to any, a LimitRange's defaults give one where there is none.
    fn may_raise(self, total: Option<i64>) -> bool {
        match total {
            None => self.overhead || self.limit_ranges,
            Some(0) => self.overhead,
            Some(_) => false,
        }
    }
}

/// `f` with each container of `missing` (of `template`) as a related place without a request
/// for `resource`.
/// `f`, a request of `resource` concluded missing in `template`'s containers, saying so when a
/// LimitRange of its namespace would give them one but kube-apiserver refuses it
/// ([`LimitRange::stored`]: `defaultRequest` above `default`, `min` above `max`, a quantity
/// that does not parse, ...): it is
/// never stored, so LimitRanger gives nothing from it. The message names it with
/// kube-apiserver's words (values printed as the release prints them), the help says to
/// correct it, and a related place points at its first refused field.
///
/// [`LimitRange::stored`]: super::objects::LimitRange::stored
fn refused_limit_range(
    cx: &Context<'_>,
    objects: &dyn super::objects::Objects,
    template: &super::objects::Workload,
    resource: &str,
    mut f: Finding,
) -> Finding {
    // One whose quantity for the resource does not parse gives it too, were it stored.
    let bracketed = format!("[{resource}]");
    let refused = objects.limit_ranges(&template.id.namespace).iter().find(|range| {
        !range.stored()
            && (range.limits.iter().any(|i| i.type_ == "Container" && i.default_request.contains_key(resource))
                || range.undecodable.as_ref().is_some_and(|u| u.field.ends_with(&bracketed)))
    });
    let Some(range) = refused else { return f };
    let (at, words) = match &range.undecodable {
        Some(undecodable) => (undecodable.field.clone(), undecodable.message.clone()),
        None => {
            let rendering = crate::field::ValueRendering::of(cx.settings.gates().version());
            let mut errors = range.refusal.clone();
            for e in &mut errors {
                e.rendering = rendering;
            }
            let at = errors.first().map_or_else(|| "spec.limits".to_string(), |e| e.field.clone());
            (at, crate::field::invalid_message(&range.id.kind, "", &range.id.name, &errors))
        }
    };
    f.message = format!(
        "{}; {}, whose default would give the request, is rejected by kube-apiserver ({words}), so LimitRanger gives nothing",
        f.message, range.id
    );
    if let Some(help) = f.help.take() {
        f.help = Some(format!("{help}; or correct {} so that kube-apiserver accepts it", range.id).into());
    }
    f.related(FindingField::Object { id: range.id.clone(), path: at }, "rejected by kube-apiserver")
}

fn without_request_here(
    mut f: Finding,
    template: &super::objects::Workload,
    missing: &[&TemplateContainer],
    resource: &str,
) -> Finding {
    for c in missing {
        f = f.related(
            FindingField::Object {
                id: template.id.clone(),
                path: format!("{}.{}[{}]", template.pod_spec_path, c.list(), c.index),
            },
            format!("no {resource} request here"),
        );
    }
    f
}

/// The finding for a utilization metric of `resource` whose pods request 0 of it in all: the
/// controller divides by the requests' total, and refuses a total of 0
/// (`GetResourceUtilizationRatio` in `pkg/controller/podautoscaler/metrics/utilization.go`:
/// `no metrics returned matched known pods`, the same words in every release), so
/// `computeStatusForResourceMetricGeneric` fails and the HPA's `ScalingActive` condition is
/// `False` (`FailedGetResourceMetric`) with the controller's message.
fn zero_requests(resource: &str, path: &str, template: &super::objects::Workload) -> Finding {
    Finding::new(
        &MissingResourceRequest::META,
        path,
        format!(
            "{resource} utilization is measured against the {resource} requests of {}, which add up to 0: the controller will not scale on this metric (\"the HPA was unable to compute the replica count: failed to get {resource} utilization: no metrics returned matched known pods\")",
            template.id
        ),
    )
    .help(format!("request some {resource} (a request of 0 makes every utilization undefined), or use an AverageValue target"))
    .related(
        FindingField::Object { id: template.id.clone(), path: format!("{}.containers", template.pod_spec_path) },
        format!("no {resource} requested here"),
    )
}

/// The finding for a utilization metric whose containers `undecodable` write their requests in a
/// way kube-apiserver cannot decode (a quantity that does not parse, `resources: []`, ...): it
/// rejects the whole workload, in the words of its decoding (`transformDecodeError`: `Deployment
/// in version "v1" cannot be handled as a Deployment: quantities must match the regular
/// expression ...`, for the built-in kinds, which it decodes into Go types), so there are no
/// pods to scale and no request to measure against.
fn rejected(path: &str, template: &super::objects::Workload, undecodable: &[&TemplateContainer]) -> Finding {
    let id = &template.id;
    let first = undecodable.iter().find_map(|c| c.resources_error.as_deref()).unwrap_or_default();
    let gv = crate::api::GroupVersion::parse_or_empty(&id.api_version);
    let (group, version) = (gv.group(), gv.version());
    let error = if matches!(group, "" | "apps" | "batch" | "extensions") {
        format!("{} in version {} cannot be handled as a {}: {first}", id.kind, crate::go::quote(version), id.kind)
    } else {
        first.to_string()
    };
    let mut f = Finding::new(
        &MissingResourceRequest::META,
        path,
        format!(
            "the resources of {} of {id} do not decode: kube-apiserver rejects the {} ({error}), so there are no pods to scale and no request to measure utilization against",
            describe_containers(undecodable),
            id.kind
        ),
    )
    .help("write each request and limit as a quantity (`cpu: 250m`, `memory: 256Mi`) under resources.requests and resources.limits, each a mapping");
    for c in undecodable {
        f = f.related(
            FindingField::Object {
                id: id.clone(),
                path: format!("{}.{}[{}].resources", template.pod_spec_path, c.list(), c.index),
            },
            "does not decode",
        );
    }
    f
}
