package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
)

// TestParallel: every index is handed out exactly once, whatever the
// count and the number of workers, and the first error (by index) wins.
func TestParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 7} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 5, 6, 7, 13, 100} {
			var mu sync.Mutex
			seen := make([]int, n)
			err := Run(context.Background(), n, func(i int) error {
				mu.Lock()
				seen[i]++
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Fatalf("procs %d, n %d: %v", procs, n, err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Errorf("procs %d, n %d: index %d handed out %d times", procs, n, i, c)
				}
			}
		}
	}
	errA, errB := errors.New("a"), errors.New("b")
	err := Run(context.Background(), 10, func(i int) error {
		switch i {
		case 3:
			return errA
		case 8:
			return errB
		}
		return nil
	})
	if err != errA {
		t.Errorf("got %v, want the error of the lowest index", err)
	}
}
