//! Name and label formats, with apimachinery's exact messages.
//!
//! Mirrors `k8s.io/apimachinery/pkg/util/validation/validation.go` (DNS-1123 names, whose length
//! messages say "characters") and `k8s.io/apimachinery/pkg/api/validate/content` (label keys and
//! values, whose length messages say "bytes"; path-segment names). Before 1.35 label keys and
//! values were checked by `util/validation`'s `IsQualifiedName` and `IsValidLabelValue`, whose
//! length messages say "characters" and which call a malformed key "a qualified name" rather
//! than "a valid label key".

use crate::features::KubernetesVersion;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// `RegexError`: the message, then examples and the regex in apimachinery's odd punctuation.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let mut out = String::from(msg);
    if examples.is_empty() {
        out.push_str(&format!(" (regex used for validation is '{re}')"));
        return out;
    }
    out.push_str(" (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{re}')"));
    out
}

/// `IsValidPercent`: the message for a string that is not digits followed by `%`.
pub fn percent_error(percent: &str) -> Option<String> {
    let valid = percent.strip_suffix('%').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (!valid).then(|| {
        regex_error(
            "a valid percent string must be a numeric string followed by an ending '%'",
            "[0-9]+%",
            &["1%", "93%"],
        )
    })
}

fn is_dns_label_bytes(s: &[u8]) -> bool {
    match (s.first(), s.last()) {
        (Some(f), Some(l)) => {
            is_lower_alnum(*f) && is_lower_alnum(*l) && s.iter().all(|c| is_lower_alnum(*c) || *c == b'-')
        }
        _ => false,
    }
}

fn is_lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn matches_dns_subdomain(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(|part| is_dns_label_bytes(part.as_bytes()))
}

/// `IsDNS1123Subdomain` (util/validation: "characters").
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    subdomain_errors(value, "characters")
}

/// `IsDNS1123Subdomain` of `util/validation` or of `content` (used for label-key prefixes),
/// which differ only in the unit their length message counts in (`unit`: "characters" or
/// "bytes").
fn subdomain_errors(value: &str, unit: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(format!("must be no more than 253 {unit}"));
    }
    if !matches_dns_subdomain(value) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label` (util/validation: "characters").
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !is_dns_label_bytes(value.as_bytes()) {
        if matches_dns_subdomain(value) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `NameIsDNSSubdomain(name, prefix)`: a prefix (generateName) may end in a dash.
pub fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix { dns1123_subdomain(&mask_trailing_dash(name)) } else { dns1123_subdomain(name) }
}

/// `NameIsDNSLabel(name, prefix)` (namespaces).
pub fn name_is_dns_label(name: &str, prefix: bool) -> Vec<String> {
    if prefix { dns1123_label(&mask_trailing_dash(name)) } else { dns1123_label(name) }
}

/// `maskTrailingDash`: Go replaces the last *two* bytes with `a` when the name ends in `-`
/// (`name[:len(name)-2] + "a"`).
///
/// The cut is a byte count: before a multibyte character (`é-`) it leaves that character's
/// first bytes, invalid UTF-8, which no DNS name matches. The result is only ever checked, never
/// printed, so those bytes become as many `_` (also never part of a DNS name, and the same
/// length). A lone `-` makes Go slice `[:-1]` and panic (kube-apiserver answers 500); here it
/// becomes `a`, and the generated name (`-` and the suffix) is refused instead.
fn mask_trailing_dash(name: &str) -> String {
    if !name.ends_with('-') {
        return name.to_string();
    }
    let cut = name.len().saturating_sub(2);
    let mut boundary = cut;
    while !name.is_char_boundary(boundary) {
        boundary -= 1;
    }
    let head = name.get(..boundary).unwrap_or("");
    format!("{head}{}a", "_".repeat(cut - boundary))
}

fn matches_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Whether a release checks label keys and values with `content.IsLabelKey`/`IsLabelValue`
/// (1.35 and later) rather than `util/validation`'s `IsQualifiedName`/`IsValidLabelValue`.
pub(crate) fn content_wording(release: KubernetesVersion) -> bool {
    release >= KubernetesVersion::V1_35
}

/// The unit the length messages of the package that checks label keys and values in `release`
/// count in.
fn label_length_unit(release: KubernetesVersion) -> &'static str {
    if content_wording(release) { "bytes" } else { "characters" }
}

/// `MaxLenError` of the package that checks label keys and values in `release`.
fn label_max_len(n: usize, release: KubernetesVersion) -> String {
    format!("must be no more than {n} {}", label_length_unit(release))
}

/// `content.IsLabelKey` (1.35 and later; `IsQualifiedName` is an alias of it) or
/// `validation.IsQualifiedName` (before): optional DNS prefix, `/`, a name of at most 63
/// bytes.
pub fn qualified_name(value: &str, release: KubernetesVersion) -> Vec<String> {
    let content = content_wording(release);
    let mut errs = Vec::new();
    // `strings.Split(value, "/")` into one or two parts (without collecting them).
    let name = match value.split_once('/') {
        None => value,
        Some((prefix, name)) if !name.contains('/') => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                let msgs = subdomain_errors(prefix, label_length_unit(release));
                errs.extend(msgs.into_iter().map(|m| format!("prefix part {m}")));
            }
            name
        }
        _ => {
            errs.push(format!(
                "{} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                if content { "a valid label key" } else { "a qualified name" },
                regex_error(
                    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                    LABEL_KEY_FMT,
                    &["MyName", "my.name", "123-abc"],
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", label_max_len(63, release)));
    }
    if !matches_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"],
            )
        ));
    }
    errs
}

/// `content.IsLabelValue` (1.35 and later) or `validation.IsValidLabelValue` (before).
pub fn label_value(value: &str, release: KubernetesVersion) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(label_max_len(63, release));
    }
    if !value.is_empty() && !matches_label_key_name(value) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `content.IsPathSegmentName`: not `.` or `..`, and neither `/` nor `%`.
pub fn path_segment_name(name: &str) -> Vec<String> {
    match name {
        "." => return vec!["may not be '.'".to_string()],
        ".." => return vec!["may not be '..'".to_string()],
        _ => {}
    }
    let mut errs = Vec::new();
    for illegal in ["/", "%"] {
        if name.contains(illegal) {
            errs.push(format!("may not contain '{illegal}'"));
        }
    }
    errs
}

/// `path.ValidatePathSegmentName(name, prefix)`: prefixes are only checked for illegal content.
pub fn path_segment_name_or_prefix(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        let mut errs = Vec::new();
        for illegal in ["/", "%"] {
            if name.contains(illegal) {
                errs.push(format!("may not contain '{illegal}'"));
            }
        }
        errs
    } else {
        path_segment_name(name)
    }
}

/// `standardResources` of `pkg/apis/core/helper/helpers.go`, which `IsStandardResourceName` reads.
const STANDARD_RESOURCES: [&str; 20] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "quotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

/// `helper.IsStandardResourceName`.
pub fn is_standard_resource_name(name: &str) -> bool {
    STANDARD_RESOURCES.contains(&name) || name.starts_with("hugepages-") || name.starts_with("requests.hugepages-")
}

/// `helper.IsStandardContainerResourceName`.
pub fn is_standard_container_resource_name(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-")
}

/// `helper.IsNativeResource`.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `helper.IsExtendedResourceName`.
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    qualified_name(&format!("requests.{name}"), KubernetesVersion::LATEST).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomain_messages() {
        assert!(dns1123_subdomain("my-hpa.example").is_empty());
        let long = "a".repeat(254);
        let e = dns1123_subdomain(&long);
        assert_eq!(e, vec!["must be no more than 253 characters".to_string()]);
        assert!(dns1123_subdomain(&"a".repeat(253)).is_empty());
        let e = dns1123_subdomain("RELEASE-NAME");
        assert_eq!(
            e[0],
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
    }

    /// `maskTrailingDash` cuts two bytes: before a multibyte character the prefix keeps part of
    /// it and stays invalid, and the length is counted in bytes.
    #[test]
    fn a_generate_name_prefix_is_masked_by_bytes() {
        assert_eq!(mask_trailing_dash("web-"), "wea");
        assert_eq!(mask_trailing_dash("web"), "web");
        assert_eq!(mask_trailing_dash("xé-"), "x_a");
        assert!(!name_is_dns_subdomain("é-", true).is_empty());
        assert!(name_is_dns_subdomain("a-", true).is_empty());
        // 252 bytes and a dash: 251 kept, then `a`.
        let long = format!("{}-", "a".repeat(252));
        assert!(name_is_dns_subdomain(&long, true).is_empty());
        let long = format!("{}-", "a".repeat(254));
        assert_eq!(name_is_dns_subdomain(&long, true), ["must be no more than 253 characters"]);
    }

    #[test]
    fn label_messages() {
        assert_eq!(dns1123_label("a.b"), vec!["must not contain dots".to_string()]);
        assert_eq!(
            dns1123_label("---***")[0],
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        );
        let v = KubernetesVersion::LATEST;
        assert!(label_value("", v).is_empty());
        assert_eq!(label_value(&"a".repeat(64), v)[0], "must be no more than 63 bytes");
        assert!(qualified_name("app.kubernetes.io/name", v).is_empty());
        assert_eq!(qualified_name("/x", v)[0], "prefix part must be non-empty");
        assert_eq!(qualified_name("a/b/c", v).len(), 1);
    }

    #[test]
    fn label_wording_changes_in_1_35() {
        use KubernetesVersion::*;
        let long = "a".repeat(64);
        for (v, unit) in [(V1_33, "characters"), (V1_34, "characters"), (V1_35, "bytes"), (V1_38, "bytes")] {
            assert_eq!(label_value(&long, v), [format!("must be no more than 63 {unit}")], "{v}");
            assert_eq!(qualified_name(&long, v), [format!("name part must be no more than 63 {unit}")], "{v}");
            let prefix = format!("{}/x", "a".repeat(254));
            assert_eq!(qualified_name(&prefix, v)[0], format!("prefix part must be no more than 253 {unit}"), "{v}");
        }
        let tail = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
        assert_eq!(qualified_name("a/b/c", V1_34), [format!("a qualified name {tail}")]);
        assert_eq!(qualified_name("a/b/c", V1_35), [format!("a valid label key {tail}")]);
    }

    #[test]
    fn path_segments() {
        assert_eq!(path_segment_name(".."), vec!["may not be '..'".to_string()]);
        assert_eq!(
            path_segment_name("a/%b"),
            vec!["may not contain '/'".to_string(), "may not contain '%'".to_string()]
        );
        assert!(path_segment_name("").is_empty());
    }

    #[test]
    fn resource_names() {
        assert!(is_standard_resource_name("cpu"));
        assert!(!is_standard_resource_name("InvalidResource"));
        // `core.ResourceConfigMaps` is in the list (a quota resource, so no container's).
        assert!(is_standard_resource_name("configmaps") && !is_standard_container_resource_name("configmaps"));
        assert!(is_extended_resource_name("nvidia.com/gpu"));
        assert!(!is_extended_resource_name("kubernetes.io/foo"));
    }
}
