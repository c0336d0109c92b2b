package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInit writes the starter configuration of each fixture repository
// against a golden, and checks that it loads without findings (in the
// repository, so its paths exist) and validates against the schema.
func TestInit(t *testing.T) {
	repos := []string{"kubebuilder", "helm", "helm-root", "empty", "releases"}
	schema := compileSchema(t)
	for _, name := range repos {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("testdata", "init", name)
			got, err := Init(root, InitOptions{Version: "v0.4.0"})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "init", name+".golden"), got)
			_, fs := Parse(filepath.Join(root, ".crdlint.yaml"), got, catalogue())
			for _, f := range fs {
				t.Errorf("the starter does not load: %d:%d: %s", f.Line, f.Column, f.Message)
			}
			file := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			inst, ok := instance(t, file)
			if !ok {
				t.Fatal("the starter is not YAML")
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("the starter does not validate: %v", err)
			}
		})
	}
}

// TestInitScan checks the findings of the scan itself, which the goldens
// show only as text.
func TestInitScan(t *testing.T) {
	s, err := ScanRepository(filepath.Join("testdata", "init", "kubebuilder"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CRDDirs) != 1 || s.CRDDirs[0] != (CountedPath{"config/crd/bases", 2}) {
		t.Errorf("CRDDirs = %v, want config/crd/bases with 2", s.CRDDirs)
	}
	want := []string{"config/crd/patches/", "config/default/manager_auth_proxy_patch.yaml"}
	if strings.Join(s.Patches, " ") != strings.Join(want, " ") {
		t.Errorf("Patches = %q, want %q", s.Patches, want)
	}
	var kinds []string
	for _, k := range s.ConfigKinds {
		kinds = append(kinds, k.Kind.String()+" "+k.First)
	}
	// Not the samples' Widget (it has its CRD), nor cert-manager's
	// Certificate (a kind of another project's group, no configuration).
	wantKinds := []string{
		"OperatorSettings.operator.acme.io config/manager/settings.yaml", // carried by a ConfigMap
		"ProjectConfig.config.example.com config/manager/controller_manager_config.yaml",
		"Report.example.com config/samples/report.yaml", // in the group of the repository's CRDs
	}
	if strings.Join(kinds, ", ") != strings.Join(wantKinds, ", ") {
		t.Errorf("ConfigKinds = %q, want %q", kinds, wantKinds)
	}
	if strings.Join(s.TestData, " ") != "hack/testdata" || s.Truncated {
		t.Errorf("TestData = %q, Truncated = %v", s.TestData, s.Truncated)
	}

	h, err := ScanRepository(filepath.Join("testdata", "init", "helm"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.Templates, " "); got != "charts/app/templates charts/lib/templates" {
		t.Errorf("Templates = %q", got)
	}
	if len(h.CRDDirs) != 2 || h.CRDDirs[1] != (CountedPath{"vendor/crds", 4}) {
		t.Errorf("CRDDirs = %v, want charts/app/crds and vendor/crds (4, its subdirectory included)", h.CRDDirs)
	}
}

// TestInitLeavesCopies: the copies of the project's CRDs (release
// bundles, an install manifest, an OLM bundle, a bundle at the root) are
// not proposed as CRD sources, but named, commented out; vendored CRDs of
// kinds the project does not define are the only definitions there are,
// and a Helm chart's copy is proposed, saying which entry judges.
func TestInitLeavesCopies(t *testing.T) {
	s, err := ScanRepository(filepath.Join("testdata", "init", "releases"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(cs []CountedPath) string { return strings.Join(pathsOf(cs), " ") }
	if got, want := paths(s.CRDDirs), "charts/widgets/crds config/crd/bases vendor/example.org/things/crds"; got != want {
		t.Errorf("CRDDirs = %s, want %s", got, want)
	}
	if len(s.CRDFiles) != 0 {
		t.Errorf("CRDFiles = %v, want none: install.yaml is a bundle of the project's CRDs", s.CRDFiles)
	}
	var copies []string
	for _, c := range s.CRDCopies {
		copies = append(copies, fmt.Sprintf("%s:%d:%d", c.Path, c.CRDs, c.OwnKinds))
	}
	if got, want := strings.Join(copies, " "), "bundle/manifests:1:0 dist:2:0 releases:3:0 install.yaml:1:0"; got != want {
		t.Errorf("CRDCopies = %s, want %s", got, want)
	}
	if got := s.Over["config/crd/bases"]; len(got) != 1 || got[0] != "charts/widgets/crds" {
		t.Errorf("Over[config/crd/bases] = %v, want charts/widgets/crds: it is listed later and defines Widget too", got)
	}
}

// TestInitBounded: the walk stops at MaxEntries and below MaxDepth, and
// says so.
func TestInitBounded(t *testing.T) {
	root := filepath.Join("testdata", "init", "kubebuilder")
	for _, o := range []InitOptions{{MaxEntries: 5}, {MaxDepth: 1}} {
		s, err := ScanRepository(root, o)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Truncated || len(s.CRDDirs) != 0 {
			t.Errorf("%+v: Truncated = %v, CRDDirs = %v; want a truncated scan without config/crd/bases", o, s.Truncated, s.CRDDirs)
		}
		if !strings.Contains(string(s.Render("")), "The scan stopped early") {
			t.Errorf("%+v: the output does not say the scan stopped", o)
		}
	}
	if _, err := Init(filepath.Join(root, "README.md"), InitOptions{}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Init on a file: %v", err)
	}
	if _, err := Init(filepath.Join(root, "nope"), InitOptions{}); err == nil {
		t.Error("Init on a missing directory: no error")
	}
}
