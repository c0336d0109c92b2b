package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusEnv names the environment variable that selects another corpus:
// a directory with crds/ and crs/, absolute or relative to the
// repository root (CRDLINT_CORPUS=../shared/corpus for the full one).
const CorpusEnv = "CRDLINT_CORPUS"

// inRepo is the corpus kept in the repository, relative to its root.
const inRepo = "testdata/corpus"

// CorpusDir returns the corpus the tests run on: the one in the
// repository (testdata/corpus), or the one CRDLINT_CORPUS names. A corpus
// that cannot be found fails the test: a differential test that skipped
// would pass without proving anything.
func CorpusDir(tb testing.TB) string {
	tb.Helper()
	root := RepoRoot(tb)
	dir := filepath.Join(root, inRepo)
	if d := os.Getenv(CorpusEnv); d != "" {
		dir = d
		if !filepath.IsAbs(d) {
			dir = filepath.Join(root, d)
		}
	}
	for _, sub := range []string{"crds", "crs"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			tb.Fatalf("corpus %s has no %s/ directory (%s=%q): the corpus tests need it", dir, sub, CorpusEnv, os.Getenv(CorpusEnv))
		}
	}
	return dir
}

// InRepo reports whether the tests run on the repository's own corpus,
// whose counts are smaller than the full corpus's: tests that require a
// minimum of what they compared scale it with AtLeast.
func InRepo(tb testing.TB) bool {
	tb.Helper()
	d, err := filepath.Abs(CorpusDir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return d == filepath.Join(RepoRoot(tb), inRepo)
}

// AtLeast returns the least a corpus test must compare for its proof to
// mean something: full on the full corpus (or any other selected with
// CRDLINT_CORPUS), inRepo on the repository's own.
func AtLeast(tb testing.TB, full, inRepo int) int {
	tb.Helper()
	if InRepo(tb) {
		return inRepo
	}
	return full
}

// RepoRoot returns the repository's root: the nearest directory above
// the working directory with a go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			tb.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Files lists the files of a corpus subdirectory ("crds" or "crs").
func Files(tb testing.TB, sub string) []string {
	tb.Helper()
	dir := filepath.Join(CorpusDir(tb), sub)
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		tb.Fatalf("corpus directory %s is empty", dir)
	}
	return out
}

// largeCRD is the CRD the parse and lint benchmarks of docs/performance.md
// measure, in the full corpus.
const largeCRD = "argo-workflows__manifests__base__crds__full__argoproj.io_workflows.yaml"

// LargeCRD returns the path of a large CRD for benchmarks: argo-workflows'
// Workflow (2.8 MB of deeply nested schema) when the corpus has it, as the
// full one does, else the corpus's largest CRD file.
func LargeCRD(tb testing.TB) string {
	tb.Helper()
	p := filepath.Join(CorpusDir(tb), "crds", largeCRD)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	var best string
	var size int64
	for _, f := range Files(tb, "crds") {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	return best
}
