//! The `hpa-webhook` binary: parses arguments, sets up logging, and serves (or runs `certs`,
//! `policy export` or `policy check`).

use std::io::Write;
use std::net::TcpListener;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use tracing_subscriber::util::SubscriberInitExt as _;

use hpa_webhook::cli::{Args, Command, LogFormat, PolicyCommand, ServeArgs};
use hpa_webhook::{certs, export, policy, server, shutdown};

/// mimalloc rather than glibc's malloc: with the context cache the heap holds tens of thousands
/// of small long-lived objects, and glibc's malloc then spends a fifth of a request's CPU time
/// in `_int_malloc`, `unlink_chunk` and `malloc_consolidate` (perf, 25,000 cached objects).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match Args::parse().into_command() {
        Command::Certs(args) => report(|stdout, stderr| certs::run(&args, stdout, stderr)),
        Command::Policy(PolicyCommand::Export(args)) => report(|stdout, stderr| export::run(&args, stdout, stderr)),
        Command::Policy(PolicyCommand::Check(args)) => {
            report_as(|stdout, stderr| policy::check(&args, stdout, stderr), policy::CheckError::exit_status)
        }
        Command::Serve(args) => {
            if let Err(error) = init_logging(&args) {
                let _ = writeln!(std::io::stderr(), "error: setting up logging: {error}");
                return ExitCode::from(2);
            }
            match run(*args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    tracing::error!(error = format!("{error:#}"), "hpa-webhook failed");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Runs a command that writes to standard output and error; its error is printed as
/// `error: ...` (exit status 1).
fn report<E: std::fmt::Display>(command: impl FnOnce(&mut dyn Write, &mut dyn Write) -> Result<(), E>) -> ExitCode {
    report_as(command, |_| 1)
}

/// [`report`], with the exit status `status` gives for the error.
fn report_as<E: std::fmt::Display>(
    command: impl FnOnce(&mut dyn Write, &mut dyn Write) -> Result<(), E>,
    status: impl FnOnce(&E) -> u8,
) -> ExitCode {
    let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
    match command(&mut stdout.lock(), &mut stderr.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(stderr.lock(), "error: {error}");
            ExitCode::from(status(&error))
        }
    }
}

fn run(args: ServeArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async {
        // The signal handlers first: a SIGTERM while the server starts is a graceful stop.
        let (first, second) = shutdown::stop_signals();
        let listener = TcpListener::bind(args.addr).with_context(|| format!("listening on {}", args.addr))?;
        server::serve(&args, listener, first, second).await.context("serving")
    })
}

/// Logging as `--log-level` (checked when the flags were parsed) and `--log-format` say; it
/// fails only if a global subscriber is already set. `plain` is colored only on a terminal: a
/// file or a pipe gets the text without escape sequences.
fn init_logging(args: &ServeArgs) -> Result<(), tracing_subscriber::util::TryInitError> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(args.log_level.env_filter())
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        // A failed write (standard error closed) is dropped: tracing-subscriber would report it
        // with `eprintln!`, which panics on that same closed stream, in whatever task logged;
        // the signal task's panic left SIGTERM unanswered.
        .log_internal_errors(false);
    match args.log_format {
        LogFormat::Json => {
            builder.json().flatten_event(true).with_current_span(true).with_span_list(false).finish().try_init()
        }
        LogFormat::Plain => builder.finish().try_init(),
    }
}
