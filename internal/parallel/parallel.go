// Package parallel runs a loop's body for 0..n-1 over all cores: the
// loop is the caller's, the order of the indexes this package's (input's
// phases, the catalogue's reading of --crd files).
package parallel

import (
	"context"
	"runtime"
	"sync"
)

// Run runs fn for 0..n-1 over all cores and returns the error of
// the lowest index that failed.
//
// It hands out the indexes interleaved from one stretch of 0..n-1 per
// worker: neighbouring files tend to need the same CRD, and a worker
// waiting for another one to validate and compile that CRD leaves a core
// idle, where workers in different stretches mostly need different CRDs.
func Run(ctx context.Context, n int, fn func(i int) error) error {
	return In(ctx, nil, n, fn)
}

// In is Run taking the indexes in order's order (nil: 0..n-1), a
// permutation of 0..n-1.
func In(ctx context.Context, order []int, n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	work := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = fn(i)
			}
		}()
	}
	stretch := (n + workers - 1) / workers
dispatch:
	for r := 0; r < stretch; r++ {
		for s := 0; s < workers; s++ {
			i := s*stretch + r
			if i >= n {
				continue
			}
			if ctx.Err() != nil {
				break dispatch
			}
			if order != nil {
				i = order[i]
			}
			work <- i
		}
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
