{{- define "lib.name" -}}lib{{- end }}
