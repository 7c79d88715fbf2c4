#!/usr/bin/env bash
# Runs every fuzz target for a short, bounded time (FUZZ_SECONDS each, FUZZ_PARALLEL at once),
# seeded from the repository's test data. Called by .ci/run; runnable by hand:
#
#   fuzz/ci.sh                         # 60 s per target, two at a time
#   FUZZ_SECONDS=600 fuzz/ci.sh        # ten minutes per target
#
# cargo-fuzz needs a nightly toolchain. When none can be installed (no network, no rustup),
# the script says so and exits 0: the fuzzers are a bonus on top of the test suite, which
# replays the corpus of malformed inputs (tests/data/malformed, crashes found included) on
# stable. A crash, an invariant failure, a timeout or an out-of-memory fails the run; its
# input is in fuzz/artifacts/<target>/ (reproduce: cargo +nightly fuzz run <target> <file>).
set -euo pipefail
cd "$(dirname "$0")"

SECONDS_EACH=${FUZZ_SECONDS:-60}
PARALLEL=${FUZZ_PARALLEL:-2}
TARGETS=(decode annotations lint_file admission_review simulate config_files)

skip() {
  echo "fuzz: skipped: $*" >&2
  exit 0
}

if ! cargo +nightly --version >/dev/null 2>&1; then
  command -v rustup >/dev/null || skip "no rustup to install a nightly toolchain"
  rustup toolchain install nightly --profile minimal >/dev/null 2>&1 || skip "a nightly toolchain cannot be installed"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --quiet >/dev/null 2>&1 || skip "cargo-fuzz cannot be installed"
fi

# libfuzzer-sys compiles libFuzzer (C++); the fuzz crate has its own lock file to fetch.
command -v c++ >/dev/null || command -v clang++ >/dev/null || skip "no C++ compiler to build libFuzzer"
# A lock file that no longer matches the workspace is our mistake, not the machine's: it fails
# (update it with `cd fuzz && cargo +nightly fetch --offline`), where a registry out of reach
# skips.
if ! fetched=$(cargo +nightly fetch --locked 2>&1); then
  if grep -q "cannot update the lock file" <<<"$fetched"; then
    echo "fuzz: fuzz/Cargo.lock is out of date with the workspace: run \`cd fuzz && cargo +nightly fetch --offline\` and commit it" >&2
    exit 1
  fi
  skip "the fuzz crate's dependencies cannot be fetched"
fi

bash ./seed.sh >/dev/null
# No sanitizer: the code under test has no `unsafe`, and AddressSanitizer would double the
# build and run times for nothing. Panics (invariant failures included) abort all the same.
cargo +nightly fuzz build --sanitizer none

mkdir -p logs
failed=()
running=0
run() {
  local target=$1
  if cargo +nightly fuzz run --sanitizer none "$target" -- -max_total_time="$SECONDS_EACH" -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 >"logs/$target.log" 2>&1; then
    echo "fuzz: $target: $(grep -m1 '^Done' "logs/$target.log"), $(grep -o 'cov: [0-9]* ft: [0-9]*' "logs/$target.log" | tail -1)"
  else
    echo "fuzz: $target FAILED; the end of its log (fuzz/logs/$target.log):"
    tail -n 40 "logs/$target.log"
    return 1
  fi
}
pids=()
for target in "${TARGETS[@]}"; do
  run "$target" &
  pids+=("$!:$target")
  running=$((running + 1))
  if [ "$running" -ge "$PARALLEL" ]; then
    entry=${pids[0]}
    pids=("${pids[@]:1}")
    wait "${entry%%:*}" || failed+=("${entry#*:}")
    running=$((running - 1))
  fi
done
for entry in "${pids[@]}"; do
  wait "${entry%%:*}" || failed+=("${entry#*:}")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
