package cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func TestUpgradeValidate(t *testing.T) {
	live := newClusterOptions()
	live.Live = true
	tests := []struct {
		name    string
		o       UpgradeOptions
		wantErr string
	}{
		{"fine", UpgradeOptions{oldArg: "a", newArg: "b"}, ""},
		{"stored versions", UpgradeOptions{oldArg: "a", newArg: "b", StoredVersions: []string{"v1", "v1beta1"}}, ""},
		{"empty stored version", UpgradeOptions{oldArg: "a", newArg: "b", StoredVersions: []string{"v1", " "}}, "--stored-versions: empty version name"},
		{"stored versions with live", UpgradeOptions{newArg: "b", StoredVersions: []string{"v1"}, Cluster: live}, "--stored-versions is for OLD read from a file"},
		{"stdin twice", UpgradeOptions{oldArg: "-", newArg: "-"}, "only once"},
		{"unknown rule", UpgradeOptions{oldArg: "a", newArg: "b", Disable: []string{"upgrade-nope"}}, `unknown rule "upgrade-nope"`},
		{"known rules", UpgradeOptions{oldArg: "a", newArg: "b", Disable: []string{"upgrade-default-changed,upgrade-object-data-lost", "crd-versions"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				return
			}
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error containing %q", err, tt.wantErr)
			}
		})
	}
}

// runMainIn runs the command line in-process from dir (the repository's
// root when ""), returning exit code, stdout and stderr.
func runMainIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	if dir == "" {
		dir = filepath.Join("..", "..", "..")
	}
	t.Chdir(dir)
	return runMain(t, args...)
}

// TestUpgradeGolden: the command's text and JSON outputs on
// examples/upgrade (go test ./cmd/kubectl-crdlint/cmd -run
// TestUpgradeGolden -update rewrites them).
func TestUpgradeGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, tt := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"examples.txt", []string{"upgrade", "examples/upgrade/widget-v1.yaml", "examples/upgrade/widget-v2.yaml", "examples/upgrade/objects.yaml"}, ExitFindings},
		{"examples.json", []string{"upgrade", "-o", "json", "examples/upgrade/widget-v1.yaml", "examples/upgrade/widget-v2.yaml", "examples/upgrade/objects.yaml"}, ExitFindings},
		{"examples-no-objects.txt", []string{"upgrade", "examples/upgrade/widget-v1.yaml", "examples/upgrade/widget-v2.yaml"}, ExitFindings},
		{"examples-same.txt", []string{"upgrade", "examples/upgrade/widget-v1.yaml", "examples/upgrade/widget-v1.yaml", "examples/upgrade/objects.yaml"}, ExitClean},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(wd, "testdata", "upgrade", tt.golden)
			code, out, errOut := runMainIn(t, "", tt.args...)
			if code != tt.code || errOut != "" {
				t.Fatalf("exit %d, stderr %q; want exit %d and no stderr", code, errOut, tt.code)
			}
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestUpgradeGolden -update writes it)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (go test -run TestUpgradeGolden -update rewrites it):\n%s", path, out)
			}
		})
	}
}

// TestUpgradeGitRevision reads OLD from a revision of a git repository
// made here, and says in one line what is wrong when the revision, the
// path, the repository or git itself is missing.
func TestUpgradeGitRevision(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is not on PATH: the test needs it to make a repository")
	}
	examples, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", "upgrade"))
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir = repo
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	crdPath := filepath.Join(repo, "config", "crd", "widget.yaml")
	gitRun("init", "-q", "-b", "main")
	copyFile(filepath.Join(examples, "widget-v1.yaml"), crdPath)
	copyFile(filepath.Join(examples, "objects.yaml"), filepath.Join(repo, "config", "samples", "objects.yaml"))
	copyFile(filepath.Join(examples, "README.md"), filepath.Join(repo, "docs", "README.md"))
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "v1")
	gitRun("tag", "v1.0.0")
	copyFile(filepath.Join(examples, "widget-v2.yaml"), crdPath)

	// The revision read with git equals the file on disk.
	code, fromGit, errOut := runMainIn(t, repo, "upgrade", "-o", "json", "v1.0.0:config/crd/widget.yaml", "config/crd/widget.yaml")
	if code != ExitFindings || errOut != "" {
		t.Fatalf("from git: exit %d, stderr %q", code, errOut)
	}
	copyFile(filepath.Join(examples, "widget-v1.yaml"), filepath.Join(repo, "old.yaml"))
	_, fromFile, _ := runMainIn(t, repo, "upgrade", "-o", "json", "old.yaml", "config/crd/widget.yaml")
	if strings.ReplaceAll(fromGit, "v1.0.0:config/crd/widget.yaml", "old.yaml") != fromFile {
		t.Errorf("OLD from git reports otherwise than OLD from a file:\n%s\n%s", fromGit, fromFile)
	}
	if !strings.Contains(fromGit, `"file": "v1.0.0:config/crd/widget.yaml"`) {
		t.Errorf("findings in OLD are not named REV:PATH:\n%s", fromGit)
	}
	// A directory at the revision is every CRD under it, each file named
	// REV:PATH as if given alone.
	_, fromDir, errOut := runMainIn(t, repo, "upgrade", "-o", "json", "v1.0.0:config/crd", "config/crd/widget.yaml")
	if fromDir != fromGit || errOut != "" {
		t.Errorf("OLD from a directory at a revision reports otherwise than its file (stderr %q):\n%s\n%s", errOut, fromDir, fromGit)
	}

	for _, tt := range []struct {
		name, dir, path string
		args            []string
		want            string
	}{
		{"no such revision", repo, "", []string{"v9.9.9:config/crd/widget.yaml", "config/crd/widget.yaml"},
			"error: cannot read config/crd/widget.yaml at git revision v9.9.9: invalid object name 'v9.9.9'.\n"},
		{"no such path", repo, "", []string{"v1.0.0:config/nope.yaml", "config/crd/widget.yaml"},
			"error: cannot read config/nope.yaml at git revision v1.0.0: path 'config/nope.yaml' does not exist in 'v1.0.0'\n"},
		{"a directory without CRDs", repo, "", []string{"v1.0.0:config/samples", "config/crd/widget.yaml"},
			"error: v1.0.0:config/samples: no CustomResourceDefinition in the 1 file under config/samples at git revision v1.0.0\n"},
		{"a directory without manifests", repo, "", []string{"v1.0.0:docs", "config/crd/widget.yaml"},
			"error: cannot read docs at git revision v1.0.0: it is a directory with no .yaml, .yml, .json file under it\n"},
		{"no repository", t.TempDir(), "", []string{"v1.0.0:widget.yaml", filepath.Join(examples, "widget-v2.yaml")},
			"error: cannot read widget.yaml at git revision v1.0.0: not a git repository (or any of the parent directories): .git\n"},
		{"no git", repo, t.TempDir(), []string{"v1.0.0:config/crd/widget.yaml", "config/crd/widget.yaml"},
			"error: v1.0.0:config/crd/widget.yaml: reading a file at a git revision needs git, which is not on PATH\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path != "" {
				t.Setenv("PATH", tt.path)
			}
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(tt.dir))
			code, out, errOut := runMainIn(t, tt.dir, append([]string{"upgrade"}, tt.args...)...)
			if code != ExitUsage || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

// TestUpgradeRules: the rule set has the comparison's and the replay's
// rules beside check's, with no ID twice.
func TestUpgradeRules(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range allRules {
		if seen[r.ID] {
			t.Errorf("rule %s twice", r.ID)
		}
		seen[r.ID] = true
		if r.Severity != report.Error && r.Severity != report.Warning {
			t.Errorf("%s: severity %v", r.ID, r.Severity)
		}
	}
	for _, id := range []string{"crd-versions", "upgrade-field-removed", "upgrade-object-data-lost"} {
		if !seen[id] {
			t.Errorf("%s missing", id)
		}
	}
}
