#!/usr/bin/env bash
# Lint throughput benchmark: a generated tree of 10,000 files holding 100,000 objects (half
# autoscaling/v2 HPAs, half the Deployments they scale, about 1.5 KB each), linted by hpa-lint
# next to two baselines that find, read and parse the same files on the same threads with the
# same YAML parser, in one run:
#
#   parse: events   saphyr-parser's event stream with spans (the fastest span-keeping parse)
#   parse: tree     hpa-lint's span-keeping node tree, nothing else
#   hpa-lint        everything: parse, decode, default, validate, index, 27 rules, JSON report
#
# Each is run RUNS times (default 3); the table shows the median wall time, objects/s, peak
# memory, and the throughput relative to the event parse (the target is at least 70 %).
#
#   bench/lint/run.sh                    # 100 dirs x 100 files x 10 objects
#   SIZE="10 100 10" bench/lint/run.sh   # a tenth of it
#   NO_BUILD=1 bench/lint/run.sh         # use the binaries already in $CARGO_TARGET_DIR/release
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-3}
SIZE=${SIZE:-"100 100 10"}
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
BYTES=$(du -sb "$TREE/manifests" | cut -f1)
FILES=$(find "$TREE/manifests" -type f | wc -l)
echo "tree: $FILES files, $OBJECTS objects, $((BYTES / 1024 / 1024)) MiB; $(nproc) cores; $RUNS runs each" >&2

# Runs a command RUNS times; prints "median_seconds peak_rss_kib".
measure() {
  local times=() rss=0 t r
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$TREE/time" "$@" >/dev/null 2>"$TREE/stderr" || {
      # hpa-lint exits 1 when it reports findings; anything else is a failure.
      if [ $? -ne 1 ]; then cat "$TREE/stderr" >&2; exit 1; fi
    }
    read -r t r <"$TREE/time"
    times+=("$t")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v rss="$rss" '{a[NR]=$1} END {print a[int((NR+1)/2)], rss}'
}

read -r EVENTS_T EVENTS_M < <(measure "$PARSE" events "$TREE/manifests")
read -r TREE_T TREE_M < <(measure "$PARSE" tree "$TREE/manifests")
read -r LINT_T LINT_M < <(measure "$LINT" --no-config -o json --fail-on never "$TREE/manifests")

row() {
  awk -v name="$1" -v t="$2" -v m="$3" -v n="$OBJECTS" -v base="$EVENTS_T" \
    'BEGIN { printf "| %-14s | %8.2f s | %10.0f | %7.0f MiB | %5.0f %% |\n", name, t, n / t, m / 1024, 100 * base / t }'
}
echo
echo "| run            |     wall   |  objects/s |  peak RSS   | vs events |"
echo "| -------------- | ---------- | ---------- | ----------- | --------- |"
row "parse: events" "$EVENTS_T" "$EVENTS_M"
row "parse: tree" "$TREE_T" "$TREE_M"
row "hpa-lint" "$LINT_T" "$LINT_M"
