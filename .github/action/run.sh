#!/usr/bin/env bash
# Runs hpa-lint for the GitHub Action (action.yml): once for a SARIF file (code scanning), once
# for workflow commands (pull-request annotations) and the verdict. Exits 0 and writes the
# verdict as `exit-code` to $GITHUB_OUTPUT, so that the SARIF upload runs before the action
# fails; exits 2 itself when hpa-lint cannot run (usage, unreadable input).
#
# Environment (the action's inputs):
#   INPUT_PATHS     files and directories, one per line or separated by spaces (default: .);
#                   each line split into words as INPUT_ARGS is: quote a path holding spaces
#                   ('my dir/'); globs and $VAR stay as written; paths, never options (after
#                   `--`: a file named `-x.yaml` is linted)
#   INPUT_FAIL_ON   error | warning | info | never (default: warning)
#   INPUT_SARIF     the SARIF file to write (default: hpa-lint.sarif; empty: none)
#   INPUT_ARGS      more hpa-lint arguments, e.g. `--config .hpa-lint.yaml --select all`, split
#                   into words as a shell would (quotes '...' and "...", backslash), by xargs:
#                   nothing is expanded or run ($VAR, $(...), globs stay as written)
set -euo pipefail

words=$(mktemp)
trap 'rm -f "$words"' EXIT

# Splits $1 into words as a shell would (quotes '...' and "...", backslash) without evaluating
# anything (xargs: no expansion, no globbing, no command substitution), into the array `split`
# (bash 3.2, macOS's, has no namerefs); exits 2 naming the input $2 when it does not split (an
# unmatched quote).
split_words() {
  split=()
  if [ -z "${1//[[:space:]]/}" ]; then return 0; fi
  if ! printf '%s\n' "$1" | xargs printf '%s\0' >"$words"; then
    echo "::error title=hpa-lint::the $2 input does not split into words (an unmatched quote?): $1" >&2
    exit 2
  fi
  while IFS= read -r -d '' word; do split+=("$word"); done <"$words"
}

paths=()
while IFS= read -r line; do
  # One path per line; a line may also hold several, separated by spaces.
  split_words "$line" paths
  paths+=(${split[@]+"${split[@]}"})
done <<<"${INPUT_PATHS:-.}"
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi
split_words "${INPUT_ARGS:-}" args
args=(${split[@]+"${split[@]}"})
fail_on=${INPUT_FAIL_ON:-warning}
sarif=${INPUT_SARIF-hpa-lint.sarif}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >>"$GITHUB_OUTPUT"; fi
}

if [ -n "$sarif" ]; then
  status=0
  hpa-lint -o sarif --fail-on never ${args[@]+"${args[@]}"} -- "${paths[@]}" >"$sarif" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "::error title=hpa-lint::hpa-lint exited with $status while writing $sarif" >&2
    exit 2
  fi
  output "sarif-file=$sarif"
fi

status=0
hpa-lint -o github --fail-on "$fail_on" ${args[@]+"${args[@]}"} -- "${paths[@]}" || status=$?
if [ "$status" -ge 2 ]; then
  exit 2
fi
output "exit-code=$status"
if [ "$status" -eq 1 ]; then
  echo "hpa-lint: findings at or above '$fail_on' (see the annotations)"
fi
