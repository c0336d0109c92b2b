package kustomize

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* from the current output")

const repo = "testdata/repo"

// builds are the fixture kustomizations that render.
var builds = []string{"base", "overlays/dev", "overlays/staging", "overlays/legacy", "overlays/asked", "overlays/plugins", "components/monitoring"}

// kubectlBuild is the oracle: what kubectl apply -k renders, with
// k8s.io/cli-runtime's own options and nothing of ours.
func kubectlBuild(t *testing.T, dir string) []byte {
	t.Helper()
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionLegacy
	m, err := krusty.MakeKustomizer(o).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	y, err := m.AsYaml()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	return y
}

func render(t *testing.T, dir string) *Rendered {
	t.Helper()
	r, err := Render(filepath.Join(repo, dir))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// golden compares got with testdata/golden/name, or rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/kustomize -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./pkg/kustomize -update to accept):\n%s", p, got)
	}
}

func goldenName(dir, ext string) string {
	return strings.ReplaceAll(dir, "/", "-") + ext
}

// TestRenderIsKubectls: the stream is byte for byte what kubectl's
// kustomize renders, although the build ran with origin annotations on.
func TestRenderIsKubectls(t *testing.T) {
	for _, dir := range builds {
		t.Run(dir, func(t *testing.T) {
			r := render(t, dir)
			want := kubectlBuild(t, filepath.Join(repo, dir))
			if !bytes.Equal(r.YAML, want) {
				t.Errorf("got\n%s\nwant (kubectl's)\n%s", r.YAML, want)
			}
			golden(t, goldenName(dir, ".yaml"), r.YAML)
			if r.Stream.Count != len(r.Objects) {
				t.Errorf("stream has %d documents, %d objects", r.Stream.Count, len(r.Objects))
			}
			if len(r.Stream.Findings) != 0 {
				t.Errorf("stream findings: %v", r.Stream.Findings)
			}
			if want := "kustomize build " + filepath.Join(repo, dir); r.Name != want || r.Stream.Path != want {
				t.Errorf("got name %q, stream %q, want %q", r.Name, r.Stream.Path, want)
			}
		})
	}
}

// TestOriginAnnotationsStayWhenAsked: a kustomization that asks for
// origin annotations gets them, as kubectl would send them.
func TestOriginAnnotationsStayWhenAsked(t *testing.T) {
	tests := []struct {
		dir  string
		want bool
	}{
		{"overlays/asked", true},
		{"overlays/dev", false},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := render(t, tt.dir)
			if got := bytes.Contains(r.YAML, []byte("config.kubernetes.io/origin")); got != tt.want {
				t.Errorf("origin annotations in the stream: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOrigins: every object's origin file, position and identity there.
func TestOrigins(t *testing.T) {
	for _, dir := range builds {
		t.Run(dir, func(t *testing.T) {
			r := render(t, dir)
			var b strings.Builder
			for i, o := range r.Objects {
				if o.Origin.Path == "" {
					t.Errorf("object %d (%s) has no origin", i, o.Object)
				}
				fmt.Fprintf(&b, "%d %s <- %s:%d:%d", i, o.Object, filepath.ToSlash(o.Origin.Path), o.Origin.Line, o.Origin.Column)
				if o.Origin.Generator != "" {
					fmt.Fprintf(&b, " generator %s", o.Origin.Generator)
				}
				fmt.Fprintf(&b, " document %d (%s)\n", o.Origin.Document, o.Origin.Identity)
				if o.Origin.Line == 0 {
					t.Errorf("object %d (%s) not found in %s", i, o.Object, o.Origin.Path)
				}
			}
			golden(t, goldenName(dir, ".origins"), []byte(b.String()))
		})
	}
}

// TestRenderErrors: what cannot be rendered offline is one line, an
// input error (exit 2), naming what is wrong.
func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name string
		dir  string
		want string
	}{
		{"missing resource", "errors/missing", `resource "nope.yaml" (in testdata/repo/errors/missing/kustomization.yaml): no such file or directory`},
		{"remote git base", "errors/remote", `remote resource "github.com/example/widgets//config/default?ref=v1.0.0" (in testdata/repo/errors/remote/kustomization.yaml) is not fetched: -k renders offline`},
		{"remote base of a base", "errors/remote-nested", `remote resource "github.com/example/widgets//config/default?ref=v1.0.0" (in testdata/repo/errors/remote/kustomization.yaml)`},
		{"remote patch", "errors/remote-patch", `remote patch "https://example.com/patches/color.yaml"`},
		{"remote http file", "errors/remote-http", `remote resource "https://raw.githubusercontent.com/example/widgets/main/widget.yaml"`},
		{"file outside the root", "errors/outside", "is not in or below"},
		{"unknown field", "errors/invalid", `unknown field "namPrefix"`},
		{"no kustomization", "errors/notdir", "no kustomization.yaml, kustomization.yml or Kustomization in testdata/repo/errors/notdir"},
		{"no directory", "errors/absent", "testdata/repo/errors/absent: no such directory"},
		{"a file", "base/crd.yaml", "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(repo, tt.dir)
			r, err := Render(dir)
			if err == nil {
				t.Fatalf("got %d objects, want an error", len(r.Objects))
			}
			var ie *source.InputError
			if !errors.As(err, &ie) {
				t.Errorf("got %T, want *source.InputError", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "kustomize build "+dir+": ") {
				t.Errorf("got %q, want it to start with the build", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("got %q, want it to contain %q", msg, tt.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("got %q, want one line", msg)
			}
		})
	}
}

func TestIsRemote(t *testing.T) {
	tests := []struct {
		ref  string
		want bool
	}{
		{"../base", false},
		{"deployment.yaml", false},
		{"github.com", false},
		{"github.com/org/repo//base?ref=v1", true},
		{"GitHub.com:org/repo", true},
		{"git::https://example.com/org/repo.git", true},
		{"https://example.com/x.yaml", true},
		{"HTTP://example.com/x.yaml", true},
		{"ssh://git@example.com/org/repo.git", true},
		{"git@gitlab.com:org/repo.git", true},
		{"file:///srv/repo.git", true},
		{"my-dir@2/base", true}, // kustomize would take it for user@host too
		{"2x@host/base", false},
	}
	for _, tt := range tests {
		if got := isRemote(tt.ref); got != tt.want {
			t.Errorf("isRemote(%q): got %v, want %v", tt.ref, got, tt.want)
		}
	}
}

func TestWithOrigins(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		ok, asked bool
		want      []string // buildMetadata kustomize reads from the result
	}{
		{"adds the option", "resources: [a.yaml]\n", true, false, []string{"originAnnotations"}},
		{"keeps other options", "resources: [a.yaml]\nbuildMetadata: [managedByLabel]\n", true, false, []string{"managedByLabel", "originAnnotations"}},
		{"asked already", "resources: [a.yaml]\nbuildMetadata: [originAnnotations]\n", false, true, nil},
		{"empty stays empty", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n", false, false, nil},
		{"blank", "", false, false, nil},
		{"unknown field stays an error", "resources: [a.yaml]\nnamPrefix: x\n", false, false, nil},
		{"syntax error stays", "resources: [a.yaml\n", false, false, nil},
		{"a list is no kustomization", "- a\n", false, false, nil},
		{"json", `{"resources": ["a.yaml"], "replicas": [{"name": "x", "count": 12345678901234567}]}`, true, false, []string{"originAnnotations"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, asked, ok := withOrigins([]byte(tt.in))
			if ok != tt.ok || asked != tt.asked {
				t.Fatalf("got ok %v asked %v, want %v %v", ok, asked, tt.ok, tt.asked)
			}
			if !ok {
				return
			}
			var before, after types.Kustomization
			if err := before.Unmarshal([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			if err := after.Unmarshal(out); err != nil {
				t.Fatalf("kustomize refuses the result: %v\n%s", err, out)
			}
			if fmt.Sprint(after.BuildMetadata) != fmt.Sprint(tt.want) {
				t.Errorf("got buildMetadata %v, want %v", after.BuildMetadata, tt.want)
			}
			after.BuildMetadata = before.BuildMetadata
			if fmt.Sprintf("%+v", after) != fmt.Sprintf("%+v", before) {
				t.Errorf("the rest changed:\ngot  %+v\nwant %+v", after, before)
			}
		})
	}
}
