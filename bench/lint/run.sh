#!/usr/bin/env bash
# Lint throughput benchmark: a generated tree of 10,000 files holding 100,000 objects (half
# autoscaling/v2 HPAs, half the Deployments they scale, about 1.5 KB each), linted by hpa-lint
# next to two baselines that find, read and parse the same files on the same threads with the
# same YAML parser, in one run:
#
#   parse: events   saphyr-parser's event stream with spans (the fastest span-keeping parse)
#   parse: tree     hpa-lint's span-keeping node tree, nothing else
#   hpa-lint        everything: parse, decode, default, validate, index, the default rules, JSON report
#
# and the same on the findings tree (generate.py --findings: every Deployment also sets
# spec.replicas, so every HPA has exactly one finding, HPA410), linted with -o json, -o sarif
# and -o human, next to its own event parse. Each is run RUNS times (default 5), interleaved;
# the table shows the median wall time, objects/s, the median CPU time (user + system), peak
# memory, and the throughput relative to the event parse of the same tree. Then the targets of
# issue 14 (item 4), PASS or MISS, on median wall times and peak RSS:
#
#   clean tree:    hpa-lint -o json           >= 0.70x the event parse
#   findings tree: hpa-lint -o json           >= 0.60x the event parse
#                  -o sarif, -o human         <= 1.5x the wall time of -o json
#                  peak RSS, every format     <= 4x the clean run's
#
#   bench/lint/run.sh                    # 100 dirs x 100 files x 10 objects
#   SIZE="10 100 10" bench/lint/run.sh   # a tenth of it
#   FINDINGS=0 bench/lint/run.sh         # the clean tree only (as before the findings rows)
#   NO_BUILD=1 bench/lint/run.sh         # use the binaries already in $CARGO_TARGET_DIR/release
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
FINDINGS=${FINDINGS:-1}
SIZE=${SIZE:-"100 100 10"}

# shellcheck source=bench/lint/setup.sh
. bench/lint/setup.sh
BYTES=$(du -sb "$TREE/manifests" | cut -f1)
FILES=$(find "$TREE/manifests" -type f | wc -l)
echo "tree: $FILES files, $OBJECTS objects, $((BYTES / 1024 / 1024)) MiB; $(nproc) cores; $RUNS runs each" >&2

# The number of findings in hpa-lint's JSON report on standard input, and their rule IDs.
count_findings() {
  python3 -c 'import collections, json, sys
r = json.load(sys.stdin)
ids = collections.Counter(f["rule"] for f in r["diagnostics"])
print(len(r["diagnostics"]), " ".join(sorted(ids)) or "-")'
}
# The trees must be what the rows say: the clean one without a finding, the findings one with
# one HPA410 per HPA (checked once, before timing).
check_findings() {
  local tree=$1 want=$2 want_ids=$3 got
  got=$("$LINT" --no-config -o json --fail-on never "$tree" | count_findings)
  if [ "$got" != "$want $want_ids" ]; then
    echo "$tree: expected $want findings ($want_ids), hpa-lint reports: $got" >&2
    exit 1
  fi
}
check_findings "$TREE/manifests" 0 -
if [ "$FINDINGS" = 1 ]; then
  # shellcheck disable=SC2086
  python3 bench/lint/generate.py --findings "$TREE/findings" $SIZE >/dev/null
  check_findings "$TREE/findings" "$((OBJECTS / 2))" HPA410
  echo "findings tree: the same, every Deployment setting spec.replicas ($((OBJECTS / 2)) findings)" >&2
fi

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

# Rounds interleave them all, so that noise from other processes falls on every row.
for _ in $(seq "$RUNS"); do
  run_once events "$PARSE" events "$TREE/manifests"
  run_once tree "$PARSE" tree "$TREE/manifests"
  run_once lint "$LINT" --no-config -o json --fail-on never "$TREE/manifests"
  if [ "$FINDINGS" = 1 ]; then
    run_once f_events "$PARSE" events "$TREE/findings"
    for format in json sarif human; do
      run_once "f_$format" "$LINT" --no-config -o "$format" --fail-on never "$TREE/findings"
    done
  fi
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

# A row; throughput relative to the event parse of the row's tree ($5 wall, $6 CPU).
row() {
  awk -v name="$1" -v t="$2" -v c="$3" -v m="$4" -v n="$OBJECTS" -v base="$5" -v basec="$6" \
    'BEGIN { printf "| %-22s | %8.2f s | %10.0f | %7.0f %% | %7.2f s | %7.0f %% | %7.0f MiB |\n", name, t, (t > 0 ? n / t : 0), (t > 0 ? 100 * base / t : 0), c, (c > 0 ? 100 * basec / c : 0), m / 1024 }'
}
echo
echo "Medians of $RUNS interleaved runs; throughput relative to the event parse of the same tree"
echo "(wall and CPU); peak RSS is the largest of the runs."
echo
echo "| run                    |     wall   |  objects/s | vs events |  CPU time | vs events |  peak RSS   |"
echo "| ---------------------- | ---------- | ---------- | --------- | --------- | --------- | ----------- |"
row "parse: events" "$EVENTS_T" "$EVENTS_C" "$EVENTS_M" "$EVENTS_T" "$EVENTS_C"
row "parse: tree" "$TREE_T" "$TREE_C" "$TREE_M" "$EVENTS_T" "$EVENTS_C"
row "hpa-lint -o json" "$LINT_T" "$LINT_C" "$LINT_M" "$EVENTS_T" "$EVENTS_C"

# A target: "| what | measured | goal | PASS/MISS |"; $2 measured, $3 ">=" or "<=", $4 the goal.
target() {
  awk -v what="$1" -v x="$2" -v op="$3" -v goal="$4" \
    'BEGIN { ok = (op == ">=") ? x >= goal : x <= goal
             printf "| %-42s | %7.2fx | %s %4.2fx | %-4s |\n", what, x, op, goal, ok ? "PASS" : "MISS" }'
}
# a / b (0 when b is 0: a tiny SIZE below time's 10 ms resolution).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }'; }

if [ "$FINDINGS" = 1 ]; then
  read -r FEV_T FEV_C FEV_M < <(summary f_events)
  read -r FJ_T FJ_C FJ_M < <(summary f_json)
  read -r FS_T FS_C FS_M < <(summary f_sarif)
  read -r FH_T FH_C FH_M < <(summary f_human)
  row "findings: events" "$FEV_T" "$FEV_C" "$FEV_M" "$FEV_T" "$FEV_C"
  row "findings: -o json" "$FJ_T" "$FJ_C" "$FJ_M" "$FEV_T" "$FEV_C"
  row "findings: -o sarif" "$FS_T" "$FS_C" "$FS_M" "$FEV_T" "$FEV_C"
  row "findings: -o human" "$FH_T" "$FH_C" "$FH_M" "$FEV_T" "$FEV_C"
fi

echo
echo "Targets (issue 14 item 4; wall-time medians, peak RSS):"
echo
echo "| target                                     | measured |    goal  |      |"
echo "| ------------------------------------------ | -------- | -------- | ---- |"
target "clean -o json vs event parse (throughput)" "$(ratio "$EVENTS_T" "$LINT_T")" ">=" 0.7
if [ "$FINDINGS" = 1 ]; then
  target "findings -o json vs event parse" "$(ratio "$FEV_T" "$FJ_T")" ">=" 0.6
  target "findings -o sarif vs -o json (wall)" "$(ratio "$FS_T" "$FJ_T")" "<=" 1.5
  target "findings -o human vs -o json (wall)" "$(ratio "$FH_T" "$FJ_T")" "<=" 1.5
  target "findings -o json peak RSS vs clean" "$(ratio "$FJ_M" "$LINT_M")" "<=" 4
  target "findings -o sarif peak RSS vs clean" "$(ratio "$FS_M" "$LINT_M")" "<=" 4
  target "findings -o human peak RSS vs clean" "$(ratio "$FH_M" "$LINT_M")" "<=" 4
fi
