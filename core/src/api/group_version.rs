//! An `apiVersion` as its group and version: the toolkit's one group/version parser.

/// An `apiVersion` read as apimachinery reads it (`schema.ParseGroupVersion`,
/// `k8s.io/apimachinery/pkg/runtime/schema/group_version.go`): `group/version`, or `version`
/// alone for the core group (`v1`); `""` and `"/"` are the empty group and version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GroupVersion<'a> {
    group: &'a str,
    version: &'a str,
}

/// `schema.ParseGroupVersion`'s error: more than one `/`. Holds the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unexpected GroupVersion string: {0}")]
pub struct GroupVersionError(pub String);

impl<'a> GroupVersion<'a> {
    /// `schema.ParseGroupVersion`: an `apiVersion` with more than one `/` is refused.
    pub fn parse(api_version: &'a str) -> Result<GroupVersion<'a>, GroupVersionError> {
        if api_version.is_empty() || api_version == "/" {
            return Ok(GroupVersion::default());
        }
        // (Asked several times of every object: a byte loop, where `split_once` sets up a
        // search for strings of a dozen bytes.)
        let slash = |s: &str| s.bytes().position(|b| b == b'/');
        match slash(api_version) {
            None => Ok(GroupVersion { group: "", version: api_version }),
            Some(at) => {
                let (group, version) =
                    (api_version.get(..at).unwrap_or_default(), api_version.get(at + 1..).unwrap_or_default());
                match slash(version) {
                    None => Ok(GroupVersion { group, version }),
                    Some(_) => Err(GroupVersionError(api_version.to_string())),
                }
            }
        }
    }

    /// The group and version as apimachinery types an object whose `apiVersion` it cannot
    /// parse: both empty (`schema.FromAPIVersionAndKind`, and `Unstructured.GroupVersionKind`,
    /// which go on without the error).
    pub fn parse_or_empty(api_version: &'a str) -> GroupVersion<'a> {
        GroupVersion::parse(api_version).unwrap_or_default()
    }

    /// The group (`""`: the core group, or none).
    pub fn group(self) -> &'a str {
        self.group
    }

    /// The group, the core group's other spelling `core` (as RBAC and `kubectl explain` name
    /// it, and as a scale target must write it from 1.34) read as `""`: no other group has that
    /// name (an API group of an extension has a dot).
    pub fn api_group(self) -> &'a str {
        if self.group == "core" { "" } else { self.group }
    }

    /// The version (`""`: none).
    pub fn version(self) -> &'a str {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_schema_parse_group_version() {
        let parsed = |s| GroupVersion::parse(s).map(|gv| (gv.group(), gv.version()));
        assert_eq!(parsed("autoscaling/v2"), Ok(("autoscaling", "v2")));
        assert_eq!(parsed("v1"), Ok(("", "v1")));
        assert_eq!(parsed(""), Ok(("", "")));
        assert_eq!(parsed("/"), Ok(("", "")));
        assert_eq!(parsed("keda.sh/"), Ok(("keda.sh", "")));
        assert_eq!(parsed("/v1"), Ok(("", "v1")));
        assert_eq!(parsed("a/b/c"), Err(GroupVersionError("a/b/c".into())));
        assert_eq!(GroupVersionError("a/b/c".into()).to_string(), "unexpected GroupVersion string: a/b/c");
        let lenient = GroupVersion::parse_or_empty("apps/v1/x");
        assert_eq!((lenient.group(), lenient.version()), ("", ""));
    }
}
