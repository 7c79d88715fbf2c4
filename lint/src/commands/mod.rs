//! The subcommands, one module each: each reads its input, takes every HPA through hpa-core's
//! front door (`hpa::check_object`, or the linter for `lint`) and renders the result. They depend on
//! `cli` for their arguments; `cli` depends on none of them. No command module imports another:
//! what several share is in [`settings`] (flags and the configuration file → options),
//! [`common`] and [`each_file`].

pub mod cluster;
pub mod common;
pub mod convert;
pub mod default;
pub mod diagnose;
pub mod explain;
pub mod lint;
pub mod rules;
pub mod settings;
pub mod simulate;
pub mod validate;

use crate::cli::InputArgs;
use crate::input::{self, SourceFile};
use crate::{ExitStatus, Output};

/// The per-file loop of the subcommands that print one result per object (`default`,
/// `convert`, `explain`), over [`input::walk`], the one per-file loop: the inputs found and
/// read, each file's objects handed to `each` with the file ([`input::FileObjects`]: an HPA
/// among what kubectl refuses is never sent, [`input::FileObjects::counts`]; it returns the status
/// the file earns), then what kubectl reads in it but refuses or never sends ([`input::unsent`],
/// as `validate` reports it), a file that cannot be read and a file's YAML syntax error reported
/// on standard error (status 1), and the inputs that could not be found or read reported after
/// all files (status 2). The caller then writes its output.
pub(crate) fn each_file(
    paths: &[String],
    input_args: &InputArgs,
    out: &mut Output<'_>,
    mut each: impl for<'f> FnMut(&'f SourceFile, &input::FileObjects<'f>, &mut Output<'_>) -> ExitStatus,
) -> ExitStatus {
    let (origins, mut errors, notes) = input::discover(paths, &input_args.exclude);
    notes.iter().for_each(|n| out.note(n));
    let (files, load_errors) = input::load(&origins, out);
    errors.extend(load_errors);
    let mut status = ExitStatus::Clean;
    for (i, file) in files.iter().enumerate() {
        let (earned, problems) = input::walk(i, file, &file.parsed, |objects| {
            // Nothing of an unreadable file was read.
            if file.unreadable.is_some() { ExitStatus::Clean } else { each(file, objects, out) }
        });
        status = status.max(earned);
        if let Some(reason) = &file.unreadable {
            out.error(&format!("{}: {reason}", file.name));
            status = status.max(ExitStatus::Findings);
            continue;
        }
        for u in input::unsent(file, &problems) {
            out.error(&format!("{}:{}:{}: {}", file.name, u.line, u.column, u.message));
            status = status.max(ExitStatus::Findings);
        }
        if let Some(input::Problem::Syntax(e)) = problems.last() {
            let (line, col) = file.line_col(e.mark);
            out.error(&format!("{}:{line}:{col}: {}", file.name, e.message));
            status = status.max(ExitStatus::Findings);
        }
    }
    for e in &errors {
        out.report(e);
        status = ExitStatus::Error;
    }
    status
}
