//! The `hpa-lint` binary: parses arguments, runs, maps the outcome to an exit status.

use std::process::ExitCode;

use std::io::IsTerminal;

use clap::Parser;

// Parsing allocates many small nodes on every thread; glibc's allocator spends more time
// growing its per-thread arenas than the parser spends parsing (bench/lint/run.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = hpa_lint::cli::Args::parse();
    let (stdin, stdout, stderr) = (std::io::stdin(), std::io::stdout(), std::io::stderr());
    let (mut si, mut so, mut se) = (stdin.lock(), stdout.lock(), stderr.lock());
    let terminal = stdout.is_terminal();
    let mut out = hpa_lint::Output { stdin: &mut si, stdout: &mut so, stderr: &mut se, terminal };
    ExitCode::from(hpa_lint::run(args, &mut out).code())
}
