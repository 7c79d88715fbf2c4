//! A pod's total requests, as component-helpers' `resource/helpers.go` computes them
//! (`PodRequests`, `AggregateContainerRequests`), one resource at a time, in milli-units.
//!
//! The HPA controller reads a pod's total through `PodRequests` when the pod sets pod-level
//! requests (`calculatePodLevelRequests` in `replica_calculator.go`, from Kubernetes 1.34); the
//! lint rules ask the same question of a pod made from a template. Both call this one
//! implementation: the evaluator for a listed pod (`evaluator::replicas`), the rules for a pod
//! as kube-apiserver admits it (`rules::objects::AdmittedPod`).
//!
//! Go adds the containers' `resource.Quantity` values exactly and takes `MilliValue()` of the
//! total; callers here hand in each container's `MilliValue()` (rounded up), so a total of
//! requests finer than a milli-unit can differ by that rounding, and totals saturate at the
//! `int64` range where Go would fall back to arbitrary precision.

/// How a container takes part in its pod's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerRole {
    /// An entry of `spec.containers`: it runs for the pod's lifetime, so its request adds up.
    Regular,
    /// An entry of `spec.initContainers` with `restartPolicy: Always` (a sidecar): it keeps
    /// running, so its request adds up, and the init containers after it run beside it.
    Sidecar,
    /// Any other entry of `spec.initContainers`: it runs to completion before the next one
    /// starts, beside the sidecars started before it; that sum is a floor of the total.
    Init,
}

/// `IsSupportedPodLevelResource`: cpu, memory and hugepages can be requested at the pod level.
pub fn is_supported_pod_level_resource(resource: &str) -> bool {
    matches!(resource, "cpu" | "memory") || resource.starts_with("hugepages-")
}

/// `IsPodLevelRequestsSet`: the pod-level requests (`spec.resources.requests`, by resource
/// name) name at least one resource pods support at that level.
pub fn is_pod_level_requests_set<'r>(requested: impl IntoIterator<Item = &'r str>) -> bool {
    requested.into_iter().any(is_supported_pod_level_resource)
}

/// `AggregateContainerRequests` for one resource (KEP-753's formula): the regular containers
/// and the sidecars add up, and each plain init container, with the sidecars started before
/// it, is a floor of the total.
///
/// `containers` gives each container's role and its request for the resource (`None`: it has
/// none), the init containers in their `spec.initContainers` order (regular containers may come
/// anywhere: they only add up). `None` when no container requests the resource, as the
/// resource is then absent from Go's list.
pub fn aggregate_container_requests(containers: impl IntoIterator<Item = (ContainerRole, Option<i64>)>) -> Option<i64> {
    let mut total: Option<i64> = None;
    // The sidecars started so far, and the largest amount needed while an init container runs.
    let mut sidecars: Option<i64> = None;
    let mut floor: Option<i64> = None;
    for (role, request) in containers {
        match role {
            ContainerRole::Regular => total = add(total, request),
            ContainerRole::Sidecar => {
                total = add(total, request);
                sidecars = add(sidecars, request);
                floor = larger(floor, sidecars);
            }
            ContainerRole::Init => floor = larger(floor, add(request, sidecars)),
        }
    }
    larger(total, floor)
}

/// `PodRequests(pod, opts)` for `resource`: the containers' `aggregate`
/// ([`aggregate_container_requests`]), replaced by the pod-level request when the pod sets
/// pod-level requests (`pod_level_requests_set`, [`is_pod_level_requests_set`]) and requests
/// this resource at that level (`pod_level`, for a resource [`is_supported_pod_level_resource`]);
/// then `overhead` (`spec.overhead`) added, unless the caller excludes it (`None`,
/// `opts.ExcludeOverhead`). `None` when none of them has the resource.
pub fn pod_requests(
    resource: &str,
    aggregate: Option<i64>,
    pod_level_requests_set: bool,
    pod_level: Option<i64>,
    overhead: Option<i64>,
) -> Option<i64> {
    let mut requests = aggregate;
    if pod_level_requests_set && is_supported_pod_level_resource(resource) && pod_level.is_some() {
        requests = pod_level;
    }
    add(requests, overhead)
}

/// `addResourceList` for one resource: a resource either list has is in the sum.
fn add(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    }
}

/// `maxResourceList` for one resource.
fn larger(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    a.max(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContainerRole::*;

    #[test]
    fn sidecars_add_up_and_init_containers_are_floors() {
        // max(500 + 100 + 200, 100 + 2000) = 2100, as in the KEP's example.
        let cpu = [(Regular, Some(500)), (Sidecar, Some(100)), (Init, Some(2000)), (Sidecar, Some(200))];
        assert_eq!(aggregate_container_requests(cpu), Some(2100));
        // Only the init container has the resource: it alone is the total.
        assert_eq!(aggregate_container_requests([(Regular, None), (Init, Some(64))]), Some(64));
        // A regular container without the resource contributes nothing, and no error.
        assert_eq!(aggregate_container_requests([(Regular, None), (Regular, Some(250))]), Some(250));
        assert_eq!(aggregate_container_requests([(Regular, None)]), None);
        assert_eq!(aggregate_container_requests([]), None);
    }

    #[test]
    fn pod_level_requests_replace_the_aggregate_then_overhead_adds() {
        assert_eq!(pod_requests("cpu", Some(150), true, Some(800), None), Some(800));
        assert_eq!(pod_requests("cpu", Some(150), true, Some(800), Some(250)), Some(1050));
        // Not requested at the pod level: the containers' aggregate, plus the overhead.
        assert_eq!(pod_requests("memory", Some(150), true, None, Some(10)), Some(160));
        // Not a pod-level resource, or no pod-level requests set: the aggregate.
        assert_eq!(pod_requests("ephemeral-storage", Some(5), true, Some(9), None), Some(5));
        assert_eq!(pod_requests("cpu", Some(5), false, Some(9), None), Some(5));
        // Overhead alone makes the resource present.
        assert_eq!(pod_requests("cpu", None, true, None, Some(250)), Some(250));
        assert_eq!(pod_requests("cpu", None, true, None, None), None);
        assert!(is_pod_level_requests_set(["ephemeral-storage", "hugepages-2Mi"]));
        assert!(!is_pod_level_requests_set(["ephemeral-storage"]));
    }
}
