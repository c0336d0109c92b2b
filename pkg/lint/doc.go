// Package lint turns the server's verdicts into findings a person can
// act on: each at file:line:column, under a stable rule ID, in the
// server's words where it has them. It holds the rule set (Rules)
// and the rules beyond the server (warnings about what the server
// accepts but users regret).
//
// What the server says comes from pkg/crd: a CRD's create verdict (CRD),
// a custom resource's create verdict against its CRD's compiled version
// (CR), an update's verdict between two revisions (Update, Updates, with
// the Immutable Fields design's markers from pkg/immutable). lint maps
// the server's internal field paths back to the user's (translatePath),
// names the part of the server an error came from (classify, crd's
// Explain), and positions every finding with source.Document.Locate
// (Finding).
//
// It reads no files and prints nothing: pkg/input hands it parsed
// documents, pkg/report renders what it finds.
//
//	l := lint.New(lint.Options{Catalog: cat})
//	findings, skipped := l.File(parsedFile)
package lint
