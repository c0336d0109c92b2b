package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

const (
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	toolName    = "kubectl-crdlint"
	toolURI     = "https://github.com/kubectl-crdlint/kubectl-crdlint"
	// sarifFingerprintKey names Finding.Fingerprint among a result's
	// partialFingerprints; the suffix is its version, to bump if what it
	// hashes ever changes.
	sarifFingerprintKey = "crdlintFinding/v1"
)

// The types below are the subset of SARIF 2.1.0 that GitHub code scanning
// reads. Field order follows the specification, to keep diffs readable.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     *sarifText         `json:"shortDescription,omitempty"`
	FullDescription      *sarifText         `json:"fullDescription,omitempty"`
	Help                 *sarifHelp         `json:"help,omitempty"`
	HelpURI              string             `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifText struct {
	Text string `json:"text"`
}

// sarifHelp is a multiformatMessageString: code scanning shows the
// Markdown where it can.
type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID string `json:"ruleId"`
	// No omitempty: index 0 is a real rule.
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// PartialFingerprints lets SARIF consumers match a result across runs
	// whatever lines moved.
	PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	// Properties carry the Kubernetes minors a result holds for, in a run
	// that judged as several.
	Properties map[string]any `json:"properties,omitempty"`
}

// sarifSuppression marks a result as silenced: kind inSource for a
// comment in the file, external for the configuration or a baseline.
type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           sarifRegion           `json:"region"`
}

type sarifArtifactLocation struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

// RenderSARIF writes a SARIF 2.1.0 log with one run, for upload to GitHub
// code scanning and similar tools. File names should be relative to the
// repository root, since that is what code scanning matches them against.
func RenderSARIF(w io.Writer, r Result, o Options) error {
	r = prepare(r)
	driver := sarifDriver{
		Name:           toolName,
		InformationURI: toolURI,
		Version:        o.ToolVersion,
		Rules:          []sarifRule{},
	}
	index := map[string]int{}
	addRule := func(sr sarifRule) {
		if _, ok := index[sr.ID]; !ok {
			index[sr.ID] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sr)
		}
	}
	for _, rule := range r.Rules {
		doc := &sarifText{Text: rule.Doc}
		addRule(sarifRule{
			ID:                   rule.ID,
			ShortDescription:     doc,
			FullDescription:      doc,
			Help:                 &sarifHelp{Text: helpText(rule), Markdown: rule.Help() + "\n[Rule page](" + rule.HelpURI() + ")\n"},
			HelpURI:              rule.HelpURI(),
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
		})
	}

	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		// A finding from a rule missing in the catalogue is a bug elsewhere,
		// but code scanning rejects a dangling ruleIndex outright, so give
		// it a bare rule rather than lose the finding or the whole upload.
		addRule(sarifRule{ID: f.Rule, DefaultConfiguration: sarifConfiguration{Level: sarifLevel(f.Severity)}})
		loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
			ArtifactLocation: sarifArtifactLocation{URI: sarifURI(f.File)},
			Region:           sarifRegion{StartLine: max(f.Line, 1), StartColumn: max(f.Column, 1)},
		}}
		if f.Field != "" {
			loc.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: f.Field}}
		}
		res := sarifResult{
			RuleID:              f.Rule,
			RuleIndex:           index[f.Rule],
			Level:               sarifLevel(f.Severity),
			Message:             sarifText{Text: subject(f) + withField(f.Message, f.Field)},
			Locations:           []sarifLocation{loc},
			PartialFingerprints: map[string]string{sarifFingerprintKey: f.Fingerprint()},
		}
		if f.KubernetesVersions != "" {
			res.Properties = map[string]any{"kubernetesVersions": f.KubernetesVersions.List()}
		}
		if s := f.Suppressed; s != nil {
			kind := "external"
			if s.Kind == SuppressedInline {
				kind = "inSource"
			}
			res.Suppressions = []sarifSuppression{{Kind: kind, Justification: s.Reason}}
		}
		results = append(results, res)
	}

	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	})
}

// helpText is the plain-text form of Rule.Help, for viewers without
// Markdown.
func helpText(r Rule) string {
	parts := []string{strings.TrimSpace(r.Doc)}
	if why := strings.TrimSpace(r.Why); why != "" {
		parts = append(parts, "Why it matters: "+why)
	}
	if fix := strings.TrimSpace(r.Fix); fix != "" {
		parts = append(parts, "How to fix it: "+fix)
	}
	parts = append(parts, "See "+r.HelpURI())
	return strings.Join(parts, "\n\n")
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// sarifURI turns a file name into the URI reference SARIF requires:
// percent-encoded, and relative unless the file was named absolutely.
func sarifURI(file string) string {
	if file == "<stdin>" {
		// Not a valid URI, but there is no file to point at and this is the
		// name the other formats use.
		return file
	}
	p := slashPath(file)
	if filepath.IsAbs(file) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x, which would otherwise read as scheme "C"
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	// String, not EscapedPath: it also guards a colon in the first segment.
	return (&url.URL{Path: p}).String()
}
