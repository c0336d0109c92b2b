package config

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade"
)

var update = flag.Bool("update", false, "rewrite testdata/**/*.golden from the current output")

// catalogue is pkg/ruleset's join of every rule, built here because
// that package imports this one.
func catalogue() []report.Rule {
	var out []report.Rule
	seen := map[string]bool{}
	for _, rs := range [][]report.Rule{lint.Rules, Rules, suppress.Rules, upgrade.Rules} {
		for _, r := range rs {
			if !seen[r.ID] {
				seen[r.ID] = true
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// fixtures lists testdata/load/<dir>/*.yaml, failing when there are none.
func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "load", dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures in testdata/load/%s", dir)
	}
	return files
}

func TestLoadValid(t *testing.T) {
	for _, file := range fixtures(t, "valid") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			c, fs, err := Load(file, catalogue())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				t.Errorf("unexpected finding %d:%d: %s [%s]", f.Line, f.Column, f.Message, f.Field)
			}
			if c == nil {
				t.Fatal("nil Config")
			}
		})
	}
}

// wants reads the "# want: MESSAGE" markers of a fixture, by line; a line
// may carry several.
func wants(t *testing.T, file string) map[int][]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for i, line := range strings.Split(string(data), "\n") {
		parts := strings.Split(line, "# want: ")
		for _, w := range parts[1:] {
			out[i+1] = append(out[i+1], strings.TrimSpace(w))
		}
	}
	return out
}

// TestLoadInvalid checks that every finding of each invalid fixture is on
// a line marked "# want:" with its message, that every marker is met, and
// the findings, columns included, against a golden file.
func TestLoadInvalid(t *testing.T) {
	for _, file := range fixtures(t, "invalid") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, fs, err := Load(file, catalogue())
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) == 0 {
				t.Fatal("no findings for an invalid configuration")
			}
			want := wants(t, file)
			got := map[int][]string{}
			var text strings.Builder
			for _, f := range fs {
				if f.Rule != RuleInvalid || f.Severity != report.Error || f.File != file || f.Line < 1 || f.Column < 1 {
					t.Errorf("finding %+v: want rule %s, severity error, file %s and a position", f, RuleInvalid, file)
				}
				got[f.Line] = append(got[f.Line], f.Message)
				fmt.Fprintf(&text, "%d:%d: %s [%s]\n", f.Line, f.Column, f.Message, f.Field)
			}
			for line, msgs := range got {
				ws := want[line]
				for _, m := range msgs {
					i := slices.IndexFunc(ws, func(w string) bool { return strings.Contains(m, w) })
					if i < 0 {
						t.Errorf("line %d: unexpected finding %q", line, m)
						continue
					}
					ws = slices.Delete(slices.Clone(ws), i, i+1)
				}
				for _, w := range ws {
					t.Errorf("line %d: no finding %q (got %q)", line, w, msgs)
				}
			}
			for line, ws := range want {
				if len(got[line]) == 0 {
					t.Errorf("line %d: no finding, want %q", line, ws)
				}
			}
			golden(t, strings.TrimSuffix(file, ".yaml")+".golden", []byte(text.String()))
		})
	}
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/config -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (go test ./pkg/config -update rewrites it):\n--- got\n%s--- want\n%s", file, got, want)
	}
}

// TestLoadValues checks what valid files set, value by value.
func TestLoadValues(t *testing.T) {
	c, fs, err := Load(filepath.Join("testdata", "load", "valid", "everything.yaml"), catalogue())
	if err != nil || len(fs) > 0 {
		t.Fatalf("Load: %v %v", err, fs)
	}
	dir := filepath.Join("testdata", "load", "valid")
	if c.Dir != dir {
		t.Errorf("Dir = %q, want %q", c.Dir, dir)
	}
	if len(c.CRDs) != 4 {
		t.Fatalf("CRDs = %+v, want 4", c.CRDs)
	}
	if e := c.CRDs[0]; e.Path != filepath.Join(dir, "..", "crds", "widget.yaml") || e.URL != nil || e.Glob || e.Pos.Line != 2 || e.Pos.Column != 5 {
		t.Errorf("CRDs[0] = %+v", e)
	}
	if e := c.CRDs[1]; !e.Glob {
		t.Errorf("CRDs[1] = %+v, want a glob", e)
	}
	if e := c.CRDs[2]; e.URL == nil || e.URL.URL != "https://example.com/crds.yaml" || e.URL.SHA256 != strings.Repeat("0123456789abcdef", 4) {
		t.Errorf("CRDs[2] = %+v", e)
	}
	if e := c.CRDs[3]; e.URL == nil || e.URL.SHA256 != strings.Repeat("0123456789abcdef", 4) {
		t.Errorf("CRDs[3] = %+v (pins are lower-cased)", e)
	}
	if !slices.Equal(c.Exclude, []string{"/generated/", "**/testdata/**", "!testdata/keep.yaml", "[a-c]?.yaml"}) {
		t.Errorf("Exclude = %q", c.Exclude)
	}
	if c.Strict == nil || *c.Strict {
		t.Errorf("Strict = %v, want false (set)", c.Strict)
	}
	if c.FailOn == nil || *c.FailOn != report.None {
		t.Errorf("FailOn = %v, want none", c.FailOn)
	}
	if c.MissingCRDs != MissingIgnore || c.Baseline != ".crdlint-baseline.yaml" {
		t.Errorf("MissingCRDs, Baseline = %q, %q", c.MissingCRDs, c.Baseline)
	}
	wantRules := []RuleLevel{{"crd-structural", LevelOff}, {"crd-cel", LevelError}, {"crd-cel-cost", LevelError}, {"unknown-field", LevelWarning}}
	if !slices.Equal(c.Rules, wantRules) {
		t.Errorf("Rules = %v, want %v", c.Rules, wantRules)
	}
	if len(c.Overrides) != 2 || !slices.Equal(c.Overrides[1].Files, []string{"vendor/mine/**", "!vendor/mine/old/**"}) {
		t.Errorf("Overrides = %+v", c.Overrides)
	}

	nulls, fs, err := Load(filepath.Join("testdata", "load", "valid", "nulls.yaml"), catalogue())
	if err != nil || len(fs) > 0 {
		t.Fatalf("Load: %v %v", err, fs)
	}
	if nulls.Strict != nil || nulls.FailOn != nil || nulls.MissingCRDs != "" || nulls.Rules != nil || nulls.CRDs != nil || nulls.Baseline != "" {
		t.Errorf("null keys set something: %+v", nulls)
	}
	for text, want := range map[string]bool{"strict: true": true, "strict: True": true, "strict: TRUE": true, "strict: false": false, "strict: False": false} {
		c, fs := Parse("c.yaml", []byte(text), catalogue())
		if len(fs) > 0 || c.Strict == nil || *c.Strict != want {
			t.Errorf("%s: Strict = %v (%v), want %v", text, c.Strict, fs, want)
		}
	}
	// validate: takes kubectl's --validate values, booleans included.
	for text, want := range map[string]fieldvalidation.Directive{
		"validate: strict": fieldvalidation.Strict, "validate: warn": fieldvalidation.Warn, "validate: ignore": fieldvalidation.Ignore,
		"validate: true": fieldvalidation.Strict, "validate: false": fieldvalidation.Ignore, `validate: "false"`: fieldvalidation.Ignore,
		"validate: 1": fieldvalidation.Strict, "validate: True": fieldvalidation.Strict, "validate: ~": "",
		// Both keys, saying the same.
		"strict: true\nvalidate: strict": fieldvalidation.Strict, "validate: warn\nstrict: false": fieldvalidation.Warn,
	} {
		c, fs := Parse("c.yaml", []byte(text), catalogue())
		if len(fs) > 0 || c.Validate != want {
			t.Errorf("%s: Validate = %q (%v), want %q", text, c.Validate, fs, want)
		}
	}
	for text, want := range map[string]string{
		"validate: Strict":               "2:11: validate must be strict (or true), warn or ignore (or false), as kubectl's --validate, not the string \"Strict\"",
		"validate: yes":                  "2:11: validate must be strict (or true), warn or ignore (or false), as kubectl's --validate, not the string \"yes\"",
		"validate: [warn]":               "2:11: validate must be strict (or true), warn or ignore (or false), as kubectl's --validate, not a list",
		"strict: true\nvalidate: ignore": "2:9: strict: true means validate: strict, but validate: is ignore; remove strict:",
	} {
		c, fs := Parse("c.yaml", []byte("\n"+text), catalogue())
		var got []string
		for _, f := range fs {
			got = append(got, fmt.Sprintf("%d:%d: %s", f.Line, f.Column, f.Message))
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: findings %q, want %q", text, got, want)
		}
		if strings.HasPrefix(text, "strict") && (c.Strict != nil || c.Validate != fieldvalidation.Ignore) {
			t.Errorf("%s: Strict = %v, Validate = %q: validate: must win", text, c.Strict, c.Validate)
		}
	}
	w, _, _ := Load(filepath.Join("testdata", "load", "valid", "missing-warning.yaml"), catalogue())
	if w.MissingCRDs != MissingWarn {
		t.Errorf(`missingCRDs: warning = %q, want "warn"`, w.MissingCRDs)
	}
	a, _, _ := Load(filepath.Join("testdata", "load", "valid", "anchors.yaml"), catalogue())
	if len(a.Overrides) != 1 || !slices.Equal(a.Overrides[0].Rules, []RuleLevel{{"crd-empty-object", LevelOff}}) {
		t.Errorf("an aliased rules mapping: %+v", a.Overrides)
	}
}

func TestLoadUnreadable(t *testing.T) {
	_, _, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestFind builds directory trees and checks which file Find returns.
func TestFind(t *testing.T) {
	tests := []struct {
		name  string
		files []string // created, "/"-terminated for directories
		from  string
		want  string // "" for none
		err   string
	}{
		{"in the directory", []string{"repo/.git/", "repo/.crdlint.yaml"}, "repo", "repo/.crdlint.yaml", ""},
		{"in a parent", []string{"repo/.git/", "repo/.crdlint.yaml", "repo/a/b/"}, "repo/a/b", "repo/a/b/../../.crdlint.yaml", ""},
		{"nearest wins", []string{"repo/.git/", "repo/.crdlint.yaml", "repo/a/.crdlint.yaml", "repo/a/b/"}, "repo/a/b", "repo/a/b/../.crdlint.yaml", ""},
		{".yml", []string{"repo/.git/", "repo/.crdlint.yml"}, "repo", "repo/.crdlint.yml", ""},
		{"stops at the repository root", []string{".crdlint.yaml", "repo/.git/", "repo/a/"}, "repo/a", "", ""},
		{"a .git file is a root too (worktrees, submodules)", []string{".crdlint.yaml", "repo/.git", "repo/a/"}, "repo/a", "", ""},
		{"the root's own file is found", []string{"repo/.git/", "repo/.crdlint.yaml"}, "repo", "repo/.crdlint.yaml", ""},
		{"both names", []string{"repo/.git/", "repo/.crdlint.yaml", "repo/.crdlint.yml"}, "repo", "", "both"},
		{"a directory of that name is not a file", []string{"repo/.git/", "repo/.crdlint.yaml/", "repo/a/"}, "repo/a", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(root, filepath.FromSlash(f))
				if strings.HasSuffix(f, "/") {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Find(filepath.Join(root, filepath.FromSlash(tt.from)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Find: %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, filepath.FromSlash(tt.want))
			}
			if got != want {
				t.Errorf("Find = %q, want %q", got, want)
			}
		})
	}
}

// TestFindRelative: from a relative directory the path stays relative, so
// that findings about the file read like the user's other paths.
func TestFindRelative(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git", "a/b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".crdlint.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "a", "b"))
	got, err := Find(".")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", ".crdlint.yaml"); got != want {
		t.Errorf("Find(.) = %q, want %q", got, want)
	}
}

// TestRuleNoCRDExists: the rule missingCRDs controls is in the catalogue.
func TestRuleNoCRDExists(t *testing.T) {
	if !slices.ContainsFunc(lint.Rules, func(r report.Rule) bool { return r.ID == RuleNoCRD }) {
		t.Errorf("%s is not in lint.Rules", RuleNoCRD)
	}
}

// TestOpen: --no-config, --config FILE, and discovery.
func TestOpen(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".crdlint.yaml"), []byte("strict: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.yaml"), []byte("failOn: none\nbad: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	tests := []struct {
		name     string
		file     string
		noConfig bool
		path     string
		problems int
		err      string
	}{
		{"found", "", false, ".crdlint.yaml", 0, ""},
		{"--config", "other.yaml", false, "other.yaml", 1, ""},
		{"--no-config", "", true, "", 0, ""},
		{"--config missing", "none.yaml", false, "", 0, "read none.yaml: no such file or directory"},
		{"both", "other.yaml", true, "", 0, "--config and --no-config contradict each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs, err := Open(tt.file, tt.noConfig, catalogue())
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("Open: %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != tt.path || len(fs) != tt.problems {
				t.Errorf("Open = %q with %d problems, want %q with %d", c.Path, len(fs), tt.path, tt.problems)
			}
		})
	}
}
