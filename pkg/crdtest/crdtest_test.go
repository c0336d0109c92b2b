package crdtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// runFile reads a suite and runs it on the CRDs it names.
func runFile(t testing.TB, f string) (*Suite, []*Result) {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(f, data)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Load(s.CRDs...)
	if err != nil {
		t.Fatal(err)
	}
	return s, Run(s, srv)
}

// TestSuitesPass: every in-repo suite passes (its expectations were
// recorded with --update and checked against a real server by
// TestPredictionAgainstReality).
func TestSuitesPass(t *testing.T) {
	files, _ := filepath.Glob("testdata/suites/*.crdtest.yaml")
	for _, f := range files {
		_, rs := runFile(t, f)
		for _, r := range rs {
			if !r.Passed {
				t.Errorf("%s:%d: %s: %s %+v", r.File, r.Line, r.Case, r.Error, r.Diffs)
			}
		}
		if len(rs) == 0 {
			t.Errorf("%s: no cases", f)
		}
	}
}

// TestOutputGoldens renders one suite of failing cases in every format.
func TestOutputGoldens(t *testing.T) {
	s, rs := runFile(t, "testdata/failing/failing.crdtest.yaml")
	sum := Summarize(1, rs, 0)
	if sum.Passed != 1 || sum.Failed != 5 {
		t.Fatalf("got %d passed, %d failed; want 1 and 5", sum.Passed, sum.Failed)
	}
	_ = s
	for _, tc := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"out.txt", func(b *bytes.Buffer) error { return RenderText(b, rs, sum) }},
		{"out.json", func(b *bytes.Buffer) error { return RenderJSON(b, rs, sum) }},
		{"out.xml", func(b *bytes.Buffer) error { return RenderJUnit(b, rs, sum) }},
		{"out.github", func(b *bytes.Buffer) error { return RenderGitHub(b, rs, sum) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.render(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", tc.name)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs (go test ./pkg/crdtest -run TestOutputGoldens -update):\n%s", golden, b.String())
			}
		})
	}
}

// TestRecordRoundTrip: --update writes the server's answers into a suite
// whose cases have no (or wrong) expectations; the suite then passes,
// its comments and the cases that passed are kept, and a second record
// changes nothing.
func TestRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	crd, err := os.ReadFile("testdata/suites/widgets-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	suite := `apiVersion: crdlint.dev/v1alpha1
kind: CRDTestSuite
crds: [crd.yaml]
tests:
# a comment before the first case
- name: bootstrapped
  objectFile: big.yaml # a comment on a key
  # a comment inside the case
- name: wrong
  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2}}
  expect:
    # this expectation is wrong
    accepted: false
  # a comment after the expectation
- name: right
  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: 2, extra: 1}}
  expect: {accepted: true}
# the end
`
	path := filepath.Join(dir, "x.crdtest.yaml")
	for name, content := range map[string]string{"x.crdtest.yaml": suite, "big.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: big}\nspec: {size: 30}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, rs := runFile(t, path)
	if Passed(rs) != 1 {
		t.Fatalf("before: %d passed, want 1", Passed(rs))
	}
	if err := Record(s, rs); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, keep := range []string{"# a comment before the first case", "# a comment on a key", "# a comment inside the case", "# a comment after the expectation", "# the end", "  expect: {accepted: true}\n"} {
		if !strings.Contains(string(got), keep) {
			t.Errorf("%q lost:\n%s", keep, got)
		}
	}
	if strings.Contains(string(got), "# this expectation is wrong") {
		t.Errorf("the replaced expectation's comment is kept:\n%s", got)
	}
	s2, rs2 := runFile(t, path)
	if Passed(rs2) != len(rs2) {
		t.Errorf("after --update: %d of %d passed:\n%s", Passed(rs2), len(rs2), got)
	}
	if err := Record(s2, rs2); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if !bytes.Equal(got, again) {
		t.Errorf("a second --update changed the suite:\n%s", again)
	}
}

// TestReadErrors: a suite that cannot be read is one error at its
// position.
func TestReadErrors(t *testing.T) {
	head := "apiVersion: crdlint.dev/v1alpha1\nkind: CRDTestSuite\ncrds: [c.yaml]\n"
	obj := "  object: {apiVersion: example.com/v1, kind: Widget}\n"
	tests := []struct {
		name, text, want string
	}{
		{"syntax", "a: [\n", "x.yaml:1: did not find expected node content"},
		{"not a mapping", "- a\n", "x.yaml:1:1: a suite is a mapping"},
		{"no tests", head, "x.yaml:1:1: the suite has no tests:"},
		{"wrong kind", "apiVersion: crdlint.dev/v1alpha1\nkind: Other\ntests: []\n", `x.yaml:2:7: kind must be CRDTestSuite, not "Other"`},
		{"unknown key", head + "tests:\n- name: a\n  objekt: {}\n", `x.yaml:6:3: a case: unknown key "objekt"`},
		{"no name", head + "tests:\n-" + obj[1:], "x.yaml:5:3: a case needs a name:"},
		{"no object", head + "tests:\n- name: a\n", `x.yaml:5:3: "a": the case needs the request's object`},
		{"duplicate", head + "tests:\n- name: a\n" + obj + "- name: a\n" + obj, `x.yaml:7:3: a case named "a" is already at line 5`},
		{"status without old", head + "tests:\n- name: a\n  subresource: status\n" + obj, `x.yaml:5:3: "a": a write of the status subresource is an update`},
		{"bad subresource", head + "tests:\n- name: a\n  subresource: scale\n" + obj, `x.yaml:6:16: subresource must be status`},
		{"bad minor", head + "kubernetesVersions: 1.20-1.37\ntests: []\n", `x.yaml:4:21: kubernetesVersions: "1.20" is not a supported Kubernetes minor`},
		{"empty range", head + "kubernetesVersions: 1.37-1.33\ntests: []\n", `x.yaml:4:21: kubernetesVersions: "1.37-1.33" is an empty range`},
		{"accepted with errors", head + "tests:\n- name: a\n" + obj + "  expect: {accepted: true, errors: [{field: a}]}\n", "x.yaml:7:11: expect: accepted: true, yet it describes an error"},
		{"bad fieldValidation", head + "fieldValidation: loud\ntests: []\n", `x.yaml:4:18: fieldValidation must be one of Strict, Warn, Ignore, not "loud"`},
		{"object not a mapping", head + "tests:\n- name: a\n  object: [1]\n", "x.yaml:6:11: object must be an object (a mapping), not a list"},
		{"two documents", head + "tests: []\n---\na: 1\n", "x.yaml:5:1: a suite is one YAML document"},
		{"openshift without name", "crdName: a.b\ntests:\n  onCreate:\n  - initial: 'a: 1'\n", "x.yaml:4:5: a test needs a name:"},
		{"openshift misspelt key", "crdName: a.b\ntests:\n  onCreate:\n  - name: a\n    inital: 'a: 1'\n", `x.yaml:4:5: "a": initial is required`},
		{"openshift without crdName", "crdName: ''\ntests: {}\n", `x.yaml:1:1: the suite needs a crdName:`},
		{"openshift list of tests", "crdName: a.b\ntests:\n  onCreate: {}\n", `x.yaml:3:13: tests.onCreate must be a list, not a mapping`},
	}
	// A billion laughs of aliases is an error at the object, not a hang.
	bomb := head + "tests:\n- name: a\n  object:\n    x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
	for i := 1; i <= 8; i++ {
		bomb += fmt.Sprintf("    x%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	tests = append(tests, struct{ name, text, want string }{"alias bomb", bomb + "    spec: *a8\n", "x.yaml:7:5: object: excessive aliasing (more than 200000 nodes)"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("x.yaml", []byte(tc.text))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %q\nwant %q...", err, tc.want)
			}
		})
	}
}

// TestOpenShiftLoose: openshift's suites are read as its generator reads
// them (github.com/ghodss/yaml into its types): aliases and merge keys
// resolve, keys match case-insensitively, the last of a repeated key
// wins, and keys it does not read are ignored, each a warning at the
// key. Upstream suites depend on each (a YAML alias for initial, a
// top-level featureGate: that the generator ignores, a misplaced
// onUpdate).
func TestOpenShiftLoose(t *testing.T) {
	obj := func(kind string) string { return "apiVersion: example.com/v1\nkind: " + kind }
	text := `featureGate: Gate
crdName: widgets.example.com
FeatureGates: [A]
tests:
  onCreate:
  - name: first
    initial: &obj |
      ` + strings.ReplaceAll(obj("Widget"), "\n", "\n      ") + `
    expectedErr: ignored
  - name: aliased
    initial: *obj
    extra: 1
  - <<: {name: merged, initial: *obj}
  onCreate:
  - name: last wins
    Initial: *obj
  onUpdate: null
onUpdate:
- name: never run
`
	s, err := Read("x.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range s.Cases {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "last wins" {
		t.Errorf("cases %q, want the last onCreate's only", names)
	}
	if strings.Join(s.FeatureGates, ",") != "A" {
		t.Errorf("featureGates %q, want [A] (FeatureGates matches; featureGate does not)", s.FeatureGates)
	}
	var warns []string
	for _, w := range s.Warnings {
		warns = append(warns, w.Error())
	}
	want := []string{
		// The first onCreate is not read: the second replaces it.
		`x.yaml:1:1: the suite: "featureGate" is not a key openshift's generator reads; it is ignored (the key is featureGates)`,
		`x.yaml:19:1: the suite: "onUpdate" is not a key openshift's generator reads; it is ignored (onUpdate belongs in tests)`,
	}
	if strings.Join(warns, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	// The first onCreate, read alone: the alias and the merge key
	// resolve.
	first := strings.SplitN(text, "  onCreate:\n  - name: last", 2)[0]
	s, err = Read("x.yaml", []byte(first))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 3 || s.Cases[2].Name != "merged" {
		t.Fatalf("cases %+v", s.Cases)
	}
	if len(s.Warnings) != 3 || s.Warnings[1].Error() != `x.yaml:10:5: a test: "expectedErr" is not a key openshift's generator reads; it is ignored` || s.Warnings[2].Pos.Line != 13 {
		t.Errorf("warnings %v", s.Warnings)
	}
	for _, c := range s.Cases {
		if k := c.Steps[0].Object["kind"]; k != "Widget" {
			t.Errorf("%s: kind %v", c.Name, k)
		}
	}
}

// TestDiscover: below the paths given, testdata, vendor, node_modules and
// hidden directories are skipped (a project's fixtures, some failing on
// purpose, and copies of other projects); a path inside one is searched
// when given.
func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"a.crdtest.yaml", "sub/b.crdtest.yml", "sub/c.yaml",
		"testdata/failing.crdtest.yaml", "pkg/testdata/x/d.crdtest.yaml",
		"vendor/e.crdtest.yaml", "node_modules/f.crdtest.yaml", ".git/g.crdtest.yaml",
		"api/tests/widgets.example.com/h.yaml", "api/tests/widgets.example.com/not-a-suite.yaml",
	} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "a: 1\n"
		if strings.HasSuffix(f, "h.yaml") {
			content = "name: x\ncrdName: widgets.example.com\ntests:\n  onCreate: []\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(paths ...string) string {
		got, err := Discover(paths)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			got[i], _ = filepath.Rel(dir, g)
		}
		return strings.Join(got, " ")
	}
	if got, want := rel(dir), "a.crdtest.yaml api/tests/widgets.example.com/h.yaml sub/b.crdtest.yml"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := rel(filepath.Join(dir, "testdata")), "testdata/failing.crdtest.yaml"; got != want {
		t.Errorf("a testdata directory given: got %s, want %s", got, want)
	}
}
