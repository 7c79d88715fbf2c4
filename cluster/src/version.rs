//! The release the API server runs (`GET /version`, kube's `Client::apiserver_version`), and
//! which of hpa-core's release profiles a live command uses for it ([`resolve`]): what
//! `kubectl version` shows as the server version, read as [`KubernetesVersion::parse`] reads it.

use hpa_core::features::KubernetesVersion;

use crate::connect::Cluster;
use crate::error::Error;

/// What the API server says it runs, in hpa-core's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRelease {
    /// `gitVersion` names a release hpa-core has a profile of.
    Supported {
        /// `gitVersion` as the server sent it (`v1.34.4-eks-a737599`).
        git_version: String,
        /// Its release.
        release: KubernetesVersion,
    },
    /// `gitVersion` names a release older than the oldest profile or newer than the newest:
    /// the nearest profile stands in for it.
    Nearest {
        /// `gitVersion` as the server sent it.
        git_version: String,
        /// The nearest profile.
        release: KubernetesVersion,
    },
    /// `/version` could not be read (refused, failed) or names no Kubernetes 1.x release.
    Unknown {
        /// Why, in one clause.
        reason: String,
    },
}

impl ServerRelease {
    /// The release a `gitVersion` names: its profile, else the nearest profile for a 1.x
    /// release outside them, else [`ServerRelease::Unknown`].
    pub fn from_git_version(git_version: &str) -> ServerRelease {
        if let Ok(release) = KubernetesVersion::parse(git_version) {
            return ServerRelease::Supported { git_version: git_version.to_string(), release };
        }
        let t = git_version.trim();
        let mut parts = t.strip_prefix('v').unwrap_or(t).split(['.', '-', '+']);
        let minor = match (parts.next(), parts.next()) {
            (Some("1"), Some(minor)) if !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()) => {
                minor.parse::<u32>().ok()
            }
            _ => None,
        };
        let (Some(oldest), Some(newest)) = (KubernetesVersion::ALL.first(), KubernetesVersion::ALL.last()) else {
            return ServerRelease::Unknown { reason: format!("gitVersion {git_version:?} names no known release") };
        };
        match minor {
            Some(m) if m < oldest.minor() => {
                ServerRelease::Nearest { git_version: git_version.to_string(), release: *oldest }
            }
            Some(m) if m > newest.minor() => {
                ServerRelease::Nearest { git_version: git_version.to_string(), release: *newest }
            }
            _ => ServerRelease::Unknown {
                reason: format!("its gitVersion {git_version:?} is not a Kubernetes 1.x release"),
            },
        }
    }
}

/// Reads `GET /version` with the timeout and error handling of every call: a connection-level
/// failure (unreachable, 401, timeout) is an error; a refusal (403) or another failure is
/// [`ServerRelease::Unknown`], which [`resolve`] turns into a note.
pub async fn server_release(cluster: &Cluster) -> Result<ServerRelease, Error> {
    match cluster.bounded("reading /version", cluster.client().apiserver_version()).await {
        Ok(info) => Ok(ServerRelease::from_git_version(&info.git_version)),
        Err(e) if e.is_connection() => Err(e),
        Err(e) => Ok(ServerRelease::Unknown { reason: e.to_string() }),
    }
}

/// The release a live command reproduces, and the notes that say why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The release.
    pub release: KubernetesVersion,
    /// A sentence for each choice the user should know of (none when the server's own
    /// release is used, or the explicit one matches it).
    pub notes: Vec<String>,
}

/// Which release a live command uses: `explicit` (the release and where it is named:
/// `--kubernetes-version`, or the configuration's `kubernetesVersion`) wins, with a note when
/// it differs from the server's; without it, the server's release when there is a profile of
/// it, the nearest profile (with a note) when it is older or newer than all, and
/// [`KubernetesVersion::LATEST`] (with a note) when `/version` could not be read.
pub fn resolve(explicit: Option<(KubernetesVersion, &str)>, server: &ServerRelease) -> Resolution {
    let mut notes = Vec::new();
    let release = match (explicit, server) {
        (Some((release, from)), ServerRelease::Supported { git_version, release: served })
        | (Some((release, from)), ServerRelease::Nearest { git_version, release: served })
            if release != *served || matches!(server, ServerRelease::Nearest { .. }) =>
        {
            notes.push(format!(
                "{from} selects Kubernetes {release}, but the API server runs {git_version}: {release}'s validation and controller apply"
            ));
            release
        }
        (Some((release, _)), _) => release,
        (None, ServerRelease::Supported { git_version, release }) => {
            if *release == KubernetesVersion::PREVIEW {
                notes.push(format!(
                    "the API server runs {git_version}: Kubernetes {release}'s profile here is a preview, what its development branch had merged, not the release as it shipped (pass --kubernetes-version to choose another)"
                ));
            }
            *release
        }
        (None, ServerRelease::Nearest { git_version, release }) => {
            let preview = if *release == KubernetesVersion::PREVIEW {
                ", a preview of what its development branch had merged, not a release as it shipped,"
            } else {
                ","
            };
            notes.push(format!(
                "the API server runs {git_version}, which has no profile here: Kubernetes {release}'s{preview} the nearest, apply (pass --kubernetes-version to choose another)"
            ));
            *release
        }
        (None, ServerRelease::Unknown { reason }) => {
            let release = KubernetesVersion::LATEST;
            notes.push(format!(
                "the API server's release is unknown ({reason}): Kubernetes {release}'s validation and controller apply (pass --kubernetes-version to choose another)"
            ));
            release
        }
    };
    Resolution { release, notes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hpa_core::features::KubernetesVersion as V;

    #[test]
    fn git_versions() {
        assert_eq!(
            ServerRelease::from_git_version("v1.34.4-eks-a737599"),
            ServerRelease::Supported { git_version: "v1.34.4-eks-a737599".into(), release: V::V1_34 }
        );
        assert_eq!(
            ServerRelease::from_git_version("v1.31.2-gke.1"),
            ServerRelease::Nearest { git_version: "v1.31.2-gke.1".into(), release: V::V1_33 }
        );
        assert_eq!(
            ServerRelease::from_git_version("v1.40.0"),
            ServerRelease::Nearest { git_version: "v1.40.0".into(), release: V::V1_38 }
        );
        assert_eq!(
            ServerRelease::from_git_version("v2.0.0"),
            ServerRelease::Unknown { reason: "its gitVersion \"v2.0.0\" is not a Kubernetes 1.x release".into() }
        );
    }

    #[test]
    fn resolution() {
        let s34 = ServerRelease::from_git_version("v1.34.1");
        assert_eq!(resolve(None, &s34), Resolution { release: V::V1_34, notes: vec![] });
        assert_eq!(resolve(Some((V::V1_34, "--kubernetes-version")), &s34).notes, Vec::<String>::new());
        assert_eq!(
            resolve(Some((V::V1_36, "--kubernetes-version")), &s34),
            Resolution {
                release: V::V1_36,
                notes: vec![
                    "--kubernetes-version selects Kubernetes 1.36, but the API server runs v1.34.1: 1.36's validation and controller apply"
                        .into()
                ]
            }
        );
        // A server of the release in development, or newer than it: the preview, said so.
        assert_eq!(
            resolve(None, &ServerRelease::from_git_version("v1.38.0-alpha.3")),
            Resolution {
                release: V::V1_38,
                notes: vec![
                    "the API server runs v1.38.0-alpha.3: Kubernetes 1.38's profile here is a preview, what its development branch had merged, not the release as it shipped (pass --kubernetes-version to choose another)"
                        .into()
                ]
            }
        );
        assert_eq!(
            resolve(None, &ServerRelease::from_git_version("v1.40.1")),
            Resolution {
                release: V::V1_38,
                notes: vec![
                    "the API server runs v1.40.1, which has no profile here: Kubernetes 1.38's, a preview of what its development branch had merged, not a release as it shipped, the nearest, apply (pass --kubernetes-version to choose another)"
                        .into()
                ]
            }
        );
        assert_eq!(
            resolve(Some((V::V1_38, "--kubernetes-version")), &ServerRelease::from_git_version("v1.38.2")).notes,
            Vec::<String>::new()
        );
        let unknown = ServerRelease::Unknown { reason: "refused".into() };
        assert_eq!(resolve(None, &unknown).release, V::LATEST);
        assert_eq!(resolve(Some((V::V1_35, "x")), &unknown), Resolution { release: V::V1_35, notes: vec![] });
    }
}
