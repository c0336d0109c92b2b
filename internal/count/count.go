// Package count counts the expensive steps of a run — parsing a document,
// decoding and validating a CRD, compiling one of its versions, decoding
// and validating a custom resource — so that tests can prove each happens
// once per input (an architectural promise that reading the code cannot
// keep for long). The counters are process-wide and cost one atomic add.
package count

import "sync/atomic"

var (
	// Parses counts documents (YAML or JSON) parsed into node trees.
	Parses atomic.Int64
	// CRDDecodes counts strict decodes of a CRD's JSON.
	CRDDecodes atomic.Int64
	// CRDRedecodes counts decodes of a collected CRD's JSON again, for
	// a compile or a verdict after the catalogue let its schemas go.
	CRDRedecodes atomic.Int64
	// VersionCompiles counts CRD versions compiled for custom resources.
	VersionCompiles atomic.Int64
	// CRDValidations counts runs of the server's CRD validation.
	CRDValidations atomic.Int64
	// CRDecodes counts custom resources' JSON decoded into objects.
	CRDecodes atomic.Int64
	// CRValidations counts custom resources judged against their CRD
	// (looked up, and validated when it serves them).
	CRValidations atomic.Int64
)

// Snapshot is the counters at one moment.
type Snapshot struct {
	Parses, CRDDecodes, CRDRedecodes, VersionCompiles, CRDValidations, CRDecodes, CRValidations int64
}

// Now reads the counters.
func Now() Snapshot {
	return Snapshot{Parses.Load(), CRDDecodes.Load(), CRDRedecodes.Load(), VersionCompiles.Load(), CRDValidations.Load(), CRDecodes.Load(), CRValidations.Load()}
}

// Sub is the work done between then and s.
func (s Snapshot) Sub(then Snapshot) Snapshot {
	return Snapshot{s.Parses - then.Parses, s.CRDDecodes - then.CRDDecodes, s.CRDRedecodes - then.CRDRedecodes, s.VersionCompiles - then.VersionCompiles, s.CRDValidations - then.CRDValidations, s.CRDecodes - then.CRDecodes, s.CRValidations - then.CRValidations}
}
