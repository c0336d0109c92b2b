package crdsource

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const widgets = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n"

// repo is a repository with kubebuilder's layout: CRDs, a kustomization
// and a patch of them, and a custom resource.
func repo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                                  "ref: refs/heads/main\n",
		"config/crd/bases/widgets.yaml":              widgets,
		"config/crd/kustomization.yaml":              "resources: [bases/widgets.yaml]\npatches: [{path: patches/webhook_in_widgets.yaml}]\n",
		"config/crd/patches/webhook_in_widgets.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {conversion: {strategy: Webhook}}\n",
		"config/samples/widget.yaml":                 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n",
	})
	return root
}

func names(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, filepath.Base(f.Name))
	}
	return out
}

// TestSources: what each kind of local source hands over, and how it
// fails, in one line naming the source.
func TestSources(t *testing.T) {
	root := repo(t)
	crdDir := filepath.Join(root, "config", "crd")
	// A vendored copy under an argument's directory (upgrade's OLD and
	// NEW) is another project's, left out as check leaves it out.
	vendored := filepath.Join(crdDir, "vendor", "other", "crd.yaml")
	if err := os.MkdirAll(filepath.Dir(vendored), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vendored, []byte(widgets), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		src  Source
		// want are the files' base names; read, whether they come with
		// their text.
		want []string
		read bool
		err  string
	}{
		{name: "a --crd directory leaves kustomizations and patches out, unread",
			src: &Path{Path: crdDir, Label: "--crd config/crd"}, want: []string{"widgets.yaml"}},
		{name: "a --crd patch named on its own is the user's to give",
			src: &Path{Path: filepath.Join(crdDir, "patches", "webhook_in_widgets.yaml"), Label: "--crd p"}, want: []string{"webhook_in_widgets.yaml"}},
		{name: "--crd refuses stdin", src: &Path{Path: "-", Label: "--crd -"},
			err: "--crd -: CRDs cannot be read from stdin; give a file or directory"},
		{name: "--crd of a directory without manifests", src: &Path{Path: t.TempDir(), Label: "--crd empty"},
			err: "--crd empty: no .yaml, .yml, .json files there"},
		{name: "--crd of a missing path", src: &Path{Path: filepath.Join(root, "nope"), Label: "--crd nope"},
			err: "read " + filepath.Join(root, "nope") + ": no such file or directory"},
		{name: "an argument is every file, read",
			src: &Input{Path: crdDir}, want: []string{"widgets.yaml", "kustomization.yaml", "webhook_in_widgets.yaml"}, read: true},
		{name: "an argument may be stdin", src: &Input{Path: "-", Stdin: strings.NewReader(widgets)}, want: []string{source.StdinPath}, read: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Load(context.Background(), tt.src)
			if tt.err != "" {
				var ie *source.InputError
				if !errors.As(err, &ie) || err.Error() != tt.err {
					t.Fatalf("got %v, want the input error %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(fs); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			for _, f := range fs {
				if (f.Data != nil) != tt.read {
					t.Errorf("%s: read %v, want %v", f.Name, f.Data != nil, tt.read)
				}
				pf, data, err := f.Parse()
				if err != nil || pf.Path != f.Name || len(data) == 0 {
					t.Errorf("%s: parsed as %v, %d bytes, %v", f.Name, pf, len(data), err)
				}
			}
		})
	}
}

// TestGit: REV:PATH is a git source, its files named REV:PATH/name; a
// revision none of whose files holds a CRD says how many there were.
func TestGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not on PATH: the test needs it to make a repository")
	}
	root := repo(t)
	if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "c"}} {
		c := exec.Command(git, args...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src := Arg("HEAD:config/crd/bases", nil)
	fs, err := Load(context.Background(), src)
	if err != nil || len(fs) != 1 || fs[0].Name != "HEAD:config/crd/bases/widgets.yaml" || string(fs[0].Data) != widgets {
		t.Fatalf("got %+v, %v; want HEAD:config/crd/bases/widgets.yaml with its text", fs, err)
	}
	// A revision's files are read as the same files on disk are, as a
	// command's inputs: a patch of a CRD is a partial CRD, skipped, not a
	// CRD whose update the server refuses (KServe's
	// config/crd/full/isvc_conversion_webhook_patch.yaml).
	for _, arg := range []string{"HEAD:config/crd/patches", "config/crd/patches"} {
		fs, err := Load(context.Background(), Arg(arg, nil))
		if err != nil || len(fs) != 1 {
			t.Fatalf("%s: got %+v, %v; want the patch", arg, fs, err)
		}
		f, _, err := fs[0].Parse()
		if err != nil || len(f.Documents) != 0 || f.Partial != 1 {
			t.Errorf("%s: got %d documents, %d partial, %v; want 0, 1", arg, len(f.Documents), f.Partial, err)
		}
	}
	samples := Arg("HEAD:config/samples", nil)
	if _, err := Load(context.Background(), samples); err != nil {
		t.Fatal(err)
	}
	want := "HEAD:config/samples: no CustomResourceDefinition in the 1 file under config/samples at git revision HEAD"
	if err := NoCRD(samples, 1); err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	// A file on disk of that name is a path, not a revision.
	if _, ok := Arg("config/crd", nil).(*Input); !ok {
		t.Errorf("config/crd: not an Input")
	}
	if err := NoCRD(Arg("config/samples", nil), 1); err.Error() != "config/samples: no CustomResourceDefinition found" {
		t.Errorf("got %q", err)
	}
}

// TestURLsFirst: the settings' sources in order, named as the user wrote
// them; every URL is fetched, all at once, before any path is looked at:
// one that cannot be fetched fails the run even after a missing path.
func TestURLsFirst(t *testing.T) {
	var (
		mu       sync.Mutex
		requests []string
	)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/gone.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(widgets))
	}))
	defer srv.Close()
	made := 0
	fetch := &Fetch{New: func() (*remote.Fetcher, error) {
		made++
		return &remote.Fetcher{Dir: t.TempDir(), Client: srv.Client()}, nil
	}}
	root := repo(t)
	url := func(p string) config.CRDSource {
		s, err := remote.ParseSource(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		return config.CRDSource{URL: &s, From: "--crd"}
	}
	crds := []config.CRDSource{
		{Path: filepath.Join(root, "config", "crd"), From: ".crdlint.yaml:2:3"},
		url("/widgets.yaml"),
	}
	srcs := Settings(crds, fetch)
	if got := srcs[0].String(); got != ".crdlint.yaml:2:3: crds: "+crds[0].Path {
		t.Errorf("label %q", got)
	}
	if got := srcs[1].String(); got != "--crd "+srv.URL+"/widgets.yaml" {
		t.Errorf("label %q", got)
	}
	set, err := Set(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) != 2 || set.Given(set.Files[0]) || !set.Given(set.Files[1]) || set.Files[1] != srv.URL+"/widgets.yaml" || !slices.Equal(set.Arg, []int{0, 1}) {
		t.Errorf("got files %q (given: %v, %v), args %v; want the local CRD unread, then the URL's text", set.Files, set.Given(set.Files[0]), set.Given(set.Files[1]), set.Arg)
	}

	requests = nil
	bad := Settings([]config.CRDSource{{Path: filepath.Join(root, "nope"), From: "--crd"}, url("/gone.yaml"), url("/widgets.yaml")}, fetch)
	_, err = Load(context.Background(), bad...)
	var re *remote.Error
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "/gone.yaml") {
		t.Errorf("got %v, want the fetch of /gone.yaml to fail first", err)
	}
	// widgets.yaml is in the cache since the first run.
	if !slices.Equal(requests, []string{"/gone.yaml"}) {
		t.Errorf("requests %q, want /gone.yaml's", requests)
	}
	if made != 1 {
		t.Errorf("the fetcher was made %d times, want once", made)
	}
	if _, err := Load(context.Background(), Settings([]config.CRDSource{{Path: root, From: "--crd"}}, &Fetch{New: func() (*remote.Fetcher, error) {
		t.Error("a fetcher made without URLs")
		return nil, errors.New("no")
	}})...); err != nil {
		t.Fatal(err)
	}
}
