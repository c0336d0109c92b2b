package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// TestConcurrentRunsShareACache starts several runs of the binary at once
// on one cache directory — a CI job's parallel steps, a pre-commit hook
// and an editor — cold, warm, and after every custom resource file
// changed: each prints what a run without the cache prints. Entries are
// written to temporary files and renamed, so two runs computing the same
// entry at worst both write it.
func TestConcurrentRunsShareACache(t *testing.T) {
	bin := binary(t)
	corpus := testutil.CorpusDir(t)
	crds := filepath.Join(corpus, "crds")
	crs := t.TempDir()
	for _, p := range testutil.Files(t, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crs, filepath.Base(p)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"check", "--no-config", "--strict", "-o", "json", "--crd", crds}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "NO_COLOR=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			err = nil // findings
		}
		if err != nil || errOut.Len() > 0 {
			return out.String(), fmt.Errorf("%v: %s", err, errOut.String())
		}
		return out.String(), nil
	}
	const runs = 4
	for _, round := range []string{"cold", "warm", "every file changed"} {
		if round == "every file changed" {
			entries, _ := os.ReadDir(crs)
			for _, e := range entries {
				p := filepath.Join(crs, e.Name())
				data, _ := os.ReadFile(p)
				if err := os.WriteFile(p, append(data, "\n# changed\n"...), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		want, err := run("--no-cache", crs)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got, errs := make([]string, runs), make([]error, runs)
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = run("--cache-dir", cache, crs)
			}()
		}
		wg.Wait()
		for i := range runs {
			if errs[i] != nil {
				t.Fatalf("%s, run %d: %v", round, i, errs[i])
			}
			if got[i] != want {
				t.Errorf("%s, run %d of %d at once: the output differs from --no-cache's", round, i, runs)
			}
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "verdicts", "*", "*")); len(entries) == 0 {
		t.Error("the runs cached nothing")
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache, "verdicts", "*", ".tmp-*")); len(tmp) > 0 {
		t.Errorf("%d temporary files left behind", len(tmp))
	}
}
