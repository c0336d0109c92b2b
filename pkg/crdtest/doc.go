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
//     run by Run on a Server into Results, rendered as text, JSON, JUnit
//     or GitHub annotations; Record writes the server's answers back as
//     expectations (--update).
//   - Go tests: Load (files, directories) or LoadFS (embed.FS) gives a
//     Server whose Create, Update, UpdateStatus and Stored take the
//     objects a client would and return the errors a client would get.
//
// It leaves the server's semantics to pkg/crd, reading CRD sources (URLs,
// the configuration) to the command, and a Kubernetes minor's engine to
// engineFor (today every minor is judged by the libraries this binary
// links, Own).
//
// Example (a Go test):
//
//	srv, _ := crdtest.Load("config/crd/bases")
//	err := srv.Update(oldWidget, newWidget)
//	if !apierrors.IsInvalid(err) { t.Fatal("want a refusal") }
package crdtest
