package engine

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// isCRD reports whether a document is a CustomResourceDefinition of any
// apiextensions version (as pkg/crd's IsCRD, which the engine's tests
// cannot import: pkg/crd imports the engine).
func isCRD(d *source.Document) bool {
	g, _ := d.GroupVersion()
	return g == "apiextensions.k8s.io" && d.Object.Kind == "CustomResourceDefinition"
}

// decoded is a CRD as DecodeCRD returns it.
type decoded struct {
	V1          *apiextensionsv1.CustomResourceDefinition
	Unknown     []string
	DecodeError error
}

func decode(js []byte) decoded {
	var d decoded
	d.V1, d.Unknown, d.DecodeError = DecodeCRD(js)
	return d
}

// Verdict is the server's verdict on a create of the CRD, as pkg/crd's
// Definition.Verdict composes it.
func (d decoded) Verdict(costs *CostCache) *CRDVerdict {
	if d.V1 == nil {
		return &CRDVerdict{Unknown: d.Unknown, DecodeError: d.DecodeError}
	}
	v := ValidateCreate(d.V1, costs)
	v.Unknown = d.Unknown
	return v
}
