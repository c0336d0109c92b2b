package gitrev

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("v1:widget.yaml", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		arg       string
		rev, path string
		ok        bool
	}{
		{"v1.0.0:config/crd/widget.yaml", "v1.0.0", "config/crd/widget.yaml", true},
		{"HEAD~1:a:b.yaml", "HEAD~1", "a:b.yaml", true},
		{"v1:widget.yaml", "", "", false}, // a file on disk
		{"widget.yaml", "", "", false},
		{"-", "", "", false},
		{":widget.yaml", "", "", false},
		{"v1:", "", "", false},
	} {
		t.Run(tt.arg, func(t *testing.T) {
			rev, path, ok := Split(tt.arg)
			if rev != tt.rev || path != tt.path || ok != tt.ok {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tt.arg, rev, path, ok, tt.rev, tt.path, tt.ok)
			}
		})
	}
}

// TestRead reads files and directories at revisions of a repository made
// here, and says in one line what is wrong when the revision, the path,
// the repository or git itself is missing.
func TestRead(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not on PATH: the test needs it to make a repository")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir = repo
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		"crd/widget.yaml":       "kind: Old\n",
		"crd/b/z.yml":           "kind: Z\n",
		"crd/b.yaml":            "kind: B\n",
		"crd/a/x.JSON":          "{}",
		"crd/a.yaml/.keep.yaml": "kind: Hidden\n", // a directory named like a file
		"crd/.hidden/h.yaml":    "kind: Hidden\n",
		"crd/.h.yaml":           "kind: Hidden\n",
		"crd/README.md":         "# not read\n",
		"crd/empty.yaml":        "",
		"docs/README.md":        "# no manifest\n",
	} {
		write(name, text)
	}
	if err := os.Symlink("widget.yaml", filepath.Join(repo, "crd", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	run("add", ".")
	run("commit", "-q", "-m", "old")
	run("tag", "v1")
	write("crd/widget.yaml", "kind: New\n")
	exts := []string{".yaml", ".yml", ".json"}

	for _, tt := range []struct {
		name, dir, pathEnv, rev, path string
		want                          []string // path=content
		wantDir                       bool
		wantErr                       string
	}{
		{name: "tag", dir: repo, rev: "v1", path: "crd/widget.yaml", want: []string{"crd/widget.yaml=kind: Old\n"}},
		{name: "revision expression", dir: repo, rev: "main~0", path: "crd/widget.yaml", want: []string{"crd/widget.yaml=kind: Old\n"}},
		{name: "a file named on the command line, whatever its extension", dir: repo, rev: "v1", path: "docs/README.md", want: []string{"docs/README.md=# no manifest\n"}},
		// As a walk on disk: lexical directory by directory (a/ before
		// a.yaml, b/ before b.yaml), extensions without case, no hidden
		// file or directory, no symbolic link.
		{name: "a directory", dir: repo, rev: "v1", path: "crd", wantDir: true, want: []string{
			"crd/a/x.JSON={}", "crd/b/z.yml=kind: Z\n", "crd/b.yaml=kind: B\n", "crd/empty.yaml=", "crd/widget.yaml=kind: Old\n"}},
		{name: "a directory with a slash", dir: repo, rev: "v1", path: "crd/b/", wantDir: true, want: []string{"crd/b/z.yml=kind: Z\n"}},
		{name: "a directory without manifests", dir: repo, rev: "v1", path: "docs", wantDir: true,
			wantErr: "cannot read docs at git revision v1: it is a directory with no .yaml, .yml, .json file under it"},
		{name: "no such revision", dir: repo, rev: "v9", path: "crd/widget.yaml",
			wantErr: "cannot read crd/widget.yaml at git revision v9: invalid object name 'v9'."},
		{name: "no such path", dir: repo, rev: "v1", path: "crd/nope.yaml",
			wantErr: "cannot read crd/nope.yaml at git revision v1: path 'crd/nope.yaml' does not exist in 'v1'"},
		{name: "no repository", dir: t.TempDir(), rev: "v1", path: "crd/widget.yaml",
			wantErr: "cannot read crd/widget.yaml at git revision v1: not a git repository (or any of the parent directories): .git"},
		{name: "no git", dir: repo, pathEnv: t.TempDir(), rev: "v1", path: "crd/widget.yaml",
			wantErr: "v1:crd/widget.yaml: reading a file at a git revision needs git, which is not on PATH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.pathEnv != "" {
				t.Setenv("PATH", tt.pathEnv)
			}
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(tt.dir))
			t.Chdir(tt.dir)
			files, dir, err := Read(tt.rev, tt.path, exts)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || dir != tt.wantDir {
					t.Fatalf("got %v, dir %t, %v; want error %q, dir %t", files, dir, err, tt.wantErr, tt.wantDir)
				}
				return
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path+"="+string(f.Data))
			}
			if err != nil || dir != tt.wantDir || !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, dir %t, %v; want %q, dir %t", got, dir, err, tt.want, tt.wantDir)
			}
		})
	}
}
