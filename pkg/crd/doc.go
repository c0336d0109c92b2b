// Package crd keeps the CRDs of a run and asks pkg/engine, the server,
// about them as few times as it can: what a document is (Classify), a
// CRD decoded once (Definition), and the catalogue of CRDs that judges
// custom resources (Catalog).
//
// A Definition is a document's CRD as the server decodes a request
// (Decode, engine.DecodeCRD: strict decoding, v1 defaulting; once per
// CRD), with the server's verdict on a create (Definition.Verdict,
// engine.ValidateCreate, with the CEL cost estimates when asked) or an
// update (ValidateUpdate) computed once and shared by everything that
// needs it. In a catalogue it is shed: its decoded schemas go, to be
// decoded again from its JSON for a compile (Object), and its verdict
// shrinks to the answer a lookup needs, which the verdict cache keeps
// between runs (Judged, Answer).
//
// The Catalog holds CRDs by group and kind, in layers (--crd and crds:,
// inputs, cluster; among the inputs the one nearest a custom resource
// judges it: judge.go), reads the files of CRDs it is given (DeferFiles:
// --crd, crds:) itself, each when a lookup may need it (files.go, with a
// Hint scanned from a file's text or an Index its Cache kept; the Cache,
// the catalogue's one interface to the verdict cache, also keeps the
// files' CRDs as JSON and their verdicts' answers), and compiles each
// served version on first use
// (engine.Compile), keeping compiled versions within a budget (vcache.go).
// Catalog.Lookup says, in one message every command shows, why a kind
// cannot be served (*LookupError).
//
// It prints nothing and knows no positions: pkg/lint turns verdicts into
// findings at file:line:column, pkg/prune writes pruned objects back,
// pkg/fields lists selectable fields, pkg/input adds the inputs' CRDs.
package crd
