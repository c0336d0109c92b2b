package lint

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Options tune a Linter.
type Options struct {
	// Validate is the request's field validation (kubectl's --validate):
	// under Strict, kubectl's default, an unknown field is an error and
	// ends the request before validation, as the server's 400 does; under
	// Warn (the zero value, the server's default) it is a warning; under
	// Ignore it is no finding. A repeated key is a warning under Strict
	// and Warn (kubectl sends its last value: the server never sees it)
	// and no finding under Ignore.
	Validate fieldvalidation.Directive
	// Catalog holds the CRDs custom resources are validated against; nil
	// skips custom resources.
	Catalog *crd.Catalog
	// MissingCRDs says what a custom resource whose CRD is not found is:
	// an error (the default, as the server answers 404), a warning, or
	// nothing.
	MissingCRDs Missing
}

// Missing is what to make of a custom resource whose CRD is not found.
type Missing string

const (
	MissingError  Missing = "error"
	MissingWarn   Missing = "warn"
	MissingIgnore Missing = "ignore"
)

// ParseMissing reads --missing-crds.
func ParseMissing(s string) (Missing, error) {
	switch m := Missing(s); m {
	case MissingError, MissingWarn, MissingIgnore:
		return m, nil
	}
	return "", fmt.Errorf("invalid value %q: must be one of error, warn, ignore", s)
}

// Linter judges documents as the API server would. It is safe for
// concurrent use.
type Linter struct {
	opts Options
	// costs are the CEL cost estimates of the run's CRDs, shared: CRDs
	// repeat types with rules.
	costs *engine.CostCache
	// rejected holds, by *crd.Definition, why the server refuses a CRD
	// (rejectedBecause).
	rejected sync.Map
}

// New returns a Linter.
func New(opts Options) *Linter {
	return &Linter{opts: opts, costs: engine.NewCostCache()}
}

// Reasons a document is skipped, as summaries count them (every command
// counts with these words, and input's for whole files).
const (
	SkipNotObject = source.SkipNotObject
	SkipBuiltin   = crd.SkipBuiltin
	SkipConfig    = crd.SkipConfig
)

// File lints every document of a parsed file: the loader's findings, its
// CRDs (decoded here; a caller that decoded them already uses CRD) and its
// custom resources. It returns the findings and what it judged: the
// documents, CRDs, custom resources validated and not (and why), and the
// documents skipped (and why).
func (l *Linter) File(f *source.File) ([]report.Finding, report.Summary) {
	out := l.Loaded(f.Findings)
	sum := report.Summary{Documents: f.Count}
	sum.Add(f.Skips())
	for _, d := range f.Documents {
		class := l.opts.Catalog.Classify(d)
		switch {
		case class == crd.ClassCRD:
			sum.CRDs++
			sum.Check(Checked(d, ""))
			out = append(out, l.CRD(d, nil)...)
		case class != crd.ClassCustomResource:
			// Built-in kinds are the server's, configuration a tool's:
			// not ours to judge.
			sum.Skip(class.Skip())
			sum.Check(Checked(d, class.Skip()))
		case l.opts.Catalog == nil:
			sum.NotValid(crd.NoCRD.String())
			sum.Check(Checked(d, NotValidated(crd.NoCRD.String())))
		default:
			fs, why := l.cr(d)
			out = append(out, fs...)
			if why == "" {
				sum.CustomResources++
			} else {
				sum.NotValid(why)
				why = NotValidated(why)
			}
			sum.Check(Checked(d, why))
		}
	}
	return out, sum
}

// Checked is d as a summary lists it (report.Summary.Check); skipped says
// why it was not judged, empty when it was.
func Checked(d *source.Document, skipped string) report.Checked {
	return report.Checked{File: d.File, Document: d.Index, Object: d.Object, Skipped: skipped}
}

// NotValidated is why a custom resource was not validated, as a skipped
// test case says it: "not validated: no CRD".
func NotValidated(why string) string { return "not validated: " + why }

// Loaded are the loader's findings of a file (source.File.Findings) as
// the field validation makes them: a copy, without the repeated keys
// under Ignore.
func (l *Linter) Loaded(fs []report.Finding) []report.Finding {
	out := make([]report.Finding, 0, len(fs))
	for _, f := range fs {
		if f, ok := l.adjust(f); ok {
			out = append(out, f)
		}
	}
	return out
}

// adjust applies the field validation to the findings that depend on it:
// an unknown field is an error under Strict, a warning under Warn; an
// unknown field or a repeated key is no finding under Ignore (ok false).
func (l *Linter) adjust(f report.Finding) (_ report.Finding, ok bool) {
	switch {
	case f.Rule != source.RuleDuplicate && f.Rule != RuleUnknownField:
		return f, true
	case !l.opts.Validate.Reports():
		return f, false
	case f.Rule == RuleUnknownField && l.opts.Validate.Refuses():
		f.Severity = report.Error
	}
	return f, true
}

// unknown are the findings of the unknown fields of a request (the
// server's `unknown field "spec.x"`, at field) under the field
// validation, and whether they end the request before validation (a 400
// under Strict).
func (l *Linter) unknown(d *source.Document, fields, messages []string) (out []report.Finding, refused bool) {
	for i, p := range fields {
		if f, ok := l.adjust(finding(d, RuleUnknownField, report.Warning, p, messages[i])); ok {
			out = append(out, f)
		}
	}
	return out, len(fields) > 0 && l.opts.Validate.Refuses()
}

// finding positions a finding about field of d: the one place a verdict
// becomes a position. field may be spelt as any of the server's libraries
// spell paths (Document.Resolve); the finding's field is in the one
// notation, and so is the path in msg where msg quotes field.
func finding(d *source.Document, rule string, sev report.Severity, field, msg string) report.Finding {
	f, _ := resolvedFinding(d, rule, sev, field, msg)
	return f
}

// valueFinding is finding positioned at the field's value rather than
// its key: for a value the server could not decode.
func valueFinding(d *source.Document, rule, field, msg string) report.Finding {
	f, r := resolvedFinding(d, rule, report.Error, field, msg)
	f.Line, f.Column = r.Value.Line, r.Value.Column
	return f
}

func resolvedFinding(d *source.Document, rule string, sev report.Severity, field, msg string) (report.Finding, source.Resolved) {
	r := d.Resolve(field)
	canonical := r.Field()
	if canonical != field && canonical != "" {
		msg = quotePath(msg, field, canonical)
	}
	return report.Finding{
		Rule: rule, Severity: sev, Message: msg, Field: canonical,
		File: d.File, Document: d.Index, Line: r.At.Line, Column: r.At.Column, Object: d.Object,
	}, r
}

var quotedRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// quotedField returns the first quoted string of a decoder message such as
// `unknown field "spec.foo"`, unquoted.
func quotedField(msg string) string {
	m := quotedRE.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	if s, err := strconv.Unquote(m[0]); err == nil {
		return s
	}
	return m[1]
}

// quotePath rewrites the path raw where msg quotes it, as the server's
// libraries spell it, into canonical, the notation: quoted ("raw") or
// bare (raw in body ...), and where it starts a longer path (raw.x,
// raw[0]), as translateText rewrites internal prefixes.
func quotePath(msg, raw, canonical string) string {
	if raw == canonical || raw == "" {
		return msg
	}
	quoted := strconv.Quote(raw)
	var b strings.Builder
	for {
		i := strings.Index(msg, raw)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		end := i + len(raw)
		switch {
		case i > 0 && strings.HasPrefix(msg[i-1:], quoted):
			b.WriteString(msg[:i-1] + strconv.Quote(canonical))
			end = i - 1 + len(quoted)
		case end == len(msg) || strings.IndexByte(".[ \"'\n,:)", msg[end]) >= 0:
			b.WriteString(msg[:i] + canonical)
		default:
			b.WriteString(msg[:end])
		}
		msg = msg[end:]
	}
}

// requote replaces the first quoted string of msg by field, quoted.
func requote(msg, field string) string {
	loc := quotedRE.FindStringIndex(msg)
	if loc == nil {
		return msg
	}
	return msg[:loc[0]] + strconv.Quote(field) + msg[loc[1]:]
}
