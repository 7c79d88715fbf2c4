#!/usr/bin/env bash
# Soak test of hpa-webhook: the release binary on loopback under a steady, mixed load for a
# bounded time, while its serving certificate is rotated twice and its policy file changes.
#
# Load (webhook/examples/soak_client.rs, a Rust client on the crate's own hyper + rustls stack,
# so that every answer is checked, not only counted): CONNECTIONS connections (half HTTP/2, half
# HTTP/1.1, each re-opened every few hundred requests) sending RATE requests/s in all:
#
#   valid            v1 and v2 HPAs, CREATE, UPDATE and DELETE, /validate and /mutate (patches
#                    applied and checked), dryRun, other kinds; and invalid HPAs denied with 422
#   policy-sensitive answers that change with the policy (a maxReplicas constraint appears, a
#                    behavior default for one namespace): old answer, then the new one
#   malformed        reviews with a uid but a bad request (200, allowed: false, 400 status) and
#                    bodies that are not v1 AdmissionReviews (HTTP 400)
#   oversized        bodies over --max-body-bytes, with and without Content-Length (HTTP 413)
#
# plus /readyz 4 times a second and /metrics every second, each on a new connection.
#
# With CONTEXT=1 (the default) the server runs with --context-cache, watching a test API server
# (tests/benches/cluster_read.rs serve, its own process) of HPAS HPAs and WORKLOADS workloads
# whose workloads change CHURN times a minute (a new image in the pod template, round robin):
# the cache takes a steady stream of watch events while it answers, and must not grow. The
# client then also sends, as valid requests with their answers checked, HPAs of those namespaces
# whose warnings come from the cache (an HPA on a cached Deployment without requests: HPA201; a
# second HPA on a cached Deployment: HPA407; an HPA on its Deployment with every request: none)
# and Deployment UPDATEs to /validate-workloads under a cached HPA (spec.replicas set by a
# GitOps apply: HPA410; the requests dropped: HPA201; a new image: no warning).
#
# Timeline (fractions of DURATION; the script announces each step to the client, which holds
# every answer to what must be true at that moment):
#
#   15 %  warm-up over: the server's RSS is read (VmRSS, /proc/PID/status)
#   25 %  rotation 1, as the kubelet updates a Secret volume (cert-manager's case): both files
#         appear at once, by renaming the ..data symlink to a new directory
#   40 %  the policy file is replaced by an invalid one: it must be refused, the old one staying
#   50 %  the policy file is replaced (rename) by a new one: maxReplicas <= 20, and a behavior
#         default for the namespace prod
#   70 %  rotation 2, file by file: the key first, the certificate 2.5 reload intervals later;
#         the server must refuse the half-written pair and keep serving the old one meanwhile
#  100 %  the server's RSS is read again; the load stops; SIGTERM
#
# Certificates come from `hpa-webhook certs` (three generations, minted up front, valid for 30,
# 60 and 90 days so that the expiry gauge visibly changes). That command makes a new CA every
# time, so clients must trust the old and the new CA across a rotation (in a cluster: put both
# in the webhook configurations' caBundle before the serving certificate changes, remove the
# old one after); the client trusts the three CAs. With cert-manager the CA stays and only
# the leaf changes.
#
# Bounds (the script exits 1 if one is broken): zero failed valid requests; every malformed or
# oversized request answered with its documented status; the policy change and both rotations
# in force within the reload interval + 2 s and never undone; the expiry gauge changed at each
# rotation; /readyz 200 throughout; the server's counters agree with the client's; RSS growth
# from the end of warm-up to the end below RSS_BOUND %; no panic, no unexpected error logged;
# a clean exit on SIGTERM.
#
# Everything listens on 127.0.0.1 only, needs no root and no Docker, and is bounded in time;
# processes and the temporary directory are removed on exit (KEEP=1 keeps the directory, logs
# included).
#
#   bench/soak/run.sh                      # DURATION=120s CONNECTIONS=32 RATE=800
#   DURATION=10m RATE=400 CONTEXT=0 bench/soak/run.sh
#   CONTEXT=0 bench/soak/run.sh            # without the context cache and its churn
#   HPAS=5000 WORKLOADS=20000 CHURN=1000 bench/soak/run.sh   # defaults: 500, 2000, 1000
#
# Also: RELOAD_INTERVAL (the server's --reload-interval, default 1s), MAX_BODY_BYTES (its
# --max-body-bytes, default 262144), RSS_BOUND (default 10), PORT (default 0: any free port).
# With CONTEXT=1 the test API server serves at most ten minutes once loaded, so a DURATION
# near 10m or longer needs CONTEXT=0.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-120s}
CONNECTIONS=${CONNECTIONS:-32}
RATE=${RATE:-800}
RELOAD_INTERVAL=${RELOAD_INTERVAL:-1s}
MAX_BODY_BYTES=${MAX_BODY_BYTES:-262144}
RSS_BOUND=${RSS_BOUND:-10}
CONTEXT=${CONTEXT:-1}
HPAS=${HPAS:-500}
WORKLOADS=${WORKLOADS:-2000}
CHURN=${CHURN:-1000}
TARGET_DIR=${CARGO_TARGET_DIR:-target}

die() {
  echo "soak: $*" >&2
  exit 2
}

case $DURATION in
  *m) DURATION_S=$((${DURATION%m} * 60)) ;;
  *s) DURATION_S=${DURATION%s} ;;
  *) DURATION_S=$DURATION ;;
esac
if ! [[ $DURATION_S =~ ^[0-9]+$ ]] || [ "$DURATION_S" -lt 30 ]; then
  die "DURATION must be at least 30s (e.g. 120s, 10m)"
fi
case $RELOAD_INTERVAL in
  *ms) RELOAD_S=$(awk -v v="${RELOAD_INTERVAL%ms}" 'BEGIN { print v / 1000 }') ;;
  *s) RELOAD_S=${RELOAD_INTERVAL%s} ;;
  *) die "RELOAD_INTERVAL must be written like 1s or 500ms" ;;
esac

echo "building release binaries" >&2
CARGO_TARGET_DIR=$TARGET_DIR cargo build --release --locked -q -p hpa-webhook --bin hpa-webhook --example soak_client
BIN=$TARGET_DIR/release/hpa-webhook
CLIENT=$TARGET_DIR/release/examples/soak_client

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hpa-soak.XXXXXX")
SERVER=
CLIENT_PID=
SAMPLER=
API_PID=
# shellcheck disable=SC2317,SC2329  # reached through the EXIT trap only
cleanup() {
  local pid
  exec 3>&- 2>/dev/null || true
  for pid in "$CLIENT_PID" "$SAMPLER" "$SERVER" "$API_PID"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "soak: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- certificates: three generations, each from a new CA ---
for g in 0 1 2; do
  "$BIN" certs --service localhost --namespace soak --days $((30 * (g + 1))) --out "$WORK/mint/gen$g" >/dev/null 2>&1
done

# The served directory has the layout of a Secret volume: tls.crt -> ..data/tls.crt,
# ..data -> ..gen<N>. Publishing a generation is one rename of ..data (atomic for both files).
TLS=$WORK/tls
mkdir -p "$TLS"
publish() { # generation
  mkdir "$TLS/..gen$1"
  cp "$WORK/mint/gen$1/tls.crt" "$WORK/mint/gen$1/tls.key" "$TLS/..gen$1/"
  ln -sfn "..gen$1" "$TLS/..data_tmp"
  mv -T "$TLS/..data_tmp" "$TLS/..data"
}
replace() { # file source: written beside, then renamed over the file (atomic for that file)
  cp "$2" "$1.tmp"
  mv -T "$1.tmp" "$1"
}
publish 0
ln -s ..data/tls.crt "$TLS/tls.crt"
ln -s ..data/tls.key "$TLS/tls.key"

# --- policies ---
cat >"$WORK/policy.yaml" <<'EOF'
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints:
    maxReplicas: 100
EOF
cat >"$WORK/policy-invalid.yaml" <<'EOF'
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints:
    maxReplicas: twenty
EOF
cat >"$WORK/policy-new.yaml" <<'EOF'
apiVersion: hpa-toolkit.io/v1alpha1
kind: WebhookPolicy
defaults:
  constraints:
    maxReplicas: 20
rules:
  - name: production
    namespaces: [prod]
    behavior:
      scaleDown:
        stabilizationWindowSeconds: 600
EOF

# --- the cluster the context cache watches, with churn ---
CONTEXT_FLAGS=()
CLIENT_CONTEXT=()
if [ "$CONTEXT" = 1 ]; then
  API=$(CARGO_TARGET_DIR=$TARGET_DIR cargo bench -q -p hpa-tests --bench cluster_read --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*cluster_read[^"]*\)".*/\1/p' | tail -1)
  [ -x "$API" ] || die "building the cluster_read bench failed"
  mkdir "$WORK/api"
  mkfifo "$WORK/api/stdin"
  "$API" serve "$WORK/api" "$HPAS" "$WORKLOADS" "$CHURN" <"$WORK/api/stdin" 2>"$WORK/api.log" &
  API_PID=$!
  exec 3>"$WORK/api/stdin"   # holds the API server's stdin open; closing it stops it
  for _ in $(seq 1 1200); do [ -f "$WORK/api/ready" ] && break; sleep 0.5; done
  [ -f "$WORK/api/ready" ] || die "the test API server did not get ready"
  CONTEXT_FLAGS=(--context-cache true --kubeconfig "$WORK/api/kubeconfig" --context-sync-timeout 5m)
  CLIENT_CONTEXT=(--context-hpas "$HPAS" --context-workloads "$WORKLOADS")
fi

# --- the server ---
"$BIN" --addr "127.0.0.1:${PORT:-0}" --tls-cert "$TLS/tls.crt" --tls-key "$TLS/tls.key" \
  --policy "$WORK/policy.yaml" --reload-interval "$RELOAD_INTERVAL" --max-body-bytes "$MAX_BODY_BYTES" \
  "${CONTEXT_FLAGS[@]}" --log-format json --log-level info 2>"$WORK/server.log" &
SERVER=$!
ADDR=
for _ in $(seq 200); do
  ADDR=$(grep '"listening"' "$WORK/server.log" | grep -o '"addr":"[^"]*"' | head -1 | cut -d'"' -f4 || true)
  [ -n "$ADDR" ] && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log" >&2; die "the server did not start"; }
  sleep 0.05
done
[ -n "$ADDR" ] || die "the server did not report its address"
for _ in $(seq 2000); do
  curl -sf --cacert "$WORK/mint/gen0/ca.crt" --resolve "localhost:${ADDR##*:}:127.0.0.1" \
    -o /dev/null "https://localhost:${ADDR##*:}/readyz" && break
  sleep 0.05
done

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER/status" 2>/dev/null || true; }
# One RSS sample a second, for the peak and the trend.
(while kill -0 "$SERVER" 2>/dev/null; do
  echo "$(date +%s) $(rss)"
  sleep 1
done) >"$WORK/rss.log" 2>/dev/null &
SAMPLER=$!

# --- the load ---
EVENTS=$WORK/events
: >"$EVENTS"
event() { echo "$(date +%s.%N) $*" >>"$EVENTS"; }
timeout $((DURATION_S + 120)) "$CLIENT" --addr "$ADDR" --server-name localhost \
  --ca "$WORK/mint/gen0/ca.crt" --ca "$WORK/mint/gen1/ca.crt" --ca "$WORK/mint/gen2/ca.crt" \
  --generation "$WORK/mint/gen0/tls.crt" --generation "$WORK/mint/gen1/tls.crt" \
  --generation "$WORK/mint/gen2/tls.crt" --events "$EVENTS" --connections "$CONNECTIONS" --rate "$RATE" \
  --max-body-bytes "$MAX_BODY_BYTES" --reload-interval "$RELOAD_INTERVAL" --max-duration "$((DURATION_S + 60))s" \
  "${CLIENT_CONTEXT[@]}" >"$WORK/report.md" &
CLIENT_PID=$!

T0=$(date +%s.%N)
at() { # seconds after the start: sleeps until then, and checks that both processes still run
  sleep "$(awk -v t0="$T0" -v at="$1" -v now="$(date +%s.%N)" 'BEGIN { d = t0 + at - now; print (d > 0 ? d : 0) }')"
  kill -0 "$SERVER" 2>/dev/null || { tail -n 20 "$WORK/server.log" >&2; die "the server died"; }
  kill -0 "$CLIENT_PID" 2>/dev/null || die "the client stopped early"
}
echo "soak: ${DURATION_S} s, $CONNECTIONS connections, $RATE requests/s, server $ADDR (pid $SERVER)" >&2

at $((DURATION_S * 15 / 100))
event warm
WARM_AT=$(date +%s)
RSS_BEFORE=$(rss)

at $((DURATION_S * 25 / 100))
event cert-begin 1
publish 1
event cert-done 1

at $((DURATION_S * 40 / 100))
event policy-invalid
replace "$WORK/policy.yaml" "$WORK/policy-invalid.yaml"

at $((DURATION_S * 50 / 100))
event policy-begin
replace "$WORK/policy.yaml" "$WORK/policy-new.yaml"
event policy-done

at $((DURATION_S * 70 / 100))
event cert-begin 2
replace "$TLS/tls.key" "$WORK/mint/gen2/tls.key"
sleep "$(awk -v r="$RELOAD_S" 'BEGIN { print 2.5 * r }')"
replace "$TLS/tls.crt" "$WORK/mint/gen2/tls.crt"
event cert-done 2

at "$DURATION_S"
RSS_AFTER=$(rss)
END_AT=$(date +%s)
CPU_TICKS=$(awk '{ print $14 + $15 }' "/proc/$SERVER/stat")
event end
CLIENT_STATUS=0
wait "$CLIENT_PID" || CLIENT_STATUS=$?
CLIENT_PID=

# --- the server's side ---
sleep 1
RSS_IDLE=$(rss)
CONTEXT_LINE=
if [ "$CONTEXT" = 1 ]; then
  # Loopback only: the CA in force changed with the rotations, so the scrape skips verification.
  CONTEXT_LINE=$(curl -sk "https://127.0.0.1:${ADDR##*:}/metrics" | awk -v churn="$CHURN" '
    /^hpa_webhook_context_objects\{/ { n += $2 }
    /^hpa_webhook_context_synced\{/ { s += $2; w++ }
    /^hpa_webhook_context_stale_views_total/ { stale += $2 }
    END { printf "- context cache: %d objects, %d of %d watches synced, %d stale views, under %s workload updates a minute", n, s, w, stale, churn }')
fi
kill -TERM "$SERVER"
STOP_START=$(date +%s.%N)
for _ in $(seq 300); do
  kill -0 "$SERVER" 2>/dev/null || break
  sleep 0.1
done
SERVER_STATUS=0
if kill -0 "$SERVER" 2>/dev/null; then
  kill -KILL "$SERVER"
  SERVER_STATUS=timeout
fi
wait "$SERVER" || { status=$?; [ "$SERVER_STATUS" = timeout ] || SERVER_STATUS=$status; }
STOP_SECONDS=$(awk -v a="$STOP_START" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
SERVER=
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true
SAMPLER=

printf '\n## hpa-webhook soak test: %s s, %s connections, %s requests/s, %s cores, %s\n\n' \
  "$DURATION_S" "$CONNECTIONS" "$RATE" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%MZ)"
cat "$WORK/report.md"

FAILED=0
[ "$CLIENT_STATUS" = 0 ] || FAILED=1
echo "### Server"
echo
GROWTH=$(awk -v a="$RSS_BEFORE" -v b="$RSS_AFTER" 'BEGIN { printf "%.1f", a ? 100 * (b - a) / a : 999 }')
PEAK=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$WORK/rss.log")
RSS_OK=$(awk -v g="$GROWTH" -v bound="$RSS_BOUND" 'BEGIN { print (g < bound) ? "yes" : "no" }')
echo "- RSS (VmRSS) after warm-up, t = $((WARM_AT - ${T0%.*})) s: ${RSS_BEFORE} KiB; at the end of the load, t = $((END_AT - ${T0%.*})) s: ${RSS_AFTER} KiB;" \
  "growth ${GROWTH} % (bound: under ${RSS_BOUND} %): $([ "$RSS_OK" = yes ] && echo PASS || echo FAIL)"
echo "- RSS peak ${PEAK} KiB; idle 1 s after the load: ${RSS_IDLE} KiB; every 10 s (KiB):" \
  "$(awk -v t0="${T0%.*}" '$2 != "" && (($1 - t0) % 10 == 0) { printf "%s%d s %s", sep, $1 - t0, $2; sep = ", " }' "$WORK/rss.log")"
[ "$RSS_OK" = yes ] || FAILED=1
if [ -n "$CONTEXT_LINE" ]; then echo "$CONTEXT_LINE"; fi
echo "- CPU: $(awk -v t="$CPU_TICKS" -v hz="$(getconf CLK_TCK)" -v d="$DURATION_S" \
  'BEGIN { printf "%.1f s (%.0f %% of one core)", t / hz, 100 * t / hz / d }')"

ERRORS=$(grep -c '"level":"ERROR"' "$WORK/server.log" || true)
UNEXPECTED=$(grep '"level":"ERROR"' "$WORK/server.log" |
  grep -v -e 'certificate not reloaded; the one in force stays' -e 'policy not reloaded; the one in force stays' || true)
WARNINGS=$(grep -c '"level":"WARN"' "$WORK/server.log" || true)
PANICS=$(grep -c 'panicked' "$WORK/server.log" || true)
echo "- log: $ERRORS errors (expected: the half-written certificate pair, at each poll until complete; the invalid" \
  "policy, once), $WARNINGS warnings (one per malformed request), $PANICS panics"
if [ -n "$UNEXPECTED" ]; then
  echo "- FAIL: unexpected errors:"
  echo "$UNEXPECTED" | head -n 10 | sed 's/^/      /'
  FAILED=1
fi
[ "$PANICS" = 0 ] || FAILED=1
echo "- SIGTERM: exit status $SERVER_STATUS after ${STOP_SECONDS} s"
[ "$SERVER_STATUS" = 0 ] || FAILED=1
echo
if [ "$FAILED" = 0 ]; then echo "RESULT: PASS"; else echo "RESULT: FAIL"; fi
exit "$FAILED"
