#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs from the repository's test data: real-world
# manifests, the conformance vectors (objects extracted with jq when it is installed), the
# examples, the lint fixtures, the malformed-input corpus, the configuration files (the lint
# fixtures' .hpa-lint.yaml, the webhook's policies, the YAML examples of the documentation),
# and the hand-written seeds under fuzz/seeds/. Re-running it is harmless; libFuzzer keeps what it found next to the seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus=fuzz/corpus
mkdir -p "$corpus"/{decode,annotations,lint_file,simulate,config_files}

# Copies files into a corpus directory, named after their path (libFuzzer reads any name).
seed() {
    local target=$1
    shift
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$corpus/$target/seed-$(printf '%s' "$f" | tr '/' '_')"
    done
}

manifests=(
    tests/data/realworld/hpa/*
    examples/manifests/good/* examples/manifests/bad/*
    tests/data/lint/*/*.yaml
    tests/data/explain/*.yaml
)
malformed=(tests/data/malformed/*)
seed decode "${manifests[@]}" "${malformed[@]}"
seed lint_file "${manifests[@]}" "${malformed[@]}"
seed simulate examples/simulate/*.yaml tests/data/simulate/*.yaml fuzz/seeds/simulate/*
seed annotations fuzz/seeds/annotations/*

# The configuration files: every .hpa-lint.yaml and policy in the repository, the policy the
# manifests ship with its commented-out rules switched on, every YAML block of the documentation
# (configurations, policies, scenarios and manifests alike: each is a near miss of the other
# kinds), and the malformed-input corpus (hostile YAML).
seed config_files tests/data/lint/*/.hpa-lint.yaml webhook/tests/data/*.yaml manifests/base/policy.yaml \
    fuzz/seeds/config_files/* "${malformed[@]}"
sed -E '/^kind: WebhookPolicy/,$ s/^# ?//' manifests/base/policy.yaml >"$corpus/config_files/seed-policy-uncommented.yaml"
for doc in README.md webhook/README.md docs/*.md; do
    [ -f "$doc" ] || continue
    awk -v out="$corpus/config_files/seed-$(printf '%s' "$doc" | tr '/' '_')" \
        '/^```yaml/ { n++; inside = 1; next } /^```/ { inside = 0; next } inside { print > (out "-" n ".yaml") }' "$doc"
done

# The webhook's reviews: each manifest behind a mode byte (see fuzz_targets/admission_review.rs):
# a CREATE, an UPDATE from itself and an UPDATE from a valid HPA, without and with the policy.
mkdir -p "$corpus/admission_review"
for f in "${manifests[@]}"; do
    [ -f "$f" ] || continue
    name=$(printf '%s' "$f" | tr '/' '_')
    for mode in 03 01 02 06 0d; do
        { printf '%b' "\\x$mode"; cat "$f"; } >"$corpus/admission_review/seed-$mode-$name"
    done
done
for f in fuzz/seeds/admission_review/*; do
    [ -f "$f" ] || continue
    { printf '\x00'; cat "$f"; } >"$corpus/admission_review/seed-00-$(basename "$f")"
done

if command -v jq >/dev/null; then
    # Every object of the API conformance vectors, as JSON documents.
    i=0
    while IFS= read -r object; do
        printf '%s\n' "$object" >"$corpus/decode/seed-conformance-$i.json"
        i=$((i + 1))
    done < <(jq -c '.[] | (.object, .input, .old) | select(type == "object")' tests/data/conformance/api/*.json)
    # Every round-trip annotation value they hold (one JSON string per line, decoded).
    i=0
    while IFS= read -r value; do
        printf '%s' "$value" | jq -j . >"$corpus/annotations/seed-conformance-$i"
        i=$((i + 1))
    done < <(jq -c '.. | objects | .annotations? | objects | to_entries[]
        | select(.key | startswith("autoscaling.alpha.kubernetes.io/")) | .value' tests/data/conformance/api/*.json | sort -u)
else
    echo "seed.sh: jq not found; the conformance vectors are not seeded" >&2
fi

for t in decode annotations lint_file simulate admission_review config_files; do
    echo "$t: $(find "$corpus/$t" -type f | wc -l) inputs"
done
