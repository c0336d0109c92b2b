package kubeminor

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "1.35", want: []string{"1.35"}},
		{in: "v1.35.2", want: []string{"1.35"}},
		{in: "1.33-1.37", want: []string{"1.33", "1.34", "1.35", "1.36", "1.37"}},
		{in: "1.36,1.33", want: []string{"1.33", "1.36"}},
		{in: "1.33-1.34,1.34-1.35", want: []string{"1.33", "1.34", "1.35"}},
		{in: "1.37-1.33", err: "1.37 is newer than 1.33"},
		{in: "1.32", err: "Kubernetes 1.32 is not supported: supported minors are 1.33, 1.34, 1.35, 1.36, 1.37"},
		{in: "latest", err: `invalid Kubernetes version "latest"`},
		{in: "1.x", err: `invalid Kubernetes version "1.x"`},
		{in: "", err: "invalid Kubernetes version"},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestOfServer: a cluster's minor, from what /version says on real
// clusters (kind, GKE, EKS) and on an unstamped build.
func TestOfServer(t *testing.T) {
	for _, c := range []struct {
		git, major, minor string
		want, err         string
	}{
		{git: "v1.36.2", major: "1", minor: "36", want: "1.36"},
		{git: "v1.33.5-gke.1080000", major: "1", minor: "33", want: "1.33"},
		{git: "v1.34.1-eks-113cf36", major: "1", minor: "34+", want: "1.34"},
		{git: "v0.0.0-master+$Format:%H$", major: "1", minor: "37", want: "1.37"},
		{git: "v1.35.0", want: "1.35"},
		{git: "v1.30.14", major: "1", minor: "30", err: "runs Kubernetes 1.30, which kubectl-crdlint does not judge as (supported minors: 1.33, 1.34, 1.35, 1.36, 1.37)"},
		{git: "v1.38.0", major: "1", minor: "38", err: "runs Kubernetes 1.38,"},
		{git: "", err: "reports no version that names a Kubernetes minor"},
	} {
		got, err := OfServer(c.git, c.major, c.minor)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("OfServer(%q, %q, %q) = %q, %v; want an error with %q", c.git, c.major, c.minor, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("OfServer(%q, %q, %q) = %q, %v; want %s", c.git, c.major, c.minor, got, err, c.want)
		}
	}
}

// TestOwn: the main build links the newest minor's libraries.
func TestOwn(t *testing.T) {
	if Own() != Newest() && os.Getenv("CRDLINT_MINOR_BUILD") == "" {
		t.Fatalf("this build links Kubernetes %s's libraries; the newest supported minor is %s", Own(), Newest())
	}
}

var requireLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9./\-]+)\s+(v[^\s]+)`)

// requires reads the requirements of a go.mod text.
func requires(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range requireLine.FindAllStringSubmatch(string(b), -1) {
		if m[1] != "go" && m[1] != "module" && strings.Contains(m[1], ".") {
			out[m[1]] = m[2]
		}
	}
	return out
}

// TestModfiles: each minor is built with its own release of the server's
// libraries (the root go.mod for the newest, hack/minors for the others),
// and no module the release's apiextensions-apiserver pins was raised by
// the rest of the command's imports: the engine runs exactly the release's
// code. The pins are read from the module cache, where building or
// testing any minor puts them.
func TestModfiles(t *testing.T) {
	root := filepath.Join("..", "..")
	gomodcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	cache := strings.TrimSpace(string(gomodcache))
	compared := 0
	for _, r := range Supported {
		mod := filepath.Join(root, Modfile(r.Minor))
		if r.Tag() == "" {
			mod = filepath.Join(root, "go.mod")
		} else if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(Modfile(r.Minor), ".mod")+".sum")); err != nil {
			t.Errorf("%s: no go.sum beside the modfile: %v", r.Minor, err)
		}
		have := requires(t, mod)
		for _, m := range []string{"apiextensions-apiserver", "apiserver", "apimachinery", "client-go", "component-base"} {
			if got := have["k8s.io/"+m]; got != r.Module() {
				t.Errorf("%s: %s requires k8s.io/%s %s, want %s (Kubernetes %s)", r.Minor, mod, m, got, r.Module(), r.Patch)
			}
		}
		pins := filepath.Join(cache, "cache", "download", "k8s.io", "apiextensions-apiserver", "@v", r.Module()+".mod")
		if _, err := os.Stat(pins); err != nil {
			t.Logf("%s: %s is not in the module cache: the pins are not compared", r.Minor, pins)
			continue
		}
		for path, want := range requires(t, pins) {
			if got, ok := have[path]; ok && got != want && (strings.HasPrefix(path, "k8s.io/") || strings.Contains(path, "cel-go") || strings.Contains(path, "cel.dev")) {
				t.Errorf("%s: %s has %s %s; apiextensions-apiserver %s pins %s", r.Minor, mod, path, got, r.Module(), want)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Skip("no release's pins in the module cache")
	}
}

// TestReleaseCarriesEngines: the release archives and the image carry an
// engine for every supported minor but the main binary's, built with its
// modfile and tag.
func TestReleaseCarriesEngines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Supported {
		if r.Tag() == "" {
			continue
		}
		for _, want := range []string{
			"binary: " + EngineName(r.Minor) + "\n",
			"flags: [-trimpath, -modfile=" + filepath.ToSlash(Modfile(r.Minor)) + ", -tags=" + r.Tag() + "]",
			"      - engine-" + r.Minor + "\n",
		} {
			if !strings.Contains(string(b), want) {
				t.Errorf(".goreleaser.yaml lacks %q", want)
			}
		}
	}
	if n := strings.Count(string(b), "binary: crdlint-k8s"); n != len(Supported)-1 {
		t.Errorf(".goreleaser.yaml builds %d engines, want %d", n, len(Supported)-1)
	}
	// The image puts each beside the main binary (plugins/crdlint.yaml,
	// the krew manifest, is checked by internal/release).
	d, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Supported {
		name := EngineName(r.Minor)
		if want := "COPY $TARGETPLATFORM/" + name + " /usr/local/bin/" + name + "\n"; !strings.Contains(string(d), want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
