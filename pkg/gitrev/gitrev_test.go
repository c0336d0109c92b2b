package gitrev

import (
	"os"
	"os/exec"
	"path/filepath"
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

func TestShow(t *testing.T) {
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
	if err := os.MkdirAll(filepath.Join(repo, "crd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "crd", "widget.yaml"), []byte("kind: Old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	run("add", ".")
	run("commit", "-q", "-m", "old")
	run("tag", "v1")
	if err := os.WriteFile(filepath.Join(repo, "crd", "widget.yaml"), []byte("kind: New\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, dir, pathEnv, rev, path string
		want, wantErr                 string
	}{
		{name: "tag", dir: repo, rev: "v1", path: "crd/widget.yaml", want: "kind: Old\n"},
		{name: "revision expression", dir: repo, rev: "main~0", path: "crd/widget.yaml", want: "kind: Old\n"},
		{name: "no such revision", dir: repo, rev: "v9", path: "crd/widget.yaml",
			wantErr: "cannot read crd/widget.yaml at git revision v9: invalid object name 'v9'."},
		{name: "no such path", dir: repo, rev: "v1", path: "crd/nope.yaml",
			wantErr: "cannot read crd/nope.yaml at git revision v1: path 'crd/nope.yaml' does not exist in 'v1'"},
		{name: "a directory", dir: repo, rev: "v1", path: "crd",
			wantErr: "cannot read crd at git revision v1: it is a directory; give a file"},
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
			got, err := Show(tt.rev, tt.path)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
