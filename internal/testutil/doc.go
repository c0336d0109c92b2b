// Package testutil finds the corpus of real CRDs and custom resources
// that the differential tests, fuzz seeds and benchmarks read.
//
// The corpus is testdata/corpus at the repository's root, a curated
// subset of the shared one (see its README and NOTICE), so that a fresh
// clone runs every corpus test; CRDLINT_CORPUS selects another, such as
// the full ../shared/corpus. A corpus that is not there fails the test
// that asks for it: nothing skips. Tests that require a minimum of what
// they compared scale it to the corpus with AtLeast.
//
// What the corpus means is left to the tests.
//
// Example, in a test:
//
//	for _, p := range testutil.Files(t, "crds") {
//		data, err := os.ReadFile(p)
//		...
//	}
//	if compared < testutil.AtLeast(t, 150, 40) {
//		t.Fatalf("only %d CRDs compared", compared)
//	}
package testutil
