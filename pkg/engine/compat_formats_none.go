//go:build k8s1.33

package engine

import "k8s.io/kube-openapi/pkg/validation/spec"

// unrecognizedFormats is nil: Kubernetes 1.33's CRD strategy gives no
// warning for unrecognized formats (GetUnrecognizedFormats arrived in 1.34).
func unrecognizedFormats(*spec.Schema) []string { return nil }
