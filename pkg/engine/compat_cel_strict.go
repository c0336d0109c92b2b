//go:build k8s1.33 || k8s1.34

package engine

import "k8s.io/apiserver/pkg/cel/environment"

// baseEnvSet is the CEL environment the server compiles a CRD's rules in
// on create: Kubernetes 1.33 and 1.34 pass strictCost true for CRDs
// (apiextensions-apiserver's validation.go and schema/cel/validation.go).
func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true)
}
