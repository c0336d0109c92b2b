package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
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

// String names the object the way kubectl's messages do: "Widget
// shop/too-big", "CustomResourceDefinition widgets.example.com"; the kind
// alone when the object has no name (generateName), and "" when the kind
// is unknown (a finding about a document that is no object, or about the
// whole file).
func (o ObjectRef) String() string {
	switch {
	case o.Kind == "":
		return ""
	case o.Name == "":
		return o.Kind
	case o.Namespace == "":
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
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
	// Field is the path in the user's own document, in the one notation
	// of docs/rules.md ("Field paths"): the server's
	// (spec.versions[0].schema.openAPIV3Schema.properties[spec]), keys
	// that are not plain names quoted (metadata.labels["a.b/c"]).
	Field string `json:"field"`
	File  string `json:"file"`
	// Document is the 0-based index of the non-empty document in File.
	Document int `json:"document"`
	// Line and Column are 1-based positions in File (0 when the finding is
	// about the file as a whole).
	Line   int       `json:"line"`
	Column int       `json:"column"`
	Object ObjectRef `json:"object"`
	// Suppressed is set when an inline comment, the configuration or a
	// baseline silences the finding. Suppressed findings stay in the
	// result so that JSON and SARIF can show what was silenced and why,
	// but they count for nothing: not in Summary, not in Fails, and text,
	// GitHub, JUnit and GitLab output leave them out.
	Suppressed *Suppression `json:"suppressed,omitempty"`
	// Via names where the object came from when File is a rendered
	// stream or rendered from one: the template of a `helm template`
	// stream (its "# Source:" comment), or the position in the output of
	// `kustomize build` for a finding mapped back to a kustomization's
	// file.
	Via string `json:"via,omitempty"`
	// Follows marks a finding that sums up others of its object (the
	// server's "some validation rules were not checked because the object
	// was invalid"): Sort lists it after them in every output. Not part
	// of the JSON contract: the order is.
	Follows bool `json:"-"`
	// KubernetesVersions are the minors the finding holds for, oldest
	// first, in a run that judged as several (--kubernetes-version
	// 1.33-1.37); empty in a run of one minor.
	KubernetesVersions Minors `json:"kubernetesVersions,omitempty"`

	// minorsSuffix is the text output's "(1.34–1.35)".
	minorsSuffix string
}

// SuppressionKind says where a suppression was written.
type SuppressionKind string

const (
	// SuppressedInline is a "# crdlint:ignore" comment in the file.
	SuppressedInline SuppressionKind = "inline"
	// SuppressedConfig is a rule turned off in the configuration file.
	SuppressedConfig SuppressionKind = "config"
	// SuppressedBaseline is a finding recorded in the baseline file.
	SuppressedBaseline SuppressionKind = "baseline"
)

// Suppression says why a finding was silenced.
type Suppression struct {
	Kind   SuppressionKind `json:"kind"`
	Reason string          `json:"reason"`
}

// Fingerprint identifies a finding across edits that do not touch it: a
// hash of the file (as slashPath gives it), the object's kind, namespace
// and name, the rule, the field and the message. Line, column, document
// index and apiVersion are left out, so that adding lines or documents
// elsewhere, or moving to another version of the same kind, keeps it.
// Findings that differ only in position share a fingerprint; formats that
// need unique ones (GitLab) number them.
func (f Finding) Fingerprint() string {
	h := sha256.New()
	// A NUL cannot occur in a path or an object name, so the fields cannot
	// run into each other.
	for _, s := range []string{"crdlint-finding-v1", slashPath(f.File), f.Object.Kind, f.Object.Namespace, f.Object.Name, f.Rule, f.Field, f.Message} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Rule describes one rule for --list-rules, docs and SARIF.
type Rule struct {
	ID       string
	Severity Severity
	// Doc is one line: what the rule checks, and whether the server
	// rejects it.
	Doc string
	// Why says why it matters and Fix how to fix it: Markdown paragraphs,
	// the prose of the rule's page (docs/rules/<ID>.md) and of SARIF's
	// rule help.
	Why, Fix string
	// Commands are the kubectl crdlint commands that report the rule.
	Commands []string
	// NoExample, when set, says why the rule's page has no example: no
	// small input triggers it. A rule without it must have a fixture.
	NoExample string
}

// Prose is a rule's page beyond its one-line Doc (see Rule), kept by rule
// ID apart from a package's rule list so that the list stays one line
// per rule.
type Prose struct{ Why, Fix, NoExample string }

// WithProse fills each rule's Why, Fix and NoExample from prose, by ID,
// and returns rules. A rule without prose keeps them empty, which the
// rule lists' tests refuse.
func WithProse(rules []Rule, prose map[string]Prose) []Rule {
	for i, r := range rules {
		p := prose[r.ID]
		rules[i].Why, rules[i].Fix, rules[i].NoExample = p.Why, p.Fix, p.NoExample
	}
	return rules
}

// RulesDocBase is where the rule pages are published; a rule's page is
// RulesDocBase + ID + ".md".
const RulesDocBase = toolURI + "/blob/main/docs/rules/"

// HelpURI is the address of the rule's page.
func (r Rule) HelpURI() string { return RulesDocBase + r.ID + ".md" }

// Help renders the rule's prose as Markdown: the one-line Doc, then "Why it
// matters" and "How to fix it" sections for the parts that are set. The
// rule pages and SARIF's help.markdown both use it, so they say the same.
func (r Rule) Help() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(r.Doc) + "\n")
	if why := strings.TrimSpace(r.Why); why != "" {
		b.WriteString("\n## Why it matters\n\n" + why + "\n")
	}
	if fix := strings.TrimSpace(r.Fix); fix != "" {
		b.WriteString("\n## How to fix it\n\n" + fix + "\n")
	}
	return b.String()
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
	// Suppressed counts the findings left out of Errors and Warnings
	// because they were suppressed.
	Suppressed int `json:"suppressed"`
	// CRDs counts the CustomResourceDefinitions judged; CustomResources
	// the custom resources validated against their CRD.
	CRDs            int `json:"crds"`
	CustomResources int `json:"customResources"`
	// NotValidated counts the custom resources that could not be
	// validated, by reason (no CRD, version not served, CRD rejected).
	NotValidated map[string]int `json:"notValidated,omitempty"`
	// SkippedBy counts what Skipped counts, by reason (not a Kubernetes
	// object, built-in kind, Helm chart template, ...).
	SkippedBy map[string]int `json:"skippedBy,omitempty"`
	// StaleBaseline counts the entries of the --baseline file that no
	// finding matches any more: fixed, to be dropped from the baseline.
	StaleBaseline int `json:"staleBaseline,omitempty"`
	// Checked lists the objects the counts above count, one by one, for
	// the formats that report passing objects too (JUnit: a test case
	// per object). Not in the JSON contract. It travels with the counts
	// so that every path a summary takes (a file judged whole or a
	// document at a time, replayed from the verdict cache, a live page)
	// carries it without a path of its own.
	Checked []Checked `json:"-"`
	// KubernetesVersion is the minor whose API server judged, when one
	// was asked for (--kubernetes-version, kubernetesVersion:).
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Minors are the counts of each minor of a run that judged as
	// several, oldest first.
	Minors []MinorSummary `json:"kubernetesVersions,omitempty"`
}

// Add adds the counts of o to s (Errors, Warnings and Suppressed are
// counted from the findings, by Result.Count).
func (s *Summary) Add(o Summary) {
	s.Files += o.Files
	s.Documents += o.Documents
	s.Skipped += o.Skipped
	s.Objects += o.Objects
	s.CRDs += o.CRDs
	s.CustomResources += o.CustomResources
	s.StaleBaseline += o.StaleBaseline
	s.NotValidated = addCounts(s.NotValidated, o.NotValidated)
	s.SkippedBy = addCounts(s.SkippedBy, o.SkippedBy)
	s.Checked = append(s.Checked, o.Checked...)
}

func addCounts(a, b map[string]int) map[string]int {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]int{}
	}
	for k, n := range b {
		a[k] += n
	}
	return a
}

// Skip counts one skipped document (or whole file) and why.
func (s *Summary) Skip(reason string) { s.SkipN(reason, 1) }

// SkipN counts n skipped documents (or whole files) and why.
func (s *Summary) SkipN(reason string, n int) {
	if n <= 0 {
		return
	}
	s.Skipped += n
	s.SkippedBy = addCounts(s.SkippedBy, map[string]int{reason: n})
}

// NotValid counts one custom resource that could not be validated and why.
func (s *Summary) NotValid(reason string) {
	s.NotValidated = addCounts(s.NotValidated, map[string]int{reason: 1})
}

// Check records one object the run looked at (Checked.Skipped says why
// it was not judged, if it was not); the counts are the caller's.
func (s *Summary) Check(c Checked) {
	s.Checked = append(s.Checked, c)
}

// Checked is one object the run looked at, with or without findings.
// Reports that list what passed (JUnit) need them: findings alone only
// name what failed. Documents that are no object (Helm values, lists)
// and files skipped whole (kustomizations, chart templates) are only
// counted, never listed.
type Checked struct {
	File string
	// Document is the 0-based index of the non-empty document in File, as
	// in Finding.
	Document int
	Object   ObjectRef
	// Skipped says why the object was not judged (a built-in kind, tool
	// configuration, no CRD to validate it against); empty when it was.
	Skipped string
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
	// BreakingChanges counts the changes between OLD and NEW reported as
	// errors, as the run reports them (configuration and suppressions
	// applied): what fails the run even when no object is broken (a
	// transition rule, a version no longer served, a tightening no
	// object judged).
	BreakingChanges int `json:"breakingChanges"`
	// KubernetesVersions are the minors these counts hold for, when a
	// run of several minors counted differently in some (Merge); empty
	// when every minor of the run counted the same.
	KubernetesVersions Minors `json:"kubernetesVersions,omitempty"`
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
	// Skews are the objects some of a run's minors refuse and others
	// accept.
	Skews []Skew
}

// Sort orders findings by file, document, line, column, rule, field,
// message, so that every output is deterministic; then a finding that
// sums up others (Follows) moves after the last of them, the findings of
// its file, document and object of at least its severity, and takes that
// one's line and column when they come later than its own: the note sits
// where the last error it sums up is, whoever positioned the errors
// (pkg/lint places it so; pkg/upgrade's replay and a mapping to origin
// files, kustomize's or Helm's, move the errors and not it).
func Sort(fs []Finding) {
	sortByPlace(fs)
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		if !f.Follows {
			continue
		}
		last := i
		for j := i + 1; j < len(fs) && fs[j].File == f.File && fs[j].Document == f.Document; j++ {
			if !fs[j].Follows && fs[j].Object == f.Object && fs[j].Severity >= f.Severity {
				last = j
			}
		}
		if last > i {
			if l := fs[last]; l.Line > f.Line || l.Line == f.Line && l.Column > f.Column {
				f.Line, f.Column = l.Line, l.Column
			}
			copy(fs[i:last], fs[i+1:last+1])
			fs[last] = f
			i-- // fs[i] is another finding now
		}
	}
}

func sortByPlace(fs []Finding) {
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

// Count fills Errors, Warnings and Suppressed from the findings.
func (r *Result) Count() {
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Suppressed = 0, 0, 0
	for _, f := range r.Findings {
		if f.Suppressed != nil {
			r.Summary.Suppressed++
			continue
		}
		switch f.Severity {
		case Error:
			r.Summary.Errors++
		case Warning:
			r.Summary.Warnings++
		}
	}
}

// Fails reports whether any finding that is not suppressed is at or
// above threshold.
func (r *Result) Fails(threshold Severity) bool {
	if threshold == None {
		return false
	}
	for _, f := range r.Findings {
		if f.Suppressed == nil && f.Severity >= threshold {
			return true
		}
	}
	return false
}
