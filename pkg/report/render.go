package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Format names an output format. It implements pflag.Value so that it can
// be bound directly to --output.
type Format string

const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
)

// Formats lists every format, in the order help text shows them.
func Formats() []Format { return []Format{Text, JSON, SARIF, GitHub} }

func (f *Format) String() string { return string(*f) }

// Type is what pflag shows as the flag's value placeholder in help text.
func (f *Format) Type() string { return "format" }

func (f *Format) Set(s string) error {
	v := Format(strings.ToLower(s))
	if !slices.Contains(Formats(), v) {
		names := make([]string, 0, len(Formats()))
		for _, f := range Formats() {
			names = append(names, string(f))
		}
		return fmt.Errorf("invalid output format %q: must be one of %s", s, strings.Join(names, ", "))
	}
	*f = v
	return nil
}

// Options holds everything besides the Result that may change the output.
// Formats ignore the options that mean nothing to them.
type Options struct {
	// Color turns on ANSI colour in text output. The caller decides (from
	// --color, NO_COLOR and whether w is a terminal), because only it knows
	// what w is.
	Color bool
	// ToolVersion is reported in SARIF; empty leaves it out.
	ToolVersion string
	// SummaryLine ends text output with a count of what was found.
	SummaryLine bool
}

// Render writes r to w in format f.
//
// Every renderer works on a sorted copy of r.Findings, so the caller's
// slice keeps its order; trims trailing white space from messages; and
// recounts Summary.Errors and Summary.Warnings from the findings, so that
// the summary and the list can never disagree.
func Render(w io.Writer, f Format, r Result, o Options) error {
	switch f {
	case Text:
		return RenderText(w, r, o)
	case JSON:
		return RenderJSON(w, r, o)
	case SARIF:
		return RenderSARIF(w, r, o)
	case GitHub:
		return RenderGitHub(w, r, o)
	}
	return fmt.Errorf("unknown output format %q", string(f))
}

// prepare returns r with its own sorted, non-nil, trimmed findings and
// fresh counts.
func prepare(r Result) Result {
	// Scripts reading JSON or SARIF should see [] rather than null.
	r.Findings = append([]Finding{}, r.Findings...)
	for i := range r.Findings {
		// Server messages sometimes end in a newline, which would become a
		// blank line, or a stray %0A in an annotation.
		r.Findings[i].Message = strings.TrimRightFunc(r.Findings[i].Message, unicode.IsSpace)
	}
	Sort(r.Findings)
	r.Count()
	return r
}

// slashPath gives the file name as CI systems expect it: forward slashes,
// and no "./" that would stop it matching a path in the repository.
func slashPath(file string) string {
	p := filepath.ToSlash(file)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// withField appends the field path in the form every format uses.
func withField(msg, field string) string {
	if field == "" {
		return msg
	}
	return msg + " [" + field + "]"
}
