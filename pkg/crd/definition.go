package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Definition is one apiextensions.k8s.io/v1 CustomResourceDefinition as
// the server reads a request body (engine.DecodeCRD): strictly decoded
// and defaulted, once. Everything else about the CRD — its create
// verdict, its compiled versions in a Catalog — is derived from it and
// computed at most once.
//
// A Definition in a Catalog is shed (Shed): it lets its decoded schemas
// go and decodes its JSON again when a compile needs them, which is why
// the decoded CRD is read through Object (whole) or, in the catalogue,
// Entry.CRD (without schemas), never a field.
type Definition struct {
	// v1 is the decoded and defaulted object, nil when DecodeError is set.
	// Once the Definition is shed v1 keeps everything but the versions'
	// schemas.
	v1 *apiextensionsv1.CustomResourceDefinition
	// Unknown holds the strict decoder's messages (unknown field "...",
	// duplicate field "..."): warnings under fieldValidation=Warn, a 400
	// under Strict.
	Unknown []string
	// DecodeError is a decoding failure that fails the request (400).
	DecodeError error
	// Markers is the CRD as generic JSON, kept only when it mentions the
	// Immutable Fields design's markers (x-kubernetes-mutability,
	// x-kubernetes-key-mutability), which the typed decoder drops.
	Markers map[string]any
	// Origin is where the CRD was written, when it came from a document.
	Origin *Origin

	// raw is the JSON v1 was decoded from: decoding it again costs less
	// than keeping every schema decoded for the whole run.
	raw []byte
	// digest is raw's SHA-256, computed on first use (Catalog.Identity).
	digestOnce sync.Once
	digest     [32]byte
	// deep is deepOf's digest once known (under mu).
	deep string
	// spare is the whole decoded CRD of a Definition shed by shedSpare,
	// handed (once) to the next Object or verdict instead of a decode:
	// a CRD read because a lookup needs it is compiled next, and decoding
	// it twice in a row was a tenth of a run whose verdicts are cached.
	spare *apiextensionsv1.CustomResourceDefinition

	mu      sync.Mutex
	verdict *engine.CRDVerdict
	// costsDone: verdict has its CEL cost estimates (asked for with a
	// cost cache; an accepted CRD's are then in verdict.Costs).
	costsDone bool
	shed      bool
	// judged says rejected holds the verdict's answer for Warn and
	// Strict, all a shed Definition keeps of its verdict.
	judged   bool
	rejected [2]bool
}

// Origin is where a CRD was written: its document, and the position of
// its metadata.name there.
type Origin struct {
	File         string
	Document     int
	Line, Column int
	Object       report.ObjectRef
	// Bundle says the file holds objects other than CRDs too, as an
	// install or release manifest does: a copy of CRDs kept elsewhere,
	// as far as judging custom resources goes (judge.go).
	Bundle bool
}

func (o *Origin) String() string { return fmt.Sprintf("%s:%d", o.File, o.Line) }

// Decode decodes a CRD's JSON as the server decodes a create request for
// apiextensions.k8s.io/v1: strictly (unknown and duplicate fields
// collected, not fatal), then defaulted.
func Decode(js []byte) *Definition {
	count.CRDDecodes.Add(1)
	return decode(js)
}

func decode(js []byte) *Definition {
	d := &Definition{}
	d.v1, d.Unknown, d.DecodeError = engine.DecodeCRD(js)
	if d.DecodeError != nil {
		return d
	}
	d.raw = js
	if bytes.Contains(js, []byte("-mutability")) {
		var m map[string]any
		if json.Unmarshal(js, &m) == nil {
			d.Markers = m
		}
	}
	return d
}

// Name is the CRD's metadata.name, or "" when it did not decode.
func (d *Definition) Name() string {
	if d.v1 == nil {
		return ""
	}
	return d.v1.Name
}

// Object is the decoded and defaulted CRD with its schemas, nil when it
// did not decode. A Definition no catalogue has shed returns its own
// object, which the caller shares; a shed one decodes its JSON again
// (a new object each call, which the caller owns): ask once.
func (d *Definition) Object() *apiextensionsv1.CustomResourceDefinition {
	d.mu.Lock()
	shed, spare := d.shed, d.spare
	d.spare = nil
	d.mu.Unlock()
	if !shed {
		return d.v1
	}
	if spare != nil {
		return spare
	}
	return d.redecode().v1
}

// Verdict is the server's verdict on a create of the CRD, computed on
// first use and kept until the Definition is shed: linting a CRD and
// looking up its custom resources need the same verdict, and validating a
// large CRD is costly. Costs, when not nil, asks for the CEL cost
// estimates too (see CRDVerdict.Costs), sharing the cache's compilations.
// A shed Definition computes it again from its JSON each time.
func (d *Definition) Verdict(costs *engine.CostCache) *engine.CRDVerdict {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shed {
		v := validateCreate(d.redecode(), costs)
		d.judge(v)
		return v
	}
	if d.verdict == nil {
		d.verdict = validateCreate(d, costs)
		d.costsDone = costs != nil
	} else if costs != nil && !d.costsDone && d.verdict.Accepted() {
		// Validated first for a lookup; the estimates need the converted
		// schemas again.
		d.verdict.Costs = engine.CELCosts(d.v1, costs)
		d.costsDone = true
	}
	d.judge(d.verdict)
	return d.verdict
}

// validateCreate is the server's verdict on a create of d
// (engine.ValidateCreate), with d's decoding messages.
func validateCreate(d *Definition, costs *engine.CostCache) *engine.CRDVerdict {
	if d.v1 == nil {
		return &engine.CRDVerdict{Unknown: d.Unknown, DecodeError: d.DecodeError}
	}
	count.CRDValidations.Add(1)
	v := engine.ValidateCreate(d.v1, costs)
	v.Unknown = d.Unknown
	return v
}

// ValidateUpdate is the server's verdict on an update of the CRD old (as
// storage holds it, or as a file has it: engine.ValidateUpdate says how
// it is installed) to new (as a request sends it). Neither is changed.
func ValidateUpdate(old, new *Definition) *engine.CRDVerdict {
	v := &engine.CRDVerdict{Unknown: new.Unknown, DecodeError: new.DecodeError}
	if new.v1 == nil {
		return v
	}
	if old.v1 == nil {
		v.DecodeError = fmt.Errorf("the old CustomResourceDefinition does not decode: %w", old.DecodeError)
		return v
	}
	count.CRDValidations.Add(1)
	u := engine.ValidateUpdate(old.v1, new.v1)
	u.Unknown = new.Unknown
	return u
}

func (d *Definition) judge(v *engine.CRDVerdict) {
	d.rejected = [2]bool{v.Rejected(false), v.Rejected(true)}
	d.judged = true
}

// Judged records the answer of Rejected computed by an earlier run (a
// cache keyed by the CRD's text and the tool's build): Rejected then
// never validates. Judged and Answer are the verdict cache's way in.
func (d *Definition) Judged(warn, strict bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.rejected = [2]bool{warn, strict}
	d.judged = true
}

// Answer is Rejected's answer for Warn and Strict when it is known
// without validating (judged), for a cache to keep.
func (d *Definition) Answer() (judged bool, warn, strict bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.judged, d.rejected[0], d.rejected[1]
}

// Rejected reports whether the server refuses a create of the CRD under
// fieldValidation=Warn (strict=false) or Strict.
func (d *Definition) Rejected(strict bool) bool {
	d.mu.Lock()
	judged, rejected := d.judged, d.rejected
	d.mu.Unlock()
	if !judged {
		d.Verdict(nil)
		d.mu.Lock()
		rejected = d.rejected
		d.mu.Unlock()
	}
	if strict {
		return rejected[1]
	}
	return rejected[0]
}

// judgeShed judges a shed Definition not judged yet from its JSON
// decoded again, and returns that decoded CRD for the compile that
// follows a first lookup to reuse (validation leaves it as it was); nil
// when there was nothing to judge. The lock makes concurrent first
// lookups validate once.
func (d *Definition) judgeShed() *apiextensionsv1.CustomResourceDefinition {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.shed || d.judged {
		return nil
	}
	full := d.whole()
	d.judge(validateCreate(full, nil))
	return full.v1
}

// whole is the Definition with its schemas, for a shed d (under d.mu):
// its spare, taken, or its JSON decoded again. Both are new to the
// caller and equal to what decoding the JSON gives.
func (d *Definition) whole() *Definition {
	if d.spare == nil {
		return d.redecode()
	}
	full := &Definition{v1: d.spare, Unknown: d.Unknown, DecodeError: d.DecodeError, Markers: d.Markers, Origin: d.Origin, raw: d.raw}
	d.spare = nil
	return full
}

// Shed lets the decoded schemas go, keeping what lookups read (names,
// versions, scope, the verdict's answer): a run keeps every CRD it
// collects, and decoded schemas are most of the heap. The schemas come
// back, decoded from the CRD's JSON, for each compile (Object). The caller
// must hold d alone (a Catalog's Add sheds before publishing it). A
// Definition without JSON (FromV1) is kept whole.
func (d *Definition) Shed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.v1 == nil || d.shed || d.raw == nil {
		return
	}
	if d.verdict != nil {
		d.judge(d.verdict)
		d.verdict = nil
	}
	d.v1 = engine.WithoutSchemas(d.v1)
	d.shed = true
}

// shedSpare sheds d as Shed does but keeps the decoded CRD aside for the
// next Object or verdict, which take it instead of decoding the JSON
// again: for a CRD about to be compiled. The kept CRD shares nothing with
// v1 (the compile owns it), and dropSpare lets it go if no compile came.
func (d *Definition) shedSpare() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.v1 == nil || d.shed || d.raw == nil {
		return
	}
	if d.verdict != nil {
		d.judge(d.verdict)
		d.verdict = nil
	}
	d.spare = d.v1
	d.v1 = engine.WithoutSchemas(d.v1).DeepCopy()
	d.shed = true
}

// dropSpare lets go of what shedSpare kept, if no compile took it.
func (d *Definition) dropSpare() {
	d.mu.Lock()
	d.spare = nil
	d.mu.Unlock()
}

func (d *Definition) shedNow() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shed
}

// redecode decodes the JSON of a shed Definition again, counted apart
// from collection's decodes (count.CRDRedecodes).
func (d *Definition) redecode() *Definition {
	count.CRDRedecodes.Add(1)
	full := decode(d.raw)
	full.Origin = d.Origin
	return full
}
