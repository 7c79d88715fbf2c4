//! Malformed and adversarial input: what `hpa-lint -o json` and `hpa-lint validate -o json`
//! report for each, exactly, so that a change of message or position is a visible change.
//!
//! **The checked-in corpus.** Every file of `data/malformed/` is read from standard input by
//! both commands, and what they report is compared with `data/malformed/expected.txt`, one
//! line per finding, tab-separated:
//!
//! ```text
//! <file>  lint      exit         <status>
//! <file>  lint      <rule>       <line>:<column>-<endLine>:<endColumn>  <message>
//! <file>  validate  exit         <status>
//! <file>  validate  <error type> <line>:<column>  <field>  <message>
//! ```
//!
//! (tabs and line breaks inside a message are written `\t` and `\n`). After an intended change,
//! `UPDATE_MALFORMED=1 cargo test -p hpa-tests malformed` rewrites the table; review its diff.
//! Inputs the fuzzers (`fuzz/`) found are in the corpus as `fuzz-*`.
//!
//! **Generated inputs.** Big ones are made at run time: a 50 MB file, deep nesting, many
//! documents; an unreadable file is made unreadable at run time.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use hpa_tests::cli::{CapturedRun, hpa_lint, hpa_lint_bytes};
use serde_json::Value;

use hpa_tests::VALID_HPA as VALID;

fn corpus_dir() -> PathBuf {
    hpa_tests::data_dir().join("malformed")
}

const TABLE: &str = "expected.txt";

/// `\t` and line breaks written out, so that a message stays on its line of the table.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

fn lint(stdin: &[u8]) -> CapturedRun {
    hpa_lint_bytes(&["--no-config", "-o", "json", "-"], stdin)
}

fn validate(stdin: &[u8]) -> CapturedRun {
    hpa_lint_bytes(&["validate", "-o", "json", "-"], stdin)
}

fn diagnostics(run: &CapturedRun) -> Vec<Value> {
    run.json()["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn entries(run: &CapturedRun) -> Vec<Value> {
    run.json().as_array().cloned().unwrap_or_default()
}

/// The table rows of one file.
fn rows(name: &str, bytes: &[u8]) -> String {
    let mut out = String::new();
    let run = lint(bytes);
    assert!(run.stderr.is_empty(), "{name}: lint wrote to stderr: {}", run.stderr);
    writeln!(out, "{name}\tlint\texit\t{}", run.code).unwrap();
    for d in diagnostics(&run) {
        writeln!(
            out,
            "{name}\tlint\t{}\t{}:{}-{}:{}\t{}",
            d["rule"].as_str().unwrap(),
            d["line"],
            d["column"],
            d["endLine"],
            d["endColumn"],
            escape(d["message"].as_str().unwrap())
        )
        .unwrap();
    }
    let run = validate(bytes);
    assert!(run.stderr.is_empty(), "{name}: validate wrote to stderr: {}", run.stderr);
    writeln!(out, "{name}\tvalidate\texit\t{}", run.code).unwrap();
    for e in entries(&run) {
        for err in e["errors"].as_array().unwrap() {
            writeln!(
                out,
                "{name}\tvalidate\t{}\t{}:{}\t{}\t{}",
                err["type"].as_str().unwrap(),
                err["line"],
                err["column"],
                escape(err["field"].as_str().unwrap()),
                escape(err["message"].as_str().unwrap())
            )
            .unwrap();
        }
    }
    out
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != TABLE))
        .collect();
    files.sort();
    files
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_file_gives_exactly_its_expected_diagnostics() {
    let header = "# What `hpa-lint -o json` and `hpa-lint validate -o json` report for each file of this\n\
                  # directory (see tests/tests/malformed.rs). Regenerate with\n\
                  # `UPDATE_MALFORMED=1 cargo test -p hpa-tests malformed` and review the diff.\n";
    let mut actual = String::from(header);
    for path in corpus_files() {
        actual.push_str(&rows(&name_of(&path), &fs::read(&path).unwrap()));
    }
    let table = corpus_dir().join(TABLE);
    if std::env::var_os("UPDATE_MALFORMED").is_some() {
        fs::write(&table, &actual).unwrap();
        return;
    }
    let expected = fs::read_to_string(&table).unwrap_or_default();
    if expected != actual {
        let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
        let first = e.iter().zip(&a).position(|(x, y)| x != y).unwrap_or(e.len().min(a.len()));
        panic!(
            "data/malformed/{TABLE} differs from what the commands report, from line {}:\n  expected: {}\n  actual:   {}\n\
             (UPDATE_MALFORMED=1 cargo test -p hpa-tests malformed rewrites it; review the diff)",
            first + 1,
            e.get(first).unwrap_or(&"<end of table>"),
            a.get(first).unwrap_or(&"<end of output>"),
        );
    }
}

/// The human output shows a file whose lines end with a lone `\r` as it shows the same file
/// with `\n`: the same lines, numbered alike, the label under the same place. Its source lines
/// were one (miette's renderer breaks no line at a lone `\r`, and the `\r` went to the
/// terminal), and with a character that is not ASCII before the finding, they were lines
/// further down, without the label (byte offsets were found counting `\n` only).
#[test]
fn human_output_of_lone_carriage_returns_is_that_of_line_feeds() {
    let text = "# ñandú\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  \
                scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 5\n  maxReplicas: 3\n";
    let human = |text: &str| hpa_lint_bytes(&["--no-config", "-o", "human", "--color", "never", "-"], text.as_bytes());
    let lf = human(text);
    assert!(lf.stdout.contains("[<stdin>:9:16]") && lf.stdout.contains(" 9 │   maxReplicas: 3\n"), "{}", lf.stdout);
    for cr in [text.replace('\n', "\r"), text.replace("ú\n", "ú\r")] {
        assert_eq!(human(&cr).stdout, lf.stdout, "{cr:?}");
    }
}

#[test]
fn the_alias_bomb_is_refused() {
    // Expansion is bounded by a node count, not by time: the refusal itself is the proof.
    let bomb = fs::read(corpus_dir().join("alias-bomb.yaml")).unwrap();
    let run = validate(&bomb);
    assert_eq!(
        entries(&run)[0]["message"],
        "error converting YAML to JSON: yaml: document contains excessive aliasing",
        "{}",
        run.stdout
    );
}

#[test]
fn a_50_mb_file() {
    // One annotation of 50 MiB in the second document: one long line, read, parsed and
    // reported on, with positions after it still right. (How fast is bench/lint's business, not
    // a test's: timed tests fail on a loaded machine.)
    let huge = "x".repeat(50 * 1024 * 1024);
    let text = format!(
        "{VALID}---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: big\n  annotations:\n    note: {huge}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 0\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    fs::write(&path, &text).unwrap();
    let path = path.display().to_string();
    drop(text);

    let run = hpa_lint(&["validate", "-o", "json", &path], "");
    assert_eq!(run.code, 1);
    let e = entries(&run);
    assert_eq!(e[0]["allowed"], true);
    let errors: Vec<(&str, u64, u64)> = e[1]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|err| (err["message"].as_str().unwrap(), err["line"].as_u64().unwrap(), err["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        errors,
        [
            ("metadata.annotations: Too long: may not be more than 262144 bytes", 13, 3),
            ("spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`", 17, 16),
            ("spec.maxReplicas: Required value", 17, 16),
        ]
    );

    let run = hpa_lint(&["--no-config", "-o", "json", "--select", "HPA000", &path], "");
    assert_eq!(run.code, 1);
    let found: Vec<(String, u64, u64)> = diagnostics(&run)
        .iter()
        .map(|d| {
            (d["message"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(
        found,
        [
            // The linter underlines the key of a field whose value is a mapping.
            ("metadata.annotations: Too long: may not be more than 262144 bytes".to_string(), 13, 3),
            ("spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`".to_string(), 17, 16),
            ("spec.maxReplicas: Required value".to_string(), 17, 16),
        ]
    );
}

/// Nesting deeper than we read is refused in our words (saphyr reads 255 flow levels, our tree
/// 512), unless kubectl refuses it too: past go-yaml's 10000 flow levels or 10000 block
/// indentation columns (`exceeded max depth of 10000`, at the bracket or entry), or past the 10000 levels `encoding/json` reads of the JSON it
/// converts to (every collection counted, block ones included: `invalid character '['
/// exceeded max depth`), both in kubectl's words.
#[test]
fn deep_nesting() {
    let flow = format!("{VALID}  behavior: {}{}\n", "[".repeat(5000), "]".repeat(5000));
    // `VALID`'s root and `spec` and 10000 sequences: JSON 10002 levels deep, YAML 10000 flow levels.
    let json_depth = format!("{VALID}  behavior: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let flow_depth = format!("{VALID}  behavior: {}{}\n", "{a: ".repeat(10_001), "}".repeat(10_001));
    // The root, `spec` and 9999 sequences right of `metrics`' (which is at `spec`'s column):
    // 10001 columns on go-yaml's stack.
    let block_depth = format!("{VALID}  metrics:\n  - {}x\n", "- ".repeat(9_999));
    let block: String = (0..1000).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect();
    let json = format!("{}1{}", "{\"a\": ".repeat(5000), "}".repeat(5000));
    let flow_limit = "invalid YAML: flow collections ([...] or {...}) nested deeper than 255 levels";
    let block_limit = "invalid YAML: nesting deeper than 512 levels";
    for (what, text, message, line, column) in [
        ("flow", flow, flow_limit, 8, 268),
        ("block", block, block_limit, 513, 1025),
        ("json", json, flow_limit, 1, 1531),
        (
            "json depth",
            json_depth,
            "error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth",
            8,
            10011,
        ),
        (
            "flow depth",
            flow_depth,
            "error converting YAML to JSON: yaml: line 8: exceeded max depth of 10000",
            8,
            40013,
        ),
        (
            "block depth",
            block_depth,
            "error converting YAML to JSON: yaml: line 9: exceeded max depth of 10000",
            9,
            20001,
        ),
    ] {
        let run = validate(text.as_bytes());
        assert_eq!(run.code, 1, "{what}");
        let e = entries(&run);
        let err = &e.last().unwrap()["errors"][0];
        assert_eq!(err["type"], "SyntaxError", "{what}: {err}");
        assert_eq!(err["message"], message, "{what}");
        assert_eq!((err["line"].as_u64(), err["column"].as_u64()), (Some(line), Some(column)), "{what}");
        let run = lint(text.as_bytes());
        let d = diagnostics(&run);
        let last = d.last().unwrap();
        assert_eq!(last["message"], message, "{what}");
        assert_eq!((last["line"].as_u64(), last["column"].as_u64()), (Some(line), Some(column)), "{what}");
    }
}

#[test]
fn many_documents() {
    // 20 000 documents, every 1000th invalid: each reported with its own document and line.
    let lines_per_document = VALID.lines().count() + 1;
    let mut text = String::new();
    for i in 0..20_000 {
        let doc = VALID.replace("name: web\n", &format!("name: web-{i}\n"));
        let doc = if i % 1000 == 999 { doc.replace("maxReplicas: 5", "maxReplicas: 0") } else { doc };
        text.push_str(&doc);
        text.push_str("---\n");
    }
    let run = validate(text.as_bytes());
    assert_eq!(run.code, 1);
    let e = entries(&run);
    assert_eq!(e.len(), 20_000);
    let refused: Vec<(u64, u64)> = e
        .iter()
        .filter(|x| x["allowed"] == false)
        .map(|x| (x["document"].as_u64().unwrap(), x["errors"][0]["line"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(u64, u64)> =
        (0..20u64).map(|k| (k * 1000 + 999, (k * 1000 + 999) * lines_per_document as u64 + 7)).collect();
    assert_eq!(refused, expected);
    let run = lint(text.as_bytes());
    let summary = &run.json()["summary"];
    assert_eq!((summary["objects"].as_u64(), summary["hpas"].as_u64()), (Some(20_000), Some(20_000)));
    let d = diagnostics(&run);
    // maxReplicas 0: "must be greater than or equal to `minReplicas`" and "Required value".
    let invalid = d.iter().filter(|d| d["rule"] == "HPA000").count();
    assert_eq!(invalid, 40);
    // All 20 000 HPAs scale the same Deployment: one HPA407 each of the 19 980 kube-apiserver
    // accepts (the 20 it rejects are never stored, and conflict with nothing), naming five of
    // the others and counting the rest (the report was once quadratic in size and in time).
    let conflicts: Vec<&Value> = d.iter().filter(|d| d["rule"] == "HPA407").collect();
    assert_eq!(
        conflicts[0]["message"],
        "Deployment default/web is also scaled by web-1, web-2, web-3, web-4, web-5 and 19974 more: \
         the controller refuses to scale pods of several HPAs (AmbiguousSelector)"
    );
    assert!(conflicts.iter().all(|c| c["related"].as_array().unwrap().len() == 5));
    assert_eq!(conflicts.len(), 20_000 - 20, "the invalid ones get HPA000 only");
}

#[test]
fn an_unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.yaml");
    fs::write(&path, VALID).unwrap();
    let mut permissions = fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o000);
    fs::set_permissions(&path, permissions).unwrap();
    let path = if fs::read(&path).is_err() {
        path
    } else if Path::new("/proc/self/mem").exists() {
        // Running as root, which reads any file: read one whose read fails (EIO at offset 0).
        PathBuf::from("/proc/self/mem")
    } else {
        eprintln!("skipped: every file is readable to this user (root)");
        return;
    };
    let shown = path.display().to_string();
    for args in [&["--no-config", "-o", "json"][..], &["validate", "-o", "json"][..]] {
        let run = hpa_lint(&[args, &[shown.as_str()]].concat(), "");
        assert_eq!(run.code, 2, "{args:?}: an unreadable input is an I/O error");
        assert!(run.stderr.starts_with(&format!("hpa-lint: error: {shown}: ")), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("(os error"), "{args:?}: {}", run.stderr);
    }
}

/// A scalar or sequence document is no object, nor is a mapping kubectl refuses for want of a
/// kind: reported among objects, counted nowhere (lint's `objects`, validate's "other objects
/// skipped", which count them as documents kubectl cannot decode), with or without objects
/// beside it.
#[test]
fn documents_that_are_not_objects_are_not_counted_as_objects() {
    for (name, objects, reported) in [
        ("json-then-values.json", 1, 4),
        ("yaml-sequence-documents.yaml", 1, 2),
        ("yaml-no-objects.yaml", 0, 0),
        ("yaml-missing-kind.yaml", 1, 3),
        ("json-missing-kind.json", 1, 1),
    ] {
        let bytes = fs::read(corpus_dir().join(name)).unwrap();
        let run = lint(&bytes);
        let summary = &run.json()["summary"];
        assert_eq!((summary["objects"].as_u64(), summary["hpas"].as_u64()), (Some(objects), Some(objects)), "{name}");
        assert_eq!(diagnostics(&run).len(), reported, "{name}");
        let run = hpa_lint_bytes(&["validate", "-"], &bytes);
        let plural = if reported == 1 { "document" } else { "documents" };
        let refused = if reported > 0 { format!("; {reported} {plural} kubectl cannot decode") } else { String::new() };
        let s = if objects == 1 { "" } else { "s" };
        assert_eq!(
            run.stdout.lines().last(),
            Some(
                format!(
                    "{objects} HorizontalPodAutoscaler{s}: {objects} valid, 0 invalid{refused}; 0 other objects skipped"
                )
                .as_str()
            ),
            "{name}"
        );
    }
}

/// The files of the corpus kubectl and hpa-lint read alike: all but binary content, which our
/// reader refuses before any YAML is read (kubectl refuses it too, with go-yaml's words for
/// its first NUL). Bytes that are not UTF-8 in a text are compared: both read them as U+FFFD.
fn read_alike_by_kubectl() -> Vec<PathBuf> {
    const NOT_COMPARED: [&str; 1] = ["binary-png.yaml"];
    corpus_files().into_iter().filter(|p| !NOT_COMPARED.contains(&name_of(p).as_str())).collect()
}

/// `per_file` of each file, in order, a few files at a time (a kubectl run takes a while).
fn each_file_in_parallel<T: Send>(files: &[PathBuf], per_file: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(files.len().div_ceil(4).max(1))
            .map(|chunk| {
                let per_file = &per_file;
                s.spawn(move || chunk.iter().map(|path| per_file(path)).collect::<Vec<T>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// kubectl's own reading of every file of the corpus (a release hpa-lint targets,
/// [`kubectl_1_33_or_later`]: `kubectl create --dry-run=client --validate=false -o json -f
/// FILE`, which parses the file before it needs a cluster): where
/// it refuses the file (`error parsing FILE: ...`), `hpa-lint validate` refuses it with the
/// same words, go-yaml's line number included; where it reads the file, so do we.
///
/// Not compared: the files [`read_alike_by_kubectl`] leaves out (binary content).
#[test]
fn yaml_errors_are_kubectls() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let files = read_alike_by_kubectl();
    // Each run tries to reach a cluster once the file parses.
    let kubeconfig = tempfile::NamedTempFile::new().unwrap();
    let theirs: Vec<Option<String>> = each_file_in_parallel(&files, |path| {
        let out = std::process::Command::new(&kubectl)
            .args(["create", "--dry-run=client", "--validate=false", "-o", "json", "-f"])
            .arg(path)
            .env("KUBECONFIG", kubeconfig.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let prefix = format!("error parsing {}: ", path.display());
        stderr.lines().find_map(|l| {
            let l = l.strip_prefix("error: ").unwrap_or(l);
            l.strip_prefix(&prefix).map(str::to_string)
        })
    });
    let mut mismatches = Vec::new();
    for (path, theirs) in files.iter().zip(theirs) {
        let run = validate(&fs::read(path).unwrap());
        let ours =
            entries(&run).iter().flat_map(|e| e["errors"].as_array().cloned().unwrap_or_default()).find_map(|err| {
                (err["type"] == "SyntaxError").then(|| err["message"].as_str().unwrap_or_default().to_string())
            });
        if ours != theirs {
            mismatches.push(format!("{}:\n  kubectl:  {theirs:?}\n  hpa-lint: {ours:?}", name_of(path)));
        }
    }
    assert!(mismatches.is_empty(), "YAML errors that differ from kubectl's:\n{}", mismatches.join("\n"));
}

/// kubectl's own reading of a file, which needs no cluster: `kubectl label --local x=y -o
/// OUTPUT -f FILE` prints each object it read (`name` or `json`, each with the label `x=y`)
/// and reports on standard error each document or item it refuses, going on with the others.
fn kubectl_label(kubectl: &Path, file: &Path, output: &str) -> std::process::Output {
    std::process::Command::new(kubectl)
        .args(["label", "--local", "x=y", "-o", output, "-f"])
        .arg(file)
        .output()
        .unwrap()
}

/// The objects [`kubectl_label`] printed with `-o json`, without the label it added.
fn labelled_objects(out: &std::process::Output) -> Vec<Value> {
    serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(|object| {
            let mut object = object.unwrap();
            let labels = object["metadata"]["labels"].as_object_mut().unwrap();
            assert_eq!(labels.remove("x"), Some("y".into()));
            if labels.is_empty() {
                object["metadata"].as_object_mut().unwrap().remove("labels");
            }
            object
        })
        .collect()
}

/// Odd but valid YAML (the `yaml-read-*` files: flow collections and quoted scalars with
/// lines left of the block indentation, UTF-16, ...; the `invalid-utf8-*` files: bytes that are
/// not UTF-8, each ill-formed sequence one U+FFFD) read as kubectl reads it, value by value:
/// what `kubectl label --local -o json` prints of each object is what hpa-lint's documents read
/// as.
#[test]
fn odd_yaml_reads_as_kubectl_reads_it() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let files: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| ["yaml-read-", "invalid-utf8-"].iter().any(|prefix| name_of(p).starts_with(prefix)))
        .collect();
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let name = name_of(&path);
        let file = hpa_lint::input::from_bytes(name.clone(), fs::read(&path).unwrap());
        assert!(file.unreadable.is_none() && file.parsed.error.is_none(), "{name}: {:?}", file.parsed.error);
        let ours: Vec<Value> = file.parsed.documents.iter().map(|d| d.root().to_json()).collect();
        let out = kubectl_label(&kubectl, &path, "json");
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(ours, labelled_objects(&out), "{name}");
    }
}

/// The differential sweep, value by value: for every file of the corpus that holds a Kubernetes
/// object and that both read alike ([`read_alike_by_kubectl`]; the `sweep-*` files were written
/// for it: duplicate keys, byte order marks, NUL bytes, `---` inside strings, document ends,
/// merge keys, YAML 1.1 numbers and booleans, numbers past int64 and float64, JSON that is no
/// JSON, kinds kubectl cannot read), the objects kubectl 1.33+ decodes (`kubectl label --local
/// -f FILE x=y -o json`, which prints each and goes on past each document it refuses) are, in
/// order and value by value, the objects hpa-lint counts ([`hpa_lint::input::counts_as_object`],
/// lists flattened as kubectl flattens them). Where kubectl refuses a document, the tests above
/// compare its words and [`every_file_gives_exactly_its_expected_diagnostics`] pins ours, with
/// their positions.
#[test]
fn every_object_reads_as_kubectl_reads_it() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let files: Vec<PathBuf> = read_alike_by_kubectl()
        .into_iter()
        .filter(|p| {
            let file = hpa_lint::input::from_bytes(name_of(p), fs::read(p).unwrap());
            file.parsed.documents.iter().any(|d| hpa_lint::input::is_object(d.root()))
        })
        .collect();
    let theirs = each_file_in_parallel(&files, |path| labelled_objects(&kubectl_label(&kubectl, path, "json")));
    let mut mismatches = Vec::new();
    for (path, theirs) in files.iter().zip(theirs) {
        let name = name_of(path);
        let file = hpa_lint::input::from_bytes(name.clone(), fs::read(path).unwrap());
        let all = hpa_lint::input::objects_in(0, &file.parsed);
        let refused = hpa_lint::input::not_objects(&file.parsed, &file.text, &all);
        // The items of a list without a kind are checked, but kubectl refuses the list whole.
        let kindless = |o: &hpa_lint::input::ObjectRef<'_>| {
            file.parsed.documents.iter().any(|d| d.index == o.document && hpa_lint::input::is_kindless_list(d.root()))
        };
        let ours: Vec<Value> = all
            .iter()
            .filter(|o| hpa_lint::input::counts_as_object(o, &refused) && !kindless(o))
            .map(|o| as_kubectl_prints(o.to_json()))
            .collect();
        let theirs: Vec<Value> = theirs.into_iter().map(as_kubectl_prints).collect();
        if ours != theirs {
            mismatches.push(format!("{name}:\n  kubectl:  {theirs:?}\n  hpa-lint: {ours:?}"));
        }
    }
    assert!(mismatches.is_empty(), "objects read otherwise than kubectl reads them:\n{}", mismatches.join("\n"));
    assert!(files.len() >= 100, "{}", files.len());
}

/// An object as [`kubectl_label`] prints it, for [`every_object_reads_as_kubectl_reads_it`]:
/// numbers as kubectl holds them (an `int64`, or else a `float64`: `sigs.k8s.io/json` reads
/// `9223372036854775808` and `-0.0` so; how hpa-core decodes such numbers is the corpus
/// table's business), `metadata.labels` left out (`kubectl label` rewrites them as a
/// `map[string]string`: `null` becomes `""`), and so are `metadata.managedFields` (kubectl's
/// printer leaves them out without `--show-managed-fields`), a null or empty
/// `metadata.namespace` (which its builder removes) and an empty `metadata` (which it adds).
fn as_kubectl_prints(value: Value) -> Value {
    match value {
        // Compared as float64s, past 2^53 (where kubectl prints a float64 with Go's shortest
        // digits, `-476024724768710460`, and we hold it exactly, `-476024724768710464`).
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or_default();
            match f.fract() == 0.0 && f.abs() <= 2f64.powi(53) {
                true => Value::from(f as i64),
                false => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(as_kubectl_prints).collect()),
        Value::Object(fields) => {
            let mut fields: serde_json::Map<String, Value> =
                fields.into_iter().map(|(k, v)| (k, as_kubectl_prints(v))).collect();
            if let Some(Value::Object(metadata)) = fields.get_mut("metadata") {
                metadata.remove("labels");
                metadata.remove("managedFields");
                // kubectl's builder sets the namespace it read back (`""` for a null), and
                // `Unstructured.SetNamespace("")` removes the field.
                if metadata.get("namespace").is_some_and(|n| n.is_null() || n == "") {
                    metadata.remove("namespace");
                }
                if metadata.is_empty() {
                    fields.remove("metadata");
                }
            }
            Value::Object(fields)
        }
        other => other,
    }
}

/// A kubectl of a release hpa-lint targets (1.33 or later), or `None` (the test skips, or
/// fails under `HPA_REQUIRE_TOOLS`): `kubectl` itself, or, where it is older (the Google Cloud
/// SDK's `kubectl` is a 1.32 dispatcher), the newest `kubectl.1.N` beside it. The releases
/// read a file that starts with a JSON object and goes on with something else differently:
/// 1.32 stops at the first byte that is not JSON, 1.33 reads on in YAML.
fn kubectl_1_33_or_later() -> Option<PathBuf> {
    // Found once for every test of the run (each candidate is run to ask its version).
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(find_kubectl_1_33_or_later).clone();
    if found.is_none() {
        hpa_test_tools::missing("kubectl 1.33 or later (`kubectl` or a `kubectl.1.N` beside it)");
    }
    found
}

/// [`kubectl_1_33_or_later`], looked for.
fn find_kubectl_1_33_or_later() -> Option<PathBuf> {
    let minor = |program: &Path| -> Option<u32> {
        let out = std::process::Command::new(program).args(["version", "--client", "-o", "json"]).output().ok()?;
        let version: Value = serde_json::from_slice(&out.stdout).ok()?;
        version["clientVersion"]["minor"].as_str()?.trim_end_matches('+').parse().ok()
    };
    let path = std::env::var_os("PATH")?;
    let kubectl = std::env::split_paths(&path).map(|dir| dir.join("kubectl")).find(|p| p.is_file())?;
    let mut candidates = vec![kubectl.clone()];
    if let Some(dir) = fs::canonicalize(&kubectl).ok().as_deref().and_then(Path::parent)
        && let Ok(entries) = fs::read_dir(dir)
    {
        let release = |p: &PathBuf| name_of(p).strip_prefix("kubectl.1.").and_then(|m| m.parse::<u32>().ok());
        let mut beside: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| release(p).is_some()).collect();
        beside.sort_by_key(|p| std::cmp::Reverse(release(p)));
        candidates.extend(beside);
    }
    candidates.into_iter().find(|p| minor(p).is_some_and(|m| m >= 33))
}

/// Files that start with a JSON object and go on with something else (another object, with or
/// without `---` between them, YAML, junk), or YAML with a separator line kubectl refuses after
/// documents it reads: kubectl (1.33 or later, `kubectl label --local -f FILE x=y -o json`,
/// which needs no cluster) prints the objects it reads before it stops, and hpa-lint reads the
/// same objects, and fails where kubectl fails, in its words (`error parsing FILE: ...`). What
/// kubectl reads but cannot decode as an object (`unable to decode`: junk after an object,
/// read as a YAML string) is a document that is not an object in ours.
#[test]
fn json_followed_by_more_is_read_as_kubectl_reads_it() {
    const FILES: [&str; 19] = [
        "bom-utf8.json",
        "json-after-comment.json",
        "json-after-white-space.json",
        "json-array.json",
        "json-back-to-back.json",
        "json-escaped-surrogates.json",
        "json-extra-brace.json",
        "json-list-then-yaml.json",
        "json-separator-json.json",
        "json-stream-then-yaml.json",
        "json-stream.json",
        "json-then-broken-yaml.json",
        "json-then-values.json",
        "json-then-yaml-then-error.json",
        "json-then-yaml.json",
        "json-trailing-commas.json",
        "json-trailing-garbage.json",
        "json-truncated.json",
        "yaml-separator-with-content-after-documents.yaml",
    ];
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    for name in FILES {
        let path = corpus_dir().join(name);
        let parsed = hpa_lint::source::parse(&fs::read_to_string(&path).unwrap());
        // kubectl visits the items of a List.
        let (ours, not_objects): (Vec<Value>, Vec<Value>) = parsed
            .documents
            .iter()
            .map(|d| d.root().to_json())
            .flat_map(|v| match v["kind"] == "List" {
                true => v["items"].as_array().cloned().unwrap_or_default(),
                false => vec![v],
            })
            .partition(Value::is_object);
        let out = kubectl_label(&kubectl, &path, "json");
        let theirs = labelled_objects(&out);
        assert_eq!(ours, theirs, "{name}: the objects read");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let prefix = format!("error: error parsing {}: ", path.display());
        let their_error = stderr.lines().find_map(|l| l.strip_prefix(&prefix));
        assert_eq!(parsed.error.as_ref().map(|e| e.message.as_str()), their_error, "{name}: the error");
        assert_eq!(!not_objects.is_empty(), stderr.contains("unable to decode"), "{name}: {stderr}");
    }
}

/// Documents kubectl reads but cannot decode as an object (a scalar that is not null, a
/// sequence; YAML or JSON, e.g. junk after a JSON object) or flatten (a list with a list for an
/// item, `list-items-nested.yaml`), for every file of the corpus that
/// both read alike: what kubectl 1.33+ says after `unable to decode "FILE": ` for each (`kubectl
/// label --local -f FILE x=y -o name`, which needs no cluster, goes on after each) is, in
/// order, what [`hpa_lint::input::undecodable`] says of our documents; and `hpa-lint validate`
/// reports exactly those (`NotAnObject`) when the file holds a Kubernetes object, and none when
/// it holds none (kubectl refuses a playbook or a data array too; a linter that scans
/// repositories must not). Empty documents, comments and `null` are skipped by both.
#[test]
fn documents_kubectl_cannot_decode_are_reported_in_its_words() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let files = read_alike_by_kubectl();
    // kubectl's words for each document it cannot decode as an object.
    let theirs: Vec<Vec<String>> = each_file_in_parallel(&files, |path| {
        let out = kubectl_label(&kubectl, path, "name");
        let prefix = format!("unable to decode {:?}: ", path.display().to_string());
        let mut messages: Vec<String> = Vec::new();
        for line in String::from_utf8_lossy(&out.stderr).lines() {
            let line = line.strip_prefix("error: ").unwrap_or(line);
            // A list with a list for an item is refused when it is flattened, without the file.
            if line == hpa_lint::input::NESTED_LIST {
                messages.push(line.to_string());
                continue;
            }
            match line.strip_prefix(&prefix) {
                Some(message) => messages.push(message.to_string()),
                // The JSON of a document without a kind, shown as written, spans lines.
                None => match messages.last_mut() {
                    Some(m) if m.starts_with("Object 'Kind' is missing in '") && !m.ends_with('\'') => {
                        m.push('\n');
                        m.push_str(line);
                    }
                    _ => {}
                },
            }
        }
        // What the input layer mirrors: the untyped decode, and the decode of each document's
        // `apiVersion` and `metadata` into `metadataOnlyObject` (`Go struct field ...`, and
        // `metav1.Time`'s `parsing time ...`).
        messages.retain(|m| {
            m == hpa_lint::input::NESTED_LIST
                || m.starts_with("Object 'Kind' is missing in '")
                || m.starts_with("json: cannot unmarshal ") && m.contains(" into Go struct field ")
                || m.starts_with("parsing time ")
                || [
                    "unstructured.detector",
                    "map[string]interface {}",
                    "decodeList.items of type []json.RawMessage",
                    "into Go value of type float64",
                ]
                .iter()
                .any(|end| m.ends_with(end))
        });
        messages
    });
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for (path, theirs) in files.iter().zip(theirs) {
        let name = name_of(path);
        let file = hpa_lint::input::from_bytes(name.clone(), fs::read(path).unwrap());
        let (text, parsed) = (&file.text, &file.parsed);
        let lines = hpa_lint::source::LineIndex::new(text);
        let ours: Vec<String> = parsed
            .documents
            .iter()
            .filter_map(|d| match hpa_lint::input::refusal(d, text, &lines) {
                Some(refused) => Some(refused.message.into_owned()),
                // kubectl refuses a list of objects without a kind too; the linter words it.
                None => hpa_lint::input::is_kindless_list(d.root()).then(|| hpa_lint::input::missing_kind(d, text)),
            })
            .collect();
        if ours != theirs {
            mismatches.push(format!(
                "{name}: the documents kubectl cannot decode\n  kubectl:  {theirs:?}\n  hpa-lint: {ours:?}"
            ));
        }
        let reported: Vec<String> = entries(&validate(text.as_bytes()))
            .iter()
            .flat_map(|e| e["errors"].as_array().cloned().unwrap_or_default())
            .filter(|err| {
                err["type"] == "NotAnObject"
                    || err["type"] == "NestedList"
                    || err["type"] == "ObjectMeta"
                    || err["type"] == "UnmarshalTypeError"
                    || err["type"] == "TypeMeta" && err["message"].as_str().is_some_and(|m| m.starts_with("json: "))
                    || err["message"].as_str().is_some_and(|m| m.starts_with("Object 'Kind' is missing in '"))
            })
            .map(|err| err["message"].as_str().unwrap_or_default().to_string())
            .collect();
        // A Kubernetes object: a mapping with `apiVersion` and `kind`, an HPA, a list of
        // objects without a kind (refused too, in kubectl's words, as the linter reports it).
        let holds_object = parsed.documents.iter().any(|d| hpa_lint::input::is_object(d.root()));
        let expected: Vec<String> = match holds_object {
            true => parsed
                .documents
                .iter()
                .filter_map(|d| match hpa_lint::input::refusal(d, text, &lines) {
                    Some(refused) => Some(refused.message.into_owned()),
                    None => hpa_lint::input::is_kindless_list(d.root()).then(|| hpa_lint::input::missing_kind(d, text)),
                })
                .collect(),
            false => Vec::new(),
        };
        if reported != expected {
            mismatches.push(format!(
                "{name}: hpa-lint validate reports {reported:?}, expected {expected:?} (kubectl: {theirs:?})"
            ));
        }
        compared += usize::from(!theirs.is_empty());
    }
    assert!(mismatches.is_empty(), "documents kubectl cannot decode, read otherwise:\n{}", mismatches.join("\n"));
    // The corpus holds these shapes (yaml-scalar-documents, yaml-sequence-documents,
    // json-then-values, json-trailing-garbage, json-array, yaml-no-objects).
    assert!(compared >= 6, "only {compared} files with documents kubectl cannot decode");
}

/// A document without a kind is shown in kubectl's `Object 'Kind' is missing in '...'` as
/// written when kubectl read it as JSON, as `YAMLToJSON` writes it when it read it as YAML:
/// kubectl looks for a JSON stream's `{` in the text's first 4096 bytes only
/// (`GuessJSONStream`), and reads what follows a JSON stream's `---` as YAML. kubectl 1.33+
/// (`kubectl label --local -f FILE x=y -o name`, as
/// [`documents_kubectl_cannot_decode_are_reported_in_its_words`]) says what
/// `hpa_lint::input::not_objects` says, and `hpa-lint` reports it as HPA000 in those words.
#[test]
fn a_kindless_document_is_shown_as_kubectl_read_it_json_or_yaml() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let kindless = r#"{"metadata": {"name": "b", "labels": {"z": "1", "a": "<&>"}}}"#;
    let files = [
        ("json-at-byte-4095.json", format!("{}{kindless}\n---\n{VALID}", " ".repeat(4095))),
        ("yaml-at-byte-4096.json", format!("{}{kindless}\n---\n{VALID}", " ".repeat(4096))),
        ("yaml-after-json.json", format!("{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}}\n---\n{kindless}\n")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut shown = Vec::new();
    for (name, text) in &files {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let out = kubectl_label(&kubectl, &path, "name");
        let prefix = format!("unable to decode {:?}: ", path.display().to_string());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let theirs: Vec<&str> =
            stderr.lines().filter_map(|l| l.strip_prefix("error: ").unwrap_or(l).strip_prefix(&prefix)).collect();
        let parsed = hpa_lint::source::parse(text);
        let ours: Vec<String> = hpa_lint::input::not_objects(&parsed, text, &hpa_lint::input::objects_in(0, &parsed))
            .into_iter()
            .map(|d| d.message.into_owned())
            .collect();
        assert_eq!(ours, theirs, "{name}: kubectl says {stderr}");
        let hpa000: Vec<String> = diagnostics(&lint(text.as_bytes()))
            .iter()
            .filter(|d| d["rule"] == "HPA000")
            .map(|d| d["message"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(hpa000, ours, "{name}: hpa-lint's HPA000");
        shown.push(ours);
    }
    // The readings differ: as written at byte 4095, as YAML past it and after `---`.
    assert_eq!(shown[0], [format!("Object 'Kind' is missing in '{kindless}'")]);
    assert_ne!(shown[0], shown[1]);
    assert_eq!(shown[1], shown[2]);
}

/// The items of lists as kubectl reads them (cli-runtime's `FlattenListVisitor`): an item with
/// neither `kind` nor `apiVersion` takes the list's (`decodeToList`: the kind less `List`), and
/// an item kubectl then cannot type is refused (`unable to get type info from the object
/// ...`), the other items read on. For generated files and the corpus's `list-items-*`,
/// kubectl 1.33+ (`kubectl label --local -f FILE x=y -o name`) reads the objects
/// `hpa_lint::input::objects_in` lists and counts (`counts_as_object`), by name, in order;
/// refuses the items `hpa_lint::input::not_objects` refuses, in its words, in order; and
/// `hpa-lint` reports each as HPA000 in those words, `validate` as a `TypeMeta` entry, and
/// counts the same objects.
#[test]
fn list_items_are_read_and_refused_as_kubectl_reads_them() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let item = |fields: &str, name: &str| format!("- {{{fields}metadata: {{name: {name}}}}}\n");
    let list = |api_version: &str, kind: &str, items: &[String]| {
        format!("apiVersion: {api_version}\nkind: {kind}\nitems:\n{}", items.concat())
    };
    let mut files: Vec<(String, String)> = vec![
        (
            "list-with-kindless-item.yaml".into(),
            list("v1", "List", &[item("", "a"), item("apiVersion: v1, kind: ConfigMap, ", "b"), "- null\n".into()]),
        ),
        (
            "item-with-kind-no-api-version.yaml".into(),
            list(
                "v1",
                "List",
                &[
                    item("kind: ConfigMap, ", "a"),
                    item("apiVersion: 7, kind: Secret, ", "b"),
                    item("apiVersion: v1, kind: Secret, ", "c"),
                ],
            ),
        ),
        (
            "item-group-without-version.yaml".into(),
            list(
                "v1",
                "List",
                &[
                    item("apiVersion: apps/, kind: Deployment, ", "a"),
                    item("apiVersion: /, kind: Deployment, ", "b"),
                    item("apiVersion: a/b/c, kind: Deployment, ", "c"),
                    item("apiVersion: /v1, kind: ConfigMap, ", "d"),
                    item("apiVersion: v1, ", "e"),
                ],
            ),
        ),
        ("pod-list.yaml".into(), list("v1", "PodList", &[item("", "a"), item("apiVersion: v1, kind: Service, ", "b")])),
        (
            "hpa-list.yaml".into(),
            list(
                "autoscaling/v2",
                "HorizontalPodAutoscalerList",
                &[item("", "a"), item("kind: \"\", apiVersion: \"\", ", "b"), item("kind: 5, ", "c"), "- null\n".into()],
            ),
        ),
        // With an object: in a file without one, nothing is refused (a file of objects only).
        (
            "list-without-api-version.yaml".into(),
            format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\n---\nkind: ConfigMapList\nitems:\n{}", item("", "a")),
        ),
        (
            "hpa-list.json".into(),
            r#"{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscalerList", "items": [{"metadata": {"name": "a"}}]}"#
                .into(),
        ),
    ];
    // Any mapping with `items` and a kind is a list (`unstructuredJSONScheme.decode`), with
    // `items: null` a list of nothing.
    files.push(("configmap-with-items.yaml".into(), list("v1", "ConfigMap", &[item("", "a"), item("", "b")])));
    files.push((
        "items-null.yaml".into(),
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\napiVersion: v1\nkind: ConfigMapList\nitems: null\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nitems: []\n".into(),
    ));
    for name in ["list-items-inherit-kind.yaml", "list-items-refused.yaml", "list-items-stray.yaml"] {
        files.push((name.into(), fs::read_to_string(corpus_dir().join(name)).unwrap()));
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &files {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        let out = kubectl_label(&kubectl, &path, "name");
        let theirs_read: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let theirs_refused: Vec<&str> = stderr
            .lines()
            .map(|l| l.strip_prefix("error: ").unwrap_or(l))
            .filter(|l| l.contains("unable to get type info"))
            .collect();
        let parsed = hpa_lint::source::parse(text);
        assert!(parsed.error.is_none(), "{name}");
        let all = hpa_lint::input::objects_in(0, &parsed);
        let refused = hpa_lint::input::not_objects(&parsed, text, &all);
        let objects: Vec<_> = all.iter().filter(|o| hpa_lint::input::counts_as_object(o, &refused)).collect();
        let ours_read: Vec<String> = objects
            .iter()
            .map(|o| {
                let group = o.api_version().and_then(|v| v.split_once('/')).map_or("", |(g, _)| g);
                let kind = o.kind().unwrap_or_default().to_lowercase();
                let kind = if group.is_empty() { kind } else { format!("{kind}.{group}") };
                format!("{kind}/{}", o.name().unwrap_or("<unknown>"))
            })
            .collect();
        assert_eq!(ours_read, theirs_read, "{name}: the objects read (kubectl: {stderr})");
        // The refused items of each document, as kubectl prints them: one per line for a file
        // with one such document; else a line per document, an `Aggregate`'s distinct
        // messages in brackets (utilerrors' `aggregate.Error`).
        let mut by_document: Vec<Vec<String>> = Vec::new();
        for d in refused.iter().filter(|d| d.item.is_some() && d.why != hpa_lint::input::Refusal::NotAnObject) {
            match by_document.last_mut() {
                Some(last) if refused.iter().any(|e| e.document == d.document && e.message == last[0]) => {
                    last.push(d.message.to_string());
                }
                _ => by_document.push(vec![d.message.to_string()]),
            }
        }
        let ours_refused: Vec<String> = match by_document.as_slice() {
            [one] => one.clone(),
            many => many
                .iter()
                .map(|messages| {
                    let mut distinct: Vec<&str> = Vec::new();
                    for m in messages {
                        if !distinct.contains(&m.as_str()) {
                            distinct.push(m);
                        }
                    }
                    match distinct.as_slice() {
                        [one] => (*one).to_string(),
                        _ => format!("[{}]", distinct.join(", ")),
                    }
                })
                .collect(),
        };
        assert_eq!(ours_refused, theirs_refused, "{name}: the items refused");
        let each_refused: Vec<String> = by_document.concat();
        let run = lint(text.as_bytes());
        let hpa000: Vec<String> = diagnostics(&run)
            .iter()
            .filter(|d| {
                d["rule"] == "HPA000" && d["message"].as_str().is_some_and(|m| m.starts_with("unable to get type info"))
            })
            .map(|d| d["message"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(hpa000, each_refused, "{name}: hpa-lint's HPA000");
        assert_eq!(run.json()["summary"]["objects"].as_u64(), Some(objects.len() as u64), "{name}: objects");
        let type_meta: Vec<String> = entries(&validate(text.as_bytes()))
            .iter()
            .flat_map(|e| e["errors"].as_array().cloned().unwrap_or_default())
            .filter(|e| {
                e["type"] == "TypeMeta"
                    && e["message"].as_str().is_some_and(|m| m.starts_with("unable to get type info"))
            })
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(type_meta, each_refused, "{name}: hpa-lint validate");
    }
}

/// The kindless items of a `HorizontalPodAutoscalerList` (`list-items-inherit-kind.yaml`, as
/// `kubectl get --raw` prints one) are HPAs to every command, as they are to kubectl: linted
/// (with the Deployments of a `DeploymentList` as their targets), validated, defaulted and
/// converted with the inherited `kind` and `apiVersion`.
#[test]
fn inherited_hpas_are_hpas_to_every_command() {
    let bytes = fs::read(corpus_dir().join("list-items-inherit-kind.yaml")).unwrap();
    let run = lint(&bytes);
    let summary = &run.json()["summary"];
    assert_eq!((summary["objects"].as_u64(), summary["hpas"].as_u64()), (Some(4), Some(2)));
    let rules: Vec<Value> = diagnostics(&run).iter().map(|d| d["rule"].clone()).collect();
    assert_eq!(rules, ["HPA000"], "only api's maxReplicas; both targets are found");
    let validated: Vec<(Value, Value, Value)> = entries(&validate(&bytes))
        .iter()
        .map(|e| (e["apiVersion"].clone(), e["kind"].clone(), e["allowed"].clone()))
        .collect();
    let hpa = |allowed: bool| ("autoscaling/v2".into(), "HorizontalPodAutoscaler".into(), allowed.into());
    assert_eq!(validated, [hpa(true), hpa(false)]);
    let identities = |v: &Value| -> Vec<(String, String)> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["apiVersion"].as_str().unwrap().into(), i["kind"].as_str().unwrap().into()))
            .collect()
    };
    let defaulted = hpa_lint_bytes(&["default", "--no-config", "-o", "json", "-"], &bytes);
    assert_eq!(defaulted.code, 0, "{}", defaulted.stderr);
    let (hpa, deployment) = (("autoscaling/v2", "HorizontalPodAutoscaler"), ("apps/v1", "Deployment"));
    let owned = |(a, k): (&str, &str)| (a.to_string(), k.to_string());
    assert_eq!(identities(&defaulted.json()), [hpa, hpa, deployment, deployment].map(owned));
    let converted = hpa_lint_bytes(&["convert", "--no-config", "--to", "autoscaling/v1", "-o", "json", "-"], &bytes);
    assert_eq!(converted.code, 0, "{}", converted.stderr);
    let v1 = ("autoscaling/v1", "HorizontalPodAutoscaler");
    // Two documents: a `List` of the converted HPA list and the DeploymentList as written.
    assert_eq!(identities(&converted.json()["items"][0]), [v1, v1].map(owned));
}

/// Documents with a top-level `items` whose kind names no list (`list-items-stray.yaml`):
/// kubectl applies their items and nothing else of them, so every command reads the items (an
/// HPA item with `kind: 5` and no apiVersion takes the document's kind, and decodes without
/// an error about its own), and says what becomes of the document: `hpa-lint` as HPA000 at
/// `items`, `validate` as a `StrayItems` entry for the HPA document (kubectl never sends it).
#[test]
fn stray_items_make_a_list_and_are_reported() {
    let bytes = fs::read(corpus_dir().join("list-items-stray.yaml")).unwrap();
    let run = lint(&bytes);
    let found: Vec<(String, String, String)> = diagnostics(&run)
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("path"), s("message"))
        })
        .collect();
    let stray = |kind: &str, what: &str| {
        (
            "HPA000".to_string(),
            "items".to_string(),
            format!("a {kind} with a top-level `items` is a list to kubectl: {what}"),
        )
    };
    assert_eq!(
        found,
        [
            stray("HorizontalPodAutoscaler", "it applies the 2 objects under `items` and nothing else of it"),
            (
                "HPA000".into(),
                "spec.maxReplicas".into(),
                "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`".into()
            ),
            stray("ConfigMap", "it applies nothing of it (`items` holds no object)"),
        ]
    );
    let summary = &run.json()["summary"];
    assert_eq!((summary["objects"].as_u64(), summary["hpas"].as_u64()), (Some(2), Some(2)));
    let validated: Vec<(Value, Value, Value)> = entries(&validate(&bytes))
        .iter()
        .map(|e| (e["name"].clone(), e["allowed"].clone(), e["errors"][0]["type"].clone()))
        .collect();
    assert_eq!(
        validated,
        [
            ("".into(), false.into(), "StrayItems".into()),
            ("inner".into(), false.into(), "FieldValueInvalid".into()),
            ("third".into(), true.into(), Value::Null),
        ]
    );
}

/// What kubectl reads in a file but refuses or never sends (`validate`'s `NotAnObject`,
/// `TypeMeta`, `NestedList` and `StrayItems` entries of no HPA) is reported the same by the commands
/// that print one result per object: `default`, `convert` and `explain` each print it on
/// standard error, `FILE:LINE:COLUMN: MESSAGE` in `validate`'s words and at its position, and
/// exit 1. An item kubectl cannot type passes through `default` as written (an item of a
/// `kind: List` without a kind is not given the kind `""`).
#[test]
fn the_per_object_commands_report_what_kubectl_refuses_as_validate_does() {
    const KUBECTL_REFUSES: [&str; 5] = ["NotAnObject", "TypeMeta", "NestedList", "StrayItems", "UnmarshalTypeError"];
    let mut compared = 0;
    for path in corpus_files() {
        let file = path.display().to_string();
        let validated = hpa_lint(&["validate", "--no-config", "-o", "json", &file], "");
        let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(&validated.stdout) else { continue };
        let expected: Vec<String> = entries
            .iter()
            .filter(|e| e["kind"].is_null()) // not an HPA's own entry
            .flat_map(|e| e["errors"].as_array().cloned().unwrap_or_default())
            .filter(|e| KUBECTL_REFUSES.contains(&e["type"].as_str().unwrap_or_default()))
            .map(|e| format!("{file}:{}:{}: {}", e["line"], e["column"], e["message"].as_str().unwrap()))
            .collect();
        if expected.is_empty() {
            continue;
        }
        compared += 1;
        for command in [&["default"][..], &["convert", "--to", "autoscaling/v1"], &["explain"]] {
            let args: Vec<&str> = command.iter().copied().chain(["--no-config", file.as_str()]).collect();
            let run = hpa_lint(&args, "");
            assert_eq!(run.code, 1, "{command:?} {file}: {}", run.stderr);
            // A message may span lines (kubectl quotes the document).
            let missing: Vec<&String> =
                expected.iter().filter(|e| !run.stderr.contains(&format!("hpa-lint: error: {e}\n"))).collect();
            assert!(missing.is_empty(), "{command:?} {file}: not reported: {missing:#?}\nstderr:\n{}", run.stderr);
        }
    }
    assert!(compared >= 8, "the corpus has files kubectl refuses in part: {compared}");
    let kindless_item = "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n";
    let run = hpa_lint(&["default", "--no-config", "-o", "json", "-"], kindless_item);
    assert_eq!((run.code, run.json()), (1, serde_json::json!({"metadata": {"name": "a"}})), "{}", run.stderr);
}

/// A JSON manifest with `\u` escapes of UTF-16 surrogates (`json-escaped-surrogates.json`):
/// kubectl reads it with `encoding/json` (`YAMLOrJSONDecoder` takes a text that starts with
/// `{` for JSON), which makes an escaped pair its character and a lone surrogate U+FFFD, and
/// so does hpa-lint. kubectl's reading is what `kubectl create --dry-run=client -o json -f
/// FILE` prints, with the test API server for discovery (it adds the context's namespace). The same escapes in YAML (`yaml-escaped-surrogate-pair.yaml`,
/// `escaped-nul-and-surrogate.yaml`) are refused by both, in go-yaml's words
/// ([`yaml_errors_are_kubectls`]).
#[test]
fn json_surrogate_escapes_are_read_as_kubectl_reads_them() {
    let path = corpus_dir().join("json-escaped-surrogates.json");
    let ours: Vec<Value> = hpa_lint::source::parse(&fs::read_to_string(&path).unwrap())
        .documents
        .iter()
        .map(|d| d.root().to_json())
        .collect();
    // What kubectl (1.32 and 1.33) printed for the annotations.
    let annotations: Vec<&Value> = ours.iter().map(|o| &o["metadata"]["annotations"]).collect();
    assert_eq!(
        annotations,
        [
            &serde_json::json!({"team": "payments \u{1f4b3}", "lone": "high \u{fffd}, low \u{fffd}, twice \u{fffd}\u{fffd}",
                "escaped": "\\ud800 is text"}),
            &serde_json::json!({"owner": "\u{1f680} \u{1f680}"})
        ]
    );
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let cluster = hpa_tests::apiserver::LiveCluster::start();
    let out = std::process::Command::new(kubectl)
        .args(["create", "--dry-run=client", "--validate=false", "-o", "json", "-f"])
        .arg(&path)
        .env("KUBECONFIG", &cluster.kubeconfig)
        .output()
        .unwrap();
    assert!(out.status.success(), "kubectl create --dry-run=client: {}", String::from_utf8_lossy(&out.stderr));
    let theirs: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(|object| {
            let mut object = object.unwrap();
            assert_eq!(object["metadata"].as_object_mut().unwrap().remove("namespace"), Some("shop".into()));
            object
        })
        .collect();
    assert_eq!(theirs.len(), 2);
    assert_eq!(ours, theirs);
}

/// Tagged scalars (`yaml-tags-resolved.yaml` and the `yaml-tag-*` files) as kubectl reads
/// them, value by value: `kubectl label --local -o json` prints the object kubectl decoded
/// (go-yaml v2's `resolve`: `!!int "3"` is 3, `!!float 2` is 2, `!!binary` is base64, a tag
/// go-yaml does not resolve leaves a string), and hpa-lint's tree reads as the same JSON.
#[test]
fn tagged_scalars_read_as_kubectl_reads_them() {
    let Some(kubectl) = kubectl_1_33_or_later() else { return };
    let values = [
        r#"!!int "3""#,
        "!!float 2",
        "!!float 2.5",
        "!!str 3",
        "!!bool yes",
        "!!null ~",
        "!!null",
        "!!binary aGVsbG8=",
        "!!binary /w==",
        "!!timestamp 2001-12-14t21:59:43.10-05:00",
        "!!merge x",
        "!foo 3",
        "! 3",
        "!<tag:yaml.org,2002:int> '7'",
        "!<tag:example.com,2000:x> 8",
        "!!int 0x1F",
        "!!int -0b101",
        "2001-12-14",
        ".5",
    ];
    let mut text = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tags\ndata:\n");
    for (i, v) in values.iter().enumerate() {
        writeln!(text, "  k{i}: {v}").unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tags.yaml");
    fs::write(&path, &text).unwrap();
    let out = kubectl_label(&kubectl, &path, "json");
    assert!(out.status.success(), "kubectl: {}", String::from_utf8_lossy(&out.stderr));
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let parsed = hpa_lint::source::parse(&text);
    assert!(parsed.error.is_none(), "{:?}", parsed.error);
    let ours = parsed.documents[0].root().get("data").unwrap().to_json();
    for (i, v) in values.iter().enumerate() {
        let key = format!("k{i}");
        assert_eq!(ours[&key], theirs["data"][&key], "{v}");
    }
}

/// The differential sweep of `tests/tools/yaml-mutants.py`: for each mutant `NNNNN.yaml` of
/// the directory `HPA_MUTANTS`, what kubectl 1.33 read of it (`NNNNN.kubectl.json`: the objects
/// `kubectl label --local -o json` printed and the words after `error parsing FILE: `) is what
/// hpa-lint reads: the same YAML error (`hpa-lint validate -o json`'s `SyntaxError`), the same
/// objects (as [`every_object_reads_as_kubectl_reads_it`] compares them). Ignored: it needs the
/// generated directory (`python3 tests/tools/yaml-mutants.py DIR 3000`, then
/// `HPA_MUTANTS=DIR cargo test -p hpa-tests --test main mutants -- --ignored`); each class
/// of difference it found has a file in `data/malformed/`.
#[test]
#[ignore = "needs HPA_MUTANTS, a directory written by tests/tools/yaml-mutants.py"]
fn mutants_read_as_kubectl_reads_them() {
    let Some(dir) = std::env::var_os("HPA_MUTANTS").map(PathBuf::from) else { return };
    let mut mutants: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    mutants.sort();
    let results = each_file_in_parallel(&mutants, |path| {
        let name = name_of(path);
        let theirs: Value =
            serde_json::from_str(&fs::read_to_string(path.with_extension("kubectl.json")).unwrap()).unwrap();
        let bytes = fs::read(path).unwrap();
        let run = validate(&bytes);
        if !run.stderr.is_empty() || !(0..=1).contains(&run.code) {
            return Some(format!("{name}\tcrash\t{}\t{}", theirs["mutation"], escape(&run.stderr)));
        }
        let ours_error =
            entries(&run).iter().flat_map(|e| e["errors"].as_array().cloned().unwrap_or_default()).find_map(|err| {
                (err["type"] == "SyntaxError").then(|| err["message"].as_str().unwrap_or_default().to_string())
            });
        let theirs_error = theirs["error"].as_str().map(str::to_string);
        if ours_error != theirs_error {
            return Some(format!(
                "{name}\terror\t{}\tkubectl: {}\thpa-lint: {}",
                theirs["mutation"],
                escape(&format!("{theirs_error:?}")),
                escape(&format!("{ours_error:?}"))
            ));
        }
        let read = std::panic::catch_unwind(|| {
            let file = hpa_lint::input::from_bytes(name.clone(), bytes.clone());
            let all = hpa_lint::input::objects_in(0, &file.parsed);
            // A file without an object (the items of a `kind: List` without an `apiVersion`
            // are objects) is none hpa-lint checks: nothing to compare (kubectl refuses what it
            // holds, or reads a mapping with a `kind` and no `apiVersion`, which hpa-lint
            // leaves alone as it leaves a chart's `values.yaml`).
            if !hpa_lint::input::holds_objects(&file.parsed, &all) {
                return None;
            }
            let refused = hpa_lint::input::not_objects(&file.parsed, &file.text, &all);
            let kindless = |o: &hpa_lint::input::ObjectRef<'_>| {
                file.parsed
                    .documents
                    .iter()
                    .any(|d| d.index == o.document && hpa_lint::input::is_kindless_list(d.root()))
            };
            Some(
                all.iter()
                    .filter(|o| hpa_lint::input::counts_as_object(o, &refused) && !kindless(o))
                    .map(|o| as_kubectl_prints(o.to_json()))
                    .collect::<Vec<Value>>(),
            )
        });
        let Ok(ours) = read else { return Some(format!("{name}\tcrash\t{}\tinput::from_bytes", theirs["mutation"])) };
        let ours = ours?;
        let theirs_objects: Vec<Value> = theirs["objects"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            // `as_kubectl_prints` leaves out the labels, `x=y` with them.
            .map(as_kubectl_prints)
            .collect();
        (ours != theirs_objects).then(|| {
            format!(
                "{name}\tobjects\t{}\tkubectl: {}\thpa-lint: {}",
                theirs["mutation"],
                escape(&serde_json::to_string(&theirs_objects).unwrap()),
                escape(&serde_json::to_string(&ours).unwrap())
            )
        })
    });
    let differences: Vec<String> = results.into_iter().flatten().collect();
    if let Some(report) = std::env::var_os("HPA_MUTANTS_REPORT") {
        fs::write(report, differences.join("\n")).unwrap();
    }
    assert!(
        differences.is_empty(),
        "{} of {} mutants read otherwise than kubectl reads them:\n{}",
        differences.len(),
        mutants.len(),
        differences.join("\n")
    );
}
