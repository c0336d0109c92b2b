//go:build !(k8s1.33 || k8s1.34)

package crd

import "k8s.io/apiserver/pkg/cel/environment"

// baseEnvSet is the CEL environment set the server compiles CRD rules
// with (validation.go's celEnvironmentSet). From Kubernetes 1.35 the
// strict cost is always on and MustBaseEnvSet takes only the version.
func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
}
