{{/*
The chart's name, or nameOverride: the app.kubernetes.io/name of every object.
*/}}
{{- define "foo-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: fullnameOverride, else the release's name, followed by the
chart's unless the release's name holds it already (release foo-operator: foo-operator-...).
*/}}
{{- define "foo-operator.fullname" -}}
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

{{/*
An object's name: the fullname and a suffix, within the 63 characters of a label value.
Called with (dict "suffix" "..." "context" $).
*/}}
{{- define "foo-operator.resourceName" -}}
{{- $fullname := include "foo-operator.fullname" .context }}
{{- $maxLen := sub 62 (len .suffix) | int }}
{{- printf "%s-%s" ($fullname | trunc $maxLen | trimSuffix "-") .suffix | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels that select the manager's pods: the app and the release, so that two releases in
one namespace never select each other's pods. They never change across versions: a
Deployment's selector cannot.
*/}}
{{- define "foo-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "foo-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The labels of every object the chart makes.
*/}}
{{- define "foo-operator.labels" -}}
{{ include "foo-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The ServiceAccount the manager runs as: the chart's, or serviceAccount.name when the chart
makes none.
*/}}
{{- define "foo-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "foo-operator.resourceName" (dict "suffix" "controller-manager" "context" .)) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name: the chart makes no ServiceAccount (serviceAccount.create=false), so name the one the manager runs as" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The manager's image: repository@digest when a digest is given, else repository:tag, the tag
defaulting to v and the chart's appVersion.
*/}}
{{- define "foo-operator.image" -}}
{{- with .Values.manager.image }}
{{- if .digest }}
{{- printf "%s@%s" .repository .digest }}
{{- else }}
{{- printf "%s:%s" .repository (default (printf "v%s" $.Chart.AppVersion) .tag) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The rules of one of config/rbac's roles, which `make helm-chart` copies into files/rbac/.
*/}}
{{- define "foo-operator.rules" -}}
{{- $role := .context.Files.Get (printf "files/rbac/%s.yaml" .role) | fromYaml }}
{{- required (printf "files/rbac/%s.yaml has no rules: run make helm-chart" .role) $role.rules | toYaml }}
{{- end }}

{{/*
The name of the metrics port, on the container and the Service: https when secure.
*/}}
{{- define "foo-operator.metricsPortName" -}}
{{- if .Values.metrics.secure }}https{{ else }}http{{ end }}
{{- end }}

{{/*
Refuses values that render but could not run: checked before anything is installed.
*/}}
{{- define "foo-operator.validate" -}}
{{- if and .Values.rbac.namespaced (empty .Values.watchNamespaces) }}
{{- fail "rbac.namespaced=true grants the manager Roles in the namespaces it watches only: list them in watchNamespaces" }}
{{- end }}
{{- if and (gt (int .Values.manager.replicas) 1) (not .Values.manager.leaderElection.enabled) }}
{{- fail "manager.replicas above 1 needs manager.leaderElection.enabled=true: without it every replica reconciles every Foo" }}
{{- end }}
{{- if eq (int .Values.metrics.port) (int .Values.manager.healthProbe.port) }}
{{- if .Values.metrics.enabled }}
{{- fail (printf "metrics.port and manager.healthProbe.port are both %d: the manager cannot serve both on one port" (int .Values.metrics.port)) }}
{{- end }}
{{- end }}
{{- if and .Values.prometheus.enabled (not .Values.metrics.enabled) }}
{{- fail "prometheus.enabled=true scrapes the metrics endpoint: it needs metrics.enabled=true" }}
{{- end }}
{{- if and .Values.networkPolicy.enabled (not .Values.metrics.enabled) }}
{{- fail "networkPolicy.enabled=true admits traffic to the metrics endpoint only: it needs metrics.enabled=true" }}
{{- end }}
{{- end }}

{{/*
The labels of the test hook's objects: the chart's, with the component that sets them apart
from the manager's pods, which the Service and the NetworkPolicy select.
*/}}
{{- define "foo-operator.selftestLabels" -}}
{{ include "foo-operator.labels" . }}
app.kubernetes.io/component: selftest
{{- end }}

{{/*
The annotations that make an object part of `helm test`, created in the order of weight.
*/}}
{{- define "foo-operator.selftestHook" -}}
helm.sh/hook: test
helm.sh/hook-weight: {{ .weight | quote }}
helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
{{- end }}
