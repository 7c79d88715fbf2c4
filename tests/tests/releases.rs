//! `hpa-lint validate --kubernetes-version` over the malformed and the real-world corpora for
//! every release: no crash, and each release's own messages. Between 1.33 and 1.37 exactly the
//! differences `spec/versions.md` §4 lists appear, and nothing else.

use std::collections::BTreeMap;

use hpa_core::features::KubernetesVersion;
use hpa_tests::cli::hpa_lint;

type Key = (String, u64, u64, String);

/// Every HPA the command reports on, with its messages.
fn validate(dir: &str, release: KubernetesVersion) -> BTreeMap<Key, (bool, Vec<String>)> {
    let path = hpa_tests::data_dir().join(dir).display().to_string();
    let run = hpa_lint(&["validate", "--kubernetes-version", &release.to_string(), "-o", "json", &path], "");
    assert_eq!(run.code, 1, "{dir} on {release}: {}", run.stderr);
    assert!(!run.stdout.contains("internal error"), "{dir} on {release}: {}", run.stdout);
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let key = (
                e["file"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
                e["name"].as_str().unwrap_or("").to_string(),
            );
            let messages = e["errors"].as_array().map_or_else(Vec::new, |errs| {
                errs.iter().map(|err| err["message"].as_str().unwrap().to_string()).collect()
            });
            (key, (e["allowed"].as_bool().unwrap_or(false), messages))
        })
        .collect()
}

/// The 1.37 messages as 1.33 would word them (and without what 1.33 does not check), sorted:
/// the only differences between the two releases in these corpora.
fn as_in_1_33(messages: &[String]) -> Vec<String> {
    let mut out: Vec<String> = messages
        .iter()
        .filter(|m| !m.contains("apiVersion must specify API group") && !m.contains("unexpected GroupVersion string"))
        .map(|m| {
            if m == "spec.maxReplicas: Required value" {
                "spec.maxReplicas: Invalid value: 0: must be greater than 0".to_string()
            } else if let Some(rest) = m.strip_prefix("spec.maxReplicas: Invalid value: ")
                && let Some(n) = rest.strip_suffix(": must be greater than or equal to 1")
            {
                format!("spec.maxReplicas: Invalid value: {n}: must be greater than 0")
            } else {
                m.clone()
            }
        })
        .collect();
    out.sort();
    out
}

/// The 1.33 messages without the minReplicas lower bound of a gate that is on in 1.37, sorted.
fn comparable_1_33(messages: &[String]) -> Vec<String> {
    let mut out: Vec<String> = messages
        .iter()
        .filter(|m| *m != "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1")
        .cloned()
        .collect();
    out.sort();
    out
}

#[test]
fn every_release_validates_both_corpora_without_a_crash() {
    for release in KubernetesVersion::ALL {
        for dir in ["malformed", "realworld/hpa"] {
            assert!(!validate(dir, release).is_empty(), "{dir} on {release}");
        }
    }
}

#[test]
fn the_1_33_messages_on_both_corpora() {
    let mut max_replicas_rewordings = 0;
    let mut accepted_only_by_1_33 = Vec::new();
    for dir in ["malformed", "realworld/hpa"] {
        let old = validate(dir, KubernetesVersion::V1_33);
        let new = validate(dir, KubernetesVersion::V1_37);
        assert_eq!(old.keys().collect::<Vec<_>>(), new.keys().collect::<Vec<_>>(), "{dir}: the same HPAs");
        for (key, (allowed_33, msgs_33)) in &old {
            let (allowed_37, msgs_37) = &new[key];
            assert_eq!(comparable_1_33(msgs_33), as_in_1_33(msgs_37), "{key:?}");
            max_replicas_rewordings += msgs_33.iter().filter(|m| m.ends_with("must be greater than 0")).count();
            assert!(!msgs_33.iter().any(|m| m.contains("apiVersion must specify API group")), "{key:?}");
            if *allowed_33 && !allowed_37 {
                accepted_only_by_1_33.push(key.3.clone());
            }
        }
    }
    // bom-utf8.json, cr-only.yaml and huge-numbers.yaml (malformed) set maxReplicas below 1;
    // three real-world HPAs name a scale target without an API group, which 1.33 accepts; two
    // of them (flask-hpa, hpa-resource-metrics-2) are autoscaling/v2beta1, which neither
    // release serves: kubectl refuses them in both.
    assert!(max_replicas_rewordings >= 3, "{max_replicas_rewordings}");
    accepted_only_by_1_33.sort();
    assert_eq!(accepted_only_by_1_33, ["frontend-scaler"]);
}

/// The findings (rule, field path) of `hpa-lint` on one manifest for a release.
fn lint(release: &str, manifest: &str, select: &str) -> Vec<String> {
    let run =
        hpa_lint(&["--no-config", "-o", "json", "--kubernetes-version", release, "--select", select, "-"], manifest);
    assert!(run.code <= 1, "{release}: {}", run.stderr);
    run.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}", d["rule"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect()
}

#[test]
fn tolerance_ignored_follows_the_release_defaults() {
    let hpa = "apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 20
  behavior:
    scaleUp:
      tolerance: \"0.02\"
";
    for (release, reports) in
        [("1.33", true), ("1.34", true), ("1.35", false), ("1.36", false), ("1.37", false), ("1.38", false)]
    {
        let found = lint(release, hpa, "HPA306");
        assert_eq!(found.len(), usize::from(reports), "{release}: {found:?}");
    }
}

/// An HPA on its default cpu metric and its Deployment `default/web`, whose pod spec has
/// `pod_spec` (lines at six spaces) before its one container without requests.
fn web_with_hpa(pod_spec: &str) -> String {
    format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web, namespace: default}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n{pod_spec}      containers:\n      - {{name: app, image: app}}\n"
    )
}

#[test]
fn pod_level_requests_count_from_1_34() {
    let manifests = &web_with_hpa("      resources: {requests: {cpu: 500m}}\n");
    // 1.33's controller reads container requests only, whatever the gate says.
    let run33 = lint("1.33", manifests, "HPA201");
    assert_eq!(run33.len(), 1, "{run33:?}");
    let gate_on = hpa_lint(
        &[
            "--no-config",
            "-o",
            "json",
            "--kubernetes-version",
            "1.33",
            "--feature-gates",
            "PodLevelResources=true",
            "--select",
            "HPA201",
            "-",
        ],
        manifests,
    );
    assert_eq!(gate_on.json()["diagnostics"].as_array().unwrap().len(), 1);
    assert!(lint("1.34", manifests, "HPA201").is_empty());
}

/// HPA201 with a RuntimeClass's overhead: pod-level requests name memory only, the RuntimeClass
/// the template names has a cpu overhead (admission copies it into each pod's `spec.overhead`).
/// The controller adds it to the pod's requests from 1.34 to 1.37 (`calculatePodLevelRequests`
/// through `PodRequests`); 1.33 reads container requests only, and 1.38 excludes the overhead
/// (#142154).
#[test]
fn pod_overhead_counts_from_1_34_to_1_37() {
    let runtime_class = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\noverhead:\n  podFixed: {cpu: 250m, memory: 120Mi}\n---\n";
    let without = &web_with_hpa("      runtimeClassName: kata\n      resources: {requests: {memory: 1Gi}}\n");
    let manifests = &format!("{runtime_class}{without}");
    assert_eq!(
        lint("1.33", manifests, "HPA201"),
        [
            "HPA201 the default cpu metric (80% utilization, which kube-apiserver adds when spec.metrics is empty) needs a cpu request in every container, and container \"app\" of Deployment default/web has none: the controller will not scale on this metric"
        ]
    );
    for release in ["1.34", "1.35", "1.36", "1.37"] {
        assert_eq!(lint(release, manifests, "HPA201"), Vec::<String>::new(), "{release}");
    }
    assert_eq!(
        lint("1.38", manifests, "HPA201"),
        [
            "HPA201 cpu utilization is measured against the pod-level requests of Deployment default/web, and neither they nor any container request cpu: the controller will not scale on this metric"
        ]
    );
    // Without the RuntimeClass in the set there is no overhead to add.
    assert_eq!(lint("1.37", without, "HPA201").len(), 1);
}
