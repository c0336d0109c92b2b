package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Definition is one apiextensions.k8s.io/v1 CustomResourceDefinition as
// the server reads a request body: strictly decoded and defaulted, once.
// Everything else about the CRD — its create verdict, its compiled
// versions in a Catalog — is derived from it and computed at most once.
type Definition struct {
	// V1 is the decoded and defaulted object, nil when DecodeError is set.
	// A Catalog that compiles a version drops that version's decoded
	// schema from V1 (see Entry.release): the compiled form replaces it.
	V1 *apiextensionsv1.CustomResourceDefinition
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

	mu      sync.Mutex
	verdict *CRDVerdict
}

// Origin is where a CRD was written: its document, and the position of
// its metadata.name there.
type Origin struct {
	File         string
	Document     int
	Line, Column int
	Object       report.ObjectRef
}

func (o *Origin) String() string { return fmt.Sprintf("%s:%d", o.File, o.Line) }

// Decode decodes a CRD's JSON as the server decodes a create request for
// apiextensions.k8s.io/v1: strictly (unknown and duplicate fields
// collected, not fatal), then defaulted.
func Decode(js []byte) *Definition {
	count.CRDDecodes.Add(1)
	d := &Definition{}
	obj, _, err := strictDecoder.Decode(js, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		se, ok := runtime.AsStrictDecodingError(err)
		if !ok {
			d.DecodeError = err
			return d
		}
		for _, e := range se.Errors() {
			d.Unknown = append(d.Unknown, e.Error())
		}
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		d.DecodeError = fmt.Errorf("decoded %T, not a CustomResourceDefinition", obj)
		return d
	}
	scheme.Default(crd)
	d.V1 = crd
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
	if d.V1 == nil {
		return ""
	}
	return d.V1.Name
}

// Verdict is the server's verdict on a create of the CRD, computed on
// first use and kept: linting a CRD and looking up its custom resources
// need the same verdict, and validating a large CRD is costly. Costs, when
// not nil, asks for the CEL cost estimates too (see CRDVerdict.Costs),
// sharing the cache's compilations.
func (d *Definition) Verdict(costs *CostCache) *CRDVerdict {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.verdict == nil {
		d.verdict = validateCreate(d, costs)
	} else if costs != nil && !d.verdict.costsDone && d.verdict.accepted() {
		// Validated first for a lookup; the estimates need the converted
		// schemas again.
		d.verdict.Costs = CELCosts(d.V1, costs)
		d.verdict.costsDone = true
	}
	return d.verdict
}

// Rejected reports whether the server refuses a create of the CRD under
// fieldValidation=Warn (strict=false) or Strict.
func (d *Definition) Rejected(strict bool) bool {
	return d.Verdict(nil).Rejected(strict)
}
