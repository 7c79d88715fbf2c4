//! ARCHITECTURE.md stays true: every file or directory it names in backticks exists, and
//! every Rust item it names (`module::item`, a type, a function with an underscore) is
//! defined somewhere in the workspace, with each module of its path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The checkout's root.
fn root() -> PathBuf {
    hpa_tests::data_dir().join("../..")
}

/// Every file and directory of the checkout, as `/`-separated paths from its root (no `.git`,
/// no build output).
fn tree(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if matches!(name.as_str(), ".git" | "target" | "node_modules") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                out.push(format!("{rel}/"));
                walk(root, &path, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// What ARCHITECTURE.md writes in backticks that is not a path of this checkout: API paths,
/// Go packages, an annotation, the user's configuration file.
const NOT_PATHS: &[&str] =
    &["/mutate", "/validate", "/validate-workloads", "sigs.k8s.io/json", "encoding/json", "hpa-lint.dev/ignore"];

/// Go and Kubernetes names ARCHITECTURE.md mentions beside ours.
const NOT_OURS: &[&str] = &["YAMLOrJSONDecoder", "Display", "HPA_REQUIRE_TOOLS"];

fn is_path(token: &str) -> bool {
    !token.contains(' ')
        && !token.contains("::")
        && (token.contains('/')
            || [".rs", ".md", ".sh", ".yml", ".yaml", ".json", ".toml"].iter().any(|ext| token.ends_with(ext)))
}

/// Whether `name` is defined as an item (or a module file) in `sources`.
fn defined(name: &str, sources: &str, files: &[String]) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let lower = name.chars().next().is_some_and(char::is_lowercase);
    if lower && files.iter().any(|f| f.ends_with(&format!("/{name}.rs")) || f.ends_with(&format!("/{name}/"))) {
        return true;
    }
    ["fn ", "struct ", "enum ", "trait ", "const ", "static ", "type ", "mod ", "macro_rules! ", "pub use ", "    "]
        .iter()
        .any(|kw| {
            let needle = format!("{kw}{name}");
            sources.match_indices(&needle).any(|(at, _)| {
                let after = sources[at + needle.len()..].chars().next();
                let before = sources[..at].chars().next_back();
                let whole = !after.is_some_and(ident) && !before.is_some_and(ident);
                // An enum variant or a field is written indented: take it only as `Name(` or
                // `Name {` or `Name,`.
                whole && (*kw != "    " || matches!(after, Some('(' | '{' | ',' | ' ')))
            })
        })
}

#[test]
fn architecture_md_names_what_exists() {
    let root = root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    // The prose: fenced blocks (the diagram) left out, lines joined (a name may be wrapped).
    let mut fenced = false;
    let text: String = text
        .lines()
        .filter(|l| {
            fenced ^= l.starts_with("```");
            !fenced && !l.starts_with("```")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let files = tree(&root);
    let sources: String = files
        .iter()
        .filter(|f| f.ends_with(".rs") && !f.starts_with("fuzz/"))
        .filter_map(|f| std::fs::read_to_string(root.join(f)).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let tokens: BTreeSet<&str> = text.split('`').skip(1).step_by(2).filter(|t| !t.is_empty()).collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for token in tokens {
        if NOT_PATHS.contains(&token) || NOT_OURS.contains(&token) || token.starts_with('.') && !token.contains('/') {
            continue;
        }
        if is_path(token) {
            checked += 1;
            // `tests/data/lint/<ID>/`: the directory the placeholder stands in.
            let path = token.split("<").next().unwrap_or(token);
            let dir = path.trim_end_matches('/');
            let found = root.join(path).exists()
                || files.iter().any(|f| {
                    let f = f.trim_end_matches('/');
                    f == dir || f.ends_with(&format!("/{dir}"))
                });
            if !found {
                missing.push(format!("path {token}"));
            }
        } else if token.contains("::") {
            checked += 1;
            let item = token.trim_end_matches("()").trim_end_matches('!');
            // `commands::{validate,explain,simulate}`: each.
            let (prefix, last) = item.rsplit_once("::").unwrap();
            let names: Vec<&str> = last.trim_matches(|c| c == '{' || c == '}').split(',').collect();
            for segment in prefix.split("::").filter(|s| !s.starts_with("hpa_")).chain(names) {
                if !defined(segment, &sources, &files) {
                    missing.push(format!("{segment} (of {token})"));
                }
            }
        } else if !token.contains([' ', '.', '-', '/', '=', '!', '(', '<'])
            && (token.contains('_') && token.chars().all(|c| c.is_lowercase() || c == '_' || c.is_ascii_digit())
                || token.chars().next().is_some_and(char::is_uppercase) && token.chars().any(char::is_lowercase))
        {
            checked += 1;
            if !defined(token, &sources, &files) {
                missing.push(format!("item {token}"));
            }
        }
    }
    assert!(checked > 100, "only {checked} names checked");
    assert!(missing.is_empty(), "ARCHITECTURE.md names what does not exist:\n{}", missing.join("\n"));
}
