// Package agreement holds no code: its tests check crdlint against a real
// API server started in-process (internal/apiservertest). For every CRD
// and custom resource of the repository's examples and test data, of
// deterministic variants of them, and of a slice of the shared corpus,
// crdlint's offline verdict must equal the server's server-side dry-run
// create, under fieldValidation=Strict and Warn, with the message
// differences docs/rules.md documents and no others, and prune's output
// must equal the object the dry run returns (TestAgreement). The other
// tests hold the rest to the server the same way: kubectl apply's
// requests under each --validate (TestKubectlApply), the request and
// etcd size limits (TestSizeLimits), and writes of the status
// subresource (TestStatusUpdate).
package agreement
