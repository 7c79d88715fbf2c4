//! Which optional kinds (CRDs, aggregated APIs) the server serves, through kube's discovery:
//! aggregated discovery (`/apis` as an `APIGroupDiscoveryList`, one request) when the server
//! offers it, else the classic walk (`/apis`, then `/apis/<group>/<version>` for the groups
//! asked about).

use std::collections::BTreeMap;

use hpa_core::rules::objects::CustomResourceDefinition;
use kube::discovery::Discovery;

use crate::connect::Cluster;
use crate::error::Error;
use crate::inventory::{Note, NoteKind};
use crate::kinds::ResourceKind;

/// Whether a kind is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// Discovery lists it.
    Yes,
    /// Discovery does not list it: skip it.
    No,
    /// Discovery failed: try it and treat a 404 as absent.
    Unknown,
}

/// The answer for a set of kinds, with notes for the absent ones.
#[derive(Debug, Clone, Default)]
pub struct ServedKinds {
    /// Each kind asked about.
    pub kinds: BTreeMap<ResourceKind, Served>,
    /// A note per absent kind, or one for a failed discovery.
    pub notes: Vec<Note>,
}

/// Discovers which of `wanted` are served. Connection-level failures (unreachable, 401,
/// timeout) are errors; a refusal or another failure of discovery leaves every kind
/// [`Served::Unknown`], with a note.
pub async fn served(cluster: &Cluster, wanted: &[ResourceKind]) -> Result<ServedKinds, Error> {
    let mut out = ServedKinds::default();
    if wanted.is_empty() {
        return Ok(out);
    }
    let mut groups: Vec<&str> = wanted.iter().map(|k| k.group).collect();
    groups.sort_unstable();
    groups.dedup();
    match discover(cluster, &groups).await {
        Ok(discovery) => {
            for kind in wanted {
                let served = discovery.get(kind.group).is_some_and(|g| {
                    g.versioned_resources(kind.version).iter().any(|(ar, _)| ar.plural == kind.plural)
                });
                if served {
                    out.kinds.insert(*kind, Served::Yes);
                } else {
                    out.kinds.insert(*kind, Served::No);
                    out.notes.push(Note { kind: NoteKind::Absent, message: not_served(kind) });
                }
            }
        }
        Err(e) if e.is_connection() => return Err(e),
        Err(e) => {
            for kind in wanted {
                out.kinds.insert(*kind, Served::Unknown);
            }
            out.notes.push(Note {
                kind: NoteKind::Discovery,
                message: format!("discovery failed ({e}); the optional kinds were tried directly"),
            });
        }
    }
    Ok(out)
}

/// A group every kube-apiserver serves: asked for along with the others, its absence from an
/// aggregated answer shows the answer was not aggregated discovery.
const ALWAYS_SERVED: &str = "apps";

/// Discovery of `groups`: aggregated discovery when the server offers it, else the classic walk.
/// A server without aggregated discovery (or a proxy that drops the `Accept` it needs) answers
/// `/apis` with a plain `APIGroupList`, which kube reads as an aggregated list without groups:
/// that answer is recognised by the missing [`ALWAYS_SERVED`] group, and the walk is done.
async fn discover(cluster: &Cluster, groups: &[&str]) -> Result<Discovery, Error> {
    let doing = "discovering the API groups";
    let mut asked: Vec<&str> = groups.to_vec();
    if !asked.contains(&ALWAYS_SERVED) {
        asked.push(ALWAYS_SERVED);
    }
    let aggregated =
        cluster.bounded(doing, Discovery::new(cluster.client().clone()).filter(&asked).run_aggregated()).await;
    match aggregated {
        Ok(d) if d.has_group(ALWAYS_SERVED) => Ok(d),
        Err(e) if e.is_connection() => Err(e),
        // Servers before aggregated discovery (or proxies that strip it) answer the classic way.
        Ok(_) | Err(_) => cluster.bounded(doing, Discovery::new(cluster.client().clone()).filter(groups).run()).await,
    }
}

/// One REST mapping of a kind: the resource that serves it in one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// API group (`""`: core).
    pub group: String,
    /// Version.
    pub version: String,
    /// The resource (plural).
    pub plural: String,
    /// Namespaced, or cluster-scoped.
    pub namespaced: bool,
}

impl Mapping {
    /// `/api/v1` or `/apis/group/version`.
    fn group_version_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// One object's path (in `namespace` when the resource is namespaced).
    pub fn object_path(&self, namespace: &str, name: &str) -> String {
        if self.namespaced {
            format!("{}/namespaces/{namespace}/{}/{name}", self.group_version_path(), self.plural)
        } else {
            format!("{}/{}/{name}", self.group_version_path(), self.plural)
        }
    }

    /// `plural.group` (`plural` in the core group): `GroupResource.String()`, as the custom
    /// metrics API names a resource in its paths.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() { self.plural.clone() } else { format!("{}.{}", self.plural, self.group) }
    }
}

/// The mappings of `mappings` to a resource (group and plural) that neither `first` nor an
/// earlier one of them maps to, in order: the reads the HPA controller's
/// `scaleForResourceMappings` makes differ only by resource, since its scale client reads each
/// group and resource at the version discovery prefers, whichever version the mapping names.
pub fn distinct_resources<'m>(mappings: &'m [Mapping], first: &'m Mapping) -> impl Iterator<Item = &'m Mapping> {
    mappings
        .iter()
        .enumerate()
        .filter(move |(i, m)| {
            let same = |o: &Mapping| o.group == m.group && o.plural == m.plural;
            !same(first) && !mappings[..*i].iter().any(same)
        })
        .map(|(_, m)| m)
}

/// The REST mappings of a kind of a group, the group's preferred version first: what the HPA
/// controller's RESTMapper answers to `RESTMappings(GroupKind)` (`reconcileAutoscaler` in
/// `pkg/controller/podautoscaler/horizontal.go` maps the scale target's group and kind, not
/// its version, this way; the custom metrics client maps an Object metric's object the same
/// way, `qualResourceForKind`). Empty when discovery lists no resource of that kind:
/// client-go's `no matches for kind "K" in group "G"`. One discovery of that group
/// ([`Resolver::discover`]).
pub async fn mappings(cluster: &Cluster, group: &str, kind: &str) -> Result<Vec<Mapping>, Error> {
    Ok(Resolver::discover(cluster, &[group]).await?.mappings(group, kind))
}

/// The one place a kind is mapped to its resource and versions, as the HPA controller's
/// RESTMapper maps it (`NewDiscoveryRESTMapper` in `client-go/restmapper/discovery.go`: a
/// group's preferred version first, then its other versions in the order discovery lists
/// them): from a live discovery, or, where discovery cannot say (a snapshot, a failed
/// discovery), from the CustomResourceDefinitions read, whose versions the apiextensions
/// server lists and prefers in Kubernetes-aware order ([`kube_aware_order`]).
pub enum Resolver {
    /// What discovery lists.
    Discovery(Discovery),
    /// The CustomResourceDefinitions read.
    Crds(Vec<CustomResourceDefinition>),
}

impl Resolver {
    /// One discovery of `groups` (`discover`): aggregated when the server offers it.
    pub async fn discover(cluster: &Cluster, groups: &[&str]) -> Result<Resolver, Error> {
        discover(cluster, groups).await.map(Resolver::Discovery)
    }

    /// The mappings of `kind` of `group`, the preferred version first; empty when the kind is
    /// not served (`no matches for kind`, [`no_kind_match`]).
    pub fn mappings(&self, group: &str, kind: &str) -> Vec<Mapping> {
        match self {
            Resolver::Discovery(discovery) => {
                let Some(g) = discovery.get(group) else { return Vec::new() };
                let mut versions: Vec<&str> = g.preferred_version().into_iter().collect();
                versions.extend(g.versions().filter(|v| Some(*v) != g.preferred_version()));
                let mut out = Vec::new();
                for version in versions {
                    for (resource, capabilities) in g.versioned_resources(version) {
                        if hpa_core::rules::maps_kind(&resource.kind, kind) && !resource.plural.contains('/') {
                            out.push(Mapping {
                                group: group.to_string(),
                                version: version.to_string(),
                                plural: resource.plural,
                                namespaced: capabilities.scope == kube::discovery::Scope::Namespaced,
                            });
                        }
                    }
                }
                out
            }
            Resolver::Crds(crds) => crd_mappings(crds, group, kind),
        }
    }
}

/// The mappings of `kind` of `group` among `crds`, the preferred version first: the group's
/// versions as the apiextensions server lists them (`customresource_discovery_controller.go`
/// sorts every served version of the group's CRDs, `sortGroupDiscoveryByKubeAwareVersion`),
/// those the kind's CRD serves.
pub fn crd_mappings(crds: &[CustomResourceDefinition], group: &str, kind: &str) -> Vec<Mapping> {
    let in_group = || crds.iter().filter(|c| c.group == group);
    let mut versions: Vec<&str> =
        in_group().flat_map(|c| c.versions.iter().filter(|v| v.served).map(|v| v.name.as_str())).collect();
    versions.sort_by(|a, b| kube_aware_order(a, b));
    versions.dedup();
    let Some(crd) = in_group().rev().find(|c| hpa_core::rules::maps_kind(&c.kind, kind)) else { return Vec::new() };
    versions
        .into_iter()
        .filter(|v| crd.versions.iter().any(|cv| cv.served && cv.name == *v))
        .map(|v| Mapping {
            group: group.to_string(),
            version: v.to_string(),
            plural: crd.plural.clone(),
            // The CRD's `spec.scope`, as discovery lists its resource.
            namespaced: !crd.cluster_scoped,
        })
        .collect()
}

/// The order of `version.CompareKubeAwareVersionStrings` (`apimachinery/pkg/version/helpers.go`),
/// highest priority first: GA (`v2` before `v1`), then beta, then alpha (higher major, then
/// higher minor first), then versions of no Kubernetes form, alphabetically.
pub fn kube_aware_order(a: &str, b: &str) -> std::cmp::Ordering {
    /// `(major, stage, minor)`: stage 2 GA, 1 beta, 0 alpha.
    fn parse(v: &str) -> Option<(u64, u8, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((major, 2, 0));
        }
        let (stage, minor) = match tail.strip_prefix("beta") {
            Some(n) => (1, n),
            None => (0, tail.strip_prefix("alpha")?),
        };
        if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((major, stage, minor.parse().ok()?))
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => y.1.cmp(&x.1).then(y.0.cmp(&x.0)).then(y.2.cmp(&x.2)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// client-go's `NoKindMatchError` text, for a kind discovery does not list.
pub fn no_kind_match(group: &str, kind: &str) -> String {
    format!("no matches for kind \"{kind}\" in group \"{group}\"")
}

/// What installs a kind, for notes.
/// The one wording of an optional kind the API server does not serve (its CRD not installed):
/// `argoproj.io/v1alpha1 rollouts is not served (Argo Rollouts not installed): skipped`, the
/// note of `hpa-lint cluster` and the log line of `hpa-webhook`'s context cache.
pub fn not_served(kind: &ResourceKind) -> String {
    format!("{} {} is not served ({} not installed): skipped", kind.api_version(), kind.plural, product(kind))
}

fn product(kind: &ResourceKind) -> &'static str {
    match kind.group {
        "argoproj.io" => "Argo Rollouts",
        "autoscaling.k8s.io" => "the Vertical Pod Autoscaler",
        "keda.sh" => "KEDA",
        "metrics.k8s.io" => "metrics-server",
        "custom.metrics.k8s.io" => "a custom metrics adapter",
        "external.metrics.k8s.io" => "an external metrics adapter",
        _ => "its CRD",
    }
}

#[cfg(test)]
mod tests {
    use hpa_core::rules::ObjectId;
    use hpa_core::rules::objects::CrdVersion;

    use super::*;

    fn crd(group: &str, kind: &str, plural: &str, versions: &[(&str, bool)]) -> CustomResourceDefinition {
        CustomResourceDefinition {
            id: ObjectId::default(),
            group: group.into(),
            kind: kind.into(),
            plural: plural.into(),
            cluster_scoped: false,
            versions: versions
                .iter()
                .map(|(name, served)| CrdVersion { name: (*name).into(), served: *served, scale: None })
                .collect(),
        }
    }

    /// A kind maps as written or in all lowercase, never in another case.
    #[test]
    fn a_kind_maps_as_written_or_all_lowercase() {
        assert!(hpa_core::rules::maps_kind("StatefulSet", "StatefulSet"));
        assert!(hpa_core::rules::maps_kind("StatefulSet", "statefulset"));
        assert!(!hpa_core::rules::maps_kind("StatefulSet", "Statefulset"));
        assert!(!hpa_core::rules::maps_kind("StatefulSet", "STATEFULSET"));
        let crds = [crd("example.com", "WorkerPool", "workerpools", &[("v1", true)])];
        assert_eq!(crd_mappings(&crds, "example.com", "workerpool").len(), 1);
        assert!(crd_mappings(&crds, "example.com", "Workerpool").is_empty());
    }

    /// `CompareKubeAwareVersionStrings`' documented order.
    #[test]
    fn versions_sort_as_kubernetes_sorts_them() {
        let mut v = vec![
            "foo10",
            "v1alpha1",
            "v11alpha2",
            "v1",
            "v3beta1",
            "v10beta3",
            "foo1",
            "v2",
            "v11beta2",
            "v10",
            "v12alpha1",
        ];
        v.sort_by(|a, b| kube_aware_order(a, b));
        assert_eq!(
            v,
            [
                "v10",
                "v2",
                "v1",
                "v11beta2",
                "v10beta3",
                "v3beta1",
                "v12alpha1",
                "v11alpha2",
                "v1alpha1",
                "foo1",
                "foo10"
            ]
        );
    }

    /// From the CRDs read: the group's highest served version first (preferred across the
    /// group's CRDs), then the kind's others; a version the kind does not serve is no mapping.
    #[test]
    fn crds_map_a_kind_preferred_version_first() {
        let resolver = Resolver::Crds(vec![
            crd("example.com", "Mouse", "mice", &[("v1", true), ("v1beta1", true), ("v2", false)]),
            crd("example.com", "Cat", "cats", &[("v1alpha1", true), ("v3", true)]),
        ]);
        let got: Vec<(String, String)> = resolver
            .mappings("example.com", "Mouse")
            .into_iter()
            .map(|m| (m.version.clone(), m.group_resource()))
            .collect();
        assert_eq!(
            got,
            [("v1".to_string(), "mice.example.com".to_string()), ("v1beta1".into(), "mice.example.com".into())]
        );
        let cat: Vec<String> = resolver.mappings("example.com", "Cat").into_iter().map(|m| m.version).collect();
        assert_eq!(cat, ["v3", "v1alpha1"]);
        assert!(resolver.mappings("example.com", "Dog").is_empty());
        assert!(resolver.mappings("other.example.com", "Mouse").is_empty());
    }
}
