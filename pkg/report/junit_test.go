package report

import (
	"encoding/xml"
	"reflect"
	"strings"
	"testing"
)

// junitRead is the JUnit output read back the way CI readers see it.
type junitRead struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Failures  []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped []struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut []string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, data []byte) junitRead {
	t.Helper()
	var out junitRead
	if err := xml.Unmarshal(data, &out); err != nil {
		t.Fatalf("output is not XML: %v\n%s", err, data)
	}
	return out
}

func TestJUnitSchema(t *testing.T) {
	s := loadJUnitSchema(t)
	tests := []struct {
		name string
		r    Result
		o    Options
	}{
		{"fixture", fixture(), Options{}},
		{"fail on warning", fixture(), Options{FailOn: Warning}},
		{"empty", empty(), Options{}},
		{"no checked list", Result{Findings: fixture().Findings}, Options{}},
		{"skipped with warnings", Result{
			Findings: []Finding{{Rule: "yaml11-key", Severity: Warning, Message: "on", File: "d.yaml", Line: 3, Column: 1, Object: web}},
			Summary:  Summary{Checked: []Checked{{File: "d.yaml", Object: web, Skipped: "built-in kind"}}},
		}, Options{}},
		{"control characters", Result{Findings: []Finding{{Rule: "r", Severity: Error, Message: "bell \a esc \x1b nul \x00 ]]> <&>\"'", File: "a\x01.yaml", Line: 1}}}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, JUnit, tt.r, tt.o)
			if errs := s.validate(out); len(errs) > 0 {
				t.Errorf("output breaks junit-10.xsd:\n%s\n%s", strings.Join(errs, "\n"), out)
			}
		})
	}
}

// TestJUnitCases pins each object's test case: passed, failed or skipped,
// and what its failure says.
func TestJUnitCases(t *testing.T) {
	type want struct {
		status  string // passed, failed, skipped
		message string // failure message, or system-out when passed
	}
	tests := []struct {
		name  string
		opts  Options
		cases map[string]want // "file|name"
		tests int
		fails int
	}{
		{
			name:  "fail on error",
			tests: 8, fails: 4,
			cases: map[string]want{
				"crds/my gadget.yaml|whole file":                                             {"failed", "parse-error: yaml: line 7: mapping values are not allowed in this context"},
				"crds/my gadget.yaml|CustomResourceDefinition sprockets.example.com":         {"passed", ""},
				"crds/my gadget.yaml|CustomResourceDefinition gadgets.example.com":           {"failed", "crd-structural: Forbidden: must not be used in a structural schema [spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties]"},
				"crds/widget.yaml|CustomResourceDefinition widgets.example.com (document 1)": {"failed", "2 errors: crd-structural, cel-compile"},
				"crds/widget.yaml|CustomResourceDefinition widgets.example.com (document 2)": {"passed", "./crds/widget.yaml:3:1: warning crd-version-deprecated: version v1alpha1 is served but deprecated: 100%, not 0%\n"},
				"crs/widgets.yaml|Widget shop/too-big":                                       {"failed", "cr-cel: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
				// Only suppressed findings: it passes, and says nothing.
				"crs/widgets.yaml|Widget shop/small":   {"passed", ""},
				"crs/widgets.yaml|Deployment shop/web": {"skipped", ""},
			},
		},
		{
			name:  "fail on warning",
			opts:  Options{FailOn: Warning},
			tests: 8, fails: 5,
			cases: map[string]want{
				"crds/widget.yaml|CustomResourceDefinition widgets.example.com (document 2)": {"failed", "crd-version-deprecated: version v1alpha1 is served but deprecated: 100%, not 0%"},
				"crs/widgets.yaml|Widget shop/too-big":                                       {"failed", "1 error, 2 warnings: cr-cel, duplicate-field"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readJUnit(t, render(t, JUnit, fixture(), tt.opts))
			if out.Tests != tt.tests || out.Failures != tt.fails {
				t.Errorf("got %d tests, %d failures, want %d, %d", out.Tests, out.Failures, tt.tests, tt.fails)
			}
			seen := map[string]bool{}
			var tests, fails int
			for _, s := range out.Suites {
				var sTests, sFails, sSkipped int
				for _, c := range s.Cases {
					key := s.Name + "|" + c.Name
					if seen[key] {
						t.Errorf("test case %q twice", key)
					}
					seen[key] = true
					if c.ClassName != s.Name {
						t.Errorf("%s: got classname %q, want the file %q", key, c.ClassName, s.Name)
					}
					if len(c.Failures) > 1 {
						t.Errorf("%s: got %d failure elements, want at most one (CI readers see only the first)", key, len(c.Failures))
					}
					got := want{status: "passed"}
					switch {
					case len(c.Failures) > 0:
						got = want{"failed", c.Failures[0].Message}
						sFails++
					case len(c.Skipped) > 0:
						got.status = "skipped"
						sSkipped++
					case len(c.SystemOut) > 0:
						got.message = c.SystemOut[0]
					}
					sTests++
					if w, ok := tt.cases[key]; ok && got != w {
						t.Errorf("%s: got %+v, want %+v", key, got, w)
					}
				}
				if s.Tests != sTests || s.Failures != sFails || s.Skipped != sSkipped {
					t.Errorf("suite %s: got tests=%d failures=%d skipped=%d, counted %d, %d, %d", s.Name, s.Tests, s.Failures, s.Skipped, sTests, sFails, sSkipped)
				}
				tests += sTests
				fails += sFails
			}
			if tests != out.Tests || fails != out.Failures {
				t.Errorf("testsuites: got tests=%d failures=%d, counted %d, %d", out.Tests, out.Failures, tests, fails)
			}
			for key := range tt.cases {
				if !seen[key] {
					t.Errorf("no test case %q", key)
				}
			}
		})
	}
}

// TestJUnitFailureListsEveryFinding: the one failure element of a case
// carries all of its findings, the suppressed ones excepted.
func TestJUnitFailureListsEveryFinding(t *testing.T) {
	out := readJUnit(t, render(t, JUnit, fixture(), Options{}))
	var text string
	for _, s := range out.Suites {
		for _, c := range s.Cases {
			if c.Name == "Widget shop/too-big" {
				text = c.Failures[0].Text
			}
		}
	}
	want := "crs/widgets.yaml:1:1: error cr-cel: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n" +
		"crs/widgets.yaml:9:3: warning duplicate-field: duplicate field \"spec.color\" [spec.color]\n" +
		"crs/widgets.yaml:11:3: warning duplicate-field: duplicate field \"spec.color\" [spec.color]\n"
	if text != want {
		t.Errorf("got failure text\n%s\nwant\n%s", text, want)
	}
	for _, s := range out.Suites {
		for _, c := range s.Cases {
			for _, f := range c.Failures {
				if strings.Contains(f.Text, "spec.colour") || strings.Contains(f.Text, "purple") {
					t.Errorf("%s: a suppressed finding is in the failure: %s", c.Name, f.Text)
				}
			}
		}
	}
}

// TestJUnitObjects: every object checked is a test case, so that a clean
// run is a report of passing tests; an object not judged is skipped (and
// keeps its warnings); a finding positioned in another file goes to its
// object's case when the run checked one object of that identity, and to
// a case of its own otherwise.
func TestJUnitObjects(t *testing.T) {
	gizmo := ObjectRef{APIVersion: "example.com/v1", Kind: "Gizmo", Namespace: "shop", Name: "g"}
	unnamed := ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "shop"}
	tests := []struct {
		name     string
		findings []Finding
		checked  []Checked
		want     map[string]string // "file|case" -> status: message
	}{
		{
			name: "clean run",
			checked: []Checked{
				{File: "crds/widget.yaml", Object: widget},
				{File: "crs/widgets.yaml", Object: small},
				{File: "crs/widgets.yaml", Document: 1, Object: tooBig},
			},
			want: map[string]string{
				"crds/widget.yaml|CustomResourceDefinition widgets.example.com": "passed",
				"crs/widgets.yaml|Widget shop/small":                            "passed",
				"crs/widgets.yaml|Widget shop/too-big":                          "passed",
			},
		},
		{
			name: "skipped keeps its warnings",
			findings: []Finding{
				{Rule: "yaml11-key", Severity: Warning, Message: "on", File: "deploy.yaml", Line: 3, Column: 1, Object: web},
			},
			checked: []Checked{
				{File: "deploy.yaml", Object: web, Skipped: "built-in kind"},
				{File: "crs/g.yaml", Object: gizmo, Skipped: "not validated: no CRD"},
			},
			want: map[string]string{
				"deploy.yaml|Deployment shop/web": "skipped: built-in kind; deploy.yaml:3:1: warning yaml11-key: on\n",
				"crs/g.yaml|Gizmo shop/g":         "skipped: not validated: no CRD",
			},
		},
		{
			name: "a missing CRD the server refuses fails",
			findings: []Finding{
				{Rule: "cr-no-crd", Severity: Error, Message: "no CRD", File: "crs/g.yaml", Line: 1, Column: 1, Object: gizmo},
			},
			checked: []Checked{{File: "crs/g.yaml", Object: gizmo, Skipped: "not validated: no CRD"}},
			want:    map[string]string{"crs/g.yaml|Gizmo shop/g": "failed: cr-no-crd: no CRD"},
		},
		{
			name: "finding positioned elsewhere",
			findings: []Finding{
				// kustomize: the field was set by a patch
				{Rule: "cr-schema", Severity: Error, Message: "Invalid value", Field: "spec.size", File: "overlays/patch.yaml", Line: 4, Column: 3, Object: small},
				// mapped to a file the object was not found in (line 0)
				{Rule: "cr-schema", Severity: Error, Message: "Required value", Field: "spec.color", File: "base/widgets.yaml", Object: small},
			},
			checked: []Checked{{File: "base/widgets.yaml", Document: 2, Object: small}},
			want: map[string]string{
				"base/widgets.yaml|Widget shop/small": "failed: 2 errors: cr-schema",
			},
		},
		{
			name: "ambiguous object keeps its own case",
			findings: []Finding{
				{Rule: "cr-schema", Severity: Error, Message: "Invalid value", File: "overlays/patch.yaml", Line: 4, Column: 3, Object: small},
			},
			checked: []Checked{
				{File: "a.yaml", Object: small},
				{File: "b.yaml", Object: small},
			},
			want: map[string]string{
				"a.yaml|Widget shop/small":              "passed",
				"b.yaml|Widget shop/small":              "passed",
				"overlays/patch.yaml|Widget shop/small": "failed: cr-schema: Invalid value",
			},
		},
		{
			// No name, no identity: not joined to the one checked.
			name: "unnamed object elsewhere",
			findings: []Finding{
				{Rule: "cr-schema", Severity: Error, Message: "Invalid value", File: "crs/other.yaml", Line: 3, Column: 1, Object: unnamed},
			},
			checked: []Checked{{File: "crs/one.yaml", Object: unnamed}},
			want: map[string]string{
				"crs/one.yaml|Widget (document 1)":   "passed",
				"crs/other.yaml|Widget (document 1)": "failed: cr-schema: Invalid value",
			},
		},
		{
			name: "unnamed objects and documents that are no object",
			findings: []Finding{
				{Rule: "yaml-syntax", Severity: Error, Message: "bad", File: "crs/w.yaml", Document: 2, Line: 9, Column: 1},
			},
			checked: []Checked{
				{File: "crs/w.yaml", Object: unnamed},
				{File: "crs/w.yaml", Document: 1, Object: unnamed},
				{File: "crs/one.yaml", Document: 4, Object: unnamed},
			},
			want: map[string]string{
				"crs/one.yaml|Widget (document 5)": "passed",
				"crs/w.yaml|Widget (document 1)":   "passed",
				"crs/w.yaml|Widget (document 2)":   "passed",
				"crs/w.yaml|document 3":            "failed: yaml-syntax: bad",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readJUnit(t, render(t, JUnit, Result{Findings: tt.findings, Summary: Summary{Checked: tt.checked}}, Options{}))
			got := map[string]string{}
			for _, s := range out.Suites {
				for _, c := range s.Cases {
					status := "passed"
					switch {
					case len(c.Failures) > 0:
						status = "failed: " + c.Failures[0].Message
					case len(c.Skipped) > 0:
						status = "skipped: " + c.Skipped[0].Message
					}
					if len(c.Failures) == 0 && len(c.SystemOut) > 0 {
						status += "; " + c.SystemOut[0]
					}
					got[s.Name+"|"+c.Name] = status
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got cases\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}
