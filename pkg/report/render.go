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
	JUnit  Format = "junit"
	GitLab Format = "gitlab"
)

// Formats lists every format, in the order help text shows them.
func Formats() []Format { return []Format{Text, JSON, SARIF, GitHub, JUnit, GitLab} }

// FormatNames lists the formats' names, for flag help and completion.
func FormatNames() []string {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return names
}

func (f *Format) String() string { return string(*f) }

// Type is what pflag shows as the flag's value placeholder in help text.
func (f *Format) Type() string { return "format" }

func (f *Format) Set(s string) error {
	v := Format(strings.ToLower(s))
	if !slices.Contains(Formats(), v) {
		return fmt.Errorf("invalid output format %q: must be one of %s", s, strings.Join(FormatNames(), ", "))
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
	// FailOn is the command's --fail-on. JUnit marks warnings as failures
	// only when it is Warning, so that warnings turn the test report red
	// only when they fail the job; errors are failures whatever it is (the
	// server rejects them). The zero value suits every other format.
	FailOn Severity
}

// Render writes r to w in format f.
//
// Every renderer works on a sorted copy of r.Findings, so the caller's
// slice keeps its order; trims trailing white space from messages; drops
// the server's "<nil>" field; names the object of findings that lack one
// when their document's object is known; and recounts Summary.Errors,
// Warnings and Suppressed from the findings, so that the summary and the
// list can never disagree.
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
	case JUnit:
		return RenderJUnit(w, r, o)
	case GitLab:
		return RenderGitLab(w, r, o)
	}
	return fmt.Errorf("unknown output format %q", string(f))
}

// prepare returns r with its own sorted, non-nil, trimmed findings and
// fresh counts.
func prepare(r Result) Result {
	// Scripts reading JSON or SARIF should see [] rather than null.
	r.Findings = append([]Finding{}, r.Findings...)
	for i := range r.Findings {
		f := &r.Findings[i]
		// Server messages sometimes end in a newline, which would become a
		// blank line, or a stray %0A in an annotation.
		f.Message = strings.TrimRightFunc(f.Message, unicode.IsSpace)
		// The server prints a nil field path (the object itself) as
		// "<nil>"; in our output the object root has no field.
		if f.Field == nilPath {
			f.Field = ""
		}
	}
	fillObjects(r)
	Sort(r.Findings)
	r.Count()
	return r
}

// fillObjects names the object of findings that carry none (the loader's,
// such as duplicate-field, are made before the document is decoded) when
// the run knows exactly one object for their file and document. A List
// document holds several objects; its findings stay unnamed rather than
// be pinned on the wrong one.
func fillObjects(r Result) {
	type doc struct {
		file  string
		index int
	}
	known := map[doc]ObjectRef{}
	ambiguous := map[doc]bool{}
	add := func(file string, index int, o ObjectRef) {
		if o.Kind == "" {
			return
		}
		d := doc{slashPath(file), index}
		if prev, ok := known[d]; ok && prev != o {
			ambiguous[d] = true
		}
		known[d] = o
	}
	for _, c := range r.Summary.Checked {
		add(c.File, c.Document, c.Object)
	}
	for _, f := range r.Findings {
		add(f.File, f.Document, f.Object)
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		d := doc{slashPath(f.File), f.Document}
		// Line 0 is about the file as a whole, not one of its documents.
		if f.Object.Kind == "" && f.Line > 0 && !ambiguous[d] {
			if o, ok := known[d]; ok {
				f.Object = o
			}
		}
	}
}

// nilPath is how field.Path prints a nil path.
const nilPath = "<nil>"

// active returns the findings that are not suppressed, for the formats
// that leave suppressed findings out.
func active(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Suppressed == nil {
			out = append(out, f)
		}
	}
	return out
}

// subject is how a line of text names the finding's object, with the
// separator that follows it; empty when the object is unknown, or when
// the message already starts with it ("Widget shop/w2 is only in the new
// revision").
func subject(f Finding) string {
	s := f.Object.String()
	if s == "" || strings.HasPrefix(f.Message, s+" ") || strings.HasPrefix(f.Message, s+":") {
		return ""
	}
	return s + ": "
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
