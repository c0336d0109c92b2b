package lint

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Options tune a Linter.
type Options struct {
	// Strict reports unknown and duplicate fields as errors, as the server
	// does under fieldValidation=Strict (kubectl's default); otherwise they
	// are warnings, as under fieldValidation=Warn.
	Strict bool
	// Disabled silences rules by ID.
	Disabled map[string]bool
	// Catalog holds the CRDs custom resources are validated against; nil
	// skips custom resources.
	Catalog *crd.Catalog
	// RequireCRDs makes a custom resource without a CRD an error.
	RequireCRDs bool
}

// Linter judges documents as the API server would. It is safe for
// concurrent use.
type Linter struct {
	opts Options
	// rejected remembers, by the CRD's JSON, whether the server would
	// refuse it: linting a CRD and looking it up for its custom resources
	// need the same verdict, and validating a large CRD is costly. Only the
	// answer is kept, not the verdict, so memory does not grow with it.
	mu       sync.Mutex
	rejected map[[sha256.Size]byte]*rejectedSlot
	// costs are the CEL cost estimates of the run's CRDs, shared: CRDs
	// repeat types with rules.
	costs *costCache
}

type rejectedSlot struct {
	once sync.Once
	v    bool
}

// New returns a Linter.
func New(opts Options) *Linter {
	return &Linter{opts: opts, rejected: map[[sha256.Size]byte]*rejectedSlot{}, costs: newCostCache()}
}

func (l *Linter) slot(k [sha256.Size]byte) *rejectedSlot {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.rejected[k]
	if !ok {
		s = &rejectedSlot{}
		l.rejected[k] = s
	}
	return s
}

// validateCRD is ValidateCRD that records the rejection for the catalogue.
func (l *Linter) validateCRD(js []byte) *CRDVerdict {
	v := ValidateCRD(js)
	s := l.slot(sha256.Sum256(js))
	s.once.Do(func() { s.v = v.Rejected(l.opts.Strict) })
	return v
}

// crdRejected answers the catalogue: from the lint pass when it already
// validated the CRD, else by validating it now (once), from crd and
// unknown, what decoding the JSON whose digest is k gave.
func (l *Linter) crdRejected(k [sha256.Size]byte, crd *apiextensionsv1.CustomResourceDefinition, unknown []string) bool {
	s := l.slot(k)
	s.once.Do(func() { s.v = validateDecoded(crd, unknown).Rejected(l.opts.Strict) })
	return s.v
}

// Collected is a CRD found while collecting, ready for the catalogue.
type Collected struct {
	CRD    *apiextensionsv1.CustomResourceDefinition
	Source string
	// JSON is the CRD as written (kubectl's JSON of the document).
	JSON []byte
	// Rejected validates the CRD; the catalogue asks only when a custom
	// resource of it needs the answer.
	Rejected func() bool
}

// Collect adds the CustomResourceDefinitions of a file to the catalogue.
// Callers collecting files concurrently use Find and add the results in
// input order instead, so that a later CRD of the same kind wins, as it
// would when applied.
func (l *Linter) Collect(f *source.File) int {
	found := l.Find(f)
	for _, c := range found {
		l.opts.Catalog.AddRaw(c.CRD, c.JSON, c.Source, c.Rejected)
	}
	return len(found)
}

// Find decodes the apiextensions.k8s.io/v1 CustomResourceDefinitions of a
// file as the server stores them (defaulted), for a catalogue. Documents
// that do not decode are left to linting. Whether the server would
// reject a CRD is judged under the linter's field validation (Strict
// rejects CRDs with unknown fields) and shared with the lint pass.
func (l *Linter) Find(f *source.File) []Collected {
	var out []Collected
	for _, d := range f.Documents {
		if !IsCRD(d) {
			continue
		}
		if _, v := d.GroupVersion(); v != "v1" {
			continue
		}
		crd, unknown, err := decodeCRD(d.JSON)
		if err != nil {
			continue
		}
		// The digest, not the JSON, goes into the closure: a run that
		// does not keep the JSON does not hold it until the end.
		k := sha256.Sum256(d.JSON)
		out = append(out, Collected{CRD: crd, JSON: d.JSON, Source: fmt.Sprintf("%s:%d", d.File, d.Root.Line),
			Rejected: func() bool { return l.crdRejected(k, crd, unknown) }})
	}
	return out
}

// builtin holds the group/kinds of client-go's scheme: objects the API
// server knows without a CRD, which are not ours to judge.
var builtin = func() map[schema.GroupKind]bool {
	m := map[schema.GroupKind]bool{}
	for gvk := range clientgoscheme.Scheme.AllKnownTypes() {
		m[gvk.GroupKind()] = true
	}
	return m
}()

const crdGroup = "apiextensions.k8s.io"

// IsBuiltin reports whether a document is of a kind built into the server.
func IsBuiltin(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return builtin[schema.GroupKind{Group: g, Kind: d.Object.Kind}]
}

// IsCRD reports whether a document is a CustomResourceDefinition of any
// apiextensions version.
func IsCRD(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return g == crdGroup && d.Object.Kind == "CustomResourceDefinition"
}

// File lints every document of a parsed file. It returns the findings
// (the loader's and the documents') and how many documents were skipped.
func (l *Linter) File(f *source.File) ([]report.Finding, int) {
	out := make([]report.Finding, 0, len(f.Findings))
	for _, fd := range f.Findings {
		out = append(out, l.adjust(fd))
	}
	skipped := f.Skipped
	for _, d := range f.Documents {
		switch {
		case IsCRD(d):
			out = append(out, l.CRD(d)...)
		case IsBuiltin(d) || l.opts.Catalog == nil:
			// Built-in kinds are the server's, not ours to judge.
			skipped++
		default:
			out = append(out, l.CR(d)...)
		}
	}
	return l.filter(out), skipped
}

// adjust applies --strict to the severities that depend on it.
func (l *Linter) adjust(f report.Finding) report.Finding {
	if l.opts.Strict && (f.Rule == source.RuleDuplicate || f.Rule == RuleUnknownField) {
		f.Severity = report.Error
	}
	return f
}

func (l *Linter) filter(fs []report.Finding) []report.Finding {
	if len(l.opts.Disabled) == 0 {
		return fs
	}
	out := fs[:0]
	for _, f := range fs {
		if !l.opts.Disabled[f.Rule] {
			out = append(out, f)
		}
	}
	return out
}

// finding positions a finding about field of d.
func finding(d *source.Document, rule string, sev report.Severity, field, msg string) report.Finding {
	pos, _ := d.Locate(field)
	return report.Finding{
		Rule: rule, Severity: sev, Message: msg, Field: field,
		File: d.File, Document: d.Index, Line: pos.Line, Column: pos.Column, Object: d.Object,
	}
}

var quotedRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// quotedField returns the first quoted string of a decoder message such as
// `unknown field "spec.foo"`.
func quotedField(msg string) string {
	if m := quotedRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}
