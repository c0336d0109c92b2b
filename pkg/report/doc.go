// Package report turns a linter's findings into output for people and for
// machines: text for terminals, JSON for scripts, SARIF for code scanning
// and workflow commands for GitHub Actions annotations.
//
// It knows nothing about Kubernetes. A Finding is already a file position,
// a rule ID and a message; finding them is the lint package's job, and
// reading files is the source package's. Deciding whether to colour, which
// format to use and what exit status the findings deserve (see
// Result.Fails) are left to the command, which knows the terminal and the
// flags.
//
// The JSON and SARIF shapes are contracts: keys may be added, never
// renamed.
//
// Example:
//
//	r := report.Result{
//		Findings: []report.Finding{{
//			Rule:     "crd-structural",
//			Severity: report.Error,
//			Message:  "must not be empty",
//			File:     "crds/widget.yaml",
//			Line:     12,
//			Column:   7,
//		}},
//		Summary: report.Summary{Files: 1, Documents: 1},
//	}
//	_ = report.Render(os.Stdout, report.Text, r, report.Options{SummaryLine: true})
//
// prints
//
//	crds/widget.yaml:12:7: error crd-structural: must not be empty
//	1 error in 1 file (1 document)
package report
