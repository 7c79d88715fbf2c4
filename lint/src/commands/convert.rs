//! `hpa-lint convert`: HPAs converted to another `autoscaling` version exactly as
//! kube-apiserver converts them (like `kubectl convert`); other objects pass through with their
//! original text, comments and key order.

use hpa_core::api::ApiVersion;
use hpa_core::convert;
use serde_json::Value;

use crate::cli::{ClusterArgs, ConvertArgs, ObjectFormat};
use crate::commands::common::{object_at, warn_conversion};
use crate::input::{self, SourceFile};
use crate::{ExitStatus, Output};

/// One output object: converted JSON, or the original YAML text of an untouched document.
enum Piece {
    Converted(Value),
    Original { text: String, json: Value },
}

/// Runs `convert`, as the release of `--kubernetes-version` (or the configuration's
/// `kubernetesVersion`) converts.
pub fn run(args: &ConvertArgs, cluster: &ClusterArgs, out: &mut Output<'_>) -> ExitStatus {
    let release = match crate::commands::settings::settings(&args.objects.config, cluster, &[], out) {
        Ok(r) => r.settings.gates().version(),
        Err(e) => return out.fail(&e),
    };
    let Some(to) = ApiVersion::parse(&args.to) else {
        let known: Vec<&str> = ApiVersion::ALL.iter().map(|v| v.as_str()).collect();
        return out.usage_error(&format!("--to {:?} is not an HPA API version (one of {})", args.to, known.join(", ")));
    };
    let mut pieces = Vec::new();
    let status = super::each_file(&args.objects.paths, &args.objects.input, out, |file, contents, out| {
        let mut status = ExitStatus::Clean;
        let mut rest = contents.objects.as_slice();
        for (d, doc) in file.parsed.documents.iter().enumerate() {
            let objects = input::take_document(&mut rest, doc.index);
            let touches_hpa = objects.iter().any(|o| o.is_hpa() && contents.counts(o));
            if !touches_hpa {
                let next = file.parsed.documents.get(d + 1).map(|n| n.start);
                let text = document_text(file, doc, d == 0, next);
                pieces.push(Piece::Original { text, json: doc.root().to_json() });
                continue;
            }
            let mut converted = Vec::new();
            for obj in objects {
                let value = obj.to_json();
                if !obj.is_hpa() || !contents.counts(obj) {
                    converted.push(value);
                    continue;
                }
                let at = object_at(file, obj);
                match crate::hpa::decode_object(obj, release) {
                    Err(errs) => {
                        out.error(&crate::commands::common::undecodable(file, obj, &errs));
                        status = status.max(ExitStatus::Findings);
                    }
                    Ok(hpa) => match convert::convert_in(&hpa, to, release) {
                        Err(e) => {
                            out.error(&format!("{at}: cannot convert to {to}: {e}"));
                            status = status.max(ExitStatus::Findings);
                        }
                        Ok(c) => {
                            warn_conversion(out, &at, &c);
                            converted.push(c.object.to_json());
                        }
                    },
                }
            }
            let is_list = objects.first().is_some_and(|o| o.item.is_some());
            if is_list {
                let mut list = doc.root().to_json();
                if let Value::Object(m) = &mut list {
                    m.insert("items".into(), Value::Array(converted));
                }
                pieces.push(Piece::Converted(list));
            } else {
                pieces.extend(converted.into_iter().map(Piece::Converted));
            }
        }
        status
    });
    out.write(&render(&pieces, args.objects.output));
    status
}

/// The original text of a document: from its `---` line (or the start of the file) to the
/// next document's, comments included, without the separator itself.
fn document_text(
    file: &SourceFile,
    doc: &crate::source::Document,
    first: bool,
    next: Option<crate::source::Mark>,
) -> String {
    let start = if first { 0 } else { file.lines().offset(&file.text, doc.start) };
    let start = file.text[..start].rfind('\n').map_or(0, |p| p + 1);
    let end = match next {
        Some(m) => {
            let e = file.lines().offset(&file.text, m);
            file.text[..e].rfind('\n').map_or(0, |p| p + 1)
        }
        None => file.text.len(),
    };
    let mut text = file.text.get(start..end.max(start)).unwrap_or("").to_string();
    if let Some(rest) = text.strip_prefix("---")
        && let Some(nl) = rest.find('\n')
        && (rest[..nl].trim().is_empty() || rest[..nl].trim_start().starts_with('#'))
    {
        text = rest[nl + 1..].to_string();
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn render(pieces: &[Piece], format: ObjectFormat) -> String {
    match format {
        ObjectFormat::Json => {
            let values: Vec<Value> = pieces
                .iter()
                .map(|p| match p {
                    Piece::Converted(v) | Piece::Original { json: v, .. } => v.clone(),
                })
                .collect();
            crate::commands::common::render_objects(&values, ObjectFormat::Json)
        }
        ObjectFormat::Yaml => {
            let docs: Vec<String> = pieces
                .iter()
                .map(|p| match p {
                    Piece::Converted(v) => crate::yaml_out::to_yaml(v),
                    Piece::Original { text, .. } => text.clone(),
                })
                .collect();
            docs.join("---\n")
        }
    }
}
