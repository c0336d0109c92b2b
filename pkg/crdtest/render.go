package crdtest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// jsonOutput is the JSON format: a contract (fields are added, never
// changed).
type jsonOutput struct {
	Results []*Result `json:"results"`
	// Errors are the suites that cannot be read, Warnings what reading
	// them ignored.
	Errors   []jsonError `json:"errors,omitempty"`
	Warnings []jsonError `json:"warnings,omitempty"`
	Summary  jsonSummary `json:"summary"`
}

type jsonSummary struct {
	Suites     int `json:"suites"`
	Cases      int `json:"cases"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Unreadable int `json:"unreadable,omitempty"`
}

type jsonError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

func jsonErrors(es []*Error) []jsonError {
	var out []jsonError
	for _, e := range es {
		out = append(out, jsonError{e.File, e.Pos.Line, e.Pos.Column, e.Msg})
	}
	return out
}

// RenderJSON writes every result and the summary (without the elapsed
// time, which would make the output differ between runs).
func RenderJSON(w io.Writer, rs []*Result, sum Summary) error {
	if rs == nil {
		rs = []*Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonOutput{Results: rs, Errors: jsonErrors(sum.Unreadable), Warnings: jsonErrors(sum.Warnings), Summary: jsonSummary{sum.Suites, sum.Cases, sum.Passed, sum.Failed, len(sum.Unreadable)}})
}

// RenderJUnit writes one <testsuite> per suite file and one <testcase>
// per case and engine, named by the case's name (with its minors when a
// case runs on more than one engine): a failed expectation is a
// <failure> whose text is the text output's, a case that could not run
// an <error>. A suite that cannot be read is a <testsuite> of one
// <testcase> named after its file, with an <error> at its position.
func RenderJUnit(w io.Writer, rs []*Result, sum Summary) error {
	out := report.JUnitSuites{Name: "kubectl-crdlint test"}
	idx := map[string]int{}
	for _, r := range rs {
		i, ok := idx[r.File]
		if !ok {
			i = len(out.Suites)
			idx[r.File] = i
			out.Suites = append(out.Suites, report.JUnitSuite{Name: r.Suite, File: r.File})
		}
		s := &out.Suites[i]
		c := report.JUnitCase{Name: r.Name(), ClassName: r.Suite + " (" + minorsText(r) + ")", File: r.File, Line: r.Line}
		switch {
		case r.Error != "":
			c.Error = &report.JUnitFailure{Message: r.Error, Type: "error", Text: r.Error}
			s.Errors++
			out.Errors++
		case !r.Passed:
			var b strings.Builder
			for _, d := range r.Diffs {
				fmt.Fprintf(&b, "%s:\n", d.What)
				writeBlock(&b, "expected: ", d.Expected)
				writeBlock(&b, "actual:   ", d.Actual)
			}
			c.Failure = &report.JUnitFailure{Message: failureSummary(r), Type: "expectation", Text: b.String()}
			s.Failures++
			out.Failures++
		}
		s.Tests++
		out.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, e := range sum.Unreadable {
		out.Suites = append(out.Suites, report.JUnitSuite{Name: e.File, File: e.File, Tests: 1, Errors: 1, Cases: []report.JUnitCase{{
			Name: "read " + e.File, ClassName: e.File, File: e.File, Line: e.Pos.Line,
			Error: &report.JUnitFailure{Message: e.Error(), Type: "unreadable", Text: e.Error()},
		}}})
		out.Tests++
		out.Errors++
	}
	return report.WriteJUnit(w, out)
}

// failureSummary is one line: what differs.
func failureSummary(r *Result) string {
	if r.Error != "" {
		return r.Error
	}
	var what []string
	for _, d := range r.Diffs {
		what = append(what, d.What)
	}
	return "expectation not met: " + strings.Join(what, ", ")
}

// RenderGitHub writes one error annotation per failed case, at the
// case's line in its suite, one per suite that cannot be read and a
// warning per key reading ignored, at their positions.
func RenderGitHub(w io.Writer, rs []*Result, sum Summary) error {
	var b strings.Builder
	for _, e := range sum.Unreadable {
		b.WriteString(report.GitHubCommand("error", e.File, e.Pos.Line, e.Pos.Column, "crdtest: the suite cannot be read", e.Msg))
	}
	for _, e := range sum.Warnings {
		b.WriteString(report.GitHubCommand("warning", e.File, e.Pos.Line, e.Pos.Column, "crdtest: ignored", e.Msg))
	}
	for _, r := range rs {
		if r.Passed {
			continue
		}
		var msg strings.Builder
		msg.WriteString(failureSummary(r) + "\n")
		for _, d := range r.Diffs {
			fmt.Fprintf(&msg, "%s:\n", d.What)
			writeBlock(&msg, "expected: ", d.Expected)
			writeBlock(&msg, "actual:   ", d.Actual)
		}
		b.WriteString(report.GitHubCommand("error", r.File, r.Pos.Line, r.Pos.Column, "crdtest: "+r.Name()+" ("+minorsText(r)+")", strings.TrimRight(msg.String(), "\n")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Filter is the suite with only the cases whose name keep accepts.
func (s *Suite) Filter(keep func(string) bool) *Suite {
	out := *s
	out.Cases = nil
	for _, c := range s.Cases {
		if keep(c.Name) {
			out.Cases = append(out.Cases, c)
		}
	}
	return &out
}
