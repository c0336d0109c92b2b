package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// countsLine is what the linter prints under CRDLINT_MEMSTATS=1: the work
// it did (internal/count).
var countsLine = regexp.MustCompile(`counts: \{[^}]*\bCRValidations:(\d+)\}`)

// validated is how many custom resources the run's linter judged.
func validated(t *testing.T, run *actionRun) int {
	t.Helper()
	// The run step's: install's `kubectl-crdlint version` prints some too.
	stderr := run.step(t, "run").stderr
	m := countsLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no counts in the run step's log (CRDLINT_MEMSTATS=1):\n%s", stderr)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestActionVerdictCache follows the verdict cache through the commits of
// a pull request, as actions/cache keeps it: the first run judges every
// file and saves what it judged even though its findings fail the step;
// the next commit's run restores it (from another checkout, as a new job
// is) and judges only the file that changed; a run that judged nothing new
// saves nothing; a change to the CRDs restores the newest cache of the
// same tool, whose entries for that CRD then miss. Every run annotates
// what a run without the cache (cache: false) does.
func TestActionVerdictCache(t *testing.T) {
	c := builtCache(t)
	a := readAction(t)
	// commit makes a new job's checkout of the errors fixture with edits
	// applied: at the same paths as the job before (a runner's workspace
	// and temporary directory do not move), emptied first.
	job := t.TempDir()
	commit := func(edits map[string][2]string) *runnerEnv {
		t.Helper()
		if err := os.RemoveAll(job); err != nil {
			t.Fatal(err)
		}
		env := newEnvIn(t, job, "errors", c)
		env.env = map[string]string{"CRDLINT_MEMSTATS": "1"}
		for name, e := range edits {
			p := filepath.Join(env.workspace, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), e[0]) {
				t.Fatalf("%s has no %q", name, e[0])
			}
			// Removed first: the checkout's files are hard links to
			// testdata's.
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), e[0], e[1], 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return env
	}
	run := func(what string, env *runnerEnv, with map[string]string) *actionRun {
		t.Helper()
		r := runAction(t, a, env, with)
		if r.code != 1 || r.failed != "run" {
			t.Fatalf("%s: exit %d at %q, want 1 at run (the fixture's findings)\n%s%s", what, r.code, r.failed, r.stdout, r.stderr)
		}
		// The same findings as without the cache, on a copy of the
		// same checkout.
		plain := &runnerEnv{workspace: t.TempDir(), temp: t.TempDir(), ref: env.ref, cache: c.clone(t.TempDir())}
		testutil.CopyTree(t, env.workspace, plain.workspace)
		off := runAction(t, a, plain, map[string]string{"cache": "false"})
		if got, want := annotations(t, r.stdout), annotations(t, off.stdout); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: annotations %q, want those of a run without the cache %q", what, got, want)
		}
		return r
	}
	// The binary's restore and save come first: the verdicts' are the
	// last steps that use actions/cache.
	stepLast := func(r *actionRun, prefix string) *stepRun {
		var last *stepRun
		for _, s := range r.steps {
			if _, uses, ok := strings.Cut(s.label, " "); ok && strings.HasPrefix(uses, prefix) {
				last = s
			}
		}
		if last == nil {
			t.Fatalf("no step uses %s", prefix)
		}
		return last
	}
	restored := func(r *actionRun) string { return stepLast(r, "actions/cache/restore@").outputs["cache-matched-key"] }
	saved := func(r *actionRun) string {
		if s := stepLast(r, "actions/cache/save@"); !s.skipped {
			return s.with["key"]
		}
		return ""
	}
	// crdPart is the CRDs' part of a key: ...-<crds>-<run id>-<attempt>.
	crdPart := func(key string) string {
		f := strings.Split(key, "-")
		return f[len(f)-3]
	}

	first := run("first run", commit(nil), nil)
	key1 := first.step(t, "verdicts").outputs["key"]
	for _, part := range []string{"kubectl-crdlint-verdicts-", runnerOS(), runnerArch()} {
		if !strings.Contains(key1, part) {
			t.Errorf("key %q lacks %q", key1, part)
		}
	}
	if got := restored(first); got != "" {
		t.Errorf("first run: restored %q from an empty cache", got)
	}
	if n := validated(t, first); n != 3 {
		t.Errorf("first run: %d custom resources validated, want the fixture's 3", n)
	}
	if got := saved(first); got != key1 {
		t.Fatalf("first run: saved %q, want the verdicts under %q after the findings failed the run step", got, key1)
	}

	again := run("the next commit, no file changed", commit(nil), nil)
	if got := restored(again); got != key1 {
		t.Errorf("next commit: restored %q, want the first run's %q", got, key1)
	}
	if n := validated(t, again); n != 0 {
		t.Errorf("next commit, nothing changed: %d custom resources validated, want none", n)
	}
	if got := saved(again); got != "" {
		t.Errorf("next commit, nothing judged: saved %q, want nothing (the same cache again)", got)
	}

	edited := run("a commit that edits one file", commit(map[string][2]string{"config/samples/widgets.yaml": {"color: red", "color: blue"}}), nil)
	if got := restored(edited); got != key1 {
		t.Errorf("one file edited: restored %q, want %q", got, key1)
	}
	if n := validated(t, edited); n != 2 {
		t.Errorf("one file edited: %d custom resources validated, want its 2", n)
	}
	key3 := saved(edited)
	if key3 == "" || key3 == key1 || key3 != edited.step(t, "verdicts").outputs["key"] {
		t.Errorf("one file edited: saved %q, want a key of its own", key3)
	}

	crd := run("a commit that edits the CRD", commit(map[string][2]string{"config/crd/bases/example.com_widgets.yaml": {"singular: widget", "singular: widget\n    shortNames: [wd]"}}), nil)
	key4 := crd.step(t, "verdicts").outputs["key"]
	// The tool's and the invocation's parts, before the CRDs'.
	before := func(key string) string { return key[:strings.LastIndex(key, "-"+crdPart(key)+"-")] }
	if crdPart(key4) == crdPart(key3) || before(key4) != before(key3) {
		t.Errorf("the CRD edited: key %q, want that of %q with another CRD part", key4, key3)
	}
	if got := restored(crd); got != key3 {
		t.Errorf("CRD edited: restored %q, want the newest cache of the same tool %q", got, key3)
	}
	if n := validated(t, crd); n != 3 {
		t.Errorf("CRD edited: %d custom resources validated, want all 3 (their CRD changed)", n)
	}

	// Flags in args win: --no-cache neither reads nor adds to it.
	off := runAction(t, a, commit(nil), map[string]string{"args": "--no-cache"})
	if off.code != 1 || validated(t, off) != 3 || saved(off) != "" {
		t.Errorf("args --no-cache: exit %d, %d validated, saved %q; want 1, all 3 and nothing saved", off.code, validated(t, off), saved(off))
	}
}
