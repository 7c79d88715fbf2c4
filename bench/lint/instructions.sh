#!/usr/bin/env bash
# The rows of bench/lint/run.sh counted in instructions instead of seconds: each command runs
# once on one thread under valgrind (cachegrind), which counts the instructions it executes and
# simulates its data cache. The counts barely move with the load of other processes, so a
# change to the parser or the linter can be compared on a shared machine, where wall times
# vary by 10 % from run to run. What the counts do not show is what time the memory system
# costs on real hardware (the first-level misses are a hint): the targets of issue 14 stay
# wall-time ratios (run.sh).
#
#   bench/lint/instructions.sh                      # 2 dirs x 50 files x 10 objects
#   SIZE="4 50 10" bench/lint/instructions.sh       # another size
#   NO_BUILD=1 bench/lint/instructions.sh           # the binaries in $CARGO_TARGET_DIR/release
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE=${SIZE:-"2 50 10"}
command -v valgrind >/dev/null || { echo "instructions.sh needs valgrind" >&2; exit 2; }

# shellcheck source=bench/lint/setup.sh
. bench/lint/setup.sh
# shellcheck disable=SC2086
python3 bench/lint/generate.py --findings "$TREE/findings" $SIZE >/dev/null

# "instructions data-refs D1-misses" of one command, on one thread.
count() {
  RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$@" \
    >/dev/null 2>"$TREE/valgrind" || true
  awk '/ I *refs:/ {i = $4} / D *refs:/ {d = $4} / D1 *misses:/ {m = $4}
       END {gsub(",", "", i); gsub(",", "", d); gsub(",", "", m); print i, d, m}' "$TREE/valgrind"
}
row() {
  awk -v name="$1" -v i="$2" -v d="$3" -v m="$4" -v base="$5" \
    'BEGIN { printf "| %-22s | %14.0f | %7.0f %% | %12.0f | %10.0f |\n", name, i, 100 * base / i, d, m }'
}
read -r EV_I EV_D EV_M < <(count "$PARSE" events "$TREE/manifests")
read -r TR_I TR_D TR_M < <(count "$PARSE" tree "$TREE/manifests")
read -r LI_I LI_D LI_M < <(count "$LINT" --no-config -o json --fail-on never "$TREE/manifests")
read -r FE_I FE_D FE_M < <(count "$PARSE" events "$TREE/findings")
read -r FJ_I FJ_D FJ_M < <(count "$LINT" --no-config -o json --fail-on never "$TREE/findings")

echo
echo "$OBJECTS objects, one thread, under valgrind; instructions relative to the event parse"
echo "of the same tree (the throughput it would give if every instruction cost the same)."
echo
echo "| run                    |   instructions | vs events |    data refs |  D1 misses |"
echo "| ---------------------- | -------------- | --------- | ------------ | ---------- |"
row "parse: events" "$EV_I" "$EV_D" "$EV_M" "$EV_I"
row "parse: tree" "$TR_I" "$TR_D" "$TR_M" "$EV_I"
row "hpa-lint -o json" "$LI_I" "$LI_D" "$LI_M" "$EV_I"
row "findings: events" "$FE_I" "$FE_D" "$FE_M" "$FE_I"
row "findings: -o json" "$FJ_I" "$FJ_D" "$FJ_M" "$FE_I"
