package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// initRepo is a repository as config init meets it: CRDs to list, a Helm
// chart's templates and a kustomize patch to exclude.
var initRepo = map[string]string{
	"config/crd/bases/example.com_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
    - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, maximum: 10}}}}}}}
`,
	"config/crd/kustomization.yaml":                "resources: [bases/example.com_widgets.yaml]\npatches: [{path: patches/webhook_in_widgets.yaml}]\n",
	"config/crd/patches/webhook_in_widgets.yaml":   "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  conversion: {strategy: Webhook}\n",
	"charts/app/Chart.yaml":                        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"charts/app/templates/widget.yaml":             "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  size: {{ .Values.size }}\n",
	"config/samples/widget.yaml":                   "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: sample, namespace: shop}\nspec: {size: 30}\n",
	"config/samples/kustomization.yaml":            "resources: [widget.yaml]\n",
	"charts/app/templates/nothing-but-a-note.yaml": "{{- /* rendered by helm */ -}}\n",
}

// TestConfigInit: config init writes the starter config.Init makes of the
// repository, and that starter is a valid configuration that check then
// uses; it never overwrites a configuration without --force.
func TestConfigInit(t *testing.T) {
	const existing = "strict: true # mine\n"
	tests := []struct {
		name  string
		files map[string]string // besides initRepo
		args  []string
		code  int
		// written is the file that must then hold the starter; kept
		// files must be unchanged.
		written, stdout, stderr string
		kept                    []string
	}{
		{"writes .crdlint.yaml", nil, nil, ExitClean, ".crdlint.yaml", "",
			"wrote .crdlint.yaml (1 CRD source, 2 excludes): review it, then commit it\n", nil},
		{"never overwrites", map[string]string{".crdlint.yaml": existing}, nil, ExitUsage, "", "",
			"error: .crdlint.yaml exists: give --force to overwrite it, or --stdout to print the starter\n", []string{".crdlint.yaml"}},
		{"nor a .crdlint.yml", map[string]string{".crdlint.yml": existing}, nil, ExitUsage, "", "",
			"error: .crdlint.yml exists: give --force to overwrite it, or --stdout to print the starter\n", []string{".crdlint.yml"}},
		{"--force overwrites", map[string]string{".crdlint.yaml": existing}, []string{"--force"}, ExitClean, ".crdlint.yaml", "",
			"wrote .crdlint.yaml (1 CRD source, 2 excludes): review it, then commit it\n", nil},
		{"--force overwrites the .crdlint.yml there, adding no second file", map[string]string{".crdlint.yml": existing}, []string{"--force"}, ExitClean, ".crdlint.yml", "",
			"wrote .crdlint.yml (1 CRD source, 2 excludes): review it, then commit it\n", nil},
		{"--stdout prints and writes nothing", map[string]string{".crdlint.yaml": existing}, []string{"--stdout"}, ExitClean, "", "starter", "", []string{".crdlint.yaml"}},
		{"a directory argument", nil, []string{"config"}, ExitClean, filepath.Join("config", ".crdlint.yaml"), "",
			"wrote " + filepath.Join("config", ".crdlint.yaml") + " (1 CRD source, 1 exclude): review it, then commit it\n", nil},
		{"--force with --stdout", nil, []string{"--force", "--stdout"}, ExitUsage, "", "", "error: --force and --stdout cannot be used together: --stdout writes no file\n", nil},
		{"a missing directory", nil, []string{"nope"}, ExitUsage, "", "", "error: read nope: no such file or directory\n", nil},
		{"a file, not a directory", nil, []string{"charts/app/Chart.yaml"}, ExitUsage, "", "", "error: charts/app/Chart.yaml is not a directory\n", nil},
		{"two directories", nil, []string{"a", "b"}, ExitUsage, "", "", "error: accepts at most 1 arg(s), received 2\nSee 'kubectl crdlint --help' for usage.\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFiles(t, dir, initRepo)
			testutil.WriteFiles(t, dir, tt.files)
			t.Chdir(dir)
			code, out, errOut := runMain(t, append([]string{"config", "init"}, tt.args...)...)
			scanned := "."
			if len(tt.args) == 1 && !strings.HasPrefix(tt.args[0], "-") {
				scanned = tt.args[0]
			}
			var starter string
			if code == ExitClean {
				b, err := config.Init(scanned, config.InitOptions{Version: version.Get().Version})
				if err != nil {
					t.Fatal(err)
				}
				starter = string(b)
			}
			wantOut := ""
			if tt.stdout != "" {
				wantOut = starter
			}
			if code != tt.code || out != wantOut || errOut != tt.stderr {
				t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit %d, stderr %q, stdout:\n%s", code, errOut, out, tt.code, tt.stderr, wantOut)
			}
			if tt.written != "" {
				b, err := os.ReadFile(tt.written)
				if err != nil || string(b) != starter {
					t.Errorf("%s holds (%v):\n%s\nwant the starter:\n%s", tt.written, err, b, starter)
				}
			}
			for _, k := range tt.kept {
				if b, err := os.ReadFile(k); err != nil || string(b) != existing {
					t.Errorf("%s was changed (%v): %q", k, err, b)
				}
			}
			names, _ := filepath.Glob(filepath.Join(scanned, ".crdlint.y*ml"))
			if len(names) > 1 {
				t.Errorf("two configuration files: %q", names)
			}
		})
	}
}

// TestConfigInitThenCheck: the starter config init writes is what the
// repository needs: check . then reads the CRDs it lists, leaves out the
// chart templates and the kustomize patch it excludes, and reports only
// the real problem (the sample's spec.size); the file itself has nothing
// wrong with it.
func TestConfigInitThenCheck(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, initRepo)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if code, _, errOut := runMain(t, "config", "init"); code != ExitClean {
		t.Fatalf("config init: exit %d, %s", code, errOut)
	}
	for _, want := range []string{
		"\ncrds:\n  - config/crd/bases # 1 CRD\n",
		"\nexclude:\n  - charts/app/templates/ # Helm templates: not YAML until rendered\n  - config/crd/patches/webhook_in_widgets.yaml # kustomize patch or configuration: not a whole object\n",
	} {
		if b, _ := os.ReadFile(".crdlint.yaml"); !strings.Contains(string(b), want) {
			t.Errorf(".crdlint.yaml lacks %q:\n%s", want, b)
		}
	}
	// Only the CR in config/samples/ makes the CRD directory's kustomize
	// patch matter: check it alone, as a pre-commit hook would.
	for _, args := range [][]string{{"."}, {"config/samples/widget.yaml"}} {
		_, res := checkJSON(t, args...)
		if got := briefs(res.Findings); !slices.Equal(got, []string{"config/samples/widget.yaml cr-schema error"}) {
			t.Errorf("check %s: %v, want only the sample's cr-schema", args, got)
		}
	}
}

// TestConfigView: config view shows the file's values as written and
// each flag's value marked with the flag, for every flag the
// configuration file has a key for; the file's problems are on stderr,
// positioned, with exit 1.
func TestConfigView(t *testing.T) {
	tests := []struct {
		name   string
		config string // "": the fixture's
		args   []string
		code   int
		want   []string // lines (or runs of lines) of the view
		stderr string
	}{
		{"the file", "", nil, ExitClean, []string{
			"# Effective configuration: flags over .crdlint.yaml over the defaults.\n",
			"\nvalidate: strict # strict: true\nfailOn: warning\nmissingCRDs: warn\nrules:\n  crd-empty-object: off\n",
			"\noverrides:\n  - files: [external/**]\n    rules:\n      crd-no-pruning: off\n      crd-empty-object: warning\n  - files: [external/crds/gizmos.yaml]\n",
			"\nbaseline: null # none\n",
		}, ""},
		{"every flag", "", []string{"--strict=false", "--fail-on", "none", "--missing-crds", "ignore", "--disable", "crd-empty-object,crd-cel-cost", "--crd", "more/crds", "--exclude", "tmp/", "--baseline", "b.yaml"}, ExitClean, []string{
			"\ncrds:\n  - more/crds # --crd\n",
			"\nexclude:\n  - tmp/ # --exclude (relative to the working directory)\n",
			"\nvalidate: warn # --strict=false\nfailOn: none # --fail-on\nmissingCRDs: ignore # --missing-crds\n",
			"\nrules:\n  crd-empty-object: off # --disable\n  crd-cel-cost: off # --disable\n",
			"\nbaseline: b.yaml # --baseline (relative to the working directory)\n",
		}, ""},
		{"--require-crds", "", []string{"--require-crds"}, ExitClean, []string{"\nmissingCRDs: error # --require-crds\n"}, ""},
		{"--no-config: the defaults", "", []string{"--no-config"}, ExitClean, []string{
			"# Effective configuration: no configuration file, flags over the defaults.\n",
			"\ncrds: []\nexclude: []\nconfigKinds: []\nvalidate: strict # default\nfailOn: error # default\nmissingCRDs: error # default\nrules: {}\noverrides: []\nbaseline: null # none\n",
		}, ""},
		{"--validate over strict: true", "", []string{"--validate=ignore"}, ExitClean, []string{"\nvalidate: ignore # --validate\n"}, ""},
		{"validate: over the default", "validate: false\n", nil, ExitClean, []string{"\nvalidate: ignore\nfailOn: error # default\n"}, ""},
		{"strict: and validate: disagreeing", "strict: true\nvalidate: warn\n", nil, ExitFindings, []string{"\nvalidate: warn\n"},
			".crdlint.yaml:1:9: error config-invalid: strict: true means validate: strict, but validate: is warn; remove strict: [strict]\n"},
		{"--strict contradicting --validate", "", []string{"--strict", "--validate=warn"}, ExitUsage, nil, "error: --strict=true is --validate=strict, which contradicts --validate=warn: give one of them\n"},
		{"a problem in the file", "failOn: warning\nstrict: yes\n", nil, ExitFindings, []string{"\nvalidate: strict # default\nfailOn: warning\n"},
			".crdlint.yaml:2:9: error config-invalid: strict must be true or false, not the string \"yes\" [strict]\n"},
		{"--disable an unknown rule", "", []string{"--disable", "no-such-rule"}, ExitUsage, nil, "error: --disable: unknown rule \"no-such-rule\" (see 'kubectl crdlint check --list-rules')\n"},
		{"an argument", "", []string{"crs/"}, ExitUsage, nil, "error: unknown command \"crs/\" for \"kubectl crdlint config view\"\nSee 'kubectl crdlint --help' for usage.\n"},
	}
	root := fixture(t, "rules")
	orig, err := os.ReadFile(filepath.Join(root, ".crdlint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := string(orig)
			if tt.config != "" {
				c = tt.config
			}
			testutil.WriteFiles(t, root, map[string]string{".crdlint.yaml": c})
			code, out, errOut := runMain(t, append([]string{"config", "view"}, tt.args...)...)
			if code != tt.code || errOut != tt.stderr {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr %q", code, errOut, tt.code, tt.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains("\n"+out, w) {
					t.Errorf("view lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestValidateFlags: the commands that judge a create or an update take
// --validate, as kubectl's (default strict, "strict" when given alone),
// and --strict; prune and fields, which judge neither, take neither.
func TestValidateFlags(t *testing.T) {
	streams := genericiooptions.NewTestIOStreamsDiscard()
	for name, c := range map[string]*cobra.Command{
		"check": NewCmdCheck(streams), "upgrade": NewCmdUpgrade(streams), "immutable": NewCmdImmutable(streams),
		"config view": NewCmdConfigView(streams), "prune": NewCmdPrune(streams), "fields": NewCmdFields(streams),
	} {
		v, s := c.Flags().Lookup(config.FlagValidate), c.Flags().Lookup(config.FlagStrict)
		if name == "prune" || name == "fields" {
			if v != nil || s != nil {
				t.Errorf("%s takes --validate or --strict: it judges no request", name)
			}
			continue
		}
		if v == nil || s == nil {
			t.Errorf("%s lacks --validate or --strict", name)
			continue
		}
		if v.DefValue != "strict" || v.NoOptDefVal != "strict" {
			t.Errorf("%s --validate: default %q, alone %q; want kubectl's strict and strict", name, v.DefValue, v.NoOptDefVal)
		}
	}
}

// TestConfigFlagsEverywhere: every flag config.FlagsFrom reads is a flag
// of check and of config view, so that none of them is accepted there and
// silently ignored, and config view shows what check would use.
func TestConfigFlagsEverywhere(t *testing.T) {
	streams := genericiooptions.NewTestIOStreamsDiscard()
	names := []string{config.FlagValidate, config.FlagStrict, config.FlagFailOn, config.FlagRequireCRDs, config.FlagMissingCRDs, config.FlagDisable, config.FlagExclude, config.FlagCRD, config.FlagBaseline, "config", "no-config", "cache-dir", "offline"}
	for name, fs := range map[string]func(string) bool{
		"check":       func(f string) bool { return NewCmdCheck(streams).Flags().Lookup(f) != nil },
		"config view": func(f string) bool { return NewCmdConfigView(streams).Flags().Lookup(f) != nil },
	} {
		for _, f := range names {
			if !fs(f) {
				t.Errorf("%s has no --%s", name, f)
			}
		}
	}
}
