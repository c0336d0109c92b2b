package release

import (
	"os"
	"regexp"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
)

// manifest is the part of krew's v1alpha2 Plugin that its validator checks.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Homepage         string `json:"homepage"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewManifest applies krew's validation rules (pkg/index/validation in
// sigs.k8s.io/krew) to plugins/crdlint.yaml.
func TestKrewManifest(t *testing.T) {
	b, err := os.ReadFile("../../plugins/crdlint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := sigsyaml.UnmarshalStrict(b, &m); err != nil {
		// Strict: krew rejects unknown fields too.
		t.Fatalf("manifest does not decode strictly: %v", err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"apiVersion is krew's v1alpha2", m.APIVersion == "krew.googlecontainertools.github.com/v1alpha2"},
		{"kind is Plugin", m.Kind == "Plugin"},
		{"name is crdlint, matching the file name", m.Metadata.Name == "crdlint"},
		{"version is vX.Y.Z", regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(m.Spec.Version)},
		{"shortDescription is one line", m.Spec.ShortDescription != "" && !strings.Contains(m.Spec.ShortDescription, "\n")},
		{"shortDescription is at most 60 characters", len(m.Spec.ShortDescription) <= 60},
		{"homepage is https", strings.HasPrefix(m.Spec.Homepage, "https://")},
		{"six platforms", len(m.Spec.Platforms) == 6},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("krew rule failed: %s", c.name)
		}
	}
	seen := map[string]bool{}
	for _, p := range m.Spec.Platforms {
		l := p.Selector.MatchLabels
		key := l["os"] + "/" + l["arch"]
		if seen[key] {
			t.Errorf("platform %s listed twice", key)
		}
		seen[key] = true
		if !regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(p.Sha256) {
			t.Errorf("%s: sha256 %q is not 64 hex digits", key, p.Sha256)
		}
		if !strings.HasPrefix(p.URI, "https://") || !strings.Contains(p.URI, m.Spec.Version) {
			t.Errorf("%s: uri %q is not an https URL of version %s", key, p.URI, m.Spec.Version)
		}
		wantBin := "kubectl-crdlint"
		if l["os"] == "windows" {
			wantBin += ".exe"
		}
		if p.Bin != wantBin {
			t.Errorf("%s: bin is %q, want %q", key, p.Bin, wantBin)
		}
		if len(p.Files) == 0 {
			t.Errorf("%s: no files to install", key)
		}
		// Every older minor's engine is installed beside the binary,
		// where --kubernetes-version looks for it: krew users judge as
		// any supported minor offline.
		installed := map[string]bool{}
		for _, f := range p.Files {
			if f.To == "." {
				installed[f.From] = true
			}
		}
		for _, r := range kubeminor.Supported {
			name := strings.TrimSuffix(kubeminor.EngineName(r.Minor), ".exe")
			if l["os"] == "windows" {
				name += ".exe"
			}
			if !installed[name] {
				t.Errorf("%s: the Kubernetes %s engine %s is not installed", key, r.Minor, name)
			}
		}
	}
}
