#!/usr/bin/env bash
# Load benchmark of hpa-webhook on loopback, next to two baselines on the same axum + rustls
# stack, in one run:
#
#   webhook /validate, webhook /mutate    the real thing (review.json: a 2 KB v2 CREATE)
#   webhook /validate, no lint            the same with --lint-warnings=false (the share of the
#                                         lint rules in /validate's cost)
#   webhook /validate, context            the same with --context-cache, watching a test API
#                                         server (tests/benches/cluster_read.rs serve, in its own
#                                         process) that holds HPAS HPAs and WORKLOADS workloads:
#                                         the cross-object rules run against the cache; the
#                                         review's HPA becomes one of those HPAs, on its
#                                         Deployment (for every target)
#   baseline fixed                        a fixed response of the same size (HTTP + TLS only)
#   baseline parse                        parse into serde_json::Value, serialize a response
#
# Four scenarios each: 64 connections with keep-alive, 1 connection, a new TLS connection for
# every request (64 at a time), and 64 connections sending distinct HPAs (maxReplicas changes
# with every request, so that nothing computed for one object can be reused for the next).
# Load generator: wrk (Debian's package; installed if missing and we are root). Everything
# listens on 127.0.0.1 only and every run is bounded in time.
#
# The targets take turns (ROUNDS rounds of every target per scenario) and each figure is the
# median over the rounds, so that other work on the machine weighs on all of them alike. The
# server's CPU time per request (from /proc, user + system) is reported too: on a shared
# machine it is steadier than throughput.
#
#   bench/webhook/run.sh                  # DURATION=3s ROUNDS=5 THREADS=1 by default
#   DURATION=10s ROUNDS=3 bench/webhook/run.sh
#   CONTEXT=0 bench/webhook/run.sh        # without the context target (no test API server)
#   HPAS=500 WORKLOADS=2000 bench/webhook/run.sh
#
# With the context target, the context webhook's resident memory (VmRSS, and its peak VmHWM)
# is printed after the table (HPAS and WORKLOADS default to 5000 and 20000), then again after
# a relist of every kind at once (the test API server frozen past the watches' timeout, its
# history compacted, then 410 Gone for every watch: a restarted kube-apiserver): the peak is
# what the pod's memory limit must hold. KEEP=1 prints wrk's raw output at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-3s}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-1}
CONTEXT=${CONTEXT:-1}
HPAS=${HPAS:-5000}
WORKLOADS=${WORKLOADS:-20000}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
BENCH=bench/webhook
REVIEW=$BENCH/review.json
TICKS=$(getconf CLK_TCK)

if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing wrk (apt-get)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk is needed: apt-get install wrk" >&2
    exit 2
  fi
fi

echo "building release binaries" >&2
CARGO_TARGET_DIR=$TARGET_DIR cargo build --release --locked -q -p hpa-webhook --bin hpa-webhook --example baseline
BIN=$TARGET_DIR/release/hpa-webhook
BASELINE=$TARGET_DIR/release/examples/baseline

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  exec 3>&- 2>/dev/null || true
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ "$CONTEXT" = 1 ]; then
  # The test API server with the cluster, in its own process (as bench/cluster/run.sh runs it).
  API=$(CARGO_TARGET_DIR=$TARGET_DIR cargo bench -q -p hpa-tests --bench cluster_read --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*cluster_read[^"]*\)".*/\1/p' | tail -1)
  [ -x "$API" ] || { echo "building the cluster_read bench failed" >&2; exit 1; }
  mkdir "$WORK/api"
  mkfifo "$WORK/api/stdin"
  "$API" serve "$WORK/api" "$HPAS" "$WORKLOADS" <"$WORK/api/stdin" 2>>"$WORK/servers.log" &
  PIDS+=($!)
  exec 3>"$WORK/api/stdin"   # holds the server's stdin open; closing it stops the server
  echo "loading $HPAS HPAs and $WORKLOADS workloads into the test API server" >&2
  for _ in $(seq 1 1200); do [ -f "$WORK/api/ready" ] && break; sleep 0.5; done
  [ -f "$WORK/api/ready" ] || { echo "the test API server did not get ready" >&2; exit 1; }
  # The review's HPA as the cached HPA web-0 of team-0 (in its place: no other HPA on the same
  # target), on that cluster's Deployment web-0.
  python3 - "$REVIEW" "$WORK/review.json" <<'PY'
import json, sys
review = json.load(open(sys.argv[1]))
request = review["request"]
request["namespace"] = request["object"]["metadata"]["namespace"] = "team-0"
request["name"] = request["object"]["metadata"]["name"] = "web-0"
request["object"]["spec"]["scaleTargetRef"]["name"] = "web-0"
open(sys.argv[2], "w").write(json.dumps(review, separators=(",", ":")))
PY
  REVIEW=$WORK/review.json
fi

"$BIN" certs --service localhost --namespace bench --out "$WORK/certs" >/dev/null 2>&1
CERT=(--tls-cert "$WORK/certs/tls.crt" --tls-key "$WORK/certs/tls.key")

declare -A PID_OF
start() { # port command...
  local port=$1
  shift
  "$@" 2>>"$WORK/servers.log" &
  PIDS+=($!)
  PID_OF[$port]=$!
}
start 18443 "$BIN" --addr 127.0.0.1:18443 "${CERT[@]}" --log-level warn --log-format json
start 18446 "$BIN" --addr 127.0.0.1:18446 "${CERT[@]}" --lint-warnings false --log-level warn --log-format json
start 18444 "$BASELINE" --mode fixed --addr 127.0.0.1:18444 "${CERT[@]}"
start 18445 "$BASELINE" --mode parse --addr 127.0.0.1:18445 "${CERT[@]}"
PORTS=(18443 18444 18445 18446)
if [ "$CONTEXT" = 1 ]; then
  start 18447 "$BIN" --addr 127.0.0.1:18447 "${CERT[@]}" --log-level warn --log-format json \
    --context-cache true --kubeconfig "$WORK/api/kubeconfig" --context-sync-timeout 10m
  PORTS+=(18447)
  echo "waiting for the context cache to sync" >&2
  for _ in $(seq 1 1200); do
    [ "$(curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:18447/readyz)" = 200 ] && break
    sleep 0.5
  done
fi

# Wait until every server answers, and check that each answers the review correctly.
for port in "${PORTS[@]}"; do
  for _ in $(seq 100); do
    curl -sk -o /dev/null "https://127.0.0.1:$port/validate" --data-binary @"$REVIEW" && break
    sleep 0.05
  done
done
CHECKED=(18443/validate 18443/mutate 18446/validate 18444/validate 18445/validate)
if [ "$CONTEXT" = 1 ]; then CHECKED+=(18447/validate); fi
for target in "${CHECKED[@]}"; do
  answer=$(curl -sk "https://127.0.0.1:$target" -H 'content-type: application/json' --data-binary @"$REVIEW")
  case $answer in
    *'checked this HPA alone'*) echo "the context cache is not fresh: $answer" >&2; exit 1 ;;
    *'"uid":"0df28fbd-5f5f-11e8-bc74-36e6bb280816","allowed":true'*) ;;
    *) echo "unexpected answer from $target: $answer" >&2; exit 1 ;;
  esac
done

cat >"$WORK/post.lua" <<EOF
local f = io.open("$REVIEW", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
if os.getenv("WRK_CLOSE") == "1" then wrk.headers["Connection"] = "close" end
if os.getenv("WRK_VARY") == "1" then
  local n = 0
  request = function()
    n = n + 1
    local body = string.gsub(wrk.body, '"maxReplicas":30', '"maxReplicas":' .. (31 + n % 100000), 1)
    return wrk.format(nil, nil, nil, body)
  end
end
EOF

cpu_ticks() { # pid: user + system clock ticks so far
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# Runs wrk against one target; prints "req/s p50 p99 cpu-µs-per-request errors".
measure() { # url pid connections close vary
  local out before after
  before=$(cpu_ticks "$2")
  out=$(WRK_CLOSE=$4 WRK_VARY=$5 wrk -t"$THREADS" -c"$3" -d"$DURATION" --latency -s "$WORK/post.lua" "$1")
  after=$(cpu_ticks "$2")
  echo "$out" >>"$WORK/wrk.log"
  awk -v ticks=$((after - before)) -v hz="$TICKS" '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
    /^ +50%/ { p50 = us($2) }
    /^ +99%/ { p99 = us($2) }
    / requests in / { n = $1 }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx or 3xx responses:/ { errors += $NF }
    /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
    END { printf "%.0f %.0f %.0f %.1f %d\n", rps, p50, p99, (n ? ticks * 1000000 / hz / n : 0), errors }
  ' <<<"$out"
}

# The median of each of the first four columns over the rounds; errors are summed.
median() {
  awk '{ for (i = 1; i <= 4; i++) v[i, NR] = $i; e += $5 }
    END { for (i = 1; i <= 4; i++) { n = 0; for (r = 1; r <= NR; r++) a[++n] = v[i, r]
            for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
            printf "%s ", a[int((n + 1) / 2)] }
          printf "%d\n", e }'
}

TARGETS=("webhook /validate|18443|/validate" "webhook /mutate|18443|/mutate"
         "webhook /validate, no lint|18446|/validate"
         "baseline fixed|18444|/validate" "baseline parse|18445|/validate")
if [ "$CONTEXT" = 1 ]; then TARGETS+=("webhook /validate, context|18447|/validate"); fi
SCENARIOS=("64 conns keep-alive|64|0|0" "1 conn keep-alive|1|0|0" "new TLS conn per request|64|1|0"
           "64 conns, distinct HPAs|64|0|1")

declare -A RESULT
for scenario in "${SCENARIOS[@]}"; do
  IFS='|' read -r sname conns close vary <<<"$scenario"
  declare -A RUNS=()
  for round in $(seq "$ROUNDS"); do
    for target in "${TARGETS[@]}"; do
      IFS='|' read -r tname port path <<<"$target"
      echo "running: $tname, $sname, round $round/$ROUNDS ($DURATION)" >&2
      RUNS["$tname"]+="$(measure "https://127.0.0.1:$port$path" "${PID_OF[$port]}" "$conns" "$close" "$vary")"$'\n'
    done
  done
  for target in "${TARGETS[@]}"; do
    IFS='|' read -r tname _ _ <<<"$target"
    RESULT["$sname|$tname"]=$(printf '%s' "${RUNS[$tname]}" | median)
  done
  unset RUNS
done

printf '\nhpa-webhook load benchmark: median of %s rounds of %s, wrk -t%s, %s-byte AdmissionReview, %s cores, %s\n\n' \
  "$ROUNDS" "$DURATION" "$THREADS" "$(wc -c <"$REVIEW" | tr -d ' ')" "$(nproc)" "$(date -u +%Y-%m-%d)"
printf '| scenario | target | requests/s | p50 (µs) | p99 (µs) | server CPU (µs/req) | errors | req/s vs parse | p99 vs parse | CPU vs parse |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for scenario in "${SCENARIOS[@]}"; do
  IFS='|' read -r sname _ _ _ <<<"$scenario"
  read -r prps _ pp99 pcpu _ <<<"${RESULT["$sname|baseline parse"]}"
  for target in "${TARGETS[@]}"; do
    IFS='|' read -r tname _ _ <<<"$target"
    read -r rps p50 p99 cpu errors <<<"${RESULT["$sname|$tname"]}"
    awk -v s="$sname" -v t="$tname" -v rps="$rps" -v p50="$p50" -v p99="$p99" -v cpu="$cpu" -v e="$errors" \
      -v prps="$prps" -v pp99="$pp99" -v pcpu="$pcpu" 'BEGIN {
        printf "| %s | %s | %d | %d | %d | %.1f | %d | %.0f %% | %.2f× | %.2f× |\n", s, t, rps, p50, p99, cpu, e,
          (prps ? 100 * rps / prps : 0), (pp99 ? p99 / pp99 : 0), (pcpu ? cpu / pcpu : 0) }'
  done
done
echo
if [ "$CONTEXT" = 1 ]; then
  kib() { awk -v k="$1" '$1 == k ":" { print $2 }' "/proc/${PID_OF[18447]}/status"; }
  mb() { echo "$(kib "$1") / 1024" | bc -l; }
  objects=$(curl -sk https://127.0.0.1:18447/metrics | awk '/^hpa_webhook_context_objects\{/ { n += $2 } END { print n + 0 }')
  printf 'context webhook: %s objects in the cache (%s HPAs, %s workloads in the API server); RSS %.1f MB, peak %.1f MB\n' \
    "$objects" "$HPAS" "$WORKLOADS" "$(mb VmRSS)" "$(mb VmHWM)"
  # A relist of every kind at once (a restarted kube-apiserver: watches silent past their
  # timeout, history compacted, then 410 Gone for each): the peak a pod's memory limit must hold.
  echo relist >&3
  echo "relist: waiting for the test API server's freeze and thaw" >&2
  for _ in $(seq 1 120); do [ -f "$WORK/api/relisted" ] && break; sleep 0.5; done
  [ -f "$WORK/api/relisted" ] || { echo "the test API server did not relist" >&2; exit 1; }
  # Done once every watch has been synced for 3 s in a row (and 5 s have passed).
  syncing_seen=0 quiet=0
  for i in $(seq 1 240); do
    syncing=$(curl -sk https://127.0.0.1:18447/metrics | grep -c '^hpa_webhook_context_watch_state{.*state="syncing"} 1' || true)
    [ "$syncing" -gt "$syncing_seen" ] && syncing_seen=$syncing
    if [ "$syncing" = 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
    [ "$quiet" -ge 6 ] && [ "$i" -ge 10 ] && break
    sleep 0.5
  done
  printf 'after a relist of every kind (410 Gone; at most %s watches syncing at once seen): RSS %.1f MB, peak %.1f MB\n\n' \
    "$syncing_seen" "$(mb VmRSS)" "$(mb VmHWM)"
fi
if [ "${KEEP:-0}" = 1 ]; then cat "$WORK/wrk.log"; fi
