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
# Each is run RUNS times (default 5), interleaved; the table shows the median wall time,
# objects/s, the median CPU time (user + system), peak memory, and the throughput relative to
# the event parse (the target is at least 70 %).
#
#   bench/lint/run.sh                    # 100 dirs x 100 files x 10 objects
#   SIZE="10 100 10" bench/lint/run.sh   # a tenth of it
#   NO_BUILD=1 bench/lint/run.sh         # use the binaries already in $CARGO_TARGET_DIR/release
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
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

# One run of a command: appends "wall cpu rss_kib" to $TREE/$1.runs.
run_once() {
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$TREE/time" "$@" >/dev/null 2>"$TREE/stderr" || {
    # hpa-lint exits 1 when it reports findings; anything else is a failure.
    if [ $? -ne 1 ]; then cat "$TREE/stderr" >&2; exit 1; fi
  }
  awk '{print $1, $2 + $3, $4}' "$TREE/time" >>"$TREE/$name.runs"
}

# Rounds interleave the three, so that noise from other processes falls on all of them.
for _ in $(seq "$RUNS"); do
  run_once events "$PARSE" events "$TREE/manifests"
  run_once tree "$PARSE" tree "$TREE/manifests"
  run_once lint "$LINT" --no-config -o json --fail-on never "$TREE/manifests"
done

# "median_wall median_cpu peak_rss_kib" of a command's runs.
summary() {
  local f="$TREE/$1.runs"
  local wall cpu rss
  wall=$(cut -d' ' -f1 "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  cpu=$(cut -d' ' -f2 "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  rss=$(cut -d' ' -f3 "$f" | sort -n | tail -1)
  echo "$wall $cpu $rss"
}
read -r EVENTS_T EVENTS_C EVENTS_M < <(summary events)
read -r TREE_T TREE_C TREE_M < <(summary tree)
read -r LINT_T LINT_C LINT_M < <(summary lint)

row() {
  awk -v name="$1" -v t="$2" -v c="$3" -v m="$4" -v n="$OBJECTS" -v base="$EVENTS_T" -v basec="$EVENTS_C" \
    'BEGIN { printf "| %-14s | %8.2f s | %10.0f | %5.0f %% | %7.2f s | %5.0f %% | %7.0f MiB |\n", name, t, n / t, 100 * base / t, c, 100 * basec / c, m / 1024 }'
}
echo
echo "Medians of $RUNS interleaved runs; throughput relative to the event parse (wall and CPU)."
echo
echo "| run            |     wall   |  objects/s | vs events |  CPU time | vs events |  peak RSS   |"
echo "| -------------- | ---------- | ---------- | --------- | --------- | --------- | ----------- |"
row "parse: events" "$EVENTS_T" "$EVENTS_C" "$EVENTS_M"
row "parse: tree" "$TREE_T" "$TREE_C" "$TREE_M"
row "hpa-lint" "$LINT_T" "$LINT_C" "$LINT_M"
