{{/* Labels every object carries. */}}
{{- define "arbiter.labels" -}}
app.kubernetes.io/name: arbiter
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: arbiter
{{- end }}

{{/* The image of both binaries. */}}
{{- define "arbiter.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end }}

{{/* The pod security context: non-root, the image's user. */}}
{{- define "arbiter.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* The container security context: nothing more than a process needs. */}}
{{- define "arbiter.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end }}
