#!/usr/bin/env bash
# The rows of bench/lint/run.sh counted in instructions instead of seconds: each command runs
# once on one thread under valgrind (cachegrind), which counts the instructions it executes and
# simulates its caches and branch predictor. The counts barely move with the load of other
# processes, so a change to the parser or the linter can be compared on a shared machine,
# where wall times vary by 10 % from run to run. What the counts do not show is what a miss
# costs on real hardware: the targets of issue 14 stay wall-time ratios (run.sh). They are
# the hint, though: hpa-lint runs three instructions for every four of the parser's, yet
# takes more time than that says, because the code it runs per object (decode, validation,
# rules, the controller) is large and run once per object, so it misses the first-level
# instruction cache (I1) about nine times as often as the parser alone and evicts the parser's code
# (the reason for the release profile's LTO, see Cargo.toml).
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

# "instructions I1-misses D1-misses branch-mispredictions" of one command, on one thread.
count() {
  RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
    --cachegrind-out-file=/dev/null "$@" >/dev/null 2>"$TREE/valgrind" || true
  awk '/ I *refs:/ {i = $4} / I1 *misses:/ {im = $4} / D1 *misses:/ {dm = $4} / Mispredicts:/ {b = $3}
       END {gsub(",", "", i); gsub(",", "", im); gsub(",", "", dm); gsub(",", "", b); print i, im, dm, b}' \
    "$TREE/valgrind"
}
row() {
  awk -v name="$1" -v i="$2" -v im="$3" -v dm="$4" -v b="$5" -v base="$6" \
    'BEGIN { printf "| %-22s | %14.0f | %7.0f %% | %10.0f | %10.0f | %12.0f |\n", name, i, 100 * base / i, im, dm, b }'
}
read -r EV_I EV_IM EV_DM EV_B < <(count "$PARSE" events "$TREE/manifests")
read -r TR_I TR_IM TR_DM TR_B < <(count "$PARSE" tree "$TREE/manifests")
read -r LI_I LI_IM LI_DM LI_B < <(count "$LINT" --no-config -o json --fail-on never "$TREE/manifests")
read -r FE_I FE_IM FE_DM FE_B < <(count "$PARSE" events "$TREE/findings")
read -r FJ_I FJ_IM FJ_DM FJ_B < <(count "$LINT" --no-config -o json --fail-on never "$TREE/findings")

echo
echo "$OBJECTS objects, one thread, under valgrind; instructions relative to the event parse"
echo "of the same tree (the throughput it would give if every instruction cost the same)."
echo
echo "| run                    |   instructions | vs events |  I1 misses |  D1 misses | mispredicted |"
echo "| ---------------------- | -------------- | --------- | ---------- | ---------- | ------------ |"
row "parse: events" "$EV_I" "$EV_IM" "$EV_DM" "$EV_B" "$EV_I"
row "parse: tree" "$TR_I" "$TR_IM" "$TR_DM" "$TR_B" "$EV_I"
row "hpa-lint -o json" "$LI_I" "$LI_IM" "$LI_DM" "$LI_B" "$EV_I"
row "findings: events" "$FE_I" "$FE_IM" "$FE_DM" "$FE_B" "$FE_I"
row "findings: -o json" "$FJ_I" "$FJ_IM" "$FJ_DM" "$FJ_B" "$FE_I"
