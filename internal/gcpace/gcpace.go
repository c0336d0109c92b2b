// Package gcpace paces the garbage collector by what a check run holds:
// the binary turns it on (Tune); check says when its phase changes
// (CRDs, CustomResources), which does nothing unless the binary did, so
// that tests running a command in-process keep their own settings.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
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
	// crSharedLimit is the limit of a run judging beside others (a range
	// of Kubernetes minors, one process per minor, as many at once as
	// there are cores), and headroom its least margin over the live heap:
	// a process's footprint outside the heap (the binary, stacks, the
	// libraries' package state: 50-70 MB) counts once per process, so that
	// two judging at once at crMemoryLimit held 2.04x one run's peak RSS
	// (bench workload, 10,000 documents against 123 CRDs, live heap about
	// 200 MB, five minors on 2 idle cores). 360 MB and 1.75x the live heap
	// hold it to 1.8x, for 3-7% more CPU in the range (more collections).
	crSharedLimit = 360 << 20
)

// SharedEnv, set to 1 in a process's environment, says it judges beside
// others (Share): the range runner sets it for the minors' engines.
const SharedEnv = "CRDLINT_GC_SHARED"

// crdLimit is the CRD phase's soft limit: CRDs are linted one per core,
// so the live heap grows with the cores, and a limit under it would make
// the collector run all the time (up to its CPU cap) on a machine with
// many; 2 cores get crdMemoryLimit.
func crdLimit() int64 {
	return max(crdMemoryLimit, int64(runtime.GOMAXPROCS(0))*(crdMemoryLimit/2))
}

// tuned: TuneGC set the collector's pace, so a run may change it.
var tuned bool

// shared: this process judges beside others (Share).
var shared atomic.Bool

// Share says this process judges custom resources beside other processes
// doing the same, so its phase for them keeps a lower limit.
func Share() {
	shared.Store(true)
	if tuned && limit.Load() > crSharedLimit {
		// A phase already set (the custom resources', which Tune starts
		// in) keeps the shared limit from now on, whatever the command:
		// only check changes phases.
		setLimit(crSharedLimit)
	}
}

// limit is the soft memory limit of the phase a run is in; the limit
// set is never less than headroom over the heap the last collection found live
// (followLiveHeap).
var limit atomic.Int64

// Tune sets the collector for judging custom resources, unless the user
// set GOGC or GOMEMLIMIT; check starts at CRDs' pace and changes to this
// when it meets its first custom resource (CustomResources). Only the
// binary calls it: tests running Main in-process keep theirs.
func Tune() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	tuned = true
	if os.Getenv(SharedEnv) == "1" {
		Share()
	}
	CustomResources()
	followLiveHeap()
}

// CRDs paces the collector for linting CRDs, when Tune was called.
func CRDs() {
	if tuned {
		debug.SetGCPercent(100)
		setLimit(crdLimit())
	}
}

// CustomResources paces the collector for judging custom resources,
// when Tune was called.
func CustomResources() {
	if tuned {
		debug.SetGCPercent(200)
		l := int64(crMemoryLimit)
		if shared.Load() {
			l = crSharedLimit
		}
		setLimit(l)
	}
}

// setLimit makes l the phase's soft limit.
func setLimit(l int64) {
	limit.Store(l)
	debug.SetMemoryLimit(max(l, headroom(liveHeap())))
}

// followLiveHeap raises the soft limit to headroom over the live heap after every
// collection that finds more live than half the phase's limit, and lowers
// it back when the heap shrinks. A limit the live heap approaches makes
// the collector run ever more often, each run costing the whole heap:
// reading one document of 16 MB (a live heap of about 500 MB) took five
// times the CPU of reading one of 4 MB, 32 MB twice that again. With the
// limit following the heap, a large input costs what the default pace
// costs (GOGC=100), linear in its size, and the usual runs keep their
// limit.
func followLiveHeap() {
	// A finalizer runs once after the collection that finds its object
	// unreachable: a new one is set each time.
	runtime.SetFinalizer(new(gcMark), func(*gcMark) {
		debug.SetMemoryLimit(max(limit.Load(), headroom(liveHeap())))
		followLiveHeap()
	})
}

// gcMark holds a pointer so that it is not allocated in a tiny block
// with other objects, whose finalizers may never run.
type gcMark struct{ _ *gcMark }

// headroom is the least limit over a live heap: twice it, or, judging
// beside others (Share), 1.75 times.
func headroom(live int64) int64 {
	if shared.Load() {
		return live * 7 / 4
	}
	return 2 * live
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
