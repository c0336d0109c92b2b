package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

var (
	widget = ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"}
	gadget = ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "gadgets.example.com"}
	tooBig = ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "too-big"}
	small  = ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "small"}
	web    = ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
)

// fixture covers every shape a renderer must handle. Its findings are out
// of order on purpose, so the goldens also prove the sorting:
//
//   - crds/widget.yaml holds widgets.example.com twice (documents 0 and 1),
//     so JUnit must tell the two test cases apart;
//   - crds/my gadget.yaml has a finding about the whole file (line 0, no
//     object), gadgets.example.com in document 1, and a finding-free CRD
//     in document 0 that only Checked knows;
//   - crs/widgets.yaml has a finding on the object root (the server's
//     "<nil>" field), two identical duplicate-field warnings without an
//     object (the loader's, which the renderers attribute to the
//     document's object; GitLab must still give them distinct
//     fingerprints), a suppressed error and warning, and a skipped
//     built-in kind.
func fixture() Result {
	return Result{
		Findings: []Finding{
			{
				Rule: "parse-error", Severity: Error, // not in the catalogue
				Message: "yaml: line 7: mapping values are not allowed in this context",
				File:    "crds/my gadget.yaml", // Line 0: the whole file
			},
			{
				Rule: "crd-version-deprecated", Severity: Warning, // no field
				Message: "version v1alpha1 is served but deprecated: 100%, not 0%",
				File:    "./crds/widget.yaml", Document: 1, Line: 3, Column: 1, Object: widget,
			},
			{
				Rule: "cel-compile", Severity: Error,
				Message: "compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>'\n | self.x >\n | ........^\n",
				Field:   "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
				File:    "./crds/widget.yaml", Line: 30, Column: 11, Object: widget,
			},
			{
				Rule: "crd-structural", Severity: Error,
				Message: "Required value: must not be empty for specified object fields",
				Field:   "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
				File:    "./crds/widget.yaml", Line: 14, Column: 9, Object: widget,
			},
			{
				Rule: "crd-structural", Severity: Error,
				Message: "Forbidden: must not be used in a structural schema",
				Field:   "spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties",
				File:    "crds/my gadget.yaml", Document: 1, Line: 5, Column: 3, Object: gadget,
			},
			{
				Rule: "cr-cel", Severity: Error,
				Message: "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
				Field:   "<nil>", // the object root, as the server prints it
				File:    "crs/widgets.yaml", Line: 1, Column: 1, Object: tooBig,
			},
			{
				Rule: "duplicate-field", Severity: Warning,
				Message: `duplicate field "spec.color"`, Field: "spec.color",
				File: "crs/widgets.yaml", Line: 11, Column: 3, // no Object: the loader's
			},
			{
				Rule: "duplicate-field", Severity: Warning,
				Message: `duplicate field "spec.color"`, Field: "spec.color",
				File: "crs/widgets.yaml", Line: 9, Column: 3,
			},
			{
				Rule: "cr-schema", Severity: Error,
				Message: `Unsupported value: "purple": supported values: "red", "green"`,
				Field:   "spec.color",
				File:    "crs/widgets.yaml", Document: 1, Line: 20, Column: 10, Object: small,
				Suppressed: &Suppression{Kind: SuppressedBaseline, Reason: "in .crdlint-baseline.json"},
			},
			{
				Rule: "unknown-field", Severity: Warning,
				Message: `unknown field "spec.colour"`,
				Field:   "spec.colour",
				File:    "crs/widgets.yaml", Document: 1, Line: 21, Column: 3, Object: small,
				Suppressed: &Suppression{Kind: SuppressedInline, Reason: "read by the v2 controller"},
			},
		},
		Summary: Summary{Files: 3, Documents: 7, Errors: 5, Warnings: 3, Skipped: 1, Checked: []Checked{
			{File: "./crds/widget.yaml", Document: 0, Object: widget},
			{File: "./crds/widget.yaml", Document: 1, Object: widget},
			{File: "crds/my gadget.yaml", Document: 0, Object: ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "sprockets.example.com"}},
			{File: "crds/my gadget.yaml", Document: 1, Object: gadget},
			{File: "crs/widgets.yaml", Document: 0, Object: tooBig},
			{File: "crs/widgets.yaml", Document: 1, Object: small},
			{File: "crs/widgets.yaml", Document: 2, Object: web, Skipped: "built-in kind: the server's to judge"},
		}},
		Rules: catalogue(),
	}
}

func catalogue() []Rule {
	return []Rule{
		{ID: "crd-structural", Severity: Error, Doc: "CRD schemas must be structural.", Why: "The server rejects the CRD.", Fix: "Give every field a `type`."},
		{ID: "cel-compile", Severity: Error, Doc: "x-kubernetes-validations rules must compile."},
		{ID: "crd-version-deprecated", Severity: Warning, Doc: "Served versions should not be deprecated."},
	}
}

func empty() Result {
	return Result{Summary: Summary{Files: 2, Documents: 5, Skipped: 1}, Rules: catalogue()}
}

func render(t *testing.T, f Format, r Result, o Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, f, r, o); err != nil {
		t.Fatalf("Render(%s): %v", f, err)
	}
	return buf.Bytes()
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		result Result
		opts   Options
	}{
		{"text", Text, fixture(), Options{SummaryLine: true}},
		{"text_color", Text, fixture(), Options{SummaryLine: true, Color: true}},
		{"text_nosummary", Text, fixture(), Options{}},
		{"json", JSON, fixture(), Options{}},
		{"sarif", SARIF, fixture(), Options{ToolVersion: "v1.2.3"}},
		{"github", GitHub, fixture(), Options{SummaryLine: true}},
		{"junit", JUnit, fixture(), Options{}},
		{"junit_failon_warning", JUnit, fixture(), Options{FailOn: Warning}},
		{"gitlab", GitLab, fixture(), Options{}},
		{"empty_text", Text, empty(), Options{SummaryLine: true}},
		{"empty_json", JSON, empty(), Options{}},
		{"empty_sarif", SARIF, empty(), Options{}},
		{"empty_junit", JUnit, empty(), Options{}},
		{"empty_gitlab", GitLab, empty(), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, tt.format, tt.result, tt.opts)
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestRenderKeepsCallerOrder(t *testing.T) {
	r := fixture()
	before := slices.Clone(r.Findings)
	for _, f := range Formats() {
		render(t, f, r, Options{})
	}
	if !slices.Equal(r.Findings, before) {
		t.Errorf("got findings reordered to %v, want %v", r.Findings, before)
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, "xml", fixture(), Options{}); err == nil {
		t.Errorf("got nil error, want one")
	}
}

// TestJSONContract pins the key sets, so that renaming a struct field or
// tag breaks a test before it breaks somebody's script.
func TestJSONContract(t *testing.T) {
	var out map[string]any
	if err := json.Unmarshal(render(t, JSON, fixture(), Options{}), &out); err != nil {
		t.Fatal(err)
	}
	findings := out["findings"].([]any)
	if len(findings) != len(fixture().Findings) {
		t.Fatalf("got %d findings, want %d", len(findings), len(fixture().Findings))
	}
	finding := findings[0].(map[string]any)
	tests := []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"top", out, []string{"findings", "summary"}},
		{"finding", finding, []string{"rule", "severity", "message", "field", "file", "document", "line", "column", "object"}},
		{"object", finding["object"].(map[string]any), []string{"apiVersion", "kind", "namespace", "name"}},
		{"summary", out["summary"].(map[string]any), []string{"files", "documents", "errors", "warnings", "skipped", "suppressed", "crds", "customResources"}},
		{"suppressed finding", suppressedFinding(t, findings), []string{"rule", "severity", "message", "field", "file", "document", "line", "column", "object", "suppressed"}},
		{"suppression", suppressedFinding(t, findings)["suppressed"].(map[string]any), []string{"kind", "reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(tt.obj))
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("got keys %v, want %v", got, want)
			}
		})
	}

	if got, want := finding["severity"], "error"; got != want {
		t.Errorf("got severity %v, want %v", got, want)
	}
	var back struct {
		Findings []Finding `json:"findings"`
		Summary  Summary   `json:"summary"`
	}
	if err := json.Unmarshal(render(t, JSON, fixture(), Options{}), &back); err != nil {
		t.Fatal(err)
	}
	// prepare's sorting and trimming are the goldens' business; this only
	// checks that nothing is lost between Finding and JSON.
	want := prepare(fixture())
	want.Summary.Checked = nil // not in the contract: JUnit's
	if !reflect.DeepEqual(back.Summary, want.Summary) {
		t.Errorf("got summary %+v, want %+v", back.Summary, want.Summary)
	}
	for i := range max(len(back.Findings), len(want.Findings)) {
		if i >= len(back.Findings) || i >= len(want.Findings) || !reflect.DeepEqual(back.Findings[i], want.Findings[i]) {
			t.Errorf("finding %d: got %+v, want %+v", i, back.Findings[i:], want.Findings[i:])
			break
		}
	}
}

// suppressedFinding returns the first JSON finding that has "suppressed".
func suppressedFinding(t *testing.T, findings []any) map[string]any {
	t.Helper()
	for _, f := range findings {
		if m := f.(map[string]any); m["suppressed"] != nil {
			return m
		}
	}
	t.Fatal("no suppressed finding in the JSON output")
	return nil
}

func TestJSONEmptyFindingsIsArray(t *testing.T) {
	var out struct{ Findings json.RawMessage }
	if err := json.Unmarshal(render(t, JSON, Result{}, Options{}), &out); err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.Findings), "[]"; got != want {
		t.Errorf("got findings %s, want %s", got, want)
	}
}

func TestSARIFRuleIndex(t *testing.T) {
	var log sarifLog
	if err := json.Unmarshal(render(t, SARIF, fixture(), Options{}), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	ids := map[string]bool{}
	for _, r := range catalogue() {
		ids[r.ID] = true
	}
	for _, f := range fixture().Findings {
		ids[f.Rule] = true
	}
	if got, want := len(run.Tool.Driver.Rules), len(ids); got != want {
		t.Errorf("got %d rules, want %d (the catalogue plus the findings' rules missing from it)", got, want)
	}
	if got, want := len(run.Results), len(fixture().Findings); got != want {
		t.Errorf("got %d results, want %d", got, want)
	}
	for i, res := range run.Results {
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) {
			t.Errorf("result %d: got ruleIndex %d, want < %d", i, res.RuleIndex, len(run.Tool.Driver.Rules))
			continue
		}
		if got, want := run.Tool.Driver.Rules[res.RuleIndex].ID, res.RuleID; got != want {
			t.Errorf("result %d: got rule %q at ruleIndex %d, want %q", i, got, res.RuleIndex, want)
		}
	}
}

func TestSARIFURI(t *testing.T) {
	tests := []struct{ file, want string }{
		{"crds/a.yaml", "crds/a.yaml"},
		{"./crds/a.yaml", "crds/a.yaml"},
		{"my crds/a#1.yaml", "my%20crds/a%231.yaml"},
		{"a:b.yaml", "./a:b.yaml"},
		{"/abs/a.yaml", "file:///abs/a.yaml"},
		{"<stdin>", "<stdin>"},
	}
	for _, tt := range tests {
		if got := sarifURI(tt.file); got != tt.want {
			t.Errorf("sarifURI(%q): got %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestGitHubEscape(t *testing.T) {
	tests := []struct {
		name, in, data, property string
	}{
		{"plain", "crd-structural", "crd-structural", "crd-structural"},
		{"percent", "100%", "100%25", "100%25"},
		{"newlines", "a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"separators", "a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"already escaped", "%0A", "%250A", "%250A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := escapeData(tt.in); got != tt.data {
				t.Errorf("escapeData: got %q, want %q", got, tt.data)
			}
			if got := escapeProperty(tt.in); got != tt.property {
				t.Errorf("escapeProperty: got %q, want %q", got, tt.property)
			}
		})
	}
}

func TestFormatSet(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr string
	}{
		{"text", Text, ""},
		{"JSON", JSON, ""},
		{"sarif", SARIF, ""},
		{"github", GitHub, ""},
		{"junit", JUnit, ""},
		{"GitLab", GitLab, ""},
		{"x", "", `invalid output format "x": must be one of text, json, sarif, github, junit, gitlab`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var f Format
			err := f.Set(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || f != tt.want || f.String() != string(tt.want) {
				t.Errorf("got %q, %v, want %q, nil", f, err, tt.want)
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{None, Warning, Error} {
		got, err := ParseSeverity(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q): got %v, %v, want %v, nil", s.String(), got, err, s)
		}
	}
	if got, err := ParseSeverity("Warning"); err != nil || got != Warning {
		t.Errorf("ParseSeverity(%q): got %v, %v, want %v, nil", "Warning", got, err, Warning)
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Errorf("ParseSeverity(%q): got nil error, want one", "fatal")
	}
}

func TestFails(t *testing.T) {
	warnOnly := Result{Findings: []Finding{{Severity: Warning}}}
	suppressedOnly := Result{Findings: []Finding{
		{Severity: Error, Suppressed: &Suppression{Kind: SuppressedInline, Reason: "r"}},
		{Severity: Warning, Suppressed: &Suppression{Kind: SuppressedConfig, Reason: "r"}},
	}}
	tests := []struct {
		name      string
		r         Result
		threshold Severity
		want      bool
	}{
		{"error at error", fixture(), Error, true},
		{"error at warning", fixture(), Warning, true},
		{"error at none", fixture(), None, false},
		{"warning at error", warnOnly, Error, false},
		{"warning at warning", warnOnly, Warning, true},
		{"empty at warning", empty(), Warning, false},
		{"suppressed at error", suppressedOnly, Error, false},
		{"suppressed at warning", suppressedOnly, Warning, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Fails(tt.threshold); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	r := fixture()
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Suppressed = 99, 99, 99
	r.Count()
	if r.Summary.Errors != 5 || r.Summary.Warnings != 3 || r.Summary.Suppressed != 2 {
		t.Errorf("got %d errors, %d warnings, %d suppressed, want 5, 3, 2", r.Summary.Errors, r.Summary.Warnings, r.Summary.Suppressed)
	}
}

func ExampleRender() {
	r := Result{
		Findings: []Finding{{
			Rule:     "crd-structural",
			Severity: Error,
			Message:  "Required value: must not be empty for specified object fields",
			Field:    "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
			File:     "crds/widget.yaml",
			Line:     12,
			Column:   7,
			Object:   ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"},
		}},
		Summary: Summary{Files: 1, Documents: 1, CRDs: 1},
	}
	_ = Render(os.Stdout, Text, r, Options{SummaryLine: true})
	// Output:
	// crds/widget.yaml:12:7: error crd-structural: CustomResourceDefinition widgets.example.com: Required value: must not be empty for specified object fields [spec.versions[0].schema.openAPIV3Schema.properties[spec].type]
	// 1 error in 1 file (1 document: 1 CRD, 0 custom resources validated)
}
