// Package lint turns the server's verdicts into findings a person can
// act on: each at file:line:column, under a stable rule ID, in the
// server's words where it has them. It holds the linter's rules (Rules,
// which pkg/ruleset joins with the other packages') and the rules beyond
// the server (warnings about what the server accepts but users regret).
//
// What the server says comes from pkg/engine, reached through pkg/crd:
// a CRD's create verdict (CRD, from crd.Definition.Verdict), a custom
// resource's create verdict against the version of its CRD the catalogue
// compiled (CR), an update's verdict between two revisions (Update,
// Updates, with the Immutable Fields design's markers from
// pkg/immutable). lint maps the server's internal field paths back to
// the user's (translatePath), names the part of the server an error came
// from (classify, the engine's Explain), and positions every finding
// with source.Document.Locate (finding).
//
// It reads no files, and prints only to the writer it is given what a
// command shows beside the findings: the --cel-costs listing
// (PrintCELCosts) and the notes on custom resources left unjudged
// (Missing.Notes). pkg/input hands it parsed documents, pkg/report
// renders the findings.
//
//	l := lint.New(lint.Options{Catalog: cat})
//	findings, summary := l.File(parsedFile)
package lint
