#!/bin/sh
# The entry of the `hpa-lint` pre-commit hook (.pre-commit-hooks.yaml): builds hpa-lint from
# this checkout of the repository (the first run compiles it; later runs reuse the build) and
# runs it on the files pre-commit passes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exec cargo run --quiet --release --locked --manifest-path "$root/Cargo.toml" --package hpa-lint --bin hpa-lint -- "$@"
