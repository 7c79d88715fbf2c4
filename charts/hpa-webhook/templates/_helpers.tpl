{{/* Names, labels and the pieces several templates share. */}}

{{- define "hpa-webhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release name when it contains the chart name, else <release>-<chart>. */}}
{{- define "hpa-webhook.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hpa-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hpa-webhook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "hpa-webhook.labels" -}}
{{ include "hpa-webhook.selectorLabels" . }}
app.kubernetes.io/component: admission-webhook
app.kubernetes.io/part-of: hpa-toolkit
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "hpa-webhook.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret the Deployment mounts at /etc/hpa-webhook/tls. */}}
{{- define "hpa-webhook.tlsSecretName" -}}
{{- if eq .Values.certificates.mode "secret" }}
{{- required "certificates.secret.name is required in mode secret" .Values.certificates.secret.name }}
{{- else }}
{{- printf "%s-tls" (include "hpa-webhook.fullname" .) }}
{{- end }}
{{- end }}

{{- define "hpa-webhook.policyConfigMapName" -}}
{{- printf "%s-policy" (include "hpa-webhook.fullname" .) }}
{{- end }}

{{/* DNS names of the Service, as `hpa-webhook certs` writes them. */}}
{{- define "hpa-webhook.dnsNames" -}}
{{- $svc := include "hpa-webhook.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.certificates.clusterDomain) | toJson }}
{{- end }}

{{/* The namespaces no webhook of the chart is sent: the release's own and the listed ones. */}}
{{- define "hpa-webhook.namespaceSelector" -}}
{{- $root := index . 0 }}
{{- $extra := index . 1 }}
{{- $excluded := concat ($root.Values.admission.excludedNamespaces | default list) (list $root.Release.Namespace) | uniq }}
{{- $expressions := list (dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" $excluded) }}
{{- $selector := dict "matchExpressions" (concat $expressions ($extra.matchExpressions | default list)) }}
{{- if $extra.matchLabels }}
{{- $_ := set $selector "matchLabels" $extra.matchLabels }}
{{- end }}
{{- toYaml $selector }}
{{- end }}

{{/* clientConfig of a webhook: the Service, the path, and the CA where the chart knows it. */}}
{{- define "hpa-webhook.clientConfig" -}}
{{- $root := index . 0 }}
{{- $path := index . 1 }}
{{- $caBundle := index . 2 -}}
service:
  name: {{ include "hpa-webhook.fullname" $root }}
  namespace: {{ $root.Release.Namespace }}
  path: {{ $path }}
  port: {{ $root.Values.service.port }}
{{- if $caBundle }}
caBundle: {{ $caBundle }}
{{- end }}
{{- end }}

{{/* The webhook configurations' annotations: cert-manager's CA injector in certManager mode. */}}
{{- define "hpa-webhook.webhookAnnotations" -}}
{{- if eq .Values.certificates.mode "certManager" -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "hpa-webhook.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The Kubernetes release whose rules the server applies (HPA_WEBHOOK_KUBERNETES_VERSION):
server.kubernetesVersion, else the cluster's (.Capabilities.KubeVersion, major.minor; a minor
such as "34+" of some providers counts as 34), since the webhook must give the verdicts of the
cluster's own kube-apiserver. A cluster newer than the newest release modelled gets that one
(NOTES says so); one older than the oldest is refused.
*/}}
{{- define "hpa-webhook.supportedMinors" -}}
{{- list 33 34 35 36 37 38 | toJson }}
{{- end }}

{{- define "hpa-webhook.clusterMinor" -}}
{{- $major := .Capabilities.KubeVersion.Major | toString | regexFind "^[0-9]+" }}
{{- $minor := .Capabilities.KubeVersion.Minor | toString | regexFind "^[0-9]+" }}
{{- if or (ne $major "1") (not $minor) }}
{{- fail (printf "cannot read the cluster's Kubernetes release from %q: set server.kubernetesVersion" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- $minor }}
{{- end }}

{{- define "hpa-webhook.kubernetesVersion" -}}
{{- if .Values.server.kubernetesVersion }}
{{- .Values.server.kubernetesVersion }}
{{- else }}
{{- $supported := include "hpa-webhook.supportedMinors" . | fromJsonArray }}
{{- $oldest := first $supported | int }}
{{- $newest := last $supported | int }}
{{- $minor := include "hpa-webhook.clusterMinor" . | int }}
{{- if lt $minor $oldest }}
{{- fail (printf "the cluster runs Kubernetes %s: hpa-webhook supports 1.%d to 1.%d" .Capabilities.KubeVersion.Version $oldest $newest) }}
{{- end }}
{{- printf "1.%d" (min $minor $newest) }}
{{- end }}
{{- end }}

{{/*
Whether the PodDisruptionBudget would let a pod be evicted at all: minAvailable (a number, or a
percentage of replicaCount rounded up, as the disruption controller's
intstr.GetScaledValueFromIntOrPercent does) below replicaCount. A budget that keeps every
replica blocks every node drain, so none is rendered (NOTES says so).
*/}}
{{- define "hpa-webhook.pdbAllowsEviction" -}}
{{- $replicas := int .Values.replicaCount }}
{{- $min := .Values.podDisruptionBudget.minAvailable }}
{{- $need := 0 }}
{{- if kindIs "string" $min }}
{{- $need = div (add (mul (trimSuffix "%" $min | int) $replicas) 99) 100 }}
{{- else }}
{{- $need = int $min }}
{{- end }}
{{- if lt $need $replicas }}true{{ end }}
{{- end }}

{{/*
The matchConditions of a webhook, refused by name as kube-apiserver refuses them
(validateMatchConditions: a name twice is `Duplicate value`).
*/}}
{{- define "hpa-webhook.matchConditions" -}}
{{- $at := index . 0 }}
{{- $conditions := index . 1 }}
{{- $seen := dict }}
{{- range $i, $c := $conditions }}
{{- if hasKey $seen $c.name }}
{{- fail (printf "%s[%d].name: Duplicate value: %q" $at $i $c.name) }}
{{- end }}
{{- $_ := set $seen $c.name true }}
{{- end }}
{{- toYaml $conditions }}
{{- end }}

{{/* hpa-core's rules (rules::ALL), ID to name, HPA000 included: what lintConfig.rules may name (a test checks it is hpa-core's registry). */}}
{{- define "hpa-webhook.ruleTable" -}}
{
  "HPA000": "invalid",
  "HPA001": "duplicate-key",
  "HPA101": "min-replicas-equals-max",
  "HPA102": "min-replicas-below-threshold",
  "HPA103": "max-replicas-above-limit",
  "HPA104": "min-replicas-blocked-by-pdb",
  "HPA201": "missing-resource-request",
  "HPA202": "unknown-container",
  "HPA203": "target-type-mismatch",
  "HPA204": "unsupported-resource-metric",
  "HPA205": "duplicate-metric",
  "HPA206": "invalid-metric-selector",
  "HPA301": "scale-down-disabled",
  "HPA302": "slow-scale-up",
  "HPA303": "short-scale-down-window",
  "HPA304": "policy-period-below-sync-period",
  "HPA305": "legacy-behavior",
  "HPA306": "tolerance-ignored",
  "HPA401": "removed-api-version",
  "HPA402": "unscalable-target-kind",
  "HPA403": "target-not-found",
  "HPA404": "target-kind-case",
  "HPA405": "unserved-target-api-version",
  "HPA406": "misspelled-kind",
  "HPA407": "conflicting-hpas",
  "HPA408": "vpa-conflict",
  "HPA409": "keda-conflict",
  "HPA410": "workload-sets-replicas",
  "HPA411": "ignored-alpha-annotation",
  "HPA412": "unscalable-custom-resource"
}
{{- end }}

{{/*
lintConfig.rules as the server's reader (hpa_config::parse) takes its keys: a rule's ID in any
case or its name (the schema checks the levels). Any other key would stop the server, so the
render fails instead, naming the key and listing the rules (the schema's propertyNames error
named neither where nor what).
*/}}
{{- define "hpa-webhook.checkLintRules" -}}
{{- $table := include "hpa-webhook.ruleTable" . | fromJson }}
{{- $names := values $table }}
{{- range $key, $_ := (default dict .Values.lintConfig).rules }}
{{- if not (or (hasKey $table (upper $key)) (has $key $names)) }}
{{- $known := list }}
{{- range $id := keys $table | sortAlpha }}
{{- $known = append $known (printf "%s %s" $id (index $table $id)) }}
{{- end }}
{{- fail (printf "lintConfig.rules.%s: unknown rule; name a rule by its ID (in any case) or its name, as `hpa-lint rules` lists them: %s" $key (join ", " $known)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Per feature gate and release (minor): absent, open, or locked to a value (a test checks it is hpa-core's Gate::spec). */}}
{{- define "hpa-webhook.featureGateTable" -}}
{
  "DeclarativeValidation": {"33": "open", "34": "open", "35": "open", "36": "locked:true", "37": "locked:true", "38": "locked:true"},
  "DeclarativeValidationBeta": {"33": "absent", "34": "absent", "35": "absent", "36": "open", "37": "open", "38": "open"},
  "DeclarativeValidationTakeover": {"33": "open", "34": "open", "35": "open", "36": "open", "37": "locked:false", "38": "locked:false"},
  "HPAConfigurableTolerance": {"33": "open", "34": "open", "35": "open", "36": "open", "37": "locked:true", "38": "locked:true"},
  "HPAGeneration": {"33": "absent", "34": "absent", "35": "absent", "36": "absent", "37": "open", "38": "locked:true"},
  "HPAScaleToZero": {"33": "open", "34": "open", "35": "open", "36": "open", "37": "open", "38": "open"},
  "PodLevelResources": {"33": "open", "34": "open", "35": "open", "36": "open", "37": "open", "38": "open"},
  "StaleControllerConsistencyHPA": {"33": "absent", "34": "absent", "35": "absent", "36": "absent", "37": "open", "38": "open"}
}
{{- end }}

{{/*
server.featureGates as the server's FeatureGates::apply (kube-apiserver's --feature-gates,
featureGate.Set) takes them in the release applied, in its words: first the syntax of every
pair (`missing bool value for X`, `invalid value of X=y, err: strconv.ParseBool: ...`), then
a gate that release lacks (with the gates it knows) or a locked gate set against its lock. Any
of them stops the server, so the render fails instead (not the schema, whose pattern error
would name neither the pair nor the gates).
*/}}
{{- define "hpa-webhook.checkFeatureGates" -}}
{{- $table := include "hpa-webhook.featureGateTable" . | fromJson }}
{{- $release := include "hpa-webhook.kubernetesVersion" . }}
{{- $minor := index (splitList "." $release) 1 }}
{{- $bools := list "1" "t" "T" "TRUE" "true" "True" "0" "f" "F" "FALSE" "false" "False" }}
{{- $pairs := list }}
{{- range $item := splitList "," .Values.server.featureGates }}
{{- if trim $item }}
{{- $pair := splitn "=" 2 $item }}
{{- $name := trim $pair._0 }}
{{- if not (contains "=" $item) }}
{{- fail (printf "server.featureGates: missing bool value for %s" $name) }}
{{- end }}
{{- $value := trim $pair._1 }}
{{- if not (has $value $bools) }}
{{- fail (printf "server.featureGates: invalid value of %s=%s, err: strconv.ParseBool: parsing %q: invalid syntax (write true or false)" $name $value $value) }}
{{- end }}
{{- $pairs = append $pairs (list $name (has $value (list "1" "t" "T" "TRUE" "true" "True"))) }}
{{- end }}
{{- end }}
{{- range $pair := $pairs }}
{{- $name := index $pair 0 }}
{{- $on := index $pair 1 }}
{{- $state := "absent" }}
{{- if hasKey $table $name }}
{{- $state = index $table $name $minor }}
{{- end }}
{{- if eq $state "absent" }}
{{- $known := list }}
{{- range $gate := keys $table | sortAlpha }}
{{- if ne (index $table $gate $minor) "absent" }}
{{- $known = append $known $gate }}
{{- end }}
{{- end }}
{{- fail (printf "server.featureGates: unrecognized feature gate: %s (Kubernetes %s; the gates that change what happens to an HPA: %s)" $name $release (join ", " $known)) }}
{{- end }}
{{- if and (hasPrefix "locked:" $state) (ne $state (printf "locked:%t" $on)) }}
{{- fail (printf "server.featureGates: cannot set feature gate %s to %t, feature is locked to %s (Kubernetes %s)" $name $on (trimPrefix "locked:" $state) $release) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Milliseconds of a duration the schema has checked: Go's (time.ParseDuration, integer pieces such
as "1h30m", "500ms", "0") or Prometheus' ("30s", "1d", "2w", "1y": model.ParseDuration, a day
24h, a week 7d, a year 365d).
*/}}
{{- define "hpa-webhook.milliseconds" -}}
{{- $units := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "d" 86400000 "w" 604800000 "y" 31536000000 }}
{{- $total := 0 }}
{{- range regexFindAll "[0-9]+(ms|s|m|h|d|w|y)" (toString .) -1 }}
{{- $total = add $total (mul (regexFind "^[0-9]+" . | atoi) (get $units (regexReplaceAll "^[0-9]+" . ""))) }}
{{- end }}
{{- $total }}
{{- end }}

{{/*
Values the schema cannot compare with each other, refused as what they would break:
- the server's shutdown (server.shutdownDelay + server.shutdownTimeout) must end before the
  kubelet's SIGKILL (terminationGracePeriodSeconds), or in-flight admissions are cut;
- a generated serving certificate outliving its CA (certificates.selfSigned) is trusted only
  until the CA expires;
- cert-manager's ValidateDuration: duration at least 1h, renewBefore at least 5m and below
  duration (the Certificate would be refused, and no Secret ever issued);
- serviceMonitor.scrapeTimeout no longer than interval (Prometheus refuses the scrape config).
*/}}
{{- define "hpa-webhook.checkValues" -}}
{{- /* The objects are named after the release, which Helm lets start with a digit or hold a dot:
kube-apiserver refuses such a Service name (ValidateServiceName: a DNS-1035 label). */}}
{{- $fullname := include "hpa-webhook.fullname" . }}
{{- if not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $fullname) }}
{{- fail (printf "Service %q is invalid: metadata.name: Invalid value: %q: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'): the objects are named after the release %q; set fullnameOverride" $fullname $fullname .Release.Name) }}
{{- end }}
{{- $server := .Values.server }}
{{- $shutdown := add (include "hpa-webhook.milliseconds" $server.shutdownDelay | int64) (include "hpa-webhook.milliseconds" $server.shutdownTimeout | int64) }}
{{- if ge $shutdown (mul (int64 .Values.terminationGracePeriodSeconds) 1000) }}
{{- fail (printf "terminationGracePeriodSeconds: %d must be greater than server.shutdownDelay + server.shutdownTimeout (%s + %s): the kubelet would kill the server before it drains" (int64 .Values.terminationGracePeriodSeconds) $server.shutdownDelay $server.shutdownTimeout) }}
{{- end }}
{{- $certificates := .Values.certificates }}
{{- if and (eq $certificates.mode "selfSigned") (lt (int64 $certificates.selfSigned.caValidityDays) (int64 $certificates.selfSigned.certValidityDays)) }}
{{- fail (printf "certificates.selfSigned.caValidityDays: %d must be at least certValidityDays (%d): the serving certificate is trusted only while its CA is valid" (int64 $certificates.selfSigned.caValidityDays) (int64 $certificates.selfSigned.certValidityDays)) }}
{{- end }}
{{- if eq $certificates.mode "certManager" }}
{{- $duration := include "hpa-webhook.milliseconds" $certificates.certManager.duration | int64 }}
{{- $renewBefore := include "hpa-webhook.milliseconds" $certificates.certManager.renewBefore | int64 }}
{{- if lt $duration 3600000 }}
{{- fail (printf "certificates.certManager.duration: %s: certificate duration must be greater than 1h0m0s" $certificates.certManager.duration) }}
{{- end }}
{{- if lt $renewBefore 300000 }}
{{- fail (printf "certificates.certManager.renewBefore: %s: certificate renewBefore must be greater than 5m0s" $certificates.certManager.renewBefore) }}
{{- end }}
{{- if ge $renewBefore $duration }}
{{- fail (printf "certificates.certManager.renewBefore: %s: certificate duration %s must be greater than renewBefore %s" $certificates.certManager.renewBefore $certificates.certManager.duration $certificates.certManager.renewBefore) }}
{{- end }}
{{- end }}
{{- if .Values.serviceMonitor.enabled }}
{{- if gt (include "hpa-webhook.milliseconds" .Values.serviceMonitor.scrapeTimeout | int64) (include "hpa-webhook.milliseconds" .Values.serviceMonitor.interval | int64) }}
{{- fail (printf "serviceMonitor.scrapeTimeout: %s must not be greater than interval %s (Prometheus refuses the scrape config)" .Values.serviceMonitor.scrapeTimeout .Values.serviceMonitor.interval) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The pattern of a CIDR kube-apiserver takes in a NetworkPolicy's ipBlock (ValidateIPBlock:
IsValidCIDRForLegacyField with StrictIPCIDRValidation off, 1.33-1.37, so netutils.ParseCIDRSloppy):
a prefix length up to 32 (IPv4) or 128 (IPv6), leading zeros allowed in octets, hex groups and
the length, bits past the prefix allowed, an IPv6 address with an embedded IPv4 one, no zone, no
space.
*/}}
{{- define "hpa-webhook.cidrPattern" -}}
^((0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])/0*([0-9]|[12][0-9]|3[0-2])|((0*[0-9a-fA-F]{1,4}:){7}0*[0-9a-fA-F]{1,4}|(0*[0-9a-fA-F]{1,4}:){1,7}:|(0*[0-9a-fA-F]{1,4}:){1,6}:0*[0-9a-fA-F]{1,4}|(0*[0-9a-fA-F]{1,4}:){1,5}(:0*[0-9a-fA-F]{1,4}){1,2}|(0*[0-9a-fA-F]{1,4}:){1,4}(:0*[0-9a-fA-F]{1,4}){1,3}|(0*[0-9a-fA-F]{1,4}:){1,3}(:0*[0-9a-fA-F]{1,4}){1,4}|(0*[0-9a-fA-F]{1,4}:){1,2}(:0*[0-9a-fA-F]{1,4}){1,5}|0*[0-9a-fA-F]{1,4}:(:0*[0-9a-fA-F]{1,4}){1,6}|:((:0*[0-9a-fA-F]{1,4}){1,7}|:)|(0*[0-9a-fA-F]{1,4}:){6}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|::(0*[0-9a-fA-F]{1,4}:){0,5}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|(0*[0-9a-fA-F]{1,4}:){1}:(0*[0-9a-fA-F]{1,4}:){0,4}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|(0*[0-9a-fA-F]{1,4}:){2}:(0*[0-9a-fA-F]{1,4}:){0,3}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|(0*[0-9a-fA-F]{1,4}:){3}:(0*[0-9a-fA-F]{1,4}:){0,2}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|(0*[0-9a-fA-F]{1,4}:){4}:(0*[0-9a-fA-F]{1,4}:){0,1}(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])|(0*[0-9a-fA-F]{1,4}:){5}:(0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}0*(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))/0*([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8]))$
{{- end }}

{{/*
The CIDRs among the values (networkPolicy.egress.apiServerCIDRs, and each ingressFrom peer's
ipBlock.cidr and except), refused as kube-apiserver's parseCIDR refuses them, at their values
path. Checked whether or not networkPolicy.enabled, as the schema checks every value.
*/}}
{{- define "hpa-webhook.checkCIDRs" -}}
{{- $pattern := include "hpa-webhook.cidrPattern" . }}
{{- $cidrs := list }}
{{- range $i, $cidr := .Values.networkPolicy.egress.apiServerCIDRs }}
{{- $cidrs = append $cidrs (list (printf "networkPolicy.egress.apiServerCIDRs[%d]" $i) $cidr) }}
{{- end }}
{{- range $i, $peer := .Values.networkPolicy.ingressFrom }}
{{- with $peer.ipBlock }}
{{- $cidrs = append $cidrs (list (printf "networkPolicy.ingressFrom[%d].ipBlock.cidr" $i) .cidr) }}
{{- range $j, $except := (.except | default list) }}
{{- $cidrs = append $cidrs (list (printf "networkPolicy.ingressFrom[%d].ipBlock.except[%d]" $i $j) $except) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $cidrs }}
{{- if not (regexMatch $pattern (index . 1)) }}
{{- fail (printf "%s: Invalid value: %q: must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)" (index . 0) (index . 1)) }}
{{- end }}
{{- end }}
{{- end }}
