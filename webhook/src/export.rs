//! `hpa-webhook policy export`: the organization policy as in-tree admission objects, for
//! clusters that want the policy without operating a webhook.
//!
//! - The constraints become a `ValidatingAdmissionPolicy` and its binding: `maxReplicas` and
//!   `requireBehavior`, each with the webhook's message and its ratcheting (an UPDATE may keep a
//!   value the object already had); as the webhook, a denial never stops an UPDATE of an object
//!   being deleted (a finalizer's removal). A binding's `validationActions` apply to every
//!   validation of its policy, so the constraints the policy enforces with `Deny` and those it
//!   enforces with `Warn` are two policies, `<name>-constraints` (`[Deny]`) and
//!   `<name>-constraints-warn` (`[Warn]`); a constraint that layers enforce differently is in
//!   both, each half guarded by the enforcement of the layer that set it in the namespace.
//! - The behavior defaults become a `MutatingAdmissionPolicy` (`admissionregistration.k8s.io/v1`,
//!   GA in 1.36) and its binding: JSON patches that add the fields an HPA leaves unset.
//!
//! Per release ([`ExportOptions::release`]): `admissionregistration.k8s.io/v1`
//! ValidatingAdmissionPolicies are GA from 1.30, so every release the toolkit knows gets the
//! constraints. The MutatingAdmissionPolicy is left out before 1.36, with a note saying why
//! ([`mutating_admission_policy_missing`]): there the defaults need the webhook's `/mutate`.
//! The CEL stays within what every release's environment offers (`apiserver/pkg/cel/environment/
//! base.go`, checked at the compatibility version, the release before): the validations use
//! CEL's standard definitions only (present from the base environment's 1.0 epoch), the
//! mutations add optional types (from 1.28) and the MutatingAdmissionPolicy's own `JSONPatch`
//! and `Object` types.
//!
//! One policy of each kind holds every layer: a rule is a CEL variable that tells whether the
//! namespace matches it (by name, or by the labels of `namespaceObject`), and each setting takes
//! the last matching layer's value (a list of the values, indexed flat: the expressions do not
//! nest deeper with more rules, see `chain`), exactly as [`Policy::effective`] overlays
//! them. Both match `autoscaling/v2` with `matchPolicy: Equivalent`, so `autoscaling/v1` requests
//! are converted by kube-apiserver first, as the webhook converts them.
//!
//! What they cannot do, by construction: every cross-object check and every lint warning (CEL
//! sees one object), kube-apiserver's validation messages as the webhook words them (an in-tree
//! denial reads "ValidatingAdmissionPolicy '...' with binding '...' denied request: ..."), and
//! explanations. And they read the namespace's real labels, where the webhook reads the
//! policy's `namespaceLabels`.

use serde_json::{Value, json};

use hpa_core::api::LabelSelector;
use hpa_core::api::meta::LabelSelectorRequirement;
use hpa_core::api::v2::{HPAScalingPolicy, HPAScalingRules};
use hpa_core::features::KubernetesVersion;

use crate::policy::{Enforcement, LayerView, NAMESPACE_NAME_LABEL, NamespaceSelector, Policy};

/// How the policy is exported.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Prefix of the objects' names.
    pub name: String,
    /// `validationActions` for every constraint, in one binding, instead of the policy's
    /// enforcement (`Deny` → `[Deny]`, `Warn` → `[Warn]`); e.g. `[Audit]` or `[Warn, Audit]`
    /// to try a policy out.
    pub validation_actions: Option<Vec<String>>,
    /// Namespaces the bindings leave out.
    pub excluded_namespaces: Vec<String>,
    /// Whether tolerance defaults are exported (the `HPAConfigurableTolerance` gate).
    pub tolerance: bool,
    /// The cluster's release: the behavior defaults are exported from 1.36 on
    /// ([`mutating_admission_policy_missing`]).
    pub release: KubernetesVersion,
}

/// What the export produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    /// The objects, policies before their bindings.
    pub objects: Vec<Value>,
    /// Settings that could not be exported, and why.
    pub notes: Vec<String>,
}

/// The `apiVersion` of the exported objects.
pub const API_VERSION: &str = "admissionregistration.k8s.io/v1";

/// Exports `policy` (see the module documentation).
pub fn export(policy: &Policy, options: &ExportOptions) -> Exported {
    let layers: Vec<LayerView<'_>> = policy.layers().collect();
    let mut notes = Vec::new();
    let mut objects = Vec::new();
    let rules = rule_variables(&layers);
    for group in validating(&layers, options.validation_actions.is_some()) {
        let name = match group.enforcement {
            Some(Enforcement::Warn) => format!("{}-constraints-warn", options.name),
            _ => format!("{}-constraints", options.name),
        };
        let actions = match (&options.validation_actions, group.enforcement) {
            (Some(actions), _) => actions.clone(),
            (None, enforcement) => vec![enforcement.unwrap_or_default().as_str().to_string()],
        };
        objects.push(json!({
            "apiVersion": API_VERSION,
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name, "labels": labels(options)},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": match_constraints(),
                "variables": rules.iter().cloned().chain(group.variables).collect::<Vec<_>>(),
                "validations": group.validations,
            }
        }));
        objects.push(json!({
            "apiVersion": API_VERSION,
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name, "labels": labels(options)},
            "spec": {
                "policyName": name,
                "validationActions": actions,
                "matchResources": match_resources(options),
            }
        }));
    }
    let missing = mutating_admission_policy_missing(options.release);
    if missing.is_none()
        && !options.tolerance
        && layers.iter().any(|l| {
            l.behavior
                .is_some_and(|b| [&b.scale_up, &b.scale_down].into_iter().flatten().any(|r| r.tolerance.is_some()))
        })
    {
        notes.push("tolerance defaults are not exported: HPAConfigurableTolerance is off".to_string());
    }
    let mutation = mutating(&layers, options.tolerance);
    let defaults_left_out = mutation.is_some() && missing.is_some();
    if let (true, Some(why)) = (defaults_left_out, missing) {
        notes.push(format!(
            "behavior defaults are not exported for Kubernetes {}: {why}; they need hpa-webhook's /mutate \
             (the constraints are exported: ValidatingAdmissionPolicy is GA from 1.30)",
            options.release
        ));
    }
    if let Some(mutation) = mutation.filter(|_| missing.is_none()) {
        let name = format!("{}-defaults", options.name);
        objects.push(json!({
            "apiVersion": API_VERSION,
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": name, "labels": labels(options)},
            "spec": {
                // As the webhook's /mutate: defaults are a convenience, never a reason to refuse.
                "failurePolicy": "Ignore",
                "reinvocationPolicy": "IfNeeded",
                "matchConstraints": match_constraints(),
                "variables": rules.iter().cloned().chain(mutation.variables).collect::<Vec<_>>(),
                "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": mutation.expression}}],
            }
        }));
        objects.push(json!({
            "apiVersion": API_VERSION,
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": name, "labels": labels(options)},
            "spec": {"policyName": name, "matchResources": match_resources(options)}
        }));
    }
    if !policy.namespace_labels().is_empty() {
        notes.push(namespace_labels_note(policy));
    }
    if policy.denies_rules() {
        notes.push("denyRules are not exported: lint rules run only in hpa-webhook".to_string());
    }
    if objects.is_empty() && !defaults_left_out {
        // `kubectl apply --prune` refuses an empty List (`no objects passed to apply`), so the
        // objects of an earlier export are deleted by their label instead (the mutating kinds
        // only where the release serves them: kubectl refuses a resource type it does not know).
        let kinds = if missing.is_none() {
            "validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingadmissionpolicies,mutatingadmissionpolicybindings"
        } else {
            "validatingadmissionpolicies,validatingadmissionpolicybindings"
        };
        notes.push(format!(
            "the policy sets no constraint and no behavior default: nothing to export; to delete the objects of an earlier export: kubectl delete {kinds} -l {EXPORT_LABEL}={}",
            shell_word(&options.name)
        ));
    }
    Exported { objects, notes }
}

/// Why `release` cannot take the behavior defaults as a MutatingAdmissionPolicy, or `None` from
/// 1.36, where it is GA. k8s.io/apiserver's versioned feature gate `MutatingAdmissionPolicy`
/// (KEP-3962): alpha and off from 1.32 (`admissionregistration.k8s.io/v1alpha1`), beta and still
/// off from 1.34 (`v1beta1`, which as every beta API since 1.24 is also off until
/// `--runtime-config` serves it), GA and on in 1.36 (#136039, CHANGELOG-1.36: "Graduated
/// MutatingAdmissionPolicy to GA (v1) in Kubernetes 1.36. The feature is now enabled by
/// default.").
pub fn mutating_admission_policy_missing(release: KubernetesVersion) -> Option<&'static str> {
    match release {
        KubernetesVersion::V1_33 => Some(
            "MutatingAdmissionPolicy is alpha there (admissionregistration.k8s.io/v1alpha1, feature gate \
             MutatingAdmissionPolicy off by default) and GA (admissionregistration.k8s.io/v1) from 1.36",
        ),
        KubernetesVersion::V1_34 | KubernetesVersion::V1_35 => Some(
            "MutatingAdmissionPolicy is beta there (admissionregistration.k8s.io/v1beta1, feature gate \
             MutatingAdmissionPolicy off by default) and GA (admissionregistration.k8s.io/v1) from 1.36",
        ),
        KubernetesVersion::V1_36 | KubernetesVersion::V1_37 | KubernetesVersion::V1_38 => None,
    }
}

/// `namespaceLabels` decide which rules apply in the webhook; the exported policies read the
/// namespaces' real labels (`namespaceObject`), so those must be set: the `kubectl label`
/// commands that set them.
fn namespace_labels_note(policy: &Policy) -> String {
    let mut note = "namespaceLabels are the webhook's: the exported policies read the namespaces' own labels, so \
                    apply them (kubectl label namespace NAME KEY=VALUE):"
        .to_string();
    for (namespace, labels) in policy.namespace_labels() {
        let pairs: Vec<String> = labels.iter().map(|(k, v)| shell_word(&format!("{k}={v}"))).collect();
        if !pairs.is_empty() {
            note.push_str(&format!(
                "\n  kubectl label namespace {} {} --overwrite",
                shell_word(namespace),
                pairs.join(" ")
            ));
        }
    }
    note
}

/// `word` as one shell word: as is when it holds only characters no shell reads specially,
/// else single-quoted.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Why `hpa-webhook policy export` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The policy file could not be read or is invalid.
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyError),
    /// `--feature-gates` or `--kubernetes-version` is invalid.
    #[error("--feature-gates: {0}")]
    Gates(#[from] hpa_core::features::GateError),
    /// kube-apiserver would refuse objects built from these flags (`--name`,
    /// `--validation-actions`, `--exclude-namespace`): its 422 messages, one per object.
    #[error("kube-apiserver would refuse the exported objects (check --name, --validation-actions and --exclude-namespace):\n  {}", .0.join("\n  "))]
    Refused(Vec<String>),
    /// Writing the output failed.
    #[error("writing the objects: {0}")]
    Write(#[from] std::io::Error),
}

/// What kube-apiserver of `release` refuses in the exported objects, as its 422 `Invalid`
/// messages: an object name that is no DNS subdomain (`ValidateObjectMeta` with
/// `NameIsDNSSubdomain`, as the admissionregistration.k8s.io strategies call it), a label value
/// that is none (`ValidateLabels`: the [`EXPORT_LABEL`] holds `--name`), a binding's
/// `spec.validationActions` that repeat an action or hold both Deny and Warn
/// (`validateValidationActions`), and a binding's namespace selector that is no label selector
/// (`validateMatchResources`: `ValidateLabelSelector`, whose values are label values: an
/// `--exclude-namespace` such as `"Bad NS"`). The flags are checked through the objects they end
/// up in, so the messages name those objects.
pub fn refusals(objects: &[Value], release: hpa_core::features::KubernetesVersion) -> Vec<String> {
    use hpa_core::field::{self, BadValue, ErrorType, FieldError, Path};
    let mut out = Vec::new();
    for object in objects {
        let (kind, name) = (object["kind"].as_str().unwrap_or_default(), object["metadata"]["name"].as_str());
        let name = name.unwrap_or_default();
        let meta = Path::new("metadata");
        let mut errors: Vec<FieldError> = hpa_core::validation::names::dns1123_subdomain(name)
            .into_iter()
            .map(|message| FieldError::invalid(&meta.child("name"), BadValue::Str(name.to_string()), message))
            .collect();
        // `ValidateObjectMeta`'s labels, after the name: the export's label holds `--name`.
        let labels: std::collections::BTreeMap<String, String> = object["metadata"]["labels"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect();
        errors.extend(hpa_core::validation::meta::validate_label_map(&labels, &meta.child("labels"), release));
        if kind == "ValidatingAdmissionPolicyBinding" {
            let actions: Vec<&str> = object["spec"]["validationActions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let spec = Path::new("spec");
            let path = spec.child("validationActions");
            let mut seen = std::collections::BTreeSet::new();
            for (i, action) in actions.iter().enumerate() {
                if !seen.insert(*action) {
                    // `field.Duplicate` of a ValidationAction (a named string type: JSON-quoted).
                    let mut duplicate =
                        FieldError::invalid(&path.index(i), BadValue::Named((*action).to_string()), String::new());
                    duplicate.kind = ErrorType::Duplicate;
                    errors.push(duplicate);
                }
            }
            errors.extend(namespace_selector_errors(object, release));
            if seen.contains("Deny") && seen.contains("Warn") {
                let value = BadValue::Composite {
                    json: hpa_core::go::to_go_json(&actions).unwrap_or_default(),
                    go_syntax: format!(
                        "[]admissionregistration.ValidationAction{{{}}}",
                        actions.iter().map(|a| hpa_core::go::quote(a)).collect::<Vec<_>>().join(", ")
                    ),
                };
                errors.push(FieldError::invalid(
                    &path,
                    value,
                    "must not contain both Deny and Warn (repeating the same validation failure information in the \
                     API response and headers serves no purpose)",
                ));
            }
        }
        if kind == "MutatingAdmissionPolicyBinding" {
            errors.extend(namespace_selector_errors(object, release));
        }
        if !errors.is_empty() {
            out.push(field::invalid_message(kind, "admissionregistration.k8s.io", name, &errors));
        }
    }
    out
}

/// kube-apiserver's errors on a binding's `spec.matchResources.namespaceSelector`, as
/// `validateMatchResources` finds them (`ValidateLabelSelector` with default options:
/// hpa-core's [`validate_label_selector`](hpa_core::validation::meta::validate_label_selector)).
fn namespace_selector_errors(
    binding: &Value,
    release: hpa_core::features::KubernetesVersion,
) -> Vec<hpa_core::field::FieldError> {
    let at = &binding["spec"]["matchResources"]["namespaceSelector"];
    if !at.is_object() {
        return Vec::new();
    }
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect()
    };
    let selector = LabelSelector {
        match_labels: at["matchLabels"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect(),
        match_expressions: at["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| LabelSelectorRequirement {
                key: r["key"].as_str().unwrap_or_default().to_string(),
                operator: r["operator"].as_str().unwrap_or_default().to_string(),
                values: strings(&r["values"]),
            })
            .collect(),
    };
    let spec = hpa_core::field::Path::new("spec");
    let match_resources = spec.child("matchResources");
    hpa_core::validation::meta::validate_label_selector(&selector, &match_resources.child("namespaceSelector"), release)
}

/// `hpa-webhook policy export`: reads the policy, prints the objects as a JSON `List` (JSON is
/// YAML: `kubectl apply -f` takes it), and the notes on stderr.
pub fn run(
    args: &crate::cli::ExportArgs,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> Result<(), ExportError> {
    let (gates, warnings) = args.gates()?;
    for w in warnings {
        writeln!(stderr, "warning: --feature-gates: {w}")?;
    }
    let store = crate::policy::PolicyStore::load(Some(&args.policy))?;
    let options = ExportOptions {
        name: args.name.clone(),
        validation_actions: (!args.validation_actions.is_empty()).then(|| args.validation_actions.clone()),
        excluded_namespaces: args.exclude_namespace.iter().filter(|n| !n.is_empty()).cloned().collect(),
        tolerance: gates.enabled(hpa_core::features::Gate::HPAConfigurableTolerance),
        release: gates.version(),
    };
    let exported = export(&store.current(), &options);
    let refused = refusals(&exported.objects, gates.version());
    if !refused.is_empty() {
        return Err(ExportError::Refused(refused));
    }
    for note in &exported.notes {
        writeln!(stderr, "note: {note}")?;
    }
    let text = serde_json::to_string_pretty(&to_list(&exported.objects)).map_err(std::io::Error::other)?;
    // A reader that stopped reading (`| head`) ends the output, not with an error.
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => Ok(written?),
    }
}

/// The objects as one `v1` `List` (what `kubectl apply -f` takes, as JSON or YAML).
pub fn to_list(objects: &[Value]) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": objects})
}

/// The label every exported object carries with the export's `--name` as its value, so that
/// one export's objects are selected together and an object a later export no longer makes (the
/// `-constraints-warn` pair once no layer warns, the `-defaults` pair once no layer sets a
/// behavior) is pruned: `kubectl apply --prune -l hpa-toolkit.io/policy-export=<name>` (README,
/// "No webhook at all"). Another export (another `--name`) is never selected.
pub const EXPORT_LABEL: &str = "hpa-toolkit.io/policy-export";

fn labels(options: &ExportOptions) -> Value {
    json!({
        "app.kubernetes.io/part-of": "hpa-toolkit",
        "app.kubernetes.io/managed-by": "hpa-webhook-policy-export",
        EXPORT_LABEL: options.name,
    })
}

fn match_constraints() -> Value {
    json!({
        "matchPolicy": "Equivalent",
        "resourceRules": [{"apiGroups": ["autoscaling"], "apiVersions": ["v2"], "operations": ["CREATE", "UPDATE"],
            "resources": ["horizontalpodautoscalers"]}]
    })
}

fn match_resources(options: &ExportOptions) -> Value {
    if options.excluded_namespaces.is_empty() {
        return json!({});
    }
    json!({"namespaceSelector": {"matchExpressions": [
        {"key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": options.excluded_namespaces}]}})
}

// === namespaces ===

/// `rule<i>`: whether the namespace matches rule `i` (layer `i + 1`; layer 0 is `defaults`).
fn rule_variables(layers: &[LayerView<'_>]) -> Vec<Value> {
    layers
        .iter()
        .enumerate()
        .filter_map(|(i, layer)| Some((i, layer.selector?)))
        .map(|(i, selector)| json!({"name": format!("rule{}", i - 1), "expression": selector_expression(selector)}))
        .collect()
}

/// The CEL condition of `layer` (`true` for `defaults`).
fn layer_condition(index: usize, layer: &LayerView<'_>) -> String {
    match layer.selector {
        None => "true".to_string(),
        Some(_) => format!("variables.rule{}", index - 1),
    }
}

/// A namespace selector as CEL over `namespaceObject`, as `metav1.LabelSelectorAsSelector(...)
/// .Matches(labels)` evaluates it; `kubernetes.io/metadata.name` is the namespace's name.
fn selector_expression(selector: NamespaceSelector<'_>) -> String {
    match selector {
        NamespaceSelector::Names(names) => {
            format!(
                "namespaceObject.metadata.name in [{}]",
                names.iter().map(|n| cel_string(n)).collect::<Vec<_>>().join(", ")
            )
        }
        NamespaceSelector::Labels(selector) => labels_expression(selector),
    }
}

fn labels_expression(selector: &LabelSelector) -> String {
    let mut terms: Vec<String> = selector
        .match_labels
        .iter()
        .map(|(k, v)| format!("({} && {} == {})", label_present(k), label_value(k), cel_string(v)))
        .collect();
    terms.extend(selector.match_expressions.iter().map(requirement_expression));
    if terms.is_empty() { "true".to_string() } else { terms.join(" && ") }
}

fn requirement_expression(r: &LabelSelectorRequirement) -> String {
    let values = format!("[{}]", r.values.iter().map(|v| cel_string(v)).collect::<Vec<_>>().join(", "));
    let (has, value) = (label_present(&r.key), label_value(&r.key));
    match r.operator.as_str() {
        "In" => format!("({has} && {value} in {values})"),
        "NotIn" => format!("(!{has} || !({value} in {values}))"),
        "Exists" => has,
        "DoesNotExist" => format!("!{has}"),
        // Policy::parse refuses other operators; a selector that cannot match matches nothing.
        _ => "false".to_string(),
    }
}

/// Whether the namespace has the label (its name label always).
fn label_present(key: &str) -> String {
    if key == NAMESPACE_NAME_LABEL {
        return "true".to_string();
    }
    format!("(has(namespaceObject.metadata.labels) && {} in namespaceObject.metadata.labels)", cel_string(key))
}

/// The label's value, read only where [`label_present`] holds.
fn label_value(key: &str) -> String {
    if key == NAMESPACE_NAME_LABEL {
        return "namespaceObject.metadata.name".to_string();
    }
    format!("namespaceObject.metadata.labels[{}]", cel_string(key))
}

// === constraints ===

/// The validations of one ValidatingAdmissionPolicy.
struct Validations {
    /// The enforcement its binding stands for; `None` with `--validation-actions`.
    enforcement: Option<Enforcement>,
    variables: Vec<Value>,
    validations: Vec<Value>,
}

/// The value of the last matching layer that sets it, else `otherwise`: the values in a list
/// literal (that of `defaults`, else `otherwise`, first), indexed by the position of the last
/// matching rule among those that set it, `([c3 ? 3 : 0, c1 ? 1 : 0].filter(i, i != 0) + [0])[0]`.
/// Flat, where a chain of conditionals would nest one level per rule: cel-go's parser refuses an
/// expression nested more than 250 deep (`parser.MaxRecursionDepth`, which kube-apiserver's
/// `environment.MustBaseEnvSet` leaves at its default), so a policy of a few hundred rules that
/// set one field would be an admission policy kube-apiserver refuses to create ("compilation
/// failed").
fn chain<'p>(
    layers: &[LayerView<'p>],
    value: impl Fn(&LayerView<'p>) -> Option<String>,
    otherwise: &str,
) -> Option<String> {
    let mut values = vec![otherwise.to_string()];
    let mut conditions = Vec::new();
    let mut set = false;
    for (i, layer) in layers.iter().enumerate() {
        let Some(v) = value(layer) else { continue };
        set = true;
        match layer.selector {
            // `defaults`, the first layer: the value where no rule that sets it matches.
            None => values[0] = v,
            Some(_) => {
                conditions.push(format!("{} ? {} : 0", layer_condition(i, layer), values.len()));
                values.push(v);
            }
        }
    }
    if !set {
        return None;
    }
    if conditions.is_empty() {
        return Some(values.join(""));
    }
    conditions.reverse();
    Some(format!("[{}][([{}].filter(i, i != 0) + [0])[0]]", values.join(", "), conditions.join(", ")))
}

/// One constraint as a ValidatingAdmissionPolicy sees it.
struct Constraint {
    /// Its variable (`maxReplicas`), with `<name>Origin` and `<name>Enforcement` beside it.
    name: &'static str,
    /// Its value in a layer that sets it, as CEL.
    value: fn(&LayerView<'_>) -> Option<String>,
    /// Its value where no layer sets it.
    otherwise: &'static str,
    /// Whether the object meets it (`Policy::effective(..).violations`), with the webhook's
    /// ratcheting: an UPDATE that keeps the old value is let through.
    expression: &'static str,
    /// The webhook's message.
    message: &'static str,
}

/// An UPDATE of an object being deleted (`metadata.deletionTimestamp` on the object or on the
/// stored one), which the webhook never denies on a constraint: removing a finalizer must not be
/// refused, or the deletion (and the namespace's termination) would hang. Exactly the webhook's
/// exemption (`/validate` in [`crate::admission`]): UPDATE only, either object.
const DELETING: &str = "(request.operation == 'UPDATE' && (has(object.metadata.deletionTimestamp) || has(oldObject.metadata.deletionTimestamp)))";

const CONSTRAINTS: [Constraint; 2] = [
    Constraint {
        name: "maxReplicas",
        value: |l| l.constraints.max_replicas.map(|m| m.to_string()),
        otherwise: "0",
        expression: "variables.maxReplicas == 0 || object.spec.maxReplicas <= variables.maxReplicas || (request.operation == 'UPDATE' && oldObject.spec.maxReplicas == object.spec.maxReplicas)",
        message: "'spec.maxReplicas: Invalid value: ' + string(object.spec.maxReplicas) + ': must be less than or equal to ' + string(variables.maxReplicas) + ' (organization policy: ' + variables.maxReplicasOrigin + ')'",
    },
    Constraint {
        name: "requireBehavior",
        value: |l| l.constraints.require_behavior.map(|b| b.to_string()),
        otherwise: "false",
        expression: "!variables.requireBehavior || has(object.spec.behavior) || (request.operation == 'UPDATE' && !has(oldObject.spec.behavior))",
        message: "'spec.behavior: Required value: organization policy requires behavior in namespace \"' + namespaceObject.metadata.name + '\" (' + variables.requireBehaviorOrigin + ')'",
    },
];

/// The constraints as validations, one group per enforcement the layers that set them use
/// (one group when `overridden`): what each binding's `validationActions` apply to.
fn validating(layers: &[LayerView<'_>], overridden: bool) -> Vec<Validations> {
    let mut variables = Vec::new();
    let mut groups: Vec<Validations> = Vec::new();
    for constraint in &CONSTRAINTS {
        let Some(value) = chain(layers, constraint.value, constraint.otherwise) else { continue };
        let sets = |l: &LayerView<'_>| (constraint.value)(l).is_some();
        let origin = chain(layers, |l| sets(l).then(|| cel_string(l.origin)), "''").unwrap_or_default();
        variables.push(json!({"name": constraint.name, "expression": value}));
        variables.push(json!({"name": format!("{}Origin", constraint.name), "expression": origin}));
        let mut enforcements: Vec<Option<Enforcement>> = Vec::new();
        for layer in layers.iter().filter(|l| sets(l)) {
            let enforcement = (!overridden).then_some(layer.enforcement);
            if !enforcements.contains(&enforcement) {
                enforcements.push(enforcement);
            }
        }
        let guard = if enforcements.len() > 1 {
            // Layers enforce it differently: each policy checks it where its enforcement is the
            // one of the layer that set the value in force.
            let name = format!("{}Enforcement", constraint.name);
            let expression =
                chain(layers, |l| sets(l).then(|| cel_string(l.enforcement.as_str())), "''").unwrap_or_default();
            variables.push(json!({"name": name, "expression": expression}));
            Some(name)
        } else {
            None
        };
        for enforcement in enforcements {
            let expression = match enforcement {
                // The webhook's exemption holds for denials only: a Warn constraint still warns.
                Some(Enforcement::Warn) => constraint.expression.to_string(),
                _ => format!("{DELETING} || ({})", constraint.expression),
            };
            let expression = match (&guard, enforcement) {
                (Some(name), Some(e)) => format!("variables.{name} != {} || ({expression})", cel_string(e.as_str())),
                _ => expression,
            };
            let validation =
                json!({"expression": expression, "messageExpression": constraint.message, "reason": "Invalid"});
            match groups.iter_mut().find(|g| g.enforcement == enforcement) {
                Some(group) => group.validations.push(validation),
                None => groups.push(Validations { enforcement, variables: Vec::new(), validations: vec![validation] }),
            }
        }
    }
    // Deny first, as the webhook's denials come before its warnings.
    groups.sort_by_key(|g| g.enforcement == Some(Enforcement::Warn));
    for group in &mut groups {
        group.variables.clone_from(&variables);
    }
    groups
}

// === behavior defaults ===

struct Mutation {
    variables: Vec<Value>,
    expression: String,
}

/// The fields of `HPAScalingRules` a policy can default, with their JSON names.
const FIELDS: [&str; 4] = ["stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance"];

fn mutating(layers: &[LayerView<'_>], tolerance: bool) -> Option<Mutation> {
    let mut variables = Vec::new();
    let mut patches = Vec::new();
    let mut any = Vec::new();
    for (direction, json_name) in [("ScaleUp", "scaleUp"), ("ScaleDown", "scaleDown")] {
        let rules_of = |l: &LayerView<'_>| -> Option<HPAScalingRules> {
            let b = l.behavior?;
            if json_name == "scaleUp" { b.scale_up.clone() } else { b.scale_down.clone() }
        };
        let object_type = format!("Object.spec.behavior.{json_name}");
        let mut set = Vec::new();
        let mut field_patches = Vec::new();
        for field in FIELDS {
            if field == "tolerance" && !tolerance {
                continue;
            }
            let value = |l: &LayerView<'_>| -> Option<String> {
                let r = rules_of(l)?;
                let v = match field {
                    "stabilizationWindowSeconds" => r.stabilization_window_seconds?.to_string(),
                    "selectPolicy" => cel_string(r.select_policy.as_deref()?),
                    "policies" => policies_literal(r.policies.as_deref()?, &format!("{object_type}.policies")),
                    _ => cel_string(&r.tolerance.as_ref()?.to_string()),
                };
                Some(format!("optional.of({v})"))
            };
            let Some(expression) = chain(layers, value, "optional.none()") else { continue };
            let variable = format!("{json_name}{}", capitalize(field));
            variables.push(json!({"name": variable, "expression": expression}));
            set.push(format!("variables.{variable}.hasValue()"));
            field_patches.push(format!(
                "(variables.{variable}.hasValue() && !({present}) ? [JSONPatch{{op: \"add\", path: \"/spec/behavior/{json_name}/{field}\", value: variables.{variable}.value()}}] : [])",
                present = present(&["behavior", json_name, field]),
            ));
        }
        if set.is_empty() {
            continue;
        }
        let sets = format!("sets{direction}");
        variables.push(json!({"name": sets, "expression": set.join(" || ")}));
        any.push(format!("variables.{sets}"));
        // The direction's rules are created when missing, then filled field by field.
        patches.push(format!(
            "(variables.{sets} && !({present}) ? [JSONPatch{{op: \"add\", path: \"/spec/behavior/{json_name}\", value: {object_type}{{}}}}] : [])",
            present = present(&["behavior", json_name]),
        ));
        patches.extend(field_patches);
    }
    if any.is_empty() {
        return None;
    }
    variables.push(json!({"name": "setsBehavior", "expression": any.join(" || ")}));
    patches.insert(
        0,
        "(variables.setsBehavior && !has(object.spec.behavior) ? [JSONPatch{op: \"add\", path: \"/spec/behavior\", value: Object.spec.behavior{}}] : [])"
            .to_string(),
    );
    Some(Mutation { variables, expression: patches.join(" +\n") })
}

/// `has(object.spec.a) && has(object.spec.a.b) && ...`: CEL's `has` needs every parent present.
fn present(path: &[&str]) -> String {
    (1..=path.len()).map(|n| format!("has(object.spec.{})", path[..n].join("."))).collect::<Vec<_>>().join(" && ")
}

fn policies_literal(policies: &[HPAScalingPolicy], object_type: &str) -> String {
    let items: Vec<String> = policies
        .iter()
        .map(|p| {
            format!(
                "{object_type}{{type: {}, value: {}, periodSeconds: {}}}",
                cel_string(&p.type_),
                p.value,
                p.period_seconds
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// A CEL string literal (double-quoted, with escapes).
pub fn cel_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
