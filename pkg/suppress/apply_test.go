package suppress

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

const applyFixture = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
# crdlint:ignore-document crd-structural -- accepted: generated, fixed upstream
spec: # crdlint:ignore crd-no-pruning,crd-empty-object -- vendored
  versions:
    - name: v1
      served: true # crdlint:ignore crd-empty-object -- inner, narrower
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec: {}
`

// TestApply: which findings are silenced by which directive, and which
// directives (per rule) are unused, for a given set of findings.
func TestApply(t *testing.T) {
	f := func(rule string, line int) report.Finding {
		return report.Finding{Rule: rule, Severity: report.Warning, File: "a.yaml", Line: line, Column: 1}
	}
	tests := []struct {
		name       string
		findings   []report.Finding
		ran        func(string) bool
		kept       []string // rule@line
		suppressed []string // rule@line: reason
		unused     []string // line: message
	}{
		{
			name: "no findings: every rule of every directive is unused",
			unused: []string{
				"3: crdlint:ignore-document crd-structural silences nothing: crd-structural reports nothing in this document",
				"4: crdlint:ignore crd-no-pruning silences nothing: crd-no-pruning reports nothing on this node",
				"4: crdlint:ignore crd-empty-object silences nothing: crd-empty-object reports nothing on this node",
				"7: crdlint:ignore crd-empty-object silences nothing: crd-empty-object reports nothing on this node",
			},
		},
		{
			name:     "each used once; the narrowest gives the reason; all matching ones are used",
			findings: []report.Finding{f("crd-structural", 1), f("crd-no-pruning", 6), f("crd-empty-object", 7), f("crd-empty-object", 11), f("crd-structural", 11)},
			kept:     []string{"crd-empty-object@11", "crd-structural@11"},
			suppressed: []string{
				"crd-structural@1: accepted: generated, fixed upstream",
				"crd-no-pruning@6: vendored",
				"crd-empty-object@7: inner, narrower",
			},
		},
		{
			name:     "a rule that did not run is not unused",
			findings: []report.Finding{f("crd-no-pruning", 5)},
			ran:      func(r string) bool { return r == "crd-no-pruning" },
			suppressed: []string{
				"crd-no-pruning@5: vendored",
			},
		},
		{
			name:     "findings of other files, without a line, or about suppressions pass through",
			findings: []report.Finding{{Rule: "crd-no-pruning", File: "b.yaml", Line: 5}, {Rule: "crd-no-pruning", File: "a.yaml"}, {Rule: RuleUnused, File: "a.yaml", Line: 5}},
			ran:      func(string) bool { return false },
			kept:     []string{"crd-no-pruning@5", "crd-no-pruning@0", "unused-suppression@5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Scan("a.yaml", []byte(applyFixture), testRules)
			if len(s.Invalid) > 0 {
				t.Fatalf("invalid: %v", s.Invalid)
			}
			kept, suppressed, unused := s.Apply(tt.findings, tt.ran)
			var k, sp, u []string
			for _, x := range kept {
				k = append(k, fmt.Sprintf("%s@%d", x.Rule, x.Line))
			}
			for _, x := range suppressed {
				sp = append(sp, fmt.Sprintf("%s@%d: %s", x.Rule, x.Line, x.Suppression.Reason))
			}
			for _, x := range unused {
				if x.Rule != RuleUnused || x.Severity != report.Warning || x.File != "a.yaml" || x.Column < 1 {
					t.Errorf("unused finding %+v", x)
				}
				u = append(u, fmt.Sprintf("%d: %s", x.Line, x.Message))
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"kept", k, tt.kept}, {"suppressed", sp, tt.suppressed}, {"unused", u, tt.unused}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s = %q\nwant %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

// TestApplyTwice: each call judges its own findings, so a directive used
// by the first call is unused in a second without findings.
func TestApplyTwice(t *testing.T) {
	s := Scan("a.yaml", []byte("a: 1 # crdlint:ignore crd-no-pruning -- r\n"), testRules)
	_, sup, unused := s.Apply([]report.Finding{{Rule: "crd-no-pruning", File: "a.yaml", Line: 1}}, nil)
	if len(sup) != 1 || len(unused) != 0 {
		t.Fatalf("first call: %d suppressed, %d unused", len(sup), len(unused))
	}
	if _, _, unused = s.Apply(nil, nil); len(unused) != 1 {
		t.Errorf("second call: %d unused, want 1", len(unused))
	}
}

// TestScanNoDirective: files without "crdlint:" are not parsed at all,
// and text that is not YAML never panics.
func TestScanNoDirective(t *testing.T) {
	for _, data := range []string{"", "a: b", "\x00\xff", strings.Repeat("- ", 1000), "--- # crdlint:ignore x\n"} {
		s := Scan("x.yaml", []byte(data), testRules)
		if len(s.Directives) != 0 {
			t.Errorf("%q: %d directives", data, len(s.Directives))
		}
	}
}

// TestScanLarge: the scan stays linear on the shapes that could make it
// quadratic: thousands of stacked comments and directives, and a
// one-line JSON document with many strings.
func TestScanLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("a:\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "  # crdlint:ignore crd-no-pruning -- r%d\n", i)
	}
	b.WriteString("  b: 1\n")
	s := Scan("big.yaml", []byte(b.String()), testRules)
	if len(s.Directives) != 20000 || s.Directives[0].First != 20002 {
		t.Fatalf("%d directives, first covers %d", len(s.Directives), s.Directives[0].First)
	}
	var j strings.Builder
	j.WriteString(`{"description": "see crdlint:ignore", "items": [`)
	for i := 0; i < 200000; i++ {
		if i > 0 {
			j.WriteString(",")
		}
		j.WriteString(`"x # y"`)
	}
	j.WriteString("]}\n")
	if s := Scan("big.json", []byte(j.String()), testRules); len(s.Directives)+len(s.Invalid) != 0 {
		t.Errorf("a JSON document has no comments, got %d directives", len(s.Directives))
	}
}
