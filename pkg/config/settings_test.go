package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// parseIn writes text as dir/.crdlint.yaml under a fresh directory,
// changes into dir and parses it, failing on any finding.
func parseIn(t *testing.T, dir, text string) *Config {
	t.Helper()
	root := t.TempDir()
	d := filepath.Join(root, filepath.FromSlash(dir))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(d)
	c, fs := Parse(".crdlint.yaml", []byte(text), catalogue())
	for _, f := range fs {
		t.Fatalf("finding %d:%d: %s", f.Line, f.Column, f.Message)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// TestResolvePrecedence: a flag the user set beats the file, which beats
// the default; a flag left alone changes nothing.
func TestResolvePrecedence(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		flags    Flags
		validate fieldvalidation.Directive
		failOn   report.Severity
		missing  MissingCRDs
	}{
		{"defaults", "", Flags{}, fieldvalidation.Strict, report.Error, MissingError},
		{"file", "validate: warn\nfailOn: warning\nmissingCRDs: ignore\n", Flags{}, fieldvalidation.Warn, report.Warning, MissingIgnore},
		{"file's strict: false is warn", "strict: false\n", Flags{}, fieldvalidation.Warn, report.Error, MissingError},
		{"file's strict: true is strict", "strict: true\n", Flags{}, fieldvalidation.Strict, report.Error, MissingError},
		{"file's validate: over its strict: when they agree", "strict: false\nvalidate: warn\n", Flags{}, fieldvalidation.Warn, report.Error, MissingError},
		{"flags over file", "validate: ignore\nfailOn: warning\nmissingCRDs: ignore\n",
			Flags{Strict: ptr(false), FailOn: ptr(report.None), RequireCRDs: ptr(true)}, fieldvalidation.Warn, report.None, MissingError},
		{"--validate over the file's strict:", "strict: true\n", Flags{Validate: ptr(fieldvalidation.Ignore)}, fieldvalidation.Ignore, report.Error, MissingError},
		{"--strict over the file's validate:", "validate: ignore\n", Flags{Strict: ptr(true)}, fieldvalidation.Strict, report.Error, MissingError},
		{"flags over defaults", "", Flags{Validate: ptr(fieldvalidation.Warn), FailOn: ptr(report.Warning), MissingCRDs: ptr(MissingWarn)}, fieldvalidation.Warn, report.Warning, MissingWarn},
		{"--missing-crds over missingCRDs: error", "missingCRDs: error\n", Flags{MissingCRDs: ptr(MissingIgnore)}, fieldvalidation.Strict, report.Error, MissingIgnore},
		{"--require-crds over missingCRDs: ignore", "missingCRDs: ignore\n", Flags{RequireCRDs: ptr(true)}, fieldvalidation.Strict, report.Error, MissingError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseIn(t, ".", tt.config)
			s, err := Resolve(c, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			if s.Validate != tt.validate || s.FailOn != tt.failOn || s.MissingCRDs != tt.missing {
				t.Errorf("got validate=%v failOn=%v missingCRDs=%v, want %v %v %v", s.Validate, s.FailOn, s.MissingCRDs, tt.validate, tt.failOn, tt.missing)
			}
		})
	}
	s, err := Resolve(nil, Flags{})
	if err != nil || s.Config == nil || s.FailOn != report.Error || s.Validate != fieldvalidation.Strict {
		t.Errorf("Resolve(nil): %+v, %v", s, err)
	}
}

// TestFlagsFrom binds the flags as the check command does and checks that
// only the ones set on the command line come through.
func TestFlagsFrom(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want Flags
	}{
		{"none", nil, Flags{}},
		{"defaults spelt out are still set", []string{"--strict=false", "--fail-on=error"}, Flags{Strict: ptr(false), FailOn: ptr(report.Error)}},
		{"--validate alone is strict, as kubectl's", []string{"--validate"}, Flags{Validate: ptr(fieldvalidation.Strict)}},
		{"--validate=false is ignore, as kubectl's", []string{"--validate=false"}, Flags{Validate: ptr(fieldvalidation.Ignore)}},
		{"--strict=false agrees with --validate=warn", []string{"--strict=false", "--validate=warn"}, Flags{Strict: ptr(false), Validate: ptr(fieldvalidation.Warn)}},
		{"all", []string{"--strict", "--fail-on", "warning", "--require-crds", "--disable", "a,b", "--disable", "c",
			"--exclude", "x/**", "--crd", "crds/", "--crd", "https://example.com/a.yaml", "--baseline", "b.yaml"},
			Flags{Strict: ptr(true), FailOn: ptr(report.Warning), RequireCRDs: ptr(true), Disable: []string{"a,b", "c"},
				Exclude: []string{"x/**"}, CRDs: []string{"crds/", "https://example.com/a.yaml"}, Baseline: ptr("b.yaml")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
			fs.Bool("strict", false, "")
			validateFlag(fs)
			fs.Var(new(sevValue), "fail-on", "")
			fs.Bool("require-crds", false, "")
			fs.StringArray("disable", nil, "")
			fs.StringArray("exclude", nil, "")
			fs.StringArray("crd", nil, "")
			fs.String("baseline", "", "")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := FlagsFrom(fs)
			if err != nil {
				t.Fatal(err)
			}
			if show(got) != show(tt.want) {
				t.Errorf("FlagsFrom = %s, want %s", show(got), show(tt.want))
			}
		})
	}
	// A command without some of the flags is fine.
	got, err := FlagsFrom(pflag.NewFlagSet("view", pflag.ContinueOnError))
	if err != nil || show(got) != show(Flags{}) {
		t.Errorf("FlagsFrom(empty set) = %s, %v", show(got), err)
	}
}

// validateFlag binds --validate as the commands do.
func validateFlag(fs *pflag.FlagSet) {
	d := fieldvalidation.Default
	fs.Var(fieldvalidation.Flag{D: &d}, FlagValidate, "")
	fs.Lookup(FlagValidate).NoOptDefVal = string(fieldvalidation.Strict)
}

// TestFlagsFromRefuses: a --validate kubectl refuses, or a --strict that
// says otherwise than --validate, is a usage error.
func TestFlagsFromRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"--strict", "--validate=warn"},
		{"--strict=false", "--validate=strict"},
		{"--validate=ignore", "--strict"},
	} {
		fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
		fs.Bool("strict", false, "")
		validateFlag(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if f, err := FlagsFrom(fs); err == nil {
			t.Errorf("%q: FlagsFrom = %s, want an error", args, show(f))
		}
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	validateFlag(fs)
	if err := fs.Parse([]string{"--validate=Strict"}); err == nil || !strings.Contains(err.Error(), `invalid - validate option "Strict"; must be one of: strict (or true), warn, ignore (or false)`) {
		t.Errorf("--validate=Strict: %v, want kubectl's error", err)
	}
}

// sevValue is a --fail-on flag as the command binds it (a pflag.Value).
type sevValue report.Severity

func (v *sevValue) String() string { return report.Severity(*v).String() }
func (v *sevValue) Type() string   { return "severity" }
func (v *sevValue) Set(s string) error {
	sev, err := report.ParseSeverity(s)
	*v = sevValue(sev)
	return err
}

func show(f Flags) string {
	var b strings.Builder
	p := func(name string, v any) {
		b.WriteString(name + "=" + strings.TrimSpace(strings.ReplaceAll(fmtAny(v), "\n", " ")) + " ")
	}
	p("strict", f.Strict)
	p("validate", f.Validate)
	p("failOn", f.FailOn)
	p("require", f.RequireCRDs)
	p("disable", f.Disable)
	p("exclude", f.Exclude)
	p("crds", f.CRDs)
	p("baseline", f.Baseline)
	return b.String()
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case *bool:
		if v == nil {
			return "unset"
		}
		if *v {
			return "true"
		}
		return "false"
	case *report.Severity:
		if v == nil {
			return "unset"
		}
		return v.String()
	case *string:
		if v == nil {
			return "unset"
		}
		return *v
	case []string:
		return "[" + strings.Join(v, "|") + "]"
	}
	return "?"
}

const overridesConfig = `
rules:
  crd-empty-object: off
  crd-cel-cost: error
  unknown-field: warning
overrides:
  - files: ["vendor/**"]
    rules: {crd-no-pruning: off, crd-cel-cost: warning}
  - files: ["vendor/mine/**"]
    rules: {crd-empty-object: warning, crd-no-pruning: error}
  - files: ["*.json"]
    rules: {crd-structural: off}
`

// TestRuleSeverityPerPath: rules: applies everywhere, each matching
// override in order, the last to name the rule wins; paths are relative
// to the configuration's directory whatever the working directory.
func TestRuleSeverityPerPath(t *testing.T) {
	c := parseIn(t, ".", overridesConfig)
	tests := []struct {
		rule, file string
		sev        report.Severity
		off        bool
	}{
		{"crd-empty-object", "crds/a.yaml", report.Warning, true},
		{"crd-empty-object", "vendor/mine/a.yaml", report.Warning, false},
		{"crd-cel-cost", "crds/a.yaml", report.Error, false},
		{"crd-cel-cost", "vendor/x/a.yaml", report.Warning, false},
		{"crd-cel-cost", "vendor/mine/a.yaml", report.Warning, false},
		{"crd-no-pruning", "crds/a.yaml", report.Warning, false},
		{"crd-no-pruning", "vendor/x/a.yaml", report.Warning, true},
		{"crd-no-pruning", "vendor/mine/deep/a.yaml", report.Error, false},
		{"crd-structural", "crds/a.yaml", report.Error, false},
		{"crd-structural", "crds/a.json", report.Error, true},
		{"unknown-field", "a.yaml", report.Warning, false},
		{"crd-cel", "a.yaml", report.Error, false},        // catalogue default
		{"no-such-rule", "a.yaml", report.Warning, false}, // unknown: a warning
		{"crd-no-pruning", "<stdin>", report.Warning, false},
	}
	for _, tt := range tests {
		sev, off := c.RuleSeverity(tt.rule, tt.file)
		if sev != tt.sev || off != tt.off {
			t.Errorf("RuleSeverity(%s, %s) = %v, %v; want %v, %v", tt.rule, tt.file, sev, off, tt.sev, tt.off)
		}
	}
	// From a subdirectory, the same files named relative to it.
	if err := os.MkdirAll("vendor/mine", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir("vendor")
	c2, fs := Parse(filepath.Join("..", ".crdlint.yaml"), []byte(overridesConfig), catalogue())
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	if sev, off := c2.RuleSeverity("crd-no-pruning", filepath.Join("mine", "a.yaml")); sev != report.Error || off {
		t.Errorf("from vendor/: RuleSeverity(crd-no-pruning, mine/a.yaml) = %v, %v; want error", sev, off)
	}
	if _, off := c2.RuleSeverity("crd-no-pruning", "x.yaml"); !off {
		t.Errorf("from vendor/: crd-no-pruning on x.yaml (vendor/x.yaml) should be off")
	}
}

// TestLevel: what the flags and the file say of a rule in a file, and
// where they said it (the reason a finding of a rule turned off gives);
// nothing when neither says anything. pkg/review applies them.
func TestLevel(t *testing.T) {
	c := parseIn(t, ".", overridesConfig+"missingCRDs: ignore\n")
	s, err := Resolve(c, Flags{Disable: []string{"crd-cel, crd-names"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule, file string
		lvl        Level
		from       string
	}{
		{"crd-empty-object", "a.yaml", LevelOff, ".crdlint.yaml rules: crd-empty-object: off"},
		{"crd-empty-object", "vendor/mine/a.yaml", LevelWarning, ".crdlint.yaml overrides[1] (vendor/mine/**): crd-empty-object: warning"},
		{"crd-cel-cost", "a.yaml", LevelError, ".crdlint.yaml rules: crd-cel-cost: error"},
		{"unknown-field", "a.yaml", LevelWarning, ".crdlint.yaml rules: unknown-field: warning"},
		{"crd-cel", "a.yaml", LevelOff, "--disable crd-cel"},
		{"crd-names", "vendor/mine/a.yaml", LevelOff, "--disable crd-names"},
		{"cr-no-crd", "cr.yaml", LevelOff, ".crdlint.yaml missingCRDs: ignore"},
		{"crd-structural", "x.json", LevelOff, ".crdlint.yaml overrides[2] (*.json): crd-structural: off"},
		{"crd-structural", "x.yaml", "", ""},
		{"no-such-rule", "a.yaml", "", ""},
	}
	for _, tt := range tests {
		if lvl, from := s.Level(tt.rule, tt.file); lvl != tt.lvl || from != tt.from {
			t.Errorf("Level(%s, %s) = %q, %q; want %q, %q", tt.rule, tt.file, lvl, from, tt.lvl, tt.from)
		}
	}
	wantOff := []string{"cr-no-crd", "crd-cel", "crd-names"} // crd-empty-object is back on in vendor/mine
	var gotOff []string
	for id := range s.Off() {
		gotOff = append(gotOff, id)
	}
	slices.Sort(gotOff)
	if !slices.Equal(gotOff, wantOff) {
		t.Errorf("Off() = %q, want %q", gotOff, wantOff)
	}
}

// TestExcluded: the file's patterns are relative to its directory,
// --exclude's to the working directory, and both apply.
func TestExcluded(t *testing.T) {
	c := parseIn(t, "repo/sub", "exclude: [\"charts/*/templates/**\", \"/gen/\"]\n")
	s, err := Resolve(c, Flags{Exclude: []string{"local/"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"charts/a/templates/x.yaml", true},
		{"charts/a/crds/x.yaml", false},
		{"gen/x.yaml", true},
		{"x/gen/x.yaml", false},
		{"local/x.yaml", true},
		{"x/local/y.yaml", true},
		{"ok.yaml", false},
	}
	for _, tt := range tests {
		if got := s.Excluded(tt.path, false); got != tt.want {
			t.Errorf("Excluded(%q) = %v, want %v", tt.path, got, tt.want)
		}
		if got := c.Excluded(tt.path, false); got != tt.want && !strings.HasPrefix(tt.path, "local") && !strings.Contains(tt.path, "/local/") {
			t.Errorf("Config.Excluded(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if _, err := Resolve(c, Flags{Exclude: []string{"[oops"}}); err == nil || !strings.Contains(err.Error(), `--exclude: pattern "[oops"`) {
		t.Errorf("a bad --exclude: %v", err)
	}
}

// TestCRDSources: the file's entries (globs expanded, paths joined with
// its directory) then --crd's, in that order; URLs parsed.
func TestCRDSources(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"crds/a.yaml", "charts/x/crds/c.yaml", "charts/y/crds/d.yaml", "charts/y/templates/t.yaml", "charts/.hidden/crds/h.yaml"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	cfg := "crds:\n  - crds/a.yaml\n  - charts/*/crds\n  - https://example.com/x.yaml\n  - nothing/*/here\n"
	c, fs := Parse(filepath.Join(".", ".crdlint.yaml"), []byte(cfg), catalogue())
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	s, err := Resolve(c, Flags{CRDs: []string{"extra/", "https://example.com/y.yaml#sha256=" + strings.Repeat("ab", 32)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range s.CRDs {
		if e.URL != nil {
			got = append(got, e.URL.String()+" from "+e.From)
		} else {
			got = append(got, filepath.ToSlash(e.Path)+" from "+e.From)
		}
	}
	want := []string{
		"crds/a.yaml from .crdlint.yaml:2:5",
		"charts/x/crds from .crdlint.yaml:3:5",
		"charts/y/crds from .crdlint.yaml:3:5",
		"https://example.com/x.yaml from .crdlint.yaml:4:5",
		"extra/ from --crd",
		"https://example.com/y.yaml#sha256=" + strings.Repeat("ab", 32) + " from --crd",
	}
	if !slices.Equal(got, want) {
		t.Errorf("CRDs =\n%q\nwant\n%q", got, want)
	}
	if _, err := Resolve(c, Flags{CRDs: []string{"http://example.com/a.yaml"}}); err == nil || !strings.Contains(err.Error(), "--crd http://example.com/a.yaml: plain http:// is refused") {
		t.Errorf("an unpinned http --crd: %v", err)
	}
	if s.Baseline != "" {
		t.Errorf("Baseline = %q, want none", s.Baseline)
	}
}

func TestBaselinePath(t *testing.T) {
	c := parseIn(t, "repo", "baseline: ci/baseline.yaml\n")
	c.Dir = filepath.Join("..", "repo") // as Find returns it from a sibling
	s, _ := Resolve(c, Flags{})
	if want := filepath.Join("..", "repo", "ci", "baseline.yaml"); s.Baseline != want {
		t.Errorf("Baseline = %q, want %q", s.Baseline, want)
	}
	s, _ = Resolve(c, Flags{Baseline: ptr("mine.yaml")})
	if s.Baseline != "mine.yaml" {
		t.Errorf("--baseline: Baseline = %q, want mine.yaml", s.Baseline)
	}
}

// TestAbsolutePaths: absolute paths in the file are used as given, not
// joined with its directory: crds: files, directories and globs, and
// baseline:. A missing one is a finding that does not claim to be
// relative to anything.
func TestAbsolutePaths(t *testing.T) {
	shared := t.TempDir() // outside the repository, as /opt/crds would be
	for _, f := range []string{"crds/a.yaml", "more/x/b.yaml", "more/y/c.yaml"} {
		p := filepath.Join(shared, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(p string) string { return filepath.Join(shared, filepath.FromSlash(p)) }
	cfg := fmt.Sprintf("crds:\n  - %q\n  - %q\n  - %q\nbaseline: %q\n", abs("crds/a.yaml"), abs("crds"), filepath.ToSlash(abs("more"))+"/*/*.yaml", abs("ci/baseline.yaml"))
	c := parseIn(t, "repo", cfg)
	s, err := Resolve(c, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range s.CRDs {
		got = append(got, e.Path)
	}
	want := []string{abs("crds/a.yaml"), abs("crds"), abs("more/x/b.yaml"), abs("more/y/c.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("CRDs = %q, want %q", got, want)
	}
	if s.Baseline != abs("ci/baseline.yaml") {
		t.Errorf("Baseline = %q, want %q", s.Baseline, abs("ci/baseline.yaml"))
	}

	_, fs := Parse(".crdlint.yaml", fmt.Appendf(nil, "crds:\n  - %q\n", abs("nope")), catalogue())
	if len(fs) != 1 || fs[0].Message != abs("nope")+": no such file or directory" {
		t.Errorf("a missing absolute path: %v, want one finding without \"relative to\"", fs)
	}
}
