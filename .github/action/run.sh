#!/usr/bin/env bash
# Runs hpa-lint for the GitHub Action (action.yml): once for a SARIF file (code scanning), once
# for workflow commands (pull-request annotations) and the verdict. Exits 0 and writes the
# verdict as `exit-code` to $GITHUB_OUTPUT, so that the SARIF upload runs before the action
# fails; exits 2 itself when hpa-lint cannot run (usage, unreadable input).
#
# Environment (the action's inputs):
#   INPUT_PATHS     files and directories, one per line or separated by spaces (default: .)
#   INPUT_FAIL_ON   error | warning | info | never (default: warning)
#   INPUT_SARIF     the SARIF file to write (default: hpa-lint.sarif; empty: none)
#   INPUT_ARGS      more hpa-lint arguments, e.g. `--config .hpa-lint.yaml --select all`, split
#                   into words as a shell would (quotes '...' and "...", backslash), by xargs:
#                   nothing is expanded or run ($VAR, $(...), globs stay as written)
set -euo pipefail

paths=()
while IFS= read -r line; do
  # One path per line; a line may also hold several, separated by spaces.
  for word in $line; do paths+=("$word"); done
done <<<"${INPUT_PATHS:-.}"
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi
args=()
input_args=${INPUT_ARGS:-}
if [ -n "${input_args//[[:space:]]/}" ]; then
  # xargs splits the way a shell does without evaluating anything; one NUL-ended word each.
  words=$(mktemp)
  trap 'rm -f "$words"' EXIT
  if ! printf '%s\n' "$input_args" | xargs printf '%s\0' >"$words"; then
    echo "::error title=hpa-lint::the args input does not split into words (an unmatched quote?): $input_args" >&2
    exit 2
  fi
  while IFS= read -r -d '' word; do args+=("$word"); done <"$words"
fi
fail_on=${INPUT_FAIL_ON:-warning}
sarif=${INPUT_SARIF-hpa-lint.sarif}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >>"$GITHUB_OUTPUT"; fi
}

if [ -n "$sarif" ]; then
  status=0
  hpa-lint -o sarif --fail-on never ${args[@]+"${args[@]}"} "${paths[@]}" >"$sarif" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "::error title=hpa-lint::hpa-lint exited with $status while writing $sarif" >&2
    exit 2
  fi
  output "sarif-file=$sarif"
fi

status=0
hpa-lint -o github --fail-on "$fail_on" ${args[@]+"${args[@]}"} "${paths[@]}" || status=$?
if [ "$status" -ge 2 ]; then
  exit 2
fi
output "exit-code=$status"
if [ "$status" -eq 1 ]; then
  echo "hpa-lint: findings at or above '$fail_on' (see the annotations)"
fi
