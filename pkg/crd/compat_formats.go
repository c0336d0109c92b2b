//go:build !k8s1.33

package crd

import (
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// unrecognizedFormats are the formats the CRD strategy warns about
// (GetUnrecognizedFormats, from Kubernetes 1.34).
func unrecognizedFormats(s *spec.Schema) []string {
	return apiservervalidation.GetUnrecognizedFormats(s, environment.DefaultCompatibilityVersion())
}
