// Package crdtest runs CRD validation tests without a cluster or envtest:
// requests for custom resources (create, update, a write of the status
// subresource) go through the API server's own code in pkg/engine, to the
// CRD version pkg/crd's catalogue of the suite's CRDs finds, and the
// answers are shaped as the server's (*apierrors.StatusError).
//
// Two ways in:
//
//   - Suites (kubectl crdlint test): YAML files read by Read — crdlint's
//     format (apiVersion crdlint.dev/v1alpha1, kind CRDTestSuite, named
//     *.crdtest.yaml) or openshift/api's tests/<crd>/*.yaml as they are —
//     run by RunMinors (Run: in process only) on Servers into Results, rendered as text, JSON, JUnit
//     or GitHub annotations; Record writes the server's answers back as
//     expectations (--update).
//   - Go tests: Load (files, directories) or LoadFS (embed.FS) gives a
//     Server whose Create, Update, UpdateStatus and Stored take the
//     objects a client would and return the errors a client would get.
//
// It leaves the server's semantics to pkg/engine (through pkg/crd's
// catalogue), reading CRD sources (URLs, the configuration) to the
// command. Each Kubernetes minor is judged by
// its own engine: Own, the minor whose libraries this binary links, in
// process; the others by their builds of kubectl-crdlint, which the
// command starts and RunMinors hands their cases (engines.go).
//
// Example (a Go test):
//
//	srv, _ := crdtest.Load("config/crd/bases")
//	err := srv.Update(oldWidget, newWidget)
//	if !apierrors.IsInvalid(err) { t.Fatal("want a refusal") }
package crdtest
