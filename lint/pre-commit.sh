#!/bin/sh
# The entry of the `hpa-lint` pre-commit hook (.pre-commit-hooks.yaml): builds hpa-lint from
# this checkout of the repository (the first run compiles it; later runs reuse the build) and
# runs it on the files pre-commit passes.
set -eu
# Without cargo, sh's `cargo: not found` (status 127) named neither the hook nor a way out.
if ! command -v cargo >/dev/null 2>&1; then
  echo "hpa-lint: the hpa-lint hook builds hpa-lint with cargo, which is not on PATH: install Rust (https://rustup.rs), or use the hook hpa-lint-system with a release binary of hpa-lint on PATH" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
exec cargo run --quiet --release --locked --manifest-path "$root/Cargo.toml" --package hpa-lint --bin hpa-lint -- "$@"
