package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// TestConfigPrecedence: flags over .crdlint.yaml over the defaults, rule
// by rule and path by path, as check reports it (testdata/repos/rules:
// one kind of finding per file). Each row is a command line and every
// finding it must give, suppressed ones included.
func TestConfigPrecedence(t *testing.T) {
	const (
		widgetsEmpty = "crds/widgets.yaml crd-empty-object"
		orphan       = "crs/orphan.yaml cr-no-crd"
		unknown      = "crs/widget.yaml unknown-field"
		gizmosPrune  = "external/crds/gizmos.yaml crd-no-pruning"
		gizmosEmpty  = "external/crds/gizmos.yaml crd-empty-object"
		doodadsEmpty = "external/crds/doodads.yaml crd-empty-object"
	)
	tests := []struct {
		name string
		args []string
		want []string
		code int
	}{
		{"defaults without the file", []string{"--no-config"}, []string{
			widgetsEmpty + " warning",
			orphan + " error",
			unknown + " error", // --validate=strict, kubectl's default
			doodadsEmpty + " warning",
			gizmosPrune + " warning",
			gizmosEmpty + " warning",
		}, ExitFindings},
		{"the file over the defaults", nil, []string{
			widgetsEmpty + " warning suppressed:config", // rules: off
			orphan + " warning",                         // missingCRDs: warn
			unknown + " error",                          // strict: true
			doodadsEmpty + " warning",                   // overrides[0] over rules:
			gizmosPrune + " warning suppressed:config",  // overrides[0]
			gizmosEmpty + " error",                      // overrides[1], later, wins
		}, ExitFindings},
		{"--validate=warn over strict: true", []string{"--validate=warn"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " warning",
			unknown + " warning",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitFindings},
		{"--validate=ignore over strict: true", []string{"--validate=ignore"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " warning",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitFindings},
		{"--strict=false over strict: true", []string{"--strict=false"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " warning",
			unknown + " warning",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitFindings},
		{"--missing-crds error over missingCRDs: warn", []string{"--missing-crds", "error"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " error",
			unknown + " error",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitFindings},
		{"--require-crds over missingCRDs: warn", []string{"--require-crds"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " error",
			unknown + " error",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitFindings},
		{"--disable over every level of the file", []string{"--disable", "crd-empty-object"}, []string{
			orphan + " warning",
			unknown + " error",
			gizmosPrune + " warning suppressed:config",
		}, ExitFindings},
		{"failOn: warning from the file fails on warnings alone", []string{"--disable", "crd-empty-object", "--strict=false"}, []string{
			orphan + " warning",
			unknown + " warning",
			gizmosPrune + " warning suppressed:config",
		}, ExitFindings},
		{"--fail-on error over failOn: warning", []string{"--disable", "crd-empty-object", "--strict=false", "--fail-on", "error"}, []string{
			orphan + " warning",
			unknown + " warning",
			gizmosPrune + " warning suppressed:config",
		}, ExitClean},
		{"--fail-on none", []string{"--fail-on", "none"}, []string{
			widgetsEmpty + " warning suppressed:config",
			orphan + " warning",
			unknown + " error",
			doodadsEmpty + " warning",
			gizmosPrune + " warning suppressed:config",
			gizmosEmpty + " error",
		}, ExitClean},
		{"--exclude adds to the file's exclude", []string{"--exclude", "external/", "--exclude", "crs/orphan.yaml"}, []string{
			widgetsEmpty + " warning suppressed:config",
			unknown + " error",
		}, ExitFindings},
	}
	fixture(t, "rules")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, res := checkJSON(t, append(tt.args, ".")...)
			got := briefs(res.Findings)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
		})
	}
}

// TestConfigInvalid: every kind of mistake in .crdlint.yaml is, for
// check, a config-invalid error at its line and column (and the run goes
// on with the rest of the file: the crds: entry still gives the custom
// resource its CRD, unless the mistake is one that leaves nothing to
// read); for prune and fields, which print no findings, it is one line on
// stderr and exit 2.
// withCRDs is a valid entry that the rows of TestConfigInvalid add to
// their mistake, to show that the rest of the file is still used.
const withCRDs = "crds: [crds]\n"

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name, config string
		// at is "line:column", msg a fragment of the message, field the
		// finding's field.
		at, msg, field string
		// rest says the file's other entries were used.
		rest bool
	}{
		{"unknown key", "failon: warning\n" + withCRDs, "1:1", `unknown key "failon" (did you mean "failOn"?)`, "failon", true},
		{"YAML 1.1 boolean", "strict: yes\n" + withCRDs, "1:9", `strict must be true or false, not the string "yes"`, "strict", true},
		{"unknown rule", withCRDs + "rules:\n  no-such-rule: off\n", "3:3", `unknown rule "no-such-rule"`, "rules.no-such-rule", true},
		{"invalid level", withCRDs + "rules:\n  crd-empty-object: sometimes\n", "3:21", `must be error, warning or off, not the string "sometimes"`, "rules.crd-empty-object", true},
		{"server rejection made a warning", withCRDs + "rules:\n  crd-structural: warning\n", "3:19", "crd-structural means the API server rejects the object: it can be off, not a warning", "rules.crd-structural", true},
		{"invalid exclude pattern", "exclude:\n  - \"[a-\"\n" + withCRDs, "2:5", `unterminated "[" class`, "exclude[0]", true},
		{"exclude pattern leaving the directory", "exclude: [../outside]\n" + withCRDs, "1:11", `".." segments are not supported`, "exclude[0]", true},
		{"invalid override pattern", withCRDs + "overrides:\n  - files: [\"[z\"]\n    rules: {crd-empty-object: off}\n", "3:13", `unterminated "[" class`, "overrides[0].files[0]", true},
		{"override without files", withCRDs + "overrides:\n  - rules: {crd-empty-object: off}\n", "3:5", "an override needs files:", "overrides[0]", true},
		{"unknown override key", withCRDs + "overrides:\n  - files: [x]\n    rules: {crd-empty-object: off}\n    rulez: {}\n", "5:5", `unknown key "rulez" in an override (did you mean "rules"?)`, "overrides[0].rulez", true},
		{"missing crds path", "crds: [crds, config/crd/base]\n", "1:14", "config/crd/base: no such file or directory (relative to .)", "crds[1]", true},
		{"plain http URL", "crds: [crds, 'http://example.com/crds.yaml']\n", "1:14", "plain http:// is refused", "crds[1]", true},
		{"bad pin", "crds: [crds, 'https://example.com/crds.yaml#sha256=abc']\n", "1:14", "#sha256= needs 64 hexadecimal digits, got 3", "crds[1]", true},
		{"credentials in a URL", "crds: [crds, 'https://u:p@example.com/crds.yaml']\n", "1:14", "credentials in the URL are not supported", "crds[1]", true},
		{"invalid failOn", "failOn: sometimes\n" + withCRDs, "1:9", `failOn must be error, warning or none, not the string "sometimes"`, "failOn", true},
		{"invalid missingCRDs", "missingCRDs: maybe\n" + withCRDs, "1:14", `missingCRDs must be error, warn or ignore, not the string "maybe"`, "missingCRDs", true},
		{"baseline not a file name", "baseline: 3\n" + withCRDs, "1:11", "baseline must be a file name, not the number 3", "baseline", true},
		{"repeated key", withCRDs + "strict: true\nstrict: false\n", "3:1", `duplicate key "strict" (first at line 2)`, "strict", true},
		{"second document", withCRDs + "---\nfailOn: warning\n", "3:1", "a configuration file holds one YAML document; this is a second one", "", true},
		{"not a mapping", "- crds\n", "1:1", "the configuration must be a mapping of crds, exclude, configKinds, validate, strict, failOn, missingCRDs, rules, overrides, baseline, tests, kubernetesVersion, not a list", "", false},
		{"syntax error", "crds: [crds\n", "2:1", "yaml: did not find expected ',' or ']'", "", false},
	}
	fixture(t, "invalid")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testutil.WriteFiles(t, ".", map[string]string{".crdlint.yaml": tt.config})

			code, res := checkJSON(t, "crs/")
			var invalid []report.Finding
			judged := false
			for _, f := range res.Findings {
				switch f.Rule {
				case config.RuleInvalid:
					invalid = append(invalid, f)
				case lint.RuleUnknownField: // spec.colour: the CR met its CRD
					judged = true
				}
			}
			if len(invalid) != 1 {
				t.Fatalf("check: %d config-invalid findings, want 1: %v", len(invalid), briefs(res.Findings))
			}
			f := invalid[0]
			if at := fmt.Sprintf("%d:%d", f.Line, f.Column); f.File != ".crdlint.yaml" || at != tt.at || f.Severity != report.Error {
				t.Errorf("check: %s %s:%s, want an error at .crdlint.yaml:%s", f.Severity, f.File, at, tt.at)
			}
			if !strings.Contains(f.Message, tt.msg) || f.Field != tt.field {
				t.Errorf("check: message %q [%s], want %q [%s]", f.Message, f.Field, tt.msg, tt.field)
			}
			if judged != tt.rest {
				t.Errorf("check: custom resource judged against crds: %v, want %v (findings %v)", judged, tt.rest, briefs(res.Findings))
			}
			if code != ExitFindings {
				t.Errorf("check: exit %d, want %d", code, ExitFindings)
			}

			for _, args := range [][]string{{"prune", "crs/widget.yaml"}, {"fields", "crs/"}} {
				code, out, errOut := runMain(t, args...)
				want := "error: .crdlint.yaml:" + tt.at + ": "
				if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q...%q", args[0], code, out, errOut, want, tt.msg)
				}
			}
		})
	}
}

// TestConfigUnreadable: a configuration file that cannot be read stops
// every command with one line, exit 2.
func TestConfigUnreadable(t *testing.T) {
	fixture(t, "invalid")
	testutil.WriteFiles(t, ".", map[string]string{".crdlint.yaml": withCRDs})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"--config names a missing file", []string{"--config", "nope.yaml"}, "error: read nope.yaml: no such file or directory\n"},
		{"--config names a directory", []string{"--config", "crds"}, "error: read crds: is a directory\n"},
		{"--config with --no-config", []string{"--config", ".crdlint.yaml", "--no-config"}, "error: --config and --no-config cannot be used together\n"},
	}
	for _, tt := range tests {
		for _, cmd := range [][]string{{"check", "crs/"}, {"prune", "crs/widget.yaml"}, {"fields", "crs/"}, {"config", "view"}} {
			t.Run(tt.name+"/"+cmd[0], func(t *testing.T) {
				code, out, errOut := runMain(t, append(slices.Clip(cmd), tt.args...)...)
				if code != ExitUsage || out != "" || errOut != tt.want {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, stderr %q", code, out, errOut, tt.want)
				}
			})
		}
	}
}

// TestConfigDiscovery: which configuration file a command uses, run from
// where, with --config and --no-config. config view names the file in its
// first line; check shows that crds: paths are relative to the file, not
// to the working directory.
func TestConfigDiscovery(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "repos", "invalid.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	files := map[string]string{
		".crdlint.yaml":           "crds: [repo/nothing-here]\n", // above every repository: never read
		"repo/.git/HEAD":          "ref: refs/heads/main\n",
		"repo/.crdlint.yaml":      "crds: [crds]\nvalidate: warn\n",
		"repo/sub/dir/.keep":      "",
		"repo/near/.crdlint.yaml": "strict: true\n",
		"repo/near/deeper/.keep":  "",
		"repo/other/cfg.yaml":     "crds: [../crds]\nstrict: true\n",
		"bare/.git/HEAD":          "ref: refs/heads/main\n",
		"bare/sub/.keep":          "",
		"worktree/.git":           "gitdir: ../repo/.git/worktrees/wt\n", // git worktrees and submodules
		"worktree/sub/.keep":      "",
		"yml/.git/HEAD":           "ref: refs/heads/main\n",
		"yml/.crdlint.yml":        "strict: true\n",
		"both/.git/HEAD":          "ref: refs/heads/main\n",
		"both/.crdlint.yaml":      "strict: true\n",
		"both/.crdlint.yml":       "strict: true\n",
	}
	for _, f := range ar.Files {
		files["repo/"+f.Name] = string(f.Data)
	}
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)

	const none = "# Effective configuration: no configuration file, flags over the defaults.\n"
	over := func(path string) string {
		return "# Effective configuration: flags over " + path + " over the defaults.\n"
	}
	tests := []struct {
		name, dir string
		args      []string
		want      string // config view's first line, or its stderr
		code      int
		// check, when set, is an argument for check, which must then
		// report exactly this finding on the custom resource.
		check, finding string
	}{
		{"in the working directory", "repo", nil, over(".crdlint.yaml"), ExitClean, "crs/widget.yaml", "crs/widget.yaml unknown-field warning"},
		{"from a subdirectory, up to the root", "repo/sub/dir", nil, over(filepath.Join("..", "..", ".crdlint.yaml")), ExitClean, "../../crs/widget.yaml", "../../crs/widget.yaml unknown-field warning"},
		{"the nearest one wins", "repo/near/deeper", nil, over(filepath.Join("..", ".crdlint.yaml")), ExitClean, "", ""},
		{"--config names one", "repo", []string{"--config", "other/cfg.yaml"}, over(filepath.Join("other", "cfg.yaml")), ExitClean, "crs/widget.yaml", "crs/widget.yaml unknown-field error"},
		{"--no-config", "repo", []string{"--no-config"}, none, ExitClean, "crs/widget.yaml", "crs/widget.yaml cr-no-crd error"},
		{"never above the repository root", "bare/sub", nil, none, ExitClean, "", ""},
		{"a .git file is a root too", "worktree/sub", nil, none, ExitClean, "", ""},
		{".crdlint.yml", "yml", nil, over(".crdlint.yml"), ExitClean, "", ""},
		{"both names", "both", nil, "error: both .crdlint.yaml and .crdlint.yml exist: keep one\n", ExitUsage, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(filepath.Join(root, filepath.FromSlash(tt.dir)))
			code, out, errOut := runMain(t, append([]string{"config", "view"}, tt.args...)...)
			got := errOut
			if code == ExitClean {
				got, _, _ = strings.Cut(out, "\n")
				got += "\n"
			}
			if code != tt.code || got != tt.want {
				t.Errorf("config view: exit %d, got %q, want exit %d, %q (stderr %q)", code, got, tt.code, tt.want, errOut)
			}
			if tt.check == "" {
				return
			}
			_, res := checkJSON(t, append(slices.Clip(tt.args), tt.check)...)
			if got := briefs(res.Findings); !slices.Equal(got, []string{tt.finding}) {
				t.Errorf("check %s: %v, want [%s]", tt.check, got, tt.finding)
			}
		})
	}
}

// TestExclude: exclude: and --exclude. A directory walk leaves excluded
// files out silently (not read, not counted); a file named on the command
// line (as pre-commit names every changed file) is skipped and counted as
// excluded. Patterns in the file are relative to it, --exclude ones to the
// working directory.
func TestExclude(t *testing.T) {
	const (
		widget = "crs/widget.yaml cr-schema error"
		skip   = "crs/skip/bad.yaml cr-schema error"
		gen    = "generated/gen.yaml cr-schema error"
		keep   = "generated/keep.yaml cr-schema error"
	)
	tests := []struct {
		name, dir string
		args      []string
		want      []string
		// files is how many files were read; excluded how many named
		// files were skipped as excluded.
		files, excluded int
	}{
		{"the file's exclude: in a directory walk", ".", []string{"."}, []string{widget}, 2, 0},
		{"without the file", ".", []string{"--no-config", "--crd", "crds", "."}, []string{skip, widget, gen, keep}, 5, 0},
		{"named files are skipped and counted", ".", []string{"crs/skip/bad.yaml", "generated/gen.yaml", "crs/widget.yaml"}, []string{widget}, 3, 2},
		{"--exclude adds a pattern", ".", []string{"--exclude", "crs/widget.yaml", "."}, nil, 1, 0},
		{"--exclude re-includes with !", ".", []string{"--exclude", "!generated/keep.yaml", "."}, []string{widget, keep}, 3, 0},
		{"--exclude alone", ".", []string{"--no-config", "--crd", "crds", "--exclude", "generated/", "."}, []string{skip, widget}, 3, 0},
		{"the file's patterns are relative to it", "crs", []string{"."}, []string{"widget.yaml cr-schema error"}, 1, 0},
		{"--exclude patterns are relative to the working directory", "crs", []string{"--no-config", "--crd", "../crds", "--exclude", "/skip/", "."}, []string{"widget.yaml cr-schema error"}, 1, 0},
	}
	root := fixture(t, "exclude")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(filepath.Join(root, tt.dir))
			_, res := checkJSON(t, tt.args...)
			if got := briefs(res.Findings); !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			if res.Summary.Files != tt.files || res.Summary.SkippedBy["excluded"] != tt.excluded {
				t.Errorf("%d files, %d excluded; want %d files, %d excluded (summary %+v)", res.Summary.Files, res.Summary.SkippedBy["excluded"], tt.files, tt.excluded, res.Summary)
			}
		})
	}
}

// TestConfigMissingCRDsPruneFields: prune and fields, like check, take
// what a custom resource without its CRD is from missingCRDs: in
// .crdlint.yaml, and --missing-crds or --require-crds beat it. The widget
// meets its CRD through crds:; the gadget has none.
func TestConfigMissingCRDsPruneFields(t *testing.T) {
	const (
		errorLine = "crs/gadget.yaml:1:1: error: no matches for kind \"Gadget\" in version \"example.com/v1\": no CRD given defines it (give it with --crd FILE|DIR, or crds: in .crdlint.yaml, which kubectl crdlint config init writes)\n"
		warnLine  = "crs/gadget.yaml:1:1: warning: no matches for kind \"Gadget\" in version \"example.com/v1\": no CRD given defines it (give it with --crd FILE|DIR, or crds: in .crdlint.yaml, which kubectl crdlint config init writes)\n"
	)
	tests := []struct {
		name, missing string // missing is missingCRDs: in the file, if any
		args          []string
		code          int
		stderr        string
	}{
		{"the default", "", nil, ExitFindings, errorLine},
		{"missingCRDs: error", "error", nil, ExitFindings, errorLine},
		{"missingCRDs: warn", "warn", nil, ExitClean, warnLine},
		{"missingCRDs: ignore", "ignore", nil, ExitClean, ""},
		{"--missing-crds error over missingCRDs: warn", "warn", []string{"--missing-crds", "error"}, ExitFindings, errorLine},
		{"--require-crds over missingCRDs: ignore", "ignore", []string{"--require-crds"}, ExitFindings, errorLine},
		{"--missing-crds ignore over missingCRDs: error", "error", []string{"--missing-crds", "ignore"}, ExitClean, ""},
		{"--missing-crds warn over missingCRDs: ignore", "ignore", []string{"--missing-crds", "warn"}, ExitClean, warnLine},
		{"--no-config leaves missingCRDs: warn out", "warn", []string{"--no-config", "--crd", "crds"}, ExitFindings, errorLine},
	}
	fixture(t, "invalid")
	testutil.WriteFiles(t, ".", map[string]string{"crs/gadget.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop}\n"})
	for _, tt := range tests {
		config := withCRDs
		if tt.missing != "" {
			config += "missingCRDs: " + tt.missing + "\n"
		}
		testutil.WriteFiles(t, ".", map[string]string{".crdlint.yaml": config})
		for _, cmd := range []string{"prune", "fields"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				code, out, errOut := runMain(t, append([]string{cmd, "crs/"}, tt.args...)...)
				if code != tt.code || errOut != tt.stderr {
					t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, errOut, tt.code, tt.stderr)
				}
				if !strings.Contains(out, "shop") { // the widget is still printed
					t.Errorf("stdout %q does not show the widget", out)
				}
			})
		}
	}
}
