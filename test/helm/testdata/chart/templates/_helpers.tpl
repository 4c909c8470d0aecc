{{- define "every-kind.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "every-kind.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "every-kind.podSpec" -}}
serviceAccountName: {{ .Release.Name }}
containers:
- name: app
  image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
  env:
  - name: GREETING
    valueFrom:
      configMapKeyRef:
        name: {{ .Release.Name }}
        key: greeting
  ports:
  - containerPort: {{ .Values.networkPolicy.port }}
{{- end -}}
