// Package report turns a linter's findings into output for people and for
// machines: text for terminals, JSON for scripts, SARIF for code scanning,
// workflow commands for GitHub Actions annotations, JUnit XML for CI test
// views and GitLab Code Quality JSON for merge requests; the JUnit shapes
// (JUnitSuites, WriteJUnit) write kubectl crdlint test's report too. It
// also prints the rule set (RenderRules) and holds each rule's prose
// (Rule.Help, filled by WithProse from the rule packages' Prose), so
// that --list-rules, the rule pages and SARIF's rule help say the same;
// RulePageForTerminal makes a rule page readable where its relative links
// cannot be followed.
//
// It knows nothing about Kubernetes beyond an object's kind, namespace and
// name. A Finding is already a file position, a rule ID and a message;
// finding them is the lint package's job, and reading files is the source
// package's. Deciding whether to colour, which format to use and what exit
// status the findings deserve (see Result.Fails) are left to the command,
// which knows the terminal and the flags; deciding what to suppress is left
// to whoever sets Finding.Suppressed (inline comments, the configuration,
// a baseline). Suppressed findings are kept out of the counts and Fails,
// listed only by JSON and SARIF.
//
// What every format shares: findings sorted once (file, document, line,
// column, rule), messages trimmed, the server's "<nil>" field of a finding
// on the object root turned into no field, findings without an object
// attributed to their document's object when the run knows exactly one,
// and Finding.Fingerprint as the identity that survives unrelated edits
// (GitLab's fingerprints, SARIF's partialFingerprints, baselines).
//
// The JSON, SARIF, JUnit and GitLab shapes are contracts: keys may be
// added, never renamed.
//
// Example (ExampleRender):
//
//	r := report.Result{
//		Findings: []report.Finding{{
//			Rule:     "crd-structural",
//			Severity: report.Error,
//			Message:  "Required value: must not be empty for specified object fields",
//			Field:    "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
//			File:     "crds/widget.yaml",
//			Line:     12,
//			Column:   7,
//			Object:   report.ObjectRef{Kind: "CustomResourceDefinition", Name: "widgets.example.com"},
//		}},
//		Summary: report.Summary{Files: 1, Documents: 1, CRDs: 1},
//	}
//	_ = report.Render(os.Stdout, report.Text, r, report.Options{SummaryLine: true})
//
// prints
//
//	crds/widget.yaml:12:7: error crd-structural: CustomResourceDefinition widgets.example.com: Required value: must not be empty for specified object fields [spec.versions[0].schema.openAPIV3Schema.properties[spec].type]
//	1 error in 1 file (1 document: 1 CRD, 0 custom resources validated)
package report
