package suppress

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const (
	ruleA = "crd-empty-object"
	ruleB = "crd-no-pruning"
)

var testRules = []report.Rule{{ID: ruleA, Severity: report.Warning}, {ID: ruleB, Severity: report.Warning}, {ID: "crd-structural", Severity: report.Error}}

// everyLine is a finding of each rule on every line that holds more than
// a comment, at its first character: what a linter reporting everywhere
// would give.
func everyLine(file string, data []byte) []report.Finding {
	var out []report.Finding
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(l, " ")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, r := range []string{ruleA, ruleB} {
			out = append(out, report.Finding{Rule: r, Severity: report.Warning, File: file, Line: i + 1, Column: len(l) - len(t) + 1})
		}
	}
	return out
}

// TestScanGolden annotates each fixture: for every line with content,
// whether a finding of crd-empty-object (E) and of crd-no-pruning (P)
// there is silenced, then the directives with the lines they cover and
// the findings about them.
func TestScanGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s := Scan(file, data, testRules)
			fs := everyLine(file, data)
			kept, suppressed, unused := s.Apply(fs, nil)
			if len(kept)+len(suppressed) != len(fs) {
				t.Fatalf("%d kept + %d suppressed != %d findings", len(kept), len(suppressed), len(fs))
			}
			silenced := map[string]string{}
			for _, x := range suppressed {
				if x.Suppression.Kind != KindInline || x.Suppression.Reason == "" {
					t.Errorf("suppression %+v: want kind inline and a reason", x.Suppression)
				}
				silenced[fmt.Sprint(x.Rule, x.Line)] = x.Suppression.Reason
			}
			var b strings.Builder
			for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				l = strings.TrimSuffix(l, "\r")
				marks := "  "
				if slices.ContainsFunc(fs, func(f report.Finding) bool { return f.Line == i+1 }) {
					marks = ""
					for _, r := range []struct{ id, mark string }{{ruleA, "E"}, {ruleB, "P"}} {
						if _, ok := silenced[fmt.Sprint(r.id, i+1)]; ok {
							marks += r.mark
						} else {
							marks += "."
						}
					}
				}
				fmt.Fprintf(&b, "%3d %s | %s\n", i+1, marks, l)
			}
			for _, d := range s.Directives {
				fmt.Fprintf(&b, "directive %d:%d document=%v index=%d rules=%s lines %d-%d: %q\n", d.Line, d.Column, d.Document, d.Index, strings.Join(d.Rules, ","), d.First, d.Last, d.Reason)
			}
			for _, f := range append(s.Invalid, unused...) {
				fmt.Fprintf(&b, "%s %d:%d doc %d: %s\n", f.Rule, f.Line, f.Column, f.Document, f.Message)
			}
			golden(t, strings.TrimSuffix(file, ".yaml")+".golden", b.String())
		})
	}
}

func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./pkg/suppress -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./pkg/suppress -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
	}
}

// TestUnknownRuleSuggestion: a crdlint:ignore naming an unknown rule is
// an invalid-suppression saying which IDs come close, as the
// configuration file's rules: and explain say it (editdist.Closest); an
// ID that differs only in case is suggested, not accepted.
func TestUnknownRuleSuggestion(t *testing.T) {
	const tail = " (kubectl crdlint check --list-rules lists them)"
	tests := []struct {
		name, id, want string
	}{
		{"a near miss", "crd-empty-objects", `unknown rule "crd-empty-objects" in crdlint:ignore (did you mean "crd-empty-object"?)` + tail},
		{"only the case differs", "CRD-No-Pruning", `unknown rule "CRD-No-Pruning" in crdlint:ignore (did you mean "crd-no-pruning"?)` + tail},
		{"a part of an ID", "structural", `unknown rule "structural" in crdlint:ignore (did you mean "crd-structural"?)` + tail},
		{"two edits", "crd-no-prunnig", `unknown rule "crd-no-prunnig" in crdlint:ignore (did you mean "crd-no-pruning"?)` + tail},
		{"nothing close", "zzz", `unknown rule "zzz" in crdlint:ignore` + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("kind: Widget\nspec: # crdlint:ignore " + tt.id + " -- why\n  x: 1\n")
			s := Scan("w.yaml", data, testRules)
			if len(s.Invalid) != 1 || s.Invalid[0].Message != tt.want || len(s.Directives) != 0 {
				t.Errorf("invalid %v, directives %v; want one invalid-suppression %q and no directive", s.Invalid, s.Directives, tt.want)
			}
		})
	}
}

// TestNoSuggestionForAReason: without a "--", the words after the rule IDs
// are the writer's reason, which is an error of its own; they get no
// "did you mean", however many rule IDs contain them.
func TestNoSuggestionForAReason(t *testing.T) {
	rules := append([]report.Rule{{ID: "cr-list-type"}, {ID: "cr-type-meta"}, {ID: "crd-list-set-objects"}, {ID: "document-not-object"}, {ID: "the-rule"}}, testRules...)
	data := []byte("kind: Widget\nspec: # crdlint:ignore crd-structural the type is not set\n  x: 1\n")
	s := Scan("w.yaml", data, rules)
	var got []string
	for _, f := range s.Invalid {
		got = append(got, f.Message)
	}
	if len(got) != 6 {
		t.Fatalf("got %d findings, want 5 unknown rules and a missing reason: %q", len(got), got)
	}
	for _, m := range got {
		if strings.Contains(m, "did you mean") {
			t.Errorf("a word of the reason got a suggestion: %s", m)
		}
	}
	if !strings.Contains(got[5], "needs a reason") {
		t.Errorf("last finding %q, want the missing reason", got[5])
	}
}
