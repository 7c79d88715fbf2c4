#!/usr/bin/env bash
# Benchmark of a full cluster read, `hpa-lint cluster -A`'s reading half (hpa_cluster::
# read_inventory), against the test API server on loopback (TLS, bearer token, pages of 500).
#
# The server runs in its own process (tests/benches/cluster_read.rs serve) with HPAS HPAs and
# WORKLOADS workloads (Deployments, ReplicaSets, StatefulSets 3:2:1) in 50 namespaces, each
# made from the HPA201 lint fixture with the managed fields a server-side apply leaves. The
# reader runs ROUNDS times in a fresh process per round, alternating with the baseline, and the
# table shows the median wall time and the peak RSS (VmHWM) of the reading process:
#
#   inventory   read_inventory: discovery, every kind's pages parsed and trimmed to hpa-core's
#               values through hpa-core's builders, the replicas decision per workload
#   lists       baseline: the same paginated lists, each page parsed and dropped
#   lint        the whole `hpa-lint cluster -A --no-config -o json`, in-process: the read, every
#               HPA admitted and checked against the inventory, the JSON report rendered
#
# The issue's target for `hpa-lint cluster -A` (5,000 HPAs, 20,000 workloads): under 5 s and
# 200 MB overall (the `lint` row).
#
#   bench/cluster/run.sh                      # HPAS=5000 WORKLOADS=20000 ROUNDS=3
#   HPAS=500 WORKLOADS=2000 bench/cluster/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

HPAS=${HPAS:-5000}
WORKLOADS=${WORKLOADS:-20000}
ROUNDS=${ROUNDS:-3}

# The bench target's executable (built with the bench profile), run directly.
BIN=$(cargo bench -q -p hpa-tests --bench cluster_read --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*cluster_read[^"]*\)".*/\1/p' | tail -1)
[ -x "$BIN" ] || { echo "building the cluster_read bench failed" >&2; exit 1; }

WORK=$(mktemp -d)
FIFO=$WORK/stdin
mkfifo "$FIFO"
"$BIN" serve "$WORK" "$HPAS" "$WORKLOADS" <"$FIFO" &
SERVER=$!
exec 3>"$FIFO"   # holds the server's stdin open; closing it stops the server
cleanup() {
  exec 3>&- || true
  wait "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for _ in $(seq 1 600); do
  [ -f "$WORK/ready" ] && break
  if ! kill -0 "$SERVER" 2>/dev/null; then echo "the test API server exited" >&2; exit 1; fi
  sleep 0.5
done
[ -f "$WORK/ready" ] || { echo "the test API server did not get ready" >&2; exit 1; }

RESULTS=$WORK/results
for _ in $(seq 1 "$ROUNDS"); do
  for mode in lists inventory lint; do
    "$BIN" read "$WORK/kubeconfig" "$mode" >>"$RESULTS"
  done
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '\n%-10s %10s %10s %14s   (%d HPAs, %d workloads, median of %d rounds)\n' \
  mode seconds objects "peak RSS MiB" "$HPAS" "$WORKLOADS" "$ROUNDS"
for mode in lists inventory lint; do
  secs=$(awk -v m="$mode" '$1 == m {print $2}' "$RESULTS" | median)
  objects=$(awk -v m="$mode" '$1 == m {print $3}' "$RESULTS" | head -1)
  rss=$(awk -v m="$mode" '$1 == m {print $4}' "$RESULTS" | median)
  printf '%-10s %10s %10s %14.1f\n' "$mode" "$secs" "$objects" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')"
done
