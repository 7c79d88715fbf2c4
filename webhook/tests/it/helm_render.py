#!/usr/bin/env python3
"""Renders a Helm chart with Helm v4's own engine, through helm-python-sdk (PyPI; the Go SDK
behind a C ABI, no helm binary), as `helm lint --strict` and `helm template` would.

    helm_render.py [--kube-version vX.Y.Z | --kubeconfig PATH] CHART RELEASE NAMESPACE [VALUES.yaml...]

Values files are merged in order, later ones winning key by key (`helm template -f a -f b`),
coalesced with the chart's defaults and checked against values.schema.json. Prints one JSON
object: {"manifests": {template: text}, "notes": text, "lint": [message, ...]} where "lint"
holds `helm lint --strict` findings of warning severity and above. A schema or render error
is printed to stderr with exit status 1; a missing helm_python module exits with status 3.

--kube-version is the cluster's release as templates see it (.Capabilities.KubeVersion, `helm
template --kube-version`); by default the newest release the project targets.

--kubeconfig renders against that cluster as `helm upgrade` does: `lookup` reads its objects and
.Capabilities are its own (no lint then).
"""

import json
import sys

try:
    import helm_python as helm
    from helm_python import _native
except ImportError as error:  # the caller tells a missing tool from a failure by the status
    print(f"helm-python-sdk is not installed: {error}", file=sys.stderr)
    sys.exit(3)

# The newest release the project targets (lint checks deprecated APIs against it).
KUBE_VERSION = "v1.37.0"


def merge(base, override):
    """Helm's coalescing of two values maps: maps merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def main(argv):
    argv = list(argv)
    kube_version = KUBE_VERSION
    kubeconfig = None
    if len(argv) > 2 and argv[1] == "--kube-version":
        kube_version = argv[2]
        del argv[1:3]
    elif len(argv) > 2 and argv[1] == "--kubeconfig":
        kubeconfig = argv[2]
        del argv[1:3]
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    chart_dir, release, namespace, values_files = argv[1], argv[2], argv[3], argv[4:]
    values = {}
    for path in values_files:
        with open(path, encoding="utf-8") as file:
            values = merge(values, helm.values_from_yaml(file.read()) or {})
    if kubeconfig is not None:
        try:
            with helm.Chart.load(chart_dir) as chart:
                chart.validate_schema(chart.merge_values(values))
                rendered = helm.Config(kubeconfig_path=kubeconfig).render(
                    chart, values, name=release, namespace=namespace, is_upgrade=True
                )
        except helm.HelmError as error:
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
            return 1
        manifests = {t: text for t, text in rendered.items() if not t.endswith("NOTES.txt")}
        notes = "".join(text for t, text in rendered.items() if t.endswith("NOTES.txt"))
        json.dump({"manifests": manifests, "notes": notes, "lint": []}, sys.stdout)
        return 0
    try:
        with helm.Chart.load(chart_dir) as chart:
            merged = chart.merge_values(values)
            chart.validate_schema(merged)
            # Chart.render does not pass kube_version on (helm-python-sdk 0.2.2); the C ABI's
            # helm_render takes it among its options, as `helm template --kube-version` does.
            options = {"name": release, "namespace": namespace, "is_install": True, "kube_version": kube_version}
            rendered = json.loads(
                _native.call_string("helm_render", chart._raw(), json.dumps(values), json.dumps(options))
            )
        report = helm.lint(chart_dir, values, strict=True, namespace=namespace, kube_version=kube_version)
    except helm.HelmError as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    notes = ""
    manifests = {}
    for template, text in rendered.items():
        if template.endswith("NOTES.txt"):
            notes = text
        else:
            manifests[template] = text
    lint = [f"{m['path']}: {m['error']}" for m in report.get("messages", []) if m.get("severity", 0) >= 2]
    lint += report.get("errors", [])
    json.dump({"manifests": manifests, "notes": notes, "lint": lint}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
