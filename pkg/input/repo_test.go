package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const crdPatch = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  conversion:\n    strategy: Webhook\n"

// TestRepoSkip: which files of a repository are not manifests, and why.
// A patch is one whatever kustomization of the repository names it, in
// whatever form, and kubebuilder's crd/patches/ are patches even when no
// kustomization names them.
func TestRepoSkip(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                                                 "ref: refs/heads/main\n",
		"config/crd/bases/widgets.yaml":                             "kind: CustomResourceDefinition\n",
		"config/crd/kustomization.yaml":                             "resources: [bases/widgets.yaml]\n#patches:\n#- path: patches/webhook_in_widgets.yaml\n",
		"config/crd/patches/webhook_in_widgets.yaml":                crdPatch,
		"config/components/crd/patches/cainjection_in_widgets.yaml": crdPatch,
		"config/samples/widget.yaml":                                "kind: Widget\n",
		"config/samples/kustomization.yaml":                         "resources: [widget.yaml]\n",
		"deploy/overlays/prod/kustomization.yaml":                   "resources: [../../../config/default]\npatches:\n- path: ../../../config/default/manager_patch.yaml\npatchesStrategicMerge:\n- smp.yaml\npatchesJson6902:\n- path: ops.yaml\n  target: {kind: Deployment, name: x}\nconfigMapGenerator:\n- name: c\n  files: [controller_manager_config.yaml]\n",
		"deploy/overlays/prod/smp.yaml":                             "kind: Deployment\n",
		"deploy/overlays/prod/ops.yaml":                             "- op: add\n",
		"deploy/overlays/prod/controller_manager_config.yaml":       "kind: Configuration\n",
		"deploy/components/c/kustomization.yaml":                    "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- path: comp_patch.yaml\n",
		"deploy/components/c/comp_patch.yaml":                       "kind: Deployment\n",
		"config/default/manager_patch.yaml":                         "kind: Deployment\n",
		"config/default/manager.yaml":                               "kind: Deployment\n",
		"charts/app/Chart.yaml":                                     "name: app\n",
		"charts/app/templates/deployment.yaml":                      "kind: {{ .Kind }}\n",
		"charts/app/files/config.yaml":                              "kind: X\n",
		"patches/notkubebuilder.yaml":                               "kind: X\n",
		// chainsaw: a test's assert and error files, in any operation
		// list, relative to the test, globs too; applied files and
		// expressions are not assertions.
		"test/e2e/crd/chainsaw-test.yaml":   "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: crd}\nspec:\n  steps:\n  - try:\n    - apply: {file: crd.yaml}\n    - assert: {file: crd-assert.yaml}\n    - assert: {file: ($file)}\n    catch:\n    - error: {file: ../shared/gone.yaml}\n    finally:\n    - assert:\n        file: checks/*.yaml\n",
		"test/e2e/crd/crd.yaml":             "kind: CustomResourceDefinition\n",
		"test/e2e/crd/crd-assert.yaml":      "kind: CustomResourceDefinition\n",
		"test/e2e/crd/checks/ready.yaml":    "kind: Widget\n",
		"test/e2e/shared/gone.yaml":         "kind: Widget\n",
		"test/e2e/other/crd-assert.yaml":    "kind: CustomResourceDefinition\n",
		"test/kuttl/widget/00-install.yaml": "kind: Widget\n",
		"test/kuttl/widget/00-assert.yaml":  "kind: Widget\n",
		"test/kuttl/widget/01-errors.yaml":  "kind: Widget\n",
		"tests/__snapshot__/widget-v1.yaml": "kind: Widget\n",
		"docs/snapshot/widget.yaml":         "kind: Widget\n",
	})
	tests := []struct {
		file, want string
	}{
		{"config/crd/bases/widgets.yaml", ""},
		{"config/crd/kustomization.yaml", SkipKustomization},
		{"config/crd/patches/webhook_in_widgets.yaml", SkipKustomizePatch},
		{"config/components/crd/patches/cainjection_in_widgets.yaml", SkipKustomizePatch},
		{"config/samples/widget.yaml", ""},
		{"config/default/manager_patch.yaml", SkipKustomizePatch}, // named by an overlay elsewhere
		{"config/default/manager.yaml", ""},
		{"deploy/overlays/prod/smp.yaml", SkipKustomizePatch},
		{"deploy/overlays/prod/ops.yaml", SkipKustomizePatch},
		{"deploy/overlays/prod/controller_manager_config.yaml", SkipKustomizePatch},
		{"deploy/components/c/comp_patch.yaml", SkipKustomizePatch},
		{"charts/app/templates/deployment.yaml", SkipHelmTemplate},
		{"charts/app/files/config.yaml", ""},
		{"patches/notkubebuilder.yaml", ""},
		{"test/e2e/crd/crd.yaml", ""},
		{"test/e2e/crd/crd-assert.yaml", SkipTestAssertion},
		{"test/e2e/crd/checks/ready.yaml", SkipTestAssertion},
		{"test/e2e/shared/gone.yaml", SkipTestAssertion},
		{"test/e2e/other/crd-assert.yaml", ""}, // no test names it
		{"test/kuttl/widget/00-install.yaml", ""},
		{"test/kuttl/widget/00-assert.yaml", SkipTestAssertion},
		{"test/kuttl/widget/01-errors.yaml", SkipTestAssertion},
		{"tests/__snapshot__/widget-v1.yaml", SkipSnapshot},
		{"docs/snapshot/widget.yaml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			// A fresh repo each time: a file named alone (pre-commit)
			// finds the kustomizations of its whole repository.
			if got := newRepo().skip(filepath.Join(root, filepath.FromSlash(tt.file))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCRDPathsLeavePatchesOut: a directory of CRD sources that holds
// kubebuilder's patches, a kustomization, a test's assertion and a
// snapshot yields only the CRDs; a patch named on its own is the user's
// to give.
func TestCRDPathsLeavePatchesOut(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                                  "ref: refs/heads/main\n",
		"config/crd/bases/widgets.yaml":              "kind: CustomResourceDefinition\n",
		"config/crd/kustomization.yaml":              "resources: [bases/widgets.yaml]\n",
		"config/crd/patches/webhook_in_widgets.yaml": crdPatch,
		"config/crd/__snapshot__/widgets.yaml":       "kind: CustomResourceDefinition\n",
		"config/crd/test/01-assert.yaml":             "kind: CustomResourceDefinition\n",
	})
	dir := filepath.Join(root, "config", "crd")
	files, _, err := NewCRDPaths().Expand(dir, "--crd config/crd")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || filepath.Base(files[0]) != "widgets.yaml" {
		t.Errorf("got %q, want only bases/widgets.yaml", files)
	}
	patch := filepath.Join(dir, "patches", "webhook_in_widgets.yaml")
	files, _, err = NewCRDPaths().Expand(patch, "--crd "+patch)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Errorf("a patch named on its own: got %q", files)
	}
}

// crdSet is the set of CRD files crdsource.Set makes of local paths (the
// tests of this package cannot import it).
func crdSet(t testing.TB, paths ...string) *Set {
	t.Helper()
	s, expand := NewCRDs(), NewCRDPaths()
	for _, p := range paths {
		a := s.AddSource("--crd " + p)
		files, texts, err := expand.Expand(p, "--crd "+p)
		if err != nil {
			t.Fatal(err)
		}
		s.AddCRDs(a, files, texts)
	}
	return s
}

// TestOpenOutsideRepository: outside a repository nothing is scanned,
// but the kustomizations among the inputs still name their patches, in
// directories other than their own.
func TestOpenOutsideRepository(t *testing.T) {
	root := t.TempDir()
	if gitRoot(root) != "" {
		t.Skip("the temporary directory is inside a repository")
	}
	testutil.WriteFiles(t, root, map[string]string{
		"overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n- path: ../../shared/limits.yaml\n",
		"shared/limits.yaml":               "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: web}\n",
		"base/widget.yaml":                 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: web}\n",
	})
	s, err := Open([]string{root}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, f := range s.Files {
		rel, _ := filepath.Rel(root, f)
		got[filepath.ToSlash(rel)] = s.Skip[i]
	}
	want := map[string]string{
		"overlays/prod/kustomization.yaml": SkipKustomization,
		"shared/limits.yaml":               SkipKustomizePatch,
		"base/widget.yaml":                 "",
	}
	for f, why := range want {
		if got[f] != why {
			t.Errorf("%s: got %q, want %q", f, got[f], why)
		}
	}
}

// TestSkipReasonsDocumented: docs/configuration.md's table of what is not
// manifests has a row for every reason a command counts a skip by.
func TestSkipReasonsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, why := range []string{
		SkipKustomization, SkipKustomizePatch, SkipHelmTemplate, SkipTestAssertion, SkipSnapshot, SkipExcluded,
		source.SkipTemplate, source.SkipNotObject, source.SkipPartialCRD, source.SkipSubstitution,
		crd.SkipBuiltin, crd.SkipConfig,
	} {
		if !strings.Contains(string(doc), "\n| `"+why+"` |") {
			t.Errorf("docs/configuration.md has no row for %q", why)
		}
	}
}
