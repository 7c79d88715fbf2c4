//! The kinds read from a cluster, with their REST paths, and paginated lists of them.

use std::ops::ControlFlow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::connect::Cluster;
use crate::error::Error;
use crate::object::LiveObject;

/// A resource of the Kubernetes API: group, version, kind and plural name (kube's
/// `ApiResource`), and whether its API is optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceKind {
    /// API group (`""` for the core group).
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Whether it comes from an optional CRD or aggregated API (discovered before reading).
    pub optional: bool,
}

impl ResourceKind {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.to_string() } else { format!("{}/{}", self.group, self.version) }
    }

    /// `plural.group` as kubectl and RBAC messages write it (`deployments.apps`, `pods`).
    pub fn resource(&self) -> String {
        if self.group.is_empty() { self.plural.to_string() } else { format!("{}.{}", self.plural, self.group) }
    }

    /// `/api/v1` or `/apis/group/version`.
    pub fn group_version_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection's path, in one namespace or (`None`) across all of them.
    pub fn collection_path(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) => format!("{}/namespaces/{}/{}", self.group_version_path(), ns, self.plural),
            None => format!("{}/{}", self.group_version_path(), self.plural),
        }
    }

    /// One object's path.
    pub fn object_path(&self, namespace: &str, name: &str) -> String {
        format!("{}/{}", self.collection_path(Some(namespace)), name)
    }

    /// Whether its objects live in namespaces (`false` for RuntimeClasses, CRDs: one list
    /// across the cluster, whatever the scope asked). Read from hpa-core's one table of
    /// cluster-scoped kinds ([`hpa_core::rules::is_cluster_scoped`]).
    pub fn namespaced(&self) -> bool {
        !hpa_core::rules::is_cluster_scoped(&self.api_version(), self.kind)
    }

    /// What a list of it reads, for messages: `deployments.apps in namespace shop`,
    /// `deployments.apps in all namespaces`; a cluster-scoped kind by its name alone
    /// (`runtimeclasses.node.k8s.io`).
    pub fn describe(&self, namespace: Option<&str>) -> String {
        if !self.namespaced() {
            return self.resource();
        }
        match namespace {
            Some(ns) => format!("{} in namespace {ns}", self.resource()),
            None => format!("{} in all namespaces", self.resource()),
        }
    }
}

/// `autoscaling/v2` HorizontalPodAutoscalers.
pub const HPA: ResourceKind = ResourceKind {
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    optional: false,
};
/// `apps/v1` Deployments.
pub const DEPLOYMENT: ResourceKind =
    ResourceKind { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", optional: false };
/// `apps/v1` StatefulSets.
pub const STATEFUL_SET: ResourceKind =
    ResourceKind { group: "apps", version: "v1", kind: "StatefulSet", plural: "statefulsets", optional: false };
/// `apps/v1` ReplicaSets.
pub const REPLICA_SET: ResourceKind =
    ResourceKind { group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", optional: false };
/// `v1` ReplicationControllers.
pub const REPLICATION_CONTROLLER: ResourceKind = ResourceKind {
    group: "",
    version: "v1",
    kind: "ReplicationController",
    plural: "replicationcontrollers",
    optional: false,
};
/// Argo Rollouts (`argoproj.io/v1alpha1`), a CRD.
pub const ROLLOUT: ResourceKind =
    ResourceKind { group: "argoproj.io", version: "v1alpha1", kind: "Rollout", plural: "rollouts", optional: true };
/// `policy/v1` PodDisruptionBudgets.
pub const PDB: ResourceKind = ResourceKind {
    group: "policy",
    version: "v1",
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    optional: false,
};
/// VerticalPodAutoscalers (`autoscaling.k8s.io/v1`), a CRD.
pub const VPA: ResourceKind = ResourceKind {
    group: "autoscaling.k8s.io",
    version: "v1",
    kind: "VerticalPodAutoscaler",
    plural: "verticalpodautoscalers",
    optional: true,
};
/// KEDA ScaledObjects (`keda.sh/v1alpha1`), a CRD.
pub const SCALED_OBJECT: ResourceKind = ResourceKind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ScaledObject",
    plural: "scaledobjects",
    optional: true,
};
/// `v1` LimitRanges.
pub const LIMIT_RANGE: ResourceKind =
    ResourceKind { group: "", version: "v1", kind: "LimitRange", plural: "limitranges", optional: false };
/// `node.k8s.io/v1` RuntimeClasses (cluster-scoped): their `overhead.podFixed`, which admission
/// adds to the pods that name them.
pub const RUNTIME_CLASS: ResourceKind = ResourceKind {
    group: "node.k8s.io",
    version: "v1",
    kind: "RuntimeClass",
    plural: "runtimeclasses",
    optional: false,
};
/// `apiextensions.k8s.io/v1` CustomResourceDefinitions (cluster-scoped): the scale subresource
/// of the custom resources an HPA may target.
pub const CRD: ResourceKind = ResourceKind {
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    optional: false,
};
/// `v1` Pods.
pub const POD: ResourceKind = ResourceKind { group: "", version: "v1", kind: "Pod", plural: "pods", optional: false };
/// `v1` Events.
pub const EVENT: ResourceKind =
    ResourceKind { group: "", version: "v1", kind: "Event", plural: "events", optional: false };
/// `metrics.k8s.io/v1` PodMetrics (the resource metrics API, aggregated).
pub const POD_METRICS_V1: ResourceKind =
    ResourceKind { group: "metrics.k8s.io", version: "v1", kind: "PodMetrics", plural: "pods", optional: true };
/// `metrics.k8s.io/v1beta1` PodMetrics.
pub const POD_METRICS_V1BETA1: ResourceKind =
    ResourceKind { group: "metrics.k8s.io", version: "v1beta1", kind: "PodMetrics", plural: "pods", optional: true };

/// The scale targets the rules know, in the order they are read.
pub const WORKLOADS: [ResourceKind; 5] = [DEPLOYMENT, STATEFUL_SET, REPLICA_SET, REPLICATION_CONTROLLER, ROLLOUT];

/// The workload kind of `group` named `kind` (or its all-lowercase spelling, which the RESTMapper
/// maps to it), if it is one of [`WORKLOADS`].
pub fn workload(group: &str, kind: &str) -> Option<&'static ResourceKind> {
    // A kind written all in lowercase is the kind, as the RESTMapper maps it.
    let kind = hpa_core::rules::mapped_kind(group, kind);
    WORKLOADS.iter().find(|k| k.kind == kind && k.group == group)
}

/// The page size of lists: kubectl's default `--chunk-size`.
pub const PAGE_SIZE: u32 = 500;

/// How a paginated list went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListSummary {
    /// Items handed to the callback.
    pub items: usize,
    /// Pages fetched.
    pub pages: usize,
    /// The list's `resourceVersion`.
    pub resource_version: String,
    /// The list was read again whole because its continue token expired (410 Gone): the
    /// callback got [`Listed::Restart`] before the whole list's items.
    pub restarted: bool,
}

/// What a paginated list hands its callback, page by page.
#[derive(Debug, Clone, PartialEq)]
pub enum Listed<T> {
    /// One item of the list.
    Item(T),
    /// The items handed so far are void: the continue token expired (410 Gone) and the list is
    /// read again whole, from its first item. A caller that keeps the items drops those it has.
    Restart,
}

impl<T> Listed<T> {
    /// Applies it to the items collected so far: an item is pushed, a restart clears them.
    pub fn collect_into(self, items: &mut Vec<T>) {
        match self {
            Listed::Item(item) => items.push(item),
            Listed::Restart => items.clear(),
        }
    }
}

/// One page of a list: its `metadata` and its items, each read as `T`.
#[derive(Deserialize)]
struct Page<T> {
    #[serde(default)]
    metadata: Option<ListMeta>,
    #[serde(default = "Option::default")]
    items: Option<Vec<T>>,
}

/// `metav1.ListMeta`, what paging reads of it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListMeta {
    resource_version: Option<String>,
    #[serde(rename = "continue")]
    continue_token: Option<String>,
}

impl Cluster {
    /// Lists a kind in one namespace or all of them, `page_size` items per request (`limit`
    /// and `continue`, as the API server's `ListOptions` define them, like kubectl's
    /// `--chunk-size`), handing each item to `each` as the page arrives, so that no more than
    /// one page is held as JSON. `query` adds selectors (`labelSelector=...`).
    ///
    /// A continue token that expired (410 Gone, after an etcd compaction) is followed by one
    /// list of the whole collection, unpaged, as client-go's pager falls back to
    /// (`ListPager.List` in `tools/pager/pager.go` with `FullListIfExpired`: `limit` and
    /// `continue` dropped); `each` is told first ([`Listed::Restart`]), since the items of the
    /// earlier pages come again.
    pub async fn list_each(
        &self,
        kind: &ResourceKind,
        namespace: Option<&str>,
        query: &[(&str, &str)],
        page_size: u32,
        each: impl FnMut(Listed<Value>),
    ) -> Result<ListSummary, Error> {
        self.list_as(kind, namespace, query, page_size, to_the_end(each)).await
    }

    /// [`Cluster::list_each`] with each item as a [`LiveObject`]: its text, read as a tree
    /// only where something reads one (an HPA is decoded from its text).
    pub async fn list_objects(
        &self,
        kind: &ResourceKind,
        namespace: Option<&str>,
        query: &[(&str, &str)],
        page_size: u32,
        each: impl FnMut(Listed<LiveObject>),
    ) -> Result<ListSummary, Error> {
        self.list_as(kind, namespace, query, page_size, to_the_end(each)).await
    }

    /// The first item of a list of `kind` in one namespace or all of them (`query`: its
    /// selectors), one item per page (`limit=1`): a page that comes empty with a continue token
    /// (kube-apiserver's etcd store may end a page before it fills it) is followed, but no page
    /// is asked for once an item has come, though the API server offers more (`continue`).
    pub async fn first_object(
        &self,
        kind: &ResourceKind,
        namespace: Option<&str>,
        query: &[(&str, &str)],
    ) -> Result<Option<LiveObject>, Error> {
        let mut first = None;
        self.list_as(kind, namespace, query, 1, |item| match item {
            Listed::Item(object) => {
                first = Some(object);
                ControlFlow::Break(())
            }
            Listed::Restart => ControlFlow::Continue(()),
        })
        .await?;
        Ok(first)
    }

    async fn list_as<T: DeserializeOwned>(
        &self,
        kind: &ResourceKind,
        namespace: Option<&str>,
        query: &[(&str, &str)],
        page_size: u32,
        mut each: impl FnMut(Listed<T>) -> ControlFlow<()>,
    ) -> Result<ListSummary, Error> {
        let doing = format!("listing {}", kind.describe(namespace));
        let mut summary = ListSummary::default();
        let mut token: Option<String> = None;
        loop {
            let mut path = kind.collection_path(namespace);
            let mut params: Vec<(String, String)> =
                query.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect();
            if page_size > 0 && !summary.restarted {
                params.push(("limit".into(), page_size.to_string()));
            }
            if let Some(t) = &token {
                params.push(("continue".into(), t.clone()));
            }
            push_query(&mut path, &params);
            let text = match self.get_text(&path, &doing).await {
                Ok(text) => text,
                Err(Error::Api { code: 410, .. }) if token.is_some() && !summary.restarted => {
                    // The continue token outlived the compaction window: the whole list, once.
                    summary = ListSummary { restarted: true, ..ListSummary::default() };
                    token = None;
                    let _ = each(Listed::Restart);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let page: Page<T> = hpa_core::go::from_str(&text)
                .map_err(|e| Error::Protocol { doing: doing.clone(), reason: e.to_string() })?;
            drop(text);
            summary.pages += 1;
            let metadata = page.metadata.unwrap_or(ListMeta { resource_version: None, continue_token: None });
            summary.resource_version = metadata.resource_version.unwrap_or_default();
            if let Some(items) = page.items {
                for item in items {
                    summary.items += 1;
                    if each(Listed::Item(item)).is_break() {
                        return Ok(summary);
                    }
                }
            }
            match metadata.continue_token {
                Some(t) if !t.is_empty() => token = Some(t),
                _ => return Ok(summary),
            }
        }
    }
}

/// A callback of [`Cluster::list_each`] as `list_as` takes one: every item, to the list's end.
fn to_the_end<T>(mut each: impl FnMut(Listed<T>)) -> impl FnMut(Listed<T>) -> ControlFlow<()> {
    move |item| {
        each(item);
        ControlFlow::Continue(())
    }
}

/// Appends `?k=v&...` as client-go writes a request's query (`Request.URL`, with Go's
/// `url.Values.Encode`): the keys sorted (one key's values in their order), each key and value
/// escaped by [`push_query_escaped`].
pub(crate) fn push_query(path: &mut String, params: &[(String, String)]) {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    // Stable: a key's values keep their order, as `url.Values` holds them.
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        path.push(if i == 0 { '?' } else { '&' });
        push_query_escaped(path, k);
        path.push('=');
        push_query_escaped(path, v);
    }
}

/// Go's `url.QueryEscape` (`escape(s, encodeQueryComponent)` in `net/url/url.go`): ASCII
/// letters, digits and `-_.~` as they are, a space as `+`, every other byte (reserved
/// characters included: `shouldEscape` escapes all of them in a query component) as `%XX` in
/// upper-case hex.
fn push_query_escaped(out: &mut String, s: &str) {
    for b in s.bytes() {
        match b {
            b if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') => out.push(char::from(b)),
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(DEPLOYMENT.collection_path(Some("shop")), "/apis/apps/v1/namespaces/shop/deployments");
        assert_eq!(POD.collection_path(None), "/api/v1/pods");
        assert_eq!(HPA.object_path("a", "b"), "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/b");
        assert_eq!(DEPLOYMENT.resource(), "deployments.apps");
        assert_eq!(LIMIT_RANGE.resource(), "limitranges");
        assert_eq!(CRD.resource(), "customresourcedefinitions.apiextensions.k8s.io");
        assert_eq!(RUNTIME_CLASS.collection_path(None), "/apis/node.k8s.io/v1/runtimeclasses");
        assert!(!CRD.namespaced() && !RUNTIME_CLASS.namespaced());
        assert!(LIMIT_RANGE.namespaced() && ROLLOUT.namespaced());
        let mut p = String::from("/x");
        push_query(&mut p, &[("fieldSelector".into(), "involvedObject.name=web,a=b".into())]);
        assert_eq!(p, "/x?fieldSelector=involvedObject.name%3Dweb%2Ca%3Db");
    }

    /// As Go's `url.Values{...}.Encode()`: keys sorted, a space as `+`, every reserved
    /// character, `+` itself and each byte of a non-ASCII character escaped.
    #[test]
    fn queries_as_go_encodes_them() {
        let mut p = String::from("/x");
        let params = [
            ("labelSelector", "app in (a, b),tier!=web"),
            ("continue", "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ=="),
            ("limit", "500"),
            ("fieldSelector", "a+b=c d/é?#&;:@$!*'~_-."),
            ("labelSelector", "z"),
        ];
        let params: Vec<(String, String)> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        push_query(&mut p, &params);
        assert_eq!(
            p,
            "/x?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D\
             &fieldSelector=a%2Bb%3Dc+d%2F%C3%A9%3F%23%26%3B%3A%40%24%21%2A%27~_-.\
             &labelSelector=app+in+%28a%2C+b%29%2Ctier%21%3Dweb&labelSelector=z&limit=500"
        );
        let mut key = String::from("/x");
        push_query(&mut key, &[("a b".into(), String::new())]);
        assert_eq!(key, "/x?a+b=");
    }
}
