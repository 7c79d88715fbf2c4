//! hpa-cluster: the one crate of the HPA toolkit that talks to a Kubernetes API server.
//!
//! It reads what hpa-core's rules and controller need, with `kube` over rustls, and hands
//! hpa-core plain values built by hpa-core's own builders: HPAs as JSON (for the strict
//! decoder), workloads, PodDisruptionBudgets, VPAs, KEDA ScaledObjects and LimitRanges trimmed
//! to what the rules read ([`read_inventory`]), and the inputs of one HPA's controller sync
//! ([`diagnose`]). Every call has a timeout; a refusal (403) or an absent optional API is a
//! [`Note`], not a failure of everything else; what stops a read is an [`Error`] that says in
//! one sentence what to do.
//!
//! It also keeps the webhook's context cache ([`watch::ContextCache`]): watches of what the
//! cross-object rules read, trimmed the same way, in hpa-core's `ObjectIndex` (the
//! `Objects` the rules read).
//!
//! It reads the release the API server runs ([`version::server_release`]) and picks the
//! release profile a live command reproduces ([`version::resolve`]).
//!
//! What it does not do: lint, render, or decide anything about HPAs (hpa-core does).
//!
//! Objects are read as JSON rather than as k8s-openapi structs, so that what the front ends
//! report is what the API server stored, and so that the same functions serve objects read
//! from files (`kubectl get -o yaml` snapshots): [`diagnose::inputs_from_objects`] is that
//! shared half.

pub mod connect;
pub mod diagnose;
pub mod discovery;
pub mod error;
pub mod inventory;
pub mod kinds;
pub mod object;
mod token;
pub mod version;
pub mod watch;

pub use connect::{ClientOptions, Cluster, DEFAULT_TIMEOUT, Environment};
pub use error::Error;
pub use inventory::{Inventory, LiveHpa, Note, NoteKind, Scope, Trimmed, read_custom_targets, read_inventory, trim};
pub use version::{Resolution, ServerRelease, resolve, server_release};
pub use watch::{CacheOptions, ContextCache, Freshness, Index, Overlay, Reads, WatchStatus};
