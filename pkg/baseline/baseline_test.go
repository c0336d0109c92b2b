package baseline

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

var widget = report.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"}

func fnd(file string, line int, rule, field, msg string) report.Finding {
	return report.Finding{Rule: rule, Severity: report.Warning, File: file, Line: line, Column: 3, Field: field, Message: msg, Object: widget}
}

// TestWriteGolden: the file format, sorted and counted, against a golden.
func TestWriteGolden(t *testing.T) {
	t.Chdir(t.TempDir())
	fs := []report.Finding{
		fnd("crds/b.yaml", 9, "crd-no-pruning", "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-preserve-unknown-fields", "pruning is disabled at the root"),
		fnd("crds/a.yaml", 30, "crd-empty-object", "spec.versions[0].schema.openAPIV3Schema.properties[spec]", "object without properties\n"),
		fnd("crds/a.yaml", 12, "crd-empty-object", "spec.versions[0].schema.openAPIV3Schema.properties[spec]", "object without properties"),
		{Rule: "yaml-syntax", Severity: report.Error, File: "broken.yaml", Line: 4, Column: 1, Message: `yaml: did not find expected key: "quoted" # not a comment`},
		{Rule: "cr-schema", Severity: report.Error, File: "./samples/w.yaml", Line: 7, Message: "Unsupported value: \"x\"", Field: "spec.mode",
			Object: report.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w"}},
	}
	b, err := New(".crdlint-baseline.yaml", fs, "v0.4.0")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		t.Fatal(err)
	}
	compare(t, buf.Bytes())
	// It reads back to the same entries.
	back, err := Parse(".crdlint-baseline.yaml", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back.Entries) != fmt.Sprint(b.Entries) || back.Tool != "v0.4.0" {
		t.Errorf("read back %v\nwant %v", back.Entries, b.Entries)
	}
}

// compare checks the golden from the package directory, whatever the
// test's working directory.
func compare(t *testing.T, got []byte) {
	t.Helper()
	file := filepath.Join(pkgDir, "testdata", "baseline.golden")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./pkg/baseline -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("baseline.golden differs (go test ./pkg/baseline -update):\n--- got\n%s--- want\n%s", got, want)
	}
}

var pkgDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return wd
}()

// TestMatchCounts: an entry with count n accepts n identical findings;
// more are fresh, fewer leave a stale remainder.
func TestMatchCounts(t *testing.T) {
	t.Chdir(t.TempDir())
	a := fnd("a.yaml", 10, "crd-empty-object", "f", "m")
	tests := []struct {
		name                    string
		recorded, now           int
		fresh, baselined, stale int
		staleCount              int
	}{
		{"same", 2, 2, 0, 2, 0, 0},
		{"one more", 2, 3, 1, 2, 0, 0},
		{"one fixed", 2, 1, 0, 1, 1, 0},
		{"all fixed", 3, 0, 0, 0, 1, 3},
		{"none recorded", 0, 2, 2, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := New("b.yaml", slices.Repeat([]report.Finding{a}, tt.recorded), "v1")
			if err != nil {
				t.Fatal(err)
			}
			fresh, baselined, stale := b.Match(slices.Repeat([]report.Finding{a}, tt.now))
			if len(fresh) != tt.fresh || len(baselined) != tt.baselined || len(stale) != tt.stale {
				t.Fatalf("fresh %d, baselined %d, stale %d; want %d, %d, %d", len(fresh), len(baselined), len(stale), tt.fresh, tt.baselined, tt.stale)
			}
			if tt.stale > 0 && stale[0].Count != tt.staleCount {
				t.Errorf("stale count %d, want %d", stale[0].Count, tt.staleCount)
			}
			for _, x := range baselined {
				if x.Suppression != (suppress.Suppression{Kind: suppress.KindBaseline, Reason: "accepted in b.yaml"}) {
					t.Errorf("suppression %+v", x.Suppression)
				}
			}
		})
	}
}

// TestMatchKey: what makes a finding another one, and what does not.
func TestMatchKey(t *testing.T) {
	t.Chdir(t.TempDir())
	base := fnd("a.yaml", 10, "crd-empty-object", "spec.x", "m")
	b, err := New("b.yaml", []report.Finding{base}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	other := func(fn func(*report.Finding)) report.Finding { f := base; fn(&f); return f }
	tests := []struct {
		name string
		f    report.Finding
		same bool
	}{
		{"another line and column", other(func(f *report.Finding) { f.Line, f.Column = 99, 9 }), true},
		{"another document index", other(func(f *report.Finding) { f.Document = 3 }), true},
		{"another severity (--strict)", other(func(f *report.Finding) { f.Severity = report.Error }), true},
		{"the same file as ./a.yaml", other(func(f *report.Finding) { f.File = "./a.yaml" }), true},
		{"the same file, absolute", other(func(f *report.Finding) { f.File, _ = filepath.Abs("a.yaml") }), true},
		{"a trailing newline", other(func(f *report.Finding) { f.Message += "\n" }), true},
		{"another file", other(func(f *report.Finding) { f.File = "b.yaml" }), false},
		{"another rule", other(func(f *report.Finding) { f.Rule = "crd-no-pruning" }), false},
		{"another field", other(func(f *report.Finding) { f.Field = "spec.y" }), false},
		{"another message", other(func(f *report.Finding) { f.Message = "n" }), false},
		{"another object", other(func(f *report.Finding) { f.Object.Name = "gadgets.example.com" }), false},
		{"another namespace", other(func(f *report.Finding) { f.Object.Namespace = "x" }), false},
	}
	for _, tt := range tests {
		fresh, _, _ := b.Match([]report.Finding{tt.f})
		if got := len(fresh) == 0; got != tt.same {
			t.Errorf("%s: matched = %v, want %v", tt.name, got, tt.same)
		}
	}
}

// TestFromAnotherDirectory: entries are relative to the baseline file, so
// a run from a subdirectory, naming files relative to it, matches.
func TestFromAnotherDirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	b, err := New("ci/baseline.yaml", []report.Finding{fnd("sub/crds/a.yaml", 1, "r", "", "m")}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if b.Entries[0].File != "../sub/crds/a.yaml" {
		t.Errorf("File = %q, want ../sub/crds/a.yaml", b.Entries[0].File)
	}
	if err := os.MkdirAll("ci", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile(); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "sub"))
	b2, err := Read(filepath.Join("..", "ci", "baseline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, stale := b2.Match([]report.Finding{fnd(filepath.Join("crds", "a.yaml"), 5, "r", "", "m")})
	if len(fresh) != 0 || len(stale) != 0 {
		t.Errorf("from sub/: fresh %v, stale %v", fresh, stale)
	}
}

// TestOnlyAndUpdate: a partial run judges only its files' entries and
// rewrites only them.
func TestOnlyAndUpdate(t *testing.T) {
	t.Chdir(t.TempDir())
	b, err := New("b.yaml", []report.Finding{fnd("a.yaml", 1, "r", "", "m"), fnd("c.yaml", 1, "r", "", "m")}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	_, _, stale := b.Only([]string{"a.yaml"}).Match(nil)
	if len(stale) != 1 || stale[0].File != "a.yaml" {
		t.Errorf("Only(a.yaml) stale = %v, want a.yaml's entry alone", stale)
	}
	if len(b.Entries) != 2 {
		t.Error("Only changed the baseline")
	}
	u := b.Update([]string{"a.yaml", "d.yaml"}, []report.Finding{fnd("d.yaml", 1, "r", "", "new")}, "v2")
	var files []string
	for _, e := range u.Entries {
		files = append(files, e.File+":"+e.Message)
	}
	if want := []string{"c.yaml:m", "d.yaml:new"}; !slices.Equal(files, want) || u.Tool != "v2" {
		t.Errorf("Update = %q (tool %s), want %q", files, u.Tool, want)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "empty file: not a baseline"},
		{"not YAML", "version: [", "did not find expected node content"},
		{"unknown key", "version: 1\nentries: []\nextra: 1\n", "field extra not found"},
		{"wrong type", "version: 1\nentries: {}\n", "cannot unmarshal"},
		{"newer format", "version: 2\nentries: []\n", "baseline format version 2, this kubectl-crdlint reads version 1"},
		{"no version", "entries: []\n", "baseline format version 0"},
		{"entry without rule", "version: 1\nentries:\n  - file: a.yaml\n    message: m\n", "entries[0]: file and rule are required"},
		{"negative count", "version: 1\nentries:\n  - {file: a.yaml, rule: r, message: m, count: -1}\n", "entries[0]: count must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("b.yaml", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "read b.yaml: ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse: %v, want one line naming b.yaml and containing %q", err, tt.want)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none.yaml")); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("Read of a missing file: %v", err)
	}
}

func TestWriteFileErrors(t *testing.T) {
	b, err := New(filepath.Join(t.TempDir(), "missing-dir", "b.yaml"), nil, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile(); err == nil || !strings.Contains(err.Error(), "write ") || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("WriteFile into a missing directory: %v", err)
	}
}

func TestEntryString(t *testing.T) {
	e := Entry{File: "a.yaml", Object: &Object{Kind: "Widget", Namespace: "ns", Name: "w"}, Rule: "cr-schema", Field: "spec.x", Message: "bad", Count: 2}
	if got, want := e.String(), "a.yaml: cr-schema Widget ns/w: bad [spec.x] (2 times)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
