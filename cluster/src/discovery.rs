//! Which optional kinds (CRDs, aggregated APIs) the server serves, through kube's discovery:
//! aggregated discovery (`/apis` as an `APIGroupDiscoveryList`, one request) when the server
//! offers it, else the classic walk (`/apis`, then `/apis/<group>/<version>` for the groups
//! asked about).

use std::collections::BTreeMap;

use kube::discovery::Discovery;

use crate::connect::Cluster;
use crate::error::Error;
use crate::inventory::{Note, NoteKind};
use crate::kinds::Kind;

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
    pub kinds: BTreeMap<Kind, Served>,
    /// A note per absent kind, or one for a failed discovery.
    pub notes: Vec<Note>,
}

/// Discovers which of `wanted` are served. Connection-level failures (unreachable, 401,
/// timeout) are errors; a refusal or another failure of discovery leaves every kind
/// [`Served::Unknown`], with a note.
pub async fn served(cluster: &Cluster, wanted: &[Kind]) -> Result<ServedKinds, Error> {
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
                    out.notes.push(Note {
                        kind: NoteKind::Absent,
                        message: format!(
                            "{} {} is not served ({} not installed): skipped",
                            kind.api_version(),
                            kind.plural,
                            product(kind)
                        ),
                    });
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

/// The REST mappings of a kind of a group, the group's preferred version first: what the HPA
/// controller's RESTMapper answers to `RESTMappings(GroupKind)` (`reconcileAutoscaler` in
/// `pkg/controller/podautoscaler/horizontal.go` maps the scale target's group and kind, not
/// its version, this way; the custom metrics client maps an Object metric's object the same
/// way, `qualResourceForKind`). Empty when discovery lists no resource of that kind:
/// client-go's `no matches for kind "K" in group "G"`.
pub async fn mappings(cluster: &Cluster, group: &str, kind: &str) -> Result<Vec<Mapping>, Error> {
    let discovery = discover(cluster, &[group]).await?;
    let Some(g) = discovery.get(group) else { return Ok(Vec::new()) };
    let mut versions: Vec<&str> = g.preferred_version().into_iter().collect();
    versions.extend(g.versions().filter(|v| Some(*v) != g.preferred_version()));
    let mut out = Vec::new();
    for version in versions {
        for (resource, capabilities) in g.versioned_resources(version) {
            if resource.kind == kind && !resource.plural.contains('/') {
                out.push(Mapping {
                    group: group.to_string(),
                    version: version.to_string(),
                    plural: resource.plural,
                    namespaced: capabilities.scope == kube::discovery::Scope::Namespaced,
                });
            }
        }
    }
    Ok(out)
}

/// client-go's `NoKindMatchError` text, for a kind discovery does not list.
pub fn no_kind_match(group: &str, kind: &str) -> String {
    format!("no matches for kind \"{kind}\" in group \"{group}\"")
}

/// What installs a kind, for notes.
fn product(kind: &Kind) -> &'static str {
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
