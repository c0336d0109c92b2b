package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

// profile starts the profiles CRDLINT_CPUPROFILE and CRDLINT_MEMPROFILE name
// (files to write, for performance work) and returns what stops them.
// CRDLINT_MEMSTATS=1 prints the run's allocation totals and the counts of
// its expensive steps (internal/count) to stderr.
func profile() (stop func()) {
	var stops []func()
	if os.Getenv("CRDLINT_MEMSTATS") != "" {
		stops = append(stops, func() {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Fprintf(os.Stderr, "memstats: %d MB allocated in %d objects, %d GCs, %.1f%% of CPU in GC, peak heap %d MB\n",
				m.TotalAlloc>>20, m.Mallocs, m.NumGC, 100*m.GCCPUFraction, m.HeapSys>>20)
			fmt.Fprintf(os.Stderr, "counts: %+v\n", count.Now())
		})
	}
	if p := os.Getenv("CRDLINT_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if p := os.Getenv("CRDLINT_MEMPROFILE"); p != "" {
		runtime.MemProfileRate = 64 << 10
		stops = append(stops, func() {
			if f, err := os.Create(p); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
