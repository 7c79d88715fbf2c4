#!/usr/bin/env python3
"""Writes the lint benchmark's manifest tree: DIRS directories of FILES_PER_DIR files, each file
OBJECTS_PER_FILE objects (half autoscaling/v2 HPAs, half the Deployments they scale), each
object about 1.5 KB of ordinary YAML (comments, labels, annotations, block style).

    generate.py [--findings] OUT_DIR [DIRS FILES_PER_DIR OBJECTS_PER_FILE]   # default 100 100 10

The default tree is clean: hpa-lint finds nothing in it. With --findings every Deployment also
sets `spec.replicas`, so every HPA has exactly one finding (HPA410 workload-sets-replicas, on
the Deployment it scales): the tree a team sees on its first run (issue 14 item 4).
"""
import os
import sys

DEPLOYMENT = """\
# Deployment {name}: the service's pods; the HPA below owns its replica count.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: team-{team}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: shop
    app.kubernetes.io/managed-by: kustomize
    team: team-{team}
  annotations:
    description: "serves the {name} API for the shop frontend and the mobile apps"
    owner: "team-{team}@example.com"
spec:
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: {name}
  strategy:
    type: RollingUpdate
    rollingUpdate: {{maxSurge: 25%, maxUnavailable: 0}}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {name}
        team: team-{team}
    spec:
      serviceAccountName: {name}
      terminationGracePeriodSeconds: 30
      containers:
        - name: app
          image: registry.example.com/shop/{name}:1.{i}.0
          ports:
            - {{name: http, containerPort: 8080}}
          env:
            - {{name: LOG_LEVEL, value: info}}
            - {{name: PORT, value: "8080"}}
          resources:
            requests: {{cpu: 250m, memory: 256Mi}}
            limits: {{memory: 512Mi}}
          readinessProbe:
            httpGet: {{path: /healthz, port: http}}
            periodSeconds: 5
          volumeMounts:
            - {{name: config, mountPath: /etc/{name}, readOnly: true}}
      volumes:
        - name: config
          configMap: {{name: {name}-config}}
        - name: proxy
          image: envoyproxy/envoy:v1.31.0
          resources:
            requests: {{cpu: 50m, memory: 64Mi}}
"""

HPA = """\
# HPA {name}: cpu and request rate, conservative scale-down.
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
  namespace: team-{team}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: shop
    team: team-{team}
  annotations:
    owner: "team-{team}@example.com"
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {name}
  minReplicas: {min}
  maxReplicas: {max}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 70
    - type: Resource
      resource:
        name: memory
        target:
          type: AverageValue
          averageValue: 400Mi
    - type: Pods
      pods:
        metric:
          name: http_requests_per_second
        target:
          type: AverageValue
          averageValue: "50"
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      policies:
        - type: Percent
          value: 100
          periodSeconds: 15
        - type: Pods
          value: 4
          periodSeconds: 15
      selectPolicy: Max
    scaleDown:
      stabilizationWindowSeconds: 300
      policies:
        - type: Percent
          value: 20
          periodSeconds: 60
"""


# The one line --findings adds to every Deployment, right under `spec:`.
REPLICAS = "\nspec:\n  replicas: 3\n"


def main() -> None:
    args = sys.argv[1:]
    findings = "--findings" in args
    args = [a for a in args if a != "--findings"]
    if len(args) not in (1, 4):
        sys.exit(__doc__)
    out = args[0]
    dirs, files, objects = (int(a) for a in (args[1:4] or ["100", "100", "10"]))
    deployment = DEPLOYMENT.replace("\nspec:\n", REPLICAS, 1) if findings else DEPLOYMENT
    total = 0
    for d in range(dirs):
        path = os.path.join(out, f"team-{d:03}")
        os.makedirs(path, exist_ok=True)
        for f in range(files):
            docs = []
            for o in range(objects // 2):
                name = f"svc-{f:03}-{o}"
                docs.append(deployment.format(name=name, team=d, i=o))
                docs.append(HPA.format(name=name, team=d, min=2 + o % 3, max=10 + 5 * (o % 4)))
                total += 2
            with open(os.path.join(path, f"svc-{f:03}.yaml"), "w") as fh:
                fh.write("---\n".join(docs))
    print(total)


if __name__ == "__main__":
    main()
