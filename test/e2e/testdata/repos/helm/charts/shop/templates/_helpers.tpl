{{- define "shop.fullname" -}}
{{ .Release.Name }}-shop
{{- end }}
