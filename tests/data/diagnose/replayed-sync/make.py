"""Writes the snapshots of tests/tests/diagnose.rs's replayed-sync tests (see README.md).

Run from this directory: `python3 make.py`. Every scenario is namespace `default`, a Deployment
`web` of pods labelled `app=web` requesting 100m cpu, and an HPA `web` (cpu 50 %, 1..10,
no behavior unless said), replayed at 2026-03-02T10:00:00Z (the PodMetrics' timestamp).
"""
import json
import os

NOW = "2026-03-02T10:00:00Z"
CPU = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]


def pod(name, ready=True, start="2026-03-02T09:40:00Z", ready_at="2026-03-02T09:40:21Z", cpu="100m", phase="Running"):
    resources = {"requests": {"cpu": cpu}} if cpu else {}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}, "creationTimestamp": start},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": resources}]},
            "status": {"phase": phase, "startTime": start,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": ready_at}]}}


def deploy(replicas):
    labels = {"app": "web"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "creationTimestamp": "2026-03-02T09:00:00Z"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}},
            "status": {"replicas": replicas}}


def hpa(name="web", util=50, behavior=None, status=None, uid=None):
    h = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
         "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-03-02T09:00:00Z", "generation": 1},
         "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                  "minReplicas": 1, "maxReplicas": 10,
                  "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": util}}}]}}
    if uid:
        h["metadata"]["uid"] = uid
    if behavior is not None:
        h["spec"]["behavior"] = behavior
    if status:
        h["status"] = status
    return h


def cond(type_, status, reason, message, at="2026-03-02T09:50:00Z"):
    return {"type": type_, "status": status, "reason": reason, "message": message, "lastTransitionTime": at}


ACTIVE = cond("ScalingActive", "True", "ValidMetricFound",
              "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)")
WITHIN = cond("ScalingLimited", "False", "DesiredWithinRange", "the desired count is within the acceptable range")


def event(reason, message, last, count=1, first=None, type_="Normal", uid=None):
    involved = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": "web", "namespace": "default"}
    if uid:
        involved["uid"] = uid
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"web.{reason}.{last}", "namespace": "default"},
            "involvedObject": involved, "reason": reason, "message": message, "type": type_, "count": count,
            "firstTimestamp": first or last, "lastTimestamp": last, "source": {"component": "horizontal-pod-autoscaler"}}


def pod_metrics(usage):
    return {"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {},
            "items": [{"metadata": {"name": n, "namespace": "default"}, "timestamp": NOW, "window": "15s",
                       "containers": [{"name": "c", "usage": {"cpu": c}}]} for n, c in usage]}


def write(name, objects, usage):
    os.makedirs(name, exist_ok=True)
    with open(f"{name}/objects.json", "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": objects}, f, indent=1)
        f.write("\n")
    with open(f"{name}/pod-metrics.json", "w") as f:
        json.dump(pod_metrics(usage), f, indent=1)
        f.write("\n")


RESCALED = "cpu resource utilization (percentage of request) above target"
TWO = [pod("p0"), pod("p1")]
AT_90 = [("p0", "90m"), ("p1", "90m")]

# Item 1: every write of the scale is denied (an admission webhook); the good side: an old
# denial, the last sync wrote nothing.
DENIED = 'admission webhook "policy.example.com" denied the request: replicas above quota'
failed = event("FailedRescale", f"New size: 4; reason: {RESCALED}; error: {DENIED}", "2026-03-02T09:59:45Z",
               count=40, first="2026-03-02T09:50:00Z", type_="Warning")
metrics_90 = [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 90, "averageValue": "90m"}}}]
write("failed-write", [hpa(status={"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": metrics_90, "conditions": [
    cond("AbleToScale", "False", "FailedUpdateScale", f"the HPA controller was unable to update the target scale: {DENIED}"),
    ACTIVE, WITHIN]}), deploy(2)] + TWO + [failed], AT_90)
old = event("FailedRescale", f"New size: 4; reason: {RESCALED}; error: {DENIED}", "2026-03-02T09:30:00Z", type_="Warning")
write("write-recovered", [hpa(status={"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
    cond("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"), ACTIVE, WITHIN]}),
    deploy(2)] + TWO + [old], AT_90)

# Item 2: the published run's first sync was 15 s ago (2 pods at 2575 % of 20 %: 258, limited
# to 4); the load has dropped since, the 2 new pods are not Ready yet.
LIMITED = [cond("AbleToScale", "True", "SucceededRescale", "the HPA controller was able to update the target scale to 4", "2026-03-02T09:59:45Z"),
           ACTIVE,
           cond("ScalingLimited", "True", "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate", "2026-03-02T09:59:45Z"),
           cond("ScaledToZero", "False", "NotScaledToZero", "the HPA controller did not scale the workload to zero", "2026-03-02T09:59:45Z")]
metrics_2575 = [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 2575, "averageValue": "515m"}}}]
starting = [pod("n0", ready=False, start="2026-03-02T09:59:46Z", ready_at="2026-03-02T09:59:46Z"),
            pod("n1", ready=False, start="2026-03-02T09:59:46Z", ready_at="2026-03-02T09:59:46Z")]
rescaled_4 = event("SuccessfulRescale", f"New size: 4; reason: {RESCALED}", "2026-03-02T09:59:45Z")
write("limited-legacy", [hpa(util=20, status={"currentReplicas": 2, "desiredReplicas": 4, "lastScaleTime": "2026-03-02T09:59:45Z",
                                               "currentMetrics": metrics_2575, "conditions": LIMITED}), deploy(4)]
      + TWO + starting + [rescaled_4], [("p0", "3m"), ("p1", "3m")])
within = [LIMITED[0], ACTIVE, cond("ScalingLimited", "False", "DesiredWithinRange", "the desired count is within the acceptable range", "2026-03-02T09:59:45Z"), LIMITED[3]]
metrics_30 = [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 30, "averageValue": "6m"}}}]
write("within-legacy", [hpa(util=20, status={"currentReplicas": 2, "desiredReplicas": 4, "lastScaleTime": "2026-03-02T09:59:45Z",
                                              "currentMetrics": metrics_30, "conditions": within}), deploy(4)]
      + TWO + starting + [rescaled_4], [("p0", "3m"), ("p1", "3m")])

# Item 3: two HPAs select the same pods (AmbiguousSelector); the good side: the first sync of
# pods not Ready yet (a metric that fails now and answers once they are).
write("ambiguous", [hpa(), hpa(name="web2"), deploy(2)] + TWO, AT_90)
young = [pod("p0", ready=False, start="2026-03-02T09:59:40Z", ready_at="2026-03-02T09:59:40Z"),
         pod("p1", ready=False, start="2026-03-02T09:59:40Z", ready_at="2026-03-02T09:59:40Z")]
write("unready-first-sync", [hpa(), deploy(2)] + young, AT_90)

# Item 7: rescales the event recorder aggregated: identical messages (count 2) and messages
# the correlator combined ("(combined from similar events): ", count 3).
write("aggregated-events", [hpa(status={"currentReplicas": 8, "desiredReplicas": 8, "lastScaleTime": "2026-03-02T09:58:00Z", "conditions": [
    cond("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"), ACTIVE, WITHIN]}), deploy(8)]
    + [pod(f"p{i}") for i in range(8)] + [
    event("SuccessfulRescale", f"New size: 2; reason: {RESCALED}", "2026-03-02T09:55:10Z"),
    event("SuccessfulRescale", f"New size: 4; reason: {RESCALED}", "2026-03-02T09:57:00Z", count=2, first="2026-03-02T09:56:00Z"),
    event("SuccessfulRescale", f"(combined from similar events): New size: 8; reason: {RESCALED}", "2026-03-02T09:58:00Z", count=3, first="2026-03-02T09:56:30Z")],
    [(f"p{i}", "50m") for i in range(8)])

# Item 9: the replayed sync is the next one: the last rescaled (SucceededRescale), this one is
# held by a policy; and a sync that rescales where the live status has no ScaledToZero.
write("after-rescale", [hpa(behavior={"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}},
                            status={"currentReplicas": 3, "desiredReplicas": 4, "lastScaleTime": "2026-03-02T09:59:30Z", "conditions": [
    cond("AbleToScale", "True", "SucceededRescale", "the HPA controller was able to update the target scale to 4", "2026-03-02T09:59:30Z"),
    ACTIVE,
    cond("ScalingLimited", "True", "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate", "2026-03-02T09:59:30Z")]}),
    deploy(4)] + [pod(f"p{i}") for i in range(4)] + [
    event("SuccessfulRescale", f"New size: 3; reason: {RESCALED}", "2026-03-02T09:58:00Z"),
    event("SuccessfulRescale", f"New size: 4; reason: {RESCALED}", "2026-03-02T09:59:30Z")],
    [(f"p{i}", "100m") for i in range(4)])
write("moved-metric", [hpa(status={"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
    cond("AbleToScale", "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale"),
    cond("ScalingActive", "False", "FailedGetResourceMetric", "the HPA was unable to compute the replica count: failed to get cpu utilization"),
    WITHIN]}), deploy(2)] + TWO, [("p0", "40m"), ("p1", "40m")])

# Item 13: the HPA was deleted and created again (a new uid); the events of the first one are
# still there. The good side: an HPA whose uid the snapshot does not hold keeps every event.
write("recreated", [hpa(uid="2b1c-new", status={"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
    cond("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"), ACTIVE, WITHIN]}), deploy(2)] + TWO + [
    event("SuccessfulRescale", "New size: 10; reason: cpu resource utilization (percentage of request) above target", "2026-03-02T09:58:00Z", uid="9f0e-old"),
    event("SuccessfulRescale", "New size: 2; reason: All metrics below target", "2026-03-02T09:59:00Z", uid="2b1c-new")],
    [("p0", "40m"), ("p1", "40m")])
no_uid = json.load(open("recreated/objects.json"))["items"]
del no_uid[0]["metadata"]["uid"]
write("recreated-no-uid", no_uid, [("p0", "40m"), ("p1", "40m")])

# Item 14: the forecast keeps each pod's own spec and phase, new pods from the template
# (100m). Requests 50m/200m/200m at 100m each: 300m of 450m, 67 % of 50 %, 3 → 4; the new pod
# counts 0 while unready on scale-up, then 300m of 550m, 55 %: within tolerance, steady at 4.
write("mixed-requests", [hpa(), deploy(3), pod("p0", cpu="50m"), pod("p1", cpu="200m"), pod("p2", cpu="200m")],
      [("p0", "100m"), ("p1", "100m"), ("p2", "100m")])
# A pod without a request fails every sync (no forecast); so does a Failed one, which the
# controller still lists (calculatePodRequests reads every listed pod).
write("missing-request", [hpa(), deploy(3), pod("p0"), pod("p1"), pod("p2", cpu=None)],
      [("p0", "90m"), ("p1", "90m"), ("p2", "90m")])
write("failed-no-request", [hpa(), deploy(2), pod("p0"), pod("p1"), pod("p2", cpu=None, ready=False, phase="Failed")], AT_90)

# Item 15: a rescale whose earlier size no HPA event records still counts in the scaling
# policies' periods. Pods 1 per 60s, a rescale to 2 28 s ago, 2 pods at 150 % of 50 % (6):
# the rescale added at least 1, so the period starts at 1 at most and the limit is 2 (no
# rescale, ScaleUpLimit); the same with the event in events.k8s.io/v1. With the Deployment's
# ScalingReplicaSet event the earlier size is read from it: Pods 2 per 60s, a rescale to 3
# (from 1), 3 pods: start 1, limit 3 (no rescale), where one replica added would allow 4.
POLICY_STATUS = {"currentReplicas": 2, "desiredReplicas": 2, "lastScaleTime": "2026-03-02T09:59:32Z", "conditions": [
    cond("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"), ACTIVE,
    cond("ScalingLimited", "True", "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")]}
up_to_2 = event("SuccessfulRescale", f"New size: 2; reason: {RESCALED}", "2026-03-02T09:59:32Z")
pods_per_minute = lambda n: {"scaleUp": {"policies": [{"type": "Pods", "value": n, "periodSeconds": 60}]}}
write("policy-up", [hpa(behavior=pods_per_minute(1), status=POLICY_STATUS), deploy(2)] + TWO + [up_to_2],
      [("p0", "150m"), ("p1", "150m")])
v1 = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": up_to_2["metadata"], "eventTime": None,
      "regarding": up_to_2["involvedObject"], "reason": up_to_2["reason"], "note": up_to_2["message"], "type": "Normal",
      "deprecatedCount": 1, "deprecatedFirstTimestamp": up_to_2["firstTimestamp"], "deprecatedLastTimestamp": up_to_2["lastTimestamp"],
      "deprecatedSource": up_to_2["source"], "reportingController": "", "reportingInstance": ""}
write("policy-up-evv1", [hpa(behavior=pods_per_minute(1), status=POLICY_STATUS), deploy(2)] + TWO + [v1],
      [("p0", "150m"), ("p1", "150m")])
up_to_3 = event("SuccessfulRescale", f"New size: 3; reason: {RESCALED}", "2026-03-02T09:59:32Z")
rs = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.rs", "namespace": "default"},
      "involvedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "default"},
      "reason": "ScalingReplicaSet", "message": "Scaled up replica set web-5d4 from 1 to 3", "type": "Normal", "count": 1,
      "firstTimestamp": "2026-03-02T09:59:32Z", "lastTimestamp": "2026-03-02T09:59:32Z", "source": {"component": "deployment-controller"}}
status_3 = dict(POLICY_STATUS, currentReplicas=3, desiredReplicas=3)
three = [pod(f"p{i}") for i in range(3)]
write("policy-up-rsevent", [hpa(behavior=pods_per_minute(2), status=status_3), deploy(3)] + three + [up_to_3, rs],
      [(f"p{i}", "150m") for i in range(3)])
write("policy-up-noevent", [hpa(behavior=pods_per_minute(2), status=status_3), deploy(3)] + three + [up_to_3],
      [(f"p{i}", "150m") for i in range(3)])

# Item 16: both pods resized in place to 200m (the spec says 100m) at 150m: 150 % of 50 % on
# the spec's requests, 2 → 4 (the legacy limit); the resizes do not hold the count (a note).
resized = [pod("p0"), pod("p1")]
for p in resized:
    p["status"]["containerStatuses"] = [{"name": "c", "ready": True, "resources": {"requests": {"cpu": "200m"}}}]
write("inplace", [hpa(), deploy(2)] + resized, [("p0", "150m"), ("p1", "150m")])

# A ContainerResource metric naming a container the pods' metrics do not list: the resource
# metrics client only logs it (`getContainerMetrics`), so every pod is without metrics and the
# metric has no sample left; the good side: the container that is there (`c`) answers.
def container_hpa(container):
    h = hpa()
    h["spec"]["metrics"] = [{"type": "ContainerResource", "containerResource": {"name": "cpu", "container": container, "target": {"type": "Utilization", "averageUtilization": 50}}}]
    return h
write("container-missing", [container_hpa("sidecar"), deploy(2)] + TWO, AT_90)
write("container-present", [container_hpa("c"), deploy(2)] + TWO, AT_90)

# A rollout adding container `sidecar` (100m), halfway: the new pod p0 has it (90m), the old
# pod p1 has it neither in its spec nor in its PodMetrics; the template has it. 1.33-1.34: p1's
# request is 0 and it has no sample, 90 % of 50 % on p0, 2 -> 4; the forecast keeps p1 without
# the container. From 1.35 `calculateRequests` fails on p1 (`container sidecar not found in Pod
# p1`) at every sync: no forecast. `container-unreported`: p1's spec has it, its PodMetrics not.
SIDECAR = {"name": "sidecar", "image": "y", "resources": {"requests": {"cpu": "100m"}}}
def with_sidecar(obj):
    spec = obj["spec"]["template"]["spec"] if obj["kind"] == "Deployment" else obj["spec"]
    spec["containers"].append(dict(SIDECAR))
    return obj
def sidecar_metrics(name, pods):
    write(name, [container_hpa("sidecar"), with_sidecar(deploy(2))] + pods, AT_90)
    with open(f"{name}/pod-metrics.json") as f:
        m = json.load(f)
    m["items"][0]["containers"].append({"name": "sidecar", "usage": {"cpu": "90m"}})
    with open(f"{name}/pod-metrics.json", "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
sidecar_metrics("container-rollout", [with_sidecar(pod("p0")), pod("p1")])
sidecar_metrics("container-unreported", [with_sidecar(pod("p0")), with_sidecar(pod("p1"))])

# A hand-written PodMetrics list with two items of p1 (90m, then 10m): the metrics client keeps
# the last (a map by pod name): 100m of 200m, 50 %, 2 kept, and the forecast's load is 100m,
# not 190m (which would scale to 4); a note says so.
write("repeated-samples", [hpa(), deploy(2)] + TWO, AT_90 + [("p1", "10m")])

# Two metrics, the second (Pods qps) failing (its adapter answers 404): the cpu metric alone
# wants 1 of 4 (10 %), which the invalid-metric rule of computeReplicasForMetrics discards
# (no scale-down while a metric fails); at 90 % it wants 8, which it keeps (a scale-up).
def two_metrics(name, usage):
    h = hpa()
    h["spec"]["metrics"].append({"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}})
    failed = {"apiVersion": "v1", "kind": "Status", "metadata": {"selfLink": "/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/qps"},
              "status": "Failure", "message": "the server could not find the metric qps for pods", "reason": "NotFound", "code": 404}
    four = [pod(f"p{i}") for i in range(4)]
    write(name, [h, deploy(4)] + four + [failed], [(p["metadata"]["name"], usage) for p in four])
two_metrics("partial-down", "10m")
two_metrics("partial-up", "90m")

# Two of 4 pods without metrics on a scale-down (10 % of 50 % for the others): they count at
# 100 % of their request, 55 %, within tolerance, so the count stays at 4; the forecast keeps
# them without metrics (steady at 4), and says so.
write("missing-down", [hpa(), deploy(4)] + [pod(f"p{i}") for i in range(4)], [("p0", "10m"), ("p1", "10m")])

# Pods in every phase, on a scale-down (10 % of 50 % for the Ready pods that report): r0, r1
# Ready; s0 Succeeded (Ready False, no sample); f0 Failed; pe Pending; un Running, not Ready,
# started 30 s ago, no sample; uk phase Unknown, Ready, with a sample; del being deleted, with a
# sample. 1.33-1.37: s0 and un are missing (at 100 % of their request): 230m of 500m, 0.92,
# within tolerance, 8 kept. 1.38 ignores the Succeeded s0 (#141302): 130m of 400m, 0.64 → 3,
# held at 8 by the stabilization window.
succeeded = pod("s0", ready=False, phase="Succeeded")
deleting = pod("del")
deleting["metadata"]["deletionTimestamp"] = "2026-03-02T09:59:50Z"
write("every-phase", [hpa(), deploy(8), pod("r0"), pod("r1"), succeeded, pod("f0", phase="Failed"),
                      pod("pe", ready=False, phase="Pending"),
                      pod("un", ready=False, start="2026-03-02T09:59:30Z", ready_at="2026-03-02T09:59:30Z"),
                      pod("uk", phase="Unknown"), deleting],
      [("r0", "10m"), ("r1", "10m"), ("uk", "10m"), ("del", "10m")])

# A scale-down bound by a policy (scaleDown Pods 1 per 60s, no window): 4 pods at 10 % of 50 %
# want 1, the policy allows 3 (ScaleDownLimit); the policy is named in the direction of the
# move, scaleDown (a scale-up bound by its policy, policy-up, is scaleUp).
write("policy-down", [hpa(behavior={"scaleDown": {"stabilizationWindowSeconds": 0, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}),
                      deploy(4)] + [pod(f"p{i}") for i in range(4)], [(f"p{i}", "10m") for i in range(4)])

# A target written in a group that does not serve its kind (a Deployment of
# extensions/v1beta1, and of `apps`, which Go reads as version `apps` of the core group): the
# controller's RESTMapper maps it to nothing, FailedGetScale with `no matches for kind`, even
# though the files hold a Deployment `web` (of apps/v1). An HPA `web2` of such a target never
# reads a selector: HPA `web` of the same pods is no AmbiguousSelector (2 → 4).
def unmapped(name="web", api_version="extensions/v1beta1"):
    h = hpa(name=name)
    h["spec"]["scaleTargetRef"]["apiVersion"] = api_version
    return h
write("unmapped-target", [unmapped(), deploy(2)] + TWO, AT_90)
write("unmapped-core", [unmapped(api_version="apps"), deploy(2)] + TWO, AT_90)
write("unmapped-other", [hpa(), unmapped(name="web2"), deploy(2)] + TWO, AT_90)
