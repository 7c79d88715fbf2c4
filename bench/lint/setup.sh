# shellcheck shell=bash disable=SC2034  # sourced: LINT, PARSE, TREE and OBJECTS are read by the caller
# Sourced by bench/lint/run.sh and bench/lint/instructions.sh (from the repository root, with
# SIZE set): builds the release binaries unless NO_BUILD is set, and generates the clean tree in
# a temporary directory removed on exit. Sets LINT, PARSE, TREE and OBJECTS.
TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${NO_BUILD:-}" ]; then
  echo "building release binaries" >&2
  CARGO_TARGET_DIR=$TARGET_DIR cargo build --release --locked -q -p hpa-lint --bin hpa-lint --example bare_parse
fi
LINT=$TARGET_DIR/release/hpa-lint
PARSE=$TARGET_DIR/release/examples/bare_parse

TREE=$(mktemp -d)
trap 'rm -rf "$TREE"' EXIT
# shellcheck disable=SC2086
OBJECTS=$(python3 bench/lint/generate.py "$TREE/manifests" $SIZE)
