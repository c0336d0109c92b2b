package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// profile starts the profiles CRDLINT_CPUPROFILE and CRDLINT_MEMPROFILE name
// (files to write, for performance work) and returns what stops them.
func profile() (stop func()) {
	var stops []func()
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
