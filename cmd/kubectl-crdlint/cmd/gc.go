package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
)

// The collector's settings follow what a run holds. Custom resources are
// judged against compiled versions, a live heap of a hundred megabytes
// or more that every document's garbage is collected around: collecting
// half as often (GOGC=200) saves about a fifth of the CPU the server's
// validators make the collector spend, and a soft limit keeps the heap
// from tripling past it (on 10,000 custom resources against 123 CRDs,
// peak RSS about 1 GiB to 0.5, where GOGC=100 costs 13% more CPU for the
// same RSS). Linting CRDs keeps little alive between files (the corpus's
// 123 peak at about 90 MB live): there the default pace and a lower
// limit hold RSS to what it was before the compiled-version cache (about
// 220 MiB for the corpus) for the same CPU. A live heap near a limit
// makes collection frequent, not fatal: the runtime caps its CPU share.
const (
	crdMemoryLimit = 160 << 20
	crMemoryLimit  = 448 << 20
)

// crdLimit is the CRD phase's soft limit: CRDs are linted one per core,
// so the live heap grows with the cores, and a limit under it would make
// the collector run all the time (up to its CPU cap) on a machine with
// many; 2 cores get crdMemoryLimit.
func crdLimit() int64 {
	return max(crdMemoryLimit, int64(runtime.GOMAXPROCS(0))*(crdMemoryLimit/2))
}

// tuned: TuneGC set the collector's pace, so a run may change it.
var tuned bool

// TuneGC sets the collector for judging custom resources, unless the user
// set GOGC or GOMEMLIMIT; check starts at CRDs' pace and changes to this
// when it meets its first custom resource (gcForCustomResources). Only
// the binary calls it: tests running Main in-process keep theirs.
func TuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	tuned = true
	gcForCustomResources()
}

func gcForCRDs() {
	if tuned {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(crdLimit())
	}
}

func gcForCustomResources() {
	if tuned {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(crMemoryLimit)
	}
}
