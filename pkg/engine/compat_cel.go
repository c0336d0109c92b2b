//go:build !(k8s1.33 || k8s1.34)

package engine

// The CEL environment's API differs between the Kubernetes minors the
// engine is built for: environment.MustBaseEnvSet takes a strictCost
// argument before apiserver v0.35 (1.33-1.34). A minor with another API
// gets a build-tagged copy of this file.

import "k8s.io/apiserver/pkg/cel/environment"

// baseEnvSet is the CEL environment the server compiles a CRD's rules in
// on create, at its default compatibility version.
func baseEnvSet() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
}
