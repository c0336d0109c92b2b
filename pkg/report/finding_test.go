package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestObjectRefString(t *testing.T) {
	tests := []struct {
		name string
		o    ObjectRef
		want string
	}{
		{"namespaced", ObjectRef{Kind: "Widget", Namespace: "shop", Name: "too-big"}, "Widget shop/too-big"},
		{"cluster-scoped", ObjectRef{Kind: "CustomResourceDefinition", Name: "widgets.example.com"}, "CustomResourceDefinition widgets.example.com"},
		{"no name", ObjectRef{Kind: "Widget"}, "Widget"},
		{"namespace without name", ObjectRef{Kind: "Widget", Namespace: "shop"}, "Widget"},
		{"no kind", ObjectRef{Namespace: "shop", Name: "x"}, ""},
		{"nothing", ObjectRef{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.o.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFingerprint: what an unrelated edit changes leaves the fingerprint
// alone; what identifies the finding changes it.
func TestFingerprint(t *testing.T) {
	base := Finding{
		Rule: "cr-schema", Severity: Error, Message: `Unsupported value: "purple"`, Field: "spec.color",
		File: "crs/widgets.yaml", Document: 1, Line: 20, Column: 10,
		Object: ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop", Name: "small"},
	}
	tests := []struct {
		name   string
		edit   func(*Finding)
		stable bool
	}{
		{"line", func(f *Finding) { f.Line += 7 }, true},
		{"column", func(f *Finding) { f.Column = 1 }, true},
		{"document", func(f *Finding) { f.Document = 4 }, true},
		{"apiVersion", func(f *Finding) { f.Object.APIVersion = "example.com/v2" }, true},
		{"leading ./", func(f *Finding) { f.File = "./" + f.File }, true},
		{"severity (--strict)", func(f *Finding) { f.Severity = Warning }, true},
		{"suppression", func(f *Finding) { f.Suppressed = &Suppression{Kind: SuppressedInline, Reason: "r"} }, true},
		{"file", func(f *Finding) { f.File = "crs/other.yaml" }, false},
		{"kind", func(f *Finding) { f.Object.Kind = "Gadget" }, false},
		{"namespace", func(f *Finding) { f.Object.Namespace = "other" }, false},
		{"name", func(f *Finding) { f.Object.Name = "big" }, false},
		{"rule", func(f *Finding) { f.Rule = "cr-cel" }, false},
		{"field", func(f *Finding) { f.Field = "spec.size" }, false},
		{"message", func(f *Finding) { f.Message = `Unsupported value: "pink"` }, false},
		// The separator keeps fields from running into each other.
		{"field into message", func(f *Finding) { f.Field, f.Message = "spec.colo", "r"+f.Message }, false},
	}
	fp := base.Fingerprint()
	if len(fp) != 64 {
		t.Fatalf("got fingerprint %q, want 64 hex digits", fp)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base
			tt.edit(&f)
			if got := f.Fingerprint() == fp; got != tt.stable {
				t.Errorf("fingerprint unchanged = %v, want %v", got, tt.stable)
			}
		})
	}
}

// TestSuppressedFindings pins where suppressed findings show, format by
// format: listed in JSON and SARIF, absent from the others, counted apart.
func TestSuppressedFindings(t *testing.T) {
	const marker = "spec.colour" // only in a suppressed finding of the fixture
	tests := []struct {
		format Format
		listed bool
	}{
		{Text, false},
		{GitHub, false},
		{JUnit, false},
		{GitLab, false},
		{JSON, true},
		{SARIF, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			out := string(render(t, tt.format, fixture(), Options{SummaryLine: true}))
			if got := strings.Contains(out, marker); got != tt.listed {
				t.Errorf("suppressed finding listed = %v, want %v:\n%s", got, tt.listed, out)
			}
		})
	}

	text := string(render(t, Text, fixture(), Options{SummaryLine: true}))
	if want := "5 errors, 3 warnings (2 suppressed) in 3 files (7 documents: 0 custom resources validated, 1 skipped)\n"; !strings.HasSuffix(text, want) {
		t.Errorf("got text ending\n%s\nwant %q", text[strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")+1:], want)
	}
	onlySuppressed := Result{Findings: fixture().Findings[8:], Summary: Summary{Files: 1, Documents: 1}}
	if got, want := string(render(t, Text, onlySuppressed, Options{SummaryLine: true})), "no problems (2 suppressed) in 1 file (1 document: 0 custom resources validated)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	var log sarifLog
	if err := json.Unmarshal(render(t, SARIF, fixture(), Options{}), &log); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, res := range log.Runs[0].Results {
		for _, s := range res.Suppressions {
			kinds[res.RuleID] = s.Kind + ": " + s.Justification
		}
	}
	wantKinds := map[string]string{
		"cr-schema":     "external: in .crdlint-baseline.json",
		"unknown-field": "inSource: read by the v2 controller",
	}
	if len(kinds) != len(wantKinds) {
		t.Errorf("got suppressions %v, want %v", kinds, wantKinds)
	}
	for rule, want := range wantKinds {
		if kinds[rule] != want {
			t.Errorf("%s: got suppression %q, want %q", rule, kinds[rule], want)
		}
	}
}

// TestObjectRoot: the server's "<nil>" field of a finding on the object
// itself reaches no output.
func TestObjectRoot(t *testing.T) {
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			if out := render(t, f, fixture(), Options{SummaryLine: true}); bytes.Contains(out, []byte("<nil>")) {
				t.Errorf("output contains <nil>:\n%s", out)
			}
		})
	}
}

// TestTextNamesObjects: every text line of a finding with a known object
// names it after the position; findings about the whole file name none.
func TestTextNamesObjects(t *testing.T) {
	text := string(render(t, Text, fixture(), Options{}))
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.HasPrefix(line, "    ") {
			continue // a continuation of a multi-line message
		}
		named := strings.Contains(line, ": CustomResourceDefinition ") || strings.Contains(line, ": Widget shop/")
		whole := strings.HasPrefix(line, "crds/my gadget.yaml: ")
		if named == whole {
			t.Errorf("line names its object = %v, is about the whole file = %v: %s", named, whole, line)
		}
	}
}

func TestRenderRules(t *testing.T) {
	for _, f := range []Format{Text, JSON} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderRules(&buf, catalogue(), f); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "rules."+string(f)+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if buf.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
			}
		})
	}
	var out struct {
		Rules []map[string]any `json:"rules"`
	}
	var buf bytes.Buffer
	if err := RenderRules(&buf, nil, JSON); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil || out.Rules == nil {
		t.Errorf("empty catalogue: got %s (%v), want an empty rules array", buf.String(), err)
	}
	if err := RenderRules(&buf, catalogue(), SARIF); err == nil {
		t.Errorf("sarif: got nil error, want one")
	}
}

// FuzzRender renders arbitrary findings in every format: no panic, and
// the machine formats stay parseable (XML for JUnit, JSON for the rest).
func FuzzRender(f *testing.F) {
	f.Add("crd-structural", "Required value: x\n | y", "spec.a", "crds/a.yaml", "Widget", "shop", "w", 3, 2, 1, 0)
	f.Add("", "", "<nil>", "", "", "", "", 0, 0, 0, 1)
	f.Add("r", "]]> <&>\x00\x1b\"'", "f", "./a:b,c%.yaml", "K", "", "", -1, -1, -1, 2)
	f.Fuzz(func(t *testing.T, rule, msg, field, file, kind, ns, name string, line, col, doc, mode int) {
		fd := Finding{
			Rule: rule, Severity: Severity(mode % 3), Message: msg, Field: field, File: file,
			Document: doc, Line: line, Column: col, Object: ObjectRef{Kind: kind, Namespace: ns, Name: name},
		}
		if mode%2 == 1 {
			fd.Suppressed = &Suppression{Kind: SuppressedInline, Reason: msg}
		}
		r := Result{
			Findings: []Finding{fd, fd},
			Rules:    []Rule{{ID: rule, Severity: Error, Doc: msg, Why: field, Fix: name}},
			Summary:  Summary{Checked: []Checked{{File: file, Document: doc, Object: ObjectRef{Kind: kind}, Skipped: name}}},
		}
		for _, format := range Formats() {
			var buf bytes.Buffer
			if err := Render(&buf, format, r, Options{SummaryLine: true, FailOn: Severity(mode % 3)}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			switch format {
			case JUnit:
				if err := xml.Unmarshal(buf.Bytes(), new(junitRead)); err != nil {
					t.Fatalf("junit output is not XML: %v\n%s", err, buf.String())
				}
			case JSON, SARIF, GitLab:
				if !json.Valid(buf.Bytes()) {
					t.Fatalf("%s output is not JSON:\n%s", format, buf.String())
				}
			}
		}
	})
}

func TestSubject(t *testing.T) {
	w := ObjectRef{Kind: "Widget", Namespace: "shop", Name: "w2"}
	tests := []struct {
		name string
		f    Finding
		want string
	}{
		{"named", Finding{Message: "Invalid value", Object: w}, "Widget shop/w2: "},
		{"message names it", Finding{Message: "Widget shop/w2 is only in the new revision", Object: w}, ""},
		{"message names it with a colon", Finding{Message: "Widget shop/w2: gone", Object: w}, ""},
		{"message names another", Finding{Message: "Widget shop/w20 is only in the new revision", Object: w}, "Widget shop/w2: "},
		{"no object", Finding{Message: "yaml: line 3"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subject(tt.f); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSortFollows: a finding that sums up others of its object comes
// after them, at the last one's place; the findings of other objects and
// documents and warnings keep theirs.
func TestSortFollows(t *testing.T) {
	w := ObjectRef{Kind: "Widget", Name: "w"}
	v := ObjectRef{Kind: "Widget", Name: "v"}
	note := Finding{Rule: "cr-cel-skipped", Severity: Error, File: "a.yaml", Line: 5, Column: 3, Object: w, Follows: true}
	tests := []struct {
		name string
		in   []Finding
		want []string
	}{
		{
			name: "same place: after the error, whatever the rule IDs",
			in: []Finding{
				{Rule: "cr-schema", Severity: Error, File: "a.yaml", Line: 5, Column: 3, Object: w},
				note,
			},
			want: []string{"cr-schema", "cr-cel-skipped@5:3"},
		},
		{
			name: "placed before its errors (a mapping moved them): after the last",
			in: []Finding{
				{Rule: "cr-metadata", Severity: Error, File: "a.yaml", Line: 9, Column: 3, Object: w},
				{Rule: "cr-schema", Severity: Error, File: "a.yaml", Line: 7, Column: 3, Object: w},
				note,
				{Rule: "unknown-field", Severity: Warning, File: "a.yaml", Line: 8, Column: 3, Object: w},
				{Rule: "cr-schema", Severity: Error, File: "a.yaml", Line: 8, Column: 3, Object: v},
				{Rule: "cr-schema", Severity: Error, File: "a.yaml", Document: 1, Line: 20, Column: 3, Object: w},
			},
			want: []string{"cr-schema", "cr-schema", "unknown-field", "cr-metadata", "cr-cel-skipped@9:3", "cr-schema"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := append([]Finding{}, tt.in...)
			Sort(fs)
			var got []string
			for _, f := range fs {
				if f.Follows {
					got = append(got, fmt.Sprintf("%s@%d:%d", f.Rule, f.Line, f.Column))
					continue
				}
				got = append(got, f.Rule)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
