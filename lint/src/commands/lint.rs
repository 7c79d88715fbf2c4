//! `hpa-lint [PATH]...`: the lint command.

use crate::cli::{Args, ColorChoice, LintFormat};
use crate::commands::settings::options;
use crate::input;
use crate::linter;
use crate::linter::report::{self, Inputs};
use crate::{ExitStatus, Output};

/// Objects plus diagnostics above which a run's results are freed on another thread.
const BACKGROUND_DROP_ABOVE: usize = 10_000;

/// The first path that names a subcommand and no file (`hpa-lint -o json validate x`: an option
/// before the subcommand makes clap read everything as the lint command's paths).
fn subcommand_read_as_path(paths: &[String]) -> Option<&str> {
    let cli = <Args as clap::CommandFactory>::command();
    let path = paths.iter().find(|p| cli.find_subcommand(p.as_str()).is_some())?;
    (!std::path::Path::new(path).exists()).then_some(path.as_str())
}

/// Runs the lint command.
pub fn run(args: &Args, out: &mut Output<'_>) -> ExitStatus {
    if args.paths.is_empty() {
        return out.usage_error("no input: give files or directories to lint (or `-` for standard input); see --help");
    }
    if let Some(misplaced) = subcommand_read_as_path(&args.paths) {
        return out.usage_error(&format!(
            "{misplaced:?} is no file or directory here but a subcommand, read as a path to lint because an option \
             came before it: write the subcommand first, then its options (`hpa-lint {misplaced} [OPTIONS] ...`)"
        ));
    }
    let (opts, fail_on, cfg) = match options(&args.lint, &args.cluster, out) {
        Ok(o) => o,
        Err(e) => return out.fail(&e),
    };
    let mut excludes = args.input.exclude.clone();
    excludes.extend(cfg.file.exclude.iter().cloned());
    let (origins, mut errors, notes) = input::discover(&args.paths, &excludes);
    notes.iter().for_each(|n| out.note(n));
    let timer = Timer::start(args.lint.timings);
    let stdin = if origins.contains(&input::Origin::Stdin) {
        match out.read_stdin() {
            Ok(bytes) => Some(bytes),
            Err(e) => return out.usage_error(&format!("{}: {e}", input::STDIN_NAME)),
        }
    } else {
        None
    };
    let (outcome, names, read_errors) = linter::lint_inputs(&origins, stdin.as_deref(), &opts);
    timer.lap("lint", out);
    errors.extend(read_errors);
    for e in &errors {
        out.report(e);
    }
    if out.terminal && args.lint.findings.output == LintFormat::Sarif {
        out.note(SARIF_TO_TERMINAL);
    }
    // The report is written as it is rendered; a closed pipe ends the output, not the run.
    let mut writer = std::io::BufWriter::new(&mut *out.stdout);
    let written = match args.lint.findings.output {
        LintFormat::Human => {
            let color = match args.lint.findings.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => out.terminal && !args.lint.findings.no_color,
            };
            report::human(&outcome, Inputs::Files(&names), report::HumanStyle { color, width: 100 }, &mut writer)
        }
        LintFormat::Json => report::json(&outcome, Inputs::Files(&names), &mut writer),
        LintFormat::Sarif => report::sarif(&outcome, Inputs::Files(&names), &mut writer),
        LintFormat::Github => report::github(&outcome, Inputs::Files(&names), &mut writer),
    };
    let _ = written.and_then(|()| std::io::Write::flush(&mut writer));
    drop(writer);
    timer.lap("lint, report", out);
    // For people only: JSON and SARIF say `hpas: 0` in their own terms.
    let for_people = args.lint.findings.output == LintFormat::Human;
    if for_people && outcome.hpas == 0 && outcome.diagnostics.is_empty() && errors.is_empty() && !origins.is_empty() {
        out.note(NO_HPA);
    }
    let status = if !errors.is_empty() {
        ExitStatus::Error
    } else if fail_on.is_some_and(|f| outcome.diagnostics.iter().any(|d| d.severity >= f)) {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    };
    // Freeing what a large run kept (its diagnostics) takes a noticeable share of it;
    // the process is about to exit, so a thread does it while the status is returned. A small
    // run frees inline: a thread costs more than it saves (and slows down fuzzing, which lints
    // one small input after another in-process).
    if outcome.objects + outcome.diagnostics.len() >= BACKGROUND_DROP_ABOVE {
        std::thread::spawn(move || drop(outcome));
    }
    status
}

/// The note for `-o sarif` written to a terminal: SARIF is for tools, and a new user who
/// copied `-o sarif` without the redirection reads a page of JSON.
const SARIF_TO_TERMINAL: &str = "SARIF is written for tools (code scanning): redirect it to a file (`hpa-lint -o sarif PATH > hpa-lint.sarif`), \
     or leave out `-o sarif` for the report for people";

/// The note for inputs without any HPA (a values file, a `Cargo.toml`, a directory of
/// Deployments only): nothing was checked, which a clean summary alone does not say. In the
/// human output only.
const NO_HPA: &str =
    "no HorizontalPodAutoscaler in the input: nothing to check; give the files or directories that hold your HPAs";

/// Phase timings (`--timings`, `HPA_LINT_TIMINGS`): the time since the start at each lap, on
/// standard error.
struct Timer(Option<std::time::Instant>);

impl Timer {
    /// Starts timing when `on`.
    fn start(on: bool) -> Timer {
        Timer(on.then(std::time::Instant::now))
    }

    /// Writes the time since the start, naming the phase that just ended.
    fn lap(&self, phase: &str, out: &mut Output<'_>) {
        if let Some(t) = self.0 {
            let _ = writeln!(out.stderr, "{:>9.3} ms  {phase}", t.elapsed().as_secs_f64() * 1e3);
        }
    }
}
