package layout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCopyIn(t *testing.T) {
	tests := []struct {
		path string
		want int
	}{
		{"config/crd/bases/x.yaml", -1},
		{"releases/cnpg-1.30.0.yaml", 0},
		{"testdata/project-v4/dist/install.yaml", 2},
		{"bundle/manifests/cache.example.com_memcacheds.yaml", 0},
		{"vendor/github.com/x/y/config/crd/z.yaml", 0},
		{"a/vendor/b/third_party/c.yaml", 1},
		// The file's own name is not a directory.
		{"manifests/dist", -1},
		{"releases", -1},
		// Names that only contain a copy directory's name are not one.
		{"distribution/x.yaml", -1},
		{"my-releases/x.yaml", -1},
	}
	for _, tt := range tests {
		if got := CopyIn(tt.path); got != tt.want {
			t.Errorf("CopyIn(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

func TestCopyDirsListsCopyDir(t *testing.T) {
	var got []string
	for n := range copyDirs {
		got = append(got, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, CopyDirs()) {
		t.Errorf("CopyDirs() = %v, want the names CopyDir knows, sorted: %v", CopyDirs(), got)
	}
}

// TestDocumented: docs/configuration.md names every copy directory, in
// the rule for which CRD judges and in what config init leaves out.
func TestDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range CopyDirs() {
		if got := strings.Count(string(doc), "`"+n+"`"); got < 2 {
			t.Errorf("docs/configuration.md names `%s` %d times, want it in the rule and in config init's", n, got)
		}
	}
}

func TestSnapshot(t *testing.T) {
	for path, want := range map[string]bool{
		"tests/__snapshot__/externalsecret-v1.yaml":                    true,
		"deploy/charts/x/tests/__snapshot__/controller_test.yaml.snap": true,
		"web/__snapshots__/a.yaml":                                     true,
		"tests/snapshot/a.yaml":                                        false,
		"tests/__snapshot__":                                           false, // a file of that name
		"__snapshot__x/a.yaml":                                         false,
		// Round-trip compatibility fixtures: testdata/<release>/G.V.K.
		"staging/src/kubevirt.io/api/apitesting/testdata/HEAD/kubevirt.io.v1.KubeVirt.yaml":        true,
		"staging/src/kubevirt.io/api/apitesting/testdata/release-1.9/kubevirt.io.v1.KubeVirt.json": true,
		"staging/src/k8s.io/api/testdata/v1.33.0/core.v1.Pod.yaml":                                 true,
		"staging/src/k8s.io/api/testdata/HEAD/apps.v1beta2.Deployment.json":                        true,
		"testdata/HEAD/core.v1.Pod.pb":                                                             false, // not YAML or JSON: not read anyway
		"testdata/core.v1.Pod.yaml":                                                                false, // not in a release's directory
		"testdata/HEAD/sub/core.v1.Pod.yaml":                                                       false,
		"config/samples/HEAD/apps.v1.Deployment.yaml":                                              false,
		"testdata/HEAD/deployment.yaml":                                                            false,
		"testdata/HEAD/example.com.v1.widget.yaml":                                                 false, // a kind starts with a capital
		"testdata/HEAD/example.com.version1.Widget.yaml":                                           false,
		"testdata/HEAD/example.com_v1_widget.yaml":                                                 false,
		"config/crd/bases/kubevirt.io.v1.KubeVirt.yaml":                                            false,
		// Argo CD's resource customizations: the Lua tests' objects.
		"resource_customizations/argoproj.io/Rollout/testdata/degraded.yaml":       true,
		"resource_customizations/argoproj.io/Rollout/actions/testdata/paused.yaml": true,
		"x/resource_customizations/apps/Deployment/actions/testdata/in.yaml":       true,
		"resource_customizations/argoproj.io/Rollout/health_test.yaml":             false,
		"resource_customizations/argoproj.io/Rollout/actions/action_test.yaml":     false,
		"resource_customizations/testdata/a.yaml":                                  false,
		"resource_customizations/argoproj.io/Rollout/samples/a.yaml":               false,
		"docs/resource_customizations.yaml":                                        false,
	} {
		if got := Snapshot(path); got != want {
			t.Errorf("Snapshot(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestAssertion(t *testing.T) {
	for name, want := range map[string]bool{
		"00-assert.yaml":        true,
		"01-errors.yaml":        true,
		"02-assert-pods.yaml":   true, // kuttl: the word after the index
		"10-Assert.yaml":        true, // kuttl compares it case-insensitively
		"00-assert.yml":         true, // chainsaw
		"00-install.yaml":       false,
		"00-asserts.yaml":       false,
		"assert.yaml":           false, // no step index: no step file
		"crd-assert.yaml":       false, // named by a chainsaw test, not by its name
		"00-assert.json":        false,
		"00-errors-extra.yaml":  true,
		"a00-assert.yaml":       false,
		"00-assert.yaml.bak":    false,
		"00-pre-assert.yaml":    false,
		"100-errors.yaml":       true,
		"00-assert-a.b.yaml":    false, // kuttl's name stops at the first "."
		"00-assert-a-b.yaml":    true,
		"00-cleanup-assert.yml": false,
	} {
		if got := Assertion(name); got != want {
			t.Errorf("Assertion(%q) = %v, want %v", name, got, want)
		}
	}
}
