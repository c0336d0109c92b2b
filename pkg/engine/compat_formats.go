//go:build !k8s1.33

package engine

// validation.GetUnrecognizedFormats exists from apiextensions-apiserver
// v0.34 (1.34); 1.33 warns about no format. A minor with another API
// gets a build-tagged copy of this file.

import (
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// unrecognizedFormats are the formats of ss the server's strategy warns
// about on create, for the default compatibility version.
func unrecognizedFormats(ss *spec.Schema) []string {
	return apiservervalidation.GetUnrecognizedFormats(ss, environment.DefaultCompatibilityVersion())
}
