{{/* Names and labels shared by every template. */}}

{{- define "pgbench-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "pgbench-operator.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "pgbench-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pgbench-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "pgbench-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "pgbench-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: pgbench-operator
{{- end -}}

{{- define "pgbench-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "pgbench-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
An image reference from {repository, tag, digest}: image.registry, when set, replaces the registry
(the first path element) of the repository, for both images; a digest pins the image
(repository@sha256:...) and wins over the tag; the tag defaults to the chart's appVersion.
*/}}
{{- define "pgbench-operator.imageRef" -}}
{{- $img := index . 0 -}}{{- $root := index . 1 -}}
{{- $repo := $img.repository -}}
{{- with $root.Values.image.registry -}}
{{- $parts := splitList "/" $repo -}}
{{- $repo = printf "%s/%s" . (join "/" (rest $parts)) -}}
{{- end -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $repo $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (default $root.Chart.AppVersion $img.tag) -}}
{{- end -}}
{{- end -}}

{{- define "pgbench-operator.image" -}}
{{- include "pgbench-operator.imageRef" (list .Values.image .) -}}
{{- end -}}

{{- define "pgbench-operator.runnerImage" -}}
{{- include "pgbench-operator.imageRef" (list .Values.runnerImage .) -}}
{{- end -}}

{{/*
The permissions the operator uses on the namespaces it watches, and nothing more:
  - BenchmarkRuns: read and watch; write only the status subresource; update on finalizers is
    what setting blockOwnerDeletion in the children's ownerReferences requires where the
    OwnerReferencesPermissionEnforcement admission plugin is on;
  - Jobs (init and run) and their Pods: create, watch by label, delete on cleanupPolicy Delete;
    the result is read from the pod log (pods/log get); the run's worker pods are patched once
    with the start barrier annotation (pgbench.dev/start-at) when all of them are ready;
  - PVCs for fio, HPAs for scale-out runs; the HPA's scale target is only read;
  - core/v1 Events for every phase transition;
  - one ConfigMap per finished run, <run>-result (the whole result): create, and get + update
    only when a create finds one left by an earlier run of that name; never listed or watched;
  - BenchmarkRun status is written with merge patches (update kept for a PUT fallback).
No Secrets: pods receive the password through secretKeyRef, the operator never reads it.
*/}}
{{- define "pgbench-operator.rules" -}}
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarkruns"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarkruns/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarkruns/finalizers", "benchmarksweeps/finalizers"]
  verbs: ["update"]
# BenchmarkSweeps: read, their status written, their runs created (ownerReference to the sweep)
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarksweeps"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarksweeps/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["pgbench.dev"]
  resources: ["benchmarkruns"]
  verbs: ["create"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "delete"]
# patch: the start barrier annotation on the run's worker pods
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "create", "delete"]
# the result ConfigMap <run>-result: created before the status that ends a run; on 409 read back
# and replaced when it differs
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "create", "update"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "create", "delete"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments", "statefulsets/scale", "deployments/scale"]
  verbs: ["get"]
# events: the run's own (create), and the Warnings that say why a worker cannot start (list,
# watch: FailedMount, ProvisioningFailed, FailedCreate)
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "list", "watch"]
{{- end -}}
