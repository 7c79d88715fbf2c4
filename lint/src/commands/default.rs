//! `hpa-lint default`: HPAs as kube-apiserver returns them in their own version (decoded,
//! defaulted, converted to the internal form, stripped of what a gate that is off drops on
//! create, stored as `autoscaling/v2` and read back, and converted back:
//! [`convert::as_created_in`]; a version the release no longer serves gets its own defaulting
//! only); other objects pass through unchanged, and what kubectl refuses or never sends is also
//! reported (as `validate` reports it).

use hpa_core::convert;
use serde_json::Value;

use crate::cli::{ClusterArgs, ObjectArgs};
use crate::commands::common::{object_at, render_objects, undecodable, warn_conversion};
use crate::{ExitStatus, Output};

/// Runs `default`, decoding as the release of `--kubernetes-version` (or the configuration's
/// `kubernetesVersion`) decodes, with its feature gates (`--feature-gates`, `featureGates`).
pub fn run(args: &ObjectArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    let gates = match crate::commands::settings::settings(&args.config, cluster, &[], out) {
        Ok(r) => r.settings.gates().clone(),
        Err(e) => return out.fail(&e),
    };
    let release = gates.version();
    let mut objects: Vec<Value> = Vec::new();
    let status = super::each_file(&args.paths, &args.input, out, |file, contents, out| {
        let mut status = ExitStatus::Clean;
        for obj in &contents.objects {
            let value = obj.to_json();
            if !obj.is_hpa() || !contents.counts(obj) {
                objects.push(value);
                continue;
            }
            let at = object_at(file, obj);
            match crate::hpa::decode_object(obj, release) {
                Ok(mut hpa) => {
                    hpa_core::defaults::default_versioned(&mut hpa);
                    // A version the release no longer serves has no server answer: its own
                    // defaulting only.
                    let served = if hpa_core::api::served(hpa.api_version().as_str(), release).is_err() {
                        convert::Conversion { object: hpa, annotation_problems: Vec::new(), lossy: Vec::new() }
                    } else {
                        match convert::as_created_in(&hpa, &gates) {
                            Ok((c, dropped)) => {
                                for d in dropped {
                                    out.warning(&format!(
                                        "{at}: {} dropped: {} is off in Kubernetes {release}, and kube-apiserver drops the field on create",
                                        d.path,
                                        d.gate.name()
                                    ));
                                }
                                c
                            }
                            Err(e) => {
                                out.error(&format!("{at}: cannot convert to the internal form: {e}"));
                                status = status.max(ExitStatus::Findings);
                                continue;
                            }
                        }
                    };
                    warn_conversion(out, &at, &served);
                    let mut json = served.object.to_json();
                    // Defaulting never touches status; do not invent one.
                    if value.get("status").is_none()
                        && let Value::Object(m) = &mut json
                    {
                        m.remove("status");
                    }
                    objects.push(json);
                }
                Err(errs) => {
                    out.error(&undecodable(file, obj, &errs));
                    status = status.max(ExitStatus::Findings);
                }
            }
        }
        status
    });
    out.write(&render_objects(&objects, args.output));
    status
}
