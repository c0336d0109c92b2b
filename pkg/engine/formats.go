package engine

import "k8s.io/kube-openapi/pkg/validation/spec"

// UnrecognizedFormats returns the formats of a schema node the server
// warns about on create ("unrecognized format"), as its strategy computes
// them for the default compatibility version.
func UnrecognizedFormats(format, typ string) []string {
	if format == "" {
		return nil
	}
	ss := &spec.Schema{SchemaProps: spec.SchemaProps{Format: format}}
	if typ != "" {
		ss.Type = spec.StringOrArray{typ}
	}
	return unrecognizedFormats(ss)
}
