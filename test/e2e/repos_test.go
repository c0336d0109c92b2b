package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// copyRepo copies a fixture repository of testdata/repos to a temporary
// directory and makes it a repository's root (.git), as a checkout is:
// the walk for kustomizations and .crdlint.yaml stops there, not at this
// project's root.
func copyRepo(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	testutil.CopyTreeNoLinks(t, filepath.Join("testdata", "repos", name), dst)
	if err := os.Mkdir(filepath.Join(dst, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// crdlint runs the binary in dir and returns its exit code and output.
// A crash (an internal error, a stack trace) or a usage error fails the
// test: every command must take a whole repository.
func crdlint(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_CACHE_HOME="+t.TempDir())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	stdout, stderr = out.String(), errOut.String()
	for _, bad := range []string{"internal error", "panic", "goroutine ", "nil pointer"} {
		if strings.Contains(stderr, bad) {
			t.Fatalf("crdlint %s: crashed (%q on stderr):\n%s", strings.Join(args, " "), bad, stderr)
		}
	}
	if code == 2 {
		t.Fatalf("crdlint %s: exit code 2 (usage or input error):\n%s", strings.Join(args, " "), stderr)
	}
	return code, stdout, stderr
}

// TestRepositories runs check, prune --dry-run, fields and immutable over
// whole repositories shaped like kubebuilder, Helm and kustomize projects:
// kustomizations with every patch form (patches, patchesStrategicMerge,
// patchesJson6902, components, replacements, configurations, generator
// inputs), kubebuilder's config/crd/patches (named and not), Helm charts
// (templates and files/), Go templates outside charts, list-only YAML and
// YAML that does not parse in files that are no manifests, tool
// configuration (kind, audit, kubeadm, kubelet, kube-proxy, scheduler,
// encryption, scorecard, a kubeconfig, the project's own through
// configKinds, kuttl's, the kyverno CLI's) and aggregated APIServices,
// a release bundle beside the source CRDs (its older copy of a CRD must
// not judge), chainsaw and kuttl tests (their assertions are no
// manifests, what they apply is), test snapshots (with round-trip
// compatibility fixtures and Argo CD's Lua tests' objects), partial CRDs and
// substitution templates (${VAR}, chainsaw bindings). No command
// crashes, no file that is no manifest gets an error, every planted
// problem is found, and every command counts what it skips with check's
// reasons; upgrade replays objects of a directory that holds assertions.
func TestRepositories(t *testing.T) {
	tests := []struct {
		repo string
		// errors and warnings are "file rule" of every finding check
		// reports: the planted problems, nothing else.
		errors, warnings []string
		// skipped are reasons check must count (others may come too).
		skipped []string
		// pruned is a file prune --dry-run must change.
		pruned string
		// immutable is how the one error of immutable . . starts ("": no
		// problems).
		immutable string
		// upgrade, when set, are upgrade's arguments, and upgraded what
		// its output must say (exit code 0).
		upgrade  []string
		upgraded []string
	}{
		{
			repo: "kubebuilder",
			errors: []string{
				"config/crd/bases/shop.example.com_gadgets.yaml crd-scope",
				"config/samples/shop_v1_widget_big.yaml cr-schema",
				// kubectl apply's default, --validate=strict: the server
				// refuses the misspelt field.
				"config/samples/shop_v1_widget_typo.yaml unknown-field",
			},
			// Under strict, applying NEW's typo is refused as an update too.
			immutable: "config/samples/shop_v1_widget_typo.yaml:7:3: error unknown-field:",
			skipped: []string{"kustomization", "kustomize patch or configuration", "tool configuration",
				"built-in kind", "not a Kubernetes object", "Go template"},
			pruned: "config/samples/shop_v1_widget_typo.yaml",
		},
		{
			repo:    "helm",
			errors:  []string{"examples/purple-widget.yaml cr-schema"},
			skipped: []string{"Helm chart template", "Go template", "tool configuration", "not a Kubernetes object"},
		},
		{
			repo:    "kustomize",
			errors:  []string{"examples/no-size.yaml cr-schema"},
			skipped: []string{"kustomization", "kustomize patch or configuration", "tool configuration", "built-in kind", "not a Kubernetes object"},
		},
		{
			// config/crd/bases judges config/samples/shop_v1_widget.yaml,
			// whose spec.size the copy in releases/v0.1.0/install.yaml
			// (which sorts later) lacks: no unknown-field, nothing
			// pruned. Applied files of a chainsaw test are judged.
			repo: "operator",
			errors: []string{
				"config/samples/shop_v1_widget_purple.yaml cr-schema",
				"test/chainsaw/widget/widget-too-many.yaml cr-schema",
			},
			warnings: []string{"releases/v0.1.0/install.yaml crd-duplicate"},
			skipped: []string{"test assertion", "test snapshot", "partial CRD", "substitution template",
				"tool configuration", "kustomization", "built-in kind"},
			// The release's CRD to the source's, with a kuttl test's
			// objects: its install step replayed, its assertions skipped.
			upgrade:  []string{"releases/v0.1.0/install.yaml", "config/crd/bases", "test/kuttl/widget/"},
			upgraded: []string{"widgets.shop.example.com: update accepted; 1 object replayed: none broken", "2 test assertion"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			dir := copyRepo(t, tt.repo)

			code, stdout, _ := crdlint(t, dir, "check", "-o", "json", ".")
			var res struct {
				Findings []report.Finding `json:"findings"`
				Summary  report.Summary   `json:"summary"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("check -o json: %v\n%s", err, stdout)
			}
			var errs, warns []string
			for _, f := range res.Findings {
				at := f.File + " " + f.Rule
				if f.Severity == report.Error {
					errs = append(errs, at)
				} else {
					warns = append(warns, at)
				}
			}
			slices.Sort(errs)
			slices.Sort(warns)
			if !slices.Equal(errs, tt.errors) {
				t.Errorf("check: errors\n got %q\nwant %q (the planted problems, and nothing on files that are no manifests)", errs, tt.errors)
			}
			if !slices.Equal(warns, tt.warnings) {
				t.Errorf("check: warnings\n got %q\nwant %q", warns, tt.warnings)
			}
			if code != 1 {
				t.Errorf("check: exit code %d, want 1 (the planted errors)", code)
			}
			for _, why := range tt.skipped {
				if res.Summary.SkippedBy[why] == 0 {
					t.Errorf("check: nothing skipped as %q: %v", why, res.Summary.SkippedBy)
				}
			}
			skips := res.Summary.SkippedText()

			// Every command counts the same files and documents, in the
			// same words.
			code, stdout, stderr := crdlint(t, dir, "prune", "--dry-run", ".")
			if !strings.Contains(stderr, skips+"\n") {
				t.Errorf("prune --dry-run: stderr lacks check's %q:\n%s", skips, stderr)
			}
			if tt.pruned != "" {
				if code != 1 || !strings.Contains(stdout, "+++ b/"+tt.pruned) {
					t.Errorf("prune --dry-run: exit code %d, want 1 and a diff of %s:\n%s", code, tt.pruned, stdout)
				}
			} else if code != 0 || strings.Contains(stdout, "+++ ") {
				t.Errorf("prune --dry-run: exit code %d, want 0 and no diff:\n%s", code, stdout)
			}

			code, stdout, stderr = crdlint(t, dir, "fields", ".")
			if code != 0 || !strings.Contains(stdout, "widget.shop.example.com") {
				t.Errorf("fields: exit code %d, want 0 and the widgets:\n%s", code, stdout)
			}
			if !strings.Contains(stderr, skips+"\n") {
				t.Errorf("fields: stderr lacks check's %q:\n%s", skips, stderr)
			}

			// OLD and NEW are the same tree: every update is accepted, and
			// both revisions' skips are counted.
			code, stdout, _ = crdlint(t, dir, "immutable", ".", ".")
			twice := report.Summary{}
			for why, n := range res.Summary.SkippedBy {
				twice.SkipN(why, 2*n)
			}
			switch {
			case !strings.Contains(stdout, twice.SkippedText()+")"):
				t.Errorf("immutable . .: the summary lacks %q:\n%s", twice.SkippedText(), stdout)
			case tt.immutable == "" && (code != 0 || !strings.HasPrefix(stdout, "no problems in ")):
				t.Errorf("immutable . .: exit code %d, want 0 and no problems:\n%s", code, stdout)
			case tt.immutable != "" && (code != 1 || !strings.HasPrefix(stdout, tt.immutable) || strings.Count(stdout, ": error ") != 1):
				t.Errorf("immutable . .: exit code %d, want 1 and only %q:\n%s", code, tt.immutable, stdout)
			}

			if tt.upgrade != nil {
				code, stdout, _ = crdlint(t, dir, append([]string{"upgrade"}, tt.upgrade...)...)
				for _, want := range tt.upgraded {
					if code != 0 || !strings.Contains(stdout, want) {
						t.Errorf("upgrade %s: exit code %d, want 0 and %q:\n%s", strings.Join(tt.upgrade, " "), code, want, stdout)
					}
				}
			}
		})
	}
}

// TestKubebuilderREADMEPattern: the pattern the README shows a kubebuilder
// project, --crd config/crd/bases with config/samples/ (which holds a
// kustomization), prunes the samples.
func TestKubebuilderREADMEPattern(t *testing.T) {
	dir := copyRepo(t, "kubebuilder")
	code, stdout, stderr := crdlint(t, dir, "prune", "--dry-run", "--crd", "config/crd/bases", "config/samples/")
	if code != 1 || !strings.Contains(stdout, "+++ b/config/samples/shop_v1_widget_typo.yaml") || !strings.Contains(stdout, "-  replcias: 2") {
		t.Errorf("exit code %d, want 1 and the typo pruned:\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "1 skipped (1 kustomization)\n") {
		t.Errorf("stderr lacks the kustomization skipped:\n%s", stderr)
	}
	code, stdout, _ = crdlint(t, dir, "check", "--crd", "config/crd/bases", "config/samples/")
	if code != 1 || !strings.Contains(stdout, "shop_v1_widget_big.yaml:7:3: error cr-schema") {
		t.Errorf("check: exit code %d, want 1 and the planted error:\n%s", code, stdout)
	}
	// A pre-commit run on the files of a commit: the patch and the
	// kustomization alone are skipped, not judged.
	code, stdout, _ = crdlint(t, dir, "check", "config/crd/patches/cainjection_in_widgets.yaml", "config/default/manager_auth_proxy_patch.yaml", "config/crd/kustomization.yaml")
	if code != 0 || !strings.Contains(stdout, "3 skipped (2 kustomize patch or configuration, 1 kustomization)") {
		t.Errorf("pre-commit: exit code %d, want 0 and three files skipped:\n%s", code, stdout)
	}
}
