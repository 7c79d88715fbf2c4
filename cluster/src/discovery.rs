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
    let doing = "discovering the API groups";
    let aggregated =
        cluster.bounded(doing, Discovery::new(cluster.client().clone()).filter(&groups).run_aggregated()).await;
    let discovery = match aggregated {
        Ok(d) => Ok(d),
        Err(e) if e.is_connection() => return Err(e),
        // Servers before aggregated discovery (or proxies that strip it) answer the classic way.
        Err(_) => cluster.bounded(doing, Discovery::new(cluster.client().clone()).filter(&groups).run()).await,
    };
    match discovery {
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
