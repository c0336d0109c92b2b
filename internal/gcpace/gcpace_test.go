package gcpace

import (
	"runtime/debug"
	"testing"
)

// The phase for custom resources keeps a lower soft limit in a process
// that judges beside others; nothing changes unless the binary tuned the
// collector.
func TestShare(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	gc := debug.SetGCPercent(100)
	t.Cleanup(func() {
		debug.SetMemoryLimit(before)
		debug.SetGCPercent(gc)
		tuned = false
		shared.Store(false)
	})

	CustomResources()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("untuned: limit %d, want it left at %d", got, before)
	}
	tuned = true
	CustomResources()
	if got := debug.SetMemoryLimit(-1); got != max(crMemoryLimit, 2*liveHeap()) {
		t.Errorf("alone: limit %d, want %d", got, int64(crMemoryLimit))
	}
	Share()
	CustomResources()
	if got := debug.SetMemoryLimit(-1); got != max(crSharedLimit, headroom(liveHeap())) {
		t.Errorf("shared: limit %d, want %d", got, int64(crSharedLimit))
	}
	CRDs()
	if got := debug.SetMemoryLimit(-1); got != max(crdLimit(), headroom(liveHeap())) {
		t.Errorf("shared, CRD phase: limit %d, want the CRD phase's %d", got, crdLimit())
	}
}
