package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/golden, testdata/upgrade) from the current output")

// TestSuppressionForms: each way of silencing a finding, in the fixture
// repository testdata/repos/suppress, as check reports it: the finding
// is kept in JSON, marked with the kind and the reason, and counted as
// suppressed; problems with the suppressions themselves are warnings.
// The CRD files under config/crd/bases hold nothing but CRDs, as
// generated CRDs do.
func TestSuppressionForms(t *testing.T) {
	const (
		widgets = "config/crd/bases/example.com_widgets.yaml"
		gadgets = "config/crd/bases/example.com_gadgets.yaml"
	)
	tests := []struct {
		name       string
		file       string
		line       int
		rule       string
		kind       report.SuppressionKind // "": not suppressed
		reason     string
		severity   report.Severity
		wantAbsent bool
	}{
		{"trailing comment in a CRD-only file", widgets, 21, "crd-empty-object", report.SuppressedInline, "the controller fills it", report.Warning, false},
		{"comment on the line above, a marker between", widgets, 25, "crd-empty-object", report.SuppressedInline, "free-form labels, by design", report.Warning, false},
		{"ignore-document, first finding", gadgets, 22, "crd-empty-object", report.SuppressedInline, "generated; fixed upstream in v2", report.Warning, false},
		{"ignore-document, second finding", gadgets, 23, "crd-empty-object", report.SuppressedInline, "generated; fixed upstream in v2", report.Warning, false},
		// An error under --validate=strict, kubectl's default: suppressed
		// all the same.
		{"custom resource", "config/samples/widget.yaml", 6, "unknown-field", report.SuppressedInline, "read by an older controller", report.Error, false},
		{"no reason: the finding stays", widgets, 27, "crd-empty-object", "", "", report.Warning, false},
		{"no reason: invalid-suppression", widgets, 27, "invalid-suppression", "", "", report.Warning, false},
		{"silences nothing: unused-suppression", widgets, 29, "unused-suppression", "", "", report.Warning, false},
		{"the configuration's overrides", "external/crds/things.yaml", 17, "crd-empty-object", report.SuppressedConfig, ".crdlint.yaml overrides[0] (external/**): crd-empty-object: off", report.Warning, false},
		{"the baseline", "legacy/old.yaml", 20, "crd-empty-object", report.SuppressedBaseline, "accepted in .crdlint-baseline.yaml", report.Warning, false},
	}
	fixture(t, "suppress")
	code, res := checkJSON(t, ".")
	if code != ExitClean {
		t.Errorf("exit %d, want 0: only warnings", code)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var found []report.Finding
			for _, f := range res.Findings {
				if f.File == tt.file && f.Line == tt.line && f.Rule == tt.rule {
					found = append(found, f)
				}
			}
			if len(found) != 1 {
				t.Fatalf("%d %s findings at %s:%d, want 1 (all: %v)", len(found), tt.rule, tt.file, tt.line, briefs(res.Findings))
			}
			f := found[0]
			var kind report.SuppressionKind
			var reason string
			if f.Suppressed != nil {
				kind, reason = f.Suppressed.Kind, f.Suppressed.Reason
			}
			if kind != tt.kind || reason != tt.reason || f.Severity != tt.severity {
				t.Errorf("%s, suppressed %q (%q); want %s, suppressed %q (%q)", f.Severity, kind, reason, tt.severity, tt.kind, tt.reason)
			}
		})
	}
	// Every finding of the fixture is in a row above, and the counts
	// leave the suppressed ones out; the baseline's entry for a finding
	// fixed since is stale.
	if len(res.Findings) != len(tests) {
		t.Errorf("%d findings, want %d: %v", len(res.Findings), len(tests), briefs(res.Findings))
	}
	if s := res.Summary; s.Warnings != 3 || s.Errors != 0 || s.Suppressed != 7 || s.StaleBaseline != 1 {
		t.Errorf("summary %+v; want 3 warnings, 0 errors, 7 suppressed, 1 stale baseline entry", s)
	}

	// Text output leaves the suppressed findings out, and says so.
	_, out, _ := runMain(t, "check", ".")
	if n := strings.Count(out, ": warning "); n != 3 || !strings.Contains(out, "3 warnings (7 suppressed), 1 baseline entry fixed") {
		t.Errorf("text output has %d warnings, want 3 and the counts:\n%s", n, out)
	}
}

// TestSuppressedGolden: the JSON and SARIF of check in
// testdata/repos/suppress, with findings suppressed inline, by the
// configuration and by the baseline (go test -update rewrites them).
// SARIF's ruleIndex is checked against its rules[] and left out of the
// golden: it moves whenever a rule is added to the rule set.
func TestSuppressedGolden(t *testing.T) {
	fixture(t, "suppress")
	var jsonOut, sarifOut string
	for _, f := range []struct {
		format string
		out    *string
	}{{"json", &jsonOut}, {"sarif", &sarifOut}} {
		code, out, errOut := runMain(t, "check", "-o", f.format, ".")
		if code != ExitClean || errOut != "" {
			t.Fatalf("check -o %s: exit %d, stderr %q", f.format, code, errOut)
		}
		*f.out = out
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []map[string]any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarifOut), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF does not parse as one run (%v):\n%s", err, sarifOut)
	}
	run := log.Runs[0]
	for _, r := range run.Results {
		i, _ := r["ruleIndex"].(float64)
		if rules := run.Tool.Driver.Rules; int(i) >= len(rules) || rules[int(i)].ID != r["ruleId"] {
			t.Errorf("result %v: ruleIndex %v does not name its rule", r["ruleId"], r["ruleIndex"])
		}
		delete(r, "ruleIndex")
	}
	results, err := json.MarshalIndent(run.Results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "suppressed.json", []byte(jsonOut))
	golden(t, "suppressed.sarif-results.json", append(results, '\n'))
}

// golden compares got with testdata/golden/NAME, or rewrites it under
// -update. A missing golden file fails (run with -update to create it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testdata, "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}
