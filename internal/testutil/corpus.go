// Package testutil finds the shared corpus of real CRDs and custom
// resources that tests and benchmarks use.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir returns ../shared/corpus beside the repository (CI clones the
// repository with shared/ next to it). Tests skip, saying why, when it is
// absent; in CI (CI=true) its absence is a failure, so that a green CI run
// never silently skipped the differential tests.
func CorpusDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("CRDLINT_CORPUS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		for _, c := range []string{filepath.Join(dir, "shared", "corpus"), filepath.Join(dir, "..", "shared", "corpus")} {
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("../shared/corpus not found beside the repository; set CRDLINT_CORPUS")
	}
	tb.Skip("../shared/corpus not found beside the repository (set CRDLINT_CORPUS): skipping corpus test")
	return ""
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
	return out
}
