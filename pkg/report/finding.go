package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity orders findings. Error means the API server would reject the
// object; Warning means it would accept it but something is off.
type Severity int

const (
	// None is only meaningful as a --fail-on threshold: never fail.
	None Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "none"
	}
}

// ParseSeverity accepts the names printed by String.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	case "none":
		return None, nil
	}
	return None, fmt.Errorf("invalid severity %q: must be one of error, warning, none", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ObjectRef names the Kubernetes object a finding is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

func (o ObjectRef) String() string {
	s := o.Kind
	if o.Namespace != "" {
		s += " " + o.Namespace + "/" + o.Name
	} else if o.Name != "" {
		s += " " + o.Name
	}
	return s
}

// Finding is one thing the tool has to say about one place in one file.
// Its JSON form is a contract: fields may be added, never changed.
type Finding struct {
	// Rule is a stable ID such as "crd-structural": never renamed or reused.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Message is the server's text without the field path, where the
	// server has one.
	Message string `json:"message"`
	// Field is the path in the user's own document, in the server's
	// notation (spec.versions[0].schema.openAPIV3Schema.properties[spec]).
	Field string `json:"field"`
	File  string `json:"file"`
	// Document is the 0-based index of the non-empty document in File.
	Document int `json:"document"`
	// Line and Column are 1-based positions in File (0 when the finding is
	// about the file as a whole).
	Line   int       `json:"line"`
	Column int       `json:"column"`
	Object ObjectRef `json:"object"`
}

// Rule describes one rule for --list-rules, docs and SARIF.
type Rule struct {
	ID       string
	Severity Severity
	Doc      string
}

// Summary counts what was read and what was found.
type Summary struct {
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	// Skipped counts documents that are not ours to judge: not Kubernetes
	// objects, or kinds built into the API server.
	Skipped int `json:"skipped"`
	// Objects counts objects read from a cluster (--live); each is also
	// one of Documents.
	Objects int `json:"objects,omitempty"`
	// Live says objects were read from a cluster, even if none were found.
	Live bool `json:"-"`
}

// UpgradeSummary counts what kubectl crdlint upgrade found for one CRD:
// whether the server refuses the CRD update, and the existing objects
// replayed through it and how many of them NEW breaks where OLD did not.
type UpgradeSummary struct {
	CRD string `json:"crd"`
	// UpdateRefused: the server refuses the update of the CRD itself.
	UpdateRefused bool `json:"updateRefused"`
	Objects       int  `json:"objects"`
	// WouldFailCreate, WouldFailUpdate and WouldLoseData count objects
	// whose manifest NEW refuses to create, whose labels-only update NEW
	// refuses, and that have stored fields NEW prunes.
	WouldFailCreate int `json:"wouldFailCreate"`
	WouldFailUpdate int `json:"wouldFailUpdate"`
	WouldLoseData   int `json:"wouldLoseData"`
	// NotReplayed counts objects that could not be replayed offline.
	NotReplayed int `json:"notReplayed"`
}

// Result is everything a renderer needs.
type Result struct {
	Findings []Finding
	Summary  Summary
	// Upgrades are the per-CRD counts of kubectl crdlint upgrade, in
	// order; nil for other commands.
	Upgrades []UpgradeSummary
	// Rules is the catalogue, for renderers that describe rules (SARIF).
	Rules []Rule
}

// Sort orders findings by file, document, line, column, rule, field,
// message, so that every output is deterministic.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Document, b.Document),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Field, b.Field),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Count fills Errors and Warnings from the findings.
func (r *Result) Count() {
	r.Summary.Errors, r.Summary.Warnings = 0, 0
	for _, f := range r.Findings {
		switch f.Severity {
		case Error:
			r.Summary.Errors++
		case Warning:
			r.Summary.Warnings++
		}
	}
}

// Fails reports whether any finding is at or above threshold.
func (r *Result) Fails(threshold Severity) bool {
	if threshold == None {
		return false
	}
	for _, f := range r.Findings {
		if f.Severity >= threshold {
			return true
		}
	}
	return false
}
