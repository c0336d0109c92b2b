package crdtest

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// speedSuite reads a suite of n cases drawn from gateway-api's and Envoy
// Gateway's CEL tables and the in-repo suite (testutil.SpeedSuite).
func speedSuite(tb testing.TB, n int) *Suite {
	p := testutil.SpeedSuite(tb, tb.TempDir(), n, "")
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := Read(p, data)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// run500 loads the suite's CRDs (compiling their schemas and rules) and
// runs its cases on this binary's minor, as kubectl crdlint test does.
func run500(tb testing.TB, s *Suite) []*Result {
	srv, err := Load(s.CRDs...)
	if err != nil {
		tb.Fatal(err)
	}
	rs, err := RunMinors([]*Suite{s}, []*Server{srv}, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return rs
}

// BenchmarkRun500 runs 500 cases on one minor, CRD loading and
// compilation included (a fresh server each time).
func BenchmarkRun500(b *testing.B) {
	s := speedSuite(b, 500)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rs := run500(b, s); Passed(rs) != 500 {
			b.Fatalf("%d of 500 passed", Passed(rs))
		}
	}
}

// TestSpeed500: the bound, 500 cases on one minor in under 5
// seconds on 2 cores (docs/testing-crds.md gives the figure measured);
// test/minors' TestSpeed500Minors holds the bound for five minors.
func TestSpeed500(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	s := speedSuite(t, 500)
	start := time.Now()
	rs := run500(t, s)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("500 cases took %s", d)
	}
	if Passed(rs) != 500 {
		var fails []string
		for _, r := range rs {
			if !r.Passed {
				fails = append(fails, r.Case)
			}
		}
		t.Errorf("failed: %s", strings.Join(fails, ", "))
	}
}
