// Package e2e holds no code: its tests run the built kubectl-crdlint
// binary as users do. Against a real API server started in-process
// (internal/apiservertest): the cluster sources of every command, the
// kubectl connection flags, lists read in pages, the plugin run through
// kubectl, and the error cases a user meets (RBAC, credentials, TLS,
// timeouts, a stopped server). Over fixture repositories shaped like
// kubebuilder, Helm, kustomize and operator projects (testdata/repos):
// no command crashes, what is no manifest gets no error, every planted
// problem is found. And several runs at once on one cache directory.
package e2e
