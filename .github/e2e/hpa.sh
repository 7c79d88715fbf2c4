#!/usr/bin/env bash
# Applies an HPA in namespace shop (labelled tier=production) with maxReplicas $2 and checks the
# verdict: `./hpa.sh NAME MAX allowed|denied`. An admitted HPA must carry the policy's
# scaleDown.stabilizationWindowSeconds default (600). Used by the kind e2e job, against the
# webhook and against the exported in-tree admission policies alike.
set -euo pipefail
name=$1 max=$2 expected=$3
manifest=$(cat <<YAML
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: $name, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $name}
  minReplicas: 1
  maxReplicas: $max
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
YAML
)
if out=$(printf '%s\n' "$manifest" | kubectl apply -f - 2>&1); then verdict=allowed; else verdict=denied; fi
echo "$name (maxReplicas $max): $verdict: $out"
if [ "$verdict" != "$expected" ]; then
  echo "::error::$name: expected $expected, got $verdict" >&2
  exit 1
fi
if [ "$verdict" = allowed ]; then
  window=$(kubectl -n shop get hpa "$name" -o jsonpath='{.spec.behavior.scaleDown.stabilizationWindowSeconds}')
  if [ "$window" != 600 ]; then
    echo "::error::$name: scaleDown.stabilizationWindowSeconds is '$window', the policy defaults 600" >&2
    exit 1
  fi
  kubectl -n shop delete hpa "$name" --wait=true >/dev/null
fi
