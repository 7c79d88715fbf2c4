//! Test support for the HPA toolkit: the conformance runner that checks the project against
//! the vectors translated from Kubernetes' own tests (`data/conformance/`), and helpers the
//! integration tests share.

pub mod apiserver;
pub mod cli;
pub mod conformance;

use std::path::PathBuf;

/// A valid autoscaling/v2 HPA (`web`, scaling Deployment `web` up to 5 replicas) that tests
/// vary, combine or repeat.
pub const VALID_HPA: &str = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
";

/// The `tests/data` directory.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}
