// Package crd is the API server, offline: the one package that runs
// k8s.io/apiextensions-apiserver's code, unchanged.
//
// For CustomResourceDefinitions it decodes a document's JSON as the
// server decodes a request (Decode: strict decoding, v1 defaulting; once
// per CRD), and gives the server's verdict on a create (Definition.Verdict:
// conversion, PrepareForCreate, the strategy's validation and warnings,
// with the CEL cost estimates the validation computes) or an update
// (ValidateUpdate). The verdict is computed once per Definition and
// shared by everything that needs it.
//
// For custom resources it keeps a Catalog of CRDs by group and kind, in
// layers (--crd and crds:, inputs, cluster; among the inputs the one
// nearest a custom resource judges it: judge.go), and compiles each
// served version on first use as the server's CRD handler does
// (structural schema with pruned defaults, OpenAPI validator, custom
// resource strategy with its CEL programs). A Version runs creates, updates and pruning through the
// server's own steps; Catalog.Lookup says, in one message every command
// shows, why a kind cannot be served (*LookupError).
//
// It prints nothing and knows no positions: pkg/lint turns verdicts into
// findings at file:line:column, pkg/prune writes pruned objects back,
// pkg/fields lists selectable fields, pkg/input feeds it CRDs.
package crd
